//! Published figures of Connect Four (copied from `tables/reference/`, sources named in each
//! file's header), so that `info` and `verify` compare against them wherever they run.

use crate::reference::{number, rows};

const CONNECT4_PER_PLY: &str = include_str!("../../../tables/reference/connect4-7x6-per-ply.tsv");
const CONNECT4_BOARDS: &str = include_str!("../../../tables/reference/connect4-boards.tsv");

/// Reachable 7x6 Connect Four positions with `ply` stones (mirror images counted separately).
pub fn connect4_7x6_positions(ply: u32) -> Option<u64> {
    rows(CONNECT4_PER_PLY).find(|r| number(r[0]) == u64::from(ply)).map(|r| number(r[1]))
}

/// Reachable Connect Four positions with `ply` stones on a `width` x `height` board, where the
/// reference lists them per ply (only 7x6).
pub fn connect4_ply_positions(width: u32, height: u32, ply: u32) -> Option<u64> {
    if (width, height) == (7, 6) { connect4_7x6_positions(ply) } else { None }
}

/// A Connect Four board's published figures: total reachable positions (when known), the value
/// of the empty board for the first player (`first`, `second`, `draw`) and the ply the game ends
/// on under perfect play (when known).
pub fn connect4_board(width: u32, height: u32) -> Option<(Option<u64>, &'static str, Option<u32>)> {
    rows(CONNECT4_BOARDS).find(|r| number(r[0]) == u64::from(width) && number(r[1]) == u64::from(height)).map(
        |r| {
            let known = |f: &str| (f.trim() != "-").then(|| number(f));
            (known(r[2]), r[3].trim(), known(r[4]).map(|p| p as u32))
        },
    )
}
