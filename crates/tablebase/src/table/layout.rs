//! Where the parts of a compressed value table or set (format version 4, docs/FORMAT.md) lie:
//! the header's fields for it and the offsets they imply. Numbers only, so the header can check
//! a file's length without knowing how to decode it.

use super::format::FileKind;
use super::pairs::{GROUP_BLOCKS, MAX_BLOCK_ENTRIES, MIN_BLOCK_ENTRIES, RECORD_BYTES};

/// The longest stored code: the rounds, 3,840 rules and 4,096 code lengths fit well within it.
const MAX_CODE_BYTES: u32 = 1 << 15;
/// Bytes an entry takes at most in a block: one symbol of the longest code, 24 bits.
const MAX_BYTES_AN_ENTRY: u64 = 3;

/// The fields a compressed value table or set (format version 4) adds to the header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(not(feature = "internals"), allow(unnameable_types, reason = "the table files behind the catalogue traits, which only the games of this crate implement"))]
pub struct Packing {
    /// Entries of each compressed block (the last holds the rest).
    pub block_entries: u32,
    /// Bytes of the stored code (its rules and code lengths).
    pub code_len: u32,
    /// Bytes of all the compressed blocks.
    pub blocks_len: u64,
    /// The checksum the table's data had raw (version 3: body then overflow area): kept so that
    /// decoding is checked end to end, and so that the table is the same table to a verify
    /// journal in either form.
    pub raw_checksum: u32,
}

/// Where the parts of a compressed file's data lie, from its header (all offsets from the
/// start of the data, after the header).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Layout {
    /// The block index: a 64-byte record per [`GROUP_BLOCKS`] blocks, from a multiple of 64.
    pub records_at: u64,
    /// A set's rank records, as many as the block records, right after them (none for a value
    /// table): the members before each group of blocks and in each of its blocks.
    pub ranks_at: u64,
    /// The compressed blocks, one after another.
    pub blocks_at: u64,
    /// The overflow area, as a raw table has it.
    pub overflow_at: u64,
    /// All the data.
    pub data_len: u64,
    /// Entries of each block, a power of two: `1 << block_shift`.
    pub block_shift: u32,
    /// The number of blocks.
    pub blocks: u64,
    /// Bytes of all the blocks.
    pub blocks_len: u64,
}

impl Layout {
    /// The layout of the compressed file whose header has `index_size`, `overflow_count` and
    /// `packing`, by its kind; `None` for numbers no writer makes (a damaged header).
    pub fn of(kind: FileKind, index_size: u64, overflow_count: u64, packing: Packing) -> Option<Layout> {
        match kind {
            FileKind::Table => Layout::new(index_size, overflow_count, packing, false),
            // A set's body is its words, as bytes; it has no overflow area.
            FileKind::Set if overflow_count == 0 => {
                Layout::new(index_size.div_ceil(64).checked_mul(8)?, 0, packing, true)
            }
            FileKind::Set => None,
        }
    }

    /// The layout of a compressed body of `entries` bytes and `overflow_count` overflow entries
    /// stored as `packing` says, with rank records after the block records for a set.
    fn new(entries: u64, overflow_count: u64, packing: Packing, rank_records: bool) -> Option<Layout> {
        let block_entries = u64::from(packing.block_entries);
        let blocks = entries.div_ceil(block_entries.max(1));
        let sane = block_entries.is_power_of_two()
            && (MIN_BLOCK_ENTRIES..=MAX_BLOCK_ENTRIES).contains(&block_entries)
            && (1..=MAX_CODE_BYTES).contains(&packing.code_len)
            && (blocks..=entries.checked_mul(MAX_BYTES_AN_ENTRY)?).contains(&packing.blocks_len);
        if !sane {
            return None;
        }
        // Records start at a multiple of 64 bytes, as the data does in the file and the file
        // does in memory: each record is one cache line.
        let records_at = u64::from(packing.code_len).next_multiple_of(RECORD_BYTES as u64);
        let records_len = RECORD_BYTES as u64 * blocks.div_ceil(GROUP_BLOCKS as u64);
        let ranks_at = records_at + records_len;
        let blocks_at = if rank_records { ranks_at + records_len } else { ranks_at };
        let overflow_at = blocks_at.checked_add(packing.blocks_len)?;
        let data_len = overflow_count.checked_mul(12)?.checked_add(overflow_at)?;
        Some(Layout {
            records_at,
            ranks_at,
            blocks_at,
            overflow_at,
            data_len,
            block_shift: block_entries.trailing_zeros(),
            blocks,
            blocks_len: packing.blocks_len,
        })
    }
}
