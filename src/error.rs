//! Errors of the command-line layer; each maps to an exit code of SPEC section 1.

use std::fmt;
use std::io;
use std::path::PathBuf;

#[derive(Debug)]
pub enum Error {
    /// A bad flag, a malformed or illegal position: exit 2.
    Usage(String),
    /// Reading or writing a file failed: exit 1.
    Io { path: PathBuf, source: io::Error },
    /// Writing results to standard output failed (a closed pipe, a full disk): exit 1.
    Output(io::Error),
    /// A missing or damaged table, or another failure while running: exit 1.
    Runtime(String),
    /// `verify` found a table that is wrong: exit 3 (details already reported).
    VerifyFailed,
    /// Failures already reported line by line; exit with this code.
    Reported(i32),
}

impl Error {
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Usage(_) => 2,
            Error::Io { .. } | Error::Output(_) | Error::Runtime(_) => 1,
            Error::VerifyFailed => 3,
            Error::Reported(code) => *code,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Usage(message) => write!(f, "{message}"),
            Error::Io { path, source } => write!(f, "{}: {source}", path.display()),
            Error::Output(source) => write!(f, "standard output: {source}"),
            Error::Runtime(message) => write!(f, "{message}"),
            Error::VerifyFailed => write!(f, "verification failed"),
            Error::Reported(code) => write!(f, "exit status {code}"),
        }
    }
}

impl std::error::Error for Error {}

impl From<io::Error> for Error {
    fn from(source: io::Error) -> Error {
        Error::Output(source)
    }
}

impl From<crate::table::TableError> for Error {
    fn from(e: crate::table::TableError) -> Error {
        Error::Runtime(e.to_string())
    }
}

impl From<crate::morris::tables::TablesError> for Error {
    fn from(e: crate::morris::tables::TablesError) -> Error {
        Error::Runtime(e.to_string())
    }
}
