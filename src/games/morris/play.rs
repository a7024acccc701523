//! What a person needs to play Morris: the sides' names, the board and the moves' notation.

use super::{MorrisTablebase, Position};
use crate::play::Play;

impl Play for MorrisTablebase {
    fn side_to_move(&self, position: &Position) -> usize {
        position.to_move.index()
    }

    fn side_names(&self) -> [&'static str; 2] {
        ["White", "Black"]
    }

    fn board(&self, position: &Position) -> String {
        super::diagram(position)
    }

    fn move_hint(&self) -> String {
        "a placement d7, a move d7-d6, or with a mill's removal d7-d6xa1".into()
    }
}
