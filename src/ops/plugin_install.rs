//! `sophia-hook plugin install --host H`: the host's plugin where it stays. The plugin folders
//! of this build (`plugin build`'s, for this system, with this binary) go to sophia-hook's own
//! data folder, one per version (`<data>/sophia-hook/plugins/<version>/`, written whole: a
//! temporary sibling renamed into place), and the host's own commands add the plugin from there
//! (`claude plugin marketplace add` + `install`, …; each host's in its file,
//! [`crate::hosts::PluginSource::install`]). Claude Code and Copilot CLI read a local marketplace
//! in place, so a folder the user may move or delete (a `plugin build --out` folder, an unpacked
//! archive) is exactly what this avoids. Then it reads back what the host recorded, through the
//! one answer `doctor` and `status` give ([`crate::edge::plugins::registration`]).
//!
//! Never: a destination from a project or from anything but `edge::settings` (the data folder);
//! a settings registration doubled by the plugin (refused, with the fix); a host's record that is
//! not a folder replaced, or a plugin the user turned off turned on again (refused, said); a
//! command through a shell (the host's program from PATH, fixed arguments).

use std::io::{Read as _, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};

use crate::charset::Shown as _;
use crate::edge::files::{FolderFile, FolderWritten, Place, ProjectRoot, caps};
use crate::edge::plugins;
use crate::edge::settings::Settings;
use crate::hosts::{Host, HostCommand, PluginNow, Scope};
use crate::plugin::{Contents, MARKETPLACE_DIR, NAME, VERSION};

/// How long one command of a host's CLI may take.
const COMMAND_DEADLINE: Duration = Duration::from_secs(300);

/// What `plugin install` was asked.
#[derive(Debug, Clone)]
pub struct Request<'a> {
    pub host: Host,
    /// The binary the plugin folders carry (this executable).
    pub binary: &'a Path,
    /// Print what would be written and run; write and run nothing.
    pub dry_run: bool,
}

/// Runs `plugin install`: `Ok(true)` when the host loads the plugin from the data folder at the
/// end (or would, with `--dry-run`); an error when it could not be done, with what to do.
pub fn run(
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
    request: &Request<'_>,
    settings: &Settings,
    root: &ProjectRoot,
) -> anyhow::Result<bool> {
    let host = request.host;
    let (name, display) = (host.as_str(), host.display());
    let Some(layout) = host.spec().plugin.as_ref() else {
        bail!(
            "{display} has no plugin system sophia-hook ships for: register the hook with `sophia-hook install --host {name}`"
        );
    };
    refuse_a_second_registration(stderr, host, settings, root)?;
    let data = plugins::data_root(settings)
        .context("no data folder: neither XDG_DATA_HOME nor HOME is set")?;
    let dir = data.join(VERSION);
    let files = crate::plugin::files(cfg!(windows))?;
    let binary = Place::user(request.binary)
        .read(caps::BINARY)
        .map_err(|e| anyhow::anyhow!("reading the binary {}: {e}", request.binary.shown()))?;

    // What the host records now, before anything is written.
    let located = plugins::locate(host, settings).context("the host has no plugin layout")?;
    if located.disabled {
        bail!(
            "{display} records sophia-hook's plugin as turned off; nothing was changed. Turn it on with {display}'s own command, or remove it ({}), then run this again",
            layout.remove
        );
    }
    let enabled = plugins::enabled(host, plugins::Reach::User, root, settings).is_some();
    let loaded = located
        .folder
        .as_ref()
        .ok()
        .and_then(|at| plugins::folder_place(at, settings));
    let current = loaded
        .as_ref()
        .is_some_and(|f| plugins::holds_build(host, f, &files, &binary));

    // The folder, whole.
    let folder = Place::user(&dir);
    let kept = folder.is_dir() && holds_every_file(&folder, &files, &binary);
    let shown_dir = dir.shown().to_string();
    if kept {
        writeln!(stdout, "{shown_dir}: holds this build already; kept")?;
    } else if request.dry_run {
        writeln!(
            stdout,
            "would write {shown_dir} ({} files: this build's plugin folders)",
            files.len()
        )?;
    } else {
        let contents: Vec<FolderFile<'_>> = files
            .iter()
            .map(|f| match &f.contents {
                // Private, as everything we create (docs/security.md, `### I6`).
                Contents::Text(t) => FolderFile {
                    path: &f.path,
                    contents: t.as_bytes(),
                    cap: caps::SETTINGS,
                    mode: 0o600,
                },
                Contents::Binary => FolderFile {
                    path: &f.path,
                    contents: &binary,
                    cap: caps::BINARY,
                    mode: 0o700,
                },
            })
            .collect();
        match folder
            .write_folder(&contents)
            .with_context(|| format!("writing {shown_dir}"))?
        {
            FolderWritten::Created => writeln!(stdout, "wrote {shown_dir}")?,
            FolderWritten::Replaced { left: None } => writeln!(
                stdout,
                "wrote {shown_dir} (it held another build of {VERSION}, replaced)"
            )?,
            FolderWritten::Replaced { left: Some(aside) } => writeln!(
                stdout,
                "wrote {shown_dir} (it held another build of {VERSION}; files that were not ours are left in {})",
                aside.shown()
            )?,
        }
    }

    // The host's own commands.
    let added = dir.join(layout.home.added(MARKETPLACE_DIR));
    let added_shown = added.to_string_lossy().into_owned();
    // `current` is the folder the host loads: its own copy (Codex, Gemini CLI) may hold an older
    // build than the data folder.
    let now = PluginNow {
        located: located.clone(),
        enabled,
        current,
    };
    let commands = layout
        .source
        .install(NAME, &plugins::plugin_id(), &added_shown, &now)
        .map_err(|why| anyhow::anyhow!("{display}: {why}; nothing of {display}'s was changed"))?;
    if let Some(crate::hosts::AddedFrom::Folder(from)) = now.added_from()
        && from != &added
    {
        writeln!(
            stdout,
            "{display} has sophia-hook's plugin from {}; it will load it from {} instead",
            from.shown(),
            added.shown()
        )?;
    }
    if commands.is_empty() {
        writeln!(
            stdout,
            "{display} loads sophia-hook's plugin from there already; nothing to run"
        )?;
    }
    if request.dry_run {
        for c in &commands {
            writeln!(stdout, "would run: {}", shown_command(c))?;
        }
        return Ok(true);
    }
    for (i, c) in commands.iter().enumerate() {
        writeln!(stdout, "$ {}", shown_command(c))?;
        if let Err(why) = run_command(stdout, c, &data, settings) {
            let rest: Vec<String> = commands[i..].iter().map(shown_command).collect();
            bail!(
                "{why}. The plugin folder is in place ({shown_dir}); finish by hand: {}",
                rest.join(" && ")
            );
        }
    }

    // What the host loads now, as doctor and status read it.
    match plugins::registration(host, root, settings) {
        Some(reg) if reg.loads() => {
            let folder = reg.folder.as_deref().map(Path::shown);
            writeln!(
                stdout,
                "{name}: the hook is registered by sophia-hook's plugin ({}), loaded from {}",
                reg.record.shown(),
                folder.map_or_else(String::new, |f| f.to_string())
            )?;
            // What doctor still finds of it (Codex: its hooks not trusted yet) is the next step.
            let mut checks = Vec::new();
            crate::ops::doctor::plugin_checks(host, &reg, settings, root, &mut checks);
            let mut said = std::collections::BTreeSet::new();
            for c in checks
                .iter()
                .filter(|c| c.status >= crate::ops::doctor::Status::Warn)
            {
                let line = match &c.fix {
                    Some(fix) => format!("next: {fix} ({})", c.detail),
                    None => format!("next: {}", c.detail),
                };
                // One line per step: the same fix for several hooks is said once.
                if said.insert(c.fix.clone().unwrap_or_else(|| c.detail.clone())) {
                    writeln!(stdout, "{line}")?;
                }
            }
            writeln!(
                stdout,
                "Not together with `sophia-hook install --host {name}`: {display} would run both. `sophia-hook doctor --host {name}` checks it."
            )?;
            Ok(true)
        }
        Some(reg) => {
            writeln!(
                stdout,
                "{name}: sophia-hook's plugin is enabled ({}), but {}",
                reg.record.shown(),
                reg.problem.unwrap_or_default()
            )?;
            Ok(false)
        }
        None => {
            writeln!(
                stdout,
                "{name}: {display}'s commands ran, but its records do not show sophia-hook's plugin enabled (is it turned off? `sophia-hook doctor --host {name}`)"
            )?;
            Ok(false)
        }
    }
}

/// With sophia-hook in the host's user settings, the plugin would run every event a second time
/// (no host deduplicates the two): refused, with the fix. The current project's settings are
/// the repository's, so only said.
fn refuse_a_second_registration(
    stderr: &mut dyn Write,
    host: Host,
    settings: &Settings,
    root: &ProjectRoot,
) -> anyhow::Result<()> {
    let Some(home) = settings.home.as_deref() else {
        return Ok(());
    };
    for scope in [Scope::User, Scope::Project] {
        let place =
            crate::edge::hostconfig::settings_place(host, scope, root, home, &settings.host_homes);
        let Ok(doc) = crate::edge::hostconfig::read_for(&place, host) else {
            continue;
        };
        if crate::install::registered(&doc, host).is_empty() {
            continue;
        }
        let (name, display) = (host.as_str(), host.display());
        let file = place.path();
        match scope {
            Scope::User => bail!(
                "sophia-hook is registered in {} already: with the plugin too, {display} would run every event twice. Nothing was changed; to use the plugin instead, first `sophia-hook uninstall --host {name} --scope user`",
                file.shown()
            ),
            Scope::Project => writeln!(
                stderr,
                "warning: this project registers sophia-hook in {}: in it, {display} will run every event twice (`sophia-hook uninstall --host {name} --scope project` removes that entry)",
                file.shown()
            )?,
        }
    }
    Ok(())
}

/// Whether `dir` holds every file of this build, byte for byte.
fn holds_every_file(dir: &Place, files: &[crate::plugin::PluginFile], binary: &[u8]) -> bool {
    files.iter().all(|f| {
        let place = f.path.split('/').fold(dir.clone(), |p, c| p.join(c));
        let (want, cap) = match &f.contents {
            Contents::Text(t) => (t.as_bytes(), caps::SETTINGS),
            Contents::Binary => (binary, caps::BINARY),
        };
        place.read(cap).ok().as_deref() == Some(want)
    })
}

/// A command as a user would type it (arguments with spaces quoted), with its extra
/// environment first.
fn shown_command(c: &HostCommand) -> String {
    let env = c.env.iter().map(|(k, v)| format!("{k}={v} "));
    let args = c.args.iter().map(|a| {
        if a.is_empty() || a.contains([' ', '"', '\'', '$', '\\']) {
            format!("'{}'", a.replace('\'', "'\\''"))
        } else {
            a.clone()
        }
    });
    let words: Vec<String> = std::iter::once(c.program.to_owned()).chain(args).collect();
    let line = format!("{}{}", env.collect::<String>(), words.join(" "));
    crate::charset::terminal(&line).into_owned()
}

/// Runs one command of the host's CLI: the program from PATH, no shell, stdin closed, in
/// sophia-hook's data folder (never the project), within [`COMMAND_DEADLINE`]; its output
/// printed indented. `Err`: why it failed, in a sentence.
fn run_command(
    stdout: &mut dyn Write,
    c: &HostCommand,
    cwd: &Path,
    settings: &Settings,
) -> Result<(), String> {
    let program = crate::edge::program::resolve(c.program, settings.search_path.as_deref(), cwd)
        .map_err(|why| format!("{why}, so its command cannot run"))?;
    let mut child = Command::new(&program)
        .args(&c.args)
        .envs(c.env.iter().copied())
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("{} did not start ({e})", program.shown()))?;
    let readers: Vec<std::thread::JoinHandle<Vec<u8>>> = [
        child
            .stdout
            .take()
            .map(|o| Box::new(o) as Box<dyn std::io::Read + Send>),
        child
            .stderr
            .take()
            .map(|e| Box::new(e) as Box<dyn std::io::Read + Send>),
    ]
    .into_iter()
    .flatten()
    .map(|mut stream| {
        std::thread::spawn(move || {
            let mut out = Vec::new();
            // At most 1 MiB of what a host prints is kept.
            let _ = (&mut stream).take(1 << 20).read_to_end(&mut out);
            let _ = std::io::copy(&mut stream, &mut std::io::sink());
            out
        })
    })
    .collect();
    let started = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Ok(status),
            Ok(None) if started.elapsed() < COMMAND_DEADLINE => {
                std::thread::sleep(Duration::from_millis(20));
            }
            Ok(None) => {
                let _ = child.kill();
                let _ = child.wait();
                break Err(format!(
                    "`{}` did not finish within {} s and was stopped",
                    shown_command(c),
                    COMMAND_DEADLINE.as_secs()
                ));
            }
            Err(e) => break Err(format!("waiting for `{}` ({e})", shown_command(c))),
        }
    };
    for reader in readers {
        let text = String::from_utf8_lossy(&reader.join().unwrap_or_default()).into_owned();
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let _ = writeln!(stdout, "  {}", crate::charset::terminal(line));
        }
    }
    match status? {
        s if s.success() => Ok(()),
        s => Err(format!("`{}` failed ({s})", shown_command(c))),
    }
}
