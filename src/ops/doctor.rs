//! `sophia-hook doctor`: why does the hook silently do nothing? Checks the binary path, each
//! host's settings (present, parseable, our entries, pointing at this binary, timeouts in the
//! host's unit), Codex's trust state and feature flag, the skill index, the agent catalog, the
//! availability manifest, analytics, and finally runs this binary, with the arguments an installed
//! entry passes, on a sample payload and validates its output the way the host would. It never
//! runs a configured command (a settings file may come from a repository). Every problem comes
//! with a fix.

use crate::charset::Shown as _;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::edge::files::{Place, ProjectRoot};
use crate::edge::plugins::PluginRegistration;
use crate::edge::settings::Settings;
use crate::edge::{agents, hostconfig, skills};
use crate::hosts::Scope;
use crate::hosts::Syntax;
use crate::hosts::settings::Registered;
use crate::hosts::trust::{
    Installed, InstalledHandler, Record, TrustFinding, TrustFix, TrustGate, TrustInput, Verdict,
};
use crate::hosts::{Event, Host};
use crate::install::registered;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Ok,
    Info,
    Warn,
    Fail,
}

impl Status {
    fn label(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Info => "info",
            Status::Warn => "warn",
            Status::Fail => "FAIL",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Check {
    pub status: Status,
    pub area: String,
    pub detail: String,
    pub fix: Option<String>,
}

fn check(
    status: Status,
    area: impl Into<String>,
    detail: impl Into<String>,
    fix: Option<String>,
) -> Check {
    Check {
        status,
        area: area.into(),
        detail: detail.into(),
        fix,
    }
}

pub struct DoctorInput<'a> {
    pub root: &'a crate::edge::files::ProjectRoot,
    pub settings: &'a Settings,
    pub binary: &'a Path,
    pub hosts: Vec<Host>,
    /// The user named the host(s): a missing installation is a failure, not information.
    pub explicit: bool,
    /// Run each registered command on a sample payload. Off for read-only views (`report`): the
    /// command line comes from a settings file, which a repository may have committed.
    pub live_runs: bool,
}

/// Runs every check.
pub fn run(input: &DoctorInput<'_>) -> Vec<Check> {
    let mut out = Vec::new();
    check_common_first(input, &mut out);
    for host in &input.hosts {
        check_host(input, *host, &mut out);
    }
    check_common_last(input, &mut out);
    out
}

/// What the checks found for one host: the scopes whose settings register sophia-hook, our
/// plugin as the host loads it (when the user's records enable it), and the checks themselves.
#[derive(Debug, Clone)]
pub struct HostChecks {
    pub host: Host,
    pub scopes: Vec<Scope>,
    pub plugin: Option<PluginRegistration>,
    pub checks: Vec<Check>,
}

impl HostChecks {
    /// Whether the hook is registered at all: a settings scope, or the plugin the host loads.
    pub fn registered(&self) -> bool {
        !self.scopes.is_empty() || self.plugin.as_ref().is_some_and(PluginRegistration::loads)
    }
}

/// Where a host registers the hook, as [`check_host`] found it.
struct Registration {
    scopes: Vec<Scope>,
    plugin: Option<PluginRegistration>,
}

/// The same checks as [`run`], grouped: per host, and those that concern every host.
pub fn run_by_host(input: &DoctorInput<'_>) -> (Vec<HostChecks>, Vec<Check>) {
    let mut common = Vec::new();
    check_common_first(input, &mut common);
    let hosts = input
        .hosts
        .iter()
        .map(|host| {
            let mut checks = Vec::new();
            let Registration { scopes, plugin } = check_host(input, *host, &mut checks);
            HostChecks {
                host: *host,
                scopes,
                plugin,
                checks,
            }
        })
        .collect();
    check_common_last(input, &mut common);
    (hosts, common)
}

fn check_common_first(input: &DoctorInput<'_>, out: &mut Vec<Check>) {
    check_binary(input.binary, out);
    check_environment(input.settings, out);
    match crate::edge::config::load(input.root) {
        (_, Some(why)) => out.push(check(
            Status::Fail,
            "config",
            why,
            Some(format!("fix {}", crate::config::FILE_NAME)),
        )),
        (c, None) if c != crate::config::ProjectConfig::default() => out.push(check(
            Status::Ok,
            "config",
            format!("{} read", crate::config::FILE_NAME),
            None,
        )),
        _ => {}
    }
    for warning in crate::edge::config::load(input.root).0.warnings() {
        out.push(check(
            Status::Warn,
            "config",
            format!(
                "{warning}: a project's {} cannot choose where sophia-hook writes; the key is ignored",
                crate::config::FILE_NAME
            ),
            Some(
                "set SOPHIA_ANALYTICS_FILE, or analytics.file in ~/.config/sophia-hook/config.yaml"
                    .into(),
            ),
        ));
    }
    for (key, (_, warning)) in [
        ("skills_index", skills::index_location(input.root)),
        ("agent_catalog", agents::catalog_location(input.root)),
    ] {
        if let Some(warning) = warning {
            out.push(check(
                Status::Warn,
                "config",
                format!("{warning}: {key} must stay inside the project, out of .git/"),
                Some(format!(
                    "point {key} at a path inside the project, or remove it"
                )),
            ));
        }
    }
}

/// What the project sets in the environment of `host`'s hooks (`HostSpec::project_env`, as
/// observed in the real host): the variables sophia-hook reads, named, from a settings file's
/// `env`; a dotenv file the host loads, by its presence (never opened: a secret by its name).
/// sophia-hook validates every variable (`edge::settings`), so this is a warning, not a failure:
/// a value a repository chose is not the user's.
fn check_project_env(input: &DoctorInput<'_>, host: Host, out: &mut Vec<Check>) {
    let area = format!("{} environment", host.as_str());
    for source in host.spec().project_env {
        let place = input.root.at(source.path());
        if !source.is_parsed() {
            if place.is_file() {
                out.push(check(
                    Status::Warn,
                    area.clone(),
                    format!(
                        "{} is loaded by {} into every hook's environment: a value it sets for SOPHIA_*, XDG_*, HOME or a host's home is the repository's (sophia-hook never opens the file)",
                        source.path(),
                        host.display()
                    ),
                    Some(format!(
                        "make sure {} sets none of those, or keep them in your shell instead",
                        source.path()
                    )),
                ));
            }
            continue;
        }
        let Ok(text) = place.read_string(crate::edge::files::caps::SETTINGS) else {
            continue;
        };
        let Ok(doc) = crate::bounded::json_value(text.as_bytes(), crate::bounded::FILE) else {
            continue;
        };
        let ours: Vec<String> = source
            .variables(&doc)
            .unwrap_or_default()
            .into_iter()
            .filter(|v| crate::edge::settings::is_ours(v))
            .map(|v| crate::charset::terminal(&v).into_owned())
            .collect();
        if !ours.is_empty() {
            out.push(check(
                Status::Warn,
                area.clone(),
                format!(
                    "{} sets {} for {}'s hooks: the repository's values, which sophia-hook validates (docs/configuration.md, \"The environment is input\")",
                    source.path(),
                    ours.join(", "),
                    host.display()
                ),
                Some(format!(
                    "remove them from the project's `env` in {}, or check each value",
                    source.path()
                )),
            ));
        }
    }
}

/// What the environment set that sophia-hook refused or clamped (`edge::settings`): one warning
/// each, naming the variable. Hosts apply a project's `env` block or `.env` to their hooks, so a
/// value here may be the repository's, not the user's.
fn check_environment(settings: &Settings, out: &mut Vec<Check>) {
    for warning in &settings.warnings {
        let (what, fix) = match warning.strip_prefix("env-clamped:") {
            Some(var) => (
                format!("{warning}: {var} is above its ceiling and was lowered to it"),
                format!("unset {var}, or set it at most to the ceiling in docs/configuration.md"),
            ),
            None => {
                let var = warning
                    .strip_prefix("env-ignored:")
                    .and_then(|rest| rest.split(':').next())
                    .unwrap_or("the variable");
                (
                    format!(
                        "{warning}: {var} is not used (a path must be absolute, without `..`; a file we write is no dotfile; a number is a whole number)"
                    ),
                    format!(
                        "set {var} to an absolute path or number, or unset it; if you did not set it, look for it in the project's host settings (`env`) or `.env`"
                    ),
                )
            }
        };
        out.push(check(Status::Warn, "environment", what, Some(fix)));
    }
}

fn check_common_last(input: &DoctorInput<'_>, out: &mut Vec<Check>) {
    check_skills(input.root, &input.hosts, input.settings, out);
    let catalog = check_agent_catalog(input.root, out);
    check_manifest(input.settings, &catalog, out);
    check_analytics(input.settings, out);
    check_telemetry(input, out);
}

/// The OpenTelemetry export (`docs/telemetry.md`), when configured anywhere: the settings'
/// refusals, the hook's view against the command's, and — for `doctor` itself (`live_runs`),
/// never for the read-only views — a test record posted to each endpoint; then how far the spool
/// is behind.
fn check_telemetry(input: &DoctorInput<'_>, out: &mut Vec<Check>) {
    use crate::edge::telemetry as edge;
    use crate::stages::telemetry::{Batch, Origin, encode};
    let settings = input.settings;
    let hook = edge::resolved(settings, Origin::Hook);
    let command = edge::resolved(settings, Origin::Command);
    let area = "telemetry";
    let Some(telemetry) = &command.telemetry else {
        if hook.off == Some("disabled-by-config") || hook.off == Some("OTEL_SDK_DISABLED") {
            out.push(check(
                Status::Info,
                area,
                format!("off ({})", hook.off.unwrap_or("")),
                None,
            ));
        }
        return;
    };
    for warning in &command.warnings {
        out.push(check(
            Status::Warn,
            area,
            format!("{warning}: that setting is not used"),
            Some("fix the value in config.yaml or the environment".into()),
        ));
    }
    if hook.telemetry.is_none() {
        out.push(check(
            Status::Info,
            area,
            "the OTEL_EXPORTER_OTLP_* variables here are used by `sophia-hook telemetry flush` only: the hook's own flush reads config.yaml, since a repository can set a hook's environment",
            Some("add `telemetry: {endpoint: …}` to ~/.config/sophia-hook/config.yaml for the hook to send on its own".into()),
        ));
    } else if hook.telemetry != command.telemetry {
        out.push(check(
            Status::Info,
            area,
            "the OTEL_* variables here change what `telemetry flush` does; the hook's own flush follows config.yaml alone",
            None,
        ));
    }
    if settings.analytics_file.is_none() {
        out.push(check(
            Status::Warn,
            area,
            "analytics are off: the log is the spool, so nothing is sent",
            Some(
                "turn analytics on (unset SOPHIA_ANALYTICS=off, analytics.enabled in config.yaml)"
                    .into(),
            ),
        ));
    }
    for (signal, export) in [("logs", &telemetry.logs), ("metrics", &telemetry.metrics)] {
        let Some(export) = export else { continue };
        let local = ["http://localhost", "http://127.0.0.1", "http://[::1]"]
            .iter()
            .any(|p| export.url.starts_with(p));
        if export.url.starts_with("http://") && !local && !export.headers.is_empty() {
            out.push(check(
                Status::Warn,
                area,
                format!(
                    "{signal}: headers ({}) go in clear text to {}",
                    names(&export.headers),
                    export.url
                ),
                Some("use an https:// endpoint".into()),
            ));
        }
        if !input.live_runs {
            continue;
        }
        let now = chrono::Utc::now()
            .timestamp_nanos_opt()
            .and_then(|n| u64::try_from(n).ok())
            .unwrap_or(0);
        let probe = Batch::probe(now);
        let body = match signal {
            "logs" => encode(&probe.logs_request(&telemetry.resource), export.protocol),
            _ => encode(&probe.metrics_request(&telemetry.resource), export.protocol),
        };
        let deadline =
            std::time::Instant::now() + export.timeout.min(std::time::Duration::from_secs(5));
        match edge::post(export, body, deadline) {
            Ok(()) => out.push(check(
                Status::Ok,
                area,
                format!(
                    "{signal}: {} accepted a test request ({})",
                    export.url,
                    export.protocol.as_str()
                ),
                None,
            )),
            Err(code) => out.push(check(
                Status::Fail,
                area,
                format!(
                    "{signal}: {} did not accept a test request: {code}",
                    export.url
                ),
                Some(post_fix(&code, export)),
            )),
        }
    }
    let state = settings
        .state_dir
        .as_deref()
        .map(edge::read_state)
        .unwrap_or_default();
    let behind = edge::behind(settings).unwrap_or(0);
    let last = state.last_success.map_or_else(
        || "no successful flush yet".to_owned(),
        |t| {
            format!(
                "last successful flush {}",
                t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
            )
        },
    );
    let status = if behind > 0 && state.last_error.is_some() {
        Status::Warn
    } else {
        Status::Info
    };
    out.push(check(
        status,
        area,
        format!(
            "spool: {behind} bytes of the log unsent; {last}{}",
            state
                .last_error
                .as_deref()
                .map_or_else(String::new, |e| format!("; the last flush stopped: {e}"))
        ),
        (status == Status::Warn).then(|| {
            "run `sophia-hook telemetry flush` once the collector is reachable".to_owned()
        }),
    ));
}

/// The header names, never their values.
fn names(headers: &[(String, String)]) -> String {
    headers
        .iter()
        .map(|(n, _)| n.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// What to do about a failed test request, by its code.
fn post_fix(code: &str, export: &crate::stages::telemetry::Export) -> String {
    match code {
        "connect" | "host-not-found" => "start the collector, or fix the endpoint's host and port".into(),
        "timeout" | "deadline" => "the collector did not answer in time: check the endpoint, or a firewall".into(),
        "tls" => "the TLS handshake failed: check that the endpoint speaks https and its certificate is trusted".into(),
        "status-401" | "status-403" => format!(
            "the collector refused the credentials: check the headers ({})",
            if export.headers.is_empty() { "none set".to_owned() } else { names(&export.headers) }
        ),
        "certificate-unreadable" | "certificate-empty" => format!(
            "the CA bundle {} could not be read as PEM certificates",
            export
                .certificate
                .as_deref()
                .map(|p| p.shown().to_string())
                .unwrap_or_default()
        ),
        "status-404" => "no OTLP receiver at that path: the base endpoint gets /v1/logs and /v1/metrics appended".into(),
        "status-415" => "the collector does not take this protocol: set protocol to http/protobuf or http/json".into(),
        _ => "check the collector's own log".into(),
    }
}

fn check_binary(binary: &Path, out: &mut Vec<Check>) {
    let text = binary.to_string_lossy();
    if !binary.is_absolute() {
        out.push(check(
            Status::Fail,
            "binary",
            format!("{text} is not an absolute path"),
            Some("install with `cargo install --path .` and use the absolute path".into()),
        ));
    } else if text.contains(' ') {
        out.push(check(
            Status::Fail,
            "binary",
            format!("{text} contains spaces (Windows shells break on them)"),
            Some("install the binary under a path without spaces, then run `sophia-hook install` again".into()),
        ));
    } else {
        out.push(check(Status::Ok, "binary", format!("{text}"), None));
    }
}

/// The program of a registered handler, and its arguments as one string.
fn program_of(host: Host, handler: &Value) -> (String, String) {
    let command = handler
        .get(host.spec().settings.handler.command_key())
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned();
    if host.spec().settings.handler.exec() && handler.get("args").is_some() {
        let args: Vec<&str> = handler["args"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        return (command, args.join(" "));
    }
    // Split as the host's shell splits it (without expanding anything).
    let words = crate::install::split_command(&command, host).unwrap_or_default();
    match words.split_first() {
        Some((program, args)) => (program.clone(), args.join(" ")),
        None => (String::new(), String::new()),
    }
}

/// Checks one host; returns where sophia-hook is registered.
fn check_host(input: &DoctorInput<'_>, host: Host, out: &mut Vec<Check>) -> Registration {
    let mut plugin = None;
    let scopes = check_host_scopes(input, host, &mut plugin, out);
    Registration { scopes, plugin }
}

/// [`check_host`]: the settings scopes that register sophia-hook, and in `plugin` our plugin as
/// the host loads it.
fn check_host_scopes(
    input: &DoctorInput<'_>,
    host: Host,
    plugin_found: &mut Option<PluginRegistration>,
    out: &mut Vec<Check>,
) -> Vec<Scope> {
    let name = host.as_str();
    check_project_env(input, host, out);
    // Issue 46: whether the model followed a hint is read from the host's transcript.
    let transcript = host.spec().transcript;
    let display = host.spec().display;
    if let crate::hosts::TranscriptFile::None(reason) = transcript.file {
        out.push(check(
            Status::Info,
            format!("{name} outcomes"),
            format!(
                "{display} gives its hooks no transcript sophia-hook reads: whether the model followed a hint is recorded as unknown ({reason})"
            ),
            None,
        ));
    } else if !transcript.sees_spawns {
        out.push(check(
            Status::Info,
            format!("{name} outcomes"),
            format!(
                "how {display} records a subagent was never seen: whether a delegation asked was spawned is recorded as unknown (host-no-spawn-record); skill loads are read"
            ),
            None,
        ));
    }
    let Some(home) = input.settings.home.as_deref() else {
        out.push(check(
            Status::Fail,
            name,
            "HOME is not set: user settings cannot be found",
            Some("set HOME".into()),
        ));
        return Vec::new();
    };
    let mut installed: Vec<(Scope, PathBuf, Vec<Registered>)> = Vec::new();
    for scope in [Scope::Project, Scope::User] {
        let place =
            hostconfig::settings_place(host, scope, input.root, home, &input.settings.host_homes);
        let path = place.path();
        let area = format!("{name} {}", scope.as_str());
        let install = format!(
            "sophia-hook install --host {name} --scope {}",
            scope.as_str()
        );
        let doc = match hostconfig::read_for(&place, host) {
            Ok(Value::Null) => continue,
            Ok(doc) => doc,
            Err(e) => {
                out.push(check(
                    Status::Fail,
                    area,
                    format!("{e}"),
                    Some(format!(
                        "fix the JSON (the host ignores the whole file), or restore a backup from {}",
                        input.settings.state_dir.as_deref().map_or_else(
                            || "the sophia-hook state folder".to_owned(),
                            |d| hostconfig::backup_dir(d, host, scope, &path, input.root)
                                .shown()
                                .to_string()
                        )
                    )),
                ));
                continue;
            }
        };
        if let Some(allowed) = host.spec().settings.allowed_root_keys
            && let Some(extra) = doc
                .as_object()
                .and_then(|o| o.keys().find(|k| !allowed.contains(&k.as_str())))
        {
            out.push(check(
                Status::Fail,
                area.clone(),
                format!("{}: root key `{extra}` makes Codex reject the whole file (only `description` and `hooks` are allowed)", path.shown()),
                Some(format!("remove `{extra}` from {}", path.shown())),
            ));
        }
        for what in impostors(&doc, host) {
            out.push(check(
                Status::Fail,
                area.clone(),
                format!(
                    "{}: {what} — not sophia-hook's own entry, not run",
                    path.shown()
                ),
                Some(format!("remove it from {}, then {install}", path.shown())),
            ));
        }
        let regs = registered(&doc, host);
        if regs.is_empty() {
            out.push(check(
                Status::Info,
                area,
                format!("{}: no sophia-hook entries", path.shown()),
                None,
            ));
            continue;
        }
        for event in [Event::SessionStart, Event::UserPromptSubmit] {
            let wire = host.event_name(event);
            let Some(reg) = regs.iter().find(|r| r.event == wire) else {
                out.push(check(
                    Status::Fail,
                    area.clone(),
                    format!("{}: no sophia-hook entry for {wire}", path.shown()),
                    Some(install.clone()),
                ));
                continue;
            };
            let (program, args) = program_of(host, &reg.handler);
            let mut problems = Vec::new();
            if !crate::install::is_current(&reg.handler, host) {
                problems.push(
                    "the path is quoted the way earlier versions wrote it, which the host's shell expands ($(…), backticks); reinstall to quote it safely"
                        .to_owned(),
                );
            }
            // As the host starts it: a bare name from PATH, a path as it is.
            let resolved = crate::edge::program::resolve(
                &program,
                input.settings.search_path.as_deref(),
                input.root.path(),
            );
            let bare = crate::edge::program::is_bare(&program);
            match &resolved {
                Ok(found) if bare && !crate::edge::program::same_file(found, input.binary) => {
                    problems.push(format!(
                        "`{program}` resolves on PATH to {}, not to this binary ({})",
                        found.shown(),
                        input.binary.shown()
                    ));
                }
                _ if !bare && Path::new(&program) != input.binary => problems.push(format!(
                    "points at {program}, not at this binary ({})",
                    input.binary.shown()
                )),
                _ => {}
            }
            if let Err(why) = resolved {
                problems.push(format!(
                    "{why}, so {} cannot start the hook",
                    host.display()
                ));
            }
            if !args.contains(&format!("--host {name}"))
                || !args.contains(&format!("--event {wire}"))
            {
                problems.push(format!(
                    "the arguments `{args}` do not say `--host {name} --event {wire}`"
                ));
            }
            if event == Event::SessionStart
                && let Some(problem) =
                    crate::install::session_matcher_problem(host, reg.matcher.as_deref())
            {
                problems.push(problem);
            }
            let ms = host.spec().settings.timeout_ms;
            let timeout_key = host.spec().settings.handler.timeout_key();
            match reg.handler.get(timeout_key).and_then(Value::as_u64) {
                None => problems.push("no timeout: the host waits for its default (60–600 s) when the hook hangs".into()),
                Some(t) if ms && t < 100 => {
                    problems.push(format!("timeout {t} looks like seconds, but {} counts milliseconds", host.display()))
                }
                Some(t) if !ms && t >= 1000 => problems.push(format!(
                    "timeout {t} looks like milliseconds, but {name} counts seconds ({t} s = {} min)",
                    t / 60
                )),
                Some(t) if (ms && t > 60_000) || (!ms && t > 60) => {
                    problems.push(format!("timeout {t} is large for a hook on every prompt"))
                }
                Some(_) => {}
            }
            if problems.is_empty() {
                out.push(check(
                    Status::Ok,
                    area.clone(),
                    format!(
                        "{wire}: {} {args} (timeout {})",
                        program, reg.handler[timeout_key]
                    ),
                    None,
                ));
            } else {
                out.push(check(
                    Status::Fail,
                    area.clone(),
                    format!("{wire}: {}", problems.join("; ")),
                    Some(install.clone()),
                ));
            }
        }
        installed.push((scope, path, regs));
    }
    // What registers the hook is the user's own record: a project's (a committed
    // `enabledPlugins`) is the repository's word, never a reason to call the hook registered or
    // to advise removing the user's install (issue 48, class 3). It is said as information.
    use crate::edge::plugins::{Reach, enabled};
    let plugin = crate::edge::plugins::registration(host, input.root, input.settings);
    if plugin.is_none()
        && let Some(record) = enabled(host, Reach::UserAndProject, input.root, input.settings)
    {
        out.push(check(
            Status::Info,
            format!("{name} plugin"),
            format!(
                "the project enables sophia-hook's plugin ({}); it runs only where you installed the plugin, and is not counted as your registration",
                record.shown()
            ),
            None,
        ));
    }
    let remove_plugin = host.spec().plugin.as_ref().map_or("", |p| p.remove);
    if let Some(reg) = &plugin {
        plugin_checks(host, reg, input.settings, input.root, out);
    }
    match (&plugin, installed.as_slice()) {
        // The plugin alone: its checks said whether the host loads it.
        (Some(_), []) => {
            *plugin_found = plugin;
            return Vec::new();
        }
        (Some(reg), scopes) if reg.loads() => out.push(check(
            Status::Fail,
            format!("{name} plugin"),
            format!(
                "registered twice: by sophia-hook's plugin ({}) and in {}: {} runs both, so every event runs twice",
                reg.record.shown(),
                scopes
                    .iter()
                    .map(|(_, path, _)| path.shown().to_string())
                    .collect::<Vec<_>>()
                    .join(" and "),
                host.display()
            ),
            Some(format!(
                "keep one: sophia-hook uninstall --host {name} --scope {} (keeps the plugin), or {remove_plugin}",
                scopes[0].0.as_str()
            )),
        )),
        _ => {}
    }
    *plugin_found = plugin;
    if installed.is_empty() {
        let status = if input.explicit {
            Status::Fail
        } else {
            Status::Info
        };
        out.push(check(
            status,
            name,
            "not installed",
            Some(format!("sophia-hook install --host {name}")),
        ));
        return Vec::new();
    }
    let at = |scope: Scope| {
        installed
            .iter()
            .filter(|(s, _, _)| *s == scope)
            .flat_map(|(_, _, regs)| crate::install::command_lines(regs))
            .collect::<Vec<_>>()
    };
    if installed.len() > 1
        && host
            .spec()
            .settings
            .both_scopes
            .doubled(&at(Scope::Project), &at(Scope::User))
    {
        out.push(check(
            Status::Fail,
            format!("{name} scopes"),
            format!(
                "installed at both user and project scope: {} runs both, so every block is injected twice",
                host.display()
            ),
            Some(format!(
                "keep one: sophia-hook uninstall --host {name} --scope user (or --scope project)"
            )),
        ));
    }
    if let Some(gate) = host.spec().trust {
        check_trust(host, gate, input, home, &installed, out);
    }
    if let Some(line) = model_mapping(host, &input.settings.models) {
        out.push(check(Status::Info, name, line, None));
    }
    let prefix =
        crate::edge::config::hotword_prefix(input.root, input.settings.hotword_prefix.as_ref());
    out.push(check(
        Status::Info,
        name,
        crate::stages::hotword::where_to_type(host, &prefix),
        None,
    ));
    if let Some(experimental) = &host.spec().experimental {
        out.push(check(
            Status::Warn,
            name,
            experimental.doctor,
            Some(experimental.doctor_fix.into()),
        ));
    }
    let (scope, _, regs) = &installed[0];
    for event in [Event::SessionStart, Event::UserPromptSubmit]
        .into_iter()
        .filter(|_| input.live_runs)
    {
        if let Some(reg) = regs.iter().find(|r| r.event == host.event_name(event)) {
            out.push(live_run(
                host,
                *scope,
                event,
                reg,
                input.root.path(),
                input.binary,
                input.settings.search_path.as_deref(),
            ));
        }
    }
    installed.iter().map(|(scope, _, _)| *scope).collect()
}

/// Handlers that look like ours (our Gemini `name`, or our binary's name with other arguments or
/// shell syntax) but are not exactly what `install` writes: a repository can ship them to get a
/// command run under our name.
fn impostors(doc: &Value, host: Host) -> Vec<String> {
    let mut out = Vec::new();
    let groups = doc
        .get("hooks")
        .and_then(Value::as_object)
        .into_iter()
        .flat_map(|hooks| hooks.iter())
        .chain(
            host.spec()
                .settings
                .layout
                .own_entry(doc)
                .into_iter()
                .flat_map(|o| o.iter()),
        );
    for (event, list) in groups {
        for item in list.as_array().into_iter().flatten() {
            let handlers: Vec<&Value> = match item.get("hooks").and_then(Value::as_array) {
                Some(inner) => inner.iter().collect(),
                None => vec![item],
            };
            for h in handlers {
                if crate::install::is_ours(h, host) {
                    continue;
                }
                let name = h.get("name").and_then(Value::as_str).unwrap_or("");
                let command = h
                    .get(host.spec().settings.handler.command_key())
                    .or_else(|| h.get("command"))
                    .and_then(Value::as_str)
                    .unwrap_or("");
                let program = command
                    .trim_start_matches('"')
                    .split([' ', '"'])
                    .next()
                    .unwrap_or("");
                let base = program.rsplit(['/', '\\']).next().unwrap_or("");
                if name.starts_with("sophia-hook")
                    || base == "sophia-hook"
                    || base == "sophia-hook.exe"
                {
                    let shown = |t: &str| -> String {
                        t.chars()
                            .take(80)
                            .map(|c| if c.is_control() { '?' } else { c })
                            .collect()
                    };
                    let name = if name.is_empty() { "(unnamed)" } else { name };
                    out.push(format!(
                        "{event} entry `{}` runs `{}`",
                        shown(name),
                        shown(command)
                    ));
                }
            }
        }
    }
    out
}

/// Which model the generated roles of `host` name per tier: the user's `models` map in
/// `config.yaml`, else none (the child inherits the session's model). `None` for hosts without
/// generated roles.
pub fn model_mapping(host: Host, models: &crate::config::ModelMap) -> Option<String> {
    host.spec().agents.as_ref()?;
    let tiers = models.get(host.as_str());
    let shown: Vec<String> = [crate::config::Tier::Economy, crate::config::Tier::Default]
        .into_iter()
        .map(|tier| {
            let model = tiers
                .and_then(|t| t.get(&tier))
                .map_or("the session's model (not mapped)".to_owned(), |m| {
                    format!("`{m}`")
                });
            format!("{} → {model}", tier.as_str())
        })
        .collect();
    Some(format!(
        "generated roles' models: {} (map tiers under `models.{}` in ~/.config/sophia-hook/config.yaml, then `sophia-hook agents sync`)",
        shown.join(", "),
        host.as_str()
    ))
}

/// The other hooks of `root` that `host` runs once the user trusts the folder, and the MCP
/// servers it starts: every handler of the project's hook settings file that is not exactly ours
/// ([`crate::install::other_handlers`]: any layout, nested groups, extra keys such as `env`), of
/// the host's other project files that hold hooks (`SettingsFile::other_hook_files`), for a host that
/// reads a folder of hook files (Copilot CLI's `.github/hooks/`) of every other file of that
/// folder, and of the project's MCP settings files (`HostSpec::mcp`). Each as `` `<file>`
/// <event>: <command> `` through [`crate::charset::terminal`], cut at [`SHOWN_COMMAND`] characters
/// with what was cut said; a file that cannot be read or parsed names none. A folder of hook
/// files with more than [`OTHER_HOOK_FILES`] entries is looked at up to that and said so: the
/// second value (the advice then says not to trust the folder unread).
pub fn other_project_hooks(host: Host, root: &ProjectRoot) -> (Vec<String>, bool) {
    use crate::edge::files::caps;
    use crate::hosts::{PluginPlace, Syntax};
    let spec = host.spec();
    let settings = root.at(spec.settings.project);
    let mut files: Vec<(Place, bool)> = vec![(settings.clone(), false)];
    let mut unread = false;
    if spec.settings.layout.reads_folder()
        && let Some(dir) = settings.parent()
        && let Ok(mut entries) = dir.list_dir(OTHER_HOOK_FILES)
    {
        let own = settings.file_name().map(std::ffi::OsStr::to_os_string);
        let mut more: Vec<_> = entries
            .by_ref()
            .map(|e| e.name)
            .filter(|n| {
                Some(n) != own.as_ref() && Path::new(n).extension().is_some_and(|e| e == "json")
            })
            .collect();
        unread = entries.over_cap();
        more.sort();
        files.extend(more.into_iter().map(|n| (dir.join(n), false)));
    }
    files.extend(
        spec.settings
            .other_hook_files
            .iter()
            .map(|f| (root.at(f), false)),
    );
    for mcp in spec.mcp {
        if let PluginPlace::Project(rel) = mcp.place {
            files.push((root.at(rel), mcp.servers.syntax() == Syntax::Toml));
        }
    }
    let mut seen = std::collections::BTreeSet::new();
    let mut out = Vec::new();
    for (file, toml) in files {
        if !seen.insert(file.path()) {
            continue;
        }
        let Ok(text) = file.read_string(caps::SETTINGS) else {
            continue;
        };
        let doc = if toml {
            crate::bounded::toml::<toml::Table>(&text, crate::bounded::FILE)
                .ok()
                .and_then(|t| serde_json::to_value(t).ok())
        } else {
            crate::bounded::jsonc_value(&text, crate::bounded::FILE, &Default::default()).ok()
        };
        let Some(doc) = doc else {
            continue;
        };
        let name = file
            .project_rel()
            .map(|p| p.to_string_lossy().replace('\\', "/"))
            .unwrap_or_default();
        for (event, command) in crate::install::other_handlers(&doc, host) {
            let line =
                crate::charset::terminal(&format!("`{name}` {event}: {command}")).into_owned();
            let total = line.chars().count();
            out.push(if total > SHOWN_COMMAND {
                let kept: String = line.chars().take(SHOWN_COMMAND).collect();
                format!(
                    "{kept}… (cut: {} more characters; read the file)",
                    total - SHOWN_COMMAND
                )
            } else {
                line
            });
        }
    }
    (out, unread)
}

/// Characters of one other hook's line shown in trust advice; a longer one says what was cut.
pub const SHOWN_COMMAND: usize = 400;

/// Hook files of a hook folder looked at for [`other_project_hooks`], at most.
pub const OTHER_HOOK_FILES: usize = 64;

/// Trust advice for `root` on `host`: `base` (how to trust the folder), then what trusting it
/// also lets run — every other hook of the project ([`other_project_hooks`]), with its command,
/// and plainly that the folder is better not trusted when those are not known; or that the
/// project's hook settings hold no other hook. Every piece of trust advice `install` and
/// `doctor` give is made here.
pub fn trust_advice(host: Host, root: &ProjectRoot, base: &str) -> String {
    match other_hooks_sentence(host, root) {
        Some(sentence) => format!("{base}. {sentence}"),
        None => format!("{base} (the project's hook settings run no other hook)"),
    }
}

/// What trusting `root` also lets run, when the project has other hooks ([`trust_advice`]).
pub fn other_hooks_sentence(host: Host, root: &ProjectRoot) -> Option<String> {
    const SHOWN: usize = 8;
    let (others, unread) = other_project_hooks(host, root);
    if unread {
        return Some(format!(
            "The project's hook folder holds more than {OTHER_HOOK_FILES} files, not all of them read here: trusting the folder lets every one of them run. Do not trust the folder before reading them: install at user scope instead (`sophia-hook install --host {} --scope user`){}",
            host.as_str(),
            if others.is_empty() {
                String::new()
            } else {
                format!(
                    "; among those read: {}",
                    others
                        .iter()
                        .take(SHOWN)
                        .map(|o| o.as_str())
                        .collect::<Vec<_>>()
                        .join("; ")
                )
            }
        ));
    }
    if others.is_empty() {
        return None;
    }
    let mut listed: Vec<String> = others.iter().take(SHOWN).cloned().collect();
    if others.len() > SHOWN {
        listed.push(format!(
            "and {} more (read the files)",
            others.len() - SHOWN
        ));
    }
    Some(format!(
        "Trusting the folder also lets the project run {} other command{} (hooks and MCP servers): {}. If you do not know {}, do not trust the folder: install at user scope instead (`sophia-hook install --host {} --scope user`)",
        others.len(),
        if others.len() == 1 { "" } else { "s" },
        listed.join("; "),
        if others.len() == 1 { "it" } else { "them" },
        host.as_str()
    ))
}

/// The host's trust step ([`crate::hosts::trust::TrustGate`]): the file it records its trust
/// in, read through the door and parsed within bounds here, judged by the host; a fix that says
/// how to trust the folder gets what trusting it also lets run ([`trust_advice`]).
fn check_trust(
    host: Host,
    gate: &dyn TrustGate,
    input: &DoctorInput<'_>,
    home: &Path,
    installed: &[(Scope, PathBuf, Vec<Registered>)],
    out: &mut Vec<Check>,
) {
    let file = gate.record();
    let path = file
        .path
        .resolve(Some(home), &input.settings.host_homes)
        .unwrap_or_default();
    let record = read_record(&path, file.syntax);
    let given = input.root.given();
    let mut roots = vec![given.to_path_buf()];
    if let Ok(canonical) = dunce::canonicalize(given)
        && canonical != given
    {
        roots.push(canonical);
    }
    let installed: Vec<Installed<'_>> = installed
        .iter()
        .map(|(scope, file, regs)| Installed {
            scope: *scope,
            file_shown: file.shown().to_string(),
            handlers: regs
                .iter()
                .map(|r| InstalledHandler {
                    event: &r.event,
                    group_index: r.group_index,
                    handler_index: r.handler_index,
                    matcher: r.matcher.as_deref(),
                    handler: &r.handler,
                })
                .collect(),
        })
        .collect();
    let findings = gate.judge(&TrustInput {
        record: &record,
        record_shown: &path.shown().to_string(),
        roots: &roots,
        root_shown: &given.shown().to_string(),
        installed: &installed,
        sha256: crate::fingerprint::sha256,
    });
    push_trust_findings(host, input.root, findings, out);
}

/// `doctor`'s checks of our plugin as the host will load it ([`PluginRegistration`]), which
/// `plugin install` reads back too: the folder its records name
/// holds our hooks file and binary (else a failure with the fix), a folder read in place outside
/// sophia-hook's data folder is a warning (moving or deleting it disables the hook), and the
/// host's trust of the hooks it loads (Codex's `/hooks`).
pub fn plugin_checks(
    host: Host,
    reg: &PluginRegistration,
    settings: &Settings,
    root: &ProjectRoot,
    out: &mut Vec<Check>,
) {
    let Some(layout) = host.spec().plugin.as_ref() else {
        return;
    };
    let (name, display) = (host.as_str(), host.display());
    let area = format!("{name} plugin");
    let data = crate::edge::plugins::data_root(settings);
    let reinstall = match &data {
        Some(dir) => format!(
            "sophia-hook plugin install --host {name} (writes the plugin to {} and points {display} at it)",
            dir.shown()
        ),
        None => format!("sophia-hook plugin install --host {name}"),
    };
    let (Some(folder), None) = (&reg.folder, &reg.problem) else {
        out.push(check(
            Status::Fail,
            area,
            format!(
                "sophia-hook's plugin is enabled ({}), but {}",
                reg.record.shown(),
                reg.problem.as_deref().unwrap_or("no folder is recorded")
            ),
            Some(format!("{reinstall}; or remove it: {}", layout.remove)),
        ));
        return;
    };
    out.push(check(
        Status::Ok,
        area.clone(),
        format!(
            "the hook is registered by sophia-hook's plugin ({}), loaded from {}",
            reg.record.shown(),
            folder.shown()
        ),
        None,
    ));
    if reg.in_place && !data.as_ref().is_some_and(|d| folder.starts_with(d)) {
        out.push(check(
            Status::Warn,
            area,
            format!(
                "{display} reads the plugin in place from {}, outside sophia-hook's data folder: moving or deleting that folder disables the hook",
                folder.shown()
            ),
            Some(reinstall),
        ));
    }
    let Some(gate) = host.spec().trust else {
        return;
    };
    let file = gate.record();
    let Some(path) = file
        .path
        .resolve(settings.home.as_deref(), &settings.host_homes)
    else {
        return;
    };
    let record = read_record(&path, file.syntax);
    let findings = gate.judge_plugin(&crate::hosts::trust::PluginTrustInput {
        record: &record,
        record_shown: &path.shown().to_string(),
        plugin_id: &crate::edge::plugins::plugin_id(),
        hooks: layout.hooks,
        handlers: reg
            .handlers
            .iter()
            .map(|r| InstalledHandler {
                event: &r.event,
                group_index: r.group_index,
                handler_index: r.handler_index,
                matcher: r.matcher.as_deref(),
                handler: &r.handler,
            })
            .collect(),
        sha256: crate::fingerprint::sha256,
    });
    push_trust_findings(host, root, findings, out);
}

/// A host's trust findings (settings hooks and plugin hooks alike) as doctor's checks.
fn push_trust_findings(
    host: Host,
    root: &ProjectRoot,
    findings: Vec<TrustFinding>,
    out: &mut Vec<Check>,
) {
    for f in findings {
        let status = match f.verdict {
            Verdict::Ok => Status::Ok,
            Verdict::Warn => Status::Warn,
            Verdict::Fail => Status::Fail,
        };
        let fix = match f.fix {
            TrustFix::None => None,
            TrustFix::Say(fix) => Some(fix),
            TrustFix::TrustFolder(base) => Some(trust_advice(host, root, base)),
        };
        out.push(check(status, f.area, f.detail, fix));
    }
}

/// A trust record file of the user's, read through the door and parsed within the bounds of a
/// settings file (`edge::documents`, a TOML table as its JSON value).
fn read_record(path: &Path, syntax: Syntax) -> Record {
    match Place::user(path).read(crate::edge::files::caps::SETTINGS) {
        Ok(bytes) => match crate::edge::documents::parse_bytes(&bytes, syntax) {
            Ok(value) => Record::Parsed(value),
            Err(e) => Record::Unparsable(e),
        },
        Err(crate::edge::files::ReadError::Missing) => Record::Missing,
        Err(e) => Record::Unreadable(e.to_string()),
    }
}

/// A payload as the host would send it.
fn sample_payload(host: Host, event: Event, root: &Path) -> Value {
    let wire = host.event_name(event);
    let cwd = root.to_string_lossy();
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let run = format!("{}-{nanos}", std::process::id());
    (host.spec().payload.sample)(event, wire, &cwd, &run)
}

/// The executable to run for a live check of `reg`: this very binary, and only when the
/// registered entry is exactly the command line `install` writes and its program is this binary
/// (`binary`, which defaults to this executable). Anything else is reported, never run: a
/// settings file may come from a repository, and running its command would bypass the host's own
/// trust gates.
fn live_program(
    host: Host,
    reg: &Registered,
    binary: &Path,
    (search_path, root): (Option<&str>, &Path),
) -> Result<PathBuf, String> {
    if !crate::install::is_current(&reg.handler, host) {
        return Err("the entry is not exactly the command `sophia-hook install` writes".into());
    }
    let (program, _) = program_of(host, &reg.handler);
    // On Windows the host runs its Windows line: that one must be ours exactly too.
    if cfg!(windows)
        && let Some(key) = windows_line_key(host)
    {
        let line = reg.handler.get(key).and_then(Value::as_str);
        let current = crate::install::events(host)
            .iter()
            .any(|e| line == Some(&crate::install::powershell_command_line(&program, host, *e)));
        if !current {
            return Err(format!(
                "its `{key}` is not exactly the line `sophia-hook install` writes"
            ));
        }
    }
    let this = std::env::current_exe()
        .and_then(dunce::canonicalize)
        .map_err(|e| format!("cannot find this executable ({e})"))?;
    let same = |p: &Path| dunce::canonicalize(p).is_ok_and(|p| p == this);
    // A bare name runs what PATH resolves it to, which must be this binary.
    let program = if crate::edge::program::is_bare(&program) {
        match crate::edge::program::resolve(&program, search_path, root) {
            Ok(found) if same(&found) => binary.to_string_lossy().into_owned(),
            Ok(found) => found.to_string_lossy().into_owned(),
            Err(why) => return Err(why),
        }
    } else {
        program
    };
    if Path::new(&program) != binary || !same(Path::new(&program)) {
        return Err(format!(
            "it points at {program}, not at this binary ({})",
            this.shown()
        ));
    }
    Ok(this)
}

/// The handler key whose line the host runs on Windows instead of its POSIX one: Codex's
/// `commandWindows`, Copilot CLI's `powershell` (both PowerShell lines).
fn windows_line_key(host: Host) -> Option<&'static str> {
    let settings = &host.spec().settings;
    if settings.command_windows {
        Some("commandWindows")
    } else {
        settings.handler.windows_line_key()
    }
}

/// The shell command the host would start for our line for `event`, built for `binary` (never
/// the configured text). On Unix `/bin/sh -c` with the POSIX line. On Windows PowerShell
/// (`powershell.exe -NoProfile -Command`): Codex runs `commandWindows` and Copilot CLI its
/// `powershell` line with it; every other host its `command` as `install` writes it there
/// ([`crate::install::shell_line`]: Gemini CLI's PowerShell line; Antigravity's POSIX line, its
/// Windows shell not observed, so a line PowerShell rejects shows up as a failed run).
fn shell_command(host: Host, event: Event, binary: &str, extra: &[&str]) -> Command {
    let with_extra = |line: String| {
        std::iter::once(line.as_str())
            .chain(extra.iter().copied())
            .collect::<Vec<_>>()
            .join(" ")
    };
    if cfg!(windows) {
        let line = if windows_line_key(host).is_some() {
            crate::install::powershell_command_line(binary, host, event)
        } else {
            crate::install::shell_line(binary, host, event, true)
        };
        let mut cmd = Command::new("powershell.exe");
        cmd.args(["-NoProfile", "-Command"]).arg(with_extra(line));
        cmd
    } else {
        let mut cmd = Command::new("/bin/sh");
        cmd.arg("-c").arg(with_extra(crate::install::command_line(
            binary, host, event,
        )));
        cmd
    }
}

/// The time budget of `doctor`'s own hook runs (`--time-budget-ms`, the user's flag, within the
/// 10 s a run may take): a check of what the command prints, which a loaded machine must not turn
/// into the degraded answer of a late run (a test that compared two doctor runs saw 1,438
/// characters of context in one and the routing line alone in the other, under load).
const PROBE_BUDGET: &str = "--time-budget-ms=5000";

/// Runs this binary with the arguments the host would pass, on a sample payload, and validates
/// what it prints. It goes the way the host goes: Claude Code's exec form runs the program with
/// its `args`; the other hosts' command string runs through the host's shell
/// ([`shell_command`]: `sh -c`, PowerShell on Windows), so a quoting the shell would expand
/// shows up here too. What runs is never the configured text: it is the command
/// line [`crate::install::command_line`] builds for the verified path of this binary (equal to
/// the configured entry, or the entry is not run at all).
fn live_run(
    host: Host,
    scope: Scope,
    event: Event,
    reg: &Registered,
    root: &Path,
    binary: &Path,
    search_path: Option<&str>,
) -> Check {
    let area = format!("{} {} run", host.as_str(), scope.as_str());
    let wire = host.event_name(event);
    let program = match live_program(host, reg, binary, (search_path, root)) {
        Ok(program) => program,
        Err(why) => {
            return check(
                Status::Fail,
                area,
                format!("{wire}: not run: {why}"),
                Some(format!("sophia-hook install --host {}", host.as_str())),
            );
        }
    };
    let mut cmd = if let Some(args) = host.spec().settings.handler.exec_args(host.as_str(), wire) {
        let mut cmd = Command::new(program);
        cmd.args(args).arg(PROBE_BUDGET);
        cmd
    } else {
        shell_command(host, event, &binary.to_string_lossy(), &[PROBE_BUDGET])
    };
    // A check, not a prompt: no analytics line, and the turn state and compiled skills copy of
    // its sample conversation go to a private folder that is removed with this run, so `doctor`
    // changes nothing of the user's state.
    let cache = tempfile::Builder::new()
        .prefix("sophia-hook-doctor-")
        .tempdir()
        .ok();
    if let Some(dir) = &cache {
        cmd.env(crate::edge::settings::ENV_CACHE_DIR, dir.path());
    }
    cmd.current_dir(root)
        .env("SOPHIA_ANALYTICS", "off")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = match cmd.spawn() {
        Ok(child) => child,
        Err(e) => {
            return check(
                Status::Fail,
                area,
                format!("{wire}: cannot start the command: {e}"),
                Some(format!("sophia-hook install --host {}", host.as_str())),
            );
        }
    };
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(sample_payload(host, event, root).to_string().as_bytes());
    }
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(10)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return check(
                    Status::Fail,
                    area,
                    format!("{wire}: no answer within 10 s"),
                    Some("run it by hand with a payload on stdin and SOPHIA_DEBUG=1".into()),
                );
            }
        }
    }
    let output = match child.wait_with_output() {
        Ok(o) => o,
        Err(e) => return check(Status::Fail, area, format!("{wire}: {e}"), None),
    };
    if !output.status.success() {
        return check(
            Status::Fail,
            area,
            format!("{wire}: exit status {}", output.status),
            Some("a hook must exit 0; reinstall the binary".into()),
        );
    }
    let printed = String::from_utf8_lossy(&output.stdout);
    if host.session_context_on_prompt() && wire == "SessionStart" {
        // Gemini CLI: the session context goes with the first prompt; SessionStart is a no-op.
        let noop = printed.trim() == "{}";
        return check(
            if noop { Status::Ok } else { Status::Fail },
            area,
            if noop {
                format!(
                    "{wire}: `{{}}` (the bootstrap goes with the first prompt of a conversation that lacks it)"
                )
            } else {
                format!("{wire}: expected `{{}}`, got {} bytes", printed.len())
            },
            (!noop).then(|| "this binary printed something else: reinstall it".into()),
        );
    }
    match validate(host, wire, &printed) {
        Ok(chars) => check(
            Status::Ok,
            area,
            format!(
                "{wire}: valid {} output ({chars} characters of context)",
                host.as_str()
            ),
            None,
        ),
        Err(problem) => check(
            Status::Fail,
            area,
            format!("{wire}: {problem}"),
            Some("this binary printed something the host rejects: reinstall it".into()),
        ),
    }
}

/// Validates hook stdout as the host would; returns the context length.
pub fn validate(host: Host, wire: &str, stdout: &str) -> Result<usize, String> {
    let trimmed = stdout.trim();
    if trimmed.is_empty() {
        return Err("printed nothing for a prompt that should get context".into());
    }
    let value: Value = crate::bounded::json_value(trimmed.as_bytes(), crate::bounded::FILE)
        .map_err(|e| format!("not one JSON object ({e})"))?;
    let obj = value.as_object().ok_or("not a JSON object")?;
    host.spec().output.shape.validate(host.display(), wire, obj)
}

/// The skill inventory each host would see from the project root: its folders with what they
/// hold, and whether the compiled index is fresh. With no inventory the embedded default catalog
/// applies, and the check says so.
fn check_skills(root: &ProjectRoot, hosts: &[Host], settings: &Settings, out: &mut Vec<Check>) {
    for &host in hosts {
        let area = format!("skills ({})", host.as_str());
        let loaded = skills::load_for_host_seen(host, root, settings);
        let inv = &loaded.inventory;
        let folders: Vec<String> = inv
            .folders
            .iter()
            .zip(&inv.counts)
            .filter(|(_, n)| **n > 0)
            .map(|(f, n)| format!("{} {n} ({})", f.label, f.scope.as_str()))
            .collect();
        let searched = || {
            let labels: Vec<&str> = inv.folders.iter().map(|f| f.label.as_str()).collect();
            labels.join(", ")
        };
        match loaded.source {
            skills::CatalogSource::Embedded => {
                let (config, _) = crate::edge::config::load(root);
                let grounding = crate::edge::mcp::grounding(
                    host,
                    root.path(),
                    root,
                    settings,
                    &config,
                    &|| false,
                );
                let silent = crate::stages::skills::grounding::known_skills()
                    .all(|s| grounding.grounds(s).is_none());
                out.push(check(
                    Status::Info,
                    area,
                    format!(
                        "no skills in {}: the embedded default catalog is used; embedded skills {}",
                        searched(),
                        grounding.summary()
                    ),
                    (silent
                        && grounding.mode
                            == crate::stages::skills::grounding::EmbeddedSkills::Auto)
                        .then(|| {
                            "configure the Sophia MCP servers for this host, or \
                             SOPHIA_EMBEDDED_SKILLS=on (docs/skills.md)"
                                .into()
                        }),
                ))
            }
            skills::CatalogSource::Index | skills::CatalogSource::Cache => {
                // A skill shadowed by another of its id (a repository's copy of the user's own
                // `deploy-prod`): the one routed, and the one the host loads first, is the
                // first; the user should know which.
                let shadowed: Vec<&String> = loaded
                    .warnings
                    .iter()
                    .filter(|w| w.starts_with("duplicate-skill-id:"))
                    .collect();
                let fresh = format!(
                    "{} skills: {}; index fresh ({})",
                    loaded.catalog.skills.len(),
                    folders.join(", "),
                    loaded.catalog.source_fingerprint
                );
                out.push(if shadowed.is_empty() {
                    check(Status::Ok, area, fresh, None)
                } else {
                    let list: Vec<&str> = shadowed.iter().map(|w| w.as_str()).collect();
                    check(
                        Status::Warn,
                        area,
                        format!("{fresh}; {}", list.join(", ")),
                        Some(
                            "the first file of an id is the skill routed and named (a project's \
                             folder before the user's): rename or remove the other if it is not \
                             the one you mean"
                                .into(),
                        ),
                    )
                });
            }
            skills::CatalogSource::Scan => out.push(check(
                Status::Warn,
                area,
                format!(
                    "{} skills: {}; {} — every prompt parses {} SKILL.md files",
                    loaded.catalog.skills.len(),
                    folders.join(", "),
                    loaded.warnings.join(", "),
                    inv.len()
                ),
                Some("sophia-hook skills index".into()),
            )),
        }
    }
}

fn check_agent_catalog(
    root: &ProjectRoot,
    out: &mut Vec<Check>,
) -> crate::stages::agents::catalog::AgentCatalog {
    let skill_ids = skills::load(root)
        .catalog
        .skills
        .into_iter()
        .map(|s| s.id)
        .collect();
    let effective = agents::load_catalog(root, &skill_ids, String::new());
    match effective.source {
        agents::AgentCatalogSource::Embedded if effective.warnings.is_empty() => out.push(check(
            Status::Info,
            "agent catalog",
            format!("embedded default ({})", effective.catalog.fingerprint),
            None,
        )),
        agents::AgentCatalogSource::Generated => out.push(check(
            Status::Ok,
            "agent catalog",
            format!(
                "{} valid and fresh ({})",
                agents::CATALOG_PATH,
                effective.catalog.fingerprint
            ),
            None,
        )),
        _ => {
            let fail = effective.warnings.iter().any(|w| {
                w == "agent-catalog-fingerprint-mismatch"
                    || w == "agent-catalog-source-invalid"
                    || w == "agent-catalog-invalid"
            });
            out.push(check(
                if fail { Status::Fail } else { Status::Warn },
                "agent catalog",
                effective.warnings.join(", "),
                Some(
                    "sophia-hook catalog build (fix the source first if it does not build)".into(),
                ),
            ));
        }
    }
    effective.catalog
}

fn check_manifest(
    settings: &Settings,
    catalog: &crate::stages::agents::catalog::AgentCatalog,
    out: &mut Vec<Check>,
) {
    let Some(path) = &settings.availability_file else {
        return;
    };
    let text = match Place::user(path).read(crate::edge::files::caps::CATALOG) {
        Ok(t) => t,
        Err(crate::edge::files::ReadError::Missing) => {
            out.push(check(
                Status::Info,
                "availability",
                format!("{}: none (every agent counts as unknown)", path.shown()),
                Some("sophia-hook availability --write".into()),
            ));
            return;
        }
        Err(e) => {
            out.push(check(
                Status::Fail,
                "availability",
                format!("{}: unreadable ({e})", path.shown()),
                Some("sophia-hook availability --write".into()),
            ));
            return;
        }
    };
    match crate::bounded::json::<crate::stages::agents::availability::Manifest>(
        &text,
        crate::bounded::FILE,
    ) {
        Err(e) => out.push(check(
            Status::Fail,
            "availability",
            format!(
                "{}: not a manifest ({e}); the hook ignores it",
                path.shown()
            ),
            Some("sophia-hook availability --write".into()),
        )),
        Ok(m) if m.catalog_fingerprint.is_none() => out.push(check(
            Status::Warn,
            "availability",
            format!(
                "{}: no catalog fingerprint (written by hand?); its states apply by id",
                path.shown()
            ),
            Some("sophia-hook availability --write".into()),
        )),
        // The manifest holds the embedded roles' states only (docs/security.md I3): a project with
        // its own catalog is expected not to match, and is not given them.
        Ok(_) if catalog.fingerprint != crate::stages::agents::default_catalog().fingerprint => {
            out.push(check(
                Status::Info,
                "availability",
                format!(
                    "{}: records the embedded roles only, so it is not applied to this project's own catalog",
                    path.shown()
                ),
                None,
            ));
        }
        Ok(m) if m.catalog_fingerprint.as_deref() != Some(catalog.fingerprint.as_str()) => out
            .push(check(
                Status::Warn,
                "availability",
                format!(
                    "{}: computed for another catalog ({}); not applied",
                    path.shown(),
                    m.catalog_fingerprint.as_deref().unwrap_or("no fingerprint")
                ),
                Some("sophia-hook availability --write".into()),
            )),
        Ok(m) => out.push(check(
            Status::Ok,
            "availability",
            format!(
                "{}: {} agents, fingerprint matches",
                path.shown(),
                m.agents.len()
            ),
            None,
        )),
    }
}

fn check_analytics(settings: &Settings, out: &mut Vec<Check>) {
    let Some(path) = &settings.analytics_file else {
        out.push(check(Status::Info, "analytics", "off", None));
        return;
    };
    let writable = Place::user(path).appendable(settings.analytics_default);
    match writable {
        Ok(()) => out.push(check(
            Status::Ok,
            "analytics",
            format!("{} writable", path.shown()),
            None,
        )),
        Err(e) => out.push(check(
            Status::Warn,
            "analytics",
            format!(
                "{}: not writable ({e}); runs are not recorded",
                path.shown()
            ),
            Some("fix the permissions, set SOPHIA_ANALYTICS_FILE, or SOPHIA_ANALYTICS=off".into()),
        )),
    }
}

/// The report as a readable table; problems carry their fix.
pub fn render(checks: &[Check]) -> String {
    let width = checks
        .iter()
        .map(|c| c.area.len())
        .max()
        .unwrap_or(5)
        .max(5);
    let mut out = format!("{:<6} {:<width$}  detail\n", "status", "check");
    for c in checks {
        out.push_str(&format!(
            "{:<6} {:<width$}  {}\n",
            c.status.label(),
            c.area,
            c.detail
        ));
        if let Some(fix) = c.fix.as_ref().filter(|_| c.status >= Status::Warn) {
            out.push_str(&format!("{:<6} {:<width$}  fix: {fix}\n", "", ""));
        }
    }
    let fails = checks.iter().filter(|c| c.status == Status::Fail).count();
    let warns = checks.iter().filter(|c| c.status == Status::Warn).count();
    out.push_str(&format!("\n{fails} problem(s), {warns} warning(s)\n"));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The live run starts the shell the host runs its line with: `sh -c` and the POSIX line on
    /// Unix; on Windows PowerShell, with Codex's `commandWindows` and Copilot CLI's `powershell`
    /// line, and Gemini CLI's `command`, which is its PowerShell line there.
    #[test]
    fn the_live_run_starts_the_hosts_shell() {
        let cases: [(Host, &str, &str, &str); 3] = if cfg!(windows) {
            let bin = r"C:\bin\sophia-hook.exe";
            [
                (
                    Host::Codex,
                    bin,
                    "powershell.exe",
                    r"-NoProfile|-Command|C:\bin\sophia-hook.exe --host codex --event UserPromptSubmit",
                ),
                (
                    Host::Copilot,
                    bin,
                    "powershell.exe",
                    r"-NoProfile|-Command|C:\bin\sophia-hook.exe --host copilot --event userPromptSubmitted",
                ),
                (
                    Host::Gemini,
                    bin,
                    "powershell.exe",
                    r"-NoProfile|-Command|C:\bin\sophia-hook.exe --host gemini --event BeforeAgent",
                ),
            ]
        } else {
            let bin = "/opt/my bin/sophia-hook";
            [
                (
                    Host::Codex,
                    bin,
                    "/bin/sh",
                    "-c|'/opt/my bin/sophia-hook' --host codex --event UserPromptSubmit",
                ),
                (
                    Host::Copilot,
                    bin,
                    "/bin/sh",
                    "-c|'/opt/my bin/sophia-hook' --host copilot --event userPromptSubmitted",
                ),
                (
                    Host::Gemini,
                    bin,
                    "/bin/sh",
                    "-c|'/opt/my bin/sophia-hook' --host gemini --event BeforeAgent",
                ),
            ]
        };
        for (host, bin, program, args) in cases {
            let cmd = shell_command(host, Event::UserPromptSubmit, bin, &[]);
            assert_eq!(cmd.get_program(), program, "{host:?}");
            let got: Vec<String> = cmd
                .get_args()
                .map(|a| a.to_string_lossy().into_owned())
                .collect();
            assert_eq!(got.join("|"), args, "{host:?}");
        }
        assert_eq!(windows_line_key(Host::Codex), Some("commandWindows"));
        assert_eq!(windows_line_key(Host::Copilot), Some("powershell"));
        assert_eq!(windows_line_key(Host::Gemini), None);
        assert_eq!(windows_line_key(Host::Claude), None);
    }

    #[test]
    fn validate_as_the_host_would() {
        let good = r#"{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"abc"}}"#;
        assert_eq!(validate(Host::Codex, "UserPromptSubmit", good), Ok(3));
        assert!(validate(Host::Codex, "SessionStart", good).is_err());
        assert!(validate(Host::Codex, "UserPromptSubmit", r#"{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"a","sessionTitle":"x"}}"#).is_err());
        assert!(validate(Host::Codex, "UserPromptSubmit", "[routing] plain").is_err());
        assert!(validate(Host::Codex, "UserPromptSubmit", "").is_err());
    }

    #[test]
    fn validate_antigravity_as_documented() {
        let per_turn = r#"{"injectSteps":[{"ephemeralMessage":"abc"}]}"#;
        assert_eq!(
            validate(Host::Antigravity, "PreInvocation", per_turn),
            Ok(3)
        );
        let session = r#"{"injectSteps":[{"systemMessage":{"systemMessage":"abcd"}}]}"#;
        assert_eq!(validate(Host::Antigravity, "SessionStart", session), Ok(4));
        for bad in [
            r#"{"hookSpecificOutput":{"hookEventName":"PreInvocation","additionalContext":"a"}}"#,
            r#"{"injectSteps":[]}"#,
            r#"{"injectSteps":[{"systemMessage":"flat string"}]}"#,
            r#"{"injectSteps":[{"ephemeralMessage":"a","userMessage":"b"}]}"#,
            r#"{"injectSteps":[{"ephemeralMessage":"a"}],"extra":1}"#,
        ] {
            assert!(
                validate(Host::Antigravity, "PreInvocation", bad).is_err(),
                "{bad}"
            );
        }
        assert!(validate(Host::Antigravity, "SessionStart", per_turn).is_err());
    }

    #[test]
    fn doctor_shows_the_tier_to_model_mapping() {
        let none = crate::config::ModelMap::new();
        let line = model_mapping(Host::Codex, &none).unwrap();
        assert!(
            line.contains("economy → the session's model (not mapped)"),
            "{line}"
        );
        assert!(
            line.contains("default → the session's model (not mapped)"),
            "{line}"
        );
        let mapped =
            crate::config::UserConfig::parse("models:\n  codex:\n    economy: gpt-5.4-mini\n")
                .unwrap()
                .models;
        let line = model_mapping(Host::Codex, &mapped).unwrap();
        assert!(line.contains("economy → `gpt-5.4-mini`"), "{line}");
        assert!(line.contains("default → the session's model"), "{line}");
        assert!(
            !model_mapping(Host::Claude, &mapped)
                .unwrap()
                .contains("gpt")
        );
        assert_eq!(model_mapping(Host::Antigravity, &mapped), None);
    }

    #[test]
    fn program_and_arguments() {
        let h = serde_json::json!({"command": "\"/a b/sophia-hook\" --host codex --event SessionStart"});
        assert_eq!(
            program_of(Host::Codex, &h),
            (
                "/a b/sophia-hook".into(),
                "--host codex --event SessionStart".into()
            )
        );
        let c = serde_json::json!({"command": "/x/sophia-hook", "args": ["--host", "claude", "--event", "SessionStart"]});
        assert_eq!(
            program_of(Host::Claude, &c).1,
            "--host claude --event SessionStart"
        );
    }
}
