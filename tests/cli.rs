//! The command line as users and scripts see it: output, JSON and exit codes (docs/CLI.md,
//! "Commands" and "JSON").

use crate::common;

use std::process::{Command, Output};
use tablebase::testing::morris::morris_class_size;

fn tablebase(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tablebase")).args(args).output().expect("the binary runs")
}

fn stdout_lines(output: &Output) -> Vec<String> {
    String::from_utf8(output.stdout.clone()).unwrap().lines().map(str::to_string).collect()
}

#[test]
fn info_morris_json_lists_all_49_classes_with_reference_sizes() {
    let dir = common::scratch("cli-info-empty");
    let output = tablebase(&["info", "morris", "--json", "--dir", dir.to_str().unwrap()]);
    assert!(output.status.success());
    let lines = stdout_lines(&output);
    assert_eq!(lines.len(), 49 + 18, "49 classes, then the 18 placement plies of the opening");
    for (p, line) in lines[49..].iter().enumerate() {
        let v: serde_json::Value = serde_json::from_str(line).expect("one JSON object per line");
        assert_eq!(v["table"], format!("placement ply {p}"));
        // Missing, its count from the independent census of the reference.
        let census = tablebase::testing::morris::placement_positions("morris", 9, p as u32);
        assert_eq!((v["status"].as_str(), v["positions"].as_u64()), (Some("missing"), census));
    }
    let last: serde_json::Value = serde_json::from_str(&lines[49 + 17]).unwrap();
    assert_eq!(last["positions"], 1_003_758_904_u64, "the opening's last ply");
    assert_eq!(serde_json::from_str::<serde_json::Value>(&lines[49]).unwrap()["index_size"], 1, "the start");
    let mut seen = Vec::new();
    for line in &lines[..49] {
        let v: serde_json::Value = serde_json::from_str(line).expect("one JSON object per line");
        assert_eq!(v["game"], "morris");
        let table = v["table"].as_str().unwrap();
        let (a, b) = table.split_once('-').unwrap();
        let (a, b): (u32, u32) = (a.parse().unwrap(), b.parse().unwrap());
        let reference = morris_class_size(a, b).unwrap();
        assert_eq!(v["positions"].as_u64(), Some(reference), "{table}");
        assert_eq!(v["index_size"].as_u64(), Some(reference), "{table}: the index is perfect");
        assert_eq!(v["status"], "missing");
        seen.push((a, b));
    }
    seen.sort();
    seen.dedup();
    assert_eq!(seen.len(), 49);
}

#[test]
fn info_morris_text_and_smaller_games() {
    let output = tablebase(&["info", "morris"]);
    assert!(output.status.success());
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(text.contains("8-8") && text.contains("591726690"));
    assert!(text.contains("8904593601"), "the total over all classes");
    let four = tablebase(&["info", "morris", "--json", "--stones", "4"]);
    let tables: Vec<String> = stdout_lines(&four)
        .iter()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["table"].as_str().unwrap().to_string())
        .collect();
    let placement: Vec<String> = (0..8).map(|p| format!("placement ply {p}")).collect();
    assert_eq!(tables[..4], ["3-3", "3-4", "4-3", "4-4"]);
    assert_eq!(tables[4..], placement);
}

#[test]
fn usage_errors_exit_2_with_one_line() {
    for args in [
        &["info", "morris", "--stones", "12"][..],
        &["info", "morris", "--bogus"],
        &["info", "chess"],
        &["bench", "morris", "--classes", "2-9"],
        &["frobnicate"],
    ] {
        let output = tablebase(args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8(output.stderr).unwrap();
        assert_eq!(stderr.trim_end().lines().count(), 1, "{args:?}: {stderr}");
        assert!(stderr.starts_with("tablebase: "), "{stderr}");
        assert!(output.stdout.is_empty());
    }
}

/// `plan` says what `generate` would do without doing it: the jobs left, and disk that is
/// exactly the bytes the run then writes (Morris and Lasker tables have their length by their
/// index); after the run nothing is left to do. `generate` says the same before it starts.
#[test]
fn plan_says_what_generate_then_does() {
    let scratch = common::scratch("cli-plan");
    let dir = scratch.join("tables");
    let d = dir.to_str().unwrap();
    let before = tablebase(&["plan", "lasker", "--stones", "3", "--dir", d]);
    assert!(before.status.success());
    let lines = stdout_lines(&before);
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert!(lines[0].starts_with("lasker: 10 of 10 jobs to run: up to "), "{lines:?}");
    assert!(lines[0].contains("of CPU ("), "the sectors have a measured rate: {lines:?}");
    assert!(lines[1].ends_with("it fits"), "{lines:?}");
    assert!(!dir.exists(), "plan writes nothing");

    let made = tablebase(&["generate", "lasker", "--stones", "3", "--dir", d, "--raw"]);
    assert!(made.status.success());
    let said = String::from_utf8(made.stderr).unwrap();
    let first = said.lines().next().unwrap();
    assert_eq!(first, lines[0], "generate's first line is plan's");
    let written: u64 = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.file_name().to_string_lossy().ends_with(".tbl"))
        .map(|e| e.metadata().unwrap().len())
        .sum();
    let kb = written as f64 / 1000.0;
    assert!(lines[0].contains(&format!("up to {kb:.0} KB of tables")), "{written} bytes written: {lines:?}");
    // The bound is of raw tables, which a run writes first; a run without --raw then compresses
    // them in place, as it would have compressed its own.
    let compressed = tablebase(&["generate", "lasker", "--stones", "3", "--dir", d]);
    assert!(compressed.status.success());
    let said = String::from_utf8(compressed.stderr).unwrap();
    let tables: Vec<Vec<u8>> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".tbl"))
        .map(|p| std::fs::read(p).unwrap())
        .collect();
    // Each table compressed and said so, but those too small to gain, left raw.
    let compressed = tables.iter().filter(|t| t[8] == 4).count();
    assert_eq!(said.lines().filter(|l| l.contains(": compressed, ")).count(), compressed, "{said}");
    assert!(compressed > 0, "none of {} compressed", tables.len());
    assert!(tables.iter().all(|t| t[8] == 4 || t.len() < 16 << 10), "only small tables stay raw");
    let packed: u64 = tables.iter().map(|t| t.len() as u64).sum();
    assert!(packed < written, "{packed} bytes compressed, {written} raw");

    let after = tablebase(&["plan", "lasker", "--stones", "3", "--dir", d]);
    assert!(stdout_lines(&after)[0].starts_with("lasker: 0 of 10 jobs to run: up to 0 bytes"));
    // A game too large for any disk here: said, not refused.
    let huge = tablebase(&["plan", "connect4", "--size", "8x7", "--dir", d]);
    assert!(huge.status.success());
    assert!(stdout_lines(&huge)[1].contains("it does not fit (disk, memory)"), "{:?}", stdout_lines(&huge));
}
