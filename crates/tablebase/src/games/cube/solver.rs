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
use crate::search::{Deadline, LineGame, Prover, SearchError, SearcherPool, StrategyMoves, Work, lock_for_search};
use crate::value::Value;
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
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
    exact_seconds: f64,
    /// Whether a search whose outcome is proved within its limit goes on for the distance with
    /// the time left ([`CubeSolver::seek_distances`]).
    seeks_distances: bool,
    known: Mutex<HashMap<u128, Value>>,
    /// White's strategy ([`super::strategy`]; Qubic only), made at the first proof of a win
    /// of White's.
    strategy: Mutex<Option<Strategy<GRAVITY>>>,
}

/// Whether a search of `max_time` seconds may be long: it has no limit, nor has the work it
/// is part of. Only such searches' provers take huge pages ([`Prover::on_huge_pages`]).
fn is_long(max_time: Option<f64>) -> bool {
    max_time.is_none() && crate::search::time_left().is_none()
}

/// A prover of `table_bytes`, on huge pages if its searches are `long`.
fn new_prover<const GRAVITY: bool>(
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
            exact_seconds,
            seeks_distances: false,
            known: Mutex::new(HashMap::new()),
            strategy: Mutex::new(None),
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
        let exact_limit = left().map_or(self.exact_seconds, |t| t.min(self.exact_seconds));
        match self.exact.value(position, Some(exact_limit)) {
            Ok(value) => return Ok(value),
            Err(SearchError::TimeLimit { .. }) if left().is_none_or(|t| t > 0.0) => {}
            Err(e) => return Err(e),
        }
        let outcome = self.prove_outcome(position, left()).map_err(|e| match e {
            SearchError::TimeLimit { seconds, nodes } => {
                SearchError::TimeLimit { seconds: max_time.unwrap_or(seconds), nodes }
            }
            stopped => stopped,
        })?;
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
            let proof = prover.prove(position, attacker_to_move);
            idle().push(prover);
            return Ok(proof?.attacker_wins);
        }
        let idle = || self.provers.lock().unwrap_or_else(PoisonError::into_inner);
        let mut prover = idle().pop().unwrap_or_else(|| new_prover(&self.game, self.prover_bytes, is_long(max_time)));
        prover.set_time_limit(max_time);
        let proof = prover.prove(position, attacker_to_move);
        idle().push(prover);
        Ok(proof?.attacker_wins)
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
    fn within_a_ply(&self, position: &Position) -> Option<Value> {
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
fn on_threads<const GRAVITY: bool>(
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

/// How long each search of a part's first round runs in a proof by parts ([`prove_by_parts`]):
/// the prover alone, then each of the most promising moves alone. Each round doubles it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum RoundLength {
    /// Seconds: what a benchmark or a user sets.
    Seconds(f64),
    /// Nodes of search: the same cuts on every machine and run, which a test can count on.
    Nodes(u64),
}

impl RoundLength {
    /// The first round's length by default. Most of the replies to Qubic's corner are proved by
    /// the prover alone in 30 to 40 s; with 8 s a round, the restarts cost more than the moves
    /// they found (docs/BENCHMARKS.md).
    pub const DEFAULT: RoundLength = RoundLength::Seconds(40.0);

    /// The length of round `round` (0 the first): this one doubled `round` times.
    fn of_round(self, round: usize) -> RoundLength {
        let doublings = round.min(40) as u32;
        match self {
            RoundLength::Seconds(seconds) => RoundLength::Seconds(seconds * 2f64.powi(doublings as i32)),
            RoundLength::Nodes(nodes) => RoundLength::Nodes(nodes.saturating_mul(1u64 << doublings)),
        }
    }
}
/// The attacker's moves a round of a part tries alone, the most promising first.
const PART_MOVES_TRIED: usize = 3;
/// Searches in a round of a part: the prover alone, then each move tried.
const PART_ROUND: usize = 1 + PART_MOVES_TRIED;
/// Rounds a part may take in the first pass over the first moves; each later pass allows one
/// more. Three rounds (40, 80 and 160 s a search) prove every part of Qubic's corner, so the
/// empty cube is proved in the first pass; a first move with a part that resists them waits
/// while the next ones are tried (`b11 a11`: White's b22 was held 19 minutes by Black's b33).
const PART_ROUNDS_FIRST_PASS: usize = 3;

/// Told of each search of a part of a proof by parts ([`prove_by_parts`]) as it ends: the part
/// (the cells played from the position proved, in order), the part's move searched alone
/// (`None`: the part itself, by the prover alone), the outcome (`None`: out of the round's
/// time) and the seconds.
pub type PartReport<'a> = dyn Fn(&[u32], Option<u32>, Option<bool>, f64) + Sync + 'a;

/// Told at the end of each pass of a proof by parts ([`prove_by_parts`]) that leaves it open,
/// and once more when its time runs out: the pass (1 the first), the first moves not tried yet,
/// and the moves tried and still open, each followed by the open moves of its split replies.
pub type PassReport<'a> = dyn Fn(usize, usize, &[OpenMove]) + Sync + 'a;

/// A move of a proof by parts not settled yet ([`PassReport`]): some of its replies (its
/// parts) not proved, none shown lost.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpenMove {
    /// The cells played from the position proved, in order, the move last.
    pub path: Vec<u32>,
    /// Its replies, up to symmetry.
    pub parts: usize,
    /// Of those, the ones proved won.
    pub proved: usize,
    /// The replies not proved.
    pub open: Vec<OpenReply>,
}

/// A reply not proved yet to an open move ([`OpenMove`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpenReply {
    /// Its cell.
    pub cell: u32,
    /// Where the reply was split into a proof by parts of its own: how many of its moves are
    /// not tried yet (its moves tried and still open follow in the report).
    pub split_untried: Option<usize>,
}

/// What a proof by parts found, and what it took.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PartsProof {
    /// Whether the side to move wins.
    pub wins: bool,
    /// The first move whose every reply was proved won (a cell), if the side to move wins.
    pub first_move: Option<u32>,
    /// The first moves tried (up to symmetry).
    pub first_moves_tried: usize,
    /// The replies, up to symmetry, to the first move proved, or else to the last one tried.
    pub parts: usize,
    /// Passes over the first moves: the first allows each part
    /// `PART_ROUNDS_FIRST_PASS` rounds, each later one a round more.
    pub passes: usize,
    /// Searches of parts that ended, after every first move tried.
    pub searches: usize,
    /// Of those, the searches cut short by their round's length.
    pub cut_short: usize,
    /// Times a thread, finding every part taken, joined a part another thread was searching.
    pub joins: usize,
    /// Searches stopped because another thread proved their part or failed the proof.
    pub stopped: usize,
    /// Parts split into proofs by parts of their own ([`PartsSettings::split_depth`]).
    pub splits: usize,
}

/// How a proof by parts ([`prove_by_parts`]) searches.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PartsSettings {
    /// Threads, each with a prover of its own.
    pub threads: usize,
    /// Bytes of each prover's tables.
    pub table_bytes: usize,
    /// Seconds for the whole proof (`None`: no limit).
    pub max_time: Option<f64>,
    /// How long each search of a part's first round runs.
    pub first_round: RoundLength,
    /// Levels of splitting: a part still open after a pass, where at most `split_open_parts`
    /// of its first move's parts are, becomes a proof by parts of its own (its moves, each with
    /// every reply a part), and so on down to this many levels; 0 never.
    pub split_depth: usize,
    /// Parts of one first move still open after a pass, at most, for them to be split
    /// ([`SPLIT_OPEN_PARTS`] by default): where more are open the first move is weak, not held
    /// up by a few hard replies.
    pub split_open_parts: usize,
}

impl Default for PartsSettings {
    /// Two threads with tables of 1 GB each, no time limit, the default round length, no
    /// splitting.
    fn default() -> PartsSettings {
        PartsSettings {
            threads: 2,
            table_bytes: 1 << 30,
            max_time: None,
            first_round: RoundLength::DEFAULT,
            split_depth: 0,
            split_open_parts: SPLIT_OPEN_PARTS,
        }
    }
}

/// Parts of one first move still open after a pass, at most, for them to be split by default
/// ([`PartsSettings::split_open_parts`]): where more are open the first move is weak, not held
/// up by one hard reply (`b11 a44`: 36 of White's a11's 37 parts proved, Black's d11 open).
pub const SPLIT_OPEN_PARTS: usize = 2;

/// New moves a pass of a split part leaves open, and of the root where parts are split: the
/// most promising first, one more each pass, so that a split part costs its first move's pass
/// about one move's parts, not all its moves'. A new move shown not to win in its first pass
/// does not count: the next is tried in the same pass (`b11 c32 b22 b33`: White's a11 and c22
/// each refuted in under half a minute, then a whole pass of the root before the next move).
const SPLIT_NEW_MOVES_PER_PASS: usize = 1;

/// Rounds a part of a split part may take in its first pass (one more each later pass): one,
/// not the root's three, since a part that resists a round is split again, and that costs less
/// than longer searches of it whole (`b11 a44 a11 d11 b33 b22`: proved by parts in 62 s, where
/// White's best move alone was cut at 40 and 80 s).
const SPLIT_ROUNDS_FIRST_PASS: usize = 1;

/// Whether the side to move wins `position` (Qubic's empty cube, say) by search alone, in
/// parts: its moves up to symmetry are tried in order of promise, and after each, every reply
/// of the other side (up to symmetry) is a part, proved by `settings.threads` provers with
/// tables of `settings.table_bytes`. A part is searched by rounds: the prover alone for a
/// while (`settings.first_round`), then each of the side to move's most promising moves alone
/// for as long, then the same again with twice the time. A single search of such a position
/// takes turns among its parts, which evict one another from the tables, and in a part it can
/// sink minutes into a move that does not win before it tries the one that does (`a11 b21`:
/// not in 300 s alone, 11 s with White's move a14 given); rounds of doubling time bound what
/// a wrong move costs. Each thread takes the next part no thread has taken; when none is left
/// it joins the open part with the fewest threads, taking the next search of its rounds, so
/// that the last, hardest part is not left to one thread.
///
/// The first moves are searched in passes, so that one whose part resists does not hold up
/// the rest: in the first pass a part gets three rounds, and a first move with a part still
/// open then waits while the next is tried; each later pass goes back to the first moves
/// still open, in order, with one round more. A first move with a part shown lost is dropped.
/// With `settings.split_depth`, a pass tries new first moves after those still open until one
/// of them stays open, and a first move held up by at most `settings.split_open_parts` parts
/// (two by default) has them split: each
/// becomes a proof by parts of its own, one pass of it in each pass of the first move, its
/// moves tried the same way and its parts given one round in its first pass; a split part is
/// won when one of its moves has every reply proved, lost when every move has a reply shown
/// lost. No knowledge of the game
/// beyond the prover's: no strategy is followed.
///
/// `report` is told of each search of a part as it ends: the part (the cells played to it, in
/// order), the move searched alone (`None`: the part itself), the outcome (`None`: out of the
/// round's time) and the seconds. `report_pass` is told what is open after each pass that
/// leaves the proof open, and when the time runs out.
pub fn prove_by_parts<const GRAVITY: bool>(
    position: &Position,
    settings: &PartsSettings,
    report: &PartReport<'_>,
    report_pass: &PassReport<'_>,
) -> Result<PartsProof, SearchError> {
    let game = CubeLines::<GRAVITY>::new();
    let deadline = settings.max_time.map(|t| Instant::now() + Duration::from_secs_f64(t));
    let mut provers: Vec<Prover<CubeLines<GRAVITY>>> =
        (0..settings.threads.max(1)).map(|_| new_prover(&game, settings.table_bytes, true)).collect();
    let counts = SearchCounts::default();
    let context = PassContext {
        game: &game,
        deadline,
        max_time: settings.max_time,
        first_round: settings.first_round,
        split_open_parts: settings.split_open_parts,
        counts: &counts,
        report,
    };
    // Split parts deepen each pass, so the first moves open are worth coming back to before
    // weaker ones are tried (`b11 a44`: after White's a11, the first pass went on to d11 and
    // the rest, ten minutes a move).
    let new_per_pass = (settings.split_depth > 0).then_some(SPLIT_NEW_MOVES_PER_PASS);
    let mut root = Node::new(&game, position, Vec::new(), PART_ROUNDS_FIRST_PASS, new_per_pass);
    let mut proof = PartsProof::default();
    loop {
        proof.passes += 1;
        let outcome = root.pass(&context, &mut provers, settings.split_depth);
        proof.first_moves_tried = root.tried;
        proof.parts = root.parts;
        let first_move = match outcome {
            Ok(Settled::Won) => root.won,
            Ok(Settled::Lost) => None,
            Ok(Settled::Open) => {
                report_pass(proof.passes, root.untried.len(), &root.open_moves());
                continue;
            }
            Err(error) => {
                if matches!(error, SearchError::TimeLimit { .. }) {
                    report_pass(proof.passes, root.untried.len(), &root.open_moves());
                }
                return Err(error);
            }
        };
        return Ok(PartsProof {
            wins: first_move.is_some(),
            first_move,
            searches: counts.searches.load(Ordering::Relaxed),
            cut_short: counts.cut_short.load(Ordering::Relaxed),
            joins: counts.joins.load(Ordering::Relaxed),
            stopped: counts.stopped.load(Ordering::Relaxed),
            splits: counts.splits.load(Ordering::Relaxed),
            ..proof
        });
    }
}

/// What every pass of a proof by parts shares: the game, the time, and where it reports.
struct PassContext<'a, const GRAVITY: bool> {
    game: &'a CubeLines<GRAVITY>,
    deadline: Option<Instant>,
    max_time: Option<f64>,
    first_round: RoundLength,
    /// [`PartsSettings::split_open_parts`].
    split_open_parts: usize,
    counts: &'a SearchCounts,
    report: &'a PartReport<'a>,
}

/// A position whose side to move is to be proved to win by parts: the root of a proof by
/// parts, or a part split. Its moves are tried in order of promise, each with every reply a
/// part, over passes.
struct Node {
    /// The cells played from the position proved to this one, in order.
    path: Vec<u32>,
    /// Moves not tried yet, with the positions after them, the most promising first.
    untried: std::vec::IntoIter<(u32, Position)>,
    /// Moves tried.
    tried: usize,
    /// Moves tried and not settled, in order of promise.
    unsettled: Vec<TriedMove>,
    /// The replies to the move proved, or else to the last one tried.
    parts: usize,
    /// The move whose every reply was proved, once one is.
    won: Option<u32>,
    /// Rounds a move's parts may take in the pass that tries it; each later pass allows one
    /// more.
    first_rounds: usize,
    /// New moves a pass may leave open (`None`: all of them are tried); a new move shown not
    /// to win in its first pass does not count.
    new_per_pass: Option<usize>,
}

/// A move of a [`Node`] tried and not settled.
struct TriedMove {
    cell: u32,
    /// The replies to it, each a part.
    parts: Vec<Part>,
    /// Rounds its parts may take in its next pass. Counted by the move, not the node: a move
    /// first tried in a later pass starts at the node's first rounds, not at the rounds the
    /// moves before it have reached (`b11 c32`: White's a11, tried in the second pass, got four
    /// rounds, up to 320 s a search, while the split reply that held up the first move waited).
    rounds: usize,
}

impl Node {
    fn new<const GRAVITY: bool>(
        game: &CubeLines<GRAVITY>,
        position: &Position,
        path: Vec<u32>,
        first_rounds: usize,
        new_per_pass: Option<usize>,
    ) -> Node {
        Node {
            path,
            untried: moves_by_promise(game, position).into_iter(),
            tried: 0,
            unsettled: Vec::new(),
            parts: 0,
            won: None,
            first_rounds,
            new_per_pass,
        }
    }

    /// One pass over the moves: those still open, in order, each with its parts searched for
    /// up to its rounds, then new ones until as many stay open as `self.new_per_pass` allows
    /// or one is proved. Won when a move's every reply is proved (the move in `self.won`), lost
    /// when every move has a reply shown lost; parts held open split down to `split_depth`
    /// levels.
    fn pass<const GRAVITY: bool>(
        &mut self,
        context: &PassContext<'_, GRAVITY>,
        provers: &mut [Prover<CubeLines<GRAVITY>>],
        split_depth: usize,
    ) -> Result<Settled, SearchError> {
        let mut index = 0;
        // New moves tried in this pass and still open after it.
        let mut new_open = 0;
        loop {
            if index == self.unsettled.len() {
                if self.new_per_pass.is_some_and(|most| new_open >= most) {
                    break;
                }
                let Some((cell, child)) = self.untried.next() else { break };
                self.tried += 1;
                if child.is_won_by_previous() {
                    self.parts = 0;
                    self.won = Some(cell);
                    return Ok(Settled::Won);
                }
                let replies = moves_by_promise(context.game, &child);
                self.parts = replies.len();
                if replies.is_empty() {
                    continue; // a full cube: a draw
                }
                let parts = replies.iter().map(|&(reply_cell, reply)| {
                    Part::new(context.game, &reply, [self.path.as_slice(), &[cell, reply_cell]].concat())
                });
                self.unsettled.push(TriedMove { cell, parts: parts.collect(), rounds: self.first_rounds });
            }
            let tried = &mut self.unsettled[index];
            let search = PartSearch { parts: &tried.parts, rounds: tried.rounds, context };
            let mut settled = search.settle(provers)?;
            if matches!(settled, Settled::Open) && split_depth > 0 {
                settled = split_open_parts(&mut tried.parts, context, provers, split_depth - 1)?;
            }
            match settled {
                Settled::Won => {
                    self.parts = tried.parts.len();
                    self.won = Some(tried.cell);
                    return Ok(Settled::Won);
                }
                Settled::Lost => _ = self.unsettled.remove(index),
                Settled::Open => {
                    new_open += usize::from(tried.rounds == self.first_rounds);
                    tried.rounds += 1;
                    index += 1;
                }
            }
        }
        let lost = self.unsettled.is_empty() && self.untried.len() == 0;
        Ok(if lost { Settled::Lost } else { Settled::Open })
    }

    /// Its moves tried and not settled, each followed by the open moves of its split replies
    /// ([`PassReport`]).
    fn open_moves(&self) -> Vec<OpenMove> {
        let mut open = Vec::new();
        self.collect_open_moves(&mut open);
        open
    }

    /// Appends [`Node::open_moves`] to `open`, depth first, so that a split reply's moves come
    /// right after the move it answers.
    fn collect_open_moves(&self, open: &mut Vec<OpenMove>) {
        for TriedMove { cell, parts, .. } in &self.unsettled {
            let unproved: Vec<&Part> = parts.iter().filter(|part| !part.is_proved()).collect();
            let reply = |part: &&Part| OpenReply {
                cell: *part.path.last().expect("a part's path ends with its reply"),
                split_untried: part.split.as_ref().map(|node| node.untried.len()),
            };
            open.push(OpenMove {
                path: [self.path.as_slice(), &[*cell]].concat(),
                parts: parts.len(),
                proved: parts.len() - unproved.len(),
                open: unproved.iter().map(reply).collect(),
            });
            for node in unproved.iter().filter_map(|part| part.split.as_deref()) {
                node.collect_open_moves(open);
            }
        }
    }
}

/// The parts of one move still open after its pass, split where at most
/// [`PartsSettings::split_open_parts`] are: each a node of its own, given one pass (with
/// `split_depth` levels left below it).
/// Won when every part is proved, lost when a split part is.
fn split_open_parts<const GRAVITY: bool>(
    parts: &mut [Part],
    context: &PassContext<'_, GRAVITY>,
    provers: &mut [Prover<CubeLines<GRAVITY>>],
    split_depth: usize,
) -> Result<Settled, SearchError> {
    if parts.iter().filter(|part| !part.is_proved()).count() > context.split_open_parts {
        return Ok(Settled::Open);
    }
    for part in parts.iter_mut().filter(|part| !part.is_proved()) {
        let (position, path) = (part.position, &part.path);
        let node = part.split.get_or_insert_with(|| {
            context.counts.splits.fetch_add(1, Ordering::Relaxed);
            let rounds = SPLIT_ROUNDS_FIRST_PASS;
            Box::new(Node::new(context.game, &position, path.clone(), rounds, Some(SPLIT_NEW_MOVES_PER_PASS)))
        });
        match node.pass(context, provers, split_depth)? {
            Settled::Won => part.proved.store(true, Ordering::Relaxed),
            Settled::Lost => return Ok(Settled::Lost),
            Settled::Open => {}
        }
    }
    let proved = parts.iter().all(Part::is_proved);
    Ok(if proved { Settled::Won } else { Settled::Open })
}

/// What a proof by parts's searches did, over all its first moves.
#[derive(Default)]
struct SearchCounts {
    searches: AtomicUsize,
    cut_short: AtomicUsize,
    joins: AtomicUsize,
    stopped: AtomicUsize,
    splits: AtomicUsize,
}

/// A part of a proof by parts ([`prove_by_parts`]): a position whose side to move must be
/// proved to win, with what the threads searching it share.
struct Part {
    position: Position,
    /// The cells played from the position proved to this one, in order.
    path: Vec<u32>,
    /// The side to move's moves (cells), with the positions after them, the most promising
    /// first.
    moves: Vec<(u32, Position)>,
    /// Moves shown not to win, a bit each by their index in `moves`.
    refuted: AtomicU64,
    /// The next of its searches to be taken: search `i` is round `i / PART_ROUND`'s
    /// `i % PART_ROUND`th.
    next_search: AtomicUsize,
    /// Threads searching it now.
    searchers: AtomicUsize,
    /// Proved won.
    proved: AtomicBool,
    /// Its searches' work, stopped when it is proved or the proof fails, so that the searches
    /// still running on it end.
    work: Arc<Work>,
    /// The proof by parts it was split into, if it was: its own searches then end.
    split: Option<Box<Node>>,
}

impl Part {
    fn new<const GRAVITY: bool>(game: &CubeLines<GRAVITY>, position: &Position, path: Vec<u32>) -> Part {
        Part {
            position: *position,
            path,
            moves: moves_by_promise(game, position),
            refuted: AtomicU64::new(0),
            next_search: AtomicUsize::new(0),
            searchers: AtomicUsize::new(0),
            proved: AtomicBool::new(false),
            work: Work::new(None),
            split: None,
        }
    }

    fn is_proved(&self) -> bool {
        self.proved.load(Ordering::Relaxed)
    }

    /// Whether it is to be searched: neither proved, nor split, nor through `rounds` rounds of
    /// searches.
    fn is_open(&self, rounds: usize) -> bool {
        !self.is_proved() && self.split.is_none() && self.next_search.load(Ordering::Relaxed) < rounds * PART_ROUND
    }

    /// The `nth` move not yet refuted (0 the first), `None` when fewer are left.
    fn unrefuted(&self, nth: usize) -> Option<usize> {
        let refuted = self.refuted.load(Ordering::Relaxed);
        (0..self.moves.len()).filter(|&i| refuted >> i & 1 == 0).nth(nth)
    }
}

/// The parts after one first move, searched by a proof by parts's threads in one pass.
struct PartSearch<'a, const GRAVITY: bool> {
    parts: &'a [Part],
    /// Rounds a part may take in this pass.
    rounds: usize,
    context: &'a PassContext<'a, GRAVITY>,
}

/// What a pass over one first move's parts found.
#[derive(Debug)]
enum Settled {
    /// Every part proved won.
    Won,
    /// A part shown not won: the first move does not win.
    Lost,
    /// Neither, within the pass's rounds.
    Open,
}

impl<const GRAVITY: bool> PartSearch<'_, GRAVITY> {
    /// Whether the side to move wins every part, by as many threads as `provers`, each part
    /// searched in at most `self.rounds` rounds.
    fn settle(&self, provers: &mut [Prover<CubeLines<GRAVITY>>]) -> Result<Settled, SearchError> {
        if self.parts.iter().any(|part| part.position.is_won_by_previous()) {
            return Ok(Settled::Lost);
        }
        let next_part = AtomicUsize::new(0);
        let failed = AtomicBool::new(false);
        let fail = || {
            failed.store(true, Ordering::Relaxed);
            self.parts.iter().for_each(|part| part.work.stop());
        };
        let prove_some = |prover: &mut Prover<CubeLines<GRAVITY>>| -> Result<bool, SearchError> {
            // The part whose first-round searches this prover's tables hold, if any.
            let mut holds = None;
            while !failed.load(Ordering::Relaxed) {
                let taken = next_part.fetch_add(1, Ordering::Relaxed);
                let index = if taken < self.parts.len() {
                    if !self.parts[taken].is_open(self.rounds) {
                        continue;
                    }
                    taken
                } else {
                    // Every part taken: join the open one with the fewest threads.
                    let open = (0..self.parts.len()).filter(|&i| self.parts[i].is_open(self.rounds));
                    match open.min_by_key(|&i| self.parts[i].searchers.load(Ordering::Relaxed)) {
                        Some(index) => {
                            if self.parts[index].searchers.load(Ordering::Relaxed) > 0 {
                                self.context.counts.joins.fetch_add(1, Ordering::Relaxed);
                            }
                            index
                        }
                        None => break,
                    }
                };
                let part = &self.parts[index];
                part.searchers.fetch_add(1, Ordering::Relaxed);
                let outcome = Work::run(Some(&part.work), || self.search_part(prover, index, &mut holds));
                part.searchers.fetch_sub(1, Ordering::Relaxed);
                match outcome {
                    Ok(Some(true)) => {
                        part.proved.store(true, Ordering::Relaxed);
                        part.work.stop();
                    }
                    Ok(Some(false)) => {
                        fail();
                        return Ok(false);
                    }
                    // Through its rounds for this pass.
                    Ok(None) => {}
                    // Another thread proved the part, or failed the proof.
                    Err(SearchError::Stopped)
                        if part.proved.load(Ordering::Relaxed) || failed.load(Ordering::Relaxed) =>
                    {
                        self.context.counts.stopped.fetch_add(1, Ordering::Relaxed);
                    }
                    Err(e) => {
                        fail();
                        return Err(e);
                    }
                }
            }
            // Stopped by another thread's failure or error, this one has none to report: that
            // thread reports it (a `false` here would turn the other's time limit into a lost
            // part, and the first move would be dropped as not winning).
            Ok(true)
        };
        // Each part's work is within this thread's, which its threads run as part of.
        if !on_threads(provers, prove_some)? {
            return Ok(Settled::Lost);
        }
        let proved = self.parts.iter().all(|part| part.proved.load(Ordering::Relaxed));
        Ok(if proved { Settled::Won } else { Settled::Open })
    }

    /// Whether the side to move wins part `index`, by taking the next of its searches until
    /// one settles it (`None`: none did within the pass's rounds). `holds` is the part whose
    /// first-round searches `prover`'s tables hold: the searches of a part's first round share
    /// the tables (a move's search goes on from what the prover alone found below it), later
    /// ones start empty (what earlier rounds stored then misleads more than it saves:
    /// `a11 c22 d11`, 88 s on empty tables, not proved in 160 s after the rounds before;
    /// docs/BENCHMARKS.md).
    fn search_part(
        &self,
        prover: &mut Prover<CubeLines<GRAVITY>>,
        index: usize,
        holds: &mut Option<usize>,
    ) -> Result<Option<bool>, SearchError> {
        let part = &self.parts[index];
        if part.moves.iter().any(|(_, child)| child.is_won_by_previous()) {
            return Ok(Some(true));
        }
        loop {
            if part.refuted.load(Ordering::Relaxed).count_ones() as usize == part.moves.len() {
                return Ok(Some(false));
            }
            let taken = part.next_search.load(Ordering::Relaxed);
            if taken >= self.rounds * PART_ROUND {
                return Ok(None);
            }
            if part.next_search.compare_exchange(taken, taken + 1, Ordering::Relaxed, Ordering::Relaxed).is_err() {
                continue; // another thread took it
            }
            let (round, slot) = (taken / PART_ROUND, taken % PART_ROUND);
            let length = self.context.first_round.of_round(round);
            let (searched, attacker_to_move, move_index) = match slot {
                0 => (part.position, true, None),
                nth => match part.unrefuted(nth - 1) {
                    Some(i) => (part.moves[i].1, false, Some(i)),
                    None => continue,
                },
            };
            if round > 0 || *holds != Some(index) {
                prover.clear();
            }
            *holds = (round == 0).then_some(index);
            let left = self.context.deadline.map(|d| d.saturating_duration_since(Instant::now()).as_secs_f64());
            let start = Instant::now();
            let proof = match length {
                RoundLength::Seconds(seconds) => {
                    prover.set_time_limit(Some(left.map_or(seconds, |left| left.min(seconds))));
                    prover.prove(&searched, attacker_to_move)
                }
                RoundLength::Nodes(nodes) => {
                    prover.set_time_limit(left);
                    prover.prove_within(&searched, attacker_to_move, nodes)
                }
            };
            let outcome = proof.as_ref().ok().map(|proof| proof.attacker_wins);
            if !matches!(proof, Err(SearchError::Stopped)) {
                self.context.counts.searches.fetch_add(1, Ordering::Relaxed);
                self.context.counts.cut_short.fetch_add(usize::from(outcome.is_none()), Ordering::Relaxed);
                let alone = move_index.map(|i| part.moves[i].0);
                (self.context.report)(&part.path, alone, outcome, start.elapsed().as_secs_f64());
            }
            match proof {
                Ok(proof) if proof.attacker_wins => return Ok(Some(true)),
                Ok(_) => match move_index {
                    None => return Ok(Some(false)),
                    Some(i) => _ = part.refuted.fetch_or(1 << i, Ordering::Relaxed),
                },
                Err(SearchError::TimeLimit { nodes, .. }) if self.context.deadline.is_some_and(|d| Instant::now() >= d) => {
                    return Err(SearchError::TimeLimit { seconds: self.context.max_time.unwrap_or(0.0), nodes });
                }
                Err(SearchError::TimeLimit { .. }) => {}
                Err(e) => return Err(e),
            }
        }
    }
}

/// The positions after each move of the side to move, one per class of images under the
/// game's symmetries, the most promising move first ([`LineGame::promise`]), with its cell.
fn moves_by_promise<const GRAVITY: bool>(game: &CubeLines<GRAVITY>, position: &Position) -> Vec<(u32, Position)> {
    let theirs = position.mask ^ position.current;
    let mut seen = HashSet::new();
    let mut moves = Vec::new();
    let mut cells = super::board::playable(position.mask, GRAVITY);
    while cells != 0 {
        let cell = cells & cells.wrapping_neg();
        cells &= cells - 1;
        let child = position.play(cell);
        if seen.insert(game.canonical_key(&child)) {
            moves.push((std::cmp::Reverse(game.promise(position.current, theirs, cell)), cell.trailing_zeros(), child));
        }
    }
    moves.sort_by_key(|&(promise, cell, _)| (promise, cell));
    moves.into_iter().map(|(_, cell, child)| (cell, child)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::cube::board::parse_qubic;

    /// A part the side to move wins, but whose searches, unbounded, run far past the seconds a
    /// test allows: the empty cube.
    fn endless() -> Position {
        parse_qubic("").unwrap()
    }

    /// The searches of one pass over `positions` as parts (the path of each its index), by two
    /// threads, each search unbounded but the whole within `seconds`, each told to `report` as
    /// it ends, with what they counted and each part's searches taken.
    fn settle(
        positions: &[Position],
        seconds: f64,
        report: &PartReport<'_>,
    ) -> (Result<Settled, SearchError>, SearchCounts, Vec<usize>) {
        let game = CubeLines::<false>::new();
        let parts: Vec<Part> =
            positions.iter().zip(0..).map(|(position, i)| Part::new(&game, position, vec![i])).collect();
        let counts = SearchCounts::default();
        let context = PassContext {
            game: &game,
            deadline: Some(Instant::now() + Duration::from_secs_f64(seconds)),
            max_time: Some(seconds),
            first_round: RoundLength::Nodes(u64::MAX),
            split_open_parts: SPLIT_OPEN_PARTS,
            counts: &counts,
            report,
        };
        let search = PartSearch { parts: &parts, rounds: 1, context: &context };
        let mut provers: Vec<_> = (0..2).map(|_| Prover::new(game.clone(), 1 << 22)).collect();
        let settled = search.settle(&mut provers);
        let taken = parts.iter().map(|part| part.next_search.load(Ordering::Relaxed)).collect();
        (settled, counts, taken)
    }

    /// A pass's context without a time limit, each search of a first round 64 nodes (too few
    /// to settle a part of the early cube), nothing reported.
    fn searches_of_64_nodes<'a>(
        game: &'a CubeLines<false>,
        counts: &'a SearchCounts,
        split_open_parts: usize,
    ) -> PassContext<'a, false> {
        fn no_report(_: &[u32], _: Option<u32>, _: Option<bool>, _: f64) {}
        PassContext {
            game,
            deadline: None,
            max_time: None,
            first_round: RoundLength::Nodes(64),
            split_open_parts,
            counts,
            report: &no_report,
        }
    }

    /// A move's open parts are split where no more of them are open than the settings allow:
    /// after `a11 d44`, White's first move leaves most of its 60-odd parts open in searches of
    /// 64 nodes, which two allowed leaves whole and 63 splits.
    #[test]
    fn parts_split_where_no_more_than_the_settings_open_parts_are() {
        let game = CubeLines::<false>::new();
        for (split_open_parts, splits) in [(2, false), (63, true)] {
            let counts = SearchCounts::default();
            let context = searches_of_64_nodes(&game, &counts, split_open_parts);
            let mut provers: Vec<_> = (0..2).map(|_| Prover::new(game.clone(), 1 << 22)).collect();
            let mut node = Node::new(&game, &parse_qubic("a11 d44").unwrap(), Vec::new(), 1, Some(1));
            assert!(matches!(node.pass(&context, &mut provers, 1), Ok(Settled::Open)));
            let open = node.unsettled[0].parts.iter().filter(|part| !part.is_proved()).count();
            assert!(open > 2, "{open} parts open");
            assert_eq!(counts.splits.load(Ordering::Relaxed) > 0, splits, "{split_open_parts} open parts allowed");
        }
    }

    /// A move first tried in a later pass gets the node's first rounds, one more each pass
    /// after, whatever rounds the moves tried before it have reached: here one new move a
    /// pass, one round at first, each search 64 nodes, so that no part of the early cube
    /// settles.
    #[test]
    fn a_move_tried_in_a_later_pass_starts_at_the_first_rounds() {
        let game = CubeLines::<false>::new();
        let counts = SearchCounts::default();
        let context = searches_of_64_nodes(&game, &counts, SPLIT_OPEN_PARTS);
        let mut provers: Vec<_> = (0..2).map(|_| Prover::new(game.clone(), 1 << 22)).collect();
        let mut node = Node::new(&game, &parse_qubic("a11 d44").unwrap(), Vec::new(), 1, Some(1));
        for _ in 0..3 {
            assert!(matches!(node.pass(&context, &mut provers, 0), Ok(Settled::Open)));
        }
        let rounds: Vec<usize> = node.unsettled.iter().map(|tried| tried.rounds).collect();
        assert_eq!(rounds, [4, 3, 2], "rounds of the next pass, by the pass each move was tried in");
        for tried in &node.unsettled {
            for part in &tried.parts {
                let searches = part.next_search.load(Ordering::Relaxed);
                assert!(searches <= (tried.rounds - 1) * PART_ROUND, "{searches} searches of a part of move {}", tried.cell);
            }
        }
    }

    /// The thread that takes the endless part is still in its first search when the other shows
    /// its part lost (White to move, Black's a1- and -31 lines each a stone short), and that
    /// stops it: the pass ends lost, long before its time.
    #[test]
    fn a_part_shown_lost_stops_the_search_of_another() {
        let lost = parse_qubic("d44 a11 c43 a12 b24 a13 d12 b31 c14 c31 d23 d31").unwrap();
        let start = Instant::now();
        let (settled, counts, _) = settle(&[endless(), lost], 60.0, &|_, _, _, _| {});
        assert!(matches!(settled, Ok(Settled::Lost)), "{:?}", settled.err());
        assert_eq!(counts.stopped.load(Ordering::Relaxed), 1);
        assert!(start.elapsed() < Duration::from_secs(50), "the endless search ran to the deadline");
    }

    /// The thread whose part is won at once (White's a14 completes a line) finds every part
    /// taken and joins the endless one, taking its second search, until the pass's time is up.
    #[test]
    fn a_thread_with_no_part_left_joins_an_open_one() {
        let won = parse_qubic("a11 d44 a12 c43 a13 b42").unwrap();
        let (settled, counts, taken) = settle(&[endless(), won], 2.0, &|_, _, _, _| {});
        assert!(matches!(settled, Err(SearchError::TimeLimit { .. })), "{settled:?}");
        assert_eq!(taken[0], 2, "searches of the endless part");
        assert!(counts.joins.load(Ordering::Relaxed) <= 1);
    }

    /// A pass out of time is out of time, not lost, whichever thread it stops first: here the
    /// endless part's search runs out while the other thread, its part proved (White's a11 makes
    /// two lines of three), is held in the report of that proof until the failure is in; that
    /// thread then has no failure of its own to report. (Its `false` once made the pass lost, so
    /// a proof by parts out of time dropped the first move as not winning.)
    #[test]
    fn a_pass_out_of_time_is_not_lost() {
        let won_in_three = parse_qubic("a12 d44 a13 c42 b11 b23 c11 d32").unwrap();
        let seconds = 1.0;
        let deadline = Instant::now() + Duration::from_secs_f64(seconds);
        // The parts' paths are their indexes ([`settle`]): the second is won in three.
        let hold = |part: &[u32], _: Option<u32>, _: Option<bool>, _: f64| {
            if part == [1] {
                std::thread::sleep(deadline.saturating_duration_since(Instant::now()) + Duration::from_secs(1));
            }
        };
        let (settled, _, _) = settle(&[endless(), won_in_three], seconds, &hold);
        assert!(matches!(settled, Err(SearchError::TimeLimit { .. })), "{settled:?}");
    }
}
