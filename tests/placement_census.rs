//! The independent census of placement positions (examples/placement_census) against the
//! program's forward pass, and the reference file it wrote against the census itself: for the
//! small games both count the same, and the larger games' figures in
//! tables/reference/morris-placement-plies.tsv, which `info` and `verify` compare the opening
//! tables with, come from the same code.

#[path = "../examples/placement_census/census.rs"]
#[allow(dead_code)]
mod census;

use census::{Census, DIAGONALS, STANDARD_LINES};
use std::sync::OnceLock;
use tablebase::games::morris::{Morabaraba, MorrisVariant, Opening, Standard};
use tablebase::testing::morris::placement_positions;

fn boards() -> &'static [(&'static str, Census); 2] {
    static BOARDS: OnceLock<[(&str, Census); 2]> = OnceLock::new();
    BOARDS.get_or_init(|| {
        let morabaraba: Vec<[&str; 3]> = STANDARD_LINES.iter().chain(&DIAGONALS).copied().collect();
        [("morris", Census::new(&STANDARD_LINES)), ("morabaraba", Census::new(&morabaraba))]
    })
}

fn census_counts(board: &Census, stones: usize) -> Vec<u64> {
    let mut counts = Vec::new();
    census::census(board, stones, None, |_, ply| counts.push(ply.count()));
    counts
}

fn program_counts<V: MorrisVariant>(stones: u32) -> Vec<u64> {
    let mut counts = Vec::new();
    let game = Opening::<V>::new(stones);
    tablebase::testing::reachable_counts(&game, 2 * stones - 1, &tablebase::Progress::hidden(), |_, n| {
        counts.push(n);
        Ok::<(), ()>(())
    })
    .unwrap();
    counts
}

fn reference_counts(game: &str, stones: u32) -> Vec<Option<u64>> {
    (0..2 * stones).map(|ply| placement_positions(game, stones, ply)).collect()
}

#[test]
fn the_census_board_has_16_symmetries_that_keep_its_lines() {
    for (game, board) in boards() {
        assert!(board.symmetries_keep_the_lines(), "{game}");
    }
}

/// For each K of `stones`: the census counts per ply what the program's forward pass reaches,
/// and what the reference file lists for `game`.
fn agree<V: MorrisVariant>(game: &str, board: &Census, stones: std::ops::RangeInclusive<usize>) {
    for k in stones {
        let counted = census_counts(board, k);
        assert_eq!(counted, program_counts::<V>(k as u32), "{game} K = {k}");
        assert_eq!(reference_counts(game, k as u32), counted.iter().map(|&n| Some(n)).collect::<Vec<_>>());
    }
}

#[test]
fn the_census_counts_what_the_forward_pass_reaches_and_what_the_reference_holds() {
    let [(_, standard), (_, morabaraba)] = boards();
    agree::<Standard>("morris", standard, 3..=5);
    // The totals docs/RESULTS.md gives for the standard board.
    assert_eq!(census_counts(standard, 3).iter().sum::<u64>(), 31_534);
    assert_eq!(census_counts(standard, 4).iter().sum::<u64>(), 934_636);
    agree::<Morabaraba>("morabaraba", morabaraba, 3..=4);
    // The diagonals make more mills, so more removals and other positions than on the standard
    // board with as many stones.
    assert_ne!(census_counts(morabaraba, 3), census_counts(standard, 3));
}

#[test]
fn a_census_resumed_from_a_kept_ply_counts_the_same() {
    let (_, board) = &boards()[1];
    let whole = census_counts(board, 4);
    let mut kept = Vec::new();
    census::census(board, 4, None, |placed, ply| {
        if placed == 3 {
            ply.write(&mut kept).unwrap();
        }
    });
    let ply = census::Ply::new(board, 4, 3);
    ply.read(&mut kept.as_slice()).unwrap();
    let mut resumed = Vec::new();
    census::census(board, 4, Some((3, ply)), |_, ply| resumed.push(ply.count()));
    assert_eq!(resumed, whole[3..]);
}
