//! The typed values the API returns: device images and what is known about them.

use std::collections::BTreeMap;
use std::path::Path;

use offkit_format::scan::ImageInfo;
use pyo3::prelude::*;

/// How an image's bytes were compressed.
#[pyclass(module = "offkit", frozen, get_all, eq, from_py_object)]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Compression {
    /// `ccob` (a compressed offload bundle) or `offload-binary`.
    pub format: String,
    /// The compressed container's version.
    pub version: u32,
    /// `zstd`, `zlib`, or `method N`.
    pub method: String,
    /// The absolute offset of the compressed container's header.
    pub offset: u64,
    /// The compressed size, header included.
    pub compressed_size: u64,
    /// The inflated size.
    pub uncompressed_size: u64,
}

#[pymethods]
impl Compression {
    fn __repr__(&self) -> String {
        format!(
            "Compression(format={:?}, version={}, method={:?}, compressed_size={}, \
             uncompressed_size={})",
            self.format, self.version, self.method, self.compressed_size, self.uncompressed_size
        )
    }
}

/// What a device ELF image's header and symbols say.
#[pyclass(module = "offkit", frozen, get_all, eq, from_py_object)]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CodeObject {
    /// `amdgpu`, `cuda` or `other`.
    pub arch: String,
    /// The processor the header names (`gfx90a`, `sm_80`); empty if none.
    pub processor: String,
    /// The target ID the header encodes (`gfx90a:xnack+`); empty if none.
    pub target_id: String,
    /// AMD GPUs: `xnack` as `on`, `off`, `any` or `unsupported`.
    pub xnack: Option<String>,
    /// AMD GPUs: `sramecc` likewise.
    pub sramecc: Option<String>,
    /// AMD GPUs: the code-object version.
    pub code_object_version: Option<u32>,
    /// The kernels, in symbol-table order.
    pub kernels: Vec<String>,
    /// OpenMP images: the names of their offload entries.
    pub entries: Vec<String>,
}

#[pymethods]
impl CodeObject {
    fn __repr__(&self) -> String {
        format!(
            "CodeObject(arch={:?}, target_id={:?}, kernels={:?})",
            self.arch, self.target_id, self.kernels
        )
    }
}

/// A device image: where it is in its file and what it is for.
#[pyclass(module = "offkit", frozen, get_all, eq, from_py_object)]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Image {
    /// The file it was found in.
    pub path: String,
    /// Where it is in the file: `libk.so:.hip_fatbin[1]:hipv4-amdgcn-amd-amdhsa--gfx90a`.
    pub location: String,
    /// What holds it: `offload-binary`, `bundle`, `bundle-section`, `hip-fatbin`,
    /// `cuda-fatbin`.
    pub source: String,
    /// The programming model: `openmp`, `hip`, `hipv4`, `cuda`, `none`, or a bundle entry's
    /// kind as written.
    pub offload_kind: String,
    /// What the image is: `object`, `bitcode`, `cubin`, `fatbinary`, `ptx`, `spirv`, `none`.
    pub image_kind: String,
    /// The target triple (`amdgcn-amd-amdhsa`).
    pub triple: String,
    /// The target ID (`gfx90a:xnack+`, `sm_80`); may be empty.
    pub target_id: String,
    /// The absolute offset of its first byte (in the inflated bundle when `compression` is
    /// set).
    pub offset: u64,
    /// Its size in bytes.
    pub size: u64,
    /// The compression of the bundle it was inflated from.
    pub compression: Option<Compression>,
    /// The index of its bundle in the sequence of bundles of its section or file.
    pub bundle: Option<usize>,
    /// Where its bytes are, as a URI `offkit extract` and `offkit.extract` take back:
    /// `file://PATH#offset=N&size=M` (plus `&inflated-offset=…&inflated-size=…`).
    pub address: Option<String>,
    /// The key/value strings of an offload binary entry.
    pub strings: BTreeMap<String, String>,
    /// What its ELF header and symbols say, for ELF device images.
    pub code_object: Option<CodeObject>,
}

#[pymethods]
impl Image {
    fn __repr__(&self) -> String {
        format!(
            "Image(location={:?}, offload_kind={:?}, image_kind={:?}, triple={:?}, \
             target_id={:?}, size={})",
            self.location,
            self.offload_kind,
            self.image_kind,
            self.triple,
            self.target_id,
            self.size
        )
    }
}

impl Image {
    /// The value for `i`, found in the file at `path`.
    pub fn of(i: &ImageInfo, path: &Path) -> Image {
        let bytes_file = offkit_bundle::thin::bytes_file(&i.location, path);
        Image {
            path: path.display().to_string(),
            location: i.location.to_string(),
            source: i.source.name().to_string(),
            offload_kind: i.offload_kind.to_string(),
            image_kind: i.image_kind.to_string(),
            triple: i.triple.to_string(),
            target_id: i.target_id.to_string(),
            offset: i.offset,
            size: i.size,
            compression: i.compression.as_ref().map(|c| Compression {
                format: c.format.name().to_string(),
                version: c.format.version(),
                method: c.format.method().to_string(),
                offset: c.offset,
                compressed_size: c.compressed_size,
                uncompressed_size: c.uncompressed_size,
            }),
            bundle: i.bundle.map(|b| b.index),
            address: i.address.map(|a| a.uri(&bytes_file.display().to_string())),
            strings: i.strings.iter().cloned().collect(),
            code_object: i.code_object.as_ref().map(|c| CodeObject {
                arch: c.arch.name().to_string(),
                processor: c.processor.clone(),
                target_id: c.target_id.clone(),
                xnack: c.xnack.map(|s| s.name().to_string()),
                sramecc: c.sramecc.map(|s| s.name().to_string()),
                code_object_version: c.code_object_version,
                kernels: c.kernels.clone(),
                entries: c.entries.iter().map(|e| e.name.clone()).collect(),
            }),
        }
    }
}
