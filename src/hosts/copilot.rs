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

use super::trust::{Record, TrustFinding, TrustFix, TrustGate, TrustInput, Verdict};
use super::*;
use serde_json::{Map, Value, json};

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
        shape: &RootContext,
        needs_json_noop: false,
        // No cap seen up to 1,100,000 characters: the hook's own cap decides.
        context_cap_units: 10_000,
    },
    settings: SettingsFile {
        // A file of our own: `uninstall` deletes it, no user setting is rewritten.
        project: ".github/hooks/sophia-hook.json",
        user: UserPath::HostHome(HOME, "hooks/sophia-hook.json"),
        layout: &HookFile,
        handler: &BashPowershell,
        timeout_ms: false,
        // Matchers are not applied to these two events.
        session_matcher: &NoMatcher,
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
    trust: Some(&FolderList),
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
        format: &agent_file::Markdown {
            tools: Some(AgentTools {
                map: tools,
                read_only: &["view", "rg", "grep", "glob"],
                as_string: false,
            }),
        },
        check_name: non_empty_name,
        project_ack: None,
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
        handler: &BashPowershell,
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
        // Observed (1.0.102): `copilot plugin marketplace add DIR` records Claude Code's
        // `extraKnownMarketplaces` shape in `$COPILOT_HOME/settings.json`, and `copilot plugin
        // install` answers "It is loaded live from DIR/plugins/copilot … nothing was copied". A
        // second `marketplace add` under the same name is refused ("already registered") until
        // `marketplace remove`, which leaves the plugin enabled.
        source: &DirectoryMarketplace {
            cli: "copilot",
            settings: UserPath::HostHome(HOME, "settings.json"),
            known: None,
            installed: None,
            plugin: "plugins/copilot",
            add_repoints: false,
        },
    }),
    // `mcpServers` in `$COPILOT_HOME/mcp-config.json` (what `/mcp add` writes).
    mcp: &[McpFile {
        place: PluginPlace::User(UserPath::HostHome(HOME, "mcp-config.json")),
        servers: &JsonServers("mcpServers"),
    }],
    // Observed (1.0.102, `tests/e2e/run --env-probe`): a project `.env` does not reach a hook
    // (a handler's own `env` does, which is the project's command line anyway).
    project_env: &[],
    transcript: Transcript {
        file: TranscriptFile::InHostHome {
            home: HOME,
            before: "session-state/",
            after: "/events.jsonl",
        },
        layout: TranscriptLayout::Lines,
        grammar: &CopilotEvents,
        builtin_agents: &["explore", "task", "general-purpose", "code-review"],
        sees_spawns: true,
    },
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

/// `{"additionalContext": …}` at the root and nothing else: a `hookSpecificOutput` would be
/// dropped silently.
#[derive(Debug)]
pub struct RootContext;

impl output::OutputFormat for RootContext {
    fn context(&self, _wire_event: &str, context: String) -> Value {
        json!({"additionalContext": context})
    }

    fn validate(&self, host: &str, _wire: &str, obj: &Map<String, Value>) -> Result<usize, String> {
        if let Some(k) = obj.keys().find(|k| *k != "additionalContext") {
            return Err(format!(
                "unknown key `{k}`: {host} reads only additionalContext here"
            ));
        }
        let context = obj
            .get("additionalContext")
            .and_then(Value::as_str)
            .filter(|c| !c.is_empty())
            .ok_or("no additionalContext")?;
        Ok(context.chars().count())
    }
}

/// How to trust a folder for Copilot CLI.
const TRUST_FIX: &str = "start `copilot` in the project once and answer \"Yes, and remember this folder\"; for `copilot -p` pass --trust-folder or set COPILOT_ALLOW_ALL=true";

/// Copilot CLI loads a repository's hooks only in a trusted folder (docs/host-protocols.md,
/// "Trust"); without one the prompt goes through with no hook at all. The folder, or one of its
/// parents, must be an entry of `trustedFolders` in `$COPILOT_HOME/config.json` (JSON after
/// `//` comment lines, which the CLI manages; `doctor` reads it, never writes it). Checked when
/// sophia-hook is installed at the project scope.
#[derive(Debug)]
pub struct FolderList;

impl TrustGate for FolderList {
    fn record(&self) -> UserFile {
        UserFile {
            path: UserPath::HostHome(HOME, "config.json"),
            syntax: Syntax::Jsonc,
        }
    }

    fn judge(&self, input: &TrustInput<'_>) -> Vec<TrustFinding> {
        if !input.at_project() {
            return Vec::new();
        }
        let area = "copilot project trust";
        let (root, path) = (input.root_shown, input.record_shown);
        let config = match input.record {
            Record::Missing => &Value::Null,
            Record::Parsed(config) => config,
            Record::Unreadable(e) => {
                return vec![TrustFinding::new(
                    Verdict::Warn,
                    area,
                    format!("{path}: cannot be read ({e})"),
                    TrustFix::Say(TRUST_FIX.into()),
                )];
            }
            Record::Unparsable(e) => {
                return vec![TrustFinding::new(
                    Verdict::Warn,
                    area,
                    format!("{path}: does not parse as JSON with comments ({e})"),
                    TrustFix::Say(TRUST_FIX.into()),
                )];
            }
        };
        vec![match input
            .roots
            .iter()
            .find_map(|r| trusted_folder_entry(config, r))
        {
            Some(entry) => TrustFinding::new(
                Verdict::Ok,
                area,
                format!("{root} is trusted (`trustedFolders` entry {entry} in {path})"),
                TrustFix::None,
            ),
            None => TrustFinding::new(
                Verdict::Warn,
                area,
                format!(
                    "{root} is not in `trustedFolders` of {path}: {} runs the repository's hooks only in a trusted folder, so prompts go through with no hook",
                    SPEC.display
                ),
                TrustFix::TrustFolder(TRUST_FIX),
            ),
        }]
    }
}

/// The entry of the `trustedFolders` list of `config` that covers `root`: the folder itself or
/// one of its parents (an empty entry or one that is not a string covers nothing).
pub fn trusted_folder_entry(config: &Value, root: &Path) -> Option<String> {
    config
        .get("trustedFolders")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|v| v.as_str().map(str::to_owned))
        .find(|entry| !entry.is_empty() && root.starts_with(Path::new(entry)))
}

/// The version of the hook file `install` creates.
const HOOK_FILE_VERSION: u64 = 1;

/// Copilot CLI's settings layout: a hook file of our own, `{"version": N, "hooks": {<Event>:
/// [handler]}}`, one of the `.json` files of a folder the host reads whole (`.github/hooks/`,
/// `$COPILOT_HOME/hooks/`). A user's handlers in it stay.
#[derive(Debug)]
pub struct HookFile;

impl Layout for HookFile {
    fn document(&self, entries: Vec<Entry>) -> Value {
        json!({"version": HOOK_FILE_VERSION, "hooks": settings::flat_events(entries)})
    }

    /// The file's other handlers and keys stay; ours are replaced by the current ones.
    fn install(
        &self,
        root: &mut Map<String, Value>,
        created: bool,
        entries: &[Entry],
        is_ours: &dyn Fn(&Value) -> bool,
    ) -> Result<(), MergeError> {
        if created {
            root.insert("version".into(), Value::from(HOOK_FILE_VERSION));
        }
        let hooks = settings::hooks_mut(root)?;
        for entry in entries {
            let desired = &entry.handler;
            let list = settings::event_list(hooks, entry.event)?;
            let ours: Vec<&Value> = list.iter().filter(|h| is_ours(h)).collect();
            if ours.len() == 1 && ours[0] == desired {
                continue;
            }
            list.retain(|h| !is_ours(h));
            list.push(desired.clone());
        }
        Ok(())
    }

    /// A file left with nothing, or with only the version we wrote, can go.
    fn uninstall(&self, root: &mut Map<String, Value>, is_ours: &dyn Fn(&Value) -> bool) -> bool {
        settings::remove_from_hooks(root, |list| {
            let before = list.len();
            list.retain(|h| !is_ours(h));
            list.len() != before
        });
        root.is_empty()
            || (root.len() == 1 && root.get("version") == Some(&Value::from(HOOK_FILE_VERSION)))
    }

    fn registered(&self, doc: &Value, is_ours: &dyn Fn(&Value) -> bool) -> Vec<Registered> {
        settings::flat_registered(doc.get("hooks"), is_ours)
    }

    fn reads_folder(&self) -> bool {
        true
    }
}

/// Copilot CLI's handler form: `bash` (POSIX quoting) and `powershell` command lines, the host
/// running the one for its platform, and the timeout as `timeoutSec`.
#[derive(Debug)]
pub struct BashPowershell;

impl HandlerForm for BashPowershell {
    fn handler(&self, lines: &HandlerLines<'_>, _: &SettingsFile) -> Value {
        json!({
            "type": "command",
            "bash": lines.posix,
            "powershell": lines.powershell,
            "timeoutSec": lines.timeout,
        })
    }

    fn command_key(&self) -> &'static str {
        "bash"
    }

    fn timeout_key(&self) -> &'static str {
        "timeoutSec"
    }

    fn windows_line_key(&self) -> Option<&'static str> {
        Some("powershell")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The entry covering `root`, from the file's text parsed as the edge parses it.
    fn found(text: &str, root: &str) -> Result<Option<String>, String> {
        let config = crate::bounded::jsonc_value(
            text,
            crate::bounded::FILE,
            &jsonc_parser::ParseOptions::default(),
        )
        .map_err(|e| e.to_string())?;
        Ok(trusted_folder_entry(&config, Path::new(root)))
    }

    #[test]
    fn trusted_folders_read_as_jsonc() {
        // The header Copilot CLI 1.0.102 writes (observed by tests/e2e/copilot-probe.mjs --tui).
        let text = "// User settings belong in settings.json.\n// This file is managed automatically.\n{\n  \"trustedFolders\": [\n    \"/work/repo\",\n    \"/srv/team\", // a parent\n    42,\n    \"\"\n  ],\n}\n";
        for (root, want) in [
            ("/work/repo", Some("/work/repo")),
            ("/work/repo/sub", Some("/work/repo")),
            ("/work/repository", None),
            ("/srv/team/two", Some("/srv/team")),
            ("/srv/other", None),
            ("/", None),
        ] {
            assert_eq!(found(text, root).unwrap().as_deref(), want, "{root}");
        }
        // No file, no list, a list of something else: nothing is trusted.
        for empty in [
            "",
            "// only a comment\n",
            "{}",
            "{\"trustedFolders\": \"/work/repo\"}",
        ] {
            assert_eq!(found(empty, "/work/repo"), Ok(None), "{empty:?}");
        }
        assert!(found("{\"trustedFolders\": [", "/work/repo").is_err());
    }

    fn ours(h: &Value) -> bool {
        h.get("bash")
            .and_then(Value::as_str)
            .is_some_and(|b| b.starts_with("/x/sophia-hook"))
    }

    fn entry(line: &str) -> Entry {
        Entry {
            event: "sessionStart",
            matcher: None,
            handler: json!({"type": "command", "bash": line, "timeoutSec": 10}),
        }
    }

    /// Our hook file: created with its version as the plugin's document is, a user's handler in
    /// it kept while ours is replaced and removed, and a file left with only the version gone.
    #[test]
    fn the_hook_file_keeps_a_users_handlers() {
        let mine = json!({"type": "command", "bash": "/opt/mine"});
        let mut root = Map::new();
        HookFile
            .install(&mut root, true, &[entry("/x/sophia-hook a")], &ours)
            .unwrap();
        assert_eq!(
            Value::Object(root.clone()),
            HookFile.document(vec![entry("/x/sophia-hook a")])
        );
        let mut created = root.clone();
        root["hooks"]["sessionStart"]
            .as_array_mut()
            .unwrap()
            .insert(0, mine.clone());
        HookFile
            .install(&mut root, false, &[entry("/x/sophia-hook b")], &ours)
            .unwrap();
        assert_eq!(
            root["hooks"]["sessionStart"],
            json!([mine, entry("/x/sophia-hook b").handler])
        );
        let found = HookFile.registered(&Value::Object(root.clone()), &ours);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].handler_index, 1);
        assert!(!HookFile.uninstall(&mut root, &ours));
        assert_eq!(root["hooks"]["sessionStart"], json!([mine]));
        assert!(HookFile.uninstall(&mut created, &ours), "{created:?}");
        assert_eq!(Value::Object(created), json!({"version": 1}));
    }
}

/// Copilot CLI's session events (observed in 1.0.102): its payload names no transcript; the
/// session's events are `$COPILOT_HOME/session-state/<sessionId>/events.jsonl`, JSONL, appended.
/// The model's calls are the `toolRequests` of an `assistant.message` event: `skill` loads
/// `arguments.skill`, `task` spawns `arguments.agent_type`. A subagent's events are in the same
/// file with a top-level `agentId`: its calls are not the main model's.
#[derive(Debug)]
pub struct CopilotEvents;

impl TranscriptGrammar for CopilotEvents {
    fn markers(&self) -> &'static [&'static str] {
        &["\"toolRequests\""]
    }

    fn record(&self, record: &serde_json::Value, seen: &mut dyn Seen) {
        if str_at(record, &["type"]) != Some("assistant.message") || record.get("agentId").is_some()
        {
            return;
        }
        let Some(calls) = record
            .get("data")
            .and_then(|d| d.get("toolRequests"))
            .and_then(serde_json::Value::as_array)
        else {
            return;
        };
        for call in calls {
            match str_at(call, &["name"]) {
                Some("skill") => {
                    if let Some(name) = str_at(call, &["arguments", "skill"]) {
                        seen.skill(name);
                    }
                }
                Some("task") => seen.spawned(
                    str_at(call, &["arguments", "agent_type"]).unwrap_or("general-purpose"),
                ),
                _ => {}
            }
        }
    }
}
