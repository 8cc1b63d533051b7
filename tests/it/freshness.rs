//! Freshness as a property (docs/skills.md, "Freshness between full checks"), as a table over
//! every host with skills × the scope of the change (project, user) × the change (a skill added,
//! removed, edited in place) × whether the project had a compiled index (`skills index`) before
//! it: the hook's next prompt sees the change (an edit in place within the 60-second window, so
//! that prompt comes 61 s later), and where the index went stale, the fix the tools give —
//! `skills index` again — clears the warning and keeps the routing right.
//!
//! The folders (`common::SKILL_FOLDERS`) are written from what the hosts were observed to list (docs/skills.md, the
//! table and "How the folders were verified"), not read from the code under test.
// Tests and benches set up and read their files directly; the door (clippy.toml) is for the crate.
#![allow(clippy::disallowed_methods)]

use crate::common;

use std::ffi::OsString;
use std::path::PathBuf;

use chrono::{DateTime, Utc};
use serde_json::Value;
use sophia_hook::clock::FixedClock;
use sophia_hook::edge::settings::Settings;

const PROMPT: &str = "extract totals and line items from these supplier invoices";
const HINT: &str = "skill=zz-ledger-tool";
const INVOICE: &str = "---\nname: zz-ledger-tool\ndescription: Extract totals and line items from supplier invoices.\n---\n# Invoice parser\n";
const EDITED: &str = "---\nname: zz-ledger-tool\ndescription: Render ocean tide charts for sailors and harbour masters.\n---\n# Tides\n";
/// Always in the project, so the inventory is never empty (the embedded catalog stays out).
const WEATHER: &str = "---\nname: zz-weather-radar\ndescription: Render weather radar maps and storm forecasts.\n---\n# Radar\n";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Change {
    Add,
    Remove,
    Edit,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scope {
    Project,
    User,
}

struct World {
    dir: tempfile::TempDir,
    settings: Settings,
}

impl World {
    fn new() -> World {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("project/.git")).unwrap();
        std::fs::create_dir_all(dir.path().join("home")).unwrap();
        let home = dir.path().join("home").to_string_lossy().into_owned();
        let cache = dir.path().join("cache").to_string_lossy().into_owned();
        let settings = Settings::from_lookup(|k| match k {
            "HOME" => Some(home.clone()),
            "SOPHIA_CACHE_DIR" => Some(cache.clone()),
            "SOPHIA_ANALYTICS" => Some("off".to_owned()),
            "SOPHIA_TIME_BUDGET_MS" => Some(common::TEST_TIME_BUDGET_MS.to_owned()),
            _ => None,
        });
        World { dir, settings }
    }
    fn root(&self) -> PathBuf {
        self.dir.path().join("project")
    }
    fn skill_dir(&self, host: &str, scope: Scope, name: &str) -> PathBuf {
        let (_, project, user) = common::SKILL_FOLDERS
            .iter()
            .find(|(h, _, _)| *h == host)
            .unwrap();
        match scope {
            Scope::Project => self.root().join(project).join(name),
            Scope::User => self.dir.path().join("home").join(user).join(name),
        }
    }
    fn write_skill(&self, host: &str, scope: Scope, name: &str, text: &str) {
        let dir = self.skill_dir(host, scope, name);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("SKILL.md"), text).unwrap();
    }
    /// `sophia-hook ARGS` in-process at `now`.
    fn run(&self, args: &[&str], stdin: &[u8], now: DateTime<Utc>) -> common::Run {
        let argv: Vec<OsString> = std::iter::once("sophia-hook")
            .chain(args.iter().copied())
            .map(OsString::from)
            .collect();
        let clock = FixedClock {
            now,
            elapsed: std::time::Duration::from_micros(250),
        };
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let code = sophia_hook::cli::run(
            argv,
            &mut &stdin[..],
            &mut out,
            &mut err,
            &self.settings,
            &clock,
        );
        common::Run {
            code: i32::from(code),
            stdout: String::from_utf8(out).unwrap(),
            stderr: String::from_utf8(err).unwrap(),
        }
    }
    /// The hook's answer to the invoice prompt: whether it names the invoice skill.
    fn names_invoice(&self, host: &str, now: DateTime<Utc>) -> bool {
        let payload = serde_json::json!({"hook_event_name": "UserPromptSubmit", "session_id": "fresh",
            "cwd": self.root(), "prompt": PROMPT});
        let out = self.run(&["--host", host], payload.to_string().as_bytes(), now);
        assert_eq!(out.code, 0, "{}", out.stderr);
        out.stdout.contains(HINT)
    }
    fn index(&self, now: DateTime<Utc>) {
        let root = self.root();
        let out = self.run(
            &["skills", "index", "--root", root.to_str().unwrap()],
            b"",
            now,
        );
        assert_eq!(out.code, 0, "skills index: {}{}", out.stdout, out.stderr);
    }
    /// `explain`'s skill warnings for the invoice prompt (it checks in full).
    fn warnings(&self, host: &str, now: DateTime<Utc>) -> Vec<String> {
        let root = self.root();
        let out = self.run(
            &[
                "explain",
                "--host",
                host,
                "--cwd",
                root.to_str().unwrap(),
                "--prompt",
                PROMPT,
            ],
            b"",
            now,
        );
        assert_eq!(out.code, 0, "explain: {}", out.stderr);
        let v: Value = serde_json::from_str(&out.stdout).unwrap();
        v["skills"]["warnings"]
            .as_array()
            .map(|w| {
                w.iter()
                    .filter_map(|s| s.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default()
    }
}

fn stale(warnings: &[String]) -> bool {
    warnings.iter().any(|w| w.starts_with("skills-index-"))
}

#[test]
fn every_change_of_the_inventory_is_seen_and_the_advice_clears_the_warning() {
    // Past the 2-second settling time of every folder written here, so the first prompt writes
    // its freshness stamp and the next one can take the stamp's quick path.
    let t0 = Utc::now() + chrono::Duration::seconds(10);
    let mut cases = 0;
    for (host, _, _) in common::SKILL_FOLDERS {
        for scope in [Scope::Project, Scope::User] {
            for change in [Change::Add, Change::Remove, Change::Edit] {
                for indexed in [false, true] {
                    let case = format!("{host} {scope:?} {change:?} indexed={indexed}");
                    let w = World::new();
                    w.write_skill(host, Scope::Project, "weather", WEATHER);
                    if change != Change::Add {
                        w.write_skill(host, scope, "invoice", INVOICE);
                    }
                    if indexed {
                        w.index(t0);
                        assert!(!stale(&w.warnings(host, t0)), "{case}: fresh index warns");
                    }
                    assert_eq!(
                        w.names_invoice(host, t0),
                        change != Change::Add,
                        "{case}: before"
                    );
                    match change {
                        Change::Add => w.write_skill(host, scope, "invoice", INVOICE),
                        Change::Remove => {
                            std::fs::remove_dir_all(w.skill_dir(host, scope, "invoice")).unwrap()
                        }
                        Change::Edit => std::fs::write(
                            w.skill_dir(host, scope, "invoice").join("SKILL.md"),
                            EDITED,
                        )
                        .unwrap(),
                    }
                    let t1 =
                        t0 + chrono::Duration::seconds(if change == Change::Edit { 61 } else { 1 });
                    let want = change == Change::Add;
                    assert_eq!(w.names_invoice(host, t1), want, "{case}: the next prompt");
                    if indexed && scope == Scope::User {
                        // The project's index holds the project's skills only (issue 29: the
                        // user's own skills are never compiled into the project): a change of
                        // the user's skills leaves it fresh, and the hook's own copy follows.
                        assert!(
                            !stale(&w.warnings(host, t1)),
                            "{case}: the project's index reported stale for the user's skill"
                        );
                        w.index(t1);
                        assert_eq!(w.names_invoice(host, t1), want, "{case}: after the fix");
                    } else if indexed {
                        // The index predates the change: the tools say so, and their fix clears it.
                        assert!(
                            stale(&w.warnings(host, t1)),
                            "{case}: a stale index is not reported"
                        );
                        w.index(t1);
                        let after = w.warnings(host, t1);
                        assert!(
                            !stale(&after),
                            "{case}: `skills index` did not clear {after:?}"
                        );
                        assert_eq!(w.names_invoice(host, t1), want, "{case}: after the fix");
                    }
                    cases += 1;
                }
            }
        }
    }
    assert_eq!(cases, common::SKILL_FOLDERS.len() * 2 * 3 * 2);
}
