//! GitHub Copilot CLI (`@github/copilot`): docs/host-protocols.md, "GitHub Copilot CLI". Every
//! fact here was observed on the real CLI 1.0.102 against the mock model server on 127.0.0.1
//! (`tests/e2e/copilot-probe.mjs`) or read in its package (`fixtures/contracts/copilot/`).
//!
//! The events are installed in the CLI's own camelCase form (`sessionStart`,
//! `userPromptSubmitted`): it is the form of its schema (`HookType`), help text and SDK, and the
//! one hook files arrived with, while the PascalCase aliases are a compatibility mapping that has
//! already changed once; the output is the same for both, so the aliases buy nothing. A
//! hand-written PascalCase file still routes (`SessionStart`/`UserPromptSubmit` are accepted
//! everywhere).

use super::*;

pub const SPEC: HostSpec = HostSpec {
    id: "copilot",
    display: "Copilot CLI",
    home: Some(HOME),
    observed_versions: &["1.0.102"],
    experimental: None,
    events: Events {
        session: "sessionStart",
        prompt: "userPromptSubmitted",
        registered: &[Event::SessionStart, Event::UserPromptSubmit],
        post_tool_use: false,
        prompt_per_model_call: false,
        session_context_on_prompt: false,
        // A resumed session (`--continue`) does not replay the sessionStart context: the
        // bootstrap must be sent again on `source: "resume"`.
        resume_replays_history: false,
    },
    payload: PayloadRules {
        // The user's text is `prompt`, as typed (a `subagentStart` hook's context may precede a
        // child's brief; a child's prompt never gets the `!agents` mandate anyway).
        user_text: verbatim,
        sample,
    },
    output: Output {
        // `hookSpecificOutput` is silently dropped; `{}` and an empty stdout are no-ops.
        shape: OutputShape::AdditionalContext,
        needs_json_noop: false,
        // No cap seen up to 1,100,000 characters: the hook's own cap decides.
        context_cap_chars: 10_000,
    },
    settings: Settings {
        // A file of our own: `uninstall` deletes it, no user setting is rewritten.
        project: ".github/hooks/sophia-hook.json",
        user: UserPath::HostHome(HOME, "hooks/sophia-hook.json"),
        layout: Layout::HookFile { version: 1 },
        handler: HandlerForm::BashPowershell,
        timeout_ms: false,
        // Matchers are not applied to these two events.
        session_matcher: SessionMatcher::None,
        description_on_create: false,
        allowed_root_keys: None,
        named_handlers: false,
        command_windows: false,
        command_is_powershell_on_windows: false,
        // Both scopes' handlers run: two sessionStart contexts both arrive.
        both_scopes: BothScopes::BothRun,
        comments: false,
        other_hook_files: &[".github/copilot/settings.json"],
    },
    // Repository hooks load only in a trusted folder: the folder or a parent in `trustedFolders` of
    // `$COPILOT_HOME/config.json` (JSON after `//` comment lines; `doctor` reads it, never writes
    // it), `--trust-folder`, or `COPILOT_ALLOW_ALL=true`.
    trust: Trust::TrustedFolderList {
        config: UserPath::HostHome(HOME, "config.json"),
        fix: "start `copilot` in the project once and answer \"Yes, and remember this folder\"; for `copilot -p` pass --trust-folder or set COPILOT_ALLOW_ALL=true",
    },
    tui: Some(Tui {
        name: "the Copilot CLI TUI",
        bang: "runs as a shell command (a leading space does not help)",
        bang_for_user: "runs as a shell command and never reaches the hook, even after a space",
        plain: "`copilot -p`",
        space_escapes: false,
    }),
    // Loaded into the instructions as a `<custom_instruction>` block (with a `CLAUDE.md` too).
    agents_md: AgentsMd::Always,
    skills: Skills {
        project: &[
            (".github/skills", true),
            (".agents/skills", true),
            (".claude/skills", true),
        ],
        walk_to_root: true,
        user: &[
            (UserPath::HostHome(HOME, "skills"), true),
            (UserPath::Home(".agents/skills"), true),
        ],
    },
    agents: Some(AgentRuntime {
        // Not `.copilot/agents/` (the original design's folder): the CLI does not read it.
        project_dir: ".github/agents",
        user_dir: UserPath::HostHome(HOME, "agents"),
        ext: ".agent.md",
        // `name`, `description`, `model` and `tools`, a YAML list the CLI enforces: the child is
        // offered only the listed tools the session's model has, and a name it lacks is dropped
        // without a word. The tool set depends on the model (1.0.102: `rg` and `apply_patch` for
        // gpt-5.4, `grep`, `edit` and `create` for claude-sonnet-4.5 and gemini-3-pro-preview), so
        // each abstract tool maps to the names of every family.
        format: AgentFormat::Markdown(Some(AgentTools {
            map: tools,
            read_only: &["view", "rg", "grep", "glob"],
            as_string: false,
        })),
        check_name: non_empty_name,
        project_needs_ack: false,
    }),
    delegation: Delegation {
        configured: |id| format!("Copilot CLI's task tool with agent_type=\"{id}\""),
        fallback: |id, read_only, _| {
            format!(
                "Copilot CLI's task tool with agent_type=\"{}\" (no {id} agent is installed), \
                 with a prompt that",
                if read_only {
                    "explore"
                } else {
                    "general-purpose"
                }
            )
        },
    },
    install_next: |scope| match scope {
        Scope::Project => {
            "next: Copilot CLI runs the repository's hooks only in a trusted folder — start `copilot` in the project once and answer \"Yes, and remember this folder\" (for `copilot -p`: `--trust-folder` or COPILOT_ALLOW_ALL=true)"
        }
        Scope::User => "next: nothing — Copilot CLI reads ~/.copilot/hooks/ by itself",
    },
    // The `copilot` CLI; `$COPILOT_HOME` (`~/.copilot`) holds its config.
    detect: Detect {
        executables: &["copilot"],
        folder: UserPath::HostHome(HOME, ""),
    },
    // host-plugins research §3 (1.0.102, run offline): `.plugin/plugin.json` is the first manifest
    // read, the marketplace `.github/plugin/marketplace.json` comes before `.claude-plugin/`, and a
    // manifest `hooks` path is the only hooks file run; `PLUGIN_ROOT` is set in the hook's
    // environment, and its cwd is the plugin folder (the hook takes the project from the payload's
    // `cwd`). The hook file is the one `install` writes (camelCase events, processed output).
    plugin: Some(PluginLayout {
        home: &Marketplace {
            plugin: "plugins/copilot",
            listing: ".github/plugin/marketplace.json",
            format: &RelativePath,
        },
        manifest: ".plugin/plugin.json",
        manifest_hooks: Some("hooks/hooks.json"),
        hooks: "hooks/hooks.json",
        handler: HandlerForm::BashPowershell,
        root: PluginRoot {
            posix: "$PLUGIN_ROOT",
            posix_sep: "/",
            powershell: "$env:PLUGIN_ROOT",
            powershell_sep: "\\",
        },
        agents: Some("agents"),
        // `copilot plugin install` writes Claude Code's keys into its own settings.
        enabled: &EnabledPlugins(&[PluginPlace::User(UserPath::HostHome(HOME, "settings.json"))]),
        remove: "copilot plugin uninstall sophia-hook@sophia-hook",
    }),
    // `mcpServers` in `$COPILOT_HOME/mcp-config.json` (what `/mcp add` writes).
    mcp: &[McpFile {
        place: PluginPlace::User(UserPath::HostHome(HOME, "mcp-config.json")),
        servers: &JsonServers("mcpServers"),
    }],
};

/// Copilot CLI 1.0.102's tool names for the abstract tools of the canonical roles (observed in
/// the requests of gpt-5.4 and claude-sonnet-4.5 sessions: docs/host-protocols.md).
fn tools(tool: &str) -> &'static [&'static str] {
    match tool {
        "read" => &["view"],
        "search" => &["rg", "grep", "glob"],
        "list" => &["glob"],
        "edit" | "write" => &["apply_patch", "edit", "create"],
        "test" | "shell" => &["bash", "read_bash", "stop_bash", "list_bash"],
        _ => &[],
    }
}

/// `$COPILOT_HOME`, default `~/.copilot`.
pub const HOME: HostHome = HostHome {
    var: "COPILOT_HOME",
    default: ".copilot",
};

/// The camelCase payload (no event name: `--event` carries it).
fn sample(event: Event, _wire: &str, cwd: &str, _run: &str) -> serde_json::Value {
    let mut p = serde_json::json!({"sessionId": "sophia-doctor", "timestamp": 0, "cwd": cwd});
    match event {
        Event::SessionStart => p["source"] = "new".into(),
        Event::UserPromptSubmit | Event::PostToolUse => p["prompt"] = SAMPLE_PROMPT.into(),
    }
    p
}
