//! `sophia-hook install` and `uninstall`: sophia-hook's entries merged into (or removed from) a
//! host's settings file, and the host's agent definitions.

use crate::charset::Shown as _;
use std::io::Write;
use std::path::PathBuf;

use super::{binary_path, project_root_arg, settings_path};
use crate::clock::Clock;
use crate::edge::files::{Place, ProjectRoot};
use crate::edge::settings::Settings;
use crate::hosts::Host;
use crate::hosts::Scope;

#[derive(Debug, clap::Args)]
pub struct InstallArgs {
    #[command(flatten)]
    pub target: UninstallArgs,
    /// The binary to register (default: this executable).
    #[arg(long)]
    pub binary: Option<PathBuf>,
}

#[derive(Debug, clap::Args)]
pub struct UninstallArgs {
    /// The host whose settings to change (default: install for every host found on this
    /// machine, uninstall from every host sophia-hook is registered for at this scope).
    #[arg(long, value_enum)]
    pub host: Option<Host>,
    /// The project's settings (default) or the user's.
    #[arg(long, value_enum, default_value = "project")]
    pub scope: Scope,
    /// Print what would change, as a unified diff of the settings file, and write nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// The project root (default: the git root above the current directory).
    #[arg(long)]
    pub root: Option<PathBuf>,
    /// Leave the host's agent definitions alone (install does not generate them, uninstall
    /// does not remove them).
    #[arg(long)]
    pub no_agents: bool,
    /// Print errors only.
    #[arg(long, short, conflicts_with = "verbose")]
    pub quiet: bool,
    /// Print every step: the backups kept, each agent definition, the catalog and availability
    /// refresh, where the hotwords can be typed (by default at most three lines per host).
    #[arg(long, short)]
    pub verbose: bool,
}

/// Where `install`'s and `uninstall`'s lines go: the outcome of each host (unless `--quiet`),
/// the details (with `--verbose` only), the warnings on stderr (unless `--quiet`).
struct Lines<'a> {
    out: &'a mut dyn Write,
    err: &'a mut dyn Write,
    quiet: bool,
    verbose: bool,
    sink: std::io::Sink,
}

impl<'a> Lines<'a> {
    fn new(out: &'a mut dyn Write, err: &'a mut dyn Write, args: &UninstallArgs) -> Lines<'a> {
        Lines {
            out,
            err,
            quiet: args.quiet,
            verbose: args.verbose,
            sink: std::io::sink(),
        }
    }

    /// A host's outcome: what changed and the next step.
    fn main(&mut self) -> &mut dyn Write {
        if self.quiet {
            &mut self.sink
        } else {
            &mut *self.out
        }
    }

    /// Every step, for `--verbose`.
    fn detail(&mut self) -> &mut dyn Write {
        if self.verbose {
            &mut *self.out
        } else {
            &mut self.sink
        }
    }

    fn warn(&mut self) -> &mut dyn Write {
        if self.quiet {
            &mut self.sink
        } else {
            &mut *self.err
        }
    }

    /// What `--dry-run` prints: the output itself, whatever the level.
    fn document(&mut self) -> &mut dyn Write {
        &mut *self.out
    }
}

/// Runs `install`: for `--host`, or for every host found on this machine.
pub fn install(
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
    args: &InstallArgs,
    settings: &Settings,
    clock: &dyn Clock,
) -> super::Outcome {
    let mut lines = Lines::new(stdout, stderr, &args.target);
    let root = project_root_arg(args.target.root.clone())?;
    let hosts = match args.target.host {
        Some(host) => vec![host],
        None => found_hosts(&mut lines, &root, settings)?,
    };
    let program = program_for(args.binary.as_deref(), args.target.scope, &root, settings)?;
    warn_about_program(&mut lines, &program)?;
    if args.target.scope == Scope::Project && !crate::edge::program::is_bare(&program.0) {
        writeln!(
            lines.warn(),
            "warning: the project's settings (files a team may commit) will name {}, a path of this machine: it works on this machine only (without --binary, install writes the bare `{BARE_NAME}`)",
            program.0
        )?;
    }
    each_host(&mut lines, &hosts, |lines, host| {
        change(lines, &args.target, host, Some(&program.0), settings, clock)
    })
}

/// Runs `uninstall`: for `--host`, or for every host sophia-hook is registered for at this
/// scope.
pub fn uninstall(
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
    args: &UninstallArgs,
    settings: &Settings,
    clock: &dyn Clock,
) -> super::Outcome {
    let mut lines = Lines::new(stdout, stderr, args);
    let root = project_root_arg(args.root.clone())?;
    let hosts = match args.host {
        Some(host) => vec![host],
        None => {
            let hosts: Vec<Host> = Host::ALL
                .into_iter()
                .filter(|host| {
                    settings_path(*host, args.scope, &root, settings)
                        .ok()
                        .and_then(|p| crate::edge::hostconfig::read(&p).ok())
                        .is_some_and(|doc| !crate::install::registered(&doc, *host).is_empty())
                })
                .collect();
            if hosts.is_empty() {
                writeln!(
                    lines.main(),
                    "sophia-hook is not registered for any host at {} scope; nothing changed",
                    args.scope.as_str()
                )?;
            }
            hosts
        }
    };
    each_host(&mut lines, &hosts, |lines, host| {
        change(lines, args, host, None, settings, clock)
    })
}

/// Runs `one` for each host. With one host its error is the command's; with several, a host
/// that fails is reported on stderr and the others still run, then the command fails.
fn each_host(
    lines: &mut Lines<'_>,
    hosts: &[Host],
    mut one: impl FnMut(&mut Lines<'_>, Host) -> anyhow::Result<()>,
) -> super::Outcome {
    if let [host] = hosts {
        one(lines, *host)?;
        return Ok(super::Verdict::Pass);
    }
    let mut failed = Vec::new();
    for &host in hosts {
        if let Err(e) = one(lines, host) {
            writeln!(lines.err, "sophia-hook: error: {}: {e:#}", host.as_str())?;
            failed.push(host.as_str());
        }
    }
    if !failed.is_empty() {
        anyhow::bail!(
            "failed for {} (the other hosts are done)",
            failed.join(", ")
        );
    }
    Ok(super::Verdict::Pass)
}

/// The hosts found on this machine (an executable on PATH, or the host's folder in the home),
/// each said in one line with why; an error when there is none.
fn found_hosts(
    lines: &mut Lines<'_>,
    root: &ProjectRoot,
    settings: &Settings,
) -> anyhow::Result<Vec<Host>> {
    let mut found = Vec::new();
    let mut missing = Vec::new();
    for host in Host::ALL {
        match crate::edge::program::detect(host, settings, root.given()) {
            Some(why) => {
                writeln!(lines.main(), "{}: found ({why})", host.as_str())?;
                found.push(host);
            }
            None => missing.push(host),
        }
    }
    if found.is_empty() {
        let signs: Vec<String> = Host::ALL
            .into_iter()
            .map(|h| crate::edge::program::signs(h, settings))
            .collect();
        anyhow::bail!(
            "no host found on this machine (looked for {}); name one with --host",
            signs.join("; ")
        );
    }
    for host in missing {
        writeln!(
            lines.detail(),
            "{}: not found ({})",
            host.as_str(),
            crate::edge::program::signs(host, settings)
        )?;
    }
    Ok(found)
}

/// Warns about the program the entries will name: a temporary cache, spaces, a bare name that
/// does not start this binary here.
fn warn_about_program(
    lines: &mut Lines<'_>,
    (binary, runs): &(String, Option<PathBuf>),
) -> anyhow::Result<()> {
    if let Some(runs) = runs
        && let Some(runner) = ephemeral_runner(runs)
    {
        writeln!(
            lines.warn(),
            "warning: this sophia-hook runs from {runner}'s temporary cache ({}), which can be cleaned at any time, and the hook then stops; install it first (`npm i -g sophia-hook`, `uv tool install sophia-hook` or `pipx install sophia-hook`) and run `sophia-hook install` from there",
            runs.shown()
        )?;
    }
    if crate::edge::program::is_bare(binary) {
        let this = std::env::current_exe().ok();
        let found = runs.as_deref().zip(this.as_deref());
        if !found.is_some_and(|(a, b)| crate::edge::program::same_file(a, b)) {
            writeln!(
                lines.warn(),
                "warning: `{binary}` on PATH here is {}, not this binary: the hosts on this machine run that one",
                runs.as_deref()
                    .map_or_else(|| "missing".to_owned(), |p| p.shown().to_string())
            )?;
        }
    }
    if binary.contains(' ') {
        writeln!(
            lines.warn(),
            "warning: the binary path contains spaces ({binary}); Windows shells break on them — install it under a path without spaces"
        )?;
    }
    Ok(())
}

/// Installs (`binary` is `Some`: the program the entries name) or uninstalls, for one host.
fn change(
    lines: &mut Lines<'_>,
    args: &UninstallArgs,
    host: Host,
    binary: Option<&str>,
    settings: &Settings,
    clock: &dyn Clock,
) -> anyhow::Result<()> {
    use crate::edge::hostconfig;
    let add = binary.is_some();
    let root = project_root_arg(args.root.clone())?;
    // At user scope a project's plugin record is never read: it is the repository's word.
    let reach = match args.scope {
        Scope::User => crate::edge::plugins::Reach::User,
        Scope::Project => crate::edge::plugins::Reach::UserAndProject,
    };
    if add && let Some(record) = crate::edge::plugins::enabled(host, reach, &root, settings) {
        // The plugin already runs the hook: a settings entry would run every event a second time.
        writeln!(
            lines.main(),
            "{}: sophia-hook's plugin is enabled ({}), which registers the hook already; nothing changed (a settings entry too would run every event twice). To use the settings instead: {}, then install again",
            host.display(),
            record.shown(),
            host.spec().plugin.as_ref().map_or("", |p| p.remove),
        )?;
        return Ok(());
    }
    let place = settings_path(host, args.scope, &root, settings)?;
    let path = place.path();
    let target = hostconfig::write_target(&place)?;
    let before = hostconfig::read_for(&target, host)?;
    let after = if let Some(binary) = binary {
        Some(
            crate::install::install(before.clone(), host, binary)
                .map_err(|e| anyhow::anyhow!("{}: {e}; it was left untouched", path.shown()))?,
        )
    } else {
        // The file before sophia-hook's first change, when a backup of it was kept: the empty
        // containers it held (`"hooks": {}`, an event's `[]`) stay.
        let original = settings
            .state_dir
            .as_deref()
            .map(|dir| {
                hostconfig::backup_dir(dir, host, args.scope, &path, &root).join("original.json")
            })
            .and_then(|p| hostconfig::read_for(&Place::user(p), host).ok())
            .filter(serde_json::Value::is_object);
        crate::install::uninstall_over(before.clone(), host, original.as_ref())
            .map_err(|e| anyhow::anyhow!("{}: {e}; it was left untouched", path.shown()))?
    };
    let unchanged = match &after {
        Some(doc) => *doc == before,
        None => before.is_null(),
    };
    if !unchanged {
        hostconfig::refuse_read_only(&place, &target)?;
    }
    let backups = settings
        .state_dir
        .as_deref()
        .map(|dir| hostconfig::backup_dir(dir, host, args.scope, &path, &root));
    let mut plan = hostconfig::plan(&place, &target, after.as_ref())?;
    if !add {
        plan = hostconfig::restore_pre_install(&place, backups.as_deref(), host, plan);
    }
    if args.dry_run {
        if unchanged {
            writeln!(lines.warn(), "{}: nothing would change", path.shown())?;
        } else {
            write!(
                lines.document(),
                "{}",
                hostconfig::unified_diff(&place, &plan)
            )?;
        }
        return Ok(());
    }
    // What install is about to create, for uninstall to take away again (and nothing else).
    let mut created = if add {
        missing_folders(place.parent())
    } else {
        Vec::new()
    };
    // Records beside the backups carry the settings file's mode, as the backups do.
    let record_mode = target
        .symlink_metadata()
        .ok()
        .filter(crate::edge::files::FileMeta::is_file)
        .map_or(0o600, |m| m.mode);
    let verb = if add { "installed" } else { "uninstalled" };
    if unchanged {
        writeln!(
            lines.main(),
            "{}: already {verb} for {} ({} scope); nothing changed",
            path.shown(),
            host.as_str(),
            args.scope.as_str()
        )?;
    } else {
        hostconfig::write(&target, backups.as_deref(), &plan)?;
        if let Some(dir) = &backups {
            if add {
                hostconfig::record_install(dir, &plan, record_mode)?;
            } else {
                hostconfig::forget_install(dir)?;
            }
        }
        writeln!(
            lines.main(),
            "{verb} sophia-hook for {} ({} scope): {}",
            host.as_str(),
            args.scope.as_str(),
            path.shown()
        )?;
        if let (false, Some(dir)) = (before.is_null(), &backups) {
            writeln!(
                lines.detail(),
                "previous file kept in {} (original.json, or original.absent when there was none: before sophia-hook's first change; last.json: before this one)",
                dir.shown()
            )?;
        }
    }
    let roles = crate::ops::agents_sync::SyncTarget::hosts_for(Some(host))
        .ok()
        .filter(|_| !args.no_agents)
        .map(|hosts| crate::ops::agents_sync::SyncTarget {
            hosts,
            scope: args.scope,
            root: root.clone(),
        });
    if !add {
        if let Some(target) = &roles {
            crate::ops::agents_sync::remove_generated(lines.detail(), target, settings)?;
        }
        let recorded = backups.as_deref().and_then(take_created);
        if let Some(folders) = &recorded {
            remove_created_folders(&root, folders);
        } else if args.scope == Scope::Project {
            // A name inside the agents folder, so the folder itself is tried first.
            let agents = crate::edge::agents::agents_dir(host, args.scope, &root, settings)
                .ok()
                .map(|dir| dir.join("-"));
            remove_empty_folders([Some(place.clone()), agents]);
        }
        if args.scope == Scope::User {
            refresh_availability(lines.detail(), &root, settings, clock)?;
            remove_created_manifest(lines.detail(), &root, settings)?;
        }
        return Ok(());
    }
    if host.spec().settings.both_scopes != crate::hosts::BothScopes::OneRuns {
        let other = match args.scope {
            crate::hosts::Scope::User => crate::hosts::Scope::Project,
            crate::hosts::Scope::Project => crate::hosts::Scope::User,
        };
        let other_place = settings_path(host, other, &root, settings)?;
        let other_path = other_place.path();
        let lines_at = |file: &Place| {
            let doc = hostconfig::read_for(file, host).unwrap_or(serde_json::Value::Null);
            crate::install::command_lines(&crate::install::registered(&doc, host))
        };
        let (here, there) = (lines_at(&place), lines_at(&other_place));
        let (project, user) = match args.scope {
            crate::hosts::Scope::Project => (&here, &there),
            crate::hosts::Scope::User => (&there, &here),
        };
        if !there.is_empty() && host.spec().settings.both_scopes.doubled(project, user) {
            writeln!(
                lines.warn(),
                "warning: sophia-hook is also installed at {} scope ({}): {} runs both, so every block is injected twice — remove one with `sophia-hook uninstall --host {} --scope {}`",
                other.as_str(),
                other_path.shown(),
                host.display(),
                host.as_str(),
                other.as_str()
            )?;
        }
    }
    // Nothing changed: nothing to trust or accept again.
    let next = if unchanged { None } else { Some(host) };
    if let Some(host) = next {
        writeln!(lines.main(), "{}", (host.spec().install_next)(args.scope))?;
        // The folder the next step asks the user to trust may run more than our hook.
        if args.scope == Scope::Project
            && let Some(sentence) = crate::ops::doctor::other_hooks_sentence(host, &root)
        {
            writeln!(lines.main(), "note: {sentence}")?;
        }
    }
    let prefix = crate::edge::config::hotword_prefix(&root, settings.hotword_prefix.as_ref());
    writeln!(
        lines.detail(),
        "{}",
        crate::stages::hotword::where_to_type(host, &prefix)
    )?;
    if let Some(target) = &roles {
        for &h in &target.hosts {
            if let Ok(dir) = crate::edge::agents::agents_dir(h, args.scope, &root, settings) {
                created.extend(missing_folders(Some(dir)));
            }
        }
    }
    if let Some(dir) = &backups {
        keep_created(dir, &created, record_mode)?;
    }
    if let Some(target) = &roles {
        let stamp = clock.now().format("%Y%m%dT%H%M%SZ").to_string();
        crate::ops::agents_sync::sync(lines.detail(), target, false, settings, &stamp)?;
    }
    // The project's catalog is the project's business: an install at user scope neither reads
    // its source nor writes its `.sophia/` (issue 48, class 3; blind pass cases 32, 33).
    let has_source =
        args.scope == Scope::Project && root.at(crate::stages::agents::SOURCE_PATH).is_file();
    if has_source || roles.is_some() {
        writeln!(
            lines.detail(),
            "refreshing the agent catalog and the availability manifest:"
        )?;
        if has_source {
            super::catalog::catalog_build(
                lines.detail(),
                Some(root.path().to_path_buf()),
                None,
                None,
                None,
                clock,
            )?;
        }
        // The machine-wide manifest follows the user's definitions only, so it is rewritten
        // only when install wrote some at user scope, never because of what a project holds
        // nor by a project-scope install (`docs/security.md` `### I3`).
        let write = roles.is_some() && args.scope == Scope::User;
        if write {
            note_created_manifest(settings)?;
        }
        let args = super::availability::AvailabilityArgs {
            root: Some(root.path().to_path_buf()),
            write,
            json: false,
        };
        super::availability::availability(lines.detail(), &args, settings, clock)?;
    }
    Ok(())
}

/// The bare name a portable entry gives the binary: every machine resolves it on its own PATH.
pub const BARE_NAME: &str = "sophia-hook";

/// The program our entries name, and the executable it starts on this machine (when known).
/// `--binary` as given: a bare `sophia-hook` stays bare, a path is made absolute. Without it, at
/// project scope (a file a team commits) the bare `sophia-hook`, so the entry works on every
/// teammate's machine and Codex's trust hash is the same for everyone — and it must resolve
/// here, on PATH, to this very binary, or install stops (a teammate's host, and this one, would
/// run another or none); at user scope (a file of this machine's user) this binary's absolute
/// path, which starts whatever PATH the host was launched with.
fn program_for(
    explicit: Option<&std::path::Path>,
    scope: Scope,
    root: &ProjectRoot,
    settings: &Settings,
) -> anyhow::Result<(String, Option<PathBuf>)> {
    let root = root.given();
    use crate::edge::program::{is_bare, resolve, same_file};
    let search = settings.search_path.as_deref();
    if let Some(given) = explicit {
        let text = given.to_string_lossy();
        if is_bare(&text) {
            if text != BARE_NAME && text != format!("{BARE_NAME}.exe") {
                anyhow::bail!(
                    "--binary {text}: a bare name must be `{BARE_NAME}` (the name uninstall and doctor recognise as ours); give a path to register another file"
                );
            }
            let runs = resolve(&text, search, root).ok();
            return Ok((text.into_owned(), runs));
        }
        let path = binary_path(Some(given))?;
        return Ok((path.to_string_lossy().into_owned(), Some(path)));
    }
    let this = binary_path(None)?;
    if scope == Scope::User {
        return Ok((this.to_string_lossy().into_owned(), Some(this)));
    }
    // When PATH's `sophia-hook` is the npm package's node launcher: npm's postinstall puts the
    // binary in its place except on Windows (npm's shims start node there) and when it did not run.
    let npm = if cfg!(windows) {
        "on Windows `npm i -g sophia-hook` puts a node launcher on PATH, which every prompt would start: install with `uv tool install sophia-hook`, `pipx install sophia-hook` or the release archive instead"
    } else {
        "when PATH's `sophia-hook` is the npm package's node launcher: after `npm i -g --ignore-scripts`, `npm rebuild -g sophia-hook` puts the binary in its place; installed by pnpm, yarn or bun (which keep the launcher), install with npm, uv, pipx or the release archive instead"
    };
    let how = format!(
        "put this binary on PATH (installed with `npm i -g sophia-hook`, `uv tool install sophia-hook`, `pipx install sophia-hook` or a release archive, it is; from source, `cargo install --path .`; or link {} into a folder on PATH); {npm}; or pass `--binary {BARE_NAME}` to write the portable entry anyway, or `--binary {}` to register this machine's path (then the entry works on this machine only)",
        this.shown(),
        this.shown(),
    );
    match resolve(BARE_NAME, search, root) {
        Ok(found) if same_file(&found, &this) => Ok((BARE_NAME.to_owned(), Some(found))),
        Ok(found) => anyhow::bail!(
            "`{BARE_NAME}` on PATH is {}, not this binary ({}): a project-scope entry names the bare `{BARE_NAME}` (the file is shared with the project), so the hosts would run that one; {how}",
            found.shown(),
            this.shown()
        ),
        Err(_) => anyhow::bail!(
            "`{BARE_NAME}` is not on PATH: a project-scope entry names the bare `{BARE_NAME}` (the file is shared with the project, so it may not hold this machine's path), and here it would not start; {how}"
        ),
    }
}

/// After an uninstall, the machine-wide availability manifest must not say that the removed
/// roles are still configured: rewritten from what is on disk now, when there is one.
fn refresh_availability(
    stdout: &mut dyn Write,
    root: &ProjectRoot,
    settings: &Settings,
    clock: &dyn Clock,
) -> anyhow::Result<()> {
    let exists = settings
        .availability_file
        .as_deref()
        .is_some_and(|p| Place::user(p).exists());
    if !exists {
        return Ok(());
    }
    writeln!(stdout, "refreshing the availability manifest:")?;
    let args = super::availability::AvailabilityArgs {
        root: Some(root.path().to_path_buf()),
        write: true,
        json: false,
    };
    super::availability::availability(&mut std::io::sink(), &args, settings, clock)?;
    if let Some(path) = &settings.availability_file {
        writeln!(stdout, "wrote {}", path.shown())?;
    }
    Ok(())
}

/// The folders that do not exist yet among `dir` and its parents, outermost first: what writing
/// a file in `dir` creates (each looked at through the door of the place).
fn missing_folders(dir: Option<Place>) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut at = dir;
    while let Some(place) = at {
        if place.path().as_os_str().is_empty() || place.exists() {
            break;
        }
        if place
            .project_rel()
            .is_some_and(|r| r.as_os_str().is_empty())
        {
            break;
        }
        out.push(place.path());
        at = place.parent();
    }
    out.reverse();
    out
}

/// The record, beside a settings file's backups, of the folders install created for it.
const CREATED: &str = "created.json";

/// Adds `folders` to the record of what install created (a folder recorded earlier stays
/// recorded: it is still ours).
fn keep_created(backups: &std::path::Path, folders: &[PathBuf], mode: u32) -> anyhow::Result<()> {
    use anyhow::Context;
    let file = backups.join(CREATED);
    let mut all: Vec<PathBuf> = Place::user(&file).read_json_or_default();
    if folders.is_empty() && Place::user(&file).exists() {
        return Ok(());
    }
    for folder in folders {
        if !all.contains(folder) {
            all.push(folder.clone());
        }
    }
    let json = serde_json::to_vec(&all)?;
    Place::user(backups)
        .create_dir_all()
        .and_then(|()| {
            Place::user(&file).write_backup(&json, crate::edge::files::caps::STATE, mode)
        })
        .with_context(|| format!("keeping a record in {}", file.shown()))
}

/// The folders install recorded as created for a settings file, and the record removed; `None`
/// when there is no record (an install by an earlier version).
fn take_created(backups: &std::path::Path) -> Option<Vec<PathBuf>> {
    let file = Place::user(backups.join(CREATED));
    file.symlink_metadata().ok()?;
    let folders: Vec<PathBuf> = file.read_json_or_default();
    let _ = file.remove_file();
    Some(folders)
}

/// Removes the folders install created, innermost first, each only when it is an empty real
/// folder now: a folder that holds anything of the user's stays, and so do its parents. A folder
/// in the project is removed through its door.
fn remove_created_folders(root: &ProjectRoot, folders: &[PathBuf]) {
    let mut folders = folders.to_vec();
    folders.sort_by_key(|f| std::cmp::Reverse(f.components().count()));
    for dir in folders {
        let place = root.place_of(&dir);
        if place.symlink_metadata().is_ok_and(|m| m.is_dir()) {
            let _ = place.remove_dir();
        }
    }
}

/// The record, in the state folder, that install created the machine-wide availability manifest
/// (the file, then the folders it created for it).
fn manifest_record(settings: &Settings) -> Option<PathBuf> {
    settings
        .state_dir
        .as_deref()
        .map(|dir| dir.join("sophia-hook/availability-created.json"))
}

/// Before install writes the availability manifest: when there is none yet, records that this
/// install creates it (and which folders), so that the last uninstall takes it away.
fn note_created_manifest(settings: &Settings) -> anyhow::Result<()> {
    use anyhow::Context;
    let (Some(manifest), Some(record)) = (&settings.availability_file, manifest_record(settings))
    else {
        return Ok(());
    };
    if Place::user(manifest).exists() || Place::user(&record).exists() {
        return Ok(());
    }
    let mut paths = vec![manifest.clone()];
    paths.extend(missing_folders(manifest.parent().map(Place::user)));
    if let Some(dir) = record.parent() {
        Place::user(dir)
            .create_dir_all()
            .with_context(|| format!("creating {}", dir.shown()))?;
    }
    Place::user(&record)
        .write_json_atomic(&paths)
        .with_context(|| format!("keeping a record in {}", record.shown()))
}

/// After a user-scope uninstall: the availability manifest an install created goes, with the
/// folders it created for it, once sophia-hook is registered at user scope for no host at all.
fn remove_created_manifest(
    stdout: &mut dyn Write,
    root: &ProjectRoot,
    settings: &Settings,
) -> anyhow::Result<()> {
    let Some(record) = manifest_record(settings) else {
        return Ok(());
    };
    if !Place::user(&record).exists() {
        return Ok(());
    }
    let still_installed = Host::ALL.iter().any(|&h| {
        settings_path(h, Scope::User, root, settings)
            .ok()
            .and_then(|p| crate::edge::hostconfig::read_for(&p, h).ok())
            .is_some_and(|doc| !crate::install::registered(&doc, h).is_empty())
    });
    if still_installed {
        return Ok(());
    }
    let paths: Vec<PathBuf> = Place::user(&record).read_json_or_default();
    if let Some((manifest, folders)) = paths.split_first()
        && Place::user(manifest)
            .symlink_metadata()
            .is_ok_and(|m| m.is_file())
    {
        Place::user(manifest)
            .remove_file()
            .map_err(|e| anyhow::anyhow!("removing {}: {e}", manifest.shown()))?;
        writeln!(
            stdout,
            "removed {} (install created it; no host has sophia-hook at user scope now)",
            manifest.shown()
        )?;
        remove_created_folders(root, folders);
    }
    let _ = Place::user(&record).remove_file();
    Ok(())
}

/// Removes the folders of the project that held `files` (`.codex/`, `.claude/agents/`, …) when
/// they are empty now, up to but not including the root: what install created and uninstall
/// emptied goes. A folder with anything left in it, a symlink, or the root itself is kept.
fn remove_empty_folders(files: impl IntoIterator<Item = Option<Place>>) {
    for file in files.into_iter().flatten() {
        let mut dir = file.parent();
        while let Some(d) = dir {
            if !d.is_project() || d.project_rel().is_some_and(|r| r.as_os_str().is_empty()) {
                break;
            }
            let real_dir = d.symlink_metadata().is_ok_and(|m| m.is_dir());
            // `remove_dir` removes only an empty folder; a non-empty one ends the walk.
            if !real_dir || d.remove_dir().is_err() {
                break;
            }
            dir = d.parent();
        }
    }
}

/// The runner whose temporary cache holds `binary` (`npx`, `uvx`, `pipx run`), when it lives in
/// one: a hook registered there stops when the cache is cleaned. Read from the path's components:
/// npm's `_npx` folder, uv's `archive-v0` cache bucket, pipx's `.cache` folder.
fn ephemeral_runner(binary: &std::path::Path) -> Option<&'static str> {
    let names: Vec<&std::ffi::OsStr> = binary
        .components()
        .filter_map(|c| match c {
            std::path::Component::Normal(name) => Some(name),
            _ => None,
        })
        .collect();
    let has = |name: &str| names.iter().any(|n| *n == name);
    if has("_npx") {
        Some("npx")
    } else if has("archive-v0") {
        Some("uvx")
    } else if names.windows(2).any(|w| w[0] == "pipx" && w[1] == ".cache")
        || names.windows(2).any(|w| w[0] == ".cache" && w[1] == "pipx")
    {
        Some("pipx run")
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    /// A binary inside a runner's temporary cache is named; one installed for good, or one whose
    /// path merely contains the runner's name in a file or folder name, is not.
    #[test]
    fn a_binary_in_a_temporary_cache_is_named_by_its_runner() {
        let cases = [
            (
                "/home/me/.npm/_npx/6a1b/node_modules/@sophia-hook/linux-x64/bin/sophia-hook",
                Some("npx"),
            ),
            (
                "/home/me/.cache/uv/archive-v0/Xy12/bin/sophia-hook",
                Some("uvx"),
            ),
            (
                "/home/me/.cache/pipx/3f9a/bin/sophia-hook",
                Some("pipx run"),
            ),
            (
                "/home/me/.local/pipx/.cache/3f9a/bin/sophia-hook",
                Some("pipx run"),
            ),
            (
                "/usr/local/lib/node_modules/@sophia-hook/linux-x64/bin/sophia-hook",
                None,
            ),
            (
                "/home/me/.local/share/uv/tools/sophia-hook/bin/sophia-hook",
                None,
            ),
            (
                "/home/me/.local/pipx/venvs/sophia-hook/bin/sophia-hook",
                None,
            ),
            ("/home/me/.cargo/bin/sophia-hook", None),
            ("/home/me/my_npx_tools/sophia-hook", None),
            ("/home/me/archive-v0.tar/sophia-hook", None),
        ];
        for (path, want) in cases {
            assert_eq!(super::ephemeral_runner(Path::new(path)), want, "{path}");
        }
    }
}
