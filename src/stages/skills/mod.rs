//! Skill routing: which specialist skill fits the stripped prompt. [`catalog`] parses and
//! compiles `SKILL.md` frontmatter, [`router`] scores prompts against a compiled catalog; this
//! module holds the result types that `explain` shows under `skills`, and the embedded default
//! catalog. Pure: no I/O (the edge finds and reads project catalogs).

pub mod bm25;
pub mod body;
pub mod catalog;
pub mod confidence;
pub mod grounding;
pub mod mention;
pub mod router;
pub mod topics;
pub mod vocab;

use serde::Serialize;

use catalog::CompiledCatalog;

/// The embedded default catalog (the Sophia MCP skills), compiled from
/// `src/stages/skills/defaults/*/SKILL.md` into static data without pointers (byte ranges of one text,
/// [`CompiledCatalog::to_rust`]); a test fails when it is stale.
mod defaults {
    use super::catalog::{Field, Scope, StaticPosting, StaticSkill, StaticTerm};
    include!("defaults/index.rs");
}

/// The embedded default catalog, built from static data compiled into the binary: nothing is
/// parsed on the hot path.
pub fn default_catalog() -> CompiledCatalog {
    CompiledCatalog::from_static(
        defaults::FINGERPRINT,
        defaults::TEXT,
        &defaults::SKILLS,
        &defaults::TERMS,
        &defaults::POSTINGS,
    )
}

const DEFAULT_SOURCES: &[&str] = &[
    include_str!("defaults/mcp-browser-automation/SKILL.md"),
    include_str!("defaults/mcp-coldfusion-developer/SKILL.md"),
    include_str!("defaults/mcp-database-expert/SKILL.md"),
    include_str!("defaults/mcp-docs-navigator/SKILL.md"),
    include_str!("defaults/mcp-git-mantis-workflow/SKILL.md"),
    include_str!("defaults/mcp-master-orchestrator/SKILL.md"),
    include_str!("defaults/mcp-office-expert/SKILL.md"),
    include_str!("defaults/mcp-technical-analyst/SKILL.md"),
    include_str!("defaults/skill-creator/SKILL.md"),
];

/// The embedded default catalog's definitions, parsed from its `SKILL.md` sources: only `eval`
/// needs them (for the BM25 baseline); the hook uses the compiled catalog.
pub fn default_definitions() -> Vec<catalog::SkillDef> {
    default_documents()
        .into_iter()
        .map(|(def, _)| def)
        .collect()
}

/// The embedded default catalog's definitions with the body of each `SKILL.md` (bounded, see
/// [`body::body_of`]): the input of the BM25F baseline in `eval`.
pub fn default_documents() -> Vec<(catalog::SkillDef, String)> {
    DEFAULT_SOURCES
        .iter()
        .filter_map(|text| {
            let def = catalog::parse_skill_md(text).ok()?;
            Some((def, body::body_of(text).to_owned()))
        })
        .collect()
}

/// One scored skill.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SkillMatch {
    pub skill_id: String,
    pub score: u32,
    pub reasons: Vec<String>,
    /// Where the skill was found (`project:.agents/skills/pdf/SKILL.md`,
    /// `user:~/.claude/skills/pdf/SKILL.md`); absent for the embedded default catalog.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
}

/// `skills` of the decision JSON: at most two selected skills, then the runners-up.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SkillRouting {
    pub selected: Vec<SkillMatch>,
    pub runners_up: Vec<SkillMatch>,
    /// Where the catalog came from: `embedded`, `index`, `cache` or `scan`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub catalog: Option<String>,
    pub warnings: Vec<String>,
    /// For the embedded catalog only: whether its skills may be named here, and which chosen
    /// skills were withheld (`grounding`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub grounding: Option<grounding::GroundingReport>,
    /// The learned confidence of the ranking's first candidate when the confidence decided
    /// (named or not; `None` when the rules decided, or when grounding withheld that candidate). Not part of the decision JSON: `eval`
    /// reads it to draw named precision against recall as the threshold moves.
    #[serde(skip)]
    pub first_confidence: Option<f64>,
}

impl SkillRouting {
    pub fn selected_ids(&self) -> impl Iterator<Item = &str> {
        self.selected.iter().map(|s| s.skill_id.as_str())
    }
}

#[cfg(test)]
mod tests {
    // Tests set up their files and folders directly.
    #![allow(clippy::disallowed_methods)]
    use super::catalog::{compile_with_bodies, parse_skill_md};
    use super::*;

    /// Compiles `src/stages/skills/defaults/*/SKILL.md` the way `skills index` does.
    fn compile_default_sources() -> CompiledCatalog {
        let root =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/stages/skills/defaults");
        let mut dirs: Vec<_> = std::fs::read_dir(&root)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.join("SKILL.md").is_file())
            .collect();
        dirs.sort();
        let (defs, bodies): (Vec<_>, Vec<_>) = dirs
            .iter()
            .map(|d| {
                let text = std::fs::read_to_string(d.join("SKILL.md")).unwrap();
                let def = parse_skill_md(&text)
                    .unwrap_or_else(|e| panic!("{}: {e}", d.to_string_lossy()));
                (def, body::body_of(&text).to_owned())
            })
            .unzip();
        compile_with_bodies(&defs, &bodies, "embedded".into(), Vec::new())
    }

    /// The embedded index is generated from the default sources and must not go stale. To
    /// regenerate it after editing a default `SKILL.md`:
    /// `SOPHIA_UPDATE_DEFAULTS=1 cargo test --lib embedded_default_index_is_in_sync`.
    #[test]
    fn embedded_default_index_is_in_sync() {
        let fresh = compile_default_sources();
        if std::env::var_os("SOPHIA_UPDATE_DEFAULTS").is_some() {
            let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("src/stages/skills/defaults/index.rs");
            std::fs::write(path, fresh.to_rust()).unwrap();
            return;
        }
        assert!(
            default_catalog() == fresh,
            "src/stages/skills/defaults/index.rs is stale: run \
             SOPHIA_UPDATE_DEFAULTS=1 cargo test --lib embedded_default_index_is_in_sync"
        );
    }

    #[test]
    fn default_definitions_match_the_embedded_catalog() {
        let ids: Vec<String> = default_definitions().into_iter().map(|d| d.id).collect();
        let embedded: Vec<String> = default_catalog().skills.into_iter().map(|s| s.id).collect();
        assert_eq!(ids, embedded);
    }

    #[test]
    fn default_catalog_has_the_sophia_skills() {
        let ids: Vec<String> = default_catalog().skills.into_iter().map(|s| s.id).collect();
        assert_eq!(
            ids,
            [
                "mcp-browser-automation",
                "mcp-coldfusion-developer",
                "mcp-database-expert",
                "mcp-docs-navigator",
                "mcp-git-mantis-workflow",
                "mcp-master-orchestrator",
                "mcp-office-expert",
                "mcp-technical-analyst",
                "skill-creator",
            ]
        );
    }
}
