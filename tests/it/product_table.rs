//! The product as a table: every host × install state (none, project, user, both; both with the
//! same command at the two scopes) × command (install, doctor, status, agents sync/check,
//! availability, skills index, report, uninstall) × output mode (text, `--json`, the HTML page,
//! exit code), on the real binary, with a project skill and a user skill in the host's own
//! folder. Each cell asserts what a user sees — the warnings printed and the ones not printed,
//! the exit code, the files left — that the text, JSON and HTML modes agree, and that the fix
//! doctor names for the skill index, when run, clears its warning. The expected values are generated from
//! the per-host facts below, written from `docs/host-protocols.md` (what the real hosts did), not
//! read from the host table under test.
// Tests and benches set up and read their files directly; the door (clippy.toml) is for the crate.
#![allow(clippy::disallowed_methods)]

use crate::common;

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;
use sophia_hook::hosts::Host;

/// What each host does, as observed (`docs/host-protocols.md`).
struct Facts {
    /// A project entry (bare `sophia-hook`) and a user entry (this machine's path) both run.
    both_scopes_double: bool,
    /// ... and the same command at both scopes runs once.
    same_command_once: bool,
    /// The problems `doctor` reports for a fresh install at project scope, as (status, area).
    project: &'static [(&'static str, &'static str)],
    /// The same at user scope.
    user: &'static [(&'static str, &'static str)],
    /// At any scope, once installed.
    always: &'static [(&'static str, &'static str)],
    /// Writes runtime agent definitions (`agents sync`).
    agents: bool,
}

fn facts(host: Host) -> Facts {
    match host {
        // Folder trust and handler trust (`/hooks`), per scope; both scopes run.
        Host::Codex => Facts {
            both_scopes_double: true,
            same_command_once: false,
            project: &[
                ("fail", "codex project trust"),
                ("warn", "codex project trust"),
            ],
            user: &[("warn", "codex user trust")],
            always: &[],
            agents: true,
        },
        // No trust step; both scopes run unless the commands are the same.
        Host::Claude => Facts {
            both_scopes_double: true,
            same_command_once: true,
            project: &[],
            user: &[],
            always: &[],
            agents: true,
        },
        // Folder trust at project scope; of two entries one reaches the model.
        Host::Gemini => Facts {
            both_scopes_double: false,
            same_command_once: true,
            project: &[("warn", "gemini project trust")],
            user: &[],
            always: &[],
            agents: true,
        },
        // Folder trust at project scope; both scopes run.
        Host::Copilot => Facts {
            both_scopes_double: true,
            same_command_once: false,
            project: &[("warn", "copilot project trust")],
            user: &[],
            always: &[],
            agents: true,
        },
        // Experimental everywhere.
        Host::Antigravity => Facts {
            both_scopes_double: false,
            same_command_once: true,
            project: &[],
            user: &[],
            always: &[("warn", "antigravity")],
            agents: false,
        },
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    None,
    Project,
    User,
    Both,
    /// Both scopes naming the same command (`--binary sophia-hook` at user scope too).
    BothSameCommand,
}

const STATES: [State; 5] = [
    State::None,
    State::Project,
    State::User,
    State::Both,
    State::BothSameCommand,
];

impl State {
    fn scopes(self) -> Vec<&'static str> {
        match self {
            State::None => vec![],
            State::Project => vec!["project"],
            State::User => vec!["user"],
            State::Both | State::BothSameCommand => vec!["project", "user"],
        }
    }
}

struct Machine {
    _dir: tempfile::TempDir,
    home: PathBuf,
    project: PathBuf,
    state: PathBuf,
}

impl Machine {
    fn new() -> Machine {
        let (dir, home, project) = common::home_and_project();
        let state = dir.path().join("state");
        write_skill(&project.join("skills/zz-weather-radar"), WEATHER);
        Machine {
            _dir: dir,
            home,
            project,
            state,
        }
    }

    fn run(&self, args: &[&str]) -> common::Run {
        let state = self.state.to_str().unwrap().to_owned();
        common::run_binary_in(
            args,
            b"",
            &self.home,
            &self.project,
            &[("XDG_STATE_HOME", &state), ("SOPHIA_ANALYTICS", "off")],
        )
    }

    /// Every file under the home and the project (`.git` aside), with its bytes.
    fn files(&self) -> BTreeMap<String, Vec<u8>> {
        fn walk(dir: &Path, base: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
            for entry in fs::read_dir(dir).unwrap() {
                let path = entry.unwrap().path();
                if path.file_name().is_some_and(|n| n == ".git") {
                    continue;
                }
                if path.is_dir() {
                    walk(&path, base, out);
                    // An empty folder left behind counts as a file left behind.
                    if fs::read_dir(&path).unwrap().next().is_none() {
                        out.insert(
                            format!("{}/", path.strip_prefix(base).unwrap().to_string_lossy()),
                            Vec::new(),
                        );
                    }
                } else {
                    out.insert(
                        path.strip_prefix(base)
                            .unwrap()
                            .to_string_lossy()
                            .to_string(),
                        fs::read(&path).unwrap(),
                    );
                }
            }
        }
        let mut out = BTreeMap::new();
        walk(&self.home, self.home.parent().unwrap(), &mut out);
        walk(&self.project, self.project.parent().unwrap(), &mut out);
        out
    }
}

/// Every host sees `<root>/skills/`; the cell adds one skill in the host's own user folder.
const WEATHER: &str = "---\nname: zz-weather-radar\ndescription: Render weather radar maps and storm forecasts.\n---\n# Radar\n";
const LEDGER: &str = "---\nname: zz-ledger-tool\ndescription: Extract totals and line items from supplier invoices.\n---\n# Ledger\n";

fn write_skill(dir: &Path, text: &str) {
    fs::create_dir_all(dir).unwrap();
    fs::write(dir.join("SKILL.md"), text).unwrap();
}

/// The `doctor --json` check of `area`.
fn check<'a>(doctor: &'a Value, area: &str) -> &'a Value {
    doctor["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["area"] == area)
        .unwrap_or_else(|| panic!("no {area} check in {doctor}"))
}

fn unescape(html: &str) -> String {
    html.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

/// The report's Setup row of `host`: (the badge and text of "installed (scope)", the status
/// badge, the problems as (badge, text) with their fixes cut off, sorted).
fn setup_row(html: &str, host: &str) -> (String, String, String, Vec<(String, String)>) {
    let start = format!("<tr><th scope=\"row\">{host}</th>");
    let at = html
        .find(&start)
        .unwrap_or_else(|| panic!("no Setup row for {host}"));
    let row = &html[at + start.len()..];
    let row = &row[..row.find("</tr>").unwrap()];
    let cells: Vec<&str> = row
        .split("<td>")
        .skip(1)
        .map(|c| c.trim_end_matches("</td>"))
        .collect();
    assert_eq!(cells.len(), 4, "{host}: {row}");
    let badge = |cell: &str| -> (String, String) {
        let rest = cell
            .strip_prefix("<span class=\"badge ")
            .unwrap_or_else(|| panic!("{host}: no badge in {cell:?}"));
        let (level, rest) = rest.split_once('"').unwrap();
        let text = &rest[rest.find("</span>").unwrap() + "</span>".len()..];
        (level.to_owned(), unescape(text.trim()))
    };
    let (installed_level, installed) = badge(cells[0]);
    let (status, _) = badge(cells[2]);
    let problems = cells[3]
        .split("<li>")
        .skip(1)
        .map(|li| {
            let li = li.trim_end_matches("</ul>").trim_end_matches("</li>");
            let li = li.split(" <span class=\"fix\">").next().unwrap();
            badge(li)
        })
        .collect::<Vec<_>>();
    let mut problems = problems;
    problems.sort();
    (installed_level, installed, status, problems)
}

/// The report's "Every host" row of `area`: its badge.
fn general_badge(html: &str, area: &str) -> String {
    let start = format!("<tr><th scope=\"row\">{area}</th><td><span class=\"badge ");
    let at = html
        .find(&start)
        .unwrap_or_else(|| panic!("no {area} row in the report"));
    let rest = &html[at + start.len()..];
    rest[..rest.find('"').unwrap()].to_owned()
}

/// The (status, area) of every check `doctor --json` reports as a warning or a failure.
fn problems(doctor: &Value) -> BTreeSet<(String, String)> {
    doctor["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["status"] == "warn" || c["status"] == "fail")
        .map(|c| {
            (
                c["status"].as_str().unwrap().to_owned(),
                c["area"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

/// Doctor's text mode agrees with its JSON: the same exit code, `ok` exactly when it exits 0,
/// every check a line of the text table with the same status, and the same totals.
fn doctor_modes_agree(cell: &str, text: &common::Run, json: &common::Run) -> Value {
    assert_eq!(
        text.code, json.code,
        "{cell}: text and --json exit codes differ"
    );
    let doc: Value = serde_json::from_str(&json.stdout)
        .unwrap_or_else(|e| panic!("{cell}: {e}: {}", json.stdout));
    assert_eq!(
        doc["ok"],
        Value::Bool(json.code == 0),
        "{cell}: `ok` and the exit code disagree"
    );
    let checks = doc["checks"].as_array().unwrap();
    for c in checks {
        let (status, area, detail) = (
            c["status"].as_str().unwrap(),
            c["area"].as_str().unwrap(),
            c["detail"].as_str().unwrap(),
        );
        let label = if status == "fail" { "FAIL" } else { status };
        let first = detail.lines().next().unwrap_or_default();
        let line = text
            .stdout
            .lines()
            .find(|l| l.starts_with(label) && l.contains(area) && l.contains(first))
            .unwrap_or_else(|| {
                panic!(
                    "{cell}: {status} {area} {first:?} is in --json but not in the text:\n{}",
                    text.stdout
                )
            });
        assert!(!line.is_empty());
    }
    let count = |s: &str| checks.iter().filter(|c| c["status"] == s).count();
    let totals = format!("{} problem(s), {} warning(s)", count("fail"), count("warn"));
    assert!(
        text.stdout.contains(&totals),
        "{cell}: text totals are not {totals}:\n{}",
        text.stdout
    );
    doc
}

/// Every folder under `dir` (`.git` aside).
fn dirs_under(dir: &Path) -> BTreeSet<PathBuf> {
    let mut out = BTreeSet::new();
    for entry in fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.file_name().is_some_and(|n| n == ".git") {
            continue;
        }
        if fs::symlink_metadata(&path).is_ok_and(|m| m.is_dir()) {
            out.extend(dirs_under(&path));
            out.insert(path);
        }
    }
    out
}

#[test]
fn every_host_and_install_state_reads_the_same_in_text_and_json() {
    for host in Host::ALL {
        let f = facts(host);
        let h = host.as_str();
        for state in STATES {
            let cell = format!("{h} {state:?}");
            let m = Machine::new();
            let (_, _, user_folder) = common::SKILL_FOLDERS
                .iter()
                .find(|(name, _, _)| *name == h)
                .unwrap();
            write_skill(&m.home.join(user_folder).join("zz-ledger-tool"), LEDGER);
            let skills_area = format!("skills ({h})");
            let before = m.files();
            let mut install_out = String::new();
            for scope in state.scopes() {
                let mut args = vec!["install", "--host", h, "--scope", scope];
                if state == State::BothSameCommand && scope == "user" {
                    args.extend(["--binary", "sophia-hook"]);
                }
                let run = m.run(&args);
                assert_eq!(
                    run.code, 0,
                    "{cell}: install --scope {scope}: {}",
                    run.stderr
                );
                install_out.push_str(&run.stdout);
                install_out.push_str(&run.stderr);
            }
            // The double-install warning: exactly where the host would run our hooks twice.
            let doubled = match state {
                State::Both => f.both_scopes_double,
                State::BothSameCommand => f.both_scopes_double && !f.same_command_once,
                _ => false,
            };
            assert_eq!(
                install_out.contains("injected twice"),
                doubled,
                "{cell}: install said:\n{install_out}"
            );

            // doctor: the problems the facts predict, no more, in both modes.
            let text = m.run(&["doctor", "--host", h]);
            let json = m.run(&["doctor", "--host", h, "--json"]);
            let doc = doctor_modes_agree(&cell, &text, &json);
            let mut want: BTreeSet<(String, String)> = BTreeSet::new();
            if state == State::None {
                // Asked about one host that is not installed: that is the failure.
                want.insert(("fail".into(), h.into()));
            }
            let mut add = |list: &[(&str, &str)]| {
                want.extend(list.iter().map(|(s, a)| (s.to_string(), a.to_string())))
            };
            if state.scopes().contains(&"project") {
                add(f.project);
            }
            if state.scopes().contains(&"user") {
                add(f.user);
            }
            if state != State::None {
                add(f.always);
            }
            if doubled {
                want.insert(("fail".into(), format!("{h} scopes")));
            }
            // Two skills and no compiled index yet: doctor says so whatever is installed.
            let mut with_index = want.clone();
            want.insert(("warn".into(), skills_area.clone()));
            assert_eq!(problems(&doc), want, "{cell}: doctor:\n{}", text.stdout);
            let fails = want.iter().any(|(s, _)| s == "fail");
            assert_eq!(text.code, i32::from(fails), "{cell}: doctor exit code");
            let skills = check(&doc, &skills_area);
            assert!(
                skills["detail"]
                    .as_str()
                    .unwrap()
                    .contains("skills-index-missing"),
                "{cell}: {skills}"
            );

            // report: the page's Setup row says what doctor says, the commands it runs aside.
            report_agrees_with_doctor(&cell, &m, h, state, &doc);

            // skills index, run as doctor's fix names it: one project index per host with skills,
            // holding the project's skill only (issue 29: the user's own skill is never compiled
            // into the project), and for this host, whose folder holds the user's skill, this
            // machine's copy under the home counting both; then doctor, in both modes, and the
            // report call it fresh with the fingerprint the command printed for that copy.
            let fix = skills["fix"].as_str().unwrap();
            let words: Vec<&str> = fix.split_whitespace().collect();
            assert_eq!(words[0], "sophia-hook", "{cell}: fix {fix:?}");
            let ahead = m.files();
            let dirs_ahead = dirs_under(m.project.parent().unwrap());
            let run = m.run(&words[1..]);
            assert_eq!(run.code, 0, "{cell}: {fix}: {}", run.stderr);
            let mut written: BTreeMap<String, Vec<(String, String)>> = BTreeMap::new();
            for line in run.stdout.lines().filter(|l| !l.starts_with("note: ")) {
                let (host_name, rest) = line
                    .split_once(": wrote ")
                    .unwrap_or_else(|| panic!("{cell}: {fix} printed {line:?}"));
                let (path, figures) = rest.split_once(" (").unwrap();
                written
                    .entry(host_name.to_owned())
                    .or_default()
                    .push((path.to_owned(), figures.to_owned()));
            }
            let hosts: BTreeSet<&str> = written.keys().map(String::as_str).collect();
            let all: BTreeSet<&str> = Host::ALL.iter().map(|h| h.as_str()).collect();
            assert_eq!(hosts, all, "{cell}: {fix}:\n{}", run.stdout);
            let ours = &written[h];
            let in_project = |p: &str| Path::new(p).starts_with(&m.project);
            let project_index: Vec<_> = ours.iter().filter(|(p, _)| in_project(p)).collect();
            let machine: Vec<_> = ours.iter().filter(|(p, _)| !in_project(p)).collect();
            assert_eq!(
                (project_index.len(), machine.len()),
                (1, 1),
                "{cell}: {fix}:\n{}",
                run.stdout
            );
            assert!(
                project_index[0]
                    .1
                    .starts_with("1 skills, 0 skipped, fingerprint "),
                "{cell}: the project's index holds only the project's skill: {:?}",
                project_index[0]
            );
            let index_text = fs::read_to_string(&project_index[0].0).unwrap();
            assert!(
                !index_text.contains("user:"),
                "{cell}: the user's skill was compiled into the project's index"
            );
            let (index_path, figures) = machine[0];
            assert!(
                figures.starts_with("2 skills, 0 skipped, fingerprint "),
                "{cell}: {figures}"
            );
            let fingerprint = figures
                .trim_end_matches(')')
                .rsplit(' ')
                .next()
                .unwrap()
                .to_owned();
            let made: Vec<String> = m
                .files()
                .into_keys()
                .filter(|k| !ahead.contains_key(k))
                .collect();
            let printed: BTreeSet<String> = written
                .values()
                .flatten()
                .map(|(p, _)| {
                    Path::new(p)
                        .strip_prefix(m.project.parent().unwrap())
                        .unwrap()
                        .to_string_lossy()
                        .to_string()
                })
                .collect();
            for k in &made {
                assert!(
                    printed.contains(k) || k.ends_with(".sophia/.gitignore"),
                    "{cell}: {fix} wrote {k}, which it did not print"
                );
            }
            assert!(
                Path::new(index_path).is_file(),
                "{cell}: {index_path} not written"
            );
            let text = m.run(&["doctor", "--host", h]);
            let json = m.run(&["doctor", "--host", h, "--json"]);
            let doc = doctor_modes_agree(&cell, &text, &json);
            assert_eq!(
                problems(&doc),
                with_index,
                "{cell}: doctor after {fix}:\n{}",
                text.stdout
            );
            let detail = check(&doc, &skills_area)["detail"]
                .as_str()
                .unwrap()
                .to_owned();
            assert!(
                detail.starts_with("2 skills")
                    && detail.contains(&format!("index fresh ({fingerprint})")),
                "{cell}: after {fix}: {detail}"
            );
            report_agrees_with_doctor(&cell, &m, h, state, &doc);
            with_index.clear();
            for k in made.iter().rev() {
                fs::remove_file(m.project.parent().unwrap().join(k)).unwrap();
            }
            // The folders the copy was written in, if `skills index` made them.
            let mut made_dirs: Vec<PathBuf> = dirs_under(m.project.parent().unwrap())
                .into_iter()
                .filter(|d| !dirs_ahead.contains(d))
                .collect();
            made_dirs.sort_by_key(|d| std::cmp::Reverse(d.components().count()));
            for d in made_dirs {
                let _ = fs::remove_dir(d);
            }
            let sophia = m.project.join(".sophia");
            if sophia.is_dir() && fs::read_dir(&sophia).unwrap().next().is_none() {
                fs::remove_dir(&sophia).unwrap();
            }

            // status: where it is registered, in both modes.
            let text = m.run(&["status"]);
            let json = m.run(&["status", "--json"]);
            assert_eq!((text.code, json.code), (0, 0), "{cell}: status");
            let doc: Value = serde_json::from_str(&json.stdout).unwrap();
            let entry = doc["hosts"]
                .as_array()
                .unwrap()
                .iter()
                .find(|e| e["host"] == h)
                .unwrap();
            let scopes: Vec<&str> = entry["registered"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r["scope"].as_str().unwrap())
                .collect();
            assert_eq!(scopes, state.scopes(), "{cell}: status --json");
            let line = text
                .stdout
                .lines()
                .find(|l| l.starts_with(&format!("{h}:")))
                .unwrap();
            for scope in ["project", "user"] {
                assert_eq!(
                    line.contains(&format!("{scope} scope")),
                    state.scopes().contains(&scope),
                    "{cell}: status line {line:?}"
                );
            }
            assert_eq!(
                line.contains("not registered"),
                state == State::None,
                "{cell}: {line:?}"
            );
            for other in Host::ALL.iter().filter(|o| **o != host) {
                let e = doc["hosts"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|e| e["host"] == other.as_str())
                    .unwrap();
                assert_eq!(
                    e["registered"],
                    serde_json::json!([]),
                    "{cell}: {other:?} registered too"
                );
            }

            // agents check: what install synced is up to date in both modes, one file gone is not.
            if f.agents {
                for scope in state.scopes() {
                    let args = ["agents", "check", "--host", h, "--scope", scope];
                    let text = m.run(&args);
                    let json = m.run(&[&args[..], &["--json"]].concat());
                    assert_eq!(
                        (text.code, json.code),
                        (0, 0),
                        "{cell} agents check {scope}: {}{}",
                        text.stdout,
                        text.stderr
                    );
                    let doc: Value = serde_json::from_str(&json.stdout).unwrap();
                    assert_eq!(doc["ok"], true, "{cell}");
                    let gone = doc["files"][0]["path"].as_str().unwrap().to_owned();
                    fs::remove_file(&gone).unwrap();
                    let text = m.run(&args);
                    let json = m.run(&[&args[..], &["--json"]].concat());
                    assert_eq!(
                        (text.code, json.code),
                        (1, 1),
                        "{cell} agents check {scope} after removing {gone}"
                    );
                    let doc: Value = serde_json::from_str(&json.stdout).unwrap();
                    assert_eq!(doc["ok"], false, "{cell}");
                    assert!(
                        text.stdout.contains(&gone) && json.stdout.contains(&gone),
                        "{cell}: {gone} not named"
                    );
                    let sync = m.run(&["agents", "sync", "--host", h, "--scope", scope]);
                    assert_eq!(sync.code, 0, "{cell}: {}", sync.stderr);
                    assert_eq!(m.run(&args).code, 0, "{cell}: sync did not clear the check");
                }
            }

            // availability: text and JSON agree on each role's state for this host.
            let text = m.run(&["availability"]);
            let json = m.run(&["availability", "--json"]);
            assert_eq!((text.code, json.code), (0, 0), "{cell}: availability");
            if f.agents {
                let doc: Value = serde_json::from_str(&json.stdout).unwrap();
                for (role, value) in doc["agents"].as_object().unwrap() {
                    let state_here = value["hosts"][h].as_str().unwrap();
                    let want = if state.scopes().is_empty() {
                        "unknown"
                    } else {
                        "configured"
                    };
                    assert_eq!(state_here, want, "{cell}: availability of {role}");
                    let line = text
                        .stdout
                        .lines()
                        .find(|l| l.starts_with(role.as_str()))
                        .unwrap();
                    assert!(
                        line.split_whitespace().any(|w| w == state_here),
                        "{cell}: {line:?}"
                    );
                }
            }

            // uninstall every scope: nothing of ours is left, the rest as it was.
            for scope in state.scopes() {
                let run = m.run(&["uninstall", "--host", h, "--scope", scope]);
                assert_eq!(
                    run.code, 0,
                    "{cell}: uninstall --scope {scope}: {}",
                    run.stderr
                );
            }
            let after = m.files();
            let added: Vec<&String> = after.keys().filter(|k| !before.contains_key(*k)).collect();
            assert!(added.is_empty(), "{cell}: left after uninstall: {added:?}");
            assert_eq!(
                after, before,
                "{cell}: files changed after install and uninstall"
            );
        }
    }
}

/// `report --host HOST` (its default page, outside the home and the project): the path printed
/// is the page, and its Setup row for the host agrees with `doctor --json` — the scopes
/// installed, every warning and failure of the host's own checks with its text, the worst of
/// them as the status — and so does the "Every host" row of the host's skills. The page runs no
/// command, so doctor's checks that run the registered commands are not in it (they pass here).
fn report_agrees_with_doctor(cell: &str, m: &Machine, h: &str, state: State, doctor: &Value) {
    let run = m.run(&["report", "--host", h]);
    assert_eq!(run.code, 0, "{cell}: report: {}", run.stderr);
    let page = PathBuf::from(run.stdout.trim());
    assert!(
        page.starts_with(&m.state),
        "{cell}: report wrote {page:?}, not in the state folder"
    );
    let html = fs::read_to_string(&page).unwrap();
    let (installed_level, installed, status, problems) = setup_row(&html, h);
    let checks = doctor["checks"].as_array().unwrap();
    let own = |c: &&Value| {
        let area = c["area"].as_str().unwrap();
        area == h || area.starts_with(&format!("{h} "))
    };
    // A list, not a set: Codex's two scopes each have their own "not trusted yet" lines.
    let mut want: Vec<(String, String)> = checks
        .iter()
        .filter(own)
        .filter(|c| c["status"] == "warn" || c["status"] == "fail")
        .filter(|c| !c["area"].as_str().unwrap().ends_with(" run"))
        .map(|c| {
            (
                c["status"].as_str().unwrap().to_owned(),
                c["detail"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    want.sort();
    assert_eq!(problems, want, "{cell}: the report's problems for {h}");
    let worst = if want.iter().any(|(s, _)| s == "fail") {
        "fail"
    } else if want.is_empty() {
        "ok"
    } else {
        "warn"
    };
    assert_eq!(status, worst, "{cell}: the report's status for {h}");
    if state == State::None {
        // The badge itself says "no", with no scope after it.
        assert!(
            html.contains(&format!(
                "<tr><th scope=\"row\">{h}</th><td><span class=\"badge info\">no</span></td>"
            )),
            "{cell}: the report's installed cell"
        );
        assert_eq!(
            (installed_level.as_str(), installed.as_str()),
            ("info", ""),
            "{cell}: the report's installed cell"
        );
    } else {
        assert_eq!(
            (installed_level.as_str(), installed),
            ("ok", state.scopes().join(", ")),
            "{cell}: the report's installed cell"
        );
    }
    let skills = format!("skills ({h})");
    assert_eq!(
        general_badge(&html, &skills),
        check(doctor, &skills)["status"].as_str().unwrap(),
        "{cell}: the report's {skills} row"
    );
    fs::remove_file(&page).unwrap();
}
