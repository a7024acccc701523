//! Fuzzing every parser that takes user input, as property tests: any string, however hostile
//! (control characters, other scripts, huge or empty), gives a value or a typed error whose
//! message is one short line, never a panic. Positions that parse read back as themselves;
//! batches answer one line per line, each as the position alone gets it; numeric flags of the
//! command line give an answer or a usage error, never a crash. (The HTTP request lines and
//! query strings of `serve` are fuzzed in its own module and in tests/serve.rs.)

use crate::common;

use proptest::prelude::*;
use std::path::PathBuf;
use std::sync::OnceLock;
use tablebase::games::connect4::{Geometry, parse_moves};
use tablebase::games::morris::{PositionText, parse_move, parse_position};
use tablebase::text::quote;

/// Strings near the notation (its letters, digits and punctuation) and anything at all.
fn hostile() -> impl Strategy<Value = String> {
    prop_oneof![
        "[WBwbx:, a-h0-9\\-]{0,40}",
        "W:[a-g][1-7](,[a-g][1-7]){0,9} B:[a-g][1-7](,[a-g][1-7]){0,9} [wb]( [0-9]{1,2} [0-9]{1,2})?",
        any::<String>(),
        "\\PC{0,300}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 4000, ..ProptestConfig::default() })]

    #[test]
    fn morris_positions_parse_or_say_why(text in hostile(), stones in 3u8..=9) {
        if let Err(e) = parse_position(&text, stones) {
            let message = e.to_string();
            prop_assert!(!message.contains('\n') && !message.chars().any(char::is_control), "{message:?}");
            prop_assert!(message.chars().count() < 900, "{message:?}");
        }
    }

    #[test]
    fn morris_moves_parse_or_say_why(text in "[a-h0-9x\\- ]{0,12}|\\PC{0,20}") {
        if let Err(e) = parse_move(&text) {
            prop_assert!(!e.to_string().contains('\n'));
        }
    }

    #[test]
    fn connect4_moves_parse_or_say_why(text in "[0-9]{0,50}|\\PC{0,60}", width in 4u32..=9, height in 4u32..=7) {
        if let Ok(g) = Geometry::new(width, height)
            && let Err(e) = parse_moves(&g, &text)
        {
            let message = e.to_string();
            prop_assert!(!message.contains('\n') && message.chars().count() < 900, "{message:?}");
        }
    }

    #[test]
    fn quoting_is_short_and_has_no_control_characters(text in any::<String>()) {
        let quoted = quote(&text);
        prop_assert!(quoted.chars().count() <= 63 + 10 * 60);
        prop_assert!(!quoted.chars().any(char::is_control));
    }
}

/// Connect Four 4x4, every ply, generated once for the batch properties.
fn connect4_4x4() -> &'static str {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        common::shared_tables("fuzz-c4", |dir| {
            let out = run(&["generate", "connect4", "--size", "4x4", "--dir", dir.to_str().unwrap()], "");
            assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        })
    })
    .to_str()
    .unwrap()
}

fn run(args: &[&str], stdin: &str) -> std::process::Output {
    common::tablebase_with_input(env!("CARGO_BIN_EXE_tablebase"), args, stdin)
}

/// A process that ended by itself with one of the documented exit codes, and on failure with
/// one line on standard error.
fn ended_cleanly(out: &std::process::Output) -> Result<(), TestCaseError> {
    let code = out.status.code();
    prop_assert!(matches!(code, Some(0..=3)), "exit {:?} (a crash or a signal)", out.status);
    if code != Some(0) {
        let stderr = String::from_utf8_lossy(&out.stderr);
        prop_assert_eq!(stderr.lines().count(), 1, "{}", stderr);
        prop_assert!(stderr.starts_with("tablebase: "), "{}", stderr);
    }
    Ok(())
}

/// Numbers as people mistype them: huge, negative, fractional, exponents, words, nothing.
fn number_like() -> impl Strategy<Value = String> {
    prop_oneof![
        "-?[0-9]{1,30}",
        "-?[0-9]{0,5}\\.[0-9]{0,5}(e[+-]?[0-9]{1,4})?",
        Just("1e30".to_string()),
        Just("1e19".to_string()),
        Just("NaN".to_string()),
        Just("inf".to_string()),
        Just("-0".to_string()),
        Just("0x10".to_string()),
        Just(String::new()),
        "\\PC{0,8}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn morris_positions_read_back_as_themselves(
        white in proptest::collection::btree_set(0u32..24, 0..=9),
        black in proptest::collection::btree_set(0u32..24, 0..=9),
        black_to_move: bool,
        hands in (0u8..=12, 0u8..=12),
        stones in 3u8..=9,
    ) {
        let names = |points: &std::collections::BTreeSet<u32>, other: &std::collections::BTreeSet<u32>| {
            let names: Vec<&str> = points.difference(other).map(|&p| tablebase::games::morris::POINT_NAMES[p as usize]).collect();
            names.join(",")
        };
        let side = if black_to_move { 'b' } else { 'w' };
        let text = format!("W:{} B:{} {side} {} {}", names(&white, &black), names(&black, &white), hands.0, hands.1);
        if let Ok(position) = parse_position(&text, stones) {
            let written = PositionText(&position).to_string();
            let again = parse_position(&written, stones);
            prop_assert!(again.is_ok(), "{} reads back as {}: {:?}", text, written, again.err().map(|e| e.to_string()));
            prop_assert_eq!(PositionText(&again.unwrap()).to_string(), written);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// A batch of good and bad lines answers exactly one line per line, in order, each as that
    /// position asked alone gets it; the exit status is 2 exactly when a line was bad.
    #[test]
    fn batches_answer_every_line_as_it_alone_is_answered(
        lines in proptest::collection::vec(prop_oneof!["[1-4]{0,10}", "[0-9a-z ]{0,6}", "\\PC{0,12}"], 1..12)
    ) {
        let dir = connect4_4x4();
        let lines: Vec<String> = lines.into_iter().map(|l| l.replace(['\n', '\r'], "")).collect();
        let input: String = lines.iter().map(|l| format!("{l}\n")).collect();
        let batch = run(&["probe", "connect4", "--size", "4x4", "--dir", dir, "--brief", "-"], &input);
        prop_assert!(matches!(batch.status.code(), Some(0 | 2)), "{:?}", batch.status);
        let answers = String::from_utf8(batch.stdout).unwrap();
        let answers: Vec<&str> = answers.lines().collect();
        prop_assert_eq!(answers.len(), lines.len());
        let mut any_bad = false;
        for (line, answer) in lines.iter().zip(&answers) {
            if line.trim() == "-" {
                // Alone, `-` asks for a batch on standard input; in a batch it is a bad move string.
                any_bad = true;
                prop_assert!(answer.starts_with("error\t"), "{:?} -> {:?}", line, answer);
                continue;
            }
            let alone = run(&["probe", "connect4", "--size", "4x4", "--dir", dir, "--brief", line.trim()], "");
            match alone.status.code() {
                Some(0) => {
                    let expected = String::from_utf8(alone.stdout).unwrap();
                    prop_assert_eq!(expected.trim_end(), *answer);
                }
                _ => {
                    any_bad = true;
                    prop_assert!(answer.starts_with("error\t"), "{:?} -> {:?}", line, answer);
                }
            }
        }
        prop_assert_eq!(batch.status.code() == Some(2), any_bad);
    }

    /// Flags that take numbers, on commands that do no long work: an answer or a usage error.
    #[test]
    fn numeric_flags_answer_or_say_why(
        number in number_like(),
        flag in 0usize..6,
    ) {
        let empty = common::scratch("fuzz-flags");
        let d = empty.to_str().unwrap();
        let tables = connect4_4x4();
        // A 7x6 position past the checked-in book, answered by a short search.
        let (book, late) = (concat!(env!("CARGO_MANIFEST_DIR"), "/tables"), "2252576253462244111563365343671351441");
        let args: Vec<&str> = match flag {
            0 => vec!["probe", "connect4", "--size", "7x6", "--dir", book, "--max-time", &number, late],
            1 => vec!["play", "connect4", "--size", "7x6", "--dir", book, "--from", late, "--side", "second", "--max-time", &number],
            2 => vec!["verify", "connect4", "--size", "4x4", "--dir", tables, "--quick", "--threads", &number],
            3 => vec!["info", "morris", "--dir", d, "--stones", &number],
            4 => vec!["play", "connect4", "--size", "4x4", "--dir", tables, "--seed", &number],
            _ => vec!["info", "connect4", "--dir", d, "--size", &number],
        };
        let out = run(&args, "quit\n");
        ended_cleanly(&out)?;
    }
}
