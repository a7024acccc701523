//! The `tablebase` command (docs/CLI.md, "Commands"): parses the command line, runs it, and maps errors
//! to exit codes. The library does the work.

mod cli;

use clap::error::ErrorKind;
use clap::{CommandFactory, FromArgMatches};
use cli::error::{self, Error, complain};
use cli::{Cli, run};
use std::io::ErrorKind as IoErrorKind;
use tablebase::text::one_line;

/// The system's allocator, with an allocation it refuses turned into a one-line error and exit
/// 1: the standard library would abort (exit 134, a core dump) where a process's limit
/// (`ulimit -v`, a batch system's) or the machine's memory is too small for a table or a
/// search. Nothing in the program recovers from a refused allocation (no `try_reserve`), so
/// ending here loses nothing that an abort would keep; the check is one branch per allocation.
struct Allocator;

// SAFETY: every call is the system allocator's, with the same arguments; only a null result
// is acted on, and that ends the process.
unsafe impl std::alloc::GlobalAlloc for Allocator {
    unsafe fn alloc(&self, layout: std::alloc::Layout) -> *mut u8 {
        // SAFETY: the caller's contract, passed on.
        refused_if_null(unsafe { std::alloc::System.alloc(layout) }, layout.size())
    }

    unsafe fn alloc_zeroed(&self, layout: std::alloc::Layout) -> *mut u8 {
        // SAFETY: the caller's contract, passed on.
        refused_if_null(unsafe { std::alloc::System.alloc_zeroed(layout) }, layout.size())
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: std::alloc::Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller's contract, passed on.
        refused_if_null(unsafe { std::alloc::System.realloc(ptr, layout, new_size) }, new_size)
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: std::alloc::Layout) {
        // SAFETY: the caller's contract, passed on.
        unsafe { std::alloc::System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Allocator = Allocator;

#[inline]
fn refused_if_null(ptr: *mut u8, size: usize) -> *mut u8 {
    if ptr.is_null() {
        out_of_memory(size);
    }
    ptr
}

/// Says that `size` bytes could not be allocated and exits 1, allocating nothing (the
/// allocator has just refused) and flushing nothing (a buffer's flush may allocate).
#[cold]
fn out_of_memory(size: usize) -> ! {
    use std::fmt::Write as _;
    struct Line {
        bytes: [u8; 256],
        len: usize,
    }
    impl std::fmt::Write for Line {
        fn write_str(&mut self, s: &str) -> std::fmt::Result {
            let end = (self.len + s.len()).min(self.bytes.len());
            self.bytes[self.len..end].copy_from_slice(&s.as_bytes()[..end - self.len]);
            self.len = end;
            Ok(())
        }
    }
    let mut line = Line { bytes: [0; 256], len: 0 };
    let _ = writeln!(
        line,
        "tablebase: out of memory: {size} bytes more could not be allocated (the machine's memory, ulimit -v or the batch system's limit)"
    );
    // SAFETY: write(2) of an initialised buffer, then _exit, which runs no Rust code.
    unsafe {
        libc::write(2, line.bytes.as_ptr().cast(), line.len);
        libc::_exit(1)
    }
}

/// The command line parsed, a negative number after a flag read as its value: `--threads -1` then
/// gets the flag's own message (its range), not "unexpected argument '-1'".
fn parse() -> Result<Cli, clap::Error> {
    fn negatives(command: clap::Command) -> clap::Command {
        command.allow_negative_numbers(true).mut_subcommands(negatives)
    }
    let matches = negatives(Cli::command()).try_get_matches()?;
    Cli::from_arg_matches(&matches)
}

fn main() {
    tablebase::resources::one_allocator_arena_under_an_address_limit();
    tablebase::signals::let_writes_past_the_file_size_limit_fail();
    tablebase::signals::say_a_table_cut_short_under_a_read();
    // The command runs on a thread with at least an 8 MB stack, what a default shell gives the
    // main thread, however low `ulimit -s` is (a higher one is kept): the searches recurse a
    // frame a ply, and under `ulimit -s 32` the main thread's stack overflowed (an abort, exit
    // 134). A panic goes on as it would have on the main thread.
    let command = std::thread::Builder::new().name("tablebase".into()).stack_size(command_stack_bytes());
    match command.spawn(command_line) {
        Ok(running) => running.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
        Err(e) => {
            exit_with(&Error::Threads { which: "the command's thread".to_string(), why: e.to_string() })
        }
    }
}

/// The command line read, run, and its outcome said: one line and the exit status for an error.
fn command_line() {
    let cli = match parse() {
        Ok(cli) => cli,
        Err(e) if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) => e.exit(),
        Err(e) if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            // clap would print the whole help here; a usage error is one line, like the others.
            complain!("tablebase: {}", missing_subcommand());
            std::process::exit(2);
        }
        Err(e) => {
            // One line, as for every other usage error; --help has the details.
            // clap's message runs to the first blank line (a list of missing arguments follows
            // its first line); the usage after it is what --help is for.
            let rendered = e.render().to_string();
            let message: Vec<&str> =
                rendered.lines().take_while(|l| !l.trim().is_empty()).map(str::trim).collect();
            let message = message.join(" ");
            let message = message.strip_prefix("error: ").unwrap_or(&message);
            complain!("tablebase: {message} (see 'tablebase --help')");
            std::process::exit(2);
        }
    };
    match run(cli) {
        Ok(()) => {}
        // A reader that stopped early (`| head`): nothing to say to it, but the work was not
        // all done, so not success either.
        Err(Error::Output(e)) if e.kind() == IoErrorKind::BrokenPipe => std::process::exit(error::CUT_SHORT),
        Err(Error::Reported(code)) => std::process::exit(code),
        Err(error) => exit_with(&error),
    }
}

/// Says `error` in one line and exits with its status.
fn exit_with(error: &Error) -> ! {
    complain!("tablebase: {}", one_line(error));
    std::process::exit(error.exit_code());
}

/// What to name after `tablebase [COMMAND ...]` when nothing more is given: the subcommands of
/// the deepest command the arguments name.
fn missing_subcommand() -> String {
    let mut command = Cli::command();
    let mut path = vec!["tablebase".to_string()];
    for arg in std::env::args().skip(1) {
        let Some(next) = command.find_subcommand(&arg).cloned() else { break };
        path.push(arg);
        command = next;
    }
    let names: Vec<&str> =
        command.get_subcommands().map(|c| c.get_name()).filter(|name| *name != "help").collect();
    let (path, names) = (path.join(" "), names.join(", "));
    match path.split_once(' ') {
        None => format!("missing a command: {names} (see '{path} --help')"),
        Some((_, given)) => format!("missing a command after '{given}': {names} (see '{path} --help')"),
    }
}

/// The command thread's stack: 8 MB, or the stack limit where it is higher (at most 1 GB;
/// `unlimited` is 8 MB, more than any search here needs).
fn command_stack_bytes() -> usize {
    const LEAST: u64 = 8 << 20;
    let mut limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit fills the struct it is given.
    let finite = unsafe { libc::getrlimit(libc::RLIMIT_STACK, &mut limit) } == 0
        && limit.rlim_cur != libc::RLIM_INFINITY;
    let bytes = if finite { limit.rlim_cur.clamp(LEAST, 1 << 30) } else { LEAST };
    bytes as usize
}
