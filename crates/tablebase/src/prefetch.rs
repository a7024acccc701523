//! Software prefetch: a batch of probes announces its table reads a few reads before it makes
//! them, so that the processor waits for several cache misses at once instead of one after
//! another; and large tables read at random ask for huge pages.

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

/// How many items ahead a batch announces the second step of a read (see [`in_turn`]); the
/// first step goes twice as far ahead.
const AHEAD: usize = 8;

/// Runs `step` on each of `items` in turn, each item's reads announced some items before, so
/// that the processor overlaps their cache misses instead of waiting for each. A read is
/// announced in two steps, since a compressed file's block is found from a record that has to
/// arrive first: `record` (what the read needs first) `2 * AHEAD` items ahead, then `block`
/// (found from that, or a raw file's byte) `AHEAD` items ahead. Both are only hints.
#[inline]
pub(crate) fn in_turn<T>(
    items: &mut [T],
    record: impl Fn(&T),
    block: impl Fn(&T),
    mut step: impl FnMut(&mut T),
) {
    items.iter().take(2 * AHEAD).for_each(&record);
    items.iter().take(AHEAD).for_each(&block);
    for k in 0..items.len() {
        if let Some(later) = items.get(k + 2 * AHEAD) {
            record(later);
        }
        if let Some(later) = items.get(k + AHEAD) {
            block(later);
        }
        step(&mut items[k]);
    }
}

/// Asks the kernel to back `entries` with huge pages where it can: every lookup lands on a
/// random slot, and with 4 KB pages each one would also miss the TLB. Only advice: nothing
/// changes where the kernel does not follow it. Pages already touched keep their size until
/// the kernel's background pass merges them; [`huge_page_vec`] gives the advice first.
pub(crate) fn advise_huge_pages<T>(entries: &[T]) {
    advise_huge_pages_at(entries.as_ptr() as usize, std::mem::size_of_val(entries));
}

/// `len` copies of `value` in memory advised for huge pages before its first touch, so that
/// the touch that fills it already takes them: for a table of structs, which `vec!` writes
/// entry by entry (its zeros of integers, or of tuples and arrays of them, stay untouched
/// until used, and [`advise_huge_pages`] on them is enough).
pub(crate) fn huge_page_vec<T: Clone>(len: usize, value: T) -> Vec<T> {
    let mut entries = Vec::with_capacity(len);
    advise_huge_pages_at(entries.as_ptr() as usize, len * std::mem::size_of::<T>());
    entries.resize(len, value);
    entries
}

fn advise_huge_pages_at(start: usize, bytes: usize) {
    const HUGE_PAGE: usize = 2 << 20;
    let end = start + bytes;
    let aligned = start.next_multiple_of(HUGE_PAGE);
    if aligned + HUGE_PAGE <= end {
        let len = (end - aligned) / HUGE_PAGE * HUGE_PAGE;
        // SAFETY: advice on whole pages inside our own allocation (its capacity), which stays
        // valid; madvise with MADV_HUGEPAGE changes no contents.
        unsafe { libc::madvise(aligned as *mut libc::c_void, len, libc::MADV_HUGEPAGE) };
    }
}
