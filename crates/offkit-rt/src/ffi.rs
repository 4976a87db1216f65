//! The entry points of the C ABI: every function LLVM's `libomptarget.so.19.1` and
//! `libomptarget.so.22.1` export (`VERS1.0`; `exports.map`, `exports22.map`), each translating
//! between C and the runtime's modules. The structures they take are `abi`'s.
//!
//! | file | entry points |
//! | --- | --- |
//! | `ffi.rs` | registration, `LIBOMPTARGET_INFO`, trip counts, the OMPT plugin connection, table dumps |
//! | `ffi/kernel.rs` | `__tgt_target_kernel` and the legacy `__tgt_target*` forms, record-and-replay |
//! | `ffi/data.rs` | `__tgt_target_data_*`, the mapper components |
//! | `ffi/api.rs` | the `omp_*` device routines and `llvm_omp_target_*` allocators |
//! | `ffi/interop.rs` | the interop objects (none on the host plugin) |
//! | `ffi/v22.rs` | what only LLVM 22 exports |
//!
//! All functions are `unsafe extern "C"`: their pointer arguments must be what clang's code
//! passes (arrays of the stated length, live descriptors, NUL-terminated strings).
#![allow(clippy::missing_safety_doc, clippy::too_many_arguments)]

use std::ffi::{c_int, c_void};

use crate::abi::{BinDesc, Ident, ImageInfo};
use crate::log;
use crate::{ompt, registry};

mod api;
mod data;
mod interop;
mod kernel;
mod v22;

// ---- registration -------------------------------------------------------------------------

/// Registers a descriptor (from the linker wrapper's constructor).
#[no_mangle]
pub unsafe extern "C" fn __tgt_register_lib(desc: *mut BinDesc) {
    // SAFETY: the wrapper passes its live descriptor.
    unsafe { registry::register(desc) }
}

/// Unregisters a descriptor (from the wrapper's atexit handler).
#[no_mangle]
pub unsafe extern "C" fn __tgt_unregister_lib(desc: *mut BinDesc) {
    // SAFETY: the wrapper passes the descriptor it registered.
    unsafe { registry::unregister(desc) }
}

/// Removed in LLVM 19: prints that requirements are no longer handled this way.
#[no_mangle]
pub extern "C" fn __tgt_register_requires(_flags: i64) {
    log::message(format_args!(
        "The void __tgt_register_requires(int64_t) function has been removed. Old OpenMP \
         requirements will not be handled"
    ));
}

/// Records a `__tgt_image_info` (AMD's image-info registration): the target ID of an image of the descriptor
/// registered next, used to choose among several images.
#[no_mangle]
pub unsafe extern "C" fn __tgt_register_image_info(info: *mut ImageInfo) {
    if info.is_null() {
        return;
    }
    // SAFETY: the wrapper passes its live image info; offload_arch is a C string or NULL.
    let (number, arch) = unsafe { ((*info).image_number, (*info).offload_arch) };
    registry::register_image_info(number, log::c_str(arch).into_owned());
}

/// Initialises the plugins (nothing to do: devices appear with their first image).
#[no_mangle]
pub extern "C" fn __tgt_init_all_rtls() {}

/// Runtime initialisation for static builds (nothing to do).
#[no_mangle]
pub extern "C" fn __tgt_rtl_init() {}

/// Runtime deinitialisation for static builds (nothing to do).
#[no_mangle]
pub extern "C" fn __tgt_rtl_deinit() {}

// ---- miscellaneous -------------------------------------------------------------------------

/// Trip counts only matter to GPU plugins.
#[no_mangle]
pub extern "C" fn __kmpc_push_target_tripcount(_device_id: i64, _count: u64) {}

/// Trip counts only matter to GPU plugins.
#[no_mangle]
pub extern "C" fn __kmpc_push_target_tripcount_mapper(
    _loc: *mut Ident,
    _device_id: i64,
    _count: u64,
) {
}

/// Sets the `LIBOMPTARGET_INFO` level.
#[no_mangle]
pub extern "C" fn __tgt_set_info_flag(flags: u32) {
    log::set_info_level(flags);
}

/// Device information (the host plugin has none to print).
#[no_mangle]
pub extern "C" fn __tgt_print_device_info(device_id: i64) -> c_int {
    c_int::from(usize::try_from(device_id).is_ok_and(|d| d < registry::num_devices()))
}

/// Polls an asynchronous target task; the host plugin never leaves one pending.
#[no_mangle]
pub unsafe extern "C" fn __tgt_target_nowait_query(async_handle: *mut *mut c_void) {
    if !async_handle.is_null() {
        // SAFETY: libomp passes the task's handle slot.
        unsafe { *async_handle = std::ptr::null_mut() };
    }
}

/// Connects a plugin library to the tool this runtime got from libomp (ompt.rs).
#[no_mangle]
pub unsafe extern "C" fn ompt_libomptarget_connect(result: *mut c_void) {
    // SAFETY: a plugin passes its ompt_start_tool_result_t or NULL.
    unsafe { ompt::connect_plugin(result) }
}

/// Dumps every device's mapping table to stdout.
#[no_mangle]
pub extern "C" fn ompx_dump_mapping_tables() {
    let loc = Ident::libomptarget();
    for d in registry::devices() {
        d.dump_table(&loc, true);
    }
}
