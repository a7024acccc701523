//! Progress on standard error: an indicatif bar on a terminal, plain log lines otherwise (one
//! when a phase starts, then one every 30 seconds with how far it got, so an overnight log shows
//! progress). The library counts work per chunk, never per position, and reports it here
//! through [`Report`].

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::{IsTerminal, Write};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::{Duration, Instant};
use tablebase::{Progress, Report};

/// How often a log line reports progress within a phase.
pub const LOG_EVERY: Duration = Duration::from_secs(30);

enum Output {
    Bar(ProgressBar),
    /// Log lines into the writer (standard error), one every `every` at most.
    Log {
        to: Mutex<Box<dyn Write + Send>>,
        every: Duration,
    },
}

/// A bar when standard error is a terminal, log lines otherwise.
pub fn stderr() -> Progress {
    Progress::to(Stderr::new())
}

/// Progress of a long run on standard error, shared by the threads working on it.
struct Stderr {
    output: Output,
    /// What is being worked on, e.g. "morris 8-7/7-8".
    task: Mutex<String>,
    phase: Mutex<String>,
    done: AtomicU64,
    total: AtomicU64,
    started: Mutex<Instant>,
    last_log: Mutex<Instant>,
}

impl Report for Stderr {
    fn task(&self, task: &str) {
        Stderr::task(self, task);
    }
    fn phase(&self, phase: &str, total: u64, announce: bool) {
        self.start_phase(phase, total, announce);
    }
    fn advance(&self, units: u64) {
        Stderr::advance(self, units);
    }
    fn finish(&self) {
        Stderr::finish(self);
    }
    fn message(&self, line: &str) {
        Stderr::message(self, line);
    }
    fn clear(&self) {
        Stderr::clear(self);
    }
}

/// The time left as the bar's rate gives it, `?` until the phase has done anything: a phase of
/// a few long units (Sogo's positions, each proved for minutes) has no rate before its first
/// ends, and indicatif's own estimate says `0s` then.
fn eta_known(state: &indicatif::ProgressState, out: &mut dyn std::fmt::Write) {
    let _ = match state.pos() {
        0 => write!(out, "?"),
        _ => write!(out, "{:#}", indicatif::HumanDuration(state.eta())),
    };
}

impl Stderr {
    fn new() -> Stderr {
        let output = if std::io::stderr().is_terminal() {
            let bar = ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::stderr());
            bar.set_style(
                ProgressStyle::with_template("{prefix} {msg:<14} [{bar:30}] {percent:>3}% eta {eta_known}")
                    .expect("template")
                    .with_key("eta_known", eta_known)
                    .progress_chars("=> "),
            );
            Output::Bar(bar)
        } else {
            Output::Log { to: Mutex::new(Box::new(std::io::stderr())), every: LOG_EVERY }
        };
        Stderr::with(output)
    }

    /// Log lines into `to`, one every `every` at most within a phase, whatever standard error is.
    #[cfg(test)]
    fn log_into(to: Box<dyn Write + Send>, every: Duration) -> Progress {
        Progress::to(Stderr::with(Output::Log { to: Mutex::new(to), every }))
    }

    fn with(output: Output) -> Stderr {
        Stderr {
            output,
            task: Mutex::new(String::new()),
            phase: Mutex::new(String::new()),
            done: AtomicU64::new(0),
            total: AtomicU64::new(0),
            started: Mutex::new(Instant::now()),
            last_log: Mutex::new(Instant::now()),
        }
    }

    /// Names what is being worked on (a table), and restarts its clock.
    fn task(&self, task: &str) {
        *self.task.lock().expect("lock") = task.to_string();
        *self.started.lock().expect("lock") = Instant::now();
        if let Output::Bar(bar) = &self.output {
            // The previous table's bar was finished and cleared: a finished bar draws nothing
            // until it is reset.
            bar.reset();
            bar.set_prefix(task.to_string());
        }
    }

    fn start_phase(&self, phase: &str, total: u64, announce: bool) {
        *self.phase.lock().expect("lock") = phase.to_string();
        self.done.store(0, Relaxed);
        self.total.store(total, Relaxed);
        match &self.output {
            Output::Bar(bar) => {
                bar.set_length(total);
                bar.set_position(0);
                bar.reset_eta();
                bar.set_message(phase.to_string());
            }
            Output::Log { .. } if announce => {
                let line = format!("{} {phase}: started, {total} to do", self.task.lock().expect("lock"));
                self.write_line(&line);
            }
            Output::Log { .. } => {}
        }
    }

    /// Counts `units` of the current phase as done.
    fn advance(&self, units: u64) {
        let done = self.done.fetch_add(units, Relaxed) + units;
        match &self.output {
            Output::Bar(bar) => bar.set_position(done),
            Output::Log { every, .. } => {
                let mut last = self.last_log.lock().expect("lock");
                if last.elapsed() >= *every {
                    *last = Instant::now();
                    drop(last);
                    self.log_line();
                }
            }
        }
    }

    /// A line for the log whatever the output (a finished table, a skipped one).
    fn message(&self, text: &str) {
        match &self.output {
            Output::Bar(bar) => bar.println(text),
            Output::Log { .. } => self.write_line(text),
        }
    }

    /// Marks the current phase as done.
    fn finish(&self) {
        if let Output::Bar(bar) = &self.output {
            bar.set_position(self.total.load(Relaxed));
        }
    }

    /// Removes the bar from the terminal.
    fn clear(&self) {
        if let Output::Bar(bar) = &self.output {
            bar.finish_and_clear();
        }
    }

    /// How far the current phase got: `morris 8-7 propagation: 1200 of 4800 (25.0%), 31 s into
    /// the table`.
    fn log_line(&self) {
        let total = self.total.load(Relaxed);
        let done = self.done.load(Relaxed).min(total);
        let share = if total == 0 { 100.0 } else { 100.0 * done as f64 / total as f64 };
        let line = format!(
            "{} {}: {done} of {total} ({share:.1}%), {} s into the table",
            self.task.lock().expect("lock"),
            self.phase.lock().expect("lock"),
            self.started.lock().expect("lock").elapsed().as_secs()
        );
        self.write_line(&line);
    }

    fn write_line(&self, line: &str) {
        if let Output::Log { to, .. } = &self.output {
            // A log that cannot be written (a closed pipe) must not stop the work it reports on.
            let mut to = to.lock().unwrap_or_else(|e| e.into_inner());
            let _ = writeln!(to, "{line}").and_then(|()| to.flush());
        }
        *self.last_log.lock().expect("lock") = Instant::now();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    /// A writer whose bytes the test can read afterwards.
    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);

    impl Write for Shared {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().write(bytes)
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn log_lines_carry_how_far_the_phase_got() {
        let log = Shared::default();
        let progress = Stderr::log_into(Box::new(log.clone()), Duration::ZERO);
        progress.task("morris 4-3");
        progress.phase("propagation", 4800);
        progress.advance(1200);
        progress.advance(2400);
        progress.step("distance 3", 10);
        progress.advance(10);
        progress.message("morris 4-3: solved");
        let text = String::from_utf8(log.0.lock().unwrap().clone()).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 5, "{text}");
        assert_eq!(lines[0], "morris 4-3 propagation: started, 4800 to do");
        assert!(lines[1].starts_with("morris 4-3 propagation: 1200 of 4800 (25.0%), "), "{}", lines[1]);
        assert!(lines[2].starts_with("morris 4-3 propagation: 3600 of 4800 (75.0%), "), "{}", lines[2]);
        assert!(lines[3].starts_with("morris 4-3 distance 3: 10 of 10 (100.0%), "), "{}", lines[3]);
        assert!(lines[1].ends_with(" s into the table"), "{}", lines[1]);
        assert_eq!(lines[4], "morris 4-3: solved");
    }

    #[test]
    fn log_lines_wait_for_the_interval() {
        let log = Shared::default();
        let progress = Stderr::log_into(Box::new(log.clone()), Duration::from_secs(3600));
        progress.task("connect4 5x4 ply 9");
        progress.phase("forward check", 100);
        for _ in 0..100 {
            progress.advance(1);
        }
        let text = String::from_utf8(log.0.lock().unwrap().clone()).unwrap();
        assert_eq!(text, "connect4 5x4 ply 9 forward check: started, 100 to do\n");
    }
}
