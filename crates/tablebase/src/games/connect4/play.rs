//! What a person needs to play Connect Four: the sides' names, the board and the moves' notation.

use super::{Connect4Tablebase, Game};
use crate::play::Play;

impl Play for Connect4Tablebase {
    fn side_to_move(&self, game: &Game) -> usize {
        (game.position.ply % 2) as usize
    }

    fn side_names(&self) -> [&'static str; 2] {
        ["X", "O"]
    }

    fn board(&self, game: &Game) -> String {
        super::diagram(&self.geometry(), &game.position)
    }

    fn move_hint(&self) -> String {
        format!("a column 1-{}", self.geometry().width)
    }
}
