//! Board geometry of Nine Men's Morris: points, adjacency and mills as 24-bit masks.
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

const fn build_adjacency() -> [Points; POINT_COUNT] {
    let mut adjacent = [0; POINT_COUNT];
    let mut p = 0;
    while p < POINT_COUNT {
        let ring = p / RING_SIZE;
        let k = p % RING_SIZE;
        let base = ring * RING_SIZE;
        adjacent[p] |= 1 << (base + (k + 1) % RING_SIZE);
        adjacent[p] |= 1 << (base + (k + RING_SIZE - 1) % RING_SIZE);
        if k % 2 == 1 {
            if ring > 0 {
                adjacent[p] |= 1 << (p - RING_SIZE);
            }
            if ring < 2 {
                adjacent[p] |= 1 << (p + RING_SIZE);
            }
        }
        p += 1;
    }
    adjacent
}

/// `ADJACENT[p]`: the points one slide away from `p`.
pub const ADJACENT: [Points; POINT_COUNT] = build_adjacency();

const fn build_mills() -> [Points; 16] {
    let mut mills = [0; 16];
    let mut n = 0;
    let mut ring = 0;
    while ring < 3 {
        let mut side = 0;
        while side < 4 {
            let k = 2 * side;
            let base = ring * RING_SIZE;
            mills[n] = (1 << (base + k)) | (1 << (base + k + 1)) | (1 << (base + (k + 2) % RING_SIZE));
            n += 1;
            side += 1;
        }
        ring += 1;
    }
    let mut k = 1;
    while k < RING_SIZE {
        mills[n] = (1 << k) | (1 << (k + RING_SIZE)) | (1 << (k + 2 * RING_SIZE));
        n += 1;
        k += 2;
    }
    mills
}

/// The 16 mills.
pub const MILLS: [Points; 16] = build_mills();

const fn build_mills_through() -> [[Points; 2]; POINT_COUNT] {
    let mut through = [[0; 2]; POINT_COUNT];
    let mut count = [0usize; POINT_COUNT];
    let mut m = 0;
    while m < 16 {
        let mut p = 0;
        while p < POINT_COUNT {
            if MILLS[m] & (1 << p) != 0 {
                through[p][count[p]] = MILLS[m];
                count[p] += 1;
            }
            p += 1;
        }
        m += 1;
    }
    through
}

/// `MILLS_THROUGH[p]`: the two mills that contain point `p` (every point lies on exactly two).
pub(crate) const MILLS_THROUGH: [[Points; 2]; POINT_COUNT] = build_mills_through();

/// Whether the stone on `p` is part of a mill of `stones` (which must contain `p`).
#[inline]
pub(crate) fn in_mill(stones: Points, p: usize) -> bool {
    let [m0, m1] = MILLS_THROUGH[p];
    stones & m0 == m0 || stones & m1 == m1
}

/// The stones of `stones` that lie in at least one mill of `stones`.
#[inline]
pub(crate) fn stones_in_mills(stones: Points) -> Points {
    let mut covered = 0;
    for mill in MILLS {
        if stones & mill == mill {
            covered |= mill;
        }
    }
    covered
}

/// The stones of `stones` that an opponent who has just closed a mill may remove: those in no
/// mill, or all of them when every one is in a mill.
#[inline]
pub(crate) fn removable(stones: Points) -> Points {
    let free = stones & !stones_in_mills(stones);
    if free != 0 { free } else { stones }
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn geometry_matches_the_board() {
        let name = |p: usize| POINT_NAMES[p];
        let neighbours = |p: &str| {
            let mut v: Vec<&str> = points(ADJACENT[point_from_name(p).unwrap()]).map(name).collect();
            v.sort();
            v
        };
        assert_eq!(neighbours("a7"), ["a4", "d7"]);
        assert_eq!(neighbours("d6"), ["b6", "d5", "d7", "f6"]);
        assert_eq!(neighbours("c4"), ["b4", "c3", "c5"]);
        assert_eq!(neighbours("e4"), ["e3", "e5", "f4"]);
        let edges: u32 = ADJACENT.iter().map(|a| a.count_ones()).sum();
        assert_eq!(edges, 2 * 32);
        for m in MILLS {
            assert_eq!(m.count_ones(), 3);
        }
        let sorted = |mut v: Vec<&'static str>| {
            v.sort();
            v
        };
        let all: Vec<Vec<&str>> = MILLS.iter().map(|&m| sorted(points(m).map(name).collect())).collect();
        for mill in [
            ["a1", "a4", "a7"],
            ["a1", "d1", "g1"],
            ["b4", "c4", "a4"],
            ["d5", "d6", "d7"],
            ["e3", "e4", "e5"],
            ["d1", "d2", "d3"],
            ["c3", "d3", "e3"],
            ["e4", "f4", "g4"],
        ] {
            assert!(all.contains(&sorted(mill.to_vec())), "{mill:?}");
        }
        for p in 0..POINT_COUNT {
            assert_eq!(MILLS.iter().filter(|&&m| m & (1 << p) != 0).count(), 2);
        }
    }

    #[test]
    fn removal_rule() {
        let p = |n: &str| 1u32 << point_from_name(n).unwrap();
        let mill = p("a1") | p("d1") | p("g1");
        assert_eq!(removable(mill | p("d5")), p("d5"));
        assert_eq!(removable(mill), mill);
    }
}
