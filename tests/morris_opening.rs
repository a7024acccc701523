//! The placement phase: every position reachable from the start of the K-stone game has the
//! value and distance of a plain memoised minimax over placements (nothing of the placement
//! index, the sets or the layered solver), which looks up the moving-phase tables once every
//! stone is placed. The number of positions per layer, up to symmetry, is counted the same way.

mod common;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use tablebase::layered::LayeredGame;
use tablebase::morris::{Color, MorrisTablebase, MovingPhase, Opening, Position, canonical, for_each_move};
use tablebase::{Probe, Progress, Value};

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tablebase-opening-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn generate(dir: &Path, stones: u32) {
    tablebase::generate(&MovingPhase::for_stones(stones), dir, &Progress::hidden()).unwrap();
    let opening = Opening::new(stones).with_classes(dir, tablebase::table::Check::Checksum).unwrap();
    tablebase::generate(&tablebase::Layered(opening), dir, &Progress::hidden()).unwrap();
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
    for_each_move(p, |_, next| children.push(next));
    let value = tablebase::best_of(children.iter().map(|c| minimax(c, moving, memo).for_mover()));
    memo.insert(key(p), value);
    value
}

fn check_game(stones: u32) {
    let dir = scratch(&format!("k{stones}"));
    generate(&dir, stones);
    let tables = MorrisTablebase::open(&dir, stones as u8);
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
    // The sets hold exactly the reachable positions: their sizes are the minimax's counts.
    let catalogue = Opening::tables(stones);
    let counts: Vec<u64> =
        tablebase::info(&catalogue, &dir).iter().map(|row| row.positions.unwrap()).collect();
    assert_eq!(counts, per_layer, "K = {stones}: reachable positions per placement ply");
    assert_eq!(counts.len() as u32, catalogue.0.layers());
    let reports = common::verified(
        &tablebase::Layered(
            Opening::new(stones).with_classes(&dir, tablebase::table::Check::Header).unwrap(),
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
