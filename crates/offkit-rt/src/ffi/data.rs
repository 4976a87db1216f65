//! The data entry points (`target data`, `enter data`, `exit data`, `update`, each with the
//! legacy forms without names and mappers and the `nowait` ones) and the mapper components
//! clang's `declare mapper` functions push.
use std::ffi::c_void;

use crate::abi::Ident;
use crate::mapper;
use crate::ops::{self, DataOp, MapArgs};

unsafe fn data(
    loc: *mut Ident,
    device_id: i64,
    n: i32,
    bases: *mut *mut c_void,
    begins: *mut *mut c_void,
    sizes: *mut i64,
    types: *mut i64,
    names: *mut *mut c_void,
    mappers: *mut *mut c_void,
    op: DataOp,
    region: &str,
) {
    // SAFETY: the arrays have `n` entries (clang's offload arrays).
    let mut a = unsafe { MapArgs::from_raw(n, bases, begins, sizes, types, names, mappers) };
    ops::target_data(loc, device_id, op, region, &mut a);
}

macro_rules! data_entry_points {
    ($op:ident, $plain:ident, $nowait:ident, $mapper:ident, $nowait_mapper:ident,
     $region:literal, $region_nowait:literal) => {
        /// The data construct with names and mappers (what clang-19 emits).
        #[no_mangle]
        pub unsafe extern "C" fn $mapper(
            loc: *mut Ident,
            device_id: i64,
            n: i32,
            bases: *mut *mut c_void,
            begins: *mut *mut c_void,
            sizes: *mut i64,
            types: *mut i64,
            names: *mut *mut c_void,
            mappers: *mut *mut c_void,
        ) {
            // SAFETY: forwarded.
            unsafe {
                data(
                    loc,
                    device_id,
                    n,
                    bases,
                    begins,
                    sizes,
                    types,
                    names,
                    mappers,
                    DataOp::$op,
                    $region,
                )
            }
        }

        /// The `nowait` form (run synchronously inside the target task).
        #[no_mangle]
        pub unsafe extern "C" fn $nowait_mapper(
            loc: *mut Ident,
            device_id: i64,
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
        ) {
            // SAFETY: forwarded.
            unsafe {
                data(
                    loc,
                    device_id,
                    n,
                    bases,
                    begins,
                    sizes,
                    types,
                    names,
                    mappers,
                    DataOp::$op,
                    $region_nowait,
                )
            }
        }

        /// The legacy form without location, names and mappers.
        #[no_mangle]
        pub unsafe extern "C" fn $plain(
            device_id: i64,
            n: i32,
            bases: *mut *mut c_void,
            begins: *mut *mut c_void,
            sizes: *mut i64,
            types: *mut i64,
        ) {
            // SAFETY: forwarded.
            unsafe {
                $mapper(
                    std::ptr::null_mut(),
                    device_id,
                    n,
                    bases,
                    begins,
                    sizes,
                    types,
                    std::ptr::null_mut(),
                    std::ptr::null_mut(),
                )
            }
        }

        /// The legacy `nowait` form.
        #[no_mangle]
        pub unsafe extern "C" fn $nowait(
            device_id: i64,
            n: i32,
            bases: *mut *mut c_void,
            begins: *mut *mut c_void,
            sizes: *mut i64,
            types: *mut i64,
            _dep_num: i32,
            _dep_list: *mut c_void,
            _noalias_dep_num: i32,
            _noalias_dep_list: *mut c_void,
        ) {
            // SAFETY: forwarded.
            unsafe { $plain(device_id, n, bases, begins, sizes, types) }
        }
    };
}

data_entry_points!(
    Begin,
    __tgt_target_data_begin,
    __tgt_target_data_begin_nowait,
    __tgt_target_data_begin_mapper,
    __tgt_target_data_begin_nowait_mapper,
    "Entering OpenMP data region with being_mapper",
    "Entering OpenMP data region with begin_nowait_mapper"
);
data_entry_points!(
    End,
    __tgt_target_data_end,
    __tgt_target_data_end_nowait,
    __tgt_target_data_end_mapper,
    __tgt_target_data_end_nowait_mapper,
    "Exiting OpenMP data region with end_mapper",
    "Exiting OpenMP data region with end_nowait_mapper"
);
data_entry_points!(
    Update,
    __tgt_target_data_update,
    __tgt_target_data_update_nowait,
    __tgt_target_data_update_mapper,
    __tgt_target_data_update_nowait_mapper,
    "Updating data within the OpenMP data region with update_mapper",
    "Updating data within the OpenMP data region with update_nowait_mapper"
);

/// The number of components a mapper pushed so far.
#[no_mangle]
pub unsafe extern "C" fn __tgt_mapper_num_components(handle: *mut c_void) -> i64 {
    if handle.is_null() {
        return 0;
    }
    // SAFETY: the handle is in LLVM's layout (the runtime's, or the caller's own).
    unsafe { mapper::len(handle.cast()) }
}

/// Adds a component (called by clang's mapper functions).
#[no_mangle]
pub unsafe extern "C" fn __tgt_push_mapper_component(
    handle: *mut c_void,
    base: *mut c_void,
    begin: *mut c_void,
    size: i64,
    ty: i64,
    name: *mut c_void,
) {
    if handle.is_null() {
        return;
    }
    let c = mapper::Component {
        base,
        begin,
        size,
        ty,
        name,
    };
    // SAFETY: the handle is in LLVM's layout (the runtime's, or the caller's own).
    unsafe { mapper::push(handle.cast(), c) }
}
