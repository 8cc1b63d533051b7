//! Gemini CLI (`@google/gemini-cli`): docs/host-protocols.md, "Gemini CLI".

use super::*;

/// The SessionStart sources Gemini CLI sends; a lifecycle matcher must equal one of them.
pub const SESSION_SOURCES: [&str; 3] = ["startup", "resume", "clear"];

pub const SPEC: HostSpec = HostSpec {
    id: "gemini",
    display: "Gemini CLI",
    home: None,
    observed_versions: &["0.61.0"],
    experimental: None,
    events: Events {
        session: "SessionStart",
        prompt: "BeforeAgent",
        registered: &[Event::SessionStart, Event::UserPromptSubmit],
        post_tool_use: false,
        prompt_per_model_call: false,
        // Gemini CLI 0.61: `gemini -p` prepends SessionStart context to the user's prompt, and
        // its resume drops every saved user message that starts with `<hook_context>`, so the
        // first turn was lost on `--resume latest`; a TUI resume writes SessionStart context into
        // a new session file, not the resumed conversation. BeforeAgent context is appended
        // *after* the prompt (a part of its own in the same user message), which resume keeps:
        // so the session context rides with the first prompt whose conversation does not carry
        // it yet (docs/host-protocols.md).
        session_context_on_prompt: true,
        resume_replays_history: false,
    },
    payload: PayloadRules {
        user_text: strip_leading_hook_context,
        sample: snake_case_sample,
    },
    output: Output {
        shape: OutputShape::HookSpecific { strict: false },
        // Gemini CLI reads stderr when stdout is empty and shows plain text to the user.
        needs_json_noop: true,
        context_cap_chars: 10_000,
    },
    settings: Settings {
        project: ".gemini/settings.json",
        user: UserPath::Home(".gemini/settings.json"),
        layout: Layout::MatcherGroups,
        handler: HandlerForm::Shell,
        timeout_ms: true,
        // Gemini CLI compares lifecycle matchers as exact strings (0.61.0), so
        // `startup|resume|clear` would never match there: we write no matcher, which fires on
        // every source.
        session_matcher: SessionMatcher::Exact(&SESSION_SOURCES),
        description_on_create: false,
        allowed_root_keys: None,
        named_handlers: true,
        command_windows: false,
        // Gemini CLI 0.61.0 runs every hook through PowerShell on Windows (`getShellConfiguration`:
        // $ComSpec when it is PowerShell, else pwsh.exe, else powershell.exe, with `-Command`).
        command_is_powershell_on_windows: true,
        // Seen in tests/e2e/run with a project and a user entry of different commands: every
        // block arrives once.
        both_scopes: BothScopes::OneRuns,
        // Gemini CLI reads `//` and `/* */` comments in settings.json.
        comments: true,
        other_hook_files: &[],
    },
    trust: Trust::TrustedFolders,
    tui: Some(Tui {
        name: "the Gemini CLI TUI",
        bang: "enters shell mode",
        bang_for_user: "enters shell mode and never reaches the hook",
        plain: "`gemini -p`",
        space_escapes: true,
    }),
    // Gemini CLI loads `GEMINI.md`, never `AGENTS.md`.
    agents_md: AgentsMd::Never,
    skills: Skills {
        project: &[(".agents/skills", false), (".gemini/skills", false)],
        walk_to_root: false,
        user: &[
            (UserPath::Home(".agents/skills"), false),
            (UserPath::Home(".gemini/skills"), false),
        ],
    },
    agents: Some(AgentRuntime {
        project_dir: ".gemini/agents",
        user_dir: UserPath::Home(".gemini/agents"),
        ext: ".md",
        format: AgentFormat::Markdown(Some(AgentTools {
            map: tools,
            read_only: &[
                "read_file",
                "read_many_files",
                "grep_search",
                "glob",
                "list_directory",
            ],
            as_string: false,
        })),
        check_name,
        // Gemini CLI registers a project agent only once the user acknowledged it.
        project_needs_ack: true,
    }),
    delegation: Delegation {
        configured: |id| format!("Gemini CLI's invoke_agent with agent_name=\"{id}\""),
        fallback: |id, read_only, _| {
            format!(
                "Gemini CLI's invoke_agent with agent_name=\"{}\" (no {id} agent is installed), \
                 with a prompt that",
                if read_only {
                    "codebase_investigator"
                } else {
                    "generalist"
                }
            )
        },
    },
    install_next: |_| "next: Gemini CLI may warn once that the project's hooks changed; accept them",
    // The `gemini` CLI; `~/.gemini` holds its settings (Antigravity keeps its own folder inside it).
    detect: Detect {
        executables: &["gemini"],
        folder: UserPath::Home(".gemini"),
    },
    // host-plugins research §2 (0.61.0, run offline): an extension folder of its own
    // (`gemini-extension.json`; `hooks/hooks.json` is always read, in Gemini's format, so it cannot
    // share the marketplace folder), `agents/*.md`. There is no root variable in the environment:
    // Gemini substitutes `${extensionPath}` and `${/}` in the command text.
    plugin: Some(PluginLayout {
        home: &ExtensionFolder("gemini-extension"),
        manifest: "gemini-extension.json",
        manifest_hooks: None,
        hooks: "hooks/hooks.json",
        handler: HandlerForm::Shell,
        root: PluginRoot {
            posix: "${extensionPath}",
            posix_sep: "${/}",
            powershell: "${extensionPath}",
            powershell_sep: "${/}",
        },
        agents: Some("agents"),
        // `gemini extensions install` copies the folder here; `disable` records `!<path>`.
        enabled: &ExtensionDir {
            dir: UserPath::Home(".gemini/extensions"),
            manifest: "gemini-extension.json",
            enablement: "extension-enablement.json",
        },
        remove: "gemini extensions uninstall sophia-hook",
    }),
    // `mcpServers` in the user's and the project's `settings.json` (JSONC).
    mcp: &[
        McpFile {
            place: PluginPlace::User(UserPath::Home(".gemini/settings.json")),
            servers: &JsonServers("mcpServers"),
        },
        McpFile {
            place: PluginPlace::Project(".gemini/settings.json"),
            servers: &JsonServers("mcpServers"),
        },
    ],
};

/// A folder of its own under `--out`: Gemini CLI's extension, which always reads
/// `hooks/hooks.json` in its own format, so it cannot share the marketplace folder. Nothing lists
/// it; the user installs the folder itself.
#[derive(Debug)]
struct ExtensionFolder(&'static str);

impl PluginHome for ExtensionFolder {
    fn dir(&self, _marketplace: &str) -> String {
        self.0.to_owned()
    }

    fn listing(
        &self,
        _marketplace: &str,
        _about: &PluginAbout,
    ) -> Option<(String, serde_json::Value)> {
        None
    }

    fn install_own(&self, dir: &str, host: &str) -> Option<String> {
        Some(format!("install {dir} as a {host} extension"))
    }
}

/// The extension folder `<dir>/sophia-hook/` with this manifest in it, unless the host's
/// enablement file there (`extension-enablement.json`) disables it everywhere.
#[derive(Debug)]
struct ExtensionDir {
    dir: UserPath,
    manifest: &'static str,
    enablement: &'static str,
}

impl PluginEnablement for ExtensionDir {
    /// The manifest (only whether it can be read counts), then the enablement file.
    fn files(&self, name: &str) -> Vec<RecordFile> {
        vec![
            RecordFile {
                place: PluginPlace::User(self.dir),
                below: format!("{name}/{}", self.manifest),
                syntax: None,
            },
            RecordFile {
                place: PluginPlace::User(self.dir),
                below: self.enablement.to_owned(),
                syntax: Some(Syntax::Json),
            },
        ]
    }

    fn enabled(&self, name: &str, _id: &str, read: &[Read]) -> Option<usize> {
        let (manifest, enablement) = (read.first()?, read.get(1));
        if *manifest == Read::Missing {
            return None;
        }
        let disabled = enablement
            .and_then(Read::doc)
            .is_some_and(|doc| disabled_everywhere(doc, name));
        (!disabled).then_some(0)
    }
}

/// `extension-enablement.json`: `{"sophia-hook": {"overrides": [...]}}`, where an override
/// starting with `!` disables the extension under that path. Disabled everywhere when every
/// override is such a one (`gemini extensions disable sophia-hook`).
fn disabled_everywhere(doc: &serde_json::Value, name: &str) -> bool {
    let Some(overrides) = doc
        .get(name)
        .and_then(|e| e.get("overrides"))
        .and_then(serde_json::Value::as_array)
    else {
        return false;
    };
    !overrides.is_empty()
        && overrides
            .iter()
            .all(|o| o.as_str().is_some_and(|s| s.starts_with('!')))
}

/// Gemini CLI 0.61 requires a slug (`^[a-z0-9-_]+$`).
fn check_name(name: &str) -> Result<(), &'static str> {
    if !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_')
    {
        Ok(())
    } else {
        Err("Gemini CLI agent names are lowercase letters, digits, `-` and `_`")
    }
}

/// Gemini CLI tools for an abstract tool name (names read in Gemini CLI 0.61's tool registry).
fn tools(tool: &str) -> &'static [&'static str] {
    match tool {
        "read" => &["read_file", "read_many_files"],
        "search" => &["grep_search", "glob"],
        "list" => &["list_directory", "glob"],
        "edit" | "write" => &["replace", "write_file"],
        "test" | "shell" => &["run_shell_command"],
        _ => &[],
    }
}

/// Removes the `<hook_context>…</hook_context>\n\n` blocks Gemini CLI puts before the user's
/// text: its non-interactive mode (`gemini -p`) prepends the SessionStart context to the prompt
/// BeforeAgent receives. A block counts only when it starts the text, closes, and is followed by
/// a blank line; anything else is left as it is. Gemini escapes `<` and `>` inside the context,
/// so the first closing tag ends the block.
pub fn strip_leading_hook_context(prompt: &str) -> &str {
    const OPEN: &str = "<hook_context>";
    const CLOSE: &str = "</hook_context>";
    let mut rest = prompt;
    while let Some(inner) = rest.strip_prefix(OPEN) {
        let Some(end) = inner.find(CLOSE) else {
            break;
        };
        let after = &inner[end + CLOSE.len()..];
        match after.strip_prefix("\n\n") {
            Some(next) => rest = next,
            None => break,
        }
    }
    rest
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The extension counts when its manifest is there, unless every override of its entry in
    /// the enablement file disables it.
    #[test]
    fn the_extension_is_enabled_unless_disabled_everywhere() {
        let record = ExtensionDir {
            dir: UserPath::Home(".gemini/extensions"),
            manifest: "gemini-extension.json",
            enablement: "extension-enablement.json",
        };
        let files = record.files("sophia-hook");
        assert_eq!(files[0].below, "sophia-hook/gemini-extension.json");
        assert_eq!(files[1].below, "extension-enablement.json");
        let with = |doc| [Read::Present(None), Read::Present(Some(doc))];
        for (doc, want) in [
            (
                json!({"sophia-hook": {"overrides": ["/home/me/*"]}}),
                Some(0),
            ),
            (json!({"sophia-hook": {"overrides": ["!/home/me/*"]}}), None),
            (json!({"sophia-hook": {"overrides": []}}), Some(0)),
            (json!({"other": {"overrides": ["!/home/me/*"]}}), Some(0)),
        ] {
            assert_eq!(
                record.enabled("sophia-hook", "", &with(doc.clone())),
                want,
                "{doc}"
            );
        }
        assert_eq!(
            record.enabled("sophia-hook", "", &[Read::Missing, Read::Present(None)]),
            None
        );
    }
}
