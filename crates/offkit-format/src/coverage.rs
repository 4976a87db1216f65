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

use crate::device::{Device, Fit};
use crate::kind::ImageKind;
use crate::scan::{ImageInfo, Location, Source, Step};

/// The first bytes of the files a directory search looks at: ELF, archives (GNU/BSD, thin),
/// offload bundles (plain and `CCOB`), offload binaries, bitcode.
pub const CONTAINER_MAGICS: &[&[u8]] = &[
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
    is_image(i) && i.offload_kind != "host"
}

/// The image `device` would load from `images`: the best fit, the first in file order among
/// equals.
pub fn best<'i>(
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

/// How `f` fits, in a word: `exact`, `any`, `generic`, `cubin`, `ptx`, `triple`.
pub fn fit_name(f: &Fit) -> &'static str {
    match f {
        Fit::Exact => "exact",
        Fit::Any { .. } => "any",
        Fit::Generic { .. } => "generic",
        Fit::Cubin { .. } => "cubin",
        Fit::Ptx { .. } => "ptx",
        Fit::Triple => "triple",
    }
}

/// The module `i` belongs to, named by its location: the bundle of a sequence or the CUDA fat
/// binary it is in; `""` for the file as a whole.
fn module(i: &ImageInfo) -> String {
    let steps = &i.location.steps;
    if let Source::CudaFatbinEntry(e) = &i.source {
        let section = steps.iter().rposition(|s| matches!(s, Step::Section(_)));
        let prefix = Location {
            steps: steps
                .get(..=section.unwrap_or(0))
                .unwrap_or_default()
                .to_vec(),
        };
        return format!("{prefix} fat binary {}", e.fatbin_index);
    }
    match steps.iter().rposition(|s| matches!(s, Step::Bundle(_))) {
        Some(at) => Location {
            steps: steps.get(..=at).unwrap_or_default().to_vec(),
        }
        .to_string(),
        None => String::new(),
    }
}

/// `images` grouped by [`module`], in file order.
fn modules(images: &[ImageInfo]) -> Vec<(String, Vec<&ImageInfo>)> {
    let mut out: Vec<(String, Vec<&ImageInfo>)> = Vec::new();
    for i in images {
        let key = module(i);
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
    pub bundles_without: Vec<String>,
    /// Why, for people: how the image fits, which bundles lack one, or which feature setting
    /// to name.
    pub reason: Option<String>,
    /// The compile flag that adds code for the device, when it is missing.
    pub flag: Option<String>,
}

/// What one file offers a set of devices.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileCoverage<'i> {
    /// What the images are for, grouped by kind and triple in file order:
    /// `hipv4 amdgcn-amd-amdhsa gfx1030 gfx90a:xnack+` (PTX marked `(ptx)`).
    pub available: Vec<String>,
    /// One verdict per device, in the order given.
    pub verdicts: Vec<Verdict<'i>>,
}

impl FileCoverage<'_> {
    /// Whether no device is missing (devices not applicable do not count).
    pub fn covered(&self) -> bool {
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
    modules: &[(String, Vec<&'i ImageInfo>)],
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
        Some((i, f)) if without.is_empty() => {
            let mut reason = f.to_string();
            if units > 1 {
                reason.push_str(&format!("; an image in each of the {units} bundles"));
            }
            Verdict {
                status: Status::Covered,
                image: Some((i, f)),
                units,
                bundles_without: Vec::new(),
                reason: Some(reason),
                flag: None,
            }
        }
        // Some modules have code for the device and some do not: a HIP library whose
        // translation units were built for different targets fails at its first kernel from
        // a module without it.
        Some(_) => {
            let shown: Vec<&str> = without.iter().take(3).map(String::as_str).collect();
            let more = if without.len() > shown.len() {
                ", …"
            } else {
                ""
            };
            let reason = format!(
                "{} of the {units} bundles have no image for it: {}{more}",
                without.len(),
                shown.join(", "),
            );
            missing(Some(reason), without)
        }
        None if from_dir && !images.iter().any(|i| d.same_kind(&i.triple)) => Verdict {
            status: Status::NotApplicable,
            image: None,
            units,
            bundles_without: Vec::new(),
            reason: Some(format!("no {} code in this file", d.kind_name())),
            flag: None,
        },
        None => missing(feature_hint(d, images), Vec::new()),
    }
}

/// What the images are for, grouped by kind and triple in file order.
fn available(images: &[ImageInfo]) -> Vec<String> {
    let mut groups: Vec<(String, Vec<String>)> = Vec::new();
    for i in images {
        let key = if i.triple.is_empty() {
            i.offload_kind.clone()
        } else {
            format!("{} {}", i.offload_kind, i.triple)
        };
        let mut id = i.target_id.clone();
        if i.image_kind == ImageKind::Ptx {
            id.push_str(" (ptx)");
        }
        let at = match groups.iter().position(|(k, _)| *k == key) {
            Some(at) => at,
            None => {
                groups.push((key, Vec::new()));
                groups.len() - 1
            }
        };
        if let Some((_, ids)) = groups.get_mut(at) {
            if !id.is_empty() && !ids.contains(&id) {
                ids.push(id);
            }
        }
    }
    groups
        .into_iter()
        .map(|(k, ids)| {
            if ids.is_empty() {
                k
            } else {
                format!("{k} {}", ids.join(" "))
            }
        })
        .collect()
}

/// The hint for an AMD device written without a feature that the file's images set.
fn feature_hint(device: &Device, images: &[ImageInfo]) -> Option<String> {
    let Device::Amdgpu {
        processor,
        features,
    } = device
    else {
        return None;
    };
    let mut missing: Vec<&str> = Vec::new();
    for i in images {
        let mut parts = i.target_id.split(':');
        if parts.next() != Some(processor) {
            continue;
        }
        for f in parts {
            let name = f.trim_end_matches(['+', '-']);
            if !features.iter().any(|(n, _)| n == name) && !missing.contains(&name) {
                missing.push(name);
            }
        }
    }
    (!missing.is_empty()).then(|| {
        format!(
            "its {processor} code sets {}: name the device's setting, e.g. `{processor}:{}-`",
            missing.join(" and "),
            missing.join("-:")
        )
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
