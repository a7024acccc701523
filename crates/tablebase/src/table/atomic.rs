//! Writing a file so that it is complete under its final name or not there at all: a
//! temporary name, sync, rename, sync of the directory.

use super::error::TableError;
use std::fs::{self, File, OpenOptions};
use std::io;
use std::path::{Path, PathBuf};

/// The temporary name a file is written under before it is complete.
pub fn temporary_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().map(|n| n.to_os_string()).unwrap_or_default();
    name.push(".tmp");
    path.with_file_name(name)
}

/// `name` without the suffixes of a file being written (`.tmp`, and a checkpointed table's
/// `.tmp.chunks`): the name it will have once complete.
pub(crate) fn final_name(name: &str) -> &str {
    let name = name.strip_suffix(".chunks").unwrap_or(name);
    name.strip_suffix(".tmp").unwrap_or(name)
}

/// The names of the files in `dir` that are UTF-8 (every table's is); none where it cannot be
/// read.
pub(crate) fn file_names(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .map(|entries| entries.filter_map(|e| e.ok()?.file_name().into_string().ok()).collect())
        .unwrap_or_default()
}

/// A file being written under its temporary name; [`Pending::commit`] puts it in place. One
/// that is dropped without being committed (an error on the way) removes its temporary file, so
/// that a failed run leaves no stray files.
pub(crate) struct Pending {
    pub file: File,
    pub temporary: PathBuf,
    path: PathBuf,
    committed: bool,
}

impl Pending {
    /// Creates the temporary file of `path` anew (one an earlier run left is removed first; a
    /// link under its name is refused, never followed).
    pub fn create(path: &Path) -> Result<Pending, TableError> {
        let temporary = temporary_path(path);
        let file = super::regular::create_to_write(&temporary)
            .map_err(|source| TableError::Io { path: temporary.clone(), source })?;
        Ok(Pending { file, temporary, path: path.to_path_buf(), committed: false })
    }

    /// The temporary file of `path` as an earlier run left it, to go on writing it; `None` when
    /// there is none.
    pub(crate) fn open_existing(path: &Path) -> Result<Option<Pending>, TableError> {
        let temporary = temporary_path(path);
        match super::regular::open_to_write(OpenOptions::new().read(true).write(true), &temporary) {
            Ok(file) => Ok(Some(Pending { file, temporary, path: path.to_path_buf(), committed: false })),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(source) => Err(TableError::Io { path: temporary, source }),
        }
    }

    /// Makes the file `length` bytes long with its blocks allocated on disk, so that writing
    /// through a memory map cannot fail half-way (a full disk would be a SIGBUS there): a
    /// clear error now instead.
    pub(crate) fn reserve(&self, length: u64) -> Result<(), TableError> {
        reserve_blocks(&self.file, length, &self.temporary)
    }

    /// An I/O error on the temporary file.
    pub fn error(&self) -> impl FnOnce(io::Error) -> TableError + '_ {
        |source| TableError::Io { path: self.temporary.clone(), source }
    }

    /// Syncs the file, renames it to its final name and syncs the directory, so that the
    /// rename survives a power loss.
    pub(crate) fn commit(mut self) -> Result<(), TableError> {
        self.file.sync_all().map_err(|source| TableError::Io { path: self.temporary.clone(), source })?;
        let at_path = |source| TableError::Io { path: self.path.clone(), source };
        fs::rename(&self.temporary, &self.path).map_err(at_path)?;
        self.committed = true;
        sync_directory(&self.path).map_err(|source| TableError::Io { path: self.path.clone(), source })
    }

    /// Leaves the temporary file for the next run to go on writing, as a kill does: for a
    /// checkpointed table whose run was stopped on request.
    pub(crate) fn keep(mut self) {
        self.committed = true;
    }
}

impl Drop for Pending {
    fn drop(&mut self) {
        if !self.committed {
            let _ = fs::remove_file(&self.temporary);
        }
    }
}

/// Makes `file` (named `path` in messages) `length` bytes long with its blocks allocated on
/// disk: a full disk is [`TableError::NoSpace`] here rather than a SIGBUS when a memory map of
/// the file is written.
pub(crate) fn reserve_blocks(file: &File, length: u64, path: &Path) -> Result<(), TableError> {
    use std::os::fd::AsRawFd;
    let no_space = || no_space(path, length);
    let failed = |source| TableError::Io { path: path.to_path_buf(), source };
    let Ok(signed) = libc::off_t::try_from(length) else {
        return Err(failed(io::Error::from_raw_os_error(libc::EFBIG)));
    };
    // SAFETY: a plain system call on a file descriptor the caller owns.
    match unsafe { libc::posix_fallocate(file.as_raw_fd(), 0, signed) } {
        0 => Ok(()),
        libc::ENOSPC => Err(no_space()),
        // A file system without fallocate: the length alone, as before.
        libc::EOPNOTSUPP | libc::EINVAL => file.set_len(length).map_err(failed),
        // EFBIG among them, past the largest file allowed (`ulimit -f`, or the file system's):
        // the system's words, "File too large", not a full disk.
        code => Err(failed(io::Error::from_raw_os_error(code))),
    }
}

/// The error for a file at `path` that needs `needed` bytes more than the disk has, with what
/// it has free.
pub(crate) fn no_space(path: &Path, needed: u64) -> TableError {
    TableError::NoSpace { path: path.to_path_buf(), needed, free: free_space(path) }
}

/// Bytes free for an unprivileged writer on the file system holding `path`.
pub(crate) fn free_space(path: &Path) -> Option<u64> {
    use std::os::unix::ffi::OsStrExt;
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name = std::ffi::CString::new(dir.as_os_str().as_bytes()).ok()?;
    let mut stat: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: `name` is a NUL-terminated path and `stat` a properly sized out-parameter.
    let result = unsafe { libc::statvfs(name.as_ptr(), &mut stat) };
    (result == 0).then_some(stat.f_bavail * stat.f_frsize)
}

/// Syncs the directory holding `path`.
fn sync_directory(path: &Path) -> io::Result<()> {
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    File::open(dir)?.sync_all()
}
