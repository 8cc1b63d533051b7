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

pub(super) fn account_home() -> Option<std::path::PathBuf> {
    use std::os::unix::ffi::OsStrExt;
    let mut buf = vec![0 as libc::c_char; 16 * 1024];
    // SAFETY: `passwd` is plain data; getpwuid_r writes it and the strings into `buf`, whose
    // length is given, and sets `result` to null when there is no entry.
    let mut pwd: libc::passwd = unsafe { std::mem::zeroed() };
    let mut result: *mut libc::passwd = std::ptr::null_mut();
    let rc = unsafe {
        libc::getpwuid_r(
            libc::getuid(),
            &mut pwd,
            buf.as_mut_ptr(),
            buf.len(),
            &mut result,
        )
    };
    if rc != 0 || result.is_null() || pwd.pw_dir.is_null() {
        return None;
    }
    // SAFETY: `pw_dir` points into `buf`, NUL-terminated by getpwuid_r.
    let dir = unsafe { std::ffi::CStr::from_ptr(pwd.pw_dir) };
    let path = std::path::PathBuf::from(std::ffi::OsStr::from_bytes(dir.to_bytes()));
    path.is_absolute().then_some(path)
}

pub(super) fn link_count(meta: &fs::Metadata) -> u64 {
    meta.nlink()
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

pub(super) fn set_private_dir_mode(dir: &Path) -> io::Result<()> {
    fs::set_permissions(dir, fs::Permissions::from_mode(0o700))
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

pub(super) fn handle_id(_file: &File, meta: &fs::Metadata) -> (Option<FileId>, [i64; 3]) {
    (
        Some(FileId {
            device: meta.dev(),
            index: meta.ino(),
        }),
        [meta.ino() as i64, meta.ctime(), meta.ctime_nsec()],
    )
}

pub(super) fn cap_meta(meta: &cap_std::fs::Metadata) -> (Option<FileId>, [i64; 3], u32) {
    use cap_std::fs::MetadataExt as _;
    (
        Some(FileId {
            device: meta.dev(),
            index: meta.ino(),
        }),
        [meta.ino() as i64, meta.ctime(), meta.ctime_nsec()],
        meta.mode() & 0o777,
    )
}

pub(super) fn cap_read_flags(options: &mut cap_std::fs::OpenOptions) {
    use cap_std::fs::OpenOptionsExt as _;
    options.custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY);
}

pub(super) fn cap_private_file(options: &mut cap_std::fs::OpenOptions) {
    use cap_std::fs::OpenOptionsExt as _;
    options.mode(0o600);
}

pub(super) fn cap_private_dir(builder: &mut cap_std::fs::DirBuilder) {
    use cap_std::fs::DirBuilderExt as _;
    builder.mode(0o700);
}

pub(super) fn cap_fix_dir_mode(dir: &cap_std::fs::Dir, name: &std::ffi::OsStr) -> io::Result<()> {
    use cap_std::fs::PermissionsExt as _;
    dir.set_permissions(name, cap_std::fs::Permissions::from_mode(0o700))
}

pub(super) fn replace_in(dir: &cap_std::fs::Dir, from: &str, to: &str) -> io::Result<()> {
    dir.rename(from, dir, to)
}

pub(super) fn birth_time(meta: &cap_std::fs::Metadata) -> Option<std::time::SystemTime> {
    meta.created().ok().map(cap_std::time::SystemTime::into_std)
}

pub(super) fn open_dir_at(
    dir: &cap_std::fs::Dir,
    name: &std::ffi::OsStr,
) -> io::Result<cap_std::fs::Dir> {
    use rustix::fs::{Mode, OFlags, openat};
    let fd = openat(
        dir,
        name,
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        Mode::empty(),
    )?;
    Ok(cap_std::fs::Dir::from_std_file(fs::File::from(fd)))
}

pub(super) fn stat_at(
    dir: &cap_std::fs::Dir,
    name: &std::ffi::OsStr,
) -> io::Result<crate::edge::files::FileMeta> {
    use crate::edge::files::{FileMeta, Kind};
    use rustix::fs::{AtFlags, FileType, statat};
    let st = statat(dir, name, AtFlags::SYMLINK_NOFOLLOW)?;
    let kind = match FileType::from_raw_mode(st.st_mode) {
        FileType::RegularFile => Kind::File,
        FileType::Directory => Kind::Dir,
        FileType::Symlink => Kind::Symlink,
        _ => Kind::Other,
    };
    let secs = st.st_mtime as i64;
    let nanos = st.st_mtime_nsec as u32;
    let modified = if secs >= 0 {
        std::time::UNIX_EPOCH.checked_add(std::time::Duration::new(secs as u64, nanos))
    } else {
        std::time::UNIX_EPOCH.checked_sub(std::time::Duration::new(secs.unsigned_abs(), 0))
    };
    Ok(FileMeta {
        kind,
        len: st.st_size as u64,
        modified,
        id: Some(FileId {
            device: st.st_dev as u64,
            index: st.st_ino as u64,
        }),
        change: [
            st.st_ino as i64,
            st.st_ctime as i64,
            st.st_ctime_nsec as i64,
        ],
        mode: (st.st_mode as u32) & 0o777,
    })
}
