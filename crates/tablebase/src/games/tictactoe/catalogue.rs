//! Tic-tac-toe as layers of the shared pipeline: layer `n` holds the positions with `n` stones,
//! indexed by the base-3 code of the least of their images.

use super::board::{Board, board_text};
use super::reference::tictactoe_ply_positions;
use crate::catalogue::Variant;
use crate::layered::{LayeredGame, Step};
use crate::table::TableError;
use crate::value::Value;

/// The game in file headers.
pub const GAME: &str = "tictactoe";
/// The game's name for people.
pub const NAME: &str = "Tic-tac-toe";

/// Tic-tac-toe for the layered pipeline.
#[derive(Clone, Copy, Debug, Default)]
pub struct TicTacToe;

impl LayeredGame for TicTacToe {
    type Position = Board;
    type Walker = ();


    fn name(&self) -> String {
        GAME.into()
    }

    fn title(&self) -> String {
        format!("{NAME}: one table per ply (stones on the board), stored up to the 8 symmetries")
    }

    fn layers(&self) -> u32 {
        10
    }

    fn table_name(&self, ply: u32) -> String {
        format!("ply {ply}")
    }

    fn file_stem(&self, ply: u32) -> String {
        format!("{GAME}-ply{ply}")
    }

    fn index_size(&self, _ply: u32) -> u64 {
        3u64.pow(9)
    }

    fn start(&self) -> Vec<u64> {
        vec![Board::default().canonical()]
    }

    fn position(&self, _ply: u32, _walker: &mut (), index: u64) -> Board {
        Board::from_code(index)
    }

    /// The number of distinct images: the references count every board.
    fn weight(&self, _ply: u32, board: &Board) -> u64 {
        board.images()
    }

    fn for_each_child(&self, _ply: u32, board: &Board, mut f: impl FnMut(u64)) {
        board.moves().for_each(|cell| f(board.play(cell).canonical()));
    }

    fn for_each_step(&self, _ply: u32, board: &Board, mut f: impl FnMut(Step)) -> Result<(), TableError> {
        if !board.is_won_by_previous() && board.stones() == 9 {
            f(Step::Done(Value::Draw)); // a full board without three in a row
        }
        board.moves().for_each(|cell| f(Step::Child(board.play(cell).canonical())));
        Ok(())
    }

    fn reference_positions(&self, ply: u32) -> Option<u64> {
        tictactoe_ply_positions(ply)
    }

    fn notation(&self, _ply: u32, board: &Board) -> String {
        board_text(board)
    }

    fn variant(&self) -> Variant {
        Variant::of(GAME)
    }
}
