//! `tablebase bench`: single-thread throughput of the building blocks, reported as the median
//! of several runs, so that docs/BENCHMARKS.md can quote commands anyone can rerun.

mod error;
mod host;

pub use error::Error;
pub use host::Host;

use clap::{Args, Subcommand};
use error::complain;
use std::hint::black_box;
use std::io::Write;
use std::time::Instant;
use tablebase::games::connect4::{Connect4, Connect4Tablebase, Geometry};
use tablebase::games::morris::{
    MIN_STONES, Morabaraba, MorrisVariant, Opening, Position, Standard, for_each_move,
};
use tablebase::testing::SplitMix64;
use tablebase::testing::morris::{ClassIndex, for_each_unslide};
use tablebase::text::{BoundedLine, read_line_within};

const MAX_STONES: u32 = Standard::RULES.stones;

#[derive(Subcommand)]
pub enum Target {
    /// Index, un-index, move and un-move generation per Morris class.
    Morris(MorrisBenchArgs),
    /// Probing speed on the Morris tables in a directory.
    ProbeMorris(ProbeMorrisArgs),
    /// Probing speed on a Connect Four board's tables in a directory, positions in play from
    /// random games.
    ProbeConnect4(ProbeConnect4Args),
    /// The Morris opening's forward pass alone, reachable positions per placement ply against
    /// the reference.
    MorrisForward(MorrisForwardArgs),
    /// The Connect Four forward pass alone, counted per ply against the reference.
    Connect4Forward(Connect4ForwardArgs),
    /// The Connect Four search on test sets of positions with known scores (Pascal Pons's
    /// format: `<moves> <score>` per line), one thread.
    Connect4Search(Connect4SearchArgs),
    /// What an opening book's last ply would cost: searches of runs of its reachable positions,
    /// in index order as the book solves them, one thread.
    Connect4Book(Connect4BookArgs),
    /// Proves who wins a Qubic or Sogo position without the distance (df-pn with threat
    /// sequences), one thread (several with `--parts` or `--strategy`): the outcome, nodes,
    /// stored positions and time.
    CubeProve(CubeProveArgs),
    /// Proves who wins Sogo positions with the prover that knows the game, each piece of its
    /// knowledge on or off: the outcome, nodes, positions settled by a rule, time and peak
    /// memory. Positions are the arguments, or lines of a file with `--file`.
    SogoProve(SogoProveArgs),
    /// The pair encoding with a Huffman code on the values of table files: the size against the
    /// file's body, the time to learn and encode, and single lookups (one thread).
    PairCode(PairCodeArgs),
    /// Single ranks in set files (raw or compressed), each timed on its own at random indices
    /// of the index space, one thread: what a probe of a layered game pays for its set.
    SetRank(SetRankArgs),
}

/// Runs the benchmark `target`, its figures and progress through `host`.
pub fn run(target: Target, host: &impl Host) -> Result<(), Error> {
    match target {
        Target::Morris(args) => morris(&args, host),
        Target::ProbeMorris(args) => probe_morris(&args, host),
        Target::ProbeConnect4(args) => probe_connect4(&args, host),
        Target::MorrisForward(args) => match args.game {
            MorrisGameName::Morris => morris_forward::<Standard>(&args, host),
            MorrisGameName::Morabaraba => morris_forward::<Morabaraba>(&args, host),
        },
        Target::Connect4Forward(args) => connect4_forward(&args, host),
        Target::Connect4Search(args) => connect4_search(&args, host),
        Target::Connect4Book(args) => connect4_book(&args, host),
        Target::CubeProve(args) => cube_prove(&args, host),
        Target::SogoProve(args) => sogo_prove(&args, host),
        Target::PairCode(args) => pair_code(&args, host),
        Target::SetRank(args) => set_rank(&args, host),
    }
}

#[derive(Args)]
pub struct PairCodeArgs {
    /// Value table files (`.tbl`), or set files (`.set`), whose words are taken as bytes.
    #[arg(required = true)]
    files: Vec<std::path::PathBuf>,
    /// Megabytes of each body the rules are learnt from: runs of 64 KiB spread over it.
    #[arg(long, default_value_t = 16, value_parser = at_least_one)]
    sample_mb: usize,
    /// Entries a block: a power of two from 16 to 512.
    #[arg(long, default_value_t = 256, value_parser = block_entries)]
    block_entries: u64,
    /// Single lookups timed, each on its own; the median is reported.
    #[arg(long, default_value_t = 100_000, value_parser = at_least_one)]
    lookups: usize,
}

fn block_entries(text: &str) -> Result<u64, String> {
    match text.parse::<u64>() {
        Ok(n) if n.is_power_of_two() && (16..=512).contains(&n) => Ok(n),
        _ => Err(format!("{text} is not a power of two from 16 to 512")),
    }
}

/// Learns a pair code from a sample of each table's body, encodes the whole body (on all
/// threads), and times single lookups: the record of the entry's block, then the block decoded
/// up to the entry.
pub fn pair_code(args: &PairCodeArgs, host: &impl Host) -> Result<(), Error> {
    use tablebase::games::GAMES;
    use tablebase::table::{Check, FileSpec, SetFile, TableError, TableFile};
    use tablebase::testing::{BlockIndex, GROUP_BLOCKS, Header, PairCode, RECORD_BYTES, sample_of};
    let block_entries = args.block_entries;
    let mut out = host.stdout();
    for path in &args.files {
        if matches!(std::fs::symlink_metadata(path), Err(e) if e.kind() == std::io::ErrorKind::NotFound) {
            // A newcomer's first try: say where such files come from.
            return Err(Error::NotOnDisk {
                what: format!("{}: no such file (pair-code reads a table or set file)", path.display()),
                command: "tablebase generate connect4 --size 5x4 and pass one of its files, such as tables/connect4-5x4-ply10.tbl".into(),
            });
        }
        // Opened as the program opens its own tables: header, length and every block checked.
        let (header, is_set) = match Header::read(path) {
            Err(TableError::WrongKind { .. }) => (Header::read_set(path).map_err(Error::Table)?, true),
            read => (read.map_err(Error::Table)?, false),
        };
        let game = GAMES.iter().find(|about| about.key == header.game).map(|about| about.key);
        let game = game.ok_or_else(|| Error::Table(TableError::NotATable { path: path.clone() }))?;
        let (table, set);
        let body = if is_set {
            let spec = FileSpec::set(path.clone(), game, header.table.clone());
            set = SetFile::open(&spec, Check::Checksum).map_err(Error::Table)?;
            set.checked_word_bytes().expect("a set opened with its checksum checked")
        } else {
            let spec = FileSpec::table(path.clone(), game, header.table.clone());
            table = TableFile::open(&spec, header.index_size, Check::Checksum).map_err(Error::Table)?;
            table.checked_codes().expect("a table opened with its checksum checked")
        };
        let sample = sample_of(body, args.sample_mb << 20);
        let start = Instant::now();
        let code = PairCode::learn(&sample, block_entries);
        let learnt = start.elapsed().as_secs_f64();
        let start = Instant::now();
        let encoded = code.encode(body, block_entries);
        let encoding = start.elapsed().as_secs_f64();
        let records = BlockIndex::records(&encoded.ends);
        // Whole blocks, one thread, as verify and the solvers read a table: the best of three.
        let mut decoded = vec![0u8; body.len()];
        let decoding = (0..3)
            .map(|_| {
                let start = Instant::now();
                for (block, entries) in decoded.chunks_mut(block_entries as usize).enumerate() {
                    code.decode_block(encoded.block(block), entries).expect("a block just encoded");
                }
                start.elapsed().as_secs_f64()
            })
            .fold(f64::INFINITY, f64::min);
        assert!(decoded == body, "{} decoded whole differs from its body", path.display());
        let mut rng = SplitMix64::new(5);
        let mut times: Vec<f64> = (0..args.lookups.min(body.len()))
            .map(|_| {
                let index = rng.below(body.len() as u64);
                let start = Instant::now();
                let block = (index / block_entries) as usize;
                let record = &records[block / GROUP_BLOCKS * RECORD_BYTES..][..RECORD_BYTES];
                let value = BlockIndex::block_in(record, block % GROUP_BLOCKS).and_then(|(from, to)| {
                    code.entry_in_block(&encoded.bytes[from as usize..to as usize], index % block_entries)
                });
                let elapsed = start.elapsed().as_secs_f64();
                assert_eq!(value, Some(body[index as usize]), "entry {index} of {}", path.display());
                elapsed
            })
            .collect();
        times.sort_by(f64::total_cmp);
        let stored = encoded.bytes.len() + records.len() + code.to_bytes().len();
        writeln!(
            out,
            "{}: {} entries, {} symbols; {} bytes ({:.1}% of the body, {:.3} bits an entry: blocks of {block_entries} entries, their records, the code); learnt in {learnt:.1} s, encoded in {encoding:.1} s, decoded whole in {decoding:.2} s ({:.0} M entries/s, one thread); single lookup {:.2} us (median of {})",
            path.display(),
            body.len(),
            code.symbols(),
            stored,
            100.0 * stored as f64 / body.len().max(1) as f64,
            8.0 * stored as f64 / body.len().max(1) as f64,
            body.len() as f64 / decoding / 1e6,
            times.get(times.len() / 2).map_or(0.0, |t| t * 1e6),
            times.len()
        )
        .map_err(Error::Output)?;
    }
    Ok(())
}

#[derive(Args)]
pub struct SetRankArgs {
    /// Set files (`.set`).
    #[arg(required = true)]
    files: Vec<std::path::PathBuf>,
    /// Ranks timed; the median is reported.
    #[arg(long, default_value_t = 100_000, value_parser = at_least_one)]
    lookups: usize,
}

/// Times single ranks at random indices of each set's index space, after a pass over the same
/// indices that brings the file into the page cache (so the figure is the lookup, not the disk).
pub fn set_rank(args: &SetRankArgs, host: &impl Host) -> Result<(), Error> {
    use tablebase::games::GAMES;
    use tablebase::table::{Check, FileSpec, SetFile, TableError};
    use tablebase::testing::Header;
    let mut out = host.stdout();
    for path in &args.files {
        let header = Header::read_set(path).map_err(Error::Table)?;
        let game = GAMES.iter().find(|about| about.key == header.game).map(|about| about.key);
        let game = game.ok_or_else(|| Error::Table(TableError::NotATable { path: path.clone() }))?;
        let set = SetFile::open(&FileSpec::set(path.clone(), game, header.table.clone()), Check::Header)
            .map_err(Error::Table)?;
        let mut rng = SplitMix64::new(7);
        let indices: Vec<u64> = (0..args.lookups).map(|_| rng.below(set.capacity().max(1))).collect();
        let mut members = 0usize;
        for &i in &indices {
            members += usize::from(set.rank(i).map_err(Error::Table)?.is_some());
        }
        let mut times: Vec<f64> = indices
            .iter()
            .map(|&i| {
                let start = Instant::now();
                let rank = set.rank(i);
                let elapsed = start.elapsed().as_secs_f64();
                std::hint::black_box(rank).ok();
                elapsed
            })
            .collect();
        times.sort_by(f64::total_cmp);
        writeln!(
            out,
            "{}: version {}, {} indices, {} members; {:.1}% of the indices timed are members; single rank {:.3} us (median of {})",
            path.display(),
            header.version,
            set.capacity(),
            set.len(),
            100.0 * members as f64 / indices.len() as f64,
            times[times.len() / 2] * 1e6,
            times.len()
        )
        .map_err(Error::Output)?;
    }
    Ok(())
}

#[derive(Args)]
pub struct MorrisBenchArgs {
    /// Classes to measure, e.g. `8-8,9-9` (default: all 49).
    #[arg(long, value_delimiter = ',')]
    classes: Vec<String>,
    /// Positions per run for index and un-index.
    #[arg(long, default_value_t = 2_000_000, value_parser = at_least_one)]
    samples: usize,
    /// Positions per run for move and un-move generation.
    #[arg(long, default_value_t = 200_000, value_parser = at_least_one)]
    move_samples: usize,
    /// Runs per figure; the median is reported.
    #[arg(long, default_value_t = 5, value_parser = at_least_one)]
    runs: usize,
}

fn parse_class(text: &str) -> Result<(u32, u32), Error> {
    let bad = || Error::Usage(format!("bad class '{text}': expected A-B with A and B in 3..9"));
    let (a, b) = text.split_once('-').ok_or_else(bad)?;
    let (a, b): (u32, u32) = (a.parse().map_err(|_| bad())?, b.parse().map_err(|_| bad())?);
    let range = MIN_STONES..=MAX_STONES;
    if range.contains(&a) && range.contains(&b) { Ok((a, b)) } else { Err(bad()) }
}

/// A count of runs, samples or positions: a benchmark of none measures nothing, and one of more
/// than this would hold more positions in memory than a machine has.
fn at_least_one(text: &str) -> Result<usize, String> {
    const MOST: usize = 100_000_000;
    match text.parse::<usize>() {
        Ok(n) if (1..=MOST).contains(&n) => Ok(n),
        _ => Err(format!("expected a whole number from 1 to {MOST}")),
    }
}

/// A count of threads: 1 to 256.
fn thread_count(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(n) if (1..=256).contains(&n) => Ok(n),
        _ => Err("expected a whole number of threads from 1 to 256".to_string()),
    }
}

/// Median over `runs` of `items / seconds` for one call of `work`.
fn median_rate(runs: usize, items: usize, mut work: impl FnMut()) -> f64 {
    let mut rates: Vec<f64> = (0..runs.max(1))
        .map(|_| {
            let start = Instant::now();
            work();
            items as f64 / start.elapsed().as_secs_f64()
        })
        .collect();
    rates.sort_by(f64::total_cmp);
    rates[rates.len() / 2]
}

pub fn morris(args: &MorrisBenchArgs, host: &impl Host) -> Result<(), Error> {
    let classes: Vec<(u32, u32)> = if args.classes.is_empty() {
        (MIN_STONES..=MAX_STONES).flat_map(|a| (MIN_STONES..=MAX_STONES).map(move |b| (a, b))).collect()
    } else {
        args.classes.iter().map(|c| parse_class(c)).collect::<Result<_, _>>()?
    };
    let mut out = host.stdout();
    writeln!(
        out,
        "single thread, median of {} runs; M/s = million per second\n{:<6} {:>10} {:>12} {:>12} {:>12} {:>12} {:>10} {:>12} {:>10}",
        args.runs,
        "class",
        "index",
        "unindex-rnd",
        "unindex-seq",
        "move-pos",
        "moves",
        "unmove-pos",
        "unmoves",
        "sum"
    )
    .map_err(Error::Output)?;
    for (a, b) in classes {
        let class = ClassIndex::new(a, b);
        let mut rng = SplitMix64::new(u64::from(a * 10 + b));
        let positions: Vec<(u32, u32)> = (0..args.samples)
            .map(|_| {
                let (m, o) = class.position(rng.below(class.size()));
                scramble(&mut rng, m, o)
            })
            .collect();
        let indices: Vec<u64> = (0..args.samples).map(|_| rng.below(class.size())).collect();
        let first = rng.below(class.size().saturating_sub(args.samples as u64).max(1));
        let mut checksum = 0u64;

        let index_rate = median_rate(args.runs, args.samples, || {
            let sum: u64 = positions.iter().map(|&(m, o)| class.index(m, o)).sum();
            checksum = checksum.wrapping_add(black_box(sum));
        });
        let unindex_rate = median_rate(args.runs, args.samples, || {
            let sum = indices.iter().fold(0u32, |acc, &i| acc ^ class.position(i).0);
            checksum = checksum.wrapping_add(u64::from(black_box(sum)));
        });
        let count = (args.samples as u64).min(class.size());
        let sequential_rate = median_rate(args.runs, count as usize, || {
            let sum = (first..first + count).fold(0u32, |acc, i| acc ^ class.position(i).1);
            checksum = checksum.wrapping_add(u64::from(black_box(sum)));
        });
        let sample = &positions[..args.move_samples.min(positions.len())];
        let mut moves = 0u64;
        let move_rate = median_rate(args.runs, sample.len(), || {
            moves = 0;
            for &(m, o) in sample {
                for_each_move::<Standard>(&Position::moving(m, o), |_, next| {
                    moves += 1;
                    checksum = checksum.wrapping_add(u64::from(next.stones[0]));
                });
            }
        });
        let mut unmoves = 0u64;
        let unmove_rate = median_rate(args.runs, sample.len(), || {
            unmoves = 0;
            for &(m, o) in sample {
                for_each_unslide::<Standard>(&Position::moving(m, o), MAX_STONES as u8, |before| {
                    unmoves += 1;
                    checksum = checksum.wrapping_add(u64::from(before.stones[1]));
                });
            }
        });
        let per = |n: u64| n as f64 / sample.len() as f64;
        writeln!(
            out,
            "{:<6} {:>8.1}M/s {:>10.1}M/s {:>10.1}M/s {:>10.2}M/s {:>6.1}/pos {:>8.2}M/s {:>6.1}/pos {:>10x}",
            format!("{a}-{b}"),
            index_rate / 1e6,
            unindex_rate / 1e6,
            sequential_rate / 1e6,
            move_rate / 1e6,
            per(moves),
            unmove_rate / 1e6,
            per(unmoves),
            checksum & 0xffff
        )
        .map_err(Error::Output)?;
    }
    Ok(())
}

/// A random one of the 16 images, so that the index sees positions as they come, not only
/// canonical ones.
fn scramble(rng: &mut SplitMix64, mover: u32, other: u32) -> (u32, u32) {
    use tablebase::games::morris::{BOARD_SYMMETRIES, transform};
    let sym = rng.below(BOARD_SYMMETRIES as u64) as usize;
    (transform(sym, mover), transform(sym, other))
}

#[derive(Args)]
pub struct ProbeBenchArgs {
    /// Directory of the tables (Morris: positions are drawn from the complete classes there,
    /// or with `--opening` from random placements; Connect Four: every ply of the board).
    #[arg(long, default_value = "tables")]
    dir: std::path::PathBuf,
    /// Positions per run.
    #[arg(long, default_value_t = 1_000_000, value_parser = at_least_one)]
    count: usize,
    /// Runs per figure; the median is reported.
    #[arg(long, default_value_t = 5, value_parser = at_least_one)]
    runs: usize,
    /// Also write the positions, one per line, to this file (for timing `probe --brief -`).
    #[arg(long)]
    write_positions: Option<std::path::PathBuf>,
}

#[derive(Args)]
pub struct ProbeMorrisArgs {
    /// Positions from random placements of the K-stone game instead (a random number of
    /// random moves from the start, the placement phase only): its opening's tables and the
    /// classes up to K-K must be in the directory.
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u32).range(3..=9))]
    opening: Option<u32>,
    #[command(flatten)]
    probe: ProbeBenchArgs,
}

/// Throughput of `probe --brief` batches (all threads) and of full move lists (one thread).
pub fn probe_morris(args: &ProbeMorrisArgs, host: &impl Host) -> Result<(), Error> {
    use tablebase::games::morris::{Class, MorrisTablebase};
    use tablebase::table::Status;

    if let Some(stones) = args.opening {
        return probe_morris_opening(host, &args.probe, stones);
    }
    let args = &args.probe;

    let classes: Vec<Class> = Class::all(MAX_STONES)
        .filter(|c| Status::of(&c.spec(&args.dir, &Standard::RULES)).is_complete())
        .collect();
    if classes.is_empty() {
        return Err(Error::NoCompleteTable { dir: args.dir.clone() });
    }
    let mut rng = SplitMix64::new(4);
    let positions: Vec<Position> = (0..args.count)
        .map(|_| {
            let class = classes[rng.below(classes.len() as u64) as usize];
            let index = class.index();
            let (m, o) = index.position(rng.below(index.size()));
            let (m, o) = scramble(&mut rng, m, o);
            let mut pos = Position::moving(m, o);
            if rng.below(2) == 1 {
                pos = Position {
                    stones: [o, m],
                    hand: [0, 0],
                    to_move: tablebase::games::morris::Color::Black,
                };
            }
            pos
        })
        .collect();
    let tb = MorrisTablebase::<Standard>::open(&args.dir, MAX_STONES as u8);
    let figures = probe_figures(host, &tb, &positions, args)?;
    figures.print(host, &format!("classes: {}; positions: {}", classes.len(), positions.len()))
}

/// The figures of `probe-morris` on positions of the placement phase of the `stones`-stone
/// game, from random games: each placement ply probed as often as games reach it.
fn probe_morris_opening(host: &impl Host, args: &ProbeBenchArgs, stones: u32) -> Result<(), Error> {
    use tablebase::games::morris::{MorrisTablebase, for_each_move};
    let mut rng = SplitMix64::new(4);
    let mut positions = Vec::with_capacity(args.count);
    let mut moves = Vec::new();
    while positions.len() < args.count {
        let mut position = Position::start(stones as u8);
        for _ in 0..rng.below(u64::from(2 * stones)) {
            moves.clear();
            for_each_move::<Standard>(&position, |_, next| moves.push(next));
            match moves.len() {
                0 => break,
                n => position = moves[rng.below(n as u64) as usize],
            }
        }
        if !position.is_moving_phase() {
            positions.push(position);
        }
    }
    let tb = MorrisTablebase::<Standard>::open(&args.dir, stones as u8);
    let figures = probe_figures(host, &tb, &positions, args)?;
    figures.print(host, &format!("the {stones}-stone opening; positions: {}", positions.len()))
}

/// What a probe costs on a game's tables: the `probe --brief` batch, the full move list and a
/// single value lookup.
struct ProbeFigures {
    /// Positions a second of `probe --brief` batches, on every thread.
    brief_rate: f64,
    /// Positions a second of full move lists, one thread.
    list_rate: f64,
    /// Moves a position of the move lists.
    moves: f64,
    /// The median single value lookup, in seconds.
    single_lookup: f64,
    /// How many single lookups were timed.
    lookups: usize,
}

impl ProbeFigures {
    fn print(&self, host: &impl Host, heading: &str) -> Result<(), Error> {
        let mut out = host.stdout();
        writeln!(
            out,
            "{heading}\nprobe --brief batch ({} threads): {:.2} M positions/s\nfull move list (1 thread): {:.2} us per position, {:.1} moves each\nsingle value lookup (1 thread): {:.2} us, median of {}",
            rayon::current_num_threads(),
            self.brief_rate / 1e6,
            1e6 / self.list_rate,
            self.moves,
            self.single_lookup * 1e6,
            self.lookups
        )
        .map_err(Error::Output)
    }
}

/// Times probes of `positions` on `tablebase`, each figure the median of `args.runs`; the
/// single lookups and move lists on the first 100,000 positions. The batch reads the positions'
/// lines in the game's notation, which `args.write_positions` also receives.
fn probe_figures<T: tablebase::Probe + Sync>(
    host: &impl Host,
    tablebase: &T,
    positions: &[T::Position],
    args: &ProbeBenchArgs,
) -> Result<ProbeFigures, Error>
where
    T::Position: Sync,
{
    let (dir, runs) = (&args.dir, args.runs);
    let text: String = positions.iter().map(|p| tablebase.notation(p) + "\n").collect();
    if let Some(path) = &args.write_positions {
        std::fs::write(path, &text).map_err(|source| Error::File { path: path.clone(), source })?;
    }
    use tablebase::probe::probe;
    // Warm up: map the tables and bring them into the page cache. Every position must be
    // answerable, or the figures would time errors: a class whose moves lead to a class that
    // is not there (a directory of some classes only) is refused here, before any timing.
    let sample = &positions[..positions.len().min(100_000)];
    for pos in sample {
        probe(tablebase, pos).map_err(|source| Error::Unanswerable { dir: dir.to_path_buf(), source })?;
    }
    match host.answer_brief(tablebase, text.as_bytes()) {
        Some(0) => {}
        Some(code) => return Err(Error::Reported(code)),
        None => return Err(Error::NoCompleteTable { dir: dir.to_path_buf() }),
    }
    let brief_rate = median_rate(runs, positions.len(), || {
        let _ = host.answer_brief(tablebase, text.as_bytes());
    });
    let mut moves = 0usize;
    let list_rate = median_rate(runs, sample.len(), || {
        moves = 0;
        for pos in sample {
            moves += probe(tablebase, pos).map_or(0, |probed| probed.moves.len());
        }
    });
    // One lookup at a time, each timed on its own: what a program that asks for a single
    // position waits (the batch above overlaps the reads of many).
    let mut lookups: Vec<f64> = sample
        .iter()
        .map(|pos| {
            let start = Instant::now();
            let _ = black_box(tablebase.value(pos));
            start.elapsed().as_secs_f64()
        })
        .collect();
    lookups.sort_by(f64::total_cmp);
    Ok(ProbeFigures {
        brief_rate,
        list_rate,
        moves: moves as f64 / sample.len() as f64,
        single_lookup: lookups[lookups.len() / 2],
        lookups: lookups.len(),
    })
}

#[derive(Args)]
pub struct ProbeConnect4Args {
    /// Board size, columns x rows.
    #[arg(long, value_parser = |text: &str| Geometry::parse(text).map_err(|e| e.to_string()))]
    size: Geometry,
    #[command(flatten)]
    probe: ProbeBenchArgs,
}

/// The figures of `probe-morris` on a Connect Four board's tables: positions from random games
/// (a random number of random legal moves from the empty board) that are still in play, so
/// each ply is probed as often as games reach it, each position through its ply's set and
/// table.
pub fn probe_connect4(args: &ProbeConnect4Args, host: &impl Host) -> Result<(), Error> {
    use tablebase::Probe;
    let g = args.size;
    let tb = Connect4Tablebase::open(&args.probe.dir, g);
    let cells = u64::from(g.width * g.height);
    let mut rng = SplitMix64::new(4);
    let mut lines = Vec::with_capacity(args.probe.count);
    while lines.len() < args.probe.count {
        let plies = rng.below(cells);
        let mut line = String::new();
        let mut heights = vec![0u32; g.width as usize];
        for _ in 0..plies {
            let open: Vec<usize> = (0..heights.len()).filter(|&c| heights[c] < g.height).collect();
            let column = open[rng.below(open.len() as u64) as usize];
            let longer = format!("{line}{}", column + 1);
            if tb.parse(&longer).is_err() {
                break; // the game ended with the move before
            }
            heights[column] += 1;
            line = longer;
        }
        // Only positions still in play: a finished game is answered without its tables.
        let in_play = (0..heights.len())
            .any(|c| heights[c] < g.height && tb.parse(&format!("{line}{}", c + 1)).is_ok());
        if in_play {
            lines.push(line);
        }
    }
    let positions: Vec<_> = lines
        .iter()
        .map(|l| tb.parse(l))
        .collect::<Result<_, _>>()
        .map_err(|source| Error::Unanswerable { dir: args.probe.dir.clone(), source })?;
    let figures = probe_figures(host, &tb, &positions, &args.probe)?;
    figures.print(host, &format!("connect4 {}x{}; positions: {}", g.width, g.height, positions.len()))
}

#[derive(Clone, Copy, clap::ValueEnum)]
pub enum MorrisGameName {
    Morris,
    Morabaraba,
}

#[derive(Args)]
pub struct MorrisForwardArgs {
    /// The variant.
    #[arg(long, value_enum, default_value = "morris")]
    game: MorrisGameName,
    /// Stones each side starts with (default: the variant's own).
    #[arg(long)]
    stones: Option<u32>,
    /// The last placement ply to count (default: the last).
    #[arg(long)]
    plies: Option<u32>,
}

/// The opening's forward pass alone, in memory (two plies' bit sets at a time): reachable
/// positions per placement ply against the reference, with the time since the start. Exit 3
/// when a count differs from the reference.
pub fn morris_forward<V: MorrisVariant>(args: &MorrisForwardArgs, host: &impl Host) -> Result<(), Error> {
    let most = V::RULES.stones;
    let stones = args.stones.unwrap_or(most);
    if !(MIN_STONES..=most).contains(&stones) {
        return Err(Error::Usage(format!(
            "--stones {stones}: {} has 3 to {most} stones a side",
            V::RULES.name
        )));
    }
    let reference = |ply| tablebase::testing::morris::placement_positions(V::RULES.key, stones, ply);
    let label = format!("{} {stones}", V::RULES.key);
    forward_counts(host, &Opening::<V>::new(stones), &label, args.plies.unwrap_or(2 * stones - 1), reference)
}

/// The forward pass of `game` alone, in memory, to layer `last`: positions per layer against
/// `reference`, with the time since the start. Exit 3 when a count differs from the reference.
fn forward_counts<G: tablebase::LayeredGame>(
    host: &impl Host,
    game: &G,
    label: &str,
    last: u32,
    reference: impl Fn(u32) -> Option<u64>,
) -> Result<(), Error> {
    let progress = host.progress();
    // Named, with its clock restarted for every ply, so that a log line says what it counts
    // and how long this ply has taken.
    progress.task(label);
    let start = Instant::now();
    let mut out = host.stdout();
    writeln!(out, "ply\tpositions\treference\tseconds").map_err(Error::Output)?;
    let mut mismatches = 0;
    tablebase::testing::reachable_counts(game, last, &progress, |ply, positions| {
        let word = match reference(ply) {
            Some(expected) if expected == positions => "match",
            Some(_) => {
                mismatches += 1;
                "mismatch"
            }
            None => "none",
        };
        progress.task(label);
        writeln!(out, "{ply}\t{positions}\t{word}\t{:.1}", start.elapsed().as_secs_f64())
            .map_err(Error::Output)
    })?;
    progress.clear();
    if mismatches > 0 { Err(Error::VerifyFailed) } else { Ok(()) }
}

#[derive(Args)]
pub struct Connect4ForwardArgs {
    /// Board size, columns x rows.
    #[arg(long, value_parser = |text: &str| Geometry::parse(text).map_err(|e| e.to_string()))]
    size: Geometry,
    /// The last ply to count (memory grows with it: two plies' bit sets over the index space).
    #[arg(long)]
    plies: u32,
}

/// The forward pass alone, in memory, to `--plies`: positions per ply against the 7x6 reference,
/// with the time since the start. Exit 3 when a count differs from the reference.
pub fn connect4_forward(args: &Connect4ForwardArgs, host: &impl Host) -> Result<(), Error> {
    let g = args.size;
    let reference = |ply| tablebase::testing::connect4::connect4_ply_positions(g.width, g.height, ply);
    forward_counts(host, &Connect4::new(g), &format!("connect4 {g}"), args.plies, reference)
}

/// The size of a search benchmark's transposition table.
#[derive(Args)]
pub struct SearchTableArgs {
    /// The transposition table's size, in MB (1 to 16384).
    #[arg(long, default_value_t = (tablebase::testing::connect4::DEFAULT_TABLE_BYTES >> 20) as u64,
          value_parser = clap::value_parser!(u64).range(1..=16384))]
    table_mb: u64,
}

impl SearchTableArgs {
    fn bytes(&self) -> usize {
        (self.table_mb as usize) << 20
    }
}

#[derive(Args)]
pub struct Connect4SearchArgs {
    /// Board size, columns x rows.
    #[arg(long, default_value = "7x6", value_parser = |text: &str| Geometry::parse(text).map_err(|e| e.to_string()))]
    size: Geometry,
    /// Positions per file, from its start (default: all).
    #[arg(long, value_parser = at_least_one)]
    count: Option<usize>,
    /// Keep the transposition table from one position to the next (default: each position is
    /// searched from an empty table, as a separate process would).
    #[arg(long)]
    keep_table: bool,
    #[command(flatten)]
    table: SearchTableArgs,
    /// Test set files: a position (columns played) and its score per line; score `s` from the
    /// side to move, a win on the winner's own `k`-th stone scoring `(W*H+1)/2 + 1 - k`.
    #[arg(required = true)]
    files: Vec<std::path::PathBuf>,
}

/// Searches every position of each test set and compares its value and distance with the
/// set's score: mean and longest time, positions searched per second. Exit 3 on a mismatch.
pub fn connect4_search(args: &Connect4SearchArgs, host: &impl Host) -> Result<(), Error> {
    use tablebase::games::connect4::parse_moves;
    use tablebase::testing::connect4::{Searcher, value_of_score};
    let g = args.size;
    let mut out = host.stdout();
    writeln!(out, "set\tpositions\texact\tmean ms\tmax ms\tmean nodes\tnodes/s").map_err(Error::Output)?;
    let mut wrong = 0;
    let mut searcher = Searcher::new(g, args.table.bytes());
    for path in &args.files {
        let text =
            std::fs::read_to_string(path).map_err(|source| Error::File { path: path.clone(), source })?;
        let (mut positions, mut exact, mut total, mut longest, mut nodes) =
            (0u64, 0u64, 0.0f64, 0.0f64, 0u64);
        for line in text.lines().filter(|l| !l.trim().is_empty()).take(args.count.unwrap_or(usize::MAX)) {
            let bad =
                || Error::Usage(format!("{}: bad line '{}'", path.display(), tablebase::text::quote(line)));
            let (moves, score) = line.trim().split_once(' ').ok_or_else(bad)?;
            let score: i32 = score.trim().parse().map_err(|_| bad())?;
            let position =
                parse_moves(&g, moves).map_err(|e| Error::Usage(format!("{}: {e}", path.display())))?;
            let expected = value_of_score(&g, position.ply, score);
            if !args.keep_table {
                searcher.clear();
            }
            let before = searcher.nodes();
            let start = Instant::now();
            let found = searcher.value(&position).map_err(Error::Search)?;
            let seconds = start.elapsed().as_secs_f64();
            positions += 1;
            total += seconds;
            longest = longest.max(seconds);
            nodes += searcher.nodes() - before;
            if found == expected {
                exact += 1;
            } else {
                wrong += 1;
                complain!("{}: {moves}: search {found}, the set {expected} (score {score})", path.display());
            }
        }
        let name =
            path.file_name().map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into_owned());
        writeln!(
            out,
            "{name}\t{positions}\t{exact}\t{:.3}\t{:.1}\t{:.0}\t{:.0}",
            1e3 * total / positions.max(1) as f64,
            1e3 * longest,
            nodes as f64 / positions.max(1) as f64,
            nodes as f64 / total.max(1e-9)
        )
        .map_err(Error::Output)?;
    }
    if wrong > 0 { Err(Error::VerifyFailed) } else { Ok(()) }
}

#[derive(Args)]
pub struct Connect4BookArgs {
    /// Board size, columns x rows.
    #[arg(long, default_value = "7x6", value_parser = |text: &str| Geometry::parse(text).map_err(|e| e.to_string()))]
    size: Geometry,
    /// The ply whose positions are searched (the book's last ply).
    #[arg(long)]
    ply: u32,
    /// Runs of consecutive reachable positions, each from a random one.
    #[arg(long, default_value_t = 4, value_parser = at_least_one)]
    runs: usize,
    /// Positions per run.
    #[arg(long, default_value_t = 250, value_parser = at_least_one)]
    count: usize,
    /// Seed of the runs' starting points.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    #[command(flatten)]
    table: SearchTableArgs,
}

/// Searches runs of consecutive reachable positions of one ply, each run with the
/// transposition table kept from position to position (as a book's solve does), and
/// extrapolates the CPU time of the whole ply.
pub fn connect4_book(args: &Connect4BookArgs, host: &impl Host) -> Result<(), Error> {
    use tablebase::LayeredGame;
    use tablebase::testing::connect4::Searcher;
    let g = args.size;
    if args.ply >= g.cells() {
        return Err(Error::Usage(format!(
            "--ply {}: the {g} board has plies 0 to {}",
            args.ply,
            g.cells() - 1
        )));
    }
    let game = Connect4::new(g);
    let progress = host.progress();
    let set = tablebase::testing::reachable_set(&game, args.ply, &progress);
    progress.clear();
    let members = set.len();
    let mut rng = SplitMix64::new(args.seed);
    let mut out = host.stdout();
    writeln!(out, "run\tfirst index\tpositions\tmean ms\tmax ms\tnodes/s\tverify mean ms")
        .map_err(Error::Output)?;
    let (mut total, mut searched, mut total_confirm) = (0.0f64, 0u64, 0.0f64);
    for run in 0..args.runs {
        let mut searcher = Searcher::new(g, args.table.bytes());
        // What verify does with each value: its own table, kept from position to position.
        let mut prover = Searcher::new(g, args.table.bytes());
        let mut confirming = 0.0f64;
        // From a random index onwards, wrapping round at the end of the index range.
        let first = rng.below(set.capacity());
        let (mut seconds, mut longest, mut count) = (0.0f64, 0.0f64, 0u64);
        let mut walker = Default::default();
        let mut indices = (first..set.capacity()).chain(0..first);
        // A position of 7x6's ply 8 takes a second or more: a run is minutes, to be seen going.
        progress.task(&format!("connect4 {g} ply {} run {run}", args.ply));
        progress.phase("search and confirm", args.count as u64);
        while count < args.count as u64
            && let Some(index) = indices.next()
        {
            if set.contains(index) {
                let position = game.position(args.ply, &mut walker, index);
                let start = Instant::now();
                let value = searcher.value(&position).map_err(Error::Search)?;
                let took = start.elapsed().as_secs_f64();
                (seconds, longest, count) = (seconds + took, longest.max(took), count + 1);
                let start = Instant::now();
                let proved = prover.confirms(&position, value).map_err(Error::Search)?;
                confirming += start.elapsed().as_secs_f64();
                if !proved {
                    return Err(Error::NotConfirmed { index, value });
                }
                progress.advance(1);
            }
        }
        progress.clear();
        writeln!(
            out,
            "{run}\t{first}\t{count}\t{:.3}\t{:.1}\t{:.0}\t{:.3}",
            1e3 * seconds / count.max(1) as f64,
            1e3 * longest,
            searcher.nodes() as f64 / seconds.max(1e-9),
            1e3 * confirming / count.max(1) as f64
        )
        .map_err(Error::Output)?;
        (total, searched, total_confirm) = (total + seconds, searched + count, total_confirm + confirming);
    }
    let (mean, mean_confirm) = (total / searched.max(1) as f64, total_confirm / searched.max(1) as f64);
    writeln!(
        out,
        "ply {}: {members} reachable positions up to mirror images; mean {:.3} ms a position; the ply takes about {:.1} CPU-hours to build and {:.1} to verify",
        args.ply,
        1e3 * mean,
        mean * members as f64 / 3600.0,
        mean_confirm * members as f64 / 3600.0
    )
    .map_err(Error::Output)
}

#[derive(Clone, Copy, clap::ValueEnum)]
pub enum CubeGameName {
    Qubic,
    Sogo,
}

#[derive(Args)]
pub struct CubeProveArgs {
    /// The game.
    game: CubeGameName,
    /// The position: the moves played (`a11d44` in Qubic, `a1b2` in Sogo; "" is the empty cube).
    position: String,
    /// Prove that the side not to move wins, instead of the side to move.
    #[arg(long)]
    other: bool,
    /// Give up after this many seconds.
    #[arg(long, value_name = "S", value_parser = tablebase::text::parse_seconds)]
    max_time: Option<f64>,
    /// Memory of the prover's tables, in MB (1 to 1048576, and at most what the process can be
    /// given).
    #[arg(long, default_value_t = 2048, value_parser = clap::value_parser!(u64).range(1..=1 << 20))]
    table_mb: u64,
    /// Prove by a proof-number search over a tree of positions kept in memory, each leaf
    /// searched by the prover for about this many nodes (PN²), instead of one prover search.
    #[arg(long, value_name = "NODES", value_parser = at_least_one)]
    split: Option<usize>,
    /// Decide it by one null-window alpha-beta search around a draw (the exact search's
    /// engine, its transposition table of `--table-mb`) instead of the proof-number search.
    #[arg(long, conflicts_with = "split")]
    alpha_beta: bool,
    /// Keys the least over the game's symmetries up to this ply only (the game's own choice
    /// if not given).
    #[arg(long, value_name = "PLY")]
    symmetric_plies: Option<u32>,
    /// Prove that the side to move wins by search alone, in parts, on this many threads: its
    /// moves in order of promise, and after each every reply (up to symmetry) proved on its
    /// own, each thread a prover of `--table-mb`.
    #[arg(long, value_name = "THREADS", value_parser = at_least_one, conflicts_with_all = ["split", "alpha_beta", "other", "symmetric_plies"])]
    parts: Option<usize>,
    /// With `--parts`: a part still open after a pass, where at most two of its first move's
    /// parts are, becomes a proof by parts of its own (one more of its moves open each pass, each
    /// with every reply a part given a round in the first pass), down to this many levels.
    #[arg(long, value_name = "LEVELS", requires = "parts", default_value_t = 0)]
    parts_depth: usize,
    /// With `--parts-depth`: a first move's parts are split when at most this many of them are
    /// still open after a pass (more: the move is weak, and the next is tried instead).
    #[arg(long, value_name = "PARTS", requires = "parts", default_value_t = tablebase::games::cube::parts::SPLIT_OPEN_PARTS as u64, value_parser = clap::value_parser!(u64).range(1..64))]
    split_open_parts: u64,
    /// With `--parts`: read what earlier proofs by parts showed from this journal (a part
    /// recorded there is settled at once) and record there what this one shows, so that a
    /// proof stopped goes on where it stopped (made if missing).
    #[arg(long, value_name = "FILE", requires = "parts")]
    journal: Option<std::path::PathBuf>,
    /// Decide it as `probe` does, without a time limit (the exact search for a moment, then the
    /// prover, along White's strategy in Qubic), on every core: the outcome and the seconds.
    #[arg(long, conflicts_with_all = ["split", "alpha_beta", "other", "symmetric_plies", "parts"])]
    strategy: bool,
}

/// A proof by parts of `position`, with the journal `--journal` names if any: outcomes read
/// from it, and what the proof shows recorded there under the moves from the empty cube.
fn prove_by_parts_journaled<const GRAVITY: bool>(
    args: &CubeProveArgs,
    position: &tablebase::games::cube::Position,
    settings: &tablebase::games::cube::parts::PartsSettings,
    report: &tablebase::games::cube::parts::PartReport<'_>,
    report_pass: &tablebase::games::cube::parts::PassReport<'_>,
) -> Result<tablebase::games::cube::parts::PartsProof, Error> {
    use tablebase::games::cube::board::{play_qubic, play_sogo};
    use tablebase::games::cube::parts::{JournalAt, PartsJournal, prove_by_parts};
    let Some(path) = &args.journal else {
        return prove_by_parts::<GRAVITY>(position, settings, None, report, report_pass)
            .map_err(Error::Search);
    };
    let journal = PartsJournal::<GRAVITY>::open(path).map_err(Error::Journal)?;
    let played = if GRAVITY { play_sogo(&args.position) } else { play_qubic(&args.position) };
    let (_, moves) = played.map_err(|e| Error::Usage(e.to_string()))?;
    let at = JournalAt { journal: &journal, moves: &moves };
    prove_by_parts::<GRAVITY>(position, settings, Some(at), report, report_pass).map_err(Error::Search)
}

#[derive(Args)]
pub struct SogoProveArgs {
    /// The positions: the columns played (`b2c3c2`; "" is the empty cube), or a position as
    /// `tables/sogo-proof.journal` writes it (four layers from the floor up, `|` between them,
    /// rows `/`, `x` White, `o` Black, `.` empty), to re-prove a record of the journal.
    positions: Vec<String>,
    /// Also prove the positions of this file, one a line (blank lines and lines from `#` on are
    /// skipped), after those of the arguments. Every position is proved on the same table.
    #[arg(long)]
    file: Option<std::path::PathBuf>,
    /// Prove that the side not to move wins, instead of the side to move; with `--both`, each
    /// side in turn (a draw is two failed proofs).
    #[arg(long)]
    other: bool,
    /// Prove for both sides: the side to move, then the other (on the same table).
    #[arg(long, conflicts_with = "other")]
    both: bool,
    /// The knowledge to use: `all`, `none`, names (`live-lines,claimeven,dead-cells,ordering,zugzwang,column-pairs,probes,other-side`)
    /// or `no-` names to leave out.
    #[arg(long, default_value = "all")]
    knowledge: String,
    /// Give up on a position after this many seconds.
    #[arg(long, value_name = "S", value_parser = tablebase::text::parse_seconds)]
    max_time: Option<f64>,
    /// Memory of the prover's table, in MB (at least 128).
    #[arg(long, default_value_t = 2048, value_parser = at_least_one)]
    table_mb: usize,
    /// Threads proving each position together, sharing the table (1 to 256).
    #[arg(long, default_value_t = 1, value_parser = thread_count)]
    threads: usize,
    /// After each proof, prove the position again on a fresh table with the moves ordered by
    /// the first proof's outcomes (those that achieve the mover's aim first): what an order
    /// that good would save. One thread.
    #[arg(long)]
    order_by_proof: bool,
    /// Prove by proof numbers (df-pn) with the same knowledge and table of outcomes: alone, on
    /// one thread, positions left open starting at `unit` numbers (1, 1) or at `moves` (1,
    /// their number of moves); or `either`, beside the depth-first search (one thread by
    /// numbers, the others depth first; on one thread, rounds of each in turn), as `probe` and
    /// `generate` prove. `--table-mb` is the outcomes', and as much again holds the numbers.
    #[arg(long, value_name = "HOW", value_parser = ["unit", "moves", "either"])]
    df_pn: Option<String>,
}

/// The longest line of `sogo-prove --file`: a position with a long comment, far beyond any
/// position (the cube notation is 79 bytes), short enough that a line without end is refused
/// before it takes the machine's memory.
const MOST_LINE_BYTES: usize = 64 << 10;

/// Proves Sogo positions with [`tablebase::games::cube::sogo::SogoProver`].
pub fn sogo_prove(args: &SogoProveArgs, host: &impl Host) -> Result<(), Error> {
    use tablebase::games::cube::parse_sogo;
    use tablebase::games::cube::sogo::{FirstNumbers, Knowledge, SogoProver, parse_notation};
    // The journal's notation where the text has its layers, else the columns played.
    let parse_sogo = |text: &str| match text.contains('|') {
        true => parse_notation(text).ok_or_else(|| {
            "not a Sogo position as the proof journal writes it (4 layers of 4 rows of 4 of `x`, `o`, \
             `.`; no stone floating, White's stones as many as Black's or one more, no line finished)"
                .to_string()
        }),
        false => parse_sogo(text).map_err(|e| e.to_string()),
    };
    let knowledge =
        Knowledge::parse(&args.knowledge).map_err(|e| Error::Usage(format!("--knowledge: {e}")))?;
    // Every position is read before the first proof, so that a bad line fails at once.
    let mut positions = Vec::new();
    for text in &args.positions {
        let position = parse_sogo(text).map_err(|e| Error::Usage(format!("position {text:?}: {e}")))?;
        positions.push((text.clone(), position));
    }
    if let Some(path) = &args.file {
        let file = std::fs::File::open(path).map_err(|source| Error::File { path: path.clone(), source })?;
        let mut listed = std::io::BufReader::new(file);
        for number in 0.. {
            let read = read_line_within(&mut listed, MOST_LINE_BYTES);
            let line = match read.map_err(|source| Error::File { path: path.clone(), source })? {
                None => break,
                Some(BoundedLine::Whole(line)) => String::from_utf8_lossy(&line).into_owned(),
                Some(BoundedLine::TooLong) => {
                    let why = format!("longer than {MOST_LINE_BYTES} bytes: not a position");
                    return Err(Error::Usage(format!("{}, line {}: {why}", path.display(), number + 1)));
                }
            };
            let text = line.split('#').next().unwrap_or("").trim();
            if text.is_empty() {
                continue;
            }
            let position = parse_sogo(text)
                .map_err(|e| Error::Usage(format!("{}, line {}: {e}", path.display(), number + 1)))?;
            positions.push((text.to_string(), position));
        }
    }
    if positions.is_empty() {
        let hint = match &args.file {
            Some(path) => format!("{} holds none (blank and `#` lines are skipped)", path.display()),
            None => "give them as arguments (\"\" is the empty cube) or one a line in --file".to_string(),
        };
        return Err(Error::Usage(format!("no positions to prove: {hint}")));
    }
    if args.order_by_proof && args.threads > 1 {
        return Err(Error::Usage("--order-by-proof proves on one thread: leave out --threads".to_string()));
    }
    if args.df_pn.is_some() && args.order_by_proof {
        return Err(Error::Usage(
            "--df-pn orders the moves by its numbers: leave out --order-by-proof".to_string(),
        ));
    }
    let mut prover = SogoProver::new(knowledge, args.table_mb << 20).on_huge_pages();
    let mut by_numbers = false;
    if let Some(first) = args.df_pn.as_deref() {
        let (first, alone) = match first {
            "unit" => (FirstNumbers::Unit, true),
            "moves" => (FirstNumbers::Moves, true),
            _ => (FirstNumbers::Moves, false),
        };
        prover = prover.with_numbers(args.table_mb << 20, first);
        by_numbers = alone;
    }
    let mut helpers: Vec<SogoProver> = (1..args.threads).map(|_| prover.helper()).collect();
    let mut out = host.stdout();
    writeln!(out, "position\tattacker\toutcome\tnodes\tby rule\tseconds\tpeak MB").map_err(Error::Output)?;
    let sides: &[bool] = match (args.both, args.other) {
        (true, _) => &[true, false],
        (false, true) => &[false],
        (false, false) => &[true],
    };
    // A proof's row: its outcome, its nodes and the positions settled by rule.
    let settled = |proved: Result<
        tablebase::games::cube::sogo::SogoProof,
        tablebase::search::SearchError,
    >| {
        match proved {
            Ok(proof) => Ok((
                if proof.attacker_wins { "wins" } else { "does not win" },
                proof.nodes,
                proof.by_rule.to_string(),
            )),
            Err(tablebase::search::SearchError::TimeLimit { nodes, .. }) => {
                Ok(("out of time", nodes, String::new()))
            }
            Err(e) => Err(Error::Search(e)),
        }
    };
    for (text, position) in &positions {
        for &attacker_to_move in sides {
            let attacker = if attacker_to_move { "mover" } else { "other" };
            let start = Instant::now();
            prover.set_time_limit(args.max_time);
            let proved = match by_numbers {
                true => prover.prove_by_numbers(position, attacker_to_move),
                false => prover.prove_together(&mut helpers, position, attacker_to_move),
            };
            let (outcome, nodes, by_rule) = settled(proved)?;
            write_proof_row(&mut out, text, attacker, (outcome, nodes, &by_rule), start)?;
            if args.order_by_proof && outcome != "out of time" {
                prover.order_by_last_proof();
                let start = Instant::now();
                prover.set_time_limit(args.max_time);
                let (outcome, nodes, by_rule) = settled(prover.prove(position, attacker_to_move))?;
                prover.forget_order();
                let label = format!("{attacker}, ordered by its proof");
                write_proof_row(&mut out, text, &label, (outcome, nodes, &by_rule), start)?;
            }
        }
    }
    Ok(())
}

/// One row of `bench sogo-prove`: the position, the attacker, the outcome, its nodes and the
/// positions settled by rule, the seconds since `start` and the peak memory.
fn write_proof_row(
    out: &mut impl Write,
    text: &str,
    attacker: &str,
    (outcome, nodes, by_rule): (&str, u64, &str),
    start: Instant,
) -> Result<(), Error> {
    let seconds = start.elapsed().as_secs_f64();
    let peak = peak_resident_mb().map_or(String::new(), |mb| mb.to_string());
    writeln!(out, "{text}\t{attacker}\t{outcome}\t{nodes}\t{by_rule}\t{seconds:.2}\t{peak}")
        .map_err(Error::Output)
}

/// The process's peak resident memory in MB (`VmHWM`), where the system tells it.
fn peak_resident_mb() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    Some(line.split_whitespace().nth(1)?.parse::<u64>().ok()? / 1024)
}

/// Proves whether the side to move (or with `--other` the other side) wins a cube position.
pub fn cube_prove(args: &CubeProveArgs, host: &impl Host) -> Result<(), Error> {
    use tablebase::games::cube::board::{move_name, parse_qubic, parse_sogo};
    use tablebase::games::cube::search::{CubeLines, Qubic, Sogo};
    use tablebase::search::{LineGame, ProofTree, Prover, Searcher};
    fn prove<G: LineGame>(
        game: G,
        position: &G::Position,
        args: &CubeProveArgs,
        move_name: impl Fn(u32) -> String,
    ) -> Result<String, Error> {
        let start = Instant::now();
        if args.alpha_beta {
            let mut searcher = Searcher::<G>::new(game, (args.table_mb as usize) << 20);
            searcher.set_time_limit(args.max_time);
            let wins = searcher.wins(position, !args.other).map_err(Error::Search)?;
            let outcome = if wins { "wins" } else { "does not win" };
            let seconds = start.elapsed().as_secs_f64();
            return Ok(format!("{outcome}\t{}\t\t\t{seconds:.1}", searcher.nodes()));
        }
        let mut prover = Prover::<G>::new(game, (args.table_mb as usize) << 20).on_huge_pages();
        prover.set_time_limit(args.max_time);
        // The columns: outcome, proof nodes, threat nodes, stored (a tree gives its prover's
        // nodes together, with the tree's size).
        let (wins, nodes, threat_nodes, stored) = match args.split {
            Some(budget) => {
                let proof = ProofTree::new(prover, budget as u64)
                    .prove(position, !args.other)
                    .map_err(Error::Search)?;
                let tree = format!(
                    "{} (tree: {} positions, {} expanded)",
                    proof.prover_nodes, proof.tree_positions, proof.expansions
                );
                (proof.attacker_wins, tree, String::new(), String::new())
            }
            None => {
                let proof = prover.prove(position, !args.other).map_err(Error::Search)?;
                if proof.attacker_wins && !args.other {
                    let moves = prover.proved_moves(position);
                    let names: Vec<String> =
                        (0..64).filter(|i| moves >> i & 1 != 0).map(&move_name).collect();
                    match names.is_empty() {
                        true => eprintln!("winning moves the table holds: none (won at the position itself)"),
                        false => eprintln!("winning moves the table holds: {}", names.join(" ")),
                    }
                }
                (
                    proof.attacker_wins,
                    proof.nodes.to_string(),
                    proof.threat_nodes.to_string(),
                    proof.stored.to_string(),
                )
            }
        };
        let outcome = if wins { "wins" } else { "does not win" };
        Ok(format!("{outcome}\t{nodes}\t{threat_nodes}\t{stored}\t{:.1}", start.elapsed().as_secs_f64()))
    }
    /// The game with the keys `--symmetric-plies` asks for.
    fn game<const GRAVITY: bool>(game: CubeLines<GRAVITY>, args: &CubeProveArgs) -> CubeLines<GRAVITY> {
        match args.symmetric_plies {
            Some(plies) => game.with_symmetric_plies(plies),
            None => game,
        }
    }
    let bad = |e: tablebase::games::cube::MovesError| Error::Usage(format!("position: {e}"));
    let wanted = args.table_mb << 20;
    if let Some(available) = tablebase::resources::available_memory()
        && wanted > available
    {
        return Err(Error::Memory {
            what: format!("--table-mb {}", args.table_mb),
            needed: wanted,
            available,
        });
    }
    let position = match args.game {
        CubeGameName::Qubic => parse_qubic(&args.position),
        CubeGameName::Sogo => parse_sogo(&args.position),
    }
    .map_err(bad)?;
    let name: fn(u32) -> String = match args.game {
        CubeGameName::Qubic => move_name::<false>,
        CubeGameName::Sogo => move_name::<true>,
    };
    if args.strategy {
        use tablebase::games::cube::solver::CubeSolver;
        let start = Instant::now();
        let value = match args.game {
            CubeGameName::Qubic => CubeSolver::<false>::default().outcome(&position),
            CubeGameName::Sogo => CubeSolver::<true>::default().outcome(&position),
        };
        let mut out = host.stdout();
        writeln!(out, "value\tseconds").map_err(Error::Output)?;
        writeln!(out, "{value}\t{:.1}", start.elapsed().as_secs_f64()).map_err(Error::Output)?;
        return Ok(());
    }
    if let Some(threads) = args.parts {
        use tablebase::games::cube::parts::{OpenMove, PartsSettings, RoundLength};
        let start = Instant::now();
        let settings = PartsSettings {
            threads,
            table_bytes: (args.table_mb as usize) << 20,
            max_time: args.max_time,
            first_round: RoundLength::DEFAULT,
            split_depth: args.parts_depth,
            split_open_parts: args.split_open_parts as usize,
        };
        // Each search of a part on standard error as it ends: the moves from the root to the
        // part in the order played (White's marked `x`, Black's `o`), what the search asked,
        // its outcome and seconds.
        let white_to_move = position.ply.is_multiple_of(2);
        let marked = |i: usize, cell: u32| {
            let white = i.is_multiple_of(2) == white_to_move;
            format!("{}{}", if white { 'x' } else { 'o' }, name(cell))
        };
        let line = |path: &[u32]| {
            path.iter().enumerate().map(|(i, &cell)| marked(i, cell)).collect::<Vec<_>>().join(" ")
        };
        let report = |part: &[u32], alone: Option<u32>, outcome: Option<bool>, seconds: f64| {
            let question = match alone {
                None => String::from("side to move wins?"),
                Some(cell) => format!("after {}, the other side wins?", marked(part.len(), cell)),
            };
            let outcome = match outcome {
                Some(true) => "yes",
                Some(false) => "no",
                None => "out of time",
            };
            eprintln!("part {}: {question} {outcome} ({seconds:.1} s)", line(part));
        };
        // What stands after a pass, and where the time ran out: each open move, indented by
        // its depth below the first moves, with its replies not proved.
        let report_pass = |pass: usize, untried: usize, open: &[OpenMove]| {
            eprintln!("open after pass {pass} ({untried} first moves not tried):");
            for open_move in open {
                let replies: Vec<String> = open_move
                    .open
                    .iter()
                    .map(|reply| {
                        let cell = marked(open_move.path.len(), reply.cell);
                        match reply.split_untried {
                            Some(untried) => format!("{cell} (split, {untried} moves not tried)"),
                            None => cell,
                        }
                    })
                    .collect();
                eprintln!(
                    "  {}{}: {} of {} replies proved; open: {}",
                    "  ".repeat((open_move.path.len() - 1) / 2),
                    line(&open_move.path),
                    open_move.proved,
                    open_move.parts,
                    replies.join(", ")
                );
            }
        };
        let proof = match args.game {
            CubeGameName::Qubic => {
                prove_by_parts_journaled::<false>(args, &position, &settings, &report, &report_pass)
            }
            CubeGameName::Sogo => {
                prove_by_parts_journaled::<true>(args, &position, &settings, &report, &report_pass)
            }
        }?;
        let mut out = host.stdout();
        writeln!(out, "attacker\toutcome\tfirst move\tfirst moves tried\tparts\tpasses\tsearches\tcut short\tjoins\tstopped\tsplits\tfrom journal\tseconds")
            .map_err(Error::Output)?;
        let outcome = if proof.wins { "wins" } else { "does not win" };
        let first = proof.first_move.map_or(String::from("-"), name);
        let seconds = start.elapsed().as_secs_f64();
        writeln!(
            out,
            "the side to move\t{outcome}\t{first}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{seconds:.1}",
            proof.first_moves_tried,
            proof.parts,
            proof.passes,
            proof.searches,
            proof.cut_short,
            proof.joins,
            proof.stopped,
            proof.splits,
            proof.from_journal
        )
        .map_err(Error::Output)?;
        return Ok(());
    }
    let line = match args.game {
        CubeGameName::Qubic => prove(game(Qubic::new(), args), &position, args, name)?,
        CubeGameName::Sogo => prove(game(Sogo::new(), args), &position, args, name)?,
    };
    let attacker = if args.other { "the side not to move" } else { "the side to move" };
    let mut out = host.stdout();
    writeln!(out, "attacker\toutcome\tproof nodes\tthreat nodes\tstored\tseconds").map_err(Error::Output)?;
    writeln!(out, "{attacker}\t{line}").map_err(Error::Output)?;
    Ok(())
}
