//! Reading compressed value tables (format version 4, docs/FORMAT.md): the body of a raw table
//! (one code byte per index) in blocks of a fixed number of entries in a pair code
//! ([`super::pairs`]), a record per group of blocks that says where they lie, the raw table's
//! overflow area unchanged, and the same block checksums over all of it. A probe reads one
//! record and decodes the one block it needs; a solver or verify, reading all of the table,
//! decodes it whole, checked end to end against the raw checksum in its header.

use super::blocks::CheckedMap;
use super::error::TableError;
use super::header::{Header, checksum};
use super::layout::Layout;
use super::pairs::{BlockIndex, GROUP_BLOCKS, MAX_BLOCK_ENTRIES, PairCode, RECORD_BYTES, block_span};
use rayon::prelude::*;
use std::path::Path;

/// Blocks decoded as one unit of parallel work (whole records of them), by a reader and by the
/// writer's check.
pub(crate) const BLOCKS_A_TASK: usize = 256 * GROUP_BLOCKS;

/// The reading side of a compressed table: its code and layout.
pub(crate) struct Packed {
    code: PairCode,
    layout: Layout,
}

impl Packed {
    /// Reads the code of the compressed table whose header is `header` (its block checked).
    pub fn open(path: &Path, header: &Header, data: &CheckedMap) -> Result<Packed, TableError> {
        let layout = layout_of(header).ok_or_else(|| TableError::Header { path: path.to_path_buf() })?;
        let code_len = header.packing.map_or(0, |p| p.code_len) as usize;
        let code = PairCode::from_bytes(data.bytes(0, code_len)?, MAX_BLOCK_ENTRIES)
            .map_err(|bad| TableError::Code { path: path.to_path_buf(), why: bad.0 })?;
        Ok(Packed { code, layout })
    }

    /// Where the overflow area starts in the data.
    pub fn overflow_at(&self) -> u64 {
        self.layout.overflow_at
    }

    /// The code byte of entry `index` (below the table's size): the record of its block's
    /// group, then the block decoded up to the entry.
    #[inline]
    pub fn entry(&self, path: &Path, data: &CheckedMap, index: u64) -> Result<u8, TableError> {
        let layout = &self.layout;
        let damaged = || TableError::Entry { path: path.to_path_buf(), index };
        let (start, end) = self.block_of(data, index)?.ok_or_else(damaged)?;
        let bytes = data.bytes(start, (end - start) as usize)?;
        // A block that crosses a cache line: its second line is asked for now, not when the
        // decoder reaches it.
        if let Some(last) = bytes.last() {
            crate::prefetch::prefetch(last);
        }
        let offset = index & ((1 << layout.block_shift) - 1);
        self.code.entry_in_block(bytes, offset).ok_or_else(damaged)
    }

    /// Where the block holding entry `index` lies in the data, from its record (checked):
    /// `None` for an index past the blocks or a damaged record.
    #[inline]
    fn block_of(&self, data: &CheckedMap, index: u64) -> Result<Option<(u64, u64)>, TableError> {
        let layout = &self.layout;
        let block = index >> layout.block_shift;
        if block >= layout.blocks {
            return Ok(None);
        }
        let record = data.bytes(self.record_at(index), RECORD_BYTES)?;
        let found = BlockIndex::block_in(record, (block % GROUP_BLOCKS as u64) as usize);
        // An `end` within the blocks: the offsets neither overflow nor leave them.
        Ok(found
            .filter(|&(_, end)| end <= layout.blocks_len)
            .map(|(start, end)| (layout.blocks_at + start, layout.blocks_at + end)))
    }

    /// Where the record of the block holding entry `index` lies in the data.
    #[inline]
    fn record_at(&self, index: u64) -> u64 {
        let group = (index >> self.layout.block_shift) / GROUP_BLOCKS as u64;
        self.layout.records_at + group * RECORD_BYTES as u64
    }

    /// Starts loading what a lookup of `index` reads first: its record. Only a hint.
    #[inline]
    pub fn prefetch(&self, data: &CheckedMap, index: u64) {
        data.prefetch(self.record_at(index));
    }

    /// Starts loading what a lookup of `index` reads second, its block, from its record (which
    /// [`Packed::prefetch`] asked for some time before). Only a hint: nothing for a damaged
    /// record.
    #[inline]
    pub fn prefetch_block(&self, data: &CheckedMap, index: u64) {
        if let Ok(Some((start, end))) = self.block_of(data, index) {
            data.prefetch(start);
            data.prefetch(end - 1);
        }
    }

    /// Decodes the whole body of a table of `entries` entries whose data has been checked, and
    /// checks it end to end: records whose blocks follow each other without gaps to the end of
    /// the blocks, blocks that decode to exactly their entries, and the raw checksum of the
    /// header over the decoded body and the overflow area.
    pub fn decode_all(
        &self,
        path: &Path,
        header: &Header,
        data: &CheckedMap,
    ) -> Result<Box<[u8]>, TableError> {
        let layout = &self.layout;
        let entries = header.index_size;
        let damaged = |index| TableError::Entry { path: path.to_path_buf(), index };
        let records = match layout.blocks {
            0 => &[][..],
            blocks => {
                data.bytes(layout.records_at, RECORD_BYTES * blocks.div_ceil(GROUP_BLOCKS as u64) as usize)?
            }
        };
        let ends = block_ends(records, layout.blocks as usize)
            .map_err(|block| damaged((block as u64) << layout.block_shift))?;
        if ends.last().copied().unwrap_or(0) != layout.blocks_len {
            return Err(damaged(entries));
        }
        let blocks = match layout.blocks_len {
            0 => &[][..],
            len => data.bytes(layout.blocks_at, len as usize)?,
        };
        let mut body = vec![0u8; entries as usize].into_boxed_slice();
        body.par_chunks_mut(BLOCKS_A_TASK << layout.block_shift).enumerate().try_for_each(
            |(task, out)| {
                let first = task * BLOCKS_A_TASK;
                decode_blocks(&self.code, blocks, &ends, first, layout.block_shift, out)
                    .map_err(|block| damaged((block as u64) << layout.block_shift))
            },
        )?;
        let overflow = match header.overflow_count {
            0 => &[][..],
            n => data.bytes(layout.overflow_at, 12 * n as usize)?,
        };
        let raw = raw_checksum(&body, overflow);
        let expected = header.packing.map_or(0, |p| p.raw_checksum);
        if raw != expected {
            return Err(TableError::Checksum { path: path.to_path_buf(), expected, found: raw });
        }
        Ok(body)
    }
}

/// Where each of `blocks` blocks ends (from the first block's start), read from their records:
/// the first block of a record that does not start where the one before ended, or that would be
/// empty, is the error; so is a record with an offset past its last block.
pub(crate) fn block_ends(records: &[u8], blocks: usize) -> Result<Vec<u64>, usize> {
    let mut ends = Vec::with_capacity(blocks);
    let mut previous = 0u64;
    for (g, record) in records.chunks_exact(RECORD_BYTES).enumerate() {
        let in_group = (blocks - g * GROUP_BLOCKS).min(GROUP_BLOCKS);
        for k in 0..GROUP_BLOCKS {
            let block = g * GROUP_BLOCKS + k;
            if k >= in_group {
                if record[8 + 2 * k..10 + 2 * k] != [0, 0] {
                    return Err(block);
                }
                continue;
            }
            match BlockIndex::block_in(record, k) {
                Some((start, end)) if start == previous => {
                    ends.push(end);
                    previous = end;
                }
                _ => return Err(block),
            }
        }
    }
    Ok(ends)
}

/// Decodes the blocks from `first` on into `out` (their entries, one after another; blocks of
/// `1 << block_shift` entries, the last of the table fewer), the blocks' bytes in `blocks` and
/// their ends in `ends`; the first block that does not decode to its entries is the error.
pub(crate) fn decode_blocks(
    code: &PairCode,
    blocks: &[u8],
    ends: &[u64],
    first: usize,
    block_shift: u32,
    out: &mut [u8],
) -> Result<(), usize> {
    for (k, entries) in out.chunks_mut(1 << block_shift).enumerate() {
        let block = first + k;
        code.decode_block(&blocks[block_span(ends, block)], entries).ok_or(block)?;
    }
    Ok(())
}

/// The CRC-32 of a raw table's data: its body, then its overflow area.
fn raw_checksum(body: &[u8], overflow: &[u8]) -> u32 {
    let mut all = crc32fast::Hasher::new();
    all.combine(&crc32fast::Hasher::new_with_initial_len(checksum(body), body.len() as u64));
    all.update(overflow);
    all.finalize()
}

/// The layout a version-4 header describes; `None` for a raw table or a damaged header.
pub(crate) fn layout_of(header: &Header) -> Option<Layout> {
    Layout::new(header.index_size, header.overflow_count, header.packing?)
}
