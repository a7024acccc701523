//! The opening of the K-stone game in figures, as Markdown for docs/RESULTS.md: the start's
//! value, every first placement and every reply up to symmetry, the reachable positions per
//! placement ply, and the earliest ply at which a placement from a drawn position loses.
//!
//! `cargo run --release --example opening_report -- DIR K [GAME]` reads the tables of
//! `tablebase generate GAME --stones K --dir DIR`, GAME `morris` (the default) or `morabaraba`
//! (nothing but the public API and `probe`).

use std::collections::{BTreeMap, HashSet};
use std::path::PathBuf;
use tablebase::games::morris::{
    Color, Morabaraba, MorrisVariant, Move, Opening, Position, Standard, canonical,
};
use tablebase::probe::Outcome;
use tablebase::{MorrisTablebase, Probe, Value, info};

/// The breadth-first search for a losing placement stops before a layer larger than this.
const LAYER_LIMIT: usize = 5_000_000;

/// A position up to the 16 symmetries.
type Key = ([u8; 2], Color, (u32, u32));

fn key(p: &Position) -> Key {
    (p.hand, p.to_move, canonical(p.mover_stones(), p.other_stones()))
}

/// The moves of `p` up to symmetry: one representative (the first listed) per distinct
/// position reached, with how many moves reach it and their value.
fn distinct_moves<V: MorrisVariant>(
    tables: &MorrisTablebase<V>,
    p: &Position,
) -> Vec<(Move, usize, Value, Position)> {
    let mut seen: Vec<(Key, Move, usize, Value, Position)> = Vec::new();
    for Outcome { mv, next, value } in tables.moves(p).unwrap_or_else(|e| fail(&e.to_string())) {
        let k = key(&next);
        match seen.iter_mut().find(|s| s.0 == k) {
            Some(s) => s.2 += 1,
            None => seen.push((k, mv, 1, value, next)),
        }
    }
    seen.into_iter().map(|(_, mv, n, value, next)| (mv, n, value, next)).collect()
}

fn fail(message: &str) -> ! {
    eprintln!("opening_report: {message}");
    std::process::exit(1);
}

/// `a7, d7 (x4)`: moves with their multiplicity where it is more than one.
fn list(moves: &[(Move, usize)]) -> String {
    let names: Vec<String> =
        moves.iter().map(|(mv, n)| if *n > 1 { format!("{mv} (x{n})") } else { mv.to_string() }).collect();
    names.join(", ")
}

/// The placement that is the `ply`-th of the game, in words.
fn whose_stone(ply: usize) -> String {
    let side = if ply.is_multiple_of(2) { "White" } else { "Black" };
    let nth = ply / 2 + 1;
    let suffix = match nth {
        1 => "st",
        2 => "nd",
        3 => "rd",
        _ => "th",
    };
    format!("{side}'s {nth}{suffix} stone")
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (dir, stones, game) = match &args[..] {
        [dir, stones] => (dir, stones, "morris"),
        [dir, stones, game] => (dir, stones, game.as_str()),
        _ => {
            eprintln!("usage: opening_report DIR K [morris|morabaraba]");
            std::process::exit(2);
        }
    };
    let dir = PathBuf::from(dir);
    match game {
        "morris" => report::<Standard>(dir, stones),
        "morabaraba" => report::<Morabaraba>(dir, stones),
        _ => fail("GAME is morris or morabaraba"),
    }
}

fn report<V: MorrisVariant>(dir: PathBuf, stones: &str) {
    let most = V::RULES.stones;
    let stones: u8 = match stones.parse() {
        Ok(k) if (3..=most).contains(&u32::from(k)) => k,
        _ => fail(&format!("K is 3..{most}")),
    };
    let tables = MorrisTablebase::<V>::open(&dir, stones);
    let start = Position::start(stones);
    let value = tables.value(&start).unwrap_or_else(|e| fail(&e.to_string()));
    println!("### {stones} stones per side\n");
    println!("The start `W: B: w {stones} {stones}`: **{value}** (White to move).\n");

    println!("| placement ply | reachable positions (up to symmetry) | index size |");
    println!("|---|---:|---:|");
    let mut total = 0;
    for row in info(&Opening::<V>::tables(u32::from(stones)), &dir) {
        let positions = row.counts().map(|c| c.positions()).unwrap_or_else(|| fail("opening incomplete"));
        total += positions;
        println!("| {} | {positions} | {} |", row.table.trim_start_matches("placement ply "), row.index_size);
    }
    println!("| all | {total} | |\n");

    println!("First placements up to symmetry, each with the value it gives White, and Black's");
    println!("replies grouped by the value they give Black (x n: n placements equal under symmetry):\n");
    println!("| White's first stone | value for White | Black's replies by value for Black |");
    println!("|---|---|---|");
    for (first, n, value, next) in distinct_moves(&tables, &start) {
        let mut by_value: BTreeMap<std::cmp::Reverse<Value>, Vec<(Move, usize)>> = BTreeMap::new();
        for (reply, m, reply_value, _) in distinct_moves(&tables, &next) {
            by_value.entry(std::cmp::Reverse(reply_value)).or_default().push((reply, m));
        }
        let replies: Vec<String> =
            by_value.iter().map(|(v, moves)| format!("{}: {}", v.0, list(moves))).collect();
        println!("| {} | {value} | {} |", list(&[(first, n)]), replies.join("; "));
    }
    println!();

    // Breadth first over the reachable positions, up to symmetry, until some drawn position
    // has a placement that loses.
    let mut layer = vec![start];
    for ply in 0..2 * usize::from(stones) {
        let mut losing = Vec::new();
        let mut next_layer = Vec::new();
        let mut seen = HashSet::new();
        let values = tables.values(&layer);
        for (p, v) in layer.iter().zip(values) {
            let v = v.unwrap_or_else(|e| fail(&e.to_string()));
            for Outcome { mv, next, value } in tables.moves(p).unwrap_or_else(|e| fail(&e.to_string())) {
                if v == Value::Draw && matches!(value, Value::Loss(_)) {
                    losing.push((*p, mv, value));
                }
                if !next.is_moving_phase() && next.material(next.to_move) >= 3 && seen.insert(key(&next)) {
                    next_layer.push(next);
                }
            }
        }
        if let Some((p, mv, value)) = losing.first() {
            let positions: HashSet<Key> = losing.iter().map(|(p, ..)| key(p)).collect();
            println!(
                "Earliest losing placement from a drawn position: placement ply {ply} ({}), in {} of \
                 the drawn positions of that ply up to symmetry; for example `{}` then `{mv}`: {value}.\n",
                whose_stone(ply),
                positions.len(),
                tables.notation(p),
            );
            return;
        }
        if next_layer.len() > LAYER_LIMIT {
            println!("No drawn position up to placement ply {ply} has a losing placement.\n");
            return;
        }
        layer = next_layer;
    }
    println!("No drawn position of the placement phase has a losing placement.\n");
}
