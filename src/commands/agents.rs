//! `sophia-hook agents sync` and `agents check`: the hosts' runtime agent definitions.

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::{Subcommand, ValueEnum};

use super::Verdict;
use crate::agents::runtime::FileState;
use crate::edge::agents_sync::{SyncTarget, agents_dir, check, load_runtime, plan, sync};
use crate::edge::settings::Settings;
use crate::install::Scope;
use crate::payload::Host;

#[derive(Debug, Subcommand)]
pub enum AgentsCommand {
    /// Write one definition per canonical agent for each host: `.codex/agents/<id>.toml`,
    /// `.claude/agents/<id>.md`, `.gemini/agents/<id>.md` (or the user's folders with --scope
    /// user). Files changed by hand are kept and reported.
    ///
    /// The source follows the scope, never the repository: project scope uses the project's
    /// docs/agents/canonical-subagents.yaml (else the embedded roles); --scope user uses your
    /// own ~/.config/sophia-hook/canonical-subagents.yaml (else the embedded roles), never a
    /// file of the current repository.
    Sync {
        /// The host whose definitions to write (default: all).
        #[arg(long, value_enum, default_value = "all")]
        host: AgentsHost,
        #[command(flatten)]
        target: AgentsTarget,
        /// Replace files changed by hand, keeping a backup in the user's state folder.
        #[arg(long)]
        force: bool,
    },
    /// Exit 1 when a definition is missing, stale or changed by hand (for a project's CI).
    /// Without --host it checks the hosts sophia-hook is installed for in this scope or whose
    /// agents folder exists, and says which it skipped; --host all checks all of them.
    Check {
        /// The host whose definitions to check (default: the installed or present ones).
        #[arg(long, value_enum)]
        host: Option<AgentsHost>,
        #[command(flatten)]
        target: AgentsTarget,
        /// Print JSON: `{"ok", "checked": [hosts], "skipped": [hosts], "files": [{host, id,
        /// path, state}]}`.
        #[arg(long)]
        json: bool,
    },
}

/// One of the hosts with runtime agent definitions (`src/hosts/`, those with an agent runtime),
/// or all of them (`None`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AgentsHost(Option<Host>);

impl ValueEnum for AgentsHost {
    fn value_variants<'a>() -> &'a [Self] {
        static VARIANTS: std::sync::LazyLock<Vec<AgentsHost>> = std::sync::LazyLock::new(|| {
            Host::with_agents()
                .into_iter()
                .map(|h| AgentsHost(Some(h)))
                .chain([AgentsHost(None)])
                .collect()
        });
        &VARIANTS
    }

    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        Some(clap::builder::PossibleValue::new(
            self.0.map_or("all", Host::as_str),
        ))
    }
}

impl AgentsHost {
    fn hosts(self) -> Vec<Host> {
        match self.0 {
            Some(host) => vec![host],
            None => crate::agents::runtime::sync_hosts(),
        }
    }
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

/// Runs `agents sync` or `agents check`.
pub fn run(
    out: &mut dyn Write,
    command: AgentsCommand,
    settings: &Settings,
    clock: &dyn crate::clock::Clock,
) -> super::Outcome {
    match command {
        AgentsCommand::Sync {
            host,
            target,
            force,
        } => {
            let target = SyncTarget {
                hosts: host.hosts(),
                scope: target.scope,
                root: super::project_root_arg(target.root)?,
            };
            let stamp = clock.now().format("%Y%m%dT%H%M%SZ").to_string();
            sync(out, &target, force, settings, &stamp)?;
            Ok(Verdict::Pass)
        }
        AgentsCommand::Check { host, target, json } => {
            let root = super::project_root_arg(target.root)?;
            let (hosts, skipped) = match host {
                Some(h) => (h.hosts(), Vec::new()),
                None => relevant_hosts(target.scope, &root, settings),
            };
            let target = SyncTarget {
                hosts,
                scope: target.scope,
                root,
            };
            check_hosts(out, &target, &skipped, json, settings)
        }
    }
}

/// The hosts `agents check` looks at by default: sophia-hook installed for them in this scope,
/// or their agents folder there; the others are returned as skipped.
fn relevant_hosts(scope: Scope, root: &Path, settings: &Settings) -> (Vec<Host>, Vec<Host>) {
    crate::agents::runtime::sync_hosts()
        .into_iter()
        .partition(|host| {
            let installed = super::settings_path(*host, scope, root, settings)
                .ok()
                .and_then(|path| crate::edge::hostconfig::read(&path).ok())
                .is_some_and(|doc| !crate::install::registered(&doc, *host).is_empty());
            let present = agents_dir(*host, scope, root, settings).is_ok_and(|d| d.is_dir());
            installed || present
        })
}

fn check_hosts(
    out: &mut dyn Write,
    target: &SyncTarget,
    skipped: &[Host],
    json: bool,
    settings: &Settings,
) -> super::Outcome {
    let names =
        |hosts: &[Host]| -> Vec<&'static str> { hosts.iter().map(|h| h.as_str()).collect() };
    if target.hosts.is_empty() {
        let why = format!(
            "nothing to check: sophia-hook is not installed for {} ({} scope) and none of their agents folders exists; run `sophia-hook agents sync` or name the host with --host",
            crate::agents::runtime::sync_hosts()
                .iter()
                .map(|h| h.as_str())
                .collect::<Vec<_>>()
                .join(", "),
            target.scope.as_str()
        );
        if json {
            let value = serde_json::json!({
                "ok": false, "checked": [], "skipped": names(skipped), "files": [], "message": why,
            });
            writeln!(out, "{}", serde_json::to_string_pretty(&value)?)?;
        } else {
            writeln!(out, "{why}")?;
        }
        return Ok(Verdict::Fail);
    }
    if !json {
        if !skipped.is_empty() {
            writeln!(
                out,
                "skipped {} (not installed in this scope, no agents folder; --host all checks them too)",
                names(skipped).join(", ")
            )?;
        }
        return Ok(check(out, target, settings)?.into());
    }
    let (agents, _) = load_runtime(target, settings)?;
    let entries = plan(target, &agents, settings)?;
    let ok = entries.iter().all(|e| e.state == FileState::UpToDate);
    let files: Vec<serde_json::Value> = entries
        .iter()
        .map(|e| {
            serde_json::json!({
                "host": e.host.as_str(),
                "id": e.id,
                "path": e.path.display().to_string(),
                "state": e.state.as_str(),
            })
        })
        .collect();
    let value = serde_json::json!({
        "ok": ok, "checked": names(&target.hosts), "skipped": names(skipped), "files": files,
    });
    writeln!(out, "{}", serde_json::to_string_pretty(&value)?)?;
    Ok(ok.into())
}
