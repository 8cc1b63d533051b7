//! `sophia-hook report`: one static, self-contained HTML page that answers at a glance whether the
//! hook is installed and trusted on each host, which roles each host can spawn, which skills get
//! named, how often `!quick` and `!agents` are used and how long the hook takes. The page is a pure
//! function of its inputs — the routing mix of the analytics lines ([`mix`]), the doctor's
//! findings, the skill inventory, the agent catalog and the clock — so a snapshot pins it. Pure:
//! no I/O, no clock, no environment; `ops::report` gathers the inputs and writes the file.
//!
//! Every string that reaches the page is escaped: [`html`] is built with maud's `html!`, which
//! escapes every splice, and each string from outside goes in as `html::markup::Text` (also
//! `'`): ids in a project's catalog or in the analytics log are untrusted input. Analytics hold
//! no prompt text, so none can appear.

pub mod html;
pub mod mix;

use chrono::{DateTime, Utc};

/// How serious a finding is, in the doctor's terms.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    Ok,
    Info,
    Warn,
    Fail,
}

impl Level {
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Ok => "ok",
            Level::Info => "info",
            Level::Warn => "warn",
            Level::Fail => "fail",
        }
    }
}

/// One finding of the doctor, with its fix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    pub level: Level,
    pub area: String,
    pub detail: String,
    pub fix: Option<String>,
}

/// What the doctor found for one host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostSetup {
    pub host: String,
    /// The scopes (`project`, `user`) whose settings register sophia-hook.
    pub scopes: Vec<String>,
    /// The host's trust state as the doctor reads it; `None` when the doctor has no trust check
    /// for this host.
    pub trust: Option<Trust>,
    /// Every finding of the doctor for this host.
    pub findings: Vec<Finding>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Trust {
    pub level: Level,
    pub label: String,
}

impl HostSetup {
    pub fn installed(&self) -> bool {
        !self.scopes.is_empty()
    }

    /// The host's status: the worst finding, where notes (`info`) count only for a host that
    /// is not installed.
    pub fn level(&self) -> Level {
        let worst = self
            .findings
            .iter()
            .map(|f| f.level)
            .filter(|l| *l != Level::Info)
            .max();
        match worst {
            Some(Level::Ok) | None if !self.installed() => Level::Info,
            Some(level) => level,
            None => Level::Ok,
        }
    }
}

/// The Setup section: per host, then the checks that concern every host.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Setup {
    pub hosts: Vec<HostSetup>,
    pub general: Vec<Finding>,
}

/// One runtime definition of a role on a host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuntimeDefinition {
    pub host: String,
    pub path: String,
    pub enabled: bool,
}

/// One role of the agent catalog.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoleRow {
    pub id: String,
    pub routing_role: String,
    pub write_policy: String,
    /// The state the hook uses (catalog with the manifest overlaid).
    pub availability: String,
    /// The state computed now from the runtime definitions on disk.
    pub computed: String,
    /// Per host, the state the hook uses there (the manifest's per-host state, when it has one).
    pub host_states: std::collections::BTreeMap<String, String>,
    pub definitions: Vec<RuntimeDefinition>,
}

/// The Agents section.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentsView {
    pub fingerprint: String,
    /// `project canonical YAML`, `generated` or `embedded`.
    pub source: String,
    /// Where the source lives, when it is a file.
    pub source_path: Option<String>,
    /// The host columns of the role table.
    pub hosts: Vec<String>,
    pub roles: Vec<RoleRow>,
    /// Drift from the canonical source, one sentence each.
    pub drift: Vec<String>,
}

/// The skills one host can see.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkillInventory {
    pub host: String,
    /// How the catalog was loaded: `embedded`, `index`, `scan`.
    pub source: String,
    /// Skill id, the folder it came from, and the name the analytics log gives it
    /// ([`crate::stages::analytics::skill_label`]: a project skill's is a hash).
    pub skills: Vec<(String, String, String)>,
}

/// What the analytics log was.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AnalyticsLog {
    /// Analytics are switched off, or there is no home to find them in.
    Off,
    Missing(String),
    Read(String),
}

/// Everything the page shows.
#[derive(Debug, Clone, PartialEq)]
pub struct ReportInput {
    pub generated_at: DateTime<Utc>,
    pub since: DateTime<Utc>,
    pub host: Option<String>,
    pub log: AnalyticsLog,
    pub mix: mix::RoutingMix,
    pub setup: Setup,
    pub agents: AgentsView,
    pub skills: Vec<SkillInventory>,
    /// `report --eval`: the project's skill routing measured on labelled prompts.
    pub quality: Option<RoutingQuality>,
}

/// The skill figures of one labelled cases file over the project's catalog (`report --eval`):
/// risk, coverage and the ranking, with the curve, beside BM25F over the same `SKILL.md` files.
/// Figures only: no prompt of the file reaches the page.
#[derive(Debug, Clone, PartialEq)]
pub struct RoutingQuality {
    /// The cases file, as the page shows it.
    pub cases: String,
    pub skills: crate::eval::SkillMetrics,
    pub bm25: Option<crate::eval::SkillMetrics>,
}

/// The default period: the last seven days.
pub const DEFAULT_SINCE: &str = "7d";

/// The page.
pub fn render(input: &ReportInput) -> String {
    html::page(input)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::parse_since;

    #[test]
    fn since_takes_durations_dates_and_timestamps() {
        let now = DateTime::parse_from_rfc3339("2026-11-30T12:00:00Z")
            .unwrap()
            .to_utc();
        let back = |t: &str| (now - parse_since(t, now).unwrap()).num_minutes();
        assert_eq!(
            [back("90m"), back("36h"), back("7d"), back("2w")],
            [90, 36 * 60, 7 * 24 * 60, 14 * 24 * 60]
        );
        assert_eq!(
            parse_since("2026-11-01", now).unwrap().to_rfc3339(),
            "2026-11-01T00:00:00+00:00"
        );
        assert!(parse_since("2026-11-03T10:30:00Z", now).is_ok());
        for bad in ["", "d", "7x", "yesterday", "-7d", "99999999999999999999d"] {
            assert!(parse_since(bad, now).is_err(), "{bad}");
        }
        assert!(parse_since("9999999999999w", now).is_err());
    }
}
