//! What the benchmarks take from the program that runs them.

use std::io::Write;
use tablebase::{Probe, Progress};

/// Where a benchmark's results and progress go, and how the program answers a batch of
/// positions (`probe --brief -`), which `probe-morris` and `probe-connect4` time.
pub trait Host {
    /// Where the figures go: standard output.
    fn stdout(&self) -> Box<dyn Write + '_>;
    /// Progress of a long measurement.
    fn progress(&self) -> Progress;
    /// Answers `lines`, a position a line, as `probe --brief -` does, discarding the answers:
    /// the exit status of the worst line, or `None` when the tables cannot answer.
    fn answer_brief<T: Probe + Sync>(&self, tablebase: &T, lines: &[u8]) -> Option<i32>;
}
