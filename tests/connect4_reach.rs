//! The Connect Four forward pass counts exactly the reachable positions the references list.

use tablebase::Progress;
use tablebase::games::connect4::{Connect4, Geometry};
use tablebase::testing::connect4::{connect4_7x6_positions, connect4_board};

/// Reachable positions per ply up to `last_ply`, mirror images counted separately.
fn reachable_counts(g: Geometry, last_ply: u32, progress: &Progress) -> Vec<u64> {
    let mut counts = Vec::new();
    tablebase::testing::reachable_counts(&Connect4::new(g), last_ply, progress, |_, positions| {
        counts.push(positions);
        Ok::<(), ()>(())
    })
    .unwrap();
    counts
}

#[test]
fn small_board_totals_equal_the_reference() {
    for (w, h) in [(4, 4), (5, 4), (4, 5)] {
        let g = Geometry::new(w, h).unwrap();
        let counts = reachable_counts(g, g.cells(), &Progress::hidden());
        let total: u64 = counts.iter().sum();
        let (expected, _, _) = connect4_board(w, h).unwrap();
        assert_eq!(Some(total), expected, "{g}");
        assert_eq!(counts[0], 1);
        assert_eq!(counts[1], u64::from(w));
    }
}

#[test]
fn seven_by_six_per_ply_up_to_ply_14() {
    let g = Geometry::new(7, 6).unwrap();
    let counts = reachable_counts(g, 14, &Progress::hidden());
    for (ply, &count) in counts.iter().enumerate() {
        assert_eq!(Some(count), connect4_7x6_positions(ply as u32), "ply {ply}");
    }
    assert_eq!(counts.len(), 15);
}
