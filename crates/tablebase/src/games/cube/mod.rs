//! The 4x4x4 games: Qubic (a stone on any empty cell) and Sogo (a stone drops to the lowest
//! empty cell of one of the 16 columns), four in a row on any of the cube's 76 lines winning.
//! Both are solved by search, on the engine Connect Four's search shares (the `search` module):
//! exact where it finishes, else by proof of who wins; an opening book of their first plies
//! goes through the layered pipeline.

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
