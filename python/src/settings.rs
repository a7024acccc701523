//! Keyword arguments as the command line's settings: `stones=3` is `--stones 3`,
//! `book_plies=6` is `--book-plies 6`, `no_opening=True` the switch `--no-opening`.

use engine::catalogue::Variant;
use engine::game::Purpose;
use engine::games::{About, GAMES};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict};

/// The registry's entry for `key`, or a `ValueError` listing the keys.
pub fn game(key: &str) -> PyResult<&'static About> {
    GAMES.iter().find(|g| g.key == key).ok_or_else(|| {
        let keys: Vec<&str> = GAMES.iter().map(|g| g.key).collect();
        PyValueError::new_err(format!("no game '{key}' (the games: {})", keys.join(", ")))
    })
}

/// The variant of `game` that `settings` name for a command for `purpose`. A setting of the game
/// that this command does not take (`book_plies` when probing) is left out, so that one dict of
/// settings serves `generate`, `open` and `verify` alike; a name the game has no setting of is an
/// error.
pub fn variant(game: &About, settings: Option<&Bound<'_, PyDict>>, purpose: Purpose) -> PyResult<Variant> {
    let mut variant = Variant::of(game.key);
    let Some(settings) = settings else { return Ok(variant) };
    for (name, value) in settings.iter() {
        let name: String = name.extract()?;
        let flag = name.replace('_', "-");
        let Some(setting) = game.settings.iter().find(|s| s.name == flag) else {
            let known: Vec<String> = game.settings.iter().map(|s| s.name.replace('-', "_")).collect();
            return Err(PyValueError::new_err(format!(
                "{} takes no setting '{name}' (its settings: {})",
                game.key,
                if known.is_empty() { "none".to_string() } else { known.join(", ") }
            )));
        };
        if !setting.applies(purpose) {
            continue;
        }
        let is_bool = value.is_instance_of::<PyBool>();
        match setting.value {
            None if is_bool => {
                if value.extract::<bool>()? {
                    variant = variant.switch(setting.name);
                }
            }
            None => return Err(PyValueError::new_err(format!("{name}: a switch, True or False"))),
            Some(_) if is_bool || value.is_none() => {
                return Err(PyValueError::new_err(format!(
                    "{name}: takes a value ({}), not {}",
                    setting.value.unwrap_or("a value"),
                    value.repr()?
                )));
            }
            Some(_) => variant = variant.with(setting.name, value.str()?.to_string()),
        }
    }
    Ok(variant)
}
