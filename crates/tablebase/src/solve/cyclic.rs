//! The solver for sets with moves inside the set (positions may repeat).
//!
//! Distances are settled in increasing order, level by level. At level `d` every position whose
//! value has distance `d` is final; each such loss makes its predecessors wins in `d + 1`, and
//! each such win counts down its predecessors' undecided successors. A predecessor whose last
//! successor turned out a win loses, in one more ply than its longest such win; moves that leave
//! the set give "planned" values, settled at their own level unless a shorter win comes first.
//! What remains undecided is a draw. Every step is idempotent or commutative within a level, so
//! the result does not depend on thread scheduling: reruns give identical tables.

use super::{CHUNK, SolveError, chunks, stop_if_requested};
use crate::prefetch::prefetch;
use crate::progress::Progress;
use crate::value::Value;
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU16, AtomicU64, Ordering::Relaxed};

/// Where a move leads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Successor {
    /// To position `index` of the set being solved.
    Inside(u64),
    /// Out of the set: what the move gives the side to move (a finished game, or a position of
    /// an already solved table, seen from the mover).
    Outside(Value),
}

/// A move as the first pass counts it: it needs the number of distinct positions of the set that
/// a position's moves reach, not where they are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CountedMove {
    /// To position `index` of the set.
    Inside(u64),
    /// To a position of the set that no other move of the same position reaches, not located.
    Distinct,
    /// Out of the set, with what it gives the side to move (as [`Successor::Outside`]).
    Outside(Value),
}

/// Positions solved together whose moves may stay among them, with their moves and un-moves.
pub trait CyclicSet: Sync {
    /// The number of positions.
    fn size(&self) -> u64;
    /// Calls `f` once per legal move of position `index`; where a move leaves the set with an
    /// immediate win (`Outside(Win(1))`, which nothing beats), once for it alone is enough. An
    /// error when a table it reads for moves out of the set cannot be read.
    fn for_each_successor(&self, index: u64, f: impl FnMut(Successor)) -> Result<(), SolveError>;
    /// Calls `f` with the value of each move of position `index` that leaves the set, as
    /// [`CyclicSet::for_each_successor`] gives them. A set whose moves inside cost something to
    /// locate (an index to compute) skips that work here.
    fn for_each_exit(&self, index: u64, mut f: impl FnMut(Value)) -> Result<(), SolveError> {
        self.for_each_successor(index, |s| {
            if let Successor::Outside(v) = s {
                f(v)
            }
        })
    }
    /// What the first pass keeps from one position to the next: it visits the positions in
    /// order, and a set may decode an index faster knowing the one before (`()` if not).
    type Cursor: Default;
    /// Calls `f` once per legal move of position `index`, as [`CyclicSet::for_each_successor`]
    /// gives them, for the solver's first pass, which only counts the distinct positions reached
    /// inside the set. A set that can tell that a move reaches a position no other move of
    /// `index` reaches may give [`CountedMove::Distinct`] for it and skip locating it. `cursor`
    /// comes from the call for the position before, or fresh.
    fn for_each_counted_move(
        &self,
        index: u64,
        _cursor: &mut Self::Cursor,
        mut f: impl FnMut(CountedMove),
    ) -> Result<(), SolveError> {
        self.for_each_successor(index, |s| {
            f(match s {
                Successor::Inside(j) => CountedMove::Inside(j),
                Successor::Outside(v) => CountedMove::Outside(v),
            })
        })
    }
    /// Calls `f(p)` for every position `p` of the set with a move to `index` (repeats allowed):
    /// exactly the `p` whose successors include `Inside(index)`.
    /// `cursor` is as for [`CyclicSet::for_each_counted_move`]: the solver visits the positions
    /// of a level in increasing order.
    fn for_each_predecessor(&self, index: u64, cursor: &mut Self::Cursor, f: impl FnMut(u64));
}

/// A working value: 0 undecided, else distance + 1, with [`PLANNED`] set while not yet final.
const PLANNED: u16 = 0x8000;
const MAX_CODE: u32 = 0x7fff;

#[inline]
fn code(distance: u32) -> u16 {
    (distance + 1) as u16
}

/// The distance of a nonzero code, planned or final.
#[inline]
fn level(c: u16) -> u32 {
    u32::from(c & !PLANNED) - 1
}

#[inline]
fn is_win_code(c: u16) -> bool {
    level(c) % 2 == 1
}

/// The values of a solved set, indexed like the set.
pub struct Solution {
    codes: Vec<AtomicU16>,
}

impl Solution {
    #[inline]
    /// The value of position `index`.
    pub fn value(&self, index: u64) -> Value {
        match self.codes[index as usize].load(Relaxed) {
            0 => Value::Draw,
            c => Value::from_distance(u32::from(c & !PLANNED) - 1),
        }
    }

    /// The number of positions.
    pub fn len(&self) -> u64 {
        self.codes.len() as u64
    }

    /// Whether the set had no positions.
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
            // Exits lead to moving-phase classes and game ends, all of exact distance.
            Value::WinUnknown | Value::LossUnknown => unreachable!("an exit of unknown distance"),
        }
    }
}

/// Positions per block of [`LevelMarks`]: a level visits the blocks marked for it, not every
/// position.
const BLOCK_SHIFT: u32 = 8;
/// Levels the marks tell apart: a mark for level `L` is written at a level `d` with
/// `d < L < d + LEVEL_WINDOW`, so the row it lands in is not the one being visited.
const LEVEL_WINDOW: u32 = 256;

/// Which blocks of positions may hold a value at a given level, one row of bits per level
/// modulo [`LEVEL_WINDOW`]. Most levels settle few positions; without the marks every level
/// would read every position's code, which took a third of a class's solve. A value planned
/// further ahead than the window (never in the Morris games, whose distances stay under 256)
/// turns the marks off: from then on every level reads every code, as without them.
struct LevelMarks {
    words_per_row: usize,
    rows: Vec<AtomicU64>,
    overflowed: AtomicBool,
}

impl LevelMarks {
    fn new(size: u64) -> LevelMarks {
        let blocks = size.div_ceil(1 << BLOCK_SHIFT);
        let words_per_row = blocks.div_ceil(64) as usize;
        LevelMarks {
            words_per_row,
            rows: (0..words_per_row * LEVEL_WINDOW as usize).map(|_| AtomicU64::new(0)).collect(),
            overflowed: AtomicBool::new(false),
        }
    }

    fn row(&self, level: u32) -> &[AtomicU64] {
        let start = (level % LEVEL_WINDOW) as usize * self.words_per_row;
        &self.rows[start..start + self.words_per_row]
    }

    /// Notes that position `index` now holds a value at `level`, written while level `now` is
    /// being settled (`None` in the first pass, before level 0).
    #[inline]
    fn mark(&self, index: u64, level: u32, now: Option<u32>) {
        let ahead = match now {
            Some(now) => level - now,
            None => level + 1,
        };
        if ahead >= LEVEL_WINDOW {
            self.overflowed.store(true, Relaxed);
            return;
        }
        let block = index >> BLOCK_SHIFT;
        let word = &self.row(level)[(block / 64) as usize];
        let bit = 1u64 << (block % 64);
        // Busy levels mark the same blocks over and over: read before writing.
        if word.load(Relaxed) & bit == 0 {
            word.fetch_or(bit, Relaxed);
        }
    }

    fn overflowed(&self) -> bool {
        self.overflowed.load(Relaxed)
    }
}

/// The working state of one solve: a code and a successor counter per position.
struct Solver<'a, S> {
    set: &'a S,
    codes: Vec<AtomicU16>,
    counters: Vec<AtomicU8>,
    /// The longest planned distance so far: levels go on at least that far.
    max_planned: AtomicU64,
    marks: LevelMarks,
}

/// Solves `set`: every value with its exact distance.
pub fn solve_cyclic(set: &impl CyclicSet, progress: &Progress) -> Result<Solution, SolveError> {
    let size = set.size();
    let solver = Solver {
        set,
        codes: (0..size).map(|_| AtomicU16::new(0)).collect(),
        counters: (0..size).map(|_| AtomicU8::new(0)).collect(),
        max_planned: AtomicU64::new(0),
        marks: LevelMarks::new(size),
    };
    progress.phase("successors", size);
    solver.first_pass(progress)?;
    progress.phase("propagation", size);
    let mut distance = 0u32;
    loop {
        progress.step(&format!("distance {distance}"), size);
        let settled = solver.settle_level(distance, progress)?;
        if settled == 0 && u64::from(distance) >= solver.max_planned.load(Relaxed) {
            // Nothing at this distance and nothing planned later; positions set to
            // `distance + 1` would have been counted as settled at the next level, and
            // settling nothing here sets nothing there.
            break;
        }
        distance += 1;
    }
    progress.finish();
    Ok(Solution { codes: solver.codes })
}

impl<S: CyclicSet> Solver<'_, S> {
    /// The code of a value planned at `distance` for `index`.
    #[inline]
    fn plan(&self, index: u64, distance: u32) -> Result<u16, SolveError> {
        if distance + 1 > MAX_CODE {
            return Err(SolveError::DistanceTooLong { index });
        }
        // Read first: the shared line stays in every core's cache until a new maximum.
        if u64::from(distance) > self.max_planned.load(Relaxed) {
            self.max_planned.fetch_max(u64::from(distance), Relaxed);
        }
        Ok(PLANNED | code(distance))
    }

    /// Counts each position's distinct successors inside the set and folds the moves that leave
    /// it: the shortest exit win is planned; without inside successors the exits decide.
    fn first_pass(&self, progress: &Progress) -> Result<(), SolveError> {
        let init = || (SmallSet::new(), S::Cursor::default());
        chunks(0..self.set.size(), CHUNK).try_for_each_init(init, |(inside, cursor), range| {
            for index in range.clone() {
                inside.clear();
                let mut exits = Exits::default();
                let mut full = false;
                let mut distinct = 0;
                self.set.for_each_counted_move(index, cursor, |m| match m {
                    CountedMove::Inside(j) => full |= !inside.insert(j),
                    CountedMove::Distinct => distinct += 1,
                    CountedMove::Outside(v) => exits.add(v),
                })?;
                let count = inside.len + distinct;
                if full || count > usize::from(u8::MAX) {
                    return Err(SolveError::TooManySuccessors { index });
                }
                self.counters[index as usize].store(count as u8, Relaxed);
                let start = if let Some(win) = exits.shortest_win {
                    self.plan(index, win)?
                } else if count == 0 {
                    match exits.longest_loss {
                        _ if exits.moves == 0 => code(0), // no move at all: lost now
                        _ if exits.draw => 0,
                        Some(loss) => self.plan(index, loss)?,
                        None => 0, // unreachable: every exit is a win, a loss or a draw
                    }
                } else {
                    0
                };
                self.codes[index as usize].store(start, Relaxed);
                if start != 0 {
                    self.marks.mark(index, level(start), None);
                }
            }
            progress.advance(range.end - range.start);
            stop_if_requested(progress)
        })
    }

    /// Makes the positions at `distance` final and passes them on to their predecessors;
    /// returns how many there were. Only the blocks marked for the level are read, unless the
    /// marks overflowed.
    fn settle_level(&self, distance: u32, progress: &Progress) -> Result<u64, SolveError> {
        let settled = AtomicU64::new(0);
        let size = self.set.size();
        if self.marks.overflowed() {
            let init = || (SmallSet::new(), S::Cursor::default());
            chunks(0..size, CHUNK).try_for_each_init(init, |(predecessors, cursor), range| {
                let mut found = 0u64;
                for index in range.clone() {
                    found += u64::from(self.settle_position(index, distance, predecessors, cursor)?);
                }
                settled.fetch_add(found, Relaxed);
                progress.advance(range.end - range.start);
                stop_if_requested(progress)
            })?;
            return Ok(settled.into_inner());
        }
        let span = 64u64 << BLOCK_SHIFT;
        self.marks.row(distance).par_iter().enumerate().try_for_each_init(
            || (SmallSet::new(), S::Cursor::default()),
            |(predecessors, cursor), (w, word)| {
                // No mark for this row is written during this level (see `LEVEL_WINDOW`).
                let mut blocks = word.swap(0, Relaxed);
                let mut found = 0u64;
                while blocks != 0 {
                    let block = w as u64 * 64 + u64::from(blocks.trailing_zeros());
                    blocks &= blocks - 1;
                    for index in block << BLOCK_SHIFT..((block + 1) << BLOCK_SHIFT).min(size) {
                        found += u64::from(self.settle_position(index, distance, predecessors, cursor)?);
                    }
                }
                settled.fetch_add(found, Relaxed);
                let start = w as u64 * span;
                progress.advance((start + span).min(size) - start);
                stop_if_requested(progress)
            },
        )?;
        Ok(settled.into_inner())
    }

    /// Makes position `index` final if its value is at `distance`, and passes it on to its
    /// predecessors; returns whether it was.
    #[inline]
    fn settle_position(
        &self,
        index: u64,
        distance: u32,
        predecessors: &mut SmallSet,
        cursor: &mut S::Cursor,
    ) -> Result<bool, SolveError> {
        let target = code(distance);
        let c = self.codes[index as usize].load(Relaxed);
        if c == PLANNED | target {
            self.codes[index as usize].store(target, Relaxed);
        } else if c != target {
            return Ok(false);
        }
        predecessors.clear();
        let mut full = false;
        let wins = !distance.is_multiple_of(2);
        self.set.for_each_predecessor(index, cursor, |p| {
            // Each predecessor's code (and counter, for a win) is a cache miss in gigabytes of
            // working values: ask for it now, while the next predecessor's index is computed,
            // rather than one after another behind the atomic updates below.
            prefetch(&self.codes[p as usize]);
            if wins {
                prefetch(&self.counters[p as usize]);
            }
            full |= !predecessors.insert(p)
        });
        if full {
            return Err(SolveError::TooManySuccessors { index });
        }
        if distance.is_multiple_of(2) {
            self.loss_reaches(predecessors.as_slice(), distance);
        } else {
            self.win_reaches(predecessors.as_slice(), distance)?;
        }
        Ok(true)
    }

    /// A loss at `distance`: its predecessors win one ply later, unless already decided or
    /// planned to win at least as fast.
    #[inline]
    fn loss_reaches(&self, predecessors: &[u64], distance: u32) {
        for &p in predecessors {
            let slot = &self.codes[p as usize];
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
                    Ok(_) => {
                        self.marks.mark(p, distance + 1, Some(distance));
                        break;
                    }
                    Err(now) => current = now,
                }
            }
        }
    }

    /// A win at `distance`: one fewer undecided successor for each predecessor; the last one
    /// makes a loss.
    #[inline]
    fn win_reaches(&self, predecessors: &[u64], distance: u32) -> Result<(), SolveError> {
        for &p in predecessors {
            let slot = &self.codes[p as usize];
            if slot.load(Relaxed) != 0 {
                continue; // decided, or planned: a win, or a loss without inside moves
            }
            if self.counters[p as usize].fetch_sub(1, Relaxed) != 1 {
                continue;
            }
            let mut exits = Exits::default();
            self.set.for_each_exit(p, |v| exits.add(v))?;
            if exits.draw {
                continue; // a drawing exit: never a loss
            }
            let loss = (distance + 1).max(exits.longest_loss.unwrap_or(0));
            let new = if loss == distance + 1 { code(loss) } else { self.plan(p, loss)? };
            // Only the thread that took the counter to zero writes here, and no win races
            // with it: every successor of this position is a win.
            slot.store(new, Relaxed);
            self.marks.mark(p, loss, Some(distance));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solve::check_cyclic;

    /// A subtraction game: take 1 or 2 from a heap; taking the last one wins (the player left
    /// with 0 has lost). Heap n with n % 3 == 0 is lost in n / 3 * 2 plies.
    struct Subtraction(u64);

    impl CyclicSet for Subtraction {
        type Cursor = ();
        fn size(&self) -> u64 {
            self.0
        }
        fn for_each_successor(&self, index: u64, mut f: impl FnMut(Successor)) -> Result<(), SolveError> {
            for take in 1..=2 {
                if index >= take {
                    f(Successor::Inside(index - take));
                }
            }
            Ok(())
        }
        fn for_each_predecessor(&self, index: u64, _: &mut (), mut f: impl FnMut(u64)) {
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

    impl CyclicSet for RingWithExit {
        type Cursor = ();
        fn size(&self) -> u64 {
            self.0
        }
        fn for_each_successor(&self, index: u64, mut f: impl FnMut(Successor)) -> Result<(), SolveError> {
            f(Successor::Inside((index + 1) % self.0));
            if index == 0 {
                f(Successor::Outside(Value::Win(5)));
            }
            Ok(())
        }
        fn for_each_predecessor(&self, index: u64, _: &mut (), mut f: impl FnMut(u64)) {
            f((index + self.0 - 1) % self.0);
        }
    }

    #[test]
    fn subtraction_game_values() {
        let set = Subtraction(100);
        let solution = solve_cyclic(&set, &Progress::hidden()).unwrap();
        for n in 0..100 {
            let expected =
                if n % 3 == 0 { Value::Loss((n / 3 * 2) as u32) } else { Value::Win((n / 3 * 2 + 1) as u32) };
            assert_eq!(solution.value(n), expected, "heap {n}");
        }
        let found = check_cyclic(&set, 0..100, |i| Ok(solution.value(i)), &Progress::hidden()).unwrap();
        assert_eq!(found.mismatches, 0);
        let found = check_cyclic(
            &set,
            0..100,
            |i| Ok(if i == 42 { Value::Draw } else { solution.value(i) }),
            &Progress::hidden(),
        )
        .unwrap();
        assert!(found.mismatches >= 1 && found.examples[0].index <= 44);
    }

    /// Levels past the marks' window: heaps up to 2000 settle at distances up to 1332, each
    /// row of marks used five times over.
    #[test]
    fn distances_beyond_the_level_window() {
        let set = Subtraction(2000);
        let solution = solve_cyclic(&set, &Progress::hidden()).unwrap();
        for n in 0..2000 {
            let expected =
                if n % 3 == 0 { Value::Loss((n / 3 * 2) as u32) } else { Value::Win((n / 3 * 2 + 1) as u32) };
            assert_eq!(solution.value(n), expected, "heap {n}");
        }
    }

    /// A chain i -> i - 1 whose end leaves the set to a loss in 599: planned in the first pass
    /// beyond the marks' window, which turns them off; every value must still come out.
    struct ChainToLongLoss(u64);

    impl CyclicSet for ChainToLongLoss {
        type Cursor = ();
        fn size(&self) -> u64 {
            self.0
        }
        fn for_each_successor(&self, index: u64, mut f: impl FnMut(Successor)) -> Result<(), SolveError> {
            f(if index == 0 { Successor::Outside(Value::Loss(599)) } else { Successor::Inside(index - 1) });
            Ok(())
        }
        fn for_each_predecessor(&self, index: u64, _: &mut (), mut f: impl FnMut(u64)) {
            if index + 1 < self.0 {
                f(index + 1);
            }
        }
    }

    #[test]
    fn a_value_planned_beyond_the_level_window() {
        let set = ChainToLongLoss(1000);
        let solution = solve_cyclic(&set, &Progress::hidden()).unwrap();
        for i in 0..1000u32 {
            let d = 599 + i;
            let expected = if d % 2 == 0 { Value::Loss(d) } else { Value::Win(d) };
            assert_eq!(solution.value(u64::from(i)), expected, "position {i}");
        }
    }

    #[test]
    fn ring_with_exit_is_a_draw_where_the_loser_can_cycle() {
        // 0 wins in 5 via the exit. 4 (say, n = 4): 3 -> 0 is a loss for 3 in 6 (its only move
        // is to 0, which wins); 2 -> 3 wins in 7; 1 -> 2 loses in 8; 0 keeps its exit win.
        let set = RingWithExit(4);
        let solution = solve_cyclic(&set, &Progress::hidden()).unwrap();
        let values: Vec<Value> = (0..4).map(|i| solution.value(i)).collect();
        assert_eq!(values, [Value::Win(5), Value::Loss(8), Value::Win(7), Value::Loss(6)]);
    }
}
