//! `size`: where the device bytes of files go — by target, by translation unit, by kernel,
//! stored and inflated — and what a prune or a compress would save, worked out by the very
//! plans `offkit prune` and `offkit compress` carry out ([`estimate_file`]).
//!
//! ```text
//! files, directories ─► each file ─walk (headers, code objects streamed)─► images ─► sums
//!                                 └─estimate_file(prune), estimate_file(compress)─► savings
//! ```
//!
//! The walk is the one container scanner (`offkit_bundle::walk`): compressed bundles are read
//! as a stream and image bytes are never held; what is kept per image is its size, target and
//! kernels. The figures add up: per file, the targets' bytes plus the headers are the
//! translation units' bytes; an image of a compressed container is given a share of the
//! container's compressed bytes in proportion to its size (largest remainders, so that the
//! shares sum to the container's size exactly).
//!
//! ```no_run
//! use offkit_surgery::size::{size, SizeConfig};
//!
//! let report = size(&SizeConfig::new(["libk.so"]), &mut |_, _, _| {}).unwrap();
//! for f in &report.files {
//!     println!("{}: {} device bytes stored", f.path.display(), f.totals.stored);
//! }
//! ```

mod account;

use std::path::{Path, PathBuf};

use offkit_bundle::walk::{walk_file, ScanOptions};
use offkit_format::bundle::compressed;
use offkit_format::coverage;
use offkit_format::device::{Device, ImageTargetId};
use offkit_format::kind::Model;
use offkit_format::scan::{EntryTables, Event, Inflate};
use offkit_llvm::triple::Triple;

use crate::edit::Edit;
use crate::error::{Error, Result};
use crate::filter::{Filter, PruneTarget};
use crate::rewrite::estimate_file;

/// What to size, and which rewrites to estimate.
#[derive(Debug, Clone)]
pub struct SizeConfig {
    /// Files (objects, archives, executables, shared libraries, bundles) and directories
    /// (searched recursively for files that start like containers, as `offkit check DIR`).
    pub files: Vec<PathBuf>,
    /// Estimate `offkit prune --keep` with these devices (none: no prune estimate).
    pub keep: Vec<Device>,
    /// The level a prune compresses compressed bundles again with (`offkit prune --level`).
    pub prune_level: i32,
    /// Estimate `offkit compress` with these options (`None`: no compress estimate).
    pub compress: Option<compressed::Options>,
}

impl SizeConfig {
    /// `files`, with the compress estimate of `offkit compress`'s defaults and no prune.
    pub fn new<P: Into<PathBuf>>(files: impl IntoIterator<Item = P>) -> Self {
        SizeConfig {
            files: files.into_iter().map(Into::into).collect(),
            keep: Vec::new(),
            prune_level: 3,
            compress: Some(compressed::Options::default()),
        }
    }
}

/// Bytes as they are in the file and once inflated.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Bytes {
    /// In the file (a compressed container's bytes, or an image's share of them).
    pub stored: u64,
    /// Decompressed (the same as `stored` for what is not compressed).
    pub inflated: u64,
}

impl Bytes {
    fn add(&mut self, o: Bytes) {
        self.stored += o.stored;
        self.inflated += o.inflated;
    }
}

/// What device images are for: offload kind, triple and target ID.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// The offload kind (`hipv4`, `openmp`, `cuda`).
    pub offload_kind: Model,
    /// The triple.
    pub triple: Triple,
    /// The target ID (`gfx90a:xnack-`, `sm_80`; may be empty).
    pub target_id: ImageTargetId,
}

impl Target {
    /// `hipv4 amdgcn-amd-amdhsa gfx90a`.
    pub fn name(&self) -> String {
        let tid = self.target_id.as_str();
        let tid = if tid.is_empty() { "-" } else { tid };
        format!("{} {} {tid}", self.offload_kind, self.triple)
    }
}

/// The device bytes of one target in one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TargetSize {
    /// The target.
    pub target: Target,
    /// How many images.
    pub images: usize,
    /// Their bytes.
    pub bytes: Bytes,
}

/// What a translation unit's device code is held in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum UnitKind {
    /// An offload bundle (one per translation unit in a `.hip_fatbin` or bundle file).
    Bundle,
    /// A compressed offload bundle.
    CompressedBundle,
    /// A CUDA fat binary (one per translation unit in `.nv_fatbin`).
    CudaFatbin,
    /// A fat object (its `__CLANG_OFFLOAD_BUNDLE__*` sections, one per target).
    FatObject,
    /// An image on its own (an offload binary, a fat object's bundle section).
    Image,
}

impl UnitKind {
    /// `bundle`, `compressed-bundle`, `cuda-fatbin`, `fat-object`, `image`.
    pub fn name(self) -> &'static str {
        match self {
            UnitKind::Bundle => "bundle",
            UnitKind::CompressedBundle => "compressed-bundle",
            UnitKind::CudaFatbin => "cuda-fatbin",
            UnitKind::FatObject => "fat-object",
            UnitKind::Image => "image",
        }
    }
}

/// One device image of a translation unit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImageSize {
    /// What it is for.
    pub target: Target,
    /// Its bytes (stored: its share of a compressed container).
    pub bytes: Bytes,
}

/// A translation unit's device code: a bundle of a sequence, a CUDA fat binary, or an image
/// on its own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnitSize {
    /// Where it is in the file (`:.hip_fatbin[1]`, `(k.o):.nv_fatbin#0`; a fat object: its
    /// archive member, `(k.o)`, or `(file)`).
    pub name: String,
    /// What it is.
    pub kind: UnitKind,
    /// The absolute offset of its first byte (in the inflated data it came from when it is
    /// nested in a compressed container).
    pub offset: u64,
    /// Its bytes, headers included.
    pub bytes: Bytes,
    /// Its device images, in file order.
    pub images: Vec<ImageSize>,
}

impl UnitSize {
    /// Its headers and padding: its bytes less its images'.
    pub fn headers(&self) -> Bytes {
        let mut i = Bytes::default();
        self.images.iter().for_each(|im| i.add(im.bytes));
        Bytes {
            stored: self.bytes.stored.saturating_sub(i.stored),
            inflated: self.bytes.inflated.saturating_sub(i.inflated),
        }
    }
}

/// One kernel's machine code, summed over the images that have it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KernelSize {
    /// Its name.
    pub name: String,
    /// How many images have it.
    pub images: usize,
    /// The bytes of its code, summed over them (inflated).
    pub code: u64,
}

/// What a rewrite would save on one file: the figures of the real `offkit prune` or
/// `offkit compress`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Saving {
    /// The file's size now.
    pub size_before: u64,
    /// The size of the file the rewrite writes (a linked file keeps its size: the freed bytes
    /// are zeroed and left as holes).
    pub size_after: u64,
    /// The device bytes freed (negative: taken), as the command prints them.
    pub freed: i64,
    /// The images taken out.
    pub images_removed: usize,
    /// The bundles rewritten.
    pub bundles_changed: usize,
}

/// One input file, sized.
#[derive(Debug)]
pub struct FileSize {
    /// The file.
    pub path: PathBuf,
    /// Whether it was found in a directory given.
    pub from_dir: bool,
    /// Its size.
    pub file_size: u64,
    /// Its device bytes: the sum of its translation units'.
    pub totals: Bytes,
    /// Its device bytes by target, most stored bytes first.
    pub targets: Vec<TargetSize>,
    /// Its translation units, in file order.
    pub units: Vec<UnitSize>,
    /// Its kernels, most code first (AMD GPU code objects and cubins whose symbols give the
    /// code's size).
    pub kernels: Vec<KernelSize>,
    /// The inflated bytes of the images whose kernels were read (their kernels' code plus
    /// everything else in them).
    pub kernel_images: u64,
    /// What `offkit prune --keep` would save, or why it cannot be done.
    pub prune: Option<std::result::Result<Saving, Error>>,
    /// What `offkit compress` would save, or why it cannot be done.
    pub compress: Option<std::result::Result<Saving, Error>>,
    /// Why the file could not be read (the figures are then empty).
    pub error: Option<Error>,
}

impl FileSize {
    /// How many device images.
    pub fn images(&self) -> usize {
        self.units.iter().map(|u| u.images.len()).sum()
    }

    /// Its headers and padding: the units' bytes less their images'.
    pub fn headers(&self) -> Bytes {
        let mut h = Bytes::default();
        self.units.iter().for_each(|u| h.add(u.headers()));
        h
    }
}

/// What [`size`] found.
#[derive(Debug)]
pub struct SizeReport {
    /// Each file, in order (a directory's files sorted by name).
    pub files: Vec<FileSize>,
    /// The prune estimated, if any.
    pub keep: Vec<Device>,
    /// The level of the prune estimated.
    pub prune_level: i32,
    /// The compress estimated, if any.
    pub compress: Option<compressed::Options>,
}

impl SizeReport {
    /// How many files could not be read.
    pub fn failed(&self) -> usize {
        self.files.iter().filter(|f| f.error.is_some()).count()
    }

    /// The device bytes of all files.
    pub fn totals(&self) -> Bytes {
        let mut t = Bytes::default();
        self.files.iter().for_each(|f| t.add(f.totals));
        t
    }
}

/// Sizes every file of `config` (each before the next, one file's images at a time; a file
/// that cannot be read is reported in its place and the others go on). `progress(file, done,
/// total)` is called as the bundles of a large file are compressed for an estimate. Fails only
/// when a directory cannot be read.
pub fn size(config: &SizeConfig, progress: &mut dyn FnMut(&str, u64, u64)) -> Result<SizeReport> {
    // The one rule for what a directory holds: the files `check` and `inspect` read there.
    let inputs = offkit_bundle::walk::inputs(&config.files).map_err(Error::Scan)?;
    let prune = (!config.keep.is_empty()).then(|| Edit::Prune {
        filter: Filter::Keep(config.keep.iter().cloned().map(PruneTarget::from).collect()),
        level: config.prune_level,
        // As `offkit prune` without `--allow-empty`: a prune that leaves no device image is
        // reported as what cannot be done.
        allow_empty: false,
    });
    let compress = config.compress.map(Edit::Compress);
    let mut files = Vec::with_capacity(inputs.len());
    for offkit_bundle::walk::Input { path, from_dir } in inputs {
        let mut f = size_file(&path, from_dir);
        if f.error.is_none() {
            let name = path.display().to_string();
            let mut estimate = |edit: &Edit| {
                estimate_file(&path, edit, &mut |d, t| progress(&name, d, t)).map(saving)
            };
            f.prune = prune.as_ref().map(&mut estimate);
            f.compress = compress.as_ref().map(&mut estimate);
        }
        files.push(f);
    }
    Ok(SizeReport {
        files,
        keep: config.keep.clone(),
        prune_level: config.prune_level,
        compress: config.compress,
    })
}

fn saving(e: crate::Estimate) -> Saving {
    Saving {
        size_before: e.size_before,
        size_after: e.size_after,
        freed: e.freed(),
        images_removed: e.plans.iter().map(crate::Plan::images_removed).sum(),
        bundles_changed: e
            .plans
            .iter()
            .map(|p| p.changes.iter().filter(|c| c.changed()).count())
            .sum(),
    }
}

/// Walks one file and sums its images.
fn size_file(path: &Path, from_dir: bool) -> FileSize {
    let mut acc = account::Accounts::default();
    let opts = ScanOptions {
        entry_tables: EntryTables::None,
        inflate: Inflate::Headers,
        kernels: true,
    };
    let walked = walk_file::<offkit_bundle::Error>(path, opts, &mut |ev| {
        match ev {
            Event::Container(c) => acc.container(c),
            Event::Image(i) if coverage::is_device_code(i.info) => acc.image(i.info),
            _ => {}
        }
        Ok(())
    });
    let file_size = std::fs::metadata(path).map_or(0, |m| m.len());
    let mut f = FileSize {
        path: path.to_path_buf(),
        from_dir,
        file_size,
        totals: Bytes::default(),
        targets: Vec::new(),
        units: Vec::new(),
        kernels: Vec::new(),
        kernel_images: 0,
        prune: None,
        compress: None,
        error: None,
    };
    match walked {
        Ok(()) => acc.finish(&mut f),
        Err(e) => f.error = Some(Error::Scan(e)),
    }
    f
}
