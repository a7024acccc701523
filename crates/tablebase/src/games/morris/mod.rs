//! The Morris games on the 24-point board (Nine Men's Morris, Morabaraba, Lasker Morris): the
//! variants' rules as data, moves, notation, symmetry, the per-class index, sectors, the moving
//! phase's catalogue, the opening, Lasker's sectors and probing.
//!
//! Notation (what [`MorrisTablebase`]'s `parse` reads and `notation` writes): points `a1`..`g7`
//! (file letter, rank digit, as on the printed board); a position is `W:` and White's points
//! joined by commas, ` B:` and Black's, the side to move `w` or `b`, then, while stones are in
//! hand, White's and Black's counts: `W:a1,d1 B:a4 b 7 8`; `start` (or `W: B: w K K`) is the
//! start of the K-stone game. A move is a placement `d2`, a slide `a1-a4`, either followed by
//! the stone it removes (`d2xd7`, `a1-a4xd7`). Lasker positions always carry both hands.

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
