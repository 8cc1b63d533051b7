//! Runtime agent definitions: what `sophia-hook agents sync` writes for each host, generated from
//! the `runtime` fields of the canonical source (`docs/agents/canonical-subagents.yaml`).
//!
//! One file per canonical agent and host, in the host's own format: a Codex custom agent
//! (`<id>.toml`, serialised by the `toml` crate: `name`, `description`, `developer_instructions`,
//! `sandbox_mode`, and `model`, `model_reasoning_effort` when set), a Claude Code subagent and a
//! Gemini CLI local subagent (`<id>.md`: YAML frontmatter and the instructions as the body).
//! No file names a model id unless the user mapped the role's tier (`economy`/`default`) to one
//! for that host in `~/.config/sophia-hook/config.yaml`: by default every child inherits the
//! session's model, which the user's account and provider are known to serve. Read-only roles
//! get a read-only sandbox (Codex) or read and search tools only (Claude Code, Gemini CLI).
//! Every file carries a generated-by marker with the fingerprint of the agent's source entry and
//! of the file's own content, so a later sync can tell a stale file from one the user edited.
//! Runtime fields are refused with the same secret and machine-path rules as routing fields.
//! Pure: the edge reads the source and the existing files and writes the new ones.

use serde::Serialize;

use crate::config::{ModelMap, Tier};
use crate::fingerprint::{canonical_json, sha256};
use crate::hosts::Host;
use crate::hosts::agent_file::Definition;
use crate::stages::agents::catalog::forbidden_content;
use crate::stages::agents::source::{BuildError, SourceRuntime};
use crate::stages::skills::catalog::is_valid_id;

/// The hosts that have runtime agent definitions, in the order sync handles them.
pub fn sync_hosts() -> Vec<Host> {
    Host::with_agents()
}

/// The text every generated file's marker line starts with (after the comment sign).
pub const MARKER: &str = "generated-by sophia-hook agents sync";

/// A canonical agent's runtime definition, host-neutral.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RuntimeAgent {
    pub id: String,
    /// The one-paragraph summary of the role (the source's `summary`).
    pub description: String,
    pub instructions: String,
    /// `true` for `permissions.sandbox: read-only`.
    pub read_only: bool,
    /// The role's model class (`runtime.tier`, `default` when absent): the user's `models` map
    /// turns it into a model id per host.
    pub tier: Tier,
    pub reasoning_effort: Option<String>,
    /// Abstract tool names (`read`, `search`, `list`, `edit`, `test`, …).
    pub tools: Vec<String>,
    pub prioritize: Vec<String>,
    pub avoid: Vec<String>,
}

impl RuntimeAgent {
    /// The fingerprint of this agent's runtime entry: what a generated file was made from.
    pub fn fingerprint(&self) -> String {
        let value = serde_json::to_value(self).unwrap_or_default();
        sha256(canonical_json(&value).as_bytes())
    }

    /// The model id for `host`: the one the user mapped this role's tier to, else none (the child
    /// inherits the session's model).
    pub fn model_for<'a>(&self, host: Host, models: &'a ModelMap) -> Option<&'a str> {
        models
            .get(host.as_str())
            .and_then(|tiers| tiers.get(&self.tier))
            .map(String::as_str)
    }
}

/// Reads the runtime fields of every agent of the canonical source. Call it after
/// [`crate::stages::agents::catalog::build`] accepted the source (which checks ids and routing fields).
/// Refuses empty instructions, a malformed model or effort, a host name `models` does not know,
/// and secret-like or machine-path values in any runtime field.
pub fn parse(source: &str) -> Result<Vec<RuntimeAgent>, BuildError> {
    let parsed = crate::stages::agents::source::parse::<SourceRuntime>(source)?;
    let mut agents = Vec::with_capacity(parsed.agents.len());
    for a in parsed.agents {
        let field_err = |field: &'static str, problem: String| a.field_error(field, problem);
        a.check_id()?;
        let r = &a.runtime;
        let instructions = r.instructions.trim().to_owned();
        if instructions.is_empty() {
            return Err(field_err(
                "runtime.instructions",
                "is empty (Codex refuses an agent without developer instructions)".into(),
            ));
        }
        let read_only = a.read_only()?;
        for (field, present) in [
            ("runtime.model", r.model.is_some()),
            ("runtime.models", r.models.is_some()),
        ] {
            if present {
                return Err(field_err(
                    field,
                    "names a model id, which a user whose account or provider lacks it cannot run: \
                     give the role `tier: economy` (bounded, cheap sub-tasks) or `tier: default`, \
                     and map tiers to model ids per host in ~/.config/sophia-hook/config.yaml \
                     (`models: {codex: {economy: <model id>}}`); unmapped, the child inherits the \
                     session's model"
                        .into(),
                ));
            }
        }
        let tier = match r.tier.as_deref() {
            None | Some("default") => Tier::Default,
            Some("economy") => Tier::Economy,
            Some(other) => {
                return Err(field_err(
                    "runtime.tier",
                    format!("{other:?} is not `economy` or `default`"),
                ));
            }
        };
        if let Some(effort) = r.reasoning_effort.as_deref().filter(|e| !is_valid_id(e)) {
            return Err(field_err(
                "runtime.reasoningEffort",
                format!("{effort:?} is not a lowercase word such as `low` or `high`"),
            ));
        }
        let fields: [(&'static str, Vec<&String>); 5] = [
            ("runtime.instructions", vec![&r.instructions]),
            ("runtime.tools", r.tools.iter().collect()),
            ("runtime.prioritize", r.prioritize.iter().collect()),
            ("runtime.avoid", r.avoid.iter().collect()),
            ("summary", vec![&a.summary]),
        ];
        for (field, values) in fields {
            for value in values {
                if let Some(problem) = forbidden_content(value) {
                    return Err(field_err(field, problem));
                }
            }
        }
        let (id, summary, r) = (a.id, a.summary, a.runtime);
        agents.push(RuntimeAgent {
            description: summary.split_whitespace().collect::<Vec<_>>().join(" "),
            id,
            instructions,
            read_only,
            tier,
            reasoning_effort: r.reasoning_effort,
            tools: r.tools,
            prioritize: r.prioritize,
            avoid: r.avoid,
        });
    }
    Ok(agents)
}

/// Whether `name` is a valid agent name for `host`, with the host's rule when it is not. Read in
/// the hosts' own code (`src/hosts/`); ids that pass the catalog's id rule pass them all.
pub fn check_name(host: Host, name: &str) -> Result<(), &'static str> {
    let rule = host
        .spec()
        .agents
        .as_ref()
        .map_or(crate::hosts::non_empty_name as fn(&str) -> _, |a| {
            a.check_name
        });
    rule(name)
}

/// The file name of `id`'s definition for `host`.
pub fn file_name(host: Host, id: &str) -> String {
    let ext = host.spec().agents.as_ref().map_or(".md", |a| a.ext);
    format!("{id}{ext}")
}

/// The host tools of an agent, in the host's definition format: `None` when the format lists
/// none or none maps (the child inherits the session's tools).
pub fn host_tools(host: Host, agent: &RuntimeAgent) -> Option<Vec<&'static str>> {
    host.spec()
        .agents
        .as_ref()?
        .format
        .tools(agent.read_only, &agent.tools)
}

/// The instructions a host receives: the source's, then what to prioritise and avoid.
fn full_instructions(agent: &RuntimeAgent) -> String {
    let mut text = agent.instructions.clone();
    if !agent.prioritize.is_empty() {
        text.push_str(&format!("\n\nPrioritize: {}.", agent.prioritize.join("; ")));
    }
    if !agent.avoid.is_empty() {
        text.push_str(&format!("\nAvoid: {}.", agent.avoid.join("; ")));
    }
    text
}

/// The marker line (with its newline) for a body made from `source_fp`.
fn marker_line(source_fp: &str, content_fp: &str) -> String {
    format!(
        "# {MARKER} (source {source_fp}, content {content_fp}); edit the canonical agent source and run the sync again: a hand edit is kept and reported as drift.\n"
    )
}

/// The whole file sophia-hook generates for `agent` on `host`, with the user's tier → model map:
/// the format's head, the marker line, the format's body.
pub fn render(host: Host, agent: &RuntimeAgent, models: &ModelMap) -> String {
    let Some(runtime) = host.spec().agents.as_ref() else {
        return String::new();
    };
    let instructions = full_instructions(agent);
    let body = runtime.format.body(&Definition {
        id: &agent.id,
        description: &agent.description,
        model: agent.model_for(host, models),
        reasoning_effort: agent.reasoning_effort.as_deref(),
        read_only: agent.read_only,
        tools: &agent.tools,
        instructions: &instructions,
    });
    let head = runtime.format.head();
    let content = format!("{head}{body}");
    let marker = marker_line(&agent.fingerprint(), &sha256(content.as_bytes()));
    format!("{head}{marker}{body}")
}

/// The file `agents sync` writes for `agent` on `host` at project scope: no model of the user's
/// map (a project's definitions are files a team shares; their roles inherit the session's
/// model). The one rendering both sync and [`is_synced_embedded`] use.
pub fn render_for_project(host: Host, agent: &RuntimeAgent) -> String {
    render(host, agent, &ModelMap::new())
}

/// Sophia's embedded roles as runtime agents, parsed once.
fn embedded() -> &'static [RuntimeAgent] {
    static EMBEDDED: std::sync::LazyLock<Vec<RuntimeAgent>> = std::sync::LazyLock::new(|| {
        parse(crate::stages::agents::DEFAULT_SOURCE).unwrap_or_default()
    });
    &EMBEDDED
}

/// Whether `text`, a project definition file of `host` named for `id`, is byte for byte what
/// `agents sync` writes at project scope for the embedded role `id` — so its tools, sandbox and
/// instructions are the ones the role's write policy describes. A marker alone proves nothing (a
/// repository can write one, with its fingerprint); an edited or stale file is not it.
pub fn is_synced_embedded(host: Host, id: &str, text: &str) -> bool {
    embedded()
        .iter()
        .find(|a| a.id == id)
        .is_some_and(|agent| render_for_project(host, agent) == text)
}

/// What a file on disk is, compared with the one sync would write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum FileState {
    Missing,
    /// Exactly what sync would write.
    UpToDate,
    /// Generated and untouched, from an older source: sync replaces it.
    Stale,
    /// Generated, then edited by hand: sync leaves it and reports it.
    Drifted,
    /// Not generated by sophia-hook (no marker): sync leaves it and reports it.
    Foreign,
}

impl FileState {
    pub fn as_str(self) -> &'static str {
        match self {
            FileState::Missing => "missing",
            FileState::UpToDate => "up-to-date",
            FileState::Stale => "stale",
            FileState::Drifted => "drifted",
            FileState::Foreign => "not-generated",
        }
    }

    /// Generated by sophia-hook and not edited since.
    pub fn is_unchanged_generated(self) -> bool {
        matches!(self, FileState::UpToDate | FileState::Stale)
    }
}

/// Splits a file into its marker's content fingerprint and the text without the marker line.
fn split_marker(text: &str) -> Option<(&str, String)> {
    let mut rest = String::with_capacity(text.len());
    let mut content_fp = None;
    for line in text.split_inclusive('\n') {
        if content_fp.is_none() && line.starts_with(&format!("# {MARKER} ")) {
            let fp = line.split("content ").nth(1)?.split([')', ',']).next()?;
            content_fp = Some(fp.trim());
            continue;
        }
        rest.push_str(line);
    }
    content_fp.map(|fp| (fp, rest))
}

/// Classifies an existing file against the fresh rendering.
pub fn classify(existing: Option<&str>, fresh: &str) -> FileState {
    let Some(existing) = existing else {
        return FileState::Missing;
    };
    if existing == fresh {
        return FileState::UpToDate;
    }
    match split_marker(existing) {
        None => FileState::Foreign,
        Some((fp, content)) if sha256(content.as_bytes()) == fp => FileState::Stale,
        Some(_) => FileState::Drifted,
    }
}

#[cfg(test)]
mod tests {
    // Tests parse what the code under test printed.
    #![allow(clippy::disallowed_methods)]
    use super::*;

    fn agents() -> Vec<RuntimeAgent> {
        parse(crate::stages::agents::DEFAULT_SOURCE).expect("the embedded source parses")
    }

    fn agent(id: &str) -> RuntimeAgent {
        agents().into_iter().find(|a| a.id == id).unwrap()
    }

    /// No user mapping: every role inherits the session's model.
    fn none() -> ModelMap {
        ModelMap::new()
    }

    fn mapped() -> ModelMap {
        crate::config::UserConfig::parse(
            "models:\n  codex:\n    economy: gpt-5.4-mini\n    default: gpt-5.5\n  claude:\n    economy: haiku\n  gemini:\n    default: gemini-2.5-pro\n",
        )
        .unwrap()
        .models
    }

    #[test]
    fn codex_toml_has_the_documented_keys_and_parses() {
        let text = render(Host::Codex, &agent("scout"), &none());
        assert!(text.starts_with(&format!("# {MARKER} (source sha256:")));
        let value: toml::Table = toml::from_str(&text).expect("valid TOML");
        let keys: Vec<&str> = value.keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            [
                "description",
                "developer_instructions",
                "name",
                "sandbox_mode"
            ],
            "no model id unless the user mapped one"
        );
        assert_eq!(value["name"].as_str(), Some("scout"));
        assert_eq!(value["sandbox_mode"].as_str(), Some("read-only"));
        let instructions = value["developer_instructions"].as_str().unwrap();
        assert!(instructions.starts_with("You are a scout."));
        assert!(instructions.contains("\nAvoid: opinions; edits; long dumps."));
        let writer: toml::Table =
            toml::from_str(&render(Host::Codex, &agent("implementer"), &none())).unwrap();
        assert_eq!(writer["sandbox_mode"].as_str(), Some("workspace-write"));
    }

    #[test]
    fn toml_escaping_survives_quotes_backslashes_and_controls() {
        let mut a = agent("scout");
        a.instructions = "say \"hi\" \\ then\ttab\r\nnext \u{7} bell \"\"\" end".into();
        a.description = "a \"quoted\" \\path-free\\ summary".into();
        let value: toml::Table = toml::from_str(&render(Host::Codex, &a, &none())).unwrap();
        assert!(
            value["developer_instructions"]
                .as_str()
                .unwrap()
                .starts_with("say \"hi\" \\ then\ttab\r\nnext \u{7} bell \"\"\" end")
        );
        assert_eq!(
            value["description"].as_str(),
            Some("a \"quoted\" \\path-free\\ summary")
        );
    }

    #[derive(Debug, serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Frontmatter {
        name: String,
        description: String,
        tools: Option<serde_json::Value>,
        model: Option<String>,
    }

    fn frontmatter(text: &str) -> (Frontmatter, String) {
        let rest = text.strip_prefix("---\n").expect("starts with ---");
        let (yaml, body) = rest.split_once("\n---\n").expect("closing ---");
        (
            serde_saphyr::from_str(yaml).expect("valid YAML"),
            body.into(),
        )
    }

    #[test]
    fn claude_markdown_read_only_roles_get_read_and_search_tools_only() {
        let (fm, body) = frontmatter(&render(Host::Claude, &agent("code_reviewer"), &none()));
        assert_eq!(fm.name, "code_reviewer");
        assert!(fm.description.starts_with("Read-only review of a diff"));
        assert_eq!(fm.tools, Some(serde_json::json!("Read, Grep, Glob")));
        assert_eq!(fm.model, None, "Codex model names never reach Claude Code");
        assert!(body.starts_with("You are a code reviewer."));
        let (fm, _) = frontmatter(&render(Host::Claude, &agent("implementer"), &none()));
        assert_eq!(fm.tools, Some(serde_json::json!("Read, Edit, Write, Bash")));
    }

    #[test]
    fn gemini_markdown_uses_its_strict_keys_and_tool_names() {
        let (fm, body) = frontmatter(&render(Host::Gemini, &agent("scout"), &none()));
        assert_eq!(fm.name, "scout");
        assert_eq!(
            fm.tools,
            Some(serde_json::json!([
                "read_file",
                "read_many_files",
                "grep_search",
                "glob",
                "list_directory"
            ]))
        );
        assert!(body.starts_with("You are a scout."));
    }

    #[test]
    fn copilot_markdown_lists_every_model_familys_tool_names() {
        // Copilot CLI enforces `tools` and drops names the session's model lacks: a read-only role
        // gets viewing and searching under gpt-5.4 (`rg`) and claude/gemini models (`grep`).
        for role in ["scout", "technical_analyst", "code_reviewer"] {
            let (fm, body) = frontmatter(&render(Host::Copilot, &agent(role), &none()));
            assert_eq!(fm.name, role);
            assert_eq!(
                fm.tools,
                Some(serde_json::json!(["view", "rg", "grep", "glob"])),
                "{role}"
            );
            assert!(body.starts_with("You are a"), "{body}");
        }
        // A writing role: its read, edit and test tools, in both families' names; no search.
        let (fm, _) = frontmatter(&render(Host::Copilot, &agent("implementer"), &none()));
        assert_eq!(
            fm.tools,
            Some(serde_json::json!([
                "view",
                "apply_patch",
                "edit",
                "create",
                "bash",
                "read_bash",
                "stop_bash",
                "list_bash"
            ]))
        );
    }

    #[test]
    fn no_generated_role_names_a_model_unless_the_user_mapped_its_tier() {
        // Every embedded role on every host, without a mapping: no model key at all.
        for a in agents() {
            let codex: toml::Table = toml::from_str(&render(Host::Codex, &a, &none())).unwrap();
            assert!(!codex.contains_key("model"), "{}", a.id);
            for host in [Host::Claude, Host::Gemini] {
                let (fm, _) = frontmatter(&render(host, &a, &none()));
                assert_eq!(fm.model, None, "{host:?} {}", a.id);
            }
        }
        // The embedded source gives the scout and the test writer the economy tier.
        assert_eq!(agent("scout").tier, Tier::Economy);
        assert_eq!(agent("test_writer").tier, Tier::Economy);
        assert_eq!(agent("implementer").tier, Tier::Default);
        // With the user's map: the tier's model for that host, and nothing for unmapped pairs.
        let scout = agent("scout");
        let codex: toml::Table = toml::from_str(&render(Host::Codex, &scout, &mapped())).unwrap();
        assert_eq!(codex["model"].as_str(), Some("gpt-5.4-mini"));
        let (fm, _) = frontmatter(&render(Host::Claude, &scout, &mapped()));
        assert_eq!(fm.model.as_deref(), Some("haiku"));
        let (fm, _) = frontmatter(&render(Host::Gemini, &scout, &mapped()));
        assert_eq!(fm.model, None, "gemini maps only the default tier");
        let implementer = agent("implementer");
        let (fm, _) = frontmatter(&render(Host::Gemini, &implementer, &mapped()));
        assert_eq!(fm.model.as_deref(), Some("gemini-2.5-pro"));
        let (fm, _) = frontmatter(&render(Host::Claude, &implementer, &mapped()));
        assert_eq!(fm.model, None);
    }

    #[test]
    fn a_source_that_names_model_ids_is_refused_with_the_tier_to_use_instead() {
        let src = crate::stages::agents::DEFAULT_SOURCE;
        for to in [
            "tier: economy\n      model: gpt-5.4-mini",
            "tier: economy\n      models: { claude: haiku }",
        ] {
            let changed = src.replacen("tier: economy", to, 1);
            assert_ne!(changed, src);
            let err = parse(&changed).unwrap_err().to_string();
            assert!(err.contains("agent \"scout\""), "{err}");
            assert!(
                err.contains("tier: economy") && err.contains("config.yaml"),
                "{err}"
            );
        }
        let bad = src.replacen("tier: economy", "tier: cheap", 1);
        assert!(
            parse(&bad)
                .unwrap_err()
                .to_string()
                .contains("runtime.tier")
        );
    }

    #[test]
    fn refusals_name_the_agent_and_the_runtime_field() {
        let src = crate::stages::agents::DEFAULT_SOURCE;
        let table: &[(&str, &str, &str)] = &[
            (
                "Do not propose designs, do not edit files.",
                "Read /home/alice/.ssh/config first.",
                "runtime.instructions: contains a user or machine path",
            ),
            (
                "Do not propose designs, do not edit files.",
                "Use api_key: abcdef123456 for the tracker.",
                "runtime.instructions: looks like a secret",
            ),
            (
                "tools: [read, search, list]",
                "tools: [read, ghp_abcdefghijklmnopqrstuvwxyz0123]",
                "runtime.tools: looks like a secret",
            ),
        ];
        for (from, to, want) in table {
            let changed = src.replacen(from, to, 1);
            assert_ne!(changed, src, "{from}");
            let err = parse(&changed).unwrap_err().to_string();
            assert!(err.contains("agent \"scout\""), "{err}");
            assert!(err.contains(want), "{want}: {err}");
        }
        let empty = src.replacen(
            "You are a scout. Find what the main agent asked for and report facts with file paths and\n        line numbers. Do not propose designs, do not edit files.",
            "",
            1,
        );
        assert_ne!(empty, src);
        assert!(
            parse(&empty)
                .unwrap_err()
                .to_string()
                .contains("runtime.instructions")
        );
    }

    #[test]
    fn host_name_rules() {
        for host in sync_hosts() {
            for id in ["scout", "code_reviewer", "test-writer"] {
                assert_eq!(check_name(host, id), Ok(()), "{host:?} {id}");
            }
            assert!(check_name(host, "").is_err());
        }
        assert!(check_name(Host::Gemini, "Scout").is_err());
        assert!(check_name(Host::Claude, "-scout").is_err());
        assert!(check_name(Host::Claude, "plugin:scout").is_err());
        assert_eq!(check_name(Host::Claude, "Scout"), Ok(()));
    }

    #[test]
    fn states_tell_stale_from_edited_and_foreign() {
        let a = agent("scout");
        for host in sync_hosts() {
            let fresh = render(host, &a, &none());
            assert_eq!(classify(None, &fresh), FileState::Missing);
            assert_eq!(classify(Some(&fresh), &fresh), FileState::UpToDate);
            let mut newer = a.clone();
            newer.instructions.push_str(" Be brief.");
            let newer = render(host, &newer, &none());
            assert_eq!(classify(Some(&fresh), &newer), FileState::Stale, "{host:?}");
            let edited = fresh.replace("You are a scout.", "You are my scout.");
            assert_eq!(classify(Some(&edited), &fresh), FileState::Drifted);
            let unmarked: String = fresh
                .lines()
                .filter(|l| !l.contains(MARKER))
                .map(|l| format!("{l}\n"))
                .collect();
            assert_eq!(classify(Some(&unmarked), &fresh), FileState::Foreign);
        }
    }

    #[test]
    fn fingerprint_follows_the_runtime_entry() {
        let a = agent("scout");
        let mut b = a.clone();
        assert_eq!(a.fingerprint(), b.fingerprint());
        assert_eq!(a.tier, Tier::Economy);
        b.tier = Tier::Default;
        assert_ne!(a.fingerprint(), b.fingerprint());
    }
}
