//! The dicts of `probe --json`'s lines, made by the million: `probe_many` of 100,000 Morris 3:3
//! positions makes 5.4 million, one a move, all on the one thread that holds the GIL while the
//! workers answer the next positions. Made as CPython's own `{...}` display makes them: every
//! key, word and small number an object made once a batch, each item set by one call that takes
//! its own reference, and the same move's name one string wherever it comes back.

use crate::session::Answer;
use engine::Value;
use pyo3::ffi;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// Makes the dicts of one call: the objects every dict shares, made once.
pub struct Dicts<'py> {
    py: Python<'py>,
    keys: Keys<'py>,
    words: Words<'py>,
    /// Distances in plies, made as they come: a game's few hundred numbers.
    plies: Vec<Option<Bound<'py, PyAny>>>,
    names: MoveNames<'py>,
}

struct Keys<'py> {
    position: Bound<'py, PyString>,
    value: Bound<'py, PyString>,
    plies: Bound<'py, PyString>,
    distance: Bound<'py, PyString>,
    moves: Bound<'py, PyString>,
    mv: Bound<'py, PyString>,
    line: Bound<'py, PyString>,
    error: Bound<'py, PyString>,
}

struct Words<'py> {
    win: Bound<'py, PyString>,
    loss: Bound<'py, PyString>,
    draw: Bound<'py, PyString>,
    unknown: Bound<'py, PyString>,
    none: Bound<'py, PyAny>,
}

impl<'py> Dicts<'py> {
    /// Distances past this get a number object of their own each time.
    const PLIES_KEPT: u32 = 4096;

    pub fn new(py: Python<'py>) -> Self {
        // Interned once a process (`intern!`): `probe` makes a `Dicts` for each position.
        Dicts {
            py,
            keys: Keys {
                position: intern!(py, "position").clone(),
                value: intern!(py, "value").clone(),
                plies: intern!(py, "plies").clone(),
                distance: intern!(py, "distance").clone(),
                moves: intern!(py, "moves").clone(),
                mv: intern!(py, "move").clone(),
                line: intern!(py, "line").clone(),
                error: intern!(py, "error").clone(),
            },
            words: Words {
                win: intern!(py, "win").clone(),
                loss: intern!(py, "loss").clone(),
                draw: intern!(py, "draw").clone(),
                unknown: intern!(py, "unknown").clone(),
                none: py.None().into_bound(py),
            },
            plies: Vec::new(),
            names: MoveNames::default(),
        }
    }

    /// The dict of one line of `probe --json`, its keys in the command line's order.
    pub fn answer(&mut self, answer: &Answer) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(self.py);
        set(&dict, &self.keys.position, &PyString::new(self.py, &answer.position))?;
        self.value_items(&dict, answer.value)?;
        let moves = answer.moves();
        let list = new_list(self.py, moves.len())?;
        for (at, (mv, value)) in moves.enumerate() {
            let entry = PyDict::new(self.py);
            let name = self.names.name(self.py, mv);
            set(&entry, &self.keys.mv, &name)?;
            self.value_items(&entry, value)?;
            // SAFETY: `list` was made with this many places, each filled once; PyList_SetItem
            // takes the reference `into_ptr` gives up.
            unsafe { ffi::PyList_SetItem(list.as_ptr(), at as ffi::Py_ssize_t, entry.into_ptr()) };
        }
        set(&dict, &self.keys.moves, &list)?;
        if let Some(line) = &answer.line {
            set(&dict, &self.keys.line, &PyList::new(self.py, line)?)?;
        }
        Ok(dict)
    }

    /// The dict of one line of `probe --brief --json`: the position and its value alone.
    pub fn value(&mut self, position: &str, value: Value) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(self.py);
        set(&dict, &self.keys.position, &PyString::new(self.py, position))?;
        self.value_items(&dict, Some(value))?;
        Ok(dict)
    }

    /// The dict `probe --json -` prints for a line it cannot answer.
    pub fn error(&mut self, position: &str, error: &str) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(self.py);
        set(&dict, &self.keys.position, &PyString::new(self.py, position))?;
        set(&dict, &self.keys.error, &PyString::new(self.py, error))?;
        Ok(dict)
    }

    /// A value's `value` and `plies` items, and `distance: "unknown"` where a win or loss is
    /// proved without its distance (`plies` is then None: a distance is never invented);
    /// `"unknown"` and None where it was not settled within the time limit.
    fn value_items(&mut self, dict: &Bound<'py, PyDict>, value: Option<Value>) -> PyResult<()> {
        let Some(value) = value else {
            set(dict, &self.keys.value, &self.words.unknown)?;
            return set(dict, &self.keys.plies, &self.words.none);
        };
        let word = match value {
            Value::Win(_) | Value::WinUnknown => &self.words.win,
            Value::Loss(_) | Value::LossUnknown => &self.words.loss,
            Value::Draw => &self.words.draw,
        };
        set(dict, &self.keys.value, word)?;
        match value.distance() {
            Some(plies) => {
                let number = self.plies(plies);
                set(dict, &self.keys.plies, &number)?;
            }
            None => set(dict, &self.keys.plies, &self.words.none)?,
        }
        if value.distance_unknown() {
            set(dict, &self.keys.distance, &self.words.unknown)?;
        }
        Ok(())
    }

    fn plies(&mut self, plies: u32) -> Bound<'py, PyAny> {
        let number = || plies.into_pyobject(self.py).expect("a number is made").into_any();
        if plies >= Self::PLIES_KEPT {
            return number();
        }
        let at = plies as usize;
        if self.plies.len() <= at {
            self.plies.resize(at + 1, None);
        }
        self.plies[at].get_or_insert_with(number).clone()
    }
}

/// `dict[key] = value`, the dict taking its own references.
fn set<T>(dict: &Bound<'_, PyDict>, key: &Bound<'_, PyString>, value: &Bound<'_, T>) -> PyResult<()> {
    // SAFETY: three live objects of the GIL's holder; PyDict_SetItem borrows them and takes
    // references of its own.
    match unsafe { ffi::PyDict_SetItem(dict.as_ptr(), key.as_ptr(), value.as_ptr()) } {
        0 => Ok(()),
        _ => Err(PyErr::fetch(dict.py())),
    }
}

/// A list of `len` places, each to be filled once by PyList_SetItem before Python sees it.
fn new_list(py: Python<'_>, len: usize) -> PyResult<Bound<'_, PyList>> {
    // SAFETY: PyList_New returns a new reference or null with an exception set.
    let list = unsafe { Bound::from_owned_ptr_or_err(py, ffi::PyList_New(len as ffi::Py_ssize_t))? };
    Ok(list.cast_into::<PyList>()?)
}

/// The Python strings of the moves a batch has named so far: the same few thousand moves come
/// back millions of times in a batch, and a new string for each would cost more memory and time
/// than the dict that holds it. Keyed by the name's bytes packed in a number, for a hash of one
/// multiplication.
#[derive(Default)]
struct MoveNames<'py> {
    known: HashMap<u128, Bound<'py, PyString>, BuildHasherDefault<PackedHasher>>,
}

impl<'py> MoveNames<'py> {
    /// More moves than any game has; past it, a batch's names are made one by one.
    const AT_MOST: usize = 1 << 16;

    fn name(&mut self, py: Python<'py>, text: &str) -> Bound<'py, PyString> {
        let Some(packed) = packed(text) else { return PyString::new(py, text) };
        if let Some(name) = self.known.get(&packed) {
            return name.clone();
        }
        let name = PyString::new(py, text);
        if self.known.len() < Self::AT_MOST {
            self.known.insert(packed, name.clone());
        }
        name
    }
}

/// A name of at most 15 bytes as one number: its bytes, and its length in the top byte, so that
/// no two names share one.
fn packed(text: &str) -> Option<u128> {
    let bytes = text.as_bytes();
    if bytes.len() > 15 {
        return None;
    }
    let mut word = [0u8; 16];
    word[..bytes.len()].copy_from_slice(bytes);
    word[15] = bytes.len() as u8;
    Some(u128::from_le_bytes(word))
}

/// Fibonacci hashing of a packed name.
#[derive(Default)]
struct PackedHasher(u64);

impl Hasher for PackedHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(byte)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }

    fn write_u128(&mut self, word: u128) {
        self.0 = ((word as u64) ^ (word >> 64) as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }

    fn finish(&self) -> u64 {
        // The high bits are the well-mixed ones; hashbrown takes its buckets from the low bits
        // and its tags from the top seven.
        self.0.rotate_left(32)
    }
}
