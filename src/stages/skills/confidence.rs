//! Calibrated abstention: a confidence per prompt for the skill the hook would name, and one
//! threshold (docs/skills.md, "Selection and abstaining"). Pure.
//!
//! Two rankers score the prompt over the same compiled catalog: the router ([`super::router`])
//! and BM25F computed from the compiled index alone ([`index_scores`]: each stem once per skill,
//! in its strongest field, per-field lengths counted over the index's terms — what the hook can
//! compute without reading a `SKILL.md`). The winner of the chosen ranking ([`Ranking`]) is named
//! when a logistic regression over seven features of it ([`features`]) reaches the threshold.
//! The weights, the standardisation and the threshold are the leave-one-catalog-out protocol's
//! final fit (`tests/it/loco.rs` recomputes it and fails when [`HOOK`] differs).

use crate::stages::skills::catalog::{Field, field_index};

/// How many features the confidence reads.
pub const FEATURES: usize = 7;

/// BM25F over the index: the field weights (name and keywords, description, body lead, body
/// prose), k1, and b as `Bm25fParams::BASELINE` has them.
pub const WEIGHTS: [f64; 4] = [3.0, 2.0, 1.5, 1.0];
pub const K1: f64 = 1.2;
pub const B: f64 = 0.75;

/// Which ranking's winner the confidence judges.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Ranking {
    /// BM25F over the index alone.
    Bm25f,
    /// Each ranker's score over its best, added (BM25F's plus the router's).
    Fused,
    /// The router's order, BM25F's breaking its ties.
    Router,
}

/// The learned confidence: what it ranks, the standardisation of the features, the logistic
/// weights (the last one the intercept) and the threshold a winner's confidence must reach;
/// `second` is the share of the winner's ranking score a second skill needs (with its own
/// confidence at the threshold) to be named too (infinity: never).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Confidence {
    pub ranking: Ranking,
    /// BM25F's length normalisation (0: none).
    pub b: f64,
    pub mean: [f64; FEATURES],
    pub sd: [f64; FEATURES],
    pub weights: [f64; FEATURES + 1],
    pub threshold: f64,
    pub second: f64,
}

impl Confidence {
    /// The probability, as fitted, that naming the skill with features `x` is right.
    pub fn of(&self, x: &[f64; FEATURES]) -> f64 {
        let z: f64 = self.weights[FEATURES]
            + (0..FEATURES)
                .map(|j| self.weights[j] * (x[j] - self.mean[j]) / self.sd[j])
                .sum::<f64>();
        1.0 / (1.0 + (-z).exp())
    }
}

/// One candidate of a prompt: its skill (an index into the router's skills), its router score
/// and its BM25F score and coverage (the share of the prompt's IDF mass it matched).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Candidate {
    pub skill: usize,
    pub router: f64,
    pub bm25f: f64,
    pub coverage: f64,
}

/// The features of candidate `top` among `cands` (every skill either ranker scored):
/// ln(1 + its BM25F score), BM25F margin over the best other, coverage, ln(1 + its router score),
/// the router margin in the same log scale, whether the router's rules select it (`selected`:
/// the index into `cands` of the skill they name), and whether it is BM25F's first.
pub fn features(cands: &[Candidate], top: usize, selected: Option<usize>) -> [f64; FEATURES] {
    let c = cands[top];
    let best_other = |f: fn(&Candidate) -> f64| {
        cands
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != top)
            .map(|(_, x)| f(x))
            .fold(0.0, f64::max)
    };
    let bm2 = best_other(|x| x.bm25f);
    let r2 = best_other(|x| x.router.max(0.0));
    let bm1 = cands.iter().map(|x| x.bm25f).fold(0.0, f64::max);
    let router = c.router.max(0.0);
    [
        c.bm25f.ln_1p(),
        if c.bm25f > 0.0 {
            (c.bm25f - bm2) / c.bm25f
        } else {
            0.0
        },
        c.coverage,
        router.ln_1p(),
        router.ln_1p() - r2.ln_1p(),
        f64::from(u8::from(selected == Some(top))),
        f64::from(u8::from(c.bm25f > 0.0 && c.bm25f >= bm1)),
    ]
}

/// The ranking score of each candidate under `ranking` (higher first).
pub fn ranking_scores(cands: &[Candidate], ranking: Ranking) -> Vec<f64> {
    let bm1 = cands.iter().map(|x| x.bm25f).fold(0.0, f64::max);
    let r1 = cands.iter().map(|x| x.router).fold(0.0, f64::max);
    let norm = |v: f64, top: f64| if top > 0.0 { v / top } else { 0.0 };
    cands
        .iter()
        .map(|c| match ranking {
            Ranking::Bm25f => c.bm25f,
            Ranking::Fused => norm(c.bm25f, bm1) + norm(c.router.max(0.0), r1),
            // The router's normalised score far above BM25F's, which only breaks its ties.
            Ranking::Router => 1000.0 * norm(c.router.max(0.0), r1) + norm(c.bm25f, bm1),
        })
        .collect()
}

/// The candidates `rank` scores above zero, best first, ties by `id` (the skill's id): the one
/// order the hook names from and the protocol counts by.
pub fn ranking_order<'a>(rank: &[f64], id: impl Fn(usize) -> &'a str) -> Vec<usize> {
    let mut order: Vec<usize> = (0..rank.len()).filter(|&i| rank[i] > 0.0).collect();
    order.sort_by(|&a, &b| rank[b].total_cmp(&rank[a]).then_with(|| id(a).cmp(id(b))));
    order
}

/// The catalog-wide figures BM25F over the index needs: the skill count and the mean of each
/// field length (at least 1).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct IndexTotals {
    pub skills: usize,
    pub means: [f64; 4],
}

impl IndexTotals {
    /// From the sums of the field lengths over `skills` skills.
    pub fn new(skills: usize, sums: [usize; 4]) -> IndexTotals {
        let mut means = [1.0; 4];
        for (m, s) in means.iter_mut().zip(sums) {
            if skills > 0 {
                *m = (s as f64 / skills as f64).max(1.0);
            }
        }
        IndexTotals { skills, means }
    }
}

/// BM25F over the index for the distinct prompt stems `query`: (skill, score, coverage) of every
/// skill that matched one. `postings(stem)` gives the (skill, field) of each single-word term
/// whose stem is `stem` (every skill of the catalog that has it: the document frequency is
/// exact on a catalog decoded for one prompt); `lengths` each skill's field lengths.
pub fn index_scores(
    query: &[&str],
    postings: impl Fn(&str) -> Vec<(usize, Field)>,
    lengths: &[[usize; 4]],
    totals: IndexTotals,
    b: f64,
) -> Vec<(usize, f64, f64)> {
    let n = totals.skills as f64;
    let mut mass = 0.0;
    // (skill, score, matched IDF)
    let mut out: Vec<(usize, f64, f64)> = Vec::new();
    for q in query {
        // Per skill its strongest field.
        let mut hits: Vec<(usize, usize)> = Vec::new();
        for (si, field) in postings(q) {
            let Some(f) = field_index(field) else {
                continue;
            };
            match hits.iter_mut().find(|h| h.0 == si) {
                Some(h) => h.1 = h.1.min(f),
                None => hits.push((si, f)),
            }
        }
        if hits.is_empty() {
            continue;
        }
        let df = hits.len() as f64;
        let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
        mass += idf;
        for (si, f) in hits {
            let len = lengths[si][f] as f64;
            let tf = WEIGHTS[f] / (1.0 - b + b * len / totals.means[f]);
            let add = idf * tf * (K1 + 1.0) / (K1 + tf);
            match out.iter_mut().find(|o| o.0 == si) {
                Some(o) => {
                    o.1 += add;
                    o.2 += idf;
                }
                None => out.push((si, add, idf)),
            }
        }
    }
    for o in &mut out {
        o.2 = if mass > 0.0 { o.2 / mass } else { 0.0 };
    }
    out
}

/// The hook's confidence: the protocol's final fit over the sixteen labelled catalogs
/// (`tests/it/loco.rs`, `the_hook_confidence_is_the_protocol_fit`).
///
/// The fused ranking (each ranker's score over its best, added) with BM25F's length
/// normalisation (b = 0.75, the compiled index's header carries the mean field lengths since
/// schema 8): of the variants whose pooled held-out named precision reached 0.90, the one with
/// the highest recall (named) (docs/skills.md, "Leave one catalog out"). No second name: under
/// the protocol it lowered named precision.
pub const HOOK: Confidence = Confidence {
    ranking: Ranking::Fused,
    b: B,
    mean: [
        2.0333028306689918,
        0.3175889632094695,
        0.6658460803305932,
        1.413743589194599,
        0.38102386548864414,
        0.5037098103874691,
        0.8474855729596042,
    ],
    sd: [
        0.6871321574050248,
        0.3248050932964857,
        0.2709324572723925,
        0.5234359116316983,
        0.38915988928274514,
        0.4999862371174759,
        0.35951881256053,
    ],
    weights: [
        0.424977523255558,
        0.30493875290547034,
        -0.025613453930761036,
        1.4969774473177142,
        0.9101406517702474,
        0.09857842003654661,
        -0.011380807559734897,
        0.8786213940801749,
    ],
    threshold: 0.625,
    second: f64::INFINITY,
};

#[cfg(test)]
mod tests {
    use super::*;

    fn cand(skill: usize, router: f64, bm25f: f64) -> Candidate {
        Candidate {
            skill,
            router,
            bm25f,
            coverage: 0.5,
        }
    }

    #[test]
    fn features_of_the_winner_against_the_best_other() {
        // Skill numbers are not positions: `selected` is a position.
        let cands = [cand(5, 6.0, 4.0), cand(3, 2.0, 3.0), cand(9, 0.0, 1.0)];
        let x = features(&cands, 0, Some(0));
        assert!((x[0] - 5f64.ln()).abs() < 1e-12);
        assert!((x[1] - 0.25).abs() < 1e-12);
        assert_eq!(x[2], 0.5);
        assert!((x[3] - 7f64.ln()).abs() < 1e-12);
        assert!((x[4] - (7f64.ln() - 3f64.ln())).abs() < 1e-12);
        assert_eq!((x[5], x[6]), (1.0, 1.0));
        let y = features(&cands, 1, Some(0));
        assert!((y[1] - (3.0 - 4.0) / 3.0).abs() < 1e-12);
        assert_eq!((y[5], y[6]), (0.0, 0.0));
    }

    #[test]
    fn the_ranking_order_is_score_then_id_and_only_positive_scores() {
        // Ids deliberately out of position order; a tie, a zero, a negative and a NaN.
        let ids = ["delta", "alpha", "charlie", "bravo", "echo", "foxtrot"];
        let rank = [2.0, 0.0, 3.0, 2.0, -1.0, f64::NAN];
        assert_eq!(ranking_order(&rank, |i| ids[i]), [2, 3, 0]);
        // Every permutation of the same scores gives the same ids in the same order.
        let scored = [(1.5, "b"), (1.5, "a"), (0.5, "c"), (0.0, "d")];
        for perm in [[0, 1, 2, 3], [3, 2, 1, 0], [2, 0, 3, 1], [1, 3, 0, 2]] {
            let rank: Vec<f64> = perm.iter().map(|&p| scored[p].0).collect();
            let order = ranking_order(&rank, |i| scored[perm[i]].1);
            let got: Vec<&str> = order.iter().map(|&i| scored[perm[i]].1).collect();
            assert_eq!(got, ["a", "b", "c"], "{perm:?}");
        }
        assert!(ranking_order(&[], |_| "").is_empty());
    }

    #[test]
    fn the_rankings_order_the_candidates() {
        let cands = [cand(0, 6.0, 3.0), cand(1, 2.0, 4.0)];
        let order = |r| {
            let s = ranking_scores(&cands, r);
            s[0] > s[1]
        };
        assert!(!order(Ranking::Bm25f));
        assert!(order(Ranking::Router));
        // 1 + 0.75 against 2/6 + 1.
        assert!(order(Ranking::Fused));
    }

    #[test]
    fn index_bm25f_counts_a_stem_once_in_its_strongest_field() {
        // Skill 0 has "sql" in its name and description; skill 1 in its body only.
        let postings = |q: &str| match q {
            "sql" => vec![(0, Field::Description), (0, Field::Name), (1, Field::Body)],
            _ => Vec::new(),
        };
        let lengths = [[2, 4, 0, 0], [1, 4, 3, 10]];
        let totals = IndexTotals::new(4, [4, 8, 3, 10]);
        let out = index_scores(&["sql", "nothing"], postings, &lengths, totals, 0.0);
        let idf = (1.0 + (4.0 - 2.0 + 0.5) / 2.5f64).ln();
        let sat = |tf: f64| idf * tf * (K1 + 1.0) / (K1 + tf);
        assert_eq!(out.len(), 2);
        assert!((out[0].1 - sat(3.0)).abs() < 1e-12, "{out:?}");
        assert!((out[1].1 - sat(1.0)).abs() < 1e-12);
        // Every skill matched the one known word of the prompt.
        assert_eq!((out[0].2, out[1].2), (1.0, 1.0));
        // Length normalisation: a name longer than the mean weighs less.
        let normed = index_scores(&["sql"], postings, &lengths, totals, 1.0);
        assert!((normed[0].1 - sat(3.0 / 2.0)).abs() < 1e-12);
    }

    #[test]
    fn the_logistic_is_monotone_in_a_positive_weight() {
        let mut c = HOOK;
        c.mean = [0.0; FEATURES];
        c.sd = [1.0; FEATURES];
        c.weights = [1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0];
        let low = c.of(&[0.0; FEATURES]);
        let high = c.of(&[1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]);
        assert!((low - 0.5).abs() < 1e-12 && high > low);
    }
}
