//! What a person needs to play tic-tac-toe: the sides' names, the board and the moves' notation.

use super::board::diagram;
use super::probe::{Played, TicTacToeTablebase};
use crate::play::Play;

impl Play for TicTacToeTablebase {
    fn side_to_move(&self, played: &Played) -> usize {
        usize::from(!played.board.first_to_move())
    }

    fn side_names(&self) -> [&'static str; 2] {
        ["X", "O"]
    }

    fn board(&self, played: &Played) -> String {
        diagram(&played.board)
    }

    fn move_hint(&self) -> String {
        "a cell a1-c3 (column letter, row digit)".into()
    }
}
