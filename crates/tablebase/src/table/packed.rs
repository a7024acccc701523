//! Reading compressed value tables and sets (format version 4, docs/FORMAT.md): the body of a
//! raw table (one code byte per index), or a set's words as bytes, in blocks of a fixed number
//! of entries in a pair code ([`super::pairs`]), a record per group of blocks that says where
//! they lie, for a set a second record per group that counts its members, the raw table's
//! overflow area unchanged, and the same block checksums over all of it. A probe reads one
//! record (two for a set's rank) and decodes the one block it needs; a solver or verify, reading
//! all of the file, decodes it whole, checked end to end against the raw checksum in its header.

use super::blocks::CheckedMap;
use super::error::TableError;
use super::format::{Directory, FileKind, set_data_len};
use super::header::{Header, checksum};
use super::layout::Layout;
use super::pairs::{BlockIndex, GROUP_BLOCKS, MAX_BLOCK_ENTRIES, PairCode, RECORD_BYTES, block_span};
use super::scratch::{Decoded, scratch_above};
use rayon::prelude::*;
use std::path::Path;

/// Blocks decoded as one unit of parallel work (whole records of them) by a reader. (The
/// writer's check decodes the blocks of each chunk it encoded, a chunk a task.)
pub(crate) const BLOCKS_A_TASK: usize = 256 * GROUP_BLOCKS;

/// The reading side of a compressed table or set: its code and layout.
pub(crate) struct Packed {
    code: PairCode,
    layout: Layout,
}

impl Packed {
    /// Reads the code of the compressed file of `kind` whose header is `header` (its block
    /// checked).
    pub fn open(
        path: &Path,
        header: &Header,
        data: &CheckedMap,
        kind: FileKind,
    ) -> Result<Packed, TableError> {
        let layout =
            layout_of(header, kind).ok_or_else(|| TableError::Header { path: path.to_path_buf() })?;
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

    /// A compressed set's rank of `index` (below its capacity): the member number of `index`
    /// if it is a member. Reads the rank record and the block record of the byte holding the
    /// index's bit, then decodes the block up to that byte, counting the bits before it.
    #[inline]
    pub fn rank(&self, path: &Path, data: &CheckedMap, index: u64) -> Result<Option<u64>, TableError> {
        let layout = &self.layout;
        let damaged = || TableError::Entry { path: path.to_path_buf(), index };
        let byte = index / 8;
        let (start, end) = self.block_of(data, byte)?.ok_or_else(damaged)?;
        let block = byte >> layout.block_shift;
        let ranks = data.bytes(self.rank_record_at(byte), RECORD_BYTES)?;
        let bytes = data.bytes(start, (end - start) as usize)?;
        if let Some(last) = bytes.last() {
            crate::prefetch::prefetch(last);
        }
        let offset = byte & ((1 << layout.block_shift) - 1);
        let (ones, entry) = self.code.ones_before_in_block(bytes, offset).ok_or_else(damaged)?;
        let bit = index % 8;
        if entry >> bit & 1 == 0 {
            return Ok(None);
        }
        let in_group = (block % GROUP_BLOCKS as u64) as usize;
        let before_group = u64::from_le_bytes(ranks[..8].try_into().expect("eight bytes"));
        let before_block: u64 = ranks[8..8 + 2 * in_group]
            .chunks_exact(2)
            .map(|count| u64::from(u16::from_le_bytes([count[0], count[1]])))
            .sum();
        Ok(Some(before_group + before_block + ones + u64::from((entry & ((1 << bit) - 1)).count_ones())))
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

    /// Where the rank record (a set's member counts) of the block holding byte `byte` lies in
    /// the data.
    #[inline]
    fn rank_record_at(&self, byte: u64) -> u64 {
        let group = (byte >> self.layout.block_shift) / GROUP_BLOCKS as u64;
        self.layout.ranks_at + group * RECORD_BYTES as u64
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

    /// Starts loading what a set's rank of `index` reads first: the block record and the rank
    /// record of the byte holding its bit. Only a hint.
    #[inline]
    pub fn prefetch_rank(&self, data: &CheckedMap, index: u64) {
        let byte = index / 8;
        data.prefetch(self.record_at(byte));
        data.prefetch(self.rank_record_at(byte));
    }

    /// Decodes the whole body of a compressed table whose data has been checked, and checks it
    /// end to end: the blocks (see [`Packed::decode_body`]), then the raw checksum of the
    /// header over the decoded body and the overflow area.
    pub fn decode_all(&self, path: &Path, header: &Header, data: &CheckedMap) -> Result<Decoded, TableError> {
        let mut body = Decoded::zeroed(header.index_size as usize, path, scratch_above())?;
        self.decode_body(path, data, &mut body)?;
        let overflow = match header.overflow_count {
            0 => &[][..],
            n => data.bytes(self.layout.overflow_at, 12 * n as usize)?,
        };
        let raw = raw_checksum(&body, overflow);
        let expected = header.packing.map_or(0, |p| p.raw_checksum);
        if raw != expected {
            return Err(TableError::Checksum { path: path.to_path_buf(), expected, found: raw });
        }
        Ok(body)
    }

    /// Decodes a compressed set whose data has been checked into the data the set has raw (its
    /// words, then its rank directory), and checks it end to end: the blocks (see
    /// [`Packed::decode_body`]), rank records that count the decoded words' members, and the
    /// raw checksum of the header over the raw data.
    pub fn decode_set(&self, path: &Path, header: &Header, data: &CheckedMap) -> Result<Decoded, TableError> {
        let layout = &self.layout;
        let words = header.index_size.div_ceil(64) as usize;
        let mut raw = Decoded::zeroed(set_data_len(header.index_size) as usize, path, scratch_above())?;
        let (word_bytes, directory_bytes) = raw.split_at_mut(8 * words);
        self.decode_body(path, data, word_bytes)?;
        let damaged = |index| TableError::Entry { path: path.to_path_buf(), index };
        let ranks = match layout.blocks {
            0 => &[][..],
            blocks => {
                data.bytes(layout.ranks_at, RECORD_BYTES * blocks.div_ceil(GROUP_BLOCKS as u64) as usize)?
            }
        };
        let expected_ranks = rank_records(word_bytes, layout.block_shift);
        if let Some(at) = expected_ranks.iter().zip(ranks).position(|(a, b)| a != b) {
            let group = (at / RECORD_BYTES) as u64;
            return Err(damaged((group * GROUP_BLOCKS as u64) << (layout.block_shift + 3)));
        }
        let mut directory = Directory::default();
        for word in word_bytes.chunks_exact(8) {
            directory.add(u64::from_le_bytes(word.try_into().expect("eight bytes")));
        }
        let directory = directory.finish();
        if directory.len() * 8 != directory_bytes.len() {
            return Err(damaged(header.index_size));
        }
        for (out, before) in directory_bytes.chunks_exact_mut(8).zip(directory) {
            out.copy_from_slice(&before.to_le_bytes());
        }
        let found = checksum(&raw);
        let expected = header.packing.map_or(0, |p| p.raw_checksum);
        if found != expected {
            return Err(TableError::Checksum { path: path.to_path_buf(), expected, found });
        }
        Ok(raw)
    }

    /// Decodes a compressed body whose data has been checked into `body`, its entries: records
    /// whose blocks follow each other without gaps to the end of the blocks, and blocks that
    /// decode to exactly their entries.
    fn decode_body(&self, path: &Path, data: &CheckedMap, body: &mut [u8]) -> Result<(), TableError> {
        let entries = body.len() as u64;
        let layout = &self.layout;
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
        body.par_chunks_mut(BLOCKS_A_TASK << layout.block_shift).enumerate().try_for_each(|(task, out)| {
            let first = task * BLOCKS_A_TASK;
            decode_blocks(&self.code, blocks, &ends, first, layout.block_shift, out)
                .map_err(|block| damaged((block as u64) << layout.block_shift))
        })
    }
}

/// The rank records of a set whose words are `words` (as bytes), in blocks of `1 <<
/// block_shift` bytes: per group of [`GROUP_BLOCKS`] blocks, the members before it (a
/// little-endian u64), then the members in each of its blocks (a little-endian u16 each: at
/// most 4,096; zero past the last block).
pub(crate) fn rank_records(words: &[u8], block_shift: u32) -> Vec<u8> {
    let group_bytes = GROUP_BLOCKS << block_shift;
    let mut out = Vec::with_capacity(words.len().div_ceil(group_bytes) * RECORD_BYTES);
    let mut before = 0u64;
    for group in words.chunks(group_bytes) {
        let mut record = [0u8; RECORD_BYTES];
        record[..8].copy_from_slice(&before.to_le_bytes());
        for (k, block) in group.chunks(1 << block_shift).enumerate() {
            let members: u32 = block.iter().map(|byte| byte.count_ones()).sum();
            let members = u16::try_from(members).expect("a block's members fit two bytes");
            record[8 + 2 * k..10 + 2 * k].copy_from_slice(&members.to_le_bytes());
            before += u64::from(members);
        }
        out.extend_from_slice(&record);
    }
    out
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

/// The layout a version-4 header of a file of `kind` describes; `None` for a raw file or a
/// damaged header.
pub(crate) fn layout_of(header: &Header, kind: FileKind) -> Option<Layout> {
    Layout::of(kind, header.index_size, header.overflow_count, header.packing?)
}
