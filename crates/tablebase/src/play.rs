//! A game against the perfect player, shared by every game: the moves so far, taking back,
//! the perfect player's choice, and the end of the game. The terminal and the page drive it.

use crate::probe::{Outcome, Probe, ProbeError};
use crate::rng::SplitMix64;
use crate::value::Value;
use std::collections::HashMap;

/// What a game needs beyond probing to be played by a person.
pub trait Play: Probe {
    /// 0 when the side that starts the game is to move, 1 otherwise.
    fn side_to_move(&self, position: &Self::Position) -> usize;
    /// The two sides as a person calls them (`White`, `X`), the starting side first.
    fn side_names(&self) -> [&'static str; 2];
    /// The board for the terminal, without its value.
    fn board(&self, position: &Self::Position) -> String;
    /// What a player types for moves, for the prompt: `a column 1-7`.
    fn move_hint(&self) -> String;
}

/// How a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    /// The side with this number (0 starts) won.
    Won(usize),
    /// A full board, or the same position a third time with the same side to move.
    Drawn,
}

/// A game in progress: every position since the start, so that moves can be taken back.
#[derive(Debug)]
pub struct Match<'a, G: Play> {
    game: &'a G,
    history: Vec<G::Position>,
    seen: HashMap<G::Position, u32>,
    rng: SplitMix64,
}

/// The perfect player's move, with the value it keeps where its searches settled that in time.
pub type Reply<M> = (M, Option<Value>);

/// Why a typed move was not played.
#[derive(Debug)]
pub enum MoveError {
    /// Not a legal move here; the legal ones are listed.
    Illegal {
        /// What was typed.
        typed: String,
        /// Every legal move in the game's notation.
        legal: Vec<String>,
    },
    /// The tables could not answer.
    Probe(ProbeError),
}

impl std::fmt::Display for MoveError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MoveError::Illegal { typed, legal } if legal.is_empty() => {
                write!(f, "'{}' is not a move: the game is over", crate::text::quote(typed))
            }
            MoveError::Illegal { typed, legal } => {
                write!(
                    f,
                    "'{}' is not a legal move here; legal: {}",
                    crate::text::quote(typed),
                    legal.join(" ")
                )
            }
            MoveError::Probe(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for MoveError {}

impl From<ProbeError> for MoveError {
    fn from(e: ProbeError) -> MoveError {
        MoveError::Probe(e)
    }
}

impl<'a, G: Play> Match<'a, G> {
    /// A game from `start`; `seed` makes the perfect player's choices among equal moves
    /// repeatable.
    pub fn new(game: &'a G, start: G::Position, seed: u64) -> Match<'a, G> {
        let mut seen = HashMap::new();
        seen.insert(start.clone(), 1);
        Match { game, history: vec![start], seen, rng: SplitMix64::new(seed) }
    }

    /// The position now.
    pub fn position(&self) -> &G::Position {
        self.history.last().expect("a match has a position")
    }

    /// Moves played since the start.
    pub fn plies(&self) -> usize {
        self.history.len() - 1
    }

    /// Every legal move with its value for the side to move, best first.
    pub fn moves(&self) -> Result<Vec<Outcome<G>>, ProbeError> {
        let mut moves = self.game.moves(self.position())?;
        moves.sort_by_key(|o| std::cmp::Reverse(o.value));
        Ok(moves)
    }

    /// How the game ended, or `None` while it goes on.
    pub fn ending(&self) -> Result<Option<Ending>, ProbeError> {
        if self.seen.get(self.position()).copied().unwrap_or(0) >= 3 {
            return Ok(Some(Ending::Drawn));
        }
        if !self.game.legal_moves(self.position())?.is_empty() {
            return Ok(None);
        }
        let mover = self.game.side_to_move(self.position());
        Ok(Some(match self.game.value(self.position())? {
            Value::Loss(_) | Value::LossUnknown => Ending::Won(1 - mover),
            Value::Win(_) | Value::WinUnknown => Ending::Won(mover),
            Value::Draw => Ending::Drawn,
        }))
    }

    /// Plays the move typed in the game's notation (surrounding blanks and case ignored).
    pub fn play(&mut self, typed: &str) -> Result<G::Move, MoveError> {
        let wanted = typed.trim().to_ascii_lowercase();
        // Legal moves without their values: playing one must not cost a search of every move.
        let moves = self.game.legal_moves(self.position())?;
        match moves.into_iter().partition::<Vec<_>, _>(|(mv, _)| mv.to_string() == wanted) {
            (mut chosen, _) if !chosen.is_empty() => {
                let (mv, next) = chosen.swap_remove(0);
                self.push(next);
                Ok(mv)
            }
            (_, others) => Err(MoveError::Illegal {
                typed: typed.trim().to_string(),
                legal: others.iter().map(|(mv, _)| mv.to_string()).collect(),
            }),
        }
    }

    /// The perfect player's move: one of the moves that keep the position's value, chosen at
    /// random, with that value; `None` when the game is over. Where searches cannot settle the
    /// position within their time, a move that does not lose at once, its value `None`.
    pub fn reply(&mut self) -> Result<Option<Reply<G::Move>>, ProbeError> {
        if self.game.searches() {
            return self.reply_by_search();
        }
        let moves = self.game.moves(self.position())?;
        let Some(best) = moves.iter().map(|o| o.value).max() else { return Ok(None) };
        let equal: Vec<&Outcome<G>> = moves.iter().filter(|o| o.value == best).collect();
        let chosen = equal[self.rng.below(equal.len() as u64) as usize];
        let (mv, next) = (chosen.mv, chosen.next.clone());
        self.push(next);
        Ok(Some((mv, Some(best))))
    }

    /// The perfect player's move where values need searches: the first move, in a random
    /// order, found to keep the position's value. An early cube position has dozens of moves
    /// whose proofs take minutes each; one that keeps the value is all a player needs.
    fn reply_by_search(&mut self) -> Result<Option<Reply<G::Move>>, ProbeError> {
        let mut children = self.game.legal_moves(self.position())?;
        if children.is_empty() {
            return Ok(None);
        }
        for k in (1..children.len()).rev() {
            children.swap(k, self.rng.below(k as u64 + 1) as usize);
        }
        // A lost position's every move loses: with the distance unknown there is nothing to
        // search, only the loss at once to avoid, which the game knows without a search. The
        // same move serves where the searches cannot settle the position in their time (Sogo's
        // early positions): the game goes on, its value unknown.
        let cheap = |next: &G::Position| {
            crate::search::Work::run(Some(&crate::search::Work::without_searches()), || self.game.value(next))
        };
        let not_losing_at_once = |children: &[(G::Move, G::Position)]| {
            // The other side completes a line with its next stone: won in 1 ply for it, lost
            // in 2 (this move and that one) for the side to move.
            let soonest = Value::Win(1).for_mover();
            children.iter().position(|(_, next)| cheap(next).map_or(true, |v| v.for_mover() != soonest))
        };
        let value = match self.game.value(self.position()) {
            Ok(value) => value,
            Err(ProbeError::Search(_)) => {
                let (mv, next) = children.swap_remove(not_losing_at_once(&children).unwrap_or(0));
                self.push(next);
                return Ok(Some((mv, None)));
            }
            Err(e) => return Err(e),
        };
        let chosen = match value {
            Value::LossUnknown => not_losing_at_once(&children),
            _ => {
                let keeps =
                    |got: Value| got == value || (value.distance_unknown() && got.word() == value.word());
                // A move whose value is known without a search (a book, a proof's record) first:
                // Qubic's weak first moves are unproved, and the search of one would spend the
                // whole limit before a proved move was tried.
                if let Some(k) =
                    children.iter().position(|(_, next)| cheap(next).is_ok_and(|v| keeps(v.for_mover())))
                {
                    let (mv, next) = children.swap_remove(k);
                    self.push(next);
                    return Ok(Some((mv, Some(value))));
                }
                // Then a move the game proves winning by a proof that names it, where it has one.
                if value == Value::WinUnknown {
                    match self.game.winning_move(self.position()) {
                        Ok(Some(mv)) => {
                            let k = children.iter().position(|(m, _)| m.to_string() == mv.to_string());
                            let (mv, next) = children.swap_remove(k.expect("the winning move is legal"));
                            self.push(next);
                            return Ok(Some((mv, Some(value))));
                        }
                        Ok(None) | Err(ProbeError::Search(_)) => {}
                        Err(e) => return Err(e),
                    }
                }
                let mut found = None;
                let mut best: Option<(usize, Value)> = None;
                for (k, (_, next)) in children.iter().enumerate() {
                    let got = match self.game.value(next) {
                        Ok(got) => got.for_mover(),
                        // Out of time before a move that keeps the value was found: one that
                        // does not lose at once, its value unknown.
                        Err(ProbeError::Search(_)) => {
                            let (mv, next) = children.swap_remove(not_losing_at_once(&children).unwrap_or(0));
                            self.push(next);
                            return Ok(Some((mv, None)));
                        }
                        Err(e) => return Err(e),
                    };
                    if keeps(got) {
                        found = Some(k);
                        break;
                    }
                    if best.is_none_or(|(_, b)| got > b) {
                        best = Some((k, got));
                    }
                }
                found.or(best.map(|(k, _)| k))
            }
        };
        let (mv, next) = children.swap_remove(chosen.unwrap_or(0));
        self.push(next);
        Ok(Some((mv, Some(value))))
    }

    /// Takes back the last `plies` moves (fewer when the game is younger); returns how many.
    pub fn undo(&mut self, plies: usize) -> usize {
        let taken = plies.min(self.plies());
        for _ in 0..taken {
            let gone = self.history.pop().expect("counted");
            if let Some(count) = self.seen.get_mut(&gone) {
                *count -= 1;
            }
        }
        taken
    }

    fn push(&mut self, next: G::Position) {
        *self.seen.entry(next.clone()).or_insert(0) += 1;
        self.history.push(next);
    }
}
