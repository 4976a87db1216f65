//! What the runtime asks libomp, looked up once with `dlsym(RTLD_DEFAULT)`: LLVM 19 imports
//! these weakly, so a program without libomp (or an older one) still runs.
use std::ffi::{c_int, c_void, CStr};
use std::sync::OnceLock;

struct Libomp {
    get_target_offload: Option<unsafe extern "C" fn() -> c_int>,
    get_default_device: Option<unsafe extern "C" fn() -> c_int>,
}

fn lookup(name: &CStr) -> *mut c_void {
    // SAFETY: dlsym with RTLD_DEFAULT and a NUL-terminated name has no preconditions.
    unsafe { libc::dlsym(libc::RTLD_DEFAULT, name.as_ptr()) }
}

fn libomp() -> &'static Libomp {
    static L: OnceLock<Libomp> = OnceLock::new();
    L.get_or_init(|| {
        let offload = lookup(c"__kmpc_get_target_offload");
        let default = lookup(c"omp_get_default_device");
        Libomp {
            // SAFETY: libomp defines both as `int f(void)`; a null pointer stays None.
            get_target_offload: (!offload.is_null()).then(|| unsafe {
                std::mem::transmute::<*mut c_void, unsafe extern "C" fn() -> c_int>(offload)
            }),
            // SAFETY: as above.
            get_default_device: (!default.is_null()).then(|| unsafe {
                std::mem::transmute::<*mut c_void, unsafe extern "C" fn() -> c_int>(default)
            }),
        }
    })
}

/// libomp's `OMP_TARGET_OFFLOAD`: 0 disabled, 1 default, 2 mandatory (1 without libomp).
pub(crate) fn target_offload() -> c_int {
    // SAFETY: a function of libomp taking no arguments.
    libomp().get_target_offload.map_or(1, |f| unsafe { f() })
}

/// libomp's default device (`OMP_DEFAULT_DEVICE`, `omp_set_default_device`), 0 without libomp.
pub(crate) fn default_device() -> c_int {
    // SAFETY: a function of libomp taking no arguments.
    libomp().get_default_device.map_or(0, |f| unsafe { f() })
}
