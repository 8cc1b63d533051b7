//! The command line: parses and dispatches, nothing else. Hook mode is the command line with no
//! positional argument; each tool subcommand lives in its module under `commands/`.
//!
//! Exit codes (docs/configuration.md, "Exit codes"): hook mode 0; a tool 0 when it succeeded or
//! its check passed, 1 when a check failed, 2 when it could not run (ripgrep's convention); a
//! usage error 2 inside a named subcommand, but 1 for a command line that names none — it may be
//! a host's misconfigured hook command, and the hosts document exit 2 from a prompt hook as "block
//! the prompt" (Claude Code; Codex and Gemini CLI follow it), other codes as a non-blocking failure.

use std::ffi::OsString;
use std::io::{IsTerminal, Read, Write};

use clap::{CommandFactory, Parser, Subcommand};

use crate::clock::Clock;
use crate::commands::agents::AgentsCommand;
use crate::commands::catalog::CatalogCommand;
use crate::commands::eval::EvalArgs;
use crate::commands::hook::{CompletionsArgs, HookFlags, ManArgs};
use crate::commands::hook::{hook_args, is_tool_invocation};
use crate::commands::install::{InstallArgs, UninstallArgs};
use crate::commands::plugin::PluginCommand;
use crate::commands::skills::SkillsCommand;
use crate::commands::{self as cmd, Outcome, PipeSafe, Verdict};
use crate::edge::hook::run_hook;
use crate::edge::settings::Settings;

#[derive(Debug, Parser)]
#[command(
    name = "sophia-hook",
    version,
    about = "Deterministic prompt routing for AI coding hosts (Codex, Claude Code, Gemini CLI, Antigravity, Copilot CLI).",
    long_about = "Without a subcommand, sophia-hook runs as a command hook: it reads the host's \
                  JSON payload on stdin and prints the host's hook output on stdout (exit 0, \
                  always). Set it up with `sophia-hook install --host HOST`.",
    after_help = "Exit codes: 0 ok; 1 a check failed (or a hook command line is malformed); \
                  2 could not run, or a usage error."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    #[command(flatten)]
    pub hook: HookFlags,
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
    Uninstall(UninstallArgs),
    /// Summarise the analytics log (SOPHIA_ANALYTICS_FILE, default
    /// ~/.mcp-servers/analytics/sophia-hook.jsonl).
    Stats(cmd::stats::StatsArgs),
    /// Check every host's setup and say how to fix what is wrong; exit 1 on a problem.
    Doctor(cmd::doctor::DoctorArgs),
    /// One line per host: where sophia-hook is registered, at which scope, whether the host
    /// trusts it, and when the hook last ran there (reads only; `doctor` for the why).
    Status(cmd::status::StatusArgs),
    /// Compute which catalog agents have a runtime definition on this machine; --write saves the
    /// manifest the hook overlays (SOPHIA_AGENT_AVAILABILITY, default
    /// ~/.mcp-servers/agent-availability.json): the embedded catalog's roles, from your own
    /// (user-scope) definitions only, so no project changes what another project sees.
    Availability(cmd::availability::AvailabilityArgs),
    /// The hosts' runtime agent definitions, generated from the canonical agent source.
    #[command(subcommand)]
    Agents(AgentsCommand),
    /// The hosts' plugin folders: a marketplace for Claude Code, Copilot CLI and Codex, and a
    /// Gemini CLI extension, each with the binary and its hooks.
    #[command(subcommand)]
    Plugin(PluginCommand),
    /// Write one self-contained HTML page (no network, no script) with each host's setup, the
    /// agent catalog and its availability, the skill inventory and the routing mix; print its
    /// path. --host limits it to one host.
    Report(cmd::report::ReportArgs),
    /// The OpenTelemetry export of the analytics log: flush it to the OTLP collector now, or
    /// show where it goes and how far it is behind.
    #[command(subcommand)]
    Telemetry(cmd::telemetry::TelemetryCommand),
    /// Print the whole routing decision as JSON, for a payload on stdin or for --prompt.
    Explain(cmd::explain::ExplainArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    Completions(CompletionsArgs),
    /// Print the man page (roff), or write one page per subcommand with --out.
    Man(ManArgs),
}

/// Every exit code the binary returns, and the one place each is numbered ([`Exit::code`]):
/// `docs/configuration.md`, "Exit codes".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// Hook mode (it always fails open), a tool that ran and passed, `--help`, a closed pipe.
    Success,
    /// A tool's check failed; or a command line clap refused that may be a host's hook line
    /// (exit 1, which no host reads as "block this prompt").
    Failed,
    /// A tool could not run (an error, a bad command line), or hook mode with stdin on a terminal.
    CouldNotRun,
    /// A tool subcommand panicked: a bug (the binary's `catch_unwind`).
    InternalError,
}

impl Exit {
    pub const fn code(self) -> u8 {
        match self {
            Exit::Success => 0,
            Exit::Failed => 1,
            Exit::CouldNotRun => 2,
            Exit::InternalError => 101,
        }
    }
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
    dispatch(args, stdin, stdout, stderr, settings, clock).code()
}

fn dispatch(
    args: Vec<OsString>,
    stdin: &mut dyn Read,
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
    settings: &Settings,
    clock: &dyn Clock,
) -> Exit {
    // Hook mode runs on every prompt: its few flags are read without building the clap parser,
    // which costs more than the rest of a run.
    if let Some(hook_args) = cmd::hook::parse_hook_args(&args) {
        return hook(stdin, stdout, stderr, &hook_args, settings, clock);
    }
    let cli = match Cli::try_parse_from(&args) {
        Ok(cli) => cli,
        Err(err) => return usage_error(&err, &args, stdout, stderr, settings),
    };
    let Some(command) = cli.command else {
        return hook(
            stdin,
            stdout,
            stderr,
            &cli.hook.hook_args(),
            settings,
            clock,
        );
    };
    // Tool subcommands print names a repository chose (folders, files, ids): whatever prints
    // them, nothing hidden (an OSC 52 or CSI sequence, a bidi override) reaches the terminal.
    let (mut safe_out, mut safe_err) = (
        crate::charset::TerminalSafe::new(stdout),
        crate::charset::TerminalSafe::new(stderr),
    );
    let stderr: &mut dyn Write = &mut safe_err;
    // A reader that closed the pipe (`stats | head -c1`) is not an error, and never stops a
    // command half way through its files: the rest of the output is dropped.
    let mut stdout = PipeSafe::new(&mut safe_out);
    let stdout: &mut dyn Write = &mut stdout;
    let outcome: Outcome = match Some(command) {
        // Hook mode ran above.
        None => Ok(Verdict::Pass),
        Some(Command::Explain(args)) => {
            cmd::explain::explain(stdin, stdout, &args, settings, clock)
        }
        Some(Command::Eval(args)) => cmd::eval::eval(stdout, &args),
        Some(Command::Skills(command)) => cmd::skills::run(stdout, stderr, command, settings),
        Some(Command::Catalog(command)) => cmd::catalog::run(stdout, command, clock),
        Some(Command::Install(args)) => {
            cmd::install::install(stdout, stderr, &args, settings, clock)
        }
        Some(Command::Uninstall(args)) => {
            cmd::install::uninstall(stdout, stderr, &args, settings, clock)
        }
        Some(Command::Stats(args)) => cmd::stats::stats(stdout, &args, settings, clock),
        Some(Command::Doctor(args)) => cmd::doctor::doctor(stdout, &args, settings),
        Some(Command::Status(args)) => cmd::status::status(stdout, &args, settings),
        Some(Command::Agents(command)) => cmd::agents::run(stdout, command, settings, clock),
        Some(Command::Plugin(command)) => cmd::plugin::run(stdout, stderr, command, settings),
        Some(Command::Report(args)) => cmd::report::report_page(stdout, args, settings, clock),
        Some(Command::Telemetry(command)) => cmd::telemetry::run(stdout, command, settings, clock),
        Some(Command::Availability(args)) => {
            cmd::availability::availability(stdout, &args, settings, clock)
        }
        Some(Command::Completions(args)) => {
            cmd::hook::completions(stdout, args.shell, Cli::command())
        }
        Some(Command::Man(args)) => cmd::hook::man(stdout, Cli::command(), args.out.as_deref()),
    };
    exit_code(outcome, stderr)
}

/// Hook mode; with stdin on a terminal nobody is going to type a JSON payload: say what the
/// command is for instead of waiting.
fn hook(
    stdin: &mut dyn Read,
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
    args: &crate::edge::hook::HookArgs,
    settings: &Settings,
    clock: &dyn Clock,
) -> Exit {
    // Hook mode's stderr (the `SOPHIA_DEBUG=1` lines, which name folders and warnings a
    // repository chose) goes through the same filter as every tool's output.
    let mut safe_err = crate::charset::TerminalSafe::new(stderr);
    let stderr: &mut dyn Write = &mut safe_err;
    if settings.stdin_is_terminal {
        let _ = writeln!(stderr, "{}", cmd::TERMINAL_HINT);
        return Exit::CouldNotRun;
    }
    run_hook(stdin, stdout, stderr, args, settings, clock);
    Exit::Success
}

/// The one place that maps an outcome to an exit code.
fn exit_code(outcome: Outcome, stderr: &mut dyn Write) -> Exit {
    match outcome {
        Ok(Verdict::Pass) => Exit::Success,
        Ok(Verdict::Fail) => Exit::Failed,
        Err(err) if cmd::is_broken_pipe(&err) => Exit::Success,
        Err(err) if err.downcast_ref::<cmd::CheckFailed>().is_some() => {
            let _ = writeln!(stderr, "sophia-hook: check failed: {err:#}");
            Exit::Failed
        }
        Err(err) => {
            let _ = writeln!(stderr, "sophia-hook: error: {err:#}");
            Exit::CouldNotRun
        }
    }
}

/// A command line clap refused, or `--help`/`--version`.
fn usage_error(
    err: &clap::Error,
    args: &[OsString],
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
    settings: &Settings,
) -> Exit {
    let (to_stdout, terminal) = if err.use_stderr() {
        (false, std::io::stderr().is_terminal())
    } else {
        (true, std::io::stdout().is_terminal())
    };
    // clap quotes the argument it refused, so its text goes through the terminal filter like
    // every tool's output (`docs/security.md` `### I5`). clap's own colours (a terminal, NO_COLOR
    // unset) are kept only when the plain text has nothing to escape: then the only escape
    // sequences written are clap's styles.
    let rendered = err.render();
    let plain = rendered.to_string();
    let styled = terminal
        && !settings.no_color
        && !plain
            .chars()
            .any(|c| c != '\n' && c != '\t' && crate::charset::is_hidden(c));
    let emit = |out: &mut dyn Write| {
        let _ = if styled {
            out.write_all(rendered.ansi().to_string().as_bytes())
        } else {
            crate::charset::TerminalSafe::new(out).write_all(plain.as_bytes())
        };
    };
    if to_stdout {
        emit(&mut PipeSafe::new(stdout));
        return Exit::Success;
    }
    emit(stderr);
    if is_tool_invocation(args) {
        return Exit::CouldNotRun;
    }
    // Possibly a host's hook command line: exit 1, which no host documents as "block this prompt",
    // with the no-op object of a host that reads an empty stdout as a failure (Gemini CLI).
    if let Some(noop) = hook_args(args)
        .host
        .and_then(crate::stages::render::Printed::noop)
    {
        let _ = stdout.write_all(noop.to_line().as_bytes());
    }
    Exit::Failed
}

#[cfg(test)]
mod tests {
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
        let mut listed: Vec<&str> = crate::commands::hook::SUBCOMMANDS.to_vec();
        listed.sort();
        assert_eq!(names, listed, "SUBCOMMANDS must list every subcommand");
    }
}
