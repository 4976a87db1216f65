//! Coverage: which image each device would load from the device images of a file, and which
//! devices a file leaves without code — the rules of `offkit check`, over the images a
//! [`scan`](crate::scan) reported.
//!
//! A runtime registers some containers on their own (a module): each bundle of a bundle
//! sequence (a HIP library has one per translation unit, each registered by its own
//! `__hipRegisterFatBinary`) and each CUDA fat binary; offload binaries, which the linker
//! wrapper merged into one registration, belong to the file as a whole. A device is covered by
//! a file when every module that has code of its kind has an image it loads ([`Device::fit`]);
//! of several candidates the best [`Fit::rank`] wins, the first in file order among equals.
//!
//! ```
//! use offkit_format::binary::{self, ImageSpec};
//! use offkit_format::coverage::{self, Status};
//! use offkit_format::device::Device;
//! use offkit_format::kind::{ImageKind, OffloadKind};
//! use offkit_format::scan;
//!
//! let spec = ImageSpec {
//!     image_kind: ImageKind::Object,
//!     offload_kind: OffloadKind::OpenMp,
//!     flags: 0,
//!     strings: vec![(b"triple", b"x86_64-pc-linux-gnu"), (b"arch", b"")],
//! };
//! let bytes = binary::write_v1(&spec, b"\x7fELF...", offkit_llvm::LlvmVersion::V19).unwrap();
//! let report = scan::scan(&bytes, "k.bin", &mut scan::Options::default()).unwrap();
//! let devices = [Device::parse("x86_64").unwrap(), Device::parse("gfx90a").unwrap()];
//! let file = coverage::check_file(&report.images, &devices, false);
//! assert_eq!(file.verdicts[0].status, Status::Covered);
//! assert_eq!(file.verdicts[1].status, Status::Missing);
//! assert_eq!(file.verdicts[1].flag.as_deref(), Some("--offload-arch=gfx90a"));
//! ```

use std::fmt;

use crate::device::{Device, Fit, ImageTargetId};
use crate::kind::{ImageKind, Model};
use crate::scan::{ImageInfo, Location, Source, Step};
use offkit_llvm::triple::Triple;

/// The first bytes of the files a directory search looks at: ELF, archives (GNU/BSD, thin),
/// offload bundles (plain and `CCOB`), offload binaries, bitcode.
pub(crate) const CONTAINER_MAGICS: &[&[u8]] = &[
    b"\x7fELF",
    b"!<arch>\n",
    b"!<thin>\n",
    b"__CLANG_OFFLOAD_BUNDLE__",
    b"CCOB",
    b"\x10\xff\x10\xad",
    b"BC\xc0\xde",
];

/// Whether data starting with `head` looks like a container that may hold device code.
pub fn looks_like_container(head: &[u8]) -> bool {
    CONTAINER_MAGICS.iter().any(|m| head.starts_with(m))
}

/// Whether `i` is a real image: not the one `\0` byte that stands for the host object in a
/// bundled object.
pub fn is_image(i: &ImageInfo) -> bool {
    !matches!(
        i.source,
        Source::BundleSection {
            host_placeholder: true,
            ..
        }
    )
}

/// Whether `i` is code for a device: an image that is not a bundle's host entry.
pub fn is_device_code(i: &ImageInfo) -> bool {
    is_image(i) && !i.offload_kind.is_host()
}

/// The image `device` would load from `images`: the best fit, the first in file order among
/// equals.
pub(crate) fn best<'i>(
    device: &Device,
    images: impl IntoIterator<Item = &'i ImageInfo>,
) -> Option<(&'i ImageInfo, Fit)> {
    let mut found: Option<(&ImageInfo, Fit)> = None;
    for i in images {
        if let Some(f) = device.fit(&i.triple, &i.target_id, i.image_kind) {
            if found.as_ref().is_none_or(|(_, g)| f.rank() > g.rank()) {
                found = Some((i, f));
            }
        }
    }
    found
}

/// What a device's image is found in: the file as a whole (offload binaries, which the linker
/// wrapper merged into one registration), one bundle of a bundle sequence (a HIP library has
/// one per translation unit), or one CUDA fat binary.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Module {
    /// The file as a whole.
    File,
    /// The bundle at this location (`lib.so:.hip_fatbin[3]`).
    Bundle(Location),
    /// Fat binary `index` of the CUDA section at this location.
    Fatbin {
        /// The section.
        section: Location,
        /// The fat binary's index in it.
        index: usize,
    },
}

impl Module {
    /// The module image `i` belongs to, by its location.
    fn of(i: &ImageInfo) -> Module {
        let steps = &i.location.steps;
        let prefix = |at: usize| Location {
            steps: steps.get(..=at).unwrap_or_default().to_vec(),
        };
        if let Source::CudaFatbinEntry(e) = &i.source {
            let section = steps.iter().rposition(|s| matches!(s, Step::Section(_)));
            return Module::Fatbin {
                section: prefix(section.unwrap_or(0)),
                index: e.fatbin_index,
            };
        }
        match steps.iter().rposition(|s| matches!(s, Step::Bundle(_))) {
            Some(at) => Module::Bundle(prefix(at)),
            None => Module::File,
        }
    }
}

impl fmt::Display for Module {
    /// The bundle's location, `<section> fat binary <index>`, or nothing for the file.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Module::File => Ok(()),
            Module::Bundle(at) => at.fmt(f),
            Module::Fatbin { section, index } => write!(f, "{section} fat binary {index}"),
        }
    }
}

/// `images` grouped by [`Module`], in file order.
fn modules(images: &[ImageInfo]) -> Vec<(Module, Vec<&ImageInfo>)> {
    let mut out: Vec<(Module, Vec<&ImageInfo>)> = Vec::new();
    for i in images {
        let key = Module::of(i);
        match out.iter_mut().find(|(k, _)| *k == key) {
            Some((_, v)) => v.push(i),
            None => out.push((key, vec![i])),
        }
    }
    out
}

/// How a device fares in a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Status {
    /// Every module with code of its kind has an image it loads.
    Covered,
    /// Some module (or the file) has no image it loads.
    Missing,
    /// The file, found in a directory search, holds no code for this kind of device at all
    /// (a CUDA library for an AMD GPU).
    NotApplicable,
}

impl Status {
    /// `covered`, `missing` or `n/a`.
    pub fn name(self) -> &'static str {
        match self {
            Status::Covered => "covered",
            Status::Missing => "missing",
            Status::NotApplicable => "n/a",
        }
    }
}

/// What one device gets from one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict<'i> {
    /// How it fares.
    pub status: Status,
    /// The image it would load (from the first module that has one) and how it fits, when it
    /// is covered.
    pub image: Option<(&'i ImageInfo, Fit)>,
    /// How many modules have code of its kind.
    pub units: usize,
    /// When some modules have an image for it and others do not: those that do not.
    pub bundles_without: Vec<Module>,
    /// Why: how the image fits, which bundles lack one, or which feature setting to name
    /// (its `Display` says it for people).
    pub reason: Option<Reason>,
    /// The compile flag that adds code for the device, when it is missing.
    pub flag: Option<String>,
}

/// Why a device fares as it does in a file.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Reason {
    /// Covered: how the image fits, and in how many modules (each has an image).
    Fits {
        /// How the image fits.
        fit: Fit,
        /// The modules with code of the device's kind.
        units: usize,
    },
    /// Missing from some of the modules with code of its kind.
    Incomplete {
        /// The modules without an image for it.
        without: Vec<Module>,
        /// The modules with code of the device's kind.
        units: usize,
    },
    /// The file, found in a directory search, has no code of the device's kind.
    NoCode(Device),
    /// Missing, and the file's code for the device's processor sets features the device was
    /// named without.
    Features {
        /// The device's processor.
        processor: &'static str,
        /// The features the code sets and the device does not name, in file order.
        features: Vec<String>,
    },
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reason::Fits { fit, units } => {
                fit.fmt(f)?;
                if *units > 1 {
                    write!(f, "; an image in each of the {units} bundles")?;
                }
                Ok(())
            }
            Reason::Incomplete { without, units } => {
                let shown: Vec<String> = without.iter().take(3).map(Module::to_string).collect();
                let more = if without.len() > shown.len() {
                    ", …"
                } else {
                    ""
                };
                write!(
                    f,
                    "{} of the {units} bundles have no image for it: {}{more}",
                    without.len(),
                    shown.join(", "),
                )
            }
            Reason::NoCode(d) => write!(f, "no {} code in this file", d.kind_name()),
            Reason::Features {
                processor,
                features,
            } => write!(
                f,
                "its {processor} code sets {}: name the device's setting, e.g. `{processor}:{}-`",
                features.join(" and "),
                features.join("-:")
            ),
        }
    }
}

/// What a file's images are for, one kind and triple: `hipv4 amdgcn-amd-amdhsa gfx1030
/// gfx90a:xnack+` (PTX marked `(ptx)`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Available {
    /// The programming model.
    pub offload_kind: Model,
    /// The triple (may be empty).
    pub triple: Triple,
    /// The target IDs, in file order, each once, with whether its image is PTX; empty ones
    /// left out.
    pub target_ids: Vec<(ImageTargetId, bool)>,
}

impl fmt::Display for Available {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.offload_kind.fmt(f)?;
        if !self.triple.as_bytes().is_empty() {
            write!(f, " {}", String::from_utf8_lossy(self.triple.as_bytes()))?;
        }
        for (id, ptx) in &self.target_ids {
            write!(f, " {id}{}", if *ptx { " (ptx)" } else { "" })?;
        }
        Ok(())
    }
}

/// What one file offers a set of devices.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileCoverage<'i> {
    /// What the images are for, grouped by kind and triple in file order.
    pub available: Vec<Available>,
    /// One verdict per device, in the order given.
    pub verdicts: Vec<Verdict<'i>>,
}

impl FileCoverage<'_> {
    /// Whether no device is missing (devices not applicable do not count).
    pub(crate) fn covered(&self) -> bool {
        self.verdicts.iter().all(|v| v.status != Status::Missing)
    }
}

/// How each of `devices` fares in a file whose device images are `images` (the scan's images
/// that are [device code](is_device_code)); `from_dir` when the file was found in a
/// directory search, where a file without code of a device's kind is not applicable to it
/// rather than missing it.
pub fn check_file<'i>(
    images: &'i [ImageInfo],
    devices: &[Device],
    from_dir: bool,
) -> FileCoverage<'i> {
    let modules = modules(images);
    let verdicts = devices
        .iter()
        .map(|d| verdict(d, images, &modules, from_dir))
        .collect();
    FileCoverage {
        available: available(images),
        verdicts,
    }
}

/// One input of [`check`]: a file's device-code images, or `None` when it could not be read.
#[derive(Debug, Clone, Copy)]
pub struct Input<'i> {
    /// The file's images that are [device code](is_device_code); `None`: unreadable.
    pub images: Option<&'i [ImageInfo]>,
    /// Whether a directory search found the file.
    pub from_dir: bool,
}

/// The coverage of a set of devices by a set of files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report<'i> {
    /// For each input, in order: what it offers (no verdicts for an unreadable file), or `None`
    /// when it is skipped (found in a directory search, without device code).
    pub files: Vec<Option<FileCoverage<'i>>>,
    /// The indices of the devices no file is applicable to (of those found in directories, none
    /// holds code of their kind).
    pub nowhere: Vec<usize>,
    /// Whether every input could be read, no device is missing from any, and every device has
    /// a file applicable to it: what `offkit check`'s exit status 0 says.
    pub covered: bool,
}

/// How `devices` fare in every input ([`check_file`] for each, and the verdict on the whole).
pub fn check<'i>(inputs: &[Input<'i>], devices: &[Device]) -> Report<'i> {
    let files: Vec<Option<FileCoverage<'i>>> = inputs
        .iter()
        .map(|input| match input.images {
            None => Some(check_file(&[], &[], input.from_dir)),
            Some(images) if images.is_empty() && input.from_dir => None,
            Some(images) => Some(check_file(images, devices, input.from_dir)),
        })
        .collect();
    let applicable = |n: usize| {
        files.iter().flatten().any(|f| {
            f.verdicts
                .get(n)
                .is_some_and(|v| v.status != Status::NotApplicable)
        })
    };
    let nowhere: Vec<usize> = (0..devices.len()).filter(|&n| !applicable(n)).collect();
    let covered = inputs.iter().all(|i| i.images.is_some())
        && files.iter().flatten().all(FileCoverage::covered)
        && nowhere.is_empty();
    Report {
        files,
        nowhere,
        covered,
    }
}

fn verdict<'i>(
    d: &Device,
    images: &'i [ImageInfo],
    modules: &[(Module, Vec<&'i ImageInfo>)],
    from_dir: bool,
) -> Verdict<'i> {
    let relevant: Vec<_> = modules
        .iter()
        .filter(|(_, imgs)| imgs.iter().any(|i| d.same_kind(&i.triple)))
        .collect();
    let mut found = None;
    let mut without = Vec::new();
    for (key, imgs) in &relevant {
        match best(d, imgs.iter().copied()) {
            Some(b) => {
                found.get_or_insert(b);
            }
            None => without.push(key.clone()),
        }
    }
    let units = relevant.len();
    let missing = |reason, bundles_without| Verdict {
        status: Status::Missing,
        image: None,
        units,
        bundles_without,
        reason,
        flag: Some(d.flag()),
    };
    match found {
        Some((i, f)) if without.is_empty() => Verdict {
            status: Status::Covered,
            image: Some((i, f.clone())),
            units,
            bundles_without: Vec::new(),
            reason: Some(Reason::Fits { fit: f, units }),
            flag: None,
        },
        // Some modules have code for the device and some do not: a HIP library whose
        // translation units were built for different targets fails at its first kernel from
        // a module without it.
        Some(_) => missing(
            Some(Reason::Incomplete {
                without: without.clone(),
                units,
            }),
            without,
        ),
        None if from_dir && !images.iter().any(|i| d.same_kind(&i.triple)) => Verdict {
            status: Status::NotApplicable,
            image: None,
            units,
            bundles_without: Vec::new(),
            reason: Some(Reason::NoCode(d.clone())),
            flag: None,
        },
        None => missing(feature_hint(d, images), Vec::new()),
    }
}

/// What the images are for, grouped by kind and triple in file order.
fn available(images: &[ImageInfo]) -> Vec<Available> {
    let mut groups: Vec<Available> = Vec::new();
    for i in images {
        // Grouped as they read: an offload kind and a bundle kind of one name are one group.
        let kind = i.offload_kind.to_string();
        let at = match groups
            .iter()
            .position(|g| g.offload_kind.to_string() == kind && g.triple == i.triple)
        {
            Some(at) => at,
            None => {
                groups.push(Available {
                    offload_kind: i.offload_kind.clone(),
                    triple: i.triple.clone(),
                    target_ids: Vec::new(),
                });
                groups.len() - 1
            }
        };
        let id = (i.target_id.clone(), i.image_kind == ImageKind::Ptx);
        if let Some(g) = groups.get_mut(at) {
            if !id.0.is_empty() && !g.target_ids.contains(&id) {
                g.target_ids.push(id);
            }
        }
    }
    groups
}

/// The hint for an AMD device written without a feature that the file's images set (by the
/// target IDs as written).
fn feature_hint(device: &Device, images: &[ImageInfo]) -> Option<Reason> {
    let Device::Amdgpu {
        processor,
        features,
    } = device
    else {
        return None;
    };
    let mut missing: Vec<String> = Vec::new();
    for i in images {
        let mut parts = i.target_id.as_str().split(':');
        if parts.next() != Some(processor) {
            continue;
        }
        for f in parts {
            let name = f.trim_end_matches(['+', '-']);
            if !features.iter().any(|(n, _)| n == name) && !missing.iter().any(|m| m == name) {
                missing.push(name.to_string());
            }
        }
    }
    (!missing.is_empty()).then_some(Reason::Features {
        processor,
        features: missing,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::binary::{self, ImageSpec};
    use crate::kind::OffloadKind;
    use crate::scan;

    fn x86_images() -> Vec<ImageInfo> {
        let spec = ImageSpec {
            image_kind: ImageKind::Object,
            offload_kind: OffloadKind::OpenMp,
            flags: 0,
            strings: vec![(b"triple", b"x86_64-pc-linux-gnu"), (b"arch", b"")],
        };
        let bytes = binary::write_v1(&spec, b"\x7fELF", offkit_llvm::LlvmVersion::V19).unwrap();
        scan::scan(&bytes, "k.bin", &mut scan::Options::default())
            .unwrap()
            .images
    }

    #[test]
    fn whole_report() {
        let x86 = x86_images();
        let devices = [
            Device::parse("x86_64").unwrap(),
            Device::parse("gfx90a").unwrap(),
        ];
        // In a directory: a file without code is skipped, one without AMD GPU code is not
        // applicable to gfx90a, which no file is applicable to.
        let dir = [
            Input {
                images: Some(&x86),
                from_dir: true,
            },
            Input {
                images: Some(&[]),
                from_dir: true,
            },
        ];
        let r = check(&dir, &devices);
        let statuses: Vec<_> = r.files[0]
            .as_ref()
            .unwrap()
            .verdicts
            .iter()
            .map(|v| v.status)
            .collect();
        assert_eq!(statuses, [Status::Covered, Status::NotApplicable]);
        assert_eq!(r.files[1], None);
        assert_eq!((r.nowhere, r.covered), (vec![1], false));
        // Named on its own, the file misses gfx90a.
        let r = check(
            &[Input {
                images: Some(&x86),
                from_dir: false,
            }],
            &devices,
        );
        assert_eq!(
            r.files[0].as_ref().unwrap().verdicts[1].status,
            Status::Missing
        );
        assert!(!r.covered);
        assert!(
            check(
                &[Input {
                    images: Some(&x86),
                    from_dir: false
                }],
                &devices[..1]
            )
            .covered
        );
        // An unreadable file has no verdicts and is never covered.
        let r = check(
            &[Input {
                images: None,
                from_dir: false,
            }],
            &devices[..1],
        );
        assert!(r.files[0].as_ref().unwrap().verdicts.is_empty());
        assert!(!r.covered);
    }
}
