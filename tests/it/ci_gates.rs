//! Every gate of `.ci/run` can fail. The eval commands are read from `.ci/run` itself and run
//! here (so `cargo test` fails too when a labelled set drops below its floor), then each floor is
//! set just above the figure it bounds and must fail the run. Each smoke check's expected string
//! must be in its fixture's output and missing from another smoke fixture's output, so a check
//! that would pass on any output is caught.
// Tests and benches set up and read their files directly; the door (clippy.toml) is for the crate.
#![allow(clippy::disallowed_methods)]

use crate::common;

use std::path::{Path, PathBuf};

use serde_json::Value;

use common::{fixtures, run_in_process};

fn ci_script() -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(".ci/run")).unwrap()
}

/// The script's lines with `\` continuations joined.
fn joined_lines(script: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    for line in script.lines() {
        let line = line.trim();
        if let Some(head) = line.strip_suffix('\\') {
            current.push_str(head);
            current.push(' ');
        } else {
            current.push_str(line);
            out.push(std::mem::take(&mut current));
        }
    }
    out
}

/// Shell words of a line: whitespace-separated, single quotes kept together and removed.
fn words(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut quoted = false;
    let mut any = false;
    for c in line.chars() {
        match c {
            '\'' => {
                quoted = !quoted;
                any = true;
            }
            c if c.is_whitespace() && !quoted => {
                if any {
                    out.push(std::mem::take(&mut word));
                    any = false;
                }
            }
            c => {
                word.push(c);
                any = true;
            }
        }
    }
    if any {
        out.push(word);
    }
    out
}

struct EvalGate {
    /// `eval` and its arguments, paths relative to the repository.
    args: Vec<String>,
    floors: Vec<(String, String)>,
}

fn eval_gates() -> Vec<EvalGate> {
    let gates: Vec<EvalGate> = joined_lines(&ci_script())
        .iter()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| {
            let ws = words(l);
            let at = ws.iter().position(|w| w == "eval")?;
            let mut args = vec!["eval".to_owned()];
            let mut floors = Vec::new();
            let mut rest = ws[at + 1..].iter();
            while let Some(w) = rest.next() {
                if w.starts_with("--min-") {
                    floors.push((w.clone(), rest.next().unwrap().clone()));
                } else if w == "--root" {
                    args.push(w.clone());
                    args.push(rest.next().unwrap().clone());
                } else {
                    args.push(w.clone());
                }
            }
            Some(EvalGate { args, floors })
        })
        .collect();
    assert!(
        gates.len() >= 3,
        "the eval commands of .ci/run were not found"
    );
    gates
}

fn repo_path(p: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(p)
}

fn run_eval(gate: &EvalGate, extra: &[&str]) -> common::Run {
    let mut args: Vec<String> = gate
        .args
        .iter()
        .enumerate()
        .map(|(i, a)| {
            let is_path = i == 1
                || gate
                    .args
                    .get(i.wrapping_sub(1))
                    .is_some_and(|p| p == "--root");
            if is_path {
                repo_path(a).to_string_lossy().into_owned()
            } else {
                a.clone()
            }
        })
        .collect();
    args.extend(extra.iter().map(|s| s.to_string()));
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    run_in_process(&refs, b"")
}

/// The JSON report's value for a floor flag.
fn figure(report: &Value, flag: &str) -> f64 {
    let path = match flag {
        "--min-context-accuracy" => "/routing/contextMode/value",
        "--min-subagent-accuracy" => "/routing/subagentMode/value",
        "--min-hotword-accuracy" => "/routing/detectedHotwords/value",
        "--min-skill-precision-at-1" => "/skills/precisionAt1/value",
        "--min-skill-precision" => "/skills/precision/value",
        "--min-skill-recall" => "/skills/recall/value",
        "--min-no-skill-precision" => "/skills/noSkillPrecision/value",
        "--min-no-skill-recall" => "/skills/noSkillRecall/value",
        "--min-named-precision" => "/skills/namedPrecision/value",
        "--min-recall" => "/skills/namedRecall/value",
        "--min-ranking-top-1" => "/skills/rankingTop1/value",
        "--min-explicit-mention" => "/skills/explicitMention/value",
        "--min-agent-precision-at-1" => "/agents/precisionAt1/value",
        "--min-agent-precision" => "/agents/precision/value",
        "--min-agent-recall" => "/agents/recall/value",
        "--min-lock-accuracy" => "/agents/lockAccuracy/value",
        "--min-agent-skill-pairing" => "/agents/skillPairing/value",
        "--min-carry-forward-accuracy" => "/agents/carryForward/value",
        other => panic!("unknown floor {other}"),
    };
    report
        .pointer(path)
        .and_then(Value::as_f64)
        .unwrap_or_else(|| panic!("{flag}: no figure in the report"))
}

#[test]
fn the_ci_eval_commands_pass_with_their_floors() {
    for gate in eval_gates() {
        let floors: Vec<&str> = gate
            .floors
            .iter()
            .flat_map(|(f, v)| [f.as_str(), v.as_str()])
            .collect();
        let run = run_eval(&gate, &floors);
        assert_eq!(
            run.code, 0,
            "{:?} fails in .ci/run:\n{}{}",
            gate.args, run.stdout, run.stderr
        );
        assert!(!gate.floors.is_empty(), "{:?} has no floor", gate.args);
    }
}

#[test]
fn each_ci_floor_fails_just_above_its_figure() {
    for gate in eval_gates() {
        let run = run_eval(&gate, &["--json"]);
        let report: Value = serde_json::from_str(&run.stdout).unwrap();
        assert_eq!(report["invariantFailures"], serde_json::json!([]));
        for (flag, floor) in &gate.floors {
            let measured = figure(&report, flag);
            let floor: f64 = floor.parse().unwrap();
            assert!(floor <= measured, "{flag} {floor} is above {measured}");
            let above = (measured + 0.0005).to_string();
            let run = run_eval(&gate, &[flag, &above]);
            assert_eq!(run.code, 1, "{:?} {flag} {above}", gate.args);
            assert!(
                run.stdout
                    .lines()
                    .any(|l| l.starts_with("FLOOR MISSED: ") && l.contains(flag)),
                "{}",
                run.stdout
            );
        }
    }
}

/// `scripts/smoke.sh`, the smoke checks `.ci/run` runs on the release binary and
/// `scripts/windows-ci.sh` (also run by `.ci/run`) on the Windows `.exe`.
fn smoke_script() -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    assert!(
        ci_script().contains("\nscripts/smoke.sh target/release/sophia-hook\n"),
        ".ci/run no longer runs scripts/smoke.sh on the release binary"
    );
    assert!(
        ci_script().contains("\nscripts/windows-ci.sh\n"),
        ".ci/run no longer runs scripts/windows-ci.sh"
    );
    let windows = std::fs::read_to_string(root.join("scripts/windows-ci.sh")).unwrap();
    assert!(
        windows.contains("scripts/smoke.sh wine "),
        "scripts/windows-ci.sh no longer runs the smoke checks on the .exe"
    );
    std::fs::read_to_string(root.join("scripts/smoke.sh")).unwrap()
}

/// (fixture, expected strings) of every `smoke` call in `scripts/smoke.sh`.
fn smoke_checks() -> Vec<(String, Vec<String>)> {
    let checks: Vec<(String, Vec<String>)> = joined_lines(&smoke_script())
        .iter()
        .filter(|l| l.starts_with("smoke ") && !l.starts_with("smoke()"))
        .map(|l| {
            let mut ws = words(l).into_iter().skip(1);
            let fixture = ws.next().unwrap();
            (fixture, ws.collect())
        })
        .collect();
    assert!(
        checks.len() >= 6,
        "the smoke checks of scripts/smoke.sh were not found"
    );
    checks
}

fn smoke_output(fixture: &str) -> String {
    let payload = std::fs::read(fixtures().join(format!("prompts/codex/{fixture}.json"))).unwrap();
    let run = run_in_process(&["--host", "codex"], &payload);
    assert_eq!(run.code, 0);
    run.stdout
}

#[test]
fn each_smoke_check_holds_and_can_fail() {
    let checks = smoke_checks();
    let outputs: Vec<String> = checks.iter().map(|(f, _)| smoke_output(f)).collect();
    for (i, (fixture, wants)) in checks.iter().enumerate() {
        assert!(!wants.is_empty(), "smoke {fixture} checks nothing");
        for want in wants {
            assert!(
                outputs[i].contains(want.as_str()),
                "smoke {fixture}: {want:?} not in {}",
                outputs[i]
            );
            let fails_elsewhere = outputs
                .iter()
                .enumerate()
                .any(|(j, out)| j != i && !out.contains(want.as_str()));
            assert!(
                fails_elsewhere,
                "smoke {fixture}: {want:?} is in every smoke output, so the check cannot fail"
            );
        }
    }
}

/// The silent check of `scripts/smoke.sh`: the fixture does carry a hotword (later in the prompt),
/// so a detector that matched anywhere would print, and the check would fail.
#[test]
fn the_silent_smoke_check_can_fail() {
    let script = smoke_script();
    assert!(script.contains("fixtures/prompts/codex/hotword-not-at-start.json"));
    let payload: Value = serde_json::from_slice(
        &std::fs::read(fixtures().join("prompts/codex/hotword-not-at-start.json")).unwrap(),
    )
    .unwrap();
    let prompt = payload["prompt"].as_str().unwrap();
    assert!(
        !prompt.starts_with('!') && (prompt.contains("!quick") || prompt.contains("!agents")),
        "{prompt}"
    );
    assert_eq!(smoke_output("hotword-not-at-start"), "");
    // The same words with the hotword moved to the start do print.
    let word = if prompt.contains("!quick") {
        "!quick"
    } else {
        "!agents"
    };
    let moved = format!("{word} {}", prompt.replacen(word, "", 1));
    let payload = serde_json::json!({"hook_event_name": "UserPromptSubmit", "prompt": moved});
    let run = run_in_process(&["--host", "codex"], payload.to_string().as_bytes());
    assert!(run.stdout.contains("contextMode="), "{}", run.stdout);
}

/// The README check of `.ci/run`: the README's first command, verbatim, must print light context;
/// the same payload without `!quick` does not, so the check can fail.
#[test]
fn the_readme_command_check_holds_and_can_fail() {
    let script = ci_script();
    let line = script
        .lines()
        .find(|l| l.starts_with("readme=$(printf"))
        .expect("the README check of .ci/run");
    // Verbatim, so without --quiet: the first build takes minutes and must show progress.
    assert!(
        line.contains("| SOPHIA_ANALYTICS=off cargo run --release --)"),
        "{line}"
    );
    let payload = line
        .split('\'')
        .nth(3)
        .expect("the payload between single quotes");
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    assert!(
        readme.contains(&format!("printf '%s' '{payload}' | cargo run --release --")),
        "the README no longer shows {payload}"
    );
    let check = script
        .lines()
        .find(|l| l.contains("\"$readme\" == *'"))
        .expect("the README output check of .ci/run");
    let want = check
        .split("*'")
        .nth(1)
        .and_then(|r| r.split("'*").next())
        .expect("the expected string");
    let run = run_in_process(&[], payload.as_bytes());
    assert!(run.stdout.contains(want), "{}", run.stdout);
    let plain = payload.replace("!quick ", "");
    let run = run_in_process(&[], plain.as_bytes());
    assert!(!run.stdout.contains(want), "{}", run.stdout);
}

/// The patterns check of `.ci/run` (scripts/patterns-check.sh): the regex crate ships without its
/// Unicode tables and this test build has them (src/pattern.rs), so `.ci/run` runs every pattern
/// in the release binary. It passes on the hook, and fails on a binary that accepts a user path in
/// a routing field and on one that panics (a pattern that does not compile). Unix only: the check
/// is a bash script of the Linux job (under Wine there is no bash to start).
#[cfg(unix)]
#[test]
fn the_patterns_check_holds_and_can_fail() {
    assert!(
        ci_script().contains("\nscripts/patterns-check.sh target/release/sophia-hook\n"),
        ".ci/run no longer runs scripts/patterns-check.sh on the release binary"
    );
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let check = |command: &[&str]| {
        std::process::Command::new("bash")
            .arg(root.join("scripts/patterns-check.sh"))
            .args(command)
            .output()
            .unwrap()
    };
    let hook = check(&[env!("CARGO_BIN_EXE_sophia-hook")]);
    assert!(
        hook.status.success(),
        "{}",
        String::from_utf8_lossy(&hook.stderr)
    );
    // One stand-in per way the check fails, each with the message it must give.
    for (stand_in, says) in [
        (&["true"][..], "a user path in a routing field was accepted"),
        (
            &[
                "sh",
                "-c",
                "echo 'thread main panicked' >&2; exit 101",
                "sh",
            ][..],
            "the canonical source did not build",
        ),
        (
            &[
                "sh",
                "-c",
                "case \"$*\" in *bad.yaml*) echo 'refusing: no' >&2; exit 2;; esac",
                "sh",
            ][..],
            "the user path was not refused by its pattern",
        ),
    ] {
        let out = check(stand_in);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{stand_in:?} passed the check");
        assert!(
            stderr.starts_with(&format!("patterns: {says}")),
            "{stand_in:?}: {stderr}"
        );
    }
}

/// The distribution step of `.ci/run`: every artifact `scripts/dist.sh` builds is installed and
/// run by `scripts/dist-check.sh`, and `scripts/dist-check-fails.sh` (archives, plugins) and
/// `packaging/check-installs-fails.sh` (npm packages, wheels) plant one fault per check and
/// require the check to fail naming it. The fault table stays in step with the checks:
/// each message a planted fault must produce is one `dist-check.sh` prints.
#[test]
fn the_dist_step_runs_and_each_dist_check_can_fail() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let script = ci_script();
    for line in [
        "\nbash scripts/dist.sh\n",
        "\nscripts/dist-check.sh\n",
        "\nscripts/dist-check-fails.sh\n",
        "\npackaging/check-installs-fails.sh target/dist\n",
    ] {
        assert!(script.contains(line), ".ci/run no longer runs {line:?}");
    }
    // The checks: dist-check.sh and the Mach-O signature check it calls.
    let check = ["scripts/dist-check.sh", "scripts/dist/macho-signed.py"]
        .map(|p| std::fs::read_to_string(root.join(p)).unwrap())
        .join("\n");
    let fails = std::fs::read_to_string(root.join("scripts/dist-check-fails.sh")).unwrap();
    let expected: Vec<&str> = fails
        .lines()
        .filter_map(|l| l.trim().strip_prefix("expect_fail \""))
        .filter_map(|l| l.split('"').next())
        .collect();
    assert!(
        expected.len() >= 8,
        "the planted faults of scripts/dist-check-fails.sh were not found: {expected:?}"
    );
    // Some fixed words of each expected message (between `$variables` and quotes) must be in
    // the checks, outside comments.
    let fail_lines: Vec<&str> = check
        .lines()
        .filter(|l| !l.trim_start().starts_with('#'))
        .collect();
    for want in expected {
        let fixed: Vec<&str> = want
            .split(['$', '\''])
            .map(str::trim)
            .filter(|w| w.len() >= 6)
            .collect();
        assert!(
            fixed
                .iter()
                .any(|f| fail_lines.iter().any(|l| l.contains(f))),
            "dist-check-fails.sh expects {want:?}, but no check says any of {fixed:?}"
        );
    }
}
