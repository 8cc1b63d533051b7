//! The agent catalog v1: built from the canonical source `docs/agents/canonical-subagents.yaml`
//! (docs/architecture.md, "Data contracts"). The builder copies routing fields only — never the
//! runtime fields (model, instructions, tools, prioritize/avoid) — derives `writePolicy` from the
//! runtime permissions, and refuses a source with duplicate or malformed ids, unknown phases,
//! affinities that do not resolve against the skill catalog, or secret-like or user-path values in
//! routing fields. The fingerprint is `sha256:` over the canonical JSON (sorted keys, no
//! whitespace) of the catalog without `generatedAt` and `fingerprint`. Pure: callers read and write
//! files.

use std::collections::BTreeSet;
use std::sync::LazyLock;

use regex::Regex;
use serde::{Deserialize, Serialize};

use crate::agents::availability::Availability;
use crate::fingerprint::{canonical_json, sha256};
use crate::skills::catalog::is_valid_id;

pub const AGENT_CATALOG_SCHEMA_VERSION: u32 = 1;
/// The task phases a role may declare, and that the policy detects in prompts.
pub const PHASES: [&str; 5] = ["discovery", "analysis", "implementation", "review", "test"];

/// A role in the generated catalog: routing metadata only.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AgentRecord {
    pub id: String,
    pub kind: String,
    pub semantic_summary: String,
    pub routing_role: String,
    pub task_phases: Vec<String>,
    pub capabilities: Vec<String>,
    pub not_for: Vec<String>,
    pub skill_affinities: Vec<String>,
    pub write_policy: String,
    pub availability: Availability,
}

/// The generated catalog v1.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AgentCatalog {
    pub schema_version: u32,
    pub generated_at: String,
    pub fingerprint: String,
    pub agents: Vec<AgentRecord>,
}

impl AgentCatalog {
    /// The fingerprint the catalog should carry: SHA-256 over its canonical JSON without
    /// `generatedAt` and `fingerprint`. Availability is reset to `unknown` first, so overlaying
    /// a manifest never changes a catalog's identity.
    pub fn compute_fingerprint(&self) -> String {
        let agents: Vec<AgentRecord> = self
            .agents
            .iter()
            .cloned()
            .map(|mut a| {
                a.availability = Availability::Unknown;
                a
            })
            .collect();
        let value = serde_json::json!({
            "schemaVersion": self.schema_version,
            "agents": agents,
        });
        sha256(canonical_json(&value).as_bytes())
    }

    /// True when the stored fingerprint matches the content.
    pub fn fingerprint_is_valid(&self) -> bool {
        self.fingerprint == self.compute_fingerprint()
    }

    pub fn agent(&self, id: &str) -> Option<&AgentRecord> {
        self.agents.iter().find(|a| a.id == id)
    }
}

/// Why a source was refused; always names the agent and the field when there is one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BuildError {
    #[error("the source is not valid YAML for the canonical format: {0}")]
    Format(String),
    #[error("schemaVersion {0} is not supported (expected {AGENT_CATALOG_SCHEMA_VERSION})")]
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

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Source {
    schema_version: u32,
    #[serde(default)]
    agents: Vec<SourceAgent>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct SourceAgent {
    id: String,
    summary: String,
    routing_role: String,
    #[serde(default)]
    task_phases: Vec<String>,
    #[serde(default)]
    capabilities: Vec<String>,
    #[serde(default)]
    not_for: Vec<String>,
    #[serde(default)]
    skill_affinities: Vec<String>,
    runtime: Runtime,
}

/// Runtime-only fields: they configure the host's agent definition and never reach the catalog.
/// Unknown runtime keys are allowed (hosts differ); only the permissions are read.
#[derive(Debug, Deserialize)]
struct Runtime {
    permissions: Permissions,
}

#[derive(Debug, Deserialize)]
struct Permissions {
    sandbox: String,
}

/// Builds the catalog from the canonical source text. `skill_ids` is the skill catalog that
/// affinities must resolve against; `generated_at` is an RFC 3339 timestamp.
pub fn build(
    source: &str,
    skill_ids: &BTreeSet<String>,
    generated_at: String,
) -> Result<AgentCatalog, BuildError> {
    let parsed: Source = serde_saphyr::from_str(source).map_err(|e| {
        BuildError::Format(e.to_string().lines().next().unwrap_or_default().to_owned())
    })?;
    if parsed.schema_version != AGENT_CATALOG_SCHEMA_VERSION {
        return Err(BuildError::SchemaVersion(parsed.schema_version));
    }
    if parsed.agents.is_empty() {
        return Err(BuildError::NoAgents);
    }
    let mut seen = BTreeSet::new();
    let mut agents = Vec::with_capacity(parsed.agents.len());
    for a in parsed.agents {
        let field_err = |field: &'static str, problem: String| BuildError::Field {
            agent: a.id.clone(),
            field,
            problem,
        };
        if !is_valid_id(&a.id) {
            return Err(field_err(
                "id",
                "must be 1–64 lowercase letters, digits, `-` or `_`, starting with a letter".into(),
            ));
        }
        if !seen.insert(a.id.clone()) {
            return Err(field_err("id", "duplicate id".into()));
        }
        if a.summary.trim().is_empty() {
            return Err(field_err("summary", "is empty".into()));
        }
        if !is_valid_id(&a.routing_role) {
            return Err(field_err(
                "routingRole",
                "must be a lowercase word such as `analysis`".into(),
            ));
        }
        if a.task_phases.is_empty() {
            return Err(field_err(
                "taskPhases",
                "must list at least one phase".into(),
            ));
        }
        if let Some(p) = a.task_phases.iter().find(|p| !PHASES.contains(&p.as_str())) {
            return Err(field_err(
                "taskPhases",
                format!("unknown phase {p:?} (known: {})", PHASES.join(", ")),
            ));
        }
        if let Some(s) = a.skill_affinities.iter().find(|s| !skill_ids.contains(*s)) {
            return Err(field_err(
                "skillAffinities",
                format!("{s:?} does not resolve against the skill catalog"),
            ));
        }
        let write_policy = match a.runtime.permissions.sandbox.as_str() {
            "read-only" => "read-only",
            "workspace-write" => "workspace-write",
            other => {
                return Err(field_err(
                    "runtime.permissions.sandbox",
                    format!("{other:?} is not `read-only` or `workspace-write`"),
                ));
            }
        };
        let routing_fields: [(&'static str, Vec<&String>); 6] = [
            ("summary", vec![&a.summary]),
            ("routingRole", vec![&a.routing_role]),
            ("taskPhases", a.task_phases.iter().collect()),
            ("capabilities", a.capabilities.iter().collect()),
            ("notFor", a.not_for.iter().collect()),
            ("skillAffinities", a.skill_affinities.iter().collect()),
        ];
        for (field, values) in routing_fields {
            for value in values {
                if let Some(problem) = forbidden_content(value) {
                    return Err(field_err(field, problem));
                }
            }
        }
        agents.push(AgentRecord {
            id: a.id,
            kind: "agent".into(),
            semantic_summary: a.summary.trim().to_owned(),
            routing_role: a.routing_role,
            task_phases: a.task_phases,
            capabilities: a.capabilities,
            not_for: a.not_for,
            skill_affinities: a.skill_affinities,
            write_policy: write_policy.into(),
            availability: Availability::Unknown,
        });
    }
    let mut catalog = AgentCatalog {
        schema_version: AGENT_CATALOG_SCHEMA_VERSION,
        generated_at,
        fingerprint: String::new(),
        agents,
    };
    catalog.fingerprint = catalog.compute_fingerprint();
    Ok(catalog)
}

static SECRET: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?ix)
        (api[_-]?key|secret|passw(or)?d|token|bearer|credential)s?\s*[:=]
        | \b(sk|pk|rk)-[a-z0-9_-]{16,}
        | \bgh[pousr]_[a-z0-9]{20,}
        | \bgithub_pat_[a-z0-9_]{20,}
        | \bxox[abprs]-[a-z0-9-]{10,}
        | \bAKIA[0-9A-Z]{16}\b
        | \bAIza[0-9a-z_-]{30,}
        | -----BEGIN
        ",
    )
    .expect("secret pattern")
});
static LONG_TOKEN: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"[A-Za-z0-9+/_=-]{32,}").expect("token pattern"));
static USER_PATH: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?ix)
        (^|[\s'\x22(=])(/home/|/Users/|/root/|/var/|/etc/|/opt/|/tmp/|~/|~\\)
        | [a-z]:\\
        | %userprofile%
        | \$home\b
        ",
    )
    .expect("path pattern")
});

/// Why a routing value may not enter the catalog, if it may not.
pub(crate) fn forbidden_content(value: &str) -> Option<String> {
    if SECRET.is_match(value) {
        return Some(
            "looks like a secret (API key, token or password); keep secrets out of routing fields"
                .into(),
        );
    }
    if let Some(m) = LONG_TOKEN.find(value) {
        let t = m.as_str();
        if t.chars().any(|c| c.is_ascii_digit()) && t.chars().any(|c| c.is_ascii_alphabetic()) {
            return Some("contains a long opaque token that looks like a credential".into());
        }
    }
    if USER_PATH.is_match(value) {
        return Some("contains a user or machine path; routing fields must be portable".into());
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn skills() -> BTreeSet<String> {
        ["mcp-database-expert", "mcp-technical-analyst"]
            .into_iter()
            .map(String::from)
            .collect()
    }

    const SOURCE: &str = r#"
schemaVersion: 1
agents:
  - id: scout
    summary: Read-only discovery.
    routingRole: discovery
    taskPhases: [discovery]
    capabilities: [find files]
    notFor: [edits]
    skillAffinities: [mcp-database-expert]
    runtime:
      permissions: { sandbox: read-only }
      model: secret-model-name-xyz
      instructions: "Never reach the catalog"
      tools: [read]
      prioritize: [facts]
      avoid: [opinions]
  - id: implementer
    summary: Writes bounded patches.
    routingRole: implementation
    taskPhases: [implementation]
    skillAffinities: []
    runtime:
      permissions: { sandbox: workspace-write }
"#;

    fn build_ok(src: &str) -> AgentCatalog {
        build(src, &skills(), "2026-11-29T00:00:00Z".into()).unwrap()
    }

    #[test]
    fn builds_records_without_runtime_fields() {
        let c = build_ok(SOURCE);
        assert_eq!(c.schema_version, 1);
        assert_eq!(c.agents.len(), 2);
        let scout = &c.agents[0];
        assert_eq!(scout.kind, "agent");
        assert_eq!(scout.write_policy, "read-only");
        assert_eq!(scout.availability, Availability::Unknown);
        assert_eq!(c.agents[1].write_policy, "workspace-write");
        let json = serde_json::to_string(&c).unwrap();
        for leaked in [
            "secret-model-name-xyz",
            "Never reach the catalog",
            "prioritize",
            "opinions",
            "runtime",
        ] {
            assert!(!json.contains(leaked), "{leaked} leaked into the catalog");
        }
        let value: serde_json::Value = serde_json::to_value(scout).unwrap();
        let mut keys: Vec<&String> = value.as_object().unwrap().keys().collect();
        keys.sort();
        assert_eq!(
            keys,
            [
                "availability",
                "capabilities",
                "id",
                "kind",
                "notFor",
                "routingRole",
                "semanticSummary",
                "skillAffinities",
                "taskPhases",
                "writePolicy"
            ]
        );
    }

    #[test]
    fn fingerprint_is_stable_and_ignores_timestamp_and_availability() {
        let a = build_ok(SOURCE);
        let b = build(SOURCE, &skills(), "2030-01-01T00:00:00Z".into()).unwrap();
        assert_eq!(a.fingerprint, b.fingerprint);
        assert!(a.fingerprint.starts_with("sha256:") && a.fingerprint.len() == 71);
        assert!(a.fingerprint_is_valid());
        let mut overlaid = a.clone();
        overlaid.agents[0].availability = Availability::Configured;
        assert!(overlaid.fingerprint_is_valid());
        let mut tampered = a.clone();
        tampered.agents[0].semantic_summary.push('!');
        assert!(!tampered.fingerprint_is_valid());
        let changed = build_ok(&SOURCE.replace("Read-only discovery.", "Read-only discovery!"));
        assert_ne!(changed.fingerprint, a.fingerprint);
    }

    #[test]
    fn refusals_name_the_agent_and_the_field() {
        let table: &[(&str, &str, &str)] = &[
            ("id: scout", "id: Scout", "field id"),
            ("id: implementer", "id: scout", "duplicate id"),
            (
                "skillAffinities: [mcp-database-expert]",
                "skillAffinities: [mcp-nope]",
                "field skillAffinities: \"mcp-nope\" does not resolve",
            ),
            (
                "capabilities: [find files]",
                "capabilities: [\"api_key: abc123\"]",
                "field capabilities: looks like a secret",
            ),
            (
                "capabilities: [find files]",
                "capabilities: [use sk-abcdefghijklmnopqrstuvwx]",
                "looks like a secret",
            ),
            (
                "capabilities: [find files]",
                "capabilities: [ghp_abcdefghijklmnopqrstuvwxyz0123]",
                "looks like a secret",
            ),
            (
                "capabilities: [find files]",
                "capabilities: [token 9f8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c3d2e]",
                "opaque token",
            ),
            (
                "summary: Read-only discovery.",
                "summary: Reads /home/alice/notes.md",
                "field summary: contains a user or machine path",
            ),
            (
                "notFor: [edits]",
                "notFor: ['C:\\Users\\bob']",
                "field notFor: contains a user or machine path",
            ),
            (
                "taskPhases: [discovery]",
                "taskPhases: [dreaming]",
                "unknown phase",
            ),
            (
                "permissions: { sandbox: read-only }",
                "permissions: { sandbox: danger-full-access }",
                "runtime.permissions.sandbox",
            ),
            (
                "routingRole: discovery",
                "routingRole: Discovery Role",
                "field routingRole",
            ),
        ];
        for (from, to, want) in table {
            let src = SOURCE.replacen(from, to, 1);
            assert_ne!(src, SOURCE, "replacement {from:?} did not apply");
            let err = build(&src, &skills(), "t".into()).unwrap_err().to_string();
            assert!(err.contains(want), "{to}: {err}");
            if !err.contains("duplicate") {
                assert!(
                    err.contains("agent \"scout\"") || err.contains("agent \"Scout\""),
                    "{err}"
                );
            }
        }
        assert!(matches!(
            build("schemaVersion: 2\nagents: []", &skills(), "t".into()),
            Err(BuildError::SchemaVersion(2))
        ));
        assert!(matches!(
            build("schemaVersion: 1\nagents: []", &skills(), "t".into()),
            Err(BuildError::NoAgents)
        ));
        assert!(matches!(
            build("{{{", &skills(), "t".into()),
            Err(BuildError::Format(_))
        ));
        assert!(matches!(
            build(
                &SOURCE.replace("summary: Read", "sumary: Read"),
                &skills(),
                "t".into()
            ),
            Err(BuildError::Format(_))
        ));
    }

    #[test]
    fn plain_routing_text_is_allowed() {
        for ok in [
            "read/write access to tests",
            "compare environments",
            "the API contract",
            "use tokens sparingly",
        ] {
            assert_eq!(forbidden_content(ok), None, "{ok}");
        }
    }
}
