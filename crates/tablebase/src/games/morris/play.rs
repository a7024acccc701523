//! What a person needs to play a Morris variant: the sides' names, the board and the moves' notation.

use super::variant::MorrisVariant;
use super::{MorrisTablebase, Position};
use crate::play::Play;

impl<V: MorrisVariant> Play for MorrisTablebase<V> {
    fn side_to_move(&self, position: &Position) -> usize {
        position.to_move.index()
    }

    fn side_names(&self) -> [&'static str; 2] {
        ["White", "Black"]
    }

    fn board(&self, position: &Position) -> String {
        super::diagram(position, &V::RULES)
    }

    fn move_hint(&self) -> String {
        "a placement d7, a move d7-d6, or with a mill's removal d7-d6xa1".into()
    }
}
