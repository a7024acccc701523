//! Tables mapped on first use, shared by threads.

use super::ProbeError;
use crate::catalogue::Variant;
use crate::table::regular::FileState;
use crate::table::{Mapped, TableError};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed, Ordering::SeqCst};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

/// Calls that read tables so far, numbered: a table read records the number current then, so
/// that a call looks only at the files read since it began ([`Reads`]).
static READS: AtomicU64 = AtomicU64::new(0);

/// Where a caller's reads begin: [`crate::Probe::unchanged`] looks at the table files read
/// since, an `fstat` each, rather than at every file the tablebase has opened.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reads(u64);

impl Reads {
    /// Every table file opened so far, whenever it was read.
    pub const ALL: Reads = Reads(0);

    /// Reads from now on: taken before the reads, by the thread that then starts them (the
    /// reads of threads it starts afterwards count too).
    pub fn start() -> Reads {
        Reads(READS.fetch_add(1, SeqCst) + 1)
    }
}

/// Tables mapped on first use, read-only and shared by threads: a slot per table. A table that
/// could not be opened (not generated, damaged) is opened again once the file the error names
/// changes, so that a long-running prober (`serve`) sees tables generated or repaired meanwhile.
pub(crate) struct LazyTables<T> {
    opened: Vec<OnceLock<T>>,
    failed: Vec<Mutex<Option<Failure>>>,
    /// The slots opened so far, in the order they were: what [`LazyTables::unchanged`] looks at.
    in_use: Mutex<Vec<usize>>,
    /// Each slot's last read, as [`READS`] numbered it then.
    last_read: Vec<AtomicU64>,
}

/// Why a table could not be opened, and the state of the file the error names at the time.
struct Failure {
    error: Arc<TableError>,
    file: Option<FileState>,
}

impl<T> LazyTables<T> {
    pub fn new(tables: usize) -> LazyTables<T> {
        LazyTables {
            opened: (0..tables).map(|_| OnceLock::new()).collect(),
            failed: (0..tables).map(|_| Mutex::new(None)).collect(),
            in_use: Mutex::new(Vec::new()),
            last_read: (0..tables).map(|_| AtomicU64::new(0)).collect(),
        }
    }

    /// Notes that `slot` is read now.
    #[inline]
    fn reading(&self, slot: usize) {
        let now = READS.load(Relaxed);
        let last = &self.last_read[slot];
        // Stored only when it moved: readers of one slot on many threads share its line.
        if last.load(Relaxed) < now {
            last.fetch_max(now, Relaxed);
        }
    }

    /// [`TableError::Changed`] for the first table read here since `since` whose file has been
    /// cut short or written since it was mapped (by another program): answers read from it may
    /// be wrong.
    pub fn unchanged(&self, since: Reads) -> Result<(), ProbeError>
    where
        T: Mapped,
    {
        // Looked at under the lock, not copied: an allocation an answer would cost more than
        // the rare wait of a table opened meanwhile.
        let in_use = self.in_use.lock().unwrap_or_else(PoisonError::into_inner);
        for &slot in in_use.iter().filter(|&&slot| self.last_read[slot].load(Relaxed) >= since.0) {
            if let Some(table) = self.opened[slot].get() {
                table.unchanged().map_err(|e| ProbeError::Damaged(Arc::new(e)))?;
            }
        }
        Ok(())
    }

    /// The table in `slot`, opened by `open` the first time (and again after a failure, once
    /// the file it named has changed); `variant` generates it.
    pub fn get(
        &self,
        slot: usize,
        open: impl FnOnce() -> Result<T, TableError>,
        variant: impl FnOnce() -> Variant,
    ) -> Result<&T, ProbeError> {
        self.reading(slot);
        if let Some(table) = self.opened[slot].get() {
            return Ok(table);
        }
        let mut failed = self.failed[slot].lock().unwrap_or_else(PoisonError::into_inner);
        // Opened by another thread while this one waited.
        if let Some(table) = self.opened[slot].get() {
            return Ok(table);
        }
        if let Some(failure) = failed.as_ref()
            && FileState::of(failure.error.path()) == failure.file
        {
            return Err(ProbeError::from_table(&failure.error, variant));
        }
        match open() {
            Ok(table) => {
                *failed = None;
                self.in_use.lock().unwrap_or_else(PoisonError::into_inner).push(slot);
                Ok(self.opened[slot].get_or_init(|| table))
            }
            Err(error) => {
                let error = Arc::new(error);
                let file = FileState::of(error.path());
                *failed = Some(Failure { error: Arc::clone(&error), file });
                Err(ProbeError::from_table(&error, variant))
            }
        }
    }
}
