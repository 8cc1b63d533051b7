//! Tests through the real binary: fail-open on every bad input, panics, arguments, analytics
//! (privacy, one line per run, concurrency) and the debug log format.
// Tests and benches set up and read their files directly; the door (clippy.toml) is for the crate.
#![allow(clippy::disallowed_methods)]

use crate::common;

use std::fs;

use common::{fixtures, run_binary};
use serde_json::Value;

/// What each degraded fixture must print: the routing of its `!quick` prompt, or nothing.
const DEGRADED: &[(&str, Option<&str>)] = &[
    ("array.json", None),
    ("bom-prefixed.json", Some("contextMode=light")),
    ("deeply-nested.json", None),
    ("empty.txt", None),
    // An event of the wrong type is ignored; the prompt still routes as a UserPromptSubmit.
    ("event-wrong-type.json", Some("contextMode=light")),
    ("invalid-json.txt", None),
    ("non-utf8-garbage.bin", None),
    ("non-utf8.bin", Some("contextMode=light")),
    ("null.json", None),
    ("number.json", None),
    ("prompt-wrong-type.json", None),
    ("string.json", None),
    ("unknown-event.json", None),
    ("whitespace.txt", None),
];

#[test]
fn degraded_inputs_exit_zero_with_the_expected_output() {
    let home = tempfile::tempdir().unwrap();
    let mut names: Vec<String> = fs::read_dir(fixtures().join("degraded"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let listed: Vec<&str> = DEGRADED.iter().map(|(n, _)| *n).collect();
    assert_eq!(names, listed, "every degraded fixture has an expectation");
    let mut injected = 0;
    for (name, expected) in DEGRADED {
        let bytes = fs::read(fixtures().join("degraded").join(name)).unwrap();
        for args in [&[][..], &["--host", "claude"][..]] {
            let run = run_binary(args, &bytes, home.path(), &[]);
            let what = format!("{name} {args:?}");
            assert_eq!(run.code, 0, "{what}");
            assert_eq!(run.stderr, "", "{what}: silent without SOPHIA_DEBUG");
            match expected {
                None => assert_eq!(run.stdout, "", "{what}"),
                Some(want) => {
                    let value: Value = serde_json::from_str(&run.stdout)
                        .unwrap_or_else(|e| panic!("{what}: {e}: {:?}", run.stdout));
                    let keys: Vec<&String> = value.as_object().unwrap().keys().collect();
                    assert_eq!(keys, ["hookSpecificOutput"], "{what}");
                    let context = value["hookSpecificOutput"]["additionalContext"]
                        .as_str()
                        .unwrap();
                    assert!(context.contains(want), "{what}: {context}");
                    injected += 1;
                }
            }
        }
    }
    assert_eq!(injected, 6, "three fixtures, two hosts");
}

#[test]
fn specific_degraded_inputs() {
    let home = tempfile::tempdir().unwrap();
    let read = |name: &str| fs::read(fixtures().join("degraded").join(name)).unwrap();
    // Routed despite stray bytes.
    let run = run_binary(&[], &read("non-utf8.bin"), home.path(), &[]);
    assert!(run.stdout.contains("contextMode=light"), "{}", run.stdout);
    // Nothing at all for these.
    for name in [
        "empty.txt",
        "invalid-json.txt",
        "array.json",
        "null.json",
        "number.json",
        "deeply-nested.json",
        "unknown-event.json",
        "prompt-wrong-type.json",
    ] {
        let run = run_binary(&[], &read(name), home.path(), &[]);
        assert_eq!(run.stdout, "", "{name}");
    }
}

#[test]
fn payload_over_the_cap_passes_through() {
    let home = tempfile::tempdir().unwrap();
    let mut payload = br#"{"hook_event_name":"UserPromptSubmit","prompt":"!quick "#.to_vec();
    payload.resize(16 * 1024 * 1024 + 10, b'a');
    payload.extend_from_slice(br#""}"#);
    let run = run_binary(&[], &payload, home.path(), &[("SOPHIA_DEBUG", "1")]);
    assert_eq!(run.code, 0);
    assert_eq!(run.stdout, "");
    assert_eq!(
        run.stderr,
        "[sophia-hook] pass-through reason=payload-over-cap\n"
    );
}

#[test]
fn a_panic_passes_through_silently() {
    let home = tempfile::tempdir().unwrap();
    let payload = br#"{"hook_event_name":"UserPromptSubmit","prompt":"!quick x"}"#;
    let run = run_binary(&["--fault=panic"], payload, home.path(), &[]);
    assert_eq!(
        (run.code, run.stdout.as_str(), run.stderr.as_str()),
        (0, "", "")
    );
    let run = run_binary(
        &["--fault=panic"],
        payload,
        home.path(),
        &[("SOPHIA_DEBUG", "1")],
    );
    assert_eq!(run.code, 0);
    assert_eq!(run.stdout, "");
    assert_eq!(
        run.stderr,
        "[sophia-hook] pass-through reason=internal-error\n"
    );
    // Each run is still counted, as failed open: two runs, two lines.
    let log_path = home.path().join(".mcp-servers/analytics/sophia-hook.jsonl");
    let lines = |log: &str| -> Vec<Value> {
        log.lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    };
    let logged = lines(&fs::read_to_string(&log_path).unwrap());
    assert_eq!(logged.len(), 2, "{logged:?}");
    for line in &logged {
        assert_eq!(line["failure"], "panic");
        assert_eq!(line["outcome"], "failed-open");
        assert_eq!(line["host"], "codex", "the default host");
    }
    // The host and event given on the command line are logged.
    fs::remove_file(&log_path).unwrap();
    let run = run_binary(
        &[
            "--host",
            "claude",
            "--event",
            "UserPromptSubmit",
            "--fault=panic",
        ],
        payload,
        home.path(),
        &[],
    );
    assert_eq!((run.code, run.stdout.as_str()), (0, ""));
    let logged = lines(&fs::read_to_string(&log_path).unwrap());
    assert_eq!(logged.len(), 1);
    assert_eq!(
        (&logged[0]["host"], &logged[0]["event"]),
        (&Value::from("claude"), &Value::from("UserPromptSubmit"))
    );
}

/// A command line that names no subcommand may be a host's hook command: a malformed one is a
/// usage error (clap's message, with "did you mean"), but exits 1, which no host documents as
/// "block this prompt" (exit 2 is that in the hosts' hook docs). Inside a named subcommand
/// a usage error exits 2, like any tool.
#[test]
fn malformed_hook_command_lines_fail_without_blocking_the_prompt() {
    let home = tempfile::tempdir().unwrap();
    let payload = br#"{"hook_event_name":"UserPromptSubmit","prompt":"!quick x"}"#;
    // The same payload with good arguments is routed, so the silence below is the arguments'.
    let good = run_binary(&["--host", "codex"], payload, home.path(), &[]);
    assert!(good.stdout.contains("contextMode=light"), "{}", good.stdout);
    // Well-formed, for an event sophia-hook does not answer: a silent pass-through.
    let run = run_binary(&["--event", "PreToolUse"], payload, home.path(), &[]);
    assert_eq!(
        (run.code, run.stdout.as_str(), run.stderr.as_str()),
        (0, "", "")
    );
    for (args, tip) in [
        (&["--host", "nonsense"][..], Some("possible values")),
        (&["--bogus"][..], None),
        (&["-x"][..], None),
        (
            &["--hots", "codex"][..],
            Some("a similar argument exists: '--host'"),
        ),
        (&["--host", "codex", "--bogus"][..], None),
        (
            &["--host", "claude", "--event"][..],
            Some("a value is required"),
        ),
        (&["frobnicate"][..], None),
        (&["instal", "--host", "codex"][..], Some("'install'")),
        (&["complete", "bash"][..], Some("'completions'")),
        (&["--planning=yes"][..], None),
    ] {
        let run = run_binary(args, payload, home.path(), &[]);
        assert_eq!((run.code, run.stdout.as_str()), (1, ""), "{args:?}");
        assert!(
            run.stderr.starts_with("error: "),
            "{args:?}: {}",
            run.stderr
        );
        if let Some(tip) = tip {
            assert!(run.stderr.contains(tip), "{args:?}: {}", run.stderr);
        }
    }
    // Gemini reads an empty stdout as a failure: it gets its no-op object as well.
    for args in [
        &["--host", "gemini", "--bogus"][..],
        &["--host=gemini", "--event"][..],
        &[
            "--host",
            "gemini",
            "--event",
            "BeforeAgent",
            "--planning=yes",
        ][..],
    ] {
        let run = run_binary(args, payload, home.path(), &[]);
        assert_eq!((run.code, run.stdout.as_str()), (1, "{}\n"), "{args:?}");
    }
    // A tool subcommand with a bad argument fails loudly, with exit 2.
    for (args, tip) in [
        (&["explain", "--bogus"][..], "--bogus"),
        (
            &["install", "--hots", "codex"][..],
            "a similar argument exists: '--host'",
        ),
        (
            &["install", "--host"][..],
            "a value is required for '--host <HOST>'",
        ),
        (
            &["stats", "--host", "codex"][..],
            "unexpected argument '--host'",
        ),
        (
            &["install", "--host", "codex", "--event", "Bogus"][..],
            "'--event'",
        ),
        (
            &["uninstall", "--host", "codex", "--binary", "/x"][..],
            "'--binary'",
        ),
        (
            &["agents", "sync", "--host", "antigravity"][..],
            "possible values",
        ),
    ] {
        let run = run_binary(args, b"", home.path(), &[]);
        assert_eq!(run.code, 2, "{args:?}");
        assert!(run.stderr.contains(tip), "{args:?}: {}", run.stderr);
    }
}

#[test]
fn event_flag_overrides_the_payload() {
    let home = tempfile::tempdir().unwrap();
    let payload = br#"{"hook_event_name":"UserPromptSubmit","prompt":"!quick x"}"#;
    let run = run_binary(&["--event", "SessionStart"], payload, home.path(), &[]);
    assert!(
        run.stdout.contains(r#""hookEventName":"SessionStart""#),
        "{}",
        run.stdout
    );
}

#[test]
fn analytics_never_contain_prompt_text() {
    let home = tempfile::tempdir().unwrap();
    let log = home.path().join("analytics.jsonl");
    let log_env = log.to_str().unwrap();
    let marker = "QZX-MARKER-7781";
    let prompts = [
        format!("!quick spiegami {marker}"),
        format!("!agents analizza {marker}"),
        format!("!quick !direct {marker}"),
        format!("usa un subagent per {marker}"),
        format!("{marker} senza hotword"),
        format!("!quick implementa {marker} in src/{marker}.rs"),
    ];
    for prompt in &prompts {
        let payload = serde_json::json!({"hook_event_name": "UserPromptSubmit", "prompt": prompt, "cwd": "/tmp"});
        let run = run_binary(
            &[],
            payload.to_string().as_bytes(),
            home.path(),
            &[("SOPHIA_ANALYTICS_FILE", log_env), ("SOPHIA_DEBUG", "1")],
        );
        assert!(
            !run.stderr.contains(marker),
            "stderr leaks the prompt: {}",
            run.stderr
        );
        assert!(
            !run.stdout.contains(marker),
            "stdout echoes the prompt: {}",
            run.stdout
        );
    }
    let text = fs::read_to_string(&log).unwrap();
    assert!(!text.contains(marker), "analytics leak the prompt:\n{text}");
    assert!(!text.contains("spiegami") && !text.contains("analizza"));
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), prompts.len());
    for line in &lines {
        for key in [
            "ts",
            "event",
            "host",
            "contextMode",
            "subagentMode",
            "detectedHotwords",
            "reasons",
            "durationUs",
        ] {
            assert!(line.get(key).is_some(), "{key} missing in {line}");
        }
    }
    assert_eq!(lines[0]["contextMode"], "light");
    assert_eq!(lines[1]["subagentMode"], "required");
    assert_eq!(lines[3]["subagentMode"], "requested");
}

#[test]
fn analytics_off_and_unwritable_paths_change_nothing() {
    let home = tempfile::tempdir().unwrap();
    let payload = br#"{"hook_event_name":"UserPromptSubmit","prompt":"!quick spiegami"}"#;
    let expected = run_binary(&[], payload, home.path(), &[("SOPHIA_ANALYTICS", "off")]);
    assert!(
        expected
            .stdout
            .contains("contextMode=light reason=hotword:!quick"),
        "the reference run injects: {}",
        expected.stdout
    );
    assert!(
        !home.path().join(".mcp-servers").exists(),
        "analytics off wrote a file"
    );
    // A path that is a directory, and a path under a regular file.
    let dir = home.path().join("dir.jsonl");
    fs::create_dir(&dir).unwrap();
    let file = home.path().join("plain");
    fs::write(&file, "x").unwrap();
    for path in [dir.clone(), file.join("sub/a.jsonl")] {
        let run = run_binary(
            &[],
            payload,
            home.path(),
            &[("SOPHIA_ANALYTICS_FILE", path.to_str().unwrap())],
        );
        assert_eq!(
            (run.code, &run.stdout, &run.stderr),
            (0, &expected.stdout, &String::new())
        );
    }
    let run = run_binary(
        &[],
        payload,
        home.path(),
        &[
            ("SOPHIA_ANALYTICS_FILE", dir.to_str().unwrap()),
            ("SOPHIA_DEBUG", "1"),
        ],
    );
    assert!(
        run.stderr.contains("[sophia-hook] analytics not written"),
        "{}",
        run.stderr
    );
}

#[test]
fn concurrent_runs_append_whole_lines() {
    let home = tempfile::tempdir().unwrap();
    let log = home.path().join("analytics.jsonl");
    let log_env = log.to_str().unwrap().to_owned();
    let home_path = home.path().to_path_buf();
    let runs = 32;
    let handles: Vec<_> = (0..runs)
        .map(|i| {
            let log_env = log_env.clone();
            let home_path = home_path.clone();
            std::thread::spawn(move || {
                let prompt = if i % 2 == 0 {
                    "!quick spiegami"
                } else {
                    "!agents leggi"
                };
                let payload =
                    serde_json::json!({"hook_event_name": "UserPromptSubmit", "prompt": prompt});
                run_binary(
                    &[],
                    payload.to_string().as_bytes(),
                    &home_path,
                    &[("SOPHIA_ANALYTICS_FILE", &log_env)],
                )
            })
        })
        .collect();
    for h in handles {
        assert_eq!(h.join().unwrap().code, 0);
    }
    let text = fs::read_to_string(&log).unwrap();
    assert_eq!(text.lines().count(), runs);
    for line in text.lines() {
        let v: Value =
            serde_json::from_str(line).unwrap_or_else(|e| panic!("torn line {line:?}: {e}"));
        assert_eq!(v["event"], "UserPromptSubmit");
    }
}

#[test]
fn debug_lines_use_the_product_log_format() {
    let home = tempfile::tempdir().unwrap();
    let table = [
        (
            "!quick spiegami SQL",
            "[mcp-skills] catalog=embedded skills=9 warnings=0\n[mcp-skills] embedded on (SOPHIA_EMBEDDED_SKILLS): every embedded skill may be named\n[mcp-agent-catalog] catalog=embedded (parsed only when delegation is on)\n[mcp-context] mode=light reason=hotword:!quick\n[mcp-agents] mode=off reason=default-opt-in-design\n",
        ),
        (
            "!quick implementa modifica agli hook",
            "[mcp-skills] catalog=embedded skills=9 warnings=0\n[mcp-skills] embedded on (SOPHIA_EMBEDDED_SKILLS): every embedded skill may be named\n[mcp-agent-catalog] catalog=embedded (parsed only when delegation is on)\n[mcp-context] mode=full reason=repo-task-detected-overrides:!quick\n[mcp-agents] mode=off reason=default-opt-in-design\n",
        ),
        (
            "!agents leggi i log",
            "[mcp-skills] catalog=embedded skills=9 warnings=0\n[mcp-skills] embedded on (SOPHIA_EMBEDDED_SKILLS): every embedded skill may be named\n[mcp-agent-catalog] catalog=embedded (parsed only when delegation is on)\n[mcp-context] mode=full reason=default-full-context\n[mcp-agents] mode=required reason=hotword:!agents\n",
        ),
    ];
    for (prompt, expected) in table {
        let payload = serde_json::json!({"hook_event_name": "UserPromptSubmit", "prompt": prompt, "cwd": home.path()});
        let run = run_binary(
            &[],
            payload.to_string().as_bytes(),
            home.path(),
            &[("SOPHIA_DEBUG", "1"), ("SOPHIA_ANALYTICS", "off")],
        );
        assert_eq!(run.stderr, expected, "{prompt}");
    }
}

#[test]
fn explain_prompt_flag_and_errors() {
    let home = tempfile::tempdir().unwrap();
    let run = run_binary(
        &[
            "explain",
            "--prompt",
            "!quick implementa modifica agli hook",
        ],
        b"",
        home.path(),
        &[],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let decision: Value = serde_json::from_str(&run.stdout).unwrap();
    for key in [
        "event", "host", "routing", "skills", "agents", "planning", "hints", "output",
    ] {
        assert!(decision.get(key).is_some(), "{key} missing");
    }
    assert_eq!(decision["routing"]["contextMode"], "full");
    assert_eq!(
        decision["routing"]["reasons"][0],
        "repo-task-detected-overrides:!quick"
    );
    let run = run_binary(&["explain"], b"not json", home.path(), &[]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .starts_with("sophia-hook: error: parsing the payload"),
        "{}",
        run.stderr
    );
    assert_eq!(run.stdout, "");
}

#[test]
fn antigravity_injects_once_per_user_turn() {
    let home = tempfile::tempdir().unwrap();
    let cache = home.path().join("cache");
    let env = [
        ("SOPHIA_CACHE_DIR", cache.to_str().unwrap()),
        ("SOPHIA_ANALYTICS", "off"),
    ];
    // PreInvocation as the engine sends it: common fields, `lastUserInput`, `invocationNum`
    // (zero-based per turn, omitted when 0) and `initialNumSteps` (the same for every model call
    // of one user turn), no event name.
    let call = |invocation: u32, initial_steps: u32, prompt: &str| {
        let payload = serde_json::json!({"conversationId": "c-1", "workspacePaths": [home.path()], "modelName": "auto", "lastUserInput": prompt, "invocationNum": invocation, "initialNumSteps": initial_steps});
        run_binary(
            &["--host", "antigravity", "--event", "PreInvocation"],
            payload.to_string().as_bytes(),
            home.path(),
            &env,
        )
        .stdout
    };
    let first: Value = serde_json::from_str(&call(0, 4, "!quick spiegami la query")).unwrap();
    let steps = first["injectSteps"].as_array().unwrap();
    assert_eq!(steps.len(), 1);
    assert!(
        steps[0]["ephemeralMessage"]
            .as_str()
            .unwrap()
            .contains("contextMode=light")
    );
    assert_eq!(
        call(1, 4, "!quick spiegami la query"),
        "{}\n",
        "a later model call of the same turn"
    );
    assert_eq!(
        call(0, 4, "!quick spiegami la query"),
        "{}\n",
        "the first call again (a retry): the turn log keeps it to one injection"
    );
    assert!(
        call(0, 9, "!quick e ora la tabella?").contains("contextMode=light"),
        "a new turn"
    );
    assert!(
        call(0, 14, "!quick spiegami la query").contains("contextMode=light"),
        "the same words in a later turn are a new turn"
    );
    let state = fs::read_to_string(cache.join("sophia-hook/injected-turns.json")).unwrap();
    assert!(!state.contains("spiegami"));
}

#[test]
fn the_time_budget_starts_once_the_payload_is_read() {
    use std::io::Write;
    use std::process::{Command, Stdio};
    // A host that writes the payload 300 ms after spawning the hook, with the default 100 ms
    // budget: the answer is complete (skill and agent lines), not degraded.
    let home = tempfile::tempdir().unwrap();
    let log = home.path().join("a.jsonl");
    let mut child = Command::new(env!("CARGO_BIN_EXE_sophia-hook"))
        .args(["--host", "codex"])
        .env_clear()
        .env("HOME", home.path())
        .env("SOPHIA_ANALYTICS_FILE", &log)
        .env("SOPHIA_EMBEDDED_SKILLS", "on")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    std::thread::sleep(std::time::Duration::from_millis(300));
    stdin
        .write_all(br#"{"hook_event_name":"UserPromptSubmit","cwd":"/nonexistent","prompt":"!agents analizza il ticket Mantis 123 e ricostruisci la causa"}"#)
        .unwrap();
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(
        stdout.contains("Sophia skill routing") && stdout.contains("agent=technical_analyst"),
        "{stdout}"
    );
    let line: Value =
        serde_json::from_str(fs::read_to_string(&log).unwrap().lines().last().unwrap()).unwrap();
    assert_eq!(line.get("degraded"), None, "{line}");
}

#[test]
fn gemini_panics_still_print_an_empty_object() {
    let home = tempfile::tempdir().unwrap();
    let payload = br#"{"hook_event_name":"BeforeAgent","prompt":"!quick x"}"#;
    let run = run_binary(
        &["--host", "gemini", "--fault=panic"],
        payload,
        home.path(),
        &[],
    );
    assert_eq!(
        (run.code, run.stdout.as_str(), run.stderr.as_str()),
        (0, "{}\n", "")
    );
}

#[test]
fn the_second_hotword_prefix_is_plus_and_the_user_or_the_project_can_change_it() {
    let home = tempfile::tempdir().unwrap();
    let project = home.path().join("project");
    fs::create_dir_all(project.join(".git")).unwrap();
    let config = home.path().join("xdg");
    fs::create_dir_all(config.join("sophia-hook")).unwrap();
    let env = [
        ("SOPHIA_ANALYTICS", "off"),
        ("XDG_CONFIG_HOME", config.to_str().unwrap()),
    ];
    let light = |prompt: &str| {
        let payload = serde_json::json!({"hook_event_name": "UserPromptSubmit", "cwd": project, "prompt": prompt});
        let out = run_binary(
            &["--host", "codex"],
            payload.to_string().as_bytes(),
            home.path(),
            &env,
        );
        assert_eq!(out.code, 0);
        out.stdout
            .contains("contextMode=light reason=hotword:!quick")
    };
    // No configuration anywhere: `+quick` and `!quick`.
    assert!(light("+quick spiegami la query"));
    assert!(light("!quick spiegami la query"));
    assert!(!light(";quick spiegami la query"));
    // The user's config.yaml changes it for projects that say nothing.
    fs::write(
        config.join("sophia-hook/config.yaml"),
        "hotword_prefix: \";\"\n",
    )
    .unwrap();
    assert!(light(";quick spiegami la query"));
    assert!(!light("+quick spiegami la query"));
    assert!(light("!quick spiegami la query"));
    // The project's file wins; `false` switches the second prefix off, `!` still works.
    fs::write(project.join(".sophia-hook.yaml"), "hotword_prefix: false\n").unwrap();
    assert!(!light(";quick spiegami la query"));
    assert!(!light("+quick spiegami la query"));
    assert!(light("!quick spiegami la query"));
    // An invalid user value is ignored (the default again), never an error on the hook path.
    fs::remove_file(project.join(".sophia-hook.yaml")).unwrap();
    fs::write(
        config.join("sophia-hook/config.yaml"),
        "hotword_prefix: \"!\"\n",
    )
    .unwrap();
    assert!(light("+quick spiegami la query"));
}

#[test]
fn gemini_sends_the_bootstrap_with_the_first_prompt_whose_conversation_lacks_it() {
    let home = tempfile::tempdir().unwrap();
    let project = home.path().join("project");
    fs::create_dir_all(project.join(".git")).unwrap();
    fs::write(project.join("AGENTS.md"), "# Rules\nE2E-RULE-42\n").unwrap();
    let transcript = home.path().join("session.json");
    let env = [("SOPHIA_ANALYTICS", "off")];
    let run = |event: &str, prompt: Option<&str>| {
        let mut payload = serde_json::json!({"hook_event_name": event, "cwd": project, "session_id": "g1", "transcript_path": transcript});
        if let Some(p) = prompt {
            payload["prompt"] = p.into();
        }
        let out = run_binary(
            &["--host", "gemini"],
            payload.to_string().as_bytes(),
            home.path(),
            &env,
        );
        assert_eq!(out.code, 0);
        out.stdout
    };
    // SessionStart: the no-op (gemini -p would put its context in front of the prompt, and resume
    // drops such a user message).
    assert_eq!(run("SessionStart", None), "{}\n");
    // First prompt, no conversation file yet: bootstrap and AGENTS.md, then the routing line.
    let first = run("BeforeAgent", Some("!quick spiegami"));
    assert!(first.contains("Sophia routing bootstrap"), "{first}");
    assert!(first.contains("E2E-RULE-42"), "{first}");
    assert!(first.contains("contextMode=light"), "{first}");
    // The conversation carries it (Gemini saved the first user message with its hook context).
    fs::write(&transcript, r#"{"messages":[{"type":"user","content":[{"text":"!quick spiegami"},{"text":"<hook_context>Sophia routing bootstrap (background …</hook_context>"}]}]}"#).unwrap();
    let second = run("BeforeAgent", Some("!quick e ora?"));
    assert!(!second.contains("Sophia routing bootstrap"), "{second}");
    assert!(!second.contains("E2E-RULE-42"), "{second}");
    assert!(second.contains("contextMode=light"), "{second}");
    // A resumed conversation file that lacks it (another session's file): sent again.
    fs::write(&transcript, r#"{"messages":[]}"#).unwrap();
    assert!(run("BeforeAgent", Some("ciao")).contains("Sophia routing bootstrap"));
}

/// The rule for Gemini CLI's conversation file (docs/hosts.md; `edge::hook`): the bootstrap rides
/// with a prompt unless the conversation already carries it. No path, an empty one or no file yet:
/// sent. A readable file: sent exactly when the marker is not in it. A file over the 16 MiB cap,
/// a folder or a FIFO (one we cannot read as a bounded regular file): counted as carrying it, so
/// a long conversation never gets the bootstrap again on every turn. Each kind, both sides of the
/// cap, one table.
#[test]
fn gemini_resends_the_bootstrap_only_when_a_readable_conversation_lacks_it() {
    const CAP: usize = 16 * 1024 * 1024;
    const MARK: &str = "Sophia routing bootstrap";
    let home = tempfile::tempdir().unwrap();
    let project = home.path().join("project");
    fs::create_dir_all(project.join(".git")).unwrap();
    let at = |name: &str| home.path().join(name);
    let padded = |len: usize, marker: bool| {
        let mut bytes = vec![b' '; len];
        if marker {
            bytes[len - MARK.len()..].copy_from_slice(MARK.as_bytes());
        }
        bytes
    };
    fs::write(
        at("with-marker.json"),
        format!(r#"{{"messages":["{MARK}"]}}"#),
    )
    .unwrap();
    fs::write(at("without-marker.json"), r#"{"messages":[]}"#).unwrap();
    fs::write(at("cap-with-marker.json"), padded(CAP, true)).unwrap();
    fs::write(at("cap-without-marker.json"), padded(CAP, false)).unwrap();
    fs::write(at("over-cap-without-marker.json"), padded(CAP + 1, false)).unwrap();
    fs::create_dir(at("a-folder")).unwrap();
    let path = |name: &str| Some(at(name).to_str().unwrap().to_owned());
    // (what the payload's transcript_path is, whether the bootstrap is sent)
    let mut cases: Vec<(&str, Option<String>, bool)> = vec![
        ("no transcript_path", None, true),
        ("an empty path", Some(String::new()), true),
        ("no file yet", path("not-yet.json"), true),
        ("a file with the marker", path("with-marker.json"), false),
        ("a file without it", path("without-marker.json"), true),
        (
            "16 MiB ending in the marker",
            path("cap-with-marker.json"),
            false,
        ),
        ("16 MiB without it", path("cap-without-marker.json"), true),
        (
            "one byte over the cap",
            path("over-cap-without-marker.json"),
            false,
        ),
        ("a folder", path("a-folder"), false),
    ];
    #[cfg(unix)]
    {
        let fifo = at("a-fifo");
        assert!(
            std::process::Command::new("mkfifo")
                .arg(&fifo)
                .status()
                .unwrap()
                .success()
        );
        cases.push(("a FIFO", path("a-fifo"), false));
    }
    for (kind, transcript, sent) in cases {
        let mut payload = serde_json::json!({"hook_event_name": "BeforeAgent", "cwd": project, "session_id": "g1", "prompt": "!quick spiegami"});
        if let Some(t) = transcript {
            payload["transcript_path"] = t.into();
        }
        let out = run_binary(
            &["--host", "gemini"],
            payload.to_string().as_bytes(),
            home.path(),
            &[("SOPHIA_ANALYTICS", "off")],
        );
        assert_eq!(out.code, 0, "{kind}");
        // The routing line is there either way: the test sees a real answer, not silence.
        assert!(
            out.stdout.contains("contextMode=light"),
            "{kind}: {}",
            out.stdout
        );
        assert_eq!(out.stdout.contains(MARK), sent, "{kind}: {}", out.stdout);
    }
}
