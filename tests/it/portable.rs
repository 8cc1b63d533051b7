//! Portable entries: what a project-scope `install` writes is committed and shared, so it names
//! the bare `sophia-hook` that every machine resolves on its own PATH, never this machine's path.
//! A clone on a teammate's machine (another HOME, the binary elsewhere) works unchanged; Codex's
//! trust hash is the same for everyone; install stops when `sophia-hook` on PATH is not this
//! binary; doctor checks that each entry resolves as its host starts it.
//!
//! Unix only: the hooks run through `sh`, the binary copies need the executable bit, and the
//! clone needs `git`.
// Tests and benches set up and read their files directly; the door (clippy.toml) is for the crate.
#![allow(clippy::disallowed_methods)]
#![cfg(unix)]

use crate::common::exe;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::Value;
use sophia_hook::hosts::{Event, Host, Scope};

const BIN: &str = env!("CARGO_BIN_EXE_sophia-hook");

/// One machine: its own HOME, a project, and a folder on PATH holding its own copy of the
/// binary (a teammate installs it somewhere else).
struct Machine {
    _dir: tempfile::TempDir,
    base: PathBuf,
    home: PathBuf,
    project: PathBuf,
    bin: PathBuf,
}

impl Machine {
    fn new() -> Machine {
        let dir = tempfile::tempdir().unwrap();
        // Canonical: macOS's /var is a link to /private/var, and paths are compared as text.
        let base = dunce::canonicalize(dir.path()).unwrap();
        let (home, project, bin) = (base.join("home"), base.join("project"), base.join("bin"));
        for d in [&home, &project, &bin] {
            fs::create_dir_all(d).unwrap();
        }
        exe::place_binary(&bin.join("sophia-hook"));
        Machine {
            _dir: dir,
            base,
            home,
            project,
            bin,
        }
    }

    fn exe(&self) -> PathBuf {
        self.bin.join("sophia-hook")
    }

    /// PATH on this machine: its own binary folder, then the system's tools.
    fn path(&self) -> String {
        format!(
            "{}:/usr/local/bin:/usr/bin:/bin",
            self.bin.to_string_lossy()
        )
    }

    /// A command with this machine's environment only, in `cwd`.
    fn command(&self, program: impl AsRef<std::ffi::OsStr>, cwd: &Path) -> Command {
        let mut cmd = Command::new(program);
        cmd.current_dir(cwd)
            .env_clear()
            .env("HOME", &self.home)
            .env("PATH", self.path())
            .env("SOPHIA_ANALYTICS", "off");
        cmd
    }

    /// Runs this machine's `sophia-hook ARGS` in its project.
    fn run(&self, args: &[&str]) -> std::process::Output {
        self.run_with(&self.exe(), args, &self.path())
    }

    fn run_with(&self, exe: &Path, args: &[&str], path: &str) -> std::process::Output {
        self.command(exe, &self.project)
            .env("PATH", path)
            .args(args)
            .arg("--root")
            .arg(&self.project)
            .stdin(Stdio::null())
            .output()
            .unwrap()
    }

    fn git(&self, cwd: &Path, args: &[&str]) {
        let out = self
            .command("git", cwd)
            .args(["-c", "user.name=t", "-c", "user.email=t@example.invalid"])
            .args([
                "-c",
                "init.defaultBranch=main",
                "-c",
                "commit.gpgsign=false",
            ])
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "git {args:?}: {out:?}");
    }
}

fn text(out: &std::process::Output) -> String {
    format!(
        "exit {:?}\nstdout:\n{}\nstderr:\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

fn read(path: &Path) -> Value {
    serde_json::from_slice(&fs::read(path).unwrap()).unwrap()
}

/// The project's settings file of `host`.
fn settings_file(host: Host) -> &'static str {
    host.spec().settings.project
}

/// Runs our handler for `event` out of `doc` the way `host` starts it, on `machine`, in `cwd`,
/// with the host's sample payload; returns the exit status and stdout.
fn run_entry(
    machine: &Machine,
    cwd: &Path,
    host: Host,
    doc: &Value,
    event: Event,
) -> (i32, String) {
    let wire = host.event_name(event);
    let reg = sophia_hook::install::registered(doc, host)
        .into_iter()
        .find(|r| r.event == wire)
        .unwrap_or_else(|| panic!("{host:?}: no entry for {wire} in {doc}"));
    let form = host.spec().settings.handler;
    let mut cmd = if form.exec() {
        // The exec form: the program (looked up on the child's PATH) with its arguments.
        let mut cmd = machine.command(reg.handler["command"].as_str().unwrap(), cwd);
        for a in reg.handler["args"].as_array().unwrap() {
            cmd.arg(a.as_str().unwrap());
        }
        cmd
    } else {
        let line = reg.handler[form.command_key()].as_str().unwrap();
        let mut cmd = machine.command("sh", cwd);
        cmd.arg("-c").arg(line);
        cmd
    };
    let payload = (host.spec().payload.sample)(event, wire, &cwd.to_string_lossy(), "portable");
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(
        child.stdin.as_mut().unwrap(),
        payload.to_string().as_bytes(),
    )
    .unwrap();
    drop(child.stdin.take());
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

/// Every file under `dir` (but `.git/`), with its text.
fn files(dir: &Path) -> Vec<(PathBuf, String)> {
    let mut out = Vec::new();
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.file_name().is_some_and(|n| n == ".git") {
            continue;
        }
        if path.is_dir() {
            out.extend(files(&path));
        } else {
            out.push((path.clone(), fs::read_to_string(&path).unwrap_or_default()));
        }
    }
    out
}

/// A project-scope install on one machine, committed and cloned on a second one (another HOME,
/// the binary in another folder on PATH), works there unchanged: each entry, run as its host
/// starts it, answers with valid output, and the teammate's `doctor` finds the entries pointing
/// at their own binary.
#[test]
fn a_committed_project_install_works_unchanged_in_a_clone_on_another_machine() {
    for host in Host::ALL {
        let (mine, theirs) = (Machine::new(), Machine::new());
        mine.git(&mine.project, &["init", "-q"]);
        let install = mine.run(&["install", "--host", host.as_str()]);
        assert!(install.status.success(), "{host:?}: {}", text(&install));
        mine.git(&mine.project, &["add", "-A"]);
        mine.git(&mine.project, &["commit", "-q", "-m", "sophia-hook"]);

        let clone = theirs.base.join("clone");
        theirs.git(
            &theirs.base,
            &["clone", "-q", &mine.project.to_string_lossy(), "clone"],
        );
        let file = clone.join(settings_file(host));
        let doc = read(&file);
        for event in [Event::SessionStart, Event::UserPromptSubmit] {
            let (code, stdout) = run_entry(&theirs, &clone, host, &doc, event);
            assert_eq!(code, 0, "{host:?} {event:?}: {stdout}");
            let wire = host.event_name(event);
            if host.session_context_on_prompt() && event == Event::SessionStart {
                assert_eq!(stdout.trim(), "{}", "{host:?}");
            } else {
                let chars = sophia_hook::ops::doctor::validate(host, wire, &stdout)
                    .unwrap_or_else(|e| panic!("{host:?} {wire}: {e}: {stdout}"));
                assert!(chars > 0, "{host:?} {wire}: no context: {stdout}");
            }
        }
        // The teammate's doctor, run by their own binary: every entry resolves to it.
        let doctor = theirs
            .command(theirs.exe(), &clone)
            .args(["doctor", "--host", host.as_str(), "--json"])
            .output()
            .unwrap();
        let report: Value = serde_json::from_slice(&doctor.stdout).unwrap();
        let area = format!("{} project", host.as_str());
        let entries: Vec<&Value> = report["checks"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| c["area"] == area.as_str() || c["area"] == format!("{area} run"))
            .collect();
        assert!(entries.len() >= 4, "{host:?}: {}", text(&doctor));
        for check in entries {
            assert_eq!(check["status"], "ok", "{host:?}: {check}");
        }
    }
}

/// Table over every host: after a project-scope install, no file in the project holds a path of
/// this machine (its temporary folder, its home, the folder of the binary).
#[test]
fn no_project_scope_file_holds_a_machine_path() {
    let bin_dir = Path::new(BIN)
        .parent()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    for host in Host::ALL {
        let m = Machine::new();
        let install = m.run(&["install", "--host", host.as_str()]);
        assert!(install.status.success(), "{host:?}: {}", text(&install));
        let written = files(&m.project);
        assert!(
            written
                .iter()
                .any(|(p, _)| p.ends_with(settings_file(host))),
            "{host:?}: {written:?}"
        );
        for (path, body) in written {
            for machine_path in [m.base.to_string_lossy().into_owned(), bin_dir.clone()] {
                assert!(
                    !body.contains(&machine_path),
                    "{host:?}: {} holds {machine_path}:\n{body}",
                    path.to_string_lossy()
                );
            }
        }
    }
}

/// The trust hash Codex stores for each handler is the same on two machines whose binaries live
/// in different folders: one `/hooks` approval per teammate, never a re-trust after a pull.
#[test]
fn the_codex_trust_hash_is_the_same_on_every_machine() {
    let hashes = |m: &Machine| -> Vec<String> {
        let install = m.run(&["install", "--host", "codex", "--no-agents"]);
        assert!(install.status.success(), "{}", text(&install));
        let doc = read(&m.project.join(settings_file(Host::Codex)));
        sophia_hook::install::registered(&doc, Host::Codex)
            .iter()
            .map(|r| {
                sophia_hook::hosts::codex::trust_hash(
                    &r.event,
                    r.matcher.as_deref(),
                    &r.handler,
                    sophia_hook::fingerprint::sha256,
                )
                .unwrap()
            })
            .collect()
    };
    let (a, b) = (hashes(&Machine::new()), hashes(&Machine::new()));
    assert_eq!(a.len(), 2);
    assert_eq!(a, b);
}

/// Without `--binary`, a project-scope install stops (exit 2, nothing written) when `sophia-hook`
/// on PATH is missing or is another file, and says so; `--binary sophia-hook` writes the bare
/// name anyway (with a warning); user scope keeps this binary's absolute path.
#[test]
fn install_stops_when_sophia_hook_on_path_is_not_this_binary() {
    for host in Host::ALL {
        let m = Machine::new();
        let file = m.project.join(settings_file(host));
        let other = m.base.join("other");
        fs::create_dir_all(&other).unwrap();
        exe::write_script(&other.join("sophia-hook"), "#!/bin/sh\necho other\n");
        let cases = [
            ("/usr/bin:/bin".to_owned(), "is not on PATH"),
            (
                format!("{}:{}", other.to_string_lossy(), m.path()),
                "not this binary",
            ),
        ];
        for (path, says) in cases {
            let out = m.run_with(&m.exe(), &["install", "--host", host.as_str()], &path);
            assert_eq!(out.status.code(), Some(2), "{host:?}: {}", text(&out));
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(
                stderr.contains(says) && stderr.contains("--binary sophia-hook"),
                "{host:?}: {stderr}"
            );
            assert!(!file.exists(), "{host:?}: nothing written");
        }
        let forced = m.run_with(
            &m.exe(),
            &[
                "install",
                "--host",
                host.as_str(),
                "--binary",
                "sophia-hook",
            ],
            "/usr/bin:/bin",
        );
        assert!(forced.status.success(), "{host:?}: {}", text(&forced));
        assert!(
            String::from_utf8_lossy(&forced.stderr).contains("on PATH here is missing"),
            "{host:?}: {}",
            text(&forced)
        );
        let doc = read(&file);
        let regs = sophia_hook::install::registered(&doc, host);
        assert!(!regs.is_empty(), "{host:?}: {doc}");
        let key = host.spec().settings.handler.command_key();
        for reg in &regs {
            let command = reg.handler[key].as_str().unwrap();
            assert!(command.starts_with("sophia-hook"), "{host:?}: {command}");
        }
        // A bare name that is not ours is refused.
        let odd = m.run(&["install", "--host", host.as_str(), "--binary", "hook"]);
        assert_eq!(odd.status.code(), Some(2), "{host:?}: {}", text(&odd));
    }
}

/// User scope is this machine's own file: it keeps the absolute path of this binary.
#[test]
fn user_scope_keeps_the_absolute_path() {
    for host in Host::ALL {
        let m = Machine::new();
        let out = m.run(&[
            "install",
            "--host",
            host.as_str(),
            "--scope",
            "user",
            "--no-agents",
        ]);
        assert!(out.status.success(), "{host:?}: {}", text(&out));
        let file = sophia_hook::install::config_path(
            host,
            Scope::User,
            &m.project,
            &m.home,
            &Default::default(),
        );
        let body = fs::read_to_string(&file).unwrap();
        assert!(
            body.contains(&m.exe().to_string_lossy().into_owned()),
            "{host:?}: {body}"
        );
    }
}

/// doctor resolves each entry as its host starts it: a bare name on PATH (missing, or another
/// file, is a failure), an absolute path as a file that must exist and be executable.
#[test]
fn doctor_checks_that_each_entry_resolves_as_the_host_starts_it() {
    for host in Host::ALL {
        let m = Machine::new();
        let install = m.run(&["install", "--host", host.as_str(), "--no-agents"]);
        assert!(install.status.success(), "{host:?}: {}", text(&install));
        let other = m.base.join("other");
        fs::create_dir_all(&other).unwrap();
        exe::write_script(&other.join("sophia-hook"), "#!/bin/sh\necho other\n");
        let cases = [
            (m.path(), None),
            (
                "/usr/bin:/bin".to_owned(),
                Some("`sophia-hook` is not found on PATH"),
            ),
            (
                format!("{}:{}", other.to_string_lossy(), m.path()),
                Some("`sophia-hook` resolves on PATH to"),
            ),
        ];
        let area = format!("{} project", host.as_str());
        for (path, fails) in cases {
            let out = m.run_with(
                &m.exe(),
                &["doctor", "--host", host.as_str(), "--json"],
                &path,
            );
            let report: Value = serde_json::from_slice(&out.stdout).unwrap();
            let entries: Vec<&Value> = report["checks"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|c| c["area"] == area.as_str())
                .collect();
            assert!(entries.len() >= 2, "{host:?}: {}", text(&out));
            for check in entries {
                match fails {
                    None => assert_eq!(check["status"], "ok", "{host:?}: {check}"),
                    Some(says) => {
                        assert_eq!(check["status"], "fail", "{host:?}: {check}");
                        assert!(
                            check["detail"].as_str().unwrap().contains(says),
                            "{host:?}: {check}"
                        );
                    }
                }
            }
        }
        // `--binary sophia-hook`: the one on PATH, which is this machine's binary.
        let named = m.run(&[
            "doctor",
            "--host",
            host.as_str(),
            "--binary",
            "sophia-hook",
            "--json",
        ]);
        let report: Value = serde_json::from_slice(&named.stdout).unwrap();
        assert!(
            report["checks"]
                .as_array()
                .unwrap()
                .iter()
                .any(|c| c["area"] == "binary"
                    && c["status"] == "ok"
                    && c["detail"] == m.exe().to_string_lossy().as_ref()),
            "{host:?}: {}",
            text(&named)
        );
        // An absolute path that is gone.
        let gone = m.base.join("gone");
        fs::create_dir_all(&gone).unwrap();
        exe::place_binary(&gone.join("sophia-hook"));
        let exe = gone.join("sophia-hook");
        let out = m.run(&[
            "install",
            "--host",
            host.as_str(),
            "--no-agents",
            "--binary",
            &exe.to_string_lossy(),
        ]);
        assert!(out.status.success(), "{host:?}: {}", text(&out));
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("works on this machine only"),
            "{host:?}: {}",
            text(&out)
        );
        fs::remove_file(&exe).unwrap();
        let out = m.run(&["doctor", "--host", host.as_str(), "--json"]);
        let report: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert!(
            report["checks"]
                .as_array()
                .unwrap()
                .iter()
                .any(|c| c["area"] == area.as_str()
                    && c["status"] == "fail"
                    && c["detail"]
                        .as_str()
                        .unwrap()
                        .contains("does not exist or is not executable")),
            "{host:?}: {}",
            text(&out)
        );
    }
}
