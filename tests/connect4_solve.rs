//! Connect Four tables on small boards: totals, the empty board's value and end ply equal the
//! reference, and every value is consistent with the next ply's.

use std::fs;
use std::path::PathBuf;
use tablebase::connect4::Geometry;
use tablebase::connect4::tables::{self, SolvedPly};
use tablebase::progress::Progress;
use tablebase::reference::connect4_board;
use tablebase::table::Check;
use tablebase::value::Value;

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tablebase-c4-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    dir
}

fn check_board(width: u32, height: u32) {
    let g = Geometry::new(width, height).unwrap();
    let dir = scratch(&g.to_string());
    tables::generate(&dir, g, &Progress::hidden()).unwrap();
    let checks = tables::verify(&dir, g, false, &Progress::hidden()).unwrap();
    assert_eq!(checks.len() as u32, g.cells() + 1);
    let mut total = 0;
    for check in &checks {
        assert!(check.checksum_ok, "{g} ply {}", check.ply);
        assert_eq!(check.consistent, Some(true), "{g} ply {}", check.ply);
        total += check.counts.positions();
    }
    let (positions, value, end_ply) = connect4_board(width, height).unwrap();
    assert_eq!(Some(total), positions, "{g}: reachable positions");
    let empty = SolvedPly::open(&dir, g, 0, Check::Checksum).unwrap();
    let v = empty.value(&tablebase::connect4::Position::EMPTY).unwrap();
    let expected = match value {
        "first" => Value::Win(end_ply.unwrap()),
        "second" => Value::Loss(end_ply.unwrap()),
        _ => Value::Draw,
    };
    assert_eq!(v, expected, "{g}: the empty board");
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn board_4x4() {
    check_board(4, 4);
}

#[test]
fn board_5x4() {
    check_board(5, 4);
}

#[test]
fn board_4x5() {
    check_board(4, 5);
}

#[test]
fn board_5x5() {
    check_board(5, 5);
}

#[test]
fn board_6x4() {
    check_board(6, 4);
}
