//! Set files: the reachable indices of a layer, one bit each, with a rank directory (value
//! encoding 2 of docs/FORMAT.md), memory-mapped for reading.

use super::atomic::Pending;
use super::blocks::{BLOCK_SIZE, CheckedMap, checksum_area, combined_checksum};
use super::error::TableError;
use super::format::{FORMAT_VERSION, HEADER_SIZE, SET_BLOCK_WORDS, set_data_len, u64_at};
use super::header::{Check, Counts, FileKind, FileSpec, Header, map_file};
use std::io::{BufWriter, Seek, Write};
use std::path::PathBuf;

/// The rank of a set file checked whole, read straight from its mapping: the layered solvers
/// rank every child of every position, and a check and an error path per read cost as much as
/// the rank. [`SetFile::rank`] answers the same.
#[derive(Clone, Copy)]
pub struct CheckedRanks<'a> {
    /// The words, then the directory (members before each block of words).
    data: &'a [u8],
    words: usize,
    capacity: u64,
}

impl CheckedRanks<'_> {
    /// The member number of `index`, if it is a member.
    #[inline]
    pub fn rank(&self, index: u64) -> Option<u64> {
        if index >= self.capacity {
            return None;
        }
        let word = (index / 64) as usize;
        let bit = 1u64 << (index % 64);
        let bits = u64_at(self.data, 8 * word);
        if bits & bit == 0 {
            return None;
        }
        let block = word / SET_BLOCK_WORDS;
        let mut before = u64_at(self.data, 8 * (self.words + block));
        for earlier in block * SET_BLOCK_WORDS..word {
            before += u64::from(u64_at(self.data, 8 * earlier).count_ones());
        }
        Some(before + u64::from((bits & (bit - 1)).count_ones()))
    }

    /// Starts loading what [`CheckedRanks::rank`] of `index` reads: its word and its directory
    /// entry. Only a hint.
    #[inline]
    pub fn prefetch(&self, index: u64) {
        let word = (index / 64) as usize;
        if index < self.capacity {
            crate::prefetch::prefetch(&self.data[8 * word]);
            crate::prefetch::prefetch(&self.data[8 * (self.words + word / SET_BLOCK_WORDS)]);
        }
    }
}

/// Read access to the words of a set: bit `i % 64` of word `i / 64` is index `i`. Both the
/// in-memory set of a forward pass and a mapped set file give it.
pub trait Words: Sync {
    /// The number of words.
    fn word_count(&self) -> usize;
    /// Word `i` (< word_count()).
    fn word(&self, i: usize) -> u64;
}

/// Writes a set of `capacity` indices, given by its words, with its rank directory, through a
/// temporary name like every table. The words are streamed: the set is not copied in memory.
pub fn write_set(spec: &FileSpec, capacity: u64, words: &impl Words) -> Result<(), TableError> {
    let mut pending = Pending::create(&spec.path)?;
    let count = words.word_count();
    let data_len = set_data_len(capacity);
    pending.reserve(HEADER_SIZE as u64 + data_len + super::blocks::checksum_area_len(data_len))?;
    let mut members = 0u64;
    let mut blocks = BlockHasher::default();
    {
        let error = |source| TableError::Io { path: pending.temporary.clone(), source };
        let mut out = BufWriter::with_capacity(1 << 20, &pending.file);
        out.write_all(&[0u8; HEADER_SIZE]).map_err(error)?;
        let mut put = |word: u64| {
            blocks.update(&word.to_le_bytes());
            out.write_all(&word.to_le_bytes())
        };
        for i in 0..count {
            let word = words.word(i);
            members += u64::from(word.count_ones());
            put(word).map_err(error)?;
        }
        // The directory: members before each block of words, then the total.
        let mut before = 0u64;
        for block in 0..count.div_ceil(SET_BLOCK_WORDS) {
            put(before).map_err(error)?;
            let end = ((block + 1) * SET_BLOCK_WORDS).min(count);
            before +=
                (block * SET_BLOCK_WORDS..end).map(|i| u64::from(words.word(i).count_ones())).sum::<u64>();
        }
        put(before).map_err(error)?;
        let (checksums, data_len) = blocks.finish();
        out.write_all(&checksum_area(&checksums)).map_err(error)?;
        out.flush().map_err(error)?;
        blocks = BlockHasher { checksums, data_len, ..BlockHasher::default() };
    }
    let header = Header {
        version: FORMAT_VERSION,
        game: spec.game.to_string(),
        table: spec.table.clone(),
        index_size: capacity,
        overflow_count: 0,
        counts: Counts { win: members, ..Counts::default() },
        checksum: combined_checksum(&blocks.checksums, blocks.data_len),
        complete: true,
        packing: None,
    };
    pending.file.rewind().map_err(pending.error())?;
    pending.file.write_all(&header.encode_as(FileKind::Set)).map_err(pending.error())?;
    pending.commit()
}

/// The CRC-32 of each block of a stream of data, as it is written.
#[derive(Default)]
struct BlockHasher {
    current: crc32fast::Hasher,
    in_current: usize,
    checksums: Vec<u32>,
    data_len: u64,
}

impl BlockHasher {
    fn update(&mut self, mut bytes: &[u8]) {
        self.data_len += bytes.len() as u64;
        while !bytes.is_empty() {
            let take = (BLOCK_SIZE - self.in_current).min(bytes.len());
            self.current.update(&bytes[..take]);
            self.in_current += take;
            bytes = &bytes[take..];
            if self.in_current == BLOCK_SIZE {
                self.checksums.push(std::mem::take(&mut self.current).finalize());
                self.in_current = 0;
            }
        }
    }

    /// The block checksums (the last block may be short) and the number of bytes.
    fn finish(mut self) -> (Vec<u32>, u64) {
        if self.in_current > 0 {
            self.checksums.push(self.current.finalize());
        }
        (self.checksums, self.data_len)
    }
}

/// A complete set file, memory-mapped read-only, with rank (index to member number) and select
/// (member number to index) through its directory: opening it reads nothing but the header.
/// Every word read is in a block whose checksum was checked first; reads that a damaged file
/// cannot answer are errors, never a panic or a wrong member.
pub struct SetFile {
    path: PathBuf,
    header: Header,
    data: CheckedMap,
    words: usize,
}

impl SetFile {
    /// Opens the complete set `spec`: header and length at once, and with [`Check::Checksum`]
    /// every block too.
    pub fn open(spec: &FileSpec, check: Check) -> Result<SetFile, TableError> {
        let (header, map, data_len) = map_file(spec)?;
        let words = header.index_size.div_ceil(64) as usize;
        let set = SetFile {
            path: spec.path.clone(),
            data: CheckedMap::new(&spec.path, map, data_len),
            header,
            words,
        };
        if check == Check::Checksum {
            set.check_checksum()?;
        }
        Ok(set)
    }

    /// Checks every block and the checksum of all the data (reads the whole file once).
    pub fn check_checksum(&self) -> Result<(), TableError> {
        self.data.check_all(self.header.checksum)
    }

    /// The words of the set for a walk over all of it, after checking the whole file (at once
    /// when it was opened with [`Check::Checksum`]).
    pub fn words(&self) -> Result<CheckedWords<'_>, TableError> {
        self.check_checksum()?;
        Ok(CheckedWords(self))
    }

    /// The decoded header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The size of the index space.
    pub fn capacity(&self) -> u64 {
        self.header.index_size
    }

    /// The number of members.
    pub fn len(&self) -> u64 {
        self.header.counts.win
    }

    /// Whether the set has no members.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// An error for a read that a damaged file cannot answer.
    #[cold]
    pub fn damaged(&self, index: u64) -> TableError {
        TableError::Entry { path: self.path.clone(), index }
    }

    /// Rank without a check per read, once the whole file has been checked (opened with
    /// [`Check::Checksum`]); `None` before.
    pub fn checked_ranks(&self) -> Option<CheckedRanks<'_>> {
        let data = self.data.checked_data()?;
        Some(CheckedRanks { data, words: self.words, capacity: self.capacity() })
    }

    /// Word `i` of the set, or entry `i - words` of the directory.
    #[inline]
    fn entry(&self, entry: usize) -> Result<u64, TableError> {
        self.data.u64_at(8 * entry as u64)
    }

    #[inline]
    fn word(&self, word: usize) -> Result<u64, TableError> {
        self.entry(word)
    }

    /// Members before block `b` of the directory.
    #[inline]
    fn members_before_block(&self, block: usize) -> Result<u64, TableError> {
        self.entry(self.words + block)
    }

    /// The member number of `index`, if it is a member.
    #[inline]
    pub fn rank(&self, index: u64) -> Result<Option<u64>, TableError> {
        if index >= self.capacity() {
            return Ok(None);
        }
        let word = (index / 64) as usize;
        let bit = 1u64 << (index % 64);
        let block = word / SET_BLOCK_WORDS;
        let first = block * SET_BLOCK_WORDS;
        // The words of the directory block up to this one in one checked read: a directory
        // block (64 bytes) never straddles a checksum block.
        let words = self.data.bytes(8 * first as u64, 8 * (word - first + 1))?;
        let (earlier, this) = words.split_at(words.len() - 8);
        let bits = u64::from_le_bytes(this.try_into().expect("eight bytes"));
        if bits & bit == 0 {
            return Ok(None);
        }
        let mut before = self.members_before_block(block)?;
        for w in earlier.chunks_exact(8) {
            before += u64::from(u64::from_le_bytes(w.try_into().expect("eight bytes")).count_ones());
        }
        Ok(Some(before + u64::from((bits & (bit - 1)).count_ones())))
    }

    /// The first member at or after `index`, if there is one.
    #[inline]
    pub fn next_member(&self, index: u64) -> Result<Option<u64>, TableError> {
        let mut word = (index / 64) as usize;
        if word >= self.words {
            return Ok(None);
        }
        let mut bits = self.word(word)? & (u64::MAX << (index % 64));
        while bits == 0 {
            word += 1;
            if word >= self.words {
                return Ok(None);
            }
            bits = self.word(word)?;
        }
        Ok(Some(word as u64 * 64 + u64::from(bits.trailing_zeros())))
    }

    /// The member with member number `rank`, if the set has that many; an error where the
    /// directory and the words disagree (a damaged file).
    pub fn select(&self, rank: u64) -> Result<Option<u64>, TableError> {
        if rank >= self.len() {
            return Ok(None);
        }
        let (mut low, mut high) = (0usize, self.words.div_ceil(SET_BLOCK_WORDS));
        // The last block that starts at or before `rank`.
        while high - low > 1 {
            let middle = (low + high) / 2;
            if self.members_before_block(middle)? <= rank {
                low = middle;
            } else {
                high = middle;
            }
        }
        let mut rest = rank.checked_sub(self.members_before_block(low)?).ok_or_else(|| self.damaged(rank))?;
        let mut word = low * SET_BLOCK_WORDS;
        loop {
            if word >= self.words {
                return Err(self.damaged(rank));
            }
            let ones = u64::from(self.word(word)?.count_ones());
            if rest < ones {
                break;
            }
            rest -= ones;
            word += 1;
        }
        let mut bits = self.word(word)?;
        for _ in 0..rest {
            bits &= bits - 1;
        }
        Ok(Some(word as u64 * 64 + u64::from(bits.trailing_zeros())))
    }
}

/// The words of a set file checked whole, for walks over every member.
pub struct CheckedWords<'a>(&'a SetFile);

impl Words for CheckedWords<'_> {
    fn word_count(&self) -> usize {
        self.0.words
    }

    #[inline]
    fn word(&self, i: usize) -> u64 {
        self.0.data.u64_at_checked(8 * i as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layered::BitSet;

    /// The rank read straight from a file checked whole equals the checked rank at every index,
    /// over stretches that are empty, full and sparse, and past the end; before the whole file
    /// is checked there is no straight read.
    #[test]
    fn checked_ranks_equal_ranks() {
        let scratch = tempfile::tempdir().unwrap();
        let spec = FileSpec::set(scratch.path().join("s.set"), "test", "s".into());
        let capacity = 200_003;
        let members = BitSet::new(capacity);
        for i in 0..capacity {
            let member = match i / 10_000 {
                3 | 4 => false,                    // whole directory blocks empty
                7 => true,                         // full
                _ => (i * 2_654_435_761) % 13 < 3, // sparse
            };
            if member {
                members.insert(i);
            }
        }
        write_set(&spec, capacity, &members).unwrap();
        let header_only = SetFile::open(&spec, Check::Header).unwrap();
        assert!(header_only.checked_ranks().is_none());
        let set = SetFile::open(&spec, Check::Checksum).unwrap();
        let ranks = set.checked_ranks().unwrap();
        let mut found = 0;
        for i in 0..capacity + 100 {
            assert_eq!(ranks.rank(i), set.rank(i).unwrap(), "{i}");
            if let Some(rank) = ranks.rank(i) {
                assert_eq!(rank, found);
                found += 1;
            }
        }
        assert_eq!(found, set.len());
        assert!(found > 40_000);
    }
}
