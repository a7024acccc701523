//! Errors of the command line; each maps to an exit code of docs/CLI.md, "Commands".

use std::fmt;
use std::io;
use std::path::Path;
use tablebase::catalogue::Variant;
use tablebase::game::{Game, VariantError};
use tablebase::games::connect4::SearchError;
use tablebase::games::{ForGame, with_game};
use tablebase::{BuildError, ProbeError, TableError};
use tablebase_picture::{ChartError, PlotError};

use super::games::as_probed;

/// `eprintln!` that never panics: with standard error a closed pipe (`2>&1 | head`), the
/// message is lost, and the process goes on to its exit status instead of dying of a panic.
macro_rules! complain {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}
pub(crate) use complain;

/// The exit status of a command whose output was cut short (a closed pipe) before it found
/// anything wrong: a shell's status for a process stopped by SIGPIPE (128 + 13).
pub const CUT_SHORT: i32 = 141;

#[derive(Debug)]
pub enum Error {
    /// A bad flag, a malformed or illegal position: exit 2.
    Usage(String),
    /// Reading standard input failed: exit 1.
    Input(io::Error),
    /// Writing results to standard output failed (a closed pipe, a full disk): exit 1.
    Output(io::Error),
    /// Writing a file the user asked for failed: exit 1.
    File { path: std::path::PathBuf, source: io::Error },
    /// A missing or damaged table: exit 1.
    Table(TableError),
    /// Generating or checking tables failed: exit 1.
    Build(BuildError),
    /// Drawing charts failed: exit 1.
    Chart(ChartError),
    /// Drawing a game's own chart failed: exit 1.
    Plot(PlotError),
    /// A position could not be probed (`play`, `bench`): exit 1, or 2 for a position that
    /// cannot arise.
    Probe(ProbeError),
    /// A benchmark's tables cannot answer a position it draws (`bench probe-morris`): exit 1.
    Unanswerable {
        /// The directory of the tables.
        dir: std::path::PathBuf,
        /// Why.
        source: ProbeError,
    },
    /// A search failed (`bench`): exit 1.
    Search(SearchError),
    /// A proof's journal could not be read or written, or is damaged (`bench cube-prove
    /// --journal`): exit 1.
    Journal(tablebase::games::cube::JournalError),
    /// A file the tables are made with cannot be used (a damaged proof journal): exit 1.
    Unusable(String),
    /// Tables the command needs are not generated or need an upgrade (`verify`): exit 1.
    NotGenerated {
        /// The tables, `8-7, 8-8`.
        tables: Vec<String>,
        /// The command that generates them.
        command: String,
    },
    /// Tables to check or list are not on disk in a form their settings name: exit 1.
    NotOnDisk {
        /// What is missing.
        what: String,
        /// The command that makes them.
        command: String,
    },
    /// No tables of any game in the directory (`info`, `verify` without a game): exit 1.
    NoTables {
        /// The directory.
        dir: std::path::PathBuf,
        /// Commands that make small tables of each game.
        commands: Vec<String>,
    },
    /// No complete table to draw or to measure (`info --plot`, `bench`): exit 1.
    NoCompleteTable {
        /// The directory.
        dir: std::path::PathBuf,
    },
    /// A searched value that its proof does not confirm (`bench connect4-book`): exit 1.
    NotConfirmed {
        /// The position's index in its ply.
        index: u64,
        /// The value the search found.
        value: tablebase::Value,
    },
    /// More memory asked for than this process can be given (the machine's, its `ulimit -v`, its
    /// control group's): exit 1.
    Memory {
        /// What asks for it, `--table-mb 100000`.
        what: String,
        /// Bytes asked for.
        needed: u64,
        /// Bytes the process can be given now.
        available: u64,
    },
    /// The worker threads could not be started (a limit on the process: `ulimit -v`, `ulimit
    /// -u`): exit 1.
    Threads {
        /// Which: `64 worker threads`, `the worker threads` (rayon's default number), `the
        /// command's thread`.
        which: String,
        /// What the system said.
        why: String,
    },
    /// `serve` cannot listen or stopped serving: exit 1.
    Serve {
        /// The address.
        address: String,
        /// What the system said.
        source: io::Error,
    },
    /// `verify` found a table that is wrong: exit 3 (details already reported).
    VerifyFailed,
    /// Failures already reported line by line; exit with this code.
    Reported(i32),
}

impl Error {
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Usage(_) => 2,
            Error::Probe(e) => probe_exit_code(e),
            Error::VerifyFailed => 3,
            Error::Reported(code) => *code,
            _ => 1,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Usage(message) => write!(f, "{message}"),
            Error::Plot(e) => write!(f, "{e}"),
            Error::Probe(e) => write!(f, "{}", explain(e)),
            Error::Search(e) => write!(f, "{e}"),
            Error::Journal(e) => write!(f, "{e}"),
            Error::Unusable(what) => write!(f, "{what}"),
            Error::Unanswerable { dir, source } => {
                write!(f, "{}: cannot probe every position drawn: {}", dir.display(), explain(source))
            }
            Error::NotGenerated { tables, command } => write!(
                f,
                "{} table(s) not generated or outdated ({}): run {command}",
                tables.len(),
                tables.join(", ")
            ),
            Error::NotOnDisk { what, command } => write!(f, "{what}: run {command}"),
            Error::NoTables { dir, commands } => {
                write!(
                    f,
                    "{}: no tables of any game; make some with {}",
                    dir.display(),
                    commands.join(" or ")
                )
            }
            Error::NoCompleteTable { dir } => {
                write!(f, "{}: no complete table: generate tables first", dir.display())
            }
            Error::NotConfirmed { index, value } => {
                write!(f, "index {index}: {value} found but not confirmed")
            }
            Error::Memory { what, needed, available } => write!(
                f,
                "{what}: needs {} of memory, and this process can be given {} (the least of the machine's available memory, ulimit -v and its control group's limit)",
                tablebase::resources::bytes(*needed),
                tablebase::resources::bytes(*available)
            ),
            Error::Serve { address, .. } => write!(f, "serving on {address}"),
            Error::Threads { which, why } => write!(
                f,
                "could not start {which}: {why} (a limit on this process, such as ulimit -v or ulimit -u, may be too low)"
            ),
            Error::Input(_) => write!(f, "standard input"),
            Error::Output(_) => write!(f, "standard output"),
            Error::File { path, .. } => write!(f, "{}", path.display()),
            Error::Table(e) => write!(f, "{e}"),
            Error::Build(e) => write!(f, "{e}"),
            Error::Chart(e) => write!(f, "{e}"),
            Error::VerifyFailed => write!(f, "verification failed"),
            Error::Reported(code) => write!(f, "exit status {code}"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Input(e)
            | Error::Output(e)
            | Error::File { source: e, .. }
            | Error::Serve { source: e, .. } => Some(e),
            Error::Probe(e) => std::error::Error::source(e),
            Error::Search(e) => std::error::Error::source(e),
            // Their messages are shown as this error's own; the chain goes on with their causes.
            Error::Table(e) => std::error::Error::source(e),
            Error::Build(e) => std::error::Error::source(e),
            Error::Chart(e) => std::error::Error::source(e),
            _ => None,
        }
    }
}

/// A benchmark's error as the command line's, with its message and exit status.
impl From<tablebase_bench::Error> for Error {
    fn from(e: tablebase_bench::Error) -> Error {
        use tablebase_bench::Error as Bench;
        match e {
            Bench::Usage(message) => Error::Usage(message),
            Bench::Output(e) => Error::Output(e),
            Bench::File { path, source } => Error::File { path, source },
            Bench::Table(e) => Error::Table(e),
            Bench::Unanswerable { dir, source } => Error::Unanswerable { dir, source },
            Bench::Search(e) => Error::Search(e),
            Bench::Journal(e) => Error::Journal(e),
            Bench::NotOnDisk { what, command } => Error::NotOnDisk { what, command },
            Bench::NoCompleteTable { dir } => Error::NoCompleteTable { dir },
            Bench::NotConfirmed { index, value } => Error::NotConfirmed { index, value },
            Bench::Memory { what, needed, available } => Error::Memory { what, needed, available },
            Bench::VerifyFailed => Error::VerifyFailed,
            Bench::Reported(code) => Error::Reported(code),
        }
    }
}

impl From<TableError> for Error {
    fn from(e: TableError) -> Error {
        Error::Table(e)
    }
}

impl From<ChartError> for Error {
    fn from(e: ChartError) -> Error {
        Error::Chart(e)
    }
}

impl From<BuildError> for Error {
    fn from(e: BuildError) -> Error {
        Error::Build(e)
    }
}

/// The command that generates `variant`'s tables in `dir`: `tablebase generate morris --stones 9
/// --dir tables`.
pub fn generate_command(variant: &Variant, dir: &Path) -> String {
    format!("{} --dir {}", generate_without_dir(variant), shown_dir(dir).display())
}

/// The command that generates `variant`'s tables in the default directory.
pub fn generate_without_dir(variant: &Variant) -> String {
    let mut command = format!("tablebase generate {}", variant.game);
    for flag in flags(variant) {
        command.push(' ');
        command.push_str(&flag);
    }
    command
}

/// A variant's settings as the command line writes them: `--stones 4`, `--no-opening`.
fn flags(variant: &Variant) -> Vec<String> {
    let flag = |(name, value): &(&str, Option<String>)| match value {
        Some(value) => format!("--{name} {value}"),
        None => format!("--{name}"),
    };
    variant.settings.iter().map(flag).collect()
}

/// The other variants of `variant`'s game whose tables are in `dir`, for a message that
/// `variant`'s tables are missing: `the directory holds Morris with 4 stones each (--stones 4)`,
/// where the user built one variant and asked for another (a default). `None` where there are
/// none, and where `variant` has no setting a probe could give otherwise (Morris's moving
/// phase, whose tables answer whatever the stones). Not the directory's name: the page shows
/// this to clients that are not to learn it. The answer is kept while the directory does not
/// change, so that a batch of failing lines lists it once.
pub fn others_on_disk(variant: &Variant, dir: &Path) -> Option<String> {
    use std::collections::HashMap;
    use std::sync::{Mutex, OnceLock};
    type Key = (Variant, std::path::PathBuf, Option<std::time::SystemTime>);
    static KEPT: OnceLock<Mutex<HashMap<Key, Option<String>>>> = OnceLock::new();
    // A file made, renamed or removed in the directory changes its modification time.
    let changed = std::fs::metadata(dir).and_then(|m| m.modified()).ok();
    let key = (variant.clone(), dir.to_path_buf(), changed);
    let kept = KEPT.get_or_init(Default::default);
    if let Some(said) = kept.lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
        return said.clone();
    }
    let said = list_others_on_disk(variant, dir);
    let mut kept = kept.lock().unwrap_or_else(|e| e.into_inner());
    if kept.len() > 64 {
        kept.clear();
    }
    kept.insert(key, said.clone());
    said
}

/// [`others_on_disk`], found again.
fn list_others_on_disk(variant: &Variant, dir: &Path) -> Option<String> {
    struct OnDisk<'a>(&'a Variant, &'a Path);
    impl ForGame for OnDisk<'_> {
        type Output = Vec<String>;
        fn run<G: Game>(self) -> Vec<String> {
            let asked = as_probed::<G>(self.0);
            if asked.settings.is_empty() {
                return Vec::new();
            }
            G::present(self.1)
                .into_iter()
                .filter_map(|other| {
                    let probed = as_probed::<G>(&other.variant());
                    (probed != asked).then(|| match probed.settings.is_empty() {
                        true => other.title(),
                        false => format!("{} ({})", other.title(), flags(&probed).join(" ")),
                    })
                })
                .collect()
        }
    }
    let others = with_game(variant.game, OnDisk(variant, dir)).unwrap_or_default();
    (!others.is_empty()).then(|| format!("the directory holds {}", others.join(" and ")))
}

/// `dir` as a message names it: `.` for the current directory.
fn shown_dir(dir: &Path) -> &Path {
    match dir.as_os_str().is_empty() {
        true => Path::new("."),
        false => dir,
    }
}

/// [`generate_command`], and the other variants of the game that `dir` holds, if any
/// ([`others_on_disk`]): `... --dir d4; the directory holds Morris with 4 stones each (--stones 4)`.
pub fn generate_and_others(variant: &Variant, dir: &Path) -> String {
    match others_on_disk(variant, dir) {
        Some(others) => format!("{}; {others}", generate_command(variant, dir)),
        None => generate_command(variant, dir),
    }
}

/// A probing error as the command line and the page say it: a table not generated comes with
/// the command that generates it, and the variants of its game that are there instead.
pub fn explain(error: &ProbeError) -> String {
    match error {
        ProbeError::NotGenerated { path, variant } => {
            let dir = path.parent().unwrap_or(Path::new("."));
            format!("{error} (run: {})", generate_and_others(variant, dir))
        }
        _ => error.to_string(),
    }
}

/// The exit status of a position that could not be probed: 2 for a position that is malformed
/// or cannot arise, 1 for tables that cannot answer.
pub fn probe_exit_code(error: &ProbeError) -> i32 {
    match error {
        ProbeError::Illegal(_) => 2,
        _ => 1,
    }
}

/// Settings that name no variant: a usage error, or tables to look for that are not on disk
/// (with the command that makes them in `dir`).
pub fn variant_error(error: VariantError, dir: &Path) -> Error {
    match error {
        VariantError::Missing { setting, example } => {
            Error::Usage(format!("--{setting}: missing (for example --{setting} {example})"))
        }
        VariantError::Invalid { setting, value, expected } => {
            Error::Usage(format!("--{setting} '{}': {expected}", tablebase::text::quote(&value)))
        }
        VariantError::Contradiction { why, .. } => Error::Usage(why),
        VariantError::NotOnDisk { generate, what } => {
            Error::NotOnDisk { what, command: generate_command(&generate, dir) }
        }
        VariantError::Unusable { what } => Error::Unusable(what),
    }
}
