//! Finding the project and reading its documents: the project root is the git root above the
//! payload's `cwd`, else `cwd`. Documents are read defensively: bounded size, no binary content,
//! no symlink that leads outside the project. A document that fails a check is skipped with a
//! diagnostic code, never an error.

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};

use crate::render::ProjectDoc;

/// `AGENTS.md` is cut to this many characters before it is injected (Claude Code caps hook
/// context at 10,000 characters; the bootstrap block needs the rest).
pub const AGENTS_MD_CAP_CHARS: usize = 6_000;
/// At most this many bytes are read from a project document.
const READ_CAP_BYTES: u64 = 64 * 1024;

/// The project root for a working directory: the nearest ancestor with a `.git` entry (a folder,
/// or a file in worktrees and submodules), else the directory itself.
pub fn project_root(cwd: &Path) -> PathBuf {
    cwd.ancestors()
        .find(|dir| dir.join(".git").exists())
        .unwrap_or(cwd)
        .to_path_buf()
}

/// The working directory of the payload, else the process's own.
pub fn working_dir(payload_cwd: Option<&str>) -> Option<PathBuf> {
    payload_cwd
        .filter(|c| !c.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::current_dir().ok())
}

/// Reads `<root>/<name>` as a capped project document. `Err` carries a short reason code for
/// diagnostics (`missing`, `outside-project`, `binary`, `unreadable`).
pub fn read_doc(
    root: &Path,
    name: &'static str,
    cap_chars: usize,
) -> Result<ProjectDoc, &'static str> {
    let path = root.join(name);
    let meta = fs::symlink_metadata(&path).map_err(|_| "missing")?;
    if meta.file_type().is_symlink() {
        let target = fs::canonicalize(&path).map_err(|_| "missing")?;
        let root = fs::canonicalize(root).map_err(|_| "unreadable")?;
        if !target.starts_with(&root) {
            return Err("outside-project");
        }
    }
    let file = fs::File::open(&path).map_err(|_| "unreadable")?;
    let meta = file.metadata().map_err(|_| "unreadable")?;
    if !meta.is_file() {
        return Err("unreadable");
    }
    let mut bytes = Vec::new();
    file.take(READ_CAP_BYTES)
        .read_to_end(&mut bytes)
        .map_err(|_| "unreadable")?;
    if bytes.contains(&0) {
        return Err("binary");
    }
    let text = String::from_utf8_lossy(&bytes);
    let total_chars = if meta.len() > READ_CAP_BYTES {
        None
    } else {
        Some(text.chars().count())
    };
    let fits = total_chars.is_some_and(|n| n <= cap_chars);
    Ok(ProjectDoc {
        name,
        text: if fits {
            text.into_owned()
        } else {
            text.chars().take(cap_chars).collect()
        },
        truncated_from: (!fits).then_some(meta.len() as usize),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn root_is_the_git_root_above_cwd() {
        let dir = tempfile::tempdir().unwrap();
        let sub = dir.path().join("a/b");
        fs::create_dir_all(&sub).unwrap();
        assert_eq!(project_root(&sub), sub);
        fs::create_dir(dir.path().join(".git")).unwrap();
        assert_eq!(project_root(&sub), dir.path());
    }

    #[test]
    fn doc_checks() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        assert_eq!(read_doc(root, "AGENTS.md", 100), Err("missing"));
        fs::write(root.join("AGENTS.md"), "rules\n").unwrap();
        let doc = read_doc(root, "AGENTS.md", 100).unwrap();
        assert_eq!((doc.text.as_str(), doc.truncated_from), ("rules\n", None));
        fs::write(root.join("AGENTS.md"), "é".repeat(300)).unwrap();
        let doc = read_doc(root, "AGENTS.md", 100).unwrap();
        assert_eq!(doc.text.chars().count(), 100);
        assert_eq!(doc.truncated_from, Some(600));
        fs::write(root.join("AGENTS.md"), b"abc\0def").unwrap();
        assert_eq!(read_doc(root, "AGENTS.md", 100), Err("binary"));
        fs::write(root.join("AGENTS.md"), "x".repeat(200_000)).unwrap();
        let doc = read_doc(root, "AGENTS.md", 100).unwrap();
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
            read_doc(project.path(), "AGENTS.md", 100),
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
            read_doc(project.path(), "AGENTS.md", 100).unwrap().text,
            "inside"
        );
    }
}
