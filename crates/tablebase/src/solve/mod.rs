//! The retrograde solvers shared by every game, and the forward check that verifies their output.
//!
//! A game hands a solver the positions of one table, numbered `0..size`, with their moves, in
//! one of two shapes:
//! - a [`CyclicSet`] (a Morris class pair): moves may stay in the set, so positions can repeat;
//!   the set also lists predecessors, and [`solve_cyclic`] settles distances level by level.
//! - a [`LayeredSet`] (a Connect Four ply, a Morris placement layer): every move leaves the set
//!   into tables solved before, so each value is the best of its moves' values and
//!   [`solve_layered`] computes it while writing the table, with no working memory.
//!
//! Either way every value comes with its exact distance (docs/CLI.md, "Values"), and the tables do not
//! depend on thread scheduling: reruns give identical bytes.

pub(crate) mod check;
mod cyclic;
mod layered;

pub(crate) use check::Unrecorded;
pub use check::{CheckedParts, Consistency, Mismatch, check_cyclic, check_layered};
pub use cyclic::{CountedMove, CyclicSet, Solution, Successor, solve_cyclic};
pub use layered::{LayeredSet, layered_value, solve_layered};

use crate::table::TableError;
use std::fmt;

/// Why a set could not be solved or checked.
#[derive(Debug)]
pub enum SolveError {
    /// A distance beyond what the working store holds (32766 plies).
    DistanceTooLong {
        /// The position.
        index: u64,
    },
    /// More distinct successors or predecessors than the solver holds (255).
    TooManySuccessors {
        /// The position.
        index: u64,
    },
    /// A move leads to a position that the table it belongs to does not hold.
    MissingSuccessor {
        /// The position whose move it is.
        index: u64,
    },
    /// A table the set reads (its own set file, a table solved before) is damaged. Boxed: the
    /// solver's hot loops return this type, and the rare case should not make it large.
    Table(Box<TableError>),
    /// Whoever runs the work asked it to stop ([`crate::progress::Report::stop_requested`]).
    Stopped,
}

impl fmt::Display for SolveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SolveError::DistanceTooLong { index } => {
                write!(f, "position {index}: distance beyond 32766 plies")
            }
            SolveError::TooManySuccessors { index } => {
                write!(f, "position {index}: more than 255 distinct successors or predecessors")
            }
            SolveError::MissingSuccessor { index } => write!(
                f,
                "position {index}: a move leads to a position missing from the next table (a damaged set?)"
            ),
            SolveError::Table(_) => write!(f, "a table it reads cannot be used"),
            SolveError::Stopped => write!(f, "stopped on request"),
        }
    }
}

impl std::error::Error for SolveError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            SolveError::Table(e) => Some(e.as_ref()),
            _ => None,
        }
    }
}

/// `Err(Stopped)` once whoever runs the work asks it to stop
/// ([`Report::stop_requested`](crate::progress::Report::stop_requested)): asked by the solvers
/// after each chunk.
pub(crate) fn stop_if_requested(progress: &crate::progress::Progress) -> Result<(), SolveError> {
    match progress.stop_requested() {
        true => Err(SolveError::Stopped),
        false => Ok(()),
    }
}

impl From<TableError> for SolveError {
    fn from(e: TableError) -> SolveError {
        SolveError::Table(Box::new(e))
    }
}

/// Positions per unit of parallel work.
const CHUNK: u64 = 1 << 14;

/// `range` in consecutive pieces of `len` (the last one shorter), for parallel work.
fn chunks(
    range: std::ops::Range<u64>,
    len: u64,
) -> impl rayon::iter::ParallelIterator<Item = std::ops::Range<u64>> {
    use rayon::prelude::*;
    let (start, end) = (range.start, range.end);
    (0..(end - start).div_ceil(len))
        .into_par_iter()
        .map(move |c| start + c * len..(start + (c + 1) * len).min(end))
}
