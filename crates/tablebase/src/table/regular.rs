//! Opening the files of a table directory. A FIFO, a socket or a device where a table should be
//! would block `open` or `read` forever (a FIFO waits for a writer), so every file is opened
//! without blocking and refused unless it is a regular file.

use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

/// Opens `path` with `options` if it is a regular file; anything else is an error that says
/// what it is, at once.
pub(crate) fn open_regular(options: &OpenOptions, path: &Path) -> io::Result<File> {
    // Checked before opening (opening a FIFO to write blocks until a reader comes, even with
    // O_NONBLOCK for some systems) and again on the open file (the name may change in between).
    if let Ok(meta) = std::fs::metadata(path) {
        refuse_special(&meta.file_type())?;
    }
    open_checked(options, path, 0)
}

/// Opens `path` with `options` and `flags` added to O_NONBLOCK, refusing anything but a
/// regular file.
fn open_checked(options: &OpenOptions, path: &Path, flags: i32) -> io::Result<File> {
    let mut options = options.clone();
    options.custom_flags(libc::O_NONBLOCK | flags);
    let file = options.open(path)?;
    refuse_special(&file.metadata()?.file_type())?;
    // O_NONBLOCK means nothing to a regular file's reads and writes; cleared all the same, so
    // that the descriptor behaves as an ordinary one.
    use std::os::fd::AsRawFd;
    // SAFETY: plain fcntl calls on a descriptor we own.
    unsafe {
        let flags = libc::fcntl(file.as_raw_fd(), libc::F_GETFL);
        if flags >= 0 {
            libc::fcntl(file.as_raw_fd(), libc::F_SETFL, flags & !libc::O_NONBLOCK);
        }
    }
    Ok(file)
}

/// Opens `path` to write into it (with `options`, which may create it), as [`open_regular`]
/// does, and never through a link: a symbolic link at its name is refused, not followed, and
/// so is a file with another name (a hard link). A table directory may be shared (a cluster's
/// project directory), and a link planted under a name `tablebase` writes would otherwise
/// make it overwrite or append to whatever file the link names, with the writer's rights.
pub(crate) fn open_to_write(options: &OpenOptions, path: &Path) -> io::Result<File> {
    if let Ok(meta) = std::fs::symlink_metadata(path) {
        if meta.file_type().is_symlink() {
            return Err(linked());
        }
        refuse_special(&meta.file_type())?;
    }
    // O_NOFOLLOW again at the open itself: a link may be planted after the check.
    let file = open_checked(options, path, libc::O_NOFOLLOW).map_err(|e| match e.raw_os_error() {
        Some(libc::ELOOP) => linked(),
        _ => e,
    })?;
    use std::os::unix::fs::MetadataExt;
    if file.metadata()?.nlink() > 1 {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "a file with other names (a hard link): refusing to write to it (remove it if it is yours)",
        ));
    }
    Ok(file)
}

/// Creates `path` anew to write into it, never through a link: a file left there by an
/// earlier run is removed first (removing a name never touches what a link points at), a
/// symbolic link is refused, and the file is created exclusively (O_EXCL), so that a link
/// planted between the removal and the creation is an error too, not followed.
pub(crate) fn create_to_write(path: &Path) -> io::Result<File> {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => return Err(linked()),
        Ok(meta) => {
            refuse_special(&meta.file_type())?;
            std::fs::remove_file(path)?;
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(e),
    }
    open_checked(OpenOptions::new().read(true).write(true).create_new(true), path, libc::O_NOFOLLOW).map_err(
        |e| match e.kind() {
            io::ErrorKind::AlreadyExists => io::Error::new(
                io::ErrorKind::AlreadyExists,
                "created by another process while this one was creating it: refusing to write to it",
            ),
            _ => e,
        },
    )
}

fn linked() -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        "a symbolic link: refusing to write through it (remove it if it is yours)",
    )
}

/// An error where `path` is a symbolic link: for a file that will be written later, refused
/// when it is first read, before any work that would be lost.
pub(crate) fn refuse_link(path: &Path) -> io::Result<()> {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => Err(linked()),
        _ => Ok(()),
    }
}

/// Opens `path` to read, if it is a regular file.
pub(crate) fn open_to_read(path: &Path) -> io::Result<File> {
    open_regular(OpenOptions::new().read(true), path)
}

/// What a file is (device and inode) and what a write or a cut changes (length, times): to
/// tell whether the file a table was mapped from has changed since.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct FileState {
    device: u64,
    inode: u64,
    len: u64,
    modified: Option<std::time::SystemTime>,
    changed: (i64, i64),
}

impl FileState {
    /// The state of the file at `path`, `None` where it cannot be read.
    pub fn of(path: &Path) -> Option<FileState> {
        Some(FileState::from_meta(&std::fs::metadata(path).ok()?))
    }

    /// The state of an open file.
    pub fn of_open(file: &File) -> Option<FileState> {
        Some(FileState::from_meta(&file.metadata().ok()?))
    }

    fn from_meta(meta: &std::fs::Metadata) -> FileState {
        use std::os::unix::fs::MetadataExt;
        FileState {
            device: meta.dev(),
            inode: meta.ino(),
            len: meta.len(),
            modified: meta.modified().ok(),
            changed: (meta.ctime(), meta.ctime_nsec()),
        }
    }
}

/// A mapped file, and its state when it was opened: to tell whether that file has been cut or
/// written since. Kept open, `fstat` tells it whatever name the file has now (or none), at a
/// third of the cost of a `stat` by name; past a budget of open files, the name is looked at
/// instead, and a file that is no longer there under it counts as changed.
#[derive(Debug)]
pub(crate) enum OpenFile {
    /// The file, open.
    Kept { file: File, opened: FileState },
    /// The file's name, where keeping it open would pass the budget.
    Named { path: PathBuf, opened: FileState },
}

/// Files kept open beside their maps now.
static KEPT: AtomicUsize = AtomicUsize::new(0);

/// How many mapped files may stay open: a quarter of the soft limit on open files (`ulimit
/// -n`), so that the rest stays the program's (a server's connections, a Python program's own
/// files). The limit is never raised: a program that embeds the library may rely on
/// descriptors below 1024 (`select`).
fn kept_budget() -> usize {
    static BUDGET: OnceLock<usize> = OnceLock::new();
    *BUDGET.get_or_init(|| {
        let mut limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
        // SAFETY: getrlimit fills the struct it is given.
        let read = unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } == 0;
        if read { (limit.rlim_cur.min(1 << 20) / 4) as usize } else { 64 }
    })
}

impl OpenFile {
    /// `file`, opened from `path`, whose state was `opened` before it was mapped; `None` where
    /// the system did not tell.
    pub fn new(file: File, path: &Path, opened: Option<FileState>) -> Option<OpenFile> {
        let opened = opened?;
        if KEPT.fetch_add(1, Relaxed) < kept_budget() {
            return Some(OpenFile::Kept { file, opened });
        }
        KEPT.fetch_sub(1, Relaxed);
        Some(OpenFile::Named { path: path.to_path_buf(), opened })
    }

    /// Whether the file has another length or time of modification than when it was opened
    /// (cut short, or written in place), or can no longer be looked at; by name, also where
    /// another file (or none) has the name now.
    pub fn changed(&self) -> bool {
        let same = |now: FileState, then: &FileState| (now.len, now.modified) == (then.len, then.modified);
        match self {
            OpenFile::Kept { file, opened } => !FileState::of_open(file).is_some_and(|now| same(now, opened)),
            OpenFile::Named { path, opened } => !FileState::of(path).is_some_and(|now| {
                (now.device, now.inode) == (opened.device, opened.inode) && same(now, opened)
            }),
        }
    }
}

impl Drop for OpenFile {
    fn drop(&mut self) {
        if let OpenFile::Kept { .. } = self {
            KEPT.fetch_sub(1, Relaxed);
        }
    }
}

fn refuse_special(kind: &std::fs::FileType) -> io::Result<()> {
    let what = if kind.is_file() {
        return Ok(());
    } else if kind.is_dir() {
        "a directory"
    } else if kind.is_fifo() {
        "a FIFO (named pipe)"
    } else if kind.is_socket() {
        "a socket"
    } else if kind.is_block_device() || kind.is_char_device() {
        "a device"
    } else {
        "not a plain file"
    };
    Err(io::Error::new(io::ErrorKind::InvalidInput, format!("{what}, not a regular file")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_file_kept_open_is_changed_when_cut_or_written_whatever_its_name() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.tbl");
        let writer = || OpenOptions::new().write(true).open(&path).unwrap();
        // Past the file system's clock tick, so that a write moves the file's time.
        let tick = || std::thread::sleep(std::time::Duration::from_millis(50));
        let fresh = || {
            std::fs::write(&path, [7u8; 5000]).unwrap();
            let file = open_to_read(&path).unwrap();
            let opened = FileState::of_open(&file).unwrap();
            OpenFile::Kept { file, opened }
        };
        let kept = fresh();
        assert!(!kept.changed());
        tick();
        writer().set_len(4000).unwrap();
        assert!(kept.changed(), "cut short");
        let kept = fresh();
        tick();
        std::os::unix::fs::FileExt::write_all_at(&writer(), &[7], 10).unwrap();
        assert!(kept.changed(), "written in place, the same byte");
        // Another file under the name, or none: the file kept is as it was, unless it was
        // written before it lost its name.
        let kept = fresh();
        let other = dir.path().join("new");
        std::fs::write(&other, [1u8; 10]).unwrap();
        std::fs::rename(&other, &path).unwrap();
        assert!(!kept.changed(), "another file renamed over the name");
        std::fs::remove_file(&path).unwrap();
        assert!(!kept.changed(), "no file under the name");
        let kept = fresh();
        tick();
        std::os::unix::fs::FileExt::write_all_at(&writer(), &[8], 10).unwrap();
        std::fs::remove_file(&path).unwrap();
        assert!(kept.changed(), "written, then removed");
        // Past the budget of open files, by name: another file under it, or none, counts too.
        let named = || {
            std::fs::write(&path, [7u8; 5000]).unwrap();
            OpenFile::Named { path: path.clone(), opened: FileState::of(&path).unwrap() }
        };
        let by_name = named();
        assert!(!by_name.changed());
        tick();
        writer().set_len(4000).unwrap();
        assert!(by_name.changed(), "cut short");
        let by_name = named();
        let other = dir.path().join("new");
        std::fs::write(&other, [7u8; 5000]).unwrap();
        std::fs::rename(&other, &path).unwrap();
        assert!(by_name.changed(), "another file under the name");
        let by_name = named();
        std::fs::remove_file(&path).unwrap();
        assert!(by_name.changed(), "no file under the name");
    }

    #[test]
    fn files_past_the_budget_are_looked_at_by_name() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.tbl");
        std::fs::write(&path, [7u8; 10]).unwrap();
        let open = || {
            let file = open_to_read(&path).unwrap();
            let opened = FileState::of_open(&file);
            OpenFile::new(file, &path, opened).unwrap()
        };
        // Other tests of the process keep files too: at most the budget of them are kept.
        let files: Vec<OpenFile> = (0..kept_budget() + 8).map(|_| open()).collect();
        let kept = files.iter().filter(|f| matches!(f, OpenFile::Kept { .. })).count();
        assert!(kept <= kept_budget() && files.len() - kept >= 8, "{kept} of {} kept", files.len());
        drop(files);
        assert!(matches!(open(), OpenFile::Kept { .. }), "kept again once the others are dropped");
    }

    #[test]
    fn special_files_are_refused_at_once_and_regular_ones_open() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        let name = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: mkfifo with a valid C string.
        assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o644) }, 0);
        for options in [OpenOptions::new().read(true).clone(), OpenOptions::new().append(true).clone()] {
            let error = open_regular(&options, &fifo).unwrap_err();
            assert_eq!(error.to_string(), "a FIFO (named pipe), not a regular file");
        }
        assert_eq!(open_to_read(dir.path()).unwrap_err().to_string(), "a directory, not a regular file");
        let plain = dir.path().join("plain");
        std::fs::write(&plain, b"bytes").unwrap();
        let mut text = String::new();
        io::Read::read_to_string(&mut open_to_read(&plain).unwrap(), &mut text).unwrap();
        assert_eq!(text, "bytes");
        assert_eq!(open_to_read(&dir.path().join("none")).unwrap_err().kind(), io::ErrorKind::NotFound);
    }
}
