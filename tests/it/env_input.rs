//! The environment is input (issue 48): hosts apply a project's `env` block or `.env` to the
//! hooks they run, so every variable sophia-hook reads is as untrusted as a file in the
//! repository. Generated over every variable `edge::settings` reads × every form a repository
//! can give it × every command: nothing lands in the project (the working folder), no dotfile
//! of the user's changes, no run blocks, the hook still prints the user's routing line, and the
//! refused value is named by `doctor`. The unit tests of `src/edge/settings.rs` hold the same
//! class on the settings value itself.
// Tests set up their files directly; the door (clippy.toml) is for the crate.
#![allow(clippy::disallowed_methods)]
#![cfg(unix)]

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use sophia_hook::edge::settings;

use crate::common::Sandbox;

/// Every file under `dir` with its contents and mode (`.git/` left out).
fn tree(dir: &Path) -> BTreeMap<PathBuf, (Vec<u8>, u32)> {
    let mut out = BTreeMap::new();
    let Ok(entries) = fs::read_dir(dir) else {
        return out;
    };
    for entry in entries {
        let path = entry.unwrap().path();
        if path.file_name().is_some_and(|n| n == ".git") {
            continue;
        }
        let meta = fs::symlink_metadata(&path).unwrap();
        if meta.is_dir() {
            out.extend(tree(&path));
        } else if meta.is_file() {
            out.insert(
                path.clone(),
                (fs::read(&path).unwrap(), meta.permissions().mode()),
            );
        } else {
            out.insert(path.clone(), (Vec::new(), meta.permissions().mode()));
        }
    }
    out
}

/// The user's dotfiles a line of ours would break or turn into a command.
const DOTFILES: [&str; 3] = [".bashrc", ".profile", ".gitconfig"];

struct World {
    _tmp: tempfile::TempDir,
    home: PathBuf,
    project: PathBuf,
    outside: PathBuf,
}

impl World {
    fn new() -> World {
        let tmp = tempfile::tempdir().unwrap();
        let base = dunce::canonicalize(tmp.path()).unwrap();
        let (home, project, outside) = (base.join("home"), base.join("project"), base.join("out"));
        for dir in [&home, &project, &outside] {
            fs::create_dir_all(dir).unwrap();
        }
        fs::create_dir(project.join(".git")).unwrap();
        fs::write(project.join("AGENTS.md"), "# Project\n").unwrap();
        for name in DOTFILES {
            fs::write(home.join(name), format!("# the user's {name}\n")).unwrap();
        }
        // A link the repository commits, and a FIFO it plants.
        std::os::unix::fs::symlink(&home, project.join("to-home")).unwrap();
        let fifo = project.join("fifo");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        World {
            _tmp: tmp,
            home,
            project,
            outside,
        }
    }

    /// Every form a repository can give a path variable: relative (resolving against the
    /// working folder, the clone), climbing, a dotfile, the clone itself by its absolute path,
    /// a link the clone commits, a FIFO, empty.
    fn path_forms(&self) -> Vec<(&'static str, String)> {
        let p = self.project.to_string_lossy();
        vec![
            ("relative", "sophia-state".to_owned()),
            ("dot", ".".to_owned()),
            ("dotdot", format!("{p}/../project/x")),
            (
                "dotfile",
                format!("{}/.bashrc", self.home.to_string_lossy()),
            ),
            ("inside-project", format!("{p}/planted")),
            ("the-clone", p.to_string()),
            // What the hook inherited as descriptor 3 (a repository's folder): no path needed.
            ("proc-fd", "/proc/self/fd/3/x".to_owned()),
            ("dev-fd", "/dev/fd/3".to_owned()),
            ("link-in-project", format!("{p}/to-home/x")),
            ("fifo", format!("{p}/fifo")),
            ("empty", String::new()),
        ]
    }

    fn sandbox(&self, var: &str, value: &str) -> Sandbox {
        Sandbox::new(&self.home)
            .cwd(&self.project)
            .env("SOPHIA_ANALYTICS", "on")
            .env(var, value)
    }
}

/// The commands a user or a host runs, each as they run it.
fn commands(w: &World) -> Vec<Vec<String>> {
    let out = w.outside.join("plugins").to_string_lossy().into_owned();
    [
        vec!["--host", "claude", "--event", "UserPromptSubmit"],
        vec!["install", "--host", "claude", "--scope", "user"],
        vec!["doctor", "--host", "claude"],
        vec!["status"],
        vec!["stats"],
        vec!["report"],
        vec!["plugin", "build", "--out", &out, "--binary", "/bin/true"],
        vec!["availability", "--write"],
        vec!["uninstall", "--host", "claude", "--scope", "user"],
    ]
    .into_iter()
    .map(|c| c.into_iter().map(str::to_owned).collect())
    .collect()
}

/// Runs every command with `var=value` and returns what went wrong.
fn problems(w: &World, var: &str, form: &str, value: &str) -> Vec<String> {
    let before = tree(&w.project);
    let dotfiles: Vec<Vec<u8>> = DOTFILES
        .iter()
        .map(|n| fs::read(w.home.join(n)).unwrap())
        .collect();
    let mut found = Vec::new();
    let payload = serde_json::json!({
        "hook_event_name": "UserPromptSubmit", "session_id": "env-input",
        "cwd": w.project, "prompt": "!quick spiegami la query SQL",
    })
    .to_string();
    for args in commands(w) {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let hook = args[0] == "--host";
        let run = w
            .sandbox(var, value)
            .run(&args, if hook { payload.as_bytes() } else { b"" });
        let what = format!("{var}={form} `{}`", args.join(" "));
        if run.code == 101 || run.stderr.contains("panicked") {
            found.push(format!("{what}: panicked: {}", run.stderr));
        }
        if hook {
            if run.code != 0 {
                found.push(format!("{what}: hook exited {}", run.code));
            }
            // The user's hotword is never lost to a bad variable.
            if !run.stdout.contains("contextMode=light") {
                found.push(format!("{what}: no routing line: {:?}", run.stdout));
            }
        }
        if args[0] == "doctor" && named_by_doctor(var, form) {
            // A refused value is named, with the variable, so the user can find who set it.
            if !run.stdout.contains(&format!("env-ignored:{var}:")) {
                found.push(format!(
                    "{what}: doctor does not name {var}: {}",
                    run.stdout
                ));
            }
        }
        // Nothing created, changed or removed in the project.
        let after = tree(&w.project);
        if after != before {
            let changed: Vec<String> = after
                .keys()
                .chain(before.keys())
                .filter(|k| after.get(*k) != before.get(*k))
                .map(|k| k.to_string_lossy().into_owned())
                .collect();
            found.push(format!("{what}: the project changed: {changed:?}"));
            break;
        }
        for (name, was) in DOTFILES.iter().zip(&dotfiles) {
            if fs::read(w.home.join(name)).unwrap() != *was {
                found.push(format!("{what}: ~/{name} changed"));
            }
        }
    }
    found
}

/// Whether `doctor` must name `var` set to `form`: every refused form. A dotfile is refused for
/// a file we write; as a folder (`XDG_CACHE_HOME=~/.bashrc`) it is a path like any other,
/// which nothing can be created under. `USERPROFILE` is read only without `HOME`; a link in
/// the project that leads out of it is where it leads (the user's own folder here).
fn named_by_doctor(var: &str, form: &str) -> bool {
    match form {
        "relative" | "dot" | "dotdot" | "inside-project" | "the-clone" | "fifo" | "proc-fd"
        | "dev-fd" => var != "USERPROFILE",
        "dotfile" => settings::WRITTEN_FILE_VARS.contains(&var),
        _ => false,
    }
}

/// Every path variable × every form × every command (issue 48, class 1).
#[test]
fn no_path_variable_makes_a_command_write_into_the_project_or_a_dotfile() {
    let mut found = Vec::new();
    let mut cases = 0;
    let forms = World::new().path_forms().len();
    for var in settings::path_vars() {
        for i in 0..forms {
            // A fresh world per case: an earlier run's files never hide a later one's.
            let w = World::new();
            let (form, value) = w.path_forms().swap_remove(i);
            cases += 1;
            found.extend(problems(&w, var, form, &value));
        }
    }
    assert!(cases >= 80, "{cases} cases");
    assert!(
        found.is_empty(),
        "{} problem(s):\n{}",
        found.len(),
        found.join("\n")
    );
}

/// Every number variable × huge, negative, not a number, empty (class 2): every command
/// behaves as above, and a value set by the environment never lifts the hook's budget past its
/// ceiling (the tests' own `--time-budget-ms` flag is the user's, and left out of this).
#[test]
fn no_number_variable_lifts_a_bound() {
    let mut found = Vec::new();
    for var in settings::NUMBER_VARS {
        for value in ["600000", "99999999999999999999999", "-5", "1e9", ""] {
            let w = World::new();
            found.extend(problems(&w, var, value, value));
            let s = settings::Settings::from_lookup(|k| (k == *var).then(|| value.to_owned()));
            assert!(s.time_budget <= settings::MAX_TIME_BUDGET, "{var}={value}");
            assert!(
                s.state_lock_wait <= settings::MAX_STATE_LOCK_WAIT,
                "{var}={value}"
            );
        }
    }
    assert!(
        found.is_empty(),
        "{} problem(s):\n{}",
        found.len(),
        found.join("\n")
    );
}

/// What a project can set for each host's hooks, as the real hosts did it
/// (`tests/e2e/run --env-probe`, docs/host-protocols.md "A project's environment"), written here
/// apart from `HostSpec::project_env`: (host, file, content, what `doctor` must name).
const PROJECT_ENV: &[(&str, &str, &str, &[&str])] = &[
    (
        "claude",
        ".claude/settings.json",
        r#"{"env": {"SOPHIA_TIME_BUDGET_MS": "600000", "HOME": "/tmp/x", "CODEX_HOME": "rel", "XDG_STATE_HOME": "s", "FOO": "1"}}"#,
        &[
            "SOPHIA_TIME_BUDGET_MS",
            "HOME",
            "CODEX_HOME",
            "XDG_STATE_HOME",
        ],
    ),
    (
        "claude",
        ".claude/settings.local.json",
        r#"{"env": {"SOPHIA_ANALYTICS_FILE": ".bashrc", "PATH": "bin"}}"#,
        &["SOPHIA_ANALYTICS_FILE", "PATH"],
    ),
    ("gemini", ".env", "SOPHIA_CACHE_DIR=cache\n", &[".env"]),
    (
        "gemini",
        ".gemini/.env",
        "XDG_STATE_HOME=s\n",
        &[".gemini/.env"],
    ),
];

/// `doctor` names every variable of ours a project sets for a host's hooks, per host and file,
/// and never a variable that is not ours (`FOO`); a host that passes no project environment
/// (Codex, Copilot CLI, as observed) says nothing of the same files; a dotenv file is named,
/// never opened (its values, which may be secrets, appear nowhere).
#[test]
fn doctor_names_what_a_project_sets_for_the_hooks() {
    for (host, file, content, named) in PROJECT_ENV {
        for asked in ["claude", "gemini", "codex", "copilot"] {
            let w = World::new();
            let path = w.project.join(file);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(&path, content).unwrap();
            let run = Sandbox::new(&w.home)
                .cwd(&w.project)
                .run(&["doctor", "--host", asked], b"");
            let line = run
                .stdout
                .lines()
                .find(|l| l.contains(&format!("{asked} environment")))
                .map(str::to_owned);
            if asked == *host {
                let line = line.unwrap_or_else(|| panic!("{host} {file}: {}", run.stdout));
                for var in *named {
                    assert!(line.contains(var), "{host} {file}: {var} not named: {line}");
                }
                assert!(!line.contains("FOO"), "{line}");
            } else {
                assert_eq!(line, None, "{asked} with {host}'s {file}");
            }
            // Values never shown (a dotenv file's are secrets).
            assert!(!run.stdout.contains("=cache") && !run.stdout.contains("=s\n"));
        }
    }
}

/// `availability --write` replaces only a manifest: a file of another program's that the
/// variable names (which a project may set) is left untouched with an error; a missing one is
/// created and a manifest of ours replaced.
#[test]
fn availability_write_replaces_only_a_manifest() {
    let w = World::new();
    let run = |path: &Path| {
        Sandbox::new(&w.home)
            .cwd(&w.outside)
            .env("SOPHIA_AGENT_AVAILABILITY", path.to_str().unwrap())
            .run(&["availability", "--write"], b"")
    };
    for (name, text) in [
        (
            "package.json",
            "{\"name\": \"mine\", \"version\": \"1.0.0\"}\n",
        ),
        ("notes.md", "# notes\n"),
        ("tsconfig.json", "{\"compilerOptions\": {}}\n"),
    ] {
        let path = w.home.join(name);
        fs::write(&path, text).unwrap();
        let out = run(&path);
        assert_ne!(out.code, 0, "{name}: {}", out.stdout);
        assert!(
            out.stderr.contains("left untouched"),
            "{name}: {}",
            out.stderr
        );
        assert_eq!(fs::read_to_string(&path).unwrap(), text, "{name}");
    }
    let path = w.home.join("manifest.json");
    assert_eq!(run(&path).code, 0, "a new manifest");
    let first = fs::read_to_string(&path).unwrap();
    assert!(first.contains("\"agents\""), "{first}");
    assert_eq!(run(&path).code, 0, "a manifest of ours is replaced");
}

/// The project is the payload's working folder's, also when the host runs its hooks elsewhere
/// (Antigravity, from its own folder): a cache and a `config.yaml` folder the environment puts
/// inside that project are refused there too — nothing is written in it, and its `config.yaml`
/// (a `%` prefix) is not the user's.
#[test]
fn the_payloads_project_is_checked_too() {
    for git in [true] {
        let w = World::new();
        if !git {
            fs::remove_dir(w.project.join(".git")).unwrap();
        }
        let cfg = w.project.join(".cfg/sophia-hook");
        fs::create_dir_all(&cfg).unwrap();
        fs::write(cfg.join("config.yaml"), "hotword_prefix: \"%\"\n").unwrap();
        let before = tree(&w.project);
        for cwd in [&w.outside, &w.project] {
            let payload = serde_json::json!({
                "hook_event_name": "UserPromptSubmit", "session_id": "s",
                "cwd": w.project, "prompt": "%quick riassumi i log",
            })
            .to_string();
            let run = Sandbox::new(&w.home)
                .cwd(cwd)
                .env(
                    "SOPHIA_CACHE_DIR",
                    w.project.join("cache").to_str().unwrap(),
                )
                .env("XDG_CONFIG_HOME", w.project.join(".cfg").to_str().unwrap())
                .run(&["--host", "claude"], payload.as_bytes());
            let what = format!("git {git}, run from {}", cwd.to_string_lossy());
            assert_eq!(run.code, 0, "{what}");
            assert!(
                !run.stdout.contains("contextMode=light"),
                "{what}: the folder's config.yaml chose the prefix: {}",
                run.stdout
            );
            assert_eq!(tree(&w.project), before, "{what}: the project changed");
        }
    }
}
