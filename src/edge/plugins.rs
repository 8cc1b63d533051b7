//! Whether a host has our plugin (or extension) installed and enabled, read where the host's own
//! install command records it ([`crate::hosts::PluginEnablement`] in each host's file): `install`
//! then does not register the hook in the settings too, and `doctor` reports a double
//! registration (no host deduplicates a settings hook and a plugin hook: every event would run
//! twice). The host names the files and reads the record; every read is here, bounded, through
//! `edge::files`, and every parse through `bounded`; a project's file is read only inside the
//! project.

use std::path::PathBuf;

use crate::charset::Shown as _;
use crate::edge::documents::parse;
use crate::edge::files::{Place, ProjectRoot, caps};
use crate::edge::settings::Settings;
use crate::hosts::Host;
use crate::hosts::settings::Registered;
use crate::hosts::{AddedFrom, FolderAt, Located, PluginPlace, Read, RecordFile, Syntax};
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

/// What `host`'s records say of the folder it loads our plugin from (whether or not the plugin is
/// enabled): the host reads its own records ([`crate::hosts::PluginSource`]), the user's files
/// only. `None` when the host has no plugin system we ship for.
pub fn locate(host: Host, settings: &Settings) -> Option<Located> {
    let layout = host.spec().plugin.as_ref()?;
    let source = layout.source;
    let read: Vec<Read> = source
        .files(NAME)
        .iter()
        .map(|file| user_place(file, settings).map_or(Read::Missing, |p| read(&p, file.syntax)))
        .collect();
    let listed: Vec<String> = source
        .listed(NAME)
        .and_then(|file| user_place(&file, settings))
        .map(|dir| {
            let mut names: Vec<String> = dir
                .list_dir(LISTED_CAP)
                .map(|entries| {
                    entries
                        .filter(|e| e.kind == crate::edge::files::Kind::Dir)
                        .map(|e| e.name.to_string_lossy().into_owned())
                        .collect()
                })
                .unwrap_or_default();
            names.sort();
            names
        })
        .unwrap_or_default();
    Some(source.locate(NAME, &plugin_id(), &read, &listed))
}

/// Where `plugin install` keeps the plugin folders, one per version: `sophia-hook/plugins/` in
/// the user's data folder (`Settings::data_dir`).
pub fn data_root(settings: &Settings) -> Option<PathBuf> {
    Some(settings.data_dir.as_ref()?.join(NAME).join("plugins"))
}

/// At most this many entries of a host's plugin cache folder are looked at (Codex keeps one).
const LISTED_CAP: usize = 64;

/// Where a folder the host names is on this machine; `None` when it is the user's and the home
/// is unknown.
pub fn folder_place(folder: &FolderAt, settings: &Settings) -> Option<Place> {
    match folder {
        FolderAt::Recorded(path, below) => Some(below_place(Place::user(path), below)),
        FolderAt::Own(file) => user_place(file, settings),
    }
}

/// A record file of the user's (a project's is never a place a plugin is loaded from).
fn user_place(file: &RecordFile, settings: &Settings) -> Option<Place> {
    match file.place {
        PluginPlace::User(p) => Some(below_place(
            Place::user(p.resolve(settings.home.as_deref(), &settings.host_homes)?),
            &file.below,
        )),
        PluginPlace::Project(_) => None,
    }
}

fn below_place(base: Place, below: &str) -> Place {
    below
        .split('/')
        .filter(|c| !c.is_empty())
        .fold(base, |place, c| place.join(c))
}

/// Our plugin as the host will load it: recorded as enabled in the user's own files, the folder
/// its records name, and whether that folder holds our hooks file and binary. The one answer to
/// "does the plugin register the hook" that `doctor`, `status` and `plugin install` share.
#[derive(Debug, Clone)]
pub struct PluginRegistration {
    /// The user's file that records the plugin as enabled.
    pub record: PathBuf,
    /// The folder the host loads it from, when its records name one.
    pub folder: Option<PathBuf>,
    /// Whether the host reads that folder in place (nothing copied).
    pub in_place: bool,
    /// What the user added the plugin from, as recorded.
    pub source: Option<AddedFrom>,
    /// Why the host cannot load our hooks from it, in a sentence that follows "the plugin is
    /// enabled, but"; `None` when it holds them.
    pub problem: Option<String>,
    /// Our handlers in the hooks file there, with their positions (Codex's trust keys).
    pub handlers: Vec<Registered>,
}

impl PluginRegistration {
    /// Whether the hook runs through the plugin (enabled, and its folder holds our hooks).
    pub fn loads(&self) -> bool {
        self.problem.is_none()
    }
}

/// [`PluginRegistration`] for `host`: `None` when the user's records do not enable our plugin (a
/// project's record is the repository's word, never the user's registration: issue 48).
pub fn registration(
    host: Host,
    root: &ProjectRoot,
    settings: &Settings,
) -> Option<PluginRegistration> {
    let record = enabled(host, Reach::User, root, settings)?;
    let located = locate(host, settings)?;
    let mut reg = PluginRegistration {
        record,
        folder: None,
        in_place: located.in_place,
        source: located.source.clone(),
        problem: None,
        handlers: Vec::new(),
    };
    let folder = match &located.folder {
        Ok(at) => folder_place(at, settings),
        Err(why) => {
            reg.problem = Some(why.clone());
            return Some(reg);
        }
    };
    let Some(folder) = folder else {
        reg.problem = Some("the home folder is unknown (HOME is not set)".into());
        return Some(reg);
    };
    reg.folder = Some(folder.path());
    match check_folder(host, &folder) {
        Ok(handlers) => reg.handlers = handlers,
        Err(why) => reg.problem = Some(why),
    }
    Some(reg)
}

/// Whether `folder` holds what the host loads of our plugin: the hooks file, parsing, with our
/// handler for each event we register, and the binary those handlers start. Our handlers in it,
/// or what is missing, in a sentence.
fn check_folder(host: Host, folder: &Place) -> Result<Vec<Registered>, String> {
    let Some(layout) = host.spec().plugin.as_ref() else {
        return Err("the host has no plugin layout".into());
    };
    let display = host.display();
    if !folder.is_dir() {
        return Err(format!(
            "the folder it is loaded from, {}, is gone (moved or deleted), so {display} runs none of its hooks",
            folder.path().shown()
        ));
    }
    let hooks = below_place(folder.clone(), layout.hooks);
    let text = hooks.read_string(caps::SETTINGS).map_err(|e| {
        format!(
            "its hooks file {} is {e}, so {display} runs none of its hooks",
            hooks.path().shown()
        )
    })?;
    let Some(doc) = parse(&text, Syntax::Json) else {
        return Err(format!(
            "its hooks file {} does not parse, so {display} runs none of its hooks",
            hooks.path().shown()
        ));
    };
    let handlers = host
        .spec()
        .settings
        .layout
        .registered(&doc, &|h| crate::plugin::is_plugin_handler(host, h));
    for event in host.spec().events.registered {
        let wire = host.event_name(*event);
        if !handlers.iter().any(|r| r.event == wire) {
            return Err(format!(
                "its hooks file {} has no sophia-hook entry for {wire}",
                hooks.path().shown()
            ));
        }
    }
    let bin = folder.join("bin");
    let binary = [false, true]
        .into_iter()
        .map(|windows| bin.join(crate::plugin::binary_name(windows)))
        .find(|b| b.is_file());
    match binary {
        Some(b) if is_executable(&b) => Ok(handlers),
        Some(b) => Err(format!(
            "its binary {} is not executable, so every hook fails",
            b.path().shown()
        )),
        None => Err(format!(
            "its binary {} is missing, so every hook fails",
            bin.join(crate::plugin::binary_name(cfg!(windows)))
                .path()
                .shown()
        )),
    }
}

/// Whether the file may be run by its owner (always on Windows, which has no such bit).
fn is_executable(file: &Place) -> bool {
    cfg!(windows) || file.metadata().is_ok_and(|m| m.mode & 0o100 != 0)
}

/// Whether `folder`, `host`'s plugin folder, holds exactly the files of this build (`files`, as
/// `plugin build` writes them, with `binary` where the binary stands).
pub fn holds_build(
    host: Host,
    folder: &Place,
    files: &[crate::plugin::PluginFile],
    binary: &[u8],
) -> bool {
    let Some(layout) = host.spec().plugin.as_ref() else {
        return false;
    };
    let prefix = format!("{}/", crate::plugin::plugin_dir(layout));
    let mut any = false;
    for file in files {
        let Some(rel) = file.path.strip_prefix(&prefix) else {
            continue;
        };
        any = true;
        let (want, cap) = match &file.contents {
            crate::plugin::Contents::Text(t) => (t.as_bytes(), caps::SETTINGS),
            crate::plugin::Contents::Binary => (binary, caps::BINARY),
        };
        if below_place(folder.clone(), rel).read(cap).ok().as_deref() != Some(want) {
            return false;
        }
    }
    any
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
