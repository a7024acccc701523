//! The value of a cube position by search: the exact search first, for a short while, then the
//! prover, which settles who wins without the distance.
//!
//! Late positions (a few dozen empty cells) are searched exactly in well under a second. Early
//! ones are not: their distances would take an exact search far too long, but the prover shows
//! who wins with a fraction of the nodes. Such a value is a win or a loss of unknown distance
//! ([`Value::WinUnknown`]), never a distance made up; a draw needs no distance, so two failed
//! proofs ("the side to move wins", "the other side wins") give an exact draw.

use super::board::Position;
use super::search::CubeLines;
use crate::search::{Prover, SearchError, SearcherPool};
use crate::value::Value;
use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};
use std::time::Instant;

/// Seconds the exact search has before the prover takes over (or the whole limit, if smaller).
pub const EXACT_SECONDS: f64 = 0.25;
/// Bytes of each exact searcher's transposition table.
const EXACT_TABLE_BYTES: usize = 64 << 20;
/// Bytes of the prover's tables.
pub const PROVER_TABLE_BYTES: usize = 512 << 20;
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
    exact_seconds: f64,
    known: Mutex<HashMap<u128, Value>>,
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
            exact_seconds,
            known: Mutex::new(HashMap::new()),
        }
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
        let exact_limit = max_time.map_or(self.exact_seconds, |t| t.min(self.exact_seconds));
        match self.exact.value(position, Some(exact_limit)) {
            Ok(value) => return Ok(value),
            Err(SearchError::TimeLimit { .. }) if max_time.is_none_or(|t| t > exact_limit) => {}
            Err(e) => return Err(e),
        }
        let left = max_time.map(|t| (t - start.elapsed().as_secs_f64()).max(0.0));
        self.prove_outcome(position, left).map_err(|e| match e {
            SearchError::TimeLimit { nodes, .. } => {
                SearchError::TimeLimit { seconds: max_time.unwrap_or(f64::INFINITY), nodes }
            }
        })
    }

    /// Who wins `position` (whose game is not over), by proof: a win or loss of unknown
    /// distance, or a draw.
    fn prove_outcome(&self, position: &Position, max_time: Option<f64>) -> Result<Value, SearchError> {
        // White's win first: it is the common outcome of early positions (Qubic's first player
        // wins), one proof settles it, and asking the same side about every move of a position
        // keeps the prover's tables from one to the next.
        let white_to_move = position.ply.is_multiple_of(2);
        for attacker_to_move in [white_to_move, !white_to_move] {
            if self.proves(position, attacker_to_move, max_time)? {
                return Ok(if attacker_to_move { Value::WinUnknown } else { Value::LossUnknown });
            }
        }
        Ok(Value::Draw)
    }

    /// Whether the side to move (`attacker_to_move`) or the other side wins `position`.
    fn proves(&self, position: &Position, attacker_to_move: bool, max_time: Option<f64>) -> Result<bool, SearchError> {
        let idle = || self.provers.lock().unwrap_or_else(PoisonError::into_inner);
        let mut prover = idle().pop().unwrap_or_else(|| Prover::new(self.game.clone(), self.prover_bytes));
        prover.set_time_limit(max_time);
        let proof = prover.prove(position, attacker_to_move);
        idle().push(prover);
        Ok(proof?.attacker_wins)
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
            Err(SearchError::TimeLimit { .. }) => unreachable!("a proof without a time limit"),
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
            Err(SearchError::TimeLimit { .. }) => unreachable!("a proof without a time limit"),
        };
        match stored {
            Value::WinUnknown => proves(true),
            Value::LossUnknown => proves(false),
            Value::Draw => !proves(true) && !proves(false),
            _ => false,
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
