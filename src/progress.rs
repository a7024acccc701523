//! Progress on standard error: an indicatif bar on a terminal, plain log lines otherwise (at
//! least one a minute, so an overnight log shows progress). Work is counted per chunk, never
//! per position.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::{Duration, Instant};

const LOG_EVERY: Duration = Duration::from_secs(30);

enum Output {
    Hidden,
    Bar(ProgressBar),
    Log,
}

/// Progress of a long run, shared by the threads working on it.
pub struct Progress {
    output: Output,
    /// What is being worked on, e.g. "morris 8-7/7-8".
    task: Mutex<String>,
    phase: Mutex<String>,
    done: AtomicU64,
    total: AtomicU64,
    started: Mutex<Instant>,
    last_log: Mutex<Instant>,
}

impl Progress {
    /// A bar when standard error is a terminal, log lines otherwise.
    pub fn stderr() -> Progress {
        let output = if std::io::stderr().is_terminal() {
            let bar = ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::stderr());
            bar.set_style(
                ProgressStyle::with_template("{prefix} {msg:<14} [{bar:30}] {percent:>3}% eta {eta}")
                    .expect("template")
                    .progress_chars("=> "),
            );
            Output::Bar(bar)
        } else {
            Output::Log
        };
        Progress::with(output)
    }

    /// Reports nothing (tests, library use).
    pub fn hidden() -> Progress {
        Progress::with(Output::Hidden)
    }

    fn with(output: Output) -> Progress {
        Progress {
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
    pub fn task(&self, task: &str) {
        *self.task.lock().expect("lock") = task.to_string();
        *self.started.lock().expect("lock") = Instant::now();
        if let Output::Bar(bar) = &self.output {
            // The previous table's bar was finished and cleared: a finished bar draws nothing
            // until it is reset.
            bar.reset();
            bar.set_prefix(task.to_string());
        }
    }

    /// Starts a phase of `total` units of work, with a log line.
    pub fn phase(&self, phase: &str, total: u64) {
        self.start_phase(phase, total, true);
    }

    /// Starts one of many short phases (a distance level): logged only on the timer.
    pub fn step(&self, phase: &str, total: u64) {
        self.start_phase(phase, total, false);
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
            Output::Log if announce => self.log_line(),
            Output::Log | Output::Hidden => {}
        }
    }

    /// Counts `units` of the current phase as done.
    pub fn advance(&self, units: u64) {
        let done = self.done.fetch_add(units, Relaxed) + units;
        match &self.output {
            Output::Bar(bar) => bar.set_position(done),
            Output::Log => {
                let mut last = self.last_log.lock().expect("lock");
                if last.elapsed() >= LOG_EVERY {
                    *last = Instant::now();
                    drop(last);
                    self.log_line();
                }
            }
            Output::Hidden => {}
        }
    }

    /// A line for the log whatever the output (a finished table, a skipped one).
    pub fn message(&self, text: &str) {
        match &self.output {
            Output::Bar(bar) => bar.println(text),
            Output::Log => eprintln!("{text}"),
            Output::Hidden => {}
        }
    }

    /// Marks the current phase as done.
    pub fn finish(&self) {
        if let Output::Bar(bar) = &self.output {
            bar.set_position(self.total.load(Relaxed));
        }
    }

    /// Removes the bar from the terminal.
    pub fn clear(&self) {
        if let Output::Bar(bar) = &self.output {
            bar.finish_and_clear();
        }
    }

    fn log_line(&self) {
        let done = self.done.load(Relaxed);
        let total = self.total.load(Relaxed).max(1);
        let elapsed = self.started.lock().expect("lock").elapsed().as_secs();
        eprintln!(
            "{} {}: {:.1}% ({} s into the table)",
            self.task.lock().expect("lock"),
            self.phase.lock().expect("lock"),
            100.0 * done as f64 / total as f64,
            elapsed
        );
        *self.last_log.lock().expect("lock") = Instant::now();
    }
}
