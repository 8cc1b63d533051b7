//! File writes with the two guarantees the product promises: analytics lines never interleave
//! (one `write` of a whole line in append mode), and tool outputs are never half-written (write a
//! temporary file in the same folder, then rename it over the target).

use std::fs::{self, OpenOptions};
use std::io::{self, Write};
use std::path::Path;

/// Appends one whole line with a single `write` call on a file opened in append mode, creating
/// the parent folder if needed. Concurrent appenders never interleave inside a line.
pub fn append_line(path: &Path, line: &str) -> io::Result<()> {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        fs::create_dir_all(parent)?;
    }
    let mut file = OpenOptions::new().create(true).append(true).open(path)?;
    let written = file.write(line.as_bytes())?;
    if written != line.len() {
        return Err(io::Error::new(io::ErrorKind::WriteZero, "short append"));
    }
    Ok(())
}

/// Writes `contents` to `path` atomically: a temporary sibling is written and synced, then
/// renamed over the target, so readers see the old file or the new one, never a torn one.
pub fn write_atomic(path: &Path, contents: &[u8]) -> io::Result<()> {
    let parent = match path.parent().filter(|p| !p.as_os_str().is_empty()) {
        Some(parent) => parent,
        None => Path::new("."),
    };
    fs::create_dir_all(parent)?;
    let name = path
        .file_name()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "path has no file name"))?;
    let tmp = parent.join(format!(
        ".{}.tmp-{}",
        name.to_string_lossy(),
        std::process::id()
    ));
    let result = (|| {
        let mut file = fs::File::create(&tmp)?;
        file.write_all(contents)?;
        file.sync_all()?;
        fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

/// Reads a best-effort JSON state file; a missing or corrupt file gives the default value.
pub fn read_json_or_default<T: serde::de::DeserializeOwned + Default>(path: &Path) -> T {
    fs::read(path)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default()
}

/// Writes a JSON state file atomically.
pub fn write_json_atomic<T: serde::Serialize>(path: &Path, value: &T) -> io::Result<()> {
    let json = serde_json::to_vec(value).map_err(io::Error::other)?;
    write_atomic(path, &json)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn append_creates_folder_and_appends() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a/b/log.jsonl");
        append_line(&path, "one\n").unwrap();
        append_line(&path, "two\n").unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "one\ntwo\n");
    }

    #[test]
    fn append_to_a_directory_fails() {
        let dir = tempfile::tempdir().unwrap();
        assert!(append_line(dir.path(), "x\n").is_err());
    }

    #[test]
    fn atomic_write_replaces_and_leaves_no_temp() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.json");
        write_atomic(&path, b"old").unwrap();
        write_atomic(&path, b"new").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"new");
        let names: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names.len(), 1, "{names:?}");
    }
}
