//! OpenAI Codex CLI (`@openai/codex`): docs/host-protocols.md, "Codex CLI".

use super::trust::{
    InstalledHandler, PluginTrustInput, Record, TrustFinding, TrustFix, TrustGate, TrustInput,
    Verdict,
};
use super::*;
use serde_json::Value;

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
        shape: &output::HookSpecific { strict: true },
        needs_json_noop: false,
        // Codex spills above ~2,500 tokens; Claude Code's 10,000 characters keeps us inside it.
        context_cap_units: 10_000,
    },
    settings: SettingsFile {
        project: ".codex/hooks.json",
        user: UserPath::HostHome(HOME, "hooks.json"),
        layout: &MatcherGroups,
        handler: &Shell,
        timeout_ms: false,
        session_matcher: &Regex("startup|resume|clear|compact"),
        description_on_create: true,
        allowed_root_keys: Some(&["description", "hooks"]),
        named_handlers: false,
        command_windows: true,
        command_is_powershell_on_windows: false,
        both_scopes: BothScopes::BothRun,
        comments: false,
        other_hook_files: &[],
    },
    trust: Some(&HandlerHashes),
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
        format: &RoleToml,
        check_name: non_empty_name,
        project_ack: None,
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
        handler: &Shell,
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
        source: &CodexCache {
            config: UserPath::HostHome(HOME, "config.toml"),
            cache: UserPath::HostHome(HOME, "plugins/cache"),
        },
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
    // Observed (0.171.0, `tests/e2e/run --env-probe`): neither `shell_environment_policy` of a
    // project `.codex/config.toml` nor a project `.env` reaches a hook.
    project_env: &[],
    transcript: Transcript {
        file: TranscriptFile::Payload,
        layout: TranscriptLayout::Lines,
        grammar: &CodexRollout,
        builtin_agents: &["default", "worker", "explorer"],
        sees_spawns: true,
    },
};

/// A Codex custom agent file (`$CODEX_HOME/agents/<id>.toml`): TOML in the key order Codex
/// documents, the role's sandbox from its write policy; no tool list (Codex has none per role).
#[derive(Debug)]
pub struct RoleToml;

#[derive(serde::Serialize)]
struct Role<'a> {
    name: &'a str,
    description: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    model: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    model_reasoning_effort: Option<&'a str>,
    sandbox_mode: &'a str,
    developer_instructions: &'a str,
}

impl agent_file::DefinitionFormat for RoleToml {
    fn head(&self) -> &'static str {
        ""
    }

    fn body(&self, def: &agent_file::Definition<'_>) -> String {
        let role = Role {
            name: def.id,
            description: def.description,
            model: def.model,
            model_reasoning_effort: def.reasoning_effort,
            sandbox_mode: if def.read_only {
                "read-only"
            } else {
                "workspace-write"
            },
            developer_instructions: def.instructions,
        };
        // Strings only: serialisation cannot fail; an empty file would be refused by Codex.
        toml::to_string(&role).unwrap_or_default()
    }
}

/// Codex's own gates, checked the way Codex 0.169.0 applies them (docs/host-protocols.md): the
/// `hooks` feature of `$CODEX_HOME/config.toml`, folder trust for the project scope, and each
/// handler's `trusted_hash` recomputed ([`trust_hash`]) and compared with the one stored.
#[derive(Debug)]
pub struct HandlerHashes;

/// `config.toml` as a JSON value (`Null` when missing), or the failure of a file Codex refuses
/// to start with: what both trust judgements (settings hooks, plugin hooks) read first.
fn config_of(record: &Record, shown: &str) -> Result<Value, TrustFinding> {
    match record {
        Record::Missing => Ok(Value::Null),
        Record::Parsed(config) => Ok(config.clone()),
        Record::Unreadable(e) | Record::Unparsable(e) => Err(TrustFinding::new(
            Verdict::Fail,
            "codex config",
            format!("{shown}: does not parse ({e}); Codex refuses to start"),
            TrustFix::Say(format!("fix {shown}")),
        )),
    }
}

impl TrustGate for HandlerHashes {
    fn record(&self) -> UserFile {
        UserFile {
            path: UserPath::HostHome(HOME, "config.toml"),
            syntax: Syntax::Toml,
        }
    }

    fn judge(&self, input: &TrustInput<'_>) -> Vec<TrustFinding> {
        let shown = input.record_shown;
        let config = match config_of(input.record, shown) {
            Ok(config) => config,
            Err(refused) => return vec![refused],
        };
        let mut out: Vec<TrustFinding> = features_off(&config, shown).into_iter().collect();
        let states = &config["hooks"]["state"];
        for installed in input.installed {
            let area = format!("codex {} trust", installed.scope.as_str());
            let path = &installed.file_shown;
            if installed.scope == Scope::Project {
                let trusted = input.roots.iter().any(|root| {
                    config["projects"][root.to_string_lossy().as_ref()]["trust_level"].as_str()
                        == Some("trusted")
                });
                if !trusted {
                    out.push(TrustFinding::new(
                        Verdict::Fail,
                        area.clone(),
                        format!(
                            "the folder {} is not trusted, so Codex ignores {path} (and every project hook in it)",
                            input.root_shown
                        ),
                        TrustFix::TrustFolder(
                            "open the Codex TUI in the project and choose \"Trust this folder\" (or run `codex exec --trust` once there)",
                        ),
                    ));
                }
            }
            out.extend(handler_findings(
                &area,
                path,
                &installed.handlers,
                states,
                input.sha256,
                "open the Codex TUI and trust it once with /hooks (`codex exec` never asks); re-trust after every reinstall",
            ));
        }
        out
    }

    /// A plugin's hooks are trusted one by one in `/hooks` too, under the key
    /// `<plugin id>:<hooks file>:<event>:<group>:<handler>` (observed, 0.171.0: no machine path
    /// in it), with the same `trusted_hash`.
    fn judge_plugin(&self, input: &PluginTrustInput<'_>) -> Vec<TrustFinding> {
        let shown = input.record_shown;
        let config = match config_of(input.record, shown) {
            Ok(config) => config,
            Err(refused) => return vec![refused],
        };
        let mut out: Vec<TrustFinding> = features_off(&config, shown).into_iter().collect();
        out.extend(handler_findings(
            "codex plugin trust",
            &format!("{}:{}", input.plugin_id, input.hooks),
            &input.handlers,
            &config["hooks"]["state"],
            input.sha256,
            "open the Codex TUI once and trust the plugin's hooks (\"Hooks need review\" → \"Trust all and continue\", or /hooks); `codex exec` never asks",
        ));
        out
    }
}

/// `[features] hooks = false` (or `codex_hooks = false`): Codex runs no hook at all.
fn features_off(config: &Value, shown: &str) -> Option<TrustFinding> {
    let off = |k: &str| config["features"][k].as_bool() == Some(false);
    (off("hooks") || off("codex_hooks")).then(|| {
        TrustFinding::new(
            Verdict::Fail,
            "codex config",
            format!("{shown}: hooks are disabled in [features]"),
            TrustFix::Say(
                "remove `hooks = false` (or `codex_hooks = false`) from [features]".into(),
            ),
        )
    })
}

/// Each handler's trust state under `[hooks.state."<prefix>:<event>:<group>:<handler>"]`: the
/// stored `trusted_hash` against the one recomputed ([`trust_hash`]).
fn handler_findings(
    area: &str,
    prefix: &str,
    handlers: &[InstalledHandler<'_>],
    states: &Value,
    sha256: fn(&[u8]) -> String,
    untrusted_fix: &str,
) -> Vec<TrustFinding> {
    handlers
        .iter()
        .map(|reg| {
            let key = format!(
                "{prefix}:{}:{}:{}",
                event_label(reg.event),
                reg.group_index,
                reg.handler_index
            );
            let state = &states[key.as_str()];
            let stored = state["trusted_hash"].as_str();
            let current = trust_hash(reg.event, reg.matcher, reg.handler, sha256);
            let event = reg.event;
            match (state["enabled"].as_bool(), stored) {
                (Some(false), _) => TrustFinding::new(
                    Verdict::Fail,
                    area,
                    format!("{event}: disabled in /hooks"),
                    TrustFix::Say("enable it again with /hooks in the Codex TUI".into()),
                ),
                (_, Some(stored)) if Some(stored) == current.as_deref() => TrustFinding::new(
                    Verdict::Ok,
                    area,
                    format!("{event}: trusted (the stored hash matches this entry)"),
                    TrustFix::None,
                ),
                (_, Some(_)) => TrustFinding::new(
                    Verdict::Fail,
                    area,
                    format!(
                        "{event}: the stored trusted_hash does not match this entry (the command line or timeout changed since it was trusted): Codex skips this hook until re-trusted in /hooks"
                    ),
                    TrustFix::Say(
                        "open the Codex TUI and trust the sophia-hook entries again with /hooks"
                            .into(),
                    ),
                ),
                (_, None) => TrustFinding::new(
                    Verdict::Warn,
                    area,
                    format!("{event}: not trusted yet, so Codex skips it silently"),
                    TrustFix::Say(untrusted_fix.to_owned()),
                ),
            }
        })
        .collect()
}

/// The hash Codex stores as `trusted_hash` when the user trusts a handler in `/hooks`:
/// `sha256:` and the hex SHA-256 (`sha256`, the crate's one digest) of the canonical JSON (keys
/// sorted, no whitespace) of `{event_name, matcher, hooks: [handler]}`, where `event_name` is the
/// snake_case label (`session_start`), `matcher` is present only when set (Codex ignores it on
/// `UserPromptSubmit`), and the handler is normalised: `type`, `command`, `timeout` (default 600,
/// at least 1), `async` (default false), `statusMessage` when set. Checked against what Codex
/// 0.169.0 itself reports (`fixtures/contracts/codex/trust-hash.json`). `None` when the handler is
/// not a command handler.
pub fn trust_hash(
    event: &str,
    matcher: Option<&str>,
    handler: &Value,
    sha256: fn(&[u8]) -> String,
) -> Option<String> {
    use serde_json::Map;
    if handler.get("type").and_then(Value::as_str) != Some("command") {
        return None;
    }
    let command = handler.get("command").and_then(Value::as_str)?;
    let timeout = handler
        .get("timeout")
        .and_then(Value::as_u64)
        .unwrap_or(600)
        .max(1);
    let is_async = handler
        .get("async")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let mut normal = Map::new();
    normal.insert("async".into(), Value::from(is_async));
    normal.insert("command".into(), Value::from(command));
    if let Some(status) = handler.get("statusMessage").and_then(Value::as_str) {
        normal.insert("statusMessage".into(), Value::from(status));
    }
    normal.insert("timeout".into(), Value::from(timeout));
    normal.insert("type".into(), Value::from("command"));
    let mut identity = Map::new();
    identity.insert("event_name".into(), Value::from(event_label(event)));
    identity.insert("hooks".into(), Value::Array(vec![Value::Object(normal)]));
    let matcher = matcher.filter(|_| event != "UserPromptSubmit");
    if let Some(m) = matcher {
        identity.insert("matcher".into(), Value::from(m));
    }
    // Keys were inserted in sorted order; serde_json keeps insertion order.
    let json = serde_json::to_vec(&Value::Object(identity)).ok()?;
    Some(sha256(&json))
}

/// Codex's snake_case label of an event (`UserPromptSubmit` → `user_prompt_submit`), used in its
/// trust keys and hashes.
pub fn event_label(event: &str) -> String {
    let mut out = String::new();
    for (i, c) in event.chars().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            out.push('_');
        }
        out.push(c.to_ascii_lowercase());
    }
    out
}

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

/// Observed (0.171.0, `tests/e2e/run plugin`): `codex plugin marketplace add DIR` records
/// `[marketplaces.<name>] source_type = "local"`, `source = DIR` in `config.toml`, and `codex
/// plugin add` copies the plugin to `plugins/cache/<marketplace>/<plugin>/<version>/`, keeping one
/// version (an add of 0.2.0 replaced the 0.1.0 folder), and runs its hooks from that copy.
/// `marketplace add` of another folder under the same name is refused ("already added from a
/// different source; remove it before adding this source").
#[derive(Debug)]
struct CodexCache {
    config: UserPath,
    /// The plugin cache (`<name>/<name>/<version>/` below it).
    cache: UserPath,
}

impl PluginSource for CodexCache {
    fn files(&self, _name: &str) -> Vec<RecordFile> {
        vec![RecordFile::at(PluginPlace::User(self.config), Syntax::Toml)]
    }

    fn listed(&self, name: &str) -> Option<RecordFile> {
        Some(RecordFile {
            place: PluginPlace::User(self.cache),
            below: format!("{name}/{name}"),
            syntax: None,
        })
    }

    fn locate(&self, name: &str, id: &str, read: &[Read], listed: &[String]) -> Located {
        let source = read
            .first()
            .and_then(Read::doc)
            .and_then(|config| config.get("marketplaces")?.get(name))
            .map(|m| {
                match (
                    m.get("source_type").and_then(Value::as_str),
                    m.get("source").and_then(Value::as_str),
                ) {
                    (Some("local"), Some(path)) => AddedFrom::Folder(PathBuf::from(path)),
                    _ => AddedFrom::Other(m.to_string()),
                }
            });
        // One version is kept; should there be more, the last in order is the newest name.
        let folder = match listed.last() {
            Some(version) => Ok(FolderAt::Own(RecordFile {
                place: PluginPlace::User(self.cache),
                below: format!("{name}/{name}/{version}"),
                syntax: None,
            })),
            None => Err(format!(
                "Codex holds no copy of it in its plugin cache ({name}/{name}/ is empty or missing), so it loads nothing"
            )),
        };
        let disabled = read
            .first()
            .and_then(Read::doc)
            .and_then(|config| config.get("plugins")?.get(id)?.get("enabled")?.as_bool())
            == Some(false);
        Located {
            folder,
            in_place: false,
            source,
            disabled,
        }
    }

    fn install(
        &self,
        name: &str,
        id: &str,
        folder: &str,
        now: &PluginNow,
    ) -> Result<Vec<HostCommand>, String> {
        let mut out = Vec::new();
        match now.added_from() {
            Some(AddedFrom::Other(source)) => {
                return Err(format!(
                    "the marketplace {name} is recorded from {source}, not from a folder: remove it first (`codex plugin marketplace remove {name}`)"
                ));
            }
            Some(AddedFrom::Folder(path)) if path == Path::new(folder) => {
                if now.enabled && now.current {
                    return Ok(out);
                }
            }
            Some(AddedFrom::Folder(_)) => {
                out.push(HostCommand::new(
                    "codex",
                    &["plugin", "marketplace", "remove", name],
                ));
                out.push(HostCommand::new(
                    "codex",
                    &["plugin", "marketplace", "add", folder],
                ));
            }
            None => out.push(HostCommand::new(
                "codex",
                &["plugin", "marketplace", "add", folder],
            )),
        }
        // `add` copies the plugin again, so a new build of the folder reaches the cache.
        out.push(HostCommand::new("codex", &["plugin", "add", id]));
        Ok(out)
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

    fn hash(event: &str, matcher: Option<&str>, handler: &Value) -> Option<String> {
        trust_hash(event, matcher, handler, crate::fingerprint::sha256)
    }

    #[test]
    fn trust_hash_matches_what_codex_reports() {
        let fixture = crate::bounded::json_value(
            include_bytes!("../../fixtures/contracts/codex/trust-hash.json"),
            crate::bounded::FILE,
        )
        .unwrap();
        let cases = fixture["cases"].as_array().unwrap();
        assert_eq!(cases.len(), 4);
        for case in cases {
            let event = case["event"].as_str().unwrap();
            assert_eq!(
                hash(event, case["matcher"].as_str(), &case["handler"]).as_deref(),
                case["currentHash"].as_str(),
                "{case}"
            );
        }
        // Any change of the command line or the timeout changes the hash.
        let h = &cases[0]["handler"];
        let base = hash("SessionStart", Some("startup"), h).unwrap();
        let mut other = h.clone();
        other["timeout"] = json!(11);
        assert_ne!(hash("SessionStart", Some("startup"), &other).unwrap(), base);
        other = h.clone();
        other["command"] = json!("/new/sophia-hook --host codex --event SessionStart");
        assert_ne!(hash("SessionStart", Some("startup"), &other).unwrap(), base);
        assert_eq!(hash("SessionStart", None, &json!({"type": "prompt"})), None);
    }

    #[test]
    fn event_keys_are_snake_case() {
        assert_eq!(event_label("UserPromptSubmit"), "user_prompt_submit");
        assert_eq!(event_label("SessionStart"), "session_start");
    }

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

/// Codex's rollout (JSONL at `transcript_path`, observed in 0.171.0): what the model calls is a
/// `response_item` whose `payload` is a `function_call` with `arguments` as a JSON string. A skill
/// is loaded by reading its `SKILL.md` through the shell (`exec_command`'s `cmd`, or `shell`'s
/// `command` words); `spawn_agent` spawns `agent_type` (`default` when left out). A subagent
/// writes a rollout of its own, and its prompt's payload names that file.
#[derive(Debug)]
pub struct CodexRollout;

impl TranscriptGrammar for CodexRollout {
    fn markers(&self) -> &'static [&'static str] {
        &["\"type\":\"function_call\""]
    }

    fn record(&self, record: &serde_json::Value, seen: &mut dyn Seen) {
        if str_at(record, &["type"]) != Some("response_item")
            || str_at(record, &["payload", "type"]) != Some("function_call")
        {
            return;
        }
        let Some(name) = str_at(record, &["payload", "name"]) else {
            return;
        };
        let arguments = str_at(record, &["payload", "arguments"])
            .and_then(|a| seen.json(a))
            .unwrap_or(serde_json::Value::Null);
        match name {
            "spawn_agent" => seen.spawned(str_at(&arguments, &["agent_type"]).unwrap_or("default")),
            "exec_command" | "shell" | "shell_command" | "local_shell" => {
                let command = arguments.get("cmd").or_else(|| arguments.get("command"));
                match command {
                    Some(serde_json::Value::String(cmd)) => skills_read_by(cmd, seen),
                    Some(serde_json::Value::Array(words)) => {
                        for word in words.iter().filter_map(serde_json::Value::as_str) {
                            // `["bash", "-lc", "cat …/SKILL.md"]`: the script is words too.
                            skills_read_by(word, seen);
                        }
                    }
                    _ => {}
                }
            }
            _ => {}
        }
    }
}
