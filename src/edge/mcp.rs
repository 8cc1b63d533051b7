//! Which Sophia MCP servers a host has here, for grounding the embedded skills
//! (`skills::grounding`): the servers named in the host's own MCP settings files
//! (`HostSpec::mcp`, user and project), and the servers checked out in the project when it is the
//! `mcp-servers` repository itself. Read only when the catalog is the embedded one, each file
//! through the bounded reader (a project file only inside the project), stopping when the time
//! budget is spent; a file that is missing, too large or does not parse names no server.

use std::path::Path;

use serde_json::Value;
use serde_json::value::RawValue;

use crate::bounded;
use crate::config::ProjectConfig;
use crate::edge::files::{Place, ProjectRoot, caps};
use crate::edge::settings::Settings;
use crate::hosts::{Host, HostHome, McpFormat, PluginPlace, UserPath};
use crate::skills::grounding::{EmbeddedSkills, Grounding, ModeFrom, SERVERS, server_of_entry};

/// A project with at least this many of the servers' folders (each with its `package.json`) is
/// a checkout of `mcp-servers`: one folder named like a server is not.
pub const CHECKOUT_MIN_SERVERS: usize = 3;

/// The mode that applies and who chose it: the environment, else a project's `off`, else the
/// user's `config.yaml`, else `auto`.
pub fn mode(settings: &Settings, config: &ProjectConfig) -> (EmbeddedSkills, ModeFrom) {
    match settings.embedded_skills {
        Some(chosen @ (_, ModeFrom::Environment)) => chosen,
        _ if config.embedded_skills == Some(EmbeddedSkills::Off) => {
            (EmbeddedSkills::Off, ModeFrom::ProjectConfig)
        }
        Some(chosen) => chosen,
        None => (EmbeddedSkills::Auto, ModeFrom::Default),
    }
}

/// The grounding of the embedded skills for `host` working in `cwd` inside `root`.
pub fn grounding(
    host: Host,
    cwd: &Path,
    root: &ProjectRoot,
    settings: &Settings,
    config: &ProjectConfig,
    over_budget: &dyn Fn() -> bool,
) -> Grounding {
    let (mode, from) = mode(settings, config);
    let mut grounding = Grounding::new(mode, from);
    if mode != EmbeddedSkills::Auto {
        return grounding;
    }
    for file in host.spec().mcp {
        if over_budget() {
            return grounding;
        }
        let (path, place) = match file.place {
            PluginPlace::User(user) => (
                user.resolve(settings.home.as_deref(), &settings.host_homes)
                    .map(Place::user),
                user_place(user),
            ),
            PluginPlace::Project(rel) => (Some(root.at(rel)), format!("project:{rel}")),
        };
        let Some(text) = path.and_then(|p| p.read_string(caps::SETTINGS).ok()) else {
            continue;
        };
        if !may_name_a_server(&text) {
            // Most files name no Sophia server: they are not parsed at all.
            continue;
        }
        for (key, command) in entries(&text, file.format, cwd, root.path()) {
            if let Some(server) = server_of_entry(&key, command.iter().map(String::as_str)) {
                grounding
                    .servers
                    .entry(server)
                    .or_insert_with(|| place.clone());
            }
        }
    }
    // A folder per server first (one `lstat` each), and only then where each really leads.
    let folders = SERVERS.iter().filter(|s| root.at(s.dir).exists()).count();
    let checked_out: Vec<_> = if folders < CHECKOUT_MIN_SERVERS {
        Vec::new()
    } else {
        SERVERS
            .iter()
            .filter(|s| root.at(Path::new(s.dir).join("package.json")).is_file())
            .collect()
    };
    if checked_out.len() >= CHECKOUT_MIN_SERVERS {
        for s in checked_out {
            grounding
                .servers
                .entry(s.name)
                .or_insert_with(|| format!("checkout:{}", s.dir));
        }
    }
    grounding
}

/// Whether `text` can name a Sophia server at all: every server's name ends in `-mcp-server` and
/// every folder in `-node`, in any case ([`server_of_entry`]), so a file with neither names none.
fn may_name_a_server(text: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    lower.contains("-mcp-server") || lower.contains("-node")
}

/// The file as the user knows it (`~/.claude.json`, `$CODEX_HOME/config.toml`): never this
/// machine's path, so nothing of it reaches `explain` or `doctor` but a fixed name.
fn user_place(path: UserPath) -> String {
    match path {
        UserPath::Home(p) => format!("~/{p}"),
        UserPath::HostHome(HostHome { var, .. }, p) => format!("${var}/{p}"),
    }
}

/// Each enabled server entry of a settings file: its name, then its command and arguments.
fn entries(text: &str, format: McpFormat, cwd: &Path, root: &Path) -> Vec<(String, Vec<String>)> {
    match format {
        McpFormat::Toml(table) => {
            let Ok(doc) = bounded::toml::<toml::Table>(text, bounded::FILE) else {
                return Vec::new();
            };
            let Some(servers) = doc.get(table).and_then(toml::Value::as_table) else {
                return Vec::new();
            };
            servers
                .iter()
                .filter_map(|(name, entry)| {
                    let entry = entry.as_table()?;
                    if entry.get("enabled").and_then(toml::Value::as_bool) == Some(false) {
                        return None;
                    }
                    let mut command: Vec<String> = entry
                        .get("command")
                        .and_then(toml::Value::as_str)
                        .map(str::to_owned)
                        .into_iter()
                        .collect();
                    if let Some(args) = entry.get("args").and_then(toml::Value::as_array) {
                        command.extend(args.iter().filter_map(|a| a.as_str().map(str::to_owned)));
                    }
                    Some((name.clone(), command))
                })
                .collect()
        }
        McpFormat::Json(key) => json(text)
            .map(|doc| json_servers(doc.get(key)))
            .unwrap_or_default(),
        McpFormat::ClaudeUserJson => {
            // `~/.claude.json` holds much else (every project's state): only the two keys are
            // kept, the rest skipped without being built.
            let doc = claude_user(text).or_else(|| json(text));
            let Some(doc) = doc else {
                return Vec::new();
            };
            let mut out = json_servers(doc.get("mcpServers"));
            // Local scope: the servers of the folder Claude Code was started in, which is the
            // working folder or one above it, inside the project.
            if let Some(projects) = doc.get("projects").and_then(Value::as_object) {
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
}

/// `~/.claude.json` reduced to `mcpServers` and each project's `mcpServers`, as a JSON value.
fn claude_user(text: &str) -> Option<Value> {
    #[derive(serde::Deserialize)]
    struct Project {
        #[serde(rename = "mcpServers", default)]
        mcp_servers: Option<Box<RawValue>>,
    }
    #[derive(serde::Deserialize)]
    struct User {
        #[serde(rename = "mcpServers", default)]
        mcp_servers: Option<Box<RawValue>>,
        #[serde(default)]
        projects: Option<std::collections::BTreeMap<String, Project>>,
    }
    let user: User = bounded::json_str(text, bounded::SKIMMED).ok()?;
    let value = |raw: Option<Box<RawValue>>| {
        raw.and_then(|r| bounded::json_value(r.get().as_bytes(), bounded::FILE).ok())
    };
    let projects: serde_json::Map<String, Value> = user
        .projects
        .unwrap_or_default()
        .into_iter()
        .filter_map(|(folder, p)| {
            Some((
                folder,
                serde_json::json!({"mcpServers": value(p.mcp_servers)?}),
            ))
        })
        .collect();
    Some(serde_json::json!({"mcpServers": value(user.mcp_servers), "projects": projects}))
}

/// A JSON settings file, comments allowed (Gemini CLI's `settings.json` is JSONC).
fn json(text: &str) -> Option<Value> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    bounded::jsonc_value(text, bounded::FILE, &Default::default()).ok()
}

fn json_servers(servers: Option<&Value>) -> Vec<(String, Vec<String>)> {
    let Some(servers) = servers.and_then(Value::as_object) else {
        return Vec::new();
    };
    servers
        .iter()
        .filter(|(_, entry)| {
            entry.get("disabled").and_then(Value::as_bool) != Some(true)
                && entry.get("enabled").and_then(Value::as_bool) != Some(false)
        })
        .map(|(name, entry)| {
            let mut command: Vec<String> = entry
                .get("command")
                .and_then(Value::as_str)
                .map(str::to_owned)
                .into_iter()
                .collect();
            if let Some(args) = entry.get("args").and_then(Value::as_array) {
                command.extend(args.iter().filter_map(|a| a.as_str().map(str::to_owned)));
            }
            (name.clone(), command)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_prefilter_sees_every_server_name_and_folder() {
        for s in SERVERS {
            assert!(
                s.name.ends_with("-mcp-server") && s.dir.ends_with("-node"),
                "{s:?}"
            );
            for text in [
                s.name,
                s.dir,
                &s.name.to_uppercase(),
                &format!("C:\\x\\{}\\i.js", s.dir),
            ] {
                assert!(may_name_a_server(text), "{text}");
            }
        }
        assert!(!may_name_a_server(
            r#"{"mcpServers": {"github": {"command": "npx"}}}"#
        ));
    }

    #[test]
    fn entries_of_each_format() {
        let root = Path::new("/p");
        let cwd = Path::new("/p/sub");
        let toml = "[mcp_servers.sql-mcp-server]\ncommand = \"node\"\nargs = [\"/x/sql-node/index.js\"]\n\
                    [mcp_servers.off]\ncommand = \"node\"\nargs = [\"/x/docs-node/index.js\"]\nenabled = false\n";
        let got = entries(toml, McpFormat::Toml("mcp_servers"), cwd, root);
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].0, "sql-mcp-server");
        let jsonc = "{\n // mine\n \"mcpServers\": {\"db\": {\"command\": \"node\", \"args\": [\"sql-node/index.js\"]}, \
                     \"gone\": {\"command\": \"x\", \"disabled\": true}}}";
        let got = entries(jsonc, McpFormat::Json("mcpServers"), cwd, root);
        assert_eq!(
            got,
            vec![(
                "db".to_owned(),
                vec!["node".to_owned(), "sql-node/index.js".to_owned()]
            )]
        );
        let claude = r#"{"mcpServers": {"a": {}}, "projects": {"/p": {"mcpServers": {"b": {}}},
                        "/p/sub": {"mcpServers": {"c": {}}}, "/": {"mcpServers": {"above-root": {}}},
                        "/other": {"mcpServers": {"d": {}}}}}"#;
        let mut names: Vec<String> = entries(claude, McpFormat::ClaudeUserJson, cwd, root)
            .into_iter()
            .map(|(n, _)| n)
            .collect();
        names.sort();
        assert_eq!(names, ["a", "b", "c"]);
        assert!(entries("not json", McpFormat::Json("mcpServers"), cwd, root).is_empty());
        assert!(entries("[[x", McpFormat::Toml("mcp_servers"), cwd, root).is_empty());
    }
}
