//! Did the model follow the hint? (issue 46). The hosts' own transcripts, captured from the real
//! hosts (`tests/e2e/outcome-probe.mjs`, `fixtures/contracts/<host>/transcripts/`), read turn by
//! turn by each host's grammar; then the real binary over generated sessions: every host × what
//! the model did × the bad inputs a transcript can be, each asserting the analytics lines.

use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use sophia_hook::hosts::Host;

use crate::common::{Sandbox, fixtures};

/// Where a user's prompt starts in a host's transcript (test-side: the hosts' own record of a
/// typed prompt, as observed), so that a turn is the part between two prompts.
fn is_prompt(host: Host, record: &Value) -> bool {
    let s = |v: &Value, path: &[&str]| sophia_hook::hosts::str_at(v, path).map(str::to_owned);
    match host.as_str() {
        "claude" => {
            s(record, &["type"]).as_deref() == Some("user")
                && record["message"]["content"].is_string()
                && record.get("isMeta").is_none()
                && s(record, &["promptSource"]).as_deref() != Some("system")
        }
        "codex" => {
            s(record, &["type"]).as_deref() == Some("response_item")
                && s(record, &["payload", "role"]).as_deref() == Some("user")
                && record["payload"]["internal_chat_message_metadata_passthrough"]["content_item_kinds"]
                    == json!(["user.text"])
        }
        "gemini" => {
            s(record, &["type"]).as_deref() == Some("user")
                && record["content"][0]["text"].is_string()
        }
        "copilot" => {
            s(record, &["type"]).as_deref() == Some("user.message")
                && record.get("agentId").is_none()
        }
        other => panic!("no prompt rule for {other}"),
    }
}

/// The turns of a captured session: the bytes from each prompt's line to the next's.
fn turns(host: Host, bytes: &[u8]) -> Vec<(usize, usize)> {
    let mut starts = Vec::new();
    let mut at = 0;
    for line in bytes.split_inclusive(|b| *b == b'\n') {
        if let Ok(v) = serde_json::from_slice::<Value>(line.trim_ascii_end())
            && is_prompt(host, &v)
        {
            starts.push(at);
        }
        at += line.len();
    }
    let mut ends: Vec<usize> = starts.iter().skip(1).copied().collect();
    ends.push(bytes.len());
    starts.into_iter().zip(ends).collect()
}

#[test]
fn each_hosts_grammar_reads_each_turn_of_a_real_session() {
    // What the mock model did in each of the seven steps (fixtures/contracts/*/transcripts,
    // captured by tests/e2e/outcome-probe.mjs; the probe's README has the table).
    let inv = "e2e-invoice-parser";
    let bad = "e2e-no-such-skill";
    type Turn<'a> = (&'a [&'a str], &'a [&'a str]);
    let same: [Turn; 7] = [
        (&[inv], &[]),
        (&[inv], &[]),
        (&[], &[]),
        (&[], &["technical_analyst"]),
        (&[], &["scout"]),
        (&[], &[]),
        (&[bad], &[]),
    ];
    let gemini: [Turn; 7] = [
        (&[inv], &[]),
        (&[inv], &[]),
        (&[], &[]),
        (&[], &["codebase_investigator"]),
        (&[], &["technical_analyst"]),
        (&[], &[]),
        (&[bad], &[]),
    ];
    for (host, want) in [
        (Host::Claude, &same),
        (Host::Codex, &same),
        (Host::Copilot, &same),
        (Host::Gemini, &gemini),
    ] {
        let path = fixtures().join(format!(
            "contracts/{}/transcripts/outcome-session.jsonl",
            host.as_str()
        ));
        let bytes = fs::read(&path).unwrap();
        let spans = turns(host, &bytes);
        assert_eq!(spans.len(), 7, "{}: prompts found {spans:?}", host.as_str());
        let grammar = host.spec().transcript.grammar;
        for (n, ((start, end), (skills, spawned))) in spans.iter().zip(want.iter()).enumerate() {
            let (actions, complete) =
                sophia_hook::edge::transcript::actions_of_lines(&bytes[*start..*end], grammar);
            assert!(complete, "{} step {}", host.as_str(), n + 1);
            assert_eq!(
                (actions.skills.as_slice(), actions.spawned.as_slice()),
                (
                    &skills.iter().map(|s| s.to_string()).collect::<Vec<_>>()[..],
                    &spawned.iter().map(|s| s.to_string()).collect::<Vec<_>>()[..]
                ),
                "{} step {}",
                host.as_str(),
                n + 1
            );
        }
    }
}

/// How a host writes one record of each kind, in its own structure (as in the captured files).
struct Writer {
    host: Host,
}

impl Writer {
    fn skill(&self, name: &str) -> Value {
        match self.host.as_str() {
            "claude" => {
                json!({"type": "assistant", "isSidechain": false, "message": {"role": "assistant",
                "content": [{"type": "tool_use", "id": "t1", "name": "Skill", "input": {"skill": name}}]}})
            }
            "codex" => {
                json!({"type": "response_item", "payload": {"type": "function_call", "name": "exec_command",
                "arguments": json!({"cmd": format!("sed -n 1,200p /p/.agents/skills/{name}/SKILL.md")}).to_string(),
                "call_id": "c1"}})
            }
            "gemini" => {
                json!({"id": "m1", "type": "gemini", "content": "", "toolCalls": [{"id": "a",
                "name": "activate_skill", "args": {"name": name}, "status": "success"}]})
            }
            "copilot" => {
                json!({"type": "assistant.message", "data": {"content": "", "toolRequests": [{
                "toolCallId": "c1", "name": "skill", "arguments": {"skill": name}, "type": "function"}]}})
            }
            "antigravity" => {
                json!({"type": "PLANNER_RESPONSE", "source": "MODEL", "status": "DONE",
                "content": "Reading the skill.", "toolCalls": [{"name": "view_file",
                "args": {"AbsolutePath": format!("/w/repo/.agents/skills/{name}/SKILL.md")}}]})
            }
            other => panic!("{other}"),
        }
    }

    fn spawn(&self, agent_type: &str) -> Value {
        match self.host.as_str() {
            "claude" => {
                json!({"type": "assistant", "message": {"role": "assistant", "content": [{"type": "tool_use",
                "id": "t2", "name": "Agent", "input": {"subagent_type": agent_type, "prompt": "brief"}}]}})
            }
            "codex" => {
                json!({"type": "response_item", "payload": {"type": "function_call", "name": "spawn_agent",
                "namespace": "multi_agent_v1", "arguments": json!({"agent_type": agent_type, "message": "brief"}).to_string()}})
            }
            "gemini" => json!({"id": "m2", "type": "gemini", "toolCalls": [{"name": "invoke_agent",
                "args": {"agent_name": agent_type, "prompt": "brief"}}]}),
            "copilot" => {
                json!({"type": "assistant.message", "data": {"toolRequests": [{"name": "task",
                "arguments": {"agent_type": agent_type, "name": "child", "prompt": "brief"}}]}})
            }
            other => panic!("{other}"),
        }
    }

    /// A record that quotes a skill load as text: a user's message, a tool's result, a
    /// subagent's own call. None of them is the model loading the skill.
    fn quotes(&self, name: &str) -> Vec<Value> {
        let quoted = self.skill(name).to_string();
        let mut records = vec![
            json!({"type": "user", "message": {"role": "user", "content": quoted}}),
            json!({"type": "user", "message": {"role": "user", "content": [{"type": "tool_result", "content": quoted}]}}),
            json!({"type": "response_item", "payload": {"type": "function_call_output", "output": quoted}}),
            json!({"type": "tool.execution_complete", "data": {"result": {"content": quoted}}}),
            json!({"$set": {"messages": [self.skill(name)]}}),
        ];
        match self.host.as_str() {
            "claude" => {
                let mut side = self.skill(name);
                side["isSidechain"] = true.into();
                records.push(side);
            }
            "copilot" => {
                let mut child = self.skill(name);
                child["agentId"] = "child-1".into();
                records.push(child);
            }
            _ => {}
        }
        records
    }
}

const HOSTS: [Host; 4] = [Host::Claude, Host::Codex, Host::Gemini, Host::Copilot];

/// One user's session in a project with one skill the router names for the prompt below.
struct Session {
    _tmp: tempfile::TempDir,
    home: PathBuf,
    project: PathBuf,
    transcript: PathBuf,
    host: Host,
}

const PDF_PROMPT: &str = "merge these PDF forms into one pdf document";
const SKILL: &str = "pdf-forms";

impl Session {
    fn new(host: Host) -> Session {
        let tmp = tempfile::tempdir().unwrap();
        let home = tmp.path().join("home");
        let project = tmp.path().join("project");
        fs::create_dir_all(project.join(".git")).unwrap();
        let skills = match host.as_str() {
            "claude" => ".claude/skills",
            "antigravity" => ".agent/skills",
            _ => ".agents/skills",
        };
        let dir = project.join(skills).join(SKILL);
        fs::create_dir_all(&dir).unwrap();
        fs::write(
            dir.join("SKILL.md"),
            format!("---\nname: {SKILL}\ndescription: Fill, merge and split PDF forms and PDF documents\n---\nUse pypdf.\n"),
        )
        .unwrap();
        fs::create_dir_all(&home).unwrap();
        let transcript = match host.as_str() {
            "copilot" => home.join(".copilot/session-state/sess-1/events.jsonl"),
            _ => home.join("transcripts/session.jsonl"),
        };
        fs::create_dir_all(transcript.parent().unwrap()).unwrap();
        // What a host writes first (a header, a session record).
        fs::write(&transcript, "{\"type\":\"session_meta\"}\n").unwrap();
        Session {
            _tmp: tmp,
            home,
            project,
            transcript,
            host,
        }
    }

    fn append(&self, records: &[Value]) {
        let mut f = fs::OpenOptions::new()
            .append(true)
            .open(&self.transcript)
            .unwrap();
        for r in records {
            writeln!(f, "{r}").unwrap();
        }
    }

    /// The payload of a prompt of this session, as the host sends it.
    fn payload(&self, prompt: &str) -> Vec<u8> {
        let path = self.transcript.to_str().unwrap();
        let cwd = self.project.to_str().unwrap();
        let v = match self.host.as_str() {
            "antigravity" => json!({"conversationId": "sess-1", "workspacePaths": [cwd],
                "transcriptPath": path, "lastUserInput": prompt, "invocationNum": 0,
                "initialNumSteps": fs::read_to_string(&self.transcript).unwrap().lines().count()}),
            "copilot" => {
                json!({"sessionId": "sess-1", "timestamp": 1, "cwd": cwd, "prompt": prompt})
            }
            "gemini" => json!({"session_id": "sess-1", "transcript_path": path, "cwd": cwd,
                "hook_event_name": "BeforeAgent", "timestamp": "2026-12-07T10:00:00Z", "prompt": prompt}),
            _ => json!({"session_id": "sess-1", "transcript_path": path, "cwd": cwd,
                "hook_event_name": "UserPromptSubmit", "prompt": prompt}),
        };
        v.to_string().into_bytes()
    }

    /// Whether the last run named the skill (its run line in the log).
    fn hinted(&self) -> bool {
        let log = fs::read_to_string(self.home.join("analytics.jsonl")).unwrap();
        let last: Value = serde_json::from_str(log.lines().last().unwrap()).unwrap();
        last["skills"] == json!([hashed("project", SKILL)])
    }

    /// Runs the prompt; returns the hint-outcome lines it appended, as `hint|named|outcome|reason`.
    fn prompt(&self, prompt: &str) -> Vec<String> {
        let log = self.home.join("analytics.jsonl");
        let before = fs::read_to_string(&log).unwrap_or_default().len();
        let wire = self
            .host
            .event_name(sophia_hook::hosts::Event::UserPromptSubmit);
        let run = Sandbox::new(&self.home)
            .cwd(&self.project)
            .env("SOPHIA_ANALYTICS_FILE", log.to_str().unwrap())
            .run(
                &["--host", self.host.as_str(), "--event", wire],
                &self.payload(prompt),
            );
        assert_eq!(run.code, 0, "{}: {}", self.host.as_str(), run.stderr);
        assert!(
            run.stdout.is_empty() || serde_json::from_str::<Value>(&run.stdout).is_ok(),
            "{}",
            run.stdout
        );
        let text = fs::read_to_string(&log).unwrap();
        text[before..]
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap())
            .filter(|v| v["event"] == "hint-outcome")
            .map(|v| {
                let f = |k: &str| v[k].as_str().unwrap_or("-").to_owned();
                let line = format!("{}|{}|{}", f("hint"), f("named"), f("outcome"));
                match v["reason"].as_str() {
                    Some(r) => format!("{line}|{r}"),
                    None => line,
                }
            })
            .collect()
    }
}

fn hashed(prefix: &str, name: &str) -> String {
    sophia_hook::stages::analytics::hashed(prefix, name)
}

#[test]
fn every_host_records_what_the_model_did_after_the_hint() {
    // The skill is a project skill: named hashed, never as the repository wrote it.
    for host in HOSTS {
        let w = Writer { host };
        type Case = (&'static str, fn(&Writer) -> Vec<Value>, Vec<String>);
        let cases: Vec<Case> = vec![
            (
                "loads the named skill",
                |w| vec![w.skill(SKILL)],
                vec![format!("skill|{}|followed", hashed("project", SKILL))],
            ),
            (
                "loads another skill",
                |w| vec![w.skill("docx")],
                vec![
                    format!(
                        "skill|{}|other:{}",
                        hashed("project", SKILL),
                        hashed("unlisted", "docx")
                    ),
                    format!("skill|-|unnamed:{}", hashed("unlisted", "docx")),
                ],
            ),
            (
                "loads nothing",
                |_| vec![],
                vec![format!("skill|{}|ignored", hashed("project", SKILL))],
            ),
            (
                "only quotes a load",
                |w| w.quotes(SKILL),
                vec![format!("skill|{}|ignored", hashed("project", SKILL))],
            ),
            (
                "loads it twice among other records",
                |w| {
                    let mut v = w.quotes("x");
                    v.insert(0, w.skill(SKILL));
                    v.push(w.skill(SKILL));
                    v
                },
                vec![format!("skill|{}|followed", hashed("project", SKILL))],
            ),
        ];
        for (what, records, want) in cases {
            let s = Session::new(host);
            assert!(
                s.prompt(PDF_PROMPT).is_empty(),
                "first prompt: nothing to judge"
            );
            assert!(s.hinted(), "{}: the skill was named", host.as_str());
            s.append(&records(&w));
            assert_eq!(s.prompt("thanks"), want, "{}: {what}", host.as_str());
        }
    }
}

#[test]
fn every_host_records_whether_the_delegation_was_spawned() {
    for host in HOSTS {
        let w = Writer { host };
        let role = "technical_analyst";
        let cases: Vec<(&str, Vec<Value>, Vec<String>)> = vec![
            (
                "spawns the role",
                vec![w.spawn(role)],
                vec![format!("delegation|{role}|spawned:{role}")],
            ),
            (
                "spawns another, not ours",
                vec![w.spawn("my-own-reviewer")],
                vec![format!(
                    "delegation|{role}|spawned:{}",
                    hashed("unlisted", "my-own-reviewer")
                )],
            ),
            (
                "spawns none",
                vec![],
                vec![format!("delegation|{role}|not-spawned")],
            ),
        ];
        for (what, records, want) in cases {
            let s = Session::new(host);
            s.prompt("!agents analizza il ticket 123 e riassumi i log");
            s.append(&records);
            assert_eq!(s.prompt("ok"), want, "{}: {what}", host.as_str());
        }
    }
}

/// The bad inputs a transcript can be, made after the hint was given: what the next prompt
/// records (always exit 0 and the hook's answer, checked by `Session::prompt`).
#[test]
fn a_bad_transcript_is_unknown_with_its_reason_never_a_guess() {
    for host in HOSTS {
        let w = Writer { host };
        let named = hashed("project", SKILL);
        type Bad = (&'static str, Box<dyn Fn(&Session, &Writer)>, Vec<String>);
        let unknown = |r: &str| vec![format!("-|-|unknown|{r}")];
        let cases: Vec<Bad> = vec![
            (
                "removed",
                Box::new(|s, _| fs::remove_file(&s.transcript).unwrap()),
                unknown("transcript-missing"),
            ),
            (
                "truncated (rotated)",
                Box::new(|s, w| {
                    s.append(&[w.skill("x")]);
                    fs::write(&s.transcript, "").unwrap();
                }),
                unknown("transcript-rewound"),
            ),
            (
                "a folder",
                Box::new(|s, _| {
                    fs::remove_file(&s.transcript).unwrap();
                    fs::create_dir(&s.transcript).unwrap();
                }),
                unknown("transcript-unreadable"),
            ),
            (
                "torn last line and bytes that are not UTF-8",
                Box::new(|s, w| {
                    let mut f = fs::OpenOptions::new()
                        .append(true)
                        .open(&s.transcript)
                        .unwrap();
                    f.write_all(b"\xff\xfe garbage \x00\n").unwrap();
                    writeln!(f, "{}", w.skill(SKILL)).unwrap();
                    let torn = w.skill("x").to_string();
                    f.write_all(&torn.as_bytes()[..torn.len() / 2]).unwrap();
                }),
                vec![format!("skill|{named}|followed")],
            ),
            (
                "a turn longer than the bound, the load at its start",
                Box::new(|s, w| {
                    let mut lines = vec![w.skill(SKILL)];
                    let filler = json!({"type": "user", "text": "x".repeat(64 * 1024)});
                    lines.extend(std::iter::repeat_n(filler, 70));
                    s.append(&lines);
                }),
                unknown("transcript-over-bound"),
            ),
            (
                "more tool calls than are parsed, the load after them",
                Box::new(|s, w| {
                    let mut lines = vec![w.skill("x"); 1200];
                    lines.push(w.skill(SKILL));
                    s.append(&lines);
                }),
                vec![
                    format!("skill|-|unnamed:{}", hashed("unlisted", "x")),
                    "-|-|unknown|transcript-over-bound".to_owned(),
                ],
            ),
            (
                "a turn longer than the bound, the load at its end",
                Box::new(|s, w| {
                    let filler = json!({"type": "user", "text": "x".repeat(64 * 1024)});
                    let mut lines = vec![filler; 70];
                    lines.push(w.skill(SKILL));
                    s.append(&lines);
                }),
                vec![format!("skill|{named}|followed")],
            ),
        ];
        for (what, make, want) in cases {
            let s = Session::new(host);
            s.prompt(PDF_PROMPT);
            make(&s, &w);
            assert_eq!(s.prompt("thanks"), want, "{}: {what}", host.as_str());
        }
    }
}

#[cfg(unix)]
#[test]
fn a_transcript_that_is_a_link_fifo_or_device_is_never_read() {
    for host in HOSTS {
        for (what, make) in [
            (
                "a symlink",
                Box::new(|t: &Path| std::os::unix::fs::symlink("/etc/hostname", t).unwrap())
                    as Box<dyn Fn(&Path)>,
            ),
            (
                "a link to /dev/zero",
                Box::new(|t: &Path| std::os::unix::fs::symlink("/dev/zero", t).unwrap()),
            ),
            (
                "a FIFO",
                Box::new(|t: &Path| {
                    let c = std::ffi::CString::new(t.to_str().unwrap()).unwrap();
                    assert_eq!(unsafe { libc_mkfifo(c.as_ptr(), 0o600) }, 0);
                }),
            ),
        ] {
            let s = Session::new(host);
            s.prompt(PDF_PROMPT);
            fs::remove_file(&s.transcript).unwrap();
            make(&s.transcript);
            let got = s.prompt("thanks");
            assert_eq!(got.len(), 1, "{}: {what}: {got:?}", host.as_str());
            assert!(
                got[0].starts_with("-|-|unknown|transcript-"),
                "{}: {what}: {got:?}",
                host.as_str()
            );
        }
    }
}

#[cfg(unix)]
unsafe extern "C" {
    #[link_name = "mkfifo"]
    fn libc_mkfifo(path: *const std::ffi::c_char, mode: u32) -> i32;
}

/// A 1 GiB transcript (sparse), the load in its last bytes: read from its end only.
#[cfg(unix)]
#[test]
fn a_one_gib_transcript_is_read_from_its_end() {
    let host = Host::Claude;
    let w = Writer { host };
    let s = Session::new(host);
    s.prompt(PDF_PROMPT);
    let f = fs::OpenOptions::new()
        .append(true)
        .open(&s.transcript)
        .unwrap();
    f.set_len(1 << 30).unwrap();
    drop(f);
    s.append(&[json!("the end of a line 1 GiB long"), w.skill(SKILL)]);
    assert_eq!(
        s.prompt("thanks"),
        vec![format!("skill|{}|followed", hashed("project", SKILL))]
    );
}

#[test]
fn hosts_without_a_transcript_or_a_subagents_prompt_record_nothing_of_their_own() {
    // A subagent's prompt (Codex's payload with agent_id) neither judges nor records.
    let s = Session::new(Host::Codex);
    s.prompt(PDF_PROMPT);
    s.append(&[Writer { host: Host::Codex }.skill(SKILL)]);
    let child = json!({"session_id": "sess-1", "agent_id": "a1", "agent_type": "scout",
        "transcript_path": s.transcript.to_str().unwrap(), "cwd": s.project.to_str().unwrap(),
        "hook_event_name": "UserPromptSubmit", "prompt": "Brief: read notes.txt"});
    let log = s.home.join("analytics.jsonl");
    let before = fs::read_to_string(&log).unwrap().len();
    Sandbox::new(&s.home)
        .cwd(&s.project)
        .env("SOPHIA_ANALYTICS_FILE", log.to_str().unwrap())
        .run(
            &["--host", "codex", "--event", "UserPromptSubmit"],
            child.to_string().as_bytes(),
        );
    assert!(!fs::read_to_string(&log).unwrap()[before..].contains("hint-outcome"));
    // The parent's next prompt still judges its own hint.
    assert_eq!(
        s.prompt("thanks"),
        vec![format!("skill|{}|followed", hashed("project", SKILL))]
    );
}

#[test]
fn explain_outcome_shows_what_the_hook_would_record_and_writes_nothing() {
    let s = Session::new(Host::Claude);
    s.prompt(PDF_PROMPT);
    s.append(&[Writer { host: Host::Claude }.skill("docx")]);
    let explain = Sandbox::new(&s.home).cwd(&s.project).run(
        &["explain", "--host", "claude", "--outcome"],
        &s.payload("thanks"),
    );
    assert_eq!(explain.code, 0, "{}", explain.stderr);
    let v: Value = serde_json::from_str(&explain.stdout).unwrap();
    let project = hashed("project", SKILL);
    let docx = hashed("unlisted", "docx");
    assert_eq!(
        v["outcome"]["lines"],
        json!([
            {"hint": "skill", "named": project, "outcome": format!("other:{docx}")},
            {"hint": "skill", "outcome": format!("unnamed:{docx}")},
        ])
    );
    assert_eq!(v["outcome"]["record"]["record"]["skills"], json!([]));
    // Nothing was written: the hook's own next prompt judges the same hint the same way.
    assert_eq!(
        s.prompt("thanks"),
        vec![
            format!("skill|{project}|other:{docx}"),
            format!("skill|-|unnamed:{docx}")
        ]
    );
}

#[test]
fn claudes_first_prompt_comes_before_its_transcript_exists() {
    // Claude Code writes the file after the first prompt's hook: the hint is kept at position 0.
    let s = Session::new(Host::Claude);
    fs::remove_file(&s.transcript).unwrap();
    s.prompt(PDF_PROMPT);
    fs::write(&s.transcript, "").unwrap();
    s.append(&[Writer { host: Host::Claude }.skill(SKILL)]);
    assert_eq!(
        s.prompt("thanks"),
        vec![format!("skill|{}|followed", hashed("project", SKILL))]
    );
}

#[test]
fn antigravity_from_its_contract_fixtures_skills_read_spawns_unknown() {
    // The contract's transcript (three turns): a view_file of a source file is no skill load.
    let bytes =
        fs::read(fixtures().join("contracts/antigravity/transcripts/three-turns.jsonl")).unwrap();
    let (actions, complete) = sophia_hook::edge::transcript::actions_of_lines(
        &bytes,
        Host::Antigravity.spec().transcript.grammar,
    );
    assert!(complete && actions.is_empty(), "{actions:?}");
    // A session in that shape: the skill's SKILL.md viewed is the skill loaded; how Antigravity
    // spawns was never seen, so a delegation asked is unknown, never "not spawned".
    let w = Writer {
        host: Host::Antigravity,
    };
    let s = Session::new(Host::Antigravity);
    s.prompt(PDF_PROMPT);
    assert!(s.hinted(), "the skill was named");
    s.append(&[w.skill(SKILL)]);
    assert_eq!(
        s.prompt("!agents analizza i log del ticket 123"),
        vec![format!("skill|{}|followed", hashed("project", SKILL))]
    );
    s.append(&[w.skill("docx")]);
    assert_eq!(
        s.prompt("thanks"),
        vec![
            format!("skill|-|unnamed:{}", hashed("unlisted", "docx")),
            "-|-|unknown|host-no-spawn-record".to_owned()
        ]
    );
}
