//! The analytics log's one writer: a line per hook run appended to the user's file (never
//! prompt text: `stages::analytics`). Used by the hook run, its fail-open path and the
//! deadline's watchdog (`edge::deadline`).

use std::io::Write;

use crate::edge::files::{Place, caps};
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
    // A file the user named is appended to only when it is ours: new, empty, or starting as
    // every line of ours does. A line of ours in a file another program reads (a shell's rc
    // file, a config) could be run or break it (issue 48, class 1); the default log is ours.
    if !settings.analytics_default && !is_ours_or_new(&Place::user(path)) {
        if settings.debug {
            let _ = writeln!(stderr, "[sophia-hook] analytics not written: not-our-log");
        }
        return;
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

/// How every line of ours starts (`AnalyticsEvent` serialises `ts` first).
pub const LINE_START: &[u8] = b"{\"ts\":\"";

/// Whether `place` is missing, empty, or a file that starts as a line of ours does: only its
/// first bytes are read, whatever its size.
fn is_ours_or_new(place: &Place) -> bool {
    match place.open_bounded(caps::LOG) {
        Ok(file) => match file.read_at(0, LINE_START.len()) {
            Ok(head) => head.is_empty() || head == LINE_START,
            Err(_) => false,
        },
        Err(crate::edge::files::ReadError::Missing) => true,
        Err(_) => false,
    }
}

#[cfg(test)]
mod tests {
    // Tests set up their files and folders directly.
    #![allow(clippy::disallowed_methods)]
    use super::*;

    /// Every line of ours starts with [`LINE_START`] (a field moved ahead of `ts` would make
    /// every existing log look foreign), and only such a file, an empty one or none is ours.
    #[test]
    fn only_a_log_of_ours_is_appended_to() {
        let now = chrono::Utc::now();
        for event in [
            AnalyticsEvent::failed_open("codex", None, "panic", now, 1),
            AnalyticsEvent::failed_open("claude", Some("UserPromptSubmit"), "deadline", now, 2),
        ] {
            assert!(event.to_line().as_bytes().starts_with(LINE_START));
        }
        let dir = tempfile::tempdir().unwrap();
        let at = |name: &str, text: Option<&str>| {
            let path = dir.path().join(name);
            if let Some(text) = text {
                std::fs::write(&path, text).unwrap();
            }
            is_ours_or_new(&Place::user(&path))
        };
        assert!(at("new.jsonl", None));
        assert!(at("empty.jsonl", Some("")));
        assert!(at(
            "ours.jsonl",
            Some("{\"ts\":\"2026-12-07T10:00:00.000Z\"}\n")
        ));
        assert!(!at("notes.txt", Some("my notes\n")));
        assert!(!at("rc.sh", Some("export PATH=/x\n")));
        assert!(!at("other.jsonl", Some("{\"level\":\"info\"}\n")));
        assert!(!at("short", Some("{")));
    }
}
