//! `tablebase`: strong solutions of board games by retrograde analysis, stored as
//! memory-mapped tables.
//!
//! One module per concern: the games' rules and indices ([`morris`]), reference figures
//! ([`reference`]), the command line ([`cli`]) and its errors ([`error`]), and benchmarks
//! ([`bench`]). See docs/ARCHITECTURE.md.

// Board code indexes fixed-size tables by point and symmetry numbers; ranges read better there.
#![allow(clippy::needless_range_loop)]

pub mod bench;
pub mod cli;
pub mod connect4;
pub mod error;
pub mod morris;
pub mod probe;
pub mod progress;
pub mod reference;
pub mod resources;
pub mod rng;
pub mod solve;
pub mod table;
pub mod value;

pub use error::Error;
pub use morris::{ClassIndex, Color, Move, Position};
pub use value::Value;
