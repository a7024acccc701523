//! The journal of `verify --resume`: the tables whose values a verify has recomputed and found
//! consistent, and over which files, so that a verify cut short (a session's end, a kill) goes
//! on where it stopped instead of recomputing hours of tables again.
//!
//! A table's values are consistent with the tables they were recomputed from, so an entry only
//! stands while none of the files the verify covers has changed: each line carries a
//! fingerprint of every file's header and length. A header holds the checksum of its file's
//! data, and `verify` checks every file's data against its header before it reuses an entry,
//! so an entry is reused only for the very bytes it was written for (up to CRC-32 collisions).
//! A line cut short by a kill does not parse and is ignored.

use super::Catalogue;
use crate::solve::CheckedParts;
use crate::table::{FileKind, Header, TableError};
use std::collections::HashSet;
use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

/// The journal's file name in the table directory.
pub const JOURNAL_NAME: &str = "verify.journal";

/// Bytes of a file's start that its fingerprint covers: the header of every format version.
const HEADER_BYTES: usize = 256;

/// The tables recomputed before, over the same files, and the file that records new ones.
#[derive(Debug)]
pub struct Journal {
    path: PathBuf,
    file: File,
    /// The catalogue's name and the fingerprint of its files, the first two fields of a line.
    scope: String,
    /// Tables of this scope recomputed and found consistent.
    done: HashSet<String>,
    /// Lines that are not text (UTF-8), ignored: their tables are checked again.
    pub unreadable: usize,
}

impl Journal {
    /// Opens (or starts) the journal of `catalogue` in `dir`, fingerprinting every file the
    /// catalogue lists.
    pub fn open<C: Catalogue>(catalogue: &C, dir: &Path) -> Result<Journal, TableError> {
        let path = dir.join(JOURNAL_NAME);
        let io = |doing: &'static str| failed(&path, doing);
        let mut fingerprint = crc32fast::Hasher::new();
        for key in catalogue.keys() {
            for spec in catalogue.set(dir, key).into_iter().chain([catalogue.table(dir, key)]) {
                fingerprint.update(&file_fingerprint(&spec.path).to_le_bytes());
            }
        }
        let scope = format!("{}\t{:08x}", catalogue.name(), fingerprint.finalize());
        let mut bytes = Vec::new();
        match crate::table::open_to_read(&path) {
            Ok(mut file) => {
                file.read_to_end(&mut bytes).map_err(io("cannot read it"))?;
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(io("cannot open it to read")(e)),
        }
        // Line by line: a line damaged into bytes that are not text is a record lost (its table
        // is checked again), never a journal that no later run can read.
        let mut unreadable = 0;
        let done = bytes
            .split(|&b| b == b'\n')
            .filter_map(|line| match std::str::from_utf8(line) {
                Ok(line) => Some(line),
                Err(_) => {
                    unreadable += 1;
                    None
                }
            })
            .filter_map(|line| {
                let (rest, table) = line.trim_end_matches('\r').rsplit_once('\t')?;
                (rest == scope && !table.is_empty()).then(|| table.to_string())
            })
            .collect();
        let mut file = crate::table::open_to_write(OpenOptions::new().create(true).append(true), &path)
            .map_err(io("cannot open it to append"))?;
        if !bytes.is_empty() && !bytes.ends_with(b"\n") {
            // End a line cut short, so the next one is whole.
            file.write_all(b"\n").map_err(io("cannot end its last line"))?;
        }
        Ok(Journal { path, file, scope, done, unreadable })
    }

    /// Whether the values of `table` were recomputed and found consistent over these files.
    pub fn holds(&self, table: &str) -> bool {
        self.done.contains(table)
    }

    /// Records that the values of `table` were recomputed and found consistent.
    pub fn record(&mut self, table: &str) -> Result<(), TableError> {
        // One write per line, so a kill leaves whole lines or a cut last one.
        let line = format!("{}\t{table}\n", self.scope);
        self.file
            .write_all(line.as_bytes())
            .and_then(|()| self.file.sync_data())
            .map_err(failed(&self.path, "cannot append a record"))?;
        self.done.insert(table.to_string());
        Ok(())
    }
}

/// An I/O error of the journal, with what was being done: `DIR/verify.journal: cannot append a
/// record: No space left on device`.
fn failed<'a>(path: &'a Path, doing: &'static str) -> impl FnOnce(std::io::Error) -> TableError + 'a {
    move |source| TableError::Io {
        path: path.to_path_buf(),
        source: std::io::Error::new(source.kind(), format!("{doing}: {source}")),
    }
}

/// The parts of one table's check in the journal (`CheckedParts`), a line each: `TABLE part K`.
/// Only a table checked in parts (an opening book's searched ply) asks for them.
#[derive(Debug)]
pub struct TableParts<'a> {
    journal: Mutex<&'a mut Journal>,
    table: &'a str,
}

impl<'a> TableParts<'a> {
    /// The parts of `table` in `journal`.
    pub fn new(journal: &'a mut Journal, table: &'a str) -> TableParts<'a> {
        TableParts { journal: Mutex::new(journal), table }
    }

    fn journal(&self) -> std::sync::MutexGuard<'_, &'a mut Journal> {
        self.journal.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl CheckedParts for TableParts<'_> {
    fn holds(&self, part: u64) -> bool {
        self.journal().holds(&format!("{} part {part}", self.table))
    }

    fn record(&self, part: u64) -> Result<(), TableError> {
        self.journal().record(&format!("{} part {part}", self.table))
    }
}

/// CRC-32 of a file's header (without its own checksum) and length, as the file has them raw
/// (format version 3): a compressed table or set has the fingerprint it had before it was
/// compressed, so that compressing files keeps a journal's entries. 0 for a file that cannot be read.
fn file_fingerprint(path: &Path) -> u32 {
    let Ok(mut file) = crate::table::open_to_read(path) else { return 0 };
    let Ok(mut len) = file.metadata().map(|m| m.len()) else { return 0 };
    let mut header = Vec::with_capacity(HEADER_BYTES);
    if (&mut file).take(HEADER_BYTES as u64).read_to_end(&mut header).is_err() {
        return 0;
    }
    let decoded = [FileKind::Table, FileKind::Set]
        .into_iter()
        .find_map(|kind| Header::decode_as(&header, path, kind).ok().map(|decoded| (decoded, kind)));
    if let Some((packed, kind)) = decoded
        && packed.packing.is_some()
    {
        let (raw, raw_len) = packed.raw_form(kind);
        (header, len) = (raw.to_vec(), raw_len);
    }
    // The header's own checksum (its last 4 bytes) is left out: a message followed by its own
    // CRC-32 always leaves the same CRC state, which would make the fingerprint blind to the
    // header's contents.
    header.truncate(HEADER_BYTES - 4);
    let mut hasher = crc32fast::Hasher::new();
    hasher.update(&header);
    hasher.update(&len.to_le_bytes());
    hasher.finalize()
}
