//! The value of a cube position by search: the exact search first, for a short while, then the
//! prover, which settles who wins without the distance, and where distances are asked for
//! ([`CubeSolver::seek_distances`]) the exact search again with the time left.
//!
//! Late positions (a few dozen empty cells) are searched exactly in well under a second. Early
//! ones are not: their distances would take an exact search far too long, but the prover shows
//! who wins with a fraction of the nodes. Such a value is a win or a loss of unknown distance
//! ([`Value::WinUnknown`]), never a distance made up; a draw needs no distance, so two failed
//! proofs ("the side to move wins", "the other side wins") give an exact draw.

use super::board::Position;
use super::search::CubeLines;
use super::sogo::{Knowledge, ProofJournal, SogoProver};
use crate::search::{Deadline, Prover, SearchError, SearcherPool, StrategyMoves, Work, lock_for_search};
use crate::value::Value;
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// Seconds the exact search has before the prover takes over (or the whole limit, if smaller).
pub const EXACT_SECONDS: f64 = 0.25;
/// Bytes of each exact searcher's transposition table.
const EXACT_TABLE_BYTES: usize = 64 << 20;
/// Bytes of the prover's tables.
pub const PROVER_TABLE_BYTES: usize = 512 << 20;
/// Bytes of all Sogo provers' tables together in a long proof (`generate`'s, which keeps a
/// journal), at most 2 GB a thread: at ply 16 of a well-played line, White's win took 1,230 M
/// nodes with 512 MB, 1,139 M with 2 GB and 1,114 M with 8 GB (docs/BENCHMARKS.md, "Sogo's
/// prover: the table's size").
const JOURNALED_TABLE_BYTES: usize = 8 << 30;
/// Bytes of the tables of the prover that follows White's strategy in Qubic: its proofs store
/// millions of positions and run through tens of millions of threat sequences, and with a
/// quarter of this the threat searches are repeated so often that a proof of 17 s (`a11 d44
/// a14`) takes over 100.
pub const STRATEGY_TABLE_BYTES: usize = 2 << 30;
/// Values remembered from one question to the next (a probe asks for every move's, and the
/// best line for them again); beyond this the memory is emptied.
const REMEMBERED: usize = 1 << 20;

/// Values of one cube game by search, shared by threads.
pub struct CubeSolver<const GRAVITY: bool> {
    game: CubeLines<GRAVITY>,
    exact: SearcherPool<CubeLines<GRAVITY>>,
    /// Idle provers: a proof takes one (or makes one) and puts it back, so that threads never
    /// share one and later proofs find what earlier ones stored.
    provers: Mutex<Vec<Prover<CubeLines<GRAVITY>>>>,
    prover_bytes: usize,
    /// Sogo's idle provers ([`SogoProver`], tables of `prover_bytes`), made as proofs need them.
    sogo_provers: Mutex<Vec<SogoProver>>,
    /// Where Sogo's provers record their long proofs and read them back, if anywhere.
    journal: Option<Arc<ProofJournal>>,
    /// Threads proving each Sogo position together ([`SogoProver::prove_together`]).
    sogo_threads: usize,
    exact_seconds: f64,
    /// Whether a search whose outcome is proved within its limit goes on for the distance with
    /// the time left ([`CubeSolver::seek_distances`]).
    seeks_distances: bool,
    known: Mutex<HashMap<u128, Value>>,
    /// White's strategy ([`super::strategy`]; Qubic only), made at the first proof of a win
    /// of White's.
    strategy: Mutex<Option<Strategy<GRAVITY>>>,
    /// The winning moves (cells) of positions whose proofs found them, by the exact position:
    /// `play` needs one move that keeps a win, and the proof of the win has one.
    winning_cells: Mutex<HashMap<(u64, u64), u64>>,
}

/// Whether a search of `max_time` seconds may be long: it has no limit, nor has the work it
/// is part of. Only such searches' provers take huge pages ([`Prover::on_huge_pages`]).
fn is_long(max_time: Option<f64>) -> bool {
    max_time.is_none() && crate::search::time_left().is_none()
}

/// A prover of `table_bytes`, on huge pages if its searches are `long`.
pub(super) fn new_prover<const GRAVITY: bool>(
    game: &CubeLines<GRAVITY>,
    table_bytes: usize,
    long: bool,
) -> Prover<CubeLines<GRAVITY>> {
    let prover = Prover::new(game.clone(), table_bytes);
    if long { prover.on_huge_pages() } else { prover }
}

/// White's strategy as the solver follows it, with the provers that follow it.
struct Strategy<const GRAVITY: bool> {
    /// One prover a thread, made as threads need them, each following the strategy.
    provers: Vec<Prover<CubeLines<GRAVITY>>>,
    /// The strategy's positions, for the provers made later.
    positions: Vec<Position>,
    /// The positions it leads to, by key.
    moves: StrategyMoves,
    /// For the position each of its moves answers, by its key up to symmetry, the strategy's
    /// own position after the move.
    answers: HashMap<u128, Position>,
    table_bytes: usize,
}

impl<const GRAVITY: bool> Strategy<GRAVITY> {
    fn new(game: &CubeLines<GRAVITY>, table_bytes: usize) -> Strategy<GRAVITY> {
        let parse = |moves: &str| super::board::parse_qubic(moves).expect("the strategy's positions are legal");
        let mut answers = HashMap::new();
        let mut positions = Vec::new();
        let lines = super::strategy::QUBIC_STRATEGY.iter().chain(super::strategy::QUBIC_WEAK_OPENING);
        for moves in lines {
            let answered = moves.rsplit_once(' ').map_or("", |(before, _)| before);
            let position = parse(moves);
            // The first move listed for a position is the one the solver follows from it.
            answers.entry(game.canonical_key(&parse(answered))).or_insert(position);
            positions.push(position);
        }
        let moves = StrategyMoves::new(game, &positions);
        Strategy { provers: Vec::new(), positions, moves, answers, table_bytes }
    }

    /// How many provers the machine's free memory affords, at most half of it in tables (on a
    /// machine of many cores a prover a thread would take more than it has: 16 x 2 GB).
    fn affordable_provers(&self) -> usize {
        let made = self.provers.len();
        let free = crate::resources::available_memory().map_or(0, |bytes| bytes as usize);
        made + free / 2 / self.table_bytes
    }

    /// The provers of `threads` threads; those made now on huge pages if `long`.
    fn provers(
        &mut self,
        game: &CubeLines<GRAVITY>,
        threads: usize,
        long: bool,
    ) -> &mut [Prover<CubeLines<GRAVITY>>] {
        while self.provers.len() < threads {
            let mut prover = new_prover(game, self.table_bytes, long);
            prover.set_strategy(&self.positions);
            self.provers.push(prover);
        }
        &mut self.provers[..threads]
    }
}

impl<const GRAVITY: bool> Default for CubeSolver<GRAVITY> {
    fn default() -> Self {
        Self::new(EXACT_SECONDS, PROVER_TABLE_BYTES)
    }
}

impl<const GRAVITY: bool> CubeSolver<GRAVITY> {
    /// A solver that gives the exact search `exact_seconds` and the prover tables of
    /// `prover_bytes` bytes (allocated at the first proof).
    pub fn new(exact_seconds: f64, prover_bytes: usize) -> CubeSolver<GRAVITY> {
        let game = CubeLines::<GRAVITY>::new();
        CubeSolver {
            exact: SearcherPool::new(game.clone(), EXACT_TABLE_BYTES),
            game,
            provers: Mutex::new(Vec::new()),
            prover_bytes,
            sogo_provers: Mutex::new(Vec::new()),
            journal: None,
            sogo_threads: 1,
            exact_seconds,
            seeks_distances: false,
            known: Mutex::new(HashMap::new()),
            strategy: Mutex::new(None),
            winning_cells: Mutex::new(HashMap::new()),
        }
    }

    /// The same solver, its Sogo proofs recorded in `journal` and read back from it.
    /// Its provers' tables are larger then ([`CubeSolver::prover_bytes`]).
    pub fn with_journal(mut self, journal: Arc<ProofJournal>) -> CubeSolver<GRAVITY> {
        self.journal = Some(journal);
        self
    }

    /// Bytes of each prover's tables: with a journal, a thread's share of
    /// [`JOURNALED_TABLE_BYTES`], up to 2 GB (a prover made on a machine with less free memory
    /// takes half of it a thread). Asked when a prover is made, not before: the threads are
    /// known only once the command line has set them.
    pub fn prover_bytes(&self) -> usize {
        if self.journal.is_none() {
            return self.prover_bytes;
        }
        let threads = rayon::current_num_threads().max(1);
        self.prover_bytes.max((JOURNALED_TABLE_BYTES / threads).min(2 << 30))
    }

    /// Bytes of the tables of a Sogo prover made now: [`CubeSolver::prover_bytes`] within half
    /// the free memory a thread, never below the default's.
    fn new_prover_bytes(&self) -> usize {
        let threads = rayon::current_num_threads().max(1);
        let free = crate::resources::available_memory().map_or(usize::MAX, |bytes| bytes as usize);
        self.prover_bytes().min(free / 2 / threads).max(self.prover_bytes)
    }

    /// Has each Sogo proof run on `threads` threads that share its table: for a caller that
    /// asks about one position at a time (a batch or a server asks about several at once).
    pub fn prove_on_threads(&mut self, threads: usize) {
        self.sogo_threads = threads.max(1);
    }

    /// Has every search with a time limit whose outcome is proved go on for the exact distance
    /// with the time left: what a person who gives a limit asks for (`--max-time`). Without
    /// it, the exact search has [`EXACT_SECONDS`] only, and an early position's answer comes
    /// as soon as its outcome is proved.
    pub fn seek_distances(&mut self, seek: bool) {
        self.seeks_distances = seek;
    }

    /// The value of `position` for the side to move: exact where the exact search finishes in
    /// its share of the time, else a proved outcome; an error when `max_time` seconds (for both
    /// searches together) do not settle it.
    pub fn value(&self, position: &Position, max_time: Option<f64>) -> Result<Value, SearchError> {
        if let Some(value) = self.within_a_ply(position) {
            return Ok(value);
        }
        // Images share a value: a probe asks for every move, and at a symmetric position many
        // moves are images of one another.
        let key = self.game.canonical_key(position);
        if let Some(&value) = self.known.lock().unwrap_or_else(PoisonError::into_inner).get(&key) {
            return Ok(value);
        }
        let value = self.search(position, max_time)?;
        let mut known = self.known.lock().unwrap_or_else(PoisonError::into_inner);
        if known.len() >= REMEMBERED {
            known.clear();
        }
        known.insert(key, value);
        Ok(value)
    }

    fn search(&self, position: &Position, max_time: Option<f64>) -> Result<Value, SearchError> {
        let start = Instant::now();
        // What is left of this search's own limit and of the work it is part of (a whole
        // answer's limit): each step below has a part of it, none more than the whole.
        let left = || {
            let own = max_time.map(|t| (t - start.elapsed().as_secs_f64()).max(0.0));
            match (own, crate::search::time_left()) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            }
        };
        // A limit reached names the limit the caller gave, not the part of it a step had.
        let limit_given = |e| match e {
            SearchError::TimeLimit { seconds, nodes } => {
                SearchError::TimeLimit { seconds: max_time.unwrap_or(seconds), nodes }
            }
            stopped => stopped,
        };
        let exact_limit = left().map_or(self.exact_seconds, |t| t.min(self.exact_seconds));
        match self.exact.value(position, Some(exact_limit)) {
            Ok(value) => return Ok(value),
            Err(SearchError::TimeLimit { .. }) if left().is_none_or(|t| t > 0.0) => {}
            Err(e) => return Err(limit_given(e)),
        }
        let outcome = self.prove_outcome(position, left()).map_err(limit_given)?;
        // The distance, where it was asked for: the exact search again, with all the time left.
        // After the proof, not before: a proof of who wins is often a fraction of an exact
        // search, and a distance not found still leaves the proved outcome to answer with.
        if outcome == Value::Draw || !self.seeks_distances || max_time.is_none() {
            return Ok(outcome);
        }
        match self.exact.value(position, left()) {
            Ok(value) if value.word() == outcome.word() => Ok(value),
            Ok(value) => unreachable!("the exact search found {value} where the proof found {outcome}"),
            Err(SearchError::TimeLimit { .. }) => Ok(outcome),
            Err(e) => Err(e),
        }
    }

    /// Who wins `position` (whose game is not over), by proof: a win or loss of unknown
    /// distance, or a draw.
    fn prove_outcome(&self, position: &Position, max_time: Option<f64>) -> Result<Value, SearchError> {
        let start = Instant::now();
        // White's win first: it is the common outcome of early positions (Qubic's first player
        // wins), one proof settles it, and asking the same side about every move of a position
        // keeps the prover's tables from one to the next.
        let white_to_move = position.ply.is_multiple_of(2);
        for attacker_to_move in [white_to_move, !white_to_move] {
            // Both proofs share the limit: the second has what the first left.
            let left = max_time.map(|t| (t - start.elapsed().as_secs_f64()).max(0.0));
            if self.proves(position, attacker_to_move, left)? {
                return Ok(if attacker_to_move { Value::WinUnknown } else { Value::LossUnknown });
            }
        }
        Ok(Value::Draw)
    }

    /// Whether the side to move (`attacker_to_move`) or the other side wins `position`.
    fn proves(&self, position: &Position, attacker_to_move: bool, max_time: Option<f64>) -> Result<bool, SearchError> {
        let start = Instant::now();
        let white_attacks = attacker_to_move == position.ply.is_multiple_of(2);
        if !GRAVITY && white_attacks && self.proves_by_strategy(position, max_time)? {
            return Ok(true);
        }
        let max_time = max_time.map(|t| (t - start.elapsed().as_secs_f64()).max(0.0));
        if GRAVITY {
            // Under gravity a depth-first search of two outcomes settled who wins 5 to 40 times
            // sooner than the proof-number search on Sogo's middle game, and the prover that
            // knows the game (follow-up rules, dead stones) sooner again (docs/BENCHMARKS.md,
            // "Sogo by alpha-beta" and "Sogo's prover").
            let idle = || self.sogo_provers.lock().unwrap_or_else(PoisonError::into_inner);
            let mut prover = idle().pop().unwrap_or_else(|| {
                let prover = SogoProver::new(Knowledge::ALL, self.new_prover_bytes());
                match &self.journal {
                    // A long proof (`generate`): huge pages pay for their first touch.
                    Some(journal) => prover.with_journal(journal.clone()).on_huge_pages(),
                    None => prover,
                }
            });
            prover.set_time_limit(max_time);
            let mut helpers: Vec<SogoProver> = (1..self.sogo_threads).map(|_| prover.helper()).collect();
            let proof = prover.prove_together(&mut helpers, position, attacker_to_move);
            idle().push(prover);
            return Ok(proof?.attacker_wins);
        }
        let idle = || self.provers.lock().unwrap_or_else(PoisonError::into_inner);
        let mut prover = idle().pop().unwrap_or_else(|| new_prover(&self.game, self.prover_bytes, is_long(max_time)));
        prover.set_time_limit(max_time);
        let proof = prover.prove(position, attacker_to_move);
        if attacker_to_move && proof.as_ref().is_ok_and(|proof| proof.attacker_wins) {
            let cells = prover.proved_moves(position);
            let mut remembered = self.winning_cells.lock().unwrap_or_else(PoisonError::into_inner);
            if remembered.len() >= REMEMBERED {
                remembered.clear();
            }
            remembered.insert((position.current, position.mask), cells);
        }
        idle().push(prover);
        Ok(proof?.attacker_wins)
    }

    /// The key of `position` under the game's symmetries: images have one.
    pub fn canonical_key(&self, position: &Position) -> u128 {
        self.game.canonical_key(position)
    }

    /// The winning moves (cells) of `position` that the last proof of its win found, where one
    /// did (the prover's, not the strategy's, which proves positions after White's moves).
    pub fn proved_winning_cells(&self, position: &Position) -> u64 {
        let remembered = self.winning_cells.lock().unwrap_or_else(PoisonError::into_inner);
        remembered.get(&(position.current, position.mask)).copied().unwrap_or(0)
    }

    /// Whether White wins `position` by a proof that follows White's strategy; false where the
    /// position is off the strategy's way or the proof fails (which proves nothing).
    fn proves_by_strategy(&self, position: &Position, max_time: Option<f64>) -> Result<bool, SearchError> {
        // Another probe's proof may hold the strategy for minutes: wait for it only within
        // this search's own time and its work's.
        let mut held = lock_for_search(&self.strategy, Deadline::after(max_time))?;
        let strategy = held
            .get_or_insert_with(|| Strategy::new(&self.game, STRATEGY_TABLE_BYTES.max(self.prover_bytes)));
        if !strategy.moves.is_on_way(&self.game, position) {
            return Ok(false);
        }
        let deadline = max_time.map(|t| Instant::now() + Duration::from_secs_f64(t));
        let mut parts = Vec::new();
        self.strategy_parts(strategy, position, &mut HashSet::new(), &mut parts);
        let threads = rayon::current_num_threads().min(parts.len()).min(strategy.affordable_provers()).max(1);
        prove_parts(strategy.provers(&self.game, threads, is_long(max_time)), &parts, deadline)
    }

    /// The positions whose proofs prove White's win at `position` along the strategy: one per
    /// reply of Black's (up to symmetry) where the strategy goes on below, each searched on its
    /// own. One search of them all would take turns among a dozen proofs of millions of
    /// positions each, which evict one another from the tables: the empty cube was not proved
    /// in 15 minutes so, and is in a few this way.
    fn strategy_parts(
        &self,
        strategy: &Strategy<GRAVITY>,
        position: &Position,
        seen: &mut HashSet<u128>,
        parts: &mut Vec<Position>,
    ) {
        let key = self.game.canonical_key(position);
        if !seen.insert(key) {
            return;
        }
        if position.ply < strategy.moves.last_ply() && !position.is_over() {
            if position.ply.is_multiple_of(2) {
                // The strategy's own position, also where this one is only an image of the
                // position it answers: images have one value, but a proof of one can cost
                // several times that of another (`a11 b22 d41` 57 s, an image of it not in 220 s).
                if let Some(next) = strategy.answers.get(&key) {
                    return self.strategy_parts(strategy, next, seen, parts);
                }
            } else if strategy.moves.leads_to(&self.game, position) {
                let mut replies = super::board::playable(position.mask, GRAVITY);
                while replies != 0 {
                    let child = position.play(replies & replies.wrapping_neg());
                    replies &= replies - 1;
                    self.strategy_parts(strategy, &child, seen, parts);
                }
                return;
            }
        }
        parts.push(*position);
    }

    /// The outcome of `position` without a time limit: exact where the game ends within a ply
    /// (lost, full, or won with the next stone), else by proof, the distance unknown. The same
    /// on every machine, however the searches are scheduled.
    pub fn outcome(&self, position: &Position) -> Value {
        if let Some(value) = self.within_a_ply(position) {
            return value;
        }
        match self.prove_outcome(position, None) {
            Ok(value) => value,
            Err(e) => unreachable!("a proof without a time limit: {e}"),
        }
    }

    /// Whether `stored` is the outcome of `position` ([`CubeSolver::outcome`]), with only the
    /// proofs that it needs: one for a win or a loss, two for a draw.
    pub fn confirms_outcome(&self, position: &Position, stored: Value) -> bool {
        if let Some(value) = self.within_a_ply(position) {
            return value == stored;
        }
        let proves = |attacker_to_move| match self.proves(position, attacker_to_move, None) {
            Ok(wins) => wins,
            Err(e) => unreachable!("a proof without a time limit: {e}"),
        };
        match stored {
            Value::WinUnknown => proves(true),
            Value::LossUnknown => proves(false),
            Value::Draw => !proves(true) && !proves(false),
            _ => false,
        }
    }

    /// Drops the idle searchers' and provers' tables (gigabytes after a Qubic proof), keeping
    /// the values found: what a long-running server does once its searches end. A table in use
    /// is dropped by the next call after its search.
    pub fn release(&self) {
        self.exact.release();
        self.sogo_provers.lock().unwrap_or_else(PoisonError::into_inner).clear();
        self.provers.lock().unwrap_or_else(PoisonError::into_inner).clear();
        if let Ok(Some(strategy)) = self.strategy.try_lock().as_deref_mut() {
            strategy.provers.clear();
        }
    }

    /// The value of a position whose game ends within a ply: lost, full, or won with the next
    /// stone.
    pub(super) fn within_a_ply(&self, position: &Position) -> Option<Value> {
        if position.is_won_by_previous() {
            return Some(Value::Loss(0));
        }
        if position.ply == super::board::CELLS {
            return Some(Value::Draw);
        }
        let playable = super::board::playable(position.mask, GRAVITY);
        (super::board::completing(position.current) & playable != 0).then_some(Value::Win(1))
    }
}

/// Whether White wins every one of `parts`, each proved on its own, on empty tables (what an
/// earlier part stored cost many nodes, and the tables keep the costliest, which would leave a
/// later part the cheapest slots), by as many threads as `provers`, each taking the next part
/// left. A failed part proves nothing, and the threads stop taking parts.
fn prove_parts<const GRAVITY: bool>(
    provers: &mut [Prover<CubeLines<GRAVITY>>],
    parts: &[Position],
    deadline: Option<Instant>,
) -> Result<bool, SearchError> {
    prove_each(provers, parts, |prover, part| {
        prover.clear();
        prover.set_time_limit(deadline.map(|d| d.saturating_duration_since(Instant::now()).as_secs_f64()));
        prover.prove(part, part.ply.is_multiple_of(2)).map(|proof| proof.attacker_wins)
    })
}

/// Whether `prove` holds for every one of `parts`, by as many threads as `provers`, each
/// taking the next part left; the threads stop taking parts at the first that fails.
fn prove_each<const GRAVITY: bool>(
    provers: &mut [Prover<CubeLines<GRAVITY>>],
    parts: &[Position],
    prove: impl Fn(&mut Prover<CubeLines<GRAVITY>>, &Position) -> Result<bool, SearchError> + Sync,
) -> Result<bool, SearchError> {
    let next = AtomicUsize::new(0);
    let failed = AtomicBool::new(false);
    let prove_some = |prover: &mut Prover<CubeLines<GRAVITY>>| -> Result<bool, SearchError> {
        while !failed.load(Ordering::Relaxed) {
            let Some(part) = parts.get(next.fetch_add(1, Ordering::Relaxed)) else { break };
            let proved = prove(prover, part);
            if proved != Ok(true) {
                failed.store(true, Ordering::Relaxed);
                return proved;
            }
        }
        Ok(true)
    };
    // A failed part settles it (the strategy proves nothing here); else a part out of time.
    on_threads(provers, prove_some)
}

/// Runs `prove_some` with each of `provers` on a thread of its own: not the rayon pool's, since
/// a thread of the pool waiting here could take up another probe's work, which would wait for
/// the strategy this one holds. Each runs as part of this thread's work, so that its deadline
/// and stop hold there too. The outcome: a failure if any thread failed, else the first error,
/// else success.
pub(super) fn on_threads<const GRAVITY: bool>(
    provers: &mut [Prover<CubeLines<GRAVITY>>],
    prove_some: impl Fn(&mut Prover<CubeLines<GRAVITY>>) -> Result<bool, SearchError> + Sync,
) -> Result<bool, SearchError> {
    let work = Work::current();
    let prove_some = &prove_some;
    let outcomes: Vec<Result<bool, SearchError>> = std::thread::scope(|scope| {
        let threads: Vec<_> = provers
            .iter_mut()
            .map(|prover| {
                let work = work.clone();
                scope.spawn(move || Work::run(work.as_ref(), || prove_some(prover)))
            })
            .collect();
        threads.into_iter().map(|t| t.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))).collect()
    });
    if outcomes.contains(&Ok(false)) {
        return Ok(false);
    }
    outcomes.into_iter().find(Result::is_err).unwrap_or(Ok(true))
}
