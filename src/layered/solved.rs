//! A solved layer for reading, and a layer being solved as the solver's [`LayeredSet`].

use super::{LayeredGame, Step};
use crate::solve::{LayeredSet, SolveError};
use crate::table::{SetFile, TableError, TableFile};
use crate::value::Value;

/// A solved layer: its reachable set and its values, both memory-mapped.
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

/// Where a thread is in a [`LayerSet`]: the last entry decoded, so that the next member of the
/// set is found from it and only what changed is decoded.
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
        if !self.game.checkpointed(self.layer) {
            return Ok(false);
        }
        let position = self.locate(cursor, dense)?;
        Ok(self.game.confirms(self.layer, &position, stored))
    }
}
