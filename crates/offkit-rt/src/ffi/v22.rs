//! The entry points LLVM 22's runtime exports and LLVM 19's does not (LLVM 22.1.8's
//! `offload/libomptarget/exports`), as its host plugin answers them. `exports.map` keeps them out
//! of `libomptarget.so.19.1`; `exports22.map` exports them from `libomptarget.so.22.1`.
//!
//! - device UIDs (`omp_get_device_from_uid`, `omp_get_uid_from_device`): the initial device is
//!   `HOST`, host-plugin device N is `x86_64-N` (the plugin's name, `-`, its number);
//! - `omp_target_is_accessible`: true for the initial device; the host plugin does not say that
//!   host memory is accessible, so false for its devices (after checking the number);
//! - `__tgt_target_sync`: libomp 22 calls it at every barrier, taskwait and implicit-task end
//!   when the runtime exports it; without interop objects there is nothing to synchronise;
//! - the OpenMP 6.0 interop entry points: the host plugin selects no foreign runtime, so no
//!   interop object is made (`omp_interop_none`) and using or releasing one fails;
//! - the CUDA-style kernel launch API (`__llvmPushCallConfiguration`,
//!   `__llvmPopCallConfiguration`, `llvmLaunchKernel`) that LLVM 22's "kernel language" support
//!   uses: the call configuration is kept per thread as LLVM keeps it; launching a kernel that
//!   way is not supported by offkit (an error code).
#![allow(clippy::missing_safety_doc)]

use std::cell::Cell;
use std::ffi::{c_char, c_int, c_uint, c_void, CStr};

use crate::abi::{Dim3, Ident};
use crate::plugin::HOST_DEVICES;
use crate::{api, policy, registry};

/// `omp_invalid_device`.
const OMP_INVALID_DEVICE: c_int = -2;

/// The UID of the initial device (`GenericPluginTy::getHostDeviceUid`).
const HOST_UID: &CStr = c"HOST";

/// The UIDs of the host plugin's devices (`<plugin name>-<device number>`).
const DEVICE_UIDS: [&CStr; HOST_DEVICES] = [c"x86_64-0", c"x86_64-1", c"x86_64-2", c"x86_64-3"];

/// The device whose UID is `uid`: the initial device for `HOST`, `omp_invalid_device` for an
/// unknown one or NULL.
#[no_mangle]
pub unsafe extern "C" fn omp_get_device_from_uid(uid: *const c_char) -> c_int {
    if uid.is_null() {
        return OMP_INVALID_DEVICE;
    }
    // SAFETY: the caller passes a NUL-terminated string.
    let uid = unsafe { CStr::from_ptr(uid) };
    if uid == HOST_UID {
        return registry::num_devices() as c_int;
    }
    let n = registry::num_devices();
    DEVICE_UIDS
        .iter()
        .take(n)
        .position(|u| *u == uid)
        .map_or(OMP_INVALID_DEVICE, |d| d as c_int)
}

/// The UID of a device: `HOST` for the initial device, NULL for `omp_invalid_device`; a device
/// number out of range is fatal (LLVM 22's `getDevice`).
#[no_mangle]
pub extern "C" fn omp_get_uid_from_device(device_num: c_int) -> *const c_char {
    if device_num == OMP_INVALID_DEVICE {
        return std::ptr::null();
    }
    if i64::from(device_num) == registry::num_devices() as i64 {
        return HOST_UID.as_ptr();
    }
    let d = policy::device_or_fatal(i64::from(device_num));
    DEVICE_UIDS
        .get(d.id as usize)
        .map_or(std::ptr::null(), |u| u.as_ptr())
}

/// Whether `[ptr, ptr+size)` is accessible from a device: always on the initial device (and for
/// -1), never guaranteed on the host plugin's devices.
#[no_mangle]
pub extern "C" fn omp_target_is_accessible(
    ptr: *const c_void,
    _size: usize,
    device_num: c_int,
) -> c_int {
    if ptr.is_null() {
        return 0;
    }
    if device_num == -1 || i64::from(device_num) == registry::num_devices() as i64 {
        return 1;
    }
    policy::device_or_fatal(i64::from(device_num));
    0
}

/// libomp's synchronisation hook: nothing to synchronise without interop objects.
#[no_mangle]
pub extern "C" fn __tgt_target_sync(
    _loc: *mut Ident,
    _gtid: c_int,
    _current_task: *mut c_void,
    _event: *mut c_void,
) {
}

/// No foreign runtime on the host plugin: `omp_interop_none`.
#[no_mangle]
pub extern "C" fn __tgt_interop_get(
    _loc: *mut Ident,
    _interop_type: i32,
    _device_num: i64,
    _num_prefers: i32,
    _prefers: *mut c_void,
    _ctx: *mut c_void,
    _deps: *mut c_void,
) -> *mut c_void {
    std::ptr::null_mut()
}

/// `OFFLOAD_FAIL` for the null interop object (the only one there is).
#[no_mangle]
pub extern "C" fn __tgt_interop_use60(
    _loc: *mut Ident,
    _interop: *mut c_void,
    _ctx: *mut c_void,
    _deps: *mut c_void,
) -> c_int {
    api::FAIL
}

/// `OFFLOAD_FAIL` for the null interop object (the only one there is).
#[no_mangle]
pub extern "C" fn __tgt_interop_release(
    _loc: *mut Ident,
    _interop: *mut c_void,
    _ctx: *mut c_void,
    _deps: *mut c_void,
) -> c_int {
    api::FAIL
}

/// `omp_irc_other`: there is no interop object to call back for.
#[no_mangle]
pub extern "C" fn ompx_interop_add_completion_callback(
    _interop: *mut c_void,
    _cb: *mut c_void,
    _data: *mut c_void,
) -> c_int {
    const OMP_IRC_OTHER: c_int = -6;
    OMP_IRC_OTHER
}

#[derive(Debug, Clone, Copy, Default)]
struct CallConfig {
    grid: (c_uint, c_uint, c_uint),
    block: (c_uint, c_uint, c_uint),
    shared: usize,
    stream: usize,
}

thread_local! {
    static CALL_CONFIG: Cell<CallConfig> = const {
        Cell::new(CallConfig { grid: (0, 0, 0), block: (0, 0, 0), shared: 0, stream: 0 })
    };
}

/// Records the launch configuration of the next `<<<…>>>` launch (per thread, as LLVM 22).
#[no_mangle]
pub extern "C" fn __llvmPushCallConfiguration(
    grid: Dim3,
    block: Dim3,
    shared: usize,
    stream: *mut c_void,
) -> c_uint {
    CALL_CONFIG.with(|c| {
        c.set(CallConfig {
            grid: (grid.x, grid.y, grid.z),
            block: (block.x, block.y, block.z),
            shared,
            stream: stream as usize,
        })
    });
    0
}

/// Hands the recorded configuration back.
#[no_mangle]
pub unsafe extern "C" fn __llvmPopCallConfiguration(
    grid: *mut Dim3,
    block: *mut Dim3,
    shared: *mut usize,
    stream: *mut *mut c_void,
) -> c_uint {
    let c = CALL_CONFIG.with(Cell::get);
    // SAFETY: the caller passes writable locations (clang's generated launch stub).
    unsafe {
        if !grid.is_null() {
            *grid = Dim3 {
                x: c.grid.0,
                y: c.grid.1,
                z: c.grid.2,
            };
        }
        if !block.is_null() {
            *block = Dim3 {
                x: c.block.0,
                y: c.block.1,
                z: c.block.2,
            };
        }
        if !shared.is_null() {
            *shared = c.shared;
        }
        if !stream.is_null() {
            *stream = c.stream as *mut c_void;
        }
    }
    0
}

/// Kernel-language launches are not supported: an error code (`cudaErrorNotSupported`-like,
/// non-zero), nothing runs.
#[no_mangle]
pub extern "C" fn llvmLaunchKernel(
    _func: *const c_void,
    _grid: Dim3,
    _block: Dim3,
    _args: *mut *mut c_void,
    _shared: usize,
    _stream: *mut c_void,
) -> c_uint {
    1
}
