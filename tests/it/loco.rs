//! The leave-one-catalog-out protocol (docs/skills.md, "The protocol"), re-run on every
//! `cargo test`; the tables are printed with `cargo test --test it loco:: -- --nocapture`.
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
//! regression fitted on the other fifteen catalogs and its threshold chosen there, for each of
//! [`VARIANTS`]; each fold's fit runs through the hook's own code path on the catalog left out,
//! and the held-out gate is on those figures. [`the_hook_confidence_is_the_protocol_fit`] checks
//! that `confidence::HOOK` is the chosen variant's final fit over all sixteen.
//!
//! Six experiments (they print tables and assert nothing; docs/skills.md records
//! their figures; out of the test suite in `benches/loco.rs`: `cargo bench --bench loco`): `backbone_experiments`
//! (BM25F, or BM25F fused with the router, as the ranking, with abstention thresholds on margin,
//! coverage, score and agreement chosen per fold; and the Snowball stemmers of `rust-stemmers`
//! against `text::stem`), `learned_confidence_experiment` (a logistic confidence over both
//! rankers' evidence, fitted per fold), `index_bm25f_experiment` (the same with BM25F computed
//! from the compiled index alone, what the hook could read) and `static_embedding_experiment`
//! (a static word-embedding table, `scripts/embeddings/distill.py`, alone and fused with BM25F
//! and the router, and as features of the learned confidence; the tables are named by
//! `SOPHIA_EMBED_TABLE`, and without it the experiment prints how to make them), and on the
//! hook's own inputs `ranking_weight_experiment` (the blend of BM25F-from-the-index and the
//! router, chosen per fold for ranking top-1) and `features_experiment` (four more features of
//! the confidence for issue 33's classes: question, sibling coverage, sibling share, length).
//!
//! The sixteen catalogs are the eight first labelled (blind sets 1 and 2) and the eight of blind
//! set 3 (`fixtures/eval/catalogs/BLIND-SET-3.md`), which joined the protocol with issue 33.
//!
//! Not built for Windows: the protocol is pure computation over fixtures, identical on every
//! platform, and takes minutes in a debug build; under Wine (`scripts/windows-ci.sh`) it would
//! only double the CI step's time without testing anything platform-specific.
// Tests and benches set up and read their files directly; the door (clippy.toml) is for the crate.
#![allow(clippy::disallowed_methods)]
#![cfg(not(windows))]

use std::path::{Path, PathBuf};

use serde_json::Value;

use sophia_hook::eval::{Case, parse_cases};
use sophia_hook::stages::routing::route_with_prefix;
use sophia_hook::stages::skills::SkillRouting;
use sophia_hook::stages::skills::bm25::{Bm25f, Bm25fParams};
use sophia_hook::stages::skills::confidence::{self, Confidence, FEATURES, Ranking};
use sophia_hook::stages::skills::router::{
    Calibration, ConfidenceInputs, DESCRIPTION, PHRASE, SkillRouter,
};
use sophia_hook::text::routing_window;

/// The named precision a calibration must reach on the catalogs it is chosen on.
pub(crate) const NAMED_PRECISION: f64 = 0.90;

/// The named precision the confidence's threshold must reach on the fifteen catalogs it is fitted
/// on, one point above [`NAMED_PRECISION`]: the fit is scored on the same prompts it learned
/// from, so its in-sample precision runs above what a catalog it never saw gets. 0.91 is the
/// target the learned-confidence experiment used in session 6, before the confidence reached the
/// hook; docs/skills.md records the held-out figures at 0.90, 0.91 and 0.92.
pub(crate) const FIT_TARGET: f64 = 0.91;

/// The grid: the plain threshold, the shared-word share (infinity: the rule off), the weights of
/// the body's lead lines and prose (0: the body not read); the other knobs at the hook's values.
/// The margin of calibrated abstention is not in it: under this protocol it lowered pooled
/// held-out named precision below 0.90 (the "with the margin" ablation).
pub(crate) fn grid() -> Vec<Calibration> {
    grid_with(&[0.0])
}

/// [`grid`] with the margin of calibrated abstention over `margins` (0: off).
pub(crate) fn grid_with(margins: &[f64]) -> Vec<Calibration> {
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

pub(crate) struct Catalog {
    pub(crate) name: String,
    pub(crate) root: PathBuf,
    /// Each cases file and the range of `cases` it gave.
    pub(crate) files: Vec<(PathBuf, std::ops::Range<usize>)>,
    /// (window of the stripped prompt, expected skills).
    pub(crate) cases: Vec<(String, Vec<String>)>,
    pub(crate) router: SkillRouter,
    pub(crate) bm25f: Bm25f,
}

pub(crate) fn catalogs() -> Vec<Catalog> {
    let base = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = base.join("fixtures/eval/catalogs");
    let roots = base.join("fixtures/catalogs");
    let mut names: Vec<String> = std::fs::read_dir(&roots)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
        .into_iter()
        .map(|n| (roots.join(&n), n))
        .filter_map(|(root, name)| {
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
pub(crate) struct Figures {
    pub(crate) top1: (usize, usize),
    pub(crate) named: (usize, usize),
    pub(crate) no_skill_recall: (usize, usize),
    pub(crate) top2: (usize, usize),
    /// Ranking top-1: the ranking's first candidate, named or not, is the expected skill (over
    /// the cases that have one; `eval`'s "ranking top-1").
    pub(crate) rank1: (usize, usize),
}

impl Figures {
    /// One case: `named` is the first named skill, `ranked` the first two of the ranking.
    pub(crate) fn add(&mut self, expected: &[String], named: Option<&str>, ranked: &[&str]) {
        if let Some(first) = expected.first() {
            self.top1.1 += 1;
            self.top1.0 += usize::from(named == Some(first.as_str()));
            self.top2.1 += 1;
            self.top2.0 += usize::from(ranked.iter().take(2).any(|r| r == first));
            self.rank1.1 += 1;
            self.rank1.0 += usize::from(
                ranked
                    .first()
                    .is_some_and(|r| expected.iter().any(|e| e == r)),
            );
        } else {
            self.no_skill_recall.1 += 1;
            self.no_skill_recall.0 += usize::from(named.is_none());
        }
        if let Some(n) = named {
            self.named.1 += 1;
            self.named.0 += usize::from(expected.iter().any(|e| e == n));
        }
    }

    pub(crate) fn plus(self, o: Figures) -> Figures {
        let add = |x: (usize, usize), y: (usize, usize)| (x.0 + y.0, x.1 + y.1);
        Figures {
            top1: add(self.top1, o.top1),
            named: add(self.named, o.named),
            no_skill_recall: add(self.no_skill_recall, o.no_skill_recall),
            top2: add(self.top2, o.top2),
            rank1: add(self.rank1, o.rank1),
        }
    }
}

pub(crate) fn ratio((hits, total): (usize, usize)) -> Option<f64> {
    (total > 0).then(|| hits as f64 / total as f64)
}

pub(crate) fn show(pair: (usize, usize)) -> String {
    match ratio(pair) {
        Some(r) => format!("{:.3}", r),
        None => "  n/a".into(),
    }
}

pub(crate) fn router_figures(c: &Catalog, calibration: Calibration) -> Figures {
    router_figures_on(c, &c.cases, calibration)
}

pub(crate) fn router_figures_on(
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
pub(crate) fn ranked_ids(routing: &SkillRouting) -> Vec<&str> {
    routing
        .selected
        .iter()
        .chain(&routing.runners_up)
        .map(|m| m.skill_id.as_str())
        .collect()
}

/// Fusion, measured: the router's pick when it names one; else its top-ranked skill when
/// BM25F's top-ranked skill is the same (the rankers agree).
pub(crate) fn fused_figures(c: &Catalog, calibration: Calibration) -> Figures {
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

pub(crate) fn bm25f_figures(c: &Catalog) -> Figures {
    bm25f_figures_on(c, &c.cases)
}

pub(crate) fn bm25f_figures_on(c: &Catalog, cases: &[(String, Vec<String>)]) -> Figures {
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
pub(crate) fn choose(pooled: &[Figures]) -> usize {
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

pub(crate) fn row(name: &str, f: &Figures) -> String {
    format!(
        "{name:<20} top-1 {} ({}/{})  named {} ({}/{})  no-skill recall {}  top-2 {}  ranking top-1 {} ({}/{})",
        show(f.top1),
        f.top1.0,
        f.top1.1,
        show(f.named),
        f.named.0,
        f.named.1,
        show(f.no_skill_recall),
        show(f.top2),
        show(f.rank1),
        f.rank1.0,
        f.rank1.1
    )
}

/// Mean and worst of one figure over the held-out catalogs.
pub(crate) fn mean_worst(rows: &[Figures], pick: impl Fn(&Figures) -> (usize, usize)) -> String {
    let values: Vec<f64> = rows.iter().filter_map(|f| ratio(pick(f))).collect();
    let mean = values.iter().sum::<f64>() / values.len().max(1) as f64;
    let worst = values.iter().copied().fold(f64::INFINITY, f64::min);
    format!("mean {mean:.3} worst {worst:.3}")
}

/// Figures of every grid point on every catalog: `[point][catalog]`.
pub(crate) type Table = Vec<Vec<Figures>>;

pub(crate) fn table(catalogs: &[Catalog], grid: &[Calibration], system: System) -> Table {
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
pub(crate) enum System {
    Router,
    Fused,
}

/// The points of `table` that `keep` allows, pooled over the catalogs `use_catalog` allows.
pub(crate) fn pooled(table: &Table, use_catalog: impl Fn(usize) -> bool) -> Vec<Figures> {
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
pub(crate) fn loco(table: &Table, allowed: &[usize], catalogs: usize) -> Vec<(usize, Figures)> {
    (0..catalogs)
        .map(|k| {
            let all = pooled(table, |i| i != k);
            let candidates: Vec<Figures> = allowed.iter().map(|&p| all[p]).collect();
            let point = allowed[choose(&candidates)];
            (point, table[point][k])
        })
        .collect()
}

pub(crate) fn summary(label: &str, rows: &[Figures]) {
    let pooled = rows.iter().fold(Figures::default(), |a, f| a.plus(*f));
    println!(
        "{label:<26} top-1 {}; named {}; no-skill recall {}; top-2 {}; ranking top-1 {}",
        mean_worst(rows, |f| f.top1),
        mean_worst(rows, |f| f.named),
        mean_worst(rows, |f| f.no_skill_recall),
        mean_worst(rows, |f| f.top2),
        mean_worst(rows, |f| f.rank1)
    );
    println!("{:<26} {}", "", row("pooled", &pooled));
}

pub(crate) struct Shared {
    pub(crate) catalogs: Vec<Catalog>,
    pub(crate) grid: Vec<Calibration>,
    pub(crate) router: Table,
}

pub(crate) fn shared() -> &'static Shared {
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
        catalogs.len() == 16 && catalogs.iter().all(|c| c.cases.len() >= 20),
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
    // The learned confidence (the hook): each variant, fitted per fold on the other fifteen
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
/// "Leave one catalog out": the learned confidence fitted on fifteen catalogs, the hook's code
/// path on the sixteenth): issue 33's first figure, named precision at least 0.90 at recall
/// counted strictly — `top1` here: the first name is the first expected skill, an abstention a
/// miss (`eval`'s recall (named) also counts a two-skill case's second) — at least 0.55 (measured over the sixteen:
/// 0.911 and 0.564; the rules alone: 0.896 and 0.532). Restated for sixteen catalogs from the
/// eight's 0.90 and top-1 0.62 (there 0.905 and 0.623).
pub(crate) fn meets_held_out_gate(f: &Figures) -> bool {
    ratio(f.named).is_some_and(|r| r >= 0.90) && ratio(f.top1).is_some_and(|r| r >= 0.55)
}

#[test]
fn the_held_out_gate_fails_just_below() {
    let at = |top1: (usize, usize), named: (usize, usize)| Figures {
        top1,
        named,
        ..Figures::default()
    };
    assert!(meets_held_out_gate(&at((55, 100), (90, 100))));
    assert!(!meets_held_out_gate(&at((55, 100), (899, 1000))));
    assert!(!meets_held_out_gate(&at((549, 1000), (90, 100))));
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
pub(crate) fn meets_pooled_gate(f: &Figures) -> bool {
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
            let run = crate::common::run_in_process(
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
                    rank1: pair(section, "rankingTop1"),
                };
                assert_eq!(f, got, "{} {section}", file.to_string_lossy());
            }
        }
    }
}

/// The variants of the learned confidence the protocol chooses among: which ranking's winner it
/// judges, and BM25F's length normalisation (0: the index would need no mean field lengths).
pub(crate) const VARIANTS: [(Ranking, f64); 6] = [
    (Ranking::Bm25f, confidence::B),
    (Ranking::Fused, confidence::B),
    (Ranking::Router, confidence::B),
    (Ranking::Bm25f, 0.0),
    (Ranking::Fused, 0.0),
    (Ranking::Router, 0.0),
];

/// The thresholds the protocol tries for the confidence.
pub(crate) fn thresholds() -> Vec<f64> {
    (0..=40).map(|i| f64::from(i) / 40.0).collect()
}

/// A prompt's winner: its id and its features.
pub(crate) type Winner<'a> = (&'a str, [f64; FEATURES]);

/// The winner of `ranking` among a prompt's candidates, as the hook orders them (ties by id),
/// and its features.
pub(crate) fn winner(inp: &ConfidenceInputs, ranking: Ranking) -> Option<Winner<'_>> {
    let rank = confidence::ranking_scores(&inp.candidates, ranking);
    let best = *confidence::ranking_order(&rank, |i| inp.ids[i].as_str()).first()?;
    let x = confidence::features(&inp.candidates, best, inp.selected);
    Some((inp.ids[best].as_str(), x))
}

/// Per catalog and case, what the confidence reads (BM25F with length normalisation `b`).
pub(crate) fn inputs_for(catalogs: &[Catalog], b: f64) -> Vec<Vec<ConfidenceInputs>> {
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
pub(crate) fn fit_confidence(
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
pub(crate) fn hook_figures(c: &Catalog, conf: Confidence) -> (Figures, (usize, usize)) {
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
pub(crate) const SECOND_SHARES: [f64; 5] = [f64::INFINITY, 0.95, 0.9, 0.8, 0.6];

/// (right, named) over the catalogs `train` allows, counting every name (the first and a second
/// one) as one naming, with `conf` naming a second skill at `second`.
pub(crate) fn names_counted(
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
            let order = confidence::ranking_order(&rank, |j| inp.ids[j].as_str());
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
pub(crate) fn choose_second(
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
/// on the other fifteen (with its second-name share chosen there), and its figures there through
/// the hook's code path; (right, named) of the second names.
pub(crate) struct HeldOut {
    pub(crate) folds: Vec<Confidence>,
    pub(crate) rows: Vec<Figures>,
    pub(crate) second: (usize, usize),
}

/// Every variant's leave-one-out, and the inputs by `b` (0.75 first).
pub(crate) struct ConfidenceRuns {
    pub(crate) inputs: [Vec<Vec<ConfidenceInputs>>; 2],
    pub(crate) variants: Vec<HeldOut>,
}

pub(crate) fn confidence_runs() -> &'static ConfidenceRuns {
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
pub(crate) fn chosen_variant(runs: &ConfidenceRuns) -> usize {
    let pooled: Vec<Figures> = runs
        .variants
        .iter()
        .map(|v| v.rows.iter().fold(Figures::default(), |a, f| a.plus(*f)))
        .collect();
    choose(&pooled)
}

/// The hook's confidence variant, and what it is: the protocol's choice among [`VARIANTS`], and
/// its final fit over all sixteen catalogs (weights, standardisation and threshold within
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
pub(crate) const FIT_TOLERANCE: f64 = 1e-6;

pub(crate) fn same_fit(a: &Confidence, b: &Confidence) -> bool {
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

/// [`choose`] at another target named precision: the highest top-1 among the points that reach
/// `target`; when none does, the highest named precision (ties: higher top-1, then the earlier
/// point).
pub(crate) fn choose_at(pooled: &[Figures], target: f64) -> usize {
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

/// Logistic regression by gradient descent on standardised features; returns (mean, sd, w), the
/// bias last.
pub(crate) fn fit<const N: usize>(xs: &[[f64; N]], ys: &[f64]) -> ([f64; N], [f64; N], Vec<f64>) {
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

pub(crate) fn predict<const N: usize>(
    x: &[f64; N],
    mean: &[f64; N],
    sd: &[f64; N],
    w: &[f64],
) -> f64 {
    let z: f64 = w[N] + (0..N).map(|j| w[j] * (x[j] - mean[j]) / sd[j]).sum::<f64>();
    1.0 / (1.0 + (-z).exp())
}
