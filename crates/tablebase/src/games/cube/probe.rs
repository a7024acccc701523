//! Probing cube positions: in the opening book where the directory holds one, by search beyond
//! it ([`CubeSolver`]).

use super::board::{self, CELLS, MovesError, Position, play_qubic, play_sogo};
use super::catalogue::CubeBook;
use super::solver::CubeSolver;
use crate::catalogue::Catalogue;
use crate::layered::{Layered, SolvedLayer};
use crate::probe::{LazyTables, Outcome, Probe, ProbeError};
use crate::table::Check;
use crate::value::Value;
use std::fmt;
use std::path::PathBuf;

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
        CubeTablebase { dir: dir.into(), book, plies, solver: CubeSolver::default(), max_time }
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
        self.solver.value(position, self.max_time).map_err(|e| ProbeError::Search(Box::new(e)))
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
