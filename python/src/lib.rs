//! The Python module `tablebase`: the library's registry, probing, generation and checking for
//! notebooks and scripts. Every answer is what the command line prints in JSON (docs/CLI.md,
//! "JSON"), as Python dicts and lists; every failure is a Python exception whose message names
//! the file and the cause, never a crash of the interpreter.

mod dicts;
mod errors;
mod interrupt;
mod registry;
mod reports;
mod session;
mod settings;

use pyo3::prelude::*;

#[pymodule]
fn tablebase(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("TablebaseError", py.get_type::<errors::TablebaseError>())?;
    m.add("TableError", py.get_type::<errors::TableError>())?;
    m.add("SearchError", py.get_type::<errors::SearchError>())?;
    m.add_class::<session::Tablebase>()?;
    m.add_function(wrap_pyfunction!(registry::games, m)?)?;
    m.add_function(wrap_pyfunction!(session::open, m)?)?;
    m.add_function(wrap_pyfunction!(reports::generate, m)?)?;
    m.add_function(wrap_pyfunction!(reports::verify, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
