//! The tool subcommands as a user meets them (tests/it/binary.rs style: the real binary, stdin in,
//! stdout/stderr/exit code out; in-process only where the stream itself is the subject, such as a
//! closed pipe): clean stdout, exit codes 0/1/2, JSON for the checks, errors that are errors,
//! completions and man pages, and an uninstall that restores.
// Tests and benches set up and read their files directly; the door (clippy.toml) is for the crate.
#![allow(clippy::disallowed_methods)]

use crate::common;

use std::ffi::OsString;
use std::fs;
use std::io::Write;
use std::path::Path;

use common::{fixed_clock, run_binary};
use serde_json::Value;
use sophia_hook::edge::settings::Settings;

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir(dir.path().join(".git")).unwrap();
    dir
}

fn json(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: not JSON: {text:?}"))
}

/// A reader that went away: every write is a broken pipe.
struct ClosedPipe;

impl Write for ClosedPipe {
    fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
        Err(std::io::ErrorKind::BrokenPipe.into())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Err(std::io::ErrorKind::BrokenPipe.into())
    }
}

fn run_into(args: &[&str], stdout: &mut dyn Write, settings: &Settings) -> (u8, String) {
    let argv: Vec<OsString> = std::iter::once("sophia-hook")
        .chain(args.iter().copied())
        .map(OsString::from)
        .collect();
    let mut stderr = Vec::new();
    let code = sophia_hook::cli::run(
        argv,
        &mut &b""[..],
        stdout,
        &mut stderr,
        settings,
        &fixed_clock(),
    );
    (code, String::from_utf8(stderr).unwrap())
}

fn settings_for(home: &Path) -> Settings {
    let home = home.to_string_lossy().into_owned();
    Settings::from_lookup(|k| (k == "HOME").then(|| home.clone()))
}

#[test]
fn a_closed_pipe_is_not_an_error_and_never_stops_a_write_half_way() {
    let home = tempfile::tempdir().unwrap();
    let proj = project();
    let root = proj.path().to_str().unwrap();
    let settings = settings_for(home.path());
    let log = home.path().join("log.jsonl");
    fs::write(&log, "").unwrap();
    // Every subcommand that prints, into a pipe whose reader is gone: exit 0, nothing on stderr.
    for args in [
        &["stats", "--file", log.to_str().unwrap()][..],
        &["agents", "sync", "--host", "all", "--root", root],
        &["explain", "--prompt", "!quick hi"],
        &["completions", "bash"],
        &["man"],
        &["--help"],
        &["availability", "--root", root],
    ] {
        let (code, stderr) = run_into(args, &mut ClosedPipe, &settings);
        assert_eq!((code, stderr.as_str()), (0, ""), "{args:?}");
    }
    // agents sync wrote every file, not just the first.
    let written = ["codex", "claude", "gemini"]
        .iter()
        .map(|h| {
            fs::read_dir(proj.path().join(format!(".{h}/agents")))
                .unwrap()
                .count()
        })
        .sum::<usize>();
    assert_eq!(written, 15, "five roles for three hosts");
    // The real binary, its stdout closed before it writes.
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_sophia-hook"))
        .args(["explain"])
        .env_clear()
        .env("HOME", home.path())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let mut stdin = child.stdin.take().unwrap();
    stdin
        .write_all(br#"{"hook_event_name":"UserPromptSubmit","prompt":"!quick hi"}"#)
        .unwrap();
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).as_ref()
        ),
        (Some(0), "")
    );
}

#[test]
fn stdin_on_a_terminal_gets_a_hint_instead_of_a_wait() {
    struct NeverRead;
    impl std::io::Read for NeverRead {
        fn read(&mut self, _: &mut [u8]) -> std::io::Result<usize> {
            panic!("read a terminal")
        }
    }
    let settings = Settings {
        stdin_is_terminal: true,
        ..Settings::default()
    };
    for args in [&[][..], &["--host", "claude"], &["explain"]] {
        let argv: Vec<OsString> = std::iter::once("sophia-hook")
            .chain(args.iter().copied())
            .map(OsString::from)
            .collect();
        let (mut stdout, mut stderr) = (Vec::new(), Vec::new());
        let code = sophia_hook::cli::run(
            argv,
            &mut NeverRead,
            &mut stdout,
            &mut stderr,
            &settings,
            &fixed_clock(),
        );
        let stderr = String::from_utf8(stderr).unwrap();
        assert_eq!((code, stdout.len()), (2, 0), "{args:?}");
        assert!(stderr.contains("stdin is a terminal"), "{args:?}: {stderr}");
    }
    // --prompt needs no stdin.
    let (code, _) = run_into(&["explain", "--prompt", "hi"], &mut Vec::new(), &settings);
    assert_eq!(code, 0);
}

#[test]
fn completions_for_every_shell_and_man_pages() {
    let home = tempfile::tempdir().unwrap();
    for (shell, marker) in [
        ("bash", "complete -F _sophia__hook"),
        ("zsh", "#compdef sophia-hook"),
        ("fish", "complete -c sophia-hook"),
        ("elvish", "sophia-hook"),
        ("powershell", "Register-ArgumentCompleter"),
    ] {
        let run = run_binary(&["completions", shell], b"", home.path(), &[]);
        assert_eq!(run.code, 0, "{shell}: {}", run.stderr);
        assert!(run.stdout.contains(marker), "{shell}");
        assert!(
            run.stdout.contains("uninstall"),
            "{shell} completes subcommands"
        );
    }
    let man = run_binary(&["man"], b"", home.path(), &[]);
    assert_eq!(man.code, 0);
    assert!(man.stdout.contains(".TH sophia-hook 1") && man.stdout.contains("install"));
    let dir = home.path().join("man1");
    fs::create_dir(&dir).unwrap();
    let run = run_binary(
        &["man", "--out", dir.to_str().unwrap()],
        b"",
        home.path(),
        &[],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let page = fs::read_to_string(dir.join("sophia-hook-install.1")).unwrap();
    assert!(page.contains(".TH sophia-hook-install 1") && page.contains("\\-\\-host"));
    let missing = run_binary(
        &["man", "--out", "/nonexistent/man1"],
        b"",
        home.path(),
        &[],
    );
    assert_eq!(missing.code, 2);
}

#[test]
fn the_checks_print_json_and_exit_0_1_or_2() {
    let home = tempfile::tempdir().unwrap();
    let proj = project();
    let root = proj.path().to_str().unwrap();
    let run = |args: &[&str]| run_binary(args, b"", home.path(), &[]);
    // Nothing installed: agents check fails (1) and says why.
    let check = run(&["agents", "check", "--root", root, "--json"]);
    assert_eq!(check.code, 1, "{}", check.stderr);
    let value = json(&check.stdout);
    assert_eq!(value["ok"], false);
    assert!(
        value["message"]
            .as_str()
            .unwrap()
            .contains("nothing to check")
    );
    // Codex and Claude installed: only they are checked, and they pass; Gemini CLI and Copilot
    // CLI are skipped.
    for host in ["codex", "claude"] {
        let install = run(&["install", "--host", host, "--root", root]);
        assert_eq!(install.code, 0, "{}", install.stderr);
    }
    let check = run(&["agents", "check", "--root", root, "--json"]);
    assert_eq!(check.code, 0, "{}", check.stdout);
    let value = json(&check.stdout);
    assert_eq!(value["checked"], serde_json::json!(["codex", "claude"]));
    assert_eq!(value["skipped"], serde_json::json!(["gemini", "copilot"]));
    assert_eq!(value["files"].as_array().unwrap().len(), 10);
    let text = run(&["agents", "check", "--root", root]);
    assert_eq!(text.code, 0);
    assert!(
        text.stdout.contains("skipped gemini, copilot"),
        "{}",
        text.stdout
    );
    assert_eq!(
        run(&["agents", "check", "--root", root, "--host", "all"]).code,
        1
    );
    // doctor --json: one object, exit 1 when a check fails (codex is not trusted here).
    let doctor = run(&["doctor", "--root", root, "--json"]);
    let value = json(&doctor.stdout);
    let failed = value["checks"]
        .as_array()
        .unwrap()
        .iter()
        .any(|c| c["status"] == "fail");
    assert_eq!(value["ok"], !failed);
    assert_eq!(doctor.code, if failed { 1 } else { 0 });
    let claude = run(&["doctor", "--root", root, "--host", "claude", "--json"]);
    assert_eq!(
        (claude.code, json(&claude.stdout)["ok"].clone()),
        (0, Value::from(true)),
        "{}",
        claude.stdout
    );
    // availability --json.
    let avail = run(&["availability", "--root", root, "--json"]);
    assert_eq!(avail.code, 0, "{}", avail.stderr);
    let value = json(&avail.stdout);
    assert_eq!(
        value["agents"]["code_reviewer"]["hosts"]["claude"],
        "configured"
    );
    assert_eq!(
        value["agents"]["code_reviewer"]["hosts"]["gemini"],
        "unknown"
    );
    // catalog check: a readable reason, exit 1; --json says the same.
    common::copy_canonical_source(proj.path());
    let missing = run(&["catalog", "check", "--root", root]);
    assert_eq!(missing.code, 1);
    assert!(
        missing
            .stderr
            .contains("there is no generated catalog; run `sophia-hook catalog build`"),
        "{}",
        missing.stderr
    );
    let missing = run(&["catalog", "check", "--root", root, "--json"]);
    assert_eq!(
        (missing.code, json(&missing.stdout)["reason"].clone()),
        (1, Value::from("agent-catalog-missing"))
    );
    assert_eq!(run(&["catalog", "build", "--root", root]).code, 0);
    let fresh = run(&["catalog", "check", "--root", root, "--json"]);
    assert_eq!(
        (fresh.code, json(&fresh.stdout)["ok"].clone()),
        (0, Value::from(true))
    );
    // Could not run: 2.
    for args in [
        &["doctor", "--root", "/nonexistent/project"][..],
        &["agents", "check", "--root", "/nonexistent/project"],
        &["catalog", "check", "--root", "/nonexistent/project"],
        &["eval", "/nonexistent/cases.jsonl"],
    ] {
        let run = run(args);
        assert_eq!(run.code, 2, "{args:?}");
        assert!(
            run.stderr.starts_with("sophia-hook: error: "),
            "{args:?}: {}",
            run.stderr
        );
    }
}

#[test]
fn named_files_and_folders_that_do_not_exist_are_errors() {
    let home = tempfile::tempdir().unwrap();
    let proj = project();
    let root = proj.path().to_str().unwrap();
    let run = |args: &[&str]| run_binary(args, b"{}", home.path(), &[]);
    for (args, says) in [
        (&["stats", "--file", "missing.jsonl"][..], "no such file"),
        (
            &["report", "--root", root, "--file", "/nonexistent.jsonl"],
            "no such file",
        ),
        (
            &["doctor", "--root", "/nonexistent/p"],
            "--root /nonexistent/p: no such folder",
        ),
        (
            &["explain", "--cwd", "/nonexistent/p"],
            "--cwd /nonexistent/p: no such folder",
        ),
        (
            &["install", "--host", "claude", "--root", "/nonexistent/p"],
            "no such folder",
        ),
    ] {
        let run = run(args);
        assert_eq!(run.code, 2, "{args:?}: {}", run.stdout);
        assert!(run.stderr.contains(says), "{args:?}: {}", run.stderr);
    }
    let out = home.path().join("nope/x/r.html");
    let report = run(&["report", "--root", root, "--out", out.to_str().unwrap()]);
    assert_eq!(report.code, 2);
    assert!(
        report.stderr.contains("does not exist"),
        "{}",
        report.stderr
    );
    assert!(!home.path().join("nope").exists(), "no folder was created");
    // The default analytics log may be missing: that is an empty summary, not an error.
    assert_eq!(run(&["stats"]).code, 0);
}

#[test]
fn stats_and_report_read_since_the_same_way() {
    let home = tempfile::tempdir().unwrap();
    let log = home.path().join("log.jsonl");
    fs::write(&log, "").unwrap();
    for since in [
        "7d",
        "36h",
        "2w",
        "90m",
        "2026-11-01",
        "2026-11-01T10:00:00Z",
    ] {
        let run = run_binary(
            &["stats", "--since", since, "--file", log.to_str().unwrap()],
            b"",
            home.path(),
            &[],
        );
        assert_eq!(run.code, 0, "{since}: {}", run.stderr);
    }
    let bad = run_binary(
        &[
            "stats",
            "--since",
            "yesterday",
            "--file",
            log.to_str().unwrap(),
        ],
        b"",
        home.path(),
        &[],
    );
    assert_eq!(bad.code, 2);
    assert!(
        bad.stderr.contains("expected a duration like 7d"),
        "{}",
        bad.stderr
    );
}

/// `stats` streams the log through the report's reader: a line that is not UTF-8 and a line over
/// the reader's 64 KiB are counted as corrupt and the runs around them are counted (the whole-file
/// read before refused the first and held the second in memory); a CRLF line reads as a line.
#[test]
fn stats_streams_the_log_as_the_report_does() {
    let home = tempfile::tempdir().unwrap();
    let log = home.path().join("log.jsonl");
    let run_line = r#"{"ts":"2026-11-29T10:00:00.000Z","event":"UserPromptSubmit","host":"codex","outcome":"injected","contextMode":"full","subagentMode":"off","detectedHotwords":[],"recommendedAgents":[],"carryForward":false,"skills":[],"durationUs":1000}"#;
    let mut bytes = Vec::new();
    bytes.extend_from_slice(run_line.as_bytes());
    bytes.extend_from_slice(b"\n\xff\xfe not UTF-8\n");
    bytes.extend_from_slice(format!("{{\"pad\":\"{}\"}}\n", "x".repeat(70 * 1024)).as_bytes());
    bytes.extend_from_slice(run_line.as_bytes());
    bytes.extend_from_slice(b"\r\n");
    fs::write(&log, &bytes).unwrap();
    let run = run_binary(
        &["stats", "--json", "--file", log.to_str().unwrap()],
        b"",
        home.path(),
        &[],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let stats = json(&run.stdout);
    assert_eq!(stats["runs"], 2, "{stats}");
    assert_eq!(stats["corruptLines"], 2, "{stats}");
}

/// `stats` reads the hint-outcome lines (issue 46) beside the runs: `--json` has
/// `hintOutcomes` with its camelCase fields, the text its section; they are not runs, a hint-outcome
/// line that does not hold together is corrupt, and a log with no such line prints no section.
#[test]
fn stats_shows_whether_the_advice_was_followed() {
    let home = tempfile::tempdir().unwrap();
    let log = home.path().join("log.jsonl");
    let run_line = r#"{"ts":"2026-11-29T10:00:00.000Z","event":"UserPromptSubmit","host":"claude","outcome":"injected","contextMode":"full","subagentMode":"off","detectedHotwords":[],"recommendedAgents":[],"carryForward":false,"skills":["pdf"],"durationUs":1000}"#;
    let hints = [
        r#"{"ts":"2026-11-29T10:01:00Z","event":"hint-outcome","host":"claude","hint":"skill","named":"pdf","outcome":"followed"}"#,
        r#"{"ts":"2026-11-29T10:02:00Z","event":"hint-outcome","host":"claude","hint":"skill","named":"pdf","outcome":"ignored"}"#,
        r#"{"ts":"2026-11-29T10:03:00Z","event":"hint-outcome","host":"codex","hint":"skill","outcome":"unnamed:xlsx"}"#,
        r#"{"ts":"2026-11-29T10:04:00Z","event":"hint-outcome","host":"copilot","hint":"delegation","outcome":"not-spawned"}"#,
        r#"{"ts":"2026-11-29T10:05:00Z","event":"hint-outcome","host":"gemini","outcome":"unknown","reason":"host-no-transcript"}"#,
        r#"{"ts":"2026-11-29T10:06:00Z","event":"hint-outcome","host":"gemini","outcome":"unknown"}"#,
    ];
    let stats = |text: &str, extra: &[&str]| {
        fs::write(&log, text).unwrap();
        let mut args = vec!["stats", "--file", log.to_str().unwrap()];
        args.extend_from_slice(extra);
        let run = run_binary(&args, b"", home.path(), &[]);
        assert_eq!(run.code, 0, "{}", run.stderr);
        run.stdout
    };
    let text = format!("{run_line}\n{}\n", hints.join("\n"));
    let out = json(&stats(&text, &["--json"]));
    assert_eq!(
        (&out["runs"], &out["corruptLines"]),
        (&Value::from(1), &Value::from(1))
    );
    let h = &out["hintOutcomes"];
    assert_eq!(h["lines"], 5, "{h}");
    assert_eq!(
        h["byHost"]["claude"]["skillHints"],
        serde_json::json!({"named": 2, "followed": 1, "other": 0, "ignored": 1, "followedRate": 0.5})
    );
    assert_eq!(h["overall"]["loadedNotNamed"]["xlsx"], 1);
    assert_eq!(h["byHost"]["copilot"]["notSpawned"], 1);
    assert_eq!(h["byHost"]["copilot"]["spawnedRate"], 0.0);
    assert_eq!(h["byHost"]["gemini"]["unknown"]["host-no-transcript"], 1);
    assert_eq!(h["bySkill"]["pdf"]["named"], 2);
    let plain = stats(&text, &[]);
    assert!(
        plain.contains("was the advice followed? (5 hint-outcome lines)"),
        "{plain}"
    );
    assert!(
        plain.contains("    gemini host-no-transcript            1\n"),
        "{plain}"
    );
    // No hint-outcome line: the fields are there, empty, and the text has no section.
    let out = json(&stats(&format!("{run_line}\n"), &["--json"]));
    assert_eq!(out["hintOutcomes"]["lines"], 0);
    assert_eq!(out["hintOutcomes"]["byHost"], serde_json::json!({}));
    assert_eq!(
        out["hintOutcomes"]["overall"]["skillHints"]["followedRate"],
        Value::Null
    );
    let plain = stats(&format!("{run_line}\n"), &[]);
    assert!(!plain.contains("advice"), "{plain}");
}

/// `status`'s last run per host comes from the same streaming summary of the log as `stats`:
/// whatever else the log holds (each kind of bad line), the latest run of each host is shown, by
/// time and not by where it sits in the file. Before, status read the log whole as text, so one
/// line that was not UTF-8 (or a log over the cap) hid every host's last run.
#[test]
fn status_reads_the_last_run_from_the_one_summary_of_the_log() {
    let run_line = |ts: &str, host: &str| {
        format!(
            r#"{{"ts":"{ts}","event":"UserPromptSubmit","host":"{host}","outcome":"injected","contextMode":"full","subagentMode":"off","detectedHotwords":[],"recommendedAgents":[],"carryForward":false,"skills":[],"durationUs":1000}}"#
        )
    };
    let bad_lines: [(&str, Vec<u8>); 5] = [
        ("not UTF-8", b"\xff\xfe not UTF-8".to_vec()),
        (
            "over the reader's cap",
            format!("{{\"pad\":\"{}\"}}", "x".repeat(70 * 1024)).into_bytes(),
        ),
        ("not JSON", b"{\"ts\":".to_vec()),
        (
            "not a run",
            br#"{"ts":"2026-12-31T00:00:00.000Z","host":"codex"}"#.to_vec(),
        ),
        ("blank", b"   ".to_vec()),
    ];
    for (kind, bad) in bad_lines {
        let home = tempfile::tempdir().unwrap();
        let log = home.path().join("log.jsonl");
        let mut bytes = Vec::new();
        for line in [
            run_line("2026-11-29T10:00:00.000Z", "codex").into_bytes(),
            bad.clone(),
            run_line("2026-11-28T09:00:00.000Z", "codex").into_bytes(),
            run_line("2026-11-30T08:00:00.000Z", "claude").into_bytes(),
        ] {
            bytes.extend_from_slice(&line);
            bytes.push(b'\n');
        }
        fs::write(&log, &bytes).unwrap();
        let run = run_binary(
            &["status", "--json"],
            b"",
            home.path(),
            &[("SOPHIA_ANALYTICS_FILE", log.to_str().unwrap())],
        );
        assert_eq!(run.code, 0, "{kind}: {}", run.stderr);
        let rows = json(&run.stdout)["hosts"].as_array().unwrap().clone();
        let last = |host: &str| {
            rows.iter()
                .find(|r| r["host"] == host)
                .map(|r| r["lastRun"].clone())
                .unwrap()
        };
        assert_eq!(last("codex"), "2026-11-29T10:00:00.000Z", "{kind}");
        assert_eq!(last("claude"), "2026-11-30T08:00:00.000Z", "{kind}");
        assert_eq!(last("gemini"), Value::Null, "{kind}");
    }
}

#[test]
fn install_dry_run_prints_a_diff_of_valid_json_and_warnings_go_to_stderr() {
    let home = tempfile::tempdir().unwrap();
    let proj = project();
    let root = proj.path().to_str().unwrap();
    for host in ["codex", "claude", "gemini", "antigravity"] {
        let run = run_binary(
            &[
                "install",
                "--host",
                host,
                "--root",
                root,
                "--dry-run",
                "--binary",
                // An absolute path on this platform (on Windows a path needs its drive).
                if cfg!(windows) {
                    r"C:\my tools\sophia-hook.exe"
                } else {
                    "/opt/my tools/sophia-hook"
                },
            ],
            b"",
            home.path(),
            &[],
        );
        assert_eq!(run.code, 0, "{host}: {}", run.stderr);
        // A new file: three header lines, then every line added.
        let file: String = run
            .stdout
            .lines()
            .skip(3)
            .map(|l| format!("{}\n", l.strip_prefix('+').unwrap_or_else(|| panic!("{l}"))))
            .collect();
        json(&file);
        assert!(
            run.stderr
                .contains("warning: the binary path contains spaces"),
            "{host}: {}",
            run.stderr
        );
    }
}

#[test]
fn uninstall_restores_the_folders_the_backup_and_the_manifest() {
    let home = tempfile::tempdir().unwrap();
    let proj = project();
    let root = proj.path().to_str().unwrap();
    let manifest = home.path().join(".mcp-servers/agent-availability.json");
    let run = |args: &[&str]| run_binary(args, b"", home.path(), &[]);
    let before: Vec<_> = fs::read_dir(proj.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    for host in ["codex", "claude", "gemini", "antigravity"] {
        let install = run(&["install", "--host", host, "--root", root]);
        assert_eq!(install.code, 0, "{host}: {}", install.stderr);
    }
    // install created the files: the backup records that there was none, not our own content.
    let backups = home.path().join(".local/state/sophia-hook/backups");
    for dir in fs::read_dir(&backups).unwrap() {
        let dir = dir.unwrap().path();
        assert!(
            dir.join("original.absent").exists(),
            "{}",
            dir.to_string_lossy()
        );
        assert!(
            !dir.join("original.json").exists(),
            "{}",
            dir.to_string_lossy()
        );
    }
    let configured = |host: &str| -> usize {
        let value = json(&fs::read_to_string(&manifest).unwrap());
        value["hosts"][host]
            .as_object()
            .map_or(0, |m| m.values().filter(|v| *v == "configured").count())
    };
    // A project-scope install never writes the machine-wide manifest (docs/security.md, I3).
    assert!(
        !manifest.exists(),
        "project scope leaves global state alone"
    );
    for host in ["codex", "claude", "gemini", "antigravity"] {
        let uninstall = run(&["uninstall", "--host", host, "--root", root]);
        assert_eq!(uninstall.code, 0, "{host}: {}", uninstall.stderr);
    }
    // The user's own definitions do: uninstall at user scope makes the manifest forget them.
    for host in ["codex", "claude", "gemini"] {
        let install = run(&["install", "--host", host, "--scope", "user", "--root", root]);
        assert_eq!(install.code, 0, "{host}: {}", install.stderr);
        assert_eq!(
            configured(host),
            5,
            "{host}: user-scope roles are configured"
        );
    }
    for host in ["codex", "claude", "gemini"] {
        let uninstall = run(&[
            "uninstall",
            "--host",
            host,
            "--scope",
            "user",
            "--root",
            root,
        ]);
        assert_eq!(uninstall.code, 0, "{host}: {}", uninstall.stderr);
        if host == "gemini" {
            // The last one: the manifest install created goes with it.
            assert!(!manifest.exists(), "{host}: {}", uninstall.stdout);
            continue;
        }
        assert_eq!(
            configured(host),
            0,
            "{host}: the manifest forgets its roles"
        );
    }
    let after: Vec<_> = fs::read_dir(proj.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(after, before, "the empty host folders are gone");
    // The restore points went with the uninstall that spent them.
    for dir in fs::read_dir(&backups).unwrap() {
        let dir = dir.unwrap().path();
        for name in ["original.absent", "original.json"] {
            assert!(!dir.join(name).exists(), "{}", dir.to_string_lossy());
        }
    }
    // A folder with the user's own file in it stays.
    fs::create_dir_all(proj.path().join(".claude")).unwrap();
    fs::write(proj.path().join(".claude/notes.md"), "mine").unwrap();
    assert_eq!(
        run(&["install", "--host", "claude", "--root", root]).code,
        0
    );
    assert_eq!(
        run(&["uninstall", "--host", "claude", "--root", root]).code,
        0
    );
    assert_eq!(
        fs::read_to_string(proj.path().join(".claude/notes.md")).unwrap(),
        "mine"
    );
    assert!(!proj.path().join(".claude/agents").exists());
}

/// Runs `sophia-hook ARGS` with its stdin, stdout and stderr on a pseudo-terminal (util-linux
/// `script`); `None` where `script` is missing.
fn on_a_terminal(args: &str, env: &[(&str, &str)]) -> Option<(i32, String)> {
    let bin = env!("CARGO_BIN_EXE_sophia-hook");
    let mut cmd = std::process::Command::new("script");
    cmd.args(["-qec", &format!("{bin} {args}"), "/dev/null"])
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", std::env::temp_dir())
        .stdin(std::process::Stdio::null());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().ok()?;
    Some((
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    ))
}

#[test]
fn on_a_real_terminal_clap_keeps_its_colours_and_hook_mode_does_not_wait() {
    let Some((code, colour)) = on_a_terminal("--bogus", &[]) else {
        eprintln!("skipped: no `script` on this machine");
        return;
    };
    assert_eq!(code, 1);
    assert!(
        colour.contains("\u{1b}[") && colour.contains("--bogus"),
        "{colour:?}"
    );
    let (_, plain) = on_a_terminal("--bogus", &[("NO_COLOR", "1")]).unwrap();
    assert!(
        !plain.contains('\u{1b}') && plain.contains("--bogus"),
        "{plain:?}"
    );
    // Hook mode and explain with the terminal as stdin: a hint and exit 2, at once.
    for args in ["", "--host claude", "explain"] {
        let (code, out) = on_a_terminal(args, &[]).unwrap();
        assert_eq!(code, 2, "{args}: {out}");
        assert!(out.contains("stdin is a terminal"), "{args}: {out}");
    }
}

#[test]
fn skills_index_warns_on_stderr_and_reports_on_stdout() {
    let proj = project();
    for (name, text) in [
        (
            "invoice",
            "---\nname: invoice-expert\ndescription: Electronic invoices\n---\n",
        ),
        ("broken", "---\nname: [oops\n---\n"),
    ] {
        let dir = proj.path().join("skills").join(name);
        fs::create_dir_all(&dir).unwrap();
        fs::write(dir.join("SKILL.md"), text).unwrap();
    }
    let root = proj.path().to_str().unwrap();
    let run = run_binary(
        &["skills", "index", "--root", root, "--host", "codex"],
        b"",
        proj.path(),
        &[],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout.starts_with("codex: wrote ") && !run.stdout.contains("warning"),
        "{}",
        run.stdout
    );
    assert!(
        run.stderr.contains("sophia-hook: warning: codex: "),
        "{}",
        run.stderr
    );
}
