//! # offkit-py
//!
//! The extension module `offkit._offkit` behind the Python package `offkit` (python/offkit):
//! thin functions over offkit's libraries — [`scan`](offkit_format::scan) for `inspect` and
//! `extract`, [`coverage`](offkit_format::coverage) for `check`,
//! [`rewrite_file`](offkit_surgery::rewrite_file) for `prune`, `compress` and `decompress` —
//! returning typed values and raising `offkit.Error` with the file, offset and reason. Built
//! into the wheel by maturin (scripts/build-wheel.sh); abi3, so one wheel serves CPython 3.9
//! and later.
#![deny(missing_docs)]
// The `#[pyfunction]`/`#[pymodule]` expansions are PyO3's own FFI glue.
#![allow(unsafe_code)]

mod check;
mod error;
mod model;
mod rewrite;
mod scan;

use pyo3::prelude::*;

/// offkit's native module.
#[pymodule]
fn _offkit(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("Error", m.py().get_type::<error::Error>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_class::<model::Image>()?;
    m.add_class::<model::Compression>()?;
    m.add_class::<model::CodeObject>()?;
    m.add_class::<check::Coverage>()?;
    m.add_class::<check::FileCoverage>()?;
    m.add_class::<check::DeviceCoverage>()?;
    m.add_class::<rewrite::Rewrite>()?;
    m.add_function(wrap_pyfunction!(scan::inspect, m)?)?;
    m.add_function(wrap_pyfunction!(scan::extract, m)?)?;
    m.add_function(wrap_pyfunction!(check::check, m)?)?;
    m.add_function(wrap_pyfunction!(rewrite::prune, m)?)?;
    m.add_function(wrap_pyfunction!(rewrite::compress, m)?)?;
    m.add_function(wrap_pyfunction!(rewrite::decompress, m)?)?;
    Ok(())
}
