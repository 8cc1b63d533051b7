//! The hotword rules of docs/architecture.md §2 and docs/routing.md ("Hotwords"), stated once and
//! checked over generated prompts: any sequence of leading hotword tokens (repeated, mixed case,
//! `!` or any prefix the project configuration accepts, separated by any Unicode whitespace),
//! then any text.
//!
//! The rule, from the spec, not from the parser:
//! - the leading whitespace-separated tokens that are hotwords count, in any number and order,
//!   case-insensitive; parsing stops at the first other token;
//! - `detectedHotwords` lists each recognised hotword once, in order of first appearance;
//! - `strippedPrompt` is the prompt after the hotwords and the whitespace that follows them,
//!   verbatim (always a suffix of the prompt); the whole prompt when there is none;
//! - a hotword later in the prompt does not count and warns `hotword-not-at-start:<hotword>`.
//!
//! Planted bug this catches: the parse loop reading at most two leading tokens
//! (`!quick !quick !agents …` loses `!agents`).
// Tests and benches set up and read their files directly; the door (clippy.toml) is for the crate.
#![allow(clippy::disallowed_methods)]

use proptest::prelude::*;

use sophia_hook::config::ProjectConfig;
use sophia_hook::stages::context::ContextMode;
use sophia_hook::stages::hotword::{self, Hotword};
use sophia_hook::stages::routing;
use sophia_hook::stages::subagent::SubagentMode;

/// The two hotwords by their words (the spec's list, not the parser's).
const WORDS: [(&str, Hotword); 2] = [("quick", Hotword::Quick), ("agents", Hotword::Agents)];

/// Unicode whitespace the spec allows between and before the tokens.
const SPACES: &[&str] = &[
    " ", "  ", "\t", "\n", "\r\n", " \n\t", "\u{a0}", "\u{2003}", "\u{3000}",
];

/// Plain words (no `!`, no punctuation, never a hotword in any spelling): what follows.
const PLAIN: &[&str] = &[
    "spiegami", "la", "query", "SQL", "quick", "agents", "explain", "this", "log", "è", "日本",
    "🙂", "Quickly", "agenti", "what", "is", "a", "monad",
];

/// A prefix the configuration accepts: generated from ASCII punctuation and kept only when
/// `ProjectConfig::parse` (the type that validates `hotword_prefix`) accepts it.
fn configured_prefix() -> impl Strategy<Value = Option<String>> {
    let punct: Vec<char> = (0x21u8..0x7f)
        .map(char::from)
        .filter(char::is_ascii_punctuation)
        .collect();
    prop_oneof![
        1 => Just(None),
        4 => prop::collection::vec(prop::sample::select(punct), 1..=3)
            .prop_map(|cs| cs.into_iter().collect::<String>())
            .prop_filter_map("the configuration refuses this prefix", |p| {
                let yaml = format!("hotword_prefix: '{}'\n", p.replace('\'', "''"));
                let config = ProjectConfig::parse(&yaml).ok()?;
                assert_eq!(
                    config.hotword_prefix.as_ref().and_then(|h| h.as_deref()),
                    Some(p.as_str())
                );
                Some(Some(p))
            }),
    ]
}

/// Every ASCII case variant of `word`, chosen by `mask`.
fn cased(word: &str, mask: u32) -> String {
    word.chars()
        .enumerate()
        .map(|(i, c)| {
            if mask >> (i % 32) & 1 == 1 {
                c.to_ascii_uppercase()
            } else {
                c
            }
        })
        .collect()
}

/// One leading hotword token: (which word, case mask, use the configured prefix instead of `!`).
type Lead = (usize, u32, bool);

fn leads() -> impl Strategy<Value = Vec<(Lead, usize)>> {
    prop::collection::vec(
        ((0..2usize, any::<u32>(), any::<bool>()), 0..SPACES.len()),
        0..7,
    )
}

fn spell((word, mask, with_prefix): Lead, prefix: Option<&str>) -> String {
    let body = cased(WORDS[word].0, mask);
    match (with_prefix, prefix) {
        (true, Some(p)) => format!("{p}{body}"),
        _ => format!("!{body}"),
    }
}

/// The expected detected set: each hotword once, in order of first appearance.
fn expected_detected(leads: &[(Lead, usize)]) -> Vec<Hotword> {
    let mut out = Vec::new();
    for ((word, _, _), _) in leads {
        if !out.contains(&WORDS[*word].1) {
            out.push(WORDS[*word].1);
        }
    }
    out
}

/// Fixed seed, no persistence file: the same cases on every run.
fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        failure_persistence: None,
        rng_seed: proptest::test_runner::RngSeed::Fixed(20),
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config(256))]

    /// Any run of leading hotword tokens before any plain text: detected set, stripped text and
    /// warnings follow the spec, through the parser and through the router.
    #[test]
    fn any_run_of_leading_hotwords_is_detected_and_stripped(
        prefix in configured_prefix(),
        lead_space in prop::option::of(0..SPACES.len()),
        leads in leads(),
        rest in prop::collection::vec((prop::sample::select(PLAIN), 0..SPACES.len()), 0..6),
        trailing in prop::option::of(0..SPACES.len()),
    ) {
        let mut prompt = lead_space.map_or(String::new(), |s| SPACES[s].to_owned());
        for (lead, space) in &leads {
            prompt.push_str(&spell(*lead, prefix.as_deref()));
            prompt.push_str(SPACES[*space]);
        }
        // The rest starts at a non-space word; its inner spacing must survive verbatim.
        let mut rest_text = String::new();
        for (i, (word, space)) in rest.iter().enumerate() {
            if i > 0 {
                rest_text.push_str(SPACES[*space]);
            }
            rest_text.push_str(word);
        }
        if let Some(t) = trailing {
            rest_text.push_str(SPACES[t]);
        }
        prompt.push_str(&rest_text);

        let detected = expected_detected(&leads);
        let stripped: &str = if detected.is_empty() {
            &prompt
        } else if rest.is_empty() {
            ""
        } else {
            &rest_text
        };

        let got = hotword::parse_with_prefix(&prompt, prefix.as_deref());
        prop_assert_eq!(&got.detected, &detected, "prompt {:?} prefix {:?}", prompt, prefix);
        prop_assert_eq!(got.stripped, stripped, "prompt {:?}", prompt);
        prop_assert!(prompt.ends_with(got.stripped));
        prop_assert!(got.warnings.is_empty(), "plain words warn nothing: {:?}", got.warnings);

        let r = routing::route_with_prefix(&prompt, false, prefix.as_deref());
        prop_assert_eq!(&r.detected_hotwords, &detected);
        prop_assert_eq!(r.stripped_prompt.as_str(), stripped);
        // With only plain words after them: `!quick` gives light, `!agents` required.
        let quick = detected.contains(&Hotword::Quick);
        let agents = detected.contains(&Hotword::Agents);
        prop_assert_eq!(r.context_mode, if quick { ContextMode::Light } else { ContextMode::Full });
        prop_assert_eq!(
            r.subagent_mode,
            if agents { SubagentMode::Required } else { SubagentMode::Off }
        );
    }

    /// A token that is not a hotword stops the parse: hotwords after it are not detected, are
    /// left in the text, and warn `hotword-not-at-start`.
    #[test]
    fn a_hotword_after_any_other_token_does_not_count(
        prefix in configured_prefix(),
        before in prop::collection::vec(((0..2usize, any::<u32>(), any::<bool>()), 0..SPACES.len()), 0..4),
        stopper in prop::sample::select(&[
            "ciao", "`!quick`", "!quickly", "!quick,", "quick", "!agentsx", "\"!agents\"", "!",
            "!!quick", "!direct", "!noagents",
        ][..]),
        late in ((0..2usize, any::<u32>(), any::<bool>()), 0..SPACES.len()),
        tail in prop::sample::select(PLAIN),
    ) {
        let mut prompt = String::new();
        for (lead, space) in &before {
            prompt.push_str(&spell(*lead, prefix.as_deref()));
            prompt.push_str(SPACES[*space]);
        }
        let rest = format!(
            "{stopper} {}{}{tail}",
            spell(late.0, prefix.as_deref()),
            SPACES[late.1]
        );
        prompt.push_str(&rest);
        let detected = expected_detected(&before);
        let got = hotword::parse_with_prefix(&prompt, prefix.as_deref());
        prop_assert_eq!(&got.detected, &detected, "prompt {:?}", prompt);
        let stripped: &str = if detected.is_empty() { &prompt } else { &rest };
        prop_assert_eq!(got.stripped, stripped);
        let late_word = WORDS[late.0 .0].1;
        let code = format!("hotword-not-at-start:{}", late_word.as_str());
        prop_assert!(
            got.warnings.contains(&code),
            "{:?} should warn {}: {:?}", prompt, code, got.warnings
        );
    }
}

/// The `!word`s that do not exist: after any leading hotwords they stop the parse, stay in the
/// text, and warn once each: the well-known ones by name (lowercased), any other anonymously.
#[test]
fn unsupported_bang_words_warn_and_disable_nothing() {
    let known = ["!direct", "!noagents", "!bypass", "!nohooks"];
    let others = ["!quickly", "!agent", "!skip", "!no-hooks", "!x2"];
    for lead in ["", "!quick ", "!agents ", "!QUICK !agents "] {
        for word in known.iter().chain(&others) {
            for case in [word.to_string(), word.to_ascii_uppercase()] {
                let prompt = format!("{lead}{case} {case} spiegami SQL");
                let got = hotword::parse(&prompt);
                let code = if known.contains(word) {
                    format!("unsupported-hotword:{word}")
                } else {
                    "unsupported-hotword".to_owned()
                };
                assert_eq!(got.warnings, [code], "{prompt:?}");
                let rest = format!("{case} {case} spiegami SQL");
                let stripped = if lead.is_empty() {
                    prompt.as_str()
                } else {
                    rest.as_str()
                };
                assert_eq!(got.stripped, stripped, "{prompt:?}");
                let r = routing::route(&prompt, false);
                let quick = lead.to_ascii_lowercase().contains("!quick");
                let agents = lead.contains("!agents");
                // Nothing is disabled: the leading hotwords still decide the modes.
                assert_eq!(r.context_mode == ContextMode::Light, quick, "{prompt:?}");
                assert_eq!(
                    r.subagent_mode == SubagentMode::Required,
                    agents,
                    "{prompt:?}"
                );
            }
        }
    }
}

/// The exact case of the issue, through the router: three leading tokens, the third new.
#[test]
fn three_leading_tokens_keep_the_third() {
    let r = routing::route("!quick !quick !agents spiegami SQL", false);
    assert_eq!(r.detected_hotwords, [Hotword::Quick, Hotword::Agents]);
    assert_eq!(r.stripped_prompt, "spiegami SQL");
    assert_eq!(r.subagent_mode, SubagentMode::Required);
}

/// The accepted-prefix rule of docs/routing.md ("Hotwords"), stated here from the spec: 1–3
/// ASCII punctuation characters, no backtick, not starting with `!`, `?` or `/`.
fn spec_accepts(prefix: &str) -> bool {
    (1..=3).contains(&prefix.chars().count())
        && prefix.chars().all(|c| c.is_ascii_punctuation() && c != '`')
        && !prefix.starts_with(['!', '?', '/'])
}

/// Every prefix of 1–3 characters over ASCII punctuation (and a few others, at every length up to
/// four): the configuration accepts exactly the spec's set, and for every accepted one the
/// parser, the SessionStart bootstrap of every host and the advice `install` and `doctor` print
/// all name it — one accepted set, no reader filtering again. Audit finding: the bootstrap kept
/// its own length rule and dropped a valid `+++`.
#[test]
fn every_accepted_prefix_is_parsed_and_named_by_the_bootstrap_and_the_advice() {
    use sophia_hook::config::HotwordPrefix;
    use sophia_hook::hosts::Host;
    let mut alphabet: Vec<char> = (0u8..128)
        .map(char::from)
        .filter(char::is_ascii_punctuation)
        .collect();
    assert_eq!(alphabet.len(), 32);
    alphabet.extend(['a', ' ', '\n', '«', '\u{202e}']);
    let mut prefixes: Vec<String> = Vec::new();
    for a in &alphabet {
        prefixes.push(a.to_string());
        for b in &alphabet {
            prefixes.push(format!("{a}{b}"));
            for c in &alphabet {
                prefixes.push(format!("{a}{b}{c}"));
            }
        }
    }
    prefixes.extend(["++++", "+;+;", ";;;;"].map(str::to_owned));
    let mut accepted = 0;
    for p in &prefixes {
        let yaml = format!("hotword_prefix: '{}'\n", p.replace('\'', "''"));
        let parsed = ProjectConfig::parse(&yaml);
        assert_eq!(
            parsed.is_ok(),
            spec_accepts(p),
            "{p:?}: {:?}",
            parsed.as_ref().err()
        );
        assert_eq!(HotwordPrefix::text(p).is_ok(), spec_accepts(p), "{p:?}");
        let Ok(config) = parsed else { continue };
        let prefix = config.hotword_prefix.unwrap();
        assert_eq!(prefix.as_deref(), Some(p.as_str()));
        accepted += 1;
        let typed = format!("{p}quick {p}agents riassumi");
        let got = hotword::parse_with_prefix(&typed, Some(p));
        assert_eq!(got.detected, [Hotword::Quick, Hotword::Agents], "{p:?}");
        assert_eq!(got.stripped, "riassumi", "{p:?}");
        for host in Host::ALL {
            let boot = sophia_hook::stages::render::bootstrap(host, &prefix);
            assert!(
                boot.contains(&format!("`{p}quick` and `{p}agents` are the same hotwords")),
                "{host:?} {p:?}: {boot}"
            );
            let advice = hotword::where_to_type(host, &prefix);
            assert!(
                advice.contains(&format!("`{p}quick` / `{p}agents`")),
                "{host:?} {p:?}: {advice}"
            );
            if host.spec().tui.is_some() {
                assert!(
                    boot.contains(&format!("the user types `{p}quick` / `{p}agents` there")),
                    "{host:?} {p:?}"
                );
            }
        }
    }
    // 32 + 32² + 32³ strings over punctuation, less those with a backtick or a refused start.
    let spec_count = prefixes.iter().filter(|p| spec_accepts(p)).count();
    assert_eq!(accepted, spec_count);
    assert!(accepted > 25_000, "{accepted}");
}
