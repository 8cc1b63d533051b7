//! `sophia-hook agents sync` and `agents check`: the hosts' runtime agent definitions generated
//! from the canonical source of the scope (project scope: the project's
//! `docs/agents/canonical-subagents.yaml`; user scope: the user's own
//! `~/.config/sophia-hook/canonical-subagents.yaml`; else the embedded default), written only inside the chosen scope's own host folders —
//! `<root>/.codex/agents`, `<root>/.claude/agents`, `<root>/.gemini/agents`, or the user's
//! `$CODEX_HOME/agents`, `~/.claude/agents`, `~/.gemini/agents` — never where a repository file
//! says. A file the user changed (or wrote) is never overwritten: sync reports it, and `--force`
//! replaces it after keeping a backup in the user's state folder. `install` calls in here too.

use crate::charset::Shown as _;
use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context, bail};

use crate::edge::agents::agents_dir;
use crate::edge::files::{Place, ProjectRoot, ReadError};
use crate::edge::settings::Settings;
use crate::hosts::Host;
use crate::hosts::Scope;
use crate::stages::agents::runtime::{self, FileState, RuntimeAgent, sync_hosts};

/// The largest canonical source read.
const SOURCE_CAP: crate::edge::files::Cap = crate::edge::files::caps::CATALOG;
/// The largest definition file read and written; a larger one is not ours.
const DEFINITION_CAP: crate::edge::files::Cap = crate::edge::files::caps::DEFINITION;

/// What `agents sync` and `agents check` act on.
#[derive(Debug, Clone)]
pub struct SyncTarget {
    pub hosts: Vec<Host>,
    pub scope: Scope,
    pub root: ProjectRoot,
}

impl SyncTarget {
    /// `None` (or `all`) means every host with agent definitions; Antigravity has none.
    pub fn hosts_for(host: Option<Host>) -> anyhow::Result<Vec<Host>> {
        match host {
            None => Ok(sync_hosts()),
            Some(h) if sync_hosts().contains(&h) => Ok(vec![h]),
            Some(h) => bail!(
                "{} has no runtime agent definitions to generate (hosts: {}, all)",
                h.as_str(),
                sync_hosts()
                    .iter()
                    .map(|h| h.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }
}

/// The user's own canonical source, `<config_dir>/canonical-subagents.yaml` (default
/// `~/.config/sophia-hook/canonical-subagents.yaml`): the roles written at user scope when it
/// exists. `None` without a config folder.
pub fn user_source_path(settings: &Settings) -> Option<PathBuf> {
    settings
        .config_dir
        .as_ref()
        .map(|dir| dir.join(USER_SOURCE_FILE))
}

/// The file name of the user's own canonical source in the user's config folder.
pub const USER_SOURCE_FILE: &str = "canonical-subagents.yaml";

/// The runtime definitions `target` is built from, with where they came from. The scope decides
/// the source, never the repository (`docs/security.md` `### I2`): at project scope the
/// project's canonical source, else the embedded default; at user scope the user's own source
/// ([`user_source_path`]), else the embedded default — a file in the current repository never
/// feeds what is written under the user's home. The source must build as a catalog (ids,
/// routing fields; skill affinities resolved against the project's skills at project scope and
/// against the embedded skills at user scope) and its runtime fields must pass
/// [`runtime::parse`].
pub fn load_runtime(
    target: &SyncTarget,
    settings: &Settings,
) -> anyhow::Result<(Vec<RuntimeAgent>, String)> {
    let (path, project_skills) = match target.scope {
        Scope::Project => (
            Some(target.root.at(crate::stages::agents::SOURCE_PATH)),
            true,
        ),
        Scope::User => (user_source_path(settings).map(Place::user), false),
    };
    let read = match &path {
        Some(path) => path.read_string(SOURCE_CAP),
        None => Err(ReadError::Missing),
    };
    let shown = path.as_ref().map(Place::path).unwrap_or_default();
    let (text, label, skill_ids) = match read {
        Ok(text) => {
            let ids = if project_skills {
                crate::edge::skills::load(&target.root)
                    .catalog
                    .skills
                    .into_iter()
                    .map(|s| s.id)
                    .collect()
            } else {
                embedded_skill_ids()
            };
            (text, shown.shown().to_string(), ids)
        }
        Err(ReadError::Missing) => (
            crate::stages::agents::DEFAULT_SOURCE.to_owned(),
            "the embedded default roles".to_owned(),
            embedded_skill_ids(),
        ),
        Err(e) => bail!("reading the canonical source {}: {e}", shown.shown()),
    };
    crate::stages::agents::catalog::build(&text, &skill_ids, String::new())
        .and_then(|_| runtime::parse(&text))
        .map(|agents| (agents, label.clone()))
        .with_context(|| format!("refusing {label}; nothing was written"))
}

fn embedded_skill_ids() -> std::collections::BTreeSet<String> {
    crate::stages::skills::default_catalog()
        .skills
        .into_iter()
        .map(|s| s.id)
        .collect()
}

/// One definition file: where it goes, what sync would write, and what is there now.
#[derive(Debug, Clone)]
pub struct Entry {
    pub host: Host,
    pub id: String,
    pub place: Place,
    pub fresh: String,
    /// The file's text, when it is a regular file sync may read (and, with `--force`, replace).
    pub existing: Option<String>,
    /// The permission bits of the file itself when it is a regular file, not a symlink (what a
    /// backup keeps); `None` for a symlink, which is never copied nor written through.
    pub mode: Option<u32>,
    pub state: FileState,
}

/// Refuses a project folder chain with a symlink in it (a repository could commit
/// `.codex/agents` as a link; the door keeps any write inside the project, and sync writes only
/// into the project's own folders, not through a link to another).
fn check_project_dir(dir: &Place) -> anyhow::Result<()> {
    let Place::Project(root, rel) = dir else {
        return Ok(());
    };
    let mut at = PathBuf::new();
    for part in rel.components() {
        at.push(part);
        let place = root.at(&at);
        match place.symlink_metadata() {
            Ok(m) if m.is_symlink() => bail!(
                "refusing to write through {}: it is a symlink; sync writes only inside the project's own folders",
                place.path().shown()
            ),
            Ok(m) if !m.is_dir() => bail!("{} is not a folder", place.path().shown()),
            _ => {}
        }
    }
    Ok(())
}

/// Every definition of `target`, rendered and classified against what is on disk.
pub fn plan(
    target: &SyncTarget,
    agents: &[RuntimeAgent],
    settings: &Settings,
) -> anyhow::Result<Vec<Entry>> {
    let mut entries = Vec::new();
    // The user's model map is the user's: a project's definitions (files a team shares) carry
    // none of it, so a teammate's host is never told a model of this user's choosing (blind pass
    // of issue 29, case 35); their roles inherit the session's model.
    for &host in &target.hosts {
        let dir = agents_dir(host, target.scope, &target.root, settings)?;
        check_project_dir(&dir)?;
        for agent in agents {
            runtime::check_name(host, &agent.id)
                .map_err(|rule| anyhow::anyhow!("agent {:?}: {rule}", agent.id))?;
            let place = dir.join(runtime::file_name(host, &agent.id));
            let fresh = match target.scope {
                Scope::Project => runtime::render_for_project(host, agent),
                Scope::User => runtime::render(host, agent, &settings.models),
            };
            let (existing, state) = match place.read_string(DEFINITION_CAP) {
                Ok(text) => {
                    let state = runtime::classify(Some(&text), &fresh);
                    (Some(text), state)
                }
                Err(ReadError::Missing) => (None, FileState::Missing),
                // Not a regular file, or far too large to be ours: somebody else's, never replaced.
                Err(ReadError::NotRegular | ReadError::TooLarge { .. } | ReadError::Refused(_)) => {
                    (None, FileState::Foreign)
                }
                Err(e) => bail!("reading {}: {e}", place.path().shown()),
            };
            let mode = place
                .symlink_metadata()
                .ok()
                .filter(crate::edge::files::FileMeta::is_file)
                .map(|m| m.mode);
            entries.push(Entry {
                host,
                id: agent.id.clone(),
                place,
                fresh,
                existing,
                mode,
                state,
            });
        }
    }
    Ok(entries)
}

/// Where `--force` keeps the file it replaces.
fn backup_path(settings: &Settings, entry: &Entry, stamp: &str) -> anyhow::Result<PathBuf> {
    let dir = settings
        .state_dir
        .as_ref()
        .context("no state folder for the backup: set XDG_STATE_HOME or HOME")?;
    let name = entry
        .place
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    Ok(dir
        .join("sophia-hook/agent-backups")
        .join(entry.host.as_str())
        .join(format!("{stamp}-{name}")))
}

/// What a sync did, for the caller's summary.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SyncSummary {
    pub written: usize,
    pub unchanged: usize,
    /// Files left alone because the user changed or wrote them.
    pub kept: usize,
}

/// Writes the definitions of `target`: missing and stale files are written, up-to-date ones left,
/// changed ones reported (or, with `force`, backed up and replaced).
pub fn sync(
    out: &mut dyn Write,
    target: &SyncTarget,
    force: bool,
    settings: &Settings,
    stamp: &str,
) -> anyhow::Result<SyncSummary> {
    let (agents, label) = load_runtime(target, settings)?;
    let entries = plan(target, &agents, settings)?;
    writeln!(
        out,
        "agent definitions from {label} ({} scope):",
        target.scope.as_str()
    )?;
    let mut summary = SyncSummary::default();
    for entry in &entries {
        let path = entry.place.path();
        let shown = path.shown();
        match entry.state {
            FileState::UpToDate => {
                summary.unchanged += 1;
                writeln!(out, "  up to date  {shown}")?;
                continue;
            }
            FileState::Drifted | FileState::Foreign
                if !force || entry.existing.is_none() || entry.mode.is_none() =>
            {
                summary.kept += 1;
                let why = if entry.mode.is_none() && entry.existing.is_some() {
                    "a symlink, which sync never copies nor writes through"
                } else if entry.state == FileState::Drifted {
                    "edited by hand"
                } else {
                    "not generated by sophia-hook"
                };
                writeln!(
                    out,
                    "  kept        {shown} ({why}; `agents sync --force` replaces it and keeps a backup)"
                )?;
                continue;
            }
            FileState::Drifted | FileState::Foreign => {
                let backup = backup_path(settings, entry, stamp)?;
                let old = entry.existing.as_deref().unwrap_or_default();
                // Never through a symlink (`mode` is the file's own), and with the file's mode.
                let mode = entry.mode.unwrap_or(0o600);
                Place::user(&backup)
                    .write_backup(old.as_bytes(), DEFINITION_CAP, mode)
                    .with_context(|| format!("writing the backup {}", backup.shown()))?;
                writeln!(out, "  backed up   {shown} -> {}", backup.shown())?;
            }
            FileState::Missing | FileState::Stale => {}
        }
        if let Some(dir) = entry.place.parent() {
            dir.create_dir_all()
                .with_context(|| format!("creating {}", dir.path().shown()))?;
            check_project_dir(&dir)?;
        }
        entry
            .place
            .write_atomic(entry.fresh.as_bytes(), DEFINITION_CAP)
            .with_context(|| format!("writing {shown}"))?;
        summary.written += 1;
        let verb = match entry.state {
            FileState::Missing => "wrote",
            _ => "updated",
        };
        writeln!(out, "  {verb:<11} {shown}")?;
    }
    writeln!(
        out,
        "{} written, {} up to date, {} kept",
        summary.written, summary.unchanged, summary.kept
    )?;
    Ok(summary)
}

/// Verifies the definitions of `target`; `false` when one is missing, stale, edited by hand or
/// not generated by sophia-hook.
pub fn check(
    out: &mut dyn Write,
    target: &SyncTarget,
    settings: &Settings,
) -> anyhow::Result<bool> {
    let (agents, label) = load_runtime(target, settings)?;
    let entries = plan(target, &agents, settings)?;
    let mut ok = true;
    for entry in &entries {
        if entry.state != FileState::UpToDate {
            ok = false;
            writeln!(
                out,
                "{:<13} {}",
                entry.state.as_str(),
                entry.place.path().shown()
            )?;
        }
    }
    if ok {
        writeln!(
            out,
            "{} agent definitions up to date with {label} ({} scope)",
            entries.len(),
            target.scope.as_str()
        )?;
    } else {
        writeln!(
            out,
            "run `sophia-hook agents sync` (a file edited by hand is kept unless you pass --force)"
        )?;
    }
    Ok(ok)
}

/// Removes the generated definitions of `target` that nobody changed; everything else stays.
pub fn remove_generated(
    out: &mut dyn Write,
    target: &SyncTarget,
    settings: &Settings,
) -> anyhow::Result<()> {
    let (agents, _) = load_runtime(target, settings)?;
    for entry in plan(target, &agents, settings)? {
        let path = entry.place.path();
        if entry.state.is_unchanged_generated() {
            entry
                .place
                .remove_file()
                .with_context(|| format!("removing {}", path.shown()))?;
            writeln!(out, "removed {}", path.shown())?;
        } else if entry.state != FileState::Missing {
            writeln!(out, "kept {} ({})", path.shown(), entry.state.as_str())?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    // Tests set up their files and folders directly.
    #![allow(clippy::disallowed_methods)]
    use super::*;
    use std::fs;
    use std::path::Path;

    fn settings(home: &Path) -> Settings {
        let home = home.to_string_lossy().into_owned();
        Settings::from_lookup(|k| (k == "HOME").then(|| home.clone()))
    }

    fn target(root: &Path, hosts: Vec<Host>, scope: Scope) -> SyncTarget {
        SyncTarget {
            hosts,
            scope,
            root: ProjectRoot::open(root).unwrap(),
        }
    }

    #[test]
    fn sync_writes_checks_keeps_edits_and_forces_with_a_backup() {
        let root = tempfile::tempdir().unwrap();
        let home = tempfile::tempdir().unwrap();
        let s = settings(home.path());
        let t = target(root.path(), sync_hosts(), Scope::Project);
        let mut out = Vec::new();
        assert!(!check(&mut out, &t, &s).unwrap(), "nothing there yet");
        let first = sync(&mut out, &t, false, &s, "t1").unwrap();
        // Five roles for each of Codex, Claude Code, Gemini CLI and Copilot CLI.
        assert_eq!(first.written, 20);
        assert!(root.path().join(".codex/agents/scout.toml").is_file());
        assert!(root.path().join(".github/agents/scout.agent.md").is_file());
        assert!(
            root.path()
                .join(".claude/agents/code_reviewer.md")
                .is_file()
        );
        assert!(root.path().join(".gemini/agents/test_writer.md").is_file());
        assert!(check(&mut out, &t, &s).unwrap());

        let edited = root.path().join(".claude/agents/scout.md");
        let text = fs::read_to_string(&edited)
            .unwrap()
            .replace("scout.", "scout!");
        fs::write(&edited, &text).unwrap();
        let mut out = Vec::new();
        assert!(!check(&mut out, &t, &s).unwrap());
        assert!(String::from_utf8_lossy(&out).contains("drifted"));
        let again = sync(&mut Vec::new(), &t, false, &s, "t2").unwrap();
        assert_eq!((again.written, again.kept), (0, 1));
        assert_eq!(fs::read_to_string(&edited).unwrap(), text, "left alone");

        let forced = sync(&mut Vec::new(), &t, true, &s, "t3").unwrap();
        assert_eq!(forced.written, 1);
        let backup = home
            .path()
            .join(".local/state/sophia-hook/agent-backups/claude/t3-scout.md");
        assert_eq!(fs::read_to_string(backup).unwrap(), text);
        assert!(check(&mut Vec::new(), &t, &s).unwrap());

        let mut out = Vec::new();
        remove_generated(&mut out, &t, &s).unwrap();
        assert!(!root.path().join(".codex/agents/scout.toml").exists());
    }

    #[test]
    fn a_user_file_is_not_overwritten_nor_removed() {
        let root = tempfile::tempdir().unwrap();
        let home = tempfile::tempdir().unwrap();
        let s = settings(home.path());
        let mine = root.path().join(".codex/agents/scout.toml");
        fs::create_dir_all(mine.parent().unwrap()).unwrap();
        fs::write(&mine, "name = \"scout\"\n").unwrap();
        let t = target(root.path(), vec![Host::Codex], Scope::Project);
        let summary = sync(&mut Vec::new(), &t, false, &s, "t").unwrap();
        assert_eq!((summary.written, summary.kept), (4, 1));
        remove_generated(&mut Vec::new(), &t, &s).unwrap();
        assert_eq!(fs::read_to_string(&mine).unwrap(), "name = \"scout\"\n");
    }

    #[test]
    fn a_non_regular_file_is_never_replaced_even_with_force() {
        let root = tempfile::tempdir().unwrap();
        let s = settings(root.path());
        fs::create_dir_all(root.path().join(".codex/agents/scout.toml")).unwrap();
        let t = target(root.path(), vec![Host::Codex], Scope::Project);
        let summary = sync(&mut Vec::new(), &t, true, &s, "t").unwrap();
        assert_eq!((summary.written, summary.kept), (4, 1));
        assert!(root.path().join(".codex/agents/scout.toml").is_dir());
    }

    #[test]
    fn user_scope_writes_into_the_users_host_folders() {
        let root = tempfile::tempdir().unwrap();
        let home = tempfile::tempdir().unwrap();
        let s = settings(home.path());
        let t = target(root.path(), vec![Host::Claude], Scope::User);
        sync(&mut Vec::new(), &t, false, &s, "t").unwrap();
        assert!(home.path().join(".claude/agents/implementer.md").is_file());
        assert!(!root.path().join(".claude").exists());
    }

    /// Issue 29, class 5 (blind pass case 35): the user's model map (their `config.yaml`) is
    /// written into the user's own definitions only: every host's project-scope definitions carry
    /// no model of it, so no file a team shares names what one user chose.
    #[test]
    fn the_users_model_map_never_reaches_the_projects_definitions() {
        const MODEL: &str = "users-own-model-7";
        for host in crate::stages::agents::runtime::sync_hosts() {
            let root = tempfile::tempdir().unwrap();
            let home = tempfile::tempdir().unwrap();
            let mut s = settings(home.path());
            for tier in [crate::config::Tier::Economy, crate::config::Tier::Default] {
                s.models
                    .entry(host.as_str().to_owned())
                    .or_default()
                    .insert(tier, MODEL.to_owned());
            }
            for scope in [Scope::Project, Scope::User] {
                let t = target(root.path(), vec![host], scope);
                sync(&mut Vec::new(), &t, false, &s, "t").unwrap();
            }
            let text = |dir: &Path| -> String {
                fn walk(d: &Path, out: &mut String) {
                    for e in fs::read_dir(d).into_iter().flatten().flatten() {
                        let p = e.path();
                        if p.is_dir() {
                            walk(&p, out);
                        } else {
                            out.push_str(&fs::read_to_string(&p).unwrap_or_default());
                        }
                    }
                }
                let mut out = String::new();
                walk(dir, &mut out);
                out
            };
            assert!(
                !text(root.path()).contains(MODEL),
                "{host:?}: the project's files name it"
            );
            assert!(
                text(home.path()).contains(MODEL),
                "{host:?}: the user's files lost it"
            );
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_symlinked_project_folder_is_refused() {
        let root = tempfile::tempdir().unwrap();
        let elsewhere = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(elsewhere.path(), root.path().join(".codex")).unwrap();
        let s = settings(root.path());
        let t = target(root.path(), vec![Host::Codex], Scope::Project);
        let err = sync(&mut Vec::new(), &t, false, &s, "t").unwrap_err();
        assert!(format!("{err:#}").contains("symlink"), "{err:#}");
        assert_eq!(fs::read_dir(elsewhere.path()).unwrap().count(), 0);
    }

    #[test]
    fn a_project_source_with_a_secret_in_runtime_is_refused_and_nothing_written() {
        let root = tempfile::tempdir().unwrap();
        let src = root.path().join(crate::stages::agents::SOURCE_PATH);
        fs::create_dir_all(src.parent().unwrap()).unwrap();
        fs::write(
            &src,
            crate::stages::agents::DEFAULT_SOURCE.replacen(
                "Do not propose designs",
                "Use token=abcd1234efgh. Do not propose designs",
                1,
            ),
        )
        .unwrap();
        let s = settings(root.path());
        let t = target(root.path(), sync_hosts(), Scope::Project);
        let err = format!(
            "{:#}",
            sync(&mut Vec::new(), &t, false, &s, "t").unwrap_err()
        );
        assert!(
            err.contains("nothing was written") && err.contains("secret"),
            "{err}"
        );
        assert!(!root.path().join(".codex").exists());
    }
}
