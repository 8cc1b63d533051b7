//! Availability from the hosts' agent definition files (docs/agents/README.md "Availability"),
//! over every combination of definitions a role can have, read from real files.
//!
//! The rules:
//! - a definition of role `id` is a file of a host's agent folder ending in that host's
//!   extension, named `<id>` or `<id>` with `-` for `_`, or (Codex TOML) holding `name = "<id>"`;
//! - a definition is disabled by a line `enabled = false`, `enabled: false`, `disabled = true` or
//!   `disabled: true` (any case, any spaces); otherwise it is enabled;
//! - a role is `configured` when any of its definitions is enabled, `unavailable` when it has
//!   definitions and all are disabled, `unknown` when it has none; per host the same over that
//!   host's definitions only.
//!
//! Planted bug this catches: `state_of` deciding on the first definition (any/all swapped for a
//! role holding both an enabled and a disabled definition).
// Tests and benches set up and read their files directly; the door (clippy.toml) is for the crate.
#![allow(clippy::disallowed_methods)]

use std::fs;
use std::path::Path;

use sophia_hook::edge::agents::{Definition, DefinitionDir, compute_availability, state_of};
use sophia_hook::stages::agents::catalog::Availability;
use sophia_hook::stages::agents::default_catalog;

const HOSTS: [(&str, &str); 4] = [
    ("codex", ".toml"),
    ("claude", ".md"),
    ("gemini", ".md"),
    ("copilot", ".agent.md"),
];

/// How a definition names the role: its file stem, the stem with `-`, or Codex's `name` line.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Naming {
    Stem,
    Hyphen,
    TomlName,
}

/// The lines that disable a definition, as users write them.
const DISABLING: [&str; 6] = [
    "enabled = false",
    "enabled: false",
    "disabled = true",
    "disabled: true",
    "  Enabled : FALSE",
    "DISABLED=true",
];

/// Lines that look alike and do not disable.
const NOT_DISABLING: [&str; 5] = [
    "enabled = true",
    "disabled: false",
    "# enabled = false is how you turn it off",
    "description: not enabled: false",
    "",
];

fn expected(enabled: &[bool]) -> Availability {
    if enabled.iter().any(|e| *e) {
        Availability::Configured
    } else if enabled.is_empty() {
        Availability::Unknown
    } else {
        Availability::Unavailable
    }
}

/// `state_of` over every list of up to four definitions on any hosts, enabled or not, in every
/// order.
#[test]
fn state_of_is_any_enabled_then_all_disabled_for_every_list() {
    let mut cases = 0;
    for len in 0..=4u32 {
        // Each definition: one of 4 hosts × enabled or not (8 choices).
        for code in 0..8u32.pow(len) {
            let defs: Vec<Definition> = (0..len)
                .map(|i| {
                    let c = code / 8u32.pow(i) % 8;
                    Definition {
                        host: HOSTS[(c / 2) as usize].0,
                        path: format!("/x/{i}").into(),
                        enabled: c % 2 == 0,
                    }
                })
                .collect();
            let enabled: Vec<bool> = defs.iter().map(|d| d.enabled).collect();
            assert_eq!(state_of(&defs), expected(&enabled), "{defs:?}");
            for (host, _) in HOSTS {
                let of_host: Vec<bool> = defs
                    .iter()
                    .filter(|d| d.host == host)
                    .map(|d| d.enabled)
                    .collect();
                assert_eq!(
                    state_of(defs.iter().filter(|d| d.host == host)),
                    expected(&of_host),
                    "{host} of {defs:?}"
                );
            }
            cases += 1;
        }
    }
    assert_eq!(cases, 1 + 8 + 64 + 512 + 4096);
}

fn write_definition(dir: &Path, ext: &str, id: &str, naming: Naming, line: &str, n: usize) {
    fs::create_dir_all(dir).unwrap();
    let (stem, body) = match naming {
        Naming::Stem => (
            id.to_owned(),
            format!("---\nname: {id}\n{line}\n---\nbody\n"),
        ),
        Naming::Hyphen => (id.replace('_', "-"), format!("{line}\n")),
        Naming::TomlName => (format!("custom-{n}"), format!("name = \"{id}\"\n{line}\n")),
    };
    fs::write(dir.join(format!("{stem}{ext}")), body).unwrap();
}

/// Through real files: one role with an enabled and a disabled definition (on the same host or
/// on two), every naming, every disabling line and its look-alikes, in both orders of the folders.
#[test]
fn a_role_is_configured_while_any_definition_is_enabled_read_from_files() {
    let id = "technical_analyst";
    let namings = [Naming::Stem, Naming::Hyphen, Naming::TomlName];
    let mut cases = 0;
    for (h1, e1) in HOSTS {
        for (h2, e2) in HOSTS {
            for (n1, &naming1) in namings.iter().enumerate() {
                for (n2, &naming2) in namings.iter().enumerate() {
                    // The TOML name line is Codex's only; two files of one host need two names.
                    if (naming1 == Naming::TomlName && h1 != "codex")
                        || (naming2 == Naming::TomlName && h2 != "codex")
                        || (h1 == h2 && n1 == n2)
                    {
                        continue;
                    }
                    for (d, disabling) in DISABLING.iter().enumerate() {
                        let look_alike = NOT_DISABLING[d % NOT_DISABLING.len()];
                        for first_enabled in [true, false] {
                            let tmp = tempfile::tempdir().unwrap();
                            let (l1, l2) = if first_enabled {
                                (look_alike, *disabling)
                            } else {
                                (*disabling, look_alike)
                            };
                            let dir1 = tmp.path().join(format!("a-{h1}"));
                            let dir2 = tmp.path().join(format!("b-{h2}"));
                            write_definition(&dir1, e1, id, naming1, l1, 1);
                            write_definition(&dir2, e2, id, naming2, l2, 2);
                            // Another role's disabled file beside them changes nothing.
                            write_definition(&dir1, e1, "scout", Naming::Stem, "enabled: false", 3);
                            let dirs = vec![
                                DefinitionDir {
                                    host: h1,
                                    dir: sophia_hook::edge::files::Place::user(dir1),
                                    ext: e1,
                                    only_synced: false,
                                },
                                DefinitionDir {
                                    host: h2,
                                    dir: sophia_hook::edge::files::Place::user(dir2),
                                    ext: e2,
                                    only_synced: false,
                                },
                            ];
                            for order in [dirs.clone(), dirs.iter().rev().cloned().collect()] {
                                let (states, _) = compute_availability(&default_catalog(), &order);
                                let (state, defs) = &states[id];
                                let why =
                                    format!("{h1}/{naming1:?}/{l1:?} + {h2}/{naming2:?}/{l2:?}");
                                assert_eq!(defs.len(), 2, "{why}: {defs:?}");
                                assert_eq!(*state, Availability::Configured, "{why}");
                                assert_eq!(states["scout"].0, Availability::Unavailable, "{why}");
                                assert_eq!(states["implementer"].0, Availability::Unknown, "{why}");
                                // Per host: the host of the enabled one is configured, the
                                // other host (when it is another) unavailable.
                                let (on, off) = if first_enabled { (h1, h2) } else { (h2, h1) };
                                let of = |h: &str| state_of(defs.iter().filter(|d| d.host == h));
                                assert_eq!(of(on), Availability::Configured, "{why}");
                                if on != off {
                                    assert_eq!(of(off), Availability::Unavailable, "{why}");
                                }
                            }
                            cases += 1;
                        }
                    }
                }
            }
        }
    }
    assert!(cases > 300, "{cases}");
}

/// Every disabling line alone makes the role unavailable; every look-alike alone leaves it
/// configured.
#[test]
fn each_disabling_line_and_each_look_alike() {
    for (host, ext) in HOSTS {
        for (lines, want) in [
            (&DISABLING[..], Availability::Unavailable),
            (&NOT_DISABLING[..], Availability::Configured),
        ] {
            for line in lines {
                let tmp = tempfile::tempdir().unwrap();
                let dir = tmp.path().join(host);
                write_definition(&dir, ext, "code_reviewer", Naming::Hyphen, line, 0);
                let dirs = [DefinitionDir {
                    host,
                    dir: sophia_hook::edge::files::Place::user(dir),
                    ext,
                    only_synced: false,
                }];
                let (states, _) = compute_availability(&default_catalog(), &dirs);
                assert_eq!(states["code_reviewer"].0, want, "{host} {line:?}");
            }
        }
    }
}
