//! Tic-tac-toe, the smallest game of the registry: 5,478 positions reachable in play (765 up to
//! the 8 symmetries of the square), a draw. A layer per number of stones, stored up to symmetry,
//! solved by the shared layered pipeline; the whole game is this folder and one registry line.
//!
//! Notation: a position is the cells played from the empty board, in order, each `a1`..`c3`
//! (column letter from the left, row digit from the bottom), run together or apart (`b2a1c3`,
//! `b2 a1, c3`); the empty board is the empty string. A move is a cell.

mod board;
mod catalogue;
mod game;
mod picture;
mod play;
mod probe;
mod reference;

pub use board::{Board, Cell, MovesError, diagram, parse_moves};
pub use catalogue::TicTacToe;
internal_use!(catalogue::GAME);
pub use game::TicTacToeGame;
pub use probe::{Played, TicTacToeTablebase};
