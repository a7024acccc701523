//! Tic-tac-toe, the smallest game of the registry, through every command: generate, info,
//! verify, probe (text, JSON, picture), play and serve; and every reachable position's value
//! and distance against a plain minimax written here, apart from the program.

use crate::common;

use std::collections::HashMap;
use std::io::{Read, Write};
use std::process::{Command, Output};
use tablebase::games::tictactoe::{Board, Cell, TicTacToeTablebase};
use tablebase::{Probe, Value};

const BINARY: &str = env!("CARGO_BIN_EXE_tablebase");

fn tablebase(args: &[&str]) -> Output {
    Command::new(BINARY).args(args).output().expect("the binary runs")
}

/// The tables, generated once for every test of this file.
fn tables() -> &'static std::path::Path {
    static DIR: std::sync::OnceLock<std::path::PathBuf> = std::sync::OnceLock::new();
    DIR.get_or_init(|| {
        let dir = common::shared_scratch("tictactoe");
        let out = tablebase(&["generate", "tictactoe", "--dir", dir.to_str().unwrap()]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        dir
    })
}

fn dir() -> &'static str {
    tables().to_str().unwrap()
}

/// Minimax by plain recursion over boards: win or loss with the plies to the end under
/// perfect play (the winner hurries, the loser delays), or a draw.
fn minimax(board: Board, memo: &mut HashMap<Board, Value>) -> Value {
    if let Some(&value) = memo.get(&board) {
        return value;
    }
    let value = if board.is_won_by_previous() {
        Value::Loss(0)
    } else if board.stones() == 9 {
        Value::Draw
    } else {
        let children: Vec<Value> = board.moves().map(|cell| minimax(board.play(cell), memo)).collect();
        let fastest_win =
            children.iter().filter_map(|v| if let Value::Loss(n) = v { Some(n + 1) } else { None }).min();
        let slowest_loss =
            children.iter().filter_map(|v| if let Value::Win(n) = v { Some(n + 1) } else { None }).max();
        match (fastest_win, children.contains(&Value::Draw)) {
            (Some(n), _) => Value::Win(n),
            (None, true) => Value::Draw,
            (None, false) => Value::Loss(slowest_loss.expect("a position that is not over has a move")),
        }
    };
    memo.insert(board, value);
    value
}

#[test]
fn every_reachable_position_has_the_value_and_distance_of_minimax() {
    let tb = TicTacToeTablebase::open(tables());
    let mut memo = HashMap::new();
    minimax(Board::default(), &mut memo);
    assert_eq!(memo.len(), 5478, "positions reachable in play");
    // Each board through one of the sequences of cells that reach it.
    let mut reached: HashMap<Board, String> = HashMap::from([(Board::default(), String::new())]);
    let mut frontier = vec![Board::default()];
    while let Some(board) = frontier.pop() {
        for cell in board.moves() {
            let next = board.play(cell);
            if !reached.contains_key(&next) {
                reached.insert(next, format!("{}{cell}", reached[&board]));
                frontier.push(next);
            }
        }
    }
    assert_eq!(reached.len(), 5478);
    for (board, moves) in &reached {
        let position = tb.parse(moves).unwrap();
        assert_eq!(position.board, *board);
        assert_eq!(tb.value(&position).unwrap(), memo[board], "{moves}");
    }
    assert_eq!(memo[&Board::default()], Value::Draw);
}

#[test]
fn info_and_verify_count_5478_positions_765_up_to_symmetry() {
    let out = tablebase(&["info", "tictactoe", "--dir", dir(), "--json"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.lines().count(), 10, "a table per ply");
    let positions: u64 = text
        .lines()
        .map(|l| {
            l.split("\"positions\": ").nth(1).unwrap().split(',').next().unwrap().parse::<u64>().unwrap()
        })
        .sum();
    assert_eq!(positions, 5478);
    // The entries of the tables are the positions up to symmetry: the sets' members.
    let layers = tablebase::layered::Layered::new(tablebase::games::tictactoe::TicTacToe);
    let entries: u64 = (0..10)
        .map(|ply| layers.open_layer(tables(), ply, |_| tablebase::table::Check::Header).unwrap().set.len())
        .sum();
    assert_eq!(entries, 765);

    let out = tablebase(&["verify", "tictactoe", "--dir", dir(), "--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    for line in text.lines() {
        for field in [
            "\"consistent\": true",
            "\"checksum\": \"ok\"",
            "\"reference\": \"match\"",
            "\"published\": \"match\"",
        ] {
            assert!(line.contains(field), "{field} in {line}");
        }
    }
    assert_eq!(text.lines().count(), 10);
}

#[test]
fn probe_gives_values_moves_lines_and_pictures() {
    let out = tablebase(&["probe", "tictactoe", "--dir", dir(), "--json", "--line", ""]);
    assert!(out.status.success());
    let json = String::from_utf8(out.stdout).unwrap();
    assert!(json.starts_with("{\"position\": \"\", \"value\": \"draw\", \"plies\": null"), "{json}");
    let line = json.split("\"line\": [").nth(1).unwrap();
    assert_eq!(line.matches('"').count(), 18, "a drawn game fills the board: {line}");
    // X in a corner, O beside it on an edge: X wins, in 5 more plies of X's and O's.
    let out = tablebase(&["probe", "tictactoe", "--dir", dir(), "--brief", "a1b1"]);
    assert_eq!(String::from_utf8(out.stdout).unwrap(), "win\t5\n");
    // Three in a row: the side to move has lost.
    let out = tablebase(&["probe", "tictactoe", "--dir", dir(), "--brief", "a1a2b1b2c1"]);
    assert_eq!(String::from_utf8(out.stdout).unwrap(), "loss\t0\n");
    // Bad positions: one line each, exit 2.
    for bad in ["a1a1", "d4", "a1a2b1b2c1c3", "a"] {
        let out = tablebase(&["probe", "tictactoe", "--dir", dir(), bad]);
        assert_eq!(out.status.code(), Some(2), "{bad}");
        assert_eq!(String::from_utf8_lossy(&out.stderr).lines().count(), 1, "{bad}");
    }
    let scratch = common::scratch("tictactoe-svg");
    let svg = scratch.join("b2.svg");
    let out =
        tablebase(&["probe", "tictactoe", "--dir", dir(), "--brief", "--svg", svg.to_str().unwrap(), "b2"]);
    assert!(out.status.success());
    let picture = std::fs::read_to_string(&svg).unwrap();
    assert_eq!(picture.matches("<g class=\"move\"").count(), 8, "a mark per empty cell");
    assert_eq!(picture.matches("class=\"stone first\"").count(), 1);
}

#[test]
fn play_goes_on_against_the_perfect_player() {
    let out = common::tablebase_with_input(
        BINARY,
        &["play", "tictactoe", "--dir", dir(), "--seed", "7"],
        "hint\nb2\nquit\n",
    );
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("Tic-tac-toe."), "{text}");
    assert!(text.contains("You play b2."), "{text}");
    assert!(text.contains("O plays "), "{text}");
    // Playing second, the perfect player opens.
    let out = common::tablebase_with_input(
        BINARY,
        &["play", "tictactoe", "--dir", dir(), "--side", "second", "--seed", "7"],
        "quit\n",
    );
    assert!(String::from_utf8(out.stdout).unwrap().contains("X plays "));
    // The last line counts the plies played in this game: none from a position that is over
    // (X has a1 a2 a3), one where the perfect player (O) completes c1 b2 a3 at once.
    let last_line = |from: &str| {
        let args = ["play", "tictactoe", "--dir", dir(), "--from", from, "--seed", "7"];
        let out = common::tablebase_with_input(BINARY, &args, "quit\n");
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap().lines().last().unwrap().to_string()
    };
    assert_eq!(last_line("a1b1a2b2a3"), "You win (X): the game was over in the position given.");
    assert_eq!(last_line("a1b1a2b2b3c1c2"), "The perfect player wins (O) after 1 ply.");
}

#[test]
fn serve_offers_tictactoe_and_probes_it() {
    let served = common::Served::start(BINARY, tables());
    let get = |target: &str| {
        let mut stream = std::net::TcpStream::connect(("127.0.0.1", served.port)).unwrap();
        write!(stream, "GET {target} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n").unwrap();
        let mut response = String::new();
        stream.read_to_string(&mut response).unwrap();
        response.split_once("\r\n\r\n").unwrap().1.to_string()
    };
    let games = get("/api/games");
    assert!(games.contains("{\"game\": \"tictactoe\", \"name\": \"Tic-tac-toe\", \"settings\": [], \"present\": [{\"settings\": {}, \"title\": \"Tic-tac-toe\", \"start\": \"\"}]"), "{games}");
    let cli = tablebase(&["probe", "tictactoe", "--dir", dir(), "--json", "--line", "b2a1"]);
    assert_eq!(
        get("/api/probe?game=tictactoe&position=b2a1&line=1"),
        String::from_utf8(cli.stdout).unwrap().trim_end()
    );
    assert_eq!(get("/api/move?game=tictactoe&position=b2&move=a1"), "{\"position\": \"b2a1\"}");
    assert!(get("/api/svg?game=tictactoe&position=").contains("<g class=\"move\""));
    assert_eq!(Cell::parse("b2"), Some(Cell(4)));
}

/// Before a ply's forward pass has counted it, `plan` bounds its table by the published count
/// (every image counted apart, so never fewer than the positions stored) rather than by its
/// index space of 3^9: the raw tables made afterwards fit within those bounds.
#[test]
fn plan_bounds_each_table_by_its_published_count() {
    let empty = common::scratch("tictactoe-plan");
    let plan = tablebase(&["plan", "tictactoe", "--dir", empty.to_str().unwrap(), "--json"]);
    assert!(plan.status.success(), "{}", String::from_utf8_lossy(&plan.stderr));
    let plan: serde_json::Value = serde_json::from_slice(&plan.stdout).unwrap();
    let bound = |ply: u32| -> u64 {
        let job = plan["jobs"].as_array().unwrap().iter().find(|j| j["id"] == format!("ply-{ply}")).unwrap();
        job["disk_bytes"].as_u64().unwrap()
    };
    let raw = common::scratch("tictactoe-raw");
    let out = tablebase(&["generate", "tictactoe", "--raw", "--dir", raw.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    for ply in 0..=9 {
        let made = std::fs::metadata(raw.join(format!("tictactoe-ply{ply}.tbl"))).unwrap().len();
        assert!(made <= bound(ply), "ply {ply}: {made} bytes against a bound of {}", bound(ply));
    }
    // The empty board is one position: a header and a byte, not 19,683 bytes.
    assert!(bound(0) < 300, "{}", bound(0));
    std::fs::remove_dir_all(&raw).unwrap();
}
