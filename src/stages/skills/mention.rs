//! Explicit skill mentions: the user names the skill, and the router does not overrule them
//! (issue 45, class 4). Pure text work; [`router`](super::router) resolves the names against the
//! catalog (a skill's id, or the folder it lives in: Claude Code keys a skill by its folder).
//!
//! The forms the hosts and their users write (docs/skills.md, "Explicit mentions"):
//! - `$name` anywhere (Codex's mention, also `$plugin:name`);
//! - `/name` as the first word of the prompt (Claude Code's and Copilot CLI's slash form, also
//!   `/plugin:name`);
//! - the word `skill` right before or after the name: `use the pdf skill`, `skill pdf`,
//!   `con la skill pdf`, `skill: pdf`, `` the `pdf` skill ``;
//! - an id of two or more words written as it is spelled, bare or in backticks
//!   (`eas-hosting`, `` `eas-hosting` ``): a single word (`pdf`, `` `Signup` ``) is usually the
//!   user's subject or code, not a skill's name.
//!
//! A name after a negation in its clause (`don't use the pdf skill`, `senza la skill pdf`) is a
//! mention too, negated: the router then never names that skill. Fenced code is not read (pasted
//! text is not an instruction); a name is lower-case letters, digits, `-` and `_`, at least two
//! characters, as a skill id is.

use crate::text::{NEGATIONS, fold, mask_fenced, words};

/// The reason a locked skill shows (`explicit-mention:<id>`).
pub const REASON: &str = "explicit-mention";

/// One skill the prompt names, in the order the prompt names them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mention {
    /// The name as written, lower-cased (a plugin's `plugin:` prefix dropped).
    pub name: String,
    /// Said after a negation in the same clause: the user does not want this skill.
    pub negated: bool,
}

/// Whether the prompt can hold a mention at all: the fast path of every prompt that does not.
pub fn may_mention(prompt: &str) -> bool {
    prompt.contains(['$', '`', '-', '_'])
        || prompt.trim_start().starts_with('/')
        || prompt
            .as_bytes()
            .windows(5)
            .any(|w| w.eq_ignore_ascii_case(b"skill"))
}

/// Every skill name the prompt mentions, first mention first, each name once.
pub fn mentions(prompt: &str) -> Vec<Mention> {
    if !may_mention(prompt) {
        return Vec::new();
    }
    let text = mask_fenced(prompt);
    let mut out: Vec<Mention> = Vec::new();
    let mut first_token = true;
    for clause in text.split([',', '.', ';', '!', '?', '\n', '(', ')']) {
        let tokens: Vec<Token> = clause.split_whitespace().map(Token::new).collect();
        // Where the words a negation may reach start: the clause, then after each mention and
        // each contrast ("not the X skill but the Y skill": Y is wanted).
        let mut scope = 0;
        let mut i = 0;
        while i < tokens.len() {
            let at_start = std::mem::take(&mut first_token);
            let (names, first, last) = mentioned(&tokens, i, at_start);
            if names.is_empty() {
                if CONTRASTS.contains(&tokens[i].word.as_str()) {
                    scope = tokens[i].offset_in(clause);
                }
                i += 1;
                continue;
            }
            let start = tokens[first].offset_in(clause).max(scope);
            let negated = words(&fold(&clause[scope..start])).any(|w| NEGATIONS.contains(w));
            scope = tokens[last].offset_in(clause) + tokens[last].raw.len();
            for name in names {
                if !out.iter().any(|m| m.name == name) {
                    out.push(Mention { name, negated });
                }
            }
            i = last + 1;
        }
    }
    out
}

/// Words after which a negation said before no longer holds ("not X but Y", "non X ma Y").
const CONTRASTS: &[&str] = &["but", "instead", "invece", "ma", "piuttosto", "rather"];

/// One whitespace-separated token of a clause: its bare word (lower-cased, the punctuation
/// around it and a trailing `:` cut), and whether it was wrapped in backticks.
struct Token<'a> {
    raw: &'a str,
    word: String,
    backticked: bool,
}

impl<'a> Token<'a> {
    fn new(raw: &'a str) -> Token<'a> {
        let outer = |c: char| "\"'“”‘’«»*[]{}<>".contains(c);
        let trimmed = raw.trim_matches(outer);
        let backticked = trimmed.len() > 2 && trimmed.starts_with('`') && trimmed.ends_with('`');
        let word = trimmed
            .trim_matches(|c: char| outer(c) || c == '`' || c == ':')
            .to_ascii_lowercase();
        Token {
            raw,
            word,
            backticked,
        }
    }

    /// Where the token starts in `clause` (it is a slice of it).
    fn offset_in(&self, clause: &str) -> usize {
        self.raw.as_ptr() as usize - clause.as_ptr() as usize
    }
}

/// The names the mention at token `i` may stand for, and the tokens it spans (first, last).
/// A `$name`, a `/name` opening the prompt or a compound id in backticks is one name; the word
/// `skill` stands between two words, either of which may be the name (`the pdf skill`,
/// `la skill pdf`): both are looked up, and what the catalog does not have is no mention.
fn mentioned(tokens: &[Token], i: usize, at_start: bool) -> (Vec<String>, usize, usize) {
    let word = tokens[i].word.as_str();
    let one = |name: Option<String>| (name.into_iter().collect(), i, i);
    if let Some(rest) = word.strip_prefix('$') {
        return one(name_of(rest));
    }
    if let Some(rest) = word.strip_prefix('/') {
        return one(at_start.then(|| name_of(rest)).flatten());
    }
    let is_skill = |t: &Token| t.word == "skill" && !t.backticked;
    let next_is_skill = tokens.get(i + 1).is_some_and(is_skill);
    if is_skill(&tokens[i]) || next_is_skill {
        let at = if next_is_skill { i + 1 } else { i };
        let first = at.saturating_sub(1);
        let last = (at + 1).min(tokens.len() - 1);
        let names = [first, last]
            .into_iter()
            .filter(|&k| k != at)
            .filter_map(|k| name_of(&tokens[k].word))
            .collect();
        return (names, first, last);
    }
    // A compound id written as it is spelled (`eas-hosting`, with or without backticks) names
    // the skill: the issue's "an explicit skill name in the prompt is a lock". A single word
    // (`pdf`, `` `Signup` ``) is usually the user's subject or code, not a skill's name.
    let compound = word.trim_matches(['-', '_']).contains(['-', '_']);
    if compound && tokens[i].raw.contains(word) {
        return one(name_of(word));
    }
    (Vec::new(), i, i)
}

/// A skill name: the part after a plugin's `plugin:` prefix, lower-case letters, digits, `-`
/// and `_`, two characters or more, starting with a letter or digit.
fn name_of(word: &str) -> Option<String> {
    let name = word.rsplit(':').next().unwrap_or(word);
    let valid = name.len() >= 2
        && name.starts_with(|c: char| c.is_ascii_alphanumeric())
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_');
    valid.then(|| name.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The mentions of the ids these tests' catalog has (a lookup of another word names
    /// nothing).
    fn names(prompt: &str) -> Vec<(String, bool)> {
        mentions(prompt)
            .into_iter()
            .filter(|m| ["pdf-tools", "docx-writer", "pdf"].contains(&m.name.as_str()))
            .map(|m| (m.name, m.negated))
            .collect()
    }

    fn one(name: &str) -> Vec<(String, bool)> {
        vec![(name.to_owned(), false)]
    }

    #[test]
    fn every_form_a_host_or_a_user_writes() {
        let table: &[(&str, &str)] = &[
            ("$pdf-tools split this file", "pdf-tools"),
            ("please run $pdf-tools on report.pdf", "pdf-tools"),
            ("$sophia:pdf-tools merge them", "pdf-tools"),
            ("/pdf-tools merge a.pdf and b.pdf", "pdf-tools"),
            ("  /sophia:pdf-tools merge", "pdf-tools"),
            ("use the pdf-tools skill to merge these", "pdf-tools"),
            ("Use the PDF-Tools skill to merge these", "pdf-tools"),
            ("with skill pdf-tools, merge these", "pdf-tools"),
            ("skill: pdf-tools. merge these", "pdf-tools"),
            ("con la skill pdf-tools unisci i due file", "pdf-tools"),
            ("usa la skill `pdf-tools` per unirli", "pdf-tools"),
            ("use the `pdf-tools` skill", "pdf-tools"),
            ("merge them with `pdf-tools`", "pdf-tools"),
            ("merge them with pdf-tools please", "pdf-tools"),
            ("use the \"pdf\" skill", "pdf"),
            ("the pdf skill, please", "pdf"),
        ];
        for (prompt, want) in table {
            assert_eq!(names(prompt), one(want), "{prompt}");
        }
    }

    #[test]
    fn what_is_not_a_mention() {
        for prompt in [
            "merge these two pdf files",
            "improve my testing skills",
            "open /etc/hosts and fix it",
            "fix it: /pdf-tools is slow",
            "it costs $5 or $ 6",
            "read src/skill.rs",
            "```\n$pdf-tools\n```\nwhat does this do",
            "/",
            "$",
            "skill",
            "skill skill",
        ] {
            assert!(names(prompt).is_empty(), "{prompt}: {:?}", names(prompt));
        }
        // The words next to `skill` are names to look up: they name nothing unless the catalog
        // has a skill of that name.
        let looked_up: Vec<String> = mentions("write a new skill that merges pdfs")
            .into_iter()
            .map(|m| m.name)
            .collect();
        assert_eq!(looked_up, ["new", "that"]);
        // A bare backticked word is the user's code unless written as a compound id.
        assert!(names("merge them with `pdf`").is_empty());
        assert!(names("rename the `Signup` component").is_empty());
        assert!(names("rename `Pdf-Tools`").is_empty());
    }

    #[test]
    fn a_negated_mention_is_kept_as_negated() {
        for prompt in [
            "don't use the pdf-tools skill, just merge them",
            "non usare la skill pdf-tools",
            "merge them without $pdf-tools",
            "senza la skill pdf-tools",
        ] {
            assert_eq!(
                names(prompt),
                vec![("pdf-tools".to_owned(), true)],
                "{prompt}"
            );
        }
        assert_eq!(
            names("not that one, use the pdf-tools skill"),
            one("pdf-tools")
        );
        // A negation reaches the next mention only, and no further than a contrast.
        for prompt in [
            "not the docx-writer skill but the pdf-tools skill",
            "non la skill docx-writer ma la skill pdf-tools",
            "skip $docx-writer and use $pdf-tools instead",
            "don't use $docx-writer, use $pdf-tools",
            "without $docx-writer: $pdf-tools",
        ] {
            let got = names(prompt);
            let wanted = got.iter().find(|(n, _)| n == "pdf-tools");
            assert_eq!(
                wanted,
                Some(&("pdf-tools".to_owned(), false)),
                "{prompt}: {got:?}"
            );
        }
        assert_eq!(
            names("not the docx-writer skill but the pdf-tools skill")[0],
            ("docx-writer".to_owned(), true)
        );
    }

    #[test]
    fn several_mentions_in_order_each_once() {
        assert_eq!(
            names("use $docx-writer then the pdf-tools skill, then $docx-writer again"),
            vec![
                ("docx-writer".to_owned(), false),
                ("pdf-tools".to_owned(), false)
            ]
        );
    }
}
