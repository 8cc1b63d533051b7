//! `sophia-hook doctor`: every host's setup checked, with how to fix what is wrong.

use std::io::Write;
use std::path::PathBuf;

use super::{binary_path, project_root_arg};
use crate::edge::settings::Settings;
use crate::payload::Host;

#[derive(Debug, clap::Args)]
pub struct DoctorArgs {
    /// The project root (default: the git root above the current directory).
    #[arg(long)]
    pub root: Option<PathBuf>,
    /// The binary the hosts should run (default: this executable).
    #[arg(long)]
    pub binary: Option<PathBuf>,
}

/// Runs `doctor`; `Ok(false)` when a check failed.
pub fn doctor(
    stdout: &mut dyn Write,
    host: Option<Host>,
    root: Option<PathBuf>,
    binary: Option<PathBuf>,
    settings: &Settings,
) -> anyhow::Result<bool> {
    use crate::edge::doctor;
    let root = project_root_arg(root)?;
    let binary = binary_path(binary.as_deref())?;
    let input = doctor::DoctorInput {
        root: &root,
        settings,
        binary: &binary,
        hosts: host.map_or_else(|| Host::ALL.to_vec(), |h| vec![h]),
        explicit: host.is_some(),
        live_runs: true,
    };
    let checks = doctor::run(&input);
    write!(stdout, "{}", doctor::render(&checks))?;
    Ok(!checks.iter().any(|c| c.status == doctor::Status::Fail))
}
