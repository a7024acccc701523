//! Any [`LayeredGame`] as a [`Catalogue`]: a forward job and a solve job per layer.

use super::forward::{expand, start_set};
use super::{BitSet, LayerSet, LayeredGame, SolvedLayer};
use crate::catalogue::{Build, BuildError, Catalogue, JOB_START_SECONDS, Needs, Reference};
use crate::progress::Progress;
use crate::solve::{CheckedParts, Consistency, Unrecorded, check_layered, solve_layered};
use crate::table::{Check, Counts, FileSpec, SetFile, Status, TableError, TableFile, Words, write_set};
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The tables of a layered game: the game's layers as a [`Catalogue`].
pub struct Layered<G> {
    game: G,
    /// Files checked (and, compressed, decoded) whole that the next job or check reads again,
    /// by path: the solve of a layer keeps its set for the solve of the layer before (its next
    /// layer's set), and the check of a layer keeps its set and the next layer's files for the
    /// check of the next layer, which walks the layers the other way. A large compressed file is
    /// decoded once rather than two or three times.
    kept: Mutex<Vec<(PathBuf, Opened)>>,
}

impl<G: std::fmt::Debug> std::fmt::Debug for Layered<G> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Layered").field("game", &self.game).finish_non_exhaustive()
    }
}

/// A file checked whole, kept for the next job or check.
enum Opened {
    Set(SetFile),
    Table(TableFile),
}

impl<G> Layered<G> {
    /// The tables of `game`.
    pub fn new(game: G) -> Layered<G> {
        Layered { game, kept: Mutex::new(Vec::new()) }
    }

    /// The game whose tables these are.
    pub fn game(&self) -> &G {
        &self.game
    }
}

/// A layer, as `info` and `verify` name it: `ply 12`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layer {
    /// Which layer.
    pub layer: u32,
    /// What the game calls a layer.
    pub word: &'static str,
}

impl fmt::Display for Layer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.word, self.layer)
    }
}

/// A job of the layered pipeline.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LayerJob {
    /// Mark the reachable positions of a layer (from the layer before) and write its set.
    Forward(Layer),
    /// Solve a layer from the next one and write its table.
    Solve(Layer),
}

impl fmt::Display for LayerJob {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LayerJob::Forward(layer) => write!(f, "{layer} reachable set"),
            LayerJob::Solve(layer) => write!(f, "{layer}"),
        }
    }
}

impl<G: LayeredGame> Layered<G> {
    fn layer(&self, layer: u32) -> Layer {
        Layer { layer, word: self.game.layer_word() }
    }

    /// The set file of `layer`.
    pub fn set_spec(&self, dir: &Path, layer: u32) -> FileSpec {
        let g = &self.game;
        FileSpec::set(dir.join(format!("{}.set", g.file_stem(layer))), g.game(), g.table_name(layer))
            .since(g.since_version())
    }

    /// The value table of `layer`.
    pub fn table_spec(&self, dir: &Path, layer: u32) -> FileSpec {
        let g = &self.game;
        FileSpec::table(dir.join(format!("{}.tbl", g.file_stem(layer))), g.game(), g.table_name(layer))
            .since(g.since_version())
    }

    /// Opens a solved layer, its set and table checked as `check` says for each file.
    pub fn open_layer(
        &self,
        dir: &Path,
        layer: u32,
        check: impl Fn(&FileSpec) -> Check,
    ) -> Result<SolvedLayer, TableError> {
        let set_spec = self.set_spec(dir, layer);
        let set = SetFile::open(&set_spec, check(&set_spec))?;
        let table_spec = self.table_spec(dir, layer);
        let table = TableFile::open(&table_spec, set.len(), check(&table_spec))?;
        Ok(SolvedLayer { set, table })
    }

    fn forward(&self, dir: &Path, layer: u32, build: &Build) -> Result<String, BuildError> {
        let g = &self.game;
        let next = if layer == 0 {
            start_set(g)
        } else {
            let before = self.set_spec(dir, layer - 1);
            let members = SetFile::open(&before, Check::Checksum)?;
            let next = BitSet::new(g.index_size(layer));
            expand(g, layer - 1, &members.words()?, Some(&next), build.progress);
            next
        };
        write_set(&self.set_spec(dir, layer), next.capacity(), &next)?;
        Ok(format!("{}, stored up to symmetry", crate::text::count(next.len(), "reachable position")))
    }

    fn solve(&self, dir: &Path, layer: u32, build: &Build) -> Result<String, BuildError> {
        let set_spec = self.set_spec(dir, layer);
        // Another layer's set is dropped before this one is decoded.
        self.keep_only(&[self.set_spec(dir, layer + 1).path]);
        let set = self.checked_set(&set_spec)?;
        let next = match layer + 1 < self.game.layers() {
            true => Some(self.checked_layer(dir, layer + 1)?),
            false => None,
        };
        self.game.prepare(dir, layer, &|_| Check::Checksum)?;
        let layer_set = LayerSet { game: &self.game, layer, set: &set, next: next.as_ref() };
        let checkpoints = self.game.checkpoint_entries(layer);
        if let Some(note) = self.game.solve_note(layer) {
            build.progress.message(&format!("{} {}: {note}", self.game.name(), self.layer(layer)));
        }
        let header = solve_layered(&layer_set, &self.table_spec(dir, layer), build.progress, checkpoints)
            .map_err(BuildError::solve(format!("{} {}", self.game.name(), self.layer(layer))))?;
        drop(next);
        let stored = set.len();
        self.keep(vec![(set_spec.path, Opened::Set(set))]);
        let c = header.counts;
        // The counts are as the references count them (Connect Four: each mirror image apart),
        // which the set's line before, up to symmetry, does not: said, so the two never read as
        // one count.
        let counted = match c.positions() == stored {
            true => "up to symmetry".to_string(),
            false => format!("symmetric images counted apart, {stored} stored"),
        };
        Ok(format!(
            "solved, {} ({counted}): win {} loss {} draw {}",
            crate::text::count(c.positions(), "position"),
            c.win,
            c.loss,
            c.draw
        ))
    }
}

impl<G: LayeredGame> Layered<G> {
    /// The reachable set of `layer` as the forward pass computes it from `before`, the set of the
    /// layer before (`None` for layer 0: from the start).
    fn reachable(
        &self,
        layer: u32,
        before: Option<&SetFile>,
        progress: &Progress,
    ) -> Result<BitSet, TableError> {
        let Some(before) = before else { return Ok(start_set(&self.game)) };
        let expected = BitSet::new(self.game.index_size(layer));
        expand(&self.game, layer - 1, &before.words()?, Some(&expected), progress);
        Ok(expected)
    }

    /// The file kept under `path`, taken out, if there is one.
    fn take_kept(&self, path: &Path) -> Option<Opened> {
        let mut kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        kept.iter().position(|(p, _)| p == path).map(|at| kept.swap_remove(at).1)
    }

    /// Drops the kept files other than those under `paths`.
    fn keep_only(&self, paths: &[PathBuf]) {
        self.kept.lock().unwrap_or_else(|e| e.into_inner()).retain(|(path, _)| paths.contains(path));
    }

    /// Keeps `files` for the next job or check, dropping whatever was kept before.
    fn keep(&self, files: Vec<(PathBuf, Opened)>) {
        *self.kept.lock().unwrap_or_else(|e| e.into_inner()) = files;
    }

    /// The set `spec`, checked whole: kept from before, or opened now.
    fn checked_set(&self, spec: &FileSpec) -> Result<SetFile, TableError> {
        match self.take_kept(&spec.path) {
            Some(Opened::Set(set)) => Ok(set),
            _ => SetFile::open(spec, Check::Checksum),
        }
    }

    /// The layer `layer`, both files checked whole: kept from before, or opened now.
    fn checked_layer(&self, dir: &Path, layer: u32) -> Result<SolvedLayer, TableError> {
        let set = self.checked_set(&self.set_spec(dir, layer))?;
        let spec = self.table_spec(dir, layer);
        let table = match self.take_kept(&spec.path) {
            Some(Opened::Table(table)) => table,
            _ => TableFile::open(&spec, set.len(), Check::Checksum)?,
        };
        Ok(SolvedLayer { set, table })
    }

    /// Counts the indices where `set` differs from `expected`, with a few examples.
    fn compare_sets(&self, layer: u32, expected: &BitSet, set: &impl Words, found: &mut Consistency) {
        const EXAMPLES: usize = 8;
        let g = &self.game;
        for word in 0..expected.word_count().min(set.word_count()) {
            let mut differ = expected.word(word) ^ set.word(word);
            found.set_mismatches += u64::from(differ.count_ones());
            while differ != 0 && found.set_examples.len() < EXAMPLES {
                let index = word as u64 * 64 + u64::from(differ.trailing_zeros());
                differ &= differ - 1;
                let how =
                    if expected.contains(index) { "reachable, missing from" } else { "not reachable, in" };
                let position = match index < g.index_size(layer) {
                    true => g.notation(layer, &g.position(layer, &mut G::Walker::default(), index)),
                    false => format!("#{index}"),
                };
                found.set_examples.push(format!("{position}: {how} the set"));
            }
        }
    }
}

impl<G: LayeredGame> Catalogue for Layered<G> {
    type Key = Layer;
    type Job = LayerJob;

    fn name(&self) -> String {
        self.game.name()
    }

    fn title(&self) -> String {
        self.game.title()
    }

    fn keys(&self) -> Vec<Layer> {
        (0..self.game.layers()).map(|layer| self.layer(layer)).collect()
    }

    fn table(&self, dir: &Path, key: Layer) -> FileSpec {
        self.table_spec(dir, key.layer)
    }

    fn set(&self, dir: &Path, key: Layer) -> Option<FileSpec> {
        Some(self.set_spec(dir, key.layer))
    }

    fn index_size(&self, key: Layer) -> u64 {
        self.game.index_size(key.layer)
    }

    fn reference(&self, key: Layer) -> Reference {
        Reference { positions: self.game.reference_positions(key.layer), wdl: None }
    }

    fn reference_match(&self, dir: &Path, key: Layer, counts: &Counts) -> Option<bool> {
        self.game.reference_match(dir, key.layer, counts)
    }

    fn jobs(&self) -> Vec<LayerJob> {
        let layers = self.game.layers();
        let forward = (0..layers).map(|l| LayerJob::Forward(self.layer(l)));
        forward.chain((0..layers).rev().map(|l| LayerJob::Solve(self.layer(l)))).collect()
    }

    fn outputs(&self, dir: &Path, job: LayerJob) -> Vec<FileSpec> {
        match job {
            LayerJob::Forward(layer) => vec![self.set_spec(dir, layer.layer)],
            LayerJob::Solve(layer) => vec![self.table_spec(dir, layer.layer)],
        }
    }

    fn inputs(&self, dir: &Path, job: LayerJob) -> Vec<FileSpec> {
        match job {
            LayerJob::Forward(layer) => match layer.layer {
                0 => Vec::new(),
                l => vec![self.set_spec(dir, l - 1)],
            },
            LayerJob::Solve(layer) => {
                let l = layer.layer;
                let mut reads = vec![self.set_spec(dir, l)];
                if l + 1 < self.game.layers() {
                    reads.extend([self.set_spec(dir, l + 1), self.table_spec(dir, l + 1)]);
                }
                reads.extend(self.game.reads(dir, l));
                reads
            }
        }
    }

    fn needs(&self, dir: &Path, job: LayerJob) -> Needs {
        let layer = match job {
            LayerJob::Forward(layer) | LayerJob::Solve(layer) => layer.layer,
        };
        let (forward_rate, solve_rate) = self.game.rates(layer);
        // The set's members once it is counted; before, the game's expectation (a published
        // count, images counted apart, so at least the members) or the index space.
        let (members, counted) = match Status::of(&self.set_spec(dir, layer)) {
            Status::Complete(header) => (header.counts.win, true),
            _ => (self.game.expected_positions(layer).unwrap_or_else(|| self.game.index_size(layer)), false),
        };
        let cpu_members = match counted {
            true => members,
            false => (members as f64 / self.game.positions_per_member()) as u64,
        };
        match job {
            // The layer's set in memory while the set before is mapped.
            LayerJob::Forward(_) => {
                let capacity = self.game.index_size(layer);
                Needs {
                    disk: crate::table::set_file_len(capacity),
                    memory: capacity.div_ceil(8),
                    cpu_seconds: forward_rate.map(|rate| JOB_START_SECONDS + rate.seconds(cpu_members)),
                    disk_bounded: false,
                }
            }
            // A byte per member of the set; values go straight into the mapped table. Before
            // the set is built, the reference's count bounds its members (it counts each of
            // them, Connect Four's each mirror image too); without one, the index space does.
            LayerJob::Solve(_) => {
                let space = self.game.index_size(layer);
                let bound = match counted {
                    true => members,
                    false => self.game.reference_positions(layer).map_or(space, |count| count.min(space)),
                };
                Needs {
                    disk: crate::table::table_file_len(bound),
                    memory: self.game.search_memory(layer) * rayon::current_num_threads() as u64,
                    cpu_seconds: solve_rate.map(|rate| JOB_START_SECONDS + rate.seconds(cpu_members)),
                    disk_bounded: !counted,
                }
            }
        }
    }

    fn build(&self, dir: &Path, job: LayerJob, build: &Build) -> Result<String, BuildError> {
        match job {
            LayerJob::Forward(layer) => self.forward(dir, layer.layer, build),
            LayerJob::Solve(layer) => self.solve(dir, layer.layer, build),
        }
    }

    /// A checkpointed layer (solved by search) is checked in parts, so that its hours of
    /// searches go on from the `parts` found consistent before.
    fn check(
        &self,
        dir: &Path,
        key: Layer,
        parts: Option<&dyn CheckedParts>,
        progress: &Progress,
    ) -> Result<Option<Consistency>, BuildError> {
        // Checked and decoded whole, as solving reads them: the check reads every entry and its
        // successors', and one read at a time from a compressed block is most of its time.
        let layer = key.layer;
        // Files kept from a check this one does not follow (a layer skipped) go at once.
        let mut wanted = vec![
            self.set_spec(dir, layer).path,
            self.table_spec(dir, layer).path,
            self.set_spec(dir, layer + 1).path,
            self.table_spec(dir, layer + 1).path,
        ];
        wanted.extend(layer.checked_sub(1).map(|l| self.set_spec(dir, l).path));
        self.keep_only(&wanted);
        let before = match layer {
            0 => None,
            _ => match self.checked_set(&self.set_spec(dir, layer - 1)) {
                Ok(before) => Some(before),
                Err(_) => return Ok(None), // the layer before is missing or damaged: reported on its own
            },
        };
        let solved = self.checked_layer(dir, layer)?;
        let next = if layer + 1 < self.game.layers() {
            match self.checked_layer(dir, layer + 1) {
                Ok(next) => Some(next),
                Err(_) => return Ok(None), // reported with that layer
            }
        } else {
            None
        };
        match self.game.prepare(dir, layer, &|_| Check::Checksum) {
            Err(TableError::Missing { .. } | TableError::Incomplete { .. }) => return Ok(None),
            result => result?,
        }
        let layer_set = LayerSet { game: &self.game, layer, set: &solved.set, next: next.as_ref() };
        let mut found = Consistency::default();
        match self.reachable(layer, before.as_ref(), progress) {
            Ok(expected) => self.compare_sets(layer, &expected, &solved.set.words()?, &mut found),
            Err(_) => return Ok(None), // the layer before is damaged: reported on its own
        }
        drop(before);
        if found.set_mismatches > 0 {
            return Ok(Some(found)); // values over the wrong positions say nothing more
        }
        let stored = |dense: u64| solved.table.value(dense).map_err(crate::solve::SolveError::from);
        let parts = self.game.checkpoint_entries(layer).map(|_| parts.unwrap_or(&Unrecorded));
        let found = check_layered(&layer_set, parts, stored, progress)
            .map(Some)
            .map_err(BuildError::solve(format!("{} {key}", self.game.name())))?;
        // What the check of the next layer reads again: this layer's set (the layer before it)
        // and the next layer's files (the layer it checks).
        let SolvedLayer { set, .. } = solved;
        let mut keep = vec![(self.set_spec(dir, layer).path, Opened::Set(set))];
        if let Some(SolvedLayer { set, table }) = next {
            keep.push((self.set_spec(dir, layer + 1).path, Opened::Set(set)));
            keep.push((self.table_spec(dir, layer + 1).path, Opened::Table(table)));
        }
        self.keep(keep);
        Ok(found)
    }

    fn describe(&self, dir: &Path, key: Layer, dense: u64) -> String {
        let g = &self.game;
        match SetFile::open(&self.set_spec(dir, key.layer), Check::Header).and_then(|set| set.select(dense)) {
            Ok(Some(index)) => {
                g.notation(key.layer, &g.position(key.layer, &mut G::Walker::default(), index))
            }
            _ => format!("#{dense}"),
        }
    }

    fn variant(&self) -> crate::catalogue::Variant {
        self.game.variant()
    }
}
