//! The OpenTelemetry export (issue 49), through the real binary, without a collector: what
//! happens when none answers, when another flush runs, when the hook starts its detached flush,
//! and what a repository's environment can and cannot do. Delivery itself is tested against a
//! real collector (`tests/telemetry/run`, rotel from PyPI, a step of `.ci/run`).

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::Sandbox;

struct Home {
    _dir: tempfile::TempDir,
    root: PathBuf,
}

impl Home {
    fn new() -> Home {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_path_buf();
        for sub in ["config/sophia-hook", "state", "cache", "work"] {
            fs::create_dir_all(root.join(sub)).unwrap();
        }
        Home { _dir: dir, root }
    }

    /// Telemetry on, to a port where nothing listens.
    fn closed_collector(&self, interval_seconds: u64, timeout_ms: u64) {
        self.config(&format!(
            "telemetry:\n  endpoint: http://127.0.0.1:{}\n  interval_seconds: {interval_seconds}\n  timeout_ms: {timeout_ms}\n",
            closed_port()
        ));
    }

    fn config(&self, yaml: &str) {
        fs::write(self.root.join("config/sophia-hook/config.yaml"), yaml).unwrap();
    }

    fn log(&self) -> PathBuf {
        self.root.join("analytics.jsonl")
    }

    fn state(&self) -> PathBuf {
        self.root.join("state/sophia-hook/telemetry.json")
    }

    fn stamp(&self) -> PathBuf {
        self.root.join("state/sophia-hook/telemetry.due")
    }

    fn sandbox(&self) -> Sandbox {
        let s = |p: &Path| p.to_str().unwrap().to_owned();
        Sandbox::new(&self.root)
            .cwd(&self.root.join("work"))
            .env("XDG_CONFIG_HOME", s(&self.root.join("config")))
            .env("XDG_STATE_HOME", s(&self.root.join("state")))
            .env("XDG_CACHE_HOME", s(&self.root.join("cache")))
            .env("SOPHIA_ANALYTICS", "on")
            .env("SOPHIA_ANALYTICS_FILE", s(&self.log()))
    }

    fn hook(&self, sandbox: Sandbox) {
        let payload = format!(
            r#"{{"hook_event_name":"UserPromptSubmit","prompt":"!quick explain ZEBRA4411","session_id":"s1","cwd":{:?}}}"#,
            self.root.join("work").to_str().unwrap()
        );
        let run = sandbox.run(&["--host", "codex"], payload.as_bytes());
        assert_eq!(run.code, 0, "{}", run.stderr);
        assert!(run.stdout.contains("contextMode=light"), "{}", run.stdout);
    }

    fn state_json(&self) -> Value {
        serde_json::from_slice(&fs::read(self.state()).unwrap()).unwrap()
    }
}

/// The lock file `name` under the state folder, held (as another flush would hold it) until
/// the file is dropped.
fn hold(home: &Home, name: &str) -> fs::File {
    let path = home.root.join("state/sophia-hook").join(name);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    let file = fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)
        .unwrap();
    file.lock().unwrap();
    file
}

/// A port on 127.0.0.1 where nothing listens (bound, then closed).
fn closed_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}

/// No collector: the flush exits 1 naming why, the cursor stays at 0 (everything is sent by a
/// later flush), `status` says how far the log is behind and that the last flush failed.
#[test]
fn with_no_collector_the_flush_fails_and_the_cursor_stays() {
    let home = Home::new();
    let port = closed_port();
    home.config(&format!(
        "telemetry:\n  endpoint: http://127.0.0.1:{port}\n  interval_seconds: 86400\n  timeout_ms: 2000\n"
    ));
    // The stamp's time (when the next flush is due) is an hour ahead: the hook starts none.
    fs::create_dir_all(home.stamp().parent().unwrap()).unwrap();
    fs::File::create(home.stamp())
        .unwrap()
        .set_modified(std::time::SystemTime::now() + Duration::from_secs(3600))
        .unwrap();
    for _ in 0..3 {
        home.hook(home.sandbox());
    }
    let log_len = fs::metadata(home.log()).unwrap().len();
    assert!(log_len > 0);
    let flush = home.sandbox().run(&["telemetry", "flush"], b"");
    assert_eq!(flush.code, 1, "{}{}", flush.stdout, flush.stderr);
    assert!(
        flush.stdout.contains("stopped (connect)"),
        "{}",
        flush.stdout
    );
    let state = home.state_json();
    assert_eq!(state["offset"], 0);
    assert_eq!(state["lastError"], "connect");
    assert_eq!(state["lastSuccess"], Value::Null);
    let status = home.sandbox().run(&["telemetry", "status", "--json"], b"");
    let status: Value = serde_json::from_str(&status.stdout).unwrap();
    assert_eq!(status["state"], "on");
    assert_eq!(status["behindBytes"], log_len);
    assert_eq!(status["lastError"], "connect");
    assert_eq!(
        status["logsEndpoint"],
        format!("http://127.0.0.1:{port}/v1/logs")
    );
    // And `status`'s last line says the same.
    let text = home.sandbox().run(&["status"], b"");
    let last = text.stdout.lines().last().unwrap().to_owned();
    assert!(
        last.starts_with("telemetry: on, to http://127.0.0.1:")
            && last.contains("no successful flush yet (last: connect)")
            && last.contains(&format!("{log_len} bytes of the log unsent")),
        "{last}"
    );
}

/// A flush while another holds the lock waits for it, within its deadline, and sends nothing
/// meanwhile; past the deadline it says so and exits 1 (the holder sends what is unsent).
#[test]
fn a_second_flush_waits_for_the_first_within_its_deadline() {
    let home = Home::new();
    home.closed_collector(86400, 1000);
    fs::write(home.log(), b"").unwrap();
    let lock = hold(&home, "telemetry.json.lock");
    let started = Instant::now();
    let flush = home.sandbox().run(&["telemetry", "flush"], b"");
    let waited = started.elapsed();
    assert_eq!(flush.code, 1, "{}", flush.stderr);
    assert!(
        flush.stdout.contains("another flush held the lock"),
        "{}",
        flush.stdout
    );
    assert!(
        waited >= Duration::from_millis(900) && waited < Duration::from_secs(10),
        "{waited:?}"
    );
    assert!(!home.state().exists());
    // A flush waiting already (its place held): this one ends at once, saying the waiting one
    // sends what is unsent.
    let waiter = hold(&home, "telemetry.wait.lock");
    let started = Instant::now();
    let flush = home.sandbox().run(&["telemetry", "flush"], b"");
    assert_eq!(flush.code, 0, "{}", flush.stderr);
    assert!(flush.stdout.contains("one is waiting"), "{}", flush.stdout);
    assert!(started.elapsed() < Duration::from_millis(900));
    drop(waiter);
    // Released: the same flush goes through (the collector is still absent: exit 1, connect).
    drop(lock);
    let flush = home.sandbox().run(&["telemetry", "flush"], b"");
    assert!(flush.stdout.contains("nothing left"), "{}", flush.stdout);
}

/// Telemetry off: `flush` says how to turn it on and fails; the hook starts nothing.
#[test]
fn off_unless_configured() {
    let home = Home::new();
    home.hook(home.sandbox());
    assert!(!home.stamp().exists());
    let flush = home.sandbox().run(&["telemetry", "flush"], b"");
    // A tool that cannot do what it was asked: exit 2 with the message.
    assert_eq!(flush.code, 2);
    assert!(
        flush.stderr.contains("telemetry is off (not-configured)"),
        "{}",
        flush.stderr
    );
    // `enabled: false` wins over an endpoint, in the file and in the environment.
    home.config("telemetry:\n  enabled: false\n  endpoint: http://127.0.0.1:9\n");
    let flush = home
        .sandbox()
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:9")
        .run(&["telemetry", "flush"], b"");
    assert!(
        flush.stderr.contains("disabled-by-config"),
        "{}",
        flush.stderr
    );
}

/// What a repository can set for a hook (Claude Code's project `env`, Gemini CLI's `.env`):
/// the `OTEL_*` variables neither turn the hook's export on nor redirect it; generated over the
/// endpoint variables, with and without the user's own configuration.
#[test]
fn a_repository_environment_neither_starts_nor_redirects_the_export() {
    for var in [
        "OTEL_EXPORTER_OTLP_ENDPOINT",
        "OTEL_EXPORTER_OTLP_LOGS_ENDPOINT",
        "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
    ] {
        // Not configured by the user: nothing starts.
        let home = Home::new();
        home.hook(home.sandbox().env(var, "http://127.0.0.1:9/evil"));
        assert!(!home.stamp().exists(), "{var}");
        // Configured by the user: the user's destination, whatever the variable says.
        let port = closed_port();
        home.config(&format!(
            "telemetry:\n  endpoint: http://127.0.0.1:{port}\n  interval_seconds: 86400\n"
        ));
        let status = home
            .sandbox()
            .env(var, "http://127.0.0.1:9/evil")
            .run(&["telemetry", "status", "--json"], b"");
        let status: Value = serde_json::from_str(&status.stdout).unwrap();
        assert_eq!(
            status["logsEndpoint"],
            format!("http://127.0.0.1:{port}/v1/logs"),
            "{var}"
        );
        assert_eq!(
            status["metricsEndpoint"],
            format!("http://127.0.0.1:{port}/v1/metrics"),
            "{var}"
        );
    }
    // The user turned it on without an endpoint: the hook's flush goes to the default, never
    // to a variable's (`telemetry flush`, run by the user, takes the variables).
    for var in [
        "OTEL_EXPORTER_OTLP_ENDPOINT",
        "OTEL_EXPORTER_OTLP_LOGS_ENDPOINT",
    ] {
        let home = Home::new();
        home.config("telemetry:\n  enabled: true\n");
        let status = home
            .sandbox()
            .env(var, "http://127.0.0.1:9/evil")
            .run(&["telemetry", "status", "--json"], b"");
        let status: Value = serde_json::from_str(&status.stdout).unwrap();
        assert_eq!(
            status["logsEndpoint"], "http://localhost:4318/v1/logs",
            "{var}"
        );
    }
    // OTEL_SDK_DISABLED can only turn it off: the hook reads the section, finds the export off
    // and looks again in five minutes (not in an interval, and starts no flush).
    let home = Home::new();
    home.config("telemetry:\n  endpoint: http://127.0.0.1:9\n  interval_seconds: 3600\n");
    let before = std::time::SystemTime::now();
    home.hook(home.sandbox().env("OTEL_SDK_DISABLED", "true"));
    let ahead = fs::metadata(home.stamp())
        .unwrap()
        .modified()
        .unwrap()
        .duration_since(before)
        .unwrap();
    assert!(
        ahead >= Duration::from_secs(290) && ahead <= Duration::from_secs(310),
        "{ahead:?}"
    );
}

/// The hook starts a detached flush when the stamp is older than the interval, renews the stamp,
/// and starts none while it is fresh; the detached flush records its attempt in the state.
#[test]
fn the_hook_starts_a_detached_flush_at_most_once_per_interval() {
    let home = Home::new();
    home.closed_collector(3600, 1000);
    let before = std::time::SystemTime::now();
    home.hook(home.sandbox());
    let stamped = fs::metadata(home.stamp()).unwrap().modified().unwrap();
    // The stamp holds when the next flush is due: one interval ahead.
    let ahead = stamped.duration_since(before).unwrap();
    assert!(
        ahead >= Duration::from_secs(3590) && ahead <= Duration::from_secs(3610),
        "{ahead:?}"
    );
    // The detached flush runs on its own: its record appears without anybody waiting for it.
    let started = Instant::now();
    while !home.state().exists() && started.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(50));
    }
    let state = home.state_json();
    assert_eq!(state["lastError"], "connect", "{state}");
    // Within the interval: no new stamp, no new flush.
    let attempt = state["lastAttempt"].clone();
    std::thread::sleep(Duration::from_millis(20));
    home.hook(home.sandbox());
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(
        fs::metadata(home.stamp()).unwrap().modified().unwrap(),
        stamped
    );
    assert_eq!(home.state_json()["lastAttempt"], attempt);
    // With an interval of 0 every run starts one (a new interval counts from the next due time:
    // here the stamp is moved back to now).
    home.closed_collector(0, 1000);
    fs::File::options()
        .write(true)
        .open(home.stamp())
        .unwrap()
        .set_modified(std::time::SystemTime::now())
        .unwrap();
    let mut last = fs::metadata(home.stamp()).unwrap().modified().unwrap();
    for _ in 0..2 {
        std::thread::sleep(Duration::from_millis(20));
        home.hook(home.sandbox());
        let now = fs::metadata(home.stamp()).unwrap().modified().unwrap();
        assert!(now > last, "{now:?} {last:?}");
        last = now;
    }
}

/// `doctor` posts a test request to each endpoint and says why one was not accepted, names the
/// settings it refused, says when the variables reach `telemetry flush` only, and how far the
/// spool is behind.
#[test]
fn doctor_checks_the_endpoint_and_the_spool() {
    let home = Home::new();
    let port = closed_port();
    home.config(&format!(
        "telemetry:\n  endpoint: http://127.0.0.1:{port}\n  interval_seconds: 86400\n  timeout_ms: 1000\n  protocol: grpc\n"
    ));
    let doctor = home.sandbox().run(&["doctor", "--json"], b"");
    assert_eq!(doctor.code, 1, "{}", doctor.stderr);
    let value: Value = serde_json::from_str(&doctor.stdout).unwrap();
    let telemetry: Vec<&Value> = value["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["area"] == "telemetry")
        .collect();
    let details: Vec<String> = telemetry
        .iter()
        .map(|c| {
            format!(
                "{} {}",
                c["status"].as_str().unwrap(),
                c["detail"].as_str().unwrap()
            )
        })
        .collect();
    let has = |want: &str| details.iter().any(|d| d.contains(want));
    assert!(
        has("warn telemetry-ignored:config:telemetry.protocol:grpc-unsupported"),
        "{details:#?}"
    );
    assert!(
        has(&format!(
            "fail logs: http://127.0.0.1:{port}/v1/logs did not accept a test request: connect"
        )),
        "{details:#?}"
    );
    assert!(has("fail metrics: "), "{details:#?}");
    assert!(
        has("info spool: 0 bytes of the log unsent; no successful flush yet"),
        "{details:#?}"
    );

    // Only the variables: `doctor` says the hook's flush will not use them.
    let home = Home::new();
    let doctor = home
        .sandbox()
        .env(
            "OTEL_EXPORTER_OTLP_ENDPOINT",
            format!("http://127.0.0.1:{port}"),
        )
        .env(
            "OTEL_EXPORTER_OTLP_HEADERS",
            "authorization=Bearer%20SECRET-TOKEN",
        )
        .run(&["doctor"], b"");
    assert!(
        doctor
            .stdout
            .contains("are used by `sophia-hook telemetry flush` only"),
        "{}",
        doctor.stdout
    );
    // A header's value is never printed.
    assert!(!doctor.stdout.contains("SECRET-TOKEN"), "{}", doctor.stdout);
    // Nothing configured: no telemetry check at all.
    let home = Home::new();
    let doctor = home.sandbox().run(&["doctor"], b"");
    assert!(!doctor.stdout.contains("telemetry"), "{}", doctor.stdout);
}

/// A batch of lines that are not ours (2,000, the batch's size) is passed over and the flush goes
/// on to the lines after it, rather than stopping as if the log had ended.
#[test]
fn lines_not_ours_are_passed_over_and_the_flush_goes_on() {
    let home = Home::new();
    home.closed_collector(86400, 1000);
    let foreign: String = (0..2000)
        .map(|i| format!("{{\"level\":\"info\",\"n\":{i}}}\n"))
        .collect();
    fs::write(home.log(), &foreign).unwrap();
    let run = r#"{"ts":"2026-12-07T10:00:00.000Z","event":"UserPromptSubmit","host":"codex","outcome":"noop","detectedHotwords":[],"reasons":[],"subagentSource":null,"recommendedAgents":[],"agentReasonCodes":[],"carryForward":false,"skills":[],"planning":false,"durationUs":1}"#;
    let mut f = fs::OpenOptions::new()
        .append(true)
        .open(home.log())
        .unwrap();
    std::io::Write::write_all(&mut f, format!("{run}\n").as_bytes()).unwrap();
    let flush = home.sandbox().run(&["telemetry", "flush"], b"");
    // The run line was tried (no collector): exit 1, the cursor past the foreign lines only.
    assert_eq!(flush.code, 1, "{}", flush.stdout);
    assert!(
        flush.stdout.contains("stopped (connect)"),
        "{}",
        flush.stdout
    );
    assert_eq!(home.state_json()["offset"], foreign.len());
}
