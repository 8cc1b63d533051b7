//! `sophia-hook skills index`: the project's skills compiled into the hook's index.

use crate::charset::Shown as _;
use std::io::Write;
use std::path::PathBuf;

use anyhow::bail;
use clap::Subcommand;

use super::project_root_arg;
use crate::edge::settings::Settings;
use crate::edge::skills;
use crate::hosts::Host;

#[derive(Debug, Subcommand)]
pub enum SkillsCommand {
    /// Compile `skills/*/SKILL.md` of the project into `.sophia/skills-index.tsv`, which the hook
    /// uses while it is fresh.
    Index {
        /// The project root (default: the git root above the current directory).
        #[arg(long)]
        root: Option<PathBuf>,
        /// Index only the folders this host sees (default: one index per host that has skills).
        #[arg(long, value_enum)]
        host: Option<Host>,
        /// Where to write the index (only with `--host`: without it, one index is written per
        /// host that has skills, since each host sees its own folders).
        #[arg(long)]
        out: Option<PathBuf>,
    },
}

/// Runs `skills …`.
pub fn run(
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
    command: SkillsCommand,
    settings: &Settings,
) -> super::Outcome {
    match command {
        SkillsCommand::Index { root, host, out } => {
            skills_index(stdout, stderr, root, host, out, settings)?;
        }
    }
    Ok(super::Verdict::Pass)
}

pub fn skills_index(
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
    root: Option<PathBuf>,
    host: Option<Host>,
    out: Option<PathBuf>,
    settings: &Settings,
) -> anyhow::Result<()> {
    let root = project_root_arg(root)?;
    if out.is_some() && host.is_none() {
        bail!("--out needs --host: each host gets its own index");
    }
    let homes = skills::Homes::from_settings(settings);
    let hosts: Vec<Host> = match host {
        Some(h) => vec![h],
        None => Host::ALL.to_vec(),
    };
    let mut built = 0;
    let mut last_error = None;
    let mut machine = false;
    for host in hosts {
        match skills::build_index(
            &root,
            host,
            &homes,
            out.as_deref()
                .map(|o| crate::edge::project::flag_place(Some(&root), o)),
            settings.cache_dir.as_deref(),
        ) {
            Ok(files) => {
                for file in files {
                    built += 1;
                    machine |= file.machine;
                    let catalog = &file.catalog;
                    writeln!(
                        stdout,
                        "{}: wrote {} ({} skills, {} skipped, fingerprint {})",
                        host.as_str(),
                        file.place.path().shown(),
                        catalog.skills.len(),
                        catalog.warnings.len(),
                        catalog.source_fingerprint
                    )?;
                    for warning in &catalog.warnings {
                        // A warning names files: one line, whatever their names hold.
                        let warning = crate::charset::terminal(warning);
                        writeln!(stderr, "sophia-hook: warning: {}: {warning}", host.as_str())?;
                    }
                }
            }
            Err(e) => last_error = Some(e),
        }
    }
    if machine {
        writeln!(
            stdout,
            "note: your own skills are compiled into this machine's copy in your cache folder, never into the project"
        )?;
    }
    match (built, last_error) {
        (0, Some(e)) if host.is_some() => Err(e),
        // A refused index path is the same for every host: say so, not "no skills found".
        (0, Some(e)) if e.to_string().starts_with("refusing") => Err(e),
        (0, _) => anyhow::bail!(
            "no skills found in {} for any host (the hook uses the embedded default catalog)",
            root.path().shown()
        ),
        _ => Ok(()),
    }
}
