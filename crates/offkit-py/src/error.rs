//! `offkit.Error`: every failure of the API, as a Python exception that carries the file, the
//! absolute offset (for malformed data) and the reason.

use std::path::{Path, PathBuf};

use pyo3::exceptions::PyException;
use pyo3::prelude::*;

pyo3::create_exception!(
    offkit,
    Error,
    PyException,
    "An input that cannot be read or rewritten: `file`, `offset` (the absolute offset of the \
     bad byte, or None) and `reason` (the causes, outermost first, joined by `: `)."
);

/// A failure about one file, before it becomes an [`Error`] (built without the GIL).
#[derive(Debug, Clone)]
pub struct Failure {
    /// The file.
    pub file: PathBuf,
    /// The causes, outermost first, joined by `: `.
    pub reason: String,
    /// The absolute offset the innermost format error names.
    pub offset: Option<u64>,
}

impl Failure {
    /// The failure `err` about `file`.
    pub fn new(file: &Path, err: &(dyn std::error::Error + 'static)) -> Failure {
        let mut parts = Vec::new();
        let mut offset = None;
        let mut at = Some(err);
        while let Some(e) = at {
            parts.push(e.to_string());
            if let Some(f) = e.downcast_ref::<offkit_format::Error>() {
                offset = f.offset().or(offset);
            }
            at = e.source();
        }
        Failure {
            file: file.to_path_buf(),
            reason: parts.join(": "),
            offset,
        }
    }
}

impl From<Failure> for PyErr {
    fn from(f: Failure) -> PyErr {
        let e = Error::new_err(format!("{}: {}", f.file.display(), f.reason));
        Python::attach(|py| {
            let v = e.value(py);
            let _ = v.setattr("file", f.file.display().to_string());
            let _ = v.setattr("offset", f.offset);
            let _ = v.setattr("reason", f.reason);
        });
        e
    }
}
