//! Pictures and play as a person uses them: `probe --svg`, `info --plot`, `play` driven through
//! a pipe to the end of real games, and `serve`'s API over HTTP.

use crate::common;

use std::collections::BTreeSet;
use std::io::{BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Output, Stdio};
use std::sync::OnceLock;
use tablebase::games::connect4::{Connect4Tablebase, Geometry};
use tablebase::games::morris::{Lasker, Morabaraba, MorrisTablebase, Standard};
use tablebase::{Probe, Value};

const BINARY: &str = env!("CARGO_BIN_EXE_tablebase");

fn tablebase(args: &[&str]) -> Output {
    common::tablebase_with_input(BINARY, args, "")
}

/// Connect Four 5x4, the 3-stone games of Morris and Morabaraba (classes up to 3-3 and their
/// openings) and of Lasker Morris (its 16 sectors), generated once for every test of this file.
fn tables() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        common::shared_tables("pictures", |dir| {
            let d = dir.to_str().unwrap();
            for args in [
                &["generate", "connect4", "--size", "5x4", "--dir", d][..],
                &["generate", "morris", "--stones", "3", "--dir", d][..],
                &["generate", "morabaraba", "--stones", "3", "--dir", d][..],
                &["generate", "lasker", "--stones", "3", "--dir", d][..],
            ] {
                let out = tablebase(args);
                assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
            }
        })
    })
}

fn dir() -> &'static str {
    tables().to_str().unwrap()
}

/// The marks of an SVG picture: the moves each stands for, and the value it shows.
fn marks(svg: &str) -> Vec<(Vec<String>, String)> {
    let document = roxmltree::Document::parse(svg).expect("the picture is well-formed XML");
    assert_eq!(document.root_element().tag_name().name(), "svg");
    document
        .descendants()
        .filter(|n| n.tag_name().name() == "g" && n.attribute("class") == Some("move"))
        .map(|n| {
            let moves = n.attribute("data-moves").unwrap().split(' ').map(String::from).collect();
            (moves, n.attribute("data-value").unwrap().to_string())
        })
        .collect()
}

/// Draws `position` with `probe --svg` and checks the picture against `probe --json`: one mark
/// per legal move (Morris moves that differ only in the removal share one), each showing the
/// best value of the moves it stands for. Returns the picture.
fn check_picture(game: &[&str], position: &str) -> String {
    // One file per call: the tests of this binary may run as parallel threads of one process.
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let file = tables().join(format!("picture-{}-{call}.svg", std::process::id()));
    let mut args: Vec<&str> = vec!["probe"];
    args.extend_from_slice(game);
    let f = file.to_str().unwrap();
    args.extend_from_slice(&["--dir", dir(), "--json", "--svg", f, position]);
    let out = tablebase(&args);
    assert!(out.status.success(), "{position}: {}", String::from_utf8_lossy(&out.stderr));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let svg = std::fs::read_to_string(&file).unwrap();
    std::fs::remove_file(&file).unwrap();
    let moves: Vec<(String, String)> = json["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["move"].as_str().unwrap().to_string(), m["value"].as_str().unwrap().to_string()))
        .collect();
    let marked: Vec<(Vec<String>, String)> = marks(&svg);
    let all_marked: BTreeSet<&String> = marked.iter().flat_map(|(m, _)| m).collect();
    let all_moves: BTreeSet<&String> = moves.iter().map(|(m, _)| m).collect();
    assert_eq!(all_marked, all_moves, "{position}: every legal move is marked, nothing else");
    assert_eq!(marked.iter().map(|(m, _)| m.len()).sum::<usize>(), moves.len(), "{position}: each move once");
    for (names, shown) in &marked {
        // Moves come best first in the JSON: the first of a mark's moves there is its best.
        let best = moves.iter().find(|(m, _)| names.contains(m)).unwrap();
        assert_eq!(shown, &best.1, "{position}: mark of {names:?}");
    }
    assert!(
        !svg.contains("href=\"http") && !svg.contains("@font-face") && !svg.contains("<image"),
        "self-contained"
    );
    let caption = json["value"].as_str().unwrap();
    assert!(
        svg.contains(if caption == "draw" { ": draw" } else { caption }),
        "{position}: the caption gives the value"
    );
    svg
}

#[test]
fn pictures_mark_every_legal_move_with_its_value() {
    for position in ["", "3", "3344", "33443", "1234554321", "123455432112"] {
        let svg = check_picture(&["connect4", "--size", "5x4"], position);
        let discs = svg.matches("class=\"disc ").count();
        assert_eq!(discs, position.len(), "{position}: one disc per stone");
    }
    // The placement phase, a mill closed by a placement (one mark per point, with each
    // removal in it), and the moving phase with flying stones.
    for position in ["start", "W:a7,d7 B:a1,g1 w 1 1", "W:a7,d7 B:a1,b2 w 1 1", "W:a7,d7,g1 B:a1,b2,c3 w"] {
        let svg = check_picture(&["morris", "--stones", "3"], position);
        let stones = svg.matches("class=\"stone ").count();
        let listed = |side: &str| {
            let points = position.split_whitespace().find_map(|t| t.strip_prefix(side)).unwrap_or("");
            points.split(',').filter(|p| !p.is_empty()).count()
        };
        assert_eq!(stones, listed("W:") + listed("B:"), "{position}: one circle per stone");
    }
    // Where a mark stands for several moves (a mill with a choice of removal), there is one
    // mark for the placement and a tooltip for each move.
    let svg = check_picture(&["morris", "--stones", "3"], "W:a7,d7 B:a1,b2 w 1 1");
    assert!(marks(&svg).iter().any(|(moves, _)| moves.len() == 2 && moves[0].starts_with("g7x")), "{svg}");
}

#[test]
fn pictures_of_positions_that_cannot_be_probed_are_not_written() {
    let file = tables().join("never.svg");
    let f = file.to_str().unwrap();
    let out = tablebase(&["probe", "connect4", "--size", "5x4", "--dir", dir(), "--svg", f, "66"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(!file.exists());
    let out = tablebase(&["probe", "connect4", "--size", "5x4", "--dir", dir(), "--svg", f, "-"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--svg"));
    // A value the search does not settle in time is an error with `--brief` (exit 1): no
    // picture either, and a file already there is left as it was.
    let empty = tempfile::tempdir().unwrap();
    let e = empty.path().to_str().unwrap();
    let brief = ["probe", "sogo", "--dir", e, "--brief", "--max-time", "0.01", "--svg", f, "a1"];
    let out = tablebase(&brief);
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(!file.exists());
    std::fs::write(&file, "kept").unwrap();
    assert_eq!(tablebase(&brief).status.code(), Some(1));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "kept");
    std::fs::remove_file(&file).unwrap();
}

/// Where the searches settle nothing in time, the perfect player still never hands the other
/// side a line it completes with its next stone: White has three in a row, and Black, whatever
/// the seed, blocks the fourth cell.
#[test]
fn the_perfect_player_blocks_a_line_completed_next_move_when_nothing_is_settled() {
    let empty = tempfile::tempdir().unwrap();
    let e = empty.path().to_str().unwrap();
    for (game, from, max_time, block) in
        [("sogo", "a1b1a1b1a1", "0.3", "a1"), ("qubic", "a11b11a12b12a13", "0.3", "a14")]
    {
        for seed in ["1", "2", "3", "4"] {
            let args = ["play", game, "--dir", e, "--from", from, "--max-time", max_time, "--seed", seed];
            let out = common::tablebase_with_input(BINARY, &args, "quit\n");
            let text = String::from_utf8_lossy(&out.stdout);
            assert!(out.status.success(), "{game} {seed}: {}", String::from_utf8_lossy(&out.stderr));
            assert!(text.contains(&format!("Black plays {block} ")), "{game}, seed {seed}: {text}");
        }
    }
}

#[test]
fn plots_are_charts_of_the_real_tables() {
    let out_dir = tables().join("plots");
    let o = out_dir.to_str().unwrap();
    let out = tablebase(&["info", "connect4", "--size", "5x4", "--dir", dir(), "--plot", o]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // One histogram per ply (plies 0..=20) and the outcomes of all plies.
    let histogram = std::fs::read_to_string(out_dir.join("connect4-5x4-ply00-distances.svg")).unwrap();
    roxmltree::Document::parse(&histogram).unwrap();
    for ply in 0..=20 {
        assert!(out_dir.join(format!("connect4-5x4-ply{ply:02}-distances.svg")).exists());
    }
    let outcomes = std::fs::read_to_string(out_dir.join("connect4-5x4-outcomes.svg")).unwrap();
    roxmltree::Document::parse(&outcomes).unwrap();

    // The Morris heat map has a cell per class on disk (only 3-3 here) in each of its panels.
    let out = tablebase(&["info", "morris", "--stones", "3", "--dir", dir(), "--plot", o]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let heat = std::fs::read_to_string(out_dir.join("morris-classes.svg")).unwrap();
    roxmltree::Document::parse(&heat).unwrap();
    assert!(out_dir.join("morris-3-3-distances.svg").exists());
    assert!(out_dir.join("morris-opening3-ply05-distances.svg").exists());

    let empty = tables().join("no-tables");
    charts_keep_their_legend_apart_and_label_decades_only(&out_dir);
    let out =
        tablebase(&["info", "connect4", "--size", "4x4", "--dir", empty.to_str().unwrap(), "--plot", o]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no complete table"));
}

#[test]
fn distance_histograms_add_up_to_the_tables() {
    use tablebase::Catalogue;
    use tablebase::table::{Check, Status, TableFile};
    let catalogue = tablebase::games::connect4::Connect4::tables(Geometry::new(5, 4).unwrap());
    let mut plies_with_wins = 0;
    for key in catalogue.keys() {
        let spec = catalogue.table(tables(), key);
        let Status::Complete(header) = Status::of(&spec) else { panic!("{key}: complete") };
        let table = TableFile::open(&spec, header.index_size, Check::Checksum).unwrap();
        let distances = table.distances().unwrap();
        // Every entry once; the longest distances are the headers'.
        let total: u64 = distances.wins.iter().chain(&distances.losses).sum::<u64>() + distances.draws;
        assert_eq!(total, header.index_size, "{key}");
        let longest = |counts: &[u64]| counts.iter().rposition(|&c| c > 0).unwrap_or(0) as u32;
        assert_eq!(longest(&distances.wins), header.counts.max_win, "{key}");
        assert_eq!(longest(&distances.losses), header.counts.max_loss, "{key}");
        assert!(distances.wins.iter().step_by(2).all(|&c| c == 0), "{key}: wins are odd");
        assert!(distances.losses.iter().skip(1).step_by(2).all(|&c| c == 0), "{key}: losses are even");
        assert_eq!(distances.draws > 0, header.counts.draw > 0, "{key}");
        // Entry by entry, the same as reading every value.
        let mut by_reading = tablebase::table::Distances::default();
        for index in 0..header.index_size {
            match table.value(index).unwrap() {
                Value::Draw => by_reading.draws += 1,
                Value::WinUnknown => by_reading.wins_unknown += 1,
                Value::LossUnknown => by_reading.losses_unknown += 1,
                Value::Win(n) | Value::Loss(n) => {
                    let slot = if n % 2 == 1 { &mut by_reading.wins } else { &mut by_reading.losses };
                    if slot.len() <= n as usize {
                        slot.resize(n as usize + 1, 0);
                    }
                    slot[n as usize] += 1;
                }
            }
        }
        by_reading.wins.resize(distances.wins.len(), 0);
        by_reading.losses.resize(distances.losses.len(), 0);
        assert_eq!(by_reading, distances, "{key}");
        plies_with_wins += usize::from(header.counts.win > 0);
    }
    assert!(plies_with_wins > 10);
}

/// A `play` session driven as a person would: read up to the prompt, answer, read again.
struct Session {
    child: Child,
    input: ChildStdin,
    output: BufReader<ChildStdout>,
    transcript: String,
}

impl Session {
    fn start(args: &[&str]) -> Session {
        let mut child = Command::new(BINARY)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let input = child.stdin.take().unwrap();
        let output = BufReader::new(child.stdout.take().unwrap());
        Session { child, input, output, transcript: String::new() }
    }

    /// Reads until the prompt (returning the last position shown) or the end of the output
    /// (returning `None`).
    fn until_prompt(&mut self) -> Option<String> {
        let mut position = None;
        let mut text = String::new();
        loop {
            let mut byte = [0u8; 1];
            if self.output.read(&mut byte).unwrap() == 0 {
                self.transcript.push_str(&text);
                return None;
            }
            text.push(byte[0] as char);
            if byte[0] == b'\n' {
                if let Some(p) = text.trim_end_matches('\n').strip_prefix("position:") {
                    position = Some(p.trim_start().to_string());
                }
                self.transcript.push_str(&text);
                text.clear();
            } else if text == "your move: " {
                self.transcript.push_str(&text);
                return Some(position.expect("the board is shown before each prompt"));
            }
        }
    }

    fn send(&mut self, line: &str) {
        writeln!(self.input, "{line}").unwrap();
        self.transcript.push_str(line);
        self.transcript.push('\n');
    }

    fn finish(mut self) -> String {
        drop(self.input);
        let mut rest = String::new();
        self.output.read_to_string(&mut rest).unwrap();
        self.transcript.push_str(&rest);
        assert!(self.child.wait().unwrap().success(), "{}", self.transcript);
        self.transcript
    }
}

/// Plays the person's side with the best move each time; returns the transcript and the number
/// of plies the game lasted.
fn play_best<G: Probe>(game: &G, args: &[&str]) -> (String, usize) {
    let mut session = Session::start(args);
    let mut moves = 0;
    while let Some(position) = session.until_prompt() {
        let parsed = game.parse(&position).unwrap();
        let best = tablebase::probe(game, &parsed).unwrap().moves[0].0.to_string();
        session.send(&best);
        moves += 1;
        assert!(moves < 200, "{}", session.transcript);
    }
    let transcript = session.finish();
    let plies = transcript.lines().last().unwrap().split("after ").nth(1).unwrap();
    let plies: usize = plies.split(' ').next().unwrap().parse().unwrap();
    (transcript, plies)
}

#[test]
fn connect4_played_through_a_pipe_to_a_win() {
    let g = Geometry::new(5, 4).unwrap();
    let game = Connect4Tablebase::open(dir(), g);
    // A position the side to move wins, a few plies in: found by walking the tables.
    let mut start = None;
    'search: for number in 0..5u32.pow(4) {
        for plies in 1..=4u32 {
            let moves: String =
                (0..plies).map(|k| char::from(b'1' + (number / 5u32.pow(k) % 5) as u8)).collect();
            let Ok(position) = game.parse(&moves) else { continue };
            if let Ok(Value::Win(n)) = game.value(&position) {
                start = Some((moves, n));
                break 'search;
            }
        }
    }
    let (from, distance) = start.expect("some early position of 5x4 is a win for the side to move");
    let side = if from.len() % 2 == 0 { "first" } else { "second" };
    let args =
        ["play", "connect4", "--size", "5x4", "--dir", dir(), "--from", &from, "--side", side, "--seed", "7"];
    let (transcript, plies) = play_best(&game, &args);
    // Both sides play perfectly: the winner as fast as it can, the loser as slowly: the game
    // lasts exactly the distance the tables give.
    assert!(transcript.contains("You win"), "{transcript}");
    assert_eq!(plies as u32, distance, "{transcript}");
}

#[test]
fn morris_played_through_a_pipe_from_the_start_and_from_an_endgame() {
    let game = MorrisTablebase::<Standard>::open(dir(), 3);
    // The 3-stone game is a White win in 23 (docs/RESULTS.md): played out with White's best
    // moves against the perfect player, it ends after exactly 23 plies.
    let args = ["play", "morris", "--stones", "3", "--dir", dir(), "--seed", "1"];
    let (transcript, plies) = play_best(&game, &args);
    assert!(transcript.contains("You win (White) after 23 plies."), "{transcript}");
    assert_eq!(plies, 23);
    assert!(transcript.contains("in hand: White 3, Black 3"), "{transcript}");

    // A 3-3 endgame in the moving phase: where the best line from the start leaves the
    // placements, White to move and win.
    let mut position = game.parse("start").unwrap();
    for mv in tablebase::best_line(&game, &position).unwrap().iter().take(6) {
        position = game.moves(&position).unwrap().into_iter().find(|o| o.mv == *mv).unwrap().next;
    }
    let endgame = game.notation(&position);
    let Value::Win(distance) = game.value(&position).unwrap() else { panic!("{endgame}: a win for White") };
    assert_eq!(distance, 17);
    let args = ["play", "morris", "--stones", "3", "--dir", dir(), "--from", &endgame, "--seed", "3"];
    let (transcript, plies) = play_best(&game, &args);
    assert!(transcript.contains("You win (White) after 17 plies."), "{transcript}");
    assert_eq!(plies, 17);
    assert!(!transcript.contains("in hand"), "{transcript}");
}

/// The lines of a Morris board picture: its `<line>` elements inside the board's group.
fn board_lines(svg: &str) -> usize {
    let document = roxmltree::Document::parse(svg).unwrap();
    let board =
        document.descendants().find(|n| n.tag_name().name() == "g" && n.attribute("stroke").is_some());
    board.unwrap().children().filter(|n| n.tag_name().name() == "line").count()
}

/// Morabaraba as a person meets it: the pictures draw its diagonals, `play` ends where the brute force of tests/morabaraba_reference.rs says, and `serve`
/// and `info --plot` take it like any game.
#[test]
fn morabaraba_is_drawn_with_its_diagonals_played_served_and_plotted() {
    let game = ["morabaraba", "--stones", "3"];
    // 32 edges on the standard board, 40 with the diagonals.
    assert_eq!(board_lines(&check_picture(&["morris", "--stones", "3"], "start")), 32);
    assert_eq!(board_lines(&check_picture(&game, "start")), 40);
    // The 3-stone game: White wins in 9 plies (the brute force's answer).
    let played = MorrisTablebase::<Morabaraba>::open(dir(), 3);
    let args = ["play", "morabaraba", "--stones", "3", "--dir", dir(), "--seed", "5"];
    let (transcript, plies) = play_best(&played, &args);
    assert!(transcript.contains("You win (White) after 9 plies."), "{transcript}");
    assert_eq!(plies, 9);
    assert!(
        transcript.contains('\\') && transcript.contains('/'),
        "the text board draws the diagonals: {transcript}"
    );

    let server = Server::start();
    let (status, _, games) = server.request("GET", "/api/games");
    assert_eq!(status, 200);
    let games: serde_json::Value = serde_json::from_str(&games).unwrap();
    let listed =
        games["games"].as_array().unwrap().iter().find(|g| g["game"] == "morabaraba").expect("listed");
    assert_eq!(listed["name"], "Morabaraba");
    let cli =
        tablebase(&["probe", "morabaraba", "--stones", "3", "--dir", dir(), "--json", "--line", "start"]);
    let (status, _, body) =
        server.request("GET", "/api/probe?game=morabaraba&stones=3&position=start&line=1");
    assert_eq!(status, 200);
    assert_eq!(body.trim(), String::from_utf8(cli.stdout).unwrap().trim());
    let (status, _, svg) = server.request("GET", "/api/svg?game=morabaraba&stones=3&position=start");
    assert_eq!((status, board_lines(&svg)), (200, 40));
    let (status, _, body) = server.request("GET", "/api/probe?game=morabaraba&stones=13&position=start");
    assert_eq!(status, 400, "{body}");

    let out_dir = tables().join("plots-morabaraba");
    let out = tablebase(&[
        "info",
        "morabaraba",
        "--stones",
        "3",
        "--dir",
        dir(),
        "--plot",
        out_dir.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    roxmltree::Document::parse(&std::fs::read_to_string(out_dir.join("morabaraba-classes.svg")).unwrap())
        .unwrap();
    assert!(out_dir.join("morabaraba-opening3-ply05-distances.svg").exists());

    // The whole 12-stone game's chart, with only its class 3-3 on disk: named for Morabaraba,
    // its axes reach 12-12 in each of the three panels, and its one cell holds class 3-3's shares.
    let whole = tables().join("plots-morabaraba-12");
    let args = ["info", "morabaraba", "--stones", "12", "--dir", dir(), "--plot", whole.to_str().unwrap()];
    let out = tablebase(&args);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let chart = std::fs::read_to_string(whole.join("morabaraba-classes.svg")).unwrap();
    let words = svg_texts(&chart);
    assert_eq!(words[0], "Morabaraba, moving phase: outcomes for the side to move by stones on the board");
    assert!(!chart.contains("Nine Men's Morris"), "{chart}");
    for (ticks_of_panel, _) in panels(&words, 10) {
        assert_eq!(ticks_of_panel, ticks(3, 12), "{words:?}");
    }
    let counts = class_counts::<Morabaraba>(3, 3);
    assert_eq!(cell_shares(&words, 10), shares(&[counts]), "{words:?}");
}

/// The text of every `<text>` element of an SVG chart, in order.
fn svg_texts(svg: &str) -> Vec<String> {
    let document = roxmltree::Document::parse(svg).unwrap();
    document
        .descendants()
        .filter(|n| n.has_tag_name("text"))
        .map(|n| {
            n.descendants()
                .filter(|t| t.is_text())
                .filter_map(|t| t.text())
                .collect::<String>()
                .trim()
                .to_string()
        })
        .collect()
}

/// A heat map's three panels (won, drawn, lost), each as its ticks (`span` on each axis, in the
/// order drawn) and the percentages written in its cells.
fn panels(words: &[String], span: usize) -> Vec<(Vec<String>, Vec<String>)> {
    let starts: Vec<usize> =
        words.iter().enumerate().filter(|(_, w)| w.starts_with("% ")).map(|(k, _)| k).collect();
    assert_eq!(starts.len(), 3, "{words:?}");
    starts
        .iter()
        .enumerate()
        .map(|(n, &at)| {
            let end = starts.get(n + 1).copied().unwrap_or(words.len());
            let panel = &words[at..end];
            // The caption, the two axes' descriptions, then the ticks and the cells.
            assert!(panel[1].starts_with("stones of") && panel[2].starts_with("stones of"), "{panel:?}");
            let rest = &panel[3..];
            (rest[..2 * span].to_vec(), rest[2 * span..].to_vec())
        })
        .collect()
}

/// The ticks each panel of a heat map must have: `least..=most` on each axis.
fn ticks(least: u32, most: u32) -> Vec<String> {
    (least..=most).chain(least..=most).map(|k| k.to_string()).collect()
}

/// The percentages of a heat map with one cell and `span` ticks an axis: won, drawn and lost.
fn cell_shares(words: &[String], span: usize) -> Vec<String> {
    panels(words, span).into_iter().flat_map(|(_, cells)| cells).collect()
}

/// What a heat map with one cell writes in it: its won, drawn and lost shares of `counts` summed.
fn shares(counts: &[tablebase::table::Counts]) -> Vec<String> {
    let (win, draw, loss) = counts.iter().fold((0, 0, 0), |(w, d, l), c| (w + c.win, d + c.draw, l + c.loss));
    let total = (win + draw + loss) as f64;
    [win, draw, loss].iter().map(|&n| format!("{:.0}", 100.0 * n as f64 / total)).collect()
}

/// The counts in the header of a Morris variant's class `mover-other` in the shared tables.
fn class_counts<V: tablebase::games::morris::MorrisVariant>(
    mover: u32,
    other: u32,
) -> tablebase::table::Counts {
    let spec = tablebase::games::morris::Class { mover, other }.spec(tables(), &V::RULES);
    match tablebase::table::Status::of(&spec) {
        tablebase::table::Status::Complete(header) => header.counts,
        _ => panic!("{}: complete", spec.path.display()),
    }
}

/// Lasker Morris as a person meets it: a picture marks placements and slides together (and
/// flights where three stones are left on the board and in hand), `play` lasts exactly the
/// distance of the 3-stone game (a White win in 23, the brute force's answer in
/// tests/lasker_reference.rs), and `serve` and `info --plot` take it like any game.
#[test]
fn lasker_is_drawn_played_served_and_plotted() {
    let game = ["lasker", "--stones", "3"];
    // Hands that do not alternate, placements beside slides.
    let svg = check_picture(&game, "W:a1,d1 B:a4 w 1 2");
    let marked = marks(&svg);
    let moves: Vec<&String> = marked.iter().flat_map(|(m, _)| m).collect();
    assert!(moves.iter().any(|m| m.len() == 2), "placements: {moves:?}");
    assert!(moves.iter().any(|m| m.starts_with("d1-")), "slides: {moves:?}");
    assert!(svg.contains("In hand: White 1, Black 2"), "{svg}");
    // Two stones on the board and one in hand: White flies or places.
    let svg = check_picture(&game, "W:a1,d1 B:a4,g7 w 1 1");
    assert!(svg.contains("White places or flies: each point shows its best move"), "{svg}");
    assert!(marks(&svg).iter().flat_map(|(m, _)| m).any(|m| m.starts_with("a1-g4")), "a flight");

    let played = MorrisTablebase::<Lasker>::open(dir(), 3);
    let args = ["play", "lasker", "--stones", "3", "--dir", dir(), "--seed", "5"];
    let (transcript, plies) = play_best(&played, &args);
    assert!(transcript.contains("You win (White) after 23 plies."), "{transcript}");
    assert_eq!(plies, 23);

    let server = Server::start();
    let (status, _, games) = server.request("GET", "/api/games");
    assert_eq!(status, 200);
    let games: serde_json::Value = serde_json::from_str(&games).unwrap();
    let listed = games["games"].as_array().unwrap().iter().find(|g| g["game"] == "lasker").expect("listed");
    assert_eq!(listed["name"], "Lasker Morris");
    let position = "W:a1,d1 B:a4 w 1 2";
    let cli = tablebase(&["probe", "lasker", "--stones", "3", "--dir", dir(), "--json", "--line", position]);
    let (status, _, body) = server
        .request("GET", "/api/probe?game=lasker&stones=3&position=W%3Aa1%2Cd1%20B%3Aa4%20w%201%202&line=1");
    assert_eq!(status, 200, "{body}");
    assert_eq!(body.trim(), String::from_utf8(cli.stdout).unwrap().trim());
    let (status, _, body) =
        server.request("GET", "/api/probe?game=lasker&stones=3&position=W%3A%20B%3A%20w%204%203");
    assert_eq!(status, 400, "more stones than the game has: {body}");
    let (status, _, body) = server.request("GET", "/api/probe?game=lasker&stones=4&position=start");
    assert_eq!(status, 404, "not generated: {body}");

    let out_dir = tables().join("plots-lasker");
    let out =
        tablebase(&["info", "lasker", "--stones", "3", "--dir", dir(), "--plot", out_dir.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    roxmltree::Document::parse(&std::fs::read_to_string(out_dir.join("lasker-outcomes.svg")).unwrap())
        .unwrap();
    assert!(out_dir.join("lasker-2-3-hands-1-0-distances.svg").exists());

    // The sectors' chart of the 10-stone game with the 3-stone game's 16 sectors on disk: named
    // for Lasker Morris, its axes each side's stones on the board and in hand up to 10, and its
    // one cell (3 stones each) the 16 sectors' positions together.
    let whole = tables().join("plots-lasker-10");
    let args = ["info", "lasker", "--stones", "10", "--dir", dir(), "--plot", whole.to_str().unwrap()];
    let out = tablebase(&args);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let chart = std::fs::read_to_string(whole.join("lasker-sectors.svg")).unwrap();
    let words = svg_texts(&chart);
    assert_eq!(
        words[0],
        "Lasker Morris: outcomes for the side to move by stones on the board and in hand (sectors)"
    );
    for (ticks_of_panel, _) in panels(&words, 8) {
        assert_eq!(ticks_of_panel, ticks(3, 10), "{words:?}");
    }
    let described = words.iter().filter(|w| *w == "stones of the side to move, on the board and in hand");
    assert_eq!(described.count(), 3);
    let sectors = tablebase::games::morris::Sectors::<Lasker>::new(3);
    let counts: Vec<tablebase::table::Counts> = tablebase::info(&sectors, Path::new(dir()))
        .iter()
        .map(|row| *row.counts().expect("every sector of the 3-stone game is on disk"))
        .collect();
    assert_eq!(counts.len(), 16);
    assert_eq!(cell_shares(&words, 8), shares(&counts), "{words:?}");
}

#[test]
fn play_takes_hints_undo_and_bad_input() {
    let args = ["play", "connect4", "--size", "5x4", "--dir", dir(), "--seed", "5"];
    let input = "hint\n9\nx\n3\nundo\nundo\nquit\n";
    let out = common::tablebase_with_input(BINARY, &args, input);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success(), "{text}");
    // hint: every move of the empty 5x4 board with the value the tables give it.
    let game = Connect4Tablebase::open(dir(), Geometry::new(5, 4).unwrap());
    let probed = tablebase::probe(&game, &game.parse("").unwrap()).unwrap();
    for (mv, value) in &probed.moves {
        assert!(text.contains(&format!("  {:<12} {value}", mv.to_string())), "{text}");
    }
    assert!(text.contains("'9' is not a legal move here. Legal moves:\n  1 2 3 4 5\n"), "{text}");
    assert!(text.contains("'x' is not a legal move here"), "{text}");
    assert!(text.contains("You play 3."), "{text}");
    assert!(text.contains("Took back 2 plies."), "{text}");
    assert!(text.contains("Nothing to take back."), "{text}");
    assert!(text.ends_with("Game abandoned.\n"), "{text}");

    // The perfect player moves first when the person takes the second side; the same seed
    // gives the same game.
    let args = ["play", "connect4", "--size", "5x4", "--dir", dir(), "--side", "second", "--seed", "11"];
    let first = common::tablebase_with_input(BINARY, &args, "");
    let again = common::tablebase_with_input(BINARY, &args, "");
    let first = String::from_utf8(first.stdout).unwrap();
    assert!(first.contains("X plays "), "{first}");
    assert!(first.ends_with("End of input: the game stops here.\n"), "{first}");
    assert_eq!(first, String::from_utf8(again.stdout).unwrap());

    // A bad start and a missing table: one line and the exit code of docs/CLI.md, "Commands".
    let out = tablebase(&["play", "connect4", "--size", "5x4", "--dir", dir(), "--from", "0"]);
    assert_eq!(out.status.code(), Some(2));
    let missing = tables().join("missing");
    let out = tablebase(&["play", "connect4", "--size", "4x4", "--dir", missing.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains("generate connect4 --size 4x4") && stderr.lines().count() == 1, "{stderr}");
}

/// A running `serve` on a free port, stopped when dropped.
struct Server(common::Served);

impl Server {
    fn start() -> Server {
        Server(common::Served::start(BINARY, tables()))
    }

    /// The status, content type and body of a request.
    fn request(&self, method: &str, target: &str) -> (u16, String, String) {
        let mut stream = std::net::TcpStream::connect(("127.0.0.1", self.0.port)).unwrap();
        write!(stream, "{method} {target} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n").unwrap();
        let mut response = String::new();
        stream.read_to_string(&mut response).unwrap();
        let (head, body) = response.split_once("\r\n\r\n").unwrap();
        let status = head.split(' ').nth(1).unwrap().parse().unwrap();
        let kind = head
            .lines()
            .find_map(|l| l.strip_prefix("Content-Type: ").or_else(|| l.strip_prefix("content-type: ")))
            .unwrap_or("")
            .to_string();
        (status, kind, body.to_string())
    }
}

#[test]
fn serve_answers_the_page_and_the_api() {
    let server = Server::start();
    let (status, kind, page) = server.request("GET", "/");
    assert_eq!((status, kind.as_str()), (200, "text/html; charset=utf-8"));
    assert!(page.contains("<title>tablebase</title>"));

    // The API answers exactly what `probe --json --line` does.
    let cli = tablebase(&["probe", "connect4", "--size", "5x4", "--dir", dir(), "--json", "--line", "3344"]);
    let (status, kind, body) =
        server.request("GET", "/api/probe?game=connect4&size=5x4&position=3344&line=1");
    assert_eq!((status, kind.as_str()), (200, "application/json; charset=utf-8"));
    assert_eq!(body.trim(), String::from_utf8(cli.stdout).unwrap().trim());
    let cli =
        tablebase(&["probe", "morris", "--stones", "3", "--dir", dir(), "--json", "W:a7,d7 B:a1,b2 w 1 1"]);
    let (status, _, body) =
        server.request("GET", "/api/probe?game=morris&stones=3&position=W%3Aa7%2Cd7+B%3Aa1%2Cb2+w+1+1");
    assert_eq!(status, 200);
    assert_eq!(body.trim(), String::from_utf8(cli.stdout).unwrap().trim());

    let (status, kind, svg) = server.request("GET", "/api/svg?game=connect4&size=5x4&position=33");
    assert_eq!((status, kind.as_str()), (200, "image/svg+xml; charset=utf-8"));
    assert_eq!(marks(&svg).len(), 5);
    let (status, _, body) = server.request("GET", "/api/move?game=connect4&size=5x4&position=33&move=4");
    assert_eq!((status, body.as_str()), (200, "{\"position\": \"334\"}"));
    let (status, _, body) = server.request("GET", "/api/move?game=morris&stones=3&position=start&move=d7");
    assert_eq!((status, body.as_str()), (200, "{\"position\": \"W:d7 B: b 2 3\"}"));

    // Bad input: 400 with the message probe gives; a table not generated: 404 with the command.
    let error = |body: &str| {
        serde_json::from_str::<serde_json::Value>(body).unwrap()["error"].as_str().unwrap().to_string()
    };
    let (status, _, body) = server.request("GET", "/api/probe?game=connect4&size=5x4&position=66");
    let cli = tablebase(&["probe", "connect4", "--size", "5x4", "--dir", dir(), "66"]);
    assert_eq!(status, 400);
    assert!(String::from_utf8(cli.stderr).unwrap().contains(&error(&body)), "{body}");
    let (status, _, body) = server.request("GET", "/api/probe?game=connect4&size=4x4&position=");
    assert_eq!(status, 404);
    assert!(error(&body).contains("generate connect4 --size 4x4"), "{body}");
    let (status, _, body) = server.request("GET", "/api/probe?game=morris&stones=4&position=start");
    assert_eq!(status, 404, "{body}");
    for bad in [
        "/api/probe?game=chess&position=x",
        "/api/probe?game=connect4&size=99x99&position=",
        "/api/probe?game=morris&stones=12&position=start",
        "/api/probe?game=morris&stones=3",
        "/api/probe?game=morris&stones=3&position=%zz",
        "/api/probe?game=morris&stones=3&position=%ff",
        "/api/move?game=connect4&size=5x4&position=33&move=9",
        "/api/probe?game=morris&stones=3&position=W%3Aa1+B%3A+w+9+9",
    ] {
        let (status, kind, body) = server.request("GET", bad);
        assert_eq!((status, kind.as_str()), (400, "application/json; charset=utf-8"), "{bad}: {body}");
        assert!(!error(&body).is_empty());
    }
    assert_eq!(server.request("GET", "/no/such/page").0, 404);
    assert_eq!(server.request("POST", "/api/probe").0, 405);
    // After all of that the server still answers.
    assert_eq!(server.request("GET", "/api/probe?game=connect4&size=5x4&position=").0, 200);
}

/// Where an SVG text or rect element is drawn, and its text.
fn drawn(svg: &str, tag: &str) -> Vec<(f64, f64, String)> {
    let document = roxmltree::Document::parse(svg).unwrap();
    document
        .descendants()
        .filter(|n| n.tag_name().name() == tag)
        .map(|n| {
            let at = |name: &str| n.attribute(name).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
            let width = if tag == "rect" { at("width") } else { 0.0 };
            (at("x"), at("x") + width, n.text().unwrap_or("").trim().to_string())
        })
        .collect()
}

/// The legend stands right of every bar (never over one), and a log axis is labelled at the
/// powers of ten alone.
fn charts_keep_their_legend_apart_and_label_decades_only(out_dir: &Path) {
    for (chart, words) in [
        ("connect4-5x4-ply08-distances.svg", &["won in n plies", "lost in n plies"][..]),
        ("connect4-5x4-outcomes.svg", &["won", "drawn", "lost"]),
    ] {
        let svg = std::fs::read_to_string(out_dir.join(chart)).unwrap();
        let texts = drawn(&svg, "text");
        let legend_left = words
            .iter()
            .map(|w| texts.iter().find(|t| t.2 == *w).unwrap_or_else(|| panic!("{chart}: legend {w}")).0)
            .fold(f64::MAX, f64::min);
        // Bars are the rects coloured as outcomes; the legend's swatches are left of its words.
        let bars_right = drawn(&svg, "rect")
            .iter()
            .filter(|r| r.0 > 0.0 && r.1 - r.0 > 15.0) // not the background, not a swatch
            .map(|r| r.1)
            .fold(0.0, f64::max);
        assert!(
            bars_right > 100.0 && legend_left > bars_right + 10.0,
            "{chart}: legend at {legend_left}, bars to {bars_right}"
        );
    }
    let svg = std::fs::read_to_string(out_dir.join("connect4-5x4-ply08-distances.svg")).unwrap();
    // The y axis labels sit left of the plot (x below 90); the x axis labels are distances.
    let labels: Vec<String> =
        drawn(&svg, "text").into_iter().filter(|t| t.0 < 90.0 && t.0 > 30.0).map(|t| t.2).collect();
    assert_eq!(labels, ["1", "10", "100", "1,000"], "decades only");
    // A tick on the y axis (a short horizontal stroke left of it) per label, and no others.
    let document = roxmltree::Document::parse(&svg).unwrap();
    let ticks = document
        .descendants()
        .filter_map(|n| n.attribute("points").filter(|_| n.tag_name().name() == "polyline"))
        .filter(|points| {
            let xy: Vec<f64> = points.split([' ', ',']).filter_map(|v| v.parse().ok()).collect();
            xy.len() == 4 && xy[1] == xy[3] && (xy[2] - xy[0]).abs() <= 6.0 && xy[0] < 100.0
        })
        .count();
    assert_eq!(ticks, 4, "a tick per decade");
    // Grid lines across the plot at the decades only (not at every 2..9 times a power of ten).
    let grid = document.descendants().filter(|n| n.tag_name().name() == "line").count();
    assert_eq!(grid, 4, "a grid line per decade");
}

#[test]
fn flights_are_marked_on_their_target_points_not_drawn_as_arrows() {
    // Both sides have three stones: White flies, to any of the 18 empty points.
    let position = "W:a1,d1,g1 B:a4,b4,c4 w";
    let svg = check_picture(&["morris", "--stones", "3"], position);
    let document = roxmltree::Document::parse(&svg).unwrap();
    let arrows = document.descendants().filter(|n| n.attribute("marker-end").is_some()).count();
    assert_eq!(arrows, 0, "no arrows for flights");
    let marks = marks(&svg);
    assert_eq!(marks.len(), 18, "one mark per empty point");
    for (moves, _) in &marks {
        let target = &moves[0][3..5];
        let from: BTreeSet<&str> = moves.iter().map(|m| &m[..2]).collect();
        assert!(moves.iter().all(|m| &m[3..5] == target), "{moves:?}: one target per mark");
        assert_eq!(from, BTreeSet::from(["a1", "d1", "g1"]), "{moves:?}: every stone's flight there");
    }
    assert!(svg.contains("White flies: each empty point shows the best flight to it"));
}

#[test]
fn every_line_of_play_fits_80_columns() {
    for args in [
        &["play", "morris", "--stones", "3", "--dir", dir(), "--seed", "2"][..],
        &["play", "connect4", "--size", "5x4", "--dir", dir(), "--seed", "2"],
    ] {
        let out = common::tablebase_with_input(BINARY, args, "help\nhint\nzz\nundo\nquit\n");
        let text = String::from_utf8(out.stdout).unwrap();
        // Piped input is not echoed: what follows the prompt is the next line on a terminal.
        for line in text.lines().map(|l| l.trim_start_matches("your move: ")) {
            assert!(line.chars().count() <= 80, "{args:?}: {} columns: {line}", line.chars().count());
        }
        assert!(text.contains("Legal moves:") && text.contains("Type a move: "), "{text}");
    }
}

/// Qubic and Sogo as a person meets them, with no tables at all: the picture is the four
/// layers with every legal move marked on its cell (for Sogo, the cell each column's next stone
/// lands on), `play` of a late position lasts exactly its distance with both sides perfect,
/// and `serve` answers as `probe` does.
#[test]
fn qubic_and_sogo_are_drawn_played_and_served() {
    use tablebase::games::cube::CubeTablebase;
    // 14 empty cells, White to move loses in 14 (the brute force of tests/cube_search.rs checks
    // positions like it); and a Qubic position White wins in 3.
    let sogo = "b1d1a2c4a3b4b3a2d2a3c1b3c1d1a2a2d1c4d1c1a3a1a4b1c4d2c1d2a4a4b1d3d3b2d4d2a1d4a4d4d3a1a3d4b4d3c4b3b2b4";
    let qubic = "b14a14c34c32c11c12d13b33a42b32a23d23c43d12c33a41d22c21a31c14a32b43b41b42b31c44a21b44d42d24b24c31a13a33c42d43b12d33d34c13d32a11a44d44d11a12b23d21c24b13";
    let svg = check_picture(&["sogo"], sogo);
    let stones = |column: &str| sogo.as_bytes().chunks(2).filter(|m| *m == column.as_bytes()).count();
    let open = (0..16).filter(|c| stones(&format!("{}{}", char::from(b'a' + c % 4), c / 4 + 1)) < 4).count();
    assert_eq!(marks(&svg).len(), open, "one mark per column with room");
    assert!(open < 14);
    for layer in 1..=4 {
        assert!(svg.contains(&format!(">height {layer}<")), "layer {layer} drawn");
    }
    assert_eq!(svg.matches("class=\"stone ").count(), 50, "every stone drawn");
    let svg = check_picture(&["qubic"], qubic);
    assert_eq!(marks(&svg).len(), 14, "one mark per empty cell");

    let played = CubeTablebase::<true>::open(dir(), None);
    let args = ["play", "sogo", "--dir", dir(), "--from", sogo, "--side", "white", "--seed", "3"];
    let (transcript, plies) = play_best(&played, &args);
    assert!(transcript.contains("The perfect player wins (Black) after 14 plies."), "{transcript}");
    assert_eq!(plies, 14);

    let server = Server::start();
    let (status, _, games) = server.request("GET", "/api/games");
    assert_eq!(status, 200);
    let games: serde_json::Value = serde_json::from_str(&games).unwrap();
    for (key, name) in [("qubic", "Qubic"), ("sogo", "Sogo")] {
        let listed = games["games"].as_array().unwrap().iter().find(|g| g["game"] == key).expect("listed");
        assert_eq!((listed["name"].as_str(), listed["generate"].is_null()), (Some(name), true));
    }
    let cli = tablebase(&["probe", "qubic", "--dir", dir(), "--json", "--line", qubic]);
    let (status, _, body) = server.request("GET", &format!("/api/probe?game=qubic&position={qubic}&line=1"));
    assert_eq!(status, 200, "{body}");
    assert_eq!(body.trim(), String::from_utf8(cli.stdout).unwrap().trim());
    let (status, _, body) = server.request("GET", "/api/probe?game=sogo&position=a1a1a1a1a1");
    assert_eq!(status, 400, "a full column: {body}");
}

/// Both cube games are usable from the first move: `play` shows its first prompt without
/// searching (Sogo's start is not solved, Qubic's first moves take minutes to prove each), and
/// `probe --json ""` answers within its default limit with what is settled, the rest marked
/// `"unknown"`, every legal move listed. The time bounds are generous: they show only that
/// nothing waits for a search without end.
#[test]
fn qubic_and_sogo_answer_from_the_first_move() {
    let scratch = tempfile::tempdir().unwrap();
    let dir: &'static str = scratch.path().to_str().unwrap().to_string().leak();
    for game in ["qubic", "sogo"] {
        let started = std::time::Instant::now();
        let mut session = Session::start(&["play", game, "--dir", "tables"]);
        assert_eq!(session.until_prompt().as_deref(), Some(""), "{game}");
        assert!(started.elapsed().as_secs_f64() < 5.0, "{game}: the first prompt waited for a search");
        session.send("quit");
        assert!(session.finish().contains("Game abandoned."), "{game}");
    }
    // Sogo's early positions are not settled in the time a move has: the perfect player still
    // answers, with a move that does not lose at once and its value said to be unknown.
    let mut session = Session::start(&["play", "sogo", "--dir", dir, "--max-time", "2"]);
    session.until_prompt();
    session.send("b2");
    assert!(session.until_prompt().is_some_and(|position| position.starts_with("b2") && position.len() == 4));
    session.send("quit");
    let transcript = session.finish();
    assert!(
        transcript.contains("Black plays ") && transcript.contains("not settled within the time limit"),
        "{transcript}"
    );
    assert!(transcript.contains("Game abandoned."));
    // Both at once: each takes its whole default limit where nothing settles. On one thread
    // each, so that the two do not hold every core of the machine for their 30 s (the other
    // tests beside them): what they answer is the same kind of answer on any number of threads.
    let probes: Vec<_> = [("qubic", "tables", 64), ("sogo", dir, 16)]
        .into_iter()
        .map(|(game, dir, moves)| {
            std::thread::spawn(move || {
                let started = std::time::Instant::now();
                let out = Command::new(BINARY)
                    .args(["probe", game, "--dir", dir, "--json", ""])
                    .env("RAYON_NUM_THREADS", "1")
                    .stdin(Stdio::null())
                    .output()
                    .unwrap();
                (game, moves, started.elapsed().as_secs_f64(), out)
            })
        })
        .collect();
    for probe in probes {
        let (game, moves, seconds, out) = probe.join().unwrap();
        assert!(out.status.success(), "{game}: {}", String::from_utf8_lossy(&out.stderr));
        assert!(seconds < 60.0, "{game}: {seconds} s for a default limit of 30 s");
        let text = String::from_utf8(out.stdout).unwrap();
        let value = if game == "qubic" { "win" } else { "unknown" };
        assert!(text.starts_with(&format!("{{\"position\": \"\", \"value\": \"{value}\"")), "{game}: {text}");
        assert_eq!(text.matches("\"move\": ").count(), moves, "{game}: every legal move listed");
        let unknown = text.matches("\"value\": \"unknown\", \"plies\": null}").count();
        let settled =
            text.matches("\"distance\": \"unknown\"}").count() + text.matches("\"value\": \"draw\"").count();
        assert_eq!(unknown + settled, moves, "{game}: a move is settled or unknown: {text}");
    }
    // Brief has no moves to mark: the start's unsettled value is an error that names the way
    // to lift the limit.
    let out = tablebase(&["probe", "sogo", "--dir", dir, "--brief", "--max-time", "1", ""]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--max-time"));
}

/// The perfect player of Qubic opens as White with a move proved to keep the win, at once (the
/// book's win, and the checked-in journal's records of White's win after each kind of Black's
/// reply to a corner), and answers Black's replies with moves proved winning too (a proof by
/// parts names its first move), never a move whose value is not settled.
#[test]
fn play_qubic_as_white_keeps_the_win_from_the_first_move() {
    for (seed, reply) in [("1", 0usize), ("2", 5)] {
        let started = std::time::Instant::now();
        let mut session = Session::start(&[
            "play",
            "qubic",
            "--dir",
            "tables",
            "--side",
            "black",
            "--seed",
            seed,
            "--max-time",
            "300",
        ]);
        let opened = session.until_prompt().expect("White's first move, then the prompt");
        assert!(started.elapsed().as_secs_f64() < 5.0, "the first move waited for a search");
        assert_eq!(opened.len(), 3, "{opened}");
        // Black's reply: one of the empty cells, a different kind of reply for each seed.
        let cells: Vec<String> =
            (0..64).map(|i| format!("{}{}{}", (b'a' + i % 4) as char, i / 4 % 4 + 1, i / 16 + 1)).collect();
        let free: Vec<&String> = cells.iter().filter(|c| **c != opened).collect();
        session.send(free[reply * 7]);
        let answered = session.until_prompt().expect("White's second move");
        assert_eq!(answered.len(), 9, "{answered}");
        session.send("quit");
        let transcript = session.finish();
        let white: Vec<&str> = transcript.lines().filter(|l| l.starts_with("White plays ")).collect();
        assert_eq!(white.len(), 2, "{transcript}");
        for line in white {
            assert!(line.ends_with("(it wins (the distance is not known))."), "{line}");
        }
    }
}

/// `--max-time` asks for exact distances: a Sogo position of 34 stones whose outcome is proved
/// in a second but whose distance the quarter-second exact search does not find gets it when
/// the limit allows (the exact search alone finds a loss in 26).
#[test]
fn sogo_gets_its_exact_distance_when_a_limit_is_given() {
    let scratch = tempfile::tempdir().unwrap();
    let dir = scratch.path().to_str().unwrap();
    let position = "b1d1a2c4a3b4b3a2d2a3c1b3c1d1a2a2d1c4d1c1a3a1a4b1c4d2c1d2a4a4b1d3d3b2";
    let out = tablebase(&["probe", "sogo", "--dir", dir, "--brief", "--max-time", "120", position]);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "loss\t26\n",
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
