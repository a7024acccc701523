//! Published figures of Nine Men's Morris (copied from `tables/reference/`, sources named in each
//! file's header), so that `info` and `verify` compare against them wherever they run.

use crate::reference::{number, rows};

const MORRIS_CLASS_SIZES: &str = include_str!("../../../tables/reference/morris-class-sizes.tsv");
const MORRIS_WDL: &str = include_str!("../../../tables/reference/morris-wdl-ninemm.tsv");

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
