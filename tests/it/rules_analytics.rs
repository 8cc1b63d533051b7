//! The analytics line of a hook run (docs/configuration.md "Analytics") field by field, over
//! every host × prompt event and SessionStart × a set of prompts (hotwords, skills, one and two
//! agents, locks, none) × a planned delegation carried forward or not (applied, every planned
//! agent gone).
//!
//! The rule: each field says what the decision did — the host's event name and host, `injected`
//! when context was printed (else `noop`), the context and subagent modes (absent without
//! routing), the hotwords and reasons in order, every recommended agent in order, the reason
//! codes of every recommendation and the fallback (sorted, once each), `carryForward` only when
//! a planned delegation was applied, every selected skill, planning, the duration given — and
//! no other field, so no prompt text. `stats` reads the same line back.
//!
//! Planted bugs this catches (each seen failing): `carryForward` true for any carried status,
//! only the first recommended agent logged, the reason codes of the first recommendation only,
//! `outcome` from the output's presence instead of its context.
// Tests and benches set up and read their files directly; the door (clippy.toml) is for the crate.
#![allow(clippy::disallowed_methods)]

use crate::common;

use chrono::{DateTime, Utc};
use serde_json::{Value, json};

use sophia_hook::hosts::{Event, Host};
use sophia_hook::stages::agents::CarryForwardStatus;
use sophia_hook::stages::agents::catalog::Availability;
use sophia_hook::stages::agents::default_catalog;
use sophia_hook::stages::analytics::AnalyticsEvent;
use sophia_hook::stages::decision::{Decision, HookRequest, Project, decide};
use sophia_hook::stages::payload::Payload;
use sophia_hook::stages::planning::planned_from;
use sophia_hook::stages::skills::router::SkillRouter;

const PROMPTS: [&str; 9] = [
    "!quick spiegami la query SQL",
    "esegui una query sul database per verificare i record della tabella clienti",
    "ciao, come va?",
    "!agents analizza il ticket Mantis 123 e ricostruisci la causa",
    "!quick !agents find and fix the widget, then add a regression test",
    "!agents usa il code_reviewer per rivedere la diff del fix",
    "procedi",
    "ok, go ahead",
    "diagnose why the nightly build fails and fix it",
];

fn project() -> Project {
    Project {
        skills: Some(SkillRouter::new(
            sophia_hook::stages::skills::default_catalog(),
        )),
        ..Project::default()
    }
}

fn decision(host: Host, event: Event, prompt: &str, project: &Project) -> Decision {
    let mut map = serde_json::Map::new();
    map.insert("hook_event_name".into(), json!(host.event_name(event)));
    if event != Event::SessionStart {
        map.insert("prompt".into(), json!(prompt));
    }
    let payload = Payload::from_map(&map);
    let request = HookRequest {
        host,
        event,
        wire_event: host.event_name(event),
        payload: &payload,
        planning_flag: false,
        now: chrono::DateTime::UNIX_EPOCH,
    };
    decide(&request, project)
}

/// The projects: nothing planned; a two-agent plan still available; the same plan with every
/// planned agent unavailable since.
fn projects() -> Vec<(&'static str, Project)> {
    let base = project();
    let plan_mode = {
        let mut map = serde_json::Map::new();
        map.insert("hook_event_name".into(), json!("UserPromptSubmit"));
        map.insert("permission_mode".into(), json!("plan"));
        map.insert(
            "prompt".into(),
            json!("!agents diagnose and fix the widget"),
        );
        Payload::from_map(&map)
    };
    let request = HookRequest {
        host: Host::Claude,
        event: Event::UserPromptSubmit,
        wire_event: "UserPromptSubmit",
        payload: &plan_mode,
        planning_flag: false,
        now: chrono::DateTime::UNIX_EPOCH,
    };
    let planned =
        planned_from(&decide(&request, &base).agents, true, DateTime::UNIX_EPOCH).expect("a plan");
    assert!(planned.agents.len() >= 2, "{planned:?}");
    let mut applied = project();
    applied.planned = Some(planned.clone());
    let mut gone = project();
    let mut catalog = default_catalog();
    for a in &mut catalog.agents {
        if planned.agents.contains(&a.id) {
            a.availability = Availability::Unavailable;
        }
    }
    gone.agents = Some(catalog);
    gone.planned = Some(planned);
    vec![
        ("none planned", base),
        ("plan applies", applied),
        ("plan gone", gone),
    ]
}

#[test]
fn every_field_of_the_analytics_line_says_what_the_decision_did() {
    let now: DateTime<Utc> = "2026-11-29T10:00:00Z".parse().unwrap();
    let mut seen = (0, 0, 0, 0);
    for (what, project) in projects() {
        for host in [Host::Codex, Host::Claude, Host::Gemini, Host::Antigravity] {
            for event in [Event::SessionStart, Event::UserPromptSubmit] {
                for prompt in PROMPTS {
                    let d = decision(host, event, prompt, &project);
                    let line =
                        AnalyticsEvent::from_outcome(&d, d.output.as_ref(), now, 4321).to_line();
                    let v: Value = serde_json::from_str(&line).unwrap();
                    let why = format!("{what} {host:?} {event:?} {prompt:?}: {line}");
                    assert_eq!(v["ts"], "2026-11-29T10:00:00.000Z", "{why}");
                    assert_eq!(v["event"], d.event, "{why}");
                    assert_eq!(v["host"], host.as_str(), "{why}");
                    let injected = d.output.as_ref().is_some_and(|o| o.has_context());
                    assert_eq!(
                        v["outcome"],
                        if injected { "injected" } else { "noop" },
                        "{why}"
                    );
                    match &d.routing {
                        Some(r) => {
                            assert_eq!(v["contextMode"], r.context_mode.as_str(), "{why}");
                            assert_eq!(v["subagentMode"], r.subagent_mode.as_str(), "{why}");
                            let hot: Vec<&str> =
                                r.detected_hotwords.iter().map(|h| h.as_str()).collect();
                            assert_eq!(v["detectedHotwords"], json!(hot), "{why}");
                            assert_eq!(v["reasons"], json!(r.reasons), "{why}");
                        }
                        None => {
                            assert!(v.get("contextMode").is_none(), "{why}");
                            assert!(v.get("subagentMode").is_none(), "{why}");
                            assert_eq!(v["detectedHotwords"], json!([]), "{why}");
                        }
                    }
                    let agents: Vec<&str> = d
                        .agents
                        .recommended_agents
                        .iter()
                        .map(|a| a.agent_id.as_str())
                        .collect();
                    assert_eq!(v["recommendedAgents"], json!(agents), "{why}");
                    let mut codes: Vec<String> = Vec::new();
                    for a in &d.agents.recommended_agents {
                        for c in &a.reason_codes {
                            if !codes.contains(c) {
                                codes.push(c.clone());
                            }
                        }
                    }
                    if let Some(f) = &d.agents.fallback_reason
                        && !codes.contains(f)
                    {
                        codes.push(f.clone());
                    }
                    codes.sort();
                    assert_eq!(v["agentReasonCodes"], json!(codes), "{why}");
                    let status = d.agents.carry_forward.as_ref().map(|c| c.status);
                    assert_eq!(
                        v["carryForward"],
                        status == Some(CarryForwardStatus::Applied),
                        "{why}"
                    );
                    let skills: Vec<&str> = d.skills.selected_ids().collect();
                    assert_eq!(v["skills"], json!(skills), "{why}");
                    assert_eq!(v["planning"], d.planning, "{why}");
                    assert_eq!(v["durationUs"], 4321, "{why}");
                    // Exactly the documented fields, and so no room for prompt text.
                    let keys: Vec<&str> =
                        v.as_object().unwrap().keys().map(String::as_str).collect();
                    let optional = ["failure", "contextMode", "subagentMode", "degraded"];
                    let wanted: Vec<&str> = [
                        "ts",
                        "event",
                        "host",
                        "outcome",
                        "failure",
                        "contextMode",
                        "subagentMode",
                        "detectedHotwords",
                        "reasons",
                        "subagentSource",
                        "recommendedAgents",
                        "agentReasonCodes",
                        "carryForward",
                        "skills",
                        "planning",
                        "degraded",
                        "durationUs",
                    ]
                    .into_iter()
                    .filter(|k| !optional.contains(k) || v.get(*k).is_some())
                    .collect();
                    assert_eq!(keys, wanted, "{why}");
                    assert!(
                        !line.contains("widget") && !line.contains("Mantis"),
                        "{why}"
                    );
                    // stats reads it back.
                    let s = sophia_hook::stats::summarise(&line, None);
                    assert_eq!((s.runs, s.corrupt_lines), (1, 0), "{why}");
                    // What the table reached.
                    seen.0 += usize::from(agents.len() >= 2);
                    seen.1 += usize::from(status == Some(CarryForwardStatus::Applied));
                    seen.2 += usize::from(status == Some(CarryForwardStatus::AgentUnavailable));
                    seen.3 += usize::from(skills.len() >= 2 || codes.len() >= 3);
                }
            }
        }
    }
    assert!(
        seen.0 > 0 && seen.1 > 0 && seen.2 > 0 && seen.3 > 0,
        "{seen:?}"
    );
}

/// No text a repository chose reaches the analytics log (issue 29): for every host, a skill
/// whose name is made of the very words the user types is logged by its id when the user
/// installed it (user scope) and as `project:` and a hash when the repository holds it; no line
/// of the log holds the name's words; `stats --json` counts the same names; and the report
/// still counts the project skill on its own row (it joins its inventory to the hash).
/// `project:` and the first 12 hex digits of the SHA-256 of `id`, computed here (docs/security.md,
/// "I6"), not by the code under test.
fn project_hash(id: &str) -> String {
    use sha2::Digest;
    let hex: String = sha2::Sha256::digest(id.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    format!("project:{}", &hex[..12])
}

/// The analytics line, `stats` and the report name an id by the file it was read from, not by
/// what that file says of it (blind pass, cases 40 and 44). Generated over the class: every
/// host's project index with the record's source rewritten to each label a repository could
/// write (`user:` of a folder that does not exist, none as if embedded, `project:`), and a
/// project agent catalog whose agent is renamed to free text or keeps an embedded id. A free-text
/// id from a project file is logged as `project:` and its hash, and its words are in no line of
/// the log, `stats` or the report; an embedded agent id stays readable.
#[test]
fn an_id_read_from_a_project_file_is_logged_by_its_hash_whatever_the_file_labels_it() {
    const NAME: &str = "wire-transfer-approval";
    const PROMPT: &str = "draft the wire transfer approval memo";
    let words = ["wire", "transfer", "approval"];
    let mut cells = 0;
    for (host, project_folder, user_folder) in common::SKILL_FOLDERS {
        for label in [
            format!("user:~/{user_folder}/{NAME}/SKILL.md"),
            String::new(),
            format!("project:{project_folder}/{NAME}/SKILL.md"),
        ] {
            let cell = format!("{host} label {label:?}");
            let (dir, home, project) = common::home_and_project();
            let folder = project.join(project_folder).join(NAME);
            std::fs::create_dir_all(&folder).unwrap();
            std::fs::write(
                folder.join("SKILL.md"),
                format!(
                    "---\nname: {NAME}\ndescription: Draft wire transfer approval memos.\n---\n"
                ),
            )
            .unwrap();
            let root = project.to_str().unwrap();
            let run = common::run_binary_in(
                &["skills", "index", "--host", host, "--root", root],
                b"",
                &home,
                &project,
                &[],
            );
            assert_eq!(run.code, 0, "{cell}: {}", run.stderr);
            let index = std::fs::read_dir(project.join(".sophia"))
                .unwrap()
                .map(|e| e.unwrap().path())
                .find(|p| p.to_string_lossy().contains("skills-index"))
                .expect("skills index writes an index");
            let text = std::fs::read_to_string(&index).unwrap();
            let written = format!("project:{project_folder}/{NAME}/SKILL.md");
            assert!(text.contains(&written), "{cell}: {text}");
            std::fs::write(&index, text.replace(&written, &label)).unwrap();
            let log = dir.path().join("analytics.jsonl");
            let env = [("SOPHIA_ANALYTICS_FILE", log.to_str().unwrap())];
            let payload = json!({"hook_event_name": "UserPromptSubmit", "session_id": "s",
                "cwd": project, "prompt": PROMPT});
            let run = common::run_binary_in(
                &["--host", host],
                payload.to_string().as_bytes(),
                &home,
                &project,
                &env,
            );
            assert_eq!(run.code, 0, "{cell}: {}", run.stderr);
            assert!(
                run.stdout.contains(&format!("skill={NAME}")),
                "{cell}: the hook did not name the skill from the index: {}",
                run.stdout
            );
            let logged = std::fs::read_to_string(&log).unwrap();
            let line: Value = serde_json::from_str(logged.lines().last().unwrap()).unwrap();
            assert_eq!(
                line["skills"],
                json!([project_hash(NAME)]),
                "{cell}: {logged}"
            );
            let stats = common::run_binary_in(
                &["stats", "--file", log.to_str().unwrap()],
                b"",
                &home,
                &project,
                &env,
            );
            let report = common::run_binary_in(
                &["report", "--host", host, "--file", log.to_str().unwrap()],
                b"",
                &home,
                &project,
                &env,
            );
            assert_eq!(report.code, 0, "{cell}: {}", report.stderr);
            for word in words {
                assert!(
                    !logged.contains(word),
                    "{cell}: {word:?} in the log: {logged}"
                );
                assert!(!stats.stdout.contains(word), "{cell}: {word:?} in stats");
            }
            cells += 1;
        }
    }
    // Agents: the embedded catalog's source, with `scout` renamed to free text or kept.
    for (renamed, logged_as) in [
        (
            Some("wire-transfer-approver"),
            project_hash("wire-transfer-approver"),
        ),
        (None, "scout".to_owned()),
    ] {
        for host in ["claude", "codex"] {
            let cell = format!("{host} agent {renamed:?}");
            let (dir, home, project) = common::home_and_project();
            let mut source = sophia_hook::stages::agents::DEFAULT_SOURCE.to_owned();
            if let Some(id) = renamed {
                assert!(source.contains("  - id: scout\n"));
                source = source.replace("  - id: scout\n", &format!("  - id: {id}\n"));
            }
            std::fs::create_dir_all(project.join("docs/agents")).unwrap();
            std::fs::write(project.join("docs/agents/canonical-subagents.yaml"), source).unwrap();
            let root = project.to_str().unwrap();
            let run = common::run_binary_in(
                &["catalog", "build", "--root", root],
                b"",
                &home,
                &project,
                &[],
            );
            assert_eq!(run.code, 0, "{cell}: {}", run.stderr);
            let log = dir.path().join("analytics.jsonl");
            let env = [("SOPHIA_ANALYTICS_FILE", log.to_str().unwrap())];
            let payload = json!({"hook_event_name": "UserPromptSubmit", "session_id": "s",
                "cwd": project, "prompt": "!agents find where the config is loaded"});
            let run = common::run_binary_in(
                &["--host", host],
                payload.to_string().as_bytes(),
                &home,
                &project,
                &env,
            );
            assert_eq!(run.code, 0, "{cell}: {}", run.stderr);
            let agent = renamed.unwrap_or("scout");
            assert!(
                run.stdout.contains(&format!("agent={agent}")),
                "{cell}: the hook did not recommend the catalog's scout: {}",
                run.stdout
            );
            let logged = std::fs::read_to_string(&log).unwrap();
            let line: Value = serde_json::from_str(logged.lines().last().unwrap()).unwrap();
            assert_eq!(
                line["recommendedAgents"][0],
                json!(logged_as),
                "{cell}: {logged}"
            );
            let stats = common::run_binary_in(
                &["stats", "--file", log.to_str().unwrap()],
                b"",
                &home,
                &project,
                &env,
            );
            assert!(
                stats.stdout.contains(&logged_as),
                "{cell}: {}",
                stats.stdout
            );
            if renamed.is_some() {
                for word in ["wire", "transfer", "approver"] {
                    assert!(
                        !logged.contains(word),
                        "{cell}: {word:?} in the log: {logged}"
                    );
                    assert!(!stats.stdout.contains(word), "{cell}: {word:?} in stats");
                }
            }
            cells += 1;
        }
    }
    assert_eq!(cells, 19);
}

#[test]
fn a_project_skill_is_logged_by_a_hash_and_a_users_skill_by_its_id() {
    const NAME: &str = "supplier-invoices";
    const SKILL: &str = "---\nname: supplier-invoices\ndescription: Extract totals and line items from supplier invoices.\n---\n# Invoices\n";
    const PROMPT: &str = "extract totals and line items from these supplier invoices";
    let hashed = project_hash(NAME);
    let mut cases = 0;
    for (host, project_folder, user_folder) in common::SKILL_FOLDERS {
        for user_scope in [false, true] {
            let cell = format!("{host} {}", if user_scope { "user" } else { "project" });
            let (dir, home, project) = common::home_and_project();
            // A second project skill, so the inventory is never the embedded catalog.
            let other = project.join(project_folder).join("zz-weather-radar");
            std::fs::create_dir_all(&other).unwrap();
            std::fs::write(
                other.join("SKILL.md"),
                "---\nname: zz-weather-radar\ndescription: Render weather radar maps and storm forecasts.\n---\n",
            )
            .unwrap();
            let folder = if user_scope {
                home.join(user_folder)
            } else {
                project.join(project_folder)
            };
            std::fs::create_dir_all(folder.join(NAME)).unwrap();
            std::fs::write(folder.join(NAME).join("SKILL.md"), SKILL).unwrap();
            let log = dir.path().join("analytics.jsonl");
            let state = dir.path().join("state");
            let env = [
                ("SOPHIA_ANALYTICS_FILE", log.to_str().unwrap()),
                ("XDG_STATE_HOME", state.to_str().unwrap()),
            ];
            let payload = json!({"hook_event_name": "UserPromptSubmit", "session_id": "s",
                "cwd": project, "prompt": PROMPT});
            let run = common::run_binary_in(
                &["--host", host],
                payload.to_string().as_bytes(),
                &home,
                &project,
                &env,
            );
            assert_eq!(run.code, 0, "{cell}: {}", run.stderr);
            assert!(
                run.stdout.contains(&format!("skill={NAME}")),
                "{cell}: the hook did not name the skill: {}",
                run.stdout
            );
            let text = std::fs::read_to_string(&log).unwrap();
            let line: Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
            let want = if user_scope {
                NAME.to_owned()
            } else {
                hashed.clone()
            };
            assert_eq!(line["skills"], json!([want]), "{cell}: {text}");
            if !user_scope {
                for word in ["supplier", "invoice"] {
                    assert!(!text.contains(word), "{cell}: {word:?} in the log: {text}");
                }
            }
            let stats = common::run_binary_in(
                &["stats", "--json", "--file", log.to_str().unwrap()],
                b"",
                &home,
                &project,
                &env,
            );
            assert_eq!(stats.code, 0, "{cell}: {}", stats.stderr);
            assert!(
                stats.stdout.contains(&want),
                "{cell}: stats: {}",
                stats.stdout
            );
            let report = common::run_binary_in(
                &["report", "--host", host, "--file", log.to_str().unwrap()],
                b"",
                &home,
                &project,
                &env,
            );
            assert_eq!(report.code, 0, "{cell}: {}", report.stderr);
            let html = std::fs::read_to_string(report.stdout.trim()).unwrap();
            let row =
                format!("<tr><th scope=\"row\"><code>{NAME}</code></th><td class=\"n\">1</td>");
            assert!(
                html.contains(&row),
                "{cell}: the report does not count {NAME} once"
            );
            cases += 1;
        }
    }
    assert_eq!(cases, 10);
}
