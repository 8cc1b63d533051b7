//! Locks what sophia-hook may print on Codex: a `deny_unknown_fields` mirror of Codex's output
//! wire types (docs/host-protocols.md), plus a check of every key against the JSON Schemas Codex
//! publishes (copied under `fixtures/contracts/codex/`, checked with the `jsonschema` crate). Every prompt fixture's output must pass.
// Tests and benches set up and read their files directly; the door (clippy.toml) is for the crate.
#![allow(clippy::disallowed_methods)]

use crate::common;

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::Value;

use common::{fixtures, materialise_project, run_in_process};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[allow(dead_code)]
struct SessionStartOutputWire {
    #[serde(default = "yes")]
    r#continue: bool,
    stop_reason: Option<String>,
    system_message: Option<String>,
    #[serde(default)]
    suppress_output: bool,
    hook_specific_output: Option<SessionStartSpecific>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[allow(dead_code)]
struct SessionStartSpecific {
    hook_event_name: SessionStartName,
    additional_context: Option<String>,
    #[serde(default)]
    env: BTreeMap<String, String>,
}

#[derive(Debug, Deserialize)]
enum SessionStartName {
    SessionStart,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[allow(dead_code)]
struct UserPromptSubmitOutputWire {
    #[serde(default = "yes")]
    r#continue: bool,
    stop_reason: Option<String>,
    system_message: Option<String>,
    #[serde(default)]
    suppress_output: bool,
    decision: Option<BlockDecision>,
    reason: Option<String>,
    hook_specific_output: Option<UserPromptSubmitSpecific>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "lowercase")]
enum BlockDecision {
    Block,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[allow(dead_code)]
struct UserPromptSubmitSpecific {
    hook_event_name: UserPromptSubmitName,
    additional_context: Option<String>,
}

#[derive(Debug, Deserialize)]
enum UserPromptSubmitName {
    UserPromptSubmit,
}

fn yes() -> bool {
    true
}

/// Parses `stdout` the way Codex does (trim, empty = no-op, else one JSON object of the event's
/// wire type) and returns the additional context, if any.
fn codex_accepts(event: &str, stdout: &str) -> Result<Option<String>, String> {
    let trimmed = stdout.trim();
    if trimmed.is_empty() {
        return Ok(None);
    }
    let value: Value = serde_json::from_str(trimmed).map_err(|e| e.to_string())?;
    match event {
        "SessionStart" => serde_json::from_value::<SessionStartOutputWire>(value)
            .map(|w| w.hook_specific_output.and_then(|h| h.additional_context))
            .map_err(|e| e.to_string()),
        "UserPromptSubmit" => serde_json::from_value::<UserPromptSubmitOutputWire>(value)
            .map(|w| w.hook_specific_output.and_then(|h| h.additional_context))
            .map_err(|e| e.to_string()),
        other => Err(format!("unexpected event {other}")),
    }
}

/// Checks `output` against one of Codex's published schemas (draft-07, `additionalProperties:
/// false` at the top level and inside `hookSpecificOutput`) with a JSON Schema validator.
fn schema_accepts(schema: &Value, output: &Value) -> Result<(), String> {
    let validator = jsonschema::validator_for(schema).map_err(|e| format!("bad schema: {e}"))?;
    let errors: Vec<String> = validator
        .iter_errors(output)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect();
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors.join("; "))
    }
}

fn schema(event: &str) -> Value {
    let file = match event {
        "SessionStart" => "session-start.command.output.schema.json",
        _ => "user-prompt-submit.command.output.schema.json",
    };
    let path = fixtures().join("contracts/codex").join(file);
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

#[test]
fn the_mirror_rejects_what_codex_rejects() {
    let rejected = [
        (
            "UserPromptSubmit",
            r#"{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","sessionTitle":"x"}}"#,
        ),
        ("UserPromptSubmit", r#"{"additionalContext":"x"}"#),
        (
            "UserPromptSubmit",
            r#"{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"x"}}"#,
        ),
        (
            "UserPromptSubmit",
            r#"{"hookSpecificOutput":{"additionalContext":"x"}}"#,
        ),
        ("UserPromptSubmit", r#"{"decision":"allow"}"#),
        ("SessionStart", r#"{"decision":"block","reason":"x"}"#),
        ("SessionStart", r#"[]"#),
    ];
    for (event, stdout) in rejected {
        assert!(codex_accepts(event, stdout).is_err(), "{event}: {stdout}");
    }
    let bad: Value = serde_json::from_str(rejected[0].1).unwrap();
    assert!(schema_accepts(&schema("UserPromptSubmit"), &bad).is_err());
    let wrong_event: Value = serde_json::from_str(rejected[2].1).unwrap();
    assert!(schema_accepts(&schema("UserPromptSubmit"), &wrong_event).is_err());
    assert_eq!(codex_accepts("UserPromptSubmit", "").unwrap(), None);
    assert_eq!(codex_accepts("SessionStart", "{}").unwrap(), None);
}

/// Codex fixtures with nothing to say — no leading hotword, no explicit request, no skill, or a
/// resumed session — which must print nothing. Every other Codex and Claude fixture must inject context.
const SILENT: &[&str] = &[
    "empty-prompt.json",
    "english-negated-subagent.json",
    "fenced-request.json",
    "hotword-not-at-start.json",
    "negated-subagent.json",
    "prompt-wrong-type.json",
    "question-about-subagents.json",
    "quickly-is-not-a-hotword.json",
    "quoted-request.json",
    // A resumed Codex session still holds the first session start's context (docs/hosts.md).
    "session-start-resume.json",
    "unsupported-bypass.json",
    "unsupported-direct.json",
    "unsupported-noagents.json",
    "unsupported-nohooks.json",
];

#[test]
fn every_fixture_output_is_accepted_by_codex() {
    let mut injected = 0;
    let mut silent = 0;
    for host in ["codex", "claude"] {
        for entry in std::fs::read_dir(fixtures().join("prompts").join(host)).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let tmp = tempfile::tempdir().unwrap();
            let payload = materialise_project(&std::fs::read(&path).unwrap(), tmp.path());
            let event = serde_json::from_slice::<Value>(&payload).unwrap()["hook_event_name"]
                .as_str()
                .unwrap_or("UserPromptSubmit")
                .to_owned();
            let run = run_in_process(&["--host", host], &payload);
            let context = codex_accepts(&event, &run.stdout)
                .unwrap_or_else(|e| panic!("{}: {e}\n{}", path.to_string_lossy(), run.stdout));
            if host == "codex" && SILENT.contains(&name.as_str()) {
                assert_eq!(run.stdout, "", "{}", path.to_string_lossy());
                silent += 1;
                continue;
            }
            assert!(
                !run.stdout.is_empty(),
                "{}: nothing printed",
                path.to_string_lossy()
            );
            let output: Value = serde_json::from_str(&run.stdout).unwrap();
            schema_accepts(&schema(&event), &output)
                .unwrap_or_else(|e| panic!("{}: {e}", path.to_string_lossy()));
            assert_eq!(
                output["hookSpecificOutput"]["hookEventName"],
                event.as_str()
            );
            let context = context.expect("a printed output carries context");
            assert!(
                !context.trim().is_empty(),
                "{}: empty context",
                path.to_string_lossy()
            );
            assert!(run.stdout.ends_with("}\n") && run.stdout.matches('\n').count() == 1);
            injected += 1;
        }
    }
    assert_eq!(silent, SILENT.len(), "a silent fixture is missing");
    assert!(injected >= 30, "only {injected} outputs checked");
}

/// The two examples of the issue's "done when", verbatim.
#[test]
fn done_when_examples() {
    let ups = run_in_process(
        &[],
        br#"{"hook_event_name":"UserPromptSubmit","prompt":"!quick spiegami questa SQL"}"#,
    );
    let context = codex_accepts("UserPromptSubmit", &ups.stdout)
        .unwrap()
        .unwrap();
    assert!(context.contains("contextMode=light"));
    assert!(context.contains("Core rules, safety, policy and tool guardrails remain active"));

    let start = run_in_process(
        &[],
        br#"{"hook_event_name":"SessionStart","source":"startup"}"#,
    );
    let context = codex_accepts("SessionStart", &start.stdout)
        .unwrap()
        .unwrap();
    assert!(context.contains("`!quick`") && context.contains("`!agents`"));
    assert!(context.contains("only as the first words of a prompt"));
}
