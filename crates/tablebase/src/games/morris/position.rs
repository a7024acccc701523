//! A Nine Men's Morris position and move, independent of notation and of any table.

use super::board::{POINT_NAMES, Points};
use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
/// A side.
pub enum Color {
    /// Places first.
    White = 0,
    /// Places second.
    Black = 1,
}

impl Color {
    #[inline]
    /// The opponent.
    pub fn other(self) -> Color {
        match self {
            Color::White => Color::Black,
            Color::Black => Color::White,
        }
    }

    #[inline]
    /// 0 for White, 1 for Black: the slot in per-side arrays.
    pub fn index(self) -> usize {
        self as usize
    }

    /// `White` or `Black`.
    pub fn name(self) -> &'static str {
        match self {
            Color::White => "White",
            Color::Black => "Black",
        }
    }
}

/// A position: the stones on the board and in hand of both colours, and the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    /// Stones on the board, indexed by [`Color::index`].
    pub stones: [Points; 2],
    /// Stones still to be placed, indexed by [`Color::index`].
    pub hand: [u8; 2],
    /// The side to move.
    pub to_move: Color,
}

impl Position {
    /// The start position of the game with `stones_per_side` stones in each hand.
    pub fn start(stones_per_side: u8) -> Position {
        Position { stones: [0, 0], hand: [stones_per_side; 2], to_move: Color::White }
    }

    /// A moving-phase position (empty hands) from the side to move's stones and the other's.
    #[inline]
    pub fn moving(mover: Points, other: Points) -> Position {
        Position { stones: [mover, other], hand: [0, 0], to_move: Color::White }
    }

    #[inline]
    /// The stones of the side to move.
    pub fn mover_stones(&self) -> Points {
        self.stones[self.to_move.index()]
    }

    #[inline]
    /// The stones of the side not to move.
    pub fn other_stones(&self) -> Points {
        self.stones[self.to_move.other().index()]
    }

    #[inline]
    /// Every stone on the board.
    pub fn occupied(&self) -> Points {
        self.stones[0] | self.stones[1]
    }

    /// Stones of `color` on the board plus in hand.
    #[inline]
    pub fn material(&self, color: Color) -> u32 {
        self.stones[color.index()].count_ones() + u32::from(self.hand[color.index()])
    }

    /// Whether both hands are empty, so that stones slide (or fly).
    #[inline]
    pub fn is_moving_phase(&self) -> bool {
        self.hand == [0, 0]
    }

    /// The moving-phase class `A-B` (stones of the side to move, of the other side).
    #[inline]
    pub fn class(&self) -> (u32, u32) {
        (self.mover_stones().count_ones(), self.other_stones().count_ones())
    }
}

/// Marks "no point" in the compact fields of [`Move`].
pub const NO_POINT: u8 = u8::MAX;

/// A move: a placement (`from == NO_POINT`), a slide or a fly, with an optional removal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Move {
    /// The point a stone leaves, or `NO_POINT` for a placement.
    pub from: u8,
    /// The point a stone goes to.
    pub to: u8,
    /// The point whose stone is removed, or `NO_POINT`.
    pub remove: u8,
}

impl Move {
    /// Whether a stone comes from the hand.
    pub fn is_placement(&self) -> bool {
        self.from == NO_POINT
    }

    /// The point whose stone the move removes, if it closes a mill.
    pub fn removal(&self) -> Option<usize> {
        (self.remove != NO_POINT).then_some(self.remove as usize)
    }
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.from != NO_POINT {
            write!(f, "{}-", POINT_NAMES[self.from as usize])?;
        }
        write!(f, "{}", POINT_NAMES[self.to as usize])?;
        if self.remove != NO_POINT {
            write!(f, "x{}", POINT_NAMES[self.remove as usize])?;
        }
        Ok(())
    }
}
