//! Degrade, don't disappear (issue 48, class 6): once the payload is parsed, a hook run that
//! does not finish — a step that never ends, a panic — still answers the user's routing line,
//! exits 0, and says why in analytics. Injected through the real binary (`--fault`), with
//! budgets the test sets: no verdict here depends on the machine's speed (a stalled run stalls
//! for good; the watchdog is the only way out).
// Tests set up and read their files directly; the door (clippy.toml) is for the crate.
#![allow(clippy::disallowed_methods)]

use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::Value;
use sophia_hook::hosts::Host;

use crate::common::{self, Sandbox};

/// Runs the binary and kills it after `limit` (a watchdog that never fires would hang the test).
fn run_with_limit(sandbox: &Sandbox, args: &[&str], stdin: &[u8], limit: Duration) -> common::Run {
    let mut cmd = sandbox.command(args);
    cmd.stdin(Stdio::piped());
    let mut child = cmd.spawn().expect("start sophia-hook");
    {
        use std::io::Write;
        let _ = child.stdin.take().unwrap().write_all(stdin);
    }
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > limit {
            let _ = child.kill();
            panic!("{args:?}: still running after {limit:?}: no answer at the deadline");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let out = child.wait_with_output().unwrap();
    common::Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8(out.stdout).unwrap(),
        stderr: String::from_utf8(out.stderr).unwrap(),
    }
}

/// Every host whose prompt event answers in context × a run whose loading stalls for good and one
/// that panics once the payload is parsed: the routing-control line of the user's hotwords is
/// the answer, in the host's JSON, once; the analytics line names the reason.
#[test]
fn a_run_that_cannot_finish_still_answers_the_users_routing_line() {
    let mut cases = 0;
    for host in Host::ALL {
        for (fault, reason) in [("stall", "deadline"), ("panic-after-parse", "panic")] {
            let home = tempfile::tempdir().unwrap();
            let project = home.path().join("project");
            std::fs::create_dir_all(project.join(".git")).unwrap();
            let payload = common::prompt_payload(host, &project, "!quick !agents riassumi i log");
            let log = home.path().join(".mcp-servers/analytics/sophia-hook.jsonl");
            // The run itself, with no fault and the same budget, as the reference.
            let sandbox = Sandbox::new(home.path())
                .cwd(&project)
                .unset("SOPHIA_TIME_BUDGET_MS");
            let flag = format!("--fault={fault}");
            // A budget the first check never passes (a stall is in the loading, after it); the
            // watchdog fires at this budget plus its margin.
            let run = run_with_limit(
                &sandbox,
                &["--host", host.as_str(), "--time-budget-ms=1500", &flag],
                &payload,
                Duration::from_secs(60),
            );
            let what = format!("{host:?} {fault}");
            assert_eq!(run.code, 0, "{what}: {}", run.stderr);
            assert!(run.stderr.is_empty(), "{what}: {}", run.stderr);
            let lines: Vec<&str> = run.stdout.lines().collect();
            assert_eq!(lines.len(), 1, "{what}: one answer: {:?}", run.stdout);
            let json: Value = serde_json::from_str(lines[0])
                .unwrap_or_else(|e| panic!("{what}: not JSON ({e}): {}", run.stdout));
            let text = json.to_string();
            assert!(
                text.contains("contextMode=light") && text.contains("subagentMode=required"),
                "{what}: the routing line is lost: {text}"
            );
            assert!(
                !text.contains("Sophia agent routing"),
                "{what}: an agent line from a run that never got that far: {text}"
            );
            let logged: Vec<Value> = std::fs::read_to_string(&log)
                .unwrap_or_else(|e| panic!("{what}: no analytics line: {e}"))
                .lines()
                .map(|l| serde_json::from_str(l).unwrap())
                .collect();
            assert_eq!(logged.len(), 1, "{what}: {logged:?}");
            assert_eq!(logged[0]["degraded"], reason, "{what}: {:?}", logged[0]);
            cases += 1;
        }
    }
    assert_eq!(cases, 2 * Host::ALL.len());
}

/// A panic before the payload is parsed has no routing to answer: the host's no-op or nothing,
/// as before (`binary::a_panic_passes_through_silently`); a run with no fault answers in full,
/// once, with the watchdog armed beside it.
#[test]
fn without_a_fault_the_run_answers_once_in_full() {
    let home = tempfile::tempdir().unwrap();
    let project = home.path().join("project");
    std::fs::create_dir_all(project.join(".git")).unwrap();
    let payload = common::prompt_payload(Host::Claude, &project, "!agents riassumi i log");
    let run = run_with_limit(
        &Sandbox::new(home.path()).cwd(&project),
        &["--host", "claude"],
        &payload,
        Duration::from_secs(60),
    );
    assert_eq!(run.code, 0);
    assert_eq!(run.stdout.lines().count(), 1, "{}", run.stdout);
    assert!(
        run.stdout.contains("Sophia agent routing"),
        "{}",
        run.stdout
    );
}

/// A degraded run routes with the hotword prefix the user or the project chose, never the
/// default one only (blind pass of issue 48, cases 51–53): every host × the user's `;` in
/// `config.yaml` and a project's `%` in `.sophia-hook.yaml` × a budget spent before loading
/// (`--time-budget-ms=0`) and a run that stalls once the payload is parsed.
#[test]
fn a_degraded_run_keeps_the_chosen_hotword_prefix() {
    let mut cases = 0;
    for host in Host::ALL {
        for (prefix, user) in [(";", true), ("%", false)] {
            for fault in [None, Some("--fault=stall")] {
                let home = tempfile::tempdir().unwrap();
                let project = home.path().join("project");
                std::fs::create_dir_all(project.join(".git")).unwrap();
                let config = if user {
                    home.path().join(".config/sophia-hook/config.yaml")
                } else {
                    project.join(".sophia-hook.yaml")
                };
                std::fs::create_dir_all(config.parent().unwrap()).unwrap();
                std::fs::write(&config, format!("hotword_prefix: \"{prefix}\"\n")).unwrap();
                let payload = common::prompt_payload(
                    host,
                    &project,
                    &format!("{prefix}quick riassumi i log"),
                );
                // Spent before loading (0), or a loading that never ends past a budget the first
                // check never passes (the watchdog answers at 1.5 s plus its margin).
                let budget = if fault.is_some() {
                    "--time-budget-ms=1500"
                } else {
                    "--time-budget-ms=0"
                };
                let mut args = vec!["--host", host.as_str(), budget];
                args.extend(fault);
                let run = run_with_limit(
                    &Sandbox::new(home.path())
                        .cwd(&project)
                        .unset("SOPHIA_TIME_BUDGET_MS"),
                    &args,
                    &payload,
                    Duration::from_secs(60),
                );
                assert_eq!(run.code, 0, "{host:?} {prefix} {fault:?}");
                assert!(
                    run.stdout.contains("contextMode=light"),
                    "{host:?} {prefix} {fault:?}: {}",
                    run.stdout
                );
                cases += 1;
            }
        }
    }
    assert_eq!(cases, 4 * Host::ALL.len());
}
