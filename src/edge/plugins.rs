//! Whether a host has our plugin (or extension) installed and enabled, read where the host's own
//! install command records it ([`crate::hosts::PluginEnablement`] in each host's file): `install`
//! then does not register the hook in the settings too, and `doctor` reports a double
//! registration (no host deduplicates a settings hook and a plugin hook: every event would run
//! twice). The host names the files and reads the record; every read is here, bounded, through
//! `edge::files`, and every parse through `bounded`; a project's file is read only inside the
//! project.

use std::path::PathBuf;

use crate::edge::documents::parse;
use crate::edge::files::{Place, ProjectRoot, caps};
use crate::edge::settings::Settings;
use crate::hosts::Host;
use crate::hosts::{PluginPlace, Read, RecordFile, Syntax};
use crate::plugin::NAME;

/// Whose plugin records count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reach {
    /// The user's own files only (work at user scope, and what `doctor` calls registered).
    User,
    /// The user's and the project's (work at project scope).
    UserAndProject,
}

/// The id hosts give our plugin: the plugin's name at the marketplace's name.
pub fn plugin_id() -> String {
    format!("{NAME}@{NAME}")
}

/// The file that records our plugin as enabled for `host`, the first found; `None` when the host
/// has no plugin system we ship for, or the plugin is not enabled (or the record unreadable).
/// `reach` says whose records count: a project's record is the repository's word, so work at
/// user scope never reads one (issue 48, class 3: a committed `enabledPlugins` made
/// `install --scope user` skip, and `doctor` advise removing the user's own install).
pub fn enabled(
    host: Host,
    reach: Reach,
    root: &ProjectRoot,
    settings: &Settings,
) -> Option<PathBuf> {
    let layout = host.spec().plugin.as_ref()?;
    let files = layout.enabled.files(NAME);
    // A project's record out of reach reads as missing: the host's order of files is kept.
    let places: Vec<Option<Place>> = files
        .iter()
        .map(|file| match (reach, file.place) {
            (Reach::User, PluginPlace::Project(_)) => None,
            _ => place(file, root, settings),
        })
        .collect();
    let read: Vec<Read> = files
        .iter()
        .zip(&places)
        .map(|(file, place)| {
            place
                .as_ref()
                .map_or(Read::Missing, |p| read(p, file.syntax))
        })
        .collect();
    let found = layout.enabled.enabled(NAME, &plugin_id(), &read)?;
    places.get(found)?.as_ref().map(Place::path)
}

/// Where a record file is on this machine; `None` when it is the user's and the home is unknown.
fn place(file: &RecordFile, root: &ProjectRoot, settings: &Settings) -> Option<Place> {
    let base = match file.place {
        PluginPlace::User(p) => {
            Place::user(p.resolve(settings.home.as_deref(), &settings.host_homes)?)
        }
        PluginPlace::Project(rel) => root.at(rel),
    };
    Some(
        file.below
            .split('/')
            .filter(|c| !c.is_empty())
            .fold(base, |place, c| place.join(c)),
    )
}

/// A record file read and parsed as `syntax` (or only read, without one).
fn read(place: &Place, syntax: Option<Syntax>) -> Read {
    let Some(syntax) = syntax else {
        return match place.read(caps::SETTINGS) {
            Ok(_) => Read::Present(None),
            Err(_) => Read::Missing,
        };
    };
    match place.read_string(caps::SETTINGS) {
        Ok(text) => Read::Present(parse(&text, syntax)),
        Err(_) => Read::Missing,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether `host` reads our plugin as enabled in its first record file holding `text`, parsed
    /// as [`enabled`] parses it.
    fn enabled_in(host: Host, text: &str) -> bool {
        let record = host.spec().plugin.as_ref().unwrap().enabled;
        let syntax = record.files(NAME)[0].syntax.unwrap();
        let read = [Read::Present(parse(text, syntax))];
        record.enabled(NAME, &plugin_id(), &read) == Some(0)
    }

    /// Claude Code's and Copilot CLI's settings.
    fn enabled_in_json(text: &str) -> bool {
        let (claude, copilot) = (
            enabled_in(Host::Claude, text),
            enabled_in(Host::Copilot, text),
        );
        assert_eq!(claude, copilot, "{text}");
        claude
    }

    /// Codex's `config.toml`.
    fn enabled_in_toml(text: &str) -> bool {
        enabled_in(Host::Codex, text)
    }

    /// Gemini CLI's extension, its manifest there, and `text` its enablement file.
    fn disabled_everywhere(text: &str) -> bool {
        let record = Host::Gemini.spec().plugin.as_ref().unwrap().enabled;
        let syntax = record.files(NAME)[1].syntax.unwrap();
        let read = [Read::Present(None), Read::Present(parse(text, syntax))];
        record.enabled(NAME, &plugin_id(), &read).is_none()
    }

    /// The shapes the hosts' own install commands leave (observed in `tests/e2e/run plugin`),
    /// and their near misses: another plugin, `false`, a disabled table, text that does not parse.
    #[test]
    fn the_hosts_records_read_as_the_hosts_leave_them() {
        let json = [
            (
                r#"{"enabledPlugins": {"sophia-hook@sophia-hook": true}}"#,
                true,
            ),
            (
                "\u{feff}{\"enabledPlugins\": {\"sophia-hook@sophia-hook\": true}}",
                true,
            ),
            (
                r#"{"enabledPlugins": {"sophia-hook@sophia-hook": false}}"#,
                false,
            ),
            (r#"{"enabledPlugins": {"sophia-hook@other": true}}"#, false),
            (r#"{"enabledPlugins": {"other@sophia-hook": true}}"#, false),
            (r#"{"sophia-hook@sophia-hook": true}"#, false),
            ("{not json", false),
            ("", false),
        ];
        for (text, want) in json {
            assert_eq!(enabled_in_json(text), want, "{text}");
        }
        let toml = [
            (
                "[plugins.\"sophia-hook@sophia-hook\"]\nenabled = true\n",
                true,
            ),
            ("[plugins.\"sophia-hook@sophia-hook\"]\n", true),
            (
                "[plugins.\"sophia-hook@sophia-hook\"]\nenabled = false\n",
                false,
            ),
            ("[plugins.\"other@sophia-hook\"]\nenabled = true\n", false),
            (
                "[marketplaces.sophia-hook]\nsource_type = \"local\"\n",
                false,
            ),
            ("plugins = 1", false),
            ("[[[", false),
        ];
        for (text, want) in toml {
            assert_eq!(enabled_in_toml(text), want, "{text}");
        }
        let enablement = [
            (r#"{"sophia-hook": {"overrides": ["/home/me/*"]}}"#, false),
            (r#"{"sophia-hook": {"overrides": ["!/home/me/*"]}}"#, true),
            (
                r#"{"sophia-hook": {"overrides": ["!/home/me/*", "/home/me/work/*"]}}"#,
                false,
            ),
            (r#"{"sophia-hook": {"overrides": []}}"#, false),
            (r#"{"other": {"overrides": ["!/home/me/*"]}}"#, false),
            ("nope", false),
        ];
        for (text, want) in enablement {
            assert_eq!(disabled_everywhere(text), want, "{text}");
        }
        // No manifest, no extension; a missing enablement file disables nothing.
        let record = Host::Gemini.spec().plugin.as_ref().unwrap().enabled;
        let id = plugin_id();
        assert_eq!(
            record.enabled(NAME, &id, &[Read::Missing, Read::Missing]),
            None
        );
        assert_eq!(
            record.enabled(NAME, &id, &[Read::Present(None), Read::Missing]),
            Some(0)
        );
    }
}
