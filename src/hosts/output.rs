//! What a host reads the context from on stdout: one trait, the shape `hookSpecificOutput` that
//! Codex, Claude Code and Gemini CLI share here, and each other shape in its host's file
//! (Antigravity's `injectSteps`, Copilot CLI's root `additionalContext`). `render` builds the
//! printed object through [`OutputFormat::context`]; `doctor` checks a live run's output through
//! [`OutputFormat::validate`]. Pure: no I/O.

use std::fmt::Debug;

use serde_json::{Map, Value, json};

/// A host's output contract for context (`Output::shape`).
pub trait OutputFormat: Sync + Debug {
    /// The object printed for `context` on the event the host fired (its own name for it).
    fn context(&self, wire_event: &str, context: String) -> Value;

    /// Whether `obj` is an output the host accepts with context for `wire_event`, as it would
    /// read it: the context's length in characters, or why not. `host` is the host's name for
    /// messages.
    fn validate(
        &self,
        host: &str,
        wire_event: &str,
        obj: &Map<String, Value>,
    ) -> Result<usize, String>;
}

/// `{"hookSpecificOutput":{"hookEventName":…,"additionalContext":…}}`; `strict`: any other key
/// (at the root or inside) makes the host reject the whole output.
#[derive(Debug)]
pub struct HookSpecific {
    pub strict: bool,
}

/// The keys a host of [`HookSpecific`] output reads at the root.
const ROOT_KEYS: [&str; 7] = [
    "continue",
    "stopReason",
    "systemMessage",
    "suppressOutput",
    "decision",
    "reason",
    "hookSpecificOutput",
];

impl OutputFormat for HookSpecific {
    fn context(&self, wire_event: &str, context: String) -> Value {
        json!({
            "hookSpecificOutput": {
                "hookEventName": wire_event,
                "additionalContext": context,
            }
        })
    }

    fn validate(
        &self,
        host: &str,
        wire_event: &str,
        obj: &Map<String, Value>,
    ) -> Result<usize, String> {
        if self.strict
            && let Some(k) = obj.keys().find(|k| !ROOT_KEYS.contains(&k.as_str()))
        {
            return Err(format!(
                "unknown key `{k}`: {host} rejects the whole output"
            ));
        }
        let specific = obj
            .get("hookSpecificOutput")
            .and_then(Value::as_object)
            .ok_or("no hookSpecificOutput")?;
        if self.strict
            && let Some(k) = specific
                .keys()
                .find(|k| *k != "hookEventName" && *k != "additionalContext")
        {
            return Err(format!(
                "unknown key `hookSpecificOutput.{k}`: {host} rejects the whole output"
            ));
        }
        if specific.get("hookEventName").and_then(Value::as_str) != Some(wire_event) {
            return Err(format!("hookEventName is not {wire_event}"));
        }
        let context = specific
            .get("additionalContext")
            .and_then(Value::as_str)
            .ok_or("no additionalContext")?;
        Ok(context.chars().count())
    }
}
