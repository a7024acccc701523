//! How much a model of the values could shrink a large Morris class (docs/BENCHMARKS.md,
//! "A model of the values, measured"): over runs of 65,536 entries spread over a class, the
//! entropy of the stored bytes, their entropy given a context computed from the position alone
//! (mills each side can close in one move, and each side's mobility), and the size of the pair
//! code (blocks of 128 entries, as `generate` writes large classes) of three streams: the bytes
//! as stored, the bytes transposed at the index's strides, and each byte replaced by its rank
//! among its context's values. A context that a reader computes from the probed position alone
//! would keep random access, which is why only such contexts are tried.
//!
//! `cargo run --release --example value_contexts -- FILE MOVER OTHER [RUNS]` reads the class
//! table FILE (`morris-MOVER-OTHER.tbl`, raw or compressed) of the standard game.
use tablebase::games::morris::{MorrisVariant, Points, Standard};
use tablebase::table::{Check, FileKind, FileSpec, TableFile};
use tablebase::testing::PairCode;
use tablebase::testing::morris::ClassIndex;

const ALL: Points = (1 << 24) - 1;

/// The mills `mine` can close in one move: two of its stones in the mill, the third point empty
/// and one of its other stones a slide (or a flight) away.
fn closable(mine: Points, theirs: Points, flies: bool) -> u32 {
    let rules = &Standard::RULES;
    let empty = ALL & !(mine | theirs);
    let mut n = 0;
    for &mill in rules.mills {
        if (mill & mine).count_ones() == 2 && mill & theirs == 0 {
            let q = (mill & empty).trailing_zeros() as usize;
            let movers = if flies { mine & !mill } else { rules.adjacent[q] & mine & !mill };
            if movers != 0 {
                n += 1;
            }
        }
    }
    n
}

/// The moves of `mine`: slides, or flights with three stones.
fn mobility(mine: Points, theirs: Points) -> u32 {
    let empty = ALL & !(mine | theirs);
    if mine.count_ones() == 3 {
        return 3 * empty.count_ones();
    }
    let mut n = 0;
    let mut s = mine;
    while s != 0 {
        let p = s.trailing_zeros() as usize;
        s &= s - 1;
        n += (Standard::RULES.adjacent[p] & empty).count_ones();
    }
    n
}

fn bucket(n: u32) -> u32 {
    match n {
        0 => 0,
        1..=2 => 1,
        3..=5 => 2,
        _ => 3,
    }
}

fn entropy(counts: &[u64]) -> f64 {
    let total: u64 = counts.iter().sum();
    counts
        .iter()
        .filter(|&&c| c > 0)
        .map(|&c| {
            let p = c as f64 / total as f64;
            -p * p.log2()
        })
        .sum::<f64>()
}

/// Contexts tried, from coarse to fine: (closable by the mover, by the other), then with the
/// mover's mobility, then the other's, then with the closable mills counted up to 2.
const CONTEXTS: usize = 4;

fn contexts(mover: Points, other: Points) -> [usize; CONTEXTS] {
    let mf = mover.count_ones() == 3;
    let of = other.count_ones() == 3;
    let mc = closable(mover, other, mf).min(2) as usize;
    let oc = closable(other, mover, of).min(2) as usize;
    let mm = bucket(mobility(mover, other)) as usize;
    let om = bucket(mobility(other, mover)) as usize;
    [
        (mc > 0) as usize * 2 + (oc > 0) as usize,
        ((mc > 0) as usize * 2 + (oc > 0) as usize) * 4 + mm,
        (((mc > 0) as usize * 2 + (oc > 0) as usize) * 4 + mm) * 4 + om,
        ((mc * 3 + oc) * 4 + mm) * 4 + om,
    ]
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let path = std::path::PathBuf::from(&args[1]);
    let mover: u32 = args[2].parse().unwrap();
    let other: u32 = args[3].parse().unwrap();
    let runs: u64 = args.get(4).map(|r| r.parse().unwrap()).unwrap_or(256);
    let index = ClassIndex::new(mover, other);
    let spec = FileSpec {
        path,
        game: "morris",
        table: format!("{mover}-{other}"),
        since_version: 3,
        kind: FileKind::Table,
    };
    let table = TableFile::open(&spec, index.size(), Check::Checksum).unwrap();
    let codes = table.checked_codes().unwrap();
    let size = index.size();
    let run_len = (1u64 << 16).min(size);
    let step = (size / runs).max(run_len);
    let mut sample_idx = Vec::new();
    let mut start = 0;
    while start < size && (sample_idx.len() as u64) < runs * run_len {
        for i in start..(start + run_len).min(size) {
            sample_idx.push(i);
        }
        start += step;
    }
    let mut counts = vec![vec![[0u64; 256]; 144]; CONTEXTS];
    let mut all = [0u64; 256];
    let mut ctx_of = Vec::with_capacity(sample_idx.len());
    for &i in &sample_idx {
        let (m, o) = index.position(i);
        let c = contexts(m, o);
        let v = codes[i as usize] as usize;
        all[v] += 1;
        for (counts, &context) in counts.iter_mut().zip(&c) {
            counts[context][v] += 1;
        }
        ctx_of.push(c);
    }
    let n = sample_idx.len() as f64;
    println!("{}-{}: {} entries sampled of {}; H(V) = {:.3} bits", mover, other, n, size, entropy(&all));
    for (k, counts) in counts.iter().enumerate() {
        let h: f64 = counts.iter().map(|c| entropy(c) * c.iter().sum::<u64>() as f64 / n).sum();
        println!("  context {k}: H(V|C) = {h:.3} bits");
    }
    // Rank transform under each context: the value's rank by frequency within its context.
    let raw: Vec<u8> = sample_idx.iter().map(|&i| codes[i as usize]).collect();
    let block = 128;
    let code = PairCode::learn(&raw, block);
    let raw_bytes = code.encode(&raw, block).bytes.len() + code.to_bytes().len();
    println!("  raw sample pair-coded: {:.1}%", 100.0 * raw_bytes as f64 / n);
    for c in [28usize, 56, 112, 280, 560, 840, 1680] {
        // Transposed within windows of c * rows entries (rows so the window divides the run).
        let rows = (run_len as usize / c).max(1);
        let window = rows * c;
        let mut t = Vec::with_capacity(raw.len());
        for w in raw.chunks(run_len as usize) {
            let full = w.len() / window * window;
            for win in w[..full].chunks(window) {
                for col in 0..c {
                    for row in 0..rows {
                        t.push(win[row * c + col]);
                    }
                }
            }
            t.extend_from_slice(&w[full..]);
        }
        let code = PairCode::learn(&t, block);
        let bytes = code.encode(&t, block).bytes.len() + code.to_bytes().len();
        println!("  transposed at stride {c} ({rows} rows): pair-coded {:.1}%", 100.0 * bytes as f64 / n);
    }
    for k in 0..CONTEXTS {
        let mut rank = vec![[0u8; 256]; 144];
        for (c, table) in counts[k].iter().enumerate() {
            let mut order: Vec<usize> = (0..256).collect();
            order.sort_by_key(|&v| (std::cmp::Reverse(table[v]), v));
            for (r, &v) in order.iter().enumerate() {
                rank[c][v] = r as u8;
            }
        }
        let ranks: Vec<u8> =
            sample_idx.iter().zip(&ctx_of).map(|(&i, c)| rank[c[k]][codes[i as usize] as usize]).collect();
        let mut rc = [0u64; 256];
        for &r in &ranks {
            rc[r as usize] += 1;
        }
        let code = PairCode::learn(&ranks, block);
        let bytes = code.encode(&ranks, block).bytes.len() + code.to_bytes().len();
        println!(
            "  context {k}: H(rank) = {:.3} bits; pair-coded {:.1}%",
            entropy(&rc),
            100.0 * bytes as f64 / n
        );
    }
}
