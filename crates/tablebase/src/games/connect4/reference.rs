//! Published figures of Connect Four (copied from `tables/reference/`, sources named in each
//! file's header), so that `info` and `verify` compare against them wherever they run.

use crate::reference::{number, rows};

const CONNECT4_PER_PLY: &str = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/reference/connect4-7x6-per-ply.tsv"));
const CONNECT4_BOARDS: &str = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/reference/connect4-boards.tsv"));
const CONNECT4_COUNTED: &str = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/reference/connect4-per-ply-counted.tsv"));

/// Reachable 7x6 Connect Four positions with `ply` stones (mirror images counted separately).
pub fn connect4_7x6_positions(ply: u32) -> Option<u64> {
    rows(CONNECT4_PER_PLY).find(|r| number(r[0]) == u64::from(ply)).map(|r| number(r[1]))
}

/// Reachable Connect Four positions with `ply` stones on a `width` x `height` board, where a
/// reference lists them per ply: published for 7x6, counted apart from the tables for the boards
/// of `connect4-per-ply-counted.tsv` (6x6 and 7x5, whose only published figure is the total).
pub fn connect4_ply_positions(width: u32, height: u32, ply: u32) -> Option<u64> {
    if (width, height) == (7, 6) {
        return connect4_7x6_positions(ply);
    }
    let key = [width, height, ply].map(u64::from);
    rows(CONNECT4_COUNTED).find(|r| [r[0], r[1], r[2]].map(number) == key).map(|r| number(r[3]))
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
