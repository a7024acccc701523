//! `tablebase`: strong solutions of board games by retrograde analysis, stored as
//! memory-mapped tables.
//!
//! # Probing
//! A game's tablebase ([`MorrisTablebase`], [`Connect4Tablebase`]) maps its tables on first use
//! and answers through the [`Probe`] trait: a position's [`Value`] (win, loss or draw with the
//! exact distance in plies), every move with its value, and the best line.
//!
//! ```
//! use tablebase::games::connect4::{Connect4, Connect4Tablebase, Geometry};
//! use tablebase::{Probe, Progress, Value, generate};
//!
//! let scratch = tempfile::tempdir()?; // removed when dropped
//! let dir = scratch.path();
//! let board = Geometry::new(4, 4)?;
//! generate(&Connect4::tables(board), dir, &Progress::hidden())?;
//!
//! let tables = Connect4Tablebase::open(dir, board);
//! let empty = tables.parse("")?;
//! assert_eq!(tables.value(&empty)?, Value::Draw);
//! let after = tables.parse("1212121")?; // four in column 1: the side to move has lost
//! assert_eq!(tables.value(&after)?, Value::Loss(0));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Adding a game
//! A game is one module. Whose moves all leave their layer (a ply, stones on the board), it
//! implements [`LayeredGame`] and gets its [`Catalogue`] from [`Layered`]: the forward pass over
//! reachable positions, per-layer sets and tables, all shared. Whose positions repeat, it
//! implements [`Catalogue`] itself with a [`solve::CyclicSet`] per job. Either way
//! [`generate`], [`verify`] and [`info`] do the rest, the same for every game;
//! `examples/tictactoe.rs` is a whole game in one file.
//!
//! The modules: [`catalogue`] (the trait and the generic drivers), [`layered`] (the layered
//! pipeline), [`solve`] (the retrograde solvers and the forward check), [`table`] (the file
//! format), [`probe`] (probing and its output formats), [`morris`] and [`connect4`] (the
//! games), [`reference`] (published figures). See docs/ARCHITECTURE.md.

#![warn(missing_docs)]
// Board code indexes fixed-size tables by point and symmetry numbers; ranges read better there.
#![allow(clippy::needless_range_loop)]

pub mod catalogue;
pub mod game;
pub mod games;
pub mod layered;
pub mod picture;
pub mod play;
mod prefetch;
pub mod probe;
mod progress;
pub mod reference;
mod resources;
#[doc(hidden)]
pub mod rng;
pub mod solve;
pub mod table;
pub mod text;
mod value;

pub use catalogue::{BuildError, Catalogue, generate, info, verify};
pub use games::connect4::Connect4Tablebase;
pub use games::morris::MorrisTablebase;
pub use layered::{Layered, LayeredGame, Step};
pub use probe::{Probe, ProbeError, best_line, probe};
pub use progress::Progress;
pub use table::TableError;
pub use value::{Value, best_of};
