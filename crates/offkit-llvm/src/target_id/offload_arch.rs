//! The offload-arch names of every LLVM release offkit stands in for (`arch_names` of
//! `clang/lib/Basic/Cuda.cpp` in 19, `ArchNames` of `clang/lib/Basic/OffloadArch.cpp` in 22):
//! the names `StringToOffloadArch` knows, in one table whose column says which releases know
//! each. The offload bundler uses this list (exact match) to decide whether the last `-`
//! component of a bundle entry ID is a processor.
//!
//! From 19 to 22: `sm_88`, `sm_100` … `sm_121a`, `gfx9-4-generic`, `gfx950`, `gfx1153`,
//! `gfx1250`, `gfx1251`, and Intel's `graniterapids` and `bmg_g21` are new; `gfx940` and
//! `gfx941` are gone. (22's NVPTX backend also knows the family names `sm_100f` …, but
//! `StringToOffloadArch` does not.)
//!
//! ```
//! use offkit_llvm::target_id::offload_arch;
//! use offkit_llvm::LlvmVersion;
//!
//! assert!(offload_arch::is_known(LlvmVersion::V22, b"gfx950"));
//! assert!(!offload_arch::is_known(LlvmVersion::V19, b"gfx950"));
//! assert!(offload_arch::is_known(LlvmVersion::V19, b"gfx941"));
//! ```

use crate::version::{LlvmVersion, Releases};

/// What an offload-arch name designates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArchFamily {
    /// The empty name (`OffloadArch::UNUSED`).
    Unused,
    /// An NVIDIA GPU (`sm_*`).
    Nvidia,
    /// An AMD GPU (`gfx*`, including the generic targets).
    Amd,
    /// AMDGCN-flavoured SPIR-V (`amdgcnspirv`).
    AmdgcnSpirv,
    /// `generic`.
    Generic,
    /// An Intel CPU (`graniterapids`; LLVM 22).
    IntelCpu,
    /// An Intel GPU (`bmg_g21`; LLVM 22).
    IntelGpu,
}

/// One name of the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OffloadArch {
    /// The name (`sm_90a`, `gfx950`).
    pub name: &'static str,
    /// What it designates.
    pub family: ArchFamily,
    /// The releases that know it.
    pub releases: Releases,
}

const ALL: Releases = Releases::ALL;
const NEW22: Releases = Releases::SINCE_22;
const OLD19: Releases = Releases::UNTIL_22;

const fn a(name: &'static str, family: ArchFamily, releases: Releases) -> OffloadArch {
    OffloadArch {
        name,
        family,
        releases,
    }
}

use ArchFamily::{Amd, AmdgcnSpirv, Generic, IntelCpu, IntelGpu, Nvidia, Unused};

/// The names of every release, in LLVM 22's order (19's names that 22 dropped where 19 had
/// them).
pub const OFFLOAD_ARCHS: &[OffloadArch] = &[
    a("", Unused, ALL),
    a("sm_20", Nvidia, ALL),
    a("sm_21", Nvidia, ALL),
    a("sm_30", Nvidia, ALL),
    a("sm_32", Nvidia, ALL),
    a("sm_35", Nvidia, ALL),
    a("sm_37", Nvidia, ALL),
    a("sm_50", Nvidia, ALL),
    a("sm_52", Nvidia, ALL),
    a("sm_53", Nvidia, ALL),
    a("sm_60", Nvidia, ALL),
    a("sm_61", Nvidia, ALL),
    a("sm_62", Nvidia, ALL),
    a("sm_70", Nvidia, ALL),
    a("sm_72", Nvidia, ALL),
    a("sm_75", Nvidia, ALL),
    a("sm_80", Nvidia, ALL),
    a("sm_86", Nvidia, ALL),
    a("sm_87", Nvidia, ALL),
    a("sm_88", Nvidia, NEW22),
    a("sm_89", Nvidia, ALL),
    a("sm_90", Nvidia, ALL),
    a("sm_90a", Nvidia, ALL),
    a("sm_100", Nvidia, NEW22),
    a("sm_100a", Nvidia, NEW22),
    a("sm_101", Nvidia, NEW22),
    a("sm_101a", Nvidia, NEW22),
    a("sm_103", Nvidia, NEW22),
    a("sm_103a", Nvidia, NEW22),
    a("sm_110", Nvidia, NEW22),
    a("sm_110a", Nvidia, NEW22),
    a("sm_120", Nvidia, NEW22),
    a("sm_120a", Nvidia, NEW22),
    a("sm_121", Nvidia, NEW22),
    a("sm_121a", Nvidia, NEW22),
    a("gfx600", Amd, ALL),
    a("gfx601", Amd, ALL),
    a("gfx602", Amd, ALL),
    a("gfx700", Amd, ALL),
    a("gfx701", Amd, ALL),
    a("gfx702", Amd, ALL),
    a("gfx703", Amd, ALL),
    a("gfx704", Amd, ALL),
    a("gfx705", Amd, ALL),
    a("gfx801", Amd, ALL),
    a("gfx802", Amd, ALL),
    a("gfx803", Amd, ALL),
    a("gfx805", Amd, ALL),
    a("gfx810", Amd, ALL),
    a("gfx9-generic", Amd, ALL),
    a("gfx900", Amd, ALL),
    a("gfx902", Amd, ALL),
    a("gfx904", Amd, ALL),
    a("gfx906", Amd, ALL),
    a("gfx908", Amd, ALL),
    a("gfx909", Amd, ALL),
    a("gfx90a", Amd, ALL),
    a("gfx90c", Amd, ALL),
    a("gfx9-4-generic", Amd, NEW22),
    a("gfx940", Amd, OLD19),
    a("gfx941", Amd, OLD19),
    a("gfx942", Amd, ALL),
    a("gfx950", Amd, NEW22),
    a("gfx10-1-generic", Amd, ALL),
    a("gfx1010", Amd, ALL),
    a("gfx1011", Amd, ALL),
    a("gfx1012", Amd, ALL),
    a("gfx1013", Amd, ALL),
    a("gfx10-3-generic", Amd, ALL),
    a("gfx1030", Amd, ALL),
    a("gfx1031", Amd, ALL),
    a("gfx1032", Amd, ALL),
    a("gfx1033", Amd, ALL),
    a("gfx1034", Amd, ALL),
    a("gfx1035", Amd, ALL),
    a("gfx1036", Amd, ALL),
    a("gfx11-generic", Amd, ALL),
    a("gfx1100", Amd, ALL),
    a("gfx1101", Amd, ALL),
    a("gfx1102", Amd, ALL),
    a("gfx1103", Amd, ALL),
    a("gfx1150", Amd, ALL),
    a("gfx1151", Amd, ALL),
    a("gfx1152", Amd, ALL),
    a("gfx1153", Amd, NEW22),
    a("gfx12-generic", Amd, ALL),
    a("gfx1200", Amd, ALL),
    a("gfx1201", Amd, ALL),
    a("gfx1250", Amd, NEW22),
    a("gfx1251", Amd, NEW22),
    a("amdgcnspirv", AmdgcnSpirv, ALL),
    a("graniterapids", IntelCpu, NEW22),
    a("bmg_g21", IntelGpu, NEW22),
    a("generic", Generic, ALL),
];

/// The names release `llvm` knows, in its order.
pub(crate) fn names(llvm: LlvmVersion) -> impl Iterator<Item = &'static OffloadArch> {
    OFFLOAD_ARCHS
        .iter()
        .filter(move |a| a.releases.contains(llvm))
}

/// `StringToOffloadArch(name)` of release `llvm`, as a family; `None` for `UNKNOWN` (the
/// match is exact; the empty string is known).
pub(crate) fn family(llvm: LlvmVersion, name: &[u8]) -> Option<ArchFamily> {
    names(llvm)
        .find(|a| a.name.as_bytes() == name)
        .map(|a| a.family)
}

/// Whether release `llvm`'s `StringToOffloadArch` knows `name`.
pub fn is_known(llvm: LlvmVersion, name: &[u8]) -> bool {
    family(llvm, name).is_some()
}

/// The NVIDIA names (`sm_20` …) release `llvm` knows.
#[cfg(test)]
pub(crate) fn nvidia(llvm: LlvmVersion) -> impl Iterator<Item = &'static str> {
    names(llvm)
        .filter(|a| a.family == ArchFamily::Nvidia)
        .map(|a| a.name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::triple::Triple;
    use LlvmVersion::{V19, V22};

    #[test]
    fn known_names() {
        for v in LlvmVersion::ALL {
            assert!(is_known(v, b""));
            assert!(is_known(v, b"sm_90a"));
            assert!(is_known(v, b"gfx12-generic"));
            assert!(is_known(v, b"generic"));
            assert!(!is_known(v, b"GFX906"));
            assert!(!is_known(v, b"sm_100f"));
            assert_eq!(family(v, b"amdgcnspirv"), Some(ArchFamily::AmdgcnSpirv));
        }
        assert!(!is_known(V19, b"gfx950"));
        assert!(!is_known(V19, b"sm_100"));
        assert!(is_known(V22, b"sm_121a"));
        assert!(!is_known(V22, b"gfx940"));
        assert_eq!(nvidia(V19).count(), 21);
        assert_eq!(nvidia(V22).count(), 34);
        assert_eq!(names(V19).count(), 74);
        assert_eq!(names(V22).count(), 92);
        assert_eq!(family(V22, b"bmg_g21"), Some(ArchFamily::IntelGpu));
    }

    #[test]
    fn every_amd_name_is_an_amdgcn_processor_of_the_same_release() {
        let t = Triple::parse("amdgcn-amd-amdhsa");
        for v in LlvmVersion::ALL {
            for a in names(v).filter(|a| a.family == ArchFamily::Amd) {
                assert_eq!(
                    super::super::amdgpu::canonical_name(v, &t, a.name.as_bytes()),
                    Some(a.name),
                    "{v}: {}",
                    a.name
                );
            }
        }
    }
}
