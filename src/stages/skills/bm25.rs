//! Plain BM25 over each skill's name and description: the trivial answer every router figure
//! is read against (`eval` prints it as the baseline row). Not used by the hook. Pure.
//!
//! Each skill is one document: its name split on `-`/`_`, then its description, tokenised like
//! the router (folded, stop words dropped, stemmed). BM25 with k1 = 1.2, b = 0.75 and the
//! Lucene IDF `ln(1 + (N − df + 0.5) / (df + 0.5))`, each distinct prompt term counted once. The
//! abstain rule: the top skill is selected when its score is positive and strictly above the
//! second one's (a tie abstains); nothing else is selected.

use std::collections::HashMap;

use crate::stages::skills::catalog::SkillDef;
use crate::text::{routing_window, terms};

const K1: f64 = 1.2;
const B: f64 = 0.75;

pub struct Bm25 {
    ids: Vec<String>,
    /// Term frequencies per document.
    tf: Vec<HashMap<String, u32>>,
    len: Vec<f64>,
    idf: HashMap<String, f64>,
    avg_len: f64,
}

impl Bm25 {
    pub fn new(defs: &[SkillDef]) -> Bm25 {
        let mut ids = Vec::new();
        let mut tf = Vec::new();
        let mut len = Vec::new();
        let mut df: HashMap<String, usize> = HashMap::new();
        for d in defs {
            let mut doc: HashMap<String, u32> = HashMap::new();
            let words = terms(&d.id.replace(['-', '_'], " "))
                .into_iter()
                .chain(terms(&d.description));
            let mut n = 0;
            for w in words {
                *doc.entry(w).or_default() += 1;
                n += 1;
            }
            for w in doc.keys() {
                *df.entry(w.clone()).or_default() += 1;
            }
            ids.push(d.id.clone());
            tf.push(doc);
            len.push(f64::from(n));
        }
        let total = defs.len() as f64;
        let avg_len = if defs.is_empty() {
            1.0
        } else {
            len.iter().sum::<f64>() / total
        };
        let idf = df
            .into_iter()
            .map(|(w, n)| {
                let n = n as f64;
                (w, (1.0 + (total - n + 0.5) / (n + 0.5)).ln())
            })
            .collect();
        Bm25 {
            ids,
            tf,
            len,
            idf,
            avg_len: avg_len.max(1.0),
        }
    }

    /// Every skill's score for `prompt`, best first (ties by id).
    pub fn scores(&self, prompt: &str) -> Vec<(f64, &str)> {
        let query = distinct(terms(routing_window(prompt)));
        ranked(&self.ids, |i| {
            let norm = K1 * (1.0 - B + B * self.len[i] / self.avg_len);
            query
                .iter()
                .filter_map(|q| {
                    let f = f64::from(*self.tf[i].get(q)?);
                    Some(self.idf[q] * f * (K1 + 1.0) / (f + norm))
                })
                .sum()
        })
    }

    /// The selected skill, by the abstain rule above.
    pub fn select(&self, prompt: &str) -> Option<&str> {
        select_top(&self.scores(prompt))
    }
}

/// BM25F over a skill's name, description and `SKILL.md` body (the body's headings and
/// when-to-use/examples lines as their own field, [`crate::stages::skills::body::split_body`]): each
/// field's term frequency is length-normalised against that field's mean length and weighted,
/// the sum goes through BM25's saturation once (Robertson and Zaragoza's simple BM25F):
///
/// `tf~ = Σ_f w_f · tf_f / (1 − b + b · len_f / mean_f)`, `score = Σ_q idf(q) · tf~ (k1 + 1) / (k1 + tf~)`
///
/// with the Lucene IDF over skills (a word in any field of a skill counts once). The
/// baseline `eval` reports, and the second ranker of the leave-one-catalog-out harness.
pub struct Bm25f {
    ids: Vec<String>,
    /// Per skill, per field: term frequencies, and the field's length.
    fields: Vec<[HashMap<String, u32>; FIELDS]>,
    lengths: Vec<[f64; FIELDS]>,
    means: [f64; FIELDS],
    idf: HashMap<String, f64>,
    params: Bm25fParams,
    tokenize: fn(&str) -> Vec<String>,
}

/// Name, description, body emphasis, body prose.
const FIELDS: usize = 4;

/// The weights and constants of [`Bm25f`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bm25fParams {
    /// Weights of the name, description, body emphasis and body prose.
    pub weights: [f64; FIELDS],
    pub k1: f64,
    pub b: f64,
}

impl Bm25fParams {
    /// The baseline: the name counts three times a body word, the description twice, the
    /// body's when-to-use lines one and a half; k1 = 1.2, b = 0.75 (Lucene's).
    pub const BASELINE: Bm25fParams = Bm25fParams {
        weights: [3.0, 2.0, 1.5, 1.0],
        k1: K1,
        b: B,
    };
}

impl Bm25f {
    /// `docs` pairs each definition with its `SKILL.md` body (empty when there is none).
    pub fn new(docs: &[(SkillDef, String)], params: Bm25fParams) -> Bm25f {
        Bm25f::with_tokenizer(docs, params, terms)
    }

    /// [`Bm25f::new`] with another tokenizer than [`terms`] for the skills and the prompts (the
    /// stemmer comparison of `tests/it/loco.rs`).
    pub fn with_tokenizer(
        docs: &[(SkillDef, String)],
        params: Bm25fParams,
        tokenize: fn(&str) -> Vec<String>,
    ) -> Bm25f {
        let mut df: HashMap<String, usize> = HashMap::new();
        let mut fields = Vec::new();
        let mut lengths = Vec::new();
        let mut ids = Vec::new();
        for (def, body) in docs {
            let split = crate::stages::skills::body::split_body(body);
            let texts = [
                def.id.replace(['-', '_'], " "),
                def.description.clone(),
                split.emphasis,
                split.prose,
            ];
            let mut tf: [HashMap<String, u32>; FIELDS] = Default::default();
            let mut len = [0.0; FIELDS];
            for (f, text) in texts.iter().enumerate() {
                for w in tokenize(text) {
                    *tf[f].entry(w).or_default() += 1;
                    len[f] += 1.0;
                }
            }
            let mut seen: Vec<&String> = tf.iter().flat_map(HashMap::keys).collect();
            seen.sort();
            seen.dedup();
            for w in seen {
                *df.entry(w.clone()).or_default() += 1;
            }
            ids.push(def.id.clone());
            fields.push(tf);
            lengths.push(len);
        }
        let total = docs.len() as f64;
        let mut means = [1.0; FIELDS];
        for (f, mean) in means.iter_mut().enumerate() {
            if !lengths.is_empty() {
                *mean = (lengths.iter().map(|l| l[f]).sum::<f64>() / total).max(1.0);
            }
        }
        let idf = df
            .into_iter()
            .map(|(w, n)| {
                let n = n as f64;
                (w, (1.0 + (total - n + 0.5) / (n + 0.5)).ln())
            })
            .collect();
        Bm25f {
            ids,
            fields,
            lengths,
            means,
            idf,
            params,
            tokenize,
        }
    }

    /// Every skill's score for `prompt`, best first (ties by id).
    pub fn scores(&self, prompt: &str) -> Vec<(f64, &str)> {
        let query = distinct((self.tokenize)(routing_window(prompt)));
        let Bm25fParams { weights, k1, b } = self.params;
        ranked(&self.ids, |i| {
            query
                .iter()
                .filter_map(|q| {
                    let idf = *self.idf.get(q)?;
                    let tf: f64 = (0..FIELDS)
                        .map(|f| {
                            let n = f64::from(self.fields[i][f].get(q).copied().unwrap_or(0));
                            let norm = 1.0 - b + b * self.lengths[i][f] / self.means[f];
                            weights[f] * n / norm
                        })
                        .sum();
                    (tf > 0.0).then(|| idf * tf * (k1 + 1.0) / (k1 + tf))
                })
                .sum()
        })
    }

    /// The top skill when its score is positive and strictly above the second one's (a tie
    /// abstains), as [`Bm25::select`].
    pub fn select(&self, prompt: &str) -> Option<&str> {
        select_top(&self.scores(prompt))
    }

    /// The distinct prompt terms the catalog knows, with their IDF, and how many of them skill
    /// `id` holds in any field: the inputs of a coverage-based confidence.
    pub fn coverage(&self, prompt: &str, id: &str) -> (usize, usize, f64, f64) {
        let query = distinct((self.tokenize)(routing_window(prompt)));
        let i = self.ids.iter().position(|s| s == id);
        let (mut known, mut matched, mut mass, mut matched_mass) = (0, 0, 0.0, 0.0);
        for q in &query {
            let Some(idf) = self.idf.get(q) else { continue };
            known += 1;
            mass += idf;
            if i.is_some_and(|i| self.fields[i].iter().any(|f| f.contains_key(q))) {
                matched += 1;
                matched_mass += idf;
            }
        }
        (matched, known, matched_mass, mass)
    }
}

/// The prompt's terms, each once, in order (a term counts once however often it is written).
fn distinct(mut terms: Vec<String>) -> Vec<String> {
    terms.sort();
    terms.dedup();
    terms
}

/// Every skill with its score, best first, equal scores in id order.
fn ranked(ids: &[String], score: impl Fn(usize) -> f64) -> Vec<(f64, &str)> {
    let mut out: Vec<(f64, &str)> = ids
        .iter()
        .enumerate()
        .map(|(i, id)| (score(i), id.as_str()))
        .collect();
    out.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(b.1)));
    out
}

/// The abstain rule both scorers share: the top skill when its score is positive and strictly
/// above the second one's (a tie abstains).
fn select_top<'a>(scores: &[(f64, &'a str)]) -> Option<&'a str> {
    let (top, id) = *scores.first()?;
    let second = scores.get(1).map_or(0.0, |s| s.0);
    (top > 0.0 && top > second).then_some(id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stages::skills::catalog::Scope;

    fn def(id: &str, description: &str) -> SkillDef {
        SkillDef {
            id: id.into(),
            description: description.into(),
            keywords: vec![],
            not_for: vec![],
            phases: vec![],
            scope: Scope::Specialist,
        }
    }

    /// BM25F worked out by hand: two skills, `zebra` (description "lion", body prose "zebra
    /// zebra") and `tiger` (description "lion tiger", no body). Lengths: names 1 and 1,
    /// descriptions 1 and 2 (mean 1.5), prose 2 and 0 (mean 1). IDF ln 2 for a word of one skill,
    /// ln 1.2 for one of both. Weights [3, 2, 1.5, 1], k1 = 1.2, b = 0.75.
    #[test]
    fn bm25f_follows_its_formula() {
        let docs = vec![
            (def("zebra", "lion"), "zebra zebra\n".to_owned()),
            (def("tiger", "lion tiger"), String::new()),
        ];
        let bm = Bm25f::new(&docs, Bm25fParams::BASELINE);
        let close = |a: f64, b: f64| (a - b).abs() < 1e-9;
        let sat = |tf: f64| tf * 2.2 / (1.2 + tf);
        // zebra: name tf 1 (norm 1), prose tf 2 (norm 0.25 + 0.75 × 2/1 = 1.75).
        let zebra_tf = 3.0 + 2.0 / 1.75;
        let s = bm.scores("zebra");
        assert_eq!(s[0].1, "zebra");
        assert!(close(s[0].0, 2f64.ln() * sat(zebra_tf)), "{s:?}");
        assert_eq!(s[1], (0.0, "tiger"));
        // lion: description norms 0.25 + 0.75 × 1/1.5 = 0.75 and 0.25 + 0.75 × 2/1.5 = 1.25.
        let s = bm.scores("lion");
        assert_eq!(s[0].1, "zebra", "the shorter description ranks first");
        assert!(close(s[0].0, 1.2f64.ln() * sat(2.0 / 0.75)), "{s:?}");
        assert!(close(s[1].0, 1.2f64.ln() * sat(2.0 / 1.25)), "{s:?}");
        // tiger: name tf 1 plus description tf 1 (norm 1.25).
        let s = bm.scores("tiger");
        assert!(close(s[0].0, 2f64.ln() * sat(3.0 + 2.0 / 1.25)), "{s:?}");
        assert_eq!(bm.select("tiger"), Some("tiger"));
        assert_eq!(bm.select("elephant"), None);
        let twins = Bm25f::new(
            &[
                (def("a", "lion"), String::new()),
                (def("b", "lion"), String::new()),
            ],
            Bm25fParams::BASELINE,
        );
        assert_eq!(twins.select("lion"), None, "a tie abstains");
        assert_eq!(Bm25f::new(&[], Bm25fParams::BASELINE).select("lion"), None);
    }

    /// Coverage on the two skills of `bm25f_follows_its_formula`: `elephant` is in no skill, so
    /// the prompt's known terms are `zebra` (IDF ln 2) and `lion` (ln 1.2).
    #[test]
    fn coverage_counts_the_known_prompt_terms_a_skill_holds() {
        let docs = vec![
            (def("zebra", "lion"), "zebra zebra\n".to_owned()),
            (def("tiger", "lion tiger"), String::new()),
        ];
        let bm = Bm25f::new(&docs, Bm25fParams::BASELINE);
        let close = |a: f64, b: f64| (a - b).abs() < 1e-9;
        let mass = 2f64.ln() + 1.2f64.ln();
        let (matched, known, m, total) = bm.coverage("zebra lion elephant", "zebra");
        assert_eq!((matched, known), (2, 2));
        assert!(close(m, mass) && close(total, mass));
        let (matched, known, m, _) = bm.coverage("zebra lion elephant", "tiger");
        assert_eq!((matched, known), (1, 2));
        assert!(close(m, 1.2f64.ln()));
        assert_eq!(bm.coverage("elephant", "zebra"), (0, 0, 0.0, 0.0));
        assert_eq!(bm.coverage("zebra", "nobody").0, 0);
    }

    /// Another tokenizer is used for the skills and the prompts alike.
    #[test]
    fn bm25f_uses_the_tokenizer_it_is_given() {
        fn first_three(text: &str) -> Vec<String> {
            terms(text)
                .into_iter()
                .map(|t| t.chars().take(3).collect())
                .collect()
        }
        let docs = vec![
            (def("zebra", "striped horse"), String::new()),
            (def("tiger", "striped cat"), String::new()),
        ];
        let plain = Bm25f::new(&docs, Bm25fParams::BASELINE);
        let cut = Bm25f::with_tokenizer(&docs, Bm25fParams::BASELINE, first_three);
        assert_eq!(plain.select("horseback"), None);
        assert_eq!(cut.select("horseback"), Some("zebra"));
        assert_eq!(cut.select("catalogue"), Some("tiger"));
    }

    #[test]
    fn rare_words_win_and_ties_abstain() {
        let bm = Bm25::new(&[
            def("pdf-tools", "Extract text and tables from PDF files"),
            def("sheet-tools", "Edit spreadsheet files and tables"),
            def("slides", "Build slide decks"),
        ]);
        assert_eq!(bm.select("extract the text of this pdf"), Some("pdf-tools"));
        assert_eq!(
            bm.select("add a column to the spreadsheet"),
            Some("sheet-tools")
        );
        assert_eq!(bm.select("ciao, come stai?"), None);
        let scores = bm.scores("pdf");
        assert!(scores[0].0 > 0.0 && scores[1].0 == 0.0);
        let twins = Bm25::new(&[def("alpha", "shared report"), def("gamma", "shared report")]);
        assert_eq!(twins.select("a shared report"), None, "a tie abstains");
    }

    /// Scores worked out by hand from the formula of the module doc. Two documents:
    /// `zebra` = {zebra: 2, lion: 1} (length 3), `tiger` = {tiger: 1, lion: 1} (length 2);
    /// N = 2, mean length 2.5; IDF ln 2 for a word of one document, ln 1.2 for one of both.
    #[test]
    fn scores_follow_the_bm25_formula() {
        let bm = Bm25::new(&[def("zebra", "zebra lion"), def("tiger", "lion")]);
        let close = |a: f64, b: f64| (a - b).abs() < 1e-9;
        // norm = k1 (1 − b + b·len/avg): 1.2 × (0.25 + 0.75 × 3/2.5) = 1.38 and
        // 1.2 × (0.25 + 0.75 × 2/2.5) = 1.02.
        let zebra = bm.scores("zebra");
        assert_eq!(zebra[0].1, "zebra");
        assert!(close(zebra[0].0, 2f64.ln() * 2.0 * 2.2 / 3.38), "{zebra:?}");
        assert_eq!(zebra[1], (0.0, "tiger"));
        let lion = bm.scores("lion");
        assert_eq!(lion[0].1, "tiger", "the shorter document ranks first");
        assert!(close(lion[0].0, 1.2f64.ln() * 2.2 / 2.02), "{lion:?}");
        assert!(close(lion[1].0, 1.2f64.ln() * 2.2 / 2.38), "{lion:?}");
        // A prompt term counts once however often it is written; the scores add up per term.
        let both = bm.scores("lion zebra lion zebra");
        assert!(
            close(both[0].0, 2f64.ln() * 4.4 / 3.38 + 1.2f64.ln() * 2.2 / 2.38),
            "{both:?}"
        );
        assert_eq!(bm.select("lion"), Some("tiger"));
        assert_eq!(bm.select("zebra lion"), Some("zebra"));
        // Equal scores list in id order.
        let twins = Bm25::new(&[def("beta", "lion"), def("alpha", "lion")]);
        let ids: Vec<&str> = twins.scores("lion").iter().map(|s| s.1).collect();
        assert_eq!(ids, ["alpha", "beta"]);
        // One skill: selected on any match (the runner-up counts as 0), never on none.
        let one = Bm25::new(&[def("zebra", "lion")]);
        assert_eq!(one.select("lion"), Some("zebra"));
        assert_eq!(one.select("tiger"), None);
        assert_eq!(Bm25::new(&[]).select("lion"), None);
    }
}
