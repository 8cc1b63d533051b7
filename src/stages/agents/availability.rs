//! Agent availability: `configured | unknown | unavailable` per agent, computed from the runtime
//! agent definitions the hosts can see, stored in a local manifest, and overlaid on the catalog
//! to make the *effective* catalog the policy reads. Pure: the edge finds and reads the files.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::stages::agents::catalog::AgentCatalog;
/// Defined beside the catalog record that carries it, so the catalog needs nothing from here.
use crate::stages::agents::catalog::Availability;

/// `~/.mcp-servers/agent-availability.json`. Only `agents` is required: a hand-written manifest
/// such as `{"schemaVersion":1,"agents":{"code_reviewer":"unavailable"}}` is read, and keys
/// this version does not know are ignored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Manifest {
    #[serde(default = "schema_one")]
    pub schema_version: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generated_at: Option<String>,
    #[serde(default)]
    pub catalog_fingerprint: Option<String>,
    /// The state per agent over every host (`unavailable` here applies everywhere).
    pub agents: BTreeMap<String, Availability>,
    /// The state per host and agent, when known (`availability --write` records it).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub hosts: BTreeMap<String, BTreeMap<String, Availability>>,
}

fn schema_one() -> u32 {
    1
}

/// Applies a manifest to a catalog, by agent id, for `host` when given: the host's own state
/// when the manifest has one, else the state over every host; `unavailable` over every host
/// always wins. A manifest computed for another catalog (a different fingerprint) is not applied
/// at all, only warned about (`docs/security.md` `### I3`); one without a fingerprint (written by
/// hand) applies, with a warning; ids the catalog does not know are ignored with a warning.
/// Returns the warnings.
pub fn overlay(catalog: &mut AgentCatalog, manifest: &Manifest, host: Option<&str>) -> Vec<String> {
    let mut warnings = Vec::new();
    match &manifest.catalog_fingerprint {
        None => warnings.push("availability-manifest-without-fingerprint".to_owned()),
        Some(fp) if *fp != catalog.fingerprint => {
            warnings.push("availability-manifest-fingerprint-mismatch".to_owned());
            return warnings;
        }
        Some(_) => {}
    }
    let per_host = host.and_then(|h| manifest.hosts.get(h));
    for (id, state) in &manifest.agents {
        match catalog.agents.iter_mut().find(|a| a.id == *id) {
            Some(agent) => {
                agent.availability = match per_host.and_then(|m| m.get(id)) {
                    Some(_) if *state == Availability::Unavailable => Availability::Unavailable,
                    Some(host_state) => *host_state,
                    None => *state,
                }
            }
            None => warnings.push(format!("availability-unknown-agent:{id}")),
        }
    }
    warnings
}

/// The agent definitions a host can spawn here, by scope: the names in the project's agent folder
/// and in the user's. Which of them a catalog's role may bind to is decided here only
/// ([`HostDefinitions::bindable`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HostDefinitions {
    pub project: std::collections::BTreeSet<String>,
    /// The project's definitions that are byte for byte what `agents sync` writes there for
    /// Sophia's own roles ([`crate::stages::agents::runtime::is_synced_embedded`]): the only project
    /// definitions Sophia's embedded roles bind to.
    pub project_synced: std::collections::BTreeSet<String>,
    pub user: std::collections::BTreeSet<String>,
    /// The scopes whose folder held more definitions than are looked at (`project`, `user`).
    pub cut: Vec<&'static str>,
}

impl HostDefinitions {
    /// The names a catalog's roles bind to (made `configured`, named to the model as the agent
    /// type to spawn, with the role's write policy). A catalog the project wrote (its canonical
    /// source or generated catalog) binds to the project's definitions only: a project role named
    /// like the user's own agent must not resolve to that agent and its tools (issue 29: the hint
    /// said `read-only` and named the user's agent with Bash, Edit and Write). Sophia's embedded
    /// catalog binds to the user's own definitions and, in the project, only to the definitions
    /// `agents sync` wrote for those very roles: a repository's own `code_reviewer.md` with
    /// Bash and Write is not the read-only reviewer the hint would call it (blind pass case 09).
    pub fn bindable(&self, catalog_from_project: bool) -> std::collections::BTreeSet<String> {
        binding_scopes(catalog_from_project)
            .iter()
            .flat_map(|scope| match scope {
                DefinitionScope::Project => &self.project,
                DefinitionScope::ProjectSynced => &self.project_synced,
                DefinitionScope::User => &self.user,
            })
            .cloned()
            .collect()
    }
}

/// The scopes whose agent definitions a catalog's roles bind to: the one rule the hook
/// ([`HostDefinitions::bindable`]) and the tools (`availability`, `report`, through
/// `edge::agents::definition_dirs`) share. A catalog the project wrote: the project's only.
/// Sophia's embedded catalog: the project's definitions `agents sync` wrote for its roles, and
/// the user's.
pub fn binding_scopes(catalog_from_project: bool) -> &'static [DefinitionScope] {
    if catalog_from_project {
        &[DefinitionScope::Project]
    } else {
        &[DefinitionScope::ProjectSynced, DefinitionScope::User]
    }
}

/// Where an agent definition lives: the project's folder or the user's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DefinitionScope {
    /// Any definition in the project's folder.
    Project,
    /// A definition in the project's folder that is exactly what `agents sync` writes there for
    /// an embedded role ([`crate::stages::agents::runtime::is_synced_embedded`]).
    ProjectSynced,
    User,
}

/// Narrows availability to what `host` can spawn: an agent that is not unavailable is
/// `configured` exactly when the host has a runtime definition of that name (`defined`), and
/// `unknown` otherwise, so a hint never names a type the host lacks.
pub fn apply_host_definitions(
    catalog: &mut AgentCatalog,
    defined: &std::collections::BTreeSet<String>,
) {
    for agent in &mut catalog.agents {
        if agent.availability != Availability::Unavailable {
            agent.availability = if defined.contains(&agent.id) {
                Availability::Configured
            } else {
                Availability::Unknown
            };
        }
    }
}

#[cfg(test)]
mod tests {
    // Tests parse what the code under test printed.
    #![allow(clippy::disallowed_methods)]
    use super::*;
    use crate::stages::agents::catalog::{AgentCatalog, AgentRecord};

    fn catalog() -> AgentCatalog {
        let record = |id: &str| AgentRecord {
            id: id.into(),
            kind: "agent".into(),
            semantic_summary: "s".into(),
            routing_role: "analysis".into(),
            task_phases: vec!["analysis".into()],
            capabilities: vec![],
            not_for: vec![],
            skill_affinities: vec![],
            write_policy: "read-only".into(),
            availability: Availability::Unknown,
        };
        let mut c = AgentCatalog {
            schema_version: 1,
            generated_at: "t".into(),
            fingerprint: String::new(),
            agents: vec![record("scout"), record("implementer")],
        };
        c.fingerprint = c.compute_fingerprint();
        c
    }

    #[test]
    fn overlay_applies_states_by_id_and_warns() {
        let mut c = catalog();
        let manifest = Manifest {
            schema_version: 1,
            generated_at: Some("t".into()),
            hosts: BTreeMap::new(),
            catalog_fingerprint: Some(c.fingerprint.clone()),
            agents: BTreeMap::from([
                ("scout".to_owned(), Availability::Unavailable),
                ("ghost".to_owned(), Availability::Configured),
            ]),
        };
        assert_eq!(
            overlay(&mut c, &manifest, None),
            ["availability-unknown-agent:ghost"]
        );
        assert_eq!(c.agents[0].availability, Availability::Unavailable);
        assert_eq!(c.agents[1].availability, Availability::Unknown);

        let mut c = catalog();
        let stale = Manifest {
            catalog_fingerprint: Some("sha256:old".into()),
            agents: BTreeMap::from([("implementer".to_owned(), Availability::Configured)]),
            ..manifest.clone()
        };
        assert_eq!(
            overlay(&mut c, &stale, None),
            ["availability-manifest-fingerprint-mismatch"]
        );
        assert_eq!(
            c.agents[1].availability,
            Availability::Unknown,
            "a manifest for another catalog is not applied"
        );
        let none = Manifest {
            catalog_fingerprint: None,
            agents: BTreeMap::new(),
            ..manifest
        };
        assert_eq!(
            overlay(&mut catalog(), &none, None),
            ["availability-manifest-without-fingerprint"]
        );
    }

    #[test]
    fn hand_written_manifests_are_read() {
        for json in [
            r#"{"schemaVersion":1,"agents":{"scout":"unavailable"}}"#,
            r#"{"agents":{"scout":"unavailable"},"note":"mine","extra":{"a":1}}"#,
        ] {
            let m: Manifest = serde_json::from_str(json).expect(json);
            let mut c = catalog();
            assert_eq!(
                overlay(&mut c, &m, Some("codex")),
                ["availability-manifest-without-fingerprint"]
            );
            assert_eq!(c.agents[0].availability, Availability::Unavailable);
        }
        for bad in [
            r#"{"schemaVersion":1}"#,
            r#"{"agents":["scout"]}"#,
            r#"{"agents":{"scout":"maybe"}}"#,
        ] {
            assert!(serde_json::from_str::<Manifest>(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn states_per_host() {
        let json = r#"{"agents":{"scout":"configured","implementer":"unavailable"},
            "hosts":{"codex":{"scout":"configured","implementer":"configured"},"claude":{"scout":"unknown"}}}"#;
        let m: Manifest = serde_json::from_str(json).unwrap();
        let state = |host: Option<&str>, i: usize| {
            let mut c = catalog();
            overlay(&mut c, &m, host);
            c.agents[i].availability
        };
        assert_eq!(state(Some("codex"), 0), Availability::Configured);
        assert_eq!(state(Some("claude"), 0), Availability::Unknown);
        assert_eq!(state(Some("gemini"), 0), Availability::Configured);
        assert_eq!(
            state(Some("codex"), 1),
            Availability::Unavailable,
            "unavailable everywhere wins"
        );
        let mut c = catalog();
        c.agents[1].availability = Availability::Unavailable;
        apply_host_definitions(&mut c, &["implementer".to_owned()].into());
        assert_eq!(c.agents[0].availability, Availability::Unknown);
        assert_eq!(c.agents[1].availability, Availability::Unavailable);
        let mut c = catalog();
        apply_host_definitions(&mut c, &["scout".to_owned()].into());
        assert_eq!(c.agents[0].availability, Availability::Configured);
    }

    #[test]
    fn manifest_json_shape() {
        let json = r#"{"schemaVersion":1,"generatedAt":"2026-11-29T00:00:00Z","catalogFingerprint":"sha256:x","agents":{"implementer":"unavailable","scout":"configured"}}"#;
        let m: Manifest = serde_json::from_str(json).unwrap();
        assert_eq!(m.agents["implementer"], Availability::Unavailable);
        assert_eq!(serde_json::to_string(&m).unwrap(), json);
    }
}
