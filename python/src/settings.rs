//! Keyword arguments as the command line's settings: `stones=3` is `--stones 3`,
//! `book_plies=6` is `--book-plies 6`, `no_opening=True` the switch `--no-opening`.

use engine::catalogue::Variant;
use engine::game::Purpose;
use engine::games::{About, GAMES};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyDict};
use std::path::PathBuf;

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

/// The table directory `dir=` names, as `open()` takes paths: a str, bytes or an `os.PathLike`
/// (`pathlib.Path`); `"tables"` when not given.
pub fn directory(dir: Option<&Bound<'_, PyAny>>) -> PyResult<PathBuf> {
    let Some(dir) = dir.filter(|d| !d.is_none()) else { return Ok(PathBuf::from("tables")) };
    // As bytes, the file system's encoding applied as Python applies it: a name that is not
    // UTF-8 (a str with surrogate escapes, as os.listdir gives it) is the same file here.
    let path = dir.py().import("os")?.call_method1("fsencode", (dir,)).map_err(|_| {
        PyTypeError::new_err(format!("dir: expected str, bytes or os.PathLike, not {}", type_name(dir)))
    })?;
    let bytes = path.cast::<PyBytes>().map_err(|_| PyTypeError::new_err("dir: os.fsencode gave no bytes"))?;
    Ok(path_of_bytes(bytes.as_bytes()))
}

#[cfg(unix)]
fn path_of_bytes(bytes: &[u8]) -> PathBuf {
    use std::os::unix::ffi::OsStrExt;
    PathBuf::from(std::ffi::OsStr::from_bytes(bytes))
}

#[cfg(not(unix))]
fn path_of_bytes(bytes: &[u8]) -> PathBuf {
    PathBuf::from(String::from_utf8_lossy(bytes).into_owned())
}

/// The name of `value`'s type, for messages: `int`.
pub fn type_name(value: &Bound<'_, PyAny>) -> String {
    value.get_type().name().map_or_else(|_| "an object".to_string(), |n| n.to_string())
}

/// A message of the library's in the package's words: its command line flags (`--up-to 5-5`)
/// as the keywords that set them (`up_to 5-5`).
pub fn keywords(message: &str) -> String {
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
    while let Some(at) = rest.find("--") {
        let (before, flag) = rest.split_at(at);
        out.push_str(before);
        let name_len =
            flag[2..].find(|c: char| !(c.is_ascii_lowercase() || c == '-')).unwrap_or(flag.len() - 2);
        let name = &flag[2..2 + name_len];
        match name.starts_with(|c: char| c.is_ascii_lowercase()) {
            true => out.push_str(&name.replace('-', "_")),
            false => out.push_str("--"),
        }
        rest = &flag[2 + name_len..];
    }
    out.push_str(rest);
    out
}
