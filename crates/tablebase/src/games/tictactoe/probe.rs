//! Probing tic-tac-toe positions in the per-ply tables.

use super::board::{Board, Cell, board_text, diagram, parse_moves};
use super::catalogue::TicTacToe;
use crate::catalogue::Catalogue;
use crate::layered::{Layered, SolvedLayer};
use crate::probe::{LazyTables, Outcome, Probe, ProbeError};
use crate::table::Check;
use crate::value::Value;
use std::path::PathBuf;

/// A position with the cells that reached it (its notation).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Played {
    /// The position.
    pub board: Board,
    /// The cells played from the empty board, in order.
    pub cells: Vec<Cell>,
}

/// The tic-tac-toe tables in a directory, each ply opened on first use.
pub struct TicTacToeTablebase {
    dir: PathBuf,
    tables: Layered<TicTacToe>,
    plies: LazyTables<SolvedLayer>,
}

impl std::fmt::Debug for TicTacToeTablebase {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TicTacToeTablebase").field("dir", &self.dir).finish_non_exhaustive()
    }
}

impl TicTacToeTablebase {
    /// The tables in `dir`. Nothing is read until a position needs it.
    pub fn open(dir: impl Into<PathBuf>) -> TicTacToeTablebase {
        TicTacToeTablebase { dir: dir.into(), tables: Layered::new(TicTacToe), plies: LazyTables::new(10) }
    }

    fn value_of(&self, board: &Board) -> Result<Value, ProbeError> {
        let ply = board.stones();
        let layer = self.plies.get(
            ply as usize,
            || self.tables.open_layer(&self.dir, ply, |_| Check::Probing),
            || self.tables.variant(),
        )?;
        match layer.value_at(board.canonical())? {
            Some(value) => Ok(value),
            None => Err(ProbeError::Illegal(format!("{} cannot arise in play", board_text(board)))),
        }
    }
}

impl Probe for TicTacToeTablebase {
    type Position = Played;
    type Move = Cell;

    fn unchanged(&self, since: crate::probe::Reads) -> Result<(), ProbeError> {
        self.plies.unchanged(since)
    }

    fn parse(&self, text: &str) -> Result<Played, ProbeError> {
        let (board, cells) = parse_moves(text).map_err(|e| ProbeError::Illegal(e.to_string()))?;
        Ok(Played { board, cells })
    }

    fn notation(&self, played: &Played) -> String {
        played.cells.iter().map(Cell::to_string).collect()
    }

    fn value(&self, played: &Played) -> Result<Value, ProbeError> {
        self.value_of(&played.board)
    }

    fn moves(&self, played: &Played) -> Result<Vec<Outcome<Self>>, ProbeError> {
        played
            .board
            .moves()
            .map(|cell| {
                let board = played.board.play(cell);
                let value = self.value_of(&board)?.for_mover();
                let mut cells = played.cells.clone();
                cells.push(cell);
                Ok(Outcome { mv: cell, next: Played { board, cells }, value })
            })
            .collect()
    }

    fn describe(&self, played: &Played, value: Option<Value>) -> String {
        let board = &played.board;
        let mut out = diagram(board);
        let side = if board.first_to_move() { "X" } else { "O" };
        out.push_str(&match value {
            Some(Value::Loss(0)) => format!("{side} to move has lost: the last move made three in a row"),
            Some(Value::Draw) if board.stones() == 9 => format!("{side} to move: the board is full, a draw"),
            value => crate::text::verdict_or_unknown(side, value),
        });
        out.push('\n');
        out
    }

    fn skips_blank_lines(&self) -> bool {
        false // a blank line is the empty board
    }
}
