//! The skill router: scores the stripped prompt against a compiled catalog and selects at most
//! two skills. Two kinds of evidence add up:
//!
//! - the optional hand-written `keywords` (+5, a phrase +7) and `not_for` (−8) of a skill;
//! - its name and description, which every `SKILL.md` has: BM25 with the IDF of each word over
//!   the catalog (a word few skills share says more), name words weighted above description
//!   words, a description's "Do NOT use for…" words as negative evidence, and a general
//!   bilingual vocabulary (`vocab`) so Italian words and file extensions meet English
//!   descriptions.
//!
//! It abstains when the top skill's evidence is too weak to name it: below its threshold, a tie
//! on weak evidence, or one word that another skill shares and scores nearly as well on
//! ([`ambiguous`]).
//!
//! The matcher (an inverted index from first stem to terms) is built once per catalog and reused
//! for every prompt. Deterministic: ties break on the skill id. Pure.

use std::collections::HashMap;
use std::sync::OnceLock;

use crate::stages::skills::catalog::{
    CompiledCatalog, CompiledSkill, Field, IndexView, Posting, Scope, bm25_length, field_lengths,
    field_sums, postings, skill_folder,
};
use crate::stages::skills::confidence::{
    self, Candidate, Confidence, IndexTotals, ranking_order, ranking_scores,
};
use crate::stages::skills::mention;
use crate::stages::skills::topics;
use crate::stages::skills::vocab::expansions;
use crate::stages::skills::{SkillMatch, SkillRouting};
use crate::text::{fold, routing_window, routing_words, stem};

/// A skill that has hand-written `keywords` needs at least this score to be selected: one
/// keyword, or name and description words worth as much; a second one needs [`SECOND_SHARE`] of
/// the first one's score too.
pub const THRESHOLD: f64 = 5.0;
const SECOND_SHARE: f64 = 0.4;
/// A skill with only a name and a description (almost every third-party skill) needs this
/// score: a rare name word, or a rare description word of a skill of about average length
/// (1.5); one word reached only through the vocabulary (0.8 of one) is not enough alone, and
/// everyday words alone never are. A second one needs [`SECOND_SHARE_PLAIN`] of the first (a
/// tie). Chosen under the leave-one-catalog-out protocol of `tests/it/loco.rs` (docs/skills.md).
pub const THRESHOLD_PLAIN: f64 = 3.0;
/// The margin rule: below this score (weak evidence, about one word) the top skill must beat
/// the runner-up; a tie on weak evidence abstains rather than pick by id.
const WEAK: f64 = 1.5;
const SECOND_SHARE_PLAIN: f64 = 1.0;
/// The shared-word rule ([`ambiguous`]): a top skill whose evidence is one prompt word abstains
/// when another skill that matched the same word scores at least this share of it. Chosen under
/// the leave-one-catalog-out protocol of `tests/it/loco.rs` (docs/skills.md).
pub const AMBIGUOUS: f64 = f64::INFINITY;
/// The margin of calibrated abstention ([`Calibration::min_margin`]): off. Under the
/// leave-one-catalog-out protocol of `tests/it/loco.rs` letting the folds choose a margin cost
/// pooled held-out named precision (0.906 → 0.897, docs/skills.md), so it is not in the grid.
pub const MIN_MARGIN: f64 = 0.0;
/// Weights of a rare body word (IDF at its maximum; no length normalisation: a body is cut to
/// its first words anyway), chosen under the protocol of `tests/it/loco.rs`.
pub const BODY_LEAD: f64 = 1.0;
pub const BODY: f64 = 0.5;
const KEYWORD: f64 = 5.0;
const KEYWORD_PHRASE: f64 = 7.0;
const NOT_FOR: f64 = -8.0;
/// BM25 weights of a rare word (IDF at its maximum) in a skill of average length; the IDF of a
/// name word is counted over the names, of a description word over the descriptions. A name
/// word says a little more than a description word: the name is the skill's subject.
pub const NAME: f64 = 1.75;
pub const DESCRIPTION: f64 = 1.5;
const AVOID: f64 = -1.5;
/// A phrase of the description (two adjacent words, or a quoted trigger phrase) found as such
/// in the prompt, on top of its words. Off in the hook ([`Calibration::HOOK`] has 0): under
/// leave-one-catalog-out it cost top-1 and named precision (docs/skills.md, the ablations).
pub const PHRASE: f64 = 2.0;
/// A word reached through the vocabulary counts this share of a word written as such.
pub const VOCABULARY: f64 = 0.8;
const K1: f64 = 2.0;
const B: f64 = 0.75;
/// Bonus per extra specialist domain for a multi-source or multi-phase skill.
const SCOPE_BONUS: f64 = 4.0;
/// Everyday words of software and office work ("set up", "code", "service", "best practices"):
/// they occur in any prompt and any description, so a match on one says little whatever the
/// catalog's IDF says; so do the prefixes a hyphen cuts off (`multi-AZ`, `pre-commit`). Stems,
/// sorted (a unit test derives them from the words); a match counts [`GENERIC`] of a rare word.
/// (`skill` is not one: a catalog where every description says "skill" gives it no IDF anyway,
/// and in one where a single skill is about skills it is that skill's subject.)
const GENERIC_STEMS: &[&str] = &[
    "add", "advance", "analys", "analyz", "app", "applica", "apply", "based", "best", "better",
    "build", "chang", "check", "cod", "codic", "common", "complet", "compreh", "configu", "cre",
    "crear", "creat", "current", "design", "develop", "differe", "exampl", "expert", "far", "fil",
    "find", "fix", "full", "general", "generat", "gestion", "gestir", "good", "guid", "guidanc",
    "handl", "help", "impleme", "improv", "includ", "issu", "lavor", "list", "manag", "managem",
    "master", "mult", "new", "nuov", "pattern", "practic", "pre", "problem", "process", "product",
    "progett", "project", "quick", "ready", "run", "servic", "servizi", "set", "setup", "simpl",
    "sistem", "solutio", "support", "system", "task", "team", "tim", "tool", "updat", "user",
    "way", "work", "workflo", "writ",
];
const GENERIC: f64 = 0.5;

fn is_generic(stem: &str) -> bool {
    GENERIC_STEMS.binary_search(&stem).is_ok()
}

/// What the top skill's score rests on: the inputs of the shared-word abstain rule.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Evidence {
    /// The top skill's score.
    pub score: f64,
    /// How many distinct prompt words its positive matches rest on, everyday (generic) words
    /// left out.
    pub words: usize,
    /// Whether one of its hand-written keywords matched (an author's explicit trigger).
    pub keyword: bool,
    /// The best score of another skill that matched that same word (0 when none did).
    pub rival: f64,
}

/// The shared-word rule: one prompt word names a skill only when no other skill that has the
/// word scores nearly as well. The top skill's evidence is ambiguous when it rests on a single
/// (non-generic) prompt word, no keyword of its own matched, and a rival that matched the same
/// word reaches `share` of its score: the catalog cannot tell the two apart on that word
/// (`test` with a testing skill and a statistics skill that mentions tests), so the prompt is
/// more likely about neither. Pure; `share` is [`AMBIGUOUS`] in the hook.
pub fn ambiguous(e: &Evidence, share: f64) -> bool {
    !e.keyword && e.words == 1 && e.score > 0.0 && e.rival >= share * e.score
}

/// Whether a match in field `rival` is as strong evidence as one in field `top`, for the
/// shared-word rule: a name word outranks a description word; keywords outrank both.
fn as_strong(rival: Field, top: Field) -> bool {
    let rank = |f: Field| match f {
        Field::Keyword => 0,
        Field::Name => 1,
        Field::BodyLead | Field::Body => 3,
        _ => 2,
    };
    rank(rival) <= rank(top)
}

/// The router's calibrated constants and the knobs its ablations turn (`tests/it/loco.rs`), as one
/// value so the protocol can vary them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Calibration {
    /// The shared-word rule's share ([`AMBIGUOUS`]; above 1 turns the rule off).
    pub ambiguous_share: f64,
    /// The score a plain skill needs ([`THRESHOLD_PLAIN`]).
    pub plain_threshold: f64,
    /// The margin rule of calibrated abstention ([`MIN_MARGIN`]): the top skill is named only
    /// when it leads the runner-up by at least this share of its own score (0 turns it off); a
    /// skill one of whose own keywords matched is exempt.
    pub min_margin: f64,
    /// The share a word reached through the vocabulary counts ([`VOCABULARY`]; 0 turns the
    /// vocabulary off): an ablation knob of the protocol.
    pub vocabulary: f64,
    /// The bonus of a description phrase found as such ([`PHRASE`]; 0 turns phrases off).
    pub phrase: f64,
    /// The weight of a name word ([`NAME`]; [`DESCRIPTION`] takes the name bonus away).
    pub name_weight: f64,
    /// The weight of a rare word of the body's headings and when-to-use lines ([`BODY_LEAD`];
    /// 0: not read).
    pub body_lead: f64,
    /// The weight of a rare word of the body's other prose ([`BODY`]; 0: not read).
    pub body: f64,
    /// Calibrated abstention ([`confidence::HOOK`]): the winner of its ranking is named when its
    /// learned confidence reaches the threshold, instead of the rules above (`None`: the rules
    /// decide, as the protocol's grid measures them).
    pub confidence: Option<Confidence>,
}

impl Calibration {
    /// What the hook uses.
    pub const HOOK: Calibration = Calibration {
        ambiguous_share: AMBIGUOUS,
        plain_threshold: THRESHOLD_PLAIN,
        min_margin: MIN_MARGIN,
        vocabulary: VOCABULARY,
        phrase: 0.0,
        name_weight: NAME,
        body_lead: BODY_LEAD,
        body: BODY,
        confidence: Some(confidence::HOOK),
    };

    /// [`Calibration::HOOK`] with the rules alone deciding (no learned confidence).
    pub const RULES: Calibration = Calibration {
        confidence: None,
        ..Calibration::HOOK
    };
}

/// What the learned confidence reads for one prompt (`tests/it/loco.rs` fits it on these): every
/// skill either ranker scored, with its id, and the candidate the rules select.
#[derive(Debug, Clone, Default)]
pub struct ConfidenceInputs {
    pub ids: Vec<String>,
    pub candidates: Vec<Candidate>,
    /// The index into `candidates` of the skill the rules name first.
    pub selected: Option<usize>,
}

/// How many runners-up `explain` shows.
const RUNNERS_UP: usize = 3;

pub struct SkillRouter {
    skills: Vec<CompiledSkill>,
    /// (first stem, skill, term), sorted by stem; looked up by binary search.
    postings: Vec<Posting>,
    /// Name and description words per skill, and their mean: BM25's length normalisation.
    lengths: Vec<f64>,
    mean_length: f64,
    /// BM25F's field lengths per skill, for the confidence: counted the first time a prompt
    /// needs BM25F (one pass over every term; a prompt the rules decide never needs it).
    field_lengths: OnceLock<Vec<[usize; 4]>>,
    /// The catalog's totals for BM25F; `None`: over `skills`, counted with `field_lengths`.
    index_totals: Option<IndexTotals>,
    /// Skills with hand-written keywords (held to [`THRESHOLD`]).
    keyworded: Vec<bool>,
    /// The number of skills in the catalog, for the IDF: `skills` holds only part of it when
    /// it was decoded for one prompt from an [`IndexView`].
    total: usize,
    /// A compiled index decoded per prompt (then `skills` is empty).
    lazy: Option<IndexView>,
}

/// One word of the prompt: its stem, and the prompt word it came through when the vocabulary
/// supplied it.
struct QueryWord<'a> {
    stem: &'a str,
    via: Option<&'a str>,
    /// The stem of the prompt word it stands for (its own stem when `via` is `None`).
    origin: &'a str,
}

/// What a skill has collected for one prompt: score, reasons, the terms matched, and the prompt
/// words that already counted through the vocabulary.
#[derive(Default)]
struct Tally<'a> {
    score: f64,
    reasons: Vec<String>,
    terms: Vec<u32>,
    origins: Vec<&'a str>,
    /// The prompt words behind positive, non-generic matches, with the term each first matched.
    evidence: Vec<(&'a str, u32)>,
}

impl SkillRouter {
    /// Builds the matcher; takes the catalog by value so its terms are not copied. A compiled
    /// index carries its sorted postings; a catalog without them gets them computed here.
    pub fn new(catalog: CompiledCatalog) -> SkillRouter {
        let total = catalog.skills.len();
        let lengths: Vec<f64> = catalog
            .skills
            .iter()
            .map(|s| bm25_length(&s.terms) as f64)
            .collect();
        let mean_length = if lengths.is_empty() {
            1.0
        } else {
            (lengths.iter().sum::<f64>() / lengths.len() as f64).max(1.0)
        };
        SkillRouter::with_totals(catalog, lengths, total, mean_length, None)
    }

    /// A router over a compiled index that decodes, for each prompt, only the skills its words
    /// reach (see [`IndexView`]); it selects what [`SkillRouter::new`] over the whole catalog
    /// selects.
    pub fn from_index(view: IndexView) -> SkillRouter {
        SkillRouter {
            skills: Vec::new(),
            postings: Vec::new(),
            lengths: Vec::new(),
            mean_length: view.mean_length(),
            field_lengths: OnceLock::new(),
            // BM25F's mean field lengths from the header (schema 8), so a lazy index scores as
            // the whole catalog does (`tests/it/scale.rs` routes both ways and compares).
            index_totals: Some(IndexTotals::new(view.len(), view.field_sums())),
            keyworded: Vec::new(),
            total: view.len(),
            lazy: Some(view),
        }
    }

    fn with_totals(
        catalog: CompiledCatalog,
        lengths: Vec<f64>,
        total: usize,
        mean_length: f64,
        index_totals: Option<IndexTotals>,
    ) -> SkillRouter {
        let postings = if catalog.postings.is_empty() {
            postings(&catalog.skills)
        } else {
            catalog.postings
        };
        let keyworded = catalog
            .skills
            .iter()
            .map(|s| s.terms.iter().any(|t| t.field == Field::Keyword))
            .collect();
        SkillRouter {
            skills: catalog.skills,
            postings,
            lengths,
            mean_length,
            field_lengths: OnceLock::new(),
            index_totals,
            keyworded,
            total,
            lazy: None,
        }
    }

    /// Every skill id, in catalog order.
    pub fn ids(&self) -> Vec<String> {
        match &self.lazy {
            Some(view) => view.ids(),
            None => self.skills.iter().map(|s| s.id.clone()).collect(),
        }
    }

    /// The postings whose first stem is `stem`.
    fn postings_for(&self, stem: &str) -> &[Posting] {
        let start = self.postings.partition_point(|p| p.0.as_ref() < stem);
        let len = self.postings[start..].partition_point(|p| p.0.as_ref() == stem);
        &self.postings[start..start + len]
    }

    pub fn len(&self) -> usize {
        self.total
    }

    pub fn is_empty(&self) -> bool {
        self.total == 0
    }

    /// A skill of a router built from a whole catalog ([`SkillRouter::new`]); `None` for an index
    /// read lazily.
    pub fn skill(&self, id: &str) -> Option<&CompiledSkill> {
        self.skills.iter().find(|s| s.id == id)
    }

    /// The IDF of a name/description word, scaled to 1 for a word only one skill has.
    fn idf(&self, postings: &[Posting], field: Field) -> f64 {
        let mut df = 0;
        let mut last = u32::MAX;
        for &Posting(_, si, ti) in postings {
            let term = &self.skills[si as usize].terms[ti as usize];
            if si != last && term.field == field && !term.is_phrase() {
                df += 1;
                last = si;
            }
        }
        let n = self.total as f64;
        let idf = |df: f64| (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
        if n <= 1.0 {
            return 1.0;
        }
        idf(f64::from(df.max(1))) / idf(1.0)
    }

    /// Scores `stripped` and selects at most two skills.
    pub fn route(&self, stripped: &str) -> SkillRouting {
        self.route_with(stripped, Calibration::HOOK)
    }

    /// [`route`](Self::route) with other calibrated constants: the calibration sweeps' entry
    /// point.
    pub fn route_with(&self, stripped: &str, calibration: Calibration) -> SkillRouting {
        let mentions = mention::mentions(stripped);
        if let Some(mut subset) = self.lazy_subset(stripped) {
            // A skill the prompt names is routed whether or not one of its words reached it.
            if let Some(view) = &self.lazy {
                for m in mentions.iter().filter(|m| !m.negated) {
                    if subset.find_mentioned(m).is_none()
                        && let Some(skill) = view.skill_named(&m.name)
                    {
                        subset.push_skill(skill);
                    }
                }
            }
            return subset.route_with(stripped, calibration);
        }
        // A project whose every SKILL.md was skipped (or whose scan ran out of time) has an empty
        // catalog: it selects nothing (scoring indexed per-skill tables and panicked).
        if self.skills.is_empty() {
            return SkillRouting::default();
        }
        let scored = self.score(stripped, calibration);
        let mut routing = self.select(scored, calibration);
        self.apply_mentions(&mentions, &mut routing);
        self.apply_agreement(stripped, &mut routing);
        routing
    }

    /// Object agreement ([`topics`], docs/skills.md): a selected skill whose name, description
    /// or keywords name another technology of a family the prompt names, and none of the
    /// prompt's, is not named (`object-mismatch:<family>` among its reasons, as a runner-up). A
    /// skill the prompt names explicitly is the user's choice and stays.
    fn apply_agreement(&self, stripped: &str, routing: &mut SkillRouting) {
        if routing.selected.is_empty() {
            return;
        }
        // Only the families the selected skills name can disagree: the prompt is read for those.
        let of_selected: Vec<Vec<topics::Topic>> = routing
            .selected
            .iter()
            .map(|m| {
                self.skills
                    .iter()
                    .find(|s| s.id == m.skill_id)
                    .map(topics::of_skill)
                    .unwrap_or_default()
            })
            .collect();
        let mut families: Vec<u16> = of_selected.iter().flatten().map(|t| t.family).collect();
        if families.is_empty() {
            return;
        }
        families.sort_unstable();
        families.dedup();
        let prompt = topics::topics_in(stripped, Some(&families));
        if prompt.is_empty() {
            return;
        }
        let mut vetoed: Vec<SkillMatch> = Vec::new();
        let mut own = of_selected.into_iter();
        routing.selected.retain_mut(|m| {
            let locked = m.reasons.iter().any(|r| r.starts_with(mention::REASON));
            let skill_topics = own.next().unwrap_or_default();
            match topics::disagreement(&prompt, &skill_topics) {
                Some(family) if !locked => {
                    m.reasons.push(format!("object-mismatch:{family}"));
                    vetoed.push(m.clone());
                    false
                }
                _ => true,
            }
        });
        if vetoed.is_empty() {
            return;
        }
        for m in vetoed.into_iter().rev() {
            routing.runners_up.insert(0, m);
        }
        routing.runners_up.truncate(RUNNERS_UP);
        if routing.selected.is_empty() {
            // Not named at any threshold: `eval`'s curve reads it as the rules' abstention.
            routing.first_confidence = None;
        }
    }

    /// The skill a mention names: its id, or the folder its `SKILL.md` is in (Claude Code keys a
    /// skill by its folder).
    fn find_mentioned(&self, m: &mention::Mention) -> Option<usize> {
        let by_id = self.skills.iter().position(|s| s.id == m.name);
        by_id.or_else(|| {
            self.skills.iter().position(|s| {
                skill_folder(&s.source).is_some_and(|f| f.eq_ignore_ascii_case(&m.name))
            })
        })
    }

    /// Adds a skill read from the index for a mention (a lazy subset only).
    fn push_skill(&mut self, skill: CompiledSkill) {
        self.lengths.push(bm25_length(&skill.terms) as f64);
        self.keyworded
            .push(skill.terms.iter().any(|t| t.field == Field::Keyword));
        self.skills.push(skill);
        self.postings = postings(&self.skills);
    }

    /// The explicit-mention lock (docs/skills.md, "Explicit mentions"): the skills the prompt
    /// names positively and the catalog has are named, in the prompt's order (two at most),
    /// whatever the scores say; a skill named after a negation is never named.
    fn apply_mentions(&self, mentions: &[mention::Mention], routing: &mut SkillRouting) {
        if mentions.is_empty() {
            return;
        }
        let negated: Vec<&str> = mentions
            .iter()
            .filter(|m| m.negated)
            .filter_map(|m| self.find_mentioned(m))
            .map(|si| self.skills[si].id.as_str())
            .collect();
        let mut locked: Vec<usize> = Vec::new();
        for m in mentions.iter().filter(|m| !m.negated) {
            if let Some(si) = self.find_mentioned(m)
                && !locked.contains(&si)
                && !negated.contains(&self.skills[si].id.as_str())
            {
                locked.push(si);
            }
        }
        let dropped: Vec<SkillMatch> = std::mem::take(&mut routing.selected);
        if locked.is_empty() {
            for m in dropped {
                if negated.contains(&m.skill_id.as_str()) {
                    routing.runners_up.insert(0, m);
                } else {
                    routing.selected.push(m);
                }
            }
            if routing.selected.is_empty() {
                routing.first_confidence = None;
            }
            return;
        }
        for &si in locked.iter().take(2) {
            let id = &self.skills[si].id;
            routing.runners_up.retain(|m| &m.skill_id != id);
            let score = dropped
                .iter()
                .find(|m| &m.skill_id == id)
                .map_or(0.0, |m| f64::from(m.score));
            routing.selected.push(self.skill_match(
                si,
                score,
                vec![format!("{}:{id}", mention::REASON)],
            ));
        }
        for m in dropped.into_iter().rev() {
            if !routing.selected.iter().any(|s| s.skill_id == m.skill_id) {
                routing.runners_up.insert(0, m);
            }
        }
        routing.runners_up.truncate(RUNNERS_UP);
        // A lock is the user's choice, not the confidence's: `eval` counts it named at every
        // threshold, as a decision of the rules.
        routing.first_confidence = None;
    }

    /// What the learned confidence reads for `stripped` ([`ConfidenceInputs`]), with BM25F's
    /// length normalisation `b`.
    pub fn confidence_inputs(
        &self,
        stripped: &str,
        calibration: Calibration,
        b: f64,
    ) -> ConfidenceInputs {
        if let Some(subset) = self.lazy_subset(stripped) {
            return subset.confidence_inputs(stripped, calibration, b);
        }
        if self.skills.is_empty() {
            return ConfidenceInputs::default();
        }
        let scored = self.score(stripped, calibration);
        let candidates = self.candidates(&scored, b);
        ConfidenceInputs {
            ids: candidates
                .iter()
                .map(|c| self.skills[c.skill].id.clone())
                .collect(),
            selected: scored
                .decided
                .then(|| candidates.iter().position(|c| c.skill == scored.top_si))
                .flatten(),
            candidates,
        }
    }

    /// For an index read lazily: a router over the skills that one of the prompt's stems (or
    /// their vocabulary expansions) reaches — only those can score, and with the catalog's size
    /// and mean lengths they score as they would in the whole catalog.
    fn lazy_subset(&self, stripped: &str) -> Option<SkillRouter> {
        let view = self.lazy.as_ref()?;
        let folded = without_source_file_names(fold(routing_window(stripped)));
        let mut stems: Vec<String> = Vec::new();
        for word in routing_words(&folded) {
            let s = stem(word);
            stems.extend(expansions(word, &s).iter().map(|e| (*e).to_owned()));
            stems.push(s);
        }
        stems.sort_unstable();
        stems.dedup();
        let subset = view.subset(stems.iter().map(String::as_str));
        let lengths = subset
            .skills
            .iter()
            .map(|s| bm25_length(&s.terms) as f64)
            .collect();
        Some(SkillRouter::with_totals(
            subset,
            lengths,
            self.total,
            self.mean_length,
            self.index_totals,
        ))
    }

    /// Every skill either ranker scored: the router's, in its order, then any other that BM25F
    /// over the index scored.
    fn candidates(&self, scored: &Scored, b: f64) -> Vec<Candidate> {
        let query: Vec<&str> = scored.stems.iter().map(String::as_str).collect();
        let postings = |q: &str| {
            self.postings_for(q)
                .iter()
                .filter_map(|&Posting(_, si, ti)| {
                    let term = &self.skills[si as usize].terms[ti as usize];
                    (!term.is_phrase()).then_some((si as usize, term.field))
                })
                .collect()
        };
        let lengths = self
            .field_lengths
            .get_or_init(|| self.skills.iter().map(field_lengths).collect());
        let totals = self.index_totals.unwrap_or_else(|| {
            IndexTotals::new(self.skills.len(), field_sums(lengths.iter().copied()))
        });
        let bm = confidence::index_scores(&query, postings, lengths, totals, b);
        let mut out: Vec<Candidate> = scored
            .scored
            .iter()
            .map(|(score, si, _)| Candidate {
                skill: *si,
                router: *score,
                bm25f: 0.0,
                coverage: 0.0,
            })
            .collect();
        for (si, score, coverage) in bm {
            match out.iter_mut().find(|c| c.skill == si) {
                Some(c) => (c.bm25f, c.coverage) = (score, coverage),
                None => out.push(Candidate {
                    skill: si,
                    router: 0.0,
                    bm25f: score,
                    coverage,
                }),
            }
        }
        out
    }

    /// Scores every skill for `stripped`: the router's evidence and its rules' decision.
    fn score(&self, stripped: &str, calibration: Calibration) -> Scored {
        let folded = without_source_file_names(fold(routing_window(stripped)));
        let words: Vec<&str> = routing_words(&folded).collect();
        let stems: Vec<String> = words.iter().map(|w| stem(w)).collect();
        // The same stems with an empty one at each sentence end: phrases match within a sentence.
        let phrase_stems = sentence_stems(&folded);
        let mut query: Vec<QueryWord<'_>> = Vec::new();
        for s in &stems {
            if !query.iter().any(|q| q.stem == s.as_str()) {
                query.push(QueryWord {
                    stem: s,
                    via: None,
                    origin: s,
                });
            }
        }
        for (word, s) in words.iter().zip(&stems) {
            for e in expansions(word, s) {
                if !query.iter().any(|q| q.stem == e) {
                    query.push(QueryWord {
                        stem: e,
                        via: Some(word),
                        origin: s,
                    });
                }
            }
        }
        // Per skill: score and reasons.
        let mut scored: HashMap<u32, Tally<'_>> = HashMap::new();
        for q in &query {
            let postings = self.postings_for(q.stem);
            if postings.is_empty() {
                continue;
            }
            for &Posting(_, si, ti) in postings {
                let skill = &self.skills[si as usize];
                let term = &skill.terms[ti as usize];
                let entry = scored.entry(si).or_default();
                if entry.terms.contains(&ti) {
                    continue;
                }
                // A prompt word counts once per skill: through the vocabulary only when neither
                // it nor another of its translations has already matched this skill.
                if q.via.is_some() && entry.origins.contains(&q.origin) {
                    continue;
                }
                if q.via.is_some() && calibration.vocabulary <= 0.0 {
                    continue;
                }
                let share = if q.via.is_some() {
                    calibration.vocabulary
                } else {
                    1.0
                };
                let weight = match term.field {
                    // Read by object agreement, never scored (no prompt stem reaches one).
                    Field::Topic => continue,
                    Field::Keyword | Field::NotFor => {
                        let matched = if term.is_phrase() {
                            q.via.is_none() && phrase_at(&phrase_stems, term.stems())
                        } else {
                            true
                        };
                        if !matched {
                            continue;
                        }
                        match term.field {
                            Field::NotFor => NOT_FOR,
                            _ if term.is_phrase() => KEYWORD_PHRASE,
                            _ => KEYWORD * share,
                        }
                    }
                    Field::Description if term.is_phrase() => {
                        if q.via.is_some()
                            || calibration.phrase <= 0.0
                            || !phrase_at(&phrase_stems, term.stems())
                        {
                            continue;
                        }
                        calibration.phrase
                    }
                    Field::BodyLead | Field::Body => {
                        let base = if term.field == Field::BodyLead {
                            calibration.body_lead
                        } else {
                            calibration.body
                        };
                        if base <= 0.0 {
                            continue;
                        }
                        let generic = if is_generic(q.stem) { GENERIC } else { 1.0 };
                        base * self.idf(postings, term.field) * share * generic
                    }
                    Field::Name | Field::Description | Field::Avoid => {
                        if term.is_phrase() {
                            continue;
                        }
                        let idf = match term.field {
                            Field::Name => self.idf(postings, Field::Name),
                            _ => self.idf(postings, Field::Description),
                        };
                        let len = self.lengths[si as usize];
                        let norm = (K1 + 1.0) / (1.0 + K1 * (1.0 - B + B * len / self.mean_length));
                        let base = match term.field {
                            Field::Name => calibration.name_weight,
                            Field::Description => DESCRIPTION,
                            _ => AVOID,
                        };
                        let generic = if is_generic(q.stem) { GENERIC } else { 1.0 };
                        base * idf * norm * share * generic
                    }
                };
                entry.score += weight;
                if weight > 0.0
                    && !is_generic(q.stem)
                    && !entry.evidence.iter().any(|e| e.0 == q.origin)
                {
                    entry.evidence.push((q.origin, ti));
                }
                entry.terms.push(ti);
                entry.origins.push(q.origin);
                entry.reasons.push(match q.via {
                    Some(via) => format!("{}:{}(via {via})", term.field.label(), term.label),
                    None => format!("{}:{}", term.field.label(), term.label),
                });
            }
        }
        let mut evidence: HashMap<usize, Vec<(&str, u32)>> = HashMap::new();
        let mut scored: Vec<(f64, usize, Vec<String>)> = scored
            .into_iter()
            .map(|(si, t)| {
                evidence.insert(si as usize, t.evidence);
                // Reasons in the skill's term order (keywords first), not the prompt's.
                let mut pairs: Vec<(u32, String)> = t.terms.into_iter().zip(t.reasons).collect();
                pairs.sort_by_key(|p| p.0);
                (
                    t.score,
                    si as usize,
                    pairs.into_iter().map(|p| p.1).collect(),
                )
            })
            .collect();
        let threshold = |si: usize| {
            if self.keyworded[si] {
                THRESHOLD
            } else {
                calibration.plain_threshold
            }
        };
        let specialists = scored
            .iter()
            .filter(|(s, si, _)| {
                *s >= threshold(*si) && self.skills[*si].scope == Scope::Specialist
            })
            .count();
        if specialists >= 2 {
            for (score, si, reasons) in &mut scored {
                let scope = self.skills[*si].scope;
                let own_keyword = reasons.iter().any(|r| r.starts_with("keyword:"));
                if scope != Scope::Specialist && own_keyword {
                    let bonus = SCOPE_BONUS * (specialists - 1) as f64;
                    *score += bonus;
                    reasons.push(format!("{}-bonus:+{bonus}", scope_label(scope)));
                }
            }
        }
        scored.sort_by(|a, b| {
            b.0.total_cmp(&a.0)
                .then_with(|| self.skills[a.1].id.cmp(&self.skills[b.1].id))
        });
        let (top, top_si) = scored.first().map_or((0.0, 0), |s| (s.0, s.1));
        let second = scored.get(1).map_or(0.0, |s| s.0);
        let top_keyword = scored
            .first()
            .is_some_and(|s| s.2.iter().any(|r| r.starts_with("keyword:")));
        // Everyday words alone never name a skill ("fix the failing build" is no request for a
        // skill that builds slide decks): the top skill needs one word of its own subject.
        let everyday_only = !top_keyword && evidence.get(&top_si).is_none_or(Vec::is_empty);
        let mut decided = !everyday_only
            && top >= threshold(top_si)
            && (top_keyword || top >= WEAK || top > second)
            && (top_keyword || top - second >= calibration.min_margin * top);
        // The shared-word rule: the words the top skill rests on and, when there is one, the best
        // other skill that matched it too, in the same field or a stronger one (`scored` is
        // sorted, so the first found): a word of the top skill's name that another skill has
        // only in its description is the top skill's own subject, not a shared word.
        let top_words = evidence.get(&top_si).map_or(&[][..], Vec::as_slice);
        let field_of = |si: usize, term: u32| self.skills[si].terms[term as usize].field;
        let rival = match top_words {
            [(word, term)] => scored.iter().skip(1).find(|(_, si, _)| {
                evidence.get(si).is_some_and(|e| {
                    e.iter().any(|(w, t)| {
                        w == word && as_strong(field_of(*si, *t), field_of(top_si, *term))
                    })
                })
            }),
            _ => None,
        };
        let e = Evidence {
            score: top,
            words: top_words.len(),
            keyword: top_keyword,
            rival: rival.map_or(0.0, |r| r.0),
        };
        if decided
            && ambiguous(&e, calibration.ambiguous_share)
            && let (Some((_, rival_si, _)), [(_, term)]) = (rival, top_words)
        {
            decided = false;
            let label = &self.skills[top_si].terms[*term as usize].label;
            let reason = format!(
                "abstain:shared-word:{label}(also {})",
                self.skills[*rival_si].id
            );
            scored[0].2.push(reason);
        }
        let mut distinct: Vec<String> = stems.clone();
        distinct.sort_unstable();
        distinct.dedup();
        Scored {
            scored,
            decided,
            top_si,
            top,
            stems: distinct,
        }
    }

    /// Selects from what [`SkillRouter::score`] found: with a learned confidence, the winner of
    /// its ranking when its confidence reaches the threshold; by the rules without one, or when
    /// the rules' first skill or the winner has hand-written keywords (an author's explicit
    /// triggers, and the confidence was fitted on catalogs that have none).
    fn select(&self, s: Scored, calibration: Calibration) -> SkillRouting {
        let Some(conf) = calibration.confidence else {
            return self.select_by_rules(s, calibration);
        };
        // Keywords are the rules' (docs/skills.md, step 9): when the rules' first skill has them,
        // the rules decide whatever BM25F would rank, so BM25F is not scored at all.
        if s.scored.first().is_some_and(|f| self.keyworded[f.1]) {
            return self.select_by_rules(s, calibration);
        }
        let cands = self.candidates(&s, conf.b);
        let rank = ranking_scores(&cands, conf.ranking);
        let order = ranking_order(&rank, |i| self.skills[cands[i].skill].id.as_str());
        let keyworded_first = order
            .first()
            .is_some_and(|&i| self.keyworded[cands[i].skill]);
        if keyworded_first {
            return self.select_by_rules(s, calibration);
        }
        let mut routing = SkillRouting::default();
        let selected = s
            .decided
            .then(|| cands.iter().position(|c| c.skill == s.top_si))
            .flatten();
        let confidence_of = |i: usize| conf.of(&confidence::features(&cands, i, selected));
        let mut named: Vec<(usize, f64)> = Vec::new();
        if let Some(&first) = order.first() {
            let p = confidence_of(first);
            routing.first_confidence = Some(p);
            if p >= conf.threshold {
                named.push((first, p));
                if let Some(&second) = order.get(1)
                    && rank[second] >= conf.second * rank[first]
                {
                    let q = confidence_of(second);
                    if q >= conf.threshold {
                        named.push((second, q));
                    }
                }
            }
        }
        let mut reasons: HashMap<usize, (f64, Vec<String>)> = s
            .scored
            .into_iter()
            .map(|(score, si, reasons)| (si, (score, reasons)))
            .collect();
        for i in order {
            let si = cands[i].skill;
            let (score, mut why) = reasons.remove(&si).unwrap_or_default();
            if let Some((_, p)) = named.iter().find(|n| n.0 == i) {
                why.push(format!("confidence:{p:.2}"));
                routing.selected.push(self.skill_match(si, score, why));
            } else if routing.runners_up.len() < RUNNERS_UP {
                routing.runners_up.push(self.skill_match(si, score, why));
            }
        }
        routing
    }

    /// The rules' selection (steps 1–8 of docs/skills.md, "How a prompt is scored").
    fn select_by_rules(&self, s: Scored, calibration: Calibration) -> SkillRouting {
        let mut routing = SkillRouting::default();
        let (top, decided, threshold) = (s.top, s.decided, self.threshold(calibration));
        for (rank, (score, si, reasons)) in s.scored.into_iter().enumerate() {
            let share = if self.keyworded[si] {
                SECOND_SHARE
            } else {
                SECOND_SHARE_PLAIN
            };
            let selectable =
                decided && (rank == 0 || (score >= threshold(si) && score >= top * share));
            let m = self.skill_match(si, score, reasons);
            if selectable && routing.selected.len() < 2 {
                routing.selected.push(m);
            } else if score >= 0.5 && routing.runners_up.len() < RUNNERS_UP {
                routing.runners_up.push(m);
            }
        }
        routing
    }

    /// The score a skill needs under the rules: [`THRESHOLD`] with keywords, else the plain one.
    fn threshold(&self, calibration: Calibration) -> impl Fn(usize) -> f64 + '_ {
        move |si| {
            if self.keyworded[si] {
                THRESHOLD
            } else {
                calibration.plain_threshold
            }
        }
    }

    fn skill_match(&self, si: usize, score: f64, reasons: Vec<String>) -> SkillMatch {
        SkillMatch {
            skill_id: self.skills[si].id.clone(),
            score: score.max(0.0).round() as u32,
            reasons,
            source: Some(self.skills[si].source.clone()).filter(|s| !s.is_empty()),
        }
    }
}

/// A prompt scored by the router: every skill it scored (best first, with reasons), whether its
/// rules name the first, that skill and its score, and the prompt's distinct stems.
struct Scored {
    scored: Vec<(f64, usize, Vec<String>)>,
    decided: bool,
    top_si: usize,
    top: f64,
    stems: Vec<String>,
}

/// Extensions of source-code files. `js` is left out: `Next.js`, `Node.js` and `Vue.js` are
/// product names written the same way.
const SOURCE_EXTENSIONS: &[&str] = &[
    "c", "cc", "cpp", "cs", "dart", "go", "h", "hpp", "java", "jsx", "kt", "mjs", "php", "py",
    "rb", "rs", "scala", "sh", "svelte", "swift", "ts", "tsx", "vue",
];

/// Blanks the base name of every source-code file a prompt mentions (`Pricing.tsx`,
/// `src/utils/date.test.ts`, `analysis.py`): it names a module of the user's code, which says
/// what their application is about, not what the request needs (a bug in `Popup.vue` is not a
/// request about popups). The extension stays (`tsx` still stands for TypeScript), and so do
/// folders and a word written again outside the file name. Input is folded.
fn without_source_file_names(folded: String) -> String {
    let is_path = |c: char| c.is_alphanumeric() || matches!(c, '.' | '_' | '-' | '/');
    let mut blank: Vec<(usize, usize)> = Vec::new();
    let mut start = None;
    for (i, c) in folded.char_indices().chain([(folded.len(), ' ')]) {
        match (is_path(c), start) {
            (true, None) => start = Some(i),
            (false, Some(from)) => {
                start = None;
                let token = folded[from..i].trim_end_matches(['.', '-', '/']);
                let name_from = token.rfind('/').map_or(0, |j| j + 1);
                if let Some(dot) = token[name_from..].rfind('.')
                    && dot > 0
                    && SOURCE_EXTENSIONS.contains(&&token[name_from + dot + 1..])
                {
                    blank.push((from + name_from, from + name_from + dot));
                }
            }
            _ => {}
        }
    }
    if blank.is_empty() {
        return folded;
    }
    let mut out = folded.into_bytes();
    for (from, to) in blank {
        out[from..to].fill(b' ');
    }
    // Only whole characters between ASCII delimiters were replaced by spaces.
    String::from_utf8(out).unwrap_or_default()
}

/// The stems of folded prompt text in order, with an empty stem after each sentence, so a
/// phrase never spans two sentences ("…every page. Make a clean PDF" holds no `page clean`).
/// A sentence ends at `;`, `!`, `?`, a line break, or a `.` before a space or the end (a dot
/// inside a word, `Next.js`, `config.yml`, ends nothing). An empty stem matches no term.
fn sentence_stems(folded: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut from = 0;
    let mut chars = folded.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let end = match c {
            ';' | '!' | '?' | '\n' => true,
            '.' => chars.peek().is_none_or(|(_, next)| next.is_whitespace()),
            _ => false,
        };
        if end {
            out.extend(routing_words(&folded[from..i]).map(stem));
            out.push(String::new());
            from = i + c.len_utf8();
        }
    }
    if from < folded.len() {
        out.extend(routing_words(&folded[from..]).map(stem));
        out.push(String::new());
    }
    out
}

/// True when the prompt stems hold `phrase` as consecutive stems.
fn phrase_at<'a>(prompt: &[String], phrase: impl Iterator<Item = &'a str> + Clone) -> bool {
    let n = phrase.clone().count();
    n > 0
        && prompt
            .windows(n)
            .any(|w| w.iter().map(String::as_str).eq(phrase.clone()))
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

    /// The mechanism tests below pin one rule each at the calibration they were written for
    /// (plain threshold 1.3, shared-word share 0.8, no margin, phrases on), so that a new calibration chosen by the
    /// protocol (`tests/it/loco.rs`) does not hide whether the rule itself still works.
    const MECHANISM: Calibration = Calibration {
        plain_threshold: 1.3,
        ambiguous_share: 0.8,
        min_margin: 0.0,
        phrase: PHRASE,
        ..Calibration::RULES
    };

    impl SkillRouter {
        fn route_mech(&self, stripped: &str) -> SkillRouting {
            self.route_with(stripped, MECHANISM)
        }

        /// The rules at the hook's calibration, without the learned confidence.
        fn route_rules(&self, stripped: &str) -> SkillRouting {
            self.route_with(stripped, Calibration::RULES)
        }
    }

    #[test]
    fn an_empty_catalog_selects_nothing() {
        let empty = crate::stages::skills::catalog::compile(&[], String::new(), Vec::new());
        let routing = SkillRouter::new(empty).route_rules("prepara il report zebra");
        assert!(routing.selected.is_empty() && routing.runners_up.is_empty());
    }
    use crate::stages::skills::catalog::{SkillDef, compile};

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
        SkillRouter::new(compile(&router_defs(), "fp".into(), vec![]))
    }

    fn router_defs() -> Vec<SkillDef> {
        vec![
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
        ]
    }

    fn selected(r: &SkillRouting) -> Vec<&str> {
        r.selected_ids().collect()
    }

    #[test]
    fn keywords_phrases_and_inflections() {
        let r = router();
        let got = r.route_rules("mostrami il query plan delle tabelle");
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
        assert!(r.route_rules("ciao, come stai?").selected.is_empty());
        assert!(r.route_rules("").selected.is_empty());
        assert!(
            r.route_rules("the skill").selected.is_empty(),
            "description words alone never select"
        );
    }

    #[test]
    fn ties_break_on_id_and_at_most_two() {
        let r = router();
        let got = r.route_rules("sql ticket excel");
        assert_eq!(selected(&got).len(), 2);
        // db has sql (+5) and not-for excel (-8); office, tickets and zeta tie at 5.
        assert_eq!(selected(&got), ["office", "tickets"]);
        assert_eq!(got.runners_up[0].skill_id, "zeta");
    }

    #[test]
    fn negative_keywords_push_down() {
        let r = router();
        let got = r.route_rules("esporta la tabella sql in excel");
        // db: tabella +5, sql +5, not-for excel -8 = 2, below the threshold; office and zeta 5.
        assert_eq!(selected(&got), ["office", "zeta"]);
        let db = got.runners_up.iter().find(|m| m.skill_id == "db").unwrap();
        assert_eq!(db.score, 2);
    }

    #[test]
    fn multi_source_analysis_takes_precedence() {
        let r = router();
        let got = r.route_rules("analizza il ticket mantis e la tabella sql per trovare la causa");
        assert_eq!(got.selected[0].skill_id, "analyst", "{got:?}");
        assert!(
            got.selected[0]
                .reasons
                .iter()
                .any(|r| r.starts_with("multi-source-bonus"))
        );
        // Three specialists pass their threshold (db, tickets, zeta): two extra domains, 2 × 4
        // on top of analizza and causa (5 each). A specialist gets no bonus.
        assert_eq!(
            got.selected[0].reasons,
            ["keyword:analizza", "keyword:causa", "multi-source-bonus:+8"],
            "{got:?}"
        );
        assert_eq!(got.selected[0].score, 18, "{got:?}");
        assert!(
            got.selected
                .iter()
                .chain(&got.runners_up)
                .skip(1)
                .all(|m| m.reasons.iter().all(|r| !r.contains("-bonus"))),
            "{got:?}"
        );
        let single = r.route_rules("analizza la tabella sql");
        assert_ne!(single.selected[0].skill_id, "analyst");
    }

    fn plain(id: &str, description: &str) -> SkillDef {
        SkillDef {
            id: id.into(),
            description: description.into(),
            keywords: vec![],
            not_for: vec![],
            phases: vec![],
            scope: Scope::Specialist,
        }
    }

    /// A catalog of skills with a name and a description only, as third-party skills come.
    fn plain_router() -> SkillRouter {
        SkillRouter::new(compile(&plain_defs(), "fp".into(), vec![]))
    }

    fn plain_defs() -> Vec<SkillDef> {
        vec![
            plain(
                "spreadsheet-tools",
                "Read, edit and chart spreadsheet files. Use when the user works with workbooks \
                 or pivot tables. Do NOT use for slide decks.",
            ),
            plain(
                "slide-builder",
                "Build slide decks and presentations from an outline. For spreadsheets, see \
                 spreadsheet-tools.",
            ),
            plain(
                "time-series-forecasting",
                "Forecast time series with seasonal models; also use when the user mentions \
                 \"demand planning\".",
            ),
            plain(
                "invoice-parser",
                "Extract totals and line items from invoices.",
            ),
        ]
    }

    #[test]
    fn the_hook_names_the_confident_winner_and_says_how_confident() {
        let r = plain_router();
        let prompt = "add a pivot table to this workbook and chart the spreadsheet";
        let got = r.route(prompt);
        assert_eq!(selected(&got), ["spreadsheet-tools"], "{got:?}");
        let reasons = &got.selected[0].reasons;
        assert!(reasons.contains(&"name:spreadsheet".to_owned()), "{got:?}");
        let shown = reasons.last().unwrap();
        let p: f64 = shown.strip_prefix("confidence:").unwrap().parse().unwrap();
        assert!(p >= confidence::HOOK.threshold, "{got:?}");
        // The threshold decides: just above the confidence shown the hook abstains, the
        // ranking stays (as runners-up); just below it names the same skill.
        let at = |threshold: f64| {
            let conf = Confidence {
                threshold,
                ..confidence::HOOK
            };
            r.route_with(
                prompt,
                Calibration {
                    confidence: Some(conf),
                    ..Calibration::HOOK
                },
            )
        };
        let above = at(p + 0.006);
        assert!(above.selected.is_empty(), "{above:?}");
        assert_eq!(above.runners_up[0].skill_id, "spreadsheet-tools");
        assert!(
            !above.runners_up[0]
                .reasons
                .iter()
                .any(|r| r.starts_with("confidence:"))
        );
        assert_eq!(selected(&at(p - 0.006)), ["spreadsheet-tools"]);
        // Nothing BM25F can match names nothing.
        assert!(r.route("ciao, come stai?").selected.is_empty());
    }

    #[test]
    fn a_second_skill_needs_its_share_and_its_own_confidence() {
        let r = plain_router();
        let prompt = "turn the spreadsheet into slide decks";
        let with = |second: f64, threshold: f64| {
            let conf = Confidence {
                second,
                threshold,
                ..confidence::HOOK
            };
            let cal = Calibration {
                confidence: Some(conf),
                ..Calibration::HOOK
            };
            r.route_with(prompt, cal)
        };
        // Off in the hook: at most the winner.
        assert!(r.route(prompt).selected.len() <= 1);
        // Any share and no threshold: both named, in the ranking's order.
        let both = with(0.0, 0.0);
        assert_eq!(both.selected.len(), 2, "{both:?}");
        // A share no second skill reaches: one.
        assert_eq!(with(1.01, 0.0).selected.len(), 1);
    }

    #[test]
    fn name_and_description_alone_select_a_skill() {
        let r = plain_router();
        let got = r.route_rules("add a pivot table to this workbook");
        assert_eq!(selected(&got), ["spreadsheet-tools"], "{got:?}");
        assert!(
            got.selected[0]
                .reasons
                .contains(&"description:pivot".to_string())
        );
        let got = r.route_rules("turn my outline into slides");
        assert_eq!(selected(&got), ["slide-builder"], "{got:?}");
    }

    #[test]
    fn italian_words_reach_english_descriptions() {
        let r = plain_router();
        let got = r.route_mech("estrai i totali dalle fatture di marzo");
        assert_eq!(selected(&got), ["invoice-parser"], "{got:?}");
        assert!(
            got.selected[0]
                .reasons
                .iter()
                .any(|r| r == "name:invoice(via fatture)"),
            "{got:?}"
        );
        let got = r.route_mech("crea una presentazione da questa scaletta");
        assert_eq!(selected(&got), ["slide-builder"], "{got:?}");
    }

    #[test]
    fn phrases_and_negative_clauses_are_evidence() {
        let r = plain_router();
        let got = r.route_mech("forecast the time series of demand planning for Q3");
        assert_eq!(selected(&got), ["time-series-forecasting"]);
        let reasons = &got.selected[0].reasons;
        assert!(
            reasons.contains(&"description:time series".to_string()),
            "{reasons:?}"
        );
        assert!(
            reasons.contains(&"description:demand planning".to_string()),
            "{reasons:?}"
        );
        // "slide decks" is what spreadsheet-tools is not for.
        let got = r.route_mech("slide decks");
        assert_eq!(selected(&got), ["slide-builder"], "{got:?}");
        let spreadsheet = got
            .runners_up
            .iter()
            .find(|m| m.skill_id == "spreadsheet-tools");
        assert!(
            spreadsheet.is_none_or(|m| m.reasons.iter().any(|r| r.starts_with("avoid:"))),
            "{got:?}"
        );
    }

    #[test]
    fn generic_prompts_and_weak_ties_abstain() {
        let r = plain_router();
        assert!(r.route_mech("ciao, come stai?").selected.is_empty());
        assert!(r.route_mech("fix the failing build").selected.is_empty());
        // Two skills with the same single rare word: a tie on weak evidence abstains.
        let mut defs = vec![
            plain("alpha", "Handles zebra stripes."),
            plain("beta", "Handles zebra stripes."),
        ];
        for id in ["gamma", "delta", "epsilon", "zeta"] {
            let words = format!("Tracks {id}one {id}two {id}three {id}four.");
            defs.push(plain(id, &words));
        }
        let twins = SkillRouter::new(compile(&defs, "fp".into(), vec![]));
        let got = twins.route_mech("zebra");
        assert!(got.selected.is_empty(), "{got:?}");
        let ids: Vec<&str> = got.runners_up.iter().map(|m| m.skill_id.as_str()).collect();
        assert_eq!(ids, ["alpha", "beta"], "{got:?}");
        // Undecided already by the margin rule: no shared-word reason is added.
        assert_eq!(got.runners_up[0].reasons, ["description:zebra"], "{got:?}");
        assert_eq!(
            got.runners_up[0].score, got.runners_up[1].score,
            "a tie above the plain threshold, below the weak level: {got:?}"
        );
        assert!(got.runners_up[0].score >= 1, "{got:?}");
        // One more word breaks the tie.
        defs[0].description = "Handles zebra stripes and manes.".into();
        let r = SkillRouter::new(compile(&defs, "fp".into(), vec![]));
        assert_eq!(selected(&r.route_mech("zebra manes")), ["alpha"]);
    }

    #[test]
    fn weak_evidence_selects_only_when_it_beats_the_runner_up() {
        // alpha and beta match different rare words, as well: the shared-word rule has nothing
        // to say, so the margin rule alone decides.
        let mut defs = vec![
            plain(
                "alpha",
                "Grooms zebra stripes, hooves, tails, ears and hides.",
            ),
            plain("beta", "Grooms lion manes, paws, claws, teeth and dens."),
        ];
        // Shorter skills around them, so that one word of theirs is weak evidence.
        for id in ["gamma", "delta", "epsilon", "zeta"] {
            defs.push(plain(id, &format!("Tracks {id}one.")));
        }
        let r = SkillRouter::new(compile(&defs, "fp".into(), vec![]));
        // The margin rule below the plain threshold's reach (one word of these long skills
        // scores about 1.1, under THRESHOLD_PLAIN; at 0.9 it passes).
        let low = Calibration {
            plain_threshold: 0.9,
            ..Calibration::RULES
        };
        assert!(r.route_rules("zebra").selected.is_empty());
        // One word, one skill: weak (1 rounded, below 1.5) but ahead of everything else.
        let got = r.route_with("zebra", low);
        assert_eq!(selected(&got), ["alpha"], "{got:?}");
        assert_eq!(got.selected[0].score, 1, "{got:?}");
        // A tie on weak evidence abstains.
        let got = r.route_with("zebra lion", low);
        assert!(got.selected.is_empty(), "{got:?}");
        let ids: Vec<&str> = got.runners_up.iter().map(|m| m.skill_id.as_str()).collect();
        assert_eq!(ids, ["alpha", "beta"], "{got:?}");
        assert_eq!(got.runners_up[0].score, 1, "{got:?}");
        assert_eq!(got.runners_up[0].reasons, ["description:zebra"], "{got:?}");
    }

    #[test]
    fn the_shared_word_rule_at_its_edges() {
        let e = |words, keyword, rival| Evidence {
            score: 2.0,
            words,
            keyword,
            rival,
        };
        // A rival at exactly the share abstains; just below it does not.
        assert!(ambiguous(&e(1, false, 1.8), 0.9));
        assert!(!ambiguous(&e(1, false, 1.79), 0.9));
        // A rival as strong as the top, or stronger, is ambiguous too.
        assert!(ambiguous(&e(1, false, 2.0), 0.9));
        assert!(ambiguous(&e(1, false, 2.5), 0.9));
        // No rival, two words, none (generic words only) or a keyword: never.
        assert!(!ambiguous(&e(1, false, 0.0), 0.9));
        assert!(!ambiguous(&e(2, false, 2.0), 0.9));
        assert!(!ambiguous(&e(0, false, 2.0), 0.9));
        assert!(!ambiguous(&e(1, true, 2.0), 0.9));
        // A share above 1 turns the rule off for every rival up to the top's score.
        assert!(!ambiguous(&e(1, false, 2.0), f64::INFINITY));
        assert!(!ambiguous(
            &Evidence {
                score: 0.0,
                words: 1,
                keyword: false,
                rival: 0.0
            },
            0.9
        ));
    }

    /// Skills with a name and a description only; `zebra` is in two of them: `zebra-care`'s
    /// name and `rival` (id, description).
    fn shared_word_router(rival: (&str, &str)) -> SkillRouter {
        let mut defs = vec![
            plain("zebra-care", "Grooms manes with tools."),
            plain(rival.0, rival.1),
        ];
        // Longer descriptions around them, so the two short ones weigh more than one word's
        // base (BM25's length normalisation) and pass the weak level.
        for id in ["gamma", "delta", "epsilon", "eta"] {
            let words: Vec<String> = (0..30).map(|i| format!("{id}{i}")).collect();
            defs.push(plain(id, &words.join(" ")));
        }
        SkillRouter::new(compile(&defs, "fp".into(), vec![]))
    }

    #[test]
    fn one_word_two_skills_share_abstains_and_says_why() {
        // zebra is a name word of both, as long: a tie above the weak level, which the margin
        // rule alone would break by id.
        let r = shared_word_router(("zebra-keeper", "Feeds herds daily."));
        let got = r.route_mech("zebra");
        assert!(got.selected.is_empty(), "{got:?}");
        let top = &got.runners_up[0];
        assert_eq!(top.skill_id, "zebra-care", "{got:?}");
        assert!(top.score >= 2, "above the weak level: {got:?}");
        assert_eq!(
            top.reasons,
            ["name:zebra", "abstain:shared-word:zebra(also zebra-keeper)"],
            "{got:?}"
        );
        // With the rule off both are selected (a tie of plain skills names both).
        let off = r.route_with(
            "zebra",
            Calibration {
                ambiguous_share: f64::INFINITY,
                ..MECHANISM
            },
        );
        assert_eq!(selected(&off), ["zebra-care", "zebra-keeper"], "{off:?}");
        assert!(
            off.selected[0]
                .reasons
                .iter()
                .all(|r| !r.starts_with("abstain:")),
            "{off:?}"
        );
        // A second word of the top skill's own decides.
        let got = r.route_mech("zebra manes");
        assert_eq!(selected(&got), ["zebra-care"], "{got:?}");
    }

    #[test]
    fn an_everyday_word_beside_a_shared_word_is_not_a_second_word() {
        // Both skills have zebra in the name and tools (an everyday word) in the description,
        // as long: the top's evidence is still the one shared word, so it abstains.
        let r = shared_word_router(("zebra-keeper", "Feeds herds with tools."));
        let got = r.route_mech("zebra tools");
        assert!(got.selected.is_empty(), "{got:?}");
        assert_eq!(
            got.runners_up[0].reasons,
            [
                "name:zebra",
                "description:tools",
                "abstain:shared-word:zebra(also zebra-keeper)"
            ],
            "{got:?}"
        );
    }

    #[test]
    fn a_name_word_another_skill_has_only_in_its_description_is_not_shared() {
        // zebra is zebra-care's name word and a word of zoo-keeper's description, as long: the
        // name says whose subject it is. The rule does not abstain, and the name word
        // (NAME 1.75 against DESCRIPTION 1.5) names zebra-care alone.
        let r = shared_word_router(("zoo-keeper", "Feeds zebra herds."));
        let got = r.route_rules("zebra");
        assert_eq!(selected(&got), ["zebra-care"], "{got:?}");
        assert_eq!(got.selected[0].reasons, ["name:zebra"], "{got:?}");
        let keeper = &got.runners_up[0];
        assert_eq!(keeper.skill_id, "zoo-keeper", "{got:?}");
        assert_eq!(keeper.reasons, ["description:zebra"], "{got:?}");
    }

    #[test]
    fn the_field_order_of_the_shared_word_rule() {
        use Field::*;
        // A rival counts when its match is in a field at least as strong as the top's.
        assert!(as_strong(Name, Name));
        assert!(as_strong(Name, Description));
        assert!(as_strong(Keyword, Name));
        assert!(as_strong(Description, Description));
        assert!(!as_strong(Description, Name));
        assert!(!as_strong(Name, Keyword));
    }

    #[test]
    fn a_shared_word_with_a_distant_rival_still_selects() {
        // zebra-keeper has zebra in its name too, with a long description: well under 80% of
        // the top's score.
        let r = shared_word_router((
            "zebra-keeper",
            "Feeds herds, cleans stables, orders hay, books vets, logs weights, trims hedges, \
             paints fences, mends gates, counts visitors, sweeps paths, waters lawns, fixes \
             roofs, sells tickets, prints maps, answers calls, files reports, tracks budgets, \
             plans events and guides tours.",
        ));
        let got = r.route_mech("zebra");
        assert_eq!(selected(&got), ["zebra-care"], "{got:?}");
        let keeper = got.runners_up.iter().find(|m| m.skill_id == "zebra-keeper");
        assert!(keeper.is_some(), "{got:?}");
        // A word only one skill has is never ambiguous.
        let got = r.route_mech("manes");
        assert_eq!(selected(&got), ["zebra-care"], "{got:?}");
    }

    #[test]
    fn a_phrase_never_spans_two_sentences() {
        assert_eq!(
            sentence_stems("every page. a clean pdf"),
            ["every", "pag", "", "clean", "pdf", ""]
        );
        assert_eq!(sentence_stems(""), Vec::<String>::new());
        // A dot inside a word ends no sentence.
        assert_eq!(
            sentence_stems("a next.js app; vite.config.ts"),
            ["next", "js", "app", "", "vit", "config", "ts", ""]
        );
        let r = SkillRouter::new(compile(
            &[
                plain("web-reader", "Shows a page clean of clutter."),
                plain("printer", "Prints tickets."),
            ],
            "fp".into(),
            vec![],
        ));
        let phrase = |prompt: &str| {
            let got = r.route_mech(prompt);
            got.selected
                .iter()
                .chain(&got.runners_up)
                .find(|m| m.skill_id == "web-reader")
                .is_some_and(|m| m.reasons.iter().any(|r| r == "description:page clean"))
        };
        assert!(phrase("a page clean of ads"));
        assert!(!phrase("read every page. clean it up"));
        assert!(!phrase("read every page; clean it up"));
    }

    #[test]
    fn a_sentence_end_at_the_start_or_after_a_wide_character() {
        // The next sentence starts after the delimiter, whatever comes before it.
        assert_eq!(sentence_stems("; pdf"), ["", "pdf", ""]);
        assert_eq!(sentence_stems("\npdf!"), ["", "pdf", ""]);
        assert_eq!(sentence_stems("表格. pdf"), ["表格", "", "pdf", ""]);
    }

    #[test]
    fn a_keyword_phrase_needs_its_words_together_and_in_order() {
        let r = router();
        let db = |prompt: &str| {
            let got = r.route_rules(prompt);
            got.selected
                .iter()
                .chain(&got.runners_up)
                .any(|m| m.skill_id == "db")
        };
        assert!(db("mostrami il query plan"));
        assert!(!db("mostrami la query"), "the first word alone");
        assert!(!db("il plan della query"), "the words out of order");
    }

    #[test]
    fn source_file_base_names_are_not_evidence() {
        let masked = |s: &str| without_source_file_names(s.to_owned());
        assert_eq!(
            masked("fix src/components/pricing.tsx: tier"),
            format!("fix src/components/{}.tsx: tier", " ".repeat(7))
        );
        assert_eq!(
            masked("il test test_api.py e date.test.ts"),
            format!("il test {}.py e {}.ts", " ".repeat(8), " ".repeat(9))
        );
        // Other files, product names in .js, a trailing dot and words without an extension stay.
        for kept in [
            "prometheus.yml e .gitlab-ci.yml",
            "vendite.xlsx",
            "a next.js app",
            "the pricing page.",
            "scripts/",
            ".py",
        ] {
            assert_eq!(masked(kept), kept);
        }
        // Non-ASCII text around a file name keeps its characters.
        assert_eq!(
            masked("perché popup.vue è rotto"),
            format!("perché {}.vue è rotto", " ".repeat(5))
        );
        let r = SkillRouter::new(compile(
            &[
                plain("popups", "Design popups and modals that convert."),
                plain("tables", "Sort and filter tables."),
            ],
            "fp".into(),
            vec![],
        ));
        assert!(r.route_mech("il bug in Popup.vue").selected.is_empty());
        assert_eq!(selected(&r.route_mech("a popup for Popup.vue")), ["popups"]);
    }

    #[test]
    fn generic_stems_are_the_stems_of_the_generic_words() {
        const WORDS: &[&str] = &[
            "add",
            "advanced",
            "analysis",
            "analyze",
            "app",
            "application",
            "applications",
            "apply",
            "based",
            "best",
            "better",
            "build",
            "building",
            "change",
            "check",
            "code",
            "common",
            "complete",
            "comprehensive",
            "configuration",
            "configure",
            "create",
            "creating",
            "current",
            "design",
            "designing",
            "develop",
            "development",
            "different",
            "example",
            "expert",
            "file",
            "files",
            "find",
            "fix",
            "full",
            "general",
            "generate",
            "good",
            "guide",
            "guidance",
            "handle",
            "help",
            "implement",
            "implementing",
            "implementation",
            "improve",
            "improving",
            "include",
            "including",
            "issue",
            "issues",
            "list",
            "manage",
            "management",
            "managing",
            "master",
            "multi",
            "new",
            "pattern",
            "patterns",
            "practice",
            "practices",
            "pre",
            "problem",
            "process",
            "production",
            "project",
            "projects",
            "quick",
            "ready",
            "run",
            "running",
            "service",
            "services",
            "set",
            "setting",
            "setup",
            "simple",
            "solution",
            "support",
            "system",
            "systems",
            "task",
            "tasks",
            "team",
            "teams",
            "time",
            "tool",
            "tools",
            "update",
            "user",
            "users",
            "way",
            "work",
            "working",
            "workflow",
            "workflows",
            "write",
            "writing",
            "crea",
            "creare",
            "fare",
            "codice",
            "progetto",
            "lavoro",
            "nuovo",
            "nuova",
            "sistema",
            "servizio",
            "gestire",
            "gestione",
        ];
        let mut stems: Vec<String> = WORDS.iter().map(|w| stem(w)).collect();
        stems.sort();
        stems.dedup();
        assert_eq!(GENERIC_STEMS, stems);
    }

    #[test]
    fn size_and_lookup_by_id() {
        let r = router();
        assert_eq!((r.len(), r.is_empty()), (5, false));
        assert_eq!(r.skill("tickets").map(|s| s.id.as_str()), Some("tickets"));
        assert_eq!(r.skill("zeta").map(|s| s.scope), Some(Scope::Specialist));
        assert!(r.skill("nope").is_none());
        let empty = SkillRouter::new(compile(&[], String::new(), Vec::new()));
        assert_eq!((empty.len(), empty.is_empty()), (0, true));
        assert!(empty.skill("tickets").is_none());
    }

    #[test]
    fn a_word_after_do_not_use_for_counts_against_the_skill() {
        let defs = vec![
            plain("alpha", "Handles zebra stripes. Do NOT use for lion manes."),
            plain("beta", "Tracks lion manes."),
        ];
        let r = SkillRouter::new(compile(&defs, "fp".into(), vec![]));
        let got = r.route_mech("lion");
        assert_eq!(selected(&got), ["beta"], "{got:?}");
        // alpha's only match is the negative one: below zero, so not even a runner-up.
        assert!(got.runners_up.is_empty(), "{got:?}");
        let got = r.route_mech("zebra");
        assert_eq!(selected(&got), ["alpha"], "{got:?}");
    }

    #[test]
    fn idf_counts_skills_per_field_relative_to_a_word_of_one_skill() {
        // Nine skills, so a word of up to three skills is kept (`compile` drops commoner ones).
        let defs = vec![
            plain("alpha", "Handles zebra stripes."),
            plain("beta", "Feeds zebra herds."),
            plain("gamma", "Tracks manes. Do NOT use for zebra."),
            plain("lion-keeper", "Sweeps cages."),
            plain("lion-tamer", "Cracks whips."),
            plain("delta", "Feeds lion cubs."),
            plain("epsilon", "Paints fences."),
            plain("eta", "Mends nets."),
            plain("theta", "Bakes bread."),
        ];
        let r = SkillRouter::new(compile(&defs, "fp".into(), vec![]));
        // ln(1 + (N − df + 0.5) / (df + 0.5)) over its value at df = 1, N = 9: df = 2 gives
        // ln 4 / ln(20/3).
        let two_of_nine = 4f64.ln() / (20.0f64 / 3.0).ln();
        let idf = |stem: &str, field| r.idf(r.postings_for(stem), field);
        let close = |a: f64, b: f64| (a - b).abs() < 1e-9;
        // zebra: two descriptions (phrases and gamma's negative clause do not count).
        assert!(close(idf(&stem("zebra"), Field::Description), two_of_nine));
        // lion: two names, one description.
        assert!(close(idf(&stem("lion"), Field::Name), two_of_nine));
        assert!(close(idf(&stem("lion"), Field::Description), 1.0));
        assert!(!r.postings_for(&stem("cages")).is_empty());
        assert!(close(idf(&stem("cages"), Field::Description), 1.0));
        let one = SkillRouter::new(compile(&defs[..1], "fp".into(), vec![]));
        assert!(close(
            one.idf(one.postings_for(&stem("zebra")), Field::Description),
            1.0
        ));
    }

    #[test]
    fn a_name_word_weighs_by_its_idf_over_the_names() {
        // lion is a name word of three skills and a description word of one (twelve skills, all
        // of the same length): over the names its IDF is ln(26/7) / ln(26/3) ≈ 0.61 of a word
        // of one skill, over the descriptions 1. So zoo-vet scores highest (1.5 against
        // 1.75 × 0.61 ≈ 1.06), and the name skills stay under 80% of it (no shared-word
        // abstention); with the descriptions' IDF for a name word they would outscore it.
        let mut defs = vec![
            plain("lion-feeder", "Carries meat."),
            plain("lion-keeper", "Sweeps cages."),
            plain("lion-tamer", "Cracks whips."),
            plain("zoo-vet", "Feeds lion."),
        ];
        for (id, description) in [
            ("bee-hive", "Makes honey."),
            ("cat-flap", "Opens doors."),
            ("dog-walk", "Finds parks."),
            ("eel-tank", "Fills water."),
            ("fox-hole", "Hides kits."),
            ("gnu-herd", "Roams plains."),
            ("hen-coop", "Lays eggs."),
            ("owl-nest", "Hoots nightly."),
        ] {
            defs.push(plain(id, description));
        }
        let r = SkillRouter::new(compile(&defs, "fp".into(), vec![]));
        assert!(
            r.lengths.iter().all(|&l| l == r.lengths[0]),
            "{:?}",
            r.lengths
        );
        let got = r.route_mech("lion");
        assert_eq!(selected(&got), ["zoo-vet"], "{got:?}");
        assert_eq!(got.selected[0].reasons, ["description:lion"], "{got:?}");
        let runners: Vec<&str> = got.runners_up.iter().map(|m| m.skill_id.as_str()).collect();
        assert_eq!(
            runners,
            ["lion-feeder", "lion-keeper", "lion-tamer"],
            "{got:?}"
        );
    }

    #[test]
    fn a_keyword_reached_through_the_vocabulary_counts_four_fifths() {
        let defs = vec![
            def("office", &["spreadsheet"], &[], Scope::Specialist),
            def("tickets", &["ticket"], &[], Scope::Specialist),
        ];
        let r = SkillRouter::new(compile(&defs, "fp".into(), vec![]));
        let got = r.route_rules("spreadsheet");
        assert_eq!(selected(&got), ["office"]);
        assert_eq!(got.selected[0].score, 5);
        // foglio stands for spreadsheet: 0.8 × 5 = 4, below the keyword threshold.
        let got = r.route_rules("foglio");
        assert!(got.selected.is_empty(), "{got:?}");
        assert_eq!(got.runners_up[0].skill_id, "office");
        assert_eq!(got.runners_up[0].score, 4);
        assert_eq!(
            got.runners_up[0].reasons,
            ["keyword:spreadsheet(via foglio)"]
        );
    }

    #[test]
    fn the_lazy_index_routes_like_the_whole_catalog() {
        // Each catalog written in the index's line format and read back lazily, as the hook
        // reads a compiled index: per prompt only the skills its words (or their translations)
        // reach are decoded, and they must score as in the whole catalog.
        let lazy = |defs: &[SkillDef]| {
            let text = compile(defs, "fp".into(), vec![]).to_lines();
            let bytes: &'static [u8] = Box::leak(text.into_bytes().into_boxed_slice());
            SkillRouter::from_index(
                IndexView::open(
                    Box::new(bytes),
                    crate::stages::skills::catalog::Origin::Machine,
                )
                .unwrap(),
            )
        };
        let prompts = [
            "",
            "ciao, come stai?",
            "mostrami il query plan delle tabelle",
            "sql ticket excel",
            "esporta la tabella sql in excel",
            "analizza il ticket mantis e la tabella sql per trovare la causa",
            "add a pivot table to this workbook",
            "turn my outline into slides",
            "estrai i totali dalle fatture di marzo",
            "crea una presentazione da questa scaletta",
            "forecast the time series of demand planning for Q3",
            "slide decks",
            "fix the failing build",
            "the invoice-parser in parser.py",
        ];
        for defs in [router_defs(), plain_defs()] {
            let whole = SkillRouter::new(compile(&defs, "fp".into(), vec![]));
            let lazy = lazy(&defs);
            let ids: Vec<String> = defs.iter().map(|d| d.id.clone()).collect();
            assert_eq!(lazy.ids(), ids);
            assert_eq!(whole.ids(), ids);
            assert_eq!((lazy.len(), lazy.is_empty()), (defs.len(), false));
            assert!(
                lazy.skill(&ids[0]).is_none(),
                "no whole skill from a lazy index"
            );
            for prompt in prompts {
                assert_eq!(
                    lazy.route_rules(prompt),
                    whole.route_rules(prompt),
                    "{prompt}"
                );
                let hook = Calibration::HOOK;
                assert_eq!(
                    lazy.route_with(prompt, hook),
                    whole.route_with(prompt, hook),
                    "{prompt}"
                );
            }
        }
        // What the lazy router selects, written out: a word reached through the vocabulary
        // decodes the skill it names.
        let got = lazy(&plain_defs()).route_rules("estrai i totali dalle fatture di marzo");
        assert_eq!(selected(&got), ["invoice-parser"], "{got:?}");
        let got = lazy(&router_defs()).route_rules("mostrami il query plan delle tabelle");
        assert_eq!(selected(&got), ["db"], "{got:?}");
        assert_eq!(got.selected[0].score, 12, "{got:?}");
        // A skill the prompt names but none of its words reach (every name word is shared by
        // the whole catalog, or too short to be a word) is read from the index by its name.
        let shared: Vec<SkillDef> = ["x", "y", "z", "w"]
            .iter()
            .map(|k| {
                plain(
                    &format!("data-{k}"),
                    &format!("Data tool {k}{k}{k} for rows."),
                )
            })
            .collect();
        for prompt in [
            "$data-x please",
            "use the data-y skill",
            "nothing named here",
        ] {
            let whole = SkillRouter::new(compile(&shared, "fp".into(), vec![]));
            assert_eq!(
                lazy(&shared).route_with(prompt, Calibration::HOOK),
                whole.route_with(prompt, Calibration::HOOK),
                "{prompt}"
            );
        }
        let got = lazy(&shared).route_with("$data-x please", Calibration::HOOK);
        assert_eq!(selected(&got), ["data-x"], "{got:?}");
        assert_eq!(got.selected[0].reasons, ["explicit-mention:data-x"]);
        let empty = lazy(&[]);
        assert_eq!((empty.len(), empty.is_empty()), (0, true));
        assert!(empty.ids().is_empty());
        assert_eq!(empty.route_rules("sql ticket"), SkillRouting::default());
    }

    #[test]
    fn two_selected_and_at_most_three_runners_up() {
        let ids = ["ant", "bee", "cat", "dog", "eel", "fox", "gnu"];
        let defs: Vec<SkillDef> = ids
            .iter()
            .map(|id| def(id, &["zebra"], &[], Scope::Specialist))
            .collect();
        let r = SkillRouter::new(compile(&defs, "fp".into(), vec![]));
        // Seven skills tie at 5: the first two by id are selected, the next three listed.
        let got = r.route_rules("zebra");
        assert_eq!(selected(&got), ["ant", "bee"]);
        let runners: Vec<&str> = got.runners_up.iter().map(|m| m.skill_id.as_str()).collect();
        assert_eq!(runners, ["cat", "dog", "eel"]);
    }
}
