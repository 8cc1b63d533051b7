//! The routing decision for one prompt: hotwords, then context mode, then subagent mode, in the
//! shape `explain` shows under `routing`. Pure: no I/O.

use serde::Serialize;

use crate::stages::context::{self, ContextMode};
use crate::stages::hotword::{self, Hotword};
use crate::stages::subagent::{self, SubagentMode};
use crate::text::routing_window;

/// `routing` of the decision JSON (docs/architecture.md, "Data contracts").
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Routing {
    pub context_mode: ContextMode,
    pub subagent_mode: SubagentMode,
    pub stripped_prompt: String,
    pub detected_hotwords: Vec<Hotword>,
    /// Always two codes: the context reason, then the subagent reason.
    pub reasons: Vec<&'static str>,
    pub warnings: Vec<String>,
}

impl Routing {
    pub fn context_reason(&self) -> &'static str {
        self.reasons[0]
    }

    pub fn subagent_reason(&self) -> &'static str {
        self.reasons[1]
    }

    pub fn has(&self, hotword: Hotword) -> bool {
        self.detected_hotwords.contains(&hotword)
    }
}

/// Routes one prompt. `from_subagent` is true for prompts the host sends to its own subagents.
pub fn route(prompt: &str, from_subagent: bool) -> Routing {
    route_with_prefix(prompt, from_subagent, None)
}

/// Routes one prompt, also accepting the project's extra hotword prefix.
pub fn route_with_prefix(prompt: &str, from_subagent: bool, extra_prefix: Option<&str>) -> Routing {
    // One spelling of every letter from here on: the stripped prompt every later stage reads
    // (context, delegation, skills, agents, planning) is composed (NFC), within the prompt bound.
    let composed = crate::text::nfc(prompt);
    let prompt = crate::text::prefix(&composed, crate::stages::payload::PROMPT_BYTES);
    let parsed = hotword::parse_with_prefix(prompt, extra_prefix);
    let window = routing_window(parsed.stripped);
    let context = context::route(window, parsed.has(Hotword::Quick));
    let subagent = subagent::route(window, parsed.has(Hotword::Agents), from_subagent);
    Routing {
        context_mode: context.mode,
        subagent_mode: subagent.mode,
        stripped_prompt: parsed.stripped.to_owned(),
        detected_hotwords: parsed.detected,
        reasons: vec![context.reason, subagent.reason],
        warnings: parsed.warnings,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ContextMode::{Full, Light};
    use SubagentMode::{Off, Requested, Required};

    /// The parser table of issue 2, end to end through the router.
    #[test]
    fn issue_table() {
        let table: &[(&str, ContextMode, SubagentMode, &[Hotword], &str)] = &[
            (
                "!quick spiegami SQL",
                Light,
                Off,
                &[Hotword::Quick],
                "spiegami SQL",
            ),
            (
                "!agents analizza questi log",
                Full,
                Required,
                &[Hotword::Agents],
                "analizza questi log",
            ),
            (
                "!quick !agents sintetizza questi log",
                Light,
                Required,
                &[Hotword::Quick, Hotword::Agents],
                "sintetizza questi log",
            ),
            (
                "ciao !quick spiegami",
                Full,
                Off,
                &[],
                "ciao !quick spiegami",
            ),
            (
                "!quick implementa modifica agli hook",
                Full,
                Off,
                &[Hotword::Quick],
                "implementa modifica agli hook",
            ),
            (
                "usa un subagent per leggere questi file",
                Full,
                Requested,
                &[],
                "usa un subagent per leggere questi file",
            ),
            ("spiegami questa SQL", Full, Off, &[], "spiegami questa SQL"),
            (
                "!Quick !AGENTS x",
                Light,
                Required,
                &[Hotword::Quick, Hotword::Agents],
                "x",
            ),
            (
                "  !quick spiegami",
                Light,
                Off,
                &[Hotword::Quick],
                "spiegami",
            ),
            ("!quickly spiegami", Full, Off, &[], "!quickly spiegami"),
            ("!direct spiegami", Full, Off, &[], "!direct spiegami"),
            (
                "!noagents usa un subagent",
                Full,
                Requested,
                &[],
                "!noagents usa un subagent",
            ),
        ];
        for (prompt, context, subagent, hotwords, stripped) in table {
            let got = route(prompt, false);
            assert_eq!(got.context_mode, *context, "context for {prompt:?}");
            assert_eq!(got.subagent_mode, *subagent, "subagent for {prompt:?}");
            assert_eq!(got.detected_hotwords, *hotwords, "hotwords for {prompt:?}");
            assert_eq!(got.stripped_prompt, *stripped, "stripped for {prompt:?}");
        }
    }

    #[test]
    fn reasons_name_context_then_subagent() {
        let got = route("!quick implementa modifica agli hook", false);
        assert_eq!(
            got.reasons,
            [
                "repo-task-detected-overrides:!quick",
                "default-opt-in-design"
            ]
        );
        let got = route("!agents !quick spiegami", false);
        assert_eq!(got.reasons, ["hotword:!quick", "hotword:!agents"]);
    }

    #[test]
    fn agents_does_not_force_full_and_subagents_get_no_mandate() {
        assert_eq!(route("!agents !quick spiegami", false).context_mode, Light);
        let got = route("!agents leggi i log", true);
        assert_eq!(got.subagent_mode, Off);
        assert_eq!(got.subagent_reason(), "subagent-originated-prompt");
        assert_eq!(got.detected_hotwords, [Hotword::Agents]);
    }
}
