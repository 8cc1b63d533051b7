//! `sophia-hook status`: one line per host — where sophia-hook is registered and at which scope,
//! whether the host trusts it (the trust checks of `doctor`, which hold each host's own trust
//! model), and when the analytics log last saw the hook run for it. It only reads: no entry is
//! run, nothing is written.

use crate::charset::Shown as _;
use std::io::Write;
use std::path::PathBuf;

use super::{binary_path, project_root_arg, settings_path};
use crate::edge::settings::Settings;
use crate::hosts::Host;
use crate::ops::doctor::{self, Status};
use chrono::SecondsFormat;

#[derive(Debug, clap::Args)]
pub struct StatusArgs {
    /// The project root (default: the git root above the current directory).
    #[arg(long)]
    pub root: Option<PathBuf>,
    /// Print `{"hosts": [{host, registered: [{scope, file}], trusted, trust, lastRun}],
    /// "telemetry": {state, logsEndpoint, metricsEndpoint, lastSuccess, …}}`.
    #[arg(long)]
    pub json: bool,
}

/// One host's line.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HostStatus {
    pub host: &'static str,
    pub registered: Vec<Registration>,
    /// `true`: every trust check of the host passes; `false`: one does not (see `trust`);
    /// `null`: nothing to trust (the host has no trust step for what is registered).
    pub trusted: Option<bool>,
    /// Why it is not trusted, or how it is.
    pub trust: Option<String>,
    /// The timestamp of the last hook run for this host in the analytics log.
    pub last_run: Option<String>,
    /// Why the host loads nothing of sophia-hook's plugin that the user's records enable (its
    /// folder gone, our hooks file or binary missing there), as `doctor` says it.
    pub plugin_problem: Option<String>,
}

/// One registration: a settings scope and its file, or (`scope` "plugin") sophia-hook's plugin,
/// the user's file that enables it and the folder the host loads it from.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Registration {
    pub scope: &'static str,
    pub file: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub folder: Option<String>,
}

/// Runs `status`.
pub fn status(stdout: &mut dyn Write, args: &StatusArgs, settings: &Settings) -> super::Outcome {
    let root = project_root_arg(args.root.clone())?;
    let binary = binary_path(None)?;
    let input = doctor::DoctorInput {
        root: &root,
        settings,
        binary: &binary,
        hosts: Host::ALL.to_vec(),
        explicit: false,
        live_runs: false,
    };
    let (by_host, _) = doctor::run_by_host(&input);
    let last_runs = last_runs(settings);
    let mut rows = Vec::new();
    for checks in by_host {
        let host = checks.host;
        // The registrations doctor found: the same value, never a second reading.
        let mut registered: Vec<Registration> = checks
            .scopes
            .iter()
            .map(|scope| Registration {
                scope: scope.as_str(),
                file: settings_path(host, *scope, &root, settings)
                    .map(|p| p.path().shown().to_string())
                    .unwrap_or_default(),
                folder: None,
            })
            .collect();
        let plugin = checks.plugin.as_ref();
        if let Some(reg) = plugin.filter(|r| r.loads()) {
            registered.push(Registration {
                scope: PLUGIN_SCOPE,
                file: reg.record.shown().to_string(),
                folder: reg.folder.as_ref().map(|f| f.shown().to_string()),
            });
        }
        let plugin_problem = plugin.and_then(|r| {
            r.problem.as_ref().map(|why| {
                format!(
                    "sophia-hook's plugin is enabled ({}), but {why}",
                    r.record.shown()
                )
            })
        });
        let trust_checks: Vec<&doctor::Check> = checks
            .checks
            .iter()
            .filter(|c| c.area.ends_with(" trust"))
            .collect();
        let problem = trust_checks.iter().find(|c| c.status >= Status::Warn);
        let (trusted, trust) = match (problem, trust_checks.first()) {
            (Some(c), _) => (Some(false), Some(c.detail.clone())),
            (None, Some(c)) => (Some(true), Some(c.detail.clone())),
            (None, None) => (None, None),
        };
        let is_registered = checks.registered();
        rows.push(HostStatus {
            host: host.as_str(),
            registered,
            trusted: trusted.filter(|_| is_registered),
            trust: trust.filter(|_| is_registered),
            last_run: last_runs.get(host.as_str()).cloned(),
            plugin_problem,
        });
    }
    let telemetry = super::telemetry::report(settings);
    if args.json {
        let value = serde_json::json!({ "hosts": rows, "telemetry": telemetry });
        writeln!(stdout, "{}", serde_json::to_string_pretty(&value)?)?;
    } else {
        for row in &rows {
            writeln!(stdout, "{}", line(row))?;
        }
        writeln!(stdout, "{}", super::telemetry::line(&telemetry))?;
    }
    Ok(super::Verdict::Pass)
}

/// The `scope` of the registration by sophia-hook's plugin.
pub const PLUGIN_SCOPE: &str = "plugin";

/// The text line of one host, from the same record `--json` prints.
pub fn line(row: &HostStatus) -> String {
    let last = row
        .last_run
        .as_deref()
        .map_or_else(|| "no run seen".to_owned(), |ts| format!("last run {ts}"));
    if row.registered.is_empty() {
        return match &row.plugin_problem {
            Some(why) => format!("{}: not registered: {why}; {last}", row.host),
            None => format!("{}: not registered; {last}", row.host),
        };
    }
    let scopes: Vec<String> = row
        .registered
        .iter()
        .map(|r| match &r.folder {
            Some(folder) if r.scope == PLUGIN_SCOPE => format!(
                "by sophia-hook's plugin (enabled in {}, loaded from {folder})",
                r.file
            ),
            _ => format!("{} scope ({})", r.scope, r.file),
        })
        .collect();
    let trust = match (row.trusted, &row.trust) {
        (Some(true), _) => "trusted".to_owned(),
        (Some(false), Some(why)) => format!("not trusted: {why}"),
        (Some(false), None) => "not trusted".to_owned(),
        (None, _) => "no trust step".to_owned(),
    };
    let first = if row.registered[0].scope == PLUGIN_SCOPE {
        "registered"
    } else {
        "registered at"
    };
    format!(
        "{}: {first} {}; {trust}; {last}",
        row.host,
        scopes.join(" and ")
    )
}

/// The last run per host id in the analytics log (the `ts` of its latest run, as the hook logs
/// it), from the one streaming summary of the log that `stats` and the report read.
fn last_runs(settings: &Settings) -> std::collections::BTreeMap<String, String> {
    let Some(path) = &settings.analytics_file else {
        return Default::default();
    };
    let mut mix = crate::stats::summary_since(None);
    if crate::ops::report::read_log(path, &mut mix).is_err() {
        return Default::default();
    }
    mix.finish()
        .last_run_per_host
        .into_iter()
        .map(|(host, ts)| (host, ts.to_rfc3339_opts(SecondsFormat::Millis, true)))
        .collect()
}
