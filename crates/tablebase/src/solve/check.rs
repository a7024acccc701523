//! The forward check of `verify`: every stored value recomputed from its successors' stored
//! values.

use super::cyclic::{CyclicSet, Successor};
use super::layered::{LayeredSet, layered_value};
use super::{CHUNK, SolveError, chunks, stop_if_requested};
use crate::progress::Progress;
use crate::table::TableError;
use crate::value::Value;
use rayon::prelude::*;
use std::ops::Range;

/// A position whose stored value differs from the value recomputed from its successors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(not(feature = "internals"), allow(unnameable_types, reason = "the solvers behind the catalogue traits, which only the games of this crate implement"))]
pub struct Mismatch {
    /// The position's index in the set.
    pub index: u64,
    /// The value in the table.
    pub stored: Value,
    /// The value its moves give.
    pub recomputed: Value,
}

/// What a forward check found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(not(feature = "internals"), allow(unnameable_types, reason = "the solvers behind the catalogue traits, which only the games of this crate implement"))]
pub struct Consistency {
    /// Positions whose stored value differs from the recomputed one.
    pub mismatches: u64,
    /// The first few of them.
    pub examples: Vec<Mismatch>,
    /// For a layer: indices whose membership in its set differs from what the forward pass
    /// from the layer before gives (reachable but missing, or there but not reachable).
    pub set_mismatches: u64,
    /// The first few of them, in the game's notation.
    pub set_examples: Vec<String>,
}

impl Consistency {
    /// Whether nothing differed.
    pub fn is_consistent(&self) -> bool {
        self.mismatches == 0 && self.set_mismatches == 0
    }
}

const EXAMPLES: usize = 8;

/// Entries per part of a check done in parts ([`CheckedParts`]): a few minutes of searching on
/// 7x6, so that a verify cut short loses little.
pub const PART_LEN: u64 = 512;

/// Parts of a long check found consistent before, and the record of new ones: a check of hours
/// (the searched ply of an opening book) goes on where a verify cut short stopped. Part `k` is
/// entries `k * PART_LEN ..` of the checked range.
#[cfg_attr(not(feature = "internals"), allow(unnameable_types, reason = "the solvers behind the catalogue traits, which only the games of this crate implement"))]
pub trait CheckedParts: Sync {
    /// Whether part `part` was found consistent before, over the same files.
    fn holds(&self, part: u64) -> bool;
    /// Records part `part` as found consistent.
    fn record(&self, part: u64) -> Result<(), TableError>;
}

/// Parts that no journal records: a slow table is still checked part by part (small units of
/// parallel work, progress within minutes) when verify keeps no journal.
pub(crate) struct Unrecorded;

impl CheckedParts for Unrecorded {
    fn holds(&self, _part: u64) -> bool {
        false
    }

    fn record(&self, _part: u64) -> Result<(), TableError> {
        Ok(())
    }
}

fn check<C>(
    range: Range<u64>,
    parts: Option<&dyn CheckedParts>,
    progress: &Progress,
    init: impl Fn() -> C + Sync,
    recompute: impl Fn(&mut C, u64, Value) -> Result<Value, SolveError> + Sync,
    stored: impl Fn(u64) -> Result<Value, SolveError> + Sync,
) -> Result<Consistency, SolveError> {
    progress.phase("forward check", range.end - range.start);
    let unit = if parts.is_some() { PART_LEN } else { CHUNK };
    let start = range.start;
    let units = (range.end - start).div_ceil(unit);
    // Asked once: the journal's answers do not change while this check records new parts.
    let held: Vec<bool> = match parts {
        Some(parts) => (0..units).map(|part| parts.holds(part)).collect(),
        None => Vec::new(),
    };
    let resumed = held.iter().filter(|&&h| h).count();
    if resumed > 0 {
        progress.message(&format!("resuming: {resumed} of {units} parts found consistent before"));
    }
    let found: Vec<Consistency> = chunks(range, unit)
        .map(|range| {
            let part = (range.start - start) / unit;
            if held.get(part as usize) == Some(&true) {
                progress.advance(range.end - range.start);
                return Ok(Consistency::default());
            }
            let mut cursor = init();
            let mut found = Consistency::default();
            for index in range.clone() {
                let have = stored(index)?;
                let recomputed = recompute(&mut cursor, index, have)?;
                if parts.is_some() {
                    progress.advance(1); // a search each: counted one by one
                }
                if have != recomputed {
                    found.mismatches += 1;
                    if found.examples.len() < EXAMPLES {
                        found.examples.push(Mismatch { index, stored: have, recomputed });
                    }
                }
            }
            match parts {
                Some(parts) if found.mismatches == 0 => parts.record(part)?,
                Some(_) => {}
                None => progress.advance(range.end - range.start),
            }
            stop_if_requested(progress)?;
            Ok(found)
        })
        .collect::<Result<_, SolveError>>()?;
    progress.finish();
    Ok(Consistency {
        set_mismatches: 0,
        set_examples: Vec::new(),
        mismatches: found.iter().map(|c| c.mismatches).sum(),
        examples: found.into_iter().flat_map(|c| c.examples).take(EXAMPLES).collect(),
    })
}

/// Recomputes the values of positions `range` of a cyclic set from their successors' values:
/// `stored` for positions inside the set, the set's own answer for moves out of it.
pub fn check_cyclic(
    set: &impl CyclicSet,
    range: Range<u64>,
    stored: impl Fn(u64) -> Result<Value, SolveError> + Sync,
    progress: &Progress,
) -> Result<Consistency, SolveError> {
    let recompute = |_: &mut (), index: u64, _stored: Value| {
        let mut best: Option<Value> = None;
        let mut failed = None;
        set.for_each_successor(index, |s| {
            let value = match s {
                Successor::Inside(j) => match stored(j) {
                    Ok(v) => v.for_mover(),
                    Err(e) => {
                        failed.get_or_insert(e);
                        return;
                    }
                },
                Successor::Outside(v) => v,
            };
            best = Some(best.map_or(value, |b| b.combine(value)));
        })?;
        match failed {
            Some(e) => Err(e),
            None => Ok(best.unwrap_or(Value::Loss(0))),
        }
    };
    check(range, None, progress, || (), recompute, &stored)
}

/// Recomputes every value of a layered set from the values its moves give, or, in a layer
/// solved by search, proves the stored one where the set can ([`LayeredSet::confirms`]). With
/// `parts`, only the parts not found consistent before, recording each part found consistent.
pub fn check_layered<S: LayeredSet>(
    set: &S,
    parts: Option<&dyn CheckedParts>,
    stored: impl Fn(u64) -> Result<Value, SolveError> + Sync,
    progress: &Progress,
) -> Result<Consistency, SolveError> {
    let recompute =
        |cursor: &mut S::Cursor, index: u64, have: Value| match set.confirms(cursor, index, have)? {
            true => Ok(have),
            false => layered_value(set, cursor, index),
        };
    check(0..set.size(), parts, progress, S::Cursor::default, recompute, stored)
}
