//! I6 — private by default (`docs/security.md` `### I6`): under a permissive umask (0o000),
//! every file any writer creates is readable by the user only (no group or other bits) and every
//! folder it creates is 0700; an existing file keeps its mode and so does its backup; a backup
//! never reads through a symlink.
//!
//! Unix only: it plants Unix modes, umasks, symlinks and `sh -c` (the harness in `tests/it/trust/`); on Windows the trust layer's
//! guarantees are held by the unit tests of `edge::files` and `edge::platform` (docs/architecture.md).
// Tests and benches set up and read their files directly; the door (clippy.toml) is for the crate.
#![allow(clippy::disallowed_methods)]
#![cfg(unix)]

use crate::trust;

use std::fs;
use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::PathBuf;

use trust::{Sandbox, tree};

const SKILL: &str = "---\nname: zebra-tools\ndescription: Zebra stripes and zoo keeping\nkeywords: [zebra]\n---\n# Zebra\n";

/// Every writer, as the command line that runs it (all in the project).
fn writers() -> Vec<Vec<&'static str>> {
    let mut out: Vec<Vec<&str>> = Vec::new();
    for host in ["codex", "claude", "gemini", "antigravity"] {
        out.push(vec!["install", "--host", host]);
        out.push(vec!["install", "--host", host, "--scope", "user"]);
    }
    out.push(vec!["agents", "sync", "--host", "all"]);
    out.push(vec!["agents", "sync", "--host", "all", "--scope", "user"]);
    out.push(vec!["skills", "index"]);
    out.push(vec!["catalog", "build"]);
    out.push(vec!["availability", "--write"]);
    out.push(vec!["report"]);
    out
}

/// A fresh HOME and project with one skill and a canonical source (whose affinities are cleared,
/// since the project's one skill is all its skill catalog has).
fn fresh(s: &Sandbox, canonical: &str) {
    for d in [&s.home, &s.project] {
        let _ = fs::remove_dir_all(d);
        fs::create_dir_all(d).unwrap();
    }
    fs::create_dir_all(s.project.join(".git")).unwrap();
    s.file("skills/zebra-tools/SKILL.md", SKILL);
    s.file("docs/agents/canonical-subagents.yaml", canonical);
}

#[test]
fn everything_created_is_private_under_a_permissive_umask() {
    let s = Sandbox::new();
    let mut bad = Vec::new();
    let mut runs: Vec<Vec<&str>> = writers();
    runs.push(vec!["hook"]);
    let canonical = regex::Regex::new(r"(?s)    skillAffinities:\n(      - [^\n]*\n)+")
        .unwrap()
        .replace_all(
            include_str!("../../docs/agents/canonical-subagents.yaml"),
            "    skillAffinities: []\n",
        )
        .into_owned();
    for args in &runs {
        fresh(&s, &canonical);
        let before: Vec<PathBuf> = [&s.home, &s.project]
            .iter()
            .flat_map(|d| tree(d).into_keys().map(move |k| d.join(k)))
            .collect();
        let run = if args[0] == "hook" {
            let payload = serde_json::json!({"hook_event_name": "UserPromptSubmit", "session_id": "s1", "cwd": s.project, "prompt": "!agents plan the zebra work"});
            s.run_umask(
                &s.project,
                &["--host", "codex", "--event", "UserPromptSubmit"],
                payload.to_string().as_bytes(),
                Some(0),
            )
        } else {
            s.run_umask(&s.project, args, b"", Some(0))
        };
        assert_eq!(run.code, 0, "{args:?}: {}{}", run.stdout, run.stderr);
        for base in [&s.home, &s.project] {
            for (rel, (mode, contents)) in tree(base) {
                let path = base.join(&rel);
                if before.contains(&path) {
                    continue;
                }
                let is_dir = contents.is_none();
                let is_link = fs::symlink_metadata(&path)
                    .unwrap()
                    .file_type()
                    .is_symlink();
                if is_link {
                    continue;
                }
                let want_private = if is_dir {
                    mode == 0o700
                } else {
                    mode & 0o077 == 0
                };
                if !want_private {
                    bad.push(format!("{args:?}: {} is {mode:o}", path.to_string_lossy()));
                }
            }
        }
    }
    assert!(bad.is_empty(), "not private:\n{}", bad.join("\n"));
}

#[test]
fn existing_files_and_their_backups_keep_their_mode() {
    let s = Sandbox::new();
    for (host, rel, mode) in [
        ("codex", ".codex/hooks.json", 0o640),
        ("claude", ".claude/settings.json", 0o600),
        ("gemini", ".gemini/settings.json", 0o644),
    ] {
        let settings = s.home.join(rel);
        trust::write(&settings, "{\"mine\": true}\n");
        fs::set_permissions(&settings, fs::Permissions::from_mode(mode)).unwrap();
        let run = s.run_umask(
            &s.project,
            &["install", "--host", host, "--scope", "user", "--no-agents"],
            b"",
            Some(0),
        );
        assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
        let now = fs::metadata(&settings).unwrap().permissions().mode() & 0o7777;
        assert_eq!(now, mode, "{host}: the settings file's mode changed");
        let backups = s.home.join(".local/state/sophia-hook/backups");
        let mut found = 0;
        for (rel, (m, contents)) in tree(&backups) {
            if rel.to_string_lossy().starts_with(&format!("{host}-")) && contents.is_some() {
                found += 1;
                assert_eq!(
                    m,
                    mode,
                    "{host}: backup {} has mode {m:o}",
                    rel.to_string_lossy()
                );
            }
        }
        assert!(found >= 1, "{host}: no backup");
    }
}

#[test]
fn a_forced_sync_never_backs_up_through_a_symlink() {
    // `~/.claude/agents/scout.md -> ~/.ssh/id_rsa`: --force must not copy the key anywhere.
    let s = Sandbox::new();
    let key = trust::write(
        &s.home.join(".ssh/id_rsa"),
        "-----BEGIN KEY----- SECRET-KEY\n",
    );
    fs::set_permissions(&key, fs::Permissions::from_mode(0o600)).unwrap();
    for host in ["claude", "codex", "gemini"] {
        let (dir, name) = match host {
            "claude" => (".claude/agents", "scout.md"),
            "codex" => (".codex/agents", "scout.toml"),
            _ => (".gemini/agents", "scout.md"),
        };
        let link = s.home.join(dir).join(name);
        fs::create_dir_all(link.parent().unwrap()).unwrap();
        symlink(&key, &link).unwrap();
        let _ = s.run_umask(
            &s.project,
            &[
                "agents", "sync", "--scope", "user", "--host", host, "--force",
            ],
            b"",
            Some(0),
        );
        assert!(
            fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink(),
            "{host}: the link was replaced"
        );
    }
    assert_eq!(
        fs::read_to_string(&key).unwrap(),
        "-----BEGIN KEY----- SECRET-KEY\n"
    );
    let copies: Vec<_> = tree(&s.home)
        .into_iter()
        .filter(|(rel, (_, c))| {
            !rel.starts_with(".ssh")
                && c.as_ref()
                    .is_some_and(|c| String::from_utf8_lossy(c).contains("SECRET-KEY"))
                && !fs::symlink_metadata(s.home.join(rel))
                    .unwrap()
                    .file_type()
                    .is_symlink()
        })
        .map(|(rel, _)| rel)
        .collect();
    assert!(copies.is_empty(), "the key was copied to {copies:?}");
}

/// Issue 48, class 4: `plugin build` follows the house rule like every writer — every file it
/// writes `0600` (the binary `0700`), every folder `0700`, under any umask (it wrote 0644/0755
/// whatever the umask). The release archives open them up themselves (scripts/dist.sh).
#[test]
fn plugin_build_writes_private_files_under_any_umask() {
    use std::os::unix::fs::PermissionsExt;
    for umask in [0o000, 0o002, 0o022, 0o077] {
        let s = trust::Sandbox::new();
        let out = s.other.join("plugins");
        let run = s.run_umask(
            &s.project,
            &[
                "plugin",
                "build",
                "--out",
                out.to_str().unwrap(),
                "--binary",
                "/bin/true",
            ],
            b"",
            Some(umask),
        );
        assert_eq!(run.code, 0, "umask {umask:o}: {}", run.stderr);
        let mut files = 0;
        for (rel, (mode, contents)) in trust::tree(&out) {
            let want = match contents {
                None => 0o700,
                Some(_) if rel.to_string_lossy().contains("/bin/") => 0o700,
                Some(_) => 0o600,
            };
            assert_eq!(
                mode,
                want,
                "umask {umask:o}: {}: {mode:o}",
                rel.to_string_lossy()
            );
            files += 1;
        }
        assert!(files > 20, "{files}");
        let top = std::fs::metadata(&out).unwrap().permissions().mode() & 0o777;
        assert_eq!(top, 0o700, "umask {umask:o}: the output folder {top:o}");
    }
}

/// `plugin install`'s folder in the user's data folder too: every file `0600` (the binary `0700`),
/// every folder it creates `0700`, under any umask. The host's CLI is left off PATH, so the
/// command stops after writing the folder (exit 2) and runs nothing.
#[test]
fn plugin_install_writes_private_files_under_any_umask() {
    use std::os::unix::process::CommandExt;
    for umask in [0o000, 0o002, 0o022, 0o077] {
        let s = trust::Sandbox::new();
        let mut cmd = crate::common::Sandbox::new(&s.home)
            .cwd(&s.project)
            .env("PATH", "/usr/bin:/bin")
            .command(&[
                "plugin",
                "install",
                "--host",
                "claude",
                "--binary",
                "/bin/true",
                "--root",
                s.project.to_str().unwrap(),
            ]);
        // SAFETY: umask is async-signal-safe; nothing else runs between fork and exec.
        unsafe {
            cmd.pre_exec(move || {
                libc::umask(umask as libc::mode_t);
                Ok(())
            });
        }
        let run = crate::common::run_command(cmd, b"");
        assert_eq!(run.code, 2, "umask {umask:o}: {}{}", run.stdout, run.stderr);
        assert!(run.stderr.contains("finish by hand"), "{}", run.stderr);
        let data = s.home.join(".local/share");
        let mut files = 0;
        for (rel, (mode, contents)) in trust::tree(&data) {
            let want = match contents {
                None => 0o700,
                Some(_) if rel.to_string_lossy().contains("/bin/") => 0o700,
                Some(_) => 0o600,
            };
            assert_eq!(
                mode,
                want,
                "umask {umask:o}: {}: {mode:o}",
                rel.to_string_lossy()
            );
            files += 1;
        }
        assert!(files > 20, "{files}");
    }
}
