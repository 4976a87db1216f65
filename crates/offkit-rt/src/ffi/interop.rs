//! The interop entry points of OpenMP 5.1: the host plugin selects no foreign runtime, so every
//! interop object is `omp_interop_none` and has no properties.
use std::ffi::{c_char, c_int, c_void};

use crate::abi::Ident;

/// Interop objects are not supported by the host plugin: the result is `omp_interop_none`.
#[no_mangle]
pub unsafe extern "C" fn __tgt_interop_init(
    _loc: *mut Ident,
    _gtid: i32,
    interop: *mut *mut c_void,
    _interop_type: i32,
    _device_id: i32,
    _ndeps: i32,
    _dep_list: *mut c_void,
    _have_nowait: i32,
) {
    if !interop.is_null() {
        // SAFETY: the caller's interop variable.
        unsafe { *interop = std::ptr::null_mut() };
    }
}

/// Interop objects are not supported by the host plugin.
#[no_mangle]
pub extern "C" fn __tgt_interop_use(
    _loc: *mut Ident,
    _gtid: i32,
    _interop: *mut *mut c_void,
    _device_id: i32,
    _ndeps: i32,
    _dep_list: *mut c_void,
    _have_nowait: i32,
) {
}

/// Interop objects are not supported by the host plugin: the variable becomes
/// `omp_interop_none`.
#[no_mangle]
pub unsafe extern "C" fn __tgt_interop_destroy(
    loc: *mut Ident,
    gtid: i32,
    interop: *mut *mut c_void,
    device_id: i32,
    ndeps: i32,
    dep_list: *mut c_void,
    have_nowait: i32,
) {
    // SAFETY: forwarded.
    unsafe {
        __tgt_interop_init(
            loc,
            gtid,
            interop,
            0,
            device_id,
            ndeps,
            dep_list,
            have_nowait,
        )
    }
}

const OMP_IRC_EMPTY: c_int = -1;

fn interop_rc(rc: *mut c_int) {
    if !rc.is_null() {
        // SAFETY: the caller's return-code variable.
        unsafe { *rc = OMP_IRC_EMPTY };
    }
}

/// No interop properties (`omp_irc_empty`).
#[no_mangle]
pub extern "C" fn omp_get_interop_int(
    _interop: *const c_void,
    _prop: c_int,
    rc: *mut c_int,
) -> isize {
    interop_rc(rc);
    0
}

/// No interop properties (`omp_irc_empty`).
#[no_mangle]
pub extern "C" fn omp_get_interop_ptr(
    _interop: *const c_void,
    _prop: c_int,
    rc: *mut c_int,
) -> *mut c_void {
    interop_rc(rc);
    std::ptr::null_mut()
}

/// No interop properties (`omp_irc_empty`).
#[no_mangle]
pub extern "C" fn omp_get_interop_str(
    _interop: *const c_void,
    _prop: c_int,
    rc: *mut c_int,
) -> *const c_char {
    interop_rc(rc);
    std::ptr::null()
}

/// No interop properties.
#[no_mangle]
pub extern "C" fn omp_get_interop_name(_interop: *const c_void, _prop: c_int) -> *const c_char {
    std::ptr::null()
}

/// No interop properties.
#[no_mangle]
pub extern "C" fn omp_get_interop_type_desc(
    _interop: *const c_void,
    _prop: c_int,
) -> *const c_char {
    std::ptr::null()
}
