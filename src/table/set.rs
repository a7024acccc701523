//! Set files: the reachable indices of a layer, one bit each, with a rank directory (value
//! encoding 2 of docs/FORMAT.md), memory-mapped for reading.

use super::atomic::Pending;
use super::error::TableError;
use super::header::{
    Check, Counts, FORMAT_VERSION, FileKind, FileSpec, HEADER_SIZE, Header, check_file_checksum, u64_at,
};
use memmap2::Mmap;
use std::fs::File;
use std::io::{BufWriter, Seek, Write};
use std::path::PathBuf;

/// Words per block of the rank directory.
pub const SET_BLOCK_WORDS: usize = 8;

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
    let length = HEADER_SIZE as u64 + 8 * (count as u64 + count.div_ceil(SET_BLOCK_WORDS) as u64 + 1);
    pending.reserve(length)?;
    let mut hasher = crc32fast::Hasher::new();
    let mut members = 0u64;
    {
        let error = |source| TableError::Io { path: pending.temporary.clone(), source };
        let mut out = BufWriter::with_capacity(1 << 20, &pending.file);
        out.write_all(&[0u8; HEADER_SIZE]).map_err(error)?;
        let mut put = |word: u64| {
            hasher.update(&word.to_le_bytes());
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
        out.flush().map_err(error)?;
    }
    let header = Header {
        version: FORMAT_VERSION,
        game: spec.game.to_string(),
        table: spec.table.clone(),
        index_size: capacity,
        overflow_count: 0,
        counts: Counts { win: members, ..Counts::default() },
        checksum: hasher.finalize(),
        complete: true,
    };
    pending.file.rewind().map_err(pending.error())?;
    pending.file.write_all(&header.encode_as(FileKind::Set)).map_err(pending.error())?;
    pending.commit()
}

/// The length of a set file with this header.
pub(crate) fn set_file_length(header: &Header) -> u64 {
    let words = header.index_size.div_ceil(64);
    HEADER_SIZE as u64 + 8 * (words + words.div_ceil(SET_BLOCK_WORDS as u64) + 1)
}

/// A complete set file, memory-mapped read-only, with rank (index to member number) and select
/// (member number to index) through its directory: opening it reads nothing but the header.
/// Reads past what a damaged directory claims give `None`, never a panic.
pub struct SetFile {
    path: PathBuf,
    header: Header,
    map: Mmap,
    words: usize,
}

impl SetFile {
    /// Opens the complete set `spec`.
    pub fn open(spec: &FileSpec, check: Check) -> Result<SetFile, TableError> {
        let path = &spec.path;
        let file = File::open(path).map_err(TableError::io(path))?;
        // SAFETY: set files are written once under a temporary name and never modified after the
        // rename; the mapping is read-only.
        let map = unsafe { Mmap::map(&file) }.map_err(TableError::io(path))?;
        let header = Header::decode_as(&map, path, FileKind::Set)?;
        if !header.complete {
            return Err(TableError::Incomplete { path: path.clone() });
        }
        spec.check(&header)?;
        let expected = set_file_length(&header);
        if map.len() as u64 != expected {
            return Err(TableError::Length { path: path.clone(), expected, found: map.len() as u64 });
        }
        let words = header.index_size.div_ceil(64) as usize;
        let set = SetFile { path: path.clone(), header, map, words };
        if check == Check::Checksum {
            set.check_checksum()?;
        }
        Ok(set)
    }

    /// Whether words and directory have the header's checksum (reads the whole file).
    pub fn check_checksum(&self) -> Result<(), TableError> {
        check_file_checksum(&self.path, &self.header, &self.map)
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

    #[inline]
    fn entry(&self, entry: usize) -> u64 {
        u64_at(&self.map, HEADER_SIZE + 8 * entry)
    }

    /// Members before block `b` of the directory.
    #[inline]
    fn members_before_block(&self, block: usize) -> u64 {
        self.entry(self.words + block)
    }

    /// The member number of `index`, if it is a member.
    #[inline]
    pub fn rank(&self, index: u64) -> Option<u64> {
        if index >= self.capacity() {
            return None;
        }
        let word = (index / 64) as usize;
        let bit = 1u64 << (index % 64);
        let bits = self.word(word);
        if bits & bit == 0 {
            return None;
        }
        let block = word / SET_BLOCK_WORDS;
        let before: u64 = (block * SET_BLOCK_WORDS..word).map(|w| u64::from(self.word(w).count_ones())).sum();
        Some(self.members_before_block(block) + before + u64::from((bits & (bit - 1)).count_ones()))
    }

    /// The first member at or after `index`, if there is one.
    #[inline]
    pub fn next_member(&self, index: u64) -> Option<u64> {
        let mut word = (index / 64) as usize;
        if word >= self.words {
            return None;
        }
        let mut bits = self.word(word) & (u64::MAX << (index % 64));
        while bits == 0 {
            word += 1;
            if word >= self.words {
                return None;
            }
            bits = self.word(word);
        }
        Some(word as u64 * 64 + u64::from(bits.trailing_zeros()))
    }

    /// The member with member number `rank`, if the set has that many.
    pub fn select(&self, rank: u64) -> Option<u64> {
        if rank >= self.len() {
            return None;
        }
        let (mut low, mut high) = (0usize, self.words.div_ceil(SET_BLOCK_WORDS));
        // The last block that starts at or before `rank`.
        while high - low > 1 {
            let middle = (low + high) / 2;
            if self.members_before_block(middle) <= rank {
                low = middle;
            } else {
                high = middle;
            }
        }
        let mut rest = rank.checked_sub(self.members_before_block(low))?;
        let mut word = low * SET_BLOCK_WORDS;
        loop {
            if word >= self.words {
                return None;
            }
            let ones = u64::from(self.word(word).count_ones());
            if rest < ones {
                break;
            }
            rest -= ones;
            word += 1;
        }
        let mut bits = self.word(word);
        for _ in 0..rest {
            bits &= bits - 1;
        }
        Some(word as u64 * 64 + u64::from(bits.trailing_zeros()))
    }
}

impl Words for SetFile {
    fn word_count(&self) -> usize {
        self.words
    }

    #[inline]
    fn word(&self, i: usize) -> u64 {
        self.entry(i)
    }
}
