//! Connect Four on any board with W * (H + 1) <= 64: bitboard rules, a per-ply index, and the
//! game as layers of the shared layered pipeline.
//!
//! Notation: a position is the 1-based columns played from the empty board, one digit each
//! (`4453`; the empty board is the empty string), so boards are at most 9 columns wide; a move
//! is a column.

mod board;
mod catalogue;
mod game;
pub(crate) mod index;
mod picture;
mod play;
mod probe;
pub(crate) mod reference;
internal_mod!(search);

pub use board::{Geometry, MovesError, Position, SizeError, parse_moves};
internal_use!(board::TABULATED_CELLS);
pub use catalogue::Connect4;
internal_use!(catalogue::GAME);
pub use game::Connect4Game;
internal_use!(index::{MAX_WIDTH, PlyIndex, Walker});
pub use probe::{Column, Connect4Tablebase, Game, diagram};
pub use search::SearchError;
pub(crate) use reference::{connect4_board, connect4_ply_positions};
