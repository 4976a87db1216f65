//! LLVM 22's pointer attachment (`OMP_TGT_MAPTYPE_ATTACH`). clang-22 maps the section `p[i:n]`
//! of a pointer `p` as the pointee alone plus an entry `&p, &p[i], sizeof(p), ATTACH`; clang-19
//! emitted a `PTR_AND_OBJ` pair instead and never sets the bit, so both runtimes follow LLVM 22
//! here (`omptarget.cpp`: `targetDataBegin`, `processAttachEntries`,
//! `performPointerAttachment`).
//!
//! On a construct's enter side the `ATTACH` entries are set aside while the other entries are
//! mapped, and the ranges newly allocated meanwhile are noted. Then, for each `ATTACH` entry in
//! order: if the pointer or the pointee was newly allocated (or the entry says `always`, or
//! `LIBOMPTARGET_TREAT_ATTACH_AUTO_AS_ALWAYS` is set), and both are present on the device (and
//! not host memory under unified shared memory), the device copy of the pointer is made to
//! point at the device pointee — recorded as a shadow pointer of the pointer's entry, so that
//! copies back to the host restore the host value, exactly as for `PTR_AND_OBJ`. Exit sides
//! ignore `ATTACH` entries; they count nothing and allocate nothing.
use std::sync::OnceLock;

use crate::abi::map_type::ALWAYS;
use crate::env::Env;
use crate::mapping::{copy, Shadow, Table};

/// An `ATTACH` entry set aside until the construct's other entries are mapped.
#[derive(Debug, Clone, Copy)]
struct Pending {
    /// The host address of the pointer (`&p`).
    ptr_addr: usize,
    /// The host address of the first pointee element mapped (`&p[i]`).
    ptee_begin: usize,
    /// The pointer's size (8 in C and C++; a Fortran descriptor's size).
    ptr_size: i64,
    map_type: i64,
}

/// LLVM 22's `AttachInfoTy`: the deferred entries and the new allocations of one construct.
#[derive(Debug, Default)]
pub(crate) struct AttachInfo {
    pending: Vec<Pending>,
    /// Host ranges `(begin, size)` that got new device memory on this construct.
    new_allocations: Vec<(usize, usize)>,
}

impl AttachInfo {
    /// Sets an `ATTACH` entry (`base` = `&p`, `begin` = `&p[i]`) aside.
    pub(crate) fn defer(&mut self, base: usize, begin: usize, size: i64, map_type: i64) {
        self.pending.push(Pending {
            ptr_addr: base,
            ptee_begin: begin,
            ptr_size: size,
            map_type,
        });
    }

    /// Notes a host range that was newly allocated on the device.
    pub(crate) fn allocated(&mut self, begin: usize, size: i64) {
        self.new_allocations
            .push((begin, usize::try_from(size).unwrap_or(0)));
    }

    fn newly_allocated(&self, p: usize) -> bool {
        self.new_allocations
            .iter()
            .any(|&(b, n)| p >= b && p < b.wrapping_add(n))
    }

    /// LLVM 22's `processAttachEntries`, on the construct's table.
    pub(crate) fn process(&self, t: &mut Table) {
        if !self.pending.is_empty() {
            self.process_with(t, treat_auto_as_always());
        }
    }

    fn process_with(&self, t: &mut Table, always: bool) {
        for e in &self.pending {
            let forced = always || e.map_type & ALWAYS != 0;
            if !forced && !self.newly_allocated(e.ptee_begin) && !self.newly_allocated(e.ptr_addr) {
                continue;
            }
            // The pointee first (LLVM 22 looks it up with size 0), then the pointer.
            let ptee = t.get_tgt_ptr_begin(e.ptee_begin, 0, false, false, true, false);
            if !ptee.present || ptee.host || ptee.tgt == 0 {
                continue;
            }
            let ptr = t.get_tgt_ptr_begin(e.ptr_addr, e.ptr_size, false, false, true, false);
            if !ptr.present || ptr.host {
                continue;
            }
            attach(t, e, ptee.tgt, ptr.tgt, ptr.key);
        }
    }
}

/// `LIBOMPTARGET_TREAT_ATTACH_AUTO_AS_ALWAYS`, read once.
fn treat_auto_as_always() -> bool {
    static ALWAYS_: OnceLock<bool> = OnceLock::new();
    *ALWAYS_.get_or_init(|| Env::read().attach_always)
}

/// LLVM 22's `performPointerAttachment`: the device pointer gets the device pointee's base,
/// once per value (the shadow pointer says whether it already has it).
fn attach(t: &mut Table, e: &Pending, tgt_ptee_begin: usize, tgt_ptr: usize, key: Option<usize>) {
    const PTR: usize = std::mem::size_of::<usize>();
    // SAFETY: an ATTACH entry's base is the address of a host pointer (or of a descriptor that
    // starts with one) of `ptr_size` bytes, which the program maps.
    let ptee_base = unsafe { *(e.ptr_addr as *const usize) };
    let tgt_ptee_base = tgt_ptee_begin.wrapping_sub(e.ptee_begin.wrapping_sub(ptee_base));
    let shadow = Shadow {
        hst_addr: e.ptr_addr,
        hst_val: ptee_base,
        tgt_addr: tgt_ptr,
        tgt_val: tgt_ptee_base,
    };
    let Some(entry) = key.and_then(|k| t.map.get_mut(&k)) else {
        return;
    };
    if !entry.add_shadow(shadow) {
        return;
    }
    let name = entry.name;
    let size = usize::try_from(e.ptr_size).unwrap_or(PTR).max(PTR);
    // The pointee's address, then (for a descriptor) the rest of the host descriptor.
    let mut buf = tgt_ptee_base.to_ne_bytes().to_vec();
    if size > PTR {
        // SAFETY: as above, the host descriptor has `ptr_size` bytes.
        let rest =
            unsafe { std::slice::from_raw_parts((e.ptr_addr + PTR) as *const u8, size - PTR) };
        buf.extend_from_slice(rest);
    }
    copy(
        t.dev,
        true,
        tgt_ptr,
        buf.as_ptr() as usize,
        size as i64,
        name,
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::abi::map_type::ATTACH;
    use crate::mapping::MapReq;

    fn map(t: &mut Table, begin: usize, size: i64) -> crate::mapping::Tpr {
        t.get_target_pointer(&MapReq {
            begin,
            base: begin,
            size,
            update_ref: true,
            to: true,
            ..MapReq::default()
        })
    }

    #[test]
    fn a_mapped_pointer_is_attached_to_its_new_pointee_once() {
        let mut t = Table::new(0);
        let data = [7u32; 4];
        let p: *const u32 = data.as_ptr();
        let pp = (&raw const p) as usize;
        // `map(p)` first (a plain 8-byte entry), then `map(p[1:3])` with its ATTACH entry.
        let ptr = map(&mut t, pp, 8);
        let mut info = AttachInfo::default();
        let begin = p as usize + 4;
        let ptee = map(&mut t, begin, 12);
        info.allocated(begin, 12);
        info.defer(pp, begin, 8, ATTACH);
        info.process_with(&mut t, false);
        let mut dev_ptr = 0usize;
        // SAFETY: ptr.tgt is the host plugin's 8-byte copy of p.
        unsafe { std::ptr::copy_nonoverlapping(ptr.tgt as *const usize, &mut dev_ptr, 1) };
        assert_eq!(
            dev_ptr,
            ptee.tgt - 4,
            "the device p points at the device p[0]"
        );
        assert_eq!(t.map[&pp].shadows.len(), 1);
        // Nothing new: no attachment; `always`: the same value, so no second copy.
        let again = AttachInfo {
            pending: info.pending.clone(),
            new_allocations: Vec::new(),
        };
        again.process_with(&mut t, true);
        assert_eq!(t.map[&pp].shadows.len(), 1);
        for k in [pp, begin] {
            t.get_tgt_ptr_begin(k, 0, true, false, true, true);
            t.remove(k, 0);
        }
    }

    #[test]
    fn an_unmapped_pointer_is_left_alone() {
        let mut t = Table::new(0);
        let data = [1u8; 16];
        let p: *const u8 = data.as_ptr();
        let pp = (&raw const p) as usize;
        let mut info = AttachInfo::default();
        map(&mut t, p as usize, 16);
        info.allocated(p as usize, 16);
        info.defer(pp, p as usize, 8, ATTACH);
        info.process_with(&mut t, false);
        assert!(t.map[&(p as usize)].shadows.is_empty());
        t.get_tgt_ptr_begin(p as usize, 16, true, false, true, false);
        t.remove(p as usize, 16);
    }
}
