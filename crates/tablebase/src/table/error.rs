//! What can be wrong with a table or set file; every variant names the file.

use super::format::{FORMAT_VERSION, FileKind, PACKED_VERSION};
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

/// What is wrong with a table or set file.
#[derive(Debug)]
pub enum TableError {
    /// No file under the table's name.
    Missing {
        /// The file looked for.
        path: PathBuf,
    },
    /// Reading, writing or mapping the file failed.
    Io {
        /// The file.
        path: PathBuf,
        /// What the system said.
        source: io::Error,
    },
    /// The file does not start with a table header.
    NotATable {
        /// The file.
        path: PathBuf,
    },
    /// A format version, header size or value encoding this program does not read.
    Version {
        /// The file.
        path: PathBuf,
        /// The version in its header.
        found: u32,
    },
    /// A readable version whose index for this game has changed since: generate it again.
    IndexChanged {
        /// The file.
        path: PathBuf,
        /// The version in its header.
        found: u32,
    },
    /// The header's complete flag is not set.
    Incomplete {
        /// The file.
        path: PathBuf,
    },
    /// The file's length is not what its header implies.
    Length {
        /// The file.
        path: PathBuf,
        /// The length the header implies.
        expected: u64,
        /// The length on disk.
        found: u64,
    },
    /// Body and overflow area do not have the header's checksum.
    Checksum {
        /// The file.
        path: PathBuf,
        /// The checksum in the header.
        expected: u32,
        /// The checksum of the bytes.
        found: u32,
    },
    /// The header names another game, table or size.
    WrongTable {
        /// The file.
        path: PathBuf,
        /// What the catalogue expects there.
        expected: String,
        /// What the header says.
        found: String,
    },
    /// The header is whole but says the file is of the other kind: a set where a value table
    /// was expected, or the reverse (a file renamed or copied over another).
    WrongKind {
        /// The file.
        path: PathBuf,
        /// The kind expected there.
        expected: FileKind,
    },
    /// An entry that cannot be decoded: a value marked as overflow without its entry, an index
    /// past the end, a rank directory that disagrees with its words.
    Entry {
        /// The file.
        path: PathBuf,
        /// The index or member number read.
        index: u64,
    },
    /// A block of the data does not have the checksum stored for it.
    Block {
        /// The file.
        path: PathBuf,
        /// The block, from 0.
        block: u64,
        /// The checksum stored for it.
        expected: u32,
        /// The checksum of its bytes.
        found: u32,
    },
    /// The header does not have its own checksum, or describes a file no program writes.
    Header {
        /// The file.
        path: PathBuf,
    },
    /// A compressed table's code cannot be used, or compressing a table did not keep its
    /// values.
    Code {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        why: &'static str,
    },
    /// Written by an older format version that `generate` upgrades in place.
    NeedsUpgrade {
        /// The file.
        path: PathBuf,
        /// The version in its header.
        found: u32,
    },
    /// The file was cut short or written, by another program, while it was mapped: what was
    /// read from it since may be wrong, and is not answered. Opened again, it is read as it is
    /// now.
    Changed {
        /// The file.
        path: PathBuf,
    },
    /// The disk has not enough free space for the file being written.
    NoSpace {
        /// The file being written.
        path: PathBuf,
        /// Bytes the file needs.
        needed: u64,
        /// Bytes free on its file system, where the system tells.
        free: Option<u64>,
    },
}

impl TableError {
    /// The file the error is about.
    pub fn path(&self) -> &Path {
        match self {
            TableError::Missing { path }
            | TableError::Io { path, .. }
            | TableError::NotATable { path }
            | TableError::Version { path, .. }
            | TableError::IndexChanged { path, .. }
            | TableError::Incomplete { path }
            | TableError::Length { path, .. }
            | TableError::Checksum { path, .. }
            | TableError::WrongTable { path, .. }
            | TableError::WrongKind { path, .. }
            | TableError::Entry { path, .. }
            | TableError::NoSpace { path, .. }
            | TableError::Changed { path }
            | TableError::Block { path, .. }
            | TableError::Header { path }
            | TableError::Code { path, .. }
            | TableError::NeedsUpgrade { path, .. } => path,
        }
    }

    /// Whether the file is there but cannot be trusted (as opposed to missing or unreadable).
    pub fn is_damage(&self) -> bool {
        !matches!(
            self,
            TableError::Missing { .. }
                | TableError::Io { .. }
                | TableError::NoSpace { .. }
                | TableError::NeedsUpgrade { .. }
        )
    }

    /// An I/O error on `path`, or [`TableError::Missing`] when the file is not there.
    pub(crate) fn io(path: &Path) -> impl FnOnce(io::Error) -> TableError + '_ {
        move |source| {
            if source.kind() == io::ErrorKind::NotFound {
                TableError::Missing { path: path.to_path_buf() }
            } else {
                TableError::Io { path: path.to_path_buf(), source }
            }
        }
    }
}

impl fmt::Display for TableError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = self.path().display();
        match self {
            TableError::Missing { .. } => write!(f, "{path}: table not generated"),
            // The system's words are the whole story of an I/O error, so they are part of its
            // message wherever it is shown (a status, a verify report, a probe answer).
            TableError::Io { source, .. } => write!(f, "{path}: {source}"),
            TableError::NotATable { .. } => write!(f, "{path}: not a tablebase table file"),
            TableError::Version { found, .. } => {
                write!(
                    f,
                    "{path}: table format version {found}, this program reads versions {FORMAT_VERSION} and {PACKED_VERSION}"
                )
            }
            TableError::IndexChanged { found, .. } => write!(
                f,
                "{path}: written by table format version {found}, whose index for this game is no longer read; generate it again"
            ),
            TableError::Incomplete { .. } => write!(f, "{path}: table is not complete"),
            TableError::Length { expected, found, .. } => {
                write!(f, "{path}: damaged table: {found} bytes, the header implies {expected}")
            }
            TableError::Checksum { expected, found, .. } => {
                write!(f, "{path}: damaged table: checksum {found:08x}, the header says {expected:08x}")
            }
            TableError::WrongTable { expected, found, .. } => {
                write!(f, "{path}: holds table {found}, expected {expected}")
            }
            TableError::WrongKind { expected: FileKind::Table, .. } => {
                write!(f, "{path}: a set file (reachable positions), not a value table")
            }
            TableError::WrongKind { expected: FileKind::Set, .. } => {
                write!(f, "{path}: a value table, not a set file (reachable positions)")
            }
            TableError::Entry { index, .. } => {
                write!(f, "{path}: damaged table: entry {index} cannot be read")
            }
            TableError::Block { block, expected, found, .. } => write!(
                f,
                "{path}: damaged table: block {block} has checksum {found:08x}, the file says {expected:08x}"
            ),
            TableError::Header { .. } => write!(f, "{path}: damaged table: its header fails its checksum"),
            TableError::Code { why, .. } => write!(f, "{path}: damaged table: {why}"),
            TableError::NeedsUpgrade { found, .. } => write!(
                f,
                "{path}: written by table format version {found}; run generate on its directory to upgrade it in place (no solving)"
            ),
            TableError::Changed { .. } => write!(
                f,
                "{path}: changed while it was read (cut short or written by another program); nothing read from it since is answered"
            ),
            TableError::NoSpace { needed, free, .. } => {
                let free =
                    free.map_or(String::new(), |free| format!(", {} free", crate::resources::bytes(free)));
                write!(
                    f,
                    "{path}: not enough disk space: the file needs {}{free}",
                    crate::resources::bytes(*needed)
                )
            }
        }
    }
}

/// No variant has a cause of its own to chain: an I/O error's message already holds the
/// system's words (so that `source` would repeat them).
impl std::error::Error for TableError {}
