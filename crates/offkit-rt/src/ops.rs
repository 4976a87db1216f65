//! The constructs: data begin (`target data`, `enter data`, the enter side of `target`), data
//! end, `target update` (including non-contiguous sections), declare mappers, and the kernel
//! launch with its arguments (mapped, literal, (first)private, lambda captures), following
//! LLVM 19's `omptarget.cpp`.
use std::ffi::c_void;

use crate::abi::map_type::*;
use crate::abi::{abi, Ident, NonContig, V19};
use crate::attach::AttachInfo;
use crate::log::{self, info, P};
use crate::mapper;
use crate::mapping::{copy, MapReq, Shadow, Table, Tpr};
use crate::ompt::{self, TargetKind};
use crate::policy;

mod launch;

pub(crate) use launch::target;

/// The argument arrays of a construct (borrowed from the program, or built from a mapper's
/// components).
#[derive(Debug)]
pub(crate) struct MapArgs<'a> {
    pub bases: &'a mut [*mut c_void],
    pub begins: &'a [*mut c_void],
    pub sizes: &'a [i64],
    pub types: &'a [i64],
    pub names: Option<&'a [*mut c_void]>,
    pub mappers: Option<&'a [*mut c_void]>,
}

impl<'a> MapArgs<'a> {
    /// Borrows the program's arrays.
    ///
    /// # Safety
    /// Each non-null array has `n` elements and outlives `'a`.
    #[allow(clippy::too_many_arguments)]
    pub(crate) unsafe fn from_raw(
        n: i32,
        bases: *mut *mut c_void,
        begins: *mut *mut c_void,
        sizes: *mut i64,
        types: *mut i64,
        names: *mut *mut c_void,
        mappers: *mut *mut c_void,
    ) -> MapArgs<'a> {
        let n = usize::try_from(n).unwrap_or(0);
        let any = n > 0 && !bases.is_null() && !begins.is_null() && !sizes.is_null();
        let n = if any && !types.is_null() { n } else { 0 };
        // SAFETY (all four): the caller's contract; empty slices when an array is missing.
        unsafe {
            MapArgs {
                bases: slice_mut(bases, n),
                begins: slice(begins, n),
                sizes: slice(sizes, n),
                types: slice(types, n),
                names: (!names.is_null()).then(|| slice(names, n)),
                mappers: (!mappers.is_null()).then(|| slice(mappers, n)),
            }
        }
    }

    fn len(&self) -> usize {
        self.types.len()
    }

    fn name(&self, i: usize) -> usize {
        self.names.and_then(|n| n.get(i)).map_or(0, |&p| p as usize)
    }

    fn mapper(&self, i: usize) -> usize {
        self.mappers
            .and_then(|m| m.get(i))
            .map_or(0, |&p| p as usize)
    }
}

/// # Safety
/// `p` points to `n` elements (or `n` is 0).
unsafe fn slice<'a, T>(p: *const T, n: usize) -> &'a [T] {
    if n == 0 || p.is_null() {
        &[]
    } else {
        // SAFETY: the caller's contract.
        unsafe { std::slice::from_raw_parts(p, n) }
    }
}

/// # Safety
/// `p` points to `n` writable elements (or `n` is 0).
unsafe fn slice_mut<'a, T>(p: *mut T, n: usize) -> &'a mut [T] {
    if n == 0 || p.is_null() {
        &mut []
    } else {
        // SAFETY: the caller's contract.
        unsafe { std::slice::from_raw_parts_mut(p, n) }
    }
}

/// Runs a mapper function and the construct's operation on the components it pushed.
fn with_mapper(
    a: &MapArgs<'_>,
    i: usize,
    op: &mut dyn FnMut(&mut MapArgs<'_>) -> Result<(), ()>,
) -> Result<(), ()> {
    let f = a.mapper(i);
    // SAFETY: clang passes its generated mapper functions, of this signature, in the mappers
    // array; they push into LLVM's handle (mapper.rs).
    let mut c = unsafe {
        let f = std::mem::transmute::<usize, mapper::MapperFn>(f);
        mapper::run(
            f,
            a.bases.get(i).copied().unwrap_or(std::ptr::null_mut()),
            a.begins.get(i).copied().unwrap_or(std::ptr::null_mut()),
            a.sizes.get(i).copied().unwrap_or(0),
            a.types.get(i).copied().unwrap_or(0),
            a.name(i) as *mut c_void,
        )
    };
    let mut m = MapArgs {
        bases: &mut c.bases,
        begins: &c.begins,
        sizes: &c.sizes,
        types: &c.types,
        names: Some(&c.names),
        mappers: None,
    };
    op(&mut m)
}

fn null_msg(present: bool) {
    log::report(format_args!(
        "Call to getTargetPointer returned null pointer ({}).",
        if present {
            "'present' map type modifier"
        } else {
            "device failure or illegal mapping"
        }
    ));
}

/// LLVM's `targetDataBegin`. `ATTACH` entries are set aside in `attach`, with the new
/// allocations, for the caller to process once every entry is mapped.
pub(crate) fn data_begin(
    t: &mut Table,
    a: &mut MapArgs<'_>,
    from_mapper: bool,
    attach: &mut AttachInfo,
) -> Result<(), ()> {
    for i in 0..a.len() {
        let ty = a.types[i];
        if ty & (LITERAL | PRIVATE) != 0 {
            continue;
        }
        if a.mapper(i) != 0 {
            if with_mapper(a, i, &mut |m| data_begin(t, m, true, attach)).is_err() {
                log::report(format_args!(
                    "Call to targetDataBegin via targetDataMapper for custom mapper failed."
                ));
                return Err(());
            }
            continue;
        }
        if ty & ATTACH != 0 {
            attach.defer(a.bases[i] as usize, a.begins[i] as usize, a.sizes[i], ty);
            continue;
        }
        begin_item(t, a, i, from_mapper, attach)?;
    }
    Ok(())
}

/// One entry of `targetDataBegin`: the pointer of a `PTR_AND_OBJ` pair, then the data, the
/// device address `use_device_ptr/addr` returns, and the pointer attached to the data.
fn begin_item(
    t: &mut Table,
    a: &mut MapArgs<'_>,
    i: usize,
    from_mapper: bool,
    attach: &mut AttachInfo,
) -> Result<(), ()> {
    let ty = a.types[i];
    let begin = a.begins[i] as usize;
    let mut base = a.bases[i] as usize;
    let size = a.sizes[i];
    let mut padding = 0;
    if parent_index(ty).is_none() && a.types.get(i + 1).and_then(|&t| parent_index(t)) == Some(i) {
        let align = (base.wrapping_neg() & base).min(16);
        if align != 0 {
            padding = begin % align;
        }
    }
    let mut req = MapReq {
        begin,
        base,
        padding,
        size,
        name: a.name(i),
        to: ty & TO != 0,
        always: ty & ALWAYS != 0,
        implicit: ty & IMPLICIT != 0,
        update_ref: ty & MEMBER_OF == 0 && !(from_mapper && i == 0),
        close: ty & CLOSE != 0,
        present: ty & PRESENT != 0,
        hold: ty & OMPX_HOLD != 0,
    };
    let mut pointer = None;
    if ty & PTR_AND_OBJ != 0 {
        let p = map_pointer(t, &req, attach)?;
        pointer = Some((base, p));
        // SAFETY: a PTR_AND_OBJ base is the address of a host pointer.
        base = unsafe { *(base as *const usize) };
        req.base = base;
        req.update_ref = !from_mapper || i != 0;
    }
    let tpr = t.get_target_pointer(&req);
    if tpr.tgt == 0 && (size != 0 || req.present) {
        null_msg(req.present);
        return Err(());
    }
    if tpr.is_new && !tpr.host && tpr.tgt != 0 {
        attach.allocated(begin, size);
    }
    if ty & RETURN_PARAM != 0 {
        let delta = begin.wrapping_sub(base);
        let tgt = if tpr.tgt == 0 && abi().use_device_ptr_host_fallback {
            begin
        } else {
            tpr.tgt
        };
        a.bases[i] = tgt.wrapping_sub(delta) as *mut c_void;
    }
    if let Some((hst_ptr_addr, p)) = pointer.filter(|_| !tpr.host) {
        attach_pointee(t, hst_ptr_addr, p, base, begin, tpr.tgt);
    }
    // After the attachment, as in 19; nothing for struct members, implicit maps and
    // unified shared memory.
    let quiet = ty == 0 || ty & MEMBER_OF != 0 || req.implicit || tpr.host;
    if !tpr.present && !quiet && log::info_level() & info::EMPTY_MAPPING != 0 {
        log::info(
            t.dev,
            format_args!(
                "variable {} does not have a valid device counterpart",
                log::name_of(a.name(i))
            ),
        );
    }
    Ok(())
}

/// The pointer of a `PTR_AND_OBJ` pair (`req` is the pointee's request): mapped as an 8-byte
/// item at the pair's base.
fn map_pointer(t: &mut Table, req: &MapReq, attach: &mut AttachInfo) -> Result<Tpr, ()> {
    let p = t.get_target_pointer(&MapReq {
        begin: req.base,
        base: req.base,
        size: std::mem::size_of::<usize>() as i64,
        implicit: req.implicit,
        update_ref: req.update_ref,
        close: req.close,
        present: req.present,
        hold: req.hold,
        ..MapReq::default()
    });
    if p.tgt == 0 {
        null_msg(req.present);
        return Err(());
    }
    if p.is_new && !p.host {
        attach.allocated(req.base, std::mem::size_of::<usize>() as i64);
    }
    Ok(p)
}

/// Points the device copy of the pointer at `hst_ptr_addr` (mapped as `p`) at the device copy of
/// its pointee (`tgt` for the host range at `begin`, the pointer's value being `base`), and
/// records the shadow pointer. A zero-length pointee that is not mapped has no device address:
/// 19 attaches NULL (minus the offset), the device pointer does not keep its host value.
fn attach_pointee(
    t: &mut Table,
    hst_ptr_addr: usize,
    p: Tpr,
    base: usize,
    begin: usize,
    tgt: usize,
) {
    let expected = tgt.wrapping_sub(begin.wrapping_sub(base));
    let shadow = Shadow {
        hst_addr: hst_ptr_addr,
        hst_val: base,
        tgt_addr: p.tgt,
        tgt_val: expected,
    };
    let entry = p.key.and_then(|k| t.map.get_mut(&k));
    let name = entry.as_ref().map_or(0, |e| e.name);
    if entry.is_some_and(|e| e.add_shadow(shadow)) && !p.host {
        // p.tgt is the device copy of the 8-byte host pointer slot.
        copy(t.dev, true, p.tgt, (&raw const expected) as usize, 8, name);
    }
}

/// A construct's enter side: `targetDataBegin`, then the `ATTACH` entries it set aside
/// (LLVM 22's `processAttachEntries`).
fn enter(t: &mut Table, a: &mut MapArgs<'_>) -> Result<(), ()> {
    let mut attach = AttachInfo::default();
    data_begin(t, a, false, &mut attach)?;
    attach.process(t);
    Ok(())
}

/// LLVM's `targetDataEnd` with its post-processing (shadow pointers restored, entries whose
/// counts reached zero removed).
pub(crate) fn data_end(t: &mut Table, a: &mut MapArgs<'_>) -> Result<(), ()> {
    let mut post = Vec::new();
    let r = data_end_items(t, a, false, &mut post);
    // As 19 runs its post-processing when the operation synchronises: after every item,
    // those of mapper components first (they were queued first).
    finish_end(t, &post);
    r
}

/// What data end does after the transfers: (entry, item size, map type, host pointer).
type PostItem = (usize, i64, i64, bool);

fn data_end_items(
    t: &mut Table,
    a: &mut MapArgs<'_>,
    from_mapper: bool,
    queue: &mut Vec<PostItem>,
) -> Result<(), ()> {
    let n = a.len();
    let mut post: Vec<PostItem> = Vec::new();
    for i in (0..n).rev() {
        let ty = a.types[i];
        // ATTACH entries only act on the enter side.
        if ty & (LITERAL | PRIVATE | ATTACH) != 0 {
            continue;
        }
        if a.mapper(i) != 0 {
            if with_mapper(a, i, &mut |m| data_end_items(t, m, true, queue)).is_err() {
                log::report(format_args!(
                    "Call to targetDataEnd via targetDataMapper for custom mapper failed."
                ));
                return Err(());
            }
            continue;
        }
        let begin = a.begins[i] as usize;
        let size = a.sizes[i];
        let update_ref = (ty & MEMBER_OF == 0 || ty & PTR_AND_OBJ != 0) && !(from_mapper && i == 0);
        let present = ty & PRESENT != 0;
        let tpr = t.get_tgt_ptr_begin(
            begin,
            size,
            update_ref,
            ty & OMPX_HOLD != 0,
            ty & IMPLICIT == 0,
            ty & DELETE != 0,
        );
        if !tpr.present && !tpr.host && present {
            log::message(format_args!(
                "device mapping required by 'present' map type modifier does not exist for \
                 host address {} ({size} bytes)",
                P(begin)
            ));
            return Err(());
        }
        if !tpr.present {
            continue;
        }
        let Some(key) = tpr.key else { continue };
        if ty & FROM != 0 && (ty & ALWAYS != 0 || tpr.is_last) && !tpr.host && size != 0 {
            let name = t.map.get(&key).map_or(0, |e| e.name);
            copy(t.dev, false, begin, tpr.tgt, size, name);
        }
        post.push((key, size, ty, tpr.host));
    }
    queue.extend(post);
    Ok(())
}

fn finish_end(t: &mut Table, post: &[PostItem]) {
    for (j, &(key, size, ty, host)) in post.iter().enumerate() {
        // Members do not remove their parent struct's entry.
        let member = ty & MEMBER_OF != 0 && ty & PTR_AND_OBJ == 0;
        let del = !host && !member;
        let Some(e) = t.map.get(&key) else { continue };
        if ty & FROM != 0 {
            e.restore_shadows();
        }
        let last_user = !post.iter().skip(j + 1).any(|p| p.0 == key);
        if del && last_user && e.total() == 0 {
            t.remove(key, size);
        }
    }
}

/// LLVM's `targetDataUpdate`.
pub(crate) fn data_update(
    t: &mut Table,
    a: &mut MapArgs<'_>,
    _from_mapper: bool,
) -> Result<(), ()> {
    for i in 0..a.len() {
        let ty = a.types[i];
        if ty & (LITERAL | PRIVATE) != 0 {
            continue;
        }
        if a.mapper(i) != 0 {
            if with_mapper(a, i, &mut |m| data_update(t, m, true)).is_err() {
                log::report(format_args!(
                    "Call to targetDataUpdate via targetDataMapper for custom mapper failed."
                ));
                return Err(());
            }
            continue;
        }
        if ty & NON_CONTIG != 0 {
            let dims = usize::try_from(a.sizes[i]).unwrap_or(0);
            // SAFETY: for NON_CONTIG clang passes `sizes[i]` descriptors in `begins[i]`.
            let nc = unsafe { slice(a.begins[i] as *const NonContig, dims) };
            let Some(last) = nc.last() else { continue };
            let size = last.count.wrapping_mul(last.stride);
            let merged = (1..nc.len())
                .rev()
                .filter(|&d| nc[d].count.wrapping_mul(nc[d].stride) == nc[d - 1].stride)
                .count();
            non_contig(
                t,
                a.bases[i] as usize,
                nc,
                size as i64,
                ty,
                0,
                nc.len() - merged,
                0,
            )?;
        } else {
            contiguous(t, a.begins[i] as usize, a.sizes[i], ty)?;
        }
    }
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn non_contig(
    t: &mut Table,
    base: usize,
    nc: &[NonContig],
    size: i64,
    ty: i64,
    dim: usize,
    dims: usize,
    offset: u64,
) -> Result<(), ()> {
    if dim < dims {
        let d = nc[dim];
        for i in 0..d.count {
            let cur = d.offset.wrapping_add(i).wrapping_mul(d.stride);
            if dim != dims - 1 || i == 0 {
                non_contig(
                    t,
                    base,
                    nc,
                    size,
                    ty,
                    dim + 1,
                    dims,
                    offset.wrapping_add(cur),
                )?;
            }
        }
        Ok(())
    } else {
        contiguous(t, base.wrapping_add(offset as usize), size, ty)
    }
}

fn contiguous(t: &mut Table, begin: usize, size: i64, ty: i64) -> Result<(), ()> {
    let tpr = t.get_tgt_ptr_begin(begin, size, false, false, true, false);
    if !tpr.present {
        if ty & PRESENT != 0 {
            log::message(format_args!(
                "device mapping required by 'present' motion modifier does not exist for host \
                 address {} ({size} bytes)",
                P(begin)
            ));
            return Err(());
        }
        return Ok(());
    }
    if tpr.host {
        return Ok(());
    }
    let Some(key) = tpr.key else { return Ok(()) };
    let name = t.map.get(&key).map_or(0, |e| e.name);
    if ty & TO != 0 {
        copy(t.dev, true, tpr.tgt, begin, size, name);
        if let Some(e) = t.map.get(&key) {
            for sh in &e.shadows {
                copy(
                    t.dev,
                    true,
                    sh.tgt_addr,
                    (&raw const sh.tgt_val) as usize,
                    8,
                    0,
                );
            }
        }
    }
    if ty & FROM != 0 {
        copy(t.dev, false, begin, tpr.tgt, size, name);
        if let Some(e) = t.map.get(&key) {
            e.restore_shadows();
        }
    }
    Ok(())
}

/// Which construct a data entry point runs.
#[derive(Clone, Copy, Debug)]
pub(crate) enum DataOp {
    Begin,
    End,
    Update,
}

/// LLVM's `targetData`: policy and device, INFO lines, the operation, the outcome.
pub(crate) fn target_data(
    loc: *const Ident,
    dev: i64,
    op: DataOp,
    region: &str,
    a: &mut MapArgs<'_>,
) {
    let Some(d) = policy::check_device(dev, loc) else {
        return;
    };
    if log::info_level() & info::KERNEL_ARGS != 0 {
        // The one region name LLVM 22 spells differently.
        let region = if region == V19.begin_nowait_region {
            abi().begin_nowait_region
        } else {
            region
        };
        log::print_args(loc, d.id, region, a.sizes, a.types, a.names);
    }
    let region = ompt::region(
        match op {
            DataOp::Begin => TargetKind::EnterData,
            DataOp::End => TargetKind::ExitData,
            DataOp::Update => TargetKind::Update,
        },
        d.id,
    );
    let r = {
        let mut t = d.table();
        match op {
            DataOp::Begin => enter(&mut t, a),
            DataOp::End => data_end(&mut t, a),
            DataOp::Update => data_update(&mut t, a, false),
        }
    };
    policy::handle_outcome(r.is_ok(), loc);
    drop(region);
}
