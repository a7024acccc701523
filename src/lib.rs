//! `tablebase`: strong solutions of board games by retrograde analysis.

pub mod morris;
pub mod reference;
pub mod rng;
