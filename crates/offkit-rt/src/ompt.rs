//! OMPT: the target callbacks LLVM's runtime makes to a tool through libomp's tool interface
//! (`OpenMP/OMPT/Callback.cpp` and the plugins' `PluginInterface.cpp`). LLVM 19 and 22 connect
//! and call back alike: 22's `initRuntime` calls the same `connectLibrary` (`dlopen("libomp.so")`,
//! `ompt_libomp_connect`) and its callbacks take the same arguments. 22 only dropped
//! `ompt_libomptarget_connect`, through which 19's plugin libraries connected (22 links its
//! plugins into the runtime), and takes the devices down in another order (`abi::Deinit`).
//!
//! ```text
//! first __tgt_register_lib ─► connect: dlopen("libomp.so") ─► ompt_libomp_connect(&result)
//!   libomp (a tool is active) ─► result.initialize(lookup) ─► bind ompt_get_callback,
//!   ompt_get_task_data, ompt_get_target_task_data and the tool's target callbacks
//! devices made ─► device_initialize (every device)     image loaded ─► device_load
//! target / enter / exit / update ─► target(_emi) begin … end   (region.rs)
//!   allocData / submitData / retrieveData / deleteData ─► target_data_op(_emi)
//!   the kernel call ─► target_submit(_emi)
//! last __tgt_unregister_lib ─► device_finalize (19: every device, then the images close;
//!   22: device by device, after its images closed)
//! libomp's shutdown ─► result.finalize: no callbacks after it
//! ```
//!
//! Without a tool libomp never calls `initialize` and every hook costs one relaxed load.
use std::ffi::{c_char, c_int, c_void, CStr};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, Once, OnceLock, PoisonError};

mod region;

pub(crate) use region::{data_op, region, submit, DataOp, DataOpArgs, TargetKind};

/// `ompt_interface_fn_t`.
type InterfaceFn = unsafe extern "C" fn();
/// `ompt_function_lookup_t`.
pub(crate) type LookupFn = unsafe extern "C" fn(*const c_char) -> Option<InterfaceFn>;
/// `ompt_get_callback_t`.
type GetCallbackFn = unsafe extern "C" fn(c_int, *mut Option<InterfaceFn>) -> c_int;
/// `ompt_get_task_data`/`ompt_get_target_task_data`: `ompt_data_t *(void)`.
type GetDataFn = unsafe extern "C" fn() -> *mut u64;
/// `ompt_initialize_t`.
type InitializeFn = unsafe extern "C" fn(Option<LookupFn>, c_int, *mut u64) -> c_int;
/// `ompt_finalize_t`.
type FinalizeFn = unsafe extern "C" fn(*mut u64);

/// `ompt_start_tool_result_t`.
#[repr(C)]
#[derive(Debug)]
pub(crate) struct StartToolResult {
    initialize: Option<InitializeFn>,
    finalize: Option<FinalizeFn>,
    tool_data: u64,
}

type DeviceInitializeFn =
    unsafe extern "C" fn(c_int, *const c_char, *const c_void, Option<LookupFn>, *const c_char);
type DeviceFinalizeFn = unsafe extern "C" fn(c_int);
type DeviceLoadFn = unsafe extern "C" fn(
    c_int,
    *const c_char,
    i64,
    *const c_void,
    usize,
    *const c_void,
    *const c_void,
    u64,
);

/// What the tool registered, bound once when libomp initialises the connection.
#[derive(Debug)]
pub(crate) struct Tool {
    lookup: Option<LookupFn>,
    get_task_data: Option<GetDataFn>,
    get_target_task_data: Option<GetDataFn>,
    callbacks: region::Callbacks,
    device_initialize: Option<DeviceInitializeFn>,
    device_finalize: Option<DeviceFinalizeFn>,
    device_load: Option<DeviceLoadFn>,
}

static TOOL: OnceLock<Tool> = OnceLock::new();
/// LLVM's `ompt::Initialized`: set by `initialize`, cleared by `finalize`.
static ACTIVE: AtomicBool = AtomicBool::new(false);

/// The tool while the connection is initialised.
#[inline]
pub(crate) fn tool() -> Option<&'static Tool> {
    if ACTIVE.load(Ordering::Relaxed) {
        TOOL.get()
    } else {
        None
    }
}

/// `OmptLibraryConnectorTy("libomp")` and `connectLibrary`: done once, at the first
/// registration, before anything else (as LLVM 19's `initRuntime`). libomp initialises itself
/// here (`__ompt_force_initialization`), which starts the tool.
pub(crate) fn connect() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        static mut RESULT: StartToolResult = StartToolResult {
            initialize: Some(initialize),
            finalize: Some(finalize),
            tool_data: 0,
        };
        // SAFETY: dlopen/dlsym with NUL-terminated names; LLVM's DynamicLibrary opens with
        // RTLD_LAZY | RTLD_GLOBAL and never closes the library.
        let connect = unsafe {
            let h = libc::dlopen(c"libomp.so".as_ptr(), libc::RTLD_LAZY | libc::RTLD_GLOBAL);
            if h.is_null() {
                return;
            }
            libc::dlsym(h, c"ompt_libomp_connect".as_ptr())
        };
        if connect.is_null() {
            return;
        }
        // SAFETY: libomp defines `void ompt_libomp_connect(ompt_start_tool_result_t *)`;
        // RESULT lives for the whole process (libomp keeps the pointer to call finalize) and
        // is only touched here, once.
        unsafe {
            let f = std::mem::transmute::<*mut c_void, unsafe extern "C" fn(*mut StartToolResult)>(
                connect,
            );
            f(&raw mut RESULT);
        }
    });
}

/// The look-up function of the connection, as the tool's target callbacks see it (the `lookup`
/// of `device_initialize`; libomp's `ompt_libomp_target_fn_lookup`).
fn lookup_fn() -> Option<LookupFn> {
    TOOL.get().and_then(|t| t.lookup)
}

/// Looks up `name` through `lookup` as a function of type `F`.
///
/// # Safety
/// `F` must be the function pointer type the OMPT interface gives `name`.
unsafe fn bind<F: Copy>(lookup: LookupFn, name: &CStr) -> Option<F> {
    // SAFETY: the caller names the function's type; lookup takes a C string.
    let f = unsafe { lookup(name.as_ptr()) }?;
    debug_assert_eq!(std::mem::size_of::<F>(), std::mem::size_of::<InterfaceFn>());
    // SAFETY: both are function pointers of the same size; the caller's contract.
    Some(unsafe { std::mem::transmute_copy::<InterfaceFn, F>(&f) })
}

/// `ompt::initializeLibrary`, called by libomp from `ompt_libomp_connect` when a tool is
/// active.
unsafe extern "C" fn initialize(
    lookup: Option<LookupFn>,
    _initial: c_int,
    _data: *mut u64,
) -> c_int {
    let Some(lookup) = lookup else { return 0 };
    // SAFETY (each bind): the names and types of the OMPT interface (omp-tools.h).
    let tool = unsafe {
        let get_callback: Option<GetCallbackFn> = bind(lookup, c"ompt_get_callback");
        Tool {
            lookup: Some(lookup),
            get_task_data: bind(lookup, c"ompt_get_task_data"),
            get_target_task_data: bind(lookup, c"ompt_get_target_task_data"),
            callbacks: region::Callbacks::bind(get_callback),
            device_initialize: bind(lookup, c"ompt_callback_device_initialize"),
            device_finalize: bind(lookup, c"ompt_callback_device_finalize"),
            device_load: bind(lookup, c"ompt_callback_device_load"),
        }
    };
    let _ = TOOL.set(tool);
    ACTIVE.store(true, Ordering::Relaxed);
    0
}

/// `ompt::finalizeLibrary`, called by libomp when it shuts down: the finalizers of connected
/// libraries run, then no more callbacks.
unsafe extern "C" fn finalize(_data: *mut u64) {
    let finalizers =
        std::mem::take(&mut *FINALIZERS.lock().unwrap_or_else(PoisonError::into_inner));
    for f in finalizers {
        // SAFETY: a finalizer a connected library gave us, called once with no tool data.
        unsafe { f(std::ptr::null_mut()) };
    }
    ACTIVE.store(false, Ordering::Relaxed);
}

static FINALIZERS: Mutex<Vec<FinalizeFn>> = Mutex::new(Vec::new());

/// `ompt_libomptarget_connect`: how a plugin library connects to this runtime (LLVM 19's
/// plugins are built in; an outside one gets the tool's callbacks the same way).
///
/// # Safety
/// `result` is NULL or a live `ompt_start_tool_result_t`.
pub(crate) unsafe fn connect_plugin(result: *mut c_void) {
    let result = result.cast::<StartToolResult>();
    if tool().is_none() || result.is_null() {
        return;
    }
    // SAFETY: the caller's contract.
    let (init, fini) = unsafe { ((*result).initialize, (*result).finalize) };
    if let Some(f) = fini {
        FINALIZERS
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(f);
    }
    if let Some(init) = init {
        // SAFETY: the plugin's initializer, given the look-up of this connection.
        unsafe { init(lookup_fn(), 0, std::ptr::null_mut()) };
    }
}

/// `device_initialize` for a device made (the host plugin's `getComputeUnitKind`).
pub(crate) fn device_initialize(device: i32, handle: *const c_void) {
    let Some(f) = tool().and_then(|t| t.device_initialize) else {
        return;
    };
    // SAFETY: the tool's callback with the arguments LLVM 19's plugin passes.
    unsafe {
        f(
            device,
            c"generic-64bit".as_ptr(),
            handle,
            lookup_fn(),
            std::ptr::null(),
        )
    };
}

/// `device_finalize` before a device's images are closed.
pub(crate) fn device_finalize(device: i32) {
    if let Some(f) = tool().and_then(|t| t.device_finalize) {
        // SAFETY: the tool's callback.
        unsafe { f(device) };
    }
}

/// `device_load` after an image was loaded (its constructors ran): the ELF image as the
/// program registered it, no file, no device address, module 0.
pub(crate) fn device_load(device: i32, image: &[u8]) {
    if let Some(f) = tool().and_then(|t| t.device_load) {
        // SAFETY: the tool's callback with the arguments LLVM 19's plugin passes.
        unsafe {
            f(
                device,
                std::ptr::null(),
                0,
                std::ptr::null(),
                image.len(),
                image.as_ptr().cast(),
                std::ptr::null(),
                0,
            )
        };
    }
}
