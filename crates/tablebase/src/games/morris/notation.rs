//! Position and move notation of Nine Men's Morris (docs/CLI.md, "Nine Men's Morris").
//!
//! `W:<points> B:<points> <w|b> [<white in hand> <black in hand>]`, or `start`; moves `d2`,
//! `a1-a4`, with a removal appended as `xd7`.

use super::board::{POINT_NAMES, Points, point_from_name, points};
use super::position::{Color, Move, NO_POINT, Position};
use super::rules::hands_alternate;
use super::variant::{MorrisVariant, Standard};
use crate::text::quote;
use std::fmt;

/// What is wrong with a position or move string. Each message is one line and names the part of
/// the input at fault.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NotationError {
    /// The text does not have the shape `W:... B:... w|b [n n]`.
    Malformed {
        /// The part that is malformed.
        text: String,
        /// What was expected there.
        expected: &'static str,
    },
    /// A point name that is not on the board.
    UnknownPoint(String),
    /// A point listed twice for one side.
    DuplicatePoint(String),
    /// A point listed for both sides.
    PointOnBothSides(String),
    /// No side to move after the points.
    MissingSideToMove,
    /// A side to move other than `w` or `b`.
    BadSideToMove(String),
    /// A hand that is not a number.
    BadHand(String),
    /// More stones in hand than a side starts with.
    HandOutOfRange {
        /// The side.
        color: Color,
        /// Its stones in hand.
        hand: u32,
        /// Stones each side starts with.
        stones_per_side: u8,
    },
    /// More stones on the board and in hand than a side starts with.
    TooManyStones {
        /// The side.
        color: Color,
        /// Its stones on the board.
        on_board: u32,
        /// Its stones in hand.
        in_hand: u32,
        /// Stones each side starts with.
        stones_per_side: u8,
    },
    /// Hands that the alternation of placements cannot produce.
    HandsDoNotAlternate {
        /// White's stones in hand.
        white: u8,
        /// Black's stones in hand.
        black: u8,
        /// The side to move.
        to_move: Color,
    },
    /// The side that just moved has fewer than three stones: the game ended before this position.
    GameAlreadyOver(Color),
}

impl fmt::Display for NotationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use NotationError::*;
        match self {
            Malformed { text, expected } => write!(f, "malformed {expected}: '{}'", quote(text)),
            UnknownPoint(p) => write!(f, "unknown point '{}' (points are a1..g7 on the board)", quote(p)),
            DuplicatePoint(p) => write!(f, "point {p} is listed twice"),
            PointOnBothSides(p) => write!(f, "point {p} holds both a white and a black stone"),
            MissingSideToMove => write!(f, "missing side to move (w or b)"),
            BadSideToMove(s) => write!(f, "side to move must be 'w' or 'b', not '{}'", quote(s)),
            BadHand(s) => write!(f, "stones in hand must be a number, not '{}'", quote(s)),
            HandOutOfRange { color, hand, stones_per_side } => write!(
                f,
                "{} has {hand} stones in hand, more than the {stones_per_side} each side starts with",
                color.name()
            ),
            TooManyStones { color, on_board, in_hand, stones_per_side } => write!(
                f,
                "{} has {on_board} stones on the board and {in_hand} in hand, more than the {stones_per_side} it starts with",
                color.name()
            ),
            HandsDoNotAlternate { white, black, to_move } => write!(
                f,
                "hands {white} {black} with {} to move do not fit alternate placing (White places first)",
                color_word(*to_move)
            ),
            GameAlreadyOver(color) => write!(
                f,
                "not reachable: {} moved last but has fewer than 3 stones, so the game was already over",
                color.name()
            ),
        }
    }
}

impl std::error::Error for NotationError {}

fn color_word(color: Color) -> &'static str {
    match color {
        Color::White => "White",
        Color::Black => "Black",
    }
}

fn parse_points(list: &str, text: &str) -> Result<Points, NotationError> {
    let mut set = 0;
    for name in list.split(',').filter(|n| !n.is_empty()) {
        let p = point_from_name(name).ok_or_else(|| NotationError::UnknownPoint(name.to_string()))?;
        if set & (1 << p) != 0 {
            return Err(NotationError::DuplicatePoint(name.to_string()));
        }
        set |= 1 << p;
    }
    if list.starts_with(',') || list.ends_with(',') || list.contains(",,") {
        return Err(NotationError::Malformed { text: text.to_string(), expected: "point list" });
    }
    Ok(set)
}

/// Parses a position of Nine Men's Morris or Morabaraba (placements alternate) where each side
/// starts with `stones_per_side` stones; see [`parse_position_in`].
pub fn parse_position(text: &str, stones_per_side: u8) -> Result<Position, NotationError> {
    parse_position_in::<Standard>(text, stones_per_side)
}

/// Parses a position of variant `V` where each side starts with `stones_per_side` stones, and
/// checks that it can arise in play as far as counting tells: stones and hands within the
/// starting number, hands that fit the alternation where placements alternate, and no side that
/// moved last with fewer than three.
pub fn parse_position_in<V: MorrisVariant>(text: &str, stones_per_side: u8) -> Result<Position, NotationError> {
    let trimmed = text.trim();
    if trimmed == "start" {
        return Ok(Position::start(stones_per_side));
    }
    let malformed = || NotationError::Malformed {
        text: trimmed.to_string(),
        expected: "position (expected 'W:<points> B:<points> w|b [<white hand> <black hand>]')",
    };
    let fields: Vec<&str> = trimmed.split_whitespace().collect();
    let white = fields.first().and_then(|f| f.strip_prefix("W:")).ok_or_else(malformed)?;
    let black = fields.get(1).and_then(|f| f.strip_prefix("B:")).ok_or_else(malformed)?;
    let side = fields.get(2).ok_or(NotationError::MissingSideToMove)?;
    let to_move = match *side {
        "w" => Color::White,
        "b" => Color::Black,
        other => return Err(NotationError::BadSideToMove(other.to_string())),
    };
    let hand = match fields.len() {
        3 => [0, 0],
        5 => {
            let mut hand = [0u8; 2];
            for (color, field) in [Color::White, Color::Black].into_iter().zip(&fields[3..5]) {
                let n: u32 = field.parse().map_err(|_| NotationError::BadHand(field.to_string()))?;
                if n > u32::from(stones_per_side) {
                    return Err(NotationError::HandOutOfRange { color, hand: n, stones_per_side });
                }
                hand[color.index()] = n as u8;
            }
            hand
        }
        _ => return Err(malformed()),
    };
    let white = parse_points(white, trimmed)?;
    let black = parse_points(black, trimmed)?;
    if let Some(p) = points(white & black).next() {
        return Err(NotationError::PointOnBothSides(POINT_NAMES[p].to_string()));
    }
    let pos = Position { stones: [white, black], hand, to_move };
    for color in [Color::White, Color::Black] {
        let on_board = pos.stones[color.index()].count_ones();
        let in_hand = u32::from(pos.hand[color.index()]);
        if on_board + in_hand > u32::from(stones_per_side) {
            return Err(NotationError::TooManyStones { color, on_board, in_hand, stones_per_side });
        }
    }
    if !V::RULES.moves_while_placing && !hands_alternate(hand, to_move) {
        return Err(NotationError::HandsDoNotAlternate { white: hand[0], black: hand[1], to_move });
    }
    if pos.material(to_move.other()) < 3 {
        return Err(NotationError::GameAlreadyOver(to_move.other()));
    }
    Ok(pos)
}

fn write_points(f: &mut fmt::Formatter<'_>, set: Points) -> fmt::Result {
    let mut names: Vec<&str> = points(set).map(|p| POINT_NAMES[p]).collect();
    names.sort_unstable();
    write!(f, "{}", names.join(","))
}

/// Displays a position in the notation [`parse_position`] reads; hands are written only when
/// not both empty.
#[derive(Debug)]
pub struct PositionText<'a>(pub &'a Position);

impl fmt::Display for PositionText<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let pos = self.0;
        write!(f, "W:")?;
        write_points(f, pos.stones[0])?;
        write!(f, " B:")?;
        write_points(f, pos.stones[1])?;
        write!(f, " {}", if pos.to_move == Color::White { 'w' } else { 'b' })?;
        if pos.hand != [0, 0] {
            write!(f, " {} {}", pos.hand[0], pos.hand[1])?;
        }
        Ok(())
    }
}

/// Parses a move string (`d2`, `a1-a4`, `d2xd7`, `a1-a4xd7`); whether it is legal in a given
/// position is for the caller to check against the legal moves.
pub fn parse_move(text: &str) -> Result<Move, NotationError> {
    let text = text.trim();
    if text.is_empty() {
        return Err(NotationError::Malformed { text: text.to_string(), expected: "move" });
    }
    let point = |name: &str| {
        point_from_name(name).map(|p| p as u8).ok_or_else(|| NotationError::UnknownPoint(name.to_string()))
    };
    let (body, remove) = match text.split_once('x') {
        Some((body, removed)) => (body, point(removed)?),
        None => (text, NO_POINT),
    };
    let (from, to) = match body.split_once('-') {
        Some((from, to)) => (point(from)?, point(to)?),
        None => (NO_POINT, point(body)?),
    };
    Ok(Move { from, to, remove })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_examples_parse() {
        let start = parse_position("W: B: w 9 9", 9).unwrap();
        assert_eq!(start, Position::start(9));
        assert_eq!(parse_position("start", 9).unwrap(), start);
        let pos = parse_position("W:a1,d1,g1 B:a4,b4,c4,d2 b", 9).unwrap();
        assert_eq!(pos.stones[0].count_ones(), 3);
        assert_eq!(pos.stones[1].count_ones(), 4);
        assert_eq!(pos.to_move, Color::Black);
        assert_eq!(PositionText(&pos).to_string(), "W:a1,d1,g1 B:a4,b4,c4,d2 b");
        assert_eq!(PositionText(&start).to_string(), "W: B: w 9 9");
    }

    #[test]
    fn moves_round_trip() {
        for text in ["d2", "a1-a4", "d2xd7", "a1-a4xd7", "g7-c3xb2"] {
            assert_eq!(parse_move(text).unwrap().to_string(), text);
        }
        assert!(matches!(parse_move("h9"), Err(NotationError::UnknownPoint(_))));
        assert!(parse_move("-a4").is_err());
        assert!(parse_move("").is_err());
    }
}
