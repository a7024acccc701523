//! Software prefetch: a batch of probes announces its table reads a few reads before it makes
//! them, so that the processor waits for several cache misses at once instead of one after
//! another.

/// Asks the processor to load the cache line holding `item`. Only a hint: it never faults and
/// changes nothing the program can see.
#[inline(always)]
pub(crate) fn prefetch<T>(item: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: the address is of a live reference, and a prefetch only moves it into the cache.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>((item as *const T).cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = item;
}
