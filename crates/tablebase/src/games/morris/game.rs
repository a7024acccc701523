//! The Morris variants in the registry: their settings (`--stones`, `--up-to`, `--no-opening`),
//! the tables each command works on, where a game starts, and the chart of its classes.

use super::catalogue::{Class, MovingPhase};
use super::lasker::Sectors;
use super::notation::PositionText;
use super::position::Position;
use super::opening::Opening;
use super::probe::MorrisTablebase;
use super::sector::Sector;
use super::variant::{Lasker, MIN_STONES, Morabaraba, MorrisVariant, Standard};
use crate::catalogue::{Catalogue, Chain, Variant};
use crate::game::{Game, Purpose, Setting, VariantError};
use crate::layered::Layered;
use crate::picture::Chart;
use crate::table::{file_names, final_name};
use std::marker::PhantomData;
use std::path::Path;

/// Every table of a Morris variant's game with K stones per side: the moving-phase classes it
/// needs, then (unless left out) the placement layers of its opening, which read those classes.
pub type MorrisTables<V = Standard> = Chain<MovingPhase<V>, Layered<Opening<V>>>;

/// The tables of the game with `stones` per side (3 up to the variant's): the classes up to
/// `K-K` and its opening; with `up_to`, only the classes that class needs and no opening;
/// without `opening`, the classes only.
pub fn morris_tables<V: MorrisVariant>(stones: u32, up_to: Option<Class>, opening: bool) -> MorrisTables<V> {
    match up_to {
        Some(class) => Chain { first: MovingPhase::new(Some(class)), second: None },
        None => {
            Chain { first: MovingPhase::for_stones(stones), second: opening.then(|| Opening::tables(stones)) }
        }
    }
}

/// A Morris variant with K stones a side, or some of its tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MorrisGame<V = Standard> {
    /// Stones each side starts with (the variant's own number: the whole game).
    pub stones: u8,
    /// Only the moving-phase classes this class needs (no opening).
    pub up_to: Option<Class>,
    /// With the placement-phase (opening) tables.
    pub opening: bool,
    /// The rules.
    pub variant: PhantomData<V>,
}

/// Morabaraba in the registry.
pub type MorabarabaGame = MorrisGame<Morabaraba>;

impl<V: MorrisVariant> MorrisGame<V> {
    /// The whole game with `stones` a side.
    pub fn new(stones: u8) -> MorrisGame<V> {
        MorrisGame { stones, up_to: None, opening: true, variant: PhantomData }
    }

    /// Every table of this variant, in the order they are built.
    pub fn tables(&self) -> MorrisTables<V> {
        morris_tables(u32::from(self.stones), self.up_to, self.opening)
    }
}

impl<V: MorrisVariant> Game for MorrisGame<V> {
    const KEY: &'static str = V::RULES.key;
    const NAME: &'static str = V::RULES.name;
    const SETTINGS: &'static [Setting] = V::SETTINGS;
    const SIDES: [&'static str; 2] = ["white", "black"];
    const POSITIONS: &'static str = "quote each: 'W:a1,d1,g1 B:a4,b4,c4 b'";

    type Catalogue = MorrisTables<V>;
    type Tablebase = MorrisTablebase<V>;

    fn from_variant(variant: &Variant, _purpose: Purpose) -> Result<MorrisGame<V>, VariantError> {
        let max_stones = V::RULES.stones;
        let stones = parse_stones(variant, max_stones)?;
        let up_to = match variant.value("up-to") {
            None => None,
            Some(text) => Some(
                Class::parse(text)
                    .filter(|c| V::RULES.has_class(c.mover, c.other))
                    .ok_or_else(|| VariantError::Invalid {
                        setting: "up-to",
                        value: text.to_string(),
                        expected: format!("expected A-B with A and B in {MIN_STONES}..{max_stones}"),
                    })?,
            ),
        };
        // The K-stone game has no class with more than K stones a side: asking for both is a
        // contradiction, not a request for the larger classes.
        if let (Some(class), Some(k)) = (up_to, stones)
            && class.mover.max(class.other) > u32::from(k)
        {
            return Err(VariantError::Contradiction {
                settings: ["up-to", "stones"],
                why: format!(
                    "--up-to {class} and --stones {k} contradict each other: the {k}-stone game has \
                     classes up to {k}-{k} (without --stones, --up-to {class} names the classes of the {max_stones}-stone game)"
                ),
            });
        }
        let opening = up_to.is_none() && !variant.has("no-opening");
        Ok(MorrisGame { stones: stones.unwrap_or(max_stones as u8), up_to, opening, variant: PhantomData })
    }

    fn variant(&self) -> Variant {
        let key = V::RULES.key;
        match (self.up_to, self.opening) {
            (Some(class), _) => Variant::of(key).switch("no-opening").with("up-to", class),
            (None, false) => Variant::of(key).with("stones", self.stones).switch("no-opening"),
            (None, true) => Variant::of(key).with("stones", self.stones),
        }
    }

    fn catalogue(&self, _dir: &Path, _purpose: Purpose) -> Result<MorrisTables<V>, VariantError> {
        Ok(self.tables())
    }

    fn tablebase(&self, dir: &Path, _search_seconds: Option<f64>) -> MorrisTablebase<V> {
        MorrisTablebase::open(dir, self.stones)
    }

    /// Where the game starts: every stone in hand; for the moving phase alone (no opening), a
    /// position of its largest class, White to move, so that its tables answer it.
    fn start(&self) -> String {
        match self.opening {
            true => start_with(self.stones),
            false => {
                let stones = u32::from(self.stones);
                moving_example(self.up_to.unwrap_or(Class { mover: stones, other: stones }))
            }
        }
    }

    fn title(&self) -> String {
        match (self.up_to, self.opening) {
            (_, true) => title_of::<V>(self.stones),
            (Some(class), false) => format!("{}, moving phase up to {class}", V::RULES.name),
            (None, false) => format!("{}, moving phase", title_of::<V>(self.stones)),
        }
    }

    /// Each game with a file of its opening in `dir`, and the moving phase up to the largest
    /// class there where no such game has that class (no opening, or a moving phase built
    /// beyond the games' stones beside them).
    fn present(dir: &Path) -> Vec<MorrisGame<V>> {
        let (key, max_stones) = (V::RULES.key, V::RULES.stones);
        let names = file_names(dir);
        // Any file of a game's opening, finished or not: a build stopped before its ply 0 (the
        // last table it writes) is that game's, half made, not a smaller game's.
        let mut games: Vec<MorrisGame<V>> = (MIN_STONES..=max_stones)
            .rev()
            .filter(|k| names.iter().any(|n| final_name(n).starts_with(&format!("{key}-opening{k}-ply"))))
            .map(|k| MorrisGame::new(k as u8))
            .collect();
        let most_stones = games.first().map_or(0, |game| u32::from(game.stones));
        let largest = names
            .iter()
            .filter_map(|n| Class::parse(final_name(n).strip_prefix(key)?.strip_prefix('-')?.strip_suffix(".tbl")?))
            .filter(|c| V::RULES.has_class(c.mover, c.other))
            .max_by_key(|c| (c.mover + c.other, c.mover));
        if let Some(class) = largest
            && class.mover.max(class.other) > most_stones
        {
            games.push(MorrisGame { stones: max_stones as u8, up_to: Some(class), opening: false, variant: PhantomData });
        }
        games
    }

    fn small() -> Option<MorrisGame<V>> {
        Some(MorrisGame::new(3))
    }

    /// The classes as a heat map of their outcomes, its axes up to the game's largest class
    /// whichever of its classes are on disk.
    fn charts(&self, dir: &Path) -> Vec<Chart> {
        let tables = self.tables();
        let rows = crate::catalogue::info(&tables, dir);
        let keys = tables.keys();
        let most = keys
            .iter()
            .filter_map(|key| match key {
                crate::catalogue::Link::First(class) => Some(class.mover.max(class.other)),
                crate::catalogue::Link::Second(_) => None,
            })
            .max()
            .unwrap_or(MIN_STONES);
        let classes: Vec<(u32, u32, crate::table::Counts)> = keys
            .into_iter()
            .zip(&rows)
            .filter_map(|(key, row)| match key {
                crate::catalogue::Link::First(class) => Some((class.mover, class.other, *row.counts()?)),
                crate::catalogue::Link::Second(_) => None,
            })
            .collect();
        if classes.is_empty() {
            return Vec::new();
        }
        vec![Chart::Classes {
            file: format!("{}-classes.svg", V::RULES.key),
            title: format!("{}, moving phase: outcomes for the side to move by stones on the board", self.title()),
            mover_axis: "stones of the side to move".to_string(),
            other_axis: "stones of the other side".to_string(),
            least: MIN_STONES,
            most,
            classes,
        }]
    }
}

/// Lasker Morris with K stones a side: every sector of its game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaskerGame {
    /// Stones each side starts with (10: the whole game).
    pub stones: u8,
}

impl Game for LaskerGame {
    const KEY: &'static str = Lasker::RULES.key;
    const NAME: &'static str = Lasker::RULES.name;
    const SETTINGS: &'static [Setting] = Lasker::SETTINGS;
    const SIDES: [&'static str; 2] = ["white", "black"];
    const POSITIONS: &'static str = "quote each: 'W:a1,d1 B:a4 w 4 6' (any hands up to K)";

    type Catalogue = Sectors<Lasker>;
    type Tablebase = MorrisTablebase<Lasker>;

    fn from_variant(variant: &Variant, _purpose: Purpose) -> Result<LaskerGame, VariantError> {
        let stones = parse_stones(variant, Lasker::RULES.stones)?;
        Ok(LaskerGame { stones: stones.unwrap_or(Lasker::RULES.stones as u8) })
    }

    fn variant(&self) -> Variant {
        Variant::of(Self::KEY).with("stones", self.stones)
    }

    fn catalogue(&self, _dir: &Path, _purpose: Purpose) -> Result<Sectors<Lasker>, VariantError> {
        Ok(Sectors::new(u32::from(self.stones)))
    }

    fn tablebase(&self, dir: &Path, _search_seconds: Option<f64>) -> MorrisTablebase<Lasker> {
        MorrisTablebase::open(dir, self.stones)
    }

    fn start(&self) -> String {
        start_with(self.stones)
    }

    fn title(&self) -> String {
        title_of::<Lasker>(self.stones)
    }

    /// Each game whose start sector (both sides' stones all in hand) is in `dir`, and the game
    /// of the most stones any sector with stones in hand there holds (finished or not): a build
    /// stopped before its start sector, the last it writes, is that game's, half made.
    fn present(dir: &Path) -> Vec<LaskerGame> {
        let names = file_names(dir);
        let mut stones: Vec<u32> = (MIN_STONES..=Lasker::RULES.stones)
            .filter(|&k| {
                let start = Sector { mover: 0, other: 0, mover_hand: k, other_hand: k };
                let path = Sectors::<Lasker>::spec(Path::new(""), start).path;
                names.iter().any(|n| Path::new(n) == path)
            })
            .collect();
        let most = names.iter().filter_map(|n| lasker_material(final_name(n))).max();
        if let Some(k) = most.filter(|k| (MIN_STONES..=Lasker::RULES.stones).contains(k))
            && !stones.contains(&k)
        {
            stones.push(k);
        }
        stones.sort_unstable_by(|a, b| b.cmp(a));
        stones.into_iter().map(|k| LaskerGame { stones: k as u8 }).collect()
    }

    fn small() -> Option<LaskerGame> {
        Some(LaskerGame { stones: 3 })
    }

    /// The sectors as a heat map of their outcomes by each side's stones on the board and in
    /// hand (a cell holds every sector of those stones), its axes up to the game's stones
    /// whichever of its sectors are on disk.
    fn charts(&self, dir: &Path) -> Vec<Chart> {
        let sectors = Sectors::<Lasker>::new(u32::from(self.stones));
        let rows = crate::catalogue::info(&sectors, dir);
        let mut cells: Vec<(u32, u32, crate::table::Counts)> = Vec::new();
        for (sector, row) in sectors.keys().into_iter().zip(&rows) {
            let Some(counts) = row.counts() else { continue };
            let (mover, other) = (sector.mover_material(), sector.other_material());
            match cells.iter_mut().find(|(m, o, _)| (*m, *o) == (mover, other)) {
                Some((_, _, sum)) => {
                    sum.win += counts.win;
                    sum.draw += counts.draw;
                    sum.loss += counts.loss;
                }
                None => cells.push((mover, other, *counts)),
            }
        }
        if cells.is_empty() {
            return Vec::new();
        }
        vec![Chart::Classes {
            file: format!("{}-sectors.svg", Lasker::RULES.key),
            title: format!(
                "{}: outcomes for the side to move by stones on the board and in hand (sectors)",
                self.title()
            ),
            mover_axis: "stones of the side to move, on the board and in hand".to_string(),
            other_axis: "stones of the other side, on the board and in hand".to_string(),
            least: MIN_STONES,
            most: u32::from(self.stones),
            classes: cells,
        }]
    }
}

/// The start of a game with `stones` a side: every stone in hand, White to move.
fn start_with(stones: u8) -> String {
    format!("W: B: w {stones} {stones}")
}

/// A position of moving-phase class `class`, White to move: White's stones on corners and
/// Black's on midpoints, spread over the rings, in a fixed order.
fn moving_example(class: Class) -> String {
    const CORNERS: [usize; 12] = [0, 4, 10, 14, 18, 22, 2, 6, 8, 12, 16, 20];
    const MIDPOINTS: [usize; 12] = [1, 5, 11, 15, 19, 23, 3, 7, 9, 13, 17, 21];
    let on = |points: &[usize]| points.iter().fold(0, |set, &p| set | 1 << p);
    let white = on(&CORNERS[..class.mover as usize]);
    let black = on(&MIDPOINTS[..class.other as usize]);
    PositionText(&Position::moving(white, black)).to_string()
}

/// The variant's name, with the number of stones where it is not the variant's own.
fn title_of<V: MorrisVariant>(stones: u8) -> String {
    match u32::from(stones) {
        k if k == V::RULES.stones => V::RULES.name.to_string(),
        k => format!("{} with {k} stones each", V::RULES.short_name),
    }
}

/// `--stones K` where given: a number from 3 to the variant's `max_stones`.
fn parse_stones(variant: &Variant, max_stones: u32) -> Result<Option<u8>, VariantError> {
    let range = MIN_STONES..=max_stones;
    match variant.value("stones") {
        None => Ok(None),
        Some(text) => match text.trim().parse::<u32>() {
            Ok(k) if range.contains(&k) => Ok(Some(k as u8)),
            _ => Err(VariantError::Invalid {
                setting: "stones",
                value: text.to_string(),
                expected: format!("expected a number from {MIN_STONES} to {max_stones}"),
            }),
        },
    }
}

/// The most stones a side holds (on the board and in hand) in the Lasker sector file `name`
/// (`lasker-2-1-hands-3-4.tbl`), if it is one.
fn lasker_material(name: &str) -> Option<u32> {
    let rest = name.strip_prefix(Lasker::RULES.key)?.strip_prefix('-')?.strip_suffix(".tbl")?;
    let (board, hands) = rest.split_once("-hands-")?;
    let pair = |text: &str| -> Option<(u32, u32)> {
        let (a, b) = text.split_once('-')?;
        Some((a.parse().ok()?, b.parse().ok()?))
    };
    let ((mover, other), (mover_hand, other_hand)) = (pair(board)?, pair(hands)?);
    Some((mover + mover_hand).max(other + other_hand))
}
