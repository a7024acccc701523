//! The command line as a careless or hostile user meets it: numbers out of range, flags that
//! contradict each other, a FIFO where a table should be, output cut short, input that is not
//! text, and the words and messages that say what is wrong.

mod common;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const BINARY: &str = env!("CARGO_BIN_EXE_tablebase");

fn tablebase(args: &[&str], stdin: &str) -> Output {
    common::tablebase_with_input(BINARY, args, stdin)
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// One line on standard error, starting `tablebase: `, and the exit code.
fn refused(out: &Output, code: i32) -> String {
    let text = stderr(out);
    assert_eq!(out.status.code(), Some(code), "{text}");
    assert_eq!(text.lines().count(), 1, "one line: {text}");
    assert!(text.starts_with("tablebase: "), "{text}");
    text
}

/// Runs the binary, and kills it (failing the test) if it has not finished after `limit`.
fn within(args: &[&str], limit: Duration) -> Output {
    let mut child = Command::new(BINARY)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{args:?} still running after {limit:?}: it hangs");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

fn connect4_4x4(dir: &Path) {
    let out = tablebase(&["generate", "connect4", "--size", "4x4", "--dir", dir.to_str().unwrap()], "");
    assert!(out.status.success(), "{}", stderr(&out));
}

#[test]
fn max_time_out_of_range_is_a_usage_error_naming_the_flag() {
    // A 7x6 position past the checked-in book: a short search, so the limit is used.
    let late = "2252576253462244111563365343671351441";
    for bad in ["1e30", "1e19", "NaN", "inf", "0", "-0.5", "31536001", "0x10", "", "ten"] {
        let flag = format!("--max-time={bad}");
        for args in [
            vec!["probe", "connect4", "--size", "7x6", &flag, late],
            vec!["play", "connect4", "--size", "7x6", "--from", late, "--side", "second", &flag],
        ] {
            let text = refused(&tablebase(&args, "quit\n"), 2);
            assert!(text.contains("--max-time") && text.contains("at most 31536000"), "{bad}: {text}");
        }
    }
    // The largest accepted limit searches as no limit would.
    let out =
        tablebase(&["probe", "connect4", "--size", "7x6", "--brief", "--max-time", "31536000", late], "");
    assert_eq!(String::from_utf8(out.stdout.clone()).unwrap(), "loss\t4\n", "{}", stderr(&out));
}

#[test]
fn contradicting_flags_are_refused_before_any_work() {
    let dir = common::scratch("contradiction");
    let d = dir.to_str().unwrap();
    for args in [
        &["generate", "morris", "--stones", "3", "--up-to", "9-9", "--dir", d][..],
        &["generate", "morris", "--stones", "5", "--up-to", "6-5", "--no-opening", "--dir", d],
        &["verify", "morris", "--stones", "4", "--up-to", "3-5", "--dir", d],
    ] {
        let text = refused(&tablebase(args, ""), 2);
        assert!(text.contains("contradict"), "{args:?}: {text}");
    }
    for args in [
        &["probe", "connect4", "--size", "4x4", "--json", "--brief", "1"][..],
        &["verify", "connect4", "--size", "4x4", "--quick", "--resume"],
        &["generate", "connect4", "--size", "4x4", "--book-plies", "17", "--dir", d],
    ] {
        refused(&tablebase(args, ""), 2);
    }
    assert_eq!(std::fs::read_dir(&*dir).unwrap().count(), 0, "nothing was built");
    // Classes within the game are no contradiction.
    let out = tablebase(&["generate", "morris", "--stones", "4", "--up-to", "4-3", "--dir", d], "");
    assert!(out.status.success(), "{}", stderr(&out));
}

#[test]
fn a_fifo_or_directory_where_a_file_should_be_is_refused_at_once() {
    let dir = common::scratch("fifo");
    connect4_4x4(&dir);
    let d = dir.to_str().unwrap();
    let table = dir.join("connect4-4x4-ply05.tbl");
    std::fs::remove_file(&table).unwrap();
    let name = std::ffi::CString::new(table.to_str().unwrap()).unwrap();
    // SAFETY: mkfifo with a valid C string.
    assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o644) }, 0);
    let limit = Duration::from_secs(20);
    let out = within(&["probe", "connect4", "--size", "4x4", "--dir", d, "1234"], limit);
    let text = refused(&out, 1);
    assert!(text.contains("connect4-4x4-ply05.tbl") && text.contains("FIFO"), "{text}");
    let out = within(&["info", "connect4", "--size", "4x4", "--dir", d], limit);
    let listing = String::from_utf8(out.stdout).unwrap();
    let row = listing.lines().find(|l| l.starts_with("ply 5 ")).unwrap();
    assert!(row.contains("damaged") && row.contains("FIFO"), "{row}");
    let out = within(&["verify", "connect4", "--size", "4x4", "--dir", d, "--resume"], limit);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(stderr(&out).contains("FIFO"));
    // generate sets the FIFO aside like any damaged file and builds the table again.
    let out = within(&["generate", "connect4", "--size", "4x4", "--dir", d], limit);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = within(&["verify", "connect4", "--size", "4x4", "--dir", d, "--quick"], limit);
    assert!(out.status.success(), "{}", stderr(&out));
    // The journal of verify --resume: a directory in its place.
    std::fs::remove_file(dir.join("verify.journal")).unwrap();
    std::fs::create_dir(dir.join("verify.journal")).unwrap();
    let out = within(&["verify", "connect4", "--size", "4x4", "--dir", d, "--resume"], limit);
    let text = refused(&out, 1);
    assert!(text.contains("verify.journal: cannot open it to read: a directory"), "{text}");
}

#[test]
fn info_and_verify_say_the_same_status_of_a_layer_without_its_set() {
    let dir = common::scratch("status-words");
    connect4_4x4(&dir);
    let d = dir.to_str().unwrap();
    std::fs::remove_file(dir.join("connect4-4x4-ply07.set")).unwrap();
    std::fs::write(dir.join("connect4-4x4-ply09.tbl.tmp"), b"begun").unwrap();
    std::fs::remove_file(dir.join("connect4-4x4-ply09.tbl")).unwrap();
    let info = tablebase(&["info", "connect4", "--size", "4x4", "--dir", d, "--json"], "");
    let verify = tablebase(&["verify", "connect4", "--size", "4x4", "--dir", d, "--json", "--quick"], "");
    assert_eq!(verify.status.code(), Some(1), "missing and partial tables, no damage");
    let status = |out: &Output, table: &str| -> String {
        let text = String::from_utf8(out.stdout.clone()).unwrap();
        let line = text.lines().find(|l| l.contains(&format!("\"table\": \"{table}\""))).unwrap().to_string();
        let v: serde_json::Value = serde_json::from_str(&line).unwrap();
        v["status"].as_str().unwrap().to_string()
    };
    for (table, word) in [("ply 6", "complete"), ("ply 7", "missing"), ("ply 9", "partial")] {
        assert_eq!(status(&info, table), word, "info, {table}");
        assert_eq!(status(&verify, table), word, "verify, {table}");
    }
}

/// A reader that is gone before the first line: every write fails at once with a broken pipe.
fn with_closed_stdout(args: &[&str]) -> Output {
    let mut fds = [0; 2];
    // SAFETY: pipe() fills two descriptors that are closed below or handed to the child.
    assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
    // SAFETY: the read end is ours and closed once; the write end goes to the child.
    unsafe { libc::close(fds[0]) };
    let write_end = unsafe { <std::fs::File as std::os::fd::FromRawFd>::from_raw_fd(fds[1]) };
    Command::new(BINARY).args(args).stdout(Stdio::from(write_end)).stderr(Stdio::piped()).output().unwrap()
}

#[test]
fn output_cut_short_never_turns_a_failure_into_success() {
    let dir = common::scratch("cut-short");
    connect4_4x4(&dir);
    let d = dir.to_str().unwrap();
    // Nothing wrong found before the cut: 141, as for a process stopped by SIGPIPE.
    let out = with_closed_stdout(&["verify", "connect4", "--size", "4x4", "--dir", d, "--quick"]);
    assert_eq!(out.status.code(), Some(141), "{}", stderr(&out));
    assert!(out.stderr.is_empty(), "quietly: {}", stderr(&out));
    let out = with_closed_stdout(&["probe", "connect4", "--size", "4x4", "--dir", d, "12", "21"]);
    assert_eq!(out.status.code(), Some(141));
    // Damage found in the first table: verify's 3, though its report could not be written.
    let first = dir.join("connect4-4x4-ply00.tbl");
    let mut bytes = std::fs::read(&first).unwrap();
    bytes[256] ^= 0x40; // the first byte of its data
    std::fs::write(&first, bytes).unwrap();
    let out = with_closed_stdout(&["verify", "connect4", "--size", "4x4", "--dir", d, "--quick"]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    // A bad position before the cut: a batch's 2.
    let out = with_closed_stdout(&["probe", "connect4", "--size", "4x4", "--dir", d, "9", "12"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    // Through a real `| head -1`: the first line arrives, and the status is not 0.
    let mut child = Command::new(BINARY)
        .args(["verify", "connect4", "--size", "4x4", "--dir", d, "--quick"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut first_line = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut first_line).unwrap();
    assert!(first_line.starts_with("ply 0"), "{first_line}");
    assert_ne!(child.wait().unwrap().code(), Some(0));
}

#[test]
fn a_closed_standard_error_is_no_crash() {
    let dir = common::scratch("closed-stderr");
    connect4_4x4(&dir);
    let mut fds = [0; 2];
    // SAFETY: as in `with_closed_stdout`; here both outputs go to the pipe no one reads.
    assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
    unsafe { libc::close(fds[0]) };
    let out_end = unsafe { <std::fs::File as std::os::fd::FromRawFd>::from_raw_fd(fds[1]) };
    let err_end = out_end.try_clone().unwrap();
    let mut child = Command::new(BINARY)
        .args(["probe", "connect4", "--size", "4x4", "--dir", dir.to_str().unwrap(), "--brief", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::from(out_end))
        .stderr(Stdio::from(err_end))
        .spawn()
        .unwrap();
    let bad_lines = "9\n".repeat(1000);
    let _ = std::io::Write::write_all(&mut child.stdin.take().unwrap(), bad_lines.as_bytes());
    // The bad lines' status (2), not a panic's (101).
    assert_eq!(child.wait().unwrap().code(), Some(2));
}

#[test]
fn play_answers_input_that_is_not_text_and_goes_on() {
    let dir = common::scratch("play-bytes");
    connect4_4x4(&dir);
    let mut child = Command::new(BINARY)
        .args(["play", "connect4", "--size", "4x4", "--dir", dir.to_str().unwrap(), "--seed", "1"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), b"\xff\xfe\x80\n2\nquit\n").unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("That is not text (not UTF-8)"), "{text}");
    assert!(text.contains("You play 2."), "the game went on: {text}");
    assert!(text.trim_end().ends_with("Game abandoned."), "{text}");
}

#[test]
fn log_lines_without_a_terminal_name_sizes_in_units_that_fit() {
    let dir = common::scratch("log-units");
    let out = tablebase(&["generate", "connect4", "--size", "4x4", "--dir", dir.to_str().unwrap()], "");
    let log = stderr(&out);
    assert!(log.contains("peak memory so far ") && !log.contains("0.00 GiB"), "{log}");
    assert!(log.lines().any(|l| l.contains(" MB)")), "{log}");
}

#[test]
fn bench_on_tables_that_cannot_answer_every_position_says_so() {
    let dir = common::scratch("bench-partial");
    let d = dir.to_str().unwrap();
    let out = tablebase(&["generate", "morris", "--up-to", "4-3", "--dir", d], "");
    assert!(out.status.success(), "{}", stderr(&out));
    // 4-3's moves reach 3-3 (a capture) and 3-4: without 3-4, its positions cannot be probed.
    std::fs::remove_file(dir.join("morris-3-4.tbl")).unwrap();
    let text =
        refused(&tablebase(&["bench", "probe-morris", "--dir", d, "--count", "2000", "--runs", "1"], ""), 1);
    assert!(text.contains("cannot probe every position drawn") && text.contains("morris-3-4.tbl"), "{text}");
}

/// `bench probe-connect4` times probes of a whole board, and refuses a board with a ply
/// missing (its positions cannot be answered) before timing anything.
#[test]
fn bench_probe_connect4_times_a_whole_board_only() {
    let dir = common::scratch("bench-probe-connect4");
    let d = dir.to_str().unwrap();
    let out = tablebase(&["generate", "connect4", "--size", "4x4", "--dir", d], "");
    assert!(out.status.success(), "{}", stderr(&out));
    let bench = ["bench", "probe-connect4", "--size", "4x4", "--dir", d, "--count", "2000", "--runs", "1"];
    let out = tablebase(&bench, "");
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("connect4 4x4; positions: 2000\n"), "{text}");
    assert!(text.contains("single value lookup (1 thread)") && text.contains("median of 2000"), "{text}");
    std::fs::remove_file(dir.join("connect4-4x4-ply09.tbl")).unwrap();
    let text = refused(&tablebase(&bench, ""), 1);
    assert!(
        text.contains("cannot probe every position drawn") && text.contains("connect4-4x4-ply09.tbl"),
        "{text}"
    );
}

#[test]
fn bench_pair_code_reads_checked_tables_only() {
    let dir = common::scratch("bench-pair-code");
    let d = dir.to_str().unwrap();
    let out = tablebase(&["generate", "connect4", "--size", "4x4", "--dir", d], "");
    assert!(out.status.success(), "{}", stderr(&out));
    let table = dir.join("connect4-4x4-ply10.tbl");
    let path = table.to_str().unwrap();
    // Every lookup is checked against the table's own byte inside the bench.
    let out = tablebase(&["bench", "pair-code", path, "--lookups", "1000"], "");
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(text.contains("entries") && text.contains("single lookup"), "{text}");
    refused(&tablebase(&["bench", "pair-code", dir.join("missing.tbl").to_str().unwrap()], ""), 1);
    // A byte of the body changed: the checksum refuses it before any figure.
    let mut bytes = std::fs::read(&table).unwrap();
    bytes[300] ^= 1;
    std::fs::write(&table, &bytes).unwrap();
    let text = refused(&tablebase(&["bench", "pair-code", path], ""), 1);
    assert!(text.contains("connect4-4x4-ply10.tbl"), "{text}");
    refused(&tablebase(&["bench", "pair-code", path, "--block-bytes", "4"], ""), 2);
}

#[test]
fn a_set_under_a_table_name_is_named_as_such() {
    let dir = common::scratch("set-as-table");
    let d = dir.to_str().unwrap();
    let build = || tablebase(&["generate", "connect4", "--size", "4x4", "--dir", d], "");
    assert!(build().status.success());
    let table = dir.join("connect4-4x4-ply10.tbl");
    let original = std::fs::read(&table).unwrap();
    std::fs::copy(dir.join("connect4-4x4-ply10.set"), &table).unwrap();
    let said = "connect4-4x4-ply10.tbl: a set file (reachable positions), not a value table";
    let out = tablebase(&["verify", "connect4", "--size", "4x4", "--dir", d], "");
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(stderr(&out).contains(said), "{}", stderr(&out));
    let text = refused(&tablebase(&["probe", "connect4", "--size", "4x4", "--dir", d, "1111222233"], ""), 1);
    assert!(text.contains(said), "{text}");
    // generate sets it aside and builds the table again, byte for byte.
    let out = build();
    assert!(out.status.success() && stderr(&out).contains(said), "{}", stderr(&out));
    assert_eq!(std::fs::read(&table).unwrap(), original);
    assert!(dir.join("connect4-4x4-ply10.tbl.damaged").exists());
}
