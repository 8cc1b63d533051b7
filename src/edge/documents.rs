//! A host's file parsed in the syntax the host names ([`crate::hosts::Syntax`]), through the
//! bounded parsers, as the JSON value the host's own code reads (TOML as the value of its
//! tables): the one place the edge picks a parser for a host's MCP settings and plugin records.

use serde_json::Value;

use crate::bounded;
use crate::hosts::Syntax;

/// `text` parsed as `syntax` within [`bounded::FILE`]; `None` when it does not parse.
pub fn parse(text: &str, syntax: Syntax) -> Option<Value> {
    parse_or_why(text, syntax).ok()
}

/// [`parse`], with the parser's message when `text` does not parse (what `doctor` shows).
pub fn parse_or_why(text: &str, syntax: Syntax) -> Result<Value, String> {
    match syntax {
        Syntax::Json => {
            bounded::json_value(text.as_bytes(), bounded::FILE).map_err(|e| e.to_string())
        }
        Syntax::Jsonc => {
            // dprint's parser, for a file with comments, does not skip the byte order mark.
            let text = text.strip_prefix('\u{feff}').unwrap_or(text);
            bounded::jsonc_value(text, bounded::FILE, &Default::default())
                .map_err(|e| e.to_string())
        }
        Syntax::Toml => bounded::toml::<toml::Table>(text, bounded::FILE)
            .map_err(|e| e.to_string())
            .and_then(|t| serde_json::to_value(t).map_err(|e| e.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_syntax_parses_its_own_text_and_refuses_the_rest() {
        let bom = "\u{feff}{\"a\": 1}";
        assert_eq!(parse(bom, Syntax::Json), Some(serde_json::json!({"a": 1})));
        assert_eq!(
            parse("\u{feff}{// c\n\"a\": 1}", Syntax::Jsonc),
            Some(serde_json::json!({"a": 1}))
        );
        assert_eq!(parse("{// c\n\"a\": 1}", Syntax::Json), None);
        assert_eq!(
            parse("[t]\na = 1\n", Syntax::Toml),
            Some(serde_json::json!({"t": {"a": 1}}))
        );
        assert_eq!(parse("[[x", Syntax::Toml), None);
    }
}
