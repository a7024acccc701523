//! A solved layer for reading, and a layer being solved as the solver's [`LayeredSet`].

use super::{LayeredGame, Step};
use crate::solve::{LayeredSet, SolveError};
use crate::table::{CheckedRanks, SetFile, TableError, TableFile};
use crate::value::Value;

/// A solved layer: its reachable set and its values, both memory-mapped.
#[derive(Debug)]
pub struct SolvedLayer {
    /// The reachable indices; a position's entry in the table is its rank here.
    pub set: SetFile,
    /// One value per reachable position.
    pub table: TableFile,
}

impl SolvedLayer {
    /// The value of the position with index `index`, `None` when it is not reachable.
    #[inline]
    pub fn value_at(&self, index: u64) -> Result<Option<Value>, TableError> {
        match self.set.rank(index)? {
            None => Ok(None),
            Some(dense) => self.table.value(dense).map(Some),
        }
    }
}

impl crate::table::Mapped for SolvedLayer {
    fn unchanged(&self) -> Result<(), TableError> {
        self.set.unchanged()?;
        self.table.unchanged()
    }
}

impl SolvedLayer {
    /// The same layer read without a check per entry, once both files have been checked whole
    /// (opened with `Check::Checksum`); `None` before.
    #[inline]
    pub fn checked(&self) -> Option<CheckedLayer<'_>> {
        let ranks = self.set.checked_ranks()?;
        Some(CheckedLayer { ranks, codes: self.table.checked_codes()?, table: &self.table })
    }
}

/// A solved layer whose files were checked whole: [`SolvedLayer::value_at`] without the checks
/// per read, for the solver's loop over every child of every position.
#[derive(Debug, Clone, Copy)]
pub struct CheckedLayer<'a> {
    ranks: CheckedRanks<'a>,
    codes: &'a [u8],
    table: &'a TableFile,
}

impl CheckedLayer<'_> {
    /// The value of the position with index `index`, `None` when it is not reachable.
    #[inline]
    pub fn value_at(&self, index: u64) -> Result<Option<Value>, TableError> {
        // A table checked whole skips the check per read by itself: only the rank needed it.
        self.ranks.rank(index).map(|dense| self.table.value(dense)).transpose()
    }
}

/// Children whose values a position waits for: their reads are started together, so that
/// their cache misses overlap instead of coming one after another (each is two misses in a
/// row, the set's word and then the table's byte at the rank found there).
const CHILD_BATCH: usize = 48;

/// Where a thread is in a [`LayerSet`]: the last entry decoded, so that the next member of the
/// set is found from it and only what changed is decoded.
#[derive(Debug)]
pub struct LayerCursor<G: LayeredGame> {
    walker: G::Walker,
    dense: u64,
    index: u64,
    position: Option<G::Position>,
}

impl<G: LayeredGame> Default for LayerCursor<G> {
    fn default() -> LayerCursor<G> {
        LayerCursor { walker: G::Walker::default(), dense: 0, index: 0, position: None }
    }
}

/// The reachable positions of one layer, numbered by their rank in its set, whose moves lead
/// into the next layer, solved before.
#[derive(Debug)]
pub struct LayerSet<'a, G> {
    /// The game.
    pub game: &'a G,
    /// Which layer.
    pub layer: u32,
    /// Its reachable set.
    pub set: &'a SetFile,
    /// The next layer, solved; `None` for the last.
    pub next: Option<&'a SolvedLayer>,
}

impl<G: LayeredGame> LayerSet<'_, G> {
    /// The position of entry `dense`.
    #[inline]
    fn locate(&self, cursor: &mut LayerCursor<G>, dense: u64) -> Result<G::Position, SolveError> {
        if let Some(position) = cursor.position
            && cursor.dense == dense
        {
            return Ok(position);
        }
        let index = if cursor.position.is_some() && cursor.dense.wrapping_add(1) == dense {
            self.set.next_member(cursor.index + 1)
        } else {
            self.set.select(dense)
        };
        let index = index?.ok_or_else(|| SolveError::from(self.set.damaged(dense)))?;
        let position = self.game.position(self.layer, &mut cursor.walker, index);
        (cursor.dense, cursor.index, cursor.position) = (dense, index, Some(position));
        Ok(position)
    }
}

impl<G: LayeredGame> LayerSet<'_, G> {
    /// [`LayeredSet::for_each_move_value`] over a next layer checked whole, its reads in
    /// batches: first every child's index (the set's word prefetched), then every rank (the
    /// table's byte prefetched), then the values.
    #[inline]
    fn batched_move_values(
        &self,
        next: CheckedLayer<'_>,
        position: &G::Position,
        dense: u64,
        mut f: impl FnMut(Value),
    ) -> Result<(), SolveError> {
        let mut children = [0u64; CHILD_BATCH];
        let mut count = 0;
        let mut failed: Option<SolveError> = None;
        // The unbatched read, with its errors: a child that is not a member, a damaged entry.
        let value_of = |child: u64| match next.value_at(child) {
            Ok(Some(value)) => Ok(value.for_mover()),
            Ok(None) => Err(SolveError::MissingSuccessor { index: dense }),
            Err(e) => Err(SolveError::from(e)),
        };
        self.game.for_each_step(self.layer, position, |step| match step {
            Step::Done(value) => f(value),
            Step::Child(child) if count < CHILD_BATCH => {
                next.ranks.prefetch(child);
                children[count] = child;
                count += 1;
            }
            // A rare crowd of captures.
            Step::Child(child) => match value_of(child) {
                Ok(value) => f(value),
                Err(e) => {
                    failed.get_or_insert(e);
                }
            },
        })?;
        let mut ranks = [u64::MAX; CHILD_BATCH];
        for (rank, &child) in ranks.iter_mut().zip(&children[..count]) {
            if let Some(found) = next.ranks.rank(child) {
                if let Some(code) = next.codes.get(found as usize) {
                    crate::prefetch::prefetch(code);
                }
                *rank = found;
            }
        }
        for (&rank, &child) in ranks.iter().zip(&children[..count]) {
            let value = match next.codes.get(rank as usize) {
                Some(&code) => {
                    next.table.value_of_code(rank, code).map(Value::for_mover).map_err(SolveError::from)
                }
                None => value_of(child), // not a member, or past the end: the errors
            };
            match value {
                Ok(value) => f(value),
                Err(e) => {
                    failed.get_or_insert(e);
                }
            }
        }
        failed.map_or(Ok(()), Err)
    }
}

impl<G: LayeredGame> LayeredSet for LayerSet<'_, G> {
    type Cursor = LayerCursor<G>;

    fn size(&self) -> u64 {
        self.set.len()
    }

    #[inline]
    fn for_each_move_value(
        &self,
        cursor: &mut LayerCursor<G>,
        dense: u64,
        mut f: impl FnMut(Value),
    ) -> Result<(), SolveError> {
        let position = self.locate(cursor, dense)?;
        if let Some(next) = self.next.and_then(SolvedLayer::checked) {
            return self.batched_move_values(next, &position, dense, f);
        }
        let mut failed: Option<SolveError> = None;
        self.game.for_each_step(self.layer, &position, |step| match step {
            Step::Done(value) => f(value),
            Step::Child(child) => match self.next.map(|next| next.value_at(child)) {
                Some(Ok(Some(value))) => f(value.for_mover()),
                Some(Err(e)) => {
                    failed.get_or_insert(SolveError::from(e));
                }
                Some(Ok(None)) | None => {
                    failed.get_or_insert(SolveError::MissingSuccessor { index: dense });
                }
            },
        })?;
        failed.map_or(Ok(()), Err)
    }

    #[inline]
    fn weight(&self, cursor: &mut LayerCursor<G>, dense: u64) -> Result<u64, SolveError> {
        let position = self.locate(cursor, dense)?;
        Ok(self.game.weight(self.layer, &position))
    }

    fn confirms(&self, cursor: &mut LayerCursor<G>, dense: u64, stored: Value) -> Result<bool, SolveError> {
        if self.game.checkpoint_entries(self.layer).is_none() {
            return Ok(false);
        }
        let position = self.locate(cursor, dense)?;
        Ok(self.game.confirms(self.layer, &position, stored))
    }
}
