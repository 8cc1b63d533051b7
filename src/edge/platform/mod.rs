//! The platform layer: every call that differs between Unix and Windows, behind one interface, so
//! the trust layer (`edge::files`) and the skill inventory (`edge::skills`) state their guarantees
//! once and each platform keeps them with its own primitives.
//!
//! | guarantee | Unix | Windows |
//! |---|---|---|
//! | a read never blocks on a FIFO or takes a terminal | `O_NONBLOCK \| O_NOCTTY` | no FIFOs or terminals in the file namespace; regular files only, checked on the handle |
//! | a write never follows a link at its last component | `O_NOFOLLOW` (`ELOOP`) | `FILE_FLAG_OPEN_REPARSE_POINT`, then any reparse point (symlink, junction, mount point) on the opened handle is refused |
//! | a file we create is private | mode `0600` | the folder's inherited ACL: under the user profile (`%USERPROFILE%`, `%LOCALAPPDATA%`) only the user, SYSTEM and Administrators |
//! | a replaced file keeps its permissions | the mode bits (`& 0o7777`) | the read-only attribute |
//! | file identity (freshness stamp, visited sets) | device and inode | volume serial number and file index |
//!
//! Locking needs no platform code: `std::fs::File::lock` is `flock(LOCK_EX)` on Unix and
//! `LockFileEx` on Windows; both are released when the file is closed.
// The door's own primitives (see `edge::files`): the one place besides it that opens files.
#![allow(clippy::disallowed_methods)]

use crate::charset::Shown as _;
use std::fs::{self, File, OpenOptions};
use std::io;
use std::path::Path;

#[cfg(unix)]
mod unix;
#[cfg(unix)]
use unix as imp;

#[cfg(windows)]
mod windows;
#[cfg(windows)]
use windows as imp;

/// The identity of a file or folder: equal for two paths that reach the same object.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FileId {
    /// The device (Unix) or volume serial number (Windows).
    pub device: u64,
    /// The inode (Unix) or file index (Windows).
    pub index: u64,
}

/// Sets the options of a read: non-blocking and without a controlling terminal on Unix (a FIFO
/// never blocks the open). The caller checks on the handle that it reached a regular file.
pub fn read_flags(options: &mut OpenOptions) -> &mut OpenOptions {
    imp::read_flags(options)
}

/// Sets the options of a write that must not follow a link at the path's last component, and
/// must not block on a FIFO. The caller checks the handle with [`refuse_link_on_handle`].
pub fn nofollow_flags(options: &mut OpenOptions) -> &mut OpenOptions {
    imp::nofollow_flags(options)
}

/// Sets the options of an exclusive create that must not follow a link (temporary files, the
/// `doctor` probe).
pub fn nofollow_create_flags(options: &mut OpenOptions) -> &mut OpenOptions {
    imp::nofollow_create_flags(options)
}

/// Makes a file created by these options private to the user (`0600` on Unix; on Windows the
/// folder's inherited ACL decides, see the module table).
pub fn private_mode(options: &mut OpenOptions) -> &mut OpenOptions {
    imp::mode(options, 0o600)
}

/// Gives a file created by these options the default permissions (`0666` minus the umask on
/// Unix; the folder's inherited ACL on Windows).
pub fn default_mode(options: &mut OpenOptions) -> &mut OpenOptions {
    imp::mode(options, 0o666)
}

/// The permissions an atomic replacement carries over from the file it replaces.
pub fn kept_permissions(meta: &fs::Metadata) -> fs::Permissions {
    imp::kept_permissions(meta)
}

/// The permissions that give `file` the mode bits `mode` (`0600`, a backup's original mode): the
/// bits themselves on Unix; on Windows only the read-only attribute follows `mode` (no owner
/// write bit: read-only), the rest is the folder's inherited ACL.
pub fn mode_permissions(file: &File, mode: u32) -> io::Result<fs::Permissions> {
    imp::mode_permissions(file, mode)
}

/// The mode bits of a regular file's metadata (`& 0o777` on Unix; on Windows `0o400` for a
/// read-only file, else `0o600`).
pub fn mode_bits(meta: &fs::Metadata) -> u32 {
    imp::mode_bits(meta)
}

/// The home folder the system gives this account (the password database on Unix), never the
/// `HOME` variable; `None` on Windows and when it cannot be read.
pub fn account_home() -> Option<std::path::PathBuf> {
    imp::account_home()
}

/// How many names (hard links) the file has: `nlink` on Unix; on Windows 1 (its count needs a
/// handle query std does not offer stably; a hard-linked settings file is not refused there).
pub fn link_count(meta: &fs::Metadata) -> u64 {
    imp::link_count(meta)
}

/// Creates `dir` and its missing parents private to the user (`0700` on Unix whatever the
/// umask; on Windows the inherited ACL of the user's profile). Existing folders keep theirs.
pub fn create_private_dir_all(dir: &Path) -> io::Result<()> {
    imp::create_private_dir_all(dir)
}

/// Sets a folder we just created private (`0700` on Unix; on Windows it keeps the inherited ACL
/// of the user's profile).
pub fn set_private_dir_mode(dir: &Path) -> io::Result<()> {
    imp::set_private_dir_mode(dir)
}

/// The error of an open that refused a link at the last component (`ELOOP` on Unix), said
/// plainly; other errors unchanged.
pub fn nofollow_error(e: io::Error, path: &Path) -> io::Error {
    if imp::is_nofollow_refusal(&e) {
        symlink_refused(path)
    } else {
        e
    }
}

/// Refuses a handle opened by [`nofollow_flags`] that is a link itself (Windows opens the reparse
/// point rather than failing, so the check is on the handle; on Unix the open already failed).
pub fn refuse_link_on_handle(file: &File, path: &Path) -> io::Result<()> {
    if imp::handle_is_link(file)? {
        Err(symlink_refused(path))
    } else {
        Ok(())
    }
}

pub(crate) fn symlink_refused(path: &Path) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!("refusing to write through the symlink {}", path.shown()),
    )
}

/// Fills `buf` from `offset` of `file` without moving a shared cursor.
pub fn read_exact_at(file: &File, buf: &mut [u8], offset: u64) -> io::Result<()> {
    imp::read_exact_at(file, buf, offset)
}

/// The identity of what `path` reaches (symlinks followed); `meta` is its `fs::metadata`, which
/// holds the identity on Unix (Windows opens the path to ask).
pub fn file_id(path: &Path, meta: &fs::Metadata) -> Option<FileId> {
    imp::file_id(path, meta)
}

/// The modification time as seconds and nanoseconds since the Unix epoch.
pub fn mtime(meta: &fs::Metadata) -> (i64, i64) {
    imp::mtime(meta)
}

/// What changes whenever a file's contents are replaced, whatever the writer did to its size and
/// modification time: on Unix the inode and the change time (`st_ctime`, which no unprivileged
/// call sets back); on Windows the file index, the creation time and the volume serial number
/// (a file saved by rename is a new file, with a new index; an in-place rewrite that sets the
/// time back is not seen there, `docs/security.md` `### I1`). `path` is the file `meta` is of.
pub fn change_stamp(path: &Path, meta: &fs::Metadata) -> [i64; 3] {
    imp::change_stamp(path, meta)
}

/// Renames `from` over `to`, replacing it atomically: a reader sees the old file or the new one,
/// never a missing or half-written one. `rename(2)` on Unix. On Windows `std::fs::rename` uses
/// POSIX semantics where the file system has them, which replace a file a reader has open; where
/// it has not (older Windows 10, FAT and network volumes, Wine 8), the replace of a file that is
/// open fails with access denied or a sharing violation until the reader closes it, so it is
/// tried again for up to two seconds (readers hold the file open for one bounded read).
pub fn replace_file(from: &Path, to: &Path) -> io::Result<()> {
    imp::replace_file(from, to)
}

/// The identity and change stamp of an opened handle (`meta` is its `fstat`): what a freshness
/// check compares is the file that was read, with no look-up of a name.
pub fn handle_id(file: &File, meta: &fs::Metadata) -> (Option<FileId>, [i64; 3]) {
    imp::handle_id(file, meta)
}

/// The identity, change stamp and mode bits of a project entry's metadata (`cap_std`), as
/// [`file_id`], [`change_stamp`] and [`mode_bits`] give them for a path's.
pub fn cap_meta(meta: &cap_std::fs::Metadata) -> (Option<FileId>, [i64; 3], u32) {
    imp::cap_meta(meta)
}

/// When a folder was made, where that tells one folder from another made later at the same
/// path: the birth time on Unix (`statx`; `None` where the file system keeps none). On Windows
/// `None`: the file index already changes when a record is reused, and Wine reports a creation
/// time that follows the folder's modification time.
pub fn birth_time(meta: &cap_std::fs::Metadata) -> Option<std::time::SystemTime> {
    imp::birth_time(meta)
}

/// Opens the folder `name` (one component, no `..`) of the folder `dir`, never through a link.
pub fn open_dir_at(dir: &cap_std::fs::Dir, name: &std::ffi::OsStr) -> io::Result<cap_std::fs::Dir> {
    imp::open_dir_at(dir, name)
}

/// What the entry `name` (one component, no `..`) of the folder `dir` is, itself (a link is not
/// followed): kind, length, time, identity and change stamp, mode.
pub fn stat_at(
    dir: &cap_std::fs::Dir,
    name: &std::ffi::OsStr,
) -> io::Result<crate::edge::files::FileMeta> {
    imp::stat_at(dir, name)
}

/// [`read_flags`] for an open in a project folder's handle.
pub fn cap_read_flags(options: &mut cap_std::fs::OpenOptions) {
    imp::cap_read_flags(options);
}

/// [`private_mode`] for a file created in a project folder's handle.
pub fn cap_private_file(options: &mut cap_std::fs::OpenOptions) {
    imp::cap_private_file(options);
}

/// A folder created in a project folder's handle is private (`0700`; the inherited ACL on
/// Windows).
pub fn cap_private_dir(builder: &mut cap_std::fs::DirBuilder) {
    imp::cap_private_dir(builder);
}

/// Sets a folder just created in `dir` to exactly `0700` (the umask may have taken bits away).
pub fn cap_fix_dir_mode(dir: &cap_std::fs::Dir, name: &std::ffi::OsStr) -> io::Result<()> {
    imp::cap_fix_dir_mode(dir, name)
}

/// [`replace_file`] inside one folder's handle: `from` renamed over `to`, both names in `dir`.
pub fn replace_in(dir: &cap_std::fs::Dir, from: &str, to: &str) -> io::Result<()> {
    imp::replace_in(dir, from, to)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    #[test]
    fn two_paths_to_one_file_share_an_identity_and_two_files_do_not() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a");
        let b = dir.path().join("b");
        fs::write(&a, "a").unwrap();
        fs::write(&b, "b").unwrap();
        let id = |p: &Path| file_id(p, &fs::metadata(p).unwrap()).unwrap();
        assert_eq!(id(&a), id(&dir.path().join(".").join("a")));
        assert_ne!(id(&a), id(&b));
        assert_ne!(id(&a), id(dir.path()));
        // A rename keeps the identity; a rewrite by rename over it gives the new file's.
        let c = dir.path().join("c");
        let before = id(&a);
        fs::rename(&a, &c).unwrap();
        assert_eq!(id(&c), before);
        fs::rename(&b, &c).unwrap();
        assert_ne!(id(&c), before);
    }

    #[test]
    fn a_created_private_file_is_the_users_only() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("private");
        private_mode(OpenOptions::new().write(true).create_new(true))
            .open(&path)
            .unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = fs::metadata(&path).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o600);
        }
        // On Windows the file inherits the folder's ACL; what can be checked is that it is an
        // ordinary writable file (not read-only), which the inherited ACL decides.
        assert!(!fs::metadata(&path).unwrap().permissions().readonly());
    }

    #[test]
    fn a_link_at_a_nofollow_write_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim");
        fs::write(&victim, "keep").unwrap();
        let link = dir.path().join("link");
        if !make_file_symlink(&victim, &link) {
            return; // The platform cannot make the link here (see make_file_symlink).
        }
        let opened = nofollow_flags(OpenOptions::new().append(true))
            .open(&link)
            .map_err(|e| nofollow_error(e, &link))
            .and_then(|f| refuse_link_on_handle(&f, &link).map(|()| f));
        let err = opened.unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidInput, "{err}");
        assert!(err.to_string().contains("symlink"), "{err}");
        assert_eq!(fs::read_to_string(&victim).unwrap(), "keep");
    }

    #[test]
    fn a_regular_file_passes_the_handle_check() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("plain");
        fs::write(&path, "x").unwrap();
        let file = nofollow_flags(OpenOptions::new().append(true))
            .open(&path)
            .unwrap();
        refuse_link_on_handle(&file, &path).unwrap();
    }

    #[test]
    fn positional_reads_fill_exactly() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        fs::write(&path, "0123456789").unwrap();
        let file = File::open(&path).unwrap();
        let mut buf = [0; 4];
        read_exact_at(&file, &mut buf, 3).unwrap();
        assert_eq!(&buf, b"3456");
        let err = read_exact_at(&file, &mut buf, 8).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::UnexpectedEof);
    }

    /// Makes a file symlink; false when this system makes none (see [`links_work`]).
    pub(crate) fn make_file_symlink(target: &Path, link: &Path) -> bool {
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(target, link).unwrap();
            true
        }
        #[cfg(windows)]
        {
            links_work() && std::os::windows::fs::symlink_file(target, link).is_ok()
        }
    }

    /// Whether this system makes symlinks, probed once: always on Unix; on Windows with the
    /// privilege or developer mode. Wine 8.0's `CreateSymbolicLinkW` is a stub that reports
    /// success and makes nothing, so under Wine the link cases of the trust-layer tests are
    /// skipped (said on stderr) and only the rest of each test runs.
    pub(crate) fn links_work() -> bool {
        static WORKS: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
        *WORKS.get_or_init(|| {
            #[cfg(unix)]
            {
                true
            }
            #[cfg(windows)]
            {
                let dir = tempfile::tempdir().unwrap();
                let target = dir.path().join("target");
                fs::write(&target, "x").unwrap();
                let link = dir.path().join("link");
                let works = std::os::windows::fs::symlink_file(&target, &link).is_ok()
                    && fs::symlink_metadata(&link).is_ok_and(|m| m.file_type().is_symlink());
                if !works {
                    eprintln!("this system makes no symlinks (Wine): the link cases are skipped");
                }
                works
            }
        })
    }
}
