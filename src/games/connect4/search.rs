//! Connect Four positions solved by search, for boards too large to tabulate (7x6): the exact
//! value and distance of docs/CLI.md, "Values", the same as the tables give.
//!
//! The search scores a position by the stone that ends the game: a win on the winner's own
//! `k`-th stone scores `MAX - k` for the winner and `k - MAX` for the loser, a draw 0. Such a
//! score does not depend on the ply it is seen from, so a child's score is exactly the negation
//! of what it gives its parent (plain negamax), and it converts exactly to a distance in plies.
//! The exact score comes from null-window alpha-beta searches that bisect the range of possible
//! scores; each search uses
//! - bitboards (the board module's layout), with only the moves that do not hand the opponent a
//!   win at once, and an immediate loss where the opponent has two winning cells to play;
//! - a transposition table of bounds keyed by the position or its mirror image, whichever is
//!   smaller, so that mirror positions share entries; 32-bit entries on 7x6, since the search
//!   waits on the table's cache misses more than on anything else;
//! - moves ordered by the winning cells they create for the mover, centre columns first.

use super::board::{Geometry, Position};
use crate::value::Value;
use std::fmt;
use std::sync::{Mutex, PoisonError};
use std::time::Instant;

/// Why a search gave no answer.
#[derive(Clone, Debug, PartialEq)]
pub enum SearchError {
    /// It ran past its time limit.
    TimeLimit {
        /// The limit, in seconds.
        seconds: f64,
        /// Positions searched until then.
        nodes: u64,
    },
}

impl fmt::Display for SearchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SearchError::TimeLimit { seconds, nodes } => write!(
                f,
                "the search needs more than the {seconds} s allowed (--max-time); it stopped after {nodes} positions"
            ),
        }
    }
}

impl std::error::Error for SearchError {}

/// A transposition table: one entry per slot, holding a bound on the score and the part of the
/// position's key that its slot does not already tell. A new entry replaces the old one.
///
/// The slot and the stored part come from `key * ODD mod 2^key_bits`, a bijection on keys:
/// its high bits choose the slot (multiplicative hashing) and its low bits are stored, so the
/// pair is the whole key and two positions never mistake each other's bounds. On 7x6 (49-bit
/// keys, 2^24 slots) the stored part is 25 bits and the bound 7, so an entry is 32 bits and the
/// table holds twice the entries of a 64-bit table in the same memory.
struct Bounds {
    entries: Entries,
    key_mask: u64,
    /// `key_bits - slot_bits`: how far the hashed key is shifted to give the slot, and the
    /// number of its low bits stored.
    stored_bits: u32,
    bound_bits: u32,
    /// Added to a score to store it: `max_score + 1`, so that a stored bound is never 0.
    score_offset: i32,
}

enum Entries {
    Narrow(Vec<u32>),
    Wide(Vec<u64>),
}

const ODD: u64 = 0x9e37_79b9_7f4a_7c15;

impl Bounds {
    /// A table of at most `bytes` bytes (at least 256 slots) for keys of `key_bits` bits and
    /// scores of magnitude at most `max_score`.
    fn new(bytes: usize, key_bits: u32, max_score: i32) -> Bounds {
        // A bound is `(score + max_score + 1) << 1 | is_lower`: never 0, which marks an empty slot.
        let bound_bits = u32::BITS - (4 * max_score as u32 + 3).leading_zeros();
        let slot_bits_for = |entry_bytes: usize| {
            let slots = (bytes / entry_bytes).max(256);
            (usize::BITS - 1 - slots.leading_zeros()).min(key_bits)
        };
        let narrow_slot_bits = slot_bits_for(4);
        let (entries, slot_bits) = if key_bits - narrow_slot_bits + bound_bits <= 32 {
            (Entries::Narrow(vec![0; 1 << narrow_slot_bits]), narrow_slot_bits)
        } else {
            let slot_bits = slot_bits_for(8);
            (Entries::Wide(vec![0; 1 << slot_bits]), slot_bits)
        };
        match &entries {
            Entries::Narrow(entries) => advise_huge_pages(entries),
            Entries::Wide(entries) => advise_huge_pages(entries),
        }
        let key_mask = if key_bits == 64 { u64::MAX } else { (1 << key_bits) - 1 };
        Bounds {
            entries,
            key_mask,
            stored_bits: key_bits - slot_bits,
            bound_bits,
            score_offset: max_score + 1,
        }
    }

    /// The slot of `key` and the part of it stored there.
    #[inline]
    fn slot(&self, key: u64) -> (usize, u64) {
        let hashed = key.wrapping_mul(ODD) & self.key_mask;
        let stored = hashed & ((1u64 << self.stored_bits) - 1);
        ((hashed >> self.stored_bits) as usize, stored)
    }

    /// Starts loading the slot of `key` into the cache.
    #[inline]
    fn prefetch(&self, key: u64) {
        let slot = self.slot(key).0;
        match &self.entries {
            Entries::Narrow(entries) => crate::prefetch::prefetch(&entries[slot]),
            Entries::Wide(entries) => crate::prefetch::prefetch(&entries[slot]),
        }
    }

    /// The bound stored for `key`: `(score, is_lower)`.
    #[inline]
    fn get(&self, key: u64) -> Option<(i32, bool)> {
        let (slot, stored) = self.slot(key);
        let entry = match &self.entries {
            Entries::Narrow(entries) => u64::from(entries[slot]),
            Entries::Wide(entries) => entries[slot],
        };
        let bound = entry & ((1 << self.bound_bits) - 1);
        (bound != 0 && entry >> self.bound_bits == stored)
            .then(|| ((bound >> 1) as i32 - self.score_offset, bound & 1 != 0))
    }

    #[inline]
    fn put(&mut self, key: u64, score: i32, is_lower: bool) {
        let (slot, stored) = self.slot(key);
        let entry =
            (stored << self.bound_bits) | ((score + self.score_offset) as u64) << 1 | u64::from(is_lower);
        match &mut self.entries {
            Entries::Narrow(entries) => entries[slot] = entry as u32,
            Entries::Wide(entries) => entries[slot] = entry,
        }
    }

    fn clear(&mut self) {
        match &mut self.entries {
            Entries::Narrow(entries) => entries.fill(0),
            Entries::Wide(entries) => entries.fill(0),
        }
    }
}

/// Asks the kernel to back `entries` with huge pages where it can: every lookup lands on a
/// random slot, and with 4 KB pages each one would also miss the TLB. Only advice: nothing
/// changes where the kernel does not follow it.
fn advise_huge_pages<T>(entries: &[T]) {
    const HUGE_PAGE: usize = 2 << 20;
    let start = entries.as_ptr() as usize;
    let end = start + std::mem::size_of_val(entries);
    let aligned = start.next_multiple_of(HUGE_PAGE);
    if aligned + HUGE_PAGE <= end {
        let len = (end - aligned) / HUGE_PAGE * HUGE_PAGE;
        // SAFETY: advice on whole pages inside our own allocation, which stays valid; madvise
        // with MADV_HUGEPAGE changes no contents.
        unsafe { libc::madvise(aligned as *mut libc::c_void, len, libc::MADV_HUGEPAGE) };
    }
}

/// A position with its mirror image, kept side by side so that the symmetric key costs no
/// mirroring at each node.
#[derive(Clone, Copy)]
struct Node {
    current: u64,
    mask: u64,
    mirror_current: u64,
    mirror_mask: u64,
    ply: u32,
}

/// Searches Connect Four positions of one board. Keeps its transposition table between
/// searches: positions searched before make later searches (a position's moves, the best line)
/// cheaper.
pub struct Searcher {
    g: Geometry,
    table: Bounds,
    /// Columns, centre first.
    order: Vec<u32>,
    /// The bottom cell of each column, and of the column that mirrors it.
    bottom: Vec<u64>,
    mirror_bottom: Vec<u64>,
    bottom_row: u64,
    board: u64,
    /// `MAX` of the score: a win on the own stone `k` scores `MAX - k`.
    max_score: i32,
    nodes: u64,
    deadline: Option<(Instant, f64)>,
}

/// `MAX` of the score on board `g`: a win on the winner's own stone `k` scores `MAX - k`
/// (22 on 7x6, whose first player places at most 21 stones).
fn max_score(g: &Geometry) -> i32 {
    (g.cells() as i32 + 1) / 2 + 1
}

/// The value, for the side to move at `ply`, of a score in this module's convention (which is
/// also that of Pascal Pons's test sets): positive when it wins on its own stone
/// `MAX - score`, negative when it loses to the opponent's stone `MAX + score`, 0 for a draw.
pub fn value_of_score(g: &Geometry, ply: u32, score: i32) -> Value {
    let own = (ply / 2) as i32; // stones the side to move has played
    let theirs = ply as i32 - own;
    let max = max_score(g);
    match score {
        0 => Value::Draw,
        s if s > 0 => Value::Win((2 * (max - s - own) - 1) as u32),
        s => Value::Loss((2 * (max + s - theirs)) as u32),
    }
}

/// The score of `value` for the side to move at `ply`, the inverse of [`value_of_score`]; `None`
/// for a value no score gives (a distance of the wrong parity or out of range).
fn score_of_value(g: &Geometry, ply: u32, value: Value) -> Option<i32> {
    let own = i64::from(ply / 2);
    let theirs = i64::from(ply) - own;
    let max = i64::from(max_score(g));
    let score = match value {
        Value::Draw => 0,
        Value::Win(plies) => max - own - (i64::from(plies) + 1) / 2,
        Value::Loss(plies) => i64::from(plies) / 2 - max + theirs,
    };
    let score = i32::try_from(score).ok().filter(|s| s.abs() < max_score(g))?;
    (value_of_score(g, ply, score) == value).then_some(score)
}

/// The transposition table's size by default: 64 MB (2^24 entries on 7x6).
pub const DEFAULT_TABLE_BYTES: usize = 64 << 20;

impl Searcher {
    /// A searcher for board `g` with a transposition table of at most `table_bytes` bytes.
    pub fn new(g: Geometry, table_bytes: usize) -> Searcher {
        let w = g.width;
        let mut order: Vec<u32> = (0..w).collect();
        // Centre first, then outwards (left before right at equal distance).
        order.sort_by_key(|&c| ((2 * c as i32 - (w as i32 - 1)).abs(), c));
        Searcher {
            g,
            table: Bounds::new(table_bytes, w * (g.height + 1), max_score(&g)),
            order,
            bottom: (0..w).map(|c| g.bottom(c)).collect(),
            mirror_bottom: (0..w).map(|c| g.bottom(w - 1 - c)).collect(),
            bottom_row: g.bottom_row(),
            board: g.board(),
            max_score: max_score(&g),
            nodes: 0,
            deadline: None,
        }
    }

    /// Stops every later search after `seconds` from now with [`SearchError::TimeLimit`];
    /// `None` lifts the limit, and so does a limit too far away to be a point in time (or not a
    /// number): no search would reach it.
    pub fn set_time_limit(&mut self, seconds: Option<f64>) {
        let limit = seconds.and_then(|s| {
            let span = std::time::Duration::try_from_secs_f64(s.max(0.0)).ok()?;
            Some((Instant::now().checked_add(span)?, s))
        });
        self.deadline = limit;
    }

    /// Positions searched so far.
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// Forgets every position searched.
    pub fn clear(&mut self) {
        self.table.clear();
    }

    /// The value of `position` for the side to move, with its exact distance.
    pub fn value(&mut self, position: &Position) -> Result<Value, SearchError> {
        let g = self.g;
        if position.is_won_by_previous(&g) {
            return Ok(Value::Loss(0));
        }
        if position.ply == g.cells() {
            return Ok(Value::Draw);
        }
        let score = self.score(position)?;
        Ok(value_of_score(&g, position.ply, score))
    }

    /// Whether `value` is the value of `position`, proved by two null-window searches, one on
    /// each side of its score (no faster win and no longer defence), where [`Searcher::value`]
    /// bisects the whole range of scores: what `verify` needs of a value found before. On 7x6
    /// ply 8 it takes about 0.7 of the time of finding the value (docs/BENCHMARKS.md).
    pub fn confirms(&mut self, position: &Position, value: Value) -> Result<bool, SearchError> {
        let g = self.g;
        if position.is_won_by_previous(&g) || position.ply == g.cells() || position.can_win_at_once(&g) {
            return Ok(self.value(position)? == value);
        }
        let Some(score) = score_of_value(&g, position.ply, value) else {
            return Ok(false);
        };
        let node = self.node(position);
        Ok(self.negamax(&node, score - 1, score)? >= score && self.negamax(&node, score, score + 1)? <= score)
    }

    fn node(&self, position: &Position) -> Node {
        Node {
            current: position.current,
            mask: position.mask,
            mirror_current: self.g.mirror(position.current),
            mirror_mask: self.g.mirror(position.mask),
            ply: position.ply,
        }
    }

    /// The exact score of a position whose game is not over.
    fn score(&mut self, position: &Position) -> Result<i32, SearchError> {
        let node = self.node(position);
        let own = (node.ply / 2) as i32;
        let theirs = node.ply as i32 - own;
        if position.can_win_at_once(&self.g) {
            return Ok(self.max_score - (own + 1));
        }
        // At worst the opponent wins with its next stone; at best the mover wins with its
        // stone after next.
        let (mut low, mut high) = (-(self.max_score - (theirs + 1)), self.max_score - (own + 2));
        while low < high {
            // Bisect, but try scores nearer 0 first: they are the common ones and their searches
            // the cheapest.
            let mut probe = low + (high - low) / 2;
            if probe <= 0 && low / 2 < probe {
                probe = low / 2;
            } else if probe >= 0 && high / 2 > probe {
                probe = high / 2;
            }
            let found = self.negamax(&node, probe, probe + 1)?;
            if found <= probe {
                high = found;
            } else {
                low = found;
            }
        }
        Ok(low)
    }

    /// A bound on the score of `node` (whose side to move cannot win at once) against the window
    /// `alpha < beta`: the exact score when it lies inside, else a bound on the side of the
    /// window it fell.
    fn negamax(&mut self, node: &Node, mut alpha: i32, mut beta: i32) -> Result<i32, SearchError> {
        self.nodes += 1;
        if self.nodes & 0xfff == 0
            && let Some((deadline, seconds)) = self.deadline
            && Instant::now() > deadline
        {
            return Err(SearchError::TimeLimit { seconds, nodes: self.nodes });
        }
        let own = (node.ply / 2) as i32;
        let theirs = node.ply as i32 - own;
        let empty = self.board & !node.mask;
        let playable = (node.mask + self.bottom_row) & self.board;
        let threats = self.g.completing_cells(node.current ^ node.mask) & empty;
        let forced = playable & threats;
        let mut moves = playable;
        if forced != 0 {
            if forced & (forced - 1) != 0 {
                // Two cells to block: the opponent wins with its next stone.
                return Ok(-(self.max_score - (theirs + 1)));
            }
            moves = forced;
        }
        // Never play under a cell where the opponent would make four.
        moves &= !(threats >> 1);
        if moves == 0 {
            return Ok(-(self.max_score - (theirs + 1)));
        }
        if node.ply + 2 >= self.g.cells() {
            // Neither side can win in the last two plies: the opponent has no winning cell to
            // play after any of these moves, and the mover none now.
            return Ok(0);
        }
        let lowest = -(self.max_score - (theirs + 2));
        if alpha < lowest {
            alpha = lowest;
            if alpha >= beta {
                return Ok(alpha);
            }
        }
        let mut highest = self.max_score - (own + 2);
        let key = self.key(node);
        if let Some((bound, is_lower)) = self.table.get(key) {
            if is_lower {
                if alpha < bound {
                    alpha = bound;
                    if alpha >= beta {
                        return Ok(alpha);
                    }
                }
            } else if bound < highest {
                highest = bound;
            }
        }
        if beta > highest {
            beta = highest;
            if alpha >= beta {
                return Ok(beta);
            }
        }

        // Moves by the winning cells they make for the mover, centre first among equals.
        let mut ordered = [(0u32, 0u32); 16];
        let mut count = 0;
        for &column in &self.order {
            let cell = moves & self.g.column(column);
            if cell == 0 {
                continue;
            }
            // The child's entry is wanted soon: start loading it (the table is far larger than
            // the caches, so each lookup is a miss).
            self.table.prefetch(self.key(&self.play(node, column)));
            let made = (self.g.completing_cells(node.current | cell) & empty & !cell).count_ones();
            let mut at = count;
            while at > 0 && ordered[at - 1].0 < made {
                ordered[at] = ordered[at - 1];
                at -= 1;
            }
            ordered[at] = (made, column);
            count += 1;
        }
        for &(_, column) in &ordered[..count] {
            let score = -self.negamax(&self.play(node, column), -beta, -alpha)?;
            if score >= beta {
                self.table.put(key, score, true);
                return Ok(score);
            }
            if score > alpha {
                alpha = score;
            }
        }
        self.table.put(key, alpha, false);
        Ok(alpha)
    }

    /// The position after a stone in `column`, and its mirror image after the mirror move.
    #[inline]
    fn play(&self, node: &Node, column: u32) -> Node {
        Node {
            current: node.current ^ node.mask,
            mask: node.mask | (node.mask + self.bottom[column as usize]),
            mirror_current: node.mirror_current ^ node.mirror_mask,
            mirror_mask: node.mirror_mask | (node.mirror_mask + self.mirror_bottom[column as usize]),
            ply: node.ply + 1,
        }
    }

    /// A key that identifies the position up to mirror image: `current + mask` (each column's
    /// stones plus a marker bit above them) of the position or its mirror, whichever is less.
    #[inline]
    fn key(&self, node: &Node) -> u64 {
        (node.current + node.mask).min(node.mirror_current + node.mirror_mask)
    }
}

/// Searchers of one board shared by threads: a search takes an idle one (or makes one), so
/// that threads never share a transposition table, and puts it back, so that later searches
/// find the positions searched before.
pub(crate) struct SearcherPool {
    g: Geometry,
    table_bytes: usize,
    idle: Mutex<Vec<Searcher>>,
}

impl SearcherPool {
    /// Searchers for board `g` with transposition tables of at most `table_bytes` bytes each.
    pub fn new(g: Geometry, table_bytes: usize) -> SearcherPool {
        SearcherPool { g, table_bytes, idle: Mutex::new(Vec::new()) }
    }

    /// The value of `position`, stopped after `max_time` seconds if given.
    pub fn value(&self, position: &Position, max_time: Option<f64>) -> Result<Value, SearchError> {
        self.with_searcher(max_time, |searcher| searcher.value(position))
    }

    /// Whether `value` is the value of `position` ([`Searcher::confirms`]).
    pub fn confirms(&self, position: &Position, value: Value) -> Result<bool, SearchError> {
        self.with_searcher(None, |searcher| searcher.confirms(position, value))
    }

    fn with_searcher<T>(
        &self,
        max_time: Option<f64>,
        search: impl FnOnce(&mut Searcher) -> Result<T, SearchError>,
    ) -> Result<T, SearchError> {
        let idle = || self.idle.lock().unwrap_or_else(PoisonError::into_inner);
        let mut searcher = idle().pop().unwrap_or_else(|| Searcher::new(self.g, self.table_bytes));
        searcher.set_time_limit(max_time);
        let answer = search(&mut searcher);
        idle().push(searcher);
        answer
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::connect4::parse_moves;
    use std::collections::HashMap;

    /// Plain minimax with exact distances, memoised, for small boards.
    fn minimax(g: &Geometry, p: &Position, memo: &mut HashMap<(u64, u64), Value>) -> Value {
        if p.is_won_by_previous(g) {
            return Value::Loss(0);
        }
        if p.ply == g.cells() {
            return Value::Draw;
        }
        if let Some(&v) = memo.get(&(p.current, p.mask)) {
            return v;
        }
        let mut children = Vec::new();
        p.for_each_move(g, |_, child| children.push(child));
        let best = children.iter().map(|c| minimax(g, c, memo).for_mover()).max().expect("a move");
        memo.insert((p.current, p.mask), best);
        best
    }

    /// Every legal position reached by `plies` moves on board `g`, as move strings.
    fn positions(g: &Geometry, plies: u32) -> Vec<(String, Position)> {
        let w = g.width;
        (0..w.pow(plies))
            .filter_map(|code| {
                let moves: String =
                    (0..plies).map(|i| char::from(b'1' + ((code / w.pow(i)) % w) as u8)).collect();
                parse_moves(g, &moves).ok().map(|p| (moves, p))
            })
            .collect()
    }

    /// The larger boards are checked against their tables, in tests/connect4_search.rs.
    #[test]
    fn agrees_with_minimax_on_every_4x4_position_of_some_plies() {
        let g = Geometry::new(4, 4).unwrap();
        let mut memo = HashMap::new();
        // A small table (256 slots), so that entries are replaced and keys share slots.
        let mut searcher = Searcher::new(g, 1024);
        for ply in [2, 5, 7, 10, 13] {
            let all = positions(&g, ply);
            for (moves, p) in &all {
                assert_eq!(searcher.value(p).unwrap(), minimax(&g, p, &mut memo), "{moves}");
            }
            assert!(all.len() > 10, "ply {ply}: {}", all.len());
        }
    }

    /// A value is confirmed exactly when it is the position's value: every wrong value of the
    /// same or the other outcome is refused, including those one move faster or slower.
    #[test]
    fn confirms_only_the_exact_value() {
        let g = Geometry::new(4, 4).unwrap();
        let mut memo = HashMap::new();
        let mut searcher = Searcher::new(g, 1024);
        let (mut confirmed, mut refused) = (0, 0);
        for ply in [3, 6, 9, 12] {
            for (moves, p) in positions(&g, ply) {
                let exact = minimax(&g, &p, &mut memo);
                assert!(searcher.confirms(&p, exact).unwrap(), "{moves}: {exact:?}");
                confirmed += 1;
                let d = exact.distance().unwrap_or(0);
                let wrong = [Value::Draw, Value::Win(d + 2), Value::Win(d.saturating_sub(2) | 1)]
                    .into_iter()
                    .chain([Value::Loss(d + 2), Value::Loss(d.saturating_sub(2) & !1), Value::Win(d + 1)]);
                for value in wrong.filter(|&v| v != exact) {
                    assert!(!searcher.confirms(&p, value).unwrap(), "{moves}: {value:?} for {exact:?}");
                    refused += 1;
                }
            }
        }
        assert!(confirmed > 100 && refused > 500, "{confirmed} {refused}");
    }

    /// Both entry widths: a bound read back is the last one stored for that very key, never
    /// another key's, however many keys share a slot.
    #[test]
    fn the_table_gives_back_only_a_keys_own_last_bound() {
        // 5x4 keys in narrow entries; 64-bit keys (8x7) in wide ones.
        for (key_bits, max_score, wide) in [(25, 11, false), (64, 29, true)] {
            let mut table = Bounds::new(1 << 12, key_bits, max_score);
            assert_eq!(matches!(table.entries, Entries::Wide(_)), wide);
            let slots = match &table.entries {
                Entries::Narrow(e) => e.len(),
                Entries::Wide(e) => e.len(),
            };
            let mut rng = crate::rng::SplitMix64::new(key_bits.into());
            let mut last = HashMap::new();
            let mut found = 0;
            for round in 0..20 * slots {
                // Few distinct keys at first (found again), then many (slots overwritten).
                let key = if round < slots { rng.next_u64() % 64 } else { rng.next_u64() & table.key_mask };
                if let Some(bound) = table.get(key) {
                    assert_eq!(Some(&bound), last.get(&key), "key {key:#x}");
                    found += 1;
                }
                let score = (rng.next_u64() % (2 * max_score as u64 + 1)) as i32 - max_score;
                let is_lower = rng.next_u64() & 1 == 1;
                table.put(key, score, is_lower);
                last.insert(key, (score, is_lower));
                assert_eq!(table.get(key), Some((score, is_lower)));
            }
            assert!(found > slots / 2, "{found} bounds found again");
            table.clear();
            assert!(last.keys().all(|&key| table.get(key).is_none()));
        }
    }

    #[test]
    fn a_time_limit_stops_the_search() {
        let g = Geometry::new(7, 6).unwrap();
        let mut searcher = Searcher::new(g, 1 << 16);
        searcher.set_time_limit(Some(0.01));
        let error = searcher.value(&Position::EMPTY).unwrap_err();
        assert!(matches!(error, SearchError::TimeLimit { .. }), "{error}");
    }
}
