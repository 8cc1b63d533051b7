//! Render and payload rules over generated text (docs/routing.md, "Hints and output"; docs/
//! architecture.md §2), with multi-byte characters wherever a count could be bytes:
//!
//! - `AGENTS.md` injected at SessionStart is cut at 6,000 *characters*; when it is cut, the note
//!   says how many characters were kept and the file's size in bytes; a file of at most 6,000
//!   characters is never cut, however many bytes it has;
//! - `additionalContext` is cut to 10,000 characters on every host, and only when it is longer;
//! - on Gemini CLI, any number of leading `<hook_context>…</hook_context>` blocks followed by a
//!   blank line are removed before routing, the first closing tag ending each block; nothing
//!   else (a block later in the text, a block without the blank line, an unclosed one) is.
//!
//! Planted bug this catches: the truncation note counting bytes but saying characters.
// Tests and benches set up and read their files directly; the door (clippy.toml) is for the crate.
#![allow(clippy::disallowed_methods)]

use crate::common;

use proptest::prelude::*;
use serde_json::Value;

use sophia_hook::hosts::Host;
use sophia_hook::hosts::gemini::strip_leading_hook_context;
use sophia_hook::stages::render;

fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        failure_persistence: None,
        rng_seed: proptest::test_runner::RngSeed::Fixed(20),
        ..ProptestConfig::default()
    }
}

/// Characters of 1 to 4 bytes, and line breaks.
const CHARS: &[char] = &[
    'a', 'Z', ' ', '\n', 'è', 'ß', '€', '日', '本', '🙂', '𝄞', '-',
];

const AGENTS_MD_CAP: usize = 6_000;

/// The hosts' own wrapper tags, and our block headers.
const TAGS: &[&str] = &[
    "system-reminder",
    "user_instructions",
    "environment_context",
    "hook_context",
    "task-notification",
    "bash-input",
    "command-name",
    "user-prompt-submit-hook",
    "instructions",
    "INSTRUCTIONS",
    "ephemeral_message",
    "SYSTEM",
    "Sophia routing control: contextMode=light",
    "Sophia skill routing: use skill x",
];

/// The forms of a tag, `{t}` its name.
const TAG_FORMS: &[&str] = &[
    "<{t}>",
    "</{t}>",
    "< /{t} >",
    "</ {t}>",
    "<{t} source=\"user\">",
    "<\u{200B}/{t}>",
    "<\t{t}>",
    "<!-- {t} -->",
    "<?{t}?>",
    "<!{t}>",
    "\n{t}\n",
];
const HOST_CAP: usize = 10_000;

fn text_of(len: usize, seed: &[usize]) -> String {
    // Never starts or ends with whitespace, so trimming cannot blur the counts.
    (0..len)
        .map(|i| {
            let c = CHARS[seed[i % seed.len()] % CHARS.len()];
            if (i == 0 || i + 1 == len) && c.is_whitespace() {
                'x'
            } else {
                c
            }
        })
        .collect()
}

/// The project text of the `AGENTS.md` block in `context`: the lines after its header that start
/// with `>`, the `>` (and the space after it) taken off. `None` when there is no such block.
fn unquoted(context: &str) -> Option<String> {
    let mut lines = context
        .split('\n')
        .skip_while(|l| !l.starts_with("Project AGENTS.md ("));
    lines.next()?;
    let quoted: Vec<&str> = lines
        .take_while(|l| l.starts_with('>'))
        .map(|l| l.strip_prefix("> ").unwrap_or(&l[1..]))
        .collect();
    Some(quoted.join("\n"))
}

/// How many first characters of `text` fit in `cap` UTF-16 code units (what the JavaScript
/// hosts count) once every line is quoted with `> ` (by binary search over the quoted length,
/// which grows with the prefix).
fn longest_quoted_prefix(text: &str, cap: usize) -> usize {
    let chars: Vec<char> = text.chars().collect();
    let quoted_len = |n: usize| {
        let prefix: String = chars[..n].iter().collect();
        prefix
            .split('\n')
            .map(|l| format!("> {l}"))
            .collect::<Vec<_>>()
            .join("\n")
            .encode_utf16()
            .count()
    };
    let (mut lo, mut hi) = (0, chars.len());
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        if quoted_len(mid) <= cap {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    lo
}

/// Runs the session's first context for `host` in a project whose `AGENTS.md` is `text`;
/// returns the context. That is SessionStart, except on Gemini CLI, where the session context
/// rides with the first prompt of a conversation whose file does not carry it yet
/// (docs/host-protocols.md, Gemini CLI resume).
fn session_start_context(host: Host, text: &str, claude_md: bool) -> String {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join(".git")).unwrap();
    std::fs::write(dir.path().join("AGENTS.md"), text).unwrap();
    if claude_md {
        std::fs::write(dir.path().join("CLAUDE.md"), "see AGENTS.md\n").unwrap();
    }
    let payload = if host == Host::Gemini {
        serde_json::json!({
            "hook_event_name": "BeforeAgent",
            "prompt": "ciao",
            "session_id": "s",
            "transcript_path": dir.path().join("no-conversation-yet.json").to_str().unwrap(),
            "cwd": dir.path().to_str().unwrap(),
        })
    } else {
        serde_json::json!({
            "hook_event_name": "SessionStart",
            "source": "startup",
            "session_id": "s",
            "cwd": dir.path().to_str().unwrap(),
        })
    };
    let run = common::run_in_process(&["--host", host.as_str()], payload.to_string().as_bytes());
    assert_eq!(run.code, 0, "{}", run.stderr);
    let v: Value = serde_json::from_str(&run.stdout).expect("SessionStart prints JSON");
    v["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .expect("a context")
        .to_owned()
}

proptest! {
    #![proptest_config(config(64))]

    /// Any `AGENTS.md` of multi-byte text around and over the cap, on Gemini CLI (which does not
    /// load it itself) and Claude Code with a `CLAUDE.md`: what arrives is the longest beginning
    /// of the file whose quoted form (`> ` before each line) is at most 6,000 UTF-16 code units
    /// (the unit Claude Code cuts at: issue 48, an emoji-heavy file counted in characters was cut
    /// by the host), quoted, then a note that counts the characters kept.
    #[test]
    fn agents_md_is_cut_at_utf16_units_and_the_note_counts_characters(
        len in prop_oneof![1usize..200, 5_990usize..6_010, 6_010usize..9_000],
        seed in prop::collection::vec(0usize..64, 1..40),
        claude in any::<bool>(),
    ) {
        let text = text_of(len, &seed);
        let (host, claude_md) = if claude { (Host::Claude, true) } else { (Host::Gemini, false) };
        let context = session_start_context(host, &text, claude_md);
        prop_assert!(context.encode_utf16().count() <= HOST_CAP);
        let n = longest_quoted_prefix(&text, AGENTS_MD_CAP);
        let kept: String = text.chars().take(n).collect();
        let arrived = unquoted(&context);
        if n == len {
            prop_assert_eq!(arrived.as_deref(), Some(text.as_str()), "the whole file, {} chars / {} bytes", len, text.len());
            prop_assert!(!context.contains("truncated"), "{} chars fit once quoted", len);
        } else {
            prop_assert!(n + 1000 > AGENTS_MD_CAP / 3, "{n} kept");
            prop_assert_eq!(arrived.as_deref(), Some(kept.trim_end()));
            let note = format!(
                "[AGENTS.md truncated: first {n} characters of a {}-byte file; read the file for the rest.]",
                text.len()
            );
            let end: String = context.chars().skip(context.chars().count().saturating_sub(120)).collect();
            prop_assert!(context.contains(&note), "want {:?}, the context ends …{:?}", note, end);
        }
    }

    /// Quoted project text inside the host's wrapper (issue 48, class 5): an `AGENTS.md` made of
    /// every host's wrapper tags (Claude Code's `<system-reminder>`, Codex's
    /// `<user_instructions>` and `<environment_context>`, Gemini CLI's `<hook_context>`, …) in
    /// every form a parser or a model may take for a tag (closing, opening with attributes,
    /// spaces or a hidden character after `<`, comments, processing instructions), and our own
    /// block headers, mixed with text: no tag opener survives anywhere in the context, and every
    /// header line stays quoted. On Gemini CLI and on Claude Code with a `CLAUDE.md` (the hosts
    /// the hook adds the file for).
    #[test]
    fn quoted_project_text_never_opens_or_closes_a_tag(
        parts in prop::collection::vec((0usize..TAGS.len(), 0usize..TAG_FORMS.len(), 0usize..64), 1..24),
        claude in any::<bool>(),
    ) {
        let mut text = String::from("# Rules\n");
        for (tag, form, filler) in &parts {
            text.push_str(&TAG_FORMS[*form].replace("{t}", TAGS[*tag]));
            text.push_str(&text_of(1 + filler % 7, &[*filler]));
            if filler % 3 == 0 {
                text.push('\n');
            }
        }
        let (host, claude_md) = if claude { (Host::Claude, true) } else { (Host::Gemini, false) };
        let context = session_start_context(host, &text, claude_md);
        prop_assert!(context.contains("Project AGENTS.md ("), "the file is injected: {}", context);
        let chars: Vec<char> = context.chars().collect();
        for (i, c) in chars.iter().enumerate() {
            if *c != '<' {
                continue;
            }
            let next = chars[i + 1..]
                .iter()
                .find(|n| !n.is_whitespace() || **n == '\n')
                .copied();
            prop_assert!(
                !next.is_some_and(|n| n.is_ascii_alphabetic() || "/!?".contains(n) || sophia_hook::charset::is_hidden(n)),
                "a tag opener survives at {}: {:?}",
                i,
                chars[i..chars.len().min(i + 30)].iter().collect::<String>()
            );
        }
        let doc_start = context.find("Project AGENTS.md (").unwrap();
        for line in context[doc_start..].lines().skip(1) {
            if line.starts_with("[AGENTS.md truncated") || line.is_empty() {
                break;
            }
            prop_assert!(line.starts_with('>'), "an unquoted line of the file: {:?}", line);
        }
    }

    /// The host cap: any hint blocks (multi-byte), on every host and event; the context is the
    /// joined blocks when they fit in 10,000 UTF-16 code units, else their longest beginning
    /// that does (a character of two units is never split).
    #[test]
    fn additional_context_is_capped_at_ten_thousand_utf16_units(
        blocks in prop::collection::vec((0usize..7_000, prop::collection::vec(0usize..64, 1..20)), 1..=2),
        host in prop::sample::select(Host::ALL.to_vec()),
    ) {
        let hints: Vec<String> = blocks.iter().map(|(n, seed)| text_of(*n + 1, seed)).collect();
        let joined = hints.join("\n\n");
        let context = render::context(host, &hints).expect("hints make a context");
        let mut want = String::new();
        let mut units = 0;
        for c in joined.chars() {
            units += c.encode_utf16(&mut [0; 2]).len();
            if units > HOST_CAP {
                break;
            }
            want.push(c);
        }
        prop_assert!(context.encode_utf16().count() <= HOST_CAP);
        prop_assert_eq!(context, want);
    }

    /// Any number of leading `<hook_context>` blocks (text, line breaks, escaped tags inside),
    /// before any user text, which may itself hold such blocks anywhere but at its very start.
    #[test]
    fn leading_hook_context_blocks_are_removed_and_nothing_else(
        blocks in prop::collection::vec(
            prop::collection::vec(prop::sample::select(&[
                "Sophia", "bootstrap", "\n", " ", "&lt;hook_context&gt;", "&lt;/hook_context&gt;",
                "è", "🙂", "", "\n\n",
            ][..]), 0..8),
            0..5,
        ),
        user in prop::collection::vec(prop::sample::select(&[
            "!quick", "spiegami", "SQL", " ", "\n", "\n\n", "<hook_context>", "</hook_context>",
            "<hook_context>x</hook_context>\n\n", "è", "🙂",
        ][..]), 0..10),
    ) {
        let user: String = user.concat();
        // The user's text is what follows the blocks: it must not itself open with a block.
        prop_assume!(!user.starts_with("<hook_context>"));
        let mut prompt = String::new();
        for inner in &blocks {
            prompt.push_str("<hook_context>");
            prompt.push_str(&inner.concat());
            prompt.push_str("</hook_context>\n\n");
        }
        prompt.push_str(&user);
        prop_assert_eq!(strip_leading_hook_context(&prompt), user.as_str());
        prop_assert_eq!(Host::Gemini.user_text(&prompt), user.as_str());
        // The other hosts never strip.
        for host in [Host::Codex, Host::Claude, Host::Antigravity] {
            prop_assert_eq!(host.user_text(&prompt), prompt.as_str());
        }
    }

    /// A block that is not closed, or not followed by a blank line, ends the stripping there.
    #[test]
    fn a_malformed_block_is_left_in_place(
        good in 0usize..4,
        bad in prop::sample::select(&[
            "<hook_context>never closed",
            "<hook_context>x</hook_context>\nno blank line",
            "<hook_context>x</hook_context> and text",
            "<hook_context>x</hook_context>",
            "<HOOK_CONTEXT>x</HOOK_CONTEXT>\n\n",
            " <hook_context>x</hook_context>\n\n",
        ][..]),
        tail in prop::sample::select(&["", "!quick spiegami", "\n</hook_context>"][..]),
    ) {
        let prompt = format!("{}{bad}{tail}", "<hook_context>a</hook_context>\n\n".repeat(good));
        let want = format!("{bad}{tail}");
        prop_assert_eq!(strip_leading_hook_context(&prompt), want.as_str());
    }
}

/// Through the whole hook on Gemini CLI: the hotword after the blocks is the user's first word.
#[test]
fn a_hotword_after_hook_context_blocks_counts_on_gemini() {
    for n in 0..4 {
        let prompt = format!(
            "{}!quick spiegami SQL e poi </hook_context>\n\nfine",
            "<hook_context>Sophia bootstrap &lt;/hook_context&gt;</hook_context>\n\n".repeat(n)
        );
        let payload = serde_json::json!({
            "hook_event_name": "BeforeAgent",
            "prompt": prompt,
            "session_id": "s",
        });
        let run = common::run_in_process(
            &["explain", "--host", "gemini"],
            payload.to_string().as_bytes(),
        );
        assert_eq!(run.code, 0, "{}", run.stderr);
        let v: Value = serde_json::from_str(&run.stdout).unwrap();
        assert_eq!(
            v["routing"]["detectedHotwords"],
            serde_json::json!(["!quick"]),
            "{n} blocks"
        );
        assert_eq!(v["routing"]["contextMode"], "light");
        assert_eq!(
            v["routing"]["strippedPrompt"],
            "spiegami SQL e poi </hook_context>\n\nfine"
        );
    }
}

/// The routing-control block of docs/routing.md ("Hints and output") for every combination of
/// leading hotwords × context outcome × delegation request × subagent origin: present exactly
/// when a hotword or a delegation request is present, its first line names both modes and
/// reasons, and it carries the sentence each mode needs; never the user's text.
#[test]
fn the_routing_block_says_what_each_mode_needs() {
    use sophia_hook::stages::context::ContextMode;
    use sophia_hook::stages::routing;
    use sophia_hook::stages::subagent::SubagentMode;
    let leads = ["", "!quick ", "!agents ", "!quick !agents "];
    let bodies = [
        "spiegami la query lenta",
        "correggi il bug in src/main.rs",
        "usa un subagent per leggere i log",
        "non usare un subagent per leggere i log",
    ];
    for lead in leads {
        for body in bodies {
            for from_subagent in [false, true] {
                let prompt = format!("{lead}{body}");
                let r = routing::route(&prompt, from_subagent);
                let block = render::routing_block(&r);
                let expected_present =
                    !r.detected_hotwords.is_empty() || r.subagent_mode != SubagentMode::Off;
                assert_eq!(
                    block.is_some(),
                    expected_present,
                    "{prompt:?} {from_subagent}"
                );
                let Some(block) = block else { continue };
                let head = format!(
                    "Sophia routing control: contextMode={} reason={} subagentMode={} reason={}.",
                    r.context_mode.as_str(),
                    r.context_reason(),
                    r.subagent_mode.as_str(),
                    r.subagent_reason()
                );
                assert!(block.starts_with(&head), "{prompt:?}: {block}");
                assert!(block.contains("not a new request"), "{block}");
                let guardrails =
                    block.contains("Core rules, safety, policy and tool guardrails remain active");
                match (r.context_mode, r.context_reason()) {
                    (ContextMode::Light, _) => {
                        assert!(guardrails && block.contains("avoid heavy"), "{block}")
                    }
                    (ContextMode::Full, "repo-task-detected-overrides:!quick") => {
                        assert!(guardrails && block.contains("Full context"), "{block}")
                    }
                    _ => {}
                }
                let delegation_rules = block.contains("token/cost efficiency, not parallelism")
                    && block.contains("the final patch or the final answer");
                match r.subagent_mode {
                    SubagentMode::Required => {
                        assert!(
                            delegation_rules && block.contains("at least one"),
                            "{block}"
                        )
                    }
                    SubagentMode::Requested => {
                        assert!(
                            delegation_rules && !block.contains("at least one"),
                            "{block}"
                        )
                    }
                    SubagentMode::Off => assert!(!delegation_rules, "{block}"),
                }
                // Never echoes the prompt.
                assert!(!block.contains(body), "{block}");
            }
        }
    }
}

/// The delegation mechanism of docs/agents/README.md ("Hint and output") for every host × role
/// configured there or not × write policy × routing role, with and without a skill: a role is
/// named as a spawnable type only when configured for the host; otherwise the host's built-in
/// delegation (Claude Code: `Explore` for a read-only discovery or analysis role, else
/// `general-purpose`; Gemini CLI: `codebase_investigator` for a read-only role, else
/// `generalist`), with the fixed brief of its write policy; "naming the skill" only with a skill.
#[test]
fn the_delegation_line_follows_the_host_table() {
    use sophia_hook::stages::agents::{AgentRouting, Recommendation};
    use sophia_hook::stages::skills::SkillRouting;
    use sophia_hook::stages::subagent::SubagentMode;
    for host in Host::ALL {
        for configured in [true, false] {
            for read_only in [true, false] {
                for role in ["discovery", "analysis", "implementation", "review", "test"] {
                    for skill in [None, Some("mcp-database-expert")] {
                        let rec = Recommendation {
                            agent_id: "some_role".into(),
                            skill_id: skill.map(str::to_owned),
                            availability: if configured { "configured" } else { "unknown" }.into(),
                            write_policy: if read_only {
                                "read-only"
                            } else {
                                "workspace-write"
                            }
                            .into(),
                            reason_codes: vec!["analysis-task".into()],
                            routing_role: role.into(),
                        };
                        let mut agents = AgentRouting::empty(SubagentMode::Requested);
                        agents.recommended_agents.push(rec);
                        let block =
                            render::specialist_block(host, &SkillRouting::default(), &agents)
                                .expect("a recommendation is rendered");
                        let case = format!(
                            "{host:?} configured={configured} read_only={read_only} {role} {skill:?}"
                        );
                        let line = block
                            .lines()
                            .find(|l| l.starts_with("Sophia agent routing: agent=some_role"))
                            .unwrap_or_else(|| panic!("{case}: {block}"));
                        let spawnable = match host {
                            Host::Codex => "spawn_agent with agent_type=\"some_role\"",
                            Host::Claude => {
                                "Agent tool (Task in older versions) with subagent_type=\"some_role\""
                            }
                            Host::Gemini => "invoke_agent with agent_name=\"some_role\"",
                            Host::Antigravity => "naming \"some_role\"",
                            Host::Copilot => "task tool with agent_type=\"some_role\"",
                        };
                        assert_eq!(line.contains(spawnable), configured, "{case}: {line}");
                        if !configured {
                            let builtin = match host {
                                Host::Codex => "spawn_agent without agent_type".to_owned(),
                                Host::Claude => format!(
                                    "subagent_type=\"{}\"",
                                    if read_only && matches!(role, "discovery" | "analysis") {
                                        "Explore"
                                    } else {
                                        "general-purpose"
                                    }
                                ),
                                Host::Gemini => format!(
                                    "agent_name=\"{}\"",
                                    if read_only {
                                        "codebase_investigator"
                                    } else {
                                        "generalist"
                                    }
                                ),
                                Host::Antigravity => "own subagent mechanism".to_owned(),
                                // The built-ins the CLI's task tool offers (observed 1.0.102).
                                Host::Copilot => format!(
                                    "task tool with agent_type=\"{}\"",
                                    if read_only {
                                        "explore"
                                    } else {
                                        "general-purpose"
                                    }
                                ),
                            };
                            assert!(line.contains(&builtin), "{case}: {line}");
                            let brief = if read_only {
                                "read-only: report findings with their locations, no edits"
                            } else {
                                "bounded write: change only what it is given, report the diff"
                            };
                            assert!(line.contains(brief), "{case}: {line}");
                        }
                        assert_eq!(
                            line.contains("naming the skill mcp-database-expert in the task"),
                            skill.is_some(),
                            "{case}: {line}"
                        );
                        assert!(line.contains(&format!("skill={}", skill.unwrap_or("none"))));
                        assert!(block.contains("reviews the child's result"), "{case}");
                    }
                }
            }
        }
    }
}

/// The carry-forward line per status (docs/agents/README.md table), with one and two agents:
/// `applied` pairs each agent with its own skill, `scope-changed` asks to re-evaluate,
/// `agent-unavailable` names the unavailable ones.
#[test]
fn the_carry_forward_line_follows_its_status() {
    use sophia_hook::stages::agents::{AgentRouting, CarryForward, CarryForwardStatus};
    use sophia_hook::stages::skills::SkillRouting;
    use sophia_hook::stages::subagent::SubagentMode;
    let plans: [(&[&str], &[Option<&str>]); 2] = [
        (&["scout"], &[Some("mcp-docs-navigator")]),
        (
            &["technical_analyst", "implementer"],
            &[Some("mcp-technical-analyst"), None],
        ),
    ];
    for (ids, skills) in plans {
        for status in [
            CarryForwardStatus::Applied,
            CarryForwardStatus::ScopeChanged,
            CarryForwardStatus::AgentUnavailable,
        ] {
            let (agents, unavailable): (Vec<String>, Vec<String>) = match status {
                CarryForwardStatus::AgentUnavailable => {
                    (vec![], ids.iter().map(|s| s.to_string()).collect())
                }
                _ => (ids.iter().map(|s| s.to_string()).collect(), vec![]),
            };
            let mut routing = AgentRouting::empty(SubagentMode::Off);
            routing.carry_forward = Some(CarryForward {
                status,
                agents: agents.clone(),
                skills: if agents.is_empty() {
                    vec![]
                } else {
                    skills.iter().map(|s| s.map(str::to_owned)).collect()
                },
                reason_codes: vec![],
                unavailable: unavailable.clone(),
            });
            let block = render::specialist_block(Host::Codex, &SkillRouting::default(), &routing)
                .expect("a carry-forward is rendered");
            match status {
                CarryForwardStatus::Applied => {
                    let pairs: Vec<String> = ids
                        .iter()
                        .zip(skills)
                        .map(|(a, s)| format!("agent={a} skill={}", s.unwrap_or("none")))
                        .collect();
                    assert!(
                        block.contains(&format!(
                            "Planned delegation carried forward: {}.",
                            pairs.join("; ")
                        )),
                        "{block}"
                    );
                    assert!(block.contains("apply it now"), "{block}");
                }
                CarryForwardStatus::ScopeChanged => {
                    assert!(
                        block.contains(&format!("agent={}", ids.join(","))),
                        "{block}"
                    );
                    assert!(block.contains("re-evaluate"), "{block}");
                    assert!(!block.contains("apply it now"), "{block}");
                }
                CarryForwardStatus::AgentUnavailable => {
                    assert!(block.contains(&ids.join(",")), "{block}");
                    assert!(block.contains("unavailable now"), "{block}");
                    assert!(!block.contains("apply it now"), "{block}");
                }
            }
        }
    }
}
