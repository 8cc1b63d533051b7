//! `sophia-hook report`: one self-contained HTML page.

use std::io::Write;
use std::path::PathBuf;

use super::{binary_path, project_root_arg};
use crate::clock::Clock;
use crate::edge::settings::Settings;
use crate::payload::Host;

#[derive(Debug, clap::Args)]
pub struct ReportArgs {
    /// Where to write the page (default: <state dir>/sophia-hook/report.html, e.g.
    /// ~/.local/state/sophia-hook/report.html).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// The period: a duration back from now (7d, 36h, 2w, 90m), a date (2026-11-01) or an
    /// RFC 3339 timestamp. Default: 7d.
    #[arg(long)]
    pub since: Option<String>,
    /// The analytics log (default: the analytics file).
    #[arg(long)]
    pub file: Option<PathBuf>,
    /// The project root (default: the git root above the current directory).
    #[arg(long)]
    pub root: Option<PathBuf>,
    /// The binary the hosts should run (default: this executable).
    #[arg(long)]
    pub binary: Option<PathBuf>,
}

/// Runs `report`: writes the page and prints its path.
#[allow(clippy::too_many_arguments)]
pub fn report_page(
    stdout: &mut dyn Write,
    host: Option<Host>,
    out: Option<PathBuf>,
    since: Option<String>,
    file: Option<PathBuf>,
    root: Option<PathBuf>,
    binary: Option<PathBuf>,
    settings: &Settings,
    clock: &dyn Clock,
) -> anyhow::Result<()> {
    let args = crate::edge::report::ReportArgs {
        out,
        since,
        host,
        root: project_root_arg(root)?,
        binary: binary_path(binary.as_deref())?,
        file,
    };
    let path = crate::edge::report::run(&args, settings, clock)?;
    writeln!(stdout, "{}", path.display())?;
    Ok(())
}
