//! Probing Connect Four positions in the per-ply tables, and by search beyond the opening book
//! of a board too large to tabulate.

use super::board::{Geometry, Position, parse_moves};
use super::catalogue::Connect4;
use crate::catalogue::Catalogue;
use crate::layered::{Layered, LayeredGame, SolvedLayer};
use crate::prefetch::in_turn;
use crate::probe::{LazyTables, Outcome, Probe, ProbeError};
use crate::table::Check;
use crate::value::Value;
use std::fmt;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

/// A position with the moves that reached it (its notation).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Game {
    /// The position.
    pub position: Position,
    /// The columns played from the empty board, 1-based.
    pub moves: String,
}

/// A move: the 1-based column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Column(
    /// The column, 1 on the left.
    pub u32,
);

impl fmt::Display for Column {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// The tables of one board in a directory, each ply opened on first use. On a board too large
/// to tabulate ([`Geometry::tabulated`]), or when the directory holds an opening book
/// ([`Connect4::book_on_disk`]), a position of a ply without a table is solved by search.
pub struct Connect4Tablebase {
    dir: PathBuf,
    tables: Layered<Connect4>,
    plies: LazyTables<SolvedLayer>,
    /// Seconds one search may take.
    max_time: Option<f64>,
    /// Whether the directory holds a book, as last seen: [`Probe::searches`] is asked for every
    /// position, and a book's files looked up for each would cost more than the probe.
    book_seen: RecentAnswer,
}

impl std::fmt::Debug for Connect4Tablebase {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Connect4Tablebase").field("dir", &self.dir).finish_non_exhaustive()
    }
}

/// A yes or no from the file system, kept for [`RecentAnswer::FRESH_MILLIS`] so that a book
/// built while `serve` runs counts within that time, without a `stat` per request.
struct RecentAnswer {
    since: Instant,
    /// 0: never asked; else the milliseconds after `since` when it was asked, plus one, shifted
    /// left once, with the answer in the low bit.
    stamp: AtomicU64,
}

impl RecentAnswer {
    const FRESH_MILLIS: u64 = 1000;

    fn new() -> RecentAnswer {
        RecentAnswer { since: Instant::now(), stamp: AtomicU64::new(0) }
    }

    fn get(&self, ask: impl FnOnce() -> bool) -> bool {
        let now = self.since.elapsed().as_millis() as u64 + 1;
        let stamp = self.stamp.load(Ordering::Relaxed);
        if stamp != 0 && now - (stamp >> 1) < Self::FRESH_MILLIS {
            return stamp & 1 == 1;
        }
        let answer = ask();
        self.stamp.store(now << 1 | answer as u64, Ordering::Relaxed);
        answer
    }
}

impl Connect4Tablebase {
    /// The tables of board `geometry` in `dir`. Nothing is read until a position needs it.
    pub fn open(dir: impl Into<PathBuf>, geometry: Geometry) -> Connect4Tablebase {
        let tables = Connect4::tables(geometry);
        let plies = LazyTables::new(tables.game().layers() as usize);
        Connect4Tablebase { dir: dir.into(), tables, plies, max_time: None, book_seen: RecentAnswer::new() }
    }

    /// The same, with each search stopped after `seconds` (an error, exit 1).
    pub fn with_max_time(self, seconds: Option<f64>) -> Connect4Tablebase {
        Connect4Tablebase { max_time: seconds, ..self }
    }

    /// The board.
    pub fn geometry(&self) -> Geometry {
        self.tables.game().geometry()
    }

    fn ply(&self, ply: u32) -> Result<&SolvedLayer, ProbeError> {
        self.plies.get(
            ply as usize,
            || self.tables.open_layer(&self.dir, ply, |_| Check::Probing),
            || self.tables.variant(),
        )
    }

    fn value_of(&self, position: &Position) -> Result<Value, ProbeError> {
        self.lookup(position).into_value()
    }

    /// Where the value of `position` is: found already when no table is needed (a finished
    /// game, a ply searched), else its ply and its index there.
    fn lookup(&self, position: &Position) -> Lookup<'_> {
        let game = self.tables.game();
        let g = game.geometry();
        if position.is_won_by_previous(&g) {
            return Lookup::Known(Value::Loss(0));
        }
        if position.ply == g.cells() {
            return Lookup::Known(Value::Draw);
        }
        match self.ply(position.ply) {
            Ok(layer) => Lookup::Index(layer, game.ply(position.ply).canonical_index(position)),
            Err(ProbeError::NotGenerated { .. }) if Probe::searches(self) => match self.search(position) {
                Ok(value) => Lookup::Known(value),
                Err(e) => Lookup::Failed(e),
            },
            Err(e) => Lookup::Failed(e),
        }
    }

    /// The value of a position whose game is not over, by search.
    fn search(&self, position: &Position) -> Result<Value, ProbeError> {
        self.tables.game().search(position, self.max_time).map_err(|e| ProbeError::Search(Box::new(e)))
    }
}

impl Probe for Connect4Tablebase {
    type Position = Game;
    type Move = Column;

    fn unchanged(&self, since: crate::probe::Reads) -> Result<(), ProbeError> {
        self.plies.unchanged(since)
    }

    fn parse(&self, text: &str) -> Result<Game, ProbeError> {
        let moves = text.trim();
        let position =
            parse_moves(&self.tables.game().geometry(), moves).map_err(|e| ProbeError::Illegal(e.to_string()))?;
        Ok(Game { position, moves: moves.to_string() })
    }

    fn notation(&self, game: &Game) -> String {
        game.moves.clone()
    }

    fn value(&self, game: &Game) -> Result<Value, ProbeError> {
        self.value_of(&game.position)
    }

    fn values(&self, games: &[Game]) -> Vec<Result<Value, ProbeError>> {
        // Pass 1: each position's ply and index (no table reads), or its value when no table
        // is needed. Pass 2: the ranks in the plies' sets; pass 3: the values at those ranks,
        // each read announced ahead.
        let mut lookups: Vec<Lookup> = games.iter().map(|game| self.lookup(&game.position)).collect();
        in_turn(&mut lookups, Lookup::prefetch_set_record, Lookup::prefetch_set_block, Lookup::rank);
        in_turn(&mut lookups, Lookup::prefetch_table_record, Lookup::prefetch_table_block, Lookup::read);
        lookups.into_iter().map(Lookup::into_value).collect()
    }

    fn moves(&self, game: &Game) -> Result<Vec<Outcome<Self>>, ProbeError> {
        self.legal_moves(game)?
            .into_iter()
            .map(|(mv, next)| Ok(Outcome { value: self.value_of(&next.position)?.for_mover(), mv, next }))
            .collect()
    }

    fn legal_moves(&self, game: &Game) -> Result<Vec<(Column, Game)>, ProbeError> {
        let mut children = Vec::new();
        game.position.for_each_move(&self.tables.game().geometry(), |column, child| {
            let next = Game { position: child, moves: format!("{}{}", game.moves, column + 1) };
            children.push((Column(column + 1), next));
        });
        Ok(children)
    }

    /// A board too large to tabulate, or a book's, is searched past its tables. The book is
    /// looked for at most once a second (a `RecentAnswer`), so that one built while `serve`
    /// runs counts soon after without a `stat` per position.
    fn searches(&self) -> bool {
        let g = self.geometry();
        !g.tabulated() || self.book_seen.get(|| Connect4::book_on_disk(g, &self.dir).is_some())
    }

    fn describe(&self, game: &Game, value: Option<Value>) -> String {
        let g = &self.tables.game().geometry();
        let p = &game.position;
        let mut out = diagram(g, p);
        let side = if p.ply.is_multiple_of(2) { "First player (X)" } else { "Second player (O)" };
        out.push_str(&match value {
            Some(Value::Loss(0)) if p.ply == g.cells() => format!("{side} to move: the board is full"),
            Some(Value::Loss(0)) => format!("{side} to move has lost: the last move made four"),
            value => crate::text::verdict_or_unknown(side, value),
        });
        out.push('\n');
        out
    }

    fn skips_blank_lines(&self) -> bool {
        false // a blank line is the empty board
    }

    fn after_move(&self, game: &Game, mv: &str) -> Result<Option<Game>, ProbeError> {
        let mut found = None;
        game.position.for_each_move(&self.tables.game().geometry(), |column, child| {
            if Column(column + 1).to_string() == mv {
                found = Some(Game { position: child, moves: format!("{}{}", game.moves, column + 1) });
            }
        });
        Ok(found)
    }

    fn release(&self) {
        self.tables.game().release();
    }
}

/// A position's value in a batch of probes, as far as the batch has found it.
enum Lookup<'a> {
    /// The index of the position in its ply.
    Index(&'a SolvedLayer, u64),
    /// Its entry in the ply's table: its rank in the set.
    Entry(&'a SolvedLayer, u64),
    Known(Value),
    Failed(ProbeError),
}

impl Lookup<'_> {
    /// From an index to its entry: the rank in the set.
    #[inline]
    fn rank(&mut self) {
        if let Lookup::Index(layer, index) = *self {
            *self = match layer.set.rank(index) {
                Ok(Some(rank)) => Lookup::Entry(layer, rank),
                // Every legal position of a ply is in its set: one that is not means a damaged set.
                Ok(None) => Lookup::Failed(layer.set.damaged(index).into()),
                Err(e) => Lookup::Failed(e.into()),
            };
        }
    }

    /// From an entry to its value.
    #[inline]
    fn read(&mut self) {
        if let Lookup::Index(..) | Lookup::Entry(..) = self {
            *self = match std::mem::replace(self, Lookup::Known(Value::Draw)).into_value() {
                Ok(value) => Lookup::Known(value),
                Err(e) => Lookup::Failed(e),
            };
        }
    }

    fn into_value(mut self) -> Result<Value, ProbeError> {
        self.rank();
        match self {
            Lookup::Entry(layer, rank) => Ok(layer.table.value(rank)?),
            Lookup::Known(value) => Ok(value),
            Lookup::Failed(e) => Err(e),
            Lookup::Index(layer, index) => Err(layer.set.damaged(index).into()), // not after `rank`
        }
    }

    fn prefetch_set_record(&self) {
        if let Lookup::Index(layer, index) = *self {
            layer.set.prefetch_record(index);
        }
    }

    fn prefetch_set_block(&self) {
        if let Lookup::Index(layer, index) = *self {
            layer.set.prefetch_block(index);
        }
    }

    fn prefetch_table_record(&self) {
        if let Lookup::Entry(layer, rank) = *self {
            layer.table.prefetch_record(rank);
        }
    }

    fn prefetch_table_block(&self) {
        if let Lookup::Entry(layer, rank) = *self {
            layer.table.prefetch_block(rank);
        }
    }
}

/// The grid with `X` (first player), `O` and `.`, the columns numbered below.
pub fn diagram(g: &Geometry, p: &Position) -> String {
    let first = p.first_player();
    let mut out = String::new();
    for row in (0..g.height).rev() {
        for column in 0..g.width {
            let bit = 1u64 << (column * (g.height + 1) + row);
            out.push(if first & bit != 0 {
                'X'
            } else if p.mask & bit != 0 {
                'O'
            } else {
                '.'
            });
            out.push(' ');
        }
        out.pop();
        out.push('\n');
    }
    out.push_str(&(1..=g.width).map(|c| c.to_string()).collect::<Vec<_>>().join(" "));
    out.push('\n');
    out
}
