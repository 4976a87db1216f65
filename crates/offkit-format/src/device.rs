//! Which device image a device would load: the loaders' rules over target IDs, for
//! `offkit check` and `--device` selections.
//!
//! - **AMD GPUs** (LLVM's `isCodeObjectCompatible` in the bundler, and the HIP runtime's rule):
//!   the image's processor is the device's, or a generic target whose family holds it
//!   (`gfx9-generic` for `gfx906`, `gfx9-4-generic` for `gfx950`, as the newest LLVM's AMDGPU
//!   documentation lists them); every feature
//!   the image sets (`xnack+`, `sramecc-`) is set the same way on the device; a feature the
//!   image leaves out is "any". A device written without a feature (`gfx90a`) has it *unknown*:
//!   only images that leave it as "any" are sure to load. Of several candidates, the loader
//!   prefers the device's own processor over a generic target, and then the image that sets
//!   more of the device's features.
//! - **NVIDIA GPUs** (CUDA's binary compatibility): a cubin for `sm_XY` or a family-specific
//!   `sm_XYf` runs on a device of the same major version and a minor at least `Y`; an
//!   architecture-specific cubin (`sm_90a`) only on that exact device. PTX for `sm_XY` (or `compute_XY`) is compiled by the driver for
//!   any device of version `XY` or later. Cubins are preferred, the closest version first.
//! - **Anything else** (`x86_64`, a triple): images whose triple has that architecture (and
//!   the vendor, OS and environment the device names, where it names them).
//!
//! ```
//! use offkit_format::kind::ImageKind;
//! use offkit_format::device::{Device, Fit, ImageTargetId};
//! use offkit_llvm::triple::Triple;
//!
//! // An image's triple and target ID are read once; fitting is a comparison.
//! let amd = Triple::parse("amdgcn-amd-amdhsa");
//! let image = |id: &str| ImageTargetId::read(&amd, id);
//! let d = Device::parse("gfx90a:xnack+").unwrap();
//! let o = ImageKind::Object;
//! assert_eq!(d.fit(&amd, &image("gfx90a:xnack+"), o), Some(Fit::Exact));
//! assert!(d.fit(&amd, &image("gfx90a"), o).is_some());
//! assert!(d.fit(&amd, &image("gfx90a:xnack-"), o).is_none());
//! let d = Device::parse("gfx906").unwrap();
//! assert!(matches!(d.fit(&amd, &image("gfx9-generic"), o), Some(Fit::Generic { .. })));
//! let nv = Triple::parse("nvptx64-nvidia-cuda");
//! let d = Device::parse("sm_86").unwrap();
//! assert!(d.fit(&nv, &ImageTargetId::read(&nv, "sm_80"), ImageKind::Cubin).is_some());
//! assert!(d.fit(&nv, &ImageTargetId::read(&nv, "sm_89"), ImageKind::Cubin).is_none());
//! ```

use std::fmt;

use crate::kind::ImageKind;
use crate::{Error, Result};
use offkit_llvm::target_id::{amdgpu, TargetId};
use offkit_llvm::triple::{Arch, Triple};
use offkit_llvm::LlvmVersion;

/// The generic target whose code runs on `processor` (canonical name), in the newest LLVM
/// offkit knows.
pub(crate) fn generic_target_of(processor: &str) -> Option<&'static str> {
    amdgpu::generic_target(LlvmVersion::NEWEST, processor)
}

/// Whether `processor` is one of the generic targets of the newest LLVM offkit knows.
pub(crate) fn is_generic(processor: &str) -> bool {
    amdgpu::is_generic(LlvmVersion::NEWEST, processor)
}

/// What an NVIDIA architecture's suffix says about where its code runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SmVariant {
    /// `sm_90`: the architecture and, for a cubin, later minors of its major version.
    Base,
    /// `sm_100f` (family-specific, LLVM 21 and later): devices of the same major version and
    /// a minor at least its own.
    Family,
    /// `sm_90a` (architecture-specific): that exact device only.
    Specific,
}

/// An NVIDIA architecture version: `sm_86` is 8.6; `sm_90a` is 9.0, architecture-specific;
/// `sm_100f` is 10.0, family-specific.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Sm {
    /// The major version.
    pub major: u32,
    /// The minor version.
    pub minor: u32,
    /// The suffix (`a`, `f` or none).
    pub variant: SmVariant,
}

impl Sm {
    /// Parses `sm_XY`, `sm_XYa`, `sm_XYf`, `compute_XY…` (the last digit is the minor version).
    pub fn parse(s: &str) -> Option<Sm> {
        let digits = s
            .strip_prefix("sm_")
            .or_else(|| s.strip_prefix("compute_"))?;
        let (digits, variant) = if let Some(d) = digits.strip_suffix('a') {
            (d, SmVariant::Specific)
        } else if let Some(d) = digits.strip_suffix('f') {
            (d, SmVariant::Family)
        } else {
            (digits, SmVariant::Base)
        };
        if digits.len() < 2 || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let (major, minor) = digits.split_at(digits.len() - 1);
        Some(Sm {
            major: major.parse().ok()?,
            minor: minor.parse().ok()?,
            variant,
        })
    }

    fn version(self) -> u32 {
        self.major.saturating_mul(10).saturating_add(self.minor)
    }

    /// Whether code for `self` (a cubin when `cubin`, else PTX) runs on device `dev`.
    fn runs_on(self, dev: Sm, cubin: bool) -> bool {
        match self.variant {
            SmVariant::Specific => self == dev,
            SmVariant::Family => self.major == dev.major && self.minor <= dev.minor,
            SmVariant::Base if cubin => self.major == dev.major && self.minor <= dev.minor,
            SmVariant::Base => self.version() <= dev.version(),
        }
    }
}

impl fmt::Display for Sm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let suffix = match self.variant {
            SmVariant::Base => "",
            SmVariant::Family => "f",
            SmVariant::Specific => "a",
        };
        write!(f, "sm_{}{}{suffix}", self.major, self.minor)
    }
}

/// A target ID as an image states it, read once for the image's triple: the text as written,
/// and what offkit makes of it ([`Reading`]).
///
/// ```
/// use offkit_format::device::{ImageTargetId, Reading};
/// use offkit_llvm::triple::Triple;
///
/// let amdgcn = Triple::parse("amdgcn-amd-amdhsa");
/// let id = ImageTargetId::read(&amdgcn, "fiji");
/// assert_eq!(id.as_str(), "fiji");
/// assert!(matches!(id.reading(), Reading::Amdgpu { processor, .. } if processor == "gfx803"));
/// let id = ImageTargetId::read(&Triple::parse("nvptx64-nvidia-cuda"), "sm_80");
/// assert!(matches!(id.reading(), Reading::Nvidia { .. }));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ImageTargetId {
    text: String,
    reading: Reading,
}

/// What offkit makes of an image's target ID.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Reading {
    /// An AMD GPU target ID of an `amdgcn` image ([`TargetId::parse_any`]).
    Amdgpu {
        /// The processor's canonical name (`gfx803` for `fiji`), or a generic target.
        processor: String,
        /// The features set (`xnack`, on), in the order written.
        features: Vec<(String, bool)>,
    },
    /// The architecture of an `nvptx` image (`sm_80`, `compute_80`).
    Nvidia {
        /// The architecture.
        sm: Sm,
        /// Written as a virtual architecture (`compute_80`): PTX.
        virtual_arch: bool,
    },
    /// Nothing offkit reads: empty, another target, or text that does not parse.
    None,
}

impl ImageTargetId {
    /// The target ID `text` of an image for `triple`, read.
    pub fn read(triple: &Triple, text: impl Into<String>) -> ImageTargetId {
        let text = text.into();
        let reading = if triple.is_amdgcn() {
            match TargetId::parse_any(triple, text.as_str()) {
                Ok(id) => Reading::Amdgpu {
                    processor: String::from_utf8_lossy(id.processor()).into_owned(),
                    features: id
                        .features()
                        .iter()
                        .map(|f| (String::from_utf8_lossy(f.name).into_owned(), f.on))
                        .collect(),
                },
                Err(_) => Reading::None,
            }
        } else if triple.is_nvptx() {
            match Sm::parse(&text) {
                Some(sm) => Reading::Nvidia {
                    sm,
                    virtual_arch: text.starts_with("compute_"),
                },
                None => Reading::None,
            }
        } else {
            Reading::None
        };
        ImageTargetId { text, reading }
    }

    /// The target ID as written (may be empty).
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Whether none is written.
    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
    }

    /// What offkit makes of it.
    pub fn reading(&self) -> &Reading {
        &self.reading
    }
}

impl fmt::Display for ImageTargetId {
    /// The target ID as written.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// A device, as `--device` names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Device {
    /// An AMD GPU: a processor offkit knows (the newest LLVM's table; canonical name) and the
    /// features the device is known to have on or off.
    Amdgpu {
        /// The canonical processor (`gfx90a`).
        processor: &'static str,
        /// `(feature, on)` for the features given, sorted by name.
        features: Vec<(String, bool)>,
    },
    /// An NVIDIA GPU.
    Nvidia(Sm),
    /// Anything named by a triple or an architecture (`x86_64`, `x86_64-pc-linux-gnu`).
    Triple(Triple),
}

impl Device {
    /// Parses a device: an AMD GPU target ID (`gfx90a:xnack-`, `gfx1100`; alternative names
    /// such as `fiji` are canonicalised), an NVIDIA `sm_XY`, or a triple or architecture name.
    /// Generic targets are not devices.
    pub fn parse(s: &str) -> Result<Device> {
        let bad = |reason: String| Error::Invalid {
            what: "device",
            offset: 0,
            reason,
        };
        if let Some(sm) = Sm::parse(s) {
            if s.starts_with("compute_") {
                return Err(bad(format!(
                    "`{s}` is a virtual architecture; name a GPU such as `sm_{}{}`",
                    sm.major, sm.minor
                )));
            }
            return Ok(Device::Nvidia(sm));
        }
        let amdgcn = Triple::parse("amdgcn-amd-amdhsa");
        let newest = LlvmVersion::NEWEST;
        let processor = s.split(':').next().unwrap_or_default();
        if amdgpu::canonical_name(newest, &amdgcn, processor.as_bytes()).is_some() {
            let id = TargetId::parse(newest, &amdgcn, s)?;
            let processor =
                amdgpu::canonical_name(newest, &amdgcn, id.processor()).unwrap_or_default();
            if is_generic(processor) {
                let members = amdgpu::generic_members(newest, processor)
                    .collect::<Vec<_>>()
                    .join(", ");
                return Err(bad(format!(
                    "`{processor}` is a generic target, not a device; name one of its processors ({members})"
                )));
            }
            let mut features: Vec<(String, bool)> = id
                .features()
                .iter()
                .map(|f| (String::from_utf8_lossy(f.name).into_owned(), f.on))
                .collect();
            features.sort();
            return Ok(Device::Amdgpu {
                processor,
                features,
            });
        }
        if let Some(old) = LlvmVersion::ALL
            .into_iter()
            .rev()
            .find(|&v| amdgpu::canonical_name(v, &amdgcn, processor.as_bytes()).is_some())
        {
            return Err(bad(format!(
                "`{processor}` is a processor of LLVM {old} that LLVM {newest} dropped; \
                 offkit takes the processors of LLVM {newest} as devices"
            )));
        }
        if processor.starts_with("gfx") {
            return Err(bad(format!(
                "`{processor}` is not an AMD GPU processor offkit knows (LLVM {newest}'s table)"
            )));
        }
        let triple = Triple::parse(s);
        if triple.arch() == Arch::Unknown {
            return Err(bad(format!(
                "`{s}` is neither an AMD GPU target ID (`gfx90a:xnack-`), an NVIDIA \
                 architecture (`sm_80`) nor a triple or architecture (`x86_64`)"
            )));
        }
        Ok(Device::Triple(triple))
    }

    /// How the image (`triple`, `target_id`, `kind`) would load on this device, or `None`.
    pub fn fit(&self, t: &Triple, target_id: &ImageTargetId, kind: ImageKind) -> Option<Fit> {
        match self {
            Device::Amdgpu {
                processor,
                features,
            } => {
                if !t.is_amdgcn() {
                    return None;
                }
                let Reading::Amdgpu {
                    processor: image,
                    features: image_features,
                } = target_id.reading()
                else {
                    return None;
                };
                let generic = image != processor;
                if generic && generic_target_of(processor) != Some(image.as_str()) {
                    return None;
                }
                for (name, on) in image_features {
                    let device = features.iter().find(|(n, _)| n == name).map(|&(_, on)| on);
                    if device != Some(*on) {
                        return None;
                    }
                }
                let any: Vec<String> = features
                    .iter()
                    .filter(|(n, _)| !image_features.iter().any(|(m, _)| m == n))
                    .map(|(n, _)| n.clone())
                    .collect();
                Some(if generic {
                    Fit::Generic {
                        target: image.clone(),
                        any,
                    }
                } else if any.is_empty() {
                    Fit::Exact
                } else {
                    Fit::Any { features: any }
                })
            }
            Device::Nvidia(dev) => {
                if !t.is_nvptx() {
                    return None;
                }
                let Reading::Nvidia { sm, virtual_arch } = *target_id.reading() else {
                    return None;
                };
                if kind == ImageKind::Ptx || virtual_arch {
                    // PTX is JIT-compiled for any later device (family PTX for later devices
                    // of its family, arch-specific PTX only for that device).
                    return sm.runs_on(*dev, false).then_some(Fit::Ptx { sm });
                }
                sm.runs_on(*dev, true).then_some(if sm == *dev {
                    Fit::Exact
                } else {
                    Fit::Cubin { sm }
                })
            }
            Device::Triple(d) => {
                let named = |want: &[u8], have: &[u8]| {
                    want.is_empty() || want == b"unknown" || want == have
                };
                (t.arch() == d.arch()
                    && named(d.vendor_name(), t.vendor_name())
                    && named(d.os_name(), t.os_name())
                    && named(d.environment_name(), t.environment_name()))
                .then_some(Fit::Triple)
            }
        }
    }

    /// Whether an image for `t` is code for this kind of device at all (AMD GPU code for an
    /// AMD GPU, NVIDIA GPU code for an NVIDIA GPU, the same architecture otherwise), whether
    /// or not it would load.
    pub fn same_kind(&self, t: &Triple) -> bool {
        match self {
            Device::Amdgpu { .. } => t.is_amdgcn(),
            Device::Nvidia(_) => t.is_nvptx(),
            Device::Triple(d) => t.arch() == d.arch(),
        }
    }

    /// What kind of device this is, for messages: `AMD GPU`, `NVIDIA GPU`, `x86_64`.
    pub fn kind_name(&self) -> String {
        match self {
            Device::Amdgpu { .. } => "AMD GPU".into(),
            Device::Nvidia(_) => "NVIDIA GPU".into(),
            Device::Triple(t) => String::from_utf8_lossy(t.arch_name()).into_owned(),
        }
    }

    /// The compile flag that adds code for this device (`--offload-arch=gfx90a:xnack-`,
    /// `--offload-arch=sm_80`, `-fopenmp-targets=x86_64-pc-linux-gnu`).
    pub fn flag(&self) -> String {
        match self {
            Device::Triple(t) => {
                format!("-fopenmp-targets={}", String::from_utf8_lossy(t.as_bytes()))
            }
            d => format!("--offload-arch={d}"),
        }
    }
}

impl fmt::Display for Device {
    /// The canonical form: `gfx90a:sramecc+:xnack-`, `sm_80`, the triple.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Device::Amdgpu {
                processor,
                features,
            } => {
                f.write_str(processor)?;
                for (n, on) in features {
                    write!(f, ":{n}{}", if *on { '+' } else { '-' })?;
                }
                Ok(())
            }
            Device::Nvidia(sm) => sm.fmt(f),
            Device::Triple(t) => f.write_str(&String::from_utf8_lossy(t.as_bytes())),
        }
    }
}

/// How an image fits a device. [`Fit::rank`] orders the candidates as the loader prefers them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fit {
    /// Made for exactly this device: the same processor and feature settings, or the same
    /// `sm_XY` cubin.
    Exact,
    /// The device's processor, with these of the device's features left as "any".
    Any {
        /// The features the image leaves as "any".
        features: Vec<String>,
    },
    /// Code for a generic target that covers the device's processor.
    Generic {
        /// The generic target (`gfx9-generic`).
        target: String,
        /// The device features the image leaves as "any".
        any: Vec<String>,
    },
    /// A cubin for an earlier minor version of the device's major version.
    Cubin {
        /// The cubin's architecture.
        sm: Sm,
    },
    /// PTX the driver compiles for the device when the program loads.
    Ptx {
        /// The architecture the PTX was written for.
        sm: Sm,
    },
    /// The image's triple names the device's architecture.
    Triple,
}

impl Fit {
    /// How it fits, in a word: `exact`, `any`, `generic`, `cubin`, `ptx`, `triple`.
    pub fn name(&self) -> &'static str {
        match self {
            Fit::Exact => "exact",
            Fit::Any { .. } => "any",
            Fit::Generic { .. } => "generic",
            Fit::Cubin { .. } => "cubin",
            Fit::Ptx { .. } => "ptx",
            Fit::Triple => "triple",
        }
    }

    /// The loader's preference: larger is better.
    pub fn rank(&self) -> (u32, u32) {
        match self {
            Fit::Exact | Fit::Triple => (5, 0),
            Fit::Any { features } => (4, u32::MAX - features.len() as u32),
            Fit::Cubin { sm } => (3, sm.minor),
            Fit::Generic { any, .. } => (2, u32::MAX - any.len() as u32),
            Fit::Ptx { sm } => (1, sm.version()),
        }
    }
}

impl fmt::Display for Fit {
    /// Why the image fits, for people: `exact`, `xnack any`, `generic target gfx9-generic`,
    /// `sm_80 cubin`, `PTX for sm_70, compiled by the driver at load time`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Fit::Exact => f.write_str("exact"),
            Fit::Triple => f.write_str("same architecture"),
            Fit::Any { features } => write!(f, "{} any", features.join(", ")),
            Fit::Generic { target, .. } => write!(f, "generic target {target}"),
            Fit::Cubin { sm } => write!(f, "{sm} cubin (same major version)"),
            Fit::Ptx { sm } => write!(f, "PTX for {sm}, compiled by the driver at load time"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const AMD: &str = "amdgcn-amd-amdhsa";
    const NV: &str = "nvptx64-nvidia-cuda";

    fn fits(device: &str, triple: &str, id: &str, kind: ImageKind) -> Option<Fit> {
        fit(&Device::parse(device).unwrap(), triple, id, kind)
    }

    fn fit(d: &Device, triple: &str, id: &str, kind: ImageKind) -> Option<Fit> {
        let t = Triple::parse(triple);
        d.fit(&t, &ImageTargetId::read(&t, id), kind)
    }

    fn same_kind(d: &Device, triple: &str) -> bool {
        d.same_kind(&Triple::parse(triple))
    }

    #[test]
    fn amd_features() {
        let o = ImageKind::Object;
        // Device with xnack on: any and on, never off.
        assert_eq!(
            fits("gfx90a:xnack+", AMD, "gfx90a:xnack+", o),
            Some(Fit::Exact)
        );
        assert_eq!(
            fits("gfx90a:xnack+", AMD, "gfx90a", o),
            Some(Fit::Any {
                features: vec!["xnack".into()]
            })
        );
        assert_eq!(fits("gfx90a:xnack+", AMD, "gfx90a:xnack-", o), None);
        // A feature the device does not state is unknown: only "any" images are sure.
        assert_eq!(fits("gfx90a", AMD, "gfx90a:xnack-", o), None);
        assert_eq!(fits("gfx90a", AMD, "gfx90a", o), Some(Fit::Exact));
        assert_eq!(fits("gfx90a:xnack+", AMD, "gfx90a:sramecc+", o), None);
        assert!(fits("gfx90a:sramecc-:xnack+", AMD, "gfx90a:xnack+", o).is_some());
        assert_eq!(fits("gfx908", AMD, "gfx90a", o), None);
        assert_eq!(fits("gfx90a", NV, "gfx90a", o), None);
        // Alternative names are canonical.
        assert_eq!(fits("fiji", AMD, "gfx803", o), Some(Fit::Exact));
    }

    #[test]
    fn amd_generic() {
        let o = ImageKind::Object;
        assert!(matches!(
            fits("gfx906:xnack-", AMD, "gfx9-generic", o),
            Some(Fit::Generic { .. })
        ));
        assert!(fits("gfx906:xnack-", AMD, "gfx9-generic:xnack-", o).is_some());
        assert_eq!(fits("gfx906:xnack-", AMD, "gfx9-generic:xnack+", o), None);
        // gfx90a is in no generic family.
        assert_eq!(fits("gfx90a", AMD, "gfx9-generic", o), None);
        assert!(fits("gfx1103", AMD, "gfx11-generic", o).is_some());
        assert_eq!(fits("gfx1200", AMD, "gfx11-generic", o), None);
        assert!(Device::parse("gfx9-generic").is_err());
        assert!(Device::parse("gfx950:xnack-").is_ok());
        assert!(Device::parse("gfx1250").is_ok());
        assert!(Device::parse("gfx1250:xnack+").is_err());
        assert!(Device::parse("gfx9-4-generic").is_err());
        assert!(Device::parse("gfx999").is_err());
        assert!(Device::parse("gfx941").is_err());
        assert!(fits("gfx950", AMD, "gfx9-4-generic", o).is_some());
        assert!(fits("gfx1153", AMD, "gfx11-generic", o).is_some());
        assert_eq!(fits("gfx90a", AMD, "gfx9-4-generic", o), None);
        assert!(Device::parse("gfx1030:xnack+").is_err());
        // The device's own processor beats a generic target; a closer feature match beats
        // "any".
        let d = Device::parse("gfx906:xnack+").unwrap();
        let exact = fit(&d, AMD, "gfx906:xnack+", o).unwrap().rank();
        let any = fit(&d, AMD, "gfx906", o).unwrap().rank();
        let generic = fit(&d, AMD, "gfx9-generic:xnack+", o).unwrap().rank();
        assert!(exact > any && any > generic);
    }

    #[test]
    fn nvidia() {
        let c = ImageKind::Cubin;
        assert_eq!(fits("sm_80", NV, "sm_80", c), Some(Fit::Exact));
        assert!(matches!(
            fits("sm_86", NV, "sm_80", c),
            Some(Fit::Cubin { .. })
        ));
        assert_eq!(fits("sm_80", NV, "sm_86", c), None);
        assert_eq!(fits("sm_90", NV, "sm_80", c), None);
        assert_eq!(fits("sm_90", NV, "sm_90a", c), None);
        assert_eq!(fits("sm_90a", NV, "sm_90a", c), Some(Fit::Exact));
        let ptx = ImageKind::Ptx;
        assert!(matches!(
            fits("sm_90", NV, "sm_70", ptx),
            Some(Fit::Ptx { .. })
        ));
        assert!(fits("sm_90", NV, "compute_80", ImageKind::None).is_some());
        assert_eq!(fits("sm_61", NV, "sm_70", ptx), None);
        let d = Device::parse("sm_86").unwrap();
        let cubin = fit(&d, NV, "sm_80", c).unwrap().rank();
        let ptx86 = fit(&d, NV, "sm_86", ptx).unwrap().rank();
        assert!(cubin > ptx86);
        assert!(Device::parse("compute_80").is_err());
        assert_eq!(
            Sm::parse("sm_100").map(|s| (s.major, s.minor)),
            Some((10, 0))
        );
        // Family-specific code runs on later devices of its family only.
        assert!(matches!(
            fits("sm_103", NV, "sm_100f", c),
            Some(Fit::Cubin { .. })
        ));
        assert_eq!(fits("sm_100", NV, "sm_103f", c), None);
        assert_eq!(fits("sm_120", NV, "sm_100f", c), None);
        assert!(fits("sm_121", NV, "sm_120f", ptx).is_some());
        assert_eq!(fits("sm_120", NV, "sm_100f", ptx), None);
        assert!(fits("sm_120", NV, "sm_100", ptx).is_some());
        assert_eq!(fits("sm_100", NV, "sm_100a", c), None);
        assert_eq!(fits("sm_100a", NV, "sm_100a", c), Some(Fit::Exact));
        assert_eq!(Sm::parse("sm_100f").unwrap().to_string(), "sm_100f");
        assert_eq!(Device::parse("sm_121a").unwrap().to_string(), "sm_121a");
    }

    #[test]
    fn triples() {
        let o = ImageKind::Object;
        assert_eq!(
            fits("x86_64", "x86_64-pc-linux-gnu", "", o),
            Some(Fit::Triple)
        );
        assert_eq!(
            fits("x86_64-pc-linux-gnu", "x86_64-unknown-linux-gnu", "", o),
            None
        );
        assert!(fits("x86_64-unknown-linux-gnu", "x86_64-pc-linux-gnu", "", o).is_some());
        assert_eq!(fits("x86_64", AMD, "gfx90a", o), None);
        assert!(fits("amdgcn-amd-amdhsa", AMD, "gfx90a", o).is_some());
        assert!(Device::parse("foo").is_err());
        let d = Device::parse("gfx1100").unwrap();
        assert!(same_kind(&d, AMD) && !same_kind(&d, NV));
        assert_eq!(d.kind_name(), "AMD GPU");
        assert!(same_kind(
            &Device::parse("sm_80").unwrap(),
            "nvptx-nvidia-cuda"
        ));
        assert!(same_kind(
            &Device::parse("x86_64").unwrap(),
            "x86_64-pc-linux-gnu"
        ));
        assert_eq!(
            Device::parse("gfx90a:xnack-:sramecc+").unwrap().to_string(),
            "gfx90a:sramecc+:xnack-"
        );
        assert_eq!(
            Device::parse("gfx90a:xnack-").unwrap().flag(),
            "--offload-arch=gfx90a:xnack-"
        );
        assert_eq!(
            Device::parse("x86_64-pc-linux-gnu").unwrap().flag(),
            "-fopenmp-targets=x86_64-pc-linux-gnu"
        );
    }
}
