//! Counts the reachable placement-phase positions of a Morris game per ply, independently of the
//! library (see `census.rs`), as reference figures for its opening tables.
//!
//! `cargo run --release --example placement_census -- GAME K [--dir DIR]` prints
//! `game, stones, ply, positions` as tab-separated lines, GAME `morris` (the standard lines) or
//! `morabaraba` (with the four diagonals), K stones a side. With `--dir`, each finished ply is
//! kept there (its bits, and the lines printed so far), so that an interrupted census goes on
//! from the last one with the same command.

mod census;

use census::{Census, DIAGONALS, Ply, STANDARD_LINES};
use std::fs::{self, File};
use std::io::{BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

fn fail(message: &str) -> ! {
    eprintln!("placement_census: {message}");
    std::process::exit(2);
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (game, stones, dir) = match &args[..] {
        [game, stones] => (game, stones, None),
        [game, stones, flag, dir] if flag == "--dir" => (game, stones, Some(PathBuf::from(dir))),
        _ => fail("usage: placement_census morris|morabaraba K [--dir DIR]"),
    };
    let (lines, most): (Vec<[&str; 3]>, usize) = match game.as_str() {
        "morris" => (STANDARD_LINES.to_vec(), 9),
        "morabaraba" => (STANDARD_LINES.iter().chain(&DIAGONALS).copied().collect(), 12),
        _ => fail("GAME is morris or morabaraba"),
    };
    let stones: usize = match stones.parse() {
        Ok(k) if (3..=most).contains(&k) => k,
        _ => fail(&format!("K is 3..{most} for {game}")),
    };
    let clock = Instant::now();
    let board = Census::new(&lines);
    if !board.symmetries_keep_the_lines() {
        fail("the 16 symmetries do not keep the lines");
    }
    let name = format!("census-{game}-{stones}");
    let counted = dir.as_ref().map(|d| d.join(format!("{name}.tsv")));
    let mut from = None;
    if let (Some(dir), Some(counted)) = (&dir, &counted) {
        fs::create_dir_all(dir).unwrap_or_else(|e| fail(&format!("{}: {e}", dir.display())));
        let text = fs::read_to_string(counted).unwrap_or_default();
        let done = text.lines().count();
        if done > 0 {
            print!("{text}");
            let ply = Ply::new(&board, stones, done - 1);
            let path = ply_file(dir, &name, done - 1);
            let mut file = File::open(&path)
                .map(BufReader::new)
                .unwrap_or_else(|e| fail(&format!("{}: {e}", path.display())));
            ply.read(&mut file).unwrap_or_else(|e| fail(&format!("{}: {e}", path.display())));
            eprintln!("resumed after ply {} ({:.1} s)", done - 1, clock.elapsed().as_secs_f64());
            from = Some((done - 1, ply));
        }
    }
    let resumed_at = from.as_ref().map(|(p, _)| *p);
    census::census(&board, stones, from, |placed, ply| {
        if Some(placed) == resumed_at {
            return; // printed and kept already
        }
        let line = format!("{game}\t{stones}\t{placed}\t{}\n", ply.count());
        print!("{line}");
        eprintln!("ply {placed}: {:.1} s", clock.elapsed().as_secs_f64());
        if let (Some(dir), Some(counted)) = (&dir, &counted) {
            let path = ply_file(dir, &name, placed);
            let temporary = path.with_extension("tmp");
            let mut out = BufWriter::new(File::create(&temporary).unwrap_or_else(|e| fail(&format!("{e}"))));
            ply.write(&mut out).and_then(|_| out.flush()).unwrap_or_else(|e| fail(&format!("{e}")));
            drop(out);
            fs::rename(&temporary, &path).unwrap_or_else(|e| fail(&format!("{e}")));
            let mut tsv = fs::OpenOptions::new()
                .append(true)
                .create(true)
                .open(counted)
                .unwrap_or_else(|e| fail(&format!("{e}")));
            tsv.write_all(line.as_bytes()).unwrap_or_else(|e| fail(&format!("{e}")));
            if placed > 0 {
                let _ = fs::remove_file(ply_file(dir, &name, placed - 1));
            }
        }
    });
}

fn ply_file(dir: &Path, name: &str, placed: usize) -> PathBuf {
    dir.join(format!("{name}.ply{placed:02}"))
}
