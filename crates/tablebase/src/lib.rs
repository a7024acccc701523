//! `tablebase`: strong solutions of board games by retrograde analysis, stored as
//! memory-mapped tables.
//!
//! Three kinds of game, three ways to answer a position:
//! - **tables**: every position solved, one table per layer or class (Morris, tic-tac-toe,
//!   Connect Four on a small board);
//! - **a book and search**: the tables of the first plies (an opening book, its last ply solved
//!   by search), then a search past them (Connect Four 7x6, Qubic);
//! - **search only**: no table at all, the position searched when asked (Qubic and Sogo past
//!   their books).
//!
//! Each game's tablebase ([`MorrisTablebase`], [`Connect4Tablebase`],
//! [`CubeTablebase`](games::cube::CubeTablebase), ...) answers through the [`Probe`] trait: a
//! position's [`Value`] (win, loss or draw with the exact distance in plies), every move with
//! its value, and the best line. [`generate`] builds tables, with [`GenerateOptions`] (how they
//! are stored, one job of the plan, where progress goes); [`verify`] and [`info`] check and
//! list them.
//!
//! # Tables
//! ```
//! use tablebase::games::connect4::{Connect4, Connect4Tablebase, Geometry};
//! use tablebase::{GenerateOptions, Probe, Value, generate};
//!
//! let scratch = tempfile::tempdir()?; // removed when dropped
//! let dir = scratch.path();
//! let board = Geometry::new(4, 4)?;
//! generate(&Connect4::tables(board), dir, &GenerateOptions::default())?;
//!
//! let tables = Connect4Tablebase::open(dir, board);
//! let empty = tables.parse("")?;
//! assert_eq!(tables.value(&empty)?, Value::Draw);
//! let after = tables.parse("1212121")?; // four in column 1: the side to move has lost
//! assert_eq!(tables.value(&after)?, Value::Loss(0));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # A book and search
//! The book of Connect Four 5x4 holds plies 0 to 6, the last solved by search; a position past
//! it is searched, within a time limit.
//! ```
//! use tablebase::games::connect4::{Connect4, Connect4Tablebase, Geometry};
//! use tablebase::probe::probe;
//! use tablebase::{GenerateOptions, Probe, Value, generate};
//!
//! let scratch = tempfile::tempdir()?;
//! let dir = scratch.path();
//! let board = Geometry::new(5, 4)?;
//! generate(&Connect4::book(board, 6), dir, &GenerateOptions::default())?;
//!
//! let tables = Connect4Tablebase::open(dir, board).with_max_time(Some(60.0));
//! assert_eq!(tables.value(&tables.parse("")?)?, Value::Draw); // from the book
//! let past = tables.parse("12345123451")?; // 11 plies: searched
//! assert_eq!(tables.value(&past)?, Value::Win(9));
//! let answer = probe(&tables, &past)?;
//! assert_eq!(answer.moves.len(), 5);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Search only
//! Qubic with no book in the directory: the prover and the exact search answer.
//! ```
//! use tablebase::games::cube::CubeTablebase;
//! use tablebase::{Probe, Value};
//!
//! let empty = tempfile::tempdir()?;
//! let qubic = CubeTablebase::<false>::open(empty.path(), Some(60.0));
//! let threat = qubic.parse("a11 a12 b11 b12 c11 c12")?; // White completes a line with d11
//! assert_eq!(qubic.value(&threat)?, Value::Win(1));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Any game of the registry
//! [`games`] names every game once; [`Game`](game::Game) is what each gives: its settings, the
//! tables each command works on ([`generate`], [`verify`], [`info`]), its tablebase and its
//! start. Generic code runs for a game chosen by its key through [`games::with_game`]:
//!
//! ```
//! use tablebase::catalogue::Variant;
//! use tablebase::game::{Game, Purpose};
//! use tablebase::games::{ForGame, with_game};
//! use tablebase::{GenerateOptions, Probe, Value, generate};
//! use std::path::Path;
//!
//! /// Generates a game's tables in a directory and gives the value of its start.
//! struct Solve<'a>(&'a Path);
//!
//! impl ForGame for Solve<'_> {
//!     type Output = Value;
//!     fn run<G: Game>(self) -> Value {
//!         let game = G::from_variant(&Variant::of(G::KEY), Purpose::Generate).unwrap();
//!         let tables = game.catalogue(self.0, Purpose::Generate).unwrap();
//!         generate(&tables, self.0, &GenerateOptions::default()).unwrap();
//!         let tablebase = game.tablebase(self.0, None);
//!         tablebase.value(&tablebase.parse(&game.start()).unwrap()).unwrap()
//!     }
//! }
//!
//! let scratch = tempfile::tempdir()?;
//! assert_eq!(with_game("tictactoe", Solve(scratch.path())), Some(Value::Draw));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # The API, and what stays inside
//! What a program needs is exported here and in the public modules: the registry ([`games`],
//! [`game`]), [`generate`] with its [`GenerateOptions`], [`verify`], [`info`] and
//! [`plan`](catalogue::plan) with their reports (each deriving `serde::Serialize`), the tablebases and
//! [`Probe`] with [`probe()`](fn@probe) and [`ProbeReport`], [`Value`], the errors ([`BuildError`],
//! [`TableError`], [`ProbeError`]), [`within`], a time bound on many searches, and [`Work`],
//! searches that another thread may stop (with [`Report::stop_requested`] for long runs, how a
//! caller's Ctrl-C ends them). The file
//! format, the solvers, the searches and the text helpers are not part of it: the command line,
//! the benchmarks and the tests reach them with the feature `internals`, which makes them public
//! but hidden, and promises nothing about them.
//!
//! # Adding a game
//! A game is one folder under `crates/tablebase/src/games/` and one line of the registry
//! (`crates/tablebase/src/games/mod.rs`): the traits a game implements name the crate's table
//! files and solvers, so games are added here, not in another crate. Whose moves all leave their
//! layer (a ply, stones on the board), it implements [`LayeredGame`] and gets its [`Catalogue`]
//! from [`Layered`]: the forward pass over reachable positions, per-layer sets and tables, all
//! shared. Whose positions repeat, it implements [`Catalogue`] itself with a `solve::CyclicSet`
//! per job. It adds [`Probe`], [`Play`](play::Play) and [`Draw`](picture::Draw) for its
//! tablebase, and [`Game`](game::Game) for the registry. `crates/tablebase/src/games/tictactoe/`
//! is the smallest whole example; docs/ARCHITECTURE.md walks through it.
//!
//! The modules, lowest first: `table` (the file format), `solve` (the retrograde solvers and
//! the forward check), [`catalogue`] (the trait and the generic drivers), [`layered`] (the
//! layered pipeline), `search` (the searches past the tables), [`mod@probe`], [`play`] and
//! [`picture`] (the engines every game shares), [`game`] (what a game gives), [`games`] (the
//! registry and the games). See docs/ARCHITECTURE.md.

#![warn(missing_docs)]
#![warn(unnameable_types)]
// What a user of the API can name prints with `{:?}`; the internals the workspace reaches need not.
#![cfg_attr(not(feature = "internals"), warn(missing_debug_implementations))]
// Board code indexes fixed-size tables by point and symmetry numbers; ranges read better there.
#![allow(clippy::needless_range_loop)]
// Without `internals`, what only the command line, the benchmarks and the tests use is unused.
#![cfg_attr(not(feature = "internals"), allow(dead_code, unused_imports))]

/// A module this workspace's own crates (the command line, the benchmarks, the tests) reach
/// with the `internals` feature, and private to everyone else: the API is what the crate root
/// and the public modules export, and these modules are free to change.
macro_rules! internal_mod {
    ($($name:ident),+ $(,)?) => {$(
        #[cfg(feature = "internals")]
        #[doc(hidden)]
        pub mod $name;
        #[cfg(not(feature = "internals"))]
        pub(crate) mod $name;
    )+};
}

/// Names re-exported for this workspace's own crates (`internals`), private to everyone else.
macro_rules! internal_use {
    ($($path:tt)+) => {
        #[cfg(feature = "internals")]
        #[doc(hidden)]
        pub use $($path)+;
        #[cfg(not(feature = "internals"))]
        pub(crate) use $($path)+;
    };
}

pub mod catalogue;
mod combinations;
pub mod game;
pub mod games;
pub mod layered;
pub mod picture;
pub mod play;
mod prefetch;
pub mod probe;
mod progress;
mod reference;
mod rng;
pub mod signals;
#[cfg(feature = "internals")]
#[doc(hidden)]
pub mod testing;
mod value;
internal_mod!(resources, search, solve, table, text);

pub use catalogue::{BuildError, Catalogue, GenerateOptions, generate, info, verify};
pub use games::connect4::Connect4Tablebase;
pub use games::morris::MorrisTablebase;
pub use layered::{Layered, LayeredGame, Step};
pub use probe::{Probe, ProbeError, ProbeReport, Probed, best_line, probe};
pub use progress::{Progress, Report};
pub use search::{Work, within};
pub use table::{FileKind, TableError};
pub use text::{one_line, quote};
pub use value::{Value, best_of};
