//! Sets whose moves all leave the set: each value is the best of its moves' values.

use super::{SolveError, stop_if_requested};
use crate::progress::Progress;
use crate::table::{FileSpec, Header, write_table_checkpointed};
use crate::value::Value;

/// Positions of one layer, every move of which leads out of it: into the next layer, solved
/// before, or to the end of the game.
pub trait LayeredSet: Sync {
    /// Where a thread is in the set. The solver creates one per thread and unit of work and
    /// visits indices in increasing order within it, so a set can decode the next position from
    /// the last one instead of from scratch.
    type Cursor: Default;

    /// The number of entries.
    fn size(&self) -> u64;

    /// Calls `f` with what each legal move of entry `index` gives the side to move; a position
    /// that can win at once may give only that move. No call means no legal move.
    fn for_each_move_value(
        &self,
        cursor: &mut Self::Cursor,
        index: u64,
        f: impl FnMut(Value),
    ) -> Result<(), SolveError>;

    /// How many positions entry `index` stands for, as the references count them (2 for an
    /// entry that also stands for a different mirror image).
    fn weight(&self, cursor: &mut Self::Cursor, index: u64) -> Result<u64, SolveError>;

    /// Whether `stored` is proved to be the value of entry `index` without computing that value
    /// again: a layer solved by search can prove a stored value with two narrow searches, for
    /// less than the search that found it. `false` (the default) means not proved:
    /// the check then computes the value and compares.
    fn confirms(&self, _cursor: &mut Self::Cursor, _index: u64, _stored: Value) -> Result<bool, SolveError> {
        Ok(false)
    }
}

/// The value of entry `index`: the best its moves give, `loss 0` without moves.
#[inline]
pub fn layered_value<S: LayeredSet>(
    set: &S,
    cursor: &mut S::Cursor,
    index: u64,
) -> Result<Value, SolveError> {
    let mut best: Option<Value> = None;
    set.for_each_move_value(cursor, index, |v| best = Some(best.map_or(v, |b| b.combine(v))))?;
    Ok(best.unwrap_or(Value::Loss(0)))
}

/// Solves `set` straight into the table file `spec`: each entry's value is computed as its byte
/// is written, so solving needs no memory beyond the tables it reads. With `checkpoints` (the
/// entries of a chunk), the table is written in small chunks that a later run goes on from (for
/// entries that take a search each).
pub fn solve_layered<S: LayeredSet>(
    set: &S,
    spec: &FileSpec,
    progress: &Progress,
    checkpoints: Option<u64>,
) -> Result<Header, SolveError> {
    write_table_checkpointed(spec, set.size(), progress, checkpoints, S::Cursor::default, |cursor, index| {
        // Asked every 65,536 entries (every entry where each is a search), so that the question
        // costs nothing beside the values.
        if checkpoints.is_some() || index & 0xffff == 0 {
            stop_if_requested(progress)?;
        }
        let value = layered_value(set, cursor, index)?;
        Ok((value, set.weight(cursor, index)?))
    })
}
