//! `sophia-hook report`: the page for a fixed week of analytics and a fixed clock (insta snapshot),
//! escaping of untrusted ids, the empty states, and the real binary (default path, no prompt
//! text, the embedded catalog's fingerprint and a chart on the page).
// Tests and benches set up and read their files directly; the door (clippy.toml) is for the crate.
#![allow(clippy::disallowed_methods)]

use crate::common;

use std::path::{Path, PathBuf};

use chrono::{DateTime, Duration, Utc};
use serde_json::json;
use sophia_hook::report::mix::MixBuilder;
use sophia_hook::report::{
    AgentsView, AnalyticsLog, Finding, HostSetup, Level, ReportInput, RoleRow, RuntimeDefinition,
    Setup, SkillInventory, Trust, render,
};

const WEEK: &str = "fixtures/analytics/week.jsonl";

fn at(text: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(text).unwrap().to_utc()
}

/// xorshift64*: a small deterministic generator, so the fixture can be rebuilt byte for byte.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    /// Uniform in [0, 1).
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn pick<'a>(&mut self, weighted: &[(&'a str, u32)]) -> &'a str {
        let total: u32 = weighted.iter().map(|w| w.1).sum();
        let mut r = self.below(u64::from(total)) as u32;
        for (item, w) in weighted {
            if r < *w {
                return item;
            }
            r -= w;
        }
        weighted[0].0
    }
}

const SKILLS: [(&str, u32); 10] = [
    ("mcp-database-expert", 30),
    ("mcp-technical-analyst", 22),
    ("mcp-docs-navigator", 14),
    ("mcp-git-mantis-workflow", 12),
    ("mcp-coldfusion-developer", 9),
    ("mcp-browser-automation", 6),
    ("mcp-office-expert", 4),
    ("mcp-master-orchestrator", 2),
    ("skill-creator", 1),
    // Renamed since: named in the log, listed by no host now.
    ("mcp-sql-tuner", 2),
];
const AGENTS: [(&str, u32); 5] = [
    ("scout", 30),
    ("technical_analyst", 25),
    ("implementer", 20),
    ("code_reviewer", 15),
    ("test_writer", 10),
];

/// What the model did with a prompt's advice, as the hook records it at the next prompt (the
/// hint-outcome lines, issue 46): per skill named followed, another loaded or none; a skill loaded
/// with none named now and then; after a delegation hint a subagent of one or two types spawned,
/// or none; some outcomes unknown, more often on Gemini CLI. Drawn from `rng`, its own generator,
/// so the run lines are what they were before these lines were added.
fn hint_outcomes(
    rng: &mut Rng,
    host: &str,
    ts: &str,
    skills: &[&str],
    recommended: &[&str],
) -> String {
    let mut lines = Vec::new();
    if skills.is_empty() && recommended.is_empty() {
        if rng.unit() < 0.10 {
            let loaded = rng.pick(&[
                ("mcp-office-expert", 3),
                ("mcp-browser-automation", 2),
                ("project:9f86d081884c", 2),
                ("skill-creator", 1),
            ]);
            lines.push(
                json!({"ts": ts, "event": "hint-outcome", "host": host, "hint": "skill",
                "outcome": format!("unnamed:{loaded}")}),
            );
        }
    } else {
        let (p_unknown, reasons): (f64, &[(&str, u32)]) = match host {
            "gemini" => (
                0.3,
                &[("transcript-missing", 2), ("transcript-unreadable", 1)],
            ),
            "codex" => (
                0.04,
                &[("transcript-over-bound", 1), ("transcript-rewound", 1)],
            ),
            _ => (
                0.03,
                &[("transcript-rewound", 1), ("transcript-missing", 1)],
            ),
        };
        if rng.unit() < p_unknown {
            let reason = rng.pick(reasons);
            lines.push(json!({"ts": ts, "event": "hint-outcome", "host": host,
                "outcome": "unknown", "reason": reason}));
        } else {
            for (i, named) in skills.iter().enumerate() {
                // The first skill of the catalog is followed most, the later ones less.
                let rank = SKILLS.iter().position(|(s, _)| s == named).unwrap_or(9) as u32;
                let followed = 78 - 5 * rank - 15 * i as u32;
                let outcome = match rng.pick(&[
                    ("followed", followed),
                    ("other", 12),
                    ("ignored", 100 - followed),
                ]) {
                    "other" => {
                        let mut loaded = rng.pick(&SKILLS);
                        while loaded == *named {
                            loaded = rng.pick(&SKILLS);
                        }
                        format!("other:{loaded}")
                    }
                    o => o.to_owned(),
                };
                lines.push(json!({"ts": ts, "event": "hint-outcome", "host": host,
                    "hint": "skill", "named": named, "outcome": outcome}));
            }
            if let Some(named) = recommended.first() {
                let r = rng.unit();
                if r < 0.62 {
                    lines.push(json!({"ts": ts, "event": "hint-outcome", "host": host,
                        "hint": "delegation", "named": named,
                        "outcome": format!("spawned:{named}")}));
                    if r < 0.12 {
                        lines.push(json!({"ts": ts, "event": "hint-outcome", "host": host,
                            "hint": "delegation", "named": named, "outcome": "spawned:general-purpose"}));
                    }
                } else if r < 0.72 {
                    lines.push(json!({"ts": ts, "event": "hint-outcome", "host": host,
                        "hint": "delegation", "named": named, "outcome": "spawned:general-purpose"}));
                } else {
                    lines.push(json!({"ts": ts, "event": "hint-outcome", "host": host,
                        "hint": "delegation", "named": named, "outcome": "not-spawned"}));
                }
            }
        }
    }
    lines.iter().map(|l| l.to_string() + "\n").collect()
}

/// A realistic week of analytics (2026-11-23 to 2026-11-29, UTC): sessions on three hosts, a
/// prompt mix with hotwords, skills and agents, a few degraded and failed-open runs, two corrupt
/// lines, and after each prompt with advice what became of it (`hint_outcomes`). Only the fields
/// the hook writes, never any prompt text.
fn generate_week() -> String {
    let mut rng = Rng(0x5eed_2026_1123);
    let mut outcomes = Rng(0x0c0e_2026_1207);
    let mut out = String::new();
    let start = at("2026-11-23T00:00:00Z");
    for day in 0..7 {
        let weekend = day >= 5;
        let sessions = if weekend {
            2 + rng.below(2)
        } else {
            6 + rng.below(4)
        };
        for _ in 0..sessions {
            let host = rng.pick(&[("codex", 55), ("claude", 30), ("gemini", 15)]);
            let prompt_event = if host == "gemini" {
                "BeforeAgent"
            } else {
                "UserPromptSubmit"
            };
            let mut t =
                start + Duration::days(day) + Duration::minutes(7 * 60 + rng.below(12 * 60) as i64);
            let ts = |t: DateTime<Utc>| t.to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
            out.push_str(
                &json!({"ts": ts(t), "event": "SessionStart", "host": host, "outcome": "injected",
                    "detectedHotwords": [], "reasons": [], "subagentSource": null,
                    "recommendedAgents": [], "agentReasonCodes": [], "carryForward": false,
                    "skills": [], "planning": false, "durationUs": 3_500 + rng.below(4_000)})
                .to_string(),
            );
            out.push('\n');
            let prompts = 3 + rng.below(if weekend { 5 } else { 9 });
            let mut planned = false;
            for _ in 0..prompts {
                t += Duration::seconds(40 + rng.below(900) as i64);
                let r = rng.unit();
                if r < 0.012 {
                    let failure = rng.pick(&[("invalid-json", 2), ("empty-payload", 1)]);
                    out.push_str(
                        &json!({"ts": ts(t), "event": null, "host": host, "outcome": "failed-open",
                            "failure": failure, "detectedHotwords": [], "reasons": [],
                            "subagentSource": null, "recommendedAgents": [], "agentReasonCodes": [],
                            "carryForward": false, "skills": [], "planning": false,
                            "durationUs": 300 + rng.below(400)})
                        .to_string(),
                    );
                    out.push('\n');
                    continue;
                }
                let quick = rng.unit() < 0.22;
                let agents = rng.unit() < if quick { 0.15 } else { 0.09 };
                let mut hotwords = Vec::new();
                if quick {
                    hotwords.push("!quick");
                }
                if agents {
                    hotwords.push("!agents");
                }
                let repo_task = rng.unit() < 0.25;
                let (context, mut reasons) = match (quick, repo_task) {
                    (true, false) => ("light", vec!["hotword:!quick"]),
                    (true, true) => ("full", vec!["repo-task-detected-overrides:!quick"]),
                    (false, _) => ("full", vec!["default-full"]),
                };
                let requested = !agents && rng.unit() < 0.04;
                let subagent = if agents {
                    reasons.push("hotword:!agents");
                    "required"
                } else if requested {
                    reasons.push("explicit-subagent-request");
                    "requested"
                } else {
                    reasons.push("default-opt-in-design");
                    "off"
                };
                let planning = rng.unit() < 0.08;
                let carry = planned && !planning && rng.unit() < 0.8;
                planned = planning && (subagent != "off" || rng.unit() < 0.5);
                let mut skills = Vec::new();
                let n_skills = match rng.unit() {
                    x if x < 0.35 => 0,
                    x if x < 0.85 => 1,
                    _ => 2,
                };
                while skills.len() < n_skills {
                    let s = rng.pick(&SKILLS);
                    if !skills.contains(&s) {
                        skills.push(s);
                    }
                }
                let mut recommended = Vec::new();
                if subagent != "off" {
                    let n = 1 + rng.below(2) as usize;
                    while recommended.len() < n {
                        let a = rng.pick(&AGENTS);
                        if !recommended.contains(&a) {
                            recommended.push(a);
                        }
                    }
                }
                let degraded = rng.unit() < 0.006;
                // Mostly 1.5–4 ms, with a tail.
                let mut duration = 1_500 + rng.below(2_500);
                if rng.unit() < 0.08 {
                    duration += 4_000 + rng.below(20_000);
                }
                if degraded {
                    duration = 100_000 + rng.below(30_000);
                }
                let mut line = json!({"ts": ts(t), "event": prompt_event, "host": host,
                    "outcome": "injected", "contextMode": context, "subagentMode": subagent,
                    "detectedHotwords": hotwords, "reasons": reasons,
                    "subagentSource": "deterministic-agent-policy",
                    "recommendedAgents": recommended,
                    "agentReasonCodes": if recommended.is_empty() { vec![] } else { vec!["phase:analysis"] },
                    "carryForward": carry, "skills": skills, "planning": planning,
                    "durationUs": duration});
                if degraded {
                    line["degraded"] = json!("time-budget");
                }
                out.push_str(&line.to_string());
                out.push('\n');
                let later = ts(t + Duration::seconds(20 + outcomes.below(20) as i64));
                out.push_str(&hint_outcomes(
                    &mut outcomes,
                    host,
                    &later,
                    &skills,
                    &recommended,
                ));
            }
        }
        if day == 2 {
            // A line cut by a full disk, and one that is not JSON at all.
            out.push_str("{\"ts\":\"2026-11-25T18:02:11.000Z\",\"event\":\"UserPro\n");
            out.push_str("not json\n");
        }
    }
    out
}

/// A file of the repository by its absolute path on this platform. `CARGO_MANIFEST_DIR` is the
/// build host's path: under Wine the Linux `/work/...`, which Windows reads as rooted on the
/// current drive but not absolute, so a setting that requires an absolute path (such as
/// `SOPHIA_ANALYTICS_FILE`) would take it as relative to the home directory. Canonicalized, it
/// is the drive-letter path (`Z:\work\...`) there and unchanged on Unix.
fn repo_path(rel: &str) -> PathBuf {
    dunce::canonicalize(Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)).unwrap()
}

#[test]
fn the_week_fixture_is_what_the_generator_writes() {
    let generated = generate_week();
    let path = repo_path(WEEK);
    if std::env::var_os("SOPHIA_REGENERATE").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &generated).unwrap();
    }
    let committed = std::fs::read_to_string(&path).expect("run once with SOPHIA_REGENERATE=1");
    assert!(
        committed == generated,
        "{WEEK} differs from the generator; rebuild it with SOPHIA_REGENERATE=1"
    );
}

fn finding(level: Level, area: &str, detail: &str, fix: Option<&str>) -> Finding {
    Finding {
        level,
        area: area.into(),
        detail: detail.into(),
        fix: fix.map(Into::into),
    }
}

/// Fixed doctor results, inventory and catalog: the snapshot depends on the fixture alone.
fn fixed_input(log_text: &str, log: AnalyticsLog) -> ReportInput {
    let now = at("2026-11-30T09:00:00Z");
    let since = at("2026-11-23T00:00:00Z");
    let mut mix = MixBuilder::new(since, now, None);
    for line in log_text.lines() {
        mix.push(line.as_bytes());
    }
    let setup = Setup {
        hosts: vec![
            HostSetup {
                host: "codex".into(),
                scopes: vec!["project".into()],
                trust: Some(Trust {
                    level: Level::Warn,
                    label: "UserPromptSubmit: not trusted yet, so Codex skips it silently".into(),
                }),
                findings: vec![
                    finding(
                        Level::Ok,
                        "codex project",
                        "SessionStart: /usr/local/bin/sophia-hook --host codex --event SessionStart (timeout 5)",
                        None,
                    ),
                    finding(
                        Level::Ok,
                        "codex trust",
                        "SessionStart: trusted (the hash itself is Codex's to verify)",
                        None,
                    ),
                    finding(
                        Level::Warn,
                        "codex trust",
                        "UserPromptSubmit: not trusted yet, so Codex skips it silently",
                        Some("open the Codex TUI and trust it once with /hooks"),
                    ),
                    finding(
                        Level::Ok,
                        "codex run",
                        "UserPromptSubmit: valid codex output (412 characters of context)",
                        None,
                    ),
                ],
            },
            HostSetup {
                host: "claude".into(),
                scopes: vec!["user".into()],
                trust: None,
                findings: vec![finding(
                    Level::Ok,
                    "claude user",
                    "SessionStart: /usr/local/bin/sophia-hook --host claude --event SessionStart (timeout 5)",
                    None,
                )],
            },
            HostSetup {
                host: "gemini".into(),
                scopes: vec!["project".into()],
                trust: None,
                findings: vec![finding(
                    Level::Fail,
                    "gemini project",
                    "BeforeAgent: timeout 5 looks like seconds, but Gemini CLI counts milliseconds",
                    Some("sophia-hook install --host gemini --scope project"),
                )],
            },
            HostSetup {
                host: "antigravity".into(),
                scopes: vec![],
                trust: None,
                findings: vec![finding(
                    Level::Info,
                    "antigravity",
                    "not installed",
                    Some("sophia-hook install --host antigravity"),
                )],
            },
        ],
        general: vec![
            finding(Level::Ok, "binary", "/usr/local/bin/sophia-hook", None),
            finding(
                Level::Info,
                "skills",
                "no skills/*/SKILL.md: the embedded default catalog is used",
                None,
            ),
            finding(
                Level::Ok,
                "agent catalog",
                ".sophia/agent-catalog.json valid and fresh",
                None,
            ),
            finding(
                Level::Warn,
                "availability",
                "~/.mcp-servers/agent-availability.json: computed for another catalog",
                Some("sophia-hook availability --write"),
            ),
            finding(
                Level::Ok,
                "analytics",
                "~/.mcp-servers/analytics/sophia-hook.jsonl writable",
                None,
            ),
        ],
    };
    let role =
        |id: &str, phase: &str, write: &str, state: &str, defs: &[(&str, &str, bool)]| RoleRow {
            id: id.into(),
            routing_role: phase.into(),
            write_policy: write.into(),
            availability: state.into(),
            computed: state.into(),
            host_states: ["codex", "claude", "gemini"]
                .iter()
                .map(|h| ((*h).to_owned(), state.to_owned()))
                .collect(),
            definitions: defs
                .iter()
                .map(|(host, path, enabled)| RuntimeDefinition {
                    host: (*host).into(),
                    path: (*path).into(),
                    enabled: *enabled,
                })
                .collect(),
        };
    let mut implementer = role(
        "implementer",
        "implementation",
        "workspace-write",
        "unavailable",
        &[("codex", ".codex/agents/implementer.toml", false)],
    );
    implementer.availability = "configured".into();
    let agents = AgentsView {
        fingerprint: "sha256:4f1c0a7be2d95e3a61f0c8d2b7a94e5c3d1f6a8b9c0e2d4f6a8b0c2e4f6a8b0c".into(),
        source: "generated".into(),
        source_path: Some(".sophia/agent-catalog.json".into()),
        hosts: vec!["codex".into(), "claude".into(), "gemini".into(), "copilot".into()],
        roles: vec![
            role("scout", "discovery", "read-only", "configured", &[
                ("codex", ".codex/agents/scout.toml", true),
                ("claude", "~/.claude/agents/scout.md", true),
            ]),
            role("technical_analyst", "analysis", "read-only", "configured", &[(
                "codex",
                ".codex/agents/technical-analyst.toml",
                true,
            )]),
            implementer,
            role("code_reviewer", "review", "read-only", "unknown", &[]),
            role("test_writer", "test", "workspace-write", "unknown", &[]),
        ],
        drift: vec!["implementer: the hook uses `configured` but the definitions on disk say `unavailable`; run `sophia-hook availability --write`".into()],
    };
    // Embedded skills: the analytics log names them by their id.
    let embedded: Vec<(String, String, String)> = SKILLS[..9]
        .iter()
        .map(|(id, _)| ((*id).to_owned(), "embedded".to_owned(), (*id).to_owned()))
        .collect();
    let skills = ["codex", "claude", "gemini", "antigravity"]
        .iter()
        .map(|h| SkillInventory {
            host: (*h).into(),
            source: "embedded".into(),
            skills: embedded.clone(),
        })
        .collect();
    ReportInput {
        generated_at: now,
        since,
        host: None,
        log,
        mix: mix.finish(),
        setup,
        agents,
        skills,
        quality: None,
    }
}

#[test]
fn page_for_the_week_fixture() {
    let text = std::fs::read_to_string(repo_path(WEEK)).unwrap();
    let input = fixed_input(
        &text,
        AnalyticsLog::Read("~/.mcp-servers/analytics/sophia-hook.jsonl".into()),
    );
    // The figures the page shows, counted independently of the report code.
    let prompts = text
        .lines()
        .filter(|l| l.contains("\"contextMode\""))
        .count() as u64;
    let quick = text.lines().filter(|l| l.contains("\"!quick\"")).count() as u64;
    assert_eq!(input.mix.prompts, prompts);
    assert_eq!(input.mix.hotwords["!quick"], quick);
    assert_eq!(input.mix.corrupt_lines, 2);
    let html = render(&input);
    assert!(html.contains(&format!("<div class=\"v\">{prompts}</div>")));
    assert!(html.contains("id=\"fingerprint\">sha256:4f1c0a7b"));
    assert!(
        html.contains("<svg id=\"prompts-per-day\"")
            && html.contains("<svg id=\"latency-histogram\"")
    );
    assert!(!html.contains("<script") && !html.contains("http://") && !html.contains("https://"));
    // The advice section's figures, counted from the fixture's text.
    let hint = |needle: &str| {
        text.lines()
            .filter(|l| l.contains("\"event\":\"hint-outcome\"") && l.contains(needle))
            .count()
    };
    let followed = hint("\"outcome\":\"followed\"");
    let named = followed + hint("\"outcome\":\"other:") + hint("\"outcome\":\"ignored\"");
    assert_eq!(
        input.mix.hint_outcome_lines,
        hint("") as u64,
        "hint-outcome lines"
    );
    assert!(followed > 0 && named > followed);
    assert!(
        html.contains(&format!(
            "<div class=\"note\">{followed} of {named} named</div>"
        )),
        "{followed} of {named}"
    );
    assert!(html.contains(&format!(
        "<div class=\"k\">loaded but not named</div><div class=\"v\">{}</div>",
        hint("\"outcome\":\"unnamed:")
    )));
    assert!(html.contains(&format!(
        "<div class=\"k\">outcome unknown</div><div class=\"v\">{}</div>",
        hint("\"outcome\":\"unknown\"")
    )));
    assert!(html.contains("<svg id=\"advice-skill-bars\""));
    insta::assert_snapshot!("report_week", html);
}

/// The advice section over a hand-written log: the stacked bar of each host, a row per skill
/// named, what was loaded instead or without a name, the delegations and the unknown outcomes —
/// each count written by hand here. With `--host`, only that host's lines; with no line, the
/// empty state.
#[test]
fn the_advice_section_shows_what_became_of_the_hints() {
    let lines = [
        r#"{"ts":"2026-11-29T10:00:00Z","event":"hint-outcome","host":"claude","hint":"skill","named":"pdf","outcome":"followed"}"#,
        r#"{"ts":"2026-11-29T10:01:00Z","event":"hint-outcome","host":"claude","hint":"skill","named":"pdf","outcome":"followed"}"#,
        r#"{"ts":"2026-11-29T10:02:00Z","event":"hint-outcome","host":"claude","hint":"skill","named":"pdf","outcome":"other:docx"}"#,
        r#"{"ts":"2026-11-29T10:03:00Z","event":"hint-outcome","host":"claude","hint":"skill","named":"project:1a2b3c4d5e6f","outcome":"ignored"}"#,
        r#"{"ts":"2026-11-29T10:04:00Z","event":"hint-outcome","host":"codex","hint":"skill","named":"pdf","outcome":"ignored"}"#,
        r#"{"ts":"2026-11-29T10:05:00Z","event":"hint-outcome","host":"codex","hint":"skill","outcome":"unnamed:xlsx"}"#,
        r#"{"ts":"2026-11-29T10:06:00Z","event":"hint-outcome","host":"claude","hint":"delegation","named":"technical_analyst","outcome":"spawned:technical_analyst"}"#,
        r#"{"ts":"2026-11-29T10:06:00Z","event":"hint-outcome","host":"claude","hint":"delegation","named":"technical_analyst","outcome":"spawned:scout"}"#,
        r#"{"ts":"2026-11-29T10:07:00Z","event":"hint-outcome","host":"claude","hint":"delegation","outcome":"not-spawned"}"#,
        r#"{"ts":"2026-11-29T10:08:00Z","event":"hint-outcome","host":"gemini","outcome":"unknown","reason":"transcript-missing"}"#,
        r#"{"ts":"2026-11-29T10:09:00Z","event":"hint-outcome","host":"gemini","outcome":"unknown","reason":"<b>"}"#,
    ]
    .join("\n");
    let html = render(&fixed_input(&lines, AnalyticsLog::Read("log".into())));
    let start = html.find("<section id=\"advice\">").expect("the section");
    let section = &html[start..start + html[start..].find("</section>").unwrap()];
    let cell = |n: &str| format!("<td class=\"n\">{n}</td>");
    let row = |id: &str, cells: &[&str]| {
        let tds: String = cells.iter().map(|c| cell(c)).collect();
        format!("<tr><th scope=\"row\"><code>{id}</code></th>{tds}</tr>")
    };
    for want in [
        "11 hint-outcome lines in the period".to_owned(),
        "<div class=\"v\">40.0%</div><div class=\"note\">2 of 5 named</div>".to_owned(),
        "<div class=\"v\">50.0%</div><div class=\"note\">1 of 2 asked</div>".to_owned(),
        row("pdf", &["4", "2", "1", "1", "50.0%"]),
        row("project:1a2b3c4d5e6f", &["1", "0", "0", "1", "0.0%"]),
        "<title>claude: followed 2 of 4 (50.0%)</title>".to_owned(),
        "<title>claude: other 1 of 4 (25.0%)</title>".to_owned(),
        "<title>codex: ignored 1 of 1 (100.0%)</title>".to_owned(),
        "<title>docx: 1</title>".to_owned(),
        "<title>xlsx: 1</title>".to_owned(),
        format!(
            "<tr><th scope=\"row\">claude</th>{}{}{}{}<td><code>scout</code> 1, <code>technical_analyst</code> 1</td></tr>",
            cell("2"),
            cell("1"),
            cell("1"),
            cell("50.0%")
        ),
        format!(
            "<tr><th scope=\"row\">gemini</th>{}<td><code>&lt;b&gt;</code> 1, <code>transcript-missing</code> 1</td></tr>",
            cell("2")
        ),
    ] {
        assert!(section.contains(&want), "{want}\nnot in\n{section}");
    }
    // Not runs: the routing mix has none.
    assert!(html.contains("11 lines read: 0 runs in the period, 11 hint-outcome lines"));
    // One host: only its lines.
    let mut input = fixed_input("", AnalyticsLog::Read("log".into()));
    let mut mix = MixBuilder::new(
        at("2026-11-23T00:00:00Z"),
        at("2026-11-30T09:00:00Z"),
        Some("codex"),
    );
    for l in lines.lines() {
        mix.push(l.as_bytes());
    }
    input.mix = mix.finish();
    input.host = Some("codex".into());
    let html = render(&input);
    assert!(html.contains("<div class=\"v\">0.0%</div><div class=\"note\">0 of 1 named</div>"));
    assert!(!html.contains("claude: followed") && !html.contains("transcript-missing"));
    // No line: the empty state.
    let html = render(&fixed_input("", AnalyticsLog::Read("log".into())));
    assert!(html.contains("<p class=\"empty\">No hint-outcome lines in this period."));
    assert!(!html.contains("advice-skill-bars"));
}

#[test]
fn untrusted_ids_are_escaped_everywhere() {
    let evil = "<script>alert('x')</script>";
    let log = json!({"ts": "2026-11-29T10:00:00.000Z", "event": "UserPromptSubmit", "host": "codex",
        "outcome": "injected", "contextMode": evil, "subagentMode": "off", "detectedHotwords": [evil],
        "recommendedAgents": [evil], "carryForward": false, "skills": [evil], "durationUs": 1000})
    .to_string();
    let mut input = fixed_input(&log, AnalyticsLog::Read(format!("/tmp/{evil}.jsonl")));
    input.agents.fingerprint = evil.into();
    input.agents.roles[0].id = evil.into();
    input.agents.drift.push(evil.into());
    input.skills[0]
        .skills
        .push((evil.into(), evil.into(), evil.into()));
    input.setup.hosts[0].findings[2].detail = evil.into();
    let html = render(&input);
    assert_eq!(input.mix.runs, 1);
    assert!(!html.contains("<script"), "unescaped markup in the page");
    assert!(
        html.matches("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;")
            .count()
            >= 8
    );
}

#[test]
fn empty_missing_and_off_logs_give_a_page_that_says_so() {
    let missing = render(&fixed_input(
        "",
        AnalyticsLog::Missing("~/log.jsonl".into()),
    ));
    assert!(missing.contains("No analytics log yet at <code>~/log.jsonl</code>"));
    let off = render(&fixed_input("", AnalyticsLog::Off));
    assert!(off.contains("Analytics are off"));
    let empty = render(&fixed_input("\n", AnalyticsLog::Read("~/log.jsonl".into())));
    assert!(empty.contains("No hook runs in this period."));
    for page in [&missing, &off, &empty] {
        // Setup and agents still show.
        assert!(page.contains("id=\"fingerprint\"") && page.contains("<h2>Setup</h2>"));
        assert!(!page.contains("prompts-per-day"));
    }
}

/// A project with a git folder, so the binary finds its root.
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join(".git")).unwrap();
    dir
}

#[test]
fn the_binary_writes_the_page_under_the_state_dir_and_prints_its_path() {
    let home = tempfile::tempdir().unwrap();
    let proj = project();
    let state = home.path().join("state");
    // The user's own log: one inside the working folder's repository (this one) would be a
    // path the repository chose, and refused (`edge::settings`, inside-project).
    let log = home.path().join("log.jsonl");
    std::fs::copy(repo_path(WEEK), &log).unwrap();
    let run = common::run_binary(
        &[
            "report",
            "--root",
            proj.path().to_str().unwrap(),
            "--since",
            "2026-11-23",
        ],
        b"",
        home.path(),
        &[
            ("XDG_STATE_HOME", state.to_str().unwrap()),
            ("SOPHIA_ANALYTICS_FILE", log.to_str().unwrap()),
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    // Joined part by part: the printed path uses the platform's separator (`\` on Windows).
    let path = state.join("sophia-hook").join("report.html");
    assert_eq!(run.stdout.trim(), path.to_str().unwrap());
    let html = std::fs::read_to_string(&path).unwrap();
    let fingerprint = sophia_hook::stages::agents::default_catalog().fingerprint;
    assert!(html.contains(&format!("<code id=\"fingerprint\">{fingerprint}</code>")));
    assert!(html.contains("<svg id=\"prompts-per-day\""));
    assert!(html.contains("source: <strong>embedded</strong>"));
    // Nothing was written inside the project.
    let mut entries: Vec<_> = std::fs::read_dir(proj.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    entries.sort();
    assert_eq!(entries, [".git"]);
}

#[test]
fn no_prompt_text_reaches_the_page() {
    let home = tempfile::tempdir().unwrap();
    let proj = project();
    let log = home.path().join("analytics.jsonl");
    let env = [("SOPHIA_ANALYTICS_FILE", log.to_str().unwrap())];
    for prompt in [
        "!quick spiegami ZEBRA-4411 in SQL",
        "!agents analizza ZEBRA-4411 con uno scout",
    ] {
        let payload =
            json!({"hook_event_name": "UserPromptSubmit", "prompt": prompt, "cwd": proj.path()});
        let run = common::run_binary(
            &["--host", "codex"],
            payload.to_string().as_bytes(),
            home.path(),
            &env,
        );
        assert_eq!(run.code, 0);
    }
    let out = home.path().join("page.html");
    let run = common::run_binary(
        &[
            "report",
            "--root",
            proj.path().to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ],
        b"",
        home.path(),
        &env,
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let html = std::fs::read_to_string(&out).unwrap();
    assert!(
        html.contains("<div class=\"v\">2</div>"),
        "two prompts counted"
    );
    assert!(!html.contains("ZEBRA") && !html.contains("spiegami") && !html.contains("analizza"));
}

#[test]
fn a_missing_log_and_a_bad_since_behave() {
    let home = tempfile::tempdir().unwrap();
    let proj = project();
    let out = home.path().join("page.html");
    let missing = home.path().join("none.jsonl");
    let root = proj.path().to_str().unwrap();
    let run = common::run_binary(
        &[
            "report",
            "--root",
            root,
            "--out",
            out.to_str().unwrap(),
            "--file",
            missing.to_str().unwrap(),
        ],
        b"",
        home.path(),
        &[],
    );
    // A log named on the command line must exist; the default one may not yet.
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("no such file"), "{}", run.stderr);
    let run = common::run_binary(
        &["report", "--root", root, "--out", out.to_str().unwrap()],
        b"",
        home.path(),
        &[],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        std::fs::read_to_string(&out)
            .unwrap()
            .contains("No analytics log yet")
    );
    let run = common::run_binary(
        &[
            "report",
            "--root",
            root,
            "--out",
            out.to_str().unwrap(),
            "--since",
            "last tuesday",
        ],
        b"",
        home.path(),
        &[],
    );
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("expected a duration like 7d"),
        "{}",
        run.stderr
    );
}

// The impostor is a `#!/bin/sh` script: Unix only.
#[cfg(unix)]
#[test]
fn the_page_never_runs_a_command_a_repository_registered() {
    let home = tempfile::tempdir().unwrap();
    let proj = project();
    let marker = home.path().join("ran");
    // Named exactly like our binary, so the entries count as sophia-hook's (only a command line
    // that `install` would write does), but it is another program.
    std::fs::create_dir(proj.path().join("bin")).unwrap();
    let script = proj.path().join("bin/sophia-hook");
    common::exe::write_script(
        &script,
        &format!("#!/bin/sh\ntouch '{}'\n", marker.to_string_lossy()),
    );
    let handler = |event: &str| {
        json!([{"hooks": [{"type": "command", "timeout": 5,
            "command": format!("{} --host codex --event {event}", script.to_string_lossy())}]}])
    };
    std::fs::create_dir(proj.path().join(".codex")).unwrap();
    std::fs::write(
        proj.path().join(".codex/hooks.json"),
        json!({"hooks": {"SessionStart": handler("SessionStart"),
            "UserPromptSubmit": handler("UserPromptSubmit")}})
        .to_string(),
    )
    .unwrap();
    let out = home.path().join("page.html");
    let root = proj.path().to_str().unwrap();
    let run = common::run_binary(
        &["report", "--root", root, "--out", out.to_str().unwrap()],
        b"",
        home.path(),
        &[],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(!marker.exists(), "report ran the registered command");
    let html = std::fs::read_to_string(&out).unwrap();
    assert!(
        html.contains("not at this binary"),
        "doctor's finding is on the page"
    );
    // The entries were seen as sophia-hook's (installed, project scope), and still not run.
    assert!(html.contains(
        "<tr><th scope=\"row\">codex</th><td><span class=\"badge ok\">ok</span> project</td>"
    ));
}

#[test]
fn host_limits_every_section_to_one_host() {
    let home = tempfile::tempdir().unwrap();
    let proj = project();
    let out = home.path().join("page.html");
    let settings = sophia_hook::edge::settings::Settings {
        home: Some(home.path().to_path_buf()),
        ..Default::default()
    };
    let log = repo_path(WEEK);
    let run = common::run_in_process_with(
        &[
            "report",
            "--host",
            "claude",
            "--root",
            proj.path().to_str().unwrap(),
            "--file",
            log.to_str().unwrap(),
            "--since",
            "2026-11-23",
            "--out",
            out.to_str().unwrap(),
        ],
        b"",
        &settings,
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout.trim(), out.to_str().unwrap());
    let html = std::fs::read_to_string(&out).unwrap();
    let text = std::fs::read_to_string(&log).unwrap();
    // The in-process clock reads 2026-11-29T12:00:00Z: later lines are outside the period.
    let claude = text
        .lines()
        .filter(|l| {
            l.contains("\"host\":\"claude\"")
                && !l.contains("\"hint-outcome\"")
                && l[7..31] <= *"2026-11-29T12:00:00.000Z"
        })
        .count();
    assert!(html.contains("host: claude"));
    assert!(
        html.contains(&format!("{claude} runs in the period")),
        "{claude}"
    );
    assert!(html.contains("<tr><th scope=\"row\">claude</th>"));
    assert!(!html.contains("<tr><th scope=\"row\">codex</th>"));
    // Claude, named explicitly and not installed, is a failure as in `doctor --host claude`.
    assert!(html.contains("<span class=\"badge fail\">fail</span> not installed"));
}

/// The drift the report shows about availability is cleared by the command it names: for the
/// roles installed at project scope, at user scope, and after a user definition is removed
/// (drift), `sophia-hook availability --write` leaves no "the hook uses … but your own definitions say …" line. Before, the
/// report compared the manifest (the user's own definitions) with the project's definitions too,
/// so after a project-scope install no command could clear it.
#[test]
fn the_availability_drift_is_cleared_by_the_command_it_names() {
    for scope in ["project", "user"] {
        let dir = tempfile::tempdir().unwrap();
        let (root, home) = (dir.path().join("project"), dir.path().join("home"));
        std::fs::create_dir_all(root.join(".git")).unwrap();
        std::fs::create_dir_all(&home).unwrap();
        let out = dir.path().join("report.html");
        let run = |args: &[&str]| {
            let mut all = args.to_vec();
            all.extend(["--root", root.to_str().unwrap()]);
            common::run_binary(&all, b"", &home, &[("SOPHIA_ANALYTICS", "off")])
        };
        let drift = || {
            let r = run(&["report", "--out", out.to_str().unwrap()]);
            assert_eq!(r.code, 0, "{}", r.stderr);
            let page = std::fs::read_to_string(&out).unwrap();
            page.matches("but your own definitions say").count()
        };
        let install = run(&["install", "--host", "claude", "--scope", scope]);
        assert_eq!(install.code, 0, "{scope}: {}", install.stderr);
        let write = run(&["availability", "--write"]);
        assert_eq!(write.code, 0, "{}", write.stderr);
        assert_eq!(
            drift(),
            0,
            "{scope}: drift right after availability --write"
        );
        if scope == "user" {
            // A user definition removed: the manifest is stale now, and says so.
            std::fs::remove_file(home.join(".claude/agents/scout.md")).unwrap();
            assert_eq!(drift(), 1, "{scope}: the stale manifest is not reported");
            assert_eq!(run(&["availability", "--write"]).code, 0);
            assert_eq!(drift(), 0, "{scope}: availability --write did not clear it");
        }
    }
}

/// `report --eval`: the page shows the project's skill routing measured on labelled prompts —
/// the figures `eval` prints for the same files (docs/skills.md, "Risk and coverage", the
/// web-game-dev row of the sixteen) and the curve with one point per threshold — and never a
/// word of a prompt. Without `--eval` there is no such section; a cases file that does not exist
/// is an error and no page is written.
#[test]
fn report_eval_shows_risk_coverage_and_the_curve_and_no_prompt() {
    let home = tempfile::tempdir().unwrap();
    let root = repo_path("fixtures/catalogs/web-game-dev");
    let cases = repo_path("fixtures/eval/catalogs/web-game-dev.jsonl");
    let out = home.path().join("page.html");
    let report = |extra: &[&str]| {
        let mut args = vec![
            "report",
            "--root",
            root.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        common::run_binary(&args, b"", home.path(), &[])
    };
    let run = report(&["--eval", cases.to_str().unwrap()]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let html = std::fs::read_to_string(&out).unwrap();
    let start = html.find("<section id=\"quality\">").expect("the section");
    let section = &html[start..start + html[start..].find("</section>").unwrap()];
    let cell = |v: &str, hits: u32, total: u32| {
        format!("<td class=\"n\">{v}% <span class=\"note\">({hits}/{total})</span></td>")
    };
    let hook_row = format!(
        "<tr><th scope=\"row\">sophia-hook</th>{}{}{}</tr>",
        cell("88.9", 8, 9),
        cell("17.4", 8, 46),
        cell("43.5", 20, 46)
    );
    assert!(section.contains(&hook_row), "{section}");
    let bm25_row = format!(
        "<tr><th scope=\"row\">BM25F (names its top skill)</th>{}{}{}</tr>",
        cell("37.3", 19, 51),
        cell("41.3", 19, 46),
        cell("41.3", 19, 46)
    );
    assert!(section.contains(&bm25_row), "{section}");
    // Every tenth and the hook's own threshold, one filled.
    assert_eq!(section.matches("<circle ").count(), 11, "{section}");
    assert_eq!(section.matches("r=\"4.5\" fill=\"#0969da\"").count(), 1);
    assert!(
        section.contains("<polyline id=\"curve-hook\"")
            && section.contains("<polyline id=\"curve-bm25f\"")
    );
    // No prompt of the cases file reaches the page, nor any long word of one.
    let text = std::fs::read_to_string(&cases).unwrap();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let case: serde_json::Value = serde_json::from_str(line).unwrap();
        let prompt = case["prompt"].as_str().unwrap();
        assert!(!html.contains(prompt), "{prompt}");
        for word in prompt
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| w.chars().count() >= 12)
        {
            assert!(!html.contains(word), "{word} of {prompt}");
        }
    }
    // Without --eval: no section.
    let run = report(&[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        !std::fs::read_to_string(&out)
            .unwrap()
            .contains("id=\"quality\"")
    );
    // A cases file that does not exist: an error, and the page is not written.
    std::fs::remove_file(&out).unwrap();
    let missing = home.path().join("nope.jsonl");
    let run = report(&["--eval", missing.to_str().unwrap()]);
    assert_eq!(run.code, 2, "{}{}", run.stdout, run.stderr);
    assert!(run.stderr.contains("nope.jsonl"), "{}", run.stderr);
    assert!(!out.exists());
}

/// What in the page's source (`src/report/html.rs`, tests and comments removed) would put text on
/// the page around maud's escaping: markup built with `format!`, `write!` or `push_str`, an
/// escaper or a `Render` impl by hand, or `PreEscaped` of anything but a string literal or a
/// constant (a `write!` only to a `Display` impl's `f`, whose text maud escapes). Text reaches
/// the page only through `html!` splices (escaped; strings from outside as `markup::Text`, which
/// also escapes `'`); the one place that writes raw text is `src/report/html/markup.rs`.
fn hand_built_markup(source: &str) -> Vec<String> {
    let code: String = source
        .split("#[cfg(test)]\nmod tests")
        .next()
        .unwrap()
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n");
    let mut found = Vec::new();
    let by_hand = regex::Regex::new(
        r"format!|format_args!|push_str|writeln!|\bwrite!\s*\(\s*[^f\s]|\bwrite!\s*\(\s*f\w|Escaper|\bfn escape|\bescape\(|\bRender\b|render_to",
    )
    .unwrap();
    for m in by_hand.find_iter(&code) {
        found.push(format!("markup by hand: {}", m.as_str()));
    }
    // `PreEscaped("literal")` or `PreEscaped(CONSTANT)`, the type `PreEscaped<T>`, and the import
    // without a new name.
    let allowed =
        regex::Regex::new(r#"^PreEscaped(<|\(\s*("([^"\\]|\\.)*"|[A-Z][A-Z0-9_]*)\s*\))"#).unwrap();
    let import = regex::Regex::new(r"^use maud::(\{[^}]*\}|PreEscaped);$").unwrap();
    for (at, _) in code.match_indices("PreEscaped") {
        let line_start = code[..at].rfind('\n').map_or(0, |i| i + 1);
        let line_end = code[at..].find('\n').map_or(code.len(), |i| at + i);
        let line = code[line_start..line_end].trim();
        if allowed.is_match(&code[at..]) || (import.is_match(line) && !line.contains(" as ")) {
            continue;
        }
        found.push(format!("PreEscaped of a value: {line}"));
    }
    found
}

#[test]
fn the_page_is_built_by_maud_and_never_by_hand() {
    let html_rs = repo_path("src/report/html.rs");
    let source = std::fs::read_to_string(&html_rs).unwrap();
    assert_eq!(hand_built_markup(&source), Vec::<String>::new());
    // The page's one helper module, and no other beside it to move code into unchecked.
    let helpers: Vec<String> = std::fs::read_dir(repo_path("src/report/html"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(helpers, ["markup.rs"]);
    // The check sees each way around maud, planted in the real file, and not the allowed forms.
    let planted = [
        r#"fn a(id: &str) -> String { format!("<code>{id}</code>") }"#,
        r#"fn a(id: &str) -> Markup { html! { (PreEscaped(format_args!("<b>{id}</b>"))) } }"#,
        "fn a(id: &str) -> Markup { PreEscaped(id.to_owned()) }",
        "fn a(id: &str) -> Markup { html! { td { (PreEscaped(id)) } } }",
        "fn a(m: Markup) -> Markup { PreEscaped(m.into_string()) }",
        "fn a(out: &mut String, id: &str) { out.push_str(id); }",
        r#"fn a(out: &mut String, id: &str) { let _ = write!(out, "<b>{id}</b>"); }"#,
        r#"fn a(out: &mut String, id: &str) { let _ = writeln!(out, "{id}"); }"#,
        r#"fn a(fmt: &mut String, id: &str) { let _ = write!(fmt, "{id}"); }"#,
        "fn a(id: &str) -> String { let mut s = String::new(); maud::Escaper::new(&mut s); s }",
        "use maud::PreEscaped as Raw;",
        "impl maud::Render for B { fn render_to(&self, b: &mut String) { b.extend(self.0.chars()) } }",
    ];
    for plant in planted {
        let text = source.replacen(
            "#[cfg(test)]\nmod tests",
            &format!("{plant}\n\n#[cfg(test)]\nmod tests"),
            1,
        );
        assert!(
            !hand_built_markup(&text).is_empty(),
            "the check missed: {plant}"
        );
    }
    for fine in [
        r#"const X: PreEscaped<&str> = PreEscaped("&amp;");"#,
        "fn a() -> Markup { html! { (PreEscaped(STYLE)) } }",
        "// PreEscaped(id) in a comment",
        r#"impl fmt::Display for B { fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result { write!(f, "{}", 1) } }"#,
    ] {
        let text = source.replacen(
            "#[cfg(test)]\nmod tests",
            &format!("{fine}\n\n#[cfg(test)]\nmod tests"),
            1,
        );
        assert_eq!(hand_built_markup(&text), Vec::<String>::new(), "{fine}");
    }
}
