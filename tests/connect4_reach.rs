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

/// The boards counted per ply for the project (6x6) add up to their published totals, and their
/// early plies are what the forward pass counts here.
#[test]
fn counted_boards_sum_to_their_totals() {
    use tablebase::testing::connect4::connect4_ply_positions;
    let g = Geometry::new(6, 6).unwrap();
    let counted: Vec<u64> = (0..=g.cells()).map(|ply| connect4_ply_positions(6, 6, ply).unwrap()).collect();
    assert_eq!(Some(counted.iter().sum::<u64>()), connect4_board(6, 6).unwrap().0);
    assert_eq!(counted[36], 90_026_720);
    let early = reachable_counts(g, 14, &Progress::hidden());
    assert_eq!(early, counted[..=14]);
}

/// Before a run, a board with no count per ply has its published total shared among its plies
/// (so that `plan`'s CPU estimate is of the positions, not of the index space); a board with
/// counts is estimated at them.
#[test]
fn expected_positions_share_the_total() {
    use tablebase::LayeredGame;
    let layers = |g: Geometry| -> Vec<u64> {
        let game = Connect4::new(g);
        (0..game.layers()).map(|ply| game.expected_positions(ply).unwrap()).collect()
    };
    let g = Geometry::new(7, 5).unwrap();
    let game = Connect4::new(g);
    let shares = layers(g);
    let total = connect4_board(7, 5).unwrap().0.unwrap();
    let sum: u64 = shares.iter().sum();
    assert!(sum <= total && sum + u64::from(game.layers()) > total, "{sum} against {total}");
    for (ply, &share) in shares.iter().enumerate() {
        assert!(share <= game.index_size(ply as u32), "ply {ply}");
    }
    let six = layers(Geometry::new(6, 6).unwrap());
    assert_eq!(six[20], 884_124_974);
}
