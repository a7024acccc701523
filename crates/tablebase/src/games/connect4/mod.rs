//! Connect Four on any board with W * (H + 1) <= 64: bitboard rules, a per-ply index, and the
//! game as layers of the shared layered pipeline.

mod board;
mod catalogue;
mod game;
pub(crate) mod index;
mod picture;
mod play;
mod probe;
pub(crate) mod reference;
pub mod search;

pub use board::{Geometry, MovesError, Position, SizeError, TABULATED_CELLS, parse_moves};
pub use catalogue::{Connect4, GAME};
pub use game::Connect4Game;
pub use index::{MAX_WIDTH, PlyIndex, Walker};
pub use probe::{Column, Connect4Tablebase, Game, diagram};
pub use search::SearchError;
pub(crate) use reference::{connect4_board, connect4_ply_positions};
