//! `inspect` and `extract`: the device images of a file, read through the one scanner
//! ([`offkit_format::scan`]) over the file's memory map, thin archive members read from their
//! own files ([`offkit_bundle::thin`]).

use std::path::{Path, PathBuf};

use offkit_bundle::thin::ThinResolver;
use offkit_format::coverage::is_image;
use offkit_format::device::Device;
use offkit_format::scan::{self, EntryTables, Event, ImageInfo, Inflate, Options};
use offkit_tools::MappedFile;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::error::Failure;
use crate::model::Image;

/// Walks the file at `path`, handing each device image (with its bytes, as far as `inflate`
/// has them) to `visit`.
pub fn walk(
    path: &Path,
    inflate: Inflate,
    visit: &mut dyn FnMut(&ImageInfo, &[u8], bool),
) -> Result<(), Failure> {
    let data = MappedFile::open(path).map_err(|e| Failure::new(path, &e))?;
    let mut resolver = ThinResolver;
    let mut opts = Options {
        entry_tables: EntryTables::None,
        inflate,
        kernels: true,
        resolver: Some(&mut resolver),
    };
    let name = path.display().to_string();
    scan::walk(&data, &name, &mut opts, &mut |ev| {
        if let Event::Image(img) = ev {
            visit(img.info, img.bytes, img.whole);
        }
        Ok::<(), offkit_format::Error>(())
    })
    .map_err(|e| Failure::new(path, &e))
}

/// The device images of a file.
///
/// Every image of objects, archives (GNU, BSD, thin), executables, shared libraries, offload
/// binaries and bundles, nested and compressed, as `offkit inspect` lists them (the host entries
/// of bundles included: their `offload_kind` is `host`). Only headers are read. Raises
/// `offkit.Error` (file, offset, reason) when the file cannot be read.
#[pyfunction]
pub fn inspect(py: Python<'_>, path: PathBuf) -> PyResult<Vec<Image>> {
    py.detach(|| {
        let mut out = Vec::new();
        walk(&path, Inflate::Headers, &mut |info, _, _| {
            if is_image(info) {
                out.push(Image::of(info, &path));
            }
        })?;
        PyResult::Ok(out)
    })
}

/// What `extract` selects.
struct Select {
    kind: Option<String>,
    triple: Option<String>,
    device: Option<Device>,
}

impl Select {
    fn selects(&self, i: &ImageInfo) -> bool {
        is_image(i)
            && self.kind.as_ref().is_none_or(|k| i.offload_kind.matches(k))
            && self
                .triple
                .as_ref()
                .is_none_or(|t| t.as_bytes() == i.triple.as_bytes())
            && self
                .device
                .as_ref()
                .is_none_or(|d| d.fit(&i.triple, &i.target_id, i.image_kind).is_some())
    }
}

/// The bytes of the selected device images of a file, as `(image, bytes)` pairs in file order.
///
/// `kind` (`hip` also takes `hipv4`), `triple` and `device` (an image that would load on it:
/// `gfx90a:xnack+`, `sm_80`, `x86_64`) narrow the choice; `address` (an `Image.address`) picks
/// one image of `path`. Compressed bundles are decompressed (their size and hash checked); the bytes are
/// held in memory. Raises `offkit.Error` when the file cannot be read, `ValueError` for a bad
/// device.
#[pyfunction]
#[pyo3(signature = (path, *, kind=None, triple=None, device=None, address=None))]
pub fn extract<'py>(
    py: Python<'py>,
    path: PathBuf,
    kind: Option<String>,
    triple: Option<String>,
    device: Option<String>,
    address: Option<String>,
) -> PyResult<Vec<(Image, Bound<'py, PyBytes>)>> {
    let device = device
        .as_deref()
        .map(crate::check::parse_device)
        .transpose()?;
    let select = Select {
        kind,
        triple,
        device,
    };
    let found = py.detach(|| {
        let mut out = Vec::new();
        walk(&path, Inflate::Whole, &mut |info, bytes, whole| {
            if whole && select.selects(info) {
                let image = Image::of(info, &path);
                if address
                    .as_ref()
                    .is_none_or(|a| image.address.as_ref() == Some(a))
                {
                    out.push((image, bytes.to_vec()));
                }
            }
        })?;
        PyResult::Ok(out)
    })?;
    Ok(found
        .into_iter()
        .map(|(i, b)| (i, PyBytes::new(py, &b)))
        .collect())
}
