//! Finding the project and reading its documents: the project root is the git root above the
//! payload's `cwd`, else `cwd`. Documents are read defensively: bounded size, no binary content,
//! no symlink that leads outside the project. A document that fails a check is skipped with a
//! diagnostic code, never an error.

use std::path::{Path, PathBuf};

use crate::edge::files::{ProjectRoot, ReadError, caps};
use crate::stages::render::ProjectDoc;

/// `AGENTS.md` is cut so that it takes at most this many UTF-16 code units once quoted
/// (`render::quote_lines`: two more per line; `charset::document_text` changes no length) before
/// it is injected (Claude Code caps hook context at 10,000 units; the bootstrap block needs the
/// rest). Counted in the hosts' unit, not in characters: 6,000 emoji are 12,000 units.
pub const AGENTS_MD_CAP_UNITS: usize = 6_000;

/// The project root for a working directory: the nearest ancestor with a `.git` entry (a folder,
/// or a file in worktrees and submodules), else the directory itself.
pub fn project_root(cwd: &Path) -> PathBuf {
    git_root(cwd).unwrap_or_else(|| cwd.to_path_buf())
}

/// The nearest ancestor of `cwd` (itself included) with a `.git` entry; `None` outside a git
/// work tree.
pub fn git_root(cwd: &Path) -> Option<PathBuf> {
    cwd.ancestors()
        .find(|dir| crate::edge::files::Place::user(dir.join(".git")).exists())
        .map(Path::to_path_buf)
}

/// Where a file the user named on the command line is written (`--out` of `catalog build`,
/// `skills index`, `report`, `man`, `plugin build`): inside the project the command works on
/// (`root`), or inside the project of the current folder, it is that project's file and goes
/// through its door — a folder link the repository committed there (`build ->
/// ~/.config/autostart`) never moves where the write lands (blind pass of issue 29, case 19);
/// anywhere else it is the user's own path. A relative path is the current folder's. (A file the
/// user names to be *read* is read where the user's path leads: they asked for it.)
pub fn flag_place(root: Option<&ProjectRoot>, path: &Path) -> crate::edge::files::Place {
    use crate::edge::files::Place;
    let absolute = if path.is_relative() {
        std::env::current_dir().map_or_else(|_| path.to_path_buf(), |cwd| cwd.join(path))
    } else {
        path.to_path_buf()
    };
    let here = std::env::current_dir()
        .ok()
        .map(|cwd| ProjectRoot::open_or_empty(&project_root(&cwd)));
    for project in root.into_iter().chain(here.as_ref()) {
        if let place @ Place::Project(..) = project.place_of(&absolute) {
            return place;
        }
    }
    Place::user(path)
}

/// The working directory of the payload, else the process's own.
pub fn working_dir(payload_cwd: Option<&str>) -> Option<PathBuf> {
    payload_cwd
        .filter(|c| !c.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::current_dir().ok())
}

/// Reads `<root>/<name>` as a capped project document. `Err` carries a short reason code for
/// diagnostics (`missing`, `outside-project`, `git-dir`, `link-not-a-document`, `binary`,
/// `not-a-file`, `too-large`, `unreadable`, `secret`). The file is read through the project's
/// door: inside the project and out of `.git/` (`AGENTS.md -> .git/config` is refused), a link
/// only when it ends at a document, a FIFO never blocks, a device is never opened, at most the
/// first `caps::AGENTS_MD` bytes.
pub fn read_doc(
    root: &ProjectRoot,
    name: &'static str,
    cap_chars: usize,
) -> Result<ProjectDoc, &'static str> {
    let (bytes, len) = root
        .read_prefix(Path::new(name), caps::AGENTS_MD)
        .map_err(|e| match e {
            ReadError::Missing => "missing",
            ReadError::NotRegular => "not-a-file",
            ReadError::TooLarge { .. } => "too-large",
            ReadError::Io(_) => "unreadable",
            ReadError::Secret => "secret",
            ReadError::Refused(why) => why.code(),
        })?;
    if bytes.contains(&0) {
        return Err("binary");
    }
    let len = len as usize;
    let text = String::from_utf8_lossy(&bytes);
    // The longest prefix whose quoted form fits: each character costs its UTF-16 units, each
    // line two more.
    let mut cost = crate::stages::render::QUOTE_CHARS_PER_LINE;
    let mut kept = 0;
    for c in text.chars() {
        cost += c.len_utf16()
            + if c == '\n' {
                crate::stages::render::QUOTE_CHARS_PER_LINE
            } else {
                0
            };
        if cost > cap_chars {
            break;
        }
        kept += 1;
    }
    let fits = bytes.len() == len && kept == text.chars().count();
    Ok(ProjectDoc {
        name,
        text: if fits {
            text.into_owned()
        } else {
            text.chars().take(kept).collect()
        },
        truncated_from: (!fits).then_some(len),
    })
}

#[cfg(test)]
mod tests {
    // Tests set up their files and folders directly.
    #![allow(clippy::disallowed_methods)]
    use super::*;
    use std::fs;

    #[test]
    fn root_is_the_git_root_above_cwd() {
        let dir = tempfile::tempdir().unwrap();
        let sub = dir.path().join("a/b");
        fs::create_dir_all(&sub).unwrap();
        assert_eq!(project_root(&sub), sub);
        fs::create_dir(dir.path().join(".git")).unwrap();
        assert_eq!(project_root(&sub), dir.path());
    }

    /// Links kinds × targets: a project document read through a link is read only when the link
    /// (direct or a chain) ends at a `*.md` file inside the project.
    #[cfg(unix)]
    #[test]
    fn a_document_link_is_read_only_when_it_ends_at_a_document() {
        let targets = [
            (".envrc", false),
            ("id_rsa.bak", false),
            (".env~", false),
            (".env ", false),
            ("prod.env", false),
            ("kubeconfig", false),
            ("terraform.tfvars", false),
            ("notes.txt", false),
            ("README", false),
            ("docs/rules.md", true),
            ("docs/RULES.MD", true),
            ("CLAUDE.md", true),
        ];
        for (target, read) in targets {
            for chain in [false, true] {
                let dir = tempfile::tempdir().unwrap();
                let root = dir.path();
                let file = root.join(target);
                fs::create_dir_all(file.parent().unwrap()).unwrap();
                fs::write(&file, "SECRET-OR-RULES\n").unwrap();
                if chain {
                    std::os::unix::fs::symlink(&file, root.join("hop")).unwrap();
                    std::os::unix::fs::symlink(root.join("hop"), root.join("AGENTS.md")).unwrap();
                } else {
                    std::os::unix::fs::symlink(&file, root.join("AGENTS.md")).unwrap();
                }
                let got = read_doc(&ProjectRoot::open(root).unwrap(), "AGENTS.md", 1000);
                assert_eq!(got.is_ok(), read, "{target:?} chain={chain}: {got:?}");
                if !read {
                    assert_eq!(got, Err("link-not-a-document"), "{target:?}");
                }
            }
        }
    }

    #[test]
    fn doc_checks() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        assert_eq!(
            read_doc(&ProjectRoot::open(root).unwrap(), "AGENTS.md", 100),
            Err("missing")
        );
        fs::write(root.join("AGENTS.md"), "rules\n").unwrap();
        let doc = read_doc(&ProjectRoot::open(root).unwrap(), "AGENTS.md", 100).unwrap();
        assert_eq!((doc.text.as_str(), doc.truncated_from), ("rules\n", None));
        fs::write(root.join("AGENTS.md"), "é".repeat(300)).unwrap();
        let doc = read_doc(&ProjectRoot::open(root).unwrap(), "AGENTS.md", 100).unwrap();
        // One line: 100 characters once quoted are `> ` and 98 of it.
        assert_eq!(doc.text.chars().count(), 98);
        assert_eq!(doc.truncated_from, Some(600));
        // Ten lines of 9: the first quote costs 2, each line 9 and its break 1 and the next
        // line's quote 2: 8 lines take 2 + 8 * 12 = 98 of the 100, and 2 characters of the ninth.
        fs::write(root.join("AGENTS.md"), "abcdefghi\n".repeat(10)).unwrap();
        let doc = read_doc(&ProjectRoot::open(root).unwrap(), "AGENTS.md", 100).unwrap();
        assert_eq!(doc.text, format!("{}ab", "abcdefghi\n".repeat(8)));
        assert_eq!(doc.truncated_from, Some(100));
        fs::write(root.join("AGENTS.md"), b"abc\0def").unwrap();
        assert_eq!(
            read_doc(&ProjectRoot::open(root).unwrap(), "AGENTS.md", 100),
            Err("binary")
        );
        fs::write(root.join("AGENTS.md"), "x".repeat(200_000)).unwrap();
        let doc = read_doc(&ProjectRoot::open(root).unwrap(), "AGENTS.md", 100).unwrap();
        assert_eq!(doc.truncated_from, Some(200_000));
    }

    #[cfg(unix)]
    #[test]
    fn symlink_outside_the_project_is_refused() {
        let outside = tempfile::tempdir().unwrap();
        let project = tempfile::tempdir().unwrap();
        fs::write(outside.path().join("secret.md"), "secret").unwrap();
        std::os::unix::fs::symlink(
            outside.path().join("secret.md"),
            project.path().join("AGENTS.md"),
        )
        .unwrap();
        assert_eq!(
            read_doc(
                &ProjectRoot::open(project.path()).unwrap(),
                "AGENTS.md",
                100
            ),
            Err("outside-project")
        );
        fs::write(project.path().join("real.md"), "inside").unwrap();
        fs::remove_file(project.path().join("AGENTS.md")).unwrap();
        std::os::unix::fs::symlink(
            project.path().join("real.md"),
            project.path().join("AGENTS.md"),
        )
        .unwrap();
        assert_eq!(
            read_doc(
                &ProjectRoot::open(project.path()).unwrap(),
                "AGENTS.md",
                100
            )
            .unwrap()
            .text,
            "inside"
        );
        fs::create_dir(project.path().join(".git")).unwrap();
        fs::write(project.path().join(".git/config"), "[remote]").unwrap();
        fs::remove_file(project.path().join("AGENTS.md")).unwrap();
        std::os::unix::fs::symlink(
            project.path().join(".git/config"),
            project.path().join("AGENTS.md"),
        )
        .unwrap();
        assert_eq!(
            read_doc(
                &ProjectRoot::open(project.path()).unwrap(),
                "AGENTS.md",
                100
            ),
            Err("git-dir")
        );
    }

    #[cfg(unix)]
    #[test]
    fn special_files_are_refused_without_blocking() {
        let project = tempfile::tempdir().unwrap();
        let fifo = project.path().join("AGENTS.md");
        let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
        assert_eq!(
            read_doc(
                &ProjectRoot::open(project.path()).unwrap(),
                "AGENTS.md",
                100
            ),
            Err("not-a-file")
        );
        fs::remove_file(&fifo).unwrap();
        std::os::unix::fs::symlink("/dev/zero", &fifo).unwrap();
        assert_eq!(
            read_doc(
                &ProjectRoot::open(project.path()).unwrap(),
                "AGENTS.md",
                100
            ),
            Err("outside-project")
        );
    }
}
