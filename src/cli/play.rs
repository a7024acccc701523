//! `tablebase play`: a game in the terminal against the perfect player. Reads one command per
//! line, so it can be driven through a pipe as well as typed.

use super::batch::MAX_LINE;
use super::error::Error;
use std::io::{BufRead, Write};
use tablebase::Value;
use tablebase::play::{Ending, Match, MoveError, Play};
use tablebase::probe::{ProbeError, Reads};
use tablebase::search::{Work, within};
use tablebase::text::{BoundedLine, plies, quote, read_line_within};

/// A probe error as the command line reports it.
fn failed(e: ProbeError) -> Error {
    match e {
        ProbeError::Illegal(why) => Error::Usage(why),
        e => Error::Probe(e),
    }
}

fn say(out: &mut impl Write, text: &str) -> Result<(), Error> {
    writeln!(out, "{text}").map_err(Error::Output)
}

/// What the person types, and whether to write each line read after its prompt (input from a
/// pipe or a file, which no terminal shows).
pub struct Input<R> {
    pub lines: R,
    pub echo: bool,
}

/// The perfect player: the seed of its choices among equally good moves, and the seconds all
/// the searches of one of its moves may take together (`--max-time`).
pub struct Engine {
    pub seed: u64,
    pub max_time: f64,
}

/// Plays a game from `start` (or the game's start) with the person on side `human` (0 starts).
pub fn play<G: Play>(
    game: &G,
    title: &str,
    start: &str,
    human: usize,
    engine: Engine,
    input: Input<impl BufRead>,
    out: &mut impl Write,
) -> Result<(), Error> {
    let Input { lines: mut input, echo } = input;
    let Engine { seed, max_time } = engine;
    let start = game.parse(start).map_err(failed)?;
    // A missing table shows before the first prompt, not after the first move; a value that
    // needs a search is not sought here, so that the first prompt comes at once.
    let cheap = Work::without_searches();
    match Work::run(Some(&cheap), || game.value(&start)) {
        Err(_) if cheap.wanted_search() => {}
        checked => {
            checked.map_err(failed)?;
        }
    }
    let mut game_now = Match::new(game, start, seed);
    let names = game.side_names();
    let (you, engine) = (names[human], names[1 - human]);
    // Every line fits a terminal of 80 columns.
    say(out, &format!("{title}."))?;
    say(out, &format!("You play {you}, the perfect player plays {engine}; {} moves first.", names[0]))?;
    instructions(game, out)?;
    // Lines as bytes: a line that is not UTF-8 is a bad move to answer, not the end of the game.
    let mut redraw = true;
    loop {
        let position = game_now.position().clone();
        if redraw {
            say(out, "")?;
            write!(out, "{}", game.board(&position)).map_err(Error::Output)?;
            say(out, &format!("position: {}", game.notation(&position)))?;
        }
        redraw = true;
        // A result from a table file that changed under the reads (by another program) is not
        // announced.
        let reads = Reads::start();
        let ending = game_now.ending();
        game.unchanged(reads).map_err(failed)?;
        if let Some(ending) = ending.map_err(failed)? {
            let result = match ending {
                Ending::Won(side) if side == human => format!("You win ({you})"),
                Ending::Won(_) => format!("The perfect player wins ({engine})"),
                Ending::Drawn => "Draw".to_string(),
            };
            let when = match game_now.plies() {
                0 => ": the game was over in the position given".to_string(),
                1 => " after 1 ply".to_string(),
                n => format!(" after {n} plies"),
            };
            return say(out, &format!("{result}{when}."));
        }
        if game.side_to_move(&position) != human {
            // All the searches of one move within the limit; no move chosen from a table file
            // that changed under the reads (by another program).
            let reads = Reads::start();
            let reply = within(max_time, || game_now.reply());
            game.unchanged(reads).map_err(failed)?;
            if let Some((mv, value)) = reply.map_err(failed)? {
                say(out, &format!("{engine} plays {mv} ({}).", for_them(value)))?;
            }
            continue;
        }
        write!(out, "your move: ").map_err(Error::Output)?;
        out.flush().map_err(Error::Output)?;
        let line = match read_line_within(&mut input, MAX_LINE).map_err(Error::Input)? {
            None => return say(out, "\nEnd of input: the game stops here."),
            Some(BoundedLine::TooLong) => {
                if echo {
                    say(out, "")?;
                }
                say(
                    out,
                    &format!(
                        "That line is longer than {MAX_LINE} bytes: not a move. Type {}; or hint, undo, quit.",
                        game.move_hint()
                    ),
                )?;
                redraw = false;
                continue;
            }
            Some(BoundedLine::Whole(line)) => line,
        };
        if echo {
            // Input that is not typed is not shown by a terminal: without it, the answer would
            // follow the prompt on its line ("your move: Game abandoned.").
            let shown = String::from_utf8_lossy(&line);
            say(out, &tablebase::text::quote(shown.trim_end_matches('\r')))?;
        }
        let Ok(line) = String::from_utf8(line) else {
            say(
                out,
                &format!("That is not text (not UTF-8). Type {}; or hint, undo, quit.", game.move_hint()),
            )?;
            redraw = false;
            continue;
        };
        match line.trim() {
            "" => redraw = false,
            "quit" | "exit" | "q" => return say(out, "Game abandoned."),
            "help" | "?" => {
                instructions(game, out)?;
                redraw = false;
            }
            "hint" => {
                // What is settled within the limit; the rest is marked unknown.
                let reads = Reads::start();
                let probed = within(max_time, || tablebase::probe(game, &position));
                game.unchanged(reads).map_err(failed)?;
                let probed = probed.map_err(failed)?;
                let you = probed.value.map_or("may win or not (not settled in time)".to_string(), for_you);
                say(out, &format!("You {you}. Moves, best first:"))?;
                for (mv, value) in &probed.moves {
                    say(out, &format!("  {:<12} {value}", mv.to_string()))?;
                }
                for mv in &probed.unknown {
                    say(out, &format!("  {:<12} unknown (--max-time S searches longer)", mv.to_string()))?;
                }
                redraw = false;
            }
            "undo" => {
                // Back to the person's previous turn: their move and the reply to it.
                let mut taken = 0;
                while game_now.undo(1) == 1 {
                    taken += 1;
                    if game.side_to_move(game_now.position()) == human {
                        break;
                    }
                }
                if taken == 0 {
                    say(out, "Nothing to take back.")?;
                    redraw = false;
                } else {
                    say(out, &format!("Took back {taken} {}.", if taken == 1 { "ply" } else { "plies" }))?;
                }
            }
            typed => match game_now.play(typed) {
                Ok(mv) => say(out, &format!("You play {mv}."))?,
                Err(MoveError::Probe(e)) => return Err(failed(e)),
                Err(MoveError::Illegal { typed, legal }) if !legal.is_empty() => {
                    say(out, &format!("'{}' is not a legal move here. Legal moves:", quote(&typed)))?;
                    for line in wrapped(&legal, 76) {
                        say(out, &format!("  {line}"))?;
                    }
                    redraw = false;
                }
                Err(e) => {
                    say(out, &e.to_string())?;
                    redraw = false;
                }
            },
        }
    }
}

fn instructions<G: Play>(game: &G, out: &mut impl Write) -> Result<(), Error> {
    say(out, &format!("Type a move: {}.", game.move_hint()))?;
    say(out, "Or: hint (every move with its value), undo (your last move), quit.")
}

/// `words` joined by spaces into lines of at most `width` characters.
fn wrapped(words: &[String], width: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for word in words {
        match lines.last_mut() {
            Some(line) if line.len() + 1 + word.len() <= width => {
                line.push(' ');
                line.push_str(word);
            }
            _ => lines.push(word.clone()),
        }
    }
    lines
}

/// A value for the side to move, as a person hears it.
fn for_you(value: Value) -> String {
    match value {
        Value::Win(n) => format!("can win in {}", plies(n)),
        Value::Loss(n) => format!("lose in {} against perfect play", plies(n)),
        Value::Draw => "can hold the draw".to_string(),
        Value::WinUnknown => "can win (the distance is not known)".to_string(),
        Value::LossUnknown => "lose against perfect play (the distance is not known)".to_string(),
    }
}

/// What the perfect player's move gives it, where its searches settled it in time.
fn for_them(value: Option<Value>) -> String {
    let Some(value) = value else {
        return "its value is not settled within the time limit (--max-time S searches longer)".to_string();
    };
    match value {
        Value::Win(n) => format!("it wins in {}", plies(n)),
        Value::Loss(n) => format!("it loses in {}", plies(n)),
        Value::Draw => "a draw".to_string(),
        Value::WinUnknown => "it wins (the distance is not known)".to_string(),
        Value::LossUnknown => "it loses (the distance is not known)".to_string(),
    }
}
