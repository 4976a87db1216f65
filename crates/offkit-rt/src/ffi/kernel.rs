//! The kernel entry points: `__tgt_target_kernel` (every `target` construct of clang-19 and
//! clang-22) with its `nowait` form, the legacy `__tgt_target*` entry points of older compilers
//! (they build version-1 kernel arguments), and record-and-replay (not supported).
use std::ffi::{c_int, c_void};

use crate::abi::{Ident, KernelArgs};
use crate::log::{self, info};
use crate::ops::{self, MapArgs};
use crate::{ompt, policy};

/// `OMP_TGT_SUCCESS` / `OMP_TGT_FAIL` of the kernel entry points (non-zero: run the host
/// fallback).
const TGT_SUCCESS: c_int = 0;
const TGT_FAIL: c_int = !0;

/// Launches a target region (every `target` construct of clang-19).
#[no_mangle]
pub unsafe extern "C" fn __tgt_target_kernel(
    loc: *mut Ident,
    device_id: i64,
    num_teams: i32,
    thread_limit: i32,
    host_ptr: *mut c_void,
    args: *mut KernelArgs,
) -> c_int {
    let Some(d) = policy::check_device(device_id, loc) else {
        return TGT_FAIL;
    };
    if args.is_null() {
        return TGT_FAIL;
    }
    // SAFETY: clang passes a KernelArgsTy of its version; the fields read below exist in every
    // version (the first 64 bytes).
    let (version, n, bases, begins, sizes, types, names, mappers) = unsafe {
        let k = &*args;
        (
            k.version,
            k.num_args,
            k.arg_base_ptrs,
            k.arg_ptrs,
            k.arg_sizes,
            k.arg_types,
            k.arg_names,
            k.arg_mappers,
        )
    };
    let grid = if version >= 2 {
        if num_teams == -1 {
            // SAFETY: version 2 and later have NumTeams; 19 records the one team it runs.
            unsafe { (*args).num_teams[0] = 1 };
        }
        // SAFETY: version 2 and later have NumTeams and ThreadLimit.
        unsafe { ((*args).num_teams[0], (*args).thread_limit[0]) }
    } else {
        (num_teams.max(0) as u32, thread_limit.max(0) as u32)
    };
    // SAFETY: the arrays have NumArgs entries.
    let mut a = unsafe { MapArgs::from_raw(n as i32, bases, begins, sizes, types, names, mappers) };
    if log::info_level() & info::KERNEL_ARGS != 0 {
        log::print_args(
            loc,
            d.id,
            "Entering OpenMP kernel",
            a.sizes,
            a.types,
            a.names,
        );
    }
    let region = ompt::region(ompt::TargetKind::Target, d.id);
    let r = ops::target(d, host_ptr as usize, version, grid, &mut a);
    policy::handle_outcome(r.is_ok(), loc);
    drop(region);
    TGT_SUCCESS
}

/// The nowait form of [`__tgt_target_kernel`]: host-plugin work completes at once, so it runs
/// synchronously on the calling (target task's) thread.
#[no_mangle]
pub unsafe extern "C" fn __tgt_target_kernel_nowait(
    loc: *mut Ident,
    device_id: i64,
    num_teams: i32,
    thread_limit: i32,
    host_ptr: *mut c_void,
    args: *mut KernelArgs,
    _dep_num: i32,
    _dep_list: *mut c_void,
    _noalias_dep_num: i32,
    _noalias_dep_list: *mut c_void,
) -> c_int {
    // SAFETY: same contract.
    unsafe { __tgt_target_kernel(loc, device_id, num_teams, thread_limit, host_ptr, args) }
}

/// Record-and-replay is not supported: the region runs on the host.
#[no_mangle]
pub extern "C" fn __tgt_target_kernel_replay(
    _loc: *mut Ident,
    _device_id: i64,
    _host_ptr: *mut c_void,
    _device_memory: *mut c_void,
    _device_memory_size: i64,
    _tgt_args: *mut *mut c_void,
    _tgt_offsets: *mut isize,
    _num_args: i32,
    _num_teams: i32,
    _thread_limit: i32,
    _loop_tripcount: u64,
) -> c_int {
    TGT_FAIL
}

/// Record-and-replay is not supported.
#[no_mangle]
pub extern "C" fn __tgt_activate_record_replay(
    _device_id: i64,
    _memory_size: u64,
    _vaddr: *mut c_void,
    _is_record: bool,
    _save_output: bool,
    _req_ptr_arg_offset: *mut u64,
) -> c_int {
    TGT_FAIL
}

unsafe fn legacy_target(
    loc: *mut Ident,
    device_id: i64,
    host_ptr: *mut c_void,
    n: i32,
    bases: *mut *mut c_void,
    begins: *mut *mut c_void,
    sizes: *mut i64,
    types: *mut i64,
    names: *mut *mut c_void,
    mappers: *mut *mut c_void,
    num_teams: i32,
    thread_limit: i32,
) -> c_int {
    let mut k = KernelArgs {
        version: 1,
        num_args: n.max(0) as u32,
        arg_base_ptrs: bases,
        arg_ptrs: begins,
        arg_sizes: sizes,
        arg_types: types,
        arg_names: names,
        arg_mappers: mappers,
        tripcount: 0,
        flags: 0,
        num_teams: [0; 3],
        thread_limit: [0; 3],
        dyn_cgroup_mem: 0,
    };
    // SAFETY: the caller's arrays, as for __tgt_target_kernel.
    unsafe { __tgt_target_kernel(loc, device_id, num_teams, thread_limit, host_ptr, &mut k) }
}

/// Legacy `target` entry point (pre-mapper compilers).
#[no_mangle]
pub unsafe extern "C" fn __tgt_target(
    device_id: i64,
    host_ptr: *mut c_void,
    n: i32,
    bases: *mut *mut c_void,
    begins: *mut *mut c_void,
    sizes: *mut i64,
    types: *mut i64,
) -> c_int {
    // SAFETY: forwarded.
    unsafe {
        legacy_target(
            std::ptr::null_mut(),
            device_id,
            host_ptr,
            n,
            bases,
            begins,
            sizes,
            types,
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            -1,
            0,
        )
    }
}

/// Legacy `target nowait`.
#[no_mangle]
pub unsafe extern "C" fn __tgt_target_nowait(
    device_id: i64,
    host_ptr: *mut c_void,
    n: i32,
    bases: *mut *mut c_void,
    begins: *mut *mut c_void,
    sizes: *mut i64,
    types: *mut i64,
    _dep_num: i32,
    _dep_list: *mut c_void,
    _noalias_dep_num: i32,
    _noalias_dep_list: *mut c_void,
) -> c_int {
    // SAFETY: forwarded.
    unsafe { __tgt_target(device_id, host_ptr, n, bases, begins, sizes, types) }
}

/// Legacy `target` with names and mappers.
#[no_mangle]
pub unsafe extern "C" fn __tgt_target_mapper(
    loc: *mut Ident,
    device_id: i64,
    host_ptr: *mut c_void,
    n: i32,
    bases: *mut *mut c_void,
    begins: *mut *mut c_void,
    sizes: *mut i64,
    types: *mut i64,
    names: *mut *mut c_void,
    mappers: *mut *mut c_void,
) -> c_int {
    // SAFETY: forwarded.
    unsafe {
        legacy_target(
            loc, device_id, host_ptr, n, bases, begins, sizes, types, names, mappers, -1, 0,
        )
    }
}

/// Legacy `target nowait` with names and mappers.
#[no_mangle]
pub unsafe extern "C" fn __tgt_target_nowait_mapper(
    loc: *mut Ident,
    device_id: i64,
    host_ptr: *mut c_void,
    n: i32,
    bases: *mut *mut c_void,
    begins: *mut *mut c_void,
    sizes: *mut i64,
    types: *mut i64,
    names: *mut *mut c_void,
    mappers: *mut *mut c_void,
    _dep_num: i32,
    _dep_list: *mut c_void,
    _noalias_dep_num: i32,
    _noalias_dep_list: *mut c_void,
) -> c_int {
    // SAFETY: forwarded.
    unsafe {
        __tgt_target_mapper(
            loc, device_id, host_ptr, n, bases, begins, sizes, types, names, mappers,
        )
    }
}

/// Legacy `target teams`.
#[no_mangle]
pub unsafe extern "C" fn __tgt_target_teams(
    device_id: i64,
    host_ptr: *mut c_void,
    n: i32,
    bases: *mut *mut c_void,
    begins: *mut *mut c_void,
    sizes: *mut i64,
    types: *mut i64,
    num_teams: i32,
    thread_limit: i32,
) -> c_int {
    // SAFETY: forwarded.
    unsafe {
        legacy_target(
            std::ptr::null_mut(),
            device_id,
            host_ptr,
            n,
            bases,
            begins,
            sizes,
            types,
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            num_teams,
            thread_limit,
        )
    }
}

/// Legacy `target teams nowait`.
#[no_mangle]
pub unsafe extern "C" fn __tgt_target_teams_nowait(
    device_id: i64,
    host_ptr: *mut c_void,
    n: i32,
    bases: *mut *mut c_void,
    begins: *mut *mut c_void,
    sizes: *mut i64,
    types: *mut i64,
    num_teams: i32,
    thread_limit: i32,
    _dep_num: i32,
    _dep_list: *mut c_void,
    _noalias_dep_num: i32,
    _noalias_dep_list: *mut c_void,
) -> c_int {
    // SAFETY: forwarded.
    unsafe {
        __tgt_target_teams(
            device_id,
            host_ptr,
            n,
            bases,
            begins,
            sizes,
            types,
            num_teams,
            thread_limit,
        )
    }
}

/// Legacy `target teams` with names and mappers.
#[no_mangle]
pub unsafe extern "C" fn __tgt_target_teams_mapper(
    loc: *mut Ident,
    device_id: i64,
    host_ptr: *mut c_void,
    n: i32,
    bases: *mut *mut c_void,
    begins: *mut *mut c_void,
    sizes: *mut i64,
    types: *mut i64,
    names: *mut *mut c_void,
    mappers: *mut *mut c_void,
    num_teams: i32,
    thread_limit: i32,
) -> c_int {
    // SAFETY: forwarded.
    unsafe {
        legacy_target(
            loc,
            device_id,
            host_ptr,
            n,
            bases,
            begins,
            sizes,
            types,
            names,
            mappers,
            num_teams,
            thread_limit,
        )
    }
}

/// Legacy `target teams nowait` with names and mappers.
#[no_mangle]
pub unsafe extern "C" fn __tgt_target_teams_nowait_mapper(
    loc: *mut Ident,
    device_id: i64,
    host_ptr: *mut c_void,
    n: i32,
    bases: *mut *mut c_void,
    begins: *mut *mut c_void,
    sizes: *mut i64,
    types: *mut i64,
    names: *mut *mut c_void,
    mappers: *mut *mut c_void,
    num_teams: i32,
    thread_limit: i32,
    _dep_num: i32,
    _dep_list: *mut c_void,
    _noalias_dep_num: i32,
    _noalias_dep_list: *mut c_void,
) -> c_int {
    // SAFETY: forwarded.
    unsafe {
        __tgt_target_teams_mapper(
            loc,
            device_id,
            host_ptr,
            n,
            bases,
            begins,
            sizes,
            types,
            names,
            mappers,
            num_teams,
            thread_limit,
        )
    }
}
