//! Nine Men's Morris: board, rules, notation, symmetry, the per-class index, the moving phase's
//! catalogue and probing.

pub(crate) mod board;
mod catalogue;
mod game;
pub(crate) mod index;
mod notation;
mod opening;
pub(crate) mod position;
mod picture;
mod play;
mod probe;
pub(crate) mod reference;
pub(crate) mod rules;
mod symmetry;

pub use board::{POINT_NAMES, Points, point_from_name};
pub use catalogue::{Class, GAME, MovingPhase, SolvedClass};
pub use game::{MorrisGame, MorrisTables, morris_tables};
pub use index::{MAX_STONES, MIN_STONES};
pub use notation::{NotationError, PositionText, parse_move, parse_position};
pub use opening::Opening;
pub use position::{Color, Move, Position};
pub use probe::{MorrisTablebase, diagram};
pub use rules::{for_each_move, is_lost};
pub use symmetry::{BOARD_SYMMETRIES, canonical, transform};
pub(crate) use reference::{morris_class_size, morris_class_wdl};
