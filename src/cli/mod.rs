//! The command line (docs/CLI.md, "Commands"): argument parsing, and dispatch of every command to the
//! library's generic drivers with the game's catalogue or tablebase.

pub mod bench;
pub mod error;
mod play;
mod serve;

use clap::{Args, Parser, Subcommand};
use error::{Error, complain};
use std::io::Write;
use std::path::{Path, PathBuf};
use tablebase::catalogue::{InfoRow, Journal, TableOutcome};
use tablebase::connect4::{Connect4, Connect4Tablebase, Geometry};
use tablebase::layered::Layered;
use tablebase::morris::{Class, MorrisTablebase, MorrisTables, morris_tables};
use tablebase::picture::Draw;
use tablebase::probe::{BatchError, Format, answer, answer_lines, quote, worse};
use tablebase::{Catalogue, Progress, TableError};

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
    /// Play a game in the terminal against the perfect player.
    Play {
        #[command(subcommand)]
        game: PlayGame,
    },
    /// Serve a local page to play and study positions, with its JSON API.
    Serve {
        /// Directory of the tables.
        #[arg(long, default_value = "tables")]
        dir: PathBuf,
        /// Port to listen on (0: any free port, printed at start).
        #[arg(long, default_value_t = 8080)]
        port: u16,
        /// Address to listen on; only this machine can reach the default.
        #[arg(long, default_value = "127.0.0.1")]
        bind: String,
    },
    /// Measure the speed of the building blocks.
    Bench {
        #[command(subcommand)]
        target: bench::Target,
    },
}

/// Which Morris tables: the directory and the stones per side.
#[derive(Args)]
struct MorrisArgs {
    /// Directory of the tables.
    #[arg(long, default_value = "tables")]
    dir: PathBuf,
    /// Stones each side starts with (3..9; default 9, Nine Men's Morris).
    #[arg(long, value_parser = clap::value_parser!(u8).range(3..=9))]
    stones: Option<u8>,
}

/// Only the moving-phase classes needed for one class.
#[derive(Args)]
struct UpTo {
    /// Only the moving-phase classes needed for class A-B.
    #[arg(long, value_name = "A-B")]
    up_to: Option<String>,
}

impl MorrisArgs {
    /// The stones per side of the game: `--stones`, or the full game's 9.
    fn stones(&self) -> u8 {
        self.stones.unwrap_or(9)
    }

    /// The classes `--up-to` names (no opening), or every table of the game with `--stones`:
    /// its classes and, with `opening`, its placement layers.
    fn tables(&self, up_to: &UpTo, opening: bool) -> Result<MorrisTables, Error> {
        let up_to = match &up_to.up_to {
            Some(text) => Some(Class::parse(text).ok_or_else(|| {
                Error::Usage(format!("--up-to '{}': expected A-B with A and B in 3..9", quote(text)))
            })?),
            None => None,
        };
        // The K-stone game has no class with more than K stones a side: asking for both is a
        // contradiction, not a request for the larger classes.
        if let (Some(class), Some(k)) = (up_to, self.stones)
            && class.mover.max(class.other) > u32::from(k)
        {
            return Err(Error::Usage(format!(
                "--up-to {class} and --stones {k} contradict each other: the {k}-stone game has \
                 classes up to {k}-{k} (without --stones, --up-to {class} names the classes of the 9-stone game)"
            )));
        }
        Ok(morris_tables(u32::from(self.stones()), up_to, opening))
    }
}

/// Which Connect Four tables: the board and the directory.
#[derive(Args)]
struct Connect4Args {
    /// Board size, columns x rows (7x6 is the standard board).
    #[arg(long, value_parser = parse_size)]
    size: Geometry,
    /// Directory of the tables.
    #[arg(long, default_value = "tables")]
    dir: PathBuf,
}

fn parse_size(text: &str) -> Result<Geometry, String> {
    Geometry::parse(text).map_err(|e| e.to_string())
}

#[derive(Args)]
struct Threads {
    /// Worker threads (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
}

impl Threads {
    /// Sizes the worker pool, once per process (a command may run several catalogues).
    fn apply(&self) -> Result<(), Error> {
        static APPLIED: std::sync::OnceLock<()> = std::sync::OnceLock::new();
        let Some(n) = self.threads else { return Ok(()) };
        // More threads than this only cost memory and start-up time on any machine today.
        const MOST: usize = 1024;
        if !(1..=MOST).contains(&n) {
            return Err(Error::Usage(format!("--threads {n}: must be 1..{MOST}")));
        }
        if APPLIED.get().is_some() {
            return Ok(());
        }
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build_global()
            .map_err(|e| Error::Usage(format!("--threads {n}: {e}")))?;
        let _ = APPLIED.set(());
        Ok(())
    }
}

#[derive(Subcommand)]
enum GenerateGame {
    /// Nine Men's Morris.
    Morris {
        #[command(flatten)]
        tables: MorrisArgs,
        #[command(flatten)]
        up_to: UpTo,
        /// Moving phase only, without the placement-phase (opening) tables (implied by --up-to).
        #[arg(long)]
        no_opening: bool,
        #[command(flatten)]
        threads: Threads,
    },
    /// Connect Four.
    Connect4 {
        #[command(flatten)]
        tables: Connect4Args,
        /// An opening book for a board too large to tabulate (7x6): the tables of plies 0 to N
        /// only, ply N solved by search; probe solves later positions by search.
        #[arg(long, value_name = "N")]
        book_plies: Option<u32>,
        #[command(flatten)]
        threads: Threads,
    },
}

/// How `probe` answers, for every game.
#[derive(Args)]
struct ProbeArgs {
    /// One JSON object per position, one per line (docs/CLI.md, "JSON").
    #[arg(long, conflicts_with = "brief")]
    json: bool,
    /// One line per position: value and plies, no moves.
    #[arg(long)]
    brief: bool,
    /// Add the best line (principal variation).
    #[arg(long)]
    line: bool,
    /// Also draw the first position as an SVG picture into FILE: the board, every legal move
    /// marked by its outcome, the side to move and the value.
    #[arg(long, value_name = "FILE")]
    svg: Option<PathBuf>,
    /// Stop a search (a Connect Four position beyond the tables of a board too large to
    /// tabulate, such as 7x6) after S seconds: that position fails with exit 1.
    #[arg(long, value_name = "S", value_parser = parse_seconds)]
    max_time: Option<f64>,
}

/// The longest `--max-time`: a year. Longer is no limit in practice, and past about 1e19 seconds
/// no clock can represent the deadline.
const MOST_SECONDS: f64 = 365.0 * 24.0 * 3600.0;

fn parse_seconds(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(s) if s > 0.0 && s <= MOST_SECONDS => Ok(s),
        _ => Err(format!(
            "bad time '{}': expected seconds, a number above 0 and at most {MOST_SECONDS} (a year)",
            quote(text)
        )),
    }
}

#[derive(Subcommand)]
enum ProbeGame {
    /// Nine Men's Morris.
    Morris {
        #[command(flatten)]
        tables: MorrisArgs,
        #[command(flatten)]
        output: ProbeArgs,
        /// Positions (quote each: 'W:a1,d1,g1 B:a4,b4,c4 b'), or - to read one per line from
        /// standard input.
        positions: Vec<String>,
    },
    /// Connect Four.
    Connect4 {
        #[command(flatten)]
        tables: Connect4Args,
        #[command(flatten)]
        output: ProbeArgs,
        /// Positions as the columns played from the empty board ("4453"; "" is the empty board),
        /// or - to read one per line from standard input.
        positions: Vec<String>,
    },
}

/// Who the person plays in `play`, and how the perfect player chooses.
#[derive(Args)]
struct PlayArgs {
    /// Seed of the perfect player's choice among equally good moves (random when absent).
    #[arg(long)]
    seed: Option<u64>,
}

impl PlayArgs {
    fn seed(&self) -> u64 {
        self.seed.unwrap_or_else(|| {
            let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH);
            now.map_or(0, |d| d.as_nanos() as u64) ^ u64::from(std::process::id())
        })
    }
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum MorrisSide {
    White,
    Black,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum Connect4Side {
    First,
    Second,
}

#[derive(Subcommand)]
enum PlayGame {
    /// Nine Men's Morris (with --stones K, the K-stone game).
    Morris {
        #[command(flatten)]
        tables: MorrisArgs,
        /// Start from this position instead of the start.
        #[arg(long, value_name = "POSITION")]
        from: Option<String>,
        /// The side you play.
        #[arg(long, value_enum, default_value = "white")]
        side: MorrisSide,
        #[command(flatten)]
        play: PlayArgs,
    },
    /// Connect Four.
    Connect4 {
        #[command(flatten)]
        tables: Connect4Args,
        /// Start after these moves (columns from the empty board) instead of the empty board.
        #[arg(long, value_name = "MOVES", default_value = "")]
        from: String,
        /// The side you play.
        #[arg(long, value_enum, default_value = "first")]
        side: Connect4Side,
        /// Stop a search (a position beyond the tables of a board too large to tabulate, such
        /// as 7x6 past its opening book) after S seconds: the game stops with exit 1.
        #[arg(long, value_name = "S", value_parser = parse_seconds, default_value = "60")]
        max_time: f64,
        #[command(flatten)]
        play: PlayArgs,
    },
}

/// How `verify` checks, for every game.
#[derive(Args)]
struct VerifyArgs {
    /// One JSON object per table, one per line (docs/CLI.md, "JSON").
    #[arg(long)]
    json: bool,
    /// Headers, checksums and counts only, without recomputing values.
    #[arg(long)]
    quick: bool,
    /// Go on where an earlier `verify --resume` of the same files stopped: tables whose values
    /// it recomputed and found consistent (recorded in DIR/verify.journal) are not recomputed
    /// again; their files are still checked.
    #[arg(long, conflicts_with = "quick")]
    resume: bool,
    #[command(flatten)]
    threads: Threads,
}

#[derive(Subcommand)]
enum VerifyGame {
    /// Nine Men's Morris.
    Morris {
        #[command(flatten)]
        tables: MorrisArgs,
        #[command(flatten)]
        up_to: UpTo,
        #[command(flatten)]
        check: VerifyArgs,
    },
    /// Connect Four.
    Connect4 {
        #[command(flatten)]
        tables: Connect4Args,
        #[command(flatten)]
        check: VerifyArgs,
    },
}

#[derive(Subcommand)]
enum InfoGame {
    /// Nine Men's Morris.
    Morris {
        #[command(flatten)]
        tables: MorrisArgs,
        /// One JSON object per table, one per line (docs/CLI.md, "JSON").
        #[arg(long)]
        json: bool,
        /// Also draw SVG charts of the tables into DIR (reads the table bodies).
        #[arg(long, value_name = "DIR")]
        plot: Option<PathBuf>,
    },
    /// Connect Four.
    Connect4 {
        #[command(flatten)]
        tables: Connect4Args,
        /// One JSON object per table, one per line (docs/CLI.md, "JSON").
        #[arg(long)]
        json: bool,
        /// Also draw SVG charts of the tables into DIR (reads the table bodies).
        #[arg(long, value_name = "DIR")]
        plot: Option<PathBuf>,
    },
}

/// Runs the command line.
pub fn run(cli: Cli) -> Result<(), Error> {
    match cli.command {
        Command::Generate { game } => match game {
            GenerateGame::Morris { tables, up_to, no_opening, threads } => {
                generate(&tables.tables(&up_to, !no_opening)?, &tables.dir, &threads)
            }
            GenerateGame::Connect4 { tables, book_plies, threads } => match book_plies {
                Some(n) if n > tables.size.cells() => Err(Error::Usage(format!(
                    "--book-plies {n}: the {} board has plies 0 to {}",
                    tables.size,
                    tables.size.cells()
                ))),
                Some(n) => generate(&Connect4::book(tables.size, n), &tables.dir, &threads),
                None => generate(&Connect4::tables(tables.size), &tables.dir, &threads),
            },
        },
        Command::Probe { game } => match game {
            ProbeGame::Morris { tables, output, positions } => {
                probe(&MorrisTablebase::open(&tables.dir, tables.stones()), &positions, &output)
            }
            ProbeGame::Connect4 { tables, output, positions } => {
                let tablebase =
                    Connect4Tablebase::open(&tables.dir, tables.size).with_max_time(output.max_time);
                probe(&tablebase, &positions, &output)
            }
        },
        Command::Verify { game } => match game {
            VerifyGame::Morris { tables, up_to, check } => {
                verify(&tables.tables(&up_to, true)?, &tables.dir, &check)
            }
            VerifyGame::Connect4 { tables, check } => verify(&connect4_tables(&tables)?, &tables.dir, &check),
        },
        Command::Info { game } => match game {
            InfoGame::Morris { tables, json, plot } => {
                let catalogue = tables.tables(&UpTo { up_to: None }, true)?;
                info(&catalogue, &tables.dir, json)?;
                match plot {
                    Some(out) => plot_morris(&catalogue, &tables.dir, &out),
                    None => Ok(()),
                }
            }
            InfoGame::Connect4 { tables, json, plot } => {
                let catalogue = connect4_tables(&tables)?;
                info(&catalogue, &tables.dir, json)?;
                match plot {
                    Some(out) => report_charts(tablebase::catalogue::plot(
                        &catalogue,
                        &tables.dir,
                        &out,
                        &Progress::stderr(),
                    )?),
                    None => Ok(()),
                }
            }
        },
        Command::Play { game } => {
            let (stdin, mut stdout) = (std::io::stdin().lock(), std::io::stdout().lock());
            match game {
                PlayGame::Morris { tables, from, side, play: args } => {
                    let start = from.unwrap_or_else(|| format!("W: B: w {0} {0}", tables.stones()));
                    let title = match tables.stones() {
                        9 => "Nine Men's Morris".to_string(),
                        k => format!("Morris with {k} stones each"),
                    };
                    let game = MorrisTablebase::open(&tables.dir, tables.stones());
                    play::play(&game, &title, &start, side as usize, args.seed(), stdin, &mut stdout)
                }
                PlayGame::Connect4 { tables, from, side, max_time, play: args } => {
                    let game =
                        Connect4Tablebase::open(&tables.dir, tables.size).with_max_time(Some(max_time));
                    let title = format!("Connect Four {}", tables.size);
                    play::play(&game, &title, &from, side as usize, args.seed(), stdin, &mut stdout)
                }
            }
        }
        Command::Serve { dir, port, bind } => serve::serve(&dir, &bind, port),
        Command::Bench { target } => bench::run(target),
    }
}

/// The tables `info` and `verify` cover: the opening book on disk, or else every ply of a
/// board the project tabulates.
fn connect4_tables(args: &Connect4Args) -> Result<Layered<Connect4>, Error> {
    let g = args.size;
    Connect4::on_disk(g, &args.dir).ok_or_else(|| {
        Error::Runtime(format!(
            "{}: no opening book of the {g} board (a board this large has a book of its first plies, not full tables): run tablebase generate connect4 --size {g} --book-plies N --dir {}",
            args.dir.display(),
            args.dir.display()
        ))
    })
}

fn generate(catalogue: &impl Catalogue, dir: &Path, threads: &Threads) -> Result<(), Error> {
    threads.apply()?;
    tablebase::generate(catalogue, dir, &Progress::stderr())?;
    Ok(())
}

fn verify<C: Catalogue>(catalogue: &C, dir: &Path, args: &VerifyArgs) -> Result<(), Error> {
    args.threads.apply()?;
    let progress = Progress::stderr();
    let mut out = std::io::stdout().lock();
    let (mut failed, mut missing) = (false, Vec::new());
    let mut journal = match args.resume {
        true => Some(Journal::open(catalogue, dir).map_err(Error::Table)?),
        false => None,
    };
    let checked = tablebase::verify(catalogue, dir, args.quick, journal.as_mut(), &progress, |outcome| {
        match &outcome {
            TableOutcome::Checked(report) => report.problems.iter().for_each(|p| complain!("tablebase: {p}")),
            TableOutcome::Missing { table, path, .. } => {
                complain!("tablebase: {}", TableError::Missing { path: path.clone() });
                missing.push(table.clone());
            }
            TableOutcome::Outdated { table, path, version, .. } => {
                complain!("tablebase: {}", TableError::NeedsUpgrade { path: path.clone(), found: *version });
                missing.push(table.clone());
            }
            TableOutcome::Unusable { why, .. } => complain!("tablebase: {why}"),
        }
        failed |= outcome.failed();
        let line = if args.json { outcome.json() } else { outcome.text() };
        writeln!(out, "{line}").map_err(Error::Output)
    });
    if let Err(Error::Output(e)) = checked {
        let found = if failed {
            3
        } else if missing.is_empty() {
            0
        } else {
            1
        };
        return Err(cut_short(e, found));
    }
    checked?;
    if failed {
        return Err(Error::VerifyFailed);
    }
    if !missing.is_empty() {
        return Err(Error::Runtime(format!(
            "{} table(s) not generated or outdated ({}): run {}",
            missing.len(),
            missing.join(", "),
            catalogue.generate_command(dir)
        )));
    }
    Ok(())
}

fn info(catalogue: &impl Catalogue, dir: &Path, json: bool) -> Result<(), Error> {
    let rows = tablebase::info(catalogue, dir);
    let mut out = std::io::stdout().lock();
    let mut write = |line: String| writeln!(out, "{line}").map_err(Error::Output);
    if json {
        return rows.iter().try_for_each(|row| write(row.json()));
    }
    for (n, section) in rows.chunk_by(|a, b| a.section == b.section).enumerate() {
        if n > 0 {
            write(String::new())?;
        }
        write(section[0].section.clone())?;
        write(InfoRow::text_heading())?;
        for row in section {
            write(row.text())?;
        }
        let index_size: u64 = section.iter().map(|r| r.index_size).sum();
        let positions: Option<u64> = section.iter().map(|r| r.positions).sum();
        let positions = positions.map_or("-".to_string(), |p| p.to_string());
        write(format!("{:<16} {index_size:>14} {positions:>14}", "total"))?;
    }
    Ok(())
}

/// Writes the SVG picture of `position` to `path`. A position that cannot be probed is
/// reported with the answers, so it draws nothing here.
fn draw<G: Draw>(game: &G, position: &str, path: &Path) -> Result<(), Error> {
    let Ok(position) = game.parse(position) else { return Ok(()) };
    let Ok(probed) = tablebase::probe(game, &position) else { return Ok(()) };
    std::fs::write(path, game.svg(&position, &probed))
        .map_err(|source| Error::File { path: path.to_path_buf(), source })
}

/// The charts of every table, and the Morris classes as a heat map.
fn plot_morris(catalogue: &MorrisTables, dir: &Path, out: &Path) -> Result<(), Error> {
    let mut written = tablebase::catalogue::plot(catalogue, dir, out, &Progress::stderr())?;
    let classes: Vec<(u32, u32, tablebase::table::Counts)> = tablebase::info(catalogue, dir)
        .iter()
        .filter_map(|row| Some((Class::parse(&row.table)?, *row.counts()?)))
        .map(|(class, counts)| (class.mover, class.other, counts))
        .collect();
    if !classes.is_empty() {
        let chart =
            tablebase::picture::class_heat_map(&classes).map_err(|e| Error::Runtime(e.to_string()))?;
        written.push(tablebase::catalogue::write_chart(out, "morris-classes.svg", &chart)?);
    }
    report_charts(written)
}

fn report_charts(written: Vec<PathBuf>) -> Result<(), Error> {
    match written.first() {
        None => Err(Error::Runtime("no complete table to draw: generate tables first".into())),
        Some(first) => {
            let dir = first.parent().unwrap_or(Path::new("."));
            complain!("tablebase: wrote {} chart(s) to {}", written.len(), dir.display());
            Ok(())
        }
    }
}

/// Answers the positions given as arguments, or read from standard input with `-`.
fn probe<G: Draw>(game: &G, positions: &[String], output: &ProbeArgs) -> Result<(), Error> {
    let format = if output.json {
        Format::Json
    } else if output.brief {
        Format::Brief
    } else {
        Format::Text
    };
    let line = output.line;
    if let Some(path) = &output.svg {
        match positions.first() {
            Some(first) if first != "-" => draw(game, first, path)?,
            _ => {
                return Err(Error::Usage(
                    "--svg draws a position given on the command line, not one read from standard input"
                        .into(),
                ));
            }
        }
    }
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let code = match positions {
        [] => {
            return Err(Error::Usage(
                "no position given (pass positions, or - to read them from standard input)".into(),
            ));
        }
        [dash] if dash == "-" => answer_lines(game, std::io::stdin().lock(), &mut out, format, line)
            .map_err(|e| match e {
                BatchError::Input(e) => Error::Input(e),
                BatchError::Output(e, found) => cut_short(e, found),
            })?,
        _ => {
            let mut code = 0;
            for (n, text) in positions.iter().enumerate() {
                match answer(game, text, format, line) {
                    Ok(answer) => {
                        if format == Format::Text && n > 0 {
                            writeln!(out).map_err(|e| cut_short(e, code))?;
                        }
                        writeln!(out, "{answer}").map_err(|e| cut_short(e, code))?
                    }
                    Err(e) => {
                        out.flush().map_err(|e| cut_short(e, code))?;
                        complain!("tablebase: '{}': {e}", quote(text));
                        code = worse(code, e.exit_code());
                    }
                }
            }
            code
        }
    };
    out.flush().map_err(|e| cut_short(e, code))?;
    match code {
        0 => Ok(()),
        code => Err(Error::Reported(code)),
    }
}

/// Output cut short by a reader that stopped (`| head`): the exit status of what was found so
/// far, or where nothing was wrong yet the 141 of a process stopped by SIGPIPE. Never 0: the
/// work was not all done, and a failure found before must not turn into success.
fn cut_short(e: std::io::Error, found: i32) -> Error {
    match (e.kind(), found) {
        (std::io::ErrorKind::BrokenPipe, 0) => Error::Reported(error::CUT_SHORT),
        (std::io::ErrorKind::BrokenPipe, found) => Error::Reported(found),
        _ => Error::Output(e),
    }
}
