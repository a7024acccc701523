//! Tic-tac-toe, the smallest game of the registry: 5,478 positions reachable in play (765 up to
//! the 8 symmetries of the square), a draw. A layer per number of stones, stored up to symmetry,
//! solved by the shared layered pipeline; the whole game is this folder and one registry line.

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
