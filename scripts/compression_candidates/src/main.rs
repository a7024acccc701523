//! Measures candidate block codecs on version-3 table files, before a compressed format is
//! chosen: for each file, a sample of its body (runs of 64 KiB spread evenly over it) is cut into
//! blocks and compressed by each candidate, and one line per candidate gives the bits per body
//! byte (a value table's entry, a set's eighth of a word) and the median time to decode a block.
//!
//! Each zstd block is charged 8 bytes more, for its offset and checksum in a block directory; a
//! dictionary is charged once per file. The pair encoding with a Huffman code (Syzygy's coding)
//! is charged as `pairs_huffman` says, and its decode time is that of finding one entry.
//!
//!   compression_candidates SAMPLE_MB FILE...
//!   compression_candidates SAMPLE_MB --merged SET...
//!
//! With `--merged`, each set and the value table beside it (`.tbl` for `.set`) are measured as
//! one sequence over the set's whole index space, a byte per index: a member's value, and for
//! the others either a byte of their own (`absent`) or a copy of the byte before (`dont-care`:
//! nothing probes an index that is not a member, so a reader that rejects those positions itself
//! may find anything there). Percentages are of the set's and the table's bodies together.
//!
//! Output: tab-separated `file kind body_bytes candidate block bits_per_byte percent decode_us`.

use std::time::Instant;

const HEADER: usize = 256;
const RUN: usize = 64 * 1024;
const DIRECTORY_BYTES_PER_BLOCK: usize = 8;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let Some(sample_mb) = args.get(1).and_then(|a| a.parse::<usize>().ok()) else {
        eprintln!("usage: compression_candidates SAMPLE_MB FILE...");
        std::process::exit(2);
    };
    println!("file\tkind\tbody_bytes\tcandidate\tblock\tbits_per_byte\tpercent\tdecode_us");
    if args.iter().any(|a| a == "--merged") {
        for path in args[2..].iter().filter(|a| *a != "--merged") {
            merged(path, sample_mb);
        }
        return;
    }
    for path in &args[2..] {
        let file = std::fs::File::open(path).unwrap_or_else(|e| fail(path, &e.to_string()));
        // SAFETY: read-only mapping of a file nothing else writes while this runs.
        let map = unsafe { memmap2::Mmap::map(&file) }.unwrap_or_else(|e| fail(path, &e.to_string()));
        if map.len() < HEADER || &map[..8] != b"TBLBASE\0" || map[8..12] != 3u32.to_le_bytes() {
            fail(path, "not a version-3 table file");
        }
        let entries = u64::from_le_bytes(map[64..72].try_into().unwrap()) as usize;
        let encoding = u32::from_le_bytes(map[72..76].try_into().unwrap());
        let (kind, body_len) = match encoding {
            1 => ("values", entries),
            2 => ("set", 8 * entries.div_ceil(64)),
            _ => fail(path, "unknown value encoding"),
        };
        let body = &map[HEADER..HEADER + body_len];
        let sample = sample_of(body, sample_mb * 1024 * 1024);
        let scale = body_len as f64 / sample.len() as f64;
        let name = std::path::Path::new(path).file_name().unwrap().to_string_lossy().into_owned();
        let report =
            |candidate: &str, block: usize, sample_bytes: f64, fixed_bytes: usize, decode_us: f64| {
                let total = sample_bytes * scale + fixed_bytes as f64;
                println!(
                    "{name}\t{kind}\t{body_len}\t{candidate}\t{block}\t{:.3}\t{:.1}\t{decode_us:.2}",
                    total * 8.0 / body_len as f64,
                    100.0 * total / body_len as f64
                );
            };

        let histogram = histogram(&sample);
        report("entropy-order0", 0, entropy_bits(&histogram) / 8.0, 0, f64::NAN);
        report("huffman-static", 0, huffman_bits(&histogram) / 8.0, 256, f64::NAN);
        for &(level, block) in &[(3, 4096), (3, 65536), (19, 1024), (19, 4096), (19, 65536)] {
            let (bytes, us) = zstd_blocks(&sample, block, level, None);
            report(&format!("zstd-{level}"), block, bytes, 0, us);
        }
        // Too small a sample to train on (a ply of a few thousand positions): no dictionary.
        if let Some(dictionary) = train_dictionary(&sample, 4096) {
            for &block in &[1024, 4096] {
                let (bytes, us) = zstd_blocks(&sample, block, 19, Some(&dictionary));
                report("zstd-19-dict", block, bytes, dictionary.len(), us);
            }
        }
        for &block in &[64, 256] {
            let (bytes, us) = pairs_huffman(&sample, block);
            report("pairs-huffman", block, bytes, 0, us);
        }
        if encoding == 1 {
            let (bytes, us) = split_blocks(&sample, 65536, 19);
            report("zstd-19-wdl-split", 65536, bytes, 0, us);
        }
    }
}

fn fail(path: &str, why: &str) -> ! {
    eprintln!("compression_candidates: {path}: {why}");
    std::process::exit(1);
}

/// Runs of `RUN` bytes spread evenly over `body`, about `want` bytes in all (all of a smaller
/// body).
fn sample_of(body: &[u8], want: usize) -> Vec<u8> {
    let runs = body.len().div_ceil(RUN);
    let step = (runs / want.div_ceil(RUN).max(1)).max(1);
    let mut sample = Vec::with_capacity(want.min(body.len()) + RUN);
    for run in (0..runs).step_by(step) {
        sample.extend_from_slice(&body[run * RUN..((run + 1) * RUN).min(body.len())]);
    }
    sample
}

fn histogram(bytes: &[u8]) -> [u64; 256] {
    let mut h = [0u64; 256];
    for &b in bytes {
        h[b as usize] += 1;
    }
    h
}

fn entropy_bits(h: &[u64]) -> f64 {
    let n: u64 = h.iter().sum();
    h.iter().filter(|&&c| c > 0).map(|&c| -(c as f64) * (c as f64 / n as f64).log2()).sum()
}

/// Bits of a static Huffman code over bytes built from `h` (the code's own description, 256
/// lengths, is charged by the caller).
fn huffman_bits(h: &[u64]) -> f64 {
    let mut weights: Vec<u64> = h.iter().copied().filter(|&c| c > 0).collect();
    if weights.len() == 1 {
        return weights[0] as f64;
    }
    // The cost of a Huffman code is the sum of the weights of its internal nodes.
    let mut heap: std::collections::BinaryHeap<std::cmp::Reverse<u64>> =
        weights.drain(..).map(std::cmp::Reverse).collect();
    let mut bits = 0u64;
    while heap.len() > 1 {
        let a = heap.pop().unwrap().0;
        let b = heap.pop().unwrap().0;
        bits += a + b;
        heap.push(std::cmp::Reverse(a + b));
    }
    bits as f64
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

/// Compressed bytes of `sample` in blocks of `block` (directory included), and the median
/// microseconds to decode one block.
fn zstd_blocks(sample: &[u8], block: usize, level: i32, dictionary: Option<&[u8]>) -> (f64, f64) {
    let mut compressor = match dictionary {
        Some(d) => zstd::bulk::Compressor::with_dictionary(level, d),
        None => zstd::bulk::Compressor::new(level),
    }
    .expect("zstd compressor");
    let mut decompressor = match dictionary {
        Some(d) => zstd::bulk::Decompressor::with_dictionary(d),
        None => zstd::bulk::Decompressor::new(),
    }
    .expect("zstd decompressor");
    let mut total = 0usize;
    let mut times = Vec::new();
    let mut out = vec![0u8; block];
    for chunk in sample.chunks(block) {
        let packed = compressor.compress(chunk).expect("zstd compress");
        total += packed.len() + DIRECTORY_BYTES_PER_BLOCK;
        let start = Instant::now();
        let n = decompressor.decompress_to_buffer(&packed, &mut out).expect("zstd decompress");
        times.push(start.elapsed().as_secs_f64() * 1e6);
        assert_eq!(&out[..n], chunk);
    }
    (total as f64, median(times))
}

fn train_dictionary(sample: &[u8], block: usize) -> Option<Vec<u8>> {
    let blocks: Vec<&[u8]> = sample.chunks(block).step_by(4).collect();
    zstd::dict::from_samples(&blocks, 64 * 1024).ok()
}

/// A value table's block as two zstd streams: win/draw/loss at 2 bits an entry, then the
/// distance bytes of the entries that are not draws (their parity is the win/loss bit, so a
/// distance byte is halved).
fn split_blocks(sample: &[u8], block: usize, level: i32) -> (f64, f64) {
    let mut compressor = zstd::bulk::Compressor::new(level).expect("zstd compressor");
    let mut decompressor = zstd::bulk::Decompressor::new().expect("zstd decompressor");
    let mut total = 0usize;
    let mut times = Vec::new();
    for chunk in sample.chunks(block) {
        let mut wdl = vec![0u8; chunk.len().div_ceil(4)];
        let mut distances = Vec::with_capacity(chunk.len());
        for (i, &b) in chunk.iter().enumerate() {
            let class = match b {
                0 => 0,
                255 => 3,
                b if b % 2 == 0 => 1,
                _ => 2,
            };
            wdl[i / 4] |= class << (2 * (i % 4));
            if b != 0 && b != 255 {
                distances.push((b - 1) / 2);
            }
        }
        let a = compressor.compress(&wdl).expect("zstd compress");
        let b = compressor.compress(&distances).expect("zstd compress");
        total += a.len() + b.len() + DIRECTORY_BYTES_PER_BLOCK + 4;
        let start = Instant::now();
        let x = decompressor.decompress(&a, wdl.len()).expect("zstd decompress");
        let y = decompressor.decompress(&b, distances.len().max(1)).expect("zstd decompress");
        times.push(start.elapsed().as_secs_f64() * 1e6);
        assert_eq!((x.len(), y.len()), (wdl.len(), distances.len()));
    }
    (total as f64, median(times))
}

/// Symbols of the pair encoding: the 256 byte values, then one per rule.
const MAX_SYMBOLS: usize = 4096;
/// Pairs replaced per round of the pair encoding (no symbol in two of them).
const PAIRS_PER_ROUND: usize = 128;

/// Pair encoding as Syzygy tables use it: each round replaces the most frequent adjacent pairs of
/// symbols by new symbols, until `MAX_SYMBOLS` or until no pair repays its rule. Returns the
/// sequence and the rules (symbol `256 + r` stands for `rules[r]`).
fn pair_encode(bytes: &[u8]) -> (Vec<u16>, Vec<(u16, u16)>) {
    let mut seq: Vec<u16> = bytes.iter().map(|&b| u16::from(b)).collect();
    let mut rules: Vec<(u16, u16)> = Vec::new();
    let mut counts = vec![0u32; MAX_SYMBOLS * MAX_SYMBOLS];
    while 256 + rules.len() < MAX_SYMBOLS {
        counts.iter_mut().for_each(|c| *c = 0);
        for w in seq.windows(2) {
            counts[w[0] as usize * MAX_SYMBOLS + w[1] as usize] += 1;
        }
        let mut top: Vec<(u32, usize)> =
            counts.iter().enumerate().filter(|&(_, &c)| c >= 64).map(|(p, &c)| (c, p)).collect();
        top.sort_unstable_by(|a, b| b.cmp(a));
        let mut used = vec![false; MAX_SYMBOLS];
        // first_of[a] = (b, new symbol) for a chosen pair (a, b).
        let mut first_of: Vec<Option<(u16, u16)>> = vec![None; MAX_SYMBOLS];
        let mut chosen = 0;
        for &(_, p) in &top {
            let (a, b) = (p / MAX_SYMBOLS, p % MAX_SYMBOLS);
            if used[a] || used[b] || chosen == PAIRS_PER_ROUND || 256 + rules.len() == MAX_SYMBOLS {
                continue;
            }
            used[a] = true;
            used[b] = true;
            let symbol = (256 + rules.len()) as u16;
            rules.push((a as u16, b as u16));
            first_of[a] = Some((b as u16, symbol));
            chosen += 1;
        }
        if chosen == 0 {
            break;
        }
        let mut out = Vec::with_capacity(seq.len());
        let mut i = 0;
        while i < seq.len() {
            match first_of[seq[i] as usize] {
                Some((b, symbol)) if i + 1 < seq.len() && seq[i + 1] == b => {
                    out.push(symbol);
                    i += 2;
                }
                _ => {
                    out.push(seq[i]);
                    i += 1;
                }
            }
        }
        seq = out;
    }
    (seq, rules)
}

/// Huffman code lengths for `counts`, limited to 24 bits by flattening the rarest symbols.
fn huffman_lengths(counts: &[u64]) -> Vec<u32> {
    let mut lengths = vec![0u32; counts.len()];
    let live: Vec<usize> = (0..counts.len()).filter(|&s| counts[s] > 0).collect();
    if live.len() == 1 {
        lengths[live[0]] = 1;
        return lengths;
    }
    // Package the two lightest nodes until one is left; a node is a list of its symbols.
    let mut heap: std::collections::BinaryHeap<std::cmp::Reverse<(u64, usize)>> = Default::default();
    let mut nodes: Vec<Vec<usize>> = Vec::new();
    for &s in &live {
        nodes.push(vec![s]);
        heap.push(std::cmp::Reverse((counts[s].max(1), nodes.len() - 1)));
    }
    while heap.len() > 1 {
        let std::cmp::Reverse((wa, a)) = heap.pop().unwrap();
        let std::cmp::Reverse((wb, b)) = heap.pop().unwrap();
        let mut merged = std::mem::take(&mut nodes[a]);
        merged.extend(std::mem::take(&mut nodes[b]));
        for &s in &merged {
            lengths[s] += 1;
        }
        nodes.push(merged);
        heap.push(std::cmp::Reverse((wa + wb, nodes.len() - 1)));
    }
    assert!(lengths.iter().all(|&l| l <= 32), "a code longer than 32 bits");
    lengths
}

/// The pair encoding and a canonical Huffman code over its symbols, in blocks of `block` bytes
/// holding whole symbols; finding an entry walks its block's symbols from the start. Charged: the
/// rules (3 bytes each), the code lengths (1 byte a symbol), per block its entry count (2 bytes),
/// per 1 KiB of blocks a checksum (4 bytes), per 1024 entries a sparse index entry (6 bytes).
/// Decoding: the median time to find one random entry, symbols walked by their code lengths.
fn pairs_huffman(sample: &[u8], block: usize) -> (f64, f64) {
    let (seq, rules) = pair_encode(sample);
    let symbols = 256 + rules.len();
    let mut counts = vec![0u64; symbols];
    for &s in &seq {
        counts[s as usize] += 1;
    }
    let lengths = huffman_lengths(&counts);
    // Entries a symbol stands for.
    let mut expands = vec![1u64; symbols];
    for (r, &(a, b)) in rules.iter().enumerate() {
        expands[256 + r] = expands[a as usize] + expands[b as usize];
    }
    // Blocks of whole symbols: (first symbol, symbols, entries).
    let mut blocks: Vec<(usize, usize, u64)> = Vec::new();
    let (mut start, mut bits, mut entries) = (0usize, 0u64, 0u64);
    for (i, &s) in seq.iter().enumerate() {
        let l = u64::from(lengths[s as usize]);
        if bits + l > 8 * block as u64 {
            blocks.push((start, i - start, entries));
            (start, bits, entries) = (i, 0, 0);
        }
        bits += l;
        entries += expands[s as usize];
    }
    blocks.push((start, seq.len() - start, entries));
    let total = blocks.len() * (block + 2)
        + (blocks.len() * block).div_ceil(1024) * 4
        + sample.len().div_ceil(1024) * 6
        + rules.len() * 3
        + symbols;
    // Finding an entry: the walk over its block's symbols (code lengths from a table, as a
    // canonical decoder reads them) to the symbol that holds it, then down the rules.
    let mut block_starts = Vec::with_capacity(blocks.len());
    let mut first_entry = 0u64;
    for &(_, _, n) in &blocks {
        block_starts.push(first_entry);
        first_entry += n;
    }
    let mut rng = 0x9E37_79B9_7F4A_7C15u64;
    let mut times = Vec::new();
    for _ in 0..20_000 {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        let target = rng % sample.len() as u64;
        let time = Instant::now();
        let b = block_starts.partition_point(|&e| e <= target) - 1;
        let (first, n, _) = blocks[b];
        let mut at = block_starts[b];
        let mut bit = 0u64;
        let mut found = 0u16;
        for &s in &seq[first..first + n] {
            bit += u64::from(lengths[s as usize]);
            let e = expands[s as usize];
            if at + e > target {
                found = s;
                break;
            }
            at += e;
        }
        let mut s = found;
        let mut offset = target - at;
        while s >= 256 {
            let (a, b) = rules[s as usize - 256];
            if offset < expands[a as usize] {
                s = a;
            } else {
                offset -= expands[a as usize];
                s = b;
            }
        }
        times.push(time.elapsed().as_secs_f64() * 1e6);
        assert_eq!(s as u8, sample[target as usize]);
        std::hint::black_box(bit);
    }
    (total as f64, median(times))
}

fn map_v3(path: &str) -> memmap2::Mmap {
    let file = std::fs::File::open(path).unwrap_or_else(|e| fail(path, &e.to_string()));
    // SAFETY: read-only mapping of a file nothing else writes while this runs.
    let map = unsafe { memmap2::Mmap::map(&file) }.unwrap_or_else(|e| fail(path, &e.to_string()));
    if map.len() < HEADER || &map[..8] != b"TBLBASE\0" || map[8..12] != 3u32.to_le_bytes() {
        fail(path, "not a version-3 table file");
    }
    map
}

fn u64_at(bytes: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap())
}

/// The set at `path` and its values as one sequence over the index space (see the top).
fn merged(path: &str, sample_mb: usize) {
    let table_path =
        path.strip_suffix(".set").map(|p| format!("{p}.tbl")).unwrap_or_else(|| fail(path, "not a .set"));
    let set = map_v3(path);
    let table = map_v3(&table_path);
    let capacity = u64_at(&set, 64) as usize;
    let words = capacity.div_ceil(64);
    let members = u64_at(&set, 88) as usize;
    let body = &set[HEADER..];
    let values = &table[HEADER..HEADER + members];
    let v3_bytes = 8 * words + members;
    // Runs of RUN indices spread evenly over the index space, each starting on a word.
    let runs = capacity.div_ceil(RUN);
    let step = (runs / (sample_mb * 1024 * 1024).div_ceil(RUN).max(1)).max(1);
    let (mut absent, mut dont_care) = (Vec::new(), Vec::new());
    for run in (0..runs).step_by(step) {
        let first = run * RUN;
        let word = first / 64;
        let block = word / 8;
        let mut rank = u64_at(body, 8 * (words + block)) as usize;
        for w in block * 8..word {
            rank += u64_at(body, 8 * w).count_ones() as usize;
        }
        let mut last = 0u8;
        for index in first..(first + RUN).min(capacity) {
            if u64_at(body, 8 * (index / 64)) >> (index % 64) & 1 == 1 {
                last = values[rank];
                rank += 1;
                absent.push(last);
            } else {
                absent.push(255);
            }
            dont_care.push(last);
        }
    }
    let scale = capacity as f64 / absent.len() as f64;
    let name = std::path::Path::new(path).file_name().unwrap().to_string_lossy().into_owned();
    for (kind, sequence) in [("absent", &absent), ("dont-care", &dont_care)] {
        let report = |candidate: &str, block: usize, bytes: f64, decode_us: f64| {
            let total = bytes * scale;
            println!(
                "{name}+tbl\t{kind}\t{v3_bytes}\t{candidate}\t{block}\t{:.3}\t{:.1}\t{decode_us:.2}",
                total * 8.0 / v3_bytes as f64,
                100.0 * total / v3_bytes as f64
            );
        };
        for &block in &[64, 256] {
            let (bytes, us) = pairs_huffman(sequence, block);
            report("pairs-huffman", block, bytes, us);
        }
        for &(level, block) in &[(3, 65536), (19, 4096), (19, 65536)] {
            let (bytes, us) = zstd_blocks(sequence, block, level, None);
            report(&format!("zstd-{level}"), block, bytes, us);
        }
    }
}
