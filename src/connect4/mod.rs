//! Connect Four on any board with W * (H + 1) <= 64: bitboard rules, a per-ply index, and the
//! forward pass over reachable positions. (Solving, tables and probing: issue 5, in progress.)

pub mod board;
pub mod index;

pub use board::{Geometry, Position};
pub use index::{PlyIndex, Reachable, reachable};
