//! `generate`, `verify`, `info` and `probe connect4` as users and scripts see them.

use crate::common;

use std::process::Output;

fn tablebase(args: &[&str], stdin: &str) -> Output {
    common::tablebase_with_input(env!("CARGO_BIN_EXE_tablebase"), args, stdin)
}

fn json_lines(output: &Output) -> Vec<serde_json::Value> {
    String::from_utf8(output.stdout.clone())
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn four_by_four_end_to_end() {
    let dir = common::scratch("c4-cli");
    let d = dir.to_str().unwrap();
    let before = tablebase(&["info", "connect4", "--size", "4x4", "--dir", d, "--json"], "");
    let lines = json_lines(&before);
    assert_eq!(lines.len(), 17);
    assert!(lines.iter().all(|v| v["status"] == "missing"));
    assert_eq!(lines[1]["index_size"], 4);

    assert!(tablebase(&["generate", "connect4", "--size", "4x4", "--dir", d], "").status.success());
    let verified = tablebase(&["verify", "connect4", "--size", "4x4", "--dir", d, "--json"], "");
    assert_eq!(verified.status.code(), Some(0));
    let lines = json_lines(&verified);
    assert_eq!(lines.len(), 17);
    assert_eq!(lines[0]["table"], "ply 0");
    assert_eq!(lines[0]["reference"], "match", "total, value and end ply of 4x4");
    let total: u64 = lines.iter().map(|v| v["positions"].as_u64().unwrap()).sum();
    assert_eq!(total, 161029);
    assert!(lines.iter().all(|v| v["consistent"] == true && v["checksum"] == "ok"));
    let info = json_lines(&tablebase(&["info", "connect4", "--size", "4x4", "--dir", d, "--json"], ""));
    assert!(info.iter().all(|v| v["status"] == "complete"));

    // The empty board is a draw; a first move in column 1 too.
    let probed = tablebase(&["probe", "connect4", "--size", "4x4", "--dir", d, "--json", "--line", ""], "");
    let v: serde_json::Value = serde_json::from_slice(&probed.stdout).unwrap();
    assert_eq!(
        (v["position"].as_str(), v["value"].as_str(), v["plies"].is_null()),
        (Some(""), Some("draw"), true)
    );
    assert_eq!(v["moves"].as_array().unwrap().len(), 4);
    assert_eq!(v["line"].as_array().unwrap().len(), 16, "a drawn line fills the board");
    // Four in a row already: lost for the side to move, no moves.
    let won = tablebase(&["probe", "connect4", "--size", "4x4", "--dir", d, "--brief", "1212121"], "");
    assert_eq!(String::from_utf8(won.stdout).unwrap(), "loss\t0\n");
    let batch = tablebase(
        &["probe", "connect4", "--size", "4x4", "--dir", d, "--brief", "-"],
        "\n15\n11111\n12121212\n1\n",
    );
    assert_eq!(batch.status.code(), Some(2));
    let answers: Vec<String> = String::from_utf8(batch.stdout).unwrap().lines().map(String::from).collect();
    assert_eq!(answers.len(), 5, "a line per input line: {answers:?}");
    assert!(answers[1..4].iter().all(|a| a.starts_with("error\tmove ")), "{answers:?}");
    assert!(!answers[0].starts_with("error") && !answers[4].starts_with("error"), "{answers:?}");
    let errors = String::from_utf8(batch.stderr).unwrap();
    assert!(errors.contains("line 2: move 2: column 5 is off the board"), "{errors}");
    assert!(errors.contains("line 3: move 5: column 1 is full"), "{errors}");
    assert!(errors.contains("line 4: move 8: the game is already over"), "{errors}");
    // A batch of many pieces (answered in parallel): answers in order, errors numbered by
    // their line in the whole input.
    let mut questions: Vec<String> =
        (0..40_000).map(|i| ["1", "2", "12", "1234", "4321"][i % 5].to_string()).collect();
    for bad in [7, 20_001, 39_999] {
        questions[bad - 1] = "5".into();
    }
    let batch = tablebase(
        &["probe", "connect4", "--size", "4x4", "--dir", d, "--brief", "-"],
        &(questions.join("\n") + "\n"),
    );
    assert_eq!(batch.status.code(), Some(2));
    let answers: Vec<String> = String::from_utf8(batch.stdout).unwrap().lines().map(String::from).collect();
    assert_eq!(answers.len(), 40_000);
    let each: Vec<String> = ["1", "2", "12", "1234", "4321"]
        .iter()
        .map(|q| {
            let out = tablebase(&["probe", "connect4", "--size", "4x4", "--dir", d, "--brief", q], "");
            String::from_utf8(out.stdout).unwrap().trim_end().to_string()
        })
        .collect();
    for (i, answer) in answers.iter().enumerate() {
        match [7, 20_001, 39_999].contains(&(i + 1)) {
            true => assert!(answer.starts_with("error\tmove 1: column 5"), "line {}: {answer}", i + 1),
            false => assert_eq!(answer, &each[i % 5], "line {}", i + 1),
        }
    }
    let errors = String::from_utf8(batch.stderr).unwrap();
    let numbers: Vec<&str> = errors.lines().filter_map(|l| l.split(": ").nth(1)).collect();
    assert_eq!(numbers, ["line 7", "line 20001", "line 39999"], "{errors}");

    for args in [
        vec!["probe", "connect4", "--size", "3x4", "--dir", d, ""],
        vec!["probe", "connect4", "--size", "8x8", "--dir", d, ""],
        vec!["probe", "connect4", "--dir", d, ""],
        vec!["probe", "connect4", "--size", "4x4", "--dir", d, "9"],
    ] {
        let out = tablebase(&args, "");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert_eq!(String::from_utf8(out.stderr).unwrap().lines().count(), 1, "{args:?}");
    }
    // A flipped bit in a set (its rank directory) is a bad checksum for verify: exit 3.
    let set = dir.join("connect4-4x4-ply08.set");
    let mut bytes = std::fs::read(&set).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    std::fs::write(&set, &bytes).unwrap();
    let damaged = tablebase(&["verify", "connect4", "--size", "4x4", "--dir", d, "--json", "--quick"], "");
    assert_eq!(damaged.status.code(), Some(3));
    let lines = json_lines(&damaged);
    assert_eq!(lines[8]["checksum"], "bad");
    assert!(lines.iter().filter(|v| v["checksum"] == "bad").count() == 1);

    let missing = tablebase(&["probe", "connect4", "--size", "5x4", "--dir", d, ""], "");
    assert_eq!(missing.status.code(), Some(1));
    assert!(String::from_utf8(missing.stderr).unwrap().contains("generate connect4 --size 5x4"));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `verify` behaves as it does for Morris: it carries on past a missing ply (exit 1 when nothing
/// else is wrong) and lists a wrong value with an example position (exit 3).
#[test]
fn verify_carries_on_past_a_missing_ply_and_lists_mismatches() {
    let dir = common::scratch("c4-verify");
    let d = dir.to_str().unwrap();
    assert!(tablebase(&["generate", "connect4", "--size", "4x4", "--dir", d, "--raw"], "").status.success());
    let table = dir.join("connect4-4x4-ply10.tbl");
    let pristine = std::fs::read(&table).unwrap();

    std::fs::remove_file(&table).unwrap();
    let missing = tablebase(&["verify", "connect4", "--size", "4x4", "--dir", d, "--json"], "");
    assert_eq!(missing.status.code(), Some(1));
    let lines = json_lines(&missing);
    assert_eq!(lines.len(), 17, "every ply is reported, the missing one with null counts");
    assert!(lines.iter().all(|v| v["table"] == "ply 10" || v["checksum"] == "ok"));
    let gone = &lines[10];
    assert_eq!((&gone["table"], &gone["status"]), (&"ply 10".into(), &"missing".into()));
    assert!(gone["positions"].is_null() && gone["checksum"].is_null() && gone["consistent"].is_null());
    assert_eq!(lines.iter().find(|v| v["table"] == "ply 9").unwrap()["consistent"], serde_json::Value::Null);
    let stderr = String::from_utf8(missing.stderr).unwrap();
    assert!(stderr.contains("connect4-4x4-ply10.tbl: table not generated"), "{stderr}");
    assert!(stderr.contains(
        "1 table(s) not generated or outdated (ply 10): run tablebase generate connect4 --size 4x4"
    ));

    // A wrong value under a valid checksum: found by recomputation, with the position.
    let mut bytes = pristine.clone();
    let victim = bytes[256..].iter().position(|&b| b == 2).unwrap(); // a win in 1
    bytes[256 + victim] = 4; // claim a win in 3
    common::reseal(&mut bytes);
    std::fs::write(&table, &bytes).unwrap();
    let wrong = tablebase(&["verify", "connect4", "--size", "4x4", "--dir", d, "--json"], "");
    assert_eq!(wrong.status.code(), Some(3));
    let lines = json_lines(&wrong);
    assert_eq!(lines.len(), 17);
    assert_eq!(lines[10]["consistent"], false);
    assert!(lines[11..].iter().all(|v| v["consistent"] == true), "later plies do not read ply 10");
    let stderr = String::from_utf8(wrong.stderr).unwrap();
    assert!(
        stderr.contains("connect4 4x4 ply 10: position ")
            && stderr.contains("stored win 3 but its moves give win 1"),
        "{stderr}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `verify --resume` does not recompute a table again over the same files, recomputes every
/// table once any file has changed, and never records a table found wrong.
#[test]
fn verify_resume_reuses_only_consistent_tables_over_the_same_files() {
    let dir = common::scratch("c4-resume");
    let d = dir.to_str().unwrap();
    assert!(tablebase(&["generate", "connect4", "--size", "4x4", "--dir", d, "--raw"], "").status.success());
    let resume = ["verify", "connect4", "--size", "4x4", "--dir", d, "--resume"];
    let journal = dir.join("verify.journal");
    let entries = || std::fs::read_to_string(&journal).unwrap().lines().filter(|l| !l.is_empty()).count();

    let first = tablebase(&resume, "");
    assert!(first.status.success());
    let text = String::from_utf8(first.stdout).unwrap();
    assert_eq!(text.lines().filter(|l| l.contains(" consistent  ")).count(), 17, "{text}");
    assert_eq!(entries(), 17);
    // A kill while writing a line leaves it cut: it is ignored, and the next line starts anew.
    std::fs::write(&journal, std::fs::read_to_string(&journal).unwrap() + "connect4 4x4\tdead").unwrap();
    let again = tablebase(&resume, "");
    assert!(again.status.success());
    let text = String::from_utf8(again.stdout).unwrap();
    assert_eq!(text.lines().filter(|l| l.contains("consistent (journal)")).count(), 17, "{text}");
    let json = tablebase(&[&resume[..], &["--json"]].concat(), "");
    assert!(json_lines(&json).iter().all(|v| v["consistent"] == true));

    // Compressing the tables keeps the journal: a table is the same table raw or compressed.
    let raw = std::fs::read(dir.join("connect4-4x4-ply10.tbl")).unwrap();
    let recorded = entries();
    let compressed = tablebase(&["generate", "connect4", "--size", "4x4", "--dir", d], "");
    assert!(compressed.status.success());
    let packed_files = |extension: &str| {
        (0..=16)
            .filter(|ply| {
                std::fs::read(dir.join(format!("connect4-4x4-ply{ply:02}.{extension}"))).unwrap()[8] == 4
            })
            .count()
    };
    let (packed, packed_sets) = (packed_files("tbl"), packed_files("set"));
    assert!(
        packed >= 10 && packed_sets >= 5,
        "all but the smallest plies: {packed} tables, {packed_sets} sets"
    );
    assert_eq!(
        String::from_utf8(compressed.stderr).unwrap().matches(": compressed, ").count(),
        packed + packed_sets
    );
    let packed = tablebase(&resume, "");
    assert!(packed.status.success());
    let text = String::from_utf8(packed.stdout).unwrap();
    assert_eq!(text.lines().filter(|l| l.contains("consistent (journal)")).count(), 17, "{text}");
    assert_eq!(text.lines().filter(|l| l.contains("published match")).count(), 17, "{text}");
    assert_eq!(entries(), recorded, "nothing recomputed, nothing recorded");
    std::fs::write(dir.join("connect4-4x4-ply10.tbl"), raw).unwrap(); // raw again, as below expects

    // A wrong value under a valid checksum changes the fingerprint: everything is recomputed,
    // the wrong ply found and left out of the journal, the others recorded anew.
    let table = dir.join("connect4-4x4-ply10.tbl");
    let mut bytes = std::fs::read(&table).unwrap();
    let victim = bytes[256..].iter().position(|&b| b == 2).unwrap();
    bytes[256 + victim] = 4;
    common::reseal(&mut bytes);
    std::fs::write(&table, &bytes).unwrap();
    for round in 0..2 {
        let wrong = tablebase(&resume, "");
        assert_eq!(wrong.status.code(), Some(3));
        let text = String::from_utf8(wrong.stdout).unwrap();
        let ply10 = text.lines().find(|l| l.starts_with("ply 10 ")).unwrap();
        assert!(ply10.contains("INCONSISTENT"), "{ply10}");
        let from_journal = text.lines().filter(|l| l.contains("consistent (journal)")).count();
        // Ply 9 reads ply 10's wrong value and is found wrong too; the 15 others are recorded.
        assert!(text.lines().find(|l| l.starts_with("ply 9 ")).unwrap().contains("INCONSISTENT"));
        assert_eq!(from_journal, if round == 0 { 0 } else { 15 }, "{text}");
    }
    assert_eq!(entries(), 17 + 1 + 15);
    let conflict = tablebase(&[&resume[..], &["--quick"]].concat(), "");
    assert_eq!(conflict.status.code(), Some(2));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The standard board has no tables here: `probe` answers by search, with the values and
/// distances of every one of Pons's six test sets (the first positions of each, fewer of the
/// costly beginning sets; the benchmark runs all 6,000), and `--max-time` stops a search that
/// would take long.
#[test]
fn probe_7x6_by_search_gives_pons_scores() {
    let dir = common::scratch("c4-7x6");
    let d = dir.to_str().unwrap();
    let sets = [
        ("Test_L3_R1", 200),
        ("Test_L2_R1", 100),
        ("Test_L2_R2", 20),
        ("Test_L1_R1", 30),
        ("Test_L1_R2", 20),
        ("Test_L1_R3", 3),
    ];
    for (set, count) in sets {
        let text = std::fs::read_to_string(format!("tables/reference/connect4-pons/{set}")).unwrap();
        let lines: Vec<(&str, i32)> = text
            .lines()
            .take(count)
            .map(|l| l.split_once(' ').map(|(m, s)| (m, s.parse().unwrap())).unwrap())
            .collect();
        let input: String = lines.iter().map(|(moves, _)| format!("{moves}\n")).collect();
        let out = tablebase(&["probe", "connect4", "--size", "7x6", "--dir", d, "--brief", "-"], &input);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let answers = String::from_utf8(out.stdout).unwrap();
        let answers: Vec<&str> = answers.lines().collect();
        assert_eq!(answers.len(), lines.len());
        for ((moves, score), answer) in lines.iter().zip(answers) {
            assert_eq!(answer, common::pons_answer(moves.len(), *score), "{set}: {moves} (score {score})");
        }
    }
    // Every move of a position, as people see it, by search too.
    let out = tablebase(
        &[
            "probe",
            "connect4",
            "--size",
            "7x6",
            "--dir",
            d,
            "--json",
            "2252576253462244111563365343671351441",
        ],
        "",
    );
    assert!(out.status.success());
    let probed = &json_lines(&out)[0];
    assert_eq!((&probed["value"], &probed["plies"]), (&"loss".into(), &serde_json::json!(4)));
    assert!(probed["moves"].as_array().unwrap().iter().all(|m| m["value"] == "loss"));
    // The empty board takes a long search without the book: the limit stops it. The text
    // answer marks what it did not settle and says how to lift the limit; the value alone
    // (--brief) is an error, exit 1.
    let out = tablebase(&["probe", "connect4", "--size", "7x6", "--dir", d, "--max-time", "0.2", ""], "");
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(
        text.matches("unknown: not settled within the time limit (--max-time S searches longer)").count(),
        8,
        "{text}"
    );
    let out = tablebase(
        &["probe", "connect4", "--size", "7x6", "--dir", d, "--brief", "--max-time", "0.2", ""],
        "",
    );
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains("needs more than the 0.2 s allowed (--max-time)"), "{stderr}");
    let bad = tablebase(&["probe", "connect4", "--size", "7x6", "--max-time", "0", "4"], "");
    assert_eq!(bad.status.code(), Some(2));
    assert_eq!(std::fs::read_dir(&*dir).unwrap().count(), 0, "probing by search writes nothing");
}

/// `play` on 7x6 without a book: late in the game the perfect player answers by search and wins
/// (the position is lost for the person by 4 plies); from the empty board, where the search
/// limit settles nothing, it plays a move that does not lose at once and says that its value is
/// not settled, rather than leaving the person waiting without a word or stopping the game.
#[test]
fn play_7x6_by_search() {
    let dir = common::scratch("c4-play");
    let d = dir.to_str().unwrap();
    let from = "2252576253462244111563365343671351441";
    let args = ["play", "connect4", "--size", "7x6", "--dir", d, "--side", "second", "--seed", "3"];
    let out = tablebase(&[&args[..], &["--from", from]].concat(), "6\n7\n6\n7\n6\n7\n");
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success(), "{text}{}", String::from_utf8_lossy(&out.stderr));
    assert!(text.contains("The perfect player wins (X)"), "{text}");
    let out = tablebase(&[&args[..], &["--max-time", "0.2"]].concat(), "4\n");
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("X plays ") && text.contains("not settled within the time limit (--max-time S"),
        "{text}"
    );
}

/// An opening book holds the same files as full tables for its plies: a 5x4 book of plies 0 to
/// 8 (ply 8 solved by search) is byte for byte the full tables' plies 0 to 8. Its directory is
/// read as a book, not as full tables with plies missing: probe answers later positions by
/// search, as the full tables do, and info and verify cover plies 0 to 8.
#[test]
fn a_book_is_the_full_tables_first_plies() {
    let base = common::scratch("c4-book");
    let (full, book) = (base.join("full"), base.join("book"));
    let (f, b) = (full.to_str().unwrap(), book.to_str().unwrap());
    assert!(tablebase(&["generate", "connect4", "--size", "5x4", "--dir", f], "").status.success());
    let made = tablebase(&["generate", "connect4", "--size", "5x4", "--book-plies", "8", "--dir", b], "");
    assert!(made.status.success(), "{}", String::from_utf8_lossy(&made.stderr));
    let mut names: Vec<String> = std::fs::read_dir(&book)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|name| name != ".generate.lock")
        .collect();
    names.sort();
    assert_eq!(names.len(), 18, "{names:?}");
    for name in &names {
        assert!(name.as_str() <= "connect4-5x4-ply08.tbl", "{name}");
        assert_eq!(
            std::fs::read(book.join(name)).unwrap(),
            std::fs::read(full.join(name)).unwrap(),
            "{name}"
        );
    }
    let past_the_book = "123451234\n135135242\n1234512345\n2121343455\n531531424\n313131525\n";
    let probe = |dir: &str| {
        tablebase(&["probe", "connect4", "--size", "5x4", "--brief", "--dir", dir, "-"], past_the_book)
    };
    let (from_full, from_book) = (probe(f), probe(b));
    assert!(from_book.status.success(), "{}", String::from_utf8_lossy(&from_book.stderr));
    assert_eq!(String::from_utf8(from_book.stdout).unwrap(), String::from_utf8(from_full.stdout).unwrap());
    let verified = tablebase(&["verify", "connect4", "--size", "5x4", "--json", "--dir", b], "");
    assert_eq!(verified.status.code(), Some(0), "{}", String::from_utf8_lossy(&verified.stderr));
    let report = String::from_utf8(verified.stdout).unwrap();
    assert_eq!(report.lines().count(), 9, "{report}");
    assert!(report.lines().all(|l| l.contains(r#""consistent": true"#)), "{report}");
    assert!(report.lines().last().unwrap().contains(r#""table": "ply 8""#), "{report}");
    let info = tablebase(&["info", "connect4", "--size", "5x4", "--json", "--dir", b], "");
    let info = String::from_utf8(info.stdout).unwrap();
    assert_eq!(info.lines().count(), 9, "{info}");
    assert!(info.lines().all(|l| l.contains(r#""status": "complete""#)), "{info}");
    // A stray set cut short after the book's last ply (a copy interrupted) hides no book: it is
    // still read as one, and answered past its plies by search.
    std::fs::write(book.join("connect4-5x4-ply09.set.tmp"), b"").unwrap();
    let info = tablebase(&["info", "connect4", "--size", "5x4", "--json", "--dir", b], "");
    assert_eq!(String::from_utf8(info.stdout).unwrap().lines().count(), 9);
    assert_eq!(String::from_utf8(probe(b).stdout).unwrap(), String::from_utf8(probe(f).stdout).unwrap());
    std::fs::remove_file(book.join("connect4-5x4-ply09.set.tmp")).unwrap();
    let too_many =
        tablebase(&["generate", "connect4", "--size", "5x4", "--book-plies", "21", "--dir", b], "");
    assert_eq!(too_many.status.code(), Some(2));
    std::fs::remove_dir_all(&base).unwrap();
}

/// Look before you leap: a board whose tables cannot fit this machine is refused at once with
/// what it needs and what there is, and nothing is written.
#[test]
fn boards_too_large_for_the_machine_are_refused_before_any_work() {
    let dir = common::scratch("c4-too-large");
    let d = dir.to_str().unwrap();
    for size in ["7x6", "8x7"] {
        let out = tablebase(&["generate", "connect4", "--size", size, "--dir", d], "");
        assert_eq!(out.status.code(), Some(1), "{size}");
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert!(stderr.contains(&format!("connect4 {size} does not fit this machine: it needs")), "{stderr}");
        assert!(stderr.contains("GB free") && stderr.contains("GB available"), "{stderr}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
    }
    let written: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(written, [".generate.lock"], "no table file");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Boards of up to 36 cells (6x6, 7x5, 8x4) are tabulated whole: a directory of theirs is read
/// as full tables, also half-way through a build's forward pass (sets only), not as an opening
/// book; the 7x6 board is read only as a book.
#[test]
fn boards_of_up_to_36_cells_are_read_as_full_tables() {
    let dir = common::scratch("c4-36-cells");
    let d = dir.to_str().unwrap();
    for size in ["6x6", "7x5", "8x4"] {
        let first = |out: &Output| {
            assert!(out.status.success(), "{size}: {}", String::from_utf8_lossy(&out.stderr));
            String::from_utf8(out.stdout.clone()).unwrap().lines().next().unwrap().to_string()
        };
        let title = first(&tablebase(&["info", "connect4", "--size", size, "--dir", d], ""));
        assert_eq!(title, format!("Connect Four {size}: one table per ply (stones on the board)"));
        // A build stopped in its forward pass: the first plies' sets, no table.
        for ply in 0..3 {
            std::fs::write(dir.join(format!("connect4-{size}-ply{ply:02}.set")), b"").unwrap();
        }
        let line = first(&tablebase(&["info", "connect4", "--size", size, "--json", "--dir", d], ""));
        assert!(
            line.starts_with(&format!(
                r#"{{"game": "connect4", "settings": {{"size": "{size}"}}, "table": "ply 0""#
            )),
            "{line}"
        );
    }
    let out = tablebase(&["info", "connect4", "--size", "7x6", "--dir", d], "");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no opening book of the 7x6 board"));
    std::fs::remove_dir_all(&dir).unwrap();
}
