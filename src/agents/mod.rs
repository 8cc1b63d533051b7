//! Agents: the catalog of subagent roles ([`catalog`]), their local availability
//! ([`availability`]) and the deterministic policy that recommends roles ([`policy`]). This
//! module holds the policy output that `explain` shows under `agents`, and the embedded default
//! catalog. Pure: no I/O; the policy only advises and never spawns anything.

pub mod availability;
pub mod catalog;
pub mod policy;
pub mod runtime;

use serde::Serialize;

use crate::subagent::SubagentMode;
use catalog::AgentCatalog;

pub const POLICY_SOURCE: &str = "deterministic-agent-policy";

/// The embedded default catalog, generated from `docs/agents/canonical-subagents.yaml`; a test
/// fails when it is stale.
pub const DEFAULT_CATALOG_JSON: &str = include_str!("defaults/agent-catalog.json");

/// The canonical source the embedded catalog was built from; `agents sync` generates runtime
/// definitions from it in a project that has no source of its own.
pub const DEFAULT_SOURCE: &str = include_str!("../../docs/agents/canonical-subagents.yaml");

/// The embedded default agent catalog, parsed.
pub fn default_catalog() -> AgentCatalog {
    serde_json::from_str(DEFAULT_CATALOG_JSON).expect("the embedded default agent catalog is valid")
}

/// One recommended agent, paired with the skill to name in the delegated task.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Recommendation {
    pub agent_id: String,
    pub skill_id: Option<String>,
    pub availability: String,
    pub write_policy: String,
    pub reason_codes: Vec<String>,
    /// The phase the role owns (`discovery`, `review`…): chooses the host's built-in agent when
    /// the role has no runtime definition there. Not part of the decision JSON.
    #[serde(skip)]
    pub routing_role: String,
}

/// One agent left out, with why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Rejection {
    pub agent_id: String,
    pub reason_codes: Vec<String>,
}

/// What happened to a planned delegation on a prompt that moves to execution.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CarryForwardStatus {
    /// Re-injected: the implementation must apply the planned delegation.
    Applied,
    /// Not re-injected: the prompt changes scope, so the plan must be re-evaluated.
    ScopeChanged,
    /// Not re-injected: every planned agent is unavailable now.
    AgentUnavailable,
}

/// The planned delegation carried from a planning turn of the same session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CarryForward {
    pub status: CarryForwardStatus,
    /// Planned agents that still apply.
    pub agents: Vec<String>,
    /// The skill paired with each of `agents`, in the same order (`null` for none).
    pub skills: Vec<Option<String>>,
    pub reason_codes: Vec<String>,
    /// Planned agents that became unavailable since.
    pub unavailable: Vec<String>,
}

/// `agents` of the decision JSON; the first six field names are a contract (docs/architecture.md).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentRouting {
    pub mode: SubagentMode,
    pub source: &'static str,
    pub recommended_agents: Vec<Recommendation>,
    pub rejected_agents: Vec<Rejection>,
    pub fallback_reason: Option<String>,
    pub carry_forward_to_implementation: bool,
    /// A planned delegation carried forward to this prompt, if any.
    pub carry_forward: Option<CarryForward>,
    /// Catalog and availability warnings (stale catalog, manifest fingerprint mismatch…).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
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
            carry_forward: None,
            warnings: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The embedded catalog is generated from `docs/agents/canonical-subagents.yaml` and must not
    /// go stale. To regenerate it after editing the source:
    /// `SOPHIA_UPDATE_DEFAULTS=1 cargo test --lib embedded_default_agent_catalog_is_in_sync`.
    #[test]
    fn embedded_default_agent_catalog_is_in_sync() {
        let source = include_str!("../../docs/agents/canonical-subagents.yaml");
        let skill_ids = crate::skills::default_catalog()
            .skills
            .into_iter()
            .map(|s| s.id)
            .collect();
        let now = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
        let fresh = catalog::build(source, &skill_ids, now).expect("the canonical source builds");
        if std::env::var_os("SOPHIA_UPDATE_DEFAULTS").is_some() {
            let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("src/agents/defaults/agent-catalog.json");
            let mut json = serde_json::to_string_pretty(&fresh).unwrap();
            json.push('\n');
            std::fs::write(path, json).unwrap();
            return;
        }
        let embedded = default_catalog();
        assert!(
            embedded.fingerprint_is_valid(),
            "the embedded catalog was edited by hand"
        );
        assert_eq!(
            embedded.fingerprint, fresh.fingerprint,
            "src/agents/defaults/agent-catalog.json is stale: run \
             SOPHIA_UPDATE_DEFAULTS=1 cargo test --lib embedded_default_agent_catalog_is_in_sync"
        );
    }

    /// Rules over the whole table: the five roles, unique ids, every phase covered, no generic
    /// role, every role reachable by its routing role.
    #[test]
    fn default_roles() {
        let c = default_catalog();
        let ids: Vec<&str> = c.agents.iter().map(|a| a.id.as_str()).collect();
        assert_eq!(
            ids,
            [
                "scout",
                "technical_analyst",
                "implementer",
                "code_reviewer",
                "test_writer"
            ]
        );
        for generic in [
            "default",
            "generic",
            "worker",
            "general-purpose",
            "general_purpose",
        ] {
            assert!(c.agent(generic).is_none());
        }
        for phase in catalog::PHASES {
            assert!(
                c.agents.iter().any(|a| a.routing_role == phase),
                "no role owns {phase}"
            );
        }
        let writes: Vec<(&str, &str)> = c
            .agents
            .iter()
            .map(|a| (a.id.as_str(), a.write_policy.as_str()))
            .collect();
        assert_eq!(
            writes,
            [
                ("scout", "read-only"),
                ("technical_analyst", "read-only"),
                ("implementer", "workspace-write"),
                ("code_reviewer", "read-only"),
                ("test_writer", "workspace-write"),
            ]
        );
    }
}
