//! Proving who wins without the distance: depth-first proof-number search (df-pn) over the
//! moves of a [`LineGame`], with a threat-sequence search at the attacker's nodes.
//!
//! The question is whether one side, the attacker, wins; a draw counts against it, so each
//! proof is one of the two null-window questions "does White win?" and "does Black win?". Where
//! the exact search ([`super::Searcher`]) must settle every distance, a proof needs one winning
//! move at the attacker's nodes and all of the defender's replies, and proof numbers lead it to
//! the moves easiest to settle.
//!
//! A threat sequence wins when the attacker can make a line by moves that each threaten to
//! complete one at once, the defender's replies forced: a move that makes two such threats wins
//! outright, one with a single threat forces the reply on that cell (unless the defender
//! completes a line first), and the attacker goes on from there. It is sound (every forced
//! reply is the only one that does not lose at once) though not complete; proof numbers do the
//! rest.

use super::{Deadline, KeyWord, LineGame, SearchError, moves_not_losing_at_once};

/// Proof and disproof numbers at or above this are infinite: proved or disproved.
pub(super) const INFINITE: u32 = u32::MAX / 4;

/// Adds a child's proof number to the sum that is its parent's disproof number. The sum is
/// infinite only when one of its terms is: a sum of finite numbers stops just below, because
/// an infinite disproof number means a settled position, and a sum of many large numbers (60
/// moves a ply in Qubic) that reached it settled one that was not (a false "does not win":
/// `a11d44b22a14` disproved, its symmetric image `a11d44b22d11` proved).
#[inline]
pub(super) fn add_proof_number(sum: u32, phi: u32) -> u32 {
    if sum >= INFINITE || phi >= INFINITE { INFINITE } else { sum.saturating_add(phi).min(INFINITE - 1) }
}

/// A position's numbers from its children's: the least disproof number and the sum of the
/// proof numbers (each counts for its own side to move).
pub(super) fn parent_numbers(children: impl IntoIterator<Item = (u32, u32)>) -> (u32, u32) {
    children.into_iter().fold((INFINITE, 0), |(proof, disproof), (phi, delta)| {
        (proof.min(delta), add_proof_number(disproof, phi))
    })
}

/// The positions after each of `moves` (cells of the side to move at `node`), in the game's
/// order of its groups.
pub(super) fn children_of<'a, G: LineGame>(
    game: &'a G,
    node: &'a G::Node,
    moves: u64,
) -> impl Iterator<Item = G::Node> + 'a {
    game.groups().iter().enumerate().filter_map(move |(group, &cells)| {
        let cell = moves & cells;
        (cell != 0).then(|| game.play(node, group, cell))
    })
}

/// The outcome of a proof: whether the attacker wins, with what the search did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Proof {
    /// Whether the attacker wins.
    pub attacker_wins: bool,
    /// Nodes the proof-number search visited.
    pub nodes: u64,
    /// Positions the threat-sequence search visited.
    pub threat_nodes: u64,
    /// Positions stored in the proof-number table at the end.
    pub stored: usize,
}

/// The df-pn prover of one game. Its tables grow with the proof; [`Prover::clear`] empties them.
pub struct Prover<G: LineGame> {
    game: G,
    /// (proof, disproof) numbers for the side to move: `proof` counts what it takes to show
    /// that the side to move achieves its aim (the attacker a win, the defender no loss).
    numbers: Numbers<G::Key>,
    /// Threat-sequence results by position: the mover's stones and all stones.
    threats: ThreatCache,
    /// The parity of the attacker's plies.
    attacker_parity: u32,
    nodes: u64,
    threat_nodes: u64,
    deadline: Deadline,
    /// Where [`Prover::numbers_within`] or [`Prover::prove_within`] stops: a count of [`Prover::nodes`].
    budget_end: u64,
    /// The strategy of the attacker's moves: an attacker's node with a move to one of its
    /// positions tries only those moves (see [`Prover::set_strategy`]).
    strategy: StrategyMoves,
}

/// The positions a strategy of the attacker's moves leads to (positions after its moves), by
/// their keys.
#[derive(Clone, Debug, Default)]
pub struct StrategyMoves {
    keys: std::collections::HashSet<u128>,
    /// The ply of the deepest position: below it no node has a strategy move.
    last_ply: u32,
}

impl StrategyMoves {
    /// The strategy that leads to `positions`.
    pub fn new<G: LineGame>(game: &G, positions: &[G::Position]) -> StrategyMoves {
        let nodes: Vec<G::Node> = positions.iter().map(|p| game.node(p)).collect();
        StrategyMoves {
            keys: nodes.iter().map(|n| game.key(n).to_u128()).collect(),
            last_ply: nodes.iter().map(G::ply).max().unwrap_or(0),
        }
    }

    /// The ply of its deepest position.
    pub fn last_ply(&self) -> u32 {
        self.last_ply
    }

    fn contains<G: LineGame>(&self, game: &G, node: &G::Node) -> bool {
        self.keys.contains(&game.key(node).to_u128())
    }

    /// Whether it leads to `position` itself (a position after one of its moves).
    pub fn leads_to<G: LineGame>(&self, game: &G, position: &G::Position) -> bool {
        self.contains(game, &game.node(position))
    }

    /// Whether it has a move from `position`, or leads to `position` itself: a position on
    /// its way.
    pub fn is_on_way<G: LineGame>(&self, game: &G, position: &G::Position) -> bool {
        let node = game.node(position);
        let moves = game.playable(G::occupied(&node));
        self.contains(game, &node) || children_of(game, &node, moves).any(|c| self.contains(game, &c))
    }
}

/// What a position is worth before any search below it.
pub(super) enum Leaf {
    /// The side to move achieves its aim.
    Achieved,
    /// The side to move fails.
    Failed,
    /// Its moves, to be searched.
    Moves(u64),
}

impl<G: LineGame> Prover<G> {
    /// A prover for `game` whose two tables take about `table_bytes` bytes.
    pub fn new(game: impl Into<G>, table_bytes: usize) -> Prover<G> {
        Prover {
            game: game.into(),
            numbers: Numbers::new(table_bytes / 4 * 3),
            threats: ThreatCache::new(table_bytes / 4),
            attacker_parity: 0,
            nodes: 0,
            threat_nodes: 0,
            deadline: Deadline::default(),
            budget_end: u64::MAX,
            strategy: StrategyMoves::default(),
        }
    }

    /// The same prover, its tables backed by huge pages where the kernel can, so that a random
    /// slot does not also miss the TLB. For long proofs only: on this project's machine the
    /// kernel took 1.5 to 4 s to clear 1.5 GB of huge pages on their first touches (1 s for
    /// small pages), which a new table's first few thousand nodes make, while the clock is read
    /// at every 4,096th node only (a search looks at its stop at each of them): a cost a short
    /// search (a probe's share of its limit, a server's request) should not pay.
    pub fn on_huge_pages(self) -> Prover<G> {
        crate::prefetch::advise_huge_pages(&self.numbers.entries);
        crate::prefetch::advise_huge_pages(&self.threats.slots);
        self
    }

    /// Follows a strategy: wherever the attacker has a move to one of `positions` (positions
    /// after the attacker's move), the proof tries those moves and no other. A proof found so
    /// is a proof; a failed one proves nothing, since the moves left out might win. An empty
    /// list lifts the strategy. The tables are emptied, since what they hold was found under
    /// other rules.
    pub fn set_strategy(&mut self, positions: &[G::Position]) {
        self.strategy = StrategyMoves::new(&self.game, positions);
        self.clear();
    }

    /// Whether the strategy has a move from `position`, or leads to `position` itself: a
    /// position on its way.
    pub fn on_strategy(&self, position: &G::Position) -> bool {
        self.strategy.is_on_way(&self.game, position)
    }

    /// Stops every later proof after `seconds` from now; `None` lifts the limit.
    pub fn set_time_limit(&mut self, seconds: Option<f64>) {
        self.deadline = Deadline::after(seconds);
    }

    /// Forgets every position proved.
    pub fn clear(&mut self) {
        self.numbers.clear();
        self.threats.clear();
    }

    /// As [`Prover::prove`], but out of time ([`SearchError::TimeLimit`]) after about `nodes`
    /// nodes of search: a limit that falls in the same place on every machine and every run.
    pub fn prove_within(
        &mut self,
        position: &G::Position,
        attacker_to_move: bool,
        nodes: u64,
    ) -> Result<Proof, SearchError> {
        self.budget_end = self.nodes().saturating_add(nodes);
        let proof = self.prove(position, attacker_to_move);
        self.budget_end = u64::MAX;
        proof
    }

    /// Whether `attacker_to_move` (the side to move at `position`, or else the other) wins.
    pub fn prove(&mut self, position: &G::Position, attacker_to_move: bool) -> Result<Proof, SearchError> {
        super::may_search()?;
        let node = self.game.node(position);
        self.set_attacker(&node, attacker_to_move);
        let (nodes, threat_nodes) = (self.nodes, self.threat_nodes);
        let (proof, disproof) = self.search(&node, INFINITE, INFINITE)?;
        debug_assert!(proof == 0 || disproof == 0);
        Ok(Proof {
            attacker_wins: (proof == 0) == attacker_to_move,
            nodes: self.nodes - nodes,
            threat_nodes: self.threat_nodes - threat_nodes,
            stored: self.numbers.stored,
        })
    }

    /// Makes the attacker the side to move at `node` if `attacker_to_move`, else the other
    /// side; the tables are emptied when that changes the attacker.
    pub(super) fn set_attacker(&mut self, node: &G::Node, attacker_to_move: bool) {
        let ply = G::ply(node);
        let parity = if attacker_to_move { ply % 2 } else { (ply + 1) % 2 };
        if parity != self.attacker_parity {
            self.clear();
            self.attacker_parity = parity;
        }
    }

    /// The game.
    pub(super) fn game(&self) -> &G {
        &self.game
    }

    /// The proof and disproof numbers of `node` (for its side to move, as [`Prover::set_attacker`]
    /// set the attacker) after at most about `budget` more nodes of search: settled, or the
    /// numbers its children have in the table when the budget runs out.
    pub(super) fn numbers_within(&mut self, node: &G::Node, budget: u64) -> Result<(u32, u32), SearchError> {
        self.budget_end = self.nodes().saturating_add(budget);
        let searched = self.search(node, INFINITE, INFINITE);
        let over_budget = self.nodes() > self.budget_end;
        self.budget_end = u64::MAX;
        match searched {
            Err(SearchError::TimeLimit { .. }) if over_budget => self.numbers_from_children(node),
            result => result,
        }
    }

    /// After a proof that the side to move at `position` wins, the moves it proved winning
    /// whose positions the table still holds (as cells): the proof's own choice, for a strategy
    /// to record.
    pub fn proved_moves(&self, position: &G::Position) -> u64 {
        let node = self.game.node(position);
        let occupied = G::occupied(&node);
        children_of(&self.game, &node, self.game.playable(occupied))
            .filter(|child| matches!(self.numbers.get(self.game.key(child)), Some((_, 0))))
            .fold(0, |cells, child| cells | (G::occupied(&child) ^ occupied))
    }

    /// The numbers of `key` in the table, if it holds them.
    pub(super) fn stored_numbers(&self, key: G::Key) -> Option<(u32, u32)> {
        self.numbers.get(key)
    }

    /// `node`'s numbers as its children's entries in the table give them (unsearched: 1 and 1).
    fn numbers_from_children(&mut self, node: &G::Node) -> Result<(u32, u32), SearchError> {
        let moves = match self.leaf(node)? {
            Leaf::Achieved => return Ok((0, INFINITE)),
            Leaf::Failed => return Ok((INFINITE, 0)),
            Leaf::Moves(moves) => moves,
        };
        let numbers = &self.numbers;
        let game = &self.game;
        Ok(parent_numbers(
            children_of(game, node, moves).map(|child| numbers.get(game.key(&child)).unwrap_or((1, 1))),
        ))
    }

    fn is_attacker(&self, node: &G::Node) -> bool {
        G::ply(node) % 2 == self.attacker_parity
    }

    /// The position's worth before a search below it.
    pub(super) fn leaf(&mut self, node: &G::Node) -> Result<Leaf, SearchError> {
        self.leaf_with(node, true)
    }

    /// [`Prover::leaf`], with the attacker's threat sequences looked for only if `threats`.
    fn leaf_with(&mut self, node: &G::Node, threats: bool) -> Result<Leaf, SearchError> {
        let game = &self.game;
        let (mover, occupied) = (G::mover(node), G::occupied(node));
        let attacker = self.is_attacker(node);
        // A draw is the defender's aim.
        let drawn = if attacker { Leaf::Failed } else { Leaf::Achieved };
        if game.has_line(mover ^ occupied) {
            return Ok(Leaf::Failed);
        }
        let defender = if attacker { mover ^ occupied } else { mover };
        if !game.has_line(game.board() & !defender) {
            // Every line holds a stone of the defender's: the attacker can make none any more.
            return Ok(drawn);
        }
        if G::ply(node) == game.cells() {
            return Ok(drawn);
        }
        let playable = game.playable(occupied);
        if game.completing(mover) & playable != 0 {
            return Ok(Leaf::Achieved);
        }
        let moves = moves_not_losing_at_once(game, mover, occupied, game.board() & !occupied);
        if moves == 0 {
            return Ok(Leaf::Failed);
        }
        if G::ply(node) + 1 == game.cells() {
            // The last stone completes no line (the mover has no winning cell).
            return Ok(drawn);
        }
        if attacker && threats && self.threat_sequence(mover, mover ^ occupied, occupied)? {
            return Ok(Leaf::Achieved);
        }
        Ok(Leaf::Moves(moves))
    }

    /// Whether the side to move, with `mine` against `theirs`, wins by a threat sequence.
    fn threat_sequence(&mut self, mine: u64, theirs: u64, occupied: u64) -> Result<bool, SearchError> {
        self.threat_search(mine, theirs, occupied, None)
    }

    /// [`Prover::threat_sequence`], and where it wins, the attacker's moves of one winning
    /// sequence pushed onto `line` in the order played (the defender's replies are forced).
    fn threat_search(
        &mut self,
        mine: u64,
        theirs: u64,
        occupied: u64,
        mut line: Option<&mut Vec<u64>>,
    ) -> Result<bool, SearchError> {
        // Counted before the tick, as in `search`: the clock is read when the count of both
        // searches passes a multiple of `CLOCK_EVERY`, and a count ticked before its increment is
        // skipped when the next node is the other search's (a proof once ran on for minutes
        // past its limit).
        self.threat_nodes += 1;
        self.tick()?;
        // Most lookups miss the cache: asked for now, the line scans below overlap the wait.
        let key = (mine, occupied);
        self.threats.prefetch(key);
        let game = &self.game;
        let playable = game.playable(occupied);
        let my_completing = game.completing(mine);
        if my_completing & playable != 0 {
            return Ok(true);
        }
        let their_completing = game.completing(theirs);
        let their_threats = their_completing & playable;
        if their_threats & their_threats.wrapping_sub(1) != 0 {
            return Ok(false);
        }
        if let Some(known) = self.threats.get(key) {
            // A known win is searched again where its moves are wanted (the cache then leads
            // straight down it, past the branches known to fail).
            if !known || line.is_none() {
                return Ok(known);
            }
        }
        let empty = game.board() & !occupied;
        let candidates =
            playable & if their_threats != 0 { their_threats } else { game.building(mine, theirs) };
        // First every candidate's forced reply, each child's cache slot asked for as it is
        // found, so that the searches below find them loaded; a double threat wins at once.
        let mut forcing = [(0u64, 0u64); 64];
        let mut forcing_count = 0;
        let mut rest = candidates;
        while rest != 0 {
            let cell = rest & rest.wrapping_neg();
            rest &= rest - 1;
            let occupied2 = occupied | cell;
            let playable2 = game.playable(occupied2);
            if their_completing & playable2 != 0 {
                continue; // the defender completes a line first
            }
            let made = game.completing_after(mine, my_completing, cell) & playable2 & empty & !cell;
            if made == 0 {
                continue; // not forcing
            }
            if made & (made - 1) != 0 {
                if let Some(line) = line.as_deref_mut() {
                    line.push(cell);
                }
                self.threats.put(key, true);
                return Ok(true);
            }
            self.threats.prefetch((mine | cell, occupied2 | made));
            forcing[forcing_count] = (cell, made);
            forcing_count += 1;
        }
        let mut found = false;
        for &(cell, made) in &forcing[..forcing_count] {
            let (mine2, theirs2, occupied2) = (mine | cell, theirs | made, occupied | cell | made);
            match line.as_deref_mut() {
                Some(line) => {
                    line.push(cell);
                    found = self.threat_search(mine2, theirs2, occupied2, Some(&mut *line))?;
                    if !found {
                        line.pop();
                    }
                }
                None => found = self.threat_sequence(mine2, theirs2, occupied2)?,
            }
            if found {
                break;
            }
        }
        self.threats.put(key, found);
        Ok(found)
    }

    /// Whether the attacker's moves `line`, played from `mine` against `theirs` with the
    /// attacker to move, still win as a threat sequence: every move legal, no line of the
    /// defender's completed or left open, each move a threat whose one answer is forced, and a
    /// double threat or a line at the end. A check of one sequence, far cheaper than a search.
    fn replays(&self, line: &[u64], mut mine: u64, mut theirs: u64, mut occupied: u64) -> bool {
        let game = &self.game;
        for &cell in line {
            let playable = game.playable(occupied);
            if game.completing(mine) & playable != 0 {
                return true;
            }
            let their_threats = game.completing(theirs) & playable;
            if cell & playable == 0 || their_threats & !cell != 0 {
                return false; // taken, not yet playable, or a threat of the defender's unmet
            }
            let empty = game.board() & !occupied;
            let (mine2, occupied2) = (mine | cell, occupied | cell);
            let playable2 = game.playable(occupied2);
            if game.completing(theirs) & playable2 != 0 {
                return false;
            }
            let made = game.completing(mine2) & playable2 & empty & !cell;
            if made == 0 {
                return false;
            }
            if made & (made - 1) != 0 {
                return true;
            }
            (mine, theirs, occupied) = (mine2, theirs | made, occupied2 | made);
        }
        game.completing(mine) & game.playable(occupied) != 0
    }

    fn tick(&self) -> Result<(), SearchError> {
        let nodes = self.nodes();
        if nodes > self.budget_end {
            // Out of the budget of [`Prover::numbers_within`] (which takes this error back) or of
            // [`Prover::prove_within`].
            return Err(SearchError::TimeLimit { seconds: 0.0, nodes });
        }
        self.deadline.check(nodes)
    }

    /// Nodes visited so far, by both searches.
    pub fn nodes(&self) -> u64 {
        self.nodes + self.threat_nodes
    }

    /// The proof and disproof numbers of `node` once they reach `(proof_limit, disproof_limit)`
    /// or it is settled (df-pn's multiple iterative deepening, in the form where every node
    /// counts for its side to move: a node's proof number is the least disproof number of its
    /// children, its disproof number the sum of their proof numbers).
    fn search(
        &mut self,
        node: &G::Node,
        proof_limit: u32,
        disproof_limit: u32,
    ) -> Result<(u32, u32), SearchError> {
        self.nodes += 1;
        self.tick()?;
        let first_node = self.nodes;
        let key = self.game.key(node);
        if let Some(numbers) = self.numbers.get(key)
            && (numbers.0 >= proof_limit || numbers.1 >= disproof_limit)
        {
            return Ok(numbers);
        }
        let moves = match self.leaf(node)? {
            Leaf::Achieved => return Ok(self.numbers.put(key, (0, INFINITE), 1)),
            Leaf::Failed => return Ok(self.numbers.put(key, (INFINITE, 0), 1)),
            Leaf::Moves(moves) => moves,
        };
        // At the defender's turn, the attacker's threat sequence as if the defender passed: a
        // defender's move that does not stop it loses at once, which a replay of its moves
        // shows without a search. Without gravity a defender's stone only takes cells and adds
        // threats to meet, so where the attacker has no sequence now it has none after any
        // move (under gravity a stone can make a cell above it playable).
        let mut null_line = Vec::new();
        let mut child_threats = true;
        let (mover, occupied) = (G::mover(node), G::occupied(node));
        if !self.is_attacker(node) {
            let attacker = mover ^ occupied;
            let wins = self.threat_search(attacker, mover, occupied, Some(&mut null_line))?;
            child_threats = wins || self.game.beneath(self.game.board()) != 0;
        }
        let mut children: Vec<(G::Node, G::Key)> = Vec::with_capacity(moves.count_ones() as usize);
        for child in children_of(&self.game, node, moves) {
            let child_key = self.game.key(&child);
            // The children's entries are read next, each most likely a cache miss: asked for
            // all at once, the misses overlap.
            self.numbers.prefetch(child_key);
            if child_threats && !self.is_attacker(node) {
                // The attacker's threat sequence from the child is looked for next.
                self.threats.prefetch((G::mover(&child), G::occupied(&child)));
            }
            children.push((child, child_key));
        }
        if G::ply(node) < self.strategy.last_ply && self.is_attacker(node) {
            let keys = &self.strategy.keys;
            if children.iter().any(|(_, key)| keys.contains(&key.to_u128())) {
                children.retain(|(_, key)| keys.contains(&key.to_u128()));
            }
        }
        let attacker = mover ^ occupied;
        // The attacker's quiet moves start the harder to refute the less they promise, so that
        // the search tries the promising ones first and the rest when those grow hard. Found
        // only when a child is new: a node is entered again and again, its children stored.
        let mut most_promise = None;
        for &(child, child_key) in &children {
            // Settle what settles at once (a line, a forced loss, a threat sequence), so that
            // the choice below sees it.
            if self.numbers.get(child_key).is_some() {
                continue;
            }
            let cell = G::occupied(&child) ^ occupied;
            if !null_line.is_empty() && self.replays(&null_line, attacker, mover | cell, occupied | cell) {
                _ = self.numbers.put(child_key, (0, INFINITE), 1);
                continue;
            }
            if !child_threats {
                self.threats.put((attacker, occupied | cell), false);
            }
            match self.leaf_with(&child, child_threats)? {
                Leaf::Achieved => _ = self.numbers.put(child_key, (0, INFINITE), 1),
                Leaf::Failed => _ = self.numbers.put(child_key, (INFINITE, 0), 1),
                // Mobility: one move may achieve the mover's aim, but all of them must be
                // refuted, so that forcing moves (one reply) come first.
                Leaf::Moves(replies) if !self.is_attacker(&child) => {
                    let disproof = match replies.count_ones() > 1 {
                        false => 1,
                        true => {
                            // Here the mover is the attacker.
                            let (game, theirs) = (&self.game, mover ^ occupied);
                            let most = *most_promise.get_or_insert_with(|| {
                                children
                                    .iter()
                                    .map(|(c, _)| game.promise(mover, theirs, G::occupied(c) ^ occupied))
                                    .max()
                                    .unwrap_or(0)
                            });
                            2 + promise_penalty(most, game.promise(mover, theirs, cell))
                        }
                    };
                    _ = self.numbers.put(child_key, (1, disproof), 1)
                }
                Leaf::Moves(_) => {}
            }
        }
        loop {
            // The child with the least disproof number (the easiest to refute, so the best
            // move), the second least, and the sums.
            let (mut best, mut best_delta, mut second_delta, mut phi_sum) = (0, INFINITE, INFINITE, 0u32);
            for (i, (_, child_key)) in children.iter().enumerate() {
                let (phi, delta) = self.numbers.get(*child_key).unwrap_or((1, 1));
                phi_sum = add_proof_number(phi_sum, phi);
                if delta < best_delta {
                    (second_delta, best_delta, best) = (best_delta, delta, i);
                } else if delta < second_delta {
                    second_delta = delta;
                }
            }
            let numbers = (best_delta, phi_sum);
            if numbers.0 >= proof_limit || numbers.1 >= disproof_limit {
                return Ok(self.numbers.put(key, numbers, self.nodes - first_node + 1));
            }
            let (child, _) = children[best];
            let (child_phi, _) = self.numbers.get(children[best].1).unwrap_or((1, 1));
            let child_proof_limit =
                disproof_limit.saturating_sub(phi_sum).saturating_add(child_phi).min(INFINITE);
            // The 1 + epsilon trick (Pawlewicz and Lew): stay in the best child until it is a
            // quarter worse than the second, not merely worse, so that two close children do
            // not take turns, each re-searched from its table entries at every switch.
            let child_disproof_limit = proof_limit
                .min(second_delta.saturating_add(1).max(second_delta.saturating_add(second_delta / 4)));
            self.search(&child, child_proof_limit, child_disproof_limit)?;
        }
    }
}

/// The most a quiet move of the attacker's starts above the most promising one: its disproof
/// number starts at 2 plus this share of how much less it promises. 4 measured best of 0, 4,
/// 16 and 64 (docs/BENCHMARKS.md): larger spreads leave good moves untried too long.
const PROMISE_SPREAD: u32 = 4;

/// The extra disproof number a quiet move of the attacker starts with, from how much less it
/// promises than the most promising one.
#[inline]
fn promise_penalty(most: u32, promise: u32) -> u32 {
    if most == 0 {
        return 0;
    }
    (most - promise) * PROMISE_SPREAD / most
}

/// Spreads a position's words over a table's slots: every bit of the key reaches the low bits
/// that choose a slot (SplitMix64's finaliser; a bare multiplication leaves the low bits of the
/// product to the low bits of the key, and positions that differ only high up would collide).
#[inline]
fn mix(word: u128) -> u64 {
    let mut x = (word as u64) ^ ((word >> 64) as u64).rotate_left(29);
    x = (x ^ x >> 30).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ x >> 27).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ x >> 31
}

/// Proof and disproof numbers by exact key, in buckets of two entries: a new position takes
/// the place of the one whose numbers cost fewer nodes to find (the work of Breuker's
/// replacement schemes), so that what took long survives.
struct Numbers<K: KeyWord> {
    entries: Vec<NumbersEntry<K>>,
    /// Entries in use.
    stored: usize,
}

#[derive(Clone, Copy)]
struct NumbersEntry<K> {
    key: K,
    numbers: (u32, u32),
    /// Nodes the numbers took (at least 1; 0 marks an empty entry).
    work: u64,
}

impl<K: KeyWord> Numbers<K> {
    fn new(bytes: usize) -> Numbers<K> {
        let buckets = (bytes / (2 * std::mem::size_of::<NumbersEntry<K>>())).max(1).next_power_of_two() / 2;
        // SAFETY: an entry is integers (a key word is u32, u64 or u128), and zero work marks it
        // empty.
        Numbers { entries: unsafe { crate::prefetch::zeroed_table(2 * buckets.max(1)) }, stored: 0 }
    }

    #[inline]
    fn bucket(&self, key: K) -> usize {
        2 * (mix(key.to_u128()) as usize & (self.entries.len() / 2 - 1))
    }

    /// Starts loading the bucket of `key` into the cache, for a [`Numbers::get`] soon after.
    #[inline]
    fn prefetch(&self, key: K) {
        crate::prefetch::prefetch(&self.entries[self.bucket(key)]);
    }

    #[inline]
    fn get(&self, key: K) -> Option<(u32, u32)> {
        let at = self.bucket(key);
        self.entries[at..at + 2].iter().find(|e| e.work != 0 && e.key == key).map(|e| e.numbers)
    }

    /// Stores the numbers of `key`, found with `work` nodes, and gives them back.
    fn put(&mut self, key: K, numbers: (u32, u32), work: u64) -> (u32, u32) {
        let at = self.bucket(key);
        let slot = match self.entries[at..at + 2].iter().position(|e| e.work != 0 && e.key == key) {
            Some(i) => at + i,
            None => {
                let slot = if self.entries[at].work <= self.entries[at + 1].work { at } else { at + 1 };
                if self.entries[slot].work == 0 {
                    self.stored += 1;
                }
                slot
            }
        };
        let entry = &mut self.entries[slot];
        let work = if entry.key == key { work.max(entry.work) } else { work };
        *entry = NumbersEntry { key, numbers, work: work.max(1) };
        numbers
    }

    fn clear(&mut self) {
        // A table never written stays untouched: clearing it would fault in every page.
        if self.stored != 0 {
            self.entries.iter_mut().for_each(|e| e.work = 0);
            self.stored = 0;
        }
    }
}

/// Threat-sequence results by position, one per slot, the newest kept.
struct ThreatCache {
    /// The mover's stones, all stones, and the result plus 1 (0: empty).
    slots: Vec<(u64, u64, u8)>,
    /// Whether any slot was written since the last clear.
    written: bool,
}

impl ThreatCache {
    fn new(bytes: usize) -> ThreatCache {
        let slots = (bytes / std::mem::size_of::<(u64, u64, u8)>()).max(2).next_power_of_two() / 2;
        // SAFETY: a slot is integers, and a zero result marks it empty.
        ThreatCache { slots: unsafe { crate::prefetch::zeroed_table(slots) }, written: false }
    }

    #[inline]
    fn slot(&self, (mine, occupied): (u64, u64)) -> usize {
        mix(u128::from(mine) << 64 | u128::from(occupied)) as usize & (self.slots.len() - 1)
    }

    /// Starts loading the slot of `key` into the cache, for a [`ThreatCache::get`] soon after.
    #[inline]
    fn prefetch(&self, key: (u64, u64)) {
        crate::prefetch::prefetch(&self.slots[self.slot(key)]);
    }

    #[inline]
    fn get(&self, key: (u64, u64)) -> Option<bool> {
        let (mine, occupied, result) = self.slots[self.slot(key)];
        (result != 0 && (mine, occupied) == key).then_some(result == 2)
    }

    fn put(&mut self, key: (u64, u64), found: bool) {
        let slot = self.slot(key);
        self.slots[slot] = (key.0, key.1, 1 + u8::from(found));
        self.written = true;
    }

    fn clear(&mut self) {
        // A cache never written stays untouched: clearing it would fault in every page.
        if self.written {
            self.slots.iter_mut().for_each(|s| s.2 = 0);
            self.written = false;
        }
    }
}
