//! Calls that Ctrl-C stops, and a thread pool that survives `fork`.
//!
//! Python runs its signal handlers on the main thread, between bytecodes: a call that works for
//! minutes in Rust would hold Ctrl-C back until it returned. Here the work runs on the module's
//! thread pool while the calling thread, the GIL released, wakes every 50 ms to let Python run
//! its handlers. Once one raises (`KeyboardInterrupt`), the work is asked to stop (its searches
//! through `Work::stop`, generate and verify through `Report::stop_requested`, after the chunk
//! at hand) and the exception is raised when it has, leaving what it finished for the next run,
//! as a killed command line does.
//!
//! The pool is the process's own: after `os.fork` (multiprocessing's default start on Linux)
//! the child has none of its parent's threads, and a pool built before the fork would wait
//! forever for them, so a child builds its own.

use engine::{Progress, Report, Work};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::PyModule;
use rayon::{ThreadPool, ThreadPoolBuilder};
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::mpsc::{RecvTimeoutError, channel};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

/// How often the calling thread lets Python run its signal handlers while the work runs.
const SIGNAL_POLL: Duration = Duration::from_millis(50);

/// A request to stop, shared by the work and the thread that waits for it.
pub struct Stop {
    requested: AtomicBool,
    /// The work every search of the call is part of.
    searches: Arc<Work>,
}

impl Stop {
    fn new() -> Arc<Stop> {
        Arc::new(Stop { requested: AtomicBool::new(false), searches: Work::new(None) })
    }

    fn request(&self) {
        self.requested.store(true, Relaxed);
        self.searches.stop();
    }

    /// Whether a stop was requested.
    pub fn requested(&self) -> bool {
        self.requested.load(Relaxed)
    }

    /// Runs `f` on this thread with its searches stopped by a request: a probe's. Not generate's
    /// or verify's: their searches (a book's last ply) have no time limit and cannot end without
    /// their answer, so those runs stop between positions (`Report::stop_requested`), once the
    /// position being searched is done.
    pub fn searching<T>(&self, f: impl FnOnce() -> T) -> T {
        Work::run(Some(&self.searches), f)
    }

    /// Progress that reports nothing and asks the run to stop once a stop is requested.
    pub fn progress(self: &Arc<Self>) -> Progress {
        Progress::to(StopReport(self.clone()))
    }
}

/// The report of a run from Python: nothing to draw, only the question whether to stop.
struct StopReport(Arc<Stop>);

impl Report for StopReport {
    fn task(&self, _: &str) {}
    fn phase(&self, _: &str, _: u64, _: bool) {}
    fn advance(&self, _: u64) {}
    fn finish(&self) {}
    fn message(&self, _: &str) {}
    fn stop_requested(&self) -> bool {
        self.0.requested()
    }
}

/// Runs `work` on the module's pool, the GIL released, stopping it on a signal handler's
/// exception (Ctrl-C's `KeyboardInterrupt`), which is then raised once the work has returned:
/// its searches where it runs them through [`Stop::searching`], long runs through the
/// [`Stop::progress`] it gives them.
/// A panic of the work goes on unwinding here, for `guarded` to catch.
pub fn interruptible<T: Send>(py: Python<'_>, work: impl FnOnce(&Arc<Stop>) -> T + Send) -> PyResult<T> {
    interruptible_in_pieces(py, |stop, _: &dyn Fn(())| work(stop), |()| Ok(()))
}

/// As [`interruptible`], for work that hands over its results in pieces as it goes: each piece
/// it passes to its second argument is given to `take` on the calling thread, the GIL held,
/// while the work goes on with the next (a batch's Python objects made while its next positions
/// are answered). Where `take` fails, the work is asked to stop, the pieces still coming are
/// dropped, and that error is raised once the work has returned.
///
/// Python's cyclic garbage collector is paused while this thread takes pieces one after another
/// (a batch's millions of objects would otherwise set off collections that walk all of them
/// again, about a fifth of `probe_many`'s time, and none of them can be part of a cycle), and
/// runs again once this thread has waited for the work a while: other Python threads may run
/// then.
pub fn interruptible_in_pieces<P: Send, T: Send>(
    py: Python<'_>,
    work: impl FnOnce(&Arc<Stop>, &dyn Fn(P)) -> T + Send,
    mut take: impl FnMut(P) -> PyResult<()>,
) -> PyResult<T> {
    let stop = Stop::new();
    let (send, received) = channel::<Message<P, T>>();
    let mut raised: Option<PyErr> = None;
    let mut collector = Collector::of(py)?;
    let outcome = pool().in_place_scope(|scope| {
        let for_work = stop.clone();
        scope.spawn(move |_| {
            let piece = |piece: P| {
                // The receiver waits for the outcome; it is gone only if the waiting thread
                // unwound, and then nobody wants the piece.
                let _ = send.send(Message::Piece(piece));
            };
            let outcome = catch_unwind(AssertUnwindSafe(|| work(&for_work, &piece)));
            let _ = send.send(Message::Done(outcome));
        });
        // Should `take` panic, the scope would wait for the work before the panic goes on:
        // the work is asked to stop, so that it ends at its next piece.
        let _stop_on_unwind = StopOnDrop(&stop);
        // Moved in and out of each wait: a receiver may be sent to another thread, not shared.
        let mut received = received;
        loop {
            let (message, back) = py.detach(move || (received.recv_timeout(SIGNAL_POLL), received));
            received = back;
            match message {
                Ok(Message::Done(outcome)) => break outcome,
                Ok(Message::Piece(piece)) => {
                    collector.pause();
                    if raised.is_none()
                        && let Err(error) = take(piece)
                    {
                        stop.request();
                        raised = Some(error);
                    }
                }
                // A wait as long as this lets other Python threads run a while: with the
                // collector. (A shorter one keeps it paused: resumed at each piece, it would
                // walk each piece's objects again, 12% more CPU for `probe_many`.)
                Err(RecvTimeoutError::Timeout) => collector.resume(),
                Err(RecvTimeoutError::Disconnected) => {
                    unreachable!("the work sends its outcome before it ends")
                }
            }
            if raised.is_none()
                && let Err(error) = py.check_signals()
            {
                stop.request();
                raised = Some(error);
            }
        }
    });
    collector.resume();
    let value = outcome.unwrap_or_else(|payload| resume_unwind(payload));
    match raised {
        Some(error) => Err(error),
        None => Ok(value),
    }
}

/// Python's cyclic garbage collector, paused while a batch's objects are made (by
/// [`interruptible_in_pieces`], and `probe_many`'s values alone); never paused where the
/// program had turned it off, and running again when dropped (a panic on the way out too).
pub struct Collector<'py> {
    gc: Bound<'py, PyModule>,
    /// Whether the collector ran when the call began: if not, it is left alone.
    was_enabled: bool,
    paused: bool,
}

impl<'py> Collector<'py> {
    pub fn of(py: Python<'py>) -> PyResult<Self> {
        let gc = py.import(intern!(py, "gc"))?;
        let was_enabled = gc.call_method0(intern!(py, "isenabled"))?.extract()?;
        Ok(Collector { gc, was_enabled, paused: false })
    }

    // `gc.disable` and `gc.enable` only set a flag: an error from them is no reason to fail
    // the batch, which would be no worse off than without the pause.
    pub fn pause(&mut self) {
        if self.was_enabled && !self.paused {
            self.paused = self.gc.call_method0(intern!(self.gc.py(), "disable")).is_ok();
        }
    }

    fn resume(&mut self) {
        if self.paused {
            let _ = self.gc.call_method0(intern!(self.gc.py(), "enable"));
            self.paused = false;
        }
    }
}

impl Drop for Collector<'_> {
    fn drop(&mut self) {
        self.resume();
    }
}

/// Asks the work to stop when dropped: on the way out of [`interruptible_in_pieces`], where it
/// has ended already unless the calling thread unwinds.
struct StopOnDrop<'a>(&'a Stop);

impl Drop for StopOnDrop<'_> {
    fn drop(&mut self) {
        self.0.request();
    }
}

/// What the work of [`interruptible_in_pieces`] sends the calling thread.
enum Message<P, T> {
    Piece(P),
    Done(std::thread::Result<T>),
}

/// The pool of this process, built on first use (with as many threads as rayon's default).
fn pool() -> Arc<ThreadPool> {
    static POOL: Mutex<Option<(u32, Arc<ThreadPool>)>> = Mutex::new(None);
    let mut held = POOL.lock().unwrap_or_else(PoisonError::into_inner);
    let process = std::process::id();
    if let Some((owner, pool)) = held.as_ref()
        && *owner == process
    {
        return pool.clone();
    }
    // A pool of the parent process: its threads are not in this one, and dropping it would
    // wait on them, so it is left as it is.
    if let Some(inherited) = held.take() {
        std::mem::forget(inherited);
    }
    let pool = Arc::new(
        ThreadPoolBuilder::new()
            .thread_name(|k| format!("tablebase-{k}"))
            .build()
            .expect("the system starts threads"),
    );
    *held = Some((process, pool.clone()));
    pool
}
