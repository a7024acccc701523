//! The cube games in the registry: `qubic` and `sogo`, probed by search with no tables at all,
//! and an opening book of their first plies (`--book-plies N`) that answers those at once.

use super::catalogue::{CubeBook, MAX_BOOK_PLIES, key};
use super::probe::CubeTablebase;
use crate::catalogue::Variant;
use crate::game::{Game, Purpose, Setting, VariantError};
use crate::layered::Layered;
use std::path::Path;

/// A cube game: Qubic (`GRAVITY` false) or Sogo, and for `generate` the book's last ply.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CubeGame<const GRAVITY: bool> {
    /// The last ply of the opening book to generate.
    pub book_plies: Option<u32>,
}

/// Qubic: a stone on any empty cell of the cube.
pub type QubicGame = CubeGame<false>;
/// Sogo: a stone drops to the lowest empty cell of one of the 16 columns.
pub type SogoGame = CubeGame<true>;

use Purpose::Generate;

const BOOK_PLIES: &[Setting] = &[Setting {
    name: "book-plies",
    value: Some("N"),
    help: "The opening book to build: the tables of plies 0 to N (at most 6), ply N solved by proof; \
           probe answers every position without tables too, by search.",
    purposes: &[Generate],
    required: true,
}];

impl<const GRAVITY: bool> Game for CubeGame<GRAVITY> {
    const KEY: &'static str = key(GRAVITY);
    const NAME: &'static str = super::catalogue::name(GRAVITY);
    const SETTINGS: &'static [Setting] = BOOK_PLIES;
    const SIDES: [&'static str; 2] = ["white", "black"];
    const POSITIONS: &'static str = if GRAVITY {
        "the columns played from the empty cube, a1..d4 (\"a1b2a1\"; \"\" is the empty cube)"
    } else {
        "the cells played from the empty cube, a11..d44: column, row, height (\"a11d44\"; \"\" is the empty cube)"
    };

    type Catalogue = Layered<CubeBook<GRAVITY>>;
    type Tablebase = CubeTablebase<GRAVITY>;

    fn from_variant(variant: &Variant, _purpose: Purpose) -> Result<CubeGame<GRAVITY>, VariantError> {
        let book_plies = match variant.value("book-plies") {
            None => None,
            Some(text) => match text.trim().parse::<u32>() {
                Ok(n) if n <= MAX_BOOK_PLIES => Some(n),
                _ => {
                    return Err(VariantError::Invalid {
                        setting: "book-plies",
                        value: text.to_string(),
                        expected: format!("a book of plies 0 to N, N at most {MAX_BOOK_PLIES}"),
                    });
                }
            },
        };
        Ok(CubeGame { book_plies })
    }

    fn variant(&self) -> Variant {
        match self.book_plies {
            Some(n) => Variant::of(Self::KEY).with("book-plies", n),
            None => Variant::of(Self::KEY),
        }
    }

    /// For `generate`, the book asked for; for the others, the book on disk.
    fn catalogue(&self, dir: &Path, purpose: Purpose) -> Result<Layered<CubeBook<GRAVITY>>, VariantError> {
        let last = match purpose {
            Generate => self.book_plies,
            _ => CubeBook::<GRAVITY>::on_disk(dir),
        };
        if GRAVITY && purpose == Generate && let Some(last) = last {
            // Sogo's proofs are long: they are recorded as they go, and read back by the next
            // run. verify re-proves every value without them.
            let path = dir.join(super::sogo::JOURNAL_FILE);
            // A journal that cannot be read is refused, not passed over: hours of proofs would
            // go unrecorded, or what it holds be lost to a run that starts it anew.
            let journal = super::sogo::ProofJournal::open(&path)
                .map_err(|e| VariantError::Unusable { what: format!("{e} (the proofs' journal: mend it or move it away)") })?;
            return Ok(CubeBook::tables_with_journal(last, std::sync::Arc::new(journal)));
        }
        last.map(CubeBook::tables).ok_or_else(|| VariantError::NotOnDisk {
            generate: Variant::of(Self::KEY).with("book-plies", "N"),
            what: format!(
                "{}: no opening book of {} (its positions are probed by search; a book of its first plies answers those at once)",
                dir.display(),
                Self::NAME
            ),
        })
    }

    fn tablebase(&self, dir: &Path, search_seconds: Option<f64>) -> CubeTablebase<GRAVITY> {
        CubeTablebase::open(dir, search_seconds)
    }

    fn start(&self) -> String {
        String::new()
    }

    fn title(&self) -> String {
        Self::NAME.to_string()
    }

    fn present(dir: &Path) -> Vec<CubeGame<GRAVITY>> {
        match CubeBook::<GRAVITY>::on_disk(dir) {
            Some(last) => vec![CubeGame { book_plies: Some(last) }],
            None => Vec::new(),
        }
    }

    /// None: every book needs proofs of minutes to hours, and no table is needed to probe.
    fn small() -> Option<CubeGame<GRAVITY>> {
        None
    }
}
