//! The deterministic agent policy: which subagent role to delegate to, and which skill to name
//! in the delegated task. This module holds the policy output that `explain` shows under
//! `agents`. Pure: no I/O; it only advises and never spawns anything.

use serde::Serialize;

use crate::subagent::SubagentMode;

pub const POLICY_SOURCE: &str = "deterministic-agent-policy";

/// One recommended agent, paired with the skill to name in the delegated task.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Recommendation {
    pub agent_id: String,
    pub skill_id: Option<String>,
    pub availability: String,
    pub write_policy: String,
    pub reason_codes: Vec<String>,
}

/// One agent left out, with why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Rejection {
    pub agent_id: String,
    pub reason_codes: Vec<String>,
}

/// `agents` of the decision JSON; field names are a contract (ARCHITECTURE §2).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentRouting {
    pub mode: SubagentMode,
    pub source: &'static str,
    pub recommended_agents: Vec<Recommendation>,
    pub rejected_agents: Vec<Rejection>,
    pub fallback_reason: Option<String>,
    pub carry_forward_to_implementation: bool,
}

impl AgentRouting {
    /// The policy output for a prompt with delegation off: nothing recommended.
    pub fn off() -> AgentRouting {
        AgentRouting::empty(SubagentMode::Off)
    }

    pub fn empty(mode: SubagentMode) -> AgentRouting {
        AgentRouting {
            mode,
            source: POLICY_SOURCE,
            recommended_agents: Vec::new(),
            rejected_agents: Vec::new(),
            fallback_reason: None,
            carry_forward_to_implementation: false,
        }
    }
}
