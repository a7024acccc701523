//! Connect Four positions solved by search, for boards too large to tabulate (7x6): the board
//! as the shared search engine ([`crate::search`]) sees it. Its keys are exact and shared by
//! mirror images: `current + mask` (each column's stones plus a marker bit above them) of the
//! position or its mirror, whichever is less, so that a 7x6 key has 49 bits and its table entries
//! 32; the node keeps the mirror image beside the position, so that the key costs no mirroring.

use super::board::{Geometry, Position};
use crate::search::{self, LineGame};
use crate::value::Value;

pub use crate::search::{DEFAULT_TABLE_BYTES, SearchError};

/// Searches Connect Four positions of one board.
pub type Searcher = search::Searcher<Connect4Lines>;
/// Searchers of one board shared by threads.
pub(crate) type SearcherPool = search::SearcherPool<Connect4Lines>;

/// A Connect Four board for the search: its columns, centre first, with their bottom cells and
/// those of the columns that mirror them.
#[derive(Clone)]
pub struct Connect4Lines {
    g: Geometry,
    /// The columns' cells, centre first (left before right at equal distance).
    groups: Vec<u64>,
    /// The bottom cell of the column that mirrors each group's.
    mirror_bottom: Vec<u64>,
    bottom_row: u64,
    board: u64,
}

impl From<Geometry> for Connect4Lines {
    fn from(g: Geometry) -> Connect4Lines {
        let w = g.width;
        let mut order: Vec<u32> = (0..w).collect();
        order.sort_by_key(|&c| ((2 * c as i32 - (w as i32 - 1)).abs(), c));
        Connect4Lines {
            g,
            groups: order.iter().map(|&c| g.column(c)).collect(),
            mirror_bottom: order.iter().map(|&c| g.bottom(w - 1 - c)).collect(),
            bottom_row: g.bottom_row(),
            board: g.board(),
        }
    }
}

/// A position with its mirror image, kept side by side so that the symmetric key costs no
/// mirroring at each node.
#[derive(Clone, Copy)]
pub struct Node {
    current: u64,
    mask: u64,
    mirror_current: u64,
    mirror_mask: u64,
    ply: u32,
}

impl LineGame for Connect4Lines {
    type Position = Position;
    type Node = Node;
    type Key = u64;

    fn cells(&self) -> u32 {
        self.g.cells()
    }

    fn board(&self) -> u64 {
        self.board
    }

    fn key_bits(&self) -> u32 {
        self.g.width * (self.g.height + 1)
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

    #[inline(always)]
    fn ply(node: &Node) -> u32 {
        node.ply
    }

    #[inline(always)]
    fn mover(node: &Node) -> u64 {
        node.current
    }

    #[inline(always)]
    fn occupied(node: &Node) -> u64 {
        node.mask
    }

    #[inline(always)]
    fn playable(&self, occupied: u64) -> u64 {
        (occupied + self.bottom_row) & self.board
    }

    #[inline(always)]
    fn completing(&self, stones: u64) -> u64 {
        self.g.completing_cells(stones)
    }

    fn has_line(&self, stones: u64) -> bool {
        self.g.has_four(stones)
    }

    #[inline(always)]
    fn beneath(&self, cells: u64) -> u64 {
        cells >> 1
    }

    #[inline(always)]
    fn groups(&self) -> &[u64] {
        &self.groups
    }

    /// The position after a stone on `cell`, and its mirror image after the mirror move.
    #[inline(always)]
    fn play(&self, node: &Node, group: usize, cell: u64) -> Node {
        Node {
            current: node.current ^ node.mask,
            mask: node.mask | cell,
            mirror_current: node.mirror_current ^ node.mirror_mask,
            mirror_mask: node.mirror_mask | (node.mirror_mask + self.mirror_bottom[group]),
            ply: node.ply + 1,
        }
    }

    /// `current + mask` of the position or its mirror, whichever is less.
    #[inline(always)]
    fn key(&self, node: &Node) -> u64 {
        (node.current + node.mask).min(node.mirror_current + node.mirror_mask)
    }
}

/// The value, for the side to move at `ply` on board `g`, of a score in the search's convention
/// (which is also that of Pascal Pons's test sets): positive when it wins on its own stone
/// `MAX - score`, negative when it loses to the opponent's stone `MAX + score`, 0 for a draw.
pub fn value_of_score(g: &Geometry, ply: u32, score: i32) -> Value {
    search::value_of_score(g.cells(), ply, score)
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

    /// Every legal position reached by `plies` moves on board `g`, once each, with the first
    /// move string (in the order of columns) that reaches it.
    fn positions(g: &Geometry, plies: u32) -> Vec<(String, Position)> {
        let mut layer = vec![(String::new(), Position::EMPTY)];
        for _ in 0..plies {
            let mut seen = std::collections::HashSet::new();
            let mut next = Vec::new();
            for (moves, _) in &layer {
                for column in 0..g.width {
                    let moves = format!("{moves}{}", char::from(b'1' + column as u8));
                    if let Ok(p) = parse_moves(g, &moves)
                        && seen.insert((p.current, p.mask))
                    {
                        next.push((moves, p));
                    }
                }
            }
            layer = next;
        }
        layer
    }

    /// Every reachable 4x4 position, as many as the reference counts; the larger boards are
    /// checked against their tables, in tests/connect4_search.rs.
    #[test]
    fn agrees_with_minimax_on_every_4x4_position() {
        let g = Geometry::new(4, 4).unwrap();
        let mut memo = HashMap::new();
        // A small table (256 slots), so that entries are replaced and keys share slots.
        let mut searcher = Searcher::new(g, 1024);
        let mut compared = 0;
        for ply in 0..=g.cells() {
            for (moves, p) in &positions(&g, ply) {
                assert_eq!(searcher.value(p).unwrap(), minimax(&g, p, &mut memo), "{moves}");
                compared += 1;
            }
        }
        let (reachable, _, _) = crate::games::connect4::reference::connect4_board(4, 4).unwrap();
        assert_eq!(Some(compared), reachable);
    }

    /// A value is confirmed exactly when it is the position's value: every wrong value of the
    /// same or the other outcome is refused, including those one move faster or slower; at every
    /// reachable 4x4 position.
    #[test]
    fn confirms_only_the_exact_value() {
        let g = Geometry::new(4, 4).unwrap();
        let mut memo = HashMap::new();
        let mut searcher = Searcher::new(g, 1024);
        let (mut confirmed, mut refused) = (0, 0);
        for ply in 0..=g.cells() {
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
        let (reachable, _, _) = crate::games::connect4::reference::connect4_board(4, 4).unwrap();
        assert_eq!(Some(confirmed), reachable);
        // At least five wrong values of the six for every position (one of them may be exact).
        assert!(refused >= 5 * confirmed, "{confirmed} {refused}");
    }

    /// The prover agrees with minimax on who wins, for either side as the attacker, at every
    /// reachable 4x4 position (gravity, so that its threats may lie out of reach): the same
    /// engine's second search.
    #[test]
    fn the_prover_agrees_with_minimax_on_who_wins() {
        let g = Geometry::new(4, 4).unwrap();
        let mut memo = HashMap::new();
        let mut prover = crate::search::Prover::<Connect4Lines>::new(g, 1 << 20);
        let mut checked = 0;
        for ply in 0..=g.cells() {
            for (moves, p) in positions(&g, ply) {
                let exact = minimax(&g, &p, &mut memo);
                for mover_attacks in [true, false] {
                    let wins = match exact {
                        Value::Win(_) => mover_attacks,
                        Value::Loss(_) => !mover_attacks,
                        Value::Draw => false,
                        Value::WinUnknown | Value::LossUnknown => unreachable!("minimax is exact"),
                    };
                    assert_eq!(prover.prove(&p, mover_attacks).unwrap().attacker_wins, wins, "{moves}");
                    checked += 1;
                }
            }
        }
        let (reachable, _, _) = crate::games::connect4::reference::connect4_board(4, 4).unwrap();
        assert_eq!(Some(checked / 2), reachable);
    }

    #[test]
    fn a_time_limit_stops_the_search() {
        let g = Geometry::new(7, 6).unwrap();
        let mut searcher = Searcher::new(g, 1 << 16);
        searcher.set_time_limit(Some(0.01));
        let error = searcher.value(&Position::EMPTY).unwrap_err();
        assert!(matches!(error, SearchError::TimeLimit { .. }), "{error}");
    }

    /// A searcher looks at its work's stop at each of its first 4,096 nodes (each may clear a
    /// huge page of its table), then at every 256th; at its clock and node limit at every
    /// 4,096th only.
    #[test]
    fn a_searcher_looks_at_its_stop_sooner_than_at_its_clock() {
        use crate::search::{CLOCK_EVERY, STOP_EVERY, Work};
        let g = Geometry::new(7, 6).unwrap();
        let stopped = Work::new(None);
        stopped.stop();
        let mut searcher = Searcher::new(g, 64 << 20);
        let answer = Work::run(Some(&stopped), || searcher.value(&Position::EMPTY));
        assert_eq!((answer, searcher.nodes()), (Err(SearchError::Stopped), 1));
        searcher.set_node_limit(1);
        let limited = searcher.value(&Position::EMPTY);
        assert_eq!(limited, Err(SearchError::TimeLimit { seconds: 0.0, nodes: CLOCK_EVERY }));
        let answer = Work::run(Some(&stopped), || searcher.value(&Position::EMPTY));
        assert_eq!((answer, searcher.nodes()), (Err(SearchError::Stopped), CLOCK_EVERY + STOP_EVERY));
    }
}
