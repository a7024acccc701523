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
/// the kernel's background pass merges them; [`zeroed_table`] leaves every page untouched.
pub(crate) fn advise_huge_pages<T>(entries: &[T]) {
    advise_huge_pages_at(entries.as_ptr() as usize, std::mem::size_of_val(entries));
}

/// A table of `len` entries in fresh zeroed memory, not one page of it touched: the kernel
/// clears a page when a search first writes to it, so a short search pays only for the pages
/// it uses (clearing gigabytes up front took this machine 1 to 4 s, a search's whole share of
/// a probe's time), and [`advise_huge_pages`] may still follow. Writing every entry when the
/// table is made, as `vec!` of a struct may, would touch them all.
///
/// # Safety
/// All-zero bytes must be a valid `T` (integers, and structs, tuples and arrays of them).
pub(crate) unsafe fn zeroed_table<T>(len: usize) -> Vec<T> {
    // An alignment above 16 takes the allocator's other way, which clears every byte itself.
    const { assert!(std::mem::align_of::<T>() <= 16, "zeroed_table: at most 16-byte alignment") };
    let layout = std::alloc::Layout::array::<T>(len).expect("a table that fits the address space");
    if layout.size() == 0 {
        return Vec::new();
    }
    // SAFETY: the layout's size is not zero; the memory is zeroed, a valid `T` by the caller's
    // promise, and `Vec` gives it back with the same layout (its capacity of `len` items).
    unsafe {
        let memory = std::alloc::alloc_zeroed(layout);
        if memory.is_null() {
            std::alloc::handle_alloc_error(layout);
        }
        Vec::from_raw_parts(memory.cast::<T>(), len, len)
    }
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
