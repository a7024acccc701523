//! Why a benchmark stopped. The command line turns each into its own error, with its message and
//! exit status (docs/CLI.md): the names are the command line's.

use std::io;
use std::path::PathBuf;
use tablebase::games::connect4::SearchError;
use tablebase::{ProbeError, TableError, Value};

/// Why a benchmark stopped.
#[derive(Debug)]
pub enum Error {
    /// Bad arguments: exit 2.
    Usage(String),
    /// Standard output could not be written.
    Output(io::Error),
    /// A file could not be read or written.
    File {
        /// The file.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// A table could not be read.
    Table(TableError),
    /// The tables cannot answer a position the benchmark draws.
    Unanswerable {
        /// The tables' directory.
        dir: PathBuf,
        /// Why.
        source: ProbeError,
    },
    /// A search failed.
    Search(SearchError),
    /// A proof's journal could not be read or written, or holds a line that is not a record.
    Journal(tablebase::games::cube::JournalError),
    /// What the benchmark reads is not there; `command` makes it.
    NotOnDisk {
        /// What is missing.
        what: String,
        /// The command that makes it.
        command: String,
    },
    /// No complete table to measure.
    NoCompleteTable {
        /// The directory.
        dir: PathBuf,
    },
    /// A searched value that its proof does not confirm.
    NotConfirmed {
        /// The position's index.
        index: u64,
        /// The value searched.
        value: Value,
    },
    /// Not enough memory for what was asked.
    Memory {
        /// What needs it.
        what: String,
        /// Bytes needed.
        needed: u64,
        /// Bytes available.
        available: u64,
    },
    /// Figures that differ from the reference: exit 3.
    VerifyFailed,
    /// Lines answered with this exit status.
    Reported(i32),
}

impl From<TableError> for Error {
    fn from(e: TableError) -> Error {
        Error::Table(e)
    }
}

/// A line on standard error (a message about one item; the run goes on).
macro_rules! complain {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}
pub(crate) use complain;
