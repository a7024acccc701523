//! Connect Four tables: one per ply, solved back to front through the shared solver.
//!
//! The forward pass marks the reachable positions of every ply (mirror images under one index)
//! and stores each ply's set as `connect4-WxH-plyNN.set`; the dense index of a position is its
//! rank in that set. Values go to `connect4-WxH-plyNN.tbl` in the shared table format, one byte
//! per dense index; header counts count mirror images separately, as the references do.

use super::board::{Geometry, Position};
use super::index::{BitSet, MAX_WIDTH, PlyIndex, Walker, empty_board_set, forward};
use crate::progress::Progress;
use crate::solve::{RetrogradeSet, SolveError, Successor, check_forward, solve};
use crate::table::{
    Check, Counts, Header, SetFile, Status, TableError, TableFile, read_bitset_header, write_bitset,
    write_table,
};
use crate::value::Value;
use std::cell::RefCell;
use std::fmt;
use std::path::{Path, PathBuf};

pub const GAME: &str = "connect4";

/// The first table format version with the present index (docs/FORMAT.md); older Connect Four
/// files number positions differently and are never read.
const INDEX_SINCE_VERSION: u32 = 2;

fn current_index(header: &Header, path: &Path) -> Result<(), TableError> {
    if header.version < INDEX_SINCE_VERSION {
        return Err(TableError::Outdated { path: path.to_path_buf(), found: header.version });
    }
    Ok(())
}

pub fn set_path(dir: &Path, g: Geometry, ply: u32) -> PathBuf {
    dir.join(format!("connect4-{g}-ply{ply:02}.set"))
}

pub fn table_path(dir: &Path, g: Geometry, ply: u32) -> PathBuf {
    dir.join(format!("connect4-{g}-ply{ply:02}.tbl"))
}

/// The table name in file headers: board and ply.
pub fn table_name(g: Geometry, ply: u32) -> String {
    format!("{g} ply {ply}")
}

/// A solved ply, readable.
pub struct SolvedPly {
    pub geometry: Geometry,
    pub index: PlyIndex,
    pub set: SetFile,
    pub file: TableFile,
}

impl SolvedPly {
    pub fn open(dir: &Path, g: Geometry, ply: u32, check: Check) -> Result<SolvedPly, TableError> {
        let name = table_name(g, ply);
        let path = set_path(dir, g, ply);
        let set = SetFile::open(&path, GAME, &name, check)?;
        current_index(set.header(), &path)?;
        let path = table_path(dir, g, ply);
        let file = TableFile::open(&path, GAME, &name, set.len(), check)?;
        current_index(file.header(), &path)?;
        Ok(SolvedPly { geometry: g, index: PlyIndex::new(g, ply), set, file })
    }

    /// The value of a position of this ply, or `None` when it cannot be reached in play.
    #[inline]
    pub fn value(&self, position: &Position) -> Option<Value> {
        self.value_at(self.index.canonical_index(position))
    }

    /// The value of the position with canonical index `index`, if it is reachable.
    #[inline]
    pub fn value_at(&self, index: u64) -> Option<Value> {
        self.set.rank(index).map(|dense| self.file.value(dense))
    }
}

/// The reachable positions of one ply, whose moves all lead into the next ply, solved before.
pub struct PlySet<'a> {
    geometry: Geometry,
    index: PlyIndex,
    set: &'a SetFile,
    next: Option<&'a SolvedPly>,
    /// Entries that are their own mirror image, noted while successors are generated.
    symmetric: BitSet,
    /// Distinguishes this set in the threads' cursors (addresses get reused).
    id: usize,
}

static NEXT_PLY_SET_ID: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(1);

/// Where a thread last was in a set: the solver walks dense numbers in order within a chunk, so
/// the next member is found from the last one, and only the columns that differ are unranked.
struct Cursor {
    set: usize,
    dense: u64,
    index: u64,
    walker: Walker,
}

thread_local! {
    static CURSOR: RefCell<Cursor> =
        RefCell::new(Cursor { set: 0, dense: u64::MAX, index: 0, walker: Walker::default() });
}

impl<'a> PlySet<'a> {
    pub fn new(geometry: Geometry, ply: u32, set: &'a SetFile, next: Option<&'a SolvedPly>) -> PlySet<'a> {
        let id = NEXT_PLY_SET_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        PlySet {
            geometry,
            index: PlyIndex::new(geometry, ply),
            set,
            next,
            symmetric: BitSet::new(set.len()),
            id,
        }
    }

    /// The position with dense number `dense`.
    pub fn position(&self, dense: u64) -> Position {
        CURSOR.with_borrow_mut(|cursor| {
            let index = if cursor.set == self.id && cursor.dense.wrapping_add(1) == dense {
                self.set.next_member(cursor.index + 1)
            } else {
                if cursor.set != self.id {
                    cursor.walker = Walker::default();
                }
                self.set.select(dense)
            };
            (cursor.set, cursor.dense, cursor.index) = (self.id, dense, index);
            self.index.seek(&mut cursor.walker, index)
        })
    }

    /// How many positions an entry stands for: itself and, unless symmetric, its mirror image.
    /// Valid once the set is solved (or checked).
    pub fn weight(&self, dense: u64) -> u64 {
        if self.symmetric.contains(dense) { 1 } else { 2 }
    }
}

impl RetrogradeSet for PlySet<'_> {
    fn size(&self) -> u64 {
        self.set.len()
    }

    fn for_each_successor(&self, index: u64, mut f: impl FnMut(Successor)) {
        let g = &self.geometry;
        let position = self.position(index);
        if self.index.is_symmetric(&position) {
            self.symmetric.insert(index);
        }
        if position.is_won_by_previous(g) {
            return; // lost: no moves
        }
        if position.ply == g.cells() {
            // A full board without four is a draw: the one pseudo-move that says so.
            f(Successor::Outside(Value::Draw));
            return;
        }
        if position.can_win_at_once(g) {
            // Nothing is better than four in a row now: the other moves need not be looked up.
            f(Successor::Outside(Value::Win(1)));
            return;
        }
        let next = self.next.expect("every ply but the last has a next ply");
        let mut children = [0u64; MAX_WIDTH];
        let mut playable = self.index.children(&position, &mut children);
        while playable != 0 {
            let child = children[playable.trailing_zeros() as usize];
            let value = next.value_at(child).expect("children of reachable positions are reachable");
            f(Successor::Outside(value.for_mover()));
            playable &= playable - 1;
        }
    }

    fn for_each_predecessor(&self, _index: u64, _f: impl FnMut(u64)) {}

    fn has_inside_moves(&self) -> bool {
        false
    }
}

#[derive(Debug)]
pub enum Connect4Error {
    Table(TableError),
    Solve { ply: u32, error: SolveError },
}

impl fmt::Display for Connect4Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Connect4Error::Table(e) => write!(f, "{e}"),
            Connect4Error::Solve { ply, error } => write!(f, "solving connect4 ply {ply}: {error}"),
        }
    }
}

impl std::error::Error for Connect4Error {}

impl From<TableError> for Connect4Error {
    fn from(e: TableError) -> Connect4Error {
        Connect4Error::Table(e)
    }
}

/// Whether a table is complete and written with the present index.
fn complete(path: &Path) -> bool {
    matches!(Status::of(path), Status::Complete(header) if header.version >= INDEX_SINCE_VERSION)
}

/// Whether a set is complete and written with the present index (its checksum is checked on use).
fn set_complete(path: &Path) -> bool {
    read_bitset_header(path).is_ok_and(|header| header.complete && header.version >= INDEX_SINCE_VERSION)
}

/// Generates every ply of board `g` into `dir`: the forward pass from the last ply whose set is
/// on disk (each ply's set is written as soon as it is complete), then the plies from the last
/// back to the empty board, skipping finished ones.
pub fn generate(dir: &Path, g: Geometry, progress: &Progress) -> Result<(), Connect4Error> {
    std::fs::create_dir_all(dir).map_err(|source| TableError::Io { path: dir.to_path_buf(), source })?;
    let sets_on_disk = (0..=g.cells()).take_while(|&ply| set_complete(&set_path(dir, g, ply))).count() as u32;
    if sets_on_disk <= g.cells() {
        let (start, set) = match sets_on_disk.checked_sub(1) {
            None => (0, empty_board_set(g)),
            Some(last) => {
                let set =
                    SetFile::open(&set_path(dir, g, last), GAME, &table_name(g, last), Check::Checksum)?;
                let words = (0..set.word_count()).map(|w| set.word(w)).collect();
                (last, BitSet::from_words(set.capacity(), words))
            }
        };
        progress.task(&format!("connect4 {g}"));
        progress.phase("forward pass", u64::from(g.cells()) + 1);
        forward(g, start, set, g.cells(), progress, |ply, set, positions| {
            if ply >= sets_on_disk {
                let words = set.words();
                write_bitset(&set_path(dir, g, ply), GAME, &table_name(g, ply), set.capacity(), &words)?;
            }
            progress.message(&format!("connect4 {g} ply {ply}: {positions} positions reachable"));
            Ok::<(), TableError>(())
        })?;
    }
    let mut next: Option<SolvedPly> = None;
    for ply in (0..=g.cells()).rev() {
        let path = table_path(dir, g, ply);
        // A ply solved here has had its set checked and its table just written; one solved
        // before is checked before the plies below are built on it.
        let mut check = Check::Checksum;
        if !complete(&path) {
            let name = table_name(g, ply);
            let set = SetFile::open(&set_path(dir, g, ply), GAME, &name, Check::Checksum)?;
            progress.task(&format!("connect4 {g} ply {ply}"));
            let layer = PlySet::new(g, ply, &set, next.as_ref());
            let solution = solve(&layer, progress).map_err(|error| Connect4Error::Solve { ply, error })?;
            let header =
                write_table(&path, GAME, &name, set.len(), |i| solution.value(i), |i| layer.weight(i))?;
            let c = header.counts;
            progress.message(&format!(
                "connect4 {g} ply {ply}: solved, {} positions: win {} loss {} draw {}",
                c.positions(),
                c.win,
                c.loss,
                c.draw
            ));
            check = Check::Header;
        }
        next = Some(SolvedPly::open(dir, g, ply, check)?);
    }
    progress.clear();
    Ok(())
}

/// What `verify` found for one ply.
pub struct PlyCheck {
    pub ply: u32,
    pub counts: Counts,
    pub checksum_ok: bool,
    pub consistent: Option<bool>,
    pub reference_match: Option<bool>,
}

/// Verifies every ply of board `g`: checksums, per-ply counts against the 7x6 reference where it
/// has figures, and unless `quick` every value recomputed from the next ply's values.
pub fn verify(
    dir: &Path,
    g: Geometry,
    quick: bool,
    progress: &Progress,
) -> Result<Vec<PlyCheck>, Connect4Error> {
    let mut checks = Vec::new();
    let mut next: Option<SolvedPly> = None;
    for ply in (0..=g.cells()).rev() {
        let solved = SolvedPly::open(dir, g, ply, Check::Header)?;
        let checksum_ok = solved.set.check_checksum().is_ok() && solved.file.check_checksum().is_ok();
        let counts = solved.file.header().counts;
        let reference_match = crate::reference::connect4_ply_positions(g.width, g.height, ply)
            .map(|expected| expected == counts.positions());
        let consistent = (!quick && checksum_ok).then(|| {
            progress.task(&format!("verify connect4 {g} ply {ply}"));
            let layer = PlySet::new(g, ply, &solved.set, next.as_ref());
            let (mismatches, _) =
                check_forward(&layer, 0..solved.set.len(), |i| solved.file.value(i), progress);
            mismatches == 0
        });
        checks.push(PlyCheck { ply, counts, checksum_ok, consistent, reference_match });
        next = Some(solved);
    }
    progress.clear();
    checks.reverse();
    Ok(checks)
}
