//! Agent availability: `configured | unknown | unavailable` per agent, computed from the runtime
//! agent definitions the hosts can see, stored in a local manifest, and overlaid on the catalog
//! to make the *effective* catalog the policy reads. Pure: the edge finds and reads the files.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::agents::catalog::AgentCatalog;

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

/// `~/.mcp-servers/agent-availability.json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Manifest {
    pub schema_version: u32,
    pub generated_at: String,
    pub catalog_fingerprint: Option<String>,
    pub agents: BTreeMap<String, Availability>,
}

/// Applies a manifest to a catalog, by agent id. A missing or different catalog fingerprint is a
/// warning, and the states still apply; ids the catalog does not know are ignored with a
/// warning. Returns the warnings.
pub fn overlay(catalog: &mut AgentCatalog, manifest: &Manifest) -> Vec<String> {
    let mut warnings = Vec::new();
    match &manifest.catalog_fingerprint {
        None => warnings.push("availability-manifest-without-fingerprint".to_owned()),
        Some(fp) if *fp != catalog.fingerprint => {
            warnings.push("availability-manifest-fingerprint-mismatch".to_owned())
        }
        Some(_) => {}
    }
    for (id, state) in &manifest.agents {
        match catalog.agents.iter_mut().find(|a| a.id == *id) {
            Some(agent) => agent.availability = *state,
            None => warnings.push(format!("availability-unknown-agent:{id}")),
        }
    }
    warnings
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agents::catalog::{AgentCatalog, AgentRecord};

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
            generated_at: "t".into(),
            catalog_fingerprint: Some(c.fingerprint.clone()),
            agents: BTreeMap::from([
                ("scout".to_owned(), Availability::Unavailable),
                ("ghost".to_owned(), Availability::Configured),
            ]),
        };
        assert_eq!(
            overlay(&mut c, &manifest),
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
            overlay(&mut c, &stale),
            ["availability-manifest-fingerprint-mismatch"]
        );
        assert_eq!(
            c.agents[1].availability,
            Availability::Configured,
            "states still apply"
        );
        let none = Manifest {
            catalog_fingerprint: None,
            agents: BTreeMap::new(),
            ..manifest
        };
        assert_eq!(
            overlay(&mut catalog(), &none),
            ["availability-manifest-without-fingerprint"]
        );
    }

    #[test]
    fn manifest_json_shape() {
        let json = r#"{"schemaVersion":1,"generatedAt":"2026-11-29T00:00:00Z","catalogFingerprint":"sha256:x","agents":{"implementer":"unavailable","scout":"configured"}}"#;
        let m: Manifest = serde_json::from_str(json).unwrap();
        assert_eq!(m.agents["implementer"], Availability::Unavailable);
        assert_eq!(serde_json::to_string(&m).unwrap(), json);
    }
}
