//! Sogo's prover by proof numbers: the same question and the same knowledge as
//! [`SogoProver`]'s depth-first search, searched by df-pn (Nagai, 2002) instead, so that the
//! two can be measured on the same positions (docs/BENCHMARKS.md, "Sogo's prover by proof
//! numbers").
//!
//! Why measure it: ordered by a proof's own outcomes, the hard half of a draw takes 5 to 21
//! times fewer nodes than in the depth-first order (docs/BENCHMARKS.md, "What a perfect order
//! would save"). Proof numbers choose, at every node, the move whose outcome looks cheapest to
//! settle from what the search has seen so far: an order that learns during the proof. Each
//! position is looked at as the depth-first search looks at it (forced moves, the rules, the
//! table of outcomes), so a leaf settles what it settles there; positions left open get proof
//! and disproof numbers, kept in a table of their own.
//!
//! The numbers count for the side to move: `phi` what it takes to show that the mover achieves
//! its aim (the attacker a win, the defender no loss), `delta` what it takes to show that it
//! does not. Thresholds of a child's search follow the 1 + 1/4 rule (Pawlewicz and Lew, 2007),
//! which spares most of the re-expansions of plain df-pn.

use super::{COLUMNS, OTHER_ATTACKER, SogoProof, SogoProver, settled_by_rule};
use crate::games::cube::board::{self, CELLS, Position};
use crate::search::SearchError;

/// Proof and disproof numbers at or above this are infinite: settled.
const INFINITE: u32 = u32::MAX / 4;

/// Nodes of the first round by proof numbers in [`SogoProver::prove_either`].
pub const FIRST_ROUND_NODES: u64 = 1 << 20;
/// The depth-first search's nodes in a round of [`SogoProver::prove_either`], as a multiple of
/// the proof numbers' (which take about three times as long a node).
pub const DEPTH_FIRST_SHARE: u64 = 4;

/// How a position left open starts: its numbers before any of its moves is searched.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FirstNumbers {
    /// One and one, whatever the position.
    Unit,
    /// One to prove, its number of moves to disprove: the mover needs one move that achieves
    /// its aim, its opponent must refute them all.
    Moves,
}

/// What looking at a position told, before any of its moves is searched.
enum Look {
    /// Settled: whether the side to move achieves its aim.
    Settled(bool),
    /// Open: the moves to search and the table's key.
    Open { moves: u64, key: u128 },
}

/// A position's numbers as its table keeps them.
#[derive(Clone, Copy, Default)]
struct Entry {
    /// 0 where the slot is empty (no position's key is 0: a Sogo key marks every column's top).
    key: u128,
    phi: u32,
    delta: u32,
    /// Nodes its last search took: the entry with more is kept where two meet.
    work: u64,
}

/// The proof and disproof numbers of open positions, two entries a bucket (the most worked-for
/// and the newest).
pub(super) struct NumberTable {
    entries: Vec<[Entry; 2]>,
}

impl NumberTable {
    pub(super) fn new(bytes: usize) -> NumberTable {
        let buckets = (bytes / std::mem::size_of::<[Entry; 2]>()).max(1 << 16);
        let buckets = 1 << (usize::BITS - 1 - buckets.leading_zeros());
        // SAFETY: all-zero bytes are an empty entry; the pages are cleared as they are written.
        NumberTable { entries: unsafe { crate::prefetch::zeroed_table::<[Entry; 2]>(buckets) } }
    }

    #[inline(always)]
    fn bucket(&self, key: u128) -> usize {
        let folded = (key as u64) ^ ((key >> 64) as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        (folded.wrapping_mul(0xff51_afd7_ed55_8ccd) >> 20) as usize & (self.entries.len() - 1)
    }

    pub(super) fn clear(&mut self) {
        self.entries.iter_mut().for_each(|bucket| *bucket = [Entry::default(); 2]);
    }

    #[inline(always)]
    fn get(&self, key: u128) -> Option<(u32, u32)> {
        self.entries[self.bucket(key)].iter().find(|e| e.key == key).map(|e| (e.phi, e.delta))
    }

    #[inline(always)]
    fn put(&mut self, key: u128, (phi, delta): (u32, u32), work: u64) {
        let bucket = self.bucket(key);
        let [kept, recent] = &mut self.entries[bucket];
        let entry = Entry { key, phi, delta, work };
        if kept.key == 0 || kept.key == key || work >= kept.work {
            if kept.key != key {
                *recent = *kept;
            }
            *kept = entry;
        } else {
            *recent = entry;
        }
    }
}

/// One move of a position being searched: its cell, and its position's numbers (for the
/// position's own mover, the opponent of the node that has the move).
#[derive(Clone, Copy, Default)]
struct Child {
    cell: u64,
    phi: u32,
    delta: u32,
    /// Open: its moves and key (0 where it is settled).
    moves: u64,
    key: u128,
}

impl SogoProver {
    /// The same prover, proving by proof numbers too ([`SogoProver::prove_by_numbers`],
    /// [`SogoProver::prove_either`]), with `bytes` of table for the numbers of open positions.
    pub fn with_numbers(mut self, bytes: usize, first: FirstNumbers) -> SogoProver {
        self.numbers = Some(Box::new(NumberTable::new(bytes)));
        self.first_numbers = first;
        self
    }

    /// Whether the side to move (`attacker_to_move`) or the other side wins `position`, on one
    /// thread, by proof numbers and the depth-first search in turn: rounds of
    /// [`FIRST_ROUND_NODES`] nodes by proof numbers, then [`DEPTH_FIRST_SHARE`] times as many by
    /// the depth-first search, each round four times the last. Both go on from what the rounds
    /// before them settled (the table of outcomes), the proof numbers from their own table too,
    /// so the position costs at most a few times what the better of the two would take alone.
    /// Without [`SogoProver::with_numbers`], the depth-first search alone.
    pub fn prove_either(&mut self, position: &Position, attacker_to_move: bool) -> Result<SogoProof, SearchError> {
        if self.numbers.is_none() {
            return self.prove(position, attacker_to_move);
        }
        let deadline = self.deadline;
        let (nodes, by_rule) = (self.nodes, self.by_rule);
        let mut round = self.first_round_nodes;
        let proved = loop {
            self.deadline = deadline.until_node(self.nodes.saturating_add(round));
            match self.prove_by_numbers(position, attacker_to_move) {
                Err(SearchError::TimeLimit { .. }) if !deadline.time_is_up() && !deadline.reached_node(self.nodes) => {}
                outcome => break outcome,
            }
            self.deadline = deadline.until_node(self.nodes.saturating_add(round.saturating_mul(DEPTH_FIRST_SHARE)));
            match self.prove(position, attacker_to_move) {
                Err(SearchError::TimeLimit { .. }) if !deadline.time_is_up() && !deadline.reached_node(self.nodes) => {}
                outcome => break outcome,
            }
            round = round.saturating_mul(4);
        };
        self.deadline = deadline;
        match proved {
            Ok(proof) => Ok(SogoProof { nodes: self.nodes - nodes, by_rule: self.by_rule - by_rule, ..proof }),
            Err(SearchError::TimeLimit { seconds, .. }) => Err(SearchError::TimeLimit { seconds, nodes: self.nodes - nodes }),
            Err(e) => Err(e),
        }
    }

    /// Whether the side to move (`attacker_to_move`) or the other side wins `position`; the
    /// nodes are the positions looked at (each move of a searched position, as the depth-first
    /// search counts the positions it enters).
    pub fn prove_by_numbers(&mut self, position: &Position, attacker_to_move: bool) -> Result<SogoProof, SearchError> {
        let (nodes, by_rule) = (self.nodes, self.by_rule);
        let attacker_wins = if position.is_won_by_previous() {
            !attacker_to_move
        } else if position.ply == CELLS {
            false
        } else {
            let attacker = u64::from(attacker_to_move == position.ply.is_multiple_of(2));
            let root = self.look(position.current, position.mask, attacker_to_move, attacker);
            let searched = match root {
                Ok(Look::Settled(achieves)) => Ok(achieves == attacker_to_move),
                Ok(Look::Open { moves, key }) => self
                    .search_numbers(position.current, position.mask, attacker_to_move, attacker, moves, key, (INFINITE, INFINITE))
                    .map(|(phi, _)| (phi == 0) == attacker_to_move),
                Err(e) => Err(e),
            };
            searched.map_err(|e| match e {
                SearchError::TimeLimit { seconds, .. } => {
                    SearchError::TimeLimit { seconds, nodes: self.nodes - nodes }
                }
                e => e,
            })?
        };
        Ok(SogoProof { attacker_wins, nodes: self.nodes - nodes, by_rule: self.by_rule - by_rule })
    }

    /// Looks at the position of `current` (the mover's stones) and `mask` as the depth-first
    /// search does before it tries a move: a line at once, forced moves, the last stone, the
    /// rules, the table of outcomes and the other colour's.
    #[inline(always)]
    fn look(&mut self, current: u64, mask: u64, attacker_to_move: bool, attacker: u64) -> Result<Look, SearchError> {
                self.nodes += 1;
        self.deadline.check(self.nodes)?;
        let theirs = mask ^ current;
        let playable = board::drop_cells(mask);
        if board::completing(current) & playable != 0 {
            return Ok(Look::Settled(true));
        }
        let threats = board::completing(theirs) & !mask;
        let mut moves = match threats & playable {
            0 => playable,
            f if f & (f - 1) != 0 => return Ok(Look::Settled(false)),
            f => f,
        };
        moves &= !(threats >> 16);
        if moves == 0 {
            return Ok(Look::Settled(false));
        }
        if mask.count_ones() + 1 >= CELLS {
            return Ok(Look::Settled(!attacker_to_move));
        }
        let key = self.key(current, mask, attacker);
        let (attacking, defending) = if attacker_to_move { (current, theirs) } else { (theirs, current) };
        if let Some(rule) = settled_by_rule(self.knowledge, attacking, defending, threats, mask, attacker_to_move) {
            self.by_rule += 1;
            return Ok(Look::Settled(rule.attacker_wins() == attacker_to_move));
        }
        if let Some(wins) = self.table.get(key) {
            return Ok(Look::Settled(wins == attacker_to_move));
        }
        if self.knowledge.other_side && self.table.get(key ^ OTHER_ATTACKER) == Some(true) {
            return Ok(Look::Settled(!attacker_to_move));
        }
        Ok(Look::Open { moves, key })
    }

    /// The numbers of an open position after searching it until they reach `thresholds`
    /// (`phi`, `delta`) or it is settled.
    #[allow(clippy::too_many_arguments)]
    fn search_numbers(
        &mut self,
        current: u64,
        mask: u64,
        attacker_to_move: bool,
        attacker: u64,
        moves: u64,
        key: u128,
        (most_phi, most_delta): (u32, u32),
    ) -> Result<(u32, u32), SearchError> {
        let start_nodes = self.nodes;
        let theirs = mask ^ current;
        let winning = board::completing(current);
        // The moves in the depth-first search's order: equal numbers choose the earlier.
        let mut children = [Child::default(); COLUMNS];
        let mut count = 0;
        let mut scores = [0u32; COLUMNS];
        let mut rest = moves;
        while rest != 0 {
            let cell = rest & rest.wrapping_neg();
            rest &= rest - 1;
            let score = self.move_score(current, winning, mask, cell);
            let mut at = count;
            while at > 0 && scores[at - 1] < score {
                scores[at] = scores[at - 1];
                children[at] = children[at - 1];
                at -= 1;
            }
            scores[at] = score;
            children[at] = Child { cell, ..Child::default() };
            count += 1;
        }
        let children = &mut children[..count];
        for child in children.iter_mut() {
            match self.look(theirs, mask | child.cell, !attacker_to_move, attacker)? {
                Look::Settled(achieves) => {
                    (child.phi, child.delta) = if achieves { (0, INFINITE) } else { (INFINITE, 0) };
                }
                Look::Open { moves, key } => {
                    (child.phi, child.delta) = self.numbers.as_ref().and_then(|n| n.get(key)).unwrap_or(match self.first_numbers {
                        FirstNumbers::Unit => (1, 1),
                        FirstNumbers::Moves => (1, moves.count_ones()),
                    });
                    (child.moves, child.key) = (moves, key);
                }
            }
        }
        let numbers = loop {
            let (mut phi, mut delta) = (INFINITE, 0u32);
            let (mut best, mut second) = (0, INFINITE);
            for (at, child) in children.iter().enumerate() {
                delta = if delta >= INFINITE || child.phi >= INFINITE {
                    INFINITE
                } else {
                    delta.saturating_add(child.phi).min(INFINITE - 1)
                };
                if child.delta < phi {
                    second = phi;
                    (phi, best) = (child.delta, at);
                } else if child.delta < second {
                    second = child.delta;
                }
            }
            if phi >= most_phi || delta >= most_delta {
                break (phi, delta);
            }
            let chosen = children[best];
            let child_most_phi = most_delta - (delta - chosen.phi.min(delta));
            let child_most_delta = most_phi.min(second.saturating_add(second / 4).saturating_add(1)).min(INFINITE);
            let (phi, delta) = self.search_numbers(
                theirs,
                mask | chosen.cell,
                !attacker_to_move,
                attacker,
                chosen.moves,
                chosen.key,
                (child_most_phi, child_most_delta),
            )?;
            (children[best].phi, children[best].delta) = (phi, delta);
        };
        let work = self.nodes - start_nodes + 1;
        match numbers {
            (0, _) => self.table.put(key, attacker_to_move, work),
            (_, 0) => self.table.put(key, !attacker_to_move, work),
            open => {
                if let Some(numbers) = &mut self.numbers {
                    numbers.put(key, open, work);
                }
            }
        }
        Ok(numbers)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::cube::search::Sogo;
    use crate::games::cube::sogo::Knowledge;
    use crate::games::cube::sogo::tests::random_position;

    /// Both colours' outcomes of random positions of 28 to 44 stones, by proof numbers from
    /// either start and by proof numbers and depth first in turn, equal the depth-first prover's (where it finishes within a count of nodes,
    /// so that the positions compared never depend on the machine's load) and the plain exact
    /// search's (where that finishes too); some of each outcome are met.
    #[test]
    fn proof_numbers_agree_with_the_depth_first_prover_and_the_exact_search() {
        let mut rng = crate::rng::SplitMix64::new(35);
        let mut exact = crate::search::Searcher::<Sogo>::new(Sogo::new(), 64 << 20);
        let mut depth_first = SogoProver::new(Knowledge::ALL, 0);
        let mut by_numbers = [FirstNumbers::Unit, FirstNumbers::Moves]
            .map(|first| SogoProver::new(Knowledge::ALL, 0).with_numbers(16 << 20, first));
        // Rounds of a few hundred nodes, so that most proofs take several of each kind.
        let mut either = SogoProver::new(Knowledge::ALL, 0).with_numbers(16 << 20, FirstNumbers::Moves);
        either.first_round_nodes = 300;
        let (mut compared, mut wins, mut exact_compared) = (0, 0, 0);
        while compared < 400 {
            let plies = 28 + (rng.next_u64() % 17) as u32;
            let Some(p) = random_position(&mut rng, plies) else { continue };
            depth_first.clear();
            for prover in by_numbers.iter_mut().chain([&mut either]) {
                prover.clear();
            }
            for attacker_to_move in [true, false] {
                depth_first.deadline = crate::search::Deadline::at_node(depth_first.nodes + 300_000);
                let Ok(proof) = depth_first.prove(&p, attacker_to_move) else { continue };
                let truth = proof.attacker_wins;
                for prover in &mut by_numbers {
                    assert_eq!(prover.prove_by_numbers(&p, attacker_to_move).unwrap().attacker_wins, truth, "{p:?} {attacker_to_move}");
                }
                assert_eq!(either.prove_either(&p, attacker_to_move).unwrap().attacker_wins, truth, "{p:?} {attacker_to_move}");
                exact.set_node_limit(200_000);
                if let Ok(exact_wins) = exact.wins(&p, attacker_to_move) {
                    assert_eq!(exact_wins, truth, "{p:?} {attacker_to_move}");
                    exact_compared += 1;
                }
                compared += 1;
                wins += u32::from(truth);
            }
        }
        assert!(wins > 40 && wins < compared - 40, "{wins} wins of {compared}");
        assert!(exact_compared > 150, "{exact_compared} of {compared} compared with the exact search");
    }
}
