//! Where a hook's program resolves, as the host starts it: a bare name (`sophia-hook`, what a
//! project-scope entry names so that it works on every teammate's machine) is looked up on the
//! search path (`PATH`, with `PATHEXT` on Windows), a path must name an executable file. Used by
//! `install` (the bare name must be this binary) and `doctor` (each registered entry must
//! resolve), and whether a host is on this machine at all (`install` with no `--host`). Never
//! runs anything.

use crate::charset::Shown as _;
use std::path::{Path, PathBuf};

/// True when `program` is a bare command name (no folder in it), which a shell looks up on PATH.
pub fn is_bare(program: &str) -> bool {
    !program.is_empty() && !program.contains(['/', '\\'])
}

/// The executable `program` starts: a bare name looked up in `search_path` (the value of
/// `PATH`), a path checked for an executable file (a relative one from `cwd`). The error says
/// why it does not resolve, in a sentence.
pub fn resolve(program: &str, search_path: Option<&str>, cwd: &Path) -> Result<PathBuf, String> {
    if is_bare(program) {
        let paths = search_path.filter(|p| !p.is_empty());
        which::which_in(program, paths, cwd)
            .or_else(|e| {
                // Windows starts `name` as `name.exe` (CreateProcess appends it to a name without
                // an extension), which `which` finds only through `PATHEXT`: an environment
                // without it (a host that clears it, a test) still resolves what Windows runs.
                match cfg!(windows) && Path::new(program).extension().is_none() {
                    true => which::which_in(format!("{program}.exe"), paths, cwd),
                    false => Err(e),
                }
            })
            .map_err(|_| format!("`{program}` is not found on PATH"))
    } else {
        which::which_in(program, None::<&str>, cwd)
            .map_err(|_| format!("{program} does not exist or is not executable"))
    }
}

/// Why `host` looks installed on this machine: one of its executables on the search path, or
/// its own folder in the home; `None` when neither is there.
pub fn detect(
    host: crate::hosts::Host,
    settings: &crate::edge::settings::Settings,
    cwd: &Path,
) -> Option<String> {
    let detect = host.spec().detect;
    // A search-path entry inside the repository is the repository's: its `bin/gemini` must not
    // make `install` register a host the user does not have (issue 48, blind pass case 64).
    use crate::edge::settings::{holds_account_home, is_inside, repository_root};
    let search = settings.search_path.as_deref().map(|path| {
        let Some(root) = repository_root(cwd) else {
            return path.to_owned();
        };
        let outside: Vec<PathBuf> = std::env::split_paths(path)
            .filter(|entry| !is_inside(entry, &root))
            .collect();
        if outside.len() == std::env::split_paths(path).count()
            || holds_account_home(&root, settings.home.as_deref())
        {
            return path.to_owned();
        }
        std::env::join_paths(outside)
            .map_or_else(|_| String::new(), |p| p.to_string_lossy().into_owned())
    });
    for exe in detect.executables {
        if let Ok(found) = resolve(exe, search.as_deref(), cwd) {
            return Some(format!("`{exe}` is on PATH: {}", found.shown()));
        }
    }
    // Rebuilt from its components: `$CODEX_HOME` joined with "" would end in a separator.
    let folder: PathBuf = detect
        .folder
        .resolve(settings.home.as_deref(), &settings.host_homes)?
        .components()
        .collect();
    crate::edge::files::Place::user(&folder)
        .is_dir()
        .then(|| format!("{} exists", folder.shown()))
}

/// What [`detect`] looks for, in words: `` `codex` on PATH or ~/.codex``.
pub fn signs(host: crate::hosts::Host, settings: &crate::edge::settings::Settings) -> String {
    let detect = host.spec().detect;
    let exes: Vec<String> = detect
        .executables
        .iter()
        .map(|e| format!("`{e}`"))
        .collect();
    let folder = detect
        .folder
        .resolve(settings.home.as_deref(), &settings.host_homes)
        .map_or_else(
            || "its folder".to_owned(),
            |f| f.components().collect::<PathBuf>().shown().to_string(),
        );
    format!("{} on PATH or {folder}", exes.join(", "))
}

/// True when `a` and `b` are the same file (their canonical paths are equal: a symlink on PATH
/// to this binary is this binary).
pub fn same_file(a: &Path, b: &Path) -> bool {
    match (dunce::canonicalize(a), dunce::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    // Tests set up their files and folders directly.
    #![allow(clippy::disallowed_methods)]
    use super::*;

    #[test]
    fn a_bare_name_is_looked_up_on_the_search_path_and_a_path_is_checked() {
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("bin");
        std::fs::create_dir_all(&bin).unwrap();
        let exe = bin.join(if cfg!(windows) {
            "sophia-hook.exe"
        } else {
            "sophia-hook"
        });
        std::fs::write(&exe, "").unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        let search = std::env::join_paths([dir.path().join("empty"), bin.clone()]).unwrap();
        let search = search.to_str().unwrap();
        let found = resolve("sophia-hook", Some(search), dir.path()).unwrap();
        assert!(same_file(&found, &exe), "{}", found.shown());
        assert_eq!(
            resolve(
                "sophia-hook",
                Some(&dir.path().join("empty").to_string_lossy()),
                dir.path()
            ),
            Err("`sophia-hook` is not found on PATH".into())
        );
        assert!(resolve(&exe.to_string_lossy(), None, dir.path()).is_ok());
        let missing = dir.path().join("nope/sophia-hook");
        assert!(resolve(&missing.to_string_lossy(), Some(search), dir.path()).is_err());
        assert!(is_bare("sophia-hook") && !is_bare("./sophia-hook") && !is_bare(""));
        assert!(!same_file(&exe, &missing));
    }

    #[cfg(unix)]
    #[test]
    fn a_file_that_is_not_executable_does_not_resolve() {
        let dir = tempfile::tempdir().unwrap();
        let exe = dir.path().join("sophia-hook");
        std::fs::write(&exe, "").unwrap();
        let search = dir.path().to_string_lossy().into_owned();
        assert!(resolve("sophia-hook", Some(&search), dir.path()).is_err());
        assert!(resolve(&exe.to_string_lossy(), None, dir.path()).is_err());
    }
}
