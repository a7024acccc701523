//! Binomial coefficients and the combinatorial number system: ranks of the sets of `k` cells
//! among `n`, the indices that Connect Four's columns and the cube's books are built on.

/// `BINOMIAL[n][k]` = C(n, k) for `n <= 64` (the largest, C(64, 32), fits a `u64`).
pub(crate) static BINOMIAL: [[u64; 65]; 65] = binomials();

const fn binomials() -> [[u64; 65]; 65] {
    let mut c = [[0u64; 65]; 65];
    let mut n = 0;
    while n <= 64 {
        c[n][0] = 1;
        let mut k = 1;
        while k <= n {
            c[n][k] = c[n - 1][k - 1] + if k < n { c[n - 1][k] } else { 0 };
            k += 1;
        }
        n += 1;
    }
    c
}

/// C(n, k), 0 for `k > n`.
#[inline]
pub(crate) fn binomial(n: u32, k: u32) -> u64 {
    if k > n { 0 } else { BINOMIAL[n as usize][k as usize] }
}

/// The rank of a set among the sets of as many elements (bits of a `u64`): the sum of
/// `C(element, i + 1)` over its elements in increasing order.
#[inline]
pub(crate) fn subset_rank(mut set: u64) -> u64 {
    let mut rank = 0;
    let mut i = 1;
    while set != 0 {
        rank += binomial(set.trailing_zeros(), i);
        set &= set - 1;
        i += 1;
    }
    rank
}

/// The `k`-set of rank `rank` among the subsets of `0..n`, the inverse of [`subset_rank`].
pub(crate) fn subset_unrank(mut rank: u64, k: u32, n: u32) -> u64 {
    let mut set = 0;
    let mut top = n;
    for i in (1..=k).rev() {
        // The largest element `e` below the last with C(e, i) <= rank.
        let mut e = top - 1;
        while binomial(e, i) > rank {
            e -= 1;
        }
        set |= 1 << e;
        rank -= binomial(e, i);
        top = e;
    }
    set
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_number_the_sets_in_order() {
        // The 3-sets of 0..8 (as numbers, in increasing order: colex order) have the ranks
        // 0, 1, 2, ... in that order.
        let sets: Vec<u64> = (0u64..256).filter(|s| s.count_ones() == 3).collect();
        let ranks: Vec<u64> = sets.iter().map(|&s| subset_rank(s)).collect();
        assert_eq!(ranks, (0..56).collect::<Vec<u64>>());
        for (rank, set) in (0..56).map(|r| (r, subset_unrank(r, 3, 8))) {
            assert_eq!(subset_rank(set), rank);
        }
        assert_eq!(binomial(64, 32), 1_832_624_140_942_590_534);
        assert_eq!(binomial(3, 4), 0);
    }
}
