//! The command line (SPEC section 1): argument parsing and dispatch to the library.

use crate::bench;
use crate::connect4::{self, Connect4Tablebase, Geometry};
use crate::error::Error;
use crate::morris::ClassIndex;
use crate::morris::MorrisTablebase;
use crate::morris::index::MAX_STONES;
use crate::morris::notation::PositionText;
use crate::morris::tables::{self, Class};
use crate::probe::{Format, Probe, answer, answer_lines, worse};
use crate::progress::Progress;
use crate::reference::morris_class_size;
use crate::table::{Counts, Status, TableError, TableReport};
use crate::value::Value;
use clap::{Args, Parser, Subcommand};
use std::io::Write;
use std::path::PathBuf;

#[derive(Parser)]
#[command(name = "tablebase", version, about = "Strong solutions of board games by retrograde analysis")]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Generate tables (resumable: finished tables are skipped).
    Generate {
        #[command(subcommand)]
        game: GenerateGame,
    },
    /// Value, distance, every move and the best line of positions.
    Probe {
        #[command(subcommand)]
        game: ProbeGame,
    },
    /// Check tables: headers, checksums, reference counts, and every value from its successors.
    Verify {
        #[command(subcommand)]
        game: VerifyGame,
    },
    /// List every table a game needs, with its index size, positions and status.
    Info {
        #[command(subcommand)]
        game: InfoGame,
    },
    /// Measure the speed of the building blocks (single thread).
    Bench {
        #[command(subcommand)]
        target: BenchTarget,
    },
}

#[derive(Subcommand)]
enum GenerateGame {
    /// Nine Men's Morris.
    Morris(MorrisGenerateArgs),
    /// Connect Four.
    Connect4(Connect4GenerateArgs),
}

fn parse_size(text: &str) -> Result<Geometry, String> {
    Geometry::parse(text).map_err(|e| e.to_string())
}

#[derive(Args)]
struct Connect4TablesArgs {
    /// Board size, columns x rows (7x6 is the standard board).
    #[arg(long, value_parser = parse_size)]
    size: Geometry,
    /// Directory of the tables.
    #[arg(long, default_value = "tables")]
    dir: PathBuf,
}

#[derive(Args)]
struct Connect4GenerateArgs {
    #[command(flatten)]
    tables: Connect4TablesArgs,
    /// Worker threads (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
}

/// How `probe` answers, for every game.
#[derive(Args)]
struct ProbeOutputArgs {
    /// One JSON object per position (SPEC section 5).
    #[arg(long, conflicts_with = "brief")]
    json: bool,
    /// One line per position: value and plies, no moves.
    #[arg(long)]
    brief: bool,
    /// Add the best line (principal variation).
    #[arg(long)]
    line: bool,
}

#[derive(Args)]
struct Connect4ProbeArgs {
    #[command(flatten)]
    tables: Connect4TablesArgs,
    #[command(flatten)]
    output: ProbeOutputArgs,
    /// Positions as the columns played from the empty board ("4453"; "" is the empty board), or
    /// - to read one per line from standard input.
    positions: Vec<String>,
}

#[derive(Args)]
struct Connect4VerifyArgs {
    #[command(flatten)]
    tables: Connect4TablesArgs,
    /// One JSON object per table (SPEC section 5).
    #[arg(long)]
    json: bool,
    /// Headers, checksums and counts only, without recomputing values.
    #[arg(long)]
    quick: bool,
    /// Worker threads (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
}

#[derive(Args)]
struct Connect4InfoArgs {
    #[command(flatten)]
    tables: Connect4TablesArgs,
    /// One JSON object per table (SPEC section 5).
    #[arg(long)]
    json: bool,
}

#[derive(Subcommand)]
enum ProbeGame {
    /// Nine Men's Morris.
    Morris(MorrisProbeArgs),
    /// Connect Four.
    Connect4(Connect4ProbeArgs),
}

#[derive(Args)]
struct MorrisProbeArgs {
    #[command(flatten)]
    tables: MorrisTablesArgs,
    #[command(flatten)]
    output: ProbeOutputArgs,
    /// Positions (quote each: 'W:a1,d1,g1 B:a4,b4,c4 b'), or - to read one per line from
    /// standard input.
    positions: Vec<String>,
}

#[derive(Subcommand)]
enum VerifyGame {
    /// Nine Men's Morris.
    Morris(MorrisVerifyArgs),
    /// Connect Four.
    Connect4(Connect4VerifyArgs),
}

#[derive(Subcommand)]
enum InfoGame {
    /// Nine Men's Morris.
    Morris(MorrisInfoArgs),
    /// Connect Four.
    Connect4(Connect4InfoArgs),
}

#[derive(Args)]
struct MorrisTablesArgs {
    /// Directory of the tables.
    #[arg(long, default_value = "tables")]
    dir: PathBuf,
    /// Stones each side starts with (3..9).
    #[arg(long, default_value_t = 9, value_parser = clap::value_parser!(u8).range(3..=9))]
    stones: u8,
}

#[derive(Args)]
struct MorrisGenerateArgs {
    #[command(flatten)]
    tables: MorrisTablesArgs,
    /// Worker threads (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
    /// Only the moving-phase classes needed for class A-B.
    #[arg(long, value_name = "A-B")]
    up_to: Option<String>,
    /// Moving phase only, without the placement-phase (opening) tables.
    #[arg(long)]
    no_opening: bool,
}

#[derive(Args)]
struct MorrisVerifyArgs {
    #[command(flatten)]
    tables: MorrisTablesArgs,
    /// One JSON object per table (SPEC section 5).
    #[arg(long)]
    json: bool,
    /// Headers, checksums and counts only, without recomputing values.
    #[arg(long)]
    quick: bool,
    /// Only the moving-phase classes needed for class A-B.
    #[arg(long, value_name = "A-B")]
    up_to: Option<String>,
    /// Worker threads (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
}

#[derive(Args)]
struct MorrisInfoArgs {
    #[command(flatten)]
    tables: MorrisTablesArgs,
    /// One JSON object per table (SPEC section 5).
    #[arg(long)]
    json: bool,
}

#[derive(Subcommand)]
enum BenchTarget {
    /// Index, un-index, move and un-move generation per Morris class.
    Morris(bench::MorrisBenchArgs),
    /// Probing speed on the Morris tables in a directory.
    ProbeMorris(bench::ProbeBenchArgs),
    /// The Connect Four forward pass alone, counted per ply against the reference.
    Connect4Forward(bench::Connect4ForwardArgs),
}

/// Runs the command line.
pub fn run(cli: Cli) -> Result<(), Error> {
    match cli.command {
        Command::Generate { game: GenerateGame::Morris(args) } => generate_morris(&args),
        Command::Generate { game: GenerateGame::Connect4(args) } => generate_connect4(&args),
        Command::Probe { game: ProbeGame::Morris(args) } => probe_morris(&args),
        Command::Probe { game: ProbeGame::Connect4(args) } => probe_connect4(&args),
        Command::Verify { game: VerifyGame::Connect4(args) } => verify_connect4(&args),
        Command::Info { game: InfoGame::Connect4(args) } => info_connect4(&args),
        Command::Verify { game: VerifyGame::Morris(args) } => verify_morris(&args),
        Command::Info { game: InfoGame::Morris(args) } => info_morris(&args),
        Command::Bench { target: BenchTarget::Morris(args) } => bench::morris(&args),
        Command::Bench { target: BenchTarget::ProbeMorris(args) } => bench::probe_morris(&args),
        Command::Bench { target: BenchTarget::Connect4Forward(args) } => bench::connect4_forward(&args),
    }
}

fn set_threads(threads: Option<usize>) -> Result<(), Error> {
    if let Some(n) = threads {
        if n == 0 {
            return Err(Error::Usage("--threads must be at least 1".into()));
        }
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build_global()
            .map_err(|e| Error::Usage(format!("--threads {n}: {e}")))?;
    }
    Ok(())
}

/// The class named by `--up-to`, or the largest class of a game with `stones` per side.
fn target_class(up_to: Option<&str>, stones: u8) -> Result<Option<Class>, Error> {
    match up_to {
        Some(text) => Class::parse(text)
            .map(Some)
            .ok_or_else(|| Error::Usage(format!("--up-to '{text}': expected A-B with A and B in 3..9"))),
        None if stones < 9 => Ok(Class::new(stones.into(), stones.into())),
        None => Ok(None),
    }
}

fn generate_morris(args: &MorrisGenerateArgs) -> Result<(), Error> {
    let target = target_class(args.up_to.as_deref(), args.tables.stones)?;
    if !args.no_opening {
        return Err(Error::Usage(
            "the placement-phase (opening) tables are not built yet: run with --no-opening".into(),
        ));
    }
    set_threads(args.threads)?;
    let progress = Progress::stderr();
    tables::generate(&args.tables.dir, target, &progress)?;
    Ok(())
}

fn probe_morris(args: &MorrisProbeArgs) -> Result<(), Error> {
    let game = MorrisTablebase::open(&args.tables.dir, args.tables.stones);
    run_probe(&game, &args.positions, &args.output)
}

fn generate_connect4(args: &Connect4GenerateArgs) -> Result<(), Error> {
    set_threads(args.threads)?;
    let progress = Progress::stderr();
    connect4::tables::generate(&args.tables.dir, args.tables.size, &progress)
        .map_err(|e| Error::Runtime(e.to_string()))
}

fn probe_connect4(args: &Connect4ProbeArgs) -> Result<(), Error> {
    let game = Connect4Tablebase::open(&args.tables.dir, args.tables.size);
    run_probe(&game, &args.positions, &args.output)
}

fn verify_connect4(args: &Connect4VerifyArgs) -> Result<(), Error> {
    set_threads(args.threads)?;
    let g = args.tables.size;
    let progress = Progress::stderr();
    let checks = connect4::tables::verify(&args.tables.dir, g, args.quick, &progress)
        .map_err(|e| Error::Runtime(e.to_string()))?;
    // Board-level figures (total, empty board's value and end ply) are checked on ply 0.
    let total: u64 = checks.iter().map(|c| c.counts.positions()).sum();
    let board_match = crate::reference::connect4_board(g.width, g.height).map(|(positions, value, end)| {
        let empty = Connect4Tablebase::open(&args.tables.dir, g);
        let v =
            empty.value(&connect4::probe::Game { position: connect4::Position::EMPTY, moves: String::new() });
        let value_ok = match (value, v) {
            ("first", Ok(Value::Win(n))) | ("second", Ok(Value::Loss(n))) => end.is_none_or(|e| e == n),
            ("draw", Ok(Value::Draw)) => true,
            _ => false,
        };
        value_ok && positions.is_none_or(|p| p == total)
    });
    let mut out = std::io::stdout().lock();
    let mut failed = false;
    for check in &checks {
        let reference_match = if check.ply == 0 {
            match (check.reference_match, board_match) {
                (Some(a), Some(b)) => Some(a && b),
                (a, b) => a.or(b),
            }
        } else {
            check.reference_match
        };
        let report = TableReport {
            game: connect4::tables::GAME,
            table: format!("ply {}", check.ply),
            counts: check.counts,
            checksum_ok: check.checksum_ok,
            consistent: check.consistent,
            reference_match,
        };
        if !check.checksum_ok || check.consistent == Some(false) || reference_match == Some(false) {
            eprintln!("tablebase: connect4 {g} ply {}: verification failed", check.ply);
            failed = true;
        }
        writeln!(out, "{}", if args.json { report.json() } else { report.text() })?;
    }
    if failed { Err(Error::VerifyFailed) } else { Ok(()) }
}

fn info_connect4(args: &Connect4InfoArgs) -> Result<(), Error> {
    let g = args.tables.size;
    let mut out = std::io::stdout().lock();
    if !args.json {
        writeln!(out, "Connect Four {g}: one table per ply (stones on the board)")?;
        writeln!(
            out,
            "{:<7} {:>14} {:>14}  {:<9} {:>13} {:>13} {:>13}",
            "table", "index_size", "positions", "status", "win", "loss", "draw"
        )?;
    }
    for ply in 0..=g.cells() {
        let index_size = connect4::PlyIndex::new(g, ply).size();
        let status = Status::of(&connect4::tables::table_path(&args.tables.dir, g, ply));
        let positions = match &status {
            Status::Complete(h) => Some(h.counts.positions()),
            _ => crate::reference::connect4_ply_positions(g.width, g.height, ply),
        };
        let positions_text = positions.map_or("null".to_string(), |p| p.to_string());
        if args.json {
            let counts = match &status {
                Status::Complete(h) => counts_json(&h.counts),
                _ => String::new(),
            };
            writeln!(
                out,
                "{{\"game\": \"connect4\", \"table\": \"ply {ply}\", \"index_size\": {index_size}, \"positions\": {positions_text}, \"status\": \"{}\"{counts}}}",
                status.word()
            )?;
        } else {
            let counts = match &status {
                Status::Complete(h) => {
                    format!("{:>13} {:>13} {:>13}", h.counts.win, h.counts.loss, h.counts.draw)
                }
                _ => String::new(),
            };
            let positions_text = positions.map_or("-".to_string(), |p| p.to_string());
            writeln!(
                out,
                "{:<7} {index_size:>14} {positions_text:>14}  {:<9} {counts}",
                format!("ply {ply}"),
                status.word()
            )?;
        }
    }
    Ok(())
}

/// The counts of a complete table as extra fields of an `info --json` object.
fn counts_json(c: &Counts) -> String {
    format!(
        ", \"win\": {}, \"loss\": {}, \"draw\": {}, \"max_win\": {}, \"max_loss\": {}",
        c.win, c.loss, c.draw, c.max_win, c.max_loss
    )
}

/// Answers the positions given as arguments, or read from standard input with `-`.
fn run_probe<G: Probe>(game: &G, positions: &[String], output: &ProbeOutputArgs) -> Result<(), Error> {
    let format = if output.json {
        Format::Json
    } else if output.brief {
        Format::Brief
    } else {
        Format::Text
    };
    let line = output.line;
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let code = match positions {
        [] => {
            return Err(Error::Usage(
                "no position given (pass positions, or - to read them from standard input)".into(),
            ));
        }
        [dash] if dash == "-" => answer_lines(game, std::io::stdin().lock(), &mut out, format, line)?,
        _ => {
            let mut code = 0;
            for (n, text) in positions.iter().enumerate() {
                match answer(game, text, format, line) {
                    Ok(answer) => {
                        if format == Format::Text && n > 0 {
                            writeln!(out)?;
                        }
                        writeln!(out, "{answer}")?
                    }
                    Err(e) => {
                        out.flush()?;
                        eprintln!("tablebase: '{text}': {e}");
                        code = worse(code, e.exit_code());
                    }
                }
            }
            code
        }
    };
    out.flush()?;
    match code {
        0 => Ok(()),
        code => Err(Error::Reported(code)),
    }
}

fn verify_morris(args: &MorrisVerifyArgs) -> Result<(), Error> {
    let target = target_class(args.up_to.as_deref(), args.tables.stones)?;
    set_threads(args.threads)?;
    let progress = Progress::stderr();
    let dir = &args.tables.dir;
    let classes = tables::needed_classes(target);
    let mut out = std::io::stdout().lock();
    let (mut missing, mut failed) = (Vec::new(), false);
    for pair in tables::pairs_in_order(&classes) {
        let members = if pair.mover == pair.other { vec![pair] } else { vec![pair, pair.swapped()] };
        let mut usable = true;
        for &class in &members {
            let path = class.path(dir);
            match Status::of(&path) {
                Status::Complete(_) => {}
                Status::Damaged(why) => {
                    eprintln!("tablebase: {}: damaged table: {why}", path.display());
                    failed = true;
                    usable = false;
                }
                Status::Missing | Status::Partial => {
                    eprintln!("tablebase: {}", TableError::Missing { path });
                    missing.push(class);
                    usable = false;
                }
            }
        }
        if !usable {
            continue;
        }
        for check in tables::verify_pair(dir, pair, args.quick, &progress)? {
            let bad =
                !check.checksum_ok || check.consistent == Some(false) || check.reference_match == Some(false);
            failed |= bad;
            for (position, m) in &check.mismatches {
                eprintln!(
                    "tablebase: morris {}: position {} stored {} but its moves give {}",
                    check.class,
                    PositionText(position),
                    m.stored,
                    m.recomputed
                );
            }
            if !check.checksum_ok {
                eprintln!(
                    "tablebase: {}: checksum does not match the header",
                    check.class.path(dir).display()
                );
            }
            if check.reference_match == Some(false) {
                eprintln!("tablebase: morris {}: counts differ from the reference", check.class);
            }
            write_check(&mut out, &check, args.json)?;
        }
    }
    if failed {
        return Err(Error::VerifyFailed);
    }
    if !missing.is_empty() {
        let names: Vec<String> = missing.iter().map(Class::to_string).collect();
        return Err(Error::Runtime(format!(
            "{} table(s) not generated ({}): run tablebase generate morris --no-opening",
            names.len(),
            names.join(", ")
        )));
    }
    Ok(())
}

fn write_check(out: &mut impl Write, check: &tables::ClassCheck, json: bool) -> Result<(), Error> {
    let report = TableReport {
        game: tables::GAME,
        table: check.class.to_string(),
        counts: check.counts,
        checksum_ok: check.checksum_ok,
        consistent: check.consistent,
        reference_match: check.reference_match,
    };
    writeln!(out, "{}", if json { report.json() } else { report.text() })?;
    Ok(())
}

fn info_morris(args: &MorrisInfoArgs) -> Result<(), Error> {
    let top = u32::from(args.tables.stones).min(MAX_STONES);
    let mut out = std::io::stdout().lock();
    if !args.json {
        writeln!(
            out,
            "Nine Men's Morris, moving phase (classes A-B: A stones of the side to move, B of the other)"
        )?;
        writeln!(
            out,
            "{:<6} {:>12} {:>12} {:>8}  {:<9} {:>11} {:>11} {:>11} {:>5} {:>5}",
            "class", "index_size", "positions", "padding", "status", "win", "loss", "draw", "lwin", "lloss"
        )?;
    }
    let (mut total_size, mut total_positions) = (0u64, 0u64);
    for class in Class::all().filter(|c| c.mover <= top && c.other <= top) {
        let size = ClassIndex::new(class.mover, class.other).size();
        let positions = morris_class_size(class.mover, class.other).expect("reference covers 3..9");
        total_size += size;
        total_positions += positions;
        let status = Status::of(&class.path(&args.tables.dir));
        if args.json {
            let counts = match &status {
                Status::Complete(h) => counts_json(&h.counts),
                _ => String::new(),
            };
            writeln!(
                out,
                "{{\"game\": \"morris\", \"table\": \"{class}\", \"index_size\": {size}, \"positions\": {positions}, \"status\": \"{}\"{counts}}}",
                status.word()
            )?;
        } else {
            let padding = 100.0 * (size as f64 - positions as f64) / positions as f64;
            let counts = match &status {
                Status::Complete(h) => format!(
                    "{:>11} {:>11} {:>11} {:>5} {:>5}",
                    h.counts.win, h.counts.loss, h.counts.draw, h.counts.max_win, h.counts.max_loss
                ),
                Status::Damaged(why) => why.clone(),
                _ => String::new(),
            };
            writeln!(
                out,
                "{:<6} {size:>12} {positions:>12} {padding:>7.2}%  {:<9} {counts}",
                class.to_string(),
                status.word()
            )?;
        }
    }
    if !args.json {
        writeln!(out, "{:<6} {total_size:>12} {total_positions:>12}", "total")?;
    }
    Ok(())
}
