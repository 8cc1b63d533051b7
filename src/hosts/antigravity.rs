//! Google Antigravity (`agy`), experimental: built from the hooks guide and the schema embedded
//! in the engine, not yet run in a real Antigravity host (docs/host-protocols.md, "Antigravity").

use super::*;
use serde_json::{Map, Value, json};

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
        shape: &InjectSteps,
        needs_json_noop: true,
        context_cap_units: 10_000,
    },
    settings: SettingsFile {
        project: ".agents/hooks.json",
        user: UserPath::Home(".gemini/config/hooks.json"),
        layout: &NamedEntry,
        handler: &Shell,
        timeout_ms: false,
        session_matcher: &NoMatcher,
        description_on_create: false,
        allowed_root_keys: None,
        named_handlers: false,
        command_windows: false,
        command_is_powershell_on_windows: false,
        both_scopes: BothScopes::OneRuns,
        comments: false,
        other_hook_files: &[],
    },
    trust: None,
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
    // Not run (engine read only): nothing known.
    project_env: &[],
    transcript: Transcript {
        file: TranscriptFile::Payload,
        layout: TranscriptLayout::Lines,
        grammar: &AntigravitySteps,
        builtin_agents: &[],
        sees_spawns: false,
    },
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

/// What Antigravity accepts from SessionStart and PreInvocation hooks: steps to inject into the
/// conversation (the hooks guide and `hooks.proto` inside the engine; docs/host-protocols.md),
/// each a protojson `oneof step`. No `hookSpecificOutput` in this contract. The session
/// bootstrap is a `{"systemMessage":{"systemMessage":…}}` step, which persists across turns; the
/// per-turn context an `{"ephemeralMessage":…}` step, dropped after the turn.
#[derive(Debug)]
pub struct InjectSteps;

impl output::OutputFormat for InjectSteps {
    fn context(&self, wire_event: &str, context: String) -> Value {
        let step = if wire_event == "SessionStart" {
            json!({"systemMessage": {"systemMessage": context}})
        } else {
            json!({"ephemeralMessage": context})
        };
        json!({"injectSteps": [step]})
    }

    /// Only `injectSteps`, each step exactly one of the documented kinds; a `systemMessage` on
    /// SessionStart and an `ephemeralMessage` per turn are expected. The context's length is
    /// that of every step's text.
    fn validate(&self, _host: &str, wire: &str, obj: &Map<String, Value>) -> Result<usize, String> {
        if let Some(k) = obj.keys().find(|k| *k != "injectSteps") {
            return Err(format!(
                "unknown key `{k}`: Antigravity's result has only injectSteps"
            ));
        }
        let steps = obj
            .get("injectSteps")
            .and_then(Value::as_array)
            .filter(|s| !s.is_empty())
            .ok_or("no injectSteps")?;
        let mut chars = 0;
        for step in steps {
            let step = step.as_object().ok_or("a step is not an object")?;
            let text = match (step.len(), step.iter().next()) {
                (1, Some((k, Value::String(t))))
                    if k == "ephemeralMessage" || k == "userMessage" =>
                {
                    t
                }
                (1, Some((k, Value::Object(m)))) if k == "systemMessage" => m
                    .get("systemMessage")
                    .and_then(Value::as_str)
                    .ok_or("systemMessage needs a nested {\"systemMessage\": …}")?,
                _ => {
                    return Err(format!(
                        "a step is not one of ephemeralMessage, userMessage, systemMessage: {}",
                        Value::Object(step.clone())
                    ));
                }
            };
            let expected = if wire == "SessionStart" {
                "systemMessage"
            } else {
                "ephemeralMessage"
            };
            if !step.contains_key(expected) {
                return Err(format!("{wire} should inject a {expected} step"));
            }
            chars += text.chars().count();
        }
        Ok(chars)
    }
}

/// Antigravity's settings layout: `<name>: {<Event>: [handler]}`, an entry of its own keyed by
/// our hook's name ([`HOOK_NAME`]) beside the user's other hooks, so that everything in it is
/// ours and `install` writes it whole.
#[derive(Debug)]
pub struct NamedEntry;

impl Layout for NamedEntry {
    fn document(&self, entries: Vec<Entry>) -> serde_json::Value {
        serde_json::json!({HOOK_NAME: settings::flat_events(entries)})
    }

    fn install(
        &self,
        root: &mut serde_json::Map<String, serde_json::Value>,
        _created: bool,
        entries: &[Entry],
        _is_ours: &dyn Fn(&serde_json::Value) -> bool,
    ) -> Result<(), MergeError> {
        let ours = settings::flat_events(entries.to_vec());
        root.insert(HOOK_NAME.to_owned(), serde_json::Value::Object(ours));
        Ok(())
    }

    fn uninstall(
        &self,
        root: &mut serde_json::Map<String, serde_json::Value>,
        _is_ours: &dyn Fn(&serde_json::Value) -> bool,
    ) -> bool {
        root.shift_remove(HOOK_NAME);
        false
    }

    /// The host's own entry holds only our handlers: every one of them is ours.
    fn registered(
        &self,
        doc: &serde_json::Value,
        _is_ours: &dyn Fn(&serde_json::Value) -> bool,
    ) -> Vec<Registered> {
        settings::flat_registered(doc.get(HOOK_NAME), &|_| true)
    }

    fn own_entry<'a>(
        &self,
        doc: &'a serde_json::Value,
    ) -> Option<&'a serde_json::Map<String, serde_json::Value>> {
        doc.get(HOOK_NAME).and_then(serde_json::Value::as_object)
    }

    /// Our entry is the whole of it: there is no container of the user's to keep.
    fn shares_hooks_map(&self) -> bool {
        false
    }
}

/// Antigravity's conversation file (`transcriptPath`, JSONL, one step per line; the contract's
/// fixtures): the model's calls are the `toolCalls` (`name`, `args`) of a `PLANNER_RESPONSE` step.
/// A skill is loaded by reading its `SKILL.md` (Antigravity's skills documentation: the agent
/// "reads the full SKILL.md" of a skill that looks relevant), through `view_file`'s
/// `AbsolutePath`. How it records a subagent was never seen: spawns are not read
/// (`Transcript::sees_spawns`).
#[derive(Debug)]
pub struct AntigravitySteps;

impl TranscriptGrammar for AntigravitySteps {
    fn markers(&self) -> &'static [&'static str] {
        &["\"toolCalls\""]
    }

    fn record(&self, record: &serde_json::Value, seen: &mut dyn Seen) {
        if str_at(record, &["type"]) != Some("PLANNER_RESPONSE") {
            return;
        }
        let Some(calls) = record
            .get("toolCalls")
            .and_then(serde_json::Value::as_array)
        else {
            return;
        };
        for call in calls {
            if str_at(call, &["name"]) == Some("view_file")
                && let Some(name) = str_at(call, &["args", "AbsolutePath"]).and_then(skill_of_path)
            {
                seen.skill(name);
            }
        }
    }
}
