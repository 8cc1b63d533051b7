//! The adversarial harness: every `fixtures/adversarial/<layout>/layout.json` describes one
//! malicious repository (format in `fixtures/adversarial/README.md`). Each layout is built in a
//! temporary folder with a fresh HOME and a sibling `$OUTSIDE` folder of canary files, the real
//! binary runs in it, and the harness checks that the repository did no harm: hook mode exits 0,
//! stdout is nothing or one JSON object, no file outside the project's `.sophia/` and the user's
//! own sophia-hook folders was created, changed or removed, no canary leaked into stdout, stderr
//! is silent, no run hangs (killed after 5 s) and peak RSS stays under a generous bound. Speed is
//! measured by `benches/adversarial.sh` on the release binary, never asserted here: a wall-time
//! bound would fail on a loaded machine, not on a bug.
//!
//! `ADVERSARIAL_ONLY=<prefix>` runs only the layouts whose name starts with the prefix;
//! `ADVERSARIAL_MAX_RSS_MIB` changes the memory bound (default 256 MiB on a debug build);
//! `ADVERSARIAL_MAX_MS`, when set, adds a wall-time bound per run (off by default, for a quick
//! look on an idle machine). The ignored test `materialise_for_bench` writes every layout to
//! `$ADVERSARIAL_OUT` for the benchmark script.
// Tests and benches set up and read their files directly; the door (clippy.toml) is for the crate.
#![allow(clippy::disallowed_methods)]
// Unix only (FIFOs, `/dev/zero`, `wait4` for peak RSS); the Windows counterparts of the trust-layer checks
// (links at write targets, planted temporary names, locks, regular files only) are the unit tests
// of src/edge/files.rs and src/edge/platform/, run under Wine by scripts/windows-ci.sh.
#![cfg(unix)]

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io::{Read, Write};
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The budget of a layout's hook run in the harness (see `materialise`).
const ADVERSARIAL_BUDGET_FLAG: &str = "--time-budget-ms=1000";

use serde::Deserialize;
use serde_json::Value;

/// One malicious repository layout.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Layout {
    /// One line: what the repository tries.
    attack: String,
    /// The item of the issue it replays (`9.4`, `9.5`, …).
    item: String,
    /// The host for the default hook-mode arguments (`codex` when absent).
    #[serde(default)]
    host: Option<String>,
    /// The command line; hook mode for `host` and the payload's event when absent.
    #[serde(default)]
    args: Option<Vec<String>>,
    /// The hook payload written to stdin (nothing when absent).
    #[serde(default)]
    payload: Option<Value>,
    /// Stdin generated instead of the payload's JSON (a payload too large for a fixture file);
    /// `payload` still gives the event and the prompt.
    #[serde(default)]
    stdin_generated: Option<Generated>,
    /// A tighter peak-RSS bound for this layout, in MiB (the product's own 64 MiB, say).
    #[serde(default)]
    max_rss_mib: Option<u64>,
    /// Project files: relative path → text.
    #[serde(default)]
    project: BTreeMap<String, String>,
    /// Generated project files: relative path → generator.
    #[serde(default)]
    project_generated: BTreeMap<String, Generated>,
    /// Project symlinks: relative path → target.
    #[serde(default)]
    symlinks: BTreeMap<String, String>,
    /// Project FIFOs (named pipes): relative paths.
    #[serde(default)]
    fifos: Vec<String>,
    /// Files that already exist in the user's home: relative path → text.
    #[serde(default)]
    home: BTreeMap<String, String>,
    /// Extra environment variables of the run.
    #[serde(default)]
    env: BTreeMap<String, String>,
    /// `empty`, `json` (nothing or one JSON object) or `json-nonempty`; `any` for tool commands
    /// that print text.
    #[serde(default = "default_stdout")]
    stdout: String,
    /// Strings that must not appear in stdout (planted injection markers).
    #[serde(default)]
    stdout_must_not_contain: Vec<String>,
    /// Paths outside the allowed folders that this command is meant to write (an `install`
    /// layout writes the host's settings); a trailing `/` allows a whole folder.
    #[serde(default)]
    may_change: Vec<String>,
    /// How many times the command runs in the same layout (a second run sees the caches of the
    /// first); every run is checked.
    #[serde(default = "one")]
    runs: u32,
    /// A transcript of the host's in the fresh HOME that grows after a first run (issue 46):
    /// the command runs once on a small file, which records the session's hint at its end; the
    /// file is then grown to `size` bytes (sparse) ending with `tail`, so that every checked run
    /// reads the part since the hint from the end of a file that large.
    #[serde(default)]
    transcript_grown: Option<Grown>,
    /// The layout still does harm on this branch, and why (which fix is pending). Its problems
    /// are printed, not failed; once it is harmless the test fails until this field is removed,
    /// so a fixed attack cannot quietly regress.
    #[serde(default)]
    known_harm: Option<String>,
}

/// A generated file: `prefix`, then `repeat` `times` times, then `suffix`. With `count`, `{i}`
/// in the path, the prefix, the suffix and `repeat` is the file's number (`0..count`), and that
/// many files are written; `{j}` in `repeat` is the repetition's number.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Generated {
    #[serde(default)]
    prefix: String,
    repeat: String,
    times: usize,
    #[serde(default)]
    suffix: String,
    #[serde(default)]
    count: Option<usize>,
}

/// A transcript grown after a first run (`transcriptGrown`).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Grown {
    /// Its path (`$HOME/…`).
    path: String,
    /// Its length once grown, in bytes.
    size: u64,
    /// What its last bytes hold (generated like a project file).
    tail: Generated,
}

fn default_stdout() -> String {
    "json".to_owned()
}

fn one() -> u32 {
    1
}

/// Canary texts planted in the user's files and outside the project: none may reach stdout.
const CANARIES: [&str; 4] = [
    "OUTSIDE-SECRET-CANARY",
    "SSH-KEY-CANARY",
    "GIT-CONFIG-CANARY",
    "BASHRC-CANARY",
];

fn layouts_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/adversarial")
}

/// Every layout, sorted by name, filtered by `ADVERSARIAL_ONLY`.
fn layouts() -> Vec<(String, Layout)> {
    let only = std::env::var("ADVERSARIAL_ONLY").unwrap_or_default();
    let mut out = Vec::new();
    for entry in fs::read_dir(layouts_dir()).unwrap() {
        let dir = entry.unwrap().path();
        let file = dir.join("layout.json");
        if !file.is_file() {
            continue;
        }
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        if !name.starts_with(&only) {
            continue;
        }
        let text = fs::read_to_string(&file).unwrap();
        let layout: Layout =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{name}/layout.json: {e}"));
        out.push((name, layout));
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// The three folders of one materialised layout.
struct Dirs {
    home: PathBuf,
    project: PathBuf,
    outside: PathBuf,
}

impl Dirs {
    fn new(base: &Path) -> Dirs {
        let dirs = Dirs {
            home: base.join("home"),
            project: base.join("project"),
            outside: base.join("outside"),
        };
        for d in [&dirs.home, &dirs.project, &dirs.outside] {
            fs::create_dir_all(d).unwrap();
        }
        dirs
    }

    fn subst(&self, s: &str) -> String {
        s.replace("$PROJECT", &self.project.to_string_lossy())
            .replace("$HOME", &self.home.to_string_lossy())
            .replace("$OUTSIDE", &self.outside.to_string_lossy())
    }

    fn subst_value(&self, v: &Value) -> Value {
        match v {
            Value::String(s) => Value::String(self.subst(s)),
            Value::Array(a) => Value::Array(a.iter().map(|x| self.subst_value(x)).collect()),
            Value::Object(o) => Value::Object(
                o.iter()
                    .map(|(k, x)| (k.clone(), self.subst_value(x)))
                    .collect(),
            ),
            other => other.clone(),
        }
    }
}

fn write_file(path: &Path, bytes: &[u8]) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, bytes).unwrap();
}

fn mkfifo(path: &Path) {
    use std::os::unix::ffi::OsStrExt;
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    let c = std::ffi::CString::new(path.as_os_str().as_bytes()).unwrap();
    // SAFETY: `c` is a valid NUL-terminated path for the duration of the call.
    let rc = unsafe { libc::mkfifo(c.as_ptr(), 0o644) };
    assert_eq!(rc, 0, "mkfifo {}", path.to_string_lossy());
}

/// Builds the layout's folders; returns the command line, the stdin bytes and the environment.
fn materialise(layout: &Layout, dirs: &Dirs) -> (Vec<String>, Vec<u8>, Vec<(String, String)>) {
    // The user's own files, with canaries, then the layout's.
    let defaults = [
        (".bashrc", "# BASHRC-CANARY\nexport PATH=$PATH\n"),
        (".profile", "# user profile\n"),
        (".gitconfig", "[user]\n\tname = Canary User\n"),
        (".ssh/id_ed25519", "SSH-KEY-CANARY\n"),
    ];
    for (rel, text) in defaults {
        write_file(&dirs.home.join(rel), text.as_bytes());
    }
    for (rel, text) in &layout.home {
        write_file(&dirs.home.join(rel), dirs.subst(text).as_bytes());
    }
    write_file(&dirs.outside.join("secret.txt"), b"OUTSIDE-SECRET-CANARY\n");
    // A git root, so the project lookup stops here.
    write_file(
        &dirs.project.join(".git/config"),
        b"[core]\n\trepositoryformatversion = 0\n# GIT-CONFIG-CANARY\n",
    );
    for (rel, text) in &layout.project {
        write_file(&dirs.project.join(rel), dirs.subst(text).as_bytes());
    }
    for (rel, generator) in &layout.project_generated {
        let count = generator.count.unwrap_or(1);
        for i in 0..count {
            let n = i.to_string();
            let fill = |s: &str| {
                if generator.count.is_some() {
                    s.replace("{i}", &n)
                } else {
                    s.to_owned()
                }
            };
            let mut text = fill(&generator.prefix);
            let repeat = fill(&generator.repeat);
            let numbered = repeat.contains("{j}");
            text.reserve(repeat.len() * generator.times);
            for j in 0..generator.times {
                if numbered {
                    text.push_str(&repeat.replace("{j}", &j.to_string()));
                } else {
                    text.push_str(&repeat);
                }
            }
            text.push_str(&fill(&generator.suffix));
            write_file(&dirs.project.join(fill(rel)), text.as_bytes());
        }
    }
    for (rel, target) in &layout.symlinks {
        let link = dirs.project.join(rel);
        fs::create_dir_all(link.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(dirs.subst(target), &link).unwrap();
    }
    for rel in &layout.fifos {
        mkfifo(&dirs.project.join(rel));
    }

    let payload = layout.payload.as_ref().map(|p| dirs.subst_value(p));
    let args = match &layout.args {
        Some(args) => args.iter().map(|a| dirs.subst(a)).collect(),
        None => {
            let mut args = vec![
                "--host".to_owned(),
                layout.host.clone().unwrap_or_else(|| "codex".to_owned()),
            ];
            if let Some(event) = payload
                .as_ref()
                .and_then(|p| p.get("hook_event_name"))
                .and_then(Value::as_str)
            {
                args.extend(["--event".to_owned(), event.to_owned()]);
            }
            // A debug build on a loaded machine can pass the default 100 ms budget on an honest
            // layout and degrade to the routing block only, which a layout's skill-line check
            // would report as harm. The budget still stops work here, at a bound a debug run
            // keeps; the default budget is measured on the release binary by
            // benches/adversarial.sh and tested with an injected clock in tests/it/budget.rs. A
            // layout's own `env` may set SOPHIA_TIME_BUDGET_MS instead (clamped to 150 ms). The
            // flag, not the variable: a repository can set the variable, never the flag.
            if !layout.env.contains_key("SOPHIA_TIME_BUDGET_MS") {
                args.push(ADVERSARIAL_BUDGET_FLAG.to_owned());
            }
            args
        }
    };
    let stdin = match &layout.stdin_generated {
        Some(g) => {
            let mut bytes = dirs.subst(&g.prefix).into_bytes();
            for _ in 0..g.times {
                bytes.extend_from_slice(g.repeat.as_bytes());
            }
            bytes.extend_from_slice(dirs.subst(&g.suffix).as_bytes());
            bytes
        }
        None => payload
            .map(|p| serde_json::to_vec(&p).unwrap())
            .unwrap_or_default(),
    };
    let home = dirs.home.to_string_lossy();
    let mut env: Vec<(String, String)> = vec![
        ("HOME".into(), home.to_string()),
        ("XDG_CONFIG_HOME".into(), format!("{home}/.config")),
        ("XDG_CACHE_HOME".into(), format!("{home}/.cache")),
        ("XDG_STATE_HOME".into(), format!("{home}/.local/state")),
        ("XDG_DATA_HOME".into(), format!("{home}/.local/share")),
        (
            "PATH".into(),
            std::env::var("PATH").unwrap_or_else(|_| "/usr/bin:/bin".into()),
        ),
        // The layouts judge what reaches the model, so every embedded skill is nameable (a
        // layout's own `env` may set it otherwise).
        ("SOPHIA_EMBEDDED_SKILLS".into(), "on".into()),
    ];
    for (k, v) in &layout.env {
        env.retain(|(key, _)| key != k);
        env.push((k.clone(), dirs.subst(v)));
    }
    if let Some(grown) = &layout.transcript_grown {
        let path = PathBuf::from(dirs.subst(&grown.path));
        write_file(&path, b"{\"type\":\"session_meta\"}\n");
        // The first prompt: the hint is recorded at the small file's end.
        let first = run(&args, &stdin, &env, &dirs.project, Duration::from_secs(10));
        assert_eq!(first.code, Some(0), "the priming run");
        let g = &grown.tail;
        let mut tail = g.prefix.clone().into_bytes();
        for j in 0..g.times {
            tail.extend_from_slice(g.repeat.replace("{j}", &j.to_string()).as_bytes());
        }
        tail.extend_from_slice(g.suffix.as_bytes());
        let file = fs::OpenOptions::new().write(true).open(&path).unwrap();
        file.set_len(grown.size - tail.len() as u64).unwrap();
        drop(file);
        let mut file = fs::OpenOptions::new().append(true).open(&path).unwrap();
        std::io::Write::write_all(&mut file, &tail).unwrap();
    }
    (args, stdin, env)
}

/// What a path looked like: kind, and size and mtime for files, target for symlinks. A folder's
/// mtime is left out (creating an allowed file changes its parent's).
#[derive(Debug, Clone, PartialEq, Eq)]
enum Entry {
    Dir,
    File { len: u64, mtime_ns: i128, mode: u32 },
    Symlink(PathBuf),
    Fifo,
    Other,
}

fn listing(roots: &[&Path]) -> BTreeMap<PathBuf, Entry> {
    fn walk(path: &Path, out: &mut BTreeMap<PathBuf, Entry>) {
        let Ok(meta) = fs::symlink_metadata(path) else {
            return;
        };
        let ft = meta.file_type();
        let entry = if ft.is_symlink() {
            Entry::Symlink(fs::read_link(path).unwrap_or_default())
        } else if ft.is_dir() {
            Entry::Dir
        } else if ft.is_file() {
            Entry::File {
                len: meta.len(),
                mtime_ns: i128::from(meta.mtime()) * 1_000_000_000 + i128::from(meta.mtime_nsec()),
                mode: meta.mode(),
            }
        } else if ft.is_fifo() {
            Entry::Fifo
        } else {
            Entry::Other
        };
        out.insert(path.to_path_buf(), entry.clone());
        if entry == Entry::Dir
            && let Ok(rd) = fs::read_dir(path)
        {
            for e in rd.flatten() {
                walk(&e.path(), out);
            }
        }
    }
    let mut out = BTreeMap::new();
    for root in roots {
        walk(root, &mut out);
    }
    out
}

/// The folders sophia-hook may write to: the project's `.sophia/`, the user's sophia-hook
/// config/state/cache/data folders and the default analytics file, plus the layout's own list.
fn allowed_prefixes(layout: &Layout, dirs: &Dirs) -> Vec<PathBuf> {
    let h = &dirs.home;
    let mut allowed = vec![
        dirs.project.join(".sophia"),
        h.join(".cache/sophia-hook"),
        h.join(".config/sophia-hook"),
        h.join(".local/state/sophia-hook"),
        h.join(".local/share/sophia-hook"),
        h.join(".mcp-servers/analytics/sophia-hook.jsonl"),
    ];
    allowed.extend(
        layout
            .may_change
            .iter()
            .map(|p| PathBuf::from(dirs.subst(p.trim_end_matches('/')))),
    );
    allowed
}

fn is_allowed(path: &Path, entry: Option<&Entry>, allowed: &[PathBuf]) -> bool {
    allowed.iter().any(|a| path.starts_with(a))
        // A new folder on the way to an allowed path (`~/.cache`, `~/.mcp-servers/analytics`).
        || (matches!(entry, Some(Entry::Dir)) && allowed.iter().any(|a| a.starts_with(path)))
}

/// The result of one run of the binary.
struct Outcome {
    code: Option<i32>,
    stdout: Vec<u8>,
    stderr: Vec<u8>,
    wall: Duration,
    max_rss_kib: i64,
    timed_out: bool,
}

/// Runs the binary with a hard deadline, measuring wall time and peak RSS through `wait4` (which
/// reaps the child, hence no `Child::wait`).
#[allow(clippy::zombie_processes)]
fn run(
    args: &[String],
    stdin: &[u8],
    env: &[(String, String)],
    cwd: &Path,
    deadline: Duration,
) -> Outcome {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_sophia-hook"));
    cmd.args(args)
        .env_clear()
        .envs(env.iter().map(|(k, v)| (k, v)))
        .current_dir(cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // An address-space limit keeps an unbounded read from taking the machine down with it: the
    // run then dies and is reported, instead of swapping for minutes.
    // SAFETY: only async-signal-safe calls between fork and exec.
    unsafe {
        cmd.pre_exec(|| {
            let limit = libc::rlimit {
                rlim_cur: 2 << 30,
                rlim_max: 2 << 30,
            };
            libc::setrlimit(libc::RLIMIT_AS, &limit);
            Ok(())
        });
    }
    let start = Instant::now();
    let mut child = cmd.spawn().expect("spawn sophia-hook");
    let pid = child.id() as libc::pid_t;
    let mut child_in = child.stdin.take().unwrap();
    let input = stdin.to_vec();
    // The hook may stop reading early: a broken pipe is expected then.
    let writer = std::thread::spawn(move || {
        let _ = child_in.write_all(&input);
    });
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let out_reader = std::thread::spawn(move || {
        let mut b = Vec::new();
        let _ = out.read_to_end(&mut b);
        b
    });
    let err_reader = std::thread::spawn(move || {
        let mut b = Vec::new();
        let _ = err.read_to_end(&mut b);
        b
    });
    let mut status = 0;
    // SAFETY: zeroed rusage is a valid value for wait4 to fill.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let mut timed_out = false;
    let wall = loop {
        // SAFETY: `pid` is our child; `status` and `usage` are valid for writing.
        let r = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut usage) };
        if r == pid {
            break start.elapsed();
        }
        assert!(r == 0, "wait4 failed");
        if start.elapsed() > deadline && !timed_out {
            timed_out = true;
            let _ = child.kill();
        }
        std::thread::sleep(Duration::from_millis(1));
    };
    writer.join().unwrap();
    let stdout = out_reader.join().unwrap();
    let stderr = err_reader.join().unwrap();
    let code = libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status));
    Outcome {
        code,
        stdout,
        stderr,
        wall,
        max_rss_kib: usage.ru_maxrss,
        timed_out,
    }
}

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Checks one layout; returns its problems (empty when it is harmless).
fn check(name: &str, layout: &Layout) -> Vec<String> {
    let tmp = tempfile::tempdir().unwrap();
    let dirs = Dirs::new(tmp.path());
    let (args, stdin, env) = materialise(layout, &dirs);
    let hook_mode = args.first().is_none_or(|a| a.starts_with("--"));
    let allowed = allowed_prefixes(layout, &dirs);
    let prompt = layout
        .payload
        .as_ref()
        .and_then(|p| p.get("prompt"))
        .and_then(Value::as_str)
        .map(|p| dirs.subst(p));
    let max_ms = std::env::var("ADVERSARIAL_MAX_MS")
        .ok()
        .and_then(|v| v.parse::<u64>().ok());
    let max_rss_kib = layout
        .max_rss_mib
        .unwrap_or_else(|| env_u64("ADVERSARIAL_MAX_RSS_MIB", 256))
        * 1024;
    let mut problems = Vec::new();
    for n in 1..=layout.runs {
        let roots = [
            dirs.home.as_path(),
            dirs.project.as_path(),
            dirs.outside.as_path(),
        ];
        let before = listing(&roots);
        let o = run(&args, &stdin, &env, &dirs.project, Duration::from_secs(5));
        let after = listing(&roots);
        let mut p = |msg: String| problems.push(format!("run {n}: {msg}"));
        let stdout = String::from_utf8_lossy(&o.stdout);
        let stderr = String::from_utf8_lossy(&o.stderr);
        if o.timed_out {
            p("still running after 5 s: killed".into());
        }
        if hook_mode && o.code != Some(0) {
            p(format!("hook mode exited {:?}", o.code));
        }
        if hook_mode && !layout.env.contains_key("SOPHIA_DEBUG") && !stderr.is_empty() {
            p(format!("stderr is not silent: {:?}", truncate(&stderr)));
        }
        if let Some(prompt) = &prompt {
            // The prompt past its first word (the hotword) must never reach stderr.
            let rest = prompt.split_once(' ').map_or("", |(_, r)| r).trim();
            if rest.len() >= 6 && stderr.contains(rest) {
                p("stderr holds prompt text".into());
            }
        }
        match layout.stdout.as_str() {
            "empty" if !o.stdout.is_empty() => {
                p(format!("stdout not empty: {}", truncate(&stdout)))
            }
            "json" | "json-nonempty" => {
                if o.stdout.is_empty() {
                    if layout.stdout == "json-nonempty" {
                        p("stdout is empty".into());
                    }
                } else if !matches!(
                    serde_json::from_slice::<Value>(&o.stdout),
                    Ok(Value::Object(_))
                ) || stdout.trim_end().contains('\n')
                {
                    p(format!(
                        "stdout is not one JSON object: {}",
                        truncate(&stdout)
                    ));
                }
            }
            "empty" | "any" => {}
            other => p(format!("unknown stdout expectation {other:?}")),
        }
        for marker in CANARIES
            .iter()
            .copied()
            .chain(layout.stdout_must_not_contain.iter().map(String::as_str))
        {
            if stdout.contains(marker) {
                p(format!("stdout carries {marker:?}"));
            }
        }
        if dirs.outside.join("PWNED").exists() || dirs.project.join("PWNED").exists() {
            p("canary PWNED exists: a command ran".into());
        }
        let paths: BTreeSet<&PathBuf> = before.keys().chain(after.keys()).collect();
        for path in paths {
            let (b, a) = (before.get(path), after.get(path));
            if b != a && !is_allowed(path, a.or(b), &allowed) {
                let rel = path.strip_prefix(tmp.path()).unwrap_or(path);
                p(format!("{} changed: {b:?} -> {a:?}", rel.to_string_lossy()));
            }
        }
        if let Some(max_ms) = max_ms.filter(|&ms| o.wall > Duration::from_millis(ms)) {
            p(format!("wall {} ms > {max_ms} ms", o.wall.as_millis()));
        }
        if o.max_rss_kib > max_rss_kib as i64 {
            p(format!(
                "peak RSS {} MiB > {} MiB",
                o.max_rss_kib / 1024,
                max_rss_kib / 1024
            ));
        }
        eprintln!(
            "{name} run {n}: exit {:?}, {} ms, {} MiB, stdout {} bytes",
            o.code,
            o.wall.as_millis(),
            o.max_rss_kib / 1024,
            o.stdout.len()
        );
    }
    problems
}

fn truncate(s: &str) -> String {
    s.chars().take(300).collect()
}

#[test]
fn every_adversarial_layout_is_harmless() {
    let all = layouts();
    if std::env::var("ADVERSARIAL_ONLY").is_err() {
        assert!(all.len() >= 16, "only {} layouts", all.len());
    }
    let mut failures = Vec::new();
    for (name, layout) in &all {
        assert!(!layout.attack.trim().is_empty(), "{name}: no attack line");
        assert!(
            layout.item.starts_with("9.") || layout.item.starts_with("18."),
            "{name}: item {}",
            layout.item
        );
        let prefix = name.split('-').next().unwrap_or("");
        assert!(
            ["w", "x", "r", "i", "t", "m"].contains(&prefix),
            "{name}: name must start with w-, x-, r-, i-, t- or m-"
        );
        let problems = check(name, layout);
        match &layout.known_harm {
            Some(why) if problems.is_empty() => failures.push(format!(
                "{name}: harmless now: remove \"knownHarm\": {why:?} from its layout.json"
            )),
            Some(why) => eprintln!(
                "{name}: known harm ({why}), {} problem(s):\n  {}",
                problems.len(),
                problems.join("\n  ")
            ),
            None => failures.extend(
                problems
                    .into_iter()
                    .map(|problem| format!("{name} ({}): {problem}", layout.attack)),
            ),
        }
    }
    assert!(
        failures.is_empty(),
        "{} problem(s):\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The harness itself catches harm: a layout whose command writes outside, prints a canary and
/// prints non-JSON is reported on every count (a harness that passes everything proves nothing).
/// A forged compiled index must look like one of the current schema, or it tests the schema
/// check and not the parse it was built for: every generated `skills-index.tsv` starts with
/// `CATALOG_SCHEMA_VERSION` and a header line the reader takes (its first complaint, on the
/// prefix and the suffix alone, is about what follows the header, never the header). After a
/// schema bump this fails until the forged prefixes are brought along.
#[test]
fn forged_indexes_are_of_the_current_schema() {
    use sophia_hook::stages::skills::catalog::{CATALOG_SCHEMA_VERSION, IndexView, Origin};
    let mut forged = 0;
    for (name, layout) in layouts() {
        for (path, g) in &layout.project_generated {
            if !path.ends_with("skills-index.tsv") {
                continue;
            }
            forged += 1;
            assert!(
                g.prefix
                    .starts_with(&format!("#\t{CATALOG_SCHEMA_VERSION}\t")),
                "{name}: {path} is not of schema {CATALOG_SCHEMA_VERSION}"
            );
            let text: &'static str =
                Box::leak(format!("{}{}", g.prefix, g.suffix).into_boxed_str());
            let err = IndexView::open(Box::new(text.as_bytes()), Origin::Project)
                .err()
                .unwrap_or_default();
            assert!(
                ![
                    "no schema line",
                    "bad schema line",
                    "no header line",
                    "bad header line"
                ]
                .contains(&err.as_str()),
                "{name}: {path}: the header is refused ({err})"
            );
        }
    }
    assert!(
        forged >= 1
            || !std::env::var("ADVERSARIAL_ONLY")
                .unwrap_or_default()
                .is_empty()
    );
}

#[test]
fn the_harness_reports_harm() {
    let layout: Layout = serde_json::from_value(serde_json::json!({
        "attack": "self-test",
        "item": "9.0",
        "args": ["--host", "codex"],
        "payload": {"hook_event_name": "UserPromptSubmit", "prompt": "!quick hello", "cwd": "$PROJECT"},
        "stdout": "json"
    }))
    .unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let dirs = Dirs::new(tmp.path());
    materialise(&layout, &dirs);
    let allowed = allowed_prefixes(&layout, &dirs);
    let roots = [dirs.home.as_path(), dirs.project.as_path()];
    let before = listing(&roots);
    fs::write(dirs.home.join(".bashrc"), "changed\n").unwrap();
    fs::write(dirs.project.join(".sophia-new"), "x").unwrap();
    fs::create_dir_all(dirs.home.join(".cache/sophia-hook")).unwrap();
    fs::write(dirs.home.join(".cache/sophia-hook/index"), "ok").unwrap();
    let after = listing(&roots);
    let changed: Vec<&PathBuf> = before
        .keys()
        .chain(after.keys())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .filter(|p| before.get(*p) != after.get(*p) && !is_allowed(p, after.get(*p), &allowed))
        .collect();
    assert_eq!(
        changed,
        [
            &dirs.home.join(".bashrc"),
            &dirs.project.join(".sophia-new")
        ]
    );
    // The runner measures: a real hook run reports its exit code and a peak RSS.
    let (args, stdin, env) = materialise(&layout, &dirs);
    let o = run(&args, &stdin, &env, &dirs.project, Duration::from_secs(20));
    assert_eq!((o.code, o.timed_out), (Some(0), false));
    assert!(o.max_rss_kib > 0 && !o.stdout.is_empty());
}

/// Writes every layout to `$ADVERSARIAL_OUT/<name>/` for `benches/adversarial.sh`: the three
/// folders, `args` and `env` (NUL-separated) and `stdin`.
#[test]
#[ignore = "run by benches/adversarial.sh"]
fn materialise_for_bench() {
    let out = PathBuf::from(std::env::var("ADVERSARIAL_OUT").expect("ADVERSARIAL_OUT"));
    for (name, layout) in layouts() {
        let base = out.join(&name);
        let dirs = Dirs::new(&base);
        let (mut args_env, stdin) = {
            let (args, stdin, env) = materialise(&layout, &dirs);
            ((args, env), stdin)
        };
        // The bench measures the default budget (100 ms), the one users run with: the test's
        // 1,000 ms is for debug builds. Measured with it, a layout that compiles for 0.9 s read as
        // a hook that takes 0.9 s.
        args_env.0.retain(|a| a != ADVERSARIAL_BUDGET_FLAG);
        let (args, env) = args_env;
        let nul = |items: Vec<String>| items.join("\0").into_bytes();
        fs::write(base.join("args"), nul(args)).unwrap();
        fs::write(
            base.join("env"),
            nul(env.into_iter().map(|(k, v)| format!("{k}={v}")).collect()),
        )
        .unwrap();
        fs::write(base.join("stdin"), stdin).unwrap();
        fs::write(base.join("runs"), layout.runs.to_string()).unwrap();
        // A layout whose runs read a transcript since a recorded hint: the record, which the
        // bench puts back before each run (each run moves it to the file's end).
        let hints = dirs.home.join(".cache/sophia-hook/hints.json");
        if layout.transcript_grown.is_some() && hints.exists() {
            fs::copy(&hints, base.join("hints.json")).unwrap();
        }
    }
}
