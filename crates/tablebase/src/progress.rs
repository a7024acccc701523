//! Progress of long work. The library counts its work per chunk (never per position) and hands
//! it to a [`Report`] chosen by whoever runs it: nothing by default, a bar or log lines on
//! standard error in the command line. The library itself never writes to standard error.

/// Where the progress of a run goes. The threads of a run call it at once, once per chunk of
/// work, so an implementation keeps each call short.
pub trait Report: Send + Sync {
    /// Work on `task` begins: a table, `morris 8-7/7-8`.
    fn task(&self, task: &str);
    /// A phase of `total` units of work starts. `announce` is false for one of many short
    /// phases (a distance level), which a log mentions only when it reports on a timer.
    fn phase(&self, phase: &str, total: u64, announce: bool);
    /// `units` more units of the current phase are done.
    fn advance(&self, units: u64);
    /// The current phase is done.
    fn finish(&self);
    /// A line for the log: a finished table, a skipped one.
    fn message(&self, line: &str);
    /// The run is over: anything drawn is removed.
    fn clear(&self) {}
    /// Whether whoever runs the work wants it to stop (a Python caller's Ctrl-C). Asked once per
    /// chunk; the work then ends with a "stopped" error, leaving what it finished (tables,
    /// checkpoints) for the next run to go on from, as a killed run does.
    fn stop_requested(&self) -> bool {
        false
    }
}

/// Progress of a long run, shared by the threads working on it: a [`Report`], or nothing.
pub struct Progress {
    report: Option<Box<dyn Report>>,
}

impl std::fmt::Debug for Progress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Progress").finish_non_exhaustive()
    }
}

impl Progress {
    /// Reports nothing (tests, library use).
    pub const fn hidden() -> Progress {
        Progress { report: None }
    }

    /// Reports to `report`.
    pub fn to(report: impl Report + 'static) -> Progress {
        Progress { report: Some(Box::new(report)) }
    }

    /// Names what is being worked on (a table).
    pub fn task(&self, task: &str) {
        if let Some(report) = &self.report {
            report.task(task);
        }
    }

    /// Starts a phase of `total` units of work, announced in a log.
    pub fn phase(&self, phase: &str, total: u64) {
        if let Some(report) = &self.report {
            report.phase(phase, total, true);
        }
    }

    /// Starts one of many short phases (a distance level), logged only on a timer.
    pub fn step(&self, phase: &str, total: u64) {
        if let Some(report) = &self.report {
            report.phase(phase, total, false);
        }
    }

    /// Counts `units` of the current phase as done.
    pub fn advance(&self, units: u64) {
        if let Some(report) = &self.report {
            report.advance(units);
        }
    }

    /// A line for the log whatever the output (a finished table, a skipped one).
    pub fn message(&self, text: &str) {
        if let Some(report) = &self.report {
            report.message(text);
        }
    }

    /// Marks the current phase as done.
    pub fn finish(&self) {
        if let Some(report) = &self.report {
            report.finish();
        }
    }

    /// Whether the work should stop now ([`Report::stop_requested`]).
    pub fn stop_requested(&self) -> bool {
        self.report.as_ref().is_some_and(|report| report.stop_requested())
    }

    /// Ends the run's report (removes a bar from the terminal).
    pub fn clear(&self) {
        if let Some(report) = &self.report {
            report.clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    /// Records every call as a line.
    #[derive(Default)]
    struct Calls(Mutex<Vec<String>>);

    impl Report for &'static Calls {
        fn task(&self, task: &str) {
            self.0.lock().unwrap().push(format!("task {task}"));
        }
        fn phase(&self, phase: &str, total: u64, announce: bool) {
            self.0.lock().unwrap().push(format!("phase {phase} {total} {announce}"));
        }
        fn advance(&self, units: u64) {
            self.0.lock().unwrap().push(format!("advance {units}"));
        }
        fn finish(&self) {
            self.0.lock().unwrap().push("finish".to_string());
        }
        fn message(&self, line: &str) {
            self.0.lock().unwrap().push(format!("message {line}"));
        }
    }

    #[test]
    fn every_call_reaches_the_report_in_order() {
        let calls: &'static Calls = Box::leak(Box::default());
        let progress = Progress::to(calls);
        progress.task("tictactoe ply 3");
        progress.phase("forward", 10);
        progress.advance(4);
        progress.step("distance 1", 2);
        progress.finish();
        progress.message("done");
        progress.clear();
        assert_eq!(
            *calls.0.lock().unwrap(),
            [
                "task tictactoe ply 3",
                "phase forward 10 true",
                "advance 4",
                "phase distance 1 2 false",
                "finish",
                "message done"
            ]
        );
    }
}
