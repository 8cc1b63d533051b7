//! Every fixture's output against its host's contract (docs/host-protocols.md): Claude Code's
//! `hookSpecificOutput` with the firing event and a context under 10,000 characters; Gemini CLI's
//! JSON object on every run (`{}` for a no-op, never plain text, never empty); Antigravity's
//! `injectSteps`. Codex has its own strict test in `codex_contract.rs`, Antigravity in
//! `antigravity_contract.rs`.
// Tests and benches set up and read their files directly; the door (clippy.toml) is for the crate.
#![allow(clippy::disallowed_methods)]

use crate::common;

use serde_json::Value;

use common::{fixtures, materialise_project, run_in_process};

fn outputs(host: &str) -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(fixtures().join("prompts").join(host)).unwrap() {
        let path = entry.unwrap().path();
        let tmp = tempfile::tempdir().unwrap();
        let payload = materialise_project(&std::fs::read(&path).unwrap(), tmp.path());
        let value: Value = serde_json::from_slice(&payload).unwrap();
        let event = value["hook_event_name"]
            .as_str()
            .or(value["hookEventName"].as_str())
            .unwrap_or("")
            .to_owned();
        let run = run_in_process(&["--host", host], &payload);
        assert_eq!(run.code, 0);
        out.push((path.to_string_lossy().to_string(), event, run.stdout));
    }
    assert!(!out.is_empty(), "no fixtures for {host}");
    out
}

/// The only keys a context-bearing output may have.
fn assert_context_shape(what: &str, stdout: &str, event: &str) -> Option<String> {
    let v: Value = serde_json::from_str(stdout).unwrap_or_else(|e| panic!("{what}: {e}: {stdout}"));
    let obj = v
        .as_object()
        .unwrap_or_else(|| panic!("{what}: not an object"));
    if obj.is_empty() {
        return None;
    }
    let keys: Vec<&String> = obj.keys().collect();
    assert_eq!(keys, ["hookSpecificOutput"], "{what}");
    let specific = obj["hookSpecificOutput"].as_object().unwrap();
    let mut inner: Vec<&String> = specific.keys().collect();
    inner.sort();
    assert_eq!(inner, ["additionalContext", "hookEventName"], "{what}");
    assert_eq!(
        specific["hookEventName"], event,
        "{what}: hookEventName must echo the firing event"
    );
    let context = specific["additionalContext"].as_str().unwrap().to_owned();
    assert!(!context.trim().is_empty(), "{what}");
    Some(context)
}

/// Every Claude fixture carries something to say (a session start, a hotword, a request), so
/// every one must inject context: an empty stdout fails.
#[test]
fn claude_outputs() {
    let all = outputs("claude");
    assert!(all.len() >= 6, "{} fixtures", all.len());
    for (what, event, stdout) in &all {
        assert!(!stdout.is_empty(), "{what}: nothing printed");
        let context = assert_context_shape(what, stdout, event).expect("claude never prints {}");
        assert!(context.chars().count() <= 10_000, "{what}");
    }
}

#[test]
fn gemini_always_prints_a_json_object() {
    let mut noops = 0;
    for (what, event, stdout) in outputs("gemini") {
        assert!(
            !stdout.is_empty(),
            "{what}: an empty stdout makes Gemini read stderr"
        );
        assert!(
            stdout.starts_with('{'),
            "{what}: plain text would be shown to the user"
        );
        if assert_context_shape(&what, &stdout, &event).is_none() {
            noops += 1;
        }
    }
    assert!(noops >= 1, "the no-op fixture prints {{}}");
}

#[test]
fn gemini_and_antigravity_fail_open_with_an_empty_object() {
    for host in ["gemini", "antigravity"] {
        for bad in [
            &b""[..],
            b"not json",
            b"[1]",
            br#"{"hook_event_name":"PreToolUse"}"#,
        ] {
            let run = run_in_process(&["--host", host], bad);
            assert_eq!((run.code, run.stdout.as_str()), (0, "{}\n"), "{host}");
        }
    }
    // Codex and Claude print nothing instead.
    let run = run_in_process(&["--host", "claude"], b"not json");
    assert_eq!(run.stdout, "");
}

#[test]
fn antigravity_outputs_inject_steps() {
    // The full contract (schema mirror, once per turn) is in antigravity_contract.rs; here: every
    // fixture prints one object that is `{}` or `{"injectSteps":[one step]}`, never Codex's shape.
    for (what, event, stdout) in outputs("antigravity") {
        let v: Value = serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{what}: {e}"));
        let obj = v.as_object().unwrap();
        if obj.is_empty() {
            continue;
        }
        assert_eq!(obj.keys().collect::<Vec<_>>(), ["injectSteps"], "{what}");
        let steps = obj["injectSteps"].as_array().unwrap();
        assert_eq!(steps.len(), 1, "{what}");
        let step = steps[0].as_object().unwrap();
        let kind = if event == "SessionStart" {
            "systemMessage"
        } else {
            "ephemeralMessage"
        };
        assert_eq!(step.keys().collect::<Vec<_>>(), [kind], "{what}");
    }
}
