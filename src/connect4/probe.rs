//! Probing Connect Four positions in the per-ply tables.

use super::board::{Geometry, Position, parse_moves};
use super::tables::{SolvedPly, table_path};
use crate::probe::{Outcome, Probe, ProbeError};
use crate::table::{Check, TableError};
use crate::value::Value;
use std::fmt;
use std::path::PathBuf;
use std::sync::OnceLock;

/// A position with the moves that reached it (its notation).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Game {
    pub position: Position,
    pub moves: String,
}

/// A move: the 1-based column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Column(pub u32);

impl fmt::Display for Column {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// The tables of one board in a directory, each ply opened on first use.
pub struct Connect4Tablebase {
    dir: PathBuf,
    geometry: Geometry,
    plies: Vec<OnceLock<Result<SolvedPly, TableError>>>,
}

impl Connect4Tablebase {
    pub fn open(dir: impl Into<PathBuf>, geometry: Geometry) -> Connect4Tablebase {
        let plies = (0..=geometry.cells()).map(|_| OnceLock::new()).collect();
        Connect4Tablebase { dir: dir.into(), geometry, plies }
    }

    fn ply(&self, ply: u32) -> Result<&SolvedPly, ProbeError> {
        let opened = self.plies[ply as usize]
            .get_or_init(|| SolvedPly::open(&self.dir, self.geometry, ply, Check::Header));
        opened.as_ref().map_err(|e| match e {
            TableError::Missing { .. } => ProbeError::NotGenerated {
                path: table_path(&self.dir, self.geometry, ply),
                command: format!(
                    "tablebase generate connect4 --size {} --dir {}",
                    self.geometry,
                    self.dir.display()
                ),
            },
            other => ProbeError::Damaged(other.to_string()),
        })
    }

    fn value_of(&self, position: &Position) -> Result<Value, ProbeError> {
        let g = &self.geometry;
        if position.is_won_by_previous(g) {
            return Ok(Value::Loss(0));
        }
        if position.ply == g.cells() {
            return Ok(Value::Draw);
        }
        self.ply(position.ply)?.value(position).ok_or_else(|| {
            ProbeError::Damaged(format!("position missing from the {g} ply {} table", position.ply))
        })
    }
}

impl Probe for Connect4Tablebase {
    type Position = Game;
    type Move = Column;

    fn parse(&self, text: &str) -> Result<Game, ProbeError> {
        let moves = text.trim();
        let position = parse_moves(&self.geometry, moves).map_err(|e| ProbeError::Illegal(e.to_string()))?;
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
        game.position.for_each_move(&self.geometry, |column, child| children.push((column, child)));
        for (column, child) in children {
            let value = self.value_of(&child)?.for_mover();
            let next = Game { position: child, moves: format!("{}{}", game.moves, column + 1) };
            outcomes.push(Outcome { mv: Column(column + 1), next, value });
        }
        Ok(outcomes)
    }

    fn describe(&self, game: &Game, value: Value) -> String {
        let g = &self.geometry;
        let p = &game.position;
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
        let side = if p.ply.is_multiple_of(2) { "First player (X)" } else { "Second player (O)" };
        out.push_str(&match value {
            Value::Win(n) => format!("{side} to move wins in {n} plies\n"),
            Value::Loss(0) if p.ply == g.cells() => format!("{side} to move: the board is full\n"),
            Value::Loss(0) => format!("{side} to move has lost: the last move made four\n"),
            Value::Loss(n) => format!("{side} to move loses in {n} plies\n"),
            Value::Draw => format!("{side} to move: draw\n"),
        });
        out
    }

    fn skips_blank_lines(&self) -> bool {
        false // a blank line is the empty board
    }
}
