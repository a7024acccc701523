//! A dense index of the Connect Four positions with `n` stones (one ply), and the forward pass
//! that marks the reachable ones.
//!
//! A position with `n` stones is its column heights (summing to `n`) and which of its `n`
//! stones, taken column by column from the bottom, belong to the first player (`ceil(n / 2)` of
//! them). The index is the rank of the heights among all height vectors with that sum, times
//! the number of colourings, plus the colex rank of the colouring. Mirror images share an index
//! through the smaller of the two.

use super::board::{Geometry, Position};
use crate::progress::Progress;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

const fn binomials() -> [[u64; 65]; 65] {
    let mut c = [[0u64; 65]; 65];
    let mut n = 0;
    while n <= 64 {
        c[n][0] = 1;
        let mut k = 1;
        while k <= n {
            c[n][k] = c[n - 1][k - 1].saturating_add(if k < n { c[n - 1][k] } else { 0 });
            k += 1;
        }
        n += 1;
    }
    c
}

/// `BINOMIAL[n][k]`, saturating where it exceeds u64 (not reached on boards of 64 cells).
static BINOMIAL: [[u64; 65]; 65] = binomials();

/// The positions of one ply of one board.
#[derive(Clone, Debug)]
pub struct PlyIndex {
    geometry: Geometry,
    ply: u32,
    /// Stones of the first player at this ply.
    first: u32,
    colourings: u64,
    /// `ways[k][s]`: height vectors of `k` columns summing to `s`.
    ways: Vec<Vec<u64>>,
    /// `below[k][s][h]`: the sum of `ways[k][s - v]` over `v < h`, the rank offset of a column
    /// of height `h` followed by `k` columns holding `s - h` stones.
    below: Vec<Vec<Vec<u64>>>,
}

impl PlyIndex {
    pub fn new(geometry: Geometry, ply: u32) -> PlyIndex {
        assert!(ply <= geometry.cells());
        let (w, h) = (geometry.width as usize, geometry.height as usize);
        let cells = geometry.cells() as usize;
        let mut ways = vec![vec![0u64; cells + 1]; w + 1];
        ways[0][0] = 1;
        for k in 1..=w {
            for s in 0..=cells {
                ways[k][s] = (0..=h.min(s)).map(|v| ways[k - 1][s - v]).sum();
            }
        }
        let below = (0..=w)
            .map(|k| {
                (0..=cells)
                    .map(|s| {
                        let mut sums = vec![0u64; h + 2];
                        for v in 0..=h {
                            sums[v + 1] = sums[v] + if v <= s { ways[k][s - v] } else { 0 };
                        }
                        sums
                    })
                    .collect()
            })
            .collect();
        let first = ply.div_ceil(2);
        PlyIndex { geometry, ply, first, colourings: BINOMIAL[ply as usize][first as usize], ways, below }
    }

    pub fn ply(&self) -> u32 {
        self.ply
    }

    /// The size of the index space: every arrangement of `ply` stones in columns, coloured
    /// with the right number of each, reachable or not.
    pub fn size(&self) -> u64 {
        self.ways[self.geometry.width as usize][self.ply as usize] * self.colourings
    }

    /// The index of a position of this ply (not of its mirror image).
    #[inline]
    pub fn index(&self, position: &Position) -> u64 {
        let g = &self.geometry;
        let stride = g.height + 1;
        let first = position.first_player();
        let (mut heights_rank, mut remaining) = (0u64, self.ply as usize);
        let (mut colour_rank, mut order, mut seen_first) = (0u64, 0usize, 0usize);
        for c in 0..g.width {
            let column = (position.mask >> (c * stride)) & ((1 << g.height) - 1);
            let height = column.count_ones() as usize;
            heights_rank += self.below[(g.width - 1 - c) as usize][remaining][height];
            remaining -= height;
            let mut mine = (first >> (c * stride)) & column;
            while mine != 0 {
                let row = mine.trailing_zeros() as usize;
                seen_first += 1;
                colour_rank += BINOMIAL[order + row][seen_first];
                mine &= mine - 1;
            }
            order += height;
        }
        heights_rank * self.colourings + colour_rank
    }

    /// The index shared by a position and its mirror image: the smaller of the two.
    #[inline]
    pub fn canonical_index(&self, position: &Position) -> u64 {
        self.index(position).min(self.index(&position.mirror(&self.geometry)))
    }

    /// The position with index `index` (< size()).
    pub fn position(&self, index: u64) -> Position {
        let g = &self.geometry;
        let stride = g.height + 1;
        let (mut heights_rank, mut colour_rank) = (index / self.colourings, index % self.colourings);
        let mut heights = [0u32; 64];
        let mut remaining = self.ply as usize;
        for c in 0..g.width as usize {
            let rest = &self.ways[g.width as usize - 1 - c];
            let mut v = 0;
            while heights_rank >= rest[remaining - v] {
                heights_rank -= rest[remaining - v];
                v += 1;
            }
            heights[c] = v as u32;
            remaining -= v;
        }
        // Colex unranking: the largest order position first.
        let mut is_first = [false; 64];
        let mut candidate = self.ply as usize;
        for t in (1..=self.first as usize).rev() {
            candidate -= 1;
            while BINOMIAL[candidate][t] > colour_rank {
                candidate -= 1;
            }
            colour_rank -= BINOMIAL[candidate][t];
            is_first[candidate] = true;
        }
        let (mut mask, mut first, mut order) = (0u64, 0u64, 0usize);
        for c in 0..g.width {
            for row in 0..heights[c as usize] {
                let bit = 1u64 << (c * stride + row);
                mask |= bit;
                if is_first[order] {
                    first |= bit;
                }
                order += 1;
            }
        }
        let current = if self.ply.is_multiple_of(2) { first } else { mask ^ first };
        Position { current, mask, ply: self.ply }
    }
}

/// A set of indices of one ply, one bit each.
pub struct BitSet {
    bits: u64,
    words: Vec<AtomicU64>,
}

impl BitSet {
    pub fn new(size: u64) -> BitSet {
        BitSet { bits: size, words: (0..size.div_ceil(64)).map(|_| AtomicU64::new(0)).collect() }
    }

    /// The number of indices the set can hold.
    pub fn capacity(&self) -> u64 {
        self.bits
    }

    /// A copy of the words: bit `i % 64` of word `i / 64` is index `i`.
    pub fn words(&self) -> Vec<u64> {
        self.words.iter().map(|w| w.load(Relaxed)).collect()
    }

    #[inline]
    pub fn insert(&self, index: u64) {
        self.words[(index / 64) as usize].fetch_or(1 << (index % 64), Relaxed);
    }

    #[inline]
    pub fn contains(&self, index: u64) -> bool {
        self.words[(index / 64) as usize].load(Relaxed) & (1 << (index % 64)) != 0
    }

    pub fn len(&self) -> u64 {
        self.words.par_iter().map(|w| u64::from(w.load(Relaxed).count_ones())).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Calls `f(index)` for every member, in parallel over chunks of words; `done(words)` after
    /// each chunk, for progress.
    pub fn par_for_each(&self, f: impl Fn(u64) + Sync, done: impl Fn(u64) + Sync) {
        const CHUNK_WORDS: usize = 4096;
        self.words.par_chunks(CHUNK_WORDS).enumerate().for_each(|(chunk, words)| {
            for (k, word) in words.iter().enumerate() {
                let w = (chunk * CHUNK_WORDS + k) as u64;
                let mut bits = word.load(Relaxed);
                while bits != 0 {
                    f(w * 64 + u64::from(bits.trailing_zeros()));
                    bits &= bits - 1;
                }
            }
            done(words.len() as u64);
        });
    }

    /// The number of words, the unit of [`BitSet::par_for_each`]'s progress.
    pub fn word_count(&self) -> u64 {
        self.words.len() as u64
    }
}

/// Per ply: the reachable positions (canonical indices), and how many positions they stand for
/// with mirror images counted separately.
pub struct Reachable {
    pub plies: Vec<(PlyIndex, BitSet)>,
    pub counts: Vec<u64>,
}

/// The forward pass: marks the positions reachable in play (the game stops at four in a row)
/// from the empty board, ply by ply, up to `last_ply` (at most the number of cells).
pub fn reachable(geometry: Geometry, last_ply: u32, progress: &Progress) -> Reachable {
    let last_ply = last_ply.min(geometry.cells());
    let mut plies: Vec<(PlyIndex, BitSet)> = Vec::new();
    let mut counts = Vec::new();
    let first = PlyIndex::new(geometry, 0);
    let empty = BitSet::new(first.size());
    empty.insert(first.canonical_index(&Position::EMPTY));
    plies.push((first, empty));
    for ply in 0..=last_ply {
        let (index, set) = plies.last().expect("ply");
        let with_mirrors = AtomicU64::new(0);
        let next = (ply < last_ply).then(|| {
            let next_index = PlyIndex::new(geometry, ply + 1);
            let next_set = BitSet::new(next_index.size());
            (next_index, next_set)
        });
        progress.step(&format!("forward ply {ply}"), set.word_count());
        set.par_for_each(
            |i| {
                let position = index.position(i);
                let symmetric = position.mirror(&geometry) == position;
                with_mirrors.fetch_add(if symmetric { 1 } else { 2 }, Relaxed);
                if let Some((next_index, next_set)) = &next {
                    position.for_each_move(&geometry, |_, child| {
                        next_set.insert(next_index.canonical_index(&child))
                    });
                }
            },
            |words| progress.advance(words),
        );
        counts.push(with_mirrors.into_inner());
        if let Some(next) = next {
            plies.push(next);
        }
    }
    Reachable { plies, counts }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_round_trips_over_a_whole_ply() {
        let g = Geometry::new(5, 4).unwrap();
        for ply in [0, 1, 7, 12, 20] {
            let index = PlyIndex::new(g, ply);
            for i in 0..index.size() {
                let p = index.position(i);
                assert_eq!(p.mask.count_ones(), ply);
                assert_eq!(index.index(&p), i, "ply {ply}");
            }
        }
    }
}
