//! The tic-tac-toe example, a whole game written only against the public traits, is generated,
//! verified and probed by the same generic code as the real games.

mod common;

#[allow(dead_code)]
#[path = "../examples/tictactoe.rs"]
mod tictactoe;

use tablebase::Value;

#[test]
fn tic_tac_toe_is_a_draw_with_5478_positions_765_up_to_symmetry() {
    let dir = common::scratch("tictactoe");
    let summary = tictactoe::solve(&dir).unwrap();
    assert_eq!(summary.start, Value::Draw);
    assert_eq!(summary.positions, 5478);
    assert_eq!(summary.entries, 765);
    assert_eq!(summary.verified, 10);
    assert_eq!(summary.line.len(), 9, "a drawn game fills the board");
    // A second run finds every table complete and changes nothing.
    let again = tictactoe::solve(&dir).unwrap();
    assert_eq!((again.positions, again.entries), (5478, 765));
    std::fs::remove_dir_all(&dir).unwrap();
}
