//! The per-class index is a bijection between positions up to the 16 symmetries and 0..size.

use crate::common;

use common::{binomial, for_each_placement, random_placement};
use tablebase::games::morris::{BOARD_SYMMETRIES, canonical, transform};
use tablebase::testing::SplitMix64;
use tablebase::testing::morris::ClassIndex;
use tablebase::testing::morris::morris_class_size;

fn classes() -> impl Iterator<Item = (u32, u32)> {
    (3..=9).flat_map(|a| (3..=9).map(move |b| (a, b)))
}

#[test]
fn index_sizes_equal_the_reference_class_sizes() {
    let mut total = 0;
    for (a, b) in classes() {
        let size = ClassIndex::new(a, b).size();
        assert_eq!(Some(size), morris_class_size(a, b), "class {a}-{b}");
        total += size;
    }
    assert_eq!(total, 8_904_593_601);
}

/// The number of positions of class `a`-`b` up to the 16 symmetries, by Burnside's lemma: the
/// mean over the symmetries of the placements each leaves fixed. A fixed placement gives each
/// cycle of the symmetry's permutation of the points one colour (empty, mover, other), so it is
/// counted by the cycles' lengths alone.
fn burnside_class_size(a: usize, b: usize) -> u64 {
    let mut fixed_total = 0u64;
    for sym in 0..BOARD_SYMMETRIES {
        let image = |p: usize| transform(sym, 1 << p).trailing_zeros() as usize;
        let mut seen = [false; 24];
        // ways[i][j]: colourings of the cycles so far with i mover and j other stones.
        let mut ways = vec![vec![0u64; b + 1]; a + 1];
        ways[0][0] = 1;
        for start in 0..24 {
            if seen[start] {
                continue;
            }
            let mut len = 0;
            let mut p = start;
            while !seen[p] {
                seen[p] = true;
                len += 1;
                p = image(p);
            }
            let mut next = ways.clone();
            for i in 0..=a {
                for j in 0..=b {
                    if i >= len {
                        next[i][j] += ways[i - len][j];
                    }
                    if j >= len {
                        next[i][j] += ways[i][j - len];
                    }
                }
            }
            ways = next;
        }
        fixed_total += ways[a][b];
    }
    assert_eq!(fixed_total % BOARD_SYMMETRIES as u64, 0);
    fixed_total / BOARD_SYMMETRIES as u64
}

/// Every class of up to 12 stones a side (Morabaraba's, which fill the board) is indexed
/// without gaps: its size is its number of positions up to symmetry.
#[test]
fn index_sizes_equal_burnside_counts_up_to_twelve_stones() {
    let mut moving_phase_12 = 0;
    for a in 0..=12u32 {
        for b in 0..=12u32 {
            let size = ClassIndex::new(a, b).size();
            assert_eq!(size, burnside_class_size(a as usize, b as usize), "class {a}-{b}");
            if a >= 3 && b >= 3 {
                moving_phase_12 += size;
            }
        }
    }
    // Morabaraba's moving phase, all of it: printed for the record (no published figure).
    println!("classes 3-3 to 12-12: {moving_phase_12} positions");
}

/// Every placement of the class: indices in range, equal exactly for positions of one orbit, and
/// every index used; the inverse returns a member of the orbit with the same index.
fn check_exhaustively(a: u32, b: u32) {
    let class = ClassIndex::new(a, b);
    let size = class.size() as usize;
    let mut orbit_of_index = vec![u64::MAX; size];
    let mut placements = 0u64;
    for_each_placement(a, b, |m, o| {
        placements += 1;
        let index = class.index(m, o) as usize;
        assert!(index < size, "{a}-{b}: index {index} >= {size}");
        let (cm, co) = canonical(m, o);
        let key = (u64::from(co) << 24) | u64::from(cm);
        if orbit_of_index[index] == u64::MAX {
            orbit_of_index[index] = key;
        } else {
            assert_eq!(orbit_of_index[index], key, "{a}-{b}: two orbits share index {index}");
        }
    });
    assert_eq!(placements, binomial(24, a.into()) * binomial(24 - u64::from(a), b.into()));
    for (index, &key) in orbit_of_index.iter().enumerate() {
        assert_ne!(key, u64::MAX, "{a}-{b}: index {index} unused");
        let (m, o) = class.position(index as u64);
        let (cm, co) = canonical(m, o);
        assert_eq!((u64::from(co) << 24) | u64::from(cm), key, "{a}-{b}: inverse of {index}");
        assert_eq!(class.index(m, o), index as u64);
    }
}

#[test]
fn exhaustive_3_3() {
    check_exhaustively(3, 3);
}

#[test]
fn exhaustive_3_4_and_4_3() {
    check_exhaustively(3, 4);
    check_exhaustively(4, 3);
}

#[test]
fn exhaustive_4_4() {
    check_exhaustively(4, 4);
}

#[test]
fn exhaustive_3_5_and_5_3() {
    check_exhaustively(3, 5);
    check_exhaustively(5, 3);
}

/// A quarter of a million random positions per class: all 16 images share the index, the
/// inverse lies in the orbit and indexes back; and as many random indices round-trip (the
/// classes up to 4-4 are checked whole above).
#[test]
fn random_round_trips_in_every_class() {
    let mut rng = SplitMix64::new(0x5eed_0002);
    for (a, b) in classes() {
        let class = ClassIndex::new(a, b);
        for n in 0..250_000u32 {
            let (m, o) = random_placement(&mut rng, a, b);
            let index = class.index(m, o);
            assert!(index < class.size());
            let sym = if n % 64 == 0 { None } else { Some(rng.below(BOARD_SYMMETRIES as u64) as usize) };
            match sym {
                Some(sym) => assert_eq!(class.index(transform(sym, m), transform(sym, o)), index),
                None => {
                    for sym in 0..BOARD_SYMMETRIES {
                        assert_eq!(class.index(transform(sym, m), transform(sym, o)), index);
                    }
                }
            }
            let (pm, po) = class.position(index);
            assert_eq!(canonical(pm, po), canonical(m, o), "{a}-{b}: inverse of {index}");
            let random_index = rng.below(class.size());
            let (rm, ro) = class.position(random_index);
            assert_eq!((rm.count_ones(), ro.count_ones()), (a, b));
            assert_eq!(rm & ro, 0);
            assert_eq!(class.index(rm, ro), random_index);
        }
    }
}

/// The placement phase's classes have fewer than 3 stones on a side: the same index, checked
/// exhaustively, from the empty board up.
#[test]
fn exhaustive_classes_below_three_stones() {
    for (a, b) in [(0, 0), (1, 0), (0, 1), (1, 1), (2, 0), (0, 2), (2, 1), (1, 2), (2, 2), (3, 0), (0, 3)] {
        check_exhaustively(a, b);
    }
    for (a, b) in [(3, 2), (2, 3), (4, 1), (1, 4), (0, 5), (2, 4)] {
        check_exhaustively(a, b);
    }
    // The empty board is one position; one stone has 4 places up to symmetry: a corner or a
    // midpoint, of the middle ring or of the outer and inner rings (which the swap merges).
    assert_eq!(ClassIndex::new(0, 0).size(), 1);
    assert_eq!(ClassIndex::new(1, 0).size(), 4);
}
