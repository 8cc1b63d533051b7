//! Bad input and faults through the real binary: corrupt or truncated catalogs and indexes, a
//! catalog whose fingerprint does not match, unreadable manifests, unwritable analytics, hostile
//! AGENTS.md files, broken SKILL.md files, a huge project root; and concurrency: 64 hooks on one
//! analytics file, and hooks reading a catalog while `catalog build` replaces it. The hook always
//! exits 0 with correct or degraded output, and says why under SOPHIA_DEBUG=1.
// Tests and benches set up and read their files directly; the door (clippy.toml) is for the crate.
#![allow(clippy::disallowed_methods)]

use crate::common;

use std::fs;
use std::path::Path;

use common::run_binary;
use serde_json::Value;

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir_all(dir.path().join(".git")).unwrap();
    dir
}

fn prompt_payload(root: &Path, prompt: &str) -> Vec<u8> {
    serde_json::json!({"hook_event_name": "UserPromptSubmit", "session_id": "s", "cwd": root, "prompt": prompt})
        .to_string()
        .into_bytes()
}

fn hook(root: &Path, prompt: &str, env: &[(&str, &str)]) -> common::Run {
    // A generous time budget: these tests assert degradation reasons, not speed, and the
    // parallel tests beside them can stall a debug build past the default 100 ms.
    let mut all = vec![("SOPHIA_DEBUG", "1"), ("SOPHIA_ANALYTICS", "off")];
    all.extend_from_slice(env);
    // HOME beside the project, as on a user's machine (one inside it would be refused).
    let home = tempfile::tempdir().unwrap();
    let run = run_binary(&[], &prompt_payload(root, prompt), home.path(), &all);
    assert_eq!(run.code, 0, "{}", run.stderr);
    run
}

fn write_skill(root: &Path, name: &str, text: &str) {
    let dir = root.join("skills").join(name);
    fs::create_dir_all(&dir).unwrap();
    fs::write(dir.join("SKILL.md"), text).unwrap();
}

const INVOICE: &str = "---\nname: invoice-expert\ndescription: Electronic invoices\nkeywords: [fattura elettronica]\n---\n";

#[test]
fn corrupt_and_truncated_skill_index_falls_back_to_scanning() {
    let p = project();
    write_skill(p.path(), "invoice", INVOICE);
    write_skill(p.path(), "broken", "---\nname: [oops\n---\n");
    let build = run_binary(
        &["skills", "index", "--root", p.path().to_str().unwrap()],
        b"",
        p.path(),
        &[],
    );
    assert_eq!(build.code, 0, "{}", build.stderr);
    let index = p.path().join(".sophia/skills-index.tsv");
    let full = fs::read(&index).unwrap();
    for broken in [&full[..full.len() / 2], b"", b"\x00\xff garbage"] {
        fs::write(&index, broken).unwrap();
        let run = hook(p.path(), "valida la fattura elettronica", &[]);
        assert!(
            run.stdout.contains("skill=invoice-expert"),
            "{}",
            run.stdout
        );
        assert!(
            run.stderr
                .contains("[mcp-skills] warning skills-index-corrupt"),
            "{}",
            run.stderr
        );
        assert!(
            run.stderr
                .contains("warning skill-skipped:skills/broken/SKILL.md"),
            "{}",
            run.stderr
        );
    }
}

#[test]
fn corrupt_truncated_or_tampered_agent_catalogs_degrade_with_a_reason() {
    let p = project();
    common::copy_canonical_source(p.path());
    assert_eq!(
        run_binary(
            &["catalog", "build", "--root", p.path().to_str().unwrap()],
            b"",
            p.path(),
            &[]
        )
        .code,
        0
    );
    let catalog = p.path().join(".sophia/agent-catalog.json");
    let good = fs::read_to_string(&catalog).unwrap();
    let tampered = good.replacen("Read-only discovery", "Edited by hand", 1);
    for (content, reason) in [
        (&good[..good.len() / 3], "agent-catalog-corrupt"),
        ("", "agent-catalog-corrupt"),
        (tampered.as_str(), "agent-catalog-fingerprint-mismatch"),
    ] {
        fs::write(&catalog, content).unwrap();
        let run = hook(
            p.path(),
            "!agents analizza il ticket Mantis 123 e ricostruisci la causa",
            &[],
        );
        assert!(
            run.stdout.contains("agent=technical_analyst"),
            "{}",
            run.stdout
        );
        assert!(
            run.stderr
                .contains(&format!("[mcp-agent-catalog] warning {reason}")),
            "{}",
            run.stderr
        );
    }
}

#[test]
fn unreadable_manifests_and_unwritable_analytics_change_nothing() {
    let p = project();
    let expected = hook(p.path(), "!agents analizza i log", &[]).stdout;
    // The reference run injects the agent line the faults below must not lose.
    assert!(
        expected.contains("subagentMode=required")
            && expected.contains("Sophia agent routing: agent=technical_analyst"),
        "{expected}"
    );
    // The user's files, outside the project (the environment naming one inside it is refused).
    let mine = tempfile::tempdir().unwrap();
    let dir_manifest = mine.path().join("manifest-dir");
    fs::create_dir(&dir_manifest).unwrap();
    let garbage = mine.path().join("garbage.json");
    fs::write(&garbage, b"\xff\xfe not json").unwrap();
    for manifest in [dir_manifest.to_str().unwrap(), garbage.to_str().unwrap()] {
        let run = hook(
            p.path(),
            "!agents analizza i log",
            &[("SOPHIA_AGENT_AVAILABILITY", manifest)],
        );
        assert_eq!(run.stdout, expected);
        assert!(
            run.stderr
                .contains("warning availability-manifest-unreadable"),
            "{}",
            run.stderr
        );
    }
    // A read-only file system (/proc), a directory, a path under a file.
    let file = mine.path().join("plain");
    fs::write(&file, "x").unwrap();
    let folder = mine.path().join("logs-folder");
    fs::create_dir(&folder).unwrap();
    for analytics in [
        "/proc/sophia-hook-test/a.jsonl",
        folder.to_str().unwrap(),
        &format!("{}/sub/a.jsonl", file.to_string_lossy()),
    ] {
        let payload = prompt_payload(p.path(), "!agents analizza i log");
        let run = run_binary(
            &[],
            &payload,
            mine.path(),
            &[("SOPHIA_ANALYTICS_FILE", analytics), ("SOPHIA_DEBUG", "1")],
        );
        assert_eq!((run.code, &run.stdout), (0, &expected), "{analytics}");
        // Not written, or (a kernel folder such as /proc) refused before anything is tried.
        assert!(
            run.stderr.contains("[sophia-hook] analytics not written")
                || run
                    .stderr
                    .contains("env-ignored:SOPHIA_ANALYTICS_FILE:system-folder"),
            "{analytics}: {}",
            run.stderr
        );
    }
}

#[test]
fn hostile_agents_md_files() {
    let session = |root: &Path| {
        // With a CLAUDE.md, Claude Code does not load AGENTS.md itself, so the hook adds it.
        fs::write(root.join("CLAUDE.md"), "# notes\n").unwrap();
        let payload = serde_json::json!({"hook_event_name": "SessionStart", "source": "startup", "cwd": root}).to_string();
        let run = run_binary(
            &["--host", "claude"],
            payload.as_bytes(),
            root,
            &[("SOPHIA_DEBUG", "1"), ("SOPHIA_ANALYTICS", "off")],
        );
        assert_eq!(run.code, 0);
        let v: Value = serde_json::from_str(&run.stdout).unwrap();
        (
            v["hookSpecificOutput"]["additionalContext"]
                .as_str()
                .unwrap()
                .to_owned(),
            run.stderr,
        )
    };
    // Huge: capped, with a truncation note, under Claude's 10,000 characters.
    let p = project();
    fs::write(p.path().join("AGENTS.md"), "regola ".repeat(300_000)).unwrap();
    let (ctx, _) = session(p.path());
    assert!(
        // One line: 6,000 characters once quoted, `> ` and 5,998 of the file.
        ctx.contains("[AGENTS.md truncated: first 5998 characters of a 2100000-byte file"),
        "{}",
        &ctx[ctx.len() - 200..]
    );
    assert!(ctx.chars().count() <= 10_000);
    // Binary: skipped, and the debug line says why.
    let p = project();
    fs::write(p.path().join("AGENTS.md"), b"\x7fELF\x00\x01\x02binary").unwrap();
    let (ctx, err) = session(p.path());
    assert!(!ctx.contains("Project AGENTS.md"));
    assert!(err.contains("AGENTS.md skipped reason=binary"), "{err}");
    // A symlink that leads outside the project: skipped. (Unix: Wine makes no symlinks; the
    // Windows side of this check is edge::files' link tests.)
    #[cfg(unix)]
    {
        let p = project();
        let outside = tempfile::tempdir().unwrap();
        fs::write(outside.path().join("secret.md"), "SECRET-OUTSIDE").unwrap();
        std::os::unix::fs::symlink(outside.path().join("secret.md"), p.path().join("AGENTS.md"))
            .unwrap();
        let (ctx, err) = session(p.path());
        assert!(!ctx.contains("SECRET-OUTSIDE"));
        assert!(
            err.contains("AGENTS.md skipped reason=outside-project"),
            "{err}"
        );
    }
}

#[test]
fn a_project_root_with_ten_thousand_unrelated_files() {
    let p = project();
    for i in 0..10_000 {
        fs::write(p.path().join(format!("file-{i:05}.txt")), "x").unwrap();
    }
    let run = hook(p.path(), "!quick spiegami questa SQL", &[]);
    assert!(
        run.stdout.contains("contextMode=light")
            && run.stdout.contains("skill=mcp-database-expert")
    );
    assert!(
        run.stderr.contains("[mcp-skills] catalog=embedded"),
        "{}",
        run.stderr
    );
}

#[test]
fn sixty_four_concurrent_hooks_append_whole_lines() {
    let p = project();
    // The log outside the project: one the environment puts inside it is refused.
    let logs = tempfile::tempdir().unwrap();
    let log = logs.path().join("analytics.jsonl");
    let runs = 64;
    let handles: Vec<_> = (0..runs)
        .map(|i| {
            let root = p.path().to_path_buf();
            let log = log.clone();
            std::thread::spawn(move || {
                let prompt = [
                    "!quick spiegami la query",
                    "!agents analizza i log",
                    "ciao",
                    "usa un subagent per leggere i file",
                ][i % 4];
                let run = run_binary(
                    &[],
                    &prompt_payload(&root, prompt),
                    &root,
                    &[("SOPHIA_ANALYTICS_FILE", log.to_str().unwrap())],
                );
                assert_eq!(run.code, 0);
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    let text = fs::read_to_string(&log).unwrap();
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("torn line {l:?}: {e}")))
        .collect();
    // One run line per hook; where this machine has a cache to keep hints in (Windows, whose
    // cache folder is not under this HOME), a hinted prompt of a payload without a transcript
    // adds its `unknown` hint-outcome line in the same append (issue 46).
    let run_lines = lines
        .iter()
        .filter(|l| l["event"] != "hint-outcome")
        .count();
    assert_eq!(run_lines, runs, "{text}");
    assert!(
        lines
            .iter()
            .filter(|l| l["event"] == "hint-outcome")
            .all(|l| l["outcome"] == "unknown" && l["reason"] == "transcript-not-given"),
        "{text}"
    );
    assert!(text.ends_with('\n'));
}

#[test]
fn hooks_never_see_a_torn_catalog_while_it_is_rebuilt() {
    let p = project();
    common::copy_canonical_source(p.path());
    let root = p.path().to_str().unwrap().to_owned();
    assert_eq!(
        run_binary(&["catalog", "build", "--root", &root], b"", p.path(), &[]).code,
        0
    );
    let builder = {
        let root = root.clone();
        let dir = p.path().to_path_buf();
        std::thread::spawn(move || {
            for _ in 0..25 {
                let run = run_binary(&["catalog", "build", "--root", &root], b"", &dir, &[]);
                assert_eq!(run.code, 0, "{}", run.stderr);
            }
        })
    };
    let readers: Vec<_> = (0..8)
        .map(|_| {
            let root = root.clone();
            let dir = p.path().to_path_buf();
            std::thread::spawn(move || {
                for _ in 0..8 {
                    let run = run_binary(
                        &[
                            "explain",
                            "--prompt",
                            "!agents analizza i log",
                            "--cwd",
                            &root,
                        ],
                        b"",
                        &dir,
                        &[],
                    );
                    assert_eq!(run.code, 0, "{}", run.stderr);
                    let d: Value = serde_json::from_str(&run.stdout).unwrap();
                    let warnings = d["agents"]["warnings"]
                        .as_array()
                        .cloned()
                        .unwrap_or_default();
                    assert!(
                        !warnings.iter().any(|w| w == "agent-catalog-corrupt"
                            || w == "agent-catalog-fingerprint-mismatch"),
                        "a reader saw a torn catalog: {warnings:?}"
                    );
                    assert_eq!(
                        d["agents"]["recommendedAgents"][0]["agentId"],
                        "technical_analyst"
                    );
                }
            })
        })
        .collect();
    builder.join().unwrap();
    for r in readers {
        r.join().unwrap();
    }
    let leftovers: Vec<_> = fs::read_dir(p.path().join(".sophia"))
        .unwrap()
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().contains(".tmp"))
        .collect();
    assert!(leftovers.is_empty());
}
