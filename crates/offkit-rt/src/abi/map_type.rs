//! Map-type bits (LLVM's `OMP_TGT_MAPTYPE_*`, `omptarget.h`): what clang's code says about each
//! entry of a construct's argument arrays.

pub(crate) const TO: i64 = 0x1;
pub(crate) const FROM: i64 = 0x2;
pub(crate) const ALWAYS: i64 = 0x4;
pub(crate) const DELETE: i64 = 0x8;
pub(crate) const PTR_AND_OBJ: i64 = 0x10;
pub(crate) const TARGET_PARAM: i64 = 0x20;
pub(crate) const RETURN_PARAM: i64 = 0x40;
pub(crate) const PRIVATE: i64 = 0x80;
pub(crate) const LITERAL: i64 = 0x100;
pub(crate) const IMPLICIT: i64 = 0x200;
pub(crate) const CLOSE: i64 = 0x400;
pub(crate) const PRESENT: i64 = 0x1000;
pub(crate) const OMPX_HOLD: i64 = 0x2000;
/// LLVM 22's pointer attachment (`attach.rs`); clang-19 never sets it.
pub(crate) const ATTACH: i64 = 0x4000;
pub(crate) const NON_CONTIG: i64 = 0x1000_0000_0000;
pub(crate) const MEMBER_OF: i64 = 0xffff_0000_0000_0000_u64 as i64;

/// The index of the parent entry of a `MEMBER_OF` entry, if any.
pub(crate) fn parent_index(t: i64) -> Option<usize> {
    let m = ((t as u64) >> 48) as usize;
    m.checked_sub(1)
}

/// The map-type word `printKernelArguments` shows.
pub(crate) fn name(t: i64, size: i64) -> &'static str {
    if t & ATTACH != 0 {
        if t & ALWAYS != 0 {
            "attach:always"
        } else {
            "attach"
        }
    } else if t & TO != 0 && t & FROM != 0 {
        "tofrom"
    } else if t & TO != 0 {
        "to"
    } else if t & FROM != 0 {
        "from"
    } else if t & PRIVATE != 0 {
        "private"
    } else if t & LITERAL != 0 {
        "firstprivate"
    } else if size != 0 {
        "alloc"
    } else {
        "use_address"
    }
}
