//! Morabaraba against the independent brute force of `common/brute.rs`, written from the rules
//! (docs/RULES.md), with its lines listed by hand. Every position of the classes
//! 3-3, 3-4 and 4-3, and every reachable position of the 3-stone game, must have the tables'
//! value and distance.

use crate::common;

use common::brute::{
    Board, DIAGONALS, STANDARD_LINES, Stones, class_positions, library_position, seen_from_mover, solve,
};
use common::scratch;
use std::collections::HashMap;
use std::path::Path;
use tablebase::games::morris::{Class, Color, Morabaraba, MorrisTablebase, MovingPhase, Opening, Position};
use tablebase::{Probe, Value};

fn morabaraba_board() -> Board {
    Board::new(&[&STANDARD_LINES[..], &DIAGONALS[..]].concat())
}

fn generate_classes(dir: &Path, class: &str) {
    let target = Class::parse(class);
    tablebase::generate(&MovingPhase::<Morabaraba>::new(target), dir, &tablebase::GenerateOptions::default())
        .unwrap();
}

/// Every position of the classes, with the tables' value and distance.
fn check_classes(tables: &MorrisTablebase<Morabaraba>, solved: &HashMap<Stones, Value>) {
    let mut counts = HashMap::new();
    for (&p, &value) in solved {
        assert_eq!(tables.value(&library_position(p, [0, 0], Color::White)).unwrap(), value, "{p:?}");
        *counts.entry(std::mem::discriminant(&value)).or_insert(0u64) += 1;
    }
    assert!(counts.len() >= 2, "a class of one outcome would test little");
}

fn solve_three_three(board: &Board) -> HashMap<Stones, Value> {
    solve(board, &class_positions(board, 3, 3), &HashMap::new())
}

#[test]
fn the_board_of_this_test_has_16_symmetries_that_keep_its_lines() {
    let board = morabaraba_board();
    let mut distinct = std::collections::HashSet::new();
    for sym in 0..16 {
        let mut mills: Vec<u32> = board.mills.iter().map(|&m| board.transform(sym, m)).collect();
        let mut expected = board.mills.clone();
        mills.sort();
        expected.sort();
        assert_eq!(mills, expected, "symmetry {sym}");
        distinct.insert((0..24).map(|p| board.transform(sym, 1 << p)).collect::<Vec<_>>());
    }
    assert_eq!(distinct.len(), 16);
    assert_eq!(board.adjacent.iter().map(|a| a.count_ones()).sum::<u32>(), 2 * 40);
}

#[test]
fn class_3_3_equals_the_brute_force() {
    let board = morabaraba_board();
    let dir = scratch("mora-3-3");
    generate_classes(&dir, "3-3");
    let solved = solve_three_three(&board);
    assert_eq!(solved.len() as u64, tablebase::games::morris::Class::parse("3-3").unwrap().index().size());
    check_classes(&MorrisTablebase::open(&*dir, 12), &solved);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn classes_3_4_and_4_3_equal_the_brute_force() {
    let board = morabaraba_board();
    let dir = scratch("mora-4-3");
    generate_classes(&dir, "4-3");
    let three_three = solve_three_three(&board);
    let mut pair = class_positions(&board, 3, 4);
    pair.extend(class_positions(&board, 4, 3));
    let solved = solve(&board, &pair, &three_three);
    check_classes(&MorrisTablebase::open(&*dir, 12), &solved);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A placement position of the 3-stone game: stones, hands (of the side to move, of the other).
type Placement = (Stones, [u32; 2]);

/// The plain minimax over placements, ending in the brute force's class 3-3.
fn minimax(
    board: &Board,
    (stones, hands): Placement,
    moving: &HashMap<Stones, Value>,
    memo: &mut HashMap<Placement, Value>,
) -> Value {
    let key = (board.canonical(stones), hands);
    if hands == [0, 0] {
        return moving[&key.0];
    }
    if let Some(&v) = memo.get(&key) {
        return v;
    }
    let (mine, theirs) = stones;
    let mut out = Vec::new();
    let empty = !(mine | theirs) & 0xff_ffff;
    for to in (0..24).filter(|&p| empty & (1 << p) != 0) {
        board.after(mine | (1 << to), theirs, to, hands[1], &mut out);
    }
    let mut best: Option<Value> = None;
    for next in out {
        let v = match next {
            None => Value::Win(1),
            Some(next) => seen_from_mover(minimax(board, (next, [hands[1], hands[0] - 1]), moving, memo)),
        };
        best = Some(match best {
            None => v,
            Some(b) => better(b, v),
        });
    }
    let value = best.expect("a placement always has an empty point");
    memo.insert(key, value);
    value
}

/// The better of two outcomes for the side choosing: the quickest win, else a draw, else the
/// longest loss.
fn better(a: Value, b: Value) -> Value {
    let rank = |v: Value| match v {
        Value::Win(n) => (2, -i64::from(n)),
        Value::Draw => (1, 0),
        Value::Loss(n) => (0, i64::from(n)),
        Value::WinUnknown | Value::LossUnknown => unreachable!("Morris values have distances"),
    };
    if rank(b) > rank(a) { b } else { a }
}

#[test]
fn the_three_stone_game_equals_the_brute_force() {
    let board = morabaraba_board();
    let dir = scratch("mora-k3");
    tablebase::generate(
        &MovingPhase::<Morabaraba>::for_stones(3),
        &dir,
        &tablebase::GenerateOptions::default(),
    )
    .unwrap();
    let opening =
        Opening::<Morabaraba>::new(3).with_classes(&dir, tablebase::table::Check::Checksum).unwrap();
    tablebase::generate(&tablebase::Layered::new(opening), &dir, &tablebase::GenerateOptions::default())
        .unwrap();
    let tables = MorrisTablebase::<Morabaraba>::open(&*dir, 3);
    let moving = solve_three_three(&board);
    let mut memo = HashMap::new();
    let start = minimax(&board, ((0, 0), [3, 3]), &moving, &mut memo);
    assert_eq!(tables.value(&Position::start(3)).unwrap(), start, "the start");
    assert_eq!(start, Value::Win(9), "the brute force's own answer, kept so that a change shows");
    let mut per_ply = [0u64; 6];
    for (&((mover, other), [mover_hand, other_hand]), &value) in &memo {
        let placed = 6 - mover_hand - other_hand;
        let to_move = if placed % 2 == 0 { Color::White } else { Color::Black };
        let mut hand = [0u8; 2];
        hand[to_move.index()] = mover_hand as u8;
        hand[to_move.other().index()] = other_hand as u8;
        let p = library_position((mover, other), hand, to_move);
        assert_eq!(tables.value(&p).unwrap(), value, "{p:?}");
        per_ply[placed as usize] += 1;
    }
    let counts: Vec<u64> = tablebase::info(&Opening::<Morabaraba>::tables(3), &dir)
        .iter()
        .map(|row| row.positions.unwrap())
        .collect();
    assert_eq!(counts, per_ply, "reachable positions per placement ply");
    std::fs::remove_dir_all(&dir).unwrap();
}
