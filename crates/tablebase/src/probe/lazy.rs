//! Tables mapped on first use, shared by threads.

use super::ProbeError;
use crate::catalogue::Variant;
use crate::table::regular::FileState;
use crate::table::{Mapped, TableError};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

/// Tables mapped on first use, read-only and shared by threads: a slot per table. A table that
/// could not be opened (not generated, damaged) is opened again once the file the error names
/// changes, so that a long-running prober (`serve`) sees tables generated or repaired meanwhile.
pub(crate) struct LazyTables<T> {
    opened: Vec<OnceLock<T>>,
    failed: Vec<Mutex<Option<Failure>>>,
    /// The slots opened so far, in the order they were: what [`LazyTables::unchanged`] looks at.
    in_use: Mutex<Vec<usize>>,
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
        }
    }

    /// [`TableError::Changed`] for the first table opened here whose file has been cut short
    /// or written since (by another program): answers read from it since may be wrong.
    pub fn unchanged(&self) -> Result<(), ProbeError>
    where
        T: Mapped,
    {
        let in_use = self.in_use.lock().unwrap_or_else(PoisonError::into_inner).clone();
        for slot in in_use {
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
