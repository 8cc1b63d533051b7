//! The deterministic agent policy, `resolve_subagent_routing`: which roles of the effective
//! catalog to recommend for a prompt whose delegation is requested or required, each paired with
//! the skill to name in the delegated task. It only advises; it never spawns anything. Pure.
//!
//! Order of rules: `off` recommends nothing; a role the user names is a lock (exactly that role,
//! or none with `locked-agent-unavailable`); unavailable roles are rejected; the rest rank by
//! phase signals in the prompt, then affinity with the selected skills, then availability
//! (`configured` above `unknown`), then catalog order. At most two.

use crate::stages::agents::catalog::Availability;
use crate::stages::agents::catalog::{AgentCatalog, AgentRecord};
use crate::stages::agents::{AgentRouting, Recommendation, Rejection};
use crate::stages::skills::SkillRouting;
use crate::stages::subagent::SubagentMode;
use crate::text::{NEGATIONS, fold, mask_quoted, stem, words};

/// Reason codes (documented in `docs/agents/README.md`).
pub mod reason {
    pub const EXPLICIT_LOCK: &str = "explicit-lock";
    pub const SKILL_AFFINITY: &str = "skill-affinity";
    pub const CONFIGURED: &str = "configured";
    pub const UNAVAILABLE: &str = "unavailable";
    pub const LOCKED_UNAVAILABLE: &str = "locked-agent-unavailable";
    pub const NO_PHASE_SIGNAL: &str = "no-phase-signal";
    pub const NO_AVAILABLE_AGENT: &str = "no-available-agent";
    pub const PLANNING: &str = "planning-carry-forward";
}

/// Prompt words (folded, then stemmed) that signal each task phase, Italian and English.
const PHASE_CUES: [(&str, &[&str]); 5] = [
    (
        "discovery",
        &[
            "trova",
            "trovare",
            "cerca",
            "cercare",
            "individua",
            "elenca",
            "elencare",
            "localizza",
            "dove",
            "esplora",
            "mappa",
            "raccogli",
            "recupera",
            "leggi",
            "leggere",
            "find",
            "locate",
            "search",
            "list",
            "where",
            "explore",
            "gather",
            "collect",
            "read",
            "lookup",
            "scan",
            "scansiona",
            "inventory",
        ],
    ),
    (
        "analysis",
        &[
            "analizza",
            "analisi",
            "analizzare",
            "ricostruisci",
            "causa",
            "cause",
            "correla",
            "correlate",
            "confronta",
            "compare",
            "investiga",
            "investigate",
            "diagnostica",
            "diagnose",
            "perche",
            "why",
            "timeline",
            "cronologia",
            "impatto",
            "impact",
            "valuta",
            "assess",
            "sintetizza",
            "riassumi",
            "summarize",
            "summarise",
            "analyze",
            "analyse",
            "analysis",
            "spiega",
            "spiegami",
            "explain",
            "capire",
            "understand",
        ],
    ),
    (
        "implementation",
        &[
            "implementa",
            "implement",
            "correggi",
            "fix",
            "fixa",
            "modifica",
            "modify",
            "aggiorna",
            "update",
            "aggiungi",
            "add",
            "refactor",
            "rifattorizza",
            "applica",
            "apply",
            "sviluppa",
            "develop",
            "cambia",
            "change",
            "sistema",
            "risolvi",
            "resolve",
            "rinomina",
            "rename",
            "migra",
            "migrate",
        ],
    ),
    (
        "review",
        &[
            "rivedi",
            "revisiona",
            "revisione",
            "review",
            "diff",
            "audit",
            "reviewer",
            "revisore",
            "controlla",
            "verifica",
            "check",
        ],
    ),
    (
        "test",
        &[
            "testa",
            "testare",
            "checklist",
            "regressione",
            "regression",
            "coverage",
            "copertura",
            "e2e",
            "qa",
            "collaudo",
        ],
    ),
];
/// `test` is a noun as often as a task ("the failing test logs"): it signals the test phase only
/// next to a verb that produces tests.
const TEST_NOUNS: &[&str] = &["test", "tests", "unit", "testcase"];
const TEST_VERBS: &[&str] = &[
    "scrivi", "aggiungi", "crea", "genera", "prepara", "copri", "write", "add", "create",
    "generate", "cover", "prepare",
];

/// Natural aliases of the default roles, beyond the spellings derived from the id.
const ALIASES: &[(&str, &[&str])] = &[
    ("scout", &["esploratore"]),
    ("technical_analyst", &["analista tecnico", "analista"]),
    ("implementer", &["implementatore"]),
    (
        "code_reviewer",
        &["revisore del codice", "revisore", "reviewer"],
    ),
    ("test_writer", &["scrittore di test"]),
];

/// The cue words of each phase, stemmed, sorted and deduplicated: what
/// `src/stages/agents/defaults/cues.rs` holds as static data (a test fails when it is stale).
#[cfg(test)]
fn cue_stems_of(cues: &[&str]) -> Vec<String> {
    let set: std::collections::BTreeSet<String> = cues.iter().map(|c| stem(c)).collect();
    set.into_iter().collect()
}

/// Stemmed phase cues of a prompt: the phases it signals. Presence counts, not the number of
/// cue words, so a prompt that names two phases ranks them by affinity and catalog order.
fn phase_signals(text: &str) -> Vec<(&'static str, usize)> {
    let folded = fold(text);
    let ws: Vec<&str> = words(&folded).collect();
    let stems: Vec<String> = ws.iter().map(|w| stem(w)).collect();
    let writes_tests = ws.iter().any(|w| TEST_VERBS.contains(w));
    PHASE_CUES
        .iter()
        .zip(crate::stages::agents::PHASE_CUE_STEMS.iter())
        .filter_map(|((phase, cues), (_, cue_stems))| {
            let hits = if *phase == "test" {
                // Exact words: the stem of "testa" is the noun "test".
                let exact = ws.iter().filter(|w| cues.contains(w)).count();
                let nouns = ws.iter().filter(|w| TEST_NOUNS.contains(w)).count();
                exact + if writes_tests { nouns } else { 0 }
            } else {
                stems
                    .iter()
                    .filter(|s| cue_stems.binary_search(&s.as_str()).is_ok())
                    .count()
            }
            .min(1);
            (hits > 0).then_some((*phase, hits))
        })
        .collect()
}

/// The spellings that name an agent: its id, the id with spaces or dashes, and its aliases.
fn spellings(agent: &AgentRecord) -> Vec<Vec<String>> {
    let mut forms: Vec<String> = vec![agent.id.replace(['_', '-'], " ")];
    if let Some((_, extra)) = ALIASES.iter().find(|(id, _)| *id == agent.id) {
        forms.extend(extra.iter().map(|s| s.to_string()));
    }
    forms
        .into_iter()
        .map(|f| words(&fold(&f)).map(str::to_owned).collect())
        .collect()
}

/// Agents the user names positively (not negated, not quoted), in order of first mention.
pub fn named_agents(text: &str, catalog: &AgentCatalog) -> Vec<String> {
    let masked = mask_quoted(text);
    let folded = fold(&masked).replace(['_', '-'], " ");
    let mut found: Vec<(usize, String)> = Vec::new();
    let forms: Vec<(&AgentRecord, Vec<Vec<String>>)> =
        catalog.agents.iter().map(|a| (a, spellings(a))).collect();
    for clause in folded.split([',', '.', ';', '!', '?', '\n', ':']) {
        let ws: Vec<&str> = words(clause).collect();
        for (agent, spellings) in &forms {
            for form in spellings {
                let hit = (0..ws.len()).find(|&i| {
                    ws.len() - i >= form.len()
                        && ws[i..i + form.len()].iter().zip(form).all(|(w, f)| w == f)
                });
                if let Some(i) = hit {
                    let negated = ws[..i].iter().any(|w| NEGATIONS.contains(w));
                    if !negated && !found.iter().any(|(_, id)| *id == agent.id) {
                        let position = clause.as_ptr() as usize - folded.as_ptr() as usize + i;
                        found.push((position, agent.id.clone()));
                    }
                    break;
                }
            }
        }
    }
    found.sort();
    found.into_iter().map(|(_, id)| id).collect()
}

/// Resolves the agent routing for one prompt.
pub fn resolve_subagent_routing(
    text: &str,
    mode: SubagentMode,
    skills: &SkillRouting,
    catalog: &AgentCatalog,
    planning: bool,
) -> AgentRouting {
    let mut out = AgentRouting::empty(mode);
    if mode == SubagentMode::Off {
        return out;
    }
    out.carry_forward_to_implementation = planning;
    out.rejected_agents = catalog
        .agents
        .iter()
        .filter(|a| a.availability == Availability::Unavailable)
        .map(|a| Rejection {
            agent_id: a.id.clone(),
            reason_codes: vec![reason::UNAVAILABLE.to_owned()],
        })
        .collect();
    let selected: Vec<&str> = skills.selected_ids().collect();
    let signals = phase_signals(text);

    let locked = named_agents(text, catalog);
    if !locked.is_empty() {
        for id in locked.iter().take(2) {
            let agent = catalog
                .agent(id)
                .expect("named agents come from the catalog");
            if agent.availability == Availability::Unavailable {
                out.fallback_reason
                    .get_or_insert_with(|| reason::LOCKED_UNAVAILABLE.to_owned());
                if let Some(r) = out.rejected_agents.iter_mut().find(|r| r.agent_id == *id) {
                    r.reason_codes.push(reason::EXPLICIT_LOCK.to_owned());
                }
                continue;
            }
            let mut codes = vec![reason::EXPLICIT_LOCK.to_owned()];
            codes.extend(phase_codes(agent, &signals));
            out.recommended_agents
                .push(recommend(agent, skills, codes, planning));
        }
        if out.fallback_reason.is_some() {
            // A lock is exactly what the user asked for: never substitute another role.
            out.recommended_agents.clear();
        }
        return out;
    }

    let mut ranked: Vec<(usize, usize, u8, usize, &AgentRecord)> = catalog
        .agents
        .iter()
        .enumerate()
        .filter(|(_, a)| a.availability != Availability::Unavailable)
        .map(|(i, a)| {
            let phase = phase_score(a, &signals);
            let affinity = affinity_score(a, &selected);
            let avail = match a.availability {
                Availability::Configured => 1,
                _ => 0,
            };
            (phase, affinity, avail, i, a)
        })
        .collect();
    if ranked.is_empty() {
        out.fallback_reason = Some(reason::NO_AVAILABLE_AGENT.to_owned());
        return out;
    }
    ranked.sort_by(|x, y| (y.0, y.1, y.2).cmp(&(x.0, x.1, x.2)).then(x.3.cmp(&y.3)));
    let (top_phase, top_affinity, ..) = ranked[0];
    if top_phase == 0 && top_affinity == 0 {
        // No signal at all: the safest bounded delegation is read-only discovery.
        let fallback = ranked
            .iter()
            .find(|r| r.4.routing_role == "discovery")
            .or_else(|| ranked.iter().find(|r| r.4.write_policy == "read-only"))
            .unwrap_or(&ranked[0]);
        out.fallback_reason = Some(reason::NO_PHASE_SIGNAL.to_owned());
        let codes = vec![reason::NO_PHASE_SIGNAL.to_owned()];
        out.recommended_agents
            .push(recommend(fallback.4, skills, codes, planning));
        return out;
    }
    let first_role = &ranked[0].4.routing_role;
    for (n, (_, affinity, _, _, agent)) in ranked.iter().enumerate().take(2) {
        // The second role must own another phase the prompt signals ("analizza … e poi
        // correggi"); a shared secondary phase or affinity alone is not enough.
        let owns_signal = signals.iter().any(|(p, _)| *p == agent.routing_role);
        if n == 1 && (!owns_signal || agent.routing_role == *first_role) {
            break;
        }
        let mut codes = phase_codes(agent, &signals);
        if *affinity > 0 {
            codes.push(reason::SKILL_AFFINITY.to_owned());
        }
        out.recommended_agents
            .push(recommend(agent, skills, codes, planning));
    }
    out
}

fn phase_score(agent: &AgentRecord, signals: &[(&str, usize)]) -> usize {
    signals
        .iter()
        .map(|(phase, hits)| {
            if agent.routing_role == *phase {
                4 * hits
            } else if agent.task_phases.iter().any(|p| p == phase) {
                2 * hits
            } else {
                0
            }
        })
        .sum()
}

fn affinity_score(agent: &AgentRecord, selected: &[&str]) -> usize {
    selected
        .iter()
        .enumerate()
        .filter(|(_, s)| agent.skill_affinities.iter().any(|a| a == *s))
        .map(|(i, _)| if i == 0 { 3 } else { 2 })
        .sum()
}

fn phase_codes(agent: &AgentRecord, signals: &[(&str, usize)]) -> Vec<String> {
    signals
        .iter()
        .filter(|(phase, _)| agent.task_phases.iter().any(|p| p == phase))
        .map(|(phase, _)| format!("{phase}-task"))
        .collect()
}

fn recommend(
    agent: &AgentRecord,
    skills: &SkillRouting,
    mut codes: Vec<String>,
    planning: bool,
) -> Recommendation {
    // The selected skill it has affinity with; else its best-scoring affinity among the
    // runners-up that matched a keyword or a name word; else none (a description-word match,
    // or an unscored affinity, would name a skill the prompt is not about).
    let has_affinity = |id: &str| agent.skill_affinities.iter().any(|a| a == id);
    let real_match = |m: &&crate::stages::skills::SkillMatch| {
        m.reasons
            .iter()
            .any(|r| r.starts_with("keyword:") || r.starts_with("name:"))
    };
    let skill_id = skills
        .selected
        .iter()
        .chain(skills.runners_up.iter().filter(real_match))
        .find(|m| has_affinity(&m.skill_id))
        .map(|m| m.skill_id.clone());
    if agent.availability == Availability::Configured {
        codes.push(reason::CONFIGURED.to_owned());
    }
    if planning {
        codes.push(reason::PLANNING.to_owned());
    }
    Recommendation {
        agent_id: agent.id.clone(),
        skill_id,
        availability: agent.availability.as_str().to_owned(),
        write_policy: agent.write_policy.clone(),
        reason_codes: codes,
        routing_role: agent.routing_role.clone(),
    }
}

#[cfg(test)]
mod tests {
    // Tests set up their files and folders directly.
    #![allow(clippy::disallowed_methods)]
    use super::*;

    /// The stemmed cue words are generated from `PHASE_CUES` and must not go stale. To
    /// regenerate them after editing the cues:
    /// `SOPHIA_UPDATE_DEFAULTS=1 cargo test --lib phase_cue_stems_are_in_sync`.
    #[test]
    fn phase_cue_stems_are_in_sync() {
        let mut out = String::from(
            "// Generated from PHASE_CUES in src/stages/agents/policy.rs by\n\
             // `SOPHIA_UPDATE_DEFAULTS=1 cargo test --lib phase_cue_stems_are_in_sync`.\n\
             // Do not edit.\n\n\
             /// Per phase, the stems of its cue words, sorted (binary search).\n\
             #[rustfmt::skip]\n\
             pub static PHASE_CUE_STEMS: [(&str, &[&str]); 5] = [\n",
        );
        for (phase, cues) in PHASE_CUES {
            let stems: Vec<String> = cue_stems_of(cues)
                .iter()
                .map(|s| format!("{s:?}"))
                .collect();
            out.push_str(&format!("    ({phase:?}, &[{}]),\n", stems.join(", ")));
        }
        out.push_str("];\n");
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("src/stages/agents/defaults/cues.rs");
        if std::env::var_os("SOPHIA_UPDATE_DEFAULTS").is_some() {
            std::fs::write(path, out).unwrap();
            return;
        }
        for ((phase, cues), (static_phase, stems)) in PHASE_CUES
            .iter()
            .zip(crate::stages::agents::PHASE_CUE_STEMS.iter())
        {
            assert_eq!(phase, static_phase);
            assert_eq!(
                cue_stems_of(cues),
                stems.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
                "src/stages/agents/defaults/cues.rs is stale: run \
                 SOPHIA_UPDATE_DEFAULTS=1 cargo test --lib phase_cue_stems_are_in_sync"
            );
        }
    }
    use crate::stages::agents::default_catalog;
    use crate::stages::skills::SkillMatch;

    fn skills(ids: &[&str]) -> SkillRouting {
        SkillRouting {
            selected: ids
                .iter()
                .map(|id| SkillMatch {
                    skill_id: id.to_string(),
                    score: 5,
                    reasons: vec![],
                    source: None,
                })
                .collect(),
            ..SkillRouting::default()
        }
    }

    fn ids(r: &AgentRouting) -> Vec<&str> {
        r.recommended_agents
            .iter()
            .map(|a| a.agent_id.as_str())
            .collect()
    }

    fn with(catalog: &AgentCatalog, id: &str, state: Availability) -> AgentCatalog {
        let mut c = catalog.clone();
        c.agents
            .iter_mut()
            .find(|a| a.id == id)
            .unwrap()
            .availability = state;
        c
    }

    #[test]
    fn off_recommends_nothing() {
        let r = resolve_subagent_routing(
            "analizza i log",
            SubagentMode::Off,
            &skills(&[]),
            &default_catalog(),
            true,
        );
        assert_eq!(r, AgentRouting::off());
    }

    #[test]
    fn analysis_goes_to_the_analyst_with_its_skill() {
        let c = default_catalog();
        let r = resolve_subagent_routing(
            "analizza il ticket Mantis 123 e ricostruisci la causa",
            SubagentMode::Required,
            &skills(&["mcp-technical-analyst", "mcp-git-mantis-workflow"]),
            &c,
            false,
        );
        assert_eq!(ids(&r), ["technical_analyst"]);
        let rec = &r.recommended_agents[0];
        assert_eq!(rec.skill_id.as_deref(), Some("mcp-technical-analyst"));
        assert_eq!(rec.write_policy, "read-only");
        assert_eq!(rec.reason_codes, ["analysis-task", "skill-affinity"]);
        assert_eq!(r.source, "deterministic-agent-policy");
    }

    /// Decided (issue #22): a request that signals two phases each owned by a different role
    /// ("read these files" → discovery, "summarize them" → analysis) gets both roles, analysis
    /// first — the same as the eval set's `phase-12` ("trova i file … e analizza l'impatto"). The
    /// main agent may give both to one child; each line is one recommendation, never a repeat.
    #[test]
    fn an_english_read_and_summarize_request_recommends_the_analyst_then_the_scout() {
        for prompt in [
            "use a subagent to read these files and summarize them",
            "Use a subagent to read these files and summarize them.",
        ] {
            let r = resolve_subagent_routing(
                prompt,
                SubagentMode::Requested,
                &skills(&[]),
                &default_catalog(),
                false,
            );
            assert_eq!(ids(&r), ["technical_analyst", "scout"], "{prompt}");
            assert_eq!(
                r.recommended_agents[0].reason_codes,
                ["discovery-task", "analysis-task"]
            );
            assert_eq!(r.recommended_agents[1].reason_codes, ["discovery-task"]);
        }
        // One phase only: one recommendation.
        let r = resolve_subagent_routing(
            "use a subagent to summarize these notes",
            SubagentMode::Requested,
            &skills(&[]),
            &default_catalog(),
            false,
        );
        assert_eq!(ids(&r), ["technical_analyst"]);
    }

    #[test]
    fn unavailable_agents_are_rejected_never_recommended() {
        let c = with(
            &default_catalog(),
            "technical_analyst",
            Availability::Unavailable,
        );
        let r = resolve_subagent_routing(
            "analizza il ticket Mantis 123 e ricostruisci la causa",
            SubagentMode::Required,
            &skills(&["mcp-technical-analyst"]),
            &c,
            false,
        );
        assert!(!ids(&r).contains(&"technical_analyst"));
        assert_eq!(r.rejected_agents[0].agent_id, "technical_analyst");
        assert_eq!(r.rejected_agents[0].reason_codes, ["unavailable"]);
    }

    #[test]
    fn a_named_agent_is_a_lock() {
        let c = default_catalog();
        for (text, id) in [
            ("usa il code_reviewer per rivedere la diff", "code_reviewer"),
            ("fai fare allo scout la ricerca dei file", "scout"),
            (
                "chiedi al technical analyst di correlare i log",
                "technical_analyst",
            ),
            (
                "use the code reviewer on this patch and fix the tests",
                "code_reviewer",
            ),
            ("delega al test writer i casi di regressione", "test_writer"),
            ("serve l'implementer per il fix", "implementer"),
        ] {
            let r = resolve_subagent_routing(text, SubagentMode::Required, &skills(&[]), &c, false);
            assert_eq!(ids(&r), [id], "{text}");
            assert_eq!(r.recommended_agents[0].reason_codes[0], "explicit-lock");
        }
        let locked_out = with(&c, "code_reviewer", Availability::Unavailable);
        let r = resolve_subagent_routing(
            "usa il code_reviewer per la diff",
            SubagentMode::Required,
            &skills(&[]),
            &locked_out,
            false,
        );
        assert!(r.recommended_agents.is_empty());
        assert_eq!(
            r.fallback_reason.as_deref(),
            Some("locked-agent-unavailable")
        );
        assert_eq!(
            r.rejected_agents[0].reason_codes,
            ["unavailable", "explicit-lock"]
        );
    }

    #[test]
    fn negated_or_quoted_names_are_not_locks() {
        let c = default_catalog();
        assert!(named_agents("non usare lo scout, analizza i log", &c).is_empty());
        assert!(named_agents("scrivi \"usa lo scout\" nel README", &c).is_empty());
        assert_eq!(
            named_agents("non usare lo scout, usa il code reviewer", &c),
            ["code_reviewer"]
        );
    }

    #[test]
    fn ranking_by_phase_then_affinity_then_availability() {
        let c = default_catalog();
        let r = resolve_subagent_routing(
            "trova i file che usano parse_payload",
            SubagentMode::Requested,
            &skills(&[]),
            &c,
            false,
        );
        assert_eq!(ids(&r), ["scout"]);
        let r = resolve_subagent_routing(
            "analizza i log e poi correggi il bug",
            SubagentMode::Required,
            &skills(&[]),
            &c,
            false,
        );
        assert_eq!(ids(&r), ["technical_analyst", "implementer"]);
        let r = resolve_subagent_routing(
            "use a subagent to read the failing test logs",
            SubagentMode::Requested,
            &skills(&[]),
            &c,
            false,
        );
        assert_eq!(ids(&r), ["scout"], "a test noun is not a test task");
        let r = resolve_subagent_routing(
            "scrivi i test di regressione",
            SubagentMode::Required,
            &skills(&["mcp-browser-automation"]),
            &c,
            false,
        );
        assert_eq!(ids(&r), ["test_writer"]);
        assert_eq!(
            r.recommended_agents[0].skill_id.as_deref(),
            Some("mcp-browser-automation")
        );
        // configured ranks above unknown on equal signals.
        let configured = with(&c, "implementer", Availability::Configured);
        let r = resolve_subagent_routing(
            "scrivi i test e correggi il codice",
            SubagentMode::Required,
            &skills(&[]),
            &configured,
            false,
        );
        assert_eq!(ids(&r)[0], "implementer");
        assert!(
            r.recommended_agents[0]
                .reason_codes
                .contains(&"configured".to_string())
        );
    }

    #[test]
    fn no_signal_falls_back_to_read_only_discovery_never_a_generic_role() {
        let c = default_catalog();
        let r = resolve_subagent_routing("ciao", SubagentMode::Required, &skills(&[]), &c, false);
        assert_eq!(ids(&r), ["scout"]);
        assert_eq!(r.fallback_reason.as_deref(), Some("no-phase-signal"));
        let all_out = c.agents.iter().fold(c.clone(), |acc, a| {
            with(&acc, &a.id, Availability::Unavailable)
        });
        let r = resolve_subagent_routing(
            "analizza",
            SubagentMode::Required,
            &skills(&[]),
            &all_out,
            false,
        );
        assert!(r.recommended_agents.is_empty());
        assert_eq!(r.fallback_reason.as_deref(), Some("no-available-agent"));
    }

    #[test]
    fn planning_sets_carry_forward() {
        let c = default_catalog();
        let r = resolve_subagent_routing(
            "analizza i log",
            SubagentMode::Required,
            &skills(&[]),
            &c,
            true,
        );
        assert!(r.carry_forward_to_implementation);
        assert!(
            r.recommended_agents[0]
                .reason_codes
                .contains(&"planning-carry-forward".to_string())
        );
    }
}
