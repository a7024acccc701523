//! The job graph of a catalogue, for a scheduler outside the program: `plan --json` lists every
//! job with the files it reads and writes, the jobs it comes after and what it needs, and
//! `generate --only ID` ([`super::generate_only`]) runs one of them. A workflow engine
//! (`workflow/Snakefile`) then runs the graph on one machine or on a cluster.

use super::{Catalogue, Needs};
use crate::table::FileSpec;
use crate::text::json_string;
use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};

/// A job whose CPU time is estimated below this many seconds asks for one thread: a scheduler
/// runs many such at once, where a pool of threads each would spend more on starting than on
/// work.
pub const SMALL_JOB_CPU_SECONDS: f64 = 60.0;

/// One job of the graph, as `plan --json` gives it.
#[derive(Clone, Debug, PartialEq)]
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

/// The graph as one JSON object: `{"game": ..., "jobs": [{"id": ..., "reads": [...], "writes":
/// [...], "after": [...], "memory_bytes": n, "disk_bytes": n, "threads": n, "cpu_seconds": n},
/// ...]}` (`cpu_seconds` null where no rate is known, else rounded up to a whole second: what a
/// scheduler asks for).
pub fn plan_json(game: &str, jobs: &[PlannedJob]) -> String {
    let strings = |items: &mut dyn Iterator<Item = String>| {
        let quoted: Vec<String> = items.map(|s| json_string(&s)).collect();
        format!("[{}]", quoted.join(", "))
    };
    let paths = |paths: &[PathBuf]| strings(&mut paths.iter().map(|p| p.to_string_lossy().into_owned()));
    let jobs: Vec<String> = jobs
        .iter()
        .map(|job| {
            format!(
                "{{\"id\": {}, \"reads\": {}, \"writes\": {}, \"after\": {}, \"memory_bytes\": {}, \
                 \"disk_bytes\": {}, \"threads\": {}, \"cpu_seconds\": {}}}",
                json_string(&job.id),
                paths(&job.reads),
                paths(&job.writes),
                strings(&mut job.after.iter().cloned()),
                job.needs.memory,
                job.needs.disk,
                job.threads,
                job.needs.cpu_seconds.map_or("null".to_string(), |cpu| (cpu.ceil() as u64).to_string())
            )
        })
        .collect();
    format!("{{\"game\": {}, \"jobs\": [\n  {}\n]}}", json_string(game), jobs.join(",\n  "))
}
