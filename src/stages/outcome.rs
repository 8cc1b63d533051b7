//! Did the model follow the hint? (issue 46). The hook remembers, per session, what it named on a
//! prompt ([`HintRecord`]: the skills, the delegation asked and the roles recommended, and where
//! the host's transcript ended then); on the session's next prompt the edge reads what the host
//! recorded since ([`Actions`]: skills loaded, subagent types spawned, parsed from the host's own
//! structure by its grammar in `src/hosts/`) and [`judge`] joins the two into analytics lines of
//! ids and codes ([`OutcomeLine`]). Pure: the edge reads the transcript and writes the lines.
//!
//! What is recorded, for each skill named: `followed` (loaded), `other:<id>` (not loaded, another
//! was), `ignored` (no skill loaded); for each skill loaded that was not named: `unnamed:<id>`;
//! for a delegation asked (`!agents`, or asked in words): `spawned:<type>` for each type spawned,
//! or `not-spawned`. When the part of the transcript written since the hint could not be read
//! whole, what was seen is still recorded (a load or a spawn is certain), and what would need the
//! whole turn (`ignored`, `other`, `not-spawned`) is one `unknown` line with the reason instead.

use chrono::{DateTime, SecondsFormat, Utc};
use serde::{Deserialize, Serialize};

/// At most this many skills and spawned types are kept of one turn.
pub const MAX_ACTIONS: usize = 32;
/// A name longer than this (in bytes) is cut at a character boundary before it is labelled.
pub const MAX_NAME_BYTES: usize = 128;

/// What the model did in a part of the transcript: the skills it loaded and the subagent types
/// it spawned, each once, in the order first seen. Names as the host recorded them (the edge
/// labels them before anything is written).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Actions {
    pub skills: Vec<String>,
    pub spawned: Vec<String>,
}

impl Actions {
    pub fn load_skill(&mut self, name: &str) {
        push_unique(&mut self.skills, name);
    }

    pub fn spawn(&mut self, agent_type: &str) {
        push_unique(&mut self.spawned, agent_type);
    }

    pub fn is_empty(&self) -> bool {
        self.skills.is_empty() && self.spawned.is_empty()
    }
}

impl crate::hosts::Seen for Actions {
    fn skill(&mut self, name: &str) {
        self.load_skill(name);
    }

    fn spawned(&mut self, agent_type: &str) {
        self.spawn(agent_type);
    }

    fn json(&self, text: &str) -> Option<serde_json::Value> {
        crate::bounded::json_str(text, crate::bounded::FILE).ok()
    }
}

fn push_unique(list: &mut Vec<String>, name: &str) {
    let name = crate::text::prefix(name.trim(), MAX_NAME_BYTES);
    if name.is_empty() || list.len() >= MAX_ACTIONS || list.iter().any(|n| n == name) {
        return;
    }
    list.push(name.to_owned());
}

/// What the edge could read of the turn after the last hint.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase", tag = "read")]
pub enum Observed {
    /// The transcript since the hint: `whole` when every byte since the hint was read, `false`
    /// when only its end was (the turn is longer than the bound).
    Read { actions: Actions, whole: bool },
    /// Nothing could be read: the reason, a code (`transcript-missing`, `transcript-rewound`…).
    Unknown { reason: &'static str },
}

/// A skill the hook named: its id (matched against what the host recorded) and its label in the
/// analytics (`analytics::skill_label`: a project skill hashed).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NamedSkill {
    pub id: String,
    pub label: String,
}

/// What the hook named on a prompt of a session, kept in the session state (private, in the
/// user's cache) until the session's next prompt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HintRecord {
    pub at: DateTime<Utc>,
    /// Which transcript file the position is in: a hash of its path (a resumed session in a new
    /// file starts over, `transcript-changed`).
    pub transcript: String,
    /// Where the transcript ended when the hint was given: its length in bytes (a file of
    /// lines, only ever appended to) or its count of records (a document rewritten whole).
    pub position: u64,
    pub skills: Vec<NamedSkill>,
    /// A delegation was asked (`!agents`, or in words): the roles recommended, as labelled in the
    /// analytics (`analytics::agent_label`); empty when none was.
    pub delegation: Option<Vec<String>>,
}

impl HintRecord {
    /// Whether there is anything to judge the next turn against (a skill named or a delegation
    /// asked).
    pub fn hints(&self) -> bool {
        !self.skills.is_empty() || self.delegation.is_some()
    }
}

/// One analytics line about the previous hint: ids and codes only.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct OutcomeLine {
    pub ts: String,
    pub event: &'static str,
    pub host: &'static str,
    /// What was judged, its fields after the three above.
    #[serde(flatten)]
    pub judged: Judged,
}

/// The `event` of an outcome line.
pub const EVENT: &str = "hint-outcome";

/// One judgement, before it is stamped with the time and host ([`Judged::line`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Judged {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub named: Option<String>,
    pub outcome: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<&'static str>,
}

impl Judged {
    pub fn line(&self, host: &'static str, now: DateTime<Utc>) -> OutcomeLine {
        OutcomeLine {
            ts: now.to_rfc3339_opts(SecondsFormat::Millis, true),
            event: EVENT,
            host,
            judged: self.clone(),
        }
    }

    pub fn unknown(reason: &'static str) -> Judged {
        Judged {
            hint: None,
            named: None,
            outcome: "unknown".into(),
            reason: Some(reason),
        }
    }
}

impl OutcomeLine {
    /// One JSON line, newline-terminated.
    pub fn to_line(&self) -> String {
        let mut line = serde_json::to_string(self).unwrap_or_default();
        line.push('\n');
        line
    }
}

/// Whether the host recorded a load of the skill `id` as `loaded`: the same name (ASCII case
/// aside), or the name inside a namespace (`plugin:id`, Claude Code's plugin skills).
pub fn same_skill(loaded: &str, id: &str) -> bool {
    let bare = loaded.rsplit(':').next().unwrap_or(loaded);
    loaded.eq_ignore_ascii_case(id) || bare.eq_ignore_ascii_case(id)
}

/// Joins the previous hint with what the model did after it. `skill_label` names a loaded skill
/// that was not named (as the analytics may: an id, or a hash); `agent_label` a spawned type.
/// Nothing named, nothing asked and nothing loaded: no line.
pub fn judge(
    previous: &HintRecord,
    observed: &Observed,
    sees_spawns: bool,
    skill_label: &dyn Fn(&str) -> String,
    agent_label: &dyn Fn(&str) -> String,
) -> Vec<Judged> {
    let (actions, whole) = match observed {
        Observed::Unknown { reason } => {
            return if previous.hints() {
                vec![Judged::unknown(reason)]
            } else {
                Vec::new()
            };
        }
        Observed::Read { actions, whole } => (actions, *whole),
    };
    let mut lines = Vec::new();
    let named = |loaded: &str| previous.skills.iter().any(|n| same_skill(loaded, &n.id));
    let unnamed: Vec<&String> = actions.skills.iter().filter(|s| !named(s)).collect();
    let mut needs_whole = false;
    for skill in &previous.skills {
        let outcome = if actions.skills.iter().any(|s| same_skill(s, &skill.id)) {
            "followed".to_owned()
        } else if !whole {
            needs_whole = true;
            continue;
        } else if let Some(other) = unnamed.first() {
            format!("other:{}", skill_label(other))
        } else {
            "ignored".to_owned()
        };
        lines.push(Judged {
            hint: Some("skill"),
            named: Some(skill.label.clone()),
            outcome,
            reason: None,
        });
    }
    for skill in unnamed {
        lines.push(Judged {
            hint: Some("skill"),
            named: None,
            outcome: format!("unnamed:{}", skill_label(skill)),
            reason: None,
        });
    }
    if let Some(roles) = &previous.delegation {
        let named = roles.first().cloned();
        if !sees_spawns {
            lines.push(Judged::unknown("host-no-spawn-record"));
        } else if !actions.spawned.is_empty() {
            for agent_type in &actions.spawned {
                lines.push(Judged {
                    hint: Some("delegation"),
                    named: named.clone(),
                    outcome: format!("spawned:{}", agent_label(agent_type)),
                    reason: None,
                });
            }
        } else if whole {
            lines.push(Judged {
                hint: Some("delegation"),
                named,
                outcome: "not-spawned".into(),
                reason: None,
            });
        } else {
            needs_whole = true;
        }
    }
    if needs_whole {
        lines.push(Judged::unknown("transcript-over-bound"));
    }
    lines
}

/// Hint records older than this are forgotten (a session left overnight starts over).
const TTL_HOURS: i64 = 24;
/// At most this many sessions are remembered; past it the oldest go.
const MAX_SESSIONS: usize = 256;

/// The state file of the previous hints: one record per session (keyed by a hash of the
/// session and its project, as the carry-forward state is), in the user's cache.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HintState {
    pub schema_version: u32,
    pub sessions: std::collections::BTreeMap<String, HintRecord>,
}

impl HintState {
    /// The key for a session key (the session id in its project); the text itself is not kept.
    pub fn key(session: &str) -> String {
        crate::fingerprint::sha256(session.as_bytes())[7..39].to_owned()
    }

    pub fn get(&self, session: &str, now: DateTime<Utc>) -> Option<&HintRecord> {
        self.sessions
            .get(&Self::key(session))
            .filter(|r| fresh(r, now))
    }

    /// Applies an update for `session`, dropping what has expired.
    pub fn apply(&mut self, session: &str, update: &HintUpdate, now: DateTime<Utc>) {
        self.schema_version = 1;
        self.sessions.retain(|_, r| fresh(r, now));
        let key = Self::key(session);
        match update {
            HintUpdate::Record(record) => {
                while self.sessions.len() >= MAX_SESSIONS && !self.sessions.contains_key(&key) {
                    let oldest = self
                        .sessions
                        .iter()
                        .min_by_key(|(_, r)| r.at)
                        .map(|(k, _)| k.clone());
                    match oldest {
                        Some(k) => self.sessions.remove(&k),
                        None => break,
                    };
                }
                self.sessions.insert(key, record.clone());
            }
            HintUpdate::Forget => {
                self.sessions.remove(&key);
            }
        }
    }
}

fn fresh(record: &HintRecord, now: DateTime<Utc>) -> bool {
    let ttl = chrono::Duration::hours(TTL_HOURS);
    now - record.at < ttl && record.at <= now + ttl
}

/// The change a prompt makes to its session's hint record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum HintUpdate {
    /// This prompt's hint, judged on the session's next prompt.
    Record(HintRecord),
    /// The previous record was judged and there is no position to keep.
    Forget,
}

/// What the edge found of the host's transcript on this prompt, and the session's previous hint.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Trail {
    /// The session's key in the hint state (the session id in its project), as the edge made it.
    pub session: String,
    /// The session's previous hint, if one is recorded.
    pub previous: Option<HintRecord>,
    /// The transcript: its key (a hash of its path) and where it ends now; or why it cannot be
    /// read (a code).
    pub transcript: Option<Result<(String, u64), &'static str>>,
    /// What the model did since the previous hint (read only when there is one).
    pub observed: Option<Observed>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hint(skills: &[&str], delegation: Option<&[&str]>) -> HintRecord {
        HintRecord {
            at: DateTime::<Utc>::MIN_UTC,
            transcript: String::new(),
            position: 0,
            skills: skills
                .iter()
                .map(|s| NamedSkill {
                    id: (*s).into(),
                    label: format!("L({s})"),
                })
                .collect(),
            delegation: delegation.map(|r| r.iter().map(|s| (*s).to_owned()).collect()),
        }
    }

    fn read(skills: &[&str], spawned: &[&str], whole: bool) -> Observed {
        let mut actions = Actions::default();
        skills.iter().for_each(|s| actions.load_skill(s));
        spawned.iter().for_each(|s| actions.spawn(s));
        Observed::Read { actions, whole }
    }

    fn lines(previous: &HintRecord, observed: &Observed) -> Vec<String> {
        judge(previous, observed, true, &|s| format!("S({s})"), &|a| {
            format!("A({a})")
        })
        .into_iter()
        .map(|j| {
            format!(
                "{}|{}|{}{}",
                j.hint.unwrap_or("-"),
                j.named.as_deref().unwrap_or("-"),
                j.outcome,
                j.reason.map(|r| format!("|{r}")).unwrap_or_default()
            )
        })
        .collect()
    }

    #[test]
    fn every_outcome_of_a_skill_hint() {
        let pdf = hint(&["pdf"], None);
        let table: Vec<(Observed, Vec<&str>)> = vec![
            (read(&["pdf"], &[], true), vec!["skill|L(pdf)|followed"]),
            (read(&["PDF"], &[], true), vec!["skill|L(pdf)|followed"]),
            (
                read(&["anthropic-skills:pdf"], &[], true),
                vec!["skill|L(pdf)|followed"],
            ),
            (
                read(&["docx"], &[], true),
                vec!["skill|L(pdf)|other:S(docx)", "skill|-|unnamed:S(docx)"],
            ),
            (
                read(&["docx", "pdf"], &[], true),
                vec!["skill|L(pdf)|followed", "skill|-|unnamed:S(docx)"],
            ),
            (read(&[], &[], true), vec!["skill|L(pdf)|ignored"]),
            // Only the end was read: a load seen is certain, its absence is not.
            (read(&["pdf"], &[], false), vec!["skill|L(pdf)|followed"]),
            (
                read(&[], &[], false),
                vec!["-|-|unknown|transcript-over-bound"],
            ),
            (
                read(&["docx"], &[], false),
                vec![
                    "skill|-|unnamed:S(docx)",
                    "-|-|unknown|transcript-over-bound",
                ],
            ),
            (
                Observed::Unknown {
                    reason: "transcript-missing",
                },
                vec!["-|-|unknown|transcript-missing"],
            ),
        ];
        for (observed, want) in table {
            assert_eq!(lines(&pdf, &observed), want, "{observed:?}");
        }
    }

    #[test]
    fn every_outcome_of_a_delegation_hint() {
        let asked = hint(&[], Some(&["technical_analyst"]));
        let none = hint(&[], Some(&[]));
        let table: Vec<(&HintRecord, Observed, Vec<&str>)> = vec![
            (
                &asked,
                read(&[], &["technical_analyst"], true),
                vec!["delegation|technical_analyst|spawned:A(technical_analyst)"],
            ),
            (
                &asked,
                read(&[], &["general-purpose", "Explore"], false),
                vec![
                    "delegation|technical_analyst|spawned:A(general-purpose)",
                    "delegation|technical_analyst|spawned:A(Explore)",
                ],
            ),
            (
                &asked,
                read(&[], &[], true),
                vec!["delegation|technical_analyst|not-spawned"],
            ),
            (
                &asked,
                read(&[], &[], false),
                vec!["-|-|unknown|transcript-over-bound"],
            ),
            (
                &none,
                read(&[], &[], true),
                vec!["delegation|-|not-spawned"],
            ),
        ];
        for (previous, observed, want) in table {
            assert_eq!(lines(previous, &observed), want, "{observed:?}");
        }
    }

    #[test]
    fn a_host_whose_spawns_are_not_read_never_says_not_spawned() {
        let asked = hint(&["pdf"], Some(&["scout"]));
        let got: Vec<String> = judge(
            &asked,
            &read(&["pdf"], &[], true),
            false,
            &|s| s.into(),
            &|a| a.into(),
        )
        .into_iter()
        .map(|j| format!("{}|{}", j.outcome, j.reason.unwrap_or("-")))
        .collect();
        assert_eq!(got, vec!["followed|-", "unknown|host-no-spawn-record"]);
    }

    #[test]
    fn nothing_named_nothing_asked() {
        let silent = hint(&[], None);
        assert!(lines(&silent, &read(&[], &["x"], true)).is_empty());
        assert!(
            lines(
                &silent,
                &Observed::Unknown {
                    reason: "transcript-missing"
                }
            )
            .is_empty()
        );
        // A skill loaded without a hint is still what routing missed.
        assert_eq!(
            lines(&silent, &read(&["xlsx"], &[], true)),
            vec!["skill|-|unnamed:S(xlsx)"]
        );
    }

    #[test]
    fn actions_are_unique_bounded_and_cut() {
        let mut a = Actions::default();
        for i in 0..100 {
            a.load_skill(&format!("s{}", i % 40));
            a.spawn("same");
        }
        a.load_skill("   ");
        assert_eq!(a.skills.len(), MAX_ACTIONS);
        assert_eq!(a.spawned, vec!["same"]);
        let mut long = Actions::default();
        long.load_skill(&"é".repeat(200));
        assert_eq!(long.skills[0].len(), MAX_NAME_BYTES);
    }

    #[test]
    fn the_line_carries_codes_and_ids_only() {
        let judged = Judged {
            hint: Some("skill"),
            named: Some("pdf".into()),
            outcome: "followed".into(),
            reason: None,
        };
        let now = DateTime::parse_from_rfc3339("2026-12-07T14:00:00Z")
            .unwrap()
            .to_utc();
        assert_eq!(
            judged.line("claude", now).to_line(),
            "{\"ts\":\"2026-12-07T14:00:00.000Z\",\"event\":\"hint-outcome\",\"host\":\"claude\",\"hint\":\"skill\",\"named\":\"pdf\",\"outcome\":\"followed\"}\n"
        );
    }
}
