//! Connect Four tables on small boards: totals, the empty board's value and end ply equal the
//! reference, and every value is consistent with the next ply's.

use crate::common;

use common::scratch;

use std::fs;
use tablebase::games::connect4::{Connect4, Geometry};
use tablebase::layered::SolvedLayer;
use tablebase::table::{Check, TableError};
use tablebase::testing::connect4::connect4_board;
use tablebase::{Progress, Value};

fn generate(dir: &std::path::Path, g: Geometry) {
    tablebase::generate(&Connect4::tables(g), dir, &tablebase::GenerateOptions::default()).unwrap();
}

/// Ply `ply` of board `g`, opened with `check`.
fn open_ply(dir: &std::path::Path, g: Geometry, ply: u32, check: Check) -> Result<SolvedLayer, TableError> {
    Connect4::tables(g).open_layer(dir, ply, |_| check)
}

/// The stored value of a position, `None` when it is not in its ply's set.
fn stored(ply: &SolvedLayer, g: Geometry, p: &tablebase::games::connect4::Position) -> Option<Value> {
    let index = Connect4::new(g).ply(p.ply).canonical_index(p);
    ply.value_at(index).unwrap()
}

/// Generates board `width`x`height`, verifies it against the reference and its own successors;
/// the directory, removed when dropped.
fn check_board(width: u32, height: u32) -> common::Scratch {
    let g = Geometry::new(width, height).unwrap();
    let dir = scratch(&g.to_string());
    generate(&dir, g);
    let checks = common::verified(&Connect4::tables(g), &dir, false);
    assert_eq!(checks.len() as u32, g.cells() + 1);
    let mut total = 0;
    for check in &checks {
        assert!(check.checksum_ok, "{g} {}", check.table);
        assert_eq!(check.consistent, Some(true), "{g} {}", check.table);
        assert_ne!(check.reference_match, Some(false), "{g} {}", check.table);
        total += check.counts.positions();
    }
    let (positions, value, end_ply) = connect4_board(width, height).unwrap();
    assert_eq!(Some(total), positions, "{g}: reachable positions");
    let empty = open_ply(&dir, g, 0, Check::Checksum).unwrap();
    let v = stored(&empty, g, &tablebase::games::connect4::Position::EMPTY).unwrap();
    let expected = match value {
        "first" => Value::Win(end_ply.unwrap()),
        "second" => Value::Loss(end_ply.unwrap()),
        _ => Value::Draw,
    };
    assert_eq!(v, expected, "{g}: the empty board");
    dir
}

#[test]
fn board_4x4() {
    check_board(4, 4);
}

#[test]
fn board_5x4() {
    check_board(5, 4);
}

#[test]
fn board_4x5() {
    check_board(4, 5);
}

#[test]
fn board_5x5() {
    check_board(5, 5);
}

/// And the search solver agrees with four of its plies (here, where the tables are made): every
/// position of ply 5 (1,125 up to mirror images), and at most 100,000 spread evenly over each
/// larger one (0.4 to 6 million).
#[test]
fn board_6x4() {
    let g = Geometry::new(6, 4).unwrap();
    let dir = check_board(6, 4);
    let mut searcher = tablebase::testing::connect4::Searcher::new(g, 1 << 20);
    for (ply, compared) in [(5, 1125), (11, 92_474), (17, 98_393), (22, 99_341)] {
        assert_eq!(
            common::search_agrees_with_ply(&dir, g, ply, &mut searcher, 100_000),
            compared,
            "{g} ply {ply}"
        );
    }
}

/// Every `.set` and `.tbl` file of a directory with its bytes, by name.
fn files(dir: &std::path::Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| !p.file_name().unwrap().to_string_lossy().starts_with('.')) // the generate lock
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), fs::read(&p).unwrap()))
        .collect();
    files.sort();
    files
}

/// Generation stopped at any layer, forward or backward, and started again, gives the same bytes;
/// files of the old index (format version 1) are rebuilt, never read.
#[test]
fn interrupted_generation_resumes_to_identical_files() {
    let g = Geometry::new(5, 4).unwrap();
    let reference = scratch("resume-reference");
    generate(&reference, g);
    let expected = files(&reference);
    assert_eq!(expected.len(), 2 * 21);
    common::assert_pinned(&reference, "connect4-5x4-");
    let copy = |dir: &std::path::Path, keep: &dyn Fn(&str) -> bool| {
        fs::create_dir_all(dir).unwrap();
        for (name, bytes) in &expected {
            if keep(name) {
                fs::write(dir.join(name), bytes).unwrap();
            }
        }
    };
    let ply_of = |name: &str| name[name.find("ply").unwrap() + 3..][..2].parse::<u32>().unwrap();

    // Stopped in the forward pass after ply 7's set, with ply 8's half written.
    let forward = scratch("resume-forward");
    copy(&forward, &|name| name.ends_with(".set") && ply_of(name) <= 7);
    fs::write(forward.join("connect4-5x4-ply08.set.tmp"), b"half a set").unwrap();
    generate(&forward, g);
    assert!(files(&forward) == expected, "resumed forward pass differs");

    // Stopped in the backward pass after ply 12's table, with ply 11's half written.
    let backward = scratch("resume-backward");
    copy(&backward, &|name| name.ends_with(".set") || ply_of(name) >= 12);
    fs::write(backward.join("connect4-5x4-ply11.tbl.tmp"), b"half a table").unwrap();
    generate(&backward, g);
    assert!(files(&backward) == expected, "resumed backward pass differs");

    // A table and a set written with the old index (version 1 in the header) are refused by
    // readers, set aside by generate and rebuilt.
    let old = scratch("resume-old-version");
    copy(&old, &|_| true);
    for name in ["connect4-5x4-ply09.tbl", "connect4-5x4-ply15.set"] {
        let mut bytes = common::as_version_2(&fs::read(old.join(name)).unwrap());
        bytes[8..12].copy_from_slice(&1u32.to_le_bytes());
        fs::write(old.join(name), bytes).unwrap();
    }
    for ply in [9, 15] {
        let error = open_ply(&old, g, ply, Check::Header).expect_err("an old file is refused");
        assert!(matches!(error, TableError::IndexChanged { found: 1, .. }), "{error}");
    }
    generate(&old, g);
    let (aside, rebuilt): (Vec<_>, Vec<_>) =
        files(&old).into_iter().partition(|(name, _)| name.contains(".damaged"));
    assert!(rebuilt == expected, "rebuilt old files differ");
    let aside: Vec<&str> = aside.iter().map(|(name, _)| name.as_str()).collect();
    assert_eq!(aside, ["connect4-5x4-ply09.tbl.damaged", "connect4-5x4-ply15.set.damaged"]);

    // Files of format version 2 (the same data without block checksums) are upgraded in place
    // to the same bytes, without solving anything again.
    let upgraded = scratch("upgrade-version-2");
    copy(&upgraded, &|_| true);
    for (name, bytes) in files(&upgraded) {
        fs::write(upgraded.join(name), common::as_version_2(&bytes)).unwrap();
    }
    let error = open_ply(&upgraded, g, 3, Check::Header).expect_err("a version-2 file is not read");
    assert!(matches!(error, TableError::NeedsUpgrade { found: 2, .. }), "{error}");
    let out = common::tablebase_with_input(
        env!("CARGO_BIN_EXE_tablebase"),
        &["generate", "connect4", "--size", "5x4", "--dir", upgraded.to_str().unwrap()],
        "",
    );
    assert!(out.status.success());
    let log = String::from_utf8(out.stderr).unwrap();
    assert_eq!(log.matches("upgraded from format version 2 to 3").count(), 2 * 21, "{log}");
    assert!(!log.contains("solved"), "nothing is solved again: {log}");
    assert!(files(&upgraded) == expected, "upgraded files differ from generated ones");
    fs::remove_dir_all(upgraded).unwrap();

    for dir in [reference, forward, backward, old] {
        fs::remove_dir_all(dir).unwrap();
    }
}

/// The value of every reachable position, by a plain memoised minimax over the rules (nothing of
/// the index, the solver or the tables), as a score: `1000 - n` for a win in `n` plies,
/// `n - 1000` for a loss in `n`, 0 for a draw.
fn minimax(
    g: &Geometry,
    p: tablebase::games::connect4::Position,
    memo: &mut std::collections::HashMap<(u64, u64), i32>,
) -> i32 {
    if let Some(&score) = memo.get(&(p.current, p.mask)) {
        return score;
    }
    let score = if p.is_won_by_previous(g) {
        -1000
    } else if p.ply == g.cells() {
        0
    } else {
        let mut best = i32::MIN;
        for column in 0..g.width {
            if p.can_play(g, column) {
                let child = minimax(g, p.play(g, column), memo);
                // One ply further from the end, seen from the other side.
                best = best.max(-child + child.signum());
            }
        }
        best
    };
    memo.insert((p.current, p.mask), score);
    score
}

#[test]
fn every_value_equals_a_plain_minimax() {
    for (w, h) in [(4, 4), (5, 4)] {
        let g = Geometry::new(w, h).unwrap();
        let dir = scratch(&format!("minimax-{g}"));
        generate(&dir, g);
        let mut memo = std::collections::HashMap::new();
        minimax(&g, tablebase::games::connect4::Position::EMPTY, &mut memo);
        let (positions, _, _) = connect4_board(w, h).unwrap();
        assert_eq!(Some(memo.len() as u64), positions, "{g}: minimax reaches every position");
        let plies: Vec<SolvedLayer> =
            (0..=g.cells()).map(|ply| open_ply(&dir, g, ply, Check::Header).unwrap()).collect();
        for (&(current, mask), &score) in &memo {
            let p = tablebase::games::connect4::Position { current, mask, ply: mask.count_ones() };
            let stored = match stored(&plies[p.ply as usize], g, &p).expect("reachable positions are stored")
            {
                Value::Win(n) => 1000 - n as i32,
                Value::Loss(n) => n as i32 - 1000,
                Value::Draw => 0,
                Value::WinUnknown | Value::LossUnknown => panic!("{g}: {p:?} stored without its distance"),
            };
            assert_eq!(stored, score, "{g}: {p:?}");
        }
        fs::remove_dir_all(&dir).unwrap();
    }
}

/// A set with a valid checksum that holds one unreachable position in place of a reachable one
/// (the same number of members, so its table still opens): `verify` finds it by the forward
/// pass and says which positions.
#[test]
fn verify_recomputes_the_sets() {
    use tablebase::catalogue::TableOutcome;
    use tablebase::table::{SetFile, Words};
    use tablebase::testing::BitSet;
    use tablebase::testing::write_set;
    let g = Geometry::new(4, 4).unwrap();
    let dir = scratch("set-moved");
    generate(&dir, g);
    let catalogue = Connect4::tables(g);
    let spec = catalogue.set_spec(&dir, 6);
    let set = SetFile::open(&spec, Check::Checksum).unwrap();
    let moved = BitSet::new(set.capacity());
    (0..set.capacity()).filter(|&i| set.rank(i).unwrap().is_some()).skip(1).for_each(|i| moved.insert(i));
    let outsider = (0..set.capacity()).find(|&i| set.rank(i).unwrap().is_none()).unwrap();
    moved.insert(outsider);
    assert_eq!(moved.len(), set.len());
    assert_eq!(moved.word_count(), set.words().unwrap().word_count());
    drop(set);
    write_set(&spec, moved.capacity(), &moved).unwrap();
    let mut outcomes = Vec::new();
    tablebase::verify(&catalogue, &dir, false, None, &Progress::hidden(), |outcome| {
        outcomes.push(outcome);
        Ok::<(), ()>(())
    })
    .unwrap();
    for outcome in &outcomes {
        let TableOutcome::Checked(report) = outcome else { panic!("{outcome:?}") };
        assert!(report.checksum_ok, "{}", report.table);
        if report.table == "ply 6" {
            assert_eq!(report.consistent, Some(false));
            assert!(report.failed());
            assert!(
                report
                    .problems
                    .iter()
                    .any(|p| p.contains("2 positions of the set differ from the forward pass")),
                "{:?}",
                report.problems
            );
            // A set written again with valid checksums is still not the published file.
            assert_eq!(report.published, Some(false));
            assert!(
                report.problems.iter().any(|p| p.contains("not reachable, in the set")),
                "{:?}",
                report.problems
            );
            assert!(
                report.problems.iter().any(|p| p.contains("reachable, missing from the set")),
                "{:?}",
                report.problems
            );
        }
    }
    assert!(outcomes.iter().any(|o| o.failed()));
    fs::remove_dir_all(&dir).unwrap();
}

/// The batch reader (`probe --brief -`) answers each position as a probe of it alone does, on
/// raw and compressed tables: positions in play at every ply, finished games, and a ply whose
/// files are missing (an error for each of its positions, not for the others).
#[test]
fn a_batch_of_probes_answers_each_as_one_probe_does() {
    use tablebase::Probe;
    use tablebase::catalogue::Storage;
    let g = Geometry::new(5, 4).unwrap();
    for storage in [Storage::Raw, Storage::Compressed] {
        let dir = scratch(&format!("{g}-batch"));
        tablebase::generate(
            &Connect4::tables(g),
            &dir,
            &tablebase::GenerateOptions { storage, ..tablebase::GenerateOptions::default() },
        )
        .unwrap();
        let set_packed = open_ply(&dir, g, 12, Check::Header).unwrap().set.is_packed();
        assert_eq!(set_packed, matches!(storage, Storage::Compressed));
        let tb = tablebase::Connect4Tablebase::open(&dir, g);
        // Random games, every prefix of each: in play, and finished by four or a full board.
        let mut games = Vec::new();
        let mut state = 7u64;
        for _ in 0..400 {
            let mut line = String::new();
            loop {
                games.push(tb.parse(&line).unwrap());
                state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                let open: Vec<u32> =
                    (1..=g.width).filter(|c| tb.parse(&format!("{line}{c}")).is_ok()).collect();
                let Some(&column) = open.get((state >> 33) as usize % open.len().max(1)) else { break };
                line.push_str(&column.to_string());
            }
        }
        assert!(games.len() > 4000, "{} positions", games.len());
        let one_by_one = |tb: &tablebase::Connect4Tablebase| -> Vec<String> {
            games.iter().map(|game| format!("{:?}", tb.value(game))).collect()
        };
        let batch = |tb: &tablebase::Connect4Tablebase| -> Vec<String> {
            tb.values(&games).iter().map(|v| format!("{v:?}")).collect()
        };
        let expected = one_by_one(&tb);
        assert!(expected.iter().all(|v| v.starts_with("Ok(")), "{storage:?}: every ply generated");
        assert!(expected.iter().any(|v| v == "Ok(Loss(0))"), "finished games among them");
        assert_eq!(batch(&tb), expected, "{storage:?}");
        // Ply 9's files gone: its positions are errors, the others' values unchanged.
        fs::remove_file(dir.join("connect4-5x4-ply09.tbl")).unwrap();
        let tb = tablebase::Connect4Tablebase::open(&dir, g);
        let expected = one_by_one(&tb);
        let missing = expected.iter().filter(|v| v.starts_with("Err(NotGenerated")).count();
        assert!(missing > 100, "{storage:?}: {missing} positions of ply 9");
        assert_eq!(batch(&tb), expected, "{storage:?}, ply 9 missing");
        fs::remove_dir_all(&dir).unwrap();
    }
}
