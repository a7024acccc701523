//! Moving-phase tables: exact counts against the reference, forward consistency, Gasser's
//! figures, crash-safe resumption and verification of damaged tables.

use crate::common;

use common::scratch;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::Duration;
use tablebase::catalogue::Storage;
use tablebase::games::morris::{Class, MovingPhase, SolvedClass};
use tablebase::games::morris::{MorrisVariant, Standard};
use tablebase::table::Check;
use tablebase::testing::morris::{morris_class_size, morris_class_wdl};
use tablebase::testing::{HEADER_SIZE, checksum};

fn tablebase(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tablebase")).args(args).output().expect("the binary runs")
}

fn class(text: &str) -> Class {
    Class::parse(text).unwrap()
}

/// The classes up to 5-5 (those of the 5-stone game, made and verified by the command line in
/// [`common::verified_five_stone_game`]: every value consistent with its successors, every
/// class's counts the reference's) hold the pinned bytes and what is known of them.
#[test]
fn classes_up_to_5_5_match_the_reference_and_their_successors() {
    let dir = common::verified_five_stone_game();
    let catalogue = MovingPhase::<Standard>::new(Some(class("5-5")));
    let needed = catalogue.classes();
    assert_eq!(needed.len(), 9);
    for &c in &needed {
        let solved = SolvedClass::open(&dir, &Standard::RULES, c, Check::Checksum).unwrap();
        let counts = solved.file.header().counts;
        assert_eq!(Some(counts.positions()), morris_class_size(c.mover, c.other), "{c}");
        assert_eq!(Some([counts.win, counts.loss, counts.draw]), morris_class_wdl(c.mover, c.other), "{c}");
    }
    // The library's verify of the same files: the classes' reports, their checksums and counts.
    let reports = common::verified(&catalogue, &dir, true);
    assert_eq!(reports.len(), 9);
    for report in &reports {
        assert!(report.checksum_ok, "{}", report.table);
        assert_eq!(report.reference_match, Some(true), "{}", report.table);
        assert!(report.problems.is_empty(), "{}: {:?}", report.table, report.problems);
    }
    let is_class = |name: &str| name.starts_with("morris-") && !name.starts_with("morris-opening");
    common::assert_pinned_files(&dir, "the classes up to 5-5", &is_class);

    // Gasser 1996: in 3-3 the longest loss is 26 plies and the side to move wins about 83%.
    let three = SolvedClass::open(&dir, &Standard::RULES, class("3-3"), Check::Header).unwrap();
    let counts = three.file.header().counts;
    assert_eq!(counts.max_loss, 26);
    let share = counts.win as f64 / counts.positions() as f64;
    assert!((0.825..0.835).contains(&share), "{share}");
    // Distances have the parity of their result everywhere.
    for c in &needed {
        let solved = SolvedClass::open(&dir, &Standard::RULES, *c, Check::Header).unwrap();
        let h = solved.file.header().counts;
        assert!(h.max_win == 0 || !h.max_win.is_multiple_of(2));
        assert!(h.max_loss.is_multiple_of(2));
    }
    fs::remove_dir_all(&dir).unwrap();
}

/// The library's generate runs a class and its mirror image as one job, in order of total
/// stones.
#[test]
fn a_class_and_its_mirror_image_are_one_job() {
    let dir = scratch("up-to-4-4");
    let catalogue = MovingPhase::<Standard>::new(Some(class("4-4")));
    let reports = tablebase::generate(&catalogue, &dir, &tablebase::GenerateOptions::default()).unwrap();
    let jobs: Vec<&str> = reports.iter().map(|r| r.job.as_str()).collect();
    assert_eq!(jobs, ["3-3", "3-4", "4-4"], "pairs by total stones");
    let files = table_bytes(&dir);
    let names: Vec<&str> = files.iter().map(|(name, _)| name.as_str()).collect();
    assert_eq!(names, ["morris-3-3.tbl", "morris-3-4.tbl", "morris-4-3.tbl", "morris-4-4.tbl"]);
    common::assert_pinned_files(&dir, "the classes up to 4-4", &|name| names.contains(&name));
}

fn table_bytes(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "tbl"))
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), fs::read(&p).unwrap()))
        .collect();
    files.sort();
    files
}

#[test]
fn killed_generation_resumes_to_identical_tables() {
    let reference = scratch("resume-reference");
    let interrupted = scratch("resume-interrupted");
    let args = |dir: &Path| {
        vec![
            "generate".to_string(),
            "morris".into(),
            "--no-opening".into(),
            "--up-to".into(),
            "4-4".into(),
            "--dir".into(),
            dir.to_string_lossy().into_owned(),
        ]
    };
    assert!(tablebase(&args(&reference).iter().map(String::as_str).collect::<Vec<_>>()).status.success());
    // A stale temporary file, as a crash in the middle of writing leaves it.
    fs::write(interrupted.join("morris-4-4.tbl.tmp"), b"half a table").unwrap();
    let info =
        tablebase(&["info", "morris", "--json", "--stones", "4", "--dir", interrupted.to_str().unwrap()]);
    assert!(
        String::from_utf8_lossy(&info.stdout)
            .contains(r#""table": "4-4", "index_size": 3225597, "positions": 3225597, "status": "partial""#)
    );
    for delay_ms in [150, 400, 700, 1000] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_tablebase"))
            .args(args(&interrupted))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(delay_ms));
        child.kill().unwrap(); // SIGKILL: no chance to clean up
        child.wait().unwrap();
        // Whatever is under a final name is complete and checks out.
        for (name, bytes) in table_bytes(&interrupted) {
            let header = tablebase::testing::Header::decode(&bytes, Path::new(&name)).unwrap();
            assert!(
                header.complete
                    && bytes.len() as u64 == header.file_length(tablebase::table::FileKind::Table),
                "{name}"
            );
            assert_eq!(checksum(common::data(&bytes)), header.checksum, "{name}");
        }
    }
    assert!(tablebase(&args(&interrupted).iter().map(String::as_str).collect::<Vec<_>>()).status.success());
    let expected = table_bytes(&reference);
    assert_eq!(expected.len(), 4);
    assert!(table_bytes(&interrupted) == expected, "resumed tables differ from an uninterrupted run");
    fs::remove_dir_all(&reference).unwrap();
    fs::remove_dir_all(&interrupted).unwrap();
}

#[test]
fn verify_reports_damage_with_exit_3_and_missing_tables_with_exit_1() {
    let dir = scratch("verify");
    // Raw: the test changes a value's byte in place.
    let catalogue = MovingPhase::<Standard>::new(Some(class("3-4")));
    tablebase::generate(
        &catalogue,
        &dir,
        &tablebase::GenerateOptions { storage: Storage::Raw, ..tablebase::GenerateOptions::default() },
    )
    .unwrap();
    let d = dir.to_str().unwrap();
    let ok = tablebase(&["verify", "morris", "--up-to", "3-4", "--json", "--dir", d]);
    assert_eq!(ok.status.code(), Some(0), "{}", String::from_utf8_lossy(&ok.stderr));
    let lines: Vec<serde_json::Value> =
        String::from_utf8(ok.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 3);
    for v in &lines {
        assert_eq!(v["checksum"], "ok");
        assert_eq!(v["consistent"], true);
        assert_eq!(v["reference"], "match");
        assert_eq!(v["published"], "match");
    }
    let three = lines.iter().find(|v| v["table"] == "3-3").unwrap();
    assert_eq!(
        (three["win"].as_u64(), three["loss"].as_u64(), three["draw"].as_u64()),
        (Some(140621), Some(28736), Some(269))
    );
    assert_eq!(three["max_loss"], 26);
    let quick = tablebase(&["verify", "morris", "--up-to", "3-4", "--json", "--quick", "--dir", d]);
    assert_eq!(quick.status.code(), Some(0));
    assert!(String::from_utf8(quick.stdout).unwrap().contains(r#""consistent": null"#));

    // A wrong value under a valid checksum: only recomputation finds it.
    let spec = class("3-3").spec(&dir, &Standard::RULES);
    let path = spec.path.clone();
    let pristine = fs::read(&path).unwrap();
    let mut bytes = pristine.clone();
    let victim = (0..169626).find(|&i| pristine[HEADER_SIZE + i] == 2).unwrap(); // a win in 1
    bytes[HEADER_SIZE + victim] = 4; // claim a win in 3
    common::reseal(&mut bytes);
    fs::write(&path, &bytes).unwrap();
    let bad = tablebase(&["verify", "morris", "--up-to", "3-3", "--dir", d]);
    assert_eq!(bad.status.code(), Some(3));
    let stderr = String::from_utf8_lossy(&bad.stderr);
    assert!(stderr.contains("morris 3-3: position W:") && stderr.contains("stored win 3"), "{stderr}");
    // Without recomputing, the checksum the project publishes for the file catches it.
    let quick = tablebase(&["verify", "morris", "--up-to", "3-3", "--quick", "--json", "--dir", d]);
    assert_eq!(quick.status.code(), Some(3));
    let report: serde_json::Value = serde_json::from_slice(&quick.stdout).unwrap();
    assert_eq!((&report["checksum"], &report["published"]), (&"ok".into(), &"mismatch".into()));
    assert!(String::from_utf8_lossy(&quick.stderr).contains("the project publishes"));

    // A flipped byte: the checksum catches it, even with --quick.
    let mut flipped = pristine.clone();
    flipped[HEADER_SIZE + 1000] ^= 0x10;
    fs::write(&path, &flipped).unwrap();
    let bad = tablebase(&["verify", "morris", "--up-to", "3-3", "--quick", "--json", "--dir", d]);
    assert_eq!(bad.status.code(), Some(3));
    assert!(String::from_utf8(bad.stdout).unwrap().contains(r#""checksum": "bad""#));

    // A truncated table is damaged; a missing one is a runtime error naming the file.
    fs::write(&path, &pristine[..pristine.len() - 7]).unwrap();
    let bad = tablebase(&["verify", "morris", "--up-to", "3-3", "--dir", d]);
    assert_eq!(bad.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("morris-3-3.tbl"));
    fs::remove_file(&path).unwrap();
    let missing = tablebase(&["verify", "morris", "--up-to", "3-3", "--dir", d]);
    assert_eq!(missing.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("morris-3-3.tbl: table not generated"));
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn up_to_builds_classes_only_and_checks_its_class() {
    let out = tablebase(&["generate", "morris", "--no-opening", "--up-to", "10-3"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("10-3"));
    // --no-opening is implied by --up-to, and saying both is no mistake.
    let dir = scratch("up-to-only");
    let d = dir.to_str().unwrap();
    let out = tablebase(&["generate", "morris", "--no-opening", "--up-to", "3-4", "--dir", d]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let mut files: Vec<String> =
        fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    files.sort();
    assert_eq!(files, [".generate.lock", "morris-3-3.tbl", "morris-3-4.tbl", "morris-4-3.tbl"]);
    fs::remove_dir_all(&dir).unwrap();
}

/// One generator per directory: a second run exits 1 with "already running" and the first
/// one's process id; after the first is killed with kill -9, its lock is gone with it and a
/// later run completes its tables.
#[test]
fn a_second_generate_on_the_same_directory_is_refused() {
    let dir = scratch("locked");
    let d = dir.to_str().unwrap();
    // Killed however the test ends: stopped, it would never end by itself.
    struct Killed(std::process::Child);
    impl Drop for Killed {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
    let mut first = Killed(
        std::process::Command::new(env!("CARGO_BIN_EXE_tablebase"))
            .args(["generate", "morris", "--up-to", "5-5", "--dir", d])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap(),
    );
    // Wait until the first run holds the lock (it writes its process id into the lock file),
    // then stop it there: it holds the lock, however busy the machine, until it is killed.
    let lock = dir.join(".generate.lock");
    let pid = first.0.id().to_string();
    let started = std::time::Instant::now();
    while fs::read_to_string(&lock).map_or(true, |s| s.trim() != pid) {
        assert!(started.elapsed().as_secs() < 30, "the first run never took the lock");
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    // SAFETY: a signal to the child this test started and has not waited for.
    assert_eq!(unsafe { libc::kill(first.0.id() as libc::pid_t, libc::SIGSTOP) }, 0);
    let second = tablebase(&["generate", "morris", "--up-to", "5-5", "--dir", d]);
    assert_eq!(second.status.code(), Some(1));
    let stderr = String::from_utf8(second.stderr).unwrap();
    assert!(stderr.contains("already running") && stderr.contains(&format!("process {pid}")), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    first.0.kill().unwrap(); // SIGKILL: the lock file stays, the lock does not
    first.0.wait().unwrap();
    assert!(lock.exists());
    // The next run is not kept out by the lock file left behind (a smaller one: the point is
    // the lock, not the tables).
    let rerun = tablebase(&["generate", "morris", "--up-to", "4-4", "--dir", d]);
    assert_eq!(rerun.status.code(), Some(0), "{}", String::from_utf8_lossy(&rerun.stderr));
    let classes = ["morris-3-3.tbl", "morris-3-4.tbl", "morris-4-3.tbl", "morris-4-4.tbl"];
    common::assert_pinned_files(&dir, "the classes up to 4-4", &|name| classes.contains(&name));
    fs::remove_dir_all(&dir).unwrap();
}

/// Unmounts a test's tmpfs however the test ends.
struct Mounted(PathBuf);

impl Drop for Mounted {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
    }
}

impl Mounted {
    /// A tmpfs of `megabytes` on `dir`; `None` (the test skipped) where mounting needs a root
    /// this process is not, which CI, running as root, must never meet.
    fn tmpfs(dir: &Path, megabytes: u32) -> Option<Mounted> {
        let size = format!("size={megabytes}m");
        let mounted = Command::new("mount").args(["-t", "tmpfs", "-o", &size, "tmpfs"]).arg(dir).status();
        if !mounted.is_ok_and(|s| s.success()) {
            assert!(std::env::var_os("CI").is_none(), "CI runs as root and must be able to mount a tmpfs");
            eprintln!("skipped: mounting a tmpfs needs root");
            return None;
        }
        Some(Mounted(dir.to_path_buf()))
    }
}

/// A disk too small from the start (a 3 MB tmpfs) is refused before any work; a disk that
/// fills up during the run (another program writes a ballast file) is exit 1 with a clear
/// message, the tables written before intact, no stray files; after space is freed a rerun
/// completes the same tables. Needs root to mount; CI runs as root, so there it must run.
#[test]
fn a_full_disk_is_a_clear_error_and_a_rerun_completes() {
    let dir = scratch("full-disk");
    let Some(guard) = Mounted::tmpfs(&dir, 3) else { return };
    let tables = dir.join("t");
    let t = tables.to_str().unwrap();
    let small = tablebase(&["generate", "morris", "--up-to", "4-4", "--dir", t]);
    assert_eq!(small.status.code(), Some(1));
    let stderr = String::from_utf8(small.stderr).unwrap();
    assert!(stderr.contains("morris does not fit this machine: it needs"), "{stderr}");
    assert_eq!(table_bytes(&tables).len(), 0, "nothing written");

    // Room for the tables up to 5-5 (62 MB), filled by another program during the run.
    let grown = Command::new("mount").args(["-o", "remount,size=80m"]).arg(&dir).status().unwrap();
    assert!(grown.success());
    let mut run = Command::new(env!("CARGO_BIN_EXE_tablebase"))
        .args(["generate", "morris", "--up-to", "5-5", "--dir", t])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    while !tables.join("morris-4-4.tbl").exists() {
        assert!(run.try_wait().unwrap().is_none(), "the run ended before 4-4");
        std::thread::sleep(Duration::from_millis(5));
    }
    let ballast = dir.join("ballast");
    {
        use std::io::Write;
        let mut file = fs::File::create(&ballast).unwrap();
        while file.write_all(&[1u8; 1 << 16]).is_ok() {}
    }
    let full = run.wait_with_output().unwrap();
    assert_eq!(full.status.code(), Some(1));
    let stderr = String::from_utf8(full.stderr).unwrap();
    assert!(stderr.contains("not enough disk space: the file needs"), "{stderr}");
    let mut left: Vec<String> =
        fs::read_dir(&tables).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    left.sort();
    assert!(left.iter().all(|name| !name.ends_with(".tmp")), "no stray files: {left:?}");
    assert!(left.contains(&"morris-4-4.tbl".to_string()));
    let verify = tablebase(&["verify", "morris", "--up-to", "5-5", "--quick", "--dir", t]);
    assert_eq!(
        verify.status.code(),
        Some(1),
        "only missing tables: {}",
        String::from_utf8_lossy(&verify.stderr)
    );

    fs::remove_file(&ballast).unwrap();
    let rerun = tablebase(&["generate", "morris", "--up-to", "5-5", "--dir", t]);
    assert_eq!(rerun.status.code(), Some(0), "{}", String::from_utf8_lossy(&rerun.stderr));
    common::assert_pinned(&tables, "morris-");
    drop(guard);
    fs::remove_dir_all(&dir).unwrap();
}

/// A layered game's tables are bounded by their index space until the forward pass counts
/// them: Connect Four 5x4's 6.45 MB bound does not fit a 4 MB disk, but its sets and tables do
/// (each set compressed once the next forward pass has read it), so the run goes ahead and
/// gives the pinned bytes; on a 1 MB disk, where the sets fit and the counted tables do not, it
/// stops with the clear error before the first table.
#[test]
fn a_bound_over_the_disk_is_left_to_the_forward_pass() {
    for (megabytes, fits) in [(4, true), (1, false)] {
        let dir = scratch(&format!("bound-{megabytes}"));
        let Some(guard) = Mounted::tmpfs(&dir, megabytes) else { return };
        let t = dir.join("t");
        let out = tablebase(&["generate", "connect4", "--size", "5x4", "--dir", t.to_str().unwrap()]);
        let stderr = String::from_utf8(out.stderr).unwrap();
        let tables = table_bytes(&t);
        if fits {
            assert_eq!(out.status.code(), Some(0), "{stderr}");
            assert!(stderr.contains("the bound exceeds the free disk"), "{stderr}");
            common::assert_pinned(&t, "connect4-5x4-");
        } else {
            assert_eq!(out.status.code(), Some(1), "{stderr}");
            assert!(stderr.contains("connect4 5x4 does not fit this machine"), "{stderr}");
            assert!(tables.is_empty(), "no table written: {tables:?}");
        }
        drop(guard);
        fs::remove_dir_all(&dir).unwrap();
    }
}

/// A file that holds another table than its name says (3-4's bytes under 4-3's name) is
/// damaged for info, probe and verify alike, never read as the class it is not.
#[test]
fn a_swapped_file_is_not_the_table_it_claims_to_be() {
    let dir = scratch("swapped");
    let d = dir.to_str().unwrap();
    assert!(tablebase(&["generate", "morris", "--up-to", "3-4", "--dir", d]).status.success());
    fs::copy(dir.join("morris-3-4.tbl"), dir.join("morris-4-3.tbl")).unwrap();
    let info = tablebase(&["info", "morris", "--json", "--dir", d]);
    let four_three = String::from_utf8(info.stdout)
        .unwrap()
        .lines()
        .find(|l| l.contains(r#""table": "4-3""#))
        .unwrap()
        .to_string();
    assert!(four_three.contains(r#""status": "damaged""#), "{four_three}");
    let probe = tablebase(&["probe", "morris", "--dir", d, "W:a1,d1,g1,a4 B:a7,d7,g7 w"]);
    assert_eq!(probe.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&probe.stderr).contains("holds table morris 3-4"),
        "{}",
        String::from_utf8_lossy(&probe.stderr)
    );
    let verify = tablebase(&["verify", "morris", "--up-to", "3-4", "--quick", "--dir", d]);
    assert_eq!(verify.status.code(), Some(3));
    fs::remove_dir_all(&dir).unwrap();
}

/// Asks the run to stop once it has reported `after` pieces of work, counting them in `seen`
/// (with `from`, only those of that task and the tasks after it).
struct StopAfter {
    after: u64,
    seen: Arc<AtomicU64>,
    from: Option<&'static str>,
    counting: std::sync::atomic::AtomicBool,
}

impl StopAfter {
    fn progress(after: u64) -> (tablebase::Progress, Arc<AtomicU64>) {
        StopAfter::progress_from(after, None)
    }

    fn progress_from(after: u64, from: Option<&'static str>) -> (tablebase::Progress, Arc<AtomicU64>) {
        let seen = Arc::new(AtomicU64::new(0));
        let counting = from.is_none().into();
        (tablebase::Progress::to(StopAfter { after, seen: seen.clone(), from, counting }), seen)
    }
}

impl tablebase::Report for StopAfter {
    fn task(&self, task: &str) {
        if Some(task) == self.from {
            self.counting.store(true, Relaxed);
        }
    }
    fn phase(&self, _: &str, _: u64, _: bool) {}
    fn advance(&self, _: u64) {
        if self.counting.load(Relaxed) {
            self.seen.fetch_add(1, Relaxed);
        }
    }
    fn finish(&self) {}
    fn message(&self, _: &str) {}
    fn stop_requested(&self) -> bool {
        self.seen.load(Relaxed) >= self.after
    }
}

/// A run asked to stop (a Python caller's Ctrl-C) ends with "stopped on request" wherever it is,
/// in a Morris pair's solver, in a Connect Four layer, or between jobs, and leaves files that a
/// plain run goes on from to the same bytes as a run never stopped.
#[test]
fn a_run_asked_to_stop_ends_and_the_next_run_completes_it() {
    use tablebase::games::connect4::{Connect4, Geometry};
    let plain = tablebase::GenerateOptions::default();
    let morris = MovingPhase::<Standard>::new(Some(class("4-4")));
    let connect4 = Connect4::tables(Geometry::new(5, 4).unwrap());
    let check = |name: &str, generate: &dyn Fn(&Path, &tablebase::GenerateOptions) -> Result<(), String>| {
        let reference = scratch(&format!("stop-{name}-reference"));
        let (progress, seen) = StopAfter::progress(u64::MAX);
        generate(&reference, &tablebase::GenerateOptions { progress: &progress, ..Default::default() })
            .unwrap();
        let pieces = seen.load(Relaxed);
        assert!(pieces >= 9, "{name}: {pieces} pieces of work reported");
        for after in [0, 1, pieces / 3, pieces * 2 / 3] {
            let dir = scratch(&format!("stop-{name}-{after}"));
            let (progress, _) = StopAfter::progress(after);
            let error =
                generate(&dir, &tablebase::GenerateOptions { progress: &progress, ..Default::default() })
                    .expect_err(&format!("{name} {after} of {pieces}"));
            assert!(error.ends_with(": stopped on request"), "{name} {after}: {error}");
            assert!(table_bytes(&dir) != table_bytes(&reference), "{name} {after}: stopped before the end");
            generate(&dir, &plain).unwrap();
            assert!(table_bytes(&dir) == table_bytes(&reference), "{name} {after}: resumed tables differ");
            fs::remove_dir_all(&dir).unwrap();
        }
        fs::remove_dir_all(&reference).unwrap();
    };
    check("morris", &|dir, options| {
        tablebase::generate(&morris, dir, options).map(drop).map_err(|e| e.to_string())
    });
    check("connect4", &|dir, options| {
        tablebase::generate(&connect4, dir, options).map(drop).map_err(|e| e.to_string())
    });

    // A book's last ply, searched position by position in checkpointed chunks: stopped half-way,
    // the chunks written stay for the next run, as after a kill.
    let book = Connect4::book(Geometry::new(5, 4).unwrap(), 6);
    let reference = scratch("stop-book-reference");
    tablebase::generate(&book, &reference, &plain).unwrap();
    let (progress, seen) = StopAfter::progress_from(u64::MAX, Some("connect4 5x4 ply 6"));
    let dir = scratch("stop-book");
    tablebase::generate(
        &book,
        &dir,
        &tablebase::GenerateOptions { progress: &progress, ..Default::default() },
    )
    .unwrap();
    let entries = seen.load(Relaxed);
    assert!(entries > 1000, "{entries} positions searched at ply 6");
    fs::remove_dir_all(&dir).unwrap();
    // On two threads, three quarters of the entries done leave at least one chunk complete
    // (at most one partial chunk a thread, of fewer than 512 entries).
    let (progress, _) = StopAfter::progress_from(entries * 3 / 4, Some("connect4 5x4 ply 6"));
    let two_threads = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    let options = tablebase::GenerateOptions { progress: &progress, ..Default::default() };
    let error = two_threads.install(|| tablebase::generate(&book, &dir, &options)).unwrap_err();
    assert!(error.to_string().ends_with(": stopped on request"), "{error}");
    let kept = fs::read(dir.join("connect4-5x4-ply06.tbl.tmp.chunks")).expect("the checkpoints are kept");
    assert!(kept.len() > 64, "{} bytes of checkpoints", kept.len());
    assert!(dir.join("connect4-5x4-ply06.tbl.tmp").exists());
    tablebase::generate(&book, &dir, &plain).unwrap();
    assert!(table_bytes(&dir) == table_bytes(&reference), "the resumed book differs");
    assert!(!dir.join("connect4-5x4-ply06.tbl.tmp.chunks").exists());
    fs::remove_dir_all(&dir).unwrap();
    fs::remove_dir_all(&reference).unwrap();
}
