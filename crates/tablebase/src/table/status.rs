//! What is on disk for a table, for `info` and for `generate`'s skip test: headers only.

use super::atomic::temporary_path;
use super::error::TableError;
use super::format::FORMAT_VERSION;
use super::header::{FileSpec, Header};
use std::sync::Arc;

/// The state of a table or set file.
#[derive(Clone, Debug)]
pub enum Status {
    /// No file, no temporary file.
    Missing,
    /// Generation started (a temporary file exists) but did not finish.
    Partial,
    /// Complete, and the header is the expected table's.
    Complete(Header),
    /// Complete, written by an older format version that `generate` upgrades in place.
    NeedsUpgrade(Header),
    /// A file is there but it cannot be used: why (shared, as statuses are cloned).
    Damaged(Arc<TableError>),
}

/// Statuses are equal when they say the same: damaged ones when their reasons read the same.
impl PartialEq for Status {
    fn eq(&self, other: &Status) -> bool {
        match (self, other) {
            (Status::Missing, Status::Missing) | (Status::Partial, Status::Partial) => true,
            (Status::Complete(a), Status::Complete(b))
            | (Status::NeedsUpgrade(a), Status::NeedsUpgrade(b)) => a == b,
            (Status::Damaged(a), Status::Damaged(b)) => a.to_string() == b.to_string(),
            _ => false,
        }
    }
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
            Err(e) => return Status::Damaged(Arc::new(e)),
        };
        if !header.complete {
            return Status::Partial;
        }
        if let Err(e) = spec.check(&header) {
            return Status::Damaged(Arc::new(e));
        }
        let expected = header.file_length(encoding);
        match std::fs::metadata(path) {
            Ok(meta) if meta.len() == expected && header.version < FORMAT_VERSION => {
                Status::NeedsUpgrade(header)
            }
            Ok(meta) if meta.len() == expected => Status::Complete(header),
            Ok(meta) => Status::Damaged(Arc::new(TableError::Length {
                path: path.clone(),
                expected,
                found: meta.len(),
            })),
            Err(e) => Status::Damaged(Arc::new(TableError::Io { path: path.clone(), source: e })),
        }
    }

    /// The state of a table made of several files (a layer's set, then its values): the worst
    /// of theirs, in the order damaged, missing, partial, outdated, complete; and the file that
    /// decides it (for a complete table, the last: the values, whose header has the counts).
    /// `info` and `verify` both say this, so that one table has one status.
    pub fn of_files(specs: &[FileSpec]) -> (Status, usize) {
        let rank = |status: &Status| match status {
            Status::Damaged(_) => 0,
            Status::Missing => 1,
            Status::Partial => 2,
            Status::NeedsUpgrade(_) => 3,
            Status::Complete(_) => 4,
        };
        let mut worst: Option<(Status, usize)> = None;
        for (k, spec) in specs.iter().enumerate() {
            let status = Status::of(spec);
            let replaces = |(w, _): &(Status, usize)| match (rank(&status), rank(w)) {
                (4, 4) => true, // the last complete file's header: the values'
                (now, before) => now < before,
            };
            if worst.as_ref().is_none_or(replaces) {
                worst = Some((status, k));
            }
        }
        worst.unwrap_or((Status::Missing, 0))
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
