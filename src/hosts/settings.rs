//! How a host's settings file holds our hooks, behind three traits a host's [`super::SettingsFile`]
//! names: the document's [`Layout`] (where the events map lives, how our entries are merged,
//! removed and found), the [`HandlerForm`] of each handler (its keys and how it names the
//! program), and the [`SessionMatcher`] rule. The kinds two or more hosts share live here
//! ([`MatcherGroups`], [`Shell`], [`Regex`], [`NoMatcher`]); a kind only one host uses lives in
//! that host's file. Pure: documents and plain data in, documents out; `install` builds the
//! handlers and says which are ours, and the edge reads and writes the files.

use std::fmt::Debug;

use serde_json::{Map, Value, json};

use super::SettingsFile;

/// One of our entries for a hooks document: the event's name as the host writes it, the matcher
/// of its group (where the layout has groups), and our handler.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub event: &'static str,
    pub matcher: Option<&'static str>,
    pub handler: Value,
}

/// Why a settings document cannot take our entries: a value sits where the layout needs an
/// object or a list, so merging would drop what the user wrote there.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum MergeError {
    #[error("the top level is not a JSON object")]
    NotAnObject,
    #[error("`{0}` is not a JSON object")]
    NotAnObjectAt(String),
    #[error("`{0}` is not a JSON array")]
    NotAnArrayAt(String),
}

/// One of our handlers as found in a settings document (for `doctor`).
#[derive(Debug, Clone, PartialEq)]
pub struct Registered {
    pub event: String,
    /// The matcher of the group holding the handler, if it has one.
    pub matcher: Option<String>,
    pub group_index: usize,
    pub handler_index: usize,
    pub handler: Value,
}

/// Where a settings document keeps its hooks and how our entries sit among the user's. Each
/// method that must tell our handlers from the user's is given `is_ours`, `install`'s exact test
/// (a handler is ours only when it is exactly what `install` writes).
pub trait Layout: Sync + Debug {
    /// A document holding only `entries`: what a plugin ships as its hooks file.
    fn document(&self, entries: Vec<Entry>) -> Value;

    /// Merges `entries` into the document's root object, keeping everything else; an entry of
    /// ours that differs is replaced, and merging twice changes nothing. `created` when the file
    /// did not exist.
    fn install(
        &self,
        root: &mut Map<String, Value>,
        created: bool,
        entries: &[Entry],
        is_ours: &dyn Fn(&Value) -> bool,
    ) -> Result<(), MergeError>;

    /// Removes our entries and the containers they leave empty from the root object. True when
    /// what is left is only what this layout creates with a file (the file can go).
    fn uninstall(&self, root: &mut Map<String, Value>, is_ours: &dyn Fn(&Value) -> bool) -> bool;

    /// Our handlers in a document, with their positions.
    fn registered(&self, doc: &Value, is_ours: &dyn Fn(&Value) -> bool) -> Vec<Registered>;

    /// The events map of an entry of our own beside `hooks`, where the layout keeps one: the
    /// handlers `doctor` also looks through for impostors.
    fn own_entry<'a>(&self, _doc: &'a Value) -> Option<&'a Map<String, Value>> {
        None
    }

    /// Whether our entries sit among the user's in the root `hooks` map, so that removing ours
    /// can empty a container the user's original file held (which `uninstall` then keeps).
    fn shares_hooks_map(&self) -> bool {
        true
    }

    /// Whether the host reads every `.json` file of the settings file's folder as hooks (ours is
    /// one file of a folder), so that trusting the project also runs the others.
    fn reads_folder(&self) -> bool {
        false
    }
}

/// The `hooks` object of a settings document, created empty when absent; an error naming it when
/// it is something else (`install` then leaves the file as it was).
pub fn hooks_mut(root: &mut Map<String, Value>) -> Result<&mut Map<String, Value>, MergeError> {
    root.entry("hooks")
        .or_insert_with(|| Value::Object(Map::new()))
        .as_object_mut()
        .ok_or_else(|| MergeError::NotAnObjectAt("hooks".into()))
}

/// The list of `event` in a `hooks` object, created empty when absent; an error naming
/// `hooks.<event>` when it is something else.
pub fn event_list<'a>(
    hooks: &'a mut Map<String, Value>,
    event: &str,
) -> Result<&'a mut Vec<Value>, MergeError> {
    hooks
        .entry(event)
        .or_insert_with(|| Value::Array(Vec::new()))
        .as_array_mut()
        .ok_or_else(|| MergeError::NotAnArrayAt(format!("hooks.{event}")))
}

/// Removes ours from each event list of `root.hooks` (`remove` edits one list and says whether
/// it took anything out), then the events that left empty, then `hooks` itself when that left it
/// empty: what the user had stays as it was.
pub fn remove_from_hooks(
    root: &mut Map<String, Value>,
    mut remove: impl FnMut(&mut Vec<Value>) -> bool,
) {
    let Some(hooks) = root.get_mut("hooks").and_then(Value::as_object_mut) else {
        return;
    };
    let mut emptied = Vec::new();
    for (name, list) in hooks.iter_mut() {
        if let Some(list) = list.as_array_mut()
            && remove(list)
            && list.is_empty()
        {
            emptied.push(name.clone());
        }
    }
    let removed_any = !emptied.is_empty();
    for name in emptied {
        hooks.shift_remove(&name);
    }
    if removed_any && hooks.is_empty() {
        root.shift_remove("hooks");
    }
}

/// `hooks.<Event>: [{matcher?, hooks: [handler]}]`: Codex, Claude Code and Gemini CLI.
#[derive(Debug)]
pub struct MatcherGroups;

impl Layout for MatcherGroups {
    fn document(&self, entries: Vec<Entry>) -> Value {
        let mut events_map = Map::new();
        for entry in entries {
            let mut group = Map::new();
            if let Some(m) = entry.matcher {
                group.insert("matcher".into(), Value::from(m));
            }
            group.insert("hooks".into(), json!([entry.handler]));
            events_map.insert(entry.event.to_owned(), json!([group]));
        }
        json!({"hooks": events_map})
    }

    fn install(
        &self,
        root: &mut Map<String, Value>,
        _created: bool,
        entries: &[Entry],
        is_ours: &dyn Fn(&Value) -> bool,
    ) -> Result<(), MergeError> {
        let hooks = hooks_mut(root)?;
        for entry in entries {
            let desired = &entry.handler;
            let groups = event_list(hooks, entry.event)?;
            let matcher = entry.matcher;
            // (the group's matcher, our handler) for each of our handlers.
            let ours: Vec<(Option<&str>, &Value)> = groups
                .iter()
                .flat_map(|g| {
                    let m = g.get("matcher").and_then(Value::as_str);
                    g.get("hooks")
                        .and_then(Value::as_array)
                        .into_iter()
                        .flatten()
                        .map(move |h| (m, h))
                })
                .filter(|(_, h)| is_ours(h))
                .collect();
            if ours.len() == 1 && ours[0] == (matcher, desired) {
                continue;
            }
            remove_ours_from_groups(groups, is_ours);
            let mut group = Map::new();
            if let Some(m) = matcher {
                group.insert("matcher".into(), Value::from(m));
            }
            group.insert("hooks".into(), json!([desired]));
            groups.push(Value::Object(group));
        }
        Ok(())
    }

    fn uninstall(&self, root: &mut Map<String, Value>, is_ours: &dyn Fn(&Value) -> bool) -> bool {
        remove_from_hooks(root, |groups| remove_ours_from_groups(groups, is_ours));
        false
    }

    fn registered(&self, doc: &Value, is_ours: &dyn Fn(&Value) -> bool) -> Vec<Registered> {
        let mut out = Vec::new();
        let Some(hooks) = doc.get("hooks").and_then(Value::as_object) else {
            return out;
        };
        for (event, groups) in hooks {
            for (g, group) in groups.as_array().into_iter().flatten().enumerate() {
                for (h, handler) in group
                    .get("hooks")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .enumerate()
                {
                    if is_ours(handler) {
                        out.push(Registered {
                            event: event.clone(),
                            matcher: group
                                .get("matcher")
                                .and_then(Value::as_str)
                                .map(str::to_owned),
                            group_index: g,
                            handler_index: h,
                            handler: handler.clone(),
                        });
                    }
                }
            }
        }
        out
    }
}

/// Removes our handlers from matcher groups, and the groups they leave empty.
fn remove_ours_from_groups(groups: &mut Vec<Value>, is_ours: &dyn Fn(&Value) -> bool) -> bool {
    let mut removed = false;
    groups.retain_mut(|group| {
        let Some(handlers) = group.get_mut("hooks").and_then(Value::as_array_mut) else {
            return true;
        };
        let before = handlers.len();
        handlers.retain(|h| !is_ours(h));
        let changed = handlers.len() != before;
        removed |= changed;
        !(changed && handlers.is_empty())
    });
    removed
}

/// Each entry's handler listed straight under its event (`{"<event>": [handler]}`): the events
/// map of the layouts without groups.
pub fn flat_events(entries: Vec<Entry>) -> Map<String, Value> {
    entries
        .into_iter()
        .map(|e| (e.event.to_owned(), json!([e.handler])))
        .collect()
}

/// Handlers listed straight under each event (`{"<event>": [handler, …]}`), those `keep` accepts.
pub fn flat_registered(events: Option<&Value>, keep: &dyn Fn(&Value) -> bool) -> Vec<Registered> {
    let mut out = Vec::new();
    for (event, list) in events.and_then(Value::as_object).into_iter().flatten() {
        for (h, handler) in list.as_array().into_iter().flatten().enumerate() {
            if keep(handler) {
                out.push(Registered {
                    event: event.clone(),
                    matcher: None,
                    group_index: 0,
                    handler_index: h,
                    handler: handler.clone(),
                });
            }
        }
    }
    out
}

/// What a handler of ours says, in every form: `install` builds it for one program, event and
/// build (a Windows build writes the lines a host runs there).
#[derive(Debug)]
pub struct HandlerLines<'a> {
    /// The program as the exec form names it (no shell).
    pub program: &'a str,
    /// The `--host` value.
    pub host: &'a str,
    /// The event's name as the host writes it.
    pub event: &'a str,
    /// The line the host runs as `command` on this build (POSIX, or PowerShell where the host
    /// runs `command` through it on Windows).
    pub shell: String,
    /// The POSIX shell line.
    pub posix: String,
    /// The PowerShell line.
    pub powershell: String,
    /// In the host's own unit.
    pub timeout: u64,
    /// Whether the build is for Windows.
    pub windows: bool,
}

/// How a handler object starts the hook: its keys, and how it names the program.
pub trait HandlerForm: Sync + Debug {
    /// Our handler object, given the host's `settings` (its flags for handler names and a
    /// Windows line).
    fn handler(&self, lines: &HandlerLines<'_>, settings: &SettingsFile) -> Value;

    /// The handler key holding the command line (or the program).
    fn command_key(&self) -> &'static str {
        "command"
    }

    /// The handler key holding the timeout.
    fn timeout_key(&self) -> &'static str {
        "timeout"
    }

    /// Whether the host runs the program itself with the arguments apart (`command` and
    /// `args`), with no shell reading a line.
    fn exec(&self) -> bool {
        false
    }

    /// The arguments the host passes the program, where the form gives them apart
    /// ([`HandlerForm::exec`]): `--host <host> --event <event>`.
    fn exec_args<'a>(&self, host: &'a str, event: &'a str) -> Option<[&'a str; 4]> {
        self.exec().then_some(["--host", host, "--event", event])
    }

    /// The handler's own key for the line the host runs on Windows instead (a PowerShell line),
    /// where the form has one.
    fn windows_line_key(&self) -> Option<&'static str> {
        None
    }
}

/// `command` is a shell command line (POSIX quoting): Codex, Gemini CLI, Antigravity, and the
/// plugins' hooks files of Claude Code and Gemini CLI. Gemini CLI names each handler
/// (`SettingsFile::named_handlers`); Codex adds `commandWindows` on Windows
/// (`SettingsFile::command_windows`).
#[derive(Debug)]
pub struct Shell;

impl HandlerForm for Shell {
    fn handler(&self, lines: &HandlerLines<'_>, settings: &SettingsFile) -> Value {
        if settings.named_handlers {
            return json!({
                "name": format!("sophia-hook-{}", kebab(lines.event)),
                "type": "command",
                "command": lines.shell,
                "timeout": lines.timeout,
                "description": "sophia-hook routing context",
            });
        }
        let mut h = json!({"type": "command", "command": lines.shell, "timeout": lines.timeout});
        if settings.command_windows && lines.windows {
            h["commandWindows"] = Value::from(lines.powershell.as_str());
        }
        h
    }
}

/// `BeforeAgent` → `before-agent`.
fn kebab(name: &str) -> String {
    let mut out = String::new();
    for (i, c) in name.chars().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            out.push('-');
        }
        out.push(c.to_ascii_lowercase());
    }
    out
}

/// How the host matches a SessionStart group against the session's source.
pub trait SessionMatcher: Sync + Debug {
    /// The matcher written on our SessionStart group; `None` writes none, which fires on every
    /// source.
    fn written(&self) -> Option<&'static str>;

    /// What is wrong with an existing SessionStart matcher, as the host compares it; `None` when
    /// it fires on every source, or when the host's rule leaves nothing to report.
    fn problem(&self, _matcher: Option<&str>) -> Option<String> {
        None
    }
}

/// A regular expression over the sources, written on our SessionStart group.
#[derive(Debug)]
pub struct Regex(pub &'static str);

impl SessionMatcher for Regex {
    fn written(&self) -> Option<&'static str> {
        Some(self.0)
    }
}

/// The host applies no SessionStart matcher.
#[derive(Debug)]
pub struct NoMatcher;

impl SessionMatcher for NoMatcher {
    fn written(&self) -> Option<&'static str> {
        None
    }
}
