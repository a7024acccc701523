//! The command line as a careless or hostile user meets it: numbers out of range, flags that
//! contradict each other, a FIFO where a table should be, output cut short, input that is not
//! text, and the words and messages that say what is wrong.

use crate::common;

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

/// The last line on standard error, starting `tablebase: `, after the log of a run that
/// stopped, and the exit code.
fn stopped(out: &Output, code: i32) -> String {
    let text = stderr(out);
    assert_eq!(out.status.code(), Some(code), "{text}");
    let last = text.lines().last().unwrap_or_default().to_string();
    assert!(last.starts_with("tablebase: "), "{text}");
    last
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
            vec!["serve", "--port", "0", &flag],
            // The benchmarks' proofs too: a bad limit there gave up at once (0, NaN) or never.
            vec!["bench", "sogo-prove", "--table-mb", "128", &flag, "a1b2"],
            vec!["bench", "cube-prove", "sogo", "a1b2", "--table-mb", "128", &flag],
        ] {
            // Within a limit: a serve that took the flag would serve until stopped.
            let text = refused(&within(&args, Duration::from_secs(20)), 2);
            assert!(text.contains("--max-time") && text.contains("at most 31536000"), "{bad}: {text}");
        }
    }
    // The largest accepted limit searches as no limit would.
    let out =
        tablebase(&["probe", "connect4", "--size", "7x6", "--brief", "--max-time", "31536000", late], "");
    assert_eq!(String::from_utf8(out.stdout.clone()).unwrap(), "loss\t4\n", "{}", stderr(&out));
}

/// A negative number after a flag is that flag's value, refused with the flag's range, not taken
/// for an unknown flag ("unexpected argument '-1'").
#[test]
fn a_negative_number_after_a_flag_is_refused_with_the_flags_range() {
    let dir = common::scratch("negative-flags");
    let d = dir.to_str().unwrap();
    for (args, says) in [
        (
            vec!["generate", "tictactoe", "--threads", "-1", "--dir", d],
            "--threads <THREADS>': expected a whole number of threads from 1 to 1024",
        ),
        (
            vec!["generate", "morris", "--stones", "-3", "--dir", d],
            "--stones '-3': expected a number from 3 to 9",
        ),
        (vec!["probe", "qubic", "--max-time", "-1", "a11"], "--max-time <S>': bad time '-1'"),
        (vec!["bench", "morris", "--runs", "-1"], "--runs <RUNS>': expected a whole number from 1 to"),
    ] {
        let text = refused(&tablebase(&args, ""), 2);
        assert!(text.contains(says), "{args:?}: {text}");
    }
    assert!(std::fs::read_dir(&dir).unwrap().next().is_none(), "nothing written");
    std::fs::remove_dir_all(&dir).unwrap();
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
    // SAFETY: pipe2() fills two descriptors that are closed below or handed to the child. Close
    // on exec: a child another test spawns meanwhile (tests run as threads of one process under
    // `cargo test`) must not hold the read end open.
    assert_eq!(unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) }, 0);
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
    assert_eq!(unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) }, 0);
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

/// A link planted under a name that `generate` or `verify --resume` writes (on a shared
/// cluster directory, by another user) is refused with one line naming it, exit 1, and the
/// file it points at is left as it was; a hard link under a temporary name is replaced, never
/// written through.
#[test]
fn a_link_planted_in_the_table_directory_is_never_written_through() {
    let outside = common::scratch("planted-victim");
    let victim = outside.join("precious");
    let victim_bytes = b"another user's file\n".to_vec();
    let game = ["connect4", "--size", "4x4"];
    let run = |dir: &Path, extra: &[&str]| {
        let mut args = vec!["generate"];
        args.extend(game);
        args.extend(["--dir", dir.to_str().unwrap()]);
        args.extend(extra);
        tablebase(&args, "")
    };
    // Names the first forward pass writes, the backward pass writes, the lock, and the
    // checkpoints of a book's searched ply and their temporary file.
    let cases: [(&str, &[&str]); 5] = [
        (".generate.lock", &[]),
        ("connect4-4x4-ply00.set.tmp", &[]),
        ("connect4-4x4-ply16.tbl.tmp", &[]),
        ("connect4-4x4-ply06.tbl.tmp.chunks", &["--book-plies", "6"]),
        ("connect4-4x4-ply06.tbl.tmp.chunks.tmp", &["--book-plies", "6"]),
    ];
    for (name, extra) in cases {
        let dir = common::scratch("planted-link");
        std::fs::write(&victim, &victim_bytes).unwrap();
        std::os::unix::fs::symlink(&victim, dir.join(name)).unwrap();
        let text = stopped(&run(&dir, extra), 1);
        assert!(text.contains(name) && text.contains("symbolic link"), "{name}: {text}");
        assert_eq!(std::fs::read(&victim).unwrap(), victim_bytes, "{name}: written through");
    }
    // The lock folder of `--only` jobs as a link to another directory.
    let dir = common::scratch("planted-jobs");
    std::os::unix::fs::symlink(&outside, dir.join(".jobs")).unwrap();
    let text = stopped(&run(&dir, &["--only", "ply-0-reachable-set"]), 1);
    assert!(text.contains(".jobs") && text.contains("symbolic link"), "{text}");
    assert_eq!(std::fs::read_dir(&*outside).unwrap().count(), 1, "no lock file made there");
    // A hard link under a temporary name: removed and replaced, the file it shared left whole.
    let dir = common::scratch("planted-hard-link");
    std::fs::write(&victim, &victim_bytes).unwrap();
    std::fs::hard_link(&victim, dir.join("connect4-4x4-ply00.set.tmp")).unwrap();
    let out = run(&dir, &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(std::fs::read(&victim).unwrap(), victim_bytes, "written through a hard link");
    // verify --resume's journal.
    std::fs::write(&victim, &victim_bytes).unwrap();
    std::os::unix::fs::symlink(&victim, dir.join("verify.journal")).unwrap();
    let d = dir.to_str().unwrap();
    let text = refused(&tablebase(&["verify", "connect4", "--size", "4x4", "--dir", d, "--resume"], ""), 1);
    assert!(text.contains("verify.journal") && text.contains("symbolic link"), "{text}");
    assert_eq!(std::fs::read(&victim).unwrap(), victim_bytes, "journal appended through a link");
}

/// `verify` never reports counts read beside damaged bytes as a complete table's: every byte
/// of ply 0 of 4x4 (table and set) flipped in turn gives either the undamaged row or
/// `damaged` with null counts.
#[test]
fn verify_reports_a_damaged_table_as_damaged_without_counts() {
    let dir = common::scratch("verify-damaged-counts");
    connect4_4x4(&dir);
    let d = dir.to_str().unwrap();
    let row = || {
        let out = tablebase(&["verify", "connect4", "--size", "4x4", "--dir", d, "--quick", "--json"], "");
        let text = String::from_utf8(out.stdout).unwrap();
        let line = text.lines().next().unwrap().to_string();
        serde_json::from_str::<serde_json::Value>(&line).unwrap()
    };
    let truth = row();
    assert_eq!((truth["status"].as_str(), truth["draw"].as_u64()), (Some("complete"), Some(1)), "{truth}");
    let mut damaged = 0;
    for name in ["connect4-4x4-ply00.tbl", "connect4-4x4-ply00.set"] {
        let path = dir.join(name);
        let original = std::fs::read(&path).unwrap();
        for at in 0..original.len() {
            let mut bytes = original.clone();
            bytes[at] ^= 0x01;
            std::fs::write(&path, &bytes).unwrap();
            let found = row();
            if found == truth {
                continue;
            }
            damaged += 1;
            assert_eq!(found["status"], "damaged", "{name} byte {at}: {found}");
            for field in ["positions", "win", "loss", "draw", "max_win", "max_loss", "consistent"] {
                assert!(found[field].is_null(), "{name} byte {at}: {field} in {found}");
            }
        }
        std::fs::write(&path, &original).unwrap();
    }
    assert!(damaged > 100, "the flips were found: {damaged}");
}

/// A batch reads a line that never ends in linear time, holds only its start, and answers it
/// with an error line of its own; the lines around it are answered as usual.
#[test]
fn a_batch_refuses_an_overlong_line_and_answers_the_others() {
    let dir = common::scratch("overlong-line");
    connect4_4x4(&dir);
    let d = dir.to_str().unwrap();
    // Over MAX_LINE, in pieces a pipe delivers, and once as the last line without its end.
    let long = "1".repeat(3 << 20);
    let input = format!("12\n{long}\n21\n{long}");
    let out = tablebase(&["probe", "connect4", "--size", "4x4", "--dir", d, "--brief", "-"], &input);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let text = String::from_utf8(out.stdout.clone()).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 4, "{text}");
    let overlong = "error\tline longer than 65536 bytes: not a position";
    assert_eq!((lines[1], lines[3]), (overlong, overlong), "{text}");
    let alone = |moves: &str| {
        let out = tablebase(&["probe", "connect4", "--size", "4x4", "--dir", d, "--brief", moves], "");
        String::from_utf8(out.stdout).unwrap().trim_end().to_string()
    };
    assert_eq!((lines[0], lines[2]), (alone("12").as_str(), alone("21").as_str()));
    let errors = stderr(&out);
    assert!(
        errors.contains("line 2: line longer than") && errors.contains("line 4: line longer than"),
        "{errors}"
    );
    // With --json, the position quoted briefly.
    let out =
        tablebase(&["probe", "connect4", "--size", "4x4", "--dir", d, "--json", "-"], &format!("{long}\n"));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["position"], format!("{}...", "1".repeat(60)));
}

/// Runs the binary with standard output closed, as `>&-` in a shell leaves it.
fn with_stdout_closed(args: &[&str]) -> Output {
    Command::new("sh")
        .arg("-c")
        .arg("exec \"$0\" \"$@\" >&-")
        .arg(BINARY)
        .args(args)
        .stdin(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .unwrap()
}

/// A standard output closed before the start (`>&-`) is an error, exit 1, for every command
/// whose output is its result: never 0 with the output lost.
#[test]
fn a_closed_standard_output_is_an_error_not_success() {
    let dir = common::scratch("closed-stdout");
    connect4_4x4(&dir);
    let d = dir.to_str().unwrap();
    for args in [
        &["probe", "connect4", "--size", "4x4", "--dir", d, "12"][..],
        &["verify", "connect4", "--size", "4x4", "--dir", d, "--quick"],
        &["info", "connect4", "--size", "4x4", "--dir", d],
        &["plan", "connect4", "--size", "4x4", "--dir", d],
        &["bench", "sogo-prove", "a1b1a1b1a1b1", "--table-mb", "16"],
    ] {
        let out = with_stdout_closed(args);
        let text = refused(&out, 1);
        assert!(text.contains("standard output") && text.contains("Bad file descriptor"), "{args:?}: {text}");
    }
    // Redirected to /dev/null, for writing (a shell's `>`) or for reading and writing (`1<>`,
    // Python's `subprocess.DEVNULL`), the output is discarded as asked.
    for redirect in [">/dev/null", "1<>/dev/null"] {
        let out = Command::new("sh")
            .arg("-c")
            .arg(format!("exec \"$0\" \"$@\" {redirect}"))
            .arg(BINARY)
            .args(["info", "connect4", "--size", "4x4", "--dir", d])
            .output()
            .unwrap();
        assert!(out.status.success(), "{redirect}: {}", stderr(&out));
    }
}

/// Runs the binary under an address-space limit of `kib` KiB (`ulimit -v`).
fn under_ulimit(kib: u64, args: &[&str]) -> Output {
    under_shell(&format!("ulimit -v {kib}"), args)
}

/// The binary run with `args` after the shell commands `before` (limits, variables), on two
/// workers on any machine unless `before` says otherwise: each thread's stack counts against
/// an address-space limit.
fn under_shell(before: &str, args: &[&str]) -> Output {
    Command::new("sh")
        .arg("-c")
        .arg(format!("{before} && exec \"$0\" \"$@\""))
        .arg(BINARY)
        .args(args)
        .env("RAYON_NUM_THREADS", "2")
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

/// Memory limits are errors of one line, never an abort (exit 134): the memory check reads
/// the process's own limit, an allocation refused ends the run cleanly, and `--table-mb` has a
/// range.
#[test]
fn memory_limits_are_clean_errors() {
    let dir = common::scratch("ulimit");
    let d = dir.to_str().unwrap();
    // Two threads on any machine: each thread's stack counts against the limit. Under the
    // estimate (48 MB for the 4-stone game, where about 30 MB of the 60 MB is mapped already):
    // refused before any work, naming both.
    let out = under_ulimit(60_000, &["generate", "morris", "--stones", "4", "--threads", "2", "--dir", d]);
    let text = refused(&out, 1);
    assert!(text.contains("does not fit") && text.contains("48.0 MB of memory"), "{text}");
    // Over the estimate but under what the run takes (the estimate leaves out the address space
    // of threads and mappings; the run needs between 120 and 140 MB): let through, and ended
    // by an allocation refused part-way, cleanly, its last line saying why. The same on every
    // run: under a limit the run keeps one allocator arena, so what is mapped when it checks
    // does not depend on how far its threads have got.
    let out = under_ulimit(100_000, &["generate", "morris", "--stones", "4", "--threads", "2", "--dir", d]);
    let said = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(said.contains("morris 3-3: 169626 positions solved"), "{said}");
    let last = said.lines().last().unwrap_or_default();
    assert!(last.starts_with("tablebase: out of memory: "), "{said}");
    // Resumed under a limit the run fits, with 20 MB to spare once the threads' arenas are not
    // counted (with an arena a thread, the same run failed or not from one try to the next):
    // it completes, and what it wrote before and after is sound.
    let out = under_ulimit(160_000, &["generate", "morris", "--stones", "4", "--threads", "2", "--dir", d]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let out = tablebase(&["verify", "morris", "--stones", "4", "--dir", d], "");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // Worker threads whose stacks do not fit (64 of 2 MB): one line and exit 1 before any file
    // is made, asked for or rayon's default (here `RAYON_NUM_THREADS`), where rayon's pool
    // panicked at the first parallel loop.
    let empty = common::scratch("ulimit-threads");
    let e = empty.to_str().unwrap();
    let out = under_ulimit(60_000, &["generate", "morris", "--stones", "4", "--threads", "64", "--dir", e]);
    let text = refused(&out, 1);
    assert!(text.starts_with("tablebase: could not start 64 worker threads: "), "{text}");
    let out = under_shell(
        "ulimit -v 60000 && export RAYON_NUM_THREADS=64",
        &["generate", "morris", "--stones", "4", "--dir", e],
    );
    let text = refused(&out, 1);
    assert!(
        text.starts_with("tablebase: could not start the worker threads (--threads N asks for fewer): "),
        "{text}"
    );
    assert_eq!(std::fs::read_dir(&empty).map_or(0, Iterator::count), 0, "files made");
    // A search whose tables do not fit the limit: refused or stopped, in one line.
    let out = under_ulimit(400_000, &["probe", "qubic", "--dir", d, "--max-time", "5", "a11b22"]);
    let text = refused(&out, 1);
    assert!(text.contains("memory") || text.contains("--max-time"), "{text}");
    let text =
        refused(&tablebase(&["bench", "cube-prove", "qubic", "a11", "--table-mb", "100000000"], ""), 2);
    assert!(text.contains("--table-mb"), "{text}");
    let out = under_ulimit(400_000, &["bench", "cube-prove", "qubic", "a11", "--table-mb", "1024"]);
    let text = refused(&out, 1);
    assert!(text.contains("--table-mb 1024: needs 1.07 GB of memory"), "{text}");
}

/// A small stack limit (`ulimit -s 32`, in KB) changes nothing: the command runs on a thread of
/// its own with a stack of 8 MB, where the searches' recursion overflowed the main thread's
/// (an abort, exit 134).
#[test]
fn a_small_stack_limit_changes_no_answer() {
    let dir = common::scratch("ulimit-s");
    let d = dir.to_str().unwrap();
    // Late positions whose searches go down to the last empty cell (tests/pictures_and_play.rs).
    let positions = [
        (
            "qubic",
            "b14a14c34c32c11c12d13b33a42b32a23d23c43d12c33a41d22c21a31c14a32b43b41b42b31c44a21b44d42d24b24c31a13a33c42d43b12d33d34c13d32a11a44d44d11a12b23d21c24b13",
        ),
        (
            "sogo",
            "b1d1a2c4a3b4b3a2d2a3c1b3c1d1a2a2d1c4d1c1a3a1a4b1c4d2c1d2a4a4b1d3d3b2d4d2a1d4a4d4d3a1a3d4b4d3c4b3b2b4",
        ),
    ];
    for (game, position) in positions {
        let probe = ["probe", game, "--dir", d, "--brief", position];
        let out = under_shell("ulimit -s 32", &probe);
        let alone = tablebase(&probe, "");
        assert!(alone.status.success(), "{game}: {}", stderr(&alone));
        assert_eq!((out.status.code(), stderr(&out)), (Some(0), String::new()), "{game}");
        assert_eq!(String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&alone.stdout), "{game}");
    }
}

/// A limit on the size of a file (`ulimit -f`, 100 KB here) is a write that fails, said in one
/// line naming the file, as a full disk is: never the process killed by SIGXFSZ without a
/// word (exit 153), and no temporary file left; the run then resumes without the limit.
#[test]
fn a_file_size_limit_is_a_clear_error_and_a_rerun_completes() {
    let dir = common::scratch("ulimit-f");
    let d = dir.to_str().unwrap();
    let generate = ["generate", "morris", "--stones", "4", "--threads", "2", "--dir", d];
    let out = under_shell("ulimit -f 100", &generate);
    let last = stopped(&out, 1);
    assert!(last.ends_with(".tbl.tmp: File too large (os error 27)"), "{last}");
    let names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(!names.iter().any(|n| n.ends_with(".tmp")), "{names:?}");
    let out = tablebase(&generate, "");
    assert!(out.status.success(), "{}", stderr(&out));
    let out = tablebase(&["verify", "morris", "--stones", "4", "--quick", "--dir", d], "");
    assert!(out.status.success(), "{}", stderr(&out));
}

/// A proof by parts's journal (`bench cube-prove --journal`) that is damaged, a link, a FIFO, a
/// directory, or asked for without `--parts`: refused in one line naming the file and what is
/// wrong, the link's target untouched.
#[test]
fn a_damaged_or_linked_parts_journal_is_refused() {
    let dir = common::scratch("parts-journal");
    let journal = dir.join("qubic-parts.journal");
    let j = journal.to_str().unwrap();
    let prove =
        ["bench", "cube-prove", "qubic", "a11 d44", "--parts", "1", "--table-mb", "64", "--journal", j];
    let text = refused(&tablebase(&["bench", "cube-prove", "qubic", "a11", "--journal", j], ""), 2);
    assert!(text.contains("--parts"), "{text}");
    std::fs::write(&journal, "wins a11 d44\nwins a11 a11\n").unwrap();
    let text = refused(&tablebase(&prove, ""), 1);
    assert!(text.contains(j) && text.contains("line 2 is not a record"), "{text}");
    // A last line without its newline may be a record cut short, which reads as another
    // position's: refused, and the file left as it was (the next record is not glued to it).
    let cut = "wins a11 d44\nwins b11 c32 b22 b33 b32 b23 a14 b13";
    std::fs::write(&journal, cut).unwrap();
    let text = refused(&tablebase(&prove, ""), 1);
    assert!(text.contains(j) && text.contains("line 2, the last, has no newline at its end"), "{text}");
    assert_eq!(std::fs::read_to_string(&journal).unwrap(), cut);
    // Two records of one position (here its mirror image) that say opposite things.
    std::fs::write(&journal, "wins a11 d44\nwins b11 c32\ncannot-win d11 a44\n").unwrap();
    let text = refused(&tablebase(&prove, ""), 1);
    assert!(text.contains(j) && text.contains("line 3 contradicts line 1"), "{text}");
    let target = dir.join("elsewhere");
    std::fs::write(&target, "kept").unwrap();
    std::fs::remove_file(&journal).unwrap();
    std::os::unix::fs::symlink(&target, &journal).unwrap();
    let text = refused(&tablebase(&prove, ""), 1);
    assert!(text.contains(j), "{text}");
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "kept");
    // A FIFO or a directory at its name: refused at once, not waited on or written into.
    std::fs::remove_file(&journal).unwrap();
    assert!(Command::new("mkfifo").arg(&journal).status().unwrap().success());
    let text = refused(&within(&prove, Duration::from_secs(30)), 1);
    assert!(text.contains(j) && text.contains("FIFO"), "{text}");
    std::fs::remove_file(&journal).unwrap();
    std::fs::create_dir(&journal).unwrap();
    let text = refused(&tablebase(&prove, ""), 1);
    assert!(text.contains(j) && text.contains("directory"), "{text}");
}

/// A record that does not fit (here a file size limit, `ulimit -f`, as a full disk would stop
/// it partway) is cut off again: the proof goes on with a warning, and the journal is left as it
/// was, readable by the next run, which records what this one could not.
#[test]
fn a_parts_journal_record_that_does_not_fit_is_cut_off_again() {
    let dir = common::scratch("parts-journal-full");
    let journal = dir.join("qubic-parts.journal");
    let j = journal.to_str().unwrap();
    // Blank lines, skipped on reading, bring the file to 20 bytes short of 1,024, the limit, and
    // the one record of the proof (White completes a line at once) is 29.
    let before = "\n".repeat(1004);
    std::fs::write(&journal, &before).unwrap();
    let won = "a11 b11 a12 b12 a13 b13";
    let prove = ["cube-prove", "qubic", won, "--parts", "1", "--table-mb", "64", "--journal", j];
    // SIGXFSZ ignored, so that the write past the limit fails (EFBIG) rather than kill.
    let limited = Command::new("sh")
        .arg("-c")
        .arg("trap '' XFSZ; ulimit -f 2 && exec \"$0\" bench \"$@\"")
        .arg(BINARY)
        .args(prove)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(limited.status.success(), "{}", stderr(&limited));
    assert!(stderr(&limited).contains("the proof goes on without recording"), "{}", stderr(&limited));
    assert_eq!(std::fs::read_to_string(&journal).unwrap(), before, "a record cut short was left");
    let out = tablebase(&[&["bench"][..], &prove[..]].concat(), "");
    assert!(out.status.success(), "{}", stderr(&out));
    let after = std::fs::read_to_string(&journal).unwrap();
    assert_eq!(after, format!("{before}wins {won}\n"));
}

/// Sogo's proof journal (`generate sogo`'s `sogo-proof.journal`): `plan` writes none; one that
/// is damaged or a link is refused by `plan` and `generate` in one line naming the file, before
/// any proof, where it used to be passed over with a warning and hours of proofs went
/// unrecorded; the link's target is untouched.
#[test]
fn sogo_proof_journal_damaged_or_linked_is_refused_and_plan_writes_none() {
    let dir = common::scratch("sogo-journal");
    let d = dir.to_str().unwrap();
    let journal = dir.join("sogo-proof.journal");
    let plan = ["plan", "sogo", "--book-plies", "1", "--dir", d];
    let generate = ["generate", "sogo", "--book-plies", "1", "--threads", "1", "--dir", d];
    let out = tablebase(&plan, "");
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(std::fs::read_dir(&*dir).unwrap().count(), 0, "plan wrote into {d}");
    std::fs::write(&journal, "white wins x/..\n").unwrap();
    for args in [&plan[..], &generate[..]] {
        let text = refused(&tablebase(args, ""), 1);
        assert!(text.contains("sogo-proof.journal: line 1 is not a record"), "{args:?}: {text}");
    }
    assert!(!dir.join("sogo-ply00.set").exists(), "generate began before refusing its journal");
    let checked_in = std::fs::read_to_string("tables/sogo-proof.journal").unwrap();
    let cut = checked_in.lines().next().unwrap();
    std::fs::write(&journal, cut).unwrap();
    for args in [&plan[..], &generate[..]] {
        let text = refused(&tablebase(args, ""), 1);
        assert!(text.contains("sogo-proof.journal: line 1, the last, has no newline"), "{args:?}: {text}");
    }
    assert_eq!(std::fs::read_to_string(&journal).unwrap(), cut);
    let contradiction = match cut.contains(" wins ") {
        true => cut.replacen(" wins ", " cannot-win ", 1),
        false => cut.replacen(" cannot-win ", " wins ", 1),
    };
    std::fs::write(&journal, format!("{cut}\n{contradiction}\n")).unwrap();
    for args in [&plan[..], &generate[..]] {
        let text = refused(&tablebase(args, ""), 1);
        assert!(text.contains("sogo-proof.journal: line 2 contradicts line 1"), "{args:?}: {text}");
    }
    // A mirror image is the same position (its rows read backwards): its record must agree too.
    let mirrored = |record: &str| -> String {
        let mut words: Vec<String> = record.split(' ').map(String::from).collect();
        let rows_reversed =
            |layer: &str| layer.split('/').map(|row| row.chars().rev().collect()).collect::<Vec<String>>();
        words[2] =
            words[2].split('|').map(|layer| rows_reversed(layer).join("/")).collect::<Vec<_>>().join("|");
        words.join(" ")
    };
    assert_ne!(mirrored(&contradiction), contradiction, "a position that is its own image");
    std::fs::write(&journal, format!("{cut}\n{}\n", mirrored(&contradiction))).unwrap();
    for args in [&plan[..], &generate[..]] {
        let text = refused(&tablebase(args, ""), 1);
        assert!(text.contains("sogo-proof.journal: line 2 contradicts line 1"), "{args:?}: {text}");
    }
    // Both sides winning one position: White's win and Black's of the same stones.
    let white_wins = checked_in.lines().find(|l| l.starts_with("white wins ")).unwrap();
    let black_wins = white_wins.replacen("white wins ", "black wins ", 1);
    std::fs::write(&journal, format!("{cut}\n{white_wins}\n{black_wins}\n")).unwrap();
    for args in [&plan[..], &generate[..]] {
        let text = refused(&tablebase(args, ""), 1);
        assert!(
            text.contains("sogo-proof.journal: line 3 says one side wins the position that line 2"),
            "{args:?}: {text}"
        );
    }
    assert!(!dir.join("sogo-ply00.set").exists(), "generate began before refusing its journal");
    let target = dir.join("elsewhere");
    std::fs::write(&target, "kept").unwrap();
    std::fs::remove_file(&journal).unwrap();
    std::os::unix::fs::symlink(&target, &journal).unwrap();
    let text = refused(&tablebase(&generate, ""), 1);
    assert!(text.contains("sogo-proof.journal") && text.contains("symbolic link"), "{text}");
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "kept");
}

/// Connect Four boards of 10 to 12 columns cannot be written as positions: refused before any
/// work by every command, not accepted by plan and generate and refused by probe.
#[test]
fn boards_wider_than_nine_columns_are_refused_up_front() {
    let dir = common::scratch("wide-boards");
    let d = dir.to_str().unwrap();
    for size in ["10x4", "12x4"] {
        for command in ["plan", "generate", "info", "probe"] {
            let mut args = vec![command, "connect4", "--size", size, "--dir", d];
            if command == "probe" {
                args.push("1");
            }
            let text = refused(&tablebase(&args, ""), 2);
            assert!(text.contains("at most 9 columns"), "{args:?}: {text}");
        }
    }
    assert_eq!(std::fs::read_dir(&*dir).unwrap().count(), 0, "nothing was built");
}

/// A `--dir` that is there but cannot be looked into, a file or a directory the user may not
/// read, is an error naming it and why, for every command: not a directory without tables,
/// where `probe` searched for 30 s what the book answers, `info` said to generate a book there
/// and `plan` that a build fits.
#[test]
fn a_table_directory_that_cannot_be_looked_into_is_named_as_such() {
    let dir = common::scratch("dir-not-looked-into");
    let plain = dir.join("plain-file");
    std::fs::write(&plain, b"").unwrap();
    let p = plain.to_str().unwrap();
    for args in [
        &["probe", "sogo", "--brief", "--dir", p, "a1b1a1b1a1b1"][..],
        &["info", "sogo", "--dir", p],
        &["info", "--dir", p],
        &["plan", "sogo", "--book-plies", "1", "--dir", p],
        &["generate", "sogo", "--book-plies", "1", "--threads", "1", "--dir", p],
        &["verify", "qubic", "--dir", p],
        &["verify", "--dir", p],
        &["play", "qubic", "--dir", p],
    ] {
        let text = refused(&tablebase(args, "quit\n"), 1);
        assert!(text.contains("plain-file: Not a directory"), "{args:?}: {text}");
    }
    // A directory of the book that the user may not read: as root, the test asks as nobody.
    use std::os::unix::fs::PermissionsExt;
    let closed = dir.join("closed");
    std::fs::create_dir(&closed).unwrap();
    std::fs::set_permissions(&closed, std::fs::Permissions::from_mode(0o000)).unwrap();
    std::fs::set_permissions(&*dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    let root = Command::new("id").arg("-u").output().unwrap().stdout == b"0\n";
    let as_user = |args: &[&str]| {
        let mut command = match root {
            true => {
                let mut c = Command::new("setpriv");
                c.args(["--reuid=nobody", "--regid=nogroup", "--clear-groups", BINARY]);
                c
            }
            false => Command::new(BINARY),
        };
        command.args(args).stdin(Stdio::null()).output().unwrap()
    };
    let c = closed.to_str().unwrap();
    for args in [&["probe", "qubic", "--brief", "--dir", c, ""][..], &["info", "qubic", "--dir", c]] {
        let text = refused(&as_user(args), 1);
        assert!(text.contains("closed: Permission denied"), "{args:?}: {text}");
    }
    std::fs::set_permissions(&closed, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// Another ply's table copied into a ply's place is that ply's fault alone: ply 0, which checks
/// the board's published total from every ply's header, does not add up the wrong table's
/// counts and call itself a mismatch.
#[test]
fn a_table_in_another_plys_place_is_blamed_on_that_ply_alone() {
    let dir = common::scratch("ply-in-another-place");
    connect4_4x4(&dir);
    let d = dir.to_str().unwrap();
    std::fs::copy(dir.join("connect4-4x4-ply05.tbl"), dir.join("connect4-4x4-ply09.tbl")).unwrap();
    let out = tablebase(&["verify", "connect4", "--size", "4x4", "--dir", d, "--quick", "--json"], "");
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let rows: Vec<serde_json::Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let row = |table: &str| rows.iter().find(|row| row["table"] == table).unwrap().clone();
    assert_eq!(row("ply 0")["reference"], "match", "{rows:?}");
    assert_eq!(row("ply 9")["status"], "damaged", "{rows:?}");
    assert!(!stderr(&out).contains("ply 0"), "{}", stderr(&out));
}

/// The cosmetics: a tiny `--max-time` is refused, not written out in 300 digits; a file in the
/// place of `--plot`'s directory is named as such; a journal line that is not text costs its
/// record only.
#[test]
fn tiny_times_plot_targets_and_journal_bytes_are_said_plainly() {
    let text =
        refused(&tablebase(&["probe", "connect4", "--size", "7x6", "--max-time", "1e-300", "1"], ""), 2);
    assert!(text.contains("at least 0.001") && text.len() < 200, "{text}");
    let dir = common::scratch("cosmetics");
    connect4_4x4(&dir);
    let d = dir.to_str().unwrap();
    let plain = dir.join("plain-file");
    std::fs::write(&plain, b"").unwrap();
    let text = refused(
        &tablebase(&["info", "connect4", "--size", "4x4", "--dir", d, "--plot", plain.to_str().unwrap()], ""),
        1,
    );
    assert!(text.contains("plain-file") && text.contains("Not a directory"), "{text}");
    let out = tablebase(&["verify", "connect4", "--size", "4x4", "--dir", d, "--resume"], "");
    assert!(out.status.success(), "{}", stderr(&out));
    let journal = dir.join("verify.journal");
    let mut bytes = std::fs::read(&journal).unwrap();
    let lines = bytes.iter().filter(|&&b| b == b'\n').count();
    assert_eq!(lines, 17, "a line per ply");
    bytes[3] = 0xff; // the first record is no longer text
    std::fs::write(&journal, &bytes).unwrap();
    let out = tablebase(&["verify", "connect4", "--size", "4x4", "--dir", d, "--resume"], "");
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("verify.journal: 1 line(s) not text"), "{}", stderr(&out));
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.matches("consistent (journal)").count(), 16, "one table checked again: {text}");
}

/// Rows of different boards say which board they are of, and text output keeps each game's
/// title with its lines on standard output.
#[test]
fn rows_of_different_boards_carry_their_settings() {
    let dir = common::scratch("settings-in-rows");
    let d = dir.to_str().unwrap();
    for size in ["4x4", "5x4"] {
        let out = tablebase(&["generate", "connect4", "--size", size, "--dir", d], "");
        assert!(out.status.success(), "{}", stderr(&out));
    }
    for args in [&["info", "--dir", d, "--json"][..], &["verify", "--dir", d, "--quick", "--json"]] {
        let out = tablebase(args, "");
        assert!(out.status.success(), "{}", stderr(&out));
        let text = String::from_utf8(out.stdout).unwrap();
        let sizes: Vec<String> = text
            .lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
            .filter(|row| row["table"] == "ply 0")
            .map(|row| row["settings"]["size"].as_str().unwrap().to_string())
            .collect();
        assert_eq!(sizes, ["5x4", "4x4"], "largest first: {args:?}: {text}");
    }
    let out = tablebase(&["verify", "--dir", d, "--quick"], "");
    assert!(out.status.success() && out.stderr.is_empty(), "{}", stderr(&out));
    let text = String::from_utf8(out.stdout).unwrap();
    let titles: Vec<&str> = text.lines().filter(|l| l.starts_with("Connect Four")).collect();
    assert_eq!(titles, ["Connect Four 5x4", "Connect Four 4x4"], "{text}");
}

/// `plan`'s first line is the line `generate` starts with.
#[test]
fn plan_says_what_generate_starts_with() {
    let dir = common::scratch("plan-first-line");
    let d = dir.to_str().unwrap();
    for game in [&["morris", "--stones", "3"][..], &["connect4", "--size", "4x4"]] {
        let plan = tablebase(&[&["plan"], game, &["--dir", d]].concat(), "");
        let plan = String::from_utf8(plan.stdout).unwrap();
        let out = tablebase(&[&["generate"], game, &["--dir", d]].concat(), "");
        let log = stderr(&out);
        assert_eq!(plan.lines().next(), log.lines().next(), "{game:?}: {plan}\n{log}");
        assert!(!log.contains(" 1 positions"), "{log}");
    }
}

/// Benchmarks that run for minutes say how far they got, and a missing file says where files
/// come from.
#[test]
fn long_benchmarks_show_progress_and_missing_files_get_a_hint() {
    let out = tablebase(
        &["bench", "connect4-book", "--size", "5x4", "--ply", "4", "--count", "3", "--runs", "1"],
        "",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("connect4 5x4 ply 4 run 0 search and confirm: started, 3 to do"),
        "{}",
        stderr(&out)
    );
    let text = refused(&tablebase(&["bench", "pair-code", "no-such.tbl"], ""), 1);
    assert!(text.contains("no-such.tbl: no such file") && text.contains("tablebase generate"), "{text}");
}

/// Text output: `info` says the longest distances as `verify` does, and `-` where there are
/// none; piped `play` shows each line it read after its prompt.
#[test]
fn text_output_says_none_apart_from_zero_and_play_shows_piped_moves() {
    let dir = common::scratch("text-words");
    connect4_4x4(&dir);
    let d = dir.to_str().unwrap();
    let info =
        String::from_utf8(tablebase(&["info", "connect4", "--size", "4x4", "--dir", d], "").stdout).unwrap();
    let verify = String::from_utf8(
        tablebase(&["verify", "connect4", "--size", "4x4", "--dir", d, "--quick"], "").stdout,
    )
    .unwrap();
    // Ply 0 of 4x4 is a draw: neither a win nor a loss, so no longest of either.
    for (text, what) in [(&info, "info"), (&verify, "verify")] {
        let row = text.lines().find(|l| l.starts_with("ply 0 ")).unwrap();
        assert!(row.contains("longest win   - loss   -"), "{what}: {row}");
        // Ply 16, the full board: no position is won, every loss is one at once (0 plies).
        let row = text.lines().find(|l| l.starts_with("ply 16 ")).unwrap();
        assert!(row.contains("loss   0") || row.contains("loss   -"), "{what}: {row}");
    }
    assert!(!info.contains("lwin"), "{info}");
    let out = tablebase(&["play", "connect4", "--size", "4x4", "--dir", d, "--seed", "1"], "2\nquit\n");
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("your move: 2\n") && text.contains("your move: quit\nGame abandoned.\n"), "{text}");
    assert!(!text.contains("your move: Game abandoned."), "{text}");
}

/// A build stopped before the last table it writes (ply 0 of an opening or a board, a Lasker
/// game's start sector) is that game's, half made: `verify` and `info` without a game name it and
/// the `generate` that goes on, instead of a smaller game (exit 0) or "no tables of any game".
#[test]
fn a_build_stopped_before_its_first_ply_is_found_without_a_game() {
    let base = common::scratch("stopped-before-ply-0");
    for (generate, last_written, resume) in [
        (vec!["tictactoe"], "tictactoe-ply0.tbl", "generate tictactoe"),
        (vec!["connect4", "--size", "4x4"], "connect4-4x4-ply00.tbl", "generate connect4 --size 4x4"),
        (
            vec!["connect4", "--size", "5x4", "--book-plies", "6"],
            "connect4-5x4-ply00.tbl",
            "generate connect4 --size 5x4 --book-plies 6",
        ),
        (vec!["morris", "--stones", "3"], "morris-opening3-ply00.tbl", "generate morris --stones 3"),
        (vec!["lasker", "--stones", "3"], "lasker-0-0-hands-3-3.tbl", "generate lasker --stones 3"),
    ] {
        let dir = base.join(generate.join("-"));
        let d = dir.to_str().unwrap();
        let args: Vec<&str> =
            ["generate"].into_iter().chain(generate.iter().copied()).chain(["--dir", d]).collect();
        assert!(tablebase(&args, "").status.success(), "{args:?}");
        // As a kill leaves it: the last table being written.
        std::fs::rename(dir.join(last_written), dir.join(format!("{last_written}.tmp"))).unwrap();
        let out = tablebase(&["verify", "--quick", "--dir", d], "");
        let text = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{generate:?}: {text}");
        let last = text.lines().last().unwrap_or_default();
        assert!(last.ends_with(&format!("run tablebase {resume} --dir {d}")), "{generate:?}: {text}");
        // info lists the game's tables, the one being written among them.
        let out = tablebase(&["info", "--dir", d], "");
        let listed = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success() && listed.contains("partial"), "{generate:?}: {listed}");
    }
    std::fs::remove_dir_all(&base).unwrap();
}

/// A Morris moving phase built beyond the stones of a game beside it (`--stones 4 --no-opening`
/// next to the 3-stone game) is listed and verified too, not hidden behind the smaller game.
#[test]
fn a_larger_moving_phase_beside_a_smaller_game_is_listed() {
    let dir = common::scratch("moving-phase-beside");
    let d = dir.to_str().unwrap();
    for args in [
        &["generate", "morris", "--stones", "3", "--dir", d][..],
        &["generate", "morris", "--stones", "4", "--no-opening", "--dir", d],
    ] {
        assert!(tablebase(args, "").status.success(), "{args:?}");
    }
    let out = tablebase(&["verify", "--quick", "--json", "--dir", d], "");
    assert!(out.status.success(), "{}", stderr(&out));
    let rows = String::from_utf8(out.stdout).unwrap();
    for table in ["3-3", "4-4", "placement ply 0"] {
        assert!(rows.contains(&format!(r#""table": "{table}""#)), "{table}: {rows}");
    }
    assert!(rows.contains(r#""settings": {"no-opening": true, "up-to": "4-4"}, "table": "4-4""#), "{rows}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Tables of one variant probed or verified as another (the default the user left out): the
/// message adds which variants are there and the settings that name them, on its one line; the
/// moving phase built alone is titled so.
#[test]
fn a_variant_asked_beside_another_on_disk_names_the_one_there() {
    let dir = common::scratch("other-variant");
    let d = dir.to_str().unwrap();
    assert!(tablebase(&["generate", "morris", "--stones", "3", "--dir", d], "").status.success());
    let hint = "; the directory holds Morris with 3 stones each (--stones 3))";
    let out = tablebase(&["probe", "morris", "--dir", d, "W: B: w 3 3"], "");
    let text = refused(&out, 1);
    assert!(
        text.contains("(run: tablebase generate morris --stones 9 --dir") && text.trim_end().ends_with(hint),
        "{text}"
    );
    let out = tablebase(&["probe", "morris", "--stones", "3", "--dir", d, "--brief", "W: B: w 3 3"], "");
    assert!(out.status.success(), "{}", stderr(&out));
    // A moving-phase position's class answers whatever the stones: no variant to suggest.
    let out = tablebase(&["probe", "morris", "--dir", d, "W:a1,d1,g1,a4 B:a7,d7,g7,b6 w"], "");
    let text = refused(&out, 1);
    assert!(text.contains("morris-4-4.tbl: table not generated") && !text.contains("holds"), "{text}");
    let out = tablebase(&["verify", "morris", "--quick", "--dir", d], "");
    assert_eq!(out.status.code(), Some(1));
    let last = stderr(&out).lines().last().unwrap().to_string();
    assert!(last.ends_with("; the directory holds Morris with 3 stones each (--stones 3)"), "{last}");
    // info lists the tables asked for, and notes the others on standard error.
    let out = tablebase(&["info", "morris", "--dir", d], "");
    assert!(
        out.status.success() && String::from_utf8_lossy(&out.stdout).contains("9-9 "),
        "{}",
        stderr(&out)
    );
    assert_eq!(
        stderr(&out),
        "tablebase: some of these tables are not generated; the directory holds Morris with 3 stones each (--stones 3)\n"
    );
    let out = tablebase(&["info", "morris", "--stones", "3", "--dir", d], "");
    assert!(out.status.success() && stderr(&out).is_empty(), "{}", stderr(&out));

    let alone = common::scratch("moving-phase-alone");
    let a = alone.to_str().unwrap();
    assert!(tablebase(&["generate", "morris", "--up-to", "3-4", "--dir", a], "").status.success());
    let out = tablebase(&["verify", "--quick", "--dir", a], "");
    assert!(out.status.success(), "{}", stderr(&out));
    let title = String::from_utf8(out.stdout).unwrap().lines().next().unwrap().to_string();
    assert_eq!(title, "Nine Men's Morris, moving phase up to 4-3");
}

/// `probe --brief -` of the Morris 3 tables in `d`: a position of class 3-3 answered (its
/// table mapped and read), then `change`, then another position of the class; what it wrote
/// after the first answer, and how it ended.
fn probe_around(d: &str, change: impl FnOnce()) -> (String, Output) {
    let mut probe = Command::new(BINARY)
        .args(["probe", "morris", "--stones", "3", "--brief", "--dir", d, "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut questions = probe.stdin.take().unwrap();
    let mut answers = BufReader::new(probe.stdout.take().unwrap());
    use std::io::Write as _;
    writeln!(questions, "W:a1,d1,g1 B:a7,d7,g7 w").unwrap();
    let mut first = String::new();
    answers.read_line(&mut first).unwrap();
    assert_eq!(first.trim_end(), "win\t3");
    change();
    writeln!(questions, "W:a1,d1,g1 B:a7,d7,f6 w").unwrap();
    drop(questions);
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut answers, &mut rest).unwrap();
    (rest, probe.wait_with_output().unwrap())
}

/// A table cut short by another program while `probe` has it mapped: the next read past its
/// new end raises SIGBUS, said in one line that names the file, exit 1, instead of "Bus error"
/// (exit 135) and nothing said.
#[test]
fn a_table_cut_short_under_a_running_probe_is_one_line_naming_it() {
    let dir = common::scratch("cut-short-under-probe");
    let d = dir.to_str().unwrap();
    assert!(tablebase(&["generate", "morris", "--stones", "3", "--dir", d], "").status.success());
    // As /proc/self/maps names it: the path with its links resolved.
    let table = dir.join("morris-3-3.tbl").canonicalize().unwrap();
    let (rest, out) = probe_around(d, || {
        std::fs::OpenOptions::new().write(true).open(&table).unwrap().set_len(0).unwrap();
    });
    let text = refused(&out, 1);
    assert!(text.starts_with(&format!("tablebase: {}: could not be read", table.display())), "{text}");
    assert!(text.contains("verify"), "{text}");
    assert_eq!(rest, "", "no answer from a table cut short");
}

/// The table files a probe reads stay open beside their maps, within a quarter of the limit on
/// open files: a low `ulimit -n` looks at the rest by name rather than running out.
#[test]
fn a_low_limit_on_open_files_still_probes_every_ply() {
    let dir = common::scratch("open-files-limit");
    let d = dir.to_str().unwrap();
    assert!(tablebase(&["generate", "tictactoe", "--dir", d], "").status.success());
    let args = ["probe", "tictactoe", "--dir", d, "--brief", "--line", ""];
    let free = tablebase(&args, "");
    assert!(free.status.success(), "{}", stderr(&free));
    let limited = under_shell("ulimit -n 16", &args);
    assert!(limited.status.success(), "{}", stderr(&limited));
    assert_eq!(String::from_utf8_lossy(&limited.stdout), String::from_utf8_lossy(&free.stdout));
    assert!(
        String::from_utf8_lossy(&free.stdout).starts_with("draw\t-\ta1 "),
        "{}",
        String::from_utf8_lossy(&free.stdout)
    );
}

#[test]
fn a_table_written_in_place_under_play_gives_no_move_or_hint() {
    let dir = common::scratch("changed-under-play");
    let d = dir.to_str().unwrap();
    assert!(tablebase(&["generate", "tictactoe", "--dir", d], "").status.success());
    let mut play = Command::new(BINARY)
        .args(["play", "tictactoe", "--dir", d])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut moves = play.stdin.take().unwrap();
    let mut shown = BufReader::new(play.stdout.take().unwrap());
    use std::io::{Read as _, Write as _};
    // Up to the second prompt: after the person's b2, the perfect player's reply.
    let mut prompts = 0;
    let mut before = Vec::new();
    writeln!(moves, "b2").unwrap();
    while prompts < 2 {
        let mut byte = [0u8];
        assert_eq!(shown.read(&mut byte).unwrap(), 1, "{}", String::from_utf8_lossy(&before));
        before.push(byte[0]);
        prompts = String::from_utf8_lossy(&before).matches("your move: ").count();
    }
    assert!(String::from_utf8_lossy(&before).contains("O plays "), "{}", String::from_utf8_lossy(&before));
    // Every table the same bytes again, in place: their times move, as under a rewrite.
    std::thread::sleep(Duration::from_millis(50));
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let bytes = std::fs::read(&path).unwrap();
        std::os::unix::fs::FileExt::write_all_at(
            &std::fs::OpenOptions::new().write(true).open(&path).unwrap(),
            &bytes,
            0,
        )
        .unwrap();
    }
    writeln!(moves, "hint").unwrap();
    drop(moves);
    let mut after = String::new();
    shown.read_to_string(&mut after).unwrap();
    let out = play.wait_with_output().unwrap();
    let text = refused(&out, 1);
    assert!(text.contains("changed while it was read"), "{text}");
    assert!(!after.contains("draw"), "no value shown from a table that changed: {after}");
}

#[test]
fn a_table_cut_within_a_page_or_written_in_place_under_a_running_probe_gives_no_answer() {
    // Neither raises SIGBUS: a cut within a page leaves the page mapped, its tail zeros, and a
    // write in place changes the bytes under blocks whose checksums were checked already.
    let dir = common::scratch("changed-under-probe");
    let d = dir.to_str().unwrap();
    assert!(tablebase(&["generate", "morris", "--stones", "3", "--dir", d], "").status.success());
    let table = dir.join("morris-3-3.tbl");
    let whole = std::fs::read(&table).unwrap();
    type Change = fn(&Path, &[u8]);
    let changes: [(&str, Change); 3] = [
        ("cut within its last page", |table, whole| {
            std::fs::OpenOptions::new()
                .write(true)
                .open(table)
                .unwrap()
                .set_len(whole.len() as u64 - 100)
                .unwrap();
        }),
        ("written in place, one byte", |table, whole| {
            use std::os::unix::fs::FileExt;
            let file = std::fs::OpenOptions::new().write(true).open(table).unwrap();
            file.write_all_at(&[whole[200] ^ 1], 200).unwrap();
        }),
        ("written whole again, the same bytes", |table, whole| {
            use std::os::unix::fs::FileExt;
            std::fs::OpenOptions::new().write(true).open(table).unwrap().write_all_at(whole, 0).unwrap();
        }),
    ];
    for (what, change) in changes {
        std::fs::write(&table, &whole).unwrap();
        let (rest, out) = probe_around(d, || {
            // Past the file system's clock tick, so that the change moves the file's time.
            std::thread::sleep(Duration::from_millis(50));
            change(&table, &whole);
        });
        let text = refused(&out, 1);
        let said = format!(
            "tablebase: {}: changed while it was read (cut short or written by another program)",
            table.display()
        );
        assert!(text.starts_with(&said), "{what}: {text}");
        assert_eq!(rest, "", "{what}: no answer once the table changed");
    }
    // Positions given as arguments are each checked after their reads; a table as it was
    // written answers, the same bytes written again included, once it is opened again.
    let out = tablebase(
        &["probe", "morris", "--stones", "3", "--brief", "--dir", d, "W:a1,d1,g1 B:a7,d7,g7 w"],
        "",
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), "win\t3\n", "{}", stderr(&out));
}

/// A line without end, typed to `play` or listed in `bench sogo-prove --file`, is refused
/// before it is held whole: `play` says the line is too long and asks again, and the bench
/// names the file and the line (exit 2), where before a line of 300 MB took 886 MB.
#[test]
fn endless_lines_to_play_and_to_sogo_prove_are_refused_unread() {
    let line = "a".repeat(1 << 20);
    let out = tablebase(&["play", "qubic", "--dir", "tables"], &format!("{line}\nquit\n"));
    assert!(out.status.success(), "{}", stderr(&out));
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(said.contains("That line is longer than 65536 bytes: not a move."), "{said}");
    assert!(said.trim_end().ends_with("Game abandoned."), "{said}");
    let dir = common::scratch("endless-line");
    let list = dir.join("positions.txt");
    std::fs::write(&list, format!("# a position, then no end\nb2c3\n{line}\n")).unwrap();
    let out = tablebase(&["bench", "sogo-prove", "--file", list.to_str().unwrap()], "");
    let text = refused(&out, 2);
    assert!(text.contains("positions.txt, line 3: longer than 65536 bytes: not a position"), "{text}");
}
