//! A small deterministic generator (SplitMix64) for sampling positions in tests and benchmarks,
//! where reproducibility from a seed matters more than statistical strength.

/// SplitMix64 (Steele, Lea and Flood), seeded by any `u64`.
#[derive(Clone, Debug)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    /// The generator seeded by `seed`.
    pub fn new(seed: u64) -> SplitMix64 {
        SplitMix64(seed)
    }

    /// The next number.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A uniform number in `0..bound` (bound > 0), by multiply-shift.
    #[inline]
    pub fn below(&mut self, bound: u64) -> u64 {
        ((u128::from(self.next_u64()) * u128::from(bound)) >> 64) as u64
    }

    /// A uniformly random set of `count` points out of the set `free`.
    pub fn subset(&mut self, mut free: u32, count: u32) -> u32 {
        let mut chosen = 0;
        for _ in 0..count {
            let nth = self.below(u64::from(free.count_ones())) as u32;
            let mut rest = free;
            for _ in 0..nth {
                rest &= rest - 1;
            }
            let bit = rest & rest.wrapping_neg();
            chosen |= bit;
            free &= !bit;
        }
        chosen
    }
}
