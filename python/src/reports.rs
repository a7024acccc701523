//! `tablebase.generate(...)` and `tablebase.verify(...)`: the library's reports as dicts, each
//! verified table as one line of `verify --json`.

use crate::errors::{TableError, build_error, generate_call, guarded, variant_error};
use crate::interrupt::{Stop, interruptible};
use crate::settings;
use engine::catalogue::{Storage, TableOutcome, Variant};
use engine::game::{Game, Purpose};
use engine::games::{ForGame, with_game};
use engine::{Catalogue, GenerateOptions};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use std::path::Path;
use std::sync::Arc;

/// What `generate` did, job by job, before it becomes dicts.
struct Job {
    job: String,
    skipped: bool,
    seconds: f64,
    cpu_seconds: Option<f64>,
}

/// Generates a game's tables into `dir` (resumable: finished tables are skipped), settings as
/// the command line names them: `generate("morris", dir="tables", stones=3)`. `raw=True` leaves
/// the tables uncompressed (`--raw`); `only` runs one job of the plan (`--only`). Returns a dict
/// per job: `job`, `skipped`, `seconds`, `cpu_seconds`. Raises ValueError for bad settings,
/// TableError naming the file and the cause where a table cannot be read or written. Ctrl-C
/// stops it after the chunk at hand (KeyboardInterrupt); the next call goes on from there.
#[pyfunction]
#[pyo3(signature = (game, dir = None, raw = false, only = None, **settings))]
pub fn generate<'py>(
    py: Python<'py>,
    game: &str,
    dir: Option<&Bound<'_, PyAny>>,
    raw: bool,
    only: Option<String>,
    settings: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyList>> {
    let about = settings::game(game)?;
    let variant = settings::variant(about, settings, Purpose::Generate)?;
    let dir = settings::directory(dir)?;
    let storage = if raw { Storage::Raw } else { Storage::Compressed };
    struct Generating<'a> {
        variant: &'a Variant,
        dir: &'a Path,
        storage: Storage,
        only: Option<&'a str>,
        stop: &'a Arc<Stop>,
    }
    impl ForGame for Generating<'_> {
        type Output = PyResult<Vec<Job>>;
        fn run<G: Game>(self) -> PyResult<Vec<Job>> {
            let game =
                G::from_variant(self.variant, Purpose::Generate).map_err(|e| variant_error(e, self.dir))?;
            let catalogue =
                game.catalogue(self.dir, Purpose::Generate).map_err(|e| variant_error(e, self.dir))?;
            let progress = self.stop.progress();
            let options = GenerateOptions { storage: self.storage, only: self.only, progress: &progress };
            let reports = engine::generate(&catalogue, self.dir, &options).map_err(build_error)?;
            Ok(reports
                .into_iter()
                .map(|r| Job {
                    job: r.job,
                    skipped: r.skipped,
                    seconds: r.seconds,
                    cpu_seconds: r.cpu_seconds,
                })
                .collect())
        }
    }
    let jobs = guarded(|| {
        interruptible(py, |stop| {
            let work = Generating { variant: &variant, dir: &dir, storage, only: only.as_deref(), stop };
            with_game(about.key, work).expect("the registry names the game")
        })?
    })?;
    let mut dicts = Vec::with_capacity(jobs.len());
    for job in jobs {
        let dict = PyDict::new(py);
        dict.set_item("job", job.job)?;
        dict.set_item("skipped", job.skipped)?;
        dict.set_item("seconds", job.seconds)?;
        dict.set_item("cpu_seconds", job.cpu_seconds)?;
        dicts.push(dict);
    }
    PyList::new(py, dicts)
}

/// What `verify` found: each table's line of `verify --json`, and what went wrong, said as the
/// command line says it on standard error.
#[derive(Default)]
struct Checked {
    rows: Vec<String>,
    problems: Vec<String>,
    missing: Vec<String>,
}

/// Checks a game's tables in `dir`: headers, checksums, counts, and unless `quick` every value
/// recomputed from its successors. Returns a dict per table, each one line of `verify --json`.
/// Raises TableError where a table is missing, damaged or wrong, its message naming the file
/// and the cause, with the dicts of every table as its `reports` attribute. Ctrl-C stops it
/// (KeyboardInterrupt).
#[pyfunction]
#[pyo3(signature = (game, dir = None, quick = false, **settings))]
pub fn verify<'py>(
    py: Python<'py>,
    game: &str,
    dir: Option<&Bound<'_, PyAny>>,
    quick: bool,
    settings: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyList>> {
    let about = settings::game(game)?;
    let variant = settings::variant(about, settings, Purpose::Verify)?;
    let dir = settings::directory(dir)?;
    struct Verifying<'a> {
        variant: &'a Variant,
        dir: &'a Path,
        quick: bool,
        stop: &'a Arc<Stop>,
    }
    impl ForGame for Verifying<'_> {
        type Output = PyResult<(Checked, Variant)>;
        fn run<G: Game>(self) -> Self::Output {
            let game =
                G::from_variant(self.variant, Purpose::Verify).map_err(|e| variant_error(e, self.dir))?;
            let catalogue =
                game.catalogue(self.dir, Purpose::Verify).map_err(|e| variant_error(e, self.dir))?;
            let progress = self.stop.progress();
            let mut checked = Checked::default();
            let _ = engine::verify(&catalogue, self.dir, self.quick, None, &progress, |outcome| {
                match &outcome {
                    TableOutcome::Checked(report) => checked.problems.extend(report.problems.iter().cloned()),
                    TableOutcome::Missing { table, path, .. } => {
                        checked.problems.push(engine::TableError::Missing { path: path.clone() }.to_string());
                        checked.missing.push(table.clone());
                    }
                    TableOutcome::NeedsUpgrade { table, path, version, .. } => {
                        let found = *version;
                        checked
                            .problems
                            .push(engine::TableError::NeedsUpgrade { path: path.clone(), found }.to_string());
                        checked.missing.push(table.clone());
                    }
                    TableOutcome::Unusable { why, .. } => checked.problems.push(why.to_string()),
                }
                if outcome.failed() && matches!(&outcome, TableOutcome::Checked(r) if r.problems.is_empty()) {
                    checked.problems.push(format!("{}: failed", outcome.text().trim()));
                }
                checked.rows.push(serde_json::to_string(&outcome).expect("a report serializes into memory"));
                // Stopped: the tables left are not checked (the caller raises KeyboardInterrupt).
                match self.stop.requested() {
                    true => Err(()),
                    false => Ok(()),
                }
            });
            Ok((checked, catalogue.variant()))
        }
    }
    let (checked, tables) = guarded(|| {
        interruptible(py, |stop| {
            let work = Verifying { variant: &variant, dir: &dir, quick, stop };
            with_game(about.key, work).expect("the registry names the game")
        })?
    })?;
    let loads = py.import("json")?.getattr("loads")?;
    let rows = PyList::empty(py);
    for row in &checked.rows {
        rows.append(loads.call1((row,))?)?;
    }
    let Some(first) = checked.problems.first() else { return Ok(rows) };
    let mut message = first.clone();
    if checked.problems.len() > 1 {
        message.push_str(&format!(" (and {} more problem(s))", checked.problems.len() - 1));
    }
    if !checked.missing.is_empty() {
        message.push_str(&format!(
            "; {} table(s) not generated or outdated ({}): run {}",
            checked.missing.len(),
            checked.missing.join(", "),
            generate_call(&tables, &dir)
        ));
    }
    let error = TableError::new_err(message);
    error.value(py).setattr("reports", rows)?;
    Err(error)
}
