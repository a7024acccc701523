//! Probing cube positions: in the opening book where the directory holds one, by search beyond
//! it ([`CubeSolver`]).

use super::board::{self, CELLS, MovesError, Position, play_qubic, play_sogo};
use super::catalogue::CubeBook;
use super::parts::{PartsJournal, PartsSettings, prove_by_parts};
use super::solver::CubeSolver;
use crate::catalogue::Catalogue;
use crate::layered::{Layered, SolvedLayer};
use crate::probe::{LazyTables, Outcome, Probe, ProbeError};
use crate::table::{Check, TableError};
use crate::value::Value;
use std::fmt;
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

/// A move: a cell of the cube (Qubic, `a11`..`d44`), or the column a stone drops into (Sogo,
/// `a1`..`d4`), here the cell it lands on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CubeMove<const GRAVITY: bool>(
    /// The cell's number, `x + 4y + 16z`.
    pub u8,
);

impl<const GRAVITY: bool> fmt::Display for CubeMove<GRAVITY> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&board::move_name::<GRAVITY>(u32::from(self.0)))
    }
}

/// A position with the moves that reached it (its notation).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Played<const GRAVITY: bool> {
    /// The position.
    pub position: Position,
    /// The moves from the empty cube, in order.
    pub moves: Vec<CubeMove<GRAVITY>>,
}

/// A cube game's opening book in a directory (if it holds one), each ply opened on first use,
/// and the search for every position past it.
pub struct CubeTablebase<const GRAVITY: bool> {
    dir: PathBuf,
    book: Layered<CubeBook<GRAVITY>>,
    plies: LazyTables<SolvedLayer>,
    solver: CubeSolver<GRAVITY>,
    max_time: Option<f64>,
    /// The outcomes proofs by parts recorded in the directory ([`parts_journal_name`]), read
    /// at the first position asked about.
    journal: OnceLock<Result<PartsJournal<GRAVITY>, Arc<TableError>>>,
}

/// The name, in a table directory, of the journal of proofs by parts whose outcomes `probe`
/// and `play` answer from (`qubic-parts.journal`; `bench cube-prove --parts --journal` writes
/// such a file).
pub fn parts_journal_name(gravity: bool) -> String {
    format!("{}-parts.journal", super::catalogue::key(gravity))
}

impl<const GRAVITY: bool> std::fmt::Debug for CubeTablebase<GRAVITY> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CubeTablebase").field("dir", &self.dir).finish_non_exhaustive()
    }
}

impl<const GRAVITY: bool> CubeTablebase<GRAVITY> {
    /// The book in `dir`, and searches stopped after `max_time` seconds (an error, exit 1).
    pub fn open(dir: impl Into<PathBuf>, max_time: Option<f64>) -> CubeTablebase<GRAVITY> {
        let book = CubeBook::tables(super::catalogue::MAX_BOOK_PLIES);
        let plies = LazyTables::new(super::catalogue::MAX_BOOK_PLIES as usize + 1);
        let journal = OnceLock::new();
        CubeTablebase { dir: dir.into(), book, plies, solver: CubeSolver::default(), max_time, journal }
    }

    fn value_of(&self, position: &Position) -> Result<Value, ProbeError> {
        // A ply of the book on disk, if there is one (asked of the directory each time, so
        // that a book built while `serve` runs counts). A ply whose table is not finished yet
        // (a proof under way, such as Sogo's, checked in as it goes) is searched instead.
        let finished = |ply| self.book.table_spec(&self.dir, ply).path.exists();
        if CubeBook::<GRAVITY>::on_disk(&self.dir).is_some_and(|last| position.ply <= last) && finished(position.ply) {
            let layer = self.plies.get(
                position.ply as usize,
                || self.book.open_layer(&self.dir, position.ply, |_| Check::Probing),
                || self.book.variant(),
            )?;
            let index = self.book.game().canonical_index(position);
            // Every legal position of a ply is in its set: one that is not means a damaged set.
            return layer.value_at(index)?.ok_or_else(|| layer.set.damaged(index).into());
        }
        if self.solver.within_a_ply(position).is_none()
            && let Some(value) = self.journal_value(position)?
        {
            return Ok(value);
        }
        self.solver.value(position, self.max_time).map_err(|e| ProbeError::Search(Box::new(e)))
    }

    /// The journal of proofs by parts in the directory; empty where there is none.
    fn journal(&self) -> Result<&PartsJournal<GRAVITY>, ProbeError> {
        let read = self.journal.get_or_init(|| {
            let path = self.dir.join(parts_journal_name(GRAVITY));
            PartsJournal::read(&path).map_err(|e| Arc::new(e.into_table_error("the outcomes of proofs by parts")))
        });
        read.as_ref().map_err(|e| ProbeError::Damaged(e.clone()))
    }

    /// The outcome the journal gives `position` (a game not over within a ply): won where the
    /// journal records the side to move's win, lost where it records the other side's win
    /// after every move. A record that the side to move cannot win settles nothing alone (a
    /// draw or a loss).
    fn journal_value(&self, position: &Position) -> Result<Option<Value>, ProbeError> {
        let journal = self.journal()?;
        if journal.is_empty() {
            return Ok(None);
        }
        if journal.get(position) == Some(true) {
            return Ok(Some(Value::WinUnknown));
        }
        let children = self.children(position);
        let lost = !children.is_empty() && children.iter().all(|(_, child)| journal.get(child) == Some(true));
        Ok(lost.then_some(Value::LossUnknown))
    }

    /// Every legal move and the position it leads to.
    fn children(&self, position: &Position) -> Vec<(CubeMove<GRAVITY>, Position)> {
        if position.is_over() {
            return Vec::new();
        }
        let mut cells = board::playable(position.mask, GRAVITY);
        let mut out = Vec::new();
        while cells != 0 {
            let cell = cells.trailing_zeros();
            cells &= cells - 1;
            out.push((CubeMove(cell as u8), position.play(1 << cell)));
        }
        if GRAVITY {
            // Columns in notation order: a1, b1, .. d4.
            out.sort_by_key(|(m, _)| m.0 % 16);
        }
        out
    }
}

impl<const GRAVITY: bool> Probe for CubeTablebase<GRAVITY> {
    type Position = Played<GRAVITY>;
    type Move = CubeMove<GRAVITY>;

    fn unchanged(&self, since: crate::probe::Reads) -> Result<(), ProbeError> {
        self.plies.unchanged(since)
    }

    fn parse(&self, text: &str) -> Result<Played<GRAVITY>, ProbeError> {
        let illegal = |e: MovesError| ProbeError::Illegal(e.to_string());
        let (position, cells) = if GRAVITY { play_sogo(text) } else { play_qubic(text) }.map_err(illegal)?;
        Ok(Played { position, moves: cells.into_iter().map(|cell| CubeMove(cell as u8)).collect() })
    }

    fn notation(&self, played: &Played<GRAVITY>) -> String {
        played.moves.iter().map(CubeMove::to_string).collect()
    }

    fn value(&self, played: &Played<GRAVITY>) -> Result<Value, ProbeError> {
        self.value_of(&played.position)
    }

    fn moves(&self, played: &Played<GRAVITY>) -> Result<Vec<Outcome<Self>>, ProbeError> {
        self.legal_moves(played)?
            .into_iter()
            .map(|(mv, next)| Ok(Outcome { value: self.value_of(&next.position)?.for_mover(), mv, next }))
            .collect()
    }

    fn legal_moves(&self, played: &Played<GRAVITY>) -> Result<Vec<(CubeMove<GRAVITY>, Played<GRAVITY>)>, ProbeError> {
        let children = self.children(&played.position).into_iter().map(|(mv, position)| {
            let mut moves = played.moves.clone();
            moves.push(mv);
            (mv, Played { position, moves })
        });
        Ok(children.collect())
    }

    fn searches(&self) -> bool {
        true
    }

    fn seek_distances(&mut self) {
        self.solver.seek_distances(true);
    }

    fn prove_on_threads(&mut self, threads: usize) {
        self.solver.prove_on_threads(threads);
    }

    fn winning_move(&self, played: &Played<GRAVITY>) -> Result<Option<CubeMove<GRAVITY>>, ProbeError> {
        let position = &played.position;
        // The proof of the position's own value, where one was just made, holds its winning moves.
        let proved = self.solver.proved_winning_cells(position);
        if proved != 0 {
            return Ok(Some(CubeMove(proved.trailing_zeros() as u8)));
        }
        if GRAVITY {
            return Ok(None);
        }
        // Else a proof by parts, which names its first move: for an early position won by the
        // record of a journal, or by the strategy, which proves the positions after its moves
        // (`a11 c22 d11` is not proved in 30 s so, where the proof by parts of `a11 c22` takes
        // 5 s). Of the position's images, the one the journal records, whose proof by parts
        // was seen to end.
        let recorded = self.journal()?.win_as_recorded(position).unwrap_or(*position);
        let max_time = match (self.max_time, crate::search::time_left()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        let settings = PartsSettings {
            threads: rayon::current_num_threads().max(1),
            table_bytes: super::solver::PROVER_TABLE_BYTES,
            max_time,
            ..PartsSettings::default()
        };
        let proof = prove_by_parts::<GRAVITY>(&recorded, &settings, None, &|_, _, _, _| {}, &|_, _, _| {})
            .map_err(|e| ProbeError::Search(Box::new(e)))?;
        let Some(cell) = proof.first_move else { return Ok(None) };
        // The same move in `position`: one whose position is an image of the move's there.
        let won = self.solver.canonical_key(&recorded.play(1 << cell));
        let found = self.children(position).into_iter().find(|(_, next)| self.solver.canonical_key(next) == won);
        Ok(found.map(|(mv, _)| mv))
    }

    fn describe(&self, played: &Played<GRAVITY>, value: Option<Value>) -> String {
        let p = &played.position;
        let mut out = diagram(p);
        let side = if p.ply.is_multiple_of(2) { "White (X)" } else { "Black (O)" };
        out.push_str(&match value {
            Some(Value::Loss(0)) if p.is_won_by_previous() => format!("{side} to move has lost: the last move made four"),
            Some(Value::Draw) if p.ply == CELLS => format!("{side} to move: the cube is full, a draw"),
            value => crate::text::verdict_or_unknown(side, value),
        });
        out.push('\n');
        out
    }

    fn skips_blank_lines(&self) -> bool {
        false // a blank line is the empty cube
    }

    fn after_move(&self, played: &Played<GRAVITY>, mv: &str) -> Result<Option<Played<GRAVITY>>, ProbeError> {
        let found = self.children(&played.position).into_iter().find(|(m, _)| m.to_string() == mv);
        Ok(found.map(|(m, position)| {
            let mut moves = played.moves.clone();
            moves.push(m);
            Played { position, moves }
        }))
    }

    fn release(&self) {
        self.solver.release();
    }
}

/// The four layers side by side, the bottom one first, each with row 4 at the top: `X` for
/// White (the first player), `O` for Black, `.` for an empty cell.
pub fn diagram(p: &Position) -> String {
    let first = p.first_player();
    let mut out = String::from("  z=1       z=2       z=3       z=4\n");
    for y in (0..4).rev() {
        let mut line = String::new();
        for z in 0..4 {
            line.push_str(&format!("{} ", y + 1));
            for x in 0..4 {
                let bit = board::cell(x, y, z);
                line.push(if first & bit != 0 {
                    'X'
                } else if p.mask & bit != 0 {
                    'O'
                } else {
                    '.'
                });
                if x < 3 {
                    line.push(' ');
                }
            }
            if z < 3 {
                line.push_str("  ");
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out.push_str("  a b c d   a b c d   a b c d   a b c d\n");
    out
}
