//! The Windows side of the platform layer: `FILE_FLAG_OPEN_REPARSE_POINT` and the reparse-point
//! attribute for writes that never follow a link, the read-only attribute, volume serial number
//! and file index.

use super::FileId;
use std::fs::{self, File, OpenOptions};
use std::io;
use std::os::windows::fs::{FileExt, MetadataExt, OpenOptionsExt};
use std::os::windows::io::AsRawHandle;
use std::path::Path;
use std::time::UNIX_EPOCH;
use windows_sys::Win32::Foundation::{ERROR_ACCESS_DENIED, ERROR_SHARING_VIOLATION};
use windows_sys::Win32::Storage::FileSystem::{
    BY_HANDLE_FILE_INFORMATION, FILE_ATTRIBUTE_REPARSE_POINT, FILE_FLAG_BACKUP_SEMANTICS,
    FILE_FLAG_OPEN_REPARSE_POINT, GetFileInformationByHandle,
};

/// Windows has no FIFOs or terminals among files that `CreateFileW` opens without blocking, and
/// named pipes live under `\\.\pipe\`, not in a project; the regular-file check on the handle
/// does the rest.
pub(super) fn read_flags(options: &mut OpenOptions) -> &mut OpenOptions {
    options
}

/// Opens the reparse point itself instead of what it points to, so [`handle_is_link`] can refuse
/// it before a byte is written.
pub(super) fn nofollow_flags(options: &mut OpenOptions) -> &mut OpenOptions {
    options.custom_flags(FILE_FLAG_OPEN_REPARSE_POINT)
}

/// `CREATE_NEW` fails on any existing name, a link included; the flag keeps a link from being
/// resolved on the way.
pub(super) fn nofollow_create_flags(options: &mut OpenOptions) -> &mut OpenOptions {
    options.custom_flags(FILE_FLAG_OPEN_REPARSE_POINT)
}

/// No mode bits: a new file inherits its folder's ACL. Under the user profile that is the user,
/// SYSTEM and Administrators only, which is what "private" means on Windows.
pub(super) fn mode(options: &mut OpenOptions, _mode: u32) -> &mut OpenOptions {
    options
}

pub(super) fn kept_permissions(meta: &fs::Metadata) -> fs::Permissions {
    meta.permissions()
}

pub(super) fn mode_permissions(file: &File, mode: u32) -> io::Result<fs::Permissions> {
    let mut permissions = file.metadata()?.permissions();
    permissions.set_readonly(mode & 0o200 == 0);
    Ok(permissions)
}

pub(super) fn account_home() -> Option<std::path::PathBuf> {
    None
}

pub(super) fn link_count(_meta: &fs::Metadata) -> u64 {
    1
}

pub(super) fn mode_bits(meta: &fs::Metadata) -> u32 {
    if meta.permissions().readonly() {
        0o400
    } else {
        0o600
    }
}

/// The user's profile folders already carry a private ACL, which new folders inherit.
pub(super) fn create_private_dir_all(dir: &Path) -> io::Result<()> {
    fs::create_dir_all(dir)
}

/// No mode bits: the folder keeps the inherited ACL of the user's profile.
pub(super) fn set_private_dir_mode(_dir: &Path) -> io::Result<()> {
    Ok(())
}

/// With `FILE_FLAG_OPEN_REPARSE_POINT` the open succeeds; the refusal is on the handle.
pub(super) fn is_nofollow_refusal(_e: &io::Error) -> bool {
    false
}

pub(super) fn handle_is_link(file: &File) -> io::Result<bool> {
    let meta = file.metadata()?;
    Ok(meta.file_type().is_symlink() || meta.file_attributes() & FILE_ATTRIBUTE_REPARSE_POINT != 0)
}

pub(super) fn read_exact_at(file: &File, mut buf: &mut [u8], mut offset: u64) -> io::Result<()> {
    while !buf.is_empty() {
        match file.seek_read(buf, offset) {
            Ok(0) => {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "failed to fill whole buffer",
                ));
            }
            Ok(n) => {
                buf = &mut buf[n..];
                offset += n as u64;
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// Opens the path (a folder needs `FILE_FLAG_BACKUP_SEMANTICS`) without read or write access and
/// asks the handle for its volume serial number and file index.
pub(super) fn file_id(path: &Path, _meta: &fs::Metadata) -> Option<FileId> {
    let file = OpenOptions::new()
        .access_mode(0)
        .custom_flags(FILE_FLAG_BACKUP_SEMANTICS)
        .open(path)
        .ok()?;
    // SAFETY: an all-zero BY_HANDLE_FILE_INFORMATION is valid (plain integers).
    let mut info: BY_HANDLE_FILE_INFORMATION = unsafe { std::mem::zeroed() };
    // SAFETY: the handle is open for the call's duration and `info` is a valid out pointer.
    let ok = unsafe { GetFileInformationByHandle(file.as_raw_handle(), &mut info) };
    (ok != 0).then(|| FileId {
        device: u64::from(info.dwVolumeSerialNumber),
        index: (u64::from(info.nFileIndexHigh) << 32) | u64::from(info.nFileIndexLow),
    })
}

pub(super) fn mtime(meta: &fs::Metadata) -> (i64, i64) {
    match meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
    {
        Some(d) => (
            i64::try_from(d.as_secs()).unwrap_or(i64::MAX),
            i64::from(d.subsec_nanos()),
        ),
        None => (0, 0),
    }
}

/// The file index and volume serial number need a handle (std's `Metadata` has them only on
/// nightly): one more open of the file; when it fails they are 0 and the creation time alone
/// stands.
pub(super) fn change_stamp(path: &Path, meta: &fs::Metadata) -> [i64; 3] {
    let id = file_id(path, meta).unwrap_or(FileId {
        device: 0,
        index: 0,
    });
    [
        id.index as i64,
        meta.creation_time() as i64,
        id.device as i64,
    ]
}

/// `std::fs::rename`, tried again while the target is held open by a reader (see the interface's
/// comment): 1, 2, 4 … 64 ms apart, about two seconds in all, then the last error.
pub(super) fn replace_file(from: &Path, to: &Path) -> io::Result<()> {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(2);
    let mut pause = std::time::Duration::from_millis(1);
    loop {
        match fs::rename(from, to) {
            Err(e)
                if matches!(
                    e.raw_os_error(),
                    Some(code) if code == ERROR_ACCESS_DENIED as i32
                        || code == ERROR_SHARING_VIOLATION as i32
                ) && std::time::Instant::now() < deadline =>
            {
                std::thread::sleep(pause);
                pause = (pause * 2).min(std::time::Duration::from_millis(64));
            }
            other => return other,
        }
    }
}

pub(super) fn handle_id(file: &File, meta: &fs::Metadata) -> (Option<FileId>, [i64; 3]) {
    // SAFETY: an all-zero BY_HANDLE_FILE_INFORMATION is valid (plain integers).
    let mut info: BY_HANDLE_FILE_INFORMATION = unsafe { std::mem::zeroed() };
    // SAFETY: the handle is open for the call's duration and `info` is a valid out pointer.
    let ok = unsafe { GetFileInformationByHandle(file.as_raw_handle(), &mut info) };
    let id = (ok != 0).then(|| FileId {
        device: u64::from(info.dwVolumeSerialNumber),
        index: (u64::from(info.nFileIndexHigh) << 32) | u64::from(info.nFileIndexLow),
    });
    let stamp = id.map_or([0, meta.creation_time() as i64, 0], |id| {
        [
            id.index as i64,
            meta.creation_time() as i64,
            id.device as i64,
        ]
    });
    (id, stamp)
}

pub(super) fn cap_meta(meta: &cap_std::fs::Metadata) -> (Option<FileId>, [i64; 3], u32) {
    use cap_primitives::fs::_WindowsByHandle as _;
    use cap_std::fs::MetadataExt as _;
    let id = match (meta.volume_serial_number(), meta.file_index()) {
        (Some(device), Some(index)) => Some(FileId {
            device: u64::from(device),
            index,
        }),
        _ => None,
    };
    let stamp = id.map_or([0, meta.creation_time() as i64, 0], |id| {
        [
            id.index as i64,
            meta.creation_time() as i64,
            id.device as i64,
        ]
    });
    let mode = if meta.permissions().readonly() {
        0o400
    } else {
        0o600
    };
    (id, stamp, mode)
}

pub(super) fn cap_read_flags(_options: &mut cap_std::fs::OpenOptions) {}

pub(super) fn cap_private_file(_options: &mut cap_std::fs::OpenOptions) {}

pub(super) fn cap_private_dir(_builder: &mut cap_std::fs::DirBuilder) {}

pub(super) fn cap_fix_dir_mode(_dir: &cap_std::fs::Dir, _name: &std::ffi::OsStr) -> io::Result<()> {
    Ok(())
}

/// A rename inside the folder's handle, tried again while a reader holds the target open (see
/// [`replace_file`]).
pub(super) fn replace_in(dir: &cap_std::fs::Dir, from: &str, to: &str) -> io::Result<()> {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(2);
    let mut pause = std::time::Duration::from_millis(1);
    loop {
        match dir.rename(from, dir, to) {
            Err(e)
                if matches!(
                    e.raw_os_error(),
                    Some(code) if code == ERROR_ACCESS_DENIED as i32
                        || code == ERROR_SHARING_VIOLATION as i32
                ) && std::time::Instant::now() < deadline =>
            {
                std::thread::sleep(pause);
                pause = (pause * 2).min(std::time::Duration::from_millis(64));
            }
            other => return other,
        }
    }
}

pub(super) fn birth_time(_meta: &cap_std::fs::Metadata) -> Option<std::time::SystemTime> {
    None
}

pub(super) fn open_dir_at(
    dir: &cap_std::fs::Dir,
    name: &std::ffi::OsStr,
) -> io::Result<cap_std::fs::Dir> {
    use cap_fs_ext::DirExt as _;
    dir.open_dir_nofollow(name)
}

pub(super) fn stat_at(
    dir: &cap_std::fs::Dir,
    name: &std::ffi::OsStr,
) -> io::Result<crate::edge::files::FileMeta> {
    dir.symlink_metadata(name)
        .map(|m| crate::edge::files::FileMeta::of_cap(&m))
}
