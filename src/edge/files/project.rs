//! The project's capability: every file of a project tree is reached through a [`ProjectRoot`],
//! by a path relative to the root, on a handle of the root folder opened once per run
//! (`cap_std::fs::Dir`). No operation takes a path to a project file, so none can be written that
//! reads or writes outside the project, or checks one file and then opens another by its name.
//!
//! Every path goes the same way, whoever asks (`docs/security.md`, "One door"):
//! - lexically: relative (an absolute path only when it names something under the root), no `..`,
//!   never into `.git/`;
//! - resolved component by component from the root handle: a link is followed only when it stays
//!   inside the project and out of `.git/` (a relative target, or an absolute one under the
//!   root), at most [`MAX_HOPS`] links; a link at the *file* itself only when it ends at a
//!   document (`*.md`: `CLAUDE.md -> AGENTS.md`), never at anything else (`AGENTS.md -> .env`,
//!   `.sophia-hook.yaml -> ~/.ssh/config`);
//! - opened on the resolved path with no link allowed on the way (each folder opened
//!   `O_NOFOLLOW` from the one before, the file itself `O_NOFOLLOW`): a concurrent swap of any
//!   component after the resolution makes the open fail, it never reaches another file; the
//!   checks of a read (regular file, size cap, not named like a secret) are made on the handle
//!   that is read;
//! - beneath the root whatever happens: `cap-std` resolves every open with `RESOLVE_BENEATH`
//!   (`openat2`) on Linux, component by component elsewhere.
//!
//! Writes (`write_atomic`, `replace_generated`) create their temporary file exclusively in the
//! handle of the target's folder and rename it there: a folder swapped for a link during the
//! write does not move where the bytes land.
// The door itself: the project side of `edge::files`.
#![allow(clippy::disallowed_methods)]

use std::ffi::{OsStr, OsString};
use std::io::{self, Read, Write};
use std::path::{Component, Path, PathBuf};

use cap_fs_ext::{FollowSymlinks, OpenOptionsFollowExt};
use cap_std::fs::{Dir, OpenOptions};

use super::{
    BoundedFile, Cap, Entry, FileMeta, Listing, Outside, ReadError, check_regular, is_document,
    is_secret_name, lossy_utf8, over_cap, temp_prefix,
};
use crate::charset::Shown as _;
use crate::edge::platform;

/// Links followed while resolving one path, at most (the kernel's own limit is 40).
pub const MAX_HOPS: usize = 40;
/// Components of a project path, at most, as written and as resolved: far more than any path
/// the crate reads or writes (the skill walk goes three folders below a skill folder), far
/// less than a repository can plant (a link to a folder a thousand levels deep, blind pass
/// cases 28 and 29: a minute per command, 0.3 s per prompt).
pub const MAX_COMPONENTS: usize = 48;
/// Components looked at while resolving one path, links followed included, at most.
pub const MAX_STEPS: usize = 2 * MAX_COMPONENTS + MAX_HOPS;

/// A project tree, opened once: the only way to its files. Cloning it shares the one handle.
#[derive(Debug, Clone)]
pub struct ProjectRoot(std::sync::Arc<Inner>);

#[derive(Debug)]
struct Inner {
    /// `None` for a project folder that could not be opened ([`ProjectRoot::open_or_empty`]):
    /// it then holds nothing.
    dir: Option<Dir>,
    /// The root as canonicalized (`dunce`): shown to people, written into host settings.
    path: PathBuf,
    /// The root as the caller named it, for absolute paths spelt through it (a link to the
    /// project, a relative `--root`).
    given: PathBuf,
}

/// What a path resolved to: the folder that holds it, opened without a link on the way, and its
/// name there (`None` for the root itself).
struct Located {
    parent: Dir,
    name: Option<OsString>,
    /// The resolved path, relative to the root (no link in it).
    rel: PathBuf,
    /// Whether the path's own last component was a link (followed to `rel`).
    linked: bool,
}

/// What is expected at the end of a path, which decides whether a link there may be followed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Expect {
    /// A file: a link to it only when it ends at a document.
    File,
    /// A folder: a link to it when it stays inside.
    Dir,
    /// The link itself (never followed at the end).
    Entry,
}

/// Why a resolution stopped.
enum Stop {
    Refused(Outside),
    Io(io::Error),
}

impl From<Stop> for ReadError {
    fn from(stop: Stop) -> ReadError {
        match stop {
            Stop::Refused(why) => ReadError::Refused(why),
            Stop::Io(e) => ReadError::from(e),
        }
    }
}

impl From<Stop> for io::Error {
    fn from(stop: Stop) -> io::Error {
        match stop {
            Stop::Refused(why) => io::Error::new(io::ErrorKind::PermissionDenied, why.to_string()),
            Stop::Io(e) => e,
        }
    }
}

impl From<io::Error> for Stop {
    fn from(e: io::Error) -> Stop {
        Stop::Io(e)
    }
}

impl ProjectRoot {
    /// Opens the project folder at `root` (a relative `root` is the caller's, against the
    /// working folder).
    pub fn open(root: &Path) -> io::Result<ProjectRoot> {
        let given = if root.is_relative() {
            std::env::current_dir()?.join(root)
        } else {
            root.to_path_buf()
        };
        let path = dunce::canonicalize(&given)?;
        let dir = Dir::open_ambient_dir(&path, cap_std::ambient_authority())?;
        Ok(ProjectRoot(std::sync::Arc::new(Inner {
            dir: Some(dir),
            path,
            given,
        })))
    }

    /// [`ProjectRoot::open`], or a project with nothing in it when the folder cannot be opened
    /// (a working folder that was removed, or that the user may not read): the hook then routes
    /// with the user's and the embedded material only.
    pub fn open_or_empty(root: &Path) -> ProjectRoot {
        ProjectRoot::open(root).unwrap_or_else(|_| {
            ProjectRoot(std::sync::Arc::new(Inner {
                dir: None,
                path: root.to_path_buf(),
                given: root.to_path_buf(),
            }))
        })
    }

    /// The root folder's handle; `NotFound` for an empty project.
    fn dir(&self) -> io::Result<&Dir> {
        self.0.dir.as_ref().ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::NotFound,
                "the project folder cannot be opened",
            )
        })
    }

    /// The identity of the project folder: its device and inode and its birth time where the file
    /// system keeps one (on Windows the volume and the file index, whose sequence number changes
    /// when a record is reused) — what a new clone at the same path does not share. Empty when it
    /// cannot be read.
    pub fn identity(&self) -> String {
        let Ok(meta) = self.dir().and_then(Dir::dir_metadata) else {
            return String::new();
        };
        let id = FileMeta::of_cap(&meta)
            .id
            .map_or_else(String::new, |id| format!("{}:{}", id.device, id.index));
        let born = platform::birth_time(&meta)
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or_else(String::new, |d| {
                format!("{}.{:09}", d.as_secs(), d.subsec_nanos())
            });
        format!("{id}@{born}")
    }

    /// The place of an absolute `path`: through this project's door when it is under the root
    /// (as canonicalized or as named), else the user's path as it is (a record of ours, a flag).
    pub fn place_of(&self, path: &Path) -> super::Place {
        match path
            .strip_prefix(&self.0.path)
            .or_else(|_| path.strip_prefix(&self.0.given))
        {
            // The door refuses what it must (`..`, `.git/`) when the place is used.
            Ok(rel) if path.is_absolute() => self.at(rel),
            _ => super::Place::user(path),
        }
    }

    /// `rel`, a path in this project, as a [`super::Place`].
    pub fn at(&self, rel: impl AsRef<Path>) -> super::Place {
        super::Place::Project(self.clone(), rel.as_ref().to_path_buf())
    }

    /// The root folder's path (canonical), for people and for host settings; never for I/O.
    pub fn path(&self) -> &Path {
        &self.0.path
    }

    /// The root as the caller named it (before links were resolved), for keys that hosts record
    /// under the path they were started in.
    pub fn given(&self) -> &Path {
        &self.0.given
    }

    /// `path` relative to the root: a relative path as it is, an absolute one when it is under
    /// the root (as canonicalized, or as the caller named it). `..`, a root or a prefix anywhere
    /// is refused, and so is `.git` as the first component.
    pub fn relative(&self, path: &Path) -> Result<PathBuf, Outside> {
        let rel = if path.is_absolute() {
            path.strip_prefix(&self.0.path)
                .or_else(|_| path.strip_prefix(&self.0.given))
                .map_err(|_| Outside::Escapes)?
        } else {
            path
        };
        // Checked in one pass, copied once: every hook run names thousands of project paths.
        let mut first = true;
        let mut plain = true;
        for (n, c) in rel.components().enumerate() {
            if n >= MAX_COMPONENTS {
                return Err(Outside::TooDeep);
            }
            match c {
                Component::Normal(name) => {
                    if first && name == ".git" {
                        return Err(Outside::GitDir);
                    }
                    first = false;
                }
                Component::CurDir => plain = false,
                Component::ParentDir | Component::RootDir | Component::Prefix(_) => {
                    return Err(Outside::Escapes);
                }
            }
        }
        if plain {
            return Ok(rel.to_path_buf());
        }
        Ok(rel
            .components()
            .filter(|c| matches!(c, Component::Normal(_)))
            .collect())
    }

    /// Where `path` really leads inside the project (relative to the root, links resolved), or
    /// why it may not be followed. A file link must end at a document ([`is_document`]); a
    /// missing end is resolved as far as it exists and the rest appended.
    pub fn resolve(&self, path: &Path) -> Result<PathBuf, Outside> {
        match self.resolve_rel(&self.relative(path)?, Expect::Dir) {
            Ok((rel, _)) => Ok(rel),
            Err(Stop::Refused(why)) => Err(why),
            Err(Stop::Io(_)) => Err(Outside::SymlinkOut),
        }
    }

    /// Whether `path` may be read as a file through its links ([`resolve`] with the document
    /// rule for a link at the file itself): `Ok` with the resolved path.
    pub fn resolve_file(&self, path: &Path) -> Result<PathBuf, Outside> {
        match self.resolve_rel(&self.relative(path)?, Expect::File) {
            Ok((rel, _)) => Ok(rel),
            Err(Stop::Refused(why)) => Err(why),
            Err(Stop::Io(_)) => Err(Outside::SymlinkOut),
        }
    }

    /// The path resolved from the root, one component at a time (see the module's rules).
    /// Returns the resolved relative path and whether the last component was a link.
    fn resolve_rel(&self, rel: &Path, expect: Expect) -> Result<(PathBuf, bool), Stop> {
        // An empty project ([`ProjectRoot::open_or_empty`]) holds nothing: every path is missing.
        let Ok(root) = self.dir() else {
            return Ok((rel.to_path_buf(), false));
        };
        let mut done = PathBuf::new();
        // The folder `done` names, opened one name at a time with no link on the way: each
        // component is looked at once, in it, so a path costs what its components cost.
        let mut dir = root.try_clone()?;
        let mut todo: Vec<OsString> = rel
            .components()
            .rev()
            .map(|c| c.as_os_str().to_os_string())
            .collect();
        let (mut hops, mut steps) = (0, 0);
        let mut last_linked = false;
        while let Some(name) = todo.pop() {
            steps += 1;
            if steps > MAX_STEPS || done.components().count() >= MAX_COMPONENTS {
                return Err(Stop::Refused(Outside::TooDeep));
            }
            if name == OsStr::new(".") {
                continue;
            }
            if name == OsStr::new("..") {
                if !done.pop() {
                    return Err(Stop::Refused(Outside::SymlinkOut));
                }
                // Rare (a relative link target going up): open `done` again from the root.
                dir = self.open_folders(&done, false)?;
                continue;
            }
            if done.as_os_str().is_empty() && name == OsStr::new(".git") {
                return Err(Stop::Refused(Outside::GitDir));
            }
            let last = todo.is_empty();
            if last && expect == Expect::Entry {
                done.push(&name);
                break;
            }
            let meta = match platform::stat_at(&dir, &name) {
                Ok(meta) => meta,
                Err(e) if e.kind() == io::ErrorKind::NotFound => {
                    // The rest does not exist yet: appended as written (a write creates it).
                    done.push(&name);
                    while let Some(rest) = todo.pop() {
                        if rest == OsStr::new("..") || rest == OsStr::new(".git") {
                            return Err(Stop::Refused(Outside::Escapes));
                        }
                        done.push(rest);
                    }
                    if done.components().count() > MAX_COMPONENTS {
                        return Err(Stop::Refused(Outside::TooDeep));
                    }
                    break;
                }
                Err(e) => return Err(Stop::Io(e)),
            };
            if !meta.is_symlink() {
                if !last {
                    dir = platform::open_dir_at(&dir, &name)?;
                }
                done.push(&name);
                continue;
            }
            hops += 1;
            if hops > MAX_HOPS {
                return Err(Stop::Refused(Outside::SymlinkOut));
            }
            // The path's own last component is a link (or a link it led to is): the file is
            // reached through a link.
            last_linked |= last;
            let target = dir.read_link_contents(&name)?;
            let target = if target.is_absolute() {
                let inside = target
                    .strip_prefix(&self.0.path)
                    .or_else(|_| target.strip_prefix(&self.0.given))
                    .map_err(|_| Stop::Refused(Outside::SymlinkOut))?;
                done = PathBuf::new();
                dir = root.try_clone()?;
                inside.to_path_buf()
            } else {
                target
            };
            if target.components().count() > MAX_COMPONENTS {
                return Err(Stop::Refused(Outside::TooDeep));
            }
            for c in target.components().rev() {
                match c {
                    Component::Normal(n) => todo.push(n.to_os_string()),
                    Component::ParentDir => todo.push(OsString::from("..")),
                    Component::CurDir => {}
                    Component::RootDir | Component::Prefix(_) => {
                        return Err(Stop::Refused(Outside::SymlinkOut));
                    }
                }
            }
        }
        if done
            .components()
            .next()
            .is_some_and(|c| c.as_os_str() == ".git")
        {
            return Err(Stop::Refused(Outside::GitDir));
        }
        if last_linked && expect == Expect::File && !is_document(&done) {
            return Err(Stop::Refused(Outside::LinkNotDocument));
        }
        Ok((done, last_linked))
    }

    /// Opens the folders of `rel` (already resolved: no link in it) from the root, each without
    /// following a link, creating the missing ones private (`0700`) when `create`.
    fn open_folders(&self, rel: &Path, create: bool) -> io::Result<Dir> {
        let mut dir = self.dir()?.try_clone()?;
        for c in rel.components() {
            let name = c.as_os_str();
            let next = match platform::open_dir_at(&dir, name) {
                Err(e) if create && e.kind() == io::ErrorKind::NotFound => {
                    create_private_dir(&dir, name)?;
                    platform::open_dir_at(&dir, name)?
                }
                other => other?,
            };
            dir = next;
        }
        Ok(dir)
    }

    /// Resolves `path` and opens its folder: the file (or folder) itself is `name` there.
    fn locate(&self, path: &Path, expect: Expect, create: bool) -> Result<Located, Stop> {
        let rel = self.relative(path).map_err(Stop::Refused)?;
        if let Some(located) = self.locate_plain(&rel)? {
            return Ok(located);
        }
        let (rel, linked) = self.resolve_rel(&rel, expect)?;
        let (parent, name) = match (rel.parent(), rel.file_name()) {
            (Some(parent), Some(name)) => (
                self.open_folders(parent, create)?,
                Some(name.to_os_string()),
            ),
            _ => (self.dir()?.try_clone()?, None),
        };
        Ok(Located {
            parent,
            name,
            rel,
            linked,
        })
    }

    /// The common case first, in one pass: `rel`'s folders opened from the root one at a time
    /// without following a link, and its last component looked at in the last of them. When no
    /// component is a link, that is the resolution (nothing else to check: `relative` refused
    /// `..` and `.git`). `None` when a component is a link or a folder is missing, which the
    /// component-by-component resolution then decides; a missing file is `NotFound`.
    fn locate_plain(&self, rel: &Path) -> Result<Option<Located>, Stop> {
        let (Some(parent), Some(name)) = (rel.parent(), rel.file_name()) else {
            return Ok(None);
        };
        let mut dir = self.dir()?.try_clone()?;
        for c in parent.components() {
            match platform::open_dir_at(&dir, c.as_os_str()) {
                Ok(next) => dir = next,
                // A link (ELOOP, or ENOTDIR where a link's target is no folder), a missing or a
                // refused component: the full resolution says which.
                Err(_) => return Ok(None),
            }
        }
        match platform::stat_at(&dir, name) {
            Ok(meta) if meta.is_symlink() => Ok(None),
            Ok(_) => Ok(Some(Located {
                parent: dir,
                name: Some(name.to_os_string()),
                rel: rel.to_path_buf(),
                linked: false,
            })),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(Some(Located {
                parent: dir,
                name: Some(name.to_os_string()),
                rel: rel.to_path_buf(),
                linked: false,
            })),
            Err(_) => Ok(None),
        }
    }

    /// Opens a regular file of at most `cap` bytes: resolved, opened without a link on the way
    /// (non-blocking: a FIFO never blocks), checked on the handle. A file named like a secret,
    /// or a link that ends at one, is refused.
    fn open_regular(&self, path: &Path, cap: u64) -> Result<(std::fs::File, FileMeta), ReadError> {
        if is_secret_name(path) {
            return Err(ReadError::Secret);
        }
        let at = self.locate(path, Expect::File, false)?;
        let Some(name) = &at.name else {
            return Err(ReadError::NotRegular);
        };
        if is_secret_name(&at.rel) {
            return Err(ReadError::Secret);
        }
        // Looked at before the open (a folder, FIFO or device is never opened: Windows refuses a
        // folder as access denied) and again on the handle after it.
        let seen = platform::stat_at(&at.parent, name)?;
        if !seen.is_file() {
            return Err(ReadError::NotRegular);
        }
        let mut options = OpenOptions::new();
        options.read(true).follow(FollowSymlinks::No);
        platform::cap_read_flags(&mut options);
        let file = at.parent.open_with(name, &options)?.into_std();
        let meta = file.metadata()?;
        check_regular(&meta, cap)?;
        let meta = FileMeta::of_handle(&file, &meta);
        Ok((file, meta))
    }

    /// Reads a whole regular file of at most `cap` bytes (see [`ProjectRoot::open_regular`]).
    pub fn read(&self, path: &Path, cap: Cap) -> Result<Vec<u8>, ReadError> {
        let (file, meta) = self.open_regular(path, cap.bytes())?;
        let mut bytes = Vec::with_capacity(meta.len as usize);
        file.take(cap.bytes().saturating_add(1))
            .read_to_end(&mut bytes)?;
        if !cap.admits(bytes.len() as u64) {
            return Err(ReadError::TooLarge { cap: cap.bytes() });
        }
        Ok(bytes)
    }

    /// [`ProjectRoot::read`], decoded as UTF-8 with invalid sequences replaced.
    pub fn read_string(&self, path: &Path, cap: Cap) -> Result<String, ReadError> {
        Ok(lossy_utf8(self.read(path, cap)?))
    }

    /// The first `cap` bytes of a regular file and its whole length (a document injected as a
    /// prefix): a longer file is cut, not refused.
    pub fn read_prefix(&self, path: &Path, cap: Cap) -> Result<(Vec<u8>, u64), ReadError> {
        let (file, meta) = self.open_regular(path, u64::MAX)?;
        let mut bytes = Vec::with_capacity(meta.len.min(cap.bytes()) as usize);
        file.take(cap.bytes()).read_to_end(&mut bytes)?;
        Ok((bytes, meta.len))
    }

    /// Opens a regular file of at most `cap` bytes for reads at offsets, nothing read yet.
    pub fn open_bounded(&self, path: &Path, cap: Cap) -> Result<BoundedFile, ReadError> {
        let (file, meta) = self.open_regular(path, cap.bytes())?;
        Ok(BoundedFile {
            file,
            len: meta.len,
        })
    }

    /// Lists the folder at `path` (resolved; a link to a folder inside is followed), fetching at
    /// most `cap` entries.
    pub fn list_dir(&self, path: &Path, cap: usize) -> io::Result<Listing> {
        let at = self.locate(path, Expect::Dir, false)?;
        let dir = match &at.name {
            Some(name) => platform::open_dir_at(&at.parent, name)?,
            None => at.parent,
        };
        let entries = dir.entries()?.map(|e| {
            let e = e?;
            let kind = e.file_type()?;
            Ok(Entry {
                name: e.file_name(),
                kind: super::Kind::of_cap(&kind),
            })
        });
        Ok(Listing::new(Box::new(entries), cap))
    }

    /// The metadata of `path` itself (a link at the end is not followed; links before it are,
    /// by the module's rules). `Err` with `NotFound` when there is nothing there.
    pub fn symlink_metadata(&self, path: &Path) -> io::Result<FileMeta> {
        let at = self.locate(path, Expect::Entry, false)?;
        match &at.name {
            Some(name) => platform::stat_at(&at.parent, name),
            None => Ok(FileMeta::of_cap(&at.parent.dir_metadata()?)),
        }
    }

    /// The metadata of what `path` leads to, by the rules a read follows for a file (a link at
    /// the end only to a document) and a listing for a folder.
    pub fn metadata(&self, path: &Path) -> Result<FileMeta, ReadError> {
        let at = self.locate(path, Expect::Dir, false)?;
        let meta = match &at.name {
            Some(name) => platform::stat_at(&at.parent, name)?,
            None => FileMeta::of_cap(&at.parent.dir_metadata()?),
        };
        if at.linked && meta.is_file() && !is_document(&at.rel) {
            return Err(ReadError::Refused(Outside::LinkNotDocument));
        }
        Ok(meta)
    }

    /// Whether `path` leads to a regular file the door would read ([`ProjectRoot::metadata`]).
    pub fn is_file(&self, path: &Path) -> bool {
        self.metadata(path).is_ok_and(|m| m.is_file())
    }

    /// Whether `path` leads to a folder inside the project.
    pub fn is_dir(&self, path: &Path) -> bool {
        self.metadata(path).is_ok_and(|m| m.is_dir())
    }

    /// Writes `contents` to `path` atomically, never through a link at the file, its folders
    /// created `0700` when missing (see [`super::write_atomic`] for the rules, which are the
    /// same): the temporary file is created and renamed in the handle of the target's folder.
    pub fn write_atomic(&self, path: &Path, contents: &[u8], cap: Cap) -> io::Result<()> {
        self.write_atomic_with(path, contents, cap, None)
    }

    /// [`ProjectRoot::write_atomic`] with the permission bits `mode` (a plugin's manifests and
    /// binary, shared or run: `0o644`, `0o755`), new or not.
    pub fn write_atomic_mode(
        &self,
        path: &Path,
        contents: &[u8],
        cap: Cap,
        mode: u32,
    ) -> io::Result<()> {
        self.write_atomic_with(path, contents, cap, Some(mode & 0o777))
    }

    fn write_atomic_with(
        &self,
        path: &Path,
        contents: &[u8],
        cap: Cap,
        forced: Option<u32>,
    ) -> io::Result<()> {
        if !cap.admits(contents.len() as u64) {
            return Err(over_cap(&self.0.path.join(path), contents.len(), cap));
        }
        let at = self.locate(path, Expect::Entry, true)?;
        let Some(name) = &at.name else {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "path has no file name",
            ));
        };
        let shown = self.0.path.join(&at.rel);
        let kept = match at.parent.symlink_metadata(name) {
            Ok(meta) if meta.file_type().is_symlink() => {
                return Err(platform::symlink_refused(&shown));
            }
            Ok(meta) if !meta.is_file() => return Err(super::not_regular(&shown)),
            Ok(meta) => Some(meta.permissions()),
            Err(e) if e.kind() == io::ErrorKind::NotFound => None,
            Err(e) => return Err(e),
        };
        let name = name.to_string_lossy().into_owned();
        let (file, tmp) = create_temp_in(&at.parent, &name)?;
        let result = (|| {
            let mut file = file.into_std();
            file.write_all(contents)?;
            file.sync_all()?;
            match (forced, kept) {
                (Some(mode), _) => {
                    file.set_permissions(platform::mode_permissions(&file, mode)?)?
                }
                (None, Some(permissions)) => at.parent.set_permissions(&tmp, permissions)?,
                (None, None) => file.set_permissions(platform::mode_permissions(&file, 0o600)?)?,
            }
            drop(file);
            platform::replace_in(&at.parent, &tmp, &name)
        })();
        if result.is_err() {
            let _ = at.parent.remove_file(&tmp);
        }
        result
    }

    /// [`ProjectRoot::write_atomic`] for a generated artifact, which never replaces a file
    /// sophia-hook did not create: the target must be missing or a regular file of at most
    /// `cap` bytes for which `is_ours` holds (`docs/security.md` `### I4`).
    pub fn replace_generated(
        &self,
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
                    self.0.path.join(path).shown()
                ),
            ))
        };
        match self.symlink_metadata(path) {
            Ok(meta) if meta.is_symlink() => return refuse("it is a symlink"),
            Ok(_) => match self.read(path, cap) {
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
        self.write_atomic(path, contents, cap)
    }

    /// Removes the file (or link) at `path` itself.
    pub fn remove_file(&self, path: &Path) -> io::Result<()> {
        let at = self.locate(path, Expect::Entry, false)?;
        match &at.name {
            Some(name) => at.parent.remove_file(name),
            None => Err(io::Error::new(io::ErrorKind::InvalidInput, "the root")),
        }
    }

    /// Removes the empty folder at `path` itself.
    pub fn remove_dir(&self, path: &Path) -> io::Result<()> {
        let at = self.locate(path, Expect::Entry, false)?;
        match &at.name {
            Some(name) => at.parent.remove_dir(name),
            None => Err(io::Error::new(io::ErrorKind::InvalidInput, "the root")),
        }
    }

    /// Creates the folder `path` and its missing parents, `0700`.
    pub fn create_dir_all(&self, path: &Path) -> io::Result<()> {
        let rel = self.relative(path).map_err(Stop::Refused)?;
        let (rel, _) = self.resolve_rel(&rel, Expect::Dir)?;
        self.open_folders(&rel, true).map(|_| ())
    }
}

/// Creates the folder `name` in `dir`, private to the user (`0700` whatever the umask; the
/// inherited ACL on Windows).
fn create_private_dir(dir: &Dir, name: &OsStr) -> io::Result<()> {
    let mut builder = cap_std::fs::DirBuilder::new();
    platform::cap_private_dir(&mut builder);
    match dir.create_dir_with(name, &builder) {
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(e),
        Ok(()) => platform::cap_fix_dir_mode(dir, name),
    }
}

/// Creates `.<name>.sophia-tmp-<pid>-<random>` exclusively in `dir` (an existing file or link at
/// that name fails the create, and the next name is tried), `0600`.
fn create_temp_in(dir: &Dir, name: &str) -> io::Result<(cap_std::fs::File, String)> {
    let prefix = format!("{}{}-", temp_prefix(name), std::process::id());
    let mut last = None;
    for _ in 0..64 {
        let tmp = format!("{prefix}{}", random_suffix());
        let mut options = OpenOptions::new();
        options
            .write(true)
            .create_new(true)
            .follow(FollowSymlinks::No);
        platform::cap_private_file(&mut options);
        match dir.open_with(&tmp, &options) {
            Ok(file) => return Ok((file, tmp)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(last.unwrap_or_else(|| io::Error::other("no free temporary name")))
}

/// Eight characters that differ between calls and processes.
fn random_suffix() -> String {
    use std::hash::{BuildHasher, Hasher};
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos()),
    );
    let mut n = h.finish();
    (0..8)
        .map(|_| {
            let c = b"abcdefghijklmnopqrstuvwxyz0123456789"[(n % 36) as usize];
            n /= 36;
            c as char
        })
        .collect()
}
