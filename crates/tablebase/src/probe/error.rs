//! Why a position cannot be probed.

use crate::catalogue::Variant;
use crate::table::TableError;
use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

/// Why a position cannot be probed.
#[derive(Debug)]
pub enum ProbeError {
    /// The position is malformed or cannot arise: a usage error (exit 2).
    Illegal(String),
    /// A table the position needs is not on disk.
    NotGenerated {
        /// The table looked for.
        path: PathBuf,
        /// The variant whose generation writes it. Boxed: a batch holds a `Result` per
        /// position, and this rare case would otherwise make every one of them larger.
        variant: Box<Variant>,
    },
    /// A table is there but cannot be used: damaged, incomplete, another version. Shared,
    /// since a table that failed to open answers every later position with the same error.
    Damaged(Arc<TableError>),
    /// A position the game solves by search, which did not finish (stopped by its time limit).
    /// The searches of this crate's games give a
    /// [`games::connect4::SearchError`](crate::games::connect4::SearchError) (Connect Four,
    /// Qubic and Sogo share one engine): `downcast_ref` it to tell a time limit
    /// (`SearchError::TimeLimit`, as [`ProbeError::is_time_limit`] does) from a stop or a lack of
    /// memory.
    Search(Box<dyn std::error::Error + Send + Sync>),
}

impl fmt::Display for ProbeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProbeError::Illegal(why) => write!(f, "{why}"),
            ProbeError::NotGenerated { path, .. } => write!(f, "{}: table not generated", path.display()),
            ProbeError::Damaged(error) => write!(f, "{error}"),
            ProbeError::Search(error) => write!(f, "{error}"),
        }
    }
}

impl std::error::Error for ProbeError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            // Its message is shown as this error's own; the chain goes on with its cause.
            ProbeError::Damaged(error) => error.source(),
            ProbeError::Search(error) => error.source(),
            _ => None,
        }
    }
}

impl From<TableError> for ProbeError {
    fn from(error: TableError) -> ProbeError {
        ProbeError::Damaged(Arc::new(error))
    }
}

impl ProbeError {
    /// Whether a search ran out of its time (not stopped for another reason, nor a table's
    /// error): what an answer marks unknown and goes on past.
    pub fn is_time_limit(&self) -> bool {
        match self {
            ProbeError::Search(e) => {
                matches!(
                    e.downcast_ref::<crate::search::SearchError>(),
                    Some(crate::search::SearchError::TimeLimit { .. })
                )
            }
            _ => false,
        }
    }

    /// A table that cannot be read: not generated (with the variant that generates it), or
    /// damaged.
    pub fn from_table(error: &Arc<TableError>, variant: impl FnOnce() -> Variant) -> ProbeError {
        match &**error {
            TableError::Missing { path } => {
                ProbeError::NotGenerated { path: path.clone(), variant: Box::new(variant()) }
            }
            _ => ProbeError::Damaged(Arc::clone(error)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `probe -` keeps a `Result<Value, ProbeError>` (and a located position) per line of a
    /// batch: a larger error is more memory and page faults per position (the unboxed
    /// variant cost 13% of the time of a million positions).
    #[test]
    fn the_error_stays_four_words() {
        assert!(std::mem::size_of::<ProbeError>() <= 32, "{} bytes", std::mem::size_of::<ProbeError>());
    }
}
