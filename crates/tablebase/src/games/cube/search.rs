//! The cube games as the search engine sees them ([`crate::search::LineGame`]).
//!
//! A key is exact: Qubic's is the position's two words, `mask << 64 | current` (its 3^64
//! positions need more than 64 bits), Sogo's 80 bits, a column's height and colours in 5
//! (`CubeLines::exact_key`). At the plies where transpositions under symmetry pay (the first
//! [`SOGO_SYMMETRIC_PLIES`] of Sogo's, the first [`QUBIC_SYMMETRIC_PLIES`] of Qubic's) it is the
//! least such key over the game's symmetries; deeper down few positions meet their images, and
//! the images cost more than they save.

use super::board::{self, CELLS, Position, Symmetry};
use crate::search::{self, LineGame};
use std::sync::Arc;

/// Searches positions of a cube game.
pub type Searcher<const GRAVITY: bool> = search::Searcher<CubeLines<GRAVITY>>;
/// Qubic: no gravity.
pub type Qubic = CubeLines<false>;
/// Sogo: gravity.
pub type Sogo = CubeLines<true>;

/// Bits of a Sogo key ([`CubeLines::exact_key`]): 5 for each of the 16 columns.
const SOGO_KEY_BITS: u32 = 80;

/// The plies up to which Sogo's keys are the least over its 8 symmetries. Deeper down the
/// images of a position are almost never searched: from plies 24 and 26, keys up to every ply
/// cost 35 to 45% of the time and saved under 0.01% of the nodes (docs/BENCHMARKS.md).
pub const SOGO_SYMMETRIC_PLIES: u32 = 12;

/// The plies up to which Qubic's keys are the least over its 192 symmetries.
pub const QUBIC_SYMMETRIC_PLIES: u32 = 4;

/// A cube game: with gravity (Sogo) or without (Qubic), its moves in the order the search
/// tries them, and its symmetries as tables that map a byte of cells at a time.
#[derive(Clone)]
pub struct CubeLines<const GRAVITY: bool> {
    groups: Vec<u64>,
    /// For each symmetry but the identity, for each byte of a word, the image of each value.
    images: Arc<Vec<[[u64; 256]; 8]>>,
    /// The lines through each cell (7 through a strong cell, 4 and three empty ones through
    /// the others).
    through: Arc<[[u64; 7]; 64]>,
    symmetric_plies: u32,
}

impl<const GRAVITY: bool> Default for CubeLines<GRAVITY> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const GRAVITY: bool> CubeLines<GRAVITY> {
    /// The game, with every symmetry (the 8 of a layer under gravity, else 192).
    pub fn new() -> CubeLines<GRAVITY> {
        let symmetries = board::symmetries(GRAVITY);
        let images = symmetries[1..].iter().map(byte_images).collect();
        let strong = board::strong_cells();
        // Strong cells first: they lie on 7 lines, the others on 4. Under gravity a column is
        // a move: the 4 inner columns, then the 4 corner ones (both hold 2 strong cells), then
        // the 8 on the edges.
        let groups = if GRAVITY {
            let mut columns: Vec<(u32, u32)> = (0..16).map(|c| (c % 4, c / 4)).collect();
            let edge = |c: u32| c == 0 || c == 3;
            columns.sort_by_key(|&(x, y)| match (edge(x), edge(y)) {
                (false, false) => 0,
                (true, true) => 1,
                _ => 2,
            });
            columns.iter().map(|&(x, y)| board::column_mask(x, y)).collect()
        } else {
            let mut cells: Vec<u32> = (0..CELLS).collect();
            cells.sort_by_key(|&i| strong >> i & 1 == 0);
            cells.iter().map(|&i| 1u64 << i).collect()
        };
        let mut through = [[0u64; 7]; 64];
        for line in board::lines() {
            let mut cells = line;
            while cells != 0 {
                let i = cells.trailing_zeros() as usize;
                cells &= cells - 1;
                let free = through[i].iter().position(|&l| l == 0).expect("at most 7 lines through a cell");
                through[i][free] = line;
            }
        }
        CubeLines {
            through: Arc::new(through),
            groups,
            images: Arc::new(images),
            symmetric_plies: if GRAVITY { SOGO_SYMMETRIC_PLIES } else { QUBIC_SYMMETRIC_PLIES },
        }
    }

    /// The same game with keys the least over its symmetries up to ply `plies` only (and the
    /// position's own key beyond): for measuring what the symmetries save against their cost.
    pub fn with_symmetric_plies(mut self, plies: u32) -> CubeLines<GRAVITY> {
        self.symmetric_plies = plies;
        self
    }

    /// The lines through `cell` (a single bit): 7 or 4, the rest 0.
    #[inline(always)]
    pub fn lines_through(&self, cell: u64) -> &[u64; 7] {
        &self.through[cell.trailing_zeros() as usize]
    }

    /// The least key of the position's images under every symmetry of the game, at any ply:
    /// one key for positions that the symmetries map onto each other.
    pub fn canonical_key(&self, position: &Position) -> u128 {
        let own = u128::from(position.mask) << 64 | u128::from(position.current);
        self.images.iter().fold(own, |least, images| {
            least.min(Self::image_key(images, position.current, position.mask))
        })
    }

    /// The search's key of a position, before symmetry. Qubic's is its two words. Sogo's
    /// stones lie at the bottom of their columns, so a column is its height and the colours of
    /// its stones: the cell above its top stone marked (a full column's mark a fifth layer
    /// above the cube) and the mover's stones below it, 5 bits a column, 80 in all. The
    /// shorter key leaves room in a 64-bit table entry for the rest.
    #[inline(always)]
    fn exact_key(current: u64, mask: u64) -> u128 {
        if GRAVITY {
            let full = u128::from(mask >> 48) << 64;
            full | u128::from(board::drop_cells(mask) | current)
        } else {
            u128::from(mask) << 64 | u128::from(current)
        }
    }

    /// The key of `current` and `mask` under the symmetry of `images`.
    #[inline]
    fn image_key(images: &[[u64; 256]; 8], current: u64, mask: u64) -> u128 {
        u128::from(map_cells(images, mask)) << 64 | u128::from(map_cells(images, current))
    }
}

/// The image of `cells` under the symmetry whose byte images are `images`.
#[inline(always)]
fn map_cells(images: &[[u64; 256]; 8], cells: u64) -> u64 {
    (0..8).fold(0, |out, byte| out | images[byte][(cells >> (8 * byte)) as usize & 0xff])
}

/// The image of each byte value at each byte of a word under `symmetry`.
fn byte_images(symmetry: &Symmetry) -> [[u64; 256]; 8] {
    std::array::from_fn(|byte| {
        std::array::from_fn(|value| board::apply(symmetry, (value as u64) << (8 * byte)))
    })
}

impl<const GRAVITY: bool> LineGame for CubeLines<GRAVITY> {
    type Position = Position;
    type Node = Position;
    type Key = u128;

    fn cells(&self) -> u32 {
        CELLS
    }

    fn board(&self) -> u64 {
        u64::MAX
    }

    fn key_bits(&self) -> u32 {
        if GRAVITY { SOGO_KEY_BITS } else { 128 }
    }

    fn node(&self, position: &Position) -> Position {
        *position
    }

    #[inline(always)]
    fn ply(node: &Position) -> u32 {
        node.ply
    }

    #[inline(always)]
    fn mover(node: &Position) -> u64 {
        node.current
    }

    #[inline(always)]
    fn occupied(node: &Position) -> u64 {
        node.mask
    }

    #[inline(always)]
    fn playable(&self, occupied: u64) -> u64 {
        board::playable(occupied, GRAVITY)
    }

    #[inline(always)]
    fn completing(&self, stones: u64) -> u64 {
        board::completing(stones)
    }

    /// Only the lines through `cell` change.
    #[inline(always)]
    fn completing_after(&self, stones: u64, completing: u64, cell: u64) -> u64 {
        let after = stones | cell;
        let mut out = completing;
        for &line in &self.through[cell.trailing_zeros() as usize] {
            match (after & line).count_ones() {
                3 => out |= line & !after,
                4 => out |= line,
                _ => {}
            }
        }
        out
    }

    fn has_line(&self, stones: u64) -> bool {
        board::has_line(stones)
    }

    #[inline]
    fn building(&self, mine: u64, theirs: u64) -> u64 {
        board::building(mine, theirs)
    }

    /// Each line through `cell` still open to `mine`, more the more of `mine` it holds, and
    /// each open only to `theirs`, less (a stone there blocks it).
    #[inline]
    fn promise(&self, mine: u64, theirs: u64, cell: u64) -> u32 {
        const OWN: [u32; 4] = [1, 4, 16, 64];
        const BLOCKED: [u32; 4] = [0, 2, 8, 32];
        self.through[cell.trailing_zeros() as usize]
            .iter()
            .filter(|&&line| line != 0)
            .map(|&line| match (line & mine != 0, line & theirs != 0) {
                (_, false) => OWN[(line & mine).count_ones() as usize],
                (false, true) => BLOCKED[(line & theirs).count_ones() as usize],
                (true, true) => 0,
            })
            .sum()
    }

    #[inline(always)]
    fn beneath(&self, cells: u64) -> u64 {
        if GRAVITY { cells >> 16 } else { 0 }
    }

    #[inline(always)]
    fn groups(&self) -> &[u64] {
        &self.groups
    }

    #[inline(always)]
    fn play(&self, node: &Position, _group: usize, cell: u64) -> Position {
        node.play(cell)
    }

    #[inline]
    fn key(&self, node: &Position) -> u128 {
        let own = Self::exact_key(node.current, node.mask);
        if node.ply > self.symmetric_plies {
            return own;
        }
        self.images.iter().fold(own, |least, images| {
            least.min(Self::exact_key(map_cells(images, node.current), map_cells(images, node.mask)))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// Random Sogo positions, a few of each ply, by random drops (the game may have ended on
    /// the way: keys do not care).
    fn sogo_positions(count: usize) -> Vec<Position> {
        let mut rng = crate::rng::SplitMix64::new(29);
        let mut out = Vec::new();
        for round in 0..count {
            let mut p = Position { current: 0, mask: 0, ply: 0 };
            for _ in 0..round % 65 {
                let mut playable = board::playable(p.mask, true);
                for _ in 0..rng.next_u64() % u64::from(playable.count_ones()) {
                    playable &= playable - 1;
                }
                p = p.play(playable & playable.wrapping_neg());
            }
            out.push(p);
        }
        out
    }

    /// Sogo's 80-bit key tells every position apart (two different positions never share it),
    /// and up to [`SOGO_SYMMETRIC_PLIES`] it is the same for a position and its images.
    #[test]
    fn sogo_keys_are_exact_and_symmetric_early() {
        let game = Sogo::new();
        let mut seen: HashMap<u128, (u64, u64)> = HashMap::new();
        for p in sogo_positions(20_000) {
            let key = game.key(&p);
            assert!(key < 1 << SOGO_KEY_BITS);
            if p.ply > SOGO_SYMMETRIC_PLIES {
                assert_eq!(key, CubeLines::<true>::exact_key(p.current, p.mask));
                let before = seen.insert(key, (p.current, p.mask));
                assert!(before.is_none_or(|b| b == (p.current, p.mask)), "{p:?} and {before:?}");
            } else {
                for symmetry in board::symmetries(true) {
                    assert_eq!(game.key(&p.map(&symmetry)), key, "{p:?}");
                }
            }
        }
        assert!(seen.len() > 10_000, "{} distinct positions", seen.len());
    }
}
