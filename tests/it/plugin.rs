//! `sophia-hook plugin build`, run as the real binary: the exact file set, manifests that parse
//! with this build's version, the executable binary in each `bin/`, and every hook command line
//! of every hooks file started the way its host starts it (the plugin root substituted or set)
//! on a sample payload of each event, printing the host's output.
// Tests and benches set up and read their files directly; the door (clippy.toml) is for the crate.
#![allow(clippy::disallowed_methods)]

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

use serde_json::Value;
use sophia_hook::hosts::{Host, SAMPLE_PROMPT};

const VERSION: &str = env!("CARGO_PKG_VERSION");

/// Every file of a build, relative to `--out`; `{exe}` is `sophia-hook` or `sophia-hook.exe`.
const FILES: &[&str] = &[
    "gemini-extension/agents/code_reviewer.md",
    "gemini-extension/agents/implementer.md",
    "gemini-extension/agents/scout.md",
    "gemini-extension/agents/technical_analyst.md",
    "gemini-extension/agents/test_writer.md",
    "gemini-extension/bin/{exe}",
    "gemini-extension/gemini-extension.json",
    "gemini-extension/hooks/hooks.json",
    "marketplace/.agents/plugins/marketplace.json",
    "marketplace/.claude-plugin/marketplace.json",
    "marketplace/.github/plugin/marketplace.json",
    "marketplace/plugins/claude/.claude-plugin/plugin.json",
    "marketplace/plugins/claude/agents/code_reviewer.md",
    "marketplace/plugins/claude/agents/implementer.md",
    "marketplace/plugins/claude/agents/scout.md",
    "marketplace/plugins/claude/agents/technical_analyst.md",
    "marketplace/plugins/claude/agents/test_writer.md",
    "marketplace/plugins/claude/bin/{exe}",
    "marketplace/plugins/claude/hooks/hooks.json",
    "marketplace/plugins/codex/.codex-plugin/plugin.json",
    "marketplace/plugins/codex/bin/{exe}",
    "marketplace/plugins/codex/hooks/hooks.json",
    "marketplace/plugins/copilot/.plugin/plugin.json",
    "marketplace/plugins/copilot/agents/code_reviewer.agent.md",
    "marketplace/plugins/copilot/agents/implementer.agent.md",
    "marketplace/plugins/copilot/agents/scout.agent.md",
    "marketplace/plugins/copilot/agents/technical_analyst.agent.md",
    "marketplace/plugins/copilot/agents/test_writer.agent.md",
    "marketplace/plugins/copilot/bin/{exe}",
    "marketplace/plugins/copilot/hooks/hooks.json",
];

fn build(out: &Path, extra: &[&str]) -> common::Run {
    let home = out.parent().unwrap().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let mut args = vec!["plugin", "build", "--out", out.to_str().unwrap()];
    args.extend_from_slice(extra);
    common::run_binary(&args, b"", &home, &[])
}

/// One native build with the real binary, shared by the tests that read it. A static is never
/// dropped, so a temporary folder would be left behind by every run (four copies of the debug
/// binary, ~370 MB): the build goes to one folder under cargo's target tmp dir instead, replaced
/// by each run.
fn native() -> &'static Path {
    static BUILD: OnceLock<PathBuf> = OnceLock::new();
    BUILD.get_or_init(|| {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("plugin-native");
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let out = dir.join("out");
        let run = build(&out, &[]);
        assert_eq!(run.code, 0, "{}", run.stderr);
        assert!(run.stdout.contains("30 files for"), "{}", run.stdout);
        out
    })
}

/// The files under `root`, relative and `/`-separated, sorted.
fn file_set(root: &Path) -> Vec<String> {
    fn walk(dir: &Path, root: &Path, out: &mut Vec<String>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, root, out);
            } else {
                let rel = path.strip_prefix(root).unwrap();
                let parts: Vec<String> = rel
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect();
                out.push(parts.join("/"));
            }
        }
    }
    let mut out = Vec::new();
    walk(root, root, &mut out);
    out.sort();
    out
}

fn expected(exe: &str) -> Vec<String> {
    let mut files: Vec<String> = FILES.iter().map(|f| f.replace("{exe}", exe)).collect();
    files.sort();
    files
}

fn json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap())
        .unwrap_or_else(|e| panic!("{}: {e}", path.to_string_lossy()))
}

/// Checks what every build must hold: the file set, JSON that parses, the manifests' versions,
/// no `hooks` key in Claude Code's manifest, the binary in each `bin/`.
fn check_build(out: &Path, exe: &str, binary: &[u8]) {
    let files = file_set(out);
    assert_eq!(files, expected(exe));
    for file in &files {
        let path = out.join(file);
        if file.ends_with(".json") {
            json(&path);
        }
        if file.ends_with("/plugin.json") || file.ends_with("gemini-extension.json") {
            let manifest = json(&path);
            assert_eq!(manifest["version"], VERSION, "{file}");
            assert_eq!(manifest["name"], "sophia-hook", "{file}");
        }
        if file.ends_with("marketplace.json") {
            let plugins = &json(&path)["plugins"];
            assert_eq!(plugins.as_array().map(Vec::len), Some(1), "{file}");
            assert_eq!(plugins[0]["name"], "sophia-hook");
        }
        if file.contains("/bin/") {
            assert_eq!(std::fs::read(&path).unwrap(), binary, "{file}");
        }
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
            // Private, whatever the umask (`### I6`); the release archives open them up.
            let want = if file.contains("/bin/") { 0o700 } else { 0o600 };
            assert_eq!(mode, want, "{file}: {mode:o}");
        }
    }
    let claude = json(&out.join("marketplace/plugins/claude/.claude-plugin/plugin.json"));
    assert!(
        claude.get("hooks").is_none(),
        "Claude Code refuses a manifest that names hooks/hooks.json"
    );
    for (listing, plugin) in [
        (".claude-plugin/marketplace.json", "plugins/claude"),
        (".github/plugin/marketplace.json", "plugins/copilot"),
        (".agents/plugins/marketplace.json", "plugins/codex"),
    ] {
        let doc = json(&out.join("marketplace").join(listing));
        let source = &doc["plugins"][0]["source"];
        let path = source.as_str().or(source["path"].as_str()).unwrap();
        assert_eq!(path, format!("./{plugin}"), "{listing}");
        assert!(out.join("marketplace").join(plugin).is_dir());
    }
}

#[test]
fn the_native_build_writes_exactly_the_plugin_folders() {
    let out = native();
    let exe = if cfg!(windows) {
        "sophia-hook.exe"
    } else {
        "sophia-hook"
    };
    let binary = std::fs::read(env!("CARGO_BIN_EXE_sophia-hook")).unwrap();
    check_build(out, exe, &binary);
}

#[test]
fn the_windows_build_ships_the_exe_and_the_powershell_lines() {
    let tmp = tempfile::tempdir().unwrap();
    let fake = tmp.path().join("sophia-hook.exe");
    std::fs::write(&fake, b"MZ not really a program").unwrap();
    let out = tmp.path().join("out");
    let run = build(
        &out,
        &["--os", "windows", "--binary", fake.to_str().unwrap()],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    check_build(&out, "sophia-hook.exe", b"MZ not really a program");
    let codex =
        std::fs::read_to_string(out.join("marketplace/plugins/codex/hooks/hooks.json")).unwrap();
    assert!(codex.contains("commandWindows"), "{codex}");
    let gemini = json(&out.join("gemini-extension/hooks/hooks.json"));
    let line = gemini["hooks"]["BeforeAgent"][0]["hooks"][0]["command"]
        .as_str()
        .unwrap();
    assert!(line.starts_with("& \"${extensionPath}"), "{line}");
}

#[test]
fn a_non_empty_out_folder_is_refused_and_left_alone() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    std::fs::create_dir_all(&out).unwrap();
    std::fs::write(out.join("mine.txt"), b"keep").unwrap();
    let run = build(&out, &[]);
    assert_eq!(run.code, 2, "{}", run.stdout);
    assert!(run.stderr.contains("not empty"), "{}", run.stderr);
    assert_eq!(file_set(&out), ["mine.txt"]);
    // An empty folder is fine.
    let empty = tmp.path().join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let fake = tmp.path().join("fake");
    std::fs::write(&fake, b"x").unwrap();
    let run = build(&empty, &["--binary", fake.to_str().unwrap()]);
    assert_eq!(run.code, 0, "{}", run.stderr);
}

/// How each plugin folder's host starts a hook: the text it substitutes in the command line, the
/// variables it sets, and whether the process starts in the plugin folder (host-plugins research
/// §1–§4). A hooks file under a folder not listed here fails the test.
struct Launch {
    dir: &'static str,
    substitute: &'static [(&'static str, Root)],
    env: &'static [&'static str],
    cwd_is_plugin: bool,
}

#[derive(Clone, Copy)]
enum Root {
    Folder,
    Separator,
}

const LAUNCHES: &[Launch] = &[
    Launch {
        dir: "marketplace/plugins/claude",
        substitute: &[("${CLAUDE_PLUGIN_ROOT}", Root::Folder)],
        env: &["CLAUDE_PLUGIN_ROOT"],
        cwd_is_plugin: false,
    },
    Launch {
        dir: "marketplace/plugins/codex",
        substitute: &[],
        env: &["PLUGIN_ROOT", "CLAUDE_PLUGIN_ROOT"],
        cwd_is_plugin: false,
    },
    Launch {
        dir: "marketplace/plugins/copilot",
        substitute: &[],
        env: &["PLUGIN_ROOT", "COPILOT_PLUGIN_ROOT", "CLAUDE_PLUGIN_ROOT"],
        cwd_is_plugin: true,
    },
    Launch {
        dir: "gemini-extension",
        substitute: &[
            ("${extensionPath}", Root::Folder),
            ("${/}", Root::Separator),
        ],
        env: &[],
        cwd_is_plugin: false,
    },
];

/// (event name, command line) of every handler in a hooks document, with the key the host runs
/// on this system (`command`, or `bash` in a `bash`/`powershell` handler).
fn handlers(doc: &Value) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for (event, entries) in doc["hooks"].as_object().expect("a hooks object") {
        for entry in entries.as_array().unwrap() {
            let handlers = match entry.get("hooks") {
                Some(nested) => nested.as_array().unwrap().clone(),
                None => vec![entry.clone()],
            };
            for h in handlers {
                let line = h
                    .get("bash")
                    .or(h.get("command"))
                    .and_then(Value::as_str)
                    .expect("a command line");
                out.push((event.clone(), line.to_owned()));
            }
        }
    }
    out
}

#[cfg(unix)]
#[test]
fn every_hook_command_starts_the_plugins_binary_and_answers_its_host() {
    let out = native();
    let project = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(project.path().join(".git")).unwrap();
    let home = tempfile::tempdir().unwrap();
    let hooks_files: Vec<String> = file_set(out)
        .into_iter()
        .filter(|f| f.ends_with("hooks/hooks.json"))
        .collect();
    assert_eq!(hooks_files.len(), LAUNCHES.len(), "{hooks_files:?}");
    let mut ran = 0;
    for file in &hooks_files {
        let launch = LAUNCHES
            .iter()
            .find(|l| *file == format!("{}/hooks/hooks.json", l.dir))
            .unwrap_or_else(|| panic!("{file}: no launch rule for this plugin folder"));
        let root = out.join(launch.dir);
        let doc = json(&out.join(file));
        for (event_name, line) in handlers(&doc) {
            let words = shlex_words(&line);
            let host_at = words.iter().position(|w| w == "--host").expect("--host");
            let host: Host = clap::ValueEnum::from_str(&words[host_at + 1], false).unwrap();
            let event_at = words.iter().position(|w| w == "--event").expect("--event");
            assert_eq!(words[event_at + 1], event_name, "{file}: {line}");
            let (event, wire) = host.parse_event(&event_name).expect("a known event");
            let mut command = line.clone();
            for (text, what) in launch.substitute {
                let value = match what {
                    Root::Folder => root.to_str().unwrap().to_owned(),
                    Root::Separator => "/".to_owned(),
                };
                command = command.replace(text, &value);
            }
            let payload = (host.spec().payload.sample)(
                event,
                wire,
                project.path().to_str().unwrap(),
                "plugin-test",
            );
            let mut cmd = Command::new("/bin/sh");
            cmd.arg("-c")
                .arg(&command)
                .env_clear()
                .env("HOME", home.path())
                .env("PATH", "/usr/bin:/bin")
                .current_dir(if launch.cwd_is_plugin {
                    root.as_path()
                } else {
                    project.path()
                })
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped());
            for var in launch.env {
                cmd.env(var, &root);
            }
            let mut child = cmd.spawn().unwrap();
            {
                use std::io::Write;
                let mut stdin = child.stdin.take().unwrap();
                stdin.write_all(payload.to_string().as_bytes()).unwrap();
            }
            let result = child.wait_with_output().unwrap();
            let stdout = String::from_utf8_lossy(&result.stdout);
            let stderr = String::from_utf8_lossy(&result.stderr);
            assert!(result.status.success(), "{file} {event_name}: {stderr}");
            assert!(stderr.is_empty(), "{file} {event_name}: {stderr}");
            if event == sophia_hook::hosts::Event::PostToolUse {
                // A plan approval with no plan recorded: the no-op, or host JSON.
                assert!(
                    stdout.trim().is_empty() || serde_json::from_str::<Value>(&stdout).is_ok(),
                    "{file} {event_name}: {stdout}"
                );
                ran += 1;
                continue;
            }
            let output: Value = serde_json::from_str(&stdout)
                .unwrap_or_else(|e| panic!("{file} {event_name}: {e}: {stdout:?} {stderr}"));
            let text = output.to_string();
            // Gemini CLI's session context goes with the first prompt: `{}` on SessionStart.
            if !host.session_context_on_prompt() || event != sophia_hook::hosts::Event::SessionStart
            {
                assert!(text.len() > 10, "{file} {event_name}: {text}");
            } else {
                assert_eq!(text, "{}", "{file} {event_name}");
            }
            if event == sophia_hook::hosts::Event::UserPromptSubmit {
                assert!(
                    payload.to_string().contains(SAMPLE_PROMPT),
                    "the sample prompt is {SAMPLE_PROMPT}"
                );
                assert!(
                    text.contains("contextMode=light"),
                    "{file} {event_name}: {text}"
                );
            }
            ran += 1;
        }
    }
    // Claude Code 3 events, Codex, Copilot CLI and Gemini CLI 2 each.
    assert_eq!(ran, 9);
}

/// A POSIX shell's words of a line (the test's own splitter: double quotes and plain words,
/// which is all a plugin line uses).
fn shlex_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut quoted = false;
    for c in line.chars() {
        match c {
            '"' => quoted = !quoted,
            ' ' if !quoted => {
                if !word.is_empty() {
                    words.push(std::mem::take(&mut word));
                }
            }
            c => word.push(c),
        }
    }
    if !word.is_empty() {
        words.push(word);
    }
    words
}

/// Where each host's own install command records our plugin, and how (observed in
/// `tests/e2e/run plugin`: `claude plugin install`, `codex plugin add`, `copilot plugin install`,
/// `gemini extensions install`), relative to HOME; and a near miss that records another plugin.
/// Each host's settings file `install` writes at project scope, relative to the project.
struct PluginRecord {
    host: &'static str,
    file: &'static str,
    enabled: &'static str,
    other: &'static str,
    settings: &'static str,
    remove: &'static str,
}

const RECORDS: &[PluginRecord] = &[
    PluginRecord {
        host: "claude",
        file: ".claude/settings.json",
        enabled: r#"{"enabledPlugins": {"sophia-hook@sophia-hook": true}}"#,
        other: r#"{"enabledPlugins": {"sophia-hook@sophia-hook": false, "x@y": true}}"#,
        settings: ".claude/settings.json",
        remove: "claude plugin uninstall sophia-hook@sophia-hook",
    },
    PluginRecord {
        host: "codex",
        file: ".codex/config.toml",
        enabled: "[marketplaces.sophia-hook]\nsource_type = \"local\"\n\n[plugins.\"sophia-hook@sophia-hook\"]\nenabled = true\n",
        other: "[plugins.\"other@sophia-hook\"]\nenabled = true\n",
        settings: ".codex/hooks.json",
        remove: "codex plugin remove sophia-hook@sophia-hook",
    },
    PluginRecord {
        host: "copilot",
        file: ".copilot/settings.json",
        enabled: r#"{"enabledPlugins": {"sophia-hook@sophia-hook": true}}"#,
        other: r#"{"enabledPlugins": {"sophia-hook@elsewhere": true}}"#,
        settings: ".github/hooks/sophia-hook.json",
        remove: "copilot plugin uninstall sophia-hook@sophia-hook",
    },
    PluginRecord {
        host: "gemini",
        file: ".gemini/extensions/sophia-hook/gemini-extension.json",
        enabled: r#"{"name": "sophia-hook", "version": "0.1.0"}"#,
        // Installed, then disabled (`gemini extensions disable sophia-hook`): see plugin_sandbox.
        other: r#"{"name": "sophia-hook", "version": "0.1.0", "disabled-below": true}"#,
        settings: ".gemini/settings.json",
        remove: "gemini extensions uninstall sophia-hook",
    },
];

/// A temporary project and HOME with `record` (or nothing) in place.
fn plugin_sandbox(record: Option<(&PluginRecord, &str)>) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("project/.git")).unwrap();
    std::fs::create_dir_all(dir.path().join("home")).unwrap();
    if let Some((r, text)) = record {
        let path = dir.path().join("home").join(r.file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        if r.host == "gemini" && text == r.other {
            // Installed, then `gemini extensions disable sophia-hook` (the manifest's extra key
            // only tells the two cases apart here; Gemini CLI ignores unknown keys).
            let home = dir.path().join("home");
            // Built as JSON: a Windows home's `\` must be escaped in the string.
            let overrides = serde_json::json!({"sophia-hook": {"overrides": [format!("!{}/*", home.to_string_lossy())]}});
            std::fs::write(
                home.join(".gemini/extensions/extension-enablement.json"),
                overrides.to_string(),
            )
            .unwrap();
        }
    }
    dir
}

fn run_in(dir: &Path, args: &[&str]) -> common::Run {
    let root = dir.join("project");
    let mut all = args.to_vec();
    all.extend(["--root", root.to_str().unwrap()]);
    common::run_binary(&all, b"", &dir.join("home"), &[("SOPHIA_ANALYTICS", "off")])
}

/// With our plugin enabled for a host, `install --host H` writes no settings entry (the two would
/// both run: every event twice) and says where the plugin is recorded and how to remove it; with
/// no record, or a record of another plugin or a disabled one, it installs as always.
#[test]
fn install_does_not_register_a_second_time_where_the_plugin_is_enabled() {
    for r in RECORDS {
        for (state, text) in [
            ("enabled", Some(r.enabled)),
            ("other", Some(r.other)),
            ("none", None),
        ] {
            let dir = plugin_sandbox(text.map(|t| (r, t)));
            let out = run_in(dir.path(), &["install", "--host", r.host, "--no-agents"]);
            let case = format!("{} {state}: {}{}", r.host, out.stdout, out.stderr);
            assert_eq!(out.code, 0, "{case}");
            let written = dir.path().join("project").join(r.settings).exists();
            if state == "enabled" {
                assert!(!written, "{case}");
                assert!(out.stdout.contains("plugin is enabled"), "{case}");
                assert!(
                    common::names_path(&out.stdout, &dir.path().join("home").join(r.file)),
                    "{case}"
                );
                assert!(out.stdout.contains(r.remove), "{case}");
            } else {
                assert!(written, "{case}");
                assert!(!out.stdout.contains("plugin is enabled"), "{case}");
            }
        }
    }
}

/// `doctor --host H`: the plugin alone is a registration (ok, exit 0); the plugin and a settings
/// entry both is a double registration (FAIL, exit 1, naming both and how to keep one); a
/// settings entry alone has no plugin check.
#[test]
fn doctor_reports_a_double_registration_either_way() {
    for r in RECORDS {
        // The plugin alone.
        let dir = plugin_sandbox(Some((r, r.enabled)));
        let doctor = run_in(dir.path(), &["doctor", "--host", r.host, "--json"]);
        let checks: Value = serde_json::from_str(&doctor.stdout)
            .unwrap_or_else(|e| panic!("{e}: {}", doctor.stdout));
        let area = format!("{} plugin", r.host);
        let plugin: Vec<&Value> = checks["checks"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| c["area"] == area.as_str())
            .collect();
        assert_eq!(plugin.len(), 1, "{} alone: {}", r.host, doctor.stdout);
        assert_eq!(plugin[0]["status"], "ok", "{}", doctor.stdout);
        assert!(
            !doctor.stdout.contains("not installed"),
            "{}",
            doctor.stdout
        );

        // A settings entry first, then the plugin installed by the host's own command.
        let dir = plugin_sandbox(None);
        let install = run_in(dir.path(), &["install", "--host", r.host, "--no-agents"]);
        assert_eq!(install.code, 0, "{}", install.stderr);
        let path = dir.path().join("home").join(r.file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, r.enabled).unwrap();
        let doctor = run_in(dir.path(), &["doctor", "--host", r.host, "--json"]);
        assert_eq!(doctor.code, 1, "{} twice: {}", r.host, doctor.stdout);
        let checks: Value = serde_json::from_str(&doctor.stdout).unwrap();
        let twice: Vec<&Value> = checks["checks"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| c["area"] == area.as_str())
            .collect();
        assert_eq!(twice.len(), 1, "{}", doctor.stdout);
        assert_eq!(twice[0]["status"], "fail", "{}", doctor.stdout);
        let detail = twice[0]["detail"].as_str().unwrap();
        assert!(detail.contains("registered twice"), "{detail}");
        assert!(detail.contains(r.settings), "{detail}");
        let fix = twice[0]["fix"].as_str().unwrap();
        assert!(
            fix.contains(&format!(
                "sophia-hook uninstall --host {} --scope project",
                r.host
            )) && fix.contains(r.remove),
            "{fix}"
        );

        // The settings entry alone: no plugin check.
        let dir = plugin_sandbox(None);
        run_in(dir.path(), &["install", "--host", r.host, "--no-agents"]);
        let doctor = run_in(dir.path(), &["doctor", "--host", r.host, "--json"]);
        assert!(
            !doctor.stdout.contains(&format!("\"{area}\"")),
            "{}",
            doctor.stdout
        );
    }
}
