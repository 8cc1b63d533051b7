//! Routing measured against labelled cases: the one path `eval` and `report --eval` share.

use crate::charset::Shown as _;
use std::path::Path;

use crate::edge::files::ProjectRoot;
use crate::edge::skills;
use crate::eval::Report;
use crate::stages::decision::Project;
use crate::stages::skills::router::SkillRouter;

/// Reads the cases at `cases_path` (and the manifests they name, from the cases file's folder),
/// routes each over `root`'s skill catalog (the embedded defaults when `None`) as hook mode
/// would, and scores it, with the BM25F baseline over the same `SKILL.md` files.
pub fn measure(cases_path: &Path, root: Option<&ProjectRoot>) -> anyhow::Result<Report> {
    // The case file may sit in a repository too: regular files only, never blocking on a FIFO,
    // at most `caps::CASES` (issue 18's second pass: a FIFO hung, `/dev/zero` grew without end).
    let text = crate::edge::files::Place::user(cases_path)
        .read_string(crate::edge::files::caps::CASES)
        .map_err(|e| anyhow::anyhow!("reading {}: {e}", cases_path.shown()))?;
    let base = match cases_path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => std::path::Path::new("."),
    };
    // A case file may sit in a repository: its manifests are files of the case file's folder,
    // read through that folder's door like any project file (never out of it, a link only to a
    // document, regular files only, at most the catalog cap).
    let folder =
        ProjectRoot::open(base).map_err(|e| anyhow::anyhow!("opening {}: {e}", base.shown()))?;
    let read_manifest = |path: &std::path::Path| {
        folder
            .relative(path.strip_prefix(base).unwrap_or(path))
            .map_err(|why| why.to_string())
            .and_then(|rel| {
                folder
                    .read_string(&rel, crate::edge::files::caps::CATALOG)
                    .map_err(|e| e.to_string())
            })
    };
    let cases = crate::eval::parse_cases_in(&text, base, &read_manifest)
        .map_err(|e| anyhow::anyhow!("{}: {e}", cases_path.shown()))?;
    let loaded = match root {
        Some(root) => skills::load(root),
        None => skills::LoadedCatalog {
            catalog: crate::stages::skills::default_catalog(),
            source: skills::CatalogSource::Embedded,
            warnings: Vec::new(),
            inventory: skills::Inventory::default(),
            degraded: None,
            read_state: None,
        },
    };
    let skill_ids: std::collections::BTreeSet<String> =
        loaded.catalog.skills.iter().map(|s| s.id.clone()).collect();
    let agents = match root {
        Some(root) => crate::edge::agents::load_catalog(root, &skill_ids, String::new()).catalog,
        None => crate::stages::agents::default_catalog(),
    };
    let mut project = Project {
        skill_source: Some(loaded.source.as_str()),
        skill_warnings: loaded.warnings,
        skills: Some(SkillRouter::new(loaded.catalog)),
        // `eval` measures the catalog, not this machine: every embedded skill may be named.
        skill_grounding: Some(crate::stages::skills::grounding::Grounding::new(
            crate::stages::skills::grounding::EmbeddedSkills::On,
            crate::stages::skills::grounding::ModeFrom::Eval,
        )),
        agents: Some(agents),
        ..Project::default()
    };
    let mut report = crate::eval::run(&cases, &mut project);
    let documents = match root {
        Some(root) => skills::documents(root),
        None => crate::stages::skills::default_documents(),
    };
    let bm25 = crate::stages::skills::bm25::Bm25f::new(
        &documents,
        crate::stages::skills::bm25::Bm25fParams::BASELINE,
    );
    report.skills_bm25_baseline = Some(crate::eval::bm25_baseline(&cases, &bm25));
    Ok(report)
}
