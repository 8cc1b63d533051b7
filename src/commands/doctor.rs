//! `sophia-hook doctor`: every host's setup checked, with how to fix what is wrong.

use std::io::Write;
use std::path::PathBuf;

use super::{binary_path, project_root_arg};
use crate::edge::settings::Settings;
use crate::hosts::Host;

#[derive(Debug, clap::Args)]
pub struct DoctorArgs {
    /// Check only this host (default: every host; one that is not installed is not a failure).
    #[arg(long, value_enum)]
    pub host: Option<Host>,
    /// The project root (default: the git root above the current directory).
    #[arg(long)]
    pub root: Option<PathBuf>,
    /// The binary the hosts should run (default: this executable; a bare `sophia-hook`: the one
    /// on PATH).
    #[arg(long)]
    pub binary: Option<PathBuf>,
    /// Print the checks as JSON: `{"ok": bool, "checks": [{status, area, detail, fix}]}`.
    #[arg(long)]
    pub json: bool,
}

/// Runs `doctor`; `Ok(false)` when a check failed.
pub fn doctor(stdout: &mut dyn Write, args: &DoctorArgs, settings: &Settings) -> super::Outcome {
    use crate::ops::doctor;
    let host = args.host;
    let root = project_root_arg(args.root.clone())?;
    // `--binary sophia-hook`: the one PATH gives, as the hosts would find it.
    let binary = match args.binary.as_deref().map(|b| b.to_string_lossy()) {
        Some(name) if crate::edge::program::is_bare(&name) => {
            let found =
                crate::edge::program::resolve(&name, settings.search_path.as_deref(), root.given())
                    .map_err(|why| anyhow::anyhow!("--binary {name}: {why}"))?;
            binary_path(Some(&found))?
        }
        _ => binary_path(args.binary.as_deref())?,
    };
    let input = doctor::DoctorInput {
        root: &root,
        settings,
        binary: &binary,
        hosts: host.map_or_else(|| Host::ALL.to_vec(), |h| vec![h]),
        explicit: host.is_some(),
        live_runs: true,
    };
    let checks = doctor::run(&input);
    let ok = !checks.iter().any(|c| c.status == doctor::Status::Fail);
    if args.json {
        let value = serde_json::json!({ "ok": ok, "checks": checks });
        writeln!(stdout, "{}", serde_json::to_string_pretty(&value)?)?;
    } else {
        write!(stdout, "{}", doctor::render(&checks))?;
    }
    Ok(ok.into())
}
