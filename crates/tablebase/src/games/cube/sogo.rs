//! Sogo's prover: whether one side, the attacker, wins a position, by a search of two outcomes
//! that knows the game.
//!
//! The question is one-sided, as a draw is two proofs ("White cannot win", "Black cannot win"):
//! at the attacker's nodes one winning move settles it, at the defender's one holding move. The
//! search is a depth-first alpha-beta over those two outcomes with a table of what it proved,
//! and each piece of knowledge below can be switched off ([`Knowledge`]), so that its worth can
//! be measured and its claims checked against the plain search:
//! - **Forced moves** (always on): a cell the opponent would complete next must be blocked; two
//!   such cells lose; a stone is never dropped under the opponent's winning cell.
//! - **Live lines**: the attacker cannot win once every line holds a defender's stone.
//! - **Claimeven**: with the attacker to move and every column of even height, the defender can
//!   answer every stone in the same column, and so takes every empty cell of the second and
//!   fourth levels while the attacker gets those of the first and third. Where no line is made
//!   of the attacker's stones and such cells alone, the attacker cannot win (Allis, 1988, for
//!   Connect Four; every Sogo column holds an even number of cells too).
//! - **Column pairs**: where claimeven leaves the attacker a line (a row of the first or third
//!   level, which it gets whole), the defender may instead pair two columns of equal even height
//!   on it, answering a stone in one at the same level of the other: the attacker then gets any
//!   cell of those columns, but never both cells of a level.
//! - **Zugzwang**: the same follow-up played by the side not to move, with a column left alone
//!   whose next cell lies beneath that side's winning cell. Where it leaves the side to move no
//!   line, the follower wins: its answers keep the parity of the other columns' empty cells, so
//!   when they are full the side to move must play beneath the winning cell (Allis's odd threat
//!   of the first player, and its mirror for the second).
//! - **Dead cells**: a stone each of whose lines holds both colours among its other cells
//!   matters only as the floor of the cell above: its colour changes no line that can still be
//!   made. The table's key counts such a stone as the mover's, one stone at a time, each
//!   recoloured only while the condition holds, so that positions differing there meet.
//! - **Probes**: before any move is searched to the end, each is looked at with a budget of a
//!   few nodes, which settles the moves that the table, a rule or a forced reply settle at
//!   once; where one of them achieves the mover's aim the others are never searched, and those
//!   found failing are not searched again. Without them a position's first move is searched
//!   to the end even where a later one is settled by the table (an enhanced transposition
//!   cutoff, extended to the rules).
//! - **Ordering**: the attacker tries first the moves that make threats it can use and lines it
//!   can still fill; the defender tries first the answer in the column just played (which
//!   claimeven settles most often), then the moves that block the most.
//!
//! A proof may run on several threads ([`SogoProver::prove_together`]): they share the table,
//! and near the root each leaves for last the moves another is searching, so that they share
//! out the moves that must all be refuted instead of searching the same ones.

use super::board::{self, CELLS, Position};
use super::search::Sogo;
use super::journal::{Creation, JournalError, JournalFile};
use crate::search::{Deadline, LineGame, SearchError, Work};
use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex, PoisonError};

mod numbers;
pub use numbers::FirstNumbers;

/// The cells of the first and third levels (heights 1 and 3: bits of `z` = 0 and 2).
const ODD_LEVELS: u64 = 0x0000_ffff_0000_ffff;
/// The bottom layer.
const LAYER: u64 = 0xffff;

/// The knowledge a [`SogoProver`] uses; [`Knowledge::ALL`] by default, [`Knowledge::NONE`] for
/// the plain search that checks the others.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Knowledge {
    /// Stop where the attacker has no line free of the defender's stones.
    pub live_lines: bool,
    /// Stop where the defender's follow-up (claimeven, baseinverse, columns under its threats)
    /// leaves the attacker no line.
    pub claimeven: bool,
    /// Count dead stones as the mover's in the table's key.
    pub dead_cells: bool,
    /// Order the moves by the game's heuristics (else in the column order of the exact search).
    pub ordering: bool,
    /// Stop where the follow-up holds for the side not to move with a column left alone beneath
    /// its winning cell: the side to move must at last play there, so the other side wins.
    pub zugzwang: bool,
    /// Let the follow-up pair columns of equal height level by level where claimeven leaves
    /// the attacker a line (of the first or third level).
    pub column_pairs: bool,
    /// Before searching any move to the end, look at every move with a budget of a few nodes,
    /// so that a move settled at once (by the table or a rule) is found before a costly one is
    /// searched.
    pub probes: bool,
    /// Let an outcome the table holds for the other colour as attacker settle this one: where
    /// the other colour wins, this one cannot (what a draw's second one-sided proof, on the
    /// first's table, is mostly made of).
    pub other_side: bool,
}

impl Knowledge {
    /// Everything.
    pub const ALL: Knowledge = Knowledge::every(true);
    /// Nothing but forced moves: the plain search.
    pub const NONE: Knowledge = Knowledge::every(false);

    /// Every piece of knowledge on, or every one off.
    const fn every(on: bool) -> Knowledge {
        Knowledge {
            live_lines: on,
            claimeven: on,
            dead_cells: on,
            ordering: on,
            zugzwang: on,
            column_pairs: on,
            probes: on,
            other_side: on,
        }
    }

    /// The name of each piece of knowledge, as [`Knowledge::parse`] reads it.
    pub const NAMES: [&'static str; 8] =
        ["live-lines", "claimeven", "dead-cells", "ordering", "zugzwang", "column-pairs", "probes", "other-side"];

    /// The switch of the piece of knowledge called `name` (one of [`Knowledge::NAMES`]).
    fn switch(&mut self, name: &str) -> Option<&mut bool> {
        Some(match name {
            "live-lines" => &mut self.live_lines,
            "claimeven" => &mut self.claimeven,
            "dead-cells" => &mut self.dead_cells,
            "ordering" => &mut self.ordering,
            "zugzwang" => &mut self.zugzwang,
            "column-pairs" => &mut self.column_pairs,
            "probes" => &mut self.probes,
            "other-side" => &mut self.other_side,
            _ => return None,
        })
    }

    /// The knowledge named in `text`: `all`, `none`, or [names](Knowledge::NAMES) joined by
    /// commas, each optionally prefixed `no-` to remove it from everything.
    pub fn parse(text: &str) -> Result<Knowledge, String> {
        match text.trim() {
            "all" => return Ok(Knowledge::ALL),
            "none" => return Ok(Knowledge::NONE),
            _ => {}
        }
        let words: Vec<&str> = text.split(',').map(str::trim).collect();
        let removing = words.iter().all(|w| w.starts_with("no-"));
        let mut knowledge = if removing { Knowledge::ALL } else { Knowledge::NONE };
        for word in words {
            let name = word.strip_prefix("no-").unwrap_or(word);
            if word.starts_with("no-") != removing {
                return Err(format!("'{text}': either names of what to use or 'no-' names of what to leave out"));
            }
            let Some(switch) = knowledge.switch(name) else {
                return Err(format!("'{name}' is no knowledge of the prover ({})", Knowledge::NAMES.join(", ")));
            };
            *switch = !removing;
        }
        Ok(knowledge)
    }
}

/// Which rule settled a position without searching its moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rule {
    /// Every line holds a defender's stone.
    NoLiveLine,
    /// The defender's follow-up leaves the attacker no line.
    Claimeven,
    /// The defender to move, the attacker's follow-up leaves it no line with a column left alone
    /// beneath the attacker's winning cell: when every other column is full the defender must
    /// play beneath it, and the attacker wins.
    Zugzwang,
}

impl Rule {
    /// Whether the rule settles that the attacker wins (else that it cannot).
    pub fn attacker_wins(self) -> bool {
        self == Rule::Zugzwang
    }
}

/// Whether a knowledge rule settles the position of `mask` for the attacker (`attacker` its
/// stones, `defender` the other's), to move when `attacker_to_move`, `waiting_wins` the empty
/// cells that would complete a line of the side not to move (the search has them already):
/// that it cannot win, or ([`Rule::attacker_wins`]) that it wins; `None` when no rule applies.
/// Sound: a rule claims only what a side's follow-up guarantees (every claim checked against the
/// plain search in this file's tests).
#[inline]
pub fn settled_by_rule(
    knowledge: Knowledge,
    attacker: u64,
    defender: u64,
    waiting_wins: u64,
    mask: u64,
    attacker_to_move: bool,
) -> Option<Rule> {
    if knowledge.live_lines && !board::has_line(!defender) {
        return Some(Rule::NoLiveLine);
    }
    if knowledge.claimeven && attacker_to_move && follow_up(attacker, waiting_wins, mask, knowledge.column_pairs).is_some() {
        return Some(Rule::Claimeven);
    }
    if knowledge.zugzwang && !attacker_to_move && follow_up(defender, waiting_wins, mask, knowledge.column_pairs) == Some(true) {
        return Some(Rule::Zugzwang);
    }
    None
}

/// The most columns of odd height the follow-up rule pairs up (105 pairings of 8).
const MOST_PAIRED: u32 = 8;

/// Whether the defender holds by following up, the attacker to move: in a column of even height
/// it answers the attacker's stone on the cell above (claimeven: the attacker gets the empty
/// cells of the first and third levels); columns of odd height go in pairs, the attacker's stone
/// on one answered on the other (baseinverse); and a column whose next cell lies beneath one of
/// the defender's winning cells is left alone (the attacker can play there only to win at once,
/// and when nothing else is left it must). The first player attacks at even plies, when the
/// number of odd columns is even; the second at odd plies, when it is odd, so that the defender
/// (the first player) needs such a column of odd height, its threat on the third level.
/// Where every line the attacker could then make needs both cells of a pair, for some pairing,
/// the attacker cannot win: `Some`, `None` where that is not shown. `threats_above` are the
/// defender's winning cells.
///
/// `Some(true)` where a column was left alone: the defender then wins. Its follow-up keeps the
/// parity of the empty cells outside those columns, so when the rest is full it is the
/// attacker's move, and every move left is beneath a defender's winning cell.
fn follow_up(attacker: u64, threats_above: u64, mask: u64, column_pairs: bool) -> Option<bool> {
    let next = board::drop_cells(mask);
    let odd_columns = next & !ODD_LEVELS;
    let first_player_attacks = mask.count_ones().is_multiple_of(2);
    if first_player_attacks {
        // Even columns whose next cell lies beneath a defender's winning cell.
        let reserved = next & ODD_LEVELS & (threats_above >> 16);
        return holds_with(attacker, mask, reserved, odd_columns, column_pairs).then_some(reserved != 0);
    }
    // Odd columns of height 1 whose third level is the defender's winning cell: an odd number
    // of them left alone, the others paired.
    let eligible = next & (LAYER << 16) & (threats_above >> 16);
    if eligible == 0 {
        return None;
    }
    if eligible.count_ones() % 2 == 1 {
        return holds_with(attacker, mask, eligible, odd_columns & !eligible, column_pairs).then_some(true);
    }
    let mut rest = eligible;
    while rest != 0 {
        let dropped = rest & rest.wrapping_neg();
        rest &= rest - 1;
        let reserved = eligible & !dropped;
        if holds_with(attacker, mask, reserved, odd_columns & !reserved, column_pairs) {
            return Some(true);
        }
    }
    None
}

/// The whole column of each cell of `cells`.
#[inline]
fn columns_of(cells: u64) -> u64 {
    let bottom = (cells | cells >> 16 | cells >> 32 | cells >> 48) & LAYER;
    bottom * 0x0001_0001_0001_0001
}

/// The most pairs of columns that [`holds_with`] pairs level by level.
const MOST_COLUMN_PAIRS: u32 = 2;

/// [`follow_up`] for one choice: `reserved` (next cells of the columns left alone) and
/// `paired` (next cells of the columns of odd height to pair up, an even number). With
/// `column_pairs`, where lines are left that claimeven cannot block (a row of the third level),
/// up to [`MOST_COLUMN_PAIRS`] pairs of columns of even and equal height are tried instead:
/// the attacker's stone in one answered at the same level of the other, so that the attacker
/// gets any cell of them but never both cells of a level.
fn holds_with(attacker: u64, mask: u64, reserved: u64, paired: u64, column_pairs: bool) -> bool {
    let mut level_pairs = [0u64; 4 * MOST_COLUMN_PAIRS as usize];
    let left = if column_pairs { MOST_COLUMN_PAIRS } else { 0 };
    holds_with_columns(attacker, mask, reserved, paired, 0, &mut level_pairs, 0, left)
}

/// [`holds_with`] with the columns of `pair_columns` paired, `level_pairs[..count]` the pairs
/// of cells of one level, and `left` more pairs of columns to try.
#[allow(clippy::too_many_arguments)]
fn holds_with_columns(
    attacker: u64,
    mask: u64,
    reserved: u64,
    paired: u64,
    pair_columns: u64,
    level_pairs: &mut [u64; 4 * MOST_COLUMN_PAIRS as usize],
    count: usize,
    left: u32,
) -> bool {
    let free = !mask;
    // A column left alone still gives the attacker its next cell as the last stone of a line:
    // the stone that wins before the defender's answer could. In a pair of columns the
    // attacker may get any cell.
    let reachable = attacker
        | (free & ODD_LEVELS & !columns_of(reserved) & !pair_columns)
        | paired
        | reserved
        | (free & pair_columns);
    if !board::has_line(reachable) {
        return true;
    }
    // Each line within reach must hold both cells of a level of a pair of columns, or both
    // cells of a pair of odd columns: at least two of its cells are to be paired. A pair of
    // columns holds both cells of at most one line of each level.
    let mut needs = [0u64; 76];
    let mut needed = 0;
    let mut first_open = 0u64;
    let mut open = 0;
    for &line in board::LINES.iter() {
        if line & !reachable != 0 || level_pairs[..count].iter().any(|&pair| pair & !line == 0) {
            continue;
        }
        let cells = line & paired;
        if cells.count_ones() >= 2 {
            needs[needed] = cells;
            needed += 1;
            continue;
        }
        if open == 4 * left {
            return false;
        }
        if open == 0 {
            first_open = line;
        }
        open += 1;
    }
    if open == 0 {
        if needed == 0 {
            return true;
        }
        if paired.count_ones() > MOST_PAIRED || !paired.count_ones().is_multiple_of(2) {
            return false;
        }
        let mut cells = [0u64; MOST_PAIRED as usize];
        let mut rest = paired;
        let mut n = 0;
        while rest != 0 {
            cells[n] = rest & rest.wrapping_neg();
            rest &= rest - 1;
            n += 1;
        }
        return some_pairing_covers(&cells[..n], 0, &mut Vec::with_capacity(n / 2), &needs[..needed]);
    }
    // Pair two columns of the first open line: columns of even height (claimeven's), not full,
    // not left alone and not paired yet, of equal height.
    let next = board::drop_cells(mask);
    let claimeven_columns = columns_of(next & ODD_LEVELS) & !columns_of(reserved) & !pair_columns;
    let mut candidates = columns_of(first_open) & claimeven_columns & LAYER;
    while candidates != 0 {
        let a = candidates & candidates.wrapping_neg();
        candidates &= candidates - 1;
        let column_a = columns_of(a);
        let mut others = candidates;
        while others != 0 {
            let b = others & others.wrapping_neg();
            others &= others - 1;
            let column_b = columns_of(b);
            if (mask & column_a).count_ones() != (mask & column_b).count_ones() {
                continue;
            }
            let mut added = count;
            for level in 0..4 {
                let cells = (column_a | column_b) & (LAYER << (16 * level)) & free;
                if cells != 0 {
                    level_pairs[added] = cells;
                    added += 1;
                }
            }
            let columns = pair_columns | column_a | column_b;
            if holds_with_columns(attacker, mask, reserved, paired, columns, level_pairs, added, left - 1) {
                return true;
            }
        }
    }
    false
}

/// Whether the cells not yet paired (`cells` without those in `pairs`) can be paired so that
/// each of `needs` holds a whole pair.
fn some_pairing_covers(cells: &[u64], used: u64, pairs: &mut Vec<u64>, needs: &[u64]) -> bool {
    let Some(&first) = cells.iter().find(|&&c| c & used == 0) else {
        return needs.iter().all(|&need| pairs.iter().any(|&pair| pair & !need == 0));
    };
    for &second in cells.iter().filter(|&&c| c & used == 0 && c != first) {
        pairs.push(first | second);
        if some_pairing_covers(cells, used | first | second, pairs, needs) {
            return true;
        }
        pairs.pop();
    }
    false
}

/// The stones of the side to move after counting every dead stone of the opponent's as its
/// own: a stone is recoloured when each of its lines holds both colours among its other three
/// cells (then no line's fate depends on it), one at a time, so that the condition holds at
/// each step and the position's value never changes.
#[inline]
pub fn with_dead_stones_recoloured(game: &Sogo, current: u64, mask: u64) -> u64 {
    let mut current = current;
    let mut rest = mask ^ current;
    while rest != 0 {
        let cell = rest & rest.wrapping_neg();
        rest &= rest - 1;
        let theirs = mask ^ current;
        let dead = game.lines_through(cell).iter().all(|&line| {
            let others = line & !cell;
            line == 0 || (others & current != 0 && others & theirs & !cell != 0)
        });
        if dead {
            current |= cell;
        }
    }
    current
}

/// Outcomes proved, keyed exactly: buckets of two entries, one kept for the position that took
/// the most work to prove, one replaced by every new outcome.
///
/// A position's 80-bit key is multiplied by an odd number modulo `2^80`, a bijection: the high
/// bits choose a pair of buckets, the low bits are stored with the outcome, so that an entry is
/// never mistaken for another position's. The pair holds a bucket for each colour as attacker
/// (Black's, then White's: the key's bit 80, set where White attacks), 32 bytes starting on a
/// multiple of 32, so in one cache line: looking at the other colour's outcome (`other_side`)
/// costs no second miss.
struct Outcomes {
    /// The buckets, and one more: the pairs start at `first`, 0 or 1, whichever is 32-byte
    /// aligned. (A type aligned to 32 would have the allocator clear the whole table when it is
    /// made, where this one, of 8-byte alignment, comes from the kernel untouched.) Entries are
    /// atomic so that the threads of one proof share the table ([`SogoProver::prove_together`]):
    /// each entry is written whole and carries its key's stored bits, so a reader finds a true
    /// outcome or none, whatever another thread does to the bucket meanwhile.
    buckets: Vec<[AtomicU64; 2]>,
    first: usize,
    stored_bits: u32,
}

/// Bits of the table's keys: 80 of the position, 1 for the attacker's colour.
const KEY_BITS: u32 = 81;
/// The key's bit of the attacker's colour.
const OTHER_ATTACKER: u128 = 1 << 80;
const POSITION_MASK: u128 = OTHER_ATTACKER - 1;
const ODD: u128 = 0x9e37_79b9_7f4a_7c15_f39c_c060_5ced_c835 & POSITION_MASK;
/// An entry: the stored bits of the key, then 5 bits of work (log2 of the nodes, at least 1,
/// so that an entry is never 0), then the outcome.
const WORK_BITS: u32 = 5;

/// The least table: 2^23 buckets (128 MB), so that the stored bits and the entry's other six
/// fit in 64.
const LEAST_BUCKET_BITS: u32 = KEY_BITS - (64 - WORK_BITS - 1);

impl Outcomes {
    fn new(bytes: usize) -> Outcomes {
        let buckets = (bytes / 16).max(1 << LEAST_BUCKET_BITS);
        let bucket_bits = (usize::BITS - 1 - buckets.leading_zeros()).min(KEY_BITS);
        // SAFETY: all-zero bytes are a valid `AtomicU64` (an empty entry). The memory comes
        // from the kernel untouched: its pages are cleared only as a proof first writes them.
        let buckets = unsafe { crate::prefetch::zeroed_table::<[AtomicU64; 2]>((1 << bucket_bits) + 1) };
        let first = usize::from(!buckets.as_ptr().addr().is_multiple_of(32));
        Outcomes { buckets, first, stored_bits: KEY_BITS - bucket_bits }
    }

    /// The bucket of `key` (its pair's, for the attacker's colour), and the bits stored with
    /// its outcome.
    #[inline(always)]
    fn locate(&self, key: u128) -> (usize, u64) {
        let hashed = (key & POSITION_MASK).wrapping_mul(ODD) & POSITION_MASK;
        let pair = (hashed >> self.stored_bits) as usize;
        let colour = usize::from(key & OTHER_ATTACKER != 0);
        (self.first + 2 * pair + colour, (hashed & ((1 << self.stored_bits) - 1)) as u64)
    }

    /// Starts loading the buckets of `key` (both colours') into the cache, for a
    /// [`Outcomes::get`] soon after.
    #[inline(always)]
    fn prefetch(&self, key: u128) {
        crate::prefetch::prefetch(&self.buckets[self.locate(key).0]);
    }

    #[inline(always)]
    fn get(&self, key: u128) -> Option<bool> {
        self.entry(key).map(|entry| entry & 1 == 1)
    }

    /// The outcome of `key` and the work its proof took (the bit length of its nodes).
    fn get_with_work(&self, key: u128) -> Option<(bool, u32)> {
        self.entry(key).map(|entry| (entry & 1 == 1, (entry >> 1 & ((1 << WORK_BITS) - 1)) as u32))
    }

    #[inline(always)]
    fn entry(&self, key: u128) -> Option<u64> {
        let (bucket, stored) = self.locate(key);
        self.buckets[bucket]
            .iter()
            .map(|entry| entry.load(Relaxed))
            .find(|&entry| entry != 0 && entry >> (WORK_BITS + 1) == stored)
    }

    #[inline(always)]
    fn put(&self, key: u128, attacker_wins: bool, nodes: u64) {
        let (bucket, stored) = self.locate(key);
        let work = (64 - nodes.leading_zeros()).clamp(1, (1 << WORK_BITS) - 1) as u64;
        let entry = stored << (WORK_BITS + 1) | work << 1 | u64::from(attacker_wins);
        let [kept_slot, recent_slot] = &self.buckets[bucket];
        let kept = kept_slot.load(Relaxed);
        let work_of = |entry: u64| entry >> 1 & ((1 << WORK_BITS) - 1);
        if kept == 0 || kept >> (WORK_BITS + 1) == stored || work >= work_of(kept) {
            if kept >> (WORK_BITS + 1) != stored {
                recent_slot.store(kept, Relaxed);
            }
            kept_slot.store(entry, Relaxed);
        } else {
            recent_slot.store(entry, Relaxed);
        }
    }

    fn clear(&self) {
        self.buckets.iter().flatten().for_each(|entry| entry.store(0, Relaxed));
    }
}

/// The positions that the threads of one proof are searching near its root, so that a thread
/// leaves a move another is on for last (ABDADA: Weill, 1996): where every move must be
/// searched the threads share them out, and where one is enough a thread tries the next while
/// another searches the first. A slot holds a key's tag; two keys in one slot only reorder a
/// thread's moves, never change an outcome.
struct Busy {
    slots: Vec<AtomicU64>,
}

/// Slots of [`Busy`]: many more than the positions near a root that threads search at once.
const BUSY_SLOTS: usize = 1 << 12;

impl Busy {
    fn new() -> Busy {
        Busy { slots: (0..BUSY_SLOTS).map(|_| AtomicU64::new(0)).collect() }
    }

    /// The slot of `key` and its tag there (never 0, an empty slot).
    fn slot(key: u128) -> (usize, u64) {
        let hashed = (key & POSITION_MASK).wrapping_mul(ODD) | key & OTHER_ATTACKER;
        let tag = (hashed >> 17) as u64 | 1;
        ((hashed >> 64) as usize % BUSY_SLOTS, tag)
    }

    /// Marks `key` as being searched.
    fn enter(&self, key: u128) {
        let (slot, tag) = Busy::slot(key);
        self.slots[slot].store(tag, Relaxed);
    }

    /// Clears the mark of `key`, unless another position has taken its slot since.
    fn leave(&self, key: u128) {
        let (slot, tag) = Busy::slot(key);
        let _ = self.slots[slot].compare_exchange(tag, 0, Relaxed, Relaxed);
    }

    /// Whether another thread is searching `key`.
    fn holds(&self, key: u128) -> bool {
        let (slot, tag) = Busy::slot(key);
        self.slots[slot].load(Relaxed) == tag
    }
}

/// The proof's journal: outcomes of positions near the root proved by long searches, one line
/// each, appended (and synced) as they are proved, so that a proof stopped on one machine goes
/// on from them on another, and so that anyone can re-prove each line on its own.
///
/// A line is `ATTACKER OUTCOME POSITION NODES`: `white` or `black`; `wins` or `cannot-win`; the
/// position as `cube_notation` writes it (layers from the bottom, `x` for White, `o` for Black);
/// the nodes its search took. Only positions of at most `JOURNAL_PLIES` (24) stones whose proof
/// took at least `JOURNAL_NODES` (2^24) nodes are written, which keeps the file small enough to be
/// checked in.
pub struct ProofJournal {
    file: JournalFile,
    entries: Mutex<HashMap<(Position, bool), bool>>,
}

impl std::fmt::Debug for ProofJournal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProofJournal").finish_non_exhaustive()
    }
}

/// The journal's name in the table directory.
pub const JOURNAL_FILE: &str = "sogo-proof.journal";

/// The most stones of a position the journal records.
pub const JOURNAL_PLIES: u32 = 24;
/// The fewest nodes of a proof the journal records: about ten seconds of searching.
pub const JOURNAL_NODES: u64 = 1 << 24;

impl ProofJournal {
    /// Opens the journal at `path` (never through a link), with the outcomes it holds. It is
    /// only read until [`ProofJournal::check_appendable`] or its first record, so that `plan`
    /// reads it in a directory it may not write; a journal not there yet is made at its first
    /// record.
    pub fn open(path: &Path) -> Result<ProofJournal, JournalError> {
        let (file, records) = JournalFile::open(path, Creation::AtFirstRecord, parse_record)?;
        // Images share an outcome, so records of a position and of its mirror image must agree:
        // one attacker's outcomes, and where White wins, Black cannot (and the other way round).
        let game = super::search::CubeLines::<true>::new();
        let mut outcomes: HashMap<(u128, bool), (bool, usize)> = HashMap::new();
        let mut winners: HashMap<u128, (bool, usize)> = HashMap::new();
        for &(line, (position, white_attacks, wins)) in &records {
            let key = game.canonical_key(&position);
            let (outcome, earlier) = *outcomes.entry((key, white_attacks)).or_insert((wins, line));
            if outcome != wins {
                return Err(JournalError::Contradicts { path: path.to_path_buf(), line, earlier });
            }
            if !wins {
                continue;
            }
            let (winner, first) = *winners.entry(key).or_insert((white_attacks, line));
            if winner != white_attacks {
                return Err(JournalError::BothWin { path: path.to_path_buf(), line, earlier: first });
            }
        }
        let entries = file.outcomes(records, |&(position, white_attacks, _)| (position, white_attacks), |r| r.2)?;
        Ok(ProofJournal { file, entries: Mutex::new(entries) })
    }

    /// The file.
    pub fn path(&self) -> &Path {
        self.file.path()
    }

    /// Whether a record could be appended now (the journal is only read until then): asked
    /// before a proof starts, so that hours of proofs do not go unrecorded.
    pub fn check_appendable(&self) -> Result<(), JournalError> {
        self.file.check_appendable()
    }

    /// Outcomes recorded.
    pub fn len(&self) -> usize {
        self.entries.lock().unwrap_or_else(PoisonError::into_inner).len()
    }

    /// Whether it records nothing.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Every outcome recorded: the position, whether White attacks, whether the attacker wins.
    pub fn entries(&self) -> Vec<(Position, bool, bool)> {
        let entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        let mut out: Vec<_> = entries.iter().map(|(&(p, white), &wins)| (p, white, wins)).collect();
        out.sort_by_key(|&(p, white, _)| (p.ply, p.mask, p.current, white));
        out
    }

    /// Whether the attacker (White when `white_attacks`) wins `position`, where recorded.
    fn get(&self, position: &Position, white_attacks: bool) -> Option<bool> {
        self.entries.lock().unwrap_or_else(PoisonError::into_inner).get(&(*position, white_attacks)).copied()
    }

    /// Records an outcome, unless it is recorded already: threads proving one position
    /// together may each prove the same one. The outcome is kept at once, a proved fact whether
    /// or not its line is then written; the line is synced before this returns. The entries'
    /// lock, which the search takes at its early nodes, is not held while the file is synced.
    fn record(&self, position: &Position, white_attacks: bool, wins: bool, nodes: u64) -> Result<(), JournalError> {
        let recorded = self.entries.lock().unwrap_or_else(PoisonError::into_inner).insert((*position, white_attacks), wins);
        if recorded.is_some() {
            return Ok(());
        }
        let line = format!(
            "{} {} {} {nodes}\n",
            if white_attacks { "white" } else { "black" },
            if wins { "wins" } else { "cannot-win" },
            board::cube_notation(position)
        );
        self.file.append(&line)
    }
}

/// A journal line's position, whether White attacks, and whether the attacker wins.
fn parse_record(text: &str) -> Option<(Position, bool, bool)> {
    let mut words = text.split_whitespace();
    let white_attacks = match words.next()? {
        "white" => true,
        "black" => false,
        _ => return None,
    };
    let wins = match words.next()? {
        "wins" => true,
        "cannot-win" => false,
        _ => return None,
    };
    let position = parse_notation(words.next()?)?;
    words.next()?.parse::<u64>().ok()?;
    words.next().is_none().then_some((position, white_attacks, wins))
}

/// A Sogo position written as `cube_notation` writes it, if it is one: every stone on the floor
/// or on a stone, White's stones as many as Black's or one more, and no line finished.
pub fn parse_notation(text: &str) -> Option<Position> {
    let layers: Vec<&str> = text.split('|').collect();
    if layers.len() != 4 {
        return None;
    }
    let (mut white, mut black) = (0u64, 0u64);
    for (z, layer) in layers.iter().enumerate() {
        let rows: Vec<&str> = layer.split('/').collect();
        if rows.len() != 4 {
            return None;
        }
        for (y, row) in rows.iter().enumerate() {
            if row.len() != 4 {
                return None;
            }
            for (x, c) in row.bytes().enumerate() {
                let bit = board::cell(x as u32, y as u32, z as u32);
                match c {
                    b'x' => white |= bit,
                    b'o' => black |= bit,
                    b'.' => {}
                    _ => return None,
                }
            }
        }
    }
    let mask = white | black;
    let (w, b) = (white.count_ones(), black.count_ones());
    let floating = mask & !(mask << 16 | LAYER) != 0;
    if floating || !(w == b || w == b + 1) || board::has_line(white) || board::has_line(black) {
        return None;
    }
    let ply = w + b;
    let current = if ply.is_multiple_of(2) { white } else { black };
    Some(Position { current, mask, ply })
}

/// What a proof did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SogoProof {
    /// Whether the attacker wins.
    pub attacker_wins: bool,
    /// Positions searched.
    pub nodes: u64,
    /// Positions settled by a knowledge rule.
    pub by_rule: u64,
}

/// Proves who wins Sogo positions, keeping its table of outcomes from one proof to the next.
pub struct SogoProver {
    game: Sogo,
    knowledge: Knowledge,
    /// Shared by the threads of one proof ([`SogoProver::prove_together`]).
    table: Arc<Outcomes>,
    /// Where threads prove together: the positions being searched near the root, and the most
    /// stones of a position counted near it.
    split: Option<(Arc<Busy>, u32)>,
    nodes: u64,
    by_rule: u64,
    deadline: Deadline,
    /// Where a probe stops: a count of nodes (`u64::MAX` outside probes).
    budget_end: u64,
    journal: Option<Arc<ProofJournal>>,
    /// Outcomes of an earlier proof that order the moves ([`SogoProver::order_by_last_proof`]):
    /// a measure of what ordering could be worth, not a way to prove.
    oracle: Option<Arc<Outcomes>>,
    /// Each cell's column in the exact search's order, higher first: inner, corner, edge.
    column_rank: [u8; 64],
    /// The proof and disproof numbers of open positions, where it proves by proof numbers too
    /// ([`SogoProver::with_numbers`]), and how a position's numbers start.
    numbers: Option<Box<numbers::NumberTable>>,
    first_numbers: FirstNumbers,
    /// Nodes of the first round by proof numbers in [`SogoProver::prove_either`].
    first_round_nodes: u64,
}

/// Nodes a probe of one move may take beyond the move's own position: enough to see what
/// settles it at once (the table, a rule, a forced reply), not to search it. Of 1 to 20,000
/// nodes, 3 took the fewest (docs/BENCHMARKS.md, "Sogo's prover: probes").
const PROBE_NODES: u64 = 3;
/// Probes are made in positions of at most this many stones (32 to 64 measured): deeper, a
/// move's whole search is as cheap as its probe.
const PROBE_LAST_STONES: u32 = 42;

/// Plies below a shared proof's root within which its threads share out the moves ([`Busy`]).
/// Of 0 to 64 measured on two threads, 16 took the least time: from 4 down the threads mostly
/// search the same positions, from 24 up the marks cost more than they save (docs/BENCHMARKS.md,
/// "Sogo's prover on two threads").
const SPLIT_PLIES: u32 = 16;

/// The most moves a Sogo position has: one per column.
const COLUMNS: usize = 16;

impl SogoProver {
    /// A prover with `knowledge` and a table of about `table_bytes` bytes (at least 128 MB).
    pub fn new(knowledge: Knowledge, table_bytes: usize) -> SogoProver {
        SogoProver {
            game: Sogo::new(),
            knowledge,
            table: Arc::new(Outcomes::new(table_bytes)),
            split: None,
            nodes: 0,
            by_rule: 0,
            deadline: Deadline::default(),
            budget_end: u64::MAX,
            journal: None,
            oracle: None,
            numbers: None,
            first_numbers: FirstNumbers::Moves,
            first_round_nodes: numbers::FIRST_ROUND_NODES,
            column_rank: {
                let game = Sogo::new();
                std::array::from_fn(|cell| {
                    let group = game.groups().iter().position(|&g| g >> cell & 1 == 1).unwrap_or(0);
                    (COLUMNS - group) as u8
                })
            },
        }
    }

    /// A prover for another thread of the same proofs: the same knowledge, journal, time
    /// limit and table (what either proves, the other finds).
    pub fn helper(&self) -> SogoProver {
        SogoProver {
            game: self.game.clone(),
            knowledge: self.knowledge,
            table: Arc::clone(&self.table),
            split: None,
            nodes: 0,
            by_rule: 0,
            deadline: self.deadline,
            budget_end: u64::MAX,
            journal: self.journal.clone(),
            oracle: self.oracle.clone(),
            column_rank: self.column_rank,
            numbers: None,
            first_numbers: self.first_numbers,
            first_round_nodes: self.first_round_nodes,
        }
    }

    /// The same prover, reading outcomes from `journal` and recording its long proofs there.
    pub fn with_journal(mut self, journal: Arc<ProofJournal>) -> SogoProver {
        self.journal = Some(journal);
        self
    }

    /// The same prover, its table backed by huge pages where the kernel can (about an eighth
    /// faster per node: docs/BENCHMARKS.md). For long proofs only: each first touch of a page then
    /// clears 2 MB, and a new table's first few thousand nodes clear all of it (about half a
    /// second a GB), a cost a server's short searches should not pay (the search looks at its
    /// stop at each of those nodes, so that a client gone still stops it within one page's
    /// clearing, but reads its clock at every 4,096th node only).
    pub fn on_huge_pages(self) -> SogoProver {
        crate::prefetch::advise_huge_pages(&self.table.buckets);
        self
    }

    /// The knowledge it uses.
    pub fn knowledge(&self) -> Knowledge {
        self.knowledge
    }

    /// Stops every later proof `seconds` from now; `None` lifts the limit.
    pub fn set_time_limit(&mut self, seconds: Option<f64>) {
        self.deadline = Deadline::after(seconds);
    }

    /// Makes the outcomes proved so far the order of the next proofs' moves, and starts them on
    /// an empty table: at every node the moves whose outcome there achieves the mover's aim
    /// come first, the one that took the least work first of those. Proving a position again
    /// after this measures what an order as good as the proof's own outcomes would save (no
    /// order known before the proof can be better at the moves the proof visited);
    /// docs/BENCHMARKS.md, "What a perfect order would save". The outcomes never change: the
    /// order only chooses which move is searched first.
    pub fn order_by_last_proof(&mut self) {
        let bytes = self.table.buckets.len() * std::mem::size_of::<[AtomicU64; 2]>();
        let proved = std::mem::replace(&mut self.table, Arc::new(Outcomes::new(bytes)));
        self.oracle = Some(proved);
    }

    /// Orders the moves as before [`SogoProver::order_by_last_proof`].
    pub fn forget_order(&mut self) {
        self.oracle = None;
    }

    /// Forgets every outcome proved.
    pub fn clear(&mut self) {
        self.table.clear();
        if let Some(numbers) = &mut self.numbers {
            numbers.clear();
        }
    }

    /// Positions searched so far, by every proof.
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// Whether the side to move (`attacker_to_move`) or the other side wins `position`.
    pub fn prove(&mut self, position: &Position, attacker_to_move: bool) -> Result<SogoProof, SearchError> {
        let (nodes, by_rule) = (self.nodes, self.by_rule);
        let attacker_wins = if position.is_won_by_previous() {
            !attacker_to_move
        } else if position.ply == CELLS {
            false
        } else {
            let white_attacks = attacker_to_move == position.ply.is_multiple_of(2);
            let searched = self.search(position.current, position.mask, attacker_to_move, u64::from(white_attacks));
            // Out of time: this proof's nodes, not the prover's since it was made.
            searched.map_err(|e| match e {
                SearchError::TimeLimit { seconds, .. } => SearchError::TimeLimit { seconds, nodes: self.nodes - nodes },
                e => e,
            })?
        };
        Ok(SogoProof { attacker_wins, nodes: self.nodes - nodes, by_rule: self.by_rule - by_rule })
    }

    /// [`SogoProver::prove`] by this prover and `helpers` together, each on a thread of its
    /// own, sharing the table: near the root each leaves the moves another is searching for
    /// last ([`Busy`]), below it they search alike and find each other's outcomes in the table.
    /// Where this prover has a table of proof numbers ([`SogoProver::with_numbers`]) it proves
    /// by them while the helpers search depth first (alone, by both in turn:
    /// [`SogoProver::prove_either`]). The first to finish answers, and the others stop. Nodes
    /// are those of every thread.
    pub fn prove_together(
        &mut self,
        helpers: &mut [SogoProver],
        position: &Position,
        attacker_to_move: bool,
    ) -> Result<SogoProof, SearchError> {
        if helpers.is_empty() {
            return self.prove_either(position, attacker_to_move);
        }
        let busy = Arc::new(Busy::new());
        let below = position.ply + SPLIT_PLIES;
        let counts = |provers: &[&mut SogoProver]| provers.iter().map(|p| (p.nodes, p.by_rule)).fold((0, 0), |(n, r), (a, b)| (n + a, r + b));
        let deadline = self.deadline;
        let mut provers: Vec<&mut SogoProver> = std::iter::once(self).chain(helpers.iter_mut()).collect();
        let (nodes, by_rule) = counts(&provers);
        let work = Work::new(None);
        let outcomes: Vec<Result<SogoProof, SearchError>> = std::thread::scope(|scope| {
            let threads: Vec<_> = provers
                .iter_mut()
                .map(|prover| {
                    prover.deadline = deadline;
                    prover.split = Some((Arc::clone(&busy), below));
                    let work = &work;
                    scope.spawn(move || {
                        // The prover with a table of numbers proves by them, the others depth first.
                        let outcome = Work::run(Some(work), || match prover.numbers.is_some() {
                            true => prover.prove_by_numbers(position, attacker_to_move),
                            false => prover.prove(position, attacker_to_move),
                        });
                        if outcome.is_ok() {
                            work.stop();
                        }
                        prover.split = None;
                        outcome
                    })
                })
                .collect();
            threads.into_iter().map(|t| t.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))).collect()
        });
        let (after_nodes, after_rule) = counts(&provers);
        let mut answer = None;
        let mut error = None;
        for outcome in outcomes {
            match outcome {
                Ok(proof) => {
                    debug_assert!(answer.is_none_or(|a| a == proof.attacker_wins), "threads disagree");
                    answer = answer.or(Some(proof.attacker_wins));
                }
                Err(SearchError::Stopped) => {}
                Err(e) => error = error.or(Some(e)),
            }
        }
        match (answer, error) {
            (Some(attacker_wins), _) => {
                Ok(SogoProof { attacker_wins, nodes: after_nodes - nodes, by_rule: after_rule - by_rule })
            }
            // Out of time: the nodes of every thread, as for an answer.
            (None, Some(SearchError::TimeLimit { seconds, .. })) => {
                Err(SearchError::TimeLimit { seconds, nodes: after_nodes - nodes })
            }
            (None, error) => Err(error.unwrap_or(SearchError::Stopped)),
        }
    }

    /// Whether the attacker wins the position of `current` (the mover's stones) and `mask`
    /// (every stone), where the side that moved last has no line; `attacker` is 1 when White
    /// attacks (a bit of the key).
    fn search(
        &mut self,
        current: u64,
        mask: u64,
        attacker_to_move: bool,
        attacker: u64,
    ) -> Result<bool, SearchError> {
        self.nodes += 1;
        let start_nodes = self.nodes;
        self.deadline.check(self.nodes)?;
        // After the clock, so that a probe's end never skips one of its readings.
        if self.nodes > self.budget_end {
            return Err(SearchError::TimeLimit { seconds: 0.0, nodes: self.nodes });
        }
        let theirs = mask ^ current;
        let empty = !mask;
        let playable = board::drop_cells(mask);
        let winning = board::completing(current);
        if winning & playable != 0 {
            return Ok(attacker_to_move);
        }
        let threats = board::completing(theirs) & empty;
        let forced = threats & playable;
        let mut moves = match forced {
            0 => playable,
            f if f & (f - 1) != 0 => return Ok(!attacker_to_move),
            f => f,
        };
        // Never beneath the opponent's winning cell: it would complete its line next.
        moves &= !(threats >> 16);
        if moves == 0 {
            return Ok(!attacker_to_move);
        }
        if mask.count_ones() + 1 >= CELLS {
            // The last stone, which makes no line (none can be completed at once).
            return Ok(false);
        }
        // The table's slot is most likely a cache miss: asked for now, it arrives while the
        // rules are checked.
        let key = self.key(current, mask, attacker);
        self.table.prefetch(key);
        let (attacking, defending) = if attacker_to_move { (current, theirs) } else { (theirs, current) };
        #[cfg(test)]
        tests::count_evaluation(mask.count_ones());
        if let Some(rule) = settled_by_rule(self.knowledge, attacking, defending, threats, mask, attacker_to_move) {
            #[cfg(test)]
            tests::confirm_rule(&Position { current, mask, ply: mask.count_ones() }, attacker_to_move, rule);
            self.by_rule += 1;
            return Ok(rule.attacker_wins());
        }
        if let Some(wins) = self.table.get(key) {
            return Ok(wins);
        }
        if self.knowledge.other_side && self.table.get(key ^ OTHER_ATTACKER) == Some(true) {
            #[cfg(test)]
            tests::count_other_side();
            return Ok(false);
        }
        let journaled = self.journal.is_some() && mask.count_ones() <= JOURNAL_PLIES;
        let position = Position { current, mask, ply: mask.count_ones() };
        if journaled && let Some(journal) = &self.journal {
            // What the journal holds for this attacker, or for the other where that one wins.
            let other_wins = || self.knowledge.other_side && journal.get(&position, attacker != 1) == Some(true);
            if let Some(wins) = journal.get(&position, attacker == 1).or_else(|| other_wins().then_some(false)) {
                self.table.put(key, wins, JOURNAL_NODES);
                return Ok(wins);
            }
        }

        // Near the root of a proof shared by threads: marked as searched while it is.
        let busy = match &self.split {
            // Not in a probe: one cut off by its budget would leave its mark.
            Some((busy, below)) if mask.count_ones() < *below && self.budget_end == u64::MAX => Some(Arc::clone(busy)),
            _ => None,
        };
        if let Some(busy) = &busy {
            busy.enter(key);
        }

        let mut ordered = [(0u32, 0u64); COLUMNS];
        let mut count = 0;
        let mut rest = moves;
        while rest != 0 {
            let cell = rest & rest.wrapping_neg();
            rest &= rest - 1;
            let score = self.move_score(current, winning, mask, cell);
            let mut at = count;
            while at > 0 && ordered[at - 1].0 < score {
                ordered[at] = ordered[at - 1];
                at -= 1;
            }
            ordered[at] = (score, cell);
            count += 1;
        }
        if let Some(oracle) = &self.oracle {
            self.order_by_oracle(oracle, &mut ordered[..count], theirs, mask, attacker, attacker_to_move);
        }
        let mut wins = !attacker_to_move;
        // Moves whose probe settled them: those that achieve the mover's aim end the search,
        // those that fail are not searched again.
        let mut settled = 0u64;
        if self.knowledge.probes
            && count > 1
            && self.budget_end == u64::MAX
            && mask.count_ones() <= PROBE_LAST_STONES
        {
            for &(_, cell) in &ordered[..count] {
                self.budget_end = self.nodes + PROBE_NODES;
                let probe = self.search(theirs, mask | cell, !attacker_to_move, attacker);
                let over_budget = self.nodes > self.budget_end;
                self.budget_end = u64::MAX;
                match probe {
                    Ok(child) => {
                        settled |= cell;
                        if child == attacker_to_move {
                            wins = child;
                            settled = moves;
                            break;
                        }
                    }
                    // Out of its budget, which is what stopped it (a real time limit stops
                    // the search again at its next check).
                    Err(SearchError::TimeLimit { .. }) if over_budget => {}
                    Err(e) => return Err(e),
                }
            }
        }
        // Moves another thread is searching are left for a second pass (by then their outcomes
        // are mostly in the table).
        let mut open = !settled;
        let mut first_pass = true;
        let mut eldest = true;
        loop {
            let mut deferred = 0u64;
            for &(_, cell) in &ordered[..count] {
                if open & cell == 0 {
                    continue;
                }
                if first_pass
                    && !eldest
                    && let Some(busy) = &busy
                    && busy.holds(self.child_key(theirs, mask | cell, attacker))
                {
                    deferred |= cell;
                    continue;
                }
                eldest = false;
                let child = self.search(theirs, mask | cell, !attacker_to_move, attacker)?;
                if child == attacker_to_move {
                    wins = child;
                    break;
                }
            }
            if wins == attacker_to_move || deferred == 0 {
                break;
            }
            (open, first_pass) = (deferred, false);
        }
        if let Some(busy) = &busy {
            busy.leave(key);
        }
        let nodes = self.nodes - start_nodes + 1;
        self.table.put(key, wins, nodes);
        if journaled && nodes >= JOURNAL_NODES && let Some(journal) = &self.journal {
            // A journal that cannot be written (a full disk) costs the next run the proofs it
            // would have kept, not this proof: it goes on without.
            if let Err(e) = journal.record(&position, attacker == 1, wins, nodes) {
                eprintln!("tablebase: warning: {e}; the proof goes on without recording");
                self.journal = None;
            }
        }
        Ok(wins)
    }

    /// Puts first the moves whose outcome in `oracle` achieves the mover's aim, those that took
    /// the least work first, the rest after them in their order ([`SogoProver::order_by_last_proof`]).
    #[cold]
    #[inline(never)]
    fn order_by_oracle(
        &self,
        oracle: &Outcomes,
        ordered: &mut [(u32, u64)],
        theirs: u64,
        mask: u64,
        attacker: u64,
        attacker_to_move: bool,
    ) {
        let known_good = |cell: u64| {
            let child = self.child_key(theirs, mask | cell, attacker);
            match oracle.get_with_work(child) {
                Some((attacker_wins, work)) if attacker_wins == attacker_to_move => Some(work),
                Some(_) => None,
                // Where the other colour wins, this attacker does not: the defender's aim.
                None => match oracle.get_with_work(child ^ OTHER_ATTACKER) {
                    Some((true, work)) if !attacker_to_move => Some(work),
                    _ => None,
                },
            }
        };
        // Stable: among moves of equal work, and among the rest, the order stays.
        ordered.sort_by_key(|&(_, cell)| known_good(cell).map_or(u32::MAX, |work| work));
    }

    /// The table's key of a move's position, for [`Busy`] near a shared proof's root: out of
    /// the way of the search's own [`SogoProver::key`], which inlined takes a sixth fewer
    /// instructions a node than called.
    #[inline(never)]
    fn child_key(&self, current: u64, mask: u64, attacker: u64) -> u128 {
        self.key(current, mask, attacker)
    }

    /// The table's key: the exact key of the position (its dead stones recoloured where the
    /// knowledge says), the attacker's colour above it.
    #[inline(always)]
    fn key(&self, current: u64, mask: u64, attacker: u64) -> u128 {
        let current =
            if self.knowledge.dead_cells { with_dead_stones_recoloured(&self.game, current, mask) } else { current };
        let position = Position { current, mask, ply: mask.count_ones() };
        self.game.key(&position) | u128::from(attacker) << 80
    }

    /// How early a move is tried (higher first): by the winning cells it makes for the mover
    /// (`completing` those it has), then inner columns, corners, edges. Of the orders measured
    /// (docs/BENCHMARKS.md, "Sogo's prover"), weighting threats by their level, lines by their
    /// stones (3, 2, 1 for a line's first, second, third own stone) or the defender's answer in
    /// the column just played first all took more nodes than this.
    #[inline(always)]
    fn move_score(&self, current: u64, completing: u64, mask: u64, cell: u64) -> u32 {
        let rank = u32::from(self.column_rank[cell.trailing_zeros() as usize]);
        if !self.knowledge.ordering {
            return rank;
        }
        let made = self.game.completing_after(current, completing, cell) & !mask & !cell & !completing;
        made.count_ones() << 5 | rank
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn knowledge_parses_names_and_refuses_others() {
        assert_eq!(Knowledge::parse("all"), Ok(Knowledge::ALL));
        assert_eq!(Knowledge::parse("none"), Ok(Knowledge::NONE));
        assert_eq!(Knowledge::parse("claimeven"), Ok(Knowledge { claimeven: true, ..Knowledge::NONE }));
        assert_eq!(Knowledge::parse("no-ordering"), Ok(Knowledge { ordering: false, ..Knowledge::ALL }));
        assert!(Knowledge::parse("claimodd").is_err());
        assert!(Knowledge::parse("claimeven,no-ordering").is_err());
        // Each name switches one piece of knowledge of its own, and together they are all.
        let each: Vec<Knowledge> = Knowledge::NAMES.iter().map(|name| Knowledge::parse(name).unwrap()).collect();
        for (i, one) in each.iter().enumerate() {
            assert_ne!(*one, Knowledge::NONE, "{}", Knowledge::NAMES[i]);
            assert!(each[..i].iter().all(|other| other != one), "{}", Knowledge::NAMES[i]);
            let without = Knowledge::parse(&format!("no-{}", Knowledge::NAMES[i])).unwrap();
            assert_ne!(without, Knowledge::ALL, "no-{}", Knowledge::NAMES[i]);
        }
        assert_eq!(Knowledge::parse(&Knowledge::NAMES.join(",")), Ok(Knowledge::ALL));
        let message = Knowledge::parse("claimodd").unwrap_err();
        assert!(Knowledge::NAMES.iter().all(|name| message.contains(name)), "{message}");
    }

    /// Random positions of `plies` stones whose game is not over, by random drops.
    pub(super) fn random_position(rng: &mut crate::rng::SplitMix64, plies: u32) -> Option<Position> {
        let mut p = Position::EMPTY;
        for _ in 0..plies {
            let mut playable = board::drop_cells(p.mask);
            for _ in 0..rng.next_u64() % u64::from(playable.count_ones()) {
                playable &= playable - 1;
            }
            p = p.play(playable & playable.wrapping_neg());
            if p.is_won_by_previous() {
                return None;
            }
        }
        Some(p)
    }

    /// What the plain search checked in this thread's tests, by the stones of the position.
    struct Checks {
        exact: crate::search::Searcher<Sogo>,
        /// Positions at which the rules were asked.
        evaluated: [u64; 65],
        /// Claims of the rules confirmed by the plain search.
        confirmed: [u64; 65],
        /// Claims the plain search did not settle in its time (neither confirmed nor refuted).
        unsettled: u64,
        /// Claims that the attacker wins ([`Rule::Zugzwang`]) confirmed.
        wins_confirmed: u64,
        /// Positions settled by the table's outcome for the other colour as attacker.
        other_side: u64,
    }

    thread_local! {
        static CHECKS: std::cell::RefCell<Checks> = std::cell::RefCell::new(Checks {
            exact: crate::search::Searcher::new(Sogo::new(), 64 << 20),
            evaluated: [0; 65],
            confirmed: [0; 65],
            unsettled: 0,
            wins_confirmed: 0,
            other_side: 0,
        });
    }

    pub(super) fn count_other_side() {
        CHECKS.with_borrow_mut(|checks| checks.other_side += 1);
    }

    pub(super) fn count_evaluation(stones: u32) {
        CHECKS.with_borrow_mut(|checks| checks.evaluated[stones as usize] += 1);
    }

    /// Fails the test when the plain exact search (no rule but forced moves) does not find what
    /// `rule` claims of `position`: that the attacker cannot win, or that it wins.
    pub(super) fn confirm_rule(position: &Position, attacker_to_move: bool, rule: Rule) {
        CHECKS.with_borrow_mut(|checks| {
            checks.exact.set_time_limit(Some(10.0));
            match checks.exact.wins(position, attacker_to_move) {
                Ok(wins) => {
                    let notation = super::board::cube_notation(position);
                    assert_eq!(
                        wins,
                        rule.attacker_wins(),
                        "{rule:?} claims otherwise of {notation} (attacker to move: {attacker_to_move})"
                    );
                    checks.confirmed[position.ply as usize] += 1;
                    if rule.attacker_wins() {
                        checks.wins_confirmed += 1;
                    }
                }
                Err(_) => checks.unsettled += 1,
            }
        });
    }

    /// The nodes the plain search may take to give a proof's answer to compare: most take tens of
    /// thousands; the few that do not finish took a second each for nothing at 4 million.
    const EXACT_NODES: u64 = 1_000_000;

    /// The rules are asked at over 100,000 positions of 20 to 44 stones, met in the proofs of
    /// random positions of those plies (each side attacking), and every claim they make there
    /// and deeper (that the attacker cannot win, and by zugzwang that it wins) is confirmed by
    /// the plain exact search; each proof's answer (at least 150 of them) equals the exact
    /// search's where that finishes within [`EXACT_NODES`].
    #[test]
    fn rules_and_proofs_agree_with_the_exact_search() {
        let mut rng = crate::rng::SplitMix64::new(64);
        let mut exact = crate::search::Searcher::<Sogo>::new(Sogo::new(), 64 << 20);
        let mut prover = SogoProver::new(Knowledge::ALL, 0);
        let (mut compared, mut roots) = (0, 0);
        let in_range = |counts: &[u64; 65]| counts[20..=44].iter().sum::<u64>();
        // Enough positions for the rules, and enough whole proofs for what the search itself
        // does (its probes, its table) to be checked too.
        while CHECKS.with_borrow(|checks| in_range(&checks.evaluated)) < 100_000 || compared < 150 {
            let plies = 20 + (rng.next_u64() % 25) as u32;
            let Some(p) = random_position(&mut rng, plies) else { continue };
            roots += 1;
            // Both colours attack on one table, as `generate` proves them: the second proof
            // may take the first's outcomes for the other colour (`other_side`).
            prover.clear();
            for attacker_to_move in [true, false] {
                // A count of nodes (about a quarter of a second's), not a time: which positions
                // are compared, and so what the counts below reach, must not depend on the
                // machine's load.
                exact.set_node_limit(EXACT_NODES);
                let Ok(truth) = exact.wins(&p, attacker_to_move) else { continue };
                assert_eq!(prover.prove(&p, attacker_to_move).unwrap().attacker_wins, truth, "{p:?}");
                compared += 1;
            }
        }
        CHECKS.with_borrow(|checks| {
            let confirmed: u64 = checks.confirmed.iter().sum();
            eprintln!(
                "{roots} random positions, {compared} proofs compared; rules asked at {} positions of 20 to 44 stones, \
                 {confirmed} claims confirmed ({} of 20 to 44 stones, {} that the attacker wins), {} unsettled; \
                 {} settled by the other colour's outcome",
                in_range(&checks.evaluated),
                in_range(&checks.confirmed),
                checks.wins_confirmed,
                checks.unsettled,
                checks.other_side
            );
            assert!(checks.other_side > 1_000, "{} settled by the other colour's outcome", checks.other_side);
            assert!(confirmed > 10_000 && checks.unsettled * 100 <= confirmed, "{confirmed} confirmed, {} unsettled", checks.unsettled);
            assert!(checks.wins_confirmed > 1_000, "{} wins confirmed", checks.wins_confirmed);
        });
        assert!(compared > roots, "{compared} of {roots} compared");
    }

    /// Checks every claim the rules make at the positions of 20 to 44 stones of random games
    /// (where the search would ask them: the mover without a win at once, the opponent without
    /// two) against the plain exact search, until `claims` of them are confirmed; returns how
    /// many positions were asked. Random play settles few claims there (about one position in
    /// a thousand), so they are asked directly rather than met inside proofs.
    fn confirm_claims_at_20_to_44_stones(claims: u64, seed: u64) -> u64 {
        // The positions the plain search settles within this many nodes (a few hundredths of a
        // second) are those checked; a claim it does not settle is counted, not waited for (at a
        // million nodes one in ten is still unsettled, at a third of a second each).
        const CLAIM_NODES: u64 = 50_000;
        let mut rng = crate::rng::SplitMix64::new(seed);
        let mut exact = crate::search::Searcher::<Sogo>::new(Sogo::new(), 64 << 20);
        let (mut asked, mut confirmed, mut unsettled, mut wins) = (0u64, [0u64; 65], 0u64, 0u64);
        while confirmed.iter().sum::<u64>() < claims {
            let mut p = Position::EMPTY;
            while p.ply < 45 && !p.is_won_by_previous() {
                if p.ply >= 20 {
                    let theirs = p.mask ^ p.current;
                    let playable = board::drop_cells(p.mask);
                    let threats = board::completing(theirs) & !p.mask;
                    let forced = threats & playable;
                    if board::completing(p.current) & playable != 0 || forced & forced.wrapping_sub(1) != 0 {
                        break;
                    }
                    for attacker_to_move in [true, false] {
                        let (attacking, defending) =
                            if attacker_to_move { (p.current, theirs) } else { (theirs, p.current) };
                        asked += 1;
                        let claim =
                            settled_by_rule(Knowledge::ALL, attacking, defending, threats, p.mask, attacker_to_move);
                        let Some(rule) = claim else { continue };
                        // A count of nodes, not a time, so that what is checked does not depend
                        // on the machine's load.
                        exact.set_node_limit(CLAIM_NODES);
                        match exact.wins(&p, attacker_to_move) {
                            Ok(truth) => {
                                let notation = board::cube_notation(&p);
                                let said = format!("{rule:?} claims otherwise of {notation} (attacker to move: {attacker_to_move})");
                                assert_eq!(truth, rule.attacker_wins(), "{said}");
                                confirmed[p.ply as usize] += 1;
                                wins += u64::from(truth);
                            }
                            Err(_) => unsettled += 1,
                        }
                    }
                }
                let mut playable = board::drop_cells(p.mask);
                for _ in 0..rng.next_u64() % u64::from(playable.count_ones()) {
                    playable &= playable - 1;
                }
                p = p.play(playable & playable.wrapping_neg());
            }
        }
        let total: u64 = confirmed.iter().sum();
        eprintln!(
            "rules asked at {asked} positions of 20 to 44 stones; {total} claims confirmed ({wins} that the attacker wins, \
             {} at 20 to 29 stones, {} at 30 to 44), {unsettled} not settled by the plain search in {CLAIM_NODES} nodes",
            confirmed[20..30].iter().sum::<u64>(),
            confirmed[30..=44].iter().sum::<u64>()
        );
        assert!(unsettled <= total, "{unsettled} unsettled of {total}");
        assert!(wins * 10 >= total, "{wins} wins of {total}: zugzwang too seldom checked");
        asked
    }

    /// Every claim the rules make at positions of 20 to 44 stones, 2,000 of them, is what the
    /// plain exact search finds (the run of 100,000 is `..._in_full`, by hand: about 20 minutes
    /// of one core, docs/BENCHMARKS.md).
    #[test]
    fn rule_claims_at_20_to_44_stones_agree_with_the_exact_search() {
        confirm_claims_at_20_to_44_stones(2_000, 20);
    }

    /// [`rule_claims_at_20_to_44_stones_agree_with_the_exact_search`] for 100,000 claims:
    /// `cargo test --release -p tablebase --lib -- --ignored rule_claims_at_20_to_44 --nocapture`.
    #[test]
    #[ignore = "about 20 minutes: 100,000 claims checked by the exact search"]
    fn rule_claims_at_20_to_44_stones_agree_with_the_exact_search_in_full() {
        confirm_claims_at_20_to_44_stones(100_000, 44);
    }

    /// A journal reads back what it recorded (each outcome once), a prover with it takes the
    /// recorded outcome without searching, and a damaged line or a planted link is an error
    /// naming the file. One not there yet is made at its first record, not at its opening
    /// (`plan` writes nothing; `generate` makes its directory in between).
    #[test]
    fn the_journal_reads_back_its_records_and_refuses_damage() {
        let top = tempfile::tempdir().unwrap();
        let dir = top.path().join("made-later");
        let path = dir.join(JOURNAL_FILE);
        let mut rng = crate::rng::SplitMix64::new(3);
        let positions: Vec<Position> = (0..50).filter_map(|i| random_position(&mut rng, 10 + i % 14)).collect();
        {
            let journal = ProofJournal::open(&path).unwrap();
            assert!(journal.is_empty());
            assert!(!dir.exists(), "opening a journal made its directory");
            std::fs::create_dir(&dir).unwrap();
            assert!(!path.exists(), "opening a journal made its file");
            for (i, p) in positions.iter().enumerate() {
                assert_eq!(parse_notation(&super::board::cube_notation(p)), Some(*p));
                journal.record(p, i % 2 == 0, i % 3 == 0, 1 << 30).unwrap();
            }
            // Two threads that proved the same position: the second record adds no line.
            journal.record(&positions[1], false, false, 1 << 25).unwrap();
        }
        assert_eq!(std::fs::read_to_string(&path).unwrap().lines().count(), positions.len());
        let journal = std::sync::Arc::new(ProofJournal::open(&path).unwrap());
        assert_eq!(journal.len(), positions.len());
        // Opened, it is only read, and no handle to it kept (`plan` opens it in a directory it
        // may not write), until a proof is about to start and asks whether it can append.
        let real = std::fs::canonicalize(&path).unwrap();
        let handles = || {
            let fds = std::fs::read_dir("/proc/self/fd").unwrap().flatten();
            fds.filter(|fd| std::fs::read_link(fd.path()).is_ok_and(|target| target == real)).count()
        };
        assert_eq!(handles(), 0);
        journal.check_appendable().unwrap();
        assert_eq!(handles(), 1);
        for (i, p) in positions.iter().enumerate() {
            assert_eq!(journal.get(p, i % 2 == 0), Some(i % 3 == 0));
            assert_eq!(journal.get(p, i % 2 == 1), None);
        }
        // A recorded outcome is believed: what a proof reads back from its journal.
        let p = positions[0];
        let mut prover = SogoProver::new(Knowledge::ALL, 0).with_journal(journal.clone());
        let white_to_move = p.ply.is_multiple_of(2);
        let proof = prover.prove(&p, white_to_move).unwrap();
        assert_eq!((proof.attacker_wins, proof.nodes), (true, 1));
        // Where the journal has White winning, Black cannot: read so only with `other_side`.
        let black = |knowledge| {
            let mut prover = SogoProver::new(knowledge, 0).with_journal(journal.clone());
            prover.set_time_limit(Some(0.2));
            prover.prove(&p, !white_to_move).map(|proof| (proof.attacker_wins, proof.nodes))
        };
        assert_eq!(black(Knowledge { other_side: true, ..Knowledge::NONE }).ok(), Some((false, 1)));
        assert!(!matches!(black(Knowledge::NONE), Ok((_, 1))), "no other_side, yet settled at once");

        std::fs::write(&path, "white wins x/..\n").unwrap();
        let error = ProofJournal::open(&path).err().unwrap().to_string();
        assert!(error.contains(JOURNAL_FILE) && error.contains("line 1"), "{error}");
        let target = dir.join("elsewhere");
        std::fs::write(&target, "kept").unwrap();
        std::fs::remove_file(&path).unwrap();
        std::os::unix::fs::symlink(&target, &path).unwrap();
        assert!(ProofJournal::open(&path).is_err());
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "kept");
        // A link planted after the opening, before the first record: not written through.
        std::fs::remove_file(&path).unwrap();
        let journal = ProofJournal::open(&path).unwrap();
        std::os::unix::fs::symlink(&target, &path).unwrap();
        assert!(journal.record(&p, true, true, 1 << 30).is_err());
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "kept");
        // Nor one planted after the opening and before the proofs start: refused by the check
        // `generate` makes then, as an error of the table directory naming the journal.
        std::fs::remove_file(&path).unwrap();
        std::fs::write(&path, "").unwrap();
        let journal = ProofJournal::open(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        std::os::unix::fs::symlink(&target, &path).unwrap();
        let error = journal.check_appendable().unwrap_err().into_table_error("the proofs' journal").to_string();
        assert!(error.contains(JOURNAL_FILE) && error.contains("cannot open it to append"), "{error}");
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "kept");
        for bad in ["", "x", "xxxx/..../..../....|....|....|....", "....|x.../..../....|....|...."] {
            assert_eq!(parse_notation(bad), None, "{bad}");
        }
    }

    /// A proof with its moves ordered by an earlier proof of the same position
    /// ([`SogoProver::order_by_last_proof`]) finds the same outcome, and in all takes fewer nodes.
    #[test]
    fn moves_ordered_by_a_proof_prove_the_same_outcomes_in_fewer_nodes() {
        // A well-played line from ply 32 (proofs of thousands to a million nodes), then random
        // positions. The order never changes an outcome; over the line's longer proofs it saves
        // nodes, as it must where the first proof's order missed the move that settles.
        let mut rng = crate::rng::SplitMix64::new(7);
        let line = "a2b3c2b3b2d2b2b2c2c2b3b3b4c2c4a1b2d4b1c3a2d2a2a2d1c3d1c3c3d4d4d4a4d1d1a4a4a4b4d2";
        let mut positions: Vec<Position> =
            (32..=40).step_by(2).map(|ply| board::play_sogo(&line[..2 * ply]).unwrap().0).collect();
        while positions.len() < 30 {
            let plies = 26 + (rng.next_u64() % 12) as u32;
            positions.extend(random_position(&mut rng, plies));
        }
        let mut prover = SogoProver::new(Knowledge::ALL, 0);
        let (mut first_nodes, mut ordered_nodes) = (0, 0);
        for p in positions {
            for attacker_to_move in [true, false] {
                let first = prover.prove(&p, attacker_to_move).unwrap();
                prover.order_by_last_proof();
                let ordered = prover.prove(&p, attacker_to_move).unwrap();
                assert_eq!(first.attacker_wins, ordered.attacker_wins, "{}", board::cube_notation(&p));
                first_nodes += first.nodes;
                ordered_nodes += ordered.nodes;
                prover.forget_order();
                assert!(prover.oracle.is_none());
            }
        }
        assert!(ordered_nodes < first_nodes, "ordered {ordered_nodes} nodes against {first_nodes}");
    }

    /// Three threads proving together find what one finds alone, on both sides of random
    /// positions, and they stop with the work they are part of.
    #[test]
    fn threads_proving_together_agree_with_one_alone() {
        // With this seed's random positions, twelve of the proofs take more than 10,000 nodes
        // (four of them the line's) and none millions (some seeds meet proofs of 5 million
        // nodes, 10 s each, which show nothing more).
        let mut rng = crate::rng::SplitMix64::new(4);
        let mut alone = SogoProver::new(Knowledge::ALL, 0);
        let mut together = SogoProver::new(Knowledge::ALL, 0);
        let mut helpers = vec![together.helper(), together.helper()];
        // A well-played line's positions from ply 28 on, each side's proof of up to 10^6
        // nodes; then random positions, mostly settled at once.
        let line = "a2b3c2b3b2d2b2b2c2c2b3b3b4c2c4a1b2d4b1c3a2d2a2a2d1c3d1c3c3d4d4d4a4d1d1a4a4a4b4d2";
        let mut positions: Vec<Position> =
            (28..=40).step_by(2).map(|ply| board::play_sogo(&line[..2 * ply]).unwrap().0).collect();
        while positions.len() < 60 {
            let plies = 26 + (rng.next_u64() % 12) as u32;
            positions.extend(random_position(&mut rng, plies));
        }
        let (mut compared, mut large) = (0, 0);
        for p in positions {
            for attacker_to_move in [true, false] {
                let one = alone.prove(&p, attacker_to_move).unwrap();
                let all = together.prove_together(&mut helpers, &p, attacker_to_move).unwrap();
                assert_eq!(one.attacker_wins, all.attacker_wins, "{}", board::cube_notation(&p));
                compared += 1;
                if one.nodes > 10_000 {
                    large += 1;
                }
            }
        }
        // Enough proofs long enough for the threads to share them out.
        assert!(compared == 120 && large >= 8, "{large} proofs of more than 10,000 nodes");

        // A proof of minutes, stopped by its work: every thread stops, and the answer says so.
        let hard = board::play_sogo("b2c3c2b3b2c2b2b2c3c4c2a1c4d2d2c2").unwrap().0;
        let work = Work::new(None);
        work.stop();
        let stopped = Work::run(Some(&work), || together.prove_together(&mut helpers, &hard, true));
        assert!(matches!(stopped, Err(SearchError::Stopped)), "{stopped:?}");
        together.set_time_limit(Some(0.3));
        let start = std::time::Instant::now();
        let out_of_time = together.prove_together(&mut helpers, &hard, true);
        assert!(matches!(out_of_time, Err(SearchError::TimeLimit { .. })), "{out_of_time:?}");
        assert!(start.elapsed().as_secs_f64() < 30.0, "the threads went on after the limit");
    }

    #[test]
    fn the_table_gives_back_only_a_keys_own_outcome() {
        let table = Outcomes::new(0);
        let mut rng = crate::rng::SplitMix64::new(5);
        let keys: Vec<u128> =
            (0..1000).map(|_| ((u128::from(rng.next_u64()) << 64) | u128::from(rng.next_u64())) & ((1 << KEY_BITS) - 1)).collect();
        for (i, &key) in keys.iter().enumerate() {
            table.put(key, i % 3 == 0, i as u64);
        }
        for (i, &key) in keys.iter().enumerate() {
            assert_eq!(table.get(key), Some(i % 3 == 0));
            assert_eq!(table.get(key ^ 1 << 80), None);
            // The other colour's bucket is in the same cache line: `other_side` costs no miss.
            let line = |key: u128| std::ptr::from_ref(&table.buckets[table.locate(key).0]).addr() / 64;
            assert_eq!(line(key), line(key ^ OTHER_ATTACKER));
        }
    }
}

