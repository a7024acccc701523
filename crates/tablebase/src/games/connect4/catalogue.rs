//! Connect Four as a layered game: one layer per ply (stones on the board), mirror images under
//! one index, counts weighted so that they count mirror images separately, as Tromp does.

use super::board::{Geometry, Position};
use super::index::{MAX_WIDTH, PlyIndex, Walker};
use super::search::{DEFAULT_TABLE_BYTES, SearchError, SearcherPool};
use crate::catalogue::{Rate, Variant};
use crate::layered::{Layered, LayeredGame, Step};
use crate::table::{Check, Counts, Header, TableError};
use crate::value::Value;
use std::path::Path;
use std::sync::OnceLock;

/// The game in file headers.
pub const GAME: &str = "connect4";
/// The game's name for people.
pub const NAME: &str = "Connect Four";

/// The first table format version with the present index (docs/FORMAT.md); older Connect Four
/// files number positions differently and are never read.
const INDEX_SINCE_VERSION: u32 = 2;

/// Connect Four on one board, for the layered pipeline: every ply to the end of the game, or an
/// opening book of the first plies whose last ply is solved by search.
pub struct Connect4 {
    geometry: Geometry,
    /// Built at the first use: a probe that only searches (7x6 without a book) never needs
    /// them, and building the 7x6 rank tables costs more than its whole answer.
    plies: OnceLock<Vec<PlyIndex>>,
    /// The last ply of an opening book; `None` for every ply.
    book: Option<u32>,
    /// Searchers for the book's last ply and for `probe` beyond the tables; each keeps its
    /// transposition table from position to position.
    searchers: SearcherPool,
}

impl std::fmt::Debug for Connect4 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Connect4").field("geometry", &self.geometry).field("book", &self.book).finish_non_exhaustive()
    }
}

impl Connect4 {
    /// The game on board `geometry`.
    pub fn new(geometry: Geometry) -> Connect4 {
        Connect4 {
            geometry,
            plies: OnceLock::new(),
            book: None,
            searchers: SearcherPool::new(geometry, DEFAULT_TABLE_BYTES),
        }
    }

    /// The tables of the game on board `geometry`.
    pub fn tables(geometry: Geometry) -> Layered<Connect4> {
        Layered::new(Connect4::new(geometry))
    }

    /// An opening book of board `geometry`: the tables of plies `0..=last_ply`, the last one
    /// solved by search.
    pub fn book(geometry: Geometry, last_ply: u32) -> Layered<Connect4> {
        let last_ply = last_ply.min(geometry.cells());
        Layered::new(Connect4 { book: Some(last_ply), ..Connect4::new(geometry) })
    }

    /// The last ply of the opening book on disk in `dir`, `None` when `dir` holds none.
    ///
    /// On a board too large to tabulate, any set or table file (finished or not) is a book's,
    /// and the last ply with one is its last. On a tabulated board a book holds the same files
    /// as the full tables' first plies, so it is told apart by what a full build never leaves:
    /// it writes every ply's set before any table, so a table (finished or not) of a ply with no
    /// file after it is a book's last ply. A set still being written counts for nothing here: a
    /// full build has no table then, and a stray one (a copy cut short) must not hide a book.
    pub fn book_on_disk(geometry: Geometry, dir: &Path) -> Option<u32> {
        let tables = Connect4::tables(geometry);
        let exists = |path: std::path::PathBuf| path.exists() || crate::table::temporary_path(&path).exists();
        let last = (0..=geometry.cells()).rev().find(|&ply| {
            tables.set_spec(dir, ply).path.exists() || exists(tables.table_spec(dir, ply).path)
        })?;
        let is_book =
            !geometry.tabulated() || (last < geometry.cells() && exists(tables.table_spec(dir, last).path));
        is_book.then_some(last)
    }

    /// The tables in `dir`: the opening book there ([`Connect4::book_on_disk`]), or else every
    /// ply of a board the project tabulates; `None` for a larger board without a book.
    pub fn on_disk(geometry: Geometry, dir: &Path) -> Option<Layered<Connect4>> {
        match Connect4::book_on_disk(geometry, dir) {
            Some(last) => Some(Connect4::book(geometry, last)),
            None => geometry.tabulated().then(|| Connect4::tables(geometry)),
        }
    }

    /// The value of a position by search, stopped after `max_time` seconds if given: for the
    /// book's last ply, and for `probe` beyond the tables.
    pub fn search(&self, position: &Position, max_time: Option<f64>) -> Result<Value, SearchError> {
        self.searchers.value(position, max_time)
    }

    /// Drops the idle searchers' transposition tables (`SearcherPool::release`).
    pub fn release(&self) {
        self.searchers.release();
    }

    /// The board.
    pub fn geometry(&self) -> Geometry {
        self.geometry
    }

    /// The index of ply `ply`.
    pub fn ply(&self, ply: u32) -> &PlyIndex {
        let geometry = self.geometry;
        &self.plies.get_or_init(|| (0..=geometry.cells()).map(|ply| PlyIndex::new(geometry, ply)).collect())
            [ply as usize]
    }

    /// The value of the empty board and the positions of all plies (not for a book), from the
    /// tables in `dir`.
    fn board_figures(&self, dir: &Path) -> Option<(Value, Option<u64>)> {
        let tables = Layered::new(Connect4::new(self.geometry));
        let mut total = 0;
        if self.book.is_none() {
            for ply in 0..=self.geometry.cells() {
                // A ply's file whose header is another table's (another ply's, copied into its
                // place) is missing here, not a count to add up.
                let spec = tables.table_spec(dir, ply);
                let header = Header::read(&spec.path).ok().filter(|header| spec.check(header).is_ok())?;
                total += header.counts.positions();
            }
        }
        let empty = tables.open_layer(dir, 0, |_| Check::Header).ok()?;
        let value = empty.value_at(self.ply(0).canonical_index(&Position::EMPTY)).ok()??;
        Some((value, self.book.is_none().then_some(total)))
    }
}

impl LayeredGame for Connect4 {
    type Position = Position;
    type Walker = Walker;


    fn name(&self) -> String {
        format!("{GAME} {}", self.geometry)
    }

    fn title(&self) -> String {
        match self.book {
            None => format!("{NAME} {}: one table per ply (stones on the board)", self.geometry),
            Some(last) => format!(
                "{NAME} {}: an opening book, one table per ply (stones on the board) for plies 0 to {last}; later positions by search",
                self.geometry
            ),
        }
    }

    fn layers(&self) -> u32 {
        self.book.map_or(self.geometry.cells(), |last| last) + 1
    }

    fn checkpoint_entries(&self, ply: u32) -> Option<u64> {
        (self.book == Some(ply)).then_some(crate::table::CHECKPOINT_ENTRIES)
    }

    /// Two searches around the stored score instead of the book's bisection of every score
    /// (a proof that holds for a position of any ply).
    fn confirms(&self, _ply: u32, position: &Position, stored: Value) -> bool {
        match self.searchers.confirms(position, stored) {
            Ok(proved) => proved,
            Err(e) => unreachable!("the book's searches have no time limit: {e}"),
        }
    }

    /// The whole 6x6 and 7x5 boards, compressing beside (2026-11-28): 183 and 179 ns a
    /// member for the forward passes, 210 and 204 for the solves, whose plies hold 1e9 to 7e9
    /// members; the rate grows with a ply's members as their 0.095th power, from the 6x4 board
    /// (about 210 ns a member for both, 2026-11) to those. A book's last ply by search: the
    /// means of docs/BENCHMARKS.md ("the book's last ply") on 7x6, 1.45 s a position at ply 7,
    /// 0.65 s at 8, 0.24 s at 9; none known for its other plies or for other boards, whose
    /// searches are shorter by orders of magnitude (6x5's ply 8: under a millisecond a position).
    fn rates(&self, ply: u32) -> (Option<Rate>, Option<Rate>) {
        let forward = Some(Rate::new(89.0, 0.095));
        let seven_by_six = (self.geometry.width, self.geometry.height) == (7, 6);
        match (self.book == Some(ply), seven_by_six, ply) {
            (false, _, _) => (forward, Some(Rate::new(102.0, 0.095))),
            (true, true, 7) => (forward, Some(Rate::new(1.45e9, 0.0))),
            (true, true, 8) => (forward, Some(Rate::new(0.65e9, 0.0))),
            (true, true, 9) => (forward, Some(Rate::new(0.24e9, 0.0))),
            (true, _, _) => (forward, None),
        }
    }

    fn search_memory(&self, ply: u32) -> u64 {
        match self.book == Some(ply) {
            true => DEFAULT_TABLE_BYTES as u64,
            false => 0,
        }
    }

    fn table_name(&self, ply: u32) -> String {
        format!("{} ply {ply}", self.geometry)
    }

    fn file_stem(&self, ply: u32) -> String {
        format!("connect4-{}-ply{ply:02}", self.geometry)
    }

    fn since_version(&self) -> u32 {
        INDEX_SINCE_VERSION
    }

    fn index_size(&self, ply: u32) -> u64 {
        self.ply(ply).size()
    }

    fn start(&self) -> Vec<u64> {
        vec![self.ply(0).canonical_index(&Position::EMPTY)]
    }

    #[inline]
    fn position(&self, ply: u32, walker: &mut Walker, index: u64) -> Position {
        self.ply(ply).seek(walker, index)
    }

    /// 2 unless the position is its own mirror image: mirror images share an entry.
    #[inline]
    fn weight(&self, _ply: u32, position: &Position) -> u64 {
        if position.mirror(&self.geometry) == *position { 1 } else { 2 }
    }

    #[inline]
    fn for_each_child(&self, ply: u32, position: &Position, mut f: impl FnMut(u64)) {
        if position.is_over(&self.geometry) {
            return;
        }
        let mut children = [0u64; MAX_WIDTH];
        let mut playable = self.ply(ply).children(position, &mut children);
        while playable != 0 {
            f(children[playable.trailing_zeros() as usize]);
            playable &= playable - 1;
        }
    }

    #[inline]
    fn for_each_step(
        &self,
        ply: u32,
        position: &Position,
        mut f: impl FnMut(Step),
    ) -> Result<(), TableError> {
        let g = &self.geometry;
        if self.book == Some(ply) {
            // The book's last ply: the position's own value, as one pseudo-move.
            let value = match self.search(position, None) {
                Ok(value) => value,
                Err(e) => unreachable!("the book's searches have no time limit: {e}"),
            };
            f(Step::Done(value));
        } else if position.is_won_by_previous(g) {
            // lost: no moves
        } else if position.ply == g.cells() {
            // A full board without four is a draw: the one pseudo-move that says so.
            f(Step::Done(Value::Draw));
        } else if position.can_win_at_once(g) {
            // Nothing is better than four in a row now: the other moves need not be looked up.
            f(Step::Done(Value::Win(1)));
        } else {
            self.for_each_child(ply, position, |child| f(Step::Child(child)));
        }
        Ok(())
    }

    fn reference_positions(&self, ply: u32) -> Option<u64> {
        crate::games::connect4::connect4_ply_positions(self.geometry.width, self.geometry.height, ply)
    }

    /// Without a count per ply, a board whose total is published (Tromp's) has it shared among
    /// its plies by their index spaces: the plies' sum is then the true total, where the index
    /// space alone would put 6x6 at nine times its positions and its CPU at 40 hours, not 4.
    fn expected_positions(&self, ply: u32) -> Option<u64> {
        let g = self.geometry;
        if let Some(positions) = self.reference_positions(ply) {
            return Some(positions);
        }
        // With a book the layers stop at its last ply, and the total is of the whole board.
        if self.book.is_some() {
            return None;
        }
        let total = crate::games::connect4::connect4_board(g.width, g.height)?.0?;
        let space: u128 = (0..self.layers()).map(|p| u128::from(self.index_size(p))).sum();
        let share = u128::from(total) * u128::from(self.index_size(ply)) / space.max(1);
        Some(u64::try_from(share).unwrap_or(u64::MAX).min(self.index_size(ply)))
    }

    /// Tromp's counts take a position and its mirror image apart; a set stores them once.
    fn positions_per_member(&self) -> f64 {
        2.0
    }

    /// Ply 0 also carries the board's published figures: the total, the empty board's value and
    /// the ply the game ends on.
    fn reference_match(&self, dir: &Path, ply: u32, counts: &Counts) -> Option<bool> {
        let of_ply = self.reference_positions(ply).map(|p| p == counts.positions());
        if ply != 0 {
            return of_ply;
        }
        let g = self.geometry;
        // Without every ply the board's figures cannot be checked: unknown, not wrong.
        let figures = self.board_figures(dir);
        let of_board =
            crate::games::connect4::connect4_board(g.width, g.height).zip(figures).map(|(published, found)| {
                let ((positions, value, end), (empty, total)) = (published, found);
                let value_ok = match (value, empty) {
                    ("first", Value::Win(n)) | ("second", Value::Loss(n)) => end.is_none_or(|e| e == n),
                    ("draw", Value::Draw) => true,
                    _ => false,
                };
                value_ok && positions.zip(total).is_none_or(|(p, total)| p == total)
            });
        match (of_ply, of_board) {
            (Some(a), Some(b)) => Some(a && b),
            (a, b) => a.or(b),
        }
    }

    /// The columns bottom up, `x` for the first player and `o` for the second: `xo|x|-|o`.
    fn notation(&self, _ply: u32, position: &Position) -> String {
        let g = &self.geometry;
        let first = position.first_player();
        let columns: Vec<String> = (0..g.width)
            .map(|c| {
                let stones: String = (0..g.height)
                    .map(|r| 1u64 << (c * (g.height + 1) + r))
                    .take_while(|&bit| position.mask & bit != 0)
                    .map(|bit| if first & bit != 0 { 'x' } else { 'o' })
                    .collect();
                if stones.is_empty() { "-".to_string() } else { stones }
            })
            .collect();
        columns.join("|")
    }

    fn variant(&self) -> Variant {
        let variant = Variant::of(GAME).with("size", self.geometry);
        match self.book {
            Some(last) => variant.with("book-plies", last),
            None => variant,
        }
    }
}
