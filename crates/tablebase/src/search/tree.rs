//! Proofs too big for one df-pn search: a proof-number search over a tree kept in memory, whose
//! leaves the prover searches within a node budget each (PN², Allis 1994; Breuker 1998).
//!
//! A single df-pn search keeps every position in one bounded table, and on the early positions
//! of Qubic it spends its time re-searching what the table lost, and deep in moves whose
//! numbers looked good after a few nodes. The tree never forgets its first plies. A leaf the
//! search chooses is first searched by the prover within the budget, which settles it or gives
//! it better numbers; chosen again, it becomes a position of the tree, its children starting
//! from the numbers the prover's table holds for them. Positions the game's symmetries map
//! onto each other are one child.

use super::proof::{Leaf, children_of, parent_numbers};
use super::{LineGame, Prover, SearchError};

/// What a tree proof found, and what it took.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TreeProof {
    /// Whether the attacker wins.
    pub attacker_wins: bool,
    /// Positions in the tree at the end.
    pub tree_positions: usize,
    /// Leaves expanded.
    pub expansions: u64,
    /// Nodes the prover searched, proof-number and threat-sequence nodes together.
    pub prover_nodes: u64,
}

/// A position of the tree.
struct TreeNode<N> {
    node: N,
    /// (proof, disproof) numbers for the side to move, as the prover counts them.
    numbers: (u32, u32),
    /// Indices of its children in the arena; empty until it is expanded.
    children: Vec<u32>,
    /// Whether the prover has searched it within the budget.
    searched: bool,
}

/// A proof-number search whose leaves are searched by a [`Prover`].
pub struct ProofTree<G: LineGame> {
    prover: Prover<G>,
    /// Prover nodes per leaf.
    budget: u64,
    arena: Vec<TreeNode<G::Node>>,
    expansions: u64,
}

fn settled(numbers: (u32, u32)) -> bool {
    numbers.0 == 0 || numbers.1 == 0
}

impl<G: LineGame> ProofTree<G> {
    /// A tree over `prover`, which searches each new leaf for about `budget` nodes (and whose
    /// time limit bounds the whole proof).
    pub fn new(prover: Prover<G>, budget: u64) -> ProofTree<G> {
        ProofTree { prover, budget: budget.max(1), arena: Vec::new(), expansions: 0 }
    }

    /// Whether `attacker_to_move` (the side to move at `position`, or else the other) wins.
    pub fn prove(
        &mut self,
        position: &G::Position,
        attacker_to_move: bool,
    ) -> Result<TreeProof, SearchError> {
        let root = self.prover.game().node(position);
        self.prover.set_attacker(&root, attacker_to_move);
        let start_nodes = self.prover.nodes();
        self.arena.clear();
        self.expansions = 0;
        let numbers = self.prover.numbers_within(&root, self.budget)?;
        self.arena.push(TreeNode { node: root, numbers, children: Vec::new(), searched: true });
        let mut path = Vec::new();
        while !settled(self.arena[0].numbers) {
            // Down to the most proving leaf: at every position the child with the least
            // disproof number, the move that is cheapest to show good for the side to move.
            path.clear();
            let mut at = 0usize;
            while !self.arena[at].children.is_empty() {
                path.push(at);
                at = self.arena[at]
                    .children
                    .iter()
                    .map(|&c| c as usize)
                    .min_by_key(|&c| self.arena[c].numbers.1)
                    .expect("an expanded position has children");
            }
            if !self.arena[at].searched {
                self.arena[at].numbers = self.prover.numbers_within(&self.arena[at].node, self.budget)?;
                self.arena[at].searched = true;
            } else {
                path.push(at);
                self.expand(at)?;
            }
            for &index in path.iter().rev() {
                let arena = &self.arena;
                let numbers =
                    parent_numbers(arena[index].children.iter().map(|&c| arena[c as usize].numbers));
                self.arena[index].numbers = numbers;
            }
        }
        Ok(TreeProof {
            attacker_wins: (self.arena[0].numbers.0 == 0) == attacker_to_move,
            tree_positions: self.arena.len(),
            expansions: self.expansions,
            prover_nodes: self.prover.nodes() - start_nodes,
        })
    }

    /// Gives leaf `at` its children, with the numbers the prover's table holds for them.
    fn expand(&mut self, at: usize) -> Result<(), SearchError> {
        self.expansions += 1;
        let node = self.arena[at].node;
        let moves = match self.prover.leaf(&node)? {
            Leaf::Moves(moves) => moves,
            // Settled positions are never chosen: the prover's numbers for them are final.
            Leaf::Achieved | Leaf::Failed => unreachable!("an unsettled leaf has moves"),
        };
        let game = self.prover.game();
        let mut children: Vec<(G::Node, G::Key)> = Vec::new();
        for child in children_of(game, &node, moves) {
            let key = game.key(&child);
            if children.iter().all(|&(_, k)| k != key) {
                children.push((child, key));
            }
        }
        let mut indices = Vec::with_capacity(children.len());
        for (child, key) in children {
            let numbers = self.prover.stored_numbers(key).unwrap_or((1, 1));
            indices.push(self.arena.len() as u32);
            self.arena.push(TreeNode {
                node: child,
                numbers,
                children: Vec::new(),
                searched: settled(numbers),
            });
        }
        self.arena[at].children = indices;
        Ok(())
    }
}
