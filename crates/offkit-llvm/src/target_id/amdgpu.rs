//! The AMDGPU processor tables of every LLVM release offkit stands in for
//! (`llvm/lib/TargetParser/TargetParser.cpp`, `R600GPUs` and `AMDGCNGPUs`; features from
//! `TargetParser.h`), transcribed row for row from 19.1.7 and 22.1.8 into one table whose
//! columns say which releases know each row: every name a processor may be given (including
//! alternative names such as `tahiti`, `kaveri`, `fiji`), the canonical name it stands for, its
//! feature bits, and the generic target (AMDGPUUsage's "AMDGPU Generic Processors") whose code
//! runs on it.
//!
//! What changed from 19 to 22: `gfx940` and `gfx941` are gone; `gfx950`, `gfx1153`, `gfx1250`,
//! `gfx1251` and `gfx9-4-generic` are new; `gfx1250`/`gfx1251` have xnack always on
//! (`FEATURE_XNACK_ALWAYS`), so a target ID may not set it.
//!
//! ```
//! use offkit_llvm::target_id::amdgpu;
//! use offkit_llvm::triple::Triple;
//! use offkit_llvm::LlvmVersion;
//!
//! let gcn = Triple::parse("amdgcn-amd-amdhsa");
//! assert_eq!(amdgpu::canonical_name(LlvmVersion::V19, &gcn, b"gfx950"), None);
//! assert_eq!(amdgpu::canonical_name(LlvmVersion::V22, &gcn, b"gfx950"), Some("gfx950"));
//! assert_eq!(amdgpu::canonical_name(LlvmVersion::V22, &gcn, b"gfx941"), None);
//! assert_eq!(amdgpu::generic_target(LlvmVersion::V22, "gfx950"), Some("gfx9-4-generic"));
//! ```

use crate::triple::Triple;
use crate::version::{LlvmVersion, Releases};

/// Feature bit: FMA (R600 only; implied on AMDGCN).
pub(crate) const FEATURE_FMA: u32 = 1 << 1;
/// Feature bit: LDEXP (R600 only).
#[allow(dead_code)] // LLVM's table of bits, whole; no row offkit keeps sets it.
pub(crate) const FEATURE_LDEXP: u32 = 1 << 2;
/// Feature bit: FP64 (R600 only).
#[allow(dead_code)] // LLVM's table of bits, whole; no row offkit keeps sets it.
pub(crate) const FEATURE_FP64: u32 = 1 << 3;
/// Feature bit: fast FMA for f32.
pub(crate) const FEATURE_FAST_FMA_F32: u32 = 1 << 4;
/// Feature bit: fast f32 denormals.
pub(crate) const FEATURE_FAST_DENORMAL_F32: u32 = 1 << 5;
/// Feature bit: wave32 is available.
pub(crate) const FEATURE_WAVE32: u32 = 1 << 6;
/// Feature bit: `xnack` may be given in a target ID.
pub(crate) const FEATURE_XNACK: u32 = 1 << 7;
/// Feature bit: `sramecc` may be given in a target ID.
pub(crate) const FEATURE_SRAMECC: u32 = 1 << 8;
/// Feature bit: WGP mode.
pub(crate) const FEATURE_WGP: u32 = 1 << 9;
/// Feature bit: xnack is always on (LLVM 22: `gfx1250`, `gfx1251`); not a target ID feature.
pub(crate) const FEATURE_XNACK_ALWAYS: u32 = 1 << 10;

/// One row of a processor table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Gpu {
    /// A name the processor may be given.
    pub name: &'static str,
    /// The canonical name of its kind (what `getCanonicalArchName` returns).
    pub canonical: &'static str,
    /// The `FEATURE_*` bits of the row.
    pub features: u32,
    /// The generic target whose code runs on it (`gfx9-generic` for `gfx906`), if any.
    pub generic: Option<&'static str>,
    /// The releases whose table has the row.
    pub releases: Releases,
}

const ALL: Releases = Releases::ALL;
const NEW22: Releases = Releases::SINCE_22;
const OLD19: Releases = Releases::UNTIL_22;

const fn gpu(name: &'static str, canonical: &'static str, features: u32) -> Gpu {
    Gpu {
        name,
        canonical,
        features,
        generic: None,
        releases: ALL,
    }
}

impl Gpu {
    const fn generic(mut self, g: &'static str) -> Gpu {
        self.generic = Some(g);
        self
    }

    const fn releases(mut self, r: Releases) -> Gpu {
        self.releases = r;
        self
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
/// GFX9 with both target ID features.
const GFX9X: u32 = FFMA | FDEN | XNACK | SRAMECC;

const G9: &str = "gfx9-generic";
const G94: &str = "gfx9-4-generic";
const G101: &str = "gfx10-1-generic";
const G103: &str = "gfx10-3-generic";
const G11: &str = "gfx11-generic";
const G12: &str = "gfx12-generic";

/// `R600GPUs` (the same in every release).
pub const R600_GPUS: &[Gpu] = &[
    gpu("r600", "r600", NONE),
    gpu("rv630", "r600", NONE),
    gpu("rv635", "r600", NONE),
    gpu("r630", "r630", NONE),
    gpu("rs780", "rs880", NONE),
    gpu("rs880", "rs880", NONE),
    gpu("rv610", "rs880", NONE),
    gpu("rv620", "rs880", NONE),
    gpu("rv670", "rv670", NONE),
    gpu("rv710", "rv710", NONE),
    gpu("rv730", "rv730", NONE),
    gpu("rv740", "rv770", NONE),
    gpu("rv770", "rv770", NONE),
    gpu("cedar", "cedar", NONE),
    gpu("palm", "cedar", NONE),
    gpu("cypress", "cypress", FMA),
    gpu("hemlock", "cypress", FMA),
    gpu("juniper", "juniper", NONE),
    gpu("redwood", "redwood", NONE),
    gpu("sumo", "sumo", NONE),
    gpu("sumo2", "sumo", NONE),
    gpu("barts", "barts", NONE),
    gpu("caicos", "caicos", NONE),
    gpu("aruba", "cayman", FMA),
    gpu("cayman", "cayman", FMA),
    gpu("turks", "turks", NONE),
];

/// `AMDGCNGPUs` of every release, in LLVM 22's order (19's rows that 22 dropped where 19 had
/// them).
pub const AMDGCN_GPUS: &[Gpu] = &[
    gpu("gfx600", "gfx600", FFMA),
    gpu("tahiti", "gfx600", FFMA),
    gpu("gfx601", "gfx601", NONE),
    gpu("pitcairn", "gfx601", NONE),
    gpu("verde", "gfx601", NONE),
    gpu("gfx602", "gfx602", NONE),
    gpu("hainan", "gfx602", NONE),
    gpu("oland", "gfx602", NONE),
    gpu("gfx700", "gfx700", NONE),
    gpu("kaveri", "gfx700", NONE),
    gpu("gfx701", "gfx701", FFMA),
    gpu("hawaii", "gfx701", FFMA),
    gpu("gfx702", "gfx702", FFMA),
    gpu("gfx703", "gfx703", NONE),
    gpu("kabini", "gfx703", NONE),
    gpu("mullins", "gfx703", NONE),
    gpu("gfx704", "gfx704", NONE),
    gpu("bonaire", "gfx704", NONE),
    gpu("gfx705", "gfx705", NONE),
    gpu("gfx801", "gfx801", FFMA | FDEN | XNACK),
    gpu("carrizo", "gfx801", FFMA | FDEN | XNACK),
    gpu("gfx802", "gfx802", FDEN),
    gpu("iceland", "gfx802", FDEN),
    gpu("tonga", "gfx802", FDEN),
    gpu("gfx803", "gfx803", FDEN),
    gpu("fiji", "gfx803", FDEN),
    gpu("polaris10", "gfx803", FDEN),
    gpu("polaris11", "gfx803", FDEN),
    gpu("gfx805", "gfx805", FDEN),
    gpu("tongapro", "gfx805", FDEN),
    gpu("gfx810", "gfx810", FDEN | XNACK),
    gpu("stoney", "gfx810", FDEN | XNACK),
    gpu("gfx900", "gfx900", FFMA | FDEN | XNACK).generic(G9),
    gpu("gfx902", "gfx902", FFMA | FDEN | XNACK).generic(G9),
    gpu("gfx904", "gfx904", FFMA | FDEN | XNACK).generic(G9),
    gpu("gfx906", "gfx906", GFX9X).generic(G9),
    gpu("gfx908", "gfx908", GFX9X),
    gpu("gfx909", "gfx909", FFMA | FDEN | XNACK).generic(G9),
    gpu("gfx90a", "gfx90a", GFX9X),
    gpu("gfx90c", "gfx90c", FFMA | FDEN | XNACK).generic(G9),
    gpu("gfx940", "gfx940", GFX9X).releases(OLD19),
    gpu("gfx941", "gfx941", GFX9X).releases(OLD19),
    // gfx9-4-generic is 22's: 19 knows no generic target for gfx942.
    gpu("gfx942", "gfx942", GFX9X).generic(G94),
    gpu("gfx950", "gfx950", GFX9X).generic(G94).releases(NEW22),
    gpu("gfx1010", "gfx1010", GFX10 | XNACK).generic(G101),
    gpu("gfx1011", "gfx1011", GFX10 | XNACK).generic(G101),
    gpu("gfx1012", "gfx1012", GFX10 | XNACK).generic(G101),
    gpu("gfx1013", "gfx1013", GFX10 | XNACK).generic(G101),
    gpu("gfx1030", "gfx1030", GFX10).generic(G103),
    gpu("gfx1031", "gfx1031", GFX10).generic(G103),
    gpu("gfx1032", "gfx1032", GFX10).generic(G103),
    gpu("gfx1033", "gfx1033", GFX10).generic(G103),
    gpu("gfx1034", "gfx1034", GFX10).generic(G103),
    gpu("gfx1035", "gfx1035", GFX10).generic(G103),
    gpu("gfx1036", "gfx1036", GFX10).generic(G103),
    gpu("gfx1100", "gfx1100", GFX10).generic(G11),
    gpu("gfx1101", "gfx1101", GFX10).generic(G11),
    gpu("gfx1102", "gfx1102", GFX10).generic(G11),
    gpu("gfx1103", "gfx1103", GFX10).generic(G11),
    gpu("gfx1150", "gfx1150", GFX10).generic(G11),
    gpu("gfx1151", "gfx1151", GFX10).generic(G11),
    gpu("gfx1152", "gfx1152", GFX10).generic(G11),
    gpu("gfx1153", "gfx1153", GFX10)
        .generic(G11)
        .releases(NEW22),
    gpu("gfx1200", "gfx1200", GFX10).generic(G12),
    gpu("gfx1201", "gfx1201", GFX10).generic(G12),
    gpu(
        "gfx1250",
        "gfx1250",
        FFMA | FDEN | FEATURE_WAVE32 | FEATURE_XNACK_ALWAYS,
    )
    .releases(NEW22),
    gpu(
        "gfx1251",
        "gfx1251",
        FFMA | FDEN | FEATURE_WAVE32 | FEATURE_XNACK_ALWAYS,
    )
    .releases(NEW22),
    gpu(G9, G9, FFMA | FDEN | XNACK),
    gpu(G101, G101, GFX10 | XNACK),
    gpu(G103, G103, GFX10),
    gpu(G11, G11, GFX10),
    gpu(G12, G12, GFX10),
    gpu(G94, G94, GFX9X).releases(NEW22),
];

/// The table for a triple: R600 for `r600`, AMDGCN otherwise (LLVM asks `isAMDGCN()`).
fn table(triple: &Triple) -> &'static [Gpu] {
    if triple.is_amdgcn() {
        AMDGCN_GPUS
    } else {
        R600_GPUS
    }
}

/// The rows of the triple's table that release `llvm` knows, in its order.
pub(crate) fn rows(llvm: LlvmVersion, triple: &Triple) -> impl Iterator<Item = &'static Gpu> {
    table(triple)
        .iter()
        .filter(move |g| g.releases.contains(llvm))
}

/// `parseArchAMDGCN` / `parseArchR600` and `getArchEntry` of release `llvm`: the first row of
/// the processor named `name` (rows of one processor share its canonical name, features and
/// releases), if that release's table for the triple knows it.
pub(crate) fn lookup(llvm: LlvmVersion, triple: &Triple, name: &[u8]) -> Option<&'static Gpu> {
    let canonical = rows(llvm, triple)
        .find(|g| g.name.as_bytes() == name)?
        .canonical;
    rows(llvm, triple).find(|g| g.canonical == canonical)
}

/// `AMDGPU::getCanonicalArchName` of release `llvm`: `tahiti` → `gfx600`; `None` for names
/// its table for the triple does not know.
pub fn canonical_name(llvm: LlvmVersion, triple: &Triple, name: &[u8]) -> Option<&'static str> {
    lookup(llvm, triple, name).map(|g| g.canonical)
}

/// `getAllPossibleAMDGPUTargetIDFeatures` of release `llvm`: the features a target ID may set
/// for this processor, in alphabetical order (`sramecc`, `xnack`).
pub(crate) fn target_id_features(
    llvm: LlvmVersion,
    triple: &Triple,
    name: &[u8],
) -> &'static [&'static str] {
    match lookup(llvm, triple, name).map(|g| g.features & (FEATURE_SRAMECC | FEATURE_XNACK)) {
        Some(f) if f == FEATURE_SRAMECC | FEATURE_XNACK => &["sramecc", "xnack"],
        Some(FEATURE_SRAMECC) => &["sramecc"],
        Some(FEATURE_XNACK) => &["xnack"],
        _ => &[],
    }
}

/// Whether `name` is one of release `llvm`'s generic AMDGCN targets (`gfx9-generic` …).
pub fn is_generic(llvm: LlvmVersion, name: &str) -> bool {
    generic_members(llvm, name).next().is_some()
}

/// The generic target of release `llvm` whose code runs on `processor` (canonical name).
pub fn generic_target(llvm: LlvmVersion, processor: &str) -> Option<&'static str> {
    let gcn = Triple::parse("amdgcn-amd-amdhsa");
    let g = rows(llvm, &gcn).find(|g| g.name == processor)?.generic?;
    rows(llvm, &gcn).any(|r| r.name == g).then_some(g)
}

/// The processors of release `llvm` whose code the generic target `generic` runs on, in table
/// order (empty when `generic` is not one of its generic targets).
pub fn generic_members(
    llvm: LlvmVersion,
    generic: &str,
) -> impl Iterator<Item = &'static str> + '_ {
    let gcn = Triple::parse("amdgcn-amd-amdhsa");
    let known = rows(llvm, &gcn).any(|r| r.name == generic);
    rows(llvm, &gcn)
        .filter(move |g| known && g.generic == Some(generic))
        .map(|g| g.name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use LlvmVersion::{V19, V22};

    #[test]
    fn rows_of_a_processor_agree() {
        for t in [R600_GPUS, AMDGCN_GPUS] {
            for g in t {
                let first = t.iter().find(|c| c.canonical == g.canonical).unwrap();
                assert!(t.iter().any(|c| c.name == g.canonical), "{}", g.name);
                assert_eq!(first.features, g.features, "{}", g.name);
                assert_eq!(first.releases, g.releases, "{}", g.name);
            }
        }
    }

    #[test]
    fn lookups() {
        let gcn = Triple::parse("amdgcn-amd-amdhsa");
        let r600 = Triple::parse("r600--");
        for v in LlvmVersion::ALL {
            assert_eq!(canonical_name(v, &gcn, b"tahiti"), Some("gfx600"));
            assert_eq!(canonical_name(v, &gcn, b"kaveri"), Some("gfx700"));
            assert_eq!(
                canonical_name(v, &gcn, b"gfx9-generic"),
                Some("gfx9-generic")
            );
            assert_eq!(canonical_name(v, &gcn, b"r600"), None);
            assert_eq!(canonical_name(v, &r600, b"rv740"), Some("rv770"));
            assert_eq!(target_id_features(v, &gcn, b"gfx90a"), ["sramecc", "xnack"]);
            assert_eq!(target_id_features(v, &gcn, b"stoney"), ["xnack"]);
            assert_eq!(target_id_features(v, &gcn, b"gfx1030"), [] as [&str; 0]);
            assert_eq!(target_id_features(v, &r600, b"cayman"), [] as [&str; 0]);
        }
        assert_eq!(canonical_name(V19, &gcn, b"gfx950"), None);
        assert_eq!(canonical_name(V22, &gcn, b"gfx950"), Some("gfx950"));
        assert_eq!(canonical_name(V19, &gcn, b"gfx940"), Some("gfx940"));
        assert_eq!(canonical_name(V22, &gcn, b"gfx940"), None);
        assert_eq!(
            canonical_name(V22, &gcn, b"gfx9-4-generic"),
            Some("gfx9-4-generic")
        );
        assert_eq!(target_id_features(V22, &gcn, b"gfx1250"), [] as [&str; 0]);
        assert_eq!(
            target_id_features(V22, &gcn, b"gfx950"),
            ["sramecc", "xnack"]
        );
        assert_eq!(rows(V19, &gcn).count(), 68);
        assert_eq!(rows(V22, &gcn).count(), 71);
    }

    #[test]
    fn generic_targets() {
        assert_eq!(generic_target(V19, "gfx906"), Some("gfx9-generic"));
        assert_eq!(generic_target(V19, "gfx942"), None);
        assert_eq!(generic_target(V22, "gfx942"), Some("gfx9-4-generic"));
        assert_eq!(generic_target(V22, "gfx1153"), Some("gfx11-generic"));
        assert_eq!(generic_target(V22, "gfx90a"), None);
        assert_eq!(generic_target(V22, "gfx1250"), None);
        assert!(is_generic(V22, "gfx9-4-generic"));
        assert!(!is_generic(V19, "gfx9-4-generic"));
        assert!(!is_generic(V22, "gfx906"));
        assert_eq!(
            generic_members(V22, "gfx9-4-generic").collect::<Vec<_>>(),
            ["gfx942", "gfx950"]
        );
        assert_eq!(generic_members(V19, "gfx12-generic").count(), 2);
        assert_eq!(generic_members(V19, "gfx9-4-generic").count(), 0);
    }
}
