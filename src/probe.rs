//! Probing, shared by every game: a position's value, every move with its outcome (best first),
//! and the best line; and the output formats of `probe` (docs/CLI.md, "Commands" and "JSON").

use crate::table::TableError;
use crate::value::Value;
use std::fmt;
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

/// Why a position cannot be probed.
#[derive(Debug)]
pub enum ProbeError {
    /// The position is malformed or cannot arise: a usage error (exit 2).
    Illegal(String),
    /// A table the position needs is not on disk; `command` generates it.
    NotGenerated {
        /// The table looked for.
        path: PathBuf,
        /// The command that generates it.
        command: String,
    },
    /// A table is there but cannot be used: damaged, incomplete, another version. Shared,
    /// since a table that failed to open answers every later position with the same error.
    Damaged(Arc<TableError>),
    /// Positions of a kind this version cannot solve yet.
    Unavailable(String),
}

impl ProbeError {
    /// The exit code of docs/CLI.md, "Commands".
    pub fn exit_code(&self) -> i32 {
        match self {
            ProbeError::Illegal(_) => 2,
            ProbeError::NotGenerated { .. } | ProbeError::Damaged(_) | ProbeError::Unavailable(_) => 1,
        }
    }
}

impl fmt::Display for ProbeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProbeError::Illegal(why) => write!(f, "{why}"),
            ProbeError::NotGenerated { path, command } => {
                write!(f, "{}: table not generated (run: {command})", path.display())
            }
            ProbeError::Damaged(error) => write!(f, "{error}"),
            ProbeError::Unavailable(why) => write!(f, "{why}"),
        }
    }
}

impl std::error::Error for ProbeError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            // Its message is shown as this error's own; the chain goes on with its cause.
            ProbeError::Damaged(error) => error.source(),
            _ => None,
        }
    }
}

impl From<TableError> for ProbeError {
    fn from(error: TableError) -> ProbeError {
        ProbeError::Damaged(Arc::new(error))
    }
}

impl ProbeError {
    /// A table that cannot be read: not generated (with the command that generates it), or
    /// damaged.
    pub fn from_table(error: &Arc<TableError>, command: impl FnOnce() -> String) -> ProbeError {
        match &**error {
            TableError::Missing { path } => {
                ProbeError::NotGenerated { path: path.clone(), command: command() }
            }
            _ => ProbeError::Damaged(Arc::clone(error)),
        }
    }
}

/// Tables mapped on first use, read-only and shared by threads: a slot per table.
pub(crate) struct LazyTables<T> {
    slots: Vec<OnceLock<Result<T, Arc<TableError>>>>,
}

impl<T> LazyTables<T> {
    pub fn new(tables: usize) -> LazyTables<T> {
        LazyTables { slots: (0..tables).map(|_| OnceLock::new()).collect() }
    }

    /// The table in `slot`, opened by `open` the first time; `command` generates it.
    pub fn get(
        &self,
        slot: usize,
        open: impl FnOnce() -> Result<T, TableError>,
        command: impl FnOnce() -> String,
    ) -> Result<&T, ProbeError> {
        self.slots[slot]
            .get_or_init(|| open().map_err(Arc::new))
            .as_ref()
            .map_err(|e| ProbeError::from_table(e, command))
    }
}

/// A game whose positions can be probed in its tables.
pub trait Probe: Sync {
    /// A position of the game.
    type Position: Clone + Eq + std::hash::Hash;
    /// A move, displayed in the game's notation.
    type Move: Copy + fmt::Display;

    /// Parses one position of the command line's notation.
    fn parse(&self, text: &str) -> Result<Self::Position, ProbeError>;
    /// The position in the notation `parse` reads.
    fn notation(&self, position: &Self::Position) -> String;
    /// The value of the position.
    fn value(&self, position: &Self::Position) -> Result<Value, ProbeError>;
    /// The values of many positions. Games override it to look the tables up in a separate
    /// tight loop, so that the processor overlaps the (mostly cache- and TLB-missing) reads.
    fn values(&self, positions: &[Self::Position]) -> Vec<Result<Value, ProbeError>> {
        positions.iter().map(|p| self.value(p)).collect()
    }
    /// Every legal move with the position it leads to and the value that gives the mover.
    fn moves(&self, position: &Self::Position) -> Result<Vec<Outcome<Self>>, ProbeError>;
    /// A few lines that show the position to a person, and a sentence with its value.
    fn describe(&self, position: &Self::Position, value: Value) -> String;
    /// Whether `probe -` skips blank lines (false where the empty string is a position).
    fn skips_blank_lines(&self) -> bool {
        true
    }
}

/// A legal move, where it leads, and what that gives the side to move.
pub struct Outcome<G: Probe + ?Sized> {
    /// The move.
    pub mv: G::Move,
    /// The position it leads to.
    pub next: G::Position,
    /// What it gives the side to move.
    pub value: Value,
}

/// A probed position: its value and every move, best first.
#[derive(Clone, Debug)]
pub struct Probed<M> {
    /// The value of the position.
    pub value: Value,
    /// Every legal move with what it gives the side to move, best first.
    pub moves: Vec<(M, Value)>,
}

/// The value and all moves of `position`, best first (ties in the order the game lists moves).
pub fn probe<G: Probe>(game: &G, position: &G::Position) -> Result<Probed<G::Move>, ProbeError> {
    let value = game.value(position)?;
    let mut moves: Vec<(G::Move, Value)> =
        game.moves(position)?.into_iter().map(|o| (o.mv, o.value)).collect();
    moves.sort_by_key(|&(_, value)| std::cmp::Reverse(value));
    Ok(Probed { value, moves })
}

/// Plies a drawn line is followed at most before giving up on finding a repetition.
const MAX_DRAW_LINE: usize = 10_000;

/// A principal variation: best moves to the end of the game, or for a draw until a position
/// repeats.
pub fn best_line<G: Probe>(game: &G, position: &G::Position) -> Result<Vec<G::Move>, ProbeError> {
    let mut line = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut current = position.clone();
    loop {
        let value = game.value(&current)?;
        if !seen.insert(current.clone()) || line.len() >= MAX_DRAW_LINE {
            break;
        }
        let moves = game.moves(&current)?;
        // The first move that keeps the value: a win in n goes to a loss in n - 1, a loss in n
        // to a win in n - 1, a draw to a draw.
        let Some(best) = moves.into_iter().find(|o| o.value == value) else {
            break; // no move: the game is over
        };
        line.push(best.mv);
        current = best.next;
    }
    Ok(line)
}

fn plies_json(value: Value) -> String {
    value.distance().map_or("null".to_string(), |n| n.to_string())
}

/// `--json`: one object per position (docs/CLI.md, "JSON").
pub fn json<M: fmt::Display>(position: &str, probed: &Probed<M>, line: Option<&[M]>) -> String {
    let moves: Vec<String> = probed
        .moves
        .iter()
        .map(|(m, v)| {
            format!("{{\"move\": \"{m}\", \"value\": \"{}\", \"plies\": {}}}", v.word(), plies_json(*v))
        })
        .collect();
    let mut out = format!(
        "{{\"position\": \"{}\", \"value\": \"{}\", \"plies\": {}, \"moves\": [{}]",
        position,
        probed.value.word(),
        plies_json(probed.value),
        moves.join(", ")
    );
    if let Some(line) = line {
        let line: Vec<String> = line.iter().map(|m| format!("\"{m}\"")).collect();
        out.push_str(&format!(", \"line\": [{}]", line.join(", ")));
    }
    out.push('}');
    out
}

/// `--brief`: `<value>\t<plies>`, `draw\t-` for a draw.
pub fn brief(value: Value) -> String {
    match value.distance() {
        Some(n) => format!("{}\t{n}", value.word()),
        None => "draw\t-".to_string(),
    }
}

/// The text for people: diagram and sentence, then the moves.
pub fn text<G: Probe>(
    game: &G,
    position: &G::Position,
    probed: &Probed<G::Move>,
    line: Option<&[G::Move]>,
) -> String {
    let mut out = game.describe(position, probed.value);
    if !out.ends_with('\n') {
        out.push('\n');
    }
    if !probed.moves.is_empty() {
        out.push_str("moves:\n");
        for (m, v) in &probed.moves {
            out.push_str(&format!("  {:<12} {v}\n", m.to_string()));
        }
    }
    if let Some(line) = line {
        let moves: Vec<String> = line.iter().map(|m| m.to_string()).collect();
        out.push_str(&format!(
            "best line: {}\n",
            if moves.is_empty() { "-".to_string() } else { moves.join(" ") }
        ));
    }
    out
}

/// How `probe` prints each position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// For people: the board, the value in words, the moves.
    Text,
    /// One JSON object per position, one per line (docs/CLI.md, "JSON").
    Json,
    /// `<value>\t<plies>`: the fast path for batches.
    Brief,
}

/// The output for one position in `format` (with the best line when `with_line`).
pub fn answer<G: Probe>(
    game: &G,
    input: &str,
    format: Format,
    with_line: bool,
) -> Result<String, ProbeError> {
    let position = game.parse(input)?;
    if format == Format::Brief {
        let mut out = brief(game.value(&position)?);
        if with_line {
            let line: Vec<String> = best_line(game, &position)?.iter().map(|m| m.to_string()).collect();
            out.push('\t');
            out.push_str(&line.join(" "));
        }
        return Ok(out);
    }
    let probed = probe(game, &position)?;
    let line = if with_line { Some(best_line(game, &position)?) } else { None };
    Ok(match format {
        Format::Json => json(&game.notation(&position), &probed, line.as_deref()),
        _ => text(game, &position, &probed, line.as_deref()),
    })
}

/// The answers to one piece of a batch: its output, its errors by line within the piece, and
/// its number of lines.
struct Piece {
    answers: String,
    errors: Vec<(usize, ProbeError)>,
    lines: usize,
}

/// `bytes` (whole lines) cut into pieces of about `size` bytes, each ending at a line end (a
/// byte that never falls inside a UTF-8 character, so each piece reads as text on its own).
fn line_pieces(bytes: &[u8], size: usize) -> Vec<&[u8]> {
    let mut pieces = Vec::with_capacity(bytes.len() / size + 1);
    let mut rest = bytes;
    while !rest.is_empty() {
        let end = match rest.get(size..).and_then(|tail| tail.iter().position(|&b| b == b'\n')) {
            Some(i) => size + i + 1,
            None => rest.len(),
        };
        let (piece, tail) = rest.split_at(end);
        pieces.push(piece);
        rest = tail;
    }
    pieces
}

/// Answers the lines of one piece of a batch.
fn answer_piece<G: Probe>(game: &G, bytes: &[u8], format: Format, with_line: bool) -> Piece {
    let text = String::from_utf8_lossy(bytes);
    let lines: Vec<&str> = text.lines().collect();
    let skip_blank = game.skips_blank_lines();
    let mut answers = String::with_capacity(lines.len() * 16);
    let mut errors = Vec::new();
    let mut answered = |k: usize, line: &str, result: Result<String, ProbeError>| match result {
        Ok(text) => {
            answers.push_str(&text);
            answers.push('\n');
        }
        Err(e) => {
            if let Some(text) = error_line(format, line, &e) {
                answers.push_str(&text);
                answers.push('\n');
            }
            errors.push((k, e));
        }
    };
    let blank = |line: &str| skip_blank && line.trim().is_empty();
    if format == Format::Brief && !with_line {
        // Parse all, look up all, then write: the fast path for big batches.
        let parsed: Vec<Result<G::Position, ProbeError>> = lines
            .iter()
            .map(|line| match blank(line) {
                true => Err(ProbeError::Illegal("empty line: no position".into())),
                false => game.parse(line),
            })
            .collect();
        let positions: Vec<G::Position> = parsed.iter().filter_map(|p| p.as_ref().ok()).cloned().collect();
        let mut values = game.values(&positions).into_iter();
        for (k, (line, parsed)) in lines.iter().zip(parsed).enumerate() {
            let value = parsed.and_then(|_| values.next().expect("a value per position"));
            answered(k, line, value.map(brief));
        }
    } else {
        for (k, line) in lines.iter().enumerate() {
            if blank(line) && format == Format::Text {
                continue;
            }
            let result = match blank(line) {
                true => Err(ProbeError::Illegal("empty line: no position".into())),
                false => answer(game, line, format, with_line),
            };
            answered(k, line, result);
        }
    }
    Piece { answers, errors, lines: lines.len() }
}

/// Reading the questions or writing the answers of a batch failed.
#[derive(Debug)]
pub enum BatchError {
    /// Reading the input failed.
    Input(std::io::Error),
    /// Writing the output failed, with the exit code of the lines answered before.
    Output(std::io::Error, i32),
}

/// Answers a batch of positions, one per input line, in parallel, writing answers in input order
/// to `out` and errors (with their line numbers) to standard error. Returns the exit code:
/// 0, or 2 when a line was malformed or illegal, else 1 when a table was missing or damaged.
pub fn answer_lines<G: Probe>(
    game: &G,
    mut input: impl std::io::Read,
    out: &mut impl std::io::Write,
    format: Format,
    with_line: bool,
) -> Result<i32, BatchError> {
    use rayon::prelude::*;
    // Input is read in blocks of whole lines, cut into pieces at line ends, and the pieces are
    // answered in parallel, each into one string: per-line allocations and per-line tasks
    // would cost more than probing, and so would reading the text of a block on one thread.
    const BLOCK: usize = 8 << 20;
    const PIECE: usize = 64 << 10;
    let mut code = 0;
    let mut first_line = 1usize;
    let mut pending: Vec<u8> = Vec::new();
    let mut buffer = vec![0u8; BLOCK];
    let mut at_end = false;
    while !at_end {
        let n = input.read(&mut buffer).map_err(BatchError::Input)?;
        at_end = n == 0;
        pending.extend_from_slice(&buffer[..n]);
        // Answer every complete line; keep a partial last line for the next read.
        let cut = if at_end {
            pending.len()
        } else {
            pending.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1)
        };
        if cut == 0 && !at_end {
            continue;
        }
        let pieces = line_pieces(&pending[..cut], PIECE);
        let answers: Vec<Piece> =
            pieces.par_iter().map(|piece| answer_piece(game, piece, format, with_line)).collect();
        for piece in answers {
            // Counted before anything is written, so that output cut short still reports them.
            for (_, e) in &piece.errors {
                code = worse(code, e.exit_code());
            }
            if !piece.errors.is_empty() {
                // Keep the order of answers and errors when both go to a terminal.
                out.flush().map_err(|e| BatchError::Output(e, code))?;
            }
            out.write_all(piece.answers.as_bytes()).map_err(|e| BatchError::Output(e, code))?;
            for (k, e) in piece.errors {
                // Never a panic on a closed standard error: the answers on standard output are
                // what the batch is for.
                let _ = std::io::Write::write_fmt(
                    &mut std::io::stderr(),
                    format_args!("tablebase: line {}: {e}\n", first_line + k),
                );
            }
            first_line += piece.lines;
        }
        // Another program may be waiting for these answers before it writes more questions.
        out.flush().map_err(|e| BatchError::Output(e, code))?;
        pending.drain(..cut);
    }
    Ok(code)
}

/// The sentence that says who is to move and what they get: `White to move wins in 5 plies`.
pub fn verdict(side: &str, value: Value) -> String {
    match value {
        Value::Win(n) => format!("{side} to move wins in {}", plies(n)),
        Value::Loss(0) => format!("{side} to move has lost"),
        Value::Loss(n) => format!("{side} to move loses in {}", plies(n)),
        Value::Draw => format!("{side} to move: draw"),
    }
}

/// A distance in words: `1 ply`, `17 plies`.
pub fn plies(n: u32) -> String {
    if n == 1 { "1 ply".to_string() } else { format!("{n} plies") }
}

/// Input as error messages echo it: at most 60 characters, control characters escaped, so
/// that a megabyte line or a terminal escape sequence cannot flood or garble the terminal.
pub fn quote(text: &str) -> String {
    const MOST: usize = 60;
    let mut quoted = String::new();
    for (n, c) in text.chars().enumerate() {
        if n == MOST {
            quoted.push_str("...");
            break;
        }
        match c.is_control() {
            true => quoted.extend(c.escape_default()),
            false => quoted.push(c),
        }
    }
    quoted
}

/// `text` as a JSON string, quotes included.
pub fn json_string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The line of a batch's output that stands for a bad input line, so that answers stay in step
/// with questions: `error\t<reason>`, or `{"position": ..., "error": ...}` for `--json`.
pub fn error_line(format: Format, line: &str, error: &ProbeError) -> Option<String> {
    match format {
        Format::Brief => Some(format!("error\t{error}")),
        Format::Json => Some(format!(
            "{{\"position\": {}, \"error\": {}}}",
            json_string(&quote(line)),
            json_string(&error.to_string())
        )),
        Format::Text => None,
    }
}

/// The exit code to report when both happened: usage errors (2) before runtime errors (1).
pub fn worse(a: i32, b: i32) -> i32 {
    match (a, b) {
        (2, _) | (_, 2) => 2,
        _ => a.max(b),
    }
}
