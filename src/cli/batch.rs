//! `probe -`: a batch of positions, one per input line, answered in parallel and written in
//! input order, with the exit status of the worst error (docs/CLI.md, "Exit status").

use super::error::{explain, probe_exit_code};
use super::output::{Format, answer, brief, error_line};
use tablebase::probe::{Probe, ProbeError, Reads};

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
fn answer_piece<G: Probe>(
    game: &G,
    bytes: &[u8],
    format: Format,
    with_line: bool,
    limit: Option<f64>,
) -> Piece {
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
    // A line over MAX_LINE bytes is refused however the reads cut it, whole in one read or not.
    let refused = |line: &str| (line.len() > MAX_LINE).then(overlong_line);
    if format == Format::Brief && !with_line {
        // Parse all, look up all, then write: the fast path for big batches.
        let parsed: Vec<Result<G::Position, ProbeError>> = lines
            .iter()
            .map(|line| match (blank(line), refused(line)) {
                (_, Some(e)) => Err(e),
                (true, None) => Err(ProbeError::Illegal("empty line: no position".into())),
                (false, None) => game.parse(line),
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
            let result = match (blank(line), refused(line)) {
                (_, Some(e)) => Err(e),
                (true, None) => Err(ProbeError::Illegal("empty line: no position".into())),
                (false, None) => answer(game, line, format, with_line, limit),
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
    /// A table file changed (by another program) while the batch read it: the answers read
    /// since are not written, and the batch stops.
    Changed(ProbeError),
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
    limit: Option<f64>,
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
    // The start of a line over MAX_LINE bytes whose end is still to come: the rest of it is
    // read and dropped, never held.
    let mut overlong: Option<Vec<u8>> = None;
    let mut at_end = false;
    while !at_end {
        let n = input.read(&mut buffer).map_err(BatchError::Input)?;
        at_end = n == 0;
        let mut fresh = &buffer[..n];
        if let Some(start) = &overlong {
            match fresh.iter().position(|&b| b == b'\n') {
                Some(end) => fresh = &fresh[end + 1..],
                None if at_end => fresh = &[],
                None => continue,
            }
            let (text, e) = (String::from_utf8_lossy(start), overlong_line());
            code = worse(code, probe_exit_code(&e));
            out.flush().map_err(|e| BatchError::Output(e, code))?;
            if let Some(answer) = error_line(format, &text, &e) {
                writeln!(out, "{answer}").map_err(|e| BatchError::Output(e, code))?;
            }
            say_error(first_line, &e);
            first_line += 1;
            overlong = None;
            out.flush().map_err(|e| BatchError::Output(e, code))?;
        }
        // Only the bytes just read are searched for the last line end: what was pending before
        // holds none, and searching it again at every read would take time quadratic in the
        // length of a line that arrives in many reads (a pipe gives 64 KB at a time).
        let before = pending.len();
        pending.extend_from_slice(fresh);
        let cut = if at_end {
            pending.len()
        } else {
            pending[before..].iter().rposition(|&b| b == b'\n').map_or(0, |i| before + i + 1)
        };
        if cut > 0 {
            let pieces = line_pieces(&pending[..cut], PIECE);
            let reads = Reads::start();
            let answers: Vec<Piece> =
                pieces.par_iter().map(|piece| answer_piece(game, piece, format, with_line, limit)).collect();
            // Asked after the reads and before the answers are written: a table's blocks are
            // checked once, and a file cut within a page or written in place since gives its
            // new bytes unchecked.
            if let Err(e) = game.unchanged(reads) {
                out.flush().map_err(|e| BatchError::Output(e, code))?;
                return Err(BatchError::Changed(e));
            }
            for piece in answers {
                // Counted before anything is written, so that output cut short still reports them.
                for (_, e) in &piece.errors {
                    code = worse(code, probe_exit_code(e));
                }
                if !piece.errors.is_empty() {
                    // Keep the order of answers and errors when both go to a terminal.
                    out.flush().map_err(|e| BatchError::Output(e, code))?;
                }
                out.write_all(piece.answers.as_bytes()).map_err(|e| BatchError::Output(e, code))?;
                for (k, e) in piece.errors {
                    say_error(first_line + k, &e);
                }
                first_line += piece.lines;
            }
            // Another program may be waiting for these answers before it writes more questions.
            out.flush().map_err(|e| BatchError::Output(e, code))?;
            pending.drain(..cut);
        }
        if pending.len() > MAX_LINE {
            // Its start, for the error line; the rest goes as it comes.
            let mut start = std::mem::take(&mut pending);
            start.truncate(QUOTED);
            overlong = Some(start);
        }
    }
    Ok(code)
}

/// The longest line a batch reads: far beyond any position (a Qubic game of 64 moves is 256
/// bytes), short enough that a line without end cannot take the machine's memory.
pub const MAX_LINE: usize = 64 << 10;

/// Bytes kept of an overlong line, for its error line (which quotes 60 characters).
const QUOTED: usize = 256;

/// The error of a line over [`MAX_LINE`] bytes.
fn overlong_line() -> ProbeError {
    ProbeError::Illegal(format!("line longer than {MAX_LINE} bytes: not a position"))
}

/// Says on standard error that line `number` failed with `e`. Never a panic on a closed standard
/// error: the answers on standard output are what the batch is for.
fn say_error(number: usize, e: &ProbeError) {
    let _ = std::io::Write::write_fmt(
        &mut std::io::stderr(),
        format_args!("tablebase: line {number}: {}\n", explain(e)),
    );
}

/// The exit code to report when both happened: usage errors (2) before runtime errors (1).
pub fn worse(a: i32, b: i32) -> i32 {
    match (a, b) {
        (2, _) | (_, 2) => 2,
        _ => a.max(b),
    }
}
