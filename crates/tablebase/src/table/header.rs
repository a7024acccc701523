//! The 256-byte header every table and set file starts with (docs/FORMAT.md), and the counts it
//! carries so that `info` reads headers only.

use super::error::TableError;
use super::regular::{FileState, OpenFile};
use super::format::{
    FORMAT_VERSION, HEADER_SIZE, OLDEST_READABLE_VERSION, PACKED_VERSION, set_data_len, u32_at, u64_at,
};
use crate::value::Value;
use std::path::{Path, PathBuf};

/// The first eight bytes of every file.
pub(crate) const MAGIC: [u8; 8] = *b"TBLBASE\0";
/// Where the header's own checksum is: a CRC-32 of the bytes before it.
const HEADER_CHECKSUM_AT: usize = HEADER_SIZE - 4;
const FLAG_COMPLETE: u32 = 1;

pub use super::format::FileKind;
pub use super::layout::Packing;

/// A file a catalogue expects: where it is and what its header must say.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(not(feature = "internals"), allow(unnameable_types, reason = "the table files behind the catalogue traits, which only the games of this crate implement"))]
pub struct FileSpec {
    /// Where the file is.
    pub path: PathBuf,
    /// The game in the header (`morris`, `connect4`).
    pub game: &'static str,
    /// The table in the header (`8-7`, `7x6 ply 12`).
    pub table: String,
    /// The oldest format version whose index this game still reads.
    pub since_version: u32,
    /// A value table or a set.
    pub kind: FileKind,
}

impl FileSpec {
    /// The value table of `game`/`table` at `path`, readable in every format version.
    pub fn table(path: PathBuf, game: &'static str, table: String) -> FileSpec {
        FileSpec { path, game, table, since_version: OLDEST_READABLE_VERSION, kind: FileKind::Table }
    }

    /// The set file of `game`/`table` at `path`, readable in every format version.
    pub fn set(path: PathBuf, game: &'static str, table: String) -> FileSpec {
        FileSpec { kind: FileKind::Set, ..FileSpec::table(path, game, table) }
    }

    /// The same file, read only when written by `version` or later.
    pub fn since(self, version: u32) -> FileSpec {
        FileSpec { since_version: version, ..self }
    }

    /// Checks that a decoded header is this file's: game, table and a version whose index is
    /// current.
    pub(crate) fn check(&self, header: &Header) -> Result<(), TableError> {
        if header.game != self.game || header.table != self.table {
            return Err(TableError::WrongTable {
                path: self.path.clone(),
                expected: format!("{} {}", self.game, self.table),
                found: format!("{} {}", header.game, header.table),
            });
        }
        if header.version < self.since_version {
            return Err(TableError::IndexChanged { path: self.path.clone(), found: header.version });
        }
        Ok(())
    }
}

/// Counts over a table's positions, kept in the header so `info` reads only headers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Positions won by the side to move.
    pub win: u64,
    /// Positions lost by the side to move.
    pub loss: u64,
    /// Drawn positions.
    pub draw: u64,
    /// Longest win in plies (0 when there is none).
    pub max_win: u32,
    /// Longest loss in plies (0 when there is none).
    pub max_loss: u32,
}

impl Counts {
    /// Counts `value` once.
    pub fn add(&mut self, value: Value) {
        self.add_weighted(value, 1);
    }

    /// Counts `value` for `weight` positions (an entry that stands for symmetric images too).
    #[inline]
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
            // Counted, with no distance to lengthen the longest.
            Value::WinUnknown => self.win += weight,
            Value::LossUnknown => self.loss += weight,
        }
    }

    /// The counts of two disjoint sets of positions together.
    pub fn merge(mut self, other: Counts) -> Counts {
        self.win += other.win;
        self.loss += other.loss;
        self.draw += other.draw;
        self.max_win = self.max_win.max(other.max_win);
        self.max_loss = self.max_loss.max(other.max_loss);
        self
    }

    /// All positions counted.
    pub fn positions(&self) -> u64 {
        self.win + self.loss + self.draw
    }
}

/// The decoded header of a table or set file.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(not(feature = "internals"), allow(unnameable_types, reason = "the table files behind the catalogue traits, which only the games of this crate implement"))]
pub struct Header {
    /// The format version the file was written with (the one read; always the current one
    /// written).
    pub version: u32,
    /// The game, `morris` or `connect4`.
    pub game: String,
    /// The table: the class (`8-7`) or the board and layer (`7x6 ply 12`).
    pub table: String,
    /// Entries in the body: the index size of a value table, the index space of a set.
    pub index_size: u64,
    /// Entries in the overflow area.
    pub overflow_count: u64,
    /// Counts over the positions (a set keeps its number of members in `win`).
    pub counts: Counts,
    /// CRC-32 of everything after the header.
    pub checksum: u32,
    /// Whether the file was written to the end.
    pub complete: bool,
    /// How a compressed table (version 4) stores its values; `None` for a raw one.
    pub packing: Option<Packing>,
}

fn put_name(bytes: &mut [u8], name: &str) {
    let n = name.len().min(bytes.len() - 1);
    bytes[..n].copy_from_slice(&name.as_bytes()[..n]);
}

fn get_name(bytes: &[u8]) -> String {
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    String::from_utf8_lossy(&bytes[..end]).into_owned()
}

impl Header {
    /// The header bytes of a value table.
    pub fn encode(&self) -> [u8; HEADER_SIZE] {
        self.encode_as(FileKind::Table)
    }

    pub(crate) fn encode_as(&self, encoding: FileKind) -> [u8; HEADER_SIZE] {
        let mut h = [0u8; HEADER_SIZE];
        h[0..8].copy_from_slice(&MAGIC);
        h[8..12].copy_from_slice(&self.version.to_le_bytes());
        h[12..16].copy_from_slice(&(HEADER_SIZE as u32).to_le_bytes());
        put_name(&mut h[16..32], &self.game);
        put_name(&mut h[32..64], &self.table);
        h[64..72].copy_from_slice(&self.index_size.to_le_bytes());
        h[72..76].copy_from_slice(&(encoding as u32).to_le_bytes());
        h[76..80].copy_from_slice(&(if self.complete { FLAG_COMPLETE } else { 0 }).to_le_bytes());
        h[80..88].copy_from_slice(&self.overflow_count.to_le_bytes());
        h[88..96].copy_from_slice(&self.counts.win.to_le_bytes());
        h[96..104].copy_from_slice(&self.counts.loss.to_le_bytes());
        h[104..112].copy_from_slice(&self.counts.draw.to_le_bytes());
        h[112..116].copy_from_slice(&self.counts.max_win.to_le_bytes());
        h[116..120].copy_from_slice(&self.counts.max_loss.to_le_bytes());
        h[120..124].copy_from_slice(&self.checksum.to_le_bytes());
        if let Some(packing) = self.packing {
            h[128..132].copy_from_slice(&packing.block_entries.to_le_bytes());
            h[132..136].copy_from_slice(&packing.code_len.to_le_bytes());
            h[136..144].copy_from_slice(&packing.blocks_len.to_le_bytes());
            h[144..148].copy_from_slice(&packing.raw_checksum.to_le_bytes());
        }
        if self.version >= 3 {
            h[124..128].copy_from_slice(&(super::blocks::BLOCK_SIZE as u32).to_le_bytes());
            let sum = crc32fast::hash(&h[..HEADER_CHECKSUM_AT]);
            h[HEADER_CHECKSUM_AT..].copy_from_slice(&sum.to_le_bytes());
        }
        h
    }

    /// Decodes the header of a value table from the first bytes of `path`.
    pub fn decode(bytes: &[u8], path: &Path) -> Result<Header, TableError> {
        Header::decode_as(bytes, path, FileKind::Table)
    }

    pub(crate) fn decode_as(bytes: &[u8], path: &Path, encoding: FileKind) -> Result<Header, TableError> {
        if bytes.len() < HEADER_SIZE || bytes[0..8] != MAGIC {
            return Err(TableError::NotATable { path: path.to_path_buf() });
        }
        let version = u32_at(bytes, 8);
        if !(OLDEST_READABLE_VERSION..=PACKED_VERSION).contains(&version) {
            return Err(TableError::Version { path: path.to_path_buf(), found: version });
        }
        if version >= 3
            && (crc32fast::hash(&bytes[..HEADER_CHECKSUM_AT]) != u32_at(bytes, HEADER_CHECKSUM_AT)
                || u32_at(bytes, 124) != super::blocks::BLOCK_SIZE as u32)
        {
            return Err(TableError::Header { path: path.to_path_buf() });
        }
        let other = match encoding {
            FileKind::Table => FileKind::Set,
            FileKind::Set => FileKind::Table,
        };
        if u32_at(bytes, 72) == other as u32 {
            return Err(TableError::WrongKind { path: path.to_path_buf(), expected: encoding });
        }
        if u32_at(bytes, 12) != HEADER_SIZE as u32 || u32_at(bytes, 72) != encoding as u32 {
            return Err(TableError::Header { path: path.to_path_buf() });
        }
        let packing = (version == PACKED_VERSION).then(|| Packing {
            block_entries: u32_at(bytes, 128),
            code_len: u32_at(bytes, 132),
            blocks_len: u64_at(bytes, 136),
            raw_checksum: u32_at(bytes, 144),
        });
        Ok(Header {
            packing,
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

    /// The bytes of data after the header, by the file's kind: values and overflow area, or
    /// words and directory. `None` for sizes no file can have (a damaged header).
    pub fn data_len(&self, kind: FileKind) -> Option<u64> {
        if self.packing.is_some() {
            return super::layout::Layout::of(kind, self.index_size, self.overflow_count, self.packing?)
                .map(|layout| layout.data_len);
        }
        match kind {
            FileKind::Table => self.overflow_count.checked_mul(12)?.checked_add(self.index_size),
            FileKind::Set => Some(set_data_len(self.index_size)),
        }
    }

    /// The length of the file this header heads, by its kind: what any other length means is
    /// damage. Version 3 adds the block checksums after the data.
    pub fn file_length(&self, kind: FileKind) -> u64 {
        let data = self.data_len(kind).unwrap_or(u64::MAX / 2);
        let checksums = if self.version >= 3 { super::blocks::checksum_area_len(data) } else { 0 };
        (HEADER_SIZE as u64).saturating_add(data).saturating_add(checksums)
    }

    /// The header and length this table has raw (format version 3): itself for a raw table,
    /// and for a compressed one the header and length it had before it was compressed (the
    /// same counts, and the checksum of the same values). A verify journal fingerprints tables
    /// by these, so that compressing a table keeps what a verify found about it.
    pub fn raw_form(&self, kind: FileKind) -> ([u8; HEADER_SIZE], u64) {
        let raw = match self.packing {
            Some(packing) => Header {
                version: FORMAT_VERSION,
                checksum: packing.raw_checksum,
                packing: None,
                ..self.clone()
            },
            None => self.clone(),
        };
        (raw.encode_as(kind), raw.file_length(kind))
    }

    /// Reads only the header of a value table, for `info`.
    pub fn read(path: &Path) -> Result<Header, TableError> {
        Header::read_as(path, FileKind::Table)
    }

    /// Reads only the header of a set file.
    pub fn read_set(path: &Path) -> Result<Header, TableError> {
        Header::read_as(path, FileKind::Set)
    }

    pub(crate) fn read_as(path: &Path, encoding: FileKind) -> Result<Header, TableError> {
        use std::io::Read;
        let mut file = super::regular::open_to_read(path).map_err(TableError::io(path))?;
        let mut bytes = [0u8; HEADER_SIZE];
        file.read_exact(&mut bytes).map_err(|_| TableError::NotATable { path: path.to_path_buf() })?;
        Header::decode_as(&bytes, path, encoding)
    }
}

/// The checksum of a table: CRC-32 (IEEE) of the body followed by the overflow area.
pub fn checksum(data: &[u8]) -> u32 {
    use rayon::prelude::*;
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

/// Whether `data` has the header's checksum of all the data.
pub(crate) fn check_data_checksum(path: &Path, header: &Header, data: &[u8]) -> Result<(), TableError> {
    let found = checksum(data);
    if found != header.checksum {
        return Err(TableError::Checksum { path: path.to_path_buf(), expected: header.checksum, found });
    }
    Ok(())
}

/// How much of a file to check when opening it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(not(feature = "internals"), allow(unnameable_types, reason = "the table files behind the catalogue traits, which only the games of this crate implement"))]
pub enum Check {
    /// Header, completeness and length: instant.
    Header,
    /// As `Header`, and a small compressed file is checked and decoded whole once it has been
    /// read often (a read of a compressed block decodes it up to the entry), within a bound per
    /// file and in all (`table::whole`), past which it is read as with `Header`.
    Probing,
    /// Also the checksum of body and overflow: reads the whole file.
    Checksum,
}

/// Maps the complete file `spec` and checks what opening can check without reading the data:
/// the header (its own checksum, game, table, version) and the length. A file of an older version that `generate` can upgrade is
/// [`TableError::NeedsUpgrade`]; one that must be generated again is [`TableError::IndexChanged`].
pub(crate) fn map_file(spec: &FileSpec) -> Result<MappedFile, TableError> {
    let mapped = map_any_version(spec)?;
    if mapped.header.version < FORMAT_VERSION {
        return Err(TableError::NeedsUpgrade { path: spec.path.clone(), found: mapped.header.version });
    }
    Ok(mapped)
}

/// A file mapped to read, its header decoded and its length checked.
pub(crate) struct MappedFile {
    pub header: Header,
    pub map: memmap2::Mmap,
    /// The number of data bytes.
    pub data_len: u64,
    /// The file, kept open with its state then: a later change under the map is seen by
    /// comparing (`None` where the system did not tell).
    pub source: Option<OpenFile>,
}

/// [`map_file`] for a file of any version this program reads or upgrades.
pub(crate) fn map_any_version(spec: &FileSpec) -> Result<MappedFile, TableError> {
    let path = &spec.path;
    let file = super::regular::open_to_read(path).map_err(TableError::io(path))?;
    // Before the map: a change after this is a change from what was mapped.
    let opened = FileState::of_open(&file);
    // SAFETY: table files are written once under a temporary name and never modified after the
    // rename; the mapping is read-only. (A file truncated by another program while mapped can
    // still raise SIGBUS: docs/RELIABILITY.md.)
    let map = unsafe { memmap2::Mmap::map(&file) }.map_err(TableError::io(path))?;
    let header = Header::decode_as(&map, path, spec.kind)?;
    if !header.complete {
        return Err(TableError::Incomplete { path: path.clone() });
    }
    spec.check(&header)?;
    let data_len = header.data_len(spec.kind).ok_or_else(|| TableError::Header { path: path.clone() })?;
    let expected = header.file_length(spec.kind);
    if map.len() as u64 != expected {
        return Err(TableError::Length { path: path.clone(), expected, found: map.len() as u64 });
    }
    Ok(MappedFile { header, map, data_len, source: OpenFile::new(file, path, opened) })
}

/// Opens the complete file `spec` and checks all of it: header, length, every block and the
/// checksum of all the data. Returns its header and the CRC-32 of the whole file (the checksum
/// the project publishes for it).
pub fn check_file(spec: &FileSpec) -> Result<(Header, u32), TableError> {
    let MappedFile { header, map, data_len, source } = map_file(spec)?;
    let data = super::blocks::CheckedMap::new(&spec.path, map, data_len, source);
    data.check_all(header.checksum)?;
    let file = data.file_checksum(header.checksum);
    Ok((header, file))
}
