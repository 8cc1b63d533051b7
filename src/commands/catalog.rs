//! `sophia-hook catalog build` and `catalog check`: the agent catalog v1.

use crate::charset::Shown as _;
use std::collections::BTreeSet;
use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context, bail};
use clap::Subcommand;

use super::{CheckFailed, Verdict, project_root_arg, skill_ids_of};
use crate::clock::Clock;
use crate::edge::files::{Place, ProjectRoot};
use crate::edge::skills;

#[derive(Debug, Subcommand)]
pub enum CatalogCommand {
    /// Build the agent catalog v1 from `docs/agents/canonical-subagents.yaml`.
    Build {
        /// The project root (default: the git root above the current directory).
        #[arg(long)]
        root: Option<PathBuf>,
        /// The canonical source (default: <root>/docs/agents/canonical-subagents.yaml).
        #[arg(long)]
        source: Option<PathBuf>,
        /// The project whose skill catalog the affinities must resolve against (default: <root>;
        /// the embedded skills when it has none).
        #[arg(long)]
        skills_root: Option<PathBuf>,
        /// Where to write the catalog (default: <root>/.sophia/agent-catalog.json).
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Verify a generated catalog: its fingerprint, and that it matches its source.
    Check {
        /// The project root (default: the git root above the current directory).
        #[arg(long)]
        root: Option<PathBuf>,
        /// The generated catalog (default: <root>/.sophia/agent-catalog.json).
        #[arg(long)]
        catalog: Option<PathBuf>,
        /// The canonical source (default: <root>/docs/agents/canonical-subagents.yaml).
        #[arg(long)]
        source: Option<PathBuf>,
        /// The project whose skill catalog the affinities must resolve against (default: <root>).
        #[arg(long)]
        skills_root: Option<PathBuf>,
        /// Print the result as JSON (`ok`, `catalog`, `reason`, `message`).
        #[arg(long)]
        json: bool,
    },
}

/// Runs `catalog …`.
pub fn run(stdout: &mut dyn Write, command: CatalogCommand, clock: &dyn Clock) -> super::Outcome {
    match command {
        CatalogCommand::Build {
            root,
            source,
            skills_root,
            out,
        } => catalog_build(stdout, root, source, skills_root, out, clock).map(|()| Verdict::Pass),
        CatalogCommand::Check {
            root,
            catalog,
            source,
            skills_root,
            json,
        } => {
            let root = project_root_arg(root)?;
            let place = project_catalog_path(&root, catalog)?;
            let path = place.path();
            let result = catalog_check(&root, &place, source, skills_root)?;
            let (reason, message) = match &result {
                Ok(fingerprint) => (None, format!("fingerprint valid and fresh ({fingerprint})")),
                Err((reason, message)) => (Some(*reason), message.clone()),
            };
            if json {
                let value = serde_json::json!({
                    "ok": result.is_ok(),
                    "catalog": path.to_string_lossy(),
                    "reason": reason,
                    "message": message,
                });
                writeln!(stdout, "{}", serde_json::to_string_pretty(&value)?)?;
            } else if result.is_ok() {
                writeln!(stdout, "{}: {message}", path.shown())?;
            }
            if result.is_err() {
                if !json {
                    // The check's finding, for the person reading the CI log.
                    return Err(CheckFailed(format!("{}: {message}", path.shown())).into());
                }
                return Ok(Verdict::Fail);
            }
            Ok(Verdict::Pass)
        }
    }
}

/// What a generated catalog's reason code means, in words.
fn reason_text(reason: &str) -> &'static str {
    match reason {
        "agent-catalog-missing" => "there is no generated catalog; run `sophia-hook catalog build`",
        "agent-catalog-too-large" => "the file is larger than a catalog can be",
        "agent-catalog-corrupt" => "the file is not a catalog (it does not parse as catalog JSON)",
        "agent-catalog-fingerprint-mismatch" => {
            "its fingerprint does not match its content (edited by hand?); run `sophia-hook catalog build`"
        }
        "agent-catalog-invalid" => {
            "it is not a valid catalog (ids, phases or routing fields); run `sophia-hook catalog build`"
        }
        _ => "the file cannot be read",
    }
}

fn read_source(place: &Place) -> anyhow::Result<String> {
    place
        .read_string(crate::edge::files::caps::CATALOG)
        .with_context(|| format!("reading the canonical source {}", place.path().shown()))
}

/// The canonical source: `--source` as given (the user's choice), else the project's, through
/// its door.
fn source_place(root: &ProjectRoot, given: Option<PathBuf>) -> Place {
    given.map_or_else(|| root.at(crate::stages::agents::SOURCE_PATH), Place::user)
}

/// The skill ids affinities resolve against: `--skills-root`'s project, else this one.
fn skill_ids_for(
    root: &ProjectRoot,
    skills_root: Option<PathBuf>,
) -> anyhow::Result<BTreeSet<String>> {
    Ok(match skills_root {
        Some(path) => skill_ids_of(&project_root_arg(Some(path))?),
        None => skill_ids_of(root),
    })
}

/// The generated catalog's path for `catalog build`/`check`: `--out`/`--catalog` from the
/// command line as given (the user's choice), else the project's, which must stay inside it.
fn project_catalog_path(root: &ProjectRoot, given: Option<PathBuf>) -> anyhow::Result<Place> {
    if let Some(path) = given {
        return Ok(crate::edge::project::flag_place(Some(root), &path));
    }
    match crate::edge::agents::catalog_location(root) {
        (Some(path), None) => Ok(path),
        (_, Some(why)) => bail!(
            "refusing the agent catalog path: {why} (it must stay inside the project, out of .git/); nothing was written"
        ),
        (None, None) => bail!("refusing an agent catalog path outside the project"),
    }
}

pub fn catalog_build(
    stdout: &mut dyn Write,
    root: Option<PathBuf>,
    source: Option<PathBuf>,
    skills_root: Option<PathBuf>,
    out: Option<PathBuf>,
    clock: &dyn Clock,
) -> anyhow::Result<()> {
    let root = project_root_arg(root)?;
    let source = source_place(&root, source);
    if let Place::Project(_, rel) = &source {
        root.resolve_file(rel).map_err(|why| {
            anyhow::anyhow!(
                "refusing {}: {why}; nothing was written",
                crate::stages::agents::SOURCE_PATH
            )
        })?;
    }
    let out = project_catalog_path(&root, out)?;
    let text = read_source(&source)?;
    let skill_ids = skill_ids_for(&root, skills_root)?;
    let catalog = crate::stages::agents::catalog::build(
        &text,
        &skill_ids,
        crate::edge::hook::timestamp(clock.now()),
    )
    .with_context(|| format!("refusing {}; nothing was written", source.path().shown()))?;
    let mut json = serde_json::to_string_pretty(&catalog)?;
    json.push('\n');
    out.replace_generated(
        json.as_bytes(),
        crate::edge::files::caps::CATALOG,
        crate::edge::agents::is_generated_catalog,
    )
    .with_context(|| format!("writing {}", out.path().shown()))?;
    if let Some(dir) = out.parent() {
        skills::ignore_folder(&dir);
    }
    writeln!(
        stdout,
        "wrote {} ({} agents, fingerprint {})",
        out.path().shown(),
        catalog.agents.len(),
        catalog.fingerprint
    )?;
    Ok(())
}

/// Checks the generated catalog at `path`: `Ok(Ok(fingerprint))` when it is valid and matches
/// its source, `Ok(Err((reason code, message)))` when the check failed, `Err` when it could not
/// run (the source cannot be read or does not build).
pub fn catalog_check(
    root: &ProjectRoot,
    place: &Place,
    source: Option<PathBuf>,
    skills_root: Option<PathBuf>,
) -> anyhow::Result<Result<String, (&'static str, String)>> {
    let generated = match crate::edge::agents::read_catalog(Some(place)) {
        Ok(generated) => generated,
        Err(reason) => return Ok(Err((reason, format!("{reason}: {}", reason_text(reason))))),
    };
    let source = source_place(root, source);
    let text = read_source(&source)?;
    let skill_ids = skill_ids_for(root, skills_root)?;
    let fresh = crate::stages::agents::catalog::build(&text, &skill_ids, String::new())
        .with_context(|| format!("the source {} does not build", source.path().shown()))?;
    if fresh.fingerprint != generated.fingerprint {
        return Ok(Err((
            "agent-catalog-stale",
            format!(
                "is stale: its fingerprint {} differs from the source's {}; run `sophia-hook catalog build`",
                generated.fingerprint, fresh.fingerprint
            ),
        )));
    }
    Ok(Ok(generated.fingerprint))
}
