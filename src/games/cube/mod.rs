//! The 4x4x4 games: Qubic (a stone on any empty cell) and Sogo (a stone drops to the lowest
//! empty cell of one of the 16 columns), four in a row on any of the cube's 76 lines winning.
//! Both are solved by search, on the engine Connect Four's search shares ([`crate::search`]).

pub mod board;
pub mod search;

pub use board::{MovesError, Position, parse_qubic, parse_sogo};
