//! Room for a compressed file's data decoded whole.
//!
//! A small file decodes into memory. A large one decodes into an unnamed file beside it, mapped:
//! the kernel can write those pages out and read them back, where anonymous memory would have to
//! stay. Solving a layer of Connect Four 6x6 reads two decoded sets of up to 9.5 GB each; in
//! memory they alone would exceed this machine's 24 GB, in the page cache they take turns with
//! the tables.

use super::error::TableError;
use memmap2::MmapMut;
use std::fs::{File, OpenOptions};
use std::io;
use std::ops::{Deref, DerefMut};
use std::path::{Path, PathBuf};

/// Decoded data above this many bytes goes into a scratch file rather than memory.
const SCRATCH_ABOVE: usize = 1 << 30;

#[cfg(test)]
thread_local! {
    static TEST_ABOVE: std::cell::Cell<Option<usize>> = const { std::cell::Cell::new(None) };
}

/// The bound above which decoded data goes into a scratch file: [`SCRATCH_ABOVE`], or in a
/// test what [`with_scratch_above`] set on this thread.
pub(crate) fn scratch_above() -> usize {
    #[cfg(test)]
    if let Some(above) = TEST_ABOVE.with(|a| a.get()) {
        return above;
    }
    SCRATCH_ABOVE
}

/// Runs `f` with decoded data above `above` bytes going into scratch files on this thread, so
/// that tests reach the scratch files with small tables.
#[cfg(test)]
pub(crate) fn with_scratch_above<T>(above: usize, f: impl FnOnce() -> T) -> T {
    let before = TEST_ABOVE.with(|a| a.replace(Some(above)));
    let result = f();
    TEST_ABOVE.with(|a| a.set(before));
    result
}

/// Decoded data: in memory, or in an unnamed scratch file that disappears with it.
pub(crate) enum Decoded {
    Memory(Box<[u8]>),
    /// The map keeps the file's pages; the file has no name, so closing it frees its blocks.
    Scratch(MmapMut),
}

impl Decoded {
    /// `len` zero bytes for decoding the file at `path`: in memory up to `above` bytes, past
    /// that in a scratch file in the same directory with all its blocks allocated, so that a
    /// full disk is an error here rather than a fault while decoding.
    pub(crate) fn zeroed(len: usize, path: &Path, above: usize) -> Result<Decoded, TableError> {
        if len <= above {
            // Asked for, not assumed: under a limit on memory (`ulimit -v`) a failed allocation
            // is an error to report, or for a probe a reason to go on block by block, where
            // `vec!` would end the process.
            let mut body = Vec::new();
            body.try_reserve_exact(len).map_err(|_| TableError::Io {
                path: path.to_path_buf(),
                source: std::io::Error::new(
                    std::io::ErrorKind::OutOfMemory,
                    format!("no memory for the {len} bytes decoded whole"),
                ),
            })?;
            body.resize(len, 0);
            return Ok(Decoded::Memory(body.into_boxed_slice()));
        }
        let name = scratch_name(path);
        let file = unnamed_file(path).map_err(|source| TableError::Io { path: name.clone(), source })?;
        super::atomic::reserve_blocks(&file, len as u64, &name)?;
        // SAFETY: the file has no name, so no other process can open it and change it under
        // the map; it is as long as the map.
        let map =
            unsafe { MmapMut::map_mut(&file) }.map_err(|source| TableError::Io { path: name, source })?;
        Ok(Decoded::Scratch(map))
    }

    /// Whether the data lives in a scratch file.
    #[cfg(test)]
    pub(crate) fn is_scratch(&self) -> bool {
        matches!(self, Decoded::Scratch(_))
    }
}

impl Deref for Decoded {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            Decoded::Memory(bytes) => bytes,
            Decoded::Scratch(map) => map,
        }
    }
}

impl DerefMut for Decoded {
    fn deref_mut(&mut self) -> &mut [u8] {
        match self {
            Decoded::Memory(bytes) => bytes,
            Decoded::Scratch(map) => map,
        }
    }
}

/// How messages name the scratch file of `path`: it has no name of its own.
fn scratch_name(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_os_string();
    name.push(" (decoded)");
    PathBuf::from(name)
}

/// A file without a name in the directory of `path`: `O_TMPFILE` where the file system has it,
/// otherwise a new file removed at once.
fn unnamed_file(path: &Path) -> io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let unnamed =
        OpenOptions::new().read(true).write(true).mode(0o600).custom_flags(libc::O_TMPFILE).open(dir);
    match unnamed {
        Ok(file) => Ok(file),
        Err(e) if matches!(e.raw_os_error(), Some(libc::EOPNOTSUPP | libc::EISDIR | libc::EINVAL)) => {
            let stem = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            for attempt in 0u32.. {
                let named = dir.join(format!(".{stem}.decoded-{}-{attempt}", std::process::id()));
                match OpenOptions::new().read(true).write(true).create_new(true).mode(0o600).open(&named) {
                    Ok(file) => {
                        std::fs::remove_file(&named)?;
                        return Ok(file);
                    }
                    Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                    Err(e) => return Err(e),
                }
            }
            unreachable!("the attempts run out only after u32::MAX names")
        }
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Memory that cannot be had is an error that names the file, not the end of the process,
    /// and no damage: a probe goes on reading the file block by block.
    #[test]
    fn memory_that_cannot_be_had_is_an_error() {
        let path = Path::new("x/t.tbl");
        let Err(e) = Decoded::zeroed(usize::MAX / 2, path, usize::MAX) else { panic!("allocated") };
        assert!(!e.is_damage(), "{e}");
        assert!(e.to_string().starts_with("x/t.tbl: "), "{e}");
    }

    /// Small data stays in memory; past the bound it goes to a scratch file that leaves no name
    /// behind, reads back what was written, and is gone with the data.
    #[test]
    fn large_data_goes_to_an_unnamed_file() {
        let scratch = tempfile::tempdir().unwrap();
        let path = scratch.path().join("t.tbl");
        let small = Decoded::zeroed(100, &path, 1000).unwrap();
        assert!(!small.is_scratch());
        assert_eq!(&small[..], &[0u8; 100][..]);
        let mut large = Decoded::zeroed(1 << 20, &path, 1000).unwrap();
        assert!(large.is_scratch());
        assert!(large.iter().all(|&b| b == 0));
        for (i, b) in large.iter_mut().enumerate() {
            *b = (i % 251) as u8;
        }
        assert!(large.iter().enumerate().all(|(i, &b)| b == (i % 251) as u8));
        assert_eq!(std::fs::read_dir(scratch.path()).unwrap().count(), 0, "no file under a name");
        drop(large);
    }

    /// A directory that cannot hold the scratch file is an error naming the file decoded.
    #[test]
    fn a_missing_directory_is_an_error() {
        let scratch = tempfile::tempdir().unwrap();
        let path = scratch.path().join("gone").join("t.tbl");
        match Decoded::zeroed(1 << 20, &path, 1000) {
            Err(TableError::Io { path: named, .. }) => assert!(named.to_string_lossy().contains("t.tbl")),
            Err(other) => panic!("unexpected error {other}"),
            Ok(_) => panic!("a scratch file in a missing directory"),
        }
    }
}
