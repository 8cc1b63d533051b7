//! YAML from files a repository or user may write (`SKILL.md` frontmatter, the canonical agent
//! source, `.sophia-hook.yaml` and the user config): one parser
//! configuration with budgets, so a small file cannot expand into millions of nodes through
//! aliases (a "billion laughs") or nest without bound. Pure.

use serde::de::DeserializeOwned;

/// At most this many parser events, nodes and replayed alias events per document: far above any
/// real frontmatter or agent source (hundreds), far below what costs measurable time.
const MAX_EVENTS: usize = 50_000;
/// Aliases are legitimate YAML but never needed in our files; a handful is allowed.
const MAX_ALIASES: usize = 64;
const MAX_DEPTH: usize = 16;

/// Parses `text` with the budgets above. The error is the parser's first line.
pub fn from_str_bounded<T: DeserializeOwned>(text: &str) -> Result<T, String> {
    let mut limits = serde_saphyr::options::AliasLimits::default();
    limits.max_total_replayed_events = MAX_EVENTS;
    limits.max_alias_expansions_per_anchor = MAX_ALIASES;
    let options = serde_saphyr::options! {
        budget: serde_saphyr::budget! {
            max_events: MAX_EVENTS,
            max_nodes: MAX_EVENTS,
            max_aliases: MAX_ALIASES,
            max_anchors: MAX_ALIASES,
            max_depth: MAX_DEPTH,
            max_documents: 1,
        },
        alias_limits: limits,
    };
    serde_saphyr::from_str_with_options(text, options)
        .map_err(|e| e.to_string().lines().next().unwrap_or_default().to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_alias_bomb_is_refused_quickly() {
        let mut bomb = String::from("a: &a [x,x,x,x,x,x,x,x,x,x]\n");
        let names = ["a", "b", "c", "d", "e", "f", "g", "h"];
        for w in names.windows(2) {
            let refs = vec![format!("*{}", w[0]); 10].join(",");
            bomb.push_str(&format!("{}: &{} [{refs}]\n", w[1], w[1]));
        }
        let r: Result<serde_json::Value, _> = from_str_bounded(&bomb);
        assert!(r.is_err());
    }

    #[test]
    fn ordinary_yaml_parses() {
        let v: serde_json::Value =
            from_str_bounded("name: a\nkeywords: [sql, excel]\nnested: {a: [1, 2]}\n").unwrap();
        assert_eq!(v["keywords"][1], "excel");
    }
}
