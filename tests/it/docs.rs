//! The documentation runs. In README.md and docs/**/*.md:
//!
//! - `<!-- runnable -->` (or `<!-- runnable exit=N -->`) on the line before a fenced block: every
//!   line of the block that is not blank or a `#` comment is a shell command, run with `sh -c`;
//!   it must exit 0 (or N).
//! - `<!-- output -->` / `<!-- output exact -->` before a fenced block: the block is what the last
//!   command of the previous runnable block prints.
//! - `<!-- output of: CMD -->` / `<!-- output exact of: CMD -->` before a fenced block: the block is
//!   what CMD prints.
//!
//! `exact` compares JSON values (or trimmed text) for equality. Otherwise the shape is compared:
//! a JSON block must have the same keys at every level as the output; a text block's lines must
//! each appear in the output (in the output's lines, or in the lines of any string inside a JSON
//! output) once every `key=value` value is masked.
//!
//! Commands run in a temporary git root holding links to the repository's `fixtures/` and
//! `docs/`, with `HOME` there, analytics off, a large time budget, and `sophia-hook` resolving
//! to the binary under test.
// Tests and benches set up and read their files directly; the door (clippy.toml) is for the crate.
#![allow(clippy::disallowed_methods)]
// The documented commands are POSIX shell lines (`sh -c`, links to the binary): Unix only.
#![cfg(unix)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use regex::Regex;
use serde_json::Value;

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn markdown_files() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "md") {
                out.push(path);
            }
        }
    }
    let mut out = vec![repo().join("README.md")];
    walk(&repo().join("docs"), &mut out);
    out.sort();
    out
}

#[derive(Debug)]
enum Directive {
    Runnable {
        exit: i32,
    },
    Output {
        exact: bool,
        command: Option<String>,
    },
}

fn directive(line: &str) -> Option<Directive> {
    let inner = line
        .trim()
        .strip_prefix("<!--")?
        .strip_suffix("-->")?
        .trim();
    if let Some(rest) = inner.strip_prefix("runnable") {
        let exit = match rest.trim().strip_prefix("exit=") {
            Some(n) => n.parse().expect("exit=N"),
            None => 0,
        };
        return Some(Directive::Runnable { exit });
    }
    let rest = inner.strip_prefix("output")?.trim();
    let (exact, rest) = match rest.strip_prefix("exact") {
        Some(r) => (true, r.trim()),
        None => (false, rest),
    };
    let command = rest.strip_prefix("of:").map(|c| c.trim().to_owned());
    Some(Directive::Output { exact, command })
}

/// Fenced blocks with the directive before them: (directive, first line number, block text).
fn marked_blocks(text: &str) -> Vec<(Directive, usize, String)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let Some(d) = directive(lines[i]) else {
            i += 1;
            continue;
        };
        let mut j = i + 1;
        while j < lines.len() && lines[j].trim().is_empty() {
            j += 1;
        }
        assert!(
            j < lines.len() && lines[j].trim_start().starts_with("```"),
            "line {}: a directive must precede a fenced block",
            i + 1
        );
        let mut body = Vec::new();
        let mut k = j + 1;
        while k < lines.len() && !lines[k].trim_start().starts_with("```") {
            body.push(lines[k]);
            k += 1;
        }
        out.push((d, j + 1, body.join("\n")));
        i = k + 1;
    }
    out
}

struct Sandbox {
    _dir: tempfile::TempDir,
    root: PathBuf,
    path: String,
}

impl Sandbox {
    fn new() -> Sandbox {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("project");
        let bin = dir.path().join("bin");
        std::fs::create_dir_all(root.join(".git")).unwrap();
        std::fs::create_dir_all(dir.path().join("home")).unwrap();
        std::fs::create_dir_all(&bin).unwrap();
        for link in ["fixtures", "docs"] {
            std::os::unix::fs::symlink(repo().join(link), root.join(link)).unwrap();
        }
        std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_sophia-hook"), bin.join("sophia-hook"))
            .unwrap();
        let path = format!(
            "{}:{}",
            bin.to_string_lossy(),
            std::env::var("PATH").unwrap_or_default()
        );
        Sandbox {
            _dir: dir,
            root,
            path,
        }
    }

    fn run(&self, command: &str) -> (i32, String, String) {
        let out = Command::new("sh")
            .arg("-c")
            .arg(command)
            .current_dir(&self.root)
            .env_clear()
            .env("PATH", &self.path)
            // HOME beside the project, as on a user's machine: one inside the project would be
            // the repository's to choose, and refused (`edge::settings`).
            .env("HOME", self.root.with_file_name("home"))
            .env("SOPHIA_ANALYTICS", "off")
            .stdin(Stdio::null())
            .output()
            .unwrap();
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }
}

/// Compares the keys of `doc` with those of `got`, at every level; arrays by their first element.
fn same_shape(doc: &Value, got: &Value, path: &str) -> Result<(), String> {
    match (doc, got) {
        (Value::Object(d), Value::Object(g)) => {
            let dk: Vec<&String> = d.keys().collect();
            let gk: Vec<&String> = g.keys().collect();
            let (mut ds, mut gs) = (dk.clone(), gk.clone());
            ds.sort();
            gs.sort();
            if ds != gs {
                return Err(format!(
                    "{path}: the doc shows keys {ds:?}, the binary {gs:?}"
                ));
            }
            for key in dk {
                same_shape(&d[key], &g[key], &format!("{path}.{key}"))?;
            }
            Ok(())
        }
        (Value::Array(d), Value::Array(g)) => match (d.first(), g.first()) {
            (Some(d0), Some(g0)) => same_shape(d0, g0, &format!("{path}[0]")),
            _ => Ok(()),
        },
        (Value::Object(_) | Value::Array(_), _) | (_, Value::Object(_) | Value::Array(_)) => {
            Err(format!("{path}: the doc shows {doc}, the binary {got}"))
        }
        _ => Ok(()),
    }
}

fn strings(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::String(s) => out.push(s.clone()),
        Value::Array(a) => a.iter().for_each(|x| strings(x, out)),
        Value::Object(o) => o.values().for_each(|x| strings(x, out)),
        _ => {}
    }
}

fn compare(doc: &str, got: &str, exact: bool) -> Result<(), String> {
    let doc_json = serde_json::from_str::<Value>(doc);
    let got_json = serde_json::from_str::<Value>(got);
    match (doc_json, exact) {
        (Ok(d), true) => {
            let g = got_json.map_err(|e| format!("the binary printed no JSON ({e}): {got}"))?;
            (d == g)
                .then_some(())
                .ok_or_else(|| format!("the doc shows\n{d:#}\nthe binary prints\n{g:#}"))
        }
        (Ok(d), false) => {
            let g = got_json.map_err(|e| format!("the binary printed no JSON ({e}): {got}"))?;
            same_shape(&d, &g, "$")
        }
        (Err(_), true) => (doc.trim() == got.trim())
            .then_some(())
            .ok_or_else(|| format!("the doc shows\n{doc}\nthe binary prints\n{got}")),
        (Err(_), false) => {
            let mask = Regex::new(r"=\S+").unwrap();
            let mut lines: Vec<String> = got.lines().map(str::to_owned).collect();
            if let Ok(v) = got_json {
                let mut all = Vec::new();
                strings(&v, &mut all);
                lines.extend(all.iter().flat_map(|s| s.lines().map(str::to_owned)));
            }
            let shapes: Vec<String> = lines
                .iter()
                .map(|l| mask.replace_all(l.trim(), "=…").into_owned())
                .collect();
            for line in doc.lines().filter(|l| !l.trim().is_empty()) {
                let shape = mask.replace_all(line.trim(), "=…").into_owned();
                if !shapes.contains(&shape) {
                    return Err(format!(
                        "the doc line\n  {line}\nis not printed by the binary:\n{}",
                        lines.join("\n")
                    ));
                }
            }
            Ok(())
        }
    }
}

#[test]
fn the_documented_commands_run_and_print_what_the_docs_show() {
    let mut commands = 0;
    let mut outputs = 0;
    let mut failures = Vec::new();
    for file in markdown_files() {
        let text = std::fs::read_to_string(&file).unwrap();
        let name = file
            .strip_prefix(repo())
            .unwrap()
            .to_string_lossy()
            .to_string();
        let sandbox = Sandbox::new();
        let mut last: Option<String> = None;
        for (directive, line, body) in marked_blocks(&text) {
            match directive {
                Directive::Runnable { exit } => {
                    for command in body
                        .lines()
                        .map(str::trim)
                        .filter(|l| !l.is_empty() && !l.starts_with('#'))
                    {
                        let (code, stdout, stderr) = sandbox.run(command);
                        commands += 1;
                        if code != exit {
                            failures.push(format!(
                                "{name}:{line}: `{command}` exited {code}, not {exit}: {stderr}"
                            ));
                        }
                        last = Some(stdout);
                    }
                }
                Directive::Output { exact, command } => {
                    let got = match command {
                        Some(command) => {
                            let (code, stdout, stderr) = sandbox.run(&command);
                            commands += 1;
                            if code != 0 {
                                failures.push(format!(
                                    "{name}:{line}: `{command}` exited {code}: {stderr}"
                                ));
                            }
                            stdout
                        }
                        None => last
                            .clone()
                            .unwrap_or_else(|| panic!("{name}:{line}: no command before")),
                    };
                    outputs += 1;
                    if let Err(e) = compare(&body, &got, exact) {
                        failures.push(format!("{name}:{line}: {e}"));
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(
        commands >= 8,
        "only {commands} documented commands are marked runnable"
    );
    assert!(
        outputs >= 3,
        "only {outputs} documented outputs are checked"
    );
}

#[test]
fn the_checker_fails_on_drift() {
    let doc = r#"{"hooks":{"SessionStart":[{"hooks":[{"timeout":5}]}]}}"#;
    let got = r#"{"hooks":{"SessionStart":[{"matcher":"x","hooks":[{"timeout":10}]}]}}"#;
    assert!(compare(doc, got, false).is_err(), "a missing key");
    assert!(compare(doc, doc, true).is_ok());
    let same_keys = r#"{"hooks":{"SessionStart":[{"hooks":[{"timeout":10}]}]}}"#;
    assert!(compare(doc, same_keys, false).is_ok());
    assert!(compare(doc, same_keys, true).is_err(), "a different value");
    let text = "agent=scout skill=x reasons=a,b.\nDelegate through the tool.";
    let json = serde_json::json!({"o": "agent=implementer skill=y reasons=c.\nDelegate through the tool."});
    assert!(compare(text, &json.to_string(), false).is_ok());
    let stale = "agent=scout skill=x reasons=a.\nDelegate through Codex's tool.";
    assert!(compare(stale, &json.to_string(), false).is_err());
    assert!(matches!(
        directive("<!-- output exact of: sophia-hook x -->"),
        Some(Directive::Output { exact: true, command: Some(c) }) if c == "sophia-hook x"
    ));
    assert!(matches!(
        directive("<!-- runnable exit=1 -->"),
        Some(Directive::Runnable { exit: 1 })
    ));
}
