//! Opening the files of a table directory. A FIFO, a socket or a device where a table should be
//! would block `open` or `read` forever (a FIFO waits for a writer), so every file is opened
//! without blocking and refused unless it is a regular file.

use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::Path;

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

/// Opens `path` to read, if it is a regular file. Each table read stays open beside its map
/// ([`OpenFile`]): the largest game has some 800 files, and a process that reads two of them
/// would pass the usual soft limit of 1024 descriptors, so the first open refused for it
/// raises that limit to the hard one and tries again.
pub(crate) fn open_to_read(path: &Path) -> io::Result<File> {
    let options = OpenOptions::new().read(true).clone();
    match open_regular(&options, path) {
        Err(e) if e.raw_os_error() == Some(libc::EMFILE) && crate::resources::raise_open_files_limit() => {
            open_regular(&options, path)
        }
        opened => opened,
    }
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

/// A file kept open beside its map, and its state when it was opened: `fstat` then tells
/// whether that file (whatever name it has now, or none) has been cut or written since, at a
/// third of the cost of a `stat` by name.
#[derive(Debug)]
pub(crate) struct OpenFile {
    file: File,
    opened: FileState,
}

impl OpenFile {
    /// `file` as it is now; `None` where the system does not tell.
    pub fn new(file: File) -> Option<OpenFile> {
        let opened = FileState::of_open(&file)?;
        Some(OpenFile { file, opened })
    }

    /// Whether the file has another length or time of modification than when it was opened
    /// (cut short, or written in place), or can no longer be looked at.
    pub fn changed(&self) -> bool {
        FileState::of_open(&self.file).is_none_or(|now| (now.len, now.modified) != (self.opened.len, self.opened.modified))
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
            OpenFile::new(open_to_read(&path).unwrap()).unwrap()
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
