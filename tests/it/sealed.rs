//! Sealed blind set 4 (`fixtures/sealed/set4/SEALED.md`): its cases files and catalogs are the
//! ones sealed, byte for byte. A changed prompt, label or skill changes a digest and fails here;
//! a label fixed on its merits renews its digest in the same commit, with the reason.

use sha2::{Digest, Sha256};
use std::fs;
use std::path::{Path, PathBuf};

fn set4() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/sealed/set4")
}

fn hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Every file under `dir`, as paths relative to `base` with `/`.
fn files(base: &Path, dir: &Path, out: &mut Vec<String>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files(base, &path, out);
        } else {
            let rel = path.strip_prefix(base).unwrap();
            out.push(rel.to_string_lossy().replace('\\', "/"));
        }
    }
}

/// `find catalogs/<c> -type f | LC_ALL=C sort | xargs sha256sum | sha256sum`, as SEALED.md
/// was made.
fn catalog_digest(catalog: &str) -> String {
    let base = set4();
    let mut paths = Vec::new();
    files(&base, &base.join("catalogs").join(catalog), &mut paths);
    paths.sort();
    let listing: String = paths
        .iter()
        .map(|p| format!("{}  {p}\n", hex(&fs::read(base.join(p)).unwrap())))
        .collect();
    hex(listing.as_bytes())
}

/// The digest table of SEALED.md: (catalog, cases digest, catalog digest).
fn sealed() -> Vec<(String, String, String)> {
    let text = fs::read_to_string(set4().join("SEALED.md")).unwrap();
    let at = text.find("## Digests").expect("SEALED.md has its digests");
    text[at..]
        .lines()
        .filter_map(|line| {
            let cells: Vec<&str> = line
                .split('|')
                .map(|c| c.trim().trim_matches('`'))
                .collect();
            (cells.len() == 5 && cells[2].len() == 64)
                .then(|| (cells[1].into(), cells[2].into(), cells[3].into()))
        })
        .collect()
}

#[test]
fn the_sealed_sets_are_the_ones_sealed() {
    let rows = sealed();
    assert_eq!(rows.len(), 6, "{rows:?}");
    for (catalog, cases, tree) in &rows {
        let file = set4().join(format!("{catalog}.jsonl"));
        assert_eq!(
            &hex(&fs::read(&file).unwrap()),
            cases,
            "{catalog}.jsonl changed"
        );
        assert_eq!(&catalog_digest(catalog), tree, "catalogs/{catalog} changed");
    }
}

#[test]
fn a_changed_byte_changes_the_digest() {
    let (catalog, cases, _) = &sealed()[0];
    let mut bytes = fs::read(set4().join(format!("{catalog}.jsonl"))).unwrap();
    assert_eq!(&hex(&bytes), cases);
    bytes[10] ^= 1;
    assert_ne!(&hex(&bytes), cases);
}
