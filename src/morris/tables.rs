//! Nine Men's Morris moving-phase tables: the class pairs as retrograde sets, their files, and
//! the generate and verify drivers.

use super::index::{ClassIndex, MAX_STONES, MIN_STONES};
use super::position::Position;
use super::rules::{for_each_move, for_each_unslide};
use crate::progress::Progress;
use crate::solve::{Mismatch, RetrogradeSet, SolveError, Successor, check_forward, solve};
use crate::table::{Check, Counts, Status, TableError, TableFile, write_table};
use crate::value::Value;
use std::collections::BTreeSet;
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Instant;

pub const GAME: &str = "morris";

/// A moving-phase class: stones of the side to move, of the other side.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Class {
    pub mover: u32,
    pub other: u32,
}

impl Class {
    pub fn new(mover: u32, other: u32) -> Option<Class> {
        let range = MIN_STONES..=MAX_STONES;
        (range.contains(&mover) && range.contains(&other)).then_some(Class { mover, other })
    }

    pub fn parse(text: &str) -> Option<Class> {
        let (a, b) = text.split_once('-')?;
        Class::new(a.parse().ok()?, b.parse().ok()?)
    }

    pub fn swapped(self) -> Class {
        Class { mover: self.other, other: self.mover }
    }

    /// The class a capture leads to (the side to move there is the one that lost a stone), or
    /// `None` when the capture leaves it two stones and wins at once.
    pub fn after_capture(self) -> Option<Class> {
        Class::new(self.other - 1, self.mover)
    }

    pub fn index(self) -> ClassIndex {
        ClassIndex::new(self.mover, self.other)
    }

    pub fn path(self, dir: &Path) -> PathBuf {
        dir.join(format!("morris-{}-{}.tbl", self.mover, self.other))
    }

    /// Every class, `3-3` to `9-9`.
    pub fn all() -> impl Iterator<Item = Class> {
        (MIN_STONES..=MAX_STONES)
            .flat_map(|a| (MIN_STONES..=MAX_STONES).map(move |b| Class { mover: a, other: b }))
    }
}

impl fmt::Display for Class {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}", self.mover, self.other)
    }
}

/// The classes needed for `target` (itself, its partner and, through captures, the classes
/// they depend on), or all 49 classes.
pub fn needed_classes(target: Option<Class>) -> BTreeSet<Class> {
    let Some(target) = target else {
        return Class::all().collect();
    };
    let mut needed = BTreeSet::new();
    let mut stack = vec![target];
    while let Some(class) = stack.pop() {
        if needed.insert(class) {
            stack.push(class.swapped());
            stack.extend(class.after_capture());
        }
    }
    needed
}

/// The class pairs `{A-B, B-A}` (as `A-B` with `A <= B`) in an order where every pair comes
/// after the pairs its captures reach: by total stones.
pub fn pairs_in_order(classes: &BTreeSet<Class>) -> Vec<Class> {
    let mut pairs: Vec<Class> = classes.iter().filter(|c| c.mover <= c.other).copied().collect();
    pairs.sort_by_key(|c| (c.mover + c.other, c.mover));
    pairs
}

/// A solved class, readable.
pub struct SolvedClass {
    pub index: ClassIndex,
    pub file: TableFile,
}

impl SolvedClass {
    pub fn open(dir: &Path, class: Class, check: Check) -> Result<SolvedClass, TableError> {
        let index = class.index();
        let file = TableFile::open(&class.path(dir), GAME, &class.to_string(), index.size(), check)?;
        Ok(SolvedClass { index, file })
    }

    #[inline]
    pub fn value(&self, mover: u32, other: u32) -> Value {
        self.file.value(self.index.index(mover, other))
    }
}

/// The positions of `A-B` and `B-A` (one class when `A == B`), numbered `A-B` first: a
/// non-capturing move leads from one class to the other, a capture out of the pair.
pub struct ClassPair<'a> {
    classes: [Class; 2],
    indices: [ClassIndex; 2],
    single: bool,
    /// Per class: the solved class its captures lead to (`None`: a capture wins at once).
    captures: [Option<&'a SolvedClass>; 2],
}

impl<'a> ClassPair<'a> {
    /// `captures` must hold the solved class after a capture from each class of the pair.
    pub fn new(first: Class, captures: [Option<&'a SolvedClass>; 2]) -> ClassPair<'a> {
        let classes = [first, first.swapped()];
        ClassPair {
            classes,
            indices: classes.map(Class::index),
            single: first.mover == first.other,
            captures,
        }
    }

    pub fn classes(&self) -> &[Class] {
        if self.single { &self.classes[..1] } else { &self.classes[..] }
    }

    /// Where class `k`'s indices start in the pair's numbering.
    pub fn offset(&self, k: usize) -> u64 {
        if k == 0 { 0 } else { self.indices[0].size() }
    }

    #[inline]
    fn split(&self, index: u64) -> (usize, u64) {
        let first = self.indices[0].size();
        if index < first { (0, index) } else { (1, index - first) }
    }

    #[inline]
    fn partner(&self, k: usize) -> usize {
        if self.single { 0 } else { 1 - k }
    }

    /// The position at a pair index, White to move.
    pub fn position(&self, index: u64) -> Position {
        let (k, local) = self.split(index);
        let (mover, other) = self.indices[k].position(local);
        Position::moving(mover, other)
    }
}

impl RetrogradeSet for ClassPair<'_> {
    fn size(&self) -> u64 {
        self.classes().iter().map(|c| c.index().size()).sum()
    }

    #[inline]
    fn for_each_successor(&self, index: u64, mut f: impl FnMut(Successor)) {
        let (k, local) = self.split(index);
        let (mover, other) = self.indices[k].position(local);
        let partner = self.partner(k);
        let other_count = self.classes[k].other;
        for_each_move(&Position::moving(mover, other), |_, next| {
            // After White's move Black is to move: Black's stones first.
            let (to_move, waiting) = (next.stones[1], next.stones[0]);
            f(if to_move.count_ones() == other_count {
                Successor::Inside(self.offset(partner) + self.indices[partner].index(to_move, waiting))
            } else {
                match self.captures[k] {
                    None => Successor::Outside(Value::Win(1)),
                    Some(solved) => Successor::Outside(solved.value(to_move, waiting).for_mover()),
                }
            });
        });
    }

    #[inline]
    fn for_each_predecessor(&self, index: u64, mut f: impl FnMut(u64)) {
        let (k, local) = self.split(index);
        let (mover, other) = self.indices[k].position(local);
        let partner = self.partner(k);
        let mover_count = self.classes[k].mover;
        for_each_unslide(&Position::moving(mover, other), MAX_STONES as u8, |before| {
            // Black moved last; a predecessor with a White stone put back lies outside the pair.
            if before.stones[0].count_ones() == mover_count {
                f(self.offset(partner) + self.indices[partner].index(before.stones[1], before.stones[0]));
            }
        });
    }
}

/// An error of generation or verification.
#[derive(Debug)]
pub enum TablesError {
    Table(TableError),
    Solve { class: Class, error: SolveError },
}

impl fmt::Display for TablesError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TablesError::Table(e) => write!(f, "{e}"),
            TablesError::Solve { class, error } => write!(f, "solving morris {class}: {error}"),
        }
    }
}

impl std::error::Error for TablesError {}

impl From<TableError> for TablesError {
    fn from(e: TableError) -> TablesError {
        TablesError::Table(e)
    }
}

/// The solved classes the pair's captures lead to. `generate` checks their checksums before
/// building on them; `verify` checks each class's checksum on its own, so it opens by header.
fn open_captures(dir: &Path, pair: Class, check: Check) -> Result<[Option<SolvedClass>; 2], TableError> {
    let open = |class: Class| class.after_capture().map(|c| SolvedClass::open(dir, c, check)).transpose();
    Ok([open(pair)?, if pair.mover == pair.other { None } else { open(pair.swapped())? }])
}

/// What `generate` did with one class pair.
pub struct PairReport {
    pub pair: Class,
    pub skipped: bool,
    pub seconds: f64,
    pub cpu_seconds: Option<f64>,
    pub positions: u64,
}

/// Generates the moving-phase tables needed for `target` (all when `None`) into `dir`, back to
/// front; finished pairs are skipped, an interrupted pair is solved again from the start.
pub fn generate(
    dir: &Path,
    target: Option<Class>,
    progress: &Progress,
) -> Result<Vec<PairReport>, TablesError> {
    std::fs::create_dir_all(dir).map_err(|source| TableError::Io { path: dir.to_path_buf(), source })?;
    let mut reports = Vec::new();
    for pair in pairs_in_order(&needed_classes(target)) {
        let members = if pair.mover == pair.other { vec![pair] } else { vec![pair, pair.swapped()] };
        let positions = members.iter().map(|c| c.index().size()).sum();
        if members.iter().all(|c| matches!(Status::of(&c.path(dir)), Status::Complete(_))) {
            progress.message(&format!("morris {pair}: complete, skipped"));
            reports.push(PairReport { pair, skipped: true, seconds: 0.0, cpu_seconds: None, positions });
            continue;
        }
        let started = Instant::now();
        let cpu_before = crate::resources::cpu_seconds();
        let names: Vec<String> = members.iter().map(Class::to_string).collect();
        progress.task(&format!("morris {}", names.join("/")));
        let captures = open_captures(dir, pair, Check::Checksum)?;
        let set = ClassPair::new(pair, [captures[0].as_ref(), captures[1].as_ref()]);
        let solution = solve(&set, progress).map_err(|error| TablesError::Solve { class: pair, error })?;
        for (k, &class) in set.classes().iter().enumerate() {
            let offset = set.offset(k);
            let path = class.path(dir);
            if matches!(Status::of(&path), Status::Complete(_)) {
                continue; // written before an interruption; solving again gives the same bytes
            }
            progress.step(&format!("writing {class}"), class.index().size());
            let size = class.index().size();
            write_table(&path, GAME, &class.to_string(), size, |i| solution.value(offset + i), |_| 1)?;
        }
        let seconds = started.elapsed().as_secs_f64();
        let cpu_seconds =
            crate::resources::cpu_seconds().zip(cpu_before).map(|(after, before)| after - before);
        let peak = crate::resources::peak_memory().map_or(0.0, |b| b as f64 / (1u64 << 30) as f64);
        progress.clear();
        progress.message(&format!(
            "morris {}: {positions} positions solved in {seconds:.1} s (cpu {:.1} s, peak memory so far {peak:.2} GiB)",
            names.join("/"),
            cpu_seconds.unwrap_or(f64::NAN)
        ));
        reports.push(PairReport { pair, skipped: false, seconds, cpu_seconds, positions });
    }
    Ok(reports)
}

/// What `verify` found for one class.
pub struct ClassCheck {
    pub class: Class,
    pub counts: Counts,
    pub checksum_ok: bool,
    /// `None` when not checked (`--quick`, or a table it depends on is missing or damaged).
    pub consistent: Option<bool>,
    /// `None` when the reference has no figures for the class.
    pub reference_match: Option<bool>,
    pub mismatches: Vec<(Position, Mismatch)>,
}

/// Verifies one class pair already known to be on disk: checksums, counts against the
/// reference, and unless `quick` every value recomputed from its successors.
pub fn verify_pair(
    dir: &Path,
    pair: Class,
    quick: bool,
    progress: &Progress,
) -> Result<Vec<ClassCheck>, TablesError> {
    let members = if pair.mover == pair.other { vec![pair] } else { vec![pair, pair.swapped()] };
    let mut checks = Vec::new();
    let mut files = Vec::new();
    for &class in &members {
        let solved = SolvedClass::open(dir, class, Check::Header)?;
        let checksum_ok = solved.file.check_checksum().is_ok();
        let counts = solved.file.header().counts;
        let size_ok =
            crate::reference::morris_class_size(class.mover, class.other) == Some(counts.positions());
        let reference_match = crate::reference::morris_class_wdl(class.mover, class.other)
            .map(|[w, l, d]| size_ok && [counts.win, counts.loss, counts.draw] == [w, l, d]);
        checks.push(ClassCheck {
            class,
            counts,
            checksum_ok,
            consistent: None,
            reference_match,
            mismatches: Vec::new(),
        });
        files.push(solved);
    }
    if quick || checks.iter().any(|c| !c.checksum_ok) {
        return Ok(checks);
    }
    let Ok(captures) = open_captures(dir, pair, Check::Header) else {
        return Ok(checks); // a table it depends on is missing or damaged: reported on its own
    };
    let set = ClassPair::new(pair, [captures[0].as_ref(), captures[1].as_ref()]);
    let first_size = set.offset(1);
    let stored = &|i: u64| {
        if i < first_size || files.len() == 1 {
            files[0].file.value(i)
        } else {
            files[1].file.value(i - first_size)
        }
    };
    for (k, check) in checks.iter_mut().enumerate() {
        progress.task(&format!("verify morris {}", check.class));
        let range = set.offset(k)..set.offset(k) + check.class.index().size();
        let (count, examples) = check_forward(&set, range, stored, progress);
        check.mismatches = examples.iter().map(|m| (set.position(m.index), *m)).collect();
        check.consistent = Some(count == 0);
    }
    progress.clear();
    Ok(checks)
}
