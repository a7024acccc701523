//! The block code measured for compressed tables (docs/BENCHMARKS.md, "Compressed tables"): pair
//! encoding, then one canonical Huffman code over the symbols, written in blocks of a fixed
//! number of entries (a power of two) whose bytes vary. An entry's block is its index shifted,
//! found through one 64-byte record of [`BlockIndex`] per [`GROUP_BLOCKS`] blocks, and the entry
//! is decoded from the block's start: two cache lines and a fraction of a microsecond, so a
//! single probe needs no cache of decoded blocks.
//!
//! Pair encoding starts from the 256 byte values as symbols and, round after round, replaces the
//! most frequent adjacent pairs of symbols by new ones (a rule each), until [`MAX_SYMBOLS`] or
//! until no pair is frequent enough to repay its rule. A symbol stands for a run of entries: a
//! byte for itself, a rule for its left symbol's run then its right one's. A symbol whose run
//! would cross the end of a block is written as the symbols of its rule instead, as often as it
//! takes, so every block holds exactly its entries.
//!
//! Where blocks and records lie in a file and what guards their bytes is the file format's
//! business (`super::layout`, `super::packed`).

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::ops::ControlFlow;

/// Symbols at most: the 256 bytes and up to 3,840 rules.
pub const MAX_SYMBOLS: usize = 4096;
/// The longest code, in bits: a decoder's 64-bit window always holds a whole symbol.
pub const MAX_CODE_LEN: u8 = 24;
/// Rules made per round at most; no symbol takes part in two rules of a round, so a round's
/// rules are applied in one pass.
const RULES_PER_ROUND: usize = 128;
/// A pair seen fewer times than this in the sample the rules are learnt from gets no rule: its
/// rule (and its code length) would cost more than it saves.
const MIN_PAIR_COUNT: u32 = 64;
/// Entries a block holds at most: the bytes of a record's blocks (at most 3 a entry, at the
/// longest code) must fit its two-byte offsets.
pub const MAX_BLOCK_ENTRIES: u64 = 512;
/// Entries a block holds at least.
pub const MIN_BLOCK_ENTRIES: u64 = 16;
/// Blocks a [`BlockIndex`] record finds: a u64 and this many u16 make one 64-byte cache line.
pub const GROUP_BLOCKS: usize = 28;
/// Bytes of a record.
pub const RECORD_BYTES: usize = 64;
/// Entries the encoder turns into symbols and blocks at a time: rules are applied within a
/// chunk, whose length is a multiple of any block's, so encoding needs memory for a chunk a
/// thread, and chunks are encoded in parallel (a pair across two chunks stays two symbols).
const CHUNK: usize = 1 << 20;
/// Chunks encoded together before they are handed on ([`PairCode::encode_batches`]): enough to
/// keep many threads busy, few enough that a batch's blocks (under 64 MiB of entries) take
/// little memory. One in unit tests, so that their files of a few chunks come in several
/// batches (the bytes do not depend on it).
#[cfg(not(test))]
const CHUNKS_A_BATCH: usize = 64;
#[cfg(test)]
const CHUNKS_A_BATCH: usize = 1;
/// Entries of a batch.
pub const BATCH_ENTRIES: usize = CHUNK * CHUNKS_A_BATCH;
/// Entries taken through every round of the rules at a time when encoding: their symbols and
/// a round's table stay in the first-level cache.
const STREAM_BLOCK: usize = 4096;

/// A learnt code: the rules of the pair encoding and a canonical Huffman code over the symbols.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PairCode {
    /// Symbol `256 + r` stands for `rules[r].0` then `rules[r].1`, both earlier symbols.
    rules: Vec<(u16, u16)>,
    /// How many rules each round made, in order: a round's rules are applied together.
    rounds: Vec<u16>,
    /// The code length of each symbol, 0 for a symbol that is never written.
    lengths: Vec<u8>,
    /// Entries each symbol stands for.
    runs: Vec<u64>,
    /// Set bits in the entries each symbol stands for: a set's rank adds them up over a block
    /// instead of expanding its symbols.
    ones: Vec<u64>,
    /// The entries of each symbol of at most [`SHORT_RUN`] entries, the first in the lowest
    /// byte (0 for longer runs): a whole block's decoding writes such a run with one store.
    short: Vec<u64>,
    /// Canonical decoding, per length `l`: the first code of that length, how many codes have
    /// it, and where its symbols start in `sorted`.
    first_code: [u32; MAX_CODE_LEN as usize + 1],
    count: [u32; MAX_CODE_LEN as usize + 1],
    first_index: [u32; MAX_CODE_LEN as usize + 1],
    /// The written symbols ordered by (length, symbol): the canonical order.
    sorted: Vec<u16>,
    /// The code of each symbol (its low `lengths[s]` bits).
    codes: Vec<u32>,
    /// For each value of the next `FAST_BITS` bits: the symbol whose code they start with, its
    /// run and its length (`run << 20 | symbol << 8 | length`), or 0 where the code is longer:
    /// a lookup's walk over a block reads this table only.
    fast: Vec<u32>,
}

/// The longest run written whole from [`PairCode::short`]: eight entries, one u64.
const SHORT_RUN: u64 = 8;

/// Bits the decoder's table looks up at once: most symbols' codes are this short or shorter.
const FAST_BITS: u32 = 10;

/// Why a stored code cannot be used: it is damaged, or not a code this module writes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadCode(pub &'static str);

/// Encoded data: blocks of a fixed number of entries (the last one fewer), each a whole number
/// of bytes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EncodedBlocks {
    /// The blocks one after another, each zero-padded to a whole byte.
    pub bytes: Vec<u8>,
    /// Where each block ends in `bytes` (the next one starts there).
    pub ends: Vec<u64>,
}

impl EncodedBlocks {
    /// The bytes of block `block`.
    pub fn block(&self, block: usize) -> &[u8] {
        &self.bytes[block_span(&self.ends, block)]
    }
}

/// Where block `block` lies among blocks ending at `ends` (as [`EncodedBlocks::ends`]): from
/// the end of the one before.
pub fn block_span(ends: &[u64], block: usize) -> std::ops::Range<usize> {
    let start = if block == 0 { 0 } else { ends[block - 1] as usize };
    start..ends[block] as usize
}

impl PairCode {
    /// Learns the rules and the code from `sample` (a part of the data, or all of it), with no
    /// rule standing for more than `max_run` entries (a block's, at most [`MAX_BLOCK_ENTRIES`]):
    /// the symbol counts are the sample's, plus one for every symbol, so that data the sample
    /// did not show (a rare distance) still has a code.
    pub fn learn(sample: &[u8], max_run: u64) -> PairCode {
        PairCode::learn_estimating(sample, max_run).0
    }

    /// [`PairCode::learn`], and the bits an entry the sample takes in the code learnt (blocks'
    /// padding aside): what the blocks' length is chosen from.
    pub fn learn_estimating(sample: &[u8], max_run: u64) -> (PairCode, f64) {
        let (rules, rounds, symbols) = learn_rules(sample, max_run.min(MAX_BLOCK_ENTRIES));
        let mut code = PairCode::with_rules(rules, rounds);
        let mut counts = vec![1u64; code.symbols()];
        for &s in &symbols {
            counts[s as usize] += 1;
        }
        code.set_lengths(&limited_lengths(&counts, MAX_CODE_LEN));
        let bits: u64 = symbols.iter().map(|&s| u64::from(code.lengths[s as usize])).sum();
        (code, bits as f64 / sample.len().max(1) as f64)
    }

    fn with_rules(rules: Vec<(u16, u16)>, rounds: Vec<u16>) -> PairCode {
        let mut runs = vec![1u64; 256 + rules.len()];
        let mut ones: Vec<u64> = (0..256u32).map(|byte| u64::from(byte.count_ones())).collect();
        ones.resize(runs.len(), 0);
        let mut short: Vec<u64> = (0..256u64).collect();
        short.resize(runs.len(), 0);
        for (r, &(a, b)) in rules.iter().enumerate() {
            let (a, b) = (a as usize, b as usize);
            // Saturating: rules read from a damaged file may nest deeper than any data could.
            runs[256 + r] = runs[a].saturating_add(runs[b]);
            ones[256 + r] = ones[a].saturating_add(ones[b]);
            if runs[256 + r] <= SHORT_RUN {
                short[256 + r] = short[a] | short[b] << (8 * runs[a]);
            }
        }
        PairCode {
            ones,
            short,
            lengths: vec![0; runs.len()],
            codes: vec![0; runs.len()],
            rules,
            rounds,
            runs,
            first_code: [0; MAX_CODE_LEN as usize + 1],
            count: [0; MAX_CODE_LEN as usize + 1],
            first_index: [0; MAX_CODE_LEN as usize + 1],
            sorted: Vec::new(),
            fast: vec![0; 1 << FAST_BITS],
        }
    }

    /// The number of symbols: 256 and one per rule.
    pub fn symbols(&self) -> usize {
        256 + self.rules.len()
    }

    /// Sets the code lengths and derives the canonical code from them.
    fn set_lengths(&mut self, lengths: &[u8]) {
        self.lengths = lengths.to_vec();
        self.sorted = (0..lengths.len() as u16).filter(|&s| lengths[s as usize] > 0).collect();
        self.sorted.sort_by_key(|&s| (lengths[s as usize], s));
        self.count = [0; MAX_CODE_LEN as usize + 1];
        for &s in &self.sorted {
            self.count[lengths[s as usize] as usize] += 1;
        }
        let mut code = 0u32;
        let mut index = 0u32;
        for l in 1..=MAX_CODE_LEN as usize {
            code <<= 1;
            self.first_code[l] = code;
            self.first_index[l] = index;
            code += self.count[l];
            index += self.count[l];
        }
        self.fast = vec![0; 1 << FAST_BITS];
        for (k, &s) in self.sorted.iter().enumerate() {
            let l = lengths[s as usize] as usize;
            let code = self.first_code[l] + (k as u32 - self.first_index[l]);
            self.codes[s as usize] = code;
            let run = self.runs[s as usize];
            // Runs are at most a block's entries, 512 (checked where a code is read or learnt).
            debug_assert!(run < 1 << 12);
            if l as u32 <= FAST_BITS {
                let spare = FAST_BITS - l as u32;
                for low in 0..1u32 << spare {
                    self.fast[((code << spare) | low) as usize] =
                        (run as u32) << 20 | u32::from(s) << 8 | l as u32;
                }
            }
        }
    }

    /// For each round, the rule each symbol starts in it (`(second, rule's symbol)`), or
    /// [`NO_RULE`]: [`MAX_SYMBOLS`] entries a round.
    fn round_tables(&self) -> Vec<(u16, u16)> {
        let mut tables = vec![NO_RULE; self.rounds.len() * MAX_SYMBOLS];
        let mut rule = 0;
        for (table, &made) in tables.chunks_exact_mut(MAX_SYMBOLS).zip(&self.rounds) {
            set_round(table, &self.rules[rule..rule + made as usize], 256 + rule);
            rule += made as usize;
        }
        tables
    }

    /// The symbols of `chunk`: its bytes with the rules applied, round by round, as if each
    /// round went over the whole chunk. The rounds are applied to [`STREAM_BLOCK`] entries at a
    /// time, in place, each round holding back the last symbol it has not decided on, so that
    /// the symbols stay in the first-level cache between rounds (with 54 rounds over a table of
    /// 7-7, 12% faster than a pass over the chunk for each round).
    fn symbols_of(&self, chunk: &[u8], round_tables: &[(u16, u16)]) -> Vec<u16> {
        let rounds = self.rounds.len();
        let mut held: Vec<Option<u16>> = vec![None; rounds];
        let mut symbols = Vec::with_capacity(chunk.len());
        // A block's symbols go through the rounds in place, from `start`: a round that held back
        // a symbol puts it before them, so there is room before the block for one a round.
        let mut buffer = vec![0u16; rounds + STREAM_BLOCK];
        let blocks = chunk.len().div_ceil(STREAM_BLOCK);
        for (k, block) in chunk.chunks(STREAM_BLOCK).enumerate() {
            let at_end = k + 1 == blocks;
            let mut start = rounds;
            for (slot, &b) in buffer[start..].iter_mut().zip(block) {
                *slot = u16::from(b);
            }
            let mut len = block.len();
            for (table, held) in round_tables.chunks_exact(MAX_SYMBOLS).zip(held.iter_mut()) {
                if let Some(symbol) = held.take() {
                    start -= 1;
                    buffer[start] = symbol;
                    len += 1;
                }
                let second_of: &RoundTable = table.try_into().expect("a round's table");
                (len, *held) = apply_round_in_place(&mut buffer[start..start + len], second_of, !at_end);
            }
            symbols.extend_from_slice(&buffer[start..start + len]);
        }
        symbols
    }

    /// Encodes `data` in blocks of `block_entries` entries (a power of two from
    /// [`MIN_BLOCK_ENTRIES`] to [`MAX_BLOCK_ENTRIES`]; the last block holds the rest). Chunks of
    /// `CHUNK` entries are encoded apart (in parallel), so the bytes do not depend on the number
    /// of threads.
    pub fn encode(&self, data: &[u8], block_entries: u64) -> EncodedBlocks {
        let mut out = EncodedBlocks::default();
        let appended = self.encode_batches(data, block_entries, |batch| {
            for (_, part) in batch {
                let offset = out.bytes.len() as u64;
                out.bytes.extend_from_slice(&part.bytes);
                out.ends.extend(part.ends.iter().map(|end| offset + end));
            }
            Ok::<(), std::convert::Infallible>(())
        });
        appended.unwrap_or_else(|never| match never {});
        out
    }

    /// [`PairCode::encode`] a batch of chunks at a time: hands each batch to `each`, in order,
    /// as its chunks of entries beside their encoded blocks (ends counted from the chunk's first
    /// block; the blocks of all the chunks one after another are `encode`'s). A writer that
    /// puts each batch in its file holds one batch's bytes rather than the whole file's, which
    /// for a set of 10 GB compressed beside a forward pass is gigabytes. Stops at `each`'s
    /// first error.
    pub fn encode_batches<E>(
        &self,
        data: &[u8],
        block_entries: u64,
        mut each: impl FnMut(Vec<(&[u8], EncodedBlocks)>) -> Result<(), E>,
    ) -> Result<(), E> {
        use rayon::prelude::*;
        assert!(
            block_entries.is_power_of_two()
                && (MIN_BLOCK_ENTRIES..=MAX_BLOCK_ENTRIES).contains(&block_entries),
            "blocks of {block_entries} entries"
        );
        let round_tables = self.round_tables();
        for batch in data.chunks(BATCH_ENTRIES) {
            let parts = batch
                .par_chunks(CHUNK)
                .map(|chunk| {
                    (chunk, self.encode_symbols(&self.symbols_of(chunk, &round_tables), block_entries))
                })
                .collect();
            each(parts)?;
        }
        Ok(())
    }

    /// Writes `symbols` in blocks of `block_entries` entries: a symbol whose run would cross
    /// the end of a block is replaced by its rule's two symbols, again until each fits.
    fn encode_symbols(&self, symbols: &[u16], block_entries: u64) -> EncodedBlocks {
        let mut out = EncodedBlocks::default();
        let (mut buffer, mut used, mut entries) = (0u64, 0u32, 0u64);
        let mut pending: Vec<u16> = Vec::new();
        for &symbol in symbols {
            pending.push(symbol);
            while let Some(s) = pending.pop() {
                let run = self.runs[s as usize];
                if entries + run > block_entries {
                    // A run of more than one entry: a rule.
                    let (left, right) = self.rules[s as usize - 256];
                    pending.push(right);
                    pending.push(left);
                    continue;
                }
                let len = u32::from(self.lengths[s as usize]);
                debug_assert!(len > 0, "every symbol has a code");
                buffer = (buffer << len) | u64::from(self.codes[s as usize]);
                used += len;
                while used >= 8 {
                    used -= 8;
                    out.bytes.push((buffer >> used) as u8);
                }
                entries += run;
                if entries == block_entries {
                    flush_bits(&mut out.bytes, &mut buffer, &mut used);
                    out.ends.push(out.bytes.len() as u64);
                    entries = 0;
                }
            }
        }
        if entries > 0 {
            flush_bits(&mut out.bytes, &mut buffer, &mut used);
            out.ends.push(out.bytes.len() as u64);
        }
        out
    }

    /// The entry `offset` entries into a block, for an `offset` below the block's number of
    /// entries (which the file records: the zero bits that pad a block decode as symbols too).
    /// `None` where the decoding runs past the block's bits or meets bits that are no code
    /// (damaged bytes). `block` is the block's bytes.
    #[inline]
    pub fn entry_in_block(&self, block: &[u8], offset: u64) -> Option<u8> {
        let (symbol, within) = self.walk_to(block, offset, |_| ())?;
        Some(self.expand(symbol, within))
    }

    /// For a set's block (its words as bytes): the set bits of the entries before the entry
    /// `offset` entries into the block, and that entry, with the same `None` as
    /// [`PairCode::entry_in_block`]. Whole symbols before the entry count their bits without
    /// being expanded.
    #[inline]
    pub fn ones_before_in_block(&self, block: &[u8], offset: u64) -> Option<(u64, u8)> {
        let mut ones = 0u64;
        let (symbol, within) = self.walk_to(block, offset, |passed| ones += self.ones[passed as usize])?;
        let (before, entry) = self.expand_counting(symbol, within);
        Some((ones + before, entry))
    }

    /// Walks a block's symbols from its start to the one holding the entry `offset` entries in,
    /// telling `passed` each symbol passed over whole: that symbol, and the entry's offset in
    /// its run. `None` where the decoding runs past the block's bits or meets bits that are no
    /// code.
    #[inline]
    fn walk_to(&self, block: &[u8], mut offset: u64, mut passed: impl FnMut(u16)) -> Option<(u16, u64)> {
        self.walk(block, |symbol, run| {
            if offset < run {
                return ControlFlow::Break((symbol, offset));
            }
            passed(symbol);
            offset -= run;
            ControlFlow::Continue(())
        })
    }

    /// Tells `visit` each symbol of a block and its run, from the block's start, until `visit`
    /// breaks with its answer. `None` where the decoding runs past the block's bits first or
    /// meets bits that are no code.
    #[inline]
    fn walk<R>(&self, block: &[u8], mut visit: impl FnMut(u16, u64) -> ControlFlow<R>) -> Option<R> {
        let bits = 8 * block.len() as u64;
        let mut at = 0u64;
        loop {
            if at >= bits {
                return None;
            }
            // A window holds at least 57 bits from `at`: the symbols in it are decoded by
            // shifting it, with no load between them, while a longest code still fits.
            let mut window = window_at(block, at)?;
            let mut left = 64 - (at % 8) as u32;
            while left >= u32::from(MAX_CODE_LEN) {
                let (symbol, len, run) = self.decode_window(window)?;
                if at + u64::from(len) > bits {
                    return None;
                }
                if let ControlFlow::Break(answer) = visit(symbol, run) {
                    return Some(answer);
                }
                at += u64::from(len);
                window <<= len;
                left -= u32::from(len);
            }
        }
    }

    /// The symbol whose code starts at the first bit of `window`, its length and its run.
    #[inline]
    fn decode_window(&self, window: u64) -> Option<(u16, u8, u64)> {
        let fast = self.fast[(window >> (64 - FAST_BITS)) as usize];
        if fast != 0 {
            return Some(((fast >> 8 & 0xfff) as u16, fast as u8, u64::from(fast >> 20)));
        }
        for l in FAST_BITS as usize + 1..=MAX_CODE_LEN as usize {
            let code = (window >> (64 - l)) as u32;
            let k = code.wrapping_sub(self.first_code[l]);
            if k < self.count[l] {
                let symbol = self.sorted[(self.first_index[l] + k) as usize];
                return Some((symbol, l as u8, self.runs[symbol as usize]));
            }
        }
        None
    }

    /// Decodes the whole block into `out`, which has the block's number of entries: `None`
    /// where the block's bits run out first, a symbol runs past `out`'s end, or bits are no
    /// code (damaged bytes).
    pub fn decode_block(&self, block: &[u8], out: &mut [u8]) -> Option<()> {
        if out.is_empty() {
            return Some(());
        }
        let mut filled = 0usize;
        self.walk(block, |symbol, run| {
            let run = run as usize;
            if run > out.len() - filled {
                return ControlFlow::Break(None);
            }
            self.write_run(symbol, run, &mut out[filled..]);
            filled += run;
            if filled == out.len() { ControlFlow::Break(Some(())) } else { ControlFlow::Continue(()) }
        })?
    }

    /// Writes the `run` entries of `symbol` at the start of `out`, which may be longer: the
    /// entries past the run may be overwritten (the runs that follow write them again). Left
    /// first, with the right halves on a small stack; a short run is one store; rules nested
    /// deeper than the stack (only a contrived code has them) are expanded entry by entry.
    #[inline]
    fn write_run(&self, symbol: u16, run: usize, out: &mut [u8]) {
        if run as u64 <= SHORT_RUN {
            self.write_short(symbol, run, out);
            return;
        }
        let mut pending = [0u16; 64];
        let (mut depth, mut at, mut symbol) = (0usize, 0usize, symbol);
        loop {
            let run = self.runs[symbol as usize] as usize;
            if run as u64 <= SHORT_RUN {
                self.write_short(symbol, run, &mut out[at..]);
                at += run;
            } else if depth == pending.len() {
                for (k, entry) in out[at..at + run].iter_mut().enumerate() {
                    *entry = self.expand(symbol, k as u64);
                }
                at += run;
            } else {
                let (left, right) = self.rules[symbol as usize - 256];
                pending[depth] = right;
                depth += 1;
                symbol = left;
                continue;
            }
            if depth == 0 {
                return;
            }
            depth -= 1;
            symbol = pending[depth];
        }
    }

    /// Writes the run of `symbol`, at most [`SHORT_RUN`] entries, at the start of `out`: one
    /// store of eight bytes where `out` has room for them.
    #[inline]
    fn write_short(&self, symbol: u16, run: usize, out: &mut [u8]) {
        let entries = self.short[symbol as usize].to_le_bytes();
        match out.get_mut(..entries.len()) {
            Some(eight) => eight.copy_from_slice(&entries),
            None => out[..run].copy_from_slice(&entries[..run]),
        }
    }

    /// The entry `offset` entries into the run of `symbol`, and the set bits of the entries
    /// before it in the run: the left halves passed over on the way down count whole.
    #[inline]
    fn expand_counting(&self, symbol: u16, offset: u64) -> (u64, u8) {
        let mut ones = 0u64;
        let entry = self.descend(symbol, offset, |left| ones += self.ones[left as usize]);
        (ones, entry)
    }

    /// The entry `offset` entries into the run of `symbol`.
    #[inline]
    fn expand(&self, symbol: u16, offset: u64) -> u8 {
        self.descend(symbol, offset, |_| ())
    }

    /// The entry `offset` entries into the run of `symbol`, down its rules, telling `passed`
    /// each left half passed over whole.
    #[inline]
    fn descend(&self, mut symbol: u16, mut offset: u64, mut passed: impl FnMut(u16)) -> u8 {
        while symbol >= 256 {
            let (a, b) = self.rules[symbol as usize - 256];
            let left = self.runs[a as usize];
            if offset < left {
                symbol = a;
            } else {
                offset -= left;
                passed(a);
                symbol = b;
            }
        }
        symbol as u8
    }

    /// The code as bytes: rounds, rules, then one length per symbol, little-endian.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend_from_slice(&(self.rounds.len() as u16).to_le_bytes());
        for &r in &self.rounds {
            out.extend_from_slice(&r.to_le_bytes());
        }
        for &(a, b) in &self.rules {
            out.extend_from_slice(&a.to_le_bytes());
            out.extend_from_slice(&b.to_le_bytes());
        }
        out.extend_from_slice(&self.lengths);
        out
    }

    /// Reads a code written by [`PairCode::to_bytes`], refusing one that is not a complete
    /// prefix code over well-formed rules (so that decoding never loops or indexes out of
    /// bounds).
    /// No rule may stand for more than `max_run` entries (a block's).
    pub fn from_bytes(bytes: &[u8], max_run: u64) -> Result<PairCode, BadCode> {
        let u16_at = |at: usize| -> Result<u16, BadCode> {
            let b = bytes.get(at..at + 2).ok_or(BadCode("cut short"))?;
            Ok(u16::from_le_bytes([b[0], b[1]]))
        };
        let round_count = u16_at(0)? as usize;
        let rounds: Vec<u16> = (0..round_count).map(|k| u16_at(2 + 2 * k)).collect::<Result<_, _>>()?;
        let rule_count: usize = rounds.iter().map(|&r| r as usize).sum();
        if 256 + rule_count > MAX_SYMBOLS {
            return Err(BadCode("too many rules"));
        }
        let start = 2 + 2 * round_count;
        let mut rules = Vec::with_capacity(rule_count);
        for r in 0..rule_count {
            let (a, b) = (u16_at(start + 4 * r)?, u16_at(start + 4 * r + 2)?);
            if a as usize >= 256 + r || b as usize >= 256 + r {
                return Err(BadCode("a rule refers to a later symbol"));
            }
            rules.push((a, b));
        }
        let lengths = &bytes[(start + 4 * rule_count).min(bytes.len())..];
        if lengths.len() != 256 + rule_count {
            return Err(BadCode("wrong number of code lengths"));
        }
        if lengths.iter().any(|&l| l > MAX_CODE_LEN) {
            return Err(BadCode("a code longer than the longest allowed"));
        }
        // Kraft: the codes must fit in the code space exactly (one symbol: half of it).
        let used: u64 = lengths.iter().filter(|&&l| l > 0).map(|&l| 1u64 << (MAX_CODE_LEN - l)).sum();
        let written = lengths.iter().filter(|&&l| l > 0).count();
        let full = 1u64 << MAX_CODE_LEN;
        if !(used == full || (written == 1 && used == full / 2)) {
            return Err(BadCode("the code lengths do not make a complete prefix code"));
        }
        let mut code = PairCode::with_rules(rules, rounds);
        if code.runs.iter().any(|&run| run > max_run) {
            return Err(BadCode("a rule stands for more entries than a block holds"));
        }
        code.set_lengths(lengths);
        Ok(code)
    }
}

/// Where blocks lie: one [`RECORD_BYTES`]-byte record per [`GROUP_BLOCKS`] blocks, holding the
/// offset of the group's first block (a little-endian u64) then where each of its blocks ends,
/// from that offset (a little-endian u16 each; zero past the last block). Block `b` is in
/// record `b / GROUP_BLOCKS`, so a lookup reads one record and then its block.
pub struct BlockIndex;

impl BlockIndex {
    /// The records of blocks ending at `ends` (offsets from the first block's start, as
    /// [`EncodedBlocks::ends`]).
    pub fn records(ends: &[u64]) -> Vec<u8> {
        let mut out = Vec::with_capacity(ends.len().div_ceil(GROUP_BLOCKS) * RECORD_BYTES);
        let mut records = RecordBuilder::default();
        for &end in ends {
            out.extend(records.push(end).iter().flatten());
        }
        out.extend(records.finish().iter().flatten());
        out
    }

    /// Where block `k` of a record's group starts and ends (from the first block's start);
    /// `None` for a block that would be empty or run backwards (a damaged record).
    #[inline]
    pub fn block_in(record: &[u8], k: usize) -> Option<(u64, u64)> {
        let u16_at = |at: usize| u64::from(u16::from_le_bytes([record[at], record[at + 1]]));
        let base = u64::from_le_bytes(record.get(..8)?.try_into().ok()?);
        let end = u16_at(8 + 2 * k);
        let start = if k == 0 { 0 } else { u16_at(6 + 2 * k) };
        (start < end).then(|| Some((base.checked_add(start)?, base.checked_add(end)?))).flatten()
    }
}

/// The records of [`BlockIndex`] made a block at a time, as an encoder hands its blocks on.
pub struct RecordBuilder {
    record: [u8; RECORD_BYTES],
    /// Blocks of the group so far.
    in_group: usize,
    /// Where the group's first block starts.
    base: u64,
}

impl Default for RecordBuilder {
    fn default() -> RecordBuilder {
        RecordBuilder { record: [0; RECORD_BYTES], in_group: 0, base: 0 }
    }
}

impl RecordBuilder {
    /// Adds the next block, which ends at `end` (from the first block's start): the record of
    /// its group once the group is complete.
    pub fn push(&mut self, end: u64) -> Option<[u8; RECORD_BYTES]> {
        if self.in_group == 0 {
            self.record = [0; RECORD_BYTES];
            self.record[..8].copy_from_slice(&self.base.to_le_bytes());
        }
        let from_base = u16::try_from(end - self.base).expect("a group's blocks fit its offsets");
        let k = self.in_group;
        self.record[8 + 2 * k..10 + 2 * k].copy_from_slice(&from_base.to_le_bytes());
        self.in_group += 1;
        if self.in_group < GROUP_BLOCKS {
            return None;
        }
        self.in_group = 0;
        self.base = end;
        Some(self.record)
    }

    /// The record of the last group, when its blocks did not fill it.
    pub fn finish(self) -> Option<[u8; RECORD_BYTES]> {
        (self.in_group > 0).then_some(self.record)
    }
}

/// No rule starts with this symbol in the round being applied.
const NO_RULE: (u16, u16) = (u16::MAX, u16::MAX);

/// A round's rules as a table: for each symbol, the rule it starts in the round (the second
/// symbol and the rule's symbol), or [`NO_RULE`].
type RoundTable = [(u16, u16); MAX_SYMBOLS];

/// Enters a round's `rules` in its `table`, the first making `first_symbol`.
fn set_round(table: &mut [(u16, u16)], rules: &[(u16, u16)], first_symbol: usize) {
    for (k, &(a, b)) in rules.iter().enumerate() {
        table[a as usize] = (b, (first_symbol + k) as u16);
    }
}

/// Replaces, left to right, every pair of `symbols` that one of a round's rules makes by the
/// rule's symbol, writing the symbols over those it reads. Returns the number of symbols now;
/// with `hold_last`, the last symbol, where it is not the second of a pair replaced, is
/// returned instead of kept: whether it starts a pair depends on the symbol after it.
fn apply_round_in_place(
    symbols: &mut [u16],
    second_of: &RoundTable,
    hold_last: bool,
) -> (usize, Option<u16>) {
    let len = symbols.len();
    let (mut i, mut written) = (0, 0);
    while i + 1 < len {
        let a = symbols[i];
        // Symbols are below `MAX_SYMBOLS`: the mask spares a bounds check.
        let (b, s) = second_of[a as usize % MAX_SYMBOLS];
        if symbols[i + 1] == b {
            symbols[written] = s;
            i += 2;
        } else {
            symbols[written] = a;
            i += 1;
        }
        written += 1;
    }
    if i < len {
        if hold_last {
            return (written, Some(symbols[i]));
        }
        symbols[written] = symbols[i];
        written += 1;
    }
    (written, None)
}

/// The rules learnt from `sample`, how many each round made, and the sample's symbols.
///
/// Each round takes the most frequent pairs of adjacent symbols (overlapping pairs count
/// apart), at most one rule for any symbol. The counts are those of the whole sequence, but
/// kept up to date where a round replaced pairs rather than counted again: a round changes a
/// few per cent of the symbols, and counting every pair of the sample again in each of its
/// 54 rounds made learning the code of 7-7 2.2 times slower (2.9 s against 1.3).
fn learn_rules(sample: &[u8], max_run: u64) -> (Vec<(u16, u16)>, Vec<u16>, Vec<u16>) {
    let mut counts = PairCounts::of(sample);
    let mut rules: Vec<(u16, u16)> = Vec::new();
    let mut rounds = Vec::new();
    let mut runs = vec![1u64; 256];
    while 256 + rules.len() < MAX_SYMBOLS {
        let first_rule = rules.len();
        let made = choose_round(counts.most_frequent(), &mut rules, &mut runs, max_run);
        if made == 0 {
            break;
        }
        counts.replace(&rules[first_rule..], 256 + first_rule);
        rounds.push(made as u16);
    }
    (rules, rounds, counts.symbols)
}

/// Makes the rules of a round from the pairs `ranked`, most frequent first: each pair in turn,
/// unless one of its symbols has a rule this round already or its run would be longer than
/// `max_run`, up to [`RULES_PER_ROUND`] and [`MAX_SYMBOLS`]. Returns the number made.
fn choose_round(
    ranked: impl IntoIterator<Item = (u16, u16)>,
    rules: &mut Vec<(u16, u16)>,
    runs: &mut Vec<u64>,
    max_run: u64,
) -> usize {
    let mut taken = [false; MAX_SYMBOLS];
    let first_rule = rules.len();
    for (a, b) in ranked {
        if rules.len() - first_rule == RULES_PER_ROUND || 256 + rules.len() == MAX_SYMBOLS {
            break;
        }
        let (a, b) = (a as usize, b as usize);
        if taken[a] || taken[b] || runs[a] + runs[b] > max_run {
            continue;
        }
        taken[a] = true;
        taken[b] = true;
        rules.push((a as u16, b as u16));
        runs.push(runs[a] + runs[b]);
    }
    rules.len() - first_rule
}

/// A sequence of symbols with the number of times each pair of symbols is adjacent in it.
struct PairCounts {
    symbols: Vec<u16>,
    tally: PairTally,
    /// The table of the round being applied, [`NO_RULE`] between rounds.
    second_of: Box<RoundTable>,
    /// Room for the symbols of the next round.
    spare: Vec<u16>,
}

/// How many times each pair of symbols is adjacent, and the pairs seen at least
/// [`MIN_PAIR_COUNT`] times.
struct PairTally {
    /// The count of `a b` at `a * MAX_SYMBOLS + b`; zeroed by the system, page by page as
    /// pairs touch it.
    counts: Vec<u32>,
    /// Every pair counted at least [`MIN_PAIR_COUNT`] times, and some that were and are no
    /// more, each once.
    frequent: Vec<u32>,
    /// Whether each pair is in `frequent`, a bit each.
    listed: Vec<u64>,
}

impl PairTally {
    fn add(&mut self, a: u16, b: u16) {
        let pair = a as usize * MAX_SYMBOLS + b as usize;
        self.counts[pair] += 1;
        if self.counts[pair] >= MIN_PAIR_COUNT && self.listed[pair / 64] >> (pair % 64) & 1 == 0 {
            self.listed[pair / 64] |= 1 << (pair % 64);
            self.frequent.push(pair as u32);
        }
    }

    fn remove(&mut self, a: u16, b: u16) {
        self.counts[a as usize * MAX_SYMBOLS + b as usize] -= 1;
    }
}

impl PairCounts {
    fn of(sample: &[u8]) -> PairCounts {
        let symbols: Vec<u16> = sample.iter().map(|&b| u16::from(b)).collect();
        let mut tally = PairTally {
            counts: vec![0; MAX_SYMBOLS * MAX_SYMBOLS],
            frequent: Vec::new(),
            listed: vec![0; MAX_SYMBOLS * MAX_SYMBOLS / 64],
        };
        for pair in symbols.windows(2) {
            tally.add(pair[0], pair[1]);
        }
        PairCounts {
            spare: Vec::with_capacity(symbols.len()),
            symbols,
            tally,
            second_of: Box::new([NO_RULE; MAX_SYMBOLS]),
        }
    }

    /// The pairs seen at least [`MIN_PAIR_COUNT`] times, most frequent first; ties by the pair,
    /// so that learning is deterministic.
    fn most_frequent(&mut self) -> Vec<(u16, u16)> {
        let PairTally { counts, frequent, listed } = &mut self.tally;
        frequent.retain(|&pair| {
            let keep = counts[pair as usize] >= MIN_PAIR_COUNT;
            if !keep {
                listed[pair as usize / 64] &= !(1 << (pair % 64));
            }
            keep
        });
        let mut ranked: Vec<(u32, u32)> =
            frequent.iter().map(|&pair| (counts[pair as usize], pair)).collect();
        ranked.sort_unstable_by_key(|&(count, pair)| (Reverse(count), pair));
        ranked
            .iter()
            .map(|&(_, pair)| ((pair as usize / MAX_SYMBOLS) as u16, (pair as usize % MAX_SYMBOLS) as u16))
            .collect()
    }

    /// Applies a round of `rules` (as [`apply_round_in_place`] does), the first making
    /// `first_symbol`, and counts again the pairs it changed: those that had a replaced symbol
    /// before, and those that have one after.
    fn replace(&mut self, rules: &[(u16, u16)], first_symbol: usize) {
        set_round(&mut self.second_of[..], rules, first_symbol);
        let (old, new, tally) = (&self.symbols, &mut self.spare, &mut self.tally);
        new.clear();
        let mut i = 0;
        // Whether the symbol before `i` was the second of a pair replaced: the pair it made with
        // the symbol at `i` is uncounted already.
        let mut after_replaced = false;
        while i < old.len() {
            let a = old[i];
            let (b, s) = self.second_of[a as usize];
            if old.get(i + 1) == Some(&b) {
                tally.remove(a, b);
                if i > 0 && !after_replaced {
                    tally.remove(old[i - 1], a);
                }
                if let Some(&c) = old.get(i + 2) {
                    tally.remove(b, c);
                }
                new.push(s);
                i += 2;
                after_replaced = true;
            } else {
                new.push(a);
                i += 1;
                after_replaced = false;
            }
        }
        for &(a, _) in rules {
            self.second_of[a as usize] = NO_RULE;
        }
        // The new symbols are numbered from `first_symbol` up.
        for pair in new.windows(2) {
            if usize::from(pair[0].max(pair[1])) >= first_symbol {
                tally.add(pair[0], pair[1]);
            }
        }
        std::mem::swap(&mut self.symbols, &mut self.spare);
    }
}

/// Huffman code lengths for `counts` (0 for a symbol that never occurs), none longer than
/// `limit`: where the optimal code is longer, the counts are flattened (halved, rounding up)
/// until it is not.
fn limited_lengths(counts: &[u64], limit: u8) -> Vec<u8> {
    let mut counts = counts.to_vec();
    loop {
        let lengths = huffman_lengths(&counts);
        if lengths.iter().all(|&l| l <= u32::from(limit)) {
            return lengths.iter().map(|&l| l as u8).collect();
        }
        for c in counts.iter_mut().filter(|c| **c > 0) {
            *c = c.div_ceil(2);
        }
    }
}

fn huffman_lengths(counts: &[u64]) -> Vec<u32> {
    let mut lengths = vec![0u32; counts.len()];
    let live: Vec<usize> = (0..counts.len()).filter(|&s| counts[s] > 0).collect();
    match live.len() {
        0 => return lengths,
        1 => {
            lengths[live[0]] = 1;
            return lengths;
        }
        _ => {}
    }
    // Merge the two lightest nodes until one is left; every symbol under a merge goes one
    // level deeper. Ties by node number, so that the lengths are deterministic.
    let mut members: Vec<Vec<usize>> = live.iter().map(|&s| vec![s]).collect();
    let mut heap: BinaryHeap<Reverse<(u64, usize)>> =
        live.iter().enumerate().map(|(node, &s)| Reverse((counts[s], node))).collect();
    while heap.len() > 1 {
        let Reverse((wa, a)) = heap.pop().expect("two nodes");
        let Reverse((wb, b)) = heap.pop().expect("two nodes");
        let mut merged = std::mem::take(&mut members[a]);
        merged.append(&mut members[b]);
        for &s in &merged {
            lengths[s] += 1;
        }
        members.push(merged);
        heap.push(Reverse((wa + wb, members.len() - 1)));
    }
    lengths
}

/// The 64 bits of `block` from bit `at` on, the first one highest, with at least 57 of them
/// from the block or past its end (which reads as zero bits): `None` for an `at` past the end.
#[inline]
fn window_at(block: &[u8], at: u64) -> Option<u64> {
    let byte = (at / 8) as usize;
    let window = match block.get(byte..byte + 8) {
        Some(eight) => u64::from_be_bytes(eight.try_into().ok()?),
        None => {
            let tail = block.get(byte..)?;
            let mut eight = [0u8; 8];
            eight[..tail.len()].copy_from_slice(tail);
            u64::from_be_bytes(eight)
        }
    };
    Some(window << (at % 8))
}

fn flush_bits(block: &mut Vec<u8>, buffer: &mut u64, used: &mut u32) {
    if *used > 0 {
        block.push((*buffer << (8 - *used)) as u8);
        *used = 0;
    }
    *buffer = 0;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::SplitMix64;

    /// Values with the structure of a table: runs, a skewed distribution, repeats.
    fn table_like(len: usize, seed: u64) -> Vec<u8> {
        let mut rng = SplitMix64::new(seed);
        let mut out = Vec::with_capacity(len);
        while out.len() < len {
            let value = match rng.below(10) {
                0..=4 => 0,
                5..=7 => 1 + 2 * rng.below(4) as u8,
                _ => rng.below(256) as u8,
            };
            let run = 1 + rng.below(if value == 0 { 40 } else { 4 }) as usize;
            out.extend(std::iter::repeat_n(value, run.min(len - out.len())));
        }
        out
    }

    /// Every entry of every block, one lookup each, and each block whole; blocks of
    /// `block_entries` entries, the last the rest.
    fn decode_all(code: &PairCode, encoded: &EncodedBlocks, block_entries: u64, len: usize) -> Vec<u8> {
        assert_eq!(encoded.ends.len() as u64, (len as u64).div_ceil(block_entries));
        let mut out = Vec::new();
        for b in 0..encoded.ends.len() {
            let block = encoded.block(b);
            let n = block_entries.min(len as u64 - b as u64 * block_entries);
            for offset in 0..n {
                out.push(code.entry_in_block(block, offset).expect("an entry of the block"));
            }
            assert_eq!(code.entry_in_block(block, u64::MAX), None, "past the block's bits");
            let mut whole = vec![0u8; n as usize];
            code.decode_block(block, &mut whole).expect("the block whole");
            assert_eq!(whole, out[out.len() - n as usize..]);
        }
        out
    }

    #[test]
    fn every_entry_decodes_to_itself() {
        // The last block of each size holds 5 entries: fewer than one store of a short run.
        let data = table_like(300_037, 1);
        for block_entries in [16, 128, 512] {
            let code = PairCode::learn(&data[..100_000], block_entries);
            assert!(code.symbols() > 256, "the sample's pairs make rules");
            let encoded = code.encode(&data, block_entries);
            assert_eq!(
                decode_all(&code, &encoded, block_entries, data.len()),
                data,
                "blocks of {block_entries}"
            );
        }
        // Structured data compresses: well under its 8 bits an entry.
        let code = PairCode::learn(&data, 256);
        let encoded = code.encode(&data, 256);
        assert!(encoded.bytes.len() * 3 < data.len(), "{} bytes for {}", encoded.bytes.len(), data.len());
    }

    #[test]
    fn chunks_do_not_change_the_entries() {
        // More than one chunk, and rules learnt on a different sample.
        let data = table_like(CHUNK + CHUNK / 2, 2);
        let code = PairCode::learn(&table_like(50_000, 3), 256);
        let encoded = code.encode(&data, 256);
        assert_eq!(decode_all(&code, &encoded, 256, data.len()), data);
    }

    #[test]
    fn degenerate_data() {
        // One value throughout: runs of runs, a few symbols for all of it.
        let data = vec![7u8; 10_000];
        let code = PairCode::learn(&data, 512);
        let encoded = code.encode(&data, 512);
        assert_eq!(decode_all(&code, &encoded, 512, data.len()), data);
        assert!(encoded.bytes.len() < 100, "{} bytes", encoded.bytes.len());
        // Rules for runs longer than the blocks: split at every block's end.
        let code = PairCode::learn(&data, 512);
        let encoded = code.encode(&data, 16);
        assert_eq!(decode_all(&code, &encoded, 16, data.len()), data);
        // No data at all.
        let code = PairCode::learn(&[], 64);
        let encoded = code.encode(&[], 64);
        assert!(encoded.bytes.is_empty() && encoded.ends.is_empty());
        // Every byte value once: no pair repeats, so no rules, and an 8-bit code.
        let data: Vec<u8> = (0..=255).collect();
        let code = PairCode::learn(&data, 32);
        assert_eq!(code.symbols(), 256);
        assert_eq!(decode_all(&code, &code.encode(&data, 32), 32, data.len()), data);
    }

    #[test]
    fn the_code_reads_back_and_damage_is_refused() {
        let data = table_like(200_000, 4);
        let code = PairCode::learn(&data, 256);
        let bytes = code.to_bytes();
        assert_eq!(PairCode::from_bytes(&bytes, 256), Ok(code.clone()));
        assert!(PairCode::from_bytes(&bytes[..bytes.len() - 1], 256).is_err(), "cut short");
        assert!(PairCode::from_bytes(&[], 256).is_err(), "empty");
        // A code for longer blocks than the file's.
        if code.runs.iter().any(|&run| run > 16) {
            assert_eq!(
                PairCode::from_bytes(&bytes, 16),
                Err(BadCode("a rule stands for more entries than a block holds"))
            );
        }
        // A rule that refers to itself would make decoding loop.
        let mut looped = bytes.clone();
        let first_rule = 2 + 2 * code.rounds.len();
        looped[first_rule..first_rule + 2].copy_from_slice(&256u16.to_le_bytes());
        assert_eq!(PairCode::from_bytes(&looped, 256), Err(BadCode("a rule refers to a later symbol")));
        // A length changed breaks the prefix code.
        let mut lengths = bytes.clone();
        let written = lengths.len() - code.symbols() + code.sorted[0] as usize;
        lengths[written] += 1;
        assert!(PairCode::from_bytes(&lengths, 256).is_err());
        // Any single byte changed is refused or still decodes without a panic.
        let encoded = code.encode(&data, 256);
        for k in 0..bytes.len() {
            let mut damaged = bytes.clone();
            damaged[k] ^= 0x5a;
            if let Ok(other) = PairCode::from_bytes(&damaged, 256) {
                for offset in [0, 1, 100, 255, 1000] {
                    let _ = other.entry_in_block(encoded.block(0), offset);
                }
                let _ = other.decode_block(encoded.block(1), &mut [0u8; 256]);
            }
        }
    }

    #[test]
    fn deeply_nested_rules_are_refused() {
        // Each rule doubles the one before: runs past 2^64 entries, as only damage makes.
        let rules = 200u16;
        let mut bytes = Vec::new();
        bytes.extend_from_slice(&1u16.to_le_bytes());
        bytes.extend_from_slice(&rules.to_le_bytes());
        bytes.extend_from_slice(&[0, 0, 0, 0]);
        for r in 1..rules {
            bytes.extend_from_slice(&(255 + r).to_le_bytes());
            bytes.extend_from_slice(&(255 + r).to_le_bytes());
        }
        let mut lengths = vec![0u8; 256 + rules as usize];
        lengths[0] = 1;
        lengths[255 + rules as usize] = 1;
        bytes.extend_from_slice(&lengths);
        assert_eq!(
            PairCode::from_bytes(&bytes, MAX_BLOCK_ENTRIES),
            Err(BadCode("a rule stands for more entries than a block holds"))
        );
    }

    #[test]
    fn the_block_index_finds_every_entry() {
        // Long runs of one value (rules up to a block's length), then table-like values.
        let mut data = vec![0u8; 3 * MAX_BLOCK_ENTRIES as usize + 5];
        data.extend(table_like(200_000, 5));
        let code = PairCode::learn(&data, 128);
        let encoded = code.encode(&data, 128);
        let records = BlockIndex::records(&encoded.ends);
        assert_eq!(records.len(), encoded.ends.len().div_ceil(GROUP_BLOCKS) * RECORD_BYTES);
        let mut rng = SplitMix64::new(6);
        let probes = (0..20_000).map(|_| rng.below(data.len() as u64)).chain([0, data.len() as u64 - 1]);
        for i in probes {
            let block = (i / 128) as usize;
            let record = &records[block / GROUP_BLOCKS * RECORD_BYTES..][..RECORD_BYTES];
            let (start, end) = BlockIndex::block_in(record, block % GROUP_BLOCKS).expect("a block");
            let bytes = &encoded.bytes[start as usize..end as usize];
            assert_eq!(bytes, encoded.block(block));
            assert_eq!(code.entry_in_block(bytes, i % 128), Some(data[i as usize]), "entry {i}");
        }
        // A damaged record whose offset would run past 2^64: no block, not a wrapped one.
        let mut damaged = records[..RECORD_BYTES].to_vec();
        damaged[..8].copy_from_slice(&(u64::MAX - 3).to_le_bytes());
        assert_eq!(BlockIndex::block_in(&damaged, 5), None);
        // Past the last block of the last record: no block.
        let last = encoded.ends.len() - 1;
        if last % GROUP_BLOCKS + 1 < GROUP_BLOCKS {
            let record = &records[records.len() - RECORD_BYTES..];
            assert_eq!(BlockIndex::block_in(record, last % GROUP_BLOCKS + 1), None);
        }
    }

    /// Learning as defined: every pair of the sequence counted again each round.
    fn rules_by_recounting(sample: &[u8], max_run: u64) -> (Vec<(u16, u16)>, Vec<u16>, Vec<u16>) {
        let mut symbols: Vec<u16> = sample.iter().map(|&b| u16::from(b)).collect();
        let (mut rules, mut rounds, mut runs) = (Vec::new(), Vec::new(), vec![1u64; 256]);
        while 256 + rules.len() < MAX_SYMBOLS {
            let mut counts = std::collections::BTreeMap::<(u16, u16), u32>::new();
            for w in symbols.windows(2) {
                *counts.entry((w[0], w[1])).or_default() += 1;
            }
            let mut frequent: Vec<_> = counts.into_iter().filter(|&(_, c)| c >= MIN_PAIR_COUNT).collect();
            frequent.sort_by_key(|&(pair, c)| (Reverse(c), pair));
            let first_rule = rules.len();
            if choose_round(frequent.iter().map(|&(pair, _)| pair), &mut rules, &mut runs, max_run) == 0 {
                break;
            }
            let mut second_of = [NO_RULE; MAX_SYMBOLS];
            set_round(&mut second_of, &rules[first_rule..], 256 + first_rule);
            let (len, _) = apply_round_in_place(&mut symbols, &second_of, false);
            symbols.truncate(len);
            rounds.push((rules.len() - first_rule) as u16);
        }
        (rules, rounds, symbols)
    }

    #[test]
    fn counts_kept_up_to_date_learn_what_counting_again_learns() {
        for (seed, len, max_run) in [(1, 200_000, 512), (2, 300_000, 64), (3, 50_000, 16)] {
            let data = table_like(len, seed);
            let learnt = learn_rules(&data, max_run);
            assert!(learnt.1.len() > 3, "seed {seed}: {} rounds", learnt.1.len());
            assert_eq!(learnt, rules_by_recounting(&data, max_run), "seed {seed}");
        }
        // Long runs of one value: pairs that overlap, replaced next to each other.
        let runs: Vec<u8> =
            (0..100_000u32).map(|k| [0u8, 0, 0, 1, 0, 1, 1, 1, 2][(k / 7 % 9) as usize]).collect();
        assert_eq!(learn_rules(&runs, 512), rules_by_recounting(&runs, 512));
    }

    #[test]
    fn rounds_over_blocks_make_the_symbols_of_rounds_over_the_chunk() {
        let data = table_like(1 << 18, 9);
        let code = PairCode::learn(&data[..1 << 16], 512);
        assert!(code.rounds.len() > 3);
        let tables = code.round_tables();
        for len in [0, 1, 2, STREAM_BLOCK - 1, STREAM_BLOCK, STREAM_BLOCK + 1, 5 * STREAM_BLOCK + 77, 1 << 18]
        {
            let chunk = &data[..len];
            let mut expected: Vec<u16> = chunk.iter().map(|&b| u16::from(b)).collect();
            for table in tables.chunks_exact(MAX_SYMBOLS) {
                let (kept, _) = apply_round_in_place(&mut expected, table.try_into().unwrap(), false);
                expected.truncate(kept);
            }
            assert_eq!(code.symbols_of(chunk, &tables), expected, "{len} entries");
        }
    }

    #[test]
    fn lengths_are_limited() {
        // Fibonacci counts make the deepest optimal Huffman tree: 40 symbols would need 39 bits.
        let mut counts = vec![0u64; 40];
        let (mut a, mut b) = (1u64, 1u64);
        for c in counts.iter_mut() {
            *c = a;
            (a, b) = (b, a + b);
        }
        let lengths = limited_lengths(&counts, MAX_CODE_LEN);
        assert!(lengths.iter().all(|&l| (1..=MAX_CODE_LEN).contains(&l)));
        let kraft: f64 = lengths.iter().map(|&l| 0.5f64.powi(i32::from(l))).sum();
        assert!((kraft - 1.0).abs() < 1e-12, "a complete code: {kraft}");
    }
}
