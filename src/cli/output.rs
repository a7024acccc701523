//! How `probe` prints each position (docs/CLI.md, "Commands" and "JSON"), on the terminal and
//! for the page: the text for people, one JSON object, or the brief line for batches.

use super::error::explain;
use std::{fmt, io};
use tablebase::Value;
use tablebase::probe::{Probe, ProbeError, ProbeReport, Probed, best_line, probe};
use tablebase::text::{json_string, quote};

/// A report of the library (`info`, `verify`, `probe`) as one JSON object on one line, spaced as
/// docs/CLI.md writes them: `", "` between items, `": "` after a key.
pub fn report_json<T: serde::Serialize>(report: &T) -> String {
    let mut bytes = Vec::new();
    let mut serializer = serde_json::Serializer::with_formatter(&mut bytes, Spaced);
    // Into memory, of maps with text keys: nothing can fail.
    report.serialize(&mut serializer).expect("a report serializes into memory");
    String::from_utf8(bytes).expect("serde_json writes UTF-8")
}

/// `plan --json`: the job graph as one JSON object, a job a line:
/// `{"game": ..., "jobs": [\n  {...},\n  {...}\n]}`.
pub fn plan_json(game: &str, jobs: &[tablebase::catalogue::PlannedJob]) -> String {
    let jobs: Vec<String> = jobs.iter().map(report_json).collect();
    format!("{{\"game\": {}, \"jobs\": [\n  {}\n]}}", report_json(&game), jobs.join(",\n  "))
}

/// serde_json's compact format with a space after each comma and colon.
struct Spaced;

impl serde_json::ser::Formatter for Spaced {
    fn begin_array_value<W: ?Sized + io::Write>(&mut self, writer: &mut W, first: bool) -> io::Result<()> {
        if first { Ok(()) } else { writer.write_all(b", ") }
    }

    fn begin_object_key<W: ?Sized + io::Write>(&mut self, writer: &mut W, first: bool) -> io::Result<()> {
        if first { Ok(()) } else { writer.write_all(b", ") }
    }

    fn begin_object_value<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        writer.write_all(b": ")
    }
}

/// `--json`: one object per position (docs/CLI.md, "JSON").
pub fn json<M: fmt::Display>(position: &str, probed: &Probed<M>, line: Option<&[M]>) -> String {
    report_json(&ProbeReport { position, probed, line })
}

/// `--brief`: `<value>\t<plies>`, `draw\t-` for a draw, `win\t?` where the distance is not known.
pub fn brief(value: Value) -> String {
    match value.distance() {
        Some(n) => format!("{}\t{n}", value.word()),
        None if value.distance_unknown() => format!("{}\t?", value.word()),
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
    if !probed.moves.is_empty() || !probed.unknown.is_empty() {
        out.push_str("moves:\n");
        for (m, v) in &probed.moves {
            out.push_str(&format!("  {:<12} {v}\n", m.to_string()));
        }
        for m in &probed.unknown {
            out.push_str(&format!("  {:<12} {}\n", m.to_string(), tablebase::text::UNSETTLED));
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

/// The output for one position in `format` (with the best line when `with_line`), its searches
/// all stopped `limit` seconds from now where given: the limit bounds the whole answer, the
/// position and each of its moves.
pub fn answer<G: Probe>(
    game: &G,
    input: &str,
    format: Format,
    with_line: bool,
    limit: Option<f64>,
) -> Result<String, ProbeError> {
    match limit {
        Some(seconds) => tablebase::search::within(seconds, || answer_now(game, input, format, with_line)),
        None => answer_now(game, input, format, with_line),
    }
}

fn answer_now<G: Probe>(
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

/// The line of a batch's output that stands for a bad input line, so that answers stay in step
/// with questions: `error\t<reason>`, or `{"position": ..., "error": ...}` for `--json`.
pub fn error_line(format: Format, line: &str, error: &ProbeError) -> Option<String> {
    match format {
        Format::Brief => Some(format!("error\t{}", explain(error))),
        Format::Json => Some(format!(
            "{{\"position\": {}, \"error\": {}}}",
            json_string(&quote(line)),
            json_string(&explain(error))
        )),
        Format::Text => None,
    }
}

/// Whether standard output was closed when the program started (`>&-`). The standard library
/// opens /dev/null on a descriptor 0 to 2 that is closed at its start (so that no file opened
/// later takes its number and receives what is printed), and what is written then vanishes
/// with success; so descriptor 1 is looked at before the standard library starts, by
/// [`LOOK_AT_STDOUT_FIRST`], where a closed one is still closed. A `/dev/null` the caller opened,
/// for writing or for reading and writing (Python's `subprocess.DEVNULL`, a daemon's), is
/// output discarded as asked.
static STDOUT_CLOSED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Run by the C runtime before `main`, and so before the standard library replaces a closed
/// descriptor 1 with /dev/null.
#[cfg(target_os = "linux")]
#[used]
#[unsafe(link_section = ".init_array")]
static LOOK_AT_STDOUT_FIRST: extern "C" fn() = {
    extern "C" fn look() {
        // SAFETY: F_GETFD only reads the descriptor's flags; -1 with EBADF means it is closed.
        if unsafe { libc::fcntl(1, libc::F_GETFD) } == -1 {
            STDOUT_CLOSED.store(true, std::sync::atomic::Ordering::Relaxed);
        }
    }
    look
};

/// Standard output, locked, whose writes fail with EBADF where it was closed at the start.
pub fn stdout() -> Stdout {
    Stdout(std::io::stdout().lock())
}

/// See [`stdout`].
pub struct Stdout(std::io::StdoutLock<'static>);

fn closed() -> std::io::Result<()> {
    match STDOUT_CLOSED.load(std::sync::atomic::Ordering::Relaxed) {
        true => Err(std::io::Error::from_raw_os_error(libc::EBADF)),
        false => Ok(()),
    }
}

impl std::io::Write for Stdout {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        closed()?;
        self.0.write(buf)
    }

    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        closed()?;
        self.0.write_all(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        closed()?;
        self.0.flush()
    }
}
