//! `agents sync`, `agents check` and uninstall's removal of generated definitions
//! (docs/agents/README.md "Sync"), as a table over every state a definition file can be in,
//! rotated over the roles of each host, with and without `--force`.
//!
//! The states, from the spec: missing; up to date (exactly what sync writes); stale (generated
//! and untouched — its marker's content fingerprint matches — from an older source); drifted
//! (generated, then edited: the fingerprint no longer matches); not generated (no marker);
//! a symlink. The rules:
//! - sync writes missing and stale files, leaves up-to-date ones, keeps drifted, not-generated
//!   and symlinked ones as they are; with `--force` it replaces drifted and not-generated files
//!   after a backup holding their old text, and still never writes through a symlink;
//! - check passes only when every file is up to date, and names every other file with its state;
//! - uninstall removes the generated files nobody edited (up to date or stale) and nothing else.
//!
//! Planted bugs this catches (each seen failing): a stale file kept as if edited, a drifted file
//! overwritten without `--force`, check passing with a stale file, uninstall removing a drifted
//! file.
// Tests and benches set up and read their files directly; the door (clippy.toml) is for the crate.
#![allow(clippy::disallowed_methods)]
#![cfg(unix)]

use crate::common;

use std::fs;
use std::path::{Path, PathBuf};

use sophia_hook::edge::files::ProjectRoot;
use sophia_hook::edge::settings::Settings;
use sophia_hook::fingerprint::sha256;
use sophia_hook::hosts::Scope;
use sophia_hook::ops::agents_sync::{SyncTarget, check, plan, remove_generated, sync};
use sophia_hook::stages::agents::runtime::sync_hosts;

#[derive(Debug, Clone, Copy, PartialEq)]
enum State {
    Missing,
    UpToDate,
    Stale,
    Drifted,
    Foreign,
    Symlink,
}

const STATES: [State; 6] = [
    State::Missing,
    State::UpToDate,
    State::Stale,
    State::Drifted,
    State::Foreign,
    State::Symlink,
];

fn settings(home: &Path) -> Settings {
    let home = home.to_string_lossy().into_owned();
    Settings::from_lookup(|k| (k == "HOME").then(|| home.clone()))
}

/// A generated file from "an older source": another body, with a marker that matches it.
fn stale_of(fresh: &str) -> String {
    let marker = fresh
        .lines()
        .find(|l| l.starts_with("# generated-by sophia-hook agents sync "))
        .expect("a marker line");
    let older = fresh.replacen("\n", "\n\n", 1) + "older instructions\n";
    let without: String = older
        .split_inclusive('\n')
        .filter(|l| !l.starts_with("# generated-by sophia-hook agents sync "))
        .collect();
    let old_fp = marker
        .split("content ")
        .nth(1)
        .unwrap()
        .split(')')
        .next()
        .unwrap();
    older.replace(old_fp, &sha256(without.as_bytes()))
}

fn put(path: &Path, state: State, fresh: &str, elsewhere: &Path) -> Option<String> {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    let text = match state {
        State::Missing => return None,
        State::UpToDate => fresh.to_owned(),
        State::Stale => stale_of(fresh),
        // Generated, then one line edited by hand: the marker stays, the fingerprint breaks.
        State::Drifted => fresh.to_owned() + "my own note\n",
        State::Foreign => "my own agent, written by hand\n".to_owned(),
        State::Symlink => {
            fs::write(elsewhere, "somebody else's file\n").unwrap();
            std::os::unix::fs::symlink(elsewhere, path).unwrap();
            return Some("somebody else's file\n".to_owned());
        }
    };
    fs::write(path, &text).unwrap();
    Some(text)
}

/// Every file under an `agent-backups` folder of `dir`, with its text.
fn backups(dir: &Path) -> Vec<(PathBuf, String)> {
    let mut out = Vec::new();
    for entry in fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        let kind = fs::symlink_metadata(&path).unwrap().file_type();
        if kind.is_dir() {
            out.extend(backups(&path));
        } else if kind.is_file() && path.to_string_lossy().contains("/agent-backups/") {
            out.push((path.clone(), fs::read_to_string(&path).unwrap()));
        }
    }
    out
}

#[test]
fn sync_check_and_uninstall_for_every_state_on_every_role() {
    let mut cases = 0;
    for shift in 0..STATES.len() {
        for force in [false, true] {
            let root = tempfile::tempdir().unwrap();
            let home = tempfile::tempdir().unwrap();
            let s = settings(home.path());
            let target = SyncTarget {
                hosts: sync_hosts(),
                scope: Scope::Project,
                root: ProjectRoot::open(root.path()).unwrap(),
            };
            // What sync would write for each (host, role), on an empty project.
            let (agents, _) = sophia_hook::ops::agents_sync::load_runtime(&target, &s).unwrap();
            let entries = plan(&target, &agents, &s).unwrap();
            // Five roles for each host with an agent runtime (Codex, Claude Code, Gemini CLI,
            // Copilot CLI).
            assert_eq!(entries.len(), 20);
            // Role j of every host in state (j + shift) mod 6: every state on every role.
            let mut placed = Vec::new();
            for (j, e) in entries.iter().enumerate() {
                let state = STATES[(j + shift) % STATES.len()];
                let elsewhere = home.path().join(format!("elsewhere-{j}"));
                let before = put(&e.place.path(), state, &e.fresh, &elsewhere);
                placed.push((e.place.path(), e.fresh.clone(), state, before, e.host));
            }
            let why = format!("shift {shift} force {force}");

            // check: fails unless all are up to date, and names each other file with its state.
            let mut out = Vec::new();
            let ok = check(&mut out, &target, &s).unwrap();
            let out = String::from_utf8(out).unwrap();
            assert!(!ok, "{why}: {out}");
            for (path, _, state, _, _) in &placed {
                let name = match state {
                    State::Missing => Some("missing"),
                    State::UpToDate => None,
                    State::Stale => Some("stale"),
                    State::Drifted => Some("drifted"),
                    State::Foreign | State::Symlink => Some("not-generated"),
                };
                let line = out
                    .lines()
                    .find(|l| l.ends_with(&format!(" {}", path.to_string_lossy())));
                assert_eq!(
                    line.map(|l| l.split_whitespace().next().unwrap()),
                    name,
                    "{why}: {state:?} {}\n{out}",
                    path.to_string_lossy()
                );
            }

            // uninstall's removal, on a copy of the same files.
            let copy = tempfile::tempdir().unwrap();
            let copy_home = tempfile::tempdir().unwrap();
            let cs = settings(copy_home.path());
            let copy_target = SyncTarget {
                root: ProjectRoot::open(copy.path()).unwrap(),
                ..target.clone()
            };
            for (path, fresh, state, _, _) in &placed {
                let rel = path.strip_prefix(root.path()).unwrap();
                let elsewhere = copy_home.path().join("elsewhere");
                let _ = fs::remove_file(&elsewhere);
                put(&copy.path().join(rel), *state, fresh, &elsewhere);
            }
            remove_generated(&mut Vec::new(), &copy_target, &cs).unwrap();
            for (path, _, state, _, _) in &placed {
                let p = copy.path().join(path.strip_prefix(root.path()).unwrap());
                let gone = fs::symlink_metadata(&p).is_err();
                let want_gone = matches!(state, State::Missing | State::UpToDate | State::Stale);
                assert_eq!(
                    gone,
                    want_gone,
                    "{why}: uninstall {state:?} {}",
                    p.to_string_lossy()
                );
            }

            // sync.
            let mut out = Vec::new();
            sync(&mut out, &target, force, &s, "t1").unwrap();
            let out = String::from_utf8(out).unwrap();
            let saved = backups(home.path());
            for (path, fresh, state, before, host) in &placed {
                let now = fs::read_to_string(path).ok();
                let is_link = fs::symlink_metadata(path).unwrap().file_type().is_symlink();
                let replaced = match state {
                    State::Missing | State::Stale | State::UpToDate => true,
                    State::Drifted | State::Foreign => force,
                    State::Symlink => false,
                };
                if replaced {
                    assert_eq!(
                        now.as_deref(),
                        Some(fresh.as_str()),
                        "{why}: {state:?} {}\n{out}",
                        path.to_string_lossy()
                    );
                    assert!(!is_link);
                } else {
                    assert_eq!(
                        &now,
                        before,
                        "{why}: {state:?} kept {}\n{out}",
                        path.to_string_lossy()
                    );
                    assert_eq!(is_link, *state == State::Symlink);
                }
                let name = path.file_name().unwrap().to_string_lossy().into_owned();
                let backed_up: Vec<&String> = saved
                    .iter()
                    .filter(|(p, _)| {
                        p.parent().unwrap().file_name().unwrap() == host.as_str()
                            && p.file_name().unwrap().to_string_lossy() == format!("t1-{name}")
                    })
                    .map(|(_, t)| t)
                    .collect();
                let want_backup = force && matches!(state, State::Drifted | State::Foreign);
                if want_backup {
                    assert_eq!(
                        backed_up,
                        [before.as_ref().unwrap()],
                        "{why}: backup of {state:?} {}",
                        path.to_string_lossy()
                    );
                } else {
                    assert!(
                        backed_up.is_empty(),
                        "{why}: no backup of {state:?} {}: {backed_up:?}",
                        path.to_string_lossy()
                    );
                }
            }
            // After sync, check passes exactly when nothing was kept.
            let kept = placed.iter().any(|(_, _, state, _, _)| match state {
                State::Drifted | State::Foreign => !force,
                State::Symlink => true,
                _ => false,
            });
            assert_eq!(check(&mut Vec::new(), &target, &s).unwrap(), !kept, "{why}");
            cases += 1;
        }
    }
    assert_eq!(cases, 12);
}

/// `agents sync` and `agents check` with no `--host` act on the same hosts: those sophia-hook is
/// installed for in the scope, or whose agents folder exists there (docs/agents/README.md). A
/// table over each host in each state (untouched, installed, a folder of its own) and a mix:
/// sync writes definitions for exactly those hosts, check checks exactly those, and with none of
/// them both say so and write nothing. The folders are the hosts' own, from the docs' table.
#[test]
fn sync_and_check_default_to_the_same_hosts() {
    #[derive(Clone, Copy, PartialEq, Debug)]
    enum Host {
        Untouched,
        Installed,
        Folder,
    }
    const FOLDERS: [(&str, &str); 4] = [
        ("codex", ".codex/agents"),
        ("claude", ".claude/agents"),
        ("gemini", ".gemini/agents"),
        ("copilot", ".github/agents"),
    ];
    let mut cases: Vec<[Host; 4]> = vec![[Host::Untouched; 4]];
    for i in 0..4 {
        for state in [Host::Installed, Host::Folder] {
            let mut c = [Host::Untouched; 4];
            c[i] = state;
            cases.push(c);
        }
    }
    cases.push([
        Host::Installed,
        Host::Untouched,
        Host::Folder,
        Host::Untouched,
    ]);
    for case in cases {
        let dir = tempfile::tempdir().unwrap();
        let (root, home) = (dir.path().join("project"), dir.path().join("home"));
        fs::create_dir_all(root.join(".git")).unwrap();
        fs::create_dir_all(&home).unwrap();
        let run = |args: &[&str]| {
            let mut all = args.to_vec();
            all.extend(["--root", root.to_str().unwrap()]);
            common::run_binary(&all, b"", &home, &[("SOPHIA_ANALYTICS", "off")])
        };
        for ((host, folder), state) in FOLDERS.iter().zip(case) {
            match state {
                Host::Installed => {
                    let out = run(&["install", "--host", host, "--no-agents"]);
                    assert_eq!(out.code, 0, "{case:?}: {}", out.stderr);
                }
                Host::Folder => fs::create_dir_all(root.join(folder)).unwrap(),
                Host::Untouched => {}
            }
        }
        let want: Vec<&str> = FOLDERS
            .iter()
            .zip(case)
            .filter(|(_, s)| *s != Host::Untouched)
            .map(|((h, _), _)| *h)
            .collect();
        let sync = run(&["agents", "sync"]);
        let written: Vec<&str> = FOLDERS
            .iter()
            .filter(|(_, folder)| {
                fs::read_dir(root.join(folder)).is_ok_and(|mut d| d.next().is_some())
            })
            .map(|(h, _)| *h)
            .collect();
        assert_eq!(
            written, want,
            "{case:?}: sync wrote for {written:?}; {}",
            sync.stdout
        );
        let check = run(&["agents", "check", "--json"]);
        let v: serde_json::Value = serde_json::from_str(&check.stdout).unwrap();
        let checked: Vec<&str> = v["checked"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| h.as_str().unwrap())
            .collect();
        assert_eq!(checked, want, "{case:?}: check looked at {checked:?}");
        if want.is_empty() {
            assert_eq!(sync.code, 2, "{case:?}: {}", sync.stdout);
            assert!(sync.stderr.contains("nothing to write"), "{}", sync.stderr);
            assert_eq!(check.code, 1, "{case:?}");
        } else {
            assert_eq!(sync.code, 0, "{case:?}: {}", sync.stderr);
            assert_eq!(check.code, 0, "{case:?}: {}", check.stdout);
            assert_eq!(v["ok"], true);
        }
    }
}
