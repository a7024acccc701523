//! The search solver against the tables: on boards small enough to tabulate, it gives every
//! position of a ply the value and distance stored in that ply's table.

use tablebase::connect4::{Connect4, Geometry, Searcher};
use tablebase::table::Check;
use tablebase::{LayeredGame, Progress, Value};

/// Every reachable position of `ply` (one of each mirror pair, as stored) is searched and
/// compared with its table; returns how many there were.
fn compare_ply(dir: &std::path::Path, g: Geometry, ply: u32, searcher: &mut Searcher) -> u64 {
    let tables = Connect4::tables(g);
    let layer = tables.open_layer(dir, ply, |_| Check::Checksum).unwrap();
    let mut walker = Default::default();
    let mut compared = 0;
    let mut next = layer.set.next_member(0).unwrap();
    while let Some(index) = next {
        let position = tables.0.position(ply, &mut walker, index);
        let stored: Value = layer.value_at(index).unwrap().expect("a member has a value");
        assert_eq!(searcher.value(&position).unwrap(), stored, "{g} ply {ply} index {index}");
        compared += 1;
        next = layer.set.next_member(index + 1).unwrap();
    }
    compared
}

#[test]
fn search_agrees_with_the_5x4_and_6x4_tables() {
    let dir = std::env::temp_dir().join(format!("tablebase-c4-search-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    for (w, h, plies) in [(5, 4, vec![0, 1, 2, 3, 4, 5, 6, 9, 12, 15, 18]), (6, 4, vec![5, 11, 17, 22])] {
        let g = Geometry::new(w, h).unwrap();
        tablebase::generate(&Connect4::tables(g), &dir, &Progress::hidden()).unwrap();
        let mut searcher = Searcher::new(g, 1 << 20);
        for ply in plies {
            let compared = compare_ply(&dir, g, ply, &mut searcher);
            assert!(compared > 0, "{g} ply {ply}");
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
