//! Damage on purpose, as a hostile user would: bytes flipped at random offsets of every kind of
//! file (header, values, set words and rank directory, block checksums), files truncated and
//! extended. After each: `probe` (a batch and single positions) never panics and never answers
//! a value other than the undamaged tables' (an error line instead); `verify` exits 3;
//! `generate` sets the file aside and rebuilds it: every file is then byte for byte the
//! undamaged tables' (which pass a whole `verify`), and `verify --quick` passes again.

use crate::common;

use common::scratch;

use std::fs;
use std::path::Path;
use std::process::Output;
use tablebase::games::morris::{
    Lasker, Morabaraba, MorrisVariant, Position, PositionText, Standard, for_each_move,
};
use tablebase::testing::SplitMix64;

fn tablebase(args: &[&str], stdin: &str) -> Output {
    common::tablebase_with_input(env!("CARGO_BIN_EXE_tablebase"), args, stdin)
}

/// Positions met in random games of the 3-stone game of a Morris variant, placement and
/// moving phase.
fn morris_positions<V: MorrisVariant>(rng: &mut SplitMix64, count: usize) -> String {
    let mut lines = String::new();
    let mut n = 0;
    while n < count {
        let mut position = Position::start(3);
        for _ in 0..40 {
            lines.push_str(&format!("{}\n", PositionText(&position)));
            n += 1;
            let mut next = Vec::new();
            for_each_move::<V>(&position, |_, child| next.push(child));
            if next.is_empty() || position.material(position.to_move) < 3 {
                break;
            }
            position = next[rng.below(next.len() as u64) as usize];
        }
    }
    lines
}

/// Random move strings on a 4x4 board (some illegal: those are errors either way).
fn connect4_positions(rng: &mut SplitMix64, count: usize) -> String {
    (0..count)
        .map(|_| {
            let len = rng.below(17) as usize;
            let moves: String = (0..len).map(|_| char::from(b'1' + rng.below(4) as u8)).collect();
            format!("{moves}\n")
        })
        .collect()
}

/// Every table and set file of `dir`, by name.
fn table_files(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".tbl") || n.ends_with(".set"))
        .collect();
    names.sort();
    names
}

/// The command line for one game: what to generate, probe and verify.
struct Game {
    args: Vec<&'static str>,
    positions: String,
}

impl Game {
    fn run(&self, command: &str, dir: &Path, extra: &[&str], stdin: &str) -> Output {
        let mut args = vec![command];
        args.extend(&self.args);
        args.extend(["--dir", dir.to_str().unwrap()]);
        args.extend(extra);
        tablebase(&args, stdin)
    }
}

/// Whether a run ended by itself with one of the documented exit codes (no panic: 101; no
/// signal such as SIGBUS: no code).
fn clean_exit(out: &Output, allowed: &[i32], what: &str) {
    assert!(
        out.status.code().is_some_and(|c| allowed.contains(&c)),
        "{what}: {:?}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Damages `name` in a copy of `pristine` with `damage`, then probes and verifies; with
/// `repair`, also regenerates it and compares every file with the pristine one.
fn damage_and_check(
    game: &Game,
    pristine: &Path,
    answers: &[String],
    name: &str,
    how: &str,
    repair: bool,
    damage: impl Fn(&mut Vec<u8>),
) {
    let dir = scratch(&format!("{}-case", game.args[0]));
    fs::create_dir_all(&dir).unwrap();
    for file in table_files(pristine) {
        fs::copy(pristine.join(&file), dir.join(&file)).unwrap();
    }
    let mut bytes = fs::read(dir.join(name)).unwrap();
    damage(&mut bytes);
    fs::write(dir.join(name), &bytes).unwrap();
    let what = format!("{name} {how}");

    // A batch: one line per question, each the undamaged answer or an error.
    let batch = game.run("probe", &dir, &["--brief", "-"], &game.positions);
    clean_exit(&batch, &[0, 1, 2], &what);
    let got: Vec<&str> = std::str::from_utf8(&batch.stdout).unwrap().lines().collect();
    assert_eq!(got.len(), answers.len(), "{what}: a line per input line");
    for ((line, expected), question) in got.iter().zip(answers).zip(game.positions.lines()) {
        if line != expected {
            assert!(line.starts_with("error\t"), "{what}: '{question}' answered {line}, truly {expected}");
        }
    }
    // Positions with their moves, the first few (one run): an answer or an error for each.
    let mut questions = vec!["--json"];
    questions.extend(game.positions.lines().take(3));
    clean_exit(&game.run("probe", &dir, &questions, ""), &[0, 1, 2], &what);
    let verify = game.run("verify", &dir, &["--quick"], "");
    clean_exit(&verify, &[3], &format!("{what}: verify --quick finds it"));
    // The counts of a file that fails its checksums are not compared with the reference: the
    // damage is the one fault to report.
    let said = String::from_utf8_lossy(&verify.stderr);
    assert!(!said.contains("counts differ from the reference"), "{what}: {said}");
    if !repair {
        fs::remove_dir_all(&dir).unwrap();
        return;
    }
    let repaired = game.run("generate", &dir, &[], "");
    clean_exit(&repaired, &[0], &format!("{what}: generate repairs"));
    assert!(String::from_utf8_lossy(&repaired.stderr).contains("set aside"), "{what}");
    assert!(dir.join(format!("{name}.damaged")).exists(), "{what}: kept aside");
    // Every table and set as the undamaged run made it (verified in full there), and sound.
    for file in table_files(pristine) {
        let same = fs::read(dir.join(&file)).unwrap() == fs::read(pristine.join(&file)).unwrap();
        assert!(same, "{what}: {file} rebuilt");
    }
    assert_eq!(table_files(&dir), table_files(pristine), "{what}: the same files");
    let verify = game.run("verify", &dir, &["--quick"], "");
    clean_exit(&verify, &[0], &format!("{what}: verify after the repair"));
    fs::remove_dir_all(&dir).unwrap();
}

fn hostile_damage(game: Game, name: &str, files_per_kind: &[&str], seed: u64) {
    let pristine = scratch(name);
    let made = game.run("generate", &pristine, &[], "");
    clean_exit(&made, &[0], "generate");
    clean_exit(&game.run("verify", &pristine, &[], ""), &[0], "verify");
    let answers: Vec<String> = {
        let out = game.run("probe", &pristine, &["--brief", "-"], &game.positions);
        String::from_utf8(out.stdout).unwrap().lines().map(String::from).collect()
    };
    assert!(answers.iter().filter(|a| !a.starts_with("error")).count() > 500, "enough real answers");
    let mut rng = SplitMix64::new(seed);
    for file in files_per_kind {
        let size = fs::metadata(pristine.join(file)).unwrap().len() as usize;
        let data_end = {
            let bytes = fs::read(pristine.join(file)).unwrap();
            256 + common::data_len(&bytes)
        };
        // Offsets in each region: header, data (values, words, directory), block checksums.
        // Every case is probed and verified; the repair (a generate, the bulk of the time) is
        // tried on one case of each region, the truncated and the extended file.
        let mut offsets =
            vec![8, 64, 88, 112, 120, 128, 136, 144, 252, 256, data_end - 1, data_end, size - 1];
        offsets.extend((0..4).map(|_| 256 + rng.below((data_end - 256) as u64) as usize));
        let repaired = [8, 256, data_end];
        for offset in offsets {
            let flip = 1 + rng.below(255) as u8;
            let how = format!("byte {offset} ^ {flip}");
            let repair = repaired.contains(&offset);
            damage_and_check(&game, &pristine, &answers, file, &how, repair, |bytes| bytes[offset] ^= flip);
        }
        damage_and_check(&game, &pristine, &answers, file, "truncated", true, |bytes| {
            bytes.truncate(size - 5)
        });
        damage_and_check(&game, &pristine, &answers, file, "extended", true, |bytes| bytes.extend([0; 7]));
    }
    fs::remove_dir_all(&pristine).unwrap();
}

#[test]
fn morris_tables_and_sets_damaged_at_random() {
    let mut rng = SplitMix64::new(7);
    let game = Game {
        args: vec!["morris", "--stones", "3"],
        positions: morris_positions::<Standard>(&mut rng, 3000),
    };
    let files = [
        "morris-3-3.tbl",
        "morris-opening3-ply03.set",
        "morris-opening3-ply05.set",
        "morris-opening3-ply04.tbl",
    ];
    hostile_damage(game, "morris", &files, 11);
}

#[test]
fn morabaraba_tables_and_sets_damaged_at_random() {
    let mut rng = SplitMix64::new(9);
    let game = Game {
        args: vec!["morabaraba", "--stones", "3"],
        positions: morris_positions::<Morabaraba>(&mut rng, 3000),
    };
    // A class table, whose header names the game: sets and opening tables are read by the same
    // code as the standard game's, damaged above.
    let files = ["morabaraba-3-3.tbl"];
    hostile_damage(game, "morabaraba", &files, 13);
}

#[test]
fn lasker_sectors_damaged_at_random() {
    let mut rng = SplitMix64::new(10);
    let game =
        Game { args: vec!["lasker", "--stones", "3"], positions: morris_positions::<Lasker>(&mut rng, 3000) };
    // A sector with stones in hand, whose header names it: the sectors without are the
    // standard game's class files, damaged above.
    let files = ["lasker-2-3-hands-1-0.tbl"];
    hostile_damage(game, "lasker", &files, 17);
}

#[test]
fn connect4_tables_and_sets_damaged_at_random() {
    let mut rng = SplitMix64::new(8);
    let game =
        Game { args: vec!["connect4", "--size", "4x4"], positions: connect4_positions(&mut rng, 3000) };
    let files = ["connect4-4x4-ply09.set", "connect4-4x4-ply10.tbl"];
    hostile_damage(game, "connect4", &files, 12);
}
