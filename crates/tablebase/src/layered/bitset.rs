//! The set of reachable indices of one layer while the forward pass marks it.

use crate::table::Words;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// A set of indices of one layer, one bit each, that threads mark together.
pub struct BitSet {
    bits: u64,
    words: Vec<AtomicU64>,
}

impl BitSet {
    /// An empty set over the index space `0..size`.
    pub fn new(size: u64) -> BitSet {
        // Each zero written here, on every thread: left to a serial collect, the compiler may
        // take the zeros untouched from the system (calloc), and then `insert`'s load before
        // its write faults each page twice (a read maps the shared zero page, the write copies
        // it): 60% more page faults on 6x5 Connect Four.
        let words = (0..size.div_ceil(64)).into_par_iter().map(|_| AtomicU64::new(0)).collect();
        BitSet { bits: size, words }
    }

    /// The number of indices the set can hold.
    pub fn capacity(&self) -> u64 {
        self.bits
    }

    /// Adds `index` (< capacity()).
    #[inline]
    pub fn insert(&self, index: u64) {
        let (word, bit) = (&self.words[(index / 64) as usize], 1 << (index % 64));
        // Most positions are reached many times: a plain load spares the locked write.
        if word.load(Relaxed) & bit == 0 {
            word.fetch_or(bit, Relaxed);
        }
    }

    /// Whether `index` is a member.
    #[inline]
    pub fn contains(&self, index: u64) -> bool {
        self.words[(index / 64) as usize].load(Relaxed) & (1 << (index % 64)) != 0
    }

    /// The number of members.
    pub fn len(&self) -> u64 {
        self.words.par_iter().map(|w| u64::from(w.load(Relaxed).count_ones())).sum()
    }

    /// Whether the set has no members.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl Words for BitSet {
    fn word_count(&self) -> usize {
        self.words.len()
    }

    #[inline]
    fn word(&self, i: usize) -> u64 {
        self.words[i].load(Relaxed)
    }
}

/// Calls `f(state, index)` for every member of `words`, in parallel over chunks of words, in
/// increasing order within a chunk, with a `state` from `init` per chunk; then `done(state,
/// words)` with the number of words of the chunk, for progress.
pub(crate) fn par_for_each_member<S>(
    words: &impl Words,
    init: impl Fn() -> S + Sync,
    f: impl Fn(&mut S, u64) + Sync,
    done: impl Fn(S, u64) + Sync,
) {
    const CHUNK_WORDS: usize = 4096;
    let count = words.word_count();
    (0..count.div_ceil(CHUNK_WORDS)).into_par_iter().for_each(|chunk| {
        let mut state = init();
        let range = chunk * CHUNK_WORDS..((chunk + 1) * CHUNK_WORDS).min(count);
        for w in range.clone() {
            let mut bits = words.word(w);
            while bits != 0 {
                f(&mut state, w as u64 * 64 + u64::from(bits.trailing_zeros()));
                bits &= bits - 1;
            }
        }
        done(state, range.len() as u64);
    });
}
