//! The skill router: scores the stripped prompt against a compiled catalog and selects at most
//! two skills. The matcher (an inverted index from first stem to terms) is built once per
//! catalog and reused for every prompt. Deterministic: ties break on the skill id. Pure.

use std::collections::HashMap;

use crate::skills::catalog::{CompiledCatalog, CompiledSkill, Field, Posting, Scope, postings};
use crate::skills::{SkillMatch, SkillRouting};
use crate::text::{routing_window, terms};

/// A skill needs at least this score to be selected: one keyword, or a name word and two
/// description words. Description words alone never select a skill. A second skill is selected
/// only when it also reaches 40% of the first one's score.
pub const THRESHOLD: i32 = 5;
const KEYWORD: i32 = 5;
const KEYWORD_PHRASE: i32 = 7;
const NAME: i32 = 3;
const DESCRIPTION: i32 = 1;
const DESCRIPTION_CAP: i32 = 3;
const NOT_FOR: i32 = -8;
/// Bonus per extra specialist domain for a multi-source or multi-phase skill.
const SCOPE_BONUS: i32 = 4;
/// How many runners-up `explain` shows.
const RUNNERS_UP: usize = 3;

pub struct SkillRouter {
    skills: Vec<CompiledSkill>,
    /// (first stem, skill, term), sorted by stem; looked up by binary search.
    postings: Vec<Posting>,
}

impl SkillRouter {
    /// Builds the matcher; takes the catalog by value so its terms are not copied. A compiled
    /// index carries its sorted postings; a catalog without them gets them computed here.
    pub fn new(catalog: CompiledCatalog) -> SkillRouter {
        let postings = if catalog.postings.is_empty() {
            postings(&catalog.skills)
        } else {
            catalog.postings
        };
        SkillRouter {
            skills: catalog.skills,
            postings,
        }
    }

    /// The postings whose first stem is `stem`.
    fn postings_for(&self, stem: &str) -> &[Posting] {
        let start = self.postings.partition_point(|p| p.0.as_ref() < stem);
        let len = self.postings[start..].partition_point(|p| p.0.as_ref() == stem);
        &self.postings[start..start + len]
    }

    pub fn len(&self) -> usize {
        self.skills.len()
    }

    pub fn is_empty(&self) -> bool {
        self.skills.is_empty()
    }

    pub fn skill(&self, id: &str) -> Option<&CompiledSkill> {
        self.skills.iter().find(|s| s.id == id)
    }

    /// Scores `stripped` and selects at most two skills.
    pub fn route(&self, stripped: &str) -> SkillRouting {
        let text = routing_window(stripped);
        let prompt = terms(text);
        // Matched terms per skill, deduplicated.
        let mut hits: HashMap<u32, Vec<u32>> = HashMap::new();
        for (i, stem) in prompt.iter().enumerate() {
            for &Posting(_, si, ti) in self.postings_for(stem) {
                let term = &self.skills[si as usize].terms[ti as usize];
                let matches = term
                    .stems()
                    .skip(1)
                    .enumerate()
                    .all(|(j, part)| prompt.get(i + 1 + j).is_some_and(|p| p == part));
                if matches {
                    let entry = hits.entry(si).or_default();
                    if !entry.contains(&ti) {
                        entry.push(ti);
                    }
                }
            }
        }
        let mut scored: Vec<(i32, usize, Vec<String>)> = hits
            .into_iter()
            .map(|(si, tis)| {
                let skill = &self.skills[si as usize];
                let (score, reasons) = base_score(skill, &tis);
                (score, si as usize, reasons)
            })
            .collect();
        let specialists = scored
            .iter()
            .filter(|(s, si, _)| *s >= THRESHOLD && self.skills[*si].scope == Scope::Specialist)
            .count() as i32;
        if specialists >= 2 {
            for (score, si, reasons) in &mut scored {
                let scope = self.skills[*si].scope;
                let own_keyword = reasons.iter().any(|r| r.starts_with("keyword:"));
                if scope != Scope::Specialist && own_keyword {
                    let bonus = SCOPE_BONUS * (specialists - 1);
                    *score += bonus;
                    reasons.push(format!("{}-bonus:+{bonus}", scope_label(scope)));
                }
            }
        }
        scored.sort_by(|a, b| {
            b.0.cmp(&a.0)
                .then_with(|| self.skills[a.1].id.cmp(&self.skills[b.1].id))
        });
        let mut routing = SkillRouting::default();
        let top = scored.first().map(|s| s.0).unwrap_or(0);
        for (score, si, reasons) in scored {
            let m = SkillMatch {
                skill_id: self.skills[si].id.clone(),
                score: score.max(0) as u32,
                reasons,
                source: Some(self.skills[si].source.clone()).filter(|s| !s.is_empty()),
            };
            let selectable = score >= THRESHOLD && score * 5 >= top * 2;
            if selectable && routing.selected.len() < 2 {
                routing.selected.push(m);
            } else if score > 0 && routing.runners_up.len() < RUNNERS_UP {
                routing.runners_up.push(m);
            }
        }
        routing
    }
}

fn base_score(skill: &CompiledSkill, term_indexes: &[u32]) -> (i32, Vec<String>) {
    let mut tis = term_indexes.to_vec();
    tis.sort_unstable();
    let mut score = 0;
    let mut description = 0;
    let mut reasons = Vec::new();
    for ti in tis {
        let term = &skill.terms[ti as usize];
        let weight = match term.field {
            Field::Keyword if term.is_phrase() => KEYWORD_PHRASE,
            Field::Keyword => KEYWORD,
            Field::Name => NAME,
            Field::Description => {
                if description >= DESCRIPTION_CAP {
                    continue;
                }
                description += DESCRIPTION;
                DESCRIPTION
            }
            Field::NotFor => NOT_FOR,
        };
        score += weight;
        reasons.push(format!("{}:{}", term.field.label(), term.label));
    }
    (score, reasons)
}

fn scope_label(scope: Scope) -> &'static str {
    match scope {
        Scope::Specialist => "specialist",
        Scope::MultiSource => "multi-source",
        Scope::MultiPhase => "multi-phase",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::skills::catalog::{SkillDef, compile};

    fn def(id: &str, keywords: &[&str], not_for: &[&str], scope: Scope) -> SkillDef {
        SkillDef {
            id: id.into(),
            description: format!("The {id} skill"),
            keywords: keywords.iter().map(|k| k.to_string()).collect(),
            not_for: not_for.iter().map(|k| k.to_string()).collect(),
            phases: vec![],
            scope,
        }
    }

    fn router() -> SkillRouter {
        let defs = vec![
            def(
                "db",
                &["sql", "query plan", "tabella"],
                &["excel"],
                Scope::Specialist,
            ),
            def("office", &["excel", "pdf"], &[], Scope::Specialist),
            def("tickets", &["ticket", "mantis"], &[], Scope::Specialist),
            def("analyst", &["analizza", "causa"], &[], Scope::MultiSource),
            def("zeta", &["sql"], &[], Scope::Specialist),
        ];
        SkillRouter::new(compile(&defs, "fp".into(), vec![]))
    }

    fn selected(r: &SkillRouting) -> Vec<&str> {
        r.selected_ids().collect()
    }

    #[test]
    fn keywords_phrases_and_inflections() {
        let r = router();
        let got = r.route("mostrami il query plan delle tabelle");
        assert_eq!(got.selected[0].skill_id, "db");
        assert!(
            got.selected[0]
                .reasons
                .contains(&"keyword:query plan".to_string())
        );
        assert!(
            got.selected[0]
                .reasons
                .contains(&"keyword:tabella".to_string())
        );
        assert_eq!(got.selected[0].score, 12);
    }

    #[test]
    fn nothing_below_the_threshold() {
        let r = router();
        assert!(r.route("ciao, come stai?").selected.is_empty());
        assert!(r.route("").selected.is_empty());
        assert!(
            r.route("the skill").selected.is_empty(),
            "description words alone never select"
        );
    }

    #[test]
    fn ties_break_on_id_and_at_most_two() {
        let r = router();
        let got = r.route("sql ticket excel");
        assert_eq!(selected(&got).len(), 2);
        // db has sql (+5) and not-for excel (-8); office, tickets and zeta tie at 5.
        assert_eq!(selected(&got), ["office", "tickets"]);
        assert_eq!(got.runners_up[0].skill_id, "zeta");
    }

    #[test]
    fn negative_keywords_push_down() {
        let r = router();
        let got = r.route("esporta la tabella sql in excel");
        assert_eq!(got.selected[0].skill_id, "office");
        assert!(!selected(&got).contains(&"db") || got.selected[1].skill_id == "db");
    }

    #[test]
    fn multi_source_analysis_takes_precedence() {
        let r = router();
        let got = r.route("analizza il ticket mantis e la tabella sql per trovare la causa");
        assert_eq!(got.selected[0].skill_id, "analyst", "{got:?}");
        assert!(
            got.selected[0]
                .reasons
                .iter()
                .any(|r| r.starts_with("multi-source-bonus"))
        );
        let single = r.route("analizza la tabella sql");
        assert_ne!(single.selected[0].skill_id, "analyst");
    }
}
