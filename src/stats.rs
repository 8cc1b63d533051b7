//! `sophia-hook stats`: a summary of the analytics log — runs per event and host, context and
//! subagent modes, hotwords, top skills and agents, carry-forward rate, durations and runs that
//! failed open; and, from the hint-outcome lines, whether the model followed the advice. A line that does not parse is counted and skipped, never fatal. The counting is
//! the report's ([`crate::report::mix`], the one summary of the log); this module is what `stats`
//! prints of it. Pure: the caller reads the file.

use std::collections::BTreeMap;

use chrono::{DateTime, Duration, NaiveDate, Utc};
use serde::Serialize;

use crate::report::mix::{AdviceOutcomes, MixBuilder, RoutingMix, SkillHints};

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Stats {
    pub runs: usize,
    pub corrupt_lines: usize,
    pub skipped_before_since: usize,
    pub by_event_and_host: BTreeMap<String, usize>,
    pub outcomes: BTreeMap<String, usize>,
    pub failed_open: BTreeMap<String, usize>,
    pub context_modes: BTreeMap<String, usize>,
    pub subagent_modes: BTreeMap<String, usize>,
    pub hotwords: BTreeMap<String, usize>,
    pub top_skills: Vec<(String, usize)>,
    pub top_agents: Vec<(String, usize)>,
    /// Prompt runs that carried a planned delegation forward, over prompt runs.
    pub carry_forward_rate: f64,
    pub duration_ms_p50: f64,
    pub duration_ms_p95: f64,
    pub duration_ms_max: f64,
    /// What the model did with the hook's advice (the hint-outcome lines; not runs).
    pub hint_outcomes: HintOutcomeStats,
}

/// The hint-outcome lines at or after `--since`: over every host, per host and per skill named.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HintOutcomeStats {
    /// Hint-outcome lines counted.
    pub lines: usize,
    pub overall: AdviceStats,
    pub by_host: BTreeMap<String, AdviceStats>,
    /// Per skill the hook named, over every host.
    pub by_skill: BTreeMap<String, SkillHintStats>,
}

/// The skill hints of one skill (or of all): what became of them.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SkillHintStats {
    pub named: usize,
    pub followed: usize,
    pub other: usize,
    pub ignored: usize,
    /// Followed over named; `null` with none named.
    pub followed_rate: Option<f64>,
}

/// What the model did with the advice on one host (or on all of them).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AdviceStats {
    /// Skill hints with a known outcome, and what became of them.
    pub skill_hints: SkillHintStats,
    /// The skills loaded instead of the one named (`other:<id>`), per loaded id.
    pub loaded_instead: BTreeMap<String, usize>,
    /// Skills loaded that the hook did not name (`unnamed:<id>`), per loaded id.
    pub loaded_not_named: BTreeMap<String, usize>,
    /// Delegation hints with a known outcome.
    pub delegations: usize,
    pub delegations_spawned: usize,
    pub not_spawned: usize,
    /// Delegations spawned over delegations; `null` with none.
    pub spawned_rate: Option<f64>,
    /// Subagents spawned after a delegation hint, per type.
    pub spawned_by_type: BTreeMap<String, usize>,
    /// Outcomes the transcript could not tell, per reason code.
    pub unknown: BTreeMap<String, usize>,
}

fn counts(map: &BTreeMap<String, u64>) -> BTreeMap<String, usize> {
    map.iter().map(|(k, n)| (k.clone(), count(*n))).collect()
}

impl SkillHintStats {
    fn from_hints(h: &SkillHints) -> SkillHintStats {
        SkillHintStats {
            named: count(h.named()),
            followed: count(h.followed),
            other: count(h.other),
            ignored: count(h.ignored),
            followed_rate: h.followed_rate(),
        }
    }
}

impl AdviceStats {
    fn from_outcomes(a: &AdviceOutcomes) -> AdviceStats {
        AdviceStats {
            skill_hints: SkillHintStats::from_hints(&a.skill_hints()),
            loaded_instead: counts(&a.instead),
            loaded_not_named: counts(&a.unnamed),
            delegations: count(a.delegations),
            delegations_spawned: count(a.delegations_spawned),
            not_spawned: count(a.not_spawned()),
            spawned_rate: a.spawned_rate(),
            spawned_by_type: counts(&a.spawned),
            unknown: counts(&a.unknown),
        }
    }
}

impl HintOutcomeStats {
    fn from_mix(mix: &RoutingMix) -> HintOutcomeStats {
        let overall = mix.advice_overall();
        HintOutcomeStats {
            lines: count(mix.hint_outcome_lines),
            overall: AdviceStats::from_outcomes(&overall),
            by_host: mix
                .advice
                .iter()
                .map(|(h, a)| (h.clone(), AdviceStats::from_outcomes(a)))
                .collect(),
            by_skill: overall
                .skills
                .iter()
                .map(|(k, h)| (k.clone(), SkillHintStats::from_hints(h)))
                .collect(),
        }
    }
}

/// Parses `--since`: a duration back from `now` (`90m`, `36h`, `7d`, `2w`), a date (`2026-11-01`,
/// midnight UTC) or an RFC 3339 timestamp.
pub fn parse_since(text: &str, now: DateTime<Utc>) -> Result<DateTime<Utc>, String> {
    let t = text.trim();
    if let Some(unit) = t.chars().last().filter(|c| "mhdw".contains(*c)) {
        let digits = &t[..t.len() - 1];
        if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
            let n: i64 = digits
                .parse()
                .map_err(|_| format!("--since {text:?}: too large"))?;
            let minutes = match unit {
                'm' => Some(n),
                'h' => n.checked_mul(60),
                'd' => n.checked_mul(24 * 60),
                _ => n.checked_mul(7 * 24 * 60),
            };
            return minutes
                .and_then(Duration::try_minutes)
                .and_then(|d| now.checked_sub_signed(d))
                .ok_or_else(|| format!("--since {text:?}: too large"));
        }
    }
    let exact = DateTime::parse_from_rfc3339(t)
        .map(|t| t.to_utc())
        .or_else(|_| {
            NaiveDate::parse_from_str(t, "%Y-%m-%d")
                .map(|d| d.and_hms_opt(0, 0, 0).expect("midnight").and_utc())
        });
    exact.map_err(|_| {
        format!(
            "--since {text:?}: expected a duration like 7d, 36h, 2w, 90m, a date like 2026-11-01 or an RFC 3339 timestamp"
        )
    })
}

/// The summary `stats` counts in: the one summary of the log ([`MixBuilder`], as the report
/// reads it), over every run at or after `since`, every id whole.
pub fn summary_since(since: Option<DateTime<Utc>>) -> MixBuilder {
    MixBuilder::new(
        since.unwrap_or(DateTime::<Utc>::MIN_UTC),
        DateTime::<Utc>::MAX_UTC,
        None,
    )
    .whole_ids()
}

/// Summarises a log held in memory ([`summary_since`] over its lines).
pub fn summarise(text: &str, since: Option<DateTime<Utc>>) -> Stats {
    let mut mix = summary_since(since);
    for line in text.lines() {
        mix.push(line.as_bytes());
    }
    Stats::from_mix(&mix.finish())
}

impl Stats {
    /// What `stats` prints of the summary: counts, the ten largest skill and agent counts, the
    /// carry-forward rate over prompt runs, durations in milliseconds.
    pub fn from_mix(mix: &RoutingMix) -> Stats {
        let top = |map: &BTreeMap<String, u64>| -> Vec<(String, usize)> {
            RoutingMix::top(map, 10)
                .into_iter()
                .map(|(k, n)| (k.to_owned(), count(n)))
                .collect()
        };
        let latency = mix.latency();
        Stats {
            runs: count(mix.runs),
            corrupt_lines: count(mix.corrupt_lines),
            skipped_before_since: count(mix.outside_period),
            by_event_and_host: counts(&mix.runs_per_event_and_host),
            outcomes: counts(&mix.outcomes),
            failed_open: counts(&mix.failed_open),
            context_modes: counts(&mix.context_modes),
            subagent_modes: counts(&mix.subagent_modes),
            hotwords: counts(&mix.hotwords),
            top_skills: top(&mix.skills),
            top_agents: top(&mix.agents),
            carry_forward_rate: if mix.prompts == 0 {
                0.0
            } else {
                mix.carry_forward as f64 / mix.prompts as f64
            },
            duration_ms_p50: latency.p50_us as f64 / 1000.0,
            duration_ms_p95: latency.p95_us as f64 / 1000.0,
            duration_ms_max: latency.max_us as f64 / 1000.0,
            hint_outcomes: HintOutcomeStats::from_mix(mix),
        }
    }
}

fn count(n: u64) -> usize {
    usize::try_from(n).unwrap_or(usize::MAX)
}

/// The summary as a readable table.
pub fn render(s: &Stats) -> String {
    let mut out = format!(
        "runs: {}   corrupt lines skipped: {}",
        s.runs, s.corrupt_lines
    );
    if s.skipped_before_since > 0 {
        out.push_str(&format!("   before --since: {}", s.skipped_before_since));
    }
    out.push('\n');
    let share = |n: usize, total: usize| {
        if total == 0 {
            0.0
        } else {
            n as f64 * 100.0 / total as f64
        }
    };
    let section = |out: &mut String, title: &str, map: &BTreeMap<String, usize>| {
        let total: usize = map.values().sum();
        out.push_str(&format!("\n{title}\n"));
        if map.is_empty() {
            out.push_str("  (none)\n");
        }
        for (k, n) in map {
            out.push_str(&format!("  {k:<32} {n:>7}  {:>5.1}%\n", share(*n, total)));
        }
    };
    section(&mut out, "runs per event and host", &s.by_event_and_host);
    section(&mut out, "outcomes", &s.outcomes);
    section(&mut out, "failed open", &s.failed_open);
    section(&mut out, "contextMode", &s.context_modes);
    section(&mut out, "subagentMode", &s.subagent_modes);
    section(&mut out, "hotwords", &s.hotwords);
    for (title, list) in [
        ("top skills", &s.top_skills),
        ("top recommended agents", &s.top_agents),
    ] {
        out.push_str(&format!("\n{title}\n"));
        if list.is_empty() {
            out.push_str("  (none)\n");
        }
        for (k, n) in list {
            out.push_str(&format!("  {k:<32} {n:>7}\n"));
        }
    }
    out.push_str(&format!(
        "\ncarry-forward rate: {:.1}% of prompt runs\nduration: p50 {:.2} ms   p95 {:.2} ms   max {:.2} ms\n",
        s.carry_forward_rate * 100.0,
        s.duration_ms_p50,
        s.duration_ms_p95,
        s.duration_ms_max
    ));
    if s.hint_outcomes.lines > 0 {
        render_hint_outcomes(&mut out, &s.hint_outcomes);
    }
    out
}

/// A rate as a percentage, or `—` when there is nothing to divide by.
fn percent(rate: Option<f64>) -> String {
    rate.map_or_else(|| "—".to_owned(), |r| format!("{:.1}%", r * 100.0))
}

/// Was the advice followed: the hint-outcome lines, per host, per skill named, loaded but not
/// named, delegations and the outcomes the transcript could not tell.
fn render_hint_outcomes(out: &mut String, h: &HintOutcomeStats) {
    out.push_str(&format!(
        "\nwas the advice followed? ({} hint-outcome lines)\n",
        h.lines
    ));
    let skill_row = |out: &mut String, key: &str, s: &SkillHintStats| {
        out.push_str(&format!(
            "  {key:<32} {:>7} {:>9} {:>7} {:>8} {:>9}\n",
            s.named,
            s.followed,
            s.other,
            s.ignored,
            percent(s.followed_rate)
        ));
    };
    let header = |out: &mut String, title: &str| {
        out.push_str(&format!(
            "\n  {title:<32} {:>7} {:>9} {:>7} {:>8} {:>9}\n",
            "named", "followed", "other", "ignored", "rate"
        ));
    };
    header(out, "skill hints per host");
    for (host, a) in &h.by_host {
        skill_row(out, host, &a.skill_hints);
    }
    skill_row(out, "all hosts", &h.overall.skill_hints);
    header(out, "skill hints per skill named");
    let mut skills: Vec<(&String, &SkillHintStats)> = h.by_skill.iter().collect();
    skills.sort_by(|a, b| b.1.named.cmp(&a.1.named).then_with(|| a.0.cmp(b.0)));
    if skills.is_empty() {
        out.push_str("  (none)\n");
    }
    for (skill, s) in skills.iter().take(10) {
        skill_row(out, skill, s);
    }
    if skills.len() > 10 {
        out.push_str(&format!("  … {} more (stats --json)\n", skills.len() - 10));
    }
    let list = |out: &mut String, title: &str, map: &BTreeMap<String, usize>| {
        out.push_str(&format!("\n  {title}\n"));
        if map.is_empty() {
            out.push_str("    (none)\n");
        }
        let mut v: Vec<(&String, &usize)> = map.iter().collect();
        v.sort_by(|a, b| b.1.cmp(a.1).then_with(|| a.0.cmp(b.0)));
        for (k, n) in v {
            out.push_str(&format!("    {k:<30} {n:>7}\n"));
        }
    };
    list(
        out,
        "loaded instead of the skill named",
        &h.overall.loaded_instead,
    );
    list(out, "loaded but not named", &h.overall.loaded_not_named);
    out.push_str(&format!(
        "\n  {:<32} {:>7} {:>9} {:>12} {:>9}\n",
        "delegation hints per host", "asked", "spawned", "not-spawned", "rate"
    ));
    let delegation_row = |out: &mut String, key: &str, a: &AdviceStats| {
        out.push_str(&format!(
            "  {key:<32} {:>7} {:>9} {:>12} {:>9}\n",
            a.delegations,
            a.delegations_spawned,
            a.not_spawned,
            percent(a.spawned_rate)
        ));
    };
    for (host, a) in &h.by_host {
        delegation_row(out, host, a);
    }
    delegation_row(out, "all hosts", &h.overall);
    list(out, "subagents spawned by type", &h.overall.spawned_by_type);
    let mut unknown = BTreeMap::new();
    for (host, a) in &h.by_host {
        for (reason, n) in &a.unknown {
            unknown.insert(format!("{host} {reason}"), *n);
        }
    }
    list(out, "outcome unknown, by host and reason", &unknown);
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOG: &str = r#"{"ts":"2026-11-01T10:00:00.000Z","event":"UserPromptSubmit","host":"codex","outcome":"injected","contextMode":"light","subagentMode":"off","detectedHotwords":["!quick"],"reasons":[],"subagentSource":"deterministic-agent-policy","recommendedAgents":[],"agentReasonCodes":[],"carryForward":false,"skills":["mcp-database-expert"],"planning":false,"durationUs":1000}
{"ts":"2026-11-02T10:00:00.000Z","event":"UserPromptSubmit","host":"claude","outcome":"injected","contextMode":"full","subagentMode":"required","detectedHotwords":["!agents"],"reasons":[],"subagentSource":"deterministic-agent-policy","recommendedAgents":["technical_analyst"],"agentReasonCodes":[],"carryForward":true,"skills":["mcp-technical-analyst","mcp-database-expert"],"planning":false,"durationUs":3000}
{"ts":"2026-11-03T10:00:00.000Z","event":null,"host":"codex","outcome":"failed-open","failure":"invalid-json","detectedHotwords":[],"reasons":[],"subagentSource":null,"recommendedAgents":[],"agentReasonCodes":[],"carryForward":false,"skills":[],"planning":false,"durationUs":2000}
{"ts":"2026-11-03T11:00:00.000Z","event":"SessionStart","host":"codex","outcome":"injected","detectedHotwords":[],"reasons":[],"subagentSource":null,"recommendedAgents":[],"agentReasonCodes":[],"carryForward":false,"skills":[],"planning":false,"durationUs":10000}
{"ts":"2026-11-03T11:00:00.0
not json at all
"#;

    #[test]
    fn summary_counts_everything_and_skips_corrupt_lines() {
        let s = summarise(LOG, None);
        assert_eq!((s.runs, s.corrupt_lines), (4, 2));
        assert_eq!(s.by_event_and_host["UserPromptSubmit codex"], 1);
        assert_eq!(s.by_event_and_host["unknown codex"], 1);
        assert_eq!(s.failed_open["invalid-json"], 1);
        assert_eq!(s.context_modes["light"], 1);
        assert_eq!(s.subagent_modes["required"], 1);
        assert_eq!(s.hotwords["!agents"], 1);
        assert_eq!(s.top_skills[0], ("mcp-database-expert".to_string(), 2));
        assert_eq!(s.top_agents, [("technical_analyst".to_string(), 1)]);
        assert_eq!(s.carry_forward_rate, 0.5);
        assert_eq!((s.duration_ms_p50, s.duration_ms_max), (2.0, 10.0));
        assert_eq!(s.duration_ms_p95, 10.0);
        let table = render(&s);
        assert!(table.contains("corrupt lines skipped: 2") && table.contains("p95 10.00 ms"));
    }

    /// Hint-outcome lines of every kind (issue 46) beside a run.
    const HINTS: &str = r#"{"ts":"2026-11-05T14:00:00Z","event":"hint-outcome","host":"claude","hint":"skill","named":"pdf","outcome":"followed"}
{"ts":"2026-11-05T14:10:00Z","event":"hint-outcome","host":"claude","hint":"skill","named":"pdf","outcome":"other:docx"}
{"ts":"2026-11-05T14:20:00Z","event":"hint-outcome","host":"claude","hint":"skill","named":"project:1a2b3c4d5e6f","outcome":"ignored"}
{"ts":"2026-11-05T14:30:00Z","event":"hint-outcome","host":"codex","hint":"skill","outcome":"unnamed:xlsx"}
{"ts":"2026-11-05T14:40:00Z","event":"hint-outcome","host":"claude","hint":"delegation","named":"technical_analyst","outcome":"spawned:technical_analyst"}
{"ts":"2026-11-05T14:50:00Z","event":"hint-outcome","host":"copilot","hint":"delegation","outcome":"not-spawned"}
{"ts":"2026-11-05T15:00:00Z","event":"hint-outcome","host":"gemini","outcome":"unknown","reason":"transcript-missing"}
{"ts":"2026-11-05T15:00:00Z","event":"hint-outcome","host":"gemini","outcome":"unknown"}
"#;

    #[test]
    fn hint_outcomes_are_in_the_json_and_are_not_runs() {
        let s = summarise(&format!("{LOG}{HINTS}"), None);
        // The runs of LOG alone; the hint-outcome line without a reason is one more corrupt line.
        assert_eq!((s.runs, s.corrupt_lines), (4, 3));
        assert_eq!(s.duration_ms_max, 10.0);
        let json = serde_json::to_value(&s).unwrap();
        let h = &json["hintOutcomes"];
        assert_eq!(h["lines"], 7);
        let claude = &h["byHost"]["claude"];
        assert_eq!(
            claude["skillHints"],
            serde_json::json!({"named": 3, "followed": 1, "other": 1, "ignored": 1,
                "followedRate": 1.0 / 3.0})
        );
        assert_eq!(claude["loadedInstead"], serde_json::json!({"docx": 1}));
        assert_eq!(
            (
                &claude["delegations"],
                &claude["delegationsSpawned"],
                &claude["notSpawned"]
            ),
            (
                &serde_json::json!(1),
                &serde_json::json!(1),
                &serde_json::json!(0)
            )
        );
        assert_eq!(claude["spawnedRate"], 1.0);
        assert_eq!(
            claude["spawnedByType"],
            serde_json::json!({"technical_analyst": 1})
        );
        assert_eq!(
            h["byHost"]["codex"]["loadedNotNamed"],
            serde_json::json!({"xlsx": 1})
        );
        assert_eq!(
            h["byHost"]["codex"]["skillHints"]["followedRate"],
            serde_json::Value::Null
        );
        assert_eq!(h["byHost"]["copilot"]["spawnedRate"], 0.0);
        assert_eq!(
            h["byHost"]["gemini"]["unknown"],
            serde_json::json!({"transcript-missing": 1})
        );
        assert_eq!(h["overall"]["delegations"], 2);
        assert_eq!(h["overall"]["spawnedRate"], 0.5);
        assert_eq!(
            h["bySkill"]["pdf"],
            serde_json::json!({"named": 2, "followed": 1, "other": 1, "ignored": 0,
                "followedRate": 0.5})
        );
        assert_eq!(h["bySkill"]["project:1a2b3c4d5e6f"]["ignored"], 1);
    }

    #[test]
    fn the_text_shows_the_advice_only_when_there_is_some() {
        let plain = render(&summarise(LOG, None));
        assert!(
            !plain.contains("advice") && !plain.contains("hint-outcome"),
            "{plain}"
        );
        assert!(plain.ends_with("max 10.00 ms\n"), "{plain}");
        let with = render(&summarise(&format!("{LOG}{HINTS}"), None));
        // The table before the section is today's (the corrupt count aside).
        let (before, section) = with.split_once("\nwas the advice followed?").unwrap();
        assert_eq!(before.replacen("skipped: 3", "skipped: 2", 1), plain);
        assert!(
            section.starts_with(" (7 hint-outcome lines)\n"),
            "{section}"
        );
        for row in [
            "  claude                                 3         1       1        1     33.3%\n",
            "  codex                                  0         0       0        0         —\n",
            "  all hosts                              3         1       1        1     33.3%\n",
            "  pdf                                    2         1       1        0     50.0%\n",
            "    docx                                 1\n",
            "    xlsx                                 1\n",
            "  claude                                 1         1            0    100.0%\n",
            "  copilot                                1         0            1      0.0%\n",
            "  all hosts                              2         1            1     50.0%\n",
            "    technical_analyst                    1\n",
            "    gemini transcript-missing            1\n",
        ] {
            assert!(section.contains(row), "{row:?} not in\n{section}");
        }
    }

    #[test]
    fn since_filters_by_timestamp() {
        let s = summarise(LOG, Some(parse_since("2026-11-03", Utc::now()).unwrap()));
        assert_eq!((s.runs, s.skipped_before_since), (2, 2));
        assert!(parse_since("yesterday", Utc::now()).is_err());
        assert!(parse_since("2026-11-03T10:30:00Z", Utc::now()).is_ok());
    }
}
