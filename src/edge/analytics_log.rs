//! The analytics log's one writer: a line per hook run appended to the user's file (never
//! prompt text: `stages::analytics`). Used by the hook run, its fail-open path and the
//! deadline's watchdog (`edge::deadline`).

use std::io::Write;

use crate::edge::files::Place;
use crate::edge::settings::Settings;
use crate::stages::analytics::AnalyticsEvent;

/// Appends an analytics line; a failure is silent on stdout and only reported under debug.
pub fn record(settings: &Settings, stderr: &mut dyn Write, event: &AnalyticsEvent) {
    let Some(path) = &settings.analytics_file else {
        return;
    };
    // Only the default log's folder (our own, under the home directory) is ever created; a
    // path the user chose must have its folder already.
    if settings.analytics_default
        && let Some(parent) = path.parent()
    {
        let _ = Place::user(parent).create_dir_all();
    }
    if let Err(err) = Place::user(path).append_line(&event.to_line())
        && settings.debug
    {
        let _ = writeln!(
            stderr,
            "[sophia-hook] analytics not written: {}",
            err.kind()
        );
    }
}
