//! How a host decides to run a repository's hooks, as `doctor` checks it: one trait, one
//! implementation per host that has a trust step, in that host's file (Codex's handler hashes,
//! Gemini CLI's trusted folders, Copilot CLI's folder list). The edge reads and parses the file
//! the host records its trust in ([`TrustGate::record`], through the file door and the bounded
//! parsers) and hands it over with what is installed; the host's [`TrustGate::judge`] says what
//! it finds, in its own words. Pure: no I/O.

use std::fmt::Debug;
use std::path::PathBuf;

use serde_json::Value;

use super::{Scope, UserFile};

/// A host's trust step (`HostSpec::trust`; `None` there for a host with nothing to check).
pub trait TrustGate: Sync + Debug {
    /// The user's file the host records its trust in, and its syntax.
    fn record(&self) -> UserFile;

    /// What `doctor` reports about the trust of what is installed, in order.
    fn judge(&self, input: &TrustInput<'_>) -> Vec<TrustFinding>;

    /// What `doctor` reports about the trust of our plugin's hooks, as the host loads them from
    /// the plugin's folder; nothing where the host asks for none.
    fn judge_plugin(&self, _input: &PluginTrustInput<'_>) -> Vec<TrustFinding> {
        Vec::new()
    }
}

/// Our plugin's hooks, for [`TrustGate::judge_plugin`].
#[derive(Debug)]
pub struct PluginTrustInput<'a> {
    pub record: &'a Record,
    /// The record file's path, as shown to the user.
    pub record_shown: &'a str,
    /// The plugin's id (`sophia-hook@sophia-hook`).
    pub plugin_id: &'a str,
    /// The hooks file, relative to the plugin's folder (`hooks/hooks.json`).
    pub hooks: &'a str,
    /// Our handlers in it, where they sit.
    pub handlers: Vec<InstalledHandler<'a>>,
    /// `sha256:` and the hex digest of the bytes (the crate's one digest).
    pub sha256: fn(&[u8]) -> String,
}

/// The record file as the edge found it.
#[derive(Debug, Clone, PartialEq)]
pub enum Record {
    /// There is no such file.
    Missing,
    /// It exists and cannot be read (the reason).
    Unreadable(String),
    /// It was read and does not parse in its syntax (the parser's message).
    Unparsable(String),
    Parsed(Value),
}

/// What a trust step judges.
#[derive(Debug)]
pub struct TrustInput<'a> {
    pub record: &'a Record,
    /// The record file's path, as shown to the user.
    pub record_shown: &'a str,
    /// The project root as given, then its canonical form when that differs and is known: a
    /// host may have recorded either.
    pub roots: &'a [PathBuf],
    /// The project root, as shown to the user.
    pub root_shown: &'a str,
    /// What is installed, by scope: the settings file and our handlers in it.
    pub installed: &'a [Installed<'a>],
    /// `sha256:` and the hex digest of the bytes (the crate's one digest).
    pub sha256: fn(&[u8]) -> String,
}

impl TrustInput<'_> {
    /// Whether sophia-hook is installed at the project scope.
    pub fn at_project(&self) -> bool {
        self.installed.iter().any(|i| i.scope == Scope::Project)
    }
}

/// One settings file that registers sophia-hook.
#[derive(Debug)]
pub struct Installed<'a> {
    pub scope: Scope,
    /// The file's path, as shown to the user.
    pub file_shown: String,
    pub handlers: Vec<InstalledHandler<'a>>,
}

/// One of our handlers in a settings file, where it sits.
#[derive(Debug)]
pub struct InstalledHandler<'a> {
    /// The event's name in the file.
    pub event: &'a str,
    pub group_index: usize,
    pub handler_index: usize,
    pub matcher: Option<&'a str>,
    pub handler: &'a Value,
}

/// One thing a trust step found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrustFinding {
    pub verdict: Verdict,
    /// What it is about (`codex project trust`): `doctor`'s area.
    pub area: String,
    pub detail: String,
    pub fix: TrustFix,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Ok,
    Warn,
    Fail,
}

/// How to fix what a trust step found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TrustFix {
    None,
    Say(String),
    /// How to trust the folder: the edge completes it with what trusting the folder also lets
    /// run (every other hook of the project, read from its files).
    TrustFolder(&'static str),
}

impl TrustFinding {
    pub fn new(verdict: Verdict, area: impl Into<String>, detail: String, fix: TrustFix) -> Self {
        TrustFinding {
            verdict,
            area: area.into(),
            detail,
            fix,
        }
    }
}
