//! Hook mode: read the payload from stdin, load what the pure pipeline needs, print the host
//! output, append the analytics line. Fails open: every failure ends in exit 0 with valid host
//! JSON or nothing on stdout; diagnostics go to stderr only under `SOPHIA_DEBUG=1` (Gemini CLI
//! reads stderr when stdout is empty, so the default is silence).

use std::io::{Read, Write};

use crate::clock::Clock;
use crate::edge::agents;
pub use crate::edge::analytics_log::record;
use crate::edge::config::artifact_path;
use crate::edge::files::{Place, ProjectRoot};
use crate::edge::project::{AGENTS_MD_CAP_UNITS, project_root, read_doc, working_dir};
use crate::edge::settings::Settings;
use crate::edge::skills;
use crate::edge::turns;
use crate::hosts::{Event, Host};
use crate::stages::analytics::AnalyticsEvent;
use crate::stages::decision::{self, CarryForwardUpdate, Decision, HookRequest, Project};
use crate::stages::outcome::{self, HintState};
use crate::stages::payload::Payload;
use crate::stages::planning;
use crate::stages::render::Printed;
use chrono::{DateTime, SecondsFormat, Utc};
use std::collections::BTreeSet;
use std::path::Path;

/// Why a run was degraded when the time budget ran out.
pub const DEGRADED_TIME_BUDGET: &str = "time-budget";

/// Payloads larger than this pass through silently.
pub const MAX_PAYLOAD_BYTES: u64 = 16 * 1024 * 1024;

/// What the command line says about this hook run.
#[derive(Debug, Clone, Default)]
pub struct HookArgs {
    pub host: Option<Host>,
    /// `--event`, verbatim; an event we do not answer makes the run a pass-through.
    pub event: Option<String>,
    pub planning: bool,
    /// `--time-budget-ms`: this run's budget, over the settings' (the user's own flag).
    pub time_budget: Option<std::time::Duration>,
    /// `--fault`: a failure injected on purpose, for the tests of the binary.
    pub fault: Option<Fault>,
}

/// A failure the tests inject through the real binary (`--fault`, a flag: never the
/// environment, which a repository can set for a host's hooks).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// `panic`: a panic right after stdin is read, before the payload is parsed.
    Panic,
    /// `panic-after-parse`: a panic once the payload is parsed (the deadline's answer is ready).
    PanicAfterParse,
    /// `stall`: the run stops for good once the payload is parsed (a step that never ends).
    Stall,
}

impl Fault {
    pub fn parse(value: &str) -> Option<Fault> {
        match value {
            "panic" => Some(Fault::Panic),
            "panic-after-parse" => Some(Fault::PanicAfterParse),
            "stall" => Some(Fault::Stall),
            _ => None,
        }
    }
}

impl HookArgs {
    pub fn host(&self) -> Host {
        self.host.unwrap_or(Host::DEFAULT)
    }

    /// The run's time budget: the flag's, else the settings' (clamped from the environment).
    pub fn time_budget(&self, settings: &Settings) -> std::time::Duration {
        self.time_budget.unwrap_or(settings.time_budget)
    }
}

/// Runs the hook: loads, decides once, applies the outcome. Never fails and never panics outward
/// on bad input (the binary still wraps it in `catch_unwind` for bugs); the caller exits 0.
pub fn run_hook(
    stdin: &mut dyn Read,
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
    args: &HookArgs,
    settings: &Settings,
    clock: &dyn Clock,
) {
    let result = load(stdin, args, settings, clock, stderr);
    let (event, settings) = match &result {
        Ok((decision, payload, analytics, now, adjusted)) => {
            let settings = adjusted.as_ref().unwrap_or(settings);
            // Decided: if the state below outlasts the deadline, this output is the answer.
            crate::edge::deadline::decided(decision, decision.printed(false));
            let printed = apply(decision, payload, settings, *now);
            // The run's duration: to its decision and its state written, before the output.
            let duration_us = elapsed_us(clock);
            if !crate::edge::deadline::claim() {
                return;
            }
            if let Some(output) = printed {
                // A closed stdout (broken pipe) is the host's business, not an error of ours.
                let _ = stdout.write_all(output.to_line().as_bytes());
                let _ = stdout.flush();
            }
            if settings.debug {
                debug_decision(stderr, decision);
            }
            let event = AnalyticsEvent::from_outcome(decision, printed, clock.now(), duration_us);
            (event, settings.with_project_analytics(analytics))
        }
        Err(failure) => {
            if settings.debug {
                let _ = writeln!(stderr, "[sophia-hook] pass-through reason={failure}");
            }
            return fail_open(stdout, stderr, args, settings, failure, clock);
        }
    };
    record(&settings, stderr, &event);
    // Out of the prompt's path: the output is written; at most once per interval, a detached
    // flush of the log to the user's OpenTelemetry collector (`edge::telemetry`).
    crate::edge::telemetry::start_detached_if_due(&settings, std::time::SystemTime::now());
}

fn elapsed_us(clock: &dyn Clock) -> u64 {
    clock.elapsed().as_micros().try_into().unwrap_or(u64::MAX)
}

/// The one way a hook run fails open, for a failure before a decision and for a panic (the
/// binary's `catch_unwind`): the host's no-op (or nothing) on stdout, flushed, and the analytics
/// event that names the failure. Written without `print!`, which panics (exit 101) when stdout
/// is a closed pipe.
pub fn fail_open(
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
    args: &HookArgs,
    settings: &Settings,
    failure: &'static str,
    clock: &dyn Clock,
) {
    let duration_us = elapsed_us(clock);
    if !crate::edge::deadline::claim() {
        return;
    }
    if let Some(noop) = Printed::noop(args.host()) {
        let _ = stdout.write_all(noop.to_line().as_bytes());
        let _ = stdout.flush();
    }
    let event = args
        .event
        .as_deref()
        .and_then(|name| args.host().parse_event(name))
        .map(|(_, wire)| wire);
    let event = AnalyticsEvent::failed_open(
        args.host().as_str(),
        event,
        failure,
        clock.now(),
        duration_us,
    );
    record(settings, stderr, &event);
}

/// Applies a decision's effects ([`decision::Effects`]) and returns what the run prints: the
/// turn log on a prompt event answered once per turn, the carry-forward state of the session.
/// Changes nothing of the decision. Best effort: a state file that cannot be written changes
/// nothing else (a turn may then be answered twice, never lost).
fn apply<'d>(
    decision: &'d Decision,
    payload: &Payload,
    settings: &Settings,
    now: DateTime<Utc>,
) -> Option<&'d Printed> {
    let Some(cache) = &settings.cache_dir else {
        return decision.printed(false);
    };
    let answered_before = decision.effects.once_per_turn.is_some() && {
        let key = turns::TurnLog::key(
            &turns::secret(cache),
            payload.session_id.as_deref().unwrap_or(""),
            payload.initial_num_steps,
            payload.prompt.as_deref().unwrap_or(""),
        );
        !turns::first_time(&turns::path(cache), key, now)
    };
    if let (Some(update), Some(session)) = (&decision.effects.carry_forward, &payload.session_id) {
        update_carry_forward(
            &agents::state_path(cache),
            &plan_key(payload.cwd.as_deref(), session),
            update,
            now,
        );
    }
    if let (Some(update), Some(key)) = (&decision.effects.hint, &decision.effects.hint_session) {
        let _ = Place::user(hints_path(cache)).update_json(|state: &mut HintState| {
            state.apply(key, update, now);
            true
        });
    }
    decision.printed(answered_before)
}

/// The session hint records (`stages::outcome`): what each session's last prompt named.
pub fn hints_path(cache_dir: &Path) -> std::path::PathBuf {
    cache_dir.join("sophia-hook").join("hints.json")
}

/// The session's previous hint and what the host's transcript shows since (issue 46). The
/// transcript is the host's (`HostSpec::transcript`): the payload's path only, checked and read
/// as `edge::transcript` says; `None` without a session or a cache to keep hints in.
fn read_trail(
    request: &HookRequest<'_>,
    settings: &Settings,
    cwd: &str,
    root: &ProjectRoot,
    now: DateTime<Utc>,
) -> Option<outcome::Trail> {
    let session = request.payload.session_id.as_deref()?;
    let cache = settings.cache_dir.as_deref()?;
    let spec = request.host.spec().transcript;
    let key = plan_key(Some(cwd), session);
    let previous = Place::user(hints_path(cache))
        .read_json_or_default::<HintState>()
        .get(&key, now)
        .cloned();
    let path = spec.file.path(
        request.payload.transcript_path.as_deref(),
        Some(session),
        settings.home.as_deref(),
        &settings.host_homes,
    );
    let (transcript, observed) = match path {
        Err(reason) => (Err(reason), None),
        Ok(path) => {
            let path = path.to_string_lossy();
            let key = HintState::key(&path);
            let from = previous
                .as_ref()
                .filter(|p| p.transcript == key)
                .map(|p| p.position);
            match crate::edge::transcript::since(&path, Some(root), &spec, from) {
                Ok((position, observed)) => (Ok((key, position)), observed),
                Err(skip) => (Err(skip.code()), None),
            }
        }
    };
    Some(outcome::Trail {
        session: key,
        previous,
        transcript: Some(transcript),
        observed,
    })
}

/// The hook's load and decision: the payload from stdin, then [`load_and_decide`] under the
/// time budget, which starts once the payload is in (a host that writes it late, busy or
/// loading, must not cost the user the skill and agent lines). The decision comes back with the
/// payload, the project's analytics setting and the run's instant.
fn load(
    stdin: &mut dyn Read,
    args: &HookArgs,
    settings: &Settings,
    clock: &dyn Clock,
    stderr: &mut dyn Write,
) -> Result<Loaded, &'static str> {
    let bytes = read_payload(stdin)?;
    let read_at = clock.mark();
    if args.fault == Some(Fault::Panic) {
        panic!("fault injected by --fault=panic");
    }
    let mut payload = Payload::parse(&bytes).map_err(|e| e.code())?;
    // The payload keeps what it uses (the prompt cut to its bound): up to 16 MiB of stdin is
    // not held through the rest of the run.
    drop(bytes);
    // The project is the payload's working folder's, which may not be ours (Antigravity runs
    // its hooks elsewhere): what the environment names inside it is refused too.
    let adjusted = payload
        .cwd
        .as_deref()
        .and_then(|cwd| settings.for_working_folder(Path::new(cwd)));
    let settings = adjusted.as_ref().unwrap_or(settings);
    let budget = args.time_budget(settings);
    let over_budget = || clock.elapsed().saturating_sub(read_at) > budget;
    let now = clock.now();
    let (decision, analytics) = load_and_decide(
        &mut payload,
        args,
        settings,
        now,
        &over_budget,
        skills::Freshness::Quick,
        settings.debug.then_some(stderr),
    )?;
    Ok((decision, payload, analytics, now, adjusted))
}

type Loaded = (
    Decision,
    Payload,
    crate::config::AnalyticsConfig,
    DateTime<Utc>,
    Option<Settings>,
);

/// Reads the payload's bytes from stdin, at most [`MAX_PAYLOAD_BYTES`].
fn read_payload(stdin: &mut dyn Read) -> Result<Vec<u8>, &'static str> {
    let mut bytes = Vec::new();
    stdin
        .take(MAX_PAYLOAD_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|_| "stdin-unreadable")?;
    if bytes.len() as u64 > MAX_PAYLOAD_BYTES {
        return Err("payload-over-cap");
    }
    Ok(bytes)
}

/// Loads what the payload's request needs and decides, once: the one path of the hook and of
/// `explain` (which passes no budget and checks the skill catalog in full). Fails with the
/// pass-through reason when no event of the host's is named. The project's analytics setting
/// comes back with the decision.
pub fn load_and_decide(
    payload: &mut Payload,
    args: &HookArgs,
    settings: &Settings,
    now: DateTime<Utc>,
    over_budget: &dyn Fn() -> bool,
    freshness: skills::Freshness,
    mut debug: Option<&mut dyn Write>,
) -> Result<(Decision, crate::config::AnalyticsConfig), &'static str> {
    let host = args.host();
    let (event, wire_event) =
        decision::resolve_event(host, args.event.as_deref(), payload).ok_or("unknown-event")?;
    // A prompt event that fires before every model call (Antigravity's PreInvocation) answers
    // only the turn's first call (`invocationNum` 0); the user's text comes from the payload,
    // else from the end of the host's conversation file.
    let later_call = decision::later_model_call(host, wire_event, payload);
    if host.prompt_event_per_model_call(wire_event) && !later_call {
        fill_prompt_from_transcript(payload, reborrow(&mut debug));
    }
    if !later_call {
        // From here the user's routing line is the least this run answers (`edge::deadline`).
        crate::edge::deadline::payload_ready(
            host,
            (args.event.as_deref(), args.planning),
            payload,
            now,
            args.time_budget(settings),
        );
    }
    if args.fault == Some(Fault::PanicAfterParse) {
        panic!("fault injected by --fault=panic-after-parse");
    }
    let request = HookRequest {
        host,
        event,
        wire_event,
        payload,
        planning_flag: args.planning || settings.planning,
        now,
    };
    // The time budget is checked before each expensive step; past it the run degrades to the
    // routing-control block only (or nothing), and says so in analytics.
    let project = if later_call {
        // Nothing is injected on a later call: no project material is read.
        Project::default()
    } else if over_budget() {
        // Degraded, never with another hotword prefix than the user's or the project's (one
        // small file read): `;quick` must not be lost with the skill line.
        Project {
            hotword_prefix: prefix_only(request.payload.cwd.as_deref(), settings),
            ..Project::degraded(DEGRADED_TIME_BUDGET)
        }
    } else {
        let loaded = load_project(
            &request,
            settings,
            now,
            reborrow(&mut debug),
            over_budget,
            (freshness, args.fault == Some(Fault::Stall)),
        );
        if over_budget() {
            Project {
                analytics: loaded.analytics,
                hotword_prefix: loaded.hotword_prefix,
                ..Project::degraded(DEGRADED_TIME_BUDGET)
            }
        } else {
            loaded
        }
    };
    if let (Some(err), Some(_)) = (debug, project.degraded) {
        let _ = writeln!(
            err,
            "[sophia-hook] degraded reason=time-budget budget_ms={}",
            args.time_budget(settings).as_millis()
        );
    }
    Ok((decision::decide(&request, &project), project.analytics))
}

/// The effective hotword prefix of the project of the working folder `cwd` (its
/// `.sophia-hook.yaml`, else the user's `config.yaml`, else `+`): all a degraded run reads.
fn prefix_only(cwd: Option<&str>, settings: &Settings) -> crate::config::HotwordPrefix {
    let project = working_dir(cwd)
        .map(|cwd| crate::edge::config::load(&ProjectRoot::open_or_empty(&project_root(&cwd))).0)
        .and_then(|config| config.hotword_prefix);
    crate::config::HotwordPrefix::effective(project.as_ref(), settings.hotword_prefix.as_ref())
}

/// The debug writer again, for one more call.
fn reborrow<'a>(debug: &'a mut Option<&mut dyn Write>) -> Option<&'a mut dyn Write> {
    debug.as_mut().map(|w| &mut **w as &mut dyn Write)
}

/// Takes the user's text from the host's conversation file (`transcriptPath`) when the payload
/// carries none: see `edge::transcript` for how the path is checked and how much is read. The
/// project it is checked against is the payload's working folder's.
fn fill_prompt_from_transcript(payload: &mut Payload, debug: Option<&mut dyn Write>) {
    if payload
        .prompt
        .as_deref()
        .is_some_and(|p| !p.trim().is_empty())
    {
        return;
    }
    let Some(path) = payload.transcript_path.as_deref().filter(|p| !p.is_empty()) else {
        return;
    };
    let root = working_dir(payload.cwd.as_deref())
        .map(|cwd| ProjectRoot::open_or_empty(&project_root(&cwd)));
    match crate::edge::transcript::last_user_text(path, root.as_ref()) {
        // The same prefix as a prompt in the payload (`payload::PROMPT_BYTES`, I1).
        Ok(text) => {
            payload.prompt =
                Some(crate::text::prefix(&text, crate::stages::payload::PROMPT_BYTES).to_owned())
        }
        Err(skip) => {
            if let Some(err) = debug {
                let _ = writeln!(err, "[sophia-hook] no user text reason={}", skip.code());
            }
        }
    }
}

/// The carry-forward key of `session` in the project of the working folder `cwd`: a plan
/// belongs to the project it was made in — its root, resolved, and the root folder's identity
/// ([`ProjectRoot::identity`]) — so the same session id in another project, or in another clone
/// at the same path, never finds it (`docs/security.md` `### I3`; blind pass of issue 29, case
/// 08). The state stores only a hash of it.
fn plan_key(cwd: Option<&str>, session: &str) -> String {
    let root = working_dir(cwd)
        .map(|cwd| ProjectRoot::open_or_empty(&project_root(&cwd)))
        .map(|root| format!("{}\0{}", root.path().to_string_lossy(), root.identity()))
        .unwrap_or_default();
    format!("{root}\0{session}")
}

/// Writes a carry-forward update under the state's lock (concurrent sessions never lose each
/// other's entries), pruning what has expired.
fn update_carry_forward(
    path: &Path,
    session: &str,
    update: &CarryForwardUpdate,
    now: DateTime<Utc>,
) {
    let _ = Place::user(path).update_json(|state: &mut planning::CarryForwardState| {
        state.prune(now);
        match update {
            CarryForwardUpdate::Record(planned) => state.insert(session, planned.clone()),
            CarryForwardUpdate::Consume => {
                state.remove(session);
            }
        }
        true
    });
}

/// RFC 3339 UTC timestamp, seconds precision.
pub fn timestamp(now: DateTime<Utc>) -> String {
    now.to_rfc3339_opts(SecondsFormat::Secs, true)
}

/// Loads the project material the request needs, and nothing else: a prompt reads the skill
/// catalog, never `AGENTS.md`; a SessionStart reads `AGENTS.md` only for hosts that do not.
/// `over_budget` stops a skill scan midway (the caller then degrades the run); `freshness` says
/// whether the skill catalog may be proved fresh by the freshness stamp (the hook) or is checked
/// in full (`explain`).
fn load_project(
    request: &HookRequest<'_>,
    settings: &Settings,
    now: DateTime<Utc>,
    mut debug: Option<&mut dyn Write>,
    over_budget: &dyn Fn() -> bool,
    (freshness, stall): (skills::Freshness, bool),
) -> Project {
    let mut project = Project::default();
    let Some(cwd) = working_dir(request.payload.cwd.as_deref()) else {
        return project;
    };
    // The project's one door: every file of it is read through this handle (a folder that
    // cannot be opened holds nothing; the user's and the embedded material still route).
    let root = ProjectRoot::open_or_empty(&project_root(&cwd));
    let cwd_text = cwd.to_string_lossy().into_owned();
    let (config, config_warning) = crate::edge::config::load(&root);
    project.hotword_prefix = crate::config::HotwordPrefix::effective(
        config.hotword_prefix.as_ref(),
        settings.hotword_prefix.as_ref(),
    );
    // The deadline's answer routes with the prefix the project chose, from now on.
    crate::edge::deadline::prefix_known(&project.hotword_prefix);
    if stall {
        // `--fault=stall`: the loading that follows never ends (the tests of the deadline).
        loop {
            std::thread::park();
        }
    }
    project.planning = config.planning.unwrap_or(false);
    project.analytics = config.analytics.clone();
    project.skill_warnings.extend(config_warning);
    project.skill_warnings.extend(config.warnings());
    // What the environment set that was refused or clamped (`edge::settings`): codes only.
    project
        .skill_warnings
        .extend(settings.warnings.iter().cloned());
    if request.event == Event::UserPromptSubmit {
        // Paths come from the configuration read above, not from a second read of it, and stay
        // inside the project (a refused path reads as missing, with a warning).
        let homes = skills::Homes::from_settings(settings);
        let mut index_warning = None;
        let loaded = skills::load_router_within(
            request.host,
            &cwd,
            &root,
            &homes,
            || {
                let (path, warning) = artifact_path(
                    &root,
                    "skills_index",
                    config.skills_index.as_deref(),
                    skills::INDEX_PATH,
                );
                index_warning = warning;
                path
            },
            settings.cache_dir.as_deref(),
            over_budget,
            now.timestamp(),
            freshness,
        );
        project.skill_warnings.extend(index_warning);
        let (generated, catalog_warning) = artifact_path(
            &root,
            "agent_catalog",
            config.agent_catalog.as_deref(),
            agents::CATALOG_PATH,
        );
        project.skill_warnings.extend(catalog_warning);
        if let Some(err) = debug.as_deref_mut() {
            let _ = writeln!(
                err,
                "[mcp-skills] catalog={} skills={} warnings={}",
                loaded.source.as_str(),
                loaded.router.len(),
                loaded.warnings.len()
            );
            for warning in project.skill_warnings.iter().chain(&loaded.warnings) {
                // One line per warning, whatever a name in it holds.
                let _ = writeln!(
                    err,
                    "[mcp-skills] warning {}",
                    crate::charset::terminal(warning)
                );
            }
        }
        project.skill_source = Some(loaded.source.as_str());
        project.provenance.skills_from_project_file =
            loaded.source == crate::edge::skills::CatalogSource::Index;
        if loaded.source == skills::CatalogSource::Embedded {
            let grounding = crate::edge::mcp::grounding(
                request.host,
                &cwd,
                &root,
                settings,
                &config,
                over_budget,
            );
            if let Some(err) = debug.as_deref_mut() {
                let _ = writeln!(err, "[mcp-skills] embedded {}", grounding.summary());
            }
            project.skill_grounding = Some(grounding);
        }
        project.skills_degraded = loaded.degraded;
        project.skill_warnings.extend(loaded.warnings);
        project.skills = Some(loaded.router);
        // Past the budget the caller degrades the run: the agent catalog is not read at all.
        if over_budget() {
            return project;
        }

        let debug_catalog = debug.as_deref_mut();
        let definitions = host_agents(request.host, &root, settings);
        // Every skill id, only when a project or machine agent catalog needs them (a lazily read
        // index decodes them on demand).
        let router = project.skills.as_ref();
        let skill_ids = || -> BTreeSet<String> {
            router
                .map(|r| r.ids())
                .unwrap_or_default()
                .into_iter()
                .collect()
        };
        if let Some(effective) = load_agents(
            &root,
            generated.as_ref(),
            skill_ids,
            settings,
            request.host,
            now,
        ) {
            if let Some(err) = debug_catalog {
                let _ = writeln!(
                    err,
                    "[mcp-agent-catalog] catalog={} agents={} warnings={}",
                    effective.source.as_str(),
                    effective.catalog.agents.len(),
                    effective.warnings.len()
                );
                for warning in &effective.warnings {
                    let _ = writeln!(
                        err,
                        "[mcp-agent-catalog] warning {}",
                        crate::charset::terminal(warning)
                    );
                }
            }
            let from_project = effective.source != agents::AgentCatalogSource::Embedded;
            project.host_agents = Some(definitions.bindable(from_project));
            project.provenance.agents_from_project = from_project;
            project.agents = Some(effective.catalog);
            project.agent_warnings = effective.warnings;
        } else {
            project.host_agents = Some(definitions.bindable(false));
            if let Some(err) = debug_catalog {
                let _ = writeln!(
                    err,
                    "[mcp-agent-catalog] catalog=embedded (parsed only when delegation is on)"
                );
            }
        }
        project.agent_warnings.extend(
            definitions
                .cut
                .iter()
                .map(|scope| agents::cut_warning(&format!("{}:{scope}", request.host.as_str()))),
        );
        if let (Some(session), Some(cache), false) = (
            &request.payload.session_id,
            &settings.cache_dir,
            request.payload.not_from_user(),
        ) {
            let state = agents::read_state(&agents::state_path(cache));
            project.planned = state.get(&plan_key(Some(&cwd_text), session), now).cloned();
        }
        // A host's own notification (a background agent done) is no user turn: the hint waits.
        if !request.payload.not_from_user()
            && !request.payload.is_host_notification()
            && !over_budget()
        {
            project.trail = read_trail(request, settings, &cwd_text, &root, now);
        }
    }
    let plan_approval = request.event == Event::PostToolUse
        && request.payload.tool_name.as_deref() == Some(planning::EXIT_PLAN_MODE_TOOL);
    if let (true, Some(session), Some(cache), false) = (
        plan_approval,
        &request.payload.session_id,
        &settings.cache_dir,
        request.payload.not_from_user(),
    ) {
        let state = agents::read_state(&agents::state_path(cache));
        project.planned = state.get(&plan_key(Some(&cwd_text), session), now).cloned();
        if project.planned.is_some() {
            let (generated, _) = artifact_path(
                &root,
                "agent_catalog",
                config.agent_catalog.as_deref(),
                agents::CATALOG_PATH,
            );
            let skill_ids = || {
                crate::stages::skills::default_catalog()
                    .skills
                    .into_iter()
                    .map(|s| s.id)
                    .collect()
            };
            let effective = load_agents(
                &root,
                generated.as_ref(),
                skill_ids,
                settings,
                request.host,
                now,
            );
            project.provenance.agents_from_project = effective
                .as_ref()
                .is_some_and(|e| e.source != agents::AgentCatalogSource::Embedded);
            project.agents = effective.map(|e| e.catalog);
        }
    }
    let has_own_doc = request
        .host
        .own_doc()
        .is_some_and(|name| root.at(name).exists());
    project.session_context_due = request.event == Event::UserPromptSubmit
        && request.host.session_context_on_prompt()
        && !request.payload.not_from_user()
        && !request.payload.is_host_notification()
        && !transcript_carries_bootstrap(request.payload.transcript_path.as_deref());
    let session_context = if request.host.session_context_on_prompt() {
        project.session_context_due
    } else {
        request.event == Event::SessionStart
    };
    if session_context && !request.host.loads_agents_md(has_own_doc) {
        match read_doc(&root, "AGENTS.md", AGENTS_MD_CAP_UNITS) {
            Ok(doc) => project.agents_md = Some(doc),
            Err(reason) => {
                if let Some(err) = debug {
                    let _ = writeln!(err, "[mcp-session] AGENTS.md skipped reason={reason}");
                }
            }
        }
    }
    project
}

/// Whether the host's conversation file (the payload's `transcript_path`, host input: read only
/// at that path, bounded, a regular file) already carries the session bootstrap. No file yet (a
/// first prompt) or no path: it does not. A file over the cap, or one that cannot be read as a
/// regular file, counts as carrying it: re-sending on every prompt of a conversation we cannot
/// read would repeat the bootstrap each turn.
fn transcript_carries_bootstrap(path: Option<&str>) -> bool {
    let Some(path) = path.filter(|p| !p.is_empty()) else {
        return false;
    };
    match Place::user(path).read(crate::edge::files::caps::TRANSCRIPT) {
        Ok(bytes) => bytes
            .windows(crate::stages::render::BOOTSTRAP_MARKER.len())
            .any(|w| w == crate::stages::render::BOOTSTRAP_MARKER.as_bytes()),
        Err(crate::edge::files::ReadError::Missing) => false,
        Err(_) => true,
    }
}

/// The effective agent catalog when the project or the machine has one (a canonical source, a
/// generated catalog, an availability manifest); `None` means the embedded default, which the
/// pipeline parses only when it needs it.
fn load_agents(
    root: &ProjectRoot,
    generated: Option<&Place>,
    skill_ids: impl FnOnce() -> BTreeSet<String>,
    settings: &Settings,
    host: Host,
    now: DateTime<Utc>,
) -> Option<agents::EffectiveCatalog> {
    let manifest = settings
        .availability_file
        .as_deref()
        .filter(|p| Place::user(*p).exists());
    let project_catalog = root.at(crate::stages::agents::SOURCE_PATH).exists()
        || generated.is_some_and(Place::exists);
    if manifest.is_none() && !project_catalog {
        return None;
    }
    let mut effective = agents::load_catalog_at(root, generated, &skill_ids(), timestamp(now));
    agents::apply_manifest(&mut effective, manifest, Some(host.as_str()));
    Some(effective)
}

/// The agent types `host` can spawn here: the names of its runtime definitions in the project's
/// and in the user's folders (listed, not read), each scope apart.
fn host_agents(
    host: Host,
    root: &ProjectRoot,
    settings: &Settings,
) -> crate::stages::agents::availability::HostDefinitions {
    use crate::edge::agents::agents_dir;
    use crate::hosts::Scope;
    let dir = |scope| agents_dir(host, scope, root, settings).ok();
    let user: Vec<_> = dir(Scope::User).into_iter().collect();
    let (user, user_cut) = agents::host_definition_ids(host, &user);
    let mut ids = crate::stages::agents::availability::HostDefinitions {
        user,
        ..Default::default()
    };
    if user_cut {
        ids.cut.push("user");
    }
    if let Some(project) = dir(Scope::Project) {
        let (found, cut) = agents::host_definition_ids(host, std::slice::from_ref(&project));
        if cut {
            ids.cut.push("project");
        }
        ids.project = match host.spec().agents.as_ref().and_then(|a| a.project_ack) {
            Some(ack) => agents::acknowledged(host, ack, settings, root.given(), &project, found),
            None => found,
        };
        ids.project_synced = agents::synced_embedded(host, &project, &ids.project);
    }
    ids
}

/// The product's readable log lines, one per decision. Never any prompt text.
pub fn debug_decision(stderr: &mut dyn Write, decision: &Decision) {
    match &decision.routing {
        Some(routing) => {
            let _ = writeln!(
                stderr,
                "[mcp-context] mode={} reason={}",
                routing.context_mode.as_str(),
                routing.context_reason()
            );
            let _ = writeln!(
                stderr,
                "[mcp-agents] mode={} reason={}",
                routing.subagent_mode.as_str(),
                routing.subagent_reason()
            );
        }
        None => {
            let _ = writeln!(
                stderr,
                "[mcp-session] event={} host={} blocks={}",
                decision.event,
                decision.host.as_str(),
                decision.hints.len()
            );
        }
    }
}
