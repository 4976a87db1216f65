//! The `--json` form of `offkit size` (schema version 1, documented in `docs/size.md`), which
//! the text and the HTML are also made from. Sizes are integers (bytes); field names never
//! change within a schema version, new fields may be added.

use serde::Serialize;

use offkit_format::device::Device;
use offkit_surgery::size::{Bytes, FileSize, Saving, SizeReport, Target};

use crate::cmd::inspect::InputError;

/// The schema version this module writes.
pub const SCHEMA_VERSION: u32 = 1;

#[derive(Debug, Serialize)]
pub struct Document {
    pub schema_version: u32,
    pub files: Vec<FileJson>,
    /// The device bytes of the files read.
    pub totals: BytesJson,
    /// The prune estimated (`--keep`), if any.
    pub prune: Option<PruneJson>,
    /// The compress estimated, if any.
    pub compress: Option<CompressJson>,
    /// How many files could not be read.
    pub failed: usize,
}

#[derive(Debug, Serialize)]
pub struct PruneJson {
    pub keep: Vec<String>,
    pub level: i32,
}

#[derive(Debug, Serialize)]
pub struct CompressJson {
    pub ccob_version: u16,
    pub method: &'static str,
    pub level: i32,
}

#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct BytesJson {
    pub stored: u64,
    pub inflated: u64,
}

impl From<Bytes> for BytesJson {
    fn from(b: Bytes) -> Self {
        BytesJson {
            stored: b.stored,
            inflated: b.inflated,
        }
    }
}

#[derive(Debug, Serialize)]
pub struct FileJson {
    pub path: String,
    pub from_dir: bool,
    pub file_size: u64,
    pub images: usize,
    pub totals: BytesJson,
    pub headers: BytesJson,
    pub targets: Vec<TargetJson>,
    pub units: Vec<UnitJson>,
    pub kernels: KernelsJson,
    pub prune: Option<EstimateJson>,
    pub compress: Option<EstimateJson>,
    pub error: Option<InputError>,
}

#[derive(Debug, Serialize)]
pub struct TargetJson {
    pub offload_kind: String,
    pub triple: String,
    pub target_id: String,
    pub name: String,
    pub images: usize,
    pub stored: u64,
    pub inflated: u64,
}

#[derive(Debug, Serialize)]
pub struct UnitJson {
    pub name: String,
    pub kind: &'static str,
    pub offset: u64,
    pub stored: u64,
    pub inflated: u64,
    pub headers: BytesJson,
    pub images: Vec<ImageJson>,
}

#[derive(Debug, Serialize)]
pub struct ImageJson {
    pub target: String,
    pub stored: u64,
    pub inflated: u64,
}

#[derive(Debug, Serialize)]
pub struct KernelsJson {
    /// The inflated bytes of the images whose kernels' code sizes were read.
    pub image_bytes: u64,
    /// Of those, what is not any kernel's code.
    pub other: u64,
    pub list: Vec<KernelJson>,
}

#[derive(Debug, Serialize)]
pub struct KernelJson {
    pub name: String,
    pub images: usize,
    pub code: u64,
}

#[derive(Debug, Serialize)]
pub struct EstimateJson {
    /// Whether the rewrite can be done; when not, `error` says why.
    pub ok: bool,
    pub size_before: Option<u64>,
    pub size_after: Option<u64>,
    pub freed: Option<i64>,
    pub images_removed: Option<usize>,
    pub bundles_changed: Option<usize>,
    pub error: Option<InputError>,
}

fn target_json(t: &Target, images: usize, b: Bytes) -> TargetJson {
    TargetJson {
        offload_kind: t.offload_kind.to_string(),
        triple: t.triple.to_string(),
        target_id: t.target_id.as_str().to_string(),
        name: t.name(),
        images,
        stored: b.stored,
        inflated: b.inflated,
    }
}

/// The JSON form of an error held by value, with its causes (as `inspect`'s [`InputError`]).
fn error_json(e: &(dyn std::error::Error + 'static)) -> InputError {
    let mut causes = Vec::new();
    let mut offset = None;
    let mut cur = Some(e);
    while let Some(c) = cur {
        causes.push(c.to_string());
        if let Some(o) = c
            .downcast_ref::<offkit_format::Error>()
            .and_then(offkit_format::Error::offset)
        {
            offset = Some(o);
        }
        cur = c.source();
    }
    InputError {
        message: causes.join(": "),
        causes,
        offset,
    }
}

fn estimate_json(e: &Result<Saving, offkit_surgery::Error>) -> EstimateJson {
    match e {
        Ok(s) => EstimateJson {
            ok: true,
            size_before: Some(s.size_before),
            size_after: Some(s.size_after),
            freed: Some(s.freed),
            images_removed: Some(s.images_removed),
            bundles_changed: Some(s.bundles_changed),
            error: None,
        },
        Err(e) => EstimateJson {
            ok: false,
            size_before: None,
            size_after: None,
            freed: None,
            images_removed: None,
            bundles_changed: None,
            error: Some(error_json(e)),
        },
    }
}

fn file_json(f: &FileSize, error: Option<InputError>) -> FileJson {
    let code: u64 = f.kernels.iter().map(|k| k.code).sum();
    FileJson {
        path: f.path.display().to_string(),
        from_dir: f.from_dir,
        file_size: f.file_size,
        images: f.images(),
        totals: f.totals.into(),
        headers: f.headers().into(),
        targets: f
            .targets
            .iter()
            .map(|t| target_json(&t.target, t.images, t.bytes))
            .collect(),
        units: f
            .units
            .iter()
            .map(|u| UnitJson {
                name: u.name.clone(),
                kind: u.kind.name(),
                offset: u.offset,
                stored: u.bytes.stored,
                inflated: u.bytes.inflated,
                headers: u.headers().into(),
                images: u
                    .images
                    .iter()
                    .map(|i| ImageJson {
                        target: i.target.name(),
                        stored: i.bytes.stored,
                        inflated: i.bytes.inflated,
                    })
                    .collect(),
            })
            .collect(),
        kernels: KernelsJson {
            image_bytes: f.kernel_images,
            other: f.kernel_images.saturating_sub(code),
            list: f
                .kernels
                .iter()
                .map(|k| KernelJson {
                    name: k.name.clone(),
                    images: k.images,
                    code: k.code,
                })
                .collect(),
        },
        prune: f.prune.as_ref().map(estimate_json),
        compress: f.compress.as_ref().map(estimate_json),
        error,
    }
}

/// The document of `report`; `errors[i]`: why file `i` could not be read.
pub fn document(report: &SizeReport, errors: &[Option<InputError>]) -> Document {
    let files: Vec<FileJson> = report
        .files
        .iter()
        .zip(errors.iter().cloned().chain(std::iter::repeat(None)))
        .map(|(f, e)| file_json(f, e))
        .collect();
    Document {
        schema_version: SCHEMA_VERSION,
        totals: report.totals().into(),
        failed: files.iter().filter(|f| f.error.is_some()).count(),
        files,
        prune: (!report.keep.is_empty()).then(|| PruneJson {
            keep: report.keep.iter().map(Device::to_string).collect(),
            level: report.prune_level,
        }),
        compress: report.compress.map(|o| CompressJson {
            ccob_version: o.version,
            method: o.method.name(),
            level: o.level,
        }),
    }
}
