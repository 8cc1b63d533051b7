//! I4 — never replace a file we did not create (`docs/security.md` `### I4`): for every writer
//! and every kind of target (absent, ours from an earlier run, a foreign file, a symlink), a
//! target is written only when absent or ours (or merged, for host settings, with a backup);
//! and the path keys of `.sophia-hook.yaml` may only name files of our own kind in `.sophia/`.
//!
//! Unix only: it plants Unix modes, umasks, symlinks and `sh -c` (the harness in `tests/it/trust/`); on Windows the trust layer's
//! guarantees are held by the unit tests of `edge::files` and `edge::platform` (docs/architecture.md).
// Tests and benches set up and read their files directly; the door (clippy.toml) is for the crate.
#![allow(clippy::disallowed_methods)]
#![cfg(unix)]

use crate::trust;

use std::fs;
use std::os::unix::fs::symlink;
use std::path::Path;

use trust::Sandbox;

const SKILL: &str = "---\nname: zebra-tools\ndescription: Zebra stripes and zoo keeping\nkeywords: [zebra]\n---\n# Zebra\n";
const FOREIGN: &str = "API_KEY=FOREIGN-USER-FILE\n";

#[derive(Debug, Clone, Copy, PartialEq)]
enum Target {
    Absent,
    Ours,
    Foreign,
    /// A symlink to a file outside the project.
    Symlink,
    /// A symlink to the user's own untracked file inside the project (`.env`).
    SymlinkInside,
}

/// A writer: its command line and the project file it writes.
struct Writer {
    args: &'static [&'static str],
    file: &'static str,
}

const WRITERS: &[Writer] = &[
    Writer {
        args: &["skills", "index", "--host", "codex"],
        file: ".sophia/skills-index.tsv",
    },
    Writer {
        args: &["skills", "index", "--host", "claude"],
        file: ".sophia/skills-index-claude.tsv",
    },
    Writer {
        args: &["catalog", "build"],
        file: ".sophia/agent-catalog.json",
    },
    Writer {
        args: &["install", "--host", "codex"],
        file: ".sophia/agent-catalog.json",
    },
    Writer {
        args: &["agents", "sync", "--host", "claude"],
        file: ".claude/agents/scout.md",
    },
    Writer {
        args: &["agents", "sync", "--host", "claude", "--force"],
        file: ".claude/agents/scout.md",
    },
];

/// A fresh project: the folder emptied, not replaced, so it stays the same project (the backups
/// of its settings are keyed by the folder's identity, `docs/security.md`).
fn project(s: &Sandbox) {
    for entry in fs::read_dir(&s.project).into_iter().flatten() {
        let path = entry.unwrap().path();
        if fs::symlink_metadata(&path).is_ok_and(|m| m.is_dir()) {
            fs::remove_dir_all(&path).unwrap();
        } else {
            fs::remove_file(&path).unwrap();
        }
    }
    fs::create_dir_all(s.project.join(".git")).unwrap();
    s.file("skills/zebra-tools/SKILL.md", SKILL);
    s.file(
        "docs/agents/canonical-subagents.yaml",
        &regex::Regex::new(r"(?s)    skillAffinities:\n(      - [^\n]*\n)+")
            .unwrap()
            .replace_all(
                include_str!("../../docs/agents/canonical-subagents.yaml"),
                "    skillAffinities: []\n",
            ),
    );
}

#[test]
fn every_writer_leaves_foreign_files_and_symlinks_alone() {
    let s = Sandbox::new();
    let victim = s.home.join("victim.txt");
    let mut broken = Vec::new();
    for w in WRITERS {
        for target in [
            Target::Absent,
            Target::Ours,
            Target::Foreign,
            Target::Symlink,
            Target::SymlinkInside,
        ] {
            project(&s);
            trust::write(&victim, "VICTIM\n");
            let path = s.project.join(w.file);
            match target {
                Target::Absent => {}
                Target::Ours => {
                    let r = s.run(&s.project, w.args, b"");
                    assert_eq!(r.code, 0, "{:?}: {}{}", w.args, r.stdout, r.stderr);
                    let text = fs::read_to_string(&path).unwrap();
                    // Ours but stale: a changed byte inside our own format.
                    fs::write(&path, text.replacen("zebra", "zebrb", 1)).unwrap();
                }
                Target::Foreign => {
                    trust::write(&path, FOREIGN);
                }
                Target::Symlink => {
                    fs::create_dir_all(path.parent().unwrap()).unwrap();
                    symlink(&victim, &path).unwrap();
                }
                Target::SymlinkInside => {
                    trust::write(&s.project.join(".env"), FOREIGN);
                    fs::create_dir_all(path.parent().unwrap()).unwrap();
                    symlink(s.project.join(".env"), &path).unwrap();
                }
            }
            let r = s.run(&s.project, w.args, b"");
            let after = fs::symlink_metadata(&path);
            let ok = match target {
                Target::Absent | Target::Ours => {
                    after.is_ok_and(|m| m.is_file())
                        && !fs::read_to_string(&path).unwrap().contains(FOREIGN)
                }
                // `--force` is the user's explicit choice: replaced, with a backup kept.
                Target::Foreign if w.args.contains(&"--force") => {
                    !fs::read_to_string(&path).unwrap().contains(FOREIGN)
                        && trust::tree(&s.home.join(".local/state/sophia-hook/agent-backups"))
                            .values()
                            .any(|(_, c)| c.as_deref() == Some(FOREIGN.as_bytes()))
                }
                Target::Foreign => fs::read_to_string(&path).is_ok_and(|t| t == FOREIGN),
                Target::Symlink => {
                    after.is_ok_and(|m| m.file_type().is_symlink())
                        && fs::read_to_string(&victim).unwrap() == "VICTIM\n"
                }
                Target::SymlinkInside => {
                    after.is_ok_and(|m| m.file_type().is_symlink())
                        && fs::read_to_string(s.project.join(".env")).unwrap() == FOREIGN
                }
            };
            if !ok {
                broken.push(format!(
                    "{:?} with {target:?} {}: exit {}: {}{}",
                    w.args,
                    w.file,
                    r.code,
                    r.stdout.lines().last().unwrap_or(""),
                    r.stderr.trim()
                ));
            }
        }
    }
    assert!(broken.is_empty(), "{}", broken.join("\n"));
}

/// Values a repository may give the path keys that are not a file of our kind in `.sophia/`.
const BAD_VALUES: &[&str] = &[
    ".env",
    ".claude/settings.local.json",
    ".codex/hooks.json",
    "docs/notes.json",
    "notes.tsv",
    "README.md",
    ".sophia/notes.txt",
    ".sophia/.gitignore",
    ".sophia/sub/index.tsv",
    "./.env",
    ".sophia/../.env",
    ".sophia",
    "",
];

#[test]
fn path_keys_name_only_our_own_files_in_the_sophia_folder() {
    let s = Sandbox::new();
    let mut broken = Vec::new();
    for key in ["skills_index", "agent_catalog"] {
        for value in BAD_VALUES {
            project(&s);
            s.file(".sophia-hook.yaml", &format!("{key}: \"{value}\"\n"));
            let victim = (!value.is_empty() && *value != ".sophia")
                .then(|| trust::write(&s.project.join(value), FOREIGN));
            let tool: &[&str] = if key == "skills_index" {
                &["skills", "index", "--host", "codex"]
            } else {
                &["catalog", "build"]
            };
            let r = s.run(&s.project, tool, b"");
            let said = format!("{}{}", r.stdout, r.stderr);
            if r.code == 0 || !said.contains(&format!("config-ignored:{key}")) {
                broken.push(format!(
                    "{key}: {value:?}: {tool:?} exit {}: {said}",
                    r.code
                ));
            }
            let install = s.run(&s.project, &["install", "--host", "codex"], b"");
            if key == "agent_catalog" && install.code == 0 {
                broken.push(format!("{key}: {value:?}: install accepted it"));
            }
            if let Some(victim) = &victim
                && fs::read_to_string(victim).ok().as_deref() != Some(FOREIGN)
            {
                broken.push(format!(
                    "{key}: {value:?}: {} was replaced",
                    victim.to_string_lossy()
                ));
            }
            let explain = s.run(&s.project, &["explain", "--prompt", "zebra"], b"");
            if !explain.stdout.contains(&format!("config-ignored:{key}:")) {
                broken.push(format!(
                    "{key}: {value:?}: the hook did not say config-ignored"
                ));
            }
        }
        // A file of ours in `.sophia/` is accepted.
        project(&s);
        let ok = if key == "skills_index" {
            ".sophia/mine.tsv"
        } else {
            ".sophia/mine.json"
        };
        s.file(".sophia-hook.yaml", &format!("{key}: {ok}\n"));
        let tool: &[&str] = if key == "skills_index" {
            &["skills", "index", "--host", "codex"]
        } else {
            &["catalog", "build"]
        };
        let r = s.run(&s.project, tool, b"");
        assert_eq!(r.code, 0, "{key}: {ok}: {}{}", r.stdout, r.stderr);
        assert!(Path::new(&s.project.join(ok)).is_file(), "{key}: {ok}");
    }
    assert!(broken.is_empty(), "{}", broken.join("\n"));
}

/// Issue 18, second pass, case 24: a project's settings file reached through a link. For every
/// host, the settings file — or its folder — linked to each JSON file a repository holds
/// (`package.json`, `tsconfig.json`, `.vscode/settings.json`, `.claude/settings.local.json`,
/// another host's settings file, a copy in a subfolder): project-scope `install` refuses and the
/// file it leads to is left byte for byte. A link that leads back to the host's own file (the
/// project reached through a symlinked path) is written.
#[test]
fn a_linked_project_settings_file_is_written_only_when_it_is_the_hosts_own() {
    const HOSTS: [(&str, &str); 4] = [
        ("codex", ".codex/hooks.json"),
        ("claude", ".claude/settings.json"),
        ("gemini", ".gemini/settings.json"),
        ("antigravity", ".agents/hooks.json"),
    ];
    let targets = [
        "package.json",
        "tsconfig.json",
        ".vscode/settings.json",
        ".claude/settings.local.json",
        "sub/.codex/hooks.json",
        "sub/.claude/settings.json",
        ".codex/hooks.json",
        ".gemini/settings.json",
    ];
    let user_file = "{\n  \"name\": \"the-users-own\",\n  \"version\": \"1.0.0\"\n}\n";
    let mut failures = Vec::new();
    let mut checked = 0;
    for (host, own) in HOSTS {
        for target in targets.iter().filter(|t| **t != own) {
            for link_folder in [false, true] {
                let s = Sandbox::new();
                let file = s.file(target, user_file);
                let own_path = s.project.join(own);
                if link_folder {
                    // The settings folder linked to the target's folder, when the names match.
                    if Path::new(target).file_name() != Path::new(own).file_name() {
                        continue;
                    }
                    symlink(file.parent().unwrap(), own_path.parent().unwrap()).unwrap();
                } else {
                    fs::create_dir_all(own_path.parent().unwrap()).unwrap();
                    symlink(&file, &own_path).unwrap();
                }
                let r = s.run(
                    &s.project,
                    &[
                        "install",
                        "--host",
                        host,
                        "--scope",
                        "project",
                        "--no-agents",
                    ],
                    b"",
                );
                checked += 1;
                let after = fs::read_to_string(&file).unwrap();
                if r.code == 0 || after != user_file {
                    failures.push(format!(
                        "{host}: {own} -> {target} (folder link: {link_folder}): exit {}, {}",
                        r.code,
                        if after == user_file {
                            "unchanged"
                        } else {
                            "REWRITTEN"
                        }
                    ));
                }
            }
        }
        // The host's own file, through a symlinked project path: written.
        let s = Sandbox::new();
        let link = s.base.join("linked");
        symlink(&s.project, &link).unwrap();
        let r = s.run(
            &link,
            &[
                "install",
                "--host",
                host,
                "--scope",
                "project",
                "--no-agents",
            ],
            b"",
        );
        assert_eq!(r.code, 0, "{host}: {}{}", r.stdout, r.stderr);
        assert!(
            fs::read_to_string(s.project.join(own))
                .unwrap()
                .contains("sophia-hook"),
            "{host}"
        );
    }
    assert_eq!(checked, 38);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Second pass case 25: a repository (or anyone) can commit files named like our temporaries,
/// `.<file>.sophia-tmp-<pid>-<random>`. No writer deletes one: for every writer (the tool
/// commands that write into the project, and a hook run, which writes the user's cache), every
/// file it writes is found in a first run; then, in a fresh project, look-alikes of its
/// temporaries are planted beside each of those files — a dead writer's pid, a live one (init),
/// pid 0, a symlink to a victim, a folder, upper case — and the second run must leave every one
/// as it was, while writing its files again. Before the fix the stale-temp cleanup removed the
/// regular files and symlinks with a dead pid next to each replaced file.
#[test]
fn no_writer_deletes_a_file_named_like_our_temporaries() {
    let writers: &[&[&str]] = &[
        &["skills", "index", "--host", "codex"],
        &["catalog", "build"],
        &["install", "--host", "codex"],
        &["install", "--host", "claude"],
        &["install", "--host", "gemini"],
        &["agents", "sync", "--host", "claude"],
        &["--host", "codex", "--event", "UserPromptSubmit"],
    ];
    let mut broken = Vec::new();
    let mut planted_total = 0;
    for args in writers {
        let s = Sandbox::new();
        project(&s);
        let payload = serde_json::json!({"hook_event_name": "UserPromptSubmit", "session_id": "s1",
            "cwd": s.project, "prompt": "zebra stripes for the zoo keeping"})
        .to_string();
        let stdin = if args[0] == "--host" {
            payload.as_bytes()
        } else {
            b""
        };
        let before: Vec<_> = [&s.project, &s.home]
            .iter()
            .map(|d| trust::tree(d))
            .collect();
        let r = s.run(&s.project, args, stdin);
        assert_eq!(r.code, 0, "{args:?}: {}{}", r.stdout, r.stderr);
        // Every regular file the first run created or changed (its lock files aside).
        let mut written = Vec::new();
        for (base, old) in [&s.project, &s.home].into_iter().zip(&before) {
            for (rel, (_, bytes)) in trust::tree(base) {
                let path = base.join(&rel);
                let is_file = fs::symlink_metadata(&path).is_ok_and(|m| m.is_file());
                if is_file
                    && !rel.to_string_lossy().ends_with(".lock")
                    && old.get(&rel).map(|(_, b)| b) != Some(&bytes)
                {
                    written.push(path);
                }
            }
        }
        assert!(!written.is_empty(), "{args:?} wrote nothing");
        // A fresh project and the written files gone, so the second run writes them again.
        project(&s);
        for path in &written {
            let _ = fs::remove_file(path);
        }
        let victim = trust::write(&s.home.join("victim.txt"), "VICTIM\n");
        let mut planted = Vec::new();
        for path in &written {
            let folder = path.parent().unwrap();
            fs::create_dir_all(folder).unwrap();
            let name = path.file_name().unwrap().to_str().unwrap();
            for (i, look_alike) in [
                format!(".{name}.sophia-tmp-99999999-0"),
                format!(".{name}.sophia-tmp-99999999-abcdefgh"),
                format!(".{name}.sophia-tmp-1-x"),
                format!(".{name}.sophia-tmp-0-x"),
                format!(".{name}.sophia-tmp-99999999-link"),
                format!(".{name}.sophia-tmp-99999999-dir"),
                format!(".{}.SOPHIA-TMP-99999999-0", name.to_uppercase()),
            ]
            .into_iter()
            .enumerate()
            {
                let at = folder.join(look_alike);
                match i {
                    4 => symlink(&victim, &at).unwrap(),
                    5 => {
                        trust::write(&at.join("inside"), "REPOSITORY FILE\n");
                    }
                    _ => {
                        trust::write(&at, "REPOSITORY FILE\n");
                    }
                }
                planted.push(at);
            }
        }
        let r = s.run(&s.project, args, stdin);
        assert_eq!(r.code, 0, "{args:?}: {}{}", r.stdout, r.stderr);
        for path in &written {
            assert!(
                path.is_file(),
                "{args:?}: {} not written again",
                path.to_string_lossy()
            );
        }
        for at in &planted {
            let name = at.file_name().unwrap().to_string_lossy();
            let kept = if name.ends_with("-link") {
                fs::read_link(at).is_ok_and(|t| t == victim)
            } else if name.ends_with("-dir") {
                fs::read_to_string(at.join("inside")).is_ok_and(|t| t == "REPOSITORY FILE\n")
            } else {
                fs::read_to_string(at).is_ok_and(|t| t == "REPOSITORY FILE\n")
            };
            if !kept {
                broken.push(format!("{args:?}: {} deleted", at.to_string_lossy()));
            }
        }
        assert_eq!(fs::read_to_string(&victim).unwrap(), "VICTIM\n");
        planted_total += planted.len();
    }
    assert!(
        broken.is_empty(),
        "{} of {planted_total} look-alikes deleted:\n{}",
        broken.len(),
        broken.join("\n")
    );
}

/// Issue 48, class 4: a user's settings file with another name (a hard link from a dotfiles
/// folder) is never replaced by a rename that would detach that name: `install` and `uninstall`
/// at user scope refuse with a message naming the links, on every host, and leave both names on
/// the same, unchanged file. The availability manifest the same (`availability --write`).
#[test]
fn a_hard_linked_user_file_is_refused_never_detached() {
    use sophia_hook::hosts::Host;
    use std::os::unix::fs::MetadataExt;
    let mut cases = 0;
    for host in Host::ALL {
        for command in ["install", "uninstall"] {
            let s = trust::Sandbox::new();
            let target = host
                .spec()
                .settings
                .user
                .resolve(Some(&s.home), &Default::default())
                .unwrap();
            let before = if command == "uninstall" {
                // A file install wrote, then linked: uninstall must not detach it either.
                let run = s.run(
                    &s.project,
                    &[
                        "install",
                        "--host",
                        host.as_str(),
                        "--scope",
                        "user",
                        "--no-agents",
                    ],
                    b"",
                );
                assert_eq!(run.code, 0, "{host:?}: {}", run.stderr);
                fs::read(&target).unwrap()
            } else {
                trust::write(&target, "{}\n");
                b"{}\n".to_vec()
            };
            let other = s.base.join("dotfiles-copy");
            fs::hard_link(&target, &other).unwrap();
            let run = s.run(
                &s.project,
                &[
                    command,
                    "--host",
                    host.as_str(),
                    "--scope",
                    "user",
                    "--no-agents",
                ],
                b"",
            );
            assert_ne!(run.code, 0, "{host:?} {command}: {}", run.stdout);
            assert!(
                run.stderr.contains("hard links"),
                "{host:?} {command}: {}",
                run.stderr
            );
            let (a, b) = (
                fs::metadata(&target).unwrap(),
                fs::metadata(&other).unwrap(),
            );
            assert_eq!(
                (a.ino(), a.nlink()),
                (b.ino(), 2),
                "{host:?} {command}: detached"
            );
            assert_eq!(
                fs::read(&target).unwrap(),
                before,
                "{host:?} {command}: changed"
            );
            cases += 1;
        }
    }
    assert_eq!(cases, 2 * Host::ALL.len());
}
