//! `sophia-hook telemetry flush` and `telemetry status`: the OpenTelemetry export of the analytics
//! log (`docs/telemetry.md`, `edge::telemetry`). `flush` is what CI runs after its hooks, and what
//! the hook itself starts detached (`--detached`: the user's `config.yaml` only, no output).

use std::io::Write;

use crate::clock::Clock;
use crate::edge::settings::Settings;
use crate::edge::telemetry::{self, NotFlushed, resolved};
use crate::stages::telemetry::Origin;

#[derive(Debug, clap::Subcommand)]
pub enum TelemetryCommand {
    /// Send what the analytics log holds unsent to the OTLP collector (the user's config.yaml
    /// `telemetry:` section, else the OTEL_EXPORTER_OTLP_* variables); exit 1 when the collector
    /// could not take it all before the deadline (the rest is sent by the next flush).
    Flush(FlushArgs),
    /// Where the export goes, the last flush and how far the log is behind.
    Status(StatusArgs),
}

#[derive(Debug, clap::Args)]
pub struct FlushArgs {
    /// The hook's own flush: settings from config.yaml only (a repository can set a hook's
    /// environment), nothing printed.
    #[arg(long, hide = true)]
    pub detached: bool,
}

#[derive(Debug, clap::Args)]
pub struct StatusArgs {
    /// Print the status as JSON.
    #[arg(long)]
    pub json: bool,
}

pub fn run(
    stdout: &mut dyn Write,
    command: TelemetryCommand,
    settings: &Settings,
    clock: &dyn Clock,
) -> super::Outcome {
    match command {
        TelemetryCommand::Flush(args) => flush(stdout, &args, settings, clock),
        TelemetryCommand::Status(args) => status(stdout, &args, settings),
    }
}

fn flush(
    stdout: &mut dyn Write,
    args: &FlushArgs,
    settings: &Settings,
    clock: &dyn Clock,
) -> super::Outcome {
    let origin = if args.detached {
        Origin::Hook
    } else {
        Origin::Command
    };
    let resolved = resolved(settings, origin);
    let Some(config) = resolved.telemetry else {
        if args.detached {
            return Ok(super::Verdict::Pass);
        }
        anyhow::bail!(
            "telemetry is off ({}): set `telemetry:` in {} or OTEL_EXPORTER_OTLP_ENDPOINT",
            resolved.off.unwrap_or("not-configured"),
            config_file(settings)
        );
    };
    if !args.detached {
        for warning in &resolved.warnings {
            writeln!(stdout, "warning: {warning}")?;
        }
    }
    let result = telemetry::flush(settings, &config, clock.now());
    if args.detached {
        return Ok(super::Verdict::Pass);
    }
    match result {
        Ok(done) => {
            let dropped = if done.dropped > 0 {
                format!("; {} old lines dropped over the spool bound", done.dropped)
            } else {
                String::new()
            };
            match &done.error {
                None => writeln!(
                    stdout,
                    "telemetry flush: sent {} log records and {} counter points ({} lines){dropped}; nothing left",
                    done.records, done.points, done.lines
                )?,
                Some(code) => writeln!(
                    stdout,
                    "telemetry flush: stopped ({code}) after {} log records; {} bytes of the log left for the next flush{dropped}",
                    done.records, done.behind
                )?,
            }
            Ok(done.error.is_none().into())
        }
        Err(NotFlushed::Busy) => {
            writeln!(
                stdout,
                "telemetry flush: another flush held the lock past this one's deadline; what is unsent waits for the next flush"
            )?;
            Ok(super::Verdict::Fail)
        }
        Err(NotFlushed::Queued) => {
            writeln!(
                stdout,
                "telemetry flush: another flush is running and one is waiting; the waiting one sends what is unsent"
            )?;
            Ok(super::Verdict::Pass)
        }
        Err(NotFlushed::NoSpool) => anyhow::bail!(
            "analytics are off (SOPHIA_ANALYTICS or config.yaml): there is no log to send"
        ),
        Err(NotFlushed::NoState) => {
            anyhow::bail!("no state folder is known (HOME or XDG_STATE_HOME is not set)")
        }
        Err(NotFlushed::Io(why)) => anyhow::bail!("telemetry flush: {why}"),
    }
}

fn config_file(settings: &Settings) -> String {
    use crate::charset::Shown as _;
    settings.config_dir.as_ref().map_or_else(
        || "config.yaml".to_owned(),
        |d| d.join(crate::config::USER_FILE_NAME).shown().to_string(),
    )
}

/// What `telemetry status` and `status` say.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Report {
    /// `on`, or why it is off.
    pub state: String,
    /// Where logs and counters go (URLs without their headers), as the hook's detached flush
    /// sends them.
    pub logs_endpoint: Option<String>,
    pub metrics_endpoint: Option<String>,
    pub last_success: Option<String>,
    pub last_attempt: Option<String>,
    pub last_error: Option<String>,
    /// When the hook starts its next flush (after its next run from then on).
    pub next_flush: Option<String>,
    pub behind_bytes: Option<u64>,
    pub sent_records: u64,
    pub dropped_lines: u64,
}

pub fn report(settings: &Settings) -> Report {
    let resolved = resolved(settings, Origin::Hook);
    let state = settings
        .state_dir
        .as_deref()
        .map(telemetry::read_state)
        .unwrap_or_default();
    let ts = |t: Option<chrono::DateTime<chrono::Utc>>| {
        t.map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Millis, true))
    };
    let t = resolved.telemetry.as_ref();
    Report {
        state: resolved.off.unwrap_or("on").to_owned(),
        logs_endpoint: t.and_then(|t| t.logs.as_ref()).map(|e| e.url.clone()),
        metrics_endpoint: t.and_then(|t| t.metrics.as_ref()).map(|e| e.url.clone()),
        last_success: ts(state.last_success),
        last_attempt: ts(state.last_attempt),
        last_error: state.last_error,
        next_flush: ts(telemetry::next_due(settings)).filter(|_| t.is_some()),
        behind_bytes: telemetry::behind(settings),
        sent_records: state.sent_records,
        dropped_lines: state.dropped_lines,
    }
}

/// The one-line form (`status` prints it last).
pub fn line(r: &Report) -> String {
    if r.state != "on" && r.last_success.is_none() {
        return format!("telemetry: off ({})", r.state);
    }
    let last = match (&r.last_success, &r.last_error) {
        (Some(ts), None) => format!("last flush {ts}"),
        (Some(ts), Some(e)) => format!("last successful flush {ts}, then failed: {e}"),
        (None, Some(e)) => format!("no successful flush yet (last: {e})"),
        (None, None) => "no flush yet".to_owned(),
    };
    let behind = r
        .behind_bytes
        .map_or_else(String::new, |b| format!("; {b} bytes of the log unsent"));
    let to = r
        .logs_endpoint
        .as_deref()
        .or(r.metrics_endpoint.as_deref())
        .unwrap_or("-");
    let state = if r.state == "on" {
        format!("on, to {to}")
    } else {
        format!("off ({})", r.state)
    };
    format!("telemetry: {state}; {last}{behind}")
}

fn status(stdout: &mut dyn Write, args: &StatusArgs, settings: &Settings) -> super::Outcome {
    let r = report(settings);
    if args.json {
        writeln!(stdout, "{}", serde_json::to_string_pretty(&r)?)?;
    } else {
        writeln!(stdout, "{}", line(&r))?;
        let command = resolved(settings, Origin::Command);
        if command.telemetry.is_some() && r.state != "on" {
            writeln!(
                stdout,
                "the OTEL_EXPORTER_OTLP_* variables set here are used by `telemetry flush` only; the hook's own flush reads config.yaml"
            )?;
        }
        for warning in command.warnings {
            writeln!(stdout, "warning: {warning}")?;
        }
    }
    Ok(super::Verdict::Pass)
}
