//! `sophia-hook availability`: which catalog agents have a runtime definition on this machine.

use crate::charset::Shown as _;
use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;

use super::{project_root_arg, skill_ids_of};
use crate::clock::Clock;
use crate::edge::settings::Settings;

#[derive(Debug, clap::Args)]
pub struct AvailabilityArgs {
    /// The project root (default: the git root above the current directory).
    #[arg(long)]
    pub root: Option<PathBuf>,
    /// Write the manifest.
    #[arg(long)]
    pub write: bool,
    /// Print JSON: the catalog, and per agent its state over every host, per host, and the
    /// definitions found.
    #[arg(long)]
    pub json: bool,
}

pub fn availability(
    stdout: &mut dyn Write,
    args: &AvailabilityArgs,
    settings: &Settings,
    clock: &dyn Clock,
) -> super::Outcome {
    let (write, as_json) = (args.write, args.json);
    let root = project_root_arg(args.root.clone())?;
    let now = crate::edge::hook::timestamp(clock.now());
    let effective = crate::edge::agents::load_catalog(&root, &skill_ids_of(&root), now.clone());
    let dirs = crate::edge::agents::definition_dirs(
        &root,
        settings,
        effective.source != crate::edge::agents::AgentCatalogSource::Embedded,
    );
    let (states, warnings) = crate::edge::agents::compute_availability(&effective.catalog, &dirs);
    let hosts: Vec<&'static str> = crate::hosts::Host::with_agents()
        .into_iter()
        .map(crate::hosts::Host::as_str)
        .collect();
    // Per host: `configured` for Codex is not `configured` on Claude Code.
    let per_host: std::collections::BTreeMap<String, std::collections::BTreeMap<String, _>> = hosts
        .iter()
        .map(|h| {
            let by_agent = states
                .iter()
                .map(|(id, (_, defs))| {
                    let state = crate::edge::agents::state_of(defs.iter().filter(|d| d.host == *h));
                    (id.clone(), state)
                })
                .collect();
            ((*h).to_owned(), by_agent)
        })
        .collect();
    if as_json {
        let agents: serde_json::Map<String, serde_json::Value> = states
            .iter()
            .map(|(id, (state, defs))| {
                let hosts: serde_json::Map<String, serde_json::Value> = hosts
                    .iter()
                    .map(|h| ((*h).to_owned(), per_host[*h][id].as_str().into()))
                    .collect();
                let definitions: Vec<serde_json::Value> = defs
                    .iter()
                    .map(|d| {
                        serde_json::json!({
                            "host": d.host,
                            "path": d.path.shown().to_string(),
                            "enabled": d.enabled,
                        })
                    })
                    .collect();
                let value = serde_json::json!({
                    "state": state.as_str(),
                    "hosts": hosts,
                    "definitions": definitions,
                });
                (id.clone(), value)
            })
            .collect();
        let value = serde_json::json!({
            "catalog": effective.catalog.fingerprint,
            "source": effective.source.as_str(),
            "agents": agents,
            "warnings": warnings,
            "manifest": write.then(|| settings.availability_file.as_ref().map(|p| p.shown().to_string())).flatten(),
        });
        writeln!(stdout, "{}", serde_json::to_string_pretty(&value)?)?;
    } else {
        writeln!(
            stdout,
            "catalog: {} ({})",
            effective.catalog.fingerprint,
            effective.source.as_str()
        )?;
        let mut header = format!("{:<20} {:<12}", "agent", "any host");
        for h in &hosts {
            header.push_str(&format!(" {h:<12}"));
        }
        writeln!(stdout, "{header} definitions")?;
        for (id, (state, defs)) in &states {
            let where_: Vec<String> = defs
                .iter()
                .map(|d| {
                    format!(
                        "{}:{}{}",
                        d.host,
                        d.path.shown(),
                        if d.enabled { "" } else { " (disabled)" }
                    )
                })
                .collect();
            let mut row = format!("{id:<20} {:<12}", state.as_str());
            for h in &hosts {
                row.push_str(&format!(" {:<12}", per_host[*h][id].as_str()));
            }
            writeln!(
                stdout,
                "{row} {}",
                if where_.is_empty() {
                    "-".to_owned()
                } else {
                    where_.join(", ")
                }
            )?;
        }
        for warning in &warnings {
            writeln!(stdout, "warning: {warning}")?;
        }
    }
    if write {
        let path = settings
            .availability_file
            .clone()
            .context("no manifest path: set SOPHIA_AGENT_AVAILABILITY or HOME")?;
        // Only a manifest replaces a manifest: a file the path names that is not one (the
        // variable may be a repository's: docs/configuration.md) is never overwritten.
        crate::edge::agents::replaceable_manifest(&path)
            .map_err(|why| anyhow::anyhow!("{} {why}; it was left untouched", path.shown()))?;
        let manifest = crate::edge::agents::user_manifest(settings, now);
        let mut json = serde_json::to_string_pretty(&manifest)?;
        json.push('\n');
        crate::edge::files::Place::user(&path)
            .write_atomic(json.as_bytes(), crate::edge::files::caps::CATALOG)
            .with_context(|| format!("writing {}", path.shown()))?;
        if !as_json {
            writeln!(
                stdout,
                "wrote {} (the embedded catalog's roles, from your own agent definitions only)",
                path.shown()
            )?;
        }
    }
    Ok(super::Verdict::Pass)
}
