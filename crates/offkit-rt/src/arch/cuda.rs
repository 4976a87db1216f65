//! The CUDA driver asked as LLVM's `nvptx-arch` asks it (`NVPTXArch.cpp`, the same in LLVM 19
//! and 22): `dlopen("libcuda.so.1")`, the five functions it looks up in their order, `cuInit`,
//! then each device's compute capability. [`probe`] keeps every step's outcome apart, so that
//! the `nvptx-arch` faces can say what LLVM's tools say at each; [`super::nvidia_gpus`] keeps
//! only the devices.

use std::ffi::{c_char, c_int, c_uint, c_void, CStr};

use super::MAX_NODES;

/// `CUresult` `CUDA_ERROR_NO_DEVICE`: a driver without devices.
const CUDA_ERROR_NO_DEVICE: c_int = 100;
/// `CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR` and `_MINOR`.
const CU_CC_MAJOR: c_int = 75;
const CU_CC_MINOR: c_int = 76;

/// The driver library's name.
pub const LIBRARY: &CStr = c"libcuda.so.1";

/// What the driver said.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Probe {
    /// `libcuda.so.1` did not load.
    NotLoaded,
    /// The library lacks this function (looked up in LLVM's order: `cuInit`,
    /// `cuDeviceGetCount`, `cuGetErrorString`, `cuDeviceGet`, `cuDeviceGetAttribute`).
    MissingSymbol(&'static str),
    /// `cuInit` returned `CUDA_ERROR_NO_DEVICE`.
    NoDevice,
    /// A call failed.
    Failed {
        /// The driver function.
        call: &'static str,
        /// Its `CUresult`.
        code: i32,
        /// `cuGetErrorString`'s text for the code, if it gave one.
        message: Option<String>,
    },
    /// Each device's compute capability (major, minor), by ordinal.
    Devices(Vec<(i32, i32)>),
}

/// `dlopen(name)` as LLVM's `DynamicLibrary::getPermanentLibrary` does it (`RTLD_LAZY |
/// RTLD_GLOBAL`): `None` if it loads (it stays loaded, as LLVM's does), else `dlerror()`'s text
/// (`libamdhip64.so: cannot open shared object file: No such file or directory`).
pub fn library_error(name: &CStr) -> Option<String> {
    // SAFETY: dlopen of a NUL-terminated name; dlerror's result is read before any other dl
    // call on this thread, and copied.
    unsafe {
        let lib = libc::dlopen(name.as_ptr(), libc::RTLD_LAZY | libc::RTLD_GLOBAL);
        if !lib.is_null() {
            return None;
        }
        let e = libc::dlerror();
        Some(if e.is_null() {
            String::new()
        } else {
            CStr::from_ptr(e).to_string_lossy().into_owned()
        })
    }
}

/// Asks the driver, step by step, as LLVM's tools do: all five functions are required.
pub fn probe() -> Probe {
    probe_with(true)
}

/// Asks the driver; `cuGetErrorString` is required only if `error_strings` (the runtime lists
/// devices without it, as it always has; LLVM's tools refuse a driver without it).
pub fn probe_with(error_strings: bool) -> Probe {
    // SAFETY: dlopen of a constant, NUL-terminated name. The driver stays loaded (it does not
    // support being unloaded while initialised).
    let lib = unsafe { libc::dlopen(LIBRARY.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) };
    if lib.is_null() {
        return Probe::NotLoaded;
    }
    let mut syms = [std::ptr::null_mut::<c_void>(); 5];
    let names: [(&CStr, &'static str); 5] = [
        (c"cuInit", "cuInit"),
        (c"cuDeviceGetCount", "cuDeviceGetCount"),
        (c"cuGetErrorString", "cuGetErrorString"),
        (c"cuDeviceGet", "cuDeviceGet"),
        (c"cuDeviceGetAttribute", "cuDeviceGetAttribute"),
    ];
    for (slot, (c, name)) in syms.iter_mut().zip(names) {
        // SAFETY: the handle is live; the name is NUL-terminated.
        let p = unsafe { libc::dlsym(lib, c.as_ptr()) };
        if p.is_null() && (error_strings || name != "cuGetErrorString") {
            return Probe::MissingSymbol(name);
        }
        *slot = p;
    }
    type Init = unsafe extern "C" fn(c_uint) -> c_int;
    type Count = unsafe extern "C" fn(*mut c_int) -> c_int;
    type ErrorString = unsafe extern "C" fn(c_int, *mut *const c_char) -> c_int;
    type Get = unsafe extern "C" fn(*mut c_int, c_int) -> c_int;
    type Attr = unsafe extern "C" fn(*mut c_int, c_int, c_int) -> c_int;
    // SAFETY: the driver API's documented signatures (cuda.h): CUresult is an int enum,
    // CUdevice an int, the attribute an int enum. `cuGetErrorString` may be missing (null).
    let (init, count, error_string, get, attr) = unsafe {
        (
            std::mem::transmute::<*mut c_void, Init>(syms[0]),
            std::mem::transmute::<*mut c_void, Count>(syms[1]),
            (!syms[2].is_null()).then(|| std::mem::transmute::<*mut c_void, ErrorString>(syms[2])),
            std::mem::transmute::<*mut c_void, Get>(syms[3]),
            std::mem::transmute::<*mut c_void, Attr>(syms[4]),
        )
    };
    let failed = |call: &'static str, code: c_int| {
        let mut text: *const c_char = std::ptr::null();
        let message = error_string
            // SAFETY: the out-pointer points at a live local; the driver returns a static
            // string.
            .filter(|f| unsafe { f(code, &mut text) } == 0 && !text.is_null())
            // SAFETY: a NUL-terminated static string of the driver's.
            .map(|_| {
                unsafe { CStr::from_ptr(text) }
                    .to_string_lossy()
                    .into_owned()
            });
        Probe::Failed {
            call,
            code,
            message,
        }
    };
    // SAFETY: cuInit takes flags (0); the out-pointers below point at live locals.
    match unsafe { init(0) } {
        0 => {}
        CUDA_ERROR_NO_DEVICE => return Probe::NoDevice,
        code => return failed("cuInit", code),
    }
    let mut n: c_int = 0;
    // SAFETY: as above.
    let code = unsafe { count(&mut n) };
    if code != 0 {
        return failed("cuDeviceGetCount", code);
    }
    let mut out = Vec::new();
    for ordinal in 0..n.clamp(0, MAX_NODES as c_int) {
        let (mut dev, mut major, mut minor) = (0, 0, 0);
        // SAFETY: as above.
        let code = unsafe { get(&mut dev, ordinal) };
        if code != 0 {
            return failed("cuDeviceGet", code);
        }
        for (slot, which) in [(&mut major, CU_CC_MAJOR), (&mut minor, CU_CC_MINOR)] {
            // SAFETY: as above.
            let code = unsafe { attr(slot, which, dev) };
            if code != 0 {
                return failed("cuDeviceGetAttribute", code);
            }
        }
        out.push((major, minor));
    }
    Probe::Devices(out)
}
