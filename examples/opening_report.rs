//! The opening of the K-stone game in figures, as Markdown for docs/RESULTS.md: the start's
//! value, every first placement and every reply up to symmetry, the reachable positions per
//! placement ply, and the earliest ply at which a placement from a drawn position loses.
//!
//! `cargo run --release --example opening_report -- DIR K [GAME]` reads the tables of
//! `tablebase generate GAME --stones K --dir DIR`, GAME `morris` (the default), `morabaraba` or
//! `lasker` (nothing but the public API and `probe`). Lasker Morris has sectors rather than
//! placement plies: its report gives the sectors' totals instead, and searches for the earliest
//! losing move (a placement or a slide) ply by ply from the start.

use std::collections::{BTreeMap, HashSet};
use std::path::PathBuf;
use tablebase::games::morris::{
    Color, Lasker, Morabaraba, MorrisVariant, Move, Opening, Position, Sectors, Standard, canonical,
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

/// The move that is the `ply`-th of the game, in words: `White's 2nd stone` (or `move`).
fn whose_stone(ply: usize, what: &str) -> String {
    let side = if ply.is_multiple_of(2) { "White" } else { "Black" };
    let nth = ply / 2 + 1;
    let suffix = match nth {
        1 => "st",
        2 => "nd",
        3 => "rd",
        _ => "th",
    };
    format!("{side}'s {nth}{suffix} {what}")
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (dir, stones, game) = match &args[..] {
        [dir, stones] => (dir, stones, "morris"),
        [dir, stones, game] => (dir, stones, game.as_str()),
        _ => {
            eprintln!("usage: opening_report DIR K [morris|morabaraba|lasker]");
            std::process::exit(2);
        }
    };
    let dir = PathBuf::from(dir);
    match game {
        "morris" => report::<Standard>(dir, stones),
        "morabaraba" => report::<Morabaraba>(dir, stones),
        "lasker" => report::<Lasker>(dir, stones),
        _ => fail("GAME is morris, morabaraba or lasker"),
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

    let sectors = V::RULES.moves_while_placing;
    if sectors {
        sector_totals::<V>(&dir, stones);
    } else {
        placement_plies::<V>(&dir, stones);
    }

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
    // (Lasker: moves of either kind, from every position reached, as far as the layers stay small.)
    let (what, plies) = if sectors { ("move", usize::MAX) } else { ("stone", 2 * usize::from(stones)) };
    let mut layer = vec![start];
    for ply in 0..plies {
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
                let placing = sectors || !next.is_moving_phase();
                if placing && next.material(next.to_move) >= 3 && seen.insert(key(&next)) {
                    next_layer.push(next);
                }
            }
        }
        if let Some((p, mv, value)) = losing.first() {
            let positions: HashSet<Key> = losing.iter().map(|(p, ..)| key(p)).collect();
            println!(
                "Earliest losing {} from a drawn position: {}ply {ply} ({}), in {} of \
                 the drawn positions of that ply up to symmetry; for example `{}` then `{mv}`: {value}.\n",
                if sectors { "move" } else { "placement" },
                if sectors { "" } else { "placement " },
                whose_stone(ply, what),
                positions.len(),
                tables.notation(p),
            );
            return;
        }
        if next_layer.len() > LAYER_LIMIT {
            let (kind, moves) = if sectors { ("", "move") } else { ("placement ", "placement") };
            println!("No drawn position up to {kind}ply {ply} has a losing {moves}.\n");
            return;
        }
        layer = next_layer;
    }
    println!("No drawn position of the placement phase has a losing placement.\n");
}

/// The reachable positions per placement ply of a game whose placements alternate.
fn placement_plies<V: MorrisVariant>(dir: &std::path::Path, stones: u8) {
    println!("| placement ply | reachable positions (up to symmetry) | index size |");
    println!("|---|---:|---:|");
    let mut total = 0;
    for row in info(&Opening::<V>::tables(u32::from(stones)), dir) {
        let positions = row.counts().map(|c| c.positions()).unwrap_or_else(|| fail("opening incomplete"));
        total += positions;
        println!("| {} | {positions} | {} |", row.table.trim_start_matches("placement ply "), row.index_size);
    }
    println!("| all | {total} | |\n");
}

/// The sectors of a game solved in sectors, with their positions, wins, losses and draws, and
/// the longest win and loss, in all.
fn sector_totals<V: MorrisVariant>(dir: &std::path::Path, stones: u8) {
    let (mut sectors, mut positions, mut win, mut loss, mut draw, mut max_win, mut max_loss) =
        (0, 0, 0, 0, 0, 0, 0);
    for row in info(&Sectors::<V>::new(u32::from(stones)), dir) {
        let c = row.counts().unwrap_or_else(|| fail(&format!("sector {} incomplete", row.table)));
        sectors += 1;
        positions += c.positions();
        (win, loss, draw) = (win + c.win, loss + c.loss, draw + c.draw);
        (max_win, max_loss) = (max_win.max(c.max_win), max_loss.max(c.max_loss));
    }
    println!("| sectors | positions (up to symmetry) | win | loss | draw | longest win | longest loss |");
    println!("|---:|---:|---:|---:|---:|---:|---:|");
    println!("| {sectors} | {positions} | {win} | {loss} | {draw} | {max_win} | {max_loss} |\n");
}
