//! `sophia-hook report`: one self-contained HTML page.

use crate::charset::Shown as _;
use std::io::Write;
use std::path::PathBuf;

use anyhow::bail;

use super::{binary_path, project_root_arg};
use crate::clock::Clock;
use crate::edge::settings::Settings;
use crate::hosts::Host;

#[derive(Debug, clap::Args)]
pub struct ReportArgs {
    /// Only this host's setup and routing (default: every host).
    #[arg(long, value_enum)]
    pub host: Option<Host>,
    /// Where to write the page, in a folder that exists (default: <state
    /// dir>/sophia-hook/report.html, e.g. ~/.local/state/sophia-hook/report.html).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// The period: a duration back from now (7d, 36h, 2w, 90m), a date (2026-11-01) or an
    /// RFC 3339 timestamp. Default: 7d.
    #[arg(long)]
    pub since: Option<String>,
    /// The analytics log (default: the analytics file); it must exist when named.
    #[arg(long)]
    pub file: Option<PathBuf>,
    /// The project root (default: the git root above the current directory).
    #[arg(long)]
    pub root: Option<PathBuf>,
    /// The binary the hosts should run (default: this executable).
    #[arg(long)]
    pub binary: Option<PathBuf>,
    /// Labelled prompts (an `eval` cases file) to measure the project's skill routing on: the
    /// page adds named precision, recall (named) and ranking top-1 with their curve, beside
    /// BM25F. Figures only; no prompt of the file reaches the page.
    #[arg(long, value_name = "CASES")]
    pub eval: Option<PathBuf>,
}

/// Runs `report`: writes the page and prints its path.
pub fn report_page(
    stdout: &mut dyn Write,
    args: ReportArgs,
    settings: &Settings,
    clock: &dyn Clock,
) -> super::Outcome {
    // Named on the command line: a typo is an error, and no folder is made for it.
    if let Some(file) = &args.file
        && !crate::edge::files::Place::user(file).exists()
    {
        bail!("--file {}: no such file", file.shown());
    }
    if let Some(out) = &args.out {
        let parent = out.parent().filter(|p| !p.as_os_str().is_empty());
        if let Some(dir) = parent.filter(|d| !crate::edge::files::Place::user(*d).is_dir()) {
            bail!(
                "--out {}: the folder {} does not exist (create it first); nothing was written",
                out.shown(),
                dir.shown()
            );
        }
    }
    let args = crate::ops::report::ReportArgs {
        out: args.out,
        since: args.since,
        host: args.host,
        root: project_root_arg(args.root)?,
        binary: binary_path(args.binary.as_deref())?,
        file: args.file,
        eval: args.eval,
    };
    let path = crate::ops::report::run(&args, settings, clock)?;
    writeln!(stdout, "{}", path.shown())?;
    Ok(super::Verdict::Pass)
}
