//! Secrets are never content (`docs/security.md`, "Secrets"): a file named like a secret is never
//! read by any command, directly or through a link a repository commits. Generated: every project
//! file sophia-hook reads × secret names × link kinds, each run through the hook (both events, every
//! host), `explain`, `doctor --json`, `skills index` and `catalog build`; the secret's text appears
//! in no output and no file we write.
// Tests and benches set up and read their files directly; the door (clippy.toml) is for the crate.
#![allow(clippy::disallowed_methods)]
#![cfg(unix)]

use crate::common;

use std::fs;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

use sophia_hook::hosts::Event;
use sophia_hook::hosts::Host;

const MARKER: &str = "SECRET-MARKER-7c1f";

/// Valid as a `SKILL.md`, as an instruction document and as YAML, so that without the guard the
/// readers that parse it would take it in.
fn secret_text() -> String {
    format!(
        "---\nname: leaked-{}\ndescription: deploy keys {MARKER} for the invoices database\n---\n\nOPENAI_API_KEY=sk-{MARKER}\n",
        MARKER.to_ascii_lowercase()
    )
}

/// Every project file a command reads, as a repository may commit it.
const READERS: &[&str] = &[
    "AGENTS.md",
    "CLAUDE.md",
    ".sophia-hook.yaml",
    "skills/deploy/SKILL.md",
    ".agents/skills/deploy/SKILL.md",
    ".claude/skills/deploy/SKILL.md",
    ".mcp.json",
    ".codex/config.toml",
    ".gemini/settings.json",
    "docs/agents/canonical-subagents.yaml",
];

const SECRETS: &[&str] = &[
    ".env",
    ".env.production",
    "keys/id_ed25519",
    "config/credentials.json",
];

#[derive(Debug, Clone, Copy)]
enum Link {
    /// `reader -> secret`.
    Direct,
    /// `reader -> hop -> secret`.
    Chain,
}

fn layout(reader: &str, secret: &str, link: Link) -> (tempfile::TempDir, PathBuf, PathBuf) {
    let (dir, home, project) = common::home_and_project();
    let secret_path = project.join(secret);
    fs::create_dir_all(secret_path.parent().unwrap()).unwrap();
    fs::write(&secret_path, secret_text()).unwrap();
    let reader_path = project.join(reader);
    fs::create_dir_all(reader_path.parent().unwrap()).unwrap();
    match link {
        Link::Direct => symlink(&secret_path, &reader_path).unwrap(),
        Link::Chain => {
            let hop = project.join("hop.md");
            symlink(&secret_path, &hop).unwrap();
            symlink(&hop, &reader_path).unwrap();
        }
    }
    (dir, home, project)
}

fn payload(host: Host, event: Event, project: &Path) -> Vec<u8> {
    let wire = host.event_name(event);
    let mut p = (host.spec().payload.sample)(event, wire, project.to_str().unwrap(), "secrets");
    if event == Event::UserPromptSubmit
        && let Some(key) = p
            .as_object()
            .unwrap()
            .iter()
            .find(|(_, v)| v.as_str() == Some(sophia_hook::hosts::SAMPLE_PROMPT))
            .map(|(k, _)| k.clone())
    {
        p[key] = "deploy keys for the invoices database".into();
    }
    p.to_string().into_bytes()
}

fn leaks(text: &str) -> bool {
    text.contains(MARKER) || text.contains(&MARKER.to_ascii_lowercase())
}

/// Every file under `dir` that holds the marker (the secret itself and its links aside).
fn files_with_marker(dir: &Path, secret: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            let meta = fs::symlink_metadata(&path).unwrap();
            if meta.file_type().is_symlink() || path == secret {
                continue;
            }
            if meta.is_dir() {
                stack.push(path);
            } else if leaks(&String::from_utf8_lossy(&fs::read(&path).unwrap())) {
                out.push(path.to_string_lossy().to_string());
            }
        }
    }
    out
}

#[test]
fn no_command_reads_a_secret_through_any_committed_link() {
    let mut cases = 0;
    for reader in READERS {
        for secret in SECRETS {
            for link in [Link::Direct, Link::Chain] {
                let (_dir, home, project) = layout(reader, secret, link);
                let cell = format!("{reader} -> {secret} ({link:?})");
                let env = [("SOPHIA_ANALYTICS", "off")];
                let run = |args: &[&str], stdin: &[u8]| {
                    let out = common::run_binary_in(args, stdin, &home, &project, &env);
                    assert!(
                        !leaks(&out.stdout) && !leaks(&out.stderr),
                        "{cell}: `{}` printed the secret:\n{}{}",
                        args.join(" "),
                        out.stdout,
                        out.stderr
                    );
                };
                for host in Host::ALL {
                    for event in [Event::SessionStart, Event::UserPromptSubmit] {
                        let p = payload(host, event, &project);
                        run(&["--host", host.as_str()], &p);
                        run(&["explain", "--host", host.as_str()], &p);
                    }
                }
                run(&["doctor", "--json"], b"");
                run(&["skills", "index"], b"");
                run(&["catalog", "build"], b"");
                let written = files_with_marker(&project, &project.join(secret));
                let written_home = files_with_marker(&home, &project.join(secret));
                assert!(
                    written.is_empty() && written_home.is_empty(),
                    "{cell}: the secret was copied into {written:?} {written_home:?}"
                );
                cases += 1;
            }
        }
    }
    assert_eq!(cases, READERS.len() * SECRETS.len() * 2);
}

#[test]
fn the_same_documents_are_read_when_they_are_not_secrets() {
    // The guard is by name, not by link: `CLAUDE.md -> AGENTS.md` and a link to a plain file keep
    // working, so the test above is not passing because links are refused altogether.
    let (_dir, home, project) = layout("AGENTS.md", "docs/rules.md", Link::Direct);
    let p = payload(Host::Gemini, Event::UserPromptSubmit, &project);
    let out = common::run_binary_in(
        &["--host", "gemini"],
        &p,
        &home,
        &project,
        &[("SOPHIA_ANALYTICS", "off")],
    );
    assert!(
        leaks(&out.stdout),
        "a linked AGENTS.md that is not a secret is read: {}",
        out.stdout
    );
}
