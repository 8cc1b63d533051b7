//! The eval harness: labelled cases in, accuracy per routing dimension and skill precision and
//! recall out. One case per JSONL line (see `docs/eval.md`). Pure: the caller reads the file,
//! supplies the project, and prints the report.

use crate::charset::Shown as _;
use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::hosts::Host;
use crate::stages::agents::CarryForwardStatus;
use crate::stages::agents::availability::Manifest;
use crate::stages::agents::catalog::Availability;
use crate::stages::agents::default_catalog;
use crate::stages::context::ContextMode;
use crate::stages::decision::{self, Decision, HookRequest, Project};
use crate::stages::payload::Payload;
use crate::stages::planning::{CarryForwardState, planned_from};
use crate::stages::subagent::SubagentMode;

/// One line of a cases file.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct CaseLine {
    id: Option<String>,
    prompt: Option<String>,
    payload: Option<Map<String, Value>>,
    host: Option<Host>,
    event: Option<String>,
    #[serde(default)]
    planning: bool,
    context_mode: Option<ContextMode>,
    subagent_mode: Option<SubagentMode>,
    detected_hotwords: Option<Vec<String>>,
    skills: Option<Vec<String>>,
    /// Other skills that are right too (a prompt two skills fit): a first name among them counts
    /// as right for named precision, recall (named) and ranking top-1.
    accept: Option<Vec<String>>,
    agents: Option<Vec<String>>,
    #[serde(default, deserialize_with = "present")]
    agent_skill: Option<Option<String>>,
    lock: Option<Names>,
    carry_forward: Option<bool>,
    #[serde(default, deserialize_with = "present")]
    carried_forward: Option<Option<CarryForwardStatus>>,
    session: Option<String>,
    availability: Option<BTreeMap<String, Availability>>,
    manifest: Option<String>,
    /// Free text for the reader; ignored, but for its first word: `explicit` marks a prompt that
    /// names its skill (the sealed sets' tag), counted apart as explicit-mention accuracy.
    #[serde(default)]
    note: Option<String>,
}

/// One agent id, or several in order.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
enum Names {
    One(String),
    Many(Vec<String>),
}

/// Tells `"key": null` (expect nothing) from a missing key (do not check).
fn present<'de, D, T>(d: D) -> Result<Option<Option<T>>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(d).map(Some)
}

/// A parsed case.
#[derive(Debug, Clone)]
pub struct Case {
    pub id: String,
    pub payload: Payload,
    pub host: Host,
    pub event: Option<String>,
    pub planning: bool,
    pub context_mode: Option<ContextMode>,
    pub subagent_mode: Option<SubagentMode>,
    pub detected_hotwords: Option<Vec<String>>,
    pub skills: Option<Vec<String>>,
    /// Other skills that are right too (`accept`).
    pub accept: Vec<String>,
    /// The prompt names its skill (a `note` starting with `explicit`).
    pub explicit: bool,
    /// Expected recommended agents, primary first; `[]` means none.
    pub agents: Option<Vec<String>>,
    /// Expected `skillId` of the first recommendation (`null` for none).
    pub agent_skill: Option<Option<String>>,
    /// The agents the user names, in order: they must be exactly the recommendation (or none,
    /// with `locked-agent-unavailable`, when one of them is unavailable).
    pub lock: Option<Vec<String>>,
    /// Expected `carryForwardToImplementation`.
    pub carry_forward: Option<bool>,
    /// Expected status of a planned delegation carried to this prompt (`null` for none).
    pub carried_forward: Option<Option<CarryForwardStatus>>,
    /// Cases with the same session run in file order and share planned delegation.
    pub session: Option<String>,
    /// Availability overrides for this case (a manifest applied on top of the catalog).
    pub availability: BTreeMap<String, Availability>,
}

/// Reads the file a case's `manifest` names, for [`parse_cases_in`]: the caller's bounded reader
/// (this module does no I/O; `eval` passes `edge::files::read_bounded_string`).
pub type ReadManifest<'a> = &'a dyn Fn(&std::path::Path) -> Result<String, String>;

/// Parses a JSONL cases file; `manifest` paths are resolved against `base_dir` and read with
/// `read`.
pub fn parse_cases_in(
    text: &str,
    base_dir: &std::path::Path,
    read: ReadManifest<'_>,
) -> Result<Vec<Case>, String> {
    parse_cases_with(text, Some((base_dir, read)))
}

/// Parses a JSONL cases file; blank lines and lines starting with `#` or `//` are skipped. A
/// case with a `manifest` needs [`parse_cases_in`].
pub fn parse_cases(text: &str) -> Result<Vec<Case>, String> {
    parse_cases_with(text, None)
}

fn parse_cases_with(
    text: &str,
    manifests: Option<(&std::path::Path, ReadManifest<'_>)>,
) -> Result<Vec<Case>, String> {
    let mut cases = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line_no = n + 1;
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') || trimmed.starts_with("//") {
            continue;
        }
        let raw: CaseLine = crate::bounded::json_str(trimmed, crate::bounded::FILE)
            .map_err(|e| format!("line {line_no}: {e}"))?;
        let payload = match (&raw.prompt, &raw.payload) {
            (Some(prompt), None) => Payload {
                hook_event_name: None,
                prompt: Some(prompt.clone()),
                ..Payload::default()
            },
            (None, Some(map)) => Payload::from_map(map),
            _ => {
                return Err(format!(
                    "line {line_no}: give exactly one of `prompt` and `payload`"
                ));
            }
        };
        let mut availability = BTreeMap::new();
        if let Some(manifest) = &raw.manifest {
            let Some((base_dir, read)) = manifests else {
                return Err(format!(
                    "line {line_no}: a `manifest` needs the case file's folder"
                ));
            };
            let path = base_dir.join(manifest);
            let text = read(&path)
                .map_err(|e| format!("line {line_no}: manifest {}: {e}", path.shown()))?;
            let m: Manifest = crate::bounded::json_str(&text, crate::bounded::FILE)
                .map_err(|e| format!("line {line_no}: manifest {}: {e}", path.shown()))?;
            availability.extend(m.agents);
        }
        availability.extend(raw.availability.unwrap_or_default());
        cases.push(Case {
            agents: raw.agents,
            agent_skill: raw.agent_skill,
            lock: raw.lock.map(|l| match l {
                Names::One(id) => vec![id],
                Names::Many(ids) => ids,
            }),
            carry_forward: raw.carry_forward,
            carried_forward: raw.carried_forward,
            session: raw.session,
            availability,
            id: raw.id.unwrap_or_else(|| format!("line-{line_no}")),
            payload,
            host: raw.host.unwrap_or(Host::DEFAULT),
            event: raw.event,
            planning: raw.planning,
            context_mode: raw.context_mode,
            subagent_mode: raw.subagent_mode,
            detected_hotwords: raw.detected_hotwords,
            skills: raw.skills,
            accept: raw.accept.unwrap_or_default(),
            explicit: raw
                .note
                .as_deref()
                .is_some_and(|n| n.trim_start().starts_with("explicit")),
        });
    }
    Ok(cases)
}

/// Correct out of total, and the ratio: `None` (`null` in JSON, `n/a` in the table) when no case
/// measured it, so an empty metric never passes a floor by default.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Ratio {
    pub hits: usize,
    pub total: usize,
    pub value: Option<f64>,
}

impl Ratio {
    pub fn new(hits: usize, total: usize) -> Ratio {
        let value = (total > 0).then(|| hits as f64 / total as f64);
        Ratio { hits, total, value }
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RoutingMetrics {
    pub context_mode: Ratio,
    pub subagent_mode: Ratio,
    pub detected_hotwords: Ratio,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PerSkill {
    pub true_positives: usize,
    pub false_positives: usize,
    pub false_negatives: usize,
    /// `None` when the skill was never selected.
    pub precision: Option<f64>,
    /// `None` when the skill was never expected.
    pub recall: Option<f64>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SkillMetrics {
    /// Cases with an expected skill whose first selected skill is the first expected one.
    pub precision_at_1: Ratio,
    /// Selected skills that were expected, over all selected skills.
    pub precision: Ratio,
    /// Expected skills that were selected, over all expected skills.
    pub recall: Ratio,
    /// Cases that selected nothing and expected nothing, over cases that selected nothing.
    pub no_skill_precision: Ratio,
    /// Cases that selected nothing and expected nothing, over cases that expected nothing.
    pub no_skill_recall: Ratio,
    /// Of the cases where a skill was named, those whose first named skill is an expected one
    /// (on a case that expects nothing, any name is wrong).
    pub named_precision: Ratio,
    /// Cases with an expected skill whose first expected skill is among the first two of the
    /// ranking (selected skills, then runners-up), named or not.
    pub top2: Ratio,
    /// Coverage, `recall (named)`: of the cases with an expected skill, those whose first named
    /// skill is an expected one (an abstention is a miss).
    pub named_recall: Ratio,
    /// Of the cases with an expected skill, those whose ranking's first candidate (named or not)
    /// is an expected one: what the ranking knows before the decision to name.
    pub ranking_top1: Ratio,
    /// False names: of the cases that expect no skill, those that got a name (the complement of
    /// no-skill recall, said the way a user feels it).
    pub false_names: Ratio,
    /// Explicit-mention accuracy: of the cases that name their skill (`note` starting with
    /// `explicit`), those whose first named skill is the one named.
    pub explicit_mention: Ratio,
    /// Named precision against `recall (named)` as the threshold of the decision to name moves,
    /// lowest threshold first. The router's: over its learned confidence, at every tenth and at
    /// the hook's own threshold (prompts the rules decide are named as the hook names them at
    /// every point). BM25F's: over its top score, at every score where a point changes.
    pub curve: Vec<CurvePoint>,
    /// The confidence's reliability: the prompts the confidence decided, by tenths of the
    /// confidence of the ranking's first candidate, and how many of those candidates were right
    /// (a prompt that expects no skill has no right candidate). A calibrated confidence has
    /// each bin's share right near its confidence. Empty for BM25F and where the rules decide.
    pub reliability: Vec<ReliabilityBin>,
    pub per_skill: BTreeMap<String, PerSkill>,
}

/// One bin of [`SkillMetrics::reliability`]: confidences in `[from, to)` (the last bin holds 1).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReliabilityBin {
    pub from: f64,
    pub to: f64,
    /// Right first candidates over the prompts in the bin.
    pub right: Ratio,
}

/// The reliability bins of the cases the confidence decided (`Gate::Score`), by tenths.
fn reliability(cases: &[CurveCase]) -> Vec<ReliabilityBin> {
    let mut bins: Vec<(usize, usize)> = vec![(0, 0); 10];
    for c in cases {
        if let Gate::Score(p) = c.gate {
            let at = ((p.clamp(0.0, 1.0) * 10.0).floor() as usize).min(9);
            bins[at].1 += 1;
            bins[at].0 += usize::from(c.right && c.with_skill);
        }
    }
    if bins.iter().all(|b| b.1 == 0) {
        return Vec::new();
    }
    bins.into_iter()
        .enumerate()
        .map(|(i, (right, n))| ReliabilityBin {
            from: i as f64 / 10.0,
            to: (i + 1) as f64 / 10.0,
            right: Ratio::new(right, n),
        })
        .collect()
}

/// One point of the risk and coverage curve.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CurvePoint {
    pub threshold: f64,
    /// Right first names over names given (named precision) at this threshold.
    pub named_precision: Ratio,
    /// Right first names over cases with an expected skill.
    pub named_recall: Ratio,
    /// This is the threshold the hook names at.
    pub hook: bool,
}

/// How one case is named as the threshold moves: its candidate is named when its score reaches
/// the threshold, or always / never whatever the threshold (the rules decided).
#[derive(Debug, Clone, Copy)]
enum Gate {
    Score(f64),
    Fixed(bool),
}

/// One case as the curve reads it.
#[derive(Debug, Clone, Copy)]
struct CurveCase {
    /// The case expects a skill.
    with_skill: bool,
    /// The candidate named under [`Gate`] is an expected skill.
    right: bool,
    gate: Gate,
}

/// The curve over `cases` at `thresholds` (sorted, ascending); `hook` marks the hook's own.
fn curve(cases: &[CurveCase], thresholds: &[f64], hook: Option<f64>) -> Vec<CurvePoint> {
    let with_skill = cases.iter().filter(|c| c.with_skill).count();
    thresholds
        .iter()
        .map(|&t| {
            let named = cases.iter().filter(|c| match c.gate {
                Gate::Score(p) => p >= t,
                Gate::Fixed(named) => named,
            });
            let (mut given, mut right) = (0, 0);
            for c in named {
                given += 1;
                right += usize::from(c.right);
            }
            CurvePoint {
                threshold: t,
                named_precision: Ratio::new(right, given),
                named_recall: Ratio::new(right, with_skill),
                hook: hook == Some(t),
            }
        })
        .collect()
}

/// The router's thresholds: every tenth from 0 to 0.9 and the hook's own.
fn router_thresholds() -> (Vec<f64>, f64) {
    let hook = crate::stages::skills::confidence::HOOK.threshold;
    let mut t: Vec<f64> = (0..10).map(|i| f64::from(i) / 10.0).collect();
    t.push(hook);
    t.sort_by(f64::total_cmp);
    t.dedup();
    (t, hook)
}

/// The best `recall (named)` over the points of `curve` whose named precision is at least
/// `precision`, over `with_skill` cases with an expected skill (0 when no point reaches it). Read
/// on BM25F's curve it is BM25F at the same risk, its threshold chosen on the very cases it is
/// scored on, which can only flatter it.
pub fn recall_at_precision(curve: &[CurvePoint], precision: f64, with_skill: usize) -> Ratio {
    curve
        .iter()
        .filter(|p| p.named_precision.value.is_some_and(|v| v >= precision))
        .map(|p| p.named_recall)
        .max_by_key(|r| r.hits)
        .unwrap_or_else(|| Ratio::new(0, with_skill))
}

/// A case where a dimension came out wrong.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Miss {
    pub id: String,
    pub dimension: &'static str,
    pub expected: Value,
    pub got: Value,
}

/// Agent metrics, kept apart from the skill metrics.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentMetrics {
    /// Cases with an expected agent whose first recommendation is the first expected one.
    pub precision_at_1: Ratio,
    /// Recommended agents that were expected, over all recommended agents.
    pub precision: Ratio,
    /// Expected agents that were recommended, over all expected agents.
    pub recall: Ratio,
    /// Cases naming an agent whose recommendation is exactly that agent (or none when it is
    /// unavailable, with `locked-agent-unavailable`).
    pub lock_accuracy: Ratio,
    /// The first recommendation's `skillId` as expected.
    pub skill_pairing: Ratio,
    /// `carryForwardToImplementation` and carried-forward status as expected.
    pub carry_forward: Ratio,
    /// Cases where an unavailable agent was recommended (must be 0).
    pub unavailable_recommended: usize,
    /// Cases where an agent outside the catalog or a generic role was recommended (must be 0).
    pub generic_recommended: usize,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Report {
    pub cases: usize,
    pub routing: RoutingMetrics,
    pub skills: SkillMetrics,
    /// The same skill figures for BM25F over name, description and body (see
    /// `crate::stages::skills::bm25::Bm25f`), the trivial answer the router is read against.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skills_bm25_baseline: Option<SkillMetrics>,
    pub agents: AgentMetrics,
    pub misses: Vec<Miss>,
}

/// Role ids that mean "no particular role"; never to be recommended.
const GENERIC_ROLES: &[&str] = &[
    "default",
    "generic",
    "worker",
    "general-purpose",
    "general_purpose",
];

/// Runs every case against `project` and scores it. Cases of one `session` share planned
/// delegation, in file order; a case's `availability` applies to that case only.
pub fn run(cases: &[Case], project: &mut Project) -> Report {
    let mut report = Report {
        cases: cases.len(),
        ..Report::default()
    };
    let mut counts = Counts::default();
    let base_catalog = project.agents.clone().unwrap_or_else(default_catalog);
    let mut sessions = CarryForwardState::default();
    let epoch = chrono::DateTime::UNIX_EPOCH;
    for case in cases {
        let mut catalog = base_catalog.clone();
        for agent in &mut catalog.agents {
            if let Some(state) = case.availability.get(&agent.id) {
                agent.availability = *state;
            }
        }
        project.agents = Some(catalog);
        project.planned = case
            .session
            .as_ref()
            .and_then(|s| sessions.get(s, epoch).cloned());
        let decision = decide_case(case, project);
        if let (Some(session), Some(d)) = (&case.session, &decision) {
            let plan_mode = case.payload.permission_mode.as_deref() == Some("plan");
            match planned_from(&d.agents, plan_mode, epoch) {
                Some(p) => sessions.insert(session, p),
                None if d.agents.carry_forward.is_some() => {
                    sessions.remove(session);
                }
                None => {}
            }
        }
        let Some(decision) = decision else {
            report.misses.push(Miss {
                id: case.id.clone(),
                dimension: "event",
                expected: Value::from("an event sophia-hook answers"),
                got: Value::from(case.event.clone().or(case.payload.hook_event_name.clone())),
            });
            continue;
        };
        score_routing(case, &decision, &mut counts, &mut report.misses);
        score_skills(case, &decision, &mut counts, &mut report.misses);
        let catalog = project.agents.as_ref().expect("set above");
        score_agents(
            case,
            &decision,
            catalog,
            &mut counts.agents,
            &mut report.misses,
        );
    }
    project.agents = Some(base_catalog);
    project.planned = None;
    let a = &counts.agents;
    report.agents = AgentMetrics {
        precision_at_1: Ratio::new(a.top1.0, a.top1.1),
        precision: Ratio::new(a.overlap, a.recommended),
        recall: Ratio::new(a.overlap, a.expected),
        lock_accuracy: Ratio::new(a.lock.0, a.lock.1),
        skill_pairing: Ratio::new(a.pairing.0, a.pairing.1),
        carry_forward: Ratio::new(a.carry.0, a.carry.1),
        unavailable_recommended: a.unavailable,
        generic_recommended: a.generic,
    };
    report.routing = RoutingMetrics {
        context_mode: Ratio::new(counts.context.0, counts.context.1),
        subagent_mode: Ratio::new(counts.subagent.0, counts.subagent.1),
        detected_hotwords: Ratio::new(counts.hotwords.0, counts.hotwords.1),
    };
    let s = &counts.skills;
    let (thresholds, hook) = router_thresholds();
    report.skills = SkillMetrics {
        curve: curve(&s.curve, &thresholds, Some(hook)),
        reliability: reliability(&s.curve),
        per_skill: s
            .per_skill
            .iter()
            .map(|(id, (tp, fp, fn_))| {
                let p = Ratio::new(*tp, tp + fp).value;
                let r = Ratio::new(*tp, tp + fn_).value;
                (
                    id.clone(),
                    PerSkill {
                        true_positives: *tp,
                        false_positives: *fp,
                        false_negatives: *fn_,
                        precision: p,
                        recall: r,
                    },
                )
            })
            .collect(),
        ..skill_ratios(s)
    };
    report
}

/// The decision for one case, as hook mode would make it.
pub fn decide_case(case: &Case, project: &Project) -> Option<Decision> {
    let (event, wire_event) =
        decision::resolve_event(case.host, case.event.as_deref(), &case.payload)?;
    let request = HookRequest {
        host: case.host,
        event,
        wire_event,
        payload: &case.payload,
        planning_flag: case.planning,
        // Eval applies no effects: the instant only stamps a plan that is never recorded.
        now: chrono::DateTime::UNIX_EPOCH,
    };
    Some(decision::decide(&request, project))
}

#[derive(Default)]
struct Counts {
    context: (usize, usize),
    subagent: (usize, usize),
    hotwords: (usize, usize),
    skills: SkillCounts,
    agents: AgentCounts,
}

#[derive(Default)]
struct AgentCounts {
    top1: (usize, usize),
    overlap: usize,
    recommended: usize,
    expected: usize,
    lock: (usize, usize),
    pairing: (usize, usize),
    carry: (usize, usize),
    unavailable: usize,
    generic: usize,
}

fn score_agents(
    case: &Case,
    decision: &Decision,
    catalog: &crate::stages::agents::catalog::AgentCatalog,
    a: &mut AgentCounts,
    misses: &mut Vec<Miss>,
) {
    let got: Vec<String> = decision
        .agents
        .recommended_agents
        .iter()
        .map(|r| r.agent_id.clone())
        .collect();
    // Invariants, checked on every case: over the recommendations and over the agents of a
    // planned delegation carried forward to this prompt.
    let carried = decision
        .agents
        .carry_forward
        .iter()
        .flat_map(|c| c.agents.iter().cloned());
    for id in got.iter().cloned().chain(carried) {
        let dimension = match catalog.agent(&id) {
            Some(agent) if agent.availability == Availability::Unavailable => {
                a.unavailable += 1;
                "unavailableRecommended"
            }
            None => {
                a.generic += 1;
                "genericRecommended"
            }
            Some(_) if GENERIC_ROLES.contains(&id.as_str()) => {
                a.generic += 1;
                "genericRecommended"
            }
            Some(_) => continue,
        };
        misses.push(Miss {
            id: case.id.clone(),
            dimension,
            expected: Value::from("never"),
            got: Value::from(id),
        });
    }
    if let Some(expected) = &case.agents {
        if let Some(first) = expected.first() {
            a.top1.1 += 1;
            if got.first() == Some(first) {
                a.top1.0 += 1;
            }
        }
        let overlap = got.iter().filter(|g| expected.contains(g)).count();
        a.overlap += overlap;
        a.recommended += got.len();
        a.expected += expected.len();
        if got != *expected {
            misses.push(Miss {
                id: case.id.clone(),
                dimension: "agents",
                expected: Value::from(expected.clone()),
                got: Value::from(got.clone()),
            });
        }
    }
    if let Some(lock) = &case.lock {
        let available = lock.iter().all(|id| {
            catalog
                .agent(id)
                .is_some_and(|x| x.availability != Availability::Unavailable)
        });
        let ok = if available {
            got == *lock
        } else {
            got.is_empty()
                && decision.agents.fallback_reason.as_deref() == Some("locked-agent-unavailable")
        };
        check(&case.id, "lock", &true, &ok, &mut a.lock, misses);
    }
    if let Some(expected) = &case.agent_skill {
        let got_skill = decision
            .agents
            .recommended_agents
            .first()
            .and_then(|r| r.skill_id.clone());
        check(
            &case.id,
            "agentSkill",
            expected,
            &got_skill,
            &mut a.pairing,
            misses,
        );
    }
    if let Some(expected) = &case.carry_forward {
        let got_cf = decision.agents.carry_forward_to_implementation;
        check(
            &case.id,
            "carryForwardToImplementation",
            expected,
            &got_cf,
            &mut a.carry,
            misses,
        );
    }
    if let Some(expected) = &case.carried_forward {
        let got_status = decision.agents.carry_forward.as_ref().map(|c| c.status);
        check(
            &case.id,
            "carriedForward",
            expected,
            &got_status,
            &mut a.carry,
            misses,
        );
    }
}

#[derive(Default)]
struct SkillCounts {
    top1: (usize, usize),
    overlap: usize,
    selected: usize,
    expected: usize,
    both_empty: usize,
    selected_empty: usize,
    expected_empty: usize,
    named: (usize, usize),
    top2: (usize, usize),
    named_recall: (usize, usize),
    ranking_top1: (usize, usize),
    explicit: (usize, usize),
    curve: Vec<CurveCase>,
    /// (true positives, false positives, false negatives) per skill id.
    per_skill: BTreeMap<String, (usize, usize, usize)>,
}

fn check<T: Serialize + PartialEq>(
    id: &str,
    dimension: &'static str,
    expected: &T,
    got: &T,
    tally: &mut (usize, usize),
    misses: &mut Vec<Miss>,
) {
    tally.1 += 1;
    if expected == got {
        tally.0 += 1;
    } else {
        misses.push(Miss {
            id: id.to_owned(),
            dimension,
            expected: serde_json::to_value(expected).unwrap_or(Value::Null),
            got: serde_json::to_value(got).unwrap_or(Value::Null),
        });
    }
}

fn score_routing(case: &Case, decision: &Decision, counts: &mut Counts, misses: &mut Vec<Miss>) {
    let Some(routing) = &decision.routing else {
        return;
    };
    if let Some(expected) = &case.context_mode {
        check(
            &case.id,
            "contextMode",
            expected,
            &routing.context_mode,
            &mut counts.context,
            misses,
        );
    }
    if let Some(expected) = &case.subagent_mode {
        check(
            &case.id,
            "subagentMode",
            expected,
            &routing.subagent_mode,
            &mut counts.subagent,
            misses,
        );
    }
    if let Some(expected) = &case.detected_hotwords {
        let got: Vec<String> = routing
            .detected_hotwords
            .iter()
            .map(|h| h.as_str().to_owned())
            .collect();
        let mut e = expected.clone();
        let mut g = got.clone();
        e.sort();
        g.sort();
        check(
            &case.id,
            "detectedHotwords",
            &e,
            &g,
            &mut counts.hotwords,
            misses,
        );
    }
}

/// Named precision, `recall (named)`, ranking top-1 and top-2 of one case: `got` is what was
/// named, `ranked` the ranking, `accept` the other skills that are right too.
fn count_named_and_top2(
    s: &mut SkillCounts,
    expected: &[String],
    accept: &[String],
    got: &[String],
    ranked: &[&str],
) {
    let right = |id: &str| expected.iter().chain(accept).any(|e| e == id);
    let named_right = got.first().is_some_and(|g| right(g));
    if !got.is_empty() {
        s.named.1 += 1;
        s.named.0 += usize::from(named_right);
    }
    if let Some(first) = expected.first() {
        s.top2.1 += 1;
        s.top2.0 += usize::from(ranked.iter().take(2).any(|r| r == first));
        s.named_recall.1 += 1;
        s.named_recall.0 += usize::from(named_right);
        s.ranking_top1.1 += 1;
        s.ranking_top1.0 += usize::from(ranked.first().is_some_and(|r| right(r)));
    }
}

/// The figures of [`SkillCounts`] (the per-skill table and the curve are the caller's).
fn skill_ratios(s: &SkillCounts) -> SkillMetrics {
    SkillMetrics {
        precision_at_1: Ratio::new(s.top1.0, s.top1.1),
        precision: Ratio::new(s.overlap, s.selected),
        recall: Ratio::new(s.overlap, s.expected),
        no_skill_precision: Ratio::new(s.both_empty, s.selected_empty),
        no_skill_recall: Ratio::new(s.both_empty, s.expected_empty),
        named_precision: Ratio::new(s.named.0, s.named.1),
        top2: Ratio::new(s.top2.0, s.top2.1),
        named_recall: Ratio::new(s.named_recall.0, s.named_recall.1),
        ranking_top1: Ratio::new(s.ranking_top1.0, s.ranking_top1.1),
        false_names: Ratio::new(
            s.expected_empty - s.both_empty.min(s.expected_empty),
            s.expected_empty,
        ),
        explicit_mention: Ratio::new(s.explicit.0, s.explicit.1),
        curve: Vec::new(),
        reliability: Vec::new(),
        per_skill: BTreeMap::new(),
    }
}

fn score_skills(case: &Case, decision: &Decision, counts: &mut Counts, misses: &mut Vec<Miss>) {
    let Some(expected) = &case.skills else {
        return;
    };
    let got: Vec<String> = decision.skills.selected_ids().map(str::to_owned).collect();
    let ranked: Vec<&str> = decision
        .skills
        .selected
        .iter()
        .chain(&decision.skills.runners_up)
        .map(|m| m.skill_id.as_str())
        .collect();
    let s = &mut counts.skills;
    if let Some(first) = expected.first() {
        s.top1.1 += 1;
        if got.first() == Some(first) {
            s.top1.0 += 1;
        }
    }
    count_named_and_top2(s, expected, &case.accept, &got, &ranked);
    if case.explicit {
        s.explicit.1 += 1;
        s.explicit.0 += usize::from(got.first().is_some_and(|g| expected.first() == Some(g)));
    }
    let right = |id: &str| expected.iter().chain(&case.accept).any(|e| e == id);
    // The confidence decided: the ranking's first candidate is named when its confidence
    // reaches the threshold. The rules decided: named as the hook named, at every threshold.
    s.curve
        .push(match (decision.skills.first_confidence, ranked.first()) {
            (Some(p), Some(first)) => CurveCase {
                with_skill: !expected.is_empty(),
                right: right(first),
                gate: Gate::Score(p),
            },
            _ => CurveCase {
                with_skill: !expected.is_empty(),
                right: got.first().is_some_and(|g| right(g)),
                gate: Gate::Fixed(!got.is_empty()),
            },
        });
    let overlap = got.iter().filter(|g| expected.contains(g)).count();
    s.overlap += overlap;
    s.selected += got.len();
    s.expected += expected.len();
    if got.is_empty() {
        s.selected_empty += 1;
    }
    if expected.is_empty() {
        s.expected_empty += 1;
    }
    if got.is_empty() && expected.is_empty() {
        s.both_empty += 1;
    }
    for g in &got {
        let entry = s.per_skill.entry(g.clone()).or_default();
        if expected.contains(g) {
            entry.0 += 1;
        } else {
            entry.1 += 1;
        }
    }
    for e in expected.iter().filter(|e| !got.contains(e)) {
        s.per_skill.entry(e.clone()).or_default().2 += 1;
    }
    let first_ok = got.first() == expected.first();
    let same_set = got.len() == expected.len() && overlap == got.len();
    if !(first_ok && same_set) {
        misses.push(Miss {
            id: case.id.clone(),
            dimension: "skills",
            expected: Value::from(expected.clone()),
            got: Value::from(got),
        });
    }
}

/// The skill figures of the BM25F baseline on the same cases (hotwords stripped, as the router
/// sees the prompt). Its misses are not listed; `per_skill` stays empty.
pub fn bm25_baseline(cases: &[Case], bm25: &crate::stages::skills::bm25::Bm25f) -> SkillMetrics {
    let mut s = SkillCounts::default();
    for case in cases {
        let Some(expected) = &case.skills else {
            continue;
        };
        let prompt = case.payload.prompt.as_deref().unwrap_or_default();
        let stripped = crate::stages::hotword::parse(prompt).stripped;
        let got: Vec<String> = bm25
            .select(stripped)
            .map(str::to_owned)
            .into_iter()
            .collect();
        let scores = bm25.scores(stripped);
        let ranked: Vec<&str> = scores
            .iter()
            .filter(|(score, _)| *score > 0.0)
            .map(|(_, id)| *id)
            .collect();
        count_named_and_top2(&mut s, expected, &case.accept, &got, &ranked);
        // Named at a threshold when the baseline's rule names its top skill and the top score
        // reaches the threshold.
        s.curve.push(CurveCase {
            with_skill: !expected.is_empty(),
            right: got
                .first()
                .is_some_and(|g| expected.iter().chain(&case.accept).any(|e| e == g)),
            gate: match scores.first() {
                Some((top, _)) if !got.is_empty() => Gate::Score(*top),
                _ => Gate::Fixed(false),
            },
        });
        if let Some(first) = expected.first() {
            s.top1.1 += 1;
            if got.first() == Some(first) {
                s.top1.0 += 1;
            }
        }
        s.overlap += got.iter().filter(|g| expected.contains(g)).count();
        s.selected += got.len();
        s.expected += expected.len();
        s.selected_empty += usize::from(got.is_empty());
        s.expected_empty += usize::from(expected.is_empty());
        s.both_empty += usize::from(got.is_empty() && expected.is_empty());
    }
    // Every top score where a case enters or leaves the named set, lowest first.
    let mut thresholds: Vec<f64> = s
        .curve
        .iter()
        .filter_map(|c| match c.gate {
            Gate::Score(p) => Some(p),
            Gate::Fixed(_) => None,
        })
        .collect();
    thresholds.sort_by(f64::total_cmp);
    thresholds.dedup();
    SkillMetrics {
        curve: curve(&s.curve, &thresholds, None),
        ..skill_ratios(&s)
    }
}

/// Minimum figures; a report below any of them fails.
#[derive(Debug, Clone, Default)]
pub struct Floors {
    pub context_accuracy: Option<f64>,
    pub subagent_accuracy: Option<f64>,
    pub hotword_accuracy: Option<f64>,
    pub skill_precision_at_1: Option<f64>,
    pub skill_precision: Option<f64>,
    pub skill_recall: Option<f64>,
    pub no_skill_precision: Option<f64>,
    pub no_skill_recall: Option<f64>,
    pub named_precision: Option<f64>,
    pub named_recall: Option<f64>,
    pub ranking_top1: Option<f64>,
    pub explicit_mention: Option<f64>,
    pub agent_precision_at_1: Option<f64>,
    pub agent_precision: Option<f64>,
    pub agent_recall: Option<f64>,
    pub lock_accuracy: Option<f64>,
    pub agent_skill_pairing: Option<f64>,
    pub carry_forward_accuracy: Option<f64>,
}

impl Floors {
    /// Every floor with its name, its command-line flag and the figure it bounds.
    fn checks<'r>(
        &self,
        r: &'r Report,
    ) -> [(&'static str, &'static str, Option<f64>, &'r Ratio); 18] {
        let (routing, skills, agents) = (&r.routing, &r.skills, &r.agents);
        [
            (
                "context accuracy",
                "--min-context-accuracy",
                self.context_accuracy,
                &routing.context_mode,
            ),
            (
                "subagent accuracy",
                "--min-subagent-accuracy",
                self.subagent_accuracy,
                &routing.subagent_mode,
            ),
            (
                "hotword accuracy",
                "--min-hotword-accuracy",
                self.hotword_accuracy,
                &routing.detected_hotwords,
            ),
            (
                "skill precision@1",
                "--min-skill-precision-at-1",
                self.skill_precision_at_1,
                &skills.precision_at_1,
            ),
            (
                "skill precision",
                "--min-skill-precision",
                self.skill_precision,
                &skills.precision,
            ),
            (
                "skill recall",
                "--min-skill-recall",
                self.skill_recall,
                &skills.recall,
            ),
            (
                "no-skill precision",
                "--min-no-skill-precision",
                self.no_skill_precision,
                &skills.no_skill_precision,
            ),
            (
                "no-skill recall",
                "--min-no-skill-recall",
                self.no_skill_recall,
                &skills.no_skill_recall,
            ),
            (
                "named precision",
                "--min-named-precision",
                self.named_precision,
                &skills.named_precision,
            ),
            (
                "recall (named)",
                "--min-recall",
                self.named_recall,
                &skills.named_recall,
            ),
            (
                "ranking top-1",
                "--min-ranking-top-1",
                self.ranking_top1,
                &skills.ranking_top1,
            ),
            (
                "explicit-mention accuracy",
                "--min-explicit-mention",
                self.explicit_mention,
                &skills.explicit_mention,
            ),
            (
                "agent precision@1",
                "--min-agent-precision-at-1",
                self.agent_precision_at_1,
                &agents.precision_at_1,
            ),
            (
                "agent precision",
                "--min-agent-precision",
                self.agent_precision,
                &agents.precision,
            ),
            (
                "agent recall",
                "--min-agent-recall",
                self.agent_recall,
                &agents.recall,
            ),
            (
                "lock accuracy",
                "--min-lock-accuracy",
                self.lock_accuracy,
                &agents.lock_accuracy,
            ),
            (
                "agent skill pairing",
                "--min-agent-skill-pairing",
                self.agent_skill_pairing,
                &agents.skill_pairing,
            ),
            (
                "carry-forward accuracy",
                "--min-carry-forward-accuracy",
                self.carry_forward_accuracy,
                &agents.carry_forward,
            ),
        ]
    }

    /// The floors the report misses, as readable lines naming the floor's flag. A floor on a
    /// metric no case measured is missed too: it cannot be checked.
    pub fn failures(&self, report: &Report) -> Vec<String> {
        self.checks(report)
            .into_iter()
            .filter_map(|(name, flag, floor, ratio)| {
                let floor = floor?;
                match ratio.value {
                    None => Some(format!(
                        "no cases for {name}: the floor {flag} {floor:.3} cannot be checked"
                    )),
                    Some(value) if value < floor || floor.is_nan() => Some(format!(
                        "{name} {value:.3} ({}/{}) is below the floor {flag} {floor:.3}",
                        ratio.hits, ratio.total
                    )),
                    Some(_) => None,
                }
            })
            .collect()
    }
}

/// The invariants the report breaks, whatever the floors: an unavailable agent recommended, a
/// generic or unknown role recommended.
pub fn invariant_failures(report: &Report) -> Vec<String> {
    let a = &report.agents;
    [
        ("unavailable recommended", a.unavailable_recommended),
        ("generic recommended", a.generic_recommended),
    ]
    .into_iter()
    .filter(|(_, n)| *n > 0)
    .map(|(name, n)| format!("{name} is {n}, must be 0"))
    .collect()
}

/// A ratio as a percentage, or `n/a` when nothing measured it.
fn percent(value: Option<f64>, width: usize) -> String {
    match value {
        Some(v) => format!("{:>width$.1}%", v * 100.0),
        None => format!("{:>width$} ", "n/a"),
    }
}

/// The risk and coverage table: named precision and `recall (named)` at each threshold of the
/// router's curve, beside BM25F's best recall at that precision or above.
fn render_curve(out: &mut String, s: &SkillMetrics, bm25: Option<&SkillMetrics>) {
    if s.curve.iter().all(|p| p.named_recall.total == 0) {
        return;
    }
    out.push_str(
        "\nrisk and coverage (the confidence threshold moves; BM25F's threshold on its top score \
         is chosen on these cases)\n  threshold   named precision       recall (named)        \
         BM25F recall at that precision\n",
    );
    let cell = |r: &Ratio| {
        format!(
            "{} {:>9}",
            percent(r.value, 6),
            format!("({}/{})", r.hits, r.total)
        )
    };
    for p in &s.curve {
        let bm = bm25.map_or_else(String::new, |b| {
            p.named_precision.value.map_or_else(String::new, |v| {
                cell(&recall_at_precision(&b.curve, v, b.named_recall.total))
            })
        });
        out.push_str(&format!(
            "  {:<10}  {:<20}  {:<20}  {bm}\n",
            if p.hook {
                format!("{:.3} hook", p.threshold)
            } else {
                format!("{:.3}", p.threshold)
            },
            cell(&p.named_precision),
            cell(&p.named_recall),
        ));
    }
}

/// The report as a readable table.
pub fn render_table(report: &Report) -> String {
    let mut out = format!("cases: {}\n", report.cases);
    let section = |out: &mut String, title: &str, rows: &[(&str, &Ratio)]| {
        out.push_str(&format!("\n{title}\n"));
        for (label, r) in rows {
            out.push_str(&format!(
                "  {label:<26} {}  ({}/{})\n",
                percent(r.value, 6),
                r.hits,
                r.total
            ));
        }
    };
    let (r, s, a) = (&report.routing, &report.skills, &report.agents);
    section(
        &mut out,
        "routing",
        &[
            ("contextMode accuracy", &r.context_mode),
            ("subagentMode accuracy", &r.subagent_mode),
            ("detectedHotwords accuracy", &r.detected_hotwords),
        ],
    );
    section(
        &mut out,
        "skills",
        &[
            ("precision@1", &s.precision_at_1),
            ("precision (selected sets)", &s.precision),
            ("recall (selected sets)", &s.recall),
            ("no-skill precision", &s.no_skill_precision),
            ("no-skill recall", &s.no_skill_recall),
            ("named precision", &s.named_precision),
            ("recall (named)", &s.named_recall),
            ("ranking top-1", &s.ranking_top1),
            ("top-2", &s.top2),
            ("false names (no-skill cases named)", &s.false_names),
            ("explicit-mention accuracy", &s.explicit_mention),
        ],
    );
    if let Some(b) = &report.skills_bm25_baseline {
        section(
            &mut out,
            "skills: BM25F baseline (name + description + body)",
            &[
                ("precision@1", &b.precision_at_1),
                ("precision (selected sets)", &b.precision),
                ("recall (selected sets)", &b.recall),
                ("no-skill precision", &b.no_skill_precision),
                ("no-skill recall", &b.no_skill_recall),
                ("named precision", &b.named_precision),
                ("recall (named)", &b.named_recall),
                ("ranking top-1", &b.ranking_top1),
                ("top-2", &b.top2),
            ],
        );
    }
    render_curve(&mut out, s, report.skills_bm25_baseline.as_ref());
    if !s.reliability.is_empty() {
        out.push_str(
            "\nreliability (prompts the confidence decided, by the confidence of the first \
             candidate: the share whose candidate is right)\n",
        );
        for b in s.reliability.iter().filter(|b| b.right.total > 0) {
            out.push_str(&format!(
                "  {:.1}-{:.1}  {} {:>9}\n",
                b.from,
                b.to,
                percent(b.right.value, 6),
                format!("({}/{})", b.right.hits, b.right.total)
            ));
        }
    }
    if !s.per_skill.is_empty() {
        out.push_str("\n  per skill                      tp   fp   fn  precision  recall\n");
        for (id, p) in &s.per_skill {
            out.push_str(&format!(
                "  {id:<30} {:>3}  {:>3}  {:>3}  {}  {}\n",
                p.true_positives,
                p.false_positives,
                p.false_negatives,
                percent(p.precision, 8),
                percent(p.recall, 5)
            ));
        }
    }
    section(
        &mut out,
        "agents",
        &[
            ("precision@1", &a.precision_at_1),
            ("precision (recommended)", &a.precision),
            ("recall (recommended)", &a.recall),
            ("lock accuracy", &a.lock_accuracy),
            ("skill pairing", &a.skill_pairing),
            ("carry-forward", &a.carry_forward),
        ],
    );
    out.push_str(&format!(
        "  {:<26} {}\n",
        "unavailable recommended", a.unavailable_recommended
    ));
    out.push_str(&format!(
        "  {:<26} {}\n",
        "generic recommended", a.generic_recommended
    ));
    out.push_str(&format!("\nmisses: {}\n", report.misses.len()));
    for m in &report.misses {
        out.push_str(&format!(
            "  {}  {}: expected {} got {}\n",
            m.id, m.dimension, m.expected, m.got
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stages::skills::default_catalog;
    use crate::stages::skills::router::SkillRouter;

    fn project() -> Project {
        Project {
            skills: Some(SkillRouter::new(default_catalog())),
            ..Project::default()
        }
    }

    #[test]
    fn agent_metrics_locks_availability_and_sessions() {
        let text = r#"
{"id":"a1","prompt":"!agents analizza il ticket Mantis 123 e ricostruisci la causa","agents":["technical_analyst"],"agentSkill":"mcp-technical-analyst"}
{"id":"a2","prompt":"!agents usa il code_reviewer per la diff","lock":"code_reviewer","agents":["code_reviewer"]}
{"id":"a3","prompt":"!agents usa il code_reviewer per la diff","lock":"code_reviewer","availability":{"code_reviewer":"unavailable"},"agents":[]}
{"id":"a4","prompt":"!agents analizza i log","availability":{"technical_analyst":"unavailable"},"agents":["scout"]}
{"id":"p1","session":"s1","payload":{"hook_event_name":"UserPromptSubmit","permission_mode":"plan","prompt":"!agents analizza i log"},"carryForward":true,"carriedForward":null}
{"id":"p2","session":"s1","prompt":"procedi","carryForward":false,"carriedForward":"applied","agents":[]}
{"id":"p3","session":"s1","prompt":"procedi","carriedForward":null}
"#;
        let report = run(&parse_cases(text).unwrap(), &mut project());
        let a = &report.agents;
        assert_eq!(
            (a.precision_at_1.hits, a.precision_at_1.total),
            (3, 3),
            "{:?}",
            report.misses
        );
        assert_eq!((a.lock_accuracy.hits, a.lock_accuracy.total), (2, 2));
        assert_eq!((a.skill_pairing.hits, a.skill_pairing.total), (1, 1));
        assert_eq!(
            (a.carry_forward.hits, a.carry_forward.total),
            (5, 5),
            "{:?}",
            report.misses
        );
        assert_eq!(a.unavailable_recommended, 0);
        assert_eq!(a.generic_recommended, 0);
        assert!(report.misses.is_empty(), "{:?}", report.misses);
        // A wrong expectation is a miss.
        let wrong = r#"{"id":"w","prompt":"!agents analizza i log","agents":["implementer"],"lock":"implementer"}"#;
        let report = run(&parse_cases(wrong).unwrap(), &mut project());
        let dims: Vec<&str> = report.misses.iter().map(|m| m.dimension).collect();
        assert_eq!(dims, ["agents", "lock"]);
    }

    #[test]
    fn parses_prompt_and_payload_cases() {
        let text = r#"
# a comment
{"id":"a","prompt":"!quick spiegami SQL","contextMode":"light","skills":["mcp-database-expert"]}
{"payload":{"hook_event_name":"UserPromptSubmit","prompt":"x","permission_mode":"plan"},"host":"claude","subagentMode":"off"}
"#;
        let cases = parse_cases(text).unwrap();
        assert_eq!(cases.len(), 2);
        assert_eq!(cases[0].id, "a");
        assert_eq!(cases[1].id, "line-4");
        assert_eq!(cases[1].host, Host::Claude);
        assert_eq!(cases[1].payload.permission_mode.as_deref(), Some("plan"));
        assert!(
            parse_cases(r#"{"prompt":"x","bogus":1}"#)
                .unwrap_err()
                .contains("line 1")
        );
        assert!(
            parse_cases(r#"{"contextMode":"light"}"#)
                .unwrap_err()
                .contains("exactly one")
        );
    }

    #[test]
    fn scores_hits_and_misses() {
        let text = r#"
{"id":"ok","prompt":"!quick spiegami la query SQL","contextMode":"light","subagentMode":"off","detectedHotwords":["!quick"],"skills":["mcp-database-expert"]}
{"id":"wrong-mode","prompt":"!quick spiegami","contextMode":"full","skills":[]}
{"id":"wrong-skill","prompt":"esegui una query sql","skills":["mcp-office-expert"]}
{"id":"none","prompt":"ciao","skills":[]}
"#;
        let report = run(&parse_cases(text).unwrap(), &mut project());
        assert_eq!(report.cases, 4);
        assert_eq!(
            (
                report.routing.context_mode.hits,
                report.routing.context_mode.total
            ),
            (1, 2)
        );
        assert_eq!(
            (
                report.skills.precision_at_1.hits,
                report.skills.precision_at_1.total
            ),
            (1, 2)
        );
        assert_eq!(
            (report.skills.precision.hits, report.skills.precision.total),
            (1, 2)
        );
        assert_eq!(
            (report.skills.recall.hits, report.skills.recall.total),
            (1, 2)
        );
        assert_eq!(
            (
                report.skills.no_skill_precision.hits,
                report.skills.no_skill_precision.total
            ),
            (2, 2)
        );
        // Named twice (`ok` right, `wrong-skill` wrong); the two `[]` cases named nothing.
        assert_eq!(
            (
                report.skills.named_precision.hits,
                report.skills.named_precision.total
            ),
            (1, 2)
        );
        assert_eq!((report.skills.top2.hits, report.skills.top2.total), (1, 2));
        assert_eq!(
            report.skills.per_skill["mcp-database-expert"].false_positives,
            1
        );
        assert_eq!(
            report.skills.per_skill["mcp-office-expert"].false_negatives,
            1
        );
        let ids: Vec<&str> = report.misses.iter().map(|m| m.id.as_str()).collect();
        assert_eq!(ids, ["wrong-mode", "wrong-skill"]);
        let table = render_table(&report);
        assert!(table.contains("contextMode accuracy") && table.contains("wrong-skill"));
        let floors = Floors {
            context_accuracy: Some(0.9),
            no_skill_precision: Some(0.9),
            named_precision: Some(0.5),
            ..Floors::default()
        };
        assert_eq!(
            floors.failures(&report),
            ["context accuracy 0.500 (1/2) is below the floor --min-context-accuracy 0.900"]
        );
        let floors = Floors {
            named_precision: Some(0.51),
            ..Floors::default()
        };
        assert_eq!(
            floors.failures(&report),
            ["named precision 0.500 (1/2) is below the floor --min-named-precision 0.510"]
        );
        assert!(table.contains("named precision") && table.contains("top-2"));
        // Coverage over the two cases with a skill: `ok` named right, `wrong-skill` named
        // `mcp-database-expert` first; the ranking's first is the same name on both.
        let pair = |r: &Ratio| (r.hits, r.total);
        assert_eq!(pair(&report.skills.named_recall), (1, 2));
        assert_eq!(pair(&report.skills.ranking_top1), (1, 2));
        let floors = Floors {
            named_recall: Some(0.5),
            ranking_top1: Some(0.5),
            ..Floors::default()
        };
        assert!(floors.failures(&report).is_empty());
        let floors = Floors {
            named_recall: Some(0.51),
            ranking_top1: Some(0.51),
            ..Floors::default()
        };
        assert_eq!(
            floors.failures(&report),
            [
                "recall (named) 0.500 (1/2) is below the floor --min-recall 0.510",
                "ranking top-1 0.500 (1/2) is below the floor --min-ranking-top-1 0.510"
            ]
        );
        assert!(table.contains("recall (named)") && table.contains("ranking top-1"));
    }

    #[test]
    fn the_curve_names_by_score_and_keeps_what_the_rules_decided() {
        let c = |with_skill, right, gate| CurveCase {
            with_skill,
            right,
            gate,
        };
        let cases = [
            c(true, true, Gate::Score(0.9)),
            c(true, false, Gate::Score(0.5)),
            c(false, false, Gate::Score(0.7)),
            c(true, true, Gate::Fixed(true)),
            c(true, false, Gate::Fixed(false)),
            c(false, false, Gate::Fixed(false)),
        ];
        let points = curve(&cases, &[0.0, 0.6, 0.8, 1.0], Some(0.6));
        let at = |p: &CurvePoint| {
            (
                p.threshold,
                (p.named_precision.hits, p.named_precision.total),
                (p.named_recall.hits, p.named_recall.total),
                p.hook,
            )
        };
        // Counted by hand: four cases expect a skill; the fixed ones are named (or not) at every
        // threshold, a scored one from its score up.
        assert_eq!(
            points.iter().map(at).collect::<Vec<_>>(),
            [
                (0.0, (2, 4), (2, 4), false),
                (0.6, (2, 3), (2, 4), true),
                (0.8, (2, 2), (2, 4), false),
                (1.0, (1, 1), (1, 4), false),
            ]
        );
        let pair = |r: Ratio| (r.hits, r.total);
        // The best recall at that precision or above: 0.6 is reached from 0.6 up (2 right).
        assert_eq!(pair(recall_at_precision(&points, 0.6, 4)), (2, 4));
        assert_eq!(pair(recall_at_precision(&points, 1.0, 4)), (2, 4));
        assert_eq!(pair(recall_at_precision(&points, 0.5, 4)), (2, 4));
        // A curve that never names: 0 right of the cases with a skill, not "n/a".
        assert_eq!(pair(recall_at_precision(&[], 0.5, 4)), (0, 4));
        let never = curve(&cases, &[2.0], None);
        assert_eq!(pair(recall_at_precision(&never, 1.0, 4)), (1, 4));
        assert_eq!(pair(recall_at_precision(&never, 1.01, 4)), (0, 4));
    }

    #[test]
    fn reliability_bins_the_confidence_decided_cases_by_tenths() {
        let case = |p: Option<f64>, right: bool, with_skill: bool| CurveCase {
            with_skill,
            right,
            gate: p.map_or(Gate::Fixed(true), Gate::Score),
        };
        let cases = [
            case(Some(0.05), false, true),
            case(Some(0.95), true, true),
            case(Some(1.0), true, true),
            case(Some(0.95), false, false),
            case(Some(0.31), true, true),
            // The rules decided: not the confidence's, not binned.
            case(None, true, true),
        ];
        let bins = reliability(&cases);
        assert_eq!(bins.len(), 10);
        let at = |i: usize| (bins[i].right.hits, bins[i].right.total);
        assert_eq!(at(0), (0, 1));
        assert_eq!(at(3), (1, 1));
        // 1.0 is in the last bin; a no-skill prompt's candidate is never right.
        assert_eq!(at(9), (2, 3));
        assert_eq!(bins.iter().map(|b| b.right.total).sum::<usize>(), 5);
        assert_eq!((bins[9].from, bins[9].to), (0.9, 1.0));
        assert!(reliability(&[case(None, true, true)]).is_empty());
    }

    #[test]
    fn a_metric_over_no_cases_is_not_a_pass() {
        let report = run(
            &parse_cases(r#"{"id":"r","prompt":"ciao","contextMode":"full"}"#).unwrap(),
            &mut project(),
        );
        assert_eq!(
            report.agents.recall,
            Ratio {
                hits: 0,
                total: 0,
                value: None
            }
        );
        assert_eq!(report.routing.context_mode.value, Some(1.0));
        let json = serde_json::to_value(&report).unwrap();
        assert_eq!(json["agents"]["recall"]["value"], Value::Null);
        let table = render_table(&report);
        let row = table
            .lines()
            .find(|l| l.contains("recall (recommended)"))
            .unwrap();
        assert!(row.contains("n/a") && row.contains("(0/0)"), "{row}");
        assert_eq!(report.skills.named_precision.value, None);
        assert_eq!(json["skills"]["namedPrecision"]["value"], Value::Null);
        let row = table
            .lines()
            .find(|l| l.contains("named precision"))
            .unwrap();
        assert!(row.contains("n/a") && row.contains("(0/0)"), "{row}");
        let floors = Floors {
            agent_recall: Some(0.0),
            context_accuracy: Some(1.0),
            named_precision: Some(0.0),
            ..Floors::default()
        };
        assert_eq!(
            floors.failures(&report),
            [
                "no cases for named precision: the floor --min-named-precision 0.000 cannot be checked",
                "no cases for agent recall: the floor --min-agent-recall 0.000 cannot be checked"
            ]
        );
        assert!(invariant_failures(&report).is_empty());
    }

    #[test]
    fn invariants_fail_when_not_zero() {
        let report = Report {
            agents: AgentMetrics {
                unavailable_recommended: 2,
                generic_recommended: 1,
                ..AgentMetrics::default()
            },
            ..Report::default()
        };
        assert_eq!(
            invariant_failures(&report),
            [
                "unavailable recommended is 2, must be 0",
                "generic recommended is 1, must be 0"
            ]
        );
    }
}
