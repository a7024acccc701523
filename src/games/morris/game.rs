//! Nine Men's Morris in the registry: its settings (`--stones`, `--up-to`, `--no-opening`), the
//! tables each command works on, where a game starts, and the chart of its classes.

use super::catalogue::{Class, GAME, MovingPhase};
use super::index::{MAX_STONES, MIN_STONES};
use super::opening::Opening;
use super::probe::MorrisTablebase;
use crate::catalogue::{Catalogue, Chain, Variant};
use crate::game::{Game, Purpose, Setting, VariantError};
use crate::layered::Layered;
use crate::picture::PlotError;
use std::path::Path;

/// Every Morris table of the game with K stones per side: the moving-phase classes it needs,
/// then (unless left out) the placement layers of its opening, which read those classes.
pub type MorrisTables = Chain<MovingPhase, Layered<Opening>>;

/// The tables of the game with `stones` per side (3..=9): the classes up to `K-K` and its
/// opening; with `up_to`, only the classes that class needs and no opening; without
/// `opening`, the classes only.
pub fn morris_tables(stones: u32, up_to: Option<Class>, opening: bool) -> MorrisTables {
    match up_to {
        Some(class) => Chain { first: MovingPhase::new(Some(class)), second: None },
        None => {
            Chain { first: MovingPhase::for_stones(stones), second: opening.then(|| Opening::tables(stones)) }
        }
    }
}

/// Nine Men's Morris with K stones a side, or some of its tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MorrisGame {
    /// Stones each side starts with (9: Nine Men's Morris).
    pub stones: u8,
    /// Only the moving-phase classes this class needs (no opening).
    pub up_to: Option<Class>,
    /// With the placement-phase (opening) tables.
    pub opening: bool,
}

impl MorrisGame {
    /// The whole game with `stones` a side.
    pub fn new(stones: u8) -> MorrisGame {
        MorrisGame { stones, up_to: None, opening: true }
    }

    /// Every table of this variant, in the order they are built.
    pub fn tables(&self) -> MorrisTables {
        morris_tables(u32::from(self.stones), self.up_to, self.opening)
    }
}

use Purpose::{Generate, Info, Play, Probe, Verify};

impl Game for MorrisGame {
    const KEY: &'static str = GAME;
    const NAME: &'static str = "Nine Men's Morris";
    const SETTINGS: &'static [Setting] = &[
        Setting {
            name: "stones",
            value: Some("K"),
            help: "Stones each side starts with (3..9; default 9, Nine Men's Morris).",
            purposes: &[Generate, Verify, Info, Probe, Play],
            required: false,
        },
        Setting {
            name: "up-to",
            value: Some("A-B"),
            help: "Only the moving-phase classes needed for class A-B (no opening).",
            purposes: &[Generate, Verify],
            required: false,
        },
        Setting {
            name: "no-opening",
            value: None,
            help: "Moving phase only, without the placement-phase (opening) tables (implied by --up-to).",
            purposes: &[Generate],
            required: false,
        },
    ];
    const SIDES: [&'static str; 2] = ["white", "black"];
    const POSITIONS: &'static str = "quote each: 'W:a1,d1,g1 B:a4,b4,c4 b'";

    type Catalogue = MorrisTables;
    type Tablebase = MorrisTablebase;

    fn from_variant(variant: &Variant, _purpose: Purpose) -> Result<MorrisGame, VariantError> {
        let range = MIN_STONES..=MAX_STONES;
        let stones = match variant.value("stones") {
            None => None,
            Some(text) => match text.trim().parse::<u32>() {
                Ok(k) if range.contains(&k) => Some(k as u8),
                _ => {
                    return Err(VariantError::Invalid {
                        setting: "stones",
                        value: text.to_string(),
                        expected: format!("expected a number from {MIN_STONES} to {MAX_STONES}"),
                    });
                }
            },
        };
        let up_to = match variant.value("up-to") {
            None => None,
            Some(text) => Some(Class::parse(text).ok_or_else(|| VariantError::Invalid {
                setting: "up-to",
                value: text.to_string(),
                expected: format!("expected A-B with A and B in {MIN_STONES}..{MAX_STONES}"),
            })?),
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
                     classes up to {k}-{k} (without --stones, --up-to {class} names the classes of the 9-stone game)"
                ),
            });
        }
        let opening = up_to.is_none() && !variant.has("no-opening");
        Ok(MorrisGame { stones: stones.unwrap_or(MAX_STONES as u8), up_to, opening })
    }

    fn variant(&self) -> Variant {
        match (self.up_to, self.opening) {
            (Some(class), _) => Variant::of(GAME).switch("no-opening").with("up-to", class),
            (None, false) => Variant::of(GAME).with("stones", self.stones).switch("no-opening"),
            (None, true) => Variant::of(GAME).with("stones", self.stones),
        }
    }

    fn catalogue(&self, _dir: &Path, _purpose: Purpose) -> Result<MorrisTables, VariantError> {
        Ok(self.tables())
    }

    fn tablebase(&self, dir: &Path, _search_seconds: Option<f64>) -> MorrisTablebase {
        MorrisTablebase::open(dir, self.stones)
    }

    fn start(&self) -> String {
        format!("W: B: w {0} {0}", self.stones)
    }

    fn title(&self) -> String {
        match self.stones {
            9 => Self::NAME.to_string(),
            k => format!("Morris with {k} stones each"),
        }
    }

    /// Each game whose opening has its first table in `dir`; where no opening is, the moving
    /// phase up to the largest class there.
    fn present(dir: &Path) -> Vec<MorrisGame> {
        let names = file_names(dir);
        let mut games: Vec<MorrisGame> = (MIN_STONES..=MAX_STONES)
            .rev()
            .filter(|k| names.iter().any(|n| *n == format!("{GAME}-opening{k}-ply00.tbl")))
            .map(|k| MorrisGame::new(k as u8))
            .collect();
        if games.is_empty() {
            let largest = names
                .iter()
                .filter_map(|n| Class::parse(n.strip_prefix("morris-")?.strip_suffix(".tbl")?))
                .max_by_key(|c| (c.mover + c.other, c.mover));
            if let Some(class) = largest {
                games.push(MorrisGame { stones: MAX_STONES as u8, up_to: Some(class), opening: false });
            }
        }
        games
    }

    fn small() -> MorrisGame {
        MorrisGame::new(3)
    }

    /// The classes as a heat map of their outcomes.
    fn charts(&self, dir: &Path) -> Result<Vec<(String, String)>, PlotError> {
        let tables = self.tables();
        let rows = crate::catalogue::info(&tables, dir);
        let classes: Vec<(u32, u32, crate::table::Counts)> = tables
            .keys()
            .into_iter()
            .zip(&rows)
            .filter_map(|(key, row)| match key {
                crate::catalogue::Link::First(class) => Some((class.mover, class.other, *row.counts()?)),
                crate::catalogue::Link::Second(_) => None,
            })
            .collect();
        if classes.is_empty() {
            return Ok(Vec::new());
        }
        Ok(vec![("morris-classes.svg".to_string(), crate::picture::class_heat_map(&classes)?)])
    }
}

/// The names of the files in `dir` (none when it cannot be read).
pub(crate) fn file_names(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .map(|entries| entries.filter_map(|e| e.ok()?.file_name().into_string().ok()).collect())
        .unwrap_or_default()
}
