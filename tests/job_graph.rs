//! The job graph for schedulers outside the program: `plan --json` and `generate --only`
//! (docs/CLI.md, "plan" and "generate"). The workflow around them, on Snakemake and Slurm, is
//! tests/workflow/check.sh.

use crate::common;

use serde_json::Value as Json;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn tablebase(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tablebase")).args(args).output().expect("the binary runs")
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn plan(game: &[&str], dir: &Path) -> Json {
    let mut args = vec!["plan"];
    args.extend(game);
    args.extend(["--json", "--dir", dir.to_str().unwrap()]);
    let output = tablebase(&args);
    assert!(output.status.success(), "plan {game:?}: {}", stderr(&output));
    serde_json::from_slice(&output.stdout).expect("one JSON object")
}

fn strings(value: &Json) -> Vec<String> {
    value.as_array().unwrap().iter().map(|v| v.as_str().unwrap().to_string()).collect()
}

fn ids(plan: &Json) -> Vec<String> {
    plan["jobs"].as_array().unwrap().iter().map(|job| job["id"].as_str().unwrap().to_string()).collect()
}

/// The table files of `dir` (not its lock files) with their bytes.
fn files(dir: &Path) -> HashMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file() && !p.file_name().unwrap().to_string_lossy().starts_with('.'))
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read(&p).unwrap()))
        .collect()
}

fn generate(game: &[&str], dir: &Path, only: Option<&str>) -> Output {
    let mut args = vec!["generate"];
    args.extend(game);
    args.extend(["--dir", dir.to_str().unwrap()]);
    if let Some(id) = only {
        args.extend(["--only", id]);
    }
    tablebase(&args)
}

/// Every game's graph is a well-formed DAG over its files: ids unique, each file written by one
/// job, every file read written by a job listed before the reader and named in its `after`, and
/// the figures present.
#[test]
fn every_graph_is_closed_and_in_order() {
    let dir = common::scratch("job-graph-shapes");
    let games: [&[&str]; 7] = [
        &["morris", "--stones", "5"],
        &["morris", "--up-to", "5-5"],
        &["morabaraba", "--stones", "3"],
        &["lasker", "--stones", "4"],
        &["connect4", "--size", "5x4"],
        &["tictactoe"],
        &["qubic", "--book-plies", "2"],
    ];
    for game in games {
        let plan = plan(game, &dir);
        assert_eq!(plan["game"], game[0]);
        let mut writer: HashMap<String, String> = HashMap::new();
        let mut seen = HashSet::new();
        for job in plan["jobs"].as_array().unwrap() {
            let id = job["id"].as_str().unwrap().to_string();
            assert!(!id.contains(char::is_whitespace) && !id.is_empty(), "{game:?}: id {id:?}");
            assert!(seen.insert(id.clone()), "{game:?}: id {id} twice");
            let after_list = strings(&job["after"]);
            let after: HashSet<String> = after_list.iter().cloned().collect();
            assert_eq!(after.len(), after_list.len(), "{game:?} {id}: a job twice in after: {after_list:?}");
            for read in strings(&job["reads"]) {
                let by = writer
                    .get(&read)
                    .unwrap_or_else(|| panic!("{game:?} {id}: reads {read}, which no job before writes"));
                assert!(after.contains(by), "{game:?} {id}: reads {read} from {by}, not in its after");
            }
            assert!(after.iter().all(|a| seen.contains(a)), "{game:?} {id}: after a later job");
            let writes = strings(&job["writes"]);
            assert!(!writes.is_empty(), "{game:?} {id} writes nothing");
            for file in writes {
                assert!(
                    !file.starts_with('/') && !file.contains(".."),
                    "{game:?}: {file} not relative to --dir"
                );
                assert!(writer.insert(file.clone(), id.clone()).is_none(), "{game:?}: {file} written twice");
            }
            assert!(job["threads"].as_u64().unwrap() >= 1);
            assert!(job["disk_bytes"].as_u64().unwrap() > 0, "{game:?} {id}");
            assert!(job["memory_bytes"].is_u64());
            assert!(job["cpu_seconds"].is_u64() || job["cpu_seconds"].is_null());
        }
    }
}

/// The graph lists the tables `info` lists: each table and set file of the game, once.
#[test]
fn the_graph_writes_every_table_of_the_game() {
    let dir = common::scratch("job-graph-tables");
    let plan = plan(&["morris", "--stones", "4"], &dir);
    let written: HashSet<String> =
        plan["jobs"].as_array().unwrap().iter().flat_map(|job| strings(&job["writes"])).collect();
    // Classes 3-3 to 4-4, then 8 placement plies with a set and a table each.
    assert_eq!(written.len(), 4 + 8 * 2);
    for class in ["3-3", "3-4", "4-3", "4-4"] {
        assert!(written.contains(&format!("morris-{class}.tbl")), "{class}");
    }
    let last = plan["jobs"].as_array().unwrap().iter().find(|j| j["id"] == "placement-ply-7").unwrap();
    let reads = strings(&last["reads"]);
    for class in ["3-3", "3-4", "4-3", "4-4"] {
        assert!(reads.contains(&format!("morris-{class}.tbl")), "the last placement leads into {class}");
    }
}

/// Jobs run one at a time with `--only`, in the plan's order, give the bytes of one plain
/// `generate`; run again, each does nothing.
#[test]
fn only_each_job_in_order_gives_the_bytes_of_generate() {
    for game in [&["connect4", "--size", "4x4"][..], &["morris", "--stones", "3"][..]] {
        let name = game.join("-").replace("--", "");
        let (plain, jobs) =
            (common::scratch(&format!("only-plain-{name}")), common::scratch(&format!("only-jobs-{name}")));
        assert!(generate(game, &plain, None).status.success());
        let order = ids(&plan(game, &jobs));
        for id in &order {
            let output = generate(game, &jobs, Some(id));
            assert!(output.status.success(), "{game:?} --only {id}: {}", stderr(&output));
        }
        let (expected, found) = (files(&plain), files(&jobs));
        assert_eq!(found.keys().collect::<HashSet<_>>(), expected.keys().collect::<HashSet<_>>(), "{game:?}");
        for (name, bytes) in &expected {
            assert!(found[name] == *bytes, "{game:?}: {name} differs from a plain generate");
        }
        for id in &order {
            let output = generate(game, &jobs, Some(id));
            assert!(output.status.success());
            assert!(
                stderr(&output).contains("complete, skipped"),
                "{game:?} --only {id} again: {}",
                stderr(&output)
            );
        }
    }
}

/// With `--only`, as in one process, a layer's set is compressed once the next layer's forward
/// pass has read it, not kept raw until the solve comes back to it (raw all together, the sets
/// of Connect Four 6x6 would take 85 GB): after the forward passes alone, every set but the
/// last has the bytes a plain `generate` ends with.
#[test]
fn only_compresses_a_set_once_the_next_forward_pass_has_read_it() {
    let game = ["connect4", "--size", "5x4"];
    let (plain, raw, jobs) = (
        common::scratch("only-sets-plain"),
        common::scratch("only-sets-raw"),
        common::scratch("only-sets-jobs"),
    );
    assert!(generate(&game, &plain, None).status.success());
    let mut raw_game = game.to_vec();
    raw_game.push("--raw");
    assert!(generate(&raw_game, &raw, None).status.success());
    let forward: Vec<String> =
        ids(&plan(&game, &jobs)).into_iter().filter(|id| id.ends_with("-reachable-set")).collect();
    assert_eq!(forward.len(), 21);
    for id in &forward {
        let output = generate(&game, &jobs, Some(id));
        assert!(output.status.success(), "--only {id}: {}", stderr(&output));
    }
    let (expected, unpacked, found) = (files(&plain), files(&raw), files(&jobs));
    let mut compressed = 0;
    for ply in 0..20 {
        let name = format!("connect4-5x4-ply{ply:02}.set");
        assert!(found[&name] == expected[&name], "{name}: not as a plain generate leaves it");
        compressed += usize::from(expected[&name].len() < unpacked[&name].len());
    }
    assert!(compressed >= 10, "only {compressed} of the sets compress");
    let last = "connect4-5x4-ply20.set";
    assert!(found[last] == unpacked[last], "the last set stays raw for the solves");
}

/// Independent jobs started together in one directory (two processes at a time, in the order
/// a scheduler may pick) give the same bytes.
#[test]
fn only_jobs_side_by_side_in_one_directory() {
    let game = ["morris", "--stones", "4"];
    let (plain, jobs) = (common::scratch("side-plain"), common::scratch("side-jobs"));
    assert!(generate(&game, &plain, None).status.success());
    let plan = plan(&game, &jobs);
    let mut done: HashSet<String> = HashSet::new();
    let all = plan["jobs"].as_array().unwrap().clone();
    while done.len() < all.len() {
        // Every job whose jobs before are done, run at once.
        let ready: Vec<String> = all
            .iter()
            .filter(|j| !done.contains(j["id"].as_str().unwrap()))
            .filter(|j| strings(&j["after"]).iter().all(|a| done.contains(a)))
            .map(|j| j["id"].as_str().unwrap().to_string())
            .collect();
        assert!(!ready.is_empty());
        let children: Vec<_> = ready
            .iter()
            .map(|id| {
                Command::new(env!("CARGO_BIN_EXE_tablebase"))
                    .args(["generate", "morris", "--stones", "4", "--threads", "1", "--only", id])
                    .args(["--dir", jobs.to_str().unwrap()])
                    .stderr(std::process::Stdio::piped())
                    .spawn()
                    .expect("the binary runs")
            })
            .collect();
        for (id, child) in ready.iter().zip(children) {
            let output = child.wait_with_output().unwrap();
            assert!(output.status.success(), "--only {id}: {}", stderr(&output));
        }
        done.extend(ready);
    }
    let (expected, found) = (files(&plain), files(&jobs));
    assert_eq!(found.len(), expected.len());
    for (name, bytes) in &expected {
        assert!(found[name] == *bytes, "{name} differs from a plain generate");
    }
}

/// What a scheduler must be told clearly: a job whose input is missing, partial or damaged (exit
/// 1, naming the file and the job that writes it, nothing written); an unknown id (exit 2).
#[test]
fn only_refuses_missing_and_damaged_inputs_and_unknown_jobs() {
    let dir = common::scratch("only-refuses");
    let game = ["morris", "--stones", "3"];
    let output = generate(&game, &dir, Some("placement-ply-5"));
    assert_eq!(output.status.code(), Some(1));
    let message = stderr(&output);
    assert!(message.contains("morris-opening3-ply05.set: missing"), "{message}");
    assert!(message.contains("job placement-ply-5-reachable-set writes it"), "{message}");
    assert_eq!(message.lines().count(), 1, "{message}");
    assert!(!dir.join("morris-opening3-ply05.tbl").exists());

    let output = generate(&game, &dir, Some("no-such-job"));
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(stderr(&output).contains("plan --json lists them"));

    // A damaged input: one byte of the class table's data changed.
    assert!(generate(&game, &dir, Some("3-3")).status.success());
    let class = dir.join("morris-3-3.tbl");
    let mut bytes = std::fs::read(&class).unwrap();
    let at = bytes.len() - 100;
    bytes[at] ^= 0x40;
    std::fs::write(&class, &bytes).unwrap();
    for ply in 0..6 {
        assert!(generate(&game, &dir, Some(&format!("placement-ply-{ply}-reachable-set"))).status.success());
    }
    let output = generate(&game, &dir, Some("placement-ply-5"));
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert!(stderr(&output).contains("morris-3-3.tbl"), "{}", stderr(&output));
    assert!(!dir.join("morris-opening3-ply05.tbl").exists(), "nothing built on a damaged table");
    // Its own job sets the damaged table aside and builds it again.
    let output = generate(&game, &dir, Some("3-3"));
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(stderr(&output).contains("set aside"), "{}", stderr(&output));
    assert!(generate(&game, &dir, Some("placement-ply-5")).status.success());
}

/// Locks: `--only` jobs share the directory with each other but not with a plain `generate`, and
/// one job cannot run twice at once.
#[test]
fn only_locks_per_job() {
    let dir = common::scratch("only-locks");
    let game = ["morris", "--stones", "3"];
    assert!(generate(&game, &dir, Some("3-3")).status.success());
    let job_lock = std::fs::File::options()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(dir.join(".jobs/placement-ply-0-reachable-set.lock"))
        .unwrap();
    job_lock.lock().unwrap();
    let output = generate(&game, &dir, Some("placement-ply-0-reachable-set"));
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains("job placement-ply-0-reachable-set is already running"),
        "{}",
        stderr(&output)
    );
    // Another job goes ahead meanwhile.
    let output = generate(&game, &dir, Some("3-3"));
    assert!(output.status.success(), "{}", stderr(&output));
    drop(job_lock);

    // A job holds the directory shared: a plain generate is refused, a job is not.
    let shared = std::fs::File::open(dir.join(".generate.lock")).unwrap();
    shared.lock_shared().unwrap();
    let output = generate(&game, &dir, None);
    assert_eq!(output.status.code(), Some(1));
    assert!(stderr(&output).contains("generate is already running there"), "{}", stderr(&output));
    assert!(generate(&game, &dir, Some("placement-ply-0-reachable-set")).status.success());
    drop(shared);
    assert!(generate(&game, &dir, None).status.success());
}

/// Paths in the plan are relative to --dir, so that a workflow can place the tables anywhere.
#[test]
fn plan_paths_are_relative_to_the_directory() {
    let base = common::scratch("plan-relative");
    let dir: PathBuf = base.join("deep").join("tables");
    let plan = plan(&["connect4", "--size", "4x4"], &dir);
    let first = &plan["jobs"][0];
    assert_eq!(strings(&first["writes"]), vec!["connect4-4x4-ply00.set".to_string()]);
    assert!(!dir.exists(), "plan creates nothing");
}

/// A job that finds the lock of a file's writer held (by a job compressing another of its
/// files, or one that looked before this job was complete) waits for it and compresses the
/// file, rather than leave it raw for good: the race that left a Lasker table in format
/// version 3 with four jobs at a time, made certain here by holding the lock.
#[test]
fn only_compresses_a_table_whose_writers_lock_is_held_meanwhile() {
    let game = ["connect4", "--size", "4x4"];
    let (plain, jobs) = (common::scratch("held-plain"), common::scratch("held-jobs"));
    assert!(generate(&game, &plain, None).status.success());
    for id in ids(&plan(&game, &jobs)) {
        if id != "ply-11" {
            let output = generate(&game, &jobs, Some(&id));
            assert!(output.status.success(), "--only {id}: {}", stderr(&output));
            continue;
        }
        // ply-11 is the last reader of ply 12's table, written by job ply-12.
        let lock = std::fs::File::options().write(true).open(jobs.join(".jobs/ply-12.lock")).unwrap();
        lock.lock().unwrap();
        let mut child = Command::new(env!("CARGO_BIN_EXE_tablebase"))
            .args(["generate", "connect4", "--size", "4x4", "--only", &id, "--dir", jobs.to_str().unwrap()])
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        // A job that does not wait ends while the lock is held; one that waits is let go.
        for _ in 0..100 {
            if child.try_wait().unwrap().is_some() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(30));
        }
        drop(lock);
        let output = child.wait_with_output().unwrap();
        assert!(output.status.success(), "--only {id}: {}", stderr(&output));
    }
    let (expected, found) = (files(&plain), files(&jobs));
    for (name, bytes) in &expected {
        assert!(found[name] == *bytes, "{name} differs from a plain generate");
    }
}
