//! The two ways a stored plan moves to execution (docs/agents/README.md, "Planning"), each stated
//! once and checked over every position and every mode:
//!
//! - an approval word among the first four words of the prompt (fillers before it, any case);
//! - the host left the plan mode the plan was made in: only a plan made in plan mode, and only a
//!   prompt whose `permission_mode` is set and is not `plan`.
//!
//! Planted bugs these catch (found by the independent audit of issue 20, `docs/testing.md`): the
//! approval looked for in the first three words; the `from_plan_mode` guard dropped, so a plan
//! asked for in words carries forward to any later prompt in Claude Code's `default` mode.
// Tests and benches set up and read their files directly; the door (clippy.toml) is for the crate.
#![allow(clippy::disallowed_methods)]

use crate::common;

use chrono::{TimeZone, Utc};
use sophia_hook::stages::agents::default_catalog;
use sophia_hook::stages::planning::{PlannedDelegation, approves_plan, carry_forward};

/// Words that are neither approvals, plan nouns nor execute verbs.
const FILLERS: &[&str] = &["allora", "ecco", "quindi", "dunque", "adesso", "insomma"];
const APPROVALS: &[&str] = &[
    "procedi", "vai", "approvo", "confermo", "iniziamo", "lgtm", "approved", "proceed", "start",
];

#[test]
fn an_approval_counts_among_the_first_four_words_only() {
    let mut checked = 0;
    for approval in APPROVALS {
        for position in 1..=7usize {
            for upper in [false, true] {
                let word = if upper {
                    approval.to_uppercase()
                } else {
                    (*approval).to_owned()
                };
                let mut words: Vec<String> = FILLERS[..position - 1]
                    .iter()
                    .map(|w| (*w).to_owned())
                    .collect();
                words.push(word);
                words.push("con calma".to_owned());
                let prompt = words.join(" ");
                assert_eq!(
                    approves_plan(&prompt),
                    position <= 4,
                    "{prompt:?}: the approval is word {position}"
                );
                checked += 1;
            }
        }
    }
    assert_eq!(checked, APPROVALS.len() * 7 * 2);
}

fn planned(from_plan_mode: bool) -> PlannedDelegation {
    PlannedDelegation {
        planned_at: Utc.with_ymd_and_hms(2026, 11, 30, 10, 0, 0).unwrap(),
        from_plan_mode,
        agents: vec!["technical_analyst".to_owned()],
        skills: vec![None],
        reason_codes: vec![],
    }
}

#[test]
fn leaving_plan_mode_carries_only_a_plan_made_in_plan_mode() {
    let catalog = default_catalog();
    let modes = [
        None,
        Some("plan"),
        Some("default"),
        Some("acceptEdits"),
        Some("bypassPermissions"),
    ];
    let prompts = [
        ("procedi", true),
        ("ok go ahead with the plan", true),
        ("spiegami come funziona il modulo ordini", false),
        ("what does this error mean", false),
    ];
    let mut checked = 0;
    for from_plan_mode in [false, true] {
        for mode in modes {
            for (prompt, approves) in prompts {
                let left_plan_mode = from_plan_mode && mode.is_some_and(|m| m != "plan");
                let want = approves || left_plan_mode;
                let got = carry_forward(&planned(from_plan_mode), prompt, mode, false, &catalog);
                assert_eq!(
                    got.is_some(),
                    want,
                    "plan made in plan mode: {from_plan_mode}, now {mode:?}, {prompt:?}"
                );
                // Still planning: never carried.
                assert!(
                    carry_forward(&planned(from_plan_mode), prompt, mode, true, &catalog).is_none()
                );
                checked += 1;
            }
        }
    }
    assert_eq!(checked, 2 * 5 * 4);
}

/// A plan request (docs/agents/README.md, "Planning"): a plan verb at most four words before
/// "piano"/"plan", with no execute verb among them. Checked at every distance 1–7. Planted bug
/// this catches (the second independent audit of issue 20, #6): the window cut to three words.
#[test]
fn a_plan_verb_counts_up_to_four_words_before_the_plan_noun() {
    use sophia_hook::stages::planning::asks_for_plan;
    let mut checked = 0;
    for (verb, noun) in [
        ("prepara", "piano"),
        ("fammi", "piano"),
        ("scrivi", "piano"),
    ] {
        for distance in 1..=7usize {
            let mut words = vec![verb];
            words.extend(&FILLERS[..distance - 1]);
            words.push(noun);
            words.push("migrazione");
            let prompt = words.join(" ");
            assert_eq!(
                asks_for_plan(&prompt),
                distance <= 4,
                "{prompt:?}: the verb is {distance} word(s) before {noun:?}"
            );
            checked += 1;
        }
    }
    assert_eq!(checked, 3 * 7);
}

/// The turn state as a reference model, checked against the real hook (in-process, one cache
/// folder for the whole sequence) over generated sequences of turns in two sessions and two
/// projects (docs/agents/README.md, "Planning and carry-forward"):
///
/// - a planning turn with delegation on (a plan asked for in words, or made in plan mode) records
///   the planned delegation for its session in its project, replacing an earlier one;
/// - a turn that moves to execution — an approval not typed in plan mode, leaving the plan mode
///   the plan was made in, Claude Code's "Exit plan mode?" dialog (`PostToolUse` `ExitPlanMode`)
///   — gets the plan once (`applied`, or `scope-changed` when the approval brings new scope) and
///   consumes it;
/// - anything else leaves it: other prompts, an approval typed still in plan mode, a host
///   notification, and every prompt of another session or another project;
/// - a child agent's turn (`agent_id`, with the parent's session id), of any kind above, neither
///   records, gets nor consumes a plan.
mod turn_model {
    use std::collections::BTreeMap;
    use std::path::{Path, PathBuf};

    use proptest::prelude::*;
    use serde_json::{Value, json};
    use sophia_hook::edge::settings::Settings;

    use super::common;

    #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
    enum Mode {
        Unset,
        Plan,
        Default,
    }

    #[derive(Debug, Clone, Copy)]
    enum Kind {
        /// `!agents` and a plan asked for in words.
        PlanInWords,
        /// `!agents` in Claude Code's plan mode.
        PlanInPlanMode,
        /// "procedi".
        Approve,
        /// An approval that brings new scope.
        ApproveWithScope,
        /// A short question, neither a plan nor an approval.
        Other,
        /// Claude Code's background-task notification.
        Notification,
        /// The "Exit plan mode?" dialog approved.
        ExitPlanMode,
    }

    #[derive(Debug, Clone, Copy)]
    struct Turn {
        kind: Kind,
        mode: Mode,
        session: usize,
        project: usize,
        /// Sent for a child agent (`agent_id`, `agent_type`), with the parent's session id.
        child: bool,
    }

    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    enum Carried {
        Applied,
        ScopeChanged,
    }

    /// The reference: the planned entry per (session, project), and whether it was made in
    /// plan mode.
    #[derive(Debug, Default)]
    struct Model {
        plans: BTreeMap<(usize, usize), bool>,
    }

    impl Model {
        /// What the turn gets, and the state after it.
        fn step(&mut self, t: &Turn) -> Option<Carried> {
            let key = (t.session, t.project);
            if t.child {
                return None;
            }
            match t.kind {
                Kind::PlanInWords => {
                    self.plans.insert(key, t.mode == Mode::Plan);
                    None
                }
                Kind::PlanInPlanMode => {
                    self.plans.insert(key, true);
                    None
                }
                Kind::Approve | Kind::ApproveWithScope if t.mode != Mode::Plan => {
                    self.plans.remove(&key).map(|_| match t.kind {
                        Kind::Approve => Carried::Applied,
                        _ => Carried::ScopeChanged,
                    })
                }
                Kind::Other if t.mode == Mode::Default && self.plans.get(&key) == Some(&true) => {
                    self.plans.remove(&key);
                    Some(Carried::Applied)
                }
                Kind::ExitPlanMode => self.plans.remove(&key).map(|_| Carried::Applied),
                _ => None,
            }
        }
    }

    fn payload(t: &Turn, project: &Path) -> Value {
        let session = format!("model-session-{}", t.session);
        let cwd = project.to_str().unwrap();
        let prompt = match t.kind {
            Kind::PlanInWords => "!agents prepara un piano per rifattorizzare il modulo ordini",
            Kind::PlanInPlanMode => "!agents analizza il modulo ordini e proponi le modifiche",
            Kind::Approve => "procedi",
            Kind::ApproveWithScope => {
                "procedi, ma aggiungi anche l'export excel delle fatture e cambia il modulo clienti"
            }
            Kind::Other => "spiegami questo errore",
            Kind::Notification => {
                "<task-notification><task-id>t1</task-id><status>completed</status></task-notification>"
            }
            Kind::ExitPlanMode => {
                let mut p = json!({"hook_event_name": "PostToolUse", "session_id": session, "cwd": cwd,
                    "tool_name": "ExitPlanMode", "tool_input": {"plan": "x"}, "permission_mode": "default"});
                if t.child {
                    p["agent_id"] = json!("child-7");
                }
                return p;
            }
        };
        let mut p = json!({"hook_event_name": "UserPromptSubmit", "session_id": session,
            "cwd": cwd, "prompt": prompt});
        let mode = match (t.kind, t.mode) {
            (Kind::PlanInPlanMode, _) | (_, Mode::Plan) => Some("plan"),
            (_, Mode::Default) => Some("default"),
            (_, Mode::Unset) => None,
        };
        if let Some(mode) = mode {
            p["permission_mode"] = json!(mode);
        }
        if t.child {
            p["agent_id"] = json!("child-7");
            p["agent_type"] = json!("scout");
        }
        p
    }

    /// What the hook's output carried forward, read from its text.
    fn carried(stdout: &str) -> Option<Carried> {
        let applied = stdout.contains("Planned delegation carried forward:");
        let scope = stdout.contains("but this request changes scope");
        match (applied, scope) {
            (false, false) => None,
            (true, false) => Some(Carried::Applied),
            (false, true) => Some(Carried::ScopeChanged),
            (true, true) => panic!("both carry-forward lines: {stdout}"),
        }
    }

    fn turn() -> impl Strategy<Value = Turn> {
        let kind = prop_oneof![
            3 => Just(Kind::PlanInWords),
            2 => Just(Kind::PlanInPlanMode),
            3 => Just(Kind::Approve),
            1 => Just(Kind::ApproveWithScope),
            2 => Just(Kind::Other),
            1 => Just(Kind::Notification),
            1 => Just(Kind::ExitPlanMode),
        ];
        let mode = prop_oneof![Just(Mode::Unset), Just(Mode::Plan), Just(Mode::Default)];
        (kind, mode, 0..2usize, 0..2usize, prop::bool::weighted(0.2)).prop_map(
            |(kind, mode, session, project, child)| Turn {
                kind,
                mode,
                session,
                project,
                child,
            },
        )
    }

    struct World {
        _dir: tempfile::TempDir,
        projects: [PathBuf; 2],
        settings: Settings,
    }

    fn world() -> World {
        let dir = tempfile::tempdir().unwrap();
        let projects = ["one", "two"].map(|p| dir.path().join(p));
        for p in &projects {
            std::fs::create_dir_all(p.join(".git")).unwrap();
        }
        let home = dir.path().join("home");
        let cache = dir.path().join("cache");
        let vars = BTreeMap::from([
            ("HOME", home.to_string_lossy().into_owned()),
            ("SOPHIA_CACHE_DIR", cache.to_string_lossy().into_owned()),
            ("SOPHIA_ANALYTICS", "off".to_owned()),
            (
                "SOPHIA_TIME_BUDGET_MS",
                common::TEST_TIME_BUDGET_MS.to_owned(),
            ),
        ]);
        let settings = Settings::from_lookup(|k| vars.get(k).cloned());
        World {
            _dir: dir,
            projects,
            settings,
        }
    }

    fn run(world: &World, t: &Turn) -> Option<Carried> {
        let input = payload(t, &world.projects[t.project]).to_string();
        let out =
            common::run_in_process_with(&["--host", "claude"], input.as_bytes(), &world.settings);
        assert_eq!(out.code, 0, "{t:?}: {}", out.stderr);
        carried(&out.stdout)
    }

    /// The model's premise, checked once: each planning turn does record a plan (with delegation
    /// on, the policy always recommends a role), so a later approval carries it.
    #[test]
    fn each_way_of_planning_records_a_plan() {
        for kind in [Kind::PlanInWords, Kind::PlanInPlanMode] {
            let w = world();
            let plan = Turn {
                kind,
                mode: Mode::Unset,
                session: 0,
                project: 0,
                child: false,
            };
            assert_eq!(run(&w, &plan), None, "{plan:?}");
            let approve = Turn {
                kind: Kind::Approve,
                mode: Mode::Default,
                session: 0,
                project: 0,
                child: false,
            };
            assert_eq!(run(&w, &approve), Some(Carried::Applied), "after {plan:?}");
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

        #[test]
        fn the_turn_state_follows_its_reference_model(turns in prop::collection::vec(turn(), 1..14)) {
            let w = world();
            let mut model = Model::default();
            for (i, t) in turns.iter().enumerate() {
                let want = model.step(t);
                let got = run(&w, t);
                prop_assert_eq!(got, want, "turn {} {:?} of {:?}", i + 1, t, turns);
            }
        }
    }
}
