//! How a host's runtime agent definition file is written (`agents sync`): one trait, the
//! Markdown form with YAML frontmatter that Claude Code, Gemini CLI and Copilot CLI share here,
//! Codex's TOML in its file. `agents::runtime` adds the marker line between the head and the body
//! and owns everything about the canonical source. Pure: no I/O.

use std::fmt::Debug;

use super::AgentTools;

/// A host's definition file format (`AgentRuntime::format`).
pub trait DefinitionFormat: Sync + Debug {
    /// What the file starts with, before sophia-hook's marker line (`---\n` opens frontmatter).
    fn head(&self) -> &'static str;

    /// The file after the marker line.
    fn body(&self, def: &Definition<'_>) -> String;

    /// The host's tools for a role, when the format lists them: `None` inherits the session's.
    fn tools(&self, _read_only: bool, _tools: &[String]) -> Option<Vec<&'static str>> {
        None
    }
}

/// One role as a host's definition file states it.
#[derive(Debug)]
pub struct Definition<'a> {
    pub id: &'a str,
    pub description: &'a str,
    /// The model the user mapped the role's tier to for this host, if any.
    pub model: Option<&'a str>,
    pub reasoning_effort: Option<&'a str>,
    pub read_only: bool,
    /// The source's abstract tools (`read`, `edit`…).
    pub tools: &'a [String],
    /// The source's instructions with what to prioritise and avoid.
    pub instructions: &'a str,
}

/// YAML frontmatter (`name`, `description`, `tools` in the host's names, `model`) and the
/// instructions as the body.
#[derive(Debug)]
pub struct Markdown {
    pub tools: Option<AgentTools>,
}

/// The frontmatter of a Markdown definition, in the order the file states it.
#[derive(serde::Serialize)]
struct Frontmatter<'a> {
    name: &'a str,
    description: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    tools: Option<Tools>,
    #[serde(skip_serializing_if = "Option::is_none")]
    model: Option<&'a str>,
}

/// The tools line: one comma-separated string, or a list (`AgentTools::as_string`).
#[derive(serde::Serialize)]
#[serde(untagged)]
enum Tools {
    Joined(String),
    List(Vec<&'static str>),
}

/// `value` (an object) as YAML 1.2 in flow style, a `key: value` line per field: every scalar
/// a JSON string or number (which YAML 1.2 reads the same), a list as `[a, b]`.
fn yaml_lines(value: &serde_json::Value) -> String {
    let mut out = String::new();
    for (key, field) in value.as_object().into_iter().flatten() {
        let text = match field {
            serde_json::Value::Array(items) => {
                let items: Vec<String> = items.iter().map(ToString::to_string).collect();
                format!("[{}]", items.join(", "))
            }
            other => other.to_string(),
        };
        out.push_str(&format!("{key}: {text}\n"));
    }
    out
}

impl DefinitionFormat for Markdown {
    fn head(&self) -> &'static str {
        "---\n"
    }

    fn body(&self, def: &Definition<'_>) -> String {
        let as_string = self.tools.as_ref().is_some_and(|t| t.as_string);
        let front = Frontmatter {
            name: def.id,
            description: def.description,
            tools: self
                .tools(def.read_only, def.tools)
                .map(|tools| match as_string {
                    true => Tools::Joined(tools.join(", ")),
                    false => Tools::List(tools),
                }),
            model: def.model,
        };
        // Strings only: serialisation cannot fail.
        let mut out = serde_json::to_value(&front)
            .map(|v| yaml_lines(&v))
            .unwrap_or_default();
        out.push_str("---\n");
        out.push_str(def.instructions);
        out.push('\n');
        out
    }

    /// The host's read and search tools for a read-only role; else the abstract tools mapped,
    /// or `None` (inherit the session's tools) when none maps.
    fn tools(&self, read_only: bool, tools: &[String]) -> Option<Vec<&'static str>> {
        let names = self.tools.as_ref()?;
        if read_only {
            // Whatever the source lists, a read-only role reads and searches, and nothing else.
            return Some(names.read_only.to_vec());
        }
        let mut out: Vec<&'static str> = Vec::new();
        for t in tools.iter().flat_map(|t| (names.map)(t)) {
            if !out.contains(t) {
                out.push(t);
            }
        }
        (!out.is_empty()).then_some(out)
    }
}
