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

/// A file's bytes parsed as `syntax`, with the parser's message when they do not parse: strict
/// JSON on the bytes themselves (a byte that is not UTF-8 fails it, as the host's own reader
/// fails), JSON with comments and TOML on the text with such bytes replaced.
pub fn parse_bytes(bytes: &[u8], syntax: Syntax) -> Result<Value, String> {
    match syntax {
        Syntax::Json => bounded::json_value(bytes, bounded::FILE).map_err(|e| e.to_string()),
        Syntax::Jsonc | Syntax::Toml => parse_or_why(&String::from_utf8_lossy(bytes), syntax),
    }
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

    #[test]
    fn bytes_that_are_not_utf8_fail_strict_json_and_are_replaced_elsewhere() {
        let bad = b"{\"a\": 1, \"b\": \"\xff\"}";
        assert!(parse_bytes(bad, Syntax::Json).is_err());
        assert_eq!(parse_bytes(bad, Syntax::Jsonc).unwrap()["a"], 1);
        assert_eq!(
            parse_bytes(b"{\"a\": 1}", Syntax::Json).unwrap(),
            serde_json::json!({"a": 1})
        );
    }
}
