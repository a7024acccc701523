//! The 24-point board shared by every Morris variant: points, their names and layout as 24-bit
//! masks (a variant's lines and mills are in [`super::variant`]).
//!
//! Point `8 * ring + k` is point `k` of ring `ring` (0 outer, 1 middle, 2 inner), where `k` runs
//! clockwise from the ring's top-left corner: even `k` are corners, odd `k` are the midpoints
//! that join the rings. With this layout every symmetry of the square acts on each ring's byte
//! by the same permutation, and swapping the outer and inner ring swaps bytes 0 and 2: the
//! symmetry tables in [`super::symmetry`] rely on it.

/// A set of points, one bit per point, bits 24..32 always clear.
pub type Points = u32;

pub const POINT_COUNT: usize = 24;
pub(crate) const RING_SIZE: usize = 8;
pub const ALL_POINTS: Points = (1 << POINT_COUNT) - 1;

/// Coordinates of each point, in point order.
pub const POINT_NAMES: [&str; POINT_COUNT] = [
    "a7", "d7", "g7", "g4", "g1", "d1", "a1", "a4", // outer ring
    "b6", "d6", "f6", "f4", "f2", "d2", "b2", "b4", // middle ring
    "c5", "d5", "e5", "e4", "e3", "d3", "c3", "c4", // inner ring
];

/// The point with the given name (`a1`..`g7`), if it is one of the 24.
#[inline]
pub fn point_from_name(name: &str) -> Option<usize> {
    match name.as_bytes() {
        &[file @ b'a'..=b'g', rank @ b'1'..=b'7'] => {
            let p = POINT_AT[usize::from(file - b'a')][usize::from(rank - b'1')];
            (p != NOT_A_POINT).then_some(usize::from(p))
        }
        _ => None,
    }
}

const NOT_A_POINT: u8 = u8::MAX;

/// `POINT_AT[file][rank]` (both from 0): the point there, or [`NOT_A_POINT`].
const POINT_AT: [[u8; 7]; 7] = {
    let mut table = [[NOT_A_POINT; 7]; 7];
    let mut p = 0;
    while p < POINT_COUNT {
        let name = POINT_NAMES[p].as_bytes();
        table[(name[0] - b'a') as usize][(name[1] - b'1') as usize] = p as u8;
        p += 1;
    }
    table
};

/// Iterates over the points of a set, lowest first.
#[inline]
pub fn points(mut set: Points) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        if set == 0 {
            None
        } else {
            let p = set.trailing_zeros() as usize;
            set &= set - 1;
            Some(p)
        }
    })
}
