//! Opening books of the cube games as layers of the shared layered pipeline: one table per ply
//! (stones in the cube) for plies 0 to N, stored up to the game's symmetries, the last ply's
//! values by proof.
//!
//! The last ply holds outcomes, not distances: a proof settles who wins far sooner than an
//! exact search settles how fast, and outcomes alone make the tables the same on every machine
//! and after every resumption (an exact search cut off by a clock would not). A win or loss
//! there is of unknown distance (docs/FORMAT.md), and so is every earlier value that depends on
//! one.
//!
//! Index of ply `p`: the occupied cells as a `p`-subset of the 64, ranked in the combinatorial
//! number system, times the first player's stones as a subset of the occupied cells, ranked the
//! same way. A position's entry is the least index among its images.

use super::board::{self, CELLS, Position, Symmetry};
use super::sogo::ProofJournal;
use super::solver::CubeSolver;
use crate::catalogue::Variant;
use crate::combinations::{binomial, subset_rank, subset_unrank};
use crate::layered::{Layered, LayeredGame, Step};
use crate::table::{Check, FileSpec, TableError};
use crate::value::Value;
use std::path::Path;
use std::sync::{Arc, OnceLock};

/// The largest book: ply 6 of the index spans 1.5 billion entries.
pub const MAX_BOOK_PLIES: u32 = 6;

/// The game's key: `qubic` or `sogo`.
pub const fn key(gravity: bool) -> &'static str {
    if gravity { "sogo" } else { "qubic" }
}

/// The game's name for people: `Sogo` or `Qubic`.
pub const fn name(gravity: bool) -> &'static str {
    if gravity { "Sogo" } else { "Qubic" }
}



/// The bits of `bits` at the cells of `mask`, packed to the low end (`pext`).
#[inline]
fn gather(bits: u64, mask: u64) -> u64 {
    let (mut out, mut rest, mut k) = (0, mask, 0);
    while rest != 0 {
        let low = rest & rest.wrapping_neg();
        if bits & low != 0 {
            out |= 1 << k;
        }
        rest &= rest - 1;
        k += 1;
    }
    out
}

/// The inverse of [`gather`]: the low bits of `packed` placed at the cells of `mask` (`pdep`).
#[inline]
fn scatter(packed: u64, mask: u64) -> u64 {
    let (mut out, mut rest, mut k) = (0, mask, 0);
    while rest != 0 {
        let low = rest & rest.wrapping_neg();
        if packed >> k & 1 != 0 {
            out |= low;
        }
        rest &= rest - 1;
        k += 1;
    }
    out
}

/// The first player's stones at ply `ply`: it has moved at every even ply before.
#[inline]
fn first_stones(ply: u32) -> u32 {
    ply.div_ceil(2)
}

/// The size of ply `ply`'s index space.
pub fn index_size(ply: u32) -> u64 {
    binomial(CELLS, ply).saturating_mul(binomial(ply, first_stones(ply)))
}

/// The index of a position (not reduced by symmetry).
#[inline]
pub fn index_of(first: u64, mask: u64) -> u64 {
    let ply = mask.count_ones();
    subset_rank(mask) * binomial(ply, first_stones(ply)) + subset_rank(gather(first, mask))
}

/// The position with index `index` of ply `ply`.
pub fn position_at(ply: u32, index: u64) -> Position {
    let colourings = binomial(ply, first_stones(ply));
    let mask = subset_unrank(index / colourings, ply, CELLS);
    let first = scatter(subset_unrank(index % colourings, first_stones(ply), ply), mask);
    let current = if ply.is_multiple_of(2) { first } else { mask & !first };
    Position { current, mask, ply }
}

/// An opening book of a cube game (Qubic without gravity, Sogo with): plies 0 to `last`.
#[cfg_attr(not(feature = "internals"), allow(unnameable_types, reason = "reached only as a part of the catalogue a game gives, through its traits"))]
pub struct CubeBook<const GRAVITY: bool> {
    last: u32,
    symmetries: Vec<Symmetry>,
    /// Made at the first proof: most books are made to name their files
    /// ([`CubeBook::on_disk`] at every probe of a position and of each of its moves), and a
    /// solver's tables of symmetries take a processor some milliseconds each time.
    solver: OnceLock<CubeSolver<GRAVITY>>,
    journal: Option<Arc<ProofJournal>>,
}

impl<const GRAVITY: bool> std::fmt::Debug for CubeBook<GRAVITY> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CubeBook").finish_non_exhaustive()
    }
}

impl<const GRAVITY: bool> CubeBook<GRAVITY> {
    /// The book of plies `0..=last`.
    pub fn new(last: u32) -> CubeBook<GRAVITY> {
        CubeBook { last, symmetries: board::symmetries(GRAVITY), solver: OnceLock::new(), journal: None }
    }

    fn solver(&self) -> &CubeSolver<GRAVITY> {
        self.solver.get_or_init(|| match &self.journal {
            Some(journal) => CubeSolver::default().with_journal(Arc::clone(journal)),
            None => CubeSolver::default(),
        })
    }

    /// The book's tables.
    pub fn tables(last: u32) -> Layered<CubeBook<GRAVITY>> {
        Layered::new(CubeBook::new(last))
    }

    /// The book's tables, the proofs of its last ply recorded in `journal` and read back from
    /// it (Sogo's prover), so that a stopped generation goes on from what it proved.
    pub fn tables_with_journal(last: u32, journal: Arc<ProofJournal>) -> Layered<CubeBook<GRAVITY>> {
        Layered::new(CubeBook { journal: Some(journal), ..CubeBook::new(last) })
    }

    /// The last ply of the book on disk in `dir` (the last ply with a set or table file,
    /// finished or not), `None` when there is none.
    pub fn on_disk(dir: &Path) -> Option<u32> {
        let tables = Self::tables(MAX_BOOK_PLIES);
        let exists = |path: std::path::PathBuf| path.exists() || crate::table::temporary_path(&path).exists();
        (0..=MAX_BOOK_PLIES)
            .rev()
            .find(|&ply| exists(tables.set_spec(dir, ply).path) || exists(tables.table_spec(dir, ply).path))
    }

    /// The last ply.
    pub fn last(&self) -> u32 {
        self.last
    }

    /// The entry of `position`: the least index among its images.
    pub fn canonical_index(&self, position: &Position) -> u64 {
        let first = position.first_player();
        self.symmetries
            .iter()
            .map(|s| index_of(board::apply(s, first), board::apply(s, position.mask)))
            .min()
            .expect("the identity is a symmetry")
    }

    /// The outcome of a position of the last ply, by proof (a distance only where the game
    /// ends within a ply).
    pub fn outcome(&self, position: &Position) -> Value {
        self.solver().outcome(position)
    }
}

impl<const GRAVITY: bool> LayeredGame for CubeBook<GRAVITY> {
    type Position = Position;
    type Walker = ();


    fn name(&self) -> String {
        key(GRAVITY).to_string()
    }

    fn title(&self) -> String {
        let (name, symmetries) = (name(GRAVITY), if GRAVITY { 8 } else { 192 });
        format!(
            "{name}: an opening book, one table per ply (stones in the cube) for plies 0 to {}, stored up to the {symmetries} symmetries; ply {} by proof (outcomes of unknown distance), later positions by search",
            self.last, self.last
        )
    }

    fn layers(&self) -> u32 {
        self.last + 1
    }

    /// Sogo's positions one per chunk: each is a proof of minutes to hours, so that the
    /// threads prove different positions from the first (a ply of Sogo's book has fewer
    /// positions than one chunk of the default), the bar moves with each proof, and a run cut
    /// short keeps every proof it finished. Qubic's proofs share the threads already.
    fn checkpoint_entries(&self, ply: u32) -> Option<u64> {
        (ply == self.last).then_some(if GRAVITY { 1 } else { crate::table::CHECKPOINT_ENTRIES })
    }

    fn solve_note(&self, ply: u32) -> Option<String> {
        let journal = self.journal.as_ref().filter(|_| ply == self.last)?;
        Some(format!(
            "the proofs' journal {} holds {}, read back: those positions are not searched again",
            journal.path().display(),
            crate::text::count(journal.len() as u64, "proved outcome")
        ))
    }

    fn confirms(&self, _ply: u32, position: &Position, stored: Value) -> bool {
        self.solver().confirms_outcome(position, stored)
    }


    /// Before the proofs of the last ply, that their journal can be appended to: it was only
    /// read when the book was chosen (`plan` reads it too, in a directory it may not write).
    fn prepare(&self, _dir: &Path, ply: u32, _check: &dyn Fn(&FileSpec) -> Check) -> Result<(), TableError> {
        match &self.journal {
            Some(journal) if ply == self.last => journal
                .check_appendable()
                .map_err(|e| e.into_table_error("the proofs' journal: mend it or move it away")),
            _ => Ok(()),
        }
    }

    fn search_memory(&self, ply: u32) -> u64 {
        match ply == self.last {
            true => self.solver().prover_bytes() as u64,
            false => 0,
        }
    }

    fn table_name(&self, ply: u32) -> String {
        format!("ply {ply}")
    }

    fn file_stem(&self, ply: u32) -> String {
        format!("{}-ply{ply:02}", key(GRAVITY))
    }

    fn index_size(&self, ply: u32) -> u64 {
        index_size(ply)
    }

    fn start(&self) -> Vec<u64> {
        vec![0]
    }

    fn position(&self, ply: u32, _walker: &mut (), index: u64) -> Position {
        position_at(ply, index)
    }

    /// The number of distinct images: the counts count every position.
    fn weight(&self, _ply: u32, position: &Position) -> u64 {
        let first = position.first_player();
        let mut images: Vec<(u64, u64)> =
            self.symmetries.iter().map(|s| (board::apply(s, first), board::apply(s, position.mask))).collect();
        images.sort_unstable();
        images.dedup();
        images.len() as u64
    }

    fn for_each_child(&self, _ply: u32, position: &Position, mut f: impl FnMut(u64)) {
        if position.is_over() {
            return;
        }
        let mut moves = board::playable(position.mask, GRAVITY);
        while moves != 0 {
            let cell = moves & moves.wrapping_neg();
            moves &= moves - 1;
            f(self.canonical_index(&position.play(cell)));
        }
    }

    fn for_each_step(&self, ply: u32, position: &Position, mut f: impl FnMut(Step)) -> Result<(), TableError> {
        if ply == self.last {
            f(Step::Done(self.outcome(position)));
        } else if position.is_over() {
            if !position.is_won_by_previous() {
                f(Step::Done(Value::Draw));
            }
        } else {
            self.for_each_child(ply, position, |child| f(Step::Child(child)));
        }
        Ok(())
    }

    /// Qubic's plies up to 6: no line can be complete before the first player's fourth stone
    /// (ply 7), so every placement of the stones is reachable.
    fn reference_positions(&self, ply: u32) -> Option<u64> {
        (!GRAVITY && ply < 7).then(|| {
            let first = first_stones(ply);
            binomial(CELLS, first) * binomial(CELLS - first, ply - first)
        })
    }

    fn notation(&self, _ply: u32, position: &Position) -> String {
        cube_notation(position)
    }

    fn variant(&self) -> Variant {
        Variant::of(key(GRAVITY)).with("book-plies", self.last)
    }
}

pub use super::board::cube_notation;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indices_round_trip() {
        let mut rng = crate::rng::SplitMix64::new(7);
        for ply in 0..=MAX_BOOK_PLIES {
            for _ in 0..2_000 {
                let index = rng.next_u64() % index_size(ply);
                let p = position_at(ply, index);
                assert_eq!(p.mask.count_ones(), ply);
                assert_eq!(p.first_player().count_ones(), first_stones(ply));
                assert_eq!(index_of(p.first_player(), p.mask), index);
            }
        }
        assert_eq!(index_size(2), 2016 * 2);
        assert_eq!(index_of(0, 0), 0);
    }
}
