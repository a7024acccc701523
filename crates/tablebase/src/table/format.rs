//! The numbers of the file format (docs/FORMAT.md) that every part of `table/` reads: the
//! versions, the header's size, the kinds of file, the byte order of numbers in a file and the
//! length of a set's data with the counter that builds its rank directory. The lowest file of
//! `table/`: it uses none of the others.

/// The version written: 3 adds block checksums and a header checksum (docs/FORMAT.md). Files of
/// versions 1 and 2 are not read for answers (nothing guards their bytes block by block);
/// `generate` upgrades them in place after checking their whole-file checksum. Version 1's
/// Connect Four index differs, so those files are rebuilt instead.
pub const FORMAT_VERSION: u32 = 3;
/// The version of a compressed value table (docs/FORMAT.md, "Version 4"): the same header with
/// the code's fields, the values in blocks of a pair code, the same block checksums. Solvers
/// write version 3 and `generate` compresses a table once nothing later reads it raw; both
/// versions are read.
pub const PACKED_VERSION: u32 = 4;
/// The oldest version any game can upgrade.
pub const OLDEST_READABLE_VERSION: u32 = 1;
/// Bytes before the body.
pub const HEADER_SIZE: usize = 256;

/// What a table file holds, as its value encoding (header offset 72) says: the kind
/// [`TableError::WrongKind`](crate::TableError::WrongKind) names where a file is not the kind
/// expected.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FileKind {
    /// Value encoding 1: a byte per index, with an overflow area (`.tbl`).
    Table = 1,
    /// Value encoding 2: a set of indices with its rank directory (`.set`).
    Set = 2,
}

/// The little-endian u32 at `at` (the caller has checked the length).
#[inline]
pub(crate) fn u32_at(bytes: &[u8], at: usize) -> u32 {
    let mut word = [0u8; 4];
    word.copy_from_slice(&bytes[at..at + 4]);
    u32::from_le_bytes(word)
}

/// The little-endian u64 at `at` (the caller has checked the length).
#[inline]
pub(crate) fn u64_at(bytes: &[u8], at: usize) -> u64 {
    let mut word = [0u8; 8];
    word.copy_from_slice(&bytes[at..at + 8]);
    u64::from_le_bytes(word)
}

/// Words per block of the rank directory.
pub(crate) const SET_BLOCK_WORDS: usize = 8;

/// The bytes of data of a set over an index space of `capacity`: its words and its rank
/// directory (a count before each block of words, then the total).
pub(crate) fn set_data_len(capacity: u64) -> u64 {
    let words = capacity.div_ceil(64);
    8 * (words + words.div_ceil(SET_BLOCK_WORDS as u64) + 1)
}

/// A set's rank directory, made as its words go by: the members before each block of
/// [`SET_BLOCK_WORDS`] words, then the total.
#[derive(Default)]
pub(crate) struct Directory {
    entries: Vec<u64>,
    members: u64,
    words: usize,
}

impl Directory {
    /// Counts the next word.
    #[inline]
    pub fn add(&mut self, word: u64) {
        if self.words.is_multiple_of(SET_BLOCK_WORDS) {
            self.entries.push(self.members);
        }
        self.members += u64::from(word.count_ones());
        self.words += 1;
    }

    /// The members of all the words counted.
    pub fn members(&self) -> u64 {
        self.members
    }

    /// The directory's entries, the total last.
    pub fn finish(mut self) -> Vec<u64> {
        self.entries.push(self.members);
        self.entries
    }
}
