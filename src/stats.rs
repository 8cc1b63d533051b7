//! `sophia-hook stats`: a summary of the analytics log — runs per event and host, context and
//! subagent modes, hotwords, top skills and agents, carry-forward rate, durations and runs that
//! failed open. A line that does not parse is counted and skipped, never fatal. The counting is
//! the report's ([`crate::report::mix`], the one summary of the log); this module is what `stats`
//! prints of it. Pure: the caller reads the file.

use std::collections::BTreeMap;

use chrono::{DateTime, Duration, NaiveDate, Utc};
use serde::Serialize;

use crate::report::mix::{MixBuilder, RoutingMix};

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
        let counts = |map: &BTreeMap<String, u64>| -> BTreeMap<String, usize> {
            map.iter().map(|(k, n)| (k.clone(), count(*n))).collect()
        };
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
    out
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

    #[test]
    fn since_filters_by_timestamp() {
        let s = summarise(LOG, Some(parse_since("2026-11-03", Utc::now()).unwrap()));
        assert_eq!((s.runs, s.skipped_before_since), (2, 2));
        assert!(parse_since("yesterday", Utc::now()).is_err());
        assert!(parse_since("2026-11-03T10:30:00Z", Utc::now()).is_ok());
    }
}
