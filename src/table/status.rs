//! What is on disk for a table, for `info` and for `generate`'s skip test: headers only.

use super::atomic::temporary_path;
use super::error::TableError;
use super::header::{FORMAT_VERSION, FileSpec, Header};

/// The state of a table or set file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Status {
    /// No file, no temporary file.
    Missing,
    /// Generation started (a temporary file exists) but did not finish.
    Partial,
    /// Complete, and the header is the expected table's.
    Complete(Header),
    /// Complete, written by an older format version that `generate` upgrades in place.
    NeedsUpgrade(Header),
    /// A file is there but it cannot be used: the reason.
    Damaged(String),
}

impl Status {
    /// The state of the file `spec`.
    pub fn of(spec: &FileSpec) -> Status {
        let encoding = spec.kind;
        let path = &spec.path;
        let header = match Header::read_as(path, encoding) {
            Ok(header) => header,
            Err(TableError::Missing { .. }) if temporary_path(path).exists() => return Status::Partial,
            Err(TableError::Missing { .. }) => return Status::Missing,
            Err(e) => return Status::Damaged(e.to_string()),
        };
        if !header.complete {
            return Status::Partial;
        }
        if let Err(e) = spec.check(&header) {
            return Status::Damaged(e.to_string());
        }
        let expected = header.file_length(encoding);
        match std::fs::metadata(path) {
            Ok(meta) if meta.len() == expected && header.version < FORMAT_VERSION => {
                Status::NeedsUpgrade(header)
            }
            Ok(meta) if meta.len() == expected => Status::Complete(header),
            Ok(meta) => Status::Damaged(format!("{} bytes, the header implies {expected}", meta.len())),
            Err(e) => Status::Damaged(e.to_string()),
        }
    }

    /// Whether the file is complete.
    pub fn is_complete(&self) -> bool {
        matches!(self, Status::Complete(_))
    }

    /// `missing`, `partial`, `complete`, `outdated` or `damaged`.
    pub fn word(&self) -> &'static str {
        match self {
            Status::Missing => "missing",
            Status::Partial => "partial",
            Status::Complete(_) => "complete",
            Status::NeedsUpgrade(_) => "outdated",
            Status::Damaged(_) => "damaged",
        }
    }
}
