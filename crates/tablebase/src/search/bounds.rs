//! The transposition table: bounds on scores, keyed exactly by position.

use std::ops::{BitAnd, BitOr, Shl, Shr, Sub};

/// An unsigned word a key is computed in: `u64` for boards whose positions fit 64 bits (Connect
/// Four up to 8x7), `u128` for the cube games (3^64 positions of Qubic need 102 bits).
pub trait KeyWord:
    Copy
    + Eq
    + Shl<u32, Output = Self>
    + Shr<u32, Output = Self>
    + BitAnd<Output = Self>
    + BitOr<Output = Self>
    + Sub<Output = Self>
{
    /// Its width in bits.
    const BITS: u32;
    /// An odd multiplier whose products spread a key's bits upwards.
    const ODD: Self;
    /// 1.
    const ONE: Self;
    /// The product modulo `2^BITS`: a bijection, since the multiplier is odd.
    fn wrapping_mul(self, rhs: Self) -> Self;
    /// The word holding `value`.
    fn from_u128(value: u128) -> Self;
    /// The low 128 bits (all of them).
    fn to_u128(self) -> u128;
}

macro_rules! key_word {
    ($word:ty, $odd:expr) => {
        impl KeyWord for $word {
            const BITS: u32 = <$word>::BITS;
            const ODD: $word = $odd;
            const ONE: $word = 1;
            #[inline(always)]
            fn wrapping_mul(self, rhs: $word) -> $word {
                <$word>::wrapping_mul(self, rhs)
            }
            #[inline(always)]
            fn from_u128(value: u128) -> $word {
                value as $word
            }
            #[inline(always)]
            fn to_u128(self) -> u128 {
                self as u128
            }
        }
    };
}

key_word!(u64, 0x9e37_79b9_7f4a_7c15);
key_word!(u128, 0x9e37_79b9_7f4a_7c15_f39c_c060_5ced_c835);

/// A transposition table: one entry per slot, holding a bound on the score and the part of the
/// position's key that its slot does not already tell. A new entry replaces the old one.
///
/// The slot and the stored part come from `key * ODD mod 2^key_bits`, a bijection on keys:
/// its high bits choose the slot (multiplicative hashing) and its low bits are stored, so the
/// pair is the whole key and two positions never mistake each other's bounds. On Connect Four
/// 7x6 (49-bit keys, 2^24 slots) the stored part is 25 bits and the bound 7, so an entry is 32
/// bits and the table holds twice the entries of a 64-bit table in the same memory; the cube
/// games' 128-bit keys need 128-bit entries.
pub struct Bounds<K: KeyWord> {
    entries: Entries,
    key_mask: K,
    /// `key_bits - slot_bits`: how far the hashed key is shifted to give the slot, and the
    /// number of its low bits stored.
    stored_bits: u32,
    bound_bits: u32,
    /// Added to a score to store it: `max_score + 1`, so that a stored bound is never 0.
    score_offset: i32,
}

enum Entries {
    Narrow(Vec<u32>),
    Wide(Vec<u64>),
    Double(Vec<u128>),
}

impl<K: KeyWord> Bounds<K> {
    /// A table of at most `bytes` bytes (at least 256 slots) for keys of `key_bits` bits and
    /// scores of magnitude at most `max_score`.
    pub fn new(bytes: usize, key_bits: u32, max_score: i32) -> Bounds<K> {
        assert!(key_bits <= K::BITS, "{key_bits}-bit keys in {}-bit words", K::BITS);
        // A bound is `(score + max_score + 1) << 1 | is_lower`: never 0, which marks an empty slot.
        let bound_bits = u32::BITS - (4 * max_score as u32 + 3).leading_zeros();
        let slot_bits_for = |entry_bytes: usize| {
            let slots = (bytes / entry_bytes).max(256);
            (usize::BITS - 1 - slots.leading_zeros()).min(key_bits)
        };
        let fits = |entry_bits: u32, slot_bits: u32| key_bits - slot_bits + bound_bits <= entry_bits;
        let (entries, slot_bits) = match (slot_bits_for(4), slot_bits_for(8), slot_bits_for(16)) {
            (narrow, _, _) if fits(32, narrow) => (Entries::Narrow(vec![0; 1 << narrow]), narrow),
            (_, wide, _) if fits(64, wide) => (Entries::Wide(vec![0; 1 << wide]), wide),
            (_, _, double) => (Entries::Double(vec![0; 1 << double]), double),
        };
        match &entries {
            Entries::Narrow(entries) => crate::prefetch::advise_huge_pages(entries),
            Entries::Wide(entries) => crate::prefetch::advise_huge_pages(entries),
            Entries::Double(entries) => crate::prefetch::advise_huge_pages(entries),
        }
        let key_mask =
            if key_bits == K::BITS { K::from_u128(u128::MAX) } else { (K::ONE << key_bits) - K::ONE };
        Bounds {
            entries,
            key_mask,
            stored_bits: key_bits - slot_bits,
            bound_bits,
            score_offset: max_score + 1,
        }
    }

    /// The slot of `key` and the part of it stored there.
    #[inline(always)]
    fn slot(&self, key: K) -> (usize, K) {
        let hashed = key.wrapping_mul(K::ODD) & self.key_mask;
        let stored = hashed & ((K::ONE << self.stored_bits) - K::ONE);
        ((hashed >> self.stored_bits).to_u128() as usize, stored)
    }

    /// Starts loading the slot of `key` into the cache.
    #[inline(always)]
    pub fn prefetch(&self, key: K) {
        let slot = self.slot(key).0;
        match &self.entries {
            Entries::Narrow(entries) => crate::prefetch::prefetch(&entries[slot]),
            Entries::Wide(entries) => crate::prefetch::prefetch(&entries[slot]),
            Entries::Double(entries) => crate::prefetch::prefetch(&entries[slot]),
        }
    }

    /// The bound stored for `key`: `(score, is_lower)`.
    #[inline(always)]
    pub fn get(&self, key: K) -> Option<(i32, bool)> {
        let (slot, stored) = self.slot(key);
        let entry = match &self.entries {
            Entries::Narrow(entries) => K::from_u128(entries[slot].into()),
            Entries::Wide(entries) => K::from_u128(entries[slot].into()),
            Entries::Double(entries) => K::from_u128(entries[slot]),
        };
        let bound = (entry & ((K::ONE << self.bound_bits) - K::ONE)).to_u128() as u32;
        (bound != 0 && entry >> self.bound_bits == stored)
            .then(|| ((bound >> 1) as i32 - self.score_offset, bound & 1 != 0))
    }

    /// Stores a bound for `key`, in place of whatever its slot held.
    #[inline(always)]
    pub fn put(&mut self, key: K, score: i32, is_lower: bool) {
        let (slot, stored) = self.slot(key);
        let bound = ((score + self.score_offset) as u128) << 1 | u128::from(is_lower);
        let entry = (stored << self.bound_bits) | K::from_u128(bound);
        match &mut self.entries {
            Entries::Narrow(entries) => entries[slot] = entry.to_u128() as u32,
            Entries::Wide(entries) => entries[slot] = entry.to_u128() as u64,
            Entries::Double(entries) => entries[slot] = entry.to_u128(),
        }
    }

    /// Empties every slot.
    pub fn clear(&mut self) {
        match &mut self.entries {
            Entries::Narrow(entries) => entries.fill(0),
            Entries::Wide(entries) => entries.fill(0),
            Entries::Double(entries) => entries.fill(0),
        }
    }

    #[cfg(test)]
    fn layout(&self) -> (u32, usize) {
        match &self.entries {
            Entries::Narrow(e) => (32, e.len()),
            Entries::Wide(e) => (64, e.len()),
            Entries::Double(e) => (128, e.len()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// Every entry width: a bound read back is the last one stored for that very key, never
    /// another key's, however many keys share a slot.
    fn check<K: KeyWord + std::hash::Hash + std::fmt::Debug>(key_bits: u32, max_score: i32, width: u32) {
        let mut table = Bounds::<K>::new(1 << 12, key_bits, max_score);
        let (entry_bits, slots) = table.layout();
        assert_eq!(entry_bits, width, "{key_bits}-bit keys");
        let mut rng = crate::rng::SplitMix64::new(key_bits.into());
        let mut last = HashMap::new();
        let mut found = 0;
        for round in 0..20 * slots {
            // Few distinct keys at first (found again), then many (slots overwritten).
            let random = (u128::from(rng.next_u64()) << 64) | u128::from(rng.next_u64());
            let key = K::from_u128(if round < slots { random % 64 } else { random }) & table.key_mask;
            if let Some(bound) = table.get(key) {
                assert_eq!(Some(&bound), last.get(&key), "key {key:?}");
                found += 1;
            }
            let score = (rng.next_u64() % (2 * max_score as u64 + 1)) as i32 - max_score;
            let is_lower = rng.next_u64() & 1 == 1;
            table.put(key, score, is_lower);
            last.insert(key, (score, is_lower));
            assert_eq!(table.get(key), Some((score, is_lower)));
        }
        assert!(found > slots / 2, "{found} bounds found again");
        table.clear();
        assert!(last.keys().all(|&key| table.get(key).is_none()));
    }

    #[test]
    fn the_table_gives_back_only_a_keys_own_last_bound() {
        check::<u64>(25, 11, 32); // Connect Four 5x4
        check::<u64>(64, 29, 64); // 8x7
        check::<u128>(64, 33, 64); // 64-bit keys computed in 128 bits
        check::<u128>(128, 33, 128); // Qubic's cells
    }
}
