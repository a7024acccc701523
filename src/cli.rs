//! The command line (SPEC section 1): argument parsing and dispatch to the library.

use crate::bench;
use crate::error::Error;
use crate::morris::ClassIndex;
use crate::morris::index::{MAX_STONES, MIN_STONES};
use crate::reference::morris_class_size;
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
enum InfoGame {
    /// Nine Men's Morris.
    Morris(MorrisInfoArgs),
}

#[derive(Args)]
struct MorrisInfoArgs {
    /// Directory of the tables.
    #[arg(long, default_value = "tables")]
    dir: PathBuf,
    /// One JSON object per table (SPEC section 5).
    #[arg(long)]
    json: bool,
    /// Stones each side starts with (3..9).
    #[arg(long, default_value_t = 9, value_parser = clap::value_parser!(u8).range(3..=9))]
    stones: u8,
}

#[derive(Subcommand)]
enum BenchTarget {
    /// Index, un-index, move and un-move generation per Morris class.
    Morris(bench::MorrisBenchArgs),
}

/// Runs the command line; returns the process exit code.
pub fn run(cli: Cli) -> Result<(), Error> {
    match cli.command {
        Command::Info { game: InfoGame::Morris(args) } => info_morris(&args),
        Command::Bench { target: BenchTarget::Morris(args) } => bench::morris(&args),
    }
}

fn info_morris(args: &MorrisInfoArgs) -> Result<(), Error> {
    let _ = &args.dir; // tables on disk are read once the solver writes them (status: missing)
    let top = u32::from(args.stones).min(MAX_STONES);
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    if !args.json {
        writeln!(
            out,
            "Nine Men's Morris, moving phase (classes A-B: A stones of the side to move, B of the other)"
        )?;
        writeln!(out, "{:<6} {:>12} {:>12} {:>10}  status", "class", "index_size", "positions", "padding")?;
    }
    let (mut total_size, mut total_positions) = (0u64, 0u64);
    for mover in MIN_STONES..=top {
        for other in MIN_STONES..=top {
            let index = ClassIndex::new(mover, other);
            let size = index.size();
            let positions = morris_class_size(mover, other).expect("reference covers 3..9");
            total_size += size;
            total_positions += positions;
            let table = format!("{mover}-{other}");
            if args.json {
                writeln!(
                    out,
                    "{{\"game\": \"morris\", \"table\": \"{table}\", \"index_size\": {size}, \"positions\": {positions}, \"status\": \"missing\"}}"
                )?;
            } else {
                let padding = 100.0 * (size as f64 - positions as f64) / positions as f64;
                writeln!(out, "{table:<6} {size:>12} {positions:>12} {padding:>9.2}%  missing")?;
            }
        }
    }
    if !args.json {
        writeln!(out, "{:<6} {total_size:>12} {total_positions:>12}", "total")?;
    }
    Ok(())
}
