//! Which tables: a game and the settings that name its variant. The library names tables this
//! way and no other; the command line spells a variant as flags (`--stones 9`), the page as
//! query parameters (`stones=9`).

use serde::ser::{Serialize, SerializeMap, Serializer};
use std::fmt;

/// A game's key and the settings that name a variant of its tables, in the order a person
/// writes them: `morris` with `stones 9`; `connect4` with `size 7x6` and `book-plies 8`; a
/// setting without a value is a switch (`no-opening`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Variant {
    /// The game's key (`morris`, `connect4`).
    pub game: &'static str,
    /// Each setting's name and value, `None` for a switch.
    pub settings: Vec<(&'static str, Option<String>)>,
}

impl Variant {
    /// The game `game` with no settings yet.
    pub fn of(game: &'static str) -> Variant {
        Variant { game, settings: Vec::new() }
    }

    /// The variant with `name` set to `value`.
    pub fn with(mut self, name: &'static str, value: impl fmt::Display) -> Variant {
        self.settings.push((name, Some(value.to_string())));
        self
    }

    /// The variant with the switch `name` on.
    pub fn switch(mut self, name: &'static str) -> Variant {
        self.settings.push((name, None));
        self
    }

    /// The value of `name`, when set.
    pub fn value(&self, name: &str) -> Option<&str> {
        self.settings.iter().find(|(n, _)| *n == name).and_then(|(_, v)| v.as_deref())
    }

    /// The settings alone, serialized as one object: `{"size": "7x6", "book-plies": "8"}`, a
    /// switch `true`. What tells rows of `info --json` and `verify --json` of different
    /// variants apart.
    pub fn settings(&self) -> Settings<'_> {
        Settings(self)
    }

    /// The settings serialized as [`Variant::settings`] does: for a field of a report that
    /// derives `Serialize`, `#[serde(serialize_with = "Variant::serialize_settings")]`.
    pub fn serialize_settings<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.settings().serialize(serializer)
    }

    /// Whether `name` is given (a switch that is on, or a setting with a value).
    pub fn has(&self, name: &str) -> bool {
        self.settings.iter().any(|(n, _)| *n == name)
    }
}

/// `morris stones=9`, `connect4 size=7x6 book-plies=8`: for logs and messages.
impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.game)?;
        for (name, value) in &self.settings {
            match value {
                Some(value) => write!(f, " {name}={value}")?,
                None => write!(f, " {name}")?,
            }
        }
        Ok(())
    }
}

/// A variant's settings as one map, name to value (a switch `true`): [`Variant::settings`].
#[derive(Clone, Copy, Debug)]
pub struct Settings<'a>(&'a Variant);

impl Serialize for Settings<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.settings.len()))?;
        for (name, value) in &self.0.settings {
            match value {
                Some(value) => map.serialize_entry(name, value)?,
                None => map.serialize_entry(name, &true)?,
            }
        }
        map.end()
    }
}
