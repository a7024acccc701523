//! Small compressed files decoded whole once probing has read them often.
//!
//! A compressed table answers a read by decoding its block up to the entry, and a batch of
//! positions reads the same small tables millions of times: 100,000 Morris 3:3 positions with
//! every move's value spent 40% of their time there, for a table of 170,000 entries. Decoded
//! whole, a read is an index into memory. Decoding costs about what a hundred reads of blocks
//! cost a kilobyte, so a file is decoded once it has been read that often: a batch pays it
//! early, a single position never. What the decoded files hold is bounded, per file and in all,
//! so that a server that has read every table of a game does not hold them all.

use super::blocks::CheckedMap;
use super::error::TableError;
use super::scratch::Decoded;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};

/// The decoded bodies of the files opened for probing in this process.
static PROBING: Budget = Budget::new(16 << 20, 256 << 20);

/// Reads block by block that cost about what decoding one byte of a body does.
const BYTES_A_READ: u64 = 128;

/// Memory for decoded bodies: at most `file_at_most` bytes a file (decoding that takes some
/// milliseconds), and `in_all` bytes held at once.
pub(crate) struct Budget {
    file_at_most: u64,
    in_all: u64,
    held: AtomicU64,
}

impl Budget {
    const fn new(file_at_most: u64, in_all: u64) -> Budget {
        Budget { file_at_most, in_all, held: AtomicU64::new(0) }
    }

    /// A share of `bytes` where the memory is there; `None` otherwise, and the file is read
    /// block by block.
    fn take(&'static self, bytes: u64) -> Option<Share> {
        if bytes > self.file_at_most {
            return None;
        }
        self.held
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |held| {
                (held + bytes <= self.in_all).then_some(held + bytes)
            })
            .ok()
            .map(|_| Share { budget: self, bytes })
    }
}

/// The memory a file decoded whole holds, given back when the file is dropped.
struct Share {
    budget: &'static Budget,
    bytes: u64,
}

impl Drop for Share {
    fn drop(&mut self) {
        self.budget.held.fetch_sub(self.bytes, Ordering::AcqRel);
    }
}

/// A compressed file opened for probing, small enough to be decoded whole once it has been read
/// often enough.
pub(crate) struct ReadOften {
    budget: &'static Budget,
    /// The decoded body's length.
    bytes: u64,
    /// Reads block by block still to go before the file is decoded whole; at zero or below,
    /// nothing more is counted.
    reads_left: AtomicI64,
    share: OnceLock<Share>,
    /// Set where decoding whole found damage that no block's checksum shows.
    refused: AtomicBool,
}

impl std::fmt::Debug for ReadOften {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReadOften").field("bytes", &self.bytes).finish_non_exhaustive()
    }
}

impl ReadOften {
    /// For a file whose decoded body is `bytes` long; `None` where it is too long ever to be
    /// decoded for probing.
    pub(crate) fn for_probing(bytes: u64) -> Option<ReadOften> {
        ReadOften::within(&PROBING, bytes)
    }

    fn within(budget: &'static Budget, bytes: u64) -> Option<ReadOften> {
        (bytes <= budget.file_at_most).then(|| ReadOften {
            budget,
            bytes,
            reads_left: AtomicI64::new((bytes / BYTES_A_READ).max(1) as i64),
            share: OnceLock::new(),
            refused: AtomicBool::new(false),
        })
    }

    /// Counts one read block by block; true for the one read after which the file is to be
    /// decoded whole. Once that read has come, a relaxed load a read.
    #[inline]
    fn counted(&self) -> bool {
        self.reads_left.load(Ordering::Relaxed) > 0 && self.reads_left.fetch_sub(1, Ordering::Relaxed) == 1
    }

    /// Before a read block by block: an error (`refused`) once the file has been refused, and on
    /// the read that makes it read often enough, the file decoded whole where the budget has
    /// room: every block of `data` checked against `checksum`, then `decode`, and `keep` given
    /// the body (false where another thread kept one first). A file with a failing block, or
    /// no memory for its body, goes on block by block; one that `decode` finds damaged beneath
    /// its blocks' checksums is refused from then on. Tried once: a file that found the budget
    /// spent is read block by block for good.
    #[inline]
    pub(crate) fn before_read(
        &self,
        data: &CheckedMap,
        checksum: u32,
        refused: impl FnOnce() -> TableError,
        decode: impl FnOnce() -> Result<Decoded, TableError>,
        keep: impl FnOnce(Decoded) -> bool,
    ) -> Result<(), TableError> {
        if self.refused() {
            return Err(refused());
        }
        if self.counted() {
            self.decode_whole(|| {
                if data.check_all(checksum).is_err() {
                    return Ok(false);
                }
                match decode() {
                    Ok(body) => Ok(keep(body)),
                    Err(e) if !e.is_damage() => Ok(false),
                    Err(e) => Err(e),
                }
            })?;
        }
        Ok(())
    }

    /// Runs `decode` with a share of the budget, kept where it gives true; an error refuses the
    /// file.
    #[cold]
    fn decode_whole(&self, decode: impl FnOnce() -> Result<bool, TableError>) -> Result<(), TableError> {
        let Some(share) = self.budget.take(self.bytes) else { return Ok(()) };
        match decode() {
            Ok(true) => {
                let _ = self.share.set(share);
                Ok(())
            }
            Ok(false) => Ok(()),
            Err(e) => {
                self.refused.store(true, Ordering::Release);
                Err(e)
            }
        }
    }

    /// Whether decoding whole found damage that no block's checksum shows.
    #[inline]
    fn refused(&self) -> bool {
        self.refused.load(Ordering::Acquire)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_are_decoded_within_a_bound_each_and_in_all_and_give_it_back_when_dropped() {
        static BUDGET: Budget = Budget::new(100, 250);
        assert!(BUDGET.take(101).is_none(), "too big for one file");
        let first = BUDGET.take(100).expect("one file's worth");
        let second = BUDGET.take(100).expect("two");
        assert!(BUDGET.take(51).is_none(), "past the bound in all");
        let third = BUDGET.take(50).expect("up to the bound");
        assert_eq!(BUDGET.held.load(Ordering::Acquire), 250);
        drop(second);
        assert_eq!(BUDGET.held.load(Ordering::Acquire), 150);
        let fourth = BUDGET.take(100).expect("given back");
        drop((first, third, fourth));
        assert_eq!(BUDGET.held.load(Ordering::Acquire), 0);
    }

    #[test]
    fn a_file_is_decoded_after_a_read_a_hundred_and_twenty_eight_bytes_and_once() {
        static BUDGET: Budget = Budget::new(1 << 20, 1 << 20);
        assert!(ReadOften::within(&BUDGET, (1 << 20) + 1).is_none(), "too big ever to decode");
        let often = ReadOften::within(&BUDGET, 128 * 1000).unwrap();
        let due: Vec<usize> = (0..5000).filter(|_| often.counted()).collect();
        assert_eq!(due, [999], "due at the thousandth read, and only then");
        often.decode_whole(|| Ok(true)).unwrap();
        assert_eq!(BUDGET.held.load(Ordering::Acquire), 128 * 1000);
        // A file with a failing block keeps no memory; one damaged beneath its checksums is
        // refused from then on.
        let failing = ReadOften::within(&BUDGET, 1000).unwrap();
        failing.decode_whole(|| Ok(false)).unwrap();
        assert_eq!(BUDGET.held.load(Ordering::Acquire), 128 * 1000);
        let damaged = ReadOften::within(&BUDGET, 1000).unwrap();
        let damage = || Err(TableError::Entry { path: "t.tbl".into(), index: 7 });
        assert!(damaged.decode_whole(damage).is_err() && damaged.refused() && !often.refused());
        assert_eq!(BUDGET.held.load(Ordering::Acquire), 128 * 1000);
        drop(often);
        assert_eq!(BUDGET.held.load(Ordering::Acquire), 0);
    }
}
