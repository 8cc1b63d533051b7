//! Every host at once: `install` with no `--host` installs for each host found on the machine
//! (its executable on PATH, or its folder in the home) and says which and why; at most three
//! lines per host by default, nothing with `--quiet`, every step with `--verbose`; `status`
//! prints one line per host, and its text and `--json` agree.
//!
//! Unix only: fake host executables are shell scripts with the executable bit.
// Tests and benches set up and read their files directly; the door (clippy.toml) is for the crate.
#![allow(clippy::disallowed_methods)]
#![cfg(unix)]

use crate::common::{self, Run, exe};

use std::collections::BTreeSet;
use std::fs;
use std::path::PathBuf;

use serde_json::Value;
use sophia_hook::hosts::{Host, Scope};

const BIN: &str = env!("CARGO_BIN_EXE_sophia-hook");

/// A machine with nothing on it: a home, a project, and a PATH holding only sophia-hook (and
/// whatever fake host executables a case puts there), so no real host of this machine counts.
struct Machine {
    _dir: tempfile::TempDir,
    home: PathBuf,
    project: PathBuf,
    bin: PathBuf,
}

impl Machine {
    fn new() -> Machine {
        let dir = tempfile::tempdir().unwrap();
        let base = dunce::canonicalize(dir.path()).unwrap();
        let (home, project, bin) = (base.join("home"), base.join("project"), base.join("bin"));
        for d in [&home, &project.join(".git"), &bin] {
            fs::create_dir_all(d).unwrap();
        }
        std::os::unix::fs::symlink(BIN, bin.join("sophia-hook")).unwrap();
        Machine {
            _dir: dir,
            home,
            project,
            bin,
        }
    }

    /// The host's folder in the home, as the host creates it on first start.
    fn folder(&self, host: Host) -> PathBuf {
        let folder = host
            .spec()
            .detect
            .folder
            .resolve(Some(&self.home), &Default::default())
            .unwrap();
        folder.components().collect()
    }

    fn plant_folder(&self, host: Host) {
        fs::create_dir_all(self.folder(host)).unwrap();
    }

    fn plant_executable(&self, host: Host) {
        let exe = self.bin.join(host.spec().detect.executables[0]);
        exe::write_script(&exe, "#!/bin/sh\nexit 0\n");
    }

    fn run(&self, args: &[&str]) -> Run {
        self.run_env(args, &[])
    }

    /// `install`/`doctor`-style commands on this machine: `--root` the project, `PATH` the
    /// planted executables only (what `install` detects), no analytics.
    fn run_env(&self, args: &[&str], env: &[(&str, &str)]) -> Run {
        let mut argv = args.to_vec();
        let root = self.project.to_str().unwrap();
        argv.extend(["--root", root]);
        common::Sandbox::new(&self.home)
            .cwd(&self.project)
            .env("PATH", &self.bin)
            .env("SOPHIA_ANALYTICS", "off")
            .unset("SOPHIA_TIME_BUDGET_MS")
            .unset(common::EMBEDDED_ON.0)
            .envs(env)
            .run(&argv, b"")
    }

    /// The hosts whose project settings file exists.
    fn installed(&self) -> BTreeSet<Host> {
        Host::ALL
            .into_iter()
            .filter(|h| self.project.join(h.spec().settings.project).is_file())
            .collect()
    }
}

fn lines(text: &str) -> Vec<&str> {
    text.lines().collect()
}

/// Table over every host and each sign of it (its executable on PATH, its folder in the home):
/// install with no `--host` installs for exactly the hosts found, saying one line each why.
#[test]
fn install_without_a_host_installs_for_each_host_found_and_says_why() {
    for host in Host::ALL {
        for by_executable in [true, false] {
            let m = Machine::new();
            if by_executable {
                m.plant_executable(host);
            } else {
                m.plant_folder(host);
            }
            // A host's folder may sit inside another's (Antigravity's in ~/.gemini): creating
            // it makes that one's folder exist too.
            let expected: BTreeSet<Host> = Host::ALL
                .into_iter()
                .filter(|h| {
                    *h == host || (!by_executable && m.folder(host).starts_with(m.folder(*h)))
                })
                .collect();
            let out = m.run(&["install", "--no-agents"]);
            let case = format!("{host:?} by_executable={by_executable}");
            assert_eq!(out.code, 0, "{case}: {}{}", out.stdout, out.stderr);
            assert_eq!(m.installed(), expected, "{case}: {}", out.stdout);
            let found: Vec<&str> = lines(&out.stdout)
                .into_iter()
                .filter(|l| l.contains(": found ("))
                .collect();
            assert_eq!(found.len(), expected.len(), "{case}: {}", out.stdout);
            let why = if by_executable {
                format!(
                    "{}: found (`{}` is on PATH: {})",
                    host.as_str(),
                    host.spec().detect.executables[0],
                    m.bin
                        .join(host.spec().detect.executables[0])
                        .to_string_lossy()
                )
            } else {
                format!(
                    "{}: found ({} exists)",
                    host.as_str(),
                    m.folder(host).to_string_lossy()
                )
            };
            assert!(
                found.contains(&why.as_str()),
                "{case}: want {why}\n{}",
                out.stdout
            );
        }
    }
}

/// No host on the machine: a clear error (exit 2) naming what was looked for, nothing written.
#[test]
fn install_without_a_host_on_a_bare_machine_is_a_clear_error() {
    let m = Machine::new();
    let out = m.run(&["install"]);
    assert_eq!(out.code, 2, "{}{}", out.stdout, out.stderr);
    assert!(
        out.stderr.contains("no host found on this machine")
            && out.stderr.contains("name one with --host")
            && out.stderr.contains("`codex` on PATH"),
        "{}",
        out.stderr
    );
    assert!(m.installed().is_empty());
}

/// At most three lines per host by default (the agent definitions, catalog and availability
/// table, backups and hotword note only with `--verbose`); `--quiet` prints nothing at all.
#[test]
fn install_prints_at_most_three_lines_per_host_and_nothing_when_quiet() {
    // One host named, then every host found.
    let m = Machine::new();
    let one = m.run(&["install", "--host", "claude"]);
    assert_eq!(one.code, 0, "{}", one.stderr);
    assert!(lines(&one.stdout).len() <= 3, "{}", one.stdout);
    assert!(
        !one.stdout.contains("unknown"),
        "no availability table: {}",
        one.stdout
    );

    for host in Host::ALL {
        m.plant_folder(host);
    }
    let all = m.run(&["install", "--scope", "user"]);
    assert_eq!(all.code, 0, "{}", all.stderr);
    for host in Host::ALL {
        let own: Vec<&str> = lines(&all.stdout)
            .into_iter()
            .filter(|l| {
                l.starts_with(&format!("{}: ", host.as_str()))
                    || l.contains(&format!(" for {} (", host.as_str()))
            })
            .collect();
        assert!(
            !own.is_empty() && own.len() <= 2,
            "{host:?}: {}",
            all.stdout
        );
    }
    assert!(
        lines(&all.stdout).len() <= 3 * Host::ALL.len(),
        "{}",
        all.stdout
    );

    let verbose = Machine::new();
    let out = verbose.run(&["install", "--host", "claude", "--verbose"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout.contains("agent definitions") && out.stdout.contains("hotwords:"),
        "{}",
        out.stdout
    );
    assert!(lines(&out.stdout).len() > 3, "{}", out.stdout);

    for args in [
        &["install", "--host", "codex", "--quiet"][..],
        &["install", "--quiet"],
        &["uninstall", "--quiet"],
        &["uninstall", "--host", "claude", "--quiet"],
    ] {
        let q = Machine::new();
        q.plant_folder(Host::Codex);
        q.run(&["install", "--host", "claude"]);
        let out = q.run(args);
        assert_eq!(out.code, 0, "{args:?}: {}", out.stderr);
        assert_eq!(
            (out.stdout.as_str(), out.stderr.as_str()),
            ("", ""),
            "{args:?}"
        );
    }
    // --quiet still reports errors.
    let q = Machine::new();
    let out = q.run(&["install", "--quiet"]);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("no host found"), "{}", out.stderr);
}

/// uninstall with no `--host` removes sophia-hook from every host it is registered for at that
/// scope, and from no other file.
#[test]
fn uninstall_without_a_host_removes_every_registration_at_that_scope() {
    let m = Machine::new();
    for host in ["codex", "gemini"] {
        assert_eq!(m.run(&["install", "--host", host, "--no-agents"]).code, 0);
    }
    assert_eq!(
        m.run(&[
            "install",
            "--host",
            "claude",
            "--scope",
            "user",
            "--no-agents"
        ])
        .code,
        0
    );
    let out = m.run(&["uninstall", "--no-agents"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(m.installed().is_empty(), "{}", out.stdout);
    assert_eq!(lines(&out.stdout).len(), 2, "{}", out.stdout);
    assert!(
        m.home.join(".claude/settings.json").is_file(),
        "user scope is kept"
    );
}

/// `status`: one line per host for each state — not registered; registered at project scope and
/// not yet trusted (Codex: folder and handlers, Gemini CLI and Copilot CLI: the folder); trusted
/// the way each host records it; registered at both scopes; the last run seen in the analytics
/// log. The text lines and `--json` say the same.
#[test]
fn status_prints_one_line_per_host_and_agrees_with_its_json() {
    let m = Machine::new();
    let analytics = m.home.join("analytics.jsonl");
    // status reads the log the hook writes (the machine's runs set analytics off otherwise).
    let env = [
        ("SOPHIA_ANALYTICS", "on"),
        ("SOPHIA_ANALYTICS_FILE", analytics.to_str().unwrap()),
    ];
    let status = |m: &Machine| -> (Vec<String>, Vec<Value>) {
        let text = m.run_env(&["status"], &env);
        assert_eq!(text.code, 0, "{}", text.stderr);
        let json = m.run_env(&["status", "--json"], &env);
        let value: Value = serde_json::from_str(&json.stdout).unwrap();
        let rows = value["hosts"].as_array().unwrap().clone();
        let mut text: Vec<String> = text.stdout.lines().map(str::to_owned).collect();
        // A line per host, then the telemetry export's, which says what the JSON says.
        assert_eq!(text.len(), Host::ALL.len() + 1, "{text:?}");
        let telemetry = text.pop().unwrap();
        assert_eq!(
            telemetry,
            format!(
                "telemetry: off ({})",
                value["telemetry"]["state"].as_str().unwrap()
            )
        );
        assert_eq!(value["telemetry"]["state"], "not-configured");
        // The text says what the JSON says, host by host.
        for (line, row) in text.iter().zip(&rows) {
            let host = row["host"].as_str().unwrap();
            assert!(line.starts_with(&format!("{host}: ")), "{line}");
            let registered = row["registered"].as_array().unwrap();
            assert_eq!(
                line.contains("not registered"),
                registered.is_empty(),
                "{line}"
            );
            for r in registered {
                let scope = r["scope"].as_str().unwrap();
                let file = r["file"].as_str().unwrap();
                assert!(line.contains(&format!("{scope} scope ({file})")), "{line}");
            }
            let trust_word = match row["trusted"].as_bool() {
                Some(true) => "; trusted;",
                Some(false) => "; not trusted",
                None if registered.is_empty() => "not registered",
                None => "; no trust step;",
            };
            assert!(line.contains(trust_word), "{line} / {row}");
            match row["lastRun"].as_str() {
                Some(ts) => assert!(line.ends_with(&format!("last run {ts}")), "{line}"),
                None => assert!(line.ends_with("no run seen"), "{line}"),
            }
        }
        (text, rows)
    };
    let row = |rows: &[Value], host: Host| -> Value {
        rows.iter()
            .find(|r| r["host"] == host.as_str())
            .unwrap()
            .clone()
    };

    let (_, rows) = status(&m);
    for host in Host::ALL {
        assert_eq!(row(&rows, host)["registered"], serde_json::json!([]));
    }

    for host in Host::ALL {
        assert_eq!(
            m.run(&["install", "--host", host.as_str(), "--no-agents"])
                .code,
            0
        );
    }
    let (_, rows) = status(&m);
    for host in Host::ALL {
        let r = row(&rows, host);
        let file = m.project.join(host.spec().settings.project);
        assert_eq!(
            r["registered"],
            serde_json::json!([{"scope": "project", "file": file.to_string_lossy().to_string()}]),
            "{host:?}"
        );
        let needs_trust = host.spec().trust.is_some();
        let want = if needs_trust {
            Value::Bool(false)
        } else {
            Value::Null
        };
        assert_eq!(r["trusted"], want, "{host:?}: {r}");
    }

    // Trusted as each host records it: Codex's folder trust and /hooks hashes, Gemini CLI's
    // trustedFolders.json, Copilot CLI's trustedFolders list.
    let hooks = m.project.join(Host::Codex.spec().settings.project);
    let doc: Value = serde_json::from_slice(&fs::read(&hooks).unwrap()).unwrap();
    let mut config = format!(
        "[projects.'{}']\ntrust_level = \"trusted\"\n",
        m.project.to_string_lossy()
    );
    for reg in sophia_hook::install::registered(&doc, Host::Codex) {
        let hash = sophia_hook::hosts::codex::trust_hash(
            &reg.event,
            reg.matcher.as_deref(),
            &reg.handler,
            sophia_hook::fingerprint::sha256,
        )
        .unwrap();
        config.push_str(&format!(
            "[hooks.state.'{}:{}:{}:{}']\ntrusted_hash = \"{hash}\"\nenabled = true\n",
            hooks.to_string_lossy(),
            sophia_hook::hosts::codex::event_label(&reg.event),
            reg.group_index,
            reg.handler_index
        ));
    }
    fs::create_dir_all(m.home.join(".codex")).unwrap();
    fs::write(m.home.join(".codex/config.toml"), config).unwrap();
    fs::create_dir_all(m.home.join(".gemini")).unwrap();
    fs::write(
        m.home.join(".gemini/trustedFolders.json"),
        serde_json::json!({ m.project.to_string_lossy().to_string(): "TRUST_FOLDER" }).to_string(),
    )
    .unwrap();
    fs::create_dir_all(m.home.join(".copilot")).unwrap();
    fs::write(
        m.home.join(".copilot/config.json"),
        serde_json::json!({ "trustedFolders": [m.project.to_string_lossy().to_string()] })
            .to_string(),
    )
    .unwrap();
    // A hook run for Claude Code, recorded in the analytics log.
    let run = common::Sandbox::new(&m.home)
        .cwd(&m.project)
        .env("SOPHIA_ANALYTICS_FILE", &analytics)
        .run(
            &["--host", "claude", "--event", "UserPromptSubmit"],
            br#"{"hook_event_name":"UserPromptSubmit","prompt":"hi","cwd":"."}"#,
        );
    assert!(run.code == 0 && analytics.is_file());
    assert_eq!(
        m.run(&[
            "install",
            "--host",
            "claude",
            "--scope",
            "user",
            "--no-agents"
        ])
        .code,
        0
    );
    let (text, rows) = status(&m);
    for host in Host::ALL {
        let r = row(&rows, host);
        let needs_trust = host.spec().trust.is_some();
        let want = if needs_trust {
            Value::Bool(true)
        } else {
            Value::Null
        };
        assert_eq!(r["trusted"], want, "{host:?}: {r}");
    }
    let claude = row(&rows, Host::Claude);
    let scopes: Vec<&str> = claude["registered"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["scope"].as_str().unwrap())
        .collect();
    assert_eq!(scopes, [Scope::Project.as_str(), Scope::User.as_str()]);
    assert!(
        claude["lastRun"]
            .as_str()
            .is_some_and(|ts| ts.starts_with("20")),
        "{claude}"
    );
    assert_eq!(row(&rows, Host::Codex)["lastRun"], Value::Null);
    assert!(
        text.iter()
            .any(|l| l.starts_with("codex: ") && l.contains("; trusted;")),
        "{text:?}"
    );
}
