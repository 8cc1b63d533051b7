//! Gemini CLI (`@google/gemini-cli`): docs/host-protocols.md, "Gemini CLI".

use super::trust::{Record, TrustFinding, TrustFix, TrustGate, TrustInput, Verdict};
use super::*;
use serde_json::Value;

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
        shape: &output::HookSpecific { strict: false },
        // Gemini CLI reads stderr when stdout is empty and shows plain text to the user.
        needs_json_noop: true,
        context_cap_units: 10_000,
    },
    settings: SettingsFile {
        project: ".gemini/settings.json",
        user: UserPath::Home(".gemini/settings.json"),
        layout: &MatcherGroups,
        handler: &Shell,
        timeout_ms: true,
        // Gemini CLI compares lifecycle matchers as exact strings (0.61.0), so
        // `startup|resume|clear` would never match there: we write no matcher, which fires on
        // every source.
        session_matcher: &ExactSources,
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
    trust: Some(&TrustedFolders),
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
        format: &agent_file::Markdown {
            tools: Some(AgentTools {
                map: tools,
                read_only: &[
                    "read_file",
                    "read_many_files",
                    "grep_search",
                    "glob",
                    "list_directory",
                ],
                as_string: false,
            }),
        },
        check_name,
        // Gemini CLI registers a project agent only once the user acknowledged it.
        project_ack: Some(&Acknowledgments),
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
        handler: &Shell,
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
        source: &ExtensionCopy {
            dir: UserPath::Home(".gemini/extensions"),
            install_record: ".gemini-extension-install.json",
            enablement: "extension-enablement.json",
        },
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
    // Observed (0.61.0, `tests/e2e/run --env-probe`): Gemini CLI loads `.gemini/.env`, else
    // `.env`, from the working folder or the nearest parent that has one, into its own
    // environment, which every hook inherits.
    project_env: &[
        ProjectEnv::DotEnv(".gemini/.env"),
        ProjectEnv::DotEnv(".env"),
    ],
    transcript: Transcript {
        file: TranscriptFile::Payload,
        layout: TranscriptLayout::Lines,
        grammar: &GeminiSession,
        builtin_agents: &["codebase_investigator", "generalist", "cli_help"],
        sees_spawns: true,
    },
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

/// Observed (0.61.0, `tests/e2e/run plugin`): `gemini extensions install DIR` copies the
/// extension to `<dir>/<name>/` and records `{"source": DIR, "type": "local"}` in its
/// `.gemini-extension-install.json`; `gemini extensions link DIR` records `"type": "link"` and
/// reads DIR in place. A second install is refused ("already installed. Please uninstall it
/// first").
#[derive(Debug)]
struct ExtensionCopy {
    dir: UserPath,
    install_record: &'static str,
    /// The enablement file in `dir` (`extension-enablement.json`).
    enablement: &'static str,
}

impl PluginSource for ExtensionCopy {
    fn files(&self, name: &str) -> Vec<RecordFile> {
        vec![
            RecordFile {
                place: PluginPlace::User(self.dir),
                below: format!("{name}/{}", self.install_record),
                syntax: Some(Syntax::Json),
            },
            RecordFile {
                place: PluginPlace::User(self.dir),
                below: self.enablement.to_owned(),
                syntax: Some(Syntax::Json),
            },
        ]
    }

    fn locate(&self, name: &str, _id: &str, read: &[Read], _listed: &[String]) -> Located {
        let record = read.first().and_then(Read::doc);
        let source = record.and_then(|r| r.get("source")?.as_str()).map(|s| {
            match record.and_then(|r| r.get("type")?.as_str()) {
                Some("local" | "link") => AddedFrom::Folder(PathBuf::from(s)),
                _ => AddedFrom::Other(s.to_owned()),
            }
        });
        let linked = record.and_then(|r| r.get("type")?.as_str()) == Some("link");
        let folder = match (&source, linked) {
            (Some(AddedFrom::Folder(path)), true) => {
                FolderAt::Recorded(path.clone(), String::new())
            }
            _ => FolderAt::Own(RecordFile {
                place: PluginPlace::User(self.dir),
                below: name.to_owned(),
                syntax: None,
            }),
        };
        let disabled = source.is_some()
            && read
                .get(1)
                .and_then(Read::doc)
                .is_some_and(|doc| disabled_everywhere(doc, name));
        Located {
            folder: Ok(folder),
            in_place: linked,
            source,
            disabled,
        }
    }

    fn install(
        &self,
        name: &str,
        _id: &str,
        folder: &str,
        now: &PluginNow,
    ) -> Result<Vec<HostCommand>, String> {
        let mut out = Vec::new();
        let same = matches!(now.added_from(), Some(AddedFrom::Folder(p)) if p == Path::new(folder));
        if now.enabled && same && now.current {
            return Ok(out);
        }
        if now.enabled || now.added_from().is_some() {
            out.push(HostCommand::new(
                "gemini",
                &["extensions", "uninstall", name],
            ));
        }
        out.push(HostCommand {
            program: "gemini",
            args: vec![
                "extensions".into(),
                "install".into(),
                folder.into(),
                "--consent".into(),
            ],
            // Without it, `install` asks [y/N] for a source folder Gemini CLI does not trust
            // (even with --consent) and reads "no" from a closed stdin; the folder is ours, just
            // written.
            env: &[("GEMINI_CLI_TRUST_WORKSPACE", "true")],
        });
        Ok(out)
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

/// Gemini CLI loads a project's hooks only in a trusted folder (`gemini -p` exits 55 otherwise):
/// `~/.gemini/trustedFolders.json`, read as [`trusts`] does. Checked when sophia-hook is installed
/// at the project scope; a file that is missing or unreadable trusts nothing.
#[derive(Debug)]
pub struct TrustedFolders;

impl TrustGate for TrustedFolders {
    fn record(&self) -> UserFile {
        UserFile {
            path: UserPath::Home(".gemini/trustedFolders.json"),
            syntax: Syntax::Json,
        }
    }

    fn judge(&self, input: &TrustInput<'_>) -> Vec<TrustFinding> {
        if !input.at_project() {
            return Vec::new();
        }
        let doc = match input.record {
            Record::Parsed(doc) => doc,
            _ => &Value::Null,
        };
        let (root, path) = (input.root_shown, input.record_shown);
        let area = "gemini project trust";
        vec![if input.roots.iter().any(|r| trusts(doc, r)) {
            TrustFinding::new(
                Verdict::Ok,
                area,
                format!("{root} is trusted in {path}"),
                TrustFix::None,
            )
        } else {
            TrustFinding::new(
                Verdict::Warn,
                area,
                format!(
                    "{root} is not a trusted folder in {path}: Gemini CLI ignores the project's hooks there (and `gemini -p` exits 55)"
                ),
                TrustFix::TrustFolder("start `gemini` in the project once and trust the folder"),
            )
        }]
    }
}

/// Whether Gemini CLI trusts `root`, from `~/.gemini/trustedFolders.json` (`{"<path>":
/// "TRUST_FOLDER" | "TRUST_PARENT" | "DO_NOT_TRUST"}`): a `TRUST_FOLDER` entry covers that folder
/// and everything below it, a `TRUST_PARENT` entry the folder above it (and everything below
/// that); `DO_NOT_TRUST` and anything else trust nothing.
pub fn trusts(trusted_folders: &Value, root: &Path) -> bool {
    let Some(entries) = trusted_folders.as_object() else {
        return false;
    };
    entries.iter().any(|(path, level)| {
        let path = Path::new(path);
        let covered = match level.as_str() {
            Some("TRUST_FOLDER") => Some(path),
            Some("TRUST_PARENT") => path.parent(),
            _ => None,
        };
        covered.is_some_and(|dir| root.starts_with(dir))
    })
}

/// Gemini CLI compares SessionStart matchers as exact strings against [`SESSION_SOURCES`]: we
/// write none (it fires on every source), and `doctor` reports one that narrows or never matches.
#[derive(Debug)]
pub struct ExactSources;

impl SessionMatcher for ExactSources {
    fn written(&self) -> Option<&'static str> {
        None
    }

    /// Absent, empty or `*` matches every source; one source narrows to it; anything else never
    /// matches.
    fn problem(&self, matcher: Option<&str>) -> Option<String> {
        match matcher {
            None | Some("") | Some("*") => None,
            Some(m) if SESSION_SOURCES.contains(&m) => Some(format!(
                "the matcher \"{m}\" fires only on source={m}, not on every session start"
            )),
            Some(m) => Some(format!(
                "the matcher \"{m}\" never matches: {} compares SessionStart matchers as exact strings (one of {}), so this hook never runs",
                SPEC.display,
                SESSION_SOURCES.join(", ")
            )),
        }
    }
}

/// Gemini CLI registers a project agent only once the user acknowledged it in its TUI, as
/// recorded in `~/.gemini/acknowledgments/agents.json` (`{"<project>": {"<name>": "<hex SHA-256
/// of the file>"}}`): an agent edited or regenerated since needs a new acknowledgement.
#[derive(Debug)]
pub struct Acknowledgments;

impl ProjectAck for Acknowledgments {
    fn record(&self) -> UserFile {
        UserFile {
            path: UserPath::Home(".gemini/acknowledgments/agents.json"),
            syntax: Syntax::Json,
        }
    }

    fn acknowledges(
        &self,
        record: &Value,
        root: &Path,
        id: &str,
        content: &[u8],
        sha256: fn(&[u8]) -> String,
    ) -> bool {
        let Some(want) = record
            .get(root.to_string_lossy().as_ref())
            .and_then(|project| project.get(id))
            .and_then(Value::as_str)
        else {
            return false;
        };
        sha256(content).strip_prefix("sha256:") == Some(want)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn folder_trust_as_gemini_reads_it() {
        let doc = serde_json::json!({
            "/work/repo": "TRUST_FOLDER",
            "/srv/team/one": "TRUST_PARENT",
            "/tmp/x": "DO_NOT_TRUST",
        });
        for (root, trusted) in [
            ("/work/repo", true),
            ("/work/repo/sub", true),
            ("/work/repository", false),
            ("/srv/team/two", true),
            ("/srv/other", false),
            ("/tmp/x", false),
        ] {
            assert_eq!(trusts(&doc, Path::new(root)), trusted, "{root}");
        }
        assert!(!trusts(&Value::Null, Path::new("/work/repo")));
    }

    /// The problem `doctor` reports with an existing SessionStart matcher.
    fn problem(matcher: Option<&str>) -> Option<String> {
        SPEC.settings.session_matcher.problem(matcher)
    }

    #[test]
    fn gemini_session_matchers_as_gemini_compares_them() {
        assert_eq!(problem(None), None);
        assert_eq!(problem(Some("")), None);
        assert_eq!(problem(Some("*")), None);
        assert!(
            problem(Some("startup"))
                .unwrap()
                .contains("only on source=startup")
        );
        for never in [
            "startup|resume|clear",
            "startup|resume",
            "start.*",
            "Startup",
        ] {
            assert!(
                problem(Some(never)).unwrap().contains("never matches"),
                "{never}"
            );
        }
    }

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

/// Gemini CLI's session file (JSONL at `transcript_path`, observed in 0.61.0): a log of patches.
/// A model message is a line of `"type": "gemini"` whose `toolCalls` list the calls:
/// `activate_skill` loads `args.name`, `invoke_agent` spawns `args.agent_name`. A message line is
/// written again when its calls complete (the names count once); a `$set` line (the whole history
/// again, on resume) has no `type` and is not a message. A subagent writes a file of its own.
#[derive(Debug)]
pub struct GeminiSession;

impl TranscriptGrammar for GeminiSession {
    fn markers(&self) -> &'static [&'static str] {
        &["\"toolCalls\""]
    }

    fn record(&self, record: &serde_json::Value, seen: &mut dyn Seen) {
        if str_at(record, &["type"]) != Some("gemini") {
            return;
        }
        let Some(calls) = record
            .get("toolCalls")
            .and_then(serde_json::Value::as_array)
        else {
            return;
        };
        for call in calls {
            match str_at(call, &["name"]) {
                Some("activate_skill") => {
                    if let Some(name) = str_at(call, &["args", "name"]) {
                        seen.skill(name);
                    }
                }
                Some("invoke_agent") => {
                    if let Some(agent) = str_at(call, &["args", "agent_name"]) {
                        seen.spawned(agent);
                    }
                }
                _ => {}
            }
        }
    }
}
