//! Sectors: the positions with given numbers of stones on the board and in hand of each side,
//! solved in pairs `{S, S'}` (S' the sector with the sides exchanged) by the cyclic solver. A
//! slide that captures nothing leads from a sector to its partner; a capture or a placement
//! leads out of the pair, to a sector with fewer stones on the board or in hand, solved before.
//!
//! A moving-phase class `A-B` is the sector with empty hands; Lasker Morris, where a side may
//! slide while it still holds stones, is solved in sectors whole.

use super::index::{ClassIndex, Cursor};
use super::position::{Color, NO_POINT, Position};
use super::rules::{for_each_move, for_each_unslide_in_sector, is_full_board_draw};
use super::symmetry::has_symmetry;
use super::variant::{BOTH_FLYING_COST, FLYING_COST, MIN_STONES, MorrisVariant};
use crate::catalogue::{Build, BuildError, JOB_START_SECONDS, Needs, Rate};
use crate::progress::Progress;
use crate::solve::{Consistency, CountedMove, CyclicSet, SolveError, Successor, check_cyclic, solve_cyclic};
use crate::table::{FileSpec, Status, TableError, TableFile, write_table};
use crate::value::Value;
use std::fmt;
use std::marker::PhantomData;

/// A sector: stones on the board of the side to move and of the other side, then their hands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(not(feature = "internals"), allow(unnameable_types, reason = "reached only as a part of the catalogue a game gives, through its traits"))]
pub struct Sector {
    /// Stones of the side to move on the board.
    pub mover: u32,
    /// Stones of the other side on the board.
    pub other: u32,
    /// Stones of the side to move in hand.
    pub mover_hand: u32,
    /// Stones of the other side in hand.
    pub other_hand: u32,
}

/// The kinds of move that leave a sector's pair, in the order `SectorPair` keeps their sectors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(not(feature = "internals"), allow(unnameable_types, reason = "reached only as a part of the catalogue a game gives, through its traits"))]
pub enum Exit {
    /// A slide (or flight) that closes a mill and removes a stone.
    SlideCapture = 0,
    /// A placement that closes no mill.
    Place = 1,
    /// A placement that closes a mill and removes a stone.
    PlaceCapture = 2,
}

impl Exit {
    /// Every kind, in the order of their slots.
    pub const ALL: [Exit; 3] = [Exit::SlideCapture, Exit::Place, Exit::PlaceCapture];
}

impl Sector {
    /// The moving-phase class `mover-other`: both hands empty.
    pub fn moving(mover: u32, other: u32) -> Sector {
        Sector { mover, other, mover_hand: 0, other_hand: 0 }
    }

    /// The sector with the sides exchanged: where a slide that captures nothing leads.
    pub fn swapped(self) -> Sector {
        Sector { mover: self.other, other: self.mover, mover_hand: self.other_hand, other_hand: self.mover_hand }
    }

    /// Stones of the side to move on the board and in hand.
    pub fn mover_material(self) -> u32 {
        self.mover + self.mover_hand
    }

    /// Stones of the other side on the board and in hand.
    pub fn other_material(self) -> u32 {
        self.other + self.other_hand
    }

    /// Whether both hands are empty: a moving-phase class.
    pub fn is_class(self) -> bool {
        self.mover_hand == 0 && self.other_hand == 0
    }

    /// Where a move of kind `exit` leads (the side to move there is the one that did not move),
    /// or `None` where there is no such move (nothing in hand) or where it wins at once (its
    /// removal leaves the other side fewer than three stones).
    pub fn after(self, exit: Exit) -> Option<Sector> {
        let (placed, captured) = match exit {
            Exit::SlideCapture => (0, 1),
            Exit::Place => (1, 0),
            Exit::PlaceCapture => (1, 1),
        };
        if self.mover_hand < placed || self.other < captured {
            return None;
        }
        let next = Sector {
            mover: self.other - captured,
            other: self.mover + placed,
            mover_hand: self.other_hand,
            other_hand: self.mover_hand - placed,
        };
        (next.mover_material() >= MIN_STONES).then_some(next)
    }

    /// The pair this sector is solved in, named by its member that sorts first.
    pub fn pair(self) -> Sector {
        self.min(self.swapped())
    }

    /// The sectors solved together with pair `self`: one when exchanging the sides gives the
    /// same sector.
    pub fn members(self) -> Vec<Sector> {
        if self == self.swapped() { vec![self] } else { vec![self, self.swapped()] }
    }

    /// The sector's index: its stones on the board up to the board's symmetries (the hands are
    /// the sector's own).
    pub fn index(self) -> ClassIndex {
        ClassIndex::new(self.mover, self.other)
    }

    /// The position with these stones on the board, White to move.
    #[inline]
    pub fn position(self, mover: u32, other: u32) -> Position {
        Position {
            stones: [mover, other],
            hand: [self.mover_hand as u8, self.other_hand as u8],
            to_move: Color::White,
        }
    }

    /// The sector of `position`: its side to move's stones and hand first.
    pub fn of(position: &Position) -> Sector {
        let (me, them) = (position.to_move.index(), position.to_move.other().index());
        Sector {
            mover: position.stones[me].count_ones(),
            other: position.stones[them].count_ones(),
            mover_hand: u32::from(position.hand[me]),
            other_hand: u32::from(position.hand[them]),
        }
    }
}

impl fmt::Display for Sector {
    /// `A-B hands C-D`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{} hands {}-{}", self.mover, self.other, self.mover_hand, self.other_hand)
    }
}

/// A solved sector (or class), readable: its index and its table.
#[cfg_attr(not(feature = "internals"), allow(unnameable_types, reason = "reached only as a part of the catalogue a game gives, through its traits"))]
#[derive(Debug)]
pub struct SolvedClass {
    /// The sector's index.
    pub index: ClassIndex,
    /// Its table.
    pub file: TableFile,
}

impl crate::table::Mapped for SolvedClass {
    fn unchanged(&self) -> Result<(), TableError> {
        self.file.unchanged()
    }
}

impl SolvedClass {
    /// The value of the position with these stones of the side to move and of the other side.
    #[inline]
    pub fn value(&self, mover: u32, other: u32) -> Result<Value, TableError> {
        self.file.value(self.index.index(mover, other))
    }
}

/// The solved sectors a member of a pair leaves to, one slot per [`Exit`]; `None` where the
/// move wins at once or does not exist.
pub(crate) type Exits<'a> = [Option<&'a SolvedClass>; 3];

/// The positions of a sector and its partner (one sector when they are the same), numbered
/// the first sector's first.
pub(crate) struct SectorPair<'a, V> {
    sectors: [Sector; 2],
    indices: [ClassIndex; 2],
    single: bool,
    /// Per member: the solved sectors its moves out of the pair lead to.
    exits: [Exits<'a>; 2],
    variant: PhantomData<V>,
}

impl<'a, V: MorrisVariant> SectorPair<'a, V> {
    /// `exits[k]` must hold the solved sector after each kind of move out of member `k`.
    pub fn new(first: Sector, exits: [Exits<'a>; 2]) -> SectorPair<'a, V> {
        let sectors = [first, first.swapped()];
        SectorPair {
            sectors,
            indices: sectors.map(Sector::index),
            single: first == first.swapped(),
            exits,
            variant: PhantomData,
        }
    }

    /// The sectors of the pair.
    pub fn sectors(&self) -> &[Sector] {
        if self.single { &self.sectors[..1] } else { &self.sectors[..] }
    }

    /// Where member `k`'s indices start in the pair's numbering.
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
    fn successors<const INSIDE: u8>(
        &self,
        index: u64,
        cursor: Option<&mut [Cursor; 2]>,
        mut f: impl FnMut(CountedMove),
    ) -> Result<(), SolveError> {
        let (k, local) = self.split(index);
        let sector = self.sectors[k];
        let (mover, other) = match cursor {
            Some(cursors) => self.indices[k].position_after(local, &mut cursors[k]),
            None => self.indices[k].position(local),
        };
        let partner = self.partner(k);
        let position = sector.position(mover, other);
        if is_full_board_draw::<V>(&position) {
            f(CountedMove::Outside(Value::Draw)); // no move, and not lost
            return Ok(());
        }
        // A move that stays in the pair leaves the other side's stones as they are. Two such
        // moves reach the same position only through a symmetry that maps those stones onto
        // themselves: without one, every move reaches a position of its own.
        let distinct = INSIDE == COUNT && !has_symmetry(other);
        let mut failed = None;
        for_each_move::<V>(&position, |mv, next| {
            // After White's move Black is to move: Black's stones first.
            let (to_move, waiting) = (next.stones[1], next.stones[0]);
            let captured = mv.remove != NO_POINT;
            let exit = if !mv.is_placement() {
                if !captured {
                    if distinct {
                        f(CountedMove::Distinct);
                    } else if INSIDE != SKIP {
                        f(CountedMove::Inside(self.offset(partner) + self.indices[partner].index(to_move, waiting)));
                    }
                    return;
                }
                Exit::SlideCapture
            } else if captured {
                Exit::PlaceCapture
            } else {
                Exit::Place
            };
            match self.exits[k][exit as usize].map(|solved| solved.value(to_move, waiting)) {
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

impl<V: MorrisVariant> SectorPair<'_, V> {
    /// Solves the pair and writes the table of each member that is not complete yet (one
    /// written before an interruption, or by another game with the same sector, has the same
    /// bytes), to `specs[k]` for member `k`. `name` names the pair in errors.
    pub(crate) fn solve_and_write(&self, specs: &[FileSpec], name: &str, build: &Build) -> Result<String, BuildError> {
        let solution = solve_cyclic(self, build.progress).map_err(BuildError::solve(name))?;
        for (k, (sector, spec)) in self.sectors().iter().zip(specs).enumerate() {
            if Status::of(spec).is_complete() {
                continue;
            }
            let offset = self.offset(k);
            let entry = |_: &mut (), i: u64| Ok::<_, TableError>((solution.value(offset + i), 1));
            write_table(spec, sector.index().size(), build.progress, || (), entry)?;
        }
        Ok(format!("{} solved", crate::text::count(self.size(), "position")))
    }

    /// Recomputes every value of member `k` from its successors' values: the pair's own as
    /// `tables` (one per member) store them, the others from the exits' tables. `name` names
    /// the member in errors; examples of mismatches are numbered within the member.
    pub(crate) fn check_member(
        &self,
        tables: &[SolvedClass],
        k: usize,
        name: &str,
        progress: &Progress,
    ) -> Result<Consistency, BuildError> {
        let first_size = self.offset(1);
        let stored = |i: u64| {
            let (table, local) = if i < first_size || tables.len() == 1 { (0, i) } else { (1, i - first_size) };
            tables[table].file.value(local).map_err(SolveError::from)
        };
        let offset = self.offset(k);
        let size = self.sectors()[k].index().size();
        let mut found = check_cyclic(self, offset..offset + size, stored, progress).map_err(BuildError::solve(name))?;
        for m in &mut found.examples {
            m.index -= offset;
        }
        Ok(found)
    }
}

/// What solving `pair` needs: its members' table files; two bytes of working value and a byte
/// of counter per position of the pair, and a byte per position of each table it leads to
/// (compressed tables are read decoded whole); and its CPU at the variant's measured rate for
/// classes (more where a side flies) or for sectors with stones in hand.
pub(crate) fn pair_needs<V: MorrisVariant>(pair: Sector) -> Needs {
    let sizes: Vec<u64> = pair.members().iter().map(|s| s.index().size()).collect();
    let positions: u64 = sizes.iter().sum();
    let exits: u64 = exit_sectors(pair).iter().map(|s| s.index().size()).sum();
    let rate: Option<Rate> = if pair.is_class() { Some(V::CLASS_RATE) } else { V::SECTOR_RATE };
    let flying = [pair.mover, pair.other].iter().filter(|&&stones| stones == MIN_STONES).count();
    let cost = match (pair.is_class(), flying) {
        (true, 2) => BOTH_FLYING_COST,
        (true, 1) => FLYING_COST,
        _ => 1.0,
    };
    Needs {
        disk: sizes.iter().map(|&n| crate::table::table_file_len(n)).sum(),
        memory: 3 * positions + exits,
        cpu_seconds: rate.map(|rate| JOB_START_SECONDS + cost * rate.seconds(positions)),
        disk_bounded: false,
    }
}

/// The sectors the members of `pair` leave to (the tables solving it reads), each once.
pub(crate) fn exit_sectors(pair: Sector) -> Vec<Sector> {
    let mut exits: Vec<Sector> =
        pair.members().into_iter().flat_map(|member| Exit::ALL.into_iter().filter_map(move |e| member.after(e))).collect();
    exits.sort();
    exits.dedup();
    exits
}

/// The solved sectors each member of `pair` leaves to, opened by `open`.
pub(crate) fn open_exits<E>(
    pair: Sector,
    open: impl Fn(Sector) -> Result<SolvedClass, E>,
) -> Result<[[Option<SolvedClass>; 3]; 2], E> {
    let mut opened: [[Option<SolvedClass>; 3]; 2] = Default::default();
    for (k, member) in pair.members().into_iter().enumerate() {
        for exit in Exit::ALL {
            opened[k][exit as usize] = member.after(exit).map(&open).transpose()?;
        }
    }
    Ok(opened)
}

/// [`open_exits`]'s tables as [`SectorPair::new`] takes them.
pub(crate) fn borrow_exits(opened: &[[Option<SolvedClass>; 3]; 2]) -> [Exits<'_>; 2] {
    opened.each_ref().map(|exits| exits.each_ref().map(Option::as_ref))
}

/// What [`SectorPair::successors`] does with the moves that stay in the pair.
const LOCATE: u8 = 0;
const SKIP: u8 = 1;
const COUNT: u8 = 2;

impl<V: MorrisVariant> CyclicSet for SectorPair<'_, V> {
    /// One per member: the members are numbered one after the other.
    type Cursor = [Cursor; 2];

    fn size(&self) -> u64 {
        self.sectors().iter().map(|s| s.index().size()).sum()
    }

    #[inline]
    fn for_each_successor(&self, index: u64, mut f: impl FnMut(Successor)) -> Result<(), SolveError> {
        self.successors::<LOCATE>(index, None, |m| match m {
            CountedMove::Inside(j) => f(Successor::Inside(j)),
            CountedMove::Outside(v) => f(Successor::Outside(v)),
            CountedMove::Distinct => {} // only when counting
        })
    }

    #[inline]
    fn for_each_exit(&self, index: u64, mut f: impl FnMut(Value)) -> Result<(), SolveError> {
        self.successors::<SKIP>(index, None, |m| {
            if let CountedMove::Outside(v) = m {
                f(v)
            }
        })
    }

    #[inline]
    fn for_each_counted_move(
        &self,
        index: u64,
        cursor: &mut [Cursor; 2],
        f: impl FnMut(CountedMove),
    ) -> Result<(), SolveError> {
        self.successors::<COUNT>(index, Some(cursor), f)
    }

    #[inline]
    fn for_each_predecessor(&self, index: u64, cursor: &mut [Cursor; 2], mut f: impl FnMut(u64)) {
        let (k, local) = self.split(index);
        let (mover, other) = self.indices[k].position_after(local, &mut cursor[k]);
        let partner = self.partner(k);
        for_each_unslide_in_sector::<V>(&self.sectors[k].position(mover, other), |before| {
            // Black moved last: White's stones are the partner sector's other side.
            f(self.offset(partner) + self.indices[partner].index(before.stones[1], before.stones[0]));
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::morris::{Lasker, Morabaraba, Standard};
    use crate::rng::SplitMix64;

    #[test]
    fn where_moves_lead() {
        let s = Sector { mover: 4, other: 3, mover_hand: 2, other_hand: 1 };
        assert_eq!(s.swapped(), Sector { mover: 3, other: 4, mover_hand: 1, other_hand: 2 });
        assert_eq!(s.after(Exit::SlideCapture), Some(Sector { mover: 2, other: 4, mover_hand: 1, other_hand: 2 }));
        assert_eq!(s.after(Exit::Place), Some(Sector { mover: 3, other: 5, mover_hand: 1, other_hand: 1 }));
        assert_eq!(s.after(Exit::PlaceCapture), Some(Sector { mover: 2, other: 5, mover_hand: 1, other_hand: 1 }));
        // Three stones left in all: a removal wins.
        let s = Sector { mover: 4, other: 2, mover_hand: 0, other_hand: 1 };
        assert_eq!(s.after(Exit::SlideCapture), None);
        assert_eq!(s.after(Exit::Place), None, "nothing in hand");
        assert_eq!(s.to_string(), "4-2 hands 0-1");
        assert_eq!(s.pair(), Sector { mover: 2, other: 4, mover_hand: 1, other_hand: 0 });
        let single = Sector { mover: 3, other: 3, mover_hand: 1, other_hand: 1 };
        assert_eq!(single.members(), [single]);
        assert_eq!(Sector::moving(5, 4).after(Exit::SlideCapture), Some(Sector::moving(3, 5)));
    }

    /// The first pass's count of distinct positions reached inside the pair, whether it locates
    /// each move or takes the other side's lack of symmetry for distinctness, is the number of
    /// distinct successors located one by one.
    fn counted_moves_reach_as_many_positions_as_located<V: MorrisVariant>(sectors: &[[u32; 4]]) {
        let mut rng = SplitMix64::new(27);
        let mut unlocated = 0;
        for &[mover, other, mover_hand, other_hand] in sectors {
            // Captures and placements are not followed: only the moves that stay in the pair are
            // counted here.
            let sector = Sector { mover, other, mover_hand, other_hand };
            let pair = SectorPair::<V>::new(sector, [[None; 3]; 2]);
            let mut cursor = Default::default();
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
                pair.for_each_counted_move(index, &mut cursor, |m| match m {
                    CountedMove::Inside(j) => inside.push(j),
                    CountedMove::Distinct => distinct += 1,
                    CountedMove::Outside(_) => {}
                })
                .unwrap();
                inside.sort_unstable();
                inside.dedup();
                assert!(inside.is_empty() || distinct == 0, "{sector} index {index}");
                assert_eq!(inside.len() + distinct, located.len(), "{sector} index {index}");
                unlocated += distinct;
            }
        }
        assert!(unlocated > 100_000, "{unlocated} moves counted unlocated");
    }

    #[test]
    fn counted_moves_reach_as_many_positions_as_located_standard() {
        counted_moves_reach_as_many_positions_as_located::<Standard>(&[[3, 3, 0, 0], [4, 3, 0, 0], [5, 4, 0, 0], [6, 6, 0, 0], [9, 8, 0, 0], [4, 9, 0, 0]]);
    }

    #[test]
    fn counted_moves_reach_as_many_positions_as_located_morabaraba() {
        counted_moves_reach_as_many_positions_as_located::<Morabaraba>(&[[3, 3, 0, 0], [3, 5, 0, 0], [6, 5, 0, 0], [7, 7, 0, 0], [12, 11, 0, 0], [10, 4, 0, 0]]);
    }

    #[test]
    fn counted_moves_reach_as_many_positions_as_located_lasker() {
        counted_moves_reach_as_many_positions_as_located::<Lasker>(&[[2, 3, 1, 4], [5, 4, 2, 3], [3, 3, 1, 1], [1, 6, 2, 0], [6, 2, 1, 5], [8, 7, 0, 1]]);
    }
}
