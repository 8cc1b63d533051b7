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

use crate::fingerprint::{canonical_json, sha256};
use crate::stages::agents::source::{BuildError, Sandbox};
use crate::stages::skills::catalog::is_valid_id;

/// The catalog's schema version: the canonical source's, which it is built from.
pub const AGENT_CATALOG_SCHEMA_VERSION: u32 = crate::stages::agents::source::SCHEMA_VERSION;
/// The task phases a role may declare, and that the policy detects in prompts.
pub const PHASES: [&str; 5] = ["discovery", "analysis", "implementation", "review", "test"];

/// An agent's availability: `configured | unknown | unavailable` (see `agents::availability`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Availability {
    /// A runtime definition for the agent exists and is enabled on some host.
    Configured,
    /// No runtime definition was found; the host may still provide the role.
    Unknown,
    /// A runtime definition exists but is disabled, or the user marked the agent unavailable.
    Unavailable,
}

impl Availability {
    pub fn as_str(self) -> &'static str {
        match self {
            Availability::Configured => "configured",
            Availability::Unknown => "unknown",
            Availability::Unavailable => "unavailable",
        }
    }
}

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

/// Builds the catalog from the canonical source text. `skill_ids` is the skill catalog that
/// affinities must resolve against; `generated_at` is an RFC 3339 timestamp.
pub fn build(
    source: &str,
    skill_ids: &BTreeSet<String>,
    generated_at: String,
) -> Result<AgentCatalog, BuildError> {
    let parsed = crate::stages::agents::source::parse::<Sandbox>(source)?;
    let mut seen = BTreeSet::new();
    let mut agents = Vec::with_capacity(parsed.agents.len());
    for a in parsed.agents {
        let field_err = |field: &'static str, problem: String| a.field_error(field, problem);
        a.check_id()?;
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
        let write_policy = if a.read_only()? {
            "read-only"
        } else {
            "workspace-write"
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
            if values.len() > limits::LIST {
                return Err(field_err(field, "has too many entries".into()));
            }
            for value in values {
                // Bounded first: the patterns below never see more than a routing value holds.
                if value.chars().count() > limits::TEXT_CHARS {
                    return Err(field_err(field, "is too long".into()));
                }
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
    validate(&catalog)?;
    catalog.fingerprint = catalog.compute_fingerprint();
    Ok(catalog)
}

/// Bounds of a catalog: what `build` accepts and what a generated catalog read back may hold.
pub mod limits {
    /// Agents per catalog: the source's bound.
    pub const AGENTS: usize = crate::stages::agents::source::MAX_AGENTS;
    /// Entries per list field (phases, capabilities, notFor, skillAffinities).
    pub const LIST: usize = 32;
    /// Characters of one text value (summary, one capability, one notFor entry).
    pub const TEXT_CHARS: usize = 400;
}

/// The write policies `build` derives from the runtime sandbox.
pub const WRITE_POLICIES: [&str; 2] = ["read-only", "workspace-write"];

/// Checks a catalog the way `build` checks its source: the schema version, at least one agent
/// and at most [`limits::AGENTS`], ids and routing roles in the id grammar and unique, `kind`
/// and `writePolicy` from their enums, known phases, affinities in the id grammar, bounded lists
/// and texts, no control or line-separator characters anywhere, no secret-like or user-path
/// values. A generated catalog read back from a repository is untrusted even when its
/// fingerprint matches (anyone can compute a SHA-256), so the hook refuses one that fails.
pub fn validate(catalog: &AgentCatalog) -> Result<(), BuildError> {
    if catalog.schema_version != AGENT_CATALOG_SCHEMA_VERSION {
        return Err(BuildError::SchemaVersion(catalog.schema_version));
    }
    if catalog.agents.is_empty() {
        return Err(BuildError::NoAgents);
    }
    if catalog.agents.len() > limits::AGENTS {
        return Err(BuildError::Format(format!(
            "{} agents (at most {})",
            catalog.agents.len(),
            limits::AGENTS
        )));
    }
    let mut seen = BTreeSet::new();
    for a in &catalog.agents {
        let agent = if is_valid_id(&a.id) {
            a.id.clone()
        } else {
            a.id.chars().take(40).filter(|c| !c.is_control()).collect()
        };
        let err = |field: &'static str, problem: &str| BuildError::Field {
            agent: agent.clone(),
            field,
            problem: problem.to_owned(),
        };
        if !is_valid_id(&a.id) {
            return Err(err(
                "id",
                "must be 1–64 lowercase letters, digits, `-` or `_`",
            ));
        }
        if !seen.insert(a.id.as_str()) {
            return Err(err("id", "duplicate id"));
        }
        if a.kind != "agent" {
            return Err(err("kind", "must be `agent`"));
        }
        if !is_valid_id(&a.routing_role) {
            return Err(err("routingRole", "must be a lowercase word"));
        }
        if !WRITE_POLICIES.contains(&a.write_policy.as_str()) {
            return Err(err(
                "writePolicy",
                "must be `read-only` or `workspace-write`",
            ));
        }
        if a.task_phases.is_empty() || a.task_phases.iter().any(|p| !PHASES.contains(&p.as_str())) {
            return Err(err("taskPhases", "must list known phases"));
        }
        if a.skill_affinities.iter().any(|s| !is_valid_id(s)) {
            return Err(err("skillAffinities", "must be skill ids"));
        }
        if a.semantic_summary.trim().is_empty() {
            return Err(err("semanticSummary", "is empty"));
        }
        let lists: [(&'static str, &Vec<String>); 4] = [
            ("taskPhases", &a.task_phases),
            ("capabilities", &a.capabilities),
            ("notFor", &a.not_for),
            ("skillAffinities", &a.skill_affinities),
        ];
        for (field, list) in lists {
            if list.len() > limits::LIST {
                return Err(err(field, "has too many entries"));
            }
        }
        let texts = std::iter::once(("semanticSummary", &a.semantic_summary)).chain(
            lists
                .iter()
                .flat_map(|(f, l)| l.iter().map(move |v| (*f, v))),
        );
        for (field, value) in texts {
            if value.chars().count() > limits::TEXT_CHARS {
                return Err(err(field, "is too long"));
            }
            if value.chars().any(is_forbidden_char) {
                return Err(err(field, "carries a control or line-separator character"));
            }
            if let Some(problem) = forbidden_content(value) {
                return Err(err(field, &problem));
            }
        }
    }
    Ok(())
}

/// Characters no routing value may carry: the one character policy
/// ([`crate::charset::is_hidden`]): controls (line breaks, escapes), line and paragraph
/// separators, and every invisible, format, private-use or unassigned character that makes text
/// read differently from what it is.
pub fn is_forbidden_char(c: char) -> bool {
    crate::charset::is_hidden(c)
}

// Every pattern is ASCII (`-u`): the tokens it looks for are, and a Unicode word boundary or
// class would make the regex crate fall back to its slow engines on non-ASCII text (issue 29,
// blind pass cases 23–25: 64 summaries of `é ` cost 0.4 s on every prompt).
static SECRET: LazyLock<Regex> = LazyLock::new(|| {
    crate::pattern::ascii(
        r"(?ix-u)
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
});
static LONG_TOKEN: LazyLock<Regex> =
    LazyLock::new(|| crate::pattern::ascii(r"(?-u)[A-Za-z0-9+/_=-]{32,}"));
static USER_PATH: LazyLock<Regex> = LazyLock::new(|| {
    crate::pattern::ascii(
        r"(?ix-u)
        (^|[\s'\x22(=])(/home/|/Users/|/root/|/var/|/etc/|/opt/|/tmp/|~/|~\\)
        | [a-z]:\\
        | %userprofile%
        | \$home\b
        ",
    )
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

    /// Issue 29, blind pass cases 23–25: the content patterns never see more than a routing
    /// value may hold, and run on non-ASCII text as on ASCII. A source whose every summary is
    /// thousands of non-ASCII words is refused as too long; one whose values are at the limit, in
    /// any script, builds and validates (the patterns are ASCII-only, so the regex crate keeps its
    /// fast engines: a Unicode word boundary made 64 such summaries cost 0.4 s per prompt).
    #[test]
    fn routing_values_are_bounded_before_any_pattern_sees_them() {
        let source = |summary: &str| {
            let mut y = String::from("schemaVersion: 1\nagents:\n");
            for a in 0..limits::AGENTS {
                y.push_str(&format!(
                    "  - id: role{a}\n    summary: {summary}\n    routingRole: discovery\n    taskPhases: [discovery]\n    runtime:\n      permissions:\n        sandbox: read-only\n      instructions: x\n"
                ));
            }
            y
        };
        let ids = BTreeSet::new();
        for word in ["é ", "ж ", "word "] {
            let long = word.repeat(4_000);
            let err = build(&source(long.trim()), &ids, String::new()).unwrap_err();
            assert!(err.to_string().contains("too long"), "{word:?}: {err}");
            let at_limit: String = word
                .repeat(limits::TEXT_CHARS)
                .chars()
                .take(limits::TEXT_CHARS)
                .collect();
            let catalog = build(&source(at_limit.trim()), &ids, String::new()).unwrap();
            validate(&catalog).unwrap();
        }
        // More agents than a catalog holds are refused before any is looked at.
        let mut many = source("a role");
        many.push_str("  - id: extra\n    summary: x\n    routingRole: discovery\n    taskPhases: [discovery]\n    runtime:\n      permissions:\n        sandbox: read-only\n      instructions: x\n");
        assert!(build(&many, &ids, String::new()).is_err());
        // The patterns are ASCII: every non-ASCII word character passes, as a word boundary would.
        assert_eq!(forbidden_content("clé secrète token"), None);
        assert!(forbidden_content("é token: abc").is_some());
    }

    #[test]
    fn the_embedded_default_passes_validation() {
        validate(&crate::stages::agents::default_catalog()).unwrap();
    }

    #[test]
    fn validation_refuses_what_build_would_refuse() {
        let good = build_ok(SOURCE);
        validate(&good).unwrap();
        type Edit = fn(&mut AgentRecord);
        let cases: [(Edit, &str); 8] = [
            (|a| a.id = "Scout".into(), "id"),
            (|a| a.id = "scout\nx".into(), "id"),
            (|a| a.kind = "tool".into(), "kind"),
            (
                |a| a.write_policy = "danger-full-access".into(),
                "writePolicy",
            ),
            (|a| a.task_phases = vec!["deploy".into()], "taskPhases"),
            (|a| a.semantic_summary = "x".repeat(401), "semanticSummary"),
            (|a| a.not_for = vec!["a\u{1b}[2Jb".into()], "notFor"),
            (
                |a| a.capabilities = vec!["read /home/me/.ssh".into()],
                "capabilities",
            ),
        ];
        for (edit, field) in cases {
            let mut c = good.clone();
            edit(&mut c.agents[0]);
            match validate(&c) {
                Err(BuildError::Field { field: f, .. }) => assert_eq!(f, field),
                other => panic!("{field}: {other:?}"),
            }
        }
        let mut dup = good.clone();
        dup.agents[1].id = dup.agents[0].id.clone();
        assert!(validate(&dup).is_err());
    }

    #[test]
    fn long_tokens_are_secrets_only_with_letters_and_digits() {
        let words_only = "internationalization_and_localization_workflows";
        assert!(words_only.len() >= 32);
        assert_eq!(forbidden_content(words_only), None);
        assert!(forbidden_content("a7f3c9e1b2d4f6a8c0e2b4d6f8a1c3e5").is_some());
        assert_eq!(forbidden_content("12345678901234567890123456789012"), None);
    }

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

    /// The catalog reads nothing of `runtime` but the sandbox: a runtime key of any shape, known
    /// or not, never refuses it or changes a record (only the hosts' definitions read them).
    #[test]
    fn no_runtime_key_but_the_sandbox_can_refuse_the_catalog() {
        let reference = build_ok(SOURCE);
        for key in [
            "instructions",
            "tier",
            "model",
            "reasoningEffort",
            "tools",
            "prioritize",
            "avoid",
            "someHostKey",
        ] {
            for value in ["read", "[read, write]", "{a: 1}", "3", "null", "[{x: [1]}]"] {
                let src = SOURCE.replace(
                    "      permissions: { sandbox: workspace-write }",
                    &format!(
                        "      permissions: {{ sandbox: workspace-write }}\n      {key}: {value}"
                    ),
                );
                let built = build(&src, &skills(), "2026-11-29T00:00:00Z".into())
                    .unwrap_or_else(|e| panic!("{key}: {value}: {e}"));
                assert_eq!(built, reference, "{key}: {value}");
            }
        }
    }

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
