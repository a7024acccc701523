//! Probing, shared by every game: a position's value, every move with its outcome (best first),
//! and the best line. How answers are printed is the command line's (`src/cli/output.rs`).

mod error;
mod lazy;

pub use error::ProbeError;
pub(crate) use lazy::LazyTables;

use crate::value::Value;
use std::fmt;

/// A game whose positions can be probed in its tables.
pub trait Probe: Sync {
    /// A position of the game.
    type Position: Clone + Eq + std::hash::Hash;
    /// A move, displayed in the game's notation.
    type Move: Copy + fmt::Display;

    /// Parses one position of the command line's notation.
    fn parse(&self, text: &str) -> Result<Self::Position, ProbeError>;
    /// The position in the notation `parse` reads.
    fn notation(&self, position: &Self::Position) -> String;
    /// The value of the position.
    fn value(&self, position: &Self::Position) -> Result<Value, ProbeError>;
    /// The values of many positions. Games override it to look the tables up in a separate
    /// tight loop, so that the processor overlaps the (mostly cache- and TLB-missing) reads.
    fn values(&self, positions: &[Self::Position]) -> Vec<Result<Value, ProbeError>> {
        positions.iter().map(|p| self.value(p)).collect()
    }
    /// Every legal move with the position it leads to and the value that gives the mover.
    fn moves(&self, position: &Self::Position) -> Result<Vec<Outcome<Self>>, ProbeError>;
    /// A few lines that show the position to a person, and a sentence with its value.
    fn describe(&self, position: &Self::Position, value: Value) -> String;
    /// Whether `probe -` skips blank lines (false where the empty string is a position).
    fn skips_blank_lines(&self) -> bool {
        true
    }
}

/// A legal move, where it leads, and what that gives the side to move.
pub struct Outcome<G: Probe + ?Sized> {
    /// The move.
    pub mv: G::Move,
    /// The position it leads to.
    pub next: G::Position,
    /// What it gives the side to move.
    pub value: Value,
}

/// A probed position: its value and every move, best first.
#[derive(Clone, Debug)]
pub struct Probed<M> {
    /// The value of the position.
    pub value: Value,
    /// Every legal move with what it gives the side to move, best first.
    pub moves: Vec<(M, Value)>,
}

/// The value and all moves of `position`, best first (ties in the order the game lists moves).
pub fn probe<G: Probe>(game: &G, position: &G::Position) -> Result<Probed<G::Move>, ProbeError> {
    let value = game.value(position)?;
    let mut moves: Vec<(G::Move, Value)> =
        game.moves(position)?.into_iter().map(|o| (o.mv, o.value)).collect();
    moves.sort_by_key(|&(_, value)| std::cmp::Reverse(value));
    Ok(Probed { value, moves })
}

/// Plies a drawn line is followed at most before giving up on finding a repetition.
const MAX_DRAW_LINE: usize = 10_000;

/// A principal variation: best moves to the end of the game, or for a draw until a position
/// repeats.
pub fn best_line<G: Probe>(game: &G, position: &G::Position) -> Result<Vec<G::Move>, ProbeError> {
    let mut line = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut current = position.clone();
    loop {
        let value = game.value(&current)?;
        if !seen.insert(current.clone()) || line.len() >= MAX_DRAW_LINE {
            break;
        }
        let moves = game.moves(&current)?;
        // The first move that keeps the value: a win in n goes to a loss in n - 1, a loss in n
        // to a win in n - 1, a draw to a draw. Where the distance is not known, the best move
        // of the same outcome (a known win is then the one to follow).
        let keeps = |o: &Outcome<G>| match value.distance_unknown() {
            false => o.value == value,
            true => o.value.word() == value.word(),
        };
        let Some(best) = moves.into_iter().filter(keeps).reduce(|a, b| if b.value > a.value { b } else { a })
        else {
            break; // no move: the game is over
        };
        line.push(best.mv);
        current = best.next;
    }
    Ok(line)
}
