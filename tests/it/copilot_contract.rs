//! GitHub Copilot CLI's hook contract (`fixtures/contracts/copilot/`, from `@github/copilot`
//! 1.0.102 run against the mock model and its bundle): every payload the real CLI sent gets an
//! output the output schema admits, with context where there must be some (a session start,
//! `!quick`); `install` writes a hook file the hook-file schema admits, in the camelCase form,
//! whose `bash` line, run through `sh` on the CLI's own payloads, prints that output.
// Tests and benches set up and read their files directly; the door (clippy.toml) is for the crate.
#![allow(clippy::disallowed_methods)]

use crate::common;

use serde_json::Value;

use common::{fixtures, run_in_process};
use sophia_hook::hosts::Host;

fn contract() -> std::path::PathBuf {
    fixtures().join("contracts/copilot")
}

fn schema(name: &str) -> jsonschema::Validator {
    let text = std::fs::read_to_string(contract().join(name)).unwrap();
    jsonschema::validator_for(&serde_json::from_str(&text).unwrap()).unwrap()
}

fn payload(name: &str) -> String {
    std::fs::read_to_string(contract().join("payloads").join(name)).unwrap()
}

/// Runs the hook on a contract payload and returns stdout parsed (`None`: nothing printed).
fn hook(event: &str, name: &str) -> Option<Value> {
    let run = run_in_process(
        &["--host", "copilot", "--event", event],
        payload(name).as_bytes(),
    );
    assert_eq!(run.code, 0, "{name}: {}", run.stderr);
    (!run.stdout.is_empty()).then(|| {
        assert!(run.stdout.ends_with('\n') && run.stdout.lines().count() == 1);
        serde_json::from_str(&run.stdout).unwrap()
    })
}

#[test]
fn every_output_on_the_clis_payloads_is_one_the_cli_uses() {
    let output = schema("output.schema.json");
    let payloads = schema("payloads.schema.json");
    for (event, name, context) in [
        ("sessionStart", "session-start.json", true),
        // Unlike Codex, a resume does not replay the sessionStart context: send it again.
        ("sessionStart", "session-start.resume.json", true),
        ("SessionStart", "session-start.pascal.json", true),
        ("userPromptSubmitted", "user-prompt-submitted.json", false),
        (
            "userPromptSubmitted",
            "user-prompt-submitted.subagent.json",
            false,
        ),
        ("UserPromptSubmit", "user-prompt-submit.pascal.json", false),
    ] {
        let sent: Value = serde_json::from_str(&payload(name)).unwrap();
        assert!(
            payloads.is_valid(&sent),
            "{name} is not a payload the CLI sends"
        );
        let out = hook(event, name);
        if let Some(out) = &out {
            assert!(output.is_valid(out), "{name}: {out}");
        }
        let text = out
            .as_ref()
            .and_then(|o| o["additionalContext"].as_str())
            .unwrap_or("");
        assert_eq!(!text.is_empty(), context, "{name}: {out:?}");
        if context {
            assert!(
                text.starts_with("Sophia routing bootstrap"),
                "{name}: {text}"
            );
            // The TUI's `!` cannot be escaped with a space: only the second prefix is named.
            assert!(
                text.contains("`+quick`") && !text.contains("space first"),
                "{text}"
            );
        }
    }
}

#[test]
fn a_quick_prompt_gets_light_context_in_the_root_shape() {
    let mut sent: Value = serde_json::from_str(&payload("user-prompt-submitted.json")).unwrap();
    sent["prompt"] = Value::from("!quick spiegami questa SQL");
    let run = run_in_process(
        &["--host", "copilot", "--event", "userPromptSubmitted"],
        sent.to_string().as_bytes(),
    );
    let out: Value = serde_json::from_str(&run.stdout).unwrap();
    assert!(schema("output.schema.json").is_valid(&out), "{out}");
    let text = out["additionalContext"].as_str().unwrap();
    assert!(text.contains("contextMode=light"), "{text}");
    // `hookSpecificOutput` is silently dropped by the CLI: never that shape.
    assert!(out.get("hookSpecificOutput").is_none());
}

#[test]
fn install_writes_the_documented_hook_file() {
    let doc =
        sophia_hook::install::install(Value::Null, Host::Copilot, "/opt/bin/sophia-hook").unwrap();
    assert!(schema("hooks-file.schema.json").is_valid(&doc), "{doc:#}");
    assert_eq!(doc["version"], 1);
    let events: Vec<&String> = doc["hooks"].as_object().unwrap().keys().collect();
    assert_eq!(events, ["sessionStart", "userPromptSubmitted"]);
    for (event, timeout) in [("sessionStart", 10), ("userPromptSubmitted", 5)] {
        let h = &doc["hooks"][event][0];
        assert_eq!(h["type"], "command");
        assert_eq!(h["timeoutSec"], timeout);
        assert_eq!(
            h["bash"],
            format!("/opt/bin/sophia-hook --host copilot --event {event}")
        );
        assert!(
            h["powershell"]
                .as_str()
                .unwrap()
                .ends_with(&format!("--event {event}"))
        );
        assert!(h.get("matcher").is_none() && h.get("command").is_none());
    }
}

#[cfg(unix)]
#[test]
fn the_installed_bash_line_prints_what_the_cli_uses() {
    let home = tempfile::tempdir().unwrap();
    let binary = env!("CARGO_BIN_EXE_sophia-hook");
    let doc = sophia_hook::install::install(Value::Null, Host::Copilot, binary).unwrap();
    let line = doc["hooks"]["sessionStart"][0]["bash"].as_str().unwrap();
    let mut child = std::process::Command::new("/bin/sh")
        .arg("-c")
        .arg(line)
        .env_clear()
        .env("HOME", home.path())
        .env("SOPHIA_ANALYTICS", "off")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(payload("session-start.json").as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let printed: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(schema("output.schema.json").is_valid(&printed), "{printed}");
    assert!(
        printed["additionalContext"]
            .as_str()
            .unwrap()
            .starts_with("Sophia routing bootstrap")
    );
}
