//! The 4x4x4 games: Qubic (a stone on any empty cell) and Sogo (a stone drops to the lowest
//! empty cell of one of the 16 columns), four in a row on any of the cube's 76 lines winning.
//! Both are solved by search, on the engine Connect Four's search shares (the `search` module):
//! exact where it finishes, else by proof of who wins; an opening book of their first plies
//! goes through the layered pipeline.
//!
//! Notation: a Qubic position is the cells played from the empty cube, each `a11`..`d44`
//! (column letter, row digit, height digit from the bottom): `a11d44`; a Sogo position the
//! columns played, each `a1`..`d4` (`a1b2a1`: the second stone in a1 lands on the first);
//! spaces or commas between moves are allowed, and the empty cube is the empty string. Sogo's
//! proof journal writes a position whole instead, layer by layer from the floor up
//! (four layers joined by `|`, each four rows joined by `/` of `x`, `o` and `.`).

internal_mod!(board);
internal_mod!(catalogue);
mod game;
internal_mod!(journal);
internal_mod!(parts);
mod picture;
mod play;
mod probe;
internal_mod!(search);
internal_mod!(sogo);
internal_mod!(solver);
internal_mod!(strategy);

pub use board::{MovesError, Position, parse_qubic, parse_sogo};
internal_use!(catalogue::CubeBook);
pub use game::{CubeGame, QubicGame, SogoGame};
internal_use!(picture::cube_svg);
pub use probe::{CubeMove, CubeTablebase, Played, diagram};
pub use journal::JournalError;
pub use sogo::ProofJournal;
internal_use!(solver::CubeSolver);
