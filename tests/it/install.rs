//! install, uninstall and doctor through the real binary, in temporary projects and homes.
// Tests and benches set up and read their files directly; the door (clippy.toml) is for the crate.
#![allow(clippy::disallowed_methods)]

use crate::common;

use std::fs;
use std::path::Path;

use common::run_binary;
use serde_json::{Value, json};

struct Sandbox {
    dir: tempfile::TempDir,
}

impl Sandbox {
    fn new() -> Sandbox {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir_all(dir.path().join("project/.git")).unwrap();
        fs::create_dir_all(dir.path().join("home")).unwrap();
        Sandbox { dir }
    }
    fn project(&self) -> std::path::PathBuf {
        self.dir.path().join("project")
    }
    fn home(&self) -> std::path::PathBuf {
        self.dir.path().join("home")
    }
    fn run(&self, args: &[&str]) -> common::Run {
        let root = self.project();
        let mut all: Vec<&str> = args.to_vec();
        all.extend(["--root", root.to_str().unwrap()]);
        run_binary(&all, b"", &self.home(), &[("SOPHIA_ANALYTICS", "off")])
    }
}

/// Every `original.json` backup under the user's state folder.
fn backups(home: &Path) -> Vec<std::path::PathBuf> {
    let dir = home.join(".local/state/sophia-hook/backups");
    let mut out: Vec<_> = fs::read_dir(&dir)
        .map(|entries| {
            entries
                .map(|e| e.unwrap().path().join("original.json"))
                .filter(|p| p.exists())
                .collect()
        })
        .unwrap_or_default();
    out.sort();
    out
}

fn read(path: &Path) -> Value {
    serde_json::from_slice(&fs::read(path).unwrap()).unwrap()
}

fn settings_file(host: &str) -> &'static str {
    match host {
        "codex" => ".codex/hooks.json",
        "claude" => ".claude/settings.json",
        "gemini" => ".gemini/settings.json",
        _ => ".agents/hooks.json",
    }
}

/// A settings file with the user's own hooks and keys, per host.
fn existing(host: &str) -> Value {
    match host {
        "codex" => json!({"description": "team hooks", "hooks": {
            "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "/opt/guard.sh", "timeout": 3}]}],
            "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "/opt/log-prompt.sh", "timeout": 2}]}]}}),
        "claude" => json!({"model": "opus", "permissions": {"allow": ["Bash(ls)"]}, "hooks": {
            "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "/opt/log-prompt.sh"}]}]}}),
        "gemini" => json!({"theme": "dark", "hooksConfig": {"enabled": true}, "hooks": {
            "BeforeAgent": [{"hooks": [{"name": "mine", "type": "command", "command": "/opt/mine", "timeout": 2000}]}]}}),
        _ => {
            json!({"guard": {"PreToolUse": [{"matcher": "run_command", "hooks": [{"type": "command", "command": "/opt/g", "timeout": 3}]}]}})
        }
    }
}

#[test]
fn install_twice_keeps_one_set_and_the_users_hooks_then_uninstall_restores() {
    for host in ["codex", "claude", "gemini", "antigravity"] {
        let sb = Sandbox::new();
        let path = sb.project().join(settings_file(host));
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(
            &path,
            serde_json::to_string_pretty(&existing(host)).unwrap(),
        )
        .unwrap();

        let first = sb.run(&["install", "--host", host]);
        assert_eq!(first.code, 0, "{host}: {}", first.stderr);
        let once = read(&path);
        let second = sb.run(&["install", "--host", host]);
        assert_eq!(second.code, 0);
        assert!(
            second.stdout.contains("nothing changed"),
            "{host}: {}",
            second.stdout
        );
        if host != "antigravity" {
            assert!(first.stdout.contains("next:"), "{host}: {}", first.stdout);
        }
        assert!(
            !second.stdout.contains("next:") && !second.stdout.contains("EXPERIMENTAL"),
            "{host}: nothing changed, nothing to trust again: {}",
            second.stdout
        );
        assert_eq!(
            read(&path),
            once,
            "{host}: a second install changes nothing"
        );

        let text = fs::read_to_string(&path).unwrap();
        // One entry per event; Claude Code also gets PostToolUse for ExitPlanMode.
        let events = if host == "claude" { 3 } else { 2 };
        // On Windows each Codex handler also carries the line as `commandWindows`.
        let events = if cfg!(windows) && host == "codex" {
            2 * events
        } else {
            events
        };
        // Counted by our arguments, not by the path before them: a path with characters a
        // shell reads (the backslashes of a Windows path) is quoted in the POSIX `command`.
        assert_eq!(
            text.matches(&format!(" --host {host} --event ")).count()
                + text.matches("\"--host\"").count(),
            events,
            "{host}: one entry per event\n{text}"
        );
        if host == "claude" {
            assert_eq!(
                once["hooks"]["PostToolUse"],
                json!([{"matcher": "ExitPlanMode", "hooks": [{"type": "command", "command": once["hooks"]["PostToolUse"][0]["hooks"][0]["command"], "args": ["--host", "claude", "--event", "PostToolUse"], "timeout": 5}]}]),
                "{text}"
            );
        }
        // The user's own hooks and keys are all still there.
        let before = existing(host);
        for (key, value) in before.as_object().unwrap() {
            if key != "hooks" {
                assert_eq!(once[key], *value, "{host}: {key}");
            }
        }
        if let Some(hooks) = before.get("hooks").and_then(Value::as_object) {
            for (event, groups) in hooks {
                for g in groups.as_array().unwrap() {
                    assert!(
                        once["hooks"][event].as_array().unwrap().contains(g),
                        "{host}: lost {event} group"
                    );
                }
            }
        }
        // The pre-install original is kept in the user's state folder, not in the repository.
        assert!(!Path::new(&format!("{}.sophia-hook.bak", path.to_string_lossy())).exists());
        let originals = backups(&sb.home());
        assert_eq!(originals.len(), 1, "{host}: {originals:?}");
        assert_eq!(
            serde_json::from_str::<Value>(&fs::read_to_string(&originals[0]).unwrap()).unwrap(),
            existing(host),
            "{host}"
        );

        let un = sb.run(&["uninstall", "--host", host]);
        assert_eq!(un.code, 0, "{}", un.stderr);
        assert_eq!(
            read(&path),
            existing(host),
            "{host}: uninstall restores the original meaning"
        );
    }
}

#[test]
fn user_scope_and_dry_run() {
    let sb = Sandbox::new();
    let dry = sb.run(&[
        "install",
        "--host",
        "gemini",
        "--scope",
        "user",
        "--dry-run",
    ]);
    assert_eq!(dry.code, 0);
    let printed: Value = serde_json::from_str(&apply_dry_run("", &dry.stdout)).unwrap();
    assert_eq!(
        printed["hooks"]["BeforeAgent"][0]["hooks"][0]["timeout"],
        5000
    );
    assert!(
        !sb.home().join(".gemini/settings.json").exists(),
        "dry run writes nothing"
    );
    let real = sb.run(&["install", "--host", "gemini", "--scope", "user"]);
    assert_eq!(real.code, 0);
    assert_eq!(read(&sb.home().join(".gemini/settings.json")), printed);
    let agy = sb.run(&["install", "--host", "antigravity", "--scope", "user"]);
    assert!(agy.stdout.contains("EXPERIMENTAL"));
    assert!(sb.home().join(".gemini/config/hooks.json").exists());
}

#[test]
fn unparseable_settings_are_left_untouched() {
    let sb = Sandbox::new();
    let path = sb.project().join(".claude/settings.json");
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    let broken = "{ \"model\": \"opus\", // a comment\n }";
    fs::write(&path, broken).unwrap();
    let run = sb.run(&["install", "--host", "claude"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("not valid JSON") && run.stderr.contains("left untouched"),
        "{}",
        run.stderr
    );
    assert_eq!(fs::read_to_string(&path).unwrap(), broken);
    assert!(!Path::new(&format!("{}.sophia-hook.bak", path.to_string_lossy())).exists());
}

#[test]
fn install_refreshes_the_agent_catalog_and_manifest() {
    let sb = Sandbox::new();
    common::copy_canonical_source(&sb.project());
    let run = sb.run(&["install", "--host", "codex"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains("/hooks"), "the next step names /hooks");
    assert!(sb.project().join(".sophia/agent-catalog.json").exists());
    // The manifest is machine-wide: only a user-scope install rewrites it (docs/security.md I3).
    let manifest_path = sb.home().join(".mcp-servers/agent-availability.json");
    assert!(!manifest_path.exists());
    let run = sb.run(&["install", "--host", "codex", "--scope", "user"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let manifest = read(&manifest_path);
    assert_eq!(
        manifest["catalogFingerprint"],
        read(&sb.project().join(".sophia/agent-catalog.json"))["fingerprint"]
    );
}

#[test]
fn doctor_passes_a_fresh_install_and_fails_broken_setups() {
    for host in ["codex", "claude", "gemini"] {
        let sb = Sandbox::new();
        assert_eq!(sb.run(&["install", "--host", host]).code, 0);
        if host == "codex" {
            // Codex ignores project hooks until the folder is trusted.
            trust_folder(&sb);
        }
        let ok = sb.run(&["doctor", "--host", host]);
        assert_eq!(ok.code, 0, "{host}: fresh install\n{}", ok.stdout);
        assert!(
            ok.stdout.contains(&format!("{host} project run")) && ok.stdout.contains("valid"),
            "{}",
            ok.stdout
        );

        let path = sb.project().join(settings_file(host));
        let pristine = fs::read_to_string(&path).unwrap();

        // Wrong timeout unit.
        let wrong = if host == "gemini" {
            pristine.replace("\"timeout\": 5000", "\"timeout\": 5")
        } else {
            pristine.replace("\"timeout\": 5", "\"timeout\": 5000")
        };
        assert_ne!(wrong, pristine);
        fs::write(&path, &wrong).unwrap();
        let bad = sb.run(&["doctor", "--host", host]);
        assert_eq!(bad.code, 1, "{host}: wrong unit\n{}", bad.stdout);
        assert!(
            bad.stdout.contains("looks like") && bad.stdout.contains("fix:"),
            "{}",
            bad.stdout
        );

        // Missing entry.
        let mut doc: Value = serde_json::from_str(&pristine).unwrap();
        let prompt_event = match host {
            "gemini" => "BeforeAgent",
            _ => "UserPromptSubmit",
        };
        doc["hooks"]
            .as_object_mut()
            .unwrap()
            .shift_remove(prompt_event);
        fs::write(&path, doc.to_string()).unwrap();
        let missing = sb.run(&["doctor", "--host", host]);
        assert_eq!(missing.code, 1);
        assert!(
            missing
                .stdout
                .contains(&format!("no sophia-hook entry for {prompt_event}")),
            "{}",
            missing.stdout
        );
        assert!(
            missing
                .stdout
                .contains(&format!("fix: sophia-hook install --host {host}"))
        );

        // Unparseable file.
        fs::write(&path, "{ nope").unwrap();
        let unparseable = sb.run(&["doctor", "--host", host]);
        assert_eq!(unparseable.code, 1);
        assert!(
            unparseable.stdout.contains("not valid JSON"),
            "{}",
            unparseable.stdout
        );
    }
}

/// Records the project folder as trusted in Codex's user config, the way the TUI does.
fn trust_folder(sb: &Sandbox) {
    let config = sb.home().join(".codex/config.toml");
    fs::create_dir_all(config.parent().unwrap()).unwrap();
    let mut text = fs::read_to_string(&config).unwrap_or_default();
    text.push_str(&format!(
        "[projects.'{}']\ntrust_level = \"trusted\"\n",
        sb.project().to_string_lossy()
    ));
    fs::write(config, text).unwrap();
}

/// The `[hooks.state]` entries /hooks writes for our two handlers in `hooks` (hashes as given).
fn trust_state(hooks: &Path, session_hash: &str, prompt_hash: &str) -> String {
    let entry = |event: &str, hash: &str| {
        format!(
            "[hooks.state.'{}:{event}:0:0']\ntrusted_hash = \"{hash}\"\nenabled = true\n",
            hooks.to_string_lossy()
        )
    };
    entry("session_start", session_hash) + &entry("user_prompt_submit", prompt_hash)
}

/// The hash Codex computes for a registered handler (checked against Codex 0.169.0 itself in
/// `install::tests`, from `fixtures/contracts/codex/trust-hash.json`).
fn codex_hash(hooks: &Path, event: &str) -> String {
    let doc = read(hooks);
    let group = &doc["hooks"][event][0];
    sophia_hook::hosts::codex::trust_hash(
        event,
        group["matcher"].as_str(),
        &group["hooks"][0],
        sophia_hook::fingerprint::sha256,
    )
    .unwrap()
}

#[test]
#[cfg_attr(
    windows,
    ignore = "the hash Codex stores for a handler with commandWindows is not observed yet (tests/e2e runs on Linux)"
)]
fn doctor_recomputes_codex_trust_hashes() {
    let sb = Sandbox::new();
    assert_eq!(
        sb.run(&["install", "--host", "codex", "--scope", "user"])
            .code,
        0
    );
    let hooks = sb.home().join(".codex/hooks.json");
    let config = sb.home().join(".codex/config.toml");
    let untrusted = sb.run(&["doctor", "--host", "codex"]);
    assert_eq!(untrusted.code, 0, "untrusted is a warning, not a failure");
    assert!(
        untrusted.stdout.contains("codex user trust"),
        "{}",
        untrusted.stdout
    );
    assert!(untrusted.stdout.contains("not trusted yet"));

    let good = trust_state(
        &hooks,
        &codex_hash(&hooks, "SessionStart"),
        &codex_hash(&hooks, "UserPromptSubmit"),
    );
    fs::write(&config, &good).unwrap();
    let trusted = sb.run(&["doctor", "--host", "codex"]);
    assert_eq!(trusted.code, 0, "{}", trusted.stdout);
    assert_eq!(
        trusted
            .stdout
            .matches("trusted (the stored hash matches this entry)")
            .count(),
        2,
        "{}",
        trusted.stdout
    );

    // Trusted once, then reinstalled with another binary path: the stored hashes are stale and
    // Codex silently runs neither hook.
    let other = sb.dir.path().join("other/sophia-hook");
    fs::create_dir_all(other.parent().unwrap()).unwrap();
    common::exe::place_binary(&other);
    assert_eq!(
        sb.run(&[
            "install",
            "--host",
            "codex",
            "--scope",
            "user",
            "--binary",
            other.to_str().unwrap()
        ])
        .code,
        0
    );
    let stale = sb.run(&[
        "doctor",
        "--host",
        "codex",
        "--binary",
        other.to_str().unwrap(),
    ]);
    assert_eq!(stale.code, 1, "{}", stale.stdout);
    assert_eq!(
        stale
            .stdout
            .matches("Codex skips this hook until re-trusted in /hooks")
            .count(),
        2,
        "{}",
        stale.stdout
    );

    fs::write(&config, format!("[features]\nhooks = false\n{good}")).unwrap();
    let disabled = sb.run(&["doctor", "--host", "codex"]);
    assert_eq!(disabled.code, 1);
    assert!(disabled.stdout.contains("hooks are disabled"));

    fs::write(&config, "[hooks.state\nbroken").unwrap();
    let broken = sb.run(&["doctor", "--host", "codex"]);
    assert_eq!(broken.code, 1);
    assert!(
        broken.stdout.contains("does not parse"),
        "{}",
        broken.stdout
    );
}

#[test]
fn doctor_checks_codex_folder_trust_and_duplicate_scopes() {
    let sb = Sandbox::new();
    assert_eq!(sb.run(&["install", "--host", "codex"]).code, 0);
    let untrusted = sb.run(&["doctor", "--host", "codex"]);
    assert_eq!(untrusted.code, 1, "{}", untrusted.stdout);
    assert!(
        untrusted.stdout.contains("codex project trust")
            && untrusted
                .stdout
                .contains("is not trusted, so Codex ignores"),
        "{}",
        untrusted.stdout
    );
    trust_folder(&sb);
    let trusted = sb.run(&["doctor", "--host", "codex"]);
    assert_eq!(trusted.code, 0, "{}", trusted.stdout);
    assert!(!trusted.stdout.contains("is not trusted"));

    // Both scopes: install says so, and doctor fails.
    let both = sb.run(&["install", "--host", "codex", "--scope", "user"]);
    assert!(
        both.stderr.contains("every block is injected twice") && !both.stdout.contains("warning"),
        "{}",
        both.stderr
    );
    let doctor = sb.run(&["doctor", "--host", "codex"]);
    assert_eq!(doctor.code, 1);
    assert!(
        doctor.stdout.contains("codex scopes")
            && doctor
                .stdout
                .contains("installed at both user and project scope"),
        "{}",
        doctor.stdout
    );
    assert!(
        doctor.stdout.contains("codex user trust") && doctor.stdout.contains("codex project trust")
    );
}

#[test]
fn doctor_checks_the_gemini_session_matcher_as_gemini_does() {
    let sb = Sandbox::new();
    assert_eq!(sb.run(&["install", "--host", "gemini"]).code, 0);
    let path = sb.project().join(".gemini/settings.json");
    let mut doc = read(&path);
    assert_eq!(doc["hooks"]["SessionStart"][0].get("matcher"), None);
    let untrusted = sb.run(&["doctor", "--host", "gemini"]);
    assert_eq!(untrusted.code, 0, "{}", untrusted.stdout);
    assert!(
        untrusted.stdout.contains("gemini project trust")
            && untrusted.stdout.contains("is not a trusted folder"),
        "{}",
        untrusted.stdout
    );
    fs::create_dir_all(sb.home().join(".gemini")).unwrap();
    fs::write(
        sb.home().join(".gemini/trustedFolders.json"),
        json!({ sb.project().to_str().unwrap(): "TRUST_FOLDER" }).to_string(),
    )
    .unwrap();
    let trusted = sb.run(&["doctor", "--host", "gemini"]);
    assert_eq!(trusted.code, 0);
    assert!(
        !trusted.stdout.contains("is not a trusted folder"),
        "{}",
        trusted.stdout
    );
    // The same entry in a file with a byte that is not UTF-8 (another folder's key): strict JSON
    // refuses the whole file, as Gemini CLI's reader does, so the folder is not trusted.
    let mut bytes = format!(
        "{{\"{}\": \"TRUST_FOLDER\", \"/old/",
        sb.project().to_str().unwrap()
    )
    .into_bytes();
    bytes.extend_from_slice(b"\xff\": \"DO_NOT_TRUST\"}");
    fs::write(sb.home().join(".gemini/trustedFolders.json"), &bytes).unwrap();
    let broken = sb.run(&["doctor", "--host", "gemini"]);
    assert!(
        broken.stdout.contains("is not a trusted folder"),
        "{}",
        broken.stdout
    );
    fs::write(
        sb.home().join(".gemini/trustedFolders.json"),
        json!({ sb.project().to_str().unwrap(): "TRUST_FOLDER" }).to_string(),
    )
    .unwrap();
    // What earlier versions wrote: never equal to a source, so SessionStart never ran.
    doc["hooks"]["SessionStart"][0]["matcher"] = json!("startup|resume|clear");
    fs::write(&path, doc.to_string()).unwrap();
    let bad = sb.run(&["doctor", "--host", "gemini"]);
    assert_eq!(bad.code, 1, "{}", bad.stdout);
    assert!(bad.stdout.contains("never matches"), "{}", bad.stdout);
    // install repairs it.
    let again = sb.run(&["install", "--host", "gemini"]);
    assert!(
        again.stdout.contains("installed sophia-hook"),
        "{}",
        again.stdout
    );
    assert_eq!(read(&path)["hooks"]["SessionStart"][0].get("matcher"), None);
}

#[test]
fn doctor_flags_a_binary_path_with_spaces_and_a_host_not_installed() {
    let sb = Sandbox::new();
    let run = sb.run(&["doctor", "--host", "claude"]);
    assert_eq!(
        run.code, 1,
        "an explicitly named host that is not installed"
    );
    assert!(run.stdout.contains("not installed"));
    let spaced = sb.dir.path().join("my tools");
    fs::create_dir_all(&spaced).unwrap();
    let bin = spaced.join("sophia-hook");
    common::exe::place_binary(&bin);
    let run = sb.run(&["doctor", "--binary", bin.to_str().unwrap()]);
    assert_eq!(run.code, 1);
    assert!(run.stdout.contains("contains spaces"), "{}", run.stdout);
}

#[test]
fn doctor_runs_antigravity_again_and_again() {
    // The hook injects once per Antigravity turn and remembers the turns it served: the live run
    // must use a fresh turn each time, or the second doctor would see `{}`.
    let sb = Sandbox::new();
    assert_eq!(sb.run(&["install", "--host", "antigravity"]).code, 0);
    let cache = sb.dir.path().join("cache");
    let root = sb.project();
    for run in 0..2 {
        let out = run_binary(
            &[
                "doctor",
                "--host",
                "antigravity",
                "--root",
                root.to_str().unwrap(),
            ],
            b"",
            &sb.home(),
            &[
                ("SOPHIA_ANALYTICS", "off"),
                ("SOPHIA_CACHE_DIR", cache.to_str().unwrap()),
            ],
        );
        assert_eq!(out.code, 0, "run {run}: {}", out.stdout);
        assert_eq!(
            out.stdout.matches("valid antigravity output").count(),
            2,
            "run {run}: {}",
            out.stdout
        );
        assert!(
            out.stdout
                .contains("not yet run in a real Antigravity host")
        );
    }
}

#[test]
fn install_generates_the_hosts_roles_and_uninstall_removes_only_unchanged_ones() {
    let sb = Sandbox::new();
    let install = sb.run(&["install", "--host", "codex"]);
    assert_eq!(install.code, 0, "{}", install.stderr);
    let agents = sb.project().join(".codex/agents");
    let mut names: Vec<String> = fs::read_dir(&agents)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "code_reviewer.toml",
            "implementer.toml",
            "scout.toml",
            "technical_analyst.toml",
            "test_writer.toml"
        ]
    );
    assert!(
        !sb.project().join(".claude/agents").exists(),
        "only the installed host"
    );
    assert_eq!(sb.run(&["agents", "check", "--host", "codex"]).code, 0);
    // A project-scope install never writes the machine-wide availability manifest: it holds
    // the user's own definitions only (docs/security.md I3; the hook lists the project's
    // folders itself). A user-scope install rewrites it.
    assert!(
        !sb.home()
            .join(".mcp-servers/agent-availability.json")
            .exists()
    );
    let user = sb.run(&["install", "--host", "codex", "--scope", "user"]);
    assert_eq!(user.code, 0, "{}", user.stderr);
    let manifest = read(&sb.home().join(".mcp-servers/agent-availability.json"));
    assert_eq!(manifest["hosts"]["codex"]["scout"], "configured");
    assert_eq!(manifest["hosts"]["claude"]["scout"], "unknown");
    let un = sb.run(&["uninstall", "--host", "codex", "--scope", "user"]);
    assert_eq!(un.code, 0, "{}", un.stderr);

    let edited = agents.join("scout.toml");
    let mine = fs::read_to_string(&edited).unwrap() + "# tuned by hand\n";
    fs::write(&edited, &mine).unwrap();
    let un = sb.run(&["uninstall", "--host", "codex"]);
    assert_eq!(un.code, 0, "{}", un.stderr);
    assert_eq!(fs::read_to_string(&edited).unwrap(), mine, "edited: kept");
    assert_eq!(
        fs::read_dir(&agents).unwrap().count(),
        1,
        "the rest removed"
    );

    let sb = Sandbox::new();
    assert_eq!(
        sb.run(&["install", "--host", "claude", "--no-agents"]).code,
        0
    );
    assert!(!sb.project().join(".claude/agents").exists());
}

/// doctor's timeout-unit rule (docs/hosts.md, `doctor`): a Gemini CLI timeout under 100 "looks
/// like seconds" (Gemini counts milliseconds); a Codex or Claude Code timeout of 1000 or more
/// "looks like milliseconds" (they count seconds). Checked at every value around both edges, for
/// each host. Planted bug this catches (issue 20's independent audit): the Gemini edge moved
/// from 100 to 10, so a `"timeout": 60` passed.
#[test]
fn doctor_flags_a_timeout_in_the_wrong_unit_at_every_value_around_the_edges() {
    let values = [
        1u64, 5, 9, 10, 30, 60, 99, 100, 500, 999, 1000, 5000, 10_000,
    ];
    for host in ["codex", "claude", "gemini"] {
        let sb = Sandbox::new();
        assert_eq!(sb.run(&["install", "--host", host]).code, 0);
        let path = sb.project().join(settings_file(host));
        let pristine: Value = serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
        for t in values {
            let mut doc = pristine.clone();
            for groups in doc["hooks"].as_object_mut().unwrap().values_mut() {
                for group in groups.as_array_mut().unwrap() {
                    for handler in group["hooks"].as_array_mut().unwrap() {
                        handler["timeout"] = json!(t);
                    }
                }
            }
            fs::write(&path, doc.to_string()).unwrap();
            let out = sb.run(&["doctor", "--host", host]).stdout;
            let (seconds, millis) = if host == "gemini" {
                (t < 100, false)
            } else {
                (false, t >= 1000)
            };
            assert_eq!(
                out.contains("looks like seconds"),
                seconds,
                "{host} timeout {t}:\n{out}"
            );
            assert_eq!(
                out.contains("looks like milliseconds"),
                millis,
                "{host} timeout {t}:\n{out}"
            );
        }
    }
}

/// Copilot CLI through the binary, as a user runs it: `install` writes our hook file and the five
/// `.github/agents/<role>.agent.md` roles, `doctor` runs the installed command on a camelCase
/// payload and reads the folder's trust from `trustedFolders` of ~/.copilot/config.json (JSONC),
/// both scopes installed is a failure (both run:
/// the bootstrap would arrive twice), and `uninstall` leaves nothing of ours behind.
#[test]
fn copilot_install_doctor_uninstall() {
    let sb = Sandbox::new();
    let install = sb.run(&["install", "--host", "copilot"]);
    assert_eq!(install.code, 0, "{}", install.stderr);
    assert!(
        install.stdout.contains("trusted folder"),
        "{}",
        install.stdout
    );
    let file = sb.project().join(".github/hooks/sophia-hook.json");
    let doc = read(&file);
    assert_eq!(doc["version"], 1);
    assert!(
        doc["hooks"]["userPromptSubmitted"][0]["bash"]
            .as_str()
            .unwrap()
            .ends_with("--host copilot --event userPromptSubmitted")
    );
    let roles = [
        "scout",
        "technical_analyst",
        "implementer",
        "code_reviewer",
        "test_writer",
    ];
    for role in roles {
        let text = fs::read_to_string(sb.project().join(format!(".github/agents/{role}.agent.md")))
            .unwrap();
        assert!(
            text.starts_with("---\n") && text.contains(&format!("name: \"{role}\"\n")),
            "{text}"
        );
    }
    assert_eq!(sb.run(&["agents", "check", "--host", "copilot"]).code, 0);

    let doctor = sb.run(&["doctor", "--host", "copilot"]);
    assert_eq!(doctor.code, 0, "{}", doctor.stdout);
    assert!(
        doctor.stdout.contains("sessionStart: valid copilot output")
            && doctor
                .stdout
                .contains("userPromptSubmitted: valid copilot output")
            && doctor.stdout.contains("copilot project trust"),
        "{}",
        doctor.stdout
    );
    // Not yet trusted: doctor says the repository's hooks will not run, and how to trust.
    assert!(
        doctor.stdout.contains("is not in `trustedFolders`")
            && doctor.stdout.contains("Yes, and remember this folder"),
        "{}",
        doctor.stdout
    );
    // Trusted the way the TUI records it: a parent of the project in `trustedFolders` of
    // ~/.copilot/config.json, after the `//` lines the CLI writes.
    let parent = sb.project().parent().unwrap().to_string_lossy().to_string();
    fs::create_dir_all(sb.home().join(".copilot")).unwrap();
    fs::write(
        sb.home().join(".copilot/config.json"),
        format!(
            "// User settings belong in settings.json.\n// This file is managed automatically.\n{}\n",
            serde_json::json!({ "trustedFolders": [parent] })
        ),
    )
    .unwrap();
    let doctor = sb.run(&["doctor", "--host", "copilot"]);
    assert_eq!(doctor.code, 0, "{}", doctor.stdout);
    assert!(
        doctor.stdout.contains("is trusted (`trustedFolders` entry")
            && !doctor.stdout.contains("is not in `trustedFolders`"),
        "{}",
        doctor.stdout
    );

    let both = sb.run(&["install", "--host", "copilot", "--scope", "user"]);
    assert!(
        both.stderr.contains("every block is injected twice"),
        "{}",
        both.stderr
    );
    assert!(sb.home().join(".copilot/hooks/sophia-hook.json").is_file());
    let doctor = sb.run(&["doctor", "--host", "copilot"]);
    assert_eq!(doctor.code, 1, "{}", doctor.stdout);
    assert!(
        doctor.stdout.contains("copilot scopes"),
        "{}",
        doctor.stdout
    );

    for scope in ["user", "project"] {
        let out = sb.run(&["uninstall", "--host", "copilot", "--scope", scope]);
        assert_eq!(out.code, 0, "{}", out.stderr);
    }
    assert!(!file.exists() && !sb.home().join(".copilot/hooks/sophia-hook.json").exists());
    assert!(
        !sb.project().join(".github").exists(),
        "our folders are removed when empty"
    );
}

/// Every host's settings file for each scope, as (host, scope, path under the project or the
/// home); the Codex and Copilot homes are the defaults under `HOME`.
const SETTINGS_FILES: &[(&str, &str, &str)] = &[
    ("codex", "project", ".codex/hooks.json"),
    ("codex", "user", ".codex/hooks.json"),
    ("claude", "project", ".claude/settings.json"),
    ("claude", "user", ".claude/settings.json"),
    ("gemini", "project", ".gemini/settings.json"),
    ("gemini", "user", ".gemini/settings.json"),
    ("antigravity", "project", ".agents/hooks.json"),
    ("antigravity", "user", ".gemini/config/hooks.json"),
    ("copilot", "project", ".github/hooks/sophia-hook.json"),
    ("copilot", "user", ".copilot/hooks/sophia-hook.json"),
];

impl Sandbox {
    /// The settings file of `host` at `scope` in this sandbox.
    fn settings(&self, scope: &str, rel: &str) -> std::path::PathBuf {
        if scope == "user" {
            self.home().join(rel)
        } else {
            self.project().join(rel)
        }
    }
    /// `install` or `uninstall` for `host` at `scope`, without the agent roles.
    fn change(&self, verb: &str, host: &str, scope: &str, extra: &[&str]) -> common::Run {
        let mut args = vec![verb, "--host", host, "--scope", scope, "--no-agents"];
        args.extend(extra);
        self.run(&args)
    }
}

/// A user's settings file that every host's install merges into (numbers as the user wrote
/// them, compact arrays).
const USER_FILE: &str = "{\n  \"model\": \"x\",\n  \"ratio\": 1.50,\n  \"list\": [1, 2,3]\n}\n";

/// A read-only settings file is refused, named, and left as it was (bytes and mode), by install
/// and by uninstall, at every host and scope; a dry run says the same.
#[test]
fn a_read_only_settings_file_is_refused_and_untouched() {
    for &(host, scope, rel) in SETTINGS_FILES {
        let sb = Sandbox::new();
        let path = sb.settings(scope, rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(&path, USER_FILE).unwrap();
        let read_only = |on: bool| {
            let mut perms = fs::metadata(&path).unwrap().permissions();
            perms.set_readonly(on);
            fs::set_permissions(&path, perms).unwrap();
        };
        read_only(true);
        for extra in [&[][..], &["--dry-run"][..]] {
            let run = sb.change("install", host, scope, extra);
            assert_ne!(run.code, 0, "{host} {scope} {extra:?}: {}", run.stdout);
            assert!(
                common::names_path(&run.stderr, &path)
                    && run.stderr.contains("read-only")
                    && run.stderr.contains("left untouched"),
                "{host} {scope}: {}",
                run.stderr
            );
            assert_eq!(
                fs::read_to_string(&path).unwrap(),
                USER_FILE,
                "{host} {scope}"
            );
            assert!(fs::metadata(&path).unwrap().permissions().readonly());
        }
        read_only(false);
        let install = sb.change("install", host, scope, &[]);
        assert_eq!(install.code, 0, "{host} {scope}: {}", install.stderr);
        let installed = fs::read(&path).unwrap();
        read_only(true);
        let run = sb.change("uninstall", host, scope, &[]);
        assert_ne!(run.code, 0, "{host} {scope}: {}", run.stdout);
        assert!(run.stderr.contains("read-only"), "{}", run.stderr);
        assert_eq!(fs::read(&path).unwrap(), installed, "{host} {scope}");
        // Nothing to change: nothing to refuse.
        let again = sb.change("install", host, scope, &[]);
        assert_eq!(again.code, 0, "{host} {scope}: {}", again.stderr);
        read_only(false);
    }
}

/// A settings file that starts with a UTF-8 byte order mark is read, and keeps its mark through
/// install and uninstall, at every host and scope.
#[test]
fn a_byte_order_mark_is_kept() {
    for &(host, scope, rel) in SETTINGS_FILES {
        let sb = Sandbox::new();
        let path = sb.settings(scope, rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        let with_bom = format!("\u{feff}{USER_FILE}");
        fs::write(&path, &with_bom).unwrap();
        // The dry run shows the mark as every hidden character is printed: escaped.
        let dry = sb.change("install", host, scope, &["--dry-run"]);
        assert!(
            dry.stdout.contains("\n \\uFEFF{\n"),
            "{host} {scope}: {}",
            dry.stdout
        );
        let install = sb.change("install", host, scope, &[]);
        assert_eq!(install.code, 0, "{host} {scope}: {}", install.stderr);
        let installed = fs::read_to_string(&path).unwrap();
        assert!(
            installed.starts_with("\u{feff}{"),
            "{host} {scope}: {installed:?}"
        );
        assert!(installed.contains("\"ratio\": 1.50"), "{installed}");
        let uninstall = sb.change("uninstall", host, scope, &[]);
        assert_eq!(uninstall.code, 0, "{host} {scope}: {}", uninstall.stderr);
        let back = fs::read_to_string(&path).unwrap();
        assert!(back.starts_with('\u{feff}'), "{host} {scope}: {back:?}");
        assert_eq!(
            serde_json::from_str::<Value>(&back[3..]).unwrap(),
            serde_json::from_str::<Value>(USER_FILE).unwrap(),
            "{host} {scope}"
        );
    }
}

/// The host's prompt event, as its settings file names it.
fn prompt_event(host: &str) -> &'static str {
    match host {
        "gemini" => "BeforeAgent",
        "antigravity" => "PreInvocation",
        "copilot" => "userPromptSubmitted",
        _ => "UserPromptSubmit",
    }
}

/// `diff` (a dry run's stdout) applied to `before` by `diffy`, an implementation of the unified
/// format other than the one that wrote it.
fn apply_dry_run(before: &str, diff: &str) -> String {
    // The header names the file as the platform writes it; diffy takes no `\` in a file name (a
    // Windows path), and the hunks are what is checked here.
    let diff: String = diff
        .split_inclusive('\n')
        .map(|l| match l.starts_with("--- ") || l.starts_with("+++ ") {
            true => l.replace('\\', "/"),
            false => l.to_owned(),
        })
        .collect();
    let diff = diff.as_str();
    let patch = diffy::Patch::from_str(diff).unwrap_or_else(|e| panic!("{e}: not a diff:\n{diff}"));
    diffy::apply(before, &patch).unwrap_or_else(|e| panic!("{e}: does not apply:\n{diff}"))
}

/// `--dry-run` prints a unified diff that, applied to today's file, gives byte for byte the file
/// the same command then writes (an empty text for a file it removes): at every host and scope,
/// for a new file and a user's file with odd numbers and compact arrays, and for the uninstall
/// that follows each install. (A byte order mark is shown escaped, as every hidden character a
/// tool prints: `a_byte_order_mark_is_kept`.)
#[test]
fn the_dry_run_diff_is_exactly_what_is_then_written() {
    for &(host, scope, rel) in SETTINGS_FILES {
        let event = prompt_event(host);
        let user = format!(
            "{{\"model\": \"x\", \"ratio\": 1.50, \"big\": 18446744073709551616,\n  \"hooks\": {{\"{event}\": [{{\"hooks\": [{{\"type\": \"command\", \"command\": \"mine\", \"timeout\": 2.50, \"n\": 1E-400}}]}}]}}}}\n"
        );
        for before in [None, Some(user.clone())] {
            let sb = Sandbox::new();
            let path = sb.settings(scope, rel);
            if let Some(text) = &before {
                fs::create_dir_all(path.parent().unwrap()).unwrap();
                fs::write(&path, text).unwrap();
            }
            for verb in ["install", "uninstall"] {
                let now = fs::read_to_string(&path).ok();
                let dry = sb.change(verb, host, scope, &["--dry-run"]);
                assert_eq!(dry.code, 0, "{host} {scope} {verb}: {}", dry.stderr);
                assert_eq!(
                    fs::read_to_string(&path).ok(),
                    now,
                    "{host} {scope} {verb}: a dry run writes nothing"
                );
                let header = if now.is_some() {
                    path.to_string_lossy().to_string()
                } else {
                    "/dev/null".to_owned()
                };
                let first = dry.stdout.lines().next().unwrap_or_default();
                assert!(
                    first.starts_with("--- ") && common::names_path(first, Path::new(&header)),
                    "{host} {scope} {verb}:\n{}",
                    dry.stdout
                );
                let expected = apply_dry_run(now.as_deref().unwrap_or(""), &dry.stdout);
                let real = sb.change(verb, host, scope, &[]);
                assert_eq!(real.code, 0, "{host} {scope} {verb}: {}", real.stderr);
                let written = fs::read_to_string(&path).unwrap_or_default();
                assert_eq!(written, expected, "{host} {scope} {verb} {before:?}");
                if let Some(text) = &before {
                    assert!(
                        ["1.50", "18446744073709551616", "2.50", "1E-400"]
                            .iter()
                            .all(|n| written.contains(n)),
                        "{host} {scope} {verb}: the user's numbers are rewritten:\n{written}\nfrom\n{text}"
                    );
                }
            }
            // Nothing to change: an empty diff, and a note on stderr.
            let again = sb.change("uninstall", host, scope, &["--dry-run"]);
            assert_eq!(again.stdout, "", "{host} {scope}");
            assert!(
                again.stderr.contains("nothing would change"),
                "{}",
                again.stderr
            );
        }
    }
}

/// Uninstall gives back the user's file byte for byte (compact arrays, spacing, numbers) while
/// nothing but install changed it, at every host and scope, also after an earlier install and
/// uninstall and an edit in between; once the user changed the file after install, only our
/// entries go and the change stays.
#[test]
fn uninstall_restores_the_original_bytes_while_nothing_else_changed() {
    for &(host, scope, rel) in SETTINGS_FILES {
        let event = prompt_event(host);
        let user = format!(
            "{{\"model\": \"x\",   \"n\": 1.50,\n\"hooks\": {{\"{event}\": [{{\"hooks\": [{{\"type\": \"command\", \"command\": \"mine\", \"timeout\": 2}}]}}]}}}}\n"
        );
        let sb = Sandbox::new();
        let path = sb.settings(scope, rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(&path, &user).unwrap();
        let round = |label: &str| {
            for verb in ["install", "uninstall"] {
                let run = sb.change(verb, host, scope, &[]);
                assert_eq!(run.code, 0, "{host} {scope} {label} {verb}: {}", run.stderr);
            }
        };
        round("first");
        assert_eq!(fs::read_to_string(&path).unwrap(), user, "{host} {scope}");
        // The user edits the file between two rounds: the second gives back the edited file.
        let edited = user.replace("\"x\"", "\"y\"");
        fs::write(&path, &edited).unwrap();
        round("after an edit");
        assert_eq!(fs::read_to_string(&path).unwrap(), edited, "{host} {scope}");
        // The user edits the file while we are installed: uninstall removes only ours.
        let install = sb.change("install", host, scope, &[]);
        assert_eq!(install.code, 0, "{host} {scope}: {}", install.stderr);
        let installed = fs::read_to_string(&path).unwrap();
        fs::write(&path, installed.replace("\"y\"", "\"z\"")).unwrap();
        let uninstall = sb.change("uninstall", host, scope, &[]);
        assert_eq!(uninstall.code, 0, "{host} {scope}: {}", uninstall.stderr);
        let after: Value = read(&path);
        let mut want: Value = serde_json::from_str(&edited).unwrap();
        want["model"] = json!("z");
        assert_eq!(after, want, "{host} {scope}");
    }
}

/// Every file and folder under the sandbox (relative), leaving out the state folder, which keeps
/// the backups on purpose.
fn tree(sb: &Sandbox) -> Vec<String> {
    fn walk(dir: &Path, base: &Path, out: &mut Vec<String>) {
        for entry in fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let rel = path
                .strip_prefix(base)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            if rel == "home/.local" {
                continue;
            }
            out.push(rel);
            if path.is_dir() {
                walk(&path, base, out);
            }
        }
    }
    let mut out = Vec::new();
    walk(sb.dir.path(), sb.dir.path(), &mut out);
    out.sort();
    out
}

/// Uninstall takes away every folder and file install created (settings folders, agent folders,
/// the availability manifest once no host has the hook at user scope), at every host and scope,
/// and never a folder that was there before or that holds the user's files.
#[test]
fn uninstall_removes_what_install_created_and_nothing_else() {
    for &(host, scope, rel) in SETTINGS_FILES {
        let both = |sb: &Sandbox| {
            for verb in ["install", "uninstall"] {
                let run = sb.run(&[verb, "--host", host, "--scope", scope]);
                assert_eq!(run.code, 0, "{host} {scope} {verb}: {}", run.stderr);
            }
        };
        // From nothing: back to nothing.
        let sb = Sandbox::new();
        let empty = tree(&sb);
        both(&sb);
        assert_eq!(tree(&sb), empty, "{host} {scope}");
        // The host's folder was there (empty): it stays.
        let sb = Sandbox::new();
        let folder = sb.settings(scope, rel).parent().unwrap().to_path_buf();
        fs::create_dir_all(&folder).unwrap();
        let before = tree(&sb);
        both(&sb);
        assert_eq!(tree(&sb), before, "{host} {scope}: a folder that was there");
        // A file of the user's lands in a folder install created: the folder and file stay.
        let sb = Sandbox::new();
        let install = sb.run(&["install", "--host", host, "--scope", scope]);
        assert_eq!(install.code, 0, "{}", install.stderr);
        let mine = sb.settings(scope, rel).parent().unwrap().join("mine.md");
        fs::write(&mine, "mine").unwrap();
        let uninstall = sb.run(&["uninstall", "--host", host, "--scope", scope]);
        assert_eq!(uninstall.code, 0, "{}", uninstall.stderr);
        assert_eq!(fs::read_to_string(&mine).unwrap(), "mine", "{host} {scope}");
    }
    // The manifest is machine-wide: it goes with the last user-scope uninstall.
    let sb = Sandbox::new();
    let empty = tree(&sb);
    for verb in ["install", "uninstall"] {
        for host in ["codex", "claude"] {
            let run = sb.run(&[verb, "--host", host, "--scope", "user"]);
            assert_eq!(run.code, 0, "{host} {verb}: {}", run.stderr);
            let manifest = sb.home().join(".mcp-servers/agent-availability.json");
            let last = verb == "uninstall" && host == "claude";
            assert_eq!(manifest.exists(), !last, "{host} {verb}");
        }
    }
    assert_eq!(tree(&sb), empty);
}

/// Gemini CLI reads comments in settings.json: install and uninstall keep every comment, at both
/// scopes, whether uninstall gives back the original bytes or (after an edit) removes only our
/// entries; the dry run shows exactly that edit. A file whose only content of the user's is a
/// comment keeps it (as `{}`) rather than being removed. Hosts that refuse comments still have
/// such a file refused (`unparseable_settings_are_left_untouched`).
#[test]
fn gemini_settings_with_comments_keep_every_comment() {
    let comments = [
        "// My Gemini settings",
        "// the dark one",
        "/* hooks below */",
        "// mine first",
        "/* the end */",
    ];
    let text = format!(
        "{}\n{{\n  \"theme\": \"dark\", {}\n  {}\n  \"hooks\": {{\n    \"BeforeAgent\": [\n      {}\n      {{\"hooks\": [{{\"type\": \"command\", \"command\": \"mine\", \"timeout\": 2500}}]}}\n    ]\n  }}\n}}\n{}\n",
        comments[0], comments[1], comments[2], comments[3], comments[4]
    );
    let parse = |t: &str| -> Value {
        let stripped: String = t
            .lines()
            .map(|l| l.split("//").next().unwrap())
            .collect::<Vec<_>>()
            .join("\n")
            .replace("/* hooks below */", "")
            .replace("/* the end */", "");
        serde_json::from_str(&stripped).unwrap_or_else(|e| panic!("{e}: {t}"))
    };
    for scope in ["project", "user"] {
        let sb = Sandbox::new();
        let path = sb.settings(scope, ".gemini/settings.json");
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(&path, &text).unwrap();
        let dry = sb.change("install", "gemini", scope, &["--dry-run"]);
        assert_eq!(dry.code, 0, "{scope}: {}", dry.stderr);
        let install = sb.change("install", "gemini", scope, &[]);
        assert_eq!(install.code, 0, "{scope}: {}", install.stderr);
        let installed = fs::read_to_string(&path).unwrap();
        assert_eq!(apply_dry_run(&text, &dry.stdout), installed, "{scope}");
        for c in comments {
            assert!(installed.contains(c), "{scope}: {c} lost:\n{installed}");
        }
        assert_eq!(
            installed.matches(" --host gemini --event ").count(),
            2,
            "{installed}"
        );
        assert_eq!(parse(&installed)["theme"], "dark");
        // Nothing else changed: the original bytes.
        let uninstall = sb.change("uninstall", "gemini", scope, &[]);
        assert_eq!(uninstall.code, 0, "{scope}: {}", uninstall.stderr);
        assert_eq!(fs::read_to_string(&path).unwrap(), text, "{scope}");
        // Edited since install: only our entries go, every comment and the edit stay.
        assert_eq!(sb.change("install", "gemini", scope, &[]).code, 0);
        let edited = fs::read_to_string(&path)
            .unwrap()
            .replace("\"dark\"", "\"light\"");
        fs::write(&path, &edited).unwrap();
        let uninstall = sb.change("uninstall", "gemini", scope, &[]);
        assert_eq!(uninstall.code, 0, "{scope}: {}", uninstall.stderr);
        let back = fs::read_to_string(&path).unwrap();
        assert_eq!(back, text.replace("\"dark\"", "\"light\""), "{scope}");
        // Only a comment of the user's: kept.
        fs::write(&path, "// keep me\n{}\n").unwrap();
        assert_eq!(sb.change("install", "gemini", scope, &[]).code, 0);
        let installed = fs::read_to_string(&path).unwrap();
        fs::write(&path, installed.replace("// keep me", "// keep me too")).unwrap();
        let uninstall = sb.change("uninstall", "gemini", scope, &[]);
        assert_eq!(uninstall.code, 0, "{scope}: {}", uninstall.stderr);
        let back = fs::read_to_string(&path).unwrap();
        assert!(back.contains("// keep me too"), "{scope}: {back}");
        assert_eq!(parse(&back), json!({}), "{scope}: {back}");
    }
}

/// Issue 29, class 5: the backups of a project's settings file are keyed by its path and by the
/// project folder's identity. A clone removed without an uninstall and cloned again at the same
/// path is another project: the backup folder `doctor` points to for the second never holds the
/// first clone's file, and uninstall gives the second clone back its own file. Every host with a
/// project settings file × what the second clone holds there (nothing, or a file of its own); and
/// uninstall removes the restore points it kept for that install (only `last.json` stays).
#[test]
fn a_new_clone_at_the_same_path_never_gets_the_last_clones_settings() {
    const FIRST: &str = "{\"first\": \"FIRST CLONE'S OWN SETTINGS\"}\n";
    const SECOND: &str = "{\"second\": \"mine\"}\n";
    let restore_points = |dir: &Path| -> Vec<String> {
        fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n != "last.json")
            .collect()
    };
    let mut failures = Vec::new();
    for &(host, scope, rel) in SETTINGS_FILES {
        if scope != "project" {
            continue;
        }
        for second in [None, Some(SECOND)] {
            let sb = Sandbox::new();
            let path = sb.settings(scope, rel);
            let clone = |text: Option<&str>| {
                let _ = fs::remove_dir_all(sb.project());
                fs::create_dir_all(sb.project().join(".git")).unwrap();
                if let Some(text) = text {
                    fs::create_dir_all(path.parent().unwrap()).unwrap();
                    fs::write(&path, text).unwrap();
                }
            };
            clone(Some(FIRST));
            let install = sb.change("install", host, scope, &[]);
            assert_eq!(install.code, 0, "{host}: {}", install.stderr);
            // The clone is removed, not uninstalled, and cloned again at the same path.
            clone(second);
            let install = sb.change("install", host, scope, &[]);
            assert_eq!(install.code, 0, "{host}: {}", install.stderr);
            let installed = fs::read_to_string(&path).unwrap();
            // The file breaks: doctor's fix names the backup folder of this clone.
            fs::write(&path, "{ not json").unwrap();
            let doctor = sb.run(&["doctor", "--host", host, "--json"]);
            let checks: Value = serde_json::from_str(&doctor.stdout).unwrap();
            let folder = checks["checks"]
                .as_array()
                .unwrap()
                .iter()
                .filter_map(|c| c["fix"].as_str())
                .find_map(|fix| fix.split("restore a backup from ").nth(1))
                .map(std::path::PathBuf::from)
                .unwrap_or_else(|| panic!("{host}: no backup named in {}", doctor.stdout));
            for name in restore_points(&folder) {
                let text = fs::read_to_string(folder.join(&name)).unwrap_or_default();
                if text.contains("FIRST CLONE") {
                    failures.push(format!(
                        "{host} ({second:?}): {name} is the first clone's file"
                    ));
                }
            }
            fs::write(&path, &installed).unwrap();
            let uninstall = sb.change("uninstall", host, scope, &[]);
            assert_eq!(uninstall.code, 0, "{host}: {}", uninstall.stderr);
            let after = fs::read_to_string(&path).ok();
            if after.as_deref() != second {
                failures.push(format!("{host} ({second:?}): uninstall left {after:?}"));
            }
            let left = restore_points(&folder);
            if !left.is_empty() {
                failures.push(format!("{host} ({second:?}): uninstall kept {left:?}"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
