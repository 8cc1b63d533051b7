//! The command line: hook mode (no subcommand) and the tool subcommands. Hook mode never fails on
//! its arguments: a bad argument in a host's configured command must not block a prompt, so it
//! passes through (exit 0, nothing printed). Tool subcommands fail loudly.

use std::ffi::OsString;
use std::io::{Read, Write};

use clap::{Parser, Subcommand};

use crate::clock::Clock;
use crate::commands::agents::AgentsCommand;
use crate::commands::catalog::CatalogCommand;
use crate::commands::eval::EvalArgs;
use crate::commands::install::InstallArgs;
use crate::commands::skills::SkillsCommand;
use crate::edge::hook::{HookArgs, run_hook};
use crate::edge::settings::Settings;
use crate::payload::Host;

#[derive(Debug, Parser)]
#[command(
    name = "sophia-hook",
    version,
    about = "Deterministic prompt routing for AI coding hosts (Codex, Claude Code).",
    long_about = "Without a subcommand, sophia-hook runs as a command hook: it reads the host's \
                  JSON payload on stdin and prints the host's hook output on stdout."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    /// The host that runs the hook.
    #[arg(long, value_enum, global = true)]
    pub host: Option<Host>,
    /// The firing event (SessionStart, UserPromptSubmit); overrides the payload's
    /// `hook_event_name`.
    #[arg(long, global = true)]
    pub event: Option<String>,
    /// Planning mode, for hosts that do not report it (Codex); same as SOPHIA_PLANNING=1.
    #[arg(long, global = true)]
    pub planning: bool,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Measure routing against labelled cases (JSONL): accuracy per dimension, skill precision
    /// and recall, misses. Exits 1 when a figure is below its --min-… floor.
    Eval(EvalArgs),
    /// The skill catalog.
    #[command(subcommand)]
    Skills(SkillsCommand),
    /// The agent catalog: build it from the canonical source, or check a generated one.
    #[command(subcommand)]
    Catalog(CatalogCommand),
    /// Register sophia-hook for SessionStart and the prompt event of a host, merging into its
    /// settings file (other settings and hooks are kept; running it twice changes nothing).
    ///
    /// With --scope user, everything written under your home (the host's user settings, the
    /// agent definitions in ~/.codex/agents, ~/.claude/agents, ~/.gemini/agents, the
    /// availability manifest) is built from the embedded roles or from your own
    /// ~/.config/sophia-hook/canonical-subagents.yaml, never from a file of the current
    /// repository; a project's docs/agents/canonical-subagents.yaml feeds project scope only.
    Install(InstallArgs),
    /// Remove sophia-hook's own entries from a host's settings file, and nothing else.
    Uninstall(InstallArgs),
    /// Summarise the analytics log (SOPHIA_ANALYTICS_FILE, default
    /// ~/.mcp-servers/analytics/sophia-hook.jsonl).
    Stats(crate::commands::stats::StatsArgs),
    /// Check every host's setup and say how to fix what is wrong; exit 1 on a problem.
    Doctor(crate::commands::doctor::DoctorArgs),
    /// Compute which catalog agents have a runtime definition on this machine; --write saves the
    /// manifest the hook overlays (SOPHIA_AGENT_AVAILABILITY, default
    /// ~/.mcp-servers/agent-availability.json): the embedded catalog's roles, from your own
    /// (user-scope) definitions only, so no project changes what another project sees.
    Availability(crate::commands::availability::AvailabilityArgs),
    /// The hosts' runtime agent definitions, generated from the canonical agent source.
    #[command(subcommand)]
    Agents(AgentsCommand),
    /// Write one self-contained HTML page (no network, no script) with each host's setup, the
    /// agent catalog and its availability, the skill inventory and the routing mix; print its
    /// path. --host limits it to one host.
    Report(crate::commands::report::ReportArgs),
    /// Print the whole routing decision as JSON, for a payload on stdin or for --prompt.
    Explain(crate::commands::explain::ExplainArgs),
}

/// Runs the program with explicit arguments and streams; returns the process exit code.
pub fn run(
    args: Vec<OsString>,
    stdin: &mut dyn Read,
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
    settings: &Settings,
    clock: &dyn Clock,
) -> u8 {
    // Hook mode runs on every prompt: its few flags are read without building the clap parser,
    // which costs more than the rest of a run.
    if let Some(hook_args) = parse_hook_args(&args) {
        run_hook(stdin, stdout, stderr, &hook_args, settings, clock);
        return 0;
    }
    let args = crate::commands::agents::host_all_as_default(args);
    let cli = match Cli::try_parse_from(&args) {
        Ok(cli) => cli,
        Err(err) if is_tool_invocation(&args) || !err.use_stderr() => {
            let rendered = err.render().to_string();
            if err.use_stderr() {
                let _ = write!(stderr, "{rendered}");
                return 2;
            }
            let _ = write!(stdout, "{rendered}");
            return 0;
        }
        Err(_) => {
            // Hook mode with arguments we do not understand: pass through, with the no-op object
            // of a host that needs one (Gemini reads an empty stdout as a failure).
            if settings.debug {
                let _ = writeln!(stderr, "[sophia-hook] pass-through reason=bad-arguments");
            }
            if let Some(noop) = hook_args(&args).host.and_then(crate::render::Printed::noop) {
                let _ = stdout.write_all(noop.to_line().as_bytes());
            }
            return 0;
        }
    };
    let hook_args = HookArgs {
        host: cli.host,
        event: cli.event.clone(),
        planning: cli.planning,
    };
    use crate::commands::{self as cmd, agents, catalog, skills};
    match cli.command {
        None => {
            run_hook(stdin, stdout, stderr, &hook_args, settings, clock);
            0
        }
        Some(Command::Explain(cmd::explain::ExplainArgs { prompt, cwd })) => report(
            cmd::explain::explain(stdin, stdout, &hook_args, settings, prompt, cwd),
            stderr,
        ),
        Some(Command::Eval(args)) => match cmd::eval::eval(stdout, &args) {
            Ok(true) => 0,
            Ok(false) => 1,
            Err(err) => report(Err(err), stderr),
        },
        Some(Command::Skills(skills::SkillsCommand::Index { root, out })) => report(
            skills::skills_index(stdout, root, cli.host, out, settings),
            stderr,
        ),
        Some(Command::Catalog(catalog::CatalogCommand::Build {
            root,
            source,
            skills_root,
            out,
        })) => report(
            catalog::catalog_build(stdout, root, source, skills_root, out, clock),
            stderr,
        ),
        Some(Command::Catalog(catalog::CatalogCommand::Check {
            root,
            catalog,
            source,
            skills_root,
        })) => report(
            catalog::catalog_check(stdout, root, catalog, source, skills_root),
            stderr,
        ),
        Some(Command::Install(args)) => report(
            cmd::install::install(stdout, cli.host, &args, settings, clock, true),
            stderr,
        ),
        Some(Command::Uninstall(args)) => report(
            cmd::install::install(stdout, cli.host, &args, settings, clock, false),
            stderr,
        ),
        Some(Command::Stats(cmd::stats::StatsArgs { since, json, file })) => report(
            cmd::stats::stats(stdout, since, json, file, settings),
            stderr,
        ),
        Some(Command::Doctor(cmd::doctor::DoctorArgs { root, binary })) => {
            match cmd::doctor::doctor(stdout, cli.host, root, binary, settings) {
                Ok(true) => 0,
                Ok(false) => 1,
                Err(err) => report(Err(err), stderr),
            }
        }
        Some(Command::Agents(command)) => {
            match agents::run(stdout, cli.host, command, settings, clock) {
                Ok(true) => 0,
                Ok(false) => 1,
                Err(err) => report(Err(err), stderr),
            }
        }
        Some(Command::Report(cmd::report::ReportArgs {
            out,
            since,
            file,
            root,
            binary,
        })) => report(
            cmd::report::report_page(
                stdout, cli.host, out, since, file, root, binary, settings, clock,
            ),
            stderr,
        ),
        Some(Command::Availability(cmd::availability::AvailabilityArgs { root, write })) => report(
            cmd::availability::availability(stdout, root, write, settings, clock),
            stderr,
        ),
    }
}

/// The hook-mode arguments, read leniently: when the command line does not parse, the first
/// well-formed `--host` and `--event` still count (for the no-op object and the analytics of a
/// pass-through).
pub fn hook_args(args: &[OsString]) -> HookArgs {
    if let Some(parsed) = parse_hook_args(args) {
        return parsed;
    }
    if let Ok(cli) = Cli::try_parse_from(args) {
        return HookArgs {
            host: cli.host,
            event: cli.event,
            planning: cli.planning,
        };
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

/// The subcommands, kept equal to clap's by a test.
const SUBCOMMANDS: &[&str] = &[
    "explain",
    "eval",
    "skills",
    "catalog",
    "install",
    "uninstall",
    "doctor",
    "stats",
    "availability",
    "agents",
    "report",
    "help",
];

/// True when the arguments name a subcommand: then errors are the user's to see.
pub fn is_tool_invocation(args: &[OsString]) -> bool {
    args.iter()
        .skip(1)
        .any(|a| a.to_str().is_some_and(|a| SUBCOMMANDS.contains(&a)))
}

/// Hook-mode arguments (`--host H`, `--event E`, `--planning`, also in `--flag=value` form),
/// read by hand; `None` for anything else (a subcommand, `--help`, an unknown host), which goes
/// to clap.
fn parse_hook_args(args: &[OsString]) -> Option<HookArgs> {
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

fn report(result: anyhow::Result<()>, stderr: &mut dyn Write) -> u8 {
    match result {
        Ok(()) => 0,
        Err(err) => {
            let _ = writeln!(stderr, "sophia-hook: error: {err:#}");
            1
        }
    }
}

#[cfg(test)]
mod tests {
    use std::ffi::OsString;

    #[test]
    fn the_command_line_is_well_formed() {
        use clap::CommandFactory;
        super::Cli::command().debug_assert();
        let mut names: Vec<String> = super::Cli::command()
            .get_subcommands()
            .map(|c| c.get_name().to_owned())
            .collect();
        names.push("help".into());
        names.sort();
        let mut listed: Vec<&str> = super::SUBCOMMANDS.to_vec();
        listed.sort();
        assert_eq!(names, listed, "SUBCOMMANDS must list every subcommand");
    }

    #[test]
    fn hook_arguments_by_hand_agree_with_clap() {
        let args = |a: &[&str]| -> Vec<OsString> {
            std::iter::once("sophia-hook")
                .chain(a.iter().copied())
                .map(OsString::from)
                .collect()
        };
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
}
