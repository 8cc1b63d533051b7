// Generated from docs/agents/canonical-subagents.yaml by
// `SOPHIA_UPDATE_DEFAULTS=1 cargo test --lib embedded_default_agent_catalog_is_in_sync`.
// Do not edit.

use crate::stages::agents::StaticAgent;

pub const FINGERPRINT: &str =
    "sha256:859921a486d0fe9e51cefafbe014cfee733f79a8f27a2e55b5304d8b248953bc";
pub const GENERATED_AT: &str = "2026-11-30T11:17:01Z";

#[rustfmt::skip]
pub static AGENTS: &[StaticAgent] = &[
    StaticAgent {
        id: "scout",
        semantic_summary: "Read-only discovery: finds files, paths, configuration, constraints and facts the main agent needs, and reports them with their locations. Never decides and never edits.",
        routing_role: "discovery",
        task_phases: &["discovery"],
        capabilities: &["locate files, symbols and configuration", "list constraints and facts with their sources", "read tickets, docs and logs and summarise what they say"],
        not_for: &["decisions", "patches or edits", "final answers"],
        skill_affinities: &["mcp-docs-navigator", "mcp-git-mantis-workflow", "mcp-database-expert", "mcp-coldfusion-developer", "mcp-office-expert"],
        write_policy: "read-only",
    },
    StaticAgent {
        id: "technical_analyst",
        semantic_summary: "Read-only multi-source analysis: builds timelines, correlates tickets, commits, logs, data and environments, reconstructs causes and writes a decision brief for the main agent.",
        routing_role: "analysis",
        task_phases: &["analysis", "discovery"],
        capabilities: &["correlate tickets, commits, logs and data", "reconstruct timelines and root causes", "compare environments, schemas or repositories", "write a structured decision brief"],
        not_for: &["edits", "final decisions"],
        skill_affinities: &["mcp-technical-analyst", "mcp-git-mantis-workflow", "mcp-database-expert", "mcp-docs-navigator", "mcp-master-orchestrator"],
        write_policy: "read-only",
    },
    StaticAgent {
        id: "implementer",
        semantic_summary: "Workspace-write: applies one bounded patch with its tests once the analysis is clear and the main agent has decided what to change.",
        routing_role: "implementation",
        task_phases: &["implementation"],
        capabilities: &["apply a bounded, specified patch", "add or update the tests that cover it", "run the project's checks on the change"],
        not_for: &["design decisions", "coordinated multi-file refactors without supervision", "destructive or irreversible operations"],
        skill_affinities: &["mcp-coldfusion-developer", "mcp-database-expert", "mcp-office-expert", "skill-creator"],
        write_policy: "workspace-write",
    },
    StaticAgent {
        id: "code_reviewer",
        semantic_summary: "Read-only review of a diff: finds defects, risks, regressions and missing tests, and reports them by severity. Does not fix them.",
        routing_role: "review",
        task_phases: &["review"],
        capabilities: &["review a diff or a patch for defects and risks", "spot missing or weak tests", "check a change against the stated requirements"],
        not_for: &["edits", "final approval"],
        skill_affinities: &["mcp-git-mantis-workflow", "mcp-coldfusion-developer", "mcp-database-expert"],
        write_policy: "read-only",
    },
    StaticAgent {
        id: "test_writer",
        semantic_summary: "Workspace-write: writes tests and manual checklists from the evidence it is given, without widening the scope of the change.",
        routing_role: "test",
        task_phases: &["test"],
        capabilities: &["write unit, integration or UI tests for a given behaviour", "turn evidence into regression tests", "write manual test checklists"],
        not_for: &["production code changes", "widening scope"],
        skill_affinities: &["mcp-browser-automation", "mcp-coldfusion-developer", "mcp-database-expert", "mcp-office-expert"],
        write_policy: "workspace-write",
    },
];
