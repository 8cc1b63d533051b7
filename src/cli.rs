//! The command line: hook mode (no subcommand) and the tool subcommands. Hook mode never fails on
//! its arguments: a bad argument in a host's configured command must not block a prompt, so it
//! passes through (exit 0, nothing printed). Tool subcommands fail loudly.

use std::ffi::OsString;
use std::io::{Read, Write};
use std::path::PathBuf;

use anyhow::{Context, bail};
use clap::{Parser, Subcommand};

use crate::clock::Clock;
use crate::decision::{self, HookRequest, Project};
use crate::edge::hook::{HookArgs, MAX_PAYLOAD_BYTES, load_project, run_hook};
use crate::edge::project::project_root;
use crate::edge::settings::Settings;
use crate::edge::skills;
use crate::install::Scope;
use crate::payload::{Event, Host, Payload};
use crate::skills::router::SkillRouter;

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
    Install(InstallArgs),
    /// Remove sophia-hook's own entries from a host's settings file, and nothing else.
    Uninstall(InstallArgs),
    /// Summarise the analytics log (SOPHIA_ANALYTICS_FILE, default
    /// ~/.mcp-servers/analytics/sophia-hook.jsonl).
    Stats {
        /// Only runs at or after this date (2026-11-01) or RFC 3339 timestamp.
        #[arg(long)]
        since: Option<String>,
        /// Print JSON.
        #[arg(long)]
        json: bool,
        /// The log file (default: the analytics file).
        #[arg(long)]
        file: Option<PathBuf>,
    },
    /// Check every host's setup and say how to fix what is wrong; exit 1 on a problem.
    Doctor {
        /// The project root (default: the git root above the current directory).
        #[arg(long)]
        root: Option<PathBuf>,
        /// The binary the hosts should run (default: this executable).
        #[arg(long)]
        binary: Option<PathBuf>,
    },
    /// Compute which catalog agents have a runtime definition on this machine; --write saves the
    /// manifest the hook overlays (SOPHIA_AGENT_AVAILABILITY, default
    /// ~/.mcp-servers/agent-availability.json).
    Availability {
        /// The project root (default: the git root above the current directory).
        #[arg(long)]
        root: Option<PathBuf>,
        /// Write the manifest.
        #[arg(long)]
        write: bool,
    },
    /// The hosts' runtime agent definitions, generated from the canonical agent source.
    #[command(subcommand)]
    Agents(AgentsCommand),
    /// Write one self-contained HTML page (no network, no script) with each host's setup, the
    /// agent catalog and its availability, the skill inventory and the routing mix; print its
    /// path. --host limits it to one host.
    Report {
        /// Where to write the page (default: <state dir>/sophia-hook/report.html, e.g.
        /// ~/.local/state/sophia-hook/report.html).
        #[arg(long)]
        out: Option<PathBuf>,
        /// The period: a duration back from now (7d, 36h, 2w, 90m), a date (2026-11-01) or an
        /// RFC 3339 timestamp. Default: 7d.
        #[arg(long)]
        since: Option<String>,
        /// The analytics log (default: the analytics file).
        #[arg(long)]
        file: Option<PathBuf>,
        /// The project root (default: the git root above the current directory).
        #[arg(long)]
        root: Option<PathBuf>,
        /// The binary the hosts should run (default: this executable).
        #[arg(long)]
        binary: Option<PathBuf>,
    },
    /// Print the whole routing decision as JSON, for a payload on stdin or for --prompt.
    Explain {
        /// The prompt text; without it the payload is read from stdin.
        #[arg(long)]
        prompt: Option<String>,
        /// The working directory to resolve the project from (default: the payload's `cwd`, else
        /// the current directory).
        #[arg(long)]
        cwd: Option<PathBuf>,
    },
}

#[derive(Debug, clap::Args)]
pub struct EvalArgs {
    /// The cases file (one JSON object per line).
    pub cases: PathBuf,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
    /// Evaluate against this project's skill catalog (default: the embedded defaults).
    #[arg(long)]
    pub root: Option<PathBuf>,
    #[arg(long, value_name = "RATIO")]
    pub min_context_accuracy: Option<f64>,
    #[arg(long, value_name = "RATIO")]
    pub min_subagent_accuracy: Option<f64>,
    #[arg(long, value_name = "RATIO")]
    pub min_hotword_accuracy: Option<f64>,
    #[arg(long, value_name = "RATIO")]
    pub min_skill_precision_at_1: Option<f64>,
    #[arg(long, value_name = "RATIO")]
    pub min_skill_precision: Option<f64>,
    #[arg(long, value_name = "RATIO")]
    pub min_skill_recall: Option<f64>,
    #[arg(long, value_name = "RATIO")]
    pub min_no_skill_precision: Option<f64>,
    #[arg(long, value_name = "RATIO")]
    pub min_no_skill_recall: Option<f64>,
    #[arg(long, value_name = "RATIO")]
    pub min_agent_precision_at_1: Option<f64>,
    #[arg(long, value_name = "RATIO")]
    pub min_agent_precision: Option<f64>,
    #[arg(long, value_name = "RATIO")]
    pub min_agent_recall: Option<f64>,
    #[arg(long, value_name = "RATIO")]
    pub min_lock_accuracy: Option<f64>,
    #[arg(long, value_name = "RATIO")]
    pub min_agent_skill_pairing: Option<f64>,
    #[arg(long, value_name = "RATIO")]
    pub min_carry_forward_accuracy: Option<f64>,
}

#[derive(Debug, Subcommand)]
pub enum SkillsCommand {
    /// Compile `skills/*/SKILL.md` of the project into `.sophia/skills-index.tsv`, which the hook
    /// uses while it is fresh.
    Index {
        /// The project root (default: the git root above the current directory).
        #[arg(long)]
        root: Option<PathBuf>,
        /// Where to write the index (only with `--host`: without it, one index is written per
        /// host that has skills, since each host sees its own folders).
        #[arg(long)]
        out: Option<PathBuf>,
    },
}

#[derive(Debug, clap::Args)]
pub struct InstallArgs {
    /// The project's settings (default) or the user's.
    #[arg(long, value_enum, default_value = "project")]
    pub scope: Scope,
    /// Print the resulting file instead of writing it.
    #[arg(long)]
    pub dry_run: bool,
    /// The binary to register (default: this executable).
    #[arg(long)]
    pub binary: Option<PathBuf>,
    /// The project root (default: the git root above the current directory).
    #[arg(long)]
    pub root: Option<PathBuf>,
    /// Leave the host's agent definitions alone (install does not generate them, uninstall
    /// does not remove them).
    #[arg(long)]
    pub no_agents: bool,
}

#[derive(Debug, Subcommand)]
pub enum AgentsCommand {
    /// Write one definition per canonical agent for each host (--host codex|claude|gemini|all,
    /// default all): `.codex/agents/<id>.toml`, `.claude/agents/<id>.md`,
    /// `.gemini/agents/<id>.md`. Files changed by hand are kept and reported.
    Sync {
        #[command(flatten)]
        target: AgentsTarget,
        /// Replace files changed by hand, keeping a backup in the user's state folder.
        #[arg(long)]
        force: bool,
    },
    /// Exit 1 when a definition is missing, stale or changed by hand (for a project's CI).
    Check {
        #[command(flatten)]
        target: AgentsTarget,
    },
}

#[derive(Debug, clap::Args)]
pub struct AgentsTarget {
    /// The project's host folders (default) or the user's.
    #[arg(long, value_enum, default_value = "project")]
    pub scope: Scope,
    /// The project root (default: the git root above the current directory).
    #[arg(long)]
    pub root: Option<PathBuf>,
}

#[derive(Debug, Subcommand)]
pub enum CatalogCommand {
    /// Build the agent catalog v1 from `docs/agents/canonical-subagents.yaml`.
    Build {
        /// The project root (default: the git root above the current directory).
        #[arg(long)]
        root: Option<PathBuf>,
        /// The canonical source (default: <root>/docs/agents/canonical-subagents.yaml).
        #[arg(long)]
        source: Option<PathBuf>,
        /// The project whose skill catalog the affinities must resolve against (default: <root>;
        /// the embedded skills when it has none).
        #[arg(long)]
        skills_root: Option<PathBuf>,
        /// Where to write the catalog (default: <root>/.sophia/agent-catalog.json).
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Verify a generated catalog: its fingerprint, and that it matches its source.
    Check {
        #[arg(long)]
        root: Option<PathBuf>,
        /// The generated catalog (default: <root>/.sophia/agent-catalog.json).
        #[arg(long)]
        catalog: Option<PathBuf>,
        /// The canonical source (default: <root>/docs/agents/canonical-subagents.yaml).
        #[arg(long)]
        source: Option<PathBuf>,
        #[arg(long)]
        skills_root: Option<PathBuf>,
    },
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
    let args = crate::edge::agents_sync::host_all_as_default(args);
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
    match cli.command {
        None => {
            run_hook(stdin, stdout, stderr, &hook_args, settings, clock);
            0
        }
        Some(Command::Explain { prompt, cwd }) => report(
            explain(stdin, stdout, &hook_args, settings, prompt, cwd),
            stderr,
        ),
        Some(Command::Eval(args)) => match eval(stdout, &args) {
            Ok(true) => 0,
            Ok(false) => 1,
            Err(err) => report(Err(err), stderr),
        },
        Some(Command::Skills(SkillsCommand::Index { root, out })) => {
            report(skills_index(stdout, root, cli.host, out, settings), stderr)
        }
        Some(Command::Catalog(CatalogCommand::Build {
            root,
            source,
            skills_root,
            out,
        })) => report(
            catalog_build(stdout, root, source, skills_root, out, clock),
            stderr,
        ),
        Some(Command::Catalog(CatalogCommand::Check {
            root,
            catalog,
            source,
            skills_root,
        })) => report(
            catalog_check(stdout, root, catalog, source, skills_root),
            stderr,
        ),
        Some(Command::Install(args)) => report(
            install(stdout, cli.host, &args, settings, clock, true),
            stderr,
        ),
        Some(Command::Uninstall(args)) => report(
            install(stdout, cli.host, &args, settings, clock, false),
            stderr,
        ),
        Some(Command::Stats { since, json, file }) => {
            report(stats(stdout, since, json, file, settings), stderr)
        }
        Some(Command::Doctor { root, binary }) => {
            match doctor(stdout, cli.host, root, binary, settings) {
                Ok(true) => 0,
                Ok(false) => 1,
                Err(err) => report(Err(err), stderr),
            }
        }
        Some(Command::Agents(command)) => {
            match crate::edge::agents_sync::run(stdout, cli.host, command, settings, clock) {
                Ok(true) => 0,
                Ok(false) => 1,
                Err(err) => report(Err(err), stderr),
            }
        }
        Some(Command::Report {
            out,
            since,
            file,
            root,
            binary,
        }) => report(
            report_page(
                stdout, cli.host, out, since, file, root, binary, settings, clock,
            ),
            stderr,
        ),
        Some(Command::Availability { root, write }) => {
            report(availability(stdout, root, write, settings, clock), stderr)
        }
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

fn explain(
    stdin: &mut dyn Read,
    stdout: &mut dyn Write,
    args: &HookArgs,
    settings: &Settings,
    prompt: Option<String>,
    cwd: Option<PathBuf>,
) -> anyhow::Result<()> {
    let mut payload = match prompt {
        Some(prompt) => Payload {
            hook_event_name: Some(args.host().event_name(Event::UserPromptSubmit).to_owned()),
            prompt: Some(prompt),
            ..Payload::default()
        },
        None => {
            let mut bytes = Vec::new();
            stdin
                .take(MAX_PAYLOAD_BYTES + 1)
                .read_to_end(&mut bytes)
                .context("reading the payload from stdin")?;
            if bytes.len() as u64 > MAX_PAYLOAD_BYTES {
                bail!("the payload is larger than {MAX_PAYLOAD_BYTES} bytes");
            }
            Payload::parse(&bytes)
                .context("parsing the payload on stdin (or pass --prompt TEXT)")?
        }
    };
    if let Some(cwd) = cwd {
        payload.cwd = Some(cwd.to_string_lossy().into_owned());
    }
    let Some((event, wire_event)) =
        decision::resolve_event(args.host(), args.event.as_deref(), &payload)
    else {
        bail!(
            "no event sophia-hook answers (got {:?}); use --event SessionStart or --event UserPromptSubmit",
            args.event
                .as_deref()
                .or(payload.hook_event_name.as_deref())
                .unwrap_or("none")
        );
    };
    let request = HookRequest {
        host: args.host(),
        event,
        wire_event,
        payload: &payload,
        planning_flag: args.planning || settings.planning,
    };
    let project = load_project(
        &request,
        settings,
        chrono::Utc::now(),
        None,
        &|| false,
        crate::edge::skills::Freshness::Full,
    );
    let decision = decision::decide(&request, &project);
    let mut json = serde_json::to_string_pretty(&decision).context("serialising the decision")?;
    json.push('\n');
    stdout
        .write_all(json.as_bytes())
        .context("writing the decision")?;
    Ok(())
}

pub(crate) fn project_root_arg(root: Option<PathBuf>) -> anyhow::Result<PathBuf> {
    match root {
        Some(root) => Ok(root),
        None => {
            let cwd = std::env::current_dir().context("reading the current directory")?;
            Ok(project_root(&cwd))
        }
    }
}

fn skills_index(
    stdout: &mut dyn Write,
    root: Option<PathBuf>,
    host: Option<Host>,
    out: Option<PathBuf>,
    settings: &Settings,
) -> anyhow::Result<()> {
    let root = project_root_arg(root)?;
    if out.is_some() && host.is_none() {
        bail!("--out needs --host: each host gets its own index");
    }
    let homes = skills::Homes::from_settings(settings);
    let hosts: Vec<Host> = match host {
        Some(h) => vec![h],
        None => Host::ALL.to_vec(),
    };
    let mut built = 0;
    let mut last_error = None;
    for host in hosts {
        match skills::build_index(&root, host, &homes, out.as_deref()) {
            Ok((catalog, path)) => {
                built += 1;
                writeln!(
                    stdout,
                    "{}: wrote {} ({} skills, {} skipped, fingerprint {})",
                    host.as_str(),
                    path.display(),
                    catalog.skills.len(),
                    catalog.warnings.len(),
                    catalog.source_fingerprint
                )?;
                for warning in &catalog.warnings {
                    writeln!(stdout, "  warning: {warning}")?;
                }
            }
            Err(e) => last_error = Some(e),
        }
    }
    match (built, last_error) {
        (0, Some(e)) if host.is_some() => Err(e),
        // A refused index path is the same for every host: say so, not "no skills found".
        (0, Some(e)) if e.to_string().starts_with("refusing") => Err(e),
        (0, _) => anyhow::bail!(
            "no skills found in {} for any host (the hook uses the embedded default catalog)",
            root.display()
        ),
        _ => Ok(()),
    }
}

/// Runs `eval`; `Ok(false)` when a floor is missed or an invariant broken.
fn eval(stdout: &mut dyn Write, args: &EvalArgs) -> anyhow::Result<bool> {
    let text = std::fs::read_to_string(&args.cases)
        .with_context(|| format!("reading {}", args.cases.display()))?;
    let base = args.cases.parent().unwrap_or(std::path::Path::new("."));
    let cases = crate::eval::parse_cases_in(&text, base)
        .map_err(|e| anyhow::anyhow!("{}: {e}", args.cases.display()))?;
    let loaded = match &args.root {
        Some(root) => skills::load(root),
        None => skills::LoadedCatalog {
            catalog: crate::skills::default_catalog(),
            source: skills::CatalogSource::Embedded,
            warnings: Vec::new(),
            inventory: skills::Inventory::default(),
        },
    };
    let skill_ids: std::collections::BTreeSet<String> =
        loaded.catalog.skills.iter().map(|s| s.id.clone()).collect();
    let agents = match &args.root {
        Some(root) => crate::edge::agents::load_catalog(root, &skill_ids, String::new()).catalog,
        None => crate::agents::default_catalog(),
    };
    let mut project = Project {
        skill_source: Some(loaded.source.as_str()),
        skill_warnings: loaded.warnings,
        skills: Some(SkillRouter::new(loaded.catalog)),
        agents: Some(agents),
        ..Project::default()
    };
    let mut report = crate::eval::run(&cases, &mut project);
    let definitions = match &args.root {
        Some(root) => skills::definitions(root),
        None => crate::skills::default_definitions(),
    };
    let bm25 = crate::skills::bm25::Bm25::new(&definitions);
    report.skills_bm25_baseline = Some(crate::eval::bm25_baseline(&cases, &bm25));
    let floors = crate::eval::Floors {
        context_accuracy: args.min_context_accuracy,
        subagent_accuracy: args.min_subagent_accuracy,
        hotword_accuracy: args.min_hotword_accuracy,
        skill_precision_at_1: args.min_skill_precision_at_1,
        skill_precision: args.min_skill_precision,
        skill_recall: args.min_skill_recall,
        no_skill_precision: args.min_no_skill_precision,
        no_skill_recall: args.min_no_skill_recall,
        agent_precision_at_1: args.min_agent_precision_at_1,
        agent_precision: args.min_agent_precision,
        agent_recall: args.min_agent_recall,
        lock_accuracy: args.min_lock_accuracy,
        agent_skill_pairing: args.min_agent_skill_pairing,
        carry_forward_accuracy: args.min_carry_forward_accuracy,
    };
    let failures = floors.failures(&report);
    let broken = crate::eval::invariant_failures(&report);
    if args.json {
        let mut json = serde_json::to_value(&report)?;
        json["floorFailures"] = serde_json::to_value(&failures)?;
        json["invariantFailures"] = serde_json::to_value(&broken)?;
        writeln!(stdout, "{}", serde_json::to_string_pretty(&json)?)?;
    } else {
        write!(stdout, "{}", crate::eval::render_table(&report))?;
        for failure in &failures {
            writeln!(stdout, "FLOOR MISSED: {failure}")?;
        }
        for failure in &broken {
            writeln!(stdout, "INVARIANT BROKEN: {failure}")?;
        }
    }
    Ok(failures.is_empty() && broken.is_empty())
}

fn skill_ids_of(root: &std::path::Path) -> std::collections::BTreeSet<String> {
    skills::load(root)
        .catalog
        .skills
        .into_iter()
        .map(|s| s.id)
        .collect()
}

fn read_source(path: &std::path::Path) -> anyhow::Result<String> {
    use crate::edge::files::{caps, read_bounded_string};
    read_bounded_string(path, caps::CATALOG)
        .with_context(|| format!("reading the canonical source {}", path.display()))
}

/// The generated catalog's path for `catalog build`/`check`: `--out`/`--catalog` from the
/// command line as given (the user's choice), else the project's, which must stay inside it.
fn project_catalog_path(root: &std::path::Path, given: Option<PathBuf>) -> anyhow::Result<PathBuf> {
    if let Some(path) = given {
        return Ok(path);
    }
    match crate::edge::agents::catalog_location(root) {
        (Some(path), None) => Ok(path),
        (_, Some(why)) => bail!(
            "refusing the agent catalog path: {why} (it must stay inside the project, out of .git/); nothing was written"
        ),
        (None, None) => bail!("refusing an agent catalog path outside the project"),
    }
}

fn catalog_build(
    stdout: &mut dyn Write,
    root: Option<PathBuf>,
    source: Option<PathBuf>,
    skills_root: Option<PathBuf>,
    out: Option<PathBuf>,
    clock: &dyn Clock,
) -> anyhow::Result<()> {
    let root = project_root_arg(root)?;
    let source = match source {
        Some(source) => source,
        None => crate::edge::files::inside_project(
            &root,
            std::path::Path::new(crate::edge::agents::SOURCE_PATH),
        )
        .map_err(|why| {
            anyhow::anyhow!(
                "refusing {}: {why}; nothing was written",
                crate::edge::agents::SOURCE_PATH
            )
        })?,
    };
    let out = project_catalog_path(&root, out)?;
    let text = read_source(&source)?;
    let skill_ids = skill_ids_of(skills_root.as_deref().unwrap_or(&root));
    let catalog =
        crate::agents::catalog::build(&text, &skill_ids, crate::edge::hook::timestamp(clock.now()))
            .with_context(|| format!("refusing {}; nothing was written", source.display()))?;
    let mut json = serde_json::to_string_pretty(&catalog)?;
    json.push('\n');
    crate::edge::files::write_atomic(&out, json.as_bytes())
        .with_context(|| format!("writing {}", out.display()))?;
    if let Some(dir) = out.parent() {
        skills::ignore_folder(dir);
    }
    writeln!(
        stdout,
        "wrote {} ({} agents, fingerprint {})",
        out.display(),
        catalog.agents.len(),
        catalog.fingerprint
    )?;
    Ok(())
}

fn catalog_check(
    stdout: &mut dyn Write,
    root: Option<PathBuf>,
    catalog: Option<PathBuf>,
    source: Option<PathBuf>,
    skills_root: Option<PathBuf>,
) -> anyhow::Result<()> {
    let root = project_root_arg(root)?;
    let path = project_catalog_path(&root, catalog)?;
    let generated = crate::edge::agents::read_catalog(&path)
        .map_err(|reason| anyhow::anyhow!("{}: {reason}", path.display()))?;
    let source = source.unwrap_or_else(|| root.join(crate::edge::agents::SOURCE_PATH));
    let text = read_source(&source)?;
    let skill_ids = skill_ids_of(skills_root.as_deref().unwrap_or(&root));
    let fresh = crate::agents::catalog::build(&text, &skill_ids, String::new())
        .with_context(|| format!("the source {} does not build", source.display()))?;
    if fresh.fingerprint != generated.fingerprint {
        bail!(
            "{} is stale: its fingerprint {} differs from the source's {}; run `sophia-hook catalog build`",
            path.display(),
            generated.fingerprint,
            fresh.fingerprint
        );
    }
    writeln!(
        stdout,
        "{}: fingerprint valid and fresh ({})",
        path.display(),
        generated.fingerprint
    )?;
    Ok(())
}

fn availability(
    stdout: &mut dyn Write,
    root: Option<PathBuf>,
    write: bool,
    settings: &Settings,
    clock: &dyn Clock,
) -> anyhow::Result<()> {
    use crate::agents::availability::Manifest;
    let root = project_root_arg(root)?;
    let now = crate::edge::hook::timestamp(clock.now());
    let effective = crate::edge::agents::load_catalog(&root, &skill_ids_of(&root), now.clone());
    let dirs = crate::edge::agents::definition_dirs(&root, settings);
    let states = crate::edge::agents::compute_availability(&effective.catalog, &dirs);
    let hosts = ["codex", "claude", "gemini"];
    // Per host: `configured` for Codex is not `configured` on Claude Code.
    let per_host: std::collections::BTreeMap<String, std::collections::BTreeMap<String, _>> = hosts
        .iter()
        .map(|h| {
            let by_agent = states
                .iter()
                .map(|(id, (_, defs))| {
                    let state = crate::edge::agents::state_of(defs.iter().filter(|d| d.host == *h));
                    (id.clone(), state)
                })
                .collect();
            ((*h).to_owned(), by_agent)
        })
        .collect();
    writeln!(
        stdout,
        "catalog: {} ({})",
        effective.catalog.fingerprint,
        effective.source.as_str()
    )?;
    writeln!(
        stdout,
        "{:<20} {:<12} {:<12} {:<12} {:<12} definitions",
        "agent", "any host", "codex", "claude", "gemini"
    )?;
    for (id, (state, defs)) in &states {
        let where_: Vec<String> = defs
            .iter()
            .map(|d| {
                format!(
                    "{}:{}{}",
                    d.host,
                    d.path.display(),
                    if d.enabled { "" } else { " (disabled)" }
                )
            })
            .collect();
        let host_state = |h: &str| per_host[h][id].as_str();
        writeln!(
            stdout,
            "{id:<20} {:<12} {:<12} {:<12} {:<12} {}",
            state.as_str(),
            host_state("codex"),
            host_state("claude"),
            host_state("gemini"),
            if where_.is_empty() {
                "-".to_owned()
            } else {
                where_.join(", ")
            }
        )?;
    }
    if write {
        let path = settings
            .availability_file
            .clone()
            .context("no manifest path: set SOPHIA_AGENT_AVAILABILITY or HOME")?;
        let manifest = Manifest {
            schema_version: 1,
            generated_at: Some(now),
            catalog_fingerprint: Some(effective.catalog.fingerprint.clone()),
            agents: states.iter().map(|(id, (s, _))| (id.clone(), *s)).collect(),
            hosts: per_host,
        };
        let mut json = serde_json::to_string_pretty(&manifest)?;
        json.push('\n');
        crate::edge::files::write_atomic(&path, json.as_bytes())
            .with_context(|| format!("writing {}", path.display()))?;
        writeln!(stdout, "wrote {}", path.display())?;
    }
    Ok(())
}

/// The absolute path of the binary to register.
pub fn binary_path(explicit: Option<&std::path::Path>) -> anyhow::Result<PathBuf> {
    let path = match explicit {
        Some(p) => p.to_path_buf(),
        None => std::env::current_exe().context("finding this executable")?,
    };
    let path = std::fs::canonicalize(&path).unwrap_or(path);
    if !path.is_absolute() {
        bail!("the binary path {} is not absolute", path.display());
    }
    Ok(path)
}

/// The settings file of a host for a scope.
pub fn settings_path(
    host: Host,
    scope: Scope,
    root: &std::path::Path,
    settings: &Settings,
) -> anyhow::Result<PathBuf> {
    let home = settings
        .home
        .as_deref()
        .context("the home directory is unknown (HOME is not set)")?;
    Ok(crate::install::config_path(
        host,
        scope,
        root,
        home,
        settings.codex_home.as_deref(),
    ))
}

fn install(
    stdout: &mut dyn Write,
    host: Option<Host>,
    args: &InstallArgs,
    settings: &Settings,
    clock: &dyn Clock,
    add: bool,
) -> anyhow::Result<()> {
    use crate::edge::hostconfig;
    let host = host.context("name the host: --host codex|claude|gemini|antigravity")?;
    let root = project_root_arg(args.root.clone())?;
    let path = settings_path(host, args.scope, &root, settings)?;
    let target = hostconfig::write_target(&path, args.scope, &root)?;
    let before = hostconfig::read(&target)?;
    let after = if add {
        let binary = binary_path(args.binary.as_deref())?;
        let binary = binary.to_string_lossy();
        if binary.contains(' ') {
            writeln!(
                stdout,
                "warning: the binary path contains spaces ({binary}); Windows shells break on them — install it under a path without spaces"
            )?;
        }
        Some(
            crate::install::install(before.clone(), host, &binary)
                .map_err(|e| anyhow::anyhow!("{}: {e}; it was left untouched", path.display()))?,
        )
    } else {
        crate::install::uninstall(before.clone(), host)
            .map_err(|e| anyhow::anyhow!("{}: {e}; it was left untouched", path.display()))?
    };
    let unchanged = match &after {
        Some(doc) => *doc == before,
        None => before.is_null(),
    };
    if args.dry_run {
        match &after {
            Some(doc) => write!(stdout, "{}", hostconfig::render(doc))?,
            None => writeln!(
                stdout,
                "(the file would be removed: nothing but sophia-hook's entries is left)"
            )?,
        }
        return Ok(());
    }
    let verb = if add { "installed" } else { "uninstalled" };
    if unchanged {
        writeln!(
            stdout,
            "{}: already {verb} for {} ({} scope); nothing changed",
            path.display(),
            host.as_str(),
            args.scope.as_str()
        )?;
    } else {
        let backups = settings
            .state_dir
            .as_deref()
            .map(|dir| hostconfig::backup_dir(dir, host, args.scope, &path));
        hostconfig::write(&path, &target, backups.as_deref(), after.as_ref())?;
        writeln!(
            stdout,
            "{verb} sophia-hook for {} ({} scope): {}",
            host.as_str(),
            args.scope.as_str(),
            path.display()
        )?;
        if let (false, Some(dir)) = (before.is_null(), &backups) {
            writeln!(
                stdout,
                "previous file kept in {} (original.json: before sophia-hook's first change; last.json: before this one)",
                dir.display()
            )?;
        }
    }
    let roles = crate::edge::agents_sync::SyncTarget::hosts_for(Some(host))
        .ok()
        .filter(|_| !args.no_agents)
        .map(|hosts| crate::edge::agents_sync::SyncTarget {
            hosts,
            scope: args.scope,
            root: root.clone(),
        });
    if !add {
        if let Some(target) = &roles {
            crate::edge::agents_sync::remove_generated(stdout, target, settings)?;
        }
        return Ok(());
    }
    if host == Host::Codex {
        let other = match args.scope {
            crate::install::Scope::User => crate::install::Scope::Project,
            crate::install::Scope::Project => crate::install::Scope::User,
        };
        let other_path = settings_path(host, other, &root, settings)?;
        let other_doc = hostconfig::read(&other_path).unwrap_or(serde_json::Value::Null);
        if !crate::install::registered(&other_doc, host).is_empty() {
            writeln!(
                stdout,
                "warning: sophia-hook is also installed at {} scope ({}): Codex runs both, so every block is injected twice — remove one with `sophia-hook uninstall --host codex --scope {}`",
                other.as_str(),
                other_path.display(),
                other.as_str()
            )?;
        }
    }
    // Nothing changed: nothing to trust or accept again.
    let next = if unchanged { None } else { Some(host) };
    match next {
        None => {}
        Some(Host::Codex) if args.scope == crate::install::Scope::Project => writeln!(
            stdout,
            "next: open the Codex TUI in the project, trust the folder (Codex ignores .codex/hooks.json in an untrusted folder), then trust the two sophia-hook entries once with /hooks — Codex skips untrusted hooks silently, and `codex exec` never asks (re-trust after every change of the command line)"
        )?,
        Some(Host::Codex) => writeln!(
            stdout,
            "next: open the Codex TUI and trust the two sophia-hook entries once with /hooks — Codex skips untrusted hooks silently, and `codex exec` never asks (re-trust after every change of the command line)"
        )?,
        Some(Host::Claude) => writeln!(
            stdout,
            "next: nothing — Claude Code picks the settings up by itself"
        )?,
        Some(Host::Gemini) => writeln!(
            stdout,
            "next: Gemini CLI may warn once that the project's hooks changed; accept them"
        )?,
        Some(Host::Antigravity) => writeln!(
            stdout,
            "EXPERIMENTAL: built from the hooks guide inside the Antigravity engine, not yet run in a real Antigravity host (see docs/hosts.md); check `agy --version` and test that the context arrives"
        )?,
    }
    if let Some(target) = &roles {
        let stamp = clock.now().format("%Y%m%dT%H%M%SZ").to_string();
        crate::edge::agents_sync::sync(stdout, target, false, settings, &stamp)?;
    }
    let has_source = root.join(crate::edge::agents::SOURCE_PATH).is_file();
    if has_source || roles.is_some() {
        writeln!(
            stdout,
            "refreshing the agent catalog and the availability manifest:"
        )?;
        if has_source {
            catalog_build(stdout, Some(root.clone()), None, None, None, clock)?;
        }
        availability(stdout, Some(root), true, settings, clock)?;
    }
    Ok(())
}

fn stats(
    stdout: &mut dyn Write,
    since: Option<String>,
    json: bool,
    file: Option<PathBuf>,
    settings: &Settings,
) -> anyhow::Result<()> {
    let path = file
        .or_else(|| settings.analytics_file.clone())
        .context("no analytics file: analytics are off (SOPHIA_ANALYTICS=off) or HOME is not set; pass --file")?;
    let since = since
        .map(|s| crate::stats::parse_since(&s))
        .transpose()
        .map_err(|e| anyhow::anyhow!(e))?;
    let text =
        match crate::edge::files::read_bounded_string(&path, crate::edge::files::caps::ANALYTICS) {
            Ok(text) => text,
            Err(crate::edge::files::ReadError::Missing) => String::new(),
            Err(e) => return Err(e).with_context(|| format!("reading {}", path.display())),
        };
    let summary = crate::stats::summarise(&text, since);
    if json {
        writeln!(stdout, "{}", serde_json::to_string_pretty(&summary)?)?;
    } else {
        writeln!(stdout, "{}", path.display())?;
        write!(stdout, "{}", crate::stats::render(&summary))?;
    }
    Ok(())
}

/// Runs `doctor`; `Ok(false)` when a check failed.
fn doctor(
    stdout: &mut dyn Write,
    host: Option<Host>,
    root: Option<PathBuf>,
    binary: Option<PathBuf>,
    settings: &Settings,
) -> anyhow::Result<bool> {
    use crate::edge::doctor;
    let root = project_root_arg(root)?;
    let binary = binary_path(binary.as_deref())?;
    let input = doctor::DoctorInput {
        root: &root,
        settings,
        binary: &binary,
        hosts: host.map_or_else(|| Host::ALL.to_vec(), |h| vec![h]),
        explicit: host.is_some(),
        live_runs: true,
    };
    let checks = doctor::run(&input);
    write!(stdout, "{}", doctor::render(&checks))?;
    Ok(!checks.iter().any(|c| c.status == doctor::Status::Fail))
}

/// Runs `report`: writes the page and prints its path.
#[allow(clippy::too_many_arguments)]
fn report_page(
    stdout: &mut dyn Write,
    host: Option<Host>,
    out: Option<PathBuf>,
    since: Option<String>,
    file: Option<PathBuf>,
    root: Option<PathBuf>,
    binary: Option<PathBuf>,
    settings: &Settings,
    clock: &dyn Clock,
) -> anyhow::Result<()> {
    let args = crate::edge::report::ReportArgs {
        out,
        since,
        host,
        root: project_root_arg(root)?,
        binary: binary_path(binary.as_deref())?,
        file,
    };
    let path = crate::edge::report::run(&args, settings, clock)?;
    writeln!(stdout, "{}", path.display())?;
    Ok(())
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
