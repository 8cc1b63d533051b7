//! The hotword parser: finds the leading `!quick` / `!agents` tokens of a prompt and the text
//! that follows them.
//!
//! Rules (docs/architecture.md): only the leading whitespace-separated tokens count, leading
//! whitespace is allowed, matching is case-insensitive, the two hotwords combine in any order and
//! parsing stops at the first token that is not a hotword. Any other `!word` is data: it is not
//! stripped, disables nothing, and is reported as a warning. Pure: no I/O.

use serde::Serialize;

/// The two hotwords that exist.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub enum Hotword {
    #[serde(rename = "!quick")]
    Quick,
    #[serde(rename = "!agents")]
    Agents,
}

impl Hotword {
    pub const ALL: [Hotword; 2] = [Hotword::Quick, Hotword::Agents];

    pub fn as_str(self) -> &'static str {
        match self {
            Hotword::Quick => "!quick",
            Hotword::Agents => "!agents",
        }
    }

    fn from_token(token: &str, extra_prefix: Option<&str>) -> Option<Hotword> {
        Hotword::ALL.into_iter().find(|h| {
            token.eq_ignore_ascii_case(h.as_str())
                || extra_prefix.is_some_and(|p| {
                    token
                        .strip_prefix(p)
                        .is_some_and(|rest| rest.eq_ignore_ascii_case(&h.as_str()[1..]))
                })
        })
    }
}

/// `!word`s that users try and that deliberately do not exist; named in the warning so the user
/// learns that nothing was disabled.
const KNOWN_UNSUPPORTED: [&str; 4] = ["!direct", "!noagents", "!bypass", "!nohooks"];

/// The result of parsing the start of a prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HotwordParse<'a> {
    /// Recognised hotwords in the order they first appear, without duplicates.
    pub detected: Vec<Hotword>,
    /// The prompt after the hotwords and the whitespace that follows them; the whole prompt,
    /// verbatim, when there is no hotword. Always a suffix of the input.
    pub stripped: &'a str,
    /// Warning codes, e.g. `unsupported-hotword:!direct`, `hotword-not-at-start:!quick`.
    pub warnings: Vec<String>,
}

impl HotwordParse<'_> {
    pub fn has(&self, hotword: Hotword) -> bool {
        self.detected.contains(&hotword)
    }
}

/// Parses the leading hotwords of `prompt`.
pub fn parse(prompt: &str) -> HotwordParse<'_> {
    parse_with_prefix(prompt, None)
}

/// Parses the leading hotwords, also accepting `extra_prefix` in place of `!` (`;quick` with
/// `;`), for hosts whose TUI runs a message that starts with `!` as a shell command.
pub fn parse_with_prefix<'a>(prompt: &'a str, extra_prefix: Option<&str>) -> HotwordParse<'a> {
    let mut detected = Vec::new();
    let mut warnings = Vec::new();
    let mut rest_start = 0;
    let mut tokens = Tokens::new(prompt);
    let mut first_other = None;
    for (start, token) in tokens.by_ref() {
        match Hotword::from_token(token, extra_prefix) {
            Some(h) => {
                if !detected.contains(&h) {
                    detected.push(h);
                }
            }
            None => {
                first_other = Some((start, token));
                break;
            }
        }
        rest_start = start + token.len();
    }
    let stripped = match (detected.is_empty(), first_other) {
        (true, _) => prompt,
        (false, Some((start, _))) => &prompt[start..],
        (false, None) => prompt[rest_start..].trim_start(),
    };
    // Consecutive `!word`s where parsing stopped are unsupported hotwords (looked for within
    // the routing window only, each warning once: a prompt of millions of `!a` stays cheap).
    let window_end = crate::text::routing_window(prompt).len();
    let leading_bang = first_other
        .into_iter()
        .chain(tokens.by_ref())
        .take_while(|(start, t)| *start < window_end && is_bang_word(t));
    for (_, token) in leading_bang {
        let code = unsupported_warning(token);
        if !warnings.contains(&code) {
            warnings.push(code);
        }
    }
    // Hotwords later in the prompt are not hotwords; say so (within the routing window).
    for (_, token) in Tokens::new(crate::text::routing_window(stripped)) {
        if let Some(h) = Hotword::from_token(token, extra_prefix) {
            let code = format!("hotword-not-at-start:{}", h.as_str());
            if !warnings.contains(&code) {
                warnings.push(code);
            }
        }
    }
    HotwordParse {
        detected,
        stripped,
        warnings,
    }
}

/// For the user (`install`'s closing message, `doctor`): which hotword prefix to type where on
/// this host, given the effective second prefix (`None`: switched off).
pub fn where_to_type(host: crate::hosts::Host, prefix: &crate::config::HotwordPrefix) -> String {
    let prefix = prefix.as_deref();
    let Some(tui) = &host.spec().tui else {
        return match prefix {
            Some(p) => format!("hotwords: `!quick` / `!agents`, or `{p}quick` / `{p}agents`"),
            None => "hotwords: `!quick` / `!agents`".to_owned(),
        };
    };
    let (tui, bang, plain, space) = (tui.name, tui.bang_for_user, tui.plain, tui.space_escapes);
    let typed = match prefix {
        Some(p) => format!("type `{p}quick` / `{p}agents`"),
        None if space => {
            "type a space first (` !quick …`; hotword_prefix is switched off)".to_owned()
        }
        None => "hotwords cannot be typed (hotword_prefix is switched off: set one, e.g. `+`)"
            .to_owned(),
    };
    format!(
        "hotwords: in {tui} {typed} — a message that starts with `!` {bang}; `!quick` / `!agents` work in {plain}"
    )
}

fn is_bang_word(token: &str) -> bool {
    let mut chars = token.chars();
    chars.next() == Some('!')
        && chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// Names only the well-known unsupported words; anything else the user typed stays anonymous so
/// a warning never carries arbitrary prompt text.
fn unsupported_warning(token: &str) -> String {
    let lower = token.to_ascii_lowercase();
    match KNOWN_UNSUPPORTED.iter().find(|k| **k == lower) {
        Some(known) => format!("unsupported-hotword:{known}"),
        None => "unsupported-hotword".to_string(),
    }
}

/// Whitespace-separated tokens with their byte offsets.
struct Tokens<'a> {
    text: &'a str,
    pos: usize,
}

impl<'a> Tokens<'a> {
    fn new(text: &'a str) -> Self {
        Tokens { text, pos: 0 }
    }
}

impl<'a> Iterator for Tokens<'a> {
    type Item = (usize, &'a str);

    fn next(&mut self) -> Option<Self::Item> {
        let rest = &self.text[self.pos..];
        let skip = rest.len() - rest.trim_start().len();
        let start = self.pos + skip;
        let rest = &self.text[start..];
        if rest.is_empty() {
            self.pos = self.text.len();
            return None;
        }
        let len = rest.find(char::is_whitespace).unwrap_or(rest.len());
        self.pos = start + len;
        Some((start, &rest[..len]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Hotword::{Agents, Quick};

    #[test]
    fn bang_words() {
        for (token, expected) in [
            ("!quick", true),
            ("!no_hooks", true),
            ("!no-hooks", true),
            ("!x2", true),
            ("!no.hooks", false),
            ("!2x", false),
            ("!", false),
            ("quick", false),
            ("!quick!", false),
        ] {
            assert_eq!(is_bang_word(token), expected, "{token}");
        }
    }

    #[test]
    fn parser_table() {
        // (prompt, detected, stripped, warnings)
        let table: &[(&str, &[Hotword], &str, &[&str])] = &[
            ("!quick spiegami SQL", &[Quick], "spiegami SQL", &[]),
            (
                "!agents analizza questi log",
                &[Agents],
                "analizza questi log",
                &[],
            ),
            (
                "!quick !agents sintetizza questi log",
                &[Quick, Agents],
                "sintetizza questi log",
                &[],
            ),
            ("!agents !quick x", &[Agents, Quick], "x", &[]),
            (
                "ciao !quick spiegami",
                &[],
                "ciao !quick spiegami",
                &["hotword-not-at-start:!quick"],
            ),
            ("!QUICK Spiegami", &[Quick], "Spiegami", &[]),
            ("!Agents x", &[Agents], "x", &[]),
            ("   \t\n !quick  spiegami", &[Quick], "spiegami", &[]),
            (
                "!quickly spiegami",
                &[],
                "!quickly spiegami",
                &["unsupported-hotword"],
            ),
            ("`!quick` spiegami", &[], "`!quick` spiegami", &[]),
            ("!quick", &[Quick], "", &[]),
            ("!quick   ", &[Quick], "", &[]),
            ("!quick !quick x", &[Quick], "x", &[]),
            ("!quick, x", &[], "!quick, x", &[]),
            ("spiegami questa SQL", &[], "spiegami questa SQL", &[]),
            ("", &[], "", &[]),
        ];
        for (prompt, detected, stripped, warnings) in table {
            let got = parse(prompt);
            assert_eq!(got.detected, *detected, "detected for {prompt:?}");
            assert_eq!(got.stripped, *stripped, "stripped for {prompt:?}");
            assert_eq!(got.warnings, *warnings, "warnings for {prompt:?}");
        }
    }

    #[test]
    fn unsupported_words_are_looked_for_in_the_routing_window_only() {
        let prompt = "!a ".repeat(16 * 1024 * 1024 / 3);
        let got = parse(&prompt);
        assert_eq!(got.warnings, ["unsupported-hotword"]);
        let late = format!("{}!direct", "!a ".repeat(crate::text::ROUTING_WINDOW_BYTES));
        assert_eq!(parse(&late).warnings, ["unsupported-hotword"]);
    }

    #[test]
    fn unsupported_words_are_not_stripped_and_warned() {
        for word in ["!direct", "!noagents", "!bypass", "!nohooks"] {
            let prompt = format!("{word} fai questo");
            let got = parse(&prompt);
            assert!(got.detected.is_empty(), "{prompt}");
            assert_eq!(got.stripped, prompt);
            assert_eq!(got.warnings, [format!("unsupported-hotword:{word}")]);
        }
        let got = parse("!quick !direct !NoHooks spiegami");
        assert_eq!(got.detected, [Quick]);
        assert_eq!(got.stripped, "!direct !NoHooks spiegami");
        assert_eq!(
            got.warnings,
            [
                "unsupported-hotword:!direct",
                "unsupported-hotword:!nohooks"
            ]
        );
    }

    #[test]
    fn an_extra_prefix_is_accepted_only_when_configured() {
        let got = parse_with_prefix("?quick ?AGENTS spiegami", Some("?"));
        assert_eq!(got.detected, [Quick, Agents]);
        assert_eq!(got.stripped, "spiegami");
        assert_eq!(parse_with_prefix("!quick x", Some("?")).detected, [Quick]);
        assert!(parse("?quick x").detected.is_empty());
        assert!(
            parse_with_prefix("?quickly x", Some("?"))
                .detected
                .is_empty()
        );
        assert_eq!(parse_with_prefix("//quick x", Some("//")).detected, [Quick]);
    }

    #[test]
    fn the_default_second_prefix_is_accepted_and_said_where_to_type() {
        let plus = Some(crate::config::DEFAULT_HOTWORD_PREFIX);
        let default = crate::config::HotwordPrefix::default();
        let got = parse_with_prefix("+quick +agents riassumi", plus);
        assert_eq!(got.detected, [Quick, Agents]);
        assert_eq!(got.stripped, "riassumi");
        assert!(parse_with_prefix("+ quick x", plus).detected.is_empty());
        use crate::hosts::Host;
        let codex = where_to_type(Host::Codex, &default);
        assert!(
            codex.contains("in the Codex TUI type `+quick` / `+agents`"),
            "{codex}"
        );
        assert!(codex.contains("`codex exec`"), "{codex}");
        let claude = where_to_type(Host::Claude, &default);
        assert!(
            claude.contains("the Claude Code TUI type `+quick`") && claude.contains("bash mode")
        );
        let gemini = where_to_type(
            Host::Gemini,
            &crate::config::HotwordPrefix::text(";").unwrap(),
        );
        assert!(
            gemini.contains("the Gemini CLI TUI type `;quick` / `;agents`")
                && gemini.contains("`gemini -p`")
        );
        let off = where_to_type(Host::Gemini, &crate::config::HotwordPrefix::Off);
        assert!(
            off.contains("type a space first") && off.contains("switched off"),
            "{off}"
        );
        assert!(where_to_type(Host::Antigravity, &default).contains("`+quick`"));
        assert!(
            !where_to_type(Host::Antigravity, &crate::config::HotwordPrefix::Off).contains('+')
        );
    }

    #[test]
    fn multi_line_remainder_is_verbatim() {
        let prompt = "!quick\n  riga uno\n\n    riga  due\t fine\n";
        let got = parse(prompt);
        assert_eq!(got.detected, [Quick]);
        assert_eq!(got.stripped, "riga uno\n\n    riga  due\t fine\n");
    }

    #[test]
    fn stripped_is_always_a_suffix() {
        for prompt in [
            "!quick a",
            "  !agents\u{a0}b",
            "x",
            "!quick",
            "\u{3000}!quick é",
        ] {
            let got = parse(prompt);
            assert!(prompt.ends_with(got.stripped), "{prompt:?}");
        }
    }

    #[test]
    fn unicode_whitespace_separates_tokens() {
        let got = parse("\u{3000}!quick\u{a0}é");
        assert_eq!(got.detected, [Quick]);
        assert_eq!(got.stripped, "é");
    }
}
