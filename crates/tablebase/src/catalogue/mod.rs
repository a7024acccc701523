//! The catalogue of a game: which tables it has, what each depends on, and how each is built
//! and checked. [`generate`], [`verify`] and [`info`] are written once against it, so every
//! game behaves the same way: dependency order, finished tables skipped, resumption after a
//! crash, every table reported even after a failure.
//!
//! A game with layers (every move leaves its layer) implements
//! [`LayeredGame`](crate::layered::LayeredGame) instead and gets its catalogue from
//! [`Layered`](crate::layered::Layered); a game whose positions repeat implements this trait
//! directly, with a `CyclicSet` per job.

mod chain;
mod generate;
mod info;
mod journal;
mod plan;
mod variant;
mod verify;

pub use chain::{Chain, Link};
pub use generate::{Build, Estimate, GenerateOptions, JobReport, Storage, estimate, generate};
internal_use!(generate::{JOB_LOCKS, room});
pub use info::{InfoRow, info};
pub use journal::{Journal, TableParts};
internal_use!(journal::JOURNAL_NAME);
pub use plan::{PlannedJob, plan};
internal_use!(plan::{SMALL_JOB_CPU_SECONDS, job_id});
/// The counts and the status of a table, as [`TableReport`] and [`InfoRow`] give them.
pub use crate::table::{Counts, Status};
pub use variant::{Settings, Variant};
pub use verify::{TableOutcome, TableReport, verify};

use crate::progress::Progress;
pub use crate::solve::SolveError;
use crate::solve::{CheckedParts, Consistency};
use crate::table::{FileSpec, TableError};
use std::fmt;
use std::path::{Path, PathBuf};

/// The published figures of one table, where there are any.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Reference {
    /// Distinct positions, as the references count them.
    pub positions: Option<u64>,
    /// Wins, losses and draws for the side to move.
    pub wdl: Option<[u64; 3]>,
}

impl Reference {
    /// Whether `counts` agree with every figure given; `None` without figures.
    pub fn matches(&self, counts: &Counts) -> Option<bool> {
        if self.positions.is_none() && self.wdl.is_none() {
            return None;
        }
        let positions = self.positions.is_none_or(|p| p == counts.positions());
        let wdl = self.wdl.is_none_or(|w| w == [counts.win, counts.loss, counts.draw]);
        Some(positions && wdl)
    }
}

/// The tables of a game, as `generate`, `verify` and `info` see them.
pub trait Catalogue: Sync {
    /// A table: a Morris class, a Connect Four ply. Its display is the `table` field of docs/CLI.md's
    /// "JSON" (`8-7`, `ply 12`).
    type Key: Copy + fmt::Display + Send + Sync;
    /// A unit of generation, writing one or more files.
    type Job: Copy + fmt::Display;

    /// The game in file headers and reports: `morris`, `connect4`; the key of
    /// [`Catalogue::variant`], which says it once.
    fn game(&self) -> &'static str {
        self.variant().game
    }
    /// The game and its variant in messages: `morris`, `connect4 6x5`.
    fn name(&self) -> String;
    /// One line that says what the tables are, for `info`.
    fn title(&self) -> String;
    /// The title of the part of the catalogue `key` belongs to: `info` lists each part under
    /// its title, with its own total. One part by default.
    fn section(&self, _key: Self::Key) -> String {
        self.title()
    }
    /// Every table, in the order `info` and `verify` list them.
    fn keys(&self) -> Vec<Self::Key>;
    /// The value table of `key`.
    fn table(&self, dir: &Path, key: Self::Key) -> FileSpec;
    /// The set of reachable positions that numbers `key`'s entries, for a layered game.
    fn set(&self, _dir: &Path, _key: Self::Key) -> Option<FileSpec> {
        None
    }
    /// The size of `key`'s index space.
    fn index_size(&self, key: Self::Key) -> u64;
    /// The published figures for `key`.
    fn reference(&self, key: Self::Key) -> Reference;
    /// Whether a complete table's counts agree with the reference; a game may add figures that
    /// span tables (a board's total, the value of its start).
    fn reference_match(&self, _dir: &Path, key: Self::Key, counts: &Counts) -> Option<bool> {
        self.reference(key).matches(counts)
    }
    /// Every job, each after the jobs whose files it reads.
    fn jobs(&self) -> Vec<Self::Job>;
    /// The files `job` writes: when all are complete, the job is skipped.
    fn outputs(&self, dir: &Path, job: Self::Job) -> Vec<FileSpec>;
    /// The files `job` reads, each written by a job before it: the edges of the job graph
    /// (`plan --json`), and what `generate --only` requires complete before it starts.
    fn inputs(&self, dir: &Path, job: Self::Job) -> Vec<FileSpec>;
    /// What `job` needs at most: the bytes of the files it writes and of the memory it holds
    /// (beyond files it maps, which the page cache can give back). `generate` refuses a run
    /// whose unfinished jobs cannot fit the disk or the memory.
    fn needs(&self, dir: &Path, job: Self::Job) -> Needs;
    /// Runs `job`, writing its files; returns a few words on what it made, for the log.
    fn build(&self, dir: &Path, job: Self::Job, build: &Build) -> Result<String, BuildError>;
    /// Recomputes every value of `key` from its successors; `None` when a table it depends on
    /// is missing or unusable (reported on its own). A table that takes hours to check (an
    /// opening book's searched ply) may skip the `parts` found consistent before and record
    /// new ones; the others check the whole table.
    fn check(
        &self,
        dir: &Path,
        key: Self::Key,
        parts: Option<&dyn CheckedParts>,
        progress: &Progress,
    ) -> Result<Option<Consistency>, BuildError>;
    /// The position with index `index` of `key`, in the game's notation, for reports.
    fn describe(&self, dir: &Path, key: Self::Key, index: u64) -> String;
    /// The variant that names these tables: what generates them, for messages about missing
    /// ones.
    fn variant(&self) -> Variant;
}

/// Disk and memory a job needs at most, in bytes, and the CPU it is expected to take.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Needs {
    /// The files it writes.
    pub disk: u64,
    /// The memory it holds while it runs.
    pub memory: u64,
    /// CPU seconds (all threads) on the machine of docs/BENCHMARKS.md, from the rate measured
    /// there for such jobs; `None` where no rate is known. Not rounded: a run of many small
    /// jobs adds up their fractions of a second.
    pub cpu_seconds: Option<f64>,
    /// Whether `disk` is only a bound that an earlier job of the run makes exact (a layer's
    /// table before its forward pass has counted its positions).
    pub disk_bounded: bool,
}

/// The CPU seconds a job takes whatever its size (the files it opens and maps, the arrays it
/// allocates): the smallest Lasker sectors and Connect Four plies take about 0.01 s each, so
/// that the 42 jobs of Connect Four 5x4 take half its 0.8 s.
pub const JOB_START_SECONDS: f64 = 0.01;

/// The CPU a kind of job spends per position, as a power of the job's size fitted to the runs
/// measured on the machine of docs/BENCHMARKS.md ("Estimates against measured runs"): the
/// larger a job, the more of its reads miss the cache, so that one rate for every size would
/// be twice too high for a small game or too low for a large one.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rate {
    /// CPU nanoseconds (all threads) per position of a job of a million positions.
    pub nanos_at_million: f64,
    /// The exponent of the job's positions (in millions) that the rate grows with; 0 for a
    /// rate that does not grow.
    pub growth: f64,
    /// The least a position costs, whatever the job's size: the work of a position (its moves,
    /// their indexes) that the power fitted to large jobs, mostly their cache misses, would
    /// take for nothing at small ones. 0 where none was measured.
    pub floor_nanos: f64,
}

impl Rate {
    /// `nanos_at_million` nanoseconds a position at a million positions, times the positions in
    /// millions to the power `growth`.
    pub const fn new(nanos_at_million: f64, growth: f64) -> Rate {
        Rate { nanos_at_million, growth, floor_nanos: 0.0 }
    }

    /// The same rate, never less than `floor_nanos` a position.
    pub const fn with_floor(self, floor_nanos: f64) -> Rate {
        Rate { floor_nanos, ..self }
    }

    /// The CPU seconds of a job of `positions`.
    pub fn seconds(self, positions: u64) -> f64 {
        let n = positions as f64;
        n * (self.nanos_at_million * (n / 1e6).powf(self.growth)).max(self.floor_nanos) / 1e9
    }
}

/// Why generating or checking tables failed.
#[derive(Debug)]
pub enum BuildError {
    /// A table or set file cannot be read or written.
    Table(TableError),
    /// Solving or checking a table failed.
    Solve {
        /// The game and table, `morris 8-7`.
        table: String,
        /// What went wrong.
        source: SolveError,
    },
    /// Another `generate` is running on the same directory.
    Locked {
        /// The directory.
        dir: PathBuf,
        /// The process that holds the lock, when it says.
        holder: Option<u32>,
    },
    /// The run cannot fit this machine: it says what it needs and what there is.
    TooLarge {
        /// The game and variant, `connect4 7x6`.
        name: String,
        /// Bytes of disk the unfinished tables are known to need at once.
        disk: u64,
        /// Bytes free where they go.
        disk_free: u64,
        /// Bytes of memory the largest job needs.
        memory: u64,
        /// Bytes of memory available.
        memory_available: u64,
        /// CPU seconds the run would take, where estimated.
        cpu_seconds: Option<f64>,
    },
    /// Another `generate --only` runs the same job in the same directory.
    JobLocked {
        /// The directory.
        dir: PathBuf,
        /// The job.
        id: String,
        /// The process that holds the lock, when it says.
        holder: Option<u32>,
    },
    /// `generate --only` names no job of the game's graph (`plan --json` lists them).
    UnknownJob {
        /// The game and variant, `morris`.
        name: String,
        /// The id given.
        id: String,
    },
    /// A file that `generate --only` reads is not there complete and sound.
    Input {
        /// The job asked for.
        job: String,
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        why: String,
        /// The job that writes it.
        writer: Option<String>,
    },
    /// The table directory (or its lock file) cannot be created.
    Directory {
        /// The directory.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
}

impl BuildError {
    /// A solver error while working on `table`.
    pub fn solve(table: impl fmt::Display) -> impl FnOnce(SolveError) -> BuildError {
        move |source| match source {
            // A damaged file says which file it is; naming the table again adds nothing.
            SolveError::Table(e) => BuildError::Table(*e),
            source => BuildError::Solve { table: table.to_string(), source },
        }
    }
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BuildError::Table(e) => write!(f, "{e}"),
            BuildError::Solve { table, source } => write!(f, "{table}: {source}"),
            BuildError::Locked { dir, holder } => {
                let holder = holder.map_or("another process".to_string(), |pid| format!("process {pid}"));
                write!(f, "{}: generate is already running there ({holder})", dir.display())
            }
            BuildError::JobLocked { dir, id, holder } => {
                let holder = holder.map_or("another process".to_string(), |pid| format!("process {pid}"));
                write!(f, "{}: job {id} is already running there ({holder})", dir.display())
            }
            BuildError::UnknownJob { name, id } => {
                write!(f, "{name} has no job {} (plan --json lists them)", crate::text::quote(id))
            }
            BuildError::Input { job, path, why, writer } => {
                let why = why.strip_prefix(&format!("{}: ", path.display())).unwrap_or(why);
                write!(f, "job {job} cannot start: {}: {why}", path.display())?;
                match writer {
                    Some(writer) => write!(f, " (job {writer} writes it)"),
                    None => Ok(()),
                }
            }
            BuildError::TooLarge { name, disk, disk_free, memory, memory_available, cpu_seconds } => {
                let gb = |n: &u64| crate::resources::bytes(*n);
                write!(
                    f,
                    "{name} does not fit this machine: it needs {} of disk at once ({} free) and {} of memory ({} available)",
                    gb(disk),
                    gb(disk_free),
                    gb(memory),
                    gb(memory_available)
                )?;
                match cpu_seconds {
                    Some(cpu) => write!(f, ", and about {} of CPU", generate::duration(*cpu)),
                    None => Ok(()),
                }
            }
            BuildError::Directory { path, .. } => {
                write!(f, "{}: cannot create the table directory or its lock file", path.display())
            }
        }
    }
}

impl std::error::Error for BuildError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            BuildError::Table(e) => e.source(),
            BuildError::Solve { source, .. } => source.source(),
            BuildError::Directory { source, .. } => Some(source),
            BuildError::Locked { .. }
            | BuildError::JobLocked { .. }
            | BuildError::UnknownJob { .. }
            | BuildError::Input { .. }
            | BuildError::TooLarge { .. } => None,
        }
    }
}

impl From<TableError> for BuildError {
    fn from(e: TableError) -> BuildError {
        BuildError::Table(e)
    }
}
