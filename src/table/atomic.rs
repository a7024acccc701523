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

/// A file being written under its temporary name; [`Pending::commit`] puts it in place.
pub(crate) struct Pending {
    pub file: File,
    pub temporary: PathBuf,
    path: PathBuf,
}

impl Pending {
    /// Creates (or truncates) the temporary file of `path`.
    pub fn create(path: &Path) -> Result<Pending, TableError> {
        let temporary = temporary_path(path);
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(&temporary)
            .map_err(|source| TableError::Io { path: temporary.clone(), source })?;
        Ok(Pending { file, temporary, path: path.to_path_buf() })
    }

    /// An I/O error on the temporary file.
    pub fn error(&self) -> impl FnOnce(io::Error) -> TableError + '_ {
        |source| TableError::Io { path: self.temporary.clone(), source }
    }

    /// Syncs the file, renames it to its final name and syncs the directory, so that the
    /// rename survives a power loss.
    pub fn commit(self) -> Result<(), TableError> {
        self.file.sync_all().map_err(|source| TableError::Io { path: self.temporary.clone(), source })?;
        drop(self.file);
        let at_path = |source| TableError::Io { path: self.path.clone(), source };
        fs::rename(&self.temporary, &self.path).map_err(at_path)?;
        sync_directory(&self.path).map_err(|source| TableError::Io { path: self.path.clone(), source })
    }
}

/// Syncs the directory holding `path`.
fn sync_directory(path: &Path) -> io::Result<()> {
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    File::open(dir)?.sync_all()
}
