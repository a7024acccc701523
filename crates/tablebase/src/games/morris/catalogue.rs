//! A Morris variant's moving phase as a catalogue: a table per class `A-B`, solved in class
//! pairs `{A-B, B-A}` by the cyclic solver, back to front by total stones; and every table of a
//! game, the classes followed by the opening (`morris_tables`, in `game.rs`).

use super::index::{ClassIndex, INDEX_MAX_STONES};
use super::notation::PositionText;
use super::position::Position;
use super::sector::{Sector, SectorPair, SolvedClass, borrow_exits, exit_sectors, open_exits, pair_needs};
use super::variant::{MIN_STONES, MorrisRules, MorrisVariant};
use crate::catalogue::{Build, BuildError, Catalogue, Needs, Reference, Variant};
use crate::progress::Progress;
use crate::solve::{CheckedParts, Consistency};
use crate::table::{Check, FileSpec, TableError, TableFile};
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

impl SolvedClass {
    /// Opens the table of `class` of variant `rules` in `dir`.
    pub fn open(dir: &Path, rules: &MorrisRules, class: Class, check: Check) -> Result<SolvedClass, TableError> {
        let index = class.index();
        let file = TableFile::open(&class.spec(dir, rules), index.size(), check)?;
        Ok(SolvedClass { index, file })
    }
}

/// The solved sectors a pair's moves out of it lead to. `generate` checks their checksums
/// before building on them; `verify` checks each table's checksum on its own, so it opens by
/// header.
pub(crate) fn open_exits_of_class<V: MorrisVariant>(
    dir: &Path,
    pair: Class,
    check: Check,
) -> Result<[[Option<SolvedClass>; 3]; 2], TableError> {
    open_exits(Sector::moving(pair.mover, pair.other), |sector| {
        let class = Class::new(sector.mover, sector.other).expect("a capture's class has three stones a side");
        SolvedClass::open(dir, &V::RULES, class, check)
    })
}

/// A Morris variant's moving phase: every class up to a target (and what it depends on), or all
/// of them (49 in the standard game, 100 in Morabaraba).
#[derive(Clone, Copy, Debug)]
#[cfg_attr(not(feature = "internals"), allow(unnameable_types, reason = "reached only as a part of the catalogue a game gives, through its traits"))]
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
        let exits = open_exits_of_class::<V>(dir, pair, Check::Checksum)?;
        let set = SectorPair::<V>::new(Sector::moving(pair.mover, pair.other), borrow_exits(&exits));
        let name = pair.members().iter().map(Class::to_string).collect::<Vec<_>>().join("/");
        let specs: Vec<FileSpec> = pair.members().into_iter().map(|c| c.spec(dir, &V::RULES)).collect();
        set.solve_and_write(&specs, &format!("{} {name}", V::RULES.key), build)
    }
}

impl<V: MorrisVariant> Catalogue for MovingPhase<V> {
    type Key = Class;
    type Job = Class;


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

    fn inputs(&self, dir: &Path, pair: Class) -> Vec<FileSpec> {
        exit_sectors(Sector::moving(pair.mover, pair.other))
            .into_iter()
            .map(|s| Class::new(s.mover, s.other).expect("a capture's class has three stones a side").spec(dir, &V::RULES))
            .collect()
    }

    fn needs(&self, _dir: &Path, pair: Class) -> Needs {
        pair_needs::<V>(Sector::moving(pair.mover, pair.other))
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
        // Checked and decoded whole, as generating reads them: the check reads every entry and
        // its successors', and one read at a time from a compressed block is most of its time.
        let files = pair.members().into_iter().map(|c| SolvedClass::open(dir, rules, c, Check::Checksum));
        let Ok(files) = files.collect::<Result<Vec<_>, _>>() else {
            return Ok(None); // its partner is missing or damaged: reported on its own
        };
        let Ok(exits) = open_exits_of_class::<V>(dir, pair, Check::Checksum) else {
            return Ok(None); // a table it depends on is missing or damaged: reported on its own
        };
        let set = SectorPair::<V>::new(Sector::moving(pair.mover, pair.other), borrow_exits(&exits));
        let k = usize::from(class != pair);
        set.check_member(&files, k, &format!("{} {class}", rules.key), progress).map(Some)
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
