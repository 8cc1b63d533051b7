//! The optional project configuration file, `.sophia-hook.yaml` at the project root: where the
//! compiled skill index and the agent catalog live inside the project, analytics off, and an
//! extra prefix for the two hotwords on hosts whose TUI captures a leading `!`. Every key is
//! optional; environment variables win over the file. A repository is untrusted, so the file can
//! never choose where sophia-hook writes: `analytics.file` is ignored with a warning (it belongs
//! in the user-level `config.yaml`), and index/catalog paths must stay inside the project
//! (checked by the edge). Pure: the edge reads the files.

use std::path::{Path, PathBuf};

use serde::Deserialize;

/// The file name, at the project root.
pub const FILE_NAME: &str = ".sophia-hook.yaml";
/// The user-level file name, in the user's sophia-hook config folder.
pub const USER_FILE_NAME: &str = "config.yaml";

/// The second hotword prefix when no configuration names one: `+quick` and `+agents`. A leading `+`
/// types through as the first character of an empty composer in the Codex, Claude Code and Gemini
/// CLI TUIs, opens no popup and means nothing at the start of a message in any of them
/// (`tests/e2e/run --tui`), whereas `!` is their shell mode, `?` their shortcuts overlay, `/` their
/// slash commands, `@` a file mention, `$` a Codex skill, and `#` and `&` have been input
/// shortcuts in Claude Code (memory, background tasks). `!quick` and `!agents` always work too.
pub const DEFAULT_HOTWORD_PREFIX: &str = "+";

/// The second hotword prefix: the default `+`, another one the user or the project chose, or
/// none (`hotword_prefix: false` or `""`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HotwordPrefix {
    Off,
    Prefix(Prefix),
}

/// A hotword prefix that passed the one rule there is ([`Prefix::new`]): the only way to hold
/// one, so every reader — the parser, the bootstrap text, the advice of `install` and `doctor` —
/// sees the same accepted set and none of them filters again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prefix(String);

impl Prefix {
    /// 1–3 ASCII punctuation characters, not a backtick (it could not be shown inside the
    /// bootstrap's and the advice's code spans), not starting with a character a host TUI captures
    /// ([`REFUSED_PREFIX_STARTS`]).
    pub fn new(text: &str) -> Result<Prefix, String> {
        let ok = (1..=3).contains(&text.chars().count())
            && text.chars().all(|c| c.is_ascii_punctuation() && c != '`')
            && !text.starts_with(REFUSED_PREFIX_STARTS);
        if ok {
            Ok(Prefix(text.to_owned()))
        } else {
            Err(format!(
                "hotword_prefix {text:?} must be 1–3 ASCII punctuation characters other than a backtick, not starting with `!`, `?` or `/` (in the host TUIs a leading `!` runs a shell command, `?` opens the shortcuts overlay and `/` is a slash command), e.g. `+` (the default), or `false` for none"
            ))
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl Default for HotwordPrefix {
    fn default() -> Self {
        HotwordPrefix::Prefix(Prefix(DEFAULT_HOTWORD_PREFIX.to_owned()))
    }
}

impl HotwordPrefix {
    /// The prefix to accept besides `!`, if any.
    pub fn as_deref(&self) -> Option<&str> {
        match self {
            HotwordPrefix::Off => None,
            HotwordPrefix::Prefix(p) => Some(p.as_str()),
        }
    }

    /// The setting's text: `""` switches the prefix off, anything else must pass [`Prefix::new`].
    pub fn text(text: &str) -> Result<HotwordPrefix, String> {
        if text.is_empty() {
            Ok(HotwordPrefix::Off)
        } else {
            Prefix::new(text).map(HotwordPrefix::Prefix)
        }
    }

    /// The effective prefix: the project's setting, else the user's, else the default.
    pub fn effective(project: Option<&HotwordPrefix>, user: Option<&HotwordPrefix>) -> Self {
        project.or(user).cloned().unwrap_or_default()
    }
}

impl<'de> Deserialize<'de> for HotwordPrefix {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Switch(bool),
            Text(String),
        }
        Ok(match Raw::deserialize(d)? {
            Raw::Switch(false) => HotwordPrefix::Off,
            Raw::Switch(true) => HotwordPrefix::default(),
            Raw::Text(text) => HotwordPrefix::text(&text).map_err(serde::de::Error::custom)?,
        })
    }
}

/// First characters a `hotword_prefix` may not have: a leading `!` is captured as a shell command
/// by the Codex, Claude Code and Gemini CLI TUIs, and `?` typed into an empty prompt opens the
/// shortcuts overlay of the Codex and Gemini CLI TUIs, and a leading `/` is a slash command in the
/// Codex and Claude Code TUIs ("Unrecognized command"), so none of them can start a typed prompt
/// (probed in the real TUIs: `tests/e2e/README.md`).
pub const REFUSED_PREFIX_STARTS: [char; 3] = ['!', '?', '/'];

#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProjectConfig {
    /// The compiled skill index (relative to the project root; must stay inside it).
    pub skills_index: Option<PathBuf>,
    /// The generated agent catalog (relative to the project root; must stay inside it).
    pub agent_catalog: Option<PathBuf>,
    #[serde(default)]
    pub analytics: AnalyticsConfig,
    /// The second prefix accepted for `quick` and `agents` (`+` for `+quick` unless set; `false`
    /// for none); `!quick` and `!agents` always work. Wins over the user's `config.yaml`.
    pub hotword_prefix: Option<HotwordPrefix>,
    /// Planning mode for every prompt of this project, for hosts that cannot report it (Codex):
    /// the same as `--planning`, but read by the hook itself, so it holds in the Codex TUI's
    /// long-lived app-server, which keeps the environment it started with.
    pub planning: Option<bool>,
    /// `off` keeps the embedded skills unnamed in this project; `on` is the user's to choose
    /// (ignored here with a warning: a repository cannot make us name a skill the host lacks).
    pub embedded_skills: Option<crate::stages::skills::grounding::EmbeddedSkills>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AnalyticsConfig {
    pub enabled: Option<bool>,
    /// Honoured only in the user-level `config.yaml` (`~/` and relative paths are under the home
    /// directory); in a project's `.sophia-hook.yaml` it is ignored with a warning.
    pub file: Option<PathBuf>,
}

/// A generated role's model class, from the canonical source's `runtime.tier`: `economy` for
/// bounded, cheap sub-tasks, `default` for the rest. Sophia never names a model id by itself: a
/// tier becomes a model only through the user's `models` map; unmapped, the role inherits the
/// session's model.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Deserialize, serde::Serialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Tier {
    Economy,
    #[default]
    Default,
}

impl Tier {
    pub fn as_str(self) -> &'static str {
        match self {
            Tier::Economy => "economy",
            Tier::Default => "default",
        }
    }
}

/// The user's model ids per host and tier (`models: {codex: {economy: gpt-5.4-mini}}` in
/// `config.yaml`); host keys are `codex`, `claude`, `gemini`.
pub type ModelMap = std::collections::BTreeMap<String, std::collections::BTreeMap<Tier, String>>;

/// Hosts with generated role files, the keys `models` accepts.
pub fn model_hosts() -> Vec<&'static str> {
    crate::hosts::Host::with_agents()
        .into_iter()
        .map(crate::hosts::Host::as_str)
        .collect()
}

/// Whether `value` can be a model id: 1–64 letters, digits, `.`, `_`, `:`, `-`, `[`, `]`.
pub fn is_model_id(value: &str) -> bool {
    !value.is_empty()
        && value.len() <= 64
        && value
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "._:-[]".contains(c))
}

/// The user-level configuration (`~/.config/sophia-hook/config.yaml`): trusted, it can say where
/// analytics go.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UserConfig {
    #[serde(default)]
    pub analytics: AnalyticsConfig,
    /// The user's second hotword prefix, for projects whose `.sophia-hook.yaml` names none.
    pub hotword_prefix: Option<HotwordPrefix>,
    /// Model ids for the generated roles, per host and tier; absent: every role inherits.
    #[serde(default)]
    pub models: ModelMap,
    /// Whether the embedded skills may be named: `auto` (where their Sophia MCP server is),
    /// `on`, `off`; `SOPHIA_EMBEDDED_SKILLS` wins over it.
    pub embedded_skills: Option<crate::stages::skills::grounding::EmbeddedSkills>,
    /// OpenTelemetry export of the analytics log (`docs/telemetry.md`): the user's alone, so it
    /// may choose the destination; a project's `.sophia-hook.yaml` has no such key.
    #[serde(default, deserialize_with = "parsed_telemetry")]
    pub telemetry: UserTelemetry,
}

fn parsed_telemetry<'de, D: serde::Deserializer<'de>>(d: D) -> Result<UserTelemetry, D::Error> {
    TelemetryConfig::deserialize(d).map(UserTelemetry::Parsed)
}

/// The `telemetry:` section of the user's `config.yaml` (`stages::telemetry::resolve` turns it,
/// with the `OTEL_*` variables where they count, into what a flush does).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TelemetryConfig {
    /// `true` turns the export on (to `endpoint`, else `http://localhost:4318`); `false` turns it
    /// off whatever else is set.
    pub enabled: Option<bool>,
    /// The collector's base URL: `/v1/logs` and `/v1/metrics` are appended.
    pub endpoint: Option<String>,
    /// The whole URL logs are posted to (wins over `endpoint`).
    pub logs_endpoint: Option<String>,
    /// The whole URL metrics are posted to (wins over `endpoint`).
    pub metrics_endpoint: Option<String>,
    /// Headers sent with every request (an `Authorization` or an API key header).
    #[serde(default)]
    pub headers: std::collections::BTreeMap<String, String>,
    /// `http/protobuf` (the default) or `http/json`.
    pub protocol: Option<String>,
    /// An absolute path to the PEM bundle of the CA that signed an `https` collector's
    /// certificate (default: the Mozilla roots built in).
    pub certificate: Option<String>,
    /// The flush's deadline in milliseconds (default 10000, at most 60000).
    pub timeout_ms: Option<u64>,
    /// The hook starts a detached flush at most once per this many seconds (default 60; 0: after
    /// every run).
    pub interval_seconds: Option<u64>,
    /// The unsent backlog kept, in bytes of the log (default and ceiling 1 GiB): older lines are
    /// dropped and counted.
    pub spool_max_bytes: Option<u64>,
    /// Resource attributes added to `service.name` and `service.version`.
    #[serde(default)]
    pub resource_attributes: std::collections::BTreeMap<String, String>,
    /// `false`: no log records (counters only).
    pub logs: Option<bool>,
    /// `false`: no counters (log records only).
    pub metrics: Option<bool>,
}

/// The user's `telemetry:` section: parsed at once ([`UserTelemetry::Parsed`]), or kept as the
/// text of its block until it is needed ([`UserTelemetry::Pending`]): the hook needs it only
/// when a flush is due, and a YAML mapping costs its parser about 11,000 instructions a line
/// (`docs/performance.md`, "Telemetry").
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum UserTelemetry {
    #[default]
    None,
    Parsed(TelemetryConfig),
    Pending(String),
}

/// A document holding only the `telemetry:` block.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct TelemetryOnly {
    #[serde(default)]
    telemetry: TelemetryConfig,
}

impl UserTelemetry {
    /// Whether the user's file has a `telemetry:` section at all.
    pub fn is_present(&self) -> bool {
        !matches!(self, UserTelemetry::None)
    }

    /// The section, parsed now if it is pending; a block that does not parse is the default
    /// (off), as a broken `config.yaml` is.
    pub fn config(&self) -> TelemetryConfig {
        match self {
            UserTelemetry::None => TelemetryConfig::default(),
            UserTelemetry::Parsed(config) => config.clone(),
            UserTelemetry::Pending(block) => crate::yaml::from_str_bounded::<TelemetryOnly>(block)
                .map(|doc| doc.telemetry)
                .unwrap_or_default(),
        }
    }
}

/// `text` without its top-level `telemetry:` block, and that block: the line that starts with
/// `telemetry:` at the first column and the lines after it that are indented, blank or comments,
/// up to the next line at the first column. `None` when there is no such line. Only a cut: the
/// caller parses both parts with the YAML parser, and parses `text` whole when the rest does not
/// parse.
pub fn split_telemetry(text: &str) -> (String, Option<String>) {
    let mut rest = String::with_capacity(text.len());
    let mut block = String::new();
    let mut inside = false;
    let mut found = false;
    for line in text.split_inclusive('\n') {
        let top_level = !line.starts_with([' ', '\t', '#', '\n', '\r']) && !line.is_empty();
        if top_level {
            inside = !found
                && line.strip_prefix("telemetry:").is_some_and(|after| {
                    after.is_empty() || after.starts_with([' ', '\t', '\n', '\r', '#'])
                });
            found |= inside;
        }
        if inside {
            block.push_str(line);
        } else {
            rest.push_str(line);
        }
    }
    (rest, found.then_some(block))
}

impl UserConfig {
    /// Parses the user's file with its `telemetry:` section left as text
    /// ([`UserTelemetry::Pending`]), or whole when the rest does not parse without it.
    pub fn parse_deferring_telemetry(text: &str) -> Result<UserConfig, String> {
        let (rest, block) = split_telemetry(text);
        let Some(block) = block else {
            return UserConfig::parse(text);
        };
        match UserConfig::parse(&rest) {
            Ok(mut config) if config.telemetry == UserTelemetry::None => {
                config.telemetry = UserTelemetry::Pending(block);
                Ok(config)
            }
            _ => UserConfig::parse(text),
        }
    }

    pub fn parse(text: &str) -> Result<UserConfig, String> {
        if text.trim().is_empty() {
            return Ok(UserConfig::default());
        }
        let config: UserConfig = crate::yaml::from_str_bounded(text)?;
        for (host, tiers) in &config.models {
            if !model_hosts().contains(&host.as_str()) {
                return Err(format!(
                    "models.{host}: not a host with generated roles ({})",
                    model_hosts().join(", ")
                ));
            }
            if let Some((tier, bad)) = tiers.iter().find(|(_, m)| !is_model_id(m)) {
                return Err(format!(
                    "models.{host}.{}: {bad:?} is not a model id (letters, digits, `.`, `_`, `:`, `-`)",
                    tier.as_str()
                ));
            }
        }
        Ok(config)
    }
}

impl ProjectConfig {
    /// Parses and validates the file's text.
    pub fn parse(text: &str) -> Result<ProjectConfig, String> {
        if text.trim().is_empty() {
            return Ok(ProjectConfig::default());
        }
        let config: ProjectConfig = crate::yaml::from_str_bounded(text)?;
        Ok(config)
    }

    /// Keys of the file that were ignored because a project may not set them, as warning codes
    /// for `explain` and `doctor`.
    pub fn warnings(&self) -> Vec<String> {
        let mut out = Vec::new();
        if self.analytics.file.is_some() {
            out.push("config-ignored:analytics.file".to_owned());
        }
        if self
            .embedded_skills
            .is_some_and(|m| m != crate::stages::skills::grounding::EmbeddedSkills::Off)
        {
            out.push("config-ignored:embedded_skills".to_owned());
        }
        out
    }

    /// A configured path resolved against the project root, or the default. Lexical only: the
    /// edge checks that the result stays inside the project (`edge::files::inside_project`).
    pub fn resolve(root: &Path, configured: Option<&Path>, default: &str) -> PathBuf {
        match configured {
            Some(p) if p.is_absolute() => p.to_path_buf(),
            Some(p) => root.join(p),
            None => root.join(default),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A project may turn the embedded skills off, never on: every value a project file can
    /// set, and none, gives the warning exactly when it would widen what the user chose.
    #[test]
    fn a_project_may_only_turn_the_embedded_skills_off() {
        for (value, ignored) in [("auto", true), ("on", true), ("off", false)] {
            let c = ProjectConfig::parse(&format!("embedded_skills: {value}\n")).unwrap();
            assert_eq!(
                c.warnings()
                    .contains(&"config-ignored:embedded_skills".to_owned()),
                ignored,
                "{value}"
            );
        }
        assert!(ProjectConfig::parse("{}\n").unwrap().warnings().is_empty());
    }

    #[test]
    fn parses_every_key() {
        let c = ProjectConfig::parse(
            "skills_index: build/skills.json\nagent_catalog: /abs/catalog.json\nanalytics:\n  enabled: false\n  file: ~/a.jsonl\nhotword_prefix: \";\"\n",
        )
        .unwrap();
        assert_eq!(
            c.skills_index.as_deref(),
            Some(Path::new("build/skills.json"))
        );
        assert_eq!(c.analytics.enabled, Some(false));
        assert_eq!(
            c.hotword_prefix,
            Some(HotwordPrefix::Prefix(Prefix::new(";").unwrap()))
        );
        assert_eq!(
            ProjectConfig::resolve(Path::new("/r"), c.skills_index.as_deref(), "x"),
            PathBuf::from("/r/build/skills.json")
        );
        assert_eq!(
            ProjectConfig::resolve(Path::new("/r"), c.agent_catalog.as_deref(), "x"),
            PathBuf::from("/abs/catalog.json")
        );
        assert_eq!(
            ProjectConfig::resolve(Path::new("/r"), None, "d/x"),
            PathBuf::from("/r/d/x")
        );
        assert_eq!(ProjectConfig::parse("").unwrap(), ProjectConfig::default());
    }

    /// The cut at the `telemetry:` block, over generated documents: every order of the user's
    /// sections, block and flow styles, comments and blank lines inside the block, look-alike keys
    /// that are not it. The parse that defers the block gives what the whole parse gives.
    #[test]
    fn the_telemetry_block_is_cut_and_parsed_as_the_whole_file_would_be() {
        let sections = [
            "hotword_prefix: \";\"\n",
            "models:\n  codex:\n    economy: gpt-5.4-mini\n",
            "embedded_skills: off\n",
            "analytics:\n  enabled: true\n",
        ];
        let blocks = [
            "telemetry:\n  endpoint: http://c:4318\n  headers:\n    x-key: v\n",
            "telemetry: {endpoint: \"http://c:4318\", interval_seconds: 5}\n",
            "telemetry:\n  # the team's collector\n\n  endpoint: http://c:4318 # inline\n  timeout_ms: 700\n",
            "telemetry:   \n\tendpoint: http://c:4318\n",
        ];
        for block in blocks {
            for at in 0..=sections.len() {
                let mut parts: Vec<&str> = sections.to_vec();
                parts.rotate_left(at % sections.len());
                parts.insert(at, block);
                let text = parts.concat();
                let whole = UserConfig::parse(&text);
                let deferred = UserConfig::parse_deferring_telemetry(&text);
                match (whole, deferred) {
                    (Ok(w), Ok(d)) => {
                        assert!(matches!(d.telemetry, UserTelemetry::Pending(_)), "{text}");
                        assert_eq!(w.telemetry.config(), d.telemetry.config(), "{text}");
                        assert_eq!(
                            (w.hotword_prefix, w.models, w.embedded_skills, w.analytics),
                            (d.hotword_prefix, d.models, d.embedded_skills, d.analytics),
                            "{text}"
                        );
                    }
                    (Err(_), Err(_)) => {}
                    // The block alone was broken (a tab where YAML wants spaces): the export is
                    // off and the rest of the file still counts.
                    (Err(_), Ok(d)) => {
                        assert_eq!(d.telemetry.config(), TelemetryConfig::default(), "{text}");
                        assert!(UserConfig::parse(&split_telemetry(&text).0).is_ok());
                    }
                    (w, d) => panic!("{text}: whole {w:?}, deferred {d:?}"),
                }
            }
        }
        // Not the block: a key that only starts like it, an indented one, none at all.
        for text in [
            "telemetry_extra: 1\n",
            "models:\n  telemetry:\n    x: y\n",
            "hotword_prefix: \";\"\n",
        ] {
            assert_eq!(split_telemetry(text), (text.to_owned(), None), "{text}");
        }
        // A cut that leaves text the parser refuses falls back to the whole parse.
        let odd = "models: {codex:\ntelemetry: {economy: x}}\n";
        assert_eq!(
            UserConfig::parse_deferring_telemetry(odd).is_ok(),
            UserConfig::parse(odd).is_ok()
        );
        // A broken block is off, and leaves the rest of the file alone.
        let broken = UserConfig::parse_deferring_telemetry(
            "hotword_prefix: \";\"\ntelemetry:\n  endpoint: [unclosed\n",
        )
        .unwrap();
        assert!(broken.hotword_prefix.is_some());
        assert_eq!(broken.telemetry.config(), TelemetryConfig::default());
    }

    #[test]
    fn a_project_analytics_file_is_reported_as_ignored() {
        let c = ProjectConfig::parse("analytics:\n  file: ~/.bashrc\n").unwrap();
        assert_eq!(c.warnings(), ["config-ignored:analytics.file"]);
        assert!(ProjectConfig::default().warnings().is_empty());
        let u = UserConfig::parse("analytics:\n  file: logs/a.jsonl\n").unwrap();
        assert_eq!(u.analytics.file.as_deref(), Some(Path::new("logs/a.jsonl")));
        assert!(UserConfig::parse("skills_index: x").is_err());
    }

    #[test]
    fn refuses_bad_values() {
        assert!(ProjectConfig::parse("hotword_prefix: \"!\"").is_err());
        assert!(ProjectConfig::parse("hotword_prefix: \"ab\"").is_err());
        assert!(ProjectConfig::parse("hotword_prefix: \"????\"").is_err());
        // `?` opens the shortcuts overlay in the Codex and Gemini TUIs; `!` is a shell command.
        for refused in ["?", "??", "?/", "!;", "/", "//", "/;"] {
            let err = ProjectConfig::parse(&format!("hotword_prefix: \"{refused}\"")).unwrap_err();
            assert!(err.contains("shortcuts overlay"), "{refused}: {err}");
            assert!(err.contains("slash command"), "{refused}: {err}");
        }
        for accepted in [";", ";/", ".", "%%", "+", "~"] {
            assert!(
                ProjectConfig::parse(&format!("hotword_prefix: \"{accepted}\"")).is_ok(),
                "{accepted}"
            );
        }
        assert!(ProjectConfig::parse("unknown_key: 1").is_err());
    }

    #[test]
    fn the_second_prefix_is_plus_unless_the_project_or_the_user_says_otherwise() {
        let plus = HotwordPrefix::Prefix(Prefix::new("+").unwrap());
        let semi = HotwordPrefix::Prefix(Prefix::new(";").unwrap());
        assert_eq!(HotwordPrefix::default(), plus);
        assert_eq!(HotwordPrefix::default().as_deref(), Some("+"));
        assert_eq!(HotwordPrefix::Off.as_deref(), None);
        let parsed = |yaml: &str| ProjectConfig::parse(yaml).unwrap().hotword_prefix;
        assert_eq!(parsed(""), None);
        assert_eq!(parsed("hotword_prefix: false"), Some(HotwordPrefix::Off));
        assert_eq!(parsed("hotword_prefix: \"\""), Some(HotwordPrefix::Off));
        assert_eq!(parsed("hotword_prefix: true"), Some(plus.clone()));
        assert_eq!(parsed("hotword_prefix: \";\""), Some(semi.clone()));
        assert!(ProjectConfig::parse("hotword_prefix: 3").is_err());
        let user = UserConfig::parse("hotword_prefix: \";\"\n").unwrap();
        assert_eq!(user.hotword_prefix, Some(semi.clone()));
        assert!(UserConfig::parse("hotword_prefix: \"!\"\n").is_err());
        // The project's setting wins over the user's, which wins over the default.
        let off = HotwordPrefix::Off;
        assert_eq!(HotwordPrefix::effective(None, None), plus);
        assert_eq!(HotwordPrefix::effective(None, Some(&semi)), semi);
        assert_eq!(HotwordPrefix::effective(Some(&off), Some(&semi)), off);
        assert_eq!(HotwordPrefix::effective(Some(&semi), Some(&off)), semi);
    }

    #[test]
    fn the_user_maps_tiers_to_model_ids_per_host() {
        let u = UserConfig::parse(
            "models:\n  codex:\n    economy: gpt-5.4-mini\n    default: gpt-5.5\n  claude:\n    economy: haiku\n",
        )
        .unwrap();
        assert_eq!(u.models["codex"][&Tier::Economy], "gpt-5.4-mini");
        assert_eq!(u.models["codex"][&Tier::Default], "gpt-5.5");
        assert_eq!(u.models["claude"].get(&Tier::Default), None);
        assert!(UserConfig::parse("").unwrap().models.is_empty());
        for bad in [
            "models:\n  antigravity:\n    economy: x\n",
            "models:\n  codex:\n    cheap: x\n",
            "models:\n  codex:\n    economy: \"gpt 5\"\n",
            "models:\n  codex:\n    economy: \"a\\nb\"\n",
        ] {
            assert!(UserConfig::parse(bad).is_err(), "{bad}");
        }
        // A project cannot choose models.
        assert!(ProjectConfig::parse("models:\n  codex:\n    economy: x\n").is_err());
    }

    #[test]
    fn the_default_prefix_passes_the_project_rules() {
        assert!(Prefix::new(DEFAULT_HOTWORD_PREFIX).is_ok());
        assert!(!DEFAULT_HOTWORD_PREFIX.starts_with(REFUSED_PREFIX_STARTS));
    }
}
