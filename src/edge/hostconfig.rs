//! Reading and writing hosts' settings files for `install`, `uninstall` and `doctor`: a file that
//! does not parse is never touched; every write is atomic and keeps the previous file as a backup.

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use serde_json::Value;

use crate::edge::files::write_atomic;

/// Reads a settings file: `Value::Null` when it does not exist, an error when it cannot be read
/// or parsed (strict JSON: comments and trailing commas are refused, as the hosts refuse them).
pub fn read(path: &Path) -> anyhow::Result<Value> {
    let bytes = match fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Value::Null),
        Err(e) => return Err(e).with_context(|| format!("reading {}", path.display())),
    };
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(Value::Null);
    }
    let value: Value = serde_json::from_slice(&bytes).map_err(|e| {
        anyhow::anyhow!(
            "{} is not valid JSON ({e}); it was left untouched — fix it, or move it away and run again",
            path.display()
        )
    })?;
    if !value.is_object() {
        bail!(
            "{} is not a JSON object; it was left untouched",
            path.display()
        );
    }
    Ok(value)
}

/// The backup kept next to a settings file before sophia-hook changes it.
pub fn backup_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".sophia-hook.bak");
    path.with_file_name(name)
}

/// Pretty JSON with a final newline, as the settings files are usually written.
pub fn render(doc: &Value) -> String {
    let mut text = serde_json::to_string_pretty(doc).unwrap_or_else(|_| "{}".to_owned());
    text.push('\n');
    text
}

/// Replaces the file with `doc` (or removes it for `None`), keeping the previous content in the
/// backup. Atomic: readers see the old file or the new one.
pub fn write(path: &Path, doc: Option<&Value>) -> anyhow::Result<()> {
    if path.exists() {
        fs::copy(path, backup_path(path))
            .with_context(|| format!("keeping a backup of {}", path.display()))?;
    }
    match doc {
        Some(doc) => write_atomic(path, render(doc).as_bytes())
            .with_context(|| format!("writing {}", path.display())),
        None => {
            if path.exists() {
                fs::remove_file(path).with_context(|| format!("removing {}", path.display()))?;
            }
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unparseable_files_are_refused_and_untouched() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.json");
        fs::write(&path, "{ // comment\n \"a\": 1 }").unwrap();
        let err = read(&path).unwrap_err().to_string();
        assert!(
            err.contains("not valid JSON") && err.contains("left untouched"),
            "{err}"
        );
        fs::write(&path, "[1]").unwrap();
        assert!(read(&path).is_err());
        assert_eq!(read(&dir.path().join("missing.json")).unwrap(), Value::Null);
    }

    #[test]
    fn write_keeps_a_backup() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("hooks.json");
        fs::write(&path, "{\"old\":true}").unwrap();
        write(&path, Some(&serde_json::json!({"new": true}))).unwrap();
        assert_eq!(
            fs::read_to_string(backup_path(&path)).unwrap(),
            "{\"old\":true}"
        );
        assert_eq!(read(&path).unwrap(), serde_json::json!({"new": true}));
        write(&path, None).unwrap();
        assert!(!path.exists() && backup_path(&path).exists());
    }
}
