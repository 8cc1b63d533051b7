//! Reading `.sophia-hook.yaml` from the project root. A missing file is the default
//! configuration; a file that does not parse is ignored with a warning (the hook never fails on
//! it; `doctor` reports it).

use std::path::Path;

use crate::config::{FILE_NAME, ProjectConfig};

/// The project's configuration and, when the file is broken, why it was ignored.
pub fn load(root: &Path) -> (ProjectConfig, Option<String>) {
    let path = root.join(FILE_NAME);
    let text = match std::fs::read(&path) {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(_) => return (ProjectConfig::default(), None),
    };
    match ProjectConfig::parse(&text) {
        Ok(config) => (config, None),
        Err(why) => (
            ProjectConfig::default(),
            Some(format!("{FILE_NAME} ignored: {why}")),
        ),
    }
}
