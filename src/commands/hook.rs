//! Hook mode's command line: `sophia-hook [--host H] [--event E] [--planning]`, no positional
//! argument. It is read by hand first (building the clap parser costs more than the rest of a hook
//! run); anything the hand parser does not accept goes to clap, which either parses it or reports a
//! usage error (docs/configuration.md, "Exit codes").

use crate::charset::Shown as _;
use std::ffi::OsString;
use std::path::PathBuf;

use crate::edge::hook::HookArgs;
use crate::hosts::Host;

/// The hook flags: the top level's and `explain`'s, nowhere else.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct HookFlags {
    /// The host that runs the hook (default: codex).
    #[arg(long, value_enum)]
    pub host: Option<Host>,
    /// The firing event (SessionStart, UserPromptSubmit, or the host's own name for them);
    /// overrides the payload's `hook_event_name`.
    #[arg(long)]
    pub event: Option<String>,
    /// Planning mode, for hosts that do not report it (Codex); same as SOPHIA_PLANNING=1.
    #[arg(long)]
    pub planning: bool,
    /// The time budget of this run in milliseconds, for tests and benchmarks: a command-line
    /// flag is the user's own (SOPHIA_TIME_BUDGET_MS, which a repository can set for a host's
    /// hooks, is clamped to 150 ms).
    #[arg(long, value_name = "MS")]
    pub time_budget_ms: Option<u64>,
    /// A failure injected on purpose (panic, panic-after-parse, stall): for the tests.
    #[arg(long, hide = true, value_parser = parse_fault)]
    pub fault: Option<crate::edge::hook::Fault>,
}

fn parse_fault(value: &str) -> Result<crate::edge::hook::Fault, String> {
    crate::edge::hook::Fault::parse(value)
        .ok_or_else(|| "one of: panic, panic-after-parse, stall".to_owned())
}

impl HookFlags {
    pub fn hook_args(&self) -> HookArgs {
        HookArgs {
            host: self.host,
            event: self.event.clone(),
            planning: self.planning,
            time_budget: self.time_budget_ms.map(std::time::Duration::from_millis),
            fault: self.fault,
        }
    }
}

/// The subcommands, kept equal to clap's by a test.
pub const SUBCOMMANDS: &[&str] = &[
    "explain",
    "eval",
    "skills",
    "catalog",
    "install",
    "uninstall",
    "plugin",
    "doctor",
    "status",
    "stats",
    "availability",
    "agents",
    "report",
    "telemetry",
    "completions",
    "man",
    "help",
];

/// True when the first positional word names a subcommand: the user asked for a tool (no host
/// runs one as its hook), so its usage errors exit 2 and a panic is reported as a bug.
pub fn is_tool_invocation(args: &[OsString]) -> bool {
    let mut words = args.iter().skip(1).map(|a| a.to_str());
    while let Some(word) = words.next() {
        match word {
            Some("--host" | "--event" | "--time-budget-ms" | "--fault") => {
                words.next();
            }
            Some(w) if w.starts_with('-') => {}
            Some(w) => return SUBCOMMANDS.contains(&w),
            None => return false,
        }
    }
    false
}

/// Hook-mode arguments (`--host H`, `--event E`, `--planning`, `--time-budget-ms MS`, also in
/// `--flag=value` form),
/// read by hand; `None` for anything else (a subcommand, `--help`, an unknown host), which goes
/// to clap.
pub fn parse_hook_args(args: &[OsString]) -> Option<HookArgs> {
    let mut out = HookArgs::default();
    let mut rest = args.iter().skip(1).map(|a| a.to_str());
    while let Some(arg) = rest.next() {
        let arg = arg?;
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) => (f, Some(v)),
            None => (arg, None),
        };
        match flag {
            "--planning" if inline.is_none() => out.planning = true,
            "--time-budget-ms" | "--fault" => {
                let value = match inline {
                    Some(v) => v,
                    None => rest.next()??,
                };
                if flag == "--fault" {
                    out.fault = Some(crate::edge::hook::Fault::parse(value)?);
                } else {
                    out.time_budget = Some(std::time::Duration::from_millis(value.parse().ok()?));
                }
            }
            "--host" | "--event" => {
                let value = match inline {
                    Some(v) => v,
                    None => rest.next()??,
                };
                if flag == "--host" {
                    out.host = Some(Host::ALL.into_iter().find(|h| h.as_str() == value)?);
                } else {
                    out.event = Some(value.to_owned());
                }
            }
            _ => return None,
        }
    }
    Some(out)
}

/// The hook-mode arguments, read leniently for a command line that does not parse: the first
/// well-formed `--host` and `--event` still count (for the no-op object a host needs, and for a
/// panic's analytics line).
pub fn hook_args(args: &[OsString]) -> HookArgs {
    if let Some(parsed) = parse_hook_args(args) {
        return parsed;
    }
    let mut out = HookArgs::default();
    let words: Vec<Option<&str>> = args.iter().skip(1).map(|a| a.to_str()).collect();
    for (i, word) in words.iter().enumerate() {
        let Some(word) = word else { continue };
        let (flag, value) = match word.split_once('=') {
            Some((f, v)) => (f, Some(v)),
            None => (*word, words.get(i + 1).copied().flatten()),
        };
        match (flag, value) {
            ("--host", Some(v)) if out.host.is_none() => {
                out.host = Host::ALL.into_iter().find(|h| h.as_str() == v);
            }
            ("--event", Some(v)) if out.event.is_none() && !v.starts_with("--") => {
                out.event = Some(v.to_owned());
            }
            _ => {}
        }
    }
    out
}

/// `sophia-hook completions SHELL`: the shell's completion script on stdout.
#[derive(Debug, clap::Args)]
pub struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

/// The completion script of `command` for `shell`, as `clap_complete` writes it, with one
/// known defect of its bash generator mended (clap-rs/clap#6421, #6529, open in clap_complete
/// 4.6.12): for a binary name with a hyphen the dispatch loop spells each state
/// `sophia__hook__subcmd__agents` while the case arms are spelled `sophia__subcmd__hook__subcmd__agents`,
/// so no arm matches and nothing completes past the subcommand. The arms are renamed to the
/// loop's spelling; zsh, fish, elvish and PowerShell are written as generated.
pub fn completions(
    stdout: &mut dyn std::io::Write,
    shell: clap_complete::Shell,
    mut command: clap::Command,
) -> super::Outcome {
    const BIN: &str = "sophia-hook";
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut command, BIN, &mut script);
    let mut script = String::from_utf8(script)?;
    if shell == clap_complete::Shell::Bash {
        let loop_spelling = BIN.replace('-', "__");
        let arm_spelling = BIN.replace('-', "__subcmd__");
        script = script.replace(
            &format!("{arm_spelling}__subcmd__"),
            &format!("{loop_spelling}__subcmd__"),
        );
    }
    stdout.write_all(script.as_bytes())?;
    Ok(super::Verdict::Pass)
}

/// `sophia-hook man`: the man page (roff) on stdout, or one page per subcommand in a folder.
#[derive(Debug, clap::Args)]
pub struct ManArgs {
    /// Write `sophia-hook.1` and one `sophia-hook-<subcommand>.1` per subcommand into this
    /// folder (which must exist) instead of printing the main page.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
}

/// Renders the man page of `command` on `stdout`, or with `out` one page per subcommand
/// (`sophia-hook.1`, `sophia-hook-install.1`, …) into that folder, which must exist.
pub fn man(
    stdout: &mut dyn std::io::Write,
    command: clap::Command,
    out: Option<&std::path::Path>,
) -> super::Outcome {
    use anyhow::Context;
    let Some(dir) = out else {
        clap_mangen::Man::new(command).render(stdout)?;
        return Ok(super::Verdict::Pass);
    };
    super::existing_dir("--out", dir)?;
    let mut pages = vec![("sophia-hook.1".to_owned(), command.clone())];
    for sub in command.get_subcommands() {
        let name = format!("sophia-hook-{}", sub.get_name());
        pages.push((format!("{name}.1"), sub.clone().name(name)));
    }
    for (file, page) in pages {
        let mut roff = Vec::new();
        clap_mangen::Man::new(page).render(&mut roff)?;
        let path = dir.join(&file);
        crate::edge::project::flag_place(None, &path)
            .write_atomic(&roff, crate::edge::files::caps::PAGE)
            .with_context(|| format!("writing {}", path.shown()))?;
        writeln!(stdout, "wrote {}", path.shown())?;
    }
    Ok(super::Verdict::Pass)
}

#[cfg(test)]
mod tests {
    use std::ffi::OsString;

    fn args(a: &[&str]) -> Vec<OsString> {
        std::iter::once("sophia-hook")
            .chain(a.iter().copied())
            .map(OsString::from)
            .collect()
    }

    #[test]
    fn hook_arguments_by_hand_agree_with_clap() {
        let fast = super::parse_hook_args(&args(&[
            "--host",
            "gemini",
            "--event=BeforeAgent",
            "--planning",
        ]))
        .unwrap();
        assert_eq!(
            (fast.host, fast.event.as_deref(), fast.planning),
            (Some(super::Host::Gemini), Some("BeforeAgent"), true)
        );
        let fast = super::parse_hook_args(&args(&["--host=claude"])).unwrap();
        assert_eq!(fast.host, Some(super::Host::Claude));
        assert!(super::parse_hook_args(&args(&[])).is_some());
        for other in [
            &["explain"][..],
            &["--help"],
            &["--host", "nonsense"],
            &["--host"],
            &["--bogus"],
            &["--planning=yes"],
        ] {
            assert!(super::parse_hook_args(&args(other)).is_none(), "{other:?}");
        }
    }

    #[test]
    fn a_tool_invocation_is_a_subcommand_in_first_position() {
        assert!(super::is_tool_invocation(&args(&[
            "install", "--host", "codex"
        ])));
        assert!(super::is_tool_invocation(&args(&["--planning", "explain"])));
        for hook in [
            &[][..],
            &["--host", "codex"],
            &["instal", "--host", "codex"],
            &["--event", "explain"],
            &["frobnicate", "install"],
        ] {
            assert!(!super::is_tool_invocation(&args(hook)), "{hook:?}");
        }
    }
}
