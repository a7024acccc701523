//! Probing Connect Four positions in the per-ply tables, and by search beyond the opening book
//! of a board too large to tabulate.

use super::board::{Geometry, Position, parse_moves};
use super::catalogue::Connect4;
use crate::catalogue::Catalogue;
use crate::layered::{Layered, LayeredGame, SolvedLayer};
use crate::probe::{LazyTables, Outcome, Probe, ProbeError};
use crate::table::Check;
use crate::value::Value;
use std::fmt;
use std::path::PathBuf;

/// A position with the moves that reached it (its notation).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Game {
    /// The position.
    pub position: Position,
    /// The columns played from the empty board, 1-based.
    pub moves: String,
}

/// A move: the 1-based column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Column(
    /// The column, 1 on the left.
    pub u32,
);

impl fmt::Display for Column {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// The tables of one board in a directory, each ply opened on first use. On a board too large
/// to tabulate ([`Geometry::tabulated`]), or when the directory holds an opening book
/// ([`Connect4::book_on_disk`]), a position of a ply without a table is solved by search.
pub struct Connect4Tablebase {
    dir: PathBuf,
    tables: Layered<Connect4>,
    plies: LazyTables<SolvedLayer>,
    /// Seconds one search may take.
    max_time: Option<f64>,
}

impl Connect4Tablebase {
    /// The tables of board `geometry` in `dir`. Nothing is read until a position needs it.
    pub fn open(dir: impl Into<PathBuf>, geometry: Geometry) -> Connect4Tablebase {
        let tables = Connect4::tables(geometry);
        let plies = LazyTables::new(tables.game().layers() as usize);
        Connect4Tablebase { dir: dir.into(), tables, plies, max_time: None }
    }

    /// The same, with each search stopped after `seconds` (an error, exit 1).
    pub fn with_max_time(self, seconds: Option<f64>) -> Connect4Tablebase {
        Connect4Tablebase { max_time: seconds, ..self }
    }

    /// The board.
    pub fn geometry(&self) -> Geometry {
        self.tables.game().geometry()
    }

    fn ply(&self, ply: u32) -> Result<&SolvedLayer, ProbeError> {
        self.plies.get(
            ply as usize,
            || self.tables.open_layer(&self.dir, ply, |_| Check::Header),
            || self.tables.variant(),
        )
    }

    fn value_of(&self, position: &Position) -> Result<Value, ProbeError> {
        let game = self.tables.game();
        let g = game.geometry();
        if position.is_won_by_previous(&g) {
            return Ok(Value::Loss(0));
        }
        if position.ply == g.cells() {
            return Ok(Value::Draw);
        }
        let layer = match self.ply(position.ply) {
            Ok(layer) => layer,
            Err(ProbeError::NotGenerated { .. }) if self.searches_past_tables() => {
                return self.search(position);
            }
            Err(e) => return Err(e),
        };
        let index = game.ply(position.ply).canonical_index(position);
        // Every legal position of a ply is in its set: one that is not means a damaged set.
        layer.value_at(index)?.ok_or_else(|| layer.set.damaged(index).into())
    }

    /// Whether a ply without a table is searched rather than reported as not generated: asked
    /// of the directory when a table is missing, so that a book built while `serve` runs counts.
    fn searches_past_tables(&self) -> bool {
        let g = self.geometry();
        !g.tabulated() || Connect4::book_on_disk(g, &self.dir).is_some()
    }

    /// The value of a position whose game is not over, by search.
    fn search(&self, position: &Position) -> Result<Value, ProbeError> {
        self.tables.game().search(position, self.max_time).map_err(|e| ProbeError::Search(Box::new(e)))
    }
}

impl Probe for Connect4Tablebase {
    type Position = Game;
    type Move = Column;

    fn parse(&self, text: &str) -> Result<Game, ProbeError> {
        let moves = text.trim();
        let position =
            parse_moves(&self.tables.game().geometry(), moves).map_err(|e| ProbeError::Illegal(e.to_string()))?;
        Ok(Game { position, moves: moves.to_string() })
    }

    fn notation(&self, game: &Game) -> String {
        game.moves.clone()
    }

    fn value(&self, game: &Game) -> Result<Value, ProbeError> {
        self.value_of(&game.position)
    }

    fn moves(&self, game: &Game) -> Result<Vec<Outcome<Self>>, ProbeError> {
        let mut outcomes = Vec::new();
        let mut children = Vec::new();
        game.position
            .for_each_move(&self.tables.game().geometry(), |column, child| children.push((column, child)));
        for (column, child) in children {
            let value = self.value_of(&child)?.for_mover();
            let next = Game { position: child, moves: format!("{}{}", game.moves, column + 1) };
            outcomes.push(Outcome { mv: Column(column + 1), next, value });
        }
        Ok(outcomes)
    }

    fn describe(&self, game: &Game, value: Value) -> String {
        let g = &self.tables.game().geometry();
        let p = &game.position;
        let mut out = diagram(g, p);
        let side = if p.ply.is_multiple_of(2) { "First player (X)" } else { "Second player (O)" };
        out.push_str(&match value {
            Value::Loss(0) if p.ply == g.cells() => format!("{side} to move: the board is full"),
            Value::Loss(0) => format!("{side} to move has lost: the last move made four"),
            value => crate::text::verdict(side, value),
        });
        out.push('\n');
        out
    }

    fn skips_blank_lines(&self) -> bool {
        false // a blank line is the empty board
    }
}

/// The grid with `X` (first player), `O` and `.`, the columns numbered below.
pub fn diagram(g: &Geometry, p: &Position) -> String {
    let first = p.first_player();
    let mut out = String::new();
    for row in (0..g.height).rev() {
        for column in 0..g.width {
            let bit = 1u64 << (column * (g.height + 1) + row);
            out.push(if first & bit != 0 {
                'X'
            } else if p.mask & bit != 0 {
                'O'
            } else {
                '.'
            });
            out.push(' ');
        }
        out.pop();
        out.push('\n');
    }
    out.push_str(&(1..=g.width).map(|c| c.to_string()).collect::<Vec<_>>().join(" "));
    out.push('\n');
    out
}
