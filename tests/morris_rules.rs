//! Moves and un-moves are exact inverses: `p` is a predecessor of `s` exactly when `s` is a
//! successor of `p`.

use crate::common;

use common::random_placement;
use tablebase::games::morris::for_each_move;
use tablebase::games::morris::{Color, Position};
use tablebase::games::morris::{Lasker, MorrisVariant, Standard};
use tablebase::testing::SplitMix64;
use tablebase::testing::morris::ClassIndex;
use tablebase::testing::morris::{for_each_unmove, for_each_unslide, hands_alternate};

/// Checks both directions of the inverse relation at `pos` in variant `V`; returns
/// (successors, predecessors).
fn check_inverse_in<V: MorrisVariant>(pos: &Position, k: u8) -> (u64, u64) {
    let (mut successors, mut predecessors) = (0, 0);
    for_each_move::<V>(pos, |mv, next| {
        successors += 1;
        let mut found = false;
        for_each_unmove::<V>(&next, k, |p| found |= p == *pos);
        assert!(found, "{pos:?} --{mv}--> {next:?}, but no un-move leads back");
    });
    for_each_unmove::<V>(pos, k, |before| {
        predecessors += 1;
        let mut found = false;
        for_each_move::<V>(&before, |_, next| found |= next == *pos);
        assert!(found, "{before:?} is an un-move of {pos:?}, but no move leads there");
    });
    // The un-slides are the un-moves whose predecessor holds the same stones in hand.
    let mut all = Vec::new();
    for_each_unmove::<V>(pos, k, |p| {
        if p.hand == pos.hand {
            all.push(p)
        }
    });
    let mut slides = Vec::new();
    for_each_unslide::<V>(pos, k, |p| slides.push(p));
    let key = |p: &Position| (p.stones, p.to_move);
    all.sort_by_key(key);
    slides.sort_by_key(key);
    assert_eq!(all, slides);
    (successors, predecessors)
}

fn check_inverse(pos: &Position, k: u8) -> (u64, u64) {
    check_inverse_in::<Standard>(pos, k)
}

fn moving(mover: u32, other: u32, to_move: Color) -> Position {
    let mut stones = [0; 2];
    stones[to_move.index()] = mover;
    stones[to_move.other().index()] = other;
    Position { stones, hand: [0, 0], to_move }
}

/// Every distinct position of the class, with either colour to move (the colour matters only for
/// un-placing the last stone into an empty-handed position).
fn check_class_exhaustively(a: u32, b: u32) {
    let class = ClassIndex::new(a, b);
    let (mut successors, mut predecessors) = (0, 0);
    for index in 0..class.size() {
        let (m, o) = class.position(index);
        for to_move in [Color::White, Color::Black] {
            let (s, p) = check_inverse(&moving(m, o, to_move), 9);
            successors += s;
            predecessors += p;
        }
    }
    assert!(successors > class.size() && predecessors > class.size(), "{a}-{b}");
}

#[test]
fn exhaustive_3_3() {
    check_class_exhaustively(3, 3);
}

#[test]
fn exhaustive_3_4() {
    check_class_exhaustively(3, 4);
}

#[test]
fn exhaustive_4_3() {
    check_class_exhaustively(4, 3);
}

#[test]
fn random_moving_positions_of_every_other_class() {
    let mut rng = SplitMix64::new(11);
    for a in 3..=9 {
        for b in 3..=9 {
            if matches!((a, b), (3, 3) | (3, 4) | (4, 3)) {
                continue;
            }
            for _ in 0..30_000 {
                let (m, o) = random_placement(&mut rng, a, b);
                let to_move = if rng.below(2) == 0 { Color::White } else { Color::Black };
                check_inverse(&moving(m, o, to_move), 9);
            }
        }
    }
}

#[test]
fn random_placement_phase_positions() {
    let mut rng = SplitMix64::new(12);
    let mut checked = 0;
    while checked < 300_000 {
        let k = 3 + rng.below(7) as u8;
        let placed = rng.below(2 * u64::from(k)) as u8; // plies played so far
        let to_move = if placed.is_multiple_of(2) { Color::White } else { Color::Black };
        let hand = [k - placed.div_ceil(2), k - placed / 2];
        let all = (1u32 << 24) - 1;
        let white_count = rng.below(u64::from(k - hand[0]) + 1) as u32;
        let black_count = rng.below(u64::from(k - hand[1]) + 1) as u32;
        let white = rng.subset(all, white_count);
        let black = rng.subset(all & !white, black_count);
        let pos = Position { stones: [white, black], hand, to_move };
        assert!(hands_alternate(hand, to_move));
        if pos.material(to_move.other()) < 3 {
            continue;
        }
        check_inverse(&pos, k);
        checked += 1;
    }
}

#[test]
fn first_and_last_placements() {
    let start = Position::start(9);
    let (successors, predecessors) = check_inverse(&start, 9);
    assert_eq!((successors, predecessors), (24, 0));
    // After White's first stone: one un-move, back to the start.
    let mut after = None;
    for_each_move::<Standard>(&start, |_, next| after = after.or(Some(next)));
    assert_eq!(check_inverse(&after.unwrap(), 9).1, 1);
}

/// Lasker Morris: any hands, placements and slides at every turn, flights with three stones on
/// the board and in hand together.
#[test]
fn random_lasker_positions() {
    let mut rng = SplitMix64::new(28);
    let (mut checked, mut placing_and_sliding) = (0, 0);
    while checked < 300_000 {
        let k = 3 + rng.below(8) as u8;
        let all = (1u32 << 24) - 1;
        let white_count = rng.below(u64::from(k) + 1) as u32;
        let black_count = rng.below(u64::from(k) + 1) as u32;
        let hand = [
            rng.below(u64::from(k) - u64::from(white_count) + 1) as u8,
            rng.below(u64::from(k) - u64::from(black_count) + 1) as u8,
        ];
        let white = rng.subset(all, white_count);
        let black = rng.subset(all & !white, black_count);
        let to_move = if rng.below(2) == 0 { Color::White } else { Color::Black };
        let pos = Position { stones: [white, black], hand, to_move };
        if pos.material(to_move.other()) < 3 {
            continue;
        }
        let (mut placements, mut slides) = (0, 0);
        for_each_move::<Lasker>(&pos, |mv, _| if mv.is_placement() { placements += 1 } else { slides += 1 });
        placing_and_sliding += u32::from(placements > 0 && slides > 0);
        check_inverse_in::<Lasker>(&pos, k);
        checked += 1;
    }
    assert!(placing_and_sliding > 100_000, "{placing_and_sliding} positions with both kinds of move");
}
