//! `sophia-hook agents sync` and `agents check`: the hosts' runtime agent definitions.

use std::io::Write;
use std::path::PathBuf;

use clap::Subcommand;

use crate::edge::agents_sync::{SyncTarget, check, sync};
use crate::edge::settings::Settings;
use crate::install::Scope;
use crate::payload::Host;

#[derive(Debug, Subcommand)]
pub enum AgentsCommand {
    /// Write one definition per canonical agent for each host (--host codex|claude|gemini|all,
    /// default all): `.codex/agents/<id>.toml`, `.claude/agents/<id>.md`,
    /// `.gemini/agents/<id>.md`. Files changed by hand are kept and reported.
    ///
    /// The source follows the scope, never the repository: project scope uses the project's
    /// docs/agents/canonical-subagents.yaml (else the embedded roles); --scope user uses your
    /// own ~/.config/sophia-hook/canonical-subagents.yaml (else the embedded roles), never a
    /// file of the current repository.
    Sync {
        #[command(flatten)]
        target: AgentsTarget,
        /// Replace files changed by hand, keeping a backup in the user's state folder.
        #[arg(long)]
        force: bool,
    },
    /// Exit 1 when a definition is missing, stale or changed by hand (for a project's CI).
    Check {
        #[command(flatten)]
        target: AgentsTarget,
    },
}

#[derive(Debug, clap::Args)]
pub struct AgentsTarget {
    /// The project's host folders (default) or the user's.
    #[arg(long, value_enum, default_value = "project")]
    pub scope: Scope,
    /// The project root (default: the git root above the current directory).
    #[arg(long)]
    pub root: Option<PathBuf>,
}

/// Runs `agents sync` or `agents check`; `Ok(false)` is a failed check (exit 1).
pub fn run(
    out: &mut dyn Write,
    host: Option<Host>,
    command: AgentsCommand,
    settings: &Settings,
    clock: &dyn crate::clock::Clock,
) -> anyhow::Result<bool> {
    let (t, force) = match command {
        AgentsCommand::Sync { target, force } => (target, Some(force)),
        AgentsCommand::Check { target } => (target, None),
    };
    let target = SyncTarget {
        hosts: SyncTarget::hosts_for(host)?,
        scope: t.scope,
        root: super::project_root_arg(t.root)?,
    };
    match force {
        Some(force) => {
            let stamp = clock.now().format("%Y%m%dT%H%M%SZ").to_string();
            sync(out, &target, force, settings, &stamp)?;
            Ok(true)
        }
        None => check(out, &target, settings),
    }
}

/// `agents … --host all` means every host, which is the default: the value is dropped before
/// clap reads the global `--host` (whose values are the hosts themselves).
pub fn host_all_as_default(args: Vec<std::ffi::OsString>) -> Vec<std::ffi::OsString> {
    if !args.iter().any(|a| a == "agents") {
        return args;
    }
    let mut out = Vec::with_capacity(args.len());
    let mut iter = args.into_iter().peekable();
    while let Some(arg) = iter.next() {
        if arg == "--host=all" {
            continue;
        }
        if arg == "--host" && iter.peek().is_some_and(|v| v == "all") {
            iter.next();
            continue;
        }
        out.push(arg);
    }
    out
}
