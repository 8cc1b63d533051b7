//! The tool subcommands, one module each with its clap types beside it. `cli.rs` parses the
//! command line and dispatches here; a command's body, when it is more than calling code, is in
//! `ops/`. Neither `ops/` nor the adapters in `edge/` import from here (a test in
//! `tests/it/layers.rs` keeps it so).

pub mod agents;
pub mod availability;
pub mod catalog;
pub mod doctor;
pub mod eval;
pub mod explain;
pub mod hook;
pub mod install;
pub mod plugin;
pub mod report;
pub mod skills;
pub mod stats;
pub mod status;
pub mod telemetry;

use crate::charset::Shown as _;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

use crate::edge::files::{Place, ProjectRoot};
use crate::edge::project::project_root;
use crate::edge::settings::Settings;
use crate::hosts::Host;
use crate::hosts::Scope;

/// The project a tool command works on (`--root`, else the git root above the current folder),
/// opened: every file of it is reached through this handle (`edge::files::ProjectRoot`).
pub fn project_root_arg(root: Option<PathBuf>) -> anyhow::Result<ProjectRoot> {
    let path = match root {
        Some(root) => {
            existing_dir("--root", &root)?;
            root
        }
        None => {
            let cwd = std::env::current_dir().context("reading the current directory")?;
            project_root(&cwd)
        }
    };
    ProjectRoot::open(&path).with_context(|| format!("opening the project {}", path.shown()))
}

/// The absolute path of the binary to register.
pub fn binary_path(explicit: Option<&std::path::Path>) -> anyhow::Result<PathBuf> {
    let path = match explicit {
        Some(p) => p.to_path_buf(),
        None => std::env::current_exe().context("finding this executable")?,
    };
    // `dunce`: on Windows the plain `C:\...` form, never the `\\?\` one `fs::canonicalize` gives,
    // which hosts (and the shells they run hooks through) do not accept as a command.
    let path = dunce::canonicalize(&path).unwrap_or(path);
    if !path.is_absolute() {
        bail!("the binary path {} is not absolute", path.shown());
    }
    Ok(path)
}

/// The settings file of a host for a scope.
pub fn settings_path(
    host: Host,
    scope: Scope,
    root: &ProjectRoot,
    settings: &Settings,
) -> anyhow::Result<Place> {
    let home = settings
        .home
        .as_deref()
        .context("the home directory is unknown (HOME is not set)")?;
    Ok(crate::edge::hostconfig::settings_place(
        host,
        scope,
        root,
        home,
        &settings.host_homes,
    ))
}

pub fn skill_ids_of(root: &ProjectRoot) -> std::collections::BTreeSet<String> {
    crate::edge::skills::load(root)
        .catalog
        .skills
        .into_iter()
        .map(|s| s.id)
        .collect()
}

/// What a tool subcommand found: it ran and passed (exit 0) or a check failed (exit 1); an
/// `Err` is "could not run" (exit 2). `cli::exit_code` alone turns this into the exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Pass,
    Fail,
}

pub type Outcome = anyhow::Result<Verdict>;

impl From<bool> for Verdict {
    fn from(passed: bool) -> Verdict {
        if passed { Verdict::Pass } else { Verdict::Fail }
    }
}

/// What hook mode and `explain` say when stdin is a terminal instead of waiting for a payload.
pub const TERMINAL_HINT: &str = "sophia-hook: stdin is a terminal. Without a subcommand, \
sophia-hook is a command hook that the host runs with its JSON payload on stdin, e.g.\n  \
echo '{\"hook_event_name\":\"UserPromptSubmit\",\"prompt\":\"!quick hi\"}' | sophia-hook --host claude\n\
Try `sophia-hook explain --prompt TEXT`, `sophia-hook install --host HOST` or `sophia-hook --help`.";

/// True when the error is a write to a closed pipe (the reader went away): not a failure.
pub fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|e| {
        e.downcast_ref::<std::io::Error>()
            .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// Standard output that drops everything once the reader has closed the pipe, so a command
/// finishes its work (every file of `agents sync`) and exits 0 instead of stopping half way.
pub struct PipeSafe<'a> {
    inner: &'a mut dyn Write,
    closed: bool,
}

impl<'a> PipeSafe<'a> {
    pub fn new(inner: &'a mut dyn Write) -> PipeSafe<'a> {
        PipeSafe {
            inner,
            closed: false,
        }
    }
}

impl Write for PipeSafe<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.closed {
            return Ok(buf.len());
        }
        match self.inner.write(buf) {
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {
                self.closed = true;
                Ok(buf.len())
            }
            other => other,
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        if self.closed {
            return Ok(());
        }
        match self.inner.flush() {
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {
                self.closed = true;
                Ok(())
            }
            other => other,
        }
    }
}

/// A folder the user named on the command line (`--root`, `--cwd`) must exist: a typo is an
/// error, not a run against nothing.
pub fn existing_dir(flag: &str, path: &Path) -> anyhow::Result<()> {
    let place = Place::user(path);
    if !place.is_dir() {
        bail!(
            "{flag} {}: no such folder{}",
            path.shown(),
            if place.exists() {
                " (it is a file)"
            } else {
                ""
            }
        );
    }
    Ok(())
}

/// A check that ran and failed, reported on stderr like an error but exiting 1 (see
/// [`Verdict`]).
#[derive(Debug)]
pub struct CheckFailed(pub String);

impl std::fmt::Display for CheckFailed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for CheckFailed {}

#[cfg(test)]
mod tests {
    // Tests set up their files and folders directly.
    #![allow(clippy::disallowed_methods)]
    /// The path written into host settings is a plain absolute path: on Windows `C:\...`, never
    /// the verbatim `\\?\C:\...` that `std::fs::canonicalize` gives (checked under Wine in CI).
    #[test]
    fn the_registered_binary_path_is_plain_and_absolute() {
        let dir = tempfile::tempdir().unwrap();
        let exe = dir.path().join("sophia-hook.exe");
        std::fs::write(&exe, "").unwrap();
        for explicit in [None, Some(exe.as_path())] {
            let path = super::binary_path(explicit).unwrap();
            let text = path.to_str().unwrap();
            assert!(path.is_absolute(), "{text}");
            assert!(!text.starts_with(r"\\?\"), "{text}");
            #[cfg(windows)]
            assert!(
                text.as_bytes()[1] == b':' && text.as_bytes()[2] == b'\\',
                "{text}"
            );
        }
        assert!(
            super::binary_path(Some(&exe))
                .unwrap()
                .ends_with("sophia-hook.exe")
        );
    }
}
