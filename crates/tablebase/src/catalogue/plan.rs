//! The job graph of a catalogue, for a scheduler outside the program: `plan --json` lists every
//! job with the files it reads and writes, the jobs it comes after and what it needs, and
//! `generate --only ID` ([`super::GenerateOptions::only`]) runs one of them. A workflow engine
//! (`workflow/Snakefile`) then runs the graph on one machine or on a cluster.

use super::{Catalogue, Needs};
use crate::table::FileSpec;
use serde::Serialize;
use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};

/// A job whose CPU time is estimated below this many seconds asks for one thread: a scheduler
/// runs many such at once, where a pool of threads each would spend more on starting than on
/// work.
pub const SMALL_JOB_CPU_SECONDS: f64 = 60.0;

/// One job of the graph. Serialized as `plan --json` lists it: `{"id": ..., "reads": [...],
/// "writes": [...], "after": [...], "memory_bytes": n, "disk_bytes": n, "threads": n,
/// "cpu_seconds": n}` (`cpu_seconds` null where no rate is known, else rounded up to a whole
/// second: what a scheduler asks for).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(into = "PlanLine")]
pub struct PlannedJob {
    /// The job's id for `generate --only`: its name in the log with spaces as dashes (`8-7`,
    /// `ply-12`, `ply-12-reachable-set`), stable across runs and versions.
    pub id: String,
    /// Files the job reads, relative to the table directory.
    pub reads: Vec<PathBuf>,
    /// Files it writes, relative to the table directory.
    pub writes: Vec<PathBuf>,
    /// The jobs that write what it reads.
    pub after: Vec<String>,
    /// Its disk, memory and CPU time.
    pub needs: Needs,
    /// Threads it should be given.
    pub threads: usize,
}

/// The id of `job`: its display with spaces as dashes.
pub fn job_id(job: &impl fmt::Display) -> String {
    job.to_string().replace(' ', "-")
}

/// Every job of `catalogue` (finished or not), in an order where each comes after the jobs it
/// reads from, for tables in `dir`; `threads` is what a large job is given.
pub fn plan<C: Catalogue>(catalogue: &C, dir: &Path, threads: usize) -> Vec<PlannedJob> {
    let relative = |spec: FileSpec| spec.path.strip_prefix(dir).map(Path::to_path_buf).unwrap_or(spec.path);
    let mut writer: HashMap<PathBuf, String> = HashMap::new();
    let mut planned = Vec::new();
    for job in catalogue.jobs() {
        let id = job_id(&job);
        let writes: Vec<PathBuf> = catalogue.outputs(dir, job).into_iter().map(relative).collect();
        let reads: Vec<PathBuf> = catalogue.inputs(dir, job).into_iter().map(relative).collect();
        // Each job once, in the order of the files it reads (a pair's job writes two of them).
        let mut after: Vec<String> = Vec::new();
        for by in reads.iter().filter_map(|path| writer.get(path)) {
            if !after.contains(by) {
                after.push(by.clone());
            }
        }
        for path in &writes {
            writer.insert(path.clone(), id.clone());
        }
        let needs = catalogue.needs(dir, job);
        let small = needs.cpu_seconds.is_some_and(|cpu| cpu < SMALL_JOB_CPU_SECONDS);
        planned.push(PlannedJob {
            id,
            reads,
            writes,
            after,
            needs,
            threads: if small { 1 } else { threads },
        });
    }
    planned
}

/// The JSON object of a [`PlannedJob`], field by field in the order printed.
#[derive(Serialize)]
struct PlanLine {
    id: String,
    reads: Vec<String>,
    writes: Vec<String>,
    after: Vec<String>,
    memory_bytes: u64,
    disk_bytes: u64,
    threads: usize,
    cpu_seconds: Option<u64>,
}

impl From<PlannedJob> for PlanLine {
    fn from(job: PlannedJob) -> PlanLine {
        let paths = |paths: Vec<PathBuf>| paths.iter().map(|p| p.to_string_lossy().into_owned()).collect();
        PlanLine {
            id: job.id,
            reads: paths(job.reads),
            writes: paths(job.writes),
            after: job.after,
            memory_bytes: job.needs.memory,
            disk_bytes: job.needs.disk,
            threads: job.threads,
            cpu_seconds: job.needs.cpu_seconds.map(|cpu| cpu.ceil() as u64),
        }
    }
}
