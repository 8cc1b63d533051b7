//! Helpers shared by the integration tests: run the CLI in-process (deterministic clock, no
//! analytics) or the real binary (for exit codes, panics and the environment).

#![allow(dead_code)]

pub mod exe;

use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use chrono::DateTime;
use sophia_hook::clock::FixedClock;
use sophia_hook::edge::settings::Settings;

pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

pub fn fixed_clock() -> FixedClock {
    FixedClock {
        now: DateTime::parse_from_rfc3339("2026-11-29T12:00:00Z")
            .unwrap()
            .to_utc(),
        elapsed: Duration::from_micros(250),
    }
}

/// The rule tests measure the embedded catalog's routing, as `eval` does, so the helpers here
/// run with every embedded skill nameable (`SOPHIA_EMBEDDED_SKILLS=on`); what a machine without
/// the Sophia MCP servers sees (the default, `auto`) is `tests/it/grounding.rs`'s.
pub const EMBEDDED_ON: (&str, &str) = ("SOPHIA_EMBEDDED_SKILLS", "on");

/// [`Settings::default`] with [`EMBEDDED_ON`].
pub fn test_settings() -> Settings {
    Settings::from_lookup(|name| (name == EMBEDDED_ON.0).then(|| EMBEDDED_ON.1.to_owned()))
}

/// Runs `sophia-hook ARGS` in-process with `stdin`, no analytics and a fixed clock.
pub fn run_in_process(args: &[&str], stdin: &[u8]) -> Run {
    run_in_process_with(args, stdin, &test_settings())
}

pub fn run_in_process_with(args: &[&str], stdin: &[u8], settings: &Settings) -> Run {
    let argv: Vec<OsString> = std::iter::once("sophia-hook")
        .chain(args.iter().copied())
        .map(OsString::from)
        .collect();
    let mut input = stdin;
    let mut stdout = Vec::new();
    let mut stderr = Vec::new();
    let code = sophia_hook::cli::run(
        argv,
        &mut input,
        &mut stdout,
        &mut stderr,
        settings,
        &fixed_clock(),
    );
    Run {
        code: i32::from(code),
        stdout: String::from_utf8(stdout).expect("stdout is UTF-8"),
        stderr: String::from_utf8(stderr).expect("stderr is UTF-8"),
    }
}

/// A time budget no test machine reaches: binary tests assert skill and agent lines, which a
/// degraded run (over the 100 ms default budget, on a loaded machine) would leave out. It is
/// given as the `--time-budget-ms` flag ([`BUDGET_FLAG`]): `SOPHIA_TIME_BUDGET_MS`, which a
/// repository can set for a host's hooks, is clamped to 150 ms.
pub const TEST_TIME_BUDGET_MS: &str = "600000";
/// [`TEST_TIME_BUDGET_MS`] as the hook-mode flag.
pub const BUDGET_FLAG: &str = "--time-budget-ms=600000";

/// `args` with [`BUDGET_FLAG`] added when they run hook mode (no subcommand, no `--help` or
/// `--version`): tools take no budget, and their usage must stay as a user types it.
pub fn with_budget_flag(args: &[&str]) -> Vec<String> {
    let argv: Vec<OsString> = std::iter::once("sophia-hook")
        .chain(args.iter().copied())
        .map(OsString::from)
        .collect();
    let hook_mode = !sophia_hook::commands::hook::is_tool_invocation(&argv)
        && !args.iter().any(|a| {
            matches!(*a, "--help" | "-h" | "--version" | "-V") || a.starts_with("--time-budget-ms")
        });
    // First: after a flag that takes a value it would be read as that value.
    hook_mode
        .then(|| BUDGET_FLAG.to_owned())
        .into_iter()
        .chain(args.iter().map(|a| (*a).to_owned()))
        .collect()
}

/// Runs the real binary with `args`, `stdin` and extra environment variables. HOME points to
/// `home` so nothing touches the developer's real files; the time budget is
/// [`TEST_TIME_BUDGET_MS`] unless `env` sets `SOPHIA_TIME_BUDGET_MS`.
pub fn run_binary(args: &[&str], stdin: &[u8], home: &Path, env: &[(&str, &str)]) -> Run {
    run_binary_in(args, stdin, home, &std::env::current_dir().unwrap(), env)
}

/// [`run_binary`] in the working folder `cwd`.
pub fn run_binary_in(
    args: &[&str],
    stdin: &[u8],
    home: &Path,
    cwd: &Path,
    env: &[(&str, &str)],
) -> Run {
    Sandbox::new(home).cwd(cwd).envs(env).run(args, stdin)
}

/// The one way the tests run the real binary: a clean environment (`HOME` the test's own,
/// nothing inherited), `PATH` with the binary's folder first ([`path_with_binary`]), the time
/// budget [`TEST_TIME_BUDGET_MS`] and [`EMBEDDED_ON`] unless changed, stdin written from another
/// thread (the hook may stop reading early), the start retried only for Wine's spurious error.
/// Each test file's own runner is this with its settings.
pub struct Sandbox {
    home: PathBuf,
    cwd: PathBuf,
    env: Vec<(OsString, OsString)>,
    /// Hook-mode runs get [`BUDGET_FLAG`] (`unset("SOPHIA_TIME_BUDGET_MS")` or setting that
    /// variable: the binary's own budget applies).
    budget_flag: bool,
}

impl Sandbox {
    pub fn new(home: &Path) -> Sandbox {
        Sandbox {
            home: home.to_path_buf(),
            cwd: std::env::current_dir().unwrap(),
            env: vec![
                ("PATH".into(), path_with_binary()),
                (EMBEDDED_ON.0.into(), EMBEDDED_ON.1.into()),
            ],
            budget_flag: true,
        }
    }

    /// The working folder.
    pub fn cwd(mut self, cwd: &Path) -> Sandbox {
        self.cwd = cwd.to_path_buf();
        self
    }

    /// Sets a variable (a later value of the same name wins).
    pub fn env(mut self, name: impl Into<OsString>, value: impl Into<OsString>) -> Sandbox {
        let name = name.into();
        if name == "SOPHIA_TIME_BUDGET_MS" {
            self.budget_flag = false;
        }
        self.env.retain(|(k, _)| *k != name);
        self.env.push((name, value.into()));
        self
    }

    pub fn envs(self, env: &[(&str, &str)]) -> Sandbox {
        env.iter().fold(self, |s, (k, v)| s.env(*k, *v))
    }

    /// Leaves a variable unset (the binary's default applies).
    pub fn unset(mut self, name: &str) -> Sandbox {
        if name == "SOPHIA_TIME_BUDGET_MS" {
            self.budget_flag = false;
        }
        self.env.retain(|(k, _)| k != name);
        self
    }

    /// Runs `sophia-hook ARGS` with `stdin`.
    pub fn run(&self, args: &[&str], stdin: &[u8]) -> Run {
        run_command(self.command(args), stdin)
    }

    /// The command [`Sandbox::run`] starts, for a test that must set something more before it
    /// starts (a umask, a resource limit) and then [`run_command`]s it.
    pub fn command(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_sophia-hook"));
        match self.budget_flag {
            true => cmd.args(with_budget_flag(args)),
            false => cmd.args(args),
        };
        cmd.current_dir(&self.cwd)
            .env_clear()
            .env("HOME", &self.home)
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        cmd
    }
}

/// Starts a [`Sandbox::command`], writes `stdin` from another thread (the hook may stop reading
/// early, over the cap: a broken pipe is expected then) and waits for its output.
pub fn run_command(mut cmd: Command, stdin: &[u8]) -> Run {
    let mut child = spawn(&mut cmd);
    let mut child_stdin = child.stdin.take().unwrap();
    let input = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = child_stdin.write_all(&input);
    });
    let out = child.wait_with_output().expect("wait for sophia-hook");
    writer.join().unwrap();
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8(out.stdout).expect("stdout is UTF-8"),
        stderr: String::from_utf8(out.stderr).expect("stderr is UTF-8"),
    }
}

/// Starts `cmd`. Under Wine (the Windows step of `.ci/run`), `CreateProcess` now and then fails
/// with ERROR_INTERNAL_ERROR (1359) when many children start at once — seen once in
/// `faults::hooks_never_see_a_torn_catalog_while_it_is_rebuilt`, nine starts in flight. That is
/// the emulator refusing to start a process, not the binary under test doing anything, so it
/// alone is tried again, a few times with a pause; every other error fails the test.
fn spawn(cmd: &mut Command) -> std::process::Child {
    const WINE_INTERNAL_ERROR: i32 = 1359;
    let mut tries = 0;
    loop {
        match cmd.spawn() {
            Ok(child) => return child,
            Err(e)
                if cfg!(windows) && e.raw_os_error() == Some(WINE_INTERNAL_ERROR) && tries < 5 =>
            {
                tries += 1;
                std::thread::sleep(std::time::Duration::from_millis(200 * tries));
            }
            Err(e) => panic!("spawn sophia-hook: {e:?}"),
        }
    }
}

/// `PATH` with the folder of the binary under test first, as on a machine where sophia-hook is
/// installed: a project-scope `install` names the bare `sophia-hook` and requires that it
/// resolves there to the running binary.
pub fn path_with_binary() -> OsString {
    let bin = Path::new(env!("CARGO_BIN_EXE_sophia-hook"));
    let rest = std::env::var_os("PATH").unwrap_or_default();
    std::env::join_paths(
        std::iter::once(bin.parent().unwrap().to_path_buf()).chain(std::env::split_paths(&rest)),
    )
    .unwrap()
}

/// Whether `text` names `path`, whichever separators each uses: on Windows a path built from a
/// `/`-separated relative name (`home.join(".codex/hooks.json")`) holds both, in the binary's
/// output as in the test's own value.
pub fn names_path(text: &str, path: &Path) -> bool {
    let slashes = |s: &str| s.replace('\\', "/");
    slashes(text).contains(&slashes(&path.to_string_lossy()))
}

/// Per host: a project skill folder and a user skill folder (relative to HOME) the host lists,
/// written from what the hosts were observed to list (docs/skills.md, "How the folders were
/// verified"), not read from the code under test.
pub const SKILL_FOLDERS: &[(&str, &str, &str)] = &[
    ("codex", ".agents/skills", ".agents/skills"),
    ("claude", ".claude/skills", ".claude/skills"),
    ("gemini", ".gemini/skills", ".gemini/skills"),
    ("copilot", ".github/skills", ".copilot/skills"),
    ("antigravity", ".agent/skills", ".gemini/antigravity/skills"),
];

/// A temporary folder with an empty `home/` and a git project `project/` (its canonical path, as
/// the binary resolves it): the folder, the home, the project.
pub fn home_and_project() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let project = dir.path().join("project");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::create_dir_all(project.join(".git")).unwrap();
    let project = dunce::canonicalize(project).unwrap();
    (dir, home, project)
}

pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

/// Fixture payloads whose `cwd` starts with `fixtures/projects/` get a copy of that project in a
/// temporary git root, so the project lookup cannot climb into this repository.
pub fn materialise_project(payload: &[u8], tmp: &Path) -> Vec<u8> {
    let Ok(mut value) = serde_json::from_slice::<serde_json::Value>(payload) else {
        return payload.to_vec();
    };
    let Some(cwd) = value.get("cwd").and_then(|c| c.as_str()).map(str::to_owned) else {
        return payload.to_vec();
    };
    let Some(name) = cwd.strip_prefix("fixtures/projects/") else {
        return payload.to_vec();
    };
    let root = tmp.join(name);
    copy_dir(&fixtures().join("projects").join(name), &root);
    std::fs::create_dir_all(root.join(".git")).unwrap();
    value["cwd"] = serde_json::Value::String(root.to_string_lossy().into_owned());
    serde_json::to_vec(&value).unwrap()
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// Copies this repository's canonical agent source into `project/docs/agents/`.
pub fn copy_canonical_source(project: &Path) {
    std::fs::create_dir_all(project.join("docs/agents")).unwrap();
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/agents/canonical-subagents.yaml"),
        project.join("docs/agents/canonical-subagents.yaml"),
    )
    .unwrap();
}

/// A prompt event as `host` sends it for `prompt` in `project`: the host's sample payload with
/// its prompt replaced, in a conversation of its own per call (a host that fires per model call,
/// Antigravity, answers a repeated turn once).
pub fn prompt_payload(host: sophia_hook::hosts::Host, project: &Path, prompt: &str) -> Vec<u8> {
    use sophia_hook::hosts::Event;
    static RUN: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let conversation = RUN
        .fetch_add(1, std::sync::atomic::Ordering::Relaxed)
        .to_string();
    let wire = host.event_name(Event::UserPromptSubmit);
    let mut payload = (host.spec().payload.sample)(
        Event::UserPromptSubmit,
        wire,
        project.to_str().unwrap(),
        &conversation,
    );
    let key = payload
        .as_object()
        .unwrap()
        .iter()
        .find(|(_, v)| v.as_str() == Some(sophia_hook::hosts::SAMPLE_PROMPT))
        .map(|(k, _)| k.clone())
        .expect("the sample payload carries the sample prompt");
    payload[key] = prompt.into();
    payload.to_string().into_bytes()
}
