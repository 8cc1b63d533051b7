//! Finding and loading the skill catalog of a project: `skills/*/SKILL.md` under the project
//! root, through the compiled index `.sophia/skills-index.tsv` when it is fresh, by scanning
//! the sources when it is stale or missing, and the embedded default catalog when the project has
//! no skills. Bad files are skipped with a warning; nothing here ever fails the hook.

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use crate::config::ProjectConfig;
use crate::edge::files::write_atomic;
use crate::skills::catalog::{CATALOG_SCHEMA_VERSION, CompiledCatalog, compile, parse_skill_md};
use crate::skills::default_catalog;

/// The index file, relative to the project root. `.sophia/` holds a `.gitignore` of `*`, so the
/// generated files never reach version control.
pub const INDEX_PATH: &str = ".sophia/skills-index.tsv";
/// At most this many bytes of a `SKILL.md` are read.
const SKILL_MD_CAP: u64 = 64 * 1024;

/// Where a loaded catalog came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CatalogSource {
    Embedded,
    Index,
    Scan,
}

impl CatalogSource {
    pub fn as_str(self) -> &'static str {
        match self {
            CatalogSource::Embedded => "embedded",
            CatalogSource::Index => "index",
            CatalogSource::Scan => "scan",
        }
    }
}

#[derive(Debug, Clone)]
pub struct LoadedCatalog {
    pub catalog: CompiledCatalog,
    pub source: CatalogSource,
    /// Load warnings (stale index, skipped files), shown by `explain`.
    pub warnings: Vec<String>,
}

/// A `SKILL.md` found under `skills/`.
#[derive(Debug, Clone, PartialEq, Eq)]
struct SourceFile {
    /// `skills/<dir>/SKILL.md`, with `/` separators.
    rel: String,
    path: PathBuf,
    len: u64,
    mtime_ns: u128,
}

/// Lists `<skills_dir>/*/SKILL.md`, sorted by relative path.
fn list_sources(skills_dir: &Path) -> Vec<SourceFile> {
    let Ok(entries) = fs::read_dir(skills_dir) else {
        return Vec::new();
    };
    let mut files: Vec<SourceFile> = entries
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let path = entry.path().join("SKILL.md");
            let meta = fs::metadata(&path).ok().filter(|m| m.is_file())?;
            let mtime_ns = meta
                .modified()
                .ok()
                .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_nanos());
            Some(SourceFile {
                rel: format!("skills/{}/SKILL.md", entry.file_name().to_string_lossy()),
                path,
                len: meta.len(),
                mtime_ns,
            })
        })
        .collect();
    files.sort_by(|a, b| a.rel.cmp(&b.rel));
    files
}

/// The fingerprint of the sources: FNV-1a (64-bit) over each file's relative path, size and
/// modification time. Cheap (one `stat` per skill, no reading, no cryptographic hash on the hot
/// path: it detects change, it does not authenticate), and it changes when a skill is added,
/// removed or edited.
fn fingerprint(files: &[SourceFile]) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut feed = |bytes: &[u8]| {
        for b in bytes {
            hash ^= u64::from(*b);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
    };
    feed(&CATALOG_SCHEMA_VERSION.to_le_bytes());
    for f in files {
        feed(f.rel.as_bytes());
        feed(&[0]);
        feed(&f.len.to_le_bytes());
        feed(&f.mtime_ns.to_le_bytes());
    }
    format!("fnv1a64:{hash:016x}")
}

/// Parses and compiles every source; a bad file is skipped with a warning.
fn scan(files: &[SourceFile], fingerprint: String) -> CompiledCatalog {
    let mut defs = Vec::new();
    let mut warnings = Vec::new();
    for f in files {
        let mut bytes = Vec::new();
        let read = fs::File::open(&f.path)
            .and_then(|file| file.take(SKILL_MD_CAP).read_to_end(&mut bytes));
        if read.is_err() {
            warnings.push(format!("skill-skipped:{}: unreadable", f.rel));
            continue;
        }
        match parse_skill_md(&String::from_utf8_lossy(&bytes)) {
            Ok(def) => defs.push(def),
            Err(why) => warnings.push(format!("skill-skipped:{}: {why}", f.rel)),
        }
    }
    compile(&defs, fingerprint, warnings)
}

/// Where the compiled index of `root` lives (`.sophia-hook.yaml` may move it).
pub fn index_path(root: &Path) -> PathBuf {
    let (config, _) = crate::edge::config::load(root);
    ProjectConfig::resolve(root, config.skills_index.as_deref(), INDEX_PATH)
}

/// Loads the catalog for a project root (its configuration says where the index is).
pub fn load(root: &Path) -> LoadedCatalog {
    load_with_index(root, || index_path(root))
}

/// Loads the catalog for a project root whose index path the caller already knows (the hook has
/// read the configuration once); `index` is only asked for when the project has skills.
pub fn load_with_index(root: &Path, index: impl FnOnce() -> PathBuf) -> LoadedCatalog {
    let files = list_sources(&root.join("skills"));
    if files.is_empty() {
        return LoadedCatalog {
            catalog: default_catalog(),
            source: CatalogSource::Embedded,
            warnings: Vec::new(),
        };
    }
    let fp = fingerprint(&files);
    let index_warning = match read_index(&index()) {
        Ok(index)
            if index.source_fingerprint == fp && index.schema_version == CATALOG_SCHEMA_VERSION =>
        {
            let warnings = index.warnings.clone();
            return LoadedCatalog {
                catalog: index,
                source: CatalogSource::Index,
                warnings,
            };
        }
        Ok(_) => "skills-index-stale",
        Err(reason) => reason,
    };
    let catalog = scan(&files, fp);
    let mut warnings = vec![index_warning.to_owned()];
    warnings.extend(catalog.warnings.iter().cloned());
    LoadedCatalog {
        catalog,
        source: CatalogSource::Scan,
        warnings,
    }
}

/// Reads a compiled index. Its text is leaked on purpose: the catalog borrows its strings from
/// it instead of allocating one per term, and the hook is a short-lived process.
fn read_index(path: &Path) -> Result<CompiledCatalog, &'static str> {
    let text = fs::read_to_string(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::InvalidData => "skills-index-corrupt",
        _ => "skills-index-missing",
    })?;
    let text: &'static str = Box::leak(text.into_boxed_str());
    CompiledCatalog::from_lines(text).map_err(|_| "skills-index-corrupt")
}

/// Builds the compiled index of `root` (`sophia-hook skills index`): scans the sources and writes
/// the index atomically to `out` (default `<root>/.sophia/skills-index.tsv`). Returns the catalog
/// and the path written.
pub fn build_index(root: &Path, out: Option<&Path>) -> anyhow::Result<(CompiledCatalog, PathBuf)> {
    let files = list_sources(&root.join("skills"));
    if files.is_empty() {
        anyhow::bail!(
            "no skills found: {} has no */SKILL.md (the hook uses the embedded default catalog)",
            root.join("skills").display()
        );
    }
    let catalog = scan(&files, fingerprint(&files));
    let out = out.map_or_else(|| index_path(root), Path::to_path_buf);
    write_atomic(&out, catalog.to_lines().as_bytes())
        .map_err(|e| anyhow::anyhow!("writing {}: {e}", out.display()))?;
    if let Some(dir) = out.parent() {
        ignore_folder(dir);
    }
    Ok((catalog, out))
}

/// Makes a generated folder ignore itself (`.gitignore` with `*`) when it has no `.gitignore`.
pub fn ignore_folder(dir: &Path) {
    let gitignore = dir.join(".gitignore");
    if dir.file_name().is_some_and(|n| n == ".sophia") && !gitignore.exists() {
        let _ = write_atomic(
            &gitignore,
            b"# Generated by sophia-hook; never committed.\n*\n",
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write_skill(root: &Path, dir: &str, text: &str) {
        let d = root.join("skills").join(dir);
        fs::create_dir_all(&d).unwrap();
        fs::write(d.join("SKILL.md"), text).unwrap();
    }

    const SKILL: &str =
        "---\nname: zebra-tools\ndescription: Zebra stripes\nkeywords: [zebra]\n---\n";

    #[test]
    fn no_skills_means_the_embedded_defaults() {
        let dir = tempfile::tempdir().unwrap();
        let loaded = load(dir.path());
        assert_eq!(loaded.source, CatalogSource::Embedded);
        assert!(
            loaded
                .catalog
                .skills
                .iter()
                .any(|s| s.id == "mcp-database-expert")
        );
    }

    #[test]
    fn scan_then_index_then_stale() {
        let dir = tempfile::tempdir().unwrap();
        write_skill(dir.path(), "zebra", SKILL);
        write_skill(dir.path(), "broken", "no frontmatter here");
        let loaded = load(dir.path());
        assert_eq!(loaded.source, CatalogSource::Scan);
        assert_eq!(loaded.warnings[0], "skills-index-missing");
        assert!(
            loaded.warnings[1].starts_with("skill-skipped:skills/broken/SKILL.md: no frontmatter")
        );
        assert_eq!(loaded.catalog.skills.len(), 1);

        let (_, path) = build_index(dir.path(), None).unwrap();
        assert_eq!(path, dir.path().join(INDEX_PATH));
        assert_eq!(
            fs::read_to_string(dir.path().join(".sophia/.gitignore"))
                .unwrap()
                .lines()
                .last(),
            Some("*")
        );
        let loaded = load(dir.path());
        assert_eq!(loaded.source, CatalogSource::Index);
        assert_eq!(loaded.catalog.skills[0].id, "zebra-tools");

        // Adding a skill makes the index stale; the hook falls back to scanning.
        write_skill(
            dir.path(),
            "yak",
            "---\nname: yak\ndescription: Yaks\n---\n",
        );
        let loaded = load(dir.path());
        assert_eq!(loaded.source, CatalogSource::Scan);
        assert_eq!(loaded.warnings[0], "skills-index-stale");
        assert_eq!(loaded.catalog.skills.len(), 2);

        // A corrupt index is a warning too.
        fs::write(dir.path().join(INDEX_PATH), "{ not json").unwrap();
        assert_eq!(load(dir.path()).warnings[0], "skills-index-corrupt");
    }

    #[test]
    fn build_index_without_skills_fails_and_writes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        assert!(build_index(dir.path(), None).is_err());
        assert!(!dir.path().join(".sophia").exists());
    }
}
