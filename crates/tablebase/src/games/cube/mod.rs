//! The 4x4x4 games: Qubic (a stone on any empty cell) and Sogo (a stone drops to the lowest
//! empty cell of one of the 16 columns), four in a row on any of the cube's 76 lines winning.
//! Both are solved by search, on the engine Connect Four's search shares ([`crate::search`]):
//! exact where it finishes, else by proof of who wins; an opening book of their first plies
//! goes through the layered pipeline.

pub mod board;
pub mod catalogue;
mod game;
mod picture;
mod play;
mod probe;
pub mod search;
pub mod sogo;
pub mod solver;
pub mod strategy;

pub use board::{MovesError, Position, parse_qubic, parse_sogo};
pub use catalogue::CubeBook;
pub use game::{CubeGame, QubicGame, SogoGame};
pub use picture::cube_svg;
pub use probe::{CubeMove, CubeTablebase, Played, diagram};
pub use solver::CubeSolver;
