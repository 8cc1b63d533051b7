//! OpenTelemetry export of the analytics log (issue 49; `docs/telemetry.md`), the pure part:
//! which settings count ([`resolve`]: the user's `telemetry:` section and the standard `OTEL_*`
//! variables), and what goes on the wire ([`Batch`]: one OTLP log record per analytics line and
//! delta counters a dashboard can sum). The wire carries ids and codes only: each field is read
//! back from a line of ours into a typed value, and a string that is not a code (printable ASCII
//! without spaces, at most [`MAX_CODE`] bytes) is left out. The edge (`edge::telemetry`) reads
//! the spool, sends and keeps the cursor.

use std::collections::BTreeMap;
use std::time::Duration;

use opentelemetry_proto::tonic::collector::logs::v1::ExportLogsServiceRequest;
use opentelemetry_proto::tonic::collector::metrics::v1::ExportMetricsServiceRequest;
use opentelemetry_proto::tonic::common::v1::{
    AnyValue, ArrayValue, InstrumentationScope, KeyValue, any_value,
};
use opentelemetry_proto::tonic::logs::v1::{LogRecord, ResourceLogs, ScopeLogs, SeverityNumber};
use opentelemetry_proto::tonic::metrics::v1::{
    AggregationTemporality, Metric, NumberDataPoint, ResourceMetrics, ScopeMetrics, Sum, metric,
    number_data_point,
};
use opentelemetry_proto::tonic::resource::v1::Resource;

use crate::config::TelemetryConfig;
use crate::stages::analytics::{HintOutcome, LoggedHintOutcome, LoggedRun};

/// The default collector (OTLP/HTTP's standard port on this machine).
pub const DEFAULT_ENDPOINT: &str = "http://localhost:4318";
/// The default deadline of a flush, as `OTEL_EXPORTER_OTLP_TIMEOUT`'s default.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);
/// The ceiling of the deadline.
pub const MAX_TIMEOUT: Duration = Duration::from_secs(60);
/// How often the hook may start a detached flush, by default.
pub const DEFAULT_INTERVAL: Duration = Duration::from_secs(60);
/// The ceiling of the interval: a day.
pub const MAX_INTERVAL: Duration = Duration::from_secs(86_400);
/// The unsent backlog kept, by default and at most: 1 GiB of the log.
pub const MAX_SPOOL_BYTES: u64 = 1024 * 1024 * 1024;
/// The least backlog that may be configured.
pub const MIN_SPOOL_BYTES: u64 = 4096;
/// The longest string sent as a code.
pub const MAX_CODE: usize = 128;
/// Lines per request: a batch is sent, then the cursor moves past it.
pub const BATCH_LINES: usize = 2000;

/// Who asks: the hook's own detached flush, whose environment a repository may set (Claude Code
/// and Gemini CLI apply a project's `env` block or `.env` to hooks: `docs/host-protocols.md`), or
/// a command the user runs (`telemetry flush`, `doctor`, `status`), whose environment is theirs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    Hook,
    Command,
}

/// The standard variables, as set (an empty value counts as unset).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OtelEnv {
    values: BTreeMap<&'static str, String>,
}

/// Every `OTEL_*` variable read (`edge::settings` classifies them with the others).
pub const OTEL_VARS: &[&str] = &[
    SDK_DISABLED,
    ENDPOINT,
    LOGS_ENDPOINT,
    METRICS_ENDPOINT,
    HEADERS,
    LOGS_HEADERS,
    METRICS_HEADERS,
    PROTOCOL,
    LOGS_PROTOCOL,
    METRICS_PROTOCOL,
    TIMEOUT,
    LOGS_TIMEOUT,
    METRICS_TIMEOUT,
    RESOURCE_ATTRIBUTES,
    LOGS_EXPORTER,
    METRICS_EXPORTER,
    CERTIFICATE,
    LOGS_CERTIFICATE,
    METRICS_CERTIFICATE,
];
pub const SDK_DISABLED: &str = "OTEL_SDK_DISABLED";
pub const ENDPOINT: &str = "OTEL_EXPORTER_OTLP_ENDPOINT";
pub const LOGS_ENDPOINT: &str = "OTEL_EXPORTER_OTLP_LOGS_ENDPOINT";
pub const METRICS_ENDPOINT: &str = "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT";
pub const HEADERS: &str = "OTEL_EXPORTER_OTLP_HEADERS";
pub const LOGS_HEADERS: &str = "OTEL_EXPORTER_OTLP_LOGS_HEADERS";
pub const METRICS_HEADERS: &str = "OTEL_EXPORTER_OTLP_METRICS_HEADERS";
pub const PROTOCOL: &str = "OTEL_EXPORTER_OTLP_PROTOCOL";
pub const LOGS_PROTOCOL: &str = "OTEL_EXPORTER_OTLP_LOGS_PROTOCOL";
pub const METRICS_PROTOCOL: &str = "OTEL_EXPORTER_OTLP_METRICS_PROTOCOL";
pub const TIMEOUT: &str = "OTEL_EXPORTER_OTLP_TIMEOUT";
pub const LOGS_TIMEOUT: &str = "OTEL_EXPORTER_OTLP_LOGS_TIMEOUT";
pub const METRICS_TIMEOUT: &str = "OTEL_EXPORTER_OTLP_METRICS_TIMEOUT";
pub const RESOURCE_ATTRIBUTES: &str = "OTEL_RESOURCE_ATTRIBUTES";
pub const LOGS_EXPORTER: &str = "OTEL_LOGS_EXPORTER";
pub const CERTIFICATE: &str = "OTEL_EXPORTER_OTLP_CERTIFICATE";
pub const LOGS_CERTIFICATE: &str = "OTEL_EXPORTER_OTLP_LOGS_CERTIFICATE";
pub const METRICS_CERTIFICATE: &str = "OTEL_EXPORTER_OTLP_METRICS_CERTIFICATE";
pub const METRICS_EXPORTER: &str = "OTEL_METRICS_EXPORTER";

impl OtelEnv {
    /// The variables `get` has (tests pass a map; `edge::settings` the process environment).
    pub fn from_lookup(get: impl Fn(&str) -> Option<String>) -> OtelEnv {
        OtelEnv {
            values: OTEL_VARS
                .iter()
                .filter_map(|var| get(var).filter(|v| !v.is_empty()).map(|v| (*var, v)))
                .collect(),
        }
    }

    fn get(&self, var: &str) -> Option<&str> {
        self.values.get(var).map(String::as_str)
    }

    /// The names set, for `doctor`.
    pub fn names(&self) -> Vec<&'static str> {
        self.values.keys().copied().collect()
    }
}

/// The wire format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Protocol {
    Protobuf,
    Json,
}

impl Protocol {
    pub fn as_str(self) -> &'static str {
        match self {
            Protocol::Protobuf => "http/protobuf",
            Protocol::Json => "http/json",
        }
    }

    pub fn content_type(self) -> &'static str {
        match self {
            Protocol::Protobuf => "application/x-protobuf",
            Protocol::Json => "application/json",
        }
    }
}

/// Where one signal goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Export {
    pub url: String,
    /// Names and values; values may be secrets (never printed: `doctor` names the headers only).
    pub headers: Vec<(String, String)>,
    pub protocol: Protocol,
    /// Each request's own timeout (the flush's deadline bounds them all).
    pub timeout: Duration,
    /// The CA bundle to trust instead of the built-in roots (an absolute path).
    pub certificate: Option<std::path::PathBuf>,
}

/// What a flush does, resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Telemetry {
    pub logs: Option<Export>,
    pub metrics: Option<Export>,
    /// `service.name`, `service.version`, then the configured attributes.
    pub resource: Vec<(String, String)>,
    /// How often the hook may start a detached flush.
    pub interval: Duration,
    /// The unsent backlog kept, in bytes.
    pub spool_max: u64,
    /// The flush's deadline.
    pub deadline: Duration,
}

/// The settings as resolved, with what was refused or clamped (`telemetry-ignored:<where>:<why>`,
/// `telemetry-clamped:<where>`), for `doctor` and `telemetry status`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    pub telemetry: Option<Telemetry>,
    pub warnings: Vec<String>,
    /// Why it is off, when it is: `not-configured`, `disabled-by-config`, `OTEL_SDK_DISABLED`,
    /// `no-signal`.
    pub off: Option<&'static str>,
}

/// Resolves the user's `telemetry:` section and the `OTEL_*` variables. The config file wins
/// over the environment where both set a value (as OpenTelemetry's SDKs let explicit
/// configuration win over the variables), and within each the per-signal setting wins over the
/// general one. For [`Origin::Hook`] the environment is not consulted at all but to turn the
/// export off (`OTEL_SDK_DISABLED`): a repository can set a hook's environment, and must not
/// choose where the user's analytics are sent, nor switch the export on.
pub fn resolve(config: &TelemetryConfig, env: &OtelEnv, origin: Origin) -> Resolved {
    let mut warnings = Vec::new();
    let off = |why: &'static str, warnings: Vec<String>| Resolved {
        telemetry: None,
        warnings,
        off: Some(why),
    };
    if env
        .get(SDK_DISABLED)
        .is_some_and(|v| v.trim().eq_ignore_ascii_case("true"))
    {
        return off("OTEL_SDK_DISABLED", warnings);
    }
    if config.enabled == Some(false) {
        return off("disabled-by-config", warnings);
    }
    let empty = OtelEnv::default();
    let env = match origin {
        Origin::Hook => &empty,
        Origin::Command => env,
    };
    let configured = config.enabled == Some(true)
        || config.endpoint.is_some()
        || config.logs_endpoint.is_some()
        || config.metrics_endpoint.is_some();
    let from_env = [ENDPOINT, LOGS_ENDPOINT, METRICS_ENDPOINT]
        .iter()
        .any(|v| env.get(v).is_some());
    if !configured && !from_env {
        return off("not-configured", warnings);
    }
    let general_protocol = match config.protocol.as_deref() {
        Some(p) => protocol(p, "config:telemetry.protocol", &mut warnings),
        None => None,
    };
    let general_timeout = config
        .timeout_ms
        .map(|ms| clamp_timeout(ms, "config:telemetry.timeout_ms", &mut warnings));
    let config_headers = if config.headers.is_empty() {
        None
    } else {
        let mut out = Vec::new();
        for (name, value) in &config.headers {
            match header(name, value) {
                Ok(h) => out.push(h),
                Err(why) => {
                    warnings.push(format!("telemetry-ignored:config:telemetry.headers:{why}"))
                }
            }
        }
        Some(out)
    };
    let config_certificate = config
        .certificate
        .as_deref()
        .and_then(|c| certificate(c, "config:telemetry.certificate", &mut warnings));
    let mut signal = |path: &str,
                      own_endpoint: Option<&String>,
                      switch: Option<bool>,
                      vars: [&'static str; 6]|
     -> Option<Export> {
        let [
            own_var,
            own_headers,
            own_protocol,
            own_timeout,
            exporter,
            own_certificate,
        ] = vars;
        if switch == Some(false)
            || (switch.is_none()
                && env
                    .get(exporter)
                    .is_some_and(|v| v.trim().eq_ignore_ascii_case("none")))
        {
            return None;
        }
        let config_url = match (own_endpoint, &config.endpoint) {
            (Some(url), _) => checked_url(url, "config:telemetry.*_endpoint", &mut warnings),
            (None, Some(base)) => checked_url(base, "config:telemetry.endpoint", &mut warnings)
                .map(|b| signal_url(&b, path)),
            (None, None) => None,
        };
        let url = config_url
            .or_else(|| {
                env.get(own_var)
                    .and_then(|u| checked_url(u, own_var, &mut warnings))
            })
            .or_else(|| {
                env.get(ENDPOINT)
                    .and_then(|u| checked_url(u, ENDPOINT, &mut warnings))
                    .map(|b| signal_url(&b, path))
            })
            .unwrap_or_else(|| signal_url(DEFAULT_ENDPOINT, path));
        let headers = config_headers
            .clone()
            .or_else(|| {
                env.get(own_headers)
                    .map(|h| env_headers(h, own_headers, &mut warnings))
            })
            .or_else(|| {
                env.get(HEADERS)
                    .map(|h| env_headers(h, HEADERS, &mut warnings))
            })
            .unwrap_or_default();
        let protocol = general_protocol
            .or_else(|| {
                env.get(own_protocol)
                    .and_then(|p| protocol(p, own_protocol, &mut warnings))
            })
            .or_else(|| {
                env.get(PROTOCOL)
                    .and_then(|p| protocol(p, PROTOCOL, &mut warnings))
            })
            .unwrap_or(Protocol::Protobuf);
        let timeout = general_timeout
            .or_else(|| {
                env.get(own_timeout)
                    .and_then(|t| env_timeout(t, own_timeout, &mut warnings))
            })
            .or_else(|| {
                env.get(TIMEOUT)
                    .and_then(|t| env_timeout(t, TIMEOUT, &mut warnings))
            })
            .unwrap_or(DEFAULT_TIMEOUT);
        let certificate = config_certificate
            .clone()
            .or_else(|| {
                env.get(own_certificate)
                    .and_then(|c| certificate(c, own_certificate, &mut warnings))
            })
            .or_else(|| {
                env.get(CERTIFICATE)
                    .and_then(|c| certificate(c, CERTIFICATE, &mut warnings))
            });
        Some(Export {
            url,
            headers,
            protocol,
            timeout,
            certificate,
        })
    };
    let logs = signal(
        "v1/logs",
        config.logs_endpoint.as_ref(),
        config.logs,
        [
            LOGS_ENDPOINT,
            LOGS_HEADERS,
            LOGS_PROTOCOL,
            LOGS_TIMEOUT,
            LOGS_EXPORTER,
            LOGS_CERTIFICATE,
        ],
    );
    let metrics = signal(
        "v1/metrics",
        config.metrics_endpoint.as_ref(),
        config.metrics,
        [
            METRICS_ENDPOINT,
            METRICS_HEADERS,
            METRICS_PROTOCOL,
            METRICS_TIMEOUT,
            METRICS_EXPORTER,
            METRICS_CERTIFICATE,
        ],
    );
    if logs.is_none() && metrics.is_none() {
        return off("no-signal", warnings);
    }
    let deadline = logs
        .iter()
        .chain(metrics.iter())
        .map(|e| e.timeout)
        .max()
        .unwrap_or(DEFAULT_TIMEOUT);
    let mut resource = vec![
        ("service.name".to_owned(), "sophia-hook".to_owned()),
        (
            "service.version".to_owned(),
            env!("CARGO_PKG_VERSION").to_owned(),
        ),
    ];
    let mut add = |key: &str, value: &str, from: &str, warnings: &mut Vec<String>| {
        if key == "service.name" || key == "service.version" {
            warnings.push(format!("telemetry-ignored:{from}:{key}-is-ours"));
        } else if !is_attribute_key(key) || !is_attribute_value(value) {
            warnings.push(format!("telemetry-ignored:{from}:malformed"));
        } else if let Some(slot) = resource.iter_mut().find(|(k, _)| k == key) {
            slot.1 = value.to_owned();
        } else {
            resource.push((key.to_owned(), value.to_owned()));
        }
    };
    // The environment's first, so the config file's win.
    if let Some(list) = env.get(RESOURCE_ATTRIBUTES) {
        for (key, value) in key_values(list) {
            match (key, value) {
                (Some(k), Some(v)) => add(&k, &v, RESOURCE_ATTRIBUTES, &mut warnings),
                _ => warnings.push(format!("telemetry-ignored:{RESOURCE_ATTRIBUTES}:malformed")),
            }
        }
    }
    for (key, value) in &config.resource_attributes {
        add(
            key,
            value,
            "config:telemetry.resource_attributes",
            &mut warnings,
        );
    }
    let interval = match config.interval_seconds {
        Some(s) if Duration::from_secs(s) > MAX_INTERVAL => {
            warnings.push("telemetry-clamped:config:telemetry.interval_seconds".into());
            MAX_INTERVAL
        }
        Some(s) => Duration::from_secs(s),
        None => DEFAULT_INTERVAL,
    };
    let spool_max = match config.spool_max_bytes {
        Some(b) if b > MAX_SPOOL_BYTES => {
            warnings.push("telemetry-clamped:config:telemetry.spool_max_bytes".into());
            MAX_SPOOL_BYTES
        }
        Some(b) if b < MIN_SPOOL_BYTES => {
            warnings.push("telemetry-clamped:config:telemetry.spool_max_bytes".into());
            MIN_SPOOL_BYTES
        }
        Some(b) => b,
        None => MAX_SPOOL_BYTES,
    };
    // A general value is read once per signal: say each refusal once.
    let mut said = std::collections::BTreeSet::new();
    warnings.retain(|w| said.insert(w.clone()));
    Resolved {
        telemetry: Some(Telemetry {
            logs,
            metrics,
            resource,
            interval,
            spool_max,
            deadline,
        }),
        warnings,
        off: None,
    }
}

/// `base` with the signal's path, as the specification joins them (one `/` between).
fn signal_url(base: &str, path: &str) -> String {
    if base.ends_with('/') {
        format!("{base}{path}")
    } else {
        format!("{base}/{path}")
    }
}

/// A URL we may post to: `http://` or `https://`, a host, no credentials, no white space or
/// control character; else refused with a warning naming where it came from.
fn checked_url(value: &str, from: &str, warnings: &mut Vec<String>) -> Option<String> {
    let value = value.trim();
    let why = if value.chars().any(|c| c.is_control() || c.is_whitespace()) {
        Some("control-character")
    } else {
        let rest = value
            .strip_prefix("http://")
            .or_else(|| value.strip_prefix("https://"));
        match rest {
            None => Some("not-http"),
            Some(rest) => {
                let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
                if authority.contains('@') {
                    Some("credentials-in-url")
                } else if authority.is_empty() || authority.starts_with(':') {
                    Some("no-host")
                } else {
                    None
                }
            }
        }
    };
    accepted(why, from, warnings, value.to_owned())
}

/// `value` when there is no reason to refuse it; else `None`, the refusal said in `warnings`.
fn accepted<T>(why: Option<&str>, from: &str, warnings: &mut Vec<String>, value: T) -> Option<T> {
    match why {
        Some(why) => {
            warnings.push(format!("telemetry-ignored:{from}:{why}"));
            None
        }
        None => Some(value),
    }
}

/// A CA bundle's path: absolute, without `..` or control characters.
fn certificate(value: &str, from: &str, warnings: &mut Vec<String>) -> Option<std::path::PathBuf> {
    let path = std::path::Path::new(value.trim());
    let why = if value.chars().any(char::is_control) {
        Some("control-character")
    } else if !(path.is_absolute() || (cfg!(windows) && path.has_root())) {
        // On Windows a rooted path without a drive (`\certs\ca.pem`) is the current
        // drive's, as `edge::settings::checked_path` takes it: never the working folder's.
        Some("relative")
    } else if path
        .components()
        .any(|c| c == std::path::Component::ParentDir)
    {
        Some("dotdot")
    } else {
        None
    };
    accepted(why, from, warnings, path.to_path_buf())
}

fn protocol(value: &str, from: &str, warnings: &mut Vec<String>) -> Option<Protocol> {
    match value.trim() {
        "http/protobuf" => Some(Protocol::Protobuf),
        "http/json" => Some(Protocol::Json),
        "grpc" => {
            warnings.push(format!("telemetry-ignored:{from}:grpc-unsupported"));
            None
        }
        _ => {
            warnings.push(format!("telemetry-ignored:{from}:unknown-protocol"));
            None
        }
    }
}

fn clamp_timeout(ms: u64, from: &str, warnings: &mut Vec<String>) -> Duration {
    let wanted = Duration::from_millis(ms);
    if wanted > MAX_TIMEOUT {
        warnings.push(format!("telemetry-clamped:{from}"));
        MAX_TIMEOUT
    } else if ms == 0 {
        warnings.push(format!("telemetry-clamped:{from}"));
        Duration::from_millis(1)
    } else {
        wanted
    }
}

fn env_timeout(value: &str, from: &str, warnings: &mut Vec<String>) -> Option<Duration> {
    match value.trim().parse::<u64>() {
        Ok(ms) => Some(clamp_timeout(ms, from, warnings)),
        Err(_) if value.trim().bytes().all(|b| b.is_ascii_digit()) => {
            warnings.push(format!("telemetry-clamped:{from}"));
            Some(MAX_TIMEOUT)
        }
        Err(_) => {
            warnings.push(format!("telemetry-ignored:{from}:not-a-number"));
            None
        }
    }
}

/// `key=value` pairs separated by commas, each side percent-decoded (the W3C Baggage form the
/// specification gives `OTEL_EXPORTER_OTLP_HEADERS` and `OTEL_RESOURCE_ATTRIBUTES`); `None` for
/// a side that is missing or not UTF-8.
fn key_values(list: &str) -> Vec<(Option<String>, Option<String>)> {
    let decode = |s: &str| {
        percent_encoding::percent_decode_str(s.trim())
            .decode_utf8()
            .ok()
            .map(|c| c.into_owned())
            .filter(|s| !s.is_empty())
    };
    list.split(',')
        .filter(|pair| !pair.trim().is_empty())
        .map(|pair| match pair.split_once('=') {
            Some((k, v)) => (decode(k), decode(v)),
            None => (decode(pair), None),
        })
        .collect()
}

fn env_headers(list: &str, from: &str, warnings: &mut Vec<String>) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for (name, value) in key_values(list) {
        match (name, value) {
            (Some(n), Some(v)) => match header(&n, &v) {
                Ok(h) => out.push(h),
                Err(why) => warnings.push(format!("telemetry-ignored:{from}:{why}")),
            },
            _ => warnings.push(format!("telemetry-ignored:{from}:malformed")),
        }
    }
    out
}

/// A header we may send: a token name (RFC 9110) and a value without control characters (a
/// line break would start another header).
fn header(name: &str, value: &str) -> Result<(String, String), &'static str> {
    let token = |c: char| c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c);
    if name.is_empty() || !name.chars().all(token) {
        return Err("header-name");
    }
    if value.chars().any(|c| c.is_control()) || value.len() > 8192 {
        return Err("header-value");
    }
    Ok((name.to_owned(), value.trim().to_owned()))
}

fn is_attribute_key(key: &str) -> bool {
    !key.is_empty()
        && key.len() <= MAX_CODE
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "._-/".contains(c))
}

fn is_attribute_value(value: &str) -> bool {
    value.len() <= 255 && !value.chars().any(|c| c.is_control())
}

/// A string sent as a code: printable ASCII, no space, 1 to [`MAX_CODE`] bytes.
pub fn is_code(text: &str) -> bool {
    !text.is_empty() && text.len() <= MAX_CODE && text.bytes().all(|b| b.is_ascii_graphic())
}

/// The event names of the log records.
pub const RUN_EVENT: &str = "sophia_hook.run";
pub const HINT_OUTCOME_EVENT: &str = "sophia_hook.hint_outcome";
pub const DROPPED_EVENT: &str = "sophia_hook.telemetry_dropped";
pub const PROBE_EVENT: &str = "sophia_hook.doctor";
/// The counters.
pub const RUNS: &str = "sophia_hook.runs";
pub const SKILLS_NAMED: &str = "sophia_hook.skills_named";
pub const FAILED_OPEN: &str = "sophia_hook.failed_open";
pub const HINT_OUTCOMES: &str = "sophia_hook.hint_outcomes";
pub const DROPPED_LINES: &str = "sophia_hook.telemetry.dropped_lines";

/// What a line of the log is, for the wire.
pub(crate) enum SpoolLine {
    Run(Box<LoggedRun>),
    HintOutcome(LoggedHintOutcome, HintOutcome),
    /// Not a line of ours, or one that does not hold together: skipped (and counted).
    Skipped,
}

impl SpoolLine {
    pub(crate) fn read(raw: &[u8]) -> SpoolLine {
        match LoggedHintOutcome::read(raw) {
            Some(Ok((line, outcome))) => return SpoolLine::HintOutcome(line, outcome),
            Some(Err(())) => return SpoolLine::Skipped,
            None => {}
        }
        match crate::bounded::json::<LoggedRun>(raw, crate::bounded::FILE) {
            Ok(run) => SpoolLine::Run(Box::new(run)),
            Err(_) => SpoolLine::Skipped,
        }
    }
}

type Attributes = Vec<(&'static str, String)>;

/// One request's worth of lines: their log records and the counters they add up to.
#[derive(Default)]
pub struct Batch {
    records: Vec<LogRecord>,
    counters: BTreeMap<(&'static str, Attributes), i64>,
    /// The earliest and latest line times (Unix nanoseconds).
    first: Option<u64>,
    last: Option<u64>,
    /// Lines read (sent or skipped).
    pub lines: usize,
    /// Lines that were not lines of ours, or did not hold together.
    pub skipped: usize,
}

fn nanos(ts: chrono::DateTime<chrono::Utc>) -> u64 {
    ts.timestamp_nanos_opt()
        .and_then(|n| u64::try_from(n).ok())
        .unwrap_or(0)
}

fn string(key: &'static str, value: &str) -> Option<KeyValue> {
    is_code(value).then(|| {
        key_value(
            format!("sophia_hook.{key}"),
            any_value::Value::StringValue(value.to_owned()),
        )
    })
}

fn strings(key: &'static str, values: &[String]) -> KeyValue {
    key_value(
        format!("sophia_hook.{key}"),
        any_value::Value::ArrayValue(ArrayValue {
            values: values
                .iter()
                .filter(|v| is_code(v))
                .map(|v| AnyValue {
                    value: Some(any_value::Value::StringValue(v.clone())),
                })
                .collect(),
        }),
    )
}

fn boolean(key: &'static str, value: bool) -> KeyValue {
    key_value(
        format!("sophia_hook.{key}"),
        any_value::Value::BoolValue(value),
    )
}

fn int(key: &'static str, value: u64) -> KeyValue {
    key_value(
        format!("sophia_hook.{key}"),
        any_value::Value::IntValue(i64::try_from(value).unwrap_or(i64::MAX)),
    )
}

fn plain(key: &str, value: &str) -> KeyValue {
    key_value(
        key.to_owned(),
        any_value::Value::StringValue(value.to_owned()),
    )
}

fn key_value(key: String, value: any_value::Value) -> KeyValue {
    KeyValue {
        key,
        value: Some(AnyValue { value: Some(value) }),
        ..KeyValue::default()
    }
}

/// The counters' attributes: codes only, absent when not a code.
fn code_attr(out: &mut Attributes, key: &'static str, value: Option<&str>) {
    if let Some(v) = value.filter(|v| is_code(v)) {
        out.push((key, v.to_owned()));
    }
}

impl Batch {
    pub fn is_empty(&self) -> bool {
        self.records.is_empty() && self.counters.is_empty()
    }

    /// Log records in the batch.
    pub fn records(&self) -> usize {
        self.records.len()
    }

    fn seen(&mut self, at: u64) {
        self.first = Some(self.first.map_or(at, |f| f.min(at)));
        self.last = Some(self.last.map_or(at, |l| l.max(at)));
    }

    fn count(&mut self, name: &'static str, attributes: Attributes, by: i64) {
        *self.counters.entry((name, attributes)).or_default() += by;
    }

    /// Adds one line of the log.
    pub(crate) fn push(&mut self, line: SpoolLine, observed: u64) {
        self.lines += 1;
        match line {
            SpoolLine::Run(run) => self.push_run(*run, observed),
            SpoolLine::HintOutcome(line, outcome) => self.push_hint(line, outcome, observed),
            SpoolLine::Skipped => self.skipped += 1,
        }
    }

    fn push_run(&mut self, run: LoggedRun, observed: u64) {
        if !is_code(&run.host) || !is_code(&run.outcome) {
            self.skipped += 1;
            return;
        }
        let at = nanos(run.ts);
        self.seen(at);
        let mut attributes: Vec<KeyValue> = [
            string("host", &run.host),
            run.event.as_deref().and_then(|e| string("hook_event", e)),
            string("outcome", &run.outcome),
            run.failure.as_deref().and_then(|f| string("failure", f)),
            run.context_mode
                .as_deref()
                .and_then(|m| string("context_mode", m)),
            run.subagent_mode
                .as_deref()
                .and_then(|m| string("subagent_mode", m)),
            run.subagent_source
                .as_deref()
                .and_then(|s| string("subagent_source", s)),
            run.degraded.as_deref().and_then(|d| string("degraded", d)),
        ]
        .into_iter()
        .flatten()
        .collect();
        attributes.extend([
            strings("hotwords", &run.detected_hotwords),
            strings("reasons", &run.reasons),
            strings("skills", &run.skills),
            strings("agents", &run.recommended_agents),
            strings("agent_reason_codes", &run.agent_reason_codes),
            boolean("carry_forward", run.carry_forward),
            boolean("planning", run.planning),
            int("duration_us", run.duration_us),
        ]);
        let failed = run.outcome == "failed-open";
        self.records.push(LogRecord {
            time_unix_nano: at,
            observed_time_unix_nano: observed,
            severity_number: if failed {
                SeverityNumber::Warn as i32
            } else {
                SeverityNumber::Info as i32
            },
            severity_text: if failed { "WARN" } else { "INFO" }.to_owned(),
            body: Some(AnyValue {
                value: Some(any_value::Value::StringValue(RUN_EVENT.to_owned())),
            }),
            attributes,
            event_name: RUN_EVENT.to_owned(),
            ..LogRecord::default()
        });
        let mut runs = Vec::new();
        code_attr(&mut runs, "host", Some(&run.host));
        code_attr(&mut runs, "hook_event", run.event.as_deref());
        code_attr(&mut runs, "outcome", Some(&run.outcome));
        code_attr(&mut runs, "context_mode", run.context_mode.as_deref());
        code_attr(&mut runs, "subagent_mode", run.subagent_mode.as_deref());
        self.count(RUNS, runs, 1);
        for skill in run.skills.iter().filter(|s| is_code(s)) {
            let mut a = Vec::new();
            code_attr(&mut a, "host", Some(&run.host));
            code_attr(&mut a, "skill", Some(skill));
            self.count(SKILLS_NAMED, a, 1);
        }
        if failed {
            let mut a = Vec::new();
            code_attr(&mut a, "host", Some(&run.host));
            code_attr(&mut a, "failure", run.failure.as_deref());
            self.count(FAILED_OPEN, a, 1);
        }
    }

    fn push_hint(&mut self, line: LoggedHintOutcome, outcome: HintOutcome, observed: u64) {
        if !is_code(&line.host) || !is_code(&line.outcome) {
            self.skipped += 1;
            return;
        }
        let at = nanos(line.ts);
        self.seen(at);
        let attributes: Vec<KeyValue> = [
            string("host", &line.host),
            line.hint.as_deref().and_then(|h| string("hint", h)),
            line.named.as_deref().and_then(|n| string("named", n)),
            string("hint_outcome", &line.outcome),
            line.reason.as_deref().and_then(|r| string("reason", r)),
        ]
        .into_iter()
        .flatten()
        .collect();
        self.records.push(LogRecord {
            time_unix_nano: at,
            observed_time_unix_nano: observed,
            severity_number: SeverityNumber::Info as i32,
            severity_text: "INFO".to_owned(),
            body: Some(AnyValue {
                value: Some(any_value::Value::StringValue(HINT_OUTCOME_EVENT.to_owned())),
            }),
            attributes,
            event_name: HINT_OUTCOME_EVENT.to_owned(),
            ..LogRecord::default()
        });
        let kind = match outcome {
            HintOutcome::Followed { .. } => "followed",
            HintOutcome::Other { .. } => "other",
            HintOutcome::Ignored { .. } => "ignored",
            HintOutcome::Unnamed { .. } => "unnamed",
            HintOutcome::Spawned { .. } => "spawned",
            HintOutcome::NotSpawned { .. } => "not-spawned",
            HintOutcome::Unknown { .. } => "unknown",
        };
        let mut a = Vec::new();
        code_attr(&mut a, "host", Some(&line.host));
        code_attr(&mut a, "hint", line.hint.as_deref());
        code_attr(&mut a, "hint_outcome", Some(kind));
        self.count(HINT_OUTCOMES, a, 1);
    }

    /// The record `doctor` sends to see that the collector accepts one: `sophia_hook.doctor`,
    /// no attribute.
    pub fn probe(now: u64) -> Batch {
        let mut batch = Batch::default();
        batch.seen(now);
        batch.records.push(LogRecord {
            time_unix_nano: now,
            observed_time_unix_nano: now,
            severity_number: SeverityNumber::Info as i32,
            severity_text: "INFO".to_owned(),
            body: Some(AnyValue {
                value: Some(any_value::Value::StringValue(PROBE_EVENT.to_owned())),
            }),
            event_name: PROBE_EVENT.to_owned(),
            ..LogRecord::default()
        });
        batch
    }

    /// Adds the record and the count of lines dropped from the oldest end of the backlog (over
    /// the spool's bound).
    pub fn dropped(&mut self, lines: u64, bytes: u64, now: u64) {
        self.seen(now);
        self.records.push(LogRecord {
            time_unix_nano: now,
            observed_time_unix_nano: now,
            severity_number: SeverityNumber::Warn as i32,
            severity_text: "WARN".to_owned(),
            body: Some(AnyValue {
                value: Some(any_value::Value::StringValue(DROPPED_EVENT.to_owned())),
            }),
            attributes: vec![int("dropped_lines", lines), int("dropped_bytes", bytes)],
            event_name: DROPPED_EVENT.to_owned(),
            ..LogRecord::default()
        });
        self.count(
            DROPPED_LINES,
            vec![("reason", "spool-bound".to_owned())],
            i64::try_from(lines).unwrap_or(i64::MAX),
        );
    }

    fn resource(resource: &[(String, String)]) -> Resource {
        Resource {
            attributes: resource.iter().map(|(k, v)| plain(k, v)).collect(),
            ..Resource::default()
        }
    }

    fn scope() -> InstrumentationScope {
        InstrumentationScope {
            name: "sophia-hook".to_owned(),
            version: env!("CARGO_PKG_VERSION").to_owned(),
            ..InstrumentationScope::default()
        }
    }

    /// The log records as one export request.
    pub fn logs_request(&self, resource: &[(String, String)]) -> ExportLogsServiceRequest {
        ExportLogsServiceRequest {
            resource_logs: vec![ResourceLogs {
                resource: Some(Batch::resource(resource)),
                scope_logs: vec![ScopeLogs {
                    scope: Some(Batch::scope()),
                    log_records: self.records.clone(),
                    ..ScopeLogs::default()
                }],
                ..ResourceLogs::default()
            }],
        }
    }

    /// The counters as one export request: monotonic delta sums over the batch's time span, one
    /// data point per attribute set, so a backend sums them across flushes and machines.
    pub fn metrics_request(&self, resource: &[(String, String)]) -> ExportMetricsServiceRequest {
        let start = self.first.unwrap_or(0);
        // A delta point's end is after its start: the last line's time, plus one nanosecond.
        let end = self.last.unwrap_or(start).max(start) + 1;
        let mut by_name: BTreeMap<&'static str, Vec<NumberDataPoint>> = BTreeMap::new();
        for ((name, attributes), value) in &self.counters {
            by_name.entry(name).or_default().push(NumberDataPoint {
                attributes: attributes
                    .iter()
                    .map(|(k, v)| plain(&format!("sophia_hook.{k}"), v))
                    .collect(),
                start_time_unix_nano: start,
                time_unix_nano: end,
                value: Some(number_data_point::Value::AsInt(*value)),
                ..NumberDataPoint::default()
            });
        }
        let metrics = by_name
            .into_iter()
            .map(|(name, data_points)| Metric {
                name: name.to_owned(),
                description: description(name).to_owned(),
                unit: "1".to_owned(),
                data: Some(metric::Data::Sum(Sum {
                    data_points,
                    aggregation_temporality: AggregationTemporality::Delta as i32,
                    is_monotonic: true,
                })),
                ..Metric::default()
            })
            .collect();
        ExportMetricsServiceRequest {
            resource_metrics: vec![ResourceMetrics {
                resource: Some(Batch::resource(resource)),
                scope_metrics: vec![ScopeMetrics {
                    scope: Some(Batch::scope()),
                    metrics,
                    ..ScopeMetrics::default()
                }],
                ..ResourceMetrics::default()
            }],
        }
    }
}

fn description(name: &str) -> &'static str {
    match name {
        RUNS => "Hook runs, by host, event, outcome, context mode and subagent mode",
        SKILLS_NAMED => "Skills the hook named, by host and skill id",
        FAILED_OPEN => "Hook runs that passed through on a failure, by host and failure code",
        HINT_OUTCOMES => "What the model did with a hint, by host, hint kind and outcome",
        DROPPED_LINES => "Analytics lines dropped unsent because the backlog passed its bound",
        _ => "",
    }
}

/// A request in the wire format.
pub fn encode<M: prost::Message + serde::Serialize>(request: &M, protocol: Protocol) -> Vec<u8> {
    match protocol {
        Protocol::Protobuf => request.encode_to_vec(),
        Protocol::Json => serde_json::to_vec(request).unwrap_or_default(),
    }
}

#[cfg(test)]
mod tests {
    // Tests parse what the code under test printed.
    #![allow(clippy::disallowed_methods)]
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> OtelEnv {
        let map: BTreeMap<String, String> = pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        OtelEnv::from_lookup(|k| map.get(k).cloned())
    }

    fn config(yaml: &str) -> TelemetryConfig {
        crate::config::UserConfig::parse(yaml)
            .unwrap()
            .telemetry
            .config()
    }

    fn urls(r: &Resolved) -> (Option<String>, Option<String>) {
        let t = r.telemetry.as_ref();
        (
            t.and_then(|t| t.logs.as_ref()).map(|e| e.url.clone()),
            t.and_then(|t| t.metrics.as_ref()).map(|e| e.url.clone()),
        )
    }

    /// The table over the variables and the config file: unset, valid, malformed, per-signal over
    /// general, the config file over the environment, and the hook's origin consulting no variable
    /// but the switch-off. Each row: config, environment, origin → logs URL, metrics URL, warnings.
    #[test]
    fn otel_variables_and_the_config_file_resolve_as_documented() {
        let c = Origin::Command;
        let h = Origin::Hook;
        type Row<'a> = (
            &'a str,
            &'a [(&'a str, &'a str)],
            Origin,
            Option<&'a str>,
            Option<&'a str>,
            &'a [&'a str],
        );
        let rows: &[Row] = &[
            // Nothing set: off.
            ("", &[], c, None, None, &[]),
            ("", &[], h, None, None, &[]),
            // The general endpoint: the signal paths appended, one slash between.
            (
                "",
                &[(ENDPOINT, "http://collector:4318")],
                c,
                Some("http://collector:4318/v1/logs"),
                Some("http://collector:4318/v1/metrics"),
                &[],
            ),
            (
                "",
                &[(ENDPOINT, "https://collector.example/otlp/")],
                c,
                Some("https://collector.example/otlp/v1/logs"),
                Some("https://collector.example/otlp/v1/metrics"),
                &[],
            ),
            // Per-signal over general, used as it is.
            (
                "",
                &[
                    (ENDPOINT, "http://a:4318"),
                    (LOGS_ENDPOINT, "http://b:9999/custom/logs"),
                ],
                c,
                Some("http://b:9999/custom/logs"),
                Some("http://a:4318/v1/metrics"),
                &[],
            ),
            // A per-signal endpoint alone turns the export on; the other signal goes to the default.
            (
                "",
                &[(METRICS_ENDPOINT, "http://m:1/x")],
                c,
                Some("http://localhost:4318/v1/logs"),
                Some("http://m:1/x"),
                &[],
            ),
            // Malformed: refused with a warning naming the variable; the default is used.
            (
                "",
                &[(ENDPOINT, "collector:4318")],
                c,
                Some("http://localhost:4318/v1/logs"),
                Some("http://localhost:4318/v1/metrics"),
                &["telemetry-ignored:OTEL_EXPORTER_OTLP_ENDPOINT:not-http"],
            ),
            (
                "",
                &[(ENDPOINT, "http://user:secret@c:4318")],
                c,
                Some("http://localhost:4318/v1/logs"),
                Some("http://localhost:4318/v1/metrics"),
                &["telemetry-ignored:OTEL_EXPORTER_OTLP_ENDPOINT:credentials-in-url"],
            ),
            (
                "",
                &[(LOGS_ENDPOINT, "http://c:1/v1/logs\nX-Evil: 1")],
                c,
                Some("http://localhost:4318/v1/logs"),
                Some("http://localhost:4318/v1/metrics"),
                &["telemetry-ignored:OTEL_EXPORTER_OTLP_LOGS_ENDPOINT:control-character"],
            ),
            // The hook's origin: the variables neither turn it on nor choose the destination.
            ("", &[(ENDPOINT, "http://evil:4318")], h, None, None, &[]),
            (
                "telemetry:\n  enabled: true\n",
                &[(ENDPOINT, "http://evil:4318")],
                h,
                Some("http://localhost:4318/v1/logs"),
                Some("http://localhost:4318/v1/metrics"),
                &[],
            ),
            // The config file: on, its endpoint over the environment's, per-signal over general.
            (
                "telemetry:\n  endpoint: http://mine:4318\n",
                &[(ENDPOINT, "http://env:4318")],
                c,
                Some("http://mine:4318/v1/logs"),
                Some("http://mine:4318/v1/metrics"),
                &[],
            ),
            (
                "telemetry:\n  endpoint: http://mine:4318\n  metrics_endpoint: http://m:2/m\n",
                &[],
                h,
                Some("http://mine:4318/v1/logs"),
                Some("http://m:2/m"),
                &[],
            ),
            // The config file fills what the environment leaves; the environment fills the rest.
            (
                "telemetry:\n  logs_endpoint: http://l:1/l\n",
                &[(ENDPOINT, "http://env:4318")],
                c,
                Some("http://l:1/l"),
                Some("http://env:4318/v1/metrics"),
                &[],
            ),
            // Off: the config's switch, OTEL_SDK_DISABLED (from any origin), both signals off.
            (
                "telemetry:\n  enabled: false\n  endpoint: http://mine:4318\n",
                &[(ENDPOINT, "http://env:4318")],
                c,
                None,
                None,
                &[],
            ),
            (
                "telemetry:\n  endpoint: http://mine:4318\n",
                &[(SDK_DISABLED, "true")],
                h,
                None,
                None,
                &[],
            ),
            (
                "telemetry:\n  endpoint: http://mine:4318\n  logs: false\n",
                &[],
                h,
                None,
                Some("http://mine:4318/v1/metrics"),
                &[],
            ),
            (
                "",
                &[(ENDPOINT, "http://a:1"), (LOGS_EXPORTER, "none")],
                c,
                None,
                Some("http://a:1/v1/metrics"),
                &[],
            ),
            (
                "",
                &[
                    (ENDPOINT, "http://a:1"),
                    (LOGS_EXPORTER, "none"),
                    (METRICS_EXPORTER, "none"),
                ],
                c,
                None,
                None,
                &[],
            ),
        ];
        for (i, (yaml, vars, origin, logs, metrics, warnings)) in rows.iter().enumerate() {
            let r = resolve(&config(yaml), &env(vars), *origin);
            assert_eq!(
                urls(&r),
                (logs.map(str::to_owned), metrics.map(str::to_owned)),
                "row {i}: {yaml:?} {vars:?} {origin:?}"
            );
            assert_eq!(&r.warnings, warnings, "row {i}");
            assert_eq!(r.telemetry.is_none(), r.off.is_some(), "row {i}");
        }
    }

    /// Headers, protocol and timeout: valid, malformed, per-signal over general, config over env,
    /// clamped at the ceiling.
    #[test]
    fn headers_protocol_and_timeout_resolve_per_signal() {
        let c = Origin::Command;
        let r = resolve(
            &config(""),
            &env(&[
                (ENDPOINT, "http://a:1"),
                (HEADERS, "api-key=s%3Dcret, x-team = core"),
                (LOGS_HEADERS, "authorization=Bearer%20t"),
                (PROTOCOL, "http/json"),
                (METRICS_PROTOCOL, "http/protobuf"),
                (TIMEOUT, "2500"),
                (LOGS_TIMEOUT, "999999"),
            ]),
            c,
        );
        let t = r.telemetry.unwrap();
        let (logs, metrics) = (t.logs.unwrap(), t.metrics.unwrap());
        assert_eq!(
            logs.headers,
            [("authorization".to_owned(), "Bearer t".to_owned())]
        );
        assert_eq!(
            metrics.headers,
            [
                ("api-key".to_owned(), "s=cret".to_owned()),
                ("x-team".to_owned(), "core".to_owned())
            ]
        );
        assert_eq!(logs.protocol, Protocol::Json);
        assert_eq!(metrics.protocol, Protocol::Protobuf);
        assert_eq!(logs.timeout, MAX_TIMEOUT);
        assert_eq!(metrics.timeout, Duration::from_millis(2500));
        assert_eq!(t.deadline, MAX_TIMEOUT);
        assert_eq!(
            r.warnings,
            ["telemetry-clamped:OTEL_EXPORTER_OTLP_LOGS_TIMEOUT"]
        );

        // Malformed values: each refused with its variable named, the default kept.
        let r = resolve(
            &config(""),
            &env(&[
                (ENDPOINT, "http://a:1"),
                (HEADERS, "bad name=x,novalue,ok=1,crlf=a%0D%0AX-Evil: 1"),
                (PROTOCOL, "grpc"),
                (LOGS_PROTOCOL, "carrier-pigeon"),
                (TIMEOUT, "soon"),
            ]),
            c,
        );
        let t = r.telemetry.unwrap();
        let logs = t.logs.unwrap();
        assert_eq!(logs.headers, [("ok".to_owned(), "1".to_owned())]);
        assert_eq!(logs.protocol, Protocol::Protobuf);
        assert_eq!(logs.timeout, DEFAULT_TIMEOUT);
        for w in [
            "telemetry-ignored:OTEL_EXPORTER_OTLP_HEADERS:header-name",
            "telemetry-ignored:OTEL_EXPORTER_OTLP_HEADERS:malformed",
            "telemetry-ignored:OTEL_EXPORTER_OTLP_HEADERS:header-value",
            "telemetry-ignored:OTEL_EXPORTER_OTLP_PROTOCOL:grpc-unsupported",
            "telemetry-ignored:OTEL_EXPORTER_OTLP_LOGS_PROTOCOL:unknown-protocol",
            "telemetry-ignored:OTEL_EXPORTER_OTLP_TIMEOUT:not-a-number",
        ] {
            assert!(r.warnings.iter().any(|x| x == w), "{w} in {:?}", r.warnings);
        }

        // The CA bundle: per-signal over general, absolute only, the config's over both.
        let r = resolve(
            &config(""),
            &env(&[
                (ENDPOINT, "https://a:1"),
                (CERTIFICATE, "/etc/ssl/team-ca.pem"),
                (METRICS_CERTIFICATE, "certs/ca.pem"),
                (LOGS_CERTIFICATE, "/etc/ssl/logs-ca.pem"),
            ]),
            c,
        );
        let t = r.telemetry.unwrap();
        assert_eq!(
            t.logs.unwrap().certificate.as_deref(),
            Some(std::path::Path::new("/etc/ssl/logs-ca.pem"))
        );
        assert_eq!(
            t.metrics.unwrap().certificate.as_deref(),
            Some(std::path::Path::new("/etc/ssl/team-ca.pem"))
        );
        assert_eq!(
            r.warnings,
            ["telemetry-ignored:OTEL_EXPORTER_OTLP_METRICS_CERTIFICATE:relative"]
        );
        let r = resolve(
            &config("telemetry:\n  enabled: true\n  certificate: /home/me/ca.pem\n"),
            &env(&[(CERTIFICATE, "/etc/ssl/team-ca.pem")]),
            c,
        );
        assert_eq!(
            r.telemetry.unwrap().logs.unwrap().certificate.as_deref(),
            Some(std::path::Path::new("/home/me/ca.pem"))
        );

        // The config file over the environment, for each setting.
        let r = resolve(
            &config(
                "telemetry:\n  endpoint: http://c:1\n  protocol: http/json\n  timeout_ms: 700\n  headers:\n    x-key: from-config\n  interval_seconds: 999999\n  spool_max_bytes: 1\n",
            ),
            &env(&[
                (HEADERS, "x-key=from-env"),
                (PROTOCOL, "http/protobuf"),
                (TIMEOUT, "5000"),
            ]),
            c,
        );
        let t = r.telemetry.unwrap();
        let logs = t.logs.unwrap();
        assert_eq!(
            logs.headers,
            [("x-key".to_owned(), "from-config".to_owned())]
        );
        assert_eq!(logs.protocol, Protocol::Json);
        assert_eq!(logs.timeout, Duration::from_millis(700));
        assert_eq!(t.interval, MAX_INTERVAL);
        assert_eq!(t.spool_max, MIN_SPOOL_BYTES);
    }

    /// Resource attributes: ours first and fixed, the environment's then the config's (which wins),
    /// malformed ones refused.
    #[test]
    fn resource_attributes_add_to_ours_and_never_replace_them() {
        let r = resolve(
            &config(
                "telemetry:\n  enabled: true\n  resource_attributes:\n    team: core\n    deployment.environment: laptop\n",
            ),
            &env(&[(
                RESOURCE_ATTRIBUTES,
                "service.name=evil,team=env,region=eu%2Dwest,broken",
            )]),
            Origin::Command,
        );
        let t = r.telemetry.unwrap();
        assert_eq!(
            t.resource,
            [
                ("service.name", "sophia-hook"),
                ("service.version", env!("CARGO_PKG_VERSION")),
                ("team", "core"),
                ("region", "eu-west"),
                ("deployment.environment", "laptop"),
            ]
            .map(|(k, v)| (k.to_owned(), v.to_owned()))
        );
        assert_eq!(
            r.warnings,
            [
                "telemetry-ignored:OTEL_RESOURCE_ATTRIBUTES:service.name-is-ours",
                "telemetry-ignored:OTEL_RESOURCE_ATTRIBUTES:malformed",
            ]
        );
    }

    const RUN: &str = r#"{"ts":"2026-11-23T13:32:32.000Z","event":"UserPromptSubmit","host":"codex","outcome":"injected","contextMode":"full","subagentMode":"off","detectedHotwords":["!quick"],"reasons":["default-full"],"subagentSource":"deterministic-agent-policy","recommendedAgents":["implementer"],"agentReasonCodes":[],"carryForward":false,"skills":["mcp-git","project:0123456789ab"],"planning":false,"durationUs":1960}"#;
    const HINT: &str = r#"{"ts":"2026-11-23T13:32:59.000Z","event":"hint-outcome","host":"codex","hint":"skill","named":"mcp-git","outcome":"followed"}"#;
    const FAILED: &str = r#"{"ts":"2026-11-23T13:33:00.000Z","event":"UserPromptSubmit","host":"claude","outcome":"failed-open","failure":"deadline","detectedHotwords":[],"reasons":[],"subagentSource":null,"recommendedAgents":[],"agentReasonCodes":[],"carryForward":false,"skills":[],"planning":false,"durationUs":150000}"#;

    fn attrs(record: &LogRecord) -> BTreeMap<String, String> {
        record
            .attributes
            .iter()
            .map(|kv| {
                let v = match kv.value.as_ref().and_then(|v| v.value.as_ref()) {
                    Some(any_value::Value::StringValue(s)) => s.clone(),
                    Some(any_value::Value::BoolValue(b)) => b.to_string(),
                    Some(any_value::Value::IntValue(i)) => i.to_string(),
                    Some(any_value::Value::ArrayValue(a)) => a
                        .values
                        .iter()
                        .map(|v| match &v.value {
                            Some(any_value::Value::StringValue(s)) => s.clone(),
                            _ => "?".into(),
                        })
                        .collect::<Vec<_>>()
                        .join(","),
                    _ => "?".into(),
                };
                (kv.key.clone(), v)
            })
            .collect()
    }

    /// A run line, a hint-outcome line and a failed-open line become three records with their
    /// fields as attributes, and the counters add up per attribute set.
    #[test]
    fn lines_become_records_and_counters() {
        let mut batch = Batch::default();
        for line in [RUN, HINT, FAILED, "not json", r#"{"level":"info"}"#] {
            batch.push(SpoolLine::read(line.as_bytes()), 7);
        }
        assert_eq!((batch.lines, batch.skipped, batch.records()), (5, 2, 3));
        let logs = batch.logs_request(&[("service.name".into(), "sophia-hook".into())]);
        let records = &logs.resource_logs[0].scope_logs[0].log_records;
        assert_eq!(records[0].event_name, "sophia_hook.run");
        assert_eq!(records[0].time_unix_nano, 1_795_440_752_000_000_000);
        assert_eq!(records[0].observed_time_unix_nano, 7);
        let run = attrs(&records[0]);
        for (k, v) in [
            ("sophia_hook.host", "codex"),
            ("sophia_hook.hook_event", "UserPromptSubmit"),
            ("sophia_hook.outcome", "injected"),
            ("sophia_hook.context_mode", "full"),
            ("sophia_hook.subagent_mode", "off"),
            ("sophia_hook.hotwords", "!quick"),
            ("sophia_hook.skills", "mcp-git,project:0123456789ab"),
            ("sophia_hook.agents", "implementer"),
            ("sophia_hook.duration_us", "1960"),
            ("sophia_hook.carry_forward", "false"),
        ] {
            assert_eq!(run.get(k).map(String::as_str), Some(v), "{k}");
        }
        assert_eq!(records[1].event_name, "sophia_hook.hint_outcome");
        let hint = attrs(&records[1]);
        assert_eq!(hint["sophia_hook.hint_outcome"], "followed");
        assert_eq!(hint["sophia_hook.named"], "mcp-git");
        assert_eq!(records[2].severity_text, "WARN");
        assert_eq!(attrs(&records[2])["sophia_hook.failure"], "deadline");

        let metrics = batch.metrics_request(&[]);
        let metrics = &metrics.resource_metrics[0].scope_metrics[0].metrics;
        let sum = |name: &str| -> i64 {
            let m = metrics.iter().find(|m| m.name == name).unwrap();
            let Some(metric::Data::Sum(s)) = &m.data else {
                panic!("{name} is not a sum")
            };
            assert!(s.is_monotonic);
            assert_eq!(
                s.aggregation_temporality,
                AggregationTemporality::Delta as i32
            );
            s.data_points
                .iter()
                .map(|p| match p.value {
                    Some(number_data_point::Value::AsInt(i)) => i,
                    _ => 0,
                })
                .sum()
        };
        assert_eq!(sum(RUNS), 2);
        assert_eq!(sum(SKILLS_NAMED), 2);
        assert_eq!(sum(FAILED_OPEN), 1);
        assert_eq!(sum(HINT_OUTCOMES), 1);
    }

    /// Whatever a line holds, nothing but codes reaches the wire: a field with a space, a line
    /// break, a non-ASCII letter or more than MAX_CODE bytes is left out (generated over the fields
    /// a run line has).
    #[test]
    fn only_codes_reach_the_wire() {
        let bad = [
            "two words",
            "line\nbreak",
            "caf\u{e9}",
            "tab\there",
            &"x".repeat(MAX_CODE + 1),
        ];
        for field in [
            "event",
            "contextMode",
            "subagentMode",
            "subagentSource",
            "failure",
            "degraded",
        ] {
            for text in bad {
                let mut value: serde_json::Value = serde_json::from_str(RUN).unwrap();
                value[field] = serde_json::Value::String(format!("SECRET {text}"));
                value["skills"] = serde_json::json!([format!("SECRET {text}"), "ok-skill"]);
                value["reasons"] = serde_json::json!([format!("SECRET{text}")]);
                let line = serde_json::to_vec(&value).unwrap();
                let mut batch = Batch::default();
                batch.push(SpoolLine::read(&line), 0);
                for wire in [
                    encode(&batch.logs_request(&[]), Protocol::Json),
                    encode(&batch.metrics_request(&[]), Protocol::Json),
                    encode(&batch.logs_request(&[]), Protocol::Protobuf),
                ] {
                    let wire = String::from_utf8_lossy(&wire);
                    assert!(!wire.contains("SECRET"), "{field} {text:?}: {wire}");
                }
            }
        }
    }

    /// The JSON encoding is OTLP's: camelCase names, the record's event name, string values as
    /// `stringValue`.
    #[test]
    fn json_encoding_is_otlp_json() {
        let mut batch = Batch::default();
        batch.push(SpoolLine::read(RUN.as_bytes()), 0);
        let json: serde_json::Value =
            serde_json::from_slice(&encode(&batch.logs_request(&[]), Protocol::Json)).unwrap();
        let record = &json["resourceLogs"][0]["scopeLogs"][0]["logRecords"][0];
        assert_eq!(record["eventName"], "sophia_hook.run");
        assert_eq!(record["attributes"][0]["key"], "sophia_hook.host");
        assert_eq!(record["attributes"][0]["value"]["stringValue"], "codex");
    }
}
