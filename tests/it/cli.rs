//! The command line's shape, read from clap's own model of it: every flag documented, the hook
//! flags only where they mean something, required flags marked required, and the values each
//! flag lists exactly the ones it accepts.
// Tests and benches set up and read their files directly; the door (clippy.toml) is for the crate.
#![allow(clippy::disallowed_methods)]

use clap::CommandFactory;
use sophia_hook::cli::Cli;

/// Every command and subcommand, with its path (`agents sync`).
fn commands() -> Vec<(String, clap::Command)> {
    fn walk(prefix: &str, cmd: &clap::Command, out: &mut Vec<(String, clap::Command)>) {
        for sub in cmd.get_subcommands() {
            let path = format!("{prefix} {}", sub.get_name()).trim().to_owned();
            out.push((path.clone(), sub.clone()));
            walk(&path, sub, out);
        }
    }
    let root = Cli::command();
    let mut out = vec![(String::new(), root.clone())];
    walk("", &root, &mut out);
    out
}

#[test]
fn every_argument_of_every_command_has_help_text() {
    let mut missing = Vec::new();
    let mut seen = 0;
    for (path, cmd) in commands() {
        for arg in cmd.get_arguments() {
            seen += 1;
            let id = arg.get_id().as_str();
            if matches!(id, "help" | "version") {
                continue;
            }
            if arg
                .get_help()
                .is_none_or(|h| h.to_string().trim().is_empty())
            {
                missing.push(format!("{path} --{id}"));
            }
        }
    }
    assert!(seen > 60, "the walk found the arguments ({seen})");
    assert_eq!(missing, Vec::<String>::new());
}

#[test]
fn hook_flags_appear_only_where_they_mean_something() {
    let host_allowed = [
        "",
        "explain",
        "install",
        "uninstall",
        "doctor",
        "report",
        "skills index",
        "agents sync",
        "agents check",
        "plugin install",
    ];
    for (path, cmd) in commands() {
        let has = |id: &str| cmd.get_arguments().any(|a| a.get_id() == id);
        let hook_level = path.is_empty() || path == "explain";
        for flag in ["event", "planning"] {
            assert_eq!(has(flag), hook_level, "`{path}` --{flag}");
        }
        if has("host") {
            assert!(host_allowed.contains(&path.as_str()), "`{path}` has --host");
        }
        for arg in cmd.get_arguments() {
            assert!(
                !arg.is_global_set(),
                "`{path}` --{} is global",
                arg.get_id()
            );
        }
    }
}

#[test]
fn install_takes_an_optional_host_and_uninstall_takes_no_binary() {
    let cmds = commands();
    let get = |name: &str| cmds.iter().find(|(p, _)| p == name).unwrap().1.clone();
    for name in ["install", "uninstall"] {
        let host = get(name)
            .get_arguments()
            .find(|a| a.get_id() == "host")
            .cloned()
            .unwrap();
        // Without it: every host found on the machine (install), every host registered (uninstall).
        assert!(!host.is_required_set(), "{name} --host is optional");
    }
    assert!(
        get("install")
            .get_arguments()
            .any(|a| a.get_id() == "binary")
    );
    assert!(
        !get("uninstall")
            .get_arguments()
            .any(|a| a.get_id() == "binary")
    );
}

#[test]
fn agents_host_lists_exactly_what_it_accepts() {
    for name in ["agents sync", "agents check"] {
        let cmds = commands();
        let cmd = &cmds.iter().find(|(p, _)| p == name).unwrap().1;
        let host = cmd.get_arguments().find(|a| a.get_id() == "host").unwrap();
        let values: Vec<String> = host
            .get_possible_values()
            .iter()
            .map(|v| v.get_name().to_owned())
            .collect();
        // The hosts with an agent runtime (Antigravity has none), and all of them.
        assert_eq!(
            values,
            ["codex", "claude", "gemini", "copilot", "all"],
            "{name}"
        );
    }
}

/// A `cargo install` user has no docs/ folder: no help text and no message of a tool subcommand
/// sends them there. Help from clap's model; messages from the string literals of src/commands/.
#[test]
fn help_and_messages_never_point_at_a_docs_file() {
    // A docs page, not a project path such as docs/agents/canonical-subagents.yaml.
    let page = regex::Regex::new(r"docs/[A-Za-z0-9_/.-]*\.md").unwrap();
    for (path, mut cmd) in commands() {
        let help = cmd.render_long_help().to_string();
        assert!(
            !page.is_match(&help),
            "`{path} --help` points at docs/: {help}"
        );
    }
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/commands");
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        let code = text.split("#[cfg(test)]").next().unwrap();
        for (n, line) in code.lines().enumerate() {
            let trimmed = line.trim_start();
            if trimmed.starts_with("//") {
                continue;
            }
            assert!(
                !page.is_match(line),
                "{}:{}: a message points at docs/: {line}",
                path.to_string_lossy(),
                n + 1
            );
        }
    }
}

/// `rust-version` in Cargo.toml is the real minimum: the highest `rust-version` any locked
/// dependency declares (read with `cargo metadata`; it downloads the locked packages of every
/// target platform when the cache lacks them, so the test does not pass `--offline`).
#[test]
fn rust_version_is_the_highest_a_dependency_needs() {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = std::process::Command::new(cargo)
        .args(["metadata", "--format-version", "1", "--locked"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let version = |v: &str| -> Vec<u32> { v.split('.').map(|p| p.parse().unwrap()).collect() };
    let mut ours = None;
    let mut needed = (vec![0], String::new());
    for package in meta["packages"].as_array().unwrap() {
        let Some(v) = package["rust_version"].as_str() else {
            continue;
        };
        if package["name"] == "sophia-hook" {
            ours = Some(version(v));
        } else if version(v) > needed.0 {
            needed = (version(v), package["name"].as_str().unwrap().to_owned());
        }
    }
    let trim = |mut v: Vec<u32>| {
        while v.len() > 2 && v.last() == Some(&0) {
            v.pop();
        }
        v
    };
    assert_eq!(
        ours.map(trim),
        Some(trim(needed.0.clone())),
        "the highest is {} ({:?})",
        needed.1,
        needed.0
    );
}

/// Completions work past the subcommand in bash, zsh and fish: each script is generated by the
/// real binary, loaded into the real shell, and asked for what follows `agents `, `agents sync --`
/// and `install --host ` (a subcommand's subcommands, its options, an option's values). A shell
/// that is not installed is skipped with a line saying so (`.ci/run` installs all three).
/// Before, bash completed nothing past the subcommand (clap-rs/clap#6421).
#[test]
fn completions_work_past_the_subcommand_in_bash_zsh_and_fish() {
    use std::process::Command;
    let bin = env!("CARGO_BIN_EXE_sophia-hook");
    let dir = tempfile::tempdir().unwrap();
    let bin_dir = std::path::Path::new(bin).parent().unwrap().to_path_buf();
    let path = format!(
        "{}:{}",
        bin_dir.to_string_lossy(),
        std::env::var("PATH").unwrap_or_default()
    );
    let probes: [(&str, &[&str]); 3] = [
        ("agents ", &["sync", "check"]),
        ("agents sync --", &["--host", "--scope", "--force"]),
        ("install --host ", &["codex", "claude", "gemini", "copilot"]),
    ];
    let have = |shell: &str| {
        Command::new(shell)
            .args(["-c", "exit 0"])
            .status()
            .is_ok_and(|s| s.success())
    };
    let script = |shell: &str| {
        let out = Command::new(bin)
            .args(["completions", shell])
            .output()
            .unwrap();
        assert!(out.status.success());
        let file = dir.path().join(format!("completions.{shell}"));
        std::fs::write(&file, out.stdout).unwrap();
        file
    };
    let escapes = regex::Regex::new(r"\x1b\[[0-9;?]*[A-Za-z]").unwrap();
    let mut ran = 0;
    for shell in ["bash", "zsh", "fish"] {
        if !have(shell) {
            println!("skipped: {shell} is not installed (apt-get install -y {shell})");
            continue;
        }
        ran += 1;
        for (line, want) in probes {
            let got = match shell {
                "bash" => {
                    let words: Vec<String> = std::iter::once("sophia-hook".to_owned())
                        .chain(line.split(' ').map(str::to_owned))
                        .collect();
                    let quoted: Vec<String> = words.iter().map(|w| format!("'{w}'")).collect();
                    let probe = format!(
                        "source '{}'; COMP_WORDS=({}); COMP_CWORD=$(( ${{#COMP_WORDS[@]}} - 1 )); _sophia__hook sophia-hook \"${{COMP_WORDS[COMP_CWORD]}}\" \"${{COMP_WORDS[COMP_CWORD-1]}}\"; printf '%s\\n' \"${{COMPREPLY[@]}}\"",
                        script("bash").to_string_lossy(),
                        quoted.join(" ")
                    );
                    Command::new("bash")
                        .args(["-c", &probe])
                        .env("PATH", &path)
                        .output()
                        .unwrap()
                }
                "fish" => {
                    let probe = format!(
                        "source '{}'; complete -C 'sophia-hook {line}'",
                        script("fish").to_string_lossy()
                    );
                    Command::new("fish")
                        .args(["-c", &probe])
                        .env("PATH", &path)
                        .output()
                        .unwrap()
                }
                _ => {
                    // zsh completes only in its line editor: a pseudo-terminal (zsh/zpty) types
                    // the line and a Tab, and the listing is read back.
                    let fpath = dir.path().join("zfunc");
                    std::fs::create_dir_all(&fpath).unwrap();
                    std::fs::copy(script("zsh"), fpath.join("_sophia-hook")).unwrap();
                    let probe = format!(
                        r#"zmodload zsh/zpty
zpty z 'zsh -f -i'
zpty -w z 'PS1="> "; fpath=({} $fpath); autoload -U compinit; compinit -u -D; zstyle ":completion:*" list-prompt ""; setopt nolistbeep nobeep'
sleep 1
while zpty -r -t z chunk; do :; done
zpty -w -n z $'sophia-hook {line}\t'
sleep 2
out=
while zpty -r -t z chunk; do out+=$chunk; done
print -r -- "$out""#,
                        fpath.to_string_lossy()
                    );
                    Command::new("zsh")
                        .args(["-f", "-c", &probe])
                        .env("PATH", &path)
                        .output()
                        .unwrap()
                }
            };
            // The terminal's escape sequences (zsh's listing) are not words.
            let raw = String::from_utf8_lossy(&got.stdout);
            let text = escapes.replace_all(&raw, " ");
            for w in want {
                assert!(
                    text.split(|c: char| c.is_whitespace() || c == '\t')
                        .any(|t| t == *w),
                    "{shell}: `sophia-hook {line}<TAB>` does not offer {w}: {text:?} {}",
                    String::from_utf8_lossy(&got.stderr)
                );
            }
        }
    }
    println!("completions checked in {ran} of 3 shells");
}
