//! The journals of long proofs: text files of one record a line, appended and synced as each
//! outcome is proved, so that a proof stopped goes on from them on any machine. What a record
//! says is the journal's own ([`super::sogo::ProofJournal`], [`super::parts::PartsJournal`]).

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use crate::table::TableError;

/// What is wrong with a journal.
#[derive(Debug)]
pub enum JournalError {
    /// It cannot be opened, read or written.
    Io {
        /// The file.
        path: PathBuf,
        /// What was being done.
        doing: &'static str,
        /// Why it failed.
        source: std::io::Error,
    },
    /// A line that is not a record of the journal.
    Malformed {
        /// The file.
        path: PathBuf,
        /// The line (1-based).
        line: usize,
    },
    /// A record that says the opposite of an earlier one about the same position: one of
    /// them is wrong, and the journal cannot say which.
    Contradicts {
        /// The file.
        path: PathBuf,
        /// The line (1-based).
        line: usize,
        /// The earlier line it contradicts.
        earlier: usize,
    },
    /// A record that one side wins a position, where an earlier one says the other side does:
    /// both cannot win it, so one of them is wrong.
    BothWin {
        /// The file.
        path: PathBuf,
        /// The line (1-based).
        line: usize,
        /// The earlier line.
        earlier: usize,
    },
    /// The last line has no newline at its end: a record whose writing was cut short (a full
    /// disk, a machine that stopped), or one added by hand without its newline. Either way it
    /// is not taken: a record cut short may read as another whole record (fewer moves, another
    /// position), and the next record would be appended to it.
    Unterminated {
        /// The file.
        path: PathBuf,
        /// The line (1-based).
        line: usize,
    },
}

impl std::fmt::Display for JournalError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (path, what) = self.parts();
        write!(f, "{}: {what}", path.display())
    }
}

impl std::error::Error for JournalError {}

impl JournalError {
    /// The file, and what is wrong with it: one wording for [`Display`](std::fmt::Display) and
    /// [`JournalError::into_table_error`].
    fn parts(&self) -> (&Path, String) {
        match self {
            JournalError::Io { path, doing, source } => (path, format!("{doing}: {source}")),
            JournalError::Malformed { path, line } => (path, format!("line {line} is not a record of a proof journal")),
            JournalError::Contradicts { path, line, earlier } => (
                path,
                format!(
                    "line {line} contradicts line {earlier} (the same position, the other outcome): one of them is wrong"
                ),
            ),
            JournalError::BothWin { path, line, earlier } => (
                path,
                format!(
                    "line {line} says one side wins the position that line {earlier} says the other side wins: one of \
                     them is wrong"
                ),
            ),
            JournalError::Unterminated { path, line } => (
                path,
                format!(
                    "line {line}, the last, has no newline at its end (a record cut short?): end it with a newline if \
                     it is whole, or delete it"
                ),
            ),
        }
    }

    /// The same error as one of a table directory's files, with `what` said of the file: for
    /// the checks a generation makes before it starts, which report [`TableError`]s.
    pub(super) fn into_table_error(self, what: &str) -> TableError {
        let kind = match &self {
            JournalError::Io { source, .. } => source.kind(),
            _ => std::io::ErrorKind::InvalidData,
        };
        let (path, message) = self.parts();
        TableError::Io { path: path.to_path_buf(), source: std::io::Error::new(kind, format!("{message} ({what})")) }
    }
}

/// The longest line a journal may hold, newline apart: some ten times its longest record (a
/// proof by parts' 64 moves, 4 bytes each).
const MOST_LINE_BYTES: usize = 4096;

/// A journal's file, opened to append when it is first needed.
pub(super) struct JournalFile {
    path: PathBuf,
    /// `None` until the first record, or until [`JournalFile::check_appendable`], where the
    /// journal is made at its first record (see [`Creation`]).
    file: Mutex<Option<File>>,
    /// Opened with [`Creation::Never`]: no record is ever written.
    read_only: bool,
}

/// When a journal that is not there yet is made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Creation {
    /// At once, so that a path that cannot be written is refused before the proof starts
    /// (`bench cube-prove --journal FILE`, a file the user named).
    Now,
    /// At its first record: `plan` writes nothing, and `generate` has made its directory by then.
    /// One that is there is only read until then, so that `plan` works in a directory it may
    /// not write; `generate` asks [`JournalFile::check_appendable`] before its first proof.
    AtFirstRecord,
    /// Never: the journal is only read (`probe` answers from it), and a last line without its
    /// newline is a record that a proof beside is writing at this moment, left out rather than
    /// refused (a writer would append to it, so a proof refuses it).
    Never,
}

impl JournalFile {
    /// Opens the journal at `path` (never through a link; made when `creation` says where it is
    /// missing) and reads its records, each with its line (1-based): `parse` is given each line
    /// that is not blank, and a line it refuses is an error naming the file and the line.
    pub(super) fn open<T>(
        path: &Path,
        creation: Creation,
        mut parse: impl FnMut(&str) -> Option<T>,
    ) -> Result<(JournalFile, Vec<(usize, T)>), JournalError> {
        let io = |doing| move |source| JournalError::Io { path: path.to_path_buf(), doing, source };
        // symlink_metadata, not exists: a dangling link is there, and refused by the open.
        if creation != Creation::Now && std::fs::symlink_metadata(path).is_err() {
            let read_only = creation == Creation::Never;
            return Ok((JournalFile { path: path.to_path_buf(), file: Mutex::new(None), read_only }, Vec::new()));
        }
        let file = match creation {
            Creation::Now => Some(open_to_append(path).map_err(io("cannot open it to append"))?),
            Creation::AtFirstRecord => {
                crate::table::refuse_link(path).map_err(io("cannot open it to append"))?;
                None
            }
            Creation::Never => {
                crate::table::refuse_link(path).map_err(io("cannot read it"))?;
                None
            }
        };
        let mut reader = BufReader::new(crate::table::open_to_read(path).map_err(io("cannot read it"))?);
        let mut records = Vec::new();
        let mut line = Vec::new();
        for number in 1.. {
            line.clear();
            let malformed = || JournalError::Malformed { path: path.to_path_buf(), line: number };
            // No more than a record can hold: a file of one endless line (zeros, a hand's
            // mistake) is refused at its first line, not read into memory whole.
            let mut limited = (&mut reader).take(MOST_LINE_BYTES as u64 + 1);
            if limited.read_until(b'\n', &mut line).map_err(io("cannot read it"))? == 0 {
                break;
            }
            if line.pop() != Some(b'\n') {
                if creation == Creation::Never && line.len() < MOST_LINE_BYTES {
                    break;
                }
                return Err(match line.len() >= MOST_LINE_BYTES {
                    true => malformed(),
                    false => JournalError::Unterminated { path: path.to_path_buf(), line: number },
                });
            }
            let text = std::str::from_utf8(&line).map_err(|_| malformed())?;
            if !text.trim().is_empty() {
                records.push((number, parse(text).ok_or_else(malformed)?));
            }
        }
        let read_only = creation == Creation::Never;
        Ok((JournalFile { path: path.to_path_buf(), file: Mutex::new(file), read_only }, records))
    }

    /// Whether a record could be appended now: the journal, where it is there, opened to append
    /// (and kept open for the records); one not there yet is made at its first record.
    pub(super) fn check_appendable(&self) -> Result<(), JournalError> {
        let mut file = self.file.lock().unwrap_or_else(PoisonError::into_inner);
        if std::fs::symlink_metadata(&self.path).is_ok() {
            self.appending(&mut file)?;
        }
        Ok(())
    }

    /// The file.
    pub(super) fn path(&self) -> &Path {
        &self.path
    }

    /// The records of `open` as a map from `key` to outcome, a record that contradicts an
    /// earlier one (the same key, the other outcome) refused; a record repeated is one.
    pub(super) fn outcomes<T, K: std::hash::Hash + Eq>(
        &self,
        records: Vec<(usize, T)>,
        mut key: impl FnMut(&T) -> K,
        wins: impl Fn(&T) -> bool,
    ) -> Result<HashMap<K, bool>, JournalError> {
        let mut outcomes: HashMap<K, (bool, usize)> = HashMap::with_capacity(records.len());
        for (line, record) in records {
            let (outcome, first) = *outcomes.entry(key(&record)).or_insert((wins(&record), line));
            if outcome != wins(&record) {
                return Err(JournalError::Contradicts { path: self.path.clone(), line, earlier: first });
            }
        }
        Ok(outcomes.into_iter().map(|(key, (wins, _))| (key, wins)).collect())
    }

    /// Appends `line` (a record and its newline), synced before it counts. A record that cannot
    /// be written whole (a full disk) is cut off again, so that the journal stays readable.
    pub(super) fn append(&self, line: &str) -> Result<(), JournalError> {
        let mut file = self.file.lock().unwrap_or_else(PoisonError::into_inner);
        let file = self.appending(&mut file)?;
        let before = file.metadata().map_err(self.error("cannot append a record"))?.len();
        if let Err(source) = file.write_all(line.as_bytes()) {
            let _ = file.set_len(before);
            return Err(self.error("cannot append a record")(source));
        }
        file.sync_data().map_err(self.error("cannot sync it"))
    }

    /// The file open to append: opened now (made where it is missing) if it is not yet.
    fn appending<'a>(&self, file: &'a mut Option<File>) -> Result<&'a mut File, JournalError> {
        if self.read_only {
            let refused = std::io::Error::new(std::io::ErrorKind::PermissionDenied, "opened only to be read");
            return Err(self.error("cannot append a record")(refused));
        }
        match file {
            Some(file) => Ok(file),
            None => Ok(file.insert(open_to_append(&self.path).map_err(self.error("cannot open it to append"))?)),
        }
    }

    /// The error of `doing` something to this journal.
    fn error(&self, doing: &'static str) -> impl FnOnce(std::io::Error) -> JournalError + '_ {
        move |source| JournalError::Io { path: self.path.clone(), doing, source }
    }
}

/// The file at `path` opened to append (and read), made if missing, never through a link.
fn open_to_append(path: &Path) -> std::io::Result<File> {
    crate::table::open_to_write(OpenOptions::new().create(true).append(true).read(true), path)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A line longer than any record is refused as no record at once, where it ends in a newline
    /// or not, and however long the file (an 8 GB file of zeros, sparse, is not read whole).
    #[test]
    fn a_line_too_long_for_a_record_is_refused_without_reading_it_whole() {
        let scratch = tempfile::tempdir().unwrap();
        let path = scratch.path().join("long.journal");
        let parse = |text: &str| (!text.is_empty()).then_some(());
        let opened = |path: &Path| JournalFile::open(path, Creation::AtFirstRecord, parse).map(|(_, r)| r.len());
        std::fs::write(&path, "a record\n".repeat(3)).unwrap();
        assert_eq!(opened(&path).unwrap(), 3);
        let longest = format!("{}\n", "x".repeat(MOST_LINE_BYTES));
        std::fs::write(&path, &longest).unwrap();
        assert_eq!(opened(&path).unwrap(), 1, "a line of the longest length is read");
        std::fs::write(&path, format!("a record\n{}x\n", &longest[..MOST_LINE_BYTES])).unwrap();
        assert!(matches!(opened(&path), Err(JournalError::Malformed { line: 2, .. })));
        std::fs::write(&path, "a record\nno newline").unwrap();
        assert!(matches!(opened(&path), Err(JournalError::Unterminated { line: 2, .. })));
        let zeros = std::fs::File::create(&path).unwrap();
        zeros.set_len(8 << 30).unwrap();
        assert!(matches!(opened(&path), Err(JournalError::Malformed { line: 1, .. })));
    }
}
