//! The layered pipeline, shared by every game whose moves all leave their layer (a Connect
//! Four ply, a Morris placement ply, tic-tac-toe by stones on the board).
//!
//! A game describes its layers through [`LayeredGame`]: an index space per layer, the start,
//! the children of a position, and what its moves give. [`Layered`] turns that into a
//! [`Catalogue`](crate::catalogue::Catalogue):
//! 1. a **forward pass** marks the reachable positions of each layer, from the start, in a bit
//!    set over the layer's index space, written as the layer's `.set` file with a rank
//!    directory as soon as the layer before is expanded (one job per layer, so it resumes from
//!    the last set on disk);
//! 2. the **backward pass** solves the layers from the last to the first, each straight into
//!    its `.tbl` file, one byte per reachable position in the order of the set: the dense index
//!    of a position is its rank in the set.

pub(crate) mod bitset;
mod catalogue;
pub(crate) mod forward;
mod solved;

pub(crate) use bitset::BitSet;
pub use catalogue::{Layer, LayerJob, Layered};
pub use solved::{CheckedLayer, LayerCursor, LayerSet, SolvedLayer};

use crate::catalogue::Rate;
use crate::table::{Check, Counts, FileSpec};
use crate::value::Value;
use std::path::Path;

/// Where a move of a layered game leads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// To the position with this index in the next layer.
    Child(u64),
    /// Out of the layers, with what the move gives the side to move: the end of the game, or a
    /// position of a table solved before (a moving-phase class).
    Done(Value),
}

/// A game whose moves all lead from one layer to the next, described for the layered pipeline.
pub trait LayeredGame: Sync {
    /// A position as the game's rules see it.
    type Position: Copy + Send + Sync;
    /// State that makes decoding consecutive indices of one layer cheap; one per thread.
    type Walker: Default + Send;

    /// The game in file headers and reports: `connect4`; the key of [`LayeredGame::variant`],
    /// which says it once.
    fn game(&self) -> &'static str {
        self.variant().game
    }
    /// The game and its variant in messages: `connect4 6x5`.
    fn name(&self) -> String;
    /// One line that says what the tables are, for `info`.
    fn title(&self) -> String;
    /// The number of layers; layer 0 holds the start.
    fn layers(&self) -> u32;
    /// What a layer is called in reports: `ply` gives `ply 12`.
    fn layer_word(&self) -> &'static str {
        "ply"
    }
    /// The table name in file headers: `7x6 ply 12`.
    fn table_name(&self, layer: u32) -> String;
    /// The file name of a layer without extension: `connect4-7x6-ply12`.
    fn file_stem(&self, layer: u32) -> String;
    /// Bytes of memory one thread's searches hold while `layer` is solved (the transposition
    /// tables of a layer solved by search); nothing by default.
    fn search_memory(&self, _layer: u32) -> u64 {
        0
    }
    /// The oldest table format version whose index this game still reads.
    fn since_version(&self) -> u32 {
        crate::table::OLDEST_READABLE_VERSION
    }
    /// The size of a layer's index space (reachable or not).
    fn index_size(&self, layer: u32) -> u64;
    /// Opens what the game reads outside its layers before `layer` is solved or checked (the
    /// Morris opening's last layer reads the moving-phase classes), each file checked as
    /// `check` says. Nothing by default.
    fn prepare(
        &self,
        _dir: &Path,
        _layer: u32,
        _check: &dyn Fn(&FileSpec) -> Check,
    ) -> Result<(), crate::table::TableError> {
        Ok(())
    }
    /// The CPU (all threads together) per member of `layer`'s set that its forward pass
    /// (making the set) and its solve take, on the machine of docs/BENCHMARKS.md, from the runs
    /// measured there; `None` where no rate is known: a game never measured, or a layer solved
    /// by search, whose positions take from milliseconds to hours. For `plan`'s estimates, which
    /// say "not estimated" rather than borrow another game's rate.
    fn rates(&self, _layer: u32) -> (Option<Rate>, Option<Rate>) {
        (None, None)
    }
    /// The files outside the layers that [`LayeredGame::prepare`] opens for `layer`, for the job
    /// graph. None by default.
    fn reads(&self, _dir: &Path, _layer: u32) -> Vec<FileSpec> {
        Vec::new()
    }
    /// Where `layer` is solved in small chunks that an interrupted run goes on from, the
    /// positions of a chunk: for a layer whose positions take a search each (the last layer of
    /// an opening book). `None` (the default) writes the layer in one go.
    fn checkpoint_entries(&self, _layer: u32) -> Option<u64> {
        None
    }
    /// A line for the log before `layer` is solved, where the game has something to say about
    /// the work ahead (what a journal of earlier runs holds). Nothing by default.
    fn solve_note(&self, _layer: u32) -> Option<String> {
        None
    }
    /// Whether `stored` is the value of `position` in a checkpointed layer (one solved by
    /// search), proved more cheaply than by solving it again; `false` where the game cannot
    /// tell, and then `verify` solves it again and compares.
    fn confirms(&self, _layer: u32, _position: &Self::Position, _stored: Value) -> bool {
        false
    }
    /// The indices of the start positions, in layer 0.
    fn start(&self) -> Vec<u64>;
    /// The position with index `index` of `layer`. Within one walker, indices come in increasing
    /// order most of the time.
    fn position(&self, layer: u32, walker: &mut Self::Walker, index: u64) -> Self::Position;
    /// How many positions the entry stands for, as the references count them: 1, or the number
    /// of distinct images for a game stored up to symmetry.
    fn weight(&self, _layer: u32, _position: &Self::Position) -> u64 {
        1
    }
    /// Calls `f` with the index in `layer + 1` of every position a legal move leads to (the
    /// forward pass); nothing when the game is over.
    fn for_each_child(&self, layer: u32, position: &Self::Position, f: impl FnMut(u64));
    /// Calls `f` with every legal move's step, for solving. A position that wins at once may give
    /// only that move. An error when a table the game reads for `Step::Done` values (solved
    /// before, outside the layers) cannot be read.
    fn for_each_step(
        &self,
        layer: u32,
        position: &Self::Position,
        f: impl FnMut(Step),
    ) -> Result<(), crate::table::TableError>;
    /// The reachable positions of a layer, as the references count them, where published.
    fn reference_positions(&self, _layer: u32) -> Option<u64> {
        None
    }
    /// What an estimate counts a layer's positions at before its set is built: the reference's
    /// count where there is one; with none, the estimate uses the layer's index space.
    fn expected_positions(&self, layer: u32) -> Option<u64> {
        self.reference_positions(layer)
    }
    /// How many of the positions [`LayeredGame::expected_positions`] counts a member of a set
    /// stands for: more than one where the references count images a member stores once. The
    /// CPU estimate before a set is built divides by it (rates are per member).
    fn positions_per_member(&self) -> f64 {
        1.0
    }
    /// Whether a complete layer's counts agree with the reference; a game may add figures that
    /// span layers (the total, the value of the start).
    fn reference_match(&self, _dir: &Path, layer: u32, counts: &Counts) -> Option<bool> {
        self.reference_positions(layer).map(|p| p == counts.positions())
    }
    /// A position in the game's notation, for reports.
    fn notation(&self, layer: u32, position: &Self::Position) -> String;
    /// The variant that names these tables: what generates them, for messages about missing
    /// ones.
    fn variant(&self) -> crate::catalogue::Variant;
}
