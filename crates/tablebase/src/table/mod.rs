//! Table files: one memory-mapped file per table (docs/FORMAT.md).
//!
//! A value table is a 256-byte header, a body of one byte per index, and an overflow area for
//! distances that do not fit a byte; a set file holds the reachable indices of a layer with a
//! rank directory. Both are written under a temporary name and renamed into place only after
//! body, header and directory are synced, so a file under the final name is always complete;
//! the header's checksum and length catch damage afterwards, and no read of a damaged file
//! panics.

mod atomic;
pub(crate) use atomic::{file_names, final_name, free_space, temporary_path};
mod blocks;
mod checkpoint;
pub(crate) mod compress;
mod error;
pub(crate) mod format;
pub(crate) mod header;
pub(crate) use compress::{pack, pack_set};
mod layout;
mod packed;
pub(crate) mod pairs;
pub(crate) mod regular;
pub(crate) mod scratch;
pub(crate) use regular::{open_to_read, open_to_write, refuse_link};
pub(crate) mod set;
mod status;
mod upgrade;
pub(crate) mod values;
pub(crate) mod whole;

/// The length of a value table of `entries` entries without overflow entries, with its header
/// and block checksums.
pub(crate) fn table_file_len(entries: u64) -> u64 {
    HEADER_SIZE as u64 + entries + blocks::checksum_area_len(entries)
}

/// The length of a set file over an index space of `capacity`, with its header, rank
/// directory and block checksums.
pub(crate) fn set_file_len(capacity: u64) -> u64 {
    let data = format::set_data_len(capacity);
    HEADER_SIZE as u64 + data + blocks::checksum_area_len(data)
}
pub(crate) use checkpoint::checkpoint_progress;
pub use error::TableError;
pub(crate) use format::{HEADER_SIZE, OLDEST_READABLE_VERSION};
pub(crate) use header::check_file;
pub use header::{Check, Counts, FileKind, FileSpec, Header, Packing};
pub(crate) use set::write_set;
pub use set::{CheckedRanks, CheckedWords, SetFile, Words};
pub use status::Status;
pub(crate) use upgrade::set_aside;
pub(crate) use upgrade::upgrade;
pub(crate) use values::write_table;
pub(crate) use values::{CHECKPOINT_ENTRIES, write_table_checkpointed};
pub use values::{Distances, TableFile};

/// Tables read through memory maps, which another program can change under them.
pub trait Mapped {
    /// [`TableError::Changed`] for the first of the table's files that has been cut short or
    /// written since it was mapped.
    fn unchanged(&self) -> Result<(), TableError>;
}
