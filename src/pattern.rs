//! The one constructor of the crate's regular expressions, ASCII only.
//!
//! The regex crate is built without its Unicode tables (`Cargo.toml`): they were half of the
//! pointers the dynamic loader relocates at every start of the hook, whether a pattern used them
//! or not (docs/performance.md, "The regex crate without its Unicode tables"). A pattern that
//! turned Unicode mode on (`(?u)`, which `\w`, `\d`, `\s`, `\b` and `(?i)` then need the tables
//! for) would compile in the test build, where a dev-dependency switches the tables back on, and
//! fail in the shipped binary. So Unicode mode is off for every pattern here, and a pattern that
//! turns it back on is refused in every build; `clippy.toml` sends every other constructor here.

use regex::Regex;

/// `pattern` compiled with Unicode mode off: `\w`, `\d`, `\s`, `\b` and case folding are ASCII
/// (and what could match a byte that is not UTF-8 — `.`, `[^…]`, `\W` — does not compile).
/// Panics on a pattern that turns Unicode mode back on or does not compile: every pattern is a
/// constant of this crate, and its tests build each one.
pub fn ascii(pattern: &str) -> Regex {
    assert!(
        !enables_unicode(pattern),
        "a pattern of sophia-hook is ASCII only (no `u` flag): {pattern}"
    );
    #[allow(clippy::disallowed_methods)] // the one constructor
    let built = regex::RegexBuilder::new(pattern).unicode(false).build();
    built.unwrap_or_else(|e| panic!("pattern {pattern}: {e}"))
}

/// Whether `pattern` has a flag group (`(?u)`, `(?iu)`, `(?u:…)`, also spaced out in `x` mode)
/// that turns Unicode mode on, read from the regex crate's own syntax tree; `(?-u)` turns it
/// off. A pattern that does not parse is left to the build, which says why.
fn enables_unicode(pattern: &str) -> bool {
    use regex_syntax::ast::{self, Ast, Flag};
    struct Finder;
    impl ast::Visitor for Finder {
        type Output = ();
        type Err = ();
        fn finish(self) -> Result<(), ()> {
            Ok(())
        }
        fn visit_pre(&mut self, node: &Ast) -> Result<(), ()> {
            let flags = match node {
                Ast::Flags(set) => Some(&set.flags),
                Ast::Group(group) => group.flags(),
                _ => None,
            };
            match flags.and_then(|f| f.flag_state(Flag::Unicode)) {
                Some(true) => Err(()),
                _ => Ok(()),
            }
        }
    }
    ast::parse::Parser::new()
        .parse(pattern)
        .is_ok_and(|tree| ast::visit(&tree, Finder).is_err())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flag_group_that_turns_unicode_on_is_seen_in_every_form() {
        for p in [
            r"(?u)\w+",
            r"(?iu)abc",
            r"(?ui)abc",
            r"(?u:\w)",
            r"a(?xu-i)b",
            r"(?-u)x(?u)\b",
            r"(?i-x)(?su:.)",
            // Spaced out in `x` mode, where the parser skips white space and comments.
            "(?x)( ?u)\\w",
            "(?x)(#c\n?u:\\w)",
            "(?x)(\t?u)\\b",
        ] {
            assert!(enables_unicode(p), "not seen: {p}");
        }
        for p in [
            r"(?-u)\w",
            r"(?ix-u)token\s*[:=]",
            r"(?i)abc",
            r"(?U)a+",
            r"(?P<u>x)",
            r"(?<u>x)",
            r"\(?u\)",
            r"[a-z]{3}",
            r"[(?u)]",
            "(?x)a # (?u) in a comment",
        ] {
            assert!(!enables_unicode(p), "seen in {p}");
        }
    }

    #[test]
    fn patterns_are_ascii_and_a_unicode_one_is_refused() {
        // ASCII classes: `é` is no word character, `\s` no non-breaking space.
        assert!(!ascii(r"^\w+$").is_match("caffè"));
        assert!(ascii(r"^\w+$").is_match("caffe"));
        assert!(!ascii(r"\s").is_match("a\u{a0}b"));
        assert!(ascii(r"(?i)TOKEN").is_match("token"));
        let refused = std::panic::catch_unwind(|| ascii(r"(?u)\w"));
        assert!(refused.is_err());
    }
}
