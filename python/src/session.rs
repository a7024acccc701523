//! `tablebase.open(...)`: a game's tables opened for probing, and its answers as the dicts of
//! `probe --json`.

use crate::dicts::Dicts;
use crate::errors::{guarded, probe_error, variant_error};
use crate::interrupt::{Collector, interruptible, interruptible_in_pieces};
use crate::settings;
use engine::catalogue::Variant;
use engine::game::{Game, Purpose};
use engine::games::{ForGame, with_game};
use engine::probe::{Probe, ProbeError, Reads, best_line, probe};
use engine::{Value, Work, within};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};
use rayon::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::{Arc, PoisonError, RwLock};

/// Seconds the searches of one position may take when `max_time` does not say: the command
/// line's default for `probe`.
const PROBE_SECONDS: f64 = 30.0;

/// Positions answered by one task of a batch: per-position tasks would cost more than probing
/// a table (the command line's batch cuts its input into pieces the same way).
const PIECE: usize = 4096;

/// Positions a piece of `probe_many` with every move's value, at least: the workers answer one
/// while the calling thread makes the dicts of the one before.
const ANSWER_PIECE: usize = 1024;

/// A position's notation and value, as `probe_many(moves=False)` answers it.
type ValueOf = Result<(String, Value), ProbeError>;

/// A piece of a batch's answers, with the place of its first position in the batch.
type AnsweredPiece = (usize, Vec<Result<Answer, ProbeError>>);

/// One position's answer, as `probe --json` writes it, before it becomes a dict.
pub struct Answer {
    pub position: String,
    pub value: Option<Value>,
    /// Every move's notation, one after another: one allocation a position instead of one a
    /// move (a batch of Morris 3:3 has some 55 moves a position, each freed again by the thread
    /// that makes the dicts).
    move_texts: String,
    /// Each move's end in `move_texts`, and its value.
    moves: Vec<(u32, Option<Value>)>,
    pub line: Option<Vec<String>>,
}

impl Answer {
    /// Each move's notation and value.
    pub fn moves(&self) -> impl ExactSizeIterator<Item = (&str, Option<Value>)> {
        (0..self.moves.len()).map(|at| {
            let start = match at {
                0 => 0,
                _ => self.moves[at - 1].0 as usize,
            };
            let (end, value) = self.moves[at];
            (&self.move_texts[start..end as usize], value)
        })
    }
}

/// What a tablebase of any game answers, its game's types hidden.
trait Session: Send + Sync {
    fn answer(&self, text: &str, with_line: bool) -> Result<Answer, ProbeError>;
    /// The notation of the position after `mv`, `None` where `mv` is not a legal move.
    fn after(&self, text: &str, mv: &str) -> Result<Option<String>, ProbeError>;
    /// The value alone of each position, by the library's batch path.
    fn values(&self, texts: &[String]) -> Vec<ValueOf>;
    /// An error naming a table file read since `since` that has changed (by another program)
    /// since it was mapped.
    fn unchanged(&self, since: Reads) -> Result<(), ProbeError>;
}

/// A game's tablebase, and the time each position's searches may take together.
struct Opened<T> {
    tablebase: T,
    limit: f64,
}

impl<T: Probe + Send + Sync> Session for Opened<T> {
    fn answer(&self, text: &str, with_line: bool) -> Result<Answer, ProbeError> {
        // The limit bounds the whole answer, the position and each of its moves, as on the
        // command line.
        within(self.limit, || {
            let game = &self.tablebase;
            let position = game.parse(text)?;
            let probed = probe(game, &position)?;
            let line = match with_line {
                true => Some(best_line(game, &position)?.iter().map(|m| m.to_string()).collect()),
                false => None,
            };
            let settled = probed.moves.iter().map(|(m, v)| (m, Some(*v)));
            let (mut move_texts, mut moves) = (String::new(), Vec::with_capacity(probed.moves.len()));
            for (mv, value) in settled.chain(probed.unknown.iter().map(|m| (m, None))) {
                use std::fmt::Write;
                write!(move_texts, "{mv}").expect("a move is written into memory");
                moves.push((move_texts.len() as u32, value));
            }
            Ok(Answer { position: game.notation(&position), value: probed.value, move_texts, moves, line })
        })
    }

    fn after(&self, text: &str, mv: &str) -> Result<Option<String>, ProbeError> {
        let game = &self.tablebase;
        let position = game.parse(text)?;
        Ok(game.after_move(&position, mv)?.map(|next| game.notation(&next)))
    }

    fn values(&self, texts: &[String]) -> Vec<ValueOf> {
        let game = &self.tablebase;
        let parsed: Vec<Result<T::Position, ProbeError>> = texts.iter().map(|t| game.parse(t)).collect();
        let positions: Vec<T::Position> = parsed.iter().filter_map(|p| p.as_ref().ok()).cloned().collect();
        let mut values = game.values(&positions).into_iter().zip(positions.iter());
        parsed
            .into_iter()
            .map(|p| {
                p.and_then(|_| {
                    let (value, position) = values.next().expect("a value per position");
                    Ok((game.notation(position), value?))
                })
            })
            .collect()
    }

    fn unchanged(&self, since: Reads) -> Result<(), ProbeError> {
        self.tablebase.unchanged(since)
    }
}

/// A game's tables opened for probing (`tablebase.open`). Safe to share between threads.
#[pyclass(frozen, module = "tablebase", name = "Tablebase")]
pub struct Tablebase {
    /// Replaced by a session opened anew once a table file changed under it.
    session: RwLock<Held>,
    max_time: Option<f64>,
    /// The game's key.
    #[pyo3(get)]
    game: &'static str,
    /// The variant's title: `Connect Four 4x4`.
    #[pyo3(get)]
    title: String,
    /// The starting position in the notation `probe` takes.
    #[pyo3(get)]
    start: String,
    /// The directory of the tables.
    #[pyo3(get)]
    dir: PathBuf,
    variant: Variant,
}

/// Opens a game's tables for probing: `open("morris", dir="tables", stones=3)`, settings as the
/// command line names them (`size="4x4"`, `book_plies=6`). Nothing is read until a position
/// needs it. `max_time`: seconds the searches of one position may take together (a position
/// past a book, or Qubic and Sogo); given, the searches also look for exact distances, as
/// `probe --max-time` does; by default 30 seconds, outcomes only.
#[pyfunction]
#[pyo3(signature = (game, dir = None, max_time = None, **settings))]
pub fn open(
    game: &str,
    dir: Option<&Bound<'_, PyAny>>,
    max_time: Option<f64>,
    settings: Option<&Bound<'_, PyDict>>,
) -> PyResult<Tablebase> {
    let about = settings::game(game)?;
    let variant = settings::variant(about, settings, Purpose::Probe)?;
    let dir = settings::directory(dir)?;
    if let Some(seconds) = max_time
        && !(0.001..=365.0 * 24.0 * 3600.0).contains(&seconds)
    {
        return Err(PyValueError::new_err(format!(
            "max_time {seconds}: expected seconds, at least 0.001 and at most a year"
        )));
    }
    let session = open_session(about.key, &variant, &dir, max_time)?;
    let (title, start) = (session.title.clone(), session.start.clone());
    // A table file cut short under a read (by another program) would end the interpreter with
    // SIGBUS: its map is replaced with zeros instead, and the probe that read it raises
    // TableError (it checks its tables after its reads). Other faults go where they went.
    engine::signals::go_on_after_a_table_cut_short_and_pass_on_the_rest();
    Ok(Tablebase {
        session: RwLock::new(Held { session: session.session, cut_short: session.cut_short }),
        max_time,
        game: about.key,
        title,
        start,
        dir,
        variant,
    })
}

/// A game's tables opened, with its title and start.
struct OpenedSession {
    session: Arc<dyn Session>,
    title: String,
    start: String,
    /// [`engine::signals::tables_cut_short`] before it was opened.
    cut_short: u64,
}

/// The session answers come from, and the number of table files cut short in the process
/// (engine::signals::tables_cut_short) before it was opened: one opened before a later cut may
/// hold a map the cut replaced with zeros, and is opened again before it answers.
#[derive(Clone)]
struct Held {
    session: Arc<dyn Session>,
    cut_short: u64,
}

fn open_session(key: &str, variant: &Variant, dir: &Path, max_time: Option<f64>) -> PyResult<OpenedSession> {
    let cut_short = engine::signals::tables_cut_short();
    struct Opening<'a> {
        variant: &'a Variant,
        dir: &'a Path,
        max_time: Option<f64>,
    }
    impl ForGame for Opening<'_> {
        type Output = PyResult<(Arc<dyn Session>, String, String)>;
        fn run<G: Game>(self) -> Self::Output {
            let game =
                G::from_variant(self.variant, Purpose::Probe).map_err(|e| variant_error(e, self.dir))?;
            let limit = self.max_time.unwrap_or(PROBE_SECONDS);
            let mut tablebase = game.tablebase(self.dir, Some(limit));
            // A limit given is a wish for exact distances within it, not only outcomes.
            if self.max_time.is_some() {
                tablebase.seek_distances();
            }
            let session: Arc<dyn Session> = Arc::new(Opened { tablebase, limit });
            Ok((session, game.title(), game.start()))
        }
    }
    let opening = Opening { variant, dir, max_time };
    let (session, title, start) = guarded(|| with_game(key, opening).expect("the registry names the game"))?;
    Ok(OpenedSession { session, title, start, cut_short })
}

impl Tablebase {
    /// The session answers come from now, and the number of table files cut short in the
    /// process so far; a session opened before a cut since is opened again first.
    fn session(&self) -> PyResult<(Held, u64)> {
        let now = engine::signals::tables_cut_short();
        let held = self.session.read().unwrap_or_else(PoisonError::into_inner).clone();
        if held.cut_short == now {
            return Ok((held, now));
        }
        Ok((self.open_again(&held)?, now))
    }

    /// A session opened anew in place of `stale` (unless another call has replaced it already).
    fn open_again(&self, stale: &Held) -> PyResult<Held> {
        let fresh = open_session(self.game, &self.variant, &self.dir, self.max_time)?;
        let fresh = Held { session: fresh.session, cut_short: fresh.cut_short };
        let mut current = self.session.write().unwrap_or_else(PoisonError::into_inner);
        if Arc::ptr_eq(&current.session, &stale.session) {
            *current = fresh.clone();
        }
        Ok(fresh)
    }

    /// `answer`, whatever it is, unless a table file the session read since `reads` has
    /// changed (by another program) since it was mapped, or any table file of the process was
    /// cut short since `cut_short` was counted: blocks are checked when first read, and later
    /// reads get the new bytes (or the zeros that replaced a cut map) unchecked. Then
    /// TableError, naming the file where it can, and the tables are opened again for the next
    /// call, to be read as they are now.
    fn unless_changed<T>(&self, held: &Held, cut_short: u64, reads: Reads, answer: T) -> PyResult<T> {
        let changed = held.session.unchanged(reads);
        let cut = engine::signals::tables_cut_short() != cut_short;
        if changed.is_ok() && !cut {
            return Ok(answer);
        }
        self.open_again(held)?;
        Err(match changed {
            Err(e) => probe_error(&e),
            Ok(()) => crate::errors::TableError::new_err(
                "a table file was cut short (by another program) while this call read it; its tables are opened again for the next call",
            ),
        })
    }
}

#[pymethods]
impl Tablebase {
    /// One position's value and every move's, as one line of `probe --json`: a dict with
    /// `position`, `value` ("win", "loss", "draw" or "unknown"), `plies` (None for a draw or an
    /// unknown distance, then with `distance`: "unknown"), `moves` (a dict each) and, with
    /// `line=True`, the best `line`. Raises ValueError for a malformed or illegal position,
    /// TableError for a table missing or damaged, SearchError for a search out of time.
    #[pyo3(signature = (position, line = false))]
    fn probe<'py>(&self, py: Python<'py>, position: &str, line: bool) -> PyResult<Bound<'py, PyDict>> {
        let ((held, cut_short), reads) = (self.session()?, Reads::start());
        let session = &*held.session;
        let answer = guarded(|| {
            // Tried first with searches forbidden, here: a table's answer takes microseconds,
            // and only a search needs a thread that Ctrl-C can stop.
            let tables_only = Work::without_searches();
            let answer = py.detach(|| Work::run(Some(&tables_only), || session.answer(position, line)));
            match tables_only.wanted_search() {
                false => Ok(answer),
                true => interruptible(py, |stop| stop.searching(|| session.answer(position, line))),
            }
        })?;
        // An error read from a table file changed since is the change's, too.
        let answer = self.unless_changed(&held, cut_short, reads, answer)?;
        Dicts::new(py).answer(&answer.map_err(|e| probe_error(&e))?)
    }

    /// Many positions in parallel: a list of what `probe` gives each, in order. With
    /// `moves=False`, the value alone (`position`, `value`, `plies`) by the batch path of
    /// `probe --brief -`, far faster. With `errors="raise"` (the default) the first position
    /// that cannot be answered raises, its index in the message; with `errors="dict"` it gets
    /// the dict `probe --json -` prints for such a line, `position` (quoted) and `error`, and
    /// the batch goes on.
    #[pyo3(signature = (positions, moves = true, line = false, errors = "raise"))]
    fn probe_many<'py>(
        &self,
        py: Python<'py>,
        positions: Vec<String>,
        moves: bool,
        line: bool,
        errors: &str,
    ) -> PyResult<Bound<'py, PyList>> {
        let ((held, cut_short), reads) = (self.session()?, Reads::start());
        let session = &*held.session;
        if line && !moves {
            return Err(PyValueError::new_err(
                "line=True needs moves=True: moves=False gives the values alone, by the batch path",
            ));
        }
        let keep_errors = match errors {
            "raise" => false,
            "dict" => true,
            other => {
                return Err(PyValueError::new_err(format!(
                    "errors='{}': 'raise' or 'dict'",
                    engine::quote(other)
                )));
            }
        };
        let numbered = |k: usize, e: &ProbeError| {
            let error = probe_error(e);
            // Quoted as everywhere else (60 characters at most, control characters escaped):
            // a megabyte of bad input is not a megabyte of message.
            let message = format!("position {k} ('{}'): {}", engine::quote(&positions[k]), error.value(py));
            PyErr::from_type(error.get_type(py), message)
        };
        // What a position that cannot be answered gives: a dict as `probe --json -` prints, or
        // the exception.
        let failed = |k: usize, e: &ProbeError, dicts: &mut Dicts<'py>| -> PyResult<Bound<'py, PyDict>> {
            if !keep_errors {
                return Err(numbered(k, e));
            }
            dicts.error(&engine::quote(&positions[k]), &probe_error(e).value(py).to_string())
        };
        if !moves {
            let values: PyResult<Vec<Vec<ValueOf>>> = guarded(|| {
                interruptible(py, |stop| {
                    positions
                        .par_chunks(PIECE)
                        .map(|piece| stop.searching(|| session.values(piece)))
                        .collect()
                })
            });
            let values = self.unless_changed(&held, cut_short, reads, values)??;
            return without_collection(py, || {
                let (mut made, mut dicts) = (Vec::with_capacity(positions.len()), Dicts::new(py));
                for (k, value) in values.into_iter().flatten().enumerate() {
                    made.push(match value {
                        Ok((notation, value)) => dicts.value(&notation, value)?,
                        Err(e) => failed(k, &e, &mut dicts)?,
                    });
                }
                PyList::new(py, made)
            });
        }
        // Answered a piece at a time, each piece's dicts made here while the workers answer
        // the next: the dicts take about as long as the answers (2.0 and 1.8 s of 100,000
        // Morris 3:3 positions), and only this thread may make them. A piece has work for
        // every worker (256 positions each), so that one slow position holds up few others.
        let piece_len = ANSWER_PIECE.max(256 * rayon::current_num_threads());
        let (mut made, mut dicts) = (Vec::with_capacity(positions.len()), Dicts::new(py));
        let answered = guarded(|| {
            interruptible_in_pieces(
                py,
                |stop, hand_over: &dyn Fn(AnsweredPiece)| {
                    for (at, piece) in positions.chunks(piece_len).enumerate() {
                        if stop.requested() {
                            break;
                        }
                        let answer = |p: &String| stop.searching(|| session.answer(p, line));
                        hand_over((at * piece_len, piece.par_iter().with_min_len(64).map(answer).collect()));
                    }
                },
                |(first, answers)| {
                    for (k, answer) in answers.iter().enumerate() {
                        made.push(match answer {
                            Ok(answer) => dicts.answer(answer)?,
                            Err(e) => failed(first + k, e, &mut dicts)?,
                        });
                    }
                    Ok(())
                },
            )
        });
        // Before any error of a position: one read from a table file changed since is the
        // change's, too.
        self.unless_changed(&held, cut_short, reads, answered)??;
        PyList::new(py, made)
    }

    /// The position after `move` (as `probe` names moves) from `position`, in the notation
    /// `probe` takes: for walking a line. Raises ValueError where the move is not legal there.
    fn after(&self, position: &str, r#move: &Bound<'_, PyAny>) -> PyResult<String> {
        // Taken as any object: pyo3 would name the argument by its Rust spelling, `r#move`.
        let r#move: String = r#move.extract().map_err(|_| match r#move.is_instance_of::<PyString>() {
            true => PyValueError::new_err("move: not valid Unicode (a lone surrogate)"),
            false => PyTypeError::new_err(format!(
                "move: expected str, not {}",
                crate::settings::type_name(r#move)
            )),
        })?;
        match guarded(|| Ok(self.session()?.0.session.after(position, &r#move)))? {
            Ok(Some(next)) => Ok(next),
            // Quoted as the command line quotes input: a megabyte of move is not a megabyte of
            // message, nor a terminal's escape sequence.
            Ok(None) => Err(PyValueError::new_err(format!(
                "'{}' is not a legal move of '{}'",
                engine::quote(&r#move),
                engine::quote(position)
            ))),
            Err(e) => Err(probe_error(&e)),
        }
    }

    /// The settings this tablebase was opened with, as keywords.
    #[getter]
    fn settings<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        for (name, value) in &self.variant.settings {
            match value {
                Some(value) => dict.set_item(name.replace('-', "_"), value)?,
                None => dict.set_item(name.replace('-', "_"), true)?,
            }
        }
        Ok(dict)
    }

    fn __repr__(&self) -> String {
        format!("<tablebase.Tablebase {} in {}>", self.title, self.dir.display())
    }
}

/// Runs `build` with Python's cyclic garbage collector paused: each of the millions of dicts a
/// batch makes would otherwise set off collections that walk all of them again (about a fifth
/// of `probe_many`'s time in measurements), and none of them can be part of a cycle.
fn without_collection<'py, T>(py: Python<'py>, build: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    let mut collector = Collector::of(py)?;
    collector.pause();
    build()
}
