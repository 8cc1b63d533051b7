//! `stats` and `report`'s routing mix over generated analytics logs, against a model written from
//! the spec (docs/configuration.md "stats", docs/report.md), never from the code's output.
//!
//! The rules:
//! - a blank line is ignored; a non-blank line that is not an analytics event is counted as
//!   corrupt and skipped;
//! - `stats --since T` counts the runs at or after `T` (earlier ones apart); the report counts the
//!   runs inside `[since, until]`, both ends included, of the chosen host only (others apart);
//! - every run counts once per event and host (`unknown` for a run with no event), per outcome,
//!   per failure code, per context and subagent mode; every hotword, skill and agent of a run
//!   counts once per appearance;
//! - a prompt run is a run with a context mode: the carry-forward rate is the prompt runs that
//!   carried a plan forward over the prompt runs (0 with none); the report's per-day prompts,
//!   prompts with a hotword and carry-forward count prompt runs only;
//! - top lists: largest count first, ties by id, at most ten in `stats`;
//! - durations: rounded down to three significant digits, p50/p95 the nearest-rank percentile of
//!   the rounded durations (rank `ceil(p·n)`, at least 1), the maximum the largest raw duration;
//!   the report's histogram counts each run in the first bucket whose upper bound is above it;
//! - ids longer than 96 characters are cut to 96 characters and `…` in the report;
//! - a hint-outcome line is no run: it counts as a line, apart when outside the period or of
//!   another host, else once as a hint-outcome line under its host and the skill it named.
//!
//! Planted bugs this catches (each seen failing): the top-ten cap at nine, ties ordered by
//! descending id, `--since` exclusive of its own instant, the percentile rank rounded down, the
//! carry-forward rate over all runs, the report's period end exclusive, ids cut at bytes.
// Tests and benches set up and read their files directly; the door (clippy.toml) is for the crate.
#![allow(clippy::disallowed_methods)]

use std::collections::BTreeMap;

use chrono::{DateTime, Duration, TimeZone, Utc};
use proptest::prelude::*;
use serde_json::{Value, json};

use sophia_hook::report::mix::MixBuilder;
use sophia_hook::report::mix::{LATENCY_BUCKETS_US, RoutingMix, percentile, round3};
use sophia_hook::stats::{parse_since, summarise};

fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        failure_persistence: None,
        rng_seed: proptest::test_runner::RngSeed::Fixed(21),
        ..ProptestConfig::default()
    }
}

fn base() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 1, 0, 0, 0).unwrap()
}

/// The k-th instant of the generated logs: seven hours apart, so runs fall on many UTC days.
fn instant(k: u32) -> DateTime<Utc> {
    base() + Duration::hours(7 * i64::from(k))
}

/// One generated run, as the spec describes a line.
#[derive(Debug, Clone)]
struct Run {
    k: u32,
    event: Option<&'static str>,
    host: &'static str,
    outcome: &'static str,
    failure: Option<&'static str>,
    context_mode: Option<&'static str>,
    subagent_mode: Option<&'static str>,
    hotwords: Vec<&'static str>,
    skills: Vec<String>,
    agents: Vec<&'static str>,
    carry_forward: bool,
    degraded: Option<&'static str>,
    duration_us: u64,
}

/// A hint-outcome line (issue 46): at instant `k`, of `host`, a skill hint's outcome for `named`.
#[derive(Debug, Clone)]
struct Hint {
    k: u32,
    host: &'static str,
    named: &'static str,
    outcome: &'static str,
}

/// A line of the log: a run, a hint-outcome line, a corrupt line or a blank one.
#[derive(Debug, Clone)]
enum Line {
    Run(Run),
    Hint(Hint),
    Corrupt(&'static str),
    Blank(&'static str),
}

const SKILLS: [&str; 14] = [
    "a-skill", "b-skill", "c-skill", "d-skill", "e-skill", "f-skill", "g-skill", "h-skill",
    "i-skill", "j-skill", "k-skill", "l-skill", "m-skill", "n-skill",
];

fn skill_id() -> impl Strategy<Value = String> {
    prop_oneof![
        8 => prop::sample::select(&SKILLS[..]).prop_map(str::to_owned),
        // Long ids: ASCII and two-byte characters around the 96-character cut.
        1 => (95usize..99).prop_map(|n| "s".repeat(n)),
        1 => (95usize..99).prop_map(|n| "é".repeat(n)),
    ]
}

fn duration() -> impl Strategy<Value = u64> {
    prop_oneof![
        0u64..2_000,
        0u64..200_000,
        prop::sample::select(vec![
            0u64, 499, 500, 999, 1_000, 1_004, 1_999, 2_000, 4_495, 9_999, 10_000, 99_999, 100_000,
            1_234_567
        ]),
    ]
}

fn run() -> impl Strategy<Value = Run> {
    (
        (
            0u32..40,
            prop::option::of(prop::sample::select(vec![
                "SessionStart",
                "UserPromptSubmit",
                "BeforeAgent",
                "PostToolUse",
            ])),
            prop::sample::select(vec!["codex", "claude", "gemini", "copilot"]),
            prop::sample::select(vec!["injected", "passthrough", "failed-open"]),
            prop::option::of(prop::sample::select(vec!["invalid-json", "panic", "io"])),
            prop::option::of(prop::sample::select(vec!["light", "full"])),
            prop::option::of(prop::sample::select(vec!["off", "suggested", "required"])),
        ),
        (
            prop::collection::vec(prop::sample::select(vec!["!quick", "!agents"]), 0..3),
            prop::collection::vec(skill_id(), 0..4),
            prop::collection::vec(
                prop::sample::select(vec!["scout", "implementer", "reviewer"]),
                0..3,
            ),
            any::<bool>(),
            prop::option::of(Just("time-budget")),
            duration(),
        ),
    )
        .prop_map(
            |(
                (k, event, host, outcome, failure, context_mode, subagent_mode),
                (hotwords, skills, agents, carry_forward, degraded, duration_us),
            )| Run {
                k,
                event,
                host,
                outcome,
                failure,
                context_mode,
                subagent_mode,
                hotwords,
                skills,
                agents,
                carry_forward,
                degraded,
                duration_us,
            },
        )
}

fn line() -> impl Strategy<Value = Line> {
    prop_oneof![
        12 => run().prop_map(Line::Run),
        3 => (
            0u32..40,
            prop::sample::select(vec!["codex", "claude", "gemini", "copilot"]),
            prop::sample::select(vec!["a-skill", "b-skill"]),
            prop::sample::select(vec!["followed", "other:c-skill", "ignored"]),
        )
            .prop_map(|(k, host, named, outcome)| Line::Hint(Hint { k, host, named, outcome })),
        1 => prop::sample::select(vec![
            "not json at all",
            "{\"ts\":\"2026-11-03T11:00:00.0",
            "{\"ts\":\"yesterday\",\"host\":\"codex\",\"outcome\":\"injected\",\"durationUs\":1}",
            "{\"host\":\"codex\",\"outcome\":\"injected\",\"durationUs\":1}",
            "[1,2,3]",
        ])
        .prop_map(Line::Corrupt),
        1 => prop::sample::select(vec!["", "   ", "\t"]).prop_map(Line::Blank),
    ]
}

fn to_text(lines: &[Line]) -> String {
    let mut text = String::new();
    for l in lines {
        match l {
            Line::Run(r) => {
                let mut v = json!({
                    "ts": instant(r.k).to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
                    "event": r.event,
                    "host": r.host,
                    "outcome": r.outcome,
                    "detectedHotwords": r.hotwords,
                    "reasons": [],
                    "subagentSource": null,
                    "recommendedAgents": r.agents,
                    "agentReasonCodes": [],
                    "carryForward": r.carry_forward,
                    "skills": r.skills,
                    "planning": false,
                    "durationUs": r.duration_us,
                });
                let o = v.as_object_mut().unwrap();
                for (key, val) in [
                    ("failure", r.failure),
                    ("contextMode", r.context_mode),
                    ("subagentMode", r.subagent_mode),
                    ("degraded", r.degraded),
                ] {
                    if let Some(val) = val {
                        o.insert(key.into(), Value::from(val));
                    }
                }
                text.push_str(&serde_json::to_string(&v).unwrap());
            }
            Line::Hint(h) => text.push_str(
                &json!({
                    "ts": instant(h.k).to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
                    "event": "hint-outcome",
                    "host": h.host,
                    "hint": "skill",
                    "named": h.named,
                    "outcome": h.outcome,
                })
                .to_string(),
            ),
            Line::Corrupt(c) => text.push_str(c),
            Line::Blank(b) => text.push_str(b),
        }
        text.push('\n');
    }
    text
}

fn bump<K: Ord>(map: &mut BTreeMap<K, usize>, k: K) {
    *map.entry(k).or_default() += 1;
}

/// Largest count first, ties by id (ascending), the first `n`.
fn spec_top(counts: &BTreeMap<String, usize>, n: usize) -> Vec<(String, usize)> {
    let mut best: Vec<(String, usize)> = Vec::new();
    let mut left = counts.clone();
    while best.len() < n {
        let Some(max) = left.values().copied().max() else {
            break;
        };
        // The smallest id among those with the largest count: BTreeMap iterates ids in order.
        let id = left.iter().find(|(_, c)| **c == max).unwrap().0.clone();
        left.remove(&id);
        best.push((id, max));
    }
    best
}

/// Three significant digits, rounded down, by the decimal digits.
fn spec_round3(us: u64) -> u64 {
    let digits = us.to_string();
    if digits.len() <= 3 {
        return us;
    }
    let kept: String = digits[..3].to_owned() + &"0".repeat(digits.len() - 3);
    kept.parse().unwrap()
}

/// Nearest rank: the value at rank ceil(p·n) (1-based, at least 1) of the sorted values.
fn spec_percentile(values: &[u64], p: f64) -> u64 {
    if values.is_empty() {
        return 0;
    }
    let mut sorted = values.to_vec();
    sorted.sort_unstable();
    let n = sorted.len();
    let mut rank = 1;
    while (rank as f64) < p * n as f64 {
        rank += 1;
    }
    sorted[rank.min(n) - 1]
}

fn spec_id(id: &str) -> String {
    if id.chars().count() <= 96 {
        id.to_owned()
    } else {
        id.chars().take(96).chain(['…']).collect()
    }
}

proptest! {
    #![proptest_config(config(512))]

    /// `stats` over any log, with or without `--since`.
    #[test]
    fn stats_counts_every_run_by_the_spec(
        lines in prop::collection::vec(line(), 0..40),
        since in prop::option::of(0u32..40),
    ) {
        let text = to_text(&lines);
        let got = summarise(&text, since.map(instant));

        let mut corrupt = 0;
        let mut before = 0;
        let mut hints = 0;
        let mut runs = Vec::new();
        for l in &lines {
            match l {
                Line::Run(r) if since.is_some_and(|s| r.k < s) => before += 1,
                Line::Run(r) => runs.push(r),
                // Not a run: apart before `--since`, else one more hint-outcome line.
                Line::Hint(h) if since.is_some_and(|s| h.k < s) => before += 1,
                Line::Hint(_) => hints += 1,
                Line::Corrupt(_) => corrupt += 1,
                Line::Blank(_) => {}
            }
        }
        prop_assert_eq!(got.runs, runs.len());
        prop_assert_eq!(got.corrupt_lines, corrupt);
        prop_assert_eq!(got.skipped_before_since, before);
        prop_assert_eq!(got.hint_outcomes.lines, hints);

        let (mut by_event, mut outcomes, mut failed, mut contexts, mut subagents, mut hotwords) =
            Default::default();
        let (mut skills, mut agents) = (BTreeMap::new(), BTreeMap::new());
        let (mut prompts, mut carried) = (0usize, 0usize);
        for r in &runs {
            bump(&mut by_event, format!("{} {}", r.event.unwrap_or("unknown"), r.host));
            bump(&mut outcomes, r.outcome.to_owned());
            if let Some(f) = r.failure {
                bump(&mut failed, f.to_owned());
            }
            if let Some(m) = r.context_mode {
                bump(&mut contexts, m.to_owned());
                prompts += 1;
                carried += usize::from(r.carry_forward);
            }
            if let Some(m) = r.subagent_mode {
                bump(&mut subagents, m.to_owned());
            }
            for h in &r.hotwords {
                bump(&mut hotwords, h.to_string());
            }
            for s in &r.skills {
                bump(&mut skills, s.clone());
            }
            for a in &r.agents {
                bump(&mut agents, a.to_string());
            }
        }
        prop_assert_eq!(&got.by_event_and_host, &by_event);
        prop_assert_eq!(&got.outcomes, &outcomes);
        prop_assert_eq!(&got.failed_open, &failed);
        prop_assert_eq!(&got.context_modes, &contexts);
        prop_assert_eq!(&got.subagent_modes, &subagents);
        prop_assert_eq!(&got.hotwords, &hotwords);
        prop_assert_eq!(&got.top_skills, &spec_top(&skills, 10));
        prop_assert_eq!(&got.top_agents, &spec_top(&agents, 10));
        let rate = if prompts == 0 { 0.0 } else { carried as f64 / prompts as f64 };
        prop_assert_eq!(got.carry_forward_rate, rate);

        let rounded: Vec<u64> = runs.iter().map(|r| spec_round3(r.duration_us)).collect();
        prop_assert_eq!(got.duration_ms_p50, spec_percentile(&rounded, 0.50) as f64 / 1000.0);
        prop_assert_eq!(got.duration_ms_p95, spec_percentile(&rounded, 0.95) as f64 / 1000.0);
        let max = runs.iter().map(|r| r.duration_us).max().unwrap_or(0);
        prop_assert_eq!(got.duration_ms_max, max as f64 / 1000.0);
    }

    /// The report's routing mix over any log, any period (ends included) and host filter.
    #[test]
    fn the_report_mix_counts_every_run_by_the_spec(
        lines in prop::collection::vec(line(), 0..40),
        (from, to) in (0u32..40, 0u32..40),
        host in prop::option::of(prop::sample::select(vec!["codex", "claude", "gemini"])),
    ) {
        let (since, until) = (from.min(to), from.max(to));
        let text = to_text(&lines);
        let mut builder = MixBuilder::new(instant(since), instant(until), host);
        for raw in text.split('\n') {
            builder.push(raw.as_bytes());
        }
        let got = builder.finish();

        let mut want = RoutingMix::default();
        let mut durations = Vec::new();
        let mut histogram = vec![0u64; LATENCY_BUCKETS_US.len()];
        let b = |map: &mut BTreeMap<String, u64>, k: &str| *map.entry(spec_id(k)).or_default() += 1;
        for l in &lines {
            let r = match l {
                Line::Blank(_) => continue,
                Line::Corrupt(_) => {
                    want.lines += 1;
                    want.corrupt_lines += 1;
                    continue;
                }
                Line::Hint(h) => {
                    want.lines += 1;
                    if h.k < since || h.k > until {
                        want.outside_period += 1;
                    } else if host.is_some_and(|x| x != h.host) {
                        want.other_hosts += 1;
                    } else {
                        want.hint_outcome_lines += 1;
                        let s = want.advice.entry(h.host.to_owned()).or_default().skills.entry(h.named.to_owned()).or_default();
                        match h.outcome {
                            "followed" => s.followed += 1,
                            "ignored" => s.ignored += 1,
                            _ => s.other += 1,
                        }
                    }
                    continue;
                }
                Line::Run(r) => r,
            };
            want.lines += 1;
            if r.k < since || r.k > until {
                want.outside_period += 1;
                continue;
            }
            if host.is_some_and(|h| h != r.host) {
                want.other_hosts += 1;
                continue;
            }
            want.runs += 1;
            b(&mut want.runs_per_host, r.host);
            b(&mut want.outcomes, r.outcome);
            if let Some(f) = r.failure {
                b(&mut want.failed_open, f);
            }
            if let Some(d) = r.degraded {
                b(&mut want.degraded, d);
            }
            if r.event == Some("SessionStart") {
                want.session_starts += 1;
            }
            if let Some(m) = r.context_mode {
                want.prompts += 1;
                *want.prompts_per_day.entry(instant(r.k).date_naive()).or_default() += 1;
                b(&mut want.context_modes, m);
                want.prompts_with_hotword += u64::from(!r.hotwords.is_empty());
                want.carry_forward += u64::from(r.carry_forward);
            }
            if let Some(m) = r.subagent_mode {
                b(&mut want.subagent_modes, m);
            }
            for h in &r.hotwords {
                b(&mut want.hotwords, h);
            }
            for s in &r.skills {
                b(&mut want.skills, s);
            }
            for a in &r.agents {
                b(&mut want.agents, a);
            }
            durations.push(r.duration_us);
            let bucket = LATENCY_BUCKETS_US
                .iter()
                .position(|(upper, _)| r.duration_us < *upper)
                .unwrap();
            histogram[bucket] += 1;
        }
        let latency = got.latency();
        // Everything but the private durations, field by field, so a failure names the field.
        prop_assert_eq!(
            (got.lines, got.corrupt_lines, got.outside_period, got.other_hosts),
            (want.lines, want.corrupt_lines, want.outside_period, want.other_hosts)
        );
        prop_assert_eq!((got.runs, got.prompts, got.session_starts), (want.runs, want.prompts, want.session_starts));
        prop_assert_eq!(got.hint_outcome_lines, want.hint_outcome_lines);
        let skill_hints = |m: &RoutingMix| -> BTreeMap<String, BTreeMap<String, (u64, u64, u64)>> {
            m.advice
                .iter()
                .map(|(h, a)| {
                    (h.clone(), a.skills.iter().map(|(k, s)| (k.clone(), (s.followed, s.other, s.ignored))).collect())
                })
                .collect()
        };
        prop_assert_eq!(skill_hints(&got), skill_hints(&want));
        prop_assert_eq!(&got.prompts_per_day, &want.prompts_per_day);
        prop_assert_eq!(&got.runs_per_host, &want.runs_per_host);
        prop_assert_eq!(&got.outcomes, &want.outcomes);
        prop_assert_eq!(&got.context_modes, &want.context_modes);
        prop_assert_eq!(&got.subagent_modes, &want.subagent_modes);
        prop_assert_eq!(&got.hotwords, &want.hotwords);
        prop_assert_eq!(got.prompts_with_hotword, want.prompts_with_hotword);
        prop_assert_eq!(&got.skills, &want.skills);
        prop_assert_eq!(&got.agents, &want.agents);
        prop_assert_eq!(got.carry_forward, want.carry_forward);
        prop_assert_eq!(&got.degraded, &want.degraded);
        prop_assert_eq!(&got.failed_open, &want.failed_open);
        let rounded: Vec<u64> = durations.iter().map(|d| spec_round3(*d)).collect();
        prop_assert_eq!(latency.p50_us, spec_percentile(&rounded, 0.50));
        prop_assert_eq!(latency.p95_us, spec_percentile(&rounded, 0.95));
        prop_assert_eq!(latency.max_us, durations.iter().copied().max().unwrap_or(0));
        prop_assert_eq!(latency.histogram, histogram);
    }

    /// `RoutingMix::top`: largest first, ties by id, at most `n`.
    #[test]
    fn report_top_lists_are_largest_first_ties_by_id(
        counts in prop::collection::btree_map(prop::sample::select(&SKILLS[..]), 1usize..5, 0..14),
        n in 0usize..16,
    ) {
        let counts: BTreeMap<String, usize> =
            counts.into_iter().map(|(k, v)| (k.to_owned(), v)).collect();
        let as_u64: BTreeMap<String, u64> =
            counts.iter().map(|(k, v)| (k.clone(), *v as u64)).collect();
        let got: Vec<(String, usize)> = RoutingMix::top(&as_u64, n)
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v as usize))
            .collect();
        prop_assert_eq!(got, spec_top(&counts, n));
    }

    /// Rounding keeps three significant digits, rounded down, for any duration.
    #[test]
    fn durations_keep_three_significant_digits(us in any::<u64>()) {
        prop_assert_eq!(round3(us), spec_round3(us));
    }

    /// The percentile of a histogram is the nearest rank of its values, for every p.
    #[test]
    fn the_percentile_is_the_nearest_rank(
        values in prop::collection::vec(0u64..50, 0..30),
        p in prop::sample::select(vec![0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 1.0]),
    ) {
        let mut histogram = BTreeMap::new();
        for v in &values {
            *histogram.entry(*v).or_insert(0u64) += 1;
        }
        prop_assert_eq!(percentile(&histogram, p), spec_percentile(&values, p));
    }
}

/// Every duration form of `--since` at every count, and the dates and timestamps.
#[test]
fn since_is_now_minus_the_duration_for_every_unit() {
    let now = Utc.with_ymd_and_hms(2026, 11, 30, 12, 34, 56).unwrap();
    for n in [0i64, 1, 2, 7, 36, 90, 1000] {
        for (unit, minutes) in [('m', 1i64), ('h', 60), ('d', 24 * 60), ('w', 7 * 24 * 60)] {
            let text = format!("{n}{unit}");
            assert_eq!(
                parse_since(&text, now),
                Ok(now - Duration::minutes(n * minutes)),
                "{text}"
            );
            assert_eq!(
                parse_since(&format!(" {text} "), now),
                Ok(now - Duration::minutes(n * minutes))
            );
        }
    }
    assert_eq!(
        parse_since("2026-11-01", now),
        Ok(Utc.with_ymd_and_hms(2026, 11, 1, 0, 0, 0).unwrap())
    );
    assert_eq!(
        parse_since("2026-11-01T10:00:00+02:00", now),
        Ok(Utc.with_ymd_and_hms(2026, 11, 1, 8, 0, 0).unwrap())
    );
    for bad in [
        "",
        "d",
        "7",
        "7x",
        "-1d",
        "1.5h",
        "7 d",
        "yesterday",
        "2026-13-01",
        "99999999999999999999d",
    ] {
        assert!(parse_since(bad, now).is_err(), "{bad:?} must be refused");
    }
}
