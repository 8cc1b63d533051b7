//! Antigravity's hook contract, as the engine itself documents it (the hooks guide and
//! `hooks.proto` inside `google-antigravity` 0.1.22, saved in `fixtures/contracts/antigravity/`):
//! every output on the documented payloads must deserialize into a `deny_unknown_fields` mirror
//! of `SessionStartHookResult` / `PreInvocationHookResult`, with the step types we chose
//! (a persistent `systemMessage` on SessionStart, an `ephemeralMessage` once per user turn), and
//! the mirror itself must still match the extracted schema. `install` must write the documented
//! `hooks.json` shape.

mod common;

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;
use serde_json::Value;
use sophia_hook::edge::settings::Settings;

use common::{fixtures, run_in_process_with};

/// `HookInjectedStep`: a protojson `oneof step`, so exactly one field is set.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Step {
    user_message: Option<String>,
    ephemeral_message: Option<String>,
    system_message: Option<SystemMessage>,
}

/// `HookSystemMessage` (media left out: we never send it).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct SystemMessage {
    system_message: String,
    #[serde(default)]
    metadata: BTreeMap<String, String>,
}

/// `SessionStartHookResult` and `PreInvocationHookResult` (one field each).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct InjectResult {
    #[serde(default)]
    inject_steps: Vec<Step>,
}

fn contract() -> std::path::PathBuf {
    fixtures().join("contracts/antigravity")
}

fn run(event: &str, payload: &str, cache: &Path) -> (String, InjectResult) {
    let text = std::fs::read_to_string(contract().join("payloads").join(payload)).unwrap();
    let dir = cache.to_string_lossy().into_owned();
    let settings = Settings::from_lookup(|k| match k {
        "SOPHIA_CACHE_DIR" => Some(dir.clone()),
        "SOPHIA_ANALYTICS" => Some("off".into()),
        _ => None,
    });
    let out = run_in_process_with(
        &["--host", "antigravity", "--event", event],
        text.as_bytes(),
        &settings,
    );
    assert_eq!(out.code, 0);
    assert!(out.stdout.ends_with('\n'), "{payload}: one line");
    let result: InjectResult = serde_json::from_str(&out.stdout)
        .unwrap_or_else(|e| panic!("{payload}: {e}: {}", out.stdout));
    (out.stdout, result)
}

fn only_step<'a>(what: &str, result: &'a InjectResult) -> &'a Step {
    assert_eq!(result.inject_steps.len(), 1, "{what}");
    let step = &result.inject_steps[0];
    let set = [
        step.user_message.is_some(),
        step.ephemeral_message.is_some(),
        step.system_message.is_some(),
    ];
    assert_eq!(set.iter().filter(|s| **s).count(), 1, "{what}: a oneof");
    step
}

#[test]
fn session_start_injects_a_persistent_system_message() {
    let cache = tempfile::tempdir().unwrap();
    let (raw, result) = run("SessionStart", "session-start.json", cache.path());
    let step = only_step("SessionStart", &result);
    let system = step.system_message.as_ref().expect("a systemMessage step");
    assert!(system.metadata.is_empty());
    assert!(
        system
            .system_message
            .starts_with("Sophia routing bootstrap (background for this session, not a task).")
    );
    assert!(!raw.contains("hookSpecificOutput") && !raw.contains("additionalContext"));
}

#[test]
fn pre_invocation_injects_an_ephemeral_message_once_per_user_turn() {
    let cache = tempfile::tempdir().unwrap();
    let (_, quick) = run("PreInvocation", "pre-invocation-quick.json", cache.path());
    let text = only_step("quick", &quick)
        .ephemeral_message
        .clone()
        .expect("an ephemeralMessage step");
    assert!(
        text.contains("contextMode=light reason=hotword:!quick"),
        "{text}"
    );
    // The next model call of the same turn (same conversation, initialNumSteps and text).
    let (raw, again) = run("PreInvocation", "pre-invocation-quick.json", cache.path());
    assert_eq!(raw, "{}\n");
    assert!(again.inject_steps.is_empty());

    let (_, agents) = run("PreInvocation", "pre-invocation-agents.json", cache.path());
    let text = only_step("agents", &agents)
        .ephemeral_message
        .clone()
        .unwrap();
    assert!(
        text.contains("subagentMode=required reason=hotword:!agents"),
        "{text}"
    );

    let (_, plain) = run("PreInvocation", "pre-invocation-plain.json", cache.path());
    for step in &plain.inject_steps {
        let text = step.ephemeral_message.as_deref().expect("ephemeral only");
        assert!(!text.contains("subagentMode=requested"), "{text}");
    }
}

#[test]
fn a_subagent_turn_is_not_told_to_delegate() {
    let cache = tempfile::tempdir().unwrap();
    let (_, result) = run(
        "PreInvocation",
        "pre-invocation-subagent.json",
        cache.path(),
    );
    let text = only_step("subagent", &result)
        .ephemeral_message
        .clone()
        .unwrap();
    assert!(text.contains("subagentMode=off"), "{text}");
    assert!(text.contains("comes from a subagent"), "{text}");
}

#[test]
fn the_mirror_matches_the_extracted_schema() {
    let schema = std::fs::read_to_string(contract().join("hooks.proto.txt")).unwrap();
    for line in [
        "string user_message = 2; // json: userMessage oneof=step",
        "string ephemeral_message = 3; // json: ephemeralMessage oneof=step",
        ".exa.hooks_pb.HookSystemMessage system_message = 4; // json: systemMessage oneof=step",
        "string system_message = 1; // json: systemMessage",
        "repeated .exa.hooks_pb.HookInjectedStep inject_steps = 1; // json: injectSteps",
        "string last_user_input = 8; // json: lastUserInput",
        "string parent_conversation_id = 10; // json: parentConversationId",
        "int32 invocation_num = 1; // json: invocationNum",
        "int32 initial_num_steps = 2; // json: initialNumSteps",
    ] {
        assert!(schema.contains(line), "hooks.proto.txt lost `{line}`");
    }
    for message in ["SessionStartHookResult", "PreInvocationHookResult"] {
        let start = schema.find(&format!("message {message} {{")).unwrap();
        let body = &schema[start..start + schema[start..].find('}').unwrap()];
        assert_eq!(
            body.matches(" = ").count(),
            1,
            "{message} has one field: {body}"
        );
    }
    let guide = std::fs::read_to_string(contract().join("hooks-guide.md")).unwrap();
    for fact in [
        "each top-level key is a **hook\nname**",
        "`{\"ephemeralMessage\": \"...\"}`",
        "All JSON keys in the hook payloads use **camelCase**",
        "The working directory is set to the directory containing `hooks.json`.",
    ] {
        assert!(guide.contains(fact), "the guide lost `{fact}`");
    }
}

#[test]
fn install_writes_the_documented_hooks_json() {
    let doc = sophia_hook::install::install(
        Value::Null,
        sophia_hook::payload::Host::Antigravity,
        "/usr/local/bin/sophia-hook",
    )
    .unwrap();
    let root = doc.as_object().unwrap();
    assert_eq!(
        root.keys().collect::<Vec<_>>(),
        ["sophia-hook"],
        "keyed by hook name"
    );
    let ours = root["sophia-hook"].as_object().unwrap();
    let mut events: Vec<&String> = ours.keys().collect();
    events.sort();
    assert_eq!(events, ["PreInvocation", "SessionStart"]);
    for (event, handlers) in ours {
        // Flat lists of handlers (no matcher groups) for both events.
        let handlers = handlers.as_array().unwrap();
        assert_eq!(handlers.len(), 1);
        let h = handlers[0].as_object().unwrap();
        let mut keys: Vec<&String> = h.keys().collect();
        keys.sort();
        assert_eq!(keys, ["command", "timeout", "type"], "{event}");
        assert_eq!(h["type"], "command");
        assert!(h["timeout"].as_u64().unwrap() <= 30, "seconds");
        assert_eq!(
            h["command"],
            format!("/usr/local/bin/sophia-hook --host antigravity --event {event}")
        );
    }
}
