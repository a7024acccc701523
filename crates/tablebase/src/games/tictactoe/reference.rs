//! Published figures of tic-tac-toe (`tables/reference/tictactoe-per-ply.tsv`, source named in
//! its header), so that `info` and `verify` compare against them wherever they run.

use crate::reference::{number, rows};

const PER_PLY: &str = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/reference/tictactoe-per-ply.tsv"));

/// Positions reachable in play with `ply` stones, every image counted separately.
pub fn tictactoe_ply_positions(ply: u32) -> Option<u64> {
    rows(PER_PLY).find(|r| number(r[0]) == u64::from(ply)).map(|r| number(r[1]))
}
