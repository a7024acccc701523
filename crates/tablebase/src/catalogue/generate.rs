//! `generate`, once for every game: jobs in dependency order, finished ones skipped.

use super::{BuildError, Catalogue, job_id};
use crate::progress::Progress;
use crate::resources::{cpu_seconds, peak_memory};
use crate::table::{FileKind, FileSpec, Status, check_file, free_space, pack, pack_set, set_aside, upgrade};
use std::collections::HashMap;
use std::fmt;
use std::path::Path;
use std::time::Instant;

/// What a job may ask of the run it is part of. A job opens the files it builds on with
/// `Check::Checksum`: checked whole once (a fast sequential read), so
/// nothing is built on a damaged table and the solver's reads skip the per-block checks.
#[derive(Debug)]
pub struct Build<'a> {
    /// Where to report progress.
    pub progress: &'a Progress,
}

/// What `generate` did with one job.
#[derive(Clone, Debug)]
pub struct JobReport {
    /// The job, as the catalogue names it.
    pub job: String,
    /// Whether its files were complete already.
    pub skipped: bool,
    /// Wall time.
    pub seconds: f64,
    /// User and system time of all threads, where the system tells.
    pub cpu_seconds: Option<f64>,
}

/// How [`generate`] runs: how it leaves the tables, which jobs it runs, where its progress goes.
/// `GenerateOptions::default()` is every job left, compressed tables, no progress.
#[derive(Debug, Clone, Copy)]
pub struct GenerateOptions<'a> {
    /// How the value tables are left.
    pub storage: Storage,
    /// One job of the plan, by its id (`plan --json`'s `id`, [`PlannedJob::id`](crate::catalogue::PlannedJob::id)), for a scheduler that
    /// runs the job graph itself; `None` for every job left.
    pub only: Option<&'a str>,
    /// Where progress goes.
    pub progress: &'a Progress,
}

/// The progress of `GenerateOptions::default()`: none.
static NO_PROGRESS: Progress = Progress::hidden();

impl Default for GenerateOptions<'_> {
    fn default() -> Self {
        GenerateOptions { storage: Storage::Compressed, only: None, progress: &NO_PROGRESS }
    }
}

/// Generates the tables of `catalogue` into `dir`, with what each job did.
///
/// Every job left: the jobs in dependency order, skipping those whose files are complete. A job
/// interrupted before is done again from its start (its temporary files rewritten), which gives
/// the same bytes.
///
/// With [`GenerateOptions::only`], the one job of that id: nothing when its files are complete
/// and sound, an error naming the first input that is not complete (the scheduler runs jobs out
/// of order, or a file was lost), and never any other job. Jobs on different files run side by
/// side in one directory: each holds its own lock, and all of them together keep out a run of
/// every job.
///
/// Solvers write raw tables; with [`Storage::Compressed`] each is compressed in place once the
/// last job that reads it is done (tables found raw, from an earlier run or an older program,
/// too).
pub fn generate<C: Catalogue>(
    catalogue: &C,
    dir: &Path,
    options: &GenerateOptions,
) -> Result<Vec<JobReport>, BuildError> {
    match options.only {
        Some(id) => Ok(vec![generate_only(catalogue, dir, id, options.storage, options.progress)?]),
        None => generate_all(catalogue, dir, options.storage, options.progress),
    }
}

/// How `generate` leaves the value tables it makes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Storage {
    /// Compressed (format version 4) once no later job reads them: the default.
    Compressed,
    /// Raw (format version 3): a byte per position, the fastest to probe.
    Raw,
}

/// Every job left of `catalogue`.
fn generate_all<C: Catalogue>(
    catalogue: &C,
    dir: &Path,
    storage: Storage,
    progress: &Progress,
) -> Result<Vec<JobReport>, BuildError> {
    std::fs::create_dir_all(dir)
        .map_err(|source| BuildError::Directory { path: dir.to_path_buf(), source })?;
    let _lock = lock_directory(dir)?;
    let plan = estimate(catalogue, dir, storage);
    check_fits(catalogue, &plan, dir)?;
    let name = catalogue.name();
    if plan.jobs > 0 {
        progress.message(&format!("{name}: {plan}"));
    }
    // Where only the bounds of tables not counted yet exceed the disk, the run starts, and
    // each job is checked again once the forward passes have made more of them exact.
    let recheck = plan.disk > room(dir).0.unwrap_or(u64::MAX);
    if recheck {
        progress.message(&format!(
            "{name}: the bound exceeds the free disk; the forward passes count the positions, and the \
             run stops before a job once what they count does not fit"
        ));
    }
    let jobs = catalogue.jobs();
    let last_read = last_reads(catalogue, dir, &jobs);
    std::thread::scope(|scope| {
        let mut compressor = Compressor::start(scope, progress);
        let mut reports = Vec::new();
        for (at, &job) in jobs.iter().enumerate() {
            compressor.check()?;
            if let Some(skipped) = skip_if_sound(catalogue, dir, job, progress)? {
                reports.push(skipped);
            } else {
                if recheck {
                    check_fits(catalogue, &estimate(catalogue, dir, storage), dir)?;
                }
                if progress.stop_requested() {
                    return Err(BuildError::solve(format!("{name} {job}"))(
                        crate::solve::SolveError::Stopped,
                    ));
                }
                reports.push(run_job(catalogue, dir, job, progress)?);
            }
            if storage == Storage::Compressed {
                for spec in last_read.iter().filter(|(_, last)| *last == at).map(|(spec, _)| spec) {
                    compressor.compress(spec.clone())?;
                }
            }
        }
        compressor.finish()?;
        Ok(reports)
    })
}

/// Compresses the tables no later job reads, beside the jobs that follow when the run has more
/// than one thread: learning a table's code is one thread's work (seconds for a large table),
/// which would otherwise leave the other threads idle between two jobs (`--up-to 7-7` on 2
/// threads, 25 tables: 338 s in turn, 322 s beside). With one thread, in turn, so that
/// `--threads 1` uses one core.
/// The tables are compressed in the order given, and the bytes do not depend on the order. A
/// job's CPU in its log line then includes the compressing done beside it.
struct Compressor<'scope, 'progress> {
    /// Where tables go to be compressed beside the jobs, with the thread doing it; `None` when
    /// they are compressed in turn.
    beside: Option<(std::sync::mpsc::Sender<FileSpec>, CompressorThread<'scope>)>,
    progress: &'progress Progress,
}

/// The thread that compresses tables beside the jobs, with what it ended with.
type CompressorThread<'scope> = std::thread::ScopedJoinHandle<'scope, Result<(), BuildError>>;

impl<'scope, 'progress: 'scope> Compressor<'scope, 'progress> {
    fn start<'env>(scope: &'scope std::thread::Scope<'scope, 'env>, progress: &'progress Progress) -> Self {
        if rayon::current_num_threads() <= 1 {
            return Compressor { beside: None, progress };
        }
        // A thread outside every pool does its parallel work (checksums) on rayon's global pool:
        // the command line's. A caller whose work runs on a pool of its own (the Python package,
        // which builds a new one after a fork, where the global one would wait forever on the
        // parent's threads) gets a pool of the same size for compressing.
        let own_pool = match rayon::current_thread_index() {
            None => None,
            Some(_) => {
                match rayon::ThreadPoolBuilder::new().num_threads(rayon::current_num_threads()).build() {
                    Ok(pool) => Some(pool),
                    Err(_) => return Compressor { beside: None, progress },
                }
            }
        };
        let (sender, tables) = std::sync::mpsc::channel::<FileSpec>();
        let worker = scope.spawn(move || {
            let work = move || tables.iter().try_for_each(|spec| compress(&spec, progress));
            match own_pool {
                Some(pool) => pool.install(work),
                None => work(),
            }
        });
        Compressor { beside: Some((sender, worker)), progress }
    }

    /// Compresses `spec`, now or beside the next job; an error from one compressed before.
    fn compress(&mut self, spec: FileSpec) -> Result<(), BuildError> {
        match &self.beside {
            None => compress(&spec, self.progress),
            Some((sender, _)) => match sender.send(spec) {
                Ok(()) => Ok(()),
                // The thread stopped (on an error, which `finish` returns): the table is then
                // compressed here, so none is left raw.
                Err(std::sync::mpsc::SendError(spec)) => {
                    self.finish()?;
                    compress(&spec, self.progress)
                }
            },
        }
    }

    /// The error of a table compressed beside the jobs, if one failed: the run stops before
    /// its next job, as it would have had the table been compressed in turn.
    fn check(&mut self) -> Result<(), BuildError> {
        match &self.beside {
            Some((_, worker)) if worker.is_finished() => self.finish(),
            _ => Ok(()),
        }
    }

    /// Waits until every table handed over is compressed.
    fn finish(&mut self) -> Result<(), BuildError> {
        match self.beside.take() {
            None => Ok(()),
            Some((sender, worker)) => {
                drop(sender);
                worker.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            }
        }
    }
}

/// Every file the jobs write, with the position in `jobs` of the job after which it is
/// compressed: a value table once the last job that reads it is done (its writer's, when none
/// does), since nothing reads it raw again; a set as soon as no reader follows the job just
/// done, since a set is read in a walk that decodes it whole. A layered game's sets are read by
/// the next forward pass and then only when the backward pass comes back to them: raw all
/// together, Connect Four 6x6's would take 85 GB.
fn last_reads<C: Catalogue>(catalogue: &C, dir: &Path, jobs: &[C::Job]) -> Vec<(FileSpec, usize)> {
    file_uses(catalogue, dir, jobs)
        .into_iter()
        .map(|file| {
            let at = compressed_after(file.spec.kind, file.written, &file.reads);
            (file.spec, at)
        })
        .collect()
}

/// A file a job writes, with who writes and reads it, by position in the plan's jobs.
struct FileUse {
    spec: FileSpec,
    /// The job that writes it.
    written: usize,
    /// The jobs that read it, ascending.
    reads: Vec<usize>,
}

/// Every file the jobs write, in the order of its writers, with the jobs that read it.
fn file_uses<C: Catalogue>(catalogue: &C, dir: &Path, jobs: &[C::Job]) -> Vec<FileUse> {
    let mut readers: HashMap<std::path::PathBuf, Vec<usize>> = HashMap::new();
    for (at, &job) in jobs.iter().enumerate() {
        for input in catalogue.inputs(dir, job) {
            readers.entry(input.path).or_default().push(at);
        }
    }
    jobs.iter()
        .enumerate()
        .flat_map(|(at, &job)| catalogue.outputs(dir, job).into_iter().map(move |spec| (spec, at)))
        .map(|(spec, written)| {
            let reads = readers.get(&spec.path).cloned().unwrap_or_default();
            FileUse { spec, written, reads }
        })
        .collect()
}

/// The position of the job after which a file of `kind`, written by the job at `written` and
/// read by those at `reads` (ascending), is compressed: see [`last_reads`].
fn compressed_after(kind: FileKind, written: usize, reads: &[usize]) -> usize {
    let last = reads.last().copied().unwrap_or(written).max(written);
    match kind {
        FileKind::Table => last,
        FileKind::Set => idle_after(written, reads).unwrap_or(last),
    }
}

/// The first job from `written` on after which the next of `reads` (ascending job positions) is
/// not the job that follows, if any is.
fn idle_after(written: usize, reads: &[usize]) -> Option<usize> {
    let mut at = written;
    for &read in reads.iter().filter(|&&read| read > written) {
        if read > at + 1 {
            return Some(at);
        }
        at = read;
    }
    None
}

/// Compresses the value table or set `spec` in place when it is complete and raw, with a
/// message; a file compressed already, or not complete (a run cut short), is left alone.
fn compress(spec: &FileSpec, progress: &Progress) -> Result<(), BuildError> {
    let Status::Complete(raw) = Status::of(spec) else { return Ok(()) };
    if raw.packing.is_some() {
        return Ok(());
    }
    let packed = match spec.kind {
        FileKind::Table => pack(spec, raw.index_size)?,
        FileKind::Set => pack_set(spec)?,
    };
    if packed.packing.is_none() {
        return Ok(()); // no smaller compressed: left raw
    }
    let before = raw.file_length(spec.kind);
    let after = packed.file_length(spec.kind);
    progress.message(&format!(
        "{}: compressed, {} to {} ({:.1}%)",
        spec.path.display(),
        crate::resources::bytes(before),
        crate::resources::bytes(after),
        100.0 * after as f64 / before.max(1) as f64
    ));
    Ok(())
}

/// For `generate --only`: compresses the files around `job` (those it reads and those it
/// writes) that no job still to run reads raw: a value table once every job reading it has its
/// files complete; a set once the readers of its first run in the plan's order have theirs (a
/// later reader decodes it whole, as in one process: see [`last_reads`]). A file is compressed
/// under its writer's job lock, so that two jobs finishing together do not both compress it
/// (the one refused leaves it to the other); a reader that has the raw file open keeps reading
/// it, since compressing writes a new file and renames it over the old.
fn compress_finished<C: Catalogue>(
    catalogue: &C,
    dir: &Path,
    job: C::Job,
    progress: &Progress,
) -> Result<(), BuildError> {
    let jobs = catalogue.jobs();
    let uses = file_uses(catalogue, dir, &jobs);
    let complete = |j: C::Job| catalogue.outputs(dir, j).iter().all(|spec| Status::of(spec).is_complete());
    let around = catalogue.inputs(dir, job).into_iter().chain(catalogue.outputs(dir, job));
    for spec in around {
        let Some(file) = uses.iter().find(|file| file.spec.path == spec.path) else {
            continue;
        };
        let writer = jobs[file.written];
        let waits_for = compressed_after(spec.kind, file.written, &file.reads);
        let readers_done = file.reads.iter().filter(|&&at| at <= waits_for).all(|&at| complete(jobs[at]));
        if !complete(writer) || !readers_done {
            continue;
        }
        // Waited for, not tried: the holder may be a job compressing another file of the same
        // writer, or one that looked before this job was complete and left this file; giving
        // up here would leave the file raw for good (Lasker 4, four jobs at a time: a table in
        // version 3). No deadlock: a job waits only for the writers of files it reads, which
        // come before it in the graph. `compress` leaves a file compressed meanwhile alone.
        let _lock = match job_id(&writer) == job_id(&job) {
            true => None,
            false => Some(wait_for_job_lock(dir, &job_id(&writer))?),
        };
        compress(&spec, progress)?;
    }
    Ok(())
}

/// The report of `job` skipped, when every file it writes is complete and sound (see
/// [`outputs_are_sound`]); `None` when it has to run.
fn skip_if_sound<C: Catalogue>(
    catalogue: &C,
    dir: &Path,
    job: C::Job,
    progress: &Progress,
) -> Result<Option<JobReport>, BuildError> {
    if !outputs_are_sound(&catalogue.outputs(dir, job), progress)? {
        return Ok(None);
    }
    progress.message(&format!("{} {job}: complete, skipped", catalogue.name()));
    Ok(Some(JobReport { job: job.to_string(), skipped: true, seconds: 0.0, cpu_seconds: None }))
}

/// Builds `job`, with a progress task while it runs and a log line with its wall and CPU time
/// after.
fn run_job<C: Catalogue>(
    catalogue: &C,
    dir: &Path,
    job: C::Job,
    progress: &Progress,
) -> Result<JobReport, BuildError> {
    let name = catalogue.name();
    let started = Instant::now();
    let cpu_before = cpu_seconds();
    progress.task(&format!("{name} {job}"));
    let made = catalogue.build(dir, job, &Build { progress })?;
    let seconds = started.elapsed().as_secs_f64();
    let cpu = cpu_seconds().zip(cpu_before).map(|(after, before)| after - before);
    let peak = peak_memory().map_or("unknown".to_string(), crate::resources::bytes);
    progress.clear();
    progress.message(&format!(
        "{name} {job}: {made} in {seconds:.1} s (cpu {:.1} s, peak memory so far {peak})",
        cpu.unwrap_or(f64::NAN)
    ));
    Ok(JobReport { job: job.to_string(), skipped: false, seconds, cpu_seconds: cpu })
}

/// The one job of `catalogue` whose id is `id`. Compressed, each value table is compressed once
/// every job that reads it has its files complete (by the job that completes the last of them).
fn generate_only<C: Catalogue>(
    catalogue: &C,
    dir: &Path,
    id: &str,
    storage: Storage,
    progress: &Progress,
) -> Result<JobReport, BuildError> {
    let name = catalogue.name();
    let jobs = catalogue.jobs();
    let Some(&job) = jobs.iter().find(|job| job_id(*job) == id) else {
        return Err(BuildError::UnknownJob { name, id: id.to_string() });
    };
    std::fs::create_dir_all(dir)
        .map_err(|source| BuildError::Directory { path: dir.to_path_buf(), source })?;
    let _directory = lock_shared(dir)?;
    let _job = lock_job(dir, id)?;
    let report = run_only(catalogue, dir, job, progress)?;
    if storage == Storage::Compressed {
        compress_finished(catalogue, dir, job, progress)?;
    }
    Ok(report)
}

/// The job of `generate --only`, its locks held: skipped when its files are sound, refused
/// when an input is not complete.
fn run_only<C: Catalogue>(
    catalogue: &C,
    dir: &Path,
    job: C::Job,
    progress: &Progress,
) -> Result<JobReport, BuildError> {
    let id = job_id(&job);
    let jobs = catalogue.jobs();
    if let Some(skipped) = skip_if_sound(catalogue, dir, job, progress)? {
        return Ok(skipped);
    }
    for input in catalogue.inputs(dir, job) {
        let why = match Status::of(&input) {
            Status::Complete(_) => continue,
            Status::Missing => "missing".to_string(),
            Status::Partial => "not complete".to_string(),
            Status::NeedsUpgrade(header) => {
                format!("format version {}, which its own job upgrades", header.version)
            }
            Status::Damaged(why) => why.to_string(),
        };
        let writer = jobs.iter().find(|j| catalogue.outputs(dir, **j).iter().any(|o| o.path == input.path));
        return Err(BuildError::Input {
            job: id.to_string(),
            path: input.path,
            why,
            writer: writer.map(job_id),
        });
    }
    let needs = catalogue.needs(dir, job);
    let plan = Estimate {
        jobs: 1,
        of: jobs.len(),
        disk: needs.disk,
        disk_known: if needs.disk_bounded { 0 } else { needs.disk },
        memory: needs.memory + crate::table::compress::packing_memory(needs.disk) + PROGRAM_MEMORY,
        cpu_seconds: needs.cpu_seconds,
    };
    check_fits(catalogue, &plan, dir)?;
    run_job(catalogue, dir, job, progress)
}

/// The memory the program holds whatever the run (its code, stacks and thread pool): Connect
/// Four 5x4, whose largest table is 0.3 MB, peaks at 11.6 to 12.5 MB resident (2026-11-29).
const PROGRAM_MEMORY: u64 = 8 << 20;

/// What the unfinished jobs of a run need: the jobs, the bytes of their files, the memory of
/// the largest with what compressing a table beside it holds, and their CPU time where every
/// one of them has a measured rate. Disk and memory are upper bounds (a layer's table is
/// counted at its index space until its set says how many positions it holds).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Estimate {
    /// Jobs to run.
    pub jobs: usize,
    /// Of all the catalogue's jobs.
    pub of: usize,
    /// Bytes of the files they write.
    pub disk: u64,
    /// Of those, the most known before the run to be on disk raw at once: without the bounds
    /// that its forward passes make exact, and, where files are compressed, without what
    /// their compressed forms take.
    pub disk_known: u64,
    /// Bytes of memory the largest holds.
    pub memory: u64,
    /// CPU seconds in all, at the rates measured on the machine of docs/BENCHMARKS.md; `None`
    /// when a job has no known rate.
    pub cpu_seconds: Option<f64>,
}

/// What generating `catalogue` into `dir` still needs, without building anything, for a run that
/// leaves its files as `storage` says. Compressed, a file is raw
/// only from its job until it has been compressed (beside the job after the one that ends its
/// raw reads), so the disk known to be needed is the most that is raw at once; what the
/// compressed files take comes on top, and each job is checked again against the disk then
/// free.
pub fn estimate<C: Catalogue>(catalogue: &C, dir: &Path, storage: Storage) -> Estimate {
    let jobs = catalogue.jobs();
    let mut plan =
        Estimate { jobs: 0, of: jobs.len(), disk: 0, disk_known: 0, memory: 0, cpu_seconds: Some(0.0) };
    // The job after which each job's files are all compressed.
    let mut released: HashMap<std::path::PathBuf, usize> = HashMap::new();
    if storage == Storage::Compressed {
        released.extend(last_reads(catalogue, dir, &jobs).into_iter().map(|(spec, at)| (spec.path, at)));
    }
    // Bytes known to be written raw by each unfinished job, with the job after which they are
    // compressed (the last of its files; none for a raw run).
    let mut raw_spans: Vec<(usize, u64, usize)> = Vec::new();
    // The bytes of the largest job's files: what compressing one of them beside holds at most.
    let mut largest_file = 0u64;
    for (at, &job) in jobs.iter().enumerate() {
        let outputs = catalogue.outputs(dir, job);
        if outputs.iter().all(|spec| Status::of(spec).is_complete()) {
            continue;
        }
        let needs = catalogue.needs(dir, job);
        plan.jobs += 1;
        plan.disk = plan.disk.saturating_add(needs.disk);
        if !needs.disk_bounded {
            let release =
                outputs.iter().map(|spec| released.get(&spec.path).map_or(usize::MAX, |&r| r)).max();
            // Compressing runs beside the next job, so the raw file stays through that one.
            raw_spans.push((at, needs.disk, release.unwrap_or(usize::MAX).saturating_add(1)));
        }
        plan.memory = plan.memory.max(needs.memory);
        largest_file = largest_file.max(needs.disk);
        plan.cpu_seconds = plan.cpu_seconds.zip(needs.cpu_seconds).map(|(sum, cpu)| sum + cpu);
    }
    // The most raw at once: spans added where they start and taken off after they end.
    let mut change = vec![0i128; jobs.len() + 1];
    for &(from, disk, until) in &raw_spans {
        change[from] += i128::from(disk);
        change[until.min(jobs.len() - 1) + 1] -= i128::from(disk);
    }
    let mut raw = 0i128;
    plan.disk_known = change
        .iter()
        .map(|d| {
            raw += d;
            raw
        })
        .max()
        .map_or(0, |most| u64::try_from(most).unwrap_or(u64::MAX));
    if plan.jobs > 0 {
        plan.memory += crate::table::compress::packing_memory(largest_file) + PROGRAM_MEMORY;
    }
    plan
}

impl Estimate {
    /// Whether the run fits the disk free where `dir` is and the memory available now, in
    /// words: `this machine: 80.0 GB free in tables, 21.9 GB of memory available: it fits`.
    pub fn on_this_machine(&self, dir: &Path) -> String {
        let (disk_free, memory_available) = room(dir);
        let bytes = |n: Option<u64>| n.map_or("unknown".to_string(), crate::resources::bytes);
        let short: Vec<&str> = [
            (disk_free.is_some_and(|free| self.disk_known > free), "disk"),
            (memory_available.is_some_and(|available| self.memory > available), "memory"),
        ]
        .iter()
        .filter_map(|&(short, what)| short.then_some(what))
        .collect();
        let bound_only = disk_free.is_some_and(|free| self.disk > free);
        let verdict = if !short.is_empty() {
            format!("it does not fit ({})", short.join(", "))
        } else if bound_only {
            format!(
                "it fits if what the run counts as it goes fits too: {} is known to be raw on disk at once, \
                 and tables not yet counted are bounded by a published count or their index space, compressed ones by their raw size",
                bytes(Some(self.disk_known))
            )
        } else {
            "it fits".to_string()
        };
        format!(
            "this machine: {} free in {}, {} of memory available: {verdict}",
            bytes(disk_free),
            dir.display(),
            bytes(memory_available)
        )
    }
}

impl fmt::Display for Estimate {
    /// `1,521 of 1,521 jobs to run: up to 22.1 GB of tables, up to 3.55 GB of memory, about
    /// 4.2 CPU-hours (2.1 hours on 2 threads)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let bytes = crate::resources::bytes;
        write!(
            f,
            "{} of {} jobs to run: up to {} of tables, up to {} of memory",
            self.jobs,
            self.of,
            bytes(self.disk),
            bytes(self.memory)
        )?;
        match self.cpu_seconds {
            Some(cpu) => {
                let threads = rayon::current_num_threads().max(1);
                write!(
                    f,
                    ", about {} of CPU ({} on {threads} thread{} at full use)",
                    duration(cpu),
                    duration(cpu / threads as f64),
                    if threads == 1 { "" } else { "s" }
                )
            }
            None => write!(f, ", CPU time not estimated"),
        }
    }
}

/// A duration for people: `0.4 s`, `40 s`, `12 minutes`, `3.4 hours`.
pub(crate) fn duration(seconds: f64) -> String {
    match seconds {
        s if s < 9.95 => format!("{s:.1} s"),
        s if s < 90.0 => format!("{s:.0} s"),
        s if s < 5400.0 => format!("{:.0} minutes", s / 60.0),
        s => format!("{:.1} hours", s / 3600.0),
    }
}

/// Refuses a run whose unfinished jobs cannot fit: the files known to be needed on the disk
/// holding `dir` (bounds that the run's forward passes make exact are left to them), or the
/// largest job in memory.
fn check_fits<C: Catalogue>(catalogue: &C, plan: &Estimate, dir: &Path) -> Result<(), BuildError> {
    let Estimate { disk_known, memory, cpu_seconds, .. } = *plan;
    let (disk_free, memory_available) = room(dir);
    let (disk_free, memory_available) = (disk_free.unwrap_or(u64::MAX), memory_available.unwrap_or(u64::MAX));
    if disk_known > disk_free || memory > memory_available {
        return Err(BuildError::TooLarge {
            name: catalogue.name(),
            disk: disk_known,
            disk_free,
            memory,
            memory_available,
            cpu_seconds,
        });
    }
    Ok(())
}

/// The disk free where `dir` is (or, before it exists, where it would be made) and the memory
/// the system can give a run now, where the system tells.
pub fn room(dir: &Path) -> (Option<u64>, Option<u64>) {
    let existing = dir.ancestors().find(|d| d.as_os_str().is_empty() || d.is_dir()).unwrap_or(Path::new("."));
    (free_space(&existing.join(LOCK_FILE)), crate::resources::available_memory())
}

/// Whether every file a job writes is there and sound. Files of an older format version are
/// upgraded in place; a complete file that fails its checks (header, length, a block, the
/// checksum of its data) is set aside under another name, to be built again; either is said in
/// a message. Files the job still has to write are left alone.
fn outputs_are_sound(outputs: &[FileSpec], progress: &Progress) -> Result<bool, BuildError> {
    let mut sound = true;
    for spec in outputs {
        let status = match Status::of(spec) {
            Status::NeedsUpgrade(old) => match upgrade(spec) {
                Ok(header) => {
                    progress.message(&format!(
                        "{}: upgraded from format version {} to {}",
                        spec.path.display(),
                        old.version,
                        header.version
                    ));
                    Status::Complete(header)
                }
                Err(e) if e.is_damage() => Status::Damaged(std::sync::Arc::new(e)),
                Err(e) => return Err(e.into()),
            },
            status => status,
        };
        let why = match status {
            Status::Complete(_) => match check_file(spec) {
                Ok(_) => continue,
                Err(e) if e.is_damage() => std::sync::Arc::new(e),
                Err(e) => return Err(e.into()),
            },
            Status::Damaged(why) => why,
            Status::Missing | Status::Partial | Status::NeedsUpgrade(_) => {
                sound = false;
                continue;
            }
        };
        let aside = set_aside(&spec.path)?;
        progress.message(&format!("{why}; set aside as {}, building it again", aside.display()));
        sound = false;
    }
    Ok(sound)
}

/// The lock file that keeps two runs of `generate` out of one directory.
pub const LOCK_FILE: &str = ".generate.lock";

/// The folder of the per-job locks of `generate --only`, in the table directory.
pub const JOB_LOCKS: &str = ".jobs";

/// How a lock is taken: alone (a plain `generate`, one job of `generate --only`) or shared
/// (the directory, by every `generate --only`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum LockMode {
    Alone,
    Shared,
    /// Alone, waiting for the holder to let go.
    AloneWaiting,
}

/// Opens the lock file `path` and takes its lock as `mode` says, or gives back `busy` with the
/// process the file names. A lock taken alone writes this process's id into the file, for the
/// message of the next one refused.
fn take_lock(
    path: &Path,
    mode: LockMode,
    busy: impl FnOnce(Option<u32>) -> BuildError,
) -> Result<std::fs::File, BuildError> {
    use std::io::{Seek, Write};
    let failed = |source| BuildError::Directory { path: path.to_path_buf(), source };
    let mut file = crate::table::open_to_write(
        std::fs::OpenOptions::new().read(true).write(true).create(true).truncate(false),
        path,
    )
    .map_err(failed)?;
    let taken = match mode {
        LockMode::Alone => file.try_lock(),
        LockMode::Shared => file.try_lock_shared(),
        LockMode::AloneWaiting => file.lock().map_err(std::fs::TryLockError::Error),
    };
    match taken {
        Ok(()) => {}
        Err(std::fs::TryLockError::WouldBlock) => return Err(busy(holder(path))),
        Err(std::fs::TryLockError::Error(source)) => return Err(failed(source)),
    }
    if mode != LockMode::Shared {
        file.set_len(0).map_err(failed)?;
        file.rewind().map_err(failed)?;
        writeln!(file, "{}", std::process::id()).map_err(failed)?;
    }
    Ok(file)
}

/// Takes the directory's generate lock shared: any number of `generate --only` hold it
/// together, while a plain `generate` (which takes it alone) is refused.
fn lock_shared(dir: &Path) -> Result<std::fs::File, BuildError> {
    take_lock(&dir.join(LOCK_FILE), LockMode::Shared, |holder| BuildError::Locked {
        dir: dir.to_path_buf(),
        holder,
    })
}

/// The folder of the job locks in `dir`, made if needed.
fn job_locks(dir: &Path) -> Result<std::path::PathBuf, BuildError> {
    let locks = dir.join(JOB_LOCKS);
    let failed = |source| BuildError::Directory { path: locks.clone(), source };
    // A link in its place would put the lock files wherever it points.
    if std::fs::symlink_metadata(&locks).is_ok_and(|meta| meta.file_type().is_symlink()) {
        return Err(failed(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "a symbolic link: refusing to write through it (remove it if it is yours)",
        )));
    }
    std::fs::create_dir_all(&locks).map_err(failed)?;
    Ok(locks)
}

/// Takes the lock of job `id` alone, so that a job run twice at once (a scheduler's retry
/// beside a lost run) does not write its files twice.
fn lock_job(dir: &Path, id: &str) -> Result<std::fs::File, BuildError> {
    let locks = job_locks(dir)?;
    take_lock(&locks.join(format!("{id}.lock")), LockMode::Alone, |holder| BuildError::JobLocked {
        dir: dir.to_path_buf(),
        id: id.to_string(),
        holder,
    })
}

/// Takes the lock of job `id` alone, waiting while another process holds it.
fn wait_for_job_lock(dir: &Path, id: &str) -> Result<std::fs::File, BuildError> {
    let path = job_locks(dir)?.join(format!("{id}.lock"));
    take_lock(&path, LockMode::AloneWaiting, |holder| BuildError::JobLocked {
        dir: dir.to_path_buf(),
        id: id.to_string(),
        holder,
    })
}

/// The process a lock file names, where it names one that is running on this machine (a lock
/// held on another node of a cluster, or shared, names none that is).
fn holder(path: &Path) -> Option<u32> {
    let pid: u32 = std::fs::read_to_string(path).ok()?.trim().parse().ok()?;
    Path::new(&format!("/proc/{pid}")).exists().then_some(pid)
}

/// Takes the directory's generate lock, or says which process holds it. The lock is the
/// operating system's (flock), so it goes with the process that holds it: a run killed with
/// kill -9 leaves the file behind but no lock, and never blocks the next run.
fn lock_directory(dir: &Path) -> Result<std::fs::File, BuildError> {
    take_lock(&dir.join(LOCK_FILE), LockMode::Alone, |holder| BuildError::Locked {
        dir: dir.to_path_buf(),
        holder,
    })
}

#[cfg(test)]
mod tests {
    use super::idle_after;

    /// A set written by job 3, read by the next forward pass (job 4) and by two solves much
    /// later (jobs 40 and 41), is compressed after job 4; one read only by the jobs that follow
    /// its writer, or by none, is left to the last read.
    #[test]
    fn a_set_is_compressed_when_its_readers_pause() {
        assert_eq!(idle_after(3, &[4, 40, 41]), Some(4));
        assert_eq!(idle_after(3, &[10]), Some(3));
        assert_eq!(idle_after(3, &[4, 5, 6]), None);
        assert_eq!(idle_after(3, &[]), None);
        assert_eq!(idle_after(3, &[1, 4, 4, 9]), Some(4));
    }
}
