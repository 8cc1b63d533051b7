//! The module layers (docs/architecture.md, "Layers"): `cli.rs` parses and dispatches, the tool
//! subcommands live in `src/commands/`, their bodies in `src/ops/` (which imports neither), the
//! adapters in `src/edge/` import nothing from any of the three, the pure code imports nothing
//! from the edge, the pipeline stages in `src/stages/` import no tool command's pure core, and no
//! two modules import each other through any chain. Read from the source text: every
//! `crate::a::b` path outside comments and `#[cfg(test)]` modules is an edge of the module graph.
// Tests and benches set up and read their files directly; the door (clippy.toml) is for the crate.
#![allow(clippy::disallowed_methods)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Each source file of `src/`, by its path relative to `src/` with `/` separators.
fn source_files() -> BTreeMap<String, String> {
    fn walk(dir: &Path, out: &mut BTreeMap<String, String>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let rel = path.strip_prefix(src()).unwrap();
                out.insert(
                    rel.to_string_lossy().replace('\\', "/"),
                    std::fs::read_to_string(&path).unwrap(),
                );
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(&src(), &mut out);
    out
}

/// The text of a source file before its `#[cfg(test)]` module.
fn production(text: &str) -> &str {
    text.split("#[cfg(test)]\nmod tests").next().unwrap()
}

/// Module path (`ops::agents_sync`) to its source text, tests and comments removed.
fn modules() -> BTreeMap<String, String> {
    source_files()
        .into_iter()
        .map(|(rel, text)| {
            let name = rel
                .trim_end_matches(".rs")
                .trim_end_matches("/mod")
                .replace('/', "::");
            let code = production(&text)
                .lines()
                .filter(|l| !l.trim_start().starts_with("//"))
                .collect::<Vec<_>>()
                .join("\n");
            (name, code)
        })
        .collect()
}

fn src() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The modules each module names through `crate::…` (the longest prefix that is a module).
fn graph(modules: &BTreeMap<String, String>) -> BTreeMap<String, BTreeSet<String>> {
    let path = regex::Regex::new(r"crate::([a-z_][a-z0-9_]*(?:::[a-z_][a-z0-9_]*)*)").unwrap();
    modules
        .iter()
        .map(|(name, code)| {
            let mut deps = BTreeSet::new();
            for cap in path.captures_iter(code) {
                let parts: Vec<&str> = cap[1].split("::").collect();
                if let Some(target) = (1..=parts.len())
                    .rev()
                    .map(|k| parts[..k].join("::"))
                    .find(|m| modules.contains_key(m))
                    && target != *name
                {
                    deps.insert(target);
                }
            }
            (name.clone(), deps)
        })
        .collect()
}

fn layer_violations(
    graph: &BTreeMap<String, BTreeSet<String>>,
    from: impl Fn(&str) -> bool,
    to: impl Fn(&str) -> bool,
) -> Vec<String> {
    graph
        .iter()
        .filter(|(m, _)| from(m))
        .flat_map(|(m, deps)| {
            deps.iter()
                .filter(|d| to(d))
                .map(move |d| format!("{m} -> {d}"))
        })
        .collect()
}

fn in_layer(module: &str, layer: &str) -> bool {
    module == layer || module.starts_with(&format!("{layer}::"))
}

/// The cycles of the graph (strongly connected components with more than one module).
fn cycles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<BTreeSet<String>> {
    // Reachability by depth-first search per module: the graph has a few dozen nodes.
    let reach = |start: &str| -> BTreeSet<String> {
        let mut seen = BTreeSet::new();
        let mut stack = vec![start.to_owned()];
        while let Some(m) = stack.pop() {
            for d in graph.get(&m).into_iter().flatten() {
                if seen.insert(d.clone()) {
                    stack.push(d.clone());
                }
            }
        }
        seen
    };
    let reaches: BTreeMap<&String, BTreeSet<String>> =
        graph.keys().map(|m| (m, reach(m))).collect();
    let mut out: Vec<BTreeSet<String>> = Vec::new();
    for m in graph.keys() {
        let component: BTreeSet<String> = graph
            .keys()
            .filter(|o| *o == m || (reaches[m].contains(*o) && reaches[o].contains(m)))
            .cloned()
            .collect();
        if component.len() > 1 && !out.contains(&component) {
            out.push(component);
        }
    }
    out
}

#[test]
fn adapters_import_no_command_and_stages_import_no_edge() {
    let graph = graph(&modules());
    assert!(graph.contains_key("ops::agents_sync") && graph.contains_key("commands::agents"));
    assert!(graph.contains_key("edge::agents") && graph.contains_key("ops::doctor"));
    let edge = layer_violations(
        &graph,
        |m| in_layer(m, "edge"),
        |d| in_layer(d, "ops") || in_layer(d, "commands") || d == "cli",
    );
    assert_eq!(
        edge,
        Vec::<String>::new(),
        "src/edge/ must not import ops, commands or cli"
    );
    let ops = layer_violations(
        &graph,
        |m| in_layer(m, "ops"),
        |d| in_layer(d, "commands") || d == "cli",
    );
    assert_eq!(
        ops,
        Vec::<String>::new(),
        "src/ops/ must not import commands or cli"
    );
    let commands = layer_violations(&graph, |m| in_layer(m, "commands"), |d| d == "cli");
    assert_eq!(
        commands,
        Vec::<String>::new(),
        "commands must not import cli"
    );
    let outer = |m: &str| {
        in_layer(m, "edge")
            || in_layer(m, "ops")
            || in_layer(m, "commands")
            || m == "cli"
            || m == "main"
    };
    let pure = layer_violations(&graph, |m| !outer(m), outer);
    assert_eq!(
        pure,
        Vec::<String>::new(),
        "the pure stages must not import the edge"
    );
    assert!(graph.contains_key("stages::decision") && graph.contains_key("eval"));
    let stages = layer_violations(&graph, |m| in_layer(m, "stages"), tool_core);
    assert_eq!(
        stages,
        Vec::<String>::new(),
        "src/stages/ must not import a tool command's pure core"
    );
}

/// The pure cores of the tool commands beside the stages in `src/`: they build on the stages,
/// never the other way round.
fn tool_core(module: &str) -> bool {
    ["eval", "install", "plugin", "stats"].contains(&module) || in_layer(module, "report")
}

#[test]
fn no_module_imports_itself_through_a_chain() {
    let found = cycles(&graph(&modules()));
    assert!(found.is_empty(), "import cycles: {found:?}");
}

#[test]
fn the_checks_see_a_planted_cycle_and_a_planted_layer_breach() {
    // The same functions over a graph with one back edge each: they must report it.
    let mut modules = modules();
    modules
        .get_mut("stages::agents::catalog")
        .unwrap()
        .push_str("\nuse crate::stages::agents::availability::Manifest;\n");
    modules
        .get_mut("edge::files")
        .unwrap()
        .push_str("\nfn f() { crate::commands::project_root_arg(None); }\n");
    modules
        .get_mut("edge::hook")
        .unwrap()
        .push_str("\nfn g() { let _ = crate::ops::eval::measure; }\n");
    modules
        .get_mut("ops::report")
        .unwrap()
        .push_str("\nuse crate::commands::report::ReportArgs;\n");
    modules
        .get_mut("stages::render")
        .unwrap()
        .push_str("\nfn h() { let _ = crate::report::mix::RoutingMix::default; }\n");
    let graph = graph(&modules);
    assert!(
        cycles(&graph)
            .iter()
            .any(|c| c.contains("stages::agents::catalog")
                && c.contains("stages::agents::availability")),
        "{:?}",
        cycles(&graph)
    );
    let edge = layer_violations(
        &graph,
        |m| in_layer(m, "edge"),
        |d| in_layer(d, "ops") || in_layer(d, "commands"),
    );
    assert_eq!(edge, ["edge::files -> commands", "edge::hook -> ops::eval"]);
    let ops = layer_violations(&graph, |m| in_layer(m, "ops"), |d| in_layer(d, "commands"));
    assert_eq!(ops, ["ops::report -> commands::report"]);
    let stages = layer_violations(&graph, |m| in_layer(m, "stages"), tool_core);
    assert_eq!(stages, ["stages::render -> report::mix"]);
}

/// The modules that canonicalize a path with std instead of `dunce` (any spelling of the call:
/// `fs::canonicalize`, `std::fs::canonicalize`, `Path::canonicalize`, `.canonicalize()`).
fn std_canonicalizers(modules: &BTreeMap<String, String>) -> Vec<String> {
    let call = regex::Regex::new(
        r"(^|[^:\w])(std::)?fs::canonicalize\b|\.canonicalize\(\)|Path::canonicalize\b",
    )
    .unwrap();
    modules
        .iter()
        .filter(|(_, code)| call.is_match(code))
        .map(|(name, _)| name.clone())
        .collect()
}

/// One canonical form of a path (docs/architecture.md, "Windows"): on Windows
/// `std::fs::canonicalize` gives the verbatim `\\?\C:\...` form, which never equals or
/// `starts_with` the plain `C:\...` form `dunce::canonicalize` gives (and hosts store): a root
/// canonicalized one way and a path the other made every `.sophia/` artifact "not in the sophia
/// folder" under Wine. So every canonicalization in the crate goes through `dunce`.
#[test]
fn every_canonical_path_comes_from_dunce() {
    assert_eq!(std_canonicalizers(&modules()), Vec::<String>::new());
    // The check sees each spelling of a planted std call, and not dunce's.
    for planted in [
        "let r = std::fs::canonicalize(root);",
        "let r = fs::canonicalize(root);",
        "let r = root.canonicalize();",
        "let r = Path::canonicalize(root);",
        ".and_then(std::fs::canonicalize)",
    ] {
        let mut modules = modules();
        modules.get_mut("edge::config").unwrap().push_str(planted);
        assert_eq!(std_canonicalizers(&modules), ["edge::config"], "{planted}");
    }
    let mut modules = modules();
    modules
        .get_mut("edge::config")
        .unwrap()
        .push_str("let r = dunce::canonicalize(root);");
    assert_eq!(std_canonicalizers(&modules), Vec::<String>::new());
}

#[test]
fn the_hosts_layer_imports_nothing_from_the_rest_of_the_crate() {
    let graph = graph(&modules());
    assert!(graph.contains_key("hosts") && graph.contains_key("hosts::codex"));
    let hosts = layer_violations(&graph, |m| in_layer(m, "hosts"), |d| !in_layer(d, "hosts"));
    assert_eq!(
        hosts,
        Vec::<String>::new(),
        "src/hosts/ is the lowest layer: it names nothing outside itself"
    );
}

/// The variants of `Host`, read from its definition in `src/hosts/mod.rs` (so a new host is
/// counted as soon as it is added).
fn host_variants() -> Vec<String> {
    let text = std::fs::read_to_string(src().join("hosts/mod.rs")).unwrap();
    let body = text
        .split("pub enum Host {")
        .nth(1)
        .and_then(|rest| rest.split('}').next())
        .expect("pub enum Host { … } in src/hosts/mod.rs");
    let variants: Vec<String> = body
        .lines()
        .map(str::trim)
        .filter(|l| !l.starts_with("//") && !l.starts_with('#') && !l.is_empty())
        .map(|l| l.trim_end_matches(',').to_owned())
        .collect();
    assert!(variants.len() >= 4, "{variants:?}");
    variants
}

/// Per module outside `src/hosts/`, how many times its code (tests and comments removed) names
/// one host: `Host::Codex`, `Host::Gemini`… (an arm of a `match`, an `==`, a list of hosts).
fn host_mentions(modules: &BTreeMap<String, String>) -> BTreeMap<String, usize> {
    let alternatives = host_variants().join("|");
    let named = regex::Regex::new(&format!(r"\bHost::({alternatives})\b")).unwrap();
    modules
        .iter()
        .filter(|(m, _)| !in_layer(m, "hosts"))
        .map(|(m, code)| (m.clone(), named.find_iter(code).count()))
        .filter(|(_, n)| *n > 0)
        .collect()
}

/// The modules outside `src/hosts/` allowed to name a host (docs/architecture.md, "Hosts"): none.
const ALLOWED_TO_NAME_A_HOST: [&str; 0] = [];

#[test]
fn only_src_hosts_names_a_host() {
    let found = host_mentions(&modules());
    let outside: Vec<_> = found
        .iter()
        .filter(|(m, _)| !ALLOWED_TO_NAME_A_HOST.contains(&m.as_str()))
        .collect();
    assert!(
        outside.is_empty(),
        "host-specific code outside src/hosts/ (ask host.spec() instead): {outside:?}"
    );
    assert!(ALLOWED_TO_NAME_A_HOST.len() <= 4);
}

#[test]
fn the_host_count_sees_a_planted_match_arm() {
    let mut modules = modules();
    modules.get_mut("stages::render").unwrap().push_str(
        "\nfn f(h: Host) -> u8 { match h { Host::Gemini => 1, Host::Codex | Host::Claude => 2, _ => 3 } }\n",
    );
    // Inside src/hosts/ it is the point.
    modules
        .get_mut("hosts::codex")
        .unwrap()
        .push_str("\nconst H: Host = Host::Antigravity;\n");
    let found = host_mentions(&modules);
    assert_eq!(found.get("stages::render"), Some(&3), "{found:?}");
    assert_eq!(found.get("hosts::codex"), None, "{found:?}");
}

/// The places in a test's source that put an executable on disk by hand: a copy of the binary
/// under test, a mode with the owner's execute bit, a file written with a `#!` line. All of them
/// race with another test thread's fork ("text file busy"); `tests/it/common/exe.rs` is the one way.
fn hand_written_executables(text: &str) -> Vec<String> {
    let copy = regex::Regex::new(r"copy\([^;]*?(?:BIN|CARGO_BIN_EXE)").unwrap();
    let mode = regex::Regex::new(r"from_mode\(\s*0o[0-7]?[1357][0-7]{2}\s*\)").unwrap();
    let shebang = regex::Regex::new(r##"write\(\s*[^;]*?,\s*(?:&?format!\(\s*)?"#!"##).unwrap();
    [copy, mode, shebang]
        .iter()
        .flat_map(|re| re.find_iter(text).map(|m| m.as_str().to_owned()))
        .collect()
}

/// `text` with its comments removed and the contents of its string and character literals
/// blanked (`""`, `' '`), so that what is left is code: identifiers, paths, punctuation. Raw
/// strings (`r#"…"#`), escapes and lifetimes (`'a`, not a literal) are told apart.
fn code_only(text: &str) -> String {
    let b: Vec<char> = text.chars().collect();
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let next = b.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < b.len() && b[i] != '\n' {
                i += 1;
            }
            continue;
        }
        if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < b.len() {
                if b[i] == '/' && b.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if b[i] == '*' && b.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
            out.push(' ');
            continue;
        }
        let starts_word = i == 0 || !ident(b[i - 1]);
        if starts_word && (c == 'r' || (c == 'b' && next == Some('r'))) {
            let mut j = i + if c == 'b' { 2 } else { 1 };
            let mut hashes = 0;
            while b.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if b.get(j) == Some(&'"') {
                j += 1;
                while j < b.len()
                    && !(b[j] == '"' && (1..=hashes).all(|k| b.get(j + k) == Some(&'#')))
                {
                    j += 1;
                }
                out.push_str("\"\"");
                i = j + 1 + hashes;
                continue;
            }
        }
        if c == '"' {
            let mut j = i + 1;
            while j < b.len() && b[j] != '"' {
                j += if b[j] == '\\' { 2 } else { 1 };
            }
            out.push_str("\"\"");
            i = j + 1;
            continue;
        }
        if c == '\'' {
            if next == Some('\\') {
                let mut j = i + 2;
                while j < b.len() && b[j] != '\'' {
                    j += 1;
                }
                out.push_str("' '");
                i = j + 1;
                continue;
            }
            if b.get(i + 2) == Some(&'\'') {
                out.push_str("' '");
                i += 3;
                continue;
            }
        }
        out.push(c);
        i += 1;
    }
    out
}

/// Each production source file of `src/` ([`production`]), by its path relative to `src/`, as
/// [`code_only`] leaves it.
fn production_code() -> BTreeMap<String, String> {
    source_files()
        .into_iter()
        .map(|(rel, text)| (rel, code_only(production(&text))))
        .collect()
}

/// Per file outside `src/hosts/`, the identifiers of its code that hold a host's id (`codex`,
/// `Gemini`, any case: `check_codex_trust`, `hosts::gemini::…`, `CLAUDE_MD`). Comments and the
/// text of literals do not count: a message may name a host, a function may not.
fn host_named_identifiers(code: &BTreeMap<String, String>) -> BTreeMap<String, Vec<String>> {
    let ids: Vec<String> = host_variants().iter().map(|v| v.to_lowercase()).collect();
    let word = regex::Regex::new(r"[A-Za-z_][A-Za-z0-9_]*").unwrap();
    code.iter()
        .filter(|(file, _)| !file.starts_with("hosts/"))
        .filter_map(|(file, text)| {
            let found: Vec<String> = word
                .find_iter(text)
                .map(|m| m.as_str())
                .filter(|w| {
                    let w = w.to_lowercase();
                    ids.iter().any(|id| w.contains(id.as_str()))
                })
                .map(str::to_owned)
                .collect();
            (!found.is_empty()).then(|| (file.clone(), found))
        })
        .collect()
}

/// Issue 30's done-when, first half: outside `src/hosts/`, no production code names a host —
/// not as `Host::Codex` (above) and not in an identifier or a path (`gemini_acknowledged`,
/// `crate::hosts::gemini::…`): what is one host's lives in its file, behind the spec's traits.
#[test]
fn no_identifier_outside_src_hosts_names_a_host() {
    let found = host_named_identifiers(&production_code());
    assert!(
        found.is_empty(),
        "code outside src/hosts/ names a host (move it into the host's file, behind the spec): {found:?}"
    );
}

#[test]
fn the_identifier_check_sees_a_planted_name_and_not_a_message() {
    let mut code = production_code();
    let plant = |code: &mut BTreeMap<String, String>, file: &str, text: &str| {
        code.get_mut(file).unwrap().push_str(&code_only(text));
    };
    plant(
        &mut code,
        "stages/render.rs",
        "\nfn check_codex_trust() {}\n",
    );
    plant(
        &mut code,
        "ops/doctor.rs",
        "\nuse crate::hosts::gemini::trusts;\n",
    );
    plant(&mut code, "install.rs", "\nconst CLAUDE_MD: u8 = 1;\n");
    // A message, a raw string, a comment, a character and a lifetime name nobody.
    plant(
        &mut code,
        "stages/decision.rs",
        "\nfn f<'a>(x: &'a str) -> String { let _c = '\"'; /* Codex */ format!(\"Gemini CLI {x}\") + r#\"copilot \"antigravity\"#\" } // Claude Code\n",
    );
    // Inside src/hosts/ it is the point.
    plant(&mut code, "hosts/codex.rs", "\nfn codex_only() {}\n");
    let found = host_named_identifiers(&code);
    assert_eq!(
        found.keys().map(String::as_str).collect::<Vec<_>>(),
        ["install.rs", "ops/doctor.rs", "stages/render.rs"],
        "{found:?}"
    );
    assert_eq!(found["stages/render.rs"], ["check_codex_trust"]);
    assert_eq!(found["ops/doctor.rs"], ["gemini"]);
    assert_eq!(found["install.rs"], ["CLAUDE_MD"]);
}

/// The "kind" enums of the host descriptor: every enum reachable from `HostSpec` through the
/// field types of the structs and enum variants of `src/hosts/` (a trait object is a door, not a kind: what is
/// behind it is code in a host's file), with their variants.
fn kind_enums(code: &BTreeMap<String, String>) -> BTreeMap<String, Vec<String>> {
    let hosts: String = code
        .iter()
        .filter(|(file, _)| file.starts_with("hosts/"))
        .map(|(_, text)| text.as_str())
        .collect::<Vec<_>>()
        .join("\n");
    let item = regex::Regex::new(r"pub (struct|enum) ([A-Z][A-Za-z0-9]*)[^{;(]*\{").unwrap();
    let word = regex::Regex::new(r"\b[A-Z][A-Za-z0-9]*\b").unwrap();
    let variant = regex::Regex::new(r"^\s*([A-Z][A-Za-z0-9]*)\b").unwrap();
    let dyn_type = regex::Regex::new(r"dyn\s+[A-Za-z0-9_:]+").unwrap();
    // Each struct's field text and each enum's top-level variants.
    let mut structs: BTreeMap<String, String> = BTreeMap::new();
    let mut enums: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut enum_bodies: BTreeMap<String, String> = BTreeMap::new();
    for cap in item.captures_iter(&hosts) {
        let start = cap.get(0).unwrap().end();
        let mut depth = 1;
        let mut end = start;
        for (k, ch) in hosts[start..].char_indices() {
            match ch {
                '{' => depth += 1,
                '}' => depth -= 1,
                _ => {}
            }
            if depth == 0 {
                end = start + k;
                break;
            }
        }
        let body = &hosts[start..end];
        if &cap[1] == "struct" {
            structs.insert(cap[2].to_owned(), body.to_owned());
        } else {
            let mut nesting = 0i32;
            let mut variants = Vec::new();
            for line in body.lines() {
                if nesting == 0
                    && let Some(v) = variant.captures(line)
                {
                    variants.push(v[1].to_owned());
                }
                nesting += line.matches(['{', '(']).count() as i32
                    - line.matches(['}', ')']).count() as i32;
            }
            enums.insert(cap[2].to_owned(), variants);
            enum_bodies.insert(cap[2].to_owned(), body.to_owned());
        }
    }
    let mut seen = BTreeSet::new();
    let mut todo = vec!["HostSpec".to_owned()];
    while let Some(name) = todo.pop() {
        if !seen.insert(name.clone()) {
            continue;
        }
        // A struct's fields, and the fields of an enum's variants (`Marketplace { source:
        // ListingSource }`).
        if let Some(fields) = structs.get(&name).or(enum_bodies.get(&name)) {
            for field in fields.lines() {
                // The type after `name:` (or inside a tuple variant's parentheses); a trait
                // object's type is not followed: `&'static dyn Layout`.
                let ty = field
                    .split_once(':')
                    .or_else(|| field.split_once('('))
                    .map_or("", |(_, t)| t);
                let ty = dyn_type.replace_all(ty, "");
                todo.extend(word.find_iter(&ty).map(|m| m.as_str().to_owned()));
            }
        }
    }
    enums.retain(|name, _| seen.contains(name) && name != "Host");
    enums
}

/// The variants of the kind enums that exactly one host file names, each as `Enum::Variant`.
fn single_host_variants(code: &BTreeMap<String, String>) -> Vec<String> {
    let ids: Vec<String> = host_variants().iter().map(|v| v.to_lowercase()).collect();
    kind_enums(code)
        .into_iter()
        .flat_map(|(name, variants)| variants.into_iter().map(move |v| format!("{name}::{v}")))
        .filter(|path| {
            let named = regex::Regex::new(&format!(r"\b{path}\b")).unwrap();
            ids.iter()
                .filter(|id| named.is_match(&code[&format!("hosts/{id}.rs")]))
                .count()
                == 1
        })
        .collect()
}

/// Per file outside `src/hosts/`, the single-host kind variants its code names.
fn single_host_kinds_outside(code: &BTreeMap<String, String>) -> BTreeMap<String, Vec<String>> {
    let single = single_host_variants(code);
    code.iter()
        .filter(|(file, _)| !file.starts_with("hosts/"))
        .filter_map(|(file, text)| {
            let found: Vec<String> = single
                .iter()
                .filter(|path| {
                    regex::Regex::new(&format!(r"\b{path}\b"))
                        .unwrap()
                        .is_match(text)
                })
                .cloned()
                .collect();
            (!found.is_empty()).then(|| (file.clone(), found))
        })
        .collect()
}

/// Issue 30's done-when, second half: outside `src/hosts/`, no code matches a kind variant only
/// one host uses (`Trust::HandlerHashes` was Codex's, matched in doctor): such a kind is code in
/// the host's file behind a trait the spec holds.
#[test]
fn no_single_host_kind_is_matched_outside_src_hosts() {
    let code = production_code();
    let kinds = kind_enums(&code);
    for known in ["AgentsMd", "BothScopes", "UserPath", "PluginPlace"] {
        assert!(kinds.contains_key(known), "{known} not read: {kinds:?}");
    }
    assert_eq!(
        single_host_kinds_outside(&code),
        BTreeMap::new(),
        "a kind only one host uses is matched outside src/hosts/ (move it into the host's file, behind a trait)"
    );
}

#[test]
fn the_kind_check_sees_a_planted_single_host_match() {
    let mut code = production_code();
    let single = single_host_variants(&code);
    // Today: Claude Code's own document, Gemini CLI's never loading AGENTS.md, Claude Code's
    // same-command rule for both scopes.
    for v in [
        "AgentsMd::UnlessOwnDoc",
        "AgentsMd::Never",
        "BothScopes::BothRunUnlessSameCommand",
    ] {
        assert!(single.contains(&v.to_owned()), "{v}: {single:?}");
    }
    assert!(
        !single.contains(&"AgentsMd::Always".to_owned()),
        "{single:?}"
    );
    code.get_mut("stages/render.rs")
        .unwrap()
        .push_str(&code_only(
            "\nfn f(h: Host) -> bool { matches!(h.spec().agents_md, AgentsMd::UnlessOwnDoc(_)) }\n",
        ));
    code.get_mut("ops/doctor.rs").unwrap().push_str(&code_only(
        "\nfn g(h: Host) -> bool { h.spec().agents_md == AgentsMd::Always } // AgentsMd::Never\n",
    ));
    let found = single_host_kinds_outside(&code);
    assert_eq!(
        found,
        BTreeMap::from([(
            "stages/render.rs".to_owned(),
            vec!["AgentsMd::UnlessOwnDoc".to_owned()]
        )])
    );
}

#[test]
fn tests_put_executables_on_disk_only_through_common_exe() {
    fn walk(dir: &Path, out: &mut Vec<String>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                if !path.ends_with("e2e") {
                    walk(&path, out);
                }
            } else if path.extension().is_some_and(|e| e == "rs")
                // The one way, and this file's planted examples.
                && !path.ends_with("common/exe.rs")
                && !path.ends_with("tests/it/layers.rs")
            {
                let text = std::fs::read_to_string(&path).unwrap();
                for hit in hand_written_executables(&text) {
                    out.push(format!("{}: {hit}", path.to_string_lossy()));
                }
            }
        }
    }
    let mut hits = Vec::new();
    walk(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests"),
        &mut hits,
    );
    assert!(
        hits.is_empty(),
        "use tests/it/common/exe.rs:\n{}",
        hits.join("\n")
    );
}

#[test]
fn the_executable_check_sees_each_hand_written_form() {
    let planted = [
        "fs::copy(trust::BIN, &bin).unwrap();",
        "std::fs::copy(\n    env!(\"CARGO_BIN_EXE_sophia-hook\"),\n    &to,\n)",
        "fs::set_permissions(&p, fs::Permissions::from_mode(0o755)).unwrap();",
        "fs::set_permissions(&p, Permissions::from_mode(0o700))",
        "fs::write(&path, \"#!/bin/sh\\nexit 0\\n\").unwrap();",
        "std::fs::write(\n    &script,\n    format!(\"#!/bin/sh\\ntouch '{}'\\n\", m),\n)",
    ];
    for text in planted {
        assert_eq!(hand_written_executables(text).len(), 1, "{text}");
    }
    let fine = [
        "fs::copy(fixture, &three).unwrap();",
        "fs::set_permissions(&p, fs::Permissions::from_mode(0o644)).unwrap();",
        "fs::set_permissions(&p, fs::Permissions::from_mode(0o600)).unwrap();",
        "fs::write(&path, \"name: x\\n\").unwrap();",
        "let want = if bin { 0o755 } else { 0o644 };",
    ];
    for text in fine {
        assert!(hand_written_executables(text).is_empty(), "{text}");
    }
}

/// The one door (docs/security.md, "One door"): clippy refuses the `std::fs` calls that read,
/// write or list (`clippy.toml`) and `Path::display` (a path reaches text for people only through
/// `charset::Shown`), and no module of the crate lifts that refusal with an `allow` — except the
/// door itself (`edge::files`, `edge::platform`) and the inner attribute of a `#[cfg(test)]`
/// module. Without this test, deleting an entry or allowing it in one file would pass `cargo
/// clippy` silently.
#[test]
fn the_door_is_the_only_way_to_files_and_names() {
    let config = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("clippy.toml"))
        .expect("clippy.toml");
    let table: toml::Table = config.parse().expect("clippy.toml is TOML");
    let refused: Vec<&str> = table["disallowed-methods"]
        .as_array()
        .expect("disallowed-methods is a list")
        .iter()
        .filter_map(|m| m.get("path").and_then(|p| p.as_str()))
        .collect();
    for method in [
        "std::path::Path::display",
        "std::fs::read",
        "std::fs::read_to_string",
        "std::fs::read_dir",
        "std::fs::write",
        "std::fs::File::open",
        "std::fs::File::create",
        "std::fs::OpenOptions::open",
        "std::fs::metadata",
        "std::fs::symlink_metadata",
        "std::fs::remove_file",
        "std::fs::remove_dir",
        "std::fs::remove_dir_all",
        "std::fs::create_dir",
        "std::fs::create_dir_all",
        "std::fs::rename",
        "std::fs::copy",
        "std::fs::hard_link",
        "std::fs::set_permissions",
        "std::fs::read_link",
        "std::path::Path::exists",
        "std::path::Path::try_exists",
        "std::path::Path::is_file",
        "std::path::Path::is_dir",
        "std::path::Path::metadata",
        "std::path::Path::symlink_metadata",
        "std::path::Path::read_dir",
        "std::path::Path::read_link",
        "cap_std::fs::Dir::open_ambient_dir",
        "sophia_hook::edge::files::caps::Cap::for_tests",
        "serde_json::from_str",
        "serde_json::from_slice",
        "serde_json::from_reader",
        "toml::from_str",
        "toml::from_slice",
        "serde_saphyr::from_str",
        "serde_saphyr::from_slice",
        "regex::Regex::new",
        "regex::RegexBuilder::new",
        "regex::RegexSet::new",
        "regex::RegexSetBuilder::new",
        "regex::bytes::Regex::new",
        "regex::bytes::RegexBuilder::new",
        "regex::bytes::RegexSet::new",
        "regex::bytes::RegexSetBuilder::new",
        "std::env::var",
        "std::env::var_os",
        "std::env::vars",
        "std::env::vars_os",
        "std::env::home_dir",
        "std::env::temp_dir",
    ] {
        assert!(
            refused.contains(&method),
            "clippy.toml no longer refuses {method}: {refused:?}"
        );
    }
    assert_eq!(lifted_outside_the_door(&src()), Vec::<String>::new());
}

/// Every way to build a regular expression that clippy's list of constructors does not name
/// (`str::parse`, `TryFrom`, `FromStr`, a builder reached by another path), outside
/// `pattern.rs`, as `file: text`: each of them compiles with Unicode mode on, which the shipped
/// regex crate cannot do (src/pattern.rs).
fn regexes_built_outside_pattern(code: &BTreeMap<String, String>) -> Vec<String> {
    let built = regex::Regex::new(concat!(
        r"\b(Regex|RegexBuilder|RegexSet|RegexSetBuilder)\s*::\s*(new|try_from|from_str|empty)\b",
        r"|parse\s*::\s*<\s*(regex\s*::\s*)?(bytes\s*::\s*)?Regex\b",
        r"|:\s*(regex\s*::\s*)?(bytes\s*::\s*)?Regex\s*=[^;]*\.(parse|try_into)\s*\(",
        r"|<\s*(regex\s*::\s*)?(bytes\s*::\s*)?Regex\s+as\s",
    ))
    .unwrap();
    let mut found = Vec::new();
    for (file, text) in code {
        if file == "pattern.rs" {
            continue;
        }
        for m in built.find_iter(text) {
            found.push(format!("{file}: {}", m.as_str()));
        }
    }
    found
}

#[test]
fn every_regex_is_built_by_pattern_ascii() {
    let code = production_code();
    assert!(code["pattern.rs"].contains("RegexBuilder::new"));
    assert_eq!(regexes_built_outside_pattern(&code), Vec::<String>::new());
}

#[test]
fn the_regex_check_sees_each_way_to_build_one() {
    for planted in [
        "let r = Regex::new(p).unwrap();",
        "let r = regex::bytes::RegexBuilder::new(p).build();",
        "let r = \"x\".parse::<Regex>();",
        "let r = p.parse::<regex::Regex>();",
        "let r: Regex = p.parse().unwrap();",
        "let r: regex::Regex = p.try_into().unwrap();",
        "let r = Regex::try_from(p);",
        "let r = <Regex as std::str::FromStr>::from_str(p);",
        "let r = Regex::from_str(p);",
        "let s = RegexSet::empty();",
    ] {
        let code = BTreeMap::from([("stages/context.rs".to_owned(), code_only(planted))]);
        assert_eq!(
            regexes_built_outside_pattern(&code).len(),
            1,
            "not seen: {planted}"
        );
    }
    // A message or a comment naming one, and the one constructor's own file, are not.
    let fine = BTreeMap::from([
        (
            "edge/hook.rs".to_owned(),
            code_only(
                "let m = \"Regex::new is refused\"; // Regex::new(p)\nlet r = crate::pattern::ascii(p);",
            ),
        ),
        (
            "pattern.rs".to_owned(),
            code_only("regex::RegexBuilder::new(pattern).unicode(false).build()"),
        ),
    ]);
    assert_eq!(regexes_built_outside_pattern(&fine), Vec::<String>::new());
}

/// The parsers' other entries, which clippy cannot tell from the budgeted ones by name (a
/// deserializer built by hand, `str::parse` into a TOML table, dprint's parsers): only
/// `bounded` (JSON, JSONC, TOML) and `yaml` (YAML) use them, so every document of the crate is
/// counted before it is built (docs/security.md, "Bounded parsing").
#[test]
fn structured_text_is_parsed_only_within_a_budget() {
    assert_eq!(unbudgeted_parsers(&src()), Vec::<String>::new());
}

/// Each production line under `dir` (a file's text before its `#[cfg(test)]` module) that
/// reaches a parser around `bounded` and `yaml`, as `file:line`.
fn unbudgeted_parsers(dir: &Path) -> Vec<String> {
    let entry = regex::Regex::new(concat!(
        r"Deserializer::(from_slice|from_str|from_reader|new|parse)\b",
        r"|parse::<\s*toml::",
        r"|toml::(Table|Value)\s*=[^;]*\.parse\(\)",
        r"|jsonc_parser::(parse_to|cst::CstRootNode::parse)",
        r"|CstRootNode::parse",
        r"|serde_saphyr::from_",
    ))
    .unwrap();
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(at) = stack.pop() {
        for item in std::fs::read_dir(&at).unwrap() {
            let path = item.unwrap().path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let rel = path
                .strip_prefix(dir)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            if rel == "bounded.rs" || rel == "yaml.rs" {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            let production = text
                .split("#[cfg(test)]\nmod tests")
                .next()
                .unwrap_or_default();
            for (i, line) in production.lines().enumerate() {
                if !line.trim_start().starts_with("//") && entry.is_match(line) {
                    out.push(format!("{rel}:{}", i + 1));
                }
            }
        }
    }
    out.sort();
    out
}

#[test]
fn the_parser_check_sees_every_way_around_the_budget() {
    let dir = tempfile::tempdir().unwrap();
    let ways = [
        "let v: Value = Value::deserialize(&mut serde_json::Deserializer::from_slice(b))?;",
        "let v = T::deserialize(&mut serde_json::Deserializer::from_str(s))?;",
        "let t = toml::de::Deserializer::parse(text)?;",
        "let t = text.parse::<toml::Table>()?;",
        "let t: toml::Table = text.parse().unwrap();",
        "let v = jsonc_parser::parse_to_serde_value::<Value>(t, &o);",
        "let r = CstRootNode::parse(t, &o);",
        "let y: V = serde_saphyr::from_str_with_options(t, o)?;",
    ];
    for (i, way) in ways.iter().enumerate() {
        std::fs::write(
            dir.path().join(format!("m{i}.rs")),
            format!("fn f() {{\n    {way}\n}}\n"),
        )
        .unwrap();
    }
    std::fs::write(dir.path().join("bounded.rs"), ways.join("\n")).unwrap();
    std::fs::write(
        dir.path().join("fine.rs"),
        format!(
            "fn f() {{}}\n// {}\n#[cfg(test)]\nmod tests {{\n    {}\n}}\n",
            ways[0], ways[3]
        ),
    )
    .unwrap();
    let found = unbudgeted_parsers(dir.path());
    let want: Vec<String> = (0..ways.len()).map(|i| format!("m{i}.rs:2")).collect();
    assert_eq!(found, want);
}

/// Every `clippy::disallowed_methods` allow under `dir` that is not in the door's own modules
/// (or `pattern.rs`, the one constructor of regular expressions) nor the first lines of a
/// `#[cfg(...test...)]` module, as `file:line`.
fn lifted_outside_the_door(dir: &Path) -> Vec<String> {
    fn walk(dir: &Path, base: &Path, out: &mut Vec<String>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, base, out);
                continue;
            }
            let rel = path
                .strip_prefix(base)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            // The door's own modules, and the one constructor of regular expressions.
            if rel.starts_with("edge/files/") || rel.starts_with("edge/platform/") {
                continue;
            }
            if rel == "pattern.rs" {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            let lines: Vec<&str> = text.lines().collect();
            for (i, line) in lines.iter().enumerate() {
                if !line.contains("clippy::disallowed_methods")
                    || line.trim_start().starts_with("//")
                {
                    continue;
                }
                // The one place the environment is read: `process_var`, an outer allow
                // on the one statement that reads a variable, and nothing else.
                if rel == "edge/settings.rs"
                    && line.trim() == "#[allow(clippy::disallowed_methods)]"
                    && lines.get(i + 1).is_some_and(|next| {
                        next.trim_start()
                            .starts_with("std::env::var_os(name).map(|v| v.to_string_lossy()")
                    })
                {
                    continue;
                }
                // Inside a test module: the `mod … {` line is at most two lines up (a comment may
                // sit between), with a cfg naming `test` right above it.
                let in_test = (1..=2).any(|back| {
                    i > back
                        && lines[i - back].trim_end().ends_with('{')
                        && lines[i - back].contains("mod ")
                        && lines[i - back - 1].contains("#[cfg(")
                        && lines[i - back - 1].contains("test")
                        && line.trim_start().starts_with("#![allow(")
                });
                if !in_test {
                    out.push(format!("{rel}:{}", i + 1));
                }
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

#[test]
fn the_door_check_sees_an_allow_outside_a_test_module() {
    let dir = tempfile::tempdir().unwrap();
    let write = |rel: &str, text: &str| {
        let path = dir.path().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write(
        "edge/files/mod.rs",
        "#![allow(clippy::disallowed_methods)]\n",
    );
    write(
        "ok.rs",
        "fn f() {}\n#[cfg(test)]\nmod tests {\n    // Tests set up files.\n    #![allow(clippy::disallowed_methods)]\n}\n",
    );
    write(
        "bad.rs",
        "#[allow(clippy::disallowed_methods)]\nfn f() {}\n",
    );
    write("edge/worse.rs", "#![allow(clippy::disallowed_methods)]\n");
    // The settings module may lift the refusal for its one read of the environment, no more.
    write(
        "edge/settings.rs",
        "fn process_var(name: &str) {\n    #[allow(clippy::disallowed_methods)]\n    std::env::var_os(name).map(|v| v.to_string_lossy().into_owned())\n    #[allow(clippy::disallowed_methods)]\n    let bytes = std::fs::read(\"x\");\n}\n",
    );
    write(
        "sneaky.rs",
        "mod inner {\n    #![allow(clippy::disallowed_methods)]\n}\n",
    );
    assert_eq!(
        lifted_outside_the_door(dir.path()),
        [
            "bad.rs:1",
            "edge/settings.rs:4",
            "edge/worse.rs:1",
            "sneaky.rs:2"
        ]
    );
}

/// What keeps the integration tests one binary, read from a `tests/` folder: a `.rs` file right
/// under `tests/` or a `tests/<dir>/main.rs` other than `it`'s is a test crate of its own (linked
/// on its own: the build time this layout removed), and a file of `tests/it/` that `main.rs`
/// does not declare is never compiled, so its tests silently never run.
fn outside_the_one_binary(tests: &Path) -> Vec<String> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(tests).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if path.is_dir() {
            if name != "it" && path.join("main.rs").exists() {
                found.push(format!("{name}/main.rs: a test crate of its own"));
            }
        } else if name.ends_with(".rs") {
            found.push(format!("{name}: a test crate of its own"));
        }
    }
    let main = std::fs::read_to_string(tests.join("it/main.rs")).unwrap_or_default();
    let declared: BTreeSet<&str> = main
        .lines()
        .filter_map(|l| l.trim().strip_prefix("mod ")?.strip_suffix(';'))
        .collect();
    if let Ok(entries) = std::fs::read_dir(tests.join("it")) {
        for entry in entries {
            let path = entry.unwrap().path();
            let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
            let module = if path.is_dir() {
                path.join("mod.rs").exists()
            } else {
                path.extension().is_some_and(|e| e == "rs") && stem != "main"
            };
            if module && !declared.contains(stem.as_str()) {
                found.push(format!("it/{stem}: not declared in it/main.rs"));
            }
        }
    }
    found.sort();
    found
}

#[test]
fn the_integration_tests_are_one_binary() {
    let tests = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    assert_eq!(outside_the_one_binary(&tests), Vec::<String>::new());
}

#[test]
fn the_one_binary_check_sees_a_crate_of_its_own_and_a_module_left_out() {
    let dir = tempfile::tempdir().unwrap();
    let write = |rel: &str, text: &str| {
        let path = dir.path().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write("it/main.rs", "mod common;\n#[cfg(unix)]\nmod kept;\n");
    write("it/common/mod.rs", "");
    write("it/kept.rs", "");
    write("it/forgotten.rs", "");
    write("it/helpers/mod.rs", "");
    write("it/snapshots/it__kept__x.snap", "");
    write("alone.rs", "");
    write("other/main.rs", "");
    write("e2e/run", "");
    assert_eq!(
        outside_the_one_binary(dir.path()),
        [
            "alone.rs: a test crate of its own",
            "it/forgotten: not declared in it/main.rs",
            "it/helpers: not declared in it/main.rs",
            "other/main.rs: a test crate of its own",
        ]
    );
}

/// The places outside `decision` that could change a decision after `decide` returned, as far as
/// a text check sees them: a decision bound mutably (`let mut x = …decide(…)`, `let (mut x, _) =
/// load_and_decide(…)`, `Ok((mut x, ..))`, `let mut x: Decision`), a `&mut Decision`, an
/// assignment into a decision's field (`x.output = …`), or a field only a decision has borrowed
/// mutably (`mem::take(&mut x.output)`).
/// The outcome is `decide`'s alone; the edge applies it (docs/architecture.md, "The outcome").
fn outcome_changed_after_decide(modules: &BTreeMap<String, String>) -> Vec<String> {
    let patterns = [
        // `let mut d = decide(…)`, `let (mut d, _) = load_and_decide(…)?`
        r"\bmut\s+\w+[^;=]*=\s*[^;]*decide\w*\(",
        r"let\s+mut\s+\w+\s*:\s*Decision\b",
        r"&\s*mut\s+Decision\b",
        // `Ok((mut d, ..)) =>`: a decision taken mutably out of a load's result
        r"Ok\s*\(\s*\(\s*mut\b",
        r"\b(?:decision|outcome)\.\w+(?:\.\w+)*\s*=[^=]",
        // `mem::take(&mut d.output)`: a field only a decision has, borrowed mutably
        r"&\s*mut\s+\w+\.(?:output|effects|hints)\b",
    ]
    .map(|p| regex::Regex::new(p).unwrap());
    let mut found = Vec::new();
    for (module, code) in modules {
        if module == "stages::decision" {
            continue;
        }
        for re in &patterns {
            for m in re.find_iter(code) {
                found.push(format!("{module}: {}", m.as_str().trim()));
            }
        }
    }
    found
}

#[test]
fn nothing_changes_a_decision_after_decide() {
    assert_eq!(
        outcome_changed_after_decide(&modules()),
        Vec::<String>::new()
    );
}

#[test]
fn the_outcome_check_sees_each_way_to_change_a_decision() {
    let planted = [
        "let mut decision = decision::decide(&request, &project);",
        "let mut d: Decision = load();",
        "fn later(d: &mut Decision) {}",
        "decision.output = Printed::noop(host);",
        "decision.effects.carry_forward = None;",
        "let (mut d, _) = load_and_decide(&mut payload, args)?;",
        "Ok((mut d, payload)) => {}",
        "let printed = std::mem::take(&mut d.output);",
    ];
    for text in planted {
        let modules = BTreeMap::from([("edge::hook".to_owned(), text.to_owned())]);
        assert_eq!(
            outcome_changed_after_decide(&modules).len(),
            1,
            "not seen: {text}"
        );
    }
    let fine = BTreeMap::from([(
        "edge::hook".to_owned(),
        "let decision = decide(&r, &p);\nif decision.output == None {}\nlet printed = decision.printed(seen);".to_owned(),
    )]);
    assert_eq!(outcome_changed_after_decide(&fine), Vec::<String>::new());
}

/// Exit codes decided outside `cli::Exit::code`: a process exit, an `ExitCode` constant, or an
/// `ExitCode` made from anything but an `Exit`'s code.
fn exit_codes_outside_exit(modules: &BTreeMap<String, String>) -> Vec<String> {
    let re = regex::Regex::new(
        r"\bexit\s*\(\s*\d|ExitCode::(?:SUCCESS|FAILURE)|ExitCode::from\s*\(\s*\d",
    )
    .unwrap();
    // A process exit (the deadline's watchdog ends the process it answered for) is a code too:
    // only an `Exit`'s.
    let from = regex::Regex::new(r"(?:ExitCode::from|process::exit)\s*\(([^;\n]*)\)").unwrap();
    let mut found = Vec::new();
    for (module, code) in modules {
        for m in re.find_iter(code) {
            found.push(format!("{module}: {}", m.as_str()));
        }
        for c in from.captures_iter(code) {
            if !c[1].ends_with(".code()") && c[1].trim() != "code" {
                found.push(format!("{module}: {}", &c[0]));
            }
        }
    }
    found
}

#[test]
fn exit_codes_are_numbered_in_one_place() {
    let modules = modules();
    // The binary's own file is read too: it is where a process exit would be.
    assert!(modules["main"].contains("ExitCode::from("));
    assert_eq!(exit_codes_outside_exit(&modules), Vec::<String>::new());
}

#[test]
fn the_exit_code_check_sees_each_way_around_it() {
    for text in [
        "std::process::exit(3);",
        "return ExitCode::SUCCESS;",
        "ExitCode::from(101)",
        "ExitCode::from(status as u8)",
    ] {
        let modules = BTreeMap::from([("main".to_owned(), text.to_owned())]);
        assert!(
            !exit_codes_outside_exit(&modules).is_empty(),
            "not seen: {text}"
        );
    }
    let fine = BTreeMap::from([(
        "main".to_owned(),
        "ExitCode::from(Exit::InternalError.code())\nExitCode::from(code)".to_owned(),
    )]);
    assert_eq!(exit_codes_outside_exit(&fine), Vec::<String>::new());
}

/// The files of `src/` (relative, `/`-separated) whose production code names `needle`.
fn naming(needle: &str) -> Vec<String> {
    source_files()
        .into_iter()
        .filter(|(_, text)| {
            production(text)
                .lines()
                .filter(|l| !l.trim_start().starts_with("//"))
                .any(|l| l.contains(needle))
        })
        .map(|(rel, _)| rel)
        .collect()
}

/// One module opens network connections (`edge::telemetry`, issue 49): the HTTP client is named
/// nowhere else, so no other code path can send anything anywhere.
#[test]
fn only_the_telemetry_edge_uses_the_network() {
    assert_eq!(naming("ureq::"), ["edge/telemetry.rs"]);
    for std_net in ["std::net::", "TcpStream", "UdpSocket"] {
        assert_eq!(naming(std_net), Vec::<String>::new(), "{std_net}");
    }
}
