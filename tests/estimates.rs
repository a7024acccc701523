//! What `plan` and README.md say a run costs, against runs measured: the table of
//! docs/BENCHMARKS.md ("Estimates against measured runs"), and a run this test times itself.
//!
//! Only `plan_estimates_the_cpu_of_a_run_it_times_itself` starts a child process: it reads that
//! child's own CPU from `wait4`, which no other test's children add to.

use crate::common;

use std::path::Path;
use std::process::{Command, Stdio};
use tablebase::catalogue::{Catalogue, Estimate, Storage, estimate};
use tablebase::games::connect4::{Connect4, Geometry};
use tablebase::games::morris::{Class, Morabaraba, Standard, morris_tables};

const BINARY: &str = env!("CARGO_BIN_EXE_tablebase");

/// How far an estimate or a figure of README.md may be from the measured run, either way.
const FACTOR: f64 = 1.5;

const GB: f64 = 1e9;

/// A row of docs/BENCHMARKS.md's table of measured runs.
#[derive(Debug)]
struct Measured {
    game: String,
    flags: String,
    cpu_seconds: f64,
    /// `None` where the run's memory was not measured apart from the files it mapped.
    memory_gb: Option<f64>,
    plan_cpu_seconds: f64,
    plan_memory_gb: f64,
}

/// The rows of the table that follows the `<!-- estimates: ... -->` line.
fn measured_runs() -> Vec<Measured> {
    let text =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/BENCHMARKS.md")).unwrap();
    let start = text.find("<!-- estimates:").expect("the table of measured runs");
    let number =
        |cell: &str| cell.replace(',', "").parse::<f64>().unwrap_or_else(|_| panic!("a number: {cell:?}"));
    text[start..]
        .lines()
        .skip(3) // the comment, the header and its rule
        .take_while(|line| line.starts_with('|'))
        .map(|line| {
            let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
            Measured {
                game: cells[0].to_string(),
                flags: cells[1].to_string(),
                cpu_seconds: number(cells[2]),
                memory_gb: (cells[3] != "-").then(|| number(cells[3])),
                plan_cpu_seconds: number(cells[4]),
                plan_memory_gb: number(cells[5]),
            }
        })
        .collect()
}

/// What `plan GAME FLAGS` says for an empty directory, from the library.
fn plan_of(game: &str, flags: &str, empty: &Path) -> Estimate {
    let words: Vec<&str> = flags.split_whitespace().collect();
    let value = |flag: &str| words.iter().position(|w| *w == flag).map(|k| words[k + 1]);
    let pair = |text: &str, sep: char| {
        let (a, b) = text.split_once(sep).unwrap();
        (a.parse::<u32>().unwrap(), b.parse::<u32>().unwrap())
    };
    match game {
        "morris" | "morabaraba" => {
            let up_to = value("--up-to").map(|text| {
                let (mover, other) = pair(text, '-');
                Class { mover, other }
            });
            match game {
                "morris" => of(&morris_tables::<Standard>(9, up_to, true), empty),
                _ => of(&morris_tables::<Morabaraba>(12, up_to, true), empty),
            }
        }
        "connect4" => {
            let (width, height) = pair(value("--size").unwrap(), 'x');
            of(&Connect4::tables(Geometry::new(width, height).unwrap()), empty)
        }
        other => panic!("no plan for {other} in this test"),
    }
}

fn of<C: Catalogue>(catalogue: &C, empty: &Path) -> Estimate {
    estimate(catalogue, empty, Storage::Compressed)
}

fn within(estimate: f64, measured: f64) -> bool {
    estimate <= measured * FACTOR && measured <= estimate * FACTOR
}

/// `plan` from an empty directory, for each run measured: its CPU and memory within 1.5 times
/// of the run's, and as the table gives them (so that the table is of this program's plan).
#[test]
fn plan_is_within_half_again_of_every_measured_run() {
    let empty = common::scratch("estimates-empty");
    let rows = measured_runs();
    assert_eq!(rows.len(), 6, "{rows:?}");
    let mut stale = Vec::new();
    for row in &rows {
        let plan = plan_of(&row.game, &row.flags, &empty);
        let name = format!("{} {}", row.game, row.flags);
        let cpu = plan.cpu_seconds.unwrap_or_else(|| panic!("{name}: CPU estimated"));
        let memory = plan.memory as f64 / GB;
        assert!(
            within(cpu, row.cpu_seconds),
            "{name}: plan {cpu:.1} s against {} s measured",
            row.cpu_seconds
        );
        if let Some(measured) = row.memory_gb {
            assert!(within(memory, measured), "{name}: plan {memory:.2} GB against {measured} GB measured");
        }
        // The table's plan columns are this plan's, to their last digit.
        let tolerance = if row.plan_cpu_seconds < 100.0 { 0.05 } else { 0.5 };
        if (cpu - row.plan_cpu_seconds).abs() > tolerance || (memory - row.plan_memory_gb).abs() > 0.0005 {
            stale.push(format!(
                "{name}: plan {cpu:.1} s, {memory:.3} GB; the table {} s, {} GB",
                row.plan_cpu_seconds, row.plan_memory_gb
            ));
        }
    }
    assert!(stale.is_empty(), "docs/BENCHMARKS.md's table is not this plan's: {stale:#?}");
}

/// A book's searched ply has measured rates on 7x6 only: on another board its search is
/// orders of magnitude shorter (6x5's ply 8 takes some 30 s, where 7x6's rate said 6.5 hours),
/// so the plan says "not estimated" rather than borrow 7x6's; 7x6 keeps its estimate.
#[test]
fn a_books_searched_ply_is_estimated_on_the_board_measured_only() {
    let empty = common::scratch("estimates-book");
    let book = |width, height| of(&Connect4::book(Geometry::new(width, height).unwrap(), 8), &empty);
    assert_eq!(book(6, 5).cpu_seconds, None);
    assert_eq!(book(5, 4).cpu_seconds, None);
    assert!(book(7, 6).cpu_seconds.is_some_and(|cpu| cpu > 3_600.0));
}

/// README.md with its whitespace folded, so that a phrase broken across lines is found.
fn readme() -> String {
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The number that follows the first `anchor` of `text` after `from`.
fn number_after(text: &str, from: &str, anchor: &str) -> f64 {
    let start = text.find(from).unwrap_or_else(|| panic!("README.md: {from:?}")) + from.len();
    let at =
        start + text[start..].find(anchor).unwrap_or_else(|| panic!("README.md: {anchor:?} after {from:?}"));
    let digits: String =
        text[at + anchor.len()..].chars().take_while(|c| c.is_ascii_digit() || *c == '.').collect();
    digits.parse().unwrap_or_else(|_| panic!("README.md: a number after {anchor:?}: {digits:?}"))
}

/// README's figures of time and memory, each within 1.5 times of the run measured.
#[test]
fn readme_figures_are_within_half_again_of_the_measured_runs() {
    let text = readme();
    let rows = measured_runs();
    let run = |game: &str, flags: &str| {
        rows.iter()
            .find(|r| r.game == game && r.flags == flags)
            .unwrap_or_else(|| panic!("{game} {flags} measured"))
    };
    let hours = 3600.0;
    let from = "`generate morris` without flags builds the whole game";
    let moving = number_after(&text, from, "8.9 GB with `--raw`; about ");
    let moving_cpu = number_after(&text, from, "minutes on 2 cores, ");
    let memory = number_after(&text, from, "CPU-hours, and about ");
    let opening = number_after(&text, from, "5.7 GB raw: about ");
    let opening_cpu = number_after(&text, from, "minutes more, ");
    let morris = run("morris", "");
    for (claim, seconds) in [
        ("minutes on 2 cores", (moving + opening) * 60.0 * 2.0),
        ("CPU-hours", (moving_cpu + opening_cpu) * hours),
    ] {
        assert!(
            within(seconds, morris.cpu_seconds),
            "README's Morris, {claim}: {seconds} s against {}",
            morris.cpu_seconds
        );
    }
    assert!(within(memory, morris.memory_gb.unwrap()), "README's Morris memory: {memory} GB");
    let c66 = number_after(&text, "6x6, 69 billion positions, in about ", "");
    assert!(within(c66 * hours, run("connect4", "--size 6x6").cpu_seconds), "README's 6x6: {c66} CPU-hours");
    let c75 = number_after(&text, "7x5, 113 billion, in about ", "");
    assert!(within(c75 * hours, run("connect4", "--size 7x5").cpu_seconds), "README's 7x5: {c75} CPU-hours");
    let c65 = number_after(&text, "6x5 and 7x4 in about ", "");
    assert!(
        within(c65 * 60.0 * 2.0, run("connect4", "--size 6x5").cpu_seconds),
        "README's 6x5: {c65} minutes on 2 cores"
    );
    let c66_wall = number_after(&text, "6x5 and 7x4 in about 3 minutes each, 6x6 in about ", "");
    let c75_wall = number_after(&text, "6x6 in about 2 hours and 7x5 in about ", "");
    for (board, wall_hours) in [("--size 6x6", c66_wall), ("--size 7x5", c75_wall)] {
        let cpu = wall_hours * hours * 2.0;
        assert!(
            within(cpu, run("connect4", board).cpu_seconds),
            "README's {board}: {wall_hours} hours on two cores"
        );
    }
    let mora = number_after(&text, "White wins in 49 plies; docs/RESULTS.md), in ", "");
    assert!(within(mora * hours, run("morabaraba", "").cpu_seconds), "README's Morabaraba: {mora} CPU-hours");
    assert!(text.contains("its games with 3 to 8 stones a side are solved"), "Lasker's K = 8 is solved");
}

/// Runs `command` to its end: whether it succeeded, its standard error, and the CPU it used,
/// user and system. Its own, from `wait4`: the children of this process as a whole would count
/// those of other tests too, which run as threads of the same process under `cargo test`.
fn run_timed(command: &mut Command) -> (bool, String, f64) {
    use std::io::Read;
    #[allow(clippy::zombie_processes, reason = "reaped by wait4 below, which also gives its usage")]
    let mut child = command.stdout(Stdio::null()).stderr(Stdio::piped()).spawn().unwrap();
    let mut errors = String::new();
    child.stderr.take().unwrap().read_to_string(&mut errors).unwrap();
    let pid = child.id() as libc::pid_t;
    let (mut status, mut usage): (i32, libc::rusage) = (0, unsafe { std::mem::zeroed() });
    // SAFETY: `pid` is our child, not yet waited for; `status` and `usage` are valid to fill.
    assert_eq!(unsafe { libc::wait4(pid, &mut status, 0, &mut usage) }, pid);
    let seconds = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    let succeeded = libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0;
    (succeeded, errors, seconds(usage.ru_utime) + seconds(usage.ru_stime))
}

/// The CPU every process of the machine has used so far, in seconds (/proc/stat's first line:
/// user, nice, system, irq, softirq and steal time); `None` where it cannot be read.
fn machine_cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    let fields: Vec<f64> =
        stat.lines().next()?.split_whitespace().skip(1).map(|f| f.parse().ok()).collect::<Option<_>>()?;
    // SAFETY: sysconf only reads a configuration value.
    let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as f64;
    let busy = [0, 1, 2, 5, 6, 7].iter().map(|&k| fields.get(k).copied().unwrap_or(0.0)).sum::<f64>();
    Some(busy / ticks)
}

/// `plan`'s CPU for the standard classes up to 5-5 (six pairs, flying and not, about 8 CPU-s
/// alone) against a run of them this test times: within 1.5 times. CPU time, not wall time, so
/// that tests beside it on other cores do not count; on one thread, whose CPU is the work's
/// (two threads add little on an idle machine, and a waiting thread spins on a busy one). On a
/// machine shared with other heavy work a position costs about twice as much CPU (caches and
/// memory bandwidth shared: docs/BENCHMARKS.md): where other processes used more than a tenth
/// of the run's CPU while it ran, the comparison is not made and the test says so on standard
/// error (`cargo test -- --nocapture` shows it) rather than pass or fail on a figure that
/// measures the neighbours.
#[test]
#[ignore = "the machine, not the rates: plan says 8.9 CPU-seconds (the rates' machine took 7.8); it passed three times \
            in three on the AMD EPYC of 2026-12-02 (9.4 to 10.2), but the Intel Xeon of the same morning took 2.2 \
            times plan's CPU on every workload, and a timing of the solvers' work to scale by varies by half \
            from run to run (docs/BENCHMARKS.md, \"Estimates on this machine\"); run with --ignored on a machine \
            of the rates' pace"]
fn plan_estimates_the_cpu_of_a_run_it_times_itself() {
    let dir = common::scratch("estimates-run");
    let tables = morris_tables::<Standard>(9, Some(Class { mover: 5, other: 5 }), true);
    let planned = estimate(&tables, &dir, Storage::Compressed);
    assert_eq!((planned.jobs, planned.of), (6, 6));
    let planned = planned.cpu_seconds.expect("the classes have a measured rate");
    let machine_before = machine_cpu_seconds();
    let (succeeded, errors, used) = run_timed(
        Command::new(BINARY)
            .args(["generate", "morris", "--up-to", "5-5", "--threads", "1", "--dir"])
            .arg(&*dir),
    );
    assert!(succeeded, "{errors}");
    if let Some(others) =
        machine_cpu_seconds().zip(machine_before).map(|(after, before)| after - before - used)
        && others > 0.1 * used
    {
        eprintln!(
            "plan_estimates_the_cpu_of_a_run_it_times_itself: not compared: other processes used {others:.1} \
             CPU-seconds during the run's {used:.1} (plan said {planned:.1})"
        );
        return;
    }
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let load = load.split_whitespace().next().unwrap_or("unknown");
    assert!(
        within(planned, used),
        "plan said {planned:.1} CPU-seconds, the run took {used:.1} (more than {FACTOR} times apart), with a load \
         average of {load}: on a busy machine a position costs about twice its CPU (docs/BENCHMARKS.md, \
         \"Estimates against measured runs\")"
    );
}
