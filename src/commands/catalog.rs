//! `sophia-hook catalog build` and `catalog check`: the agent catalog v1.

use crate::charset::Shown as _;
use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context, bail};
use clap::Subcommand;

use super::{CheckFailed, Verdict, project_root_arg, skill_ids_of};
use crate::clock::Clock;
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
            let path = project_catalog_path(&root, catalog)?;
            let result = catalog_check(&root, &path, source, skills_root)?;
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

fn read_source(path: &std::path::Path) -> anyhow::Result<String> {
    use crate::edge::files::{caps, read_bounded_string};
    read_bounded_string(path, caps::CATALOG)
        .with_context(|| format!("reading the canonical source {}", path.shown()))
}

/// The generated catalog's path for `catalog build`/`check`: `--out`/`--catalog` from the
/// command line as given (the user's choice), else the project's, which must stay inside it.
fn project_catalog_path(root: &std::path::Path, given: Option<PathBuf>) -> anyhow::Result<PathBuf> {
    if let Some(path) = given {
        return Ok(path);
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
    let source = match source {
        Some(source) => source,
        None => crate::edge::files::inside_project(
            &root,
            std::path::Path::new(crate::edge::agents::SOURCE_PATH),
        )
        .map_err(|why| {
            anyhow::anyhow!(
                "refusing {}: {why}; nothing was written",
                crate::edge::agents::SOURCE_PATH
            )
        })?,
    };
    let out = project_catalog_path(&root, out)?;
    let text = read_source(&source)?;
    let skill_ids = skill_ids_of(skills_root.as_deref().unwrap_or(&root));
    let catalog =
        crate::agents::catalog::build(&text, &skill_ids, crate::edge::hook::timestamp(clock.now()))
            .with_context(|| format!("refusing {}; nothing was written", source.shown()))?;
    let mut json = serde_json::to_string_pretty(&catalog)?;
    json.push('\n');
    crate::edge::files::replace_generated(
        &out,
        json.as_bytes(),
        crate::edge::files::caps::CATALOG,
        crate::edge::agents::is_generated_catalog,
    )
    .with_context(|| format!("writing {}", out.shown()))?;
    if let Some(dir) = out.parent() {
        skills::ignore_folder(dir);
    }
    writeln!(
        stdout,
        "wrote {} ({} agents, fingerprint {})",
        out.shown(),
        catalog.agents.len(),
        catalog.fingerprint
    )?;
    Ok(())
}

/// Checks the generated catalog at `path`: `Ok(Ok(fingerprint))` when it is valid and matches
/// its source, `Ok(Err((reason code, message)))` when the check failed, `Err` when it could not
/// run (the source cannot be read or does not build).
pub fn catalog_check(
    root: &std::path::Path,
    path: &std::path::Path,
    source: Option<PathBuf>,
    skills_root: Option<PathBuf>,
) -> anyhow::Result<Result<String, (&'static str, String)>> {
    let generated = match crate::edge::agents::read_catalog(path) {
        Ok(generated) => generated,
        Err(reason) => return Ok(Err((reason, format!("{reason}: {}", reason_text(reason))))),
    };
    let source = source.unwrap_or_else(|| root.join(crate::edge::agents::SOURCE_PATH));
    let text = read_source(&source)?;
    let skill_ids = skill_ids_of(skills_root.as_deref().unwrap_or(root));
    let fresh = crate::agents::catalog::build(&text, &skill_ids, String::new())
        .with_context(|| format!("the source {} does not build", source.shown()))?;
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
