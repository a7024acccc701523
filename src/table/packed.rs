//! Reading compressed value tables (format version 4, docs/FORMAT.md): the body of a raw table
//! (one code byte per index) in blocks of a pair code ([`super::pairs`]), with the index that
//! finds an entry's block, the raw table's overflow area unchanged, and the same block checksums
//! over all of it. A probe decodes the one block it needs; a solver or verify, reading all of
//! the table, decodes it whole, checked end to end against the raw checksum in its header.

use super::blocks::CheckedMap;
use super::error::TableError;
use super::header::{Header, checksum};
use super::layout::{Layout, MAX_BLOCK_BYTES};
use super::pairs::{BlockIndex, PairCode, SPAN};
use rayon::prelude::*;
use std::path::Path;

/// Blocks decoded as one unit of parallel work.
pub(crate) const GROUP: usize = 4096;

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
        let code = PairCode::from_bytes(data.bytes(0, code_len)?)
            .map_err(|bad| TableError::Code { path: path.to_path_buf(), why: bad.0 })?;
        Ok(Packed { code, layout })
    }

    /// Where the overflow area starts in the data.
    pub fn overflow_at(&self) -> u64 {
        self.layout.overflow_at
    }

    /// The code byte of entry `index` (below the table's size): its block found from the sparse
    /// index and the block sizes, then decoded up to the entry.
    #[inline]
    pub fn entry(&self, path: &Path, data: &CheckedMap, index: u64) -> Result<u8, TableError> {
        let layout = &self.layout;
        let damaged = || TableError::Entry { path: path.to_path_buf(), index };
        let start = data.u64_at(layout.sparse_at + 8 * (index / SPAN))?;
        let (mut block, mut offset) = (start & 0xffff_ffff, (start >> 32) + index % SPAN);
        loop {
            if block >= layout.blocks {
                return Err(damaged());
            }
            let size = data.bytes(layout.sizes_at + 2 * block, 2)?;
            let size = u64::from(u16::from_le_bytes([size[0], size[1]])) + 1;
            if offset < size {
                break;
            }
            offset -= size;
            block += 1;
        }
        let bytes = data.bytes(layout.blocks_at + block * layout.block_bytes as u64, layout.block_bytes)?;
        let entry = if bytes.len() <= 64 {
            let mut padded = [0u8; 64 + 7];
            padded[..bytes.len()].copy_from_slice(bytes);
            self.code.entry_in_block(&padded[..bytes.len() + 7], offset)
        } else {
            let mut padded = [0u8; MAX_BLOCK_BYTES + 7];
            padded[..bytes.len()].copy_from_slice(bytes);
            self.code.entry_in_block(&padded[..bytes.len() + 7], offset)
        };
        entry.ok_or_else(damaged)
    }

    /// Starts loading what a lookup of `index` reads first. Only a hint.
    #[inline]
    pub fn prefetch(&self, data: &CheckedMap, index: u64) {
        data.prefetch(self.layout.sparse_at + 8 * (index / SPAN));
    }

    /// Decodes the whole body of a table of `entries` entries whose data has been checked, and
    /// checks it end to end: block sizes that add up, a sparse index that agrees with them,
    /// blocks that decode to exactly their entries, and the raw checksum of the header over the
    /// decoded body and the overflow area.
    pub fn decode_all(
        &self,
        path: &Path,
        header: &Header,
        data: &CheckedMap,
    ) -> Result<Box<[u8]>, TableError> {
        let layout = &self.layout;
        let entries = header.index_size;
        let damaged = |index| TableError::Entry { path: path.to_path_buf(), index };
        let sizes: Vec<u64> = match layout.blocks {
            0 => Vec::new(),
            blocks => data
                .bytes(layout.sizes_at, 2 * blocks as usize)?
                .chunks_exact(2)
                .map(|b| u64::from(u16::from_le_bytes([b[0], b[1]])) + 1)
                .collect(),
        };
        if sizes.iter().sum::<u64>() != entries {
            return Err(damaged(entries));
        }
        let sparse_len = 8 * entries.div_ceil(SPAN) as usize;
        let sparse = if sparse_len == 0 { &[][..] } else { data.bytes(layout.sparse_at, sparse_len)? };
        if sparse != BlockIndex::new(&sizes).sparse_bytes().as_slice() {
            return Err(damaged(0));
        }
        let blocks = match layout.blocks {
            0 => &[][..],
            n => data.bytes(layout.blocks_at, n as usize * layout.block_bytes)?,
        };
        let mut body = vec![0u8; entries as usize].into_boxed_slice();
        let mut rest: &mut [u8] = &mut body;
        let mut groups = Vec::new();
        for (g, group) in sizes.chunks(GROUP).enumerate() {
            let (this, after) = rest.split_at_mut(group.iter().sum::<u64>() as usize);
            groups.push((g * GROUP, group, this));
            rest = after;
        }
        groups.into_par_iter().try_for_each(|(first, group, out)| {
            decode_group(&self.code, blocks, layout.block_bytes, first, group, out)
                .map_err(|block| damaged(block as u64))
        })?;
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

/// Decodes the blocks `first..first + sizes.len()` of `blocks` into `out` (their entries, one
/// after another); the first block that does not decode to its entries is the error.
pub(crate) fn decode_group(
    code: &PairCode,
    blocks: &[u8],
    block_bytes: usize,
    first: usize,
    sizes: &[u64],
    out: &mut [u8],
) -> Result<(), usize> {
    let mut padded = vec![0u8; block_bytes + 7];
    let mut at = 0usize;
    for (k, &size) in sizes.iter().enumerate() {
        let block = first + k;
        padded[..block_bytes].copy_from_slice(&blocks[block * block_bytes..(block + 1) * block_bytes]);
        code.decode_block(&padded, &mut out[at..at + size as usize]).ok_or(block)?;
        at += size as usize;
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
