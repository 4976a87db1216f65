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

/// `kmp_task_t`: what `__kmpc_omp_target_task_alloc` returns (the runtime sets `shareds`).
#[repr(C)]
#[derive(Debug)]
pub(crate) struct KmpTask {
    /// The task's argument block.
    pub shareds: *mut c_void,
    routine: *mut c_void,
    part_id: i32,
    data1: usize,
    data2: usize,
}

/// `kmp_depend_info_t`: what an `omp_depend_t` (a `depobj`) points to.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub(crate) struct DependInfo {
    base_addr: isize,
    len: usize,
    flags: u32,
}

/// A task routine (`kmp_routine_entry_t`).
pub(crate) type TaskRoutine = unsafe extern "C" fn(i32, *mut KmpTask) -> i32;

/// `__kmpc_global_thread_num`.
type GlobalThreadNumFn = unsafe extern "C" fn(*mut c_void) -> i32;
/// `__kmpc_omp_target_task_alloc`.
type TargetTaskAllocFn =
    unsafe extern "C" fn(*mut c_void, i32, i32, usize, usize, TaskRoutine, i64) -> *mut KmpTask;
/// `__kmpc_omp_task_with_deps`.
type TaskWithDepsFn = unsafe extern "C" fn(
    *mut c_void,
    i32,
    *mut KmpTask,
    i32,
    *mut DependInfo,
    i32,
    *mut DependInfo,
) -> i32;

/// libomp's tasking entry points the asynchronous memory routines use.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Tasking {
    /// `__kmpc_global_thread_num`.
    pub global_thread_num: GlobalThreadNumFn,
    /// `__kmpc_omp_target_task_alloc`.
    pub target_task_alloc: TargetTaskAllocFn,
    /// `__kmpc_omp_task_with_deps`.
    pub task_with_deps: TaskWithDepsFn,
}

/// libomp's tasking, `None` without libomp (LLVM 19 imports these weakly too).
pub(crate) fn tasking() -> Option<Tasking> {
    static T: OnceLock<Option<Tasking>> = OnceLock::new();
    *T.get_or_init(|| {
        let (g, a, w) = (
            lookup(c"__kmpc_global_thread_num"),
            lookup(c"__kmpc_omp_target_task_alloc"),
            lookup(c"__kmpc_omp_task_with_deps"),
        );
        if g.is_null() || a.is_null() || w.is_null() {
            return None;
        }
        // SAFETY: libomp's functions of these signatures (kmp.h).
        unsafe {
            Some(Tasking {
                global_thread_num: std::mem::transmute::<*mut c_void, GlobalThreadNumFn>(g),
                target_task_alloc: std::mem::transmute::<*mut c_void, TargetTaskAllocFn>(a),
                task_with_deps: std::mem::transmute::<*mut c_void, TaskWithDepsFn>(w),
            })
        }
    })
}
