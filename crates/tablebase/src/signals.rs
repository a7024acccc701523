//! What a process does with the signals that would otherwise end it without a word: a write
//! past the file size limit (SIGXFSZ) and a read through a memory map whose table file was cut
//! short by another program (SIGBUS). A library leaves a process's signals alone unless asked:
//! the command line asks for all of this, a program that embeds the library (the Python
//! package) for [`go_on_after_a_table_cut_short_and_pass_on_the_rest`].

use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU64, AtomicUsize, Ordering::SeqCst};

/// Whether the process goes on after a table file is cut short under a read (`serve`).
static GO_ON: AtomicBool = AtomicBool::new(false);

/// Reads that found a table file cut short, so far.
static CUT_SHORT: AtomicU64 = AtomicU64::new(0);

/// Has the process go on after a table file is cut short under a read, instead of ending: the
/// file's map is replaced with zeros, which every read of it then gets, and
/// [`tables_cut_short`] counts it. For a server, whose other tables are sound: each request
/// compares the count before and after its work, and opens its tables again once it changed.
pub fn go_on_after_a_table_cut_short() {
    GO_ON.store(true, SeqCst);
}

/// The handler of SIGBUS before this module's, where faults that are not in a table's map go
/// ([`go_on_after_a_table_cut_short_and_pass_on_the_rest`]); null, they end the process. Each
/// handler put here is leaked: the signal handler may read it at any time.
#[cfg(target_os = "linux")]
static PASSED_ON: AtomicPtr<libc::sigaction> = AtomicPtr::new(std::ptr::null_mut());

/// For a program that embeds the library and keeps its tables open (an interpreter): a table
/// file cut short under a read has its map replaced with zeros and counted, as for
/// [`go_on_after_a_table_cut_short`], and the reader checks its tables after its reads
/// ([`crate::Probe::unchanged`]) to answer with an error instead; any other SIGBUS goes to the
/// handler the process had before (its own, or the default action). Called again (each
/// `tablebase.open` of the Python package), it takes its place back from a handler installed
/// since (Python's `faulthandler.enable()`), which then gets the other faults.
pub fn go_on_after_a_table_cut_short_and_pass_on_the_rest() {
    #[cfg(target_os = "linux")]
    {
        static INSTALLING: std::sync::Mutex<()> = std::sync::Mutex::new(());
        let _one_at_a_time = INSTALLING.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        // SAFETY: sigaction with a null new action only reads the current one into a zeroed
        // struct of the right type.
        let current = unsafe {
            let mut current: libc::sigaction = std::mem::zeroed();
            libc::sigaction(libc::SIGBUS, std::ptr::null(), &mut current);
            current
        };
        GO_ON.store(true, SeqCst);
        if current.sa_sigaction == on_sigbus as *const () as libc::sighandler_t {
            if PASSED_ON.load(SeqCst).is_null() {
                // This module's handler was there already (the command line's): the other
                // faults get the default action, never this handler again.
                // SAFETY: a zeroed sigaction is SIG_DFL with no flags and an empty mask.
                let default: libc::sigaction = unsafe { std::mem::zeroed() };
                PASSED_ON.store(Box::leak(Box::new(default)), SeqCst);
            }
            return;
        }
        PASSED_ON.store(Box::leak(Box::new(current)), SeqCst);
        install();
    }
}

/// How many reads have found a table file cut short so far (only where the process goes on
/// after one: [`go_on_after_a_table_cut_short`]). Work during which it changed may have read
/// zeros in place of the file's bytes, and must not be answered from them.
pub fn tables_cut_short() -> u64 {
    CUT_SHORT.load(SeqCst)
}

/// Under a limit on the size of a file (`ulimit -f`), a write past it fails with "File too
/// large" and the run ends in one line naming the file, like a full disk, instead of the
/// process being killed by SIGXFSZ without a word (exit 153) with its temporary file left.
pub fn let_writes_past_the_file_size_limit_fail() {
    // SAFETY: ignoring a signal changes no memory; nothing else handles SIGXFSZ.
    unsafe {
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
    }
}

/// A table file cut short by another program while this process has it mapped (docs/
/// RELIABILITY.md, "Residual risks") makes the next read past its new end raise SIGBUS, which
/// would end the process as "Bus error" (exit 135) with nothing said. Said instead in one line
/// that names the file (the mapping at the address read, from /proc/self/maps), exit 1, as
/// other runtime errors are: nothing can be answered from bytes that are gone, and the files
/// this process writes keep temporary names until they are whole (written with their space
/// reserved, so that a full disk is an error before any write through a map), so ending here
/// damages none. Where the process goes on ([`go_on_after_a_table_cut_short`]), a read-only
/// map of a table or set file that the library registered (each table it maps) is replaced with
/// zeros instead and counted.
#[cfg(target_os = "linux")]
pub fn say_a_table_cut_short_under_a_read() {
    install();
}

/// Whether a thread is saying it already: threads reading the same file fault together.
#[cfg(target_os = "linux")]
static SAYING: AtomicBool = AtomicBool::new(false);

/// This module's handler of SIGBUS: what [`say_a_table_cut_short_under_a_read`] says.
#[cfg(target_os = "linux")]
extern "C" fn on_sigbus(signal: libc::c_int, info: *mut libc::siginfo_t, _: *mut libc::c_void) {
    // SAFETY: the kernel passes a valid siginfo_t for a handler installed with SA_SIGINFO;
    // signal, raise, pause, mmap, write, open, read, close and _exit are async-signal-safe
    // (mmap in practice, on Linux), and nothing here allocates or locks. errno is restored
    // where the handler returns to the interrupted code.
    unsafe {
        let code = (*info).si_code;
        if code != libc::BUS_ADRERR && code != libc::BUS_OBJERR {
            // Not a read through a map (`kill -BUS`, a hardware memory error): the handler
            // before this one, or the default action, once this handler returns.
            pass_on(signal);
            libc::raise(signal);
            return;
        }
        let errno = *libc::__errno_location();
        let mut path = [0u8; 4096];
        let mapping = mapping_at((*info).si_addr() as usize, &mut path);
        let name = mapping.as_ref().map_or(&[][..], |m| &path[..m.path_len]);
        // One write, so that the line reaches a pipe whole.
        let (mut line, mut len) = ([0u8; 4352], 0);
        let mut put = |bytes: &[u8]| {
            let n = bytes.len().min(line.len() - len);
            line[len..len + n].copy_from_slice(&bytes[..n]);
            len += n;
        };
        put(b"tablebase: ");
        put(if name.is_empty() { &b"a table file"[..] } else { name });
        put(b": could not be read or written through its memory map (cut short by another program, \
or an I/O error); ");
        if GO_ON.load(SeqCst)
            && let Some(range) = table_map_at((*info).si_addr() as usize)
        {
            // Counted first: whoever reads the zeros below then sees the count changed. A
            // second thread that faulted on the same map before the zeros came puts them
            // there again, which changes nothing.
            CUT_SHORT.fetch_add(1, SeqCst);
            let zeros = libc::mmap(
                range.start as *mut libc::c_void,
                range.end - range.start,
                libc::PROT_READ,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED,
                -1,
                0,
            );
            if zeros != libc::MAP_FAILED {
                put(b"what read it is answered with an error, and its tables are opened again\n");
                // A program that embeds the library hears of it through the error.
                if PASSED_ON.load(SeqCst).is_null() {
                    libc::write(libc::STDERR_FILENO, line.as_ptr().cast(), len);
                }
                *libc::__errno_location() = errno;
                return;
            }
        }
        if !PASSED_ON.load(SeqCst).is_null() {
            // Not a table's map (or one that could not be replaced): the fault is the
            // program's own, and its handler (or the default action) takes the read again.
            pass_on(signal);
            *libc::__errno_location() = errno;
            return;
        }
        if SAYING.swap(true, SeqCst) {
            // The first thread says it and ends the process, this thread with it.
            loop {
                libc::pause();
            }
        }
        put(b"stopped: check the tables with verify, then run again\n");
        libc::write(libc::STDERR_FILENO, line.as_ptr().cast(), len);
        libc::_exit(1);
    }
}

/// Puts this module's handler of SIGBUS in place.
#[cfg(target_os = "linux")]
fn install() {
    // SAFETY: a zeroed sigaction with the handler and SA_SIGINFO set is valid, and the handler
    // only calls async-signal-safe functions. It takes the place of the standard library's
    // handler, which on Linux looks for stack overflows on SIGSEGV alone (a guard page's fault).
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = on_sigbus as *const () as libc::sighandler_t;
        action.sa_flags = libc::SA_SIGINFO;
        libc::sigemptyset(&mut action.sa_mask);
        libc::sigaction(libc::SIGBUS, &action, std::ptr::null_mut());
    }
}

/// Whether a signal has been passed on to the handler before this module's ([`pass_on`]).
#[cfg(target_os = "linux")]
static PASSED: AtomicBool = AtomicBool::new(false);

/// Puts back the handler of `signal` that was there before this module's, or the default once
/// one has been passed on already.
#[cfg(target_os = "linux")]
unsafe fn pass_on(signal: libc::c_int) {
    // SAFETY: sigaction with a valid action, or signal with the default; both
    // async-signal-safe.
    unsafe {
        let previous = PASSED_ON.load(SeqCst);
        // Once only: a handler that hands the signal back (Python's faulthandler restores the
        // handler it found, this one, and raises again) would otherwise pass it to and fro.
        if previous.is_null() || PASSED.swap(true, SeqCst) {
            libc::signal(signal, libc::SIG_DFL);
        } else {
            libc::sigaction(signal, previous, std::ptr::null_mut());
        }
    }
}

/// Elsewhere a stack overflow raises SIGBUS too, and the standard library's handler says so.
#[cfg(not(target_os = "linux"))]
pub fn say_a_table_cut_short_under_a_read() {}

/// The read-only maps of table and set files this process holds, as (start, end) pairs with
/// start 0 for a free place: the only maps a fault may replace with zeros. A fixed array, which
/// the signal handler reads without a lock; a map that finds it full is not registered, and a
/// cut under it ends the process as any other fault does.
#[cfg(target_os = "linux")]
static TABLE_MAPS: [(AtomicUsize, AtomicUsize); 4096] =
    [const { (AtomicUsize::new(0), AtomicUsize::new(0)) }; 4096];

/// A start that marks a place being taken or given back.
#[cfg(target_os = "linux")]
const BUSY: usize = usize::MAX;

/// A table's map registered for the handler of SIGBUS ([`table_mapped`]), forgotten when
/// dropped: before the map is unmapped.
#[derive(Debug)]
pub(crate) struct TableMap(Option<usize>);

/// Registers the read-only map of a table or set file, `len` bytes at `start`: where this
/// process goes on after a table is cut short ([`go_on_after_a_table_cut_short`]), a fault
/// there has the map replaced with zeros; a fault in any other map, whatever its file's name,
/// is the program's own.
pub(crate) fn table_mapped(start: *const u8, len: usize) -> TableMap {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: sysconf reads a constant of the system.
        let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) }.max(1) as usize;
        let (start, end) = (start as usize, (start as usize).saturating_add(len.div_ceil(page) * page));
        for (place, (first, last)) in TABLE_MAPS.iter().enumerate() {
            if first.compare_exchange(0, BUSY, SeqCst, SeqCst).is_ok() {
                last.store(end, SeqCst);
                first.store(start, SeqCst);
                return TableMap(Some(place));
            }
        }
    }
    let _ = (start, len);
    TableMap(None)
}

impl Drop for TableMap {
    fn drop(&mut self) {
        #[cfg(target_os = "linux")]
        if let Some(place) = self.0 {
            let (first, last) = &TABLE_MAPS[place];
            first.store(BUSY, SeqCst);
            last.store(0, SeqCst);
            first.store(0, SeqCst);
        }
    }
}

/// The registered table map that holds `address`, its range rounded to whole pages. Reads
/// atomics only: for the signal handler.
#[cfg(target_os = "linux")]
fn table_map_at(address: usize) -> Option<std::ops::Range<usize>> {
    TABLE_MAPS.iter().find_map(|(first, last)| {
        let start = first.load(SeqCst);
        let end = last.load(SeqCst);
        (start != 0 && start != BUSY && (start..end).contains(&address)).then_some(start..end)
    })
}

/// A map of the process, as a line of /proc/self/maps gives it.
#[cfg(target_os = "linux")]
#[derive(Debug, PartialEq)]
struct Mapping {
    range: std::ops::Range<usize>,
    /// Readable and neither writable nor executable (`r--`).
    read_only: bool,
    /// The length of the file's path, copied out; 0 where no file is mapped (anonymous memory,
    /// `[stack]`).
    path_len: usize,
}

#[cfg(target_os = "linux")]
/// The map that holds `address`, its file's path copied into `path`, read from /proc/self/maps
/// with system calls alone: a signal handler may neither allocate nor lock. `None` where no
/// map holds it or the maps cannot be read.
fn mapping_at(address: usize, path: &mut [u8]) -> Option<Mapping> {
    // SAFETY: open, read and close with a NUL-terminated name and a buffer of the length given.
    let maps = unsafe { libc::open(c"/proc/self/maps".as_ptr(), libc::O_RDONLY | libc::O_CLOEXEC) };
    if maps < 0 {
        return None;
    }
    let (mut chunk, mut line) = ([0u8; 4096], [0u8; 4608]);
    let (mut line_len, mut found) = (0, None);
    'reading: loop {
        // SAFETY: as above.
        let read = unsafe { libc::read(maps, chunk.as_mut_ptr().cast(), chunk.len()) };
        if read <= 0 {
            break;
        }
        for &byte in &chunk[..read as usize] {
            if byte != b'\n' {
                // A longer line (a path of over 4 KB) is cut; its address range comes first.
                if line_len < line.len() {
                    line[line_len] = byte;
                    line_len += 1;
                }
                continue;
            }
            found = maps_line(&line[..line_len], address, path);
            line_len = 0;
            if found.is_some() {
                break 'reading;
            }
        }
    }
    // SAFETY: as above.
    unsafe { libc::close(maps) };
    found
}

#[cfg(target_os = "linux")]
/// A line of /proc/self/maps (`start-end perms offset dev inode path`) whose range holds
/// `address`: its map, the path of its file (where it names one) copied into `path`.
fn maps_line(line: &[u8], address: usize, path: &mut [u8]) -> Option<Mapping> {
    let hex = |field: &[u8]| {
        field.iter().try_fold(0usize, |n, &b| Some(n.checked_mul(16)? + (b as char).to_digit(16)? as usize))
    };
    let mut fields = line.splitn(6, |&b| b == b' ');
    let range = fields.next()?;
    let dash = range.iter().position(|&b| b == b'-')?;
    let (start, end) = (hex(&range[..dash])?, hex(&range[dash + 1..])?);
    if !(start..end).contains(&address) {
        return None;
    }
    let read_only = fields.next()?.starts_with(b"r--");
    let name = fields.nth(3).unwrap_or_default().trim_ascii_start();
    let path_len = if name.starts_with(b"/") { name.len().min(path.len()) } else { 0 };
    path[..path_len].copy_from_slice(&name[..path_len]);
    Some(Mapping { range: start..end, read_only, path_len })
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::maps_line;

    /// The path of the line's file where its range holds `address`, and whether it is read-only.
    fn path_of(line: &str, address: usize) -> Option<(String, bool)> {
        let mut path = [0u8; 64];
        maps_line(line.as_bytes(), address, &mut path).map(|mapping| {
            assert!(mapping.range.contains(&address), "{:?} holds {address:#x}", mapping.range);
            (String::from_utf8_lossy(&path[..mapping.path_len]).into_owned(), mapping.read_only)
        })
    }

    #[test]
    fn a_line_of_proc_self_maps_names_the_file_mapped_at_an_address() {
        let line = "7f1c2a000000-7f1c2a010000 r--s 00000000 fd:01 1234                       /var/tmp/t b/morris-3-3.tbl";
        let table = Some(("/var/tmp/t b/morris-3-3.tbl".to_string(), true));
        assert_eq!(path_of(line, 0x7f1c2a000000), table);
        assert_eq!(path_of(line, 0x7f1c2a00ffff), table);
        assert_eq!(path_of(line, 0x7f1c2a010000), None, "the end is past the range");
        assert_eq!(path_of(line, 0x7f1c29ffffff), None);
        // Anonymous memory (the zeros that replaced a table's map) and the kernel's names are
        // no file; code and writable maps are not read-only.
        assert_eq!(
            path_of("7f1c2a000000-7f1c2a010000 r--p 00000000 00:00 0 ", 0x7f1c2a000100),
            Some((String::new(), true))
        );
        assert_eq!(
            path_of("7ffd1000-7ffd3000 rw-p 00000000 00:00 0                          [stack]", 0x7ffd1100),
            Some((String::new(), false))
        );
        assert_eq!(
            path_of("1000-2000 r-xp 00000000 fd:01 7 /usr/lib/libc.so.6", 0x1800),
            Some(("/usr/lib/libc.so.6".to_string(), false))
        );
        // A path longer than the buffer is cut to it; a line that is not one of maps, nothing.
        let long = format!("1000-2000 r--p 00000000 fd:01 7 /{}", "x".repeat(100));
        assert_eq!(path_of(&long, 0x1800).map(|(p, _)| p.len()), Some(64));
        assert_eq!(path_of("garbage", 0), None);
        assert_eq!(path_of("zz-2000 r--p 0 fd:01 7 /a", 0x1000), None);
    }

    #[test]
    fn only_the_maps_registered_are_tables_and_only_while_registered() {
        use super::{table_map_at, table_mapped};
        let page = 4096;
        let buffer = vec![0u8; 3 * page];
        let start = buffer.as_ptr() as usize;
        assert_eq!(table_map_at(start + 10), None);
        let registered = table_mapped(buffer.as_ptr(), page + 1);
        let range = table_map_at(start + page).expect("registered");
        // SAFETY: sysconf reads a constant of the system.
        let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) } as usize;
        assert_eq!(range, start..start + (page + 1).div_ceil(page) * page, "whole pages");
        assert_eq!(table_map_at(start - 1), None);
        drop(registered);
        assert_eq!(table_map_at(start + 10), None, "forgotten once dropped");
    }

    #[test]
    fn the_handler_put_aside_for_other_faults_is_never_this_modules_own() {
        use super::{PASSED_ON, go_on_after_a_table_cut_short_and_pass_on_the_rest, on_sigbus};
        use std::sync::atomic::Ordering::SeqCst;
        // As the command line installs it, then a caller that passes other faults on: they
        // would come back to this handler for ever, so the default action takes them.
        super::say_a_table_cut_short_under_a_read();
        go_on_after_a_table_cut_short_and_pass_on_the_rest();
        let passed_on = PASSED_ON.load(SeqCst);
        assert!(!passed_on.is_null());
        // SAFETY: PASSED_ON holds a leaked sigaction once set.
        let handler = unsafe { (*passed_on).sa_sigaction };
        assert_eq!(handler, libc::SIG_DFL);
        assert_ne!(handler, on_sigbus as *const () as libc::sighandler_t);
        go_on_after_a_table_cut_short_and_pass_on_the_rest();
        assert_eq!(PASSED_ON.load(SeqCst), passed_on, "this module's handler in place: nothing to put aside");
        // SAFETY: reads the handler in place.
        let current = unsafe {
            let mut current: libc::sigaction = std::mem::zeroed();
            libc::sigaction(libc::SIGBUS, std::ptr::null(), &mut current);
            current.sa_sigaction
        };
        assert_eq!(current, on_sigbus as *const () as libc::sighandler_t);
    }
}
