//! The 16 automorphisms of the Morris board, applied through ring-entry tables.
//!
//! The 8 symmetries of the square act on every ring by one permutation of its 8 points; the
//! other 8 also swap the outer and the inner ring. A ring's contents are either a byte of a
//! [`Points`] mask (for bitboards) or a *ring pattern*: the base-3 number whose digit `k` is 0
//! (empty), 1 (a stone of the side to move) or 2 (a stone of the other side) for point `k` of the
//! ring. Both are permuted by precomputed tables, built at compile time.

use super::board::{Points, RING_SIZE};

/// Number of ring patterns, 3^8.
pub(crate) const PATTERNS: usize = 6561;
/// Symmetries of the square (acting on one ring).
pub(crate) const SQUARE_SYMMETRIES: usize = 8;
/// Symmetries of the board: the square's, with and without the outer/inner swap.
pub const BOARD_SYMMETRIES: usize = 16;

/// Where symmetry `d` (0..8) of the square sends point `k` of a ring: `d < 4` rotates by `d`
/// quarter turns, `d >= 4` reflects and then rotates.
pub(crate) const fn ring_point_image(d: usize, k: usize) -> usize {
    if d < 4 { (k + 2 * d) % RING_SIZE } else { (2 * (d - 4) + RING_SIZE - k) % RING_SIZE }
}

/// `SQUARE_PRODUCT[a][b]`: the symmetry "first `b`, then `a`".
pub(crate) const SQUARE_PRODUCT: [[u8; SQUARE_SYMMETRIES]; SQUARE_SYMMETRIES] = {
    let mut table = [[0u8; SQUARE_SYMMETRIES]; SQUARE_SYMMETRIES];
    let mut a = 0;
    while a < SQUARE_SYMMETRIES {
        let mut b = 0;
        while b < SQUARE_SYMMETRIES {
            let mut c = 0;
            while c < SQUARE_SYMMETRIES {
                let mut same = true;
                let mut k = 0;
                while k < RING_SIZE {
                    if ring_point_image(a, ring_point_image(b, k)) != ring_point_image(c, k) {
                        same = false;
                    }
                    k += 1;
                }
                if same {
                    table[a][b] = c as u8;
                }
                c += 1;
            }
            b += 1;
        }
        a += 1;
    }
    table
};

const fn build_byte_images() -> [[u8; 256]; SQUARE_SYMMETRIES] {
    let mut table = [[0u8; 256]; SQUARE_SYMMETRIES];
    let mut d = 0;
    while d < SQUARE_SYMMETRIES {
        let mut byte = 0;
        while byte < 256 {
            let mut image = 0u8;
            let mut k = 0;
            while k < RING_SIZE {
                if byte & (1 << k) != 0 {
                    image |= 1 << ring_point_image(d, k);
                }
                k += 1;
            }
            table[d][byte] = image;
            byte += 1;
        }
        d += 1;
    }
    table
}

/// `BYTE_IMAGE[d][ring]`: a ring's 8-bit mask under square symmetry `d`.
pub(crate) static BYTE_IMAGE: [[u8; 256]; SQUARE_SYMMETRIES] = build_byte_images();

const fn build_pattern_of_byte() -> [u16; 256] {
    let mut table = [0u16; 256];
    let mut byte = 0;
    while byte < 256 {
        let mut pattern = 0u16;
        let mut power = 1u16;
        let mut k = 0;
        while k < RING_SIZE {
            if byte & (1 << k) != 0 {
                pattern += power;
            }
            power *= 3;
            k += 1;
        }
        table[byte] = pattern;
        byte += 1;
    }
    table
}

/// `PATTERN_OF_BYTE[mask]`: the ring pattern with digit 1 where the mask has a bit.
pub(crate) static PATTERN_OF_BYTE: [u16; 256] = build_pattern_of_byte();

const POW3: [usize; RING_SIZE] = [1, 3, 9, 27, 81, 243, 729, 2187];

const fn build_pattern_images() -> [[u16; PATTERNS]; SQUARE_SYMMETRIES] {
    let mut table = [[0u16; PATTERNS]; SQUARE_SYMMETRIES];
    let mut d = 0;
    while d < SQUARE_SYMMETRIES {
        let mut pattern = 0;
        while pattern < PATTERNS {
            let mut rest = pattern;
            let mut image = 0usize;
            let mut k = 0;
            while k < RING_SIZE {
                let digit = rest % 3;
                rest /= 3;
                image += digit * POW3[ring_point_image(d, k)];
                k += 1;
            }
            table[d][pattern] = image as u16;
            pattern += 1;
        }
        d += 1;
    }
    table
}

/// `PATTERN_IMAGE[d][pattern]`: a ring pattern under square symmetry `d`.
pub(crate) static PATTERN_IMAGE: [[u16; PATTERNS]; SQUARE_SYMMETRIES] = build_pattern_images();

const fn build_masks_of_pattern() -> [[u8; 2]; PATTERNS] {
    let mut table = [[0u8; 2]; PATTERNS];
    let mut pattern = 0;
    while pattern < PATTERNS {
        let mut rest = pattern;
        let mut k = 0;
        while k < RING_SIZE {
            match rest % 3 {
                1 => table[pattern][0] |= 1 << k,
                2 => table[pattern][1] |= 1 << k,
                _ => {}
            }
            rest /= 3;
            k += 1;
        }
        pattern += 1;
    }
    table
}

/// `MASKS_OF_PATTERN[pattern]`: the ring masks of the digit-1 and digit-2 stones.
pub(crate) static MASKS_OF_PATTERN: [[u8; 2]; PATTERNS] = build_masks_of_pattern();

/// The ring pattern of ring `ring` (0 outer, 1 middle, 2 inner) of a position.
#[inline]
pub(crate) fn ring_pattern(mover: Points, other: Points, ring: usize) -> u16 {
    let shift = RING_SIZE * ring;
    PATTERN_OF_BYTE[((mover >> shift) & 0xff) as usize]
        + 2 * PATTERN_OF_BYTE[((other >> shift) & 0xff) as usize]
}

/// The stones of a position made of three ring patterns (outer, middle, inner).
#[inline]
pub(crate) fn from_ring_patterns(rings: [u16; 3]) -> (Points, Points) {
    let mut mover = 0;
    let mut other = 0;
    for (ring, &pattern) in rings.iter().enumerate() {
        let [m, o] = MASKS_OF_PATTERN[pattern as usize];
        mover |= Points::from(m) << (RING_SIZE * ring);
        other |= Points::from(o) << (RING_SIZE * ring);
    }
    (mover, other)
}

/// A set of points under board symmetry `sym` (0..16: `sym % 8` acts on the square, `sym >= 8`
/// also swaps the outer and inner ring).
#[inline]
pub fn transform(sym: usize, set: Points) -> Points {
    let table = &BYTE_IMAGE[sym % SQUARE_SYMMETRIES];
    let outer = Points::from(table[(set & 0xff) as usize]);
    let middle = Points::from(table[((set >> 8) & 0xff) as usize]);
    let inner = Points::from(table[((set >> 16) & 0xff) as usize]);
    if sym < SQUARE_SYMMETRIES {
        outer | middle << 8 | inner << 16
    } else {
        inner | middle << 8 | outer << 16
    }
}

const fn build_fixing() -> [u8; 256] {
    let images = build_byte_images();
    let mut table = [0u8; 256];
    let mut byte = 0;
    while byte < 256 {
        let mut d = 0;
        while d < SQUARE_SYMMETRIES {
            if images[d][byte] as usize == byte {
                table[byte] |= 1 << d;
            }
            d += 1;
        }
        byte += 1;
    }
    table
}

/// `FIXING[mask]`: bit `d` set where square symmetry `d` maps the ring's mask onto itself.
static FIXING: [u8; 256] = build_fixing();

/// Whether a symmetry other than the identity maps `set` onto itself: one that fixes each
/// ring, or one that fixes the middle ring and exchanges the other two.
#[inline]
pub(crate) fn has_symmetry(set: Points) -> bool {
    let (outer, middle, inner) = ((set & 0xff) as usize, (set >> 8 & 0xff) as usize, (set >> 16) as usize);
    let fixing_middle = FIXING[middle];
    if fixing_middle & FIXING[outer] & FIXING[inner] & !1 != 0 {
        return true;
    }
    let mut exchanging = fixing_middle;
    while exchanging != 0 {
        let d = exchanging.trailing_zeros() as usize;
        exchanging &= exchanging - 1;
        if usize::from(BYTE_IMAGE[d][outer]) == inner && usize::from(BYTE_IMAGE[d][inner]) == outer {
            return true;
        }
    }
    false
}

/// The canonical image of a position (stones of the side to move, of the other side): of its 16
/// images, the one whose `(other << 24) | mover` is least. Independent of the index, which
/// numbers the same orbits; kept simple because it serves tests and notation, not hot loops.
pub fn canonical(mover: Points, other: Points) -> (Points, Points) {
    (0..BOARD_SYMMETRIES)
        .map(|sym| (transform(sym, mover), transform(sym, other)))
        .min_by_key(|&(m, o)| (u64::from(o) << 24) | u64::from(m))
        .expect("16 symmetries")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::morris::board::POINT_COUNT;

    /// That each maps every variant's lines and mills onto themselves is tested with the
    /// variants (`variant.rs`).
    #[test]
    fn has_symmetry_is_a_symmetry_other_than_the_identity_fixing_the_set() {
        let mut symmetric = 0;
        for set in 0..1u32 << 24 {
            let expected = (1..BOARD_SYMMETRIES).any(|sym| transform(sym, set) == set);
            assert_eq!(has_symmetry(set), expected, "{set:06x}");
            symmetric += u32::from(expected);
        }
        // Both answers occur, the symmetric sets among them rare.
        assert!(symmetric > 4096 && symmetric < 1 << 20, "{symmetric} symmetric sets");
    }

    #[test]
    fn the_16_symmetries_are_distinct() {
        let mut images = std::collections::HashSet::new();
        for sym in 0..BOARD_SYMMETRIES {
            images.insert((0..POINT_COUNT).map(|p| transform(sym, 1 << p)).collect::<Vec<_>>());
        }
        assert_eq!(images.len(), 16, "the 16 symmetries are distinct");
    }

    #[test]
    fn pattern_tables_agree_with_byte_tables() {
        let (mover, other) = (0x00a5_1c03, 0x0042_2050);
        for d in 0..SQUARE_SYMMETRIES {
            for ring in 0..3 {
                let image = PATTERN_IMAGE[d][ring_pattern(mover, other, ring) as usize];
                let expected = ring_pattern(transform(d, mover), transform(d, other), ring);
                assert_eq!(image, expected);
            }
        }
        let rings = [0, 1, 2].map(|r| ring_pattern(mover, other, r));
        assert_eq!(from_ring_patterns(rings), (mover, other));
    }

    #[test]
    fn square_product_composes() {
        for a in 0..8 {
            for b in 0..8 {
                let c = SQUARE_PRODUCT[a][b] as usize;
                for k in 0..RING_SIZE {
                    assert_eq!(ring_point_image(a, ring_point_image(b, k)), ring_point_image(c, k));
                }
            }
        }
    }
}
