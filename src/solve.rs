//! The retrograde solver shared by every game, and the forward check that verifies its output.
//!
//! A game hands the solver a [`RetrogradeSet`]: positions numbered `0..size` that are solved
//! together (a Morris class pair, a Connect Four ply), with their moves. A move either stays in
//! the set or leaves it, into a table solved earlier or to the end of the game, with a value
//! already known. The solver finds every value with its exact distance (SPEC section 2).
//!
//! Distances are settled in increasing order, level by level. At level `d` every position whose
//! value has distance `d` is final; each such loss makes its predecessors wins in `d + 1`, and
//! each such win counts down its predecessors' undecided successors. A predecessor whose last
//! successor turned out a win loses, in one more ply than its longest such win; moves that leave
//! the set give "planned" values, settled at their own level unless a shorter win comes first.
//! What remains undecided is a draw. Every step is idempotent or commutative within a level, so
//! the result does not depend on thread scheduling: reruns give identical tables.

use crate::progress::Progress;
use crate::value::{Value, best_of};
use rayon::prelude::*;
use std::sync::atomic::{AtomicU8, AtomicU16, AtomicU64, Ordering::Relaxed};

/// Where a move leads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Successor {
    /// To position `index` of the set being solved.
    Inside(u64),
    /// Out of the set: what the move gives the side to move (a finished game, or a position of
    /// an already solved table, seen from the mover).
    Outside(Value),
}

/// Positions solved together, with their moves and un-moves.
pub trait RetrogradeSet: Sync {
    fn size(&self) -> u64;
    /// Calls `f` once per legal move of position `index`; where a move leaves the set with an
    /// immediate win (`Outside(Win(1))`, which nothing beats), once for it alone is enough.
    fn for_each_successor(&self, index: u64, f: impl FnMut(Successor));
    /// Calls `f(p)` for every position `p` of the set with a move to `index` (repeats allowed):
    /// exactly the `p` whose successors include `Inside(index)`.
    fn for_each_predecessor(&self, index: u64, f: impl FnMut(u64));
    /// False when every move leaves the set (a Connect Four ply): the first pass then settles
    /// every value and the distance levels are skipped.
    fn has_inside_moves(&self) -> bool {
        true
    }
}

/// Error of the solver.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SolveError {
    /// A distance beyond what the working store holds (32766 plies).
    DistanceTooLong { index: u64 },
    /// More distinct successors or predecessors than the solver holds (255).
    TooManySuccessors { index: u64 },
}

impl std::fmt::Display for SolveError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SolveError::DistanceTooLong { index } => {
                write!(f, "position {index}: distance beyond 32766 plies")
            }
            SolveError::TooManySuccessors { index } => {
                write!(f, "position {index}: more than 255 distinct successors or predecessors")
            }
        }
    }
}

impl std::error::Error for SolveError {}

/// A working value: 0 undecided, else distance + 1, with [`PLANNED`] set while not yet final.
const PLANNED: u16 = 0x8000;
const MAX_CODE: u32 = 0x7fff;

#[inline]
fn code(distance: u32) -> u16 {
    (distance + 1) as u16
}

#[inline]
fn is_win_code(c: u16) -> bool {
    let d = (c & !PLANNED) - 1;
    d % 2 == 1
}

/// The values of a solved set, indexed like the set.
pub struct Solution {
    codes: Vec<AtomicU16>,
}

impl Solution {
    #[inline]
    pub fn value(&self, index: u64) -> Value {
        match self.codes[index as usize].load(Relaxed) {
            0 => Value::Draw,
            c => Value::from_distance(u32::from(c & !PLANNED) - 1),
        }
    }

    pub fn len(&self) -> u64 {
        self.codes.len() as u64
    }

    pub fn is_empty(&self) -> bool {
        self.codes.is_empty()
    }
}

/// Distinct indices among a position's successors or predecessors (a few dozen at most).
struct SmallSet {
    items: [u64; 256],
    len: usize,
}

impl SmallSet {
    fn new() -> SmallSet {
        SmallSet { items: [0; 256], len: 0 }
    }

    #[inline]
    fn clear(&mut self) {
        self.len = 0;
    }

    /// Inserts `x`; returns false when full.
    #[inline]
    fn insert(&mut self, x: u64) -> bool {
        if self.items[..self.len].contains(&x) {
            return true;
        }
        if self.len == self.items.len() {
            return false;
        }
        self.items[self.len] = x;
        self.len += 1;
        true
    }

    fn as_slice(&self) -> &[u64] {
        &self.items[..self.len]
    }
}

/// What the moves leaving the set give the side to move.
#[derive(Clone, Copy, Default)]
struct Exits {
    moves: u32,
    shortest_win: Option<u32>,
    longest_loss: Option<u32>,
    draw: bool,
}

impl Exits {
    fn add(&mut self, value: Value) {
        self.moves += 1;
        match value {
            Value::Win(n) => self.shortest_win = Some(self.shortest_win.map_or(n, |w| w.min(n))),
            Value::Loss(n) => self.longest_loss = Some(self.longest_loss.map_or(n, |l| l.max(n))),
            Value::Draw => self.draw = true,
        }
    }
}

const CHUNK: u64 = 1 << 14;

fn chunks(size: u64) -> impl ParallelIterator<Item = std::ops::Range<u64>> {
    (0..size.div_ceil(CHUNK)).into_par_iter().map(move |c| c * CHUNK..((c + 1) * CHUNK).min(size))
}

/// Solves `set`: every value with its exact distance.
pub fn solve(set: &impl RetrogradeSet, progress: &Progress) -> Result<Solution, SolveError> {
    let size = set.size();
    let codes: Vec<AtomicU16> = (0..size).map(|_| AtomicU16::new(0)).collect();
    // Without moves inside the set nothing counts down: two bytes a position, not three.
    let counted = if set.has_inside_moves() { size } else { 0 };
    let counters: Vec<AtomicU8> = (0..counted).map(|_| AtomicU8::new(0)).collect();
    let max_planned = AtomicU64::new(0);
    let plan = |index: u64, distance: u32| -> Result<u16, SolveError> {
        if distance + 1 > MAX_CODE {
            return Err(SolveError::DistanceTooLong { index });
        }
        max_planned.fetch_max(u64::from(distance), Relaxed);
        Ok(PLANNED | code(distance))
    };

    progress.phase("successors", size);
    chunks(size).try_for_each_init(SmallSet::new, |inside, range| {
        for index in range.clone() {
            inside.clear();
            let mut exits = Exits::default();
            let mut full = false;
            set.for_each_successor(index, |s| match s {
                Successor::Inside(j) => full |= !inside.insert(j),
                Successor::Outside(v) => exits.add(v),
            });
            if full || inside.len > usize::from(u8::MAX) {
                return Err(SolveError::TooManySuccessors { index });
            }
            if let Some(counter) = counters.get(index as usize) {
                counter.store(inside.len as u8, Relaxed);
            }
            let start = if let Some(win) = exits.shortest_win {
                plan(index, win)?
            } else if inside.len == 0 {
                match exits.longest_loss {
                    _ if exits.moves == 0 => code(0), // no move at all: lost now
                    _ if exits.draw => 0,
                    Some(loss) => plan(index, loss)?,
                    None => unreachable!("moves that are neither wins, draws nor losses"),
                }
            } else {
                0
            };
            codes[index as usize].store(start, Relaxed);
        }
        progress.advance(range.end - range.start);
        Ok(())
    })?;

    if !set.has_inside_moves() {
        codes.par_iter().for_each(|c| {
            let v = c.load(Relaxed);
            c.store(v & !PLANNED, Relaxed);
        });
        progress.finish();
        return Ok(Solution { codes });
    }
    progress.phase("propagation", size);
    let mut distance = 0u32;
    loop {
        let target = code(distance);
        let settled = AtomicU64::new(0);
        progress.step(&format!("distance {distance}"), size);
        chunks(size).try_for_each_init(SmallSet::new, |predecessors, range| {
            let mut found = 0u64;
            for index in range.clone() {
                let c = codes[index as usize].load(Relaxed);
                if c == PLANNED | target {
                    codes[index as usize].store(target, Relaxed);
                } else if c != target {
                    continue;
                }
                found += 1;
                predecessors.clear();
                let mut full = false;
                set.for_each_predecessor(index, |p| full |= !predecessors.insert(p));
                if full {
                    return Err(SolveError::TooManySuccessors { index });
                }
                if distance.is_multiple_of(2) {
                    // A loss: its predecessors win one ply later, unless already decided
                    // or planned to win at least as fast.
                    for &p in predecessors.as_slice() {
                        let slot = &codes[p as usize];
                        let mut current = slot.load(Relaxed);
                        loop {
                            let keep = (current != 0 && current & PLANNED == 0)
                                || (current & PLANNED != 0
                                    && is_win_code(current)
                                    && (current & !PLANNED) <= code(distance + 1));
                            if keep {
                                break;
                            }
                            match slot.compare_exchange_weak(current, code(distance + 1), Relaxed, Relaxed) {
                                Ok(_) => break,
                                Err(now) => current = now,
                            }
                        }
                    }
                } else {
                    // A win: one fewer undecided successor; the last one makes a loss.
                    for &p in predecessors.as_slice() {
                        let slot = &codes[p as usize];
                        let current = slot.load(Relaxed);
                        if current != 0 {
                            continue; // decided, or planned: a win, or a loss without inside moves
                        }
                        if counters[p as usize].fetch_sub(1, Relaxed) != 1 {
                            continue;
                        }
                        let mut exits = Exits::default();
                        set.for_each_successor(p, |s| {
                            if let Successor::Outside(v) = s {
                                exits.add(v)
                            }
                        });
                        if exits.draw {
                            continue; // a drawing exit: never a loss
                        }
                        let loss = (distance + 1).max(exits.longest_loss.unwrap_or(0));
                        let new = if loss == distance + 1 { code(loss) } else { plan(p, loss)? };
                        // Only the thread that took the counter to zero writes here, and no
                        // win races with it: every successor of this position is a win.
                        slot.store(new, Relaxed);
                    }
                }
            }
            settled.fetch_add(found, Relaxed);
            progress.advance(range.end - range.start);
            Ok(())
        })?;
        if settled.load(Relaxed) == 0 && u64::from(distance) >= max_planned.load(Relaxed) {
            // Nothing at this distance and nothing planned later; positions set to
            // `distance + 1` would have been counted as settled at the next level, and
            // settling nothing here sets nothing there.
            break;
        }
        distance += 1;
    }
    progress.finish();
    Ok(Solution { codes })
}

/// A position whose stored value differs from the value recomputed from its successors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mismatch {
    pub index: u64,
    pub stored: Value,
    pub recomputed: Value,
}

/// Recomputes the values of the positions `range` of `set` from their successors' stored values
/// (`stored` for positions inside the set, the set's own answer for moves out of it) and returns
/// how many differ, with the first few.
pub fn check_forward(
    set: &impl RetrogradeSet,
    range: std::ops::Range<u64>,
    stored: impl Fn(u64) -> Value + Sync,
    progress: &Progress,
) -> (u64, Vec<Mismatch>) {
    let start = range.start;
    progress.phase("forward check", range.end - range.start);
    let found: Vec<(u64, Vec<Mismatch>)> = chunks(range.end - range.start)
        .map(|range| range.start + start..range.end + start)
        .map(|range| {
            let mut count = 0;
            let mut examples = Vec::new();
            for index in range.clone() {
                let mut values = [Value::Draw; 256];
                let mut n = 0;
                set.for_each_successor(index, |s| {
                    values[n.min(255)] = match s {
                        Successor::Inside(j) => stored(j).for_mover(),
                        Successor::Outside(v) => v,
                    };
                    n += 1;
                });
                let recomputed = best_of(values[..n.min(256)].iter().copied());
                let have = stored(index);
                if have != recomputed {
                    count += 1;
                    if examples.len() < 4 {
                        examples.push(Mismatch { index, stored: have, recomputed });
                    }
                }
            }
            progress.advance(range.end - range.start);
            (count, examples)
        })
        .collect();
    progress.finish();
    let count = found.iter().map(|(c, _)| c).sum();
    let examples = found.into_iter().flat_map(|(_, e)| e).take(8).collect();
    (count, examples)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A subtraction game: take 1 or 2 from a heap; taking the last one wins (the player left
    /// with 0 has lost). Heap n with n % 3 == 0 is lost in n / 3 * 2 plies.
    struct Subtraction(u64);

    impl RetrogradeSet for Subtraction {
        fn size(&self) -> u64 {
            self.0
        }
        fn for_each_successor(&self, index: u64, mut f: impl FnMut(Successor)) {
            for take in 1..=2 {
                if index >= take {
                    f(Successor::Inside(index - take));
                }
            }
        }
        fn for_each_predecessor(&self, index: u64, mut f: impl FnMut(u64)) {
            for take in 1..=2 {
                if index + take < self.0 {
                    f(index + take);
                }
            }
        }
    }

    /// A cycle with an exit: positions 0..n in a ring (i -> i+1), and position 0 may also leave
    /// to a won position (for the mover, a win in 5). Everything is a draw except what reaches
    /// the exit... which in a ring is every position: i wins/loses by parity of its distance.
    struct RingWithExit(u64);

    impl RetrogradeSet for RingWithExit {
        fn size(&self) -> u64 {
            self.0
        }
        fn for_each_successor(&self, index: u64, mut f: impl FnMut(Successor)) {
            f(Successor::Inside((index + 1) % self.0));
            if index == 0 {
                f(Successor::Outside(Value::Win(5)));
            }
        }
        fn for_each_predecessor(&self, index: u64, mut f: impl FnMut(u64)) {
            f((index + self.0 - 1) % self.0);
        }
    }

    #[test]
    fn subtraction_game_values() {
        let set = Subtraction(100);
        let solution = solve(&set, &Progress::hidden()).unwrap();
        for n in 0..100 {
            let expected =
                if n % 3 == 0 { Value::Loss((n / 3 * 2) as u32) } else { Value::Win((n / 3 * 2 + 1) as u32) };
            assert_eq!(solution.value(n), expected, "heap {n}");
        }
        let (mismatches, _) = check_forward(&set, 0..100, |i| solution.value(i), &Progress::hidden());
        assert_eq!(mismatches, 0);
        let (mismatches, examples) = check_forward(
            &set,
            0..100,
            |i| if i == 42 { Value::Draw } else { solution.value(i) },
            &Progress::hidden(),
        );
        assert!(mismatches >= 1 && examples[0].index <= 44);
    }

    #[test]
    fn ring_with_exit_is_a_draw_where_the_loser_can_cycle() {
        // 0 wins in 5 via the exit. 4 (say, n = 4): 3 -> 0 is a loss for 3 in 6 (its only move
        // is to 0, which wins); 2 -> 3 wins in 7; 1 -> 2 loses in 8; 0 keeps its exit win.
        let set = RingWithExit(4);
        let solution = solve(&set, &Progress::hidden()).unwrap();
        let values: Vec<Value> = (0..4).map(|i| solution.value(i)).collect();
        assert_eq!(values, [Value::Win(5), Value::Loss(8), Value::Win(7), Value::Loss(6)]);
    }
}
