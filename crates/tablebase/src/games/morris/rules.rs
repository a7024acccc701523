//! Moves and un-moves of the Morris variants (docs/RULES.md), allocation-free, each compiled for
//! one variant's rules.
//!
//! Successors are produced by [`for_each_move`]; predecessors by [`for_each_unmove`], its exact
//! inverse: `p` is produced by `for_each_unmove(s)` exactly when `s` is produced by
//! `for_each_move(p)`. The solver walks predecessors; probe and verify walk successors.

use super::board::{ALL_POINTS, Points, points};
use super::position::{Color, Move, NO_POINT, Position};
use super::variant::{MorrisVariant, in_mill, removable};

/// Whether the hands fit the alternation of docs/RULES.md (White places first): White to move
/// holds as many stones as Black, Black to move holds one more, and after the last placement
/// either side may be to move with both hands empty.
#[inline]
pub fn hands_alternate(hand: [u8; 2], to_move: Color) -> bool {
    let [white, black] = hand;
    (white == 0 && black == 0)
        || match to_move {
            Color::White => white == black,
            Color::Black => black == white + 1,
        }
}

/// Whether the game is over with the side to move having lost: fewer than three stones on the
/// board and in hand, or no legal move (unless the board is full where that is a draw).
pub fn is_lost<V: MorrisVariant>(pos: &Position) -> bool {
    if pos.material(pos.to_move) < 3 {
        return true;
    }
    let mut any = false;
    for_each_move::<V>(pos, |_, _| any = true);
    !any && !is_full_board_draw::<V>(pos)
}

/// Whether `pos` is a full board, which ends the game in a draw in variants with that rule. Its
/// side to move has no move: every point is taken, and with 12 stones nobody flies.
#[inline]
pub fn is_full_board_draw<V: MorrisVariant>(pos: &Position) -> bool {
    V::RULES.full_board_is_draw && V::RULES.can_fill_board() && pos.occupied() == ALL_POINTS
}

/// Whether `color`'s stones fly rather than slide: three stones left on the board and in hand
/// (Malom's rule). Where stones slide only once both hands are empty, that is three on the board.
#[inline]
pub(crate) fn flies(pos: &Position, color: Color) -> bool {
    pos.material(color) == 3
}

/// Whether the side to move may slide (or fly) a stone: always in variants that let a side move
/// while it still holds stones (Lasker), else once both hands are empty.
#[inline]
fn may_slide<V: MorrisVariant>(pos: &Position) -> bool {
    V::RULES.moves_while_placing || pos.is_moving_phase()
}

/// Calls `f(move, successor)` for every legal move of `pos`. A successor in which the side to
/// move has fewer than three stones is a finished game (the mover won). A position whose side to
/// move has already lost by material has no moves.
#[inline]
pub fn for_each_move<V: MorrisVariant>(pos: &Position, mut f: impl FnMut(Move, Position)) {
    let me = pos.to_move;
    let them = me.other();
    if pos.material(me) < 3 || pos.material(them) < 3 {
        return;
    }
    let empty = !pos.occupied() & ALL_POINTS;
    let mine = pos.stones[me.index()];
    if pos.hand[me.index()] > 0 {
        let mut hand_after = pos.hand;
        hand_after[me.index()] -= 1;
        for to in points(empty) {
            emit::<V>(pos, NO_POINT, to, mine | (1 << to), hand_after, &mut f);
        }
    }
    // Where placements alternate, a side slides only once both hands are empty: alternation
    // never leaves the side to move with an empty hand while the other still holds stones, and
    // such a position has no moves rather than invented ones.
    if may_slide::<V>(pos) {
        let flying = flies(pos, me);
        for from in points(mine) {
            let targets = if flying { empty } else { V::RULES.adjacent[from] & empty };
            for to in points(targets) {
                emit::<V>(pos, from as u8, to, mine & !(1 << from) | (1 << to), pos.hand, &mut f);
            }
        }
    }
}

/// Calls `f` for the move of a stone of the side to move of `pos` from `from` (or the hand) to
/// `to`, which leaves its stones `mine_after` and the hands `hand_after`: once, or once per
/// removable stone where it closes a mill. Always inlined: it is the body of the move loops.
#[inline(always)]
fn emit<V: MorrisVariant>(
    pos: &Position,
    from: u8,
    to: usize,
    mine_after: Points,
    hand_after: [u8; 2],
    f: &mut impl FnMut(Move, Position),
) {
    let me = pos.to_move;
    let them = me.other();
    let theirs = pos.stones[them.index()];
    let mut next = Position { stones: pos.stones, hand: hand_after, to_move: them };
    next.stones[me.index()] = mine_after;
    let mv = Move { from, to: to as u8, remove: NO_POINT };
    if in_mill::<V>(mine_after, to) {
        for r in points(removable::<V>(theirs)) {
            let mut after = next;
            after.stones[them.index()] = theirs & !(1 << r);
            f(Move { remove: r as u8, ..mv }, after);
        }
    } else {
        f(mv, next);
    }
}

/// Calls `f(predecessor)` for every position from which a legal move leads to `pos`, in a game
/// where each side starts with `stones_per_side` stones: un-slides and un-flies (both hands
/// empty before and after), un-placements, each with the removed stone put back where the
/// move closed a mill.
#[inline]
pub fn for_each_unmove<V: MorrisVariant>(pos: &Position, stones_per_side: u8, mut f: impl FnMut(Position)) {
    let me = pos.to_move; // the side that did not make the last move
    let them = me.other(); // the side that made it
    let alternate = !V::RULES.moves_while_placing;
    if pos.material(them) < 3 || (alternate && !hands_alternate(pos.hand, me)) {
        return;
    }
    let mut unplaced_hand = pos.hand;
    unplaced_hand[them.index()] += 1;
    if u32::from(unplaced_hand[them.index()]) <= u32::from(stones_per_side)
        && (!alternate || hands_alternate(unplaced_hand, them))
    {
        for_each_unmove_of_kind::<V>(pos, stones_per_side, None, unplaced_hand, &mut f);
    }
    if may_slide::<V>(pos) {
        for_each_unmove_of_kind::<V>(pos, stones_per_side, Some(flies(pos, them)), pos.hand, &mut f);
    }
}

/// Un-slides and un-flies only (the hands as they are), each with the removed stone put back
/// where the move closed a mill.
#[inline]
pub fn for_each_unslide<V: MorrisVariant>(pos: &Position, max_stones: u8, mut f: impl FnMut(Position)) {
    let them = pos.to_move.other();
    if pos.material(them) < 3 || !may_slide::<V>(pos) {
        return;
    }
    for_each_unmove_of_kind::<V>(pos, max_stones, Some(flies(pos, them)), pos.hand, &mut f);
}

/// Un-slides that removed no stone: the predecessors in the same sector (the same stones on the
/// board and in hand), which are all the cyclic solver walks (a capture's or a placement's
/// predecessor lies in another sector). A move whose stone stands in a mill closed that mill
/// and removed a stone, so it is skipped before any removal is tried, which
/// [`for_each_unslide`] followed by a filter would not do.
#[inline]
pub fn for_each_unslide_in_sector<V: MorrisVariant>(pos: &Position, mut f: impl FnMut(Position)) {
    let me = pos.to_move;
    let them = me.other();
    if pos.material(them) < 3 || pos.material(me) < 3 || !may_slide::<V>(pos) {
        return;
    }
    let empty = !pos.occupied() & ALL_POINTS;
    let theirs = pos.stones[them.index()];
    let flying = flies(pos, them);
    for to in points(theirs) {
        if in_mill::<V>(theirs, to) {
            continue;
        }
        let sources = if flying { empty } else { V::RULES.adjacent[to] & empty };
        for from in points(sources) {
            let mut before = Position { stones: pos.stones, hand: pos.hand, to_move: them };
            before.stones[them.index()] = theirs & !(1 << to) | (1 << from);
            f(before);
        }
    }
}

/// `flying`: `None` un-places; `Some(flies)` un-slides (or un-flies when `flies`).
#[inline]
fn for_each_unmove_of_kind<V: MorrisVariant>(
    pos: &Position,
    stones_per_side: u8,
    flying: Option<bool>,
    hand_before: [u8; 2],
    f: &mut impl FnMut(Position),
) {
    let me = pos.to_move;
    let them = me.other();
    let empty = !pos.occupied() & ALL_POINTS;
    let mine = pos.stones[me.index()];
    let theirs = pos.stones[them.index()];
    let my_material = pos.material(me);
    for to in points(theirs) {
        let closed_mill = in_mill::<V>(theirs, to);
        let sources = match flying {
            None => 1, // a single pseudo-source: the stone goes back to the hand
            Some(true) => empty,
            Some(false) => V::RULES.adjacent[to] & empty,
        };
        for from in points(sources) {
            let theirs_before = match flying {
                None => theirs & !(1 << to),
                Some(_) => theirs & !(1 << to) | (1 << from),
            };
            let mut before = Position { stones: pos.stones, hand: hand_before, to_move: them };
            before.stones[them.index()] = theirs_before;
            if closed_mill {
                // The side to move had one stone more before; the game was still on.
                if my_material + 1 > u32::from(stones_per_side) || my_material + 1 < 3 {
                    continue;
                }
                let vacated = if flying.is_some() { 1 << from } else { 0 };
                for back in points(empty & !vacated) {
                    let mine_before = mine | (1 << back);
                    if removable::<V>(mine_before) & (1 << back) != 0 {
                        let mut p = before;
                        p.stones[me.index()] = mine_before;
                        f(p);
                    }
                }
            } else if my_material >= 3 {
                f(before);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::morris::board::point_from_name;
    use crate::games::morris::variant::{Morabaraba, Standard};

    fn at(names: &[&str]) -> Points {
        names.iter().map(|n| 1 << point_from_name(n).unwrap()).sum()
    }

    fn moves(pos: &Position) -> Vec<String> {
        let mut v = Vec::new();
        for_each_move::<Standard>(pos, |m, _| v.push(m.to_string()));
        v.sort();
        v
    }

    #[test]
    fn start_has_24_placements() {
        assert_eq!(moves(&Position::start(9)).len(), 24);
    }

    #[test]
    fn slides_flies_and_removals() {
        // White a1,d1 with g4 able to slide to g1: closes a1-d1-g1 and removes a free stone.
        let pos = Position {
            stones: [at(&["a1", "d1", "g4", "b6"]), at(&["a7", "d7", "g7", "d5"])],
            hand: [0, 0],
            to_move: Color::White,
        };
        let m = moves(&pos);
        // The black mill a7-d7-g7 protects its stones; only d5 may go.
        assert!(m.contains(&"g4-g1xd5".to_string()));
        assert!(!m.iter().any(|s| s.starts_with("g4-g1x") && s != "g4-g1xd5"));
        assert!(m.contains(&"b6-d6".to_string()));
        // Black with three stones flies anywhere empty.
        let black = Position { to_move: Color::Black, ..pos };
        let three = Position { stones: [pos.stones[0], at(&["a7", "d7", "d5"])], ..black };
        // 3 stones x 17 empty points, of which d5-g7 and a7-d6 close a mill and each take one
        // of the four unprotected white stones.
        let m = moves(&three);
        assert_eq!(m.len(), 3 * 17 - 2 + 2 * 4);
        assert!(m.contains(&"a7-d6xg4".to_string()) && m.contains(&"d5-g7xa1".to_string()));
    }

    #[test]
    fn a_side_without_moves_or_material_has_lost() {
        let blocked = Position {
            stones: [at(&["a7", "d7", "g7", "a4"]), at(&["d6", "g4", "a1", "b4", "b6", "c4"])],
            hand: [0, 0],
            to_move: Color::White,
        };
        // a7-d7-g7, a4 boxed in by d6, g4, a1, b4 and the mill itself.
        assert!(is_lost::<Standard>(&blocked));
        let two = Position { stones: [at(&["a7", "d7"]), at(&["a1", "d1", "g1"])], ..blocked };
        assert!(is_lost::<Standard>(&two));
    }

    fn moves_of<V: MorrisVariant>(pos: &Position) -> Vec<String> {
        let mut v = Vec::new();
        for_each_move::<V>(pos, |m, _| v.push(m.to_string()));
        v.sort();
        v
    }

    /// The un-moves within a class are exactly the un-moves that keep the side to move's
    /// stones, in the same order, for random positions of both variants.
    #[test]
    fn unslides_in_class_are_the_unslides_without_a_stone_put_back() {
        fn check<V: MorrisVariant>(seed: u64) {
            let mut rng = crate::rng::SplitMix64::new(seed);
            for _ in 0..20_000 {
                let (mut white, mut black) = (0u32, 0u32);
                let (w, b) = (3 + rng.below(8) as u32, 3 + rng.below(8) as u32);
                while white.count_ones() < w {
                    white |= 1 << rng.below(24);
                }
                while black.count_ones() < b {
                    let p = 1 << rng.below(24);
                    if white & p == 0 {
                        black |= p;
                    }
                }
                let pos = Position { stones: [white, black], hand: [0, 0], to_move: Color::White };
                let (mut all, mut in_class) = (Vec::new(), Vec::new());
                for_each_unslide::<V>(&pos, V::RULES.stones as u8, |p| {
                    if p.stones[0] == white {
                        all.push(p)
                    }
                });
                for_each_unslide_in_sector::<V>(&pos, |p| in_class.push(p));
                assert_eq!(all, in_class, "{pos:?}");
            }
        }
        check::<Standard>(1);
        check::<Morabaraba>(2);
    }

    /// Morabaraba's stones slide along the diagonals, and a diagonal closed is a mill.
    #[test]
    fn morabaraba_slides_and_mills_along_the_diagonals() {
        let pos = Position { stones: [at(&["b2", "c3", "g7", "g1"]), at(&["a4", "g4", "d1", "d7"])], hand: [0, 0], to_move: Color::White };
        let from_b2 = |moves: Vec<String>| moves.into_iter().filter(|m| m.starts_with("b2")).collect::<Vec<_>>();
        assert_eq!(from_b2(moves_of::<Standard>(&pos)), ["b2-b4", "b2-d2"]);
        // b2-a1 leaves b2 empty: a1, b2, c3 is no mill after it.
        assert_eq!(from_b2(moves_of::<Morabaraba>(&pos)), ["b2-a1", "b2-b4", "b2-d2"]);
        // a stone slid onto the diagonal's last point closes it: a removal follows.
        let pos = Position { stones: [at(&["a1", "c3", "b4", "g1"]), at(&["a4", "g4", "d1", "d7"])], ..pos };
        let b4_b2 = |moves: Vec<String>| moves.into_iter().filter(|m| m.starts_with("b4-b2")).collect::<Vec<_>>();
        assert_eq!(b4_b2(moves_of::<Morabaraba>(&pos)), ["b4-b2xa4", "b4-b2xd1", "b4-b2xd7", "b4-b2xg4"]);
        assert_eq!(b4_b2(moves_of::<Standard>(&pos)), ["b4-b2"]);
        // The diagonal's own stones slide onto b2 too, leaving it open.
        assert!(moves_of::<Morabaraba>(&pos).contains(&"a1-b2".to_string()));
    }

    /// A full board (12 stones a side) has no move, and in Morabaraba it is a draw, not a loss.
    #[test]
    fn a_full_morabaraba_board_is_drawn() {
        let white = at(&["a1", "a4", "a7", "b2", "b4", "b6", "c3", "c4", "c5", "d1", "d2", "d3"]);
        let full = Position { stones: [white, ALL_POINTS & !white], hand: [0, 0], to_move: Color::White };
        assert!(moves_of::<Morabaraba>(&full).is_empty());
        assert!(is_full_board_draw::<Morabaraba>(&full));
        assert!(!is_lost::<Morabaraba>(&full));
        let one_empty = Position { stones: [white, ALL_POINTS & !white & !at(&["g7"])], ..full };
        assert!(!is_full_board_draw::<Morabaraba>(&one_empty));
        // With g7 empty White is blocked (d7, g4 and f6 are Black's): that is a loss, as on any
        // board that is not full. Black slides into g7 and closes a mill (g1-g4-g7 or
        // e5-f6-g7) each time, taking any White stone (all are in mills).
        assert!(moves_of::<Morabaraba>(&one_empty).is_empty());
        assert!(is_lost::<Morabaraba>(&one_empty));
        let black = Position { to_move: Color::Black, ..one_empty };
        let slides: std::collections::BTreeSet<String> =
            moves_of::<Morabaraba>(&black).iter().map(|m| m[..5].to_string()).collect();
        assert_eq!(slides.into_iter().collect::<Vec<_>>(), ["d7-g7", "f6-g7", "g4-g7"]);
        assert_eq!(moves_of::<Morabaraba>(&black).len(), 3 * 12);
    }
}
