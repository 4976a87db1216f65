//! LLVM target triples (`llvm::Triple`): parsing into architecture (and sub-architecture),
//! vendor, OS, environment and object format; `Triple::normalize`; compatibility
//! (`isCompatibleWith`).
//!
//! A port of `llvm/lib/TargetParser/Triple.cpp` as released in LLVM 19 (Debian `19.1.7`),
//! checked against the installed LLVM 19 tools by the conformance tests
//! (`tests/all/targets.rs`), with LLVM 22.1.8's differences as a release value
//! ([`Triple::parse_in`], [`Triple::normalize_form`]): its added and dropped names, the
//! canonical forms, `msys`, DXIL 1.9. Triples are bytes: a triple read from a bundle header may hold
//! any byte, and LLVM compares bytes; `&str` converts with `as_bytes()` wherever a
//! `impl AsRef<[u8]>` is taken.
//!
//! ```
//! use offkit_llvm::triple::{Arch, Os, Triple};
//!
//! let t = Triple::parse("amdgcn-amd-amdhsa");
//! assert_eq!((t.arch(), t.os()), (Arch::Amdgcn, Os::AmdHsa));
//! // The constructor does not normalize; `normalize` does, like LLVM.
//! assert_eq!(Triple::normalize("x86_64-linux-gnu").unwrap(), "x86_64-unknown-linux-gnu");
//! // Unknown spellings collapse to the same enums, so these are compatible.
//! assert!(Triple::parse("x86_64-xyz-linux").is_compatible_with(&Triple::parse("x86_64-unknown-linux")));
//! ```

mod arm;
mod kinds;
mod normalize;

use std::fmt;

use crate::version::LlvmVersion;

pub(crate) use kinds::{
    default_format, is_os_darwin, parse_arch, parse_environment, parse_format, parse_os,
    parse_sub_arch, parse_vendor,
};
pub use kinds::{Arch, Environment, ObjectFormat, Os, SubArch, Vendor};

/// `Triple::CanonicalForm` (LLVM 20 and later): how many components [`Triple::normalize_form`]
/// leaves, padding with `unknown` or cutting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CanonicalForm {
    /// As many as there are (LLVM 19's only form).
    Any,
    /// `arch-vendor-os`.
    ThreeIdent,
    /// `arch-vendor-os-environment`.
    FourIdent,
    /// `arch-vendor-os-environment-format`.
    FiveIdent,
}

impl CanonicalForm {
    /// The number of components, `None` for [`CanonicalForm::Any`].
    pub fn components(self) -> Option<usize> {
        match self {
            CanonicalForm::Any => None,
            CanonicalForm::ThreeIdent => Some(3),
            CanonicalForm::FourIdent => Some(4),
            CanonicalForm::FiveIdent => Some(5),
        }
    }
}

/// A target triple as LLVM's `Triple` holds it: the string as given (never rewritten) and the
/// enums parsed from its components with the name tables of a release (19 unless
/// [`Triple::parse_in`] says otherwise).
///
/// `==` compares the string (from which the enums follow); LLVM's own `operator==`, which
/// compares only the enums, is [`Triple::enums_eq`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Triple {
    /// The release whose name tables parsed it.
    llvm: LlvmVersion,
    data: Vec<u8>,
    arch: Arch,
    sub_arch: SubArch,
    vendor: Vendor,
    os: Os,
    environment: Environment,
    object_format: ObjectFormat,
}

/// Splits `s` at `sep` into at most `max + 1` pieces, keeping empty ones (LLVM's
/// `StringRef::split(SmallVectorImpl&, char, MaxSplit, KeepEmpty = true)`).
fn split_n(s: &[u8], sep: u8, max: usize) -> Vec<&[u8]> {
    s.splitn(max.saturating_add(1), |&b| b == sep).collect()
}

/// `StringRef::split(char)`: the text before the first `sep` and the text after it (empty
/// when there is none).
pub(crate) fn split_once(s: &[u8], sep: u8) -> (&[u8], &[u8]) {
    match s.iter().position(|&b| b == sep) {
        Some(i) => (
            s.get(..i).unwrap_or_default(),
            s.get(i + 1..).unwrap_or_default(),
        ),
        None => (s, &[]),
    }
}

/// `Triple(const Twine &)`'s environment for a one-component MIPS triple.
fn mips_environment(only: &[u8]) -> Environment {
    if only.starts_with(b"mipsn32") {
        Environment::GnuAbiN32
    } else if only.starts_with(b"mips64") || only.starts_with(b"mipsisa64") {
        Environment::GnuAbi64
    } else if only.starts_with(b"mipsisa32")
        || matches!(only, b"mips" | b"mipsel" | b"mipsr6" | b"mipsr6el")
    {
        Environment::Gnu
    } else {
        Environment::Unknown
    }
}

impl Triple {
    /// Parses `s` as LLVM 19's `Triple(const Twine &)` constructor does: the components are
    /// taken by position (architecture, vendor, OS, and everything after the third `-` as the
    /// environment); nothing is moved or rewritten. Never fails: an unknown component parses
    /// as `Unknown`. [`Triple::parse_in`] with LLVM 19's name tables.
    pub fn parse(s: impl AsRef<[u8]>) -> Self {
        Triple::parse_in(LlvmVersion::V19, s)
    }

    /// Parses `s` as release `llvm`'s `Triple(const Twine &)` constructor does (the same rule
    /// in 19 and 22; the name tables differ, see `kinds`).
    pub fn parse_in(llvm: LlvmVersion, s: impl AsRef<[u8]>) -> Self {
        let data = s.as_ref().to_vec();
        let parts = split_n(&data, b'-', 3);
        let first = parts.first().copied().unwrap_or_default();
        let arch = parse_arch(llvm, first);
        let sub_arch = parse_sub_arch(llvm, first);
        let (mut vendor, mut os) = (Vendor::Unknown, Os::Unknown);
        let (mut environment, mut object_format) = (Environment::Unknown, ObjectFormat::Unknown);
        if let Some(v) = parts.get(1) {
            vendor = parse_vendor(llvm, v);
            if let Some(o) = parts.get(2) {
                os = parse_os(llvm, o);
                if let Some(e) = parts.get(3) {
                    environment = parse_environment(llvm, e);
                    object_format = parse_format(e);
                }
            }
        } else {
            environment = mips_environment(first);
        }
        if object_format == ObjectFormat::Unknown {
            object_format = default_format(arch, os);
        }
        Triple {
            llvm,
            data,
            arch,
            sub_arch,
            vendor,
            os,
            environment,
            object_format,
        }
    }

    /// LLVM 19's four-argument constructor `Triple(Arch, Vendor, OS, Environment)`: the
    /// string is the four joined with `-` (so always at least three `-`), and each is parsed
    /// in its own role (no MIPS special case). [`Triple::from_components_in`] with LLVM 19.
    pub fn from_components(
        arch: impl AsRef<[u8]>,
        vendor: impl AsRef<[u8]>,
        os: impl AsRef<[u8]>,
        environment: impl AsRef<[u8]>,
    ) -> Self {
        Triple::from_components_in(LlvmVersion::V19, arch, vendor, os, environment)
    }

    /// The four-argument constructor of release `llvm`.
    pub fn from_components_in(
        llvm: LlvmVersion,
        arch: impl AsRef<[u8]>,
        vendor: impl AsRef<[u8]>,
        os: impl AsRef<[u8]>,
        environment: impl AsRef<[u8]>,
    ) -> Self {
        let (a, v, o, e) = (
            arch.as_ref(),
            vendor.as_ref(),
            os.as_ref(),
            environment.as_ref(),
        );
        let mut data = Vec::with_capacity(a.len() + v.len() + o.len() + e.len() + 3);
        for (i, part) in [a, v, o, e].into_iter().enumerate() {
            if i > 0 {
                data.push(b'-');
            }
            data.extend_from_slice(part);
        }
        let arch = parse_arch(llvm, a);
        let os_kind = parse_os(llvm, o);
        let mut object_format = parse_format(e);
        if object_format == ObjectFormat::Unknown {
            object_format = default_format(arch, os_kind);
        }
        Triple {
            llvm,
            arch,
            sub_arch: parse_sub_arch(llvm, a),
            vendor: parse_vendor(llvm, v),
            os: os_kind,
            environment: parse_environment(llvm, e),
            object_format,
            data,
        }
    }

    /// The triple rebuilt from its four components, as the offload bundler does
    /// (`Triple(T.getArchName(), T.getVendorName(), T.getOSName(), T.getEnvironmentName())`):
    /// missing components become empty, so `x86_64` becomes `x86_64---` and
    /// `amdgcn-amd-amdhsa` becomes `amdgcn-amd-amdhsa-`; an environment holding `-` stays whole.
    pub fn four_components(&self) -> Triple {
        Triple::from_components_in(
            self.llvm,
            self.arch_name(),
            self.vendor_name(),
            self.os_name(),
            self.environment_name(),
        )
    }

    /// The release whose name tables parsed it.
    pub fn llvm(&self) -> LlvmVersion {
        self.llvm
    }

    /// The string as given.
    pub fn as_bytes(&self) -> &[u8] {
        &self.data
    }

    /// The string, if it is UTF-8.
    pub fn as_str(&self) -> Option<&str> {
        std::str::from_utf8(&self.data).ok()
    }

    /// The architecture.
    pub fn arch(&self) -> Arch {
        self.arch
    }

    /// The sub-architecture (ARM versions, `arm64e`, MIPS r6, SPIR-V and DXIL versions…).
    pub fn sub_arch(&self) -> SubArch {
        self.sub_arch
    }

    /// The vendor.
    pub fn vendor(&self) -> Vendor {
        self.vendor
    }

    /// The operating system.
    pub fn os(&self) -> Os {
        self.os
    }

    /// The environment (ABI).
    pub fn environment(&self) -> Environment {
        self.environment
    }

    /// The object format: the one named at the end of the environment component, else the
    /// default for the architecture and OS (`getDefaultFormat`).
    pub fn object_format(&self) -> ObjectFormat {
        self.object_format
    }

    /// The first component (`getArchName`).
    pub fn arch_name(&self) -> &[u8] {
        split_once(&self.data, b'-').0
    }

    /// The second component (`getVendorName`).
    pub fn vendor_name(&self) -> &[u8] {
        split_once(split_once(&self.data, b'-').1, b'-').0
    }

    /// The third component (`getOSName`).
    pub fn os_name(&self) -> &[u8] {
        let rest = split_once(split_once(&self.data, b'-').1, b'-').1;
        split_once(rest, b'-').0
    }

    /// Everything after the third `-` (`getEnvironmentName`).
    pub fn environment_name(&self) -> &[u8] {
        let rest = split_once(split_once(&self.data, b'-').1, b'-').1;
        split_once(rest, b'-').1
    }

    /// LLVM's `operator==`: architecture, sub-architecture, vendor, OS, environment and object
    /// format are equal (the spelling is not compared: `x86_64-xyz` equals `x86_64-unknown`).
    pub fn enums_eq(&self, other: &Triple) -> bool {
        self.arch == other.arch
            && self.sub_arch == other.sub_arch
            && self.vendor == other.vendor
            && self.os == other.os
            && self.environment == other.environment
            && self.object_format == other.object_format
    }

    /// `Triple::isCompatibleWith` of the release that parsed `self`: ARM and Thumb of the same
    /// endianness are compatible when sub-architecture, vendor and OS (and, unless the vendor
    /// is Apple, environment and object format) match; with vendor Apple the environment and
    /// object format (and so OS versions) are ignored; otherwise [`Triple::enums_eq`]. LLVM 22
    /// also ignores the vendor when `self` is Windows with a GNU environment (MinGW's `w64`
    /// against Rust's `pc`).
    pub fn is_compatible_with(&self, other: &Triple) -> bool {
        use Arch::{Arm, Armeb, Thumb, Thumbeb};
        let ignore_vendor = match self.llvm {
            LlvmVersion::V19 => false,
            _ => self.os == Os::Win32 && self.environment == Environment::Gnu,
        };
        let vendor = self.vendor == other.vendor || ignore_vendor;
        let arm_thumb = matches!(
            (self.arch, other.arch),
            (Thumb, Arm) | (Arm, Thumb) | (Thumbeb, Armeb) | (Armeb, Thumbeb)
        );
        if arm_thumb {
            return if self.vendor == Vendor::Apple {
                self.sub_arch == other.sub_arch
                    && self.vendor == other.vendor
                    && self.os == other.os
            } else {
                self.sub_arch == other.sub_arch
                    && vendor
                    && self.os == other.os
                    && self.environment == other.environment
                    && self.object_format == other.object_format
            };
        }
        if self.vendor == Vendor::Apple {
            return self.arch == other.arch
                && self.sub_arch == other.sub_arch
                && vendor
                && self.os == other.os;
        }
        self.arch == other.arch
            && self.sub_arch == other.sub_arch
            && vendor
            && self.os == other.os
            && self.environment == other.environment
            && self.object_format == other.object_format
    }

    /// `isAMDGPU`: `amdgcn` or `r600`.
    pub(crate) fn is_amdgpu(&self) -> bool {
        matches!(self.arch, Arch::Amdgcn | Arch::R600)
    }

    /// `isAMDGCN`.
    pub fn is_amdgcn(&self) -> bool {
        self.arch == Arch::Amdgcn
    }

    /// `isNVPTX`: `nvptx` or `nvptx64`.
    pub fn is_nvptx(&self) -> bool {
        matches!(self.arch, Arch::Nvptx | Arch::Nvptx64)
    }

    /// `isOSDarwin`.
    pub fn is_os_darwin(&self) -> bool {
        is_os_darwin(self.os)
    }

    /// LLVM 19's `Triple::normalize`: moves recognized components into their places
    /// (`linux-x86_64` → `x86_64-unknown-linux`), fills gaps with `unknown`, and applies the
    /// Windows, MinGW, Cygwin, Android, SUSE and DXIL rewrites.
    ///
    /// Fails only where LLVM 19 aborts (`LLVM ERROR: Unsupported Shader Model version`: a
    /// `dxil` triple with OS `shadermodel6.N`, N > 8).
    pub fn normalize(s: &str) -> crate::Result<String> {
        let bytes = normalize::normalize(LlvmVersion::V19, s.as_bytes(), CanonicalForm::Any)?;
        // Normalizing only splits at `-` and inserts ASCII, so UTF-8 stays UTF-8.
        String::from_utf8(bytes).map_err(|_| crate::Error::Invalid {
            what: "normalized triple",
            offset: 0,
            reason: "not UTF-8".into(),
        })
    }

    /// [`Triple::normalize`] on bytes.
    pub fn normalize_bytes(s: &[u8]) -> crate::Result<Vec<u8>> {
        normalize::normalize(LlvmVersion::V19, s, CanonicalForm::Any)
    }

    /// `Triple::normalize(Str, Form)` of release `llvm`, with its name tables (`form` other
    /// than [`CanonicalForm::Any`] needs LLVM 20 or later: 19 has no such argument, and offkit
    /// applies it anyway).
    pub fn normalize_form(
        llvm: LlvmVersion,
        s: &[u8],
        form: CanonicalForm,
    ) -> crate::Result<Vec<u8>> {
        normalize::normalize(llvm, s, form)
    }
}

impl fmt::Display for Triple {
    /// The string as given (bytes that are not UTF-8 shown as U+FFFD).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&String::from_utf8_lossy(&self.data))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_by_position() {
        let t = Triple::parse("x86_64-pc-linux-gnu");
        assert_eq!(t.arch(), Arch::X86_64);
        assert_eq!(t.vendor(), Vendor::Pc);
        assert_eq!(t.os(), Os::Linux);
        assert_eq!(t.environment(), Environment::Gnu);
        assert_eq!(t.object_format(), ObjectFormat::Elf);
        // No normalization: `linux` in the vendor position is an unknown vendor.
        let t = Triple::parse("x86_64-linux-gnu");
        assert_eq!((t.vendor(), t.os()), (Vendor::Unknown, Os::Unknown));
        let t = Triple::parse("mips64el");
        assert_eq!(t.environment(), Environment::GnuAbi64);
        let t = Triple::parse("x86_64-pc-windows-msvc-elf");
        assert_eq!(t.environment_name(), b"msvc-elf");
        assert_eq!(t.object_format(), ObjectFormat::Elf);
        let t = Triple::parse("");
        assert_eq!(t.arch(), Arch::Unknown);
        assert_eq!(t.object_format(), ObjectFormat::Elf);
    }

    #[test]
    fn components_and_four_component_rebuild() {
        let t = Triple::parse("a-b-c-d-e");
        assert_eq!(t.arch_name(), b"a");
        assert_eq!(t.vendor_name(), b"b");
        assert_eq!(t.os_name(), b"c");
        assert_eq!(t.environment_name(), b"d-e");
        assert_eq!(
            Triple::parse("x86_64").four_components().as_bytes(),
            b"x86_64---"
        );
        assert_eq!(
            Triple::parse("x86_64-pc-linux")
                .four_components()
                .as_bytes(),
            b"x86_64-pc-linux-"
        );
        assert_eq!(
            Triple::parse("amdgcn-amd-amdhsa-")
                .four_components()
                .as_bytes(),
            b"amdgcn-amd-amdhsa-"
        );
        assert_eq!(Triple::parse("").four_components().as_bytes(), b"---");
    }

    #[test]
    fn compatibility_of_22() {
        let w = |s: &str| Triple::parse_in(LlvmVersion::V22, s);
        assert!(w("x86_64-w64-windows-gnu").is_compatible_with(&w("x86_64-pc-windows-gnu")));
        assert!(!Triple::parse("x86_64-w64-windows-gnu")
            .is_compatible_with(&Triple::parse("x86_64-pc-windows-gnu")));
        assert!(!w("spirv64-intel-unknown").is_compatible_with(&w("spirv64-unknown-unknown")));
        assert!(Triple::parse("spirv64-intel-unknown")
            .is_compatible_with(&Triple::parse("spirv64-unknown-unknown")));
    }

    #[test]
    fn compatibility() {
        let p = |s: &str| Triple::parse(s).four_components();
        assert!(p("amdgcn-xyz-amdhsa").is_compatible_with(&p("amdgcn-unknown-amdhsa")));
        assert!(!p("amdgcn-xyz-amdhsa").is_compatible_with(&p("amdgcn-amd-amdhsa")));
        assert!(p("amdgcn-amd-amdhsa-unknown").is_compatible_with(&p("amdgcn-amd-amdhsa")));
        assert!(!p("amdgcn-amd-amdhsa-gnu").is_compatible_with(&p("amdgcn-amd-amdhsa")));
        assert!(p("amd64-pc-linux").is_compatible_with(&p("x86_64-pc-linux")));
        assert!(p("thumbv7-unknown-linux").is_compatible_with(&p("armv7-unknown-linux")));
        assert!(!p("thumbv7-unknown-linux").is_compatible_with(&p("armv6-unknown-linux")));
        assert!(p("x86_64-apple-macosx10.15").is_compatible_with(&p("x86_64-apple-macosx11-gnu")));
        assert!(!p("x86_64-pc-linux").is_compatible_with(&p("x86_64-unknown-linux")));
    }
}
