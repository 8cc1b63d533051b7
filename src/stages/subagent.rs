//! Subagent mode: `required` with a leading `!agents`, `requested` when the user explicitly asks
//! for delegation in words, `off` otherwise. Opt-in by design: no other heuristic ever switches
//! subagents on, and in doubt the answer is `off`.
//!
//! The explicit-request detector ignores fenced code, inline code and quoted text, negations
//! ("non usare subagent", "don't use subagents") and questions *about* subagents ("cos'è un
//! subagent?", "should I use a subagent?"). Pure: no I/O.

use serde::Serialize;

use crate::text::{NEGATIONS, fold, is_polite_request, is_question_lead, mask_quoted, sentences};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SubagentMode {
    Off,
    Requested,
    Required,
}

impl SubagentMode {
    pub fn as_str(self) -> &'static str {
        match self {
            SubagentMode::Off => "off",
            SubagentMode::Requested => "requested",
            SubagentMode::Required => "required",
        }
    }
}

pub const REASON_AGENTS: &str = "hotword:!agents";
pub const REASON_EXPLICIT: &str = "explicit-subagent-request";
pub const REASON_DEFAULT_OFF: &str = "default-opt-in-design";
pub const REASON_SUBAGENT_ORIGIN: &str = "subagent-originated-prompt";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SubagentDecision {
    pub mode: SubagentMode,
    pub reason: &'static str,
}

/// Decides the subagent mode. `from_subagent` is true when the host says the prompt comes from
/// its own subagent (`agent_id`/`agent_type`): the delegation mandate is never re-issued there.
pub fn route(stripped: &str, agents_hotword: bool, from_subagent: bool) -> SubagentDecision {
    let (mode, reason) = if from_subagent {
        (SubagentMode::Off, REASON_SUBAGENT_ORIGIN)
    } else if agents_hotword {
        (SubagentMode::Required, REASON_AGENTS)
    } else if is_explicit_request(stripped) {
        (SubagentMode::Requested, REASON_EXPLICIT)
    } else {
        (SubagentMode::Off, REASON_DEFAULT_OFF)
    };
    SubagentDecision { mode, reason }
}

/// Words that name a subagent on their own.
const SUBAGENT_NOUNS: &[&str] = &[
    "subagent",
    "subagents",
    "subagente",
    "subagenti",
    "sottoagente",
    "sottoagenti",
    "scout",
    "implementer",
    "reviewer",
    "analyst",
    "writer",
];
/// Compound spellings folded to one word before matching (`sub-agent`, `code reviewer`…).
const COMPOUNDS: &[(&str, &str)] = &[
    ("sub-agent", "subagent"),
    ("sub agent", "subagent"),
    ("sotto-agent", "sottoagent"),
    ("sotto agent", "sottoagent"),
    ("code_reviewer", "reviewer"),
    ("technical_analyst", "analyst"),
    ("test_writer", "writer"),
];
/// `agente`/`agent` counts when an article or qualifier makes it a separate helper.
const AGENT_WORDS: &[&str] = &["agente", "agenti", "agent", "agents"];
const AGENT_DETERMINERS: &[&str] = &[
    "un",
    "uno",
    "a",
    "an",
    "l",
    "altro",
    "another",
    "dedicated",
    "separate",
    "helper",
    "child",
    "specialized",
    "specialised",
    "dei",
    "degli",
    "more",
    "piu",
    "two",
    "due",
];
const AGENT_QUALIFIERS: &[&str] = &[
    "dedicato",
    "dedicata",
    "dedicati",
    "separato",
    "separati",
    "specializzato",
    "specializzati",
    "figlio",
    "figli",
    "secondario",
    "secondari",
];
/// Verbs that ask for a subagent when one follows within a few words.
const USE_VERBS: &[&str] = &[
    "usa",
    "usate",
    "usare",
    "usi",
    "usassi",
    "utilizzi",
    "utilizza",
    "utilizzare",
    "impiega",
    "sfrutta",
    "lancia",
    "lanciare",
    "avvia",
    "avviare",
    "spawna",
    "spawnare",
    "attiva",
    "chiedi",
    "manda",
    "coinvolgi",
    "use",
    "using",
    "spawn",
    "launch",
    "dispatch",
    "invoke",
    "employ",
    "involve",
    "con",
    "tramite",
    "with",
    "via",
];
/// Verbs that ask for a subagent only as the opening imperative of a clause ("have a subagent
/// read…", not "I have a subagent that…").
const OPENING_VERBS: &[&str] = &[
    "have", "ask", "let", "get", "send", "run", "start", "launch",
];
/// Words after which a clause-opening imperative may still stand.
const CLAUSE_OPENERS: &[&str] = &[",", "please", "and", "then", "e", "poi", "quindi", "so"];
/// Verbs that ask for delegation by themselves.
const DELEGATE_VERBS: &[&str] = &[
    "delega", "delegate", "delegare", "deleghi", "affida", "affidare", "assegna", "hand",
];
/// How many words may stand between a use-verb and the subagent it names.
const USE_WINDOW: usize = 4;

/// True when the text explicitly asks for delegation to a subagent.
pub fn is_explicit_request(stripped: &str) -> bool {
    let masked = mask_quoted(stripped);
    let mut folded = fold(&masked);
    for (from, to) in COMPOUNDS {
        if folded.contains(from) {
            folded = folded.replace(from, to);
        }
    }
    sentences(&folded).any(sentence_requests)
}

fn sentence_requests(sentence: &str) -> bool {
    let words: Vec<&str> = sentence
        .split(|c: char| !(c.is_alphanumeric() || c == ','))
        .flat_map(split_comma)
        .filter(|w| !w.is_empty())
        .collect();
    if is_question(sentence, &words) {
        return false;
    }
    // Clauses are separated by commas; a negation applies to the rest of its clause.
    let mut negated = false;
    for (i, word) in words.iter().copied().enumerate() {
        if word == "," {
            negated = false;
            continue;
        }
        let prev = i.checked_sub(1).map(|p| words[p]);
        let contraction = word == "t" && prev.is_some_and(|p| p.ends_with('n'));
        if NEGATIONS.contains(word) || contraction {
            negated = true;
            continue;
        }
        if negated {
            continue;
        }
        if DELEGATE_VERBS.contains(&word) && (word != "hand" || words.get(i + 1) == Some(&"off")) {
            return true;
        }
        // "can you have a subagent collect…?": the verb after a polite opening opens the clause.
        let opening = prev.is_none_or(|p| CLAUSE_OPENERS.contains(&p))
            || (i == 2 && prev == Some("you") && is_polite_request(&words));
        let use_verb = USE_VERBS.contains(&word) || (opening && OPENING_VERBS.contains(&word));
        if use_verb && names_subagent(&words[i + 1..]) {
            return true;
        }
        if is_causative(&words, i) {
            return true;
        }
    }
    false
}

fn split_comma(chunk: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = chunk;
    while let Some(pos) = rest.find(',') {
        out.push(&rest[..pos]);
        out.push(",");
        rest = &rest[pos + 1..];
    }
    out.push(rest);
    out
}

/// A subagent named within the next few words of the same clause.
fn names_subagent(after: &[&str]) -> bool {
    let window: Vec<&str> = after
        .iter()
        .copied()
        .take_while(|w| *w != ",")
        .take(USE_WINDOW + 1)
        .collect();
    window.iter().enumerate().any(|(j, w)| {
        SUBAGENT_NOUNS.contains(w)
            || (AGENT_WORDS.contains(w)
                && ((j > 0 && AGENT_DETERMINERS.contains(&window[j - 1]))
                    || window
                        .get(j + 1)
                        .is_some_and(|q| AGENT_QUALIFIERS.contains(q))))
    })
}

/// "fai analizzare questi file a un agente dedicato": `fai` + infinitive … `a` + subagent.
fn is_causative(words: &[&str], i: usize) -> bool {
    if words[i] != "fai" && words[i] != "fate" {
        return false;
    }
    let Some(next) = words.get(i + 1) else {
        return false;
    };
    if !(next.ends_with("are") || next.ends_with("ere") || next.ends_with("ire")) {
        return false;
    }
    let clause: Vec<&str> = words[i + 2..]
        .iter()
        .copied()
        .take_while(|w| *w != ",")
        .take(16)
        .collect();
    clause.iter().enumerate().any(|(j, w)| {
        matches!(*w, "a" | "ad" | "al" | "allo" | "agli" | "ai") && names_subagent(&clause[j + 1..])
    })
}

fn is_question(sentence: &str, words: &[&str]) -> bool {
    !words.is_empty()
        && !is_polite_request(words)
        && (is_question_lead(words) || sentence.ends_with('?'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn explicit_requests() {
        for prompt in [
            "usa un subagent per leggere questi file",
            "Usa un sub-agent per cercare i riferimenti",
            "delega a uno scout la ricerca dei file di configurazione",
            "fai analizzare questi file a un agente dedicato",
            "use a subagent to read the logs",
            "Use subagents to scan the repo, then summarise",
            "please delegate the log reading to a cheaper agent",
            "spawn a subagent for the file search",
            "have a subagent collect the failing test names",
            "can you have a subagent collect the failing test names?",
            "could you get a subagent to read the logs",
            "puoi usare un subagent per leggere i log?",
            "can you use a subagent to read these files?",
            "voglio che usi un subagent per leggere i log",
            "usa lo scout per trovare i file",
            "usa il code reviewer per rivedere la diff",
            "utilizza un agente separato per la ricerca",
            "leggi i log con un subagent",
            "affida a un subagente la lettura dei ticket",
            "ask the technical_analyst to correlate the logs",
            "hand off the search to the scout",
            // The subagent is the fifth word after the verb: the last one the window reaches.
            "usa pure se vuoi un subagent",
        ] {
            assert!(
                is_explicit_request(prompt),
                "expected a request: {prompt:?}"
            );
        }
    }

    #[test]
    fn a_subagent_named_within_the_window() {
        let w = |s: &'static str| s.split(' ').collect::<Vec<&str>>();
        for (after, expected) in [
            ("a b c d subagent", true),
            ("a b c d e subagent", false),
            ("un agente per", true),
            ("agente dedicato", true),
            ("agente per", false),
            ("agente", false),
            ("il nostro agente", false),
        ] {
            assert_eq!(names_subagent(&w(after)), expected, "{after:?}");
        }
        assert!(!names_subagent(&["a", ",", "subagent"]), "a comma ends it");
    }

    #[test]
    fn causative_requests() {
        let w = |s: &'static str| s.split(' ').collect::<Vec<&str>>();
        for (words, at, expected) in [
            ("fai analizzare i log a un subagent", 0, true),
            ("fate analizzare i log a un subagent", 0, true),
            ("fai leggere i log a un subagent", 0, true),
            ("fai eseguire i test a un subagent", 0, true),
            ("fai i log a un subagent", 0, false),
            ("ora per favore fai leggere a un subagent", 3, true),
            ("fai leggere i log a uno dei nostri bravi subagent", 0, true),
            ("fai leggere il subagent", 0, false),
            ("leggi i log a un subagent", 0, false),
        ] {
            assert_eq!(is_causative(&w(words), at), expected, "{words:?}");
        }
    }

    #[test]
    fn commas_are_words_of_their_own() {
        assert_eq!(split_comma("a,b"), ["a", ",", "b"]);
        assert_eq!(split_comma("usa,"), ["usa", ",", ""]);
        assert_eq!(split_comma("x"), ["x"]);
    }

    #[test]
    fn not_requests() {
        for prompt in [
            "cos'è un subagent?",
            "come funzionano i subagent?",
            "what is a subagent?",
            "how do subagents work in Codex?",
            "should I use a subagent for this?",
            "spiegami quando usare un subagent",
            "explain how to delegate to subagents",
            "non usare subagent",
            "non usare subagent, leggi tu i file",
            "don't use subagents for this",
            "do not delegate anything",
            "senza subagent, per favore",
            "evita di usare subagent",
            "never spawn a subagent here",
            "scrivi nel README: \"usa un subagent per leggere i file\"",
            "il testo `use a subagent` va tradotto",
            "spiegami questo codice:\n```\n// use a subagent to read\n```",
            "spiegami questa SQL",
            "usa la modalità agente di Copilot",
            "the subagent returned an error, why?",
            "sto scrivendo un agente per Slack",
            "leggi questi file",
            "conviene usare un subagent qui?",
            "I have a subagent that keeps failing",
            "ho usato un subagent ieri e ha funzionato",
            "non serve usare un subagent",
            "without using subagents, summarize the file",
        ] {
            assert!(
                !is_explicit_request(prompt),
                "expected no request: {prompt:?}"
            );
        }
    }

    #[test]
    fn mode_table() {
        let table = [
            ("x", true, false, SubagentMode::Required, REASON_AGENTS),
            (
                "usa un subagent per x",
                false,
                false,
                SubagentMode::Requested,
                REASON_EXPLICIT,
            ),
            ("x", false, false, SubagentMode::Off, REASON_DEFAULT_OFF),
            ("x", true, true, SubagentMode::Off, REASON_SUBAGENT_ORIGIN),
            (
                "usa un subagent",
                false,
                true,
                SubagentMode::Off,
                REASON_SUBAGENT_ORIGIN,
            ),
        ];
        for (text, hotword, from_sub, mode, reason) in table {
            let got = route(text, hotword, from_sub);
            assert_eq!((got.mode, got.reason), (mode, reason), "{text:?}");
        }
    }
}
