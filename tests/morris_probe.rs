//! Probing: every value agrees with its moves, best lines play out, and the command line answers
//! batches with clear errors (docs/CLI.md, "Commands", "Values" and "JSON").

use crate::common;

use std::path::PathBuf;
use std::process::Output;
use std::sync::OnceLock;
use tablebase::Value;
use tablebase::games::morris::Standard;
use tablebase::games::morris::{Class, MovingPhase, for_each_move, parse_position};
use tablebase::games::morris::{MorrisTablebase, Position};
use tablebase::probe::ProbeError;

/// Tables up to 4-4, generated once for this test binary.
fn tables_dir() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        common::shared_tables("probe-test", |dir| {
            let phase = MovingPhase::<Standard>::new(Class::parse("4-4"));
            tablebase::generate(&phase, dir, &tablebase::GenerateOptions::default()).unwrap();
        })
    })
}

fn tablebase(args: &[&str], stdin: &str) -> Output {
    common::tablebase_with_input(env!("CARGO_BIN_EXE_tablebase"), args, stdin)
}

fn position(text: &str) -> Position {
    parse_position(text, 9).unwrap()
}

#[test]
fn every_value_up_to_4_4_is_explained_by_its_moves() {
    let tb = MorrisTablebase::<Standard>::open(tables_dir(), 9);
    let mut checked = 0u64;
    for class in MovingPhase::<Standard>::new(Class::parse("4-4")).classes() {
        let index = class.index();
        for i in 0..index.size() {
            let (mover, other) = index.position(i);
            let pos = Position::moving(mover, other);
            let probed = tb.probe(&pos).unwrap();
            let values: Vec<Value> = probed.moves.iter().map(|(_, v)| *v).collect();
            match probed.value.expect("a table's value") {
                Value::Win(n) => {
                    // A move to a position the opponent loses in n - 1, and none faster.
                    assert_eq!(values.first(), Some(&Value::Win(n)), "{class} #{i}");
                }
                Value::Loss(n) => {
                    // Only moves to opponent wins, one of them in exactly n - 1 and none slower.
                    assert!(values.iter().all(|v| matches!(v, Value::Loss(_))), "{class} #{i}");
                    if n == 0 {
                        assert!(values.is_empty(), "{class} #{i}: loss 0 with moves");
                    } else {
                        assert!(values.contains(&Value::Loss(n)), "{class} #{i}");
                        assert!(
                            values.iter().all(|v| matches!(v, Value::Loss(m) if *m <= n)),
                            "{class} #{i}"
                        );
                    }
                }
                Value::Draw => {
                    assert!(values.contains(&Value::Draw), "{class} #{i}");
                    assert!(!values.iter().any(|v| matches!(v, Value::Win(_))), "{class} #{i}");
                }
                Value::WinUnknown | Value::LossUnknown => panic!("{class} #{i}: no distance"),
            }
            // Best first.
            assert!(values.windows(2).all(|w| w[0] >= w[1]), "{class} #{i}");
            checked += 1;
        }
    }
    assert_eq!(checked, 169626 + 2 * 760398 + 3225597);
}

#[test]
fn known_positions() {
    let tb = MorrisTablebase::<Standard>::open(tables_dir(), 9);
    // White flies b6-g7 closing a7-d7-g7 and leaves Black two stones.
    let mill = position("W:a7,d7,b6 B:a1,d1,g4 w");
    let probed = tb.probe(&mill).unwrap();
    assert_eq!(probed.value, Some(Value::Win(1)));
    assert!(probed.moves.iter().any(|(m, v)| m.to_string().starts_with("b6-g7x") && *v == Value::Win(1)));
    // White's four stones are boxed in: lost, no moves.
    let blocked = position("W:a4,a7,d7,g7 B:a1,b4,d6,g4 w");
    let probed = tb.probe(&blocked).unwrap();
    assert_eq!((probed.value, probed.moves.len()), (Some(Value::Loss(0)), 0));
    assert!(tb.best_line(&blocked).unwrap().is_empty());
    // The same positions with colours swapped and mirrored have the same values.
    let mirrored = position("W:a1,b4,d6,g4 B:a4,a7,d7,g7 b");
    assert_eq!(tb.probe(&mirrored).unwrap().value, Some(Value::Loss(0)));
}

#[test]
fn best_lines_play_out_to_the_end_in_exactly_the_distance() {
    let tb = MorrisTablebase::<Standard>::open(tables_dir(), 9);
    let class = Class::parse("3-3").unwrap();
    let index = class.index();
    let mut longest_loss = None;
    for i in (0..index.size()).step_by(97) {
        let (m, o) = index.position(i);
        let pos = Position::moving(m, o);
        let value = tb.probe(&pos).unwrap().value.expect("a table's value");
        let line = tb.best_line(&pos).unwrap();
        let mut current = pos;
        for mv in &line {
            let mut next = None;
            for_each_move::<Standard>(&current, |candidate, after| {
                if candidate == *mv {
                    next = Some(after)
                }
            });
            current = next.expect("the line's moves are legal");
        }
        match value {
            Value::Win(n) | Value::Loss(n) => {
                assert_eq!(line.len() as u32, n, "#{i} {value}");
                assert_eq!(tb.probe(&current).unwrap().value, Some(Value::Loss(0)));
            }
            Value::Draw => assert!(!line.is_empty()),
            Value::WinUnknown | Value::LossUnknown => panic!("#{i}: no distance"),
        }
        if value == Value::Loss(26) {
            longest_loss = Some(line.len());
        }
    }
    // Gasser's longest 3-3 loss, 26 plies, is among the sampled positions or not; when it is,
    // its line has 26 moves.
    assert!(longest_loss.is_none_or(|n| n == 26));
}

#[test]
fn library_errors_say_what_is_wrong() {
    let tb = MorrisTablebase::<Standard>::open(tables_dir(), 9);
    let five = position("W:a1,d1,g1,a4,a7 B:b2,b4,b6,c3,c4 w");
    match tb.probe(&five) {
        Err(ProbeError::NotGenerated { path, variant }) => {
            assert!(path.ends_with("morris-5-5.tbl"));
            assert_eq!(variant.to_string(), "morris no-opening up-to=5-5");
        }
        other => panic!("{other:?}"),
    }
    // The opening is a table like any other: missing here, with the variant that builds it.
    match tb.probe(&Position::start(9)) {
        Err(ProbeError::NotGenerated { path, variant }) => {
            assert!(path.ends_with("morris-opening9-ply00.set"), "{}", path.display());
            assert_eq!(variant.to_string(), "morris stones=9");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn command_line_batch_json_and_errors() {
    let dir = tables_dir().to_str().unwrap().to_string();
    let input = "W:a7,d7,b6 B:a1,d1,g4 w\nnot a position\n\nW:a4,a7,d7,g7 B:a1,b4,d6,g4 w\nW:a1,h9 B: w\nW:a1,d1,g1 B:a4,b4,c4,d2 b\n";
    let out = tablebase(&["probe", "morris", "--dir", &dir, "--brief", "-"], input);
    assert_eq!(out.status.code(), Some(2));
    // One output line per input line, so answers line up with questions.
    let answers: Vec<String> = String::from_utf8(out.stdout).unwrap().lines().map(String::from).collect();
    assert_eq!(answers.len(), 6);
    assert_eq!([&answers[0], &answers[3], &answers[5]], ["win\t1", "loss\t0", "draw\t-"]);
    assert!(answers[1].starts_with("error\tmalformed position"), "{answers:?}");
    assert_eq!(answers[2], "error\tempty line: no position");
    assert!(answers[4].starts_with("error\tunknown point 'h9'"), "{answers:?}");
    let stderr = String::from_utf8(out.stderr).unwrap();
    let errors: Vec<&str> = stderr.lines().collect();
    assert_eq!(errors.len(), 3, "{stderr}");
    assert!(errors[0].starts_with("tablebase: line 2: malformed position"));
    assert!(errors[1].starts_with("tablebase: line 3: empty line"));
    assert!(errors[2].starts_with("tablebase: line 5: unknown point 'h9'"));
    let out = tablebase(&["probe", "morris", "--dir", &dir, "--json", "-"], input);
    let answers: Vec<serde_json::Value> =
        String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(answers.len(), 6);
    assert_eq!(answers[1]["position"], "not a position");
    assert!(answers[1]["error"].as_str().unwrap().starts_with("malformed position"));
    assert_eq!(answers[3]["value"], "loss");

    let out =
        tablebase(&["probe", "morris", "--dir", &dir, "--json", "--line", "W:a7,d7,b6 B:a1,d1,g4 w"], "");
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["position"], "W:a7,b6,d7 B:a1,d1,g4 w");
    assert_eq!((v["value"].as_str(), v["plies"].as_u64()), (Some("win"), Some(1)));
    assert_eq!(v["moves"][0]["value"], "win");
    assert_eq!(v["moves"].as_array().unwrap().len(), 3 * 18 - 1 + 3);
    assert_eq!(v["line"].as_array().unwrap().len(), 1);
    let draw = tablebase(&["probe", "morris", "--dir", &dir, "--json", "W:a1,d1,g1 B:a4,b4,c4,d2 b"], "");
    let v: serde_json::Value = serde_json::from_slice(&draw.stdout).unwrap();
    assert_eq!((v["value"].as_str(), v["plies"].is_null()), (Some("draw"), true));

    let text = tablebase(&["probe", "morris", "--dir", &dir, "W:a4,a7,d7,g7 B:a1,b4,d6,g4 w"], "");
    let shown = String::from_utf8(text.stdout).unwrap();
    assert!(shown.contains("White to move has lost") && shown.contains("4  W---B"), "{shown}");

    for (args, code) in [
        (vec!["probe", "morris", "--dir", &dir], 2),
        (vec!["probe", "morris", "--dir", &dir, "W:a1,a1 B: w"], 2),
        (vec!["probe", "morris", "--dir", &dir, "--json", "--brief", "start"], 2),
        (vec!["probe", "morris", "--dir", "/nonexistent/dir", "W:a7,d7,b6 B:a1,d1,g4 w"], 1),
    ] {
        let out = tablebase(&args, "");
        assert_eq!(out.status.code(), Some(code), "{args:?}");
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
    }
}

/// A hostile line: a megabyte long with terminal escapes. Errors quote at most 60 characters
/// with control characters escaped, in the JSON answer and on standard error alike.
#[test]
fn errors_quote_input_briefly_and_escaped() {
    let dir = tables_dir().to_str().unwrap().to_string();
    let long = format!("\u{1b}[31m{}\"\\", "x".repeat(1 << 20));
    let out = tablebase(&["probe", "morris", "--dir", &dir, "--json", "-"], &format!("{long}\n"));
    assert_eq!(out.status.code(), Some(2));
    let answer: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let quoted = answer["position"].as_str().unwrap();
    assert!(quoted.starts_with("\\u{1b}[31mxxx") && quoted.ends_with("x..."), "{quoted}");
    assert!(quoted.chars().count() < 80);
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(stderr.lines().count(), 1);
    assert!(stderr.len() < 300 && !stderr.contains('\u{1b}'), "{stderr}");
    let long_argument = &long[..100_000]; // an argument is limited to 128 KiB
    let out = tablebase(&["probe", "morris", "--dir", &dir, long_argument], "");
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(out.status.code() == Some(2) && stderr.len() < 300 && !stderr.contains('\u{1b}'), "{stderr}");
}

/// A program that asks one position at a time through a pipe gets each answer before it
/// writes the next question.
#[test]
fn a_batch_answers_through_a_pipe_one_line_at_a_time() {
    use std::io::{BufRead, BufReader, Write};
    let dir = tables_dir().to_str().unwrap().to_string();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_tablebase"))
        .args(["probe", "morris", "--dir", &dir, "--brief", "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    let mut output = BufReader::new(child.stdout.take().unwrap());
    for (question, expected) in
        [("W:a7,d7,b6 B:a1,d1,g4 w", "win\t1"), ("bad", "error\t"), ("W:a1,d1,g1 B:a4,b4,c4,d2 b", "draw\t-")]
    {
        writeln!(input, "{question}").unwrap();
        input.flush().unwrap();
        let mut answer = String::new();
        output.read_line(&mut answer).unwrap();
        assert!(answer.starts_with(expected), "{question}: {answer}");
    }
    drop(input);
    assert_eq!(child.wait().unwrap().code(), Some(2));
}
