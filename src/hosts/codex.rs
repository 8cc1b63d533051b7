//! OpenAI Codex CLI (`@openai/codex`): docs/host-protocols.md, "Codex CLI".

use super::*;

/// `$CODEX_HOME`, default `~/.codex`.
pub const HOME: HostHome = HostHome {
    var: "CODEX_HOME",
    default: ".codex",
};

pub const SPEC: HostSpec = HostSpec {
    id: "codex",
    display: "Codex",
    home: Some(HOME),
    observed_versions: &["0.169.0", "0.171.0"],
    experimental: None,
    events: Events {
        session: "SessionStart",
        prompt: "UserPromptSubmit",
        registered: &[Event::SessionStart, Event::UserPromptSubmit],
        post_tool_use: false,
        prompt_per_model_call: false,
        session_context_on_prompt: false,
        // `codex exec resume` and `codex resume` replay the whole thread with its developer
        // messages on `source=resume`; after `compact` the history is a summary and `clear`
        // empties it, so those get the bootstrap again.
        resume_replays_history: true,
    },
    payload: PayloadRules {
        user_text: verbatim,
        sample: snake_case_sample,
    },
    output: Output {
        // Codex rejects the whole output for one unknown key.
        shape: OutputShape::HookSpecific { strict: true },
        needs_json_noop: false,
        // Codex spills above ~2,500 tokens; Claude Code's 10,000 characters keeps us inside it.
        context_cap_chars: 10_000,
    },
    settings: Settings {
        project: ".codex/hooks.json",
        user: UserPath::HostHome(HOME, "hooks.json"),
        layout: Layout::MatcherGroups,
        handler: HandlerForm::Shell,
        timeout_ms: false,
        session_matcher: SessionMatcher::Regex("startup|resume|clear|compact"),
        description_on_create: true,
        allowed_root_keys: Some(&["description", "hooks"]),
        named_handlers: false,
        command_windows: true,
        command_is_powershell_on_windows: false,
        both_scopes: BothScopes::BothRun,
        comments: false,
        other_hook_files: &[],
    },
    trust: Trust::HandlerHashes {
        config: UserPath::HostHome(HOME, "config.toml"),
    },
    tui: Some(Tui {
        name: "the Codex TUI",
        bang: "runs as a shell command",
        bang_for_user: "runs as a shell command and never reaches the hook",
        plain: "`codex exec`, the IDE extension and the app",
        space_escapes: true,
    }),
    agents_md: AgentsMd::Always,
    skills: Skills {
        project: &[(".agents/skills", true), (".codex/skills", true)],
        walk_to_root: true,
        user: &[
            (UserPath::Home(".agents/skills"), true),
            (UserPath::HostHome(HOME, "skills"), true),
        ],
    },
    agents: Some(AgentRuntime {
        project_dir: ".codex/agents",
        user_dir: UserPath::HostHome(HOME, "agents"),
        ext: ".toml",
        format: AgentFormat::CodexToml,
        check_name: non_empty_name,
        project_needs_ack: false,
    }),
    delegation: Delegation {
        configured: |id| format!("Codex's spawn_agent with agent_type=\"{id}\""),
        fallback: |_, _, _| {
            "Codex's spawn_agent without agent_type (none is installed for this role), \
             with a message that"
                .to_owned()
        },
    },
    install_next: |scope| match scope {
        Scope::Project => {
            "next: open the Codex TUI in the project, trust the folder (Codex ignores .codex/hooks.json in an untrusted folder), then trust the two sophia-hook entries once with /hooks — Codex skips untrusted hooks silently, and `codex exec` never asks (re-trust after every change of the command line)"
        }
        Scope::User => {
            "next: open the Codex TUI and trust the two sophia-hook entries once with /hooks — Codex skips untrusted hooks silently, and `codex exec` never asks (re-trust after every change of the command line)"
        }
    },
    // The `codex` CLI; `$CODEX_HOME` (`~/.codex`) holds its config and hooks.
    detect: Detect {
        executables: &["codex"],
        folder: UserPath::HostHome(HOME, ""),
    },
    // host-plugins research §4 (0.171.0, run offline): `.codex-plugin/plugin.json` is read first
    // (before `.claude-plugin/`), its `hooks` path replaces `hooks/hooks.json`, the file has the
    // shape of `hooks.json`; `PLUGIN_ROOT` is set in the hook's environment. No plugin agents.
    // Plugin hooks, too, run only once trusted in `/hooks`.
    plugin: Some(PluginLayout {
        home: &Marketplace {
            plugin: "plugins/codex",
            listing: ".agents/plugins/marketplace.json",
            format: &LocalObject,
        },
        manifest: ".codex-plugin/plugin.json",
        manifest_hooks: Some("./hooks/hooks.json"),
        hooks: "hooks/hooks.json",
        handler: HandlerForm::Shell,
        root: PluginRoot {
            posix: "${PLUGIN_ROOT}",
            posix_sep: "/",
            powershell: "$env:PLUGIN_ROOT",
            powershell_sep: "\\",
        },
        agents: None,
        // `codex plugin add` writes `[plugins."sophia-hook@sophia-hook"] enabled = true`.
        enabled: &TomlPlugins(UserPath::HostHome(HOME, "config.toml")),
        remove: "codex plugin remove sophia-hook@sophia-hook",
    }),
    // `[mcp_servers.<name>]` in the user's `config.toml`, and in a trusted project's
    // `.codex/config.toml`.
    mcp: &[
        McpFile {
            place: PluginPlace::User(UserPath::HostHome(HOME, "config.toml")),
            servers: &TomlServers("mcp_servers"),
        },
        McpFile {
            place: PluginPlace::Project(".codex/config.toml"),
            servers: &TomlServers("mcp_servers"),
        },
    ],
};

/// `.agents/plugins/marketplace.json`: `"source": {"source": "local", "path": "./plugins/codex"}`,
/// with `interface`, `policy` and `category`.
#[derive(Debug)]
struct LocalObject;

impl ListingFormat for LocalObject {
    fn document(&self, path: &str, about: &PluginAbout) -> serde_json::Value {
        serde_json::json!({
            "name": about.name,
            "interface": {"displayName": about.name},
            "plugins": [{
                "name": about.name,
                "source": {"source": "local", "path": path},
                "policy": {"installation": "AVAILABLE", "authentication": "ON_INSTALL"},
                "category": "Productivity",
            }],
        })
    }
}

/// `[plugins."sophia-hook@sophia-hook"]` with `enabled = true` in this TOML file (a table
/// without `enabled` counts as enabled, as Codex reads it).
#[derive(Debug)]
struct TomlPlugins(UserPath);

impl PluginEnablement for TomlPlugins {
    fn files(&self, _name: &str) -> Vec<RecordFile> {
        vec![RecordFile::at(PluginPlace::User(self.0), Syntax::Toml)]
    }

    fn enabled(&self, _name: &str, id: &str, read: &[Read]) -> Option<usize> {
        use serde_json::Value;
        let entry = read
            .first()?
            .doc()?
            .get("plugins")
            .and_then(Value::as_object)
            .and_then(|plugins| plugins.get(id))
            .and_then(Value::as_object)?;
        entry
            .get("enabled")
            .and_then(Value::as_bool)
            .unwrap_or(true)
            .then_some(0)
    }
}

/// TOML, the servers as sub-tables of this table (`[mcp_servers.<name>]`); an entry with
/// `enabled = false` is off.
#[derive(Debug)]
struct TomlServers(&'static str);

impl McpServers for TomlServers {
    fn syntax(&self) -> Syntax {
        Syntax::Toml
    }

    fn servers(&self, doc: &serde_json::Value, _cwd: &Path, _root: &Path) -> Vec<McpEntry> {
        use serde_json::Value;
        let Some(servers) = doc.get(self.0).and_then(Value::as_object) else {
            return Vec::new();
        };
        servers
            .iter()
            .filter_map(|(name, value)| {
                let entry = value.as_object()?;
                if entry.get("enabled").and_then(Value::as_bool) == Some(false) {
                    return None;
                }
                Some((name.clone(), command_line(value)))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// `config.toml` as the edge hands it over (its tables as JSON): `enabled = false` turns a
    /// server off, a missing `enabled` or `disabled` does not.
    #[test]
    fn toml_servers_are_the_enabled_sub_tables() {
        let doc = json!({"mcp_servers": {
            "on": {"command": "node", "args": ["a", 1]},
            "off": {"command": "node", "enabled": false},
            "kept": {"disabled": true},
            "not-a-table": "x",
        }});
        let got = TomlServers("mcp_servers").servers(&doc, Path::new("/"), Path::new("/"));
        assert_eq!(
            got,
            [
                ("on".to_owned(), vec!["node".to_owned(), "a".to_owned()]),
                ("kept".to_owned(), vec![]),
            ]
        );
        assert!(
            TomlServers("mcp_servers")
                .servers(&json!({"mcp_servers": 1}), Path::new("/"), Path::new("/"))
                .is_empty()
        );
    }

    /// `[plugins."<id>"]`: enabled unless `enabled = false`; another plugin or no document is
    /// no record.
    #[test]
    fn toml_plugins_read_the_plugins_table() {
        let record = TomlPlugins(UserPath::HostHome(HOME, "config.toml"));
        let id = "sophia-hook@sophia-hook";
        let read = |doc| [Read::Present(Some(doc))];
        for (doc, want) in [
            (json!({"plugins": {id: {"enabled": true}}}), Some(0)),
            (json!({"plugins": {id: {}}}), Some(0)),
            (json!({"plugins": {id: {"enabled": false}}}), None),
            (json!({"plugins": {id: true}}), None),
            (json!({"plugins": {"other@sophia-hook": {}}}), None),
        ] {
            assert_eq!(
                record.enabled("sophia-hook", id, &read(doc.clone())),
                want,
                "{doc}"
            );
        }
        assert_eq!(
            record.enabled("sophia-hook", id, &[Read::Present(None)]),
            None
        );
        assert_eq!(record.enabled("sophia-hook", id, &[Read::Missing]), None);
    }
}
