//! Rendering: the hint blocks (at most two for the whole hook) and the host-exact JSON printed on
//! stdout. Hint text is English background for the model, starts with `key=value` tokens, never
//! echoes the prompt and never reads as a new task. Pure: no I/O.

use serde::Serialize;

use crate::context::{ContextMode, REASON_REPO_OVERRIDE};
use crate::hotword::Hotword;
use crate::payload::{Event, Host};
use crate::routing::Routing;
use crate::skills::SkillRouting;
use crate::subagent::SubagentMode;

/// At most this many hint blocks per hook run.
pub const MAX_BLOCKS: usize = 2;

/// What Codex and Claude Code accept on stdout for SessionStart and UserPromptSubmit: only
/// `hookSpecificOutput` with `hookEventName` equal to the firing event and a non-empty
/// `additionalContext` (HOST-PROTOCOLS §1.8–1.10, §2.5).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HookOutput {
    pub hook_specific_output: HookSpecificOutput,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HookSpecificOutput {
    pub hook_event_name: Event,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub additional_context: Option<String>,
}

impl HookOutput {
    /// The line printed on stdout (one JSON object, newline-terminated).
    pub fn to_line(&self) -> String {
        let mut line = serde_json::to_string(self).unwrap_or_default();
        line.push('\n');
        line
    }
}

/// Builds the host output from the hint blocks; `None` (print nothing) when there is nothing to
/// say. The context is cut to the host's cap on a character boundary.
pub fn output(host: Host, event: Event, hints: &[String]) -> Option<HookOutput> {
    if hints.is_empty() {
        return None;
    }
    let mut context = hints.join("\n\n");
    let cap = host.context_cap_chars();
    if context.chars().count() > cap {
        context = context.chars().take(cap).collect();
    }
    Some(HookOutput {
        hook_specific_output: HookSpecificOutput {
            hook_event_name: event,
            additional_context: Some(context),
        },
    })
}

/// The routing-control block: present when a hotword or a delegation request is present.
pub fn routing_block(routing: &Routing) -> Option<String> {
    if routing.detected_hotwords.is_empty() && routing.subagent_mode == SubagentMode::Off {
        return None;
    }
    let mut block = format!(
        "Sophia routing control: contextMode={} reason={} subagentMode={} reason={}. \
         Background for the user's message, not a new request.",
        routing.context_mode.as_str(),
        routing.context_reason(),
        routing.subagent_mode.as_str(),
        routing.subagent_reason(),
    );
    match routing.context_mode {
        ContextMode::Light => block.push_str(
            "\nLight context: work from the message and what it names; avoid heavy \
             docs/memory/repository bootstrap unless the task needs it. Core rules, safety, \
             policy and tool guardrails remain active.",
        ),
        ContextMode::Full if routing.context_reason() == REASON_REPO_OVERRIDE => block.push_str(
            "\nFull context: the message is an explicit repository task, so !quick does not \
             reduce context; load the project context the task needs. Core rules, safety, \
             policy and tool guardrails remain active.",
        ),
        ContextMode::Full => {}
    }
    match routing.subagent_mode {
        SubagentMode::Required => {
            block.push_str(
                "\nDelegation required (!agents): before completing, delegate at least one \
                 bounded, low-risk sub-task to a suitable subagent with a minimal context.",
            );
            block.push_str(DELEGATION_RULES);
        }
        SubagentMode::Requested => {
            block.push_str(
                "\nDelegation requested: the user explicitly asked for a subagent; delegate the \
                 bounded, low-risk sub-task they described, with a minimal context.",
            );
            block.push_str(DELEGATION_RULES);
        }
        SubagentMode::Off if routing.has(Hotword::Agents) => block.push_str(
            "\nThis message comes from a subagent: the !agents delegation mandate is not \
             re-issued here; do not delegate further.",
        ),
        SubagentMode::Off => {}
    }
    Some(block)
}

/// The specialist block: the selected skill(s), and (when delegation is on) the agent lines.
pub fn specialist_block(skills: &SkillRouting) -> Option<String> {
    let mut ids = skills.selected_ids();
    let first = ids.next()?;
    let mut block = format!("Sophia skill routing: skill={first}");
    if let Some(second) = ids.next() {
        block.push_str(&format!(" secondary={second}"));
    }
    block.push_str(
        ". Background, not a task: this skill's domain matches the request; use it where the work \
         needs it.",
    );
    Some(block)
}

const DELEGATION_RULES: &str = " Delegation is for token/cost efficiency, not parallelism. Never \
    delegate final architecture decisions, coordinated multi-file patches, destructive or \
    irreversible operations, secrets or security policy, the final patch or the final answer: \
    the main agent keeps responsibility, reviews the child's result and owns the conclusion.";

/// The SessionStart bootstrap: the hotword legend and the conditional taxonomy rule.
pub const BOOTSTRAP: &str = "Sophia routing bootstrap (background for this session, not a task). \
Hotwords count only as the first words of a prompt: `!quick` asks for light context (skip heavy \
docs/memory/repository bootstrap unless the task needs it; an explicit repository task still gets \
full context); `!agents` asks the main agent to delegate at least one bounded, low-risk sub-task \
to a suitable subagent before completing. Without `!agents`, subagents are used only when the \
user explicitly asks; delegation is for token/cost efficiency, not parallelism, and the main agent \
keeps decisions, the final patch and the final answer. There is no `!direct` or `!noagents`. Core \
rules, safety, policy and tool guardrails always remain active. For project or repository tasks, \
discover the project's docs/memory taxonomy before relying on project knowledge; for generic quick \
questions, do not.";

/// A project document added for hosts that do not load it themselves, already capped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProjectDoc {
    pub name: &'static str,
    pub text: String,
    /// Size of the whole file in bytes when `text` is a truncated prefix.
    pub truncated_from: Option<usize>,
}

/// The block that carries a project document (e.g. `AGENTS.md` on Claude Code).
pub fn project_doc_block(doc: &ProjectDoc) -> String {
    let mut block = format!(
        "Project {} (this host does not load it by itself):\n{}",
        doc.name,
        doc.text.trim_end()
    );
    if let Some(total) = doc.truncated_from {
        block.push_str(&format!(
            "\n[{} truncated: first {} characters of a {}-byte file; read the file for the rest.]",
            doc.name,
            doc.text.chars().count(),
            total
        ));
    }
    block
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::routing::route;

    #[test]
    fn no_block_without_hotword_or_request() {
        assert_eq!(routing_block(&route("spiegami questa SQL", false)), None);
        assert_eq!(routing_block(&route("ciao !quick spiegami", false)), None);
    }

    #[test]
    fn light_block_keeps_guardrails() {
        let block = routing_block(&route("!quick spiegami SQL", false)).expect("block");
        assert!(block.starts_with(
            "Sophia routing control: contextMode=light reason=hotword:!quick subagentMode=off \
             reason=default-opt-in-design."
        ));
        assert!(block.contains("Core rules, safety, policy and tool guardrails remain active"));
        assert!(block.contains("avoid heavy docs/memory/repository bootstrap"));
        assert!(!block.contains("spiegami"));
    }

    #[test]
    fn delegation_blocks_carry_the_rules() {
        let required = routing_block(&route("!agents analizza questi log", false)).unwrap();
        assert!(required.contains("subagentMode=required reason=hotword:!agents"));
        assert!(required.contains("at least one"));
        let requested = routing_block(&route("usa un subagent per leggere i file", false)).unwrap();
        assert!(requested.contains("subagentMode=requested reason=explicit-subagent-request"));
        assert!(!requested.contains("at least one"));
        for block in [&required, &requested] {
            for rule in [
                "bounded",
                "low-risk",
                "minimal context",
                "token/cost",
                "not parallelism",
                "final answer",
            ] {
                assert!(block.contains(rule), "{rule} missing in {block}");
            }
            assert!(block.len() < 2_000);
        }
    }

    #[test]
    fn specialist_block_names_at_most_two_skills() {
        use crate::skills::SkillMatch;
        let m = |id: &str| SkillMatch {
            skill_id: id.into(),
            score: 5,
            reasons: vec![],
        };
        assert_eq!(specialist_block(&SkillRouting::default()), None);
        let one = SkillRouting {
            selected: vec![m("mcp-database-expert")],
            ..SkillRouting::default()
        };
        let block = specialist_block(&one).unwrap();
        assert!(block.starts_with(
            "Sophia skill routing: skill=mcp-database-expert. Background, not a task"
        ));
        let two = SkillRouting {
            selected: vec![m("a"), m("b")],
            ..SkillRouting::default()
        };
        assert!(
            specialist_block(&two)
                .unwrap()
                .starts_with("Sophia skill routing: skill=a secondary=b.")
        );
    }

    #[test]
    fn output_omits_empty_context_and_caps_length() {
        assert_eq!(output(Host::Codex, Event::UserPromptSubmit, &[]), None);
        let long = "x".repeat(20_000);
        let out = output(Host::Claude, Event::SessionStart, &[long]).unwrap();
        let ctx = out.hook_specific_output.additional_context.unwrap();
        assert_eq!(ctx.chars().count(), 10_000);
        let line = output(
            Host::Codex,
            Event::UserPromptSubmit,
            &["a".into(), "b".into()],
        )
        .unwrap()
        .to_line();
        assert_eq!(
            line,
            "{\"hookSpecificOutput\":{\"hookEventName\":\"UserPromptSubmit\",\"additionalContext\":\"a\\n\\nb\"}}\n"
        );
    }
}
