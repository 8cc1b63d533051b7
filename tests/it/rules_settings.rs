//! Where analytics go, and whether they go at all (docs/configuration.md "Analytics"), as a table
//! over every combination of the environment, the home, the user's `config.yaml` and the
//! project's `.sophia-hook.yaml`.
//!
//! The rules:
//! - `SOPHIA_ANALYTICS` set to `0`, `false`, `no` or `off` (any case, any spaces) turns analytics
//!   off; any other value, or none, leaves them on;
//! - `SOPHIA_ANALYTICS_FILE` (not empty) chooses the file: an absolute path as written; a relative
//!   one (`~/x` included: no shell expanded it) is refused and analytics are off (issue 48: a
//!   repository can set the variable). Otherwise the file is
//!   `~/.mcp-servers/analytics/sophia-hook.jsonl`;
//! - the environment (either variable set, the file not empty) wins over both configurations;
//!   otherwise the user's `analytics.file` chooses the file (as above, under the home) and
//!   `analytics.enabled: false` turns them off; a project may only turn them off.
//!
//! Planted bugs this catches (each seen failing): a word of the off list dropped, the project's
//! `enabled: false` honoured over the environment, the user's file chosen over the environment's,
//! a relative file taken as written.
// Tests and benches set up and read their files directly; the door (clippy.toml) is for the crate.
#![allow(clippy::disallowed_methods)]

use std::path::{Path, PathBuf};

use sophia_hook::config::AnalyticsConfig;
use sophia_hook::edge::settings::Settings;

const SWITCH: [Option<&str>; 10] = [
    None,
    Some("0"),
    Some("false"),
    Some(" No "),
    Some("OFF"),
    Some("1"),
    Some("on"),
    Some("yes"),
    Some(""),
    Some("maybe"),
];

/// Absolute paths on this platform (on Windows a path needs its drive to be absolute), and the
/// home directory.
const ABS_ENV: &str = if cfg!(windows) {
    r"C:\abs\env.jsonl"
} else {
    "/abs/env.jsonl"
};
const ABS_USER: &str = if cfg!(windows) {
    r"C:\abs\user.jsonl"
} else {
    "/abs/user.jsonl"
};
const HOME: &str = if cfg!(windows) {
    r"C:\home\u"
} else {
    "/home/u"
};

const FILE: [Option<&str>; 5] = [
    None,
    Some(""),
    Some(ABS_ENV),
    Some("rel/env.jsonl"),
    Some("~/tilde/env.jsonl"),
];

fn is_off(v: &str) -> bool {
    ["0", "false", "no", "off"].contains(&v.trim().to_lowercase().as_str())
}

/// A path the user wrote, resolved by the rule: `~/` and relative under the home.
fn under_home(home: Option<&str>, p: &str) -> Option<PathBuf> {
    let rest = p.strip_prefix("~/");
    match (home, rest) {
        (Some(h), Some(r)) => Some(PathBuf::from(h).join(r)),
        (Some(_), None) if [ABS_ENV, ABS_USER].contains(&p) => Some(PathBuf::from(p)),
        (Some(h), None) => Some(PathBuf::from(h).join(p)),
        (None, _) if [ABS_ENV, ABS_USER].contains(&p) => Some(PathBuf::from(p)),
        (None, _) => None,
    }
}

#[test]
fn the_analytics_file_for_every_combination() {
    let mut cases = 0;
    for switch in SWITCH {
        for file in FILE {
            for home in [Some(HOME), None] {
                for user_enabled in [None, Some(false), Some(true)] {
                    for user_file in [None, Some("mine/user.jsonl"), Some(ABS_USER)] {
                        for project_enabled in [None, Some(false), Some(true)] {
                            let env = |k: &str| match k {
                                "HOME" => home.map(str::to_owned),
                                "SOPHIA_ANALYTICS" => switch.map(str::to_owned),
                                "SOPHIA_ANALYTICS_FILE" => file.map(str::to_owned),
                                _ => None,
                            };
                            let mut s = Settings::from_lookup(env);
                            s.apply_user_analytics(&AnalyticsConfig {
                                enabled: user_enabled,
                                file: user_file.map(PathBuf::from),
                            });
                            let s = s.with_project_analytics(&AnalyticsConfig {
                                enabled: project_enabled,
                                // A project's file is never honoured.
                                file: Some(PathBuf::from("/repo/chosen.jsonl")),
                            });

                            let env_file = file.filter(|f| !f.is_empty());
                            let from_env = switch.is_some() || env_file.is_some();
                            let on = !switch.is_some_and(is_off);
                            let want = if !on {
                                None
                            } else if from_env {
                                match env_file {
                                    // From the environment only an absolute path is taken
                                    // (a relative one is refused, and analytics are off).
                                    Some(f) if Path::new(f).is_absolute() => Some(PathBuf::from(f)),
                                    Some(_) => None,
                                    None => home.map(|h| {
                                        PathBuf::from(h)
                                            .join(".mcp-servers/analytics/sophia-hook.jsonl")
                                    }),
                                }
                            } else if user_enabled == Some(false) || project_enabled == Some(false)
                            {
                                None
                            } else {
                                match (user_file, home) {
                                    (Some(f), Some(_)) => under_home(home, f),
                                    (_, Some(h)) => Some(
                                        PathBuf::from(h)
                                            .join(".mcp-servers/analytics/sophia-hook.jsonl"),
                                    ),
                                    (_, None) => None,
                                }
                            };
                            assert_eq!(
                                s.analytics_file, want,
                                "SOPHIA_ANALYTICS={switch:?} SOPHIA_ANALYTICS_FILE={file:?} HOME={home:?} user enabled {user_enabled:?} file {user_file:?} project enabled {project_enabled:?}"
                            );
                            assert_eq!(s.analytics_from_env, from_env);
                            cases += 1;
                        }
                    }
                }
            }
        }
    }
    assert_eq!(cases, 10 * 5 * 2 * 3 * 3 * 3);
}
