//! The Unix side of the platform layer (Linux, macOS): `libc` open flags, mode bits, device and
//! inode, `kill(pid, 0)`.

use super::FileId;
use std::fs::{self, File, OpenOptions};
use std::io;
use std::os::unix::fs::{FileExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::Path;

pub(super) fn read_flags(options: &mut OpenOptions) -> &mut OpenOptions {
    options.custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
}

pub(super) fn nofollow_flags(options: &mut OpenOptions) -> &mut OpenOptions {
    options.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_NOCTTY)
}

pub(super) fn nofollow_create_flags(options: &mut OpenOptions) -> &mut OpenOptions {
    options.custom_flags(libc::O_NOFOLLOW)
}

pub(super) fn mode(options: &mut OpenOptions, mode: u32) -> &mut OpenOptions {
    options.mode(mode)
}

pub(super) fn kept_permissions(meta: &fs::Metadata) -> fs::Permissions {
    fs::Permissions::from_mode(meta.permissions().mode() & 0o7777)
}

pub(super) fn is_nofollow_refusal(e: &io::Error) -> bool {
    e.raw_os_error() == Some(libc::ELOOP)
}

/// `O_NOFOLLOW` already refused a symlink at the open.
pub(super) fn handle_is_link(_file: &File) -> io::Result<bool> {
    Ok(false)
}

pub(super) fn read_exact_at(file: &File, buf: &mut [u8], offset: u64) -> io::Result<()> {
    file.read_exact_at(buf, offset)
}

pub(super) fn file_id(_path: &Path, meta: &fs::Metadata) -> Option<FileId> {
    Some(FileId {
        device: meta.dev(),
        index: meta.ino(),
    })
}

pub(super) fn mtime(meta: &fs::Metadata) -> (i64, i64) {
    (meta.mtime(), meta.mtime_nsec())
}

pub(super) fn process_alive(pid: u32) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return true;
    };
    if pid <= 0 {
        return true;
    }
    // SAFETY: kill with signal 0 only checks whether the process exists; it sends nothing.
    let rc = unsafe { libc::kill(pid, 0) };
    rc == 0 || io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH)
}
