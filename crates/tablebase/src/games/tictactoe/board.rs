//! The 3x3 board: the cells of each side as 9-bit words, the lines of three, the 8 symmetries,
//! and the notation: cells `a1`..`c3` (column letter, row digit, row 1 at the bottom) in the
//! order played.

use crate::text::quote;
use std::fmt;

/// The cells, bit `3 * row + column` with row 0 at the bottom and column 0 on the left.
const ALL: u16 = 0o777;

/// The eight lines of three.
const LINES: [u16; 8] = [0o007, 0o070, 0o700, 0o111, 0o222, 0o444, 0o421, 0o124];

/// Cell `i` goes to `SYMMETRIES[s][i]` under symmetry `s`: the identity, the three rotations
/// and the four reflections of the square.
const SYMMETRIES: [[u8; 9]; 8] = [
    [0, 1, 2, 3, 4, 5, 6, 7, 8],
    [2, 5, 8, 1, 4, 7, 0, 3, 6],
    [8, 7, 6, 5, 4, 3, 2, 1, 0],
    [6, 3, 0, 7, 4, 1, 8, 5, 2],
    [2, 1, 0, 5, 4, 3, 8, 7, 6],
    [6, 7, 8, 3, 4, 5, 0, 1, 2],
    [0, 3, 6, 1, 4, 7, 2, 5, 8],
    [8, 5, 2, 7, 4, 1, 6, 3, 0],
];

/// A cell, 0..9: `3 * row + column`, row 0 at the bottom.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Cell(pub u8);

impl Cell {
    /// The cell a person names `a1`..`c3`.
    pub fn parse(name: &str) -> Option<Cell> {
        let bytes = name.as_bytes();
        match bytes {
            [column @ b'a'..=b'c', row @ b'1'..=b'3'] => Some(Cell(3 * (row - b'1') + (column - b'a'))),
            _ => None,
        }
    }

    /// Its column, 0 on the left, and row, 0 at the bottom.
    pub fn column_row(self) -> (u8, u8) {
        (self.0 % 3, self.0 / 3)
    }
}

impl fmt::Display for Cell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (column, row) = self.column_row();
        write!(f, "{}{}", (b'a' + column) as char, row + 1)
    }
}

/// A position: the cells of the first player (X) and of the second (O).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Board {
    /// The first player's cells.
    pub x: u16,
    /// The second player's cells.
    pub o: u16,
}

impl Board {
    /// Stones on the board: the ply.
    pub fn stones(&self) -> u32 {
        (self.x | self.o).count_ones()
    }

    /// Whether the first player is to move.
    pub fn first_to_move(&self) -> bool {
        self.stones().is_multiple_of(2)
    }

    /// The stones of the side that moved last.
    fn previous(&self) -> u16 {
        if self.first_to_move() { self.o } else { self.x }
    }

    /// Whether the last move made three in a row.
    pub fn is_won_by_previous(&self) -> bool {
        let previous = self.previous();
        LINES.iter().any(|&line| line & !previous == 0)
    }

    /// Whether the game is over: three in a row, or a full board.
    pub fn is_over(&self) -> bool {
        self.is_won_by_previous() || self.stones() == 9
    }

    /// The position after the side to move takes `cell`.
    pub fn play(&self, cell: Cell) -> Board {
        let bit = 1 << cell.0;
        match self.first_to_move() {
            true => Board { x: self.x | bit, o: self.o },
            false => Board { x: self.x, o: self.o | bit },
        }
    }

    /// The legal moves: the empty cells, unless the game is over.
    pub fn moves(&self) -> impl Iterator<Item = Cell> + use<> {
        let empty = if self.is_over() { 0 } else { !(self.x | self.o) & ALL };
        (0..9u8).filter(move |c| empty & (1 << c) != 0).map(Cell)
    }

    fn image(&self, symmetry: usize) -> Board {
        let map = |cells: u16| {
            (0..9).filter(|c| cells & (1 << c) != 0).map(|c| 1u16 << SYMMETRIES[symmetry][c]).sum()
        };
        Board { x: map(self.x), o: map(self.o) }
    }

    /// The base-3 code of the board: per cell 0 empty, 1 X, 2 O, cell 0 least significant.
    pub fn code(&self) -> u64 {
        (0..9).rev().fold(0, |code, c| code * 3 + u64::from(self.x >> c & 1) + 2 * u64::from(self.o >> c & 1))
    }

    /// The board with code `code`.
    pub fn from_code(mut code: u64) -> Board {
        let mut board = Board::default();
        for c in 0..9 {
            match code % 3 {
                1 => board.x |= 1 << c,
                2 => board.o |= 1 << c,
                _ => {}
            }
            code /= 3;
        }
        board
    }

    /// The index shared by a position and its images: the least code among them.
    pub fn canonical(&self) -> u64 {
        (0..8).map(|s| self.image(s).code()).min().unwrap_or(0)
    }

    /// How many distinct boards the position's images are.
    pub fn images(&self) -> u64 {
        let mut codes: Vec<u64> = (0..8).map(|s| self.image(s).code()).collect();
        codes.sort_unstable();
        codes.dedup();
        codes.len() as u64
    }
}

/// Why a sequence of cells is not a game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MovesError {
    /// Not a cell `a1`..`c3`.
    NotACell(String),
    /// A cell played twice.
    Taken(String),
    /// A move after three in a row.
    AfterTheEnd(String),
}

impl fmt::Display for MovesError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MovesError::NotACell(text) => write!(f, "'{}' is not a cell (a1..c3)", quote(text)),
            MovesError::Taken(cell) => write!(f, "{cell} is taken: a cell is played once"),
            MovesError::AfterTheEnd(cell) => write!(f, "{cell} is played after three in a row ended the game"),
        }
    }
}

impl std::error::Error for MovesError {}

/// The board after the cells of `text` are played from the empty board, and the cells; spaces
/// and commas between cells are allowed, `""` is the empty board.
pub fn parse_moves(text: &str) -> Result<(Board, Vec<Cell>), MovesError> {
    let mut board = Board::default();
    let mut cells = Vec::new();
    // Cells run together (`a1b2`) or apart (`a1 b2`, `a1,b2`); a word of odd length is quoted
    // whole, as typed, rather than a pair that straddles two of its cells.
    let mut names = Vec::new();
    for word in text.split(|c: char| c.is_whitespace() || c == ',').filter(|w| !w.is_empty()) {
        let chars: Vec<char> = word.chars().collect();
        if chars.len() % 2 == 1 {
            return Err(MovesError::NotACell(word.to_string()));
        }
        names.extend(chars.chunks(2).map(|pair| pair.iter().collect::<String>()));
    }
    for name in names {
        let cell = Cell::parse(&name.to_ascii_lowercase()).ok_or(MovesError::NotACell(name))?;
        if board.is_won_by_previous() {
            return Err(MovesError::AfterTheEnd(cell.to_string()));
        }
        if (board.x | board.o) & (1 << cell.0) != 0 {
            return Err(MovesError::Taken(cell.to_string()));
        }
        board = board.play(cell);
        cells.push(cell);
    }
    Ok((board, cells))
}

/// The board for the terminal: `X`, `O` and `.`, row 3 at the top, columns a..c below.
pub fn diagram(board: &Board) -> String {
    let mut out = String::new();
    for row in (0..3).rev() {
        out.push_str(&format!("{} ", row + 1));
        for column in 0..3 {
            out.push(mark(board, 3 * row + column));
            out.push(' ');
        }
        out.pop();
        out.push('\n');
    }
    out.push_str("  a b c\n");
    out
}

/// The board on one line for reports: rows from the top, `/` between them (`x.o/.x./...`).
pub(crate) fn board_text(board: &Board) -> String {
    let rows: Vec<String> = (0..3).rev().map(|row| (0..3).map(|c| mark(board, 3 * row + c)).collect()).collect();
    rows.join("/").to_lowercase()
}

fn mark(board: &Board, cell: u8) -> char {
    if board.x >> cell & 1 == 1 {
        'X'
    } else if board.o >> cell & 1 == 1 {
        'O'
    } else {
        '.'
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_read_back_and_codes_round_trip() {
        for c in 0..9 {
            assert_eq!(Cell::parse(&Cell(c).to_string()), Some(Cell(c)));
        }
        assert_eq!(Cell(0).to_string(), "a1");
        assert_eq!(Cell(8).to_string(), "c3");
        let (board, _) = parse_moves("b2a1c3").unwrap();
        assert_eq!(Board::from_code(board.code()), board);
        assert_eq!(board.stones(), 3);
    }

    #[test]
    fn every_image_shares_the_canonical_index() {
        let (board, _) = parse_moves("a1b3").unwrap();
        let canonical = board.canonical();
        for s in 0..8 {
            assert_eq!(board.image(s).canonical(), canonical);
        }
        assert_eq!(board.images(), 8);
        assert_eq!(Board::default().images(), 1);
    }

    #[test]
    fn bad_sequences_say_why() {
        assert_eq!(parse_moves("a1a1"), Err(MovesError::Taken("a1".into())));
        assert_eq!(parse_moves("d1"), Err(MovesError::NotACell("d1".into())));
        assert_eq!(parse_moves("a"), Err(MovesError::NotACell("a".into())));
        // What was typed is quoted, never a pair made across a space or of two cells' halves.
        assert_eq!(parse_moves("1 5"), Err(MovesError::NotACell("1".into())));
        assert_eq!(parse_moves("a1 b22 c3"), Err(MovesError::NotACell("b22".into())));
        assert_eq!(parse_moves("a1b2x9"), Err(MovesError::NotACell("x9".into())));
        assert_eq!(parse_moves("A1, B2").map(|(_, cells)| cells.len()), Ok(2));
        // X takes the bottom row on the fifth move: nothing follows.
        assert_eq!(parse_moves("a1a2b1b2c1c3"), Err(MovesError::AfterTheEnd("c3".into())));
        let (won, _) = parse_moves("a1 a2, b1 b2 c1").unwrap();
        assert!(won.is_won_by_previous() && won.moves().count() == 0);
    }
}
