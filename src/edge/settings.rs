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
/// Test hook: `SOPHIA_FAULT=panic` makes hook mode panic after reading stdin, so the tests can
/// prove through the real binary that a panic still exits 0 with nothing on stdout.
pub const ENV_FAULT: &str = "SOPHIA_FAULT";

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
    /// `SOPHIA_FAULT=panic`: inject a panic in hook mode (tests only).
    pub inject_panic: bool,
    /// The agent availability manifest.
    pub availability_file: Option<PathBuf>,
    /// The user cache folder for best-effort state (carry-forward of planned delegation).
    pub cache_dir: Option<PathBuf>,
    /// The user state folder (`XDG_STATE_HOME`, else `~/.local/state`); sophia-hook keeps its
    /// files under `sophia-hook/` there: backups of files that `agents sync --force` replaced and
    /// of settings files `install`/`uninstall` changed, and the page `report` writes by default.
    pub state_dir: Option<PathBuf>,
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
        let get = |name: &str| std::env::var_os(name).map(|v| v.to_string_lossy().into_owned());
        if let Some(ms) = get(ENV_STATE_LOCK_MS).and_then(|v| v.trim().parse::<u64>().ok()) {
            crate::edge::files::set_lock_wait(std::time::Duration::from_millis(ms));
        }
        let mut settings = Settings::from_lookup(get);
        settings.stdin_is_terminal = std::io::IsTerminal::is_terminal(&std::io::stdin());
        if let Some(dir) = &settings.config_dir {
            let user = crate::edge::config::load_user(dir);
            settings.apply_user_analytics(&user.analytics);
            settings.hotword_prefix = user.hotword_prefix;
            settings.models = user.models;
            if settings.embedded_skills.is_none() {
                settings.embedded_skills = user
                    .embedded_skills
                    .map(|m| (m, crate::stages::skills::grounding::ModeFrom::UserConfig));
            }
        }
        settings
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

    /// Builds settings from any variable lookup (tests pass a map).
    pub fn from_lookup(get: impl Fn(&str) -> Option<String>) -> Settings {
        let home = get("HOME")
            .or_else(|| get("USERPROFILE"))
            .filter(|h| !h.is_empty())
            .map(PathBuf::from);
        let analytics_on = !get(ENV_ANALYTICS).is_some_and(|v| is_off(&v));
        let env_file = get(ENV_ANALYTICS_FILE).filter(|p| !p.is_empty());
        let analytics_default = env_file.is_none();
        let analytics_file = match env_file {
            // A relative path never resolves against the process's working directory (the
            // project the host runs us in): it is relative to the home directory.
            Some(path) => home.as_ref().map_or_else(
                || Some(PathBuf::from(&path)).filter(|p| p.is_absolute()),
                |h| Some(user_path(h, Path::new(&path))),
            ),
            None => home
                .as_ref()
                .map(|h| h.join(".mcp-servers/analytics/sophia-hook.jsonl")),
        }
        .filter(|_| analytics_on);
        let availability_file = get(ENV_AVAILABILITY)
            .filter(|p| !p.is_empty())
            .map(PathBuf::from)
            .or_else(|| {
                home.as_ref()
                    .map(|h| h.join(".mcp-servers/agent-availability.json"))
            });
        let cache_dir = get(ENV_CACHE_DIR)
            .or_else(|| get("XDG_CACHE_HOME"))
            .or_else(|| get("LOCALAPPDATA"))
            .filter(|p| !p.is_empty())
            .map(PathBuf::from)
            .or_else(|| {
                home.as_ref().map(|h| {
                    if cfg!(target_os = "macos") {
                        h.join("Library/Caches")
                    } else {
                        h.join(".cache")
                    }
                })
            });
        let xdg = |var: &str, fallback: &str| {
            get(var)
                .filter(|p| Path::new(p).is_absolute())
                .map(PathBuf::from)
                .or_else(|| home.as_ref().map(|h| h.join(fallback)))
                .map(|d| d.join("sophia-hook"))
        };
        let time_budget = get(ENV_TIME_BUDGET_MS)
            .and_then(|v| v.trim().parse::<u64>().ok())
            .map_or(DEFAULT_TIME_BUDGET, std::time::Duration::from_millis);
        let state_dir = get("XDG_STATE_HOME")
            .filter(|p| !p.is_empty())
            .map(PathBuf::from)
            .or_else(|| home.as_ref().map(|h| h.join(".local/state")));
        Settings {
            state_dir,
            time_budget,
            analytics_from_env: get(ENV_ANALYTICS).is_some()
                || get(ENV_ANALYTICS_FILE).is_some_and(|p| !p.is_empty()),
            host_homes: crate::hosts::Host::home_vars()
                .into_iter()
                .filter_map(|var| {
                    get(var)
                        .filter(|p| !p.is_empty())
                        .map(|p| (var, PathBuf::from(p)))
                })
                .collect(),
            availability_file,
            cache_dir,
            config_dir: xdg("XDG_CONFIG_HOME", ".config"),
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
            inject_panic: get(ENV_FAULT).is_some_and(|v| v == "panic"),
            search_path: get("PATH").filter(|p| !p.is_empty()),
            no_color: get("NO_COLOR").is_some_and(|v| !v.is_empty()),
            stdin_is_terminal: false,
        }
    }
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
        // Relative: under the home directory, never the working directory.
        let s = settings(&[("HOME", "/home/u"), (ENV_ANALYTICS_FILE, "logs/a.jsonl")]);
        assert_eq!(
            s.analytics_file,
            Some(PathBuf::from("/home/u/logs/a.jsonl"))
        );
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
}
