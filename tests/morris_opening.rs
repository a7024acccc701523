//! The placement phase: every position reachable from the start of the K-stone game has the
//! value and distance of a plain memoised minimax over placements (nothing of the placement
//! index, the sets or the layered solver), which looks up the moving-phase tables once every
//! stone is placed. The number of positions per layer, up to symmetry, is counted the same way.

use crate::common;

use common::scratch;

use std::collections::HashMap;
use std::path::Path;
use tablebase::games::morris::Standard;
use tablebase::games::morris::{
    Color, MorrisTablebase, MovingPhase, Opening, Position, canonical, for_each_move,
};
use tablebase::layered::LayeredGame;
use tablebase::{Probe, Value};

fn generate(dir: &Path, stones: u32) {
    tablebase::generate(
        &MovingPhase::<Standard>::for_stones(stones),
        dir,
        &tablebase::GenerateOptions::default(),
    )
    .unwrap();
    let opening =
        Opening::<Standard>::new(stones).with_classes(dir, tablebase::table::Check::Checksum).unwrap();
    tablebase::generate(&tablebase::Layered::new(opening), dir, &tablebase::GenerateOptions::default())
        .unwrap();
}

/// A position up to the 16 symmetries: hands, side to move and the canonical stones.
type Key = ([u8; 2], Color, (u32, u32));

fn key(p: &Position) -> Key {
    let (mover, other) = canonical(p.mover_stones(), p.other_stones());
    (p.hand, p.to_move, (mover, other))
}

/// The plain minimax: the best of what the moves give, `loss 0` without moves, the moving
/// phase read from its tables.
fn minimax(p: &Position, moving: &MorrisTablebase, memo: &mut HashMap<Key, Value>) -> Value {
    if p.material(p.to_move) < 3 {
        return Value::Loss(0);
    }
    if p.is_moving_phase() {
        return moving.value(p).unwrap();
    }
    if let Some(&v) = memo.get(&key(p)) {
        return v;
    }
    let mut children = Vec::new();
    for_each_move::<Standard>(p, |_, next| children.push(next));
    let value = tablebase::best_of(children.iter().map(|c| minimax(c, moving, memo).for_mover()));
    memo.insert(key(p), value);
    value
}

fn check_game(stones: u32) {
    let dir = scratch(&format!("k{stones}"));
    generate(&dir, stones);
    let tables = MorrisTablebase::<Standard>::open(&*dir, stones as u8);
    let mut memo = HashMap::new();
    let start = minimax(&Position::start(stones as u8), &tables, &mut memo);
    assert_eq!(tables.value(&Position::start(stones as u8)).unwrap(), start, "K = {stones}: the start");
    // Every position the minimax reached, i.e. every reachable one, has the tables' value.
    let mut per_layer = vec![0u64; 2 * stones as usize];
    for (&(hand, to_move, (mover, other)), &value) in &memo {
        let mut p = Position { stones: [0, 0], hand, to_move };
        p.stones[to_move.index()] = mover;
        p.stones[to_move.other().index()] = other;
        assert_eq!(tables.value(&p).unwrap(), value, "K = {stones}: {p:?}");
        per_layer[2 * stones as usize - hand[0] as usize - hand[1] as usize] += 1;
    }
    // A batch answers each position as a probe of it alone does: the reachable positions, and
    // the same with the mover's stones turned one point along the board's numbering, which no
    // game reaches in many cases (an error for each of those, not for its neighbours).
    let mut batch: Vec<Position> = Vec::new();
    for &(hand, to_move, (mover, other)) in memo.keys() {
        let mut p = Position { stones: [0, 0], hand, to_move };
        p.stones[to_move.other().index()] = other;
        p.stones[to_move.index()] = mover;
        batch.push(p);
        let turned = ((mover << 1) | (mover >> 23)) & 0xff_ffff;
        if turned & other == 0 {
            p.stones[to_move.index()] = turned;
            batch.push(p);
        }
    }
    let one_by_one: Vec<String> = batch.iter().map(|p| format!("{:?}", tables.value(p))).collect();
    let together: Vec<String> = tables.values(&batch).iter().map(|v| format!("{v:?}")).collect();
    assert_eq!(together, one_by_one, "K = {stones}: a batch against probes one by one");
    let unreachable = one_by_one.iter().filter(|v| v.contains("not reachable")).count();
    // With 3 stones a side every such position is reached; with 4, not all.
    assert!(unreachable < batch.len() / 2, "K = {stones}: {unreachable} not reachable");
    assert!(stones < 4 || unreachable > 0, "K = {stones}: every turned position reachable");
    // The sets hold exactly the reachable positions: their sizes are the minimax's counts.
    let catalogue = Opening::<Standard>::tables(stones);
    let counts: Vec<u64> =
        tablebase::info(&catalogue, &dir).iter().map(|row| row.positions.unwrap()).collect();
    assert_eq!(counts, per_layer, "K = {stones}: reachable positions per placement ply");
    assert_eq!(counts.len() as u32, catalogue.game().layers());
    let reports = common::verified(
        &tablebase::Layered::new(
            Opening::<Standard>::new(stones).with_classes(&dir, tablebase::table::Check::Header).unwrap(),
        ),
        &dir,
        false,
    );
    assert!(reports.iter().all(|r| r.checksum_ok && r.consistent == Some(true)), "K = {stones}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn three_stones_equal_a_plain_minimax() {
    check_game(3);
}

#[test]
fn four_stones_equal_a_plain_minimax() {
    check_game(4);
}

fn tablebase(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_tablebase")).args(args).output().expect("the binary runs")
}

/// Every file of `dir`, by name, with its bytes.
fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| !p.file_name().unwrap().to_string_lossy().starts_with('.')) // the generate lock
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read(&p).unwrap()))
        .collect();
    files.sort();
    files
}

/// The command line end to end on the 5-stone game: generate (killed at several moments in
/// the opening, then resumed to the bytes of the game made and verified in full once for the
/// tests, [`common::verified_five_stone_game`]), verify, info and a best line from the start.
#[test]
fn five_stones_resume_after_kill_verify_and_probe_from_the_start() {
    let reference = common::verified_five_stone_game();
    let interrupted = scratch("k5-interrupted");
    let i = interrupted.to_str().unwrap();
    // The classes are there already, so that the kills land in the opening.
    for (name, bytes) in files(&reference) {
        if name.starts_with("morris-") && !name.starts_with("morris-opening") {
            std::fs::write(interrupted.join(name), bytes).unwrap();
        }
    }
    for delay_ms in [200, 700, 1500, 2500, 4000] {
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_tablebase"))
            .args(["generate", "morris", "--stones", "5", "--dir", i])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(delay_ms));
        child.kill().unwrap(); // SIGKILL: no chance to clean up
        child.wait().unwrap();
        // Nothing under a final name is damaged: at worst a table is missing (exit 1).
        let check = tablebase(&["verify", "morris", "--stones", "5", "--quick", "--dir", i]);
        assert!(matches!(check.status.code(), Some(0 | 1)), "{}", String::from_utf8_lossy(&check.stderr));
    }
    assert!(tablebase(&["generate", "morris", "--stones", "5", "--dir", i]).status.success());
    // Every file, so that nothing is left over either (a temporary file of a killed run).
    let (expected, resumed) = (files(&reference), files(&interrupted));
    assert_eq!(expected.iter().filter(|(name, _)| name.starts_with("morris-opening5-ply")).count(), 20);
    assert!(resumed == expected, "resumed files differ from an uninterrupted run");

    // verify: the 9 classes up to 5-5 and the 10 placement plies, their files sound. (Every
    // value of these very bytes was recomputed where the reference was made.)
    let verify = tablebase(&["verify", "morris", "--stones", "5", "--quick", "--json", "--dir", i]);
    assert_eq!(verify.status.code(), Some(0), "{}", String::from_utf8_lossy(&verify.stderr));
    let reports: Vec<serde_json::Value> =
        String::from_utf8(verify.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(reports.len(), 19);
    for (ply, report) in reports[9..].iter().enumerate() {
        assert_eq!(report["table"], format!("placement ply {ply}"));
        assert_eq!(report["checksum"], "ok");
        assert_eq!(report["reference"], "match");
    }
    // info: one row per placement ply, counts from the headers.
    let info = tablebase(&["info", "morris", "--stones", "5", "--json", "--dir", i]);
    let rows: Vec<serde_json::Value> =
        String::from_utf8(info.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let placement: Vec<&serde_json::Value> =
        rows.iter().filter(|r| r["table"].as_str().unwrap().starts_with("placement ply")).collect();
    assert_eq!(placement.len(), 10);
    assert!(placement.iter().all(|r| r["status"] == "complete"));
    assert_eq!(placement[0]["positions"], 1);
    assert_eq!(placement[1]["positions"], 4); // a corner or a middle point of an outer or middle ring

    // The start is a draw; every first placement keeps it; the line runs into the moving phase.
    let probe = tablebase(&["probe", "morris", "--stones", "5", "--json", "--line", "--dir", i, "start"]);
    assert_eq!(probe.status.code(), Some(0), "{}", String::from_utf8_lossy(&probe.stderr));
    let answer: serde_json::Value = serde_json::from_slice(&probe.stdout).unwrap();
    assert_eq!(answer["value"], "draw");
    assert!(answer["plies"].is_null());
    let moves = answer["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 24);
    assert!(moves.iter().all(|m| m["value"] == "draw"));
    let line = answer["line"].as_array().unwrap();
    assert!(
        line.len() > 10 && line[10].as_str().unwrap().contains('-'),
        "a slide after 10 placements: {line:?}"
    );

    // Hands that the 5-stone game cannot have, and a position no placement order reaches.
    let bad = tablebase(&["probe", "morris", "--stones", "5", "--dir", i, "W:a7 B: w 4 5"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("do not fit alternate placing"));
    // Black's one stone cannot have been removed before White has two.
    let bad = tablebase(&["probe", "morris", "--stones", "5", "--dir", i, "W:a7 B: w 4 4"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&bad.stderr).contains("not reachable from the start of the 5-stone game")
    );
    std::fs::remove_dir_all(&reference).unwrap();
}

/// Positions lost at once by a removal during placement are stored nowhere: `probe` answers
/// `loss 0` for those a reachable position leads to, and refuses the others as not reachable.
/// `verify` and `info` give one object per placement ply, `null` counts for those not built.
#[test]
fn three_stones_terminal_positions_and_layers_not_built() {
    let dir = scratch("k3-cli");
    let d = dir.to_str().unwrap();
    assert!(tablebase(&["generate", "morris", "--stones", "3", "--dir", d]).status.success());
    let probe =
        |position: &str| tablebase(&["probe", "morris", "--stones", "3", "--brief", "--dir", d, position]);
    // a7, a1, d7, b2, then g7 closes a mill and removes a1: Black is left with 2 stones.
    let lost = probe("W:a7,d7,g7 B:b2 b 0 1");
    assert_eq!(lost.status.code(), Some(0), "{}", String::from_utf8_lossy(&lost.stderr));
    assert_eq!(String::from_utf8_lossy(&lost.stdout).trim(), "loss\t0");
    let line =
        tablebase(&["probe", "morris", "--stones", "3", "--brief", "--dir", d, "W:a7,d7 B:a1,b2 w 1 1"]);
    assert_eq!(String::from_utf8_lossy(&line.stdout).trim(), "win\t1");
    // White cannot have lost two stones to Black's single mill; nor can the side that just
    // placed have fewer than 3 stones.
    for position in ["W: B:a1,d1 w 1 1", "W:a4 B:a1,d1 w 1 1", "W: B: w 1 1"] {
        let refused = probe(position);
        assert_eq!(refused.status.code(), Some(2), "{position}");
        let stderr = String::from_utf8_lossy(&refused.stderr).into_owned();
        assert!(stderr.contains("not reachable"), "{position}: {stderr}");
    }
    let refused = probe("W:a1 B:a4,b4,c4 w 1 0");
    assert!(String::from_utf8_lossy(&refused.stderr).contains("do not fit"));

    // Layers not built: an object each, positions null; exit 1 (missing, nothing wrong).
    std::fs::remove_file(dir.join("morris-opening3-ply04.tbl")).unwrap();
    std::fs::remove_file(dir.join("morris-opening3-ply05.set")).unwrap();
    let verify = tablebase(&["verify", "morris", "--stones", "3", "--json", "--dir", d]);
    assert_eq!(verify.status.code(), Some(1), "{}", String::from_utf8_lossy(&verify.stderr));
    let reports: Vec<serde_json::Value> =
        String::from_utf8(verify.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(reports.len(), 1 + 6);
    for ply in [4, 5] {
        assert_eq!(reports[1 + ply]["table"], format!("placement ply {ply}"));
        assert!(reports[1 + ply]["positions"].is_null());
        assert_eq!(reports[1 + ply]["status"], "missing");
    }
    assert_eq!(reports[2]["max_win"], serde_json::Value::Null, "ply 1: every position is lost");
    assert_eq!(reports[2]["max_loss"], 26);
    let info = tablebase(&["info", "morris", "--stones", "3", "--json", "--dir", d]);
    let rows: Vec<serde_json::Value> =
        String::from_utf8(info.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(rows[5]["status"], "missing");
    // What a missing layer will hold is known from the independent census (reference figures).
    assert_eq!(rows[5]["positions"], 4200);
    // A table without its set: missing, as verify says too (one word for one state).
    assert_eq!(rows[6]["status"], "missing", "a table without its set");
    assert_eq!(reports[1 + 5]["status"], rows[6]["status"]);
    std::fs::remove_dir_all(&dir).unwrap();
}
