//! Morris variants as data: a variant is a [`MorrisRules`] value (its lines, its mills, the
//! stones each side starts with and the rules that differ between variants), reached through a
//! type that implements [`MorrisVariant`]. The move generator, the solver loops and the
//! opening are generic over that type, so that each variant's hot loops are compiled with its
//! constants folded in: the standard game runs the code it ran before rules were data.

use super::board::{POINT_COUNT, Points, RING_SIZE};
use super::reference;
use crate::catalogue::{Rate, Reference};
use crate::game::{Purpose, Setting};
use std::fmt;

/// The rules of one Morris variant on the 24-point board.
#[derive(Clone, Copy, Debug)]
pub struct MorrisRules {
    /// Its name in the registry, file names (`KEY-A-B.tbl`) and file headers.
    pub key: &'static str,
    /// Its name for people.
    pub name: &'static str,
    /// Its name before "with K stones each" (`Morris with 3 stones each`).
    pub short_name: &'static str,
    /// Stones each side starts with.
    pub stones: u32,
    /// `adjacent[p]`: the points one slide away from `p`.
    pub adjacent: [Points; POINT_COUNT],
    /// Every mill: three points in a line.
    pub mills: &'static [Points],
    /// `mills_through[p][..mills_per_point]`: the mills that contain `p`; where `p` lies on
    /// fewer, the list repeats one of them, so that the test stays one fixed loop.
    pub mills_through: [[Points; MAX_MILLS_PER_POINT]; POINT_COUNT],
    /// The most mills through one point: 2 on the standard board, 3 with the diagonals.
    pub mills_per_point: usize,
    /// Whether a side with stones in hand may slide instead of placing (Lasker Morris): hands
    /// then need not alternate, and the game is solved in sectors (stones on the board and in
    /// hand of each side) rather than in placement layers.
    pub moves_while_placing: bool,
    /// Whether a full board whose side to move cannot slide is a draw rather than a loss
    /// (Malom's `FULL_BOARD_IS_DRAW`); a full board needs 12 stones a side.
    pub full_board_is_draw: bool,
}

/// The fewest stones a side can play with in every variant (fewer on the board and in hand lose),
/// and so the fewest a side has in a moving-phase class.
pub const MIN_STONES: u32 = 3;

/// The most mills one point can lie on, over every variant.
pub const MAX_MILLS_PER_POINT: usize = 3;

impl MorrisRules {
    /// Whether a class of `mover` and `other` stones on the board belongs to this variant.
    pub fn has_class(&self, mover: u32, other: u32) -> bool {
        let range = MIN_STONES..=self.stones;
        range.contains(&mover) && range.contains(&other)
    }

    /// Whether a full board is possible: 12 stones a side fill the 24 points.
    pub const fn can_fill_board(&self) -> bool {
        2 * self.stones as usize >= POINT_COUNT
    }
}

/// A Morris variant as a type, so that generic code is compiled once per variant.
pub trait MorrisVariant: Copy + Default + fmt::Debug + Eq + Send + Sync + 'static {
    /// The rules.
    const RULES: MorrisRules;
    /// Its settings on the command line and the page (their help names its stone range).
    const SETTINGS: &'static [Setting];
    /// What `info` and `verify` compare a class's table with: published figures where there
    /// are some, else (by default) the class size by formula.
    fn class_reference(mover: u32, other: u32) -> Reference {
        Reference { positions: Some(reference::class_size_by_formula(mover, other)), wdl: None }
    }
    /// The CPU the cyclic solver spends per position of a pair of moving-phase classes where
    /// neither side flies, fitted to the variant's whole moving phase as measured on the
    /// machine of docs/BENCHMARKS.md ("Estimates against measured runs"): what `plan` and
    /// `generate` say. A pair where a side has three stones takes `FLYING_COST` (4.5) times it,
    /// one where both have `BOTH_FLYING_COST`.
    const CLASS_RATE: Rate;
    /// The same per position of a pair of sectors with stones in hand (placements and slides),
    /// where the variant has such sectors and they were measured.
    const SECTOR_RATE: Option<Rate> = None;
    /// The CPU per reachable placement position that the opening's forward pass (its sets)
    /// takes, as measured on the machine of docs/BENCHMARKS.md; `None` where never measured.
    const PLACEMENT_FORWARD_RATE: Option<Rate> = None;
    /// The same for the opening's solve.
    const PLACEMENT_SOLVE_RATE: Option<Rate> = None;
}

/// How many times the CPU a position of a pair of classes costs where a side has three stones:
/// it flies to any empty point, a dozen or more moves and un-moves where a slide has two or
/// three. The standard game's pairs 3-4 to 3-9 took 3.5 to 6 times what pairs of their size
/// without flying took, 4.5 times in a fit over all 28 pairs (docs/BENCHMARKS.md, "The whole
/// moving phase on two cores").
pub const FLYING_COST: f64 = 4.5;

/// The same where both sides have three stones (class 3-3, where both fly): the one such pair
/// took 0.3 s alone on the machine of the rates, 20 times what a pair of its 169,626 positions
/// without flying takes at the rate's floor, where [`FLYING_COST`] said 4.5 (docs/BENCHMARKS.md,
/// "Reports that derive `Serialize`, and a day on the rates' machine").
pub const BOTH_FLYING_COST: f64 = 20.0;


/// Whether the stone on `p` is part of a mill of `stones` (which must contain `p`).
#[inline]
pub(crate) fn in_mill<V: MorrisVariant>(stones: Points, p: usize) -> bool {
    for &mill in &V::RULES.mills_through[p][..V::RULES.mills_per_point] {
        if stones & mill == mill {
            return true;
        }
    }
    false
}

/// The stones of `stones` that lie in at least one mill of `stones`.
#[inline]
pub(crate) fn stones_in_mills<V: MorrisVariant>(stones: Points) -> Points {
    let mut covered = 0;
    for &mill in V::RULES.mills {
        if stones & mill == mill {
            covered |= mill;
        }
    }
    covered
}

/// The stones of `stones` that an opponent who has just closed a mill may remove: those in no
/// mill, or all of them when every one is in a mill.
#[inline]
pub(crate) fn removable<V: MorrisVariant>(stones: Points) -> Points {
    let free = stones & !stones_in_mills::<V>(stones);
    if free != 0 { free } else { stones }
}

/// Nine Men's Morris: 16 mills, 9 stones a side.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Standard;

/// Morabaraba: the standard board with the four corner diagonals as lines (20 mills, and slides
/// along them), 12 stones a side, and a full board a draw (as Malom solves it).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Morabaraba;

/// Lasker Morris: the standard board and mills, 10 stones a side, and a side with stones in hand
/// may place one or slide one at each turn.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Lasker;

const STANDARD_MILLS: [Points; 16] = standard_mills();
const MORABARABA_MILLS: [Points; 20] = with_diagonal_mills(STANDARD_MILLS);

impl MorrisVariant for Standard {
    const RULES: MorrisRules = MorrisRules {
        key: "morris",
        name: "Nine Men's Morris",
        short_name: "Morris",
        stones: 9,
        adjacent: standard_adjacency(),
        mills: &STANDARD_MILLS,
        mills_through: mills_through(&STANDARD_MILLS),
        mills_per_point: 2,
        moves_while_placing: false,
        full_board_is_draw: false,
    };
    const SETTINGS: &'static [Setting] = &settings::STANDARD;
    // The 28 pairs of 2026-11-26 (531ef76) fit 30 ns at a million positions growing as the
    // 0.43rd power (each pair within 1.5 times but 4-7); scaled to the latest whole moving
    // phase, compressed (c10b762): 3,823 CPU-seconds for 8.90e9 positions. At least 90 ns a
    // position: pairs 4-4, 4-5 and 5-5 alone (2026-12-02) took 124, 145 and 129 ns a position
    // from 3.2 to 31 million positions, where the power says 43, 96 and 115 and 5-5 took 3.2 s
    // (103 ns) on the rates' machine; the floor keeps the first six pairs within 1.15 times of
    // their 7.8 s there.
    const CLASS_RATE: Rate = Rate::new(26.2, 0.43).with_floor(90.0);
    // The 9-stone opening, plies 9 to 17 (54af15f): forward 95 ns a member at 9.5e6 members to
    // 193 at 1.0e9, solve 490 to 650 ns at every size; scaled to the whole opening's 2,200 s,
    // compressed (c10b762).
    const PLACEMENT_FORWARD_RATE: Option<Rate> = Some(Rate::new(61.0, 0.152));
    const PLACEMENT_SOLVE_RATE: Option<Rate> = Some(Rate::new(530.0, 0.0));

    fn class_reference(mover: u32, other: u32) -> Reference {
        Reference { positions: reference::morris_class_size(mover, other), wdl: reference::morris_class_wdl(mover, other) }
    }
}

impl MorrisVariant for Morabaraba {
    const RULES: MorrisRules = MorrisRules {
        key: "morabaraba",
        name: "Morabaraba",
        short_name: "Morabaraba",
        stones: 12,
        adjacent: with_diagonal_adjacency(standard_adjacency()),
        mills: &MORABARABA_MILLS,
        mills_through: mills_through(&MORABARABA_MILLS),
        mills_per_point: 3,
        moves_while_placing: false,
        full_board_is_draw: true,
    };
    const SETTINGS: &'static [Setting] = &settings::MORABARABA;
    // The whole moving phase, compressed (8f028e8, 2026-11-27): 9,248 CPU-seconds for 55 pairs
    // of 16.5e9 positions, with the standard game's growth and cost of flying. At least 170 ns a
    // position: pairs 4-4, 4-5 and 5-5 alone (2026-12-02, a machine 1.25 times slower than the
    // rates') took 217, 223 and 262 ns, where the power says 59, 132 and 157.
    const CLASS_RATE: Rate = Rate::new(36.0, 0.43).with_floor(170.0);
    // The 12-stone opening of the same run: its forward passes 3,242 s and its solves 8,936 s
    // for 18.7e9 reachable positions, with the standard opening's growth.
    const PLACEMENT_FORWARD_RATE: Option<Rate> = Some(Rate::new(54.0, 0.152));
    const PLACEMENT_SOLVE_RATE: Option<Rate> = Some(Rate::new(477.0, 0.0));
}

impl MorrisVariant for Lasker {
    const RULES: MorrisRules = MorrisRules {
        key: "lasker",
        name: "Lasker Morris",
        short_name: "Lasker Morris",
        stones: 10,
        adjacent: standard_adjacency(),
        mills: &STANDARD_MILLS,
        mills_through: mills_through(&STANDARD_MILLS),
        mills_per_point: 2,
        moves_while_placing: true,
        full_board_is_draw: false,
    };
    const SETTINGS: &'static [Setting] = &settings::LASKER;
    // Its classes are the standard game's.
    const CLASS_RATE: Rate = Standard::CLASS_RATE;
    // K = 8 (073dafe, 2026-11-26/27): 9,743 CPU-seconds for its 1.30e10 positions of sectors
    // with stones in hand, the classes reused, with the classes' growth. At least 250 ns a
    // position: K = 5's sectors of 1.5 to 21 million positions took 250 to 790 ns alone
    // (2026-12-02, a machine 1.25 times slower than the rates'), where the power says 70 to 216;
    // the floor moves K = 8 by 0.1 hours (3.8, its run from empty about 3.9).
    const SECTOR_RATE: Option<Rate> = Some(Rate::new(59.0, 0.43).with_floor(250.0));
}

/// The standard lines: ring neighbours, and the midpoints of a side joined across the rings.
const fn standard_adjacency() -> [Points; POINT_COUNT] {
    let mut adjacent = [0; POINT_COUNT];
    let mut p = 0;
    while p < POINT_COUNT {
        let base = p / RING_SIZE * RING_SIZE;
        let k = p % RING_SIZE;
        adjacent[p] |= 1 << (base + (k + 1) % RING_SIZE);
        adjacent[p] |= 1 << (base + (k + RING_SIZE - 1) % RING_SIZE);
        p += 1;
    }
    joined_across_rings(adjacent, 1)
}

/// The standard lines plus the corners joined across the rings (the diagonals).
const fn with_diagonal_adjacency(adjacent: [Points; POINT_COUNT]) -> [Points; POINT_COUNT] {
    joined_across_rings(adjacent, 0)
}

/// `adjacent` with point `k` of each ring joined to point `k` of the rings beside it, for
/// every `k` of the given parity (1: the midpoints, 0: the corners).
const fn joined_across_rings(mut adjacent: [Points; POINT_COUNT], parity: usize) -> [Points; POINT_COUNT] {
    let mut p = 0;
    while p < POINT_COUNT {
        let ring = p / RING_SIZE;
        if p % 2 == parity {
            if ring > 0 {
                adjacent[p] |= 1 << (p - RING_SIZE);
            }
            if ring < 2 {
                adjacent[p] |= 1 << (p + RING_SIZE);
            }
        }
        p += 1;
    }
    adjacent
}

/// The 16 mills: the four sides of each square, and the four lines across the squares' midpoints.
const fn standard_mills() -> [Points; 16] {
    let mut mills = [0; 16];
    let mut n = 0;
    let mut ring = 0;
    while ring < 3 {
        let mut side = 0;
        while side < 4 {
            let k = 2 * side;
            let base = ring * RING_SIZE;
            mills[n] = (1 << (base + k)) | (1 << (base + k + 1)) | (1 << (base + (k + 2) % RING_SIZE));
            n += 1;
            side += 1;
        }
        ring += 1;
    }
    mills[n] = cross_line(1);
    mills[n + 1] = cross_line(3);
    mills[n + 2] = cross_line(5);
    mills[n + 3] = cross_line(7);
    mills
}

/// The line through point `k` of each ring.
const fn cross_line(k: usize) -> Points {
    (1 << k) | (1 << (k + RING_SIZE)) | (1 << (k + 2 * RING_SIZE))
}

/// The standard mills plus the four diagonals through the corners (`k` even).
const fn with_diagonal_mills(standard: [Points; 16]) -> [Points; 20] {
    let mut mills = [0; 20];
    let mut n = 0;
    while n < 16 {
        mills[n] = standard[n];
        n += 1;
    }
    let mut corner = 0;
    while corner < 4 {
        mills[16 + corner] = cross_line(2 * corner);
        corner += 1;
    }
    mills
}

const fn mills_through(mills: &[Points]) -> [[Points; MAX_MILLS_PER_POINT]; POINT_COUNT] {
    let mut through = [[0; MAX_MILLS_PER_POINT]; POINT_COUNT];
    let mut count = [0usize; POINT_COUNT];
    let mut m = 0;
    while m < mills.len() {
        let mut p = 0;
        while p < POINT_COUNT {
            if mills[m] & (1 << p) != 0 {
                through[p][count[p]] = mills[m];
                count[p] += 1;
            }
            p += 1;
        }
        m += 1;
    }
    let mut p = 0;
    while p < POINT_COUNT {
        let mut k = count[p];
        while k < MAX_MILLS_PER_POINT {
            through[p][k] = through[p][0];
            k += 1;
        }
        p += 1;
    }
    through
}

mod settings {
    use super::{Purpose, Setting};
    use Purpose::{Generate, Info, Play, Probe, Verify};

    const fn stones(help: &'static str) -> Setting {
        Setting { name: "stones", value: Some("K"), help, purposes: &[Generate, Verify, Info, Probe, Play], required: false }
    }

    const UP_TO: Setting = Setting {
        name: "up-to",
        value: Some("A-B"),
        help: "Only the moving-phase classes needed for class A-B (no opening).",
        purposes: &[Generate, Verify],
        required: false,
    };

    const NO_OPENING: Setting = Setting {
        name: "no-opening",
        value: None,
        help: "Moving phase only, without the placement-phase (opening) tables (implied by --up-to).",
        purposes: &[Generate],
        required: false,
    };

    pub(super) const STANDARD: [Setting; 3] =
        [stones("Stones each side starts with (3..9; default 9, Nine Men's Morris)."), UP_TO, NO_OPENING];
    pub(super) const LASKER: [Setting; 1] = [stones("Stones each side starts with (3..10; default 10, Lasker Morris).")];
    pub(super) const MORABARABA: [Setting; 3] =
        [stones("Stones each side starts with (3..12; default 12, Morabaraba)."), UP_TO, NO_OPENING];
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::morris::board::{point_from_name, points};
    use crate::games::morris::symmetry::{BOARD_SYMMETRIES, transform};

    fn names(set: Points) -> Vec<&'static str> {
        let mut v: Vec<&str> = points(set).map(|p| super::super::board::POINT_NAMES[p]).collect();
        v.sort();
        v
    }

    fn at(names: &[&str]) -> Points {
        names.iter().map(|n| 1 << point_from_name(n).unwrap()).sum()
    }

    #[test]
    fn the_standard_board() {
        let rules = Standard::RULES;
        let neighbours = |p: &str| names(rules.adjacent[point_from_name(p).unwrap()]);
        assert_eq!(neighbours("a7"), ["a4", "d7"]);
        assert_eq!(neighbours("d6"), ["b6", "d5", "d7", "f6"]);
        assert_eq!(neighbours("c4"), ["b4", "c3", "c5"]);
        assert_eq!(neighbours("e4"), ["e3", "e5", "f4"]);
        assert_eq!(rules.adjacent.iter().map(|a| a.count_ones()).sum::<u32>(), 2 * 32);
        let mills: Vec<Vec<&str>> = rules.mills.iter().map(|&m| names(m)).collect();
        assert_eq!(mills.len(), 16);
        for mill in [
            ["a1", "a4", "a7"],
            ["a1", "d1", "g1"],
            ["a4", "b4", "c4"],
            ["d5", "d6", "d7"],
            ["e3", "e4", "e5"],
            ["d1", "d2", "d3"],
            ["c3", "d3", "e3"],
            ["e4", "f4", "g4"],
        ] {
            assert!(mills.contains(&mill.to_vec()), "{mill:?}");
        }
        for p in 0..POINT_COUNT {
            assert_eq!(rules.mills.iter().filter(|&&m| m & (1 << p) != 0).count(), 2);
        }
    }

    #[test]
    fn morabaraba_adds_the_four_diagonals() {
        let (standard, mora) = (Standard::RULES, Morabaraba::RULES);
        let mut added: Vec<Vec<&str>> =
            mora.mills.iter().filter(|m| !standard.mills.contains(m)).map(|&m| names(m)).collect();
        added.sort();
        assert_eq!(added, [["a1", "b2", "c3"], ["a7", "b6", "c5"], ["e3", "f2", "g1"], ["e5", "f6", "g7"]]);
        let mut edges = Vec::new();
        for p in 0..POINT_COUNT {
            for q in points(mora.adjacent[p] & !standard.adjacent[p]) {
                assert!(mora.adjacent[q] & (1 << p) != 0, "symmetric");
                if p < q {
                    edges.push(names((1 << p) | (1 << q)));
                }
            }
        }
        edges.sort();
        let expected: Vec<Vec<&str>> = [
            ["a1", "b2"], ["a7", "b6"], ["b2", "c3"], ["b6", "c5"],
            ["e3", "f2"], ["e5", "f6"], ["f2", "g1"], ["f6", "g7"],
        ]
        .iter()
        .map(|e| e.to_vec())
        .collect();
        assert_eq!(edges, expected);
        assert_eq!(names(mora.adjacent[point_from_name("b2").unwrap()]), ["a1", "b4", "c3", "d2"]);
        for p in 0..POINT_COUNT {
            let corner = p % 2 == 0;
            let on = mora.mills.iter().filter(|&&m| m & (1 << p) != 0).count();
            assert_eq!(on, if corner { 3 } else { 2 }, "{}", super::super::board::POINT_NAMES[p]);
        }
        assert!(mora.mills.contains(&at(&["g7", "f6", "e5"])));
    }

    /// Each variant's listed mills through a point are exactly the mills that contain it.
    #[test]
    fn mills_through_a_point() {
        for rules in [Standard::RULES, Morabaraba::RULES, Lasker::RULES] {
            for p in 0..POINT_COUNT {
                let mut listed = rules.mills_through[p][..rules.mills_per_point].to_vec();
                listed.sort();
                listed.dedup();
                let mut all: Vec<Points> = rules.mills.iter().copied().filter(|&m| m & (1 << p) != 0).collect();
                all.sort();
                assert_eq!(listed, all);
                assert!(rules.mills_through[p].iter().all(|m| all.contains(m)));
            }
        }
    }

    /// The index and every table rely on the 16 symmetries mapping lines onto lines, in
    /// Morabaraba too.
    #[test]
    fn every_symmetry_maps_lines_and_mills_onto_themselves() {
        for rules in [Standard::RULES, Morabaraba::RULES, Lasker::RULES] {
            for sym in 0..BOARD_SYMMETRIES {
                for p in 0..POINT_COUNT {
                    let q = transform(sym, 1 << p).trailing_zeros() as usize;
                    assert_eq!(transform(sym, rules.adjacent[p]), rules.adjacent[q], "{}", rules.key);
                }
                let mut mills: Vec<Points> = rules.mills.iter().map(|&m| transform(sym, m)).collect();
                let mut expected = rules.mills.to_vec();
                mills.sort();
                expected.sort();
                assert_eq!(mills, expected, "{} symmetry {sym}", rules.key);
            }
        }
    }

    #[test]
    fn removal_rule() {
        let p = |n: &str| 1u32 << point_from_name(n).unwrap();
        let mill = p("a1") | p("d1") | p("g1");
        assert_eq!(removable::<Standard>(mill | p("d5")), p("d5"));
        assert_eq!(removable::<Standard>(mill), mill);
        // A diagonal is a mill in Morabaraba only.
        let diagonal = p("a1") | p("b2") | p("c3");
        assert_eq!(removable::<Standard>(diagonal | p("d5")), diagonal | p("d5"));
        assert_eq!(removable::<Morabaraba>(diagonal | p("d5")), p("d5"));
        assert!(in_mill::<Morabaraba>(diagonal, point_from_name("b2").unwrap()));
        assert!(!in_mill::<Standard>(diagonal, point_from_name("b2").unwrap()));
    }
}
