//! Settings read from the environment once per run, so the rest of the program never looks at
//! environment variables. Everything here is trusted input (the user's environment and the
//! user's own config folder); a project's `.sophia-hook.yaml` can only turn analytics off, never
//! choose where anything is written (`docs/security.md`).

use std::path::{Path, PathBuf};

/// Environment variable names, documented in `docs/configuration.md`.
pub const ENV_ANALYTICS: &str = "SOPHIA_ANALYTICS";
pub const ENV_ANALYTICS_FILE: &str = "SOPHIA_ANALYTICS_FILE";
pub const ENV_DEBUG: &str = "SOPHIA_DEBUG";
pub const ENV_PLANNING: &str = "SOPHIA_PLANNING";
pub const ENV_AVAILABILITY: &str = "SOPHIA_AGENT_AVAILABILITY";
pub const ENV_CACHE_DIR: &str = "SOPHIA_CACHE_DIR";
pub const ENV_TIME_BUDGET_MS: &str = "SOPHIA_TIME_BUDGET_MS";
/// How long a state update waits for another session's lock (milliseconds, default 2000).
pub const ENV_STATE_LOCK_MS: &str = "SOPHIA_STATE_LOCK_MS";
/// `auto`, `on` or `off`: whether the embedded skills may be named (`skills::grounding`).
pub const ENV_EMBEDDED_SKILLS: &str = "SOPHIA_EMBEDDED_SKILLS";
/// The default time budget of a hook run.
pub const DEFAULT_TIME_BUDGET: std::time::Duration = std::time::Duration::from_millis(100);

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settings {
    /// Where analytics lines go; `None` when analytics are off or no home is known.
    pub analytics_file: Option<PathBuf>,
    /// `SOPHIA_DEBUG=1`: readable decision lines on stderr.
    pub debug: bool,
    /// `SOPHIA_PLANNING=1`: planning mode for hosts that cannot report it.
    pub planning: bool,
    /// The user's home directory.
    pub home: Option<PathBuf>,
    /// The agent availability manifest.
    pub availability_file: Option<PathBuf>,
    /// The user cache folder for best-effort state (carry-forward of planned delegation).
    pub cache_dir: Option<PathBuf>,
    /// The user state folder (`XDG_STATE_HOME`, else `~/.local/state`); sophia-hook keeps its
    /// files under `sophia-hook/` there: backups of files that `agents sync --force` replaced and
    /// of settings files `install`/`uninstall` changed, and the page `report` writes by default.
    pub state_dir: Option<PathBuf>,
    /// The user data folder (`XDG_DATA_HOME`, else `%LOCALAPPDATA%` on Windows,
    /// `~/Library/Application Support` on macOS, `~/.local/share`); sophia-hook keeps under
    /// `sophia-hook/` there what a host loads from it: the plugin folders `plugin install` writes.
    pub data_dir: Option<PathBuf>,
    /// `$CODEX_HOME` (Codex's user folder, default `~/.codex`).
    /// The hosts' own home folders that are set (`CODEX_HOME`…), by variable.
    pub host_homes: crate::hosts::HostHomes,
    /// Analytics were set by the environment, which wins over the project configuration.
    pub analytics_from_env: bool,
    /// The user's sophia-hook config folder (`$XDG_CONFIG_HOME/sophia-hook`, else
    /// `~/.config/sophia-hook`): holds the user-level `config.yaml`.
    pub config_dir: Option<PathBuf>,
    /// The second hotword prefix of the user-level `config.yaml`, if it names one (a project's
    /// `.sophia-hook.yaml` wins over it).
    pub hotword_prefix: Option<crate::config::HotwordPrefix>,
    /// The user's tier → model id map for generated roles (`models` in `config.yaml`).
    pub models: crate::config::ModelMap,
    /// The analytics file is the default one (its folder may be created).
    pub analytics_default: bool,
    /// When a run has used this much time before loading catalogs or scoring, it emits the minimal
    /// safe output instead (`SOPHIA_TIME_BUDGET_MS`, default 100 ms).
    pub time_budget: std::time::Duration,
    /// How long a state update waits for another session's lock (`SOPHIA_STATE_LOCK_MS`, at most
    /// [`MAX_STATE_LOCK_WAIT`]).
    pub state_lock_wait: std::time::Duration,
    /// What the environment set that was refused or clamped, one code each
    /// (`env-ignored:<VAR>:<why>`, `env-clamped:<VAR>`): shown by `explain`, `doctor` and the
    /// hook's debug lines.
    pub warnings: Vec<String>,
    /// The variable the cache folder came from (`HOME` for the default under it).
    pub cache_var: &'static str,
    /// The variable the data folder came from (`HOME` for the default under it).
    pub data_var: &'static str,
    /// The search path (`PATH`): where a host finds a bare `sophia-hook` (`install`, `doctor`).
    pub search_path: Option<String>,
    /// `NO_COLOR` is set (not empty): clap's usage errors and help stay plain.
    pub no_color: bool,
    /// Standard input is a terminal (read in [`Settings::from_env`] only): nobody will type a
    /// payload, so hook mode and `explain` print a hint instead of waiting.
    pub stdin_is_terminal: bool,
    /// Whether the embedded skills may be named, and who said so (`SOPHIA_EMBEDDED_SKILLS`,
    /// else `embedded_skills` in `config.yaml`); `None`: nobody, `auto`.
    pub embedded_skills: Option<(
        crate::stages::skills::grounding::EmbeddedSkills,
        crate::stages::skills::grounding::ModeFrom,
    )>,
    /// The `telemetry:` section of the user's `config.yaml` (`docs/telemetry.md`); the `OTEL_*`
    /// variables are read by [`otel_env`], for the commands that consult them.
    pub telemetry: crate::config::UserTelemetry,
}

/// The one place the process environment is read (clippy.toml refuses `std::env::var*`
/// everywhere else).
fn process_var(name: &str) -> Option<String> {
    #[allow(clippy::disallowed_methods)]
    std::env::var_os(name).map(|v| v.to_string_lossy().into_owned())
}

/// The `OTEL_*` variables that count for `origin` (`stages::telemetry::resolve`): all of them for
/// a command the user runs; for the hook's own flush only `OTEL_SDK_DISABLED`, which can only
/// turn the export off (a repository can set a hook's environment: `docs/host-protocols.md`).
pub fn otel_env(origin: crate::stages::telemetry::Origin) -> crate::stages::telemetry::OtelEnv {
    use crate::stages::telemetry::{Origin, OtelEnv, SDK_DISABLED};
    match origin {
        Origin::Command => OtelEnv::from_lookup(process_var),
        Origin::Hook => OtelEnv::from_lookup(|name| {
            if name == SDK_DISABLED {
                process_var(name)
            } else {
                None
            }
        }),
    }
}

impl Default for Settings {
    fn default() -> Settings {
        Settings::from_lookup(|_| None)
    }
}

impl Settings {
    /// Applies the project's analytics configuration: a project may turn analytics off, nothing
    /// else. Its `analytics.file` is ignored (a repository never chooses where we write; see
    /// [`crate::config::ProjectConfig::warnings`]).
    pub fn with_project_analytics(&self, config: &crate::config::AnalyticsConfig) -> Settings {
        let mut s = self.clone();
        if config.enabled == Some(false) && !self.analytics_from_env {
            s.analytics_file = None;
        }
        s
    }

    pub fn from_env() -> Settings {
        let mut settings = Settings::from_lookup(process_var);
        if let Ok(cwd) = std::env::current_dir() {
            settings.refuse_inside_project(&cwd);
        }
        crate::edge::files::set_lock_wait(settings.state_lock_wait);
        settings.stdin_is_terminal = std::io::IsTerminal::is_terminal(&std::io::stdin());
        if let Some(dir) = &settings.config_dir {
            let user = crate::edge::config::load_user(dir);
            settings.apply_user_analytics(&user.analytics);
            settings.hotword_prefix = user.hotword_prefix;
            settings.telemetry = user.telemetry;
            settings.models = user.models;
            if settings.embedded_skills.is_none() {
                settings.embedded_skills = user
                    .embedded_skills
                    .map(|m| (m, crate::stages::skills::grounding::ModeFrom::UserConfig));
            }
        }
        settings
    }

    /// Refuses every folder and file of ours that lies inside the git work tree of `cwd` (where
    /// the host runs us: the repository), seen through links: an absolute path from a project's
    /// `env` block or `.env` that names the clone would put our cache, state, logs or the user's
    /// host settings into it. Not when that work tree is the home folder itself (a dotfiles
    /// repository). Each refusal is a warning naming the variable (`…:inside-project`).
    pub fn refuse_inside_project(&mut self, cwd: &Path) {
        let Some(root) = repository_root(cwd) else {
            return;
        };
        let inside = |p: &Path| seen_through_links(p).starts_with(&root);
        // The account's home is looked up (a read of the account database) only when something
        // would be refused: most runs have nothing of theirs inside the repository.
        let paths = [
            &self.home,
            &self.analytics_file,
            &self.availability_file,
            &self.cache_dir,
            &self.config_dir,
            &self.state_dir,
            &self.data_dir,
        ];
        let any_inside = paths.into_iter().flatten().any(|p| inside(p))
            || self.host_homes.values().any(|p| inside(p));
        if !any_inside || holds_account_home(&root, self.home.as_deref()) {
            return;
        }
        let mut said = Vec::new();
        let mut refuse = |slot: &mut Option<PathBuf>, var: &str| {
            if slot.as_deref().is_some_and(inside) {
                *slot = None;
                said.push(format!("env-ignored:{var}:inside-project"));
            }
        };
        refuse(&mut self.home, "HOME");
        refuse(&mut self.analytics_file, ENV_ANALYTICS_FILE);
        refuse(&mut self.availability_file, ENV_AVAILABILITY);
        refuse(&mut self.cache_dir, self.cache_var);
        refuse(&mut self.config_dir, "XDG_CONFIG_HOME");
        refuse(&mut self.state_dir, "XDG_STATE_HOME");
        refuse(&mut self.data_dir, self.data_var);
        self.host_homes.retain(|var, dir| {
            let keep = !inside(dir);
            if !keep {
                said.push(format!("env-ignored:{var}:inside-project"));
            }
            keep
        });
        self.warnings.extend(said);
    }

    /// These settings for a hook run whose payload names `cwd` as its working folder: `None`
    /// when that is inside the process's own working folder (checked at start-up) or nothing
    /// changes, else a copy with [`Settings::refuse_inside_project`] applied to `cwd` too.
    pub fn for_working_folder(&self, cwd: &Path) -> Option<Settings> {
        if std::env::current_dir().is_ok_and(|here| cwd.starts_with(here)) {
            return None;
        }
        let mut adjusted = self.clone();
        let before = adjusted.warnings.len();
        adjusted.refuse_inside_project(cwd);
        if self.config_dir.is_some() && adjusted.config_dir.is_none() {
            // The `config.yaml` read at start-up was the repository's: nothing of it stays.
            adjusted.hotword_prefix = None;
            adjusted.telemetry = crate::config::UserTelemetry::None;
            adjusted.models = crate::config::ModelMap::new();
            if adjusted.embedded_skills.is_some_and(|(_, from)| {
                from == crate::stages::skills::grounding::ModeFrom::UserConfig
            }) {
                adjusted.embedded_skills = None;
            }
            if !adjusted.analytics_from_env && !adjusted.analytics_default {
                // Its `analytics.file`: back to the default log.
                adjusted.analytics_file = adjusted
                    .home
                    .as_ref()
                    .map(|h| h.join(".mcp-servers/analytics/sophia-hook.jsonl"));
                adjusted.analytics_default = true;
            }
        }
        (adjusted.warnings.len() > before).then_some(adjusted)
    }

    /// Applies the user-level configuration's analytics keys (`enabled`, `file`): trusted, since
    /// it lives in the user's own config folder. The environment wins over it.
    pub fn apply_user_analytics(&mut self, config: &crate::config::AnalyticsConfig) {
        if self.analytics_from_env {
            return;
        }
        if let Some(file) = &config.file
            && let Some(home) = &self.home
        {
            self.analytics_file = Some(user_path(home, file));
            self.analytics_default = false;
        }
        if config.enabled == Some(false) {
            self.analytics_file = None;
        }
    }

    /// Builds settings from any variable lookup (tests pass a map). Every variable is input a
    /// repository can set (hosts apply a project's `env` block or `.env` to their hooks), so each
    /// value is validated here, once: a path must be absolute and free of `..` (it is normalised),
    /// a file we write must not be a dotfile, a number is clamped to its documented ceiling.
    /// What is refused or clamped is said in [`Settings::warnings`], naming the variable.
    pub fn from_lookup(get: impl Fn(&str) -> Option<String>) -> Settings {
        let mut env = Env {
            get: &get,
            warnings: Vec::new(),
        };
        let home = env.path("HOME").or_else(|| env.path("USERPROFILE"));
        let analytics_on = !get(ENV_ANALYTICS).is_some_and(|v| is_off(&v));
        let env_file = env.written_file(ENV_ANALYTICS_FILE);
        let analytics_from_env = get(ENV_ANALYTICS).is_some() || env.is_set(ENV_ANALYTICS_FILE);
        // A refused `SOPHIA_ANALYTICS_FILE` switches analytics off: the user asked for another
        // file than the default, and a value we cannot use is not a reason to write elsewhere.
        let analytics_default = !env.is_set(ENV_ANALYTICS_FILE);
        let analytics_file = match (env_file, analytics_default) {
            (Some(path), _) => Some(path),
            (None, true) => home
                .as_ref()
                .map(|h| h.join(".mcp-servers/analytics/sophia-hook.jsonl")),
            (None, false) => None,
        }
        .filter(|_| analytics_on);
        let availability_file = match env.written_file(ENV_AVAILABILITY) {
            Some(path) => Some(path),
            None if env.is_set(ENV_AVAILABILITY) => None,
            None => home
                .as_ref()
                .map(|h| h.join(".mcp-servers/agent-availability.json")),
        };
        let cache_from = env.first_path(&[ENV_CACHE_DIR, "XDG_CACHE_HOME", "LOCALAPPDATA"]);
        let cache_var = cache_from.as_ref().map_or("HOME", |(var, _)| *var);
        let cache_dir = cache_from.map(|(_, p)| p).or_else(|| {
            home.as_ref().map(|h| {
                if cfg!(target_os = "macos") {
                    h.join("Library/Caches")
                } else {
                    h.join(".cache")
                }
            })
        });
        let config_dir = env
            .path("XDG_CONFIG_HOME")
            .or_else(|| home.as_ref().map(|h| h.join(".config")))
            .map(|d| d.join("sophia-hook"));
        let state_dir = env
            .path("XDG_STATE_HOME")
            .or_else(|| home.as_ref().map(|h| h.join(".local/state")));
        let data_from = env.first_path(if cfg!(windows) {
            &["XDG_DATA_HOME", "LOCALAPPDATA"]
        } else {
            &["XDG_DATA_HOME"]
        });
        let data_var = data_from.as_ref().map_or("HOME", |(var, _)| *var);
        let data_dir = data_from.map(|(_, p)| p).or_else(|| {
            home.as_ref().map(|h| {
                if cfg!(target_os = "macos") {
                    h.join("Library/Application Support")
                } else {
                    h.join(".local/share")
                }
            })
        });
        let time_budget = env
            .millis(ENV_TIME_BUDGET_MS, MAX_TIME_BUDGET)
            .unwrap_or(DEFAULT_TIME_BUDGET);
        let state_lock_wait = env
            .millis(ENV_STATE_LOCK_MS, MAX_STATE_LOCK_WAIT)
            .unwrap_or(MAX_STATE_LOCK_WAIT);
        let host_homes = crate::hosts::Host::home_vars()
            .into_iter()
            .filter_map(|var| env.path(var).map(|p| (var, p)))
            .collect();
        let search_path = env.search_path();
        let warnings = env.warnings;
        Settings {
            cache_var,
            state_dir,
            data_dir,
            data_var,
            time_budget,
            state_lock_wait,
            analytics_from_env,
            host_homes,
            availability_file,
            cache_dir,
            config_dir,
            hotword_prefix: None,
            models: crate::config::ModelMap::new(),
            embedded_skills: get(ENV_EMBEDDED_SKILLS)
                .and_then(|v| crate::stages::skills::grounding::EmbeddedSkills::parse(&v))
                .map(|m| (m, crate::stages::skills::grounding::ModeFrom::Environment)),
            analytics_default,
            analytics_file,
            debug: get(ENV_DEBUG).is_some_and(|v| is_on(&v)),
            planning: get(ENV_PLANNING).is_some_and(|v| is_on(&v)),
            home,
            search_path,
            no_color: get("NO_COLOR").is_some_and(|v| !v.is_empty()),
            stdin_is_terminal: false,
            warnings,
            telemetry: crate::config::UserTelemetry::None,
        }
    }
}

/// Every variable [`Settings::from_lookup`] reads, by what it holds: the paths (folders and files
/// of ours, validated by `Env::path`), the files we write (no dotfile), the numbers (clamped) and
/// the words (switches, `PATH`). A variable read but not listed fails the test
/// `every_variable_read_is_classified`, so a new one cannot skip the checks the tests generate
/// over these lists (here and in `tests/it/env_input.rs`).
pub fn path_vars() -> Vec<&'static str> {
    let mut vars = vec![
        "HOME",
        "USERPROFILE",
        ENV_ANALYTICS_FILE,
        ENV_AVAILABILITY,
        ENV_CACHE_DIR,
        "XDG_CACHE_HOME",
        "LOCALAPPDATA",
        "XDG_CONFIG_HOME",
        "XDG_STATE_HOME",
        "XDG_DATA_HOME",
    ];
    vars.extend(crate::hosts::Host::home_vars());
    vars
}
pub const WRITTEN_FILE_VARS: &[&str] = &[ENV_ANALYTICS_FILE, ENV_AVAILABILITY];
pub const NUMBER_VARS: &[&str] = &[ENV_TIME_BUDGET_MS, ENV_STATE_LOCK_MS];
pub const WORD_VARS: &[&str] = &[
    ENV_ANALYTICS,
    ENV_DEBUG,
    ENV_PLANNING,
    ENV_EMBEDDED_SKILLS,
    "NO_COLOR",
    "PATH",
];

/// Whether a variable a project sets for a host's hooks is one sophia-hook reads, or of a family
/// it reads from (`SOPHIA_*`, `XDG_*`): what `doctor` names.
pub fn is_ours(var: &str) -> bool {
    var.starts_with("SOPHIA_")
        || var.starts_with("XDG_")
        || path_vars().contains(&var)
        || NUMBER_VARS.contains(&var)
        || WORD_VARS.contains(&var)
}

/// The ceiling of `SOPHIA_TIME_BUDGET_MS`, the default: the environment can only lower the
/// budget; with the deadline's margin (`edge::deadline::MARGIN`) a hook run does at most 150 ms
/// of work (`docs/security.md`, `## Time cap`), whatever the environment says.
pub const MAX_TIME_BUDGET: std::time::Duration = DEFAULT_TIME_BUDGET;
/// The ceiling (and default) of `SOPHIA_STATE_LOCK_MS`.
pub const MAX_STATE_LOCK_WAIT: std::time::Duration = crate::edge::files::LOCK_WAIT;

/// The environment as it is read: every value through one of these methods, each refusal and
/// clamp recorded as a warning naming the variable (`env-ignored:<VAR>:<why>`,
/// `env-clamped:<VAR>`).
struct Env<'a> {
    get: &'a dyn Fn(&str) -> Option<String>,
    warnings: Vec<String>,
}

impl Env<'_> {
    /// Set to something (an empty value counts as unset, as shells and hosts treat it).
    fn is_set(&self, var: &str) -> bool {
        (self.get)(var).is_some_and(|v| !v.is_empty())
    }

    fn refuse(&mut self, var: &str, why: &str) {
        self.warnings.push(format!("env-ignored:{var}:{why}"));
    }

    /// A folder or file the variable names: absolute, no `..`, no line break or other control
    /// character, normalised (no `.` components, no doubled separators); else refused.
    fn path(&mut self, var: &str) -> Option<PathBuf> {
        let value = (self.get)(var).filter(|v| !v.is_empty())?;
        match checked_path(&value) {
            Ok(path) => Some(path),
            Err(why) => {
                self.refuse(var, why);
                None
            }
        }
    }

    /// The first of `vars` that is set and valid (a refused one is said and skipped), with its
    /// name.
    fn first_path(&mut self, vars: &[&'static str]) -> Option<(&'static str, PathBuf)> {
        vars.iter()
            .find_map(|var| self.path(var).map(|p| (*var, p)))
    }

    /// A file we write (append to, or replace): a [`Env::path`] whose name is not a dotfile
    /// (`.bashrc`, `.gitconfig`, `.profile`: a line of ours there is run or parsed by another
    /// program) and not a folder-like name.
    fn written_file(&mut self, var: &str) -> Option<PathBuf> {
        let path = self.path(var)?;
        match path.file_name().and_then(|n| n.to_str()) {
            Some(name) if !name.starts_with('.') => Some(path),
            _ => {
                self.refuse(var, "dotfile");
                None
            }
        }
    }

    /// Milliseconds, at most `ceiling` (a larger value is clamped and said); a value that is not
    /// a whole number is refused.
    fn millis(&mut self, var: &str, ceiling: std::time::Duration) -> Option<std::time::Duration> {
        let value = (self.get)(var).filter(|v| !v.trim().is_empty())?;
        let Ok(ms) = value.trim().parse::<u64>() else {
            // A number too large for u64 is still a number: clamped like any other.
            if !value.trim().is_empty() && value.trim().bytes().all(|b| b.is_ascii_digit()) {
                self.warnings.push(format!("env-clamped:{var}"));
                return Some(ceiling);
            }
            self.refuse(var, "not-a-number");
            return None;
        };
        let wanted = std::time::Duration::from_millis(ms);
        if wanted > ceiling {
            self.warnings.push(format!("env-clamped:{var}"));
            return Some(ceiling);
        }
        Some(wanted)
    }

    /// `PATH` without its relative entries: `which` resolves them against the working folder,
    /// i.e. the project, so a `bin` or `.` entry would let a repository's own `sophia-hook` pass
    /// for the installed one.
    fn search_path(&mut self) -> Option<String> {
        let value = (self.get)("PATH").filter(|p| !p.is_empty())?;
        let entries: Vec<PathBuf> = std::env::split_paths(&value).collect();
        // As `checked_path`: on Windows a rooted entry without a drive is the current drive's.
        let kept: Vec<&PathBuf> = entries
            .iter()
            .filter(|e| e.is_absolute() || (cfg!(windows) && e.has_root()))
            .collect();
        if kept.len() != entries.len() {
            self.refuse("PATH", "relative-entry");
        }
        std::env::join_paths(kept)
            .ok()
            .map(|p| p.to_string_lossy().into_owned())
            .filter(|p| !p.is_empty())
    }
}

/// The repository around the working folder `cwd`: its git work tree
/// (`edge::project::git_root`), seen through links; `None` outside one. A folder without `.git`
/// is not taken for a repository: `HOME` itself is often such a folder (containers, a `HOME`
/// that is not the account's), and every path under it would be refused.
pub fn repository_root(cwd: &Path) -> Option<PathBuf> {
    crate::edge::project::git_root(cwd).map(|root| seen_through_links(&root))
}

/// Whether the repository `root` is the account's home or holds it (a dotfiles repository),
/// where nothing is refused for lying inside it: the home the system gives the account, never
/// `HOME`, which a repository may set to the clone itself (`home`, the settings' own, only where
/// the system gives none: Windows).
pub fn holds_account_home(root: &Path, home: Option<&Path>) -> bool {
    crate::edge::platform::account_home()
        .or_else(|| cfg!(windows).then(|| home.map(Path::to_path_buf)).flatten())
        .is_some_and(|account| seen_through_links(&account).starts_with(root))
}

/// Whether `path`, seen through links, lies inside `root` (a [`repository_root`]).
pub fn is_inside(path: &Path, root: &Path) -> bool {
    seen_through_links(path).starts_with(root)
}

/// `path` with its longest existing beginning resolved (links followed), the rest appended: where
/// a write to it would land, for a path that may not exist yet.
fn seen_through_links(path: &Path) -> PathBuf {
    for base in path.ancestors() {
        if let Ok(real) = dunce::canonicalize(base) {
            let rest = path.strip_prefix(base).unwrap_or(Path::new(""));
            return real.join(rest);
        }
    }
    path.to_path_buf()
}

/// An environment path as we use it, or why not: absolute, without `..`, without control
/// characters; `.` components and doubled separators are dropped.
pub fn checked_path(value: &str) -> Result<PathBuf, &'static str> {
    if value.chars().any(char::is_control) {
        return Err("control-character");
    }
    let path = Path::new(value);
    // On Windows a rooted path without a drive (`\Users\me`) is the current drive's: it never
    // resolves against the working folder either.
    if !(path.is_absolute() || (cfg!(windows) && path.has_root())) {
        return Err("relative");
    }
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            std::path::Component::ParentDir => return Err("dotdot"),
            std::path::Component::CurDir => {}
            other => out.push(other),
        }
    }
    // The kernel's own folders: `/proc/self/fd/3` or `/dev/fd/3` is whatever the process
    // inherited as that descriptor (a repository's folder), never a folder or file of ours.
    if cfg!(unix)
        && ["/proc", "/dev", "/sys"]
            .iter()
            .any(|system| out.starts_with(system))
    {
        return Err("system-folder");
    }
    Ok(out)
}

/// A user-chosen path: `~/x` and relative paths are under the home directory, absolute paths
/// stay as written.
fn user_path(home: &Path, path: &Path) -> PathBuf {
    match path.strip_prefix("~") {
        Ok(rest) => home.join(rest),
        Err(_) if path.is_absolute() => path.to_path_buf(),
        Err(_) => home.join(path),
    }
}

fn is_on(value: &str) -> bool {
    matches!(
        value.trim().to_ascii_lowercase().as_str(),
        "1" | "true" | "yes" | "on"
    )
}

fn is_off(value: &str) -> bool {
    matches!(
        value.trim().to_ascii_lowercase().as_str(),
        "0" | "false" | "no" | "off"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn settings(vars: &[(&str, &str)]) -> Settings {
        let map: BTreeMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Settings::from_lookup(|k| map.get(k).cloned())
    }

    #[test]
    fn analytics_path_default_override_and_off() {
        let s = settings(&[("HOME", "/home/u")]);
        assert_eq!(
            s.analytics_file,
            Some(PathBuf::from(
                "/home/u/.mcp-servers/analytics/sophia-hook.jsonl"
            ))
        );
        let s = settings(&[("HOME", "/home/u"), (ENV_ANALYTICS_FILE, "/tmp/a.jsonl")]);
        assert_eq!(s.analytics_file, Some(PathBuf::from("/tmp/a.jsonl")));
        let s = settings(&[("HOME", "/home/u"), (ENV_ANALYTICS, "off")]);
        assert_eq!(s.analytics_file, None);
        assert_eq!(settings(&[]).analytics_file, None);
        // Relative: refused (it would land in the working folder, the project), and analytics
        // are off rather than moved back to the default.
        let s = settings(&[("HOME", "/home/u"), (ENV_ANALYTICS_FILE, "logs/a.jsonl")]);
        assert_eq!(s.analytics_file, None);
        assert_eq!(s.warnings, ["env-ignored:SOPHIA_ANALYTICS_FILE:relative"]);
        let s = settings(&[(ENV_ANALYTICS_FILE, "logs/a.jsonl")]);
        assert_eq!(s.analytics_file, None);
    }

    #[test]
    fn user_config_moves_analytics_unless_the_environment_decided() {
        let cfg = crate::config::AnalyticsConfig {
            enabled: None,
            file: Some(PathBuf::from("~/logs/a.jsonl")),
        };
        let mut s = settings(&[("HOME", "/home/u")]);
        s.apply_user_analytics(&cfg);
        assert_eq!(
            s.analytics_file,
            Some(PathBuf::from("/home/u/logs/a.jsonl"))
        );
        assert!(!s.analytics_default);
        let mut s = settings(&[("HOME", "/home/u"), (ENV_ANALYTICS_FILE, "/e.jsonl")]);
        s.apply_user_analytics(&cfg);
        assert_eq!(s.analytics_file, Some(PathBuf::from("/e.jsonl")));
    }

    #[test]
    fn user_dirs_follow_xdg() {
        let s = settings(&[("HOME", "/home/u")]);
        assert_eq!(
            s.config_dir,
            Some(PathBuf::from("/home/u/.config/sophia-hook"))
        );
        assert_eq!(s.state_dir, Some(PathBuf::from("/home/u/.local/state")));
        let s = settings(&[
            ("HOME", "/home/u"),
            ("XDG_STATE_HOME", "/s"),
            ("XDG_CONFIG_HOME", "relative"),
        ]);
        assert_eq!(s.state_dir, Some(PathBuf::from("/s")));
        assert_eq!(
            s.config_dir,
            Some(PathBuf::from("/home/u/.config/sophia-hook"))
        );
    }

    #[test]
    fn availability_and_cache_paths() {
        let s = settings(&[("HOME", "/home/u")]);
        assert_eq!(
            s.availability_file,
            Some(PathBuf::from(
                "/home/u/.mcp-servers/agent-availability.json"
            ))
        );
        // The documented default: ~/.cache (~/Library/Caches on macOS).
        let default_cache = if cfg!(target_os = "macos") {
            "/home/u/Library/Caches"
        } else {
            "/home/u/.cache"
        };
        assert_eq!(s.cache_dir, Some(PathBuf::from(default_cache)));
        let s = settings(&[("HOME", "/home/u"), ("LOCALAPPDATA", "/l")]);
        assert_eq!(s.cache_dir, Some(PathBuf::from("/l")));
        let s = settings(&[("LOCALAPPDATA", "/l"), ("XDG_CACHE_HOME", "/x")]);
        assert_eq!(s.cache_dir, Some(PathBuf::from("/x")), "XDG first");
        let s = settings(&[
            ("HOME", "/home/u"),
            (ENV_AVAILABILITY, "/tmp/m.json"),
            (ENV_CACHE_DIR, "/tmp/c"),
        ]);
        assert_eq!(s.availability_file, Some(PathBuf::from("/tmp/m.json")));
        assert_eq!(s.cache_dir, Some(PathBuf::from("/tmp/c")));
        let s = settings(&[("XDG_CACHE_HOME", "/x")]);
        assert_eq!(s.cache_dir, Some(PathBuf::from("/x")));
        assert_eq!(
            settings(&[("HOME", "/home/u")]).state_dir,
            Some(PathBuf::from("/home/u/.local/state"))
        );
        let s = settings(&[("HOME", "/home/u"), ("XDG_STATE_HOME", "/s")]);
        assert_eq!(s.state_dir, Some(PathBuf::from("/s")));
        // The data folder (plugin folders): XDG first, then the platform's own.
        let default_data = if cfg!(target_os = "macos") {
            "/home/u/Library/Application Support"
        } else {
            "/home/u/.local/share"
        };
        assert_eq!(
            settings(&[("HOME", "/home/u")]).data_dir,
            Some(PathBuf::from(default_data))
        );
        let s = settings(&[("HOME", "/home/u"), ("XDG_DATA_HOME", "/d")]);
        assert_eq!(
            (s.data_dir, s.data_var),
            (Some(PathBuf::from("/d")), "XDG_DATA_HOME")
        );
        let s = settings(&[("HOME", "/home/u"), ("XDG_DATA_HOME", "rel")]);
        assert_eq!(s.data_dir, Some(PathBuf::from(default_data)));
        assert!(
            s.warnings
                .contains(&"env-ignored:XDG_DATA_HOME:relative".to_owned()),
            "{:?}",
            s.warnings
        );
    }

    #[test]
    fn a_project_can_turn_analytics_off_but_never_move_them() {
        let cfg = crate::config::AnalyticsConfig {
            enabled: None,
            file: Some(PathBuf::from("~/.bashrc")),
        };
        let s = settings(&[("HOME", "/home/u")]).with_project_analytics(&cfg);
        assert_eq!(
            s.analytics_file,
            Some(PathBuf::from(
                "/home/u/.mcp-servers/analytics/sophia-hook.jsonl"
            ))
        );
        let off = crate::config::AnalyticsConfig {
            enabled: Some(false),
            file: None,
        };
        assert_eq!(
            settings(&[("HOME", "/home/u")])
                .with_project_analytics(&off)
                .analytics_file,
            None
        );
        let env = settings(&[("HOME", "/home/u"), (ENV_ANALYTICS_FILE, "/e.jsonl")])
            .with_project_analytics(&off);
        assert_eq!(env.analytics_file, Some(PathBuf::from("/e.jsonl")));
    }

    #[test]
    fn flags() {
        let s = settings(&[(ENV_DEBUG, "1"), (ENV_PLANNING, "true")]);
        assert!(s.debug && s.planning);
        let s = settings(&[(ENV_DEBUG, "0")]);
        assert!(!s.debug && !s.planning);
    }

    #[test]
    fn every_variable_read_is_classified() {
        let read = std::cell::RefCell::new(std::collections::BTreeSet::new());
        let _ = Settings::from_lookup(|k| {
            read.borrow_mut().insert(k.to_owned());
            Some("/x/y".to_owned())
        });
        let _ = Settings::from_lookup(|k| {
            read.borrow_mut().insert(k.to_owned());
            None
        });
        let known: std::collections::BTreeSet<String> = path_vars()
            .into_iter()
            .chain(NUMBER_VARS.iter().copied())
            .chain(WORD_VARS.iter().copied())
            .map(str::to_owned)
            .collect();
        let unknown: Vec<String> = read
            .take()
            .into_iter()
            .filter(|v| !known.contains(v))
            .collect();
        assert!(unknown.is_empty(), "read but not classified: {unknown:?}");
    }

    /// Every path a [`Settings`] holds.
    fn all_paths(s: &Settings) -> Vec<PathBuf> {
        [
            &s.home,
            &s.analytics_file,
            &s.availability_file,
            &s.cache_dir,
            &s.config_dir,
            &s.state_dir,
            &s.data_dir,
        ]
        .into_iter()
        .flatten()
        .cloned()
        .chain(s.host_homes.values().cloned())
        .collect()
    }

    /// The class of issue 48 (1): every path variable × every form a repository's `env` block
    /// or `.env` can give it. No path of the settings is relative, climbs with `..` or carries
    /// a control character; a refused value is said, naming its variable; a valid one is kept,
    /// normalised.
    #[test]
    fn no_path_from_the_environment_is_relative_or_climbs() {
        let bad = [
            ("relative", "cache"),
            ("relative", "./x"),
            ("relative", "../x"),
            ("relative", "~/x"),
            ("relative", ".bashrc"),
            ("dotdot", "/home/u/../../etc/x"),
            ("dotdot", "/home/u/a/.."),
            ("control-character", "/home/u/a\nb"),
            ("control-character", "/home/u/\u{1b}[31m"),
        ];
        #[cfg(unix)]
        let bad = [
            bad.as_slice(),
            &[
                ("system-folder", "/proc/self/fd/3"),
                ("system-folder", "/dev/fd/3/tools"),
                ("system-folder", "/proc/1/root/home/u"),
            ],
        ]
        .concat();
        for var in path_vars() {
            for &(why, value) in bad.iter() {
                // USERPROFILE is read only without HOME.
                let home = if var == "USERPROFILE" { "" } else { "/home/u" };
                let s = settings(&[("HOME", home), (var, value)]);
                for path in all_paths(&s) {
                    assert!(path.has_root(), "{var}={value:?}: {path:?}");
                    assert!(
                        !path
                            .components()
                            .any(|c| c == std::path::Component::ParentDir),
                        "{var}={value:?}: {path:?}"
                    );
                    assert!(
                        !path.to_string_lossy().chars().any(char::is_control),
                        "{var}={value:?}: {path:?}"
                    );
                }
                let said = format!("env-ignored:{var}:{why}");
                assert!(
                    s.warnings.contains(&said),
                    "{var}={value:?}: {:?}",
                    s.warnings
                );
            }
            // Empty is unset, and says nothing.
            let home = if var == "USERPROFILE" { "" } else { "/home/u" };
            let s = settings(&[("HOME", home), (var, "")]);
            assert!(s.warnings.is_empty(), "{var}: {:?}", s.warnings);
            // A valid value is kept, normalised.
            let s = settings(&[("HOME", home), (var, "/data/./x//y")]);
            assert!(s.warnings.is_empty(), "{var}: {:?}", s.warnings);
            assert!(
                all_paths(&s)
                    .iter()
                    .any(|p| p.starts_with("/data/x/y") || p == Path::new("/data/x/y")),
                "{var}: {:?}",
                all_paths(&s)
            );
        }
    }

    /// A file we append to or replace is never a dotfile of the user's (`.bashrc`,
    /// `.gitconfig`): a line of ours there is run or parsed by another program.
    #[test]
    fn a_file_we_write_is_never_a_dotfile() {
        for var in WRITTEN_FILE_VARS {
            for value in ["/home/u/.bashrc", "/home/u/.gitconfig", "/home/u/.config/."] {
                let s = settings(&[("HOME", "/home/u"), (var, value)]);
                for path in [&s.analytics_file, &s.availability_file]
                    .into_iter()
                    .flatten()
                {
                    assert!(
                        !path
                            .file_name()
                            .is_some_and(|n| n.to_string_lossy().starts_with('.')),
                        "{var}={value}: {path:?}"
                    );
                }
                assert!(
                    s.warnings
                        .iter()
                        .any(|w| w.starts_with(&format!("env-ignored:{var}:"))),
                    "{var}={value}: {:?}",
                    s.warnings
                );
            }
        }
        // Refused, the file is not moved back to the default: nothing is written.
        let s = settings(&[("HOME", "/home/u"), (ENV_ANALYTICS_FILE, "/home/u/.bashrc")]);
        assert_eq!(s.analytics_file, None);
    }

    /// The class of issue 48 (2): no number from the environment lifts a bound past its
    /// ceiling; what is not a number is refused and the default kept.
    #[test]
    fn numbers_from_the_environment_are_clamped() {
        let ceilings = [
            (ENV_TIME_BUDGET_MS, MAX_TIME_BUDGET, DEFAULT_TIME_BUDGET),
            (ENV_STATE_LOCK_MS, MAX_STATE_LOCK_WAIT, MAX_STATE_LOCK_WAIT),
        ];
        assert_eq!(ceilings.len(), NUMBER_VARS.len());
        for (var, ceiling, default) in ceilings {
            let value = |s: &Settings| {
                if var == ENV_TIME_BUDGET_MS {
                    s.time_budget
                } else {
                    s.state_lock_wait
                }
            };
            for (given, said) in [
                ("600000", Some("env-clamped")),
                ("18446744073709551615", Some("env-clamped")),
                ("99999999999999999999999999", Some("env-clamped")),
                ("-1", Some("env-ignored")),
                ("1e9", Some("env-ignored")),
                ("ten", Some("env-ignored")),
                ("", None),
                (" 40 ", None),
            ] {
                let s = settings(&[(var, given)]);
                assert!(value(&s) <= ceiling, "{var}={given}: {:?}", value(&s));
                match said {
                    Some(code) => assert!(
                        s.warnings
                            .iter()
                            .any(|w| w.starts_with(&format!("{code}:{var}"))),
                        "{var}={given}: {:?}",
                        s.warnings
                    ),
                    None => assert!(s.warnings.is_empty(), "{var}={given}: {:?}", s.warnings),
                }
                if said == Some("env-ignored") || given.is_empty() {
                    assert_eq!(value(&s), default, "{var}={given}");
                }
            }
            assert_eq!(
                value(&settings(&[(var, " 40 ")])),
                std::time::Duration::from_millis(40)
            );
        }
    }

    /// A relative `PATH` entry resolves against the working folder, the project: dropped, so a
    /// repository's `bin/sophia-hook` never passes for the installed one.
    #[test]
    fn relative_search_path_entries_are_dropped() {
        let sep = if cfg!(windows) { ";" } else { ":" };
        let abs = if cfg!(windows) { "C:\\bin" } else { "/usr/bin" };
        let s = settings(&[("PATH", &format!("bin{sep}{abs}{sep}.{sep}"))]);
        assert_eq!(s.search_path.as_deref(), Some(abs));
        assert_eq!(s.warnings, ["env-ignored:PATH:relative-entry"]);
        let s = settings(&[("PATH", ".")]);
        assert_eq!(s.search_path, None);
    }
}
