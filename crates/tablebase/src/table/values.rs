//! Value tables: a byte per index and an overflow area for distances that do not fit a byte
//! (value encoding 1 of docs/FORMAT.md), memory-mapped for reading.

use super::atomic::Pending;
use super::blocks::{
    BLOCK_SIZE, CheckedMap, block_checksums, checksum_area, checksum_area_len, combined_checksum,
    file_checksum_of,
};
use super::checkpoint::{Checkpoints, ChunkResult};
use super::error::TableError;
use super::format::{FORMAT_VERSION, HEADER_SIZE, u32_at, u64_at};
use super::header::{Check, Counts, FileKind, FileSpec, Header, MappedFile, map_file};
use super::packed::Packed;
use super::scratch::Decoded;
use super::whole::ReadOften;
use crate::progress::Progress;
use crate::value::Value;
use memmap2::MmapMut;
use rayon::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// A body byte that says the distance is in the overflow area.
pub(crate) const OVERFLOW_BYTE: u8 = 255;
/// The overflow distance of a win whose distance is not known (docs/FORMAT.md): odd, as a win's.
const UNKNOWN_WIN: u32 = u32::MAX;
/// The overflow distance of a loss whose distance is not known: even, as a loss's.
const UNKNOWN_LOSS: u32 = u32::MAX - 1;

/// The value of an overflow entry's distance.
#[inline]
fn overflow_value(distance: u32) -> Value {
    match distance {
        UNKNOWN_WIN => Value::WinUnknown,
        UNKNOWN_LOSS => Value::LossUnknown,
        n => Value::from_distance(n),
    }
}

/// The distance an overflow entry stores for `value` (not a draw).
#[inline]
fn overflow_distance_of(value: Value) -> u32 {
    match value {
        Value::WinUnknown => UNKNOWN_WIN,
        Value::LossUnknown => UNKNOWN_LOSS,
        value => value.distance().unwrap_or(0),
    }
}
const OVERFLOW_ENTRY: usize = 12;

/// A complete value table, memory-mapped read-only; every byte it answers from is in a block
/// whose checksum was checked first.
#[cfg_attr(not(feature = "internals"), allow(unnameable_types, reason = "the table files behind the catalogue traits, which only the games of this crate implement"))]
pub struct TableFile {
    path: PathBuf,
    header: Header,
    data: CheckedMap,
    /// A compressed table's code (format version 4); `None` for a raw one.
    packed: Option<Packed>,
    /// A compressed table's body decoded whole, once it has been checked whole.
    decoded: OnceLock<Decoded>,
    /// Where the overflow area starts in the data.
    overflow_at: u64,
    /// Opened for probing and small: decoded whole once read often (`table::whole`).
    read_often: Option<ReadOften>,
}

impl std::fmt::Debug for TableFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TableFile").field("path", &self.path).finish_non_exhaustive()
    }
}

impl TableFile {
    /// Opens the complete table `spec` with `index_size` entries: header and length at once,
    /// and with [`Check::Checksum`] every block too.
    pub fn open(spec: &FileSpec, index_size: u64, check: Check) -> Result<TableFile, TableError> {
        let MappedFile { header, map, data_len, source } = map_file(spec)?;
        let path = &spec.path;
        if header.index_size != index_size {
            return Err(TableError::WrongTable {
                path: path.clone(),
                expected: format!("{} {} ({index_size} positions)", spec.game, spec.table),
                found: format!("{} {} ({} positions)", header.game, header.table, header.index_size),
            });
        }
        let data = CheckedMap::new(path, map, data_len, source);
        let packed = match header.packing {
            Some(_) => Some(Packed::open(path, &header, &data, FileKind::Table)?),
            None => None,
        };
        let overflow_at = packed.as_ref().map_or(header.index_size, Packed::overflow_at);
        let read_often = match (check, &packed) {
            (Check::Probing, Some(_)) => ReadOften::for_probing(header.index_size),
            _ => None,
        };
        let table =
            TableFile { path: path.clone(), data, header, packed, decoded: OnceLock::new(), overflow_at, read_often };
        if check == Check::Checksum {
            table.check_checksum()?;
        }
        Ok(table)
    }

    /// Checks every block and the checksum of all the data (reads the whole file once); a
    /// compressed table is also decoded whole and checked against its raw checksum, and its
    /// entries are read from the decoded body from then on.
    pub fn check_checksum(&self) -> Result<(), TableError> {
        self.data.check_all(self.header.checksum)?;
        if let Some(packed) = &self.packed
            && self.decoded.get().is_none()
        {
            let body = packed.decode_all(&self.path, &self.header, &self.data)?;
            let _ = self.decoded.set(body);
        }
        Ok(())
    }

    /// The checksum the project publishes for the file this table is raw (format version 3):
    /// the CRC-32 of the raw file with its header checksum field read as zeros, from the decoded
    /// body of a compressed table (opened with [`Check::Checksum`]); `None` before, or for a raw
    /// table (whose file checksum is this already).
    pub fn raw_file_checksum(&self) -> Option<u32> {
        let body = self.decoded.get()?;
        let overflow =
            self.data.bytes(self.overflow_at, OVERFLOW_ENTRY * self.header.overflow_count as usize);
        let overflow = if self.header.overflow_count == 0 { &[][..] } else { overflow.ok()? };
        let (mut header, _) = self.header.raw_form(FileKind::Table);
        header[HEADER_SIZE - 4..].fill(0);
        // The raw data is the body then the overflow area; its checksum blocks run across both,
        // and give the checksum of all of it without another pass over the body.
        let whole = body.len() / BLOCK_SIZE * BLOCK_SIZE;
        let mut blocks = block_checksums(&body[..whole]);
        let mut tail = body[whole..].to_vec();
        tail.extend_from_slice(overflow);
        blocks.extend(block_checksums(&tail));
        let data_len = (body.len() + overflow.len()) as u64;
        Some(file_checksum_of(&header, &blocks, data_len))
    }

    /// Whether the table was decoded whole into a scratch file.
    #[cfg(test)]
    pub(crate) fn is_decoded_in_scratch(&self) -> bool {
        self.decoded.get().is_some_and(|d| d.is_scratch())
    }

    /// Whether the table is stored compressed (format version 4).
    pub fn is_packed(&self) -> bool {
        self.packed.is_some()
    }

    /// A raw table's body and overflow area, once checked whole.
    pub(crate) fn raw_data(&self) -> Option<(&[u8], &[u8])> {
        if self.packed.is_some() {
            return None;
        }
        Some(self.data.checked_data()?.split_at(self.header.index_size as usize))
    }

    /// The decoded header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// [`TableError::Changed`] where the file has been cut short or written (by another program)
    /// since it was mapped: what was read from it since may be wrong.
    pub fn unchanged(&self) -> Result<(), TableError> {
        self.data.unchanged()
    }

    /// The number of entries.
    pub fn len(&self) -> u64 {
        self.header.index_size
    }

    /// Whether the table has no entries.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The value at `index`; an error for an index past the end, a block that fails its
    /// checksum, or an overflow entry that is not there (a damaged table).
    #[inline]
    pub fn value(&self, index: u64) -> Result<Value, TableError> {
        if index >= self.header.index_size {
            return Err(self.damaged(index));
        }
        let code = match (&self.packed, self.decoded.get()) {
            (None, _) => self.data.byte(index)?,
            (Some(_), Some(body)) => body[index as usize],
            (Some(packed), None) => {
                self.count_read(packed, index)?;
                packed.entry(&self.path, &self.data, index)?
            }
        };
        self.value_of_code(index, code)
    }

    /// Counts a read of a compressed table block by block, and decodes it whole on the read that
    /// makes it often enough (opened with [`Check::Probing`]; `table::whole`).
    #[inline]
    fn count_read(&self, packed: &Packed, index: u64) -> Result<(), TableError> {
        let Some(often) = &self.read_often else { return Ok(()) };
        often.before_read(
            &self.data,
            self.header.checksum,
            || self.damaged(index),
            || packed.decode_all(&self.path, &self.header, &self.data),
            |body| self.decoded.set(body).is_ok(),
        )
    }

    /// The entries' code bytes without a check per read, once the whole file has been checked
    /// (opened with [`Check::Checksum`]); `None` before. [`TableFile::value_of_code`] reads them.
    #[inline]
    pub fn checked_codes(&self) -> Option<&[u8]> {
        match &self.packed {
            None => Some(&self.data.checked_data()?[..self.header.index_size as usize]),
            Some(_) => self.decoded.get().map(|body| &body[..]),
        }
    }

    /// The value of entry `index`, whose code byte is `code`.
    #[inline]
    pub fn value_of_code(&self, index: u64, code: u8) -> Result<Value, TableError> {
        match code {
            0 => Ok(Value::Draw),
            OVERFLOW_BYTE => self.overflow_distance(index).map(overflow_value),
            code => Ok(Value::from_distance(u32::from(code) - 1)),
        }
    }

    /// Starts loading the entry at `index` (and its block, unless checked already) into the
    /// cache, for [`TableFile::value`] soon after. Only a hint.
    #[inline]
    pub fn prefetch(&self, index: u64) {
        match (&self.packed, self.decoded.get()) {
            (None, _) => self.data.prefetch(index),
            (Some(_), Some(body)) => {
                if let Some(code) = body.get(index as usize) {
                    crate::prefetch::prefetch(code);
                }
            }
            (Some(packed), None) => packed.prefetch(&self.data, index),
        }
    }

    /// A prefetch in two steps, for a batch of reads: this first one, well ahead, loads a
    /// compressed table's record and does nothing for other tables ...
    #[inline]
    pub fn prefetch_record(&self, index: u64) {
        if let (Some(packed), None) = (&self.packed, self.decoded.get()) {
            packed.prefetch(&self.data, index);
        }
    }

    /// ... and this second one, some reads before [`TableFile::value`], loads a compressed
    /// table's block, found from that record, or what [`TableFile::prefetch`] loads for other
    /// tables. Only a hint.
    #[inline]
    pub fn prefetch_block(&self, index: u64) {
        match (&self.packed, self.decoded.get()) {
            (Some(packed), None) => packed.prefetch_block(&self.data, index),
            _ => self.prefetch(index),
        }
    }

    #[cold]
    fn damaged(&self, index: u64) -> TableError {
        TableError::Entry { path: self.path.clone(), index }
    }

    #[cold]
    fn overflow_distance(&self, index: u64) -> Result<u32, TableError> {
        let first = self.overflow_at;
        let (mut low, mut high) = (0u64, self.header.overflow_count);
        while low < high {
            let mid = (low + high) / 2;
            let entry = self.data.bytes(first + mid * OVERFLOW_ENTRY as u64, OVERFLOW_ENTRY)?;
            match u64_at(entry, 0).cmp(&index) {
                std::cmp::Ordering::Less => low = mid + 1,
                std::cmp::Ordering::Greater => high = mid,
                std::cmp::Ordering::Equal => return Ok(u32_at(entry, 8)),
            }
        }
        Err(self.damaged(index))
    }
}

/// How many entries of a table have each value: the distance histogram that `info --plot`
/// draws. Entries, not weighted: a table stored up to symmetry counts each entry once.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(not(feature = "internals"), allow(unnameable_types, reason = "the table files behind the catalogue traits, which only the games of this crate implement"))]
pub struct Distances {
    /// Drawn entries.
    pub draws: u64,
    /// `wins[n]`: entries won in `n` plies (only odd `n` are ever non-zero).
    pub wins: Vec<u64>,
    /// `losses[n]`: entries lost in `n` plies (only even `n` are ever non-zero).
    pub losses: Vec<u64>,
    /// Entries won in a number of plies not known.
    pub wins_unknown: u64,
    /// Entries lost in a number of plies not known.
    pub losses_unknown: u64,
}

impl Distances {
    fn count(&mut self, value: Value, entries: u64) {
        let (slot, n) = match value {
            Value::Draw => {
                self.draws += entries;
                return;
            }
            Value::Win(n) => (&mut self.wins, n as usize),
            Value::Loss(n) => (&mut self.losses, n as usize),
            Value::WinUnknown => {
                self.wins_unknown += entries;
                return;
            }
            Value::LossUnknown => {
                self.losses_unknown += entries;
                return;
            }
        };
        if slot.len() <= n {
            slot.resize(n + 1, 0);
        }
        slot[n] += entries;
    }
}

impl TableFile {
    /// Counts the entries of every value, reading the whole body once (in parallel chunks,
    /// each checked against its block checksums).
    pub fn distances(&self) -> Result<Distances, TableError> {
        if self.packed.is_some() {
            // Decoded whole: a compressed table has no body to read in place.
            self.check_checksum()?;
        }
        let entries = self.header.index_size;
        let chunks = entries.div_ceil(CHUNK);
        let bytes = (0..chunks)
            .into_par_iter()
            .map(|chunk| {
                let start = chunk * CHUNK;
                let len = CHUNK.min(entries - start) as usize;
                let mut counts = [0u64; 256];
                let bytes = match self.decoded.get() {
                    Some(body) => &body[start as usize..start as usize + len],
                    None => self.data.bytes(start, len)?,
                };
                for &byte in bytes {
                    counts[usize::from(byte)] += 1;
                }
                Ok(counts)
            })
            .try_reduce(
                || [0u64; 256],
                |mut a, b| {
                    a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
                    Ok(a)
                },
            )?;
        let mut distances = Distances::default();
        for (code, &count) in bytes.iter().enumerate() {
            if count > 0 && code != usize::from(OVERFLOW_BYTE) {
                distances.count(
                    if code == 0 { Value::Draw } else { Value::from_distance(code as u32 - 1) },
                    count,
                );
            }
        }
        for k in 0..self.header.overflow_count {
            let entry = self.data.bytes(self.overflow_at + k * OVERFLOW_ENTRY as u64, OVERFLOW_ENTRY)?;
            distances.count(overflow_value(u32_at(entry, 8)), 1);
        }
        let known = distances.wins.iter().chain(&distances.losses).sum::<u64>();
        if known + distances.wins_unknown + distances.losses_unknown + distances.draws != entries {
            // Overflow bytes and overflow entries disagree in number: a damaged table.
            return Err(self.damaged(entries));
        }
        Ok(distances)
    }
}

/// Encodes a value as its body byte; `None` when it goes to the overflow area.
#[inline]
pub(crate) fn encode_value(value: Value) -> Option<u8> {
    match value {
        Value::Draw => Some(0),
        Value::Win(n) | Value::Loss(n) if n < u32::from(OVERFLOW_BYTE) - 1 => Some(n as u8 + 1),
        _ => None,
    }
}

/// Entries per unit of parallel work and of progress.
const CHUNK: u64 = 1 << 20;

/// Writes the complete table `spec` atomically: the entry of each index `0..index_size` comes
/// from `entry(state, index)`, which gives its value and its weight (the number of positions it
/// stands for, as the references count them: 2 for a Connect Four entry that also stands for its
/// mirror image). Chunks of indices are computed in parallel, each in increasing order with its
/// own `state` from `init` (a cursor of the set being solved). Then the header with counts and
/// checksum, sync, rename, sync of the directory.
pub fn write_table<S, E>(
    spec: &FileSpec,
    index_size: u64,
    progress: &Progress,
    init: impl Fn() -> S + Sync,
    entry: impl Fn(&mut S, u64) -> Result<(Value, u64), E> + Sync,
) -> Result<Header, E>
where
    E: From<TableError> + Send,
{
    write_table_checkpointed(spec, index_size, progress, None, init, entry)
}

/// Entries per checkpoint of [`write_table_checkpointed`] for most books: small, since each
/// thread loses the chunk it is in when a run is cut short. A book's last ply is indexed by rank
/// among the reachable positions, so on 7x6 ply 8 a chunk is 512 positions: about 5 minutes of
/// searching.
pub(crate) const CHECKPOINT_ENTRIES: u64 = 1 << 9;

/// [`write_table`], and with `checkpoints` (the entries of a chunk) for entries that are slow
/// to compute (a search each): chunk by chunk, each recorded as done once its bytes are on
/// disk, so that a run cut short goes on from the chunks it wrote. The same bytes either way,
/// whatever the chunk.
pub(crate) fn write_table_checkpointed<S, E>(
    spec: &FileSpec,
    index_size: u64,
    progress: &Progress,
    checkpoints: Option<u64>,
    init: impl Fn() -> S + Sync,
    entry: impl Fn(&mut S, u64) -> Result<(Value, u64), E> + Sync,
) -> Result<Header, E>
where
    E: From<TableError> + Send,
{
    let chunk_len = checkpoints.unwrap_or(CHUNK).max(1);
    let (pending, checkpoints) = match checkpoints {
        None => (Pending::create(&spec.path)?, None),
        Some(_) => {
            let (pending, checkpoints, done) = Checkpoints::open(&spec.path, index_size, chunk_len)?;
            if done > 0 {
                progress.message(&format!(
                    "resuming: {done} of {} chunks written before",
                    index_size.div_ceil(chunk_len)
                ));
            }
            (pending, Some(checkpoints))
        }
    };
    pending.reserve(HEADER_SIZE as u64 + index_size)?;
    // SAFETY: the temporary file is ours alone until it is renamed.
    let mut map = unsafe { MmapMut::map_mut(&pending.file) }.map_err(pending.error())?;
    progress.step("writing", index_size);
    let body = &mut map[HEADER_SIZE..];
    // Body bytes, counts and the (sorted) overflow entries, chunk by chunk.
    let results = body
        .par_chunks_mut(chunk_len as usize)
        .enumerate()
        .map(|(chunk, bytes)| {
            if let Some(done) = checkpoints.as_ref().and_then(|c| c.done(chunk, bytes)) {
                progress.advance(bytes.len() as u64);
                return Ok(done.clone());
            }
            let mut state = init();
            let mut counts = Counts::default();
            let mut overflow = Vec::new();
            let first = chunk as u64 * chunk_len;
            for (offset, byte) in bytes.iter_mut().enumerate() {
                let index = first + offset as u64;
                let (value, weight) = entry(&mut state, index)?;
                if checkpoints.is_some() {
                    // Each entry is a search: counted one by one, so that a log without a
                    // terminal still gets its line every 30 s within a chunk of minutes.
                    progress.advance(1);
                }
                counts.add_weighted(value, weight);
                *byte = match encode_value(value) {
                    Some(code) => code,
                    None => {
                        overflow.push((index, overflow_distance_of(value)));
                        OVERFLOW_BYTE
                    }
                };
            }
            match &checkpoints {
                Some(checkpoints) => checkpoints.record(chunk, &(counts, overflow.clone()), bytes)?,
                None => progress.advance(bytes.len() as u64),
            }
            Ok((counts, overflow))
        })
        .collect::<Result<_, E>>();
    let results: Vec<ChunkResult> = match results {
        Ok(results) => results,
        Err(error) => {
            // Stopped on request: the chunks recorded stay for the next run, as after a kill
            // (each is checked against its CRC there); after any other error, nothing stays.
            if progress.stop_requested()
                && let Some(checkpoints) = checkpoints
            {
                drop(map);
                pending.keep();
                checkpoints.keep();
            }
            return Err(error);
        }
    };
    map.flush().map_err(pending.error())?;
    drop(map);
    let counts = results.iter().fold(Counts::default(), |acc, (c, _)| acc.merge(*c));
    let overflow: Vec<u8> = results
        .iter()
        .flat_map(|(_, o)| o.iter())
        .flat_map(|&(index, distance)| index.to_le_bytes().into_iter().chain(distance.to_le_bytes()))
        .collect();
    let overflow_count = (overflow.len() / OVERFLOW_ENTRY) as u64;
    let data_len = index_size + overflow.len() as u64;
    pending.reserve(HEADER_SIZE as u64 + data_len + checksum_area_len(data_len))?;
    // SAFETY: as above.
    let mut map = unsafe { MmapMut::map_mut(&pending.file) }.map_err(pending.error())?;
    let data_end = HEADER_SIZE + data_len as usize;
    map[HEADER_SIZE + index_size as usize..data_end].copy_from_slice(&overflow);
    let blocks = block_checksums(&map[HEADER_SIZE..data_end]);
    map[data_end..].copy_from_slice(&checksum_area(&blocks));
    let header = Header {
        version: FORMAT_VERSION,
        game: spec.game.to_string(),
        table: spec.table.clone(),
        index_size,
        overflow_count,
        counts,
        checksum: combined_checksum(&blocks, data_len),
        complete: true,
        packing: None,
    };
    map[..HEADER_SIZE].copy_from_slice(&header.encode_as(FileKind::Table));
    map.flush().map_err(pending.error())?;
    drop(map);
    pending.commit()?;
    drop(checkpoints); // only now: a kill before the rename must find them
    Ok(header)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::atomic::temporary_path;
    use crate::table::blocks::BLOCK_SIZE;
    use crate::table::checkpoint::{checkpoint_path, parse_record};

    #[test]
    fn round_trip_with_overflow() {
        let scratch = tempfile::tempdir().unwrap(); // removed when dropped, also on failure
        let dir = scratch.path().to_path_buf();
        let spec = FileSpec::table(dir.join("t.tbl"), "test", "t".into());
        // Proved outcomes of unknown distance too (an opening book of Qubic or Sogo).
        let value_of = |i: u64| match i % 7 {
            0 => Value::Draw,
            1 => Value::Win((i % 400) as u32 | 1),
            2 => Value::Loss(((i % 300) as u32) & !1),
            3 => Value::Win(1),
            4 if i.is_multiple_of(3) => Value::WinUnknown,
            5 if i.is_multiple_of(3) => Value::LossUnknown,
            _ => Value::Loss(0),
        };
        let size = 3_000_003;
        let header = write_table::<_, TableError>(
            &spec,
            size,
            &Progress::hidden(),
            || (),
            |_, i| Ok((value_of(i), 1)),
        )
        .unwrap();
        assert!(header.overflow_count > 0);
        let table = TableFile::open(&spec, size, Check::Checksum).unwrap();
        for i in (0..size).step_by(7) {
            assert_eq!(table.value(i).unwrap(), value_of(i), "{i}");
        }
        assert!(matches!(table.value(size), Err(TableError::Entry { .. })));
        assert_eq!(table.header().counts.positions(), size);
        let distances = table.distances().unwrap();
        let unknown = |v: Value| (0..size).filter(|&i| value_of(i) == v).count() as u64;
        assert_eq!(distances.wins_unknown, unknown(Value::WinUnknown));
        assert_eq!(distances.losses_unknown, unknown(Value::LossUnknown));
        assert!(distances.wins_unknown > 0);
        // The longest win is a known one: an unknown distance is no distance.
        assert_eq!(table.header().counts.max_win, 399);
        assert!(!temporary_path(&spec.path).exists());
        drop(table);
        // Flip one body byte: its block's checksum catches it, at opening with the checksum
        // and at the first read of the block without; other blocks still answer.
        let mut bytes = std::fs::read(&spec.path).unwrap();
        bytes[HEADER_SIZE + 10] ^= 1;
        std::fs::write(&spec.path, &bytes).unwrap();
        assert!(matches!(
            TableFile::open(&spec, size, Check::Checksum),
            Err(TableError::Block { block: 0, .. })
        ));
        let table = TableFile::open(&spec, size, Check::Header).unwrap();
        assert!(matches!(table.value(10), Err(TableError::Block { block: 0, .. })));
        assert!(matches!(table.value(1023), Err(TableError::Block { block: 0, .. })));
        assert_eq!(table.value(1024).unwrap(), value_of(1024));
        drop(table);
        // A body byte turned into the overflow mark without an entry, checksums made to match:
        // an error, not a panic.
        let mut marked = bytes.clone();
        marked[HEADER_SIZE + 10] = OVERFLOW_BYTE;
        let data_len = marked.len() - HEADER_SIZE - 4 * (marked.len() - HEADER_SIZE).div_ceil(BLOCK_SIZE + 4);
        crate::table::blocks::reseal(&mut marked, data_len);
        std::fs::write(&spec.path, &marked).unwrap();
        let table = TableFile::open(&spec, size, Check::Checksum).unwrap();
        assert!(matches!(table.value(10), Err(TableError::Entry { index: 10, .. })));
        drop(table);
        // A header field changed: the header's own checksum catches it.
        let mut header = marked.clone();
        header[112] ^= 1; // the longest win
        std::fs::write(&spec.path, &header).unwrap();
        assert!(matches!(TableFile::open(&spec, size, Check::Header), Err(TableError::Header { .. })));
        bytes.truncate(bytes.len() - 1);
        std::fs::write(&spec.path, &bytes).unwrap();
        assert!(matches!(TableFile::open(&spec, size, Check::Header), Err(TableError::Length { .. })));
    }

    /// A run stopped after some chunks leaves the temporary file and its checkpoints as a kill
    /// would; the next run computes only the other chunks and writes the same bytes as a run
    /// that was never stopped. A checkpoint file cut in the middle of a record loses that chunk
    /// only. Both with the books' chunk and with one entry a chunk (Sogo's book).
    #[test]
    fn a_resumable_table_goes_on_from_its_checkpoints() {
        for chunk in [CHECKPOINT_ENTRIES, 1] {
            resumes_from_checkpoints_of(chunk);
        }
    }

    fn resumes_from_checkpoints_of(chunk: u64) {
        use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::SeqCst};
        let scratch = tempfile::tempdir().unwrap(); // removed when dropped, also on failure
        let dir = scratch.path().to_path_buf();
        let value_of = |i: u64| match i % 7 {
            0 | 5 => Value::Draw,
            1 | 4 => Value::Win((i % 500) as u32 | 1),
            _ => Value::Loss((i % 41) as u32 & !1),
        };
        let size = 10 * chunk + 123;
        let write = |name: &str, entry: &(dyn Fn(u64) -> Result<Value, TableError> + Sync)| {
            let spec = FileSpec::table(dir.join(name), "test", "t".into());
            write_table_checkpointed::<_, TableError>(
                &spec,
                size,
                &Progress::hidden(),
                Some(chunk),
                || (),
                |_, i| Ok((entry(i)?, 1)),
            )
            .map(|_| std::fs::read(&spec.path).unwrap())
        };
        let straight = write("straight.tbl", &|i| Ok(value_of(i))).unwrap();
        assert!(std::fs::read_dir(&dir).unwrap().count() == 1, "no temporary or checkpoint file is left");

        // Chunks 0..5 are written; the others wait, then fail once the files are copied aside.
        let (release, stop_from) = (AtomicBool::new(false), 5 * chunk);
        let path = dir.join("t.tbl");
        let (temporary, checkpoints) = (temporary_path(&path), checkpoint_path(&path));
        // A pool of its own, so that other tests' work cannot stall it.
        let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        let copies = std::thread::scope(|scope| {
            let run = scope.spawn(|| {
                pool.install(|| {
                    write("t.tbl", &|i| {
                        while i >= stop_from && !release.load(SeqCst) {
                            std::thread::sleep(std::time::Duration::from_millis(1));
                        }
                        match i < stop_from {
                            true => Ok(value_of(i)),
                            false => Err(TableError::NotATable { path: "stopped".into() }),
                        }
                    })
                })
            });
            let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
            let copies = loop {
                assert!(std::time::Instant::now() < deadline, "the first chunks were never recorded");
                let journal = std::fs::read(&checkpoints).unwrap_or_default();
                // The identity record (28 bytes), then the chunk records.
                let mut rest = &journal[journal.len().min(28)..];
                let mut records = 0;
                while let Some((len, _)) = parse_record(rest) {
                    rest = &rest[len..];
                    records += 1;
                }
                if records == 5 {
                    break (std::fs::read(&temporary).unwrap(), journal);
                }
                std::thread::sleep(std::time::Duration::from_millis(1));
            };
            release.store(true, SeqCst);
            assert!(run.join().unwrap().is_err());
            copies
        });
        assert!(!temporary.exists() && !checkpoints.exists(), "an error removes both");

        let computed = AtomicU64::new(0);
        let count = |i: u64| {
            computed.fetch_add(1, SeqCst);
            Ok(value_of(i))
        };
        std::fs::write(&temporary, &copies.0).unwrap();
        std::fs::write(&checkpoints, &copies.1).unwrap();
        assert_eq!(write("t.tbl", &count).unwrap(), straight);
        assert_eq!(computed.swap(0, SeqCst), size - stop_from, "only the chunks not written before");
        assert!(!temporary.exists() && !checkpoints.exists());

        // The last record cut short: its chunk is computed again, the others are not.
        std::fs::write(&temporary, &copies.0).unwrap();
        std::fs::write(&checkpoints, &copies.1[..copies.1.len() - 3]).unwrap();
        assert_eq!(write("t.tbl", &count).unwrap(), straight);
        assert_eq!(computed.swap(0, SeqCst), size - stop_from + chunk);
        // A written chunk's bytes changed in the temporary file (a bad disk, a hand): that
        // chunk is computed again, not copied into the table, whose checksums would cover it.
        let mut damaged = copies.0.clone();
        damaged[HEADER_SIZE + (2 * chunk + chunk / 2) as usize] ^= 0x07;
        std::fs::write(&temporary, &damaged).unwrap();
        std::fs::write(&checkpoints, &copies.1).unwrap();
        assert_eq!(write("t.tbl", &count).unwrap(), straight);
        assert_eq!(computed.swap(0, SeqCst), size - stop_from + chunk);
        // Checkpoints of another table (another size) or of other chunks: everything anew.
        for (entries, chunk) in [(size - 1, chunk), (size, chunk + 1)] {
            std::fs::write(&temporary, &copies.0).unwrap();
            std::fs::write(&checkpoints, &copies.1).unwrap();
            let spec = FileSpec::table(path.clone(), "test", "t".into());
            write_table_checkpointed::<_, TableError>(
                &spec,
                entries,
                &Progress::hidden(),
                Some(chunk),
                || (),
                |_, i| count(i).map(|v| (v, 1)),
            )
            .unwrap();
            assert_eq!(computed.swap(0, SeqCst), entries);
        }
    }
}
