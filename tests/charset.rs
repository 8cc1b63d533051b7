//! I5: one character policy. What a repository names (folders, skill and agent files) reaches
//! a terminal only through `charset::TerminalSafe`: every tool subcommand's output escapes
//! control and other hidden characters, so an OSC 52 (clipboard write) or CSI sequence in a file
//! name prints as text. And every code point of the hidden classes, one at a time, is refused or
//! neutralised on each path that leads to the model.

mod common;

use std::fs;
use std::path::Path;

use sophia_hook::charset::hidden_class_members;

/// Names a repository can give its folders: OSC 52, CSI, a C1 CSI, BEL, a carriage return that
/// overwrites the line, a bidi override.
const EVIL: [&str; 6] = [
    "osc\u{1b}]52;c;cHduZWQ=\u{7}",
    "csi\u{1b}[2J\u{1b}[1;1H",
    "cone\u{9b}31m",
    "bell\u{7}",
    "cr\rFAKE-OK",
    "bidi\u{202e}txt",
];

fn project(tmp: &Path) -> std::path::PathBuf {
    let root = tmp.join("repo");
    fs::create_dir_all(root.join(".git")).unwrap();
    for (i, name) in EVIL.iter().enumerate() {
        // A broken skill (its folder is named in a warning) and a good one beside it.
        let dir = root.join("skills").join(name);
        fs::create_dir_all(&dir).unwrap();
        fs::write(dir.join("SKILL.md"), "no frontmatter\n").unwrap();
        let agents = root.join(format!(".agents/skills/{name}"));
        fs::create_dir_all(&agents).unwrap();
        fs::write(
            agents.join("SKILL.md"),
            format!("---\nname: good-{i}\ndescription: Good skill {i}\n---\n"),
        )
        .unwrap();
    }
    root
}

#[test]
fn tool_output_never_carries_a_terminal_escape() {
    let tmp = tempfile::tempdir().unwrap();
    let root = project(tmp.path());
    let home = tmp.path().join("home");
    fs::create_dir_all(&home).unwrap();
    let root_s = root.to_str().unwrap();
    let out_s = tmp.path().join("index.tsv");
    let commands: Vec<Vec<&str>> = vec![
        vec![
            "skills",
            "index",
            "--root",
            root_s,
            "--out",
            out_s.to_str().unwrap(),
        ],
        vec!["--host", "codex", "doctor", "--root", root_s],
        vec!["availability", "--root", root_s],
        vec!["catalog", "check", "--root", root_s],
        vec![
            "--host", "codex", "explain", "--cwd", root_s, "--prompt", "zebra",
        ],
    ];
    let mut named = 0;
    for args in &commands {
        let run = common::run_binary(args, b"", &home, &[]);
        for (stream, text) in [("stdout", &run.stdout), ("stderr", &run.stderr)] {
            let bad: Vec<char> = text
                .chars()
                .filter(|c| *c != '\n' && *c != '\t' && sophia_hook::charset::is_hidden(*c))
                .collect();
            assert!(bad.is_empty(), "{args:?} {stream}: {bad:?} in\n{text}");
            named += usize::from(text.contains("osc\\u001B]52"));
        }
    }
    // The escaped names are there: the commands did print them, as text.
    assert!(named > 0, "no command named the planted folders");
}

/// Every member of the hidden classes, one at a time, in a project `AGENTS.md` and as a catalog
/// value and an identifier: the document text replaces it, validation refuses it, the token
/// sanitizer drops it.
#[test]
fn every_hidden_code_point_is_stopped_on_every_path_to_the_model() {
    use sophia_hook::agents::catalog::is_forbidden_char;
    use sophia_hook::render::{document_text, token};
    use sophia_hook::skills::catalog::is_valid_id;
    let members = hidden_class_members();
    assert!(members.len() > 900_000);
    for c in members {
        let hex = format!("U+{:04X}", u32::from(c));
        let text = format!("Rule{c}one");
        if c != '\n' && c != '\t' {
            assert_eq!(document_text(&text), "Rule one", "{hex}");
        }
        assert!(is_forbidden_char(c), "{hex}");
        assert!(!is_valid_id(&format!("skill{c}id")), "{hex}");
        assert!(!token(&format!("skill{c}id")).contains(c), "{hex}");
        assert!(!sophia_hook::charset::terminal(&text).contains(c), "{hex}");
    }
}

/// clap's usage errors quote the argument that was refused (an unknown subcommand or flag, an
/// invalid value, an unexpected argument): every hidden character a command line can carry, in
/// each of those places, reaches the stream escaped, never as itself.
#[test]
fn usage_errors_never_echo_a_hidden_character() {
    use sophia_hook::charset::is_hidden;
    // Every member that is not unassigned or private use (the C0 and C1 controls, the format
    // characters, bidi controls, separators, default ignorables, variation selectors, the TAG
    // block), and every 512th of the rest: each one through clap in-process.
    let gc = icu_properties::CodePointMapData::<icu_properties::props::GeneralCategory>::new();
    let members: Vec<char> = hidden_class_members()
        .into_iter()
        .enumerate()
        .filter(|(i, c)| {
            !matches!(
                gc.get(*c),
                icu_properties::props::GeneralCategory::Unassigned
                    | icu_properties::props::GeneralCategory::PrivateUse
            ) || i % 512 == 0
        })
        .map(|(_, c)| c)
        .filter(|c| *c != '\0')
        .collect();
    assert!(members.len() > 2_000, "{}", members.len());
    let mut failures = Vec::new();
    for c in members {
        let arg = format!("x{c}y");
        let flag = format!("--x{c}y");
        let lines: [Vec<&str>; 4] = [
            vec![arg.as_str()],
            vec!["doctor", flag.as_str()],
            vec!["--host", arg.as_str(), "doctor"],
            vec!["doctor", arg.as_str()],
        ];
        for line in &lines {
            let run = common::run_in_process(line, b"");
            assert_ne!(run.code, 0, "{line:?} was accepted");
            for text in [&run.stdout, &run.stderr] {
                if text.chars().any(|h| h != '\n' && h != '\t' && is_hidden(h)) {
                    failures.push(format!("U+{:04X} in {line:?}: {text:?}", u32::from(c)));
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} usage errors carried a hidden character, e.g.\n{}",
        failures.len(),
        failures[..failures.len().min(3)].join("\n")
    );
}
