//! `info --plot`, once for every game: a distance histogram per complete table and the
//! outcomes of all of them, as SVG charts. Unlike `info`, it reads the table bodies.

use crate::plot::{PlotError, distance_chart, outcome_chart};
use std::fmt;
use std::path::{Path, PathBuf};
use tablebase::Progress;
use tablebase::catalogue::{Catalogue, info};
use tablebase::table::{Check, Status, TableError, TableFile};

/// Why the charts could not all be drawn.
#[derive(Debug)]
pub enum ChartError {
    /// A table could not be read.
    Table(TableError),
    /// A chart could not be drawn.
    Plot(PlotError),
    /// A chart could not be written.
    Write {
        /// The chart's file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

impl fmt::Display for ChartError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ChartError::Table(e) => write!(f, "{e}"),
            ChartError::Plot(e) => write!(f, "{e}"),
            ChartError::Write { path, .. } => write!(f, "{}: cannot write the chart", path.display()),
        }
    }
}

impl std::error::Error for ChartError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ChartError::Table(e) => e.source(),
            ChartError::Plot(_) => None,
            ChartError::Write { source, .. } => Some(source),
        }
    }
}

/// Writes `chart` to `dir/name`, creating `dir`; returns the path.
pub fn write_chart(dir: &Path, name: &str, chart: &str) -> Result<PathBuf, ChartError> {
    let path = dir.join(name);
    // create_dir_all says "File exists" of a file in the directory's place (`--plot /dev/full`).
    if std::fs::metadata(dir).is_ok_and(|meta| !meta.is_dir()) {
        let source = std::io::Error::from_raw_os_error(libc::ENOTDIR);
        return Err(ChartError::Write { path: dir.to_path_buf(), source });
    }
    std::fs::create_dir_all(dir)
        .and_then(|()| std::fs::write(&path, chart))
        .map_err(|source| ChartError::Write { path: path.clone(), source })?;
    Ok(path)
}

/// Draws the charts of every complete table of `catalogue` in `dir` into `out`: one
/// `<table file>-distances.svg` each, and `<game>-outcomes.svg` for all of them. Tables not on
/// disk are left out. Returns the files written.
pub fn plot<C: Catalogue>(
    catalogue: &C,
    dir: &Path,
    out: &Path,
    progress: &Progress,
) -> Result<Vec<PathBuf>, ChartError> {
    let mut written = Vec::new();
    let mut outcomes = Vec::new();
    let rows = info(catalogue, dir);
    for (key, row) in catalogue.keys().into_iter().zip(&rows) {
        let Status::Complete(header) = &row.status else { continue };
        let spec = catalogue.table(dir, key);
        progress.step(&format!("plot {} {}", catalogue.name(), row.table), 1);
        let table = TableFile::open(&spec, header.index_size, Check::Header).map_err(ChartError::Table)?;
        let distances = table.distances().map_err(ChartError::Table)?;
        let title = format!("{} {}", catalogue.name(), row.table);
        let chart = distance_chart(&title, &distances).map_err(ChartError::Plot)?;
        let stem =
            spec.path.file_stem().map_or_else(|| row.table.clone(), |s| s.to_string_lossy().into_owned());
        written.push(write_chart(out, &format!("{stem}-distances.svg"), &chart)?);
        outcomes.push((row.table.clone(), header.counts));
        progress.advance(1);
    }
    if !outcomes.is_empty() {
        let chart = outcome_chart(&catalogue.name(), &outcomes).map_err(ChartError::Plot)?;
        let name = format!("{}-outcomes.svg", catalogue.name().replace(' ', "-"));
        written.push(write_chart(out, &name, &chart)?);
    }
    Ok(written)
}
