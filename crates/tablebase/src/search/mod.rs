//! Exact search of line games: Connect Four (past its tables), Sogo and Qubic, one engine over
//! a small description of each ([`LineGame`]): its cells as bits of a `u64`, which of them are
//! playable, which cells complete a line, and its positions' keys up to its symmetries.
//!
//! The search scores a position by the stone that ends the game: a win on the winner's own
//! `k`-th stone scores `MAX - k` for the winner and `k - MAX` for the loser, a draw 0, where
//! `MAX = (cells + 1) / 2 + 1`. Such a score does not depend on the ply it is seen from, so a
//! child's score is exactly the negation of what it gives its parent (plain negamax), and it
//! converts exactly to a distance in plies (fewest to a win, most to a loss). The exact score
//! comes from null-window alpha-beta searches that bisect the range of possible scores; each
//! search uses
//! - only the moves that do not hand the opponent a win at once, and an immediate loss where
//!   the opponent has two winning cells to play;
//! - a transposition table of bounds ([`Bounds`]) keyed exactly by the position up to the
//!   game's symmetries;
//! - threats first: moves ordered by the winning cells they make for the mover, then in the
//!   game's order of preference (Connect Four's centre columns first).

mod bounds;
mod proof;
mod tree;

pub use bounds::{Bounds, KeyWord};
pub use proof::{Proof, Prover, StrategyMoves};
pub use tree::{ProofTree, TreeProof};

use crate::value::Value;
use std::cell::RefCell;
use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, TryLockError};
use std::time::Instant;

/// A game of making lines on at most 64 cells, as the search sees it. Its cells are bits of a
/// `u64` in a layout of its own; its nodes carry whatever its keys need (Connect Four keeps its
/// mirror image beside the position, so that the symmetric key costs no mirroring).
pub trait LineGame: Send + Sync + 'static {
    /// A position as the game's notation gives it.
    type Position;
    /// A position as the search walks it.
    type Node: Copy;
    /// The word of [`LineGame::key`].
    type Key: KeyWord;

    /// Cells on the board: the most plies a game lasts.
    fn cells(&self) -> u32;
    /// Every cell of the board.
    fn board(&self) -> u64;
    /// The bits a key has.
    fn key_bits(&self) -> u32;
    /// The search's node for `position`.
    fn node(&self, position: &Self::Position) -> Self::Node;
    /// Stones on the board.
    fn ply(node: &Self::Node) -> u32;
    /// The stones of the side to move.
    fn mover(node: &Self::Node) -> u64;
    /// Every stone on the board.
    fn occupied(node: &Self::Node) -> u64;
    /// The cells a stone may go to now.
    fn playable(&self, occupied: u64) -> u64;
    /// The cells that would complete a line of `stones`; it may include cells that are taken
    /// or off the board (callers mask it with the empty cells).
    fn completing(&self, stones: u64) -> u64;
    /// [`LineGame::completing`] of `stones | cell`, given `completing` of `stones` (and `cell`
    /// not among them): a game can add the lines through `cell` alone.
    #[inline(always)]
    fn completing_after(&self, stones: u64, _completing: u64, cell: u64) -> u64 {
        self.completing(stones | cell)
    }
    /// Whether `stones` hold a whole line.
    fn has_line(&self, stones: u64) -> bool;
    /// The empty cells (of `!(mine | theirs)`) on which a stone of `mine` might make a new
    /// cell complete a line of `mine`: every empty cell unless the game narrows it down.
    fn building(&self, mine: u64, theirs: u64) -> u64 {
        self.board() & !(mine | theirs)
    }
    /// How much a stone of `mine` on the empty `cell` promises, for the order in which a proof
    /// tries the attacker's quiet moves (higher first); 0 for every cell unless the game says.
    fn promise(&self, _mine: u64, _theirs: u64, _cell: u64) -> u32 {
        0
    }
    /// The cells on which a stone would make some of `cells` playable: none without gravity.
    fn beneath(&self, cells: u64) -> u64;
    /// The moves in the order the search tries them among equal threats: each a set of cells of
    /// which at most one is playable at a time (a column under gravity, a cell without it).
    fn groups(&self) -> &[u64];
    /// The node after a stone on `cell`, the playable cell of group `group`.
    fn play(&self, node: &Self::Node, group: usize, cell: u64) -> Self::Node;
    /// The key of a node in the transposition table: the same for nodes the game's symmetries
    /// map onto each other, different for any others.
    fn key(&self, node: &Self::Node) -> Self::Key;
}

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
    /// The work it was for (`Work`) stopped it: no longer wanted (a client gone), or not
    /// allowed to search at all.
    Stopped,
}

impl fmt::Display for SearchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SearchError::TimeLimit { seconds, nodes } => write!(
                f,
                "the search needs more than the {seconds} s allowed (--max-time); it stopped after {nodes} positions"
            ),
            SearchError::Stopped => write!(f, "the search was stopped: its answer is no longer wanted"),
        }
    }
}

impl std::error::Error for SearchError {}

/// How many nodes a search visits between two readings of its clock (its own limit and its
/// work's) and of its node limit.
///
/// Not fewer: a short limit (a probe's quarter of a second of exact search before its proof)
/// would then cut a search whose first nodes waited on the kernel clearing its table's pages.
/// Read at each of a searcher's first nodes, a Qubic probe at the lowest priority on a busy
/// machine found a move "unknown" after 34 s that it proved a draw in 1.7 s when the exact
/// search had its first 4,096 nodes, which settle it.
pub(crate) const CLOCK_EVERY: u64 = 4096;

/// How many nodes a search visits between two looks at its work's stop (a client gone), once
/// past its searcher's [`FRESH_NODES`]: a look is an atomic load, nothing against 256 nodes.
pub(crate) const STOP_EVERY: u64 = 256;

/// The first nodes of a searcher (or prover), at each of which it looks at its work's stop.
///
/// A fresh transposition table is untouched memory in huge pages: its first nodes each fault
/// in a page of 2 MB, which the kernel clears, so that 256 of them clear about the whole of a
/// 64 MB table. A search of the lowest priority on a busy machine (`serve`'s) is let to run
/// between the cleared parts of a page only, and took tens of seconds to reach its first
/// look, seeing its stop (a client gone) that late, and clearing memory no one wanted.
pub(crate) const FRESH_NODES: u64 = 4096;

/// When a search gives up: a point in time and the limit it came from, or never; and for a
/// test that must not depend on the machine's speed, a count of nodes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Deadline {
    time: Option<(Instant, f64)>,
    /// The searcher's count of nodes at which it stops (`u64::MAX`: never).
    last_node: u64,
}

impl Default for Deadline {
    fn default() -> Deadline {
        Deadline { time: None, last_node: u64::MAX }
    }
}

impl Deadline {
    /// `seconds` from now; never for `None`, and for a limit too far away to be a point in time
    /// (or not a number): no search would reach it.
    pub(crate) fn after(seconds: Option<f64>) -> Deadline {
        let time = seconds.and_then(|s| {
            let span = std::time::Duration::try_from_secs_f64(s.max(0.0)).ok()?;
            Some((Instant::now().checked_add(span)?, s))
        });
        Deadline { time, ..Deadline::default() }
    }

    /// Never by the clock; at the searcher's count of nodes `last_node` (to within the
    /// [`CLOCK_EVERY`] nodes between two checks, the same in every run).
    #[cfg(test)]
    pub(crate) fn at_node(last_node: u64) -> Deadline {
        Deadline { time: None, last_node }
    }

    /// The same clock, and a stop at the searcher's count of nodes `last_node` too (the earlier
    /// of this one's and that).
    pub(crate) fn until_node(self, last_node: u64) -> Deadline {
        Deadline { last_node: self.last_node.min(last_node), ..self }
    }

    /// Whether a search at `nodes` has reached this deadline's count of nodes.
    pub(crate) fn reached_node(&self, nodes: u64) -> bool {
        nodes >= self.last_node
    }

    /// Whether the clock has passed this deadline's time.
    pub(crate) fn time_is_up(&self) -> bool {
        self.time.is_some_and(|(deadline, _)| Instant::now() > deadline)
    }

    /// The error to stop with after `nodes` nodes, once the time is up, this search's own or
    /// that of the work the thread does (`Work`), or once that work is stopped; the clock is
    /// read at every [`CLOCK_EVERY`]th node, the stop looked at on each of the first
    /// [`FRESH_NODES`] nodes and every [`STOP_EVERY`]th after.
    #[inline]
    pub(crate) fn check(&self, nodes: u64) -> Result<(), SearchError> {
        if nodes > FRESH_NODES && !nodes.is_multiple_of(STOP_EVERY) {
            return Ok(());
        }
        if nodes.is_multiple_of(CLOCK_EVERY) {
            return self.check_now(nodes);
        }
        work_stopped()
    }

    #[cold]
    fn check_now(&self, nodes: u64) -> Result<(), SearchError> {
        let now = Instant::now();
        if let Some((deadline, seconds)) = self.time
            && now > deadline
        {
            return Err(SearchError::TimeLimit { seconds, nodes });
        }
        if nodes >= self.last_node {
            return Err(SearchError::TimeLimit { seconds: 0.0, nodes });
        }
        WORK.with_borrow(|work| work.as_ref().map_or(Ok(()), |work| work.check(now, nodes)))
    }
}

/// [`SearchError::Stopped`] where the work this thread does, or one it is part of, is stopped.
#[cold]
fn work_stopped() -> Result<(), SearchError> {
    WORK.with_borrow(|work| match work {
        Some(work) if work.is_stopped() => Err(SearchError::Stopped),
        _ => Ok(()),
    })
}

/// What all the searches of one piece of work (a request to `serve`) may take together, on
/// whichever threads they run: a deadline, and a way to stop them all at once (its client has
/// gone). A work may also forbid searches altogether, so that its caller learns whether it
/// needs one before giving it a search's resources ([`Work::without_searches`]).
#[derive(Debug)]
pub struct Work {
    deadline: Option<(Instant, f64)>,
    stopped: AtomicBool,
    searches: bool,
    /// A search was refused because the work forbids them.
    wanted_search: AtomicBool,
    /// The work this one is part of, whose deadline and stop hold here too.
    outer: Option<Arc<Work>>,
}

thread_local! {
    /// The work the thread does now ([`Work::run`]).
    static WORK: RefCell<Option<Arc<Work>>> = const { RefCell::new(None) };
}

impl Work {
    /// Work whose searches stop `seconds` from now (never for `None`), within the work the
    /// thread does now, if any.
    pub fn new(seconds: Option<f64>) -> Arc<Work> {
        let outer = Work::current();
        Arc::new(Work {
            deadline: Deadline::after(seconds).time,
            stopped: AtomicBool::new(false),
            searches: outer.as_ref().is_none_or(|o| o.searches),
            wanted_search: AtomicBool::new(false),
            outer,
        })
    }

    /// Work in which no search may start: the first one stops with [`SearchError::Stopped`],
    /// and [`Work::wanted_search`] says so afterwards.
    pub fn without_searches() -> Arc<Work> {
        let mut work = Work::new(None);
        if let Some(work) = Arc::get_mut(&mut work) {
            work.searches = false;
        }
        work
    }

    /// The work the thread does now: to hand to the threads a search starts ([`Work::run`]).
    pub fn current() -> Option<Arc<Work>> {
        WORK.with_borrow(Clone::clone)
    }

    /// Stops every search of the work, now and later, on every thread.
    pub fn stop(&self) {
        self.stopped.store(true, Ordering::Relaxed);
    }

    /// Whether a search was refused because the work forbids them.
    pub fn wanted_search(&self) -> bool {
        self.wanted_search.load(Ordering::Relaxed)
    }

    /// Runs `f` as part of `work` (nothing when `None`): every search it makes on this thread
    /// obeys the work's deadline and stop.
    pub fn run<T>(work: Option<&Arc<Work>>, f: impl FnOnce() -> T) -> T {
        /// Puts the thread's work back, also when `f` unwinds.
        struct Restore(Option<Arc<Work>>);
        impl Drop for Restore {
            fn drop(&mut self) {
                WORK.set(self.0.take());
            }
        }
        let _restore = Restore(WORK.replace(work.cloned()));
        f()
    }

    /// Seconds until the earliest deadline of this work and those it is part of; `None`
    /// where none has one.
    fn time_left(&self, now: Instant) -> Option<f64> {
        let mut left: Option<f64> = None;
        let mut work = Some(self);
        while let Some(w) = work {
            if let Some((deadline, _)) = w.deadline {
                let this = deadline.saturating_duration_since(now).as_secs_f64();
                left = Some(left.map_or(this, |l| l.min(this)));
            }
            work = w.outer.as_deref();
        }
        left
    }

    /// Whether this work or one it is part of is stopped.
    fn is_stopped(&self) -> bool {
        let mut work = Some(self);
        while let Some(w) = work {
            if w.stopped.load(Ordering::Relaxed) {
                return true;
            }
            work = w.outer.as_deref();
        }
        false
    }

    fn check(&self, now: Instant, nodes: u64) -> Result<(), SearchError> {
        let mut work = Some(self);
        while let Some(w) = work {
            if w.stopped.load(Ordering::Relaxed) {
                return Err(SearchError::Stopped);
            }
            if let Some((deadline, seconds)) = w.deadline
                && now > deadline
            {
                return Err(SearchError::TimeLimit { seconds, nodes });
            }
            work = w.outer.as_deref();
        }
        Ok(())
    }
}

/// Whether a search may start now on this thread: not when its work forbids searches, is
/// stopped or out of time. Every search begins with it, so that such a work costs no table.
pub(crate) fn may_search() -> Result<(), SearchError> {
    WORK.with_borrow(|work| match work {
        None => Ok(()),
        Some(work) if !work.searches => {
            // Told to the works it is part of too: the one that forbade searches is the caller's,
            // a bound on time (`within`) may have been made inside it.
            let mut within = Some(work.as_ref());
            while let Some(w) = within {
                w.wanted_search.store(true, Ordering::Relaxed);
                within = w.outer.as_deref();
            }
            Err(SearchError::Stopped)
        }
        Some(work) => work.check(Instant::now(), 0),
    })
}

/// Seconds left to the searches of the work this thread does (`Work`); `None` where it has no
/// deadline. A search that shares its time among several lets each have a part of this.
pub fn time_left() -> Option<f64> {
    WORK.with_borrow(|work| work.as_ref().and_then(|work| work.time_left(Instant::now())))
}

/// `mutex` locked for a search, waiting no longer than `deadline` and the thread's work allow:
/// a search that needs a table another search holds waits for it within its own time.
pub(crate) fn lock_for_search<'a, T>(
    mutex: &'a Mutex<T>,
    deadline: Deadline,
) -> Result<MutexGuard<'a, T>, SearchError> {
    loop {
        match mutex.try_lock() {
            Ok(held) => return Ok(held),
            Err(TryLockError::Poisoned(held)) => return Ok(held.into_inner()),
            Err(TryLockError::WouldBlock) => {
                deadline.check_now(0)?;
                std::thread::sleep(std::time::Duration::from_millis(2));
            }
        }
    }
}

/// Runs `work` with every search it makes on this thread stopped `seconds` from now at the
/// latest, whatever the searches' own limits: a bound on a whole answer made of many searches
/// (a position and each of its moves). A bound within another keeps the earlier of the two.
pub fn within<T>(seconds: f64, work: impl FnOnce() -> T) -> T {
    Work::run(Some(&Work::new(Some(seconds))), work)
}

/// `MAX` of the score on a board of `cells` cells: a win on the winner's own stone `k` scores
/// `MAX - k` (22 on Connect Four's 7x6, whose first player places at most 21 stones).
pub fn max_score(cells: u32) -> i32 {
    (cells as i32 + 1) / 2 + 1
}

/// The value, for the side to move at `ply` on a board of `cells` cells, of a score in this
/// module's convention (which is also that of Pascal Pons's Connect Four test sets): positive
/// when it wins on its own stone `MAX - score`, negative when it loses to the opponent's stone
/// `MAX + score`, 0 for a draw.
pub fn value_of_score(cells: u32, ply: u32, score: i32) -> Value {
    let own = (ply / 2) as i32; // stones the side to move has played
    let theirs = ply as i32 - own;
    let max = max_score(cells);
    match score {
        0 => Value::Draw,
        s if s > 0 => Value::Win((2 * (max - s - own) - 1) as u32),
        s => Value::Loss((2 * (max + s - theirs)) as u32),
    }
}

/// The score of `value` for the side to move at `ply`, the inverse of [`value_of_score`]; `None`
/// for a value no score gives (a distance of the wrong parity or out of range).
pub fn score_of_value(cells: u32, ply: u32, value: Value) -> Option<i32> {
    let own = i64::from(ply / 2);
    let theirs = i64::from(ply) - own;
    let max = i64::from(max_score(cells));
    let score = match value {
        Value::Draw => 0,
        Value::Win(plies) => max - own - (i64::from(plies) + 1) / 2,
        Value::Loss(plies) => i64::from(plies) / 2 - max + theirs,
        Value::WinUnknown | Value::LossUnknown => return None,
    };
    let score = i32::try_from(score).ok().filter(|s| s.abs() < max_score(cells))?;
    (value_of_score(cells, ply, score) == value).then_some(score)
}

/// The moves of the side to move (`mover`'s stones among `occupied`, `empty` the board's other
/// cells) that do not let the opponent complete a line with its next stone: the one cell that
/// blocks its winning cell if it has one, and never a cell under one of its winning cells. None
/// (0) when every move loses at once: two winning cells to block, or all moves under them.
/// Both searches start every position from it.
#[inline(always)]
pub(crate) fn moves_not_losing_at_once<G: LineGame>(game: &G, mover: u64, occupied: u64, empty: u64) -> u64 {
    let playable = game.playable(occupied);
    let threats = game.completing(mover ^ occupied) & empty;
    let forced = playable & threats;
    let moves = match forced {
        0 => playable,
        // Two cells to block: the opponent wins with its next stone.
        f if f & (f - 1) != 0 => return 0,
        f => f,
    };
    moves & !game.beneath(threats)
}

/// The transposition table's size by default: 64 MB (2^24 entries on Connect Four 7x6).
pub const DEFAULT_TABLE_BYTES: usize = 64 << 20;

/// The most groups (moves) a game may have: one per cell of a 64-cell board.
const MAX_GROUPS: usize = 64;

/// Searches positions of one game. Keeps its transposition table between searches: positions
/// searched before make later searches (a position's moves, the best line) cheaper.
pub struct Searcher<G: LineGame> {
    game: G,
    table: Bounds<G::Key>,
    board: u64,
    cells: u32,
    /// `MAX` of the score: a win on the own stone `k` scores `MAX - k`.
    max_score: i32,
    nodes: u64,
    deadline: Deadline,
}

impl<G: LineGame> Searcher<G> {
    /// A searcher for `game` with a transposition table of at most `table_bytes` bytes.
    pub fn new(game: impl Into<G>, table_bytes: usize) -> Searcher<G> {
        let game = game.into();
        assert!(game.groups().len() <= MAX_GROUPS, "{} moves", game.groups().len());
        let cells = game.cells();
        Searcher {
            table: Bounds::new(table_bytes, game.key_bits(), max_score(cells)),
            board: game.board(),
            cells,
            max_score: max_score(cells),
            game,
            nodes: 0,
            deadline: Deadline::default(),
        }
    }

    /// The game searched.
    pub fn game(&self) -> &G {
        &self.game
    }

    /// Stops every later search after `seconds` from now with [`SearchError::TimeLimit`];
    /// `None` lifts the limit, and so does a limit too far away to be a point in time (or not a
    /// number): no search would reach it.
    pub fn set_time_limit(&mut self, seconds: Option<f64>) {
        self.deadline = Deadline::after(seconds);
    }

    /// Positions searched so far.
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// Stops every later search once it has searched about `nodes` more positions, whatever the
    /// clock says: for tests whose choice of positions must not depend on the machine.
    #[cfg(test)]
    pub(crate) fn set_node_limit(&mut self, nodes: u64) {
        self.deadline = Deadline::at_node(self.nodes.saturating_add(nodes));
    }

    /// Forgets every position searched.
    pub fn clear(&mut self) {
        self.table.clear();
    }

    /// Whether the side that moved last has made a line: the side to move has lost.
    fn is_lost(&self, node: &G::Node) -> bool {
        self.game.has_line(G::mover(node) ^ G::occupied(node))
    }

    /// Whether the side to move can complete a line with its next stone.
    fn can_win_at_once(&self, node: &G::Node) -> bool {
        let occupied = G::occupied(node);
        self.game.completing(G::mover(node)) & self.game.playable(occupied) & !occupied != 0
    }

    /// The value of `position` for the side to move, with its exact distance.
    pub fn value(&mut self, position: &G::Position) -> Result<Value, SearchError> {
        let node = self.game.node(position);
        let ply = G::ply(&node);
        if self.is_lost(&node) {
            return Ok(Value::Loss(0));
        }
        if ply == self.cells {
            return Ok(Value::Draw);
        }
        let score = self.score(&node)?;
        Ok(value_of_score(self.cells, ply, score))
    }

    /// Whether `value` is the value of `position`, proved by two null-window searches, one on
    /// each side of its score (no faster win and no longer defence), where [`Searcher::value`]
    /// bisects the whole range of scores: what `verify` needs of a value found before. On
    /// Connect Four 7x6 ply 8 it takes about 0.7 of the time of finding the value.
    pub fn confirms(&mut self, position: &G::Position, value: Value) -> Result<bool, SearchError> {
        let node = self.game.node(position);
        let ply = G::ply(&node);
        if self.is_lost(&node) || ply == self.cells || self.can_win_at_once(&node) {
            return Ok(self.value(position)? == value);
        }
        let Some(score) = score_of_value(self.cells, ply, value) else {
            return Ok(false);
        };
        Ok(self.negamax(&node, score - 1, score)? >= score && self.negamax(&node, score, score + 1)? <= score)
    }

    /// Whether the side to move (`attacker_to_move`) or the other side wins `position`, by one
    /// null-window search around a draw: the question [`Prover`] answers, without the
    /// distance, but by alpha-beta, whose table keeps bounds from every refutation (a draw or
    /// the defender's win) where the prover disproves move by move.
    pub fn wins(&mut self, position: &G::Position, attacker_to_move: bool) -> Result<bool, SearchError> {
        let node = self.game.node(position);
        if self.is_lost(&node) || G::ply(&node) == self.cells || self.can_win_at_once(&node) {
            let value = self.value(position)?;
            return Ok(matches!((attacker_to_move, value), (true, Value::Win(_)) | (false, Value::Loss(_))));
        }
        Ok(match attacker_to_move {
            true => self.negamax(&node, 0, 1)? > 0,
            false => self.negamax(&node, -1, 0)? < 0,
        })
    }

    /// The exact score of a node whose game is not over.
    fn score(&mut self, node: &G::Node) -> Result<i32, SearchError> {
        let ply = G::ply(node);
        let own = (ply / 2) as i32;
        let theirs = ply as i32 - own;
        if self.can_win_at_once(node) {
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
            let found = self.negamax(node, probe, probe + 1)?;
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
    fn negamax(&mut self, node: &G::Node, mut alpha: i32, mut beta: i32) -> Result<i32, SearchError> {
        self.nodes += 1;
        self.deadline.check(self.nodes)?;
        let game = &self.game;
        let ply = G::ply(node);
        let own = (ply / 2) as i32;
        let theirs = ply as i32 - own;
        let (mover, occupied) = (G::mover(node), G::occupied(node));
        let empty = self.board & !occupied;
        let moves = moves_not_losing_at_once(game, mover, occupied, empty);
        if moves == 0 {
            // The opponent wins with its next stone.
            return Ok(-(self.max_score - (theirs + 1)));
        }
        if ply + 2 >= self.cells {
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
        let key = game.key(node);
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

        // Moves by the winning cells they make for the mover, in the game's order among equals.
        let mut ordered = [(0u8, 0u8); MAX_GROUPS];
        let mut count = 0;
        for (group, &cells) in game.groups().iter().enumerate() {
            let cell = moves & cells;
            if cell == 0 {
                continue;
            }
            // The child's entry is wanted soon: start loading it (the table is far larger than
            // the caches, so each lookup is a miss).
            self.table.prefetch(game.key(&game.play(node, group, cell)));
            let made = (game.completing(mover | cell) & empty & !cell).count_ones() as u8;
            let mut at = count;
            while at > 0 && ordered[at - 1].0 < made {
                ordered[at] = ordered[at - 1];
                at -= 1;
            }
            ordered[at] = (made, group as u8);
            count += 1;
        }
        for &(_, group) in &ordered[..count] {
            let group = usize::from(group);
            let child = self.game.play(node, group, moves & self.game.groups()[group]);
            let score = -self.negamax(&child, -beta, -alpha)?;
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
}

/// Searchers of one game shared by threads: a search takes an idle one (or makes one), so that
/// threads never share a transposition table, and puts it back, so that later searches find the
/// positions searched before.
pub struct SearcherPool<G: LineGame + Clone> {
    game: G,
    table_bytes: usize,
    idle: Mutex<Vec<Searcher<G>>>,
}

impl<G: LineGame + Clone> SearcherPool<G> {
    /// Searchers for `game` with transposition tables of at most `table_bytes` bytes each.
    pub fn new(game: impl Into<G>, table_bytes: usize) -> SearcherPool<G> {
        SearcherPool { game: game.into(), table_bytes, idle: Mutex::new(Vec::new()) }
    }

    /// The value of `position`, stopped after `max_time` seconds if given.
    pub fn value(&self, position: &G::Position, max_time: Option<f64>) -> Result<Value, SearchError> {
        self.with_searcher(max_time, |searcher| searcher.value(position))
    }

    /// Whether `value` is the value of `position` ([`Searcher::confirms`]).
    pub fn confirms(&self, position: &G::Position, value: Value) -> Result<bool, SearchError> {
        self.with_searcher(None, |searcher| searcher.confirms(position, value))
    }

    /// Runs `search` with an idle searcher, its time limit `max_time`.
    pub fn with_searcher<T>(
        &self,
        max_time: Option<f64>,
        search: impl FnOnce(&mut Searcher<G>) -> Result<T, SearchError>,
    ) -> Result<T, SearchError> {
        may_search()?;
        let idle = || self.idle.lock().unwrap_or_else(PoisonError::into_inner);
        let mut searcher = idle().pop().unwrap_or_else(|| Searcher::new(self.game.clone(), self.table_bytes));
        searcher.set_time_limit(max_time);
        let answer = search(&mut searcher);
        idle().push(searcher);
        answer
    }

    /// Drops the idle searchers and their tables (64 MB each by default): what a long-running
    /// server does once its searches end, so that its memory goes back to what it holds idle.
    pub fn release(&self) {
        self.idle.lock().unwrap_or_else(PoisonError::into_inner).clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A search refused by a caller's work that forbids them is told to that work, also where a
    /// bound on time was made inside it (a probe's `within`), and a stop reaches the searches of
    /// the works made inside the one stopped.
    #[test]
    fn a_refused_search_and_a_stop_reach_every_work_in_the_chain() {
        let forbidding = Work::without_searches();
        let refused = Work::run(Some(&forbidding), || within(60.0, may_search));
        assert!(matches!(refused, Err(SearchError::Stopped)));
        assert!(forbidding.wanted_search());
        let allowing = Work::new(None);
        assert!(Work::run(Some(&allowing), || within(60.0, may_search)).is_ok());
        assert!(!allowing.wanted_search());
        allowing.stop();
        let stopped = Work::run(Some(&allowing), || within(60.0, || Deadline::at_node(u64::MAX).check_now(0)));
        assert!(matches!(stopped, Err(SearchError::Stopped)));
    }
}
