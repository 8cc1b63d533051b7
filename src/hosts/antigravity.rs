//! Google Antigravity (`agy`), experimental: built from the hooks guide and the schema embedded
//! in the engine, not yet run in a real Antigravity host (docs/host-protocols.md, "Antigravity").

use super::*;

/// Antigravity's hooks file is keyed by hook name; this is ours.
pub const HOOK_NAME: &str = "sophia-hook";

pub const SPEC: HostSpec = HostSpec {
    id: "antigravity",
    display: "Antigravity",
    home: None,
    observed_versions: &["engine 0.1.22 (read, not run)"],
    experimental: Some(Experimental {
        doctor: "experimental: built from the hooks guide and schema inside the Antigravity engine, not yet run in a real Antigravity host",
        doctor_fix: "test that the context reaches the model on your `agy --version`",
    }),
    install_next: |_| "EXPERIMENTAL: built from the hooks guide and schema inside the Antigravity engine, not yet run in a real Antigravity host; check `agy --version`, then send a `!quick` prompt and look for `contextMode=light` in the agent's context (`SOPHIA_DEBUG=1` logs each run on stderr; `sophia-hook doctor --host antigravity` checks the file)",
    events: Events {
        session: "SessionStart",
        prompt: "PreInvocation",
        registered: &[Event::SessionStart, Event::UserPromptSubmit],
        post_tool_use: false,
        // PreInvocation fires before every model call of a turn.
        prompt_per_model_call: true,
        session_context_on_prompt: false,
        resume_replays_history: false,
    },
    payload: PayloadRules {
        user_text: verbatim,
        sample,
    },
    output: Output {
        shape: OutputShape::InjectSteps,
        needs_json_noop: true,
        context_cap_chars: 10_000,
    },
    settings: Settings {
        project: ".agents/hooks.json",
        user: UserPath::Home(".gemini/config/hooks.json"),
        layout: Layout::NamedEntry(HOOK_NAME),
        handler: HandlerForm::Shell,
        timeout_ms: false,
        session_matcher: SessionMatcher::None,
        description_on_create: false,
        allowed_root_keys: None,
        named_handlers: false,
        command_windows: false,
        command_is_powershell_on_windows: false,
        both_scopes: BothScopes::OneRuns,
        comments: false,
        other_hook_files: &[],
    },
    trust: Trust::None,
    tui: None,
    // Antigravity's context files are not verified; the hook adds nothing there.
    agents_md: AgentsMd::Always,
    skills: Skills {
        project: &[(".agent/skills", false)],
        walk_to_root: false,
        user: &[(UserPath::Home(".gemini/antigravity/skills"), false)],
    },
    agents: None,
    delegation: Delegation {
        configured: |id| format!("the host's subagent tool, naming \"{id}\""),
        fallback: |_, _, _| "the host's own subagent mechanism, with a task that".to_owned(),
    },
    // The `agy` CLI; its own folder under `~/.gemini` (its skills live in `antigravity/skills`).
    detect: Detect {
        executables: &["agy"],
        folder: UserPath::Home(".gemini/antigravity"),
    },
    // No plugin system sophia-hook ships for.
    plugin: None,
    // `mcpServers` in the agent's `mcp_config.json`.
    mcp: &[McpFile {
        place: PluginPlace::User(UserPath::Home(".gemini/antigravity/mcp_config.json")),
        servers: &JsonServers("mcpServers"),
    }],
};

/// Antigravity sends no event name (the command line carries it) and the user's text as
/// `lastUserInput`. `run` makes the conversation id fresh per run: the hook injects once per
/// turn and remembers the turns it served, so a fixed id would get `{}` from the second doctor
/// run on.
fn sample(event: Event, _wire: &str, cwd: &str, run: &str) -> serde_json::Value {
    let conversation = format!("sophia-doctor-{run}");
    let mut p = serde_json::json!({"conversationId": conversation, "workspacePaths": [cwd], "modelName": "auto"});
    if event == Event::UserPromptSubmit {
        p["lastUserInput"] = SAMPLE_PROMPT.into();
        // The turn's first model call: protojson omits `invocationNum` 0 and `initialNumSteps` 0.
    }
    p
}
