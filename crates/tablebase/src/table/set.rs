//! Set files: the reachable indices of a layer, one bit each, with a rank directory (value
//! encoding 2 of docs/FORMAT.md), memory-mapped for reading; raw (version 3) or compressed
//! (version 4, whose rank reads a rank record and decodes one block).

use super::atomic::Pending;
use super::blocks::{
    BLOCK_SIZE, CheckedMap, block_checksums, checksum_area, combined_checksum, file_checksum_of,
};
use super::error::TableError;
use super::format::{Directory, FORMAT_VERSION, HEADER_SIZE, SET_BLOCK_WORDS, set_data_len, u64_at};
use super::header::{Check, Counts, FileKind, FileSpec, Header, MappedFile, map_file};
use super::packed::Packed;
use super::scratch::Decoded;
use super::whole::ReadOften;
use std::io::{BufWriter, Seek, Write};
use std::path::PathBuf;
use std::sync::OnceLock;

/// The rank of a set file checked whole, read straight from its mapping: the layered solvers
/// rank every child of every position, and a check and an error path per read cost as much as
/// the rank. [`SetFile::rank`] answers the same.
#[derive(Debug, Clone, Copy)]
#[cfg_attr(not(feature = "internals"), allow(unnameable_types, reason = "the table files behind the catalogue traits, which only the games of this crate implement"))]
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
    let mut directory = Directory::default();
    let members;
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
            directory.add(word);
            put(word).map_err(error)?;
        }
        members = directory.members();
        for entry in directory.finish() {
            put(entry).map_err(error)?;
        }
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
/// cannot answer are errors, never a panic or a wrong member. A compressed set answers rank from
/// its blocks; checked whole, it is decoded into the data it has raw and read from there.
#[cfg_attr(not(feature = "internals"), allow(unnameable_types, reason = "the table files behind the catalogue traits, which only the games of this crate implement"))]
pub struct SetFile {
    path: PathBuf,
    header: Header,
    data: CheckedMap,
    words: usize,
    /// A compressed set's code (format version 4); `None` for a raw one.
    packed: Option<Packed>,
    /// A compressed set's raw data (words, then directory), once it has been checked whole.
    decoded: OnceLock<Decoded>,
    /// Opened for probing and small: decoded whole once read often (`table::whole`).
    read_often: Option<ReadOften>,
}

impl std::fmt::Debug for SetFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SetFile").field("path", &self.path).finish_non_exhaustive()
    }
}

impl SetFile {
    /// Opens the complete set `spec`: header and length at once, and with [`Check::Checksum`]
    /// every block too.
    pub fn open(spec: &FileSpec, check: Check) -> Result<SetFile, TableError> {
        let MappedFile { header, map, data_len, source } = map_file(spec)?;
        let words = header.index_size.div_ceil(64) as usize;
        let data = CheckedMap::new(&spec.path, map, data_len, source);
        let packed = match header.packing {
            Some(_) => Some(Packed::open(&spec.path, &header, &data, FileKind::Set)?),
            None => None,
        };
        let read_often = match (check, &packed) {
            (Check::Probing, Some(_)) => ReadOften::for_probing(set_data_len(header.index_size)),
            _ => None,
        };
        let set =
            SetFile { path: spec.path.clone(), data, header, words, packed, decoded: OnceLock::new(), read_often };
        if check == Check::Checksum {
            set.check_checksum()?;
        }
        Ok(set)
    }

    /// Checks every block and the checksum of all the data (reads the whole file once); a
    /// compressed set is also decoded whole, checked against its raw checksum, and read from the
    /// decoded data from then on.
    pub fn check_checksum(&self) -> Result<(), TableError> {
        self.data.check_all(self.header.checksum)?;
        if let Some(packed) = &self.packed
            && self.decoded.get().is_none()
        {
            let raw = packed.decode_set(&self.path, &self.header, &self.data)?;
            let _ = self.decoded.set(raw);
        }
        Ok(())
    }

    /// The checksum the project publishes for the file this set is raw (format version 3): the
    /// CRC-32 of the raw file with its header checksum field read as zeros, from the decoded
    /// data of a compressed set (opened with [`Check::Checksum`]); `None` before, or for a raw
    /// set (whose file checksum is this already).
    pub fn raw_file_checksum(&self) -> Option<u32> {
        let raw = self.decoded.get()?;
        let (mut header, _) = self.header.raw_form(FileKind::Set);
        header[HEADER_SIZE - 4..].fill(0);
        Some(file_checksum_of(&header, &block_checksums(raw), raw.len() as u64))
    }

    /// Whether the set was decoded whole into a scratch file.
    #[cfg(test)]
    pub(crate) fn is_decoded_in_scratch(&self) -> bool {
        self.decoded.get().is_some_and(|d| d.is_scratch())
    }

    /// Whether the set is stored compressed (format version 4).
    pub fn is_packed(&self) -> bool {
        self.packed.is_some()
    }

    /// The data the set has raw (words, then directory), checked whole: `None` before it was
    /// checked.
    fn checked_raw(&self) -> Option<&[u8]> {
        match &self.packed {
            None => self.data.checked_data(),
            Some(_) => self.decoded.get().map(|raw| &raw[..]),
        }
    }

    /// The words of the set for a walk over all of it, after checking the whole file (at once
    /// when it was opened with [`Check::Checksum`]).
    pub fn words(&self) -> Result<CheckedWords<'_>, TableError> {
        self.check_checksum()?;
        let raw = self.checked_raw().expect("a set checked whole");
        Ok(CheckedWords { raw, words: self.words })
    }

    /// The decoded header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// [`TableError::Changed`] where the file has been cut short or written (by another program)
    /// since it was mapped: what was read from it since may be wrong.
    pub fn unchanged(&self) -> Result<(), TableError> {
        self.data.unchanged()
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
        let data = self.checked_raw()?;
        Some(CheckedRanks { data, words: self.words, capacity: self.capacity() })
    }

    /// The words of the set as bytes (word `i` at `8 * i`, little-endian), once the whole file
    /// has been checked (opened with [`Check::Checksum`]); `None` before.
    pub fn checked_word_bytes(&self) -> Option<&[u8]> {
        Some(&self.checked_raw()?[..8 * self.words])
    }

    /// Word `i` of the set, or entry `i - words` of the directory. A compressed set is decoded
    /// whole for it (on the first read; walks and `select`, not single probes, read this way).
    #[inline]
    fn entry(&self, entry: usize) -> Result<u64, TableError> {
        if self.packed.is_none() {
            return self.data.u64_at(8 * entry as u64);
        }
        if self.decoded.get().is_none() {
            self.check_checksum()?;
        }
        let raw = self.checked_raw().expect("a set checked whole");
        match raw.get(8 * entry..8 * entry + 8) {
            Some(bytes) => Ok(u64::from_le_bytes(bytes.try_into().expect("eight bytes"))),
            None => Err(self.damaged(entry as u64)),
        }
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

    /// Counts a rank read of a compressed set block by block, and decodes it whole on the read
    /// that makes it often enough (opened with [`Check::Probing`]; `table::whole`).
    #[inline]
    fn count_read(&self, packed: &Packed, index: u64) -> Result<(), TableError> {
        let Some(often) = &self.read_often else { return Ok(()) };
        often.before_read(
            &self.data,
            self.header.checksum,
            || TableError::Entry { path: self.path.clone(), index },
            || packed.decode_set(&self.path, &self.header, &self.data),
            |raw| self.decoded.set(raw).is_ok(),
        )
    }

    /// The member number of `index`, if it is a member.
    #[inline]
    pub fn rank(&self, index: u64) -> Result<Option<u64>, TableError> {
        if index >= self.capacity() {
            return Ok(None);
        }
        if let Some(packed) = &self.packed {
            return match self.checked_ranks() {
                Some(ranks) => Ok(ranks.rank(index)),
                None => {
                    self.count_read(packed, index)?;
                    packed.rank(&self.path, &self.data, index)
                }
            };
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

    /// A prefetch in two steps for a batch of ranks: this first one, well ahead, loads what a
    /// rank of `index` reads first (a compressed set's two records, a raw set's word and
    /// directory entry) ...
    #[inline]
    pub fn prefetch_record(&self, index: u64) {
        if index >= self.capacity() {
            return;
        }
        match (&self.packed, self.checked_ranks()) {
            (_, Some(ranks)) => ranks.prefetch(index),
            (Some(packed), None) => packed.prefetch_rank(&self.data, index),
            (None, None) => {
                let word = index / 64;
                self.data.prefetch(8 * word);
                self.data.prefetch(8 * (self.words as u64 + word / SET_BLOCK_WORDS as u64));
            }
        }
    }

    /// ... and this second one, some ranks before [`SetFile::rank`], loads a compressed set's
    /// block, found from its record. Nothing more for a raw set. Only a hint.
    #[inline]
    pub fn prefetch_block(&self, index: u64) {
        if let (Some(packed), None) = (&self.packed, self.decoded.get())
            && index < self.capacity()
        {
            packed.prefetch_block(&self.data, index / 8);
        }
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
#[cfg_attr(not(feature = "internals"), allow(unnameable_types, reason = "the table files behind the catalogue traits, which only the games of this crate implement"))]
#[derive(Debug)]
pub struct CheckedWords<'a> {
    /// The set's raw data: words, then directory.
    raw: &'a [u8],
    words: usize,
}

impl Words for CheckedWords<'_> {
    fn word_count(&self) -> usize {
        self.words
    }

    #[inline]
    fn word(&self, i: usize) -> u64 {
        u64_at(self.raw, 8 * i)
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
