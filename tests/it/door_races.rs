//! Issue 29, class 2: a concurrent swapper × every check of the door. A second process (here a
//! thread) swaps a component of a project path, atomically and as fast as it can, between a real
//! file or folder of the project and a symbolic link to somewhere the door must never reach: a
//! file or folder outside the project, the project's `.git/`, a non-document inside it. Meanwhile
//! every operation of the door (`ProjectRoot`: read, read a prefix, open for offsets, list, look
//! at, write, replace a generated file, create folders, remove) runs on that path again and
//! again. Whatever the interleaving, no operation returns a byte or an entry of the forbidden
//! side, and no write lands there.
//!
//! A control shows the swapper makes real races: the same loop through a reader that checks the
//! path (`ProjectRoot::resolve_file`) and then opens it by name — the shape every reader had
//! before the door — reads the outside file within the same number of rounds.
//!
//! The swap is `renameat2(RENAME_EXCHANGE)`, which trades two names in one step (a folder for a
//! link included), so Linux only.
#![cfg(target_os = "linux")]
// Tests and benches set up and read their files directly; the door (clippy.toml) is for the crate.
#![allow(clippy::disallowed_methods)]

use std::ffi::CString;
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use sophia_hook::edge::files::{Cap, ProjectRoot, caps};

/// Rounds of each operation while the swapper runs.
const ROUNDS: usize = 3_000;
/// What the forbidden side holds: a reader that returns it has been fooled.
const SECRET: &str = "OUTSIDE-SECRET";

/// Trades the names `a` and `b` in one step.
fn exchange(a: &Path, b: &Path) {
    let a = CString::new(a.as_os_str().as_bytes()).unwrap();
    let b = CString::new(b.as_os_str().as_bytes()).unwrap();
    // SAFETY: two valid NUL-terminated paths; AT_FDCWD for both.
    let rc = unsafe {
        libc::renameat2(
            libc::AT_FDCWD,
            a.as_ptr(),
            libc::AT_FDCWD,
            b.as_ptr(),
            libc::RENAME_EXCHANGE,
        )
    };
    assert_eq!(rc, 0, "renameat2: {}", std::io::Error::last_os_error());
}

/// Runs `body` while a thread swaps `path` with `other` (a link planted next to it) as fast as
/// it can; both names are put back as they were at the end.
fn while_swapping(path: &Path, other: &Path, body: impl FnOnce()) {
    let stop = Arc::new(AtomicBool::new(false));
    let (a, b) = (path.to_path_buf(), other.to_path_buf());
    let flag = Arc::clone(&stop);
    let swapper = std::thread::spawn(move || {
        let mut swapped = false;
        while !flag.load(Ordering::Relaxed) {
            exchange(&a, &b);
            swapped = !swapped;
        }
        if swapped {
            exchange(&a, &b);
        }
    });
    body();
    stop.store(true, Ordering::Relaxed);
    swapper.join().unwrap();
}

/// What a path component is swapped with.
#[derive(Debug, Clone, Copy)]
enum Link {
    /// A file or folder outside the project, by absolute path.
    OutsideAbsolute,
    /// The same, by a relative path with `..`.
    OutsideRelative,
    /// The project's `.git/` (or a file in it).
    GitDir,
    /// A file inside the project that is not a document (the swapped component is a file).
    NotADocument,
}

/// One layout: a project with the real thing at `rel`, and its forbidden twin.
struct Layout {
    _dir: tempfile::TempDir,
    root: PathBuf,
    outside: PathBuf,
    /// The swapped component (file or folder) and the link it is traded with.
    component: PathBuf,
    twin: PathBuf,
}

/// Builds a project where `component` (relative) is a real file (`folder == false`, holding
/// `AGENTS`) or a folder holding `AGENTS.md`, and plants beside it a link of kind `link` to a
/// forbidden file or folder of the same shape holding [`SECRET`].
fn layout(component: &str, folder: bool, link: Link) -> Layout {
    let dir = tempfile::tempdir().unwrap();
    let root = dunce::canonicalize(dir.path()).unwrap().join("project");
    let outside = dunce::canonicalize(dir.path()).unwrap().join("outside");
    fs::create_dir_all(root.join(".git")).unwrap();
    fs::create_dir_all(&outside).unwrap();
    let real = root.join(component);
    fs::create_dir_all(real.parent().unwrap()).unwrap();
    // The forbidden side, in the shape of the real one.
    let forbidden: PathBuf = match link {
        Link::OutsideAbsolute | Link::OutsideRelative => outside.join("target"),
        Link::GitDir => root.join(".git/target"),
        Link::NotADocument => root.join("notes.txt"),
    };
    if folder {
        fs::create_dir_all(&real).unwrap();
        fs::write(real.join("AGENTS.md"), "inside\n").unwrap();
        fs::create_dir_all(&forbidden).unwrap();
        fs::write(forbidden.join("AGENTS.md"), format!("{SECRET}\n")).unwrap();
        // A listing of the forbidden folder names the secret too.
        fs::write(forbidden.join(SECRET), "").unwrap();
    } else {
        fs::write(&real, "inside\n").unwrap();
        fs::write(&forbidden, format!("{SECRET}\n")).unwrap();
    }
    let twin = real.with_file_name(format!(
        ".twin-{}",
        real.file_name().unwrap().to_string_lossy()
    ));
    let target = match link {
        Link::OutsideRelative => {
            let depth = Path::new(component).components().count();
            let mut up = PathBuf::new();
            for _ in 0..depth {
                up.push("..");
            }
            up.join("../outside/target")
        }
        _ => forbidden.clone(),
    };
    symlink(&target, &twin).unwrap();
    Layout {
        _dir: dir,
        root,
        outside,
        component: real,
        twin,
    }
}

/// Every file under `dir` with its text (for "nothing was written there").
fn tree(dir: &Path) -> Vec<(PathBuf, String)> {
    let mut out = Vec::new();
    for entry in fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        let meta = fs::symlink_metadata(&path).unwrap();
        if meta.is_dir() {
            out.extend(tree(&path));
        } else {
            out.push((path.clone(), fs::read_to_string(&path).unwrap_or_default()));
        }
    }
    out.sort();
    out
}

/// The read operations of the door, each on `rel`: what they returned, as text.
fn reads(project: &ProjectRoot, rel: &Path) -> Vec<(&'static str, String)> {
    let cap: Cap = caps::AGENTS_MD;
    let text = |r: Result<Vec<u8>, _>| r.map(|b| String::from_utf8_lossy(&b).into_owned());
    let mut out = vec![
        ("read", text(project.read(rel, cap)).unwrap_or_default()),
        (
            "read_prefix",
            text(project.read_prefix(rel, cap).map(|(b, _)| b)).unwrap_or_default(),
        ),
        (
            "open_bounded",
            project
                .open_bounded(rel, cap)
                .and_then(|f| Ok(f.read_to_string()?))
                .unwrap_or_default(),
        ),
    ];
    let listed = rel
        .parent()
        .map(|p| project.list_dir(p, 64))
        .and_then(Result::ok)
        .map(|l| {
            l.map(|e| e.name.to_string_lossy().into_owned())
                .collect::<Vec<_>>()
                .join(",")
        })
        .unwrap_or_default();
    out.push(("list_dir", listed));
    out
}

/// Reads through the door never see the forbidden side: a file swapped with a link (outside,
/// absolute or relative; into `.git/`; to a non-document), and a folder on the way swapped the
/// same ways. The control reader (check, then open by name) is fooled in the same rounds.
#[test]
fn no_read_through_the_door_ever_sees_a_swapped_in_file() {
    let cases: Vec<(&str, bool, Link, &str)> = vec![
        ("AGENTS.md", false, Link::OutsideAbsolute, "AGENTS.md"),
        ("AGENTS.md", false, Link::OutsideRelative, "AGENTS.md"),
        ("AGENTS.md", false, Link::GitDir, "AGENTS.md"),
        ("AGENTS.md", false, Link::NotADocument, "AGENTS.md"),
        (
            "skills/s",
            true,
            Link::OutsideAbsolute,
            "skills/s/AGENTS.md",
        ),
        (
            "skills/s",
            true,
            Link::OutsideRelative,
            "skills/s/AGENTS.md",
        ),
        ("skills/s", true, Link::GitDir, "skills/s/AGENTS.md"),
        ("docs", true, Link::OutsideAbsolute, "docs/AGENTS.md"),
    ];
    let mut failures = Vec::new();
    let mut control_fooled = 0;
    for (component, folder, link, rel) in cases {
        let l = layout(component, folder, link);
        let project = ProjectRoot::open(&l.root).unwrap();
        let rel = Path::new(rel);
        let mut seen_inside = 0;
        let mut fooled = false;
        while_swapping(&l.component, &l.twin, || {
            for _ in 0..ROUNDS {
                for (op, text) in reads(&project, rel) {
                    if text.contains(SECRET) {
                        failures.push(format!(
                            "{component} {link:?}: {op} read the swapped-in file"
                        ));
                    }
                    if text.contains("inside") {
                        seen_inside += 1;
                    }
                }
                // The control: checked, then opened by name.
                if !fooled
                    && project.resolve_file(rel).is_ok()
                    && fs::read_to_string(l.root.join(rel)).is_ok_and(|t| t.contains(SECRET))
                {
                    fooled = true;
                }
            }
        });
        assert!(
            seen_inside > 0,
            "{component} {link:?}: the real file was never read"
        );
        control_fooled += usize::from(fooled);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(
        control_fooled > 0,
        "the swapper made no race that a check-then-open reader loses: the test proves nothing"
    );
}

/// Writes through the door never land on the forbidden side: the target file swapped with a link
/// to an outside file, and its folder swapped with a link to an outside folder (and into
/// `.git/`). The outside stays byte for byte as it was; the project ends with our file.
#[test]
fn no_write_through_the_door_ever_lands_on_a_swapped_in_side() {
    for (component, folder, link, rel) in [
        (
            ".sophia",
            true,
            Link::OutsideAbsolute,
            ".sophia/skills-index.tsv",
        ),
        (
            ".sophia",
            true,
            Link::OutsideRelative,
            ".sophia/skills-index.tsv",
        ),
        (
            ".claude/agents",
            true,
            Link::OutsideAbsolute,
            ".claude/agents/scout.md",
        ),
        (
            ".claude/agents",
            true,
            Link::GitDir,
            ".claude/agents/scout.md",
        ),
        (
            ".claude/settings.json",
            false,
            Link::OutsideAbsolute,
            ".claude/settings.json",
        ),
    ] {
        let l = layout(component, folder, link);
        let project = ProjectRoot::open(&l.root).unwrap();
        let rel = Path::new(rel);
        let outside_before = tree(&l.outside);
        let git_before = tree(&l.root.join(".git"));
        let mut written = 0;
        while_swapping(&l.component, &l.twin, || {
            // At least ROUNDS / 3 rounds, and on until one write went through (on a loaded
            // machine every try of the first rounds can meet the link swapped in).
            let mut i = 0;
            while i < ROUNDS / 3 || (written == 0 && i < ROUNDS * 20) {
                i += 1;
                let body = format!("#\tours {i}\n");
                written += usize::from(
                    project
                        .write_atomic(rel, body.as_bytes(), caps::STATE)
                        .is_ok(),
                );
                let _ = project.replace_generated(rel, body.as_bytes(), caps::STATE, |b| {
                    b.starts_with(b"#\t")
                });
                let _ = project.create_dir_all(&rel.with_extension("d"));
                let _ = project.remove_dir(&rel.with_extension("d"));
            }
        });
        let case = format!("{component} {link:?}");
        assert!(written > 0, "{case}: no write went through at all");
        assert_eq!(
            tree(&l.outside),
            outside_before,
            "{case}: written outside the project"
        );
        assert_eq!(
            tree(&l.root.join(".git")),
            git_before,
            "{case}: written into .git/"
        );
    }
}

/// Removal through the door never removes the forbidden side's file.
#[test]
fn no_removal_through_the_door_ever_reaches_a_swapped_in_side() {
    for link in [Link::OutsideAbsolute, Link::GitDir] {
        let l = layout("docs", true, link);
        let project = ProjectRoot::open(&l.root).unwrap();
        let victim = match link {
            Link::GitDir => l.root.join(".git/target/AGENTS.md"),
            _ => l.outside.join("target/AGENTS.md"),
        };
        while_swapping(&l.component, &l.twin, || {
            for _ in 0..ROUNDS / 3 {
                let _ = project.remove_file(Path::new("docs/AGENTS.md"));
                // Put ours back when it went (only when the real folder is in place).
                let _ = project.write_atomic(Path::new("docs/AGENTS.md"), b"inside\n", caps::STATE);
            }
        });
        assert_eq!(
            fs::read_to_string(&victim).unwrap(),
            format!("{SECRET}\n"),
            "{link:?}: the swapped-in file was removed or changed"
        );
    }
}
