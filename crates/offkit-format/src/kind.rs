//! Image kinds and offload kinds, with the numeric values of each format version, and the
//! programming model an image states ([`Model`]: an offload kind or a bundle entry ID's kind).

use std::fmt;

use offkit_llvm::LlvmVersion;

/// What an offload binary's image holds (`llvm::object::ImageKind`). The values are the same in
/// every LLVM version; `Spirv` exists only in LLVM 20 and later.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ImageKind {
    /// `IMG_None` (0): unknown contents.
    None,
    /// `IMG_Object` (1): a relocatable or linked object file (ELF).
    Object,
    /// `IMG_Bitcode` (2): LLVM bitcode.
    Bitcode,
    /// `IMG_Cubin` (3): a CUDA cubin.
    Cubin,
    /// `IMG_Fatbinary` (4): a CUDA fatbinary.
    Fatbinary,
    /// `IMG_PTX` (5): PTX assembly.
    Ptx,
    /// `IMG_SPIRV` (6, LLVM 20+): SPIR-V.
    Spirv,
    /// Any other value.
    Other(u16),
}

impl ImageKind {
    /// The kind with the numeric value `v`.
    pub fn from_raw(v: u16) -> Self {
        match v {
            0 => Self::None,
            1 => Self::Object,
            2 => Self::Bitcode,
            3 => Self::Cubin,
            4 => Self::Fatbinary,
            5 => Self::Ptx,
            6 => Self::Spirv,
            v => Self::Other(v),
        }
    }

    /// The numeric value.
    pub(crate) fn to_raw(self) -> u16 {
        match self {
            Self::None => 0,
            Self::Object => 1,
            Self::Bitcode => 2,
            Self::Cubin => 3,
            Self::Fatbinary => 4,
            Self::Ptx => 5,
            Self::Spirv => 6,
            Self::Other(v) => v,
        }
    }

    /// The kind `clang-offload-packager` 19 gives a file with this extension (`getImageKind`):
    /// `o`, `bc`, `cubin`, `fatbin`, `s`; anything else is `None` (19 knows no `spv`).
    pub fn from_extension_llvm19(ext: &str) -> Self {
        match ext {
            "o" => Self::Object,
            "bc" => Self::Bitcode,
            "cubin" => Self::Cubin,
            "fatbin" => Self::Fatbinary,
            "s" => Self::Ptx,
            _ => Self::None,
        }
    }

    /// The file extension LLVM uses for this kind (`getImageKindName`): `o`, `bc`, `cubin`,
    /// `fatbin`, `s`, `spv`, or empty.
    pub fn extension(self) -> &'static str {
        match self {
            Self::Object => "o",
            Self::Bitcode => "bc",
            Self::Cubin => "cubin",
            Self::Fatbinary => "fatbin",
            Self::Ptx => "s",
            Self::Spirv => "spv",
            Self::None | Self::Other(_) => "",
        }
    }

    /// The name `llvm-objdump --offloading` prints: `elf`, `llvm ir`, `cubin`, `fatbinary`,
    /// `ptx`, or `<none>` (LLVM 19 and 22 alike: SPIR-V too is `<none>`).
    pub fn objdump_name(self) -> &'static str {
        match self {
            Self::Object => "elf",
            Self::Bitcode => "llvm ir",
            Self::Cubin => "cubin",
            Self::Fatbinary => "fatbinary",
            Self::Ptx => "ptx",
            Self::Spirv | Self::None | Self::Other(_) => "<none>",
        }
    }
}

impl fmt::Display for ImageKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::None => f.write_str("none"),
            Self::Object => f.write_str("object"),
            Self::Bitcode => f.write_str("bitcode"),
            Self::Cubin => f.write_str("cubin"),
            Self::Fatbinary => f.write_str("fatbinary"),
            Self::Ptx => f.write_str("ptx"),
            Self::Spirv => f.write_str("spirv"),
            Self::Other(v) => write!(f, "unknown({v})"),
        }
    }
}

/// Which programming model produced an image (`llvm::object::OffloadKind`).
///
/// LLVM 19 numbers them 0, 1, 2, 3 (none, OpenMP, CUDA, HIP); LLVM 21 and later use bit flags
/// 1, 2, 4, 8 (OpenMP, CUDA, HIP, SYCL), in version-1 binaries too (LLVM 22 still writes version
/// 1). The two numberings agree but for HIP, and neither uses the other's HIP value, so a
/// reader takes both: 3 and 4 are HIP in a version-1 binary. Writers number by the LLVM release
/// they write for ([`OffloadKind::to_raw`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum OffloadKind {
    /// `OFK_None`.
    None,
    /// `OFK_OpenMP`.
    OpenMp,
    /// `OFK_Cuda`.
    Cuda,
    /// `OFK_HIP`.
    Hip,
    /// `OFK_SYCL` (LLVM 21+).
    Sycl,
    /// Any other value (for v2+, possibly several flags at once).
    Other(u16),
}

impl OffloadKind {
    /// The kind with value `v` in an offload binary of format version `version`: in version 1
    /// either release's numbering (3 is LLVM 19's HIP, 4 and 8 are LLVM 21's HIP and SYCL), in
    /// versions 2 and 3 the bit flags.
    pub fn from_raw(version: u32, v: u16) -> Self {
        match (v, version <= 1) {
            (0, _) => Self::None,
            (1, _) => Self::OpenMp,
            (2, _) => Self::Cuda,
            (3, true) => Self::Hip,
            (4, _) => Self::Hip,
            (8, _) => Self::Sycl,
            (v, _) => Self::Other(v),
        }
    }

    /// The value LLVM release `llvm` writes in a version-1 binary, or `None` if it cannot
    /// (SYCL in LLVM 19).
    pub fn to_raw(self, llvm: LlvmVersion) -> Option<u16> {
        match llvm {
            LlvmVersion::V19 => Some(match self {
                Self::None => 0,
                Self::OpenMp => 1,
                Self::Cuda => 2,
                Self::Hip => 3,
                Self::Sycl => return None,
                Self::Other(v) => v,
            }),
            _ => Some(self.to_flags()),
        }
    }

    /// The bit-flag value (LLVM 21 and later, and every version-2/3 binary).
    pub fn to_flags(self) -> u16 {
        match self {
            Self::None => 0,
            Self::OpenMp => 1,
            Self::Cuda => 2,
            Self::Hip => 4,
            Self::Sycl => 8,
            Self::Other(v) => v,
        }
    }

    /// The kind for a `kind=` name, as LLVM 19's `getOffloadKind` maps it: `openmp`, `cuda`,
    /// `hip`; anything else is `None`.
    pub fn from_name_llvm19(name: &str) -> Self {
        match name {
            "openmp" => Self::OpenMp,
            "cuda" => Self::Cuda,
            "hip" => Self::Hip,
            _ => Self::None,
        }
    }

    /// The name LLVM prints (`getOffloadKindName`): `openmp`, `cuda`, `hip`, `sycl`, `none`.
    pub fn name(self) -> &'static str {
        match self {
            Self::OpenMp => "openmp",
            Self::Cuda => "cuda",
            Self::Hip => "hip",
            Self::Sycl => "sycl",
            Self::None | Self::Other(_) => "none",
        }
    }
}

impl fmt::Display for OffloadKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Other(v) => write!(f, "unknown({v})"),
            k => f.write_str(k.name()),
        }
    }
}

/// The kind part of a bundle entry ID (`hipv4-amdgcn-amd-amdhsa--gfx90a`), as written:
/// `clang-offload-bundler`'s four kinds, or any other text an ID holds.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum BundleKind {
    /// `host`: the host object of a bundle.
    Host,
    /// `openmp`.
    OpenMp,
    /// `hip`.
    Hip,
    /// `hipv4`: HIP with code object v4 and later (what clang writes for HIP).
    HipV4,
    /// Any other kind (`cuda`, `sycl`, a typo), as written.
    Other(String),
}

impl BundleKind {
    /// The kind written `s`.
    pub fn parse(s: &str) -> BundleKind {
        match s {
            "host" => BundleKind::Host,
            "openmp" => BundleKind::OpenMp,
            "hip" => BundleKind::Hip,
            "hipv4" => BundleKind::HipV4,
            s => BundleKind::Other(s.to_string()),
        }
    }

    /// The kind as written.
    pub(crate) fn as_str(&self) -> &str {
        match self {
            BundleKind::Host => "host",
            BundleKind::OpenMp => "openmp",
            BundleKind::Hip => "hip",
            BundleKind::HipV4 => "hipv4",
            BundleKind::Other(s) => s,
        }
    }
}

impl fmt::Display for BundleKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The programming model an image is for, as its container states it: an offload kind (an
/// offload binary's, a CUDA fat binary's, an opaque `.hip_fatbin`'s), or a bundle entry ID's
/// kind as written.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Model {
    /// An offload kind.
    Offload(OffloadKind),
    /// A bundle entry ID's kind.
    Bundle(BundleKind),
}

impl Model {
    /// Whether this is a bundle's host entry (`host`): the host object, not device code.
    pub fn is_host(&self) -> bool {
        *self == Model::Bundle(BundleKind::Host)
    }

    /// Whether an image of this model is selected by the kind `name`, as the bundler matches
    /// kinds (`hip` and `hipv4` are one; LLVM's `isOffloadKindCompatible`).
    pub fn matches(&self, name: &str) -> bool {
        let mine = self.to_string();
        offkit_llvm::target_id::bundle::is_kind_compatible(mine.as_bytes(), name.as_bytes(), false)
    }
}

impl fmt::Display for Model {
    /// An offload kind's name (`openmp`, `unknown(16)`), or the bundle kind as written.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Model::Offload(k) => k.fmt(f),
            Model::Bundle(k) => k.fmt(f),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_values_round_trip() {
        for v in 0..10 {
            assert_eq!(ImageKind::from_raw(v).to_raw(), v);
            assert_eq!(OffloadKind::from_raw(2, v).to_flags(), v);
        }
        for v in [0, 1, 2, 3, 5, 6, 7, 9] {
            assert_eq!(
                OffloadKind::from_raw(1, v).to_raw(LlvmVersion::V19),
                Some(v)
            );
        }
        for v in [0, 1, 2, 4, 5, 8, 9] {
            assert_eq!(
                OffloadKind::from_raw(1, v).to_raw(LlvmVersion::V22),
                Some(v)
            );
        }
        assert_eq!(OffloadKind::from_raw(1, 3), OffloadKind::Hip);
        assert_eq!(OffloadKind::from_raw(1, 4), OffloadKind::Hip);
        assert_eq!(OffloadKind::from_raw(1, 8), OffloadKind::Sycl);
        assert_eq!(OffloadKind::from_raw(2, 3), OffloadKind::Other(3));
        assert_eq!(OffloadKind::from_raw(2, 4), OffloadKind::Hip);
        assert_eq!(OffloadKind::Sycl.to_raw(LlvmVersion::V19), None);
        assert_eq!(OffloadKind::Hip.to_raw(LlvmVersion::V22), Some(4));
    }
}
