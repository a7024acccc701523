//! Measures candidate block codecs on version-3 table files, before a compressed format is
//! chosen: for each file, a sample of its body (runs of 64 KiB spread evenly over it) is cut into
//! blocks and compressed by each candidate, and one line per candidate gives the bits per body
//! byte (a value table's entry, a set's eighth of a word) and the median time to decode a block.
//!
//! Each compressed block is charged 8 bytes more, for its offset and checksum in a block
//! directory; a dictionary is charged once per file.
//!
//!   compression_candidates SAMPLE_MB FILE...
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
