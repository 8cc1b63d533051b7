//! Claude Code (`@anthropic-ai/claude-code`): docs/host-protocols.md, "Claude Code".

use super::*;

/// Claude Code's delegation tool as the host names it: `Agent` in the versions the suite runs
/// (2.1.328 offers `Agent`, no `Task`), `Task` in older ones, which still accept it. The hook
/// cannot see the host's version, so the hint gives the current name first and the old one after.
const AGENT_TOOL: &str = "Agent tool (Task in older versions)";

pub const SPEC: HostSpec = HostSpec {
    id: "claude",
    display: "Claude Code",
    home: None,
    observed_versions: &["2.1.328", "2.1.332"],
    experimental: None,
    events: Events {
        session: "SessionStart",
        prompt: "UserPromptSubmit",
        // Also `PostToolUse` for `ExitPlanMode`, where the "Exit plan mode?" dialog approves a
        // plan without a prompt (the planned delegation is carried forward there).
        registered: &[
            Event::SessionStart,
            Event::UserPromptSubmit,
            Event::PostToolUse,
        ],
        post_tool_use: true,
        prompt_per_model_call: false,
        session_context_on_prompt: false,
        resume_replays_history: false,
    },
    payload: PayloadRules {
        user_text: verbatim,
        sample: snake_case_sample,
    },
    output: Output {
        shape: &output::HookSpecific { strict: false },
        needs_json_noop: false,
        context_cap_units: 10_000,
    },
    settings: SettingsFile {
        project: ".claude/settings.json",
        user: UserPath::Home(".claude/settings.json"),
        layout: &MatcherGroups,
        handler: &ProgramArgs,
        timeout_ms: false,
        session_matcher: &Regex("startup|resume|clear|compact"),
        description_on_create: false,
        allowed_root_keys: None,
        named_handlers: false,
        command_windows: false,
        command_is_powershell_on_windows: false,
        // Both scopes' hooks run, one entry each, unless they are the same command (seen in
        // tests/e2e/run: a bare `sophia-hook` at project scope and an absolute path at user scope
        // inject every block twice; the same command twice, once).
        both_scopes: BothScopes::BothRunUnlessSameCommand,
        comments: false,
        other_hook_files: &[".claude/settings.local.json"],
    },
    trust: None,
    tui: Some(Tui {
        name: "the Claude Code TUI",
        bang: "enters bash mode",
        bang_for_user: "enters bash mode: the hook is skipped, while the command and its output do reach the model",
        plain: "`claude -p` and the IDE extensions",
        space_escapes: true,
    }),
    // Claude Code 2.1 loads `AGENTS.md` only when there is no `CLAUDE.md` (with one, it loads
    // `CLAUDE.md` alone).
    agents_md: AgentsMd::UnlessOwnDoc("CLAUDE.md"),
    skills: Skills {
        project: &[(".claude/skills", false)],
        walk_to_root: true,
        user: &[(UserPath::Home(".claude/skills"), false)],
    },
    agents: Some(AgentRuntime {
        project_dir: ".claude/agents",
        user_dir: UserPath::Home(".claude/agents"),
        ext: ".md",
        format: &agent_file::Markdown {
            tools: Some(AgentTools {
                map: tools,
                read_only: &["Read", "Grep", "Glob"],
                as_string: true,
            }),
        },
        check_name,
        project_ack: None,
    }),
    delegation: Delegation {
        configured: |id| format!("Claude Code's {AGENT_TOOL} with subagent_type=\"{id}\""),
        fallback: |id, read_only, role| {
            format!(
                "Claude Code's {AGENT_TOOL} with subagent_type=\"{}\" (no {id} subagent \
                 is installed), with a prompt that",
                if read_only && matches!(role, "discovery" | "analysis") {
                    "Explore"
                } else {
                    "general-purpose"
                }
            )
        },
    },
    install_next: |_| "next: nothing — Claude Code picks the settings up by itself",
    // The `claude` CLI; `~/.claude` holds its settings.
    detect: Detect {
        executables: &["claude"],
        folder: UserPath::Home(".claude"),
    },
    // host-plugins research §1 (2.1.332, run offline): `.claude-plugin/plugin.json`, the hooks in
    // `hooks/hooks.json` (loaded by itself), `agents/*.md`; `CLAUDE_PLUGIN_ROOT` is substituted in
    // a hook's command and set in its environment (a plugin's `bin/` is on PATH for the Bash tool
    // only, not for hooks).
    plugin: Some(PluginLayout {
        home: &Marketplace {
            plugin: "plugins/claude",
            listing: ".claude-plugin/marketplace.json",
            format: &RelativePath,
        },
        manifest: ".claude-plugin/plugin.json",
        manifest_hooks: None,
        hooks: "hooks/hooks.json",
        handler: &Shell,
        root: PluginRoot {
            posix: "${CLAUDE_PLUGIN_ROOT}",
            posix_sep: "/",
            powershell: "${CLAUDE_PLUGIN_ROOT}",
            powershell_sep: "/",
        },
        agents: Some("agents"),
        // `claude plugin install` at user, project or local scope.
        enabled: &EnabledPlugins(&[
            PluginPlace::User(UserPath::Home(".claude/settings.json")),
            PluginPlace::Project(".claude/settings.json"),
            PluginPlace::Project(".claude/settings.local.json"),
        ]),
        remove: "claude plugin uninstall sophia-hook@sophia-hook",
        // Observed (2.1.332, `tests/e2e/run plugin`): `claude plugin marketplace add DIR` records
        // `{"source": "directory", "path": DIR}` under `extraKnownMarketplaces` in the user's
        // settings and in `plugins/known_marketplaces.json`; `claude plugin install` copies the
        // plugin to `plugins/cache/`, but a directory marketplace's plugin is read in place
        // (`claude plugin list --json`: "readFromFolder"; its hooks ran from DIR). A second
        // `marketplace add` of another DIR under the same name points the marketplace there.
        source: &DirectoryMarketplace {
            cli: "claude",
            settings: UserPath::Home(".claude/settings.json"),
            known: Some(UserPath::Home(".claude/plugins/known_marketplaces.json")),
            installed: Some(UserPath::Home(".claude/plugins/installed_plugins.json")),
            plugin: "plugins/claude",
            add_repoints: true,
        },
    }),
    // Claude Code's MCP scopes (`claude mcp add --scope user|local|project`): `~/.claude.json`
    // (user, and local under `projects.<folder>`), and the project's `.mcp.json`.
    mcp: &[
        McpFile {
            place: PluginPlace::User(UserPath::Home(".claude.json")),
            servers: &UserJson,
        },
        McpFile {
            place: PluginPlace::Project(".mcp.json"),
            servers: &JsonServers("mcpServers"),
        },
    ],
    // Observed (2.1.332, `tests/e2e/run --env-probe`): the `env` of the project's settings and
    // local settings reaches every hook; a project `.env` does not.
    project_env: &[
        ProjectEnv::SettingsEnv(".claude/settings.json"),
        ProjectEnv::SettingsEnv(".claude/settings.local.json"),
    ],
    transcript: Transcript {
        file: TranscriptFile::Payload,
        layout: TranscriptLayout::Lines,
        grammar: &ClaudeTranscript,
        builtin_agents: &[
            "general-purpose",
            "Explore",
            "Plan",
            "statusline-setup",
            "output-style-setup",
        ],
        sees_spawns: true,
    },
};

/// Claude Code's transcript (JSONL at `transcript_path`): the model's tool calls are the
/// `tool_use` items of an `assistant` record's `message.content`; `Skill` loads the skill
/// `input.skill`, `Task` (`Agent` since 2.1) spawns `input.subagent_type` (`general-purpose` when
/// left out). A subagent's own records (`isSidechain: true`) are its turn, not the model's.
#[derive(Debug)]
pub struct ClaudeTranscript;

impl TranscriptGrammar for ClaudeTranscript {
    fn markers(&self) -> &'static [&'static str] {
        &["\"type\":\"tool_use\""]
    }

    fn record(&self, record: &serde_json::Value, seen: &mut dyn Seen) {
        if str_at(record, &["type"]) != Some("assistant")
            || record
                .get("isSidechain")
                .and_then(serde_json::Value::as_bool)
                == Some(true)
        {
            return;
        }
        let Some(content) = record
            .get("message")
            .and_then(|m| m.get("content"))
            .and_then(serde_json::Value::as_array)
        else {
            return;
        };
        for item in content {
            if str_at(item, &["type"]) != Some("tool_use") {
                continue;
            }
            match str_at(item, &["name"]) {
                Some("Skill") => {
                    if let Some(name) = str_at(item, &["input", "skill"]) {
                        seen.skill(name);
                    }
                }
                Some("Task" | "Agent") => seen.spawned(
                    str_at(item, &["input", "subagent_type"]).unwrap_or("general-purpose"),
                ),
                _ => {}
            }
        }
    }
}

/// Claude Code 2.1 refuses a leading `-`, a `:` and more than 256 characters.
fn check_name(name: &str) -> Result<(), &'static str> {
    if !name.is_empty() && !name.starts_with('-') && !name.contains(':') && name.len() <= 256 {
        Ok(())
    } else {
        Err("Claude Code agent names must not start with `-`, contain `:` or exceed 256 characters")
    }
}

/// Claude Code tools for an abstract tool name.
fn tools(tool: &str) -> &'static [&'static str] {
    match tool {
        "read" => &["Read"],
        "search" => &["Grep", "Glob"],
        "list" => &["Glob"],
        "edit" | "write" => &["Edit", "Write"],
        "test" | "shell" => &["Bash"],
        _ => &[],
    }
}

/// Claude Code's exec form in its settings: `command` is the program and `args` its arguments,
/// which the host runs with no shell, so no quoting of the path can go wrong.
#[derive(Debug)]
pub struct ProgramArgs;

impl HandlerForm for ProgramArgs {
    fn handler(&self, lines: &HandlerLines<'_>, _: &SettingsFile) -> serde_json::Value {
        serde_json::json!({
            "type": "command",
            "command": lines.program,
            "args": self.exec_args(lines.host, lines.event),
            "timeout": lines.timeout,
        })
    }

    fn exec(&self) -> bool {
        true
    }
}

/// `~/.claude.json`: the user's `mcpServers`, and the local ones under
/// `projects.<folder>.mcpServers` for the folder Claude Code was started in, which is the working
/// folder or one above it, inside the project. The file holds much else (every project's state):
/// only those keys are kept, the rest skipped without being built.
#[derive(Debug)]
struct UserJson;

impl McpServers for UserJson {
    fn skim(&self) -> Option<JsonSkim> {
        Some(JsonSkim {
            root: &["mcpServers"],
            each: Some(("projects", &["mcpServers"])),
        })
    }

    fn servers(&self, doc: &serde_json::Value, cwd: &Path, root: &Path) -> Vec<McpEntry> {
        let mut out = json_servers(doc.get("mcpServers"));
        if let Some(projects) = doc.get("projects").and_then(serde_json::Value::as_object) {
            for folder in cwd.ancestors() {
                if let Some(project) = folder.to_str().and_then(|f| projects.get(f)) {
                    out.extend(json_servers(project.get("mcpServers")));
                }
                if folder == root {
                    break;
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The user's servers, then those of the projects whose folder is the working folder or one
    /// above it inside the project; a folder above the root or beside it adds none.
    #[test]
    fn user_json_lists_the_users_and_the_local_servers_of_the_folders_up_to_the_root() {
        let doc = json!({
            "mcpServers": {"a": {"command": "node", "args": ["x"]}},
            "projects": {
                "/p": {"mcpServers": {"b": {}}},
                "/p/sub": {"mcpServers": {"c": {"disabled": true}, "e": {}}},
                "/": {"mcpServers": {"above-root": {}}},
                "/other": {"mcpServers": {"d": {}}},
            },
        });
        let got = UserJson.servers(&doc, Path::new("/p/sub"), Path::new("/p"));
        let names: Vec<&str> = got.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["a", "e", "b"]);
        assert_eq!(got[0].1, ["node", "x"]);
        // What the skim leaves of a file without the keys: nulls and an empty object.
        let bare = json!({"mcpServers": null, "projects": {}});
        assert!(
            UserJson
                .servers(&bare, Path::new("/p"), Path::new("/p"))
                .is_empty()
        );
    }
}
