//! Reference figures shipped with the program (copied from `tables/reference/`, sources named in
//! each file's header), so that `info` and `verify` compare against them wherever they run.

const MORRIS_CLASS_SIZES: &str = include_str!("../tables/reference/morris-class-sizes.tsv");
const MORRIS_WDL: &str = include_str!("../tables/reference/morris-wdl-ninemm.tsv");
const CONNECT4_PER_PLY: &str = include_str!("../tables/reference/connect4-7x6-per-ply.tsv");
const CONNECT4_BOARDS: &str = include_str!("../tables/reference/connect4-boards.tsv");
const PUBLISHED_CHECKSUMS: &str = include_str!("../tables/reference/published-checksums.tsv");

/// The CRC-32 of the whole file that the project publishes for the table file `name`
/// (`morris-8-7.tbl`): generation is deterministic, so every run writes these bytes.
pub fn published_checksum(name: &str) -> Option<u32> {
    rows(PUBLISHED_CHECKSUMS).find(|r| r[0] == name).and_then(|r| u32::from_str_radix(r[1].trim(), 16).ok())
}

/// Rows of a tab-separated reference file, comments and the header skipped.
fn rows(text: &'static str) -> impl Iterator<Item = Vec<&'static str>> {
    text.lines()
        .filter(|line| !line.starts_with('#') && !line.trim().is_empty())
        .skip(1)
        .map(|line| line.split('\t').collect())
}

fn number(field: &str) -> u64 {
    field.trim().parse().expect("reference files hold plain numbers")
}

/// Distinct positions of Morris moving-phase class `mover-other` up to the 16 symmetries.
pub fn morris_class_size(mover: u32, other: u32) -> Option<u64> {
    rows(MORRIS_CLASS_SIZES)
        .find(|r| number(r[0]) == u64::from(mover) && number(r[1]) == u64::from(other))
        .map(|r| number(r[3]))
}

/// Win, loss and draw counts of Morris moving-phase class `mover-other`.
pub fn morris_class_wdl(mover: u32, other: u32) -> Option<[u64; 3]> {
    rows(MORRIS_WDL)
        .find(|r| number(r[0]) == u64::from(mover) && number(r[1]) == u64::from(other))
        .map(|r| [number(r[2]), number(r[3]), number(r[4])])
}

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
