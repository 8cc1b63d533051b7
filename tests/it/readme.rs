//! The README's host examples are exactly what `install` writes: each JSON block under a host's
//! heading must equal `install`'s document for that host (binary `/home/me/.cargo/bin/sophia-hook`).
// Tests and benches set up and read their files directly; the door (clippy.toml) is for the crate.
#![allow(clippy::disallowed_methods)]

use serde_json::Value;
use sophia_hook::hosts::Host;
use sophia_hook::install::install;

const BIN: &str = "/home/me/.cargo/bin/sophia-hook";

/// The first ```json block after the line `heading`.
fn example(readme: &str, heading: &str) -> Value {
    let at = readme
        .lines()
        .position(|l| l == heading)
        .unwrap_or_else(|| panic!("README has no `{heading}`"));
    let rest: Vec<&str> = readme.lines().skip(at + 1).collect();
    let start = rest.iter().position(|l| *l == "```json").unwrap() + 1;
    let end = start + rest[start..].iter().position(|l| *l == "```").unwrap();
    serde_json::from_str(&rest[start..end].join("\n")).unwrap_or_else(|e| panic!("{heading}: {e}"))
}

// On Windows `install` adds `commandWindows` for Codex, which the README does not show.
#[cfg(not(windows))]
#[test]
fn readme_examples_are_what_install_writes() {
    let readme = include_str!("../../README.md");
    for (heading, host) in [
        ("### Codex", Host::Codex),
        ("### Claude Code", Host::Claude),
        ("### Gemini CLI", Host::Gemini),
        ("### Antigravity (experimental)", Host::Antigravity),
    ] {
        let written = install(Value::Null, host, BIN).unwrap();
        assert_eq!(example(readme, heading), written, "{heading}");
    }
}
