//! `sophia-hook stats`: a summary of the analytics log — runs per event and host, context and
//! subagent modes, hotwords, top skills and agents, carry-forward rate, durations and runs that
//! failed open. A line that does not parse is counted and skipped, never fatal. Pure: the caller
//! reads the file.

use std::collections::BTreeMap;

use chrono::{DateTime, NaiveDate, Utc};
use serde::Serialize;

use crate::analytics::LoggedRun;

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

/// Parses `--since`: a date (`2026-11-01`, midnight UTC) or an RFC 3339 timestamp.
pub fn parse_since(text: &str) -> Result<DateTime<Utc>, String> {
    if let Ok(t) = DateTime::parse_from_rfc3339(text) {
        return Ok(t.to_utc());
    }
    NaiveDate::parse_from_str(text, "%Y-%m-%d")
        .map(|d| d.and_hms_opt(0, 0, 0).expect("midnight").and_utc())
        .map_err(|_| {
            format!("--since {text:?}: expected a date like 2026-11-01 or an RFC 3339 timestamp")
        })
}

fn top(counts: BTreeMap<String, usize>, n: usize) -> Vec<(String, usize)> {
    let mut v: Vec<(String, usize)> = counts.into_iter().collect();
    v.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    v.truncate(n);
    v
}

fn percentile(sorted: &[u64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = ((p * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1] as f64 / 1000.0
}

/// Summarises the log text.
pub fn summarise(text: &str, since: Option<DateTime<Utc>>) -> Stats {
    let mut s = Stats::default();
    let mut skills = BTreeMap::new();
    let mut agents = BTreeMap::new();
    let mut durations = Vec::new();
    let mut prompt_runs = 0usize;
    let mut carried = 0usize;
    for raw in text.lines().filter(|l| !l.trim().is_empty()) {
        let Ok(line) = serde_json::from_str::<LoggedRun>(raw) else {
            s.corrupt_lines += 1;
            continue;
        };
        if since.is_some_and(|t| line.ts < t) {
            s.skipped_before_since += 1;
            continue;
        }
        s.runs += 1;
        let event = line.event.unwrap_or_else(|| "unknown".into());
        *s.by_event_and_host
            .entry(format!("{event} {}", line.host))
            .or_default() += 1;
        *s.outcomes.entry(line.outcome).or_default() += 1;
        if let Some(f) = line.failure {
            *s.failed_open.entry(f).or_default() += 1;
        }
        if let Some(m) = line.context_mode {
            prompt_runs += 1;
            *s.context_modes.entry(m).or_default() += 1;
        }
        if let Some(m) = line.subagent_mode {
            *s.subagent_modes.entry(m).or_default() += 1;
        }
        for h in line.detected_hotwords {
            *s.hotwords.entry(h).or_default() += 1;
        }
        for k in line.skills {
            *skills.entry(k).or_default() += 1;
        }
        for a in line.recommended_agents {
            *agents.entry(a).or_default() += 1;
        }
        carried += usize::from(line.carry_forward);
        durations.push(line.duration_us);
    }
    durations.sort_unstable();
    s.top_skills = top(skills, 10);
    s.top_agents = top(agents, 10);
    s.carry_forward_rate = if prompt_runs == 0 {
        0.0
    } else {
        carried as f64 / prompt_runs as f64
    };
    s.duration_ms_p50 = percentile(&durations, 0.50);
    s.duration_ms_p95 = percentile(&durations, 0.95);
    s.duration_ms_max = durations.last().map_or(0.0, |d| *d as f64 / 1000.0);
    s
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
        let s = summarise(LOG, Some(parse_since("2026-11-03").unwrap()));
        assert_eq!((s.runs, s.skipped_before_since), (2, 2));
        assert!(parse_since("yesterday").is_err());
        assert!(parse_since("2026-11-03T10:30:00Z").is_ok());
    }
}
