//! The two ways text becomes markup other than a literal of `html!`, kept apart from the page so
//! that `src/report/html.rs` builds nothing by hand (`tests/it/report.rs` checks it): [`Text`]
//! for every untrusted string, and [`closed`] for an SVG element with no content. Pure.

use maud::{Markup, PreEscaped, Render};

/// A string from outside (an id, a path, a detail): escaped by maud's own escaper (`&`, `<`, `>`,
/// `"`), and `'` as `&#39;` as well, as the page has always written it. maud leaves `'` alone,
/// which is safe in the double-quoted attributes it writes; escaping it too keeps every page
/// byte for byte what it was and a string safe even inside a single-quoted context.
#[derive(Clone, Copy)]
pub struct Text<'a>(pub &'a str);

/// [`Text`] of `s`, to splice as `(text(s))`.
pub fn text(s: &str) -> Text<'_> {
    Text(s)
}

impl Render for Text<'_> {
    fn render_to(&self, buffer: &mut String) {
        let mut pieces = self.0.split('\'');
        if let Some(first) = pieces.next() {
            first.render_to(buffer);
        }
        for piece in pieces {
            buffer.push_str("&#39;");
            piece.render_to(buffer);
        }
    }
}

/// An SVG element with no content written as `<line …/>`: `element` is one void element built by
/// `html!` (`html! { line x1=(x); }`, which maud writes `<line x1="…">`). Inside `<svg>` an HTML
/// parser leaves `<line …>` open, so the `/` is needed. Nothing but maud's output is touched: its
/// closing `>` becomes `/>`.
pub fn closed(element: Markup) -> Markup {
    let mut markup = element.into_string();
    debug_assert!(
        markup.starts_with('<') && markup.ends_with('>') && markup.matches('<').count() == 1,
        "one start tag: {markup}"
    );
    markup.pop();
    markup.push_str("/>");
    PreEscaped(markup)
}

#[cfg(test)]
mod tests {
    use super::*;
    use maud::html;

    #[test]
    fn text_escapes_markup_and_both_quotes() {
        let hostile = r#"<script>alert("x")</script> & 'y'"#;
        assert_eq!(
            html! { (text(hostile)) }.into_string(),
            "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;y&#39;"
        );
        assert_eq!(
            html! { b title=(text("'a'")) { (text("scout")) } }.into_string(),
            "<b title=\"&#39;a&#39;\">scout</b>"
        );
    }

    #[test]
    fn closed_ends_one_tag_with_a_slash() {
        let line = closed(html! { line class="axis" x1=(text("'\">")); });
        assert_eq!(
            line.into_string(),
            "<line class=\"axis\" x1=\"&#39;&quot;&gt;\"/>"
        );
    }
}
