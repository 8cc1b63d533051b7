//! The analytics event: one JSON line per hook run, built from the decision. It carries codes
//! and ids only — never the prompt, the stripped prompt, warnings that could quote the user, a
//! delegated task's text or a model answer. Pure: the edge appends the line.

use chrono::{DateTime, SecondsFormat, Utc};
use serde::Serialize;

use crate::stages::agents::CarryForwardStatus;
use crate::stages::decision::Decision;
use crate::stages::render::Printed;

/// How a hook run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Outcome {
    /// Context was printed.
    Injected,
    /// Nothing to say; nothing printed.
    Noop,
    /// Something went wrong; the hook passed through (nothing printed).
    FailedOpen,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AnalyticsEvent {
    pub ts: String,
    pub event: Option<&'static str>,
    pub host: &'static str,
    pub outcome: Outcome,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context_mode: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subagent_mode: Option<&'static str>,
    pub detected_hotwords: Vec<&'static str>,
    pub reasons: Vec<&'static str>,
    pub subagent_source: Option<&'static str>,
    pub recommended_agents: Vec<String>,
    pub agent_reason_codes: Vec<String>,
    pub carry_forward: bool,
    pub skills: Vec<String>,
    pub planning: bool,
    /// `time-budget` when the run was degraded to the minimal safe output.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub degraded: Option<&'static str>,
    pub duration_us: u64,
    /// The lines on whether the model followed the session's previous hint
    /// (`stages::outcome`), written before the run's own line.
    #[serde(skip)]
    pub hint_outcomes: Vec<crate::stages::outcome::OutcomeLine>,
}

/// How the analytics line names a chosen skill: a skill the user installed (user scope) or the
/// embedded catalog by its id; a **project** skill — a name the repository chose, which may be
/// a word the user types — as `project:` and the first 12 hex digits of its id's SHA-256, so
/// the log, `stats` and the report carry no text a repository put there. `source` is the
/// skill's `source` (`project:…`, `user:…`, none for the embedded catalog).
///
/// The label follows the file the id was read from, not what that file says of it: a record of
/// the project's index file (`from_project_file`) is the repository's to write, `user:` source and
/// all, so every id read from it is a project id here.
pub fn skill_label(id: &str, source: Option<&str>, from_project_file: bool) -> String {
    if from_project_file || source.is_some_and(|s| s.starts_with("project:")) {
        project_label(id)
    } else {
        id.to_owned()
    }
}

/// How the analytics line names a recommended agent: by its id when the catalog is Sophia's
/// embedded one, or when the id is one of that catalog's (a fixed word of ours, whichever file
/// repeats it); any other id of a project's catalog as `project:` and a hash, like a project
/// skill.
pub fn agent_label(id: &str, catalog_from_project: bool) -> String {
    if catalog_from_project && !crate::stages::agents::is_embedded_id(id) {
        project_label(id)
    } else {
        id.to_owned()
    }
}

/// `project:` and the first 12 hex digits of the id's SHA-256.
fn project_label(id: &str) -> String {
    hashed("project", id)
}

/// `<prefix>:` and the first 12 hex digits of the SHA-256 of `name`: a name that may be a word
/// somebody else chose, never written as it is.
pub fn hashed(prefix: &str, name: &str) -> String {
    let digest = crate::fingerprint::sha256(name.as_bytes());
    let hex = digest.strip_prefix("sha256:").unwrap_or(&digest);
    format!("{prefix}:{}", &hex[..12])
}

impl AnalyticsEvent {
    /// The event for a run that printed `printed` for `decision` (its output, or what a turn
    /// answered before prints instead: `Decision::printed`).
    pub fn from_outcome(
        decision: &Decision,
        printed: Option<&Printed>,
        now: DateTime<Utc>,
        duration_us: u64,
    ) -> Self {
        let routing = decision.routing.as_ref();
        let mut agent_reason_codes: Vec<String> = decision
            .agents
            .recommended_agents
            .iter()
            .flat_map(|a| a.reason_codes.iter().cloned())
            .chain(decision.agents.fallback_reason.iter().cloned())
            .collect();
        agent_reason_codes.sort();
        agent_reason_codes.dedup();
        AnalyticsEvent {
            ts: timestamp(now),
            event: Some(decision.event),
            host: decision.host.as_str(),
            outcome: if printed.is_some_and(Printed::has_context) {
                Outcome::Injected
            } else {
                Outcome::Noop
            },
            failure: None,
            context_mode: routing.map(|r| r.context_mode.as_str()),
            subagent_mode: routing.map(|r| r.subagent_mode.as_str()),
            detected_hotwords: routing
                .map(|r| r.detected_hotwords.iter().map(|h| h.as_str()).collect())
                .unwrap_or_default(),
            reasons: routing.map(|r| r.reasons.clone()).unwrap_or_default(),
            subagent_source: routing.map(|_| decision.agents.source),
            recommended_agents: decision
                .agents
                .recommended_agents
                .iter()
                .map(|a| agent_label(&a.agent_id, decision.provenance.agents_from_project))
                .collect(),
            agent_reason_codes,
            carry_forward: decision
                .agents
                .carry_forward
                .as_ref()
                .is_some_and(|c| c.status == CarryForwardStatus::Applied),
            skills: decision
                .skills
                .selected
                .iter()
                .map(|s| {
                    skill_label(
                        &s.skill_id,
                        s.source.as_deref(),
                        decision.provenance.skills_from_project_file,
                    )
                })
                .collect(),
            planning: decision.planning,
            degraded: decision.degraded,
            duration_us,
            hint_outcomes: decision
                .hint_outcomes
                .iter()
                .map(|j| j.line(decision.host.as_str(), now))
                .collect(),
        }
    }

    /// The event for a run that passed through because of `failure` (a short code).
    pub fn failed_open(
        host: &'static str,
        event: Option<&'static str>,
        failure: &'static str,
        now: DateTime<Utc>,
        duration_us: u64,
    ) -> Self {
        AnalyticsEvent {
            ts: timestamp(now),
            event,
            host,
            outcome: Outcome::FailedOpen,
            failure: Some(failure),
            context_mode: None,
            subagent_mode: None,
            detected_hotwords: Vec::new(),
            reasons: Vec::new(),
            subagent_source: None,
            recommended_agents: Vec::new(),
            agent_reason_codes: Vec::new(),
            carry_forward: false,
            skills: Vec::new(),
            planning: false,
            degraded: None,
            duration_us,
            hint_outcomes: Vec::new(),
        }
    }

    /// The run's lines, newline-terminated, ready for a single append: the outcome lines of
    /// the previous hint, then the run's own.
    pub fn to_line(&self) -> String {
        let mut text: String = self.hint_outcomes.iter().map(|o| o.to_line()).collect();
        text.push_str(&serde_json::to_string(self).unwrap_or_default());
        text.push('\n');
        text
    }
}

fn timestamp(now: DateTime<Utc>) -> String {
    now.to_rfc3339_opts(SecondsFormat::Millis, true)
}

/// One analytics line as `stats`, `report` and the telemetry export read it back; other fields
/// are ignored.
#[derive(Debug, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct LoggedRun {
    pub(crate) ts: DateTime<Utc>,
    pub(crate) event: Option<String>,
    pub(crate) host: String,
    pub(crate) outcome: String,
    pub(crate) failure: Option<String>,
    pub(crate) context_mode: Option<String>,
    pub(crate) subagent_mode: Option<String>,
    #[serde(default)]
    pub(crate) detected_hotwords: Vec<String>,
    #[serde(default)]
    pub(crate) reasons: Vec<String>,
    pub(crate) subagent_source: Option<String>,
    #[serde(default)]
    pub(crate) recommended_agents: Vec<String>,
    #[serde(default)]
    pub(crate) agent_reason_codes: Vec<String>,
    #[serde(default)]
    pub(crate) planning: bool,
    #[serde(default)]
    pub(crate) carry_forward: bool,
    #[serde(default)]
    pub(crate) skills: Vec<String>,
    pub(crate) degraded: Option<String>,
    pub(crate) duration_us: u64,
}

/// The `event` of a hint-outcome line.
pub(crate) const HINT_OUTCOME_EVENT: &str = "hint-outcome";

/// A hint-outcome line as `stats` and `report` read it back (issue 46): what the model did with
/// the previous prompt's advice, as the hook read it from the host's transcript. Ids and codes
/// only. Other fields are ignored.
#[derive(Debug, serde::Deserialize)]
pub(crate) struct LoggedHintOutcome {
    pub(crate) ts: DateTime<Utc>,
    pub(crate) host: String,
    pub(crate) hint: Option<String>,
    pub(crate) named: Option<String>,
    pub(crate) outcome: String,
    pub(crate) reason: Option<String>,
}

/// What became of one hint, as a hint-outcome line says it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum HintOutcome {
    /// A skill hint: the skill named (`named`) was loaded.
    Followed { named: String },
    /// A skill hint: another skill (`loaded`) was loaded, not the one named.
    Other { named: String, loaded: String },
    /// A skill hint: no skill was loaded.
    Ignored { named: String },
    /// A skill was loaded that the hook did not name.
    Unnamed { loaded: String },
    /// A delegation hint: a subagent of this type was spawned (one line per type).
    Spawned { named: Option<String>, kind: String },
    /// A delegation hint: no subagent was spawned.
    NotSpawned { named: Option<String> },
    /// The transcript could not tell, for this reason code.
    Unknown { reason: String },
}

impl LoggedHintOutcome {
    /// `None` for a line that is not a hint-outcome line (a run line goes on to be read as one);
    /// `Some(Err(()))` for a hint-outcome line with a field missing or invalid (a corrupt line);
    /// `Some(Ok(…))` for a valid one.
    pub(crate) fn read(raw: &[u8]) -> Option<Result<(LoggedHintOutcome, HintOutcome), ()>> {
        let needle = HINT_OUTCOME_EVENT.as_bytes();
        if !raw.windows(needle.len()).any(|w| w == needle) {
            return None;
        }
        let value = crate::bounded::json_value(raw, crate::bounded::FILE).ok()?;
        if value.get("event").and_then(|e| e.as_str()) != Some(HINT_OUTCOME_EVENT) {
            return None;
        }
        let line: LoggedHintOutcome = match serde_json::from_value(value) {
            Ok(line) => line,
            Err(_) => return Some(Err(())),
        };
        Some(line.outcome().map(|o| (line, o)))
    }

    /// The outcome, when the line's fields agree with it.
    fn outcome(&self) -> Result<HintOutcome, ()> {
        let some = |s: &Option<String>| -> Result<Option<String>, ()> {
            match s {
                Some(s) if s.trim().is_empty() => Err(()),
                other => Ok(other.clone()),
            }
        };
        let id = |s: &str| -> Result<String, ()> {
            if s.trim().is_empty() {
                Err(())
            } else {
                Ok(s.to_owned())
            }
        };
        if self.host.trim().is_empty() {
            return Err(());
        }
        let named = some(&self.named)?;
        let hint = self.hint.as_deref();
        let skill = || -> Result<String, ()> {
            match (hint, &named) {
                (Some("skill"), Some(n)) => Ok(n.clone()),
                _ => Err(()),
            }
        };
        let delegation = || -> Result<Option<String>, ()> {
            match hint {
                Some("delegation") => Ok(named.clone()),
                _ => Err(()),
            }
        };
        let o = self.outcome.as_str();
        Ok(match o.split_once(':') {
            None if o == "followed" => HintOutcome::Followed { named: skill()? },
            None if o == "ignored" => HintOutcome::Ignored { named: skill()? },
            None if o == "not-spawned" => HintOutcome::NotSpawned {
                named: delegation()?,
            },
            None if o == "unknown" => {
                if !matches!(hint, None | Some("skill" | "delegation")) {
                    return Err(());
                }
                HintOutcome::Unknown {
                    reason: id(self.reason.as_deref().unwrap_or(""))?,
                }
            }
            Some(("other", loaded)) => HintOutcome::Other {
                named: skill()?,
                loaded: id(loaded)?,
            },
            Some(("unnamed", loaded)) if hint == Some("skill") && named.is_none() => {
                HintOutcome::Unnamed {
                    loaded: id(loaded)?,
                }
            }
            Some(("spawned", kind)) => HintOutcome::Spawned {
                named: delegation()?,
                kind: id(kind)?,
            },
            _ => return Err(()),
        })
    }
}

#[cfg(test)]
mod tests {
    // Tests parse what the code under test printed.
    #![allow(clippy::disallowed_methods)]
    use super::*;
    use crate::hosts::{Event, Host};
    use crate::stages::decision::{HookRequest, Project, decide};
    use crate::stages::payload::Payload;

    #[test]
    fn line_has_codes_and_no_prompt_text() {
        let payload = Payload::parse(
            br#"{"hook_event_name":"UserPromptSubmit","prompt":"!quick !direct spiegami ZEBRA-4411"}"#,
        )
        .unwrap();
        let request = HookRequest {
            host: Host::Codex,
            event: Event::UserPromptSubmit,
            wire_event: "UserPromptSubmit",
            payload: &payload,
            planning_flag: false,
            now: chrono::DateTime::UNIX_EPOCH,
        };
        let decision = decide(&request, &Project::default());
        let now = DateTime::parse_from_rfc3339("2026-11-29T10:00:00Z")
            .unwrap()
            .to_utc();
        let line =
            AnalyticsEvent::from_outcome(&decision, decision.output.as_ref(), now, 1234).to_line();
        assert!(line.ends_with('\n') && line.matches('\n').count() == 1);
        assert!(!line.contains("ZEBRA") && !line.contains("spiegami") && !line.contains("direct"));
        let value: serde_json::Value = serde_json::from_str(&line).unwrap();
        assert_eq!(value["ts"], "2026-11-29T10:00:00.000Z");
        assert_eq!(value["event"], "UserPromptSubmit");
        assert_eq!(value["host"], "codex");
        assert_eq!(value["outcome"], "injected");
        assert_eq!(value["contextMode"], "light");
        assert_eq!(value["subagentMode"], "off");
        assert_eq!(value["detectedHotwords"], serde_json::json!(["!quick"]));
        assert_eq!(
            value["reasons"],
            serde_json::json!(["hotword:!quick", "default-opt-in-design"])
        );
        assert_eq!(value["durationUs"], 1234);
    }
}
