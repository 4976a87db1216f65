//! LLVM 19's AMDGPU processor tables (`llvm/lib/TargetParser/TargetParser.cpp`, `R600GPUs`
//! and `AMDGCNGPUs`; kinds from `TargetParser.h`), transcribed row for row from the 19 release:
//! every name a processor may be given (including alternative names such as `tahiti`,
//! `kaveri`, `fiji` and the generic targets `gfx9-generic` … `gfx12-generic`), the canonical
//! name it stands for, and its feature bits. Not in 19: `gfx950`, `gfx1153`, `gfx9-4-generic`….

use crate::triple::Triple;

/// Feature bit: FMA (R600 only; implied on AMDGCN).
pub const FEATURE_FMA: u32 = 1 << 1;
/// Feature bit: LDEXP (R600 only).
pub const FEATURE_LDEXP: u32 = 1 << 2;
/// Feature bit: FP64 (R600 only).
pub const FEATURE_FP64: u32 = 1 << 3;
/// Feature bit: fast FMA for f32.
pub const FEATURE_FAST_FMA_F32: u32 = 1 << 4;
/// Feature bit: fast f32 denormals.
pub const FEATURE_FAST_DENORMAL_F32: u32 = 1 << 5;
/// Feature bit: wave32 is available.
pub const FEATURE_WAVE32: u32 = 1 << 6;
/// Feature bit: `xnack` may be given in a target ID.
pub const FEATURE_XNACK: u32 = 1 << 7;
/// Feature bit: `sramecc` may be given in a target ID.
pub const FEATURE_SRAMECC: u32 = 1 << 8;
/// Feature bit: WGP mode.
pub const FEATURE_WGP: u32 = 1 << 9;

/// One row of a processor table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Gpu {
    /// A name the processor may be given.
    pub name: &'static str,
    /// The canonical name of its kind (what `getCanonicalArchName` returns).
    pub canonical: &'static str,
    /// `AMDGPU::GPUKind`'s value.
    pub kind: u32,
    /// The `FEATURE_*` bits of the row.
    pub features: u32,
}

const fn gpu(name: &'static str, canonical: &'static str, kind: u32, features: u32) -> Gpu {
    Gpu {
        name,
        canonical,
        kind,
        features,
    }
}

const NONE: u32 = 0;
const FMA: u32 = FEATURE_FMA;
const FFMA: u32 = FEATURE_FAST_FMA_F32;
const FDEN: u32 = FEATURE_FAST_DENORMAL_F32;
const XNACK: u32 = FEATURE_XNACK;
const SRAMECC: u32 = FEATURE_SRAMECC;
/// The bits every GFX10+ row has.
const GFX10: u32 = FFMA | FDEN | FEATURE_WAVE32 | FEATURE_WGP;

/// `R600GPUs` (LLVM 19).
pub const R600_GPUS: &[Gpu] = &[
    gpu("r600", "r600", 1, NONE),
    gpu("rv630", "r600", 1, NONE),
    gpu("rv635", "r600", 1, NONE),
    gpu("r630", "r630", 2, NONE),
    gpu("rs780", "rs880", 3, NONE),
    gpu("rs880", "rs880", 3, NONE),
    gpu("rv610", "rs880", 3, NONE),
    gpu("rv620", "rs880", 3, NONE),
    gpu("rv670", "rv670", 4, NONE),
    gpu("rv710", "rv710", 5, NONE),
    gpu("rv730", "rv730", 6, NONE),
    gpu("rv740", "rv770", 7, NONE),
    gpu("rv770", "rv770", 7, NONE),
    gpu("cedar", "cedar", 8, NONE),
    gpu("palm", "cedar", 8, NONE),
    gpu("cypress", "cypress", 9, FMA),
    gpu("hemlock", "cypress", 9, FMA),
    gpu("juniper", "juniper", 10, NONE),
    gpu("redwood", "redwood", 11, NONE),
    gpu("sumo", "sumo", 12, NONE),
    gpu("sumo2", "sumo", 12, NONE),
    gpu("barts", "barts", 13, NONE),
    gpu("caicos", "caicos", 14, NONE),
    gpu("aruba", "cayman", 15, FMA),
    gpu("cayman", "cayman", 15, FMA),
    gpu("turks", "turks", 16, NONE),
];

/// `AMDGCNGPUs` (LLVM 19), sorted by kind as LLVM requires.
pub const AMDGCN_GPUS: &[Gpu] = &[
    gpu("gfx600", "gfx600", 32, FFMA),
    gpu("tahiti", "gfx600", 32, FFMA),
    gpu("gfx601", "gfx601", 33, NONE),
    gpu("pitcairn", "gfx601", 33, NONE),
    gpu("verde", "gfx601", 33, NONE),
    gpu("gfx602", "gfx602", 34, NONE),
    gpu("hainan", "gfx602", 34, NONE),
    gpu("oland", "gfx602", 34, NONE),
    gpu("gfx700", "gfx700", 40, NONE),
    gpu("kaveri", "gfx700", 40, NONE),
    gpu("gfx701", "gfx701", 41, FFMA),
    gpu("hawaii", "gfx701", 41, FFMA),
    gpu("gfx702", "gfx702", 42, FFMA),
    gpu("gfx703", "gfx703", 43, NONE),
    gpu("kabini", "gfx703", 43, NONE),
    gpu("mullins", "gfx703", 43, NONE),
    gpu("gfx704", "gfx704", 44, NONE),
    gpu("bonaire", "gfx704", 44, NONE),
    gpu("gfx705", "gfx705", 45, NONE),
    gpu("gfx801", "gfx801", 50, FFMA | FDEN | XNACK),
    gpu("carrizo", "gfx801", 50, FFMA | FDEN | XNACK),
    gpu("gfx802", "gfx802", 51, FDEN),
    gpu("iceland", "gfx802", 51, FDEN),
    gpu("tonga", "gfx802", 51, FDEN),
    gpu("gfx803", "gfx803", 52, FDEN),
    gpu("fiji", "gfx803", 52, FDEN),
    gpu("polaris10", "gfx803", 52, FDEN),
    gpu("polaris11", "gfx803", 52, FDEN),
    gpu("gfx805", "gfx805", 53, FDEN),
    gpu("tongapro", "gfx805", 53, FDEN),
    gpu("gfx810", "gfx810", 54, FDEN | XNACK),
    gpu("stoney", "gfx810", 54, FDEN | XNACK),
    gpu("gfx900", "gfx900", 60, FFMA | FDEN | XNACK),
    gpu("gfx902", "gfx902", 61, FFMA | FDEN | XNACK),
    gpu("gfx904", "gfx904", 62, FFMA | FDEN | XNACK),
    gpu("gfx906", "gfx906", 63, FFMA | FDEN | XNACK | SRAMECC),
    gpu("gfx908", "gfx908", 64, FFMA | FDEN | XNACK | SRAMECC),
    gpu("gfx909", "gfx909", 65, FFMA | FDEN | XNACK),
    gpu("gfx90a", "gfx90a", 66, FFMA | FDEN | XNACK | SRAMECC),
    gpu("gfx90c", "gfx90c", 67, FFMA | FDEN | XNACK),
    gpu("gfx940", "gfx940", 68, FFMA | FDEN | XNACK | SRAMECC),
    gpu("gfx941", "gfx941", 69, FFMA | FDEN | XNACK | SRAMECC),
    gpu("gfx942", "gfx942", 70, FFMA | FDEN | XNACK | SRAMECC),
    gpu("gfx1010", "gfx1010", 71, GFX10 | XNACK),
    gpu("gfx1011", "gfx1011", 72, GFX10 | XNACK),
    gpu("gfx1012", "gfx1012", 73, GFX10 | XNACK),
    gpu("gfx1013", "gfx1013", 74, GFX10 | XNACK),
    gpu("gfx1030", "gfx1030", 75, GFX10),
    gpu("gfx1031", "gfx1031", 76, GFX10),
    gpu("gfx1032", "gfx1032", 77, GFX10),
    gpu("gfx1033", "gfx1033", 78, GFX10),
    gpu("gfx1034", "gfx1034", 79, GFX10),
    gpu("gfx1035", "gfx1035", 80, GFX10),
    gpu("gfx1036", "gfx1036", 81, GFX10),
    gpu("gfx1100", "gfx1100", 90, GFX10),
    gpu("gfx1101", "gfx1101", 91, GFX10),
    gpu("gfx1102", "gfx1102", 92, GFX10),
    gpu("gfx1103", "gfx1103", 93, GFX10),
    gpu("gfx1150", "gfx1150", 94, GFX10),
    gpu("gfx1151", "gfx1151", 95, GFX10),
    gpu("gfx1152", "gfx1152", 96, GFX10),
    gpu("gfx1200", "gfx1200", 100, GFX10),
    gpu("gfx1201", "gfx1201", 101, GFX10),
    gpu("gfx9-generic", "gfx9-generic", 192, FFMA | FDEN | XNACK),
    gpu("gfx10-1-generic", "gfx10-1-generic", 193, GFX10 | XNACK),
    gpu("gfx10-3-generic", "gfx10-3-generic", 194, GFX10),
    gpu("gfx11-generic", "gfx11-generic", 195, GFX10),
    gpu("gfx12-generic", "gfx12-generic", 196, GFX10),
];

/// The table for a triple: R600 for `r600`, AMDGCN otherwise (LLVM asks `isAMDGCN()`).
fn table(triple: &Triple) -> &'static [Gpu] {
    if triple.is_amdgcn() {
        AMDGCN_GPUS
    } else {
        R600_GPUS
    }
}

/// `parseArchAMDGCN` / `parseArchR600` and `getArchEntry`: the canonical row (the first row of
/// the kind, whose name is the canonical name and whose features LLVM reports) for the
/// processor named `name`, if the triple's table knows it.
pub fn lookup(triple: &Triple, name: &[u8]) -> Option<&'static Gpu> {
    let table = table(triple);
    let kind = table.iter().find(|g| g.name.as_bytes() == name)?.kind;
    table.iter().find(|g| g.kind == kind)
}

/// `AMDGPU::getCanonicalArchName`: `tahiti` → `gfx600`; `None` for names the triple's table
/// does not know.
pub fn canonical_name(triple: &Triple, name: &[u8]) -> Option<&'static str> {
    lookup(triple, name).map(|g| g.canonical)
}

/// `getAllPossibleAMDGPUTargetIDFeatures`: the features a target ID may set for this
/// processor, in alphabetical order (`sramecc`, `xnack`).
pub fn target_id_features(triple: &Triple, name: &[u8]) -> &'static [&'static str] {
    match lookup(triple, name).map(|g| g.features & (FEATURE_SRAMECC | FEATURE_XNACK)) {
        Some(f) if f == FEATURE_SRAMECC | FEATURE_XNACK => &["sramecc", "xnack"],
        Some(FEATURE_SRAMECC) => &["sramecc"],
        Some(FEATURE_XNACK) => &["xnack"],
        _ => &[],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_are_sorted_by_kind_and_canonical_rows_come_first() {
        for t in [R600_GPUS, AMDGCN_GPUS] {
            assert!(t.windows(2).all(|w| w[0].kind <= w[1].kind));
            for g in t {
                let first = t.iter().find(|c| c.kind == g.kind).unwrap();
                assert_eq!(first.canonical, g.canonical, "{}", g.name);
                assert_eq!(first.features, g.features, "{}", g.name);
            }
        }
    }

    #[test]
    fn lookups() {
        let gcn = Triple::parse("amdgcn-amd-amdhsa");
        let r600 = Triple::parse("r600--");
        assert_eq!(canonical_name(&gcn, b"tahiti"), Some("gfx600"));
        assert_eq!(canonical_name(&gcn, b"kaveri"), Some("gfx700"));
        assert_eq!(canonical_name(&gcn, b"gfx9-generic"), Some("gfx9-generic"));
        assert_eq!(canonical_name(&gcn, b"gfx950"), None);
        assert_eq!(canonical_name(&gcn, b"r600"), None);
        assert_eq!(canonical_name(&r600, b"rv740"), Some("rv770"));
        assert_eq!(target_id_features(&gcn, b"gfx90a"), ["sramecc", "xnack"]);
        assert_eq!(target_id_features(&gcn, b"stoney"), ["xnack"]);
        assert_eq!(target_id_features(&gcn, b"gfx1030"), [] as [&str; 0]);
        assert_eq!(target_id_features(&r600, b"cayman"), [] as [&str; 0]);
    }
}
