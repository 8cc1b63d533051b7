//! Plain BM25 over each skill's name and description: the trivial answer every router figure
//! is read against (`eval` prints it as the baseline row). Not used by the hook. Pure.
//!
//! Each skill is one document: its name split on `-`/`_`, then its description, tokenised like
//! the router (folded, stop words dropped, stemmed). BM25 with k1 = 1.2, b = 0.75 and the
//! Lucene IDF `ln(1 + (N − df + 0.5) / (df + 0.5))`, each distinct prompt term counted once. The
//! abstain rule: the top skill is selected when its score is positive and strictly above the
//! second one's (a tie abstains); nothing else is selected.

use std::collections::HashMap;

use crate::skills::catalog::SkillDef;
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
        let mut query = terms(routing_window(prompt));
        query.sort();
        query.dedup();
        let mut out: Vec<(f64, &str)> = self
            .ids
            .iter()
            .enumerate()
            .map(|(i, id)| {
                let norm = K1 * (1.0 - B + B * self.len[i] / self.avg_len);
                let score = query
                    .iter()
                    .filter_map(|q| {
                        let f = f64::from(*self.tf[i].get(q)?);
                        Some(self.idf[q] * f * (K1 + 1.0) / (f + norm))
                    })
                    .sum();
                (score, id.as_str())
            })
            .collect();
        out.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(b.1)));
        out
    }

    /// The selected skill, by the abstain rule above.
    pub fn select(&self, prompt: &str) -> Option<&str> {
        let scores = self.scores(prompt);
        let (top, id) = *scores.first()?;
        let second = scores.get(1).map_or(0.0, |s| s.0);
        (top > 0.0 && top > second).then_some(id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::skills::catalog::Scope;

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
