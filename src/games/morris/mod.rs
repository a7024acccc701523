//! The Morris games on the 24-point board (Nine Men's Morris, Morabaraba): the variants' rules
//! as data, moves, notation, symmetry, the per-class index, the moving phase's catalogue, the
//! opening and probing.

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
pub(crate) mod variant;

pub use board::{POINT_NAMES, Points, point_from_name};
pub use catalogue::{Class, MovingPhase, SolvedClass};
pub use game::{MorabarabaGame, MorrisGame, MorrisTables, morris_tables};
pub use notation::{NotationError, PositionText, parse_move, parse_position};
pub use opening::Opening;
pub use position::{Color, Move, Position};
pub use probe::{MorrisTablebase, diagram};
pub use rules::{for_each_move, is_full_board_draw, is_lost};
pub use symmetry::{BOARD_SYMMETRIES, canonical, transform};
pub use variant::{MAX_MILLS_PER_POINT, MIN_STONES, Morabaraba, MorrisRules, MorrisVariant, Standard};
