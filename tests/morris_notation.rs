//! Position and move notation: round trips and one clear error per kind of bad input.

use tablebase::games::morris::Standard;
use tablebase::games::morris::for_each_move;
use tablebase::games::morris::{Color, Position};
use tablebase::games::morris::{NotationError, PositionText, parse_move, parse_position};
use tablebase::testing::SplitMix64;
use tablebase::testing::morris::hands_alternate;

fn random_position(rng: &mut SplitMix64, k: u8) -> Position {
    loop {
        let to_move = if rng.below(2) == 0 { Color::White } else { Color::Black };
        let placed_white = rng.below(u64::from(k) + 1) as u8;
        let hand = match to_move {
            Color::White => [k - placed_white, k - placed_white],
            Color::Black if placed_white > 0 => [k - placed_white, k - placed_white + 1],
            Color::Black => [0, 0],
        };
        let on_board = |rng: &mut SplitMix64, c: usize| rng.below(u64::from(k - hand[c]) + 1) as u32;
        let white_count = on_board(rng, 0);
        let black_count = on_board(rng, 1);
        let all = (1u32 << 24) - 1;
        let white = rng.subset(all, white_count);
        let black = rng.subset(all & !white, black_count);
        let pos = Position { stones: [white, black], hand, to_move };
        if hands_alternate(hand, to_move) && pos.material(to_move.other()) >= 3 {
            return pos;
        }
    }
}

#[test]
fn random_positions_round_trip() {
    let mut rng = SplitMix64::new(7);
    for _ in 0..100_000 {
        let k = 3 + rng.below(7) as u8;
        let pos = random_position(&mut rng, k);
        let text = PositionText(&pos).to_string();
        assert_eq!(parse_position(&text, k), Ok(pos), "{text}");
        for_each_move::<Standard>(&pos, |mv, _| {
            assert_eq!(parse_move(&mv.to_string()), Ok(mv));
        });
    }
}

#[test]
fn extra_spaces_and_hands_are_accepted() {
    let a = parse_position("  W:a1,d1,g1   B:a4,b4,c4,d2  b 0 0 ", 9).unwrap();
    let b = parse_position("W:g1,a1,d1 B:d2,a4,b4,c4 b", 9).unwrap();
    assert_eq!(a, b);
    let placing = parse_position("W:d2 B: b 8 9", 9).unwrap();
    assert_eq!(placing.hand, [8, 9]);
}

#[test]
fn each_kind_of_bad_input_has_its_own_error() {
    use NotationError::*;
    type Expectation = fn(&NotationError) -> bool;
    let cases: &[(&str, Expectation)] = &[
        ("W:a1,h8 B: w", |e| matches!(e, UnknownPoint(p) if p == "h8")),
        ("W:d4 B:a1,a4,a7 w", |e| matches!(e, UnknownPoint(p) if p == "d4")),
        ("W:a1,a1,d1,g1 B:a4,b4,c4 w", |e| matches!(e, DuplicatePoint(p) if p == "a1")),
        ("W:a1,d1,g1 B:a1,b4,c4 w", |e| matches!(e, PointOnBothSides(p) if p == "a1")),
        ("W:a1,d1,g1,a4,a7,b2,b4,b6,c3,c4 B:d1 w", |e| matches!(e, PointOnBothSides(p) if p == "d1")),
        ("W:a1,d1,g1,a4,a7,b2,b4,b6,c3,c4 B:d2,d3,d5 w", |e| {
            matches!(e, TooManyStones { color: Color::White, on_board: 10, .. })
        }),
        ("W:a1 B:d1 w 9 9", |e| matches!(e, TooManyStones { color: Color::White, .. })),
        ("W: B: w 10 10", |e| matches!(e, HandOutOfRange { hand: 10, .. })),
        ("W: B: w 9 x", |e| matches!(e, BadHand(s) if s == "x")),
        ("W: B: w 9", |e| matches!(e, Malformed { .. })),
        ("W:a1,d1,g1 B:a4,b4,c4", |e| matches!(e, MissingSideToMove)),
        ("W:a1,d1,g1 B:a4,b4,c4 x", |e| matches!(e, BadSideToMove(s) if s == "x")),
        ("W:a1,d1,g1 B:a4,b4,c4 white", |e| matches!(e, BadSideToMove(_))),
        ("B:a4 W:a1 w", |e| matches!(e, Malformed { .. })),
        ("W:a1,,d1 B:a4,b4,c4 w", |e| matches!(e, Malformed { .. })),
        ("W: B: b 9 9", |e| matches!(e, HandsDoNotAlternate { .. })),
        ("W:a1,d1,g1 B:a4,b4 w", |e| matches!(e, GameAlreadyOver(Color::Black))),
        ("", |e| matches!(e, Malformed { .. })),
    ];
    for (text, is_expected) in cases {
        let err = parse_position(text, 9).expect_err(text);
        assert!(is_expected(&err), "{text}: {err:?}");
        let message = err.to_string();
        assert!(!message.contains('\n') && !message.is_empty());
    }
    // A smaller game: each side starts with 3.
    assert!(matches!(parse_position("W: B: w 4 4", 3), Err(HandOutOfRange { .. })));
    assert!(parse_position("W: B: w 3 3", 3).is_ok());
}
