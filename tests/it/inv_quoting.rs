//! I8 — quoting that no shell expands (`docs/security.md` `### I8`): for binary paths holding
//! every kind of shell syntax, the command line `install` writes into each shell-form host's
//! settings, run through `sh -c` as the host runs it, executes exactly that path with exactly our
//! arguments, and nothing else runs. `doctor`'s live run goes through the same shell.
//!
//! Unix only: it plants Unix modes, umasks, symlinks and `sh -c` (the harness in `tests/it/trust/`); on Windows the trust layer's
//! guarantees are held by the unit tests of `edge::files` and `edge::platform` (docs/architecture.md).
// Tests and benches set up and read their files directly; the door (clippy.toml) is for the crate.
#![allow(clippy::disallowed_methods)]
#![cfg(unix)]

use crate::trust;

use std::fs;
use std::path::Path;
use std::process::Command;

use serde_json::Value;
use trust::Sandbox;

/// Folder names that a shell would expand, split or end a command at if unquoted.
const HOSTILE_DIRS: &[&str] = &[
    "plain",
    "with space",
    "$(touch PWNED-subst)",
    "`touch PWNED-backtick`",
    "a;touch PWNED-semicolon",
    "it's",
    "say \"hi\"",
    "back\\slash",
    "line\nbreak",
    "tab\there",
    "$HOME",
    "${IFS}x",
    "glob*?[a]",
    "tilde~and#hash",
    "amp&pipe|lt<gt>",
    "brace{a,b}",
    "bang!caret^",
    "ünïcödé ✓",
    "-leading-dash",
    "percent%and=eq",
];

/// A stub named `sophia-hook` in `dir` that records its argv (one per line, NUL-separated) in
/// `record`.
fn stub(dir: &Path, record: &Path) -> std::path::PathBuf {
    fs::create_dir_all(dir).unwrap();
    let path = dir.join("sophia-hook");
    let script = format!(
        "#!/bin/sh\nprintf '%s\\0' \"$0\" \"$@\" > '{}'\n",
        record.to_string_lossy()
    );
    trust::exe::write_script(&path, &script);
    path
}

/// Every shell-form command line of `doc` (Codex, Gemini CLI: `hooks.<event>[].hooks[].command`;
/// Antigravity: `<name>.<event>[].command`; Copilot CLI: `hooks.<event>[].bash`).
fn commands(doc: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let mut visit = |v: &Value| {
        for key in ["command", "bash"] {
            if let Some(c) = v.get(key).and_then(Value::as_str) {
                out.push(c.to_owned());
            }
        }
    };
    fn each<'a>(v: &'a Value, f: &mut dyn FnMut(&'a Value)) {
        f(v);
        match v {
            Value::Array(a) => a.iter().for_each(|x| each(x, f)),
            Value::Object(o) => o.values().for_each(|x| each(x, f)),
            _ => {}
        }
    }
    each(doc, &mut visit);
    out
}

#[test]
fn every_written_command_runs_exactly_our_binary_through_sh() {
    for (i, name) in HOSTILE_DIRS.iter().enumerate() {
        let s = Sandbox::new();
        let record = s.base.join("argv");
        let bin = stub(&s.base.join("bins").join(name), &record);
        for (host, file) in [
            ("codex", ".codex/hooks.json"),
            ("gemini", ".gemini/settings.json"),
            ("antigravity", ".agents/hooks.json"),
            ("copilot", ".github/hooks/sophia-hook.json"),
        ] {
            let run = s.run(
                &s.project,
                &[
                    "install",
                    "--host",
                    host,
                    "--no-agents",
                    "--binary",
                    bin.to_str().unwrap(),
                ],
                b"",
            );
            assert_eq!(run.code, 0, "{name:?} {host}: {}{}", run.stdout, run.stderr);
            let doc: Value =
                serde_json::from_str(&fs::read_to_string(s.project.join(file)).unwrap()).unwrap();
            let lines = commands(&doc);
            assert!(!lines.is_empty(), "{name:?} {host}: no command in {doc}");
            for line in lines {
                let _ = fs::remove_file(&record);
                let status = Command::new("sh")
                    .arg("-c")
                    .arg(&line)
                    .current_dir(&s.base)
                    .status()
                    .unwrap();
                assert!(status.success(), "case {i} {name:?} {host}: {line:?}");
                let argv = fs::read(&record).unwrap_or_else(|_| {
                    panic!("case {i} {name:?} {host}: the stub did not run: {line:?}")
                });
                let argv: Vec<String> = argv
                    .split(|b| *b == 0)
                    .filter(|a| !a.is_empty())
                    .map(|a| String::from_utf8_lossy(a).into_owned())
                    .collect();
                assert_eq!(argv[0], bin.to_str().unwrap(), "case {i} {host}: {line:?}");
                assert_eq!(argv[1..3], ["--host", host], "case {i} {host}: {line:?}");
                assert_eq!(argv[3], "--event", "case {i} {host}: {line:?}");
                assert_eq!(argv.len(), 5, "case {i} {host}: {argv:?} from {line:?}");
                let pwned: Vec<_> = fs::read_dir(&s.base)
                    .unwrap()
                    .flatten()
                    .filter(|e| e.file_name().to_string_lossy().starts_with("PWNED"))
                    .collect();
                assert!(
                    pwned.is_empty(),
                    "case {i} {name:?} {host}: {line:?} ran a command"
                );
            }
        }
    }
}

#[test]
fn doctor_runs_the_entry_through_the_shell_the_host_uses() {
    // A binary whose path holds `$(…)`: copied there, installed, and checked live by itself. The
    // live run must go through `sh -c` with the written command (so it sees what the host sees)
    // and still succeed, and no command hidden in the path may run.
    let s = Sandbox::new();
    let dir = s.base.join("bins/$(touch PWNED)");
    fs::create_dir_all(&dir).unwrap();
    let bin = dir.join("sophia-hook");
    trust::exe::place_binary(&bin);
    let bin = bin.to_str().unwrap();
    let run = Command::new(bin)
        // The path itself (a project-scope default is the bare `sophia-hook`): its quoting is
        // what is tested.
        .args(["install", "--host", "codex", "--no-agents", "--binary", bin])
        .current_dir(&s.project)
        .env("HOME", &s.home)
        .env("XDG_STATE_HOME", s.home.join(".local/state"))
        .output()
        .unwrap();
    assert!(run.status.success(), "{run:?}");
    let doctor = Command::new(bin)
        .args(["doctor", "--host", "codex"])
        .current_dir(&s.project)
        .env("HOME", &s.home)
        .env("XDG_STATE_HOME", s.home.join(".local/state"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&doctor.stdout);
    assert!(
        text.contains("UserPromptSubmit: valid codex output"),
        "{text}"
    );
    assert!(
        !s.project.join("PWNED").exists(),
        "doctor ran the hidden command"
    );
    assert!(!s.base.join("PWNED").exists());
}

#[test]
fn doctor_never_reports_an_entry_that_the_shell_would_expand_as_fine() {
    // The double-quoted form older versions wrote: `sh -c` expands `$(…)` inside it. Doctor must
    // see what the host sees: not our exact command line, so not run, and not "valid".
    let s = Sandbox::new();
    let dir = s.base.join("bins/$(touch PWNED)");
    fs::create_dir_all(&dir).unwrap();
    let bin = dir.join("sophia-hook");
    trust::exe::place_binary(&bin);
    let bin = bin.to_str().unwrap();
    let line = |event: &str| format!("\"{bin}\" --host codex --event {event}");
    let doc = serde_json::json!({"hooks": {
        "SessionStart": [{"matcher": "startup|resume|clear", "hooks": [{"type": "command", "command": line("SessionStart"), "timeout": 10}]}],
        "UserPromptSubmit": [{"hooks": [{"type": "command", "command": line("UserPromptSubmit"), "timeout": 5}]}],
    }});
    trust::write(
        &s.project.join(".codex/hooks.json"),
        &serde_json::to_string_pretty(&doc).unwrap(),
    );
    let doctor = Command::new(bin)
        .args(["doctor", "--host", "codex"])
        .current_dir(&s.project)
        .env("HOME", &s.home)
        .env("XDG_STATE_HOME", s.home.join(".local/state"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&doctor.stdout);
    assert!(
        !text.contains("UserPromptSubmit: valid codex output"),
        "doctor called an entry the shell expands fine:\n{text}"
    );
    assert!(
        !s.project.join("PWNED").exists(),
        "doctor ran the hidden command"
    );
    // A reinstall replaces the old entry with the quoted one, which then checks out.
    let run = Command::new(bin)
        // The path itself (a project-scope default is the bare `sophia-hook`): its quoting is
        // what is tested.
        .args(["install", "--host", "codex", "--no-agents", "--binary", bin])
        .current_dir(&s.project)
        .env("HOME", &s.home)
        .env("XDG_STATE_HOME", s.home.join(".local/state"))
        .output()
        .unwrap();
    assert!(run.status.success(), "{run:?}");
    let written = fs::read_to_string(s.project.join(".codex/hooks.json")).unwrap();
    assert_eq!(
        written.matches("--event UserPromptSubmit").count(),
        1,
        "{written}"
    );
    assert!(!s.project.join("PWNED").exists());
}
