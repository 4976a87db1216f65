//! The AMDGPU processors of `e_flags & EF_AMDGPU_MACH` (`EF_AMDGPU_MACH_*` in LLVM's
//! `llvm/include/llvm/BinaryFormat/ELF.h`, names as `AMDGPUTargetStreamer::getArchNameFromElfMach`
//! gives them), of every release: LLVM 19 knows all but `gfx950`, `gfx1153`, `gfx1250`,
//! `gfx1251` and `gfx9-4-generic`, which 22 has; `gfx940` and `gfx941` (values 0x40 and 0x4b,
//! reserved in 22) are 19's only, kept so that old code objects still read.

/// `(EF_AMDGPU_MACH value, processor)`, by value.
pub(crate) const MACHS: &[(u32, &str)] = &[
    (0x001, "r600"),
    (0x002, "r630"),
    (0x003, "rs880"),
    (0x004, "rv670"),
    (0x005, "rv710"),
    (0x006, "rv730"),
    (0x007, "rv770"),
    (0x008, "cedar"),
    (0x009, "cypress"),
    (0x00a, "juniper"),
    (0x00b, "redwood"),
    (0x00c, "sumo"),
    (0x00d, "barts"),
    (0x00e, "caicos"),
    (0x00f, "cayman"),
    (0x010, "turks"),
    (0x020, "gfx600"),
    (0x021, "gfx601"),
    (0x022, "gfx700"),
    (0x023, "gfx701"),
    (0x024, "gfx702"),
    (0x025, "gfx703"),
    (0x026, "gfx704"),
    (0x028, "gfx801"),
    (0x029, "gfx802"),
    (0x02a, "gfx803"),
    (0x02b, "gfx810"),
    (0x02c, "gfx900"),
    (0x02d, "gfx902"),
    (0x02e, "gfx904"),
    (0x02f, "gfx906"),
    (0x030, "gfx908"),
    (0x031, "gfx909"),
    (0x032, "gfx90c"),
    (0x033, "gfx1010"),
    (0x034, "gfx1011"),
    (0x035, "gfx1012"),
    (0x036, "gfx1030"),
    (0x037, "gfx1031"),
    (0x038, "gfx1032"),
    (0x039, "gfx1033"),
    (0x03a, "gfx602"),
    (0x03b, "gfx705"),
    (0x03c, "gfx805"),
    (0x03d, "gfx1035"),
    (0x03e, "gfx1034"),
    (0x03f, "gfx90a"),
    (0x040, "gfx940"),
    (0x041, "gfx1100"),
    (0x042, "gfx1013"),
    (0x043, "gfx1150"),
    (0x044, "gfx1103"),
    (0x045, "gfx1036"),
    (0x046, "gfx1101"),
    (0x047, "gfx1102"),
    (0x048, "gfx1200"),
    (0x049, "gfx1250"),
    (0x04a, "gfx1151"),
    (0x04b, "gfx941"),
    (0x04c, "gfx942"),
    (0x04e, "gfx1201"),
    (0x04f, "gfx950"),
    (0x051, "gfx9-generic"),
    (0x052, "gfx10-1-generic"),
    (0x053, "gfx10-3-generic"),
    (0x054, "gfx11-generic"),
    (0x055, "gfx1152"),
    (0x058, "gfx1153"),
    (0x059, "gfx12-generic"),
    (0x05a, "gfx1251"),
    (0x05f, "gfx9-4-generic"),
];

/// The processor of `EF_AMDGPU_MACH` value `mach`.
pub(crate) fn processor(mach: u32) -> Option<&'static str> {
    MACHS
        .binary_search_by_key(&mach, |&(v, _)| v)
        .ok()
        .and_then(|i| MACHS.get(i))
        .map(|&(_, name)| name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorted_and_found() {
        assert!(MACHS.windows(2).all(|w| w[0].0 < w[1].0));
        assert_eq!(processor(0x3f), Some("gfx90a"));
        assert_eq!(processor(0x36), Some("gfx1030"));
        assert_eq!(processor(0x4c), Some("gfx942"));
        assert_eq!(processor(0x27), None);
        assert_eq!(processor(0x49), Some("gfx1250"));
        assert_eq!(processor(0x5a), Some("gfx1251"));
        assert_eq!(processor(0x4f), Some("gfx950"));
    }
}
