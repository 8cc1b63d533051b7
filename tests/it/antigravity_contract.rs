//! Antigravity's hook contract, as the engine itself documents it (the hooks guide and
//! `hooks.proto` inside `google-antigravity` 0.1.22, saved in `fixtures/contracts/antigravity/`):
//! every output on the documented payloads must deserialize into a `deny_unknown_fields` mirror
//! of `SessionStartHookResult` / `PreInvocationHookResult`, with the step types we chose
//! (a persistent `systemMessage` on SessionStart, an `ephemeralMessage` once per user turn), and
//! the mirror itself must still match the extracted schema. `install` must write the documented
//! `hooks.json` shape. Both payload forms third-party probes of real `agy` report are covered: the
//! user's text as `lastUserInput`, or only in the conversation file (`transcriptPath`), read
//! through the bounded reader whatever that file is (malformed, huge, missing, not UTF-8, a
//! symlink, a FIFO…); and only the turn's first model call (`invocationNum` 0) injects.
// Tests and benches set up and read their files directly; the door (clippy.toml) is for the crate.
#![allow(clippy::disallowed_methods)]

use crate::common;

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
    run_bytes(event, payload, text.as_bytes(), cache)
}

/// Runs the hook on `bytes`; asserts exit 0 and one line that is a valid reply.
fn run_bytes(event: &str, payload: &str, bytes: &[u8], cache: &Path) -> (String, InjectResult) {
    let dir = cache.to_string_lossy().into_owned();
    let settings = Settings::from_lookup(|k| match k {
        "SOPHIA_CACHE_DIR" => Some(dir.clone()),
        "SOPHIA_ANALYTICS" => Some("off".into()),
        _ => None,
    });
    let out = run_in_process_with(
        &["--host", "antigravity", "--event", event],
        bytes,
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
        sophia_hook::hosts::Host::Antigravity,
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

/// The one step's `ephemeralMessage`, or `None` for `{}`.
fn ephemeral(what: &str, raw: &str, result: &InjectResult) -> Option<String> {
    if result.inject_steps.is_empty() {
        assert_eq!(raw, "{}\n", "{what}");
        return None;
    }
    let step = only_step(what, result);
    Some(
        step.ephemeral_message
            .clone()
            .unwrap_or_else(|| panic!("{what}: an ephemeralMessage step: {raw}")),
    )
}

/// PreInvocation for a fresh conversation (so the turn log never explains a `{}`).
fn pre_invocation(extra: Value, workspace: &Path, cache: &Path) -> Option<String> {
    let mut payload = serde_json::json!({
        "conversationId": format!("c-{}", extra),
        "workspacePaths": [workspace],
        "modelName": "auto",
        "initialNumSteps": 4,
    });
    for (k, v) in extra.as_object().unwrap() {
        payload[k] = v.clone();
    }
    let what = payload.to_string();
    let (raw, result) = run_bytes("PreInvocation", &what, what.as_bytes(), cache);
    ephemeral(&what, &raw, &result)
}

#[test]
fn only_the_first_model_call_of_a_turn_injects() {
    let workspace = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    // protojson omits a zero: absent, 0 and "0" are the first call; every later call is `{}`,
    // also for a text and conversation never seen (so it is `invocationNum`, not the turn log).
    let table: [(Value, bool); 8] = [
        (Value::Null, true),
        (Value::from(0), true),
        (Value::from("0"), true),
        (Value::from(1), false),
        (Value::from(2), false),
        (Value::from("3"), false),
        (Value::from(i32::MAX), false),
        // Not a count: read as absent, a first call.
        (Value::from("later"), true),
    ];
    for (n, first) in table {
        let mut extra = serde_json::json!({"lastUserInput": format!("!quick spiegami {n}")});
        if !n.is_null() {
            extra["invocationNum"] = n.clone();
        }
        let text = pre_invocation(extra, workspace.path(), cache.path());
        assert_eq!(text.is_some(), first, "invocationNum={n}: {text:?}");
        if let Some(text) = text {
            assert!(text.contains("reason=hotword:!quick"), "{text}");
        }
    }
}

/// Where a host keeps the conversation file: outside the workspace, under the home folder.
fn brain(home: &Path, conversation: &str) -> std::path::PathBuf {
    let dir = home.join(format!(
        ".gemini/antigravity-cli/brain/{conversation}/.system_generated/logs"
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join("transcript_full.jsonl")
}

fn user_step(text: &str) -> String {
    serde_json::json!({"type": "USER_INPUT", "source": "USER_EXPLICIT", "content": format!("<USER_REQUEST>\n{text}\n</USER_REQUEST>")}).to_string() + "\n"
}

fn model_step(text: &str) -> String {
    serde_json::json!({"type": "PLANNER_RESPONSE", "source": "MODEL", "content": text}).to_string()
        + "\n"
}

const LIGHT: &str = "contextMode=light reason=hotword:!quick";
const REQUIRED: &str = "subagentMode=required reason=hotword:!agents";

#[test]
fn the_users_text_comes_from_last_user_input_else_the_transcript() {
    let home = tempfile::tempdir().unwrap();
    let workspace = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let fixture = contract().join("transcripts/three-turns.jsonl");
    let three = brain(home.path(), "three");
    std::fs::copy(&fixture, &three).unwrap();
    let t = three.to_str().unwrap();
    // (payload fields, what the injected text must contain; None = `{}`)
    let table: Vec<(Value, Option<&str>)> = vec![
        // The engine's guide: the text in `lastUserInput`, which wins over the file.
        (
            serde_json::json!({"lastUserInput": "!quick dimmi", "transcriptPath": t}),
            Some(LIGHT),
        ),
        // No prompt field: the last user entry of the file (turn 3 of the fixture is `!agents`).
        (serde_json::json!({"transcriptPath": t}), Some(REQUIRED)),
        // protojson omits an empty string: "" is no text.
        (
            serde_json::json!({"lastUserInput": "", "transcriptPath": t}),
            Some(REQUIRED),
        ),
        // No text anywhere: nothing to route.
        (serde_json::json!({}), None),
        (serde_json::json!({"transcriptPath": ""}), None),
        // A later call of the turn never reads the file.
        (
            serde_json::json!({"transcriptPath": t, "invocationNum": 1}),
            None,
        ),
    ];
    for (extra, want) in table {
        let got = pre_invocation(extra.clone(), workspace.path(), cache.path());
        match want {
            Some(want) => assert!(
                got.as_deref().is_some_and(|g| g.contains(want)),
                "{extra}: {got:?}"
            ),
            None => assert_eq!(got, None, "{extra}"),
        }
    }
}

/// Every kind of conversation file a path can name: the hook exits 0 with a valid reply, and
/// injects only when a user entry is really there, at that path, as a regular file.
#[test]
fn any_transcript_gives_a_valid_reply_within_bounds() {
    let home = tempfile::tempdir().unwrap();
    let workspace = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let ws = workspace.path();
    // Holds the target of the symlinked-folder case (unix) until the cases have run.
    #[cfg(unix)]
    let outside_dir = tempfile::tempdir().unwrap();
    let good = format!("{}{}", user_step("!quick uno"), model_step("ok"));
    let mut cases: Vec<(&str, String, Option<&str>)> = Vec::new();
    let file = |name: &str, bytes: &[u8]| {
        let path = brain(home.path(), name);
        std::fs::write(&path, bytes).unwrap();
        path.to_string_lossy().into_owned()
    };
    cases.push(("plain", file("plain", good.as_bytes()), Some(LIGHT)));
    cases.push(("empty", file("empty", b""), None));
    cases.push((
        "malformed lines only",
        file(
            "malformed",
            b"{\n[1,2\n\"USER_INPUT\"\nnull\n{\"type\":\"USER_INPUT\"\n",
        ),
        None,
    ));
    cases.push((
        "malformed lines after the user entry",
        file(
            "malformed-after",
            format!("{good}{{\"type\":\"USER_INPUT\",\"content\":\n\x00\x01garbage\n").as_bytes(),
        ),
        Some(LIGHT),
    ));
    let mut latin1 = user_step("!agents caf\u{e9}").into_bytes();
    // A Latin-1 é in place of the UTF-8 one, and a line of raw bytes after it.
    let at = latin1.windows(2).position(|w| w == "é".as_bytes()).unwrap();
    latin1.splice(at..at + 2, [0xe9]);
    latin1.extend_from_slice(b"\xff\xfe\xfd\n");
    cases.push(("not UTF-8", file("latin1", &latin1), Some(REQUIRED)));
    // Huge: 20 MiB of model steps, the user entry last (found: only the tail is read) …
    let filler = model_step(&"x".repeat(4000)).repeat(5 * 1024);
    cases.push((
        "huge, user entry at the end",
        file(
            "huge-end",
            format!("{filler}{}", user_step("!quick fine")).as_bytes(),
        ),
        Some(LIGHT),
    ));
    // … or first, 20 MiB back: past the bounded tail, not found.
    cases.push((
        "huge, user entry far back",
        file(
            "huge-start",
            format!("{}{filler}", user_step("!quick inizio")).as_bytes(),
        ),
        None,
    ));
    // One line of 3 MiB with no newline: never a whole entry in the tail.
    let long_line = format!(
        "{{\"type\":\"USER_INPUT\",\"content\":\"!quick {}\"}}",
        "y".repeat(3 << 20)
    );
    cases.push((
        "one huge line",
        file("long-line", long_line.as_bytes()),
        None,
    ));
    let missing = brain(home.path(), "missing").with_file_name("nothing-here.jsonl");
    cases.push(("missing", missing.to_string_lossy().into_owned(), None));
    let folder = brain(home.path(), "folder");
    std::fs::create_dir_all(&folder).unwrap();
    cases.push(("a folder", folder.to_string_lossy().into_owned(), None));
    cases.push(("relative", "transcript_full.jsonl".to_owned(), None));
    let plain = brain(home.path(), "plain");
    let dotdot = plain
        .parent()
        .unwrap()
        .join("../logs/transcript_full.jsonl");
    cases.push(("with ..", dotdot.to_string_lossy().into_owned(), None));
    #[cfg(unix)]
    {
        use std::os::unix::fs::symlink;
        cases.push(("/dev/zero", "/dev/zero".to_owned(), None));
        let fifo = brain(home.path(), "fifo");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        cases.push(("a FIFO", fifo.to_string_lossy().into_owned(), None));
        // A symlink at the path, to a valid transcript: refused, not followed.
        let link = brain(home.path(), "link");
        symlink(&plain, &link).unwrap();
        cases.push(("a symlink", link.to_string_lossy().into_owned(), None));
        // Inside the workspace (the guide's example path), a repository's symlinked folder that
        // leads out of it to a valid transcript: refused.
        let outside = outside_dir.path();
        std::fs::create_dir_all(outside.join("antigravity")).unwrap();
        std::fs::write(outside.join("antigravity/transcript.jsonl"), &good).unwrap();
        symlink(outside, ws.join(".gemini")).unwrap();
        let out_of_project = ws.join(".gemini/antigravity/transcript.jsonl");
        cases.push((
            "a folder symlink out of the workspace",
            out_of_project.to_string_lossy().into_owned(),
            None,
        ));
    }
    // Inside the workspace as a regular file: read; inside its `.git/`: refused.
    std::fs::create_dir_all(ws.join(".agents/antigravity")).unwrap();
    std::fs::write(ws.join(".agents/antigravity/transcript.jsonl"), &good).unwrap();
    cases.push((
        "in the workspace",
        ws.join(".agents/antigravity/transcript.jsonl")
            .to_string_lossy()
            .into_owned(),
        Some(LIGHT),
    ));
    std::fs::create_dir_all(ws.join(".git")).unwrap();
    std::fs::write(ws.join(".git/transcript.jsonl"), &good).unwrap();
    cases.push((
        "in the workspace's .git/",
        ws.join(".git/transcript.jsonl")
            .to_string_lossy()
            .into_owned(),
        None,
    ));
    for (what, path, want) in cases {
        let got = pre_invocation(
            serde_json::json!({"transcriptPath": path}),
            ws,
            cache.path(),
        );
        match want {
            Some(want) => assert!(
                got.as_deref().is_some_and(|g| g.contains(want)),
                "{what}: {got:?}"
            ),
            None => assert_eq!(got, None, "{what}"),
        }
    }
}

mod generated {
    use super::*;
    use proptest::prelude::*;

    /// A transcript line: a user entry with a hotword or none, a model step, or garbage bytes.
    #[derive(Debug, Clone)]
    enum Line {
        User(Option<&'static str>),
        Model,
        Garbage(Vec<u8>),
    }

    fn line() -> impl Strategy<Value = Line> {
        prop_oneof![
            prop_oneof![Just(None), Just(Some("!quick")), Just(Some("!agents"))]
                .prop_map(Line::User),
            Just(Line::Model),
            proptest::collection::vec(any::<u8>(), 0..200)
                .prop_map(|b| Line::Garbage(b.into_iter().filter(|c| *c != b'\n').collect())),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]
        /// Whatever the lines, the reply is valid, and it routes by the last user entry the
        /// generator wrote (garbage never counts as one).
        #[test]
        fn the_reply_follows_the_last_user_entry(lines in proptest::collection::vec(line(), 0..24)) {
            let home = tempfile::tempdir().unwrap();
            let workspace = tempfile::tempdir().unwrap();
            let cache = tempfile::tempdir().unwrap();
            let mut bytes = Vec::new();
            for l in &lines {
                match l {
                    Line::User(word) => bytes.extend(user_step(&format!("{} spiegami il log", word.unwrap_or("per favore"))).into_bytes()),
                    Line::Model => bytes.extend(model_step("USER_INPUT !agents appears in model text").into_bytes()),
                    Line::Garbage(b) => { bytes.extend_from_slice(b); bytes.push(b'\n'); }
                }
            }
            let path = brain(home.path(), "gen");
            std::fs::write(&path, &bytes).unwrap();
            let last = lines.iter().rev().find_map(|l| match l {
                Line::User(word) => Some(*word),
                _ => None,
            });
            let got = pre_invocation(serde_json::json!({"transcriptPath": path}), workspace.path(), cache.path());
            match last.flatten() {
                Some("!quick") => prop_assert!(got.as_deref().is_some_and(|g| g.contains(LIGHT)), "{got:?}"),
                Some(_) => prop_assert!(got.as_deref().is_some_and(|g| g.contains(REQUIRED)), "{got:?}"),
                None => prop_assert!(got.as_deref().is_none_or(|g| !g.contains("reason=hotword")), "{got:?}"),
            }
        }
    }
}

#[test]
fn explain_routes_the_text_the_hook_would_take_from_the_transcript() {
    let home = tempfile::tempdir().unwrap();
    let workspace = tempfile::tempdir().unwrap();
    let transcript = brain(home.path(), "explain");
    std::fs::write(&transcript, user_step("!quick spiegami")).unwrap();
    let payload = serde_json::json!({"conversationId": "c-explain", "workspacePaths": [workspace.path()], "transcriptPath": transcript});
    let out = run_in_process_with(
        &[
            "explain",
            "--host",
            "antigravity",
            "--event",
            "PreInvocation",
        ],
        payload.to_string().as_bytes(),
        &Settings::from_lookup(|k| (k == "SOPHIA_ANALYTICS").then(|| "off".into())),
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let decision: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(decision["routing"]["contextMode"], "light", "{decision}");
    assert_eq!(decision["routing"]["strippedPrompt"], "spiegami");
}

/// `explain --effects` shows what the de-duplication does: on PreInvocation, the no-op a turn
/// already answered gets, which is what the hook prints on the turn's next model call; the
/// default `explain` (every snapshot) has no `effects`.
#[test]
fn explain_shows_what_a_turn_answered_before_prints() {
    let cache = tempfile::tempdir().unwrap();
    let dir = cache.path().to_string_lossy().into_owned();
    let settings = Settings::from_lookup(|k| match k {
        "SOPHIA_CACHE_DIR" => Some(dir.clone()),
        "SOPHIA_ANALYTICS" => Some("off".into()),
        _ => None,
    });
    let payload = std::fs::read(
        contract()
            .join("payloads")
            .join("pre-invocation-quick.json"),
    )
    .unwrap();
    let explain = |extra: &[&str]| -> serde_json::Value {
        let mut args = vec![
            "explain",
            "--host",
            "antigravity",
            "--event",
            "PreInvocation",
        ];
        args.extend(extra);
        let out = run_in_process_with(&args, &payload, &settings);
        assert_eq!(out.code, 0, "{}", out.stderr);
        serde_json::from_str(&out.stdout).unwrap()
    };
    let plain = explain(&[]);
    assert!(plain.get("effects").is_none(), "{plain}");
    let shown = explain(&["--effects"]);
    let once = &shown["effects"]["oncePerTurn"];
    assert_eq!(once["ifAnsweredBefore"], serde_json::json!({}), "{shown}");
    assert_eq!(shown["output"], plain["output"]);
    // The hook: the first call of the turn prints the output, the next what explain said.
    let (first, _) = run("PreInvocation", "pre-invocation-quick.json", cache.path());
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&first).unwrap(),
        shown["output"]
    );
    let (again, _) = run("PreInvocation", "pre-invocation-quick.json", cache.path());
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&again).unwrap(),
        once["ifAnsweredBefore"]
    );
    // A host whose prompt event fires once per turn has nothing to de-duplicate.
    let codex = run_in_process_with(
        &[
            "explain",
            "--host",
            "codex",
            "--effects",
            "--prompt",
            "!quick ciao",
        ],
        b"",
        &settings,
    );
    let codex: serde_json::Value = serde_json::from_str(&codex.stdout).unwrap();
    assert_eq!(
        codex["effects"]["oncePerTurn"],
        serde_json::Value::Null,
        "{codex}"
    );
}
