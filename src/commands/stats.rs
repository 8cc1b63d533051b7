//! `sophia-hook stats`: a summary of the analytics log.

use crate::charset::Shown as _;
use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;

use crate::edge::settings::Settings;

#[derive(Debug, clap::Args)]
pub struct StatsArgs {
    /// Only runs since then: a duration back from now (7d, 36h, 2w, 90m), a date (2026-11-01)
    /// or an RFC 3339 timestamp.
    #[arg(long)]
    pub since: Option<String>,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
    /// The log file (default: the analytics file).
    #[arg(long)]
    pub file: Option<PathBuf>,
}

pub fn stats(
    stdout: &mut dyn Write,
    args: &StatsArgs,
    settings: &Settings,
    clock: &dyn crate::clock::Clock,
) -> super::Outcome {
    let (since, json, file) = (args.since.clone(), args.json, args.file.clone());
    // A file named on the command line must be there; the default log may not exist yet.
    let explicit = file.is_some();
    let path = file
        .or_else(|| settings.analytics_file.clone())
        .context("no analytics file: analytics are off (SOPHIA_ANALYTICS=off) or HOME is not set; pass --file")?;
    let since = since
        .map(|s| crate::stats::parse_since(&s, clock.now()))
        .transpose()
        .map_err(|e| anyhow::anyhow!(e))?;
    // Streamed, as the report reads it: memory stays flat whatever the log's size.
    let mut mix = crate::stats::summary_since(since);
    match crate::ops::report::read_log(&path, &mut mix) {
        Ok(()) => {}
        Err(crate::edge::files::ReadError::Missing) if !explicit => {}
        Err(crate::edge::files::ReadError::Missing) => {
            anyhow::bail!("--file {}: no such file", path.shown())
        }
        Err(e) => return Err(e).with_context(|| format!("reading {}", path.shown())),
    }
    let summary = crate::stats::Stats::from_mix(&mix.finish());
    if json {
        writeln!(stdout, "{}", serde_json::to_string_pretty(&summary)?)?;
    } else {
        writeln!(stdout, "{}", path.shown())?;
        write!(stdout, "{}", crate::stats::render(&summary))?;
    }
    Ok(super::Verdict::Pass)
}
