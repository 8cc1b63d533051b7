//! JSON and TOML from bytes a repository, a user or a host wrote (settings files, catalogs,
//! indexes, logs, the hook payload): one parser entry per format, each with a value budget, so a
//! file under its size cap cannot cost more than the budget admits. A size cap alone does not
//! bound the work: 4 MiB of `[[],[],…]` is 1.3 million values (100 MB as a `Value` tree), and
//! 400,000 `[t1]` table headers cost 150 MB and 0.3 s in the TOML parser. Here every document is
//! counted first — without building anything — and parsed only when it is inside the budget.
//! JSON with comments is counted by dprint's scanner before dprint's parser runs. YAML has its own
//! budgets in [`crate::yaml`]. `clippy.toml` refuses the unbounded entries
//! (`serde_json::from_str`, `toml::from_str`…) everywhere else, and `tests/it/layers.rs` refuses the
//! parser constructors used here. Pure.

use serde::de::{DeserializeOwned, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

/// How much one document may hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Values (each string, number, array, object… counts one; in TOML each key, table header,
    /// separator or bracket) the document may hold.
    pub values: usize,
    /// Nesting depth (arrays and objects, or tables and brackets in TOML).
    pub depth: usize,
    /// A string longer than this is kept only up to it (on a character boundary) when a `Value`
    /// is built: the payload's prompt bound. Files keep their strings whole.
    pub string_bytes: usize,
}

/// The budget of a file we read: a settings file, a catalog, an index, a manifest, a log line.
/// The largest real ones hold a few thousand values (a Codex `config.toml` with a trusted-project
/// table for each of 1,000 folders is about 4,000); 100,000 values cost at most a few MiB and
/// milliseconds.
pub const FILE: Limits = Limits {
    values: 100_000,
    depth: 128,
    string_bytes: usize::MAX,
};

/// The budget of a large file of which only a few keys are kept, as raw text, each then parsed
/// within [`FILE`] (`~/.claude.json`, where Claude Code keeps every project's state: tens of
/// thousands of values for a long-time user). Counting bounds the time, linear in the file's size
/// cap (4 MiB holds at most 2 million values); the memory is the kept text.
pub const SKIMMED: Limits = Limits {
    values: 4 * 1024 * 1024,
    depth: 128,
    string_bytes: usize::MAX,
};

/// Why a document was not parsed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refused {
    #[error("holds more than {0} values")]
    TooComplex(usize),
    #[error("nests deeper than {0}")]
    TooDeep(usize),
    #[error("{0}")]
    Invalid(String),
}

impl Refused {
    /// A short code for warnings and analytics.
    pub fn code(&self) -> &'static str {
        match self {
            Refused::TooComplex(_) | Refused::TooDeep(_) => "too-complex",
            Refused::Invalid(_) => "invalid",
        }
    }
}

const OVER: &str = "sophia-value-budget-spent";
const DEEP: &str = "sophia-depth-budget-spent";

fn strip_bom(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes)
}

/// Maps a parser error, telling the budget's own stops from the document's faults.
fn refused(e: impl std::fmt::Display, limits: Limits) -> Refused {
    let text = e.to_string();
    if text.starts_with(OVER) {
        Refused::TooComplex(limits.values)
    } else if text.starts_with(DEEP) || text.starts_with("recursion limit exceeded") {
        Refused::TooDeep(limits.depth)
    } else {
        Refused::Invalid(text.lines().next().unwrap_or_default().to_owned())
    }
}

/// One JSON document as a `Value`, built only up to `limits`.
pub fn json_value(bytes: &[u8], limits: Limits) -> Result<Value, Refused> {
    let left = std::cell::Cell::new(limits.values);
    let seed = Build {
        budget: Budget {
            left: &left,
            depth: limits.depth,
        },
        string_bytes: limits.string_bytes,
    };
    let mut de = serde_json::Deserializer::from_slice(strip_bom(bytes));
    let value = seed.deserialize(&mut de).map_err(|e| refused(e, limits))?;
    de.end().map_err(|e| refused(e, limits))?;
    Ok(value)
}

/// One JSON document as a `T`, parsed only when the whole document is within `limits` (counted
/// first, building nothing). A `T` that skips most of a large file still counts what it skips.
pub fn json<T: DeserializeOwned>(bytes: &[u8], limits: Limits) -> Result<T, Refused> {
    let bytes = strip_bom(bytes);
    json_count(bytes, limits)?;
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let value = T::deserialize(&mut de).map_err(|e| refused(e, limits))?;
    de.end().map_err(|e| refused(e, limits))?;
    Ok(value)
}

/// [`json`] of text.
pub fn json_str<T: DeserializeOwned>(text: &str, limits: Limits) -> Result<T, Refused> {
    json(text.as_bytes(), limits)
}

/// Counts the values of one JSON document without keeping any.
fn json_count(bytes: &[u8], limits: Limits) -> Result<(), Refused> {
    let left = std::cell::Cell::new(limits.values);
    let mut de = serde_json::Deserializer::from_slice(bytes);
    Count(Budget {
        left: &left,
        depth: limits.depth,
    })
    .deserialize(&mut de)
    .map_err(|e| refused(e, limits))?;
    de.end().map_err(|e| refused(e, limits))
}

/// One TOML document as a `T`, parsed only when its tokens are within `limits`: the lexer runs
/// first, keeping nothing, and every key separator, value separator, dot, table header or
/// bracket counts one value (a string or comment holding such characters counts nothing); depth
/// is the brackets open at once. The TOML parser keeps every token of a document before it
/// builds the first table, so the count must come before it.
pub fn toml<T: DeserializeOwned>(text: &str, limits: Limits) -> Result<T, Refused> {
    use toml_parser::lexer::TokenKind;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let (mut values, mut depth) = (0usize, 0usize);
    for token in toml_parser::Source::new(text).lex() {
        match token.kind() {
            TokenKind::LeftSquareBracket | TokenKind::LeftCurlyBracket => {
                depth += 1;
                if depth > limits.depth {
                    return Err(Refused::TooDeep(limits.depth));
                }
            }
            TokenKind::RightSquareBracket | TokenKind::RightCurlyBracket => {
                depth = depth.saturating_sub(1);
                continue;
            }
            TokenKind::Equals | TokenKind::Comma | TokenKind::Dot => {}
            _ => continue,
        }
        values += 1;
        if values > limits.values {
            return Err(Refused::TooComplex(limits.values));
        }
    }
    let de =
        toml::de::Deserializer::parse(text).map_err(|e| Refused::Invalid(e.message().into()))?;
    T::deserialize(de).map_err(|e| Refused::Invalid(e.message().into()))
}

/// JSON with comments (Gemini CLI's `settings.json`, Copilot CLI's `config.json`) as a `Value`:
/// strict JSON through [`json_value`]; only text that is not JSON goes to dprint's JSONC parser,
/// and only when dprint's own scanner, run first and keeping nothing, counts it within `limits`
/// (each value, key or bracket counts one).
pub fn jsonc_value(
    text: &str,
    limits: Limits,
    options: &jsonc_parser::ParseOptions,
) -> Result<Value, Refused> {
    match json_value(text.as_bytes(), limits) {
        Err(Refused::Invalid(_)) => {}
        done => return done,
    }
    jsonc_count(text, limits)?;
    jsonc_parser::parse_to_serde_value::<Value>(text, options)
        .map_err(|e| Refused::Invalid(e.to_string()))
}

/// dprint's lossless syntax tree of a JSON-with-comments text, built only within `limits`.
pub fn jsonc_tree(
    text: &str,
    limits: Limits,
    options: &jsonc_parser::ParseOptions,
) -> Result<jsonc_parser::cst::CstRootNode, Refused> {
    jsonc_count(text, limits)?;
    jsonc_parser::cst::CstRootNode::parse(text, options)
        .map_err(|e| Refused::Invalid(e.to_string()))
}

fn jsonc_count(text: &str, limits: Limits) -> Result<(), Refused> {
    use jsonc_parser::tokens::Token;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut scanner = jsonc_parser::Scanner::new(text, &Default::default());
    let (mut values, mut depth) = (0usize, 0usize);
    loop {
        match scanner.scan() {
            Err(e) => return Err(Refused::Invalid(e.to_string())),
            Ok(None) => return Ok(()),
            Ok(Some(Token::OpenBrace | Token::OpenBracket)) => {
                depth += 1;
                if depth > limits.depth {
                    return Err(Refused::TooDeep(limits.depth));
                }
            }
            Ok(Some(Token::CloseBrace | Token::CloseBracket)) => {
                depth = depth.saturating_sub(1);
                continue;
            }
            Ok(Some(
                Token::CommentLine(_) | Token::CommentBlock(_) | Token::Comma | Token::Colon,
            )) => {
                continue;
            }
            Ok(Some(_)) => {}
        }
        values += 1;
        if values > limits.values {
            return Err(Refused::TooComplex(limits.values));
        }
    }
}

/// The values left to build or count, and the depth left, shared by one document's visitors.
#[derive(Clone, Copy)]
struct Budget<'a> {
    left: &'a std::cell::Cell<usize>,
    depth: usize,
}

impl Budget<'_> {
    fn tick<E: serde::de::Error>(self) -> Result<(), E> {
        match self.left.get() {
            0 => Err(E::custom(OVER)),
            n => {
                self.left.set(n - 1);
                Ok(())
            }
        }
    }

    /// The budget one level down.
    fn deeper<E: serde::de::Error>(self) -> Result<Self, E> {
        match self.depth {
            0 => Err(E::custom(DEEP)),
            d => Ok(Budget {
                left: self.left,
                depth: d - 1,
            }),
        }
    }
}

/// Counts each value against the budget and keeps nothing.
#[derive(Clone, Copy)]
struct Count<'a>(Budget<'a>);

impl<'de> DeserializeSeed<'de> for Count<'_> {
    type Value = ();

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Count<'_> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E: serde::de::Error>(self, _: bool) -> Result<(), E> {
        self.0.tick()
    }

    fn visit_i64<E: serde::de::Error>(self, _: i64) -> Result<(), E> {
        self.0.tick()
    }

    fn visit_u64<E: serde::de::Error>(self, _: u64) -> Result<(), E> {
        self.0.tick()
    }

    fn visit_f64<E: serde::de::Error>(self, _: f64) -> Result<(), E> {
        self.0.tick()
    }

    fn visit_str<E: serde::de::Error>(self, _: &str) -> Result<(), E> {
        self.0.tick()
    }

    fn visit_unit<E: serde::de::Error>(self) -> Result<(), E> {
        self.0.tick()
    }

    fn visit_none<E: serde::de::Error>(self) -> Result<(), E> {
        self.0.tick()
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        self.0.tick()?;
        let inner = Count(self.0.deeper()?);
        while seq.next_element_seed(inner)?.is_some() {}
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        self.0.tick()?;
        let inner = Count(self.0.deeper()?);
        while map.next_key::<IgnoredAny>()?.is_some() {
            map.next_value_seed(inner)?;
        }
        Ok(())
    }
}

/// Builds a `Value`, counting each value against the budget as it goes.
#[derive(Clone, Copy)]
struct Build<'a> {
    budget: Budget<'a>,
    string_bytes: usize,
}

impl Build<'_> {
    fn string(self, v: &str) -> String {
        crate::text::prefix(v, self.string_bytes).to_owned()
    }
}

impl<'de> DeserializeSeed<'de> for Build<'_> {
    type Value = Value;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Build<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E: serde::de::Error>(self, v: bool) -> Result<Value, E> {
        self.budget.tick()?;
        Ok(Value::Bool(v))
    }

    fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Value, E> {
        self.budget.tick()?;
        Ok(Value::from(v))
    }

    fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Value, E> {
        self.budget.tick()?;
        Ok(Value::from(v))
    }

    fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Value, E> {
        self.budget.tick()?;
        Ok(serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Value, E> {
        self.budget.tick()?;
        Ok(Value::String(self.string(v)))
    }

    fn visit_string<E: serde::de::Error>(self, mut v: String) -> Result<Value, E> {
        self.budget.tick()?;
        v.truncate(crate::text::prefix(&v, self.string_bytes).len());
        Ok(Value::String(v))
    }

    fn visit_unit<E: serde::de::Error>(self) -> Result<Value, E> {
        self.budget.tick()?;
        Ok(Value::Null)
    }

    fn visit_none<E: serde::de::Error>(self) -> Result<Value, E> {
        self.visit_unit()
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        self.budget.tick()?;
        let inner = Build {
            budget: self.budget.deeper()?,
            ..self
        };
        let mut out = Vec::new();
        while let Some(v) = seq.next_element_seed(inner)? {
            out.push(v);
        }
        Ok(Value::Array(out))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        self.budget.tick()?;
        let inner = Build {
            budget: self.budget.deeper()?,
            ..self
        };
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let value = map.next_value_seed(inner)?;
            out.insert(key, value);
        }
        Ok(Value::Object(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Documents of every shape that makes a small file expensive, at `n` values, in JSON.
    fn json_shapes(n: usize) -> Vec<(&'static str, String)> {
        vec![
            ("empty arrays", format!("[{}]", vec!["[]"; n].join(","))),
            ("empty objects", format!("[{}]", vec!["{}"; n].join(","))),
            ("numbers", format!("[{}]", vec!["0"; n].join(","))),
            ("empty strings", format!("[{}]", vec!["\"\""; n].join(","))),
            (
                "keys",
                format!(
                    "{{{}}}",
                    (0..n)
                        .map(|i| format!("\"k{i}\":0"))
                        .collect::<Vec<_>>()
                        .join(",")
                ),
            ),
            (
                "settings of many servers",
                format!(
                    "{{\"mcpServers\":{{{}}}}}",
                    (0..n / 4)
                        .map(|i| format!("\"s{i}-mcp-server\":{{\"command\":\"x\",\"args\":[]}}"))
                        .collect::<Vec<_>>()
                        .join(",")
                ),
            ),
            ("deep arrays", format!("{}{}", "[".repeat(n), "]".repeat(n))),
        ]
    }

    /// The same shapes in TOML.
    fn toml_shapes(n: usize) -> Vec<(&'static str, String)> {
        vec![
            (
                "table headers",
                (0..n).map(|i| format!("[t{i}]\n")).collect::<String>(),
            ),
            (
                "keys",
                (0..n).map(|i| format!("k{i} = 1\n")).collect::<String>(),
            ),
            (
                "dotted keys",
                (0..n / 3)
                    .map(|i| format!("a.b{i} = 1\n"))
                    .collect::<String>(),
            ),
            (
                "empty arrays",
                format!("x = [{}]\n", vec!["[]"; n].join(",")),
            ),
            (
                "deep inline tables",
                format!("x = {}1{}\n", "{a=".repeat(n), "}".repeat(n)),
            ),
            (
                "deep arrays",
                format!("x = {}{}\n", "[".repeat(n), "]".repeat(n)),
            ),
        ]
    }

    const SMALL: Limits = Limits {
        values: 1_000,
        depth: 16,
        string_bytes: usize::MAX,
    };

    /// Every shape at ten times the budget is refused, by both JSON entries and by the TOML one;
    /// under the budget (and its depth) the same shape parses. Generated over shapes × sizes.
    #[test]
    fn every_shape_past_the_budget_is_refused_and_under_it_parsed() {
        for n in [SMALL.values * 10, SMALL.values * 100] {
            for (shape, doc) in json_shapes(n) {
                assert!(
                    json_value(doc.as_bytes(), SMALL).is_err(),
                    "json_value {shape} × {n}"
                );
                assert!(
                    json::<Value>(doc.as_bytes(), SMALL).is_err(),
                    "json {shape} × {n}"
                );
                assert!(
                    json::<IgnoredAny>(doc.as_bytes(), SMALL).is_err(),
                    "json skipping {shape} × {n}"
                );
                let commented = format!("// a comment makes it JSONC\n{doc}");
                assert!(
                    jsonc_value(&commented, SMALL, &Default::default()).is_err(),
                    "jsonc {shape} × {n}"
                );
                assert!(
                    jsonc_tree(&commented, SMALL, &Default::default()).is_err(),
                    "jsonc tree {shape} × {n}"
                );
            }
            for (shape, doc) in toml_shapes(n) {
                assert!(
                    toml::<toml::Table>(&doc, SMALL).is_err(),
                    "toml {shape} × {n}"
                );
            }
        }
        for (shape, doc) in json_shapes(SMALL.depth - 2) {
            assert!(json_value(doc.as_bytes(), SMALL).is_ok(), "{shape}");
            assert!(json::<Value>(doc.as_bytes(), SMALL).is_ok(), "{shape}");
            let commented = format!("// a comment makes it JSONC\n{doc}");
            assert!(
                jsonc_value(&commented, SMALL, &Default::default()).is_ok(),
                "{shape}"
            );
            assert!(
                jsonc_tree(&commented, SMALL, &Default::default()).is_ok(),
                "{shape}"
            );
        }
        for (shape, doc) in toml_shapes(SMALL.depth - 2) {
            assert!(toml::<toml::Table>(&doc, SMALL).is_ok(), "{shape}: {doc}");
        }
    }

    /// The budget counts what a document holds, not how it is spelled: separators inside strings
    /// and comments are free, so a long instruction text or comment never refuses a file.
    #[test]
    fn text_inside_strings_and_comments_costs_nothing() {
        let punctuation = "[{=,.}]".repeat(SMALL.values);
        let doc = format!(
            "# {punctuation}\ntext = \"{punctuation}\"\nlit = '{punctuation}'\nml = \"\"\"\n{punctuation}\n\"\"\"\n"
        );
        let table: toml::Table = toml(&doc, SMALL).expect("strings and comments are free");
        assert_eq!(table["lit"].as_str(), Some(punctuation.as_str()));
        let doc = serde_json::json!({ "text": punctuation }).to_string();
        assert_eq!(
            json_value(doc.as_bytes(), SMALL).unwrap()["text"],
            punctuation
        );
        assert!(json::<Value>(doc.as_bytes(), SMALL).is_ok());
    }

    /// The budget is exact for JSON: `values` values parse, one more is refused.
    #[test]
    fn json_budget_is_exact() {
        let at = format!("[{}]", vec!["0"; SMALL.values - 1].join(","));
        let over = format!("[{}]", vec!["0"; SMALL.values].join(","));
        assert!(json_value(at.as_bytes(), SMALL).is_ok());
        assert!(json::<Value>(at.as_bytes(), SMALL).is_ok());
        assert_eq!(
            json_value(over.as_bytes(), SMALL),
            Err(Refused::TooComplex(SMALL.values))
        );
        assert_eq!(
            json::<Value>(over.as_bytes(), SMALL),
            Err(Refused::TooComplex(SMALL.values))
        );
    }

    #[test]
    fn faults_and_strings() {
        assert_eq!(
            json_value(b"{\"a\":", FILE).map_err(|e| e.code()),
            Err("invalid")
        );
        assert_eq!(
            json::<Value>(b"[1] 2", FILE).map_err(|e| e.code()),
            Err("invalid")
        );
        assert!(toml::<toml::Table>("a = ", FILE).is_err());
        let cut = Limits {
            string_bytes: 3,
            ..FILE
        };
        assert_eq!(
            json_value("\u{feff}\"abcdef\"".as_bytes(), cut),
            Ok(Value::from("abc"))
        );
        assert_eq!(json_value(b"\"abcdef\"", FILE), Ok(Value::from("abcdef")));
    }
}
