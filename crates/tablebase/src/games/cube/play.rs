//! What a person needs to play a cube game: the sides' names, the cube and the moves' notation.

use super::probe::{CubeTablebase, Played, diagram};
use crate::play::Play;

impl<const GRAVITY: bool> Play for CubeTablebase<GRAVITY> {
    fn side_to_move(&self, played: &Played<GRAVITY>) -> usize {
        (played.position.ply % 2) as usize
    }

    fn side_names(&self) -> [&'static str; 2] {
        ["White", "Black"]
    }

    fn board(&self, played: &Played<GRAVITY>) -> String {
        diagram(&played.position)
    }

    fn move_hint(&self) -> String {
        match GRAVITY {
            true => "a column a1-d4 (column letter, row digit)".into(),
            false => "a cell a11-d44 (column letter, row digit, height digit)".into(),
        }
    }
}
