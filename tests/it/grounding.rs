//! Grounded embedded skills (`docs/skills.md`, "Grounded embedded skills"): with no skills of
//! its own, a host is told about an embedded skill only where the Sophia MCP server it is written
//! for is configured for that host, or checked out in the project; the setting turns it always
//! on or off, a project can only turn it off, and `explain` and `doctor` say which applies.
//! These run the real binary with the machine default (`SOPHIA_EMBEDDED_SKILLS` unset).
// Tests and benches set up and read their files directly; the door (clippy.toml) is for the crate.
#![allow(clippy::disallowed_methods)]

use crate::common;

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;
use sophia_hook::hosts::Host;

struct Machine {
    _dir: tempfile::TempDir,
    home: PathBuf,
    project: PathBuf,
}

/// Where a Sophia server can be configured, written by hand from each host's documentation
/// (`docs/skills.md`), not read from the host table under test.
#[derive(Debug, Clone, Copy)]
enum Place {
    ClaudeUser,
    ClaudeLocal,
    ClaudeProject,
    CodexUser,
    CodexProject,
    GeminiUser,
    GeminiProject,
    CopilotUser,
    AntigravityUser,
}

const PLACES: [(Place, Host); 9] = [
    (Place::ClaudeUser, Host::Claude),
    (Place::ClaudeLocal, Host::Claude),
    (Place::ClaudeProject, Host::Claude),
    (Place::CodexUser, Host::Codex),
    (Place::CodexProject, Host::Codex),
    (Place::GeminiUser, Host::Gemini),
    (Place::GeminiProject, Host::Gemini),
    (Place::CopilotUser, Host::Copilot),
    (Place::AntigravityUser, Host::Antigravity),
];

const SQL: &str = r#"{"command": "node", "args": ["/opt/mcp-servers/sql-node/index.js"]}"#;

impl Machine {
    fn new() -> Machine {
        let (dir, home, project) = common::home_and_project();
        Machine {
            _dir: dir,
            home,
            project,
        }
    }

    fn write(&self, path: PathBuf, text: &str) {
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }

    /// The SQL server configured at `place` under the key `key`.
    fn configure(&self, place: Place, key: &str) {
        self.configure_padded(place, key, None);
    }

    /// [`Machine::configure`], the server's entry holding one more member, `pad`, of this value
    /// (written so it is both JSON and TOML).
    fn configure_padded(&self, place: Place, key: &str, pad: Option<&str>) {
        let entry = match pad {
            Some(pad) => format!("{}, \"pad\": {pad}}}", SQL.trim_end_matches('}')),
            None => SQL.to_owned(),
        };
        let servers = format!(r#"{{"{key}": {entry}}}"#);
        let (h, p) = (&self.home, &self.project);
        match place {
            Place::ClaudeUser => self.write(
                h.join(".claude.json"),
                &format!(r#"{{"numStartups": 3, "mcpServers": {servers}}}"#),
            ),
            Place::ClaudeLocal => self.write(
                h.join(".claude.json"),
                &format!(
                    r#"{{"projects": {{{:?}: {{"mcpServers": {servers}}}}}}}"#,
                    p.to_string_lossy().to_string()
                ),
            ),
            Place::ClaudeProject => self.write(
                p.join(".mcp.json"),
                &format!(r#"{{"mcpServers": {servers}}}"#),
            ),
            Place::CodexUser | Place::CodexProject => {
                let mut toml = format!(
                    "model = \"x\"\n\n[mcp_servers.{key}]\ncommand = \"node\"\nargs = [\"/opt/mcp-servers/sql-node/index.js\"]\n"
                );
                if let Some(pad) = pad {
                    toml.push_str(&format!("pad = {pad}\n"));
                }
                let file = match place {
                    Place::CodexUser => h.join(".codex/config.toml"),
                    _ => p.join(".codex/config.toml"),
                };
                self.write(file, &toml);
            }
            Place::GeminiUser | Place::GeminiProject => {
                let text =
                    format!("{{\n  // the user's own comment\n  \"mcpServers\": {servers}\n}}\n");
                let file = match place {
                    Place::GeminiUser => h.join(".gemini/settings.json"),
                    _ => p.join(".gemini/settings.json"),
                };
                self.write(file, &text);
            }
            Place::CopilotUser => self.write(
                h.join(".copilot/mcp-config.json"),
                &format!(r#"{{"mcpServers": {servers}}}"#),
            ),
            Place::AntigravityUser => self.write(
                h.join(".gemini/antigravity/mcp_config.json"),
                &format!(r#"{{"mcpServers": {servers}}}"#),
            ),
        }
    }

    fn payload(&self, host: Host, prompt: &str) -> Vec<u8> {
        common::prompt_payload(host, &self.project, prompt)
    }

    fn run(&self, args: &[&str], host: Host, prompt: &str, env: &[(&str, &str)]) -> common::Run {
        let mut all = vec![
            // Unset: the machine default.
            ("SOPHIA_EMBEDDED_SKILLS", ""),
            ("SOPHIA_ANALYTICS", "off"),
        ];
        all.extend_from_slice(env);
        let mut argv = args.to_vec();
        argv.extend(["--host", host.as_str()]);
        let run = common::run_binary(&argv, &self.payload(host, prompt), &self.home, &all);
        assert_eq!(run.code, 0, "{}", run.stderr);
        run
    }

    /// Hook stdout and the explain decision.
    fn ask(&self, host: Host, prompt: &str, env: &[(&str, &str)]) -> (String, Value) {
        let hook = self.run(&[], host, prompt, env);
        let explain = self.run(&["explain"], host, prompt, env);
        (hook.stdout, serde_json::from_str(&explain.stdout).unwrap())
    }
}

const SQL_PROMPT: &str = "!quick spiegami questa query SQL lenta";

/// The skill the hook output names, if any. A test that expects none also shows the same prompt
/// naming one when every embedded skill is on, so silence is never an empty or broken run.
fn named(stdout: &str) -> Option<String> {
    let at = stdout.find("skill=")?;
    Some(
        stdout[at + 6..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
            .collect(),
    )
}

#[test]
fn a_server_grounds_its_skill_only_for_the_host_whose_file_names_it() {
    for (place, owner) in PLACES {
        for host in Host::ALL {
            let m = Machine::new();
            m.configure(place, "sql-mcp-server");
            let (stdout, decision) = m.ask(host, SQL_PROMPT, &[]);
            let skills = &decision["skills"];
            assert_eq!(skills["catalog"], "embedded");
            if host == owner {
                assert_eq!(
                    named(&stdout).as_deref(),
                    Some("mcp-database-expert"),
                    "{place:?} for {host:?}: {stdout}"
                );
                assert!(
                    skills["grounding"]["servers"]["sql-mcp-server"].is_string(),
                    "{skills}"
                );
            } else {
                assert_eq!(
                    named(&stdout),
                    None,
                    "{place:?} grounded {host:?}: {stdout}"
                );
                let withheld = skills["grounding"]["withheld"].to_string();
                assert!(
                    withheld.contains("mcp-database-expert=no-server:sql-mcp-server"),
                    "{withheld}"
                );
            }
        }
    }
}

/// A settings file is parsed within a value budget (docs/security.md, "Bounded parsing"): a
/// server entry holding a few thousand more values still grounds its skill, in every file of
/// every host; the same entry holding 150,000 (the shapes that cost 100 MB or 0.3 s to parse
/// whole: empty arrays, empty tables, numbers) is not read at all, so it grounds nothing.
/// `~/.claude.json` keeps every project's state, so its own size is no fault: only what is kept
/// of it counts.
#[test]
fn a_settings_file_past_the_value_budget_grounds_nothing_and_within_it_grounds_as_ever() {
    let shapes = |n: usize| {
        [
            format!("[{}]", vec!["[]"; n].join(",")),
            format!("[{}]", vec!["{}"; n].join(",")),
            format!("[{}]", vec!["0"; n].join(",")),
        ]
    };
    for (place, host) in PLACES {
        for (n, grounds) in [(3_000, true), (150_000, false)] {
            for pad in shapes(n) {
                let m = Machine::new();
                m.configure_padded(place, "sql-mcp-server", Some(&pad));
                let (stdout, decision) = m.ask(host, SQL_PROMPT, &[]);
                let grounded =
                    decision["skills"]["grounding"]["servers"]["sql-mcp-server"].is_string();
                assert_eq!(grounded, grounds, "{place:?} {n} × {}", &pad[..4]);
                assert_eq!(
                    named(&stdout).is_some(),
                    grounds,
                    "{place:?} {n} × {}: {stdout}",
                    &pad[..4]
                );
            }
        }
    }
    let m = Machine::new();
    let state = format!(
        r#"{{"history": [{}], "mcpServers": {{"sql-mcp-server": {SQL}}}}}"#,
        vec!["[]"; 150_000].join(",")
    );
    m.write(m.home.join(".claude.json"), &state);
    let (stdout, _) = m.ask(Host::Claude, SQL_PROMPT, &[]);
    assert_eq!(
        named(&stdout).as_deref(),
        Some("mcp-database-expert"),
        "{stdout}"
    );
}

#[test]
fn nothing_configured_names_no_embedded_skill_for_any_prompt() {
    // The issue's case and one prompt per embedded skill: without a Sophia server, none of them
    // is named on any host, while `on` names each (so the prompts do reach a skill).
    let prompts = [
        "come faccio un git rebase su questo branch?",
        "!quick spiegami questa SQL",
        "apri la pagina con playwright e fai uno screenshot",
        "converti questo file excel in pdf",
        "cerca nella documentazione del progetto",
        "correggi questo componente coldfusion cfc",
        "crea una nuova skill con il suo SKILL.md",
    ];
    let m = Machine::new();
    for host in Host::ALL {
        for prompt in prompts {
            let (stdout, _) = m.ask(host, prompt, &[]);
            assert_eq!(named(&stdout), None, "{host:?} {prompt}: {stdout}");
            let (on, _) = m.ask(host, prompt, &[("SOPHIA_EMBEDDED_SKILLS", "on")]);
            assert!(
                named(&on).is_some(),
                "{host:?} {prompt} names nothing even when on: {on}"
            );
        }
    }
}

#[test]
fn a_server_is_known_by_its_key_or_by_the_folder_it_runs_from() {
    for (key, grounded) in [
        ("sql-mcp-server", true),
        ("sql-node", true),
        ("my-db", true),
        ("postgres", false),
    ] {
        let m = Machine::new();
        let servers = if key == "postgres" {
            r#"{"mcpServers": {"postgres": {"command": "npx", "args": ["@modelcontextprotocol/server-postgres"]}}}"#.to_owned()
        } else {
            format!(r#"{{"mcpServers": {{"{key}": {SQL}}}}}"#)
        };
        m.write(m.project.join(".mcp.json"), &servers);
        let (stdout, _) = m.ask(Host::Claude, SQL_PROMPT, &[]);
        assert_eq!(named(&stdout).is_some(), grounded, "{key}: {stdout}");
    }
}

#[test]
fn a_server_grounds_the_skills_written_for_it_and_no_other() {
    let m = Machine::new();
    m.write(
        m.home.join(".codex/config.toml"),
        "[mcp_servers.git-mcp-server]\ncommand = \"node\"\nargs = [\"/x/git-node/index.js\"]\n\
         [mcp_servers.sql-mcp-server]\ncommand = \"node\"\nargs = [\"/x/sql-node/index.js\"]\nenabled = false\n",
    );
    let (git, _) = m.ask(
        Host::Codex,
        "fai git blame e trova il commit che ha rotto il login",
        &[],
    );
    assert_eq!(
        named(&git).as_deref(),
        Some("mcp-git-mantis-workflow"),
        "{git}"
    );
    // The SQL server is there but switched off: its skill stays unnamed.
    let (sql, decision) = m.ask(Host::Codex, SQL_PROMPT, &[]);
    assert_eq!(named(&sql), None, "{sql}");
    let (on, _) = m.ask(Host::Codex, SQL_PROMPT, &[("SOPHIA_EMBEDDED_SKILLS", "on")]);
    assert_eq!(named(&on).as_deref(), Some("mcp-database-expert"), "{on}");
    assert_eq!(
        decision["skills"]["grounding"]["servers"],
        serde_json::json!({"git-mcp-server": "$CODEX_HOME/config.toml"})
    );
}

#[test]
fn a_checkout_of_the_mcp_servers_repository_keeps_its_hints() {
    // The repository's layout: a folder per server, each with its package.json.
    let checkout = |dirs: &[&str]| {
        let m = Machine::new();
        for dir in dirs {
            m.write(m.project.join(dir).join("package.json"), "{}");
        }
        m
    };
    let full = checkout(&[
        "cf-node",
        "docs-node",
        "git-node",
        "linter-node",
        "mantis-node",
        "office-node",
        "playwright-node",
        "sql-node",
    ]);
    for host in Host::ALL {
        let (stdout, decision) = full.ask(host, SQL_PROMPT, &[]);
        assert_eq!(
            named(&stdout).as_deref(),
            Some("mcp-database-expert"),
            "{host:?}: {stdout}"
        );
        assert_eq!(
            decision["skills"]["grounding"]["servers"]["sql-mcp-server"],
            "checkout:sql-node"
        );
    }
    // With its own `skills/` (as the repository has), those are the catalog: named as found.
    for skill in ["mcp-database-expert", "mcp-git-mantis-workflow"] {
        let text = fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join(format!("src/stages/skills/defaults/{skill}/SKILL.md")),
        )
        .unwrap();
        full.write(full.project.join(format!("skills/{skill}/SKILL.md")), &text);
    }
    let (stdout, decision) = full.ask(Host::Codex, SQL_PROMPT, &[]);
    assert_eq!(
        named(&stdout).as_deref(),
        Some("mcp-database-expert"),
        "{stdout}"
    );
    assert_ne!(decision["skills"]["catalog"], "embedded");
    // One or two folders named like a server are not the repository.
    let two = checkout(&["git-node", "sql-node"]);
    let (stdout, _) = two.ask(Host::Codex, SQL_PROMPT, &[]);
    assert_eq!(named(&stdout), None, "{stdout}");
    assert!(stdout.contains("Sophia routing control"), "{stdout}");
}

#[test]
fn the_setting_turns_it_on_or_off_and_a_project_can_only_turn_it_off() {
    let grounded = Machine::new();
    grounded.configure(Place::ClaudeUser, "sql-mcp-server");
    let bare = Machine::new();
    let config =
        |m: &Machine, text: &str| m.write(m.home.join(".config/sophia-hook/config.yaml"), text);
    let project = |m: &Machine, text: &str| m.write(m.project.join(".sophia-hook.yaml"), text);
    let skill = |m: &Machine, env: &[(&str, &str)]| {
        let (stdout, decision) = m.ask(Host::Claude, SQL_PROMPT, env);
        let g = &decision["skills"]["grounding"];
        (
            named(&stdout).is_some(),
            format!(
                "{}/{}",
                g["mode"].as_str().unwrap(),
                g["modeFrom"].as_str().unwrap()
            ),
        )
    };
    assert_eq!(skill(&grounded, &[]), (true, "auto/default".into()));
    assert_eq!(skill(&bare, &[]), (false, "auto/default".into()));
    assert_eq!(
        skill(&grounded, &[("SOPHIA_EMBEDDED_SKILLS", "off")]),
        (false, "off/environment".into())
    );
    assert_eq!(
        skill(&bare, &[("SOPHIA_EMBEDDED_SKILLS", "on")]),
        (true, "on/environment".into())
    );
    config(&bare, "embedded_skills: on\n");
    assert_eq!(skill(&bare, &[]), (true, "on/user-config".into()));
    config(&grounded, "embedded_skills: off\n");
    assert_eq!(skill(&grounded, &[]), (false, "off/user-config".into()));
    fs::remove_file(grounded.home.join(".config/sophia-hook/config.yaml")).unwrap();
    // A repository cannot turn it on: the key is ignored, with a warning.
    let fresh = Machine::new();
    project(&fresh, "embedded_skills: on\n");
    let (_, decision) = fresh.ask(Host::Claude, SQL_PROMPT, &[]);
    assert_eq!(skill(&fresh, &[]), (false, "auto/default".into()));
    assert!(
        decision["skills"]["warnings"]
            .to_string()
            .contains("config-ignored:embedded_skills"),
        "{decision}"
    );
    // It can turn it off, over the user's `on`; the environment wins over both.
    project(&grounded, "embedded_skills: off\n");
    assert_eq!(skill(&grounded, &[]), (false, "off/project-config".into()));
    config(&grounded, "embedded_skills: on\n");
    assert_eq!(skill(&grounded, &[]), (false, "off/project-config".into()));
    assert_eq!(
        skill(&grounded, &[("SOPHIA_EMBEDDED_SKILLS", "on")]),
        (true, "on/environment".into())
    );
}

#[test]
fn doctor_says_which_applies_and_why() {
    let m = Machine::new();
    let doctor = |m: &Machine, env: &[(&str, &str)]| {
        let mut all = vec![("SOPHIA_EMBEDDED_SKILLS", ""), ("SOPHIA_ANALYTICS", "off")];
        all.extend_from_slice(env);
        let run = common::run_binary_in(
            &["doctor", "--host", "claude"],
            b"",
            &m.home,
            &m.project,
            &all,
        );
        run.stdout
            .lines()
            .find(|l| l.contains("skills (claude)"))
            .unwrap_or_default()
            .to_owned()
    };
    let line = doctor(&m, &[]);
    assert!(
        line.contains("auto (the default): no Sophia MCP server is configured"),
        "{line}"
    );
    m.configure(Place::ClaudeProject, "sql-mcp-server");
    let line = doctor(&m, &[]);
    assert!(
        line.contains("sql-mcp-server in project:.mcp.json — named: mcp-database-expert"),
        "{line}"
    );
    let line = doctor(&m, &[("SOPHIA_EMBEDDED_SKILLS", "off")]);
    assert!(
        line.contains("off (SOPHIA_EMBEDDED_SKILLS): no embedded skill is named"),
        "{line}"
    );
}
