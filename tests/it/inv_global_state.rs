//! I3 — no repository changes global state (`docs/security.md` `### I3`): for generated sets of
//! project agent definitions (disabled roles, per host and per role) and every operation that
//! records availability (`install` at both scopes, `agents sync`, `availability --write`), what
//! another project sees afterwards — its hook output and its `availability` — is exactly what it
//! sees after the same operation run in a clean project.
//!
//! Unix only: it plants Unix modes, umasks, symlinks and `sh -c` (the harness in `tests/it/trust/`); on Windows the trust layer's
//! guarantees are held by the unit tests of `edge::files` and `edge::platform` (docs/architecture.md).
// Tests and benches set up and read their files directly; the door (clippy.toml) is for the crate.
#![allow(clippy::disallowed_methods)]
#![cfg(unix)]

use crate::trust;

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
        &["agents", "sync", "--host", "all"],
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

/// Issue 18, second pass, case 54: the availability manifest is the user's (a hand-written one
/// has no fingerprint). Every project-scope operation that touches agent definitions — `install`
/// and `uninstall` for each host, with and without the project's own canonical source — leaves
/// it byte for byte; only user-scope operations rewrite it.
#[test]
fn project_scope_operations_never_rewrite_the_users_manifest() {
    let s = Sandbox::new();
    let manifest = s.home.join(".mcp-servers/agent-availability.json");
    let hand_written = "{\"schemaVersion\": 1, \"agents\": {\"scout\": \"unavailable\"}}\n";
    let mut cases = 0;
    for host in ["codex", "claude", "gemini", "antigravity"] {
        for with_source in [false, true] {
            plant(&s.project, &[]);
            if with_source {
                let source = include_str!("../../docs/agents/canonical-subagents.yaml");
                trust::write(
                    &s.project.join("docs/agents/canonical-subagents.yaml"),
                    source,
                );
            }
            for op in [&["install"][..], &["install"], &["uninstall"]] {
                trust::write(&manifest, hand_written);
                let mut args = op.to_vec();
                args.extend_from_slice(&["--host", host, "--scope", "project"]);
                let r = s.run(&s.project, &args, b"");
                assert_eq!(r.code, 0, "{args:?}: {}{}", r.stdout, r.stderr);
                assert_eq!(
                    fs::read_to_string(&manifest).unwrap(),
                    hand_written,
                    "{args:?} (canonical source: {with_source}) rewrote the user's manifest:\n{}",
                    r.stdout
                );
                cases += 1;
            }
        }
    }
    assert_eq!(cases, 24);
}

/// Issue 18, second pass, case 19: a plan belongs to the project it was made in. Planned in one
/// folder of a session, then approved (an approval word, or leaving plan mode) in each other
/// folder the host can be in with the same session id: carried forward exactly when the second
/// folder is the same project (its root, a subfolder, the root through a symlink).
#[test]
fn a_plan_is_carried_forward_only_within_its_project() {
    let s = Sandbox::new();
    let a = s.project.clone();
    fs::create_dir_all(a.join("src/deep")).unwrap();
    let same_name = s.base.join("elsewhere/project");
    fs::create_dir_all(same_name.join(".git")).unwrap();
    let no_git = s.base.join("loose");
    fs::create_dir_all(&no_git).unwrap();
    let link = s.base.join("link-to-project");
    std::os::unix::fs::symlink(&a, &link).unwrap();
    let places: [(&Path, bool); 6] = [
        (&a, true),
        (&a.join("src/deep"), true),
        (&link, true),
        (&s.other, false),
        (&same_name, false),
        (&no_git, false),
    ];
    let turn = |cwd: &Path, session: &str, prompt: &str, mode: &str| {
        let payload = serde_json::json!({
            "hook_event_name": "UserPromptSubmit", "session_id": session, "cwd": cwd,
            "permission_mode": mode, "prompt": prompt,
        });
        let r = s.run(
            cwd,
            &["--host", "claude", "--event", "UserPromptSubmit"],
            payload.to_string().as_bytes(),
        );
        assert_eq!(r.code, 0, "{}", r.stderr);
        r.stdout
    };
    let mut failures = Vec::new();
    for (n, (place, same)) in places.iter().enumerate() {
        for (k, approval) in ["procedi", "ok now fix the bug"].iter().enumerate() {
            let session = format!("session-{n}-{k}");
            let plan = turn(
                &a,
                &session,
                "!agents analizza il ticket Mantis 123 e ricostruisci la causa",
                "plan",
            );
            assert!(plan.contains("technical_analyst"), "{plan}");
            let next = turn(place, &session, approval, "default");
            let carried = next.contains("Planned delegation carried forward");
            if carried != *same {
                failures.push(format!(
                    "{} with {approval:?}: carried={carried}, same project={same}",
                    place.to_string_lossy()
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Issue 29, class 5 (blind pass cases 07 and 08): what one project leaves in the user's state is
/// that clone's, not its path's. For every state the hook keeps per project — this machine's
/// compiled copy of its skills (with the freshness stamp beside it) and a planned delegation to
/// carry forward — the state made in one clone is used again in that clone, and never in another
/// clone made at the same path after the first was removed (a new folder: another identity).
/// (The settings backups: `tests/it/install.rs::a_new_clone_at_the_same_path_never_gets_the_last_clones_settings`.)
#[test]
fn a_new_clone_at_the_same_path_never_gets_the_last_clones_state() {
    const PRIVATE: &str = "payroll-bank-export";
    let skill = format!(
        "---\nname: {PRIVATE}\ndescription: Export the payroll ledger to the bank\n---\nPayroll ledger export.\n"
    );
    // A skill folder past the walk's cap: the walk stops and the hook falls back to this
    // machine's copy of the project's skills.
    let past_the_cap = |dir: &Path| {
        for folder in [".agents/skills", ".codex/skills", "skills"] {
            for i in 0..3_000 {
                fs::create_dir_all(dir.join(format!("{folder}/e{i:05}"))).unwrap();
            }
        }
    };
    let prompt = "export the payroll ledger to the bank";
    for reclone in [false, true] {
        let s = Sandbox::new();
        trust::write(
            &s.project.join(format!(".agents/skills/{PRIVATE}/SKILL.md")),
            &skill,
        );
        let first = s.prompt(&s.project, prompt);
        assert!(first.stdout.contains(PRIVATE), "{}", first.stdout);
        if reclone {
            fs::remove_dir_all(&s.project).unwrap();
            fs::create_dir_all(s.project.join(".git")).unwrap();
        } else {
            fs::remove_dir_all(s.project.join(".agents")).unwrap();
        }
        past_the_cap(&s.project);
        let next = s.prompt(&s.project, prompt);
        assert_eq!(
            next.stdout.contains(PRIVATE),
            !reclone,
            "reclone={reclone}: the machine's copy {} the first clone's skills:\n{}",
            if reclone { "gave" } else { "did not give" },
            next.stdout
        );
    }
    // A plan made in one clone, approved in the same session after a new clone at the path.
    for reclone in [false, true] {
        let s = Sandbox::new();
        let turn = |prompt: &str, mode: &str| {
            let payload = serde_json::json!({
                "hook_event_name": "UserPromptSubmit", "session_id": "s-42", "cwd": s.project,
                "permission_mode": mode, "prompt": prompt,
            });
            s.run(
                &s.project,
                &["--host", "claude", "--event", "UserPromptSubmit"],
                payload.to_string().as_bytes(),
            )
            .stdout
        };
        let plan = turn(
            "!agents analizza il ticket Mantis 123 e ricostruisci la causa",
            "plan",
        );
        assert!(plan.contains("technical_analyst"), "{plan}");
        if reclone {
            fs::remove_dir_all(&s.project).unwrap();
            fs::create_dir_all(s.project.join(".git")).unwrap();
        }
        let next = turn("procedi", "default");
        assert_eq!(
            next.contains("Planned delegation carried forward"),
            !reclone,
            "reclone={reclone}: {next}"
        );
    }
}
