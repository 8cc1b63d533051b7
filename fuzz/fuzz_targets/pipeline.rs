//! The whole hook, bytes in → output out, for every host: never panics, always exit 0, and
//! prints nothing or exactly one JSON object with only the keys the host accepts.
#![no_main]

use std::ffi::OsString;
use std::time::Duration;

use libfuzzer_sys::fuzz_target;
use sophia_hook::clock::FixedClock;
use sophia_hook::edge::settings::Settings;

fuzz_target!(|data: &[u8]| {
    let clock = FixedClock {
        now: chrono::DateTime::UNIX_EPOCH,
        elapsed: Duration::from_micros(1),
    };
    // No analytics, no cache, no home: the fuzzer must not write files.
    let settings = Settings::from_lookup(|k| (k == "SOPHIA_ANALYTICS").then(|| "off".to_owned()));
    for host in ["codex", "claude", "gemini", "antigravity"] {
        let args = vec![OsString::from("sophia-hook"), OsString::from("--host"), OsString::from(host)];
        let mut stdout = Vec::new();
        let mut stderr = Vec::new();
        let code = sophia_hook::cli::run(args, &mut &data[..], &mut stdout, &mut stderr, &settings, &clock);
        assert_eq!(code, 0);
        let text = String::from_utf8(stdout).expect("UTF-8 output");
        if text.is_empty() {
            assert!(host == "codex" || host == "claude", "{host} must print a JSON object");
            continue;
        }
        assert!(text.ends_with('\n') && text.matches('\n').count() == 1);
        let value: serde_json::Value = serde_json::from_str(&text).expect("valid JSON");
        let obj = value.as_object().expect("an object");
        for key in obj.keys() {
            assert_eq!(key, "hookSpecificOutput");
        }
        if let Some(specific) = obj.get("hookSpecificOutput") {
            let specific = specific.as_object().expect("object");
            for key in specific.keys() {
                assert!(key == "hookEventName" || key == "additionalContext", "{key}");
            }
            assert!(specific["additionalContext"].as_str().is_some_and(|c| !c.is_empty() && c.chars().count() <= 10_000));
        }
    }
});
