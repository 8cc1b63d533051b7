//! Agents: the catalog of subagent roles ([`catalog`]), their local availability
//! ([`availability`]) and the deterministic policy that recommends roles ([`policy`]). This
//! module holds the policy output that `explain` shows under `agents`, and the embedded default
//! catalog. Pure: no I/O; the policy only advises and never spawns anything.

pub mod availability;
pub mod catalog;
pub mod policy;
pub mod runtime;
pub mod source;

use serde::Serialize;

use crate::stages::subagent::SubagentMode;
use catalog::AgentCatalog;

pub const POLICY_SOURCE: &str = "deterministic-agent-policy";

mod defaults {
    pub mod catalog;
    pub mod cues;
}
pub(crate) use defaults::cues::PHASE_CUE_STEMS;

/// A role of the embedded default catalog, as static data (`src/stages/agents/defaults/catalog.rs`,
/// generated from `docs/agents/canonical-subagents.yaml`; a test fails when it is stale).
pub struct StaticAgent {
    pub id: &'static str,
    pub semantic_summary: &'static str,
    pub routing_role: &'static str,
    pub task_phases: &'static [&'static str],
    pub capabilities: &'static [&'static str],
    pub not_for: &'static [&'static str],
    pub skill_affinities: &'static [&'static str],
    pub write_policy: &'static str,
}

/// The canonical source, relative to the project root.
pub const SOURCE_PATH: &str = "docs/agents/canonical-subagents.yaml";

/// The canonical source the embedded catalog was built from; `agents sync` generates runtime
/// definitions from it in a project that has no source of its own.
pub const DEFAULT_SOURCE: &str = include_str!("../../../docs/agents/canonical-subagents.yaml");

/// Whether `id` is an agent of the embedded default catalog.
pub fn is_embedded_id(id: &str) -> bool {
    defaults::catalog::AGENTS.iter().any(|a| a.id == id)
}

/// The embedded default agent catalog, copied from static data (no parsing).
pub fn default_catalog() -> AgentCatalog {
    let strings = |v: &[&str]| v.iter().map(|s| (*s).to_owned()).collect();
    AgentCatalog {
        schema_version: catalog::AGENT_CATALOG_SCHEMA_VERSION,
        generated_at: defaults::catalog::GENERATED_AT.to_owned(),
        fingerprint: defaults::catalog::FINGERPRINT.to_owned(),
        agents: defaults::catalog::AGENTS
            .iter()
            .map(|a| catalog::AgentRecord {
                id: a.id.to_owned(),
                kind: "agent".to_owned(),
                semantic_summary: a.semantic_summary.to_owned(),
                routing_role: a.routing_role.to_owned(),
                task_phases: strings(a.task_phases),
                capabilities: strings(a.capabilities),
                not_for: strings(a.not_for),
                skill_affinities: strings(a.skill_affinities),
                write_policy: a.write_policy.to_owned(),
                availability: catalog::Availability::Unknown,
            })
            .collect(),
    }
}

/// The Rust source of `src/stages/agents/defaults/catalog.rs` for a built catalog.
#[cfg(test)]
fn catalog_to_rust(c: &AgentCatalog) -> String {
    let list = |v: &[String]| {
        let items: Vec<String> = v.iter().map(|s| format!("{s:?}")).collect();
        format!("&[{}]", items.join(", "))
    };
    let mut out = String::from(
        "// Generated from docs/agents/canonical-subagents.yaml by\n\
         // `SOPHIA_UPDATE_DEFAULTS=1 cargo test --lib embedded_default_agent_catalog_is_in_sync`.\n\
         // Do not edit.\n\n\
         use crate::stages::agents::StaticAgent;\n\n",
    );
    out.push_str(&format!(
        "pub const FINGERPRINT: &str = {:?};\n",
        c.fingerprint
    ));
    out.push_str(&format!(
        "pub const GENERATED_AT: &str = {:?};\n\n",
        c.generated_at
    ));
    out.push_str("#[rustfmt::skip]\npub static AGENTS: &[StaticAgent] = &[\n");
    for a in &c.agents {
        out.push_str(&format!(
            "    StaticAgent {{\n        id: {:?},\n        semantic_summary: {:?},\n        routing_role: {:?},\n        task_phases: {},\n        capabilities: {},\n        not_for: {},\n        skill_affinities: {},\n        write_policy: {:?},\n    }},\n",
            a.id,
            a.semantic_summary,
            a.routing_role,
            list(&a.task_phases),
            list(&a.capabilities),
            list(&a.not_for),
            list(&a.skill_affinities),
            a.write_policy,
        ));
    }
    out.push_str("];\n");
    out
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
    // Tests set up their files and folders directly.
    #![allow(clippy::disallowed_methods)]
    use super::*;

    /// The embedded catalog is generated from `docs/agents/canonical-subagents.yaml` and must not
    /// go stale. To regenerate it after editing the source:
    /// `SOPHIA_UPDATE_DEFAULTS=1 cargo test --lib embedded_default_agent_catalog_is_in_sync`.
    #[test]
    fn embedded_default_agent_catalog_is_in_sync() {
        let source = include_str!("../../../docs/agents/canonical-subagents.yaml");
        let skill_ids = crate::stages::skills::default_catalog()
            .skills
            .into_iter()
            .map(|s| s.id)
            .collect();
        let now = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
        let mut fresh =
            catalog::build(source, &skill_ids, now).expect("the canonical source builds");
        if std::env::var_os("SOPHIA_UPDATE_DEFAULTS").is_some() {
            let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("src/stages/agents/defaults/catalog.rs");
            std::fs::write(path, catalog_to_rust(&fresh)).unwrap();
            return;
        }
        let embedded = default_catalog();
        assert!(
            embedded.fingerprint_is_valid(),
            "the embedded catalog was edited by hand"
        );
        assert_eq!(
            embedded.fingerprint, fresh.fingerprint,
            "src/stages/agents/defaults/catalog.rs is stale: run \
             SOPHIA_UPDATE_DEFAULTS=1 cargo test --lib embedded_default_agent_catalog_is_in_sync"
        );
        fresh.generated_at = embedded.generated_at.clone();
        assert_eq!(embedded, fresh);
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
