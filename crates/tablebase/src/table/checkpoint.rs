//! Checkpoints of a table whose entries are slow to compute (a search per position): the
//! chunks already written to its temporary file, so that a run cut short (kill -9, a session's
//! end, a power loss) goes on from them and loses minutes, not hours.
//!
//! Beside `NAME.tmp` lies `NAME.tmp.chunks`: a record that says which table it belongs to (its
//! index size and chunk length), then one record per chunk written, with the CRC-32 of the
//! chunk's bytes, its counts and overflow entries, each record closed by its CRC-32. A chunk's
//! bytes are synced to disk before its record is written, so a record never names bytes that a
//! power loss could undo; a record cut short or damaged ends the list, and the chunks after it
//! are computed again, as is a chunk whose bytes no longer match their record (`NAME.tmp` is
//! not yet covered by the table's own checksums).

use super::atomic::{Pending, temporary_path};
use super::error::TableError;
use super::header::Counts;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

const MAGIC: [u8; 4] = *b"TBCK";
/// Version 2 records each chunk's bytes' CRC-32; a version 1 file is not resumed from.
const VERSION: u32 = 2;

/// What a chunk's entries add to the table: their counts and their overflow entries (index,
/// distance), in increasing order of index.
pub(crate) type ChunkResult = (Counts, Vec<(u64, u32)>);

/// The checkpoints of one table being written.
pub(crate) struct Checkpoints {
    path: PathBuf,
    file: Mutex<File>,
    done: Vec<Option<Recorded>>,
    /// Left for the next run when dropped ([`Checkpoints::keep`]).
    kept: bool,
}

/// A chunk's record: the CRC-32 of its bytes, and what they add to the table.
type Recorded = (u32, ChunkResult);

/// The checkpoint file of the table at `path`.
pub(crate) fn checkpoint_path(path: &Path) -> PathBuf {
    let mut name = temporary_path(path).into_os_string();
    name.push(".chunks");
    PathBuf::from(name)
}

impl Checkpoints {
    /// Opens the temporary file of the table at `path` and its checkpoints: both as they are
    /// when they belong to a table of `index_size` entries in chunks of `chunk`, else both
    /// anew. Returns them with the number of chunks already done.
    pub fn open(
        path: &Path,
        index_size: u64,
        chunk: u64,
    ) -> Result<(Pending, Checkpoints, usize), TableError> {
        let at = checkpoint_path(path);
        let io = |source| TableError::Io { path: at.clone(), source };
        let chunks = index_size.div_ceil(chunk) as usize;
        let mut done: Vec<Option<Recorded>> = vec![None; chunks];
        let identity = identity_record(index_size, chunk);
        let mut kept = identity.clone();
        let resumed = match (Pending::open_existing(path)?, read_all(&at).map_err(io)?) {
            (Some(pending), Some(bytes)) if bytes.starts_with(&identity) => {
                let records = &bytes[identity.len()..];
                let (whole, len) = whole_records(records, chunks);
                kept.extend_from_slice(&records[..len]);
                done = whole;
                Some(pending)
            }
            _ => None,
        };
        let pending = match resumed {
            Some(pending) => pending,
            None => Pending::create(path)?,
        };
        // Only the whole records, so that new ones follow them directly.
        let fresh = temporary_path(&at);
        let written = super::regular::create_to_write(&fresh).and_then(|mut file| file.write_all(&kept));
        written.and_then(|()| fs::rename(&fresh, &at)).map_err(|source| match source.kind() {
            // The message names the file that was refused, not the one it was to become.
            std::io::ErrorKind::InvalidInput => TableError::Io { path: fresh.clone(), source },
            _ => io(source),
        })?;
        let file = super::regular::open_to_write(OpenOptions::new().append(true), &at).map_err(io)?;
        let count = done.iter().filter(|d| d.is_some()).count();
        Ok((pending, Checkpoints { path: at, file: Mutex::new(file), done, kept: false }, count))
    }

    /// What chunk `chunk` gave, when it was written before and its `bytes` (in the temporary
    /// file) are still those its record names: bytes changed since (a damaged disk, a hand)
    /// make the chunk computed again, not copied into the table.
    pub fn done(&self, chunk: usize, bytes: &[u8]) -> Option<&ChunkResult> {
        let (sum, result) = self.done.get(chunk)?.as_ref()?;
        (crc32fast::hash(bytes) == *sum).then_some(result)
    }

    /// Records chunk `chunk` as written, once its `bytes` (in the file's memory map) are on disk.
    pub(crate) fn record(&self, chunk: usize, result: &ChunkResult, bytes: &[u8]) -> Result<(), TableError> {
        let io = |source| TableError::Io { path: self.path.clone(), source };
        sync_mapped(bytes).map_err(io)?;
        let record = encode_record(chunk, crc32fast::hash(bytes), result);
        let mut file = self.file.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        file.write_all(&record).map_err(io)
    }

    /// Leaves the checkpoints for the next run, as a kill does: for a run stopped on request.
    pub(crate) fn keep(mut self) {
        self.kept = true;
    }
}

impl Drop for Checkpoints {
    /// The checkpoints go with the table: renamed into place, or removed with its temporary
    /// file after an error. A kill, or a stop on request, leaves both for the next run.
    fn drop(&mut self) {
        if !self.kept {
            let _ = fs::remove_file(&self.path);
        }
    }
}

/// How far the table at `path` got while being written in checkpointed chunks: the chunks
/// recorded and the chunks in all, as a rerun would resume them; `None` without checkpoints.
/// Reads only: for `info`, while a build may be running.
pub(crate) fn checkpoint_progress(path: &Path) -> Option<(usize, usize)> {
    let bytes = read_all(&checkpoint_path(path)).ok()??;
    let u64_at = |at: usize| Some(u64::from_le_bytes(bytes.get(at..at + 8)?.try_into().ok()?));
    let (index_size, chunk) = (u64_at(8)?, u64_at(16)?);
    let identity = identity_record(index_size, chunk);
    if !bytes.starts_with(&identity) || chunk == 0 {
        return None;
    }
    let chunks = usize::try_from(index_size.div_ceil(chunk)).ok()?;
    let (done, _) = whole_records(&bytes[identity.len()..], chunks);
    Some((done.iter().filter(|d| d.is_some()).count(), chunks))
}

/// The chunk records at the start of `records` (after the identity record) that a run resumes
/// from, by chunk out of `chunks`, and how many bytes they take: they end at the first record
/// cut short, damaged, out of range or repeated.
fn whole_records(records: &[u8], chunks: usize) -> (Vec<Option<Recorded>>, usize) {
    let mut done: Vec<Option<Recorded>> = vec![None; chunks];
    let mut len = 0;
    while let Some((record, (chunk, result))) = parse_record(&records[len..]) {
        if chunk >= chunks || done[chunk].is_some() {
            break;
        }
        done[chunk] = Some(result);
        len += record;
    }
    (done, len)
}

/// The checkpoints at `path`, if there are any: opened as a file that will be written (it is
/// replaced by its records kept), so never through a link, which is refused.
fn read_all(path: &Path) -> io::Result<Option<Vec<u8>>> {
    match super::regular::open_to_write(OpenOptions::new().read(true), path) {
        Ok(mut file) => {
            let mut bytes = Vec::new();
            file.read_to_end(&mut bytes)?;
            Ok(Some(bytes))
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

fn identity_record(index_size: u64, chunk: u64) -> Vec<u8> {
    let mut record = MAGIC.to_vec();
    record.extend_from_slice(&VERSION.to_le_bytes());
    record.extend_from_slice(&index_size.to_le_bytes());
    record.extend_from_slice(&chunk.to_le_bytes());
    let sum = crc32fast::hash(&record);
    record.extend_from_slice(&sum.to_le_bytes());
    record
}

fn encode_record(chunk: usize, bytes_sum: u32, (counts, overflow): &ChunkResult) -> Vec<u8> {
    let mut record = Vec::with_capacity(52 + 12 * overflow.len());
    record.extend_from_slice(&(chunk as u64).to_le_bytes());
    record.extend_from_slice(&bytes_sum.to_le_bytes());
    for n in [counts.win, counts.loss, counts.draw] {
        record.extend_from_slice(&n.to_le_bytes());
    }
    for n in [counts.max_win, counts.max_loss, overflow.len() as u32] {
        record.extend_from_slice(&n.to_le_bytes());
    }
    for &(index, distance) in overflow {
        record.extend_from_slice(&index.to_le_bytes());
        record.extend_from_slice(&distance.to_le_bytes());
    }
    let sum = crc32fast::hash(&record);
    record.extend_from_slice(&sum.to_le_bytes());
    record
}

/// The record at the start of `bytes`: its length, its chunk, the CRC-32 of the chunk's bytes
/// and what the chunk gave; `None` when it is cut short or its checksum is wrong.
pub(crate) fn parse_record(bytes: &[u8]) -> Option<(usize, (usize, Recorded))> {
    let u64_at = |at: usize| Some(u64::from_le_bytes(bytes.get(at..at + 8)?.try_into().ok()?));
    let u32_at = |at: usize| Some(u32::from_le_bytes(bytes.get(at..at + 4)?.try_into().ok()?));
    let overflow_count = u32_at(44)? as usize;
    let body = 48usize.checked_add(overflow_count.checked_mul(12)?)?;
    if u32_at(body)? != crc32fast::hash(bytes.get(..body)?) {
        return None;
    }
    let counts = Counts {
        win: u64_at(12)?,
        loss: u64_at(20)?,
        draw: u64_at(28)?,
        max_win: u32_at(36)?,
        max_loss: u32_at(40)?,
    };
    let overflow = (0..overflow_count)
        .map(|k| Some((u64_at(48 + 12 * k)?, u32_at(56 + 12 * k)?)))
        .collect::<Option<Vec<_>>>()?;
    Some((body + 4, (usize::try_from(u64_at(0)?).ok()?, (u32_at(8)?, (counts, overflow)))))
}

/// Writes the pages of a memory map that hold `bytes` to disk.
fn sync_mapped(bytes: &[u8]) -> io::Result<()> {
    if bytes.is_empty() {
        return Ok(());
    }
    // SAFETY: sysconf has no preconditions.
    let page = usize::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) }).unwrap_or(4096).max(1);
    let start = bytes.as_ptr() as usize;
    let aligned = start - start % page;
    // SAFETY: the range lies within the caller's live mapping (rounded down to its page, which
    // the mapping holds too: it starts on a page boundary).
    let result =
        unsafe { libc::msync(aligned as *mut libc::c_void, bytes.len() + (start - aligned), libc::MS_SYNC) };
    if result == 0 { Ok(()) } else { Err(io::Error::last_os_error()) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_counts_the_whole_records_only() {
        let scratch = tempfile::tempdir().unwrap(); // removed when dropped, also on failure
        let dir = scratch.path().to_path_buf();
        let path = dir.join("t.tbl");
        assert_eq!(checkpoint_progress(&path), None);
        let counts = Counts { win: 1, loss: 0, draw: 0, max_win: 1, max_loss: 0 };
        let mut bytes = identity_record(1000, 256);
        for chunk in [2, 0] {
            bytes.extend_from_slice(&encode_record(chunk, 7, &(counts, Vec::new())));
        }
        fs::write(checkpoint_path(&path), &bytes).unwrap();
        assert_eq!(checkpoint_progress(&path), Some((2, 4)));
        // A record cut short by a kill counts for nothing.
        bytes.extend_from_slice(&encode_record(3, 7, &(counts, Vec::new()))[..20]);
        fs::write(checkpoint_path(&path), &bytes).unwrap();
        assert_eq!(checkpoint_progress(&path), Some((2, 4)));
        fs::write(checkpoint_path(&path), &bytes[..10]).unwrap();
        assert_eq!(checkpoint_progress(&path), None);
    }

    #[test]
    fn records_round_trip_and_a_cut_or_changed_one_is_refused() {
        let counts = Counts { win: 5, loss: 3, draw: 9, max_win: 41, max_loss: 40 };
        let result = (counts, vec![(17, 300), (4000, 299)]);
        let record = encode_record(12, 0xdead_beef, &result);
        let (len, (chunk, parsed)) = parse_record(&record).unwrap();
        assert_eq!((len, chunk, parsed), (record.len(), 12, (0xdead_beef, result)));
        assert!(parse_record(&record[..record.len() - 1]).is_none());
        for at in 0..record.len() {
            let mut bad = record.clone();
            bad[at] ^= 0x10;
            assert!(parse_record(&bad).is_none(), "byte {at}");
        }
    }
}
