//! Which Sophia MCP servers a host has here, for grounding the embedded skills
//! (`skills::grounding`): the servers named in the host's own MCP settings files
//! (`HostSpec::mcp`, user and project), and the servers checked out in the project when it is the
//! `mcp-servers` repository itself. Read only when the catalog is the embedded one, each file
//! through the bounded reader (a project file only inside the project), stopping when the time
//! budget is spent; a file that is missing, too large or does not parse names no server.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;
use serde_json::value::RawValue;

use crate::bounded;
use crate::config::ProjectConfig;
use crate::edge::documents;
use crate::edge::files::{Place, ProjectRoot, caps};
use crate::edge::settings::Settings;
use crate::hosts::{Host, HostHome, JsonSkim, McpEntry, McpServers, PluginPlace, UserPath};
use crate::stages::skills::grounding::{
    EmbeddedSkills, Grounding, ModeFrom, SERVERS, server_of_entry,
};

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
        for (key, command) in entries(&text, file.servers, cwd, root.path()) {
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

/// Each enabled server entry of a settings file: its name, then its command and arguments. The
/// file is parsed here (skimmed where the host says so, else in its syntax, within the bounded
/// parsers' budgets); the host reads its servers in the document.
fn entries(text: &str, servers: &dyn McpServers, cwd: &Path, root: &Path) -> Vec<McpEntry> {
    let doc = servers
        .skim()
        .and_then(|skim| skimmed(text, skim))
        .or_else(|| documents::parse(text, servers.syntax()));
    doc.map(|doc| servers.servers(&doc, cwd, root))
        .unwrap_or_default()
}

/// A JSON file too large to build whole, reduced to what `skim` keeps, as a JSON value: the
/// whole file is counted within [`bounded::SKIMMED`], and each kept value built within
/// [`bounded::FILE`]. `None` when the file is not an object, or its `each` key holds anything
/// but an object of objects (or `null`).
fn skimmed(text: &str, skim: JsonSkim) -> Option<Value> {
    type Raw = BTreeMap<String, Box<RawValue>>;
    let doc: Raw = bounded::json_str(text, bounded::SKIMMED).ok()?;
    let value = |raw: Option<&Box<RawValue>>| {
        raw.and_then(|r| bounded::json_value(r.get().as_bytes(), bounded::FILE).ok())
    };
    let mut out = serde_json::Map::new();
    for key in skim.root {
        out.insert(
            (*key).to_owned(),
            value(doc.get(*key)).unwrap_or(Value::Null),
        );
    }
    if let Some((each, keys)) = skim.each {
        let entries: BTreeMap<String, Raw> = match doc.get(each) {
            Some(raw) => bounded::json_str::<Option<_>>(raw.get(), bounded::SKIMMED)
                .ok()?
                .unwrap_or_default(),
            None => BTreeMap::new(),
        };
        let entries: serde_json::Map<String, Value> = entries
            .into_iter()
            .filter_map(|(name, entry)| {
                let kept: serde_json::Map<String, Value> = keys
                    .iter()
                    .filter_map(|k| Some(((*k).to_owned(), value(entry.get(*k))?)))
                    .collect();
                (!kept.is_empty()).then_some((name, Value::Object(kept)))
            })
            .collect();
        out.insert(each.to_owned(), Value::Object(entries));
    }
    Some(Value::Object(out))
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
        // Codex's `config.toml`, Claude Code's `.mcp.json` and `~/.claude.json`.
        let codex = Host::Codex.spec().mcp[0].servers;
        let json_servers = Host::Claude.spec().mcp[1].servers;
        let claude_user = Host::Claude.spec().mcp[0].servers;
        let toml = "[mcp_servers.sql-mcp-server]\ncommand = \"node\"\nargs = [\"/x/sql-node/index.js\"]\n\
                    [mcp_servers.off]\ncommand = \"node\"\nargs = [\"/x/docs-node/index.js\"]\nenabled = false\n";
        let got = entries(toml, codex, cwd, root);
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].0, "sql-mcp-server");
        let jsonc = "{\n // mine\n \"mcpServers\": {\"db\": {\"command\": \"node\", \"args\": [\"sql-node/index.js\"]}, \
                     \"gone\": {\"command\": \"x\", \"disabled\": true}}}";
        let got = entries(jsonc, json_servers, cwd, root);
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
        let mut names: Vec<String> = entries(claude, claude_user, cwd, root)
            .into_iter()
            .map(|(n, _)| n)
            .collect();
        names.sort();
        assert_eq!(names, ["a", "b", "c"]);
        assert!(entries("not json", json_servers, cwd, root).is_empty());
        assert!(entries("[[x", codex, cwd, root).is_empty());
    }

    /// What the skim keeps of `~/.claude.json`: the user's servers (`null` when missing), and
    /// each project's servers, a project without them left out; a file of another shape is not
    /// skimmed (it is then read whole).
    #[test]
    fn the_skim_keeps_only_the_kept_keys() {
        let skim = JsonSkim {
            root: &["mcpServers"],
            each: Some(("projects", &["mcpServers"])),
        };
        let got = skimmed(
            r#"{"history": [1, 2], "projects": {"/a": {"mcpServers": {"x": {}}, "state": 1},
                "/b": {"state": 2}}}"#,
            skim,
        );
        assert_eq!(
            got,
            Some(
                serde_json::json!({"mcpServers": null, "projects": {"/a": {"mcpServers": {"x": {}}}}})
            )
        );
        assert_eq!(
            skimmed(r#"{"mcpServers": {"y": {}}, "projects": null}"#, skim),
            Some(serde_json::json!({"mcpServers": {"y": {}}, "projects": {}}))
        );
        for other in [
            "[1]",
            r#"{"projects": {"/a": null}}"#,
            r#"{"projects": 1}"#,
            "{",
        ] {
            assert_eq!(skimmed(other, skim), None, "{other}");
        }
    }
}
