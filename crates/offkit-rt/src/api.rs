//! The OpenMP device memory routines (`omp_target_*`, `omp_get_mapped_ptr`) as LLVM 19's
//! `OpenMP/API.cpp` implements them on the host plugin: device memory is `malloc`ed host
//! memory, so copies between any two devices are `memcpy`.
use std::ffi::c_void;

use crate::abi;
use crate::log;
use crate::mapping::{copy, INF};
use crate::ompt::DataOp;
use crate::plugin::{memory, AllocKind};
use crate::policy::device_or_fatal;
use crate::{devdata, registry};

/// `OFFLOAD_SUCCESS` / `OFFLOAD_FAIL`.
pub(crate) const OK: i32 = 0;
pub(crate) const FAIL: i32 = !0;

fn initial() -> i64 {
    registry::num_devices() as i64
}

/// `omp_target_alloc` and the `llvm_omp_target_alloc_*` routines (`targetAllocExplicit`):
/// `malloc` on the initial device, else the device's `allocData` of the kind (`None`: the
/// default kind of `omp_target_alloc`).
pub(crate) fn alloc(size: usize, dev: i32, kind: Option<AllocKind>) -> *mut c_void {
    if size == 0 {
        return std::ptr::null_mut();
    }
    let p = if i64::from(dev) == initial() {
        memory::host_alloc(size)
    } else {
        device_or_fatal(i64::from(dev));
        match kind {
            None => devdata::alloc(dev, size, 0),
            Some(k) => devdata::alloc_kind(dev, size, k),
        }
    };
    p.map_or(std::ptr::null_mut(), |p| p as *mut c_void)
}

/// `omp_target_free` and the `llvm_omp_target_free_*` routines (`targetFreeExplicit`).
pub(crate) fn free(p: *mut c_void, dev: i32, kind: Option<AllocKind>) {
    if p.is_null() {
        return;
    }
    if i64::from(dev) == initial() {
        // The user passes memory from omp_target_alloc on the initial device (malloc).
        memory::host_free(p as usize);
        return;
    }
    device_or_fatal(i64::from(dev));
    // The user passes memory from omp_target_alloc on this device.
    match kind {
        None => devdata::delete(dev, p as usize),
        Some(k) => devdata::delete_kind(dev, p as usize, k),
    }
}

pub(crate) fn is_present(p: *const c_void, dev: i32) -> i32 {
    if p.is_null() {
        return 0;
    }
    if i64::from(dev) == initial() {
        return 1;
    }
    let d = device_or_fatal(i64::from(dev));
    let tpr = d
        .table()
        .get_tgt_ptr_begin(p as usize, 1, false, false, false, false);
    i32::from(tpr.present)
}

pub(crate) fn mapped_ptr(p: *const c_void, dev: i32) -> *mut c_void {
    if p.is_null() {
        log::report(format_args!("Call to omp_get_mapped_ptr with nullptr."));
        return std::ptr::null_mut();
    }
    let n = initial();
    if i64::from(dev) == n {
        return p.cast_mut();
    }
    if n <= i64::from(dev) {
        return std::ptr::null_mut();
    }
    let d = device_or_fatal(i64::from(dev));
    let tpr = d
        .table()
        .get_tgt_ptr_begin(p as usize, 1, false, false, false, false);
    if tpr.present {
        tpr.tgt as *mut c_void
    } else {
        std::ptr::null_mut()
    }
}

#[allow(clippy::too_many_arguments)]
pub(crate) fn memcpy(
    dst: *mut c_void,
    src: *const c_void,
    len: usize,
    dst_off: usize,
    src_off: usize,
    dst_dev: i32,
    src_dev: i32,
) -> i32 {
    if dst.is_null() || src.is_null() || len == 0 {
        if len == 0 {
            return OK;
        }
        log::report(format_args!(
            "Call to omp_target_memcpy with invalid arguments"
        ));
        return FAIL;
    }
    for dev in [dst_dev, src_dev] {
        if i64::from(dev) != initial() {
            device_or_fatal(i64::from(dev));
        }
    }
    let d = (dst as usize).wrapping_add(dst_off);
    let s = (src as usize).wrapping_add(src_off);
    let host = initial();
    let (to_device, dev, hst) = match (i64::from(dst_dev) == host, i64::from(src_dev) == host) {
        (false, true) => (true, dst_dev, s),
        (true, false) => (false, src_dev, d),
        (true, true) => {
            // SAFETY: the user's ranges of host memory.
            unsafe { libc::memmove(d as *mut c_void, s as *const c_void, len) };
            return OK;
        }
        (false, false) => return device_to_device(d, s, len, dst_dev, src_dev),
    };
    // As 19's submitData/retrieveData: the INFO line names the host data if it is mapped.
    let name = device_or_fatal(i64::from(dev))
        .table()
        .name_at(hst, len as i64);
    copy(dev, to_device, d, s, len as i64, name);
    OK
}

/// Between two devices: the host plugin cannot exchange data between its devices, so 19
/// retrieves into a `malloc`ed buffer and submits from it.
fn device_to_device(d: usize, s: usize, len: usize, dst_dev: i32, src_dev: i32) -> i32 {
    let Some(buf) = memory::host_alloc(len) else {
        return FAIL;
    };
    for (dev, to_device, dst, src, hst) in
        [(src_dev, false, buf, s, buf), (dst_dev, true, d, buf, buf)]
    {
        let name = device_or_fatal(i64::from(dev))
            .table()
            .name_at(hst, len as i64);
        copy(dev, to_device, dst, src, len as i64, name);
    }
    memory::host_free(buf);
    OK
}

#[allow(clippy::too_many_arguments)]
pub(crate) fn memcpy_rect(
    dst: *mut c_void,
    src: *const c_void,
    elem: usize,
    dims: i32,
    volume: *const usize,
    dst_offsets: *const usize,
    src_offsets: *const usize,
    dst_dims: *const usize,
    src_dims: *const usize,
    dst_dev: i32,
    src_dev: i32,
) -> i32 {
    if dst.is_null() && src.is_null() {
        return i32::MAX;
    }
    if dst.is_null()
        || src.is_null()
        || elem < 1
        || dims < 1
        || volume.is_null()
        || dst_offsets.is_null()
        || src_offsets.is_null()
        || dst_dims.is_null()
        || src_dims.is_null()
    {
        log::report(format_args!(
            "Call to omp_target_memcpy_rect with invalid arguments"
        ));
        return FAIL;
    }
    let n = dims as usize;
    // SAFETY: the user passes arrays of `num_dims` elements.
    let (vol, doff, soff, ddim, sdim) = unsafe {
        (
            std::slice::from_raw_parts(volume, n),
            std::slice::from_raw_parts(dst_offsets, n),
            std::slice::from_raw_parts(src_offsets, n),
            std::slice::from_raw_parts(dst_dims, n),
            std::slice::from_raw_parts(src_dims, n),
        )
    };
    rect(
        dst as usize,
        src as usize,
        elem,
        vol,
        doff,
        soff,
        ddim,
        sdim,
        dst_dev,
        src_dev,
    )
}

#[allow(clippy::too_many_arguments)]
fn rect(
    dst: usize,
    src: usize,
    elem: usize,
    vol: &[usize],
    doff: &[usize],
    soff: &[usize],
    ddim: &[usize],
    sdim: &[usize],
    dst_dev: i32,
    src_dev: i32,
) -> i32 {
    let (Some(&v0), Some(&d0), Some(&s0)) = (vol.first(), doff.first(), soff.first()) else {
        return OK;
    };
    if vol.len() == 1 {
        return memcpy(
            dst as *mut c_void,
            src as *const c_void,
            elem.wrapping_mul(v0),
            elem.wrapping_mul(d0),
            elem.wrapping_mul(s0),
            dst_dev,
            src_dev,
        );
    }
    let dslice = ddim.iter().skip(1).fold(elem, |a, &d| a.wrapping_mul(d));
    let sslice = sdim.iter().skip(1).fold(elem, |a, &d| a.wrapping_mul(d));
    let dbase = dst.wrapping_add(d0.wrapping_mul(dslice));
    let sbase = src.wrapping_add(s0.wrapping_mul(sslice));
    let mut rc = OK;
    for i in 0..v0 {
        rc = rect(
            dbase.wrapping_add(dslice.wrapping_mul(i)),
            sbase.wrapping_add(sslice.wrapping_mul(i)),
            elem,
            &vol[1..],
            &doff[1..],
            &soff[1..],
            &ddim[1..],
            &sdim[1..],
            dst_dev,
            src_dev,
        );
        if rc != OK {
            return rc;
        }
    }
    rc
}

pub(crate) fn memset(p: *mut c_void, byte: i32, len: usize, dev: i32) -> *mut c_void {
    if p.is_null() || len == 0 {
        return p;
    }
    if i64::from(dev) == initial() {
        // SAFETY: the user's host memory.
        return unsafe { libc::memset(p, byte, len) };
    }
    // 19 fills a host buffer and copies it to the device.
    let filled = vec![byte as u8; len];
    memcpy(p, filled.as_ptr().cast(), len, 0, 0, dev, initial() as i32);
    p
}

pub(crate) fn associate(
    host: *const c_void,
    tgt: *const c_void,
    size: usize,
    off: usize,
    dev: i32,
) -> i32 {
    if host.is_null() || tgt.is_null() || size == 0 {
        log::report(format_args!(
            "Call to omp_target_associate_ptr with invalid arguments"
        ));
        return FAIL;
    }
    if i64::from(dev) == initial() {
        log::report(format_args!(
            "omp_target_associate_ptr: no association possible on the host"
        ));
        return FAIL;
    }
    let d = device_or_fatal(i64::from(dev));
    devdata::associate_event(DataOp::Associate, dev, host as usize, tgt as usize, size);
    let mut t = d.table();
    let h = host as usize;
    let tp = (tgt as usize).wrapping_add(off);
    if let Some(e) = t.map.get(&h) {
        if e.end == h.wrapping_add(size) && e.tgt_begin == tp {
            return OK;
        }
        log::report(format_args!(
            "Not allowed to re-associate a different device ptr+offset with the same host ptr"
        ));
        return FAIL;
    }
    t.insert_inf(h, size, tp, 0);
    OK
}

pub(crate) fn disassociate(host: *const c_void, dev: i32) -> i32 {
    if host.is_null() {
        log::report(format_args!(
            "Call to {} with invalid host_ptr",
            abi::abi().disassociate_name
        ));
        return FAIL;
    }
    if i64::from(dev) == initial() {
        log::report(format_args!(
            "omp_target_disassociate_ptr: no association possible on the host"
        ));
        return FAIL;
    }
    let d = device_or_fatal(i64::from(dev));
    devdata::associate_event(DataOp::Disassociate, dev, host as usize, 0, 0);
    let mut t = d.table();
    let h = host as usize;
    let Some(e) = t.map.get(&h) else {
        log::report(format_args!("Association not found"));
        return FAIL;
    };
    if e.hold_ref != 0 {
        log::report(format_args!(
            "Trying to disassociate a pointer with a non-zero hold reference count"
        ));
        return FAIL;
    }
    if e.dyn_ref == INF {
        t.map.remove(&h);
        return OK;
    }
    log::report(format_args!(
        "Trying to disassociate a pointer which was not mapped via omp_target_associate_ptr"
    ));
    FAIL
}
