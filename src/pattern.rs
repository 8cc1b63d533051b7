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

/// `pattern` compiled with Unicode mode off: `\w`, `\s`, `\b`, `.` and case folding are ASCII.
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

/// Whether `pattern` has a flag group (`(?u)`, `(?iu)`, `(?u:…)`) that turns Unicode mode on.
/// An escaped `(` is a literal; a group whose flags list `u` after `-` turns it off.
fn enables_unicode(pattern: &str) -> bool {
    let b = pattern.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'(' if b.get(i + 1) == Some(&b'?') => {
                let flags: Vec<u8> = b[i + 2..]
                    .iter()
                    .take_while(|c| c.is_ascii_alphabetic() || **c == b'-')
                    .copied()
                    .collect();
                let closed = matches!(b.get(i + 2 + flags.len()), Some(b')' | b':'));
                if closed && flags.iter().take_while(|c| **c != b'-').any(|c| *c == b'u') {
                    return true;
                }
                i += 1;
            }
            _ => i += 1,
        }
    }
    false
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
