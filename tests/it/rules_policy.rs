//! The agent policy and the planning carry-forward of docs/agents/README.md ("The policy",
//! "Planning and carry-forward"), stated once as a model and checked over every combination.
//!
//! The ranking rule, from the spec: unavailable agents are never recommended (they are listed in
//! `rejectedAgents` with `unavailable`); the others rank by phase signals in the prompt (4 for the
//! role that owns a signalled phase, 2 for a role that serves it), then affinity with the selected
//! skills (3 for the first, 2 for the second), then `configured` above `unknown`, then catalog
//! order. At most two; a second recommendation needs a phase of its own in the prompt, other than
//! the first's. No signal at all: the `discovery` role (else the first read-only role) with
//! `no-phase-signal`; no available agent: none, `no-available-agent`. A named agent is a lock:
//! exactly that agent, or nothing with `locked-agent-unavailable`. Every recommendation is a role
//! of the catalog: there is no generic role.
//!
//! Carry-forward: on approval, `applied` while at least one planned agent is still available
//! (the available ones, in planned order, with their own skills), `agent-unavailable` only when
//! every planned agent became unavailable.
//!
//! Planted bugs this catches: the ranking key with availability before skill affinity; the
//! carry-forward reporting the plan unavailable when any, not all, planned agents are unavailable.
// Tests and benches set up and read their files directly; the door (clippy.toml) is for the crate.
#![allow(clippy::disallowed_methods)]

use proptest::prelude::*;

use sophia_hook::stages::agents::catalog::Availability;
use sophia_hook::stages::agents::catalog::{AgentCatalog, AgentRecord, PHASES};
use sophia_hook::stages::agents::policy::resolve_subagent_routing;
use sophia_hook::stages::agents::{AgentRouting, CarryForwardStatus, default_catalog};
use sophia_hook::stages::planning::{carry_forward, carry_forward_on_plan_approval, planned_from};
use sophia_hook::stages::skills::{SkillMatch, SkillRouting};
use sophia_hook::stages::subagent::SubagentMode;

/// One cue word per phase, from the spec's cue lists (Italian and English cue words).
const CUES: [(&str, &str); 5] = [
    ("discovery", "find"),
    ("analysis", "diagnose"),
    ("implementation", "fix"),
    ("review", "audit"),
    ("test", "regression"),
];

const AVAILABILITY: [Availability; 3] = [
    Availability::Configured,
    Availability::Unknown,
    Availability::Unavailable,
];

fn prompt_for(phases: &[&str]) -> String {
    if phases.is_empty() {
        return "hello widget".to_owned();
    }
    let words: Vec<&str> = phases
        .iter()
        .map(|p| CUES.iter().find(|(phase, _)| phase == p).unwrap().1)
        .collect();
    format!("{} the widget", words.join(" and "))
}

fn skills(selected: &[&str]) -> SkillRouting {
    SkillRouting {
        selected: selected
            .iter()
            .map(|id| SkillMatch {
                skill_id: (*id).to_owned(),
                score: 10,
                reasons: vec![format!("keyword:{id}")],
                source: None,
            })
            .collect(),
        ..SkillRouting::default()
    }
}

/// What the spec says the policy returns (no lock): recommended ids and the fallback reason.
fn model(
    phases: &[&str],
    selected: &[&str],
    catalog: &AgentCatalog,
) -> (Vec<String>, Option<&'static str>) {
    let mut ranked: Vec<(usize, usize, usize, usize, &AgentRecord)> = catalog
        .agents
        .iter()
        .enumerate()
        .filter(|(_, a)| a.availability != Availability::Unavailable)
        .map(|(i, a)| {
            let phase: usize = phases
                .iter()
                .map(|p| {
                    if a.routing_role == *p {
                        4
                    } else if a.task_phases.iter().any(|t| t == p) {
                        2
                    } else {
                        0
                    }
                })
                .sum();
            let affinity: usize = selected
                .iter()
                .enumerate()
                .filter(|(_, s)| a.skill_affinities.iter().any(|x| x == *s))
                .map(|(n, _)| if n == 0 { 3 } else { 2 })
                .sum();
            let configured = usize::from(a.availability == Availability::Configured);
            (phase, affinity, configured, i, a)
        })
        .collect();
    if ranked.is_empty() {
        return (Vec::new(), Some("no-available-agent"));
    }
    ranked.sort_by(|x, y| {
        (y.0, y.1, y.2)
            .cmp(&(x.0, x.1, x.2))
            .then_with(|| x.3.cmp(&y.3))
    });
    if ranked[0].0 == 0 && ranked[0].1 == 0 {
        let pick = ranked
            .iter()
            .find(|r| r.4.routing_role == "discovery")
            .or_else(|| ranked.iter().find(|r| r.4.write_policy == "read-only"))
            .unwrap_or(&ranked[0]);
        return (vec![pick.4.id.clone()], Some("no-phase-signal"));
    }
    let mut out = vec![ranked[0].4.id.clone()];
    if let Some(second) = ranked.get(1) {
        let role = &second.4.routing_role;
        if phases.contains(&role.as_str()) && *role != ranked[0].4.routing_role {
            out.push(second.4.id.clone());
        }
    }
    (out, None)
}

/// The checks every policy output must pass, whatever the case: ≤ 2, catalog roles only, never
/// an unavailable one, the unavailable ones rejected, the affinity and availability codes true.
fn check_invariants(got: &AgentRouting, catalog: &AgentCatalog, selected: &[&str]) {
    assert!(got.recommended_agents.len() <= 2, "{got:?}");
    for rec in &got.recommended_agents {
        let agent = catalog
            .agent(&rec.agent_id)
            .unwrap_or_else(|| panic!("{} is not a catalog role", rec.agent_id));
        assert_ne!(agent.availability, Availability::Unavailable, "{got:?}");
        assert_eq!(rec.availability, agent.availability.as_str());
        assert_eq!(
            rec.reason_codes.iter().any(|c| c == "configured"),
            agent.availability == Availability::Configured,
            "{rec:?}"
        );
        // skillId: the first selected skill it has affinity with (no runners-up here).
        let paired = selected
            .iter()
            .find(|s| agent.skill_affinities.iter().any(|a| a == *s))
            .map(|s| (*s).to_owned());
        assert_eq!(rec.skill_id, paired, "{rec:?}");
    }
    let mut rejected: Vec<&str> = got
        .rejected_agents
        .iter()
        .map(|r| r.agent_id.as_str())
        .collect();
    rejected.sort_unstable();
    let mut unavailable: Vec<&str> = catalog
        .agents
        .iter()
        .filter(|a| a.availability == Availability::Unavailable)
        .map(|a| a.id.as_str())
        .collect();
    unavailable.sort_unstable();
    assert_eq!(rejected, unavailable);
    for r in &got.rejected_agents {
        assert!(r.reason_codes.iter().any(|c| c == "unavailable"), "{r:?}");
    }
}

fn with_availability(mut catalog: AgentCatalog, states: &[Availability]) -> AgentCatalog {
    for (agent, state) in catalog.agents.iter_mut().zip(states) {
        agent.availability = *state;
    }
    catalog
}

fn all_states(n: usize) -> Vec<Vec<Availability>> {
    (0..3usize.pow(n as u32))
        .map(|mut k| {
            (0..n)
                .map(|_| {
                    let s = AVAILABILITY[k % 3];
                    k /= 3;
                    s
                })
                .collect()
        })
        .collect()
}

fn phase_subsets() -> Vec<Vec<&'static str>> {
    (0..32u32)
        .map(|m| {
            PHASES
                .iter()
                .enumerate()
                .filter(|(i, _)| m >> i & 1 == 1)
                .map(|(_, p)| *p)
                .collect()
        })
        .collect()
}

/// Every set of signalled phases × every availability of the five default roles × selected
/// skills that each role has affinity with (and none): the default catalog against the model.
#[test]
fn default_catalog_ranking_matches_the_rule_for_every_combination() {
    let base = default_catalog();
    // Per role, the affinity the fewest roles share (so the selection favours that role), then
    // the first two of those as a pair in both orders (the second skill counts less), and none.
    let rarest: Vec<&str> = base
        .agents
        .iter()
        .filter_map(|a| {
            a.skill_affinities
                .iter()
                .map(String::as_str)
                .min_by_key(|s| {
                    let holders = base
                        .agents
                        .iter()
                        .filter(|b| b.skill_affinities.iter().any(|x| x == s))
                        .count();
                    (holders, *s)
                })
        })
        .collect();
    let mut skill_sets: Vec<Vec<&str>> = vec![vec![]];
    skill_sets.extend(rarest.iter().map(|s| vec![*s]));
    skill_sets.push(vec![rarest[0], rarest[rarest.len() - 1]]);
    skill_sets.push(vec![rarest[rarest.len() - 1], rarest[0]]);
    let mut checked = 0;
    let mut failures = Vec::new();
    for states in all_states(base.agents.len()) {
        let catalog = with_availability(base.clone(), &states);
        for phases in phase_subsets() {
            let prompt = prompt_for(&phases);
            for selected in &skill_sets {
                {
                    let mode = SubagentMode::Requested;
                    let got =
                        resolve_subagent_routing(&prompt, mode, &skills(selected), &catalog, false);
                    check_invariants(&got, &catalog, selected);
                    let ids: Vec<String> = got
                        .recommended_agents
                        .iter()
                        .map(|r| r.agent_id.clone())
                        .collect();
                    let want = model(&phases, selected, &catalog);
                    checked += 1;
                    if (ids.clone(), got.fallback_reason.as_deref()) != (want.0.clone(), want.1)
                        && failures.len() < 20
                    {
                        failures.push(format!(
                            "{prompt:?} skills {selected:?} availability {states:?}: want {want:?}, got {ids:?} {:?}",
                            got.fallback_reason
                        ));
                    }
                }
            }
        }
    }
    assert!(checked > 40_000, "{checked}");
    assert!(
        failures.is_empty(),
        "the ranking rule breaks:\n{}",
        failures.join("\n")
    );
}

fn record(
    id: String,
    role: &str,
    extra: Vec<&str>,
    affinities: Vec<String>,
    read_only: bool,
    availability: Availability,
) -> AgentRecord {
    let mut task_phases = vec![role.to_owned()];
    task_phases.extend(
        extra
            .iter()
            .filter(|p| **p != role)
            .map(|p| (*p).to_owned()),
    );
    AgentRecord {
        id,
        kind: "agent".into(),
        semantic_summary: "a role".into(),
        routing_role: role.to_owned(),
        task_phases,
        capabilities: vec![],
        not_for: vec![],
        skill_affinities: affinities,
        write_policy: if read_only {
            "read-only"
        } else {
            "workspace-write"
        }
        .into(),
        availability,
    }
}

const SKILLS: [&str; 3] = ["skill-one", "skill-two", "skill-three"];

fn synthetic_catalog() -> impl Strategy<Value = AgentCatalog> {
    let agent = (
        prop::sample::select(PHASES.to_vec()),
        prop::sample::subsequence(PHASES.to_vec(), 0..=2),
        prop::sample::subsequence(SKILLS.to_vec(), 0..=2),
        any::<bool>(),
        prop::sample::select(AVAILABILITY.to_vec()),
    );
    prop::collection::vec(agent, 1..=5).prop_map(|agents| AgentCatalog {
        schema_version: 1,
        generated_at: String::new(),
        fingerprint: String::new(),
        agents: agents
            .into_iter()
            .enumerate()
            .map(|(i, (role, extra, aff, ro, av))| {
                record(
                    format!("role{}", ["q", "w", "x", "y", "z"][i]),
                    role,
                    extra,
                    aff.into_iter().map(str::to_owned).collect(),
                    ro,
                    av,
                )
            })
            .collect(),
    })
}

fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        failure_persistence: None,
        rng_seed: proptest::test_runner::RngSeed::Fixed(20),
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config(256))]

    /// Any catalog of 1–5 roles (any owned phase, served phases, affinities, write policy and
    /// availability), any signalled phases, any ordered selection of up to two skills.
    #[test]
    fn any_catalog_ranks_by_the_rule(
        catalog in synthetic_catalog(),
        phases in prop::sample::subsequence(PHASES.to_vec(), 0..=3),
        selected in prop::sample::subsequence(SKILLS.to_vec(), 0..=2).prop_shuffle(),
    ) {
        let prompt = prompt_for(&phases);
        let got = resolve_subagent_routing(
            &prompt, SubagentMode::Requested, &skills(&selected), &catalog, false,
        );
        check_invariants(&got, &catalog, &selected);
        let ids: Vec<String> = got.recommended_agents.iter().map(|r| r.agent_id.clone()).collect();
        let want = model(&phases, &selected, &catalog);
        prop_assert_eq!((ids, got.fallback_reason.as_deref()), want, "prompt {:?}", prompt);
    }
}

/// Delegation off recommends nothing, whatever the catalog and the prompt.
#[test]
fn off_recommends_nothing() {
    for states in all_states(5) {
        let catalog = with_availability(default_catalog(), &states);
        for phases in phase_subsets() {
            let got = resolve_subagent_routing(
                &prompt_for(&phases),
                SubagentMode::Off,
                &skills(&[]),
                &catalog,
                false,
            );
            assert!(got.recommended_agents.is_empty(), "{got:?}");
            assert_eq!(got.mode, SubagentMode::Off);
        }
    }
}

/// A lock: naming one role gives exactly that role when it is available, else nothing with
/// `locked-agent-unavailable` and `explicit-lock` on its rejection; naming two gives both. For
/// every availability of the five roles and every phase signal.
#[test]
fn a_named_role_is_a_lock_for_every_availability() {
    let base = default_catalog();
    let ids: Vec<String> = base.agents.iter().map(|a| a.id.clone()).collect();
    for states in all_states(base.agents.len()) {
        let catalog = with_availability(base.clone(), &states);
        for phases in [vec![], vec!["implementation"], vec!["analysis", "review"]] {
            for (a, first) in ids.iter().enumerate() {
                for second in std::iter::once(None).chain(ids.iter().skip(a + 1).map(Some)) {
                    let mut named = vec![first.clone()];
                    named.extend(second.cloned());
                    let spoken: Vec<String> = named.iter().map(|n| n.replace('_', " ")).collect();
                    let prompt = format!(
                        "{} using the {}",
                        prompt_for(&phases),
                        spoken.join(" and the ")
                    );
                    let got = resolve_subagent_routing(
                        &prompt,
                        SubagentMode::Requested,
                        &skills(&[]),
                        &catalog,
                        false,
                    );
                    check_invariants(&got, &catalog, &[]);
                    let rec: Vec<&str> = got
                        .recommended_agents
                        .iter()
                        .map(|r| r.agent_id.as_str())
                        .collect();
                    let any_unavailable = named.iter().any(|n| {
                        catalog.agent(n).unwrap().availability == Availability::Unavailable
                    });
                    if any_unavailable {
                        assert!(rec.is_empty(), "{prompt:?} {states:?}: {rec:?}");
                        assert_eq!(
                            got.fallback_reason.as_deref(),
                            Some("locked-agent-unavailable"),
                            "{prompt:?}"
                        );
                        for n in &named {
                            if catalog.agent(n).unwrap().availability == Availability::Unavailable {
                                let r = got
                                    .rejected_agents
                                    .iter()
                                    .find(|r| r.agent_id == *n)
                                    .unwrap();
                                assert!(
                                    r.reason_codes.iter().any(|c| c == "explicit-lock"),
                                    "{r:?}"
                                );
                            }
                        }
                    } else {
                        assert_eq!(
                            rec,
                            named.iter().map(String::as_str).collect::<Vec<_>>(),
                            "{prompt:?} {states:?}"
                        );
                        for r in &got.recommended_agents {
                            assert!(r.reason_codes.iter().any(|c| c == "explicit-lock"), "{r:?}");
                        }
                        assert_eq!(got.fallback_reason, None);
                    }
                }
            }
        }
    }
}

/// Planning: for one and for two planned agents, every availability at plan time (configured,
/// unknown) × every availability at approval (configured, unknown, unavailable, gone from the
/// catalog): the approval applies the plan while any planned agent is still available, with
/// exactly those agents and their own skills, and reports `agent-unavailable` only when all of
/// them are gone. Both approval paths (a prompt, and Claude Code's plan-approval dialog).
#[test]
fn carry_forward_for_every_availability_change() {
    // (prompt, the planned agents the policy gives for it on the default catalog)
    let plans: [(&str, &[&str]); 2] = [
        ("find the widget", &["scout"]),
        (
            "diagnose and fix the widget",
            &["technical_analyst", "implementer"],
        ),
    ];
    #[derive(Debug, Clone, Copy, PartialEq)]
    enum Later {
        Is(Availability),
        Gone,
    }
    let later_states = [
        Later::Is(Availability::Configured),
        Later::Is(Availability::Unknown),
        Later::Is(Availability::Unavailable),
        Later::Gone,
    ];
    let now = chrono::DateTime::UNIX_EPOCH;
    let mut checked = 0;
    for (prompt, planned_ids) in plans {
        let n = planned_ids.len();
        for plan_mask in 0..(1usize << n) {
            let mut plan_catalog = default_catalog();
            for (i, id) in planned_ids.iter().enumerate() {
                let agent = plan_catalog
                    .agents
                    .iter_mut()
                    .find(|a| a.id == *id)
                    .unwrap();
                agent.availability = if plan_mask >> i & 1 == 1 {
                    Availability::Configured
                } else {
                    Availability::Unknown
                };
            }
            // Selected skills: one affinity of the first planned agent, so skills are paired.
            let first_skill =
                plan_catalog.agent(planned_ids[0]).unwrap().skill_affinities[0].clone();
            let routing = resolve_subagent_routing(
                prompt,
                SubagentMode::Requested,
                &skills(&[first_skill.as_str()]),
                &plan_catalog,
                true,
            );
            assert!(routing.carry_forward_to_implementation);
            let ids: Vec<&str> = routing
                .recommended_agents
                .iter()
                .map(|r| r.agent_id.as_str())
                .collect();
            assert_eq!(ids, planned_ids, "the plan for {prompt:?}");
            let planned = planned_from(&routing, false, now).expect("a plan is recorded");
            assert_eq!(planned.agents, planned_ids);

            for combo in 0..4usize.pow(n as u32) {
                let later: Vec<Later> = (0..n)
                    .map(|i| later_states[combo / 4usize.pow(i as u32) % 4])
                    .collect();
                let mut catalog = plan_catalog.clone();
                for (id, state) in planned_ids.iter().zip(&later) {
                    match state {
                        Later::Is(a) => {
                            catalog
                                .agents
                                .iter_mut()
                                .find(|x| x.id == *id)
                                .unwrap()
                                .availability = *a
                        }
                        Later::Gone => catalog.agents.retain(|x| x.id != *id),
                    }
                }
                let still: Vec<usize> = (0..n)
                    .filter(|i| matches!(later[*i], Later::Is(a) if a != Availability::Unavailable))
                    .collect();
                let want_status = if still.is_empty() {
                    CarryForwardStatus::AgentUnavailable
                } else {
                    CarryForwardStatus::Applied
                };
                let want_agents: Vec<String> =
                    still.iter().map(|i| planned_ids[*i].to_owned()).collect();
                let want_skills: Vec<Option<String>> =
                    still.iter().map(|i| planned.skills[*i].clone()).collect();
                let want_unavailable: Vec<String> = (0..n)
                    .filter(|i| !still.contains(i))
                    .map(|i| planned_ids[i].to_owned())
                    .collect();
                for approval in ["procedi", "go ahead with the plan", "LGTM"] {
                    let cf = carry_forward(&planned, approval, None, false, &catalog)
                        .unwrap_or_else(|| panic!("{approval:?} approves the plan"));
                    let dialog = carry_forward_on_plan_approval(&planned, &catalog);
                    for got in [cf, dialog] {
                        checked += 1;
                        assert_eq!(got.status, want_status, "{prompt:?} {later:?} {approval:?}");
                        assert_eq!(got.agents, want_agents, "{prompt:?} {later:?}");
                        assert_eq!(got.skills, want_skills, "{prompt:?} {later:?}");
                        assert_eq!(got.unavailable, want_unavailable, "{prompt:?} {later:?}");
                    }
                }
                // Still planning: nothing carries forward yet.
                assert!(carry_forward(&planned, "procedi", None, true, &catalog).is_none());
            }
        }
    }
    assert_eq!(checked, 2 * 3 * (2 * 4 + 4 * 16));
}

/// Availability at hook time (docs/agents/README.md, "Per host at hook time"), for every
/// combination per role of the manifest's state over every host (absent, configured, unknown,
/// unavailable) × the current host's own state (absent or one of the three; only for a role the
/// manifest lists) × whether the host has a definition file: the host's own state when the
/// manifest has one, else the state over every host, `unavailable` over every host always
/// winning; then a role that is not unavailable is `configured` exactly when the host has its
/// definition, else `unknown`.
#[test]
fn availability_overlay_then_host_definitions_for_every_combination() {
    use sophia_hook::stages::agents::availability::{Manifest, apply_host_definitions, overlay};
    use std::collections::{BTreeMap, BTreeSet};
    let states = [
        None,
        Some(Availability::Configured),
        Some(Availability::Unknown),
        Some(Availability::Unavailable),
    ];
    let mut checked = 0;
    for global in states {
        for host_state in states {
            if global.is_none() && host_state.is_some() {
                continue;
            }
            for defined in [false, true] {
                for (i, target) in default_catalog().agents.iter().enumerate() {
                    let mut catalog = default_catalog();
                    let mut agents = BTreeMap::new();
                    let mut hosts = BTreeMap::new();
                    if let Some(g) = global {
                        agents.insert(target.id.clone(), g);
                    }
                    if let Some(h) = host_state {
                        hosts.insert("codex".to_owned(), BTreeMap::from([(target.id.clone(), h)]));
                    }
                    let manifest = Manifest {
                        schema_version: 1,
                        generated_at: None,
                        catalog_fingerprint: Some(catalog.fingerprint.clone()),
                        agents,
                        hosts,
                    };
                    let warnings = overlay(&mut catalog, &manifest, Some("codex"));
                    assert!(warnings.is_empty(), "{warnings:?}");
                    let definitions: BTreeSet<String> = if defined {
                        BTreeSet::from([target.id.clone()])
                    } else {
                        BTreeSet::new()
                    };
                    apply_host_definitions(&mut catalog, &definitions);
                    let state = match (global, host_state) {
                        (None, _) => Availability::Unknown,
                        (Some(Availability::Unavailable), _) => Availability::Unavailable,
                        (Some(_), Some(h)) => h,
                        (Some(g), None) => g,
                    };
                    let want = match state {
                        Availability::Unavailable => Availability::Unavailable,
                        _ if defined => Availability::Configured,
                        _ => Availability::Unknown,
                    };
                    assert_eq!(
                        catalog.agents[i].availability, want,
                        "{}: global {global:?} host {host_state:?} defined {defined}",
                        target.id
                    );
                    // The other roles: no definition, no state, so unknown.
                    for (j, other) in catalog.agents.iter().enumerate() {
                        if j != i {
                            assert_eq!(other.availability, Availability::Unknown, "{}", other.id);
                        }
                    }
                    // And the policy never recommends an unavailable role.
                    let got = resolve_subagent_routing(
                        &format!(
                            "{} the widget using the {}",
                            CUES[i].1,
                            target.id.replace('_', " ")
                        ),
                        SubagentMode::Requested,
                        &skills(&[]),
                        &catalog,
                        false,
                    );
                    check_invariants(&got, &catalog, &[]);
                    checked += 1;
                }
            }
        }
    }
    assert_eq!(checked, (1 + 3 * 4) * 2 * 5);
}

/// Plan detection (docs/agents/README.md, "Planning and carry-forward"): asking for a plan,
/// approving one, and an approval that brings new scope.
#[test]
fn plan_requests_approvals_and_scope_changes() {
    use sophia_hook::stages::planning::{approves_plan, asks_for_plan, changes_scope};
    for ask in [
        "prepara un piano per la migrazione",
        "pianifica il refactoring del modulo",
        "make a plan for the migration",
        "write an implementation plan for the export",
        "fammi un piano",
    ] {
        assert!(asks_for_plan(ask), "{ask}");
        assert!(!approves_plan(ask), "{ask}");
    }
    for approve in [
        "procedi",
        "implementa il piano",
        "go ahead with the plan",
        "LGTM",
        "ok procedi",
        "Implement the plan.",
        "segui il piano",
    ] {
        assert!(approves_plan(approve), "{approve}");
        assert!(!asks_for_plan(approve), "{approve}");
        assert!(!changes_scope(approve), "{approve}");
    }
    for scope in [
        "procedi, ma aggiungi anche l'export in Excel e cambia il modulo ordini",
        "go ahead with the plan but also add the Excel export and rename the orders module",
    ] {
        assert!(approves_plan(scope), "{scope}");
        assert!(changes_scope(scope), "{scope}");
    }
    for neither in [
        "spiegami SQL",
        "the plan of the building",
        "what is a plan?",
    ] {
        assert!(!approves_plan(neither), "{neither}");
    }
}

/// Roles the user names are listed in the order they are written (the lock keeps the user's
/// order, whatever the catalog's): every ordered pair of distinct roles of the default catalog,
/// written as `use the A and then the B`, gives `[A, B]`.
#[test]
fn named_roles_keep_the_order_they_are_written_in() {
    use sophia_hook::stages::agents::policy::named_agents;
    let catalog = default_catalog();
    let ids: Vec<String> = catalog.agents.iter().map(|a| a.id.clone()).collect();
    assert!(ids.len() >= 2);
    for a in &ids {
        for b in ids.iter().filter(|b| *b != a) {
            let text = format!("!agents use the {a} and then the {b}");
            assert_eq!(
                named_agents(&text, &catalog),
                [a.clone(), b.clone()],
                "{text}"
            );
        }
    }
}

/// The spellings of docs/agents/README.md ("Lock"): the id, the id with spaces or dashes, and the
/// natural aliases the spec lists for each default role.
fn spoken_forms(id: &str) -> Vec<String> {
    let aliases: &[&str] = match id {
        "scout" => &["esploratore"],
        "technical_analyst" => &["analista tecnico", "analista"],
        "implementer" => &["implementatore"],
        "code_reviewer" => &["revisore del codice", "revisore", "reviewer"],
        "test_writer" => &["scrittore di test"],
        other => panic!("a default role the spec does not list: {other}"),
    };
    let mut forms = vec![id.to_owned(), id.replace('_', " "), id.replace('_', "-")];
    forms.extend(aliases.iter().map(|a| (*a).to_owned()));
    forms.dedup();
    forms
}

/// A negated name is never a lock, wherever the negation stands in the name's clause — right
/// before it ("no scout"), before an article, or a few words earlier — for every negation the
/// spec's examples use (docs/routing.md, docs/agents/README.md) × every role × every spelling;
/// while a negation in an earlier clause, or none, leaves the lock. Audit finding: a negation
/// directly before the name was dropped and `!agents analizza i log, no scout` locked the scout.
#[test]
fn a_negation_anywhere_before_a_name_in_its_clause_is_never_a_lock() {
    use sophia_hook::stages::agents::policy::named_agents;
    const NEGATIONS: [&str; 12] = [
        "no", "non", "not", "don't", "never", "mai", "senza", "without", "evita", "avoid",
        "nessun", "niente",
    ];
    const GAPS: [&str; 4] = ["", "the ", "usare lo ", "call on the other "];
    let catalog = default_catalog();
    for agent in &catalog.agents {
        for form in spoken_forms(&agent.id) {
            let plain = format!("!agents analizza i log, {form}");
            assert_eq!(
                named_agents(&plain, &catalog),
                [agent.id.as_str()],
                "{plain}"
            );
            for neg in NEGATIONS {
                for gap in GAPS {
                    let negated = format!("!agents analizza i log, {neg} {gap}{form}");
                    assert!(
                        named_agents(&negated, &catalog).is_empty(),
                        "{negated:?} locked {:?}",
                        named_agents(&negated, &catalog)
                    );
                    let got = resolve_subagent_routing(
                        &negated,
                        SubagentMode::Requested,
                        &skills(&[]),
                        &catalog,
                        false,
                    );
                    assert!(
                        got.recommended_agents
                            .iter()
                            .all(|r| r.reason_codes.iter().all(|c| c != "explicit-lock")),
                        "{negated:?}: {got:?}"
                    );
                    let earlier = format!("!agents {neg} toccare i test, {gap}{form}");
                    assert_eq!(
                        named_agents(&earlier, &catalog),
                        [agent.id.as_str()],
                        "{earlier}"
                    );
                }
            }
        }
    }
}
