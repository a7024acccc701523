//! Reference figures of the Morris games (copied from `tables/reference/`, sources named in each
//! file's header, and class sizes by formula), so that `info` and `verify` compare against them
//! wherever they run.

use crate::reference::{number, rows};

const MORRIS_CLASS_SIZES: &str = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/reference/morris-class-sizes.tsv"));
const MORRIS_WDL: &str = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/reference/morris-wdl-ninemm.tsv"));
const PLACEMENT_PLIES: &str = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/reference/morris-placement-plies.tsv"));

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

/// Positions reachable after `ply` placements of variant `game` with `stones` a side, up to the
/// 16 symmetries, as an enumeration independent of the library counted them.
pub fn placement_positions(game: &str, stones: u32, ply: u32) -> Option<u64> {
    rows(PLACEMENT_PLIES)
        .find(|r| r[0] == game && number(r[1]) == u64::from(stones) && number(r[2]) == u64::from(ply))
        .map(|r| number(r[3]))
}

/// Positions of moving-phase class `mover-other` up to the 16 symmetries, by Burnside's lemma:
/// the mean over the symmetries of the colourings each leaves fixed, counted from the lengths
/// of its permutation's cycles. The symmetries are written here from the board's geometry, not
/// taken from the index, so that the count checks the index independently.
pub fn class_size_by_formula(mover: u32, other: u32) -> u64 {
    let (a, b) = (mover as usize, other as usize);
    if a + b > 24 {
        return 0;
    }
    let mut fixed_total = 0u64;
    for permutation in board_symmetries() {
        let mut seen = [false; 24];
        // ways[i][j]: colourings of the cycles so far with i mover and j other stones.
        let mut ways = vec![vec![0u64; b + 1]; a + 1];
        ways[0][0] = 1;
        for start in 0..24 {
            let mut len = 0;
            let mut p = start;
            while !seen[p] {
                seen[p] = true;
                len += 1;
                p = permutation[p];
            }
            if len == 0 {
                continue;
            }
            for i in (0..=a).rev() {
                for j in (0..=b).rev() {
                    let mut more = 0;
                    if i >= len {
                        more += ways[i - len][j];
                    }
                    if j >= len {
                        more += ways[i][j - len];
                    }
                    ways[i][j] += more;
                }
            }
        }
        fixed_total += ways[a][b];
    }
    fixed_total / 16
}

/// The 16 symmetries as permutations of the points `8 * ring + k` (`k` clockwise round a ring,
/// even `k` the corners): the square's 4 rotations (`k + 2r`) and 4 reflections (`c - k`), each
/// with or without the exchange of the outer and inner rings.
fn board_symmetries() -> Vec<[usize; 24]> {
    let mut all = Vec::new();
    for swap in [false, true] {
        for reflect in [false, true] {
            for r in 0..4 {
                let mut permutation = [0; 24];
                for (p, image) in permutation.iter_mut().enumerate() {
                    let (ring, k) = (p / 8, p % 8);
                    let k = if reflect { (8 + 2 * r - k) % 8 } else { (k + 2 * r) % 8 };
                    let ring = if swap { 2 - ring } else { ring };
                    *image = 8 * ring + k;
                }
                all.push(permutation);
            }
        }
    }
    all
}
