//! A Morris variant's moving phase as a catalogue: a table per class `A-B`, solved in class
//! pairs `{A-B, B-A}` by the cyclic solver, back to front by total stones; and every table of a
//! game, the classes followed by the opening (`morris_tables`, in `game.rs`).

use super::index::{ClassIndex, INDEX_MAX_STONES};
use super::notation::PositionText;
use super::position::Position;
use super::rules::{for_each_move, for_each_unslide_in_class, is_full_board_draw};
use super::symmetry::has_symmetry;
use super::variant::{MIN_STONES, MorrisRules, MorrisVariant};
use crate::catalogue::{Build, BuildError, Catalogue, Needs, Reference, Variant};
use crate::progress::Progress;
use crate::solve::{
    CheckedParts, Consistency, CountedMove, CyclicSet, SolveError, Successor, check_cyclic, solve_cyclic,
};
use crate::table::{Check, FileSpec, Status, TableError, TableFile, write_table};
use crate::value::Value;
use std::collections::BTreeSet;
use std::fmt;
use std::marker::PhantomData;
use std::path::Path;

/// A moving-phase class: stones of the side to move, of the other side.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Class {
    /// Stones of the side to move.
    pub mover: u32,
    /// Stones of the other side.
    pub other: u32,
}

impl Class {
    /// The class `mover-other`, each 3..=12: a class of some variant (whether of a given one,
    /// [`MorrisRules::has_class`] says).
    pub fn new(mover: u32, other: u32) -> Option<Class> {
        let range = MIN_STONES..=INDEX_MAX_STONES;
        (range.contains(&mover) && range.contains(&other)).then_some(Class { mover, other })
    }

    /// A class written `A-B`.
    pub fn parse(text: &str) -> Option<Class> {
        let (a, b) = text.split_once('-')?;
        Class::new(a.parse().ok()?, b.parse().ok()?)
    }

    /// The class with the sides exchanged: where a move that captures nothing leads.
    pub fn swapped(self) -> Class {
        Class { mover: self.other, other: self.mover }
    }

    /// The class a capture leads to (the side to move there is the one that lost a stone), or
    /// `None` when the capture leaves it two stones and wins at once.
    pub fn after_capture(self) -> Option<Class> {
        Class::new(self.other - 1, self.mover)
    }

    /// The class's index.
    pub fn index(self) -> ClassIndex {
        ClassIndex::new(self.mover, self.other)
    }

    /// The table file of this class of variant `rules` in `dir`: `KEY-A-B.tbl`.
    pub fn spec(self, dir: &Path, rules: &MorrisRules) -> FileSpec {
        let file = format!("{}-{}-{}.tbl", rules.key, self.mover, self.other);
        FileSpec::table(dir.join(file), rules.key, self.to_string())
    }

    /// The classes of the pair this class is solved in, the first with `mover <= other`.
    pub fn pair(self) -> Class {
        if self.mover <= self.other { self } else { self.swapped() }
    }

    /// The classes solved together with pair `self`: one when `A == B`.
    fn members(self) -> Vec<Class> {
        if self.mover == self.other { vec![self] } else { vec![self, self.swapped()] }
    }

    /// Every class of a game with `stones` a side, `3-3` to `K-K`.
    pub fn all(stones: u32) -> impl Iterator<Item = Class> {
        (MIN_STONES..=stones).flat_map(move |a| (MIN_STONES..=stones).map(move |b| Class { mover: a, other: b }))
    }
}

impl fmt::Display for Class {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}", self.mover, self.other)
    }
}

/// The classes needed for `target` (itself, its partner and, through captures, the classes
/// they depend on), or every class of the game with `stones` a side.
pub(crate) fn needed_classes(target: Option<Class>, stones: u32) -> BTreeSet<Class> {
    let Some(target) = target else {
        return Class::all(stones).collect();
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
pub(crate) fn pairs_in_order(classes: &BTreeSet<Class>) -> Vec<Class> {
    let mut pairs: Vec<Class> = classes.iter().filter(|c| c.mover <= c.other).copied().collect();
    pairs.sort_by_key(|c| (c.mover + c.other, c.mover));
    pairs
}

/// A solved class, readable.
pub struct SolvedClass {
    /// The class's index.
    pub index: ClassIndex,
    /// Its table.
    pub file: TableFile,
}

impl SolvedClass {
    /// Opens the table of `class` of variant `rules` in `dir`.
    pub fn open(dir: &Path, rules: &MorrisRules, class: Class, check: Check) -> Result<SolvedClass, TableError> {
        let index = class.index();
        let file = TableFile::open(&class.spec(dir, rules), index.size(), check)?;
        Ok(SolvedClass { index, file })
    }

    /// The value of the position with these stones of the side to move and of the other side.
    #[inline]
    pub fn value(&self, mover: u32, other: u32) -> Result<Value, TableError> {
        self.file.value(self.index.index(mover, other))
    }
}

/// The positions of `A-B` and `B-A` (one class when `A == B`), numbered `A-B` first: a
/// non-capturing move leads from one class to the other, a capture out of the pair.
pub(crate) struct ClassPair<'a, V> {
    classes: [Class; 2],
    indices: [ClassIndex; 2],
    single: bool,
    /// Per class: the solved class its captures lead to (`None`: a capture wins at once).
    captures: [Option<&'a SolvedClass>; 2],
    variant: PhantomData<V>,
}

impl<'a, V: MorrisVariant> ClassPair<'a, V> {
    /// `captures` must hold the solved class after a capture from each class of the pair.
    pub fn new(first: Class, captures: [Option<&'a SolvedClass>; 2]) -> ClassPair<'a, V> {
        let classes = [first, first.swapped()];
        ClassPair {
            classes,
            indices: classes.map(Class::index),
            single: first.mover == first.other,
            captures,
            variant: PhantomData,
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

    /// The moves of position `index`. Those that stay in the pair are located (their index
    /// computed) when `INSIDE` is [`LOCATE`], skipped when [`SKIP`], and when [`COUNT`],
    /// located only where two of them might reach the same position.
    #[inline]
    fn successors<const INSIDE: u8>(&self, index: u64, mut f: impl FnMut(CountedMove)) -> Result<(), SolveError> {
        let (k, local) = self.split(index);
        let (mover, other) = self.indices[k].position(local);
        let partner = self.partner(k);
        let other_count = self.classes[k].other;
        let position = Position::moving(mover, other);
        if is_full_board_draw::<V>(&position) {
            f(CountedMove::Outside(Value::Draw)); // no move, and not lost
            return Ok(());
        }
        // A move that stays in the pair leaves the other side's stones as they are. Two such
        // moves reach the same position only through a symmetry that maps those stones onto
        // themselves: without one, every move reaches a position of its own.
        let distinct = INSIDE == COUNT && !has_symmetry(other);
        let mut failed = None;
        for_each_move::<V>(&position, |_, next| {
            // After White's move Black is to move: Black's stones first.
            let (to_move, waiting) = (next.stones[1], next.stones[0]);
            if to_move.count_ones() == other_count {
                if distinct {
                    f(CountedMove::Distinct);
                } else if INSIDE != SKIP {
                    f(CountedMove::Inside(self.offset(partner) + self.indices[partner].index(to_move, waiting)));
                }
                return;
            }
            match self.captures[k].map(|solved| solved.value(to_move, waiting)) {
                None => f(CountedMove::Outside(Value::Win(1))),
                Some(Ok(value)) => f(CountedMove::Outside(value.for_mover())),
                Some(Err(e)) => {
                    failed.get_or_insert(e);
                }
            }
        });
        failed.map_or(Ok(()), |e| Err(SolveError::from(e)))
    }
}

/// What [`ClassPair::successors`] does with the moves that stay in the pair.
const LOCATE: u8 = 0;
const SKIP: u8 = 1;
const COUNT: u8 = 2;

impl<V: MorrisVariant> CyclicSet for ClassPair<'_, V> {
    fn size(&self) -> u64 {
        self.classes().iter().map(|c| c.index().size()).sum()
    }

    #[inline]
    fn for_each_successor(&self, index: u64, mut f: impl FnMut(Successor)) -> Result<(), SolveError> {
        self.successors::<LOCATE>(index, |m| match m {
            CountedMove::Inside(j) => f(Successor::Inside(j)),
            CountedMove::Outside(v) => f(Successor::Outside(v)),
            CountedMove::Distinct => {} // only when counting
        })
    }

    #[inline]
    fn for_each_exit(&self, index: u64, mut f: impl FnMut(Value)) -> Result<(), SolveError> {
        self.successors::<SKIP>(index, |m| {
            if let CountedMove::Outside(v) = m {
                f(v)
            }
        })
    }

    #[inline]
    fn for_each_counted_move(&self, index: u64, f: impl FnMut(CountedMove)) -> Result<(), SolveError> {
        self.successors::<COUNT>(index, f)
    }

    #[inline]
    fn for_each_predecessor(&self, index: u64, mut f: impl FnMut(u64)) {
        let (k, local) = self.split(index);
        let (mover, other) = self.indices[k].position(local);
        let partner = self.partner(k);
        for_each_unslide_in_class::<V>(&Position::moving(mover, other), |before| {
            // Black moved last: White's stones are the partner class's other side.
            f(self.offset(partner) + self.indices[partner].index(before.stones[1], before.stones[0]));
        });
    }
}

/// The solved classes the pair's captures lead to. `generate` checks their checksums before
/// building on them; `verify` checks each class's checksum on its own, so it opens by header.
fn open_captures(
    dir: &Path,
    rules: &MorrisRules,
    pair: Class,
    check: impl Fn(Class) -> Check,
) -> Result<[Option<SolvedClass>; 2], TableError> {
    let open =
        |class: Class| class.after_capture().map(|c| SolvedClass::open(dir, rules, c, check(c))).transpose();
    Ok([open(pair)?, if pair.mover == pair.other { None } else { open(pair.swapped())? }])
}

/// A Morris variant's moving phase: every class up to a target (and what it depends on), or all
/// of them (49 in the standard game, 100 in Morabaraba).
#[derive(Clone, Copy, Debug)]
pub struct MovingPhase<V> {
    target: Option<Class>,
    variant: PhantomData<V>,
}

impl<V: MorrisVariant> MovingPhase<V> {
    /// The classes needed for class `target` (itself, its partner and, through captures, the
    /// classes they depend on), or every class of the variant.
    pub fn new(target: Option<Class>) -> MovingPhase<V> {
        MovingPhase { target, variant: PhantomData }
    }

    /// The classes of a game with `stones` per side (3 up to the variant's): up to `K-K`.
    pub fn for_stones(stones: u32) -> MovingPhase<V> {
        MovingPhase::new(if stones >= V::RULES.stones { None } else { Class::new(stones, stones) })
    }

    /// Every class of the catalogue.
    pub fn classes(&self) -> BTreeSet<Class> {
        needed_classes(self.target, V::RULES.stones)
    }

    fn solve_pair(&self, dir: &Path, pair: Class, build: &Build) -> Result<String, BuildError> {
        let rules = &V::RULES;
        let captures = open_captures(dir, rules, pair, |_| Check::Checksum)?;
        let set = ClassPair::<V>::new(pair, [captures[0].as_ref(), captures[1].as_ref()]);
        let name = pair.members().iter().map(Class::to_string).collect::<Vec<_>>().join("/");
        let solution = solve_cyclic(&set, build.progress)
            .map_err(BuildError::solve(format!("{} {name}", rules.key)))?;
        for (k, &class) in set.classes().iter().enumerate() {
            let offset = set.offset(k);
            let spec = class.spec(dir, rules);
            if Status::of(&spec).is_complete() {
                continue; // written before an interruption; solving again gives the same bytes
            }
            let entry = |_: &mut (), i: u64| Ok::<_, TableError>((solution.value(offset + i), 1));
            write_table(&spec, class.index().size(), build.progress, || (), entry)?;
        }
        Ok(format!("{} positions solved", set.size()))
    }
}

impl<V: MorrisVariant> Catalogue for MovingPhase<V> {
    type Key = Class;
    type Job = Class;

    fn game(&self) -> &'static str {
        V::RULES.key
    }

    fn name(&self) -> String {
        V::RULES.key.to_string()
    }

    fn title(&self) -> String {
        format!(
            "{}, moving phase (classes A-B: A stones of the side to move, B of the other)",
            V::RULES.name
        )
    }

    fn keys(&self) -> Vec<Class> {
        self.classes().into_iter().collect()
    }

    fn table(&self, dir: &Path, class: Class) -> FileSpec {
        class.spec(dir, &V::RULES)
    }

    fn index_size(&self, class: Class) -> u64 {
        class.index().size()
    }

    fn reference(&self, class: Class) -> Reference {
        V::class_reference(class.mover, class.other)
    }

    fn jobs(&self) -> Vec<Class> {
        pairs_in_order(&self.classes())
    }

    fn outputs(&self, dir: &Path, pair: Class) -> Vec<FileSpec> {
        pair.members().into_iter().map(|c| c.spec(dir, &V::RULES)).collect()
    }

    fn needs(&self, _dir: &Path, pair: Class) -> Needs {
        let sizes: Vec<u64> = pair.members().iter().map(|class| class.index().size()).collect();
        let positions: u64 = sizes.iter().sum();
        // Two bytes of working value and a byte of counter per position of the pair.
        Needs { disk: sizes.iter().map(|&n| crate::table::table_file_len(n)).sum(), memory: 3 * positions }
    }

    fn build(&self, dir: &Path, pair: Class, build: &Build) -> Result<String, BuildError> {
        self.solve_pair(dir, pair, build)
    }

    fn check(
        &self,
        dir: &Path,
        class: Class,
        _parts: Option<&dyn CheckedParts>,
        progress: &Progress,
    ) -> Result<Option<Consistency>, BuildError> {
        let pair = class.pair();
        let rules = &V::RULES;
        let files = pair.members().into_iter().map(|c| SolvedClass::open(dir, rules, c, Check::Header));
        let Ok(files) = files.collect::<Result<Vec<_>, _>>() else {
            return Ok(None); // its partner is missing or damaged: reported on its own
        };
        let Ok(captures) = open_captures(dir, rules, pair, |_| Check::Header) else {
            return Ok(None); // a table it depends on is missing or damaged: reported on its own
        };
        let set = ClassPair::<V>::new(pair, [captures[0].as_ref(), captures[1].as_ref()]);
        let first_size = set.offset(1);
        let stored = |i: u64| {
            let (file, local) = if i < first_size || files.len() == 1 { (0, i) } else { (1, i - first_size) };
            files[file].file.value(local).map_err(SolveError::from)
        };
        let k = usize::from(class != pair);
        let offset = set.offset(k);
        let mut found = check_cyclic(&set, offset..offset + class.index().size(), stored, progress)
            .map_err(BuildError::solve(format!("{} {class}", rules.key)))?;
        for m in &mut found.examples {
            m.index -= offset;
        }
        Ok(Some(found))
    }

    fn describe(&self, _dir: &Path, class: Class, index: u64) -> String {
        let (mover, other) = class.index().position(index);
        PositionText(&Position::moving(mover, other)).to_string()
    }

    fn variant(&self) -> Variant {
        let variant = Variant::of(V::RULES.key).switch("no-opening");
        match self.target {
            Some(target) => variant.with("up-to", target),
            None => variant,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::morris::{Morabaraba, Standard};
    use crate::rng::SplitMix64;

    /// The first pass's count of distinct positions reached inside the pair, whether it locates
    /// each move or takes the other side's lack of symmetry for distinctness, is the number of
    /// distinct successors located one by one.
    fn counted_moves_reach_as_many_positions_as_located<V: MorrisVariant>(pairs: &[(u32, u32)]) {
        let mut rng = SplitMix64::new(27);
        let mut unlocated = 0;
        for &(a, b) in pairs {
            // Captures are not followed: only the moves that stay in the pair are counted here.
            let pair = ClassPair::<V>::new(Class::new(a, b).expect("a class"), [None, None]);
            for _ in 0..20_000 {
                let index = rng.below(pair.size());
                let mut located = Vec::new();
                pair.for_each_successor(index, |s| {
                    if let Successor::Inside(j) = s {
                        located.push(j);
                    }
                })
                .unwrap();
                located.sort_unstable();
                located.dedup();
                let (mut inside, mut distinct) = (Vec::new(), 0);
                pair.for_each_counted_move(index, |m| match m {
                    CountedMove::Inside(j) => inside.push(j),
                    CountedMove::Distinct => distinct += 1,
                    CountedMove::Outside(_) => {}
                })
                .unwrap();
                inside.sort_unstable();
                inside.dedup();
                assert!(inside.is_empty() || distinct == 0, "{a}-{b} index {index}");
                assert_eq!(inside.len() + distinct, located.len(), "{a}-{b} index {index}");
                unlocated += distinct;
            }
        }
        assert!(unlocated > 100_000, "{unlocated} moves counted unlocated");
    }

    #[test]
    fn counted_moves_reach_as_many_positions_as_located_standard() {
        counted_moves_reach_as_many_positions_as_located::<Standard>(&[(3, 3), (4, 3), (5, 4), (6, 6), (9, 8), (4, 9)]);
    }

    #[test]
    fn counted_moves_reach_as_many_positions_as_located_morabaraba() {
        counted_moves_reach_as_many_positions_as_located::<Morabaraba>(&[(3, 3), (3, 5), (6, 5), (7, 7), (12, 11), (10, 4)]);
    }
}
