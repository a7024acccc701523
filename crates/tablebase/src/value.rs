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
    /// The side to move wins, in a number of plies not known: a proof settled the value but
    /// not the distance (a search of Qubic or Sogo stopped short of it). Never invented: only
    /// a proof that the distance was not found gives it.
    WinUnknown,
    /// The side to move loses, in a number of plies not known (see [`Value::WinUnknown`]).
    LossUnknown,
}

impl Value {
    /// The value of a position with exact distance `distance`: odd distances are wins.
    #[inline]
    pub fn from_distance(distance: u32) -> Value {
        if distance % 2 == 1 { Value::Win(distance) } else { Value::Loss(distance) }
    }

    /// The distance in plies; `None` for a draw and where it is not known.
    pub fn distance(self) -> Option<u32> {
        match self {
            Value::Win(n) | Value::Loss(n) => Some(n),
            Value::Draw | Value::WinUnknown | Value::LossUnknown => None,
        }
    }

    /// Whether the value is a win or a loss whose distance is not known.
    pub fn distance_unknown(self) -> bool {
        matches!(self, Value::WinUnknown | Value::LossUnknown)
    }

    /// The same outcome without its distance: a win or loss becomes one of unknown distance.
    pub fn without_distance(self) -> Value {
        match self {
            Value::Win(_) | Value::WinUnknown => Value::WinUnknown,
            Value::Loss(_) | Value::LossUnknown => Value::LossUnknown,
            Value::Draw => Value::Draw,
        }
    }

    /// The value of a position two of whose moves give `self` and `other`: the better one,
    /// except that a distance is unknown where an unknown one could have been the better (a
    /// win of unknown distance may be quicker than a known one, unless that one takes 1 ply; a
    /// loss of unknown distance may be slower than any known one).
    #[inline]
    pub fn combine(self, other: Value) -> Value {
        // The layered solvers combine every move of every position: the common case first.
        if !self.distance_unknown() && !other.distance_unknown() {
            return self.max(other);
        }
        self.combine_unknown(other)
    }

    #[cold]
    fn combine_unknown(self, other: Value) -> Value {
        match (self, other) {
            (Value::WinUnknown, Value::Win(1)) | (Value::Win(1), Value::WinUnknown) => Value::Win(1),
            (Value::WinUnknown, Value::Win(_)) | (Value::Win(_), Value::WinUnknown) => Value::WinUnknown,
            (Value::LossUnknown, Value::Loss(_)) | (Value::Loss(_), Value::LossUnknown) => Value::LossUnknown,
            (a, b) => a.max(b),
        }
    }

    /// What the side to move gets by moving into a position of this value (for the opponent).
    #[inline]
    pub fn for_mover(self) -> Value {
        match self {
            Value::Win(n) => Value::Loss(n + 1),
            Value::Loss(n) => Value::Win(n + 1),
            Value::Draw => Value::Draw,
            Value::WinUnknown => Value::LossUnknown,
            Value::LossUnknown => Value::WinUnknown,
        }
    }

    /// Orders values by preference of the side to move: quicker wins, then draws, then slower
    /// losses. A win of unknown distance comes after every known win (a known win is the one
    /// to play), a loss of unknown distance before every known loss (it may be the longest).
    /// `max` picks the optimal value among moves of known distance; [`Value::combine`] among
    /// any.
    /// One integer, so that comparing two values is one comparison: losses `0..2^32` by
    /// distance, then an unknown loss, a draw, an unknown win, and wins above `2^34`, the
    /// quickest highest.
    #[inline]
    fn preference(self) -> i64 {
        match self {
            Value::Loss(n) => i64::from(n),
            Value::LossUnknown => 1 << 32,
            Value::Draw => 1 << 33,
            Value::WinUnknown => 1 << 34,
            Value::Win(n) => (1 << 35) - i64::from(n),
        }
    }

    /// `win`, `loss` or `draw`.
    pub fn word(self) -> &'static str {
        match self {
            Value::Win(_) | Value::WinUnknown => "win",
            Value::Loss(_) | Value::LossUnknown => "loss",
            Value::Draw => "draw",
        }
    }
}

impl Ord for Value {
    #[inline]
    fn cmp(&self, other: &Value) -> Ordering {
        self.preference().cmp(&other.preference())
    }
}

impl PartialOrd for Value {
    #[inline]
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
            Value::WinUnknown => write!(f, "win ?"),
            Value::LossUnknown => write!(f, "loss ?"),
        }
    }
}

/// The value of a position from the values its moves give the side to move (each already seen
/// from the mover, see [`Value::for_mover`]); no moves at all is `Loss(0)`.
pub fn best_of(moves: impl IntoIterator<Item = Value>) -> Value {
    moves.into_iter().reduce(Value::combine).unwrap_or(Value::Loss(0))
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

    #[test]
    fn an_unknown_distance_is_never_made_known() {
        use Value::*;
        // A known win in 1 cannot be beaten; any other known win might be by the unknown one.
        assert_eq!(best_of([WinUnknown, Win(1)]), Win(1));
        assert_eq!(best_of([Win(3), WinUnknown, Loss(2)]), WinUnknown);
        assert_eq!(best_of([LossUnknown, Loss(8)]), LossUnknown);
        assert_eq!(best_of([LossUnknown, Draw]), Draw);
        assert_eq!(best_of([WinUnknown, Draw, LossUnknown]), WinUnknown);
        assert_eq!(WinUnknown.for_mover(), LossUnknown);
        assert_eq!(LossUnknown.for_mover().for_mover(), LossUnknown);
        assert_eq!(
            (WinUnknown.distance(), WinUnknown.word(), WinUnknown.to_string()),
            (None, "win", "win ?".into())
        );
        // Known wins are listed first, an unknown loss first among losses.
        assert!(Win(41) > WinUnknown && WinUnknown > Draw);
        assert!(Draw > LossUnknown && LossUnknown > Loss(60));
        assert_eq!(Win(7).without_distance(), WinUnknown);
        assert_eq!(Draw.without_distance(), Draw);
    }
}
