//! The one summary of the analytics log, which `stats` and the report both render: the routing
//! mix over a period, accumulated one analytics line at a time so that a log of any size is read
//! in one pass with memory that does not grow with its length (counts per id and per day, and
//! durations rounded to three significant digits). A line that does not parse is counted and
//! skipped. The hint-outcome lines (what the model did with the advice, issue 46) are tallied
//! apart from the runs ([`AdviceOutcomes`]). Analytics carry codes and ids only, so nothing here
//! can hold prompt text. Pure: the edge streams the file.

use std::collections::BTreeMap;

use crate::stages::analytics::{HintOutcome, LoggedHintOutcome, LoggedRun};
use chrono::{DateTime, NaiveDate, Utc};

/// Rounds a duration down to three significant digits (4 495 µs is 4 490 µs), so that a
/// histogram of durations stays small.
pub fn round3(us: u64) -> u64 {
    let mut scale = 1;
    while us / scale >= 1000 {
        scale *= 10;
    }
    us / scale * scale
}

/// The nearest-rank percentile `p` (0–1] of a histogram (value → count); 0 when it is empty.
pub fn percentile(histogram: &BTreeMap<u64, u64>, p: f64) -> u64 {
    let total: u64 = histogram.values().sum();
    if total == 0 {
        return 0;
    }
    let rank = ((p * total as f64).ceil() as u64).clamp(1, total);
    let mut seen = 0;
    for (value, n) in histogram {
        seen += n;
        if seen >= rank {
            return *value;
        }
    }
    0
}

/// Latency buckets of the histogram: upper bounds in microseconds (the last is open).
pub const LATENCY_BUCKETS_US: [(u64, &str); 9] = [
    (500, "< 0.5 ms"),
    (1_000, "0.5–1 ms"),
    (2_000, "1–2 ms"),
    (5_000, "2–5 ms"),
    (10_000, "5–10 ms"),
    (20_000, "10–20 ms"),
    (50_000, "20–50 ms"),
    (100_000, "50–100 ms"),
    (u64::MAX, "≥ 100 ms"),
];

/// The routing mix of the runs inside the period (and of the chosen host, when one is).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RoutingMix {
    /// Lines read, whatever became of them.
    pub lines: u64,
    /// Lines that are not an analytics event (bad JSON, missing fields) or longer than the cap.
    pub corrupt_lines: u64,
    /// Valid lines outside the period.
    pub outside_period: u64,
    /// Valid lines of another host than the one asked for.
    pub other_hosts: u64,
    /// Runs counted.
    pub runs: u64,
    /// Runs with a routing decision (UserPromptSubmit and its equivalents).
    pub prompts: u64,
    pub session_starts: u64,
    /// Prompts per UTC day.
    pub prompts_per_day: BTreeMap<NaiveDate, u64>,
    pub runs_per_host: BTreeMap<String, u64>,
    /// The time of each host's latest counted run (`status` shows it).
    pub last_run_per_host: BTreeMap<String, DateTime<Utc>>,
    /// Runs per event and host, `"<event> <host>"` (`unknown` for a run with no event).
    pub runs_per_event_and_host: BTreeMap<String, u64>,
    pub outcomes: BTreeMap<String, u64>,
    pub context_modes: BTreeMap<String, u64>,
    pub subagent_modes: BTreeMap<String, u64>,
    pub hotwords: BTreeMap<String, u64>,
    /// Prompts with at least one hotword.
    pub prompts_with_hotword: u64,
    pub skills: BTreeMap<String, u64>,
    pub agents: BTreeMap<String, u64>,
    /// Prompts that carried a planned delegation forward.
    pub carry_forward: u64,
    /// Degraded runs by reason (`time-budget`).
    pub degraded: BTreeMap<String, u64>,
    /// Failed-open runs by failure code.
    pub failed_open: BTreeMap<String, u64>,
    /// Hint-outcome lines counted (in the period, of the host asked for): not runs.
    pub hint_outcome_lines: u64,
    /// What the model did with the hook's advice, per host (the hint-outcome lines).
    pub advice: BTreeMap<String, AdviceOutcomes>,
    /// Durations in microseconds, rounded to three significant digits, with their counts.
    durations: BTreeMap<u64, u64>,
    max_duration_us: u64,
}

/// What became of the skill hints that named one skill.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SkillHints {
    /// The skill named was loaded.
    pub followed: u64,
    /// Another skill was loaded instead.
    pub other: u64,
    /// No skill was loaded.
    pub ignored: u64,
}

impl SkillHints {
    /// Skill hints with a known outcome.
    pub fn named(&self) -> u64 {
        self.followed + self.other + self.ignored
    }

    /// Followed over named; `None` with none named.
    pub fn followed_rate(&self) -> Option<f64> {
        rate(self.followed, self.named())
    }

    fn add(&mut self, other: &SkillHints) {
        self.followed += other.followed;
        self.other += other.other;
        self.ignored += other.ignored;
    }
}

/// `n` over `total`; `None` when `total` is 0.
pub fn rate(n: u64, total: u64) -> Option<f64> {
    (total > 0).then(|| n as f64 / total as f64)
}

/// What the model did with the hook's advice on one host (or on all of them, [`RoutingMix::advice_overall`]),
/// from the hint-outcome lines: counts per id only.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AdviceOutcomes {
    /// Per skill the hook named.
    pub skills: BTreeMap<String, SkillHints>,
    /// Skills loaded instead of the one named (`other:<id>`), per loaded id.
    pub instead: BTreeMap<String, u64>,
    /// Skills loaded that the hook did not name (`unnamed:<id>`), per loaded id: what routing missed.
    pub unnamed: BTreeMap<String, u64>,
    /// Delegation hints with a known outcome: each `not-spawned` line, and each delegation that
    /// spawned (its `spawned:` lines, one per type, written together with one timestamp, count once).
    pub delegations: u64,
    /// Delegations that spawned at least one subagent.
    pub delegations_spawned: u64,
    /// Subagents spawned after a delegation hint, per type (one per `spawned:` line).
    pub spawned: BTreeMap<String, u64>,
    /// Outcomes the transcript could not tell, per reason code.
    pub unknown: BTreeMap<String, u64>,
}

impl AdviceOutcomes {
    /// The skill hints of every skill named.
    pub fn skill_hints(&self) -> SkillHints {
        let mut all = SkillHints::default();
        for s in self.skills.values() {
            all.add(s);
        }
        all
    }

    /// Delegations with no subagent spawned.
    pub fn not_spawned(&self) -> u64 {
        self.delegations - self.delegations_spawned
    }

    /// Delegations that spawned over delegations; `None` with none.
    pub fn spawned_rate(&self) -> Option<f64> {
        rate(self.delegations_spawned, self.delegations)
    }

    fn add(&mut self, other: &AdviceOutcomes) {
        for (k, s) in &other.skills {
            self.skills.entry(k.clone()).or_default().add(s);
        }
        for (mine, theirs) in [
            (&mut self.instead, &other.instead),
            (&mut self.unnamed, &other.unnamed),
            (&mut self.spawned, &other.spawned),
            (&mut self.unknown, &other.unknown),
        ] {
            for (k, n) in theirs {
                *mine.entry(k.clone()).or_default() += n;
            }
        }
        self.delegations += other.delegations;
        self.delegations_spawned += other.delegations_spawned;
    }
}

/// Latency figures of the counted runs.
#[derive(Debug, Clone, PartialEq)]
pub struct Latency {
    pub p50_us: u64,
    pub p95_us: u64,
    pub max_us: u64,
    /// Runs per bucket of [`LATENCY_BUCKETS_US`].
    pub histogram: Vec<u64>,
}

/// Ids longer than this are cut (they are shown, and kept as map keys).
const MAX_ID_CHARS: usize = 96;

fn id(text: String) -> String {
    if text.chars().count() <= MAX_ID_CHARS {
        text
    } else {
        let mut cut: String = text.chars().take(MAX_ID_CHARS).collect();
        cut.push('…');
        cut
    }
}

/// Accumulates the routing mix of the runs in `[since, until]`, of `host` when one is given.
#[derive(Debug, Clone)]
pub struct MixBuilder {
    since: DateTime<Utc>,
    until: DateTime<Utc>,
    host: Option<String>,
    /// Ids longer than [`MAX_ID_CHARS`] are cut (the page), or kept whole (`stats`).
    cut_ids: bool,
    mix: RoutingMix,
    /// The timestamp, host and role of the last line when it was a `spawned:` line counted: the
    /// next `spawned:` line of the same delegation (same three) does not count another one.
    last_spawn: Option<(DateTime<Utc>, String, Option<String>)>,
}

impl MixBuilder {
    pub fn new(since: DateTime<Utc>, until: DateTime<Utc>, host: Option<&str>) -> MixBuilder {
        MixBuilder {
            since,
            until,
            host: host.map(str::to_owned),
            cut_ids: true,
            mix: RoutingMix::default(),
            last_spawn: None,
        }
    }

    /// Keeps every id whole, however long (`stats`, which prints them one per line).
    pub fn whole_ids(self) -> MixBuilder {
        MixBuilder {
            cut_ids: false,
            ..self
        }
    }

    /// Lines the reader skipped because they were longer than its cap.
    pub fn skipped_too_long(&mut self, lines: u64) {
        self.mix.lines += lines;
        self.mix.corrupt_lines += lines;
    }

    /// Counts one line of the log. Blank lines (white space only, any Unicode white space) are
    /// ignored.
    pub fn push(&mut self, raw: &[u8]) {
        if std::str::from_utf8(raw).is_ok_and(|text| text.trim().is_empty()) {
            return;
        }
        self.mix.lines += 1;
        let last_spawn = self.last_spawn.take();
        // A hint-outcome line first: it is not a run (no duration), and one that does not hold
        // together is corrupt.
        match LoggedHintOutcome::read(raw) {
            Some(Ok((line, outcome))) => return self.push_hint_outcome(line, outcome, last_spawn),
            Some(Err(())) => {
                self.mix.corrupt_lines += 1;
                return;
            }
            None => {}
        }
        let Ok(line) = crate::bounded::json::<LoggedRun>(raw, crate::bounded::FILE) else {
            self.mix.corrupt_lines += 1;
            return;
        };
        if line.ts < self.since || line.ts > self.until {
            self.mix.outside_period += 1;
            return;
        }
        if self.host.as_ref().is_some_and(|h| *h != line.host) {
            self.mix.other_hosts += 1;
            return;
        }
        let cut = self.cut_ids;
        let id = |text: String| if cut { id(text) } else { text };
        let m = &mut self.mix;
        m.runs += 1;
        let event = line.event.as_deref().unwrap_or("unknown");
        *m.runs_per_event_and_host
            .entry(id(format!("{event} {}", line.host)))
            .or_default() += 1;
        let last = m
            .last_run_per_host
            .entry(id(line.host.clone()))
            .or_insert(line.ts);
        *last = (*last).max(line.ts);
        *m.runs_per_host.entry(id(line.host)).or_default() += 1;
        *m.outcomes.entry(id(line.outcome)).or_default() += 1;
        if let Some(f) = line.failure {
            *m.failed_open.entry(id(f)).or_default() += 1;
        }
        if let Some(d) = line.degraded {
            *m.degraded.entry(id(d)).or_default() += 1;
        }
        if line.event.as_deref() == Some("SessionStart") {
            m.session_starts += 1;
        }
        if let Some(mode) = line.context_mode {
            m.prompts += 1;
            *m.prompts_per_day.entry(line.ts.date_naive()).or_default() += 1;
            *m.context_modes.entry(id(mode)).or_default() += 1;
            m.prompts_with_hotword += u64::from(!line.detected_hotwords.is_empty());
            m.carry_forward += u64::from(line.carry_forward);
        }
        if let Some(mode) = line.subagent_mode {
            *m.subagent_modes.entry(id(mode)).or_default() += 1;
        }
        for h in line.detected_hotwords {
            *m.hotwords.entry(id(h)).or_default() += 1;
        }
        for s in line.skills {
            *m.skills.entry(id(s)).or_default() += 1;
        }
        for a in line.recommended_agents {
            *m.agents.entry(id(a)).or_default() += 1;
        }
        *m.durations.entry(round3(line.duration_us)).or_default() += 1;
        m.max_duration_us = m.max_duration_us.max(line.duration_us);
    }

    /// Counts one valid hint-outcome line: not a run, a prompt or a duration.
    fn push_hint_outcome(
        &mut self,
        line: LoggedHintOutcome,
        outcome: HintOutcome,
        last_spawn: Option<(DateTime<Utc>, String, Option<String>)>,
    ) {
        if line.ts < self.since || line.ts > self.until {
            self.mix.outside_period += 1;
            return;
        }
        if self.host.as_ref().is_some_and(|h| *h != line.host) {
            self.mix.other_hosts += 1;
            return;
        }
        let cut = self.cut_ids;
        let id = |text: String| if cut { id(text) } else { text };
        self.mix.hint_outcome_lines += 1;
        let host = id(line.host);
        let a = self.mix.advice.entry(host.clone()).or_default();
        let bump =
            |map: &mut BTreeMap<String, u64>, key: String| *map.entry(id(key)).or_default() += 1;
        match outcome {
            HintOutcome::Followed { named } => a.skills.entry(id(named)).or_default().followed += 1,
            HintOutcome::Other { named, loaded } => {
                a.skills.entry(id(named)).or_default().other += 1;
                bump(&mut a.instead, loaded);
            }
            HintOutcome::Ignored { named } => a.skills.entry(id(named)).or_default().ignored += 1,
            HintOutcome::Unnamed { loaded } => bump(&mut a.unnamed, loaded),
            HintOutcome::Spawned { named, kind } => {
                let key = (line.ts, host, named);
                if last_spawn.as_ref() != Some(&key) {
                    a.delegations += 1;
                    a.delegations_spawned += 1;
                }
                bump(&mut a.spawned, kind);
                self.last_spawn = Some(key);
            }
            HintOutcome::NotSpawned { .. } => a.delegations += 1,
            HintOutcome::Unknown { reason } => bump(&mut a.unknown, reason),
        }
    }

    pub fn finish(self) -> RoutingMix {
        self.mix
    }
}

impl RoutingMix {
    /// The nearest-rank percentile `p` (0–1] of the durations, in microseconds.
    fn percentile(&self, p: f64) -> u64 {
        percentile(&self.durations, p)
    }

    pub fn latency(&self) -> Latency {
        let mut histogram = vec![0; LATENCY_BUCKETS_US.len()];
        for (us, n) in &self.durations {
            let i = LATENCY_BUCKETS_US
                .iter()
                .position(|(upper, _)| us < upper)
                .unwrap_or(LATENCY_BUCKETS_US.len() - 1);
            histogram[i] += n;
        }
        Latency {
            p50_us: self.percentile(0.50),
            p95_us: self.percentile(0.95),
            max_us: self.max_duration_us,
            histogram,
        }
    }

    /// The advice outcomes of every host together.
    pub fn advice_overall(&self) -> AdviceOutcomes {
        let mut all = AdviceOutcomes::default();
        for a in self.advice.values() {
            all.add(a);
        }
        all
    }

    /// The `n` largest counts, largest first, ties by id.
    pub fn top(map: &BTreeMap<String, u64>, n: usize) -> Vec<(&str, u64)> {
        let mut v: Vec<(&str, u64)> = map.iter().map(|(k, v)| (k.as_str(), *v)).collect();
        v.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(b.0)));
        v.truncate(n);
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(text).unwrap().to_utc()
    }

    const LOG: &str = r#"{"ts":"2026-11-01T10:00:00.000Z","event":"UserPromptSubmit","host":"codex","outcome":"injected","contextMode":"light","subagentMode":"off","detectedHotwords":["!quick"],"recommendedAgents":[],"carryForward":false,"skills":["mcp-database-expert"],"durationUs":1000}
{"ts":"2026-11-02T10:00:00.000Z","event":"UserPromptSubmit","host":"claude","outcome":"injected","contextMode":"full","subagentMode":"required","detectedHotwords":["!agents"],"recommendedAgents":["technical_analyst"],"carryForward":true,"skills":["mcp-technical-analyst","mcp-database-expert"],"degraded":"time-budget","durationUs":3000}
{"ts":"2026-11-02T11:00:00.000Z","event":null,"host":"codex","outcome":"failed-open","failure":"invalid-json","durationUs":2000}
{"ts":"2026-11-02T12:00:00.000Z","event":"SessionStart","host":"codex","outcome":"injected","durationUs":150123}
{"ts":"2026-10-01T12:00:00.000Z","event":"SessionStart","host":"codex","outcome":"injected","durationUs":1}
{"ts":"2026-11-03T11:00:00.0

not json at all
"#;

    fn mix(host: Option<&str>) -> RoutingMix {
        let mut b = MixBuilder::new(at("2026-11-01T00:00:00Z"), at("2026-11-30T00:00:00Z"), host);
        for line in LOG.lines() {
            b.push(line.as_bytes());
        }
        b.skipped_too_long(1);
        b.finish()
    }

    #[test]
    fn counts_runs_modes_ids_and_skips_what_it_cannot_read() {
        let m = mix(None);
        assert_eq!((m.lines, m.corrupt_lines, m.outside_period), (8, 3, 1));
        assert_eq!((m.runs, m.prompts, m.session_starts), (4, 2, 1));
        assert_eq!(m.prompts_per_day.values().collect::<Vec<_>>(), [&1, &1]);
        assert_eq!(m.context_modes["light"], 1);
        assert_eq!(m.subagent_modes["required"], 1);
        assert_eq!((m.hotwords["!quick"], m.prompts_with_hotword), (1, 2));
        assert_eq!(m.skills["mcp-database-expert"], 2);
        assert_eq!(m.agents["technical_analyst"], 1);
        assert_eq!(m.carry_forward, 1);
        assert_eq!(m.degraded["time-budget"], 1);
        assert_eq!(m.failed_open["invalid-json"], 1);
        let l = m.latency();
        assert_eq!((l.p50_us, l.p95_us, l.max_us), (2000, 150_000, 150_123));
        assert_eq!(l.histogram, [0, 0, 1, 2, 0, 0, 0, 0, 1]);
    }

    #[test]
    fn a_host_filter_counts_the_others_apart() {
        let m = mix(Some("claude"));
        assert_eq!((m.runs, m.other_hosts), (1, 3));
        assert_eq!(m.runs_per_host.keys().collect::<Vec<_>>(), ["claude"]);
    }

    #[test]
    fn durations_keep_three_significant_digits() {
        assert_eq!(
            [999, 1234, 98_765, 1_000_001].map(round3),
            [999, 1230, 98_700, 1_000_000]
        );
        let empty = RoutingMix::default().latency();
        assert_eq!((empty.p50_us, empty.max_us), (0, 0));
    }

    /// Hint-outcome lines of every kind (issue 46), one outside the period and a run among them.
    const HINTS: &str = r#"{"ts":"2026-11-05T14:00:00Z","event":"hint-outcome","host":"claude","hint":"skill","named":"pdf","outcome":"followed"}
{"ts":"2026-11-05T14:10:00Z","event":"hint-outcome","host":"claude","hint":"skill","named":"pdf","outcome":"other:docx"}
{"ts":"2026-11-05T14:20:00Z","event":"hint-outcome","host":"claude","hint":"skill","named":"project:1a2b3c4d5e6f","outcome":"ignored"}
{"ts":"2026-11-05T14:30:00Z","event":"hint-outcome","host":"codex","hint":"skill","outcome":"unnamed:xlsx"}
{"ts":"2026-11-05T14:40:00Z","event":"hint-outcome","host":"claude","hint":"delegation","named":"technical_analyst","outcome":"spawned:technical_analyst"}
{"ts":"2026-11-05T14:40:00Z","event":"hint-outcome","host":"claude","hint":"delegation","named":"technical_analyst","outcome":"spawned:scout"}
{"ts":"2026-11-05T14:45:00Z","event":"hint-outcome","host":"claude","hint":"delegation","outcome":"spawned:scout"}
{"ts":"2026-11-05T14:50:00Z","event":"hint-outcome","host":"copilot","hint":"delegation","outcome":"not-spawned"}
{"ts":"2026-11-05T15:00:00Z","event":"hint-outcome","host":"gemini","outcome":"unknown","reason":"transcript-missing"}
{"ts":"2026-11-05T15:05:00.000Z","event":"UserPromptSubmit","host":"codex","outcome":"injected","contextMode":"full","subagentMode":"off","detectedHotwords":[],"recommendedAgents":[],"carryForward":false,"skills":["hint-outcome"],"durationUs":1000}
{"ts":"2026-11-05T15:10:00Z","event":"hint-outcome","host":"claude","hint":"skill","named":"pdf","outcome":"followed"}
{"ts":"2026-10-05T15:10:00Z","event":"hint-outcome","host":"claude","hint":"skill","named":"pdf","outcome":"followed"}
"#;

    fn hints(host: Option<&str>, log: &str) -> RoutingMix {
        let mut b = MixBuilder::new(at("2026-11-01T00:00:00Z"), at("2026-11-30T00:00:00Z"), host);
        for line in log.lines() {
            b.push(line.as_bytes());
        }
        b.finish()
    }

    #[test]
    fn hint_outcome_lines_are_tallied_apart_from_runs() {
        let m = hints(None, HINTS);
        assert_eq!((m.lines, m.corrupt_lines, m.outside_period), (12, 0, 1));
        assert_eq!(m.hint_outcome_lines, 10);
        // The one run: a skill named `hint-outcome` does not make a run line a hint-outcome one.
        assert_eq!((m.runs, m.prompts, m.session_starts), (1, 1, 0));
        assert_eq!(m.runs_per_host.keys().collect::<Vec<_>>(), ["codex"]);
        assert_eq!(m.last_run_per_host.keys().collect::<Vec<_>>(), ["codex"]);
        assert_eq!(m.outcomes.keys().collect::<Vec<_>>(), ["injected"]);
        assert_eq!(m.latency().max_us, 1000);
        assert_eq!(
            m.advice.keys().collect::<Vec<_>>(),
            ["claude", "codex", "copilot", "gemini"]
        );
        let claude = &m.advice["claude"];
        let pdf = SkillHints {
            followed: 2,
            other: 1,
            ignored: 0,
        };
        assert_eq!(claude.skills["pdf"], pdf);
        assert_eq!(pdf.named(), 3);
        assert_eq!(claude.skills["project:1a2b3c4d5e6f"].ignored, 1);
        assert_eq!(claude.instead["docx"], 1);
        // Two delegations: one that spawned two types (one timestamp), one that spawned one.
        assert_eq!((claude.delegations, claude.delegations_spawned), (2, 2));
        assert_eq!(claude.spawned["technical_analyst"], 1);
        assert_eq!(claude.spawned["scout"], 2);
        assert_eq!(m.advice["codex"].unnamed["xlsx"], 1);
        assert!(m.advice["codex"].skills.is_empty());
        let copilot = &m.advice["copilot"];
        assert_eq!((copilot.delegations, copilot.not_spawned()), (1, 1));
        assert_eq!(copilot.spawned_rate(), Some(0.0));
        assert_eq!(m.advice["gemini"].unknown["transcript-missing"], 1);
        let all = m.advice_overall();
        assert_eq!(
            all.skill_hints(),
            SkillHints {
                followed: 2,
                other: 1,
                ignored: 1
            }
        );
        assert_eq!(all.skill_hints().followed_rate(), Some(0.5));
        assert_eq!((all.delegations, all.delegations_spawned), (3, 2));
        assert_eq!(all.not_spawned(), 1);
    }

    #[test]
    fn a_host_filter_applies_to_hint_outcome_lines() {
        let m = hints(Some("claude"), HINTS);
        assert_eq!((m.hint_outcome_lines, m.other_hosts, m.runs), (7, 4, 0));
        assert_eq!(m.advice.keys().collect::<Vec<_>>(), ["claude"]);
    }

    #[test]
    fn a_hint_outcome_line_that_does_not_hold_together_is_corrupt() {
        let line = |fields: &str| {
            format!(
                r#"{{"ts":"2026-11-05T14:00:00Z","event":"hint-outcome","host":"claude",{fields}}}"#
            )
        };
        let bad = [
            line(r#""hint":"skill","named":"pdf","outcome":"adopted""#),
            line(r#""hint":"skill","named":"pdf""#),
            line(r#""hint":"skill","named":"pdf","outcome":"followed:pdf""#),
            line(r#""outcome":"unknown""#),
            line(r#""outcome":"unknown","reason":"""#),
            line(r#""hint":"nudge","outcome":"unknown","reason":"transcript-missing""#),
            line(r#""hint":"skill","named":"pdf","outcome":"unnamed:xlsx""#),
            line(r#""hint":"skill","outcome":"followed""#),
            line(r#""hint":"skill","named":"","outcome":"ignored""#),
            line(r#""hint":"skill","named":"pdf","outcome":"other:""#),
            line(r#""named":"pdf","outcome":"followed""#),
            line(r#""hint":"skill","named":"pdf","outcome":"spawned:scout""#),
            line(r#""hint":"delegation","named":"scout","outcome":"followed""#),
            line(r#""hint":"delegation","outcome":"spawned:""#),
            line(r#""hint":"skill","named":7,"outcome":"followed""#),
            line(r#""hint":"skill","named":"pdf","outcome":"followed","durationUs":5"#),
            r#"{"ts":"yesterday","event":"hint-outcome","host":"claude","outcome":"unknown","reason":"x"}"#.into(),
            r#"{"ts":"2026-11-05T14:00:00Z","event":"hint-outcome","outcome":"unknown","reason":"x"}"#.into(),
            r#"{"ts":"2026-11-05T14:00:00Z","event":"hint-outcome","host":" ","outcome":"unknown","reason":"x"}"#.into(),
        ];
        // Every one but the `durationUs` one, which is valid (other fields are ignored).
        for (i, l) in bad.iter().enumerate() {
            let m = hints(None, l);
            let want = if i == 15 { (0, 1) } else { (1, 0) };
            assert_eq!((m.corrupt_lines, m.hint_outcome_lines), want, "{l}");
            assert_eq!(m.runs, 0, "{l}");
        }
    }

    #[test]
    fn hint_outcome_ids_are_cut_as_other_ids_are() {
        let long = "s".repeat(200);
        let log = format!(
            r#"{{"ts":"2026-11-05T14:00:00Z","event":"hint-outcome","host":"claude","hint":"skill","named":"{long}","outcome":"other:{long}"}}"#
        );
        let m = hints(None, &log);
        let cut = format!("{}…", "s".repeat(96));
        assert_eq!(m.advice["claude"].skills[&cut].other, 1);
        assert_eq!(m.advice["claude"].instead[&cut], 1);
        let mut whole =
            MixBuilder::new(at("2026-11-01T00:00:00Z"), at("2026-11-30T00:00:00Z"), None)
                .whole_ids();
        whole.push(log.as_bytes());
        assert_eq!(whole.finish().advice["claude"].instead[&long], 1);
    }

    #[test]
    fn long_ids_are_cut() {
        assert_eq!(id("a".repeat(200)).chars().count(), MAX_ID_CHARS + 1);
        assert_eq!(id("scout".into()), "scout");
    }
}
