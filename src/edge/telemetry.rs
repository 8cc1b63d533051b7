//! OpenTelemetry export, the edge (issue 49; `docs/telemetry.md`): the analytics log is the
//! spool; a flush reads it from a cursor, sends OTLP/HTTP requests built by `stages::telemetry`
//! and moves the cursor past what the collector accepted. The one module that opens a network
//! connection (`tests/it/layers.rs`).
//!
//! - **Out of the prompt's path.** The hook only looks at a stamp's time and, at most once per
//!   interval, starts `sophia-hook telemetry flush --detached` as a process of its own (its own
//!   process group, no standard streams, the state folder as its working folder), the way
//!   `git gc --auto` detaches; it never waits for it.
//! - **At least once, never twice.** The cursor (the log's identity and an offset) moves only
//!   after a batch was accepted, so a failed or interrupted flush sends that batch again next
//!   time; a flush holds `telemetry.json.lock` and reads to the end of the log as it grows, and a
//!   second one waits for the lock (within its deadline) and then sends what is left.
//! - **Bounded.** A deadline for the whole flush; at most `spool_max` bytes of unsent backlog,
//!   older lines dropped and counted in a record of their own; a line held at most
//!   [`MAX_LINE`] bytes; a request at most [`BATCH_LINES`] lines.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::edge::files::{Place, ReadError, Take, caps};
use crate::edge::settings::Settings;
use crate::stages::telemetry::{self as wire, BATCH_LINES, Batch, Export, SpoolLine, Telemetry};

/// The longest line a flush reads (the stats reader's cap).
pub const MAX_LINE: usize = 64 * 1024;

/// The telemetry settings as `origin` sees them: the user's `telemetry:` section and the
/// `OTEL_*` variables that count for it (`edge::settings::otel_env`).
pub fn resolved(settings: &Settings, origin: wire::Origin) -> wire::Resolved {
    wire::resolve(
        &settings.telemetry.config(),
        &crate::edge::settings::otel_env(origin),
        origin,
    )
}

/// The cursor and the record of past flushes, `<state>/sophia-hook/telemetry.json`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct State {
    /// The log the offset is in: its identity (device and inode), so a log replaced by another
    /// file is read from its start.
    pub log: Option<(u64, u64)>,
    /// Bytes of the log already delivered (or dropped), a line start.
    pub offset: u64,
    pub last_attempt: Option<DateTime<Utc>>,
    pub last_success: Option<DateTime<Utc>>,
    /// Why the last flush stopped short (a code), `None` when it delivered everything.
    pub last_error: Option<String>,
    /// Log records delivered, in all.
    pub sent_records: u64,
    /// Lines dropped over the spool's bound, in all.
    pub dropped_lines: u64,
}

/// `<state>/sophia-hook/telemetry.json`.
pub fn state_path(state_dir: &Path) -> PathBuf {
    state_dir.join("sophia-hook/telemetry.json")
}

/// The stamp whose time says when the hook last started a detached flush.
fn stamp_path(state_dir: &Path) -> PathBuf {
    state_dir.join("sophia-hook/telemetry.due")
}

pub fn read_state(state_dir: &Path) -> State {
    Place::user(state_path(state_dir)).read_json_or_default()
}

/// How a flush ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Flushed {
    /// Log records and counter points the collector accepted.
    pub records: u64,
    pub points: u64,
    /// Lines read past (sent, or skipped as not ours).
    pub lines: u64,
    /// Lines dropped over the spool's bound.
    pub dropped: u64,
    /// Bytes of the log still unsent.
    pub behind: u64,
    /// Why it stopped short: a code (`connect`, `timeout`, `status-503`, `deadline`, `tls`…).
    pub error: Option<String>,
}

/// Why nothing was flushed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NotFlushed {
    /// Another flush held the lock past this one's deadline.
    Busy,
    /// Another flush is waiting for the lock already; it sends what this one would.
    Queued,
    /// Analytics are off or no home is known: nothing is spooled.
    NoSpool,
    /// No state folder is known.
    NoState,
    /// The state or the log could not be read or written.
    Io(String),
}

/// How far the spool is behind the cursor, in bytes (`doctor`, `status`).
pub fn behind(settings: &Settings) -> Option<u64> {
    let log = settings.analytics_file.as_ref()?;
    let state = read_state(settings.state_dir.as_ref()?);
    let meta = Place::user(log).metadata().ok()?;
    let same = state.log.is_none_or(|id| Some(id) == log_id(&meta));
    let offset = if same && state.offset <= meta.len {
        state.offset
    } else {
        0
    };
    Some(meta.len - offset)
}

fn log_id(meta: &crate::edge::files::FileMeta) -> Option<(u64, u64)> {
    meta.id.map(|id| (id.device, id.index))
}

fn unix_nanos(at: DateTime<Utc>) -> u64 {
    at.timestamp_nanos_opt()
        .and_then(|n| u64::try_from(n).ok())
        .unwrap_or(0)
}

/// Sends what is unsent, within `telemetry.deadline`. Holds the flush lock for its whole run.
pub fn flush(
    settings: &Settings,
    telemetry: &Telemetry,
    now: DateTime<Utc>,
) -> Result<Flushed, NotFlushed> {
    let log = settings.analytics_file.clone().ok_or(NotFlushed::NoSpool)?;
    let state_dir = settings.state_dir.clone().ok_or(NotFlushed::NoState)?;
    let place = Place::user(state_path(&state_dir));
    // At most one flush runs and one waits: a flush started while another runs waits for it and
    // then sends what it left (nothing is stranded); a third finds a flush waiting already,
    // which will send its lines too, and ends at once. The waiter's place is given up as soon as
    // it holds the flush lock. One deadline for the whole flush, the wait included; the lock
    // keeps any line from being sent twice.
    let Some(waiting) = Place::user(state_dir.join("sophia-hook/telemetry.wait"))
        .try_lock()
        .map_err(|e| NotFlushed::Io(e.kind().to_string()))?
    else {
        return Err(NotFlushed::Queued);
    };
    let deadline = Instant::now() + telemetry.deadline;
    let mut waiting = Some(waiting);
    let outcome = place
        .locked_within(telemetry.deadline, || {
            drop(waiting.take());
            flush_locked(&place, &log, telemetry, now, deadline)
        })
        .map_err(|e| NotFlushed::Io(e.kind().to_string()))?;
    outcome.unwrap_or(Err(NotFlushed::Busy))
}

fn flush_locked(
    place: &Place,
    log: &Path,
    telemetry: &Telemetry,
    now: DateTime<Utc>,
    deadline: Instant,
) -> Result<Flushed, NotFlushed> {
    let mut state: State = place.read_json_or_default();
    state.last_attempt = Some(now);
    let mut out = Flushed {
        records: 0,
        points: 0,
        lines: 0,
        dropped: 0,
        behind: 0,
        error: None,
    };
    let spool = Place::user(log);
    let meta = match spool.metadata() {
        Ok(meta) => meta,
        Err(ReadError::Missing) => {
            // Nothing was ever logged: delivered, trivially.
            state.last_success = Some(now);
            state.last_error = None;
            save(place, &state)?;
            return Ok(out);
        }
        Err(e) => return Err(NotFlushed::Io(e.to_string())),
    };
    let id = log_id(&meta);
    if state.log.is_some() && state.log != id || state.offset > meta.len {
        // Another file (the log replaced, or cut): read it from its start.
        state.offset = 0;
    }
    state.log = id;
    // Where the next batch starts; the cursor (`state.offset`) follows it once a batch is
    // accepted, so lines dropped or read are not past until their batch is delivered.
    let mut from = state.offset;
    let mut dropped_bytes = 0;
    if meta.len - state.offset > telemetry.spool_max {
        let dropped = drop_over_bound(
            &spool,
            state.offset,
            meta.len - telemetry.spool_max,
            deadline,
        )
        .map_err(|e| NotFlushed::Io(e.to_string()))?;
        dropped_bytes = dropped.start - state.offset;
        from = dropped.start;
        out.dropped = dropped.lines;
    }
    let observed = unix_nanos(now);
    loop {
        if Instant::now() >= deadline {
            out.error = Some("deadline".into());
            break;
        }
        let mut batch = Batch::default();
        // The first batch carries the record of what was dropped.
        let first = out.records == 0 && out.lines == 0;
        if out.dropped > 0 && first {
            batch.dropped(out.dropped, dropped_bytes, observed);
        }
        let read = spool
            .lines_from(from, MAX_LINE, |line| {
                batch.push(SpoolLine::read(line.bytes), observed);
                if batch.lines >= BATCH_LINES {
                    Take::StopAfter
                } else {
                    Take::Continue
                }
            })
            .map_err(|e| NotFlushed::Io(e.to_string()))?;
        let lines = batch.lines as u64 + read.too_long;
        if batch.is_empty() {
            // Nothing to send: the end, or a batch of lines that were not ours, which are past
            // (and the lines after them next).
            state.offset = read.end;
            from = read.end;
            out.lines += lines;
            if batch.lines < BATCH_LINES {
                break;
            }
            continue;
        }
        match send(&batch, telemetry, deadline) {
            Ok(points) => {
                out.records += batch.records() as u64;
                out.points += points;
                out.lines += lines;
                state.sent_records += batch.records() as u64;
                if first {
                    state.dropped_lines += out.dropped;
                }
                state.offset = read.end;
                from = read.end;
                save(place, &state)?;
                // On to the end as it is now: lines appended meanwhile are sent before the lock
                // is released, and an empty read ends the loop.
            }
            Err(code) => {
                out.error = Some(code);
                break;
            }
        }
    }
    let len = spool.metadata().map_or(meta.len, |m| m.len);
    out.behind = len.saturating_sub(state.offset);
    match &out.error {
        None => {
            state.last_success = Some(now);
            state.last_error = None;
        }
        Some(code) => state.last_error = Some(code.clone()),
    }
    save(place, &state)?;
    Ok(out)
}

/// What the spool's bound drops: the lines before `start`, the first line that starts at or after
/// the cut.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dropped {
    pub start: u64,
    /// Lines counted in the dropped bytes (all of them, unless the deadline came first: the bytes
    /// are dropped all the same, so a flush always makes progress).
    pub lines: u64,
}

/// The chunk the dropped part is counted in.
const DROP_CHUNK: usize = 1024 * 1024;

/// The lines of `spool` in `[from, cut)` and the first line start at or after `cut`, read a chunk
/// at a time (memory: one chunk), whatever the sizes; counting stops at the deadline.
pub fn drop_over_bound(
    spool: &Place,
    from: u64,
    cut: u64,
    deadline: Instant,
) -> Result<Dropped, ReadError> {
    let file = spool.open_bounded(caps::LOG)?;
    let len = file.len();
    let cut = cut.min(len);
    let mut lines = 0u64;
    let mut at = from;
    while at < cut && Instant::now() < deadline {
        let chunk = file.read_at(at, DROP_CHUNK.min((cut - at) as usize))?;
        if chunk.is_empty() {
            break;
        }
        lines += memchr::memchr_iter(b'\n', &chunk).count() as u64;
        at += chunk.len() as u64;
    }
    // The line the cut falls in is dropped too: the first start at or after the cut is just
    // past the first newline at or after `cut - 1`.
    let mut at = cut.saturating_sub(1).max(from);
    let start = loop {
        let chunk = file.read_at(at, DROP_CHUNK)?;
        if chunk.is_empty() {
            break len;
        }
        if let Some(i) = memchr::memchr(b'\n', &chunk) {
            break at + i as u64 + 1;
        }
        at += chunk.len() as u64;
    };
    // The straddling line, when the cut is not a line start.
    if start > cut {
        lines += 1;
    }
    Ok(Dropped { start, lines })
}

fn save(place: &Place, state: &State) -> Result<(), NotFlushed> {
    place
        .write_json_atomic(state)
        .map_err(|e| NotFlushed::Io(e.kind().to_string()))
}

/// Sends the batch's logs, then its counters; the number of counter points sent, or the first
/// failure's code.
fn send(batch: &Batch, telemetry: &Telemetry, deadline: Instant) -> Result<u64, String> {
    if let Some(export) = &telemetry.logs {
        let body = wire::encode(&batch.logs_request(&telemetry.resource), export.protocol);
        post(export, body, deadline)?;
    }
    let mut points = 0;
    if let Some(export) = &telemetry.metrics {
        let request = batch.metrics_request(&telemetry.resource);
        points = request
            .resource_metrics
            .iter()
            .flat_map(|r| &r.scope_metrics)
            .flat_map(|s| &s.metrics)
            .map(|m| match &m.data {
                Some(opentelemetry_proto::tonic::metrics::v1::metric::Data::Sum(s)) => {
                    s.data_points.len() as u64
                }
                _ => 0,
            })
            .sum();
        if points > 0 {
            post(export, wire::encode(&request, export.protocol), deadline)?;
        }
    }
    Ok(points)
}

/// One POST within the deadline: `Ok` on a 2xx answer, else a code.
pub fn post(export: &Export, body: Vec<u8>, deadline: Instant) -> Result<(), String> {
    let left = deadline.saturating_duration_since(Instant::now());
    if left.is_zero() {
        return Err("deadline".into());
    }
    let mut tls = ureq::tls::TlsConfig::builder();
    if let Some(path) = &export.certificate {
        let pem = Place::user(path)
            .read(caps::CERTIFICATE)
            .map_err(|_| "certificate-unreadable".to_owned())?;
        let certs: Vec<ureq::tls::Certificate<'static>> = ureq::tls::parse_pem(&pem)
            .filter_map(|item| match item {
                Ok(ureq::tls::PemItem::Certificate(c)) => Some(c),
                _ => None,
            })
            .collect();
        if certs.is_empty() {
            return Err("certificate-empty".into());
        }
        tls = tls.root_certs(ureq::tls::RootCerts::new_with_certs(&certs));
    }
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .tls_config(tls.build())
        .timeout_global(Some(export.timeout.min(left)))
        .http_status_as_error(false)
        // No proxy from the environment (`HTTPS_PROXY`…), which a repository can set for a
        // hook: the only destination is the configured one.
        .proxy(None)
        .max_redirects(0)
        .user_agent(concat!("sophia-hook/", env!("CARGO_PKG_VERSION")))
        .build()
        .into();
    let mut request = agent
        .post(&export.url)
        .header("Content-Type", export.protocol.content_type());
    for (name, value) in &export.headers {
        request = request.header(name, value);
    }
    match request.send(&body[..]) {
        Ok(response) if response.status().is_success() => Ok(()),
        Ok(response) => Err(format!("status-{}", response.status().as_u16())),
        Err(err) => Err(error_code(&err, export.url.starts_with("https://"))),
    }
}

/// A short code for a transport error (never its text, which may quote a header). Over https,
/// an I/O error after the connection was made is the handshake's (a plain-http port answers a
/// TLS hello with bytes that are not TLS).
fn error_code(err: &ureq::Error, https: bool) -> String {
    match err {
        ureq::Error::Timeout(_) => "timeout",
        ureq::Error::HostNotFound => "host-not-found",
        ureq::Error::ConnectionFailed => "connect",
        ureq::Error::Io(e) if e.kind() == std::io::ErrorKind::ConnectionRefused => "connect",
        ureq::Error::Io(e) if e.kind() == std::io::ErrorKind::TimedOut => "timeout",
        ureq::Error::Io(_) if https => "tls",
        ureq::Error::Io(_) => "io",
        ureq::Error::Tls(_) | ureq::Error::Rustls(_) => "tls",
        ureq::Error::BadUri(_) => "bad-url",
        _ => "transport",
    }
    .to_owned()
}

/// How long the hook leaves a `telemetry:` section that turned out off before it reads it again.
const OFF_RECHECK: Duration = Duration::from_secs(300);

/// The hook's part, after its output and analytics line. On every run: whether the user's
/// `config.yaml` has a `telemetry:` section (kept as text, unparsed) and the time of the stamp
/// `telemetry.due`, which is the time the next flush is due. Only when that time has come: the
/// section parsed and resolved ([`wire::Origin::Hook`]: the config file alone), the stamp moved
/// one interval ahead, and a detached flush started when the export is on.
pub fn start_detached_if_due(settings: &Settings, now: std::time::SystemTime) {
    if !settings.telemetry.is_present() || settings.analytics_file.is_none() {
        return;
    }
    let Some(state_dir) = &settings.state_dir else {
        return;
    };
    let stamp = Place::user(stamp_path(state_dir));
    if let Ok(meta) = stamp.metadata()
        && meta.modified.is_some_and(|due| due > now)
    {
        return;
    }
    let Some(telemetry) = resolved(settings, wire::Origin::Hook).telemetry else {
        let _ = stamp.write_stamp(now + OFF_RECHECK);
        return;
    };
    if stamp.write_stamp(now + telemetry.interval).is_err() {
        return;
    }
    let _ = spawn_detached(state_dir);
}

/// Starts `<this binary> telemetry flush --detached` in its own process group with no
/// standard streams; never waited for.
fn spawn_detached(state_dir: &Path) -> std::io::Result<()> {
    let exe = std::env::current_exe()?;
    let mut command = std::process::Command::new(exe);
    command
        .args(["telemetry", "flush", "--detached"])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .current_dir(state_dir);
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        command.process_group(0);
    }
    #[cfg(windows)]
    {
        use std::os::windows::process::CommandExt;
        command.creation_flags(
            windows_sys::Win32::System::Threading::DETACHED_PROCESS
                | windows_sys::Win32::System::Threading::CREATE_NEW_PROCESS_GROUP,
        );
    }
    command.spawn().map(drop)
}

/// When the hook starts its next flush (the stamp's time), for `status`.
pub fn next_due(settings: &Settings) -> Option<DateTime<Utc>> {
    let stamp = Place::user(stamp_path(settings.state_dir.as_ref()?));
    Some(DateTime::<Utc>::from(stamp.metadata().ok()?.modified?))
}
