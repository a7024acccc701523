//! `tablebase.games()`: the registry, every game with its settings.

use engine::game::Purpose;
use engine::games::GAMES;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

/// A purpose as the command line's command is named.
fn command(purpose: Purpose) -> &'static str {
    match purpose {
        Purpose::Generate => "generate",
        Purpose::Verify => "verify",
        Purpose::Info => "info",
        Purpose::Probe => "probe",
        Purpose::Play => "play",
    }
}

/// Every game of the registry, in the order the command line lists them: a dict each with its
/// `key` (what `open` and `generate` take), `name`, `sides`, what its `positions` look like, and
/// its `settings` (each with its `name` as a keyword, the `value` it takes or None for a switch,
/// `help`, the `commands` that take it and whether it is `required`).
#[pyfunction]
pub fn games(py: Python<'_>) -> PyResult<Bound<'_, PyList>> {
    let mut list = Vec::with_capacity(GAMES.len());
    for game in GAMES {
        let settings = PyList::empty(py);
        for setting in game.settings {
            let entry = PyDict::new(py);
            entry.set_item("name", setting.name.replace('-', "_"))?;
            entry.set_item("value", setting.value)?;
            entry.set_item("help", setting.help)?;
            let commands: Vec<&str> = setting.purposes.iter().map(|p| command(*p)).collect();
            entry.set_item("commands", commands)?;
            entry.set_item("required", setting.required)?;
            settings.append(entry)?;
        }
        let entry = PyDict::new(py);
        entry.set_item("key", game.key)?;
        entry.set_item("name", game.name)?;
        entry.set_item("sides", game.sides.to_vec())?;
        entry.set_item("positions", game.positions)?;
        entry.set_item("settings", settings)?;
        list.push(entry);
    }
    PyList::new(py, list)
}
