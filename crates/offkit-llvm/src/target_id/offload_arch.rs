//! LLVM 19's offload-arch names (`clang/lib/Basic/Cuda.cpp`, `arch_names`): the names
//! `StringToOffloadArch` knows. The offload bundler uses this list (exact match) to decide
//! whether the last `-` component of a bundle entry ID is a processor.

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
}

/// `arch_names` of LLVM 19, in its order, with each name's family.
pub const OFFLOAD_ARCHS: &[(&str, ArchFamily)] = &[
    ("", ArchFamily::Unused),
    ("sm_20", ArchFamily::Nvidia),
    ("sm_21", ArchFamily::Nvidia),
    ("sm_30", ArchFamily::Nvidia),
    ("sm_32", ArchFamily::Nvidia),
    ("sm_35", ArchFamily::Nvidia),
    ("sm_37", ArchFamily::Nvidia),
    ("sm_50", ArchFamily::Nvidia),
    ("sm_52", ArchFamily::Nvidia),
    ("sm_53", ArchFamily::Nvidia),
    ("sm_60", ArchFamily::Nvidia),
    ("sm_61", ArchFamily::Nvidia),
    ("sm_62", ArchFamily::Nvidia),
    ("sm_70", ArchFamily::Nvidia),
    ("sm_72", ArchFamily::Nvidia),
    ("sm_75", ArchFamily::Nvidia),
    ("sm_80", ArchFamily::Nvidia),
    ("sm_86", ArchFamily::Nvidia),
    ("sm_87", ArchFamily::Nvidia),
    ("sm_89", ArchFamily::Nvidia),
    ("sm_90", ArchFamily::Nvidia),
    ("sm_90a", ArchFamily::Nvidia),
    ("gfx600", ArchFamily::Amd),
    ("gfx601", ArchFamily::Amd),
    ("gfx602", ArchFamily::Amd),
    ("gfx700", ArchFamily::Amd),
    ("gfx701", ArchFamily::Amd),
    ("gfx702", ArchFamily::Amd),
    ("gfx703", ArchFamily::Amd),
    ("gfx704", ArchFamily::Amd),
    ("gfx705", ArchFamily::Amd),
    ("gfx801", ArchFamily::Amd),
    ("gfx802", ArchFamily::Amd),
    ("gfx803", ArchFamily::Amd),
    ("gfx805", ArchFamily::Amd),
    ("gfx810", ArchFamily::Amd),
    ("gfx9-generic", ArchFamily::Amd),
    ("gfx900", ArchFamily::Amd),
    ("gfx902", ArchFamily::Amd),
    ("gfx904", ArchFamily::Amd),
    ("gfx906", ArchFamily::Amd),
    ("gfx908", ArchFamily::Amd),
    ("gfx909", ArchFamily::Amd),
    ("gfx90a", ArchFamily::Amd),
    ("gfx90c", ArchFamily::Amd),
    ("gfx940", ArchFamily::Amd),
    ("gfx941", ArchFamily::Amd),
    ("gfx942", ArchFamily::Amd),
    ("gfx10-1-generic", ArchFamily::Amd),
    ("gfx1010", ArchFamily::Amd),
    ("gfx1011", ArchFamily::Amd),
    ("gfx1012", ArchFamily::Amd),
    ("gfx1013", ArchFamily::Amd),
    ("gfx10-3-generic", ArchFamily::Amd),
    ("gfx1030", ArchFamily::Amd),
    ("gfx1031", ArchFamily::Amd),
    ("gfx1032", ArchFamily::Amd),
    ("gfx1033", ArchFamily::Amd),
    ("gfx1034", ArchFamily::Amd),
    ("gfx1035", ArchFamily::Amd),
    ("gfx1036", ArchFamily::Amd),
    ("gfx11-generic", ArchFamily::Amd),
    ("gfx1100", ArchFamily::Amd),
    ("gfx1101", ArchFamily::Amd),
    ("gfx1102", ArchFamily::Amd),
    ("gfx1103", ArchFamily::Amd),
    ("gfx1150", ArchFamily::Amd),
    ("gfx1151", ArchFamily::Amd),
    ("gfx1152", ArchFamily::Amd),
    ("gfx12-generic", ArchFamily::Amd),
    ("gfx1200", ArchFamily::Amd),
    ("gfx1201", ArchFamily::Amd),
    ("amdgcnspirv", ArchFamily::AmdgcnSpirv),
    ("generic", ArchFamily::Generic),
];

/// `StringToOffloadArch(name) != OffloadArch::UNKNOWN`: whether LLVM 19 knows this name
/// (exactly; the empty string is known).
pub fn family(name: &[u8]) -> Option<ArchFamily> {
    OFFLOAD_ARCHS
        .iter()
        .find(|(n, _)| n.as_bytes() == name)
        .map(|&(_, f)| f)
}

/// Whether LLVM 19's `StringToOffloadArch` knows `name`.
pub fn is_known(name: &[u8]) -> bool {
    family(name).is_some()
}

/// The NVIDIA names (`sm_20` … `sm_90a`) LLVM 19 knows.
pub fn nvidia() -> impl Iterator<Item = &'static str> {
    OFFLOAD_ARCHS
        .iter()
        .filter(|(_, f)| *f == ArchFamily::Nvidia)
        .map(|&(n, _)| n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_names() {
        assert!(is_known(b""));
        assert!(is_known(b"sm_90a"));
        assert!(is_known(b"gfx12-generic"));
        assert!(is_known(b"generic"));
        assert!(!is_known(b"gfx950"));
        assert!(!is_known(b"sm_100"));
        assert!(!is_known(b"GFX906"));
        assert_eq!(nvidia().count(), 21);
        assert_eq!(family(b"amdgcnspirv"), Some(ArchFamily::AmdgcnSpirv));
    }

    #[test]
    fn every_amd_name_is_an_amdgcn_processor() {
        let t = crate::triple::Triple::parse("amdgcn-amd-amdhsa");
        for (name, f) in OFFLOAD_ARCHS {
            if *f == ArchFamily::Amd {
                assert_eq!(
                    super::super::amdgpu::canonical_name(&t, name.as_bytes()),
                    Some(*name)
                );
            }
        }
    }
}
