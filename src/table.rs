//! Table files: one memory-mapped file per table, specified in docs/FORMAT.md.
//!
//! A file is a 256-byte header, a body of one byte per index, and an overflow area for
//! distances that do not fit a byte. It is written under a temporary name and renamed into
//! place only after its body, header and directory are synced, so a file under the final name
//! is always complete; the header's checksum and length catch damage afterwards.

use crate::value::Value;
use memmap2::{Mmap, MmapMut};
use rayon::prelude::*;
use std::fmt;
use std::fs::{self, File, OpenOptions};
use std::io;
use std::path::{Path, PathBuf};

pub const MAGIC: [u8; 8] = *b"TBLBASE\0";
/// The version written. Version 1 differs only in the Connect Four index (docs/FORMAT.md): its
/// Morris tables are read as they are, its Connect Four files are refused by that game.
pub const FORMAT_VERSION: u32 = 2;
pub const OLDEST_READABLE_VERSION: u32 = 1;
pub const HEADER_SIZE: usize = 256;
/// Value encoding 1: byte 0 draw, 1..=254 distance + 1 (odd distance: win, even: loss), 255 the
/// distance is in the overflow area.
pub const ENCODING_BYTE_WITH_OVERFLOW: u32 = 1;
pub const OVERFLOW_BYTE: u8 = 255;
const OVERFLOW_ENTRY: usize = 12;
const FLAG_COMPLETE: u32 = 1;

/// What is wrong with a table file; every variant names the file.
#[derive(Debug)]
pub enum TableError {
    Missing {
        path: PathBuf,
    },
    Io {
        path: PathBuf,
        source: io::Error,
    },
    NotATable {
        path: PathBuf,
    },
    Version {
        path: PathBuf,
        found: u32,
    },
    /// A readable version whose index for this game has changed since.
    Outdated {
        path: PathBuf,
        found: u32,
    },
    Incomplete {
        path: PathBuf,
    },
    Length {
        path: PathBuf,
        expected: u64,
        found: u64,
    },
    Checksum {
        path: PathBuf,
        expected: u32,
        found: u32,
    },
    WrongTable {
        path: PathBuf,
        expected: String,
        found: String,
    },
}

impl TableError {
    pub fn path(&self) -> &Path {
        match self {
            TableError::Missing { path }
            | TableError::Io { path, .. }
            | TableError::NotATable { path }
            | TableError::Version { path, .. }
            | TableError::Outdated { path, .. }
            | TableError::Incomplete { path }
            | TableError::Length { path, .. }
            | TableError::Checksum { path, .. }
            | TableError::WrongTable { path, .. } => path,
        }
    }
}

impl fmt::Display for TableError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TableError::Missing { path } => write!(f, "{}: table not generated", path.display()),
            TableError::Io { path, source } => write!(f, "{}: {source}", path.display()),
            TableError::NotATable { path } => write!(f, "{}: not a tablebase table file", path.display()),
            TableError::Version { path, found } => write!(
                f,
                "{}: table format version {found}, this program reads version {FORMAT_VERSION}",
                path.display()
            ),
            TableError::Outdated { path, found } => write!(
                f,
                "{}: written by table format version {found}, whose index for this game is no longer read; generate it again",
                path.display()
            ),
            TableError::Incomplete { path } => write!(f, "{}: table is not complete", path.display()),
            TableError::Length { path, expected, found } => {
                write!(f, "{}: damaged table: {found} bytes, the header implies {expected}", path.display())
            }
            TableError::Checksum { path, expected, found } => write!(
                f,
                "{}: damaged table: checksum {found:08x}, the header says {expected:08x}",
                path.display()
            ),
            TableError::WrongTable { path, expected, found } => {
                write!(f, "{}: holds table {found}, expected {expected}", path.display())
            }
        }
    }
}

impl std::error::Error for TableError {}

fn io_error(path: &Path) -> impl FnOnce(io::Error) -> TableError + '_ {
    move |source| {
        if source.kind() == io::ErrorKind::NotFound {
            TableError::Missing { path: path.to_path_buf() }
        } else {
            TableError::Io { path: path.to_path_buf(), source }
        }
    }
}

/// Counts over a table's positions, kept in the header so `info` reads only headers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub win: u64,
    pub loss: u64,
    pub draw: u64,
    /// Longest win and longest loss in plies (0 when there is none).
    pub max_win: u32,
    pub max_loss: u32,
}

impl Counts {
    pub fn add(&mut self, value: Value) {
        self.add_weighted(value, 1);
    }

    pub fn add_weighted(&mut self, value: Value, weight: u64) {
        match value {
            Value::Win(n) => {
                self.win += weight;
                self.max_win = self.max_win.max(n);
            }
            Value::Loss(n) => {
                self.loss += weight;
                self.max_loss = self.max_loss.max(n);
            }
            Value::Draw => self.draw += weight,
        }
    }

    pub fn merge(mut self, other: Counts) -> Counts {
        self.win += other.win;
        self.loss += other.loss;
        self.draw += other.draw;
        self.max_win = self.max_win.max(other.max_win);
        self.max_loss = self.max_loss.max(other.max_loss);
        self
    }

    pub fn positions(&self) -> u64 {
        self.win + self.loss + self.draw
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    /// The format version the file was written with (the one read; always the current one written).
    pub version: u32,
    pub game: String,
    pub table: String,
    pub index_size: u64,
    pub overflow_count: u64,
    pub counts: Counts,
    pub checksum: u32,
    pub complete: bool,
}

fn put_name(bytes: &mut [u8], name: &str) {
    let n = name.len().min(bytes.len() - 1);
    bytes[..n].copy_from_slice(&name.as_bytes()[..n]);
}

fn get_name(bytes: &[u8]) -> String {
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    String::from_utf8_lossy(&bytes[..end]).into_owned()
}

fn u32_at(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"))
}

fn u64_at(bytes: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"))
}

impl Header {
    pub fn encode(&self) -> [u8; HEADER_SIZE] {
        self.encode_with(ENCODING_BYTE_WITH_OVERFLOW)
    }

    fn encode_with(&self, encoding: u32) -> [u8; HEADER_SIZE] {
        let mut h = [0u8; HEADER_SIZE];
        h[0..8].copy_from_slice(&MAGIC);
        h[8..12].copy_from_slice(&self.version.to_le_bytes());
        h[12..16].copy_from_slice(&(HEADER_SIZE as u32).to_le_bytes());
        put_name(&mut h[16..32], &self.game);
        put_name(&mut h[32..64], &self.table);
        h[64..72].copy_from_slice(&self.index_size.to_le_bytes());
        h[72..76].copy_from_slice(&encoding.to_le_bytes());
        h[76..80].copy_from_slice(&(if self.complete { FLAG_COMPLETE } else { 0 }).to_le_bytes());
        h[80..88].copy_from_slice(&self.overflow_count.to_le_bytes());
        h[88..96].copy_from_slice(&self.counts.win.to_le_bytes());
        h[96..104].copy_from_slice(&self.counts.loss.to_le_bytes());
        h[104..112].copy_from_slice(&self.counts.draw.to_le_bytes());
        h[112..116].copy_from_slice(&self.counts.max_win.to_le_bytes());
        h[116..120].copy_from_slice(&self.counts.max_loss.to_le_bytes());
        h[120..124].copy_from_slice(&self.checksum.to_le_bytes());
        h
    }

    pub fn decode(bytes: &[u8], path: &Path) -> Result<Header, TableError> {
        Header::decode_with(bytes, path, ENCODING_BYTE_WITH_OVERFLOW)
    }

    fn decode_with(bytes: &[u8], path: &Path, encoding: u32) -> Result<Header, TableError> {
        if bytes.len() < HEADER_SIZE || bytes[0..8] != MAGIC {
            return Err(TableError::NotATable { path: path.to_path_buf() });
        }
        let version = u32_at(bytes, 8);
        if !(OLDEST_READABLE_VERSION..=FORMAT_VERSION).contains(&version)
            || u32_at(bytes, 12) != HEADER_SIZE as u32
            || u32_at(bytes, 72) != encoding
        {
            return Err(TableError::Version { path: path.to_path_buf(), found: version });
        }
        Ok(Header {
            version,
            game: get_name(&bytes[16..32]),
            table: get_name(&bytes[32..64]),
            index_size: u64_at(bytes, 64),
            complete: u32_at(bytes, 76) & FLAG_COMPLETE != 0,
            overflow_count: u64_at(bytes, 80),
            counts: Counts {
                win: u64_at(bytes, 88),
                loss: u64_at(bytes, 96),
                draw: u64_at(bytes, 104),
                max_win: u32_at(bytes, 112),
                max_loss: u32_at(bytes, 116),
            },
            checksum: u32_at(bytes, 120),
        })
    }

    pub fn file_length(&self) -> u64 {
        HEADER_SIZE as u64 + self.index_size + OVERFLOW_ENTRY as u64 * self.overflow_count
    }
}

/// How much of a table to check when opening it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Check {
    /// Header, completeness and length: instant, for probing.
    Header,
    /// Also the checksum of body and overflow: reads the whole file.
    Checksum,
}

/// The checksum of a table: CRC-32 (IEEE) of the body followed by the overflow area.
pub fn checksum(data: &[u8]) -> u32 {
    // Chunks hashed in parallel and combined, which gives the same CRC as one pass.
    const CHUNK: usize = 64 << 20;
    data.par_chunks(CHUNK)
        .map(|chunk| {
            let mut hasher = crc32fast::Hasher::new();
            hasher.update(chunk);
            hasher
        })
        .collect::<Vec<_>>()
        .into_iter()
        .fold(crc32fast::Hasher::new(), |mut acc, hasher| {
            acc.combine(&hasher);
            acc
        })
        .finalize()
}

/// A complete table, memory-mapped read-only.
pub struct TableFile {
    path: PathBuf,
    header: Header,
    map: Mmap,
}

impl TableFile {
    /// Reads only the header of a file, for `info`.
    pub fn read_header(path: &Path) -> Result<Header, TableError> {
        Header::decode(&read_header_bytes(path)?, path)
    }

    /// Opens a complete table, checking that it holds `game`/`table` with `index_size` entries.
    pub fn open(
        path: &Path,
        game: &str,
        table: &str,
        index_size: u64,
        check: Check,
    ) -> Result<TableFile, TableError> {
        let file = File::open(path).map_err(io_error(path))?;
        // SAFETY: table files are written once under a temporary name and never modified after
        // the rename; the mapping is read-only.
        let map = unsafe { Mmap::map(&file) }.map_err(io_error(path))?;
        let header = Header::decode(&map, path)?;
        if !header.complete {
            return Err(TableError::Incomplete { path: path.to_path_buf() });
        }
        if header.game != game || header.table != table || header.index_size != index_size {
            return Err(TableError::WrongTable {
                path: path.to_path_buf(),
                expected: format!("{game} {table} ({index_size} positions)"),
                found: format!("{} {} ({} positions)", header.game, header.table, header.index_size),
            });
        }
        if map.len() as u64 != header.file_length() {
            return Err(TableError::Length {
                path: path.to_path_buf(),
                expected: header.file_length(),
                found: map.len() as u64,
            });
        }
        let table = TableFile { path: path.to_path_buf(), header, map };
        if check == Check::Checksum {
            table.check_checksum()?;
        }
        Ok(table)
    }

    pub fn check_checksum(&self) -> Result<(), TableError> {
        check_file_checksum(&self.path, &self.header, &self.map)
    }

    pub fn header(&self) -> &Header {
        &self.header
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The body: one byte per index.
    #[inline]
    pub fn body(&self) -> &[u8] {
        &self.map[HEADER_SIZE..HEADER_SIZE + self.header.index_size as usize]
    }

    /// The value at `index`.
    #[inline]
    pub fn value(&self, index: u64) -> Value {
        let byte = self.map[HEADER_SIZE + index as usize];
        match byte {
            0 => Value::Draw,
            OVERFLOW_BYTE => Value::from_distance(self.overflow_distance(index)),
            code => Value::from_distance(u32::from(code) - 1),
        }
    }

    fn overflow_distance(&self, index: u64) -> u32 {
        let start = HEADER_SIZE + self.header.index_size as usize;
        let entries = &self.map[start..];
        let (mut low, mut high) = (0usize, self.header.overflow_count as usize);
        while low < high {
            let mid = (low + high) / 2;
            let at = mid * OVERFLOW_ENTRY;
            match u64_at(entries, at).cmp(&index) {
                std::cmp::Ordering::Less => low = mid + 1,
                std::cmp::Ordering::Greater => high = mid,
                std::cmp::Ordering::Equal => return u32_at(entries, at + 8),
            }
        }
        panic!("{}: index {index} marked as overflow but missing from the overflow area", self.path.display())
    }
}

/// Whether everything after the header of a whole file's bytes has the header's checksum.
fn check_file_checksum(path: &Path, header: &Header, file: &[u8]) -> Result<(), TableError> {
    let found = checksum(&file[HEADER_SIZE..]);
    if found != header.checksum {
        return Err(TableError::Checksum { path: path.to_path_buf(), expected: header.checksum, found });
    }
    Ok(())
}

/// Encodes a value as its body byte; `None` when it goes to the overflow area.
#[inline]
pub fn encode_value(value: Value) -> Option<u8> {
    match value {
        Value::Draw => Some(0),
        Value::Win(n) | Value::Loss(n) if n < u32::from(OVERFLOW_BYTE) - 1 => Some(n as u8 + 1),
        _ => None,
    }
}

/// The temporary name a table is written under before it is complete.
pub fn temporary_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().expect("a file name").to_os_string();
    name.push(".tmp");
    path.with_file_name(name)
}

/// Writes a complete table atomically: body and overflow from `value_of(index)` (computed in
/// parallel), header with counts and checksum, sync, rename, sync of the directory. The counts
/// weigh each entry with `weight_of(index)`: the number of positions it stands for, as the
/// references count them (2 for a Connect Four entry that also stands for its mirror image).
pub fn write_table(
    path: &Path,
    game: &str,
    table: &str,
    index_size: u64,
    value_of: impl Fn(u64) -> Value + Sync,
    weight_of: impl Fn(u64) -> u64 + Sync,
) -> Result<Header, TableError> {
    const CHUNK: u64 = 1 << 20;
    let temporary = temporary_path(path);
    let err = |p: &Path| {
        let p = p.to_path_buf();
        move |source| TableError::Io { path: p, source }
    };
    // Pass 1: body bytes, counts and the (sorted) overflow entries, chunk by chunk.
    let chunks: Vec<u64> = (0..index_size.div_ceil(CHUNK)).collect();
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(true)
        .open(&temporary)
        .map_err(err(&temporary))?;
    file.set_len(HEADER_SIZE as u64 + index_size).map_err(err(&temporary))?;
    // SAFETY: the temporary file is ours alone until it is renamed.
    let mut map = unsafe { MmapMut::map_mut(&file) }.map_err(err(&temporary))?;
    let body = &mut map[HEADER_SIZE..];
    let results: Vec<(Counts, Vec<(u64, u32)>)> = body
        .par_chunks_mut(CHUNK as usize)
        .zip(chunks.par_iter())
        .map(|(bytes, &chunk)| {
            let mut counts = Counts::default();
            let mut overflow = Vec::new();
            for (offset, byte) in bytes.iter_mut().enumerate() {
                let index = chunk * CHUNK + offset as u64;
                let value = value_of(index);
                counts.add_weighted(value, weight_of(index));
                *byte = match encode_value(value) {
                    Some(code) => code,
                    None => {
                        overflow.push((index, value.distance().expect("not a draw")));
                        OVERFLOW_BYTE
                    }
                };
            }
            (counts, overflow)
        })
        .collect();
    map.flush().map_err(err(&temporary))?;
    drop(map);
    let counts = results.iter().fold(Counts::default(), |acc, (c, _)| acc.merge(*c));
    let overflow: Vec<u8> = results
        .iter()
        .flat_map(|(_, o)| o.iter())
        .flat_map(|&(index, distance)| index.to_le_bytes().into_iter().chain(distance.to_le_bytes()))
        .collect();
    let overflow_count = (overflow.len() / OVERFLOW_ENTRY) as u64;
    file.set_len(HEADER_SIZE as u64 + index_size + overflow.len() as u64).map_err(err(&temporary))?;
    // SAFETY: as above.
    let mut map = unsafe { MmapMut::map_mut(&file) }.map_err(err(&temporary))?;
    map[HEADER_SIZE + index_size as usize..].copy_from_slice(&overflow);
    let header = Header {
        version: FORMAT_VERSION,
        game: game.to_string(),
        table: table.to_string(),
        index_size,
        overflow_count,
        counts,
        checksum: checksum(&map[HEADER_SIZE..]),
        complete: true,
    };
    map[..HEADER_SIZE].copy_from_slice(&header.encode());
    map.flush().map_err(err(&temporary))?;
    drop(map);
    file.sync_all().map_err(err(&temporary))?;
    drop(file);
    fs::rename(&temporary, path).map_err(err(path))?;
    sync_directory(path).map_err(err(path))?;
    Ok(header)
}

/// Value encoding 2: the body is a set of indices, bit `i % 64` of little-endian word `i / 64`,
/// followed by its rank directory: the number of members before each block of
/// [`SET_BLOCK_WORDS`] words, and the total.
pub const ENCODING_BITSET: u32 = 2;
pub const SET_BLOCK_WORDS: usize = 8;

/// Writes a set of indices (`bits` of them in `words`) with its rank directory, the same way as
/// [`write_table`]: temporary name, checksum, sync, rename.
pub fn write_bitset(
    path: &Path,
    game: &str,
    table: &str,
    bits: u64,
    words: &[u64],
) -> Result<(), TableError> {
    let temporary = temporary_path(path);
    let io = |p: &Path| {
        let p = p.to_path_buf();
        move |source| TableError::Io { path: p, source }
    };
    let mut directory = Vec::with_capacity(words.len() / SET_BLOCK_WORDS + 2);
    let mut members = 0u64;
    for block in words.chunks(SET_BLOCK_WORDS) {
        directory.push(members);
        members += block.iter().map(|w| u64::from(w.count_ones())).sum::<u64>();
    }
    directory.push(members);
    let body: Vec<u8> = words.iter().chain(&directory).flat_map(|w| w.to_le_bytes()).collect();
    let header = Header {
        version: FORMAT_VERSION,
        game: game.to_string(),
        table: table.to_string(),
        index_size: bits,
        overflow_count: 0,
        counts: Counts { win: members, ..Counts::default() },
        checksum: checksum(&body),
        complete: true,
    };
    let mut bytes = header.encode_with(ENCODING_BITSET).to_vec();
    bytes.extend_from_slice(&body);
    {
        use std::io::Write;
        let mut file = File::create(&temporary).map_err(io(&temporary))?;
        file.write_all(&bytes).map_err(io(&temporary))?;
        file.sync_all().map_err(io(&temporary))?;
    }
    fs::rename(&temporary, path).map_err(io(path))?;
    sync_directory(path).map_err(io(path))
}

fn read_header_bytes(path: &Path) -> Result<[u8; HEADER_SIZE], TableError> {
    use std::io::Read;
    let mut file = File::open(path).map_err(io_error(path))?;
    let mut bytes = [0u8; HEADER_SIZE];
    file.read_exact(&mut bytes).map_err(|_| TableError::NotATable { path: path.to_path_buf() })?;
    Ok(bytes)
}

/// Reads only the header of a set file.
pub fn read_bitset_header(path: &Path) -> Result<Header, TableError> {
    Header::decode_with(&read_header_bytes(path)?, path, ENCODING_BITSET)
}

/// A complete set file, memory-mapped read-only, with rank (index to member number) and select
/// (member number to index) through its directory: opening it reads nothing but the header.
pub struct SetFile {
    path: PathBuf,
    header: Header,
    map: Mmap,
    words: usize,
}

impl SetFile {
    /// Opens a complete set, checking that it holds `game`/`table`.
    pub fn open(path: &Path, game: &str, table: &str, check: Check) -> Result<SetFile, TableError> {
        let file = File::open(path).map_err(io_error(path))?;
        // SAFETY: set files are written once under a temporary name and never modified after the
        // rename; the mapping is read-only.
        let map = unsafe { Mmap::map(&file) }.map_err(io_error(path))?;
        let header = Header::decode_with(&map, path, ENCODING_BITSET)?;
        if !header.complete {
            return Err(TableError::Incomplete { path: path.to_path_buf() });
        }
        if header.game != game || header.table != table {
            return Err(TableError::WrongTable {
                path: path.to_path_buf(),
                expected: format!("{game} {table}"),
                found: format!("{} {}", header.game, header.table),
            });
        }
        let words = header.index_size.div_ceil(64) as usize;
        let expected = (HEADER_SIZE + 8 * (words + words.div_ceil(SET_BLOCK_WORDS) + 1)) as u64;
        if map.len() as u64 != expected {
            return Err(TableError::Length { path: path.to_path_buf(), expected, found: map.len() as u64 });
        }
        let set = SetFile { path: path.to_path_buf(), header, map, words };
        if check == Check::Checksum {
            set.check_checksum()?;
        }
        Ok(set)
    }

    pub fn check_checksum(&self) -> Result<(), TableError> {
        check_file_checksum(&self.path, &self.header, &self.map)
    }

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

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    #[inline]
    fn u64_at(&self, entry: usize) -> u64 {
        let at = HEADER_SIZE + 8 * entry;
        u64::from_le_bytes(self.map[at..at + 8].try_into().expect("8 bytes"))
    }

    /// Word `i`: bit `b` is index `64 * i + b`.
    #[inline]
    pub fn word(&self, i: usize) -> u64 {
        self.u64_at(i)
    }

    pub fn word_count(&self) -> usize {
        self.words
    }

    /// Members before block `b` of the directory.
    #[inline]
    fn members_before_block(&self, block: usize) -> u64 {
        self.u64_at(self.words + block)
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

    /// The first member at or after `index` (one must exist).
    #[inline]
    pub fn next_member(&self, index: u64) -> u64 {
        let mut word = (index / 64) as usize;
        let mut bits = self.word(word) & (u64::MAX << (index % 64));
        while bits == 0 {
            word += 1;
            bits = self.word(word);
        }
        word as u64 * 64 + u64::from(bits.trailing_zeros())
    }

    /// The member with member number `rank` (< len()).
    pub fn select(&self, rank: u64) -> u64 {
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
        let mut rest = rank - self.members_before_block(low);
        let mut word = low * SET_BLOCK_WORDS;
        loop {
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
        word as u64 * 64 + u64::from(bits.trailing_zeros())
    }
}

/// Syncs the directory holding `path`, so that a rename into it survives a power loss.
pub fn sync_directory(path: &Path) -> io::Result<()> {
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    File::open(dir)?.sync_all()
}

/// What `verify` found for one table, as SPEC section 5 words it.
pub struct TableReport {
    pub game: &'static str,
    /// The class (`8-7`) or layer (`ply 12`).
    pub table: String,
    pub counts: Counts,
    pub checksum_ok: bool,
    /// `None` when values were not recomputed.
    pub consistent: Option<bool>,
    /// `None` when the reference has no figures for the table.
    pub reference_match: Option<bool>,
}

impl TableReport {
    fn checksum_word(&self) -> &'static str {
        if self.checksum_ok { "ok" } else { "bad" }
    }

    fn reference_word(&self) -> &'static str {
        match self.reference_match {
            Some(true) => "match",
            Some(false) => "mismatch",
            None => "none",
        }
    }

    /// The `verify --json` object.
    pub fn json(&self) -> String {
        let c = &self.counts;
        format!(
            "{{\"game\": \"{}\", \"table\": \"{}\", \"positions\": {}, \"win\": {}, \"loss\": {}, \"draw\": {}, \"max_win\": {}, \"max_loss\": {}, \"checksum\": \"{}\", \"consistent\": {}, \"reference\": \"{}\"}}",
            self.game,
            self.table,
            c.positions(),
            c.win,
            c.loss,
            c.draw,
            c.max_win,
            c.max_loss,
            self.checksum_word(),
            self.consistent.map_or("null".to_string(), |b| b.to_string()),
            self.reference_word()
        )
    }

    /// One line for people.
    pub fn text(&self) -> String {
        let c = &self.counts;
        let consistent = match self.consistent {
            Some(true) => "consistent",
            Some(false) => "INCONSISTENT",
            None => "not recomputed",
        };
        format!(
            "{:<5} {:>11} positions  win {:>11} loss {:>11} draw {:>11}  longest win {:>3} loss {:>3}  checksum {}  {consistent}  reference {}",
            self.table,
            c.positions(),
            c.win,
            c.loss,
            c.draw,
            c.max_win,
            c.max_loss,
            self.checksum_word(),
            self.reference_word()
        )
    }
}

/// Status of a table on disk, for `info`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Status {
    Missing,
    /// Generation started (a temporary file exists) but did not finish.
    Partial,
    Complete(Header),
    /// A file is there but it cannot be used.
    Damaged(String),
}

impl Status {
    pub fn of(path: &Path) -> Status {
        match TableFile::read_header(path) {
            Ok(header) if header.complete => match fs::metadata(path) {
                Ok(meta) if meta.len() == header.file_length() => Status::Complete(header),
                Ok(meta) => {
                    Status::Damaged(format!("{} bytes, expected {}", meta.len(), header.file_length()))
                }
                Err(e) => Status::Damaged(e.to_string()),
            },
            Ok(_) => Status::Partial,
            Err(TableError::Missing { .. }) if temporary_path(path).exists() => Status::Partial,
            Err(TableError::Missing { .. }) => Status::Missing,
            Err(e) => Status::Damaged(e.to_string()),
        }
    }

    pub fn word(&self) -> &'static str {
        match self {
            Status::Missing => "missing",
            Status::Partial => "partial",
            Status::Complete(_) => "complete",
            Status::Damaged(_) => "damaged",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_with_overflow() {
        let dir = std::env::temp_dir().join(format!("tablebase-table-test-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let path = dir.join("t.tbl");
        let value_of = |i: u64| match i % 5 {
            0 => Value::Draw,
            1 => Value::Win((i % 400) as u32 | 1),
            2 => Value::Loss(((i % 300) as u32) & !1),
            3 => Value::Win(1),
            _ => Value::Loss(0),
        };
        let header = write_table(&path, "test", "t", 3_000_003, value_of, |_| 1).unwrap();
        assert!(header.overflow_count > 0);
        let table = TableFile::open(&path, "test", "t", 3_000_003, Check::Checksum).unwrap();
        for i in (0..3_000_003).step_by(7) {
            assert_eq!(table.value(i), value_of(i), "{i}");
        }
        assert_eq!(table.header().counts.positions(), 3_000_003);
        assert!(!temporary_path(&path).exists());
        // Flip one body byte: the checksum catches it.
        let mut bytes = fs::read(&path).unwrap();
        bytes[HEADER_SIZE + 10] ^= 1;
        fs::write(&path, &bytes).unwrap();
        assert!(matches!(
            TableFile::open(&path, "test", "t", 3_000_003, Check::Checksum),
            Err(TableError::Checksum { .. })
        ));
        bytes.truncate(bytes.len() - 1);
        fs::write(&path, &bytes).unwrap();
        assert!(matches!(
            TableFile::open(&path, "test", "t", 3_000_003, Check::Header),
            Err(TableError::Length { .. })
        ));
        fs::remove_dir_all(&dir).unwrap();
    }
}
