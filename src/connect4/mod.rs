//! Connect Four on any board with W * (H + 1) <= 64: bitboard rules, a per-ply index, and the
//! forward pass over reachable positions, and per-ply tables solved by the shared solver.

pub mod board;
pub mod index;
pub mod probe;
pub mod tables;

pub use board::{Geometry, Position};
pub use index::{PlyIndex, forward, reachable_counts};
pub use probe::Connect4Tablebase;
