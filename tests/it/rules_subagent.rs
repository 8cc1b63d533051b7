//! The subagent rule of docs/routing.md ("Subagent mode") and docs/architecture.md §2 as a
//! generated grid: explicit request phrases (Italian and English) × how they are framed
//! (plain, negated in the same clause, negated in an earlier clause, question, explanation
//! request, polite question, quoted, inline code, fenced) × leading hotwords × whether the prompt
//! comes from the host's own subagent. The mode of every cell, from the spec:
//!
//! - a prompt from the host's own subagent: `off`, `subagent-originated-prompt`;
//! - a leading `!agents`: `required`, `hotword:!agents`, whatever the text says;
//! - else an explicit request in words: `requested`, `explicit-subagent-request`; not when it is
//!   in quotes or code, negated in its own clause, or a question about subagents (a polite
//!   request phrased as a question still counts);
//! - else `off`, `default-opt-in-design`. `!agents` never changes the context mode.
// Tests and benches set up and read their files directly; the door (clippy.toml) is for the crate.
#![allow(clippy::disallowed_methods)]

use sophia_hook::stages::context::ContextMode;
use sophia_hook::stages::routing;
use sophia_hook::stages::subagent::{
    REASON_AGENTS, REASON_DEFAULT_OFF, REASON_EXPLICIT, REASON_SUBAGENT_ORIGIN, SubagentMode,
};

const REQUESTS_EN: &[&str] = &[
    "use a subagent to read the logs",
    "use a subagent for the log reading",
    "have a subagent collect the errors",
    "delegate the log reading to the scout",
    "hand off the search to the scout",
];

const REQUESTS_IT: &[&str] = &[
    "usa un subagent per leggere i log",
    "leggi i log con un subagent",
    "usa lo scout per trovare i file",
    "delega a uno scout la lettura dei log",
    "affida a un subagente l'analisi dei log",
    "fai analizzare questi file a un agente dedicato",
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Frame {
    Plain,
    /// A negation before the request, in its clause.
    Negated,
    /// A negation in an earlier clause (ended by a comma or a full stop).
    NegatedEarlier,
    Question,
    Explanation,
    PoliteQuestion,
    Quoted,
    InlineCode,
    Fenced,
}

impl Frame {
    /// Whether the framed text is an explicit request, per the spec.
    fn is_request(self) -> bool {
        matches!(
            self,
            Frame::Plain | Frame::NegatedEarlier | Frame::PoliteQuestion
        )
    }
}

/// Negations, earlier-clause negations, questions, explanation requests, polite questions.
type Phrasing = (
    &'static [&'static str],
    &'static [&'static str],
    &'static [&'static str],
    &'static [&'static str],
    &'static [&'static str],
);

/// Every way the spec frames a request, in one language.
fn framed(phrase: &str, italian: bool) -> Vec<(Frame, String)> {
    let (negations, earlier, questions, explanations, polite): Phrasing = if italian {
        (
            &["non ", "mai ", "per ora non "],
            &[
                "non toccare la configurazione, ",
                "non serve il README. ",
                "senza fretta; ",
            ],
            &["dovrei davvero {}?", "perché dovrei {}?"],
            &["spiegami quando {}", "cos'è un subagent e quando {}?"],
            &["puoi {}?", "potresti {}?"],
        )
    } else {
        (
            &["don't ", "never ", "please do not ", "do not "],
            &[
                "don't touch the config, ",
                "never mind the README. ",
                "no rush; ",
            ],
            &["should I {}?", "why would I {}?", "is it wise to {}?"],
            &["explain when to {}", "what is a subagent and when do I {}?"],
            &["can you {}?", "could you {}?"],
        )
    };
    let quoted = if italian {
        format!("la nota dice «{phrase}»")
    } else {
        format!("the note says \"{phrase}\"")
    };
    let mut out = vec![(Frame::Plain, phrase.to_owned())];
    out.extend(
        negations
            .iter()
            .map(|n| (Frame::Negated, format!("{n}{phrase}"))),
    );
    out.extend(
        earlier
            .iter()
            .map(|e| (Frame::NegatedEarlier, format!("{e}{phrase}"))),
    );
    out.extend(
        questions
            .iter()
            .map(|q| (Frame::Question, q.replace("{}", phrase))),
    );
    out.extend(
        explanations
            .iter()
            .map(|q| (Frame::Explanation, q.replace("{}", phrase))),
    );
    out.extend(
        polite
            .iter()
            .map(|q| (Frame::PoliteQuestion, q.replace("{}", phrase))),
    );
    out.push((Frame::Quoted, quoted));
    out.push((Frame::InlineCode, format!("look at `{phrase}`")));
    out.push((
        Frame::Fenced,
        format!("look at this:\n```\n{phrase}\n```\n"),
    ));
    out
}

const LEADS: &[(&str, bool)] = &[
    ("", false),
    ("!quick ", false),
    ("!agents ", true),
    ("!quick !agents ", true),
    ("!AGENTS !quick ", true),
];

#[test]
fn every_cell_of_the_subagent_grid_follows_the_spec() {
    let mut cells = 0;
    let mut failures = Vec::new();
    for (italian, phrases) in [(false, REQUESTS_EN), (true, REQUESTS_IT)] {
        for phrase in phrases {
            for (frame, text) in framed(phrase, italian) {
                for &(lead, agents) in LEADS {
                    for from_subagent in [false, true] {
                        cells += 1;
                        let prompt = format!("{lead}{text}");
                        let want = if from_subagent {
                            (SubagentMode::Off, REASON_SUBAGENT_ORIGIN)
                        } else if agents {
                            (SubagentMode::Required, REASON_AGENTS)
                        } else if frame.is_request() {
                            (SubagentMode::Requested, REASON_EXPLICIT)
                        } else {
                            (SubagentMode::Off, REASON_DEFAULT_OFF)
                        };
                        let r = routing::route(&prompt, from_subagent);
                        let got = (r.subagent_mode, r.subagent_reason());
                        if got != want {
                            failures.push(format!(
                                "{prompt:?} ({frame:?}, from_subagent={from_subagent}): want {want:?}, got {got:?}"
                            ));
                        }
                        // `!agents` never changes the context mode.
                        let without = routing::route(
                            &prompt
                                .replacen("!agents ", "", 1)
                                .replacen("!AGENTS ", "", 1),
                            from_subagent,
                        );
                        if r.context_mode != without.context_mode {
                            failures.push(format!("{prompt:?}: !agents changed the context mode"));
                        }
                    }
                }
            }
        }
    }
    assert!(cells > 1000, "{cells}");
    assert!(
        failures.is_empty(),
        "{} of {cells} cells break the subagent rule:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// No other heuristic switches subagents on: prompts about agents, roles and delegation in other
/// words, without a request, stay `off`.
#[test]
fn nothing_but_an_explicit_request_switches_delegation_on() {
    for prompt in [
        "the scout found three files",
        "subagents are useful for log reading",
        "analizza i log del subagent",
        "il report del technical analyst è pronto",
        "agents and subagents in Codex",
        "delegation is for cost, not parallelism",
        "read the logs and find the error",
    ] {
        for lead in ["", "!quick "] {
            let r = routing::route(&format!("{lead}{prompt}"), false);
            assert_eq!(r.subagent_mode, SubagentMode::Off, "{lead}{prompt}");
            assert_eq!(r.subagent_reason(), REASON_DEFAULT_OFF);
        }
    }
    let r = routing::route("!agents spiegami SQL", false);
    assert_eq!(r.context_mode, ContextMode::Full);
}

/// Bug found by the grid: a polite question opening with an opening-only verb ("can you have a
/// subagent collect…?") was `off`, although the spec counts polite requests phrased as
/// questions. Statements that only mention having a subagent stay `off`.
#[test]
fn a_polite_question_with_have_a_subagent_is_a_request() {
    for prompt in [
        "can you have a subagent collect the errors?",
        "could you have a subagent read the logs",
        "would you get a subagent to find the files?",
        "will you ask the scout to find the files?",
    ] {
        let r = routing::route(prompt, false);
        assert_eq!(r.subagent_mode, SubagentMode::Requested, "{prompt}");
    }
    for prompt in [
        "do you have a subagent for this?",
        "I know you have a subagent that reads logs",
        "can you tell me if I have a subagent configured?",
    ] {
        let r = routing::route(prompt, false);
        assert_eq!(r.subagent_mode, SubagentMode::Off, "{prompt}");
    }
}
