//! `install` / `uninstall` as round-trip properties over generated host settings files
//! (docs/hosts.md): user groups, user handlers sharing a group with one of ours, other events,
//! odd entries and odd numbers.
//!
//! The rules, from the spec:
//! - installing merges: every other key, hook and setting is kept; running it twice changes
//!   nothing;
//! - uninstall removes only our handlers (a command line exactly one `install` writes, with any
//!   path to a binary named `sophia-hook`) and the groups, event lists and `hooks` object that
//!   this leaves empty; a file that held nothing else is removed; "the result has the meaning of
//!   the file before `install`": install then uninstall gives back the same JSON value;
//! - a user's handler is never lost, even in a group that also holds one of ours.
//!
//! Planted bug this catches: uninstall dropping the whole group that holds one of our handlers,
//! and with it the user's own handler in that group.
// Tests and benches set up and read their files directly; the door (clippy.toml) is for the crate.
#![allow(clippy::disallowed_methods)]

use crate::common;

use proptest::prelude::*;
use serde_json::{Map, Value, json};

use sophia_hook::hosts::Host;
use sophia_hook::install::{self, events, handler};

const BINARY: &str = "/opt/bin/sophia-hook";
/// Paths an earlier install may have written: still ours.
const OUR_PATHS: &[&str] = &[
    BINARY,
    "/old/place/sophia-hook",
    "/Users/me/.cargo/bin/sophia-hook",
];

/// The `--binary` the real-binary round trips install: `install` requires an absolute path, and
/// on Windows `/opt/bin/...` is not one (it has no drive).
const CLI_BINARY: &str = if cfg!(windows) {
    r"C:\opt\bin\sophia-hook.exe"
} else {
    BINARY
};

const HOSTS: [Host; 3] = [Host::Codex, Host::Claude, Host::Gemini];

fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        failure_persistence: None,
        rng_seed: proptest::test_runner::RngSeed::Fixed(20),
        ..ProptestConfig::default()
    }
}

/// Handlers that are the user's, per the spec: not exactly our command line.
fn user_handler() -> impl Strategy<Value = Value> {
    prop_oneof![
        prop::sample::select(
            &[
                "echo hi",
                "sophia-hook-notify.sh",
                "/usr/local/bin/sophia-hook-notify --host codex",
                "/opt/bin/sophia-hook --host codex --event SessionStart --debug",
                "/opt/bin/sophia-hook --host gemini --event BeforeAgent && say done",
                "python3 .claude/check.py",
                "sophia-hooks --host claude --event UserPromptSubmit",
            ][..]
        )
        .prop_flat_map(|cmd| (Just(cmd), prop::option::of(odd_number()), any::<bool>()))
        .prop_map(|(cmd, timeout, named)| {
            let mut h = json!({"type": "command", "command": cmd});
            if let Some(t) = timeout {
                h["timeout"] = t;
            }
            if named {
                // Gemini's hook name of ours, borrowed: still the user's handler.
                h["name"] = Value::from("sophia-hook-session-start");
            }
            h
        }),
        // Claude's exec form with other arguments: the user's.
        Just(
            json!({"type": "command", "command": "/opt/bin/sophia-hook", "args": ["--host", "claude"]})
        ),
        Just(
            json!({"type": "command", "command": "/opt/bin/sophia-hook", "args": ["--host", "claude", "--event", "Stop"]})
        ),
    ]
}

fn odd_number() -> impl Strategy<Value = Value> {
    prop::sample::select(vec![
        json!(0),
        json!(-0.0),
        json!(5),
        json!(u64::MAX),
        json!(i64::MIN),
        json!(1.5e300),
        json!(1e-7),
        json!(0.1),
    ])
}

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        odd_number(),
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        prop::sample::select(&["", "dark", "è🙂", "a\"b\\c", "\u{2028}"][..]).prop_map(Value::from),
        Just(json!({"nested": [1, {"x": null}], "sophia-hook": "a user's value"})),
    ]
}

/// A group of user handlers: (matcher, handlers, extra key).
fn group() -> impl Strategy<Value = Value> {
    prop_oneof![
        8 => (
            prop::option::of(prop::sample::select(&["", "*", "startup", "Bash", "ExitPlanMode", "startup|resume|clear|compact"][..])),
            prop::collection::vec(user_handler(), 1..4),
            prop::option::of(leaf()),
        )
            .prop_map(|(matcher, handlers, extra)| {
                let mut g = Map::new();
                if let Some(m) = matcher {
                    g.insert("matcher".into(), Value::from(m));
                }
                g.insert("hooks".into(), Value::Array(handlers));
                if let Some(e) = extra {
                    g.insert("note".into(), e);
                }
                Value::Object(g)
            }),
        // Odd entries a host would ignore: kept as they are.
        1 => prop::sample::select(vec![json!({"matcher": "x"}), json!({"hooks": []}), json!(7), json!("text")]),
    ]
}

/// A user's settings document for `host`: other keys, and a `hooks` object whose event lists
/// (ours and others) are non-empty.
fn user_doc(host: Host) -> impl Strategy<Value = Value> {
    let mut names: Vec<&'static str> = events(host).iter().map(|e| host.event_name(*e)).collect();
    names.extend(["PreToolUse", "Stop", "Notification", "AfterAgent"]);
    (
        prop::collection::vec(
            (
                prop::sample::select(
                    &["model", "theme", "$schema", "env", "numbers", "hooksConfig"][..],
                ),
                leaf(),
            ),
            0..4,
        ),
        prop::option::of(prop::collection::vec(
            (
                prop::sample::select(names),
                prop::collection::vec(group(), 1..4),
            ),
            1..5,
        )),
    )
        .prop_map(|(keys, hooks)| {
            let mut root = Map::new();
            for (k, v) in keys {
                root.insert(k.to_owned(), v);
            }
            if let Some(events) = hooks {
                let mut h = Map::new();
                for (name, groups) in events {
                    h.insert(name.to_owned(), Value::Array(groups));
                }
                root.insert("hooks".into(), Value::Object(h));
            }
            Value::Object(root)
        })
}

/// Puts our handlers into `doc`: each (event index, group position, handler position, path
/// index, own group?) places one handler for one of our events, inside a user group of that
/// event when there is one (shared) or in a group of its own.
fn with_ours(host: Host, mut doc: Value, places: &[(usize, usize, usize, usize, bool)]) -> Value {
    let evs = events(host);
    for &(e, g, h, p, own) in places {
        let event = evs[e % evs.len()];
        let name = host.event_name(event);
        let ours = handler(OUR_PATHS[p % OUR_PATHS.len()], host, event);
        let root = doc.as_object_mut().unwrap();
        let hooks = root.entry("hooks").or_insert_with(|| json!({}));
        let groups = hooks
            .as_object_mut()
            .unwrap()
            .entry(name)
            .or_insert_with(|| json!([]));
        let groups = groups.as_array_mut().unwrap();
        let shared: Vec<usize> = groups
            .iter()
            .enumerate()
            .filter(|(_, g)| g.get("hooks").is_some_and(Value::is_array))
            .map(|(i, _)| i)
            .collect();
        if own || shared.is_empty() {
            let at = g % (groups.len() + 1);
            groups.insert(at, json!({"hooks": [ours]}));
        } else {
            let handlers = groups[shared[g % shared.len()]]["hooks"]
                .as_array_mut()
                .unwrap();
            let at = h % (handlers.len() + 1);
            handlers.insert(at, ours);
        }
    }
    doc
}

/// Our handler, by the spec: exactly what `install` writes for one of our events, any path.
fn spec_is_ours(host: Host, h: &Value) -> bool {
    events(host)
        .iter()
        .any(|e| OUR_PATHS.iter().any(|p| *h == handler(p, host, *e)))
}

/// The spec's uninstall: our handlers out, then the groups, event lists and `hooks` object that
/// this leaves empty; `None` when nothing else is left.
fn spec_uninstall(host: Host, doc: &Value) -> Option<Value> {
    let mut doc = doc.clone();
    let root = doc.as_object_mut().unwrap();
    if let Some(hooks) = root.get_mut("hooks").and_then(Value::as_object_mut) {
        let mut emptied_events = Vec::new();
        for (name, groups) in hooks.iter_mut() {
            let Some(groups) = groups.as_array_mut() else {
                continue;
            };
            let before = groups.len();
            let mut removed_group = false;
            groups.retain_mut(|g| {
                let Some(handlers) = g.get_mut("hooks").and_then(Value::as_array_mut) else {
                    return true;
                };
                let n = handlers.len();
                handlers.retain(|h| !spec_is_ours(host, h));
                let emptied = handlers.len() != n && handlers.is_empty();
                removed_group |= emptied;
                !emptied
            });
            if removed_group && groups.is_empty() && before > 0 {
                emptied_events.push(name.clone());
            }
        }
        let any = !emptied_events.is_empty();
        for name in emptied_events {
            hooks.shift_remove(&name);
        }
        if any && hooks.is_empty() {
            root.shift_remove("hooks");
        }
    }
    (!root.is_empty()).then_some(doc)
}

/// Every user handler of `doc`, with the event and the group's matcher it sits under, in order.
fn user_handlers(host: Host, doc: &Value) -> Vec<(String, Option<Value>, Value)> {
    let mut out = Vec::new();
    if let Some(hooks) = doc.get("hooks").and_then(Value::as_object) {
        for (name, groups) in hooks {
            for g in groups.as_array().into_iter().flatten() {
                for h in g
                    .get("hooks")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    if !spec_is_ours(host, h) {
                        out.push((name.clone(), g.get("matcher").cloned(), h.clone()));
                    }
                }
            }
        }
    }
    out
}

fn places() -> impl Strategy<Value = Vec<(usize, usize, usize, usize, bool)>> {
    prop::collection::vec(
        (0..3usize, 0..8usize, 0..8usize, 0..3usize, any::<bool>()),
        0..5,
    )
}

fn host_and_doc() -> impl Strategy<Value = (Host, Value)> {
    prop::sample::select(HOSTS.to_vec()).prop_flat_map(|h| (Just(h), user_doc(h)))
}

proptest! {
    #![proptest_config(config(256))]

    /// A user's file without our handlers: install then uninstall gives it back exactly.
    #[test]
    fn install_then_uninstall_gives_back_the_users_file((host, doc) in host_and_doc()) {
        let installed = install::install(doc.clone(), host, BINARY).unwrap();
        let back = install::uninstall(installed, host).unwrap();
        let want = (!doc.as_object().unwrap().is_empty()).then(|| doc.clone());
        prop_assert_eq!(back, want);
    }

    /// Install twice changes nothing, whatever the file holds, ours included anywhere.
    #[test]
    fn install_twice_changes_nothing((host, doc) in host_and_doc(), places in places()) {
        let doc = with_ours(host, doc, &places);
        let once = install::install(doc, host, BINARY).unwrap();
        let twice = install::install(once.clone(), host, BINARY).unwrap();
        prop_assert_eq!(&twice, &once);
        // Exactly one handler of ours per event, and every user handler kept.
        for e in events(host) {
            let name = host.event_name(*e);
            let count = once["hooks"][name]
                .as_array()
                .unwrap()
                .iter()
                .flat_map(|g| g["hooks"].as_array().cloned().unwrap_or_default())
                .filter(|h| spec_is_ours(host, h))
                .count();
            prop_assert_eq!(count, 1, "{}", name);
        }
    }

    /// Our handlers anywhere, also inside a user's group: uninstall removes exactly them (and
    /// what that leaves empty) and keeps every user handler in its group and order; the same
    /// after an install over that file.
    #[test]
    fn uninstall_keeps_every_user_handler((host, doc) in host_and_doc(), places in places()) {
        let doc = with_ours(host, doc, &places);
        let users = user_handlers(host, &doc);
        let want = spec_uninstall(host, &doc);
        let got = install::uninstall(doc.clone(), host).unwrap();
        prop_assert_eq!(&got, &want);
        let after = got.unwrap_or(Value::Object(Map::new()));
        prop_assert_eq!(user_handlers(host, &after), users.clone());
        let reinstalled = install::install(doc, host, BINARY).unwrap();
        let again = install::uninstall(reinstalled, host).unwrap().unwrap_or(Value::Object(Map::new()));
        prop_assert_eq!(user_handlers(host, &again), users);
    }

    /// Antigravity keeps its hooks under our own top-level key: the rest of any file survives
    /// install then uninstall, and install twice changes nothing.
    #[test]
    fn antigravity_round_trip(keys in prop::collection::vec((prop::sample::select(&["other-hook", "model", "x"][..]), leaf()), 0..4)) {
        let mut root = Map::new();
        for (k, v) in keys {
            root.insert(k.to_owned(), v);
        }
        let doc = Value::Object(root);
        let once = install::install(doc.clone(), Host::Antigravity, BINARY).unwrap();
        prop_assert_eq!(install::install(once.clone(), Host::Antigravity, BINARY).unwrap(), once.clone());
        let back = install::uninstall(once, Host::Antigravity).unwrap();
        prop_assert_eq!(back, (!doc.as_object().unwrap().is_empty()).then_some(doc));
    }
}

/// Settings shapes with empty containers: no `hooks`, `"hooks": {}`, and event lists that are
/// `[]` — for our events and for others — beside user groups, with other keys before and after.
fn doc_with_empty_containers(host: Host) -> impl Strategy<Value = Value> {
    let mut names: Vec<&'static str> = events(host).iter().map(|e| host.event_name(*e)).collect();
    names.extend(["PreToolUse", "Stop"]);
    (
        prop::option::of(leaf()),
        prop::option::of(prop::collection::vec(
            (
                prop::sample::select(names),
                prop::collection::vec(group(), 0..2),
            ),
            0..4,
        )),
        prop::option::of(leaf()),
    )
        .prop_map(|(before, hooks, after)| {
            let mut root = Map::new();
            if let Some(v) = before {
                root.insert("model".into(), v);
            }
            if let Some(events) = hooks {
                let mut h = Map::new();
                for (name, groups) in events {
                    h.insert(name.to_owned(), Value::Array(groups));
                }
                root.insert("hooks".into(), Value::Object(h));
            }
            if let Some(v) = after {
                root.insert("theme".into(), v);
            }
            Value::Object(root)
        })
}

proptest! {
    #![proptest_config(config(512))]

    /// Install then uninstall gives back the user's file when it holds empty containers too
    /// (`"hooks": {}`, `"UserPromptSubmit": []`): uninstall is told the file before
    /// sophia-hook's first change (the backup `original.json`) and keeps the empty containers
    /// it held; without it, what install created goes.
    #[test]
    fn install_then_uninstall_keeps_the_users_empty_containers(
        (host, doc) in prop::sample::select(HOSTS.to_vec()).prop_flat_map(|h| (Just(h), doc_with_empty_containers(h)))
    ) {
        let installed = install::install(doc.clone(), host, BINARY).unwrap();
        let back = install::uninstall_over(installed.clone(), host, Some(&doc)).unwrap();
        let want = (!doc.as_object().unwrap().is_empty()).then(|| doc.clone());
        prop_assert_eq!(&back, &want);
        // The members keep their order too.
        let keys = |v: &Option<Value>| v.as_ref().map(|v| {
            let mut k: Vec<String> = v.as_object().unwrap().keys().cloned().collect();
            if let Some(h) = v.get("hooks").and_then(Value::as_object) {
                k.extend(h.keys().map(|e| format!("hooks.{e}")));
            }
            k
        });
        prop_assert_eq!(keys(&back), keys(&want));
        // Install over what came back, then uninstall again: still the user's file.
        let again = install::install(back.clone().unwrap_or(Value::Null), host, BINARY).unwrap();
        prop_assert_eq!(install::uninstall_over(again, host, Some(&doc)).unwrap(), want);
    }
}

/// The original file says which empty containers are the user's; a container the user had
/// removed since install (or never had) is not brought back, nor one that was not empty.
#[test]
fn only_empty_containers_of_the_original_that_uninstall_emptied_come_back() {
    for host in HOSTS {
        let prompt = host.event_name(events(host)[1]);
        let original = json!({"model": "x", "hooks": {}});
        let installed = install::install(original.clone(), host, BINARY).unwrap();
        assert_eq!(
            install::uninstall_over(installed.clone(), host, Some(&original)).unwrap(),
            Some(original.clone()),
            "{host:?}"
        );
        // Without the original: what install created goes, `hooks` with it.
        assert_eq!(
            install::uninstall(installed.clone(), host).unwrap(),
            Some(json!({"model": "x"})),
            "{host:?}"
        );
        // The user removed `hooks` since: uninstall leaves it removed.
        let mut edited = installed.clone();
        edited.as_object_mut().unwrap().shift_remove("hooks");
        assert_eq!(
            install::uninstall_over(edited, host, Some(&original)).unwrap(),
            Some(json!({"model": "x"})),
            "{host:?}"
        );
        // An empty event list of the original comes back, in its place.
        let original = json!({"hooks": {"Stop": [], prompt: []}, "theme": 1});
        let installed = install::install(original.clone(), host, BINARY).unwrap();
        let back = install::uninstall_over(installed, host, Some(&original)).unwrap();
        assert_eq!(back, Some(original.clone()), "{host:?}");
        let order: Vec<&String> = back.as_ref().unwrap()["hooks"]
            .as_object()
            .unwrap()
            .keys()
            .collect();
        assert_eq!(order, ["Stop", prompt], "{host:?}");
        // A list the original held with a user group in it is not "empty": nothing is added.
        let mine = json!({"hooks": [{"type": "command", "command": "mine.sh"}]});
        let original = json!({"hooks": {prompt: [mine.clone()]}});
        let installed = install::install(original.clone(), host, BINARY).unwrap();
        assert_eq!(
            install::uninstall_over(installed, host, Some(&original)).unwrap(),
            Some(original),
            "{host:?}"
        );
    }
}

/// The issue's case as a table: one of ours in a user's group, for every host and event.
#[test]
fn a_user_handler_sharing_a_group_with_ours_survives_uninstall() {
    for host in HOSTS {
        for event in events(host) {
            let name = host.event_name(*event);
            let mine = json!({"type": "command", "command": "my-own-hook.sh"});
            let doc = json!({"hooks": {name: [{"matcher": "*", "hooks": [mine.clone(), handler(BINARY, host, *event)]}]}});
            let got = install::uninstall(doc, host).unwrap();
            assert_eq!(
                got,
                Some(json!({"hooks": {name: [{"matcher": "*", "hooks": [mine]}]}})),
                "{host:?} {name}"
            );
        }
    }
}

/// Through the real binary and files on disk, with odd number literals the JSON value model
/// cannot tell apart: install then uninstall gives back the same JSON value, and every member
/// install does not change keeps its bytes.
#[test]
fn binary_round_trip_keeps_the_file_and_its_number_literals() {
    let files = [
        (Host::Codex, ".codex/hooks.json"),
        (Host::Claude, ".claude/settings.json"),
        (Host::Gemini, ".gemini/settings.json"),
        (Host::Antigravity, ".agents/hooks.json"),
    ];
    for (host, rel) in files {
        let name = host.event_name(events(host)[0]);
        let text = format!(
            "{{\n  \"big\": 18446744073709551616,\n  \"tiny\": 1e-400,\n  \"exp\": 1E2,\n  \"neg\": -0,\n  \"hooks\": {{\n    \"{name}\": [{{\"matcher\": \"*\", \"hooks\": [{{\"type\": \"command\", \"command\": \"my-hook.sh\", \"timeout\": 30}}]}}],\n    \"Stop\": [{{\"hooks\": [{{\"type\": \"command\", \"command\": \"stop.sh\"}}]}}]\n  }},\n  \"after\": [1.50, 2e0]\n}}\n"
        );
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path().join("project");
        let home = dir.path().join("home");
        std::fs::create_dir_all(project.join(".git")).unwrap();
        std::fs::create_dir_all(&home).unwrap();
        let path = project.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &text).unwrap();
        let root = project.to_str().unwrap();
        let run = |args: &[&str]| {
            let mut all = args.to_vec();
            all.extend([
                "--host",
                host.as_str(),
                "--root",
                root,
                "--no-agents",
                "--binary",
                CLI_BINARY,
            ]);
            if args[0] == "uninstall" {
                all.retain(|a| *a != "--no-agents" && *a != "--binary" && *a != CLI_BINARY);
            }
            let r = common::run_binary(&all, b"", &home, &[("SOPHIA_ANALYTICS", "off")]);
            assert_eq!(r.code, 0, "{host:?} {args:?}: {}", r.stderr);
        };
        run(&["install"]);
        let installed = std::fs::read_to_string(&path).unwrap();
        for literal in ["18446744073709551616", "1e-400", "1E2", "-0", "[1.50, 2e0]"] {
            assert!(
                installed.contains(literal),
                "{host:?}: {literal} rewritten:\n{installed}"
            );
        }
        run(&["install"]);
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            installed,
            "{host:?}: twice"
        );
        run(&["uninstall"]);
        let back = std::fs::read_to_string(&path).unwrap();
        let parse = |t: &str| serde_json::from_str::<Value>(t).unwrap();
        assert_eq!(parse(&back), parse(&text), "{host:?}:\n{back}");
        for literal in ["18446744073709551616", "1e-400", "1E2", "[1.50, 2e0]"] {
            assert!(
                back.contains(literal),
                "{host:?}: {literal} rewritten:\n{back}"
            );
        }
    }
}

// Copilot CLI: a hook file of our own, `{"version": 1, "hooks": {<event>: [handler]}}` with flat
// handler lists (no matcher groups). The same three rules over generated files: the user's
// handlers (any form the CLI accepts: `bash`, the `command` alias, nested groups, odd entries)
// and keys are kept, ours are exactly what `install` writes for one of our events, any path.

/// A user's handler in a Copilot hook file.
fn copilot_user_handler() -> impl Strategy<Value = Value> {
    prop_oneof![
        prop::sample::select(
            &[
                "echo hi",
                "/opt/bin/sophia-hook --host copilot --event sessionStart --debug",
                "/opt/bin/sophia-hook --host codex --event SessionStart",
                "sophia-hook-notify.sh",
            ][..]
        )
        .prop_flat_map(|cmd| (Just(cmd), prop::option::of(odd_number()), any::<bool>()))
        .prop_map(|(cmd, timeout, alias)| {
            let mut h = json!({"type": "command"});
            h[if alias { "command" } else { "bash" }] = Value::from(cmd);
            if let Some(t) = timeout {
                h["timeoutSec"] = t;
            }
            h
        }),
        // Claude Code's nested group form, which the CLI also accepts: the user's.
        Just(json!({"matcher": "*", "hooks": [{"type": "command", "command": "echo nested"}]})),
        Just(json!(7)),
    ]
}

fn copilot_user_doc() -> impl Strategy<Value = Value> {
    let host = Host::Copilot;
    let mut names: Vec<&'static str> = events(host).iter().map(|e| host.event_name(*e)).collect();
    names.extend(["preToolUse", "sessionEnd", "SessionStart"]);
    (
        prop::option::of(prop::sample::select(vec![json!(1), json!(2), json!("1")])),
        prop::collection::vec(
            (
                prop::sample::select(&["disableAllHooks", "note", "$schema"][..]),
                leaf(),
            ),
            0..3,
        ),
        prop::option::of(prop::collection::vec(
            (
                prop::sample::select(names),
                prop::collection::vec(copilot_user_handler(), 0..4),
            ),
            1..4,
        )),
    )
        .prop_map(|(version, keys, hooks)| {
            let mut root = Map::new();
            if let Some(v) = version {
                root.insert("version".into(), v);
            }
            for (k, v) in keys {
                root.insert(k.to_owned(), v);
            }
            if let Some(events) = hooks {
                let mut h = Map::new();
                for (name, list) in events {
                    h.insert(name.to_owned(), Value::Array(list));
                }
                root.insert("hooks".into(), Value::Object(h));
            }
            Value::Object(root)
        })
}

/// Puts our handlers (event index, position, path index) into the flat lists.
fn copilot_with_ours(mut doc: Value, places: &[(usize, usize, usize, usize, bool)]) -> Value {
    let host = Host::Copilot;
    let evs = events(host);
    for &(e, at, _, p, _) in places {
        let event = evs[e % evs.len()];
        let ours = handler(OUR_PATHS[p % OUR_PATHS.len()], host, event);
        let list = doc
            .as_object_mut()
            .unwrap()
            .entry("hooks")
            .or_insert_with(|| json!({}))
            .as_object_mut()
            .unwrap()
            .entry(host.event_name(event))
            .or_insert_with(|| json!([]))
            .as_array_mut()
            .unwrap();
        let at = at % (list.len() + 1);
        list.insert(at, ours);
    }
    doc
}

/// The user's handlers of a Copilot hook file, with their event, in order.
fn copilot_user_handlers(doc: &Value) -> Vec<(String, Value)> {
    let mut out = Vec::new();
    for (name, list) in doc
        .get("hooks")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        for h in list.as_array().into_iter().flatten() {
            if !spec_is_ours(Host::Copilot, h) {
                out.push((name.clone(), h.clone()));
            }
        }
    }
    out
}

/// Nothing left but what `install` creates: the file can go.
fn copilot_only_ours(doc: &Value) -> bool {
    let root = doc.as_object().unwrap();
    root.is_empty() || (root.len() == 1 && root.get("version") == Some(&json!(1)))
}

proptest! {
    #![proptest_config(config(256))]

    #[test]
    fn copilot_install_then_uninstall_gives_back_the_users_file(doc in copilot_user_doc()) {
        let host = Host::Copilot;
        let installed = install::install(doc.clone(), host, BINARY).unwrap();
        // Told the file before the first install (the backup), uninstall gives it back whole,
        // its empty event lists included.
        let back = install::uninstall_over(installed.clone(), host, Some(&doc)).unwrap();
        let want = (!copilot_only_ours(&doc)).then(|| doc.clone());
        prop_assert_eq!(&back, &want);
        // Without the backup, only the lists of our events that our removal empties go: every
        // other event list of the user's — an empty one too — stays as it was.
        let plain = install::uninstall(installed, host).unwrap().unwrap_or(json!({}));
        let ours: Vec<&str> = events(host).iter().map(|e| host.event_name(*e)).collect();
        for (name, list) in doc.get("hooks").and_then(Value::as_object).into_iter().flatten() {
            if !ours.contains(&name.as_str()) {
                prop_assert_eq!(plain.get("hooks").and_then(|h| h.get(name)), Some(list), "{}", name);
            }
        }
    }

    #[test]
    fn copilot_install_twice_changes_nothing(doc in copilot_user_doc(), places in places()) {
        let host = Host::Copilot;
        let doc = copilot_with_ours(doc, &places);
        let users = copilot_user_handlers(&doc);
        let once = install::install(doc, host, BINARY).unwrap();
        let twice = install::install(once.clone(), host, BINARY).unwrap();
        prop_assert_eq!(&twice, &once);
        for e in events(host) {
            let name = host.event_name(*e);
            let ours: Vec<Value> = once["hooks"][name]
                .as_array()
                .unwrap()
                .iter()
                .filter(|h| spec_is_ours(host, h))
                .cloned()
                .collect();
            prop_assert_eq!(ours, vec![handler(BINARY, host, *e)], "{}", name);
        }
        prop_assert_eq!(copilot_user_handlers(&once), users);
    }

    #[test]
    fn copilot_uninstall_keeps_every_user_handler(doc in copilot_user_doc(), places in places()) {
        let host = Host::Copilot;
        let with = copilot_with_ours(doc.clone(), &places);
        let users = copilot_user_handlers(&with);
        let got = install::uninstall(with, host).unwrap();
        let after = got.clone().unwrap_or(Value::Object(Map::new()));
        prop_assert_eq!(copilot_user_handlers(&after), users);
        // Nothing of ours is left, and a file that held only ours goes.
        prop_assert!(install::registered(&after, host).is_empty());
        if copilot_only_ours(&doc) && copilot_user_handlers(&doc).is_empty() {
            prop_assert_eq!(got, None);
        }
    }
}

#[test]
fn copilot_install_writes_the_cli_format() {
    let doc = install::install(Value::Null, Host::Copilot, BINARY).unwrap();
    assert_eq!(
        doc,
        json!({"version": 1, "hooks": {
            "sessionStart": [{"type": "command",
                "bash": "/opt/bin/sophia-hook --host copilot --event sessionStart",
                "powershell": "/opt/bin/sophia-hook --host copilot --event sessionStart",
                "timeoutSec": 10}],
            "userPromptSubmitted": [{"type": "command",
                "bash": "/opt/bin/sophia-hook --host copilot --event userPromptSubmitted",
                "powershell": "/opt/bin/sophia-hook --host copilot --event userPromptSubmitted",
                "timeoutSec": 5}],
        }})
    );
    assert_eq!(install::uninstall(doc, Host::Copilot).unwrap(), None);
}

/// Through the real binary, with the backup `original.json` the first install keeps: a file
/// whose `hooks` is `{}` (alone, or beside other keys) or holds an empty event list comes back
/// from install then uninstall as it was, and is not removed — for every layout (matcher groups,
/// and Copilot's flat hook file, whose own empty lists an audit saw deleted).
#[test]
fn binary_round_trip_keeps_empty_containers_and_the_file() {
    let files = [
        (Host::Codex, ".codex/hooks.json"),
        (Host::Claude, ".claude/settings.json"),
        (Host::Gemini, ".gemini/settings.json"),
        (Host::Copilot, ".github/hooks/sophia-hook.json"),
    ];
    for (host, rel) in files {
        let prompt = host.event_name(events(host)[1]);
        for text in [
            "{\"hooks\": {}}\n".to_owned(),
            "{\"model\": \"x\", \"hooks\": {}, \"theme\": 1}\n".to_owned(),
            format!("{{\"hooks\": {{\"{prompt}\": [], \"Stop\": []}}}}\n"),
            format!("{{\"version\": 1, \"hooks\": {{\"preToolUse\": [], \"{prompt}\": []}}}}\n"),
        ] {
            let dir = tempfile::tempdir().unwrap();
            let project = dir.path().join("project");
            let home = dir.path().join("home");
            std::fs::create_dir_all(project.join(".git")).unwrap();
            std::fs::create_dir_all(&home).unwrap();
            let path = project.join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, &text).unwrap();
            let root = project.to_str().unwrap();
            for verb in ["install", "uninstall"] {
                let mut args = vec![verb, "--host", host.as_str(), "--root", root];
                if verb == "install" {
                    args.extend(["--no-agents", "--binary", CLI_BINARY]);
                }
                let r = common::run_binary(&args, b"", &home, &[("SOPHIA_ANALYTICS", "off")]);
                assert_eq!(r.code, 0, "{host:?} {verb}: {}", r.stderr);
            }
            let back = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("{host:?} {text:?}: the file is gone ({e})"));
            let parse = |t: &str| serde_json::from_str::<Value>(t).unwrap();
            assert_eq!(parse(&back), parse(&text), "{host:?}:\n{back}");
        }
    }
}
