//! The 4x4x4 cube: its cells as the bits of a `u64`, its 76 lines, the symmetries that map
//! lines onto lines, and positions written as moves.
//!
//! Cell `(x, y, z)` (column letter `a..d` for `x`, row digit `1..4` for `y`, height digit `1..4`
//! for `z`, each from 0 here) is bit `x + 4y + 16z`: a layer is 16 consecutive bits, and the
//! cell above a cell is 16 bits higher.

use crate::text::quote;
use std::fmt;

/// Cells of the cube.
pub const CELLS: u32 = 64;

/// The bit of cell `(x, y, z)`.
#[inline]
pub const fn cell(x: u32, y: u32, z: u32) -> u64 {
    1 << (x + 4 * y + 16 * z)
}

/// The coordinates `(x, y, z)` of the cell numbered `index` (its bit's position).
#[inline]
pub const fn coordinates(index: u32) -> (u32, u32, u32) {
    (index % 4, index / 4 % 4, index / 16)
}

/// The 13 directions of lines, each with its step as a bit shift (positive: from a line's first
/// cell to its next) and the first cells of its lines.
struct Direction {
    step: u32,
    starts: u64,
}

/// The directions of the 76 lines: 3 along the edges (16 lines each), 6 face diagonals (4 each)
/// and 4 space diagonals (1 each).
const DIRECTIONS: [Direction; 13] = directions();

const fn directions() -> [Direction; 13] {
    // Each direction once: (dx, dy, dz) with its last non-zero component positive, so that the
    // step along it, dx + 4 dy + 16 dz, is positive.
    let mut out = [const { Direction { step: 0, starts: 0 } }; 13];
    let mut count = 0;
    let mut code: i32 = 0;
    while code < 27 {
        let (dx, dy, dz) = (code % 3 - 1, code / 3 % 3 - 1, code / 9 - 1);
        let last = if dz != 0 {
            dz
        } else if dy != 0 {
            dy
        } else {
            dx
        };
        if last > 0 {
            let mut starts = 0u64;
            let mut index = 0;
            while index < 64 {
                let (x, y, z) = coordinates(index);
                let (ex, ey, ez) = (x as i32 + 3 * dx, y as i32 + 3 * dy, z as i32 + 3 * dz);
                if 0 <= ex && ex < 4 && 0 <= ey && ey < 4 && 0 <= ez && ez < 4 {
                    starts |= 1 << index;
                }
                index += 1;
            }
            out[count] = Direction { step: (dx + 4 * dy + 16 * dz) as u32, starts };
            count += 1;
        }
        code += 1;
    }
    out
}

/// The cells that would complete a line of `stones` (any cell, taken or not).
#[inline(always)]
pub fn completing(stones: u64) -> u64 {
    let mut cells = 0;
    for &Direction { step, starts } in &DIRECTIONS {
        let (next, second, third) = (stones >> step, stones >> (2 * step), stones >> (3 * step));
        let first = starts & stones;
        cells |= starts & next & second & third;
        cells |= (first & second & third) << step;
        cells |= (first & next & third) << (2 * step);
        cells |= (first & next & second) << (3 * step);
    }
    cells
}

/// Whether `stones` hold a whole line.
#[inline]
pub fn has_line(stones: u64) -> bool {
    DIRECTIONS.iter().any(|&Direction { step, starts }| {
        starts & stones & (stones >> step) & (stones >> (2 * step)) & (stones >> (3 * step)) != 0
    })
}

/// Every line, as its four cells.
pub fn lines() -> Vec<u64> {
    LINES.to_vec()
}

/// The 76 lines, direction by direction.
pub const LINES: [u64; 76] = all_lines();

const fn all_lines() -> [u64; 76] {
    let mut lines = [0; 76];
    let (mut count, mut d) = (0, 0);
    while d < DIRECTIONS.len() {
        let Direction { step, starts } = DIRECTIONS[d];
        let mut rest = starts;
        while rest != 0 {
            let first = rest & rest.wrapping_neg();
            lines[count] = first | first << step | first << (2 * step) | first << (3 * step);
            count += 1;
            rest &= rest - 1;
        }
        d += 1;
    }
    assert!(count == 76);
    lines
}

/// The empty cells on which a stone of `mine` would make a new threat: those of the lines that
/// hold two of `mine`, none of `theirs`.
#[inline(always)]
pub fn building(mine: u64, theirs: u64) -> u64 {
    // Direction by direction, as `completing`: a bit per line (at its first cell), its four
    // cells counted in two halves, each half's count as "one" and "two" bits.
    let mut cells = 0;
    for &Direction { step, starts } in &DIRECTIONS {
        let (next, second, third) = (mine >> step, mine >> (2 * step), mine >> (3 * step));
        let blocked = theirs | theirs >> step | theirs >> (2 * step) | theirs >> (3 * step);
        let (low_one, low_two) = (mine ^ next, mine & next);
        let (high_one, high_two) = (second ^ third, second & third);
        let two = (low_one & high_one) | ((low_two ^ high_two) & !(low_one | high_one));
        let firsts = starts & !blocked & two;
        cells |= firsts | firsts << step | firsts << (2 * step) | firsts << (3 * step);
    }
    cells & !mine
}

/// The cells on 7 lines: the 8 corners and the 8 cells inside.
pub fn strong_cells() -> u64 {
    (0..64)
        .filter(|&i| {
            let (x, y, z) = coordinates(i);
            let outer = |c: u32| c == 0 || c == 3;
            (outer(x) && outer(y) && outer(z)) || (!outer(x) && !outer(y) && !outer(z))
        })
        .fold(0, |cells, i| cells | 1 << i)
}

/// A symmetry of the cube as a map of cell numbers.
pub type Symmetry = [u8; 64];

/// The symmetries of the cube that map lines onto lines: the 48 rotations and reflections,
/// each with the 4 maps of coordinate values (applied to every axis) that keep lines up to a
/// reflection: the identity, 1 and 2 exchanged, 0 with 1 and 2 with 3 exchanged, and the cycle
/// 0 -> 1 -> 3 -> 2 -> 0. A map keeps lines when it commutes with the reflection `v -> 3 - v`;
/// those maps form a group of 8, of which the reflections give the other 4. 192 in all, the
/// identity first.
/// With `keep_height`, only those that leave every cell's height alone: the 8 symmetries of
/// a layer (`x` and `y` exchanged or reflected), which gravity allows.
pub fn symmetries(keep_height: bool) -> Vec<Symmetry> {
    let coordinate_maps: [[u32; 4]; 4] = [[0, 1, 2, 3], [0, 2, 1, 3], [1, 0, 3, 2], [1, 3, 0, 2]];
    let axis_orders = [[0, 1, 2], [1, 0, 2], [0, 2, 1], [2, 1, 0], [1, 2, 0], [2, 0, 1]];
    let mut out = Vec::new();
    for map in coordinate_maps {
        for axes in axis_orders {
            for reflections in 0..8u32 {
                let fixes_height = axes[2] == 2 && reflections & 4 == 0 && map == [0, 1, 2, 3];
                if keep_height && !fixes_height {
                    continue;
                }
                let mut symmetry = [0u8; 64];
                for index in 0..64 {
                    let (x, y, z) = coordinates(index);
                    let from = [x, y, z];
                    let mut to = [0; 3];
                    for axis in 0..3 {
                        let value = map[from[axes[axis]] as usize];
                        to[axis] = if reflections >> axis & 1 == 1 { 3 - value } else { value };
                    }
                    symmetry[index as usize] = (to[0] + 4 * to[1] + 16 * to[2]) as u8;
                }
                out.push(symmetry);
            }
        }
    }
    out
}

/// The image of a set of cells under `symmetry`.
pub fn apply(symmetry: &Symmetry, cells: u64) -> u64 {
    let mut out = 0;
    let mut rest = cells;
    while rest != 0 {
        out |= 1 << symmetry[rest.trailing_zeros() as usize];
        rest &= rest - 1;
    }
    out
}

/// A position: the stones of the side to move, all stones, and the number of stones (the ply).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    /// The stones of the side to move.
    pub current: u64,
    /// All stones in the cube.
    pub mask: u64,
    /// Stones in the cube: the number of moves played.
    pub ply: u32,
}

impl Position {
    /// The empty cube.
    pub const EMPTY: Position = Position { current: 0, mask: 0, ply: 0 };

    /// The stones of the side that moved last.
    #[inline]
    pub fn previous(&self) -> u64 {
        self.current ^ self.mask
    }

    /// The first player's stones (White: it moves at even plies).
    #[inline]
    pub fn first_player(&self) -> u64 {
        if self.ply.is_multiple_of(2) { self.current } else { self.previous() }
    }

    /// Whether the last move made four in a row: the side to move has lost.
    #[inline]
    pub fn is_won_by_previous(&self) -> bool {
        has_line(self.previous())
    }

    /// Whether the game is over: four in a row, or a full cube.
    #[inline]
    pub fn is_over(&self) -> bool {
        self.ply == CELLS || self.is_won_by_previous()
    }

    /// The position after a stone on `cell` (which must be empty).
    #[inline]
    pub fn play(&self, cell: u64) -> Position {
        Position { current: self.current ^ self.mask, mask: self.mask | cell, ply: self.ply + 1 }
    }

    /// The image under `symmetry`.
    pub fn map(&self, symmetry: &Symmetry) -> Position {
        Position { current: apply(symmetry, self.current), mask: apply(symmetry, self.mask), ply: self.ply }
    }
}

/// The cells a stone may go to: the lowest empty cell of each column under gravity (Sogo),
/// else every empty cell (Qubic).
#[inline(always)]
pub fn playable(mask: u64, gravity: bool) -> u64 {
    if gravity { drop_cells(mask) } else { !mask }
}

/// The lowest empty cell of each column (none for a full column), under gravity.
#[inline]
pub fn drop_cells(mask: u64) -> u64 {
    const BOTTOM: u64 = 0xffff;
    // A column's lowest empty cell is its first empty one from the bottom: an empty cell whose
    // cell below is taken, or an empty bottom cell.
    !mask & ((mask << 16) | BOTTOM)
}

/// What is wrong with a move string.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MovesError {
    /// Text that is not a move of the game.
    NotAMove {
        /// Which move (1-based).
        at: usize,
        /// The text.
        found: String,
        /// What a move looks like.
        expected: &'static str,
    },
    /// A column with no room left (Sogo).
    ColumnFull {
        /// Which move (1-based).
        at: usize,
        /// The column, as written.
        column: String,
    },
    /// A cell already taken (Qubic).
    CellTaken {
        /// Which move (1-based).
        at: usize,
        /// The cell, as written.
        cell: String,
    },
    /// A move after four in a row.
    GameOver {
        /// Which move (1-based).
        at: usize,
    },
}

impl fmt::Display for MovesError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MovesError::NotAMove { at, found, expected } => {
                write!(f, "move {at}: '{}' is not {expected}", quote(found))
            }
            MovesError::ColumnFull { at, column } => write!(f, "move {at}: column {column} is full"),
            MovesError::CellTaken { at, cell } => write!(f, "move {at}: cell {cell} is taken"),
            MovesError::GameOver { at } => write!(f, "move {at}: the game is already over (four in a row)"),
        }
    }
}

impl std::error::Error for MovesError {}

/// The moves of a move string, each as written (lower case) and its coordinates from 0: a
/// column letter `a`..`d`, then `N - 1` digits `1`..`4`; spaces and commas between moves allowed.
fn moves_of<const N: usize>(text: &str, expected: &'static str) -> Result<Vec<(String, [u32; N])>, MovesError> {
    // Separators between moves only: a move is its letter and digits written together, and the
    // first one that is not a move is the one named, not a later chunk of a shifted reading.
    let separator = |c: &char| c.is_whitespace() || *c == ',';
    let coordinate = |k: usize, c: char| match (k, c.to_ascii_lowercase()) {
        (0, c @ 'a'..='d') => Some(c as u32 - 'a' as u32),
        (1.., c @ '1'..='4') => Some(c as u32 - '1' as u32),
        _ => None,
    };
    let mut chars = text.chars().peekable();
    let mut moves = Vec::new();
    loop {
        while chars.next_if(separator).is_some() {}
        if chars.peek().is_none() {
            return Ok(moves);
        }
        let word: String = std::iter::from_fn(|| chars.next_if(|c| !separator(c))).take(N).collect();
        let coordinates: Option<Vec<u32>> = word.chars().enumerate().map(|(k, c)| coordinate(k, c)).collect();
        match coordinates.and_then(|found| <[u32; N]>::try_from(found).ok()) {
            Some(coordinates) => moves.push((word.to_ascii_lowercase(), coordinates)),
            None => return Err(MovesError::NotAMove { at: moves.len() + 1, found: word, expected }),
        }
    }
}

/// Plays a Sogo move string: the columns played from the empty cube, each `a1`..`d4` (`a1b2a1`;
/// spaces or commas between moves allowed; `""` is the empty cube).
pub fn parse_sogo(text: &str) -> Result<Position, MovesError> {
    play_sogo(text).map(|(position, _)| position)
}

/// [`parse_sogo`], with the cell each stone landed on, in order.
pub fn play_sogo(text: &str) -> Result<(Position, Vec<u32>), MovesError> {
    const EXPECTED: &str = "a column (a1..d4)";
    let mut position = Position::EMPTY;
    let mut cells = Vec::new();
    for (i, (word, [x, y])) in moves_of(text, EXPECTED)?.into_iter().enumerate() {
        let at = i + 1;
        if position.is_won_by_previous() {
            return Err(MovesError::GameOver { at });
        }
        let target = drop_cells(position.mask) & column_mask(x, y);
        if target == 0 {
            return Err(MovesError::ColumnFull { at, column: word });
        }
        position = position.play(target);
        cells.push(target.trailing_zeros());
    }
    Ok((position, cells))
}

/// Plays a Qubic move string: the cells played from the empty cube, each `a11`..`d44` (column
/// letter, row digit, height digit: `a11d44`; spaces or commas between moves allowed; `""` is
/// the empty cube).
pub fn parse_qubic(text: &str) -> Result<Position, MovesError> {
    play_qubic(text).map(|(position, _)| position)
}

/// [`parse_qubic`], with the cells played, in order.
pub fn play_qubic(text: &str) -> Result<(Position, Vec<u32>), MovesError> {
    const EXPECTED: &str = "a cell (a11..d44)";
    let mut position = Position::EMPTY;
    let mut cells = Vec::new();
    for (i, (word, [x, y, z])) in moves_of(text, EXPECTED)?.into_iter().enumerate() {
        let at = i + 1;
        if position.is_won_by_previous() {
            return Err(MovesError::GameOver { at });
        }
        let target = cell(x, y, z);
        if position.mask & target != 0 {
            return Err(MovesError::CellTaken { at, cell: word });
        }
        position = position.play(target);
        cells.push(target.trailing_zeros());
    }
    Ok((position, cells))
}

/// The four cells of column `(x, y)`.
#[inline]
pub const fn column_mask(x: u32, y: u32) -> u64 {
    0x0001_0001_0001_0001 << (x + 4 * y)
}

/// The name of a column, `a1`..`d4`.
pub fn column_name(x: u32, y: u32) -> String {
    format!("{}{}", char::from(b'a' + x as u8), y + 1)
}

/// The name of a cell, `a11`..`d44`.
pub fn cell_name(index: u32) -> String {
    let (x, y, z) = coordinates(index);
    format!("{}{}", column_name(x, y), z + 1)
}

/// The name of a move onto `cell`: its column in Sogo (`GRAVITY`, where the stone drops), its
/// cell in Qubic.
pub fn move_name<const GRAVITY: bool>(cell: u32) -> String {
    let (x, y, _) = coordinates(cell);
    if GRAVITY { column_name(x, y) } else { cell_name(cell) }
}

/// The stones layer by layer from the bottom, rows from 1, `x` for the first player, `o` for
/// the second, `.` for an empty cell: `x..o ..../....|.../`.
pub fn cube_notation(position: &Position) -> String {
    let first = position.first_player();
    let layers: Vec<String> = (0..4)
        .map(|z| {
            let rows: Vec<String> = (0..4)
                .map(|y| {
                    (0..4)
                        .map(|x| {
                            let bit = cell(x, y, z);
                            match (first & bit != 0, position.mask & bit != 0) {
                                (true, _) => 'x',
                                (false, true) => 'o',
                                _ => '.',
                            }
                        })
                        .collect()
                })
                .collect();
            rows.join("/")
        })
        .collect();
    layers.join("|")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seventy_six_lines_seven_through_each_strong_cell() {
        let lines = lines();
        assert_eq!(lines.len(), 76);
        assert!(lines.iter().all(|l| l.count_ones() == 4));
        let mut distinct = lines.clone();
        distinct.sort();
        distinct.dedup();
        assert_eq!(distinct.len(), 76);
        let strong = strong_cells();
        assert_eq!(strong.count_ones(), 16);
        for index in 0..64 {
            let through = lines.iter().filter(|&&l| l >> index & 1 == 1).count();
            assert_eq!(through, if strong >> index & 1 == 1 { 7 } else { 4 }, "{}", cell_name(index));
        }
    }

    #[test]
    fn symmetries_map_lines_onto_lines() {
        let lines = lines();
        for (keep_height, count) in [(false, 192), (true, 8)] {
            let all = symmetries(keep_height);
            assert_eq!(all.len(), count);
            let mut distinct = all.clone();
            distinct.sort();
            distinct.dedup();
            assert_eq!(distinct.len(), count);
            assert_eq!(all[0], std::array::from_fn(|i| i as u8));
            for symmetry in &all {
                for &line in &lines {
                    assert!(lines.contains(&apply(symmetry, line)));
                }
                if keep_height {
                    assert!((0..64).all(|i| symmetry[i] / 16 == i as u8 / 16));
                }
            }
        }
    }

    #[test]
    fn completing_and_building_cells_equal_trying_each_line() {
        let lines = lines();
        let mut rng = crate::rng::SplitMix64::new(29);
        for _ in 0..20_000 {
            let stones = rng.next_u64() & rng.next_u64();
            let by_lines = lines
                .iter()
                .filter(|&&l| (l & stones).count_ones() == 3)
                .fold(0, |cells, &l| cells | (l & !stones));
            assert_eq!(completing(stones) & !stones, by_lines, "{stones:#x}");
            assert_eq!(has_line(stones), lines.iter().any(|&l| l & !stones == 0));
            let theirs = rng.next_u64() & rng.next_u64() & rng.next_u64() & !stones;
            let building_by_lines = lines
                .iter()
                .filter(|&&l| l & theirs == 0 && (l & stones).count_ones() == 2)
                .fold(0, |cells, &l| cells | (l & !stones));
            assert_eq!(building(stones, theirs), building_by_lines, "{stones:#x} {theirs:#x}");
        }
    }

    #[test]
    fn move_strings() {
        let p = parse_sogo("a1 b2,a1").unwrap();
        assert_eq!(p.mask, cell(0, 0, 0) | cell(1, 1, 0) | cell(0, 0, 1));
        assert_eq!(p.current, cell(1, 1, 0));
        assert_eq!(parse_sogo("").unwrap(), Position::EMPTY);
        assert!(matches!(parse_sogo("a1a1a1a1a1"), Err(MovesError::ColumnFull { at: 5, .. })));
        assert!(matches!(parse_sogo("e1"), Err(MovesError::NotAMove { at: 1, .. })));
        assert!(matches!(parse_sogo("a1b"), Err(MovesError::NotAMove { at: 2, .. })));
        // Four up column a1 for White.
        assert!(matches!(parse_sogo("a1b1a1b1a1b1a1b1"), Err(MovesError::GameOver { at: 8 })));
        let q = parse_qubic("a11d44").unwrap();
        assert_eq!(q.mask, cell(0, 0, 0) | cell(3, 3, 3));
        assert!(matches!(parse_qubic("a11a11"), Err(MovesError::CellTaken { at: 2, .. })));
        assert!(matches!(parse_qubic("a15"), Err(MovesError::NotAMove { at: 1, .. })));
        assert!(matches!(parse_qubic("a11b11a12b12a13b13a14b14"), Err(MovesError::GameOver { at: 8 })));
        // The move named is the first that is not one, as written: a stray character is not
        // read as the start of a shifted chunking that fails later, and a move is written whole.
        let not_a_move = |result: Result<Position, MovesError>| match result {
            Err(MovesError::NotAMove { at, found, .. }) => Some((at, found)),
            _ => None,
        };
        assert_eq!(not_a_move(parse_sogo("?a1b1")), Some((1, "?a".into())));
        assert_eq!(not_a_move(parse_sogo("a1 ?b1")), Some((2, "?b".into())));
        assert_eq!(not_a_move(parse_sogo("a 1b1")), Some((1, "a".into())));
        assert_eq!(not_a_move(parse_qubic("a11?b22")), Some((2, "?b2".into())));
        assert_eq!(not_a_move(parse_qubic("a1 1")), Some((1, "a1".into())));
        assert_eq!(not_a_move(parse_qubic("A11 b5")), Some((2, "b5".into())));
        assert_eq!(parse_qubic(" A11,\tb22 ").unwrap(), parse_qubic("a11b22").unwrap());
        assert_eq!(cell_name(63), "d44");
        assert_eq!(cell_name(1 + 4 * 2 + 16), "b32");
        assert_eq!(move_name::<false>(1 + 4 * 2 + 16), "b32");
        assert_eq!(move_name::<true>(1 + 4 * 2 + 16), "b3");
    }
}
