//! What `sophia-hook plugin build` writes: each host's plugin (or extension) folder, from the
//! host's [`PluginLayout`] in `src/hosts/`. Pure: the hosts' layouts in, a list of files out; the
//! command writes them (and copies the binary where [`Contents::Binary`] stands).
//!
//! Every folder ships the native binary at `bin/sophia-hook` (`bin/sophia-hook.exe` for Windows),
//! and every hook command starts that binary with an explicit `--host` and `--event`, through the
//! plugin root the host substitutes or sets (`${CLAUDE_PLUGIN_ROOT}`, `$PLUGIN_ROOT`,
//! `${extensionPath}`): never a launcher, never a binary on PATH, never the environment sniffed.
//! The handlers are `install`'s own ([`crate::install::handler_for`]), in the hooks document
//! `install` would create ([`crate::install::hooks_document`]), and the agent definitions are
//! `agents sync`'s ([`crate::stages::agents::runtime::render`]) for the embedded roles.

use serde_json::{Value, json};

use crate::hosts::Host;
use crate::hosts::{PluginAbout, PluginLayout};
use crate::install::{Program, handler_for, hooks_document};

/// The plugin's name in every manifest, and the marketplace's name.
pub const NAME: &str = "sophia-hook";

/// The folder under `--out` that every marketplace host installs.
pub const MARKETPLACE_DIR: &str = "marketplace";

/// The manifests' version: this build's.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

const DESCRIPTION: &str = "Deterministic prompt routing for AI coding hosts: context mode, \
                           delegation, skills and subagent roles, as a command hook";

/// The manifests' author and the marketplaces' owner.
const AUTHOR: &str = "sophia-hook maintainers";

/// What the marketplace files say of the plugin, in each host's listing format.
const ABOUT: PluginAbout = PluginAbout {
    name: NAME,
    version: VERSION,
    description: DESCRIPTION,
    author: AUTHOR,
};

/// The manifests' license: this crate's.
const LICENSE: &str = env!("CARGO_PKG_LICENSE");

/// One file of the output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PluginFile {
    /// Relative to `--out`, `/`-separated.
    pub path: String,
    pub contents: Contents,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Contents {
    Text(String),
    /// The sophia-hook binary, copied by the command and made executable.
    Binary,
}

impl PluginFile {
    /// Whether the file must be executable (the binary).
    pub fn executable(&self) -> bool {
        self.contents == Contents::Binary
    }
}

/// The binary's file name inside `bin/`.
pub fn binary_name(windows: bool) -> &'static str {
    if windows {
        "sophia-hook.exe"
    } else {
        "sophia-hook"
    }
}

/// The hosts with a plugin layout, in registry order.
pub fn hosts() -> Vec<(Host, &'static PluginLayout)> {
    Host::ALL
        .into_iter()
        .filter_map(|h| h.spec().plugin.as_ref().map(|p| (h, p)))
        .collect()
}

/// The plugin folder of `layout`, relative to `--out`.
pub fn plugin_dir(layout: &PluginLayout) -> String {
    layout.home.dir(MARKETPLACE_DIR)
}

/// Every file `plugin build` writes, for a Windows (`windows`) or other target, sorted by path.
pub fn files(windows: bool) -> Result<Vec<PluginFile>, crate::stages::agents::source::BuildError> {
    let roles = crate::stages::agents::runtime::parse(crate::stages::agents::DEFAULT_SOURCE)?;
    let no_models = crate::config::ModelMap::new();
    let mut out = Vec::new();
    for (host, layout) in hosts() {
        let dir = plugin_dir(layout);
        out.push(text(
            format!("{dir}/{}", layout.manifest),
            &manifest(layout),
        ));
        let program = Program::plugin(&layout.root, binary_name(windows));
        let hooks = hooks_document(host, |event| {
            handler_for(&program, host, event, layout.handler, windows)
        });
        out.push(text(format!("{dir}/{}", layout.hooks), &hooks));
        if let Some(agents) = layout.agents {
            for role in &roles {
                out.push(PluginFile {
                    path: format!(
                        "{dir}/{agents}/{}",
                        crate::stages::agents::runtime::file_name(host, &role.id)
                    ),
                    contents: Contents::Text(crate::stages::agents::runtime::render(
                        host, role, &no_models,
                    )),
                });
            }
        }
        out.push(PluginFile {
            path: format!("{dir}/bin/{}", binary_name(windows)),
            contents: Contents::Binary,
        });
        if let Some((listing, document)) = layout.home.listing(MARKETPLACE_DIR, &ABOUT) {
            out.push(text(listing, &document));
        }
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(out)
}

/// Whether `handler`, in the hooks file of `host`'s plugin folder, is one `plugin build` writes:
/// its command line (the handler form's command key) is ours for one of the host's events, for
/// either system.
pub fn is_plugin_handler(host: Host, handler: &Value) -> bool {
    let Some(layout) = host.spec().plugin.as_ref() else {
        return false;
    };
    let key = layout.handler.command_key();
    let Some(line) = handler.get(key) else {
        return false;
    };
    [false, true].into_iter().any(|windows| {
        let program = Program::plugin(&layout.root, binary_name(windows));
        host.spec().events.registered.iter().any(|event| {
            handler_for(&program, host, *event, layout.handler, windows).get(key) == Some(line)
        })
    })
}

/// Pretty JSON with a final newline.
fn text(path: String, value: &Value) -> PluginFile {
    let mut body = serde_json::to_string_pretty(value).unwrap_or_default();
    body.push('\n');
    PluginFile {
        path,
        contents: Contents::Text(body),
    }
}

/// The plugin's manifest: name, version, description, and the hooks file where the host reads
/// it from the manifest.
fn manifest(layout: &PluginLayout) -> Value {
    let mut m = json!({
        "name": NAME,
        "version": VERSION,
        "description": DESCRIPTION,
        "author": {"name": AUTHOR},
        "license": LICENSE,
    });
    if let Some(hooks) = layout.manifest_hooks {
        m["hooks"] = Value::from(hooks);
    }
    m
}

#[cfg(test)]
mod tests {
    // Tests parse what the code under test printed.
    #![allow(clippy::disallowed_methods)]
    use super::*;

    fn json_of(files: &[PluginFile], path: &str) -> Value {
        let file = files
            .iter()
            .find(|f| f.path == path)
            .unwrap_or_else(|| panic!("{path} missing"));
        match &file.contents {
            Contents::Text(t) => serde_json::from_str(t).unwrap(),
            Contents::Binary => panic!("{path} is the binary"),
        }
    }

    /// Every command line (or `commandWindows`/`powershell` line) in a hooks document.
    fn lines(doc: &Value, key: &str) -> Vec<String> {
        let mut out = Vec::new();
        fn walk(v: &Value, key: &str, out: &mut Vec<String>) {
            match v {
                Value::Object(m) => {
                    for (k, v) in m {
                        if k == key {
                            out.push(v.as_str().unwrap().to_owned());
                        } else {
                            walk(v, key, out);
                        }
                    }
                }
                Value::Array(a) => a.iter().for_each(|v| walk(v, key, out)),
                _ => {}
            }
        }
        walk(doc, key, &mut out);
        out
    }

    #[test]
    fn every_hook_line_starts_the_plugins_own_binary_with_host_and_event() {
        // (hooks file, key, windows, the line's start, host)
        let table: &[(&str, &str, bool, &str, &str)] = &[
            (
                "marketplace/plugins/claude/hooks/hooks.json",
                "command",
                false,
                "\"${CLAUDE_PLUGIN_ROOT}/bin/sophia-hook\" --host claude --event ",
                "claude",
            ),
            (
                "marketplace/plugins/claude/hooks/hooks.json",
                "command",
                true,
                "\"${CLAUDE_PLUGIN_ROOT}/bin/sophia-hook.exe\" --host claude --event ",
                "claude",
            ),
            (
                "marketplace/plugins/codex/hooks/hooks.json",
                "command",
                false,
                "\"${PLUGIN_ROOT}/bin/sophia-hook\" --host codex --event ",
                "codex",
            ),
            (
                "marketplace/plugins/codex/hooks/hooks.json",
                "commandWindows",
                true,
                "& \"$env:PLUGIN_ROOT\\bin\\sophia-hook.exe\" --host codex --event ",
                "codex",
            ),
            (
                "marketplace/plugins/copilot/hooks/hooks.json",
                "bash",
                false,
                "\"$PLUGIN_ROOT/bin/sophia-hook\" --host copilot --event ",
                "copilot",
            ),
            (
                "marketplace/plugins/copilot/hooks/hooks.json",
                "powershell",
                true,
                "& \"$env:PLUGIN_ROOT\\bin\\sophia-hook.exe\" --host copilot --event ",
                "copilot",
            ),
            (
                "gemini-extension/hooks/hooks.json",
                "command",
                false,
                "\"${extensionPath}${/}bin${/}sophia-hook\" --host gemini --event ",
                "gemini",
            ),
            // Gemini CLI runs `command` through PowerShell on Windows.
            (
                "gemini-extension/hooks/hooks.json",
                "command",
                true,
                "& \"${extensionPath}${/}bin${/}sophia-hook.exe\" --host gemini --event ",
                "gemini",
            ),
        ];
        for &(path, key, windows, start, host) in table {
            let doc = json_of(&files(windows).unwrap(), path);
            let found = lines(&doc, key);
            let host: Host = clap::ValueEnum::from_str(host, false).unwrap();
            assert_eq!(found.len(), host.spec().events.registered.len(), "{path}");
            for (line, event) in found.iter().zip(host.spec().events.registered) {
                assert_eq!(
                    *line,
                    format!("{start}{}", host.event_name(*event)),
                    "{path} {key} windows={windows}"
                );
            }
        }
        // No `commandWindows` outside a Windows build.
        let doc = json_of(
            &files(false).unwrap(),
            "marketplace/plugins/codex/hooks/hooks.json",
        );
        assert!(lines(&doc, "commandWindows").is_empty());
    }

    #[test]
    fn manifests_name_the_hooks_file_only_where_the_host_reads_it_there() {
        let files = files(false).unwrap();
        for (path, hooks) in [
            (
                "marketplace/plugins/claude/.claude-plugin/plugin.json",
                None,
            ),
            (
                "marketplace/plugins/codex/.codex-plugin/plugin.json",
                Some("./hooks/hooks.json"),
            ),
            (
                "marketplace/plugins/copilot/.plugin/plugin.json",
                Some("hooks/hooks.json"),
            ),
            ("gemini-extension/gemini-extension.json", None),
        ] {
            let m = json_of(&files, path);
            assert_eq!(m["hooks"].as_str(), hooks, "{path}");
            assert_eq!(m["name"], NAME);
            assert_eq!(m["version"], VERSION);
        }
    }

    #[test]
    fn each_marketplace_lists_its_own_hosts_folder() {
        let files = files(false).unwrap();
        let claude = json_of(&files, "marketplace/.claude-plugin/marketplace.json");
        assert_eq!(claude["plugins"][0]["source"], "./plugins/claude");
        let copilot = json_of(&files, "marketplace/.github/plugin/marketplace.json");
        assert_eq!(copilot["plugins"][0]["source"], "./plugins/copilot");
        let codex = json_of(&files, "marketplace/.agents/plugins/marketplace.json");
        assert_eq!(
            codex["plugins"][0]["source"],
            json!({"source": "local", "path": "./plugins/codex"})
        );
    }

    #[test]
    fn the_hooks_documents_are_installs_own_layouts() {
        let files = files(false).unwrap();
        let claude = json_of(&files, "marketplace/plugins/claude/hooks/hooks.json");
        let events: Vec<&String> = claude["hooks"].as_object().unwrap().keys().collect();
        assert_eq!(events, ["SessionStart", "UserPromptSubmit", "PostToolUse"]);
        assert_eq!(
            claude["hooks"]["SessionStart"][0]["matcher"],
            "startup|resume|clear|compact"
        );
        assert_eq!(claude["hooks"]["PostToolUse"][0]["matcher"], "ExitPlanMode");
        assert_eq!(
            claude["hooks"]["SessionStart"][0]["hooks"][0]["timeout"],
            10
        );
        let copilot = json_of(&files, "marketplace/plugins/copilot/hooks/hooks.json");
        assert_eq!(copilot["version"], 1);
        assert_eq!(copilot["hooks"]["userPromptSubmitted"][0]["timeoutSec"], 5);
        let gemini = json_of(&files, "gemini-extension/hooks/hooks.json");
        let start = &gemini["hooks"]["SessionStart"][0];
        assert!(
            start.get("matcher").is_none(),
            "Gemini: no SessionStart matcher"
        );
        assert_eq!(start["hooks"][0]["timeout"], 10_000);
        assert_eq!(
            gemini["hooks"]["BeforeAgent"][0]["hooks"][0]["name"],
            "sophia-hook-before-agent"
        );
    }

    #[test]
    fn agents_go_where_the_host_reads_plugin_agents_and_nowhere_else() {
        let files = files(true).unwrap();
        let agent_files = |dir: &str| {
            files
                .iter()
                .filter(|f| f.path.starts_with(&format!("{dir}/agents/")))
                .count()
        };
        assert_eq!(agent_files("marketplace/plugins/claude"), 5);
        assert_eq!(agent_files("marketplace/plugins/copilot"), 5);
        assert_eq!(agent_files("gemini-extension"), 5);
        assert_eq!(agent_files("marketplace/plugins/codex"), 0);
        assert!(
            files
                .iter()
                .any(|f| f.path == "marketplace/plugins/copilot/agents/scout.agent.md")
        );
        let binaries: Vec<&str> = files
            .iter()
            .filter(|f| f.executable())
            .map(|f| f.path.as_str())
            .collect();
        assert_eq!(
            binaries,
            [
                "gemini-extension/bin/sophia-hook.exe",
                "marketplace/plugins/claude/bin/sophia-hook.exe",
                "marketplace/plugins/codex/bin/sophia-hook.exe",
                "marketplace/plugins/copilot/bin/sophia-hook.exe",
            ]
        );
    }
}
