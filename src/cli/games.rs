//! The game subcommands, derived from the registry: `tablebase COMMAND GAME [FLAGS]`, where the
//! command's own flags are defined once ([`CommandArgs`]) and each game adds its settings
//! (`--stones`, `--size`) and the values of `--side`.

use clap::builder::PossibleValuesParser;
use clap::error::ErrorKind;
use clap::{ArgAction, ArgMatches, Args, FromArgMatches, Subcommand};
use tablebase::catalogue::Variant;
use tablebase::game::{Game, Purpose};
use tablebase::games::{About, GAMES};

/// The flags a command takes for every game.
pub trait CommandArgs: Args {
    /// The command, as the games' settings name it.
    const PURPOSE: Purpose;

    /// Adapts the command's flags to `game` (what a position looks like, the names of its
    /// sides).
    fn for_game(command: clap::Command, _game: &About) -> clap::Command {
        command
    }
}

/// A command for one game: the game, the variant its settings name, and the command's flags.
pub struct OnGame<A> {
    /// The game, from the registry.
    pub game: &'static About,
    /// Its settings as given (checked by the game).
    pub variant: Variant,
    /// The command's own flags.
    pub args: A,
}

/// The subcommand of `game` for a command with flags `A`.
fn game_command<A: CommandArgs>(game: &About) -> clap::Command {
    // After `augment_args`: the derived flags would put their struct's doc comment in its place.
    let mut command = A::augment_args(clap::Command::new(game.key)).about(format!("{}.", game.name));
    for setting in game.settings.iter().filter(|s| s.applies(A::PURPOSE)) {
        let arg = clap::Arg::new(setting.name).long(setting.name).help(setting.help);
        command = command.arg(match setting.value {
            Some(value) => arg.value_name(value).required(setting.required).action(ArgAction::Set),
            None => arg.action(ArgAction::SetTrue),
        });
    }
    A::for_game(command, game)
}

impl<A: CommandArgs> FromArgMatches for OnGame<A> {
    fn from_arg_matches(matches: &ArgMatches) -> Result<Self, clap::Error> {
        let Some((name, matches)) = matches.subcommand() else {
            return Err(clap::Error::raw(ErrorKind::MissingSubcommand, "a game is missing"));
        };
        let game = GAMES
            .iter()
            .find(|g| g.key == name)
            .ok_or_else(|| clap::Error::raw(ErrorKind::InvalidSubcommand, format!("no game '{name}'")))?;
        let args = A::from_arg_matches(matches)?;
        let mut variant = Variant::of(game.key);
        for setting in game.settings.iter().filter(|s| s.applies(A::PURPOSE)) {
            match setting.value {
                Some(_) => {
                    if let Some(value) = matches.get_one::<String>(setting.name) {
                        variant = variant.with(setting.name, value);
                    }
                }
                None => {
                    if matches.get_flag(setting.name) {
                        variant = variant.switch(setting.name);
                    }
                }
            }
        }
        Ok(OnGame { game, variant, args })
    }

    fn update_from_arg_matches(&mut self, matches: &ArgMatches) -> Result<(), clap::Error> {
        *self = OnGame::from_arg_matches(matches)?;
        Ok(())
    }
}

impl<A: CommandArgs> Subcommand for OnGame<A> {
    fn augment_subcommands(command: clap::Command) -> clap::Command {
        GAMES.iter().fold(command, |command, game| command.subcommand(game_command::<A>(game)))
    }

    fn augment_subcommands_for_update(command: clap::Command) -> clap::Command {
        OnGame::<A>::augment_subcommands(command)
    }

    fn has_subcommand(name: &str) -> bool {
        GAMES.iter().any(|g| g.key == name)
    }
}

/// `--side` takes the game's names of its sides, the first by default.
pub fn sides(command: clap::Command, game: &About) -> clap::Command {
    command.mut_arg("side", |arg| {
        arg.value_parser(PossibleValuesParser::new(game.sides)).default_value(game.sides[0])
    })
}

/// The settings of `variant`, a variant of `G`, that a probe takes, as `probe` and the page name
/// it: what else names its tables (a Connect Four book's `--book-plies`, Morris's `--up-to`) a
/// probe reads from the directory.
pub fn as_probed<G: Game>(variant: &Variant) -> Variant {
    let mut probed = Variant::of(G::KEY);
    probed.settings = variant
        .settings
        .iter()
        .filter(|(name, _)| G::SETTINGS.iter().any(|s| s.name == *name && s.applies(Purpose::Probe)))
        .cloned()
        .collect();
    probed
}
