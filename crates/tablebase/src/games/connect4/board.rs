//! Connect Four on a W x H board as bitboards (docs/CLI.md, "Connect Four").
//!
//! Column `c` occupies bits `c * (H + 1) .. c * (H + 1) + H`, bottom first, with one spare bit
//! on top so that shifts never carry a column into the next: the classic layout that lets
//! `mask + bottom` drop a stone and four shifts find four in a row. W * (H + 1) <= 64.

use crate::text::quote;
use std::fmt;

/// The board size.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Geometry {
    /// Columns.
    pub width: u32,
    /// Rows.
    pub height: u32,
}

/// Why a board size is not supported.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SizeError(pub String);

impl fmt::Display for SizeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl std::error::Error for SizeError {}

/// The most cells of a board whose every ply is tabulated (6x6 and 7x5: hours and tens of GB;
/// 7x6 has 4.5 trillion positions).
pub const TABULATED_CELLS: u32 = 36;

impl Geometry {
    /// A board of `width` columns and `height` rows: both at least 4, `width * (height + 1)`
    /// at most 64.
    pub fn new(width: u32, height: u32) -> Result<Geometry, SizeError> {
        if width < 4 || height < 4 {
            return Err(SizeError(format!("board {width}x{height}: width and height must be at least 4")));
        }
        if width * (height + 1) > 64 {
            return Err(SizeError(format!(
                "board {width}x{height}: width * (height + 1) must be at most 64"
            )));
        }
        Ok(Geometry { width, height })
    }

    /// Parses `WxH`, e.g. `7x6`.
    pub fn parse(text: &str) -> Result<Geometry, SizeError> {
        let bad = || SizeError(format!("bad board size '{}': expected WxH, e.g. 7x6", quote(text)));
        let (w, h) = text.split_once('x').ok_or_else(bad)?;
        Geometry::new(w.parse().map_err(|_| bad())?, h.parse().map_err(|_| bad())?)
    }

    #[inline]
    /// The number of cells: the most stones a game can have.
    pub fn cells(&self) -> u32 {
        self.width * self.height
    }

    /// Whether the project tabulates every ply of this board: boards of at most
    /// `TABULATED_CELLS` (36) cells. Larger ones (7x6) have at most an opening book of tables for
    /// their first plies, and their other positions are solved by search.
    pub fn tabulated(&self) -> bool {
        self.cells() <= TABULATED_CELLS
    }

    #[inline]
    fn stride(&self) -> u32 {
        self.height + 1
    }

    #[inline]
    /// The bit of the bottom cell of `column`.
    pub fn bottom(&self, column: u32) -> u64 {
        1 << (column * self.stride())
    }

    #[inline]
    /// The bit of the top cell of `column`.
    pub fn top(&self, column: u32) -> u64 {
        1 << (column * self.stride() + self.height - 1)
    }

    /// The bottom cell of every column.
    #[inline]
    pub(crate) fn bottom_row(&self) -> u64 {
        (0..self.width).fold(0, |row, column| row | self.bottom(column))
    }

    /// The playable cells of column `column`.
    #[inline]
    pub fn column(&self, column: u32) -> u64 {
        ((1u64 << self.height) - 1) << (column * self.stride())
    }

    /// Whether `stones` hold four in a row.
    #[inline]
    pub(crate) fn has_four(&self, stones: u64) -> bool {
        let h = u64::from(self.height);
        for shift in [1, h, h + 1, h + 2] {
            let pairs = stones & (stones >> shift);
            if pairs & (pairs >> (2 * shift)) != 0 {
                return true;
            }
        }
        false
    }

    /// The empty cells that would complete four in a row for `stones`, filled or not below.
    #[inline]
    pub(crate) fn winning_cells(&self, stones: u64) -> u64 {
        self.completing_cells(stones) & self.board()
    }

    /// The cells that would complete four in a row for `stones`, with no mask: besides the
    /// board's cells (stones or not) they may include the spare bits above the columns. For hot
    /// loops that mask the result with cells of their own (the empty ones) anyway, so that the
    /// board's mask is not rebuilt at each call.
    #[inline(always)]
    pub(crate) fn completing_cells(&self, stones: u64) -> u64 {
        let h = self.height;
        let mut cells = (stones << 1) & (stones << 2) & (stones << 3);
        for shift in [h, h + 1, h + 2] {
            let pair = (stones << shift) & (stones << (2 * shift));
            cells |= pair & (stones << (3 * shift));
            cells |= pair & (stones >> shift);
            let pair = (stones >> shift) & (stones >> (2 * shift));
            cells |= pair & (stones << shift);
            cells |= pair & (stones >> (3 * shift));
        }
        cells
    }

    /// Every cell of the board.
    #[inline]
    pub fn board(&self) -> u64 {
        (0..self.width).fold(0, |cells, column| cells | self.column(column))
    }

    /// The mirror image (column `c` to `W - 1 - c`) of a set of cells.
    #[inline]
    pub fn mirror(&self, cells: u64) -> u64 {
        let mut out = 0;
        for c in 0..self.width {
            let column = (cells >> (c * self.stride())) & ((1 << self.stride()) - 1);
            out |= column << ((self.width - 1 - c) * self.stride());
        }
        out
    }
}

impl fmt::Display for Geometry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}x{}", self.width, self.height)
    }
}

/// A position: the stones of the side to move, all stones, and the number of stones (the ply).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    /// The stones of the side to move.
    pub current: u64,
    /// All stones on the board.
    pub mask: u64,
    /// Stones on the board: the number of moves played.
    pub ply: u32,
}

impl Position {
    /// The empty board.
    pub const EMPTY: Position = Position { current: 0, mask: 0, ply: 0 };

    /// The stones of the side that moved last.
    #[inline]
    pub fn previous(&self) -> u64 {
        self.current ^ self.mask
    }

    /// The first player's stones (the first player moves at even plies).
    #[inline]
    pub fn first_player(&self) -> u64 {
        if self.ply.is_multiple_of(2) { self.current } else { self.previous() }
    }

    /// Whether the last move made four in a row: the side to move has lost.
    #[inline]
    pub fn is_won_by_previous(&self, g: &Geometry) -> bool {
        g.has_four(self.previous())
    }

    /// Whether the game is over: four in a row, or a full board.
    #[inline]
    pub fn is_over(&self, g: &Geometry) -> bool {
        self.ply == g.cells() || self.is_won_by_previous(g)
    }

    /// Whether the side to move can make four in a row with its next stone.
    #[inline]
    pub(crate) fn can_win_at_once(&self, g: &Geometry) -> bool {
        let playable = (self.mask + g.bottom_row()) & g.board();
        g.winning_cells(self.current) & playable & !self.mask != 0
    }

    #[inline]
    /// Whether `column` has room for a stone.
    pub fn can_play(&self, g: &Geometry, column: u32) -> bool {
        self.mask & g.top(column) == 0
    }

    /// The position after dropping a stone in `column` (which must have room).
    #[inline]
    pub fn play(&self, g: &Geometry, column: u32) -> Position {
        Position {
            current: self.current ^ self.mask,
            mask: self.mask | (self.mask + g.bottom(column)),
            ply: self.ply + 1,
        }
    }

    /// The mirror image.
    #[inline]
    pub fn mirror(&self, g: &Geometry) -> Position {
        Position { current: g.mirror(self.current), mask: g.mirror(self.mask), ply: self.ply }
    }

    /// Calls `f(column, next)` for every legal move; none once the game is over.
    #[inline]
    pub fn for_each_move(&self, g: &Geometry, mut f: impl FnMut(u32, Position)) {
        if self.is_over(g) {
            return;
        }
        for column in 0..g.width {
            if self.can_play(g, column) {
                f(column, self.play(g, column));
            }
        }
    }
}

/// What is wrong with a move string.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MovesError {
    /// A character that is not a column digit.
    NotAColumn {
        /// Which move (1-based).
        at: usize,
        /// The character.
        found: char,
    },
    /// A column beyond the board.
    ColumnOutOfRange {
        /// Which move (1-based).
        at: usize,
        /// The column (1-based).
        column: u32,
        /// Columns on the board.
        width: u32,
    },
    /// A column that has no room left.
    ColumnFull {
        /// Which move (1-based).
        at: usize,
        /// The column (1-based).
        column: u32,
    },
    /// A move after four in a row.
    GameOver {
        /// Which move (1-based).
        at: usize,
    },
    /// Boards with more than 9 columns have no single-digit column names.
    TooWide {
        /// Columns on the board.
        width: u32,
    },
}

impl fmt::Display for MovesError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MovesError::NotAColumn { at, found } => {
                write!(f, "move {at}: '{}' is not a column number", quote(&found.to_string()))
            }
            MovesError::ColumnOutOfRange { at, column, width } => {
                write!(f, "move {at}: column {column} is off the board (columns 1..{width})")
            }
            MovesError::ColumnFull { at, column } => write!(f, "move {at}: column {column} is full"),
            MovesError::GameOver { at } => write!(f, "move {at}: the game is already over (four in a row)"),
            MovesError::TooWide { width } => {
                write!(f, "a board of {width} columns has no single-digit column names")
            }
        }
    }
}

impl std::error::Error for MovesError {}

/// Plays a move string (`4453`: 1-based columns from the empty board; `""` is the empty board).
pub fn parse_moves(g: &Geometry, text: &str) -> Result<Position, MovesError> {
    if g.width > 9 {
        return Err(MovesError::TooWide { width: g.width });
    }
    let mut position = Position::EMPTY;
    for (i, ch) in text.trim().chars().enumerate() {
        let at = i + 1;
        let column = ch.to_digit(10).ok_or(MovesError::NotAColumn { at, found: ch })?;
        if column == 0 || column > g.width {
            return Err(MovesError::ColumnOutOfRange { at, column, width: g.width });
        }
        if position.is_won_by_previous(g) {
            return Err(MovesError::GameOver { at });
        }
        if !position.can_play(g, column - 1) {
            return Err(MovesError::ColumnFull { at, column });
        }
        position = position.play(g, column - 1);
    }
    Ok(position)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fours_in_every_direction() {
        let g = Geometry::new(7, 6).unwrap();
        let won = |moves: &str| parse_moves(&g, moves).unwrap().is_won_by_previous(&g);
        assert!(won("1212121")); // vertical
        assert!(won("1122334")); // horizontal
        assert!(won("12234334744")); // diagonal /
        assert!(!won("1223433474"));
        assert!(!won("121212"));
        assert!(won("76654554144")); // diagonal \
    }

    /// Whether some move makes four, against playing every move and looking.
    #[test]
    fn wins_at_once_equal_trying_every_move() {
        let mut rng = crate::rng::SplitMix64::new(7);
        for (w, h) in [(7, 6), (4, 4), (6, 5), (12, 4), (4, 12), (7, 8)] {
            let g = Geometry::new(w, h).unwrap();
            for _ in 0..3000 {
                let mut p = Position::EMPTY;
                while !p.is_over(&g) {
                    let by_trying = (0..w).any(|c| p.can_play(&g, c) && p.play(&g, c).is_won_by_previous(&g));
                    assert_eq!(p.can_win_at_once(&g), by_trying, "{g} {p:?}");
                    let columns: Vec<u32> = (0..w).filter(|&c| p.can_play(&g, c)).collect();
                    p = p.play(&g, columns[rng.below(columns.len() as u64) as usize]);
                }
            }
        }
    }

    #[test]
    fn bad_move_strings() {
        let g = Geometry::new(4, 4).unwrap();
        assert!(matches!(parse_moves(&g, "15"), Err(MovesError::ColumnOutOfRange { at: 2, column: 5, .. })));
        assert!(matches!(parse_moves(&g, "11111"), Err(MovesError::ColumnFull { at: 5, column: 1 })));
        assert!(matches!(parse_moves(&g, "12121212"), Err(MovesError::GameOver { at: 8 })));
        assert!(matches!(parse_moves(&g, "1a"), Err(MovesError::NotAColumn { at: 2, found: 'a' })));
        assert!(matches!(parse_moves(&g, "0"), Err(MovesError::ColumnOutOfRange { .. })));
        assert_eq!(parse_moves(&g, "").unwrap(), Position::EMPTY);
        assert!(Geometry::parse("7x6").is_ok());
        assert!(
            Geometry::parse("8x8").is_err()
                && Geometry::parse("3x6").is_err()
                && Geometry::parse("7*6").is_err()
        );
    }

    #[test]
    fn mirror_is_an_involution_that_keeps_fours() {
        let g = Geometry::new(7, 6).unwrap();
        let p = parse_moves(&g, "44455123").unwrap();
        let m = p.mirror(&g);
        assert_eq!(m.mirror(&g), p);
        assert_eq!(m, parse_moves(&g, "44433765").unwrap());
    }
}
