//! Table files: one memory-mapped file per table (docs/FORMAT.md).
//!
//! A value table is a 256-byte header, a body of one byte per index, and an overflow area for
//! distances that do not fit a byte; a set file holds the reachable indices of a layer with a
//! rank directory. Both are written under a temporary name and renamed into place only after
//! body, header and directory are synced, so a file under the final name is always complete;
//! the header's checksum and length catch damage afterwards, and no read of a damaged file
//! panics.

mod atomic;
pub(crate) use atomic::free_space;
mod blocks;
mod error;
mod header;
mod set;
mod status;
mod upgrade;
mod values;

pub use blocks::BLOCK_SIZE;
/// Bytes of block checksum per block of data.
pub const BLOCK_SIZE_CHECKSUM_SHARE: u64 = 4;
pub use error::TableError;
pub use header::{
    Check, Counts, FORMAT_VERSION, FileKind, FileSpec, HEADER_SIZE, Header, OLDEST_READABLE_VERSION,
    check_file, checksum,
};
pub use set::{CheckedWords, SetFile, Words, write_set};
pub use status::Status;
pub use upgrade::{set_aside, upgrade};
pub use values::{TableFile, write_table};
