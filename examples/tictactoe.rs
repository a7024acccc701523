//! Tic-tac-toe, solved by the same generic code as Nine Men's Morris and Connect Four, written
//! only against the library's public traits: the game is a [`LayeredGame`] (a layer per number
//! of stones), stored up to the 8 symmetries of the square; [`generate`], [`verify`] and
//! [`info`] are the library's; probing goes through the [`Probe`] trait.
//!
//! `cargo run --release --example tictactoe [DIR]` prints the value of the empty board, the
//! counts per layer and the best line.

use std::path::{Path, PathBuf};
use tablebase::catalogue::TableOutcome;
use tablebase::layered::{Layered, LayeredGame, SolvedLayer, Step};
use tablebase::probe::{Outcome, ProbeError};
use tablebase::table::Check;
use tablebase::{Probe, Progress, TableError, Value, best_line, generate, info, verify};

/// The eight lines of three.
const LINES: [u16; 8] = [0o007, 0o070, 0o700, 0o111, 0o222, 0o444, 0o421, 0o124];

/// Cell `i` (row-major, 0 top left) goes to `SYMMETRIES[s][i]` under symmetry `s`.
const SYMMETRIES: [[usize; 9]; 8] = [
    [0, 1, 2, 3, 4, 5, 6, 7, 8],
    [2, 5, 8, 1, 4, 7, 0, 3, 6],
    [8, 7, 6, 5, 4, 3, 2, 1, 0],
    [6, 3, 0, 7, 4, 1, 8, 5, 2],
    [2, 1, 0, 5, 4, 3, 8, 7, 6],
    [6, 7, 8, 3, 4, 5, 0, 1, 2],
    [0, 3, 6, 1, 4, 7, 2, 5, 8],
    [8, 5, 2, 7, 4, 1, 6, 3, 0],
];

/// A position: the cells of the first player (x) and of the second (o), 9 bits each.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Board {
    x: u16,
    o: u16,
}

impl Board {
    fn stones(&self) -> u32 {
        (self.x | self.o).count_ones()
    }

    /// The stones of the side that moved last.
    fn previous(&self) -> u16 {
        if self.stones() % 2 == 1 { self.x } else { self.o }
    }

    fn is_won_by_previous(&self) -> bool {
        let previous = self.previous();
        LINES.iter().copied().any(|line| previous & line == line)
    }

    fn play(&self, cell: usize) -> Board {
        let bit = 1 << cell;
        if self.stones().is_multiple_of(2) {
            Board { x: self.x | bit, o: self.o }
        } else {
            Board { x: self.x, o: self.o | bit }
        }
    }

    /// The empty cells, unless the game is over.
    fn moves(&self) -> impl Iterator<Item = usize> + use<> {
        let over = self.is_won_by_previous() || self.stones() == 9;
        let empty = if over { 0 } else { !(self.x | self.o) & 0o777 };
        (0..9).filter(move |c| empty & (1 << c) != 0)
    }

    fn image(&self, symmetry: usize) -> Board {
        let map =
            |cells: u16| (0..9).filter(|c| cells & (1 << c) != 0).map(|c| 1 << SYMMETRIES[symmetry][c]).sum();
        Board { x: map(self.x), o: map(self.o) }
    }

    /// The base-3 code of the board: 0 empty, 1 x, 2 o per cell.
    fn code(&self) -> u64 {
        (0..9).rev().fold(0, |code, c| code * 3 + u64::from(self.x >> c & 1) + 2 * u64::from(self.o >> c & 1))
    }

    fn from_code(mut code: u64) -> Board {
        let mut board = Board { x: 0, o: 0 };
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

    /// The index shared by a position and its images: the least code.
    fn canonical(&self) -> u64 {
        (0..8).map(|s| self.image(s).code()).min().unwrap_or(0)
    }

    /// `x.o......`: the cells row by row.
    fn text(&self) -> String {
        (0..9)
            .map(|c| {
                if self.x >> c & 1 == 1 {
                    'x'
                } else if self.o >> c & 1 == 1 {
                    'o'
                } else {
                    '.'
                }
            })
            .collect()
    }

    fn parse(text: &str) -> Option<Board> {
        let cells: Vec<char> = text.trim().chars().collect();
        if cells.len() != 9 {
            return None;
        }
        let mut board = Board { x: 0, o: 0 };
        for (c, ch) in cells.into_iter().enumerate() {
            match ch {
                'x' => board.x |= 1 << c,
                'o' => board.o |= 1 << c,
                '.' => {}
                _ => return None,
            }
        }
        Some(board)
    }
}

/// Tic-tac-toe for the layered pipeline: layer `n` holds the positions with `n` stones.
pub struct TicTacToe;

impl LayeredGame for TicTacToe {
    type Position = Board;
    type Walker = ();

    fn game(&self) -> &'static str {
        "tictactoe"
    }

    fn name(&self) -> String {
        "tictactoe".into()
    }

    fn title(&self) -> String {
        "Tic-tac-toe: one table per number of stones, up to the 8 symmetries".into()
    }

    fn layers(&self) -> u32 {
        10
    }

    fn layer_word(&self) -> &'static str {
        "stones"
    }

    fn table_name(&self, layer: u32) -> String {
        format!("stones {layer}")
    }

    fn file_stem(&self, layer: u32) -> String {
        format!("tictactoe-{layer}")
    }

    fn index_size(&self, _layer: u32) -> u64 {
        3u64.pow(9)
    }

    fn start(&self) -> Vec<u64> {
        vec![0]
    }

    fn position(&self, _layer: u32, _walker: &mut (), index: u64) -> Board {
        Board::from_code(index)
    }

    /// The number of distinct images of the position.
    fn weight(&self, _layer: u32, board: &Board) -> u64 {
        let mut images: Vec<u64> = (0..8).map(|s| board.image(s).code()).collect();
        images.sort_unstable();
        images.dedup();
        images.len() as u64
    }

    fn for_each_child(&self, _layer: u32, board: &Board, mut f: impl FnMut(u64)) {
        board.moves().for_each(|cell| f(board.play(cell).canonical()));
    }

    fn for_each_step(&self, _layer: u32, board: &Board, mut f: impl FnMut(Step)) -> Result<(), TableError> {
        if !board.is_won_by_previous() && board.stones() == 9 {
            f(Step::Done(Value::Draw)); // a full board without three in a row
        }
        board.moves().for_each(|cell| f(Step::Child(board.play(cell).canonical())));
        Ok(())
    }

    fn notation(&self, _layer: u32, board: &Board) -> String {
        board.text()
    }

    fn variant(&self) -> tablebase::catalogue::Variant {
        tablebase::catalogue::Variant::of("tictactoe")
    }
}

/// The solved tables, all layers mapped.
pub struct TicTacToeTables {
    layers: Vec<SolvedLayer>,
}

impl TicTacToeTables {
    /// Opens every layer in `dir`.
    pub fn open(dir: &Path) -> Result<TicTacToeTables, TableError> {
        let tables = Layered(TicTacToe);
        let layers = (0..10)
            .map(|layer| tables.open_layer(dir, layer, |_| Check::Header))
            .collect::<Result<_, _>>()?;
        Ok(TicTacToeTables { layers })
    }
}

impl Probe for TicTacToeTables {
    type Position = Board;
    type Move = usize;

    fn parse(&self, text: &str) -> Result<Board, ProbeError> {
        Board::parse(text)
            .ok_or_else(|| ProbeError::Illegal(format!("not a board of 9 cells x, o or .: '{text}'")))
    }

    fn notation(&self, board: &Board) -> String {
        board.text()
    }

    fn value(&self, board: &Board) -> Result<Value, ProbeError> {
        let layer = &self.layers[board.stones() as usize];
        match layer.value_at(board.canonical()) {
            Ok(Some(value)) => Ok(value),
            Ok(None) => Err(ProbeError::Illegal(format!("{} cannot arise in play", board.text()))),
            Err(e) => Err(e.into()),
        }
    }

    fn moves(&self, board: &Board) -> Result<Vec<Outcome<Self>>, ProbeError> {
        board
            .moves()
            .map(|cell| {
                let next = board.play(cell);
                Ok(Outcome { mv: cell + 1, next, value: self.value(&next)?.for_mover() })
            })
            .collect()
    }

    fn describe(&self, board: &Board, value: Value) -> String {
        format!("{} {value}", board.text())
    }
}

/// What the example finds.
#[derive(Debug)]
pub struct Summary {
    /// The value of the empty board for the first player.
    pub start: Value,
    /// Reachable positions, every image counted.
    pub positions: u64,
    /// Reachable positions up to symmetry: the entries of the tables.
    pub entries: u64,
    /// Tables whose values all agree with their moves and whose checksums are right.
    pub verified: usize,
    /// The best line from the empty board, cells 1..9.
    pub line: Vec<usize>,
}

/// Generates, verifies and probes tic-tac-toe in `dir`, with nothing but the generic code.
pub fn solve(dir: &Path) -> Result<Summary, Box<dyn std::error::Error>> {
    let catalogue = Layered(TicTacToe);
    generate(&catalogue, dir, &Progress::hidden())?;
    let mut verified = 0;
    verify(&catalogue, dir, false, None, &Progress::hidden(), |outcome| match outcome {
        TableOutcome::Checked(report) if !report.failed() && report.consistent == Some(true) => {
            verified += 1;
            Ok(())
        }
        other => Err(format!("{other:?}")),
    })?;
    let rows = info(&catalogue, dir);
    let positions = rows.iter().filter_map(|row| row.positions).sum();
    let tables = TicTacToeTables::open(dir)?;
    let entries = tables.layers.iter().map(|l| l.set.len()).sum();
    let empty = tables.parse(".........")?;
    Ok(Summary {
        start: tables.value(&empty)?,
        positions,
        entries,
        verified,
        line: best_line(&tables, &empty)?,
    })
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = std::env::args()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| std::env::temp_dir().join("tablebase-tictactoe"));
    let summary = solve(&dir)?;
    println!("tic-tac-toe, tables in {}", dir.display());
    for row in info(&Layered(TicTacToe), &dir) {
        println!("  {}", row.text());
    }
    println!("empty board: {} for the first player", summary.start);
    println!("reachable positions: {} ({} up to symmetry)", summary.positions, summary.entries);
    println!("tables verified: {} of 10", summary.verified);
    let line: Vec<String> = summary.line.iter().map(|c| c.to_string()).collect();
    println!("best line (cells 1..9, row by row): {}", line.join(" "));
    Ok(())
}
