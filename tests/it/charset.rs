//! I5: one character policy. What a repository names (folders, skill and agent files) reaches
//! a terminal only through `charset::TerminalSafe`: every tool subcommand's output escapes
//! control and other hidden characters, so an OSC 52 (clipboard write) or CSI sequence in a file
//! name prints as text. And every code point of the hidden classes, one at a time, is refused or
//! neutralised on each path that leads to the model.
// Tests and benches set up and read their files directly; the door (clippy.toml) is for the crate.
#![allow(clippy::disallowed_methods)]

use crate::common;

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

/// The names of [`EVIL`] this platform's file system can hold. A Windows file name cannot
/// contain C0 controls (U+0001–U+001F: ESC, BEL, CR; `CreateFileW` fails with
/// `ERROR_INVALID_NAME`), so a repository checked out there can plant only the C1 CSI and the
/// bidi override; on Unix every name can exist.
fn evil() -> Vec<&'static str> {
    EVIL.into_iter()
        .filter(|name| !cfg!(windows) || !name.chars().any(|c| c < '\u{20}'))
        .collect()
}

fn project(tmp: &Path) -> std::path::PathBuf {
    let root = tmp.join("repo");
    fs::create_dir_all(root.join(".git")).unwrap();
    for (i, name) in evil().iter().enumerate() {
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
    // Hook mode too, with its debug lines on stderr (issue 29, class 6): every host, both events.
    let payload = serde_json::json!({"hook_event_name": "UserPromptSubmit", "cwd": root_s,
        "session_id": "s", "prompt": "zebra"})
    .to_string();
    let mut runs: Vec<(Vec<&str>, common::Run)> = Vec::new();
    for host in sophia_hook::hosts::Host::ALL {
        let args = vec!["--host", host.as_str()];
        let run = common::run_binary(&args, payload.as_bytes(), &home, &[("SOPHIA_DEBUG", "1")]);
        assert!(!run.stderr.is_empty(), "{args:?}: no debug lines");
        runs.push((args, run));
    }
    for args in &commands {
        runs.push((args.clone(), common::run_binary(args, b"", &home, &[])));
    }
    for (args, run) in &runs {
        for (stream, text) in [("stdout", &run.stdout), ("stderr", &run.stderr)] {
            let bad: Vec<char> = text
                .chars()
                .filter(|c| *c != '\n' && *c != '\t' && sophia_hook::charset::is_hidden(*c))
                .collect();
            assert!(bad.is_empty(), "{args:?} {stream}: {bad:?} in\n{text}");
            // A planted name printed as text: OSC 52 on Unix, the C1 CSI everywhere.
            named += usize::from(text.contains("osc\\u001B]52") || text.contains("cone\\u009B31m"));
        }
    }
    // The escaped names are there: the commands did print them, as text.
    assert!(named > 0, "no command named the planted folders");
    assert_eq!(evil().len(), if cfg!(windows) { 2 } else { EVIL.len() });
    // The names left out on Windows are the ones it cannot create.
    for name in EVIL.iter().filter(|n| !evil().contains(n)) {
        assert!(
            fs::create_dir(tmp.path().join(name)).is_err(),
            "{name:?} was created"
        );
    }
}

/// Every member of the hidden classes, one at a time, in a project `AGENTS.md` and as a catalog
/// value and an identifier: the document text replaces it, validation refuses it, the token
/// sanitizer drops it.
#[test]
fn every_hidden_code_point_is_stopped_on_every_path_to_the_model() {
    use sophia_hook::stages::agents::catalog::is_forbidden_char;
    use sophia_hook::stages::render::{document_text, token};
    use sophia_hook::stages::skills::catalog::is_valid_id;
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

/// No name breaks a line (docs/security.md, "One sanitizer for every channel"): a project whose
/// folder name holds a line break followed by a line of our own output's shape, and a skill
/// folder named the same way, through every command that prints a path — each host's install,
/// doctor, agents sync and check and uninstall, and status, availability, skills index, catalog
/// build and report — never gives the forged text a line of its own: a path reaches text only
/// through `charset::Shown`, which escapes the break (`\u000A`), and clippy refuses
/// `Path::display`. Unix only: a Windows file name cannot hold a line break.
#[cfg(unix)]
#[test]
fn no_name_breaks_a_line_of_any_command() {
    use sophia_hook::hosts::Host;
    const FORGED: [&str; 3] = [
        "ok     binary  FORGED all checks passed",
        "claude: wrote FORGED (1 skills, 0 skipped)",
        "\tfix: FORGED curl | sh",
    ];
    for forged in FORGED {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join(format!("repo\n{forged}"));
        fs::create_dir_all(root.join(".git")).unwrap();
        let skill = root.join("skills").join(format!("radar\n{forged}"));
        fs::create_dir_all(&skill).unwrap();
        fs::write(
            skill.join("SKILL.md"),
            "---\nname: zz-weather-radar\ndescription: Render weather radar maps.\n---\n",
        )
        .unwrap();
        // A skill that is skipped: the warning names its folder (found by the blind pass, case 47).
        let broken = root.join("skills").join(format!("broken\n{forged}"));
        fs::create_dir_all(&broken).unwrap();
        fs::write(broken.join("SKILL.md"), "no frontmatter\n").unwrap();
        let home = tmp.path().join("home");
        fs::create_dir_all(&home).unwrap();
        let state = tmp.path().join("state");
        let env = [
            ("XDG_STATE_HOME", state.to_str().unwrap()),
            ("SOPHIA_ANALYTICS", "off"),
        ];
        let root_s = root.to_str().unwrap();
        let mut commands: Vec<Vec<&str>> = Vec::new();
        for host in Host::ALL {
            let h = host.as_str();
            commands.push(vec!["install", "--host", h, "--scope", "project"]);
            commands.push(vec!["doctor", "--host", h]);
            if host != Host::Antigravity {
                commands.push(vec!["agents", "sync", "--host", h, "--scope", "project"]);
                commands.push(vec!["agents", "check", "--host", h, "--scope", "project"]);
            }
        }
        commands.extend([
            vec!["status"],
            vec!["availability"],
            vec!["skills", "index"],
            vec!["catalog", "build", "--root", root_s],
            vec!["report"],
        ]);
        for host in Host::ALL {
            commands.push(vec![
                "uninstall",
                "--host",
                host.as_str(),
                "--scope",
                "project",
            ]);
        }
        let mut escaped = 0;
        // Hook mode's debug lines too (issue 29, class 6), on every host.
        let payload = serde_json::json!({"hook_event_name": "UserPromptSubmit", "cwd": root_s,
            "session_id": "s", "prompt": "weather radar maps"})
        .to_string();
        let debug = [env[0], env[1], ("SOPHIA_DEBUG", "1")];
        let mut runs: Vec<(Vec<&str>, common::Run)> = Vec::new();
        for host in Host::ALL {
            let args = vec!["--host", host.as_str()];
            let run = common::run_binary_in(&args, payload.as_bytes(), &home, &root, &debug);
            runs.push((args, run));
        }
        for args in &commands {
            runs.push((
                args.clone(),
                common::run_binary_in(args, b"", &home, &root, &env),
            ));
        }
        for (args, run) in &runs {
            for (stream, text) in [("stdout", &run.stdout), ("stderr", &run.stderr)] {
                for line in text.lines() {
                    assert!(
                        !line.trim_start().starts_with(forged.trim_start()),
                        "{args:?} {stream}: a name made the line {line:?} in\n{text}"
                    );
                }
                escaped += usize::from(
                    text.contains(&format!("\\u000A{}", forged.trim_start_matches('\t')))
                        || text.contains("\\u000A\\u0009"),
                );
            }
        }
        // The names are there, as text: the commands did print them.
        assert!(
            escaped > runs.len() / 2,
            "{forged:?}: only {escaped} outputs named the folder"
        );
    }
}

/// Every skill name of the sixteen third-party catalogs in `fixtures/` (its folder and its
/// `name:`) is within the bound: the bound refuses sentences, not real names.
#[test]
fn every_real_catalog_name_is_a_project_id() {
    fn walk(dir: &std::path::Path, names: &mut Vec<String>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, names);
            } else if path.file_name().is_some_and(|n| n == "SKILL.md") {
                let text = std::fs::read_to_string(&path).unwrap();
                let folder = path.parent().unwrap().file_name().unwrap();
                names.push(folder.to_string_lossy().into_owned());
                if let Some(name) = text.lines().find_map(|l| l.strip_prefix("name:")) {
                    names.push(name.trim().trim_matches(['"', '\'']).to_owned());
                }
            }
        }
    }
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let mut names = Vec::new();
    walk(&root.join("catalogs"), &mut names);
    assert!(names.len() > 800, "{}", names.len());
    let refused: Vec<&String> = names
        .iter()
        .filter(|n| !sophia_hook::charset::is_project_id(n))
        .collect();
    assert!(refused.is_empty(), "{refused:?}");
}
