//! The tables of a variant where a side may slide while it still holds stones (Lasker Morris):
//! every sector of the K-stone game, whole, each pair solved by the cyclic solver after the
//! sectors its captures and placements lead to. The sectors with both hands empty are the
//! standard game's moving-phase classes: they are read from, and written to, the standard
//! game's files (`morris-A-B.tbl`), so that neither game builds them twice.

use super::catalogue::Class;
use super::sector::SolvedClass;
use super::notation::PositionText;
use super::sector::{Sector, SectorPair, borrow_exits, exit_sectors, open_exits, pair_needs};
use super::variant::{MIN_STONES, MorrisVariant, Standard};
use crate::catalogue::{Build, BuildError, Catalogue, Needs, Reference, Variant};
use crate::progress::Progress;
use crate::solve::{CheckedParts, Consistency};
use crate::table::{Check, FileSpec, TableError, TableFile};
use std::marker::PhantomData;
use std::path::Path;

/// Every sector of a game with `stones` a side, whose variant lets a side slide while it still
/// holds stones.
#[derive(Clone, Copy, Debug)]
pub struct Sectors<V> {
    stones: u32,
    variant: PhantomData<V>,
}

impl<V: MorrisVariant> Sectors<V> {
    /// The sectors of the game with `stones` (3 up to the variant's) a side.
    pub fn new(stones: u32) -> Sectors<V> {
        Sectors { stones, variant: PhantomData }
    }

    /// Stones each side starts with.
    pub fn stones(&self) -> u32 {
        self.stones
    }

    /// Every sector: each side with three to K stones on the board and in hand together, in the
    /// order they are solved (fewer stones in hand first, then fewer on the board).
    pub fn sectors(&self) -> Vec<Sector> {
        let k = self.stones;
        let sides = || (0..=k).flat_map(move |board| (0..=k - board).map(move |hand| (board, hand)));
        let mut all: Vec<Sector> = sides()
            .flat_map(|(mover, mover_hand)| {
                sides().map(move |(other, other_hand)| Sector { mover, other, mover_hand, other_hand })
            })
            .filter(|&s| self.contains(s))
            .collect();
        all.sort_by_key(solving_order);
        all
    }

    /// Whether `sector` is one of this game's.
    pub fn contains(&self, sector: Sector) -> bool {
        let material = MIN_STONES..=self.stones;
        material.contains(&sector.mover_material()) && material.contains(&sector.other_material())
    }

    /// The table of `sector` in `dir`. A sector without stones in hand that the standard game
    /// has is its class's file; the others are `KEY-A-B-hands-C-D.tbl`.
    pub fn spec(dir: &Path, sector: Sector) -> FileSpec {
        match standard_class(sector) {
            Some(class) => class.spec(dir, &Standard::RULES),
            None => {
                let Sector { mover, other, mover_hand, other_hand } = sector;
                let file = format!("{}-{mover}-{other}-hands-{mover_hand}-{other_hand}.tbl", V::RULES.key);
                FileSpec::table(dir.join(file), V::RULES.key, sector.to_string())
            }
        }
    }

    /// Opens the table of `sector` in `dir`.
    pub fn open(dir: &Path, sector: Sector, check: Check) -> Result<SolvedClass, TableError> {
        let index = sector.index();
        let file = TableFile::open(&Self::spec(dir, sector), index.size(), check)?;
        Ok(SolvedClass { index, file })
    }

    fn solve_pair(&self, dir: &Path, pair: Sector, build: &Build) -> Result<String, BuildError> {
        let exits = open_exits(pair, |s| Self::open(dir, s, Check::Checksum))?;
        let set = SectorPair::<V>::new(pair, borrow_exits(&exits));
        let name = pair.members().iter().map(Sector::to_string).collect::<Vec<_>>().join(" / ");
        let specs: Vec<FileSpec> = pair.members().into_iter().map(|s| Self::spec(dir, s)).collect();
        set.solve_and_write(&specs, &format!("{} {name}", V::RULES.key), build)
    }
}

/// Fewer stones in hand first (placements lead there), then fewer on the board (captures).
fn solving_order(s: &Sector) -> (u32, u32, Sector) {
    (s.mover_hand + s.other_hand, s.mover + s.other, *s)
}

/// The standard game's class that `sector` is, where it is one: both hands empty, and at most
/// nine stones a side.
fn standard_class(sector: Sector) -> Option<Class> {
    let class = Class::new(sector.mover, sector.other)?;
    (sector.is_class() && Standard::RULES.has_class(class.mover, class.other)).then_some(class)
}

impl<V: MorrisVariant> Catalogue for Sectors<V> {
    type Key = Sector;
    type Job = Sector;


    fn name(&self) -> String {
        V::RULES.key.to_string()
    }

    fn title(&self) -> String {
        format!(
            "{} with {} stones each, sectors A-B hands C-D (stones on the board of the side to move \
             and of the other side, then in hand)",
            V::RULES.name,
            self.stones
        )
    }

    fn keys(&self) -> Vec<Sector> {
        self.sectors()
    }

    fn table(&self, dir: &Path, sector: Sector) -> FileSpec {
        Self::spec(dir, sector)
    }

    fn index_size(&self, sector: Sector) -> u64 {
        sector.index().size()
    }

    fn reference(&self, sector: Sector) -> Reference {
        match standard_class(sector) {
            Some(class) => Standard::class_reference(class.mover, class.other),
            None => V::class_reference(sector.mover, sector.other),
        }
    }

    fn jobs(&self) -> Vec<Sector> {
        let mut pairs: Vec<Sector> = self.sectors().into_iter().map(Sector::pair).collect();
        pairs.sort_by_key(solving_order);
        pairs.dedup();
        pairs
    }

    fn outputs(&self, dir: &Path, pair: Sector) -> Vec<FileSpec> {
        pair.members().into_iter().map(|s| Self::spec(dir, s)).collect()
    }

    fn inputs(&self, dir: &Path, pair: Sector) -> Vec<FileSpec> {
        exit_sectors(pair).into_iter().map(|s| Self::spec(dir, s)).collect()
    }

    fn needs(&self, _dir: &Path, pair: Sector) -> Needs {
        pair_needs::<V>(pair)
    }

    fn build(&self, dir: &Path, pair: Sector, build: &Build) -> Result<String, BuildError> {
        self.solve_pair(dir, pair, build)
    }

    fn check(
        &self,
        dir: &Path,
        sector: Sector,
        _parts: Option<&dyn CheckedParts>,
        progress: &Progress,
    ) -> Result<Option<Consistency>, BuildError> {
        let pair = sector.pair();
        // Checked and decoded whole, as generating reads them: the check reads every entry and
        // its successors', and one read at a time from a compressed block is most of its time.
        let files = pair.members().into_iter().map(|s| Self::open(dir, s, Check::Checksum));
        let Ok(files) = files.collect::<Result<Vec<_>, _>>() else {
            return Ok(None); // its partner is missing or damaged: reported on its own
        };
        let Ok(exits) = open_exits(pair, |s| Self::open(dir, s, Check::Checksum)) else {
            return Ok(None); // a table it depends on is missing or damaged: reported on its own
        };
        let set = SectorPair::<V>::new(pair, borrow_exits(&exits));
        let k = usize::from(sector != pair);
        set.check_member(&files, k, &format!("{} {sector}", V::RULES.key), progress).map(Some)
    }

    fn describe(&self, _dir: &Path, sector: Sector, index: u64) -> String {
        let (mover, other) = sector.index().position(index);
        PositionText(&sector.position(mover, other)).to_string()
    }

    fn variant(&self) -> Variant {
        Variant::of(V::RULES.key).with("stones", self.stones)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::morris::Lasker;

    #[test]
    fn sectors_of_the_three_stone_game() {
        let sectors = Sectors::<Lasker>::new(3).sectors();
        // Each side has its three stones split between board and hand: 4 x 4 sectors.
        assert_eq!(sectors.len(), 16);
        assert_eq!(sectors[0], Sector { mover: 3, other: 3, mover_hand: 0, other_hand: 0 });
        assert_eq!(*sectors.last().unwrap(), Sector { mover: 0, other: 0, mover_hand: 3, other_hand: 3 });
        let jobs = Sectors::<Lasker>::new(3).jobs();
        assert_eq!(jobs.len(), 10, "4 sectors equal to their partner, 6 pairs of two");
        // Every sector a job's moves leave to is solved by an earlier job.
        for (n, job) in jobs.iter().enumerate() {
            for member in job.members() {
                for exit in crate::games::morris::sector::Exit::ALL {
                    if let Some(next) = member.after(exit) {
                        let at = jobs.iter().position(|j| *j == next.pair()).expect("a job");
                        assert!(at < n, "{member} leaves to {next}, solved after it");
                    }
                }
            }
        }
        let dir = Path::new("/t");
        assert_eq!(Sectors::<Lasker>::spec(dir, sectors[0]).path, dir.join("morris-3-3.tbl"));
        let s = Sector { mover: 2, other: 3, mover_hand: 1, other_hand: 0 };
        assert_eq!(Sectors::<Lasker>::spec(dir, s).path, dir.join("lasker-2-3-hands-1-0.tbl"));
    }
}
