//! A sandbox for the trust-layer invariant tests (`docs/security.md` `## Invariants`): a fresh
//! HOME, a project (a git root) and a second, clean project, with the real binary run inside,
//! optionally under a chosen umask.

#![allow(dead_code)]

pub use crate::common::{Run, exe};

use crate::common;
use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};

pub const BIN: &str = env!("CARGO_BIN_EXE_sophia-hook");

pub struct Sandbox {
    _dir: tempfile::TempDir,
    pub base: PathBuf,
    pub home: PathBuf,
    pub project: PathBuf,
    pub other: PathBuf,
}

impl Sandbox {
    pub fn new() -> Sandbox {
        let dir = tempfile::tempdir().unwrap();
        let base = dunce::canonicalize(dir.path()).unwrap();
        let s = Sandbox {
            home: base.join("home"),
            project: base.join("project"),
            other: base.join("other"),
            base,
            _dir: dir,
        };
        for d in [&s.home, &s.project, &s.other] {
            fs::create_dir_all(d).unwrap();
        }
        fs::create_dir_all(s.project.join(".git")).unwrap();
        fs::create_dir_all(s.other.join(".git")).unwrap();
        s
    }

    /// Writes `text` at `rel` under the project.
    pub fn file(&self, rel: &str, text: &str) -> PathBuf {
        write(&self.project.join(rel), text)
    }

    pub fn run(&self, cwd: &Path, args: &[&str], stdin: &[u8]) -> Run {
        self.run_umask(cwd, args, stdin, None)
    }

    /// Runs the binary in `cwd` with a clean environment under the sandbox's HOME; `umask`, when
    /// given, is set in the child before it starts.
    pub fn run_umask(&self, cwd: &Path, args: &[&str], stdin: &[u8], umask: Option<u32>) -> Run {
        let home = self.home.to_str().unwrap();
        let mut cmd = common::Sandbox::new(&self.home)
            .cwd(cwd)
            .env("XDG_CONFIG_HOME", format!("{home}/.config"))
            .env("XDG_CACHE_HOME", format!("{home}/.cache"))
            .env("XDG_STATE_HOME", format!("{home}/.local/state"))
            .command(args);
        if let Some(mask) = umask {
            // SAFETY: umask is async-signal-safe; nothing else runs between fork and exec.
            unsafe {
                cmd.pre_exec(move || {
                    libc::umask(mask as libc::mode_t);
                    Ok(())
                });
            }
        }
        common::run_command(cmd, stdin)
    }

    /// A Codex prompt in `cwd`, as the host sends it.
    pub fn prompt(&self, cwd: &Path, prompt: &str) -> Run {
        let payload = serde_json::json!({"hook_event_name": "UserPromptSubmit", "session_id": "s1", "cwd": cwd, "prompt": prompt});
        self.run(
            cwd,
            &["--host", "codex", "--event", "UserPromptSubmit"],
            payload.to_string().as_bytes(),
        )
    }
}

pub fn write(path: &Path, text: &str) -> PathBuf {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
    path.to_path_buf()
}

/// Every entry under `dir` (not following symlinks): relative path → (mode, contents or link
/// target); folders have no contents.
pub fn tree(dir: &Path) -> BTreeMap<PathBuf, (u32, Option<Vec<u8>>)> {
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

fn walk(base: &Path, dir: &Path, out: &mut BTreeMap<PathBuf, (u32, Option<Vec<u8>>)>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let meta = fs::symlink_metadata(&path).unwrap();
        let rel = path.strip_prefix(base).unwrap().to_path_buf();
        let mode = meta.permissions().mode() & 0o7777;
        if meta.file_type().is_symlink() {
            let target = fs::read_link(&path).unwrap();
            out.insert(
                rel,
                (mode, Some(target.into_os_string().into_encoded_bytes())),
            );
        } else if meta.is_dir() {
            out.insert(rel, (mode, None));
            walk(base, &path, out);
        } else {
            out.insert(rel, (mode, Some(fs::read(&path).unwrap())));
        }
    }
}
