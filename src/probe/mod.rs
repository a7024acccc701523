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
    /// The position after the move written `mv` (as [`Probe::moves`] writes it), `None` where
    /// no legal move is written so. Games whose values may need searches override it to find
    /// the move without any value: playing a move must not cost a search of every move.
    fn after_move(&self, position: &Self::Position, mv: &str) -> Result<Option<Self::Position>, ProbeError> {
        Ok(self.moves(position)?.into_iter().find(|o| o.mv.to_string() == mv).map(|o| o.next))
    }
    /// Drops what the game keeps for later searches (transposition tables), keeping the tables
    /// mapped: a long-running server calls it once its searches end.
    fn release(&self) {}
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
    let mut value = game.value(position)?;
    let mut moves: Vec<(G::Move, Value)> =
        game.moves(position)?.into_iter().map(|o| (o.mv, o.value)).collect();
    // A value proved without its distance, whose moves all have theirs (a search that ran out
    // of time on the position but not on its moves): the moves give the distance.
    if value.distance_unknown() && !moves.is_empty() {
        let from_moves = crate::value::best_of(moves.iter().map(|&(_, v)| v));
        if from_moves.word() == value.word() && !from_moves.distance_unknown() {
            value = from_moves;
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Position 0, proved a win without its distance, whose moves lead to 1 (lost in 2 for the
    /// other side) and 2 (a win in 1 for it); position 3 the same but one move's value unknown.
    struct Proved;

    impl Probe for Proved {
        type Position = u8;
        type Move = u8;
        fn parse(&self, _text: &str) -> Result<u8, ProbeError> {
            Ok(0)
        }
        fn notation(&self, position: &u8) -> String {
            position.to_string()
        }
        fn value(&self, position: &u8) -> Result<Value, ProbeError> {
            Ok(match position {
                0 | 3 => Value::WinUnknown,
                1 => Value::Loss(2),
                4 => Value::LossUnknown,
                _ => Value::Win(1),
            })
        }
        fn moves(&self, position: &u8) -> Result<Vec<Outcome<Self>>, ProbeError> {
            let to = |next: u8| Outcome { mv: next, next, value: self.value(&next).unwrap().for_mover() };
            Ok(match position {
                0 => vec![to(1), to(2)],
                3 => vec![to(4), to(1), to(2)],
                _ => Vec::new(),
            })
        }
        fn describe(&self, _position: &u8, _value: Value) -> String {
            String::new()
        }
    }

    #[test]
    fn moves_of_known_distance_give_an_unknown_one() {
        assert_eq!(probe(&Proved, &0).unwrap().value, Value::Win(3));
        // A move of unknown distance might win sooner: the distance stays unknown.
        let probed = probe(&Proved, &3).unwrap();
        assert_eq!(probed.value, Value::WinUnknown);
        assert_eq!(probed.moves[0], (1, Value::Win(3)), "a known win is listed first");
    }
}
