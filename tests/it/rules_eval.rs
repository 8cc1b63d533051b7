//! The figures of `sophia-hook eval` (docs/eval.md "Metrics") over generated labels, against a
//! model of each metric written from its definition. The decisions are the router's own for a
//! fixed set of prompts; only the labels vary, so every figure is recounted by the model from
//! (label, answer) pairs — never read back from the report.
//!
//! The definitions:
//! - context, subagent: a labelled case is right when the mode equals its label; hotwords: when
//!   the detected set equals the label, in any order;
//! - skills (cases with a `skills` label): precision@1 over cases expecting a skill, the first
//!   selected equal to the first expected; precision = selected that were expected / selected;
//!   recall = expected that were selected / expected; no-skill precision = nothing selected and
//!   nothing expected / nothing selected; no-skill recall = the same / nothing expected; named
//!   precision over cases that named a skill, the first named one expected; top-2 over cases
//!   expecting a skill, the first expected among the first two ranked (selected, then
//!   runners-up); recall (named) over cases expecting a skill, the first named one expected;
//!   ranking top-1 over the same cases, the first ranked one expected; per skill true and false
//!   positives and false negatives;
//! - agents: the same precision@1, precision and recall over recommended agents; skill pairing:
//!   the first recommendation's `skillId` equal to the label (`null` for none);
//! - a figure no case measured is `None` (`n/a`), never a pass.
//!
//! Planted bugs this catches (each seen failing): recall counted over selected skills, top-2 as
//! top-3, named precision as "the first named is the first expected", the hotword comparison in
//! order, a metric over no case reported as 1.
// Tests and benches set up and read their files directly; the door (clippy.toml) is for the crate.
#![allow(clippy::disallowed_methods)]

use crate::common;

use std::collections::BTreeMap;

use proptest::prelude::*;
use serde_json::{Value, json};

use sophia_hook::eval::{Ratio, decide_case, parse_cases, run};
use sophia_hook::stages::decision::{Decision, Project};
use sophia_hook::stages::skills::default_catalog;
use sophia_hook::stages::skills::router::SkillRouter;

/// Prompts whose answers differ: skills or none, one or two, modes, hotwords, agents.
const PROMPTS: [&str; 12] = [
    "esegui una query sul database per verificare i record della tabella clienti",
    "!quick spiegami la query SQL",
    "ciao, come va?",
    "scrivimi una SELECT che conti gli ordini per mese",
    "!agents analizza il ticket Mantis 123 e ricostruisci la causa",
    "!agents analizza i log",
    "usa lo scout per trovare i file di configurazione del proxy",
    "!agents usa il code_reviewer per rivedere la diff del fix",
    "!quick !agents find and fix the widget, then add a regression test",
    "apri il documento Word e aggiorna la tabella",
    "what does this function do?",
    "diagnose why the nightly build fails and fix it",
];

const ROLES: [&str; 5] = [
    "scout",
    "technical_analyst",
    "implementer",
    "code_reviewer",
    "test_writer",
];

fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        failure_persistence: None,
        rng_seed: proptest::test_runner::RngSeed::Fixed(22),
        ..ProptestConfig::default()
    }
}

fn project() -> Project {
    Project {
        skills: Some(SkillRouter::new(default_catalog())),
        ..Project::default()
    }
}

/// What the router answers for a prompt, as the metrics read it.
#[derive(Debug, Clone)]
struct Answer {
    context: Value,
    subagent: Value,
    hotwords: Vec<String>,
    selected: Vec<String>,
    ranked: Vec<String>,
    agents: Vec<String>,
    agent_skill: Option<String>,
}

fn answer(d: &Decision) -> Answer {
    let routing = d.routing.as_ref().expect("a prompt event");
    Answer {
        context: serde_json::to_value(routing.context_mode).unwrap(),
        subagent: serde_json::to_value(routing.subagent_mode).unwrap(),
        hotwords: routing
            .detected_hotwords
            .iter()
            .map(|h| h.as_str().to_owned())
            .collect(),
        selected: d.skills.selected_ids().map(str::to_owned).collect(),
        ranked: d
            .skills
            .selected
            .iter()
            .chain(&d.skills.runners_up)
            .map(|m| m.skill_id.clone())
            .collect(),
        agents: d
            .agents
            .recommended_agents
            .iter()
            .map(|r| r.agent_id.clone())
            .collect(),
        agent_skill: d
            .agents
            .recommended_agents
            .first()
            .and_then(|r| r.skill_id.clone()),
    }
}

fn answers() -> Vec<Answer> {
    let p = project();
    PROMPTS
        .iter()
        .map(|prompt| {
            let line = json!({ "prompt": prompt }).to_string();
            let case = &parse_cases(&line).unwrap()[0];
            answer(&decide_case(case, &p).unwrap())
        })
        .collect()
}

/// The skill ids labels are drawn from: every default skill.
fn skill_pool() -> Vec<String> {
    SkillRouter::new(default_catalog()).ids()
}

/// A label: distinct ids from `pool`, in a generated order.
fn ids(pool: Vec<String>, max: usize) -> impl Strategy<Value = Vec<String>> {
    prop::sample::subsequence(pool, 0..=max).prop_shuffle()
}

/// One labelled case: a prompt and, per dimension, a label or none. Labels are drawn partly
/// from the router's own answer so that hits, misses and partial overlaps all occur.
#[derive(Debug, Clone)]
struct Labels {
    prompt: usize,
    context: Option<&'static str>,
    subagent: Option<&'static str>,
    hotwords: Option<Vec<&'static str>>,
    skills: Option<Vec<String>>,
    agents: Option<Vec<String>>,
    agent_skill: Option<Option<String>>,
}

fn labels() -> impl Strategy<Value = Labels> {
    let pool = skill_pool();
    let roles: Vec<String> = ROLES.iter().map(|r| r.to_string()).collect();
    (
        0..PROMPTS.len(),
        prop::option::of(prop::sample::select(vec!["light", "full"])),
        prop::option::of(prop::sample::select(vec!["off", "requested", "required"])),
        prop::option::of(ids(vec!["!quick".to_owned(), "!agents".to_owned()], 2)),
        prop::option::of(ids(pool.clone(), 3)),
        any::<u8>(),
        prop::option::of(ids(roles, 3)),
        prop::option::of(prop::option::of(prop::sample::select(pool))),
    )
        .prop_map(
            |(prompt, context, subagent, hotwords, skills, mix, agents, agent_skill)| Labels {
                prompt,
                context,
                subagent,
                hotwords: hotwords.map(|h| {
                    h.into_iter()
                        .map(|s| if s == "!quick" { "!quick" } else { "!agents" })
                        .collect()
                }),
                // A third of the skill labels are rewritten below to the router's answer
                // (`mix`), so exact hits are common.
                skills: skills.map(|s| {
                    if mix % 3 == 0 {
                        vec!["=".to_owned()]
                    } else {
                        s
                    }
                }),
                agents,
                agent_skill,
            },
        )
}

/// True and false positives, false negatives, precision and recall of one skill.
type PerSkillRow = (usize, usize, usize, Option<f64>, Option<f64>);

fn ratio(hits: usize, total: usize) -> Ratio {
    Ratio {
        hits,
        total,
        value: (total > 0).then(|| hits as f64 / total as f64),
    }
}

proptest! {
    #![proptest_config(config(128))]

    #[test]
    fn every_eval_figure_is_its_definition(cases in prop::collection::vec(labels(), 0..16)) {
        let answers = answers();
        let mut text = String::new();
        let mut resolved = Vec::new();
        for (n, mut c) in cases.into_iter().enumerate() {
            let a = &answers[c.prompt];
            if c.skills.as_deref() == Some(&["=".to_owned()][..]) {
                c.skills = Some(a.selected.clone());
            }
            let mut line = json!({"id": format!("c{n}"), "prompt": PROMPTS[c.prompt]});
            let o = line.as_object_mut().unwrap();
            if let Some(v) = c.context { o.insert("contextMode".into(), json!(v)); }
            if let Some(v) = c.subagent { o.insert("subagentMode".into(), json!(v)); }
            if let Some(v) = &c.hotwords { o.insert("detectedHotwords".into(), json!(v)); }
            if let Some(v) = &c.skills { o.insert("skills".into(), json!(v)); }
            if let Some(v) = &c.agents { o.insert("agents".into(), json!(v)); }
            if let Some(v) = &c.agent_skill { o.insert("agentSkill".into(), json!(v)); }
            text.push_str(&line.to_string());
            text.push('\n');
            resolved.push(c);
        }
        let report = run(&parse_cases(&text).unwrap(), &mut project());
        prop_assert_eq!(report.cases, resolved.len());

        // Routing.
        let (mut ctx, mut sub, mut hot) = ((0, 0), (0, 0), (0, 0));
        // Skills.
        let (mut top1, mut named, mut top2) = ((0, 0), (0, 0), (0, 0));
        let (mut named_recall, mut ranking_top1) = ((0, 0), (0, 0));
        let (mut overlap, mut selected, mut expected) = (0, 0, 0);
        let (mut both_empty, mut selected_empty, mut expected_empty) = (0, 0, 0);
        let mut per_skill: BTreeMap<String, (usize, usize, usize)> = BTreeMap::new();
        // Agents.
        let (mut a_top1, mut pairing) = ((0, 0), (0, 0));
        let (mut a_overlap, mut a_recommended, mut a_expected) = (0, 0, 0);
        for c in &resolved {
            let a = &answers[c.prompt];
            if let Some(want) = c.context {
                ctx.1 += 1;
                ctx.0 += usize::from(a.context == json!(want));
            }
            if let Some(want) = c.subagent {
                sub.1 += 1;
                sub.0 += usize::from(a.subagent == json!(want));
            }
            if let Some(want) = &c.hotwords {
                hot.1 += 1;
                let same = want.len() == a.hotwords.len()
                    && want.iter().all(|w| a.hotwords.iter().any(|h| h == w));
                hot.0 += usize::from(same);
            }
            if let Some(want) = &c.skills {
                let got = &a.selected;
                if let Some(first) = want.first() {
                    top1.1 += 1;
                    top1.0 += usize::from(got.first() == Some(first));
                    top2.1 += 1;
                    top2.0 += usize::from(a.ranked.iter().take(2).any(|r| r == first));
                    named_recall.1 += 1;
                    named_recall.0 += usize::from(got.first().is_some_and(|g| want.contains(g)));
                    ranking_top1.1 += 1;
                    ranking_top1.0 += usize::from(a.ranked.first().is_some_and(|r| want.contains(r)));
                }
                if let Some(first) = got.first() {
                    named.1 += 1;
                    named.0 += usize::from(want.contains(first));
                }
                for g in got {
                    let e = per_skill.entry(g.clone()).or_default();
                    if want.contains(g) {
                        overlap += 1;
                        e.0 += 1;
                    } else {
                        e.1 += 1;
                    }
                }
                for w in want {
                    if !got.contains(w) {
                        per_skill.entry(w.clone()).or_default().2 += 1;
                    }
                }
                selected += got.len();
                expected += want.len();
                selected_empty += usize::from(got.is_empty());
                expected_empty += usize::from(want.is_empty());
                both_empty += usize::from(got.is_empty() && want.is_empty());
            }
            if let Some(want) = &c.agents {
                if let Some(first) = want.first() {
                    a_top1.1 += 1;
                    a_top1.0 += usize::from(a.agents.first() == Some(first));
                }
                a_overlap += a.agents.iter().filter(|g| want.contains(g)).count();
                a_recommended += a.agents.len();
                a_expected += want.len();
            }
            if let Some(want) = &c.agent_skill {
                pairing.1 += 1;
                pairing.0 += usize::from(*want == a.agent_skill);
            }
        }
        let r = &report.routing;
        prop_assert_eq!(r.context_mode, ratio(ctx.0, ctx.1));
        prop_assert_eq!(r.subagent_mode, ratio(sub.0, sub.1));
        prop_assert_eq!(r.detected_hotwords, ratio(hot.0, hot.1));
        let s = &report.skills;
        prop_assert_eq!(s.precision_at_1, ratio(top1.0, top1.1));
        prop_assert_eq!(s.precision, ratio(overlap, selected));
        prop_assert_eq!(s.recall, ratio(overlap, expected));
        prop_assert_eq!(s.no_skill_precision, ratio(both_empty, selected_empty));
        prop_assert_eq!(s.no_skill_recall, ratio(both_empty, expected_empty));
        prop_assert_eq!(s.named_precision, ratio(named.0, named.1));
        prop_assert_eq!(s.top2, ratio(top2.0, top2.1));
        prop_assert_eq!(s.named_recall, ratio(named_recall.0, named_recall.1));
        prop_assert_eq!(s.ranking_top1, ratio(ranking_top1.0, ranking_top1.1));
        let got_per_skill: BTreeMap<String, PerSkillRow> = s
            .per_skill
            .iter()
            .map(|(k, p)| {
                (k.clone(), (p.true_positives, p.false_positives, p.false_negatives, p.precision, p.recall))
            })
            .collect();
        let want_per_skill: BTreeMap<String, PerSkillRow> = per_skill
            .into_iter()
            .map(|(k, (tp, fp, fn_))| {
                (k, (tp, fp, fn_, ratio(tp, tp + fp).value, ratio(tp, tp + fn_).value))
            })
            .collect();
        prop_assert_eq!(got_per_skill, want_per_skill);
        let ag = &report.agents;
        prop_assert_eq!(ag.precision_at_1, ratio(a_top1.0, a_top1.1));
        prop_assert_eq!(ag.precision, ratio(a_overlap, a_recommended));
        prop_assert_eq!(ag.recall, ratio(a_overlap, a_expected));
        prop_assert_eq!(ag.skill_pairing, ratio(pairing.0, pairing.1));
        prop_assert_eq!(ag.unavailable_recommended, 0);
        prop_assert_eq!(ag.generic_recommended, 0);
    }
}

/// The generated labels reach every kind of case the definitions separate (so the property
/// above is not vacuous): answers with two skills, with none, with runners-up, with agents.
#[test]
fn the_prompts_cover_every_kind_of_answer() {
    let answers = answers();
    assert!(answers.iter().any(|a| a.selected.is_empty()));
    assert!(answers.iter().any(|a| a.selected.len() >= 2), "{answers:?}");
    assert!(answers.iter().any(|a| a.ranked.len() > a.selected.len()));
    assert!(answers.iter().any(|a| !a.agents.is_empty()));
    assert!(answers.iter().any(|a| a.agents.len() >= 2), "{answers:?}");
    assert!(answers.iter().any(|a| a.agent_skill.is_some()));
    assert!(answers.iter().any(|a| a.hotwords.len() == 2));
    assert!(answers.iter().any(|a| a.context == json!("light")));
    assert!(answers.iter().any(|a| a.context == json!("full")));
}

/// Every third-party catalog with its labelled cases: (cases file, catalog root), the sixteen of
/// the protocol.
fn third_party_sets() -> Vec<(std::path::PathBuf, std::path::PathBuf)> {
    let f = common::fixtures();
    let (eval, roots) = (f.join("eval/catalogs"), f.join("catalogs"));
    let mut names: Vec<String> = std::fs::read_dir(&roots)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let mut sets = Vec::new();
    for name in names {
        for file in [
            format!("{name}.jsonl"),
            format!("{name}.dev.jsonl"),
            format!("{name}.holdout.jsonl"),
        ] {
            let path = eval.join(&file);
            if path.is_file() {
                sets.push((path, roots.join(&name)));
            }
        }
    }
    sets
}

/// The curve's point at the hook's threshold is what the hook did: the same right names over
/// the same names given and over the same cases with a skill, on every third-party set; and the
/// curve really moves (below the hook's threshold more is named), so a confidence lost on the
/// way (every case counted as the rules decided it) cannot pass. On catalogs with hand-written
/// keywords (the embedded one, a project's), where the rules decide, the curve is flat at the
/// hook's figures: a confidence set where the rules decided, or a rules case counted from the
/// ranking instead of what was named, moves it.
#[test]
fn the_curve_at_the_hooks_threshold_is_what_the_hook_named() {
    let mut sets = third_party_sets();
    assert!(sets.len() >= 16, "{sets:?}");
    // Catalogs whose skills have hand-written keywords, where the rules decide: the embedded one
    // and a project's.
    let f = common::fixtures();
    let embedded = f.join("eval/routing.jsonl");
    let keywords = (
        f.join("eval/project-skills.jsonl"),
        f.join("projects/hotword-keywords"),
    );
    sets.push(keywords);
    let mut rules_sets = 0;
    let (mut named_at_zero, mut named_by_hook) = (0, 0);
    let mut runs: Vec<(std::path::PathBuf, common::Run)> = sets
        .iter()
        .map(|(cases, root)| {
            let args = [
                "eval",
                cases.to_str().unwrap(),
                "--root",
                root.to_str().unwrap(),
                "--json",
            ];
            (cases.clone(), common::run_in_process(&args, b""))
        })
        .collect();
    let args = ["eval", embedded.to_str().unwrap(), "--json"];
    runs.push((embedded.clone(), common::run_in_process(&args, b"")));
    for (cases, run) in runs {
        let json: Value = serde_json::from_str(&run.stdout).unwrap();
        let skills = &json["skills"];
        let curve = skills["curve"].as_array().unwrap();
        let hook: Vec<&Value> = curve.iter().filter(|p| p["hook"] == true).collect();
        assert_eq!(hook.len(), 1, "{cases:?}");
        assert_eq!(
            hook[0]["namedPrecision"], skills["namedPrecision"],
            "{cases:?}"
        );
        assert_eq!(hook[0]["namedRecall"], skills["namedRecall"], "{cases:?}");
        assert_eq!(curve[0]["threshold"], 0.0);
        // Where the rules decide every prompt the curve is flat: the hook's figures at every
        // threshold.
        if cases.ends_with("routing.jsonl") || cases.ends_with("project-skills.jsonl") {
            rules_sets += 1;
            for p in curve {
                assert_eq!(
                    p["namedPrecision"], skills["namedPrecision"],
                    "{cases:?} {p}"
                );
                assert_eq!(p["namedRecall"], skills["namedRecall"], "{cases:?} {p}");
            }
            assert!(
                skills["namedPrecision"]["total"].as_u64().unwrap() > 0,
                "{cases:?}"
            );
            continue;
        }
        named_at_zero += curve[0]["namedPrecision"]["total"].as_u64().unwrap();
        named_by_hook += skills["namedPrecision"]["total"].as_u64().unwrap();
        // BM25F's lowest threshold names all that its rule names.
        let bm25 = json["skillsBm25Baseline"]["curve"].as_array().unwrap();
        assert_eq!(
            bm25[0]["namedPrecision"], json["skillsBm25Baseline"]["namedPrecision"],
            "{cases:?}"
        );
    }
    assert_eq!(rules_sets, 2);
    assert!(
        named_at_zero > named_by_hook + 100,
        "{named_at_zero} vs {named_by_hook}"
    );
}
