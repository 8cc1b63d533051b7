//! The payload rules of docs/routing.md ("Payload") over generated payloads:
//!
//! - the prompt is `prompt`, else `userPrompt`, `input`, `message`, `content`, `text` (the first
//!   that is a string; a field of the wrong type counts as absent), else the last `role: "user"`
//!   entry of `messages` (a string, or its text parts joined by newlines);
//! - camelCase spellings are accepted; unknown fields are ignored;
//! - a leading UTF-8 BOM is skipped; invalid UTF-8 inside strings is replaced, not rejected;
//! - the event: `--event` wins over `hook_event_name`; with neither, a prompt makes a
//!   `UserPromptSubmit` and a `source` a `SessionStart`; any other event prints nothing.
// Tests and benches set up and read their files directly; the door (clippy.toml) is for the crate.
#![allow(clippy::disallowed_methods)]

use crate::common;

use proptest::prelude::*;
use serde_json::{Map, Value, json};

use sophia_hook::stages::payload::Payload;

fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        failure_persistence: None,
        rng_seed: proptest::test_runner::RngSeed::Fixed(20),
        ..ProptestConfig::default()
    }
}

/// The spec's order of the prompt fields.
const PROMPT_FIELDS: [&str; 6] = [
    "prompt",
    "userPrompt",
    "input",
    "message",
    "content",
    "text",
];

fn wrong_type() -> impl Strategy<Value = Value> {
    prop::sample::select(vec![
        Value::Null,
        json!(3),
        json!(true),
        json!(["a list"]),
        json!({"text": "an object"}),
    ])
}

/// A message entry: (role, content) where content is a string, text parts, or something else.
fn message() -> impl Strategy<Value = Value> {
    let content = prop_oneof![
        "[a-z ]{0,12}".prop_map(Value::from),
        prop::collection::vec(
            prop_oneof![
                "[a-z]{1,6}".prop_map(Value::from),
                "[a-z]{1,6}".prop_map(|t| json!({"type": "text", "text": t})),
                Just(json!({"type": "image"})),
                Just(json!(5)),
            ],
            0..4
        )
        .prop_map(Value::Array),
        Just(json!(7)),
    ];
    (
        prop::sample::select(vec!["user", "assistant", "system"]),
        content,
    )
        .prop_map(|(role, content)| json!({"role": role, "content": content}))
}

/// The spec's reading of `messages`: the last user entry's text.
fn spec_messages(messages: &[Value]) -> Option<String> {
    let last = messages.iter().rev().find(|m| m["role"] == "user")?;
    match &last["content"] {
        Value::String(s) => Some(s.clone()),
        Value::Array(parts) => {
            let texts: Vec<&str> = parts
                .iter()
                .filter_map(|p| p.as_str().or_else(|| p.get("text").and_then(Value::as_str)))
                .collect();
            (!texts.is_empty()).then(|| texts.join("\n"))
        }
        _ => None,
    }
}

proptest! {
    #![proptest_config(config(256))]

    /// Any subset of the prompt fields, each a string or of the wrong type, any messages, and
    /// unknown fields: the prompt is the first string field in the spec's order, else the last
    /// user message.
    #[test]
    fn the_prompt_is_the_first_string_field_then_the_last_user_message(
        fields in prop::collection::vec(
            (0..PROMPT_FIELDS.len(), prop_oneof![2 => "[a-z]{0,8}".prop_map(Value::from), 1 => wrong_type()]),
            0..6,
        ),
        messages in prop::option::of(prop::collection::vec(message(), 0..4)),
        unknown in any::<bool>(),
    ) {
        let mut map = Map::new();
        if unknown {
            map.insert("future_field".into(), json!({"prompt": "not this"}));
        }
        // Insert in reverse order of preference, so map order cannot decide.
        let mut fields = fields;
        fields.sort_by_key(|(i, _)| std::cmp::Reverse(*i));
        for (i, v) in &fields {
            map.insert(PROMPT_FIELDS[*i].into(), v.clone());
        }
        if let Some(m) = &messages {
            map.insert("messages".into(), Value::Array(m.clone()));
        }
        let want = PROMPT_FIELDS
            .iter()
            .find_map(|f| map.get(*f).and_then(Value::as_str).map(str::to_owned))
            .or_else(|| messages.as_deref().and_then(spec_messages));
        let bytes = serde_json::to_vec(&Value::Object(map.clone())).unwrap();
        prop_assert_eq!(Payload::from_map(&map).prompt, want.clone());
        prop_assert_eq!(Payload::parse(&bytes).unwrap().prompt, want.clone());
        // A BOM and surrounding whitespace change nothing.
        let mut with_bom = b"\xef\xbb\xbf \n".to_vec();
        with_bom.extend_from_slice(&bytes);
        with_bom.extend_from_slice(b"\n\t ");
        prop_assert_eq!(Payload::parse(&with_bom).unwrap().prompt, want);
    }

    /// Invalid UTF-8 inside a string is replaced, and the rest of the payload is read.
    #[test]
    fn invalid_utf8_in_a_string_is_replaced(
        before in "[a-z ]{0,6}",
        bad in prop::collection::vec(prop::sample::select(vec![0xffu8, 0xfe, 0xc3, 0xed]), 1..4),
        after in "[a-z ]{0,6}",
    ) {
        let mut bytes = br#"{"session_id":"s","prompt":""#.to_vec();
        bytes.extend_from_slice(before.as_bytes());
        bytes.extend_from_slice(&bad);
        bytes.extend_from_slice(after.as_bytes());
        bytes.extend_from_slice(br#"","cwd":"/tmp"}"#);
        let p = Payload::parse(&bytes).expect("read despite the bad bytes");
        let prompt = p.prompt.unwrap();
        prop_assert!(prompt.starts_with(&before) && prompt.ends_with(&after), "{:?}", prompt);
        let replaced = prompt.contains(char::REPLACEMENT_CHARACTER);
        prop_assert!(replaced, "{:?}", prompt);
        prop_assert_eq!(p.session_id.as_deref(), Some("s"));
        prop_assert_eq!(p.cwd.as_deref(), Some("/tmp"));
    }
}

/// Every field sophia-hook reads, in snake_case and in camelCase.
#[test]
fn camel_case_spellings_are_read() {
    let pairs = [
        ("hook_event_name", "hookEventName"),
        ("session_id", "sessionId"),
        ("turn_id", "turnId"),
        ("transcript_path", "transcriptPath"),
        ("permission_mode", "permissionMode"),
        ("agent_id", "agentId"),
        ("agent_type", "agentType"),
    ];
    for (snake, camel) in pairs {
        for key in [snake, camel] {
            let mut map = Map::new();
            map.insert(key.into(), Value::from("v"));
            let p = Payload::from_map(&map);
            let got = match snake {
                "hook_event_name" => p.hook_event_name,
                "session_id" => p.session_id,
                "turn_id" => p.turn_id,
                "transcript_path" => p.transcript_path,
                "permission_mode" => p.permission_mode,
                "agent_id" => p.agent_id,
                _ => p.agent_type,
            };
            assert_eq!(got.as_deref(), Some("v"), "{key}");
        }
    }
}

/// (`--event`, `hook_event_name`, has a prompt, has a source, the event printed).
type EventCase = (
    Option<&'static str>,
    Option<&'static str>,
    bool,
    bool,
    Option<&'static str>,
);

/// The event table, through hook mode on Codex: what event the output names, or nothing.
#[test]
fn the_event_follows_the_flag_then_the_name_then_the_payload_shape() {
    // (--event, hook_event_name, prompt, source) → the event printed, or None for nothing.
    let table: &[EventCase] = &[
        (
            None,
            Some("UserPromptSubmit"),
            true,
            false,
            Some("UserPromptSubmit"),
        ),
        (
            None,
            Some("SessionStart"),
            false,
            true,
            Some("SessionStart"),
        ),
        (
            Some("SessionStart"),
            Some("UserPromptSubmit"),
            true,
            true,
            Some("SessionStart"),
        ),
        (
            Some("UserPromptSubmit"),
            Some("SessionStart"),
            true,
            true,
            Some("UserPromptSubmit"),
        ),
        (None, None, true, false, Some("UserPromptSubmit")),
        (None, None, false, true, Some("SessionStart")),
        (None, Some("PreToolUse"), true, false, None),
        (None, Some("Stop"), true, true, None),
        (
            Some("PreToolUse"),
            Some("UserPromptSubmit"),
            true,
            false,
            None,
        ),
    ];
    for &(flag, name, prompt, source, want) in table {
        let mut payload = json!({"session_id": "s", "cwd": "/nonexistent-sophia-test"});
        if let Some(n) = name {
            payload["hook_event_name"] = Value::from(n);
        }
        if prompt {
            payload["prompt"] = Value::from("!quick spiegami SQL");
        }
        if source {
            payload["source"] = Value::from("startup");
        }
        let mut args = vec!["--host", "codex"];
        if let Some(f) = flag {
            args.extend(["--event", f]);
        }
        let run = common::run_in_process(&args, payload.to_string().as_bytes());
        assert_eq!(run.code, 0, "{flag:?} {name:?}: {}", run.stderr);
        match want {
            None => assert_eq!(run.stdout, "", "{flag:?} {name:?} prints nothing"),
            Some(event) => {
                let v: Value = serde_json::from_str(&run.stdout)
                    .unwrap_or_else(|_| panic!("{flag:?} {name:?}: {:?}", run.stdout));
                assert_eq!(
                    v["hookSpecificOutput"]["hookEventName"], event,
                    "{flag:?} {name:?}"
                );
            }
        }
    }
}

/// The bound on the routed text (docs/security.md `### I1`, second pass cases 06, 07, 08, 49,
/// 51, 57): whatever a prompt holds past its first `PROMPT_BYTES`, the hook's answer is the one
/// for that prefix — so no stage (hotword parsing, Gemini's `<hook_context>` stripping, the
/// routing window, case folding, hashing for the turn log) does work in the size of the prompt.
/// Each shape the second pass used, at just over the bound and at 1 MiB, on the host that reads
/// it: distinct words, leading hotwords, leading Gemini context blocks, delegation phrases, text
/// that grows under case folding, and a long `messages` history whose last user turn is large.
#[test]
fn nothing_past_the_prompt_bound_changes_the_answer() {
    use sophia_hook::stages::payload::PROMPT_BYTES;
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(tmp.path().join(".git")).unwrap();
    let cwd = tmp.path().to_str().unwrap();
    let shapes: [(&str, &str, &str); 6] = [
        ("codex", "!quick fix the failing test ", "w{j} "),
        ("codex", "", "!quick "),
        (
            "gemini",
            "",
            "<hook_context>[mcp-routing] contextMode=light</hook_context>\n\n",
        ),
        (
            "claude",
            "!quick ",
            "delegate to a subagent and review the diff ",
        ),
        ("codex", "!quick ", "İŉΐ "),
        ("messages", "!quick ", "spiega il codice w{j} "),
    ];
    let (mut checked, mut changed) = (0, Vec::new());
    for (host, head, repeat) in shapes {
        for size in [PROMPT_BYTES + 1024, 1 << 20] {
            let mut text = head.to_owned();
            let mut j = 0;
            while text.len() < size {
                text.push_str(&repeat.replace("{j}", &j.to_string()));
                j += 1;
            }
            // What could change the answer if it were read: a hotword and a request at the end.
            text.push_str("!agents now review the security of the login code");
            let cut = {
                let mut end = PROMPT_BYTES.min(text.len());
                while !text.is_char_boundary(end) {
                    end -= 1;
                }
                text[..end].to_owned()
            };
            let payload = |prompt: &str| -> Vec<u8> {
                let value = match host {
                    "messages" => {
                        let mut messages: Vec<Value> = (0..20_000)
                            .map(|i| json!({"role": if i % 2 == 0 { "user" } else { "assistant" }, "content": "ok"}))
                            .collect();
                        messages.push(json!({"role": "user", "content": prompt}));
                        json!({"hook_event_name": "BeforeAgent", "cwd": cwd, "messages": messages})
                    }
                    "gemini" => {
                        json!({"hook_event_name": "BeforeAgent", "cwd": cwd, "prompt": prompt})
                    }
                    _ => {
                        json!({"hook_event_name": "UserPromptSubmit", "cwd": cwd, "prompt": prompt})
                    }
                };
                serde_json::to_vec(&value).unwrap()
            };
            let wire = if host == "messages" { "gemini" } else { host };
            let whole = common::run_in_process(&["--host", wire], &payload(&text));
            let bounded = common::run_in_process(&["--host", wire], &payload(&cut));
            assert_eq!(whole.code, 0);
            // Gemini's prefix ends inside a context block, which is routed as text (no hotword).
            assert!(
                host == "gemini" || bounded.stdout.contains("contextMode="),
                "{host} {size}: the bounded prompt routes: {}",
                bounded.stdout
            );
            if whole.stdout != bounded.stdout {
                changed.push(format!("{host} {size} ({repeat:?})"));
            }
            checked += 1;
        }
    }
    assert_eq!(checked, 12);
    assert!(
        changed.is_empty(),
        "text past the bound changed the answer: {changed:#?}"
    );
}
