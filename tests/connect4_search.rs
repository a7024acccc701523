//! The search solver against the tables: on boards small enough to tabulate, it gives every
//! position of a ply the value and distance stored in that ply's table.

use crate::common;

use tablebase::Progress;
use tablebase::catalogue::Storage;
use tablebase::games::connect4::{Connect4, Geometry};
use tablebase::testing::connect4::Searcher;

#[test]
fn search_agrees_with_the_5x4_tables() {
    // 6x4's plies are compared (at most 100,000 positions of each) where its tables are made
    // once for the test that checks them (connect4_solve.rs, `board_6x4`).
    let dir = common::scratch("c4-search");
    let g = Geometry::new(5, 4).unwrap();
    tablebase::generate(&Connect4::tables(g), &dir, &tablebase::GenerateOptions::default()).unwrap();
    let mut searcher = Searcher::new(g, 1 << 20);
    for ply in [0, 1, 2, 3, 4, 5, 6, 9, 12, 15, 18] {
        let compared = common::search_agrees_with_ply(&dir, g, ply, &mut searcher, u64::MAX);
        assert!(compared > 0, "{g} ply {ply}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A fresh 5x4 opening book of plies 0 to 8 (ply 8 searched) in a new directory named `name`.
fn book_5x4(name: &str) -> (common::Scratch, tablebase::layered::Layered<Connect4>) {
    let dir = common::scratch(&format!("c4-{name}"));
    let book = Connect4::book(Geometry::new(5, 4).unwrap(), 8);
    // Raw: the tests change a value's byte in place.
    tablebase::generate(
        &book,
        &dir,
        &tablebase::GenerateOptions { storage: Storage::Raw, ..tablebase::GenerateOptions::default() },
    )
    .unwrap();
    (dir, book)
}

/// Claims a win in 7 for the first win in 5 of the book's ply 8 at entry `from` or later (a
/// value's byte is its distance plus one), under valid checksums; returns that entry and the
/// table's number of entries.
fn claim_a_slower_win(dir: &std::path::Path, from: usize) -> (usize, u64) {
    let table = dir.join("connect4-5x4-ply08.tbl");
    let mut bytes = std::fs::read(&table).unwrap();
    let entries = u64::from_le_bytes(bytes[64..72].try_into().unwrap());
    let victim = from + bytes[256 + from..].iter().position(|&b| b == 6).unwrap();
    bytes[256 + victim] = 8;
    common::reseal(&mut bytes);
    std::fs::write(&table, &bytes).unwrap();
    (victim, entries)
}

/// `verify` of an opening book proves each stored value of its searched last ply (two searches
/// around the stored score), and finds a wrong one under valid checksums, with the position's
/// real value.
#[test]
fn verify_proves_a_books_searched_ply_and_finds_a_wrong_value() {
    let (dir, book) = book_5x4("book-verify");
    let reports = common::verified(&book, &dir, false);
    assert_eq!(reports.len(), 9);
    assert!(reports.iter().all(|r| r.consistent == Some(true)), "{reports:?}");

    claim_a_slower_win(&dir, 0);
    let reports = common::verified(&book, &dir, false);
    let last = &reports[8];
    assert_eq!(last.consistent, Some(false));
    assert!(
        last.problems.iter().any(|p| p.contains("stored win 7 but its moves give win 5")),
        "{:?}",
        last.problems
    );
    assert!(reports[..8].iter().all(|r| r.consistent.is_some()));
    assert!(common::verified(&book, &dir, true).iter().all(|r| r.consistent.is_none()));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `verify --resume` checks a book's searched ply in parts of `PART_LEN` entries and records
/// each part found consistent, so that a verify cut short goes on from them: a part with a
/// wrong value is not recorded, and a part the journal holds is not searched again.
#[test]
fn verify_resume_goes_on_from_the_parts_of_a_searched_ply() {
    use tablebase::catalogue::{JOURNAL_NAME, Journal, TableOutcome};
    use tablebase::testing::PART_LEN;
    let (dir, book) = book_5x4("book-parts");
    let verify = || {
        let mut journal = Journal::open(&book, &dir).unwrap();
        let mut last = None;
        tablebase::verify(&book, &dir, false, Some(&mut journal), &Progress::hidden(), |outcome| {
            match outcome {
                TableOutcome::Checked(report) => last = Some(report),
                other => return Err(format!("{other:?}")),
            }
            Ok(())
        })
        .unwrap();
        let last = last.unwrap();
        assert_eq!(last.table, "ply 8");
        (last.consistent, std::fs::read_to_string(dir.join(JOURNAL_NAME)).unwrap())
    };

    // A wrong value in a part after the first.
    let (victim, entries) = claim_a_slower_win(&dir, PART_LEN as usize);
    let parts = entries.div_ceil(PART_LEN);
    assert!(parts >= 3, "{entries} entries");
    let victim_part = victim as u64 / PART_LEN;

    // Plies 0 to 7 are recorded whole (but ply 7 if the wrong value is one it reads as a best
    // move), ply 8 part by part, all but the wrong part.
    let (consistent, lines) = verify();
    assert_eq!(consistent, Some(false));
    let mut recorded: Vec<u64> = lines
        .lines()
        .filter_map(|l| l.rsplit_once("\tply 8 part ").map(|(_, part)| part.parse().unwrap()))
        .collect();
    recorded.sort(); // recorded by the threads as they finish
    assert_eq!(recorded, (0..parts).filter(|&p| p != victim_part).collect::<Vec<_>>());
    assert!(!lines.lines().any(|l| l.ends_with("\tply 8")));

    // Again over the same files: only the wrong part is searched, found wrong again, and
    // nothing new is recorded.
    let (consistent, again) = verify();
    assert_eq!(consistent, Some(false));
    assert_eq!(again, lines);

    // A line that vouches for the wrong part, as a verify of other bytes could have left: the
    // journal is trusted, so ply 8 now passes, and is recorded whole. (What keeps such a line
    // from lying is the fingerprint of the files in every line.)
    let scope = lines.lines().next().unwrap().rsplit_once('\t').unwrap().0.to_string();
    std::fs::write(dir.join(JOURNAL_NAME), format!("{lines}{scope}\tply 8 part {victim_part}\n")).unwrap();
    let (consistent, lines) = verify();
    assert_eq!(consistent, Some(true));
    assert!(lines.lines().last().unwrap().ends_with("\tply 8"));
    std::fs::remove_dir_all(&dir).unwrap();
}
