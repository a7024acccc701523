//! Block checksums (format version 3): the data of a file (everything between the header and
//! the checksum area) is cut into blocks of [`BLOCK_SIZE`] bytes, each with its CRC-32 in the
//! checksum area at the end of the file. A reader checks a block before it uses a byte of it,
//! once per mapping, so damaged data gives an error instead of a wrong answer.

use super::error::TableError;
use super::format::{HEADER_SIZE, u32_at, u64_at};
use super::regular::OpenFile;
use crate::prefetch::prefetch;
use memmap2::Mmap;
use rayon::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};

/// Bytes of data per checksummed block: small enough that checking one costs little beside the
/// cache misses of the read it guards (a probe touches one block of a table), large enough that
/// the checksum area is 0.4% of the file.
pub const BLOCK_SIZE: usize = 1024;

/// The length of the checksum area after `data_len` bytes of data.
pub(crate) fn checksum_area_len(data_len: u64) -> u64 {
    4 * data_len.div_ceil(BLOCK_SIZE as u64)
}

/// The CRC-32 of every block of `data`, computed in parallel.
pub(crate) fn block_checksums(data: &[u8]) -> Vec<u32> {
    data.par_chunks(BLOCK_SIZE).map(crc32fast::hash).collect()
}

/// The CRC-32 of all of `data_len` bytes of data, from the CRCs of its blocks (CRC-32 combines
/// without reading the data again).
pub(crate) fn combined_checksum(blocks: &[u32], data_len: u64) -> u32 {
    let mut all = crc32fast::Hasher::new();
    for (n, &crc) in blocks.iter().enumerate() {
        let start = n as u64 * BLOCK_SIZE as u64;
        let len = (data_len - start).min(BLOCK_SIZE as u64);
        all.combine(&crc32fast::Hasher::new_with_initial_len(crc, len));
    }
    all.finalize()
}

/// The checksum area's bytes for these block CRCs.
pub(crate) fn checksum_area(blocks: &[u32]) -> Vec<u8> {
    blocks.iter().flat_map(|crc| crc.to_le_bytes()).collect()
}

/// The CRC-32 of a whole file from its `header` and the CRCs of the blocks of its `data_len`
/// bytes of data: the header, the data, then the checksum area, without reading the data again.
pub(crate) fn file_checksum_of(header: &[u8], blocks: &[u32], data_len: u64) -> u32 {
    let mut file = crc32fast::Hasher::new();
    file.update(header);
    file.combine(&crc32fast::Hasher::new_with_initial_len(combined_checksum(blocks, data_len), data_len));
    file.update(&checksum_area(blocks));
    file.finalize()
}

/// A mapped file of format version 3 whose data is handed out only from blocks whose checksum
/// matched. Blocks checked are remembered (a bit each), so each is hashed at most once per
/// mapping; a file checked whole at opening skips the bits altogether.
pub(crate) struct CheckedMap {
    /// The map registered for the handler of SIGBUS: declared before `map`, so that it is
    /// forgotten before the map is unmapped.
    _registered: crate::signals::TableMap,
    path: PathBuf,
    map: Mmap,
    data_len: u64,
    checked: Box<[AtomicU64]>,
    all_checked: AtomicBool,
    /// The file mapped, kept open, and its state then.
    source: Option<OpenFile>,
}

impl CheckedMap {
    /// `map` holds a header, `data_len` bytes of data and their checksum area (the caller has
    /// checked the length).
    /// `source` is the file mapped, kept open to look at it later.
    pub fn new(path: &Path, map: Mmap, data_len: u64, source: Option<OpenFile>) -> CheckedMap {
        let blocks = data_len.div_ceil(BLOCK_SIZE as u64) as usize;
        let checked = (0..blocks.div_ceil(64)).map(|_| AtomicU64::new(0)).collect();
        let all_checked = AtomicBool::new(false);
        let _registered = crate::signals::table_mapped(map.as_ptr(), map.len());
        CheckedMap { _registered, path: path.to_path_buf(), map, data_len, checked, all_checked, source }
    }

    /// [`TableError::Changed`] where the file has been cut short or written since it was
    /// mapped. A block's checksum is checked once per mapping, so bytes that change after it
    /// (a rewrite in place, or the zeros the kernel gives past a cut within a page) would be
    /// read unchecked: a reader that keeps a map asks this after its reads, before it answers.
    pub fn unchanged(&self) -> Result<(), TableError> {
        match &self.source {
            Some(source) if source.changed() => Err(TableError::Changed { path: self.path.clone() }),
            _ => Ok(()),
        }
    }

    fn stored_checksum(&self, block: usize) -> u32 {
        u32_at(&self.map, HEADER_SIZE + self.data_len as usize + 4 * block)
    }

    fn block_bytes(&self, block: usize) -> &[u8] {
        let start = HEADER_SIZE + block * BLOCK_SIZE;
        let end = (start + BLOCK_SIZE).min(HEADER_SIZE + self.data_len as usize);
        &self.map[start..end]
    }

    /// Checks block `block` unless it was checked before.
    #[inline]
    fn check_block(&self, block: usize) -> Result<(), TableError> {
        if self.all_checked.load(Relaxed) {
            return Ok(());
        }
        let bit = 1u64 << (block % 64);
        if self.checked[block / 64].load(Relaxed) & bit != 0 {
            return Ok(());
        }
        self.check_block_now(block)
    }

    #[cold]
    fn check_block_now(&self, block: usize) -> Result<(), TableError> {
        let found = crc32fast::hash(self.block_bytes(block));
        let expected = self.stored_checksum(block);
        if found != expected {
            return Err(TableError::Block { path: self.path.clone(), block: block as u64, expected, found });
        }
        self.checked[block / 64].fetch_or(1 << (block % 64), Relaxed);
        Ok(())
    }

    /// Data bytes `offset .. offset + len`, every block they touch checked; an error past the
    /// end of the data (a damaged header or directory pointing there).
    #[inline]
    pub fn bytes(&self, offset: u64, len: usize) -> Result<&[u8], TableError> {
        let end = offset.checked_add(len as u64).filter(|&end| end <= self.data_len && len > 0);
        let Some(end) = end else {
            return Err(TableError::Entry { path: self.path.clone(), index: offset });
        };
        for block in (offset / BLOCK_SIZE as u64)..=((end - 1) / BLOCK_SIZE as u64) {
            self.check_block(block as usize)?;
        }
        Ok(&self.map[HEADER_SIZE + offset as usize..HEADER_SIZE + end as usize])
    }

    /// The data byte at `offset`, checked. The solvers' and probes' hot path: one block, one
    /// bounds check.
    #[inline]
    pub fn byte(&self, offset: u64) -> Result<u8, TableError> {
        if offset >= self.data_len {
            return Err(TableError::Entry { path: self.path.clone(), index: offset });
        }
        self.check_block((offset / BLOCK_SIZE as u64) as usize)?;
        Ok(self.map[HEADER_SIZE + offset as usize])
    }

    /// Starts loading the data byte at `offset` into the cache for a read soon after, with the
    /// rest of its block and its checksum when the block is still to be checked: a batch of
    /// reads that announces each a few reads ahead overlaps their cache misses. Only a hint.
    #[inline]
    pub fn prefetch(&self, offset: u64) {
        if offset >= self.data_len {
            return;
        }
        let block = (offset / BLOCK_SIZE as u64) as usize;
        let checked = self.all_checked.load(Relaxed)
            || self.checked[block / 64].load(Relaxed) & (1 << (block % 64)) != 0;
        if checked {
            prefetch(&self.map[HEADER_SIZE + offset as usize]);
            return;
        }
        for line in self.block_bytes(block).chunks(64) {
            prefetch(&line[0]);
        }
        prefetch(&self.map[HEADER_SIZE + self.data_len as usize + 4 * block]);
    }

    /// The little-endian u64 at data offset `offset`, checked.
    #[inline]
    pub fn u64_at(&self, offset: u64) -> Result<u64, TableError> {
        let first = offset / BLOCK_SIZE as u64;
        if offset.checked_add(8).is_none_or(|end| end > self.data_len)
            || (offset + 7) / BLOCK_SIZE as u64 != first
        {
            // Past the end, or across two blocks: the general path checks both or fails.
            return Ok(u64_at(self.bytes(offset, 8)?, 0));
        }
        self.check_block(first as usize)?;
        let at = HEADER_SIZE + offset as usize;
        Ok(u64::from_le_bytes(self.map[at..at + 8].try_into().expect("eight bytes")))
    }

    /// All the data bytes, once the whole file has been checked: readers that index them
    /// directly skip the check per read, which costs as much as the read in the solvers' loops.
    #[inline]
    pub(crate) fn checked_data(&self) -> Option<&[u8]> {
        self.is_checked().then(|| &self.map[HEADER_SIZE..HEADER_SIZE + self.data_len as usize])
    }

    /// Whether the whole file has been checked.
    pub(crate) fn is_checked(&self) -> bool {
        self.all_checked.load(Relaxed)
    }

    /// Checks every block and the header's checksum of all the data (`expected`), reading the
    /// whole file once, in parallel.
    pub(crate) fn check_all(&self, expected: u32) -> Result<(), TableError> {
        if self.is_checked() {
            return Ok(());
        }
        let data = &self.map[HEADER_SIZE..HEADER_SIZE + self.data_len as usize];
        let found = block_checksums(data);
        if let Some(block) = (0..found.len()).find(|&b| found[b] != self.stored_checksum(b)) {
            let (expected, found) = (self.stored_checksum(block), found[block]);
            return Err(TableError::Block { path: self.path.clone(), block: block as u64, expected, found });
        }
        let all = combined_checksum(&found, self.data_len);
        if all != expected {
            return Err(TableError::Checksum { path: self.path.clone(), expected, found: all });
        }
        self.all_checked.store(true, Relaxed);
        Ok(())
    }

    /// The CRC-32 of the whole file with its header checksum field read as zeros, from the
    /// checksum of the data (`data_checksum`, checked by [`CheckedMap::check_all`]) without
    /// reading the data again: what the project publishes per file.
    ///
    /// The field is zeroed because a message followed by its own CRC-32 always leaves the same
    /// CRC state: over the header as written, the file's CRC would not depend on the header's
    /// contents at all, and a header rewritten with a valid checksum would still match.
    pub(crate) fn file_checksum(&self, data_checksum: u32) -> u32 {
        let area = HEADER_SIZE + self.data_len as usize;
        let mut header = [0u8; HEADER_SIZE];
        header[..HEADER_SIZE - 4].copy_from_slice(&self.map[..HEADER_SIZE - 4]);
        let mut file = crc32fast::Hasher::new();
        file.update(&header);
        file.combine(&crc32fast::Hasher::new_with_initial_len(data_checksum, self.data_len));
        file.update(&self.map[area..]);
        file.finalize()
    }
}

/// Makes a whole file's checksums match its bytes again (block checksums, the checksum of all
/// the data, the header's): for tests that need a wrong value under valid checksums.
#[cfg(test)]
pub(crate) fn reseal(file: &mut [u8], data_len: usize) {
    let (head, rest) = file.split_at_mut(HEADER_SIZE);
    let (data, area) = rest.split_at_mut(data_len);
    let blocks = block_checksums(data);
    area.copy_from_slice(&checksum_area(&blocks));
    head[120..124].copy_from_slice(&combined_checksum(&blocks, data_len as u64).to_le_bytes());
    let sum = crc32fast::hash(&head[..HEADER_SIZE - 4]);
    head[HEADER_SIZE - 4..].copy_from_slice(&sum.to_le_bytes());
}
