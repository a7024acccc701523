//! Tic-tac-toe in the registry: no settings, one set of tables.

use super::catalogue::{GAME, TicTacToe};
use super::probe::TicTacToeTablebase;
use crate::catalogue::Variant;
use crate::game::{Game, Purpose, Setting, VariantError};
use crate::layered::Layered;
use std::path::Path;

/// Tic-tac-toe: the game has one variant.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TicTacToeGame;

impl Game for TicTacToeGame {
    const KEY: &'static str = GAME;
    const NAME: &'static str = super::catalogue::NAME;
    const SETTINGS: &'static [Setting] = &[];
    const SIDES: [&'static str; 2] = ["first", "second"];
    const POSITIONS: &'static str = "the cells played from the empty board, a1..c3 (\"b2a1\"; \"\" is the empty board)";

    type Catalogue = Layered<TicTacToe>;
    type Tablebase = TicTacToeTablebase;

    fn from_variant(_variant: &Variant, _purpose: Purpose) -> Result<TicTacToeGame, VariantError> {
        Ok(TicTacToeGame)
    }

    fn variant(&self) -> Variant {
        Variant::of(GAME)
    }

    fn catalogue(&self, _dir: &Path, _purpose: Purpose) -> Result<Layered<TicTacToe>, VariantError> {
        Ok(Layered::new(TicTacToe))
    }

    fn tablebase(&self, dir: &Path, _search_seconds: Option<f64>) -> TicTacToeTablebase {
        TicTacToeTablebase::open(dir)
    }

    fn start(&self) -> String {
        String::new()
    }

    fn title(&self) -> String {
        Self::NAME.to_string()
    }

    fn present(dir: &Path) -> Vec<TicTacToeGame> {
        // Any ply's table, finished or not: a build stopped before its ply 0 (the last table it
        // writes) is there, half made.
        let names = crate::table::file_names(dir);
        let prefix = format!("{GAME}-ply");
        match names.iter().any(|n| crate::table::final_name(n).starts_with(&prefix)) {
            true => vec![TicTacToeGame],
            false => Vec::new(),
        }
    }

    fn small() -> Option<TicTacToeGame> {
        Some(TicTacToeGame)
    }
}
