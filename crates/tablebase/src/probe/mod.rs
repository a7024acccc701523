//! Probing, shared by every game: a position's value, every move with its outcome (best first),
//! and the best line. [`ProbeReport`] is one answer as data (what `probe --json` prints, through
//! serde); the text for people and the brief lines are the command line's (`src/cli/output.rs`).

mod error;
mod lazy;

pub use error::ProbeError;
pub(crate) use lazy::LazyTables;
pub use lazy::Reads;

use crate::value::Value;
use serde::Serialize;
use serde::ser::Serializer;
use std::fmt;

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
    /// A few lines that show the position to a person, and a sentence with its value (`None`:
    /// not settled within the time limit).
    fn describe(&self, position: &Self::Position, value: Option<Value>) -> String;
    /// Whether `probe -` skips blank lines (false where the empty string is a position).
    fn skips_blank_lines(&self) -> bool {
        true
    }
    /// The position after the move written `mv` (as [`Probe::moves`] writes it), `None` where
    /// no legal move is written so. Games whose values may need searches override it to find
    /// the move without any value: playing a move must not cost a search of every move.
    fn after_move(&self, position: &Self::Position, mv: &str) -> Result<Option<Self::Position>, ProbeError> {
        Ok(self.moves(position)?.into_iter().find(|o| o.mv.to_string() == mv).map(|o| o.next))
    }
    /// Every legal move and the position it leads to, without values: what playing a move or
    /// seeing that the game is over needs. Games whose values may need searches override it.
    fn legal_moves(&self, position: &Self::Position) -> Result<Legal<Self>, ProbeError> {
        Ok(self.moves(position)?.into_iter().map(|o| (o.mv, o.next)).collect())
    }
    /// Whether a value may need a search, which can run out of time: [`probe`] then answers
    /// what is settled within the time left and marks the rest unknown, and `play` looks for
    /// one move that keeps the value rather than every move's value. Such games override
    /// [`Probe::legal_moves`] too.
    fn searches(&self) -> bool {
        false
    }
    /// Has a search with a time limit whose outcome is proved go on for the exact distance with
    /// the time left, where the game proves outcomes without distances: what a person who gives
    /// a limit asks for (`--max-time`).
    fn seek_distances(&mut self) {}
    /// Has each proof of a position run on `threads` threads together, where the game's proofs
    /// can (Sogo's): for a caller that asks about one position at a time, where a batch or a
    /// server would rather run positions side by side.
    fn prove_on_threads(&mut self, _threads: usize) {}
    /// A move of `position`, which the side to move wins, proved to keep the win by a proof
    /// that names it (quicker than a search of each move's value, where early positions have
    /// dozens of moves whose proofs take minutes), or `None` where the game has no such proof:
    /// `play` asks it where values need searches. The default has none.
    fn winning_move(&self, _position: &Self::Position) -> Result<Option<Self::Move>, ProbeError> {
        Ok(None)
    }
    /// Drops what the game keeps for later searches (transposition tables), keeping the tables
    /// mapped: a long-running server calls it once its searches end.
    fn release(&self) {}
    /// An error naming the first table file read since `since` (a [`Reads`] taken before the
    /// reads; [`Reads::ALL`] for every file opened) that has been cut short or written since it
    /// was mapped (by another program: `tablebase` never changes a table under its name). Such
    /// a file's blocks were checked when first read, and reads after the change get its new
    /// bytes (or zeros) unchecked: a caller that holds a tablebase across answers asks this
    /// after reading and before answering, and opens the tablebase again after an error. A
    /// `stat` per file read.
    fn unchanged(&self, _since: Reads) -> Result<(), ProbeError> {
        Ok(())
    }
}

/// Every legal move of a position and the position it leads to.
pub type Legal<G> = Vec<(<G as Probe>::Move, <G as Probe>::Position)>;

/// A legal move, where it leads, and what that gives the side to move.
#[derive(Debug)]
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
    /// The value of the position; `None` where its search ran out of time.
    pub value: Option<Value>,
    /// Every legal move whose value is settled, with what it gives the side to move, best
    /// first.
    pub moves: Vec<(M, Value)>,
    /// The legal moves whose searches ran out of time, in the order the game lists moves.
    pub unknown: Vec<M>,
}

/// One probed position as `probe --json` prints it (docs/CLI.md, "JSON"): `position`, `value`
/// and `plies` (with `"distance": "unknown"` where a win or loss is proved without its
/// distance), `moves` (each `move`, `value`, `plies`, best first, the unsettled last with
/// `"value": "unknown"`), and `line` where the best line was asked for.
#[derive(Debug, Serialize)]
#[serde(bound(serialize = "M: fmt::Display"))]
pub struct ProbeReport<'a, M> {
    /// The position in the game's notation.
    pub position: &'a str,
    /// Its value and moves.
    #[serde(flatten, serialize_with = "probed_fields")]
    pub probed: &'a Probed<M>,
    /// The best line, where asked for.
    #[serde(skip_serializing_if = "Option::is_none", serialize_with = "line")]
    pub line: Option<&'a [M]>,
}

/// The fields of a [`Probed`] in [`ProbeReport`]'s JSON.
#[derive(Serialize)]
#[serde(bound(serialize = "M: fmt::Display"))]
struct ProbedFields<'a, M> {
    value: &'static str,
    plies: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    distance: Option<&'static str>,
    moves: Moves<'a, M>,
}

fn probed_fields<M: fmt::Display, S: Serializer>(
    probed: &&Probed<M>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    let (value, plies, distance) = value_fields(probed.value);
    ProbedFields { value, plies, distance, moves: Moves(probed) }.serialize(serializer)
}

/// The `line` of [`ProbeReport`]: the moves as strings.
fn line<M: fmt::Display, S: Serializer>(line: &Option<&[M]>, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.collect_seq(line.unwrap_or_default().iter().map(|mv| Shown(mv)))
}

/// A move of [`ProbeReport`]: `{"move": ..., "value": ..., "plies": ...}`.
#[derive(Serialize)]
#[serde(bound(serialize = "M: fmt::Display"))]
struct MoveLine<'a, M> {
    #[serde(rename = "move", serialize_with = "shown")]
    mv: &'a M,
    value: &'static str,
    plies: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    distance: Option<&'static str>,
}

/// The `value` and `plies` fields (and `"distance": "unknown"` where a win or loss is proved
/// without its distance: a distance is never invented); `"unknown"` and null where the value
/// was not settled within the time limit.
fn value_fields(value: Option<Value>) -> (&'static str, Option<u32>, Option<&'static str>) {
    match value {
        None => ("unknown", None, None),
        Some(value) => (value.word(), value.distance(), value.distance_unknown().then_some("unknown")),
    }
}

/// Something shown with `Display`, serialized as a string without building one first.
fn shown<T: fmt::Display, S: Serializer>(shown: &T, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.collect_str(shown)
}

/// The `moves` of [`ProbeReport`]: the settled best first, then the unsettled.
struct Moves<'a, M>(&'a Probed<M>);

impl<M: fmt::Display> Serialize for Moves<'_, M> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let line = |mv, value| {
            let (value, plies, distance) = value_fields(value);
            MoveLine { mv, value, plies, distance }
        };
        let settled = self.0.moves.iter().map(|(mv, value)| line(mv, Some(*value)));
        let unknown = self.0.unknown.iter().map(|mv| line(mv, None));
        serializer.collect_seq(settled.chain(unknown))
    }
}

/// A move shown with `Display` as a string, for a sequence of them.
struct Shown<'a, T>(&'a T);

impl<T: fmt::Display> Serialize for Shown<'_, T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        shown(self.0, serializer)
    }
}

/// The value and all moves of `position`, best first (ties in the order the game lists moves).
/// Where the game searches ([`Probe::searches`]) and the thread's work has a deadline
/// ([`crate::search::within`]), the position has half the time left and its moves share the
/// rest; a value not settled in its share is `None` (the position's) or listed as unknown (a
/// move's), and the answer goes on.
pub fn probe<G: Probe>(game: &G, position: &G::Position) -> Result<Probed<G::Move>, ProbeError> {
    let (mut value, mut moves, unknown) = match game.searches() {
        false => {
            let value = game.value(position)?;
            (Some(value), game.moves(position)?.into_iter().map(|o| (o.mv, o.value)).collect(), Vec::new())
        }
        true => {
            let children = game.legal_moves(position)?;
            let value = settled(if children.is_empty() { 1.0 } else { 0.5 }, || game.value(position))?;
            let (mut moves, mut unknown) = (Vec::new(), Vec::new());
            let count = children.len();
            for (k, (mv, next)) in children.into_iter().enumerate() {
                match settled(1.0 / (count - k) as f64, || game.value(&next))? {
                    Some(value) => moves.push((mv, value.for_mover())),
                    None => unknown.push(mv),
                }
            }
            (value, moves, unknown)
        }
    };
    // A value proved without its distance, whose moves all have theirs (a search that ran out
    // of time on the position but not on its moves): the moves give the distance.
    if let Some(known) = value
        && known.distance_unknown()
        && !moves.is_empty()
        && unknown.is_empty()
    {
        let from_moves = crate::value::best_of(moves.iter().map(|&(_, v)| v));
        if from_moves.word() == known.word() && !from_moves.distance_unknown() {
            value = Some(from_moves);
        }
    }
    moves.sort_by_key(|&(_, value)| std::cmp::Reverse(value));
    Ok(Probed { value, moves, unknown })
}

/// The value `search` finds within `share` of the time left to the thread's work (all of it
/// where the work has no deadline); `None` where it runs out of time. Other errors stay errors:
/// a stopped work, a missing table.
fn settled(
    share: f64,
    search: impl FnOnce() -> Result<Value, ProbeError>,
) -> Result<Option<Value>, ProbeError> {
    let found = match crate::search::time_left() {
        Some(left) if share < 1.0 => crate::search::within(left * share, search),
        _ => search(),
    };
    match found {
        Ok(value) => Ok(Some(value)),
        Err(e) if e.is_time_limit() => Ok(None),
        Err(e) => Err(e),
    }
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
        // A search game's line ends where a value is not settled within the time left.
        let unsettled = |e: &ProbeError| game.searches() && e.is_time_limit();
        let value = match game.value(&current) {
            Ok(value) => value,
            Err(e) if unsettled(&e) => break,
            Err(e) => return Err(e),
        };
        if !seen.insert(current.clone()) || line.len() >= MAX_DRAW_LINE {
            break;
        }
        let moves: Vec<Outcome<G>> = match game.searches() {
            false => game.moves(&current)?,
            true => {
                let mut moves = Vec::new();
                for (mv, next) in game.legal_moves(&current)? {
                    match game.value(&next) {
                        Ok(value) => moves.push(Outcome { mv, next, value: value.for_mover() }),
                        Err(e) if unsettled(&e) => {}
                        Err(e) => return Err(e),
                    }
                }
                moves
            }
        };
        // The first move that keeps the value: a win in n goes to a loss in n - 1, a loss in n
        // to a win in n - 1, a draw to a draw. Where the distance is not known, the best move
        // of the same outcome (a known win is then the one to follow).
        let keeps = |o: &Outcome<G>| match value.distance_unknown() {
            false => o.value == value,
            true => o.value.word() == value.word(),
        };
        let Some(best) = moves.into_iter().filter(keeps).reduce(|a, b| if b.value > a.value { b } else { a })
        else {
            break; // no move (the game is over), or none settled that keeps the value
        };
        line.push(best.mv);
        current = best.next;
    }
    Ok(line)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Position 0, proved a win without its distance, whose moves lead to 1 (lost in 2 for the
    /// other side) and 2 (a win in 1 for it); position 3 the same but one move's value unknown.
    struct Proved;

    impl Probe for Proved {
        type Position = u8;
        type Move = u8;
        fn parse(&self, _text: &str) -> Result<u8, ProbeError> {
            Ok(0)
        }
        fn notation(&self, position: &u8) -> String {
            position.to_string()
        }
        fn value(&self, position: &u8) -> Result<Value, ProbeError> {
            Ok(match position {
                0 | 3 => Value::WinUnknown,
                1 => Value::Loss(2),
                4 => Value::LossUnknown,
                _ => Value::Win(1),
            })
        }
        fn moves(&self, position: &u8) -> Result<Vec<Outcome<Self>>, ProbeError> {
            let to = |next: u8| Outcome { mv: next, next, value: self.value(&next).unwrap().for_mover() };
            Ok(match position {
                0 => vec![to(1), to(2)],
                3 => vec![to(4), to(1), to(2)],
                _ => Vec::new(),
            })
        }
        fn describe(&self, _position: &u8, _value: Option<Value>) -> String {
            String::new()
        }
    }

    #[test]
    fn moves_of_known_distance_give_an_unknown_one() {
        assert_eq!(probe(&Proved, &0).unwrap().value, Some(Value::Win(3)));
        // A move of unknown distance might win sooner: the distance stays unknown.
        let probed = probe(&Proved, &3).unwrap();
        assert_eq!(probed.value, Some(Value::WinUnknown));
        assert_eq!(probed.moves[0], (1, Value::Win(3)), "a known win is listed first");
    }

    #[test]
    fn report_json_has_distance_unknown_unknown_moves_and_the_line() {
        let probed =
            Probed { value: Some(Value::WinUnknown), moves: vec![(1u8, Value::Win(3))], unknown: vec![2u8] };
        let json =
            |line| serde_json::to_string(&ProbeReport { position: "3", probed: &probed, line }).unwrap();
        assert_eq!(
            json(Some(&[1, 2][..])),
            r#"{"position":"3","value":"win","plies":null,"distance":"unknown","moves":[{"move":"1","value":"win","plies":3},{"move":"2","value":"unknown","plies":null}],"line":["1","2"]}"#
        );
        let unsettled = Probed::<u8> { value: None, moves: Vec::new(), unknown: Vec::new() };
        assert_eq!(
            serde_json::to_string(&ProbeReport { position: "", probed: &unsettled, line: None }).unwrap(),
            r#"{"position":"","value":"unknown","plies":null,"moves":[]}"#
        );
        assert!(!json(None).contains("line"));
    }
}
