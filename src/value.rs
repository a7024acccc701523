//! Game values (docs/CLI.md, "Values"): from the side to move's view, with the exact distance in plies
//! to the end of the game under optimal play.

use std::cmp::Ordering;
use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
/// A game value from the side to move's view, with the exact distance in plies.
pub enum Value {
    /// The side to move wins in this many plies (odd).
    Win(u32),
    /// The side to move loses in this many plies (even; 0: the game is already lost).
    Loss(u32),
    /// Neither side can force a win.
    Draw,
}

impl Value {
    /// The value of a position with exact distance `distance`: odd distances are wins.
    #[inline]
    pub fn from_distance(distance: u32) -> Value {
        if distance % 2 == 1 { Value::Win(distance) } else { Value::Loss(distance) }
    }

    /// The distance in plies; `None` for a draw.
    pub fn distance(self) -> Option<u32> {
        match self {
            Value::Win(n) | Value::Loss(n) => Some(n),
            Value::Draw => None,
        }
    }

    /// What the side to move gets by moving into a position of this value (for the opponent).
    #[inline]
    pub fn for_mover(self) -> Value {
        match self {
            Value::Win(n) => Value::Loss(n + 1),
            Value::Loss(n) => Value::Win(n + 1),
            Value::Draw => Value::Draw,
        }
    }

    /// Orders values by preference of the side to move: quicker wins, then draws, then slower
    /// losses. `max` picks the optimal value among a position's moves.
    fn preference(self) -> (u8, i64) {
        match self {
            Value::Win(n) => (2, -i64::from(n)),
            Value::Draw => (1, 0),
            Value::Loss(n) => (0, i64::from(n)),
        }
    }

    /// `win`, `loss` or `draw`.
    pub fn word(self) -> &'static str {
        match self {
            Value::Win(_) => "win",
            Value::Loss(_) => "loss",
            Value::Draw => "draw",
        }
    }
}

impl Ord for Value {
    fn cmp(&self, other: &Value) -> Ordering {
        self.preference().cmp(&other.preference())
    }
}

impl PartialOrd for Value {
    fn partial_cmp(&self, other: &Value) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Win(n) => write!(f, "win {n}"),
            Value::Loss(n) => write!(f, "loss {n}"),
            Value::Draw => write!(f, "draw"),
        }
    }
}

/// The value of a position from the values its moves give the side to move (each already seen
/// from the mover, see [`Value::for_mover`]); no moves at all is `Loss(0)`.
pub fn best_of(moves: impl IntoIterator<Item = Value>) -> Value {
    moves.into_iter().max().unwrap_or(Value::Loss(0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn preference_order() {
        assert!(Value::Win(1) > Value::Win(3));
        assert!(Value::Win(99) > Value::Draw);
        assert!(Value::Draw > Value::Loss(100));
        assert!(Value::Loss(4) > Value::Loss(2));
        assert_eq!(best_of([]), Value::Loss(0));
        assert_eq!(best_of([Value::Loss(2), Value::Loss(6)]), Value::Loss(6));
        assert_eq!(Value::Loss(0).for_mover(), Value::Win(1));
        assert_eq!(Value::from_distance(26), Value::Loss(26));
    }
}
