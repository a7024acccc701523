//! An independent brute force for the Morris variants, written from the rules (docs/RULES.md)
//! for the reference tests. It shares nothing with the library but the position and value
//! types used to ask the tables: its own numbering of the points, the lines listed by hand, its
//! own move generator and symmetries, and its own retrograde solver over positions up to
//! symmetry.

use super::for_each_subset;
use std::collections::HashMap;
use std::hash::Hash;
use tablebase::Value;
use tablebase::games::morris::{Color, Position};

/// The points in this test's own order.
pub const NAMES: [&str; 24] = [
    "a1", "a4", "a7", "b2", "b4", "b6", "c3", "c4", "c5", "d1", "d2", "d3", //
    "d5", "d6", "d7", "e3", "e4", "e5", "f2", "f4", "f6", "g1", "g4", "g7",
];

/// The standard lines: the sides of the three squares and the four lines joining their
/// midpoints. Each is a mill; neighbours on a line are adjacent.
pub const STANDARD_LINES: [[&str; 3]; 16] = [
    ["a7", "d7", "g7"],
    ["g7", "g4", "g1"],
    ["g1", "d1", "a1"],
    ["a1", "a4", "a7"],
    ["b6", "d6", "f6"],
    ["f6", "f4", "f2"],
    ["f2", "d2", "b2"],
    ["b2", "b4", "b6"],
    ["c5", "d5", "e5"],
    ["e5", "e4", "e3"],
    ["e3", "d3", "c3"],
    ["c3", "c4", "c5"],
    ["d7", "d6", "d5"],
    ["g4", "f4", "e4"],
    ["d1", "d2", "d3"],
    ["a4", "b4", "c4"],
];

/// Morabaraba's lines: the standard ones and the four diagonals joining the squares' corners.
pub const DIAGONALS: [[&str; 3]; 4] =
    [["a7", "b6", "c5"], ["g7", "f6", "e5"], ["g1", "f2", "e3"], ["a1", "b2", "c3"]];

pub fn point(name: &str) -> usize {
    NAMES.iter().position(|&n| n == name).expect("a point")
}

/// Stones of the side to move and of the other side, this test's numbering.
pub type Stones = (u32, u32);

pub struct Board {
    pub mills: Vec<u32>,
    pub adjacent: [u32; 24],
    /// Per symmetry, the image of each byte of a set, by the byte's place.
    pub images: Vec<[[u32; 256]; 3]>,
}

impl Board {
    /// The board whose lines are `lines`.
    pub fn new(lines: &[[&str; 3]]) -> Board {
        let mills: Vec<u32> = lines.iter().map(|line| line.iter().map(|&n| 1u32 << point(n)).sum()).collect();
        let mut adjacent = [0u32; 24];
        for line in lines {
            for pair in line.windows(2) {
                let (p, q) = (point(pair[0]), point(pair[1]));
                adjacent[p] |= 1 << q;
                adjacent[q] |= 1 << p;
            }
        }
        // Coordinates from the centre d4; a symmetry turns and reflects them, and may exchange
        // the outer square (3 from the centre) with the inner (1 from it).
        let coords = |p: usize| {
            let b = NAMES[p].as_bytes();
            (i32::from(b[0] - b'a') - 3, i32::from(b[1] - b'1') - 3)
        };
        let mut images = Vec::new();
        for exchange in [false, true] {
            for k in 0..8 {
                let mut image = [0usize; 24];
                for (p, to) in image.iter_mut().enumerate() {
                    let (mut x, mut y) = coords(p);
                    if k >= 4 {
                        x = -x;
                    }
                    for _ in 0..k % 4 {
                        (x, y) = (-y, x);
                    }
                    if exchange {
                        let ring = x.abs().max(y.abs());
                        (x, y) = (x / ring * (4 - ring), y / ring * (4 - ring));
                    }
                    *to = (0..24).find(|&q| coords(q) == (x, y)).expect("a point");
                }
                let mut table = [[0u32; 256]; 3];
                for (place, bytes) in table.iter_mut().enumerate() {
                    for (v, set) in bytes.iter_mut().enumerate() {
                        for bit in (0..8).filter(|bit| v >> bit & 1 == 1) {
                            *set |= 1 << image[place * 8 + bit];
                        }
                    }
                }
                images.push(table);
            }
        }
        Board { mills, adjacent, images }
    }

    pub fn transform(&self, sym: usize, set: u32) -> u32 {
        let t = &self.images[sym];
        t[0][(set & 255) as usize] | t[1][(set >> 8 & 255) as usize] | t[2][(set >> 16) as usize]
    }

    /// The least image under the 16 symmetries.
    pub fn canonical(&self, (mover, other): Stones) -> Stones {
        // A plain loop: the iterator's fold, inlined into the solver's loops, ran it 40% slower.
        let mut least = (u64::MAX, (mover, other));
        for sym in 0..16 {
            let image = (self.transform(sym, mover), self.transform(sym, other));
            let key = (u64::from(image.1) << 24) | u64::from(image.0);
            if key < least.0 {
                least = (key, image);
            }
        }
        least.1
    }

    pub fn closes_mill(&self, stones: u32, to: usize) -> bool {
        self.mills.iter().any(|&mill| mill & (1 << to) != 0 && stones & mill == mill)
    }

    /// The stones of `stones` an opponent may remove: those in no mill, or any if all are.
    pub fn removable(&self, stones: u32) -> u32 {
        let in_mills = self.mills.iter().filter(|&&m| stones & m == m).fold(0, |acc, &m| acc | m);
        if stones & !in_mills != 0 { stones & !in_mills } else { stones }
    }

    /// After the side to move has put a stone on `to` (its stones now `mine`): the positions
    /// for the other side, `None` where a removal leaves it fewer than three stones on the
    /// board and in hand (`their_hand`).
    pub fn after(&self, mine: u32, theirs: u32, to: usize, their_hand: u32, out: &mut Vec<Option<Stones>>) {
        if !self.closes_mill(mine, to) {
            out.push(Some((theirs, mine)));
            return;
        }
        for r in (0..24).filter(|&r| self.removable(theirs) & (1 << r) != 0) {
            let left = theirs & !(1 << r);
            out.push((left.count_ones() + their_hand >= 3).then_some((left, mine)));
        }
    }

    /// Every move of the moving phase: a slide along a line, or a flight with three stones.
    pub fn moves(&self, (mine, theirs): Stones, out: &mut Vec<Option<Stones>>) {
        out.clear();
        let empty = !(mine | theirs) & 0xff_ffff;
        for from in (0..24).filter(|&p| mine & (1 << p) != 0) {
            let targets = if mine.count_ones() == 3 { empty } else { self.adjacent[from] & empty };
            for to in (0..24).filter(|&p| targets & (1 << p) != 0) {
                self.after(mine & !(1 << from) | (1 << to), theirs, to, 0, out);
            }
        }
    }
}

/// What a move to a position of value `v` gives the side that made it.
pub fn seen_from_mover(v: Value) -> Value {
    match v {
        Value::Win(n) => Value::Loss(n + 1),
        Value::Loss(n) => Value::Win(n + 1),
        Value::Draw => Value::Draw,
        Value::WinUnknown | Value::LossUnknown => unreachable!("Morris values have distances"),
    }
}

/// Every position of class `a`-`b` up to symmetry, as its least image.
pub fn class_positions(board: &Board, a: u32, b: u32) -> Vec<Stones> {
    let mut all = Vec::new();
    let points = 0xff_ffff;
    for_each_subset(points, a, |m| {
        for_each_subset(points & !m, b, |o| {
            if board.canonical((m, o)) == (m, o) {
                all.push((m, o));
            }
        })
    });
    all
}

/// Solves the moving-phase `positions` (closed under moves that capture nothing); see
/// [`solve_states`].
pub fn solve(board: &Board, positions: &[Stones], known: &HashMap<Stones, Value>) -> HashMap<Stones, Value> {
    solve_states(positions, |p, out| board.moves(p, out), |p| board.canonical(p), known)
}

/// Solves `positions` (each its own least image under `canonical`) by retrograde analysis,
/// level by level: a position whose successor loses in `d` wins in `d + 1` at the least such
/// `d`; one whose successors all win loses one ply after the longest; the rest draw. `moves`
/// gives each position's successors, `None` for a move that wins at once; moves out of the set
/// read `known`.
pub fn solve_states<S: Copy + Eq + Hash + std::fmt::Debug>(
    positions: &[S],
    moves: impl Fn(S, &mut Vec<Option<S>>),
    canonical: impl Fn(S) -> S,
    known: &HashMap<S, Value>,
) -> HashMap<S, Value> {
    let ids: HashMap<S, u32> = positions.iter().enumerate().map(|(i, &p)| (p, i as u32)).collect();
    let n = positions.len();
    let mut edges: Vec<(u32, u32)> = Vec::new(); // (predecessor, successor) inside the set
    let mut remaining = vec![0u32; n];
    let (mut has_draw, mut has_win) = (vec![false; n], vec![false; n]);
    let mut wins: Vec<Vec<u32>> = Vec::new(); // candidates to win at each odd level
    let mut losses: Vec<Vec<u32>> = vec![Vec::new()]; // candidates to lose at each even level
    let mut decrements: Vec<Vec<u32>> = Vec::new(); // a successor out of the set wins at that level
    let push = |levels: &mut Vec<Vec<u32>>, level: usize, p: u32| {
        if levels.len() <= level {
            levels.resize(level + 1, Vec::new());
        }
        levels[level].push(p);
    };
    let mut out = Vec::new();
    for (i, &p) in positions.iter().enumerate() {
        moves(p, &mut out);
        if out.is_empty() {
            push(&mut losses, 0, i as u32);
        }
        for next in &out {
            let exit = match next {
                None => Value::Win(1),
                Some(next) => {
                    let c = canonical(*next);
                    if let Some(&j) = ids.get(&c) {
                        edges.push((i as u32, j));
                        remaining[i] += 1;
                        continue;
                    }
                    seen_from_mover(*known.get(&c).unwrap_or_else(|| panic!("{c:?} is solved before")))
                }
            };
            match exit {
                Value::Win(d) => {
                    has_win[i] = true;
                    push(&mut wins, d as usize, i as u32);
                }
                Value::Loss(d) => {
                    remaining[i] += 1;
                    push(&mut decrements, d as usize - 1, i as u32);
                }
                Value::Draw => has_draw[i] = true,
                Value::WinUnknown | Value::LossUnknown => unreachable!("Morris values have distances"),
            }
        }
    }
    let mut predecessors = vec![Vec::new(); n];
    for &(p, s) in &edges {
        predecessors[s as usize].push(p);
    }
    let mut value: Vec<Option<Value>> = vec![None; n];
    let mut level = 0;
    while level < wins.len().max(losses.len()).max(decrements.len()) {
        if level % 2 == 0 {
            let candidates = losses.get_mut(level).map(std::mem::take).unwrap_or_default();
            for p in candidates {
                if value[p as usize].is_none() {
                    value[p as usize] = Some(Value::Loss(level as u32));
                    for &q in &predecessors[p as usize] {
                        push(&mut wins, level + 1, q);
                    }
                }
            }
        } else {
            let mut lost = Vec::new();
            let mut decrement = |q: u32, value: &[Option<Value>]| {
                remaining[q as usize] -= 1;
                let q_ = q as usize;
                if remaining[q_] == 0 && !has_draw[q_] && !has_win[q_] && value[q_].is_none() {
                    lost.push(q);
                }
            };
            let candidates = wins.get_mut(level).map(std::mem::take).unwrap_or_default();
            for p in candidates {
                if value[p as usize].is_none() {
                    value[p as usize] = Some(Value::Win(level as u32));
                    for &q in &predecessors[p as usize] {
                        decrement(q, &value);
                    }
                }
            }
            for q in decrements.get_mut(level).map(std::mem::take).unwrap_or_default() {
                decrement(q, &value);
            }
            for q in lost {
                push(&mut losses, level + 1, q);
            }
        }
        level += 1;
    }
    positions.iter().zip(value).map(|(&p, v)| (p, v.unwrap_or(Value::Draw))).collect()
}

/// The library's position for stones in this test's numbering (White to move).
pub fn library_position((mover, other): Stones, hand: [u8; 2], to_move: Color) -> Position {
    let convert = |set: u32| -> u32 {
        (0..24)
            .filter(|&p| set & (1 << p) != 0)
            .map(|p| 1u32 << tablebase::games::morris::point_from_name(NAMES[p]).expect("a point"))
            .sum()
    };
    let mut stones = [0; 2];
    stones[to_move.index()] = convert(mover);
    stones[to_move.other().index()] = convert(other);
    Position { stones, hand, to_move }
}
