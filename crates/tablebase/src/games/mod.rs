//! The registry: every game, named once, in the `registry!` line below. The command line's
//! game subcommands, the page's games and `info`/`verify` over a whole directory are all
//! derived from it. A game is a folder here that implements [`Game`]; adding one is adding its
//! folder and its line (docs/ARCHITECTURE.md, "Adding a game").

use crate::game::{Game, Setting};

/// What the command line and the page show of a game before any of its variants is chosen.
#[derive(Clone, Copy, Debug)]
pub struct About {
    /// [`Game::KEY`].
    pub key: &'static str,
    /// [`Game::NAME`].
    pub name: &'static str,
    /// [`Game::SETTINGS`].
    pub settings: &'static [Setting],
    /// [`Game::SIDES`].
    pub sides: [&'static str; 2],
    /// [`Game::POSITIONS`].
    pub positions: &'static str,
}

impl About {
    const fn of<G: Game>() -> About {
        About { key: G::KEY, name: G::NAME, settings: G::SETTINGS, sides: G::SIDES, positions: G::POSITIONS }
    }
}

/// Work to do with one game's type: the registry calls [`run`](ForGame::run) with the game a key
/// names, so that generic code runs for a game chosen at run time.
pub trait ForGame {
    /// What the work gives.
    type Output;
    /// Does the work for game `G`.
    fn run<G: Game>(self) -> Self::Output;
}

macro_rules! registry {
    ($($module:ident :: { $($game:ident),+ }),+ $(,)?) => {
        $(pub mod $module;)+

        /// Every game, in the order help and the page list them.
        pub const GAMES: &[About] = &[$($(About::of::<$module::$game>()),+),+];

        /// Runs `work` for the game whose key is `key`; `None` for a key no game has.
        pub fn with_game<W: ForGame>(key: &str, work: W) -> Option<W::Output> {
            $($(
                if key == <$module::$game as Game>::KEY {
                    return Some(work.run::<$module::$game>());
                }
            )+)+
            None
        }
    };
}

registry! {
    morris::{MorrisGame, MorabarabaGame, LaskerGame},
    connect4::{Connect4Game},
    tictactoe::{TicTacToeGame},
    cube::{QubicGame, SogoGame},
}
