//! The command line as users and scripts see it: output, JSON and exit codes (docs/CLI.md,
//! "Commands" and "JSON").

mod common;

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
        assert_eq!((v["status"].as_str(), v["positions"].is_null()), (Some("missing"), true));
    }
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
