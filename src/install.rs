//! Host configuration: where each host keeps its hooks, what sophia-hook's entries look like
//! there, and merging them into (or removing them from) a user's settings document without
//! touching anything else. Pure: documents in, documents out; the edge reads and writes files.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::hosts::settings::{Entry, HandlerForm, HandlerLines};
use crate::hosts::{Event, Host};

use crate::hosts::Scope;
use crate::hosts::settings::{MergeError, Registered};

/// The description written at the root of a hooks file sophia-hook creates.
pub const DESCRIPTION: &str =
    "sophia-hook: deterministic prompt routing (installed by sophia-hook install)";

/// The settings file of `host` for `scope`, given the host home variables that are set.
pub fn config_path(
    host: Host,
    scope: Scope,
    project_root: &Path,
    home: &Path,
    host_homes: &crate::hosts::HostHomes,
) -> PathBuf {
    let settings = &host.spec().settings;
    match scope {
        Scope::Project => project_root.join(settings.project),
        Scope::User => settings
            .user
            .resolve(Some(home), host_homes)
            .unwrap_or_default(),
    }
}

/// The timeout of our handler for an event, in the host's own unit (seconds, or milliseconds
/// where the host counts them). Short and explicit: the defaults are 60–600 seconds.
pub fn timeout(host: Host, event: Event) -> u64 {
    let seconds = match event {
        Event::SessionStart => 10,
        Event::UserPromptSubmit | Event::PostToolUse => 5,
    };
    if host.spec().settings.timeout_ms {
        seconds * 1000
    } else {
        seconds
    }
}

/// Quotes a path for a POSIX shell (`sh -c`, which Codex, Gemini CLI and Antigravity run a
/// command string with) so that no shell expands any part of it: `shlex` leaves a path of plain
/// characters (`[A-Za-z0-9+-./:@_]`) as it is and quotes everything else (single quotes, or
/// double quotes with every special character escaped). A NUL byte cannot be in a path; it
/// would be an error, and is dropped instead of being quoted.
fn shell_quote(path: &str) -> String {
    let clean: String = path.chars().filter(|c| *c != '\0').collect();
    shlex::try_quote(&clean).map_or_else(|_| String::new(), std::borrow::Cow::into_owned)
}

/// Quotes a path for Windows PowerShell, which Codex runs `commandWindows` with: a path of plain
/// characters stays as it is; anything else becomes a single-quoted literal (the only special
/// characters inside one are the single quote and its typographic forms U+2018–U+201B, each
/// doubled) run with the call operator `&`. No crate quotes for PowerShell; this is the whole
/// rule of its single-quoted strings (about_Quoting_Rules).
pub fn powershell_quote(path: &str) -> (bool, String) {
    let plain = !path.is_empty()
        && !path.starts_with('-')
        && path
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-:\\".contains(c));
    if plain {
        return (false, path.to_owned());
    }
    let mut out = String::with_capacity(path.len() + 2);
    out.push('\'');
    for c in path.chars().filter(|c| *c != '\0') {
        if matches!(c, '\'' | '\u{2018}' | '\u{2019}' | '\u{201a}' | '\u{201b}') {
            out.push(c);
        }
        out.push(c);
    }
    out.push('\'');
    (true, out)
}

/// How a handler starts the binary: the program as each form writes it. [`Program::path`] for an
/// absolute path (settings), [`Program::plugin`] for the binary inside a plugin folder whose root
/// the host substitutes or sets in the environment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Program {
    /// The exec form's `command` (no shell).
    pub exec: String,
    /// The first word of a POSIX shell line.
    pub posix: String,
    /// The start of a PowerShell line (with the call operator `& ` when it is quoted).
    pub powershell: String,
}

impl Program {
    /// An absolute path, quoted so that no shell expands any of it.
    pub fn path(binary: &str) -> Program {
        let (call, quoted) = powershell_quote(binary);
        Program {
            exec: binary.to_owned(),
            posix: shell_quote(binary),
            powershell: format!("{}{quoted}", if call { "& " } else { "" }),
        }
    }

    /// `<root>bin<sep><file>` inside a plugin, in double quotes so that the shell expands the
    /// root variable (or the host has substituted it) and a root with spaces stays one word.
    pub fn plugin(root: &crate::hosts::PluginRoot, file: &str) -> Program {
        let posix = format!("{}{sep}bin{sep}{file}", root.posix, sep = root.posix_sep);
        let ps = format!(
            "{}{sep}bin{sep}{file}",
            root.powershell,
            sep = root.powershell_sep
        );
        Program {
            posix: format!("\"{posix}\""),
            powershell: format!("& \"{ps}\""),
            exec: posix,
        }
    }
}

/// `<program> --host <host> --event <event>`.
fn line(program: &str, host: Host, event: Event) -> String {
    format!(
        "{program} --host {} --event {}",
        host.as_str(),
        host.event_name(event)
    )
}

/// The command line of our handler for `host` and `event` (shell form, POSIX quoting).
pub fn command_line(binary: &str, host: Host, event: Event) -> String {
    line(&Program::path(binary).posix, host, event)
}

/// The same command line for PowerShell (`commandWindows`).
pub fn powershell_command_line(binary: &str, host: Host, event: Event) -> String {
    line(&Program::path(binary).powershell, host, event)
}

/// Splits a line [`powershell_command_line`] wrote back into its program and arguments: the
/// `& '…'` literal (each doubled quote form standing for itself) or the bare first word, then
/// the words after it. Only a line that [`powershell_command_line`] gives back exactly counts
/// as ours, so this reader needs no more of PowerShell's grammar than that writer uses.
pub fn powershell_split(command: &str) -> Option<Vec<String>> {
    let is_quote = |c: char| matches!(c, '\'' | '\u{2018}' | '\u{2019}' | '\u{201a}' | '\u{201b}');
    let (program, rest) = if let Some(literal) = command.strip_prefix("& '") {
        let mut program = String::new();
        let mut chars = literal.char_indices().peekable();
        let end = loop {
            let (i, c) = chars.next()?;
            if is_quote(c) {
                if chars.peek().map(|&(_, n)| n) == Some(c) {
                    chars.next();
                } else {
                    break i + c.len_utf8();
                }
            }
            program.push(c);
        };
        (program, &literal[end..])
    } else {
        let (program, rest) = command.split_once(' ').unwrap_or((command, ""));
        (program.to_owned(), rest)
    };
    let mut words = vec![program];
    words.extend(rest.split_whitespace().map(str::to_owned));
    Some(words)
}

/// The command line `host` runs as `command`: the PowerShell line on Windows for a host that
/// runs `command` through PowerShell there (Gemini CLI), the POSIX line everywhere else.
pub fn shell_line(binary: &str, host: Host, event: Event, windows: bool) -> String {
    program_shell_line(&Program::path(binary), host, event, windows)
}

/// [`shell_line`] for any [`Program`].
fn program_shell_line(program: &Program, host: Host, event: Event, windows: bool) -> String {
    if windows && host.spec().settings.command_is_powershell_on_windows {
        line(&program.powershell, host, event)
    } else {
        line(&program.posix, host, event)
    }
}

/// The program of a shell-form `command` as `host` reads it: the PowerShell reading when that is
/// exactly a line we write for a host that runs `command` through PowerShell on Windows, else
/// the POSIX reading (`shlex`, which never expands anything).
pub fn split_command(command: &str, host: Host) -> Option<Vec<String>> {
    if host.spec().settings.command_is_powershell_on_windows
        && let Some(words) = powershell_split(command)
        && events(host)
            .iter()
            .any(|e| command == powershell_command_line(&words[0], host, *e))
    {
        return Some(words);
    }
    shlex::split(command)
}

/// The command line earlier versions wrote: the path in double quotes, which a shell
/// expands (`$(…)`, backticks). Recognised only so that `install` replaces such an entry and
/// `uninstall` removes it; `doctor` never runs it.
fn legacy_command_line(binary: &str, host: Host, event: Event) -> String {
    let quoted = if binary
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "/._-+:\\".contains(c))
    {
        binary.to_owned()
    } else {
        format!("\"{}\"", binary.replace('"', "\\\""))
    };
    format!(
        "{quoted} --host {} --event {}",
        host.as_str(),
        host.event_name(event)
    )
}

/// Our handler object for `host` and `event`.
pub fn handler(binary: &str, host: Host, event: Event) -> Value {
    handler_for(
        &Program::path(binary),
        host,
        event,
        host.spec().settings.handler,
        cfg!(windows),
    )
}

/// A handler object of `form` for `host` and `event` that starts `program`, in the forms a
/// Windows (`windows`) or other build writes.
pub fn handler_for(
    program: &Program,
    host: Host,
    event: Event,
    form: &dyn HandlerForm,
    windows: bool,
) -> Value {
    let lines = HandlerLines {
        program: &program.exec,
        host: host.as_str(),
        event: host.event_name(event),
        shell: program_shell_line(program, host, event, windows),
        posix: line(&program.posix, host, event),
        powershell: line(&program.powershell, host, event),
        timeout: timeout(host, event),
        windows,
    };
    form.handler(&lines, &host.spec().settings)
}

/// Our entries for `host`, one per registered event, each with its group's matcher and the
/// handler `handler` gives.
fn entries(host: Host, handler: impl Fn(Event) -> Value) -> Vec<Entry> {
    events(host)
        .iter()
        .map(|&event| Entry {
            event: host.event_name(event),
            matcher: group_matcher(host, event),
            handler: handler(event),
        })
        .collect()
}

/// A document holding only our handlers for `host`, in its settings layout (matcher groups with
/// their matchers, a hook file with its version, or our named entry): what a plugin ships as its
/// hooks file. `handler` gives the handler of each registered event.
pub fn hooks_document(host: Host, handler: impl Fn(Event) -> Value) -> Value {
    host.spec().settings.layout.document(entries(host, handler))
}

/// The matcher of our SessionStart group (all session sources the host knows), where the host
/// reads it as a regular expression. A host that compares lifecycle matchers as exact strings
/// gets none, which fires on every source.
fn session_matcher(host: Host) -> Option<&'static str> {
    host.spec().settings.session_matcher.written()
}

/// The matcher of our group for `event`: the session sources on SessionStart, the plan-approval
/// tool on PostToolUse, none on the prompt event.
fn group_matcher(host: Host, event: Event) -> Option<&'static str> {
    match event {
        Event::SessionStart => session_matcher(host),
        Event::UserPromptSubmit => None,
        Event::PostToolUse => Some(crate::stages::planning::EXIT_PLAN_MODE_TOOL),
    }
}

/// What is wrong with a SessionStart matcher on a host that compares it as an exact string
/// (absent, empty or `*` matches every source). `None` when it fires on every source, or when
/// the host does not compare that way.
pub fn session_matcher_problem(host: Host, matcher: Option<&str>) -> Option<String> {
    host.spec().settings.session_matcher.problem(matcher)
}

/// True when a handler object is exactly one that `install` writes for `host`, with any path to
/// a binary named `sophia-hook`: the command line (or Claude's program and `args`) must equal
/// [`command_line`] for one of our events, nothing more. A user's `sophia-hook-notify.sh`, a
/// Gemini entry that only borrows our `name`, or our command with extra shell syntax is not ours:
/// `uninstall` leaves it, and `doctor` never runs it.
pub fn is_ours(handler: &Value, host: Host) -> bool {
    // Only the keys install writes: an `env`, `cwd` or any other key changes what the host runs
    // (a `PATH` that finds a repository's own `sophia-hook` first), so such an entry is not ours.
    if !handler
        .as_object()
        .is_some_and(|h| h.keys().all(|k| INSTALL_KEYS.contains(&k.as_str())))
    {
        return false;
    }
    let key = host.spec().settings.handler.command_key();
    let Some(command) = handler.get(key).and_then(Value::as_str) else {
        return false;
    };
    if let Some(args) = handler.get("args") {
        let Some(args) = args.as_array() else {
            return false;
        };
        let form = host.spec().settings.handler;
        return is_our_program(command)
            && events(host).iter().any(|e| {
                form.exec_args(host.as_str(), host.event_name(*e))
                    .is_some_and(|want| *args == want.map(Value::from))
            });
    }
    let Some(program) = program_of(command, host) else {
        return false;
    };
    is_our_program(&program)
        && events(host).iter().any(|e| {
            command == command_line(&program, host, *e)
                || command == shell_line(&program, host, *e, true)
                || command == legacy_command_line(&program, host, *e)
        })
}

/// The program a shell-form command line runs: its first word as `host`'s shell splits it
/// ([`split_command`]).
pub fn program_of(command: &str, host: Host) -> Option<String> {
    split_command(command, host)?.into_iter().next()
}

/// True when `handler` is exactly the command line this version of `install` writes for
/// `host` (not an older, double-quoted form), so that running it through the host's shell runs
/// `program` with our arguments and nothing else.
pub fn is_current(handler: &Value, host: Host) -> bool {
    let key = host.spec().settings.handler.command_key();
    let Some(command) = handler.get(key).and_then(Value::as_str) else {
        return false;
    };
    if handler.get("args").is_some() {
        return is_ours(handler, host);
    }
    is_current_on(command, host, cfg!(windows))
}

/// [`is_current`] for a `command` line, on Windows (`windows`) or elsewhere.
fn is_current_on(command: &str, host: Host, windows: bool) -> bool {
    program_of(command, host).is_some_and(|program| {
        events(host)
            .iter()
            .any(|e| command == shell_line(&program, host, *e, windows))
    })
}

/// The keys of a handler object `install` writes, in every form ([`handler_for`]).
const INSTALL_KEYS: &[&str] = &[
    "type",
    "command",
    "args",
    "commandWindows",
    "bash",
    "powershell",
    "timeout",
    "timeoutSec",
    "name",
    "description",
];

/// The bare name `sophia-hook` (or `sophia-hook.exe`), which the host finds on PATH, or an
/// absolute path whose file name is that: what `install` writes. A relative path
/// (`tools/sophia-hook`, `./sophia-hook`) starts a repository's own file, and is never ours.
fn is_our_program(program: &str) -> bool {
    let name = program.rsplit(['/', '\\']).next().unwrap_or("");
    let ours = name == "sophia-hook" || name == "sophia-hook.exe";
    let bare = program == name;
    let bytes = program.as_bytes();
    let absolute = program.starts_with('/')
        || program.starts_with("\\\\")
        || (bytes.len() > 2
            && bytes[0].is_ascii_alphabetic()
            && bytes[1] == b':'
            && (bytes[2] == b'\\' || bytes[2] == b'/'));
    ours && (bare || absolute)
}

/// The events sophia-hook registers for `host`: SessionStart and the prompt event everywhere,
/// and the host's own extra events (Claude Code's `PostToolUse` for `ExitPlanMode`).
pub fn events(host: Host) -> &'static [Event] {
    host.spec().events.registered
}

/// Registers sophia-hook for SessionStart and the host's prompt event in `doc` (a settings
/// document, `Value::Null` when the file does not exist), in the host's layout. Everything else
/// is kept as it is; an existing sophia-hook entry that differs is replaced; running it twice
/// changes nothing.
pub fn install(doc: Value, host: Host, binary: &str) -> Result<Value, MergeError> {
    let created = doc.is_null();
    let mut doc = match doc {
        Value::Null => Value::Object(Map::new()),
        Value::Object(_) => doc,
        _ => return Err(MergeError::NotAnObject),
    };
    let settings = &host.spec().settings;
    if created && settings.description_on_create {
        doc["description"] = Value::from(DESCRIPTION);
    }
    let root = doc.as_object_mut().expect("object");
    let entries = entries(host, |event| handler(binary, host, event));
    settings
        .layout
        .install(root, created, &entries, &|h| is_ours(h, host))?;
    Ok(doc)
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
    if host
        .spec()
        .settings
        .layout
        .uninstall(root, &|h| is_ours(h, host))
    {
        return Ok(None);
    }
    let only_ours = root.is_empty()
        || (root.len() == 1
            && root.get("description").and_then(Value::as_str) == Some(DESCRIPTION));
    Ok((!only_ours).then_some(doc))
}

/// [`uninstall`], told the file as it was before sophia-hook's first change (`original`, the
/// backup `original.json`; `None` when there is none): an empty container the original held —
/// `"hooks": {}` or an event list `[]` — that this removal empties is kept, in its place, so that
/// install then uninstall gives back the user's file. A container the user removed since, or one
/// the original did not hold empty, is not brought back.
pub fn uninstall_over(
    doc: Value,
    host: Host,
    original: Option<&Value>,
) -> Result<Option<Value>, MergeError> {
    let before = doc.clone();
    let after = uninstall(doc, host)?;
    let (Some(original), Some(before_root)) = (
        original
            .and_then(|o| o.get("hooks"))
            .and_then(Value::as_object),
        before.as_object(),
    ) else {
        return Ok(after);
    };
    let Some(before_hooks) = before_root.get("hooks").and_then(Value::as_object) else {
        return Ok(after);
    };
    if !host.spec().settings.layout.shares_hooks_map() {
        return Ok(after);
    }
    let mut doc = after.unwrap_or_else(|| Value::Object(Map::new()));
    let root = doc.as_object_mut().expect("uninstall returns an object");
    let after_hooks = root.get("hooks").and_then(Value::as_object);
    let emptied_here = |name: &str| {
        after_hooks.is_none_or(|h| !h.contains_key(name)) && before_hooks.contains_key(name)
    };
    let mut hooks = Map::new();
    let mut restored = false;
    for (name, value) in before_hooks {
        if let Some(kept) = after_hooks.and_then(|h| h.get(name)) {
            hooks.insert(name.clone(), kept.clone());
        } else if emptied_here(name)
            && original
                .get(name)
                .and_then(Value::as_array)
                .is_some_and(Vec::is_empty)
            && value.is_array()
        {
            hooks.insert(name.clone(), Value::Array(Vec::new()));
            restored = true;
        }
    }
    if after_hooks.is_none() && !(restored || original.is_empty()) {
        return Ok((!root.is_empty()).then_some(doc));
    }
    // `hooks` goes back where it was among the members that stayed.
    let at = before_root
        .keys()
        .take_while(|k| *k != "hooks")
        .filter(|k| root.contains_key(*k))
        .count();
    root.shift_remove("hooks");
    root.shift_insert(at, "hooks".to_owned(), Value::Object(hooks));
    Ok(Some(doc))
}

/// Every command handler of a hook settings document of `host` that is not exactly one of ours
/// ([`is_ours`]): its event and what the host runs — the command line (`command` and `args`;
/// Copilot CLI's `bash`, and `powershell` when it differs), with any other key that changes it
/// (`env`, `cwd`) — wherever in the document it sits: a handler is any object holding a
/// `command`, `bash` or `powershell` string, found under every event of every layout the hosts
/// accept (matcher groups, flat lists, nested groups in a hook file, other named entries, and
/// handlers slipped into our own named entry). What trusting the folder also lets run: `install`
/// and `doctor` name them next to their trust advice.
pub fn other_handlers(doc: &Value, host: Host) -> Vec<(String, String)> {
    fn describe(h: &Map<String, Value>) -> Option<String> {
        let text = |k: &str| h.get(k).and_then(Value::as_str);
        let line = text("command").or(text("bash")).or(text("powershell"))?;
        let mut out = line.to_owned();
        let args: Vec<&str> = h
            .get("args")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        if !args.is_empty() {
            out.push(' ');
            out.push_str(&args.join(" "));
        }
        if let (Some(ps), Some(first)) = (text("powershell"), text("bash").or(text("command")))
            && ps != first
        {
            out.push_str(&format!(" (on Windows: {ps})"));
        }
        for (k, v) in h {
            if !INSTALL_KEYS.contains(&k.as_str()) && k != "matcher" {
                out.push_str(&format!(" ({k}: {v})"));
            }
        }
        Some(out)
    }
    fn walk(v: &Value, event: &str, host: Host, depth: usize, out: &mut Vec<(String, String)>) {
        if depth > 32 {
            return;
        }
        match v {
            Value::Object(m) => {
                let is_handler = ["command", "bash", "powershell"]
                    .iter()
                    .any(|k| m.get(*k).is_some_and(Value::is_string));
                if is_handler {
                    if !is_ours(v, host)
                        && let Some(line) = describe(m)
                    {
                        out.push((event.to_owned(), line));
                    }
                    return;
                }
                for (k, child) in m {
                    let next = if k == "hooks" { event } else { k.as_str() };
                    walk(child, next, host, depth + 1, out);
                }
            }
            Value::Array(items) => {
                for item in items {
                    walk(item, event, host, depth + 1, out);
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(doc, "", host, 0, &mut out);
    out
}

/// Each handler's command line as the host sees it (`command`, or Copilot's `bash`, then
/// `args`): what a host that runs one of two identical commands compares.
pub fn command_lines(registered: &[Registered]) -> Vec<String> {
    registered
        .iter()
        .map(|r| {
            let h = &r.handler;
            let command = h.get("command").or_else(|| h.get("bash"));
            format!(
                "{}\0{}",
                command.map(Value::to_string).unwrap_or_default(),
                h.get("args").map(Value::to_string).unwrap_or_default()
            )
        })
        .collect()
}

/// Our handlers in a settings document, with their positions.
pub fn registered(doc: &Value, host: Host) -> Vec<Registered> {
    host.spec()
        .settings
        .layout
        .registered(doc, &|h| is_ours(h, host))
}

#[cfg(test)]
mod tests {
    // Tests parse what the code under test printed.
    #![allow(clippy::disallowed_methods)]
    use super::*;
    use serde_json::json;

    const BIN: &str = "/usr/local/bin/sophia-hook";

    /// What "the same command" means for a host that runs one of two identical entries: one line
    /// per handler, from `command` (Copilot's `bash`) and `args`, so two handlers differ when
    /// either differs, and a word moved between the two does not make them equal.
    #[test]
    fn a_command_line_is_each_handlers_command_and_args() {
        let reg = |handler: Value| Registered {
            event: "UserPromptSubmit".into(),
            matcher: None,
            group_index: 0,
            handler_index: 0,
            handler,
        };
        let line = |h: Value| command_lines(&[reg(h)]);
        let a =
            serde_json::json!({"command": "sophia-hook --host claude", "args": ["--event", "x"]});
        assert_eq!(line(a.clone()), line(a.clone()));
        assert_eq!(line(a.clone()).len(), 1);
        assert_ne!(
            line(a.clone()),
            line(
                serde_json::json!({"command": "/usr/bin/sophia-hook --host claude", "args": ["--event", "x"]})
            )
        );
        assert_ne!(
            line(a.clone()),
            line(
                serde_json::json!({"command": "sophia-hook --host claude", "args": ["--event", "y"]})
            )
        );
        assert_ne!(
            line(serde_json::json!({"command": "a", "args": ["b c"]})),
            line(serde_json::json!({"command": "a b", "args": ["c"]}))
        );
        // Copilot's handler names its command `bash`.
        assert_ne!(
            line(serde_json::json!({"bash": "sophia-hook --host copilot"})),
            line(serde_json::json!({"bash": "/opt/sophia-hook --host copilot"}))
        );
        assert_eq!(command_lines(&[reg(a.clone()), reg(a)]).len(), 2);
    }

    fn user_codex() -> Value {
        serde_json::from_str(
            r#"{"description":"mine","hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"/opt/guard.sh","timeout":3}]}],"UserPromptSubmit":[{"hooks":[{"type":"command","command":"/opt/other --x","timeout":2}]}]}}"#,
        )
        .unwrap()
    }

    #[test]
    fn a_hooks_document_is_what_install_creates_in_an_empty_file() {
        // The plugins' hooks files are `install`'s own entries: same events, groups, matchers,
        // timeouts and handlers (a created Codex file adds only its `description`).
        for host in Host::ALL {
            let bin = "/opt/bin/sophia-hook";
            let mut created = install(Value::Null, host, bin).unwrap();
            created.as_object_mut().unwrap().remove("description");
            let doc = hooks_document(host, |event| handler(bin, host, event));
            assert_eq!(doc, created, "{host:?}");
        }
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
        // On Windows, where Codex runs hooks through PowerShell, the handler also carries the
        // PowerShell form as `commandWindows`; elsewhere it has no such member.
        let mut ours = json!({"type":"command","command":"/usr/local/bin/sophia-hook --host codex --event UserPromptSubmit","timeout":5});
        if cfg!(windows) {
            ours["commandWindows"] =
                json!("/usr/local/bin/sophia-hook --host codex --event UserPromptSubmit");
        }
        assert_eq!(ups[1]["hooks"][0], ours);
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
        // Gemini compares lifecycle matchers as exact strings: ours has none, so it fires on
        // every source.
        assert_eq!(doc["hooks"]["SessionStart"][0].get("matcher"), None);
        // An install by an earlier version, with the matcher Gemini never matches, is repaired.
        let mut old = doc.clone();
        old["hooks"]["SessionStart"][0]["matcher"] = json!("startup|resume|clear");
        assert_eq!(install(old, Host::Gemini, BIN).unwrap(), doc);
        assert_eq!(
            session_matcher_problem(
                Host::Gemini,
                doc["hooks"]["SessionStart"][0]["matcher"].as_str()
            ),
            None
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
    fn paths_are_quoted_so_no_shell_expands_them() {
        assert_eq!(
            command_line(
                "/home/me/.cargo/bin/sophia-hook",
                Host::Codex,
                Event::SessionStart
            ),
            "/home/me/.cargo/bin/sophia-hook --host codex --event SessionStart",
            "a plain path stays as it is"
        );
        assert_eq!(
            command_line(
                "/Users/Jane Doe/bin/sophia-hook",
                Host::Codex,
                Event::UserPromptSubmit
            ),
            "'/Users/Jane Doe/bin/sophia-hook' --host codex --event UserPromptSubmit"
        );
        assert!(is_ours(
            &json!({"command": "'/Users/Jane Doe/bin/sophia-hook' --host codex --event SessionStart"}),
            Host::Codex
        ));
        // The double-quoted form of earlier versions is still ours (install replaces it,
        // uninstall removes it) but not current (doctor does not run it).
        let legacy =
            json!({"command": "\"/a/$(id)/sophia-hook\" --host codex --event SessionStart"});
        assert!(is_ours(&legacy, Host::Codex));
        assert!(!is_current(&legacy, Host::Codex));
        assert!(!is_ours(
            &json!({"command": "/opt/other-hook --x"}),
            Host::Codex
        ));
    }

    #[test]
    fn powershell_quoting_doubles_every_single_quote_form() {
        assert_eq!(
            powershell_command_line(r"C:\bin\sophia-hook.exe", Host::Codex, Event::SessionStart),
            r"C:\bin\sophia-hook.exe --host codex --event SessionStart"
        );
        assert_eq!(
            powershell_command_line(
                r"C:\Users\O'Brien $(x) `y\sophia-hook.exe",
                Host::Codex,
                Event::SessionStart
            ),
            r"& 'C:\Users\O''Brien $(x) `y\sophia-hook.exe' --host codex --event SessionStart"
        );
        for q in ['\u{2018}', '\u{2019}', '\u{201a}', '\u{201b}'] {
            let (call, quoted) = powershell_quote(&format!("C:\\a{q}b"));
            assert!(call);
            assert_eq!(quoted, format!("'C:\\a{q}{q}b'"));
        }
        assert!(powershell_quote("-x").0, "a leading dash is never bare");
    }

    /// PowerShell's reading of a command line (about_Quoting_Rules, about_Operators): an
    /// optional call operator `& `, then words split on spaces; a word starting with `'` is a
    /// verbatim literal up to the next lone single-quote form (U+0027, U+2018–U+201B), in which
    /// a doubled one stands for itself. `None` when a bare word holds a character PowerShell
    /// would expand or treat as syntax, or when a literal is not closed. No PowerShell runs
    /// under Wine, so this reader is the oracle on every platform.
    fn powershell_words(line: &str) -> Option<Vec<String>> {
        let is_quote =
            |c: char| matches!(c, '\'' | '\u{2018}' | '\u{2019}' | '\u{201a}' | '\u{201b}');
        let (call, mut rest) = match line.strip_prefix("& ") {
            Some(r) => (true, r),
            None => (false, line),
        };
        let mut words = Vec::new();
        while !rest.is_empty() {
            let mut chars = rest.char_indices().peekable();
            let mut word = String::new();
            if rest.starts_with(is_quote) {
                chars.next();
                loop {
                    let (i, c) = chars.next()?;
                    if is_quote(c) {
                        match chars.peek() {
                            Some(&(_, d)) if is_quote(d) => {
                                chars.next();
                                word.push(c);
                            }
                            _ => {
                                rest = &rest[i + c.len_utf8()..];
                                break;
                            }
                        }
                    } else {
                        word.push(c);
                    }
                }
            } else {
                if !call && words.is_empty() && rest.starts_with('-') {
                    return None;
                }
                let end = rest.find(' ').unwrap_or(rest.len());
                word = rest[..end].to_owned();
                if word.chars().any(|c| {
                    "$`\"'&|;,(){}<>@#%\u{2018}\u{2019}\u{201a}\u{201b}\u{201c}\u{201d}\u{201e}"
                        .contains(c)
                        || c.is_whitespace()
                }) {
                    return None;
                }
                rest = &rest[end..];
            }
            words.push(word);
            rest = match rest.strip_prefix(' ') {
                Some(r) => r,
                None if rest.is_empty() => rest,
                None => return None,
            };
        }
        Some(words)
    }

    #[test]
    fn the_powershell_reader_is_the_documented_grammar() {
        assert_eq!(
            powershell_words(r"& 'C:\O''Brien $(x)' --host codex"),
            Some(vec![
                r"C:\O'Brien $(x)".to_owned(),
                "--host".into(),
                "codex".into()
            ])
        );
        assert_eq!(
            powershell_words("'a\u{2019}\u{2019}b'"),
            Some(vec!["a\u{2019}b".to_owned()])
        );
        assert_eq!(powershell_words(r"C:\a$(x)"), None, "a bare $ expands");
        assert_eq!(powershell_words("'open"), None);
        assert_eq!(powershell_words("'a'b"), None);
    }

    proptest::proptest! {
        /// Whatever the path (Windows paths, quotes of every form, `$`, backticks, spaces),
        /// PowerShell reads Codex's `commandWindows` line as exactly that path and our four
        /// arguments, with nothing expanded (the oracle: the grammar of about_Quoting_Rules).
        #[test]
        fn powershell_reads_the_command_line_as_the_path_and_our_arguments(
            path in "[^\\x00]{0,30}(\\\\|'|\u{2018}|\u{2019}|\u{201a}|\u{201b}|\\$|`| |-|C:)[^\\x00]{0,10}"
        ) {
            let line = powershell_command_line(&path, Host::Codex, Event::UserPromptSubmit);
            proptest::prop_assert_eq!(
                powershell_words(&line),
                Some(vec![path.clone(), "--host".into(), "codex".into(), "--event".into(), "UserPromptSubmit".into()]),
                "{}", line
            );
        }
    }

    proptest::proptest! {
        /// Gemini CLI runs `command` through PowerShell on Windows: whatever the folder, the line
        /// a Windows build writes there reads in PowerShell as exactly our path and four
        /// arguments (the same grammar oracle), is what `doctor` takes as current there, is ours
        /// for `install`/`uninstall` on every platform, and its program reads back as the path.
        /// The POSIX line is not current on Windows (doctor asks for a reinstall) and the
        /// PowerShell line is not current elsewhere, but both stay ours.
        #[test]
        fn gemini_writes_the_powershell_line_on_windows_and_reads_it_back(
            dir in "[^\\x00]{0,20}(\\\\|'|\u{2018}|\u{2019}|\\$|`| |C:)[^\\x00/\\\\]{0,8}",
            event in proptest::sample::select(vec![Event::SessionStart, Event::UserPromptSubmit]),
        ) {
            // An absolute path, as install writes (a relative one starts a repository's file).
            let path = format!("C:\\{dir}\\sophia-hook.exe");
            let wire = Host::Gemini.event_name(event);
            let line = shell_line(&path, Host::Gemini, event, true);
            proptest::prop_assert_eq!(
                powershell_words(&line),
                Some(vec![path.clone(), "--host".into(), "gemini".into(), "--event".into(), wire.into()]),
                "{}", line
            );
            proptest::prop_assert!(is_current_on(&line, Host::Gemini, true), "{}", line);
            proptest::prop_assert_eq!(program_of(&line, Host::Gemini), Some(path.clone()));
            let ours = json!({"type": "command", "command": line});
            proptest::prop_assert!(is_ours(&ours, Host::Gemini), "{}", line);
            let posix = command_line(&path, Host::Gemini, event);
            let older = json!({"type": "command", "command": posix});
            proptest::prop_assert!(is_ours(&older, Host::Gemini), "{}", posix);
            if posix != line {
                proptest::prop_assert!(!is_current_on(&posix, Host::Gemini, true), "{}", posix);
                proptest::prop_assert!(!is_current_on(&line, Host::Gemini, false), "{}", line);
            }
        }
    }

    /// Only Gemini CLI's `command` changes on Windows: every other host writes its POSIX line
    /// there (Codex adds `commandWindows`, Copilot CLI has its own `powershell` field).
    #[test]
    fn only_gemini_runs_command_through_powershell() {
        let path = r"C:\Program Files\sophia-hook.exe";
        for host in Host::ALL {
            let event = Event::UserPromptSubmit;
            let expected = if host == Host::Gemini {
                format!("& '{path}' --host gemini --event BeforeAgent")
            } else {
                command_line(path, host, event)
            };
            assert_eq!(shell_line(path, host, event, true), expected, "{host:?}");
            assert_eq!(
                shell_line(path, host, event, false),
                command_line(path, host, event)
            );
        }
    }

    // The POSIX rule: `sh` itself is the oracle, and Windows has no `sh` (the Windows rule is
    // the PowerShell property above, which runs everywhere).
    #[cfg(unix)]
    proptest::proptest! {
        /// Whatever the path, `sh` splits the written command line into exactly that path and
        /// our four arguments, and expands nothing (the shell itself is the oracle).
        #[test]
        fn sh_splits_the_command_line_into_the_path_and_our_arguments(path in "[^\\x00]{1,40}") {
            let line = command_line(&path, Host::Codex, Event::UserPromptSubmit);
            let out = std::process::Command::new("sh")
                .arg("-c")
                .arg(format!("set -- {line}; printf '%s\\0' \"$@\""))
                .env_clear()
                .output()
                .unwrap();
            let words: Vec<&[u8]> = out.stdout.split(|b| *b == 0).collect();
            proptest::prop_assert_eq!(
                words,
                vec![path.as_bytes(), b"--host", b"codex", b"--event", b"UserPromptSubmit", b""]
            );
        }
    }

    #[test]
    fn only_exactly_our_command_lines_are_ours() {
        let ours = [
            (
                Host::Codex,
                json!({"command": "/x/sophia-hook --host codex --event UserPromptSubmit"}),
            ),
            (
                Host::Gemini,
                json!({"name": "anything", "command": "/x/sophia-hook --host gemini --event BeforeAgent"}),
            ),
            (
                Host::Claude,
                json!({"command": "/x/sophia-hook", "args": ["--host", "claude", "--event", "SessionStart"]}),
            ),
        ];
        for (host, h) in &ours {
            assert!(is_ours(h, *host), "{h}");
        }
        let not_ours = [
            (
                Host::Claude,
                json!({"command": "/home/u/bin/sophia-hook-notify.sh"}),
            ),
            (
                Host::Claude,
                json!({"command": "/x/sophia-hook-notify.sh", "args": ["--host", "claude", "--event", "Stop"]}),
            ),
            (
                Host::Gemini,
                json!({"name": "sophia-hook-before-agent", "command": "id > F; echo {}"}),
            ),
            (
                Host::Codex,
                json!({"command": "/x/sophia-hook --host codex --event UserPromptSubmit; id"}),
            ),
            (
                Host::Codex,
                json!({"command": "/x/sophia-hook --host codex --event UserPromptSubmit --planning"}),
            ),
            (
                Host::Codex,
                json!({"command": "/x/sophia-hook --host claude --event UserPromptSubmit"}),
            ),
            (
                Host::Claude,
                json!({"command": "/x/sophia-hook", "args": ["--host", "claude", "--event", "SessionStart", "; id"]}),
            ),
            (Host::Codex, json!({"command": "sophia-hook"})),
        ];
        for (host, h) in &not_ours {
            assert!(!is_ours(h, *host), "{h}");
        }
        // uninstall keeps a user's own hook whose name starts like ours.
        let doc = json!({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "/home/u/bin/sophia-hook-notify.sh"}]}]}});
        let installed = install(doc.clone(), Host::Claude, BIN).unwrap();
        assert_eq!(uninstall(installed, Host::Claude).unwrap(), Some(doc));
    }
}
