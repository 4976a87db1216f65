//! `prune`, `compress` and `decompress`: one file rewritten through
//! [`offkit_surgery::rewrite_file`] (planned, written beside its destination, checked, renamed).

use std::path::PathBuf;

use offkit_format::bundle::compressed::{Method, Options};
use offkit_surgery::{Dest, Done, Edit, Filter, Plan};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::check::parse_device;
use crate::error::Failure;

/// What a rewrite did (or, for a dry run, would do).
#[pyclass(module = "offkit", frozen, get_all, from_py_object)]
#[derive(Debug, Clone)]
pub struct Rewrite {
    /// The input.
    pub path: String,
    /// Where the result went (the input itself in place); None when nothing was written (a
    /// dry run, or nothing to change in place).
    pub output: Option<String>,
    /// The written file's size.
    pub size: Option<u64>,
    /// How many bundles were rewritten (compressed, decompressed or pruned).
    pub bundles_changed: usize,
    /// How many bundles the file has.
    pub bundles: usize,
    /// The images taken out (`prune`), by name (`hipv4-amdgcn-amd-amdhsa--gfx1030`).
    pub removed: Vec<String>,
    /// The bytes freed (negative: taken), as the bundles' sizes say.
    pub freed: i64,
}

#[pymethods]
impl Rewrite {
    fn __repr__(&self) -> String {
        format!(
            "Rewrite(path={:?}, output={:?}, bundles_changed={}, removed={:?}, freed={})",
            self.path, self.output, self.bundles_changed, self.removed, self.freed
        )
    }
}

/// Where the result goes: `output`, in place, or nowhere for a dry run.
fn dest(output: Option<PathBuf>, dry_run: bool) -> Dest {
    match (output, dry_run) {
        (_, true) => Dest::DryRun,
        (Some(o), false) => Dest::To(o),
        (None, false) => Dest::InPlace,
    }
}

/// Runs `edit` on `path` without the GIL.
fn run(py: Python<'_>, path: PathBuf, dest: Dest, edit: Edit) -> PyResult<Rewrite> {
    let done = py
        .detach(|| offkit_surgery::rewrite_file(&path, &dest, &edit, &mut |_, _| {}))
        .map_err(|e| Failure::new(&path, &e))?;
    Ok(summary(&path, &dest, &done))
}

fn summary(path: &std::path::Path, dest: &Dest, done: &Done) -> Rewrite {
    let plans = || done.plans.iter();
    let removed = plans()
        .flat_map(|p| {
            let bundles = p.changes.iter().flat_map(|c| &c.removed);
            let binaries = p.binaries.iter().flat_map(|b| &b.removed);
            let tables = p.tables.iter().flat_map(|t| &t.removed);
            let fatbins = p.fatbins.iter().flat_map(|f| &f.removed);
            bundles
                .chain(binaries)
                .chain(tables)
                .chain(fatbins)
                .cloned()
        })
        .collect();
    let output = done.written.as_ref().map(|_| match dest {
        Dest::To(o) => o.display().to_string(),
        _ => path.display().to_string(),
    });
    Rewrite {
        path: path.display().to_string(),
        output,
        size: done.written.as_ref().map(|w| w.size),
        bundles_changed: plans()
            .map(|p| p.changes.iter().filter(|c| c.changed()).count())
            .sum(),
        bundles: plans().map(|p| p.changes.len()).sum(),
        removed,
        freed: plans().map(Plan::freed).sum(),
    }
}

/// Takes the device images a set of devices does not need out of a file, as `offkit prune`
/// does.
///
/// `keep`: an image stays when one of these devices would or might load it. `drop`: an image
/// goes when it was made for one of these devices. Give one of the two. Offload bundles (plain
/// and compressed, compressed again at `level`) in shared libraries, executables, objects,
/// archives and bundle files; offload binaries; CUDA fat binaries. Sections never move; freed
/// bytes are zeroed. The result goes to `output`, or over `path` when it is None; `dry_run`
/// writes nothing. For CUDA, `keep` names what stays as `nvprune -arch` does (`sm_75` its
/// cubins, `compute_75` its PTX). A prune that would leave the file no device image raises
/// `offkit.Error` unless `allow_empty`. Raises `offkit.Error` when the file cannot be read or
/// rewritten.
// Python's keyword arguments are the function's parameters.
#[allow(clippy::too_many_arguments)]
#[pyfunction]
#[pyo3(signature = (path, *, keep=None, drop=None, output=None, dry_run=false, level=3, allow_empty=false))]
pub fn prune(
    py: Python<'_>,
    path: PathBuf,
    keep: Option<Vec<String>>,
    drop: Option<Vec<String>>,
    output: Option<PathBuf>,
    dry_run: bool,
    level: i32,
    allow_empty: bool,
) -> PyResult<Rewrite> {
    let devices = |ids: Vec<String>| {
        if ids.is_empty() {
            return Err(PyValueError::new_err("name at least one device"));
        }
        ids.iter()
            .map(|d| match offkit_surgery::PruneTarget::parse(d) {
                Ok(t) => Ok(t),
                Err(_) => parse_device(d).map(offkit_surgery::PruneTarget::Device),
            })
            .collect::<PyResult<_>>()
    };
    let filter = match (keep, drop) {
        (Some(k), None) => Filter::Keep(devices(k)?),
        (None, Some(d)) => Filter::Drop(devices(d)?),
        _ => return Err(PyValueError::new_err("give one of `keep` and `drop`")),
    };
    let edit = Edit::Prune {
        filter,
        level,
        allow_empty,
    };
    run(py, path, dest(output, dry_run), edit)
}

/// Compresses every offload bundle of a file as LLVM 19's `clang-offload-bundler -compress`
/// does (`offkit compress`).
///
/// `version`: 2 (what LLVM 19 writes and reads) or 3 (LLVM 20+). `method`: `zstd` or `zlib`.
/// `level`: zstd 3 and zlib 6 by default. Bundles already compressed so are left as they are.
/// The result goes to `output`, or over `path` when it is None; `dry_run` writes nothing.
#[pyfunction]
#[pyo3(signature = (path, *, output=None, dry_run=false, version=2, method="zstd", level=None))]
pub fn compress(
    py: Python<'_>,
    path: PathBuf,
    output: Option<PathBuf>,
    dry_run: bool,
    version: u16,
    method: &str,
    level: Option<i32>,
) -> PyResult<Rewrite> {
    let method = match method {
        "zstd" => Method::Zstd,
        "zlib" => Method::Zlib,
        m => {
            return Err(PyValueError::new_err(format!(
                "`{m}` is not a method: zstd or zlib"
            )))
        }
    };
    if !(1..=3).contains(&version) {
        return Err(PyValueError::new_err(format!(
            "{version} is not a compressed bundle version: 1, 2 or 3"
        )));
    }
    let opts = Options {
        version,
        method,
        level: level.unwrap_or(if method == Method::Zstd { 3 } else { -1 }),
        ..Options::default()
    };
    run(py, path, dest(output, dry_run), Edit::Compress(opts))
}

/// Decompresses every compressed offload bundle of a file (`offkit decompress`).
///
/// In a shared library or executable each decompressed bundle must fit its space up to the next
/// bundle; otherwise nothing is written and `offkit.Error` says by how much it does not fit.
#[pyfunction]
#[pyo3(signature = (path, *, output=None, dry_run=false))]
pub fn decompress(
    py: Python<'_>,
    path: PathBuf,
    output: Option<PathBuf>,
    dry_run: bool,
) -> PyResult<Rewrite> {
    run(py, path, dest(output, dry_run), Edit::Decompress)
}
