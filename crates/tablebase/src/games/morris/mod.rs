//! The Morris games on the 24-point board (Nine Men's Morris, Morabaraba, Lasker Morris): the
//! variants' rules as data, moves, notation, symmetry, the per-class index, sectors, the moving
//! phase's catalogue, the opening, Lasker's sectors and probing.

pub(crate) mod board;
mod catalogue;
mod game;
mod lasker;
pub(crate) mod index;
mod notation;
mod opening;
pub(crate) mod position;
mod picture;
mod play;
mod probe;
pub(crate) mod reference;
pub(crate) mod rules;
pub(crate) mod sector;
mod symmetry;
pub(crate) mod variant;

pub use board::{POINT_NAMES, Points, point_from_name};
pub use catalogue::Class;
internal_use!(catalogue::MovingPhase);
internal_use!(index::ClassIndex);
pub use game::{LaskerGame, MorabarabaGame, MorrisGame, MorrisTables, morris_tables};
pub use lasker::Sectors;
pub use notation::{NotationError, PositionText, parse_move, parse_position, parse_position_in};
internal_use!(sector::{Exit, Sector, SolvedClass});
internal_use!(opening::{Opening, PlacementCursor});
pub use position::{Color, Move, Position};
pub use probe::{MorrisTablebase, diagram};
internal_use!(rules::{for_each_move, is_full_board_draw, is_lost});
internal_use!(symmetry::{BOARD_SYMMETRIES, canonical, transform});
pub use variant::{Lasker, MAX_MILLS_PER_POINT, MIN_STONES, Morabaraba, MorrisRules, MorrisVariant, Standard};
