//! Tables mapped on first use, shared by threads.

use super::ProbeError;
use crate::catalogue::Variant;
use crate::table::TableError;
use std::sync::{Arc, OnceLock};

/// Tables mapped on first use, read-only and shared by threads: a slot per table.
pub(crate) struct LazyTables<T> {
    slots: Vec<OnceLock<Result<T, Arc<TableError>>>>,
}

impl<T> LazyTables<T> {
    pub fn new(tables: usize) -> LazyTables<T> {
        LazyTables { slots: (0..tables).map(|_| OnceLock::new()).collect() }
    }

    /// The table in `slot`, opened by `open` the first time; `variant` generates it.
    pub fn get(
        &self,
        slot: usize,
        open: impl FnOnce() -> Result<T, TableError>,
        variant: impl FnOnce() -> Variant,
    ) -> Result<&T, ProbeError> {
        self.slots[slot]
            .get_or_init(|| open().map_err(Arc::new))
            .as_ref()
            .map_err(|e| ProbeError::from_table(e, variant))
    }
}
