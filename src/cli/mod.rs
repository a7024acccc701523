//! The command line (docs/CLI.md, "Commands"): argument parsing, and dispatch of every command to the
//! library's generic drivers with the game the registry names. Batch input, output formats and
//! exit codes are this module's; the library only answers.

mod batch;
pub mod error;
mod games;
mod output;
mod play;
mod progress;
mod serve;

use batch::{BatchError, answer_lines, worse};
use clap::{Args, Parser, Subcommand};
use error::{
    Error, complain, explain, generate_and_others, generate_command, others_on_disk, probe_exit_code,
    variant_error,
};
use games::{CommandArgs, OnGame};
use output::{Format, answer};
use std::io::Write;
use std::path::{Path, PathBuf};
use tablebase::catalogue::{InfoRow, Journal, Storage, TableOutcome};
use tablebase::game::{Game, Purpose};
use tablebase::games::{ForGame, GAMES, with_game};
use tablebase::picture::Draw;
use tablebase::probe::Probe;
use tablebase::text::{parse_seconds, quote};
use tablebase::{Catalogue, GenerateOptions, TableError};

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
        game: OnGame<GenerateArgs>,
    },
    /// What generate would do: the jobs left, and the disk, memory and CPU time they need.
    Plan {
        #[command(subcommand)]
        game: OnGame<PlanArgs>,
    },
    /// Value, distance, every move and the best line of positions.
    Probe {
        #[command(subcommand)]
        game: OnGame<ProbeArgs>,
    },
    /// Check tables: headers, checksums, reference counts, and every value from its successors.
    /// Without a game, every game whose tables are in --dir.
    #[command(args_conflicts_with_subcommands = true)]
    Verify {
        #[command(subcommand)]
        game: Option<OnGame<VerifyArgs>>,
        #[command(flatten)]
        all: VerifyArgs,
    },
    /// List every table a game needs, with its index size, positions and status. Without a
    /// game, every game whose tables are in --dir.
    #[command(args_conflicts_with_subcommands = true)]
    Info {
        #[command(subcommand)]
        game: Option<OnGame<InfoArgs>>,
        #[command(flatten)]
        all: InfoArgs,
    },
    /// Play a game in the terminal against the perfect player.
    Play {
        #[command(subcommand)]
        game: OnGame<PlayArgs>,
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
        /// Give the searches of one request (a Connect Four position beyond the tables of a
        /// board too large to tabulate; a Qubic or Sogo position past its book) S seconds in
        /// all: what is not settled by then is marked unknown, or the answer (status 500) says
        /// so; the page waits no longer.
        #[arg(long, value_name = "S", value_parser = parse_seconds, default_value = "30")]
        max_time: f64,
    },
    /// Measure the speed of the building blocks.
    Bench {
        #[command(subcommand)]
        target: tablebase_bench::Target,
    },
}

#[derive(Args)]
struct Threads {
    /// Worker threads (default: all cores).
    #[arg(long, value_parser = thread_count)]
    threads: Option<usize>,
}

/// A count of worker threads: more than 1,024 only cost memory and start-up time on any machine
/// today.
fn thread_count(text: &str) -> Result<usize, String> {
    const MOST: usize = 1024;
    match text.trim().parse::<usize>() {
        Ok(n) if (1..=MOST).contains(&n) => Ok(n),
        _ => Err(format!("expected a whole number of threads from 1 to {MOST}")),
    }
}

/// Starts the worker pool of a command that takes `--threads` (`generate`, `plan`, `verify`),
/// `threads` of them or rayon's default (one a processor, or `RAYON_NUM_THREADS`), before it
/// does any work: a pool that cannot start (threads' stacks refused under `ulimit -v`, a
/// process limit) is one line and exit 1, where rayon would panic at the first parallel loop.
/// Other commands start rayon's pool when they first need it, as many never do.
fn start_workers(threads: Option<usize>) -> Result<(), Error> {
    let mut pool = rayon::ThreadPoolBuilder::new();
    if let Some(n) = threads {
        pool = pool.num_threads(n);
    }
    pool.build_global().map_err(|e| Error::Threads {
        which: threads.map_or("the worker threads (--threads N asks for fewer)".to_string(), |n| {
            format!("{n} worker threads")
        }),
        why: e.to_string(),
    })
}

/// `generate`'s flags, for every game.
#[derive(Args)]
struct GenerateArgs {
    /// Directory of the tables.
    #[arg(long, default_value = "tables")]
    dir: PathBuf,
    #[command(flatten)]
    threads: Threads,
    /// Run this one job of the job graph (`plan --json` lists the ids), for a scheduler such as
    /// the Snakemake workflow: nothing if its files are complete, an error if a file it reads is
    /// not.
    #[arg(long, value_name = "ID")]
    only: Option<String>,
    /// Leave the value tables and sets raw (format version 3, a byte per position: the fastest
    /// to probe, about twice the disk) instead of compressing each once no later job reads it.
    #[arg(long)]
    raw: bool,
}

impl CommandArgs for GenerateArgs {
    const PURPOSE: Purpose = Purpose::Generate;
}

/// `plan`'s flags, for every game (it takes the settings `generate` takes).
#[derive(Args)]
struct PlanArgs {
    /// Directory of the tables.
    #[arg(long, default_value = "tables")]
    dir: PathBuf,
    #[command(flatten)]
    threads: Threads,
    /// The whole job graph as one JSON object: every job's id, the files it reads and writes,
    /// the jobs it comes after, and its memory, disk, threads and CPU time.
    #[arg(long)]
    json: bool,
}

impl CommandArgs for PlanArgs {
    const PURPOSE: Purpose = Purpose::Generate;
}

/// `probe`'s flags, for every game.
#[derive(Args)]
struct ProbeArgs {
    /// Directory of the tables.
    #[arg(long, default_value = "tables")]
    dir: PathBuf,
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
    /// Give the searches of each position (a Connect Four position beyond the tables of a board
    /// too large to tabulate, such as 7x6; a Qubic or Sogo position past its book) S seconds in
    /// all, the position and its moves together (default 30): a move not settled by then is
    /// marked unknown, and a position's value (--brief) fails with exit 1. Qubic and Sogo prove
    /// who wins, then with --max-time search for the exact distance with the time left.
    #[arg(long, value_name = "S", value_parser = parse_seconds)]
    max_time: Option<f64>,
    /// Positions, or - to read one per line from standard input.
    positions: Vec<String>,
}

/// Seconds the searches of one position may take when `--max-time` does not say: an answer
/// comes within half a minute, as the page's, whatever the position.
const PROBE_SECONDS: f64 = 30.0;

impl ProbeArgs {
    /// What the searches of one position may take together.
    fn limit(&self) -> f64 {
        self.max_time.unwrap_or(PROBE_SECONDS)
    }
}

impl CommandArgs for ProbeArgs {
    const PURPOSE: Purpose = Purpose::Probe;

    fn for_game(command: clap::Command, game: &tablebase::games::About) -> clap::Command {
        let help = format!("Positions ({}), or - to read one per line from standard input.", game.positions);
        command.mut_arg("positions", |arg| arg.help(help))
    }
}

/// `verify`'s flags, for every game.
#[derive(Args)]
struct VerifyArgs {
    /// Directory of the tables.
    #[arg(long, default_value = "tables")]
    dir: PathBuf,
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

impl CommandArgs for VerifyArgs {
    const PURPOSE: Purpose = Purpose::Verify;
}

/// `info`'s flags, for every game.
#[derive(Args)]
struct InfoArgs {
    /// Directory of the tables.
    #[arg(long, default_value = "tables")]
    dir: PathBuf,
    /// One JSON object per table, one per line (docs/CLI.md, "JSON").
    #[arg(long)]
    json: bool,
    /// Also draw SVG charts of the tables into DIR (reads the table bodies).
    #[arg(long, value_name = "DIR")]
    plot: Option<PathBuf>,
}

impl CommandArgs for InfoArgs {
    const PURPOSE: Purpose = Purpose::Info;
}

/// `play`'s flags, for every game.
#[derive(Args)]
struct PlayArgs {
    /// Directory of the tables.
    #[arg(long, default_value = "tables")]
    dir: PathBuf,
    /// Start from this position instead of the start.
    #[arg(long, value_name = "POSITION")]
    from: Option<String>,
    /// The side you play.
    #[arg(long)]
    side: Option<String>,
    /// Stop a search (a position beyond the tables of a board too large to tabulate, such
    /// as Connect Four 7x6 past its opening book, or Qubic and Sogo) after S seconds, for each
    /// move of the perfect player all its searches together: past it, the perfect player plays
    /// a move that does not lose at once, its value unknown.
    #[arg(long, value_name = "S", value_parser = parse_seconds, default_value = "60")]
    max_time: f64,
    /// Seed of the perfect player's choice among equally good moves (random when absent).
    #[arg(long)]
    seed: Option<u64>,
}

impl CommandArgs for PlayArgs {
    const PURPOSE: Purpose = Purpose::Play;

    fn for_game(command: clap::Command, game: &tablebase::games::About) -> clap::Command {
        games::sides(command, game)
    }
}

impl PlayArgs {
    fn seed(&self) -> u64 {
        self.seed.unwrap_or_else(|| {
            let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH);
            now.map_or(0, |d| d.as_nanos() as u64) ^ u64::from(std::process::id())
        })
    }
}

/// Runs the command line.
pub fn run(cli: Cli) -> Result<(), Error> {
    let dir = match &cli.command {
        Command::Generate { game } => Some(&game.args.dir),
        Command::Plan { game } => Some(&game.args.dir),
        Command::Probe { game } => Some(&game.args.dir),
        Command::Verify { game: Some(game), .. } => Some(&game.args.dir),
        Command::Verify { game: None, all } => Some(&all.dir),
        Command::Info { game: Some(game), .. } => Some(&game.args.dir),
        Command::Info { game: None, all } => Some(&all.dir),
        Command::Play { game } => Some(&game.args.dir),
        Command::Serve { dir, .. } => Some(dir),
        Command::Bench { .. } => None,
    };
    if let Some(dir) = dir {
        looked_into(dir)?;
    }
    let threads = match &cli.command {
        Command::Generate { game } => Some(&game.args.threads),
        Command::Plan { game } => Some(&game.args.threads),
        Command::Verify { game: Some(game), .. } => Some(&game.args.threads),
        Command::Verify { game: None, all } => Some(&all.threads),
        _ => None,
    };
    if let Some(threads) = threads {
        start_workers(threads.threads)?;
    }
    match cli.command {
        Command::Generate { game } => on_game(&game, Generating(&game.args)),
        Command::Plan { game } => on_game(&game, Planning(&game.args)),
        Command::Probe { game } => on_game(&game, Probing(&game.args)),
        Command::Verify { game: Some(game), .. } => on_game(&game, Verifying(&game.args, None)),
        Command::Verify { game: None, all } => {
            every_game(&all.dir, |key, found| with_game(key, Verifying(&all, Some(found))).unwrap_or(Ok(())))
        }
        Command::Info { game: Some(game), .. } => on_game(&game, Listing(&game.args, None, true)),
        Command::Info { game: None, all } => every_game(&all.dir, |key, found| {
            with_game(key, Listing(&all, Some(found), false)).unwrap_or(Ok(()))
        }),
        Command::Play { game } => on_game(&game, Playing(&game.args)),
        Command::Serve { dir, port, bind, max_time } => serve::serve(&dir, &bind, port, max_time),
        Command::Bench { target } => tablebase_bench::run(target, &BenchHost).map_err(Error::from),
    }
}

/// A table directory that is there but cannot be looked into (a file, a directory the user may
/// not read) is an error that names it and why, not a directory without tables: `probe` would
/// search what its book answers, `info` say there is no book, `plan` that a build fits.
fn looked_into(dir: &Path) -> Result<(), Error> {
    match std::fs::read_dir(dir) {
        Err(source) if source.kind() != std::io::ErrorKind::NotFound => {
            Err(Error::File { path: dir.to_path_buf(), source })
        }
        _ => Ok(()),
    }
}

/// Work on the game variant a command names.
trait OnVariant {
    fn run<G: Game>(self, game: G) -> Result<(), Error>;
}

/// The variant `on` names, checked by its game, given to `work`.
fn on_game<A: CommandArgs, W: OnVariant>(on: &OnGame<A>, work: W) -> Result<(), Error> {
    struct Checked<'a, W> {
        variant: &'a tablebase::catalogue::Variant,
        purpose: Purpose,
        work: W,
    }
    impl<W: OnVariant> ForGame for Checked<'_, W> {
        type Output = Result<(), Error>;
        fn run<G: Game>(self) -> Result<(), Error> {
            // Settings alone name no directory: only a catalogue's tables can be missing.
            let game =
                G::from_variant(self.variant, self.purpose).map_err(|e| variant_error(e, Path::new(".")))?;
            self.work.run(game)
        }
    }
    let checked = Checked { variant: &on.variant, purpose: A::PURPOSE, work };
    with_game(on.game.key, checked).expect("the registry names every subcommand's game")
}

/// Runs `each` for every game of the registry with the number of variants found so far, and
/// fails when `dir` holds tables of none.
fn every_game(dir: &Path, mut each: impl FnMut(&str, &mut usize) -> Result<(), Error>) -> Result<(), Error> {
    let mut found = 0;
    let mut worst = Ok(());
    for game in GAMES {
        keep_worse(&mut worst, each(game.key, &mut found));
    }
    worst?;
    if found == 0 {
        let small: Vec<String> = GAMES
            .iter()
            .filter_map(|g| with_game(g.key, Small).flatten())
            .map(|variant| generate_command(&variant, dir))
            .collect();
        return Err(Error::NoTables { dir: dir.to_path_buf(), commands: small });
    }
    Ok(())
}

/// Keeps in `worst` the first failure of the worst kind (a table found wrong before one
/// missing), so that going on past a failure still exits as the worst one requires.
fn keep_worse(worst: &mut Result<(), Error>, result: Result<(), Error>) {
    if let Err(e) = result
        && worst.as_ref().err().is_none_or(|w| e.exit_code() > w.exit_code())
    {
        *worst = Err(e);
    }
}

/// A small variant's settings, for a newcomer's first tables.
struct Small;

impl ForGame for Small {
    type Output = Option<tablebase::catalogue::Variant>;
    fn run<G: Game>(self) -> Option<tablebase::catalogue::Variant> {
        G::small().map(|game| game.variant())
    }
}

struct Generating<'a>(&'a GenerateArgs);

impl OnVariant for Generating<'_> {
    fn run<G: Game>(self, game: G) -> Result<(), Error> {
        let args = self.0;
        let catalogue =
            game.catalogue(&args.dir, Purpose::Generate).map_err(|e| variant_error(e, &args.dir))?;
        let storage = if args.raw { Storage::Raw } else { Storage::Compressed };
        generate(&catalogue, &args.dir, storage, args.only.as_deref())
    }
}

struct Planning<'a>(&'a PlanArgs);

impl OnVariant for Planning<'_> {
    fn run<G: Game>(self, game: G) -> Result<(), Error> {
        let args = self.0;
        let catalogue =
            game.catalogue(&args.dir, Purpose::Generate).map_err(|e| variant_error(e, &args.dir))?;
        // Written, not printed: `plan ... | head -1` closes the pipe, which is not a panic.
        let mut out = output::stdout();
        if args.json {
            let jobs = tablebase::catalogue::plan(&catalogue, &args.dir, rayon::current_num_threads());
            let json = output::plan_json(catalogue.game(), &jobs);
            return writeln!(out, "{json}").map_err(Error::Output);
        }
        let plan = tablebase::catalogue::estimate(&catalogue, &args.dir, Storage::Compressed);
        // The line `generate` starts with, word for word (docs/CLI.md, "plan").
        writeln!(out, "{}: {plan}", catalogue.name()).map_err(Error::Output)?;
        writeln!(out, "{}", plan.on_this_machine(&args.dir)).map_err(Error::Output)?;
        Ok(())
    }
}

struct Probing<'a>(&'a ProbeArgs);

impl OnVariant for Probing<'_> {
    fn run<G: Game>(self, game: G) -> Result<(), Error> {
        let args = self.0;
        let mut tablebase = game.tablebase(&args.dir, Some(args.limit()));
        // A limit given is a wish for exact distances within it, not only outcomes.
        if args.max_time.is_some() {
            tablebase.seek_distances();
        }
        // One position asked: its proofs take every core (a batch runs positions side by side).
        if let [position] = args.positions.as_slice()
            && position != "-"
        {
            tablebase.prove_on_threads(rayon::current_num_threads());
        }
        probe(&tablebase, &args.positions, args)
    }
}

/// `verify` of one variant, or (with the count of variants found) of every variant present.
struct Verifying<'a, 'b>(&'a VerifyArgs, Option<&'b mut usize>);

impl OnVariant for Verifying<'_, '_> {
    fn run<G: Game>(self, game: G) -> Result<(), Error> {
        let args = self.0;
        let catalogue =
            game.catalogue(&args.dir, Purpose::Verify).map_err(|e| variant_error(e, &args.dir))?;
        verify(&catalogue, &args.dir, args)
    }
}

impl ForGame for Verifying<'_, '_> {
    type Output = Result<(), Error>;
    fn run<G: Game>(self) -> Result<(), Error> {
        let (args, found) = (self.0, self.1.expect("counted"));
        let mut worst = Ok(());
        for game in G::present(&args.dir) {
            *found += 1;
            // Each variant's lines under its title, on standard output with them: in JSON, each
            // row names its game and settings.
            if !args.json {
                let blank = if *found > 1 { "\n" } else { "" };
                if let Err(e) = writeln!(output::stdout(), "{blank}{}", game.title()) {
                    let before = worst.as_ref().err().map_or(0, Error::exit_code);
                    keep_worse(&mut worst, Err(cut_short(e, before)));
                    return worst;
                }
            }
            keep_worse(&mut worst, OnVariant::run(Verifying(args, None), game));
        }
        worst
    }
}

/// `info` of one variant, or (with the count of variants found) of every variant present;
/// `true` where the command named the variant (where its tables are missing, a note says which
/// variants the directory holds).
struct Listing<'a, 'b>(&'a InfoArgs, Option<&'b mut usize>, bool);

impl OnVariant for Listing<'_, '_> {
    fn run<G: Game>(self, game: G) -> Result<(), Error> {
        let args = self.0;
        let catalogue = game.catalogue(&args.dir, Purpose::Info).map_err(|e| variant_error(e, &args.dir))?;
        let missing = info(&catalogue, &args.dir, args.json)?;
        let others = (missing && self.2).then(|| others_on_disk(&catalogue.variant(), &args.dir)).flatten();
        if let Some(others) = others {
            complain!("tablebase: some of these tables are not generated; {others}");
        }
        let Some(out) = &args.plot else { return Ok(()) };
        let mut written = tablebase_picture::plot(&catalogue, &args.dir, out, &progress::stderr())?;
        for chart in game.charts(&args.dir) {
            let (name, svg) = tablebase_picture::draw(&chart).map_err(Error::Plot)?;
            written.push(tablebase_picture::write_chart(out, &name, &svg)?);
        }
        report_charts(written, &args.dir)
    }
}

impl ForGame for Listing<'_, '_> {
    type Output = Result<(), Error>;
    fn run<G: Game>(self) -> Result<(), Error> {
        let (args, found) = (self.0, self.1.expect("counted"));
        for game in G::present(&args.dir) {
            if *found > 0 && !args.json {
                writeln!(output::stdout()).map_err(Error::Output)?;
            }
            *found += 1;
            OnVariant::run(Listing(args, None, false), game)?;
        }
        Ok(())
    }
}

struct Playing<'a>(&'a PlayArgs);

impl OnVariant for Playing<'_> {
    fn run<G: Game>(self, game: G) -> Result<(), Error> {
        let args = self.0;
        let start = args.from.clone().unwrap_or_else(|| game.start());
        let side = G::SIDES.iter().position(|s| Some(*s) == args.side.as_deref()).unwrap_or(0);
        // No limit of each search's own: play bounds the searches of each move together.
        let tablebase = game.tablebase(&args.dir, None);
        let (stdin, mut stdout) = (std::io::stdin().lock(), output::stdout());
        let echo = !std::io::IsTerminal::is_terminal(&std::io::stdin());
        let input = play::Input { lines: stdin, echo };
        let engine = play::Engine { seed: args.seed(), max_time: args.max_time };
        play::play(&tablebase, &game.title(), &start, side, engine, input, &mut stdout)
    }
}

/// The SVG picture of `position`, answered already: its moves' values as a probe within `limit`
/// settles them; `None` where it cannot be drawn.
fn picture<G: Draw>(game: &G, position: &str, limit: f64) -> Option<String> {
    let position = game.parse(position).ok()?;
    let probed = tablebase::search::within(limit, || tablebase::probe(game, &position)).ok()?;
    Some(game.svg(&position, &probed))
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
    let (line, limit) = (output.line, output.limit());
    if output.svg.is_some() && positions.first().is_none_or(|first| first == "-") {
        return Err(Error::Usage(
            "--svg draws a position given on the command line, not one read from standard input".into(),
        ));
    }
    let mut out = std::io::BufWriter::new(output::stdout());
    let code = match positions {
        [] => {
            return Err(Error::Usage(
                "no position given (pass positions, or - to read them from standard input)".into(),
            ));
        }
        [dash] if dash == "-" => {
            answer_lines(game, std::io::stdin().lock(), &mut out, format, line, Some(limit)).map_err(|e| {
                match e {
                    BatchError::Input(e) => Error::Input(e),
                    BatchError::Output(e, found) => cut_short(e, found),
                    BatchError::Changed(e) => Error::Probe(e),
                }
            })?
        }
        _ => {
            let mut code = 0;
            for (n, text) in positions.iter().enumerate() {
                // A table file changed under the reads (by another program) gives no answer, and
                // its error is the change's, whatever the reads gave.
                let reads = tablebase::probe::Reads::start();
                let answered = answer(game, text, format, line, Some(limit));
                // The picture of the first position, once it is answered: one that cannot be
                // (an illegal move, a value not settled with `--brief`) draws nothing, and
                // leaves a file already there as it was.
                let svg = output.svg.as_deref().filter(|_| n == 0 && answered.is_ok());
                let picture = svg.and_then(|path| Some((path, picture(game, text, limit)?)));
                match game.unchanged(reads).and(answered) {
                    Ok(answer) => {
                        if format == Format::Text && n > 0 {
                            writeln!(out).map_err(|e| cut_short(e, code))?;
                        }
                        writeln!(out, "{answer}").map_err(|e| cut_short(e, code))?;
                        if let Some((path, svg)) = picture {
                            std::fs::write(path, svg)
                                .map_err(|source| Error::File { path: path.to_path_buf(), source })?;
                        }
                    }
                    Err(e) => {
                        out.flush().map_err(|e| cut_short(e, code))?;
                        complain!("tablebase: '{}': {}", quote(text), explain(&e));
                        code = worse(code, probe_exit_code(&e));
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

fn generate(
    catalogue: &impl Catalogue,
    dir: &Path,
    storage: Storage,
    only: Option<&str>,
) -> Result<(), Error> {
    let progress = progress::stderr();
    let options = GenerateOptions { storage, only, progress: &progress };
    match tablebase::generate(catalogue, dir, &options) {
        Ok(_) => Ok(()),
        Err(e @ tablebase::BuildError::UnknownJob { .. }) => Err(Error::Usage(e.to_string())),
        Err(e) => Err(e.into()),
    }
}

fn verify<C: Catalogue>(catalogue: &C, dir: &Path, args: &VerifyArgs) -> Result<(), Error> {
    let progress = progress::stderr();
    let mut out = output::stdout();
    let (mut failed, mut missing) = (false, Vec::new());
    let mut journal = match args.resume {
        true => Some(Journal::open(catalogue, dir).map_err(Error::Table)?),
        false => None,
    };
    if let Some(journal) = journal.as_ref().filter(|j| j.unreadable > 0) {
        complain!(
            "tablebase: {}: {} line(s) not text (UTF-8), ignored: what they recorded is checked again",
            dir.join(tablebase::catalogue::JOURNAL_NAME).display(),
            journal.unreadable
        );
    }
    let checked = tablebase::verify(catalogue, dir, args.quick, journal.as_mut(), &progress, |outcome| {
        match &outcome {
            TableOutcome::Checked(report) => report.problems.iter().for_each(|p| complain!("tablebase: {p}")),
            TableOutcome::Missing { table, path, .. } => {
                complain!("tablebase: {}", TableError::Missing { path: path.clone() });
                missing.push(table.clone());
            }
            TableOutcome::NeedsUpgrade { table, path, version, .. } => {
                complain!("tablebase: {}", TableError::NeedsUpgrade { path: path.clone(), found: *version });
                missing.push(table.clone());
            }
            TableOutcome::Unusable { why, .. } => complain!("tablebase: {why}"),
        }
        failed |= outcome.failed();
        let line = if args.json { output::report_json(&outcome) } else { outcome.text() };
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
        return Err(Error::NotGenerated {
            tables: missing,
            command: generate_and_others(&catalogue.variant(), dir),
        });
    }
    Ok(())
}

/// Lists the tables; whether any is missing.
fn info(catalogue: &impl Catalogue, dir: &Path, json: bool) -> Result<bool, Error> {
    let rows = tablebase::info(catalogue, dir);
    let missing = rows.iter().any(|row| row.status == tablebase::catalogue::Status::Missing);
    let mut out = output::stdout();
    let mut write = |line: String| writeln!(out, "{line}").map_err(Error::Output);
    if json {
        rows.iter().try_for_each(|row| write(output::report_json(row)))?;
        return Ok(missing);
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
    Ok(missing)
}

fn report_charts(written: Vec<PathBuf>, dir: &Path) -> Result<(), Error> {
    match written.first() {
        None => Err(Error::NoCompleteTable { dir: dir.to_path_buf() }),
        Some(first) => {
            let dir = first.parent().unwrap_or(Path::new("."));
            complain!("tablebase: wrote {} chart(s) to {}", written.len(), dir.display());
            Ok(())
        }
    }
}

/// Output cut short by a reader that stopped (`| head`): the exit status of what was found so
/// far, or where nothing was wrong yet the 141 of a process stopped by SIGPIPE. Never 0: the
/// work was not all done, and a failure found before must not turn into success.
fn cut_short(e: std::io::Error, found: i32) -> Error {
    match (e.kind(), found) {
        (std::io::ErrorKind::BrokenPipe, 0) => Error::Reported(error::CUT_SHORT),
        (std::io::ErrorKind::BrokenPipe, found) => Error::Reported(found),
        // Any other failure (a closed descriptor, a full disk) is said, and exits 1 or with
        // what was found before, if worse.
        (_, found) if found > 1 => {
            complain!("tablebase: {}", tablebase::text::one_line(&Error::Output(e)));
            Error::Reported(found)
        }
        _ => Error::Output(e),
    }
}

/// What `bench` takes from the command line: its standard output, its progress on standard
/// error, and the batches of `probe --brief -`, which `bench probe-morris` times.
struct BenchHost;

impl tablebase_bench::Host for BenchHost {
    fn stdout(&self) -> Box<dyn Write + '_> {
        Box::new(output::stdout())
    }

    fn progress(&self) -> tablebase::Progress {
        progress::stderr()
    }

    fn answer_brief<T: Probe + Sync>(&self, tablebase: &T, lines: &[u8]) -> Option<i32> {
        batch::answer_lines(tablebase, lines, &mut std::io::sink(), output::Format::Brief, false, None).ok()
    }
}
