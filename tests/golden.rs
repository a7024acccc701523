//! The command line's output, byte for byte. Each case of `tests/data/golden/cases.txt` runs in
//! order in one scratch directory (generate, then info, verify and probe of what it wrote), and
//! its standard output, with the directory's path written `DIR`, then `exit N`, must equal the
//! file of the case's name beside it. The files were recorded with the binary of before the
//! crate split (issue 65), so they hold the output the library's report types must keep.
//!
//! After a deliberate change of output,
//! `TABLEBASE_BLESS=1 cargo test --release --test integration golden::` rewrites the files from
//! the current binary; the diff is then the change to review. Plan's
//! `cpu_seconds` come from each game's measured rates, so a change of rates changes them.

use std::path::{Path, PathBuf};
use std::process::Command;

/// One line of the cases file: the name of its file and the arguments.
struct Case {
    name: String,
    args: Vec<String>,
}

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/golden")
}

fn cases() -> Vec<Case> {
    let text = std::fs::read_to_string(golden_dir().join("cases.txt")).expect("the cases file");
    text.lines()
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .map(|line| {
            let (name, args) = line.split_once(" | ").unwrap_or_else(|| panic!("bad case line '{line}'"));
            let args = args
                .split(' ')
                .map(|word| if word == "\"\"" { String::new() } else { word.replace('_', " ") })
                .collect();
            Case { name: name.to_string(), args }
        })
        .collect()
}

/// Standard output of `case` run in `dir`, with `dir` written `DIR`, and its exit status.
fn output_of(case: &Case, dir: &str) -> String {
    let args: Vec<String> =
        case.args.iter().map(|a| if a == "DIR" { dir.to_string() } else { a.clone() }).collect();
    let out = Command::new(env!("CARGO_BIN_EXE_tablebase")).args(&args).output().expect("the binary runs");
    let stdout = String::from_utf8(out.stdout).expect("UTF-8 output").replace(dir, "DIR");
    format!("{stdout}exit {}\n", out.status.code().expect("an exit status"))
}

#[test]
fn every_command_prints_what_it_printed_before_the_split() {
    let bless = std::env::var_os("TABLEBASE_BLESS").is_some();
    let scratch = tempfile::tempdir().unwrap();
    let dir = scratch.path().to_str().unwrap();
    let cases = cases();
    assert_eq!(cases.len(), 44, "cases in tests/data/golden/cases.txt");
    let mut differ = Vec::new();
    for case in &cases {
        let path = golden_dir().join(&case.name);
        let found = output_of(case, dir);
        if bless {
            std::fs::write(&path, &found).unwrap();
            continue;
        }
        let expected = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        if found != expected {
            let line = found.lines().zip(expected.lines()).position(|(a, b)| a != b).map_or(0, |i| i + 1);
            differ.push(format!("{} (first difference on line {line}):\n{found}", case.name));
        }
    }
    assert!(differ.is_empty(), "output differs from tests/data/golden/:\n{}", differ.join("\n"));
}

/// `verify --json` and `info --json` of tables one of which is missing and one damaged: the
/// rows without counts, recorded like the cases above.
#[test]
fn rows_of_missing_and_damaged_tables_are_what_they_were() {
    let scratch = tempfile::tempdir().unwrap();
    let dir = scratch.path().to_str().unwrap();
    let run = |args: &[&str]| {
        output_of(&Case { name: String::new(), args: args.iter().map(|a| a.to_string()).collect() }, dir)
    };
    assert!(run(&["generate", "tictactoe", "--dir", "DIR"]).ends_with("exit 0\n"));
    std::fs::remove_file(scratch.path().join("tictactoe-ply3.tbl")).unwrap();
    std::fs::write(scratch.path().join("tictactoe-ply4.tbl"), "garbage").unwrap();
    for (name, args) in [
        (
            "verify-damaged-json",
            ["verify", "tictactoe", "--dir", "DIR", "--json", "--threads", "1"].as_slice(),
        ),
        ("info-damaged-json", ["info", "tictactoe", "--dir", "DIR", "--json"].as_slice()),
    ] {
        let path = golden_dir().join(name);
        let found = run(args);
        if std::env::var_os("TABLEBASE_BLESS").is_some() {
            std::fs::write(&path, &found).unwrap();
            continue;
        }
        assert_eq!(found, std::fs::read_to_string(&path).unwrap(), "{name}");
    }
}
