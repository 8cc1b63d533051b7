//! The time budget, with an injected clock (no sleeps): past the budget the hook emits the
//! routing-control block only and records the overrun in analytics.
// Tests and benches set up and read their files directly; the door (clippy.toml) is for the crate.
#![allow(clippy::disallowed_methods)]

use std::ffi::OsString;
use std::time::Duration;

use chrono::DateTime;
use sophia_hook::clock::FixedClock;
use sophia_hook::edge::settings::Settings;

fn run(elapsed_ms: u64, budget_ms: Option<&str>, analytics: &std::path::Path) -> String {
    let clock = FixedClock {
        now: DateTime::parse_from_rfc3339("2026-11-29T12:00:00Z")
            .unwrap()
            .to_utc(),
        elapsed: Duration::from_millis(elapsed_ms),
    };
    let file = analytics.to_string_lossy().into_owned();
    let budget = budget_ms.map(str::to_owned);
    let settings = Settings::from_lookup(|k| match k {
        "SOPHIA_ANALYTICS_FILE" => Some(file.clone()),
        "SOPHIA_TIME_BUDGET_MS" => budget.clone(),
        // The skill line is what a run within budget adds: every embedded skill nameable.
        "SOPHIA_EMBEDDED_SKILLS" => Some("on".to_owned()),
        _ => None,
    });
    let payload = br#"{"hook_event_name":"UserPromptSubmit","cwd":"/nonexistent","prompt":"!agents analizza il ticket Mantis 123 e ricostruisci la causa"}"#;
    let mut stdout = Vec::new();
    let mut stderr = Vec::new();
    let code = sophia_hook::cli::run(
        vec![OsString::from("sophia-hook")],
        &mut &payload[..],
        &mut stdout,
        &mut stderr,
        &settings,
        &clock,
    );
    assert_eq!(code, 0);
    String::from_utf8(stdout).unwrap()
}

fn last_line(path: &std::path::Path) -> serde_json::Value {
    let text = std::fs::read_to_string(path).unwrap();
    serde_json::from_str(text.lines().last().unwrap()).unwrap()
}

#[test]
fn within_the_budget_everything_is_routed() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("a.jsonl");
    let out = run(50, None, &log);
    assert!(
        out.contains("subagentMode=required")
            && out.contains("Sophia skill routing")
            && out.contains("agent=technical_analyst")
    );
    assert!(last_line(&log).get("degraded").is_none());
}

#[test]
fn past_the_budget_only_the_routing_control_block_is_emitted() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("a.jsonl");
    let out = run(150, None, &log);
    assert!(
        out.contains("Sophia routing control: contextMode=full"),
        "{out}"
    );
    assert!(out.contains("subagentMode=required"));
    assert!(
        !out.contains("Sophia skill routing") && !out.contains("Sophia agent routing"),
        "{out}"
    );
    let line = last_line(&log);
    assert_eq!(line["degraded"], "time-budget");
    assert_eq!(line["durationUs"], 150_000);
    assert_eq!(line["outcome"], "injected");
}

#[test]
fn the_budget_is_configurable() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("a.jsonl");
    // Lowered by the environment, never raised past the default (a repository may set it).
    assert!(run(60, Some("80"), &log).contains("Sophia skill routing"));
    assert!(!run(20, Some("10"), &log).contains("Sophia skill routing"));
    assert!(!run(150, Some("500"), &log).contains("Sophia skill routing"));
}
