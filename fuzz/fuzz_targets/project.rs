//! Repository content is untrusted input: the fuzzer writes a project from its bytes — the
//! configuration, a generated agent catalog, a compiled skills index, a `SKILL.md`, the canonical
//! agent source and `AGENTS.md` — and runs the hook on it for a prompt and a SessionStart. The
//! hook must exit 0, print nothing or one JSON object with only the keys the host accepts, and
//! never put a control, line-separator or invisible format character other than a line break or
//! a tab into `additionalContext`.
//!
//! Input: sections separated by the line `@@`, in this order: prompt, `.sophia-hook.yaml`,
//! `.sophia/agent-catalog.json`, `.sophia/skills-index.tsv`, `skills/fuzz/SKILL.md`,
//! `docs/agents/canonical-subagents.yaml`, `AGENTS.md`. A missing section is a missing file.
#![no_main]

use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::Duration;

use libfuzzer_sys::fuzz_target;
use sophia_hook::stages::agents::catalog::is_forbidden_char;
use sophia_hook::clock::FixedClock;
use sophia_hook::edge::settings::Settings;

const FILES: [&str; 6] = [
    ".sophia-hook.yaml",
    ".sophia/agent-catalog.json",
    ".sophia/skills-index.tsv",
    "skills/fuzz/SKILL.md",
    "docs/agents/canonical-subagents.yaml",
    "AGENTS.md",
];

/// One scratch folder per fuzzing process, rewritten for every input: `project/` (a git root)
/// and `home/` (HOME and the cache, so the hook never touches the real user's files).
fn scratch() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("sophia-fuzz-project-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("project/.git")).unwrap();
        std::fs::create_dir_all(dir.join("home")).unwrap();
        dir
    })
}

fn sections(data: &[u8]) -> Vec<&[u8]> {
    let mut out = Vec::new();
    let mut rest = data;
    while let Some(i) = rest.windows(4).position(|w| w == b"\n@@\n") {
        out.push(&rest[..i]);
        rest = &rest[i + 4..];
    }
    out.push(rest);
    out
}

fn check_output(host: &str, text: &str) {
    if text.is_empty() {
        return;
    }
    assert!(
        text.ends_with('\n') && text.matches('\n').count() == 1,
        "{host}: one line"
    );
    let value: serde_json::Value = serde_json::from_str(text).expect("valid JSON");
    let obj = value.as_object().expect("an object");
    if let Some(specific) = obj.get("hookSpecificOutput") {
        let context = specific["additionalContext"].as_str().unwrap_or_default();
        if let Some(c) = context
            .chars()
            .find(|&c| c != '\n' && c != '\t' && is_forbidden_char(c))
        {
            panic!("{host}: additionalContext carries {c:?}");
        }
        // Project text is quoted: after the AGENTS.md header, every line starts with `>` until
        // the block ends (an empty line before the next block) or our truncation note.
        let mut lines = context
            .split('\n')
            .skip_while(|l| !l.starts_with("Project AGENTS.md ("));
        if lines.next().is_some() {
            for line in
                lines.take_while(|l| !l.is_empty() && !l.starts_with("[AGENTS.md truncated"))
            {
                assert!(
                    line.starts_with('>'),
                    "{host}: an unquoted project line {line:?}"
                );
            }
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let parts = sections(data);
    let dir = scratch();
    let project = dir.join("project");
    for (i, rel) in FILES.iter().enumerate() {
        let path = project.join(rel);
        match parts.get(i + 1) {
            Some(bytes) => {
                std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                std::fs::write(&path, bytes).unwrap();
            }
            None => {
                let _ = std::fs::remove_file(&path);
            }
        }
    }
    let prompt = String::from_utf8_lossy(parts[0]).into_owned();
    let home = dir.join("home");
    let settings = Settings::from_lookup(|k| match k {
        "SOPHIA_ANALYTICS" => Some("off".to_owned()),
        "HOME" => Some(home.to_string_lossy().into_owned()),
        "SOPHIA_CACHE_DIR" => Some(home.join("cache").to_string_lossy().into_owned()),
        _ => None,
    });
    let clock = FixedClock {
        now: chrono::DateTime::UNIX_EPOCH,
        elapsed: Duration::from_micros(1),
    };
    let cwd = project.to_string_lossy().into_owned();
    let payloads = [
        serde_json::json!({"hook_event_name": "UserPromptSubmit", "prompt": prompt, "cwd": cwd, "session_id": "fuzz"}),
        serde_json::json!({"hook_event_name": "SessionStart", "source": "startup", "cwd": cwd, "session_id": "fuzz"}),
    ];
    for host in ["codex", "claude"] {
        for payload in &payloads {
            let bytes = serde_json::to_vec(payload).unwrap();
            let args = vec![
                OsString::from("sophia-hook"),
                OsString::from("--host"),
                OsString::from(host),
            ];
            let mut stdout = Vec::new();
            let mut stderr = Vec::new();
            let code = sophia_hook::cli::run(
                args,
                &mut &bytes[..],
                &mut stdout,
                &mut stderr,
                &settings,
                &clock,
            );
            assert_eq!(code, 0);
            check_output(host, &String::from_utf8(stdout).expect("UTF-8 output"));
        }
    }
});
