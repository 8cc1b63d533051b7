//! The evidence a `SKILL.md` body gives, beside its name and description: the first
//! [`BODY_BYTES`] of the Markdown after the frontmatter, split into the lines that say what the
//! skill is for (headings, the lines of a "When to use" / "Use this when" / "Examples" section,
//! a line that starts "Use when…") and the rest of the prose. Fenced code is left out: it is the
//! skill's own commands, not what a user asks for. Pure.

use crate::text::prefix;

/// Bytes of a body read for routing, cut back to a line boundary.
pub const BODY_BYTES: usize = 4 * 1024;

/// The body of a `SKILL.md`: what follows the line that closes the frontmatter (empty when there
/// is no frontmatter or nothing after it), its first [`BODY_BYTES`] cut at a line boundary.
pub fn body_of(text: &str) -> &str {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.split_inclusive('\n');
    if lines.next().map(str::trim_end) != Some("---") {
        return "";
    }
    let mut at = text.find('\n').map_or(text.len(), |i| i + 1);
    for line in lines {
        at += line.len();
        if line.trim_end() == "---" {
            let body = &text[at..];
            let cut = prefix(body, BODY_BYTES);
            if cut.len() == body.len() {
                return cut;
            }
            return cut.rfind('\n').map_or("", |i| &cut[..=i]);
        }
    }
    ""
}

/// A body split by how much a line says about when to use the skill.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BodyText {
    /// Headings, the lines of a when-to-use or examples section, "Use when…" lines.
    pub emphasis: String,
    /// Every other line outside fenced code.
    pub prose: String,
}

/// Words of a heading that open a section saying when to use the skill, or showing examples
/// (English and Italian), folded.
const EMPHASIS_HEADINGS: &[&str] = &[
    "when to use",
    "use this",
    "use when",
    "when you",
    "trigger",
    "example",
    "use case",
    "quando usare",
    "quando",
    "esempi",
];

fn is_emphasis_heading(folded: &str) -> bool {
    EMPHASIS_HEADINGS.iter().any(|h| folded.contains(h)) && !folded.contains("not ")
}

/// Splits a body (see [`body_of`]) into emphasis and prose.
pub fn split_body(body: &str) -> BodyText {
    let mut out = BodyText::default();
    let mut fenced = false;
    let mut in_emphasis = false;
    for line in body.lines() {
        let trimmed = line.trim();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            fenced = !fenced;
            continue;
        }
        if fenced || trimmed.is_empty() {
            continue;
        }
        let folded = crate::text::fold(trimmed);
        let target = if let Some(heading) = trimmed.strip_prefix('#') {
            in_emphasis = is_emphasis_heading(&folded);
            out.emphasis.push_str(heading.trim_start_matches('#'));
            out.emphasis.push('\n');
            continue;
        } else if in_emphasis
            || folded.starts_with("use when")
            || folded.starts_with("use this")
            || folded.starts_with("**when to use")
        {
            &mut out.emphasis
        } else {
            &mut out.prose
        };
        target.push_str(trimmed);
        target.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_body_follows_the_frontmatter_and_is_bounded_at_a_line() {
        assert_eq!(body_of("---\nname: a\n---\n# A\ntext\n"), "# A\ntext\n");
        assert_eq!(body_of("\u{feff}---\nname: a\n---\nx"), "x");
        assert_eq!(body_of("no frontmatter\n---\n"), "");
        assert_eq!(
            body_of("---\nname: a\n"),
            "",
            "an unclosed frontmatter has no body"
        );
        let long = format!("---\nname: a\n---\n{}", "word word\n".repeat(1000));
        let body = body_of(&long);
        assert!(body.len() <= BODY_BYTES && body.len() > BODY_BYTES - 10);
        assert!(body.ends_with('\n'), "cut at a line boundary");
        let one_line = format!("---\nname: a\n---\n{}", "x".repeat(2 * BODY_BYTES));
        assert_eq!(body_of(&one_line), "", "no line fits");
    }

    #[test]
    fn headings_and_when_to_use_sections_are_emphasis() {
        let body = "# Pivot tables\nIntro prose.\n## When to Use\n- a sales report by region\n\
                    ## Steps\nRun it.\n```sh\nsecret-command --flag\n```\nUse when a chart \
                    is asked.\n## When NOT to use\n- a slide deck\n## Examples\n- quarterly totals\n";
        let split = split_body(body);
        assert_eq!(
            split.emphasis,
            " Pivot tables\n When to Use\n- a sales report by region\n Steps\n\
             Use when a chart is asked.\n When NOT to use\n Examples\n- quarterly totals\n"
        );
        assert_eq!(split.prose, "Intro prose.\nRun it.\n- a slide deck\n");
        assert!(!split.prose.contains("secret") && !split.emphasis.contains("secret"));
    }
}
