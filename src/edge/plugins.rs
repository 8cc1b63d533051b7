//! Whether a host has our plugin (or extension) installed and enabled, read where the host's own
//! install command records it ([`crate::hosts::PluginEnabled`] in each host's file): `install`
//! then does not register the hook in the settings too, and `doctor` reports a double
//! registration (no host deduplicates a settings hook and a plugin hook: every event would run
//! twice). Every read is bounded, through `edge::files`; a project's file is read only inside the
//! project.

use std::path::PathBuf;

use serde_json::Value;

use crate::edge::files::{Place, ProjectRoot, caps};
use crate::edge::settings::Settings;
use crate::hosts::{PluginEnabled, PluginPlace};
use crate::payload::Host;

/// The id hosts give our plugin: the plugin's name at the marketplace's name.
pub fn plugin_id() -> String {
    format!("{}@{}", crate::plugin::NAME, crate::plugin::NAME)
}

/// The file that records our plugin as enabled for `host`, the first found; `None` when the host
/// has no plugin system we ship for, or the plugin is not enabled (or the record unreadable).
pub fn enabled(host: Host, root: &ProjectRoot, settings: &Settings) -> Option<PathBuf> {
    let layout = host.spec().plugin.as_ref()?;
    let home = settings.home.as_deref();
    let homes = &settings.host_homes;
    match layout.enabled {
        PluginEnabled::EnabledPlugins(places) => places.iter().find_map(|place| {
            let place = match place {
                PluginPlace::User(p) => Place::user(p.resolve(home, homes)?),
                PluginPlace::Project(rel) => root.at(rel),
            };
            let text = place.read_string(caps::SETTINGS).ok()?;
            enabled_in_json(&text).then(|| place.path())
        }),
        PluginEnabled::TomlPlugins(config) => {
            let path = config.resolve(home, homes)?;
            let text = Place::user(&path).read_string(caps::SETTINGS).ok()?;
            enabled_in_toml(&text).then_some(path)
        }
        PluginEnabled::ExtensionDir {
            dir,
            manifest,
            enablement,
        } => {
            let dir = dir.resolve(home, homes)?;
            let manifest = dir.join(crate::plugin::NAME).join(manifest);
            Place::user(&manifest).read(caps::SETTINGS).ok()?;
            let disabled = Place::user(dir.join(enablement))
                .read_string(caps::SETTINGS)
                .is_ok_and(|text| disabled_everywhere(&text));
            (!disabled).then_some(manifest)
        }
    }
}

/// `"enabledPlugins": {"sophia-hook@sophia-hook": true}` (Claude Code's and Copilot CLI's
/// settings). A file that is not JSON says nothing.
fn enabled_in_json(text: &str) -> bool {
    crate::bounded::json_value(text.as_bytes(), crate::bounded::FILE)
        .ok()
        .and_then(|doc| doc.get("enabledPlugins")?.get(plugin_id())?.as_bool())
        .unwrap_or(false)
}

/// `[plugins."sophia-hook@sophia-hook"] enabled = true` (Codex's `config.toml`; a table without
/// `enabled` counts as enabled, as Codex reads it).
fn enabled_in_toml(text: &str) -> bool {
    let Ok(doc) = crate::bounded::toml::<toml::Table>(text, crate::bounded::FILE) else {
        return false;
    };
    doc.get("plugins")
        .and_then(toml::Value::as_table)
        .and_then(|plugins| plugins.get(&plugin_id()))
        .and_then(toml::Value::as_table)
        .is_some_and(|entry| {
            entry
                .get("enabled")
                .and_then(toml::Value::as_bool)
                .unwrap_or(true)
        })
}

/// Gemini CLI's `extension-enablement.json`: `{"sophia-hook": {"overrides": [...]}}`, where an
/// override starting with `!` disables the extension under that path. Disabled everywhere when
/// every override is such a one (`gemini extensions disable sophia-hook`).
fn disabled_everywhere(text: &str) -> bool {
    let Ok(doc) = crate::bounded::json_value(text.as_bytes(), crate::bounded::FILE) else {
        return false;
    };
    let Some(overrides) = doc
        .get(crate::plugin::NAME)
        .and_then(|e| e.get("overrides"))
        .and_then(Value::as_array)
    else {
        return false;
    };
    !overrides.is_empty()
        && overrides
            .iter()
            .all(|o| o.as_str().is_some_and(|s| s.starts_with('!')))
}

#[cfg(test)]
mod tests {
    use super::*;

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
    }
}
