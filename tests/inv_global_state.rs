//! I3 — no repository changes global state (`docs/security.md` `### I3`): for generated sets of
//! project agent definitions (disabled roles, per host and per role) and every operation that
//! records availability (`install` at both scopes, `agents sync`, `availability --write`), what
//! another project sees afterwards — its hook output and its `availability` — is exactly what it
//! sees after the same operation run in a clean project.
//!
//! Unix only: it plants Unix modes, umasks, symlinks and `sh -c` (the harness in `tests/trust/`); on Windows the trust layer's
//! guarantees are held by the unit tests of `edge::files` and `edge::platform` (docs/architecture.md).
#![cfg(unix)]

mod trust;

use std::fs;
use std::path::Path;

use trust::Sandbox;

const ROLES: [&str; 5] = [
    "scout",
    "technical_analyst",
    "implementer",
    "code_reviewer",
    "test_writer",
];

/// One malicious set: `(host, role)` definitions, each disabled, as each host writes them.
fn plant(dir: &Path, defs: &[(&str, &str)]) {
    let _ = fs::remove_dir_all(dir);
    fs::create_dir_all(dir.join(".git")).unwrap();
    for (host, id) in defs {
        let (rel, text) = match *host {
            "codex" => (
                format!(".codex/agents/{id}.toml"),
                format!("name = \"{id}\"\nenabled = false\n"),
            ),
            "claude" => (
                format!(".claude/agents/{id}.md"),
                format!("---\nname: {id}\ndisabled: true\n---\n"),
            ),
            _ => (
                format!(".gemini/agents/{id}.md"),
                format!("---\nname: {id}\ndisabled: true\n---\n"),
            ),
        };
        trust::write(&dir.join(rel), &text);
    }
}

/// What project `other` sees: a hook run for prompts that name each role, and `availability`.
fn view(s: &Sandbox) -> Vec<String> {
    let prompts = [
        "!agents analizza il ticket Mantis 123 e ricostruisci la causa",
        "!agents review this diff for bugs before merge",
        "!agents write unit tests for the parser",
        "!agents find where the config file is loaded",
        "!agents implement the fix in src/parser.rs",
    ];
    let mut out: Vec<String> = prompts
        .iter()
        .map(|p| s.prompt(&s.other, p).stdout)
        .collect();
    let avail = s.run(&s.other, &["availability"], b"");
    out.push(avail.stdout);
    out
}

#[test]
fn a_projects_disabled_definitions_never_change_what_another_project_sees() {
    let mut sets: Vec<Vec<(&str, &str)>> = Vec::new();
    for host in ["codex", "claude", "gemini"] {
        sets.push(ROLES.iter().map(|r| (host, *r)).collect());
    }
    for role in ROLES {
        sets.push(["codex", "claude", "gemini"].map(|h| (h, role)).to_vec());
    }
    let ops: &[&[&str]] = &[
        &["install", "--host", "codex"],
        &["install", "--host", "claude", "--scope", "user"],
        &["agents", "sync"],
        &["availability", "--write"],
    ];
    let s = Sandbox::new();
    let clean = s.base.join("clean");
    plant(&clean, &[]);
    for op in ops {
        let reset = || {
            let _ = fs::remove_dir_all(&s.home);
            fs::create_dir_all(&s.home).unwrap();
        };
        reset();
        let r = s.run(&clean, op, b"");
        assert_eq!(r.code, 0, "{op:?}: {}{}", r.stdout, r.stderr);
        let expected = view(&s);
        for defs in &sets {
            reset();
            plant(&s.project, defs);
            let r = s.run(&s.project, op, b"");
            assert_eq!(r.code, 0, "{op:?}: {}{}", r.stdout, r.stderr);
            let got = view(&s);
            for (e, g) in expected.iter().zip(&got) {
                assert_eq!(
                    e, g,
                    "{op:?} in a project with disabled definitions {defs:?} changed what another project sees"
                );
            }
        }
    }
}

#[test]
fn a_manifest_for_another_catalog_is_not_applied() {
    // The overlay applies a manifest only to the catalog it was computed for.
    let s = Sandbox::new();
    let before = view(&s);
    let manifest = serde_json::json!({
        "schemaVersion": 1,
        "catalogFingerprint": "sha256:0000000000000000000000000000000000000000000000000000000000000000",
        "agents": ROLES.iter().map(|r| (r.to_string(), serde_json::Value::from("unavailable"))).collect::<serde_json::Map<_, _>>(),
    });
    trust::write(
        &s.home.join(".mcp-servers/agent-availability.json"),
        &manifest.to_string(),
    );
    let after = view(&s);
    assert_eq!(
        before[..5],
        after[..5],
        "a foreign manifest changed the hook's recommendations"
    );
}
