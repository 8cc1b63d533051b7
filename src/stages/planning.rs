//! Planning mode and the carry-forward of planned delegation across turns.
//!
//! A planning turn (`permission_mode: "plan"`, `--planning`/`SOPHIA_PLANNING=1`, or a prompt that
//! explicitly asks for a plan) with delegation on records its recommendations for the session;
//! a later prompt of the same session that moves to execution ("procedi", "implementa il piano",
//! "go ahead with the plan", or the host leaving plan mode) gets the planned delegation re-injected
//! once, unless it changes scope or the planned agent became unavailable. Only ids and codes are
//! kept — never text. Pure: the edge reads and writes the state file.

use std::collections::BTreeMap;

use chrono::{DateTime, Duration, Utc};
use serde::{Deserialize, Serialize};

use crate::fingerprint::sha256;
use crate::stages::agents::catalog::AgentCatalog;
use crate::stages::agents::catalog::Availability;
use crate::stages::agents::{AgentRouting, CarryForward, CarryForwardStatus};
use crate::text::{fold, routing_words, words};

/// Claude Code's tool whose approval ("Exit plan mode?") moves a plan to execution.
pub const EXIT_PLAN_MODE_TOOL: &str = crate::hosts::EXIT_PLAN_MODE_TOOL;

/// Planned delegation expires after this long.
pub const CARRY_FORWARD_TTL_HOURS: i64 = 24;
/// At most this many sessions are remembered in the carry-forward state.
pub const MAX_SESSIONS: usize = 1024;

/// Verbs that, with `piano`/`plan`, ask for a plan.
const PLAN_VERBS: &[&str] = &[
    "prepara",
    "preparami",
    "fai",
    "fammi",
    "crea",
    "scrivi",
    "proponi",
    "stendi",
    "definisci",
    "elabora",
    "make",
    "write",
    "create",
    "draft",
    "propose",
    "prepare",
    "give",
    "outline",
    "produce",
];
/// Verbs that, with `piano`/`plan`, ask to execute it instead.
const EXECUTE_VERBS: &[&str] = &[
    "implementa",
    "esegui",
    "segui",
    "applica",
    "procedi",
    "implement",
    "execute",
    "follow",
    "apply",
    "run",
    "proceed",
];
const PLAN_NOUNS: &[&str] = &["piano", "plan"];
/// Words that alone ask for a plan.
const PLAN_WORDS: &[&str] = &["pianifica", "pianificare", "pianificazione", "planning"];
/// Words and phrases that approve a plan and move to execution.
const APPROVALS: &[&str] = &[
    "procedi",
    "procediamo",
    "vai",
    "avanti",
    "approvo",
    "approvato",
    "confermo",
    "inizia",
    "iniziamo",
    "proceed",
    "approved",
    "approve",
    "lgtm",
    "go",
    "ahead",
    "start",
];

/// True when the prompt explicitly asks for a plan ("prepara un piano…", "make a plan…",
/// "pianifica…") and not to execute one ("implementa il piano").
pub fn asks_for_plan(stripped: &str) -> bool {
    let folded = fold(stripped);
    let ws: Vec<&str> = words(&folded).collect();
    if ws.iter().any(|w| PLAN_WORDS.contains(w)) {
        return true;
    }
    ws.iter().enumerate().any(|(i, w)| {
        PLAN_NOUNS.contains(w) && {
            let before = &ws[i.saturating_sub(4)..i];
            before.iter().any(|b| PLAN_VERBS.contains(b))
                && !before.iter().any(|b| EXECUTE_VERBS.contains(b))
        }
    }) || ws.first() == Some(&"plan")
}

/// True when the prompt approves a plan and moves to execution.
pub fn approves_plan(stripped: &str) -> bool {
    let folded = fold(stripped);
    let ws: Vec<&str> = words(&folded).collect();
    let executes_plan = ws.iter().enumerate().any(|(i, w)| {
        PLAN_NOUNS.contains(w)
            && ws[i.saturating_sub(3)..i]
                .iter()
                .any(|b| EXECUTE_VERBS.contains(b))
    });
    executes_plan || ws.iter().take(4).any(|w| APPROVALS.contains(w))
}

/// True when an approving prompt also brings new scope: more than a few content words beyond
/// the approval itself ("procedi, ma aggiungi anche l'export in Excel e cambia il modulo ordini").
pub fn changes_scope(stripped: &str) -> bool {
    let folded = fold(stripped);
    routing_words(&folded)
        .filter(|w| !APPROVALS.contains(w) && !PLAN_NOUNS.contains(w) && !EXECUTE_VERBS.contains(w))
        .count()
        > 4
}

/// Decides whether a stored plan carries forward to this prompt: only when the prompt moves to
/// execution (it approves the plan, or the host left the plan mode the plan was made in) and is
/// not itself planning. Then it is applied, or reported as a scope change, or as unavailable.
pub fn carry_forward(
    planned: &PlannedDelegation,
    stripped: &str,
    permission_mode: Option<&str>,
    planning_now: bool,
    catalog: &AgentCatalog,
) -> Option<CarryForward> {
    if planning_now {
        return None;
    }
    let left_plan_mode = planned.from_plan_mode && permission_mode.is_some_and(|m| m != "plan");
    if !(approves_plan(stripped) || left_plan_mode) {
        return None;
    }
    Some(resolve(planned, changes_scope(stripped), catalog))
}

/// The planned delegation on an approval that carries no prompt (Claude Code's "Exit plan
/// mode?" dialog, seen as `PostToolUse` for `ExitPlanMode`): applied, or unavailable.
pub fn carry_forward_on_plan_approval(
    planned: &PlannedDelegation,
    catalog: &AgentCatalog,
) -> CarryForward {
    resolve(planned, false, catalog)
}

fn resolve(
    planned: &PlannedDelegation,
    scope_changed: bool,
    catalog: &AgentCatalog,
) -> CarryForward {
    let mut agents = Vec::new();
    let mut skills = Vec::new();
    let mut unavailable = Vec::new();
    for (i, id) in planned.agents.iter().enumerate() {
        let available = catalog
            .agent(id)
            .is_some_and(|a| a.availability != Availability::Unavailable);
        if available {
            agents.push(id.clone());
            skills.push(planned.skills.get(i).cloned().flatten());
        } else {
            unavailable.push(id.clone());
        }
    }
    let status = if scope_changed {
        CarryForwardStatus::ScopeChanged
    } else if agents.is_empty() {
        CarryForwardStatus::AgentUnavailable
    } else {
        CarryForwardStatus::Applied
    };
    CarryForward {
        status,
        agents,
        skills,
        reason_codes: planned.reason_codes.clone(),
        unavailable,
    }
}

/// What a planning turn leaves for later turns: the recommended agents, their skills and reason
/// codes, when delegation was planned.
pub fn planned_from(
    agents: &AgentRouting,
    from_plan_mode: bool,
    now: DateTime<Utc>,
) -> Option<PlannedDelegation> {
    if !agents.carry_forward_to_implementation || agents.recommended_agents.is_empty() {
        return None;
    }
    let mut reason_codes: Vec<String> = agents
        .recommended_agents
        .iter()
        .flat_map(|r| r.reason_codes.iter().cloned())
        .collect();
    reason_codes.sort();
    reason_codes.dedup();
    Some(PlannedDelegation {
        planned_at: now,
        from_plan_mode,
        agents: agents
            .recommended_agents
            .iter()
            .map(|r| r.agent_id.clone())
            .collect(),
        skills: agents
            .recommended_agents
            .iter()
            .map(|r| r.skill_id.clone())
            .collect(),
        reason_codes,
    })
}

/// What a planning turn recorded for its session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PlannedDelegation {
    pub planned_at: DateTime<Utc>,
    /// The host reported plan mode; leaving it counts as moving to execution.
    pub from_plan_mode: bool,
    pub agents: Vec<String>,
    /// The skill paired with each agent, in the same order (`null` for none).
    pub skills: Vec<Option<String>>,
    pub reason_codes: Vec<String>,
}

/// The state file: planned delegation per session (keyed by a hash of the session id).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CarryForwardState {
    pub schema_version: u32,
    pub sessions: BTreeMap<String, PlannedDelegation>,
}

impl CarryForwardState {
    /// The key for a session id; the id itself is not stored.
    pub fn key(session_id: &str) -> String {
        sha256(session_id.as_bytes())[7..39].to_owned()
    }

    /// Drops entries older than the time-to-live.
    pub fn prune(&mut self, now: DateTime<Utc>) {
        let ttl = Duration::hours(CARRY_FORWARD_TTL_HOURS);
        self.sessions
            .retain(|_, p| now - p.planned_at < ttl && p.planned_at <= now + ttl);
    }

    pub fn get(&self, session_id: &str, now: DateTime<Utc>) -> Option<&PlannedDelegation> {
        self.sessions
            .get(&Self::key(session_id))
            .filter(|p| now - p.planned_at < Duration::hours(CARRY_FORWARD_TTL_HOURS))
    }

    /// Records a session's plan; past [`MAX_SESSIONS`] entries the oldest plans go, so the file
    /// stays far below the state read cap.
    pub fn insert(&mut self, session_id: &str, planned: PlannedDelegation) {
        self.schema_version = 1;
        let key = Self::key(session_id);
        while self.sessions.len() >= MAX_SESSIONS && !self.sessions.contains_key(&key) {
            let oldest = self
                .sessions
                .iter()
                .min_by_key(|(_, p)| p.planned_at)
                .map(|(k, _)| k.clone());
            match oldest {
                Some(k) => self.sessions.remove(&k),
                None => break,
            };
        }
        self.sessions.insert(key, planned);
    }

    pub fn remove(&mut self, session_id: &str) -> bool {
        self.sessions.remove(&Self::key(session_id)).is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn planned_at(at: DateTime<Utc>) -> PlannedDelegation {
        PlannedDelegation {
            planned_at: at,
            from_plan_mode: false,
            agents: vec!["scout".into()],
            skills: vec![],
            reason_codes: vec![],
        }
    }

    #[test]
    fn state_keys_hide_and_separate_sessions() {
        let key = CarryForwardState::key("session-1");
        assert_eq!(key, CarryForwardState::key("session-1"));
        assert_eq!(key.len(), 32);
        assert!(key.chars().all(|c| c.is_ascii_hexdigit()), "{key}");
        assert_ne!(key, CarryForwardState::key("session-2"));
        let now = DateTime::UNIX_EPOCH + Duration::days(30);
        let mut state = CarryForwardState::default();
        state.insert("session-1", planned_at(now));
        assert!(state.get("session-1", now).is_some());
        assert!(state.get("session-2", now).is_none());
        assert!(!state.remove("session-2"));
        assert!(state.remove("session-1"));
    }

    #[test]
    fn entries_live_for_the_ttl_in_both_directions() {
        let now = DateTime::UNIX_EPOCH + Duration::days(30);
        let ttl = Duration::hours(CARRY_FORWARD_TTL_HOURS);
        let minute = Duration::minutes(1);
        let mut state = CarryForwardState::default();
        let ages = [
            ("now", now, true),
            ("an hour ago", now - Duration::hours(1), true),
            ("just inside the ttl", now - ttl + minute, true),
            ("exactly the ttl ago", now - ttl, false),
            ("past the ttl", now - ttl - minute, false),
            ("a ttl ahead (clock skew)", now + ttl, true),
            ("beyond a ttl ahead", now + ttl + minute, false),
        ];
        for (name, at, _) in ages {
            state.insert(name, planned_at(at));
        }
        assert_eq!(
            state.get("exactly the ttl ago", now),
            None,
            "get applies the ttl too"
        );
        assert!(state.get("just inside the ttl", now).is_some());
        state.prune(now);
        for (name, _, kept) in ages {
            assert_eq!(
                state.sessions.contains_key(&CarryForwardState::key(name)),
                kept,
                "{name}"
            );
        }
    }

    #[test]
    fn plan_requests() {
        for yes in [
            "prepara un piano per migrare il modulo ordini",
            "fammi un piano di implementazione",
            "pianifica il refactoring del parser",
            "make a plan to split the module",
            "write an implementation plan for the fix",
            "plan the migration of the billing tables",
        ] {
            assert!(asks_for_plan(yes), "{yes}");
        }
        for no in [
            "implementa il piano",
            "esegui il piano di prima",
            "go ahead with the plan",
            "correggi il bug",
            "the plan is fine",
            "spiegami il piano cartesiano",
        ] {
            assert!(!asks_for_plan(no), "{no}");
        }
    }

    #[test]
    fn approvals() {
        for yes in [
            "procedi",
            "ok, procedi pure",
            "implementa il piano",
            "go ahead with the plan",
            "execute the plan",
            "approvato, vai",
            "LGTM",
        ] {
            assert!(approves_plan(yes), "{yes}");
        }
        for no in [
            "prepara un piano",
            "spiegami la SQL",
            "il piano non mi convince",
        ] {
            assert!(!approves_plan(no), "{no}");
        }
    }

    #[test]
    fn scope_changes() {
        assert!(!changes_scope("procedi"));
        assert!(!changes_scope("ok, implementa il piano"));
        assert!(changes_scope(
            "procedi, ma aggiungi anche l'export in Excel e cambia il modulo ordini"
        ));
        // More than four content words beyond the approval: four is not a new scope, five is.
        assert!(!changes_scope("procedi: export excel fatture ordini"));
        assert!(changes_scope(
            "procedi: export excel fatture ordini clienti"
        ));
        // Approvals, plan nouns and execution verbs are never new scope, however many.
        assert!(!changes_scope(
            "vai avanti approvo confermo inizia iniziamo"
        ));
        assert!(!changes_scope("piano piano plan plan piano plan"));
        assert!(!changes_scope("implementa esegui applica segui implement"));
    }

    #[test]
    fn carry_forward_outcomes() {
        let catalog = crate::stages::agents::default_catalog();
        let now = DateTime::parse_from_rfc3339("2026-11-29T12:00:00Z")
            .unwrap()
            .to_utc();
        let planned = PlannedDelegation {
            planned_at: now,
            from_plan_mode: true,
            agents: vec!["technical_analyst".into()],
            skills: vec![Some("mcp-technical-analyst".into())],
            reason_codes: vec!["analysis-task".into()],
        };
        let status = |text: &str, mode: Option<&str>, planning: bool, c: &AgentCatalog| {
            carry_forward(&planned, text, mode, planning, c).map(|cf| cf.status)
        };
        assert_eq!(
            status("procedi", None, false, &catalog),
            Some(CarryForwardStatus::Applied)
        );
        assert_eq!(
            status("spiegami la SQL", Some("default"), false, &catalog),
            Some(CarryForwardStatus::Applied),
            "left plan mode"
        );
        assert_eq!(
            status("spiegami la SQL", Some("plan"), false, &catalog),
            None
        );
        assert_eq!(status("spiegami la SQL", None, false, &catalog), None);
        assert_eq!(
            status("procedi", None, true, &catalog),
            None,
            "still planning"
        );
        assert_eq!(
            status(
                "procedi, ma aggiungi anche l'export in Excel e cambia il modulo ordini",
                None,
                false,
                &catalog
            ),
            Some(CarryForwardStatus::ScopeChanged)
        );
        let mut gone = catalog.clone();
        gone.agents
            .iter_mut()
            .find(|a| a.id == "technical_analyst")
            .unwrap()
            .availability = Availability::Unavailable;
        let cf = carry_forward(&planned, "procedi", None, false, &gone).unwrap();
        assert_eq!(
            (cf.status, cf.unavailable.as_slice()),
            (
                CarryForwardStatus::AgentUnavailable,
                &["technical_analyst".to_string()][..]
            )
        );
    }

    #[test]
    fn state_keys_expire_and_hide_session_ids() {
        let now = DateTime::parse_from_rfc3339("2026-11-29T12:00:00Z")
            .unwrap()
            .to_utc();
        let planned = PlannedDelegation {
            planned_at: now,
            from_plan_mode: true,
            agents: vec!["technical_analyst".into()],
            skills: vec![],
            reason_codes: vec![],
        };
        let mut state = CarryForwardState::default();
        state.insert("session-abc", planned.clone());
        assert!(
            !serde_json::to_string(&state)
                .unwrap()
                .contains("session-abc")
        );
        assert_eq!(
            state.get("session-abc", now + Duration::hours(23)),
            Some(&planned)
        );
        assert_eq!(state.get("session-abc", now + Duration::hours(25)), None);
        state.prune(now + Duration::hours(25));
        assert!(state.sessions.is_empty());
        state.insert("s", planned.clone());
        assert!(state.remove("s") && !state.remove("s"));
        for i in 0..MAX_SESSIONS + 10 {
            let p = PlannedDelegation {
                planned_at: now + Duration::seconds(i as i64),
                ..planned.clone()
            };
            state.insert(&format!("s{i}"), p);
        }
        assert_eq!(state.sessions.len(), MAX_SESSIONS);
        assert!(state.get("s0", now).is_none(), "the oldest went first");
        assert!(state.get(&format!("s{}", MAX_SESSIONS + 9), now).is_some());
    }
}
