//! `doctor`'s checks of each registered handler (docs/hosts.md, `doctor`), as a table over every
//! host × each of our two events × each defect a handler can have, through the real binary.
//!
//! The rules: for each scope that registers sophia-hook, doctor checks SessionStart and the
//! host's prompt event separately. Each must be there ("no sophia-hook entry for E"), run this
//! binary ("points at …", "… does not exist"), say `--host H --event E` for the event it is
//! registered under, and have a timeout ("no timeout") that is neither in the wrong unit nor
//! large ("timeout T is large"). A defect in one event's handler fails that event's check with
//! its reason and leaves the other event's check `ok`; any failure makes doctor exit 1.
//!
//! Planted bugs this catches (each seen failing): the prompt event left out of the loop of
//! checked events, the `--host`/`--event` test with `&&` for `||`, the "large timeout" branch
//! dropped.
// Tests and benches set up and read their files directly; the door (clippy.toml) is for the crate.
#![allow(clippy::disallowed_methods)]

mod common;

use std::fs;

use serde_json::{Value, json};

use common::run_binary;
use sophia_hook::install::handler;
use sophia_hook::payload::{Event, Host};

struct Sandbox {
    dir: tempfile::TempDir,
}

impl Sandbox {
    fn new() -> Sandbox {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir_all(dir.path().join("project/.git")).unwrap();
        fs::create_dir_all(dir.path().join("home")).unwrap();
        Sandbox { dir }
    }
    fn project(&self) -> std::path::PathBuf {
        self.dir.path().join("project")
    }
    fn run(&self, args: &[&str]) -> common::Run {
        let root = self.project();
        let mut all: Vec<&str> = args.to_vec();
        all.extend(["--root", root.to_str().unwrap()]);
        run_binary(
            &all,
            b"",
            &self.dir.path().join("home"),
            &[("SOPHIA_ANALYTICS", "off")],
        )
    }
}

fn settings_file(host: Host) -> &'static str {
    match host {
        Host::Codex => ".codex/hooks.json",
        Host::Claude => ".claude/settings.json",
        _ => ".gemini/settings.json",
    }
}

#[derive(Debug, Clone, Copy)]
enum Defect {
    /// The event's handler removed.
    Missing,
    /// The other event's handler registered under this event.
    OtherEvent,
    NoTimeout,
    LargeTimeout,
    /// A `sophia-hook` that is not this binary and does not exist.
    ElsewhereMissing,
}

const DEFECTS: [Defect; 5] = [
    Defect::Missing,
    Defect::OtherEvent,
    Defect::NoTimeout,
    Defect::LargeTimeout,
    Defect::ElsewhereMissing,
];

/// The words doctor's failing check must hold for `defect`.
fn reason(defect: Defect, host: Host, wire: &str) -> Vec<String> {
    match defect {
        Defect::Missing => vec![format!("no sophia-hook entry for {wire}")],
        Defect::OtherEvent => vec![format!(
            "do not say `--host {} --event {wire}`",
            host.as_str()
        )],
        Defect::NoTimeout => vec!["no timeout".into()],
        Defect::LargeTimeout => vec!["is large for a hook on every prompt".into()],
        Defect::ElsewhereMissing => vec![
            "points at /nowhere/bin/sophia-hook, not at this binary".into(),
            "/nowhere/bin/sophia-hook does not exist".into(),
        ],
    }
}

/// The check of `wire` among doctor's checks of `host`'s project scope.
fn check_of<'a>(checks: &'a [Value], host: Host, wire: &str) -> Option<&'a Value> {
    let area = format!("{} project", host.as_str());
    checks.iter().find(|c| {
        c["area"] == area.as_str()
            && c["detail"].as_str().is_some_and(|d| {
                d.starts_with(&format!("{wire}: "))
                    || d.ends_with(&format!("no sophia-hook entry for {wire}"))
            })
    })
}

#[test]
fn each_defect_of_each_handler_fails_its_own_event_only() {
    let bin = env!("CARGO_BIN_EXE_sophia-hook");
    for host in [Host::Codex, Host::Claude, Host::Gemini] {
        let sb = Sandbox::new();
        assert_eq!(sb.run(&["install", "--host", host.as_str()]).code, 0);
        let path = sb.project().join(settings_file(host));
        let pristine: Value = serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
        let ours = [Event::SessionStart, Event::UserPromptSubmit];
        // The pristine install: both events ok.
        let out = sb.run(&["doctor", "--host", host.as_str(), "--json"]);
        let checks = serde_json::from_str::<Value>(&out.stdout).unwrap()["checks"].clone();
        for event in ours {
            let wire = host.event_name(event);
            let c = check_of(checks.as_array().unwrap(), host, wire)
                .unwrap_or_else(|| panic!("{host:?} {wire}: no check\n{}", out.stdout));
            assert_eq!(c["status"], "ok", "{host:?} {wire}: {c}");
        }
        for (i, event) in ours.into_iter().enumerate() {
            let other = ours[1 - i];
            let (wire, other_wire) = (host.event_name(event), host.event_name(other));
            for defect in DEFECTS {
                let mut doc = pristine.clone();
                let groups = doc["hooks"][wire].as_array_mut().unwrap();
                let h = &mut groups[0]["hooks"][0];
                let timeout = h["timeout"].clone();
                match defect {
                    Defect::Missing => {
                        doc["hooks"].as_object_mut().unwrap().shift_remove(wire);
                    }
                    Defect::OtherEvent => {
                        *h = handler(bin, host, other);
                        h["timeout"] = timeout;
                    }
                    Defect::NoTimeout => {
                        h.as_object_mut().unwrap().shift_remove("timeout");
                    }
                    Defect::LargeTimeout => {
                        h["timeout"] = if host == Host::Gemini {
                            json!(120_000)
                        } else {
                            json!(120)
                        };
                    }
                    Defect::ElsewhereMissing => {
                        *h = handler("/nowhere/bin/sophia-hook", host, event);
                        h["timeout"] = timeout;
                    }
                }
                fs::write(&path, serde_json::to_string_pretty(&doc).unwrap()).unwrap();
                let out = sb.run(&["doctor", "--host", host.as_str(), "--json"]);
                let why = format!("{host:?} {wire} {defect:?}");
                assert_eq!(out.code, 1, "{why}\n{}", out.stdout);
                let value: Value = serde_json::from_str(&out.stdout).unwrap();
                let checks = value["checks"].as_array().unwrap();
                let c = check_of(checks, host, wire)
                    .unwrap_or_else(|| panic!("{why}: no check of {wire}\n{}", out.stdout));
                assert_eq!(c["status"], "fail", "{why}: {c}");
                for words in reason(defect, host, wire) {
                    assert!(
                        c["detail"].as_str().unwrap().contains(&words),
                        "{why}: want {words:?} in {c}"
                    );
                }
                let o = check_of(checks, host, other_wire)
                    .unwrap_or_else(|| panic!("{why}: no check of {other_wire}\n{}", out.stdout));
                assert_eq!(o["status"], "ok", "{why}: the other event {o}");
            }
        }
    }
}
