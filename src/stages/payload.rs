//! Tolerant parsing of the host's hook payload (the fields each host sends are listed in
//! docs/host-protocols.md).
//!
//! Every field is optional and unknown fields are ignored: hosts add fields over time. A field of
//! the wrong type counts as absent. The prompt text comes from `prompt`, else `userPrompt`,
//! `lastUserInput` (Antigravity), `input`, `message`, `content`, `text`, else the last user entry
//! of `messages`. Pure: the caller reads the bytes.

use serde_json::{Map, Value};

use crate::hosts::{Event, Host};

/// The payload fields sophia-hook uses. All optional.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Payload {
    pub hook_event_name: Option<String>,
    pub session_id: Option<String>,
    pub turn_id: Option<String>,
    pub transcript_path: Option<String>,
    pub cwd: Option<String>,
    pub model: Option<String>,
    pub permission_mode: Option<String>,
    pub source: Option<String>,
    pub agent_id: Option<String>,
    pub agent_type: Option<String>,
    /// Antigravity: the parent conversation, set when a subagent runs the loop.
    pub parent_conversation_id: Option<String>,
    /// Antigravity PreInvocation: the number of steps in the conversation when the current user
    /// turn started (the same for every model call of that turn).
    pub initial_num_steps: Option<u64>,
    /// Antigravity PreInvocation: which model call of the current user turn this is, zero-based
    /// (observed by third-party probes of `agy`); protojson omits a zero, so absent means 0.
    pub invocation_num: Option<u64>,
    pub prompt: Option<String>,
    /// The tool of a tool event (`ExitPlanMode`).
    pub tool_name: Option<String>,
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum PayloadError {
    #[error("the payload is empty")]
    Empty,
    #[error("the payload is not valid JSON")]
    InvalidJson,
    #[error("the payload is JSON but not an object")]
    NotAnObject,
    #[error("the payload holds more than {MAX_PAYLOAD_NODES} JSON values")]
    TooComplex,
}

impl PayloadError {
    /// A short code for analytics and diagnostics.
    pub fn code(&self) -> &'static str {
        match self {
            PayloadError::Empty => "empty-payload",
            PayloadError::InvalidJson => "invalid-json",
            PayloadError::NotAnObject => "not-an-object",
            PayloadError::TooComplex => "payload-too-complex",
        }
    }
}

/// JSON values (strings, numbers, arrays, objects… each counts one) a payload may hold. A
/// host's payload holds tens to a few thousand (a long `messages` history); the bound keeps a
/// 16 MiB payload of nested empty arrays (5 million values, 610 MB as a `Value` tree) from being
/// materialised: parsing stops at the first value past it.
pub const MAX_PAYLOAD_NODES: usize = 100_000;

/// The payload's budget: [`MAX_PAYLOAD_NODES`] values, serde_json's depth, and strings kept up
/// to [`PROMPT_BYTES`] (no string the hook reads is longer than the prompt bound, so a 16 MiB
/// prompt is never copied whole). Parsing stops at the first value past it, so memory stays
/// proportional to the bound, not to the input's nesting.
const PAYLOAD: crate::bounded::Limits = crate::bounded::Limits {
    values: MAX_PAYLOAD_NODES,
    depth: 128,
    string_bytes: PROMPT_BYTES,
};

fn bounded_value(bytes: &[u8]) -> Result<Value, PayloadError> {
    crate::bounded::json_value(bytes, PAYLOAD).map_err(|e| match e {
        crate::bounded::Refused::TooComplex(_) => PayloadError::TooComplex,
        _ => PayloadError::InvalidJson,
    })
}

/// Fields that may carry the prompt text, in order of preference.
/// The prompt a hook run reads: its first 256 KiB (four routing windows, room for the leading
/// hotwords and Gemini CLI's `<hook_context>` blocks before the user's text). Every stage works on
/// this prefix, so a prompt of megabytes costs what 256 KiB costs (`docs/security.md` `### I1`).
pub const PROMPT_BYTES: usize = 256 * 1024;

const PROMPT_FIELDS: [&str; 7] = [
    "prompt",
    "userPrompt",
    "lastUserInput",
    "input",
    "message",
    "content",
    "text",
];

impl Payload {
    /// Parses payload bytes. Invalid UTF-8 inside strings is replaced (U+FFFD) rather than
    /// rejected, so a stray byte never costs the user their routing.
    pub fn parse(bytes: &[u8]) -> Result<Payload, PayloadError> {
        let bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Err(PayloadError::Empty);
        }
        let value: Value = match bounded_value(bytes) {
            Ok(value) => value,
            Err(e) if e == PayloadError::TooComplex => return Err(e),
            Err(_) => {
                let lossy = String::from_utf8_lossy(bytes);
                bounded_value(lossy.as_bytes())?
            }
        };
        match value {
            Value::Object(map) => Ok(Payload::from_map(&map)),
            _ => Err(PayloadError::NotAnObject),
        }
    }

    /// Reads the fields from a JSON object; a field of the wrong type counts as absent.
    pub fn from_map(map: &Map<String, Value>) -> Payload {
        let text = |snake: &str, camel: &str| {
            [snake, camel]
                .into_iter()
                .find_map(|k| map.get(k).and_then(Value::as_str))
                .map(str::to_owned)
        };
        // Antigravity (protojson): `conversationId`, `workspacePaths` (the first is the cwd),
        // `initialNumSteps` on PreInvocation (an int32, which protojson may also write as a
        // string, and omits when 0).
        let int32 = |key: &str| {
            map.get(key).and_then(|v| match v {
                Value::Number(n) => n.as_u64(),
                Value::String(s) => s.parse().ok(),
                _ => None,
            })
        };
        let initial_num_steps = int32("initialNumSteps");
        let workspace = map
            .get("workspacePaths")
            .and_then(Value::as_array)
            .and_then(|a| a.iter().find_map(Value::as_str))
            .map(str::to_owned);
        Payload {
            hook_event_name: text("hook_event_name", "hookEventName"),
            session_id: text("session_id", "sessionId")
                .or_else(|| text("conversationId", "conversation_id")),
            turn_id: text("turn_id", "turnId"),
            transcript_path: text("transcript_path", "transcriptPath"),
            cwd: text("cwd", "cwd").or(workspace),
            model: text("model", "model"),
            permission_mode: text("permission_mode", "permissionMode"),
            source: text("source", "source"),
            agent_id: text("agent_id", "agentId"),
            agent_type: text("agent_type", "agentType"),
            parent_conversation_id: text("parentConversationId", "parent_conversation_id"),
            initial_num_steps,
            invocation_num: int32("invocationNum"),
            prompt: prompt_text(map),
            tool_name: text("tool_name", "toolName"),
        }
    }

    /// True when the payload says this is not the first model call of the user's turn
    /// (Antigravity's `invocationNum` past 0): the turn's context was already given. A value that
    /// is not a non-negative integer counts as absent (a first call), so the turn log still keeps
    /// the injection to one per turn.
    pub fn later_model_call(&self) -> bool {
        self.invocation_num.is_some_and(|n| n > 0)
    }

    /// True when the prompt comes from the host's own subagent, not from the user.
    pub fn from_subagent(&self) -> bool {
        let present = |v: &Option<String>| v.as_deref().is_some_and(|s| !s.trim().is_empty());
        present(&self.agent_id)
            || present(&self.agent_type)
            || present(&self.parent_conversation_id)
    }

    /// True when the "prompt" is a notification the host queued for the main agent, not the
    /// user's text: Claude Code sends UserPromptSubmit with a `<task-notification>` block (inside a
    /// `<system-reminder>`) when a background subagent finishes; Codex queues a
    /// `<subagent_notification>` message for the same reason.
    pub fn is_host_notification(&self) -> bool {
        let Some(prompt) = self.prompt.as_deref() else {
            return false;
        };
        let head = prompt.trim_start();
        let head = &head.as_bytes()[..head.len().min(2048)];
        let starts = |tag: &[u8]| head.starts_with(tag);
        starts(b"<task-notification>")
            || starts(b"<subagent_notification>")
            || (starts(b"<system-reminder>")
                && head.windows(19).any(|w| w == b"<task-notification>"))
    }

    /// True when the prompt is not the user's own: a subagent's, or a host notification. Such a
    /// prompt never reads or changes the session's planned delegation.
    pub fn not_from_user(&self) -> bool {
        self.from_subagent() || self.is_host_notification()
    }

    /// The event named by the payload, if it is one the host's adapter answers.
    pub fn event(&self, host: Host) -> Option<(Event, &'static str)> {
        self.hook_event_name
            .as_deref()
            .and_then(|n| host.parse_event(n))
    }
}

/// The prompt, cut to its first [`PROMPT_BYTES`] (at a character boundary) before any stage
/// reads it.
fn prompt_text(map: &Map<String, Value>) -> Option<String> {
    PROMPT_FIELDS
        .iter()
        .find_map(|k| map.get(*k).and_then(Value::as_str))
        .map(|s| crate::text::prefix(s, PROMPT_BYTES).to_owned())
        .or_else(|| map.get("messages").and_then(last_user_message))
}

/// The text of the last `role: "user"` entry of a `messages` array; content is a string or a
/// list of parts (`{"type":"text","text":…}` or plain strings), joined by newlines.
fn last_user_message(messages: &Value) -> Option<String> {
    let entry = messages
        .as_array()?
        .iter()
        .rev()
        .find(|m| m.get("role").and_then(Value::as_str) == Some("user"))?;
    match entry.get("content")? {
        Value::String(s) => Some(crate::text::prefix(s, PROMPT_BYTES).to_owned()),
        Value::Array(parts) => {
            let texts: Vec<&str> = parts
                .iter()
                .filter_map(|p| match p {
                    Value::String(s) => Some(s.as_str()),
                    Value::Object(o) => o.get("text").and_then(Value::as_str),
                    _ => None,
                })
                .collect();
            // Joined only up to the bound: the parts past it are never copied.
            let mut joined = String::new();
            for (i, text) in texts.iter().enumerate() {
                if joined.len() >= PROMPT_BYTES {
                    break;
                }
                if i > 0 {
                    joined.push('\n');
                }
                joined.push_str(crate::text::prefix(
                    text,
                    PROMPT_BYTES - joined.len().min(PROMPT_BYTES),
                ));
            }
            joined.truncate(crate::text::prefix(&joined, PROMPT_BYTES).len());
            (!texts.is_empty()).then_some(joined)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(json: &str) -> Payload {
        Payload::parse(json.as_bytes()).expect("valid payload")
    }

    /// I9: a payload's values are counted as it is parsed. Generated shapes (wide arrays of
    /// empty arrays, arrays of objects, objects of many keys, scalars) at the bound parse, one
    /// value past it are refused before the rest is built; deep nesting is refused by depth.
    #[test]
    fn a_payload_is_parsed_within_a_bound_on_its_values() {
        let head = r#"{"prompt":"hi","pad":"#;
        // `head` plus the pad is 3 values; each shape adds `n` more (the outer container too).
        let shapes: [(&str, &str, &str); 5] = [
            ("[", "[]", "]"),
            ("[", "{}", "]"),
            ("[", "0", "]"),
            ("[", "\"x\"", "]"),
            ("[", "null", "]"),
        ];
        for (open, item, close) in shapes {
            for (n, ok) in [
                (10, true),
                (MAX_PAYLOAD_NODES - 3, true),
                (MAX_PAYLOAD_NODES - 2, false),
                (2 * MAX_PAYLOAD_NODES, false),
            ] {
                let items = vec![item; n].join(",");
                let json = format!("{head}{open}{items}{close}}}");
                let got = Payload::parse(json.as_bytes());
                if ok {
                    assert_eq!(
                        got.map(|p| p.prompt).ok().flatten().as_deref(),
                        Some("hi"),
                        "{item} x {n}"
                    );
                } else {
                    assert_eq!(got.err(), Some(PayloadError::TooComplex), "{item} x {n}");
                }
            }
        }
        let keys: Vec<String> = (0..MAX_PAYLOAD_NODES)
            .map(|i| format!("\"k{i}\":0"))
            .collect();
        let json = format!("{{\"prompt\":\"hi\",{}}}", keys.join(","));
        assert_eq!(
            Payload::parse(json.as_bytes()).err(),
            Some(PayloadError::TooComplex)
        );
        let deep = format!(
            "{{\"prompt\":\"hi\",\"pad\":{}{}}}",
            "[".repeat(10_000),
            "]".repeat(10_000)
        );
        assert_eq!(
            Payload::parse(deep.as_bytes()).err(),
            Some(PayloadError::InvalidJson)
        );
    }

    #[test]
    fn codex_user_prompt_submit_fields() {
        let p = parse(
            r#"{"session_id":"s1","turn_id":"t1","agent_id":"a1","agent_type":"scout","transcript_path":null,"cwd":"/repo","hook_event_name":"UserPromptSubmit","model":"gpt-5.5","permission_mode":"default","prompt":"ciao","future_field":{"x":1}}"#,
        );
        assert_eq!(p.session_id.as_deref(), Some("s1"));
        assert_eq!(p.turn_id.as_deref(), Some("t1"));
        assert_eq!(p.agent_id.as_deref(), Some("a1"));
        assert_eq!(p.agent_type.as_deref(), Some("scout"));
        assert_eq!(p.transcript_path, None);
        assert_eq!(p.cwd.as_deref(), Some("/repo"));
        assert_eq!(
            p.event(Host::Codex),
            Some((Event::UserPromptSubmit, "UserPromptSubmit"))
        );
        assert_eq!(p.model.as_deref(), Some("gpt-5.5"));
        assert_eq!(p.permission_mode.as_deref(), Some("default"));
        assert_eq!(p.prompt.as_deref(), Some("ciao"));
        assert!(p.from_subagent());
    }

    #[test]
    fn session_start_fields() {
        let p = parse(
            r#"{"session_id":"s","transcript_path":"/t.jsonl","cwd":"/r","hook_event_name":"SessionStart","model":"m","permission_mode":"plan","source":"resume"}"#,
        );
        assert_eq!(
            p.event(Host::Claude),
            Some((Event::SessionStart, "SessionStart"))
        );
        assert_eq!(p.source.as_deref(), Some("resume"));
        assert_eq!(p.transcript_path.as_deref(), Some("/t.jsonl"));
        assert_eq!(p.permission_mode.as_deref(), Some("plan"));
        assert_eq!(p.prompt, None);
        assert!(!p.from_subagent());
    }

    #[test]
    fn prompt_field_fallbacks_in_order() {
        let table = [
            (r#"{"prompt":"a","userPrompt":"b"}"#, Some("a")),
            (r#"{"userPrompt":"b","input":"c"}"#, Some("b")),
            (r#"{"input":"c","message":"d"}"#, Some("c")),
            (r#"{"message":"d","content":"e"}"#, Some("d")),
            (r#"{"content":"e","text":"f"}"#, Some("e")),
            (r#"{"text":"f"}"#, Some("f")),
            (r#"{"prompt":42,"text":"f"}"#, Some("f")),
            (r#"{"prompt":null}"#, None),
            (
                r#"{"messages":[{"role":"user","content":"old"},{"role":"assistant","content":"x"},{"role":"user","content":"new"}]}"#,
                Some("new"),
            ),
            (
                r#"{"messages":[{"role":"user","content":[{"type":"text","text":"a"},"b",{"type":"image"}]}]}"#,
                Some("a\nb"),
            ),
            (r#"{"messages":[{"role":"assistant","content":"x"}]}"#, None),
            (r#"{"messages":"nope"}"#, None),
        ];
        for (json, expected) in table {
            assert_eq!(parse(json).prompt.as_deref(), expected, "{json}");
        }
    }

    #[test]
    fn host_notifications_are_not_user_prompts() {
        let p = |prompt: &str| Payload {
            prompt: Some(prompt.into()),
            ..Payload::default()
        };
        for yes in [
            "<task-notification>\n<task-id>a1</task-id>\n<status>completed</status>",
            "<subagent_notification>\n{\"agent_path\":\"01a2\"}",
            "<system-reminder>\n[SYSTEM NOTIFICATION - NOT USER INPUT]\n<task-notification>\n<result>ok</result>",
        ] {
            assert!(
                p(yes).is_host_notification() && p(yes).not_from_user(),
                "{yes}"
            );
        }
        for no in [
            "procedi con il piano",
            "spiegami <task-notification> in Claude Code",
            "<system-reminder> only",
        ] {
            assert!(!p(no).is_host_notification(), "{no}");
        }
    }

    #[test]
    fn host_event_names() {
        assert_eq!(
            Host::Gemini.parse_event("BeforeAgent"),
            Some((Event::UserPromptSubmit, "BeforeAgent"))
        );
        assert_eq!(Host::Codex.parse_event("BeforeAgent"), None);
        assert_eq!(
            Host::Antigravity.parse_event("PreInvocation"),
            Some((Event::UserPromptSubmit, "PreInvocation"))
        );
        assert_eq!(
            Host::Gemini.parse_event("UserPromptSubmit"),
            Some((Event::UserPromptSubmit, "UserPromptSubmit"))
        );
        assert_eq!(Host::Claude.parse_event("PreToolUse"), None);
        assert_eq!(
            Host::Claude.parse_event("PostToolUse"),
            Some((Event::PostToolUse, "PostToolUse"))
        );
        assert_eq!(Host::Codex.parse_event("PostToolUse"), None);
        for host in Host::ALL {
            assert_eq!(
                host.parse_event("SessionStart"),
                Some((Event::SessionStart, "SessionStart"))
            );
            let name = host.event_name(Event::UserPromptSubmit);
            assert_eq!(
                host.parse_event(name).map(|e| e.0),
                Some(Event::UserPromptSubmit)
            );
        }
    }

    #[test]
    fn antigravity_camel_case_payload() {
        let p = parse(
            r#"{"conversationId":"c-1","workspacePaths":["/w/repo","/w/other"],"transcriptPath":"/t","modelName":"auto","lastUserInput":"!quick x","invocationNum":2,"initialNumSteps":10}"#,
        );
        assert_eq!(p.session_id.as_deref(), Some("c-1"));
        assert_eq!(p.transcript_path.as_deref(), Some("/t"));
        assert_eq!(p.cwd.as_deref(), Some("/w/repo"));
        assert_eq!(p.prompt.as_deref(), Some("!quick x"));
        assert_eq!(p.initial_num_steps, Some(10));
        assert_eq!(p.invocation_num, Some(2));
        assert!(p.later_model_call());
        assert_eq!(p.turn_id, None, "PreInvocation has no step index");
        assert!(!p.from_subagent());
        let child = parse(
            r#"{"conversationId":"c-2","parentConversationId":"c-1","lastUserInput":"x","initialNumSteps":"3"}"#,
        );
        assert!(child.from_subagent());
        assert_eq!(child.initial_num_steps, Some(3));
        // protojson omits a zero `invocationNum`: absent, 0, "0" are the first call; a value of
        // another type or a negative one counts as absent.
        for (raw, later) in [
            ("", false),
            (r#","invocationNum":0"#, false),
            (r#","invocationNum":"0""#, false),
            (r#","invocationNum":1"#, true),
            (r#","invocationNum":"7""#, true),
            (r#","invocationNum":-1"#, false),
            (r#","invocationNum":1.5"#, false),
            (r#","invocationNum":null"#, false),
            (r#","invocationNum":[1]"#, false),
        ] {
            let p = parse(&format!(r#"{{"conversationId":"c"{raw}}}"#));
            assert_eq!(p.later_model_call(), later, "{raw}");
        }
    }

    #[test]
    fn gemini_hook_context_blocks_are_stripped_only_at_the_start() {
        // The exact shape `gemini -p` 0.61.0 gives BeforeAgent after a SessionStart hook ran.
        let boot = "<hook_context>Sophia routing bootstrap (background for this session, not a task). Hotwords count only as the first words of a prompt: `!quick` asks for light context; `!agents` asks the main agent to delegate. Without `!agents`, subagents are used only when the user explicitly asks.</hook_context>\n\n";
        let kept = |p: &str| p.to_owned();
        let table: Vec<(String, String)> = vec![
            (
                format!("{boot}!quick spiegami questa SQL"),
                kept("!quick spiegami questa SQL"),
            ),
            (
                format!("{boot}{boot}!agents analizza"),
                kept("!agents analizza"),
            ),
            (boot.to_owned(), String::new()),
            (kept("!quick x"), kept("!quick x")),
            // Not at the very start, not closed, not followed by a blank line, another case, or
            // inside the text: left as it is.
            (format!(" {boot}!quick x"), format!(" {boot}!quick x")),
            (
                kept("<hook_context>open\n\n!quick x"),
                kept("<hook_context>open\n\n!quick x"),
            ),
            (
                kept("<hook_context>a</hook_context> !quick x"),
                kept("<hook_context>a</hook_context> !quick x"),
            ),
            (
                kept("<HOOK_CONTEXT>a</HOOK_CONTEXT>\n\n!quick"),
                kept("<HOOK_CONTEXT>a</HOOK_CONTEXT>\n\n!quick"),
            ),
            (format!("!quick {boot}x"), format!("!quick {boot}x")),
            (
                format!("{boot}<hook_context>b</hook_context>x"),
                kept("<hook_context>b</hook_context>x"),
            ),
        ];
        for (prompt, expected) in &table {
            assert_eq!(Host::Gemini.user_text(prompt), expected, "{prompt:?}");
        }
        let with_boot = format!("{boot}!quick x");
        assert_eq!(
            Host::Codex.user_text(&with_boot),
            with_boot,
            "only Gemini adds them"
        );
        assert_eq!(Host::Claude.user_text(&with_boot), with_boot);
    }

    #[test]
    fn who_loads_agents_md() {
        let table = [
            (Host::Codex, false, true),
            (Host::Codex, true, true),
            (Host::Claude, false, true),
            (Host::Claude, true, false),
            (Host::Gemini, false, false),
            (Host::Gemini, true, false),
        ];
        for (host, has_claude_md, loads) in table {
            assert_eq!(
                host.loads_agents_md(has_claude_md),
                loads,
                "{host:?} {has_claude_md}"
            );
        }
    }

    #[test]
    fn wrong_types_count_as_absent() {
        let p = parse(r#"{"hook_event_name":7,"cwd":["x"],"agent_id":"","prompt":{"a":1}}"#);
        assert_eq!(p.event(Host::Codex), None);
        assert_eq!(p.cwd, None);
        assert_eq!(p.prompt, None);
        assert!(!p.from_subagent());
    }

    #[test]
    fn degraded_inputs() {
        assert_eq!(Payload::parse(b""), Err(PayloadError::Empty));
        assert_eq!(Payload::parse(b" \n"), Err(PayloadError::Empty));
        assert_eq!(Payload::parse(b"{"), Err(PayloadError::InvalidJson));
        assert_eq!(Payload::parse(b"[1]"), Err(PayloadError::NotAnObject));
        assert_eq!(Payload::parse(b"null"), Err(PayloadError::NotAnObject));
        assert_eq!(Payload::parse(b"3"), Err(PayloadError::NotAnObject));
        let deep = "[".repeat(10_000);
        assert_eq!(
            Payload::parse(deep.as_bytes()),
            Err(PayloadError::InvalidJson)
        );
        let bom = Payload::parse(b"\xef\xbb\xbf{\"prompt\":\"x\"}").expect("BOM is skipped");
        assert_eq!(bom.prompt.as_deref(), Some("x"));
        let lossy = Payload::parse(b"{\"prompt\":\"ciao \xff\"}").expect("lossy parse");
        assert_eq!(lossy.prompt.as_deref(), Some("ciao \u{fffd}"));
    }
}
