//! `sophia-hook agents sync` and `agents check`: the hosts' runtime agent definitions.

use std::io::Write;
use std::path::PathBuf;

use clap::{Subcommand, ValueEnum};

use super::Verdict;
use crate::edge::agents::agents_dir;
use crate::edge::files::ProjectRoot;
use crate::edge::settings::Settings;
use crate::hosts::Host;
use crate::hosts::Scope;
use crate::ops::agents_sync::{SyncTarget, check, load_runtime, plan, sync};
use crate::stages::agents::runtime::FileState;

#[derive(Debug, Subcommand)]
pub enum AgentsCommand {
    /// Write one definition per canonical agent for each host: `.codex/agents/<id>.toml`,
    /// `.claude/agents/<id>.md`, `.gemini/agents/<id>.md` (or the user's folders with --scope
    /// user). Files changed by hand are kept and reported. Without --host it writes for the
    /// hosts `agents check` checks: sophia-hook installed for them in this scope, or their agents
    /// folder there; --host all writes for every host.
    ///
    /// The source follows the scope, never the repository: project scope uses the project's
    /// docs/agents/canonical-subagents.yaml (else the embedded roles); --scope user uses your
    /// own ~/.config/sophia-hook/canonical-subagents.yaml (else the embedded roles), never a
    /// file of the current repository.
    Sync {
        /// The host whose definitions to write (default: the installed or present ones, as for
        /// `agents check`).
        #[arg(long, value_enum)]
        host: Option<AgentsHost>,
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
            None => crate::stages::agents::runtime::sync_hosts(),
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
            let root = super::project_root_arg(target.root)?;
            let (hosts, skipped) = default_hosts(host, target.scope, &root, settings);
            if hosts.is_empty() {
                anyhow::bail!("{}", nothing_there("write", target.scope));
            }
            if !skipped.is_empty() {
                writeln!(
                    out,
                    "skipped {} (not installed in this scope, no agents folder; --host all writes them too)",
                    skipped
                        .iter()
                        .map(|h| h.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                )?;
            }
            let target = SyncTarget {
                hosts,
                scope: target.scope,
                root,
            };
            let stamp = clock.now().format("%Y%m%dT%H%M%SZ").to_string();
            sync(out, &target, force, settings, &stamp)?;
            Ok(Verdict::Pass)
        }
        AgentsCommand::Check { host, target, json } => {
            let root = super::project_root_arg(target.root)?;
            let (hosts, skipped) = default_hosts(host, target.scope, &root, settings);
            let target = SyncTarget {
                hosts,
                scope: target.scope,
                root,
            };
            check_hosts(out, &target, &skipped, json, settings)
        }
    }
}

/// The hosts `agents sync` and `agents check` act on (the one place that decides it): those
/// named by `--host` (`all`: every host with agent definitions), else the relevant ones
/// ([`relevant_hosts`]); the others are returned as skipped.
fn default_hosts(
    host: Option<AgentsHost>,
    scope: Scope,
    root: &ProjectRoot,
    settings: &Settings,
) -> (Vec<Host>, Vec<Host>) {
    match host {
        Some(h) => (h.hosts(), Vec::new()),
        None => relevant_hosts(scope, root, settings),
    }
}

/// Why there is nothing to act on by default, for `agents sync` (`verb` "write") and `agents
/// check` ("check").
fn nothing_there(verb: &str, scope: Scope) -> String {
    format!(
        "nothing to {verb}: sophia-hook is not installed for {} ({} scope) and none of their agents folders exists; name the host with --host (or --host all)",
        crate::stages::agents::runtime::sync_hosts()
            .iter()
            .map(|h| h.as_str())
            .collect::<Vec<_>>()
            .join(", "),
        scope.as_str()
    )
}

/// Sophia-hook installed for the host in this scope, or its agents folder there.
fn relevant_hosts(scope: Scope, root: &ProjectRoot, settings: &Settings) -> (Vec<Host>, Vec<Host>) {
    crate::stages::agents::runtime::sync_hosts()
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
        let why = nothing_there("check", target.scope);
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
                "path": e.place.path().to_string_lossy(),
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
