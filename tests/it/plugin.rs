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

/// `doctor --host H`: the plugin alone (as the host's install commands leave it, its folder in
/// place) is a registration (ok); the plugin and a settings entry both is a double registration
/// (FAIL, exit 1, naming both and how to keep one); a settings entry alone has no plugin check.
#[test]
fn doctor_reports_a_double_registration_either_way() {
    for r in RECORDS {
        let area = format!("{} plugin", r.host);
        let plugin_checks = |stdout: &str| -> Vec<Value> {
            let checks: Value =
                serde_json::from_str(stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"));
            checks["checks"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|c| c["area"] == area.as_str())
                .cloned()
                .collect()
        };
        // The plugin alone.
        let dir = tempfile::tempdir().unwrap();
        plugin_world(dir.path(), r.host, Built::DataFolder, After::Nothing);
        let doctor = run_in(dir.path(), &["doctor", "--host", r.host, "--json"]);
        let plugin = plugin_checks(&doctor.stdout);
        assert_eq!(plugin.len(), 1, "{} alone: {}", r.host, doctor.stdout);
        assert_eq!(plugin[0]["status"], "ok", "{}", doctor.stdout);
        assert!(
            !doctor.stdout.contains("not installed"),
            "{}",
            doctor.stdout
        );

        // A settings entry first, then the plugin installed by the host's own command.
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("project/.git")).unwrap();
        std::fs::create_dir_all(dir.path().join("home")).unwrap();
        let install = run_in(dir.path(), &["install", "--host", r.host, "--no-agents"]);
        assert_eq!(install.code, 0, "{}", install.stderr);
        plugin_world(dir.path(), r.host, Built::DataFolder, After::Nothing);
        let doctor = run_in(dir.path(), &["doctor", "--host", r.host, "--json"]);
        assert_eq!(doctor.code, 1, "{} twice: {}", r.host, doctor.stdout);
        let twice: Vec<Value> = plugin_checks(&doctor.stdout)
            .into_iter()
            .filter(|c| c["status"] == "fail")
            .collect();
        assert_eq!(twice.len(), 1, "{}", doctor.stdout);
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

/// Where the plugin folders were built: sophia-hook's own data folder (where `plugin install`
/// puts them, `$XDG_DATA_HOME/sophia-hook/plugins/<version>/`) or a folder the user chose
/// (`plugin build --out`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Built {
    DataFolder,
    Elsewhere,
}

/// What happened after the host's own install command ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum After {
    Nothing,
    /// The folder `plugin build` wrote was moved or deleted.
    BuildRemoved,
    /// The binary is gone from the folder the host loads the plugin from.
    BinaryRemoved,
    /// The user disabled the plugin with the host's own command.
    Disabled,
    /// Codex: the plugin's hooks trusted in `/hooks`.
    Trusted,
    /// Codex: a `trusted_hash` that is not this hooks file's (the file changed since).
    TrustStale,
}

/// The folder a built plugin tree lives in, for `built`, under `dir`.
fn built_root(dir: &Path, built: Built) -> PathBuf {
    match built {
        Built::DataFolder => dir
            .join("home/.local/share/sophia-hook/plugins")
            .join(VERSION),
        Built::Elsewhere => dir.join("Downloads/sophia-hook-plugins"),
    }
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

fn write_json(path: &Path, value: &Value) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, serde_json::to_string_pretty(value).unwrap()).unwrap();
}

/// A HOME and project where `host`'s own install commands ran on a build of the plugin folders
/// (built as `built`), leaving the records and copies each host leaves (observed in
/// `tests/e2e/run plugin`: `claude plugin marketplace add` + `install`, `codex plugin marketplace
/// add` + `add`, `copilot plugin marketplace add` + `install`, `gemini extensions install`), and
/// then `after`. Returns the folder the host loads the plugin from.
fn plugin_world(dir: &Path, host: &str, built: Built, after: After) -> PathBuf {
    let home = dir.join("home");
    std::fs::create_dir_all(dir.join("project/.git")).unwrap();
    std::fs::create_dir_all(&home).unwrap();
    // The binary is only looked at, never run: a small stand-in keeps each world light.
    let fake = dir.join("fake-sophia-hook");
    std::fs::write(&fake, b"a stand-in, never run\n").unwrap();
    let root = built_root(dir, built);
    let run = build(&root, &["--binary", fake.to_str().unwrap()]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let id = "sophia-hook@sophia-hook";
    let marketplace = root.join("marketplace");
    let directory =
        serde_json::json!({"source": "directory", "path": marketplace.to_str().unwrap()});
    let loaded = match host {
        "claude" => {
            write_json(
                &home.join(".claude/settings.json"),
                &serde_json::json!({
                    "extraKnownMarketplaces": {"sophia-hook": {"source": directory}},
                    "enabledPlugins": {id: after != After::Disabled},
                }),
            );
            write_json(
                &home.join(".claude/plugins/known_marketplaces.json"),
                &serde_json::json!({"sophia-hook": {"source": directory, "installLocation": marketplace.to_str().unwrap()}}),
            );
            let cache = home
                .join(".claude/plugins/cache/sophia-hook/sophia-hook")
                .join(VERSION);
            copy_tree(&marketplace.join("plugins/claude"), &cache);
            write_json(
                &home.join(".claude/plugins/installed_plugins.json"),
                &serde_json::json!({"version": 2, "plugins": {id: [{"scope": "user", "installPath": cache.to_str().unwrap(), "version": VERSION}]}}),
            );
            // A directory marketplace is read in place (`claude plugin list --json`:
            // "readFromFolder"), whatever the cache holds.
            marketplace.join("plugins/claude")
        }
        "copilot" => {
            write_json(
                &home.join(".copilot/settings.json"),
                &serde_json::json!({
                    "extraKnownMarketplaces": {"sophia-hook": {"source": directory}},
                    "enabledPlugins": {id: after != After::Disabled},
                }),
            );
            // "It is loaded live from …/plugins/copilot … nothing was copied."
            marketplace.join("plugins/copilot")
        }
        "codex" => {
            let cache = home
                .join(".codex/plugins/cache/sophia-hook/sophia-hook")
                .join(VERSION);
            copy_tree(&marketplace.join("plugins/codex"), &cache);
            let mut toml = format!(
                "[marketplaces.sophia-hook]\nsource_type = \"local\"\nsource = {}\n\n[plugins.\"{id}\"]\nenabled = {}\n",
                serde_json::to_string(marketplace.to_str().unwrap()).unwrap(),
                after != After::Disabled
            );
            if matches!(after, After::Trusted | After::TrustStale) {
                let hooks = json(&cache.join("hooks/hooks.json"));
                for (event, groups) in hooks["hooks"].as_object().unwrap() {
                    for (g, group) in groups.as_array().unwrap().iter().enumerate() {
                        for (h, handler) in group["hooks"].as_array().unwrap().iter().enumerate() {
                            let hash = sophia_hook::hosts::codex::trust_hash(
                                event,
                                group["matcher"].as_str(),
                                handler,
                                sophia_hook::fingerprint::sha256,
                            )
                            .unwrap();
                            let hash = if after == After::TrustStale {
                                format!("sha256:{}", "0".repeat(64))
                            } else {
                                hash
                            };
                            let label = sophia_hook::hosts::codex::event_label(event);
                            toml.push_str(&format!(
                                "\n[hooks.state.\"{id}:hooks/hooks.json:{label}:{g}:{h}\"]\ntrusted_hash = \"{hash}\"\n"
                            ));
                        }
                    }
                }
            }
            std::fs::write(home.join(".codex/config.toml"), toml).unwrap();
            // "Installed plugin root: ~/.codex/plugins/cache/sophia-hook/sophia-hook/<version>".
            cache
        }
        "gemini" => {
            let ext = home.join(".gemini/extensions/sophia-hook");
            copy_tree(&root.join("gemini-extension"), &ext);
            write_json(
                &ext.join(".gemini-extension-install.json"),
                &serde_json::json!({"source": root.join("gemini-extension").to_str().unwrap(), "type": "local"}),
            );
            let overrides = if after == After::Disabled {
                format!("!{}/*", home.to_str().unwrap())
            } else {
                format!("{}/*", home.to_str().unwrap())
            };
            write_json(
                &home.join(".gemini/extensions/extension-enablement.json"),
                &serde_json::json!({"sophia-hook": {"overrides": [overrides]}}),
            );
            ext
        }
        other => panic!("no plugin for {other}"),
    };
    match after {
        After::BuildRemoved => std::fs::remove_dir_all(&root).unwrap(),
        After::BinaryRemoved => {
            let exe = if cfg!(windows) {
                "sophia-hook.exe"
            } else {
                "sophia-hook"
            };
            std::fs::remove_file(loaded.join("bin").join(exe)).unwrap()
        }
        _ => {}
    }
    loaded
}

/// One row: a host, where its plugin was built, what happened since, and what `doctor --host H`
/// then says in its `H plugin` checks and `H plugin trust` checks (statuses, sorted), and whether
/// the hook is registered (it runs) and trusted, which `status` must say too.
struct PluginCase {
    host: &'static str,
    built: Built,
    after: After,
    plugin: &'static [&'static str],
    trust: &'static [&'static str],
    registered: bool,
    trusted: Option<bool>,
}

const fn case(
    host: &'static str,
    built: Built,
    after: After,
    plugin: &'static [&'static str],
    trust: &'static [&'static str],
    registered: bool,
    trusted: Option<bool>,
) -> PluginCase {
    PluginCase {
        host,
        built,
        after,
        plugin,
        trust,
        registered,
        trusted,
    }
}

use After::*;
use Built::*;

/// Claude Code and Copilot CLI load a local marketplace's plugin in place: a build folder of the
/// user's is a warning (moving it disables the hook), gone is a failure. Codex and Gemini CLI load
/// their own copy: the build folder may go, their copy may not. A disabled plugin registers
/// nothing; Codex runs a plugin's hooks only once trusted, with the hash of what it loads.
const PLUGIN_CASES: &[PluginCase] = &[
    case("claude", DataFolder, Nothing, &["ok"], &[], true, None),
    case(
        "claude",
        Elsewhere,
        Nothing,
        &["ok", "warn"],
        &[],
        true,
        None,
    ),
    case(
        "claude",
        Elsewhere,
        BuildRemoved,
        &["fail"],
        &[],
        false,
        None,
    ),
    case(
        "claude",
        DataFolder,
        BinaryRemoved,
        &["fail"],
        &[],
        false,
        None,
    ),
    case("claude", DataFolder, Disabled, &[], &[], false, None),
    case("copilot", DataFolder, Nothing, &["ok"], &[], true, None),
    case(
        "copilot",
        Elsewhere,
        Nothing,
        &["ok", "warn"],
        &[],
        true,
        None,
    ),
    case(
        "copilot",
        Elsewhere,
        BuildRemoved,
        &["fail"],
        &[],
        false,
        None,
    ),
    case(
        "copilot",
        DataFolder,
        BinaryRemoved,
        &["fail"],
        &[],
        false,
        None,
    ),
    case("copilot", DataFolder, Disabled, &[], &[], false, None),
    case(
        "codex",
        DataFolder,
        Nothing,
        &["ok"],
        &["warn", "warn"],
        true,
        Some(false),
    ),
    case(
        "codex",
        DataFolder,
        Trusted,
        &["ok"],
        &["ok", "ok"],
        true,
        Some(true),
    ),
    case(
        "codex",
        DataFolder,
        TrustStale,
        &["ok"],
        &["fail", "fail"],
        true,
        Some(false),
    ),
    case(
        "codex",
        Elsewhere,
        Nothing,
        &["ok"],
        &["warn", "warn"],
        true,
        Some(false),
    ),
    case(
        "codex",
        Elsewhere,
        BuildRemoved,
        &["ok"],
        &["warn", "warn"],
        true,
        Some(false),
    ),
    case(
        "codex",
        DataFolder,
        BinaryRemoved,
        &["fail"],
        &[],
        false,
        None,
    ),
    case("codex", DataFolder, Disabled, &[], &[], false, None),
    case("gemini", DataFolder, Nothing, &["ok"], &[], true, None),
    case("gemini", Elsewhere, Nothing, &["ok"], &[], true, None),
    case("gemini", Elsewhere, BuildRemoved, &["ok"], &[], true, None),
    case(
        "gemini",
        DataFolder,
        BinaryRemoved,
        &["fail"],
        &[],
        false,
        None,
    ),
    case("gemini", DataFolder, Disabled, &[], &[], false, None),
];

/// The statuses of the checks of `area`, sorted.
fn statuses(checks: &Value, area: &str) -> Vec<String> {
    let mut out: Vec<String> = checks["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["area"] == area)
        .map(|c| c["status"].as_str().unwrap().to_owned())
        .collect();
    out.sort();
    out
}

/// `doctor` checks what the host will load — the folder its records name, holding our hooks file
/// and binary, the plugin enabled, Codex's trust of the hooks it loads — and `status` says the
/// same: registered by the plugin exactly where doctor's plugin check passes, trusted exactly
/// where doctor's trust checks pass.
#[test]
fn doctor_checks_what_the_host_loads_and_status_agrees() {
    for c in PLUGIN_CASES {
        let dir = tempfile::tempdir().unwrap();
        let loaded = plugin_world(dir.path(), c.host, c.built, c.after);
        let name = format!("{} {:?} {:?}", c.host, c.built, c.after);
        let doctor = run_in(dir.path(), &["doctor", "--host", c.host, "--json"]);
        let checks: Value = serde_json::from_str(&doctor.stdout)
            .unwrap_or_else(|e| panic!("{name}: {e}: {}", doctor.stdout));
        let area = format!("{} plugin", c.host);
        assert_eq!(
            statuses(&checks, &area),
            c.plugin,
            "{name}: {}",
            doctor.stdout
        );
        assert_eq!(
            statuses(&checks, &format!("{area} trust")),
            c.trust,
            "{name}: {}",
            doctor.stdout
        );
        let plugin_checks: Vec<&Value> = checks["checks"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|ch| ch["area"] == area.as_str())
            .collect();
        for check in &plugin_checks {
            let (detail, fix) = (check["detail"].as_str().unwrap(), check["fix"].as_str());
            match check["status"].as_str().unwrap() {
                "ok" => assert!(
                    detail.contains("registered by sophia-hook's plugin")
                        && common::names_path(detail, &loaded),
                    "{name}: {detail}"
                ),
                "fail" | "warn" => {
                    assert!(
                        fix.is_some_and(|f| f
                            .contains(&format!("sophia-hook plugin install --host {}", c.host))),
                        "{name}: {check}"
                    );
                }
                other => panic!("{name}: {other}"),
            }
        }
        if c.plugin.contains(&"fail") {
            assert_eq!(doctor.code, 1, "{name}: {}", doctor.stdout);
        }

        let status = run_in(dir.path(), &["status", "--json"]);
        let rows: Value = serde_json::from_str(&status.stdout)
            .unwrap_or_else(|e| panic!("{name}: {e}: {}", status.stdout));
        let row = rows["hosts"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["host"] == c.host)
            .unwrap()
            .clone();
        let by_plugin: Vec<&Value> = row["registered"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| r["scope"] == "plugin")
            .collect();
        assert_eq!(!by_plugin.is_empty(), c.registered, "{name}: {row}");
        if let Some(r) = by_plugin.first() {
            assert!(
                common::names_path(r["folder"].as_str().unwrap(), &loaded),
                "{name}: {row}"
            );
        }
        assert_eq!(row["trusted"].as_bool(), c.trusted, "{name}: {row}");
        // A plugin the host cannot load: status says why, as doctor does.
        assert_eq!(
            row["pluginProblem"].is_string(),
            c.plugin.contains(&"fail"),
            "{name}: {row}"
        );
        let text = run_in(dir.path(), &["status"]);
        let line = text
            .stdout
            .lines()
            .find(|l| l.starts_with(&format!("{}: ", c.host)))
            .unwrap()
            .to_owned();
        assert_eq!(
            line.contains("registered by sophia-hook's plugin"),
            c.registered,
            "{name}: {line}"
        );
        assert_eq!(
            line.contains("not registered"),
            !c.registered,
            "{name}: {line}"
        );
    }
}

/// Stand-ins for the four hosts' CLIs, on PATH in `dir/fake-bin`: each logs its arguments to
/// `$HOME/host-commands.log` (one line, `<host> <args>`) and leaves the records its real
/// counterpart leaves (observed in `tests/e2e/run plugin`, where the real hosts run the same
/// commands): Claude Code's and Copilot CLI's `extraKnownMarketplaces` and `enabledPlugins`
/// (a second `marketplace add` re-points Claude Code's, Copilot CLI refuses it until `remove`),
/// Codex's `config.toml` tables and its copy in `plugins/cache/`, Gemini CLI's copy in
/// `extensions/` (refused without `GEMINI_CLI_TRUST_WORKSPACE=true`, whose prompt would read "no"
/// from a closed stdin, and refused while installed).
#[cfg(unix)]
fn fake_hosts(dir: &Path) -> PathBuf {
    let bin = dir.join("fake-bin");
    std::fs::create_dir_all(&bin).unwrap();
    let marketplace_settings = |file: &str| {
        format!(
            r#"
s="$HOME/.fake-state"; mkdir -p "$s" "$(dirname "{file}")"
case "$1 $2 $3" in
  "plugin marketplace add")
    if [ -f "$s/mkt" ] && [ "$(cat "$s/mkt")" != "$4" ] && [ "$REPOINTS" != 1 ]; then echo 'Marketplace "sophia-hook" already registered' >&2; exit 1; fi
    printf '%s' "$4" > "$s/mkt" ;;
  "plugin marketplace remove") rm -f "$s/mkt" ;;
  "plugin install sophia-hook@sophia-hook") : > "$s/installed" ;;
  *) echo "unexpected: $*" >&2; exit 3 ;;
esac
m=''; [ -f "$s/mkt" ] && m="\"sophia-hook\": {{\"source\": {{\"source\": \"directory\", \"path\": \"$(cat "$s/mkt")\"}}}}"
e=''; [ -f "$s/installed" ] && e='"sophia-hook@sophia-hook": true'
printf '{{"extraKnownMarketplaces": {{%s}}, "enabledPlugins": {{%s}}}}\n' "$m" "$e" > "{file}"
"#
        )
    };
    let scripts = [
        (
            "claude",
            format!(
                "REPOINTS=1\n{}",
                marketplace_settings("$HOME/.claude/settings.json")
            ),
        ),
        (
            "copilot",
            format!(
                "REPOINTS=0\n{}",
                marketplace_settings("$HOME/.copilot/settings.json")
            ),
        ),
        (
            "codex",
            r#"
s="$HOME/.fake-state"; c="$HOME/.codex/plugins/cache/sophia-hook/sophia-hook"; mkdir -p "$s" "$HOME/.codex"
case "$1 $2 $3" in
  "plugin marketplace add")
    if [ -f "$s/mkt" ] && [ "$(cat "$s/mkt")" != "$4" ]; then echo "marketplace 'sophia-hook' is already added from a different source; remove it before adding this source" >&2; exit 1; fi
    printf '%s' "$4" > "$s/mkt" ;;
  "plugin marketplace remove") rm -f "$s/mkt" ;;
  "plugin add sophia-hook@sophia-hook")
    [ -f "$s/mkt" ] || { echo "no marketplace" >&2; exit 1; }
    rm -rf "$c"; mkdir -p "$c"; cp -R "$(cat "$s/mkt")/plugins/codex" "$c/0.1.0"; : > "$s/installed" ;;
  *) echo "unexpected: $*" >&2; exit 3 ;;
esac
{ [ -f "$s/mkt" ] && printf '[marketplaces.sophia-hook]\nsource_type = "local"\nsource = "%s"\n\n' "$(cat "$s/mkt")"
  [ -f "$s/installed" ] && printf '[plugins."sophia-hook@sophia-hook"]\nenabled = true\n'; } > "$HOME/.codex/config.toml"
exit 0
"#
            .to_owned(),
        ),
        (
            "gemini",
            r#"
x="$HOME/.gemini/extensions/sophia-hook"
case "$1 $2" in
  "extensions install")
    [ "$GEMINI_CLI_TRUST_WORKSPACE" = true ] || { echo "Do you trust the files in this folder? [y/N] (read no)" >&2; exit 1; }
    [ "$4" = --consent ] || exit 1
    [ -e "$x" ] && { echo 'Extension "sophia-hook" is already installed. Please uninstall it first.' >&2; exit 1; }
    mkdir -p "$HOME/.gemini/extensions"; cp -R "$3" "$x"
    printf '{"source": "%s", "type": "local"}\n' "$3" > "$x/.gemini-extension-install.json" ;;
  "extensions uninstall") rm -rf "$x" ;;
  *) echo "unexpected: $*" >&2; exit 3 ;;
esac
"#
            .to_owned(),
        ),
    ];
    for (name, body) in scripts {
        common::exe::write_script(
            &bin.join(name),
            &format!(
                "#!/bin/sh\nprintf '%s %s\\n' {name} \"$*\" >> \"$HOME/host-commands.log\"\n{body}"
            ),
        );
    }
    bin
}

/// `sophia-hook ARGS --root <dir>/project` with the fake hosts first on PATH.
#[cfg(unix)]
fn run_with_hosts(dir: &Path, args: &[&str]) -> common::Run {
    let bin = fake_hosts(dir);
    let path = format!("{}:/usr/bin:/bin", bin.to_str().unwrap());
    let root = dir.join("project");
    let mut all = args.to_vec();
    all.extend(["--root", root.to_str().unwrap()]);
    common::run_binary(
        &all,
        b"",
        &dir.join("home"),
        &[("SOPHIA_ANALYTICS", "off"), ("PATH", &path)],
    )
}

/// The host commands the fakes saw, and forgets them.
#[cfg(unix)]
fn host_commands(dir: &Path) -> Vec<String> {
    let log = dir.join("home/host-commands.log");
    let text = std::fs::read_to_string(&log).unwrap_or_default();
    let _ = std::fs::remove_file(&log);
    text.lines().map(str::to_owned).collect()
}

/// A small stand-in for the binary a plugin folder carries (it is copied, never run here).
#[cfg(unix)]
fn small_binary(dir: &Path) -> PathBuf {
    let fake = dir.join("small-sophia-hook");
    std::fs::write(&fake, b"a stand-in, never run\n").unwrap();
    fake
}

/// `plugin install --host H` writes this build's plugin folders into the data folder (exactly
/// `plugin build`'s files, private), runs the host's own commands on it, and the hook is then
/// registered by the plugin as doctor and status read it — also once a `plugin build` folder the
/// host loaded before is gone. A second run changes nothing and runs nothing.
#[cfg(unix)]
#[test]
fn plugin_install_puts_the_plugin_where_it_stays_and_the_host_loads_it_there() {
    use std::os::unix::fs::PermissionsExt;
    let id = "sophia-hook@sophia-hook";
    // (host, what it runs on a fresh machine, what it runs when it loads a build folder)
    let table: &[(&str, &[&str], &[&str])] = &[
        (
            "claude",
            &[
                "claude plugin marketplace add {mkt}",
                "claude plugin install {id}",
            ],
            &[
                "claude plugin marketplace add {mkt}",
                "claude plugin install {id}",
            ],
        ),
        (
            "copilot",
            &[
                "copilot plugin marketplace add {mkt}",
                "copilot plugin install {id}",
            ],
            &[
                "copilot plugin marketplace remove sophia-hook",
                "copilot plugin marketplace add {mkt}",
                "copilot plugin install {id}",
            ],
        ),
        (
            "codex",
            &[
                "codex plugin marketplace add {mkt}",
                "codex plugin add {id}",
            ],
            &[
                "codex plugin marketplace remove sophia-hook",
                "codex plugin marketplace add {mkt}",
                "codex plugin add {id}",
            ],
        ),
        (
            "gemini",
            &["gemini extensions install {ext} --consent"],
            &[
                "gemini extensions uninstall sophia-hook",
                "gemini extensions install {ext} --consent",
            ],
        ),
    ];
    for &(host, fresh, from_build) in table {
        for (start, want) in [("fresh", fresh), ("build folder", from_build)] {
            let dir = tempfile::tempdir().unwrap();
            let d = dir.path();
            std::fs::create_dir_all(d.join("project/.git")).unwrap();
            std::fs::create_dir_all(d.join("home")).unwrap();
            let fake = small_binary(d);
            let data = d
                .join("home/.local/share/sophia-hook/plugins")
                .join(VERSION);
            if start == "build folder" {
                // Installed the old way: the host's commands on a `plugin build --out` folder.
                let built = built_root(d, Built::Elsewhere);
                assert_eq!(build(&built, &["--binary", fake.to_str().unwrap()]).code, 0);
                let run = |args: &[&str]| {
                    let bin = fake_hosts(d);
                    let status = std::process::Command::new(bin.join(host))
                        .args(args)
                        .env("HOME", d.join("home"))
                        .env("PATH", "/usr/bin:/bin")
                        .env("GEMINI_CLI_TRUST_WORKSPACE", "true")
                        .status()
                        .unwrap();
                    assert!(status.success(), "{host} {args:?}");
                };
                let mkt = built.join("marketplace");
                match host {
                    "gemini" => run(&[
                        "extensions",
                        "install",
                        built.join("gemini-extension").to_str().unwrap(),
                        "--consent",
                    ]),
                    _ => {
                        run(&["plugin", "marketplace", "add", mkt.to_str().unwrap()]);
                        run(&[
                            "plugin",
                            if host == "codex" { "add" } else { "install" },
                            id,
                        ]);
                    }
                }
                host_commands(d);
            }
            let case = format!("{host} {start}");
            let out = run_with_hosts(
                d,
                &[
                    "plugin",
                    "install",
                    "--host",
                    host,
                    "--binary",
                    fake.to_str().unwrap(),
                ],
            );
            assert_eq!(out.code, 0, "{case}: {}{}", out.stdout, out.stderr);
            let expected: Vec<String> = want
                .iter()
                .map(|c| {
                    c.replace("{mkt}", data.join("marketplace").to_str().unwrap())
                        .replace("{ext}", data.join("gemini-extension").to_str().unwrap())
                        .replace("{id}", id)
                })
                .collect();
            assert_eq!(host_commands(d), expected, "{case}: {}", out.stdout);
            // The data folder holds exactly `plugin build`'s files, private; nothing else was
            // left beside it (no temporary folder).
            let mut want_files = expected_files("sophia-hook");
            want_files.sort();
            assert_eq!(file_set(&data), want_files, "{case}");
            let plugins_dir = data.parent().unwrap();
            let beside: Vec<String> = std::fs::read_dir(plugins_dir)
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect();
            assert_eq!(beside, [VERSION], "{case}");
            for f in file_set(&data) {
                let mode = std::fs::metadata(data.join(&f))
                    .unwrap()
                    .permissions()
                    .mode()
                    & 0o777;
                let wanted = if f.contains("/bin/") { 0o700 } else { 0o600 };
                assert_eq!(mode, wanted, "{case}: {f}");
            }
            let mut folder = data.clone();
            while folder != d.join("home/.local/share") {
                let mode = std::fs::metadata(&folder).unwrap().permissions().mode() & 0o777;
                assert_eq!(mode, 0o700, "{case}: {}", folder.to_string_lossy());
                folder = folder.parent().unwrap().to_path_buf();
            }
            assert!(
                out.stdout.contains("registered by sophia-hook's plugin"),
                "{case}: {}",
                out.stdout
            );
            // The build folder the host loaded before may go now.
            let _ = std::fs::remove_dir_all(built_root(d, Built::Elsewhere));
            let doctor = run_in(d, &["doctor", "--host", host, "--json"]);
            let checks: Value = serde_json::from_str(&doctor.stdout).unwrap();
            assert_eq!(
                statuses(&checks, &format!("{host} plugin")),
                ["ok"],
                "{case}: {}",
                doctor.stdout
            );
            let status = run_in(d, &["status"]);
            assert!(
                status
                    .stdout
                    .lines()
                    .any(|l| l.starts_with(&format!("{host}: registered by sophia-hook's plugin"))),
                "{case}: {}",
                status.stdout
            );
            // Again: nothing to write, nothing to run.
            let again = run_with_hosts(
                d,
                &[
                    "plugin",
                    "install",
                    "--host",
                    host,
                    "--binary",
                    fake.to_str().unwrap(),
                ],
            );
            assert_eq!(again.code, 0, "{case}: {}{}", again.stdout, again.stderr);
            assert!(
                again.stdout.contains("holds this build already"),
                "{case}: {}",
                again.stdout
            );
            assert!(
                again.stdout.contains("nothing to run"),
                "{case}: {}",
                again.stdout
            );
            assert_eq!(host_commands(d), Vec::<String>::new(), "{case}");
        }
    }
}

/// Every file of a build, relative to the build folder.
fn expected_files(exe: &str) -> Vec<String> {
    expected(exe)
}

/// What `plugin install` refuses, changing nothing of the host's: a settings registration at user
/// scope (both would run), a plugin the user turned off, a host CLI missing from PATH (the folder
/// is written and the commands to finish by hand are named). `--dry-run` writes and runs nothing.
#[cfg(unix)]
#[test]
fn plugin_install_refuses_what_it_must_not_change_and_dry_run_changes_nothing() {
    for r in RECORDS {
        let host = r.host;
        let fresh = || {
            let dir = tempfile::tempdir().unwrap();
            std::fs::create_dir_all(dir.path().join("project/.git")).unwrap();
            std::fs::create_dir_all(dir.path().join("home")).unwrap();
            dir
        };
        let data = |d: &Path| d.join("home/.local/share/sophia-hook/plugins");

        // Registered at user scope by `install`.
        let dir = fresh();
        let d = dir.path();
        let install = run_in(
            d,
            &["install", "--host", host, "--scope", "user", "--no-agents"],
        );
        assert_eq!(install.code, 0, "{host}: {}", install.stderr);
        let out = run_with_hosts(
            d,
            &[
                "plugin",
                "install",
                "--host",
                host,
                "--binary",
                small_binary(d).to_str().unwrap(),
            ],
        );
        assert_eq!(out.code, 2, "{host}: {}{}", out.stdout, out.stderr);
        assert!(
            out.stderr
                .contains(&format!("sophia-hook uninstall --host {host} --scope user")),
            "{host}: {}",
            out.stderr
        );
        assert!(host_commands(d).is_empty(), "{host}");
        assert!(!data(d).exists(), "{host}");

        // Turned off by the user.
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        plugin_world(d, host, Built::Elsewhere, After::Disabled);
        let out = run_with_hosts(
            d,
            &[
                "plugin",
                "install",
                "--host",
                host,
                "--binary",
                small_binary(d).to_str().unwrap(),
            ],
        );
        assert_eq!(out.code, 2, "{host}: {}{}", out.stdout, out.stderr);
        assert!(out.stderr.contains("turned off"), "{host}: {}", out.stderr);
        assert!(host_commands(d).is_empty(), "{host}");

        // --dry-run.
        let dir = fresh();
        let d = dir.path();
        let out = run_with_hosts(
            d,
            &[
                "plugin",
                "install",
                "--host",
                host,
                "--dry-run",
                "--binary",
                small_binary(d).to_str().unwrap(),
            ],
        );
        assert_eq!(out.code, 0, "{host}: {}{}", out.stdout, out.stderr);
        assert!(out.stdout.contains("would write"), "{host}: {}", out.stdout);
        assert!(
            out.stdout
                .lines()
                .any(|l| l.starts_with("would run: ") && l.contains(&format!("{host} "))),
            "{host}: {}",
            out.stdout
        );
        assert!(host_commands(d).is_empty(), "{host}");
        assert!(!data(d).exists(), "{host}");

        // The host's CLI is not on PATH.
        let dir = fresh();
        let d = dir.path();
        let out = common::run_binary(
            &[
                "plugin",
                "install",
                "--host",
                host,
                "--binary",
                small_binary(d).to_str().unwrap(),
                "--root",
                d.join("project").to_str().unwrap(),
            ],
            b"",
            &d.join("home"),
            &[("SOPHIA_ANALYTICS", "off"), ("PATH", "/usr/bin:/bin")],
        );
        assert_eq!(out.code, 2, "{host}: {}{}", out.stdout, out.stderr);
        assert!(
            out.stderr.contains("is not found on PATH") && out.stderr.contains("finish by hand"),
            "{host}: {}",
            out.stderr
        );
        assert!(data(d).join(VERSION).is_dir(), "{host}");
    }
}

/// A host that loads its own copy (Codex, Gemini CLI) gets this build again when its copy is
/// another build, even where the data folder holds this build already (written for another host).
#[cfg(unix)]
#[test]
fn plugin_install_refreshes_a_hosts_copy_of_another_build() {
    for (host, refresh) in [
        ("codex", vec!["codex plugin add sophia-hook@sophia-hook"]),
        (
            "gemini",
            vec![
                "gemini extensions uninstall sophia-hook",
                "gemini extensions install {ext} --consent",
            ],
        ),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::create_dir_all(d.join("project/.git")).unwrap();
        std::fs::create_dir_all(d.join("home")).unwrap();
        let (old, new) = (d.join("old-build"), d.join("new-build"));
        std::fs::write(&old, b"one build\n").unwrap();
        std::fs::write(&new, b"another build\n").unwrap();
        let install = |host: &str, binary: &Path| {
            let out = run_with_hosts(
                d,
                &[
                    "plugin",
                    "install",
                    "--host",
                    host,
                    "--binary",
                    binary.to_str().unwrap(),
                ],
            );
            assert_eq!(out.code, 0, "{host}: {}{}", out.stdout, out.stderr);
        };
        install(host, &old);
        // Another host installs the new build: the data folder holds it now, the host's copy not.
        install("claude", &new);
        host_commands(d);
        install(host, &new);
        let ext = d
            .join("home/.local/share/sophia-hook/plugins")
            .join(VERSION)
            .join("gemini-extension");
        let want: Vec<String> = refresh
            .iter()
            .map(|c| c.replace("{ext}", ext.to_str().unwrap()))
            .collect();
        assert_eq!(host_commands(d), want, "{host}");
        let copy = match host {
            "codex" => d
                .join("home/.codex/plugins/cache/sophia-hook/sophia-hook")
                .join(VERSION),
            _ => d.join("home/.gemini/extensions/sophia-hook"),
        };
        assert_eq!(
            std::fs::read(copy.join("bin/sophia-hook")).unwrap(),
            b"another build\n",
            "{host}"
        );
    }
}
