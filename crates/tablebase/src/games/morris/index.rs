//! A perfect index of each moving-phase class up to the 16 board symmetries.
//!
//! A position is three ring patterns (outer `o`, middle `m`, inner `i`); the symmetry group is
//! the square's group D4 acting on all three rings at once, times the swap of `o` and `i`. The
//! index is a stabiliser chain over ring-entry tables:
//!
//! 1. `m` is mapped to the least pattern of its D4 orbit; the same symmetry is applied to `o` and
//!    `i`. What can still move the position without changing `m` is the stabiliser `S` of `m`
//!    in D4, together with the swap.
//! 2. The pair `(o, i)` is numbered among the orbits of `S x swap`: the ring from the lesser
//!    `S`-orbit goes first and is mapped to its orbit's least pattern `U`; the other ring is then
//!    only free under the stabiliser `S1` of `U` in `S`, and is mapped to its least `S1` image. When
//!    both rings lie in the same `S`-orbit the swap can still act, which a small table of
//!    "diagonal" pairs per orbit resolves.
//!
//! Every step is a table lookup over the 3^8 ring patterns, and offsets are prefix sums of exact
//! orbit counts, so the numbering has no gaps: a class's index size is its number of distinct
//! positions. The tables cover every class of up to 12 stones a side and take a few megabytes.

use super::board::Points;
use super::board::RING_SIZE;
use super::variant::{MorrisVariant, Standard};
use super::symmetry::{
    BYTE_IMAGE, PATTERN_IMAGE, PATTERN_OF_BYTE, PATTERNS, SQUARE_PRODUCT, SQUARE_SYMMETRIES,
    from_ring_patterns, ring_pattern,
};
use std::sync::OnceLock;

/// The most stones per side the index covers: Morabaraba's 12, which fill the board.
pub(crate) const INDEX_MAX_STONES: u32 = 12;

/// Classes `(p, q)` of one ring: `p` stones of the side to move and `q` of the other, `p + q <= 8`.
const RING_CLASSES: usize = 45;
/// Guide-table sizes of [`PrefixSums`]: a few segments per bucket, a few megabytes in all.
const PAIR_GUIDE_BUCKETS: usize = 1024;
const CLASS_GUIDE_BUCKETS: usize = 2048;

const fn ring_class_id(p: usize, q: usize) -> usize {
    // (p, q) in lexicographic order: rows of 9, 8, ..., 1 classes.
    p * 9 - p * (p.saturating_sub(1)) / 2 + q
}

const fn build_pattern_classes() -> ([u8; PATTERNS], [[u8; 2]; PATTERNS]) {
    let mut class = [0u8; PATTERNS];
    let mut counts = [[0u8; 2]; PATTERNS];
    let mut pattern = 0;
    while pattern < PATTERNS {
        let mut rest = pattern;
        let (mut p, mut q) = (0, 0);
        while rest > 0 {
            match rest % 3 {
                1 => p += 1,
                2 => q += 1,
                _ => {}
            }
            rest /= 3;
        }
        class[pattern] = ring_class_id(p, q) as u8;
        counts[pattern] = [p as u8, q as u8];
        pattern += 1;
    }
    (class, counts)
}

static PATTERN_CLASSES: ([u8; PATTERNS], [[u8; 2]; PATTERNS]) = build_pattern_classes();

#[inline]
fn pattern_class(pattern: usize) -> usize {
    PATTERN_CLASSES.0[pattern] as usize
}

#[inline]
fn pattern_counts(pattern: usize) -> (usize, usize) {
    let [p, q] = PATTERN_CLASSES.1[pattern];
    (p as usize, q as usize)
}

/// The subgroups of D4, each a bit mask over the 8 square symmetries.
fn subgroups_of_d4() -> Vec<u8> {
    (0u16..256)
        .map(|m| m as u8)
        .filter(|&mask| {
            mask & 1 != 0
                && (0..8).all(|a| {
                    mask & (1 << a) == 0
                        || (0..8).all(|b| mask & (1 << b) == 0 || mask & (1 << SQUARE_PRODUCT[a][b]) != 0)
                })
        })
        .collect()
}

/// Prefix sums of segment lengths, with a guide table that finds the segment holding a value
/// in a few steps instead of a binary search over all segments.
struct PrefixSums<T> {
    /// `starts[k]` is where segment `k` starts; the last entry is the total.
    starts: Vec<T>,
    /// `guide[j]`: the segment holding the least value whose bucket is `j` or more.
    guide: Vec<u32>,
    /// A value's bucket is `value * scale >> 64`, which is below `guide.len() - 1`.
    scale: u64,
}

impl<T: Copy + Into<u64>> PrefixSums<T> {
    fn new(starts: Vec<T>, max_buckets: usize) -> PrefixSums<T> {
        let total: u64 = (*starts.last().expect("a total")).into();
        let segments = starts.len() - 1;
        let buckets = segments.next_power_of_two().min(max_buckets).max(1) as u64;
        let scale = if total == 0 {
            0
        } else {
            ((u128::from(buckets) << 64) / u128::from(total)).min(u128::from(u64::MAX)) as u64
        };
        let bucket = |v: u64| ((u128::from(v) * u128::from(scale)) >> 64) as u64;
        let segment_of = |v: u64| {
            starts.partition_point(|&s| s.into() <= v).saturating_sub(1).min(segments.saturating_sub(1))
        };
        let mut guide = Vec::with_capacity(buckets as usize + 1);
        let mut v = 0u64;
        for j in 0..=buckets {
            while v < total && bucket(v) < j {
                // Jump close to the bucket's first value, then step to it exactly.
                let estimate =
                    if scale == 0 { total } else { ((u128::from(j) << 64) / u128::from(scale)) as u64 };
                v = if estimate > v + 1 && bucket(estimate - 1) < j { estimate.min(total) } else { v + 1 };
            }
            guide.push(segment_of(v) as u32);
        }
        PrefixSums { starts, guide, scale }
    }

    #[inline]
    fn total(&self) -> u64 {
        (*self.starts.last().expect("a total")).into()
    }

    #[inline]
    fn start(&self, segment: usize) -> u64 {
        self.starts[segment].into()
    }

    /// The segment holding `value` (< total).
    #[inline]
    fn segment(&self, value: u64) -> usize {
        let j = ((u128::from(value) * u128::from(self.scale)) >> 64) as usize;
        let (low, high) = (self.guide[j] as usize, self.guide[j + 1] as usize);
        low + self.starts[low + 1..=high].partition_point(|&s| s.into() <= value)
    }
}

/// A subgroup `S1` of a subgroup `S`: the `S1`-least patterns of each class, ordered by
/// (`S`-orbit, pattern).
struct RankedUnder {
    /// Rank of an `S1`-least pattern within its class in that order.
    rank: Vec<u16>,
    /// All `S1`-least patterns in that order, class after class.
    list: Vec<u16>,
    class_start: [u32; RING_CLASSES + 1],
    /// Per `S`-orbit: how many `S1`-least patterns of the orbit's class lie in it or before it.
    through_orbit: Vec<u32>,
}

impl RankedUnder {
    #[inline]
    fn class_total(&self, class: usize) -> u32 {
        self.class_start[class + 1] - self.class_start[class]
    }
}

/// One orbit of a subgroup `S`, packed so that un-indexing reads it in one load.
#[derive(Clone, Copy)]
struct Orbit {
    least: u16,
    /// Subgroup id of the stabiliser in `S` of the least pattern.
    stabiliser: u8,
    /// Stones of the side to move and of the other side on the ring.
    mover: u8,
    other: u8,
}

impl Orbit {
    #[inline]
    fn counts(&self) -> (usize, usize) {
        (self.mover as usize, self.other as usize)
    }
}

/// The orbits of one subgroup `S` of D4 on ring patterns.
struct OrbitTables {
    #[cfg_attr(not(test), allow(dead_code))]
    mask: u8,
    /// The least pattern of each pattern's orbit, and a symmetry of `S` that maps it there.
    least: Vec<u16>,
    to_least: Vec<u8>,
    /// Each pattern's orbit number; orbits are numbered by (ring class, least pattern).
    orbit: Vec<u16>,
    orbit_info: Vec<Orbit>,
    /// Per orbit, the second rings that make a canonical pair with its least pattern when both
    /// rings lie in this orbit: `diagonal[diagonal_start[k]..diagonal_start[k + 1]]`.
    diagonal_start: Vec<u32>,
    diagonal: Vec<u16>,
    /// Rank of a pattern among its orbit's diagonal entries (valid only for those entries).
    diagonal_rank: Vec<u8>,
    /// Indexed by the subgroup id of `S1`, for the subgroups of `S`.
    ranked: Vec<Option<RankedUnder>>,
}

impl OrbitTables {
    #[inline]
    fn diagonal_count(&self, orbit: usize) -> u32 {
        self.diagonal_start[orbit + 1] - self.diagonal_start[orbit]
    }

    fn orbit_count(&self) -> usize {
        self.orbit_info.len()
    }
}

/// The tables shared by every class.
struct Tables {
    /// `orbits[s]` for subgroup id `s`; [`Tables::full`] is D4 itself.
    orbits: Vec<OrbitTables>,
    full: usize,
    /// Per subgroup id and pair total `(a, b)`: prefix sums over the subgroup's orbits of the
    /// number of canonical `(first, second)` ring pairs whose first ring lies in that orbit.
    pair_offsets: Vec<PrefixSums<u32>>,
    /// Per moving-phase class `(A, B)`: prefix sums over the D4 orbits of the middle ring.
    class_offsets: Vec<PrefixSums<u64>>,
    /// The trivial subgroup, the stabiliser of most middle rings: its pairs are un-indexed by
    /// arithmetic over [`PairBlock`]s rather than through its large prefix-sum tables.
    trivial: usize,
    trivial_blocks: Vec<Vec<PairBlock>>,
    /// What [`ClassIndex::index`] needs of a middle ring, per pattern, in one load.
    middle: Vec<Middle>,
    /// Per pattern under the trivial subgroup: its ring class `<< 16 |` its rank within the
    /// class, so that comparing keys compares orbit numbers.
    trivial_key: Vec<u32>,
    /// Per pair total `(a, b)` and first ring class: the start of its [`PairBlock`] and the size
    /// of the second ring's class, at `(a * stride + b) * RING_CLASSES + class`.
    trivial_block_at: Vec<[u32; 2]>,
    /// Stone counts per side are `0..stride`: pair and class entries are at `a * stride + b`.
    stride: usize,
}

/// A middle ring pattern's D4 orbit, the symmetry that maps it to the orbit's least pattern, the
/// stabiliser of that pattern, and the ring's stone counts.
#[derive(Clone, Copy, Default)]
struct Middle {
    orbit: u16,
    to_least: u8,
    stabiliser: u8,
    mover: u8,
    other: u8,
}

/// Under the trivial subgroup, the canonical pairs with first ring in class `first` and second
/// ring in class `second` form one block: a rectangle (all ranks) when `first < second`, a
/// triangle (second rank at least the first) when they are equal.
#[derive(Clone, Copy)]
struct PairBlock {
    start: u32,
    first: u8,
    second: u8,
}

/// A trivial-subgroup pair and the pairs after it in its block: the first ring is the `r1`-th
/// pattern of its ring class and the second the `r2`-th of its own, pairs ordered by `r1`, then
/// `r2` (with `r2 >= r1` when both rings are of the same class).
#[derive(Clone, Copy, Default)]
struct TrivialRun {
    /// Pairs of the block after this one.
    left: u32,
    first_at: u32,
    second_at: u32,
    n: u32,
    triangle: bool,
    r1: u32,
    r2: u32,
}

impl TrivialRun {
    #[inline]
    fn pair(&self, tables: &Tables) -> (u16, u16) {
        let list = &tables.orbits[tables.trivial].ranked[tables.trivial].as_ref().expect("trivial").list;
        (list[(self.first_at + self.r1) as usize], list[(self.second_at + self.r2) as usize])
    }

    /// Moves `steps` pairs on within the block; false (and unchanged) past its end.
    #[inline]
    fn advance(&mut self, steps: u32) -> bool {
        if steps > self.left {
            return false;
        }
        self.left -= steps;
        if !self.triangle {
            let along = self.r2 + steps;
            self.r1 += along / self.n;
            self.r2 = along % self.n;
            return true;
        }
        // Row r1 of the triangle runs from r2 = r1 to n - 1.
        let mut steps = steps;
        while self.r2 + steps >= self.n {
            steps -= self.n - self.r2;
            self.r1 += 1;
            self.r2 = self.r1;
        }
        self.r2 += steps;
        true
    }
}

impl Tables {
    /// The tables of the classes with at most `max` stones a side, laid out for those counts
    /// alone (entries at `a * (max + 1) + b`).
    fn build(max: usize) -> Tables {
        let masks = subgroups_of_d4();
        let id_of = |mask: u8| masks.iter().position(|&m| m == mask).expect("a subgroup");
        let full = id_of(0xff);
        // Least images first: every later step consults them for smaller subgroups.
        let least_of = least_images(&masks);
        let orbits: Vec<OrbitTables> = masks
            .iter()
            .enumerate()
            .map(|(s, &mask)| OrbitTables::build(s, mask, &masks, &least_of))
            .collect();

        // Counts 0..=max only: a 13 x 13 layout for the standard game's tables too made its
        // generation 3.6% slower (docs/BENCHMARKS.md, "The Morris index up to 12 stones").
        let stride = max + 1;
        let mut pair_offsets = Vec::with_capacity(masks.len() * stride * stride);
        for tables in &orbits {
            for a in 0..stride {
                for b in 0..stride {
                    let prefix = if a + b <= 16 { pair_prefix(tables, a, b) } else { vec![0] };
                    pair_offsets.push(PrefixSums::new(prefix, PAIR_GUIDE_BUCKETS));
                }
            }
        }

        let trivial = id_of(0x01);
        let mut tables = Tables {
            orbits,
            full,
            pair_offsets,
            class_offsets: Vec::new(),
            trivial,
            trivial_blocks: Vec::new(),
            middle: Vec::new(),
            trivial_key: Vec::new(),
            trivial_block_at: vec![[0, 0]; stride * stride * RING_CLASSES],
            stride,
        };
        let ranked = tables.orbits[trivial].ranked[trivial].as_ref().expect("trivial");
        for a in 0..stride {
            for b in 0..stride {
                let blocks = tables.trivial_pair_blocks(a, b);
                for block in &blocks {
                    let size = ranked.class_total(usize::from(block.second));
                    tables.trivial_block_at
                        [(a * stride + b) * RING_CLASSES + usize::from(block.first)] =
                        [block.start, size];
                }
                tables.trivial_blocks.push(blocks);
            }
        }
        tables.trivial_key =
            (0..PATTERNS).map(|x| (pattern_class(x) as u32) << 16 | u32::from(ranked.rank[x])).collect();
        let d4 = &tables.orbits[full];
        tables.middle = (0..PATTERNS)
            .map(|x| {
                let orbit = d4.orbit[x];
                let info = d4.orbit_info[usize::from(orbit)];
                Middle {
                    orbit,
                    to_least: d4.to_least[x],
                    stabiliser: info.stabiliser,
                    mover: info.mover,
                    other: info.other,
                }
            })
            .collect();
        // Every count from 0: the placement phase has classes with fewer than 3 stones on the
        // board. A class's offsets depend only on its own counts, so adding classes leaves the
        // moving-phase indices as they are.
        for mover in 0..stride {
            for other in 0..stride {
                let offsets = tables.middle_prefix(mover, other);
                tables.class_offsets.push(PrefixSums::new(offsets, CLASS_GUIDE_BUCKETS));
            }
        }
        tables
    }

    /// Where class `mover`-`other` is in `class_offsets`.
    fn class_slot(&self, mover: u32, other: u32) -> usize {
        mover as usize * self.stride + other as usize
    }

    #[inline]
    fn pairs(&self, subgroup: usize, a: usize, b: usize) -> &PrefixSums<u32> {
        &self.pair_offsets[(subgroup * self.stride + a) * self.stride + b]
    }

    fn middle_prefix(&self, mover: usize, other: usize) -> Vec<u64> {
        let d4 = &self.orbits[self.full];
        let mut offsets = Vec::with_capacity(d4.orbit_count() + 1);
        let mut total = 0u64;
        for k in 0..d4.orbit_count() {
            offsets.push(total);
            let orbit = d4.orbit_info[k];
            let (p, q) = orbit.counts();
            if p <= mover && q <= other && (mover - p) + (other - q) <= 16 {
                total += self.pairs(orbit.stabiliser as usize, mover - p, other - q).total();
            }
        }
        offsets.push(total);
        offsets
    }

    /// [`Tables::pair_index`] for the trivial subgroup, by arithmetic within a [`PairBlock`]: the
    /// stabiliser of most middle rings, so this is the common case of the index.
    #[inline]
    fn trivial_pair_index(&self, o: usize, i: usize, a: usize, b: usize) -> u32 {
        let (key_o, key_i) = (self.trivial_key[o], self.trivial_key[i]);
        let (first, second) = if key_o <= key_i { (key_o, key_i) } else { (key_i, key_o) };
        let (class, r1, r2) = (first >> 16, first & 0xffff, second & 0xffff);
        let [start, n] = self.trivial_block_at[(a * self.stride + b) * RING_CLASSES + class as usize];
        if class == second >> 16 {
            // The triangle: row r holds the n - r pairs whose second rank is r or more.
            start + r1 * (2 * n + 1 - r1) / 2 + (r2 - r1)
        } else {
            start + r1 * n + r2
        }
    }

    /// The number of the pair `(o, i)` (outer and inner ring patterns) among the orbits of
    /// `subgroup x swap` on pairs with `a` stones of the side to move and `b` of the other.
    #[inline]
    fn pair_index(&self, subgroup: usize, mut o: usize, mut i: usize, a: usize, b: usize) -> u32 {
        let s = &self.orbits[subgroup];
        let (mut ko, mut ki) = (s.orbit[o] as usize, s.orbit[i] as usize);
        if ko > ki {
            std::mem::swap(&mut o, &mut i);
            std::mem::swap(&mut ko, &mut ki);
        }
        let base = self.pairs(subgroup, a, b).start(ko) as u32;
        let s1 = s.orbit_info[ko].stabiliser as usize;
        let s1_least = &self.orbits[s1].least;
        let second = s1_least[PATTERN_IMAGE[s.to_least[o] as usize][i] as usize] as usize;
        if ko == ki {
            let swapped = s1_least[PATTERN_IMAGE[s.to_least[i] as usize][o] as usize] as usize;
            return base + u32::from(s.diagonal_rank[second.min(swapped)]);
        }
        let ranked = s.ranked[s1].as_ref().expect("stabiliser is a subgroup");
        let rank = u32::from(ranked.rank[second]);
        if pattern_class(o) == pattern_class(i) {
            base + s.diagonal_count(ko) + rank - ranked.through_orbit[ko]
        } else {
            base + rank
        }
    }

    fn trivial_pair_blocks(&self, a: usize, b: usize) -> Vec<PairBlock> {
        let mut blocks = Vec::new();
        if a + b > 16 {
            return blocks;
        }
        let ranked = self.orbits[self.trivial].ranked[self.trivial].as_ref().expect("trivial");
        let prefix = self.pairs(self.trivial, a, b);
        for p in 0..=a.min(8) {
            for q in 0..=b.min(8 - p) {
                if (a - p) + (b - q) > 8 {
                    continue;
                }
                let (first, second) = (ring_class_id(p, q), ring_class_id(a - p, b - q));
                if first <= second {
                    // Trivial-subgroup orbits are single patterns in (class, pattern) order.
                    let start = prefix.start(ranked.class_start[first] as usize) as u32;
                    blocks.push(PairBlock { start, first: first as u8, second: second as u8 });
                }
            }
        }
        blocks.sort_by_key(|block| block.first);
        blocks
    }

    /// Where trivial-subgroup pair `index` lies: its block and its place in the block, found by
    /// arithmetic within the block.
    fn trivial_run(&self, a: usize, b: usize, index: u32) -> TrivialRun {
        let blocks = &self.trivial_blocks[a * self.stride + b];
        let at = blocks.partition_point(|block| block.start <= index) - 1;
        let block = blocks[at];
        let ranked = self.orbits[self.trivial].ranked[self.trivial].as_ref().expect("trivial");
        let (first, second) = (block.first as usize, block.second as usize);
        let rest = index - block.start;
        let n = ranked.class_total(second);
        let (r1, r2) = if first < second {
            (rest / n, rest % n)
        } else {
            // Row r of the triangle holds n - r pairs and starts at r * n - r * (r - 1) / 2.
            let row_start =
                |r: u32| u64::from(r) * u64::from(n) - u64::from(r) * u64::from(r.saturating_sub(1)) / 2;
            let m = 2.0 * f64::from(n) + 1.0;
            let mut r = ((m - (m * m - 8.0 * f64::from(rest)).max(0.0).sqrt()) / 2.0) as u32;
            while r > 0 && row_start(r) > u64::from(rest) {
                r -= 1;
            }
            while r + 1 < n && row_start(r + 1) <= u64::from(rest) {
                r += 1;
            }
            (r, r + rest - row_start(r) as u32)
        };
        let end = blocks.get(at + 1).map_or(self.pairs(self.trivial, a, b).total() as u32, |next| next.start);
        TrivialRun {
            left: end - index - 1,
            first_at: ranked.class_start[first],
            second_at: ranked.class_start[second],
            n,
            triangle: first == second,
            r1,
            r2,
        }
    }

    /// The inverse of [`Tables::pair_index`]: the canonical `(first, second)` ring patterns.
    fn pair_at(&self, subgroup: usize, a: usize, b: usize, index: u32) -> (u16, u16) {
        if subgroup == self.trivial {
            return self.trivial_run(a, b, index).pair(self);
        }
        let s = &self.orbits[subgroup];
        let prefix = self.pairs(subgroup, a, b);
        let ko = prefix.segment(u64::from(index));
        let orbit = s.orbit_info[ko];
        let first = orbit.least;
        let mut rest = index - prefix.start(ko) as u32;
        let (p, q) = orbit.counts();
        let second_class = ring_class_id(a - p, b - q);
        let ranked = s.ranked[orbit.stabiliser as usize].as_ref().expect("subgroup");
        if second_class == ring_class_id(p, q) {
            let diagonal = s.diagonal_count(ko);
            if rest < diagonal {
                return (first, s.diagonal[(s.diagonal_start[ko] + rest) as usize]);
            }
            rest = rest - diagonal + ranked.through_orbit[ko];
        }
        (first, ranked.list[(ranked.class_start[second_class] + rest) as usize])
    }
}

/// Prefix sums, over the orbits of `tables`' subgroup in order, of the canonical pairs whose
/// first ring lies in the orbit, for pairs with `a` stones of the side to move and `b` of the
/// other over the two rings.
fn pair_prefix(tables: &OrbitTables, a: usize, b: usize) -> Vec<u32> {
    let mut prefix = Vec::with_capacity(tables.orbit_count() + 1);
    let mut total = 0u32;
    for k in 0..tables.orbit_count() {
        prefix.push(total);
        let orbit = tables.orbit_info[k];
        let (p, q) = orbit.counts();
        if p > a || q > b || (a - p) + (b - q) > 8 {
            continue;
        }
        let first_class = ring_class_id(p, q);
        let second_class = ring_class_id(a - p, b - q);
        let ranked = tables.ranked[orbit.stabiliser as usize].as_ref().expect("subgroup");
        total += match first_class.cmp(&second_class) {
            std::cmp::Ordering::Greater => 0,
            std::cmp::Ordering::Less => ranked.class_total(second_class),
            std::cmp::Ordering::Equal => {
                tables.diagonal_count(k) + ranked.class_total(second_class) - ranked.through_orbit[k]
            }
        };
    }
    prefix.push(total);
    prefix
}

/// For each subgroup (by mask), each pattern's least image under it and the symmetry that gives it.
fn least_images(masks: &[u8]) -> Vec<(Vec<u16>, Vec<u8>)> {
    masks
        .iter()
        .map(|&mask| {
            let mut least = vec![0u16; PATTERNS];
            let mut to_least = vec![0u8; PATTERNS];
            for x in 0..PATTERNS {
                let (mut best, mut best_d) = (x as u16, 0u8);
                for d in (0..SQUARE_SYMMETRIES).filter(|d| mask & (1 << d) != 0) {
                    let y = PATTERN_IMAGE[d][x];
                    if y < best {
                        best = y;
                        best_d = d as u8;
                    }
                }
                least[x] = best;
                to_least[x] = best_d;
            }
            (least, to_least)
        })
        .collect()
}

impl OrbitTables {
    /// The orbit tables of subgroup `s` (`mask`), from the least images of every subgroup.
    fn build(s: usize, mask: u8, masks: &[u8], least_of: &[(Vec<u16>, Vec<u8>)]) -> OrbitTables {
        let id_of = |mask: u8| masks.iter().position(|&m| m == mask).expect("a subgroup");
        let (least, to_least) = least_of[s].clone();
        let mut reps: Vec<u16> = (0..PATTERNS as u16).filter(|&x| least[x as usize] == x).collect();
        reps.sort_by_key(|&x| (pattern_class(x as usize), x));
        let mut orbit_of_rep = vec![u16::MAX; PATTERNS];
        for (k, &rep) in reps.iter().enumerate() {
            orbit_of_rep[rep as usize] = k as u16;
        }
        let orbit: Vec<u16> = (0..PATTERNS).map(|x| orbit_of_rep[least[x] as usize]).collect();
        let stabiliser_mask = |x: usize| {
            (0..SQUARE_SYMMETRIES)
                .filter(|&d| mask & (1 << d) != 0 && PATTERN_IMAGE[d][x] as usize == x)
                .fold(0u8, |acc, d| acc | (1 << d))
        };
        let orbit_stabiliser: Vec<u8> =
            reps.iter().map(|&rep| id_of(stabiliser_mask(rep as usize)) as u8).collect();
        let (diagonal_start, diagonal, diagonal_rank) =
            diagonals(&reps, &orbit, &to_least, &orbit_stabiliser, least_of);
        let ranked = masks
            .iter()
            .enumerate()
            .map(|(s1, &sub)| {
                (sub & mask == sub).then(|| RankedUnder::build(&least_of[s1].0, &orbit, reps.len()))
            })
            .collect();
        OrbitTables {
            mask,
            least,
            to_least,
            orbit,
            orbit_info: reps
                .iter()
                .zip(&orbit_stabiliser)
                .map(|(&least, &stabiliser)| {
                    let (mover, other) = pattern_counts(least as usize);
                    Orbit { least, stabiliser, mover: mover as u8, other: other as u8 }
                })
                .collect(),
            diagonal_start,
            diagonal,
            diagonal_rank,
            ranked,
        }
    }
}

/// The "diagonal" second rings of each orbit: with both rings in one orbit the swap can still
/// act, and these are the second rings left canonical by it. Per orbit a start, the list, and
/// each pattern's rank in its orbit's list.
fn diagonals(
    reps: &[u16],
    orbit: &[u16],
    to_least: &[u8],
    orbit_stabiliser: &[u8],
    least_of: &[(Vec<u16>, Vec<u8>)],
) -> (Vec<u32>, Vec<u16>, Vec<u8>) {
    let mut members: Vec<Vec<u16>> = vec![Vec::new(); reps.len()];
    for x in 0..PATTERNS {
        members[orbit[x] as usize].push(x as u16);
    }
    let mut diagonal_start = vec![0u32];
    let mut diagonal = Vec::new();
    let mut diagonal_rank = vec![u8::MAX; PATTERNS];
    for (k, &rep) in reps.iter().enumerate() {
        let s1_least = &least_of[orbit_stabiliser[k] as usize].0;
        for &x in &members[k] {
            let swapped = PATTERN_IMAGE[to_least[x as usize] as usize][rep as usize];
            let canonical = s1_least[x as usize].min(s1_least[swapped as usize]);
            if canonical == x {
                diagonal_rank[x as usize] = (diagonal.len() as u32 - diagonal_start[k]) as u8;
                diagonal.push(x);
            }
        }
        diagonal_start.push(diagonal.len() as u32);
    }
    (diagonal_start, diagonal, diagonal_rank)
}

impl RankedUnder {
    /// The patterns least under a subgroup (`s1_least`), ranked within their ring class in the
    /// order of the outer subgroup's orbits.
    fn build(s1_least: &[u16], orbit: &[u16], orbits: usize) -> RankedUnder {
        let mut list: Vec<u16> = (0..PATTERNS as u16).filter(|&x| s1_least[x as usize] == x).collect();
        list.sort_by_key(|&x| (orbit[x as usize], x));
        let mut class_start = [0u32; RING_CLASSES + 1];
        for &x in &list {
            class_start[pattern_class(x as usize) + 1] += 1;
        }
        for c in 0..RING_CLASSES {
            class_start[c + 1] += class_start[c];
        }
        let mut rank = vec![u16::MAX; PATTERNS];
        let mut through_orbit = vec![0u32; orbits];
        for (pos, &x) in list.iter().enumerate() {
            let class = pattern_class(x as usize);
            let within = pos as u32 - class_start[class];
            rank[x as usize] = within as u16;
            through_orbit[orbit[x as usize] as usize] = within + 1;
        }
        // Orbits without S1-least patterns cannot occur: an orbit's least pattern is least
        // under every subgroup too.
        RankedUnder { rank, list, class_start, through_orbit }
    }
}

/// The tables of the classes up to `mover`-`other`: those of the standard game's 9 stones
/// while both counts allow, so that it never pays for Morabaraba's larger classes (a third
/// more time and memory at every start). A class is numbered the same by either.
fn tables(mover: u32, other: u32) -> &'static Tables {
    static UP_TO_9: OnceLock<Tables> = OnceLock::new();
    static UP_TO_12: OnceLock<Tables> = OnceLock::new();
    let standard = Standard::RULES.stones;
    if mover <= standard && other <= standard {
        UP_TO_9.get_or_init(|| Tables::build(standard as usize))
    } else {
        UP_TO_12.get_or_init(|| Tables::build(INDEX_MAX_STONES as usize))
    }
}

/// The index of one moving-phase class `A-B`: a bijection between the class's positions up to
/// symmetry and `0..size()`.
#[derive(Clone, Copy)]
#[cfg_attr(not(feature = "internals"), allow(unnameable_types, reason = "reached only as a part of the catalogue a game gives, through its traits"))]
pub struct ClassIndex {
    tables: &'static Tables,
    offsets: &'static PrefixSums<u64>,
    mover: u32,
    other: u32,
}

impl std::fmt::Debug for ClassIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClassIndex").finish_non_exhaustive()
    }
}

impl ClassIndex {
    /// The index of the positions with `mover` stones of the side to move and `other` of the
    /// other side on the board, each 0..=12 (the moving phase's classes are 3..=9 in the
    /// standard game, 3..=12 in Morabaraba; positions of the placement phase have fewer).
    ///
    /// # Panics
    /// If a count is over 12; callers validate user input first.
    pub fn new(mover: u32, other: u32) -> ClassIndex {
        assert!(mover <= INDEX_MAX_STONES && other <= INDEX_MAX_STONES, "class {mover}-{other}");
        let tables = tables(mover, other);
        ClassIndex { tables, offsets: &tables.class_offsets[tables.class_slot(mover, other)], mover, other }
    }

    /// Stones of the side to move.
    pub fn mover(&self) -> u32 {
        self.mover
    }

    /// Stones of the other side.
    pub fn other(&self) -> u32 {
        self.other
    }

    /// Number of indices, equal to the number of distinct positions of the class.
    pub fn size(&self) -> u64 {
        self.offsets.total()
    }

    /// The index of a position of this class, given as the stones of the side to move and of the
    /// other side; any of its 16 images gives the same index.
    #[inline]
    pub fn index(&self, mover: Points, other: Points) -> u64 {
        debug_assert_eq!((mover.count_ones(), other.count_ones()), (self.mover, self.other));
        let t = self.tables;
        let middle = t.middle[ring_pattern(mover, other, 1) as usize];
        // The symmetry acts on the rings' bit masks (tables of a few hundred bytes), not on their
        // patterns (a 100 KB table that the solver's table reads push out of the cache).
        let image = &BYTE_IMAGE[usize::from(middle.to_least)];
        let ring_under = |ring: usize| {
            let shift = RING_SIZE * ring;
            let m = image[((mover >> shift) & 0xff) as usize];
            let o = image[((other >> shift) & 0xff) as usize];
            usize::from(PATTERN_OF_BYTE[usize::from(m)] + 2 * PATTERN_OF_BYTE[usize::from(o)])
        };
        let (outer, inner) = (ring_under(0), ring_under(2));
        let a = self.mover as usize - usize::from(middle.mover);
        let b = self.other as usize - usize::from(middle.other);
        let stabiliser = usize::from(middle.stabiliser);
        let pair = if stabiliser == t.trivial {
            t.trivial_pair_index(outer, inner, a, b)
        } else {
            t.pair_index(stabiliser, outer, inner, a, b)
        };
        self.offsets.start(usize::from(middle.orbit)) + u64::from(pair)
    }

    /// The canonical position with this index: (stones of the side to move, of the other side).
    ///
    /// # Panics
    /// If `index >= size()`.
    pub fn position(&self, index: u64) -> (Points, Points) {
        self.position_after(index, &mut Cursor::default())
    }
}

/// Where [`ClassIndex::position_after`] stopped: decoding consecutive indices of a class in
/// order costs a few steps each instead of a search of the tables.
#[derive(Clone, Copy, Default)]
pub(crate) struct Cursor {
    /// The index decoded last, plus one; 0 before the first.
    next: u64,
    /// Where the middle ring's orbit ends.
    segment_end: u64,
    middle: u16,
    /// The pair within the orbit, while the middle ring has no symmetry.
    run: Option<TrivialRun>,
}

impl ClassIndex {
    /// [`ClassIndex::position`], faster when `index` comes a little after the index `cursor`
    /// decoded last (a cursor belongs to one class).
    ///
    /// # Panics
    /// If `index >= size()`.
    #[inline]
    pub(crate) fn position_after(&self, index: u64, cursor: &mut Cursor) -> (Points, Points) {
        if index >= cursor.next
            && index < cursor.segment_end
            && let Some(run) = cursor.run.as_mut()
            && run.advance((index + 1 - cursor.next) as u32)
        {
            cursor.next = index + 1;
            let (outer, inner) = run.pair(self.tables);
            return from_ring_patterns([outer, cursor.middle, inner]);
        }
        assert!(index < self.size(), "index {index} out of range for class {}-{}", self.mover, self.other);
        let t = self.tables;
        let km = self.offsets.segment(index);
        let orbit = t.orbits[t.full].orbit_info[km];
        let (p, q) = orbit.counts();
        let (a, b) = (self.mover as usize - p, self.other as usize - q);
        let rest = (index - self.offsets.start(km)) as u32;
        *cursor = Cursor { next: index + 1, segment_end: self.offsets.start(km + 1), middle: orbit.least, run: None };
        let (outer, inner) = if orbit.stabiliser as usize == t.trivial {
            let run = t.trivial_run(a, b, rest);
            cursor.run = Some(run);
            run.pair(t)
        } else {
            t.pair_at(orbit.stabiliser as usize, a, b, rest)
        };
        from_ring_patterns([outer, orbit.least, inner])
    }
}

/// Diagnostics of the ring-entry tables: orbit counts per subgroup of D4.
#[cfg(test)]
fn subgroup_orbit_counts() -> Vec<(u8, usize)> {
    tables(0, 0).orbits.iter().map(|o| (o.mask, o.orbit_count())).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::morris::symmetry::transform;

    #[test]
    fn ring_class_ids_are_dense() {
        let mut seen = [false; RING_CLASSES];
        for p in 0..=8 {
            for q in 0..=8 - p {
                let id = ring_class_id(p, q);
                assert!(!seen[id]);
                seen[id] = true;
            }
        }
        assert!(seen.iter().all(|&s| s));
        assert!(ring_class_id(0, 1) > ring_class_id(0, 0) && ring_class_id(1, 0) > ring_class_id(0, 8));
    }

    /// The index by the general stabiliser chain alone: pattern images and `pair_index` for
    /// every subgroup, the trivial one included.
    fn index_by_general_chain(class: &ClassIndex, mover: Points, other: Points) -> u64 {
        let t = class.tables;
        let d4 = &t.orbits[t.full];
        let middle = ring_pattern(mover, other, 1) as usize;
        let d = d4.to_least[middle] as usize;
        let km = d4.orbit[middle] as usize;
        let outer = PATTERN_IMAGE[d][ring_pattern(mover, other, 0) as usize] as usize;
        let inner = PATTERN_IMAGE[d][ring_pattern(mover, other, 2) as usize] as usize;
        let (p, q) = pattern_counts(middle);
        let (a, b) = (class.mover as usize - p, class.other as usize - q);
        let stabiliser = d4.orbit_info[km].stabiliser as usize;
        class.offsets.start(km) + u64::from(t.pair_index(stabiliser, outer, inner, a, b))
    }

    #[test]
    fn index_equals_the_general_chain_in_every_class() {
        let mut rng = crate::rng::SplitMix64::new(7);
        let mut trivial = 0;
        for a in 0..=INDEX_MAX_STONES {
            for b in 0..=INDEX_MAX_STONES {
                let class = ClassIndex::new(a, b);
                for _ in 0..20_000 {
                    let (m, o) = class.position(rng.below(class.size()));
                    let sym = rng.below(16) as usize;
                    let (m, o) = (transform(sym, m), transform(sym, o));
                    let middle = ring_pattern(m, o, 1) as usize;
                    trivial +=
                        usize::from(class.tables.middle[middle].stabiliser as usize == class.tables.trivial);
                    assert_eq!(class.index(m, o), index_by_general_chain(&class, m, o), "class {a}-{b}");
                }
            }
        }
        assert!(trivial > 1_000_000, "the trivial stabiliser's path was taken {trivial} times");
    }

    /// Decoding in order with a cursor gives what decoding each index alone gives: whole small
    /// classes, runs from random places in every class (across blocks and middle-ring orbits,
    /// with and without symmetry), and jumps that leave the cursor behind.
    #[test]
    fn decoding_in_order_equals_decoding_alone() {
        let mut rng = crate::rng::SplitMix64::new(31);
        let mut continued = 0u64;
        for a in 0..=INDEX_MAX_STONES {
            for b in 0..=INDEX_MAX_STONES.min(24 - a) {
                let class = ClassIndex::new(a, b);
                let mut cursor = Cursor::default();
                let mut check = |index: u64, cursor: &mut Cursor| {
                    let before = cursor.next;
                    assert_eq!(class.position_after(index, cursor), class.position(index), "class {a}-{b} index {index}");
                    continued += u64::from(before <= index && before > 0);
                };
                if class.size() <= 50_000 {
                    (0..class.size()).for_each(|i| check(i, &mut cursor));
                    continue;
                }
                for _ in 0..8 {
                    let start = rng.below(class.size());
                    for i in start..(start + 3_000).min(class.size()) {
                        check(i, &mut cursor);
                    }
                    check(rng.below(class.size()), &mut cursor);
                    // Increasing, with gaps of up to a few thousand.
                    let mut i = rng.below(class.size());
                    for _ in 0..1_000 {
                        check(i, &mut cursor);
                        let bits = rng.below(12);
                        i += 1 + rng.below(1 << bits);
                        if i >= class.size() {
                            break;
                        }
                    }
                }
                check(class.size() - 1, &mut cursor);
            }
        }
        assert!(continued > 1_000_000, "{continued} indices decoded after the one before");
    }

    /// The standard game's classes are numbered by the 9-stone tables; Morabaraba reaches the
    /// same classes through the 12-stone ones. Both must number them alike.
    #[test]
    fn twelve_stone_tables_number_the_standard_classes_alike() {
        let twelve: &'static Tables = Box::leak(Box::new(Tables::build(INDEX_MAX_STONES as usize)));
        let mut rng = crate::rng::SplitMix64::new(12);
        for a in 0..=Standard::RULES.stones {
            for b in 0..=Standard::RULES.stones {
                let nine = ClassIndex::new(a, b);
                let other = ClassIndex {
                    tables: twelve,
                    offsets: &twelve.class_offsets[twelve.class_slot(a, b)],
                    mover: a,
                    other: b,
                };
                assert_eq!(nine.size(), other.size(), "class {a}-{b}");
                for _ in 0..2_000 {
                    let index = rng.below(nine.size());
                    let (m, o) = nine.position(index);
                    assert_eq!(other.position(index), (m, o), "class {a}-{b} index {index}");
                    assert_eq!(other.index(m, o), index, "class {a}-{b}");
                }
            }
        }
    }

    #[test]
    fn d4_has_ten_subgroups_and_954_ring_orbits() {
        assert_eq!(subgroups_of_d4().len(), 10);
        let counts = subgroup_orbit_counts();
        assert!(counts.contains(&(0xff, 954)));
        assert!(counts.contains(&(0x01, PATTERNS)));
    }
}
