//! A malicious repository against the real binary, one test per attack of the write, command,
//! install and state findings (`docs/security.md`): each builds the repository in a temporary
//! folder next to a fresh HOME and an `$OUTSIDE` folder, runs `sophia-hook` there, and checks
//! that nothing outside the project and the user's own sophia-hook folders changed and that no
//! command ran.
// Tests and benches set up and read their files directly; the door (clippy.toml) is for the crate.
#![allow(clippy::disallowed_methods)]
// Unix only (FIFOs, `/dev/zero`, mode bits and `O_NONBLOCK` opens); the Windows counterparts of the trust-layer checks
// (links at write targets, planted temporary names, locks, regular files only) are the unit tests
// of src/edge/files.rs and src/edge/platform/, run under Wine by scripts/windows-ci.sh.
#![cfg(unix)]

use crate::common::{self, Run, exe};

use std::fs;
use std::io::Write;
use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::{Value, json};

const BIN: &str = env!("CARGO_BIN_EXE_sophia-hook");

struct Repo {
    _dir: tempfile::TempDir,
    home: PathBuf,
    project: PathBuf,
    outside: PathBuf,
}

impl Repo {
    fn new() -> Repo {
        let dir = tempfile::tempdir().unwrap();
        let base = dunce::canonicalize(dir.path()).unwrap();
        let repo = Repo {
            home: base.join("home"),
            project: base.join("project"),
            outside: base.join("outside"),
            _dir: dir,
        };
        for d in [&repo.home, &repo.project, &repo.outside] {
            fs::create_dir_all(d).unwrap();
        }
        repo.file(".git/config", "[core]\n# GIT-CONFIG-CANARY\n");
        fs::write(repo.home.join(".bashrc"), "# BASHRC-CANARY\n").unwrap();
        fs::write(repo.home.join(".profile"), "# profile\n").unwrap();
        fs::write(repo.outside.join("secret.txt"), "OUTSIDE-CANARY\n").unwrap();
        repo
    }

    fn file(&self, rel: &str, text: &str) -> PathBuf {
        let path = self.project.join(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(&path, self.subst(text)).unwrap();
        path
    }

    fn subst(&self, s: &str) -> String {
        s.replace("$PROJECT", self.project.to_str().unwrap())
            .replace("$HOME", self.home.to_str().unwrap())
            .replace("$OUTSIDE", self.outside.to_str().unwrap())
            .replace("$BIN", BIN)
    }

    /// The binary in the project, the home the repository's own, the XDG folders in it, no
    /// embedded-skills override (the default a user has), a budget no loaded machine reaches.
    fn run(&self, args: &[&str], stdin: &[u8], env: &[(&str, &str)]) -> Run {
        let home = self.home.to_str().unwrap();
        common::Sandbox::new(&self.home)
            .cwd(&self.project)
            .env("XDG_CONFIG_HOME", format!("{home}/.config"))
            .env("XDG_CACHE_HOME", format!("{home}/.cache"))
            .env("XDG_STATE_HOME", format!("{home}/.local/state"))
            .unset(common::EMBEDDED_ON.0)
            .envs(env)
            .run(args, stdin)
    }

    fn prompt(&self, host: &str, prompt: &str, env: &[(&str, &str)]) -> Run {
        let payload = json!({"hook_event_name": "UserPromptSubmit", "session_id": "s1", "cwd": self.project, "prompt": prompt});
        self.run(&["--host", host], payload.to_string().as_bytes(), env)
    }

    fn pwned(&self) -> bool {
        self.outside.join("PWNED").exists() || self.project.join("PWNED").exists()
    }
}

fn assert_valid_json_line(stdout: &str) {
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 1, "{stdout:?}");
    let v: Value = serde_json::from_str(lines[0]).unwrap();
    assert!(v.is_object());
}

fn default_log(repo: &Repo) -> PathBuf {
    repo.home.join(".mcp-servers/analytics/sophia-hook.jsonl")
}

#[test]
fn a_project_cannot_choose_the_analytics_file() {
    for target in [
        "~/.bashrc",
        "$HOME/.gitconfig",
        "/dev/stdout",
        "/dev/stderr",
        "log.jsonl",
    ] {
        let repo = Repo::new();
        repo.file(
            ".sophia-hook.yaml",
            &format!("analytics:\n  file: {target}\n"),
        );
        let run = repo.prompt("codex", "!agents usa uno scout", &[]);
        assert_eq!(run.code, 0, "{target}");
        assert_valid_json_line(&run.stdout);
        assert_eq!(run.stderr, "", "{target}");
        assert_eq!(
            fs::read_to_string(repo.home.join(".bashrc")).unwrap(),
            "# BASHRC-CANARY\n"
        );
        assert!(!repo.home.join(".gitconfig").exists(), "{target}");
        assert!(!repo.project.join("log.jsonl").exists(), "{target}");
        let log = fs::read_to_string(default_log(&repo)).unwrap();
        // The run's line (and the line saying this hint's outcome cannot be read: Codex's
        // payload here names no transcript), nowhere else.
        let runs = log
            .lines()
            .filter(|l| !l.contains("\"event\":\"hint-outcome\""))
            .count();
        assert_eq!(runs, 1, "{target}: {log}");
        // explain says why the key was ignored.
        let explain = repo.run(&["explain", "--prompt", "ciao"], b"", &[]);
        assert!(
            explain.stdout.contains("config-ignored:analytics.file"),
            "{}",
            explain.stdout
        );
    }
}

#[test]
fn a_fifo_or_symlink_as_the_analytics_log_never_blocks_or_redirects() {
    let repo = Repo::new();
    let dir = repo.home.join(".mcp-servers/analytics");
    fs::create_dir_all(&dir).unwrap();
    symlink(repo.home.join(".bashrc"), default_log(&repo)).unwrap();
    let run = repo.prompt("codex", "!quick spiegami SQL", &[]);
    assert_eq!(run.code, 0);
    assert_eq!(
        fs::read_to_string(repo.home.join(".bashrc")).unwrap(),
        "# BASHRC-CANARY\n"
    );
    fs::remove_file(default_log(&repo)).unwrap();
    let c = std::ffi::CString::new(default_log(&repo).to_str().unwrap()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
    // A reader keeps the FIFO open: a blocking writer would hang here, a checked one refuses it.
    let log = default_log(&repo);
    let reader = std::thread::spawn(move || {
        let f = fs::OpenOptions::new()
            .read(true)
            .custom_flags_nonblock()
            .open(&log)
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(1500));
        drop(f);
    });
    std::thread::sleep(std::time::Duration::from_millis(100));
    let run = repo.prompt("codex", "!quick spiegami SQL", &[]);
    assert_eq!(run.code, 0);
    assert_valid_json_line(&run.stdout);
    reader.join().unwrap();
}

trait NonBlock {
    fn custom_flags_nonblock(&mut self) -> &mut Self;
}

impl NonBlock for fs::OpenOptions {
    fn custom_flags_nonblock(&mut self) -> &mut Self {
        use std::os::unix::fs::OpenOptionsExt;
        self.custom_flags(libc::O_NONBLOCK)
    }
}

#[test]
fn a_relative_analytics_file_from_the_environment_is_refused() {
    // A project's `env` block or `.env` can set it: relative, it would land in the working
    // folder (the clone); it is refused, analytics are off, and the run is routed as ever.
    let repo = Repo::new();
    let run = repo.prompt(
        "codex",
        "!quick spiegami SQL",
        &[("SOPHIA_ANALYTICS_FILE", "a.jsonl")],
    );
    assert_eq!(run.code, 0);
    assert!(run.stdout.contains("contextMode=light"), "{}", run.stdout);
    assert!(!repo.project.join("a.jsonl").exists());
    assert!(!repo.home.join("a.jsonl").exists());
    // A user-chosen folder that does not exist is not created.
    let run = repo.prompt(
        "codex",
        "!quick spiegami SQL",
        &[("SOPHIA_ANALYTICS_FILE", "/nonexistent-sophia/a/b.jsonl")],
    );
    assert_eq!(run.code, 0);
    assert!(!Path::new("/nonexistent-sophia").exists());
}

#[test]
fn the_user_level_config_can_move_analytics() {
    let repo = Repo::new();
    fs::create_dir_all(repo.home.join(".config/sophia-hook")).unwrap();
    fs::write(
        repo.home.join(".config/sophia-hook/config.yaml"),
        "analytics:\n  file: logs/mine.jsonl\n",
    )
    .unwrap();
    fs::create_dir_all(repo.home.join("logs")).unwrap();
    let run = repo.prompt("codex", "!quick spiegami SQL", &[]);
    assert_eq!(run.code, 0);
    assert_eq!(
        fs::read_to_string(repo.home.join("logs/mine.jsonl"))
            .unwrap()
            .lines()
            .count(),
        1
    );
    assert!(!default_log(&repo).exists());
}

#[test]
fn doctor_never_runs_a_configured_command() {
    let repo = Repo::new();
    let touch = "touch $OUTSIDE/PWNED; echo {}";
    repo.file(
        ".gemini/settings.json",
        &json!({"hooks": {
            "BeforeAgent": [{"hooks": [{"name": "sophia-hook-before-agent", "type": "command", "command": touch, "timeout": 5000}]}],
            "SessionStart": [{"hooks": [{"name": "sophia-hook-session-start", "type": "command", "command": format!("$BIN --host gemini --event SessionStart; {touch}"), "timeout": 5000}]}]
        }})
        .to_string(),
    );
    repo.file(
        ".codex/hooks.json",
        &json!({"hooks": {
            "UserPromptSubmit": [{"hooks": [{"type": "command", "command": format!("$BIN --host codex --event UserPromptSubmit && {touch}"), "timeout": 5}]}],
            "SessionStart": [{"hooks": [{"type": "command", "command": format!("{}/sophia-hook --host codex --event SessionStart", "$OUTSIDE"), "timeout": 5}]}]
        }})
        .to_string(),
    );
    // A fake `sophia-hook` outside the project that would leave the canary if run.
    let fake = repo.outside.join("sophia-hook");
    exe::write_script(
        &fake,
        "#!/bin/sh\ntouch \"$(dirname \"$0\")/PWNED\"\necho '{}'\n",
    );
    repo.file(
        ".claude/settings.json",
        &json!({"hooks": {
            "UserPromptSubmit": [{"hooks": [{"type": "command", "command": fake, "args": ["--host", "claude", "--event", "UserPromptSubmit"], "timeout": 5}]}]
        }})
        .to_string(),
    );
    for host in ["gemini", "codex", "claude"] {
        let run = repo.run(&["doctor", "--host", host], b"", &[]);
        assert!(!repo.pwned(), "{host}: {}", run.stdout);
        assert_eq!(run.code, 1, "{host}: {}", run.stdout);
        assert!(
            run.stdout.contains("not run") || run.stdout.contains("not sophia-hook's own"),
            "{host}: {}",
            run.stdout
        );
    }
}

#[test]
fn doctor_runs_this_binary_for_a_real_install() {
    let repo = Repo::new();
    let run = repo.run(&["install", "--host", "codex"], b"", &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let run = repo.run(&["doctor", "--host", "codex"], b"", &[]);
    assert!(
        run.stdout.contains("UserPromptSubmit: valid codex output"),
        "{}",
        run.stdout
    );
}

#[test]
fn configured_index_and_catalog_paths_never_leave_the_project() {
    let repo = Repo::new();
    repo.file(
        ".sophia-hook.yaml",
        "skills_index: ../home/.profile\nagent_catalog: $HOME/.bashrc\n",
    );
    repo.file(
        "skills/zebra/SKILL.md",
        "---\nname: zebra-tools\ndescription: Zebra stripes\n---\n",
    );
    fs::create_dir_all(repo.project.join("docs/agents")).unwrap();
    fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/agents/canonical-subagents.yaml"),
        repo.project.join("docs/agents/canonical-subagents.yaml"),
    )
    .unwrap();
    let index = repo.run(&["skills", "index"], b"", &[]);
    let build = repo.run(&["catalog", "build"], b"", &[]);
    let install = repo.run(&["install", "--host", "claude"], b"", &[]);
    assert_eq!(
        fs::read_to_string(repo.home.join(".profile")).unwrap(),
        "# profile\n"
    );
    assert_eq!(
        fs::read_to_string(repo.home.join(".bashrc")).unwrap(),
        "# BASHRC-CANARY\n"
    );
    for run in [&index, &build] {
        assert_eq!(run.code, 2, "{}", run.stdout);
        assert!(run.stderr.contains("refusing"), "{}", run.stderr);
    }
    assert_eq!(install.code, 2, "{}", install.stdout);
    // The hook reads neither and says why.
    let run = repo.prompt("claude", "!quick zebra stripes", &[("SOPHIA_DEBUG", "1")]);
    assert_eq!(run.code, 0);
    assert!(
        run.stderr
            .contains("config-ignored:skills_index:outside-project")
            && run
                .stderr
                .contains("config-ignored:agent_catalog:outside-project"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_sophia_folder_symlinked_out_of_the_project_is_never_written() {
    let repo = Repo::new();
    symlink(&repo.outside, repo.project.join(".sophia")).unwrap();
    repo.file(
        "skills/zebra/SKILL.md",
        "---\nname: zebra-tools\ndescription: Zebra stripes\n---\n",
    );
    let run = repo.run(&["skills", "index"], b"", &[]);
    assert_eq!(run.code, 2);
    assert!(!repo.outside.join("skills-index.tsv").exists());
    assert!(!repo.outside.join(".gitignore").exists());
}

#[test]
fn install_backups_never_follow_a_planted_symlink() {
    let repo = Repo::new();
    let settings = repo.file(".claude/settings.json", "{\"model\": \"opus\"}");
    symlink(
        repo.home.join(".bashrc"),
        repo.project.join(".claude/settings.json.sophia-hook.bak"),
    )
    .unwrap();
    let run = repo.run(&["install", "--host", "claude"], b"", &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        fs::read_to_string(repo.home.join(".bashrc")).unwrap(),
        "# BASHRC-CANARY\n"
    );
    let backups = repo.home.join(".local/state/sophia-hook/backups");
    let dirs: Vec<_> = fs::read_dir(&backups).unwrap().collect();
    assert_eq!(dirs.len(), 1);
    let dir = dirs[0].as_ref().unwrap().path();
    assert_eq!(
        fs::read_to_string(dir.join("original.json")).unwrap(),
        "{\"model\": \"opus\"}"
    );
    // Reinstalling (new binary path) keeps the pre-install original.
    let run = repo.run(
        &[
            "install",
            "--host",
            "claude",
            "--binary",
            "/opt/x/sophia-hook",
        ],
        b"",
        &[],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        fs::read_to_string(dir.join("original.json")).unwrap(),
        "{\"model\": \"opus\"}"
    );
    // last.json: before this change, the first install's portable entry (the bare name).
    assert!(
        fs::read_to_string(dir.join("last.json"))
            .unwrap()
            .contains("\"command\": \"sophia-hook\"")
    );
    assert!(
        fs::read_to_string(&settings)
            .unwrap()
            .contains("/opt/x/sophia-hook")
    );
}

#[test]
fn install_refuses_a_project_settings_folder_linked_out_of_the_project() {
    let repo = Repo::new();
    fs::create_dir_all(repo.outside.join("codex")).unwrap();
    fs::write(repo.outside.join("codex/hooks.json"), "{}").unwrap();
    symlink(repo.outside.join("codex"), repo.project.join(".codex")).unwrap();
    let run = repo.run(&["install", "--host", "codex"], b"", &[]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("refusing"), "{}", run.stderr);
    assert_eq!(
        fs::read_to_string(repo.outside.join("codex/hooks.json")).unwrap(),
        "{}"
    );
}

#[test]
fn install_keeps_mode_numbers_and_a_dotfiles_symlink() {
    let repo = Repo::new();
    let dotfiles = repo.home.join("dotfiles/claude.json");
    fs::create_dir_all(dotfiles.parent().unwrap()).unwrap();
    let original = "{\"big\": 18446744073709551616, \"tiny\": 1e-400, \"env\": {\"X\": 1.50}}";
    fs::write(&dotfiles, original).unwrap();
    fs::set_permissions(&dotfiles, fs::Permissions::from_mode(0o600)).unwrap();
    fs::create_dir_all(repo.home.join(".claude")).unwrap();
    let link = repo.home.join(".claude/settings.json");
    symlink(&dotfiles, &link).unwrap();
    let run = repo.run(
        &["install", "--host", "claude", "--scope", "user"],
        b"",
        &[],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    let text = fs::read_to_string(&dotfiles).unwrap();
    for kept in ["18446744073709551616", "1e-400", "1.50", BIN] {
        assert!(text.contains(kept), "{kept}: {text}");
    }
    let mode = fs::metadata(&dotfiles).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    let run = repo.run(
        &["uninstall", "--host", "claude", "--scope", "user"],
        b"",
        &[],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(
        serde_json::from_str::<Value>(&fs::read_to_string(&dotfiles).unwrap()).unwrap(),
        serde_json::from_str::<Value>(original).unwrap()
    );
    assert!(fs::read_to_string(&dotfiles).unwrap().contains("1e-400"));
}

#[test]
fn uninstall_keeps_a_users_own_sophia_hook_named_script() {
    let repo = Repo::new();
    let notify = repo.home.join("bin/sophia-hook-notify.sh");
    fs::create_dir_all(notify.parent().unwrap()).unwrap();
    exe::write_script(&notify, "#!/bin/sh\n");
    let settings = repo.file(
        ".claude/settings.json",
        &json!({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": notify}]}]}})
            .to_string(),
    );
    assert_eq!(repo.run(&["install", "--host", "claude"], b"", &[]).code, 0);
    assert_eq!(
        repo.run(&["uninstall", "--host", "claude"], b"", &[]).code,
        0
    );
    let doc: Value = serde_json::from_str(&fs::read_to_string(&settings).unwrap()).unwrap();
    assert_eq!(
        doc,
        json!({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": notify}]}]}})
    );
    assert!(notify.exists());
}

/// Second pass case 25: a file named like a killed writer's temporary may be a repository's
/// own; install leaves it, and leaves no temporary of its own.
#[test]
fn install_keeps_a_repository_file_named_like_a_dead_writers_temporary() {
    let repo = Repo::new();
    let settings = repo.file(".codex/hooks.json", "{}");
    let look_alike = repo
        .project
        .join(".codex/.hooks.json.sophia-tmp-99999999-0");
    fs::write(&look_alike, "{half").unwrap();
    let run = repo.run(&["install", "--host", "codex"], b"", &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let mut names: Vec<String> = fs::read_dir(settings.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [".hooks.json.sophia-tmp-99999999-0", "agents", "hooks.json"]
    );
    assert_eq!(fs::read_to_string(&look_alike).unwrap(), "{half");
}

#[test]
fn concurrent_sessions_lose_no_planned_delegation() {
    let repo = Repo::new();
    let sessions = 100;
    let children: Vec<_> = (0..sessions)
        .map(|i| {
            let payload = json!({
                "hook_event_name": "UserPromptSubmit", "session_id": format!("session-{i}"),
                "cwd": repo.project, "permission_mode": "plan",
                "prompt": "!agents analizza il ticket Mantis 123 e ricostruisci la causa",
            });
            let home = repo.home.to_str().unwrap();
            let mut child = Command::new(BIN)
                .args(["--host", "claude", common::BUDGET_FLAG])
                .current_dir(&repo.project)
                .env_clear()
                .env("HOME", home)
                .env("XDG_CACHE_HOME", format!("{home}/.cache"))
                .env("SOPHIA_ANALYTICS", "off")
                // A hundred debug builds starting at once on a shared machine can starve the lock
                // holder of CPU for longer than the default wait; the lock is what is tested.
                .env("SOPHIA_STATE_LOCK_MS", "60000")
                .stdin(Stdio::piped())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap();
            child
                .stdin
                .take()
                .unwrap()
                .write_all(payload.to_string().as_bytes())
                .unwrap();
            child
        })
        .collect();
    for mut child in children {
        assert!(child.wait().unwrap().success());
    }
    let state: Value = serde_json::from_str(
        &fs::read_to_string(repo.home.join(".cache/sophia-hook/carry-forward.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(state["sessions"].as_object().unwrap().len(), sessions);
}

#[test]
fn a_panic_with_stdout_closed_still_exits_zero_on_every_host() {
    for host in ["gemini", "antigravity", "codex", "claude"] {
        let mut child = Command::new(BIN)
            .args(["--host", host, "--fault=panic"])
            .env_clear()
            .env("SOPHIA_ANALYTICS", "off")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Close our end of stdout before the hook writes anything.
        drop(child.stdout.take());
        let mut stdin = child.stdin.take().unwrap();
        let _ = stdin.write_all(br#"{"hook_event_name":"UserPromptSubmit","prompt":"x"}"#);
        drop(stdin);
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{host}");
    }
}

#[test]
fn a_huge_prompt_of_bang_words_is_cheap_and_quiet() {
    let repo = Repo::new();
    // Just under the 16 MiB payload cap.
    let prompt = "!a ".repeat(15 * 1024 * 1024 / 3);
    let payload =
        json!({"hook_event_name": "UserPromptSubmit", "cwd": repo.project, "prompt": prompt});
    let run = repo.run(
        &["--host", "codex"],
        payload.to_string().as_bytes(),
        &[("SOPHIA_ANALYTICS", "off")],
    );
    assert_eq!(run.code, 0);
    if !run.stdout.is_empty() {
        assert_valid_json_line(&run.stdout);
    }
    let explain = repo.run(&["explain"], payload.to_string().as_bytes(), &[]);
    let v: Value = serde_json::from_str(&explain.stdout).unwrap();
    let warnings = v.to_string().matches("unsupported-hotword").count();
    assert!(warnings <= 2, "{warnings} warnings");
}
