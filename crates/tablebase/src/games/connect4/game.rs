//! Connect Four in the registry: its settings (`--size`, `--book-plies`), the tables each
//! command works on, and which boards are on disk.

use super::board::Geometry;
use super::catalogue::{Connect4, GAME};
use super::probe::Connect4Tablebase;
use crate::catalogue::Variant;
use crate::game::{Game, Purpose, Setting, VariantError};
use crate::layered::Layered;
use std::path::Path;

/// Connect Four on one board: full tables, or an opening book of its first plies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Connect4Game {
    /// The board.
    pub size: Geometry,
    /// Build an opening book of plies 0 to N instead of full tables.
    pub book_plies: Option<u32>,
}

use Purpose::{Generate, Info, Play, Probe, Verify};

impl Game for Connect4Game {
    const KEY: &'static str = GAME;
    const NAME: &'static str = super::catalogue::NAME;
    const SETTINGS: &'static [Setting] = &[
        Setting {
            name: "size",
            value: Some("WxH"),
            help: "Board size, columns x rows (7x6 is the standard board).",
            purposes: &[Generate, Verify, Info, Probe, Play],
            required: true,
        },
        Setting {
            name: "book-plies",
            value: Some("N"),
            help: "An opening book for a board too large to tabulate (7x6): the tables of plies 0 to N only, \
                   ply N solved by search; probe solves later positions by search.",
            purposes: &[Generate],
            required: false,
        },
    ];
    const SIDES: [&'static str; 2] = ["first", "second"];
    const POSITIONS: &'static str = "the columns played from the empty board (\"4453\"; \"\" is the empty board)";

    type Catalogue = Layered<Connect4>;
    type Tablebase = Connect4Tablebase;

    fn from_variant(variant: &Variant, _purpose: Purpose) -> Result<Connect4Game, VariantError> {
        const MOST_COLUMNS: u32 = 9;
        let text = variant.value("size").ok_or(VariantError::Missing { setting: "size", example: "7x6" })?;
        let size = Geometry::parse(text).map_err(|e| VariantError::Invalid {
            setting: "size",
            value: text.to_string(),
            expected: e.to_string(),
        })?;
        // Positions are written one digit a column, so a board of 10 to 12 columns could be
        // generated but never probed: refused before any work.
        if size.width > MOST_COLUMNS {
            return Err(VariantError::Invalid {
                setting: "size",
                value: text.to_string(),
                expected: format!(
                    "at most {MOST_COLUMNS} columns (a position is written as the columns played, 1 to {MOST_COLUMNS}, one digit each)"
                ),
            });
        }
        let book_plies = match variant.value("book-plies") {
            None => None,
            Some(text) => match text.trim().parse::<u32>() {
                Ok(n) if n <= size.cells() => Some(n),
                _ => {
                    return Err(VariantError::Invalid {
                        setting: "book-plies",
                        value: text.to_string(),
                        expected: format!("the {size} board has plies 0 to {}", size.cells()),
                    });
                }
            },
        };
        Ok(Connect4Game { size, book_plies })
    }

    fn variant(&self) -> Variant {
        let variant = Variant::of(GAME).with("size", self.size);
        match self.book_plies {
            Some(n) => variant.with("book-plies", n),
            None => variant,
        }
    }

    /// For `generate`, the tables or the book asked for; for the others, the opening book on
    /// disk, or else every ply of a board the project tabulates.
    fn catalogue(&self, dir: &Path, purpose: Purpose) -> Result<Layered<Connect4>, VariantError> {
        let g = self.size;
        match (purpose, self.book_plies) {
            (Generate, Some(n)) => Ok(Connect4::book(g, n)),
            (Generate, None) => Ok(Connect4::tables(g)),
            _ => Connect4::on_disk(g, dir).ok_or_else(|| VariantError::NotOnDisk {
                generate: Variant::of(GAME).with("size", g).with("book-plies", "N"),
                what: format!(
                    "{}: no opening book of the {g} board (a board this large has a book of its first plies, not full tables)",
                    dir.display()
                ),
            }),
        }
    }

    fn tablebase(&self, dir: &Path, search_seconds: Option<f64>) -> Connect4Tablebase {
        Connect4Tablebase::open(dir, self.size).with_max_time(search_seconds)
    }

    fn start(&self) -> String {
        String::new()
    }

    fn title(&self) -> String {
        format!("{} {}", Self::NAME, self.size)
    }

    /// Each board with a set or table in `dir`, finished or not: full tables or an opening
    /// book (a build stopped before its ply 0, the last table it writes, is that board's, half
    /// made), the most cells first.
    fn present(dir: &Path) -> Vec<Connect4Game> {
        let mut sizes: Vec<Geometry> = crate::table::file_names(dir)
            .iter()
            .filter_map(|n| {
                let (size, ply) = crate::table::final_name(n).strip_prefix("connect4-")?.split_once("-ply")?;
                let ply = ply.strip_suffix(".tbl").or_else(|| ply.strip_suffix(".set"))?;
                (ply.len() == 2 && ply.bytes().all(|b| b.is_ascii_digit())).then(|| Geometry::parse(size))
            })
            .filter_map(Result::ok)
            .collect();
        sizes.sort_by_key(|g| std::cmp::Reverse((g.cells(), g.width)));
        sizes.dedup();
        sizes.into_iter().map(|size| Connect4Game { size, book_plies: None }).collect()
    }

    fn small() -> Option<Connect4Game> {
        Some(Connect4Game { size: Geometry::new(5, 4).expect("5x4 is a board"), book_plies: None })
    }
}
