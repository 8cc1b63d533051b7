//! The one trust layer for file contents: every read and write of a file goes through here.
//!
//! A repository is untrusted input, so any path we touch may be a symlink to `/dev/zero`, a FIFO
//! that never delivers a byte, a 4 GB file, or a symlink planted where we are about to write.
//! - Reads accept regular files only, checked on the opened handle (opened `O_NONBLOCK`, so a
//!   FIFO never blocks), and refuse anything over a per-kind size cap (`caps`).
//! - Replacing writes are atomic and never follow a symlink: an exclusive-create temporary file
//!   in the target's folder (`tempfile`'s `NamedTempFile`: `O_CREAT|O_EXCL`, `CREATE_NEW` on
//!   Windows), synced, then renamed over a target that must be a regular file or missing; an
//!   existing target keeps its permission bits.
//! - Appends open `O_APPEND|O_NOFOLLOW|O_NONBLOCK`, accept a regular file only and write each line
//!   with one `write` call, so concurrent appenders never interleave inside a line.
//!
//! - A folder is listed through [`list_dir`] only, which fetches at most a given number of
//!   entries: a folder of 250,000 files costs what its first few thousand cost.
//!
//! This module and `edge::platform` are the door: clippy refuses `std::fs::read`,
//! `read_to_string`, `read_dir`, `write`, `File::open`/`create` and `OpenOptions::open` in every
//! other module (`clippy.toml`; `tests/it/layers.rs` keeps any other module from lifting it).
//! Metadata (`symlink_metadata`, `canonicalize`) stays with the callers; contents do not.
#![allow(clippy::disallowed_methods)]

use crate::charset::Shown as _;
use std::fmt;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use super::platform;

mod project;
pub use project::ProjectRoot;

/// Size caps per kind of file. Each kind's cap is declared here once and is the only way to read
/// or write a file: every reader ([`read_bounded`], [`open_bounded`], …) and every writer
/// ([`write_atomic`], [`replace_generated`], …) takes the [`caps::Cap`] of the kind of file it
/// handles, and a write over the cap is refused before anything is written. So nothing
/// sophia-hook writes is refused when it is read back (issue 29: a compiled copy written at
/// 10.6 MB and read under a 4 MiB cap was rebuilt on every prompt). A file over its cap is
/// skipped with a warning when read.
pub mod caps {
    /// A size cap in bytes, for one kind of file.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
    pub struct Cap(u64);

    impl Cap {
        /// The cap in bytes.
        pub const fn bytes(self) -> u64 {
            self.0
        }

        /// A cap of `bytes` for a test of the readers and writers themselves; the crate's own
        /// files take the caps declared below (`tests/it/layers.rs` checks that nothing else
        /// makes one).
        #[doc(hidden)]
        pub const fn for_tests(bytes: u64) -> Cap {
            Cap(bytes)
        }

        /// Whether a file of `len` bytes is within the cap.
        pub const fn admits(self, len: u64) -> bool {
            len <= self.0
        }
    }

    impl std::fmt::Display for Cap {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            write!(f, "{}", self.0)
        }
    }

    /// `.sophia-hook.yaml` (project) and the user-level config.
    pub const CONFIG: Cap = Cap(64 * 1024);
    /// The agent catalog source, the generated catalog and the availability manifest.
    pub const CATALOG: Cap = Cap(1024 * 1024);
    /// One `SKILL.md`.
    pub const SKILL_MD: Cap = Cap(128 * 1024);
    /// The generated skills index and the machine's compiled copy: compiling keeps a catalog
    /// within it (`edge::skills`), so the hook can always read back what was written.
    pub const INDEX: Cap = Cap(4 * 1024 * 1024);
    /// `AGENTS.md` (only a bounded prefix is ever injected; this caps the read).
    pub const AGENTS_MD: Cap = Cap(256 * 1024);
    /// One agent definition file a host reads (`.claude/agents/<id>.md`, `.codex/agents/<id>.toml`).
    pub const DEFINITION: Cap = Cap(256 * 1024);
    /// Carry-forward state, planning state, freshness stamps, our `.gitignore` files and other
    /// small state files.
    pub const STATE: Cap = Cap(1024 * 1024);
    /// A host's settings file (`hooks.json`, `settings.json`), its backup, a plugin's manifests.
    pub const SETTINGS: Cap = Cap(4 * 1024 * 1024);
    /// A host's conversation file (Gemini CLI's `transcript_path`), searched for the bootstrap.
    pub const TRANSCRIPT: Cap = Cap(16 * 1024 * 1024);
    /// An `eval` case file (the largest labelled set is about 100 KiB).
    pub const CASES: Cap = Cap(16 * 1024 * 1024);
    /// A page written for people: the HTML report, a manual page.
    pub const PAGE: Cap = Cap(64 * 1024 * 1024);
    /// A CA bundle (PEM) the telemetry export trusts for its collector: read, never written.
    pub const CERTIFICATE: Cap = Cap(1024 * 1024);
    /// The binary copied into a plugin.
    pub const BINARY: Cap = Cap(1024 * 1024 * 1024);
    /// A file of any size of which only a bounded tail is read (a host's conversation file,
    /// opened with [`super::open_bounded`] and read at offsets): never written by us.
    pub const TAIL_ONLY: Cap = Cap(u64::MAX);
    /// The analytics log: any size, appended a line at a time; the hook reads only its first
    /// bytes (`analytics_log`), `stats` and `report` stream it line by line.
    pub const LOG: Cap = Cap(u64::MAX);

    /// Every cap, by name (for the tables that write and read each one).
    pub const ALL: &[(&str, Cap)] = &[
        ("CONFIG", CONFIG),
        ("CATALOG", CATALOG),
        ("SKILL_MD", SKILL_MD),
        ("INDEX", INDEX),
        ("AGENTS_MD", AGENTS_MD),
        ("DEFINITION", DEFINITION),
        ("STATE", STATE),
        ("SETTINGS", SETTINGS),
        ("TRANSCRIPT", TRANSCRIPT),
        ("CASES", CASES),
        ("PAGE", PAGE),
        ("CERTIFICATE", CERTIFICATE),
        ("BINARY", BINARY),
        ("TAIL_ONLY", TAIL_ONLY),
        ("LOG", LOG),
    ];
}

pub use caps::Cap;

/// What kind of thing a folder entry or a path is (a link is not followed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    File,
    Dir,
    Symlink,
    /// A FIFO, socket or device.
    Other,
}

impl Kind {
    fn of_std(t: &fs::FileType) -> Kind {
        if t.is_symlink() {
            Kind::Symlink
        } else if t.is_dir() {
            Kind::Dir
        } else if t.is_file() {
            Kind::File
        } else {
            Kind::Other
        }
    }

    fn of_cap(t: &cap_std::fs::FileType) -> Kind {
        if t.is_symlink() {
            Kind::Symlink
        } else if t.is_dir() {
            Kind::Dir
        } else if t.is_file() {
            Kind::File
        } else {
            Kind::Other
        }
    }
}

/// One entry of a folder listing: its name and kind (a link is not followed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub name: std::ffi::OsString,
    pub kind: Kind,
}

/// What the door tells of a file: its kind, length, times and identity, the same whichever side
/// (a project's handle, or a user's path) it was read from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileMeta {
    pub kind: Kind,
    pub len: u64,
    /// The modification time, when the system gives one.
    pub modified: Option<std::time::SystemTime>,
    /// Device and inode (volume serial number and file index on Windows).
    pub id: Option<platform::FileId>,
    /// [`platform::change_stamp`]: what changes whenever the contents are replaced.
    pub change: [i64; 3],
    /// The permission bits ([`platform::mode_bits`]).
    pub mode: u32,
}

impl FileMeta {
    pub fn is_file(&self) -> bool {
        self.kind == Kind::File
    }

    pub fn is_dir(&self) -> bool {
        self.kind == Kind::Dir
    }

    pub fn is_symlink(&self) -> bool {
        self.kind == Kind::Symlink
    }

    /// Whether `self` (of an opened handle) and `other` (of a path looked at before the open)
    /// are one file: the same identity where both have one, else the same length and time.
    pub fn is_same_file(&self, other: &FileMeta) -> bool {
        match (self.id, other.id) {
            (Some(a), Some(b)) => a == b,
            _ => self.len == other.len && self.modified == other.modified,
        }
    }

    /// The modification time in nanoseconds since the Unix epoch (0 when unknown).
    pub fn mtime_ns(&self) -> u128 {
        self.modified
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos())
    }

    /// Of a path of the user's (`meta` is its `symlink_metadata` or `metadata`).
    pub fn of_path(path: &Path, meta: &fs::Metadata) -> FileMeta {
        FileMeta {
            kind: Kind::of_std(&meta.file_type()),
            len: meta.len(),
            modified: meta.modified().ok(),
            id: platform::file_id(path, meta),
            change: platform::change_stamp(path, meta),
            mode: platform::mode_bits(meta),
        }
    }

    /// Of an opened handle (`meta` is its `fstat`).
    fn of_handle(file: &File, meta: &fs::Metadata) -> FileMeta {
        let (id, change) = platform::handle_id(file, meta);
        FileMeta {
            kind: Kind::of_std(&meta.file_type()),
            len: meta.len(),
            modified: meta.modified().ok(),
            id,
            change,
            mode: platform::mode_bits(meta),
        }
    }

    /// Of a project entry, from the project's handles.
    pub(crate) fn of_cap(meta: &cap_std::fs::Metadata) -> FileMeta {
        let (id, change, mode) = platform::cap_meta(meta);
        FileMeta {
            kind: Kind::of_cap(&meta.file_type()),
            len: meta.len(),
            modified: meta
                .modified()
                .ok()
                .map(cap_std::time::SystemTime::into_std),
            id,
            change,
            mode,
        }
    }
}

/// A folder's entries, at most `cap` of them ([`list_dir`], [`ProjectRoot::list_dir`]). Entries
/// the system fails to read count towards the cap and are skipped, so an endless run of errors
/// ends too.
pub struct Listing {
    inner: Box<dyn Iterator<Item = io::Result<Entry>>>,
    left: usize,
    over_cap: bool,
}

impl Listing {
    fn new(inner: Box<dyn Iterator<Item = io::Result<Entry>>>, cap: usize) -> Listing {
        Listing {
            inner,
            left: cap,
            over_cap: false,
        }
    }

    /// Whether the folder had more entries than the cap (known once the listing reached it).
    pub fn over_cap(&self) -> bool {
        self.over_cap
    }
}

impl Iterator for Listing {
    type Item = Entry;

    fn next(&mut self) -> Option<Entry> {
        loop {
            if self.left == 0 {
                if !self.over_cap && self.inner.next().is_some() {
                    self.over_cap = true;
                }
                return None;
            }
            self.left -= 1;
            if let Ok(entry) = self.inner.next()? {
                return Some(entry);
            }
        }
    }
}

/// Lists the user's folder `dir`, fetching at most `cap` entries (in the order the system gives
/// them). An error opening it (missing, not a folder) is returned. A project's folders are
/// listed through [`ProjectRoot::list_dir`].
fn list_dir(dir: &Path, cap: usize) -> io::Result<Listing> {
    let entries = fs::read_dir(dir)?.map(|e| {
        let e = e?;
        Ok(Entry {
            name: e.file_name(),
            kind: Kind::of_std(&e.file_type()?),
        })
    });
    Ok(Listing::new(Box::new(entries), cap))
}

/// Where a file is, and so which rules reach it: the one way the crate names a file to read,
/// list or write.
#[derive(Debug, Clone)]
pub enum Place {
    /// In a project, by a path relative to its root, through the root's handle
    /// ([`ProjectRoot`]): never outside it, never into `.git/`, a link at a file only to a
    /// document.
    Project(ProjectRoot, PathBuf),
    /// In a folder of the user's (the home's host folders, our config, cache and state folders,
    /// a path the user's environment or a flag names): the user's own links are followed wherever
    /// they point (dotfiles).
    User(PathBuf),
}

impl Place {
    /// A path of the user's (trusted: never a project's file, see [`Place::Project`]).
    pub fn user(path: impl Into<PathBuf>) -> Place {
        Place::User(path.into())
    }

    /// `name` below this place.
    pub fn join(&self, name: impl AsRef<Path>) -> Place {
        match self {
            Place::Project(root, rel) => Place::Project(root.clone(), rel.join(name)),
            Place::User(path) => Place::User(path.join(name)),
        }
    }

    /// The folder holding this place (`None` at a project's root or a path's top).
    pub fn parent(&self) -> Option<Place> {
        match self {
            Place::Project(root, rel) => rel
                .parent()
                .map(|p| Place::Project(root.clone(), p.to_path_buf())),
            Place::User(path) => path.parent().map(|p| Place::User(p.to_path_buf())),
        }
    }

    /// The last component's name.
    pub fn file_name(&self) -> Option<&std::ffi::OsStr> {
        match self {
            Place::Project(_, rel) => rel.file_name(),
            Place::User(path) => path.file_name(),
        }
    }

    /// The full path, for people (through `.shown()`) and for keys; never for I/O.
    pub fn path(&self) -> PathBuf {
        match self {
            Place::Project(root, rel) => root.path().join(rel),
            Place::User(path) => path.clone(),
        }
    }

    /// The path relative to the project root, for a project's place.
    pub fn project_rel(&self) -> Option<&Path> {
        match self {
            Place::Project(_, rel) => Some(rel),
            Place::User(_) => None,
        }
    }

    pub fn is_project(&self) -> bool {
        matches!(self, Place::Project(..))
    }

    /// The whole file, at most `cap` bytes ([`read_bounded`]'s rules; a project's by its root's).
    pub fn read(&self, cap: Cap) -> Result<Vec<u8>, ReadError> {
        match self {
            Place::Project(root, rel) => root.read(rel, cap),
            Place::User(path) => read_bounded(path, cap),
        }
    }

    /// [`Place::read`] as UTF-8, invalid sequences replaced.
    pub fn read_string(&self, cap: Cap) -> Result<String, ReadError> {
        Ok(lossy_utf8(self.read(cap)?))
    }

    /// The first `cap` bytes and the whole length ([`read_prefix`]).
    pub fn read_prefix(&self, cap: Cap) -> Result<(Vec<u8>, u64), ReadError> {
        match self {
            Place::Project(root, rel) => root.read_prefix(rel, cap),
            Place::User(path) => read_prefix(path, cap),
        }
    }

    /// Opened for reads at offsets ([`open_bounded`]).
    pub fn open_bounded(&self, cap: Cap) -> Result<BoundedFile, ReadError> {
        match self {
            Place::Project(root, rel) => root.open_bounded(rel, cap),
            Place::User(path) => open_bounded(path, cap),
        }
    }

    /// The folder's entries, at most `cap` ([`list_dir`]).
    pub fn list_dir(&self, cap: usize) -> io::Result<Listing> {
        match self {
            Place::Project(root, rel) => root.list_dir(rel, cap),
            Place::User(path) => list_dir(path, cap),
        }
    }

    /// What is at this place itself (a link not followed).
    pub fn symlink_metadata(&self) -> io::Result<FileMeta> {
        match self {
            Place::Project(root, rel) => root.symlink_metadata(rel),
            Place::User(path) => fs::symlink_metadata(path).map(|m| FileMeta::of_path(path, &m)),
        }
    }

    /// What this place leads to (a project's links by the door's rules, the user's wherever they
    /// point).
    pub fn metadata(&self) -> Result<FileMeta, ReadError> {
        match self {
            Place::Project(root, rel) => root.metadata(rel),
            Place::User(path) => Ok(fs::metadata(path).map(|m| FileMeta::of_path(path, &m))?),
        }
    }

    /// Whether anything is at this place (a dangling link counts).
    pub fn exists(&self) -> bool {
        self.symlink_metadata().is_ok()
    }

    /// Whether this place leads to a regular file.
    pub fn is_file(&self) -> bool {
        self.metadata().is_ok_and(|m| m.is_file())
    }

    /// Whether this place leads to a regular file its owner may not write ([`is_read_only`]).
    pub fn is_read_only(&self) -> bool {
        self.metadata()
            .is_ok_and(|m| m.is_file() && m.mode & 0o200 == 0)
    }

    /// Whether this place leads to a folder.
    pub fn is_dir(&self) -> bool {
        self.metadata().is_ok_and(|m| m.is_dir())
    }

    /// Atomic, never through a link at the file ([`write_atomic`]).
    pub fn write_atomic(&self, contents: &[u8], cap: Cap) -> io::Result<()> {
        match self {
            Place::Project(root, rel) => root.write_atomic(rel, contents, cap),
            Place::User(path) => write_atomic(path, contents, cap),
        }
    }

    /// Never over a file we did not create ([`replace_generated`]).
    pub fn replace_generated(
        &self,
        contents: &[u8],
        cap: Cap,
        is_ours: impl Fn(&[u8]) -> bool,
    ) -> io::Result<()> {
        match self {
            Place::Project(root, rel) => root.replace_generated(rel, contents, cap, is_ours),
            Place::User(path) => replace_generated(path, contents, cap, is_ours),
        }
    }

    /// Removes the file or link itself.
    /// A user's file with other names (hard links) is refused, as [`Place::write_atomic`]
    /// refuses it: the other names would keep what this removal meant to take away.
    pub fn remove_file(&self) -> io::Result<()> {
        match self {
            Place::Project(root, rel) => root.remove_file(rel),
            Place::User(path) => match fs::symlink_metadata(path) {
                Ok(meta) if meta.is_file() && platform::link_count(&meta) > 1 => {
                    Err(hard_linked(path, &meta))
                }
                _ => fs::remove_file(path),
            },
        }
    }

    /// Removes the empty folder itself.
    pub fn remove_dir(&self) -> io::Result<()> {
        match self {
            Place::Project(root, rel) => root.remove_dir(rel),
            Place::User(path) => fs::remove_dir(path),
        }
    }

    /// The user's own path of this place; a project's place is refused (what only the user's
    /// folders hold: state, logs, backups).
    fn user_path(&self) -> io::Result<&Path> {
        match self {
            Place::User(path) => Ok(path),
            Place::Project(..) => Err(io::Error::new(
                io::ErrorKind::PermissionDenied,
                "not a file of the user's folders",
            )),
        }
    }

    /// A backup copy with `mode`, the permission bits of the file it copies ([`write_backup`]);
    /// the user's folders only.
    pub fn write_backup(&self, contents: &[u8], cap: Cap, mode: u32) -> io::Result<()> {
        write_backup(self.user_path()?, contents, cap, mode)
    }

    /// A file meant to be shared or run, with `mode` ([`write_atomic_mode`]).
    pub fn write_atomic_mode(&self, contents: &[u8], cap: Cap, mode: u32) -> io::Result<()> {
        match self {
            Place::Project(root, rel) => root.write_atomic_mode(rel, contents, cap, mode),
            Place::User(path) => write_atomic_mode(path, contents, cap, mode),
        }
    }

    /// A folder written whole, never half ([`write_folder`]); the user's folders only.
    pub fn write_folder(&self, files: &[FolderFile<'_>]) -> io::Result<FolderWritten> {
        write_folder(self.user_path()?, files)
    }

    /// One whole line appended ([`append_line`]); the user's folders only.
    pub fn append_line(&self, line: &str) -> io::Result<()> {
        append_line(self.user_path()?, line)
    }

    /// Whether [`Place::append_line`] could write here ([`appendable`]).
    pub fn appendable(&self, creates_folder: bool) -> io::Result<()> {
        appendable(self.user_path()?, creates_folder)
    }

    /// The file line by line, at most `max_line` bytes of a line held ([`for_each_line`]); the
    /// user's folders only.
    pub fn for_each_line(
        &self,
        max_line: usize,
        each: impl FnMut(&[u8]),
    ) -> Result<LinesRead, ReadError> {
        let path = self.user_path().map_err(ReadError::Io)?;
        for_each_line(path, max_line, each)
    }

    /// The file's lines from byte `from` on ([`lines_from`]): each with the offset just past it,
    /// until `each` stops or the file ends; the user's folders only.
    pub fn lines_from(
        &self,
        from: u64,
        max_line: usize,
        each: impl FnMut(Line<'_>) -> Take,
    ) -> Result<LinesFrom, ReadError> {
        let path = self.user_path().map_err(ReadError::Io)?;
        lines_from(path, from, max_line, each)
    }

    /// An empty stamp (written as [`Place::write_atomic`] writes) whose modification time is
    /// `at`, which may be in the future (a time before which something is not due); the user's
    /// folders only.
    pub fn write_stamp(&self, at: std::time::SystemTime) -> io::Result<()> {
        let path = self.user_path()?;
        write_atomic(path, b"", caps::STATE)?;
        let file = platform::nofollow_flags(OpenOptions::new().write(true))
            .open(path)
            .map_err(|e| platform::nofollow_error(e, path))?;
        platform::refuse_link_on_handle(&file, path)?;
        file.set_modified(at)
    }

    /// The exclusive lock file `<self>.lock` taken if nobody holds it, without waiting: held
    /// until the guard is dropped; `None` when another process holds it; the user's folders only.
    pub fn try_lock(&self) -> io::Result<Option<LockGuard>> {
        let mut lock = self.user_path()?.as_os_str().to_os_string();
        lock.push(".lock");
        let file = open_lock(Path::new(&lock))?;
        match file.try_lock() {
            Ok(()) => Ok(Some(LockGuard { _file: file })),
            Err(fs::TryLockError::WouldBlock) => Ok(None),
            Err(fs::TryLockError::Error(e)) => Err(e),
        }
    }

    /// Runs `f` holding the exclusive lock file `<self>.lock`, waiting at most `wait` for another
    /// holder ([`with_lock`]): `None` when the wait ran out; the user's folders only.
    pub fn locked_within<T>(
        &self,
        wait: std::time::Duration,
        f: impl FnOnce() -> T,
    ) -> io::Result<Option<T>> {
        let mut lock = self.user_path()?.as_os_str().to_os_string();
        lock.push(".lock");
        match with_lock(Path::new(&lock), wait, f) {
            Ok(out) => Ok(Some(out)),
            Err(e) if e.kind() == io::ErrorKind::TimedOut => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// A best-effort JSON state file ([`read_json_or_default`]).
    pub fn read_json_or_default<T: serde::de::DeserializeOwned + Default>(&self) -> T {
        self.read(caps::STATE)
            .ok()
            .and_then(|b| crate::bounded::json(&b, crate::bounded::FILE).ok())
            .unwrap_or_default()
    }

    /// A best-effort JSON state file written ([`write_json_atomic`]); the user's folders only.
    pub fn write_json_atomic<T: serde::Serialize>(&self, value: &T) -> io::Result<()> {
        write_json_atomic(self.user_path()?, value)
    }

    /// A read-modify-write of a JSON state file under its lock ([`update_json`]); the user's
    /// folders only.
    pub fn update_json<T: serde::de::DeserializeOwned + serde::Serialize + Default>(
        &self,
        update: impl FnOnce(&mut T) -> bool,
    ) -> io::Result<()> {
        update_json(self.user_path()?, update)
    }

    /// Creates the folder and its missing parents, private.
    pub fn create_dir_all(&self) -> io::Result<()> {
        match self {
            Place::Project(root, rel) => root.create_dir_all(rel),
            Place::User(path) => create_private_dir_all(path),
        }
    }
}

/// Why a bounded read gave nothing.
#[derive(Debug)]
pub enum ReadError {
    /// No file at the path (or a path component is not a folder).
    Missing,
    /// A folder, FIFO, socket or device, or a symlink to one.
    NotRegular,
    /// Larger than the cap for its kind.
    TooLarge { cap: u64 },
    /// Named like a secret (`.env`, a private key, a host's credentials), or a link to such a
    /// file: never read, whoever asks ([`is_secret_name`]).
    Secret,
    /// A project path the door does not follow ([`Outside`]: out of the project, into `.git/`, a
    /// link at a file that does not end at a document).
    Refused(Outside),
    /// Any other I/O failure (permissions, ...).
    Io(io::Error),
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::Missing => f.write_str("missing"),
            ReadError::NotRegular => f.write_str("not a regular file"),
            ReadError::TooLarge { cap } => write!(f, "larger than the {cap}-byte cap"),
            ReadError::Secret => f.write_str("named like a secret, never read"),
            ReadError::Refused(why) => write!(f, "{why}"),
            ReadError::Io(e) => write!(f, "unreadable ({})", e.kind()),
        }
    }
}

impl std::error::Error for ReadError {}

impl From<io::Error> for ReadError {
    fn from(e: io::Error) -> Self {
        match e.kind() {
            io::ErrorKind::NotFound | io::ErrorKind::NotADirectory => ReadError::Missing,
            _ => ReadError::Io(e),
        }
    }
}

/// Reads a whole regular file of at most `cap` bytes. Symlinks are followed (containment is the
/// caller's check), but the file reached must be regular: checked before opening, so a device is
/// never opened, and again on the opened handle, so a swap in between is caught. The open is
/// non-blocking, so a FIFO never blocks, and the read stops at `cap + 1` bytes whatever `stat` said.
fn read_bounded(path: &Path, cap: Cap) -> Result<Vec<u8>, ReadError> {
    let (file, meta) = open_regular(path, cap.bytes())?;
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(cap.bytes().saturating_add(1))
        .read_to_end(&mut bytes)?;
    if !cap.admits(bytes.len() as u64) {
        return Err(ReadError::TooLarge { cap: cap.bytes() });
    }
    Ok(bytes)
}

/// The first `cap` bytes of a regular file, and the file's whole length, for documents that are
/// used as a truncated prefix (`AGENTS.md`). The same checks as [`read_bounded`], but a longer
/// file is cut instead of refused.
fn read_prefix(path: &Path, cap: Cap) -> Result<(Vec<u8>, u64), ReadError> {
    let (file, meta) = open_regular(path, u64::MAX)?;
    let mut bytes = Vec::with_capacity(meta.len().min(cap.bytes()) as usize);
    file.take(cap.bytes()).read_to_end(&mut bytes)?;
    Ok((bytes, meta.len()))
}

/// Bytes as UTF-8, invalid sequences replaced (no copy when they are valid).
fn lossy_utf8(bytes: Vec<u8>) -> String {
    match String::from_utf8(bytes) {
        Ok(s) => s,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    }
}

/// A regular file of at most a cap's bytes, opened for reads at offsets: a compiled skills index
/// read lazily (only the parts a prompt needs). Opened with the checks of [`read_bounded`]; every
/// read is bounded by the length found on the opened handle.
#[derive(Debug)]
pub struct BoundedFile {
    file: File,
    len: u64,
}

/// Opens `path` like [`read_bounded`] (regular file only, checked before and on the handle,
/// non-blocking, at most `cap` bytes) without reading it.
fn open_bounded(path: &Path, cap: Cap) -> Result<BoundedFile, ReadError> {
    let (file, meta) = open_regular(path, cap.bytes())?;
    Ok(BoundedFile {
        file,
        len: meta.len(),
    })
}

impl BoundedFile {
    /// The metadata of the opened file (`fstat` on the handle, not a look-up of its name): what a
    /// freshness check compares is the file that is read.
    pub fn metadata(&self) -> io::Result<fs::Metadata> {
        self.file.metadata()
    }

    /// What the door tells of the opened file (from its handle: identity, change stamp, size,
    /// time), for freshness stamps that must vouch for the file that is read.
    pub fn meta(&self) -> io::Result<FileMeta> {
        let meta = self.file.metadata()?;
        Ok(FileMeta::of_handle(&self.file, &meta))
    }

    /// The length of the file when it was opened.
    pub fn len(&self) -> u64 {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether the opened file is the one `meta` (from `symlink_metadata` on its path) describes:
    /// a path swapped between that check and the open is caught. Unix compares device and inode;
    /// elsewhere, length and modification time.
    pub fn is_same_file(&self, meta: &fs::Metadata) -> bool {
        self.file
            .metadata()
            .is_ok_and(|open| same_identity(&open, meta))
    }

    /// The whole file as opened (its length then), as UTF-8 with invalid sequences replaced, like
    /// [`read_bounded_string`]. A file that shrank since it was opened is an error.
    pub fn read_to_string(&self) -> io::Result<String> {
        Ok(lossy_utf8(self.read_at(0, self.len as usize)?))
    }

    /// Up to `len` bytes from `offset`: fewer at the end of the file, none past it. A file that
    /// shrank since it was opened is an error.
    pub fn read_at(&self, offset: u64, len: usize) -> io::Result<Vec<u8>> {
        let n = (len as u64).min(self.len.saturating_sub(offset)) as usize;
        let mut buf = vec![0; n];
        platform::read_exact_at(&self.file, &mut buf, offset)?;
        Ok(buf)
    }
}

/// Opens a regular file of at most `cap` bytes for reading: checked before opening (a device is
/// never opened) and again on the handle (a swap in between is caught), opened non-blocking (a
/// FIFO never blocks). The metadata is the handle's.
///
/// A file named like a secret is refused, and so is a link to one (`AGENTS.md -> .env`): the name
/// checked is the one the link chain ends at, and the opened handle must be that file, so a swap
/// after the check is refused too.
fn open_regular(path: &Path, cap: u64) -> Result<(File, fs::Metadata), ReadError> {
    if is_secret_name(path) {
        return Err(ReadError::Secret);
    }
    let target = match fs::symlink_metadata(path)?.file_type().is_symlink() {
        true => Some(dunce::canonicalize(path)?),
        false => None,
    };
    if target.as_deref().is_some_and(is_secret_name) {
        return Err(ReadError::Secret);
    }
    check_regular(&fs::metadata(path)?, cap)?;
    let file = platform::read_flags(OpenOptions::new().read(true)).open(path)?;
    let meta = file.metadata()?;
    check_regular(&meta, cap)?;
    if let Some(target) = &target
        && !same_identity(&meta, &fs::symlink_metadata(target)?)
    {
        return Err(ReadError::Secret);
    }
    Ok((file, meta))
}

/// Whether the metadata of an opened handle (`open`) and of a path (`other`) are one file: Unix
/// compares device and inode; elsewhere, length and modification time.
fn same_identity(open: &fs::Metadata, other: &fs::Metadata) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        open.dev() == other.dev() && open.ino() == other.ino()
    }
    #[cfg(not(unix))]
    {
        open.len() == other.len() && open.modified().ok() == other.modified().ok()
    }
}

/// Whether a file's name says it holds a secret: `.env` and `.env.<anything>` but the
/// `.example`/`.sample`/`.template`/`.dist` ones, private keys and certificates (`*.pem`, `*.key`,
/// `*.p12`, `*.pfx`, `id_rsa`, `id_ed25519`, … but not their `.pub`), `.netrc`, `.npmrc`,
/// `.pypirc`, `.git-credentials`, `credentials`/`credentials.json`, and the hosts' own credential
/// files (Codex `auth.json`, Claude Code `.credentials.json`, Gemini CLI `oauth_creds.json`).
/// Case-insensitive. No file sophia-hook reads has such a name.
pub fn is_secret_name(path: &Path) -> bool {
    let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
        return false;
    };
    let name = name.to_ascii_lowercase();
    let public = [".example", ".sample", ".template", ".dist", ".pub"]
        .iter()
        .any(|s| name.ends_with(s));
    if public {
        return false;
    }
    const EXACT: &[&str] = &[
        ".env",
        ".netrc",
        "_netrc",
        ".npmrc",
        ".pypirc",
        ".git-credentials",
        "credentials",
        "credentials.json",
        ".credentials.json",
        "auth.json",
        "oauth_creds.json",
        "id_rsa",
        "id_dsa",
        "id_ecdsa",
        "id_ed25519",
    ];
    const EXTENSIONS: &[&str] = &[".pem", ".key", ".p12", ".pfx", ".keystore", ".jks"];
    EXACT.contains(&name.as_str())
        || name.starts_with(".env.")
        || EXTENSIONS.iter().any(|e| name.ends_with(e))
}

fn check_regular(meta: &fs::Metadata, cap: u64) -> Result<(), ReadError> {
    if !meta.is_file() {
        return Err(ReadError::NotRegular);
    }
    if meta.len() > cap {
        return Err(ReadError::TooLarge { cap });
    }
    Ok(())
}

/// Appends one whole line with a single `write` call. The file is opened `O_APPEND|O_NOFOLLOW`
/// (a symlink at the path is refused) and non-blocking, and must be a regular file: a FIFO,
/// device or socket is refused before anything is written. A new file is created `0600`. The
/// parent folder is not created: callers create it only inside the user's own directories.
fn append_line(path: &Path, line: &str) -> io::Result<()> {
    refuse_special(path)?;
    let mut file = platform::nofollow_flags(platform::private_mode(
        OpenOptions::new().create(true).append(true),
    ))
    .open(path)
    .map_err(|e| platform::nofollow_error(e, path))?;
    platform::refuse_link_on_handle(&file, path)?;
    if !file.metadata()?.is_file() {
        return Err(not_regular(path));
    }
    let written = file.write(line.as_bytes())?;
    if written != line.len() {
        return Err(io::Error::new(io::ErrorKind::WriteZero, "short append"));
    }
    Ok(())
}

/// Whether [`append_line`] could write to `path`, checked without leaving anything behind (for
/// `doctor`): an existing file must be regular (not a symlink, FIFO or device) and open for
/// appending (non-blocking, not followed); a missing one needs a writable folder, probed with an
/// exclusive-create file that is removed at once. A missing folder counts only when the caller
/// creates it (`creates_folder`: the default analytics log).
fn appendable(path: &Path, creates_folder: bool) -> io::Result<()> {
    if let Ok(meta) = fs::symlink_metadata(path) {
        if meta.file_type().is_symlink() || !meta.is_file() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "a symlink or not a regular file, which the hook refuses",
            ));
        }
        return platform::nofollow_flags(OpenOptions::new().append(true))
            .open(path)
            .and_then(|f| platform::refuse_link_on_handle(&f, path));
    }
    if !creates_folder && !path.parent().is_some_and(Path::is_dir) {
        return Err(io::Error::new(
            io::ErrorKind::NotFound,
            "its folder does not exist, and only the default log's folder is created",
        ));
    }
    let dir = path
        .ancestors()
        .skip(1)
        .find(|d| d.is_dir())
        .unwrap_or(Path::new("."));
    let probe = dir.join(format!(".sophia-hook-doctor-{}", std::process::id()));
    platform::nofollow_create_flags(OpenOptions::new().create_new(true).write(true))
        .open(&probe)
        .map(|_| {
            let _ = fs::remove_file(&probe);
        })
}

/// Writes `contents` to `path` atomically, never through a symlink. The parent folder is created
/// if missing, `0700` (callers decide which folders are allowed). The target must be missing or a
/// regular file (a symlink, FIFO, device or folder there is refused); an existing target keeps its
/// permission bits, a new one is `0600` whatever the umask (`docs/security.md` `### I6`). The bytes go to an exclusive-create
/// temporary sibling (`O_CREAT|O_EXCL|O_NOFOLLOW`, so a pre-planted symlink or file at the temp
/// name fails the open instead of redirecting it), are synced, and the temp is renamed over the
/// target. The only file it ever deletes is the temporary it created in this call, through its
/// own handle or path (`docs/security.md` `### I10`): a file named like our temporaries is never
/// removed, whoever made it.
///
/// `cap` is the cap its reader applies to this kind of file ([`caps`]): contents over it are
/// refused (`FileTooLarge`) and nothing is written.
fn write_atomic(path: &Path, contents: &[u8], cap: Cap) -> io::Result<()> {
    write_atomic_with(path, contents, cap, true, None)
}

/// [`write_atomic`] for a generated artifact, which never replaces a file sophia-hook did not
/// create (`docs/security.md` `### I4`): the target must be missing, or a regular file (not a
/// symlink) of at most `cap` bytes whose contents carry our marker (`is_ours`). Anything else is
/// refused with `AlreadyExists` and left as it was.
fn replace_generated(
    path: &Path,
    contents: &[u8],
    cap: Cap,
    is_ours: impl Fn(&[u8]) -> bool,
) -> io::Result<()> {
    let refuse = |why: &str| {
        Err(io::Error::new(
            io::ErrorKind::AlreadyExists,
            format!(
                "refusing to replace {}: {why}; nothing was written (remove it, or choose another path)",
                path.shown()
            ),
        ))
    };
    match fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => return refuse("it is a symlink"),
        Ok(_) => match read_bounded(path, cap) {
            Ok(bytes) if is_ours(&bytes) => {}
            Ok(_) | Err(ReadError::TooLarge { .. }) => {
                return refuse("it was not generated by sophia-hook");
            }
            Err(ReadError::Missing) => {}
            Err(e) => return refuse(&e.to_string()),
        },
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(e),
    }
    write_atomic(path, contents, cap)
}

/// [`write_atomic`] for a backup copy: the file gets `mode` (the permission bits of the file it
/// copies), new or not, so a backup is never more readable than its original.
fn write_backup(path: &Path, contents: &[u8], cap: Cap, mode: u32) -> io::Result<()> {
    write_atomic_with(path, contents, cap, true, Some(mode & 0o777))
}

/// [`write_atomic`] for a file meant to be shared or run (a plugin's manifests and binary): it
/// gets `mode` (`0o644`, `0o755`), new or not, instead of the private `0600`.
fn write_atomic_mode(path: &Path, contents: &[u8], cap: Cap, mode: u32) -> io::Result<()> {
    write_atomic_with(path, contents, cap, true, Some(mode & 0o777))
}

/// Creates `dir` and its missing parents `0700` (whatever the umask); existing folders keep
/// their mode. Every folder sophia-hook creates goes through here (`docs/security.md` `### I6`).
fn create_private_dir_all(dir: &Path) -> io::Result<()> {
    platform::create_private_dir_all(dir)
}

/// [`write_atomic`]; `durable: false` skips the `fsync`s (best-effort state under a lock, where
/// a crash may lose the last update but must not make every concurrent hook wait for the disk);
/// `mode` forces the permission bits (backups).
/// Why a file with more than one name is not replaced.
fn hard_linked(path: &Path, meta: &fs::Metadata) -> io::Error {
    io::Error::other(format!(
        "{} has {} hard links: replacing it would leave the other names on the old file; it was left untouched (make the other names a symbolic link to it, then try again)",
        path.shown(),
        platform::link_count(meta)
    ))
}

fn write_atomic_with(
    path: &Path,
    contents: &[u8],
    cap: Cap,
    durable: bool,
    forced_mode: Option<u32>,
) -> io::Result<()> {
    // Checked first: a file its reader would refuse is never written, nor its folder created.
    if !cap.admits(contents.len() as u64) {
        return Err(over_cap(path, contents.len(), cap));
    }
    let parent = match path.parent().filter(|p| !p.as_os_str().is_empty()) {
        Some(parent) => parent,
        None => Path::new("."),
    };
    create_private_dir_all(parent)?;
    let name = path
        .file_name()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "path has no file name"))?
        .to_string_lossy()
        .into_owned();
    let mode = match fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => return Err(platform::symlink_refused(path)),
        Ok(meta) if !meta.is_file() => return Err(not_regular(path)),
        // A file with other names (a dotfiles setup's hard link): a rename would give this name
        // a new file and silently leave the others on the old one (issue 48, class 4). Refused,
        // untouched; a symbolic link is followed by the writers that mean to (hostconfig).
        Ok(meta) if platform::link_count(&meta) > 1 => return Err(hard_linked(path, &meta)),
        Ok(meta) => Some(platform::kept_permissions(&meta)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) => return Err(e),
    };
    let mut tmp = create_temp(parent, &name)?;
    // A new file is 0600 exactly (the umask can only have removed bits from it); a replaced one
    // keeps its permissions; a backup gets the mode it is given.
    let permissions = match (forced_mode, mode) {
        (Some(forced), _) => platform::mode_permissions(tmp.as_file(), forced)?,
        (None, Some(kept)) => kept,
        (None, None) => platform::mode_permissions(tmp.as_file(), 0o600)?,
    };
    // Every early return drops `tmp`, which removes the temporary file.
    tmp.write_all(contents)?;
    if durable {
        tmp.as_file().sync_all()?;
    }
    // Renamed with `platform::replace_file` (`std::fs::rename`), not `NamedTempFile::persist`:
    // on Windows `persist` is a plain `MoveFileExW`, whose replace fails while a reader has the
    // target open; std renames with POSIX semantics where Windows has them
    // (`FILE_RENAME_FLAG_POSIX_SEMANTICS`), which replace an open file as `rename(2)` does, and
    // where it has not the platform layer tries again while a reader holds the target. `keep`
    // first clears the attributes Windows gave the temporary file (so the permissions, which
    // there are the read-only attribute, are set after it) and hands the removal on failure to us.
    let (file, tmp_path) = tmp.keep().map_err(|e| e.error)?;
    let renamed = file.set_permissions(permissions).and_then(|()| {
        drop(file);
        platform::replace_file(&tmp_path, path)
    });
    if let Err(e) = renamed {
        let _ = fs::remove_file(&tmp_path);
        return Err(e);
    }
    // Make the rename durable too; a folder that cannot be synced is not an error.
    if durable && let Ok(dir) = File::open(parent) {
        let _ = dir.sync_all();
    }
    Ok(())
}

/// Why a project path was refused by [`inside_project`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outside {
    /// An absolute path, or one with `..`, that does not stay under the project root.
    Escapes,
    /// The path (after following symlinks) leaves the project.
    SymlinkOut,
    /// The path is inside `.git/` (git's own files: config, hooks, objects).
    GitDir,
    /// A link at a file that does not end at a document (`*.md`): a project's file is read
    /// through a link only when it leads to another document (`CLAUDE.md -> AGENTS.md`).
    LinkNotDocument,
    /// Deeper than any project path the crate reads or writes ([`ProjectRoot`]'s
    /// `MAX_COMPONENTS`), written or reached through links: resolving it would cost work a
    /// repository chooses.
    TooDeep,
}

impl fmt::Display for Outside {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Outside::Escapes => "outside the project",
            Outside::SymlinkOut => "a symlink out of the project",
            Outside::GitDir => "inside .git/",
            Outside::LinkNotDocument => "a link that does not end at a document",
            Outside::TooDeep => "deeper than a project path may be",
        })
    }
}

impl Outside {
    /// A short code for warnings and debug lines (`outside-project`, `git-dir`).
    pub fn code(self) -> &'static str {
        match self {
            Outside::Escapes | Outside::SymlinkOut => "outside-project",
            Outside::GitDir => "git-dir",
            Outside::LinkNotDocument => "link-not-a-document",
            Outside::TooDeep => "too-deep",
        }
    }
}

/// Whether the file a project's link really leads to (`resolved`, as [`inside_project`] or a
/// canonicalisation gives it) is a document: named `*.md`. A project document or `SKILL.md` is
/// read through a link only then — `CLAUDE.md -> AGENTS.md` and `SKILL.md -> ../shared/pdf.md`
/// are, a link to `.envrc`, `id_rsa.bak`, `prod.env` or anything else is not, whatever a list of
/// secret names would miss (blind pass, cases 1, 2, 4 and 54).
pub fn is_document(resolved: &Path) -> bool {
    resolved
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("md"))
}

/// Reads a best-effort JSON state file (capped at [`caps::STATE`]); a missing, oversized,
/// special or corrupt file gives the default value.
fn read_json_or_default<T: serde::de::DeserializeOwned + Default>(path: &Path) -> T {
    read_bounded(path, caps::STATE)
        .ok()
        .and_then(|b| crate::bounded::json(&b, crate::bounded::FILE).ok())
        .unwrap_or_default()
}

/// Writes a best-effort JSON state file atomically (never torn, never through a symlink), without
/// waiting for the disk.
fn write_json_atomic<T: serde::Serialize>(path: &Path, value: &T) -> io::Result<()> {
    let json = serde_json::to_vec(value).map_err(io::Error::other)?;
    write_atomic_with(path, &json, caps::STATE, false, None)
}

/// How long a state update waits for another process's lock before giving up, by default (best
/// effort: the hook never waits longer than this for its state). `SOPHIA_STATE_LOCK_MS` changes
/// it through [`set_lock_wait`].
pub const LOCK_WAIT: std::time::Duration = std::time::Duration::from_millis(2000);

static LOCK_WAIT_MS: AtomicU64 = AtomicU64::new(2000);

/// Sets the wait of [`update_json`] for this process (from the user's environment).
pub fn set_lock_wait(wait: std::time::Duration) {
    LOCK_WAIT_MS.store(
        u64::try_from(wait.as_millis()).unwrap_or(u64::MAX),
        Ordering::Relaxed,
    );
}

fn lock_wait() -> std::time::Duration {
    std::time::Duration::from_millis(LOCK_WAIT_MS.load(Ordering::Relaxed))
}

/// Runs `f` while holding an exclusive lock (`File::lock`: `flock` on Unix, `LockFileEx` on
/// Windows) on the file `lock` (created `0600` in an existing
/// or newly created folder, never through a symlink, never a FIFO). Waits in the kernel (no
/// polling) on a helper thread for at most `wait`; `ErrorKind::TimedOut` when another process
/// holds the lock longer (the helper keeps waiting until the process exits, harmlessly). The lock
/// is released when the file is closed, so a killed holder never leaves it stuck.
fn with_lock<T>(lock: &Path, wait: std::time::Duration, f: impl FnOnce() -> T) -> io::Result<T> {
    let file = open_lock(lock)?;
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let result = loop {
            match file.lock() {
                Ok(()) => break Ok(file),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => break Err(e),
            }
        };
        let _ = tx.send(result);
    });
    let locked = match rx.recv_timeout(wait) {
        Ok(result) => result?,
        Err(_) => {
            return Err(io::Error::new(
                io::ErrorKind::TimedOut,
                "another process holds the state lock",
            ));
        }
    };
    let out = f();
    drop(locked);
    Ok(out)
}

/// A lock held until dropped ([`Place::try_lock`]); closing the file releases it, so a killed
/// holder never leaves it stuck.
#[derive(Debug)]
pub struct LockGuard {
    _file: File,
}

/// The lock file `lock` opened as [`with_lock`] opens it (private, never through a link, a
/// regular file).
fn open_lock(lock: &Path) -> io::Result<File> {
    if let Some(parent) = lock.parent().filter(|p| !p.as_os_str().is_empty()) {
        create_private_dir_all(parent)?;
    }
    refuse_special(lock)?;
    let file = platform::nofollow_flags(platform::private_mode(
        OpenOptions::new().create(true).truncate(false).write(true),
    ))
    .open(lock)
    .map_err(|e| platform::nofollow_error(e, lock))?;
    platform::refuse_link_on_handle(&file, lock)?;
    if !file.metadata()?.is_file() {
        return Err(not_regular(lock));
    }
    Ok(file)
}

/// Read-modify-write of a JSON state file under its lock (`<path>.lock`), so concurrent sessions
/// never lose each other's updates. `update` returns whether to write the state back.
fn update_json<T: serde::de::DeserializeOwned + serde::Serialize + Default>(
    path: &Path,
    update: impl FnOnce(&mut T) -> bool,
) -> io::Result<()> {
    let mut lock = path.as_os_str().to_os_string();
    lock.push(".lock");
    with_lock(Path::new(&lock), lock_wait(), || {
        let mut state: T = read_json_or_default(path);
        if update(&mut state) {
            write_json_atomic(path, &state)
        } else {
            Ok(())
        }
    })?
}

const TEMP_MARK: &str = ".sophia-tmp-";

fn temp_prefix(name: &str) -> String {
    format!(".{name}{TEMP_MARK}")
}

/// One file of a folder written whole ([`Place::write_folder`]).
#[derive(Debug, Clone, Copy)]
pub struct FolderFile<'a> {
    /// Below the folder, `/`-separated, no `..`.
    pub path: &'a str,
    pub contents: &'a [u8],
    /// The cap of its kind (its reader's).
    pub cap: Cap,
    /// Its permission bits (`0600`, or `0700` for a program).
    pub mode: u32,
}

/// What [`Place::write_folder`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FolderWritten {
    /// The folder was new.
    Created,
    /// An existing folder was replaced. `left`: the folder it was moved aside to, still holding
    /// something we did not write (removed otherwise).
    Replaced { left: Option<PathBuf> },
}

/// Writes the folder `dir` whole: every file into a new private sibling folder
/// (`.<name>.sophia-tmp-<pid>-<random>`, created exclusively, `0700`; its folders `0700`, each
/// file with its mode), then that folder renamed to `dir`, so nobody ever sees it half written.
/// An existing `dir` is first renamed aside (`.<name>.sophia-old-<pid>-<random>`) and, once the
/// new one is in place, the files of it that `files` names are removed, then its folders once
/// empty: nothing else of it is touched (`docs/security.md` `### I10`), and a folder left holding
/// something else stays aside, said in the result. A failure before the rename removes what this
/// call wrote and leaves `dir` as it was.
fn write_folder(dir: &Path, files: &[FolderFile<'_>]) -> io::Result<FolderWritten> {
    let (Some(parent), Some(name)) = (dir.parent(), dir.file_name()) else {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{}: not a folder name", dir.shown()),
        ));
    };
    if files.iter().any(|f| {
        f.path
            .split('/')
            .any(|c| c.is_empty() || c == "." || c == "..")
    }) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "a file of the folder is not a plain relative path",
        ));
    }
    let name = name.to_string_lossy();
    create_private_dir_all(parent)?;
    let staged = create_temp_dir(parent, &format!(".{name}{TEMP_MARK}"))?;
    let written = (|| {
        for f in files {
            let path = f.path.split('/').fold(staged.clone(), |p, c| p.join(c));
            if let Some(folder) = path.parent() {
                create_private_dir_all(folder)?;
            }
            write_atomic_mode(&path, f.contents, f.cap, f.mode)?;
        }
        Ok(())
    })();
    if let Err(e) = written {
        remove_written(&staged, files);
        return Err(e);
    }
    match fs::symlink_metadata(dir) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => match fs::rename(&staged, dir) {
            Ok(()) => Ok(FolderWritten::Created),
            Err(e) => {
                remove_written(&staged, files);
                Err(e)
            }
        },
        Ok(meta) if meta.is_dir() => {
            let aside = create_temp_dir(parent, &format!(".{name}.sophia-old-"))?;
            // The aside name is ours and empty: the old folder takes its place.
            let _ = fs::remove_dir(&aside);
            if let Err(e) = fs::rename(dir, &aside) {
                remove_written(&staged, files);
                return Err(e);
            }
            if let Err(e) = fs::rename(&staged, dir) {
                // Put the old folder back: `dir` stays as it was.
                let _ = fs::rename(&aside, dir);
                remove_written(&staged, files);
                return Err(e);
            }
            remove_written(&aside, files);
            Ok(FolderWritten::Replaced {
                left: fs::symlink_metadata(&aside).is_ok().then_some(aside),
            })
        }
        Ok(_) => {
            remove_written(&staged, files);
            Err(io::Error::new(
                io::ErrorKind::AlreadyExists,
                format!(
                    "refusing to replace {}: it is not a folder; nothing was written",
                    dir.shown()
                ),
            ))
        }
        Err(e) => {
            remove_written(&staged, files);
            Err(e)
        }
    }
}

/// A new empty private folder `<prefix><pid>-<random>` in `parent`, created exclusively.
fn create_temp_dir(parent: &Path, prefix: &str) -> io::Result<PathBuf> {
    let dir = tempfile::Builder::new()
        .prefix(&format!("{prefix}{}-", std::process::id()))
        .rand_bytes(8)
        .tempdir_in(parent)?
        .keep();
    // Exactly 0700, whatever the umask took away.
    platform::set_private_dir_mode(&dir)?;
    Ok(dir)
}

/// Removes from `dir` the regular files `files` names (never a link, never anything else),
/// then each folder on their paths once empty, then `dir` once empty. Best effort.
fn remove_written(dir: &Path, files: &[FolderFile<'_>]) {
    let mut folders = std::collections::BTreeSet::new();
    for f in files {
        let path = f.path.split('/').fold(dir.to_path_buf(), |p, c| p.join(c));
        if fs::symlink_metadata(&path).is_ok_and(|m| m.is_file()) {
            let _ = fs::remove_file(&path);
        }
        let mut at = path.parent();
        while let Some(folder) = at.filter(|a| a.starts_with(dir) && *a != dir) {
            folders.insert(folder.to_path_buf());
            at = folder.parent();
        }
    }
    // Deepest first.
    for folder in folders.iter().rev() {
        let _ = fs::remove_dir(folder);
    }
    let _ = fs::remove_dir(dir);
}

/// Creates `.<name>.sophia-tmp-<pid>-<random>` exclusively with `tempfile` (`O_CREAT|O_EXCL`,
/// mode `0600`; `CREATE_NEW` on Windows), which never follows a symlink or reparse point planted
/// at the name and retries with fresh random characters while the name is taken.
fn create_temp(parent: &Path, name: &str) -> io::Result<tempfile::NamedTempFile> {
    create_temp_with(parent, name, 8)
}

/// [`create_temp`] with `random` random characters after our prefix and this process's id (the
/// id tells a user which process left a temporary file behind; nothing in sophia-hook reads it,
/// and nothing deletes a file by its name: `docs/security.md` `### I10`).
fn create_temp_with(
    parent: &Path,
    name: &str,
    random: usize,
) -> io::Result<tempfile::NamedTempFile> {
    let prefix = format!("{}{}-", temp_prefix(name), std::process::id());
    tempfile::Builder::new()
        .prefix(&prefix)
        .rand_bytes(random)
        .tempfile_in(parent)
}

/// Refuses a symlink or an existing non-regular file before any open, so a device or FIFO is
/// never opened for writing.
fn refuse_special(path: &Path) -> io::Result<()> {
    match fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => Err(platform::symlink_refused(path)),
        Ok(meta) if !meta.is_file() => Err(not_regular(path)),
        _ => Ok(()),
    }
}

/// The refusal of a write over its kind's cap.
pub(crate) fn over_cap(path: &Path, len: usize, cap: Cap) -> io::Error {
    io::Error::new(
        io::ErrorKind::FileTooLarge,
        format!(
            "{} would be {len} bytes, over the {cap}-byte cap it is read back under; nothing was written",
            path.shown()
        ),
    )
}

fn not_regular(path: &Path) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!("refusing to write to {}: not a regular file", path.shown()),
    )
}

/// What [`for_each_line`] saw.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LinesRead {
    /// Lines handed to the callback.
    pub lines: u64,
    /// Lines longer than the cap, skipped without being buffered.
    pub too_long: u64,
}

/// Streams a regular file line by line (`\n`-separated, the newline removed) for logs of any
/// size, holding at most `max_line` bytes of a line in memory: a longer line is skipped and
/// counted. Opened as [`read_bounded`] opens (`open_regular`: regular, checked before opening and
/// on the opened non-blocking handle; a secret's name or a link to one refused), with no cap. A
/// last line without its newline is handed over too (the whole file, as it is now).
fn for_each_line(
    path: &Path,
    max_line: usize,
    mut each: impl FnMut(&[u8]),
) -> Result<LinesRead, ReadError> {
    let mut lines = 0;
    let read = read_lines(path, 0, max_line, true, |line| {
        lines += 1;
        each(line.bytes);
        Take::Continue
    })?;
    Ok(LinesRead {
        lines,
        too_long: read.too_long,
    })
}

/// What [`lines_from`]'s callback does with a line: takes it and goes on, takes it and stops, or
/// stops before it (the reading ends before the line, which the next read starts with).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Take {
    Continue,
    StopAfter,
    StopBefore,
}

/// One line of [`lines_from`]: its bytes (the newline removed) and the offset just past it.
#[derive(Debug, Clone, Copy)]
pub struct Line<'a> {
    pub bytes: &'a [u8],
    pub end: u64,
}

/// What [`lines_from`] saw of the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinesFrom {
    /// The opened file's identity and length when it was opened.
    pub meta: FileMeta,
    /// Where reading stopped: past the last whole line handed over (or skipped as too long),
    /// never inside a line; a last line without its newline is not read (it may be half written).
    pub end: u64,
    /// Lines longer than the cap, skipped without being buffered.
    pub too_long: u64,
}

/// Streams the regular file at `path` line by line from byte `from` (a line start), holding at
/// most `max_line` bytes of a line: a longer one is skipped and counted. Opened as
/// [`for_each_line`] opens; `from` past the end reads nothing. For a log that another process
/// appends to: only newline-terminated lines are read.
fn lines_from(
    path: &Path,
    from: u64,
    max_line: usize,
    each: impl FnMut(Line<'_>) -> Take,
) -> Result<LinesFrom, ReadError> {
    read_lines(path, from, max_line, false, each)
}

/// The one line reader of [`for_each_line`] and [`lines_from`]: from byte `from`, at most
/// `max_line` bytes of a line held, a longer one skipped and counted; a last line without its
/// newline is handed over (and an over-long one counted) only when `unterminated` says so.
fn read_lines(
    path: &Path,
    from: u64,
    max_line: usize,
    unterminated: bool,
    mut each: impl FnMut(Line<'_>) -> Take,
) -> Result<LinesFrom, ReadError> {
    use std::io::{BufRead, BufReader, Seek};
    let (mut file, meta) = open_regular(path, u64::MAX)?;
    let meta = FileMeta::of_path(path, &meta);
    let mut out = LinesFrom {
        end: from.min(meta.len),
        meta,
        too_long: 0,
    };
    file.seek(io::SeekFrom::Start(out.end))?;
    let mut reader = BufReader::with_capacity(64 * 1024, file);
    let mut line = Vec::with_capacity(1024);
    let mut at = out.end;
    loop {
        line.clear();
        let n = (&mut reader)
            .take(max_line as u64 + 1)
            .read_until(b'\n', &mut line)?;
        if n == 0 {
            return Ok(out);
        }
        at += n as u64;
        if line.last() == Some(&b'\n') {
            line.pop();
        } else if line.len() > max_line {
            // Over the cap: drop the rest of the line without keeping it.
            loop {
                let buf = reader.fill_buf()?;
                if buf.is_empty() {
                    // The over-long line has no end yet: past it only for a whole-file read.
                    if unterminated {
                        out.too_long += 1;
                        out.end = at;
                    }
                    return Ok(out);
                }
                match buf.iter().position(|b| *b == b'\n') {
                    Some(i) => {
                        reader.consume(i + 1);
                        at += i as u64 + 1;
                        break;
                    }
                    None => {
                        let len = buf.len();
                        reader.consume(len);
                        at += len as u64;
                    }
                }
            }
            out.too_long += 1;
            out.end = at;
            continue;
        } else if !unterminated {
            // A last line without its newline: being written, left for the next read.
            return Ok(out);
        }
        match each(Line {
            bytes: &line,
            end: at,
        }) {
            Take::Continue => out.end = at,
            Take::StopAfter => {
                out.end = at;
                return Ok(out);
            }
            Take::StopBefore => return Ok(out),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`lines_from`] hands over whole lines from an offset with the offset past each, skips an
    /// over-long one, leaves a line without its newline for later and stops when asked.
    #[test]
    fn lines_from_an_offset_are_whole_and_stop_where_asked() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log.jsonl");
        fs::write(&path, b"one\ntwo\nxxxxxxxxxxxxxxxxxxxx\nthree\nhalf").unwrap();
        let read = |from: u64, stop_after: usize| {
            let mut seen = Vec::new();
            let r = lines_from(&path, from, 10, |l| {
                seen.push((String::from_utf8(l.bytes.to_vec()).unwrap(), l.end));
                if seen.len() == stop_after {
                    Take::StopAfter
                } else {
                    Take::Continue
                }
            })
            .unwrap();
            (seen, r.end, r.too_long)
        };
        let (seen, end, long) = read(0, usize::MAX);
        assert_eq!(
            seen,
            [("one".into(), 4), ("two".into(), 8), ("three".into(), 35)]
        );
        assert_eq!((end, long), (35, 1));
        assert_eq!(read(4, 1), (vec![("two".to_owned(), 8)], 8, 0));
        assert_eq!(read(35, usize::MAX), (vec![], 35, 0));
        assert_eq!(read(1000, usize::MAX).1, 39);
        // Stopping before a line leaves the reading before it.
        let r = lines_from(&path, 0, 10, |l| {
            if l.bytes == b"two" {
                Take::StopBefore
            } else {
                Take::Continue
            }
        })
        .unwrap();
        assert_eq!(r.end, 4);
    }

    /// A lock another holder has is waited for at most the given time; a free one is taken.
    #[test]
    fn locked_within_waits_no_longer_than_asked() {
        let dir = tempfile::tempdir().unwrap();
        let place = Place::user(dir.path().join("state.json"));
        let started = std::time::Instant::now();
        let inner = place
            .locked_within(std::time::Duration::from_secs(5), || {
                place
                    .locked_within(std::time::Duration::from_millis(100), || ())
                    .unwrap()
            })
            .unwrap();
        // Held by the outer call: the inner one gives up (flock is per open file).
        assert_eq!(inner, Some(None));
        assert!(started.elapsed() < std::time::Duration::from_secs(4));
        assert_eq!(
            place
                .locked_within(std::time::Duration::from_secs(2), || 7)
                .unwrap(),
            Some(7)
        );
        // Without waiting: taken when free, refused while held, free again once dropped.
        let other = Place::user(dir.path().join("wait"));
        let guard = other.try_lock().unwrap();
        assert!(guard.is_some());
        assert!(other.try_lock().unwrap().is_none());
        drop(guard);
        assert!(other.try_lock().unwrap().is_some());
    }

    /// Caps × writer/reader pairs (issue 29): every kind's cap binds each writer as it binds the
    /// readers. A file written at the cap is read back whole, by the whole read and the opened
    /// one; one byte more is refused by every writer (`FileTooLarge`, naming the cap) before
    /// anything is written: no file, no folder, and a file already there is left as it was. The
    /// caps over 16 MiB (pages, the plugin binary, tails) are checked on `admits`.
    #[test]
    fn every_cap_binds_its_writers_as_it_binds_its_readers() {
        type Writer = fn(&Path, &[u8], Cap) -> io::Result<()>;
        let writers: [(&str, Writer); 4] = [
            ("write_atomic", |p, b, c| write_atomic(p, b, c)),
            ("write_backup", |p, b, c| write_backup(p, b, c, 0o600)),
            ("write_atomic_mode", |p, b, c| {
                write_atomic_mode(p, b, c, 0o644)
            }),
            ("replace_generated", |p, b, c| {
                replace_generated(p, b, c, |_| true)
            }),
        ];
        let dir = tempfile::tempdir().unwrap();
        assert!(caps::ALL.len() >= 13);
        for &(name, cap) in caps::ALL {
            assert!(cap.admits(cap.bytes()), "{name}");
            assert!(
                cap == caps::TAIL_ONLY || cap == caps::LOG || !cap.admits(cap.bytes() + 1),
                "{name}"
            );
            if cap.bytes() > 16 * 1024 * 1024 {
                continue;
            }
            let at = vec![b'#'; cap.bytes() as usize];
            let over = vec![b'#'; cap.bytes() as usize + 1];
            for (writer, write) in writers {
                let folder = dir.path().join(name).join(writer);
                let path = folder.join("file");
                let err = write(&path, &over, cap).unwrap_err();
                assert_eq!(
                    err.kind(),
                    io::ErrorKind::FileTooLarge,
                    "{name} {writer}: {err}"
                );
                assert!(
                    err.to_string()
                        .contains(&format!("over the {cap}-byte cap")),
                    "{err}"
                );
                assert!(!folder.exists(), "{name} {writer}: wrote over the cap");
                write(&path, &at, cap).unwrap();
                assert_eq!(read_bounded(&path, cap).unwrap().len() as u64, cap.bytes());
                assert_eq!(open_bounded(&path, cap).unwrap().len(), cap.bytes());
                assert!(write(&path, &over, cap).is_err(), "{name} {writer}");
                assert_eq!(read_bounded(&path, cap).unwrap(), at, "{name} {writer}");
            }
            let _ = fs::remove_dir_all(dir.path().join(name));
        }
    }

    /// A listing never fetches past its cap: every folder size around every cap gives
    /// `min(size, cap)` entries, and `over_cap` exactly when the folder had more.
    #[test]
    fn a_listing_stops_at_its_cap_and_says_when_there_was_more() {
        for size in [0usize, 1, 2, 3, 7, 8, 9, 64] {
            let dir = tempfile::tempdir().unwrap();
            for i in 0..size {
                fs::write(dir.path().join(format!("f{i}")), "").unwrap();
            }
            for cap in [0usize, 1, 2, 7, 8, 9, 63, 64, 65, 1000] {
                let mut listing = list_dir(dir.path(), cap).unwrap();
                let seen = listing.by_ref().count();
                assert_eq!(seen, size.min(cap), "size {size}, cap {cap}");
                assert_eq!(listing.over_cap(), size > cap, "size {size}, cap {cap}");
                // Once ended, it stays ended.
                assert!(listing.next().is_none());
            }
        }
        assert!(list_dir(Path::new("/no/such/folder"), 8).is_err());
    }

    #[test]
    fn secret_names_are_refused_and_their_public_twins_are_not() {
        let secret = [
            ".env",
            ".ENV",
            ".env.local",
            ".env.production",
            "id_rsa",
            "id_ed25519",
            "server.pem",
            "tls.KEY",
            "cert.p12",
            "auth.json",
            "oauth_creds.json",
            ".credentials.json",
            "credentials",
            ".netrc",
            ".npmrc",
            ".pypirc",
            ".git-credentials",
            "store.jks",
        ];
        let public = [
            ".env.example",
            ".env.sample",
            ".env.template",
            ".env.dist",
            "id_rsa.pub",
            "AGENTS.md",
            "CLAUDE.md",
            "SKILL.md",
            "settings.json",
            "config.toml",
            ".mcp.json",
            "hooks.json",
            "environment.md",
            "keys.md",
            "envoy.yaml",
            ".envrc.md",
        ];
        for name in secret {
            assert!(is_secret_name(Path::new(name)), "{name}");
            assert!(is_secret_name(&Path::new("a/b").join(name)), "{name}");
        }
        for name in public {
            assert!(!is_secret_name(Path::new(name)), "{name}");
        }
    }

    #[test]
    fn a_secret_is_not_read_by_name_or_through_links() {
        // Every way the door reads a file: the class, not the one that was caught (for_each_line,
        // the log reader of `stats` and `report`, once read a `.env` named by --file).
        let cap = || crate::edge::files::Cap::for_tests(64);
        type Reader<'a> = &'a dyn Fn(&Path) -> Result<(), ReadError>;
        let readers: [(&str, Reader); 4] = [
            ("read_bounded", &|p| read_bounded(p, cap()).map(drop)),
            ("read_prefix", &|p| read_prefix(p, cap()).map(drop)),
            ("open_bounded", &|p| open_bounded(p, cap()).map(drop)),
            ("for_each_line", &|p| for_each_line(p, 64, |_| {}).map(drop)),
        ];
        let dir = tempfile::tempdir().unwrap();
        let secret = dir.path().join(".env");
        fs::write(&secret, "KEY=1").unwrap();
        let mut refused = vec![secret.clone()];
        #[cfg(unix)]
        {
            let link = dir.path().join("AGENTS.md");
            std::os::unix::fs::symlink(&secret, &link).unwrap();
            let chain = dir.path().join("CLAUDE.md");
            std::os::unix::fs::symlink(&link, &chain).unwrap();
            refused.extend([link, chain]);
        }
        let plain = dir.path().join("rules.md");
        fs::write(&plain, "rules").unwrap();
        for (name, read) in readers {
            for path in &refused {
                assert!(
                    matches!(read(path), Err(ReadError::Secret)),
                    "{name} read {}",
                    path.file_name().unwrap().to_string_lossy()
                );
            }
            assert!(read(&plain).is_ok(), "{name} refused a plain file");
            #[cfg(unix)]
            {
                let ok = dir.path().join(format!("GEMINI-{name}.md"));
                std::os::unix::fs::symlink(&plain, &ok).unwrap();
                assert!(read(&ok).is_ok(), "{name} refused a link to a plain file");
            }
        }
    }

    #[cfg(unix)]
    use std::os::unix::fs::{PermissionsExt, symlink};

    use crate::edge::platform::tests::links_work;

    /// A file or folder symlink on Windows (developer mode or the privilege; under Wine, which
    /// makes none, the tests skip their link cases: `links_work`).
    #[cfg(windows)]
    fn symlink(target: impl AsRef<Path>, link: impl AsRef<Path>) -> io::Result<()> {
        if target.as_ref().is_dir() {
            std::os::windows::fs::symlink_dir(target, link)
        } else {
            std::os::windows::fs::symlink_file(target, link)
        }
    }

    #[cfg(unix)]
    fn mkfifo(path: &Path) {
        let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a valid NUL-terminated path; mkfifo only creates a file system node.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
    }

    fn names(dir: &Path) -> Vec<String> {
        let mut v: Vec<_> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn reads_a_regular_file_within_its_cap() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.txt");
        fs::write(&path, "hello").unwrap();
        assert_eq!(
            read_bounded(&path, crate::edge::files::Cap::for_tests(5)).unwrap(),
            b"hello"
        );
        assert_eq!(
            Place::user(&path)
                .read_string(crate::edge::files::Cap::for_tests(100))
                .unwrap(),
            "hello"
        );
    }

    #[test]
    fn over_cap_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big");
        fs::write(&path, "x".repeat(101)).unwrap();
        assert!(matches!(
            read_bounded(&path, crate::edge::files::Cap::for_tests(100)),
            Err(ReadError::TooLarge { cap: 100 })
        ));
    }

    #[test]
    fn missing_file_is_missing() {
        let dir = tempfile::tempdir().unwrap();
        assert!(matches!(
            read_bounded(
                &dir.path().join("nope"),
                crate::edge::files::Cap::for_tests(10)
            ),
            Err(ReadError::Missing)
        ));
    }

    #[test]
    #[cfg(unix)]
    fn open_bounded_refuses_what_read_bounded_refuses_and_reads_within_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        mkfifo(&fifo);
        assert!(matches!(
            open_bounded(&fifo, crate::edge::files::Cap::for_tests(10)),
            Err(ReadError::NotRegular)
        ));
        assert!(matches!(
            open_bounded(dir.path(), crate::edge::files::Cap::for_tests(10)),
            Err(ReadError::NotRegular)
        ));
        assert!(matches!(
            open_bounded(
                &dir.path().join("none"),
                crate::edge::files::Cap::for_tests(10)
            ),
            Err(ReadError::Missing)
        ));
        let file = dir.path().join("f");
        fs::write(&file, b"0123456789").unwrap();
        assert!(matches!(
            open_bounded(&file, crate::edge::files::Cap::for_tests(9)),
            Err(ReadError::TooLarge { cap: 9 })
        ));
        let f = open_bounded(&file, crate::edge::files::Cap::for_tests(10)).unwrap();
        assert_eq!(f.len(), 10);
        assert_eq!(f.read_at(2, 3).unwrap(), b"234");
        assert_eq!(f.read_at(8, 100).unwrap(), b"89", "cut at the end");
        assert!(f.read_at(10, 5).unwrap().is_empty());
        assert!(f.read_at(u64::MAX, 5).unwrap().is_empty());
        // Shrunk after it was opened: an error, not a short read taken for the whole.
        fs::write(&file, b"01").unwrap();
        assert!(f.read_at(0, 10).is_err());
    }

    /// Every cap is the size docs/security.md states (`caps::*`): a file of exactly that many
    /// bytes opens, one byte more is `TooLarge` naming the cap. Sparse files, so even the 1 GiB
    /// analytics cap costs nothing to check.
    #[test]
    fn each_cap_takes_its_documented_size_and_refuses_one_byte_more() {
        const KIB: u64 = 1024;
        const MIB: u64 = 1024 * KIB;
        let documented = [
            ("CONFIG", caps::CONFIG, 64 * KIB),
            ("CATALOG", caps::CATALOG, MIB),
            ("SKILL_MD", caps::SKILL_MD, 128 * KIB),
            ("INDEX", caps::INDEX, 4 * MIB),
            ("AGENTS_MD", caps::AGENTS_MD, 256 * KIB),
            ("STATE", caps::STATE, MIB),
            ("SETTINGS", caps::SETTINGS, 4 * MIB),
            ("TRANSCRIPT", caps::TRANSCRIPT, 16 * MIB),
            ("CASES", caps::CASES, 16 * MIB),
        ];
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sparse");
        for (name, cap, size) in documented {
            let file = File::create(&path).unwrap();
            file.set_len(size).unwrap();
            let opened = open_bounded(&path, cap);
            assert!(
                opened
                    .as_ref()
                    .is_ok_and(|f| f.len() == size && !f.is_empty()),
                "{name}: {size} bytes: {opened:?}"
            );
            file.set_len(size + 1).unwrap();
            let over = open_bounded(&path, cap);
            assert!(
                matches!(over, Err(ReadError::TooLarge { cap: c }) if c == size),
                "{name}: {} bytes: {over:?}",
                size + 1
            );
        }
        fs::write(&path, "").unwrap();
        let empty = open_bounded(&path, caps::CONFIG).unwrap();
        assert!(empty.is_empty());
        assert_eq!(empty.len(), 0);
    }

    /// `SOPHIA_STATE_LOCK_MS` reaches the wait of `update_json` through `set_lock_wait`, and a
    /// state update waits that long for a held lock, then gives up with `TimedOut`.
    #[test]
    fn the_configured_lock_wait_is_the_wait_of_a_state_update() {
        assert_eq!(LOCK_WAIT, std::time::Duration::from_millis(2000));
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path().join("s.json");
        let mut lock = state.as_os_str().to_os_string();
        lock.push(".lock");
        let lock = PathBuf::from(lock);
        // Other tests update state in parallel: the wait is changed only for this check and
        // set back to the default at once.
        set_lock_wait(std::time::Duration::from_millis(2_345));
        let configured = lock_wait();
        set_lock_wait(LOCK_WAIT);
        assert_eq!(configured, std::time::Duration::from_millis(2_345));
        assert_eq!(lock_wait(), LOCK_WAIT);
        let started = std::time::Instant::now();
        let err = with_lock(&lock, std::time::Duration::from_secs(30), || {
            update_json(&state, |v: &mut Vec<u32>| {
                v.push(1);
                true
            })
            .unwrap_err()
        })
        .unwrap();
        assert_eq!(err.kind(), io::ErrorKind::TimedOut);
        assert!(started.elapsed() >= LOCK_WAIT, "{:?}", started.elapsed());
        assert!(!state.exists(), "nothing written without the lock");
    }

    #[test]
    #[cfg(unix)]
    fn fifo_is_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("fifo");
        mkfifo(&path);
        // No writer ever opens the FIFO: a blocking open would hang this test.
        assert!(matches!(
            read_bounded(&path, crate::edge::files::Cap::for_tests(10)),
            Err(ReadError::NotRegular)
        ));
        let link = dir.path().join("link");
        symlink(&path, &link).unwrap();
        assert!(matches!(
            read_bounded(&link, crate::edge::files::Cap::for_tests(10)),
            Err(ReadError::NotRegular)
        ));
    }

    #[test]
    #[cfg(unix)]
    fn symlink_to_dev_zero_and_folders_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let link = dir.path().join("zero");
        symlink("/dev/zero", &link).unwrap();
        assert!(matches!(
            read_bounded(&link, crate::edge::files::Cap::for_tests(1 << 30)),
            Err(ReadError::NotRegular)
        ));
        assert!(matches!(
            read_bounded(dir.path(), crate::edge::files::Cap::for_tests(10)),
            Err(ReadError::NotRegular)
        ));
    }

    #[test]
    #[cfg(unix)]
    fn prefix_reads_cut_long_files_and_refuse_special_ones() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("doc");
        fs::write(&path, "abcdef").unwrap();
        assert_eq!(
            read_prefix(&path, crate::edge::files::Cap::for_tests(4)).unwrap(),
            (b"abcd".to_vec(), 6)
        );
        let fifo = dir.path().join("fifo");
        mkfifo(&fifo);
        assert!(matches!(
            read_prefix(&fifo, crate::edge::files::Cap::for_tests(4)),
            Err(ReadError::NotRegular)
        ));
        assert!(matches!(
            read_prefix(
                Path::new("/dev/zero"),
                crate::edge::files::Cap::for_tests(4)
            ),
            Err(ReadError::NotRegular)
        ));
    }

    #[test]
    fn lossy_string_keeps_valid_text() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bad");
        fs::write(&path, b"ok\xffok").unwrap();
        assert_eq!(
            Place::user(&path)
                .read_string(crate::edge::files::Cap::for_tests(10))
                .unwrap(),
            "ok\u{fffd}ok"
        );
    }

    #[test]
    #[cfg(unix)]
    fn append_appends_whole_lines_and_creates_0600() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log.jsonl");
        append_line(&path, "one\n").unwrap();
        append_line(&path, "two\n").unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "one\ntwo\n");
        let mode = fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
    }

    #[test]
    fn append_does_not_create_folders() {
        let dir = tempfile::tempdir().unwrap();
        assert!(append_line(&dir.path().join("a/b/log"), "x\n").is_err());
        assert!(!dir.path().join("a").exists());
    }

    #[test]
    fn append_refuses_symlinks_fifos_devices_and_folders() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim");
        fs::write(&victim, "keep\n").unwrap();
        let link = dir.path().join("link");
        if !links_work() {
            return;
        }
        symlink(&victim, &link).unwrap();
        assert!(append_line(&link, "x\n").is_err());
        assert_eq!(fs::read_to_string(&victim).unwrap(), "keep\n");

        #[cfg(unix)]
        {
            let fifo = dir.path().join("fifo");
            mkfifo(&fifo);
            assert!(append_line(&fifo, "x\n").is_err());
            assert!(append_line(Path::new("/dev/null"), "x\n").is_err());
        }
        assert!(append_line(dir.path(), "x\n").is_err());
    }

    #[test]
    fn atomic_write_replaces_and_leaves_no_temp() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.json");
        write_atomic(&path, b"old", crate::edge::files::caps::STATE).unwrap();
        write_atomic(&path, b"new", crate::edge::files::caps::STATE).unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"new");
        assert_eq!(names(dir.path()), vec!["out.json"]);
    }

    #[test]
    fn atomic_write_creates_the_parent_folder() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a/b/out");
        write_atomic(&path, b"x", crate::edge::files::caps::STATE).unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"x");
    }

    #[test]
    #[cfg(unix)]
    fn atomic_write_keeps_the_mode() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.json");
        fs::write(&path, "{}").unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o600)).unwrap();
        write_atomic(&path, b"{\"a\":1}", crate::edge::files::caps::STATE).unwrap();
        let mode = fs::metadata(&path).unwrap().permissions().mode() & 0o7777;
        assert_eq!(mode, 0o600);
        fs::set_permissions(&path, fs::Permissions::from_mode(0o640)).unwrap();
        write_atomic(&path, b"{}", crate::edge::files::caps::STATE).unwrap();
        let mode = fs::metadata(&path).unwrap().permissions().mode() & 0o7777;
        assert_eq!(mode, 0o640);
    }

    #[test]
    #[cfg(unix)]
    fn new_files_are_0600_in_0700_folders_and_backups_keep_a_mode() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a/b/new.json");
        write_atomic(&path, b"{}", crate::edge::files::caps::STATE).unwrap();
        let mode = |p: &Path| fs::symlink_metadata(p).unwrap().permissions().mode() & 0o7777;
        assert_eq!(mode(&path), 0o600);
        assert_eq!(mode(&dir.path().join("a")), 0o700);
        assert_eq!(mode(&dir.path().join("a/b")), 0o700);
        // An existing folder keeps its mode.
        fs::set_permissions(dir.path().join("a"), fs::Permissions::from_mode(0o750)).unwrap();
        create_private_dir_all(&dir.path().join("a/c/d")).unwrap();
        assert_eq!(mode(&dir.path().join("a")), 0o750);
        assert_eq!(mode(&dir.path().join("a/c")), 0o700);
        assert_eq!(mode(&dir.path().join("a/c/d")), 0o700);
        create_private_dir_all(&dir.path().join("a/c/d")).unwrap();
        // A backup gets the original's mode, new or replaced.
        let backup = dir.path().join("bk/last.json");
        write_backup(&backup, b"x", crate::edge::files::caps::STATE, 0o640).unwrap();
        assert_eq!(mode(&backup), 0o640);
        write_backup(&backup, b"y", crate::edge::files::caps::STATE, 0o604).unwrap();
        assert_eq!(mode(&backup), 0o604);
        write_backup(&backup, b"z", crate::edge::files::caps::STATE, 0o4755).unwrap();
        assert_eq!(mode(&backup), 0o755, "no set-id bit is copied");
        let own_mode = |p: &Path| {
            Place::user(p)
                .symlink_metadata()
                .ok()
                .filter(FileMeta::is_file)
                .map(|m| m.mode)
        };
        assert_eq!(own_mode(&backup), Some(0o755));
        let link = dir.path().join("link");
        symlink(&backup, &link).unwrap();
        assert_eq!(own_mode(&link), None, "a symlink has no own mode");
        assert_eq!(own_mode(&dir.path().join("none")), None);
        assert_eq!(own_mode(dir.path()), None, "a folder is not a file");
    }

    /// A folder written whole: new, private; replaced, with the old one's files we name gone
    /// and anything else kept aside; a failure half way leaves the old folder as it was and no
    /// temporary behind; a link at the folder's name is refused.
    #[test]
    #[cfg(unix)]
    fn a_folder_is_written_whole_and_replaced_only_in_what_we_wrote() {
        let cap = crate::edge::files::caps::SETTINGS;
        let file = |path, contents| FolderFile {
            path,
            contents,
            cap,
            mode: 0o600,
        };
        let names = |d: &Path| {
            let mut n: Vec<String> = fs::read_dir(d)
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect();
            n.sort();
            n
        };
        let mode = |p: &Path| fs::symlink_metadata(p).unwrap().permissions().mode() & 0o7777;
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("plugins/1.0");
        let first = [
            file("a/hooks.json", b"1"),
            FolderFile {
                path: "a/bin/tool",
                contents: b"bin",
                cap,
                mode: 0o700,
            },
        ];
        assert_eq!(write_folder(&dir, &first).unwrap(), FolderWritten::Created);
        assert_eq!(fs::read(dir.join("a/hooks.json")).unwrap(), b"1");
        assert_eq!(mode(&dir.join("a/hooks.json")), 0o600);
        assert_eq!(mode(&dir.join("a/bin/tool")), 0o700);
        for d in [&dir, &dir.join("a"), &dir.join("a/bin")] {
            assert_eq!(mode(d), 0o700, "{}", d.to_string_lossy());
        }
        assert_eq!(names(&tmp.path().join("plugins")), ["1.0"]);

        // Replaced: the old folder's files that the new one names go with it.
        let second = [
            file("a/hooks.json", b"2"),
            FolderFile {
                path: "a/bin/tool",
                contents: b"bin2",
                cap,
                mode: 0o700,
            },
        ];
        assert_eq!(
            write_folder(&dir, &second).unwrap(),
            FolderWritten::Replaced { left: None }
        );
        assert_eq!(fs::read(dir.join("a/hooks.json")).unwrap(), b"2");
        assert_eq!(fs::read(dir.join("a/bin/tool")).unwrap(), b"bin2");
        assert_eq!(names(&tmp.path().join("plugins")), ["1.0"]);

        // Something not ours in the old folder is kept, aside, and said.
        fs::write(dir.join("a/notes.txt"), b"mine").unwrap();
        let FolderWritten::Replaced { left: Some(aside) } = write_folder(&dir, &second).unwrap()
        else {
            panic!("the foreign file must be left aside");
        };
        assert_eq!(fs::read(aside.join("a/notes.txt")).unwrap(), b"mine");
        assert!(!aside.join("a/hooks.json").exists());
        fs::remove_dir_all(&aside).unwrap();

        // A failure half way (a file over its cap): the folder as it was, no temporary left.
        let big = vec![b'x'; 70 * 1024];
        let failing = [
            file("a/hooks.json", b"3"),
            FolderFile {
                path: "a/big",
                contents: &big,
                cap: crate::edge::files::caps::CONFIG,
                mode: 0o600,
            },
        ];
        assert!(write_folder(&dir, &failing).is_err());
        assert_eq!(fs::read(dir.join("a/hooks.json")).unwrap(), b"2");
        assert_eq!(names(&tmp.path().join("plugins")), ["1.0"]);

        // A link at the folder's name is never followed nor replaced.
        let elsewhere = tmp.path().join("elsewhere");
        fs::create_dir(&elsewhere).unwrap();
        let linked = tmp.path().join("plugins/2.0");
        symlink(&elsewhere, &linked).unwrap();
        assert!(write_folder(&linked, &second).is_err());
        assert!(fs::read_dir(&elsewhere).unwrap().next().is_none());
        assert_eq!(names(&tmp.path().join("plugins")), ["1.0", "2.0"]);
        // No path climbs out of the folder.
        assert!(write_folder(&dir, &[file("../x", b"1")]).is_err());
        assert!(!tmp.path().join("plugins/x").exists());
    }

    #[test]
    #[cfg(unix)]
    fn generated_artifacts_replace_only_their_own_files() {
        let dir = tempfile::tempdir().unwrap();
        let ours = |b: &[u8]| b.starts_with(b"#ours");
        let path = dir.path().join("x.tsv");
        replace_generated(
            &path,
            b"#ours 1",
            crate::edge::files::Cap::for_tests(100),
            ours,
        )
        .unwrap();
        replace_generated(
            &path,
            b"#ours 2",
            crate::edge::files::Cap::for_tests(100),
            ours,
        )
        .unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"#ours 2");
        let foreign = dir.path().join("f.tsv");
        fs::write(&foreign, "API_KEY=1").unwrap();
        let err = replace_generated(
            &foreign,
            b"#ours",
            crate::edge::files::Cap::for_tests(100),
            ours,
        )
        .unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::AlreadyExists);
        assert!(
            err.to_string().contains("not generated by sophia-hook"),
            "{err}"
        );
        assert_eq!(fs::read(&foreign).unwrap(), b"API_KEY=1");
        let big = dir.path().join("big.tsv");
        fs::write(&big, format!("#ours{}", "x".repeat(200))).unwrap();
        assert!(
            replace_generated(
                &big,
                b"#ours",
                crate::edge::files::Cap::for_tests(100),
                ours
            )
            .is_err(),
            "over the cap"
        );
        let link = dir.path().join("l.tsv");
        symlink(&path, &link).unwrap();
        let err = replace_generated(
            &link,
            b"#ours 3",
            crate::edge::files::Cap::for_tests(100),
            ours,
        )
        .unwrap_err();
        assert!(err.to_string().contains("symlink"), "{err}");
        assert_eq!(fs::read(&path).unwrap(), b"#ours 2");
        let fifo = dir.path().join("p.tsv");
        mkfifo(&fifo);
        assert!(
            replace_generated(
                &fifo,
                b"#ours",
                crate::edge::files::Cap::for_tests(100),
                ours
            )
            .is_err()
        );
    }

    #[test]
    fn atomic_write_refuses_a_symlinked_target() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("bashrc");
        fs::write(&victim, "keep").unwrap();
        let link = dir.path().join("index.tsv");
        if !links_work() {
            return;
        }
        symlink(&victim, &link).unwrap();
        let err = write_atomic(&link, b"evil", crate::edge::files::caps::STATE).unwrap_err();
        assert!(err.to_string().contains("symlink"), "{err}");
        assert_eq!(fs::read_to_string(&victim).unwrap(), "keep");
        assert!(
            fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
    }

    #[test]
    #[cfg(unix)]
    fn atomic_write_refuses_special_targets() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        mkfifo(&fifo);
        assert!(write_atomic(&fifo, b"x", crate::edge::files::caps::STATE).is_err());
        fs::create_dir(dir.path().join("d")).unwrap();
        assert!(
            write_atomic(&dir.path().join("d"), b"x", crate::edge::files::caps::STATE).is_err()
        );
    }

    /// Every one-character temporary name but one is a planted symlink to the victim: the
    /// exclusive create never follows any of them and lands on the one free name; with every
    /// name taken (no random characters) it fails and writes nothing.
    #[test]
    fn planted_symlinks_at_temp_names_do_not_redirect_the_write() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim");
        fs::write(&victim, "keep").unwrap();
        let pid = std::process::id();
        if !links_work() {
            return;
        }
        let prefix = format!(".out{TEMP_MARK}{pid}-");
        symlink(&victim, dir.path().join(&prefix)).unwrap();
        let err = create_temp_with(dir.path(), "out", 0).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::AlreadyExists, "{err}");
        let names: Vec<char> = ('0'..='9').chain('A'..='Z').chain('a'..='z').collect();
        let (free, planted) = names.split_last().unwrap();
        for c in planted {
            symlink(&victim, dir.path().join(format!("{prefix}{c}"))).unwrap();
        }
        let mut tmp = create_temp_with(dir.path(), "out", 1).unwrap();
        assert_eq!(tmp.path(), dir.path().join(format!("{prefix}{free}")));
        tmp.write_all(b"new").unwrap();
        assert_eq!(fs::read_to_string(&victim).unwrap(), "keep");
        assert!(fs::symlink_metadata(tmp.path()).unwrap().is_file());
    }

    #[test]
    fn atomic_write_succeeds_past_planted_temp_symlinks() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim");
        fs::write(&victim, "keep").unwrap();
        let pid = std::process::id();
        // The old fixed temp name, the old counter scheme's first names and the prefix itself.
        if !links_work() {
            return;
        }
        symlink(&victim, dir.path().join(format!(".out.tmp-{pid}"))).unwrap();
        symlink(&victim, dir.path().join(format!(".out{TEMP_MARK}{pid}-"))).unwrap();
        for n in 0..8 {
            symlink(
                &victim,
                dir.path().join(format!(".out{TEMP_MARK}{pid}-{n}")),
            )
            .unwrap();
        }
        let path = dir.path().join("out");
        write_atomic(&path, b"new", crate::edge::files::caps::STATE).unwrap();
        assert_eq!(fs::read_to_string(&victim).unwrap(), "keep");
        assert_eq!(fs::read(&path).unwrap(), b"new");
        assert!(fs::symlink_metadata(&path).unwrap().is_file());
    }

    /// One look-alike of our temporary files: its name and what it is.
    #[derive(Debug, Clone, Copy)]
    enum Planted {
        File,
        /// A symlink to a victim file beside it.
        Symlink,
        /// A folder holding one file.
        Folder,
        #[cfg(unix)]
        Fifo,
    }

    /// Second pass case 25: a file named like our temporaries (`.<name>.sophia-tmp-<pid>-…`)
    /// that this call did not create is never deleted, whatever its pid (dead, alive, ours,
    /// zero, not a number), suffix, case, kind or folder: every writer of ours leaves it
    /// byte for byte (and a link as a link, a folder with its file). Before the fix the
    /// stale-temp cleanup removed every regular file and symlink with the target's exact
    /// prefix and a dead pid.
    #[test]
    fn a_write_never_deletes_a_file_named_like_our_temporaries() {
        let ours = std::process::id().to_string();
        // Dead (above every pid_max), alive (init, and this process), zero, the largest, not a number.
        let pids = ["99999999", "1", ours.as_str(), "0", "4294967295", "12x", ""];
        let suffixes = ["-0", "-abcdefgh", "-", "", "-zz-1"];
        let marks = [TEMP_MARK, ".SOPHIA-TMP-", ".sophia-tmp", ".tmp-"];
        let mut kinds = vec![Planted::File, Planted::Symlink, Planted::Folder];
        #[cfg(unix)]
        kinds.push(Planted::Fifo);
        if !links_work() {
            kinds.retain(|k| !matches!(k, Planted::Symlink));
        }
        // Each kind of folder a writer replaces files in: a plain one, a nested one, a hidden one
        // (`.sophia/`, `.codex/`), a backup folder, and one of the state files `update_json` keeps.
        type Write = fn(&Path);
        let writers: [(&str, Write); 5] = [
            ("out", |p| {
                write_atomic(p, b"new", crate::edge::files::caps::STATE).unwrap()
            }),
            ("new/deeper/out", |p| {
                write_atomic(p, b"new", crate::edge::files::caps::STATE).unwrap()
            }),
            (".sophia/skills-index.tsv", |p| {
                write_atomic(p, b"new", crate::edge::files::caps::STATE).unwrap()
            }),
            ("bk/out", |p| {
                write_backup(p, b"new", crate::edge::files::caps::STATE, 0o600).unwrap()
            }),
            ("state/out.json", |p| {
                update_json(p, |v: &mut Vec<u32>| {
                    v.push(1);
                    true
                })
                .unwrap()
            }),
        ];
        let mut deleted = Vec::new();
        let mut planted_count = 0;
        for (target, write) in writers {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join(target);
            let folder = path.parent().unwrap();
            fs::create_dir_all(folder).unwrap();
            let victim = folder.join("victim");
            fs::write(&victim, "keep").unwrap();
            let name = path.file_name().unwrap().to_str().unwrap();
            let mut planted = Vec::new();
            for (n, pid) in pids.iter().enumerate() {
                for (m, suffix) in suffixes.iter().enumerate() {
                    for mark in marks {
                        for (k, kind) in kinds.iter().enumerate() {
                            // The exact target name, its upper case, and another file's name.
                            for file in [name.to_owned(), name.to_uppercase(), "other".to_owned()] {
                                let look_alike =
                                    folder.join(format!(".{file}{mark}{pid}{suffix}{n}{m}{k}"));
                                if look_alike.exists() {
                                    continue;
                                }
                                match kind {
                                    Planted::File => fs::write(&look_alike, "theirs").unwrap(),
                                    Planted::Symlink => symlink(&victim, &look_alike).unwrap(),
                                    Planted::Folder => {
                                        fs::create_dir(&look_alike).unwrap();
                                        fs::write(look_alike.join("f"), "theirs").unwrap();
                                    }
                                    #[cfg(unix)]
                                    Planted::Fifo => mkfifo(&look_alike),
                                }
                                planted.push((look_alike, *kind));
                            }
                        }
                    }
                }
            }
            // Twice: the second write finds the first's folder and target in place.
            write(&path);
            write(&path);
            for (look_alike, kind) in &planted {
                let meta = fs::symlink_metadata(look_alike);
                let kept = match kind {
                    Planted::File => fs::read_to_string(look_alike).is_ok_and(|t| t == "theirs"),
                    Planted::Symlink => {
                        meta.is_ok_and(|m| m.file_type().is_symlink())
                            && fs::read_link(look_alike).is_ok_and(|t| t == victim)
                    }
                    Planted::Folder => {
                        fs::read_to_string(look_alike.join("f")).is_ok_and(|t| t == "theirs")
                    }
                    #[cfg(unix)]
                    Planted::Fifo => {
                        use std::os::unix::fs::FileTypeExt;
                        meta.is_ok_and(|m| m.file_type().is_fifo())
                    }
                };
                if !kept {
                    deleted.push(format!("{kind:?} {}", look_alike.shown()));
                }
            }
            assert_eq!(fs::read_to_string(&victim).unwrap(), "keep");
            planted_count += planted.len();
            // Nothing else is left behind: the folder holds the target, the victim, the lock
            // of a state file and what was planted.
            let mut expected: Vec<String> = planted
                .iter()
                .map(|(p, _)| p.file_name().unwrap().to_string_lossy().into_owned())
                .chain([name.to_owned(), "victim".to_owned()])
                .collect();
            if target.ends_with(".json") {
                expected.push(format!("{name}.lock"));
            }
            expected.sort();
            if deleted.is_empty() {
                assert_eq!(names(folder), expected, "{target}");
            }
        }
        assert!(planted_count > 1000, "{planted_count}");
        assert!(
            deleted.is_empty(),
            "{} of {planted_count} look-alikes deleted, e.g.:\n{}",
            deleted.len(),
            deleted[..deleted.len().min(8)].join("\n")
        );
    }

    /// Issue 29, blind pass cases 28 and 29: how deep a project path may be, as written and as
    /// reached through links. A path of up to `MAX_COMPONENTS` components resolves and reads; one
    /// more, written or reached through a link (to a folder a thousand levels deep, or through a
    /// chain of links each adding levels), is refused as too deep, whatever the layout.
    #[test]
    fn a_path_deeper_than_any_the_crate_uses_is_refused() {
        use super::project::MAX_COMPONENTS;
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let deep = |n: usize| -> PathBuf { (0..n).map(|_| "d").collect() };
        let max = MAX_COMPONENTS;
        // Folders of `max` levels hold a file at `max` components (the last one the file).
        fs::create_dir_all(root.join(deep(max + 1100))).unwrap();
        fs::write(root.join(deep(max - 1)).join("f.md"), "ok").unwrap();
        fs::write(root.join(deep(max)).join("f.md"), "too deep").unwrap();
        let project = ProjectRoot::open(root).unwrap();
        assert_eq!(
            project
                .read_string(&deep(max - 1).join("f.md"), caps::STATE)
                .unwrap(),
            "ok"
        );
        assert!(matches!(
            project.read_string(&deep(max).join("f.md"), caps::STATE),
            Err(ReadError::Refused(Outside::TooDeep))
        ));
        assert_eq!(project.resolve(&deep(max + 1)), Err(Outside::TooDeep));
        if !links_work() {
            return;
        }
        // Through a link: one level here, a thousand there.
        for (n, refused) in [(max - 3, false), (max + 10, true), (1000, true)] {
            let link = root.join(format!("l{n}"));
            symlink(root.join(deep(n)), &link).unwrap();
            let got = project.resolve(Path::new(&format!("l{n}/x")));
            assert_eq!(got == Err(Outside::TooDeep), refused, "{n}: {got:?}");
            assert_eq!(
                project.list_dir(Path::new(&format!("l{n}")), 8).is_err(),
                refused,
                "{n}"
            );
        }
        // A chain of links, each adding levels below the last.
        let mut at = String::from("c0");
        symlink(root.join(deep(10)), root.join("c0")).unwrap();
        for i in 1..20 {
            let next = format!("{at}/c{i}");
            symlink(
                root.join(deep(10)),
                root.join(deep(10)).join(format!("c{i}")),
            )
            .ok();
            at = next;
        }
        assert_eq!(project.resolve(Path::new(&at)), Err(Outside::TooDeep));
    }

    #[test]
    fn project_paths_stay_inside_and_out_of_git() {
        let outside = tempfile::tempdir().unwrap();
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::create_dir_all(root.join(".git")).unwrap();
        fs::write(root.join(".git/config"), "[core]").unwrap();
        fs::create_dir_all(root.join("docs")).unwrap();
        fs::write(root.join("docs/a.md"), "a").unwrap();
        let project = ProjectRoot::open(root).unwrap();
        let resolve = |p: &Path| project.resolve(p);
        assert_eq!(
            resolve(Path::new("docs/a.md")),
            Ok(PathBuf::from("docs/a.md"))
        );
        assert_eq!(
            resolve(Path::new(".sophia/skills-index.tsv")),
            Ok(PathBuf::from(".sophia/skills-index.tsv"))
        );
        assert_eq!(
            resolve(&root.join("docs/new.md")),
            Ok(PathBuf::from("docs/new.md"))
        );
        for bad in ["../x", "docs/../../x", "/etc/passwd"] {
            assert_eq!(resolve(Path::new(bad)), Err(Outside::Escapes), "{bad}");
        }
        assert_eq!(resolve(Path::new(".git/config")), Err(Outside::GitDir));
        if !links_work() {
            return;
        }
        symlink(root.join(".git/config"), root.join("AGENTS.md")).unwrap();
        assert_eq!(resolve(Path::new("AGENTS.md")), Err(Outside::GitDir));
        symlink(outside.path(), root.join(".sophia")).unwrap();
        assert_eq!(
            resolve(Path::new(".sophia/skills-index.tsv")),
            Err(Outside::SymlinkOut)
        );
        symlink(outside.path().join("nope/x"), root.join("dangling")).unwrap();
        assert_eq!(resolve(Path::new("dangling/y")), Err(Outside::SymlinkOut));
        symlink(root.join("docs/a.md"), root.join("inner")).unwrap();
        assert_eq!(resolve(Path::new("inner")), Ok(PathBuf::from("docs/a.md")));
    }

    #[test]
    fn concurrent_updates_under_the_lock_lose_nothing() {
        // Under Wine a locked update is slow enough that 16 threads can starve one past the
        // default 2 s; the invariant here is that no update is lost, not the wait.
        #[cfg(windows)]
        set_lock_wait(std::time::Duration::from_secs(120));
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state/counts.json");
        let threads: Vec<_> = (0..16)
            .map(|t| {
                let path = path.clone();
                std::thread::spawn(move || {
                    for i in 0..10 {
                        update_json(&path, |v: &mut Vec<u32>| {
                            v.push(t * 100 + i);
                            true
                        })
                        .unwrap();
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        let v: Vec<u32> = read_json_or_default(&path);
        assert_eq!(v.len(), 160);
    }

    #[test]
    fn a_held_lock_times_out_and_a_symlinked_lock_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let lock = dir.path().join("x.lock");
        let err = with_lock(&lock, std::time::Duration::from_secs(5), || {
            with_lock(&lock, std::time::Duration::from_millis(20), || ()).unwrap_err()
        })
        .unwrap();
        assert_eq!(err.kind(), io::ErrorKind::TimedOut);
        let victim = dir.path().join("victim");
        fs::write(&victim, "keep").unwrap();
        let link = dir.path().join("y.lock");
        if !links_work() {
            return;
        }
        symlink(&victim, &link).unwrap();
        assert!(with_lock(&link, LOCK_WAIT, || ()).is_err());
        assert_eq!(fs::read_to_string(&victim).unwrap(), "keep");
    }

    #[test]
    fn appendable_checks_without_leaving_anything() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("a.jsonl");
        appendable(&log, false).unwrap();
        assert!(!log.exists());
        assert_eq!(names(dir.path()), Vec::<String>::new());
        assert!(appendable(&dir.path().join("new/a.jsonl"), false).is_err());
        appendable(&dir.path().join("new/a.jsonl"), true).unwrap();
        fs::write(&log, "").unwrap();
        appendable(&log, false).unwrap();
        #[cfg(unix)]
        {
            let fifo = dir.path().join("fifo");
            mkfifo(&fifo);
            assert!(appendable(&fifo, false).is_err());
        }
        let link = dir.path().join("link");
        if !links_work() {
            return;
        }
        symlink(&log, &link).unwrap();
        assert!(appendable(&link, false).is_err());
    }

    #[test]
    #[cfg(unix)]
    fn read_json_or_default_refuses_special_files() {
        let dir = tempfile::tempdir().unwrap();
        let link = dir.path().join("state.json");
        symlink("/dev/zero", &link).unwrap();
        let v: Vec<u32> = read_json_or_default(&link);
        assert!(v.is_empty());
    }

    #[test]
    fn lines_stream_with_a_cap_on_their_length() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log.jsonl");
        let long = "x".repeat(100);
        fs::write(&path, format!("one\n{long}\n\ntwo\n{long}")).unwrap();
        let mut got = Vec::new();
        let seen = for_each_line(&path, 10, |l| {
            got.push(String::from_utf8_lossy(l).into_owned())
        })
        .unwrap();
        assert_eq!(got, ["one", "", "two"]);
        assert_eq!(
            seen,
            LinesRead {
                lines: 3,
                too_long: 2
            }
        );
        let missing = for_each_line(&dir.path().join("none"), 10, |_| {});
        assert!(matches!(missing, Err(ReadError::Missing)));
        let folder = for_each_line(dir.path(), 10, |_| {});
        assert!(matches!(folder, Err(ReadError::NotRegular)));
    }

    /// `BoundedFile::is_same_file`: the opened file against the metadata of a path — its own
    /// path is the same file, another file in the same folder (same device, another inode) is
    /// not, and a file put at the path after the open is not either.
    #[test]
    fn an_opened_file_is_the_same_only_as_its_own_path() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a");
        let b = dir.path().join("b");
        fs::write(&a, "one file").unwrap();
        // Another length, so that the Windows check (length and modification time) tells
        // them apart too.
        fs::write(&b, "another file").unwrap();
        let opened = open_bounded(&a, crate::edge::files::Cap::for_tests(100)).unwrap();
        assert!(opened.is_same_file(&fs::symlink_metadata(&a).unwrap()));
        assert!(!opened.is_same_file(&fs::symlink_metadata(&b).unwrap()));
        // The path swapped for another file after the open. Not on Windows: there (Wine 8, and
        // volumes without POSIX rename semantics) a file held open cannot be renamed over
        // ("Access denied"), so no swap can happen while we hold it.
        if cfg!(unix) {
            fs::rename(&b, &a).unwrap();
            assert!(!opened.is_same_file(&fs::symlink_metadata(&a).unwrap()));
        }
    }

    /// Lines at the cap's edges: a line of exactly `max_line` bytes is handed over, with or
    /// without its newline at the end of the file; one byte longer is skipped and counted,
    /// also as the last line; the line after a skipped one is read whole.
    #[test]
    fn lines_of_exactly_the_cap_pass_and_one_byte_more_is_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log.jsonl");
        let at = "a".repeat(10);
        let over = "b".repeat(11);
        for (text, want, too_long) in [
            (
                format!("{at}\n{over}\nnext\n{at}"),
                vec![at.as_str(), "next", &at],
                1,
            ),
            (format!("{over}\n{at}\n{over}"), vec![at.as_str()], 2),
            (format!("{at}\n\n{at}\n"), vec![at.as_str(), "", &at], 0),
        ] {
            fs::write(&path, &text).unwrap();
            let mut got = Vec::new();
            let seen = for_each_line(&path, 10, |l| {
                got.push(String::from_utf8_lossy(l).into_owned())
            })
            .unwrap();
            assert_eq!(got, want, "{text:?}");
            assert_eq!(
                seen,
                LinesRead {
                    lines: want.len() as u64,
                    too_long
                },
                "{text:?}"
            );
        }
    }

    /// `replace_generated` refuses a symlink at the target with its own error, even when the
    /// link leads to a file of ours: `AlreadyExists`, "it is a symlink", nothing written.
    #[test]
    fn a_generated_artifact_is_never_written_through_a_link_to_one_of_ours() {
        let dir = tempfile::tempdir().unwrap();
        let ours = |b: &[u8]| b.starts_with(b"#ours");
        let real = dir.path().join("real.tsv");
        fs::write(&real, "#ours 1").unwrap();
        let link = dir.path().join("link.tsv");
        if !links_work() {
            return;
        }
        symlink(&real, &link).unwrap();
        let err = replace_generated(
            &link,
            b"#ours 2",
            crate::edge::files::Cap::for_tests(100),
            ours,
        )
        .unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::AlreadyExists, "{err}");
        assert!(err.to_string().contains("it is a symlink"), "{err}");
        assert_eq!(fs::read(&real).unwrap(), b"#ours 1");
        assert!(
            fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
    }

    /// A folder, FIFO, device or symlink at an append or lock path is refused before it is
    /// opened, with the refusal's own words (`doctor` prints them): `append_line` and `with_lock` say
    /// "not a regular file" (`InvalidInput`), `appendable` says which files the hook refuses.
    #[cfg(unix)]
    #[test]
    fn special_files_are_refused_by_name_before_any_open() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        mkfifo(&fifo);
        let folder = dir.path().join("folder");
        fs::create_dir(&folder).unwrap();
        for path in [fifo.as_path(), folder.as_path(), Path::new("/dev/null")] {
            for err in [
                append_line(path, "x\n").unwrap_err(),
                with_lock(path, LOCK_WAIT, || ()).unwrap_err(),
            ] {
                assert_eq!(err.kind(), io::ErrorKind::InvalidInput, "{path:?}: {err}");
                assert!(
                    err.to_string().contains("not a regular file"),
                    "{path:?}: {err}"
                );
            }
            let err = appendable(path, false).unwrap_err();
            assert!(
                err.to_string()
                    .contains("a symlink or not a regular file, which the hook refuses"),
                "{path:?}: {err}"
            );
        }
        // A symlink, even to a regular file, is refused as a symlink.
        let victim = dir.path().join("victim");
        fs::write(&victim, "keep\n").unwrap();
        let link = dir.path().join("link");
        symlink(&victim, &link).unwrap();
        for err in [
            append_line(&link, "x\n").unwrap_err(),
            with_lock(&link, LOCK_WAIT, || ()).unwrap_err(),
        ] {
            assert!(
                err.to_string()
                    .contains("refusing to write through the symlink"),
                "{err}"
            );
        }
        assert_eq!(fs::read_to_string(&victim).unwrap(), "keep\n");
    }

    /// How a refused project path is named in messages and warnings (`explain`, `doctor`, the
    /// tool commands' refusals) and its warning code.
    #[test]
    fn a_refused_project_path_says_why() {
        for (why, text, code) in [
            (Outside::Escapes, "outside the project", "outside-project"),
            (
                Outside::SymlinkOut,
                "a symlink out of the project",
                "outside-project",
            ),
            (Outside::GitDir, "inside .git/", "git-dir"),
        ] {
            assert_eq!(why.to_string(), text);
            assert_eq!(why.code(), code);
        }
    }
}
