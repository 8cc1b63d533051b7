//! The Unix side of the platform layer (Linux, macOS): `libc` open flags, mode bits, device and
//! inode.

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

pub(super) fn mode_permissions(_file: &File, mode: u32) -> io::Result<fs::Permissions> {
    Ok(fs::Permissions::from_mode(mode & 0o7777))
}

pub(super) fn mode_bits(meta: &fs::Metadata) -> u32 {
    meta.permissions().mode() & 0o777
}

pub(super) fn create_private_dir_all(dir: &Path) -> io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    if dir.is_dir() {
        return Ok(());
    }
    let mut missing = Vec::new();
    let mut at = dir;
    while !at.as_os_str().is_empty() && fs::symlink_metadata(at).is_err() {
        missing.push(at.to_path_buf());
        match at.parent() {
            Some(parent) => at = parent,
            None => break,
        }
    }
    fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)?;
    // The umask may have taken bits away from 0700 (never added any): set it exactly.
    for created in missing {
        let _ = fs::set_permissions(&created, fs::Permissions::from_mode(0o700));
    }
    Ok(())
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

pub(super) fn change_stamp(_path: &Path, meta: &fs::Metadata) -> [i64; 3] {
    [meta.ino() as i64, meta.ctime(), meta.ctime_nsec()]
}

pub(super) fn replace_file(from: &Path, to: &Path) -> io::Result<()> {
    fs::rename(from, to)
}
