//! Where the parts of a compressed value table (format version 4, docs/FORMAT.md) lie: the
//! header's fields for it and the offsets they imply. Numbers only, so the header can check a
//! file's length without knowing how to decode it.

use super::pairs::{MAX_BLOCK_ENTRIES, SPAN};

/// The largest block a reader accepts: a block never crosses a checksum block.
pub(crate) const MAX_BLOCK_BYTES: usize = super::blocks::BLOCK_SIZE;
/// The longest stored code: the rounds, 3,840 rules and 4,096 code lengths fit well within it.
const MAX_CODE_BYTES: u32 = 1 << 15;

/// The fields a compressed value table (format version 4) adds to the header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Packing {
    /// Bytes of each compressed block.
    pub block_bytes: u32,
    /// Bytes of the stored code (its rules and code lengths).
    pub code_len: u32,
    /// The number of compressed blocks.
    pub blocks: u64,
    /// The checksum the table's data had raw (version 3: body then overflow area): kept so that
    /// decoding is checked end to end, and so that the table is the same table to a verify
    /// journal in either form.
    pub raw_checksum: u32,
}

/// Where the parts of a compressed table's data lie, from its header (all offsets from the
/// start of the data, after the header).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Layout {
    /// The sparse index: for every `SPAN`-th entry, its block and offset (u32 each).
    pub sparse_at: u64,
    /// Entries of each block less one, a u16 each.
    pub sizes_at: u64,
    /// The compressed blocks, from a multiple of the block size.
    pub blocks_at: u64,
    /// The overflow area, as a raw table has it.
    pub overflow_at: u64,
    /// All the data.
    pub data_len: u64,
    /// Bytes of each block.
    pub block_bytes: usize,
    /// The number of blocks.
    pub blocks: u64,
}

impl Layout {
    /// The layout of a compressed table of `entries` entries and `overflow_count` overflow
    /// entries stored as `packing` says; `None` for numbers no writer makes (a damaged header).
    pub fn new(entries: u64, overflow_count: u64, packing: Packing) -> Option<Layout> {
        let blocks = packing.blocks;
        let block_bytes = packing.block_bytes as usize;
        let sane = block_bytes.is_power_of_two()
            && (8..=MAX_BLOCK_BYTES).contains(&block_bytes)
            && (1..=MAX_CODE_BYTES).contains(&packing.code_len)
            && blocks <= entries
            && blocks >= entries.div_ceil(MAX_BLOCK_ENTRIES);
        if !sane {
            return None;
        }
        let sparse_at = u64::from(packing.code_len).next_multiple_of(8);
        let sizes_at = sparse_at + 8 * entries.div_ceil(SPAN);
        // Blocks start at a multiple of their size, which divides the checksum block's: no block
        // crosses a checksum block, so a lookup checks one.
        let blocks_at = (sizes_at + 2 * blocks).next_multiple_of(block_bytes as u64);
        let overflow_at = blocks.checked_mul(block_bytes as u64)?.checked_add(blocks_at)?;
        let data_len = overflow_count.checked_mul(12)?.checked_add(overflow_at)?;
        Some(Layout { sparse_at, sizes_at, blocks_at, overflow_at, data_len, block_bytes, blocks })
    }
}
