//! `check`: which image each device would load from each file, and which devices files leave
//! without code — the rules of `offkit check` ([`offkit_format::coverage`]).

use std::path::{Path, PathBuf};

use offkit_format::coverage::{self, is_device_code, Status};
use offkit_format::device::Device;
use offkit_format::scan::Inflate;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::error::Failure;
use crate::model::Image;

/// Parses a device (`gfx90a:xnack-`, `sm_80`, `x86_64`), or raises `ValueError`.
pub fn parse_device(s: &str) -> PyResult<Device> {
    Device::parse(s).map_err(|e| PyValueError::new_err(e.to_string()))
}

/// What one device gets from one file.
#[pyclass(module = "offkit", frozen, get_all, from_py_object)]
#[derive(Debug, Clone)]
pub struct DeviceCoverage {
    /// The device, canonical (`gfx90a:sramecc+:xnack-`).
    pub device: String,
    /// `covered`, `missing`, or `n/a` (a file found in a directory that has no code for this
    /// kind of device at all).
    pub status: String,
    /// Whether it is covered.
    pub covered: bool,
    /// The image it would load.
    pub image: Option<Image>,
    /// How that image fits: `exact`, `any`, `generic`, `cubin`, `ptx`, `triple`.
    pub fit: Option<String>,
    /// Why, for people.
    pub reason: Option<String>,
    /// The compile flag that adds code for it, when it is missing (`--offload-arch=gfx1100`).
    pub flag: Option<String>,
    /// The bundles (translation units) that have no image for it while others do.
    pub bundles_without: Vec<String>,
}

#[pymethods]
impl DeviceCoverage {
    fn __repr__(&self) -> String {
        format!(
            "DeviceCoverage(device={:?}, status={:?}, reason={:?})",
            self.device, self.status, self.reason
        )
    }
}

/// What one file offers the devices.
#[pyclass(module = "offkit", frozen, get_all, from_py_object)]
#[derive(Debug, Clone)]
pub struct FileCoverage {
    /// The file.
    pub path: String,
    /// What its images are for, per offload kind and triple
    /// (`hipv4 amdgcn-amd-amdhsa gfx1030 gfx90a:xnack+`).
    pub available: Vec<String>,
    /// One entry per device, in the order given (none when the file could not be read).
    pub devices: Vec<DeviceCoverage>,
    /// Why the file could not be read, if it could not.
    pub error: Option<String>,
    /// The absolute offset of the bad data, when `error` is about malformed data.
    pub error_offset: Option<u64>,
}

#[pymethods]
impl FileCoverage {
    fn __repr__(&self) -> String {
        format!(
            "FileCoverage(path={:?}, devices={}, error={:?})",
            self.path,
            self.devices.len(),
            self.error
        )
    }
}

/// The coverage of a set of devices by a set of files.
#[pyclass(module = "offkit", frozen, get_all, from_py_object)]
#[derive(Debug, Clone)]
pub struct Coverage {
    /// The devices checked, canonical.
    pub devices: Vec<String>,
    /// Each file with device code (and each that could not be read).
    pub files: Vec<FileCoverage>,
    /// Devices no file has code of their kind for.
    pub nowhere: Vec<String>,
    /// Files found in directories that hold no device code.
    pub skipped: Vec<String>,
    /// Whether every device is covered in every file and every file could be read: what
    /// `offkit check`'s exit status 0 says.
    pub covered: bool,
}

#[pymethods]
impl Coverage {
    fn __repr__(&self) -> String {
        format!(
            "Coverage(covered={}, files={}, nowhere={:?})",
            self.covered,
            self.files.len(),
            self.nowhere
        )
    }

    fn __bool__(&self) -> bool {
        self.covered
    }
}

/// The files `check` reads for `path`: the file, or the containers under a directory.
fn inputs(path: &Path) -> Result<Vec<(PathBuf, bool)>, Failure> {
    if !path.is_dir() {
        return Ok(vec![(path.to_path_buf(), false)]);
    }
    let looks = |p: &Path| {
        offkit_tools::MappedFile::open(p).is_ok_and(|m| coverage::looks_like_container(&m))
    };
    let found =
        offkit_tools::walk::files_under(path, &looks).map_err(|(dir, e)| Failure::new(&dir, &e))?;
    Ok(found.into_iter().map(|p| (p, true)).collect())
}

/// Checks which devices the device code of files covers.
///
/// `paths`: files (objects, archives, executables, shared libraries, bundles) or directories,
/// searched recursively (a wheel's unpacked tree). `devices`: AMD GPU target IDs
/// (`gfx90a:xnack-`, `gfx1100`), NVIDIA architectures (`sm_80`), architectures or triples
/// (`x86_64`). For each file and device, the image that would load by the target-ID rules, or
/// why none does and the flag that adds one — as `offkit check --json` reports it. A file that
/// cannot be read is reported in its entry (`error`) and makes `covered` false. Raises
/// `ValueError` for a bad device, `offkit.Error` for a directory that cannot be read.
#[pyfunction]
pub fn check(py: Python<'_>, paths: Vec<PathBuf>, devices: Vec<String>) -> PyResult<Coverage> {
    let devices = devices
        .iter()
        .map(|d| parse_device(d))
        .collect::<PyResult<Vec<Device>>>()?;
    py.detach(|| {
        let mut files = Vec::new();
        for p in &paths {
            files.extend(inputs(p)?);
        }
        PyResult::Ok(coverage_of(&files, &devices))
    })
}

/// The coverage of `devices` by `files` (each with whether a directory search found it).
fn coverage_of(files: &[(PathBuf, bool)], devices: &[Device]) -> Coverage {
    let scanned: Vec<_> = files
        .iter()
        .map(|(path, from_dir)| {
            let mut images = Vec::new();
            let walked = crate::scan::walk(path, Inflate::Headers, &mut |info, _, _| {
                if is_device_code(info) {
                    images.push(info.clone());
                }
            });
            (path, *from_dir, images, walked.err())
        })
        .collect();
    let inputs: Vec<_> = scanned
        .iter()
        .map(|(_, from_dir, images, error)| coverage::Input {
            images: error.is_none().then_some(&images[..]),
            from_dir: *from_dir,
        })
        .collect();
    let report = coverage::check(&inputs, devices);
    let mut out = Vec::new();
    let mut skipped = Vec::new();
    for ((path, .., error), c) in scanned.iter().zip(&report.files) {
        match c {
            None => skipped.push(path.display().to_string()),
            Some(c) => out.push(file_coverage(path, c, devices, error.as_ref())),
        }
    }
    Coverage {
        devices: devices.iter().map(Device::to_string).collect(),
        files: out,
        nowhere: report
            .nowhere
            .iter()
            .filter_map(|&n| devices.get(n).map(Device::to_string))
            .collect(),
        skipped,
        covered: report.covered,
    }
}

/// The Python value of what the file at `path` offers `devices`.
fn file_coverage(
    path: &Path,
    c: &coverage::FileCoverage<'_>,
    devices: &[Device],
    error: Option<&Failure>,
) -> FileCoverage {
    FileCoverage {
        path: path.display().to_string(),
        available: c.available.iter().map(ToString::to_string).collect(),
        devices: c
            .verdicts
            .iter()
            .zip(devices)
            .map(|(v, d)| DeviceCoverage {
                device: d.to_string(),
                status: v.status.name().to_string(),
                covered: v.status == Status::Covered,
                image: v.image.as_ref().map(|(i, _)| Image::of(i, path)),
                fit: v.image.as_ref().map(|(_, f)| f.name().to_string()),
                reason: v.reason.as_ref().map(ToString::to_string),
                flag: v.flag.clone(),
                bundles_without: v.bundles_without.iter().map(ToString::to_string).collect(),
            })
            .collect(),
        error: error.map(|f| f.reason.clone()),
        error_offset: error.and_then(|f| f.offset),
    }
}
