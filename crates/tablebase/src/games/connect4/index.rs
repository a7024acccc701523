//! A dense index of the Connect Four positions with `n` stones (one ply).
//!
//! A column is coded as `(1 << h) | f`, its height `h` and the first player's stones `f` among
//! its `h` (Tromp's key, one column at a time); every code in `1..2^(H+1)` is a column. A
//! position of ply `n` has `k = ceil(n / 2)` stones of the first player, and its index is its
//! rank, lexicographic by column codes from the left, among all arrangements of `n` stones, `k`
//! of them the first player's, in `W` columns of at most `H` (reachable or not). That rank is a
//! sum of one term per column, `offset(c, n_c, k_c, code_c)`, where `n_c` and `k_c` count the
//! stones in columns `c..W`: the arrangements that agree left of `c` and have a smaller code in
//! `c`. A sum makes moves cheap: a stone dropped in column `c` changes the terms of columns
//! `0..=c` only (their counts grow by one), so prefix and suffix sums give the index of every
//! child, and of every child's mirror image, from a few table lookups per column. Ranks of
//! consecutive indices share their leading columns, so a sequential walk unranks only the
//! columns that changed. Mirror images share an index through the smaller of the two.

use super::board::{Geometry, Position};
use std::sync::{Arc, Mutex};

/// The widest board: `W * (H + 1) <= 64` with `H >= 4`.
pub const MAX_WIDTH: usize = 12;

/// Above this many entries the offset table is not built and offsets are computed per lookup
/// (boards of 9 rows or more, far beyond what can be solved, but still valid to probe and list).
const MAX_TABLE_ENTRIES: usize = 1 << 22;

use crate::combinations::BINOMIAL;

#[inline]
fn code_height(code: u32) -> u32 {
    31 - code.leading_zeros()
}

#[inline]
fn code_first(code: u32) -> u32 {
    code.count_ones() - 1
}

/// The counting tables of one board, shared by its plies.
struct Ranks {
    cells: usize,
    /// Values of `k`: `0..=ceil(cells / 2)`.
    ks: usize,
    /// `1 << (height + 1)`: column codes are `1..codes`.
    codes: usize,
    /// `fills[slot(c, n, k)]` for `c` in `0..=W`: arrangements of `n` stones, `k` of them the
    /// first player's, in columns `c..W`.
    fills: Vec<u64>,
    /// `offsets[row(c, n, k) + code]`: the term of column `c` (empty when too large).
    offsets: Vec<u64>,
}

/// How far apart the rows of [`Ranks::offsets`] are for one more column, one more stone and one
/// more stone of the first player: moves change rows by sums of these.
#[derive(Clone, Copy)]
struct Strides {
    column: usize,
    stone: usize,
    first: usize,
}

impl Ranks {
    fn new(g: Geometry) -> Ranks {
        let (width, height, cells) = (g.width as usize, g.height as usize, g.cells() as usize);
        let ks = cells.div_ceil(2) + 1;
        let codes = 1usize << (height + 1);
        let mut ranks = Ranks { cells, ks, codes, fills: Vec::new(), offsets: Vec::new() };
        ranks.fills = vec![0; (width + 1) * (cells + 1) * ks];
        let last = ranks.slot(width, 0, 0);
        ranks.fills[last] = 1;
        for c in (0..width).rev() {
            for n in 0..=cells {
                for k in 0..ks.min(n + 1) {
                    let mut total = 0u64;
                    for h in 0..=height.min(n) {
                        for j in 0..=h.min(k) {
                            total += BINOMIAL[h][j] * ranks.fill(c + 1, n - h, k - j);
                        }
                    }
                    let slot = ranks.slot(c, n, k);
                    ranks.fills[slot] = total;
                }
            }
        }
        let entries = width * (cells + 1) * ks * codes;
        if entries <= MAX_TABLE_ENTRIES {
            let mut offsets = vec![0u64; entries];
            for c in 0..width {
                for n in 0..=cells {
                    for k in 0..ks {
                        let base = ranks.slot(c, n, k) * codes;
                        for code in 1..codes {
                            offsets[base + code] = ranks.term(c, n, k, code as u32);
                        }
                    }
                }
            }
            ranks.offsets = offsets;
        }
        ranks
    }

    #[inline]
    fn slot(&self, column: usize, n: usize, k: usize) -> usize {
        (column * (self.cells + 1) + n) * self.ks + k
    }

    /// `fills` for columns `column..W`, zero where the counts are out of range.
    #[inline]
    fn fill(&self, column: usize, n: usize, k: usize) -> u64 {
        if n > self.cells || k >= self.ks { 0 } else { self.fills[self.slot(column, n, k)] }
    }

    /// The arrangements of columns `column..W` (`n` stones, `k` the first player's) whose code in
    /// `column` is below `code`: every column of smaller height, then those of the same height
    /// whose first-player bits are a smaller number (below each set bit of `code`'s, any bits).
    fn term(&self, column: usize, n: usize, k: usize, code: u32) -> u64 {
        let h = code_height(code) as usize;
        let mut total = 0u64;
        for lower in 0..h.min(n + 1) {
            for j in 0..=lower.min(k) {
                total += BINOMIAL[lower][j] * self.fill(column + 1, n - lower, k - j);
            }
        }
        if h > n {
            return total;
        }
        let first = code & ((1 << h) - 1);
        let mut above = 0usize;
        for bit in (0..h).rev() {
            if first & (1 << bit) == 0 {
                continue;
            }
            // Codes equal above `bit`, 0 at `bit` and anything below it.
            for j in 0..=bit {
                if above + j <= k {
                    total += BINOMIAL[bit][j] * self.fill(column + 1, n - h, k - above - j);
                }
            }
            above += 1;
        }
        total
    }

    fn strides(&self) -> Strides {
        Strides {
            column: (self.cells + 1) * self.ks * self.codes,
            stone: self.ks * self.codes,
            first: self.codes,
        }
    }

    /// Where the offsets of column `column` with counts `n`, `k` start.
    #[inline]
    fn row(&self, column: usize, n: u32, k: u32) -> usize {
        self.slot(column, n as usize, k as usize) * self.codes
    }

    /// The term of `code` in the column and counts of `row`.
    #[inline]
    fn at(&self, row: usize, code: u32) -> u64 {
        if self.offsets.is_empty() {
            let slot = row / self.codes;
            let (column, rest) = (slot / ((self.cells + 1) * self.ks), slot % ((self.cells + 1) * self.ks));
            self.term(column, rest / self.ks, rest % self.ks, code)
        } else {
            self.offsets[row + code as usize]
        }
    }
}

/// One `Ranks` per board, built on first use.
fn ranks_of(g: Geometry) -> Arc<Ranks> {
    static BUILT: Mutex<Vec<(Geometry, Arc<Ranks>)>> = Mutex::new(Vec::new());
    let mut built = BUILT.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some((_, ranks)) = built.iter().find(|(board, _)| *board == g) {
        return Arc::clone(ranks);
    }
    let ranks = Arc::new(Ranks::new(g));
    built.push((g, Arc::clone(&ranks)));
    ranks
}

/// The positions of one ply of one board.
#[derive(Clone)]
#[cfg_attr(not(feature = "internals"), allow(unnameable_types, reason = "reached only as a part of the catalogue a game gives, through its traits"))]
pub struct PlyIndex {
    geometry: Geometry,
    ply: u32,
    /// Stones of the first player at this ply.
    first: u32,
    bottom_row: u64,
    ranks: Arc<Ranks>,
    strides: Strides,
    /// The row of column 0 with this ply's counts.
    first_row: usize,
}

impl std::fmt::Debug for PlyIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PlyIndex").finish_non_exhaustive()
    }
}

/// The column codes of a position, left to right.
type Codes = [u32; MAX_WIDTH];

/// Where `PlyIndex::seek` left off: the codes of the last position, and for each column the
/// sum of the terms left of it, its stone counts, and the end of the indices that share the
/// columns up to it.
#[derive(Debug, Clone)]
#[cfg_attr(not(feature = "internals"), allow(unnameable_types, reason = "reached only as a part of the catalogue a game gives, through its traits"))]
pub struct Walker {
    /// Columns whose state below is valid (0: none).
    valid: usize,
    codes: Codes,
    base: [u64; MAX_WIDTH + 1],
    end: [u64; MAX_WIDTH],
    stones: [u32; MAX_WIDTH + 1],
    firsts: [u32; MAX_WIDTH + 1],
}

impl Default for Walker {
    fn default() -> Walker {
        Walker {
            valid: 0,
            codes: [0; MAX_WIDTH],
            base: [0; MAX_WIDTH + 1],
            end: [0; MAX_WIDTH],
            stones: [0; MAX_WIDTH + 1],
            firsts: [0; MAX_WIDTH + 1],
        }
    }
}

impl PlyIndex {
    /// The index of ply `ply` of board `geometry` (at most `geometry.cells()`).
    pub fn new(geometry: Geometry, ply: u32) -> PlyIndex {
        assert!(ply <= geometry.cells());
        let (first, bottom_row) = (ply.div_ceil(2), geometry.bottom_row());
        let ranks = ranks_of(geometry);
        let (strides, first_row) = (ranks.strides(), ranks.row(0, ply, first));
        PlyIndex { geometry, ply, first, bottom_row, ranks, strides, first_row }
    }

    /// The ply: stones on the board.
    pub fn ply(&self) -> u32 {
        self.ply
    }

    /// The size of the index space: every arrangement of `ply` stones in columns, coloured
    /// with the right number of each, reachable or not.
    pub fn size(&self) -> u64 {
        self.ranks.fill(0, self.ply as usize, self.first as usize)
    }

    /// The column codes of a position.
    #[inline]
    fn codes(&self, position: &Position) -> Codes {
        let g = &self.geometry;
        let key = position.first_player() + position.mask + self.bottom_row;
        let stride = g.height + 1;
        let mut codes = [0; MAX_WIDTH];
        for c in 0..g.width as usize {
            codes[c] = ((key >> (c as u32 * stride)) & ((1 << stride) - 1)) as u32;
        }
        codes
    }

    /// The indices of a position and of its mirror image.
    #[inline]
    pub(crate) fn index_and_mirror(&self, position: &Position) -> (u64, u64) {
        let codes = self.codes(position);
        let w = self.geometry.width as usize;
        let step = self.strides;
        let (mut index, mut mirror) = (0u64, 0u64);
        let (mut row, mut mirror_row) = (self.first_row, self.first_row);
        for c in 0..w {
            let (code, mirror_code) = (codes[c], codes[w - 1 - c]);
            index += self.ranks.at(row, code);
            mirror += self.ranks.at(mirror_row, mirror_code);
            row += step.column
                - code_height(code) as usize * step.stone
                - code_first(code) as usize * step.first;
            mirror_row += step.column
                - code_height(mirror_code) as usize * step.stone
                - code_first(mirror_code) as usize * step.first;
        }
        (index, mirror)
    }

    /// The index of a position of this ply (not of its mirror image).
    #[inline]
    pub fn index(&self, position: &Position) -> u64 {
        self.index_and_mirror(position).0
    }

    /// The index shared by a position and its mirror image: the smaller of the two.
    #[inline]
    pub fn canonical_index(&self, position: &Position) -> u64 {
        let (index, mirror) = self.index_and_mirror(position);
        index.min(mirror)
    }

    /// The index, in the next ply, after a stone in each column that has room, for one
    /// orientation of the columns: `children[c]` for column `c`; returns the columns (bits).
    #[inline]
    fn children_of_codes(&self, codes: &Codes, children: &mut [u64; MAX_WIDTH]) -> u32 {
        if self.ply == self.geometry.cells() {
            return 0;
        }
        let w = self.geometry.width as usize;
        let height = self.geometry.height;
        let step = self.strides;
        // The stone dropped is the first player's at even plies: code + (2 << h), else + (1 << h).
        let first_moves = u32::from(self.ply.is_multiple_of(2));
        // The row of a column once it and the columns right of it hold one more stone.
        let grow = step.stone + first_moves as usize * step.first;
        let mut terms = [0u64; MAX_WIDTH];
        let mut rows = [0usize; MAX_WIDTH];
        let (mut row, mut total) = (self.first_row, 0u64);
        for c in 0..w {
            let code = codes[c];
            terms[c] = self.ranks.at(row, code);
            rows[c] = row;
            total += terms[c];
            row += step.column
                - code_height(code) as usize * step.stone
                - code_first(code) as usize * step.first;
        }
        let (mut left_grown, mut left) = (0u64, 0u64);
        let mut playable = 0;
        for c in 0..w {
            let h = code_height(codes[c]);
            if h < height {
                let grown = codes[c] + ((1 + first_moves) << h);
                children[c] = left_grown + self.ranks.at(rows[c] + grow, grown) + (total - left - terms[c]);
                playable |= 1 << c;
            }
            left += terms[c];
            if c + 1 < w {
                left_grown += self.ranks.at(rows[c] + grow, codes[c]);
            }
        }
        playable
    }

    /// The canonical index, in ply `ply + 1`, of the position after a stone in each column that
    /// has room: `children[c]` for column `c`. Returns the playable columns as bits.
    #[inline]
    pub fn children(&self, position: &Position, children: &mut [u64; MAX_WIDTH]) -> u32 {
        let w = self.geometry.width as usize;
        let codes = self.codes(position);
        let mut mirrored = [0; MAX_WIDTH];
        for c in 0..w {
            mirrored[c] = codes[w - 1 - c];
        }
        let mut of_mirror = [0u64; MAX_WIDTH];
        let playable = self.children_of_codes(&codes, children);
        self.children_of_codes(&mirrored, &mut of_mirror);
        for c in 0..w {
            children[c] = children[c].min(of_mirror[w - 1 - c]);
        }
        playable
    }

    /// The position with index `index` (< size()).
    pub fn position(&self, index: u64) -> Position {
        self.seek(&mut Walker::default(), index)
    }

    /// The position with index `index` (< size()), unranking only the columns that differ from
    /// the walker's last position.
    #[inline]
    pub(crate) fn seek(&self, walker: &mut Walker, index: u64) -> Position {
        let g = &self.geometry;
        let w = g.width as usize;
        let ranks = &*self.ranks;
        let mut column = 0;
        while column < walker.valid && index >= walker.base[column + 1] && index < walker.end[column] {
            column += 1;
        }
        if column == 0 {
            walker.base[0] = 0;
            walker.stones[0] = self.ply;
            walker.firsts[0] = self.first;
        }
        for c in column..w {
            let (n, k) = (walker.stones[c], walker.firsts[c]);
            let row = ranks.row(c, n, k);
            let rest = index - walker.base[c];
            // The largest code whose offset is at most `rest`: it has arrangements (a code
            // without any has the same offset as the next one). Walking forward, the first
            // column that changes moves to a nearby larger code; the others start afresh.
            let limit = 1u32 << (n.min(g.height) + 1);
            let code = if c == column && column < walker.valid && index >= walker.end[c] {
                let mut code = walker.codes[c] + 1;
                while code + 1 < limit && ranks.at(row, code + 1) <= rest {
                    code += 1;
                }
                code
            } else {
                let (mut low, mut high) = (1u32, limit);
                while high - low > 1 {
                    let middle = (low + high) / 2;
                    if ranks.at(row, middle) <= rest {
                        low = middle;
                    } else {
                        high = middle;
                    }
                }
                low
            };
            walker.codes[c] = code;
            walker.base[c + 1] = walker.base[c] + ranks.at(row, code);
            walker.stones[c + 1] = n - code_height(code);
            walker.firsts[c + 1] = k - code_first(code);
            walker.end[c] = walker.base[c + 1]
                + ranks.fill(c + 1, walker.stones[c + 1] as usize, walker.firsts[c + 1] as usize);
        }
        walker.valid = w;
        let stride = g.height + 1;
        let (mut mask, mut first) = (0u64, 0u64);
        for c in 0..w {
            let code = u64::from(walker.codes[c]);
            let h = code_height(walker.codes[c]);
            mask |= ((1u64 << h) - 1) << (c as u32 * stride);
            first |= (code ^ (1 << h)) << (c as u32 * stride);
        }
        let current = if self.ply.is_multiple_of(2) { first } else { mask ^ first };
        Position { current, mask, ply: self.ply }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every index of a ply round-trips, in order (the walker) and alone (a fresh walker).
    #[test]
    fn index_round_trips_over_a_whole_ply() {
        for (w, h, plies) in [(5, 4, &[0, 1, 7, 12, 20][..]), (4, 5, &[3, 10, 19][..]), (4, 10, &[5, 11][..])]
        {
            let g = Geometry::new(w, h).unwrap();
            for &ply in plies {
                let index = PlyIndex::new(g, ply);
                let mut walker = Walker::default();
                let mut previous: Option<u64> = None;
                for i in 0..index.size() {
                    let p = index.seek(&mut walker, i);
                    assert_eq!(p.mask.count_ones(), ply);
                    assert_eq!(p.first_player().count_ones(), ply.div_ceil(2));
                    assert_eq!(index.index(&p), i, "{g} ply {ply}");
                    if i % 97 == 0 {
                        assert_eq!(index.position(i), p);
                    }
                    assert!(previous.is_none_or(|j| j + 1 == i));
                    previous = Some(i);
                }
            }
        }
    }

    /// The children's indices from prefix and suffix sums equal those computed from scratch.
    #[test]
    fn children_equal_their_indices_from_scratch() {
        for (w, h) in [(5, 4), (4, 4), (6, 4), (4, 10)] {
            let g = Geometry::new(w, h).unwrap();
            for ply in 0..g.cells() {
                let index = PlyIndex::new(g, ply);
                let next = PlyIndex::new(g, ply + 1);
                let step = (index.size() / 2000).max(1);
                for i in (0..index.size()).step_by(step as usize) {
                    let p = index.position(i);
                    let mut children = [0u64; MAX_WIDTH];
                    let playable = index.children(&p, &mut children);
                    let mut expected = 0;
                    for c in 0..w {
                        if p.can_play(&g, c) {
                            expected |= 1 << c;
                            let child = p.play(&g, c);
                            assert_eq!(
                                children[c as usize],
                                next.canonical_index(&child),
                                "{g} ply {ply} {i} {c}"
                            );
                        }
                    }
                    assert_eq!(playable, expected);
                }
            }
        }
    }

    #[test]
    fn mirror_images_share_the_smaller_index() {
        let g = Geometry::new(7, 6).unwrap();
        let p = crate::games::connect4::board::parse_moves(&g, "4455123").unwrap();
        let index = PlyIndex::new(g, p.ply);
        let (a, b) = index.index_and_mirror(&p);
        let (mirror_a, mirror_b) = index.index_and_mirror(&p.mirror(&g));
        assert_eq!((a, b), (mirror_b, mirror_a));
        assert_ne!(a, b);
        assert_eq!(index.canonical_index(&p), a.min(b));
        assert_eq!(index.position(b), p.mirror(&g));
    }
}
