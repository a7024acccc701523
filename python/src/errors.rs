//! The exceptions of the module, and the library's errors as them: bad input is a `ValueError`,
//! a table that is missing or damaged a `TableError`, a search out of time a `SearchError`; a
//! panic inside the library is caught at the boundary and raised as a `TablebaseError`.

use crate::settings::keywords;
use engine::catalogue::Variant;
use engine::game::VariantError;
use engine::one_line;
use engine::{BuildError, ProbeError};
use pyo3::exceptions::{PyException, PyValueError};
use pyo3::prelude::*;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;

pyo3::create_exception!(
    tablebase,
    TablebaseError,
    PyException,
    "A failure of the tablebase library (the base of TableError and SearchError)."
);
pyo3::create_exception!(
    tablebase,
    TableError,
    TablebaseError,
    "A table is missing, damaged or wrong; the message names the file and the cause."
);
pyo3::create_exception!(
    tablebase,
    SearchError,
    TablebaseError,
    "A position solved by search was not settled within the time limit."
);

/// The call that generates `variant`'s tables in `dir`, in Python: what a message about a missing
/// table suggests, as the command line suggests its own command.
pub fn generate_call(variant: &Variant, dir: &Path) -> String {
    let mut call = format!(
        "tablebase.generate({}, dir={}",
        py_string(variant.game),
        py_string(&dir.display().to_string())
    );
    for (name, value) in &variant.settings {
        let name = name.replace('-', "_");
        match value {
            Some(value) => call.push_str(&format!(", {name}={}", py_string(value))),
            None => call.push_str(&format!(", {name}=True")),
        }
    }
    call.push(')');
    call
}

/// `text` as a Python string literal (settings and paths hold no quotes in practice; a path
/// that does is still quoted correctly).
fn py_string(text: &str) -> String {
    format!("'{}'", text.replace('\\', "\\\\").replace('\'', "\\'"))
}

/// A probing error as the command line says it, with the call that generates a missing table.
pub fn probe_error(error: &ProbeError) -> PyErr {
    match error {
        ProbeError::Illegal(why) => PyValueError::new_err(why.clone()),
        ProbeError::NotGenerated { path, variant } => {
            let dir = path.parent().unwrap_or(Path::new("."));
            TableError::new_err(format!("{error} (run: {})", generate_call(variant, dir)))
        }
        ProbeError::Damaged(_) => TableError::new_err(error.to_string()),
        // The library names the command line's flag; here it is open's keyword.
        ProbeError::Search(_) => SearchError::new_err(keywords(&error.to_string())),
    }
}

/// Settings that name no variant: a `ValueError` naming the setting as Python spells it, or
/// tables that are not on disk.
pub fn variant_error(error: VariantError, dir: &Path) -> PyErr {
    let name = |setting: &str| setting.replace('-', "_");
    match error {
        VariantError::Missing { setting, example } => PyValueError::new_err(format!(
            "{}: missing (for example {}={example:?})",
            name(setting),
            name(setting)
        )),
        VariantError::Invalid { setting, value, expected } => {
            PyValueError::new_err(format!("{} {value:?}: {expected}", name(setting)))
        }
        VariantError::Contradiction { why, .. } => PyValueError::new_err(keywords(&why)),
        VariantError::NotOnDisk { generate, what } => {
            TableError::new_err(format!("{what} (run: {})", generate_call(&generate, dir)))
        }
        VariantError::Unusable { what } => TableError::new_err(what),
    }
}

/// A failure of `generate`, with its causes on one line.
pub fn build_error(error: BuildError) -> PyErr {
    match error {
        BuildError::UnknownJob { .. } => PyValueError::new_err(error.to_string()),
        _ => TableError::new_err(one_line(&error)),
    }
}

/// Runs `work`, turning a panic of the library into a `TablebaseError`: a bug must not take the
/// interpreter (and a notebook's state) down with it.
pub fn guarded<T>(work: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    match catch_unwind(AssertUnwindSafe(work)) {
        Ok(result) => result,
        Err(payload) => {
            let why = payload
                .downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| payload.downcast_ref::<&str>().copied())
                .unwrap_or("a panic");
            Err(TablebaseError::new_err(format!("internal error of the tablebase library: {why}")))
        }
    }
}
