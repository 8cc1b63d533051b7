//! The canonical source `docs/agents/canonical-subagents.yaml`, read in one place: its types and
//! the checks every reader needs (the YAML within its budget, the schema version, at least one
//! agent and at most [`MAX_AGENTS`], each id in the id grammar, the sandbox one of two). The
//! catalog (`agents::catalog::build`: the routing fields and the sandbox) and the hosts' runtime
//! definitions (`agents::runtime::parse`: the runtime fields) are both derived from a [`Source`],
//! each reading `runtime` as its own view. Pure.

use serde::Deserialize;

use crate::stages::skills::catalog::is_valid_id;

/// The source format's `schemaVersion` (the catalog built from it carries the same).
pub const SCHEMA_VERSION: u32 = 1;

/// Agents one source may declare.
pub const MAX_AGENTS: usize = 64;

/// Why a source was refused; always names the agent and the field when there is one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BuildError {
    #[error("the source is not valid YAML for the canonical format: {0}")]
    Format(String),
    #[error("schemaVersion {0} is not supported (expected {SCHEMA_VERSION})")]
    SchemaVersion(u32),
    #[error("the source declares no agents")]
    NoAgents,
    #[error("agent {agent:?}, field {field}: {problem}")]
    Field {
        agent: String,
        field: &'static str,
        problem: String,
    },
}

/// The source, with each agent's `runtime` read as `R`: [`Sandbox`] for the catalog (which reads
/// nothing else of it, so no other runtime key can refuse a catalog), [`SourceRuntime`] for the
/// hosts' definitions.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Source<R> {
    pub schema_version: u32,
    #[serde(default = "Vec::new")]
    pub agents: Vec<SourceAgent<R>>,
}

/// One agent of the source: its routing fields (the catalog's) and its `runtime` (the hosts').
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SourceAgent<R> {
    pub id: String,
    pub summary: String,
    pub routing_role: String,
    #[serde(default)]
    pub task_phases: Vec<String>,
    #[serde(default)]
    pub capabilities: Vec<String>,
    #[serde(default)]
    pub not_for: Vec<String>,
    #[serde(default)]
    pub skill_affinities: Vec<String>,
    pub runtime: R,
}

/// The one runtime field the catalog reads (it derives `writePolicy` from it); every other
/// runtime key is left unread.
#[derive(Debug, Deserialize)]
pub struct Sandbox {
    pub permissions: SourcePermissions,
}

/// The runtime's permissions, whichever view of it is read.
pub trait Permissions {
    fn permissions(&self) -> &SourcePermissions;
}

impl Permissions for Sandbox {
    fn permissions(&self) -> &SourcePermissions {
        &self.permissions
    }
}

impl Permissions for SourceRuntime {
    fn permissions(&self) -> &SourcePermissions {
        &self.permissions
    }
}

/// Fields that configure the host's agent definition and never reach the catalog. Unknown runtime
/// keys are allowed (hosts differ).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SourceRuntime {
    pub permissions: SourcePermissions,
    #[serde(default)]
    pub instructions: String,
    pub tier: Option<String>,
    /// Refused: a model id in the source (a repository file) pins a model the user's account
    /// or provider may lack. Read only to say so.
    pub model: Option<serde_json::Value>,
    pub models: Option<serde_json::Value>,
    pub reasoning_effort: Option<String>,
    #[serde(default)]
    pub tools: Vec<String>,
    #[serde(default)]
    pub prioritize: Vec<String>,
    #[serde(default)]
    pub avoid: Vec<String>,
}

#[derive(Debug, Deserialize)]
pub struct SourcePermissions {
    pub sandbox: String,
}

/// Parses the source text: bounded YAML, the schema version, at least one agent and at most
/// [`MAX_AGENTS`]. Each agent's own fields are checked by the reader that uses them, in its
/// order ([`SourceAgent::check_id`], [`SourceAgent::read_only`] for both).
pub fn parse<R: serde::de::DeserializeOwned>(text: &str) -> Result<Source<R>, BuildError> {
    let source: Source<R> = crate::yaml::from_str_bounded(text).map_err(BuildError::Format)?;
    if source.schema_version != SCHEMA_VERSION {
        return Err(BuildError::SchemaVersion(source.schema_version));
    }
    if source.agents.is_empty() {
        return Err(BuildError::NoAgents);
    }
    if source.agents.len() > MAX_AGENTS {
        return Err(BuildError::Format(format!(
            "{} agents (at most {})",
            source.agents.len(),
            MAX_AGENTS
        )));
    }
    Ok(source)
}

impl<R: Permissions> SourceAgent<R> {
    /// The error for `field` of this agent.
    pub fn field_error(&self, field: &'static str, problem: String) -> BuildError {
        BuildError::Field {
            agent: self.id.clone(),
            field,
            problem,
        }
    }

    /// The id is in the id grammar.
    pub fn check_id(&self) -> Result<(), BuildError> {
        if is_valid_id(&self.id) {
            Ok(())
        } else {
            Err(self.field_error(
                "id",
                "must be 1–64 lowercase letters, digits, `-` or `_`, starting with a letter".into(),
            ))
        }
    }

    /// Whether the role is read-only: `runtime.permissions.sandbox` is `read-only` or
    /// `workspace-write`, nothing else.
    pub fn read_only(&self) -> Result<bool, BuildError> {
        match self.runtime.permissions().sandbox.as_str() {
            "read-only" => Ok(true),
            "workspace-write" => Ok(false),
            other => Err(self.field_error(
                "runtime.permissions.sandbox",
                format!("{other:?} is not `read-only` or `workspace-write`"),
            )),
        }
    }
}
