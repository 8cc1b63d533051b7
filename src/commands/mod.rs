//! The tool subcommands, one module each with its clap types beside it. `cli.rs` parses the
//! command line and dispatches here; the adapters in `edge/` never import from here (a test in
//! `tests/layers.rs` keeps it so).

pub mod agents;
pub mod availability;
pub mod catalog;
pub mod doctor;
pub mod eval;
pub mod explain;
pub mod install;
pub mod report;
pub mod skills;
pub mod stats;

use std::path::PathBuf;

use anyhow::{Context, bail};

use crate::edge::project::project_root;
use crate::edge::settings::Settings;
use crate::install::Scope;
use crate::payload::Host;

pub fn project_root_arg(root: Option<PathBuf>) -> anyhow::Result<PathBuf> {
    match root {
        Some(root) => Ok(root),
        None => {
            let cwd = std::env::current_dir().context("reading the current directory")?;
            Ok(project_root(&cwd))
        }
    }
}

/// The absolute path of the binary to register.
pub fn binary_path(explicit: Option<&std::path::Path>) -> anyhow::Result<PathBuf> {
    let path = match explicit {
        Some(p) => p.to_path_buf(),
        None => std::env::current_exe().context("finding this executable")?,
    };
    let path = std::fs::canonicalize(&path).unwrap_or(path);
    if !path.is_absolute() {
        bail!("the binary path {} is not absolute", path.display());
    }
    Ok(path)
}

/// The settings file of a host for a scope.
pub fn settings_path(
    host: Host,
    scope: Scope,
    root: &std::path::Path,
    settings: &Settings,
) -> anyhow::Result<PathBuf> {
    let home = settings
        .home
        .as_deref()
        .context("the home directory is unknown (HOME is not set)")?;
    Ok(crate::install::config_path(
        host,
        scope,
        root,
        home,
        settings.codex_home.as_deref(),
    ))
}

pub fn skill_ids_of(root: &std::path::Path) -> std::collections::BTreeSet<String> {
    crate::edge::skills::load(root)
        .catalog
        .skills
        .into_iter()
        .map(|s| s.id)
        .collect()
}
