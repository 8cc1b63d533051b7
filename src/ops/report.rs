//! `sophia-hook report`: gathers the page's inputs — the analytics log (streamed line by line), the
//! doctor's checks, each host's skill inventory, the effective agent catalog and the runtime
//! agent definitions on disk — hands them to the pure renderer in `crate::report`, and writes the
//! page atomically. Default output: `<state dir>/sophia-hook/report.html`, never inside the
//! project. The page reads; it edits nothing.

use crate::charset::Shown as _;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use anyhow::Context;

use crate::clock::Clock;
use crate::edge::agents::{self, AgentCatalogSource};
use crate::edge::files::{self, ProjectRoot};
use crate::edge::settings::Settings;
use crate::edge::skills;
use crate::hosts::Host;
use crate::ops::doctor::{self, Check, DoctorInput, Status};
use crate::report::mix::MixBuilder;
use crate::report::{
    AgentsView, AnalyticsLog, Finding, HostSetup, Level, ReportInput, RoleRow, RoutingQuality,
    RuntimeDefinition, Setup, SkillInventory, Trust,
};
use crate::stages::agents::catalog::AgentCatalog;

/// An analytics line longer than this is skipped and counted as corrupt (real lines are < 1 KiB).
pub const MAX_LINE_BYTES: usize = 64 * 1024;

/// Streams the analytics log at `path` into `mix`, line by line (at most [`MAX_LINE_BYTES`] of a
/// line held; a longer one skipped and counted): the one reader of the log, for `report` and
/// `stats` alike, whatever its size.
pub fn read_log(path: &std::path::Path, mix: &mut MixBuilder) -> Result<(), files::ReadError> {
    let seen = files::Place::user(path).for_each_line(MAX_LINE_BYTES, |line| mix.push(line))?;
    mix.skipped_too_long(seen.too_long);
    Ok(())
}

pub struct ReportArgs {
    pub out: Option<PathBuf>,
    pub since: Option<String>,
    pub host: Option<Host>,
    pub root: ProjectRoot,
    pub binary: PathBuf,
    /// The analytics log (default: the analytics file of the settings).
    pub file: Option<PathBuf>,
    /// Labelled prompts to measure the project's skill routing on (`report --eval`).
    pub eval: Option<PathBuf>,
}

/// The default page: `<state dir>/sophia-hook/report.html`.
pub fn default_out(settings: &Settings) -> Option<PathBuf> {
    settings
        .state_dir
        .as_ref()
        .map(|d| d.join("sophia-hook").join("report.html"))
}

/// Builds the page and writes it; returns where.
pub fn run(args: &ReportArgs, settings: &Settings, clock: &dyn Clock) -> anyhow::Result<PathBuf> {
    let out = match &args.out {
        Some(p) => p.clone(),
        None => default_out(settings)
            .context("no state folder for the page: set HOME or XDG_STATE_HOME, or pass --out")?,
    };
    let input = gather(args, settings, clock)?;
    let html = crate::report::render(&input);
    crate::edge::project::flag_place(Some(&args.root), &out)
        .write_atomic(html.as_bytes(), files::caps::PAGE)
        .with_context(|| format!("writing {}", out.shown()))?;
    Ok(out)
}

/// Everything the page shows.
pub fn gather(
    args: &ReportArgs,
    settings: &Settings,
    clock: &dyn Clock,
) -> anyhow::Result<ReportInput> {
    let now = clock.now();
    let since = crate::stats::parse_since(
        args.since
            .as_deref()
            .unwrap_or(crate::report::DEFAULT_SINCE),
        now,
    )
    .map_err(|e| anyhow::anyhow!(e))?;
    let host = args.host.map(Host::as_str);
    let mut mix = MixBuilder::new(since, now, host);
    let log = match args.file.as_ref().or(settings.analytics_file.as_ref()) {
        None => AnalyticsLog::Off,
        Some(path) => {
            let shown = shown_path(path, args.root.path(), settings);
            match read_log(path, &mut mix) {
                Ok(()) => AnalyticsLog::Read(shown),
                Err(files::ReadError::Missing) => AnalyticsLog::Missing(shown),
                Err(e) => anyhow::bail!("reading {}: {e}", path.shown()),
            }
        }
    };
    let hosts = args.host.map_or_else(|| Host::ALL.to_vec(), |h| vec![h]);
    let quality = match &args.eval {
        None => None,
        Some(cases) => {
            let measured = crate::ops::eval::measure(cases, Some(&args.root))?;
            Some(RoutingQuality {
                cases: shown_path(cases, args.root.path(), settings),
                skills: measured.skills,
                bm25: measured.skills_bm25_baseline,
            })
        }
    };
    Ok(ReportInput {
        generated_at: now,
        since,
        host: host.map(str::to_owned),
        log,
        mix: mix.finish(),
        setup: setup(args, settings, &hosts),
        agents: agents_view(args, settings, now),
        skills: hosts
            .iter()
            .map(|h| skill_inventory(&args.root, *h, settings))
            .collect(),
        quality,
    })
}

/// A path as the page shows it: relative to the project, or under `~`.
fn shown_path(path: &Path, root: &Path, settings: &Settings) -> String {
    if let Ok(rel) = path.strip_prefix(root) {
        return rel.shown().to_string();
    }
    if let Some(rest) = settings
        .home
        .as_deref()
        .and_then(|h| path.strip_prefix(h).ok())
    {
        return format!("~/{}", rest.shown());
    }
    path.shown().to_string()
}

fn level(status: Status) -> Level {
    match status {
        Status::Ok => Level::Ok,
        Status::Info => Level::Info,
        Status::Warn => Level::Warn,
        Status::Fail => Level::Fail,
    }
}

fn finding(c: &Check) -> Finding {
    Finding {
        level: level(c.status),
        area: c.area.clone(),
        detail: c.detail.clone(),
        fix: c.fix.clone(),
    }
}

/// The trust state from the doctor's trust checks of a host (`<host> trust`, `<host> <scope>
/// trust`): trusted when all pass, else the worst one's words.
fn trust(host: &str, checks: &[Check]) -> Option<Trust> {
    let trust: Vec<&Check> = checks
        .iter()
        .filter(|c| {
            c.area
                .strip_prefix(host)
                .is_some_and(|rest| rest.starts_with(' ') && rest.ends_with(" trust"))
        })
        .collect();
    let worst = trust.iter().max_by_key(|c| c.status)?;
    Some(if worst.status == Status::Ok {
        Trust {
            level: Level::Ok,
            label: "trusted".into(),
        }
    } else {
        Trust {
            level: level(worst.status),
            label: worst.detail.clone(),
        }
    })
}

/// The Setup section, from the doctor's own checks.
fn setup(args: &ReportArgs, settings: &Settings, hosts: &[Host]) -> Setup {
    let input = DoctorInput {
        root: &args.root,
        settings,
        binary: &args.binary,
        hosts: hosts.to_vec(),
        explicit: args.host.is_some(),
        // The page only reads: it never runs a command a settings file names.
        live_runs: false,
    };
    let (per_host, common) = doctor::run_by_host(&input);
    Setup {
        hosts: per_host
            .iter()
            .map(|h| HostSetup {
                host: h.host.as_str().to_owned(),
                // Where it is registered, as `status` says it: each settings scope, and the
                // plugin when the host loads it.
                scopes: h
                    .scopes
                    .iter()
                    .map(|s| s.as_str().to_owned())
                    .chain(
                        h.plugin
                            .as_ref()
                            .filter(|p| p.loads())
                            .map(|_| "plugin".to_owned()),
                    )
                    .collect(),
                trust: trust(h.host.as_str(), &h.checks),
                findings: h.checks.iter().map(finding).collect(),
            })
            .collect(),
        general: common.iter().map(finding).collect(),
    }
}

fn skill_ids(root: &ProjectRoot) -> BTreeSet<String> {
    skills::load(root)
        .catalog
        .skills
        .into_iter()
        .map(|s| s.id)
        .collect()
}

/// What a catalog warning means, in a sentence.
fn drift_sentence(warning: &str) -> String {
    match warning {
        "agent-catalog-stale" => format!(
            "{} is older than the canonical source {}: the hook builds the source in memory; run `sophia-hook catalog build`",
            agents::CATALOG_PATH,
            crate::stages::agents::SOURCE_PATH
        ),
        "agent-catalog-fingerprint-mismatch" => format!(
            "{}: its fingerprint does not match its content (edited by hand?); run `sophia-hook catalog build`",
            agents::CATALOG_PATH
        ),
        "agent-catalog-corrupt" => format!("{} is not a catalog", agents::CATALOG_PATH),
        "agent-catalog-source-invalid" => format!(
            "{} does not build: the hook falls back to the embedded catalog; run `sophia-hook catalog check`",
            crate::stages::agents::SOURCE_PATH
        ),
        "availability-manifest-fingerprint-mismatch" => "the availability manifest was computed for another catalog, so it is not applied (it records the embedded roles from your own definitions; `sophia-hook availability --write` refreshes it)".into(),
        "availability-manifest-without-fingerprint" => "the availability manifest names no catalog fingerprint; run `sophia-hook availability --write`".into(),
        "availability-manifest-unreadable" => "the availability manifest cannot be read; run `sophia-hook availability --write`".into(),
        other => other.to_owned(),
    }
}

/// The Agents section: the catalog the hook uses, its source, and per role what the hosts have.
fn agents_view(
    args: &ReportArgs,
    settings: &Settings,
    now: chrono::DateTime<chrono::Utc>,
) -> AgentsView {
    let root = &args.root;
    let ids = skill_ids(root);
    let stamp = crate::edge::hook::timestamp(now);
    let base = agents::load_catalog(root, &ids, stamp.clone());
    let mut effective = base.clone();
    agents::apply_manifest(&mut effective, settings.availability_file.as_deref(), None);
    let host_columns: Vec<String> = match args.host {
        Some(h) => vec![h.as_str().to_owned()],
        // The hosts whose runtime agent definitions `availability` finds, in column order.
        None => Host::with_agents()
            .into_iter()
            .map(|h| h.as_str().to_owned())
            .collect(),
    };
    // The state the hook uses on each host: the manifest's per-host states overlaid for it.
    let per_host: Vec<(String, AgentCatalog)> = host_columns
        .iter()
        .filter(|h| Host::ALL.iter().any(|x| x.as_str() == h.as_str()))
        .map(|h| {
            let mut c = base.clone();
            agents::apply_manifest(&mut c, settings.availability_file.as_deref(), Some(h));
            (h.clone(), c.catalog)
        })
        .collect();
    let mut drift: Vec<String> = effective
        .warnings
        .iter()
        .map(|w| drift_sentence(w))
        .collect();
    // A generated catalog must equal what its canonical source builds now.
    if effective.source == AgentCatalogSource::Generated
        && root.is_file(Path::new(crate::stages::agents::SOURCE_PATH))
    {
        let fresh = agents::load_catalog_at(root, None, &ids, stamp);
        if fresh.source == AgentCatalogSource::Source
            && fresh.catalog.fingerprint != effective.catalog.fingerprint
        {
            drift.push(format!(
                "{} ({}) differs from what {} builds now ({}); run `sophia-hook catalog build`",
                agents::CATALOG_PATH,
                effective.catalog.fingerprint,
                crate::stages::agents::SOURCE_PATH,
                fresh.catalog.fingerprint
            ));
        }
    }
    drift.extend(runtime_drift(root, settings, args.host));
    let dirs = agents::definition_dirs(
        root,
        settings,
        effective.source != agents::AgentCatalogSource::Embedded,
    );
    let (computed, cut) = agents::compute_availability(&effective.catalog, &dirs);
    drift.extend(cut);
    // What `availability --write` would record now (the user's own definitions, over the
    // embedded roles): the manifest the hook reads is stale exactly when it differs from that,
    // so the command the warning names is the one that clears it. Only where the manifest
    // applies at all (the embedded catalog; another catalog has its own warning above).
    let would_write = agents::user_manifest(settings, crate::edge::hook::timestamp(now));
    let manifest_applies =
        would_write.catalog_fingerprint.as_deref() == Some(effective.catalog.fingerprint.as_str());
    let roles = effective
        .catalog
        .agents
        .iter()
        .map(|a| {
            let (state, defs) = computed
                .get(&a.id)
                .map(|(s, d)| (s.as_str(), d.as_slice()))
                .unwrap_or(("unknown", &[]));
            if let Some(wanted) = would_write.agents.get(&a.id).filter(|_| manifest_applies)
                && *wanted != a.availability
            {
                drift.push(format!(
                    "{}: the hook uses `{}` but your own definitions say `{}`; run `sophia-hook availability --write`",
                    a.id,
                    a.availability.as_str(),
                    wanted.as_str()
                ));
            }
            RoleRow {
                host_states: per_host
                    .iter()
                    .filter_map(|(h, c)| {
                        c.agent(&a.id)
                            .map(|r| (h.clone(), r.availability.as_str().to_owned()))
                    })
                    .collect(),
                id: a.id.clone(),
                routing_role: a.routing_role.clone(),
                write_policy: a.write_policy.clone(),
                availability: a.availability.as_str().to_owned(),
                computed: state.to_owned(),
                definitions: defs
                    .iter()
                    .map(|d| RuntimeDefinition {
                        host: d.host.to_owned(),
                        path: shown_path(&d.path, root.path(), settings),
                        enabled: d.enabled,
                    })
                    .collect(),
            }
        })
        .collect();
    let (source, source_path) = match effective.source {
        AgentCatalogSource::Source => (
            "project canonical YAML",
            Some(crate::stages::agents::SOURCE_PATH.to_owned()),
        ),
        AgentCatalogSource::Generated => (
            "generated",
            Some(shown_path(
                &agents::catalog_path(root)
                    .map(|p| p.path())
                    .unwrap_or_default(),
                root.path(),
                settings,
            )),
        ),
        AgentCatalogSource::Embedded => ("embedded", None),
    };
    AgentsView {
        fingerprint: effective.catalog.fingerprint.clone(),
        source: source.to_owned(),
        source_path,
        hosts: host_columns,
        roles,
        drift,
    }
}

/// The project's runtime agent definitions that differ from what `agents sync` would write from
/// the canonical roles: stale, edited by hand, or not generated by sophia-hook. Missing ones are
/// not drift (a host may simply not be set up). Read-only: the same plan `agents check` makes.
fn runtime_drift(root: &ProjectRoot, settings: &Settings, host: Option<Host>) -> Vec<String> {
    use crate::ops::agents_sync::{SyncTarget, load_runtime, plan};
    use crate::stages::agents::runtime::FileState;
    let hosts: Vec<Host> = match host {
        Some(h) => vec![h],
        None => Host::ALL.to_vec(),
    }
    .into_iter()
    .filter(|h| h.spec().agents.is_some())
    .collect();
    let target = SyncTarget {
        hosts,
        scope: crate::hosts::Scope::Project,
        root: root.clone(),
    };
    let Ok((agents, _)) = load_runtime(&target, settings) else {
        return Vec::new();
    };
    match plan(&target, &agents, settings) {
        Ok(entries) => entries
            .iter()
            .filter(|e| matches!(e.state, FileState::Stale | FileState::Drifted | FileState::Foreign))
            .map(|e| {
                format!(
                    "{} {}: {} — `sophia-hook agents check` lists it, `sophia-hook agents sync` rewrites what sophia-hook generated",
                    e.host.as_str(),
                    shown_path(&e.place.path(), root.path(), settings),
                    e.state.as_str()
                )
            })
            .collect(),
        Err(e) => vec![format!("the runtime agent definitions cannot be checked: {e}")],
    }
}

/// The skills `host` sees: its own inventory (the project's and the user's skill folders of that
/// host), each skill with the folder it came from; the embedded defaults when it has none.
fn skill_inventory(root: &ProjectRoot, host: Host, settings: &Settings) -> SkillInventory {
    let loaded = skills::load_for_host_seen(host, root, settings);
    SkillInventory {
        host: host.as_str().to_owned(),
        source: loaded.source.as_str().to_owned(),
        skills: loaded
            .catalog
            .skills
            .iter()
            .map(|s| {
                let source = (!s.source.is_empty()).then_some(s.source.as_str());
                (
                    s.id.clone(),
                    skill_folder(&s.source),
                    crate::stages::analytics::skill_label(
                        &s.id,
                        source,
                        loaded.source == skills::CatalogSource::Index,
                    ),
                )
            })
            .collect(),
    }
}

/// `project:.agents/skills/pdf/SKILL.md` → `.agents/skills/pdf` (the scope is in the path:
/// project folders are relative, user folders start with `~`); `embedded` for the defaults.
fn skill_folder(source: &str) -> String {
    if source.is_empty() {
        return "embedded".to_owned();
    }
    let path = source.split_once(':').map_or(source, |(_, p)| p);
    path.strip_suffix("/SKILL.md").unwrap_or(path).to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trust_is_the_worst_trust_check() {
        let c = |status, area: &str, detail: &str| Check {
            status,
            area: area.into(),
            detail: detail.into(),
            fix: None,
        };
        assert_eq!(trust("claude", &[c(Status::Ok, "claude user", "x")]), None);
        let scoped = [c(
            Status::Fail,
            "codex project trust",
            "the folder is not trusted",
        )];
        assert_eq!(trust("codex", &scoped).unwrap().level, Level::Fail);
        let ok = [
            c(Status::Ok, "codex trust", "a"),
            c(Status::Ok, "codex trust", "b"),
        ];
        assert_eq!(trust("codex", &ok).unwrap().label, "trusted");
        let mixed = [
            c(Status::Ok, "codex trust", "a"),
            c(
                Status::Warn,
                "codex trust",
                "UserPromptSubmit: not trusted yet",
            ),
        ];
        let t = trust("codex", &mixed).unwrap();
        assert_eq!(
            (t.level, t.label.as_str()),
            (Level::Warn, "UserPromptSubmit: not trusted yet")
        );
    }

    #[test]
    fn skill_folders_drop_the_scope_and_the_file() {
        assert_eq!(skill_folder(""), "embedded");
        assert_eq!(
            skill_folder("project:.agents/skills/pdf/SKILL.md"),
            ".agents/skills/pdf"
        );
        assert_eq!(
            skill_folder("user:~/.codex/skills/pdf/SKILL.md"),
            "~/.codex/skills/pdf"
        );
    }

    #[test]
    fn paths_are_shown_relative_to_the_project_or_home() {
        let settings = Settings {
            home: Some(PathBuf::from("/home/u")),
            ..Settings::default()
        };
        let root = Path::new("/home/u/repo");
        assert_eq!(
            shown_path(
                Path::new("/home/u/repo/.codex/agents/scout.toml"),
                root,
                &settings
            ),
            ".codex/agents/scout.toml"
        );
        assert_eq!(
            shown_path(
                Path::new("/home/u/.claude/agents/scout.md"),
                root,
                &settings
            ),
            "~/.claude/agents/scout.md"
        );
        assert_eq!(shown_path(Path::new("/etc/x"), root, &settings), "/etc/x");
    }
}
