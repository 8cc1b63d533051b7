//! Property tests (proptest) for the invariants the product promises, over generated prompts,
//! payloads and availability.
// Tests and benches set up and read their files directly; the door (clippy.toml) is for the crate.
#![allow(clippy::disallowed_methods)]

use std::ffi::OsString;

use proptest::prelude::*;
use serde_json::Value;

use sophia_hook::clock::FixedClock;
use sophia_hook::edge::settings::Settings;
use sophia_hook::hosts::{Event, Host};
use sophia_hook::stages::agents::catalog::Availability;
use sophia_hook::stages::agents::default_catalog;
use sophia_hook::stages::agents::policy::resolve_subagent_routing;
use sophia_hook::stages::analytics::AnalyticsEvent;
use sophia_hook::stages::decision::{HookRequest, Project, decide};
use sophia_hook::stages::hotword::{self, Hotword};
use sophia_hook::stages::payload::Payload;
use sophia_hook::stages::routing;
use sophia_hook::stages::skills::default_catalog as default_skills;
use sophia_hook::stages::skills::router::SkillRouter;
use sophia_hook::stages::subagent::SubagentMode;

/// Words that exercise every stage: hotwords and look-alikes, delegation phrases, negations,
/// skill keywords, agent names, quotes and fences, in Italian and English.
const VOCABULARY: &[&str] = &[
    "!quick",
    "!agents",
    "!QUICK",
    "!Agents",
    "!quickly",
    "!direct",
    "!noagents",
    "`!quick`",
    "usa",
    "un",
    "subagent",
    "per",
    "leggere",
    "non",
    "usare",
    "delega",
    "a",
    "uno",
    "scout",
    "use",
    "a",
    "subagent",
    "to",
    "don't",
    "agents",
    "code_reviewer",
    "technical",
    "analyst",
    "implementa",
    "correggi",
    "il",
    "bug",
    "in",
    "src/main.rs",
    "README",
    "hook",
    "test",
    "spiegami",
    "SQL",
    "query",
    "tabella",
    "ticket",
    "Mantis",
    "commit",
    "excel",
    "pdf",
    "browser",
    "coldfusion",
    "documentazione",
    "skill",
    "analizza",
    "ricostruisci",
    "causa",
    "piano",
    "procedi",
    "?",
    ",",
    "\"",
    "```",
    "\n",
    "  ",
    "«",
    "»",
    "è",
    "日本",
    "🙂",
    "cos'è",
    "plan",
    "review",
    "diff",
];

/// Leading hotwords, and whether they contain `!agents`.
const LEADS: &[(&str, bool)] = &[
    ("", false),
    ("!quick ", false),
    ("!agents ", true),
    ("!quick !agents ", true),
    ("!AGENTS ", true),
    ("!quickly ", false),
    ("!noagents ", false),
    ("quick ", false),
];

/// Words that carry no delegation signal, no hotword and no question.
const NEUTRAL: &[&str] = &[
    "spiegami",
    "la",
    "query",
    "SQL",
    "tabella",
    "correggi",
    "il",
    "bug",
    "in",
    "src/main.rs",
    "README",
    "excel",
    "ticket",
    "Mantis",
    "this",
    "slow",
    "analizza",
    "i",
    "log",
    "è",
    "🙂",
];

/// Delegation phrases, and whether they are an explicit request.
const REQUESTS: &[(&str, bool)] = &[
    ("", false),
    ("usa un subagent per leggere i log", true),
    ("use a subagent to read the logs", true),
    ("non usare un subagent per leggere i log", false),
    ("don't use a subagent for this", false),
    ("scrivi \"usa un subagent per\" nel README", false),
    ("cos'è un subagent?", false),
];

fn prompt() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => prop::collection::vec(prop::sample::select(VOCABULARY), 0..24).prop_map(|w| w.join(" ")),
        1 => any::<String>(),
        1 => (prop::sample::select(&VOCABULARY[..8]), any::<String>()).prop_map(|(h, s)| format!("{h} {s}")),
    ]
}

fn host() -> impl Strategy<Value = Host> {
    prop::sample::select(Host::ALL.to_vec())
}

fn run_hook(host: Host, payload: &[u8]) -> String {
    let clock = FixedClock {
        now: chrono::DateTime::UNIX_EPOCH,
        elapsed: std::time::Duration::from_micros(1),
    };
    let settings = Settings::from_lookup(|k| (k == "SOPHIA_ANALYTICS").then(|| "off".to_owned()));
    let args: Vec<OsString> = ["sophia-hook", "--host", host.as_str()]
        .iter()
        .map(OsString::from)
        .collect();
    let mut out = Vec::new();
    let mut err = Vec::new();
    let code = sophia_hook::cli::run(
        args,
        &mut &payload[..],
        &mut out,
        &mut err,
        &settings,
        &clock,
    );
    assert_eq!(code, 0);
    assert!(err.is_empty());
    String::from_utf8(out).unwrap()
}

/// Empty, or exactly one JSON object with only `hookSpecificOutput.{hookEventName,additionalContext}`
/// (`injectSteps` on Antigravity), or `{}` where the host needs a no-op object.
fn assert_host_output(host: Host, out: &str) {
    if out.is_empty() {
        assert!(!host.needs_json_noop(), "{host:?} needs a JSON object");
        return;
    }
    assert!(
        out.ends_with('\n') && out.matches('\n').count() == 1,
        "one line: {out:?}"
    );
    let v: Value = serde_json::from_str(out).unwrap();
    let obj = v.as_object().unwrap();
    if host == Host::Antigravity {
        // Antigravity's own shape: `{}` or one injected step (antigravity_contract.rs).
        assert!(obj.keys().all(|k| k == "injectSteps"), "{out}");
        if let Some(steps) = obj.get("injectSteps") {
            let steps = steps.as_array().unwrap();
            assert_eq!(steps.len(), 1, "{out}");
            let step = steps[0].as_object().unwrap();
            let text = match (step.get("ephemeralMessage"), step.get("systemMessage")) {
                (Some(t), None) => t.as_str().unwrap(),
                (None, Some(m)) => m["systemMessage"].as_str().unwrap(),
                _ => panic!("one step kind: {out}"),
            };
            assert!(!text.is_empty() && text.chars().count() <= 10_000);
        }
        return;
    }
    if host == Host::Copilot {
        // Copilot CLI's shape: `{"additionalContext": …}` at the root, never `{}` (an empty
        // stdout is its no-op) and never hookSpecificOutput, which it drops (copilot_contract.rs).
        assert!(obj.keys().all(|k| k == "additionalContext"), "{out}");
        let ctx = obj["additionalContext"].as_str().unwrap();
        assert!(!ctx.is_empty() && ctx.chars().count() <= 10_000, "{out}");
        return;
    }
    assert!(obj.keys().all(|k| k == "hookSpecificOutput"), "{out}");
    if let Some(s) = obj.get("hookSpecificOutput") {
        let s = s.as_object().unwrap();
        assert!(
            s.keys()
                .all(|k| k == "hookEventName" || k == "additionalContext"),
            "{out}"
        );
        let ctx = s["additionalContext"].as_str().unwrap();
        assert!(!ctx.is_empty() && ctx.chars().count() <= 10_000);
    } else {
        assert!(
            host.needs_json_noop(),
            "{{}} only where a no-op object is needed"
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn output_is_empty_or_valid_host_json(host in host(), prompt in prompt(), event in prop::sample::select(vec!["UserPromptSubmit", "SessionStart", "BeforeAgent", "PreInvocation", "Bogus"]), sub in any::<bool>()) {
        let mut payload = serde_json::json!({"hook_event_name": event, "prompt": prompt, "cwd": "/nonexistent/sophia"});
        if sub {
            payload["agent_id"] = Value::from("a1");
        }
        let out = run_hook(host, payload.to_string().as_bytes());
        assert_host_output(host, &out);
    }

    #[test]
    fn arbitrary_bytes_never_break_the_hook(host in host(), bytes in prop::collection::vec(any::<u8>(), 0..512)) {
        assert_host_output(host, &run_hook(host, &bytes));
    }

    #[test]
    fn stripped_prompt_is_a_suffix_without_leading_hotwords(prompt in prompt()) {
        let parsed = hotword::parse(&prompt);
        prop_assert!(prompt.ends_with(parsed.stripped));
        if !parsed.detected.is_empty() {
            prop_assert!(hotword::parse(parsed.stripped).detected.is_empty(), "{:?}", parsed.stripped);
        }
        // Routing reads the prompt composed (NFC): its stripped prompt is a suffix of that.
        let routing = routing::route(&prompt, false);
        let composed = sophia_hook::text::nfc(&prompt);
        prop_assert!(composed.ends_with(routing.stripped_prompt.as_str()), "{:?}", routing.stripped_prompt);
    }

    /// The expected mode comes from how the prompt was built, not from the code under test: a
    /// leading `!agents` requires delegation, a known explicit request (and nothing else) asks for
    /// it, a negated or quoted one does not, and a subagent's own prompt never delegates.
    #[test]
    fn subagents_only_on_a_hotword_or_an_explicit_request(
        lead in prop::sample::select(LEADS),
        body in prop::collection::vec(prop::sample::select(NEUTRAL), 0..10),
        request in prop::sample::select(REQUESTS),
        request_first in any::<bool>(),
        from_subagent in any::<bool>(),
    ) {
        let (lead, lead_agents) = lead;
        let (request, asks) = request;
        let body = body.join(" ");
        let rest = if request_first { format!("{request} {body}") } else { format!("{body}. {request}") };
        let prompt = format!("{lead}{rest}");
        let expected = if from_subagent {
            SubagentMode::Off
        } else if lead_agents {
            SubagentMode::Required
        } else if asks {
            SubagentMode::Requested
        } else {
            SubagentMode::Off
        };
        let r = routing::route(&prompt, from_subagent);
        prop_assert_eq!(r.subagent_mode, expected, "{:?}", prompt);
        prop_assert_eq!(r.detected_hotwords.contains(&Hotword::Agents), lead_agents);
    }

    #[test]
    fn at_most_two_recommendations_and_never_an_unavailable_one(
        prompt in prompt(),
        states in prop::collection::vec(prop::sample::select(vec![Availability::Configured, Availability::Unknown, Availability::Unavailable]), 5),
        planning in any::<bool>(),
    ) {
        let mut catalog = default_catalog();
        for (agent, state) in catalog.agents.iter_mut().zip(&states) {
            agent.availability = *state;
        }
        let router = SkillRouter::new(default_skills());
        let r = routing::route(&prompt, false);
        let skills = router.route(&r.stripped_prompt);
        prop_assert!(skills.selected.len() <= 2);
        let mode = if r.subagent_mode == SubagentMode::Off { SubagentMode::Required } else { r.subagent_mode };
        let agents = resolve_subagent_routing(&r.stripped_prompt, mode, &skills, &catalog, planning);
        prop_assert!(agents.recommended_agents.len() <= 2);
        for rec in &agents.recommended_agents {
            let agent = catalog.agent(&rec.agent_id).expect("recommended agents come from the catalog");
            prop_assert_ne!(agent.availability, Availability::Unavailable);
        }
    }

    #[test]
    fn analytics_never_carry_prompt_text(
        words in prop::collection::vec("[a-z]{7,12}", 1..12),
        lead in prop::sample::select(vec!["", "!quick ", "!agents ", "!quick !agents ", "usa un subagent per "]),
        keywords in prop::collection::vec(prop::sample::select(vec!["sql", "ticket", "excel", "analizza", "scout", "procedi"]), 0..4),
    ) {
        let prompt = format!("{lead}{} {}", words.join(" "), keywords.join(" "));
        let payload = Payload {
            hook_event_name: Some("UserPromptSubmit".into()),
            prompt: Some(prompt.clone()),
            session_id: Some("s".into()),
            ..Payload::default()
        };
        let request = HookRequest { host: Host::Codex, event: Event::UserPromptSubmit, wire_event: "UserPromptSubmit", payload: &payload, planning_flag: false, now: chrono::DateTime::UNIX_EPOCH };
        let project = Project { skills: Some(SkillRouter::new(default_skills())), ..Project::default() };
        let decision = decide(&request, &project);
        let line = AnalyticsEvent::from_outcome(&decision, decision.output.as_ref(), chrono::DateTime::UNIX_EPOCH, 1).to_line();
        for w in &words {
            prop_assert!(!line.contains(w.as_str()), "{w} leaked into {line}");
        }
        // What may appear: hotwords, ids and codes — never a run of the prompt's own words.
        for window in prompt.as_bytes().windows(12) {
            if let Ok(s) = std::str::from_utf8(window) {
                prop_assert!(!line.contains(s) || s.trim_start().starts_with('!'), "{s:?} leaked");
            }
        }
        // The hint never echoes the prompt either.
        for hint in &decision.hints {
            for w in &words {
                prop_assert!(!hint.contains(w.as_str()));
            }
        }
    }
}

/// Words with letters that Unicode writes two ways (precomposed, NFC, as most keyboards type
/// them; decomposed, NFD, as macOS file names and some pasted text are), in the places that
/// matter: hotword neighbours, approvals, question leads, edit verbs and their objects, and file
/// names and paths with accents in any script.
const ACCENTED: &[&str] = &[
    "perché",
    "è",
    "così",
    "già",
    "più",
    "però",
    "modificherò",
    "città.rs",
    "résumé.py",
    "src/caffè/menù.ts",
    "./naïve/ñandú.go",
    "Ärger.java",
    "φάκελος/αρχείο.rs",
    "Crème",
    "ÈCCO",
    "façade",
    "Ångström.md",
    "tiếng.py",
];

fn accented_prompt() -> impl Strategy<Value = String> {
    let word = prop_oneof![
        2 => prop::sample::select(ACCENTED),
        3 => prop::sample::select(VOCABULARY),
        1 => prop::sample::select(NEUTRAL),
    ];
    prop::collection::vec(word, 1..12).prop_map(|w| w.join(" "))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// The same text in either normalization form is the same prompt: context detection, the
    /// hotwords, delegation, skills and agents decide the same, byte for byte, on every host.
    #[test]
    fn the_normalization_form_of_a_prompt_changes_nothing(host in host(), prompt in accented_prompt()) {
        use unicode_normalization::UnicodeNormalization;
        let nfc: String = prompt.nfc().collect();
        let nfd: String = prompt.nfd().collect();
        let run = |p: &str| {
            let payload = serde_json::json!({"hook_event_name": "UserPromptSubmit", "prompt": p, "cwd": "/nonexistent/sophia", "session_id": "nf"});
            run_hook(host, payload.to_string().as_bytes())
        };
        prop_assert_eq!(run(&nfc), run(&nfd), "{:?} vs {:?}", nfc, nfd);
    }
}
