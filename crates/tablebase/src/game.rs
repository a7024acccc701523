//! What a game gives the registry, so that every command, the page and the pictures work for it
//! without naming it: its key and name, the settings that choose a variant of its tables, its
//! catalogue (what `generate`, `verify` and `info` work on), its tablebase (what `probe`,
//! `play` and `serve` ask), where it starts, and which of its variants are on disk.
//!
//! A game implements [`Game`] in its folder and adds one line to the registry
//! (`crates/tablebase/src/games/mod.rs`); docs/ARCHITECTURE.md walks through it for tic-tac-toe.

use crate::catalogue::{Catalogue, Variant};
use crate::picture::{Chart, Draw};
use crate::play::Play;
use std::fmt;
use std::path::Path;

/// What a setting is used for: the commands that take it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Purpose {
    /// Building tables.
    Generate,
    /// Checking tables.
    Verify,
    /// Listing tables.
    Info,
    /// Probing positions, also on the page.
    Probe,
    /// Playing against the perfect player.
    Play,
}

/// A setting of a game's variant, as the command line (`--stones K`) and the page (`stones=9`)
/// take it.
#[derive(Clone, Copy, Debug)]
pub struct Setting {
    /// Its name: the flag without `--`, the query parameter.
    pub name: &'static str,
    /// What its value looks like in help (`K`, `WxH`); `None` for a switch that takes none.
    pub value: Option<&'static str>,
    /// One sentence for help.
    pub help: &'static str,
    /// The commands that take it.
    pub purposes: &'static [Purpose],
    /// Whether every command that takes it needs it.
    pub required: bool,
}

impl Setting {
    /// Whether a command for `purpose` takes this setting.
    pub fn applies(&self, purpose: Purpose) -> bool {
        self.purposes.contains(&purpose)
    }
}

/// Why settings name no variant of a game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum VariantError {
    /// A required setting is not given.
    Missing {
        /// The setting.
        setting: &'static str,
        /// An example of a value.
        example: &'static str,
    },
    /// A setting's value is not one the game takes.
    Invalid {
        /// The setting.
        setting: &'static str,
        /// The value given.
        value: String,
        /// What the game takes.
        expected: String,
    },
    /// Settings that contradict each other.
    Contradiction {
        /// The settings, first as given.
        settings: [&'static str; 2],
        /// Why they contradict each other.
        why: String,
    },
    /// The tables to check or list are not on disk in a form this variant can name (a Connect
    /// Four board too large to tabulate, without its opening book).
    NotOnDisk {
        /// The variant that would generate them; `value` stands in for a value the user chooses.
        generate: Variant,
        /// What is missing.
        what: String,
    },
    /// A file the variant's tables are made with cannot be used (a damaged proof journal).
    Unusable {
        /// What is wrong, naming the file.
        what: String,
    },
}

impl fmt::Display for VariantError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            VariantError::Missing { setting, example } => {
                write!(f, "{setting}: missing (for example {example})")
            }
            VariantError::Invalid { setting, value, expected } => {
                write!(f, "{setting} '{value}': {expected}")
            }
            VariantError::Contradiction { why, .. } => write!(f, "{why}"),
            VariantError::NotOnDisk { what, .. } => write!(f, "{what}"),
            VariantError::Unusable { what } => write!(f, "{what}"),
        }
    }
}

impl std::error::Error for VariantError {}

/// A game as the commands, the page and the registry see it. The implementing type is one
/// variant of the game: its settings parsed (the 5-stone Morris game, Connect Four 6x5).
pub trait Game: Sized + Send + Sync + 'static {
    /// The key: the subcommand (`tablebase probe morris`), the page's `game=`, the first word of
    /// its table files' names.
    const KEY: &'static str;
    /// The name for people: `Nine Men's Morris`.
    const NAME: &'static str;
    /// Every setting the game takes, in the order help lists them.
    const SETTINGS: &'static [Setting];
    /// The sides as `play --side` names them, the side that starts first.
    const SIDES: [&'static str; 2];
    /// What a position looks like, for help: quoted examples of the notation.
    const POSITIONS: &'static str;

    /// The tables `generate`, `verify` and `info` work on.
    type Catalogue: Catalogue;
    /// The tables `probe`, `play` and the page ask, opened lazily.
    type Tablebase: Play + Draw + Send + Sync + 'static;

    /// The variant that `variant`'s settings name, for a command for `purpose` (settings the
    /// command does not take are absent). An error names the setting and what it takes.
    fn from_variant(variant: &Variant, purpose: Purpose) -> Result<Self, VariantError>;
    /// The settings that name this variant's tables, as `from_variant` reads them back.
    fn variant(&self) -> Variant;
    /// The tables a command for `purpose` works on: those `generate` builds, or those `verify`
    /// and `info` find in `dir`.
    fn catalogue(&self, dir: &Path, purpose: Purpose) -> Result<Self::Catalogue, VariantError>;
    /// The tables in `dir` for probing; a position past them that the game solves by search
    /// gives up after `search_seconds`.
    fn tablebase(&self, dir: &Path, search_seconds: Option<f64>) -> Self::Tablebase;
    /// The starting position, in the notation the tablebase parses.
    fn start(&self) -> String;
    /// The variant's title for people: `Nine Men's Morris`, `Connect Four 6x5`.
    fn title(&self) -> String;
    /// The variants whose tables are in `dir` (whole or in part), the largest first.
    fn present(dir: &Path) -> Vec<Self>;
    /// A variant small enough to generate in seconds, for a newcomer's first tables; `None` for
    /// a game with none (probed by search, its tables take hours).
    fn small() -> Option<Self>;
    /// Charts beyond those every table gets (`info --plot`), from the tables in `dir`.
    fn charts(&self, _dir: &Path) -> Vec<Chart> {
        Vec::new()
    }
}
