//! `sophia-hook eval`: routing measured against labelled cases.

use std::io::Write;
use std::path::PathBuf;

#[derive(Debug, clap::Args)]
pub struct EvalArgs {
    /// The cases file (one JSON object per line).
    pub cases: PathBuf,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
    /// Evaluate against this project's skill catalog (default: the embedded defaults).
    #[arg(long)]
    pub root: Option<PathBuf>,
    /// Fail (exit 1) below this share of cases with the expected context mode (0–1).
    #[arg(long, value_name = "RATIO")]
    pub min_context_accuracy: Option<f64>,
    /// Fail below this share of cases with the expected subagent decision (0–1).
    #[arg(long, value_name = "RATIO")]
    pub min_subagent_accuracy: Option<f64>,
    /// Fail below this share of cases whose hotwords parse as expected (0–1).
    #[arg(long, value_name = "RATIO")]
    pub min_hotword_accuracy: Option<f64>,
    /// Fail below this share of skill-routed cases whose first skill is expected (0–1).
    #[arg(long, value_name = "RATIO")]
    pub min_skill_precision_at_1: Option<f64>,
    /// Fail below this skill precision: routed skills that were expected (0–1).
    #[arg(long, value_name = "RATIO")]
    pub min_skill_precision: Option<f64>,
    /// Fail below this skill recall: expected skills that were routed (0–1).
    #[arg(long, value_name = "RATIO")]
    pub min_skill_recall: Option<f64>,
    /// Fail below this precision of "no skill": cases left without a skill that expected none (0–1).
    #[arg(long, value_name = "RATIO")]
    pub min_no_skill_precision: Option<f64>,
    /// Fail below this recall of "no skill": cases that expected none and got none (0–1).
    #[arg(long, value_name = "RATIO")]
    pub min_no_skill_recall: Option<f64>,
    /// Fail below this share of right names: of the cases where a skill was named, those whose
    /// first named skill is expected (0–1).
    #[arg(long, value_name = "RATIO")]
    pub min_named_precision: Option<f64>,
    /// Fail below this coverage, `recall (named)`: of the cases with an expected skill, those
    /// whose first named skill is expected (0–1; an abstention is a miss).
    #[arg(long, value_name = "RATIO")]
    pub min_recall: Option<f64>,
    /// Fail below this ranking top-1: of the cases with an expected skill, those whose ranking's
    /// first candidate, named or not, is expected (0–1).
    #[arg(long = "min-ranking-top-1", value_name = "RATIO")]
    pub min_ranking_top_1: Option<f64>,
    /// Fail below this explicit-mention accuracy: of the cases whose `note` starts with
    /// `explicit` (the prompt names its skill), those that name that skill first (0–1).
    #[arg(long, value_name = "RATIO")]
    pub min_explicit_mention: Option<f64>,
    /// Fail below this share of agent-routed cases whose first agent is expected (0–1).
    #[arg(long, value_name = "RATIO")]
    pub min_agent_precision_at_1: Option<f64>,
    /// Fail below this agent precision: recommended agents that were expected (0–1).
    #[arg(long, value_name = "RATIO")]
    pub min_agent_precision: Option<f64>,
    /// Fail below this agent recall: expected agents that were recommended (0–1).
    #[arg(long, value_name = "RATIO")]
    pub min_agent_recall: Option<f64>,
    /// Fail below this share of cases with the expected delegation lock (0–1).
    #[arg(long, value_name = "RATIO")]
    pub min_lock_accuracy: Option<f64>,
    /// Fail below this share of cases whose agent carries the expected skill (0–1).
    #[arg(long, value_name = "RATIO")]
    pub min_agent_skill_pairing: Option<f64>,
    /// Fail below this share of multi-turn cases whose planned delegation carries forward as expected (0–1).
    #[arg(long, value_name = "RATIO")]
    pub min_carry_forward_accuracy: Option<f64>,
}

/// Runs `eval`; `Ok(false)` when a floor is missed or an invariant broken.
pub fn eval(stdout: &mut dyn Write, args: &EvalArgs) -> super::Outcome {
    let root = args
        .root
        .clone()
        .map(|r| super::project_root_arg(Some(r)))
        .transpose()?;
    let report = crate::ops::eval::measure(&args.cases, root.as_ref())?;
    let floors = crate::eval::Floors {
        context_accuracy: args.min_context_accuracy,
        subagent_accuracy: args.min_subagent_accuracy,
        hotword_accuracy: args.min_hotword_accuracy,
        skill_precision_at_1: args.min_skill_precision_at_1,
        skill_precision: args.min_skill_precision,
        skill_recall: args.min_skill_recall,
        no_skill_precision: args.min_no_skill_precision,
        no_skill_recall: args.min_no_skill_recall,
        named_precision: args.min_named_precision,
        named_recall: args.min_recall,
        ranking_top1: args.min_ranking_top_1,
        explicit_mention: args.min_explicit_mention,
        agent_precision_at_1: args.min_agent_precision_at_1,
        agent_precision: args.min_agent_precision,
        agent_recall: args.min_agent_recall,
        lock_accuracy: args.min_lock_accuracy,
        agent_skill_pairing: args.min_agent_skill_pairing,
        carry_forward_accuracy: args.min_carry_forward_accuracy,
    };
    let failures = floors.failures(&report);
    let broken = crate::eval::invariant_failures(&report);
    if args.json {
        let mut json = serde_json::to_value(&report)?;
        json["floorFailures"] = serde_json::to_value(&failures)?;
        json["invariantFailures"] = serde_json::to_value(&broken)?;
        writeln!(stdout, "{}", serde_json::to_string_pretty(&json)?)?;
    } else {
        write!(stdout, "{}", crate::eval::render_table(&report))?;
        for failure in &failures {
            writeln!(stdout, "FLOOR MISSED: {failure}")?;
        }
        for failure in &broken {
            writeln!(stdout, "INVARIANT BROKEN: {failure}")?;
        }
    }
    Ok((failures.is_empty() && broken.is_empty()).into())
}
