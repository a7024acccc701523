//! Lasker Morris with three stones a side against the independent brute force of
//! `common/brute.rs`, written from the rules (docs/RULES.md): every position of every sector of
//! the game (each side's three stones split in any way between the board and the hand, with
//! either side to move) must have the tables' value and distance.

use crate::common;

use common::brute::{Board, STANDARD_LINES, Stones, class_positions, library_position, solve_states};
use common::scratch;
use std::collections::HashMap;
use tablebase::games::morris::{Color, Lasker, MorrisTablebase, Position, Sectors};
use tablebase::{Probe, Value};

/// A position: stones of the side to move and of the other side, then their stones in hand.
type State = (Stones, [u32; 2]);

fn points(set: u32) -> impl Iterator<Item = usize> {
    (0..24).filter(move |&p| set & (1 << p) != 0)
}

/// Every move of Lasker Morris: a placement while the side holds stones, and at any time a
/// slide along a line, or a flight where the side has three stones on the board and in hand
/// together.
fn lasker_moves(board: &Board, ((mine, theirs), [my_hand, their_hand]): State, out: &mut Vec<Option<State>>) {
    out.clear();
    let mut after = Vec::new();
    let empty = !(mine | theirs) & 0xff_ffff;
    let add = |after: &mut Vec<Option<Stones>>, hands: [u32; 2], out: &mut Vec<Option<State>>| {
        out.extend(after.drain(..).map(|next| next.map(|stones| (stones, hands))));
    };
    if my_hand > 0 {
        for to in points(empty) {
            board.after(mine | (1 << to), theirs, to, their_hand, &mut after);
            add(&mut after, [their_hand, my_hand - 1], out);
        }
    }
    let flying = mine.count_ones() + my_hand == 3;
    for from in points(mine) {
        let targets = if flying { empty } else { board.adjacent[from] & empty };
        for to in points(targets) {
            board.after(mine & !(1 << from) | (1 << to), theirs, to, their_hand, &mut after);
            add(&mut after, [their_hand, my_hand], out);
        }
    }
}

#[test]
fn the_three_stone_game_equals_the_brute_force() {
    let board = Board::new(&STANDARD_LINES);
    let mut states = Vec::new();
    let mut per_sector = Vec::new();
    for (mover, mover_hand) in (0..=3).map(|b| (b, 3 - b)) {
        for (other, other_hand) in (0..=3).map(|b| (b, 3 - b)) {
            let positions = class_positions(&board, mover, other);
            per_sector.push(((mover, other, mover_hand, other_hand), positions.len() as u64));
            states.extend(positions.into_iter().map(|stones| (stones, [mover_hand, other_hand])));
        }
    }
    let solved = solve_states(
        &states,
        |state, out| lasker_moves(&board, state, out),
        |(stones, hands)| (board.canonical(stones), hands),
        &HashMap::new(),
    );
    let start = solved[&((0, 0), [3, 3])];
    assert_eq!(start, Value::Win(23), "the brute force's own answer, kept so that a change shows");

    let dir = scratch("lasker-k3");
    tablebase::generate(&Sectors::<Lasker>::new(3), &dir, &tablebase::GenerateOptions::default()).unwrap();
    let tables = MorrisTablebase::<Lasker>::open(&*dir, 3);
    assert_eq!(tables.value(&Position::start(3)).unwrap(), start, "the start");
    let mut outcomes = HashMap::new();
    for (&(stones, [mover_hand, other_hand]), &value) in &solved {
        for to_move in [Color::White, Color::Black] {
            let mut hand = [0u8; 2];
            hand[to_move.index()] = mover_hand as u8;
            hand[to_move.other().index()] = other_hand as u8;
            let p = library_position(stones, hand, to_move);
            assert_eq!(tables.value(&p).unwrap(), value, "{p:?}");
        }
        *outcomes.entry(std::mem::discriminant(&value)).or_insert(0u64) += 1;
    }
    assert_eq!(outcomes.len(), 3, "wins, losses and draws all occur");
    let counts: HashMap<String, u64> = tablebase::info(&Sectors::<Lasker>::new(3), &dir)
        .iter()
        .map(|row| (row.table.clone(), row.positions.unwrap()))
        .collect();
    for ((a, b, c, d), n) in per_sector {
        assert_eq!(counts[&format!("{a}-{b} hands {c}-{d}")], n, "sector {a}-{b} hands {c}-{d}");
    }
    assert_eq!(solved.len(), 234_889);
    std::fs::remove_dir_all(&dir).unwrap();
}
