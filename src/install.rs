//! Host configuration: where each host keeps its hooks, what sophia-hook's entries look like
//! there, and merging them into (or removing them from) a user's settings document without
//! touching anything else. Pure: documents in, documents out; the edge reads and writes files.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};

use crate::payload::{Event, Host};

/// Where the hook is registered: the project's settings or the user's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Scope {
    Project,
    User,
}

impl Scope {
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Project => "project",
            Scope::User => "user",
        }
    }
}

/// The description written at the root of a hooks file sophia-hook creates.
pub const DESCRIPTION: &str =
    "sophia-hook: deterministic prompt routing (installed by sophia-hook install)";
/// Antigravity's hooks file is keyed by hook name; this is ours.
pub const ANTIGRAVITY_HOOK_NAME: &str = "sophia-hook";

/// The settings file of `host` for `scope`. `codex_home` is `$CODEX_HOME` (default `~/.codex`).
pub fn config_path(
    host: Host,
    scope: Scope,
    project_root: &Path,
    home: &Path,
    codex_home: Option<&Path>,
) -> PathBuf {
    match (host, scope) {
        (Host::Codex, Scope::Project) => project_root.join(".codex/hooks.json"),
        (Host::Codex, Scope::User) => codex_home
            .map_or_else(|| home.join(".codex"), Path::to_path_buf)
            .join("hooks.json"),
        (Host::Claude, Scope::Project) => project_root.join(".claude/settings.json"),
        (Host::Claude, Scope::User) => home.join(".claude/settings.json"),
        (Host::Gemini, Scope::Project) => project_root.join(".gemini/settings.json"),
        (Host::Gemini, Scope::User) => home.join(".gemini/settings.json"),
        (Host::Antigravity, Scope::Project) => project_root.join(".agents/hooks.json"),
        (Host::Antigravity, Scope::User) => home.join(".gemini/config/hooks.json"),
    }
}

/// The timeout of our handler for an event, in the host's own unit (seconds everywhere but Gemini
/// CLI, which counts milliseconds). Short and explicit: the defaults are 60–600 seconds.
pub fn timeout(host: Host, event: Event) -> u64 {
    let seconds = match event {
        Event::SessionStart => 10,
        Event::UserPromptSubmit => 5,
    };
    match host {
        Host::Gemini => seconds * 1000,
        _ => seconds,
    }
}

/// Quotes a path for a shell command line when it needs it.
fn shell_quote(path: &str) -> String {
    if path
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "/._-+:\\".contains(c))
    {
        path.to_owned()
    } else {
        format!("\"{}\"", path.replace('"', "\\\""))
    }
}

/// The command line of our handler for `host` and `event` (shell form).
pub fn command_line(binary: &str, host: Host, event: Event) -> String {
    format!(
        "{} --host {} --event {}",
        shell_quote(binary),
        host.as_str(),
        host.event_name(event)
    )
}

/// Our handler object for `host` and `event`.
pub fn handler(binary: &str, host: Host, event: Event) -> Value {
    let t = timeout(host, event);
    match host {
        Host::Codex => {
            let mut h = json!({"type": "command", "command": command_line(binary, host, event), "timeout": t});
            if cfg!(windows) {
                h["commandWindows"] = Value::from(command_line(binary, host, event));
            }
            h
        }
        Host::Claude => json!({
            "type": "command",
            "command": binary,
            "args": ["--host", "claude", "--event", host.event_name(event)],
            "timeout": t,
        }),
        Host::Gemini => json!({
            "name": format!("sophia-hook-{}", match event { Event::SessionStart => "session-start", Event::UserPromptSubmit => "before-agent" }),
            "type": "command",
            "command": command_line(binary, host, event),
            "timeout": t,
            "description": "sophia-hook routing context",
        }),
        Host::Antigravity => {
            json!({"type": "command", "command": command_line(binary, host, event), "timeout": t})
        }
    }
}

/// The matcher of our SessionStart group (all session sources the host knows).
fn session_matcher(host: Host) -> Option<&'static str> {
    match host {
        Host::Codex | Host::Claude => Some("startup|resume|clear|compact"),
        Host::Gemini => Some("startup|resume|clear"),
        Host::Antigravity => None,
    }
}

/// True when a handler object was written by sophia-hook (any version, any path).
pub fn is_ours(handler: &Value, host: Host) -> bool {
    if host == Host::Gemini
        && handler
            .get("name")
            .and_then(Value::as_str)
            .is_some_and(|n| n.starts_with("sophia-hook"))
    {
        return true;
    }
    let command = handler.get("command").and_then(Value::as_str).unwrap_or("");
    let program = match command.strip_prefix('"') {
        Some(quoted) => quoted.split('"').next().unwrap_or(""),
        None => command.split(' ').next().unwrap_or(""),
    };
    let name = program.rsplit(['/', '\\']).next().unwrap_or("");
    name.starts_with("sophia-hook")
}

const EVENTS: [Event; 2] = [Event::SessionStart, Event::UserPromptSubmit];

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum MergeError {
    #[error("the top level is not a JSON object")]
    NotAnObject,
    #[error("`{0}` is not a JSON object")]
    NotAnObjectAt(String),
    #[error("`{0}` is not a JSON array")]
    NotAnArrayAt(String),
}

/// Registers sophia-hook for SessionStart and the host's prompt event in `doc` (a settings
/// document, `Value::Null` when the file does not exist). Everything else is kept as it is; an
/// existing sophia-hook entry that differs is replaced; running it twice changes nothing.
pub fn install(doc: Value, host: Host, binary: &str) -> Result<Value, MergeError> {
    let created = doc.is_null();
    let mut doc = match doc {
        Value::Null => Value::Object(Map::new()),
        Value::Object(_) => doc,
        _ => return Err(MergeError::NotAnObject),
    };
    if host == Host::Antigravity {
        let mut ours = Map::new();
        for event in EVENTS {
            ours.insert(
                host.event_name(event).to_owned(),
                json!([handler(binary, host, event)]),
            );
        }
        let root = doc.as_object_mut().expect("object");
        root.insert(ANTIGRAVITY_HOOK_NAME.to_owned(), Value::Object(ours));
        return Ok(doc);
    }
    if created && host == Host::Codex {
        doc["description"] = Value::from(DESCRIPTION);
    }
    let root = doc.as_object_mut().expect("object");
    let hooks = root
        .entry("hooks")
        .or_insert_with(|| Value::Object(Map::new()));
    let hooks = hooks
        .as_object_mut()
        .ok_or_else(|| MergeError::NotAnObjectAt("hooks".into()))?;
    for event in EVENTS {
        let name = host.event_name(event);
        let desired = handler(binary, host, event);
        let groups = hooks
            .entry(name)
            .or_insert_with(|| Value::Array(Vec::new()));
        let groups = groups
            .as_array_mut()
            .ok_or_else(|| MergeError::NotAnArrayAt(format!("hooks.{name}")))?;
        let ours: Vec<&Value> = groups
            .iter()
            .filter_map(|g| g.get("hooks").and_then(Value::as_array))
            .flatten()
            .filter(|h| is_ours(h, host))
            .collect();
        if ours.len() == 1 && *ours[0] == desired {
            continue;
        }
        remove_ours_from_groups(groups, host);
        let mut group = Map::new();
        if let (Event::SessionStart, Some(m)) = (event, session_matcher(host)) {
            group.insert("matcher".into(), Value::from(m));
        }
        group.insert("hooks".into(), json!([desired]));
        groups.push(Value::Object(group));
    }
    Ok(doc)
}

/// Removes our handlers from matcher groups, and the groups they leave empty.
fn remove_ours_from_groups(groups: &mut Vec<Value>, host: Host) -> bool {
    let mut removed = false;
    groups.retain_mut(|group| {
        let Some(handlers) = group.get_mut("hooks").and_then(Value::as_array_mut) else {
            return true;
        };
        let before = handlers.len();
        handlers.retain(|h| !is_ours(h, host));
        let changed = handlers.len() != before;
        removed |= changed;
        !(changed && handlers.is_empty())
    });
    removed
}

/// Removes sophia-hook's entries for `host` and the containers they leave empty; everything else
/// stays. Returns the document, or `None` when nothing but what sophia-hook created is left (the
/// file can go).
pub fn uninstall(doc: Value, host: Host) -> Result<Option<Value>, MergeError> {
    let mut doc = match doc {
        Value::Null => return Ok(None),
        Value::Object(_) => doc,
        _ => return Err(MergeError::NotAnObject),
    };
    let root = doc.as_object_mut().expect("object");
    if host == Host::Antigravity {
        root.shift_remove(ANTIGRAVITY_HOOK_NAME);
    } else if let Some(hooks) = root.get_mut("hooks").and_then(Value::as_object_mut) {
        let mut emptied = Vec::new();
        for (name, groups) in hooks.iter_mut() {
            if let Some(groups) = groups.as_array_mut()
                && remove_ours_from_groups(groups, host)
                && groups.is_empty()
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
    let only_ours = root.is_empty()
        || (root.len() == 1
            && root.get("description").and_then(Value::as_str) == Some(DESCRIPTION));
    Ok((!only_ours).then_some(doc))
}

/// One of our handlers as found in a settings document (for `doctor`).
#[derive(Debug, Clone, PartialEq)]
pub struct Registered {
    pub event: String,
    pub group_index: usize,
    pub handler_index: usize,
    pub handler: Value,
}

/// Our handlers in a settings document, with their positions.
pub fn registered(doc: &Value, host: Host) -> Vec<Registered> {
    let mut out = Vec::new();
    if host == Host::Antigravity {
        if let Some(ours) = doc.get(ANTIGRAVITY_HOOK_NAME).and_then(Value::as_object) {
            for (event, handlers) in ours {
                for (h, handler) in handlers.as_array().into_iter().flatten().enumerate() {
                    out.push(Registered {
                        event: event.clone(),
                        group_index: 0,
                        handler_index: h,
                        handler: handler.clone(),
                    });
                }
            }
        }
        return out;
    }
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
                if is_ours(handler, host) {
                    out.push(Registered {
                        event: event.clone(),
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

#[cfg(test)]
mod tests {
    use super::*;

    const BIN: &str = "/usr/local/bin/sophia-hook";

    fn user_codex() -> Value {
        serde_json::from_str(
            r#"{"description":"mine","hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"/opt/guard.sh","timeout":3}]}],"UserPromptSubmit":[{"hooks":[{"type":"command","command":"/opt/other --x","timeout":2}]}]}}"#,
        )
        .unwrap()
    }

    #[test]
    fn codex_install_merges_and_is_idempotent() {
        let once = install(user_codex(), Host::Codex, BIN).unwrap();
        let twice = install(once.clone(), Host::Codex, BIN).unwrap();
        assert_eq!(once, twice);
        assert_eq!(once["description"], "mine");
        assert_eq!(
            once["hooks"]["PreToolUse"],
            user_codex()["hooks"]["PreToolUse"]
        );
        let ups = once["hooks"]["UserPromptSubmit"].as_array().unwrap();
        assert_eq!(ups.len(), 2, "the user's group and ours");
        assert_eq!(ups[0], user_codex()["hooks"]["UserPromptSubmit"][0]);
        assert_eq!(
            ups[1]["hooks"][0],
            json!({"type":"command","command":"/usr/local/bin/sophia-hook --host codex --event UserPromptSubmit","timeout":5})
        );
        assert_eq!(
            once["hooks"]["SessionStart"][0]["matcher"],
            "startup|resume|clear|compact"
        );
        assert_eq!(once["hooks"]["SessionStart"][0]["hooks"][0]["timeout"], 10);
        let keys: Vec<&String> = once.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["description", "hooks"]);
        // Uninstall restores the original meaning.
        assert_eq!(uninstall(twice, Host::Codex).unwrap(), Some(user_codex()));
    }

    #[test]
    fn reinstall_with_a_new_path_replaces_the_old_entry() {
        let old = install(Value::Null, Host::Codex, "/old/sophia-hook").unwrap();
        let new = install(old, Host::Codex, BIN).unwrap();
        let regs = registered(&new, Host::Codex);
        assert_eq!(regs.len(), 2);
        assert!(
            regs.iter()
                .all(|r| r.handler["command"].as_str().unwrap().starts_with(BIN))
        );
    }

    #[test]
    fn a_created_file_is_removed_again_by_uninstall() {
        let doc = install(Value::Null, Host::Codex, BIN).unwrap();
        assert_eq!(doc["description"], DESCRIPTION);
        assert_eq!(uninstall(doc, Host::Codex).unwrap(), None);
        let doc = install(Value::Null, Host::Claude, BIN).unwrap();
        assert_eq!(uninstall(doc, Host::Claude).unwrap(), None);
    }

    #[test]
    fn claude_exec_form_and_other_settings_kept() {
        let original: Value = serde_json::from_str(r#"{"model":"opus","permissions":{"allow":["Bash(ls)"]},"hooks":{"Stop":[{"hooks":[{"type":"command","command":"notify"}]}]}}"#).unwrap();
        let doc = install(original.clone(), Host::Claude, BIN).unwrap();
        let h = &doc["hooks"]["UserPromptSubmit"][0]["hooks"][0];
        assert_eq!(h["command"], BIN);
        assert_eq!(
            h["args"],
            json!(["--host", "claude", "--event", "UserPromptSubmit"])
        );
        assert_eq!(doc["model"], "opus");
        assert_eq!(install(doc.clone(), Host::Claude, BIN).unwrap(), doc);
        assert_eq!(uninstall(doc, Host::Claude).unwrap(), Some(original));
    }

    #[test]
    fn gemini_uses_milliseconds_names_and_before_agent() {
        let doc = install(json!({"theme":"dark"}), Host::Gemini, BIN).unwrap();
        let h = &doc["hooks"]["BeforeAgent"][0]["hooks"][0];
        assert_eq!(h["name"], "sophia-hook-before-agent");
        assert_eq!(h["timeout"], 5000);
        assert_eq!(
            h["command"],
            "/usr/local/bin/sophia-hook --host gemini --event BeforeAgent"
        );
        assert_eq!(
            doc["hooks"]["SessionStart"][0]["hooks"][0]["timeout"],
            10000
        );
        assert_eq!(
            uninstall(doc, Host::Gemini).unwrap(),
            Some(json!({"theme":"dark"}))
        );
    }

    #[test]
    fn antigravity_is_keyed_by_hook_name() {
        let other = json!({"guard": {"PreToolUse": [{"matcher": "run_command", "hooks": [{"type": "command", "command": "g"}]}]}});
        let doc = install(other.clone(), Host::Antigravity, BIN).unwrap();
        assert_eq!(
            doc["sophia-hook"]["PreInvocation"][0]["command"],
            "/usr/local/bin/sophia-hook --host antigravity --event PreInvocation"
        );
        assert_eq!(doc["sophia-hook"]["SessionStart"][0]["timeout"], 10);
        assert_eq!(doc["guard"], other["guard"]);
        assert_eq!(registered(&doc, Host::Antigravity).len(), 2);
        assert_eq!(uninstall(doc, Host::Antigravity).unwrap(), Some(other));
    }

    #[test]
    fn bad_shapes_are_errors() {
        assert_eq!(
            install(json!([1]), Host::Codex, BIN),
            Err(MergeError::NotAnObject)
        );
        assert_eq!(
            install(json!({"hooks": 3}), Host::Codex, BIN),
            Err(MergeError::NotAnObjectAt("hooks".into()))
        );
        assert_eq!(
            install(
                json!({"hooks": {"UserPromptSubmit": {}}}),
                Host::Claude,
                BIN
            ),
            Err(MergeError::NotAnArrayAt("hooks.UserPromptSubmit".into()))
        );
    }

    #[test]
    fn paths_with_spaces_are_quoted() {
        assert_eq!(
            command_line(
                "/Users/Jane Doe/bin/sophia-hook",
                Host::Codex,
                Event::UserPromptSubmit
            ),
            "\"/Users/Jane Doe/bin/sophia-hook\" --host codex --event UserPromptSubmit"
        );
        assert!(is_ours(
            &json!({"command": "\"/Users/Jane Doe/bin/sophia-hook\" --host codex"}),
            Host::Codex
        ));
        assert!(!is_ours(
            &json!({"command": "/opt/other-hook --x"}),
            Host::Codex
        ));
    }
}
