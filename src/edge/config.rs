//! Reading `.sophia-hook.yaml` from the project root, and the user-level `config.yaml` from the
//! user's config folder. A missing file is the default configuration; a file that does not parse,
//! is too large, is not a regular file or leads out of the project is ignored with a warning (the
//! hook never fails on it; `doctor` reports it).

use std::path::Path;

use crate::config::{FILE_NAME, ProjectConfig, USER_FILE_NAME, UserConfig};
use crate::edge::files::{Place, ProjectRoot, ReadError, caps};

/// The project's configuration and, when the file is broken, why it was ignored.
pub fn load(root: &ProjectRoot) -> (ProjectConfig, Option<String>) {
    let text = match root.read_string(Path::new(FILE_NAME), caps::CONFIG) {
        Ok(text) => text,
        Err(ReadError::Missing) => return (ProjectConfig::default(), None),
        Err(why) => {
            return (
                ProjectConfig::default(),
                Some(format!("{FILE_NAME} ignored: {why}")),
            );
        }
    };
    match ProjectConfig::parse(&text) {
        Ok(config) => (config, None),
        Err(why) => (
            ProjectConfig::default(),
            Some(format!("{FILE_NAME} ignored: {why}")),
        ),
    }
}

/// The user-level configuration in `config_dir` (trusted: the user's own folder); a missing,
/// unreadable or invalid file is the default.
pub fn load_user(config_dir: &Path) -> UserConfig {
    Place::user(config_dir.join(USER_FILE_NAME))
        .read_string(caps::CONFIG)
        .ok()
        .and_then(|text| UserConfig::parse_deferring_telemetry(&text).ok())
        .unwrap_or_default()
}

/// The one folder a project's path keys may name files in.
pub const ARTIFACT_DIR: &str = ".sophia";

/// Whether a configured artifact path names a file sophia-hook may own: exactly
/// `.sophia/<name>.<ext>`, one plain name (not hidden, no folder, no `..`) directly in the
/// dedicated folder, with the extension of the default (`.tsv` for the skills index, `.json` for
/// the agent catalog). Anything else is refused by construction, whatever files exist, so a
/// repository cannot point a writer at `.env`, `.claude/settings.local.json` or a source file
/// (`docs/security.md` `### I4`). The error is the warning's last part.
pub fn own_artifact_name(configured: &Path, default: &str) -> Result<(), &'static str> {
    use std::path::Component;
    let mut parts = configured.components();
    let in_dir = matches!(parts.next(), Some(Component::Normal(d)) if d == ARTIFACT_DIR);
    let name = match (parts.next(), parts.next()) {
        (Some(Component::Normal(name)), None) => name.to_str(),
        _ => None,
    };
    let (Some(name), true) = (name, in_dir) else {
        return Err("not-in-sophia-folder");
    };
    let want = Path::new(default).extension();
    let (stem, ext) = (Path::new(name).file_stem(), Path::new(name).extension());
    let plain = !name.starts_with('.')
        && stem.is_some_and(|s| !s.is_empty())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "._-".contains(c));
    if !plain || ext.is_none() || ext != want {
        return Err("not-our-file-kind");
    }
    Ok(())
}

/// The resolved path (after symlinks, relative to the root) must still be a file of ours in the
/// project's own `.sophia/`: `.sophia/skills-index.tsv -> ../.env` is refused, not followed onto
/// `.env`.
pub fn resolved_in_artifact_dir(resolved: &Path, default: &str) -> Result<(), &'static str> {
    own_artifact_name(resolved, default)
}

/// The effective second hotword prefix for the project at `root`: its `.sophia-hook.yaml`, else
/// the user's `config.yaml` (`user`, as the settings read it), else `+`.
pub fn hotword_prefix(
    root: &ProjectRoot,
    user: Option<&crate::config::HotwordPrefix>,
) -> crate::config::HotwordPrefix {
    let (config, _) = load(root);
    crate::config::HotwordPrefix::effective(config.hotword_prefix.as_ref(), user)
}

/// Where a generated artifact of the project lives: the configured path (`skills_index:`,
/// `agent_catalog:`) when it stays inside the project and out of `.git/` after resolving
/// symlinks, else the default path under the same check. `Err` says why the configured path (or
/// the default) was refused; when the configured one was refused but the default is fine, the
/// default comes back with the warning. A path that cannot be used at all is `None`. The place is
/// the resolved one: read or write that.
pub fn artifact_path(
    root: &ProjectRoot,
    key: &str,
    configured: Option<&Path>,
    default: &str,
) -> (Option<Place>, Option<String>) {
    let mut warning = None;
    if let Some(configured) = configured {
        match root.resolve(configured) {
            Err(why) => warning = Some(format!("config-ignored:{key}:{}", why.code())),
            Ok(resolved) => match own_artifact_name(configured, default)
                .and_then(|()| resolved_in_artifact_dir(&resolved, default))
            {
                Ok(()) => return (Some(root.at(resolved)), None),
                Err(why) => warning = Some(format!("config-ignored:{key}:{why}")),
            },
        }
    }
    match root.resolve(Path::new(default)) {
        Ok(resolved) if resolved_in_artifact_dir(&resolved, default).is_ok() => {
            (Some(root.at(resolved)), warning)
        }
        Ok(_) => (
            None,
            warning.or_else(|| Some(format!("{default}:not-in-sophia-folder"))),
        ),
        Err(why) => (
            None,
            warning.or_else(|| Some(format!("{default}:{}", why.code()))),
        ),
    }
}

// Both tests plant Unix symlinks (one to /dev/zero); the trust layer's Windows counterparts are in
// edge::files and edge::platform.
#[cfg(all(test, unix))]
mod tests {
    // Tests set up their files and folders directly.
    #![allow(clippy::disallowed_methods)]
    use super::*;
    use std::fs;

    #[test]
    fn artifact_paths_stay_inside_the_project() {
        let dir = tempfile::tempdir().unwrap();
        let root = &ProjectRoot::open(dir.path()).unwrap();
        let canon = dunce::canonicalize(dir.path()).unwrap();
        let path_of = |p: Option<Place>| p.map(|p| p.path());
        let (path, warning) = artifact_path(root, "skills_index", None, ".sophia/i.tsv");
        let path = path_of(path);
        assert_eq!((path, warning), (Some(canon.join(".sophia/i.tsv")), None));
        let (path, warning) = artifact_path(
            root,
            "skills_index",
            Some(Path::new(".sophia/b.tsv")),
            ".sophia/i.tsv",
        );
        let path = path_of(path);
        assert_eq!((path, warning), (Some(canon.join(".sophia/b.tsv")), None));
        for (bad, why) in [
            ("b/i.tsv", "not-in-sophia-folder"),
            (".env", "not-in-sophia-folder"),
            ("./.sophia/i.tsv", "not-in-sophia-folder"),
            (".sophia/sub/i.tsv", "not-in-sophia-folder"),
            (".sophia", "not-in-sophia-folder"),
            (".sophia/../i.tsv", "outside-project"),
            (".sophia/i.json", "not-our-file-kind"),
            (".sophia/i", "not-our-file-kind"),
            (".sophia/.gitignore", "not-our-file-kind"),
            (".sophia/.tsv", "not-our-file-kind"),
            (".sophia/a b.tsv", "not-our-file-kind"),
        ] {
            let (path, warning) =
                artifact_path(root, "skills_index", Some(Path::new(bad)), ".sophia/i.tsv");
            assert_eq!(path_of(path), Some(canon.join(".sophia/i.tsv")), "{bad}");
            assert_eq!(
                warning.as_deref(),
                Some(format!("config-ignored:skills_index:{why}").as_str()),
                "{bad}"
            );
        }
        for bad in ["../.profile", "/home/u/.bashrc", ".git/hooks/pre-commit"] {
            let (path, warning) =
                artifact_path(root, "skills_index", Some(Path::new(bad)), ".sophia/i.tsv");
            assert_eq!(path_of(path), Some(canon.join(".sophia/i.tsv")), "{bad}");
            assert!(
                warning.unwrap().starts_with("config-ignored:skills_index:"),
                "{bad}"
            );
        }
        let outside = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(outside.path(), dir.path().join(".sophia")).unwrap();
        let (path, warning) = artifact_path(root, "skills_index", None, ".sophia/i.tsv");
        assert_eq!(path_of(path), None);
        assert_eq!(warning.as_deref(), Some(".sophia/i.tsv:outside-project"));
    }

    #[test]
    fn oversized_and_special_config_files_are_ignored_with_a_reason() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::os::unix::fs::symlink("/dev/zero", root.join(FILE_NAME)).unwrap();
        let (config, why) = load(&ProjectRoot::open(root).unwrap());
        assert_eq!(config, ProjectConfig::default());
        assert!(why.unwrap().contains("ignored"));
        fs::remove_file(root.join(FILE_NAME)).unwrap();
        fs::write(
            root.join(FILE_NAME),
            "#".repeat(caps::CONFIG.bytes() as usize + 1),
        )
        .unwrap();
        let (_, why) = load(&ProjectRoot::open(root).unwrap());
        assert!(why.unwrap().contains("cap"));
    }
}
