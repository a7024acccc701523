//! Nine Men's Morris: board, rules, notation, symmetry and the per-class index.

pub mod board;
pub mod index;
pub mod notation;
pub mod position;
pub mod probe;
pub mod rules;
pub mod symmetry;
pub mod tables;

pub use index::ClassIndex;
pub use position::{Color, Move, Position};
pub use probe::MorrisTablebase;
