//! The C ABI: the structures clang-19 and the linker wrapper emit, and every entry point LLVM
//! 19's `libomptarget.so.19.1` exports (`VERS1.0`, see `exports.map`). The functions here only
//! translate between C and the runtime's modules.
//!
//! All functions are `unsafe extern "C"`: their pointer arguments must be what clang-19's code
//! passes (arrays of the stated length, live descriptors, NUL-terminated strings).
#![allow(clippy::missing_safety_doc, clippy::too_many_arguments)]

use std::ffi::{c_char, c_int, c_void};

use crate::ops::{self, DataOp, MapArgs};
use crate::plugin::AllocKind;
use crate::policy::{self, info};
use crate::{api, mapper, ompt, registry, tasks};

/// `ident_t`: a source location (`psource` is `;file;function;line;col;;`).
#[repr(C)]
#[derive(Debug)]
pub struct Ident {
    /// Unused.
    pub reserved_1: i32,
    /// `KMP_IDENT_*` flags.
    pub flags: i32,
    /// Unused.
    pub reserved_2: i32,
    /// clang stores the length of `psource` here.
    pub reserved_3: i32,
    /// The location string.
    pub psource: *const c_char,
}

impl Ident {
    /// The location LLVM 19 uses for messages of the runtime itself.
    pub(crate) fn libomptarget() -> Ident {
        Ident {
            reserved_1: 0,
            flags: 0,
            reserved_2: 0,
            reserved_3: 0,
            psource: c";libomptarget;libomptarget;0;0;;".as_ptr(),
        }
    }
}

/// `__tgt_offload_entry` as clang-19 emits it (32 bytes).
#[repr(C)]
#[derive(Debug)]
pub struct OffloadEntry {
    /// The host address of the kernel's region id or of the global.
    pub addr: *mut c_void,
    /// The symbol name in the device image.
    pub name: *const c_char,
    /// 0 for kernels, the size of a global.
    pub size: usize,
    /// `OMP_DECLARE_TARGET_*` flags, `0x10` for requires entries.
    pub flags: i32,
    /// The requires bits of a requires entry.
    pub data: i32,
}

/// `__tgt_device_image`.
#[repr(C)]
#[derive(Debug)]
pub struct DeviceImage {
    /// The first byte of the image (ELF, or an offload binary around it).
    pub image_start: *const u8,
    /// One past its last byte.
    pub image_end: *const u8,
    /// The host entries (the same table as the descriptor's).
    pub entries_begin: *const OffloadEntry,
    /// One past the last host entry.
    pub entries_end: *const OffloadEntry,
}

/// `__tgt_bin_desc`: what a program or shared object registers.
#[repr(C)]
#[derive(Debug)]
pub struct BinDesc {
    /// The number of device images.
    pub num_device_images: i32,
    /// The device images.
    pub device_images: *const DeviceImage,
    /// The host entry table.
    pub host_entries_begin: *const OffloadEntry,
    /// One past its end.
    pub host_entries_end: *const OffloadEntry,
}

/// `__tgt_image_info` (seed 002's wrapper registers one per image).
#[repr(C)]
#[derive(Debug)]
pub struct ImageInfo {
    /// The structure's version.
    pub version: i32,
    /// The image's number in the descriptor.
    pub image_number: i32,
    /// How many images there are.
    pub number_images: i32,
    /// The image's target ID.
    pub offload_arch: *const c_char,
    /// Reserved.
    pub compile_opts: *const c_char,
}

/// `KernelArgsTy` (version 3 is what clang-19 stores; versions 1 and 2 are shorter).
#[repr(C)]
#[derive(Debug)]
pub struct KernelArgs {
    /// 3 for clang-19.
    pub version: u32,
    /// The number of entries of the arrays.
    pub num_args: u32,
    /// Base addresses.
    pub arg_base_ptrs: *mut *mut c_void,
    /// Begin addresses.
    pub arg_ptrs: *mut *mut c_void,
    /// Sizes.
    pub arg_sizes: *mut i64,
    /// Map types.
    pub arg_types: *mut i64,
    /// `map_var_info_t` names (NULL without `-g`).
    pub arg_names: *mut *mut c_void,
    /// Mapper functions (NULL or per argument).
    pub arg_mappers: *mut *mut c_void,
    /// The loop trip count.
    pub tripcount: u64,
    /// Bit 0: nowait. (Version 2 and later from here on.)
    pub flags: u64,
    /// Teams per dimension.
    pub num_teams: [u32; 3],
    /// Threads per dimension.
    pub thread_limit: [u32; 3],
    /// Dynamic group memory.
    pub dyn_cgroup_mem: u32,
}

/// `__tgt_target_non_contig`: one dimension of a strided `target update`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct NonContig {
    /// The first element.
    pub offset: u64,
    /// The number of elements.
    pub count: u64,
    /// The distance between elements, in bytes.
    pub stride: u64,
}

/// `OMP_TGT_SUCCESS` / `OMP_TGT_FAIL` of the kernel entry points (non-zero: run the host
/// fallback).
const TGT_SUCCESS: c_int = 0;
const TGT_FAIL: c_int = !0;

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
    policy::message(format_args!(
        "The void __tgt_register_requires(int64_t) function has been removed. Old OpenMP \
         requirements will not be handled"
    ));
}

/// Records a `__tgt_image_info` (seed 002): the target ID of an image of the descriptor
/// registered next, used to choose among several images.
#[no_mangle]
pub unsafe extern "C" fn __tgt_register_image_info(info: *mut ImageInfo) {
    if info.is_null() {
        return;
    }
    // SAFETY: the wrapper passes its live image info; offload_arch is a C string or NULL.
    let (number, arch) = unsafe { ((*info).image_number, (*info).offload_arch) };
    registry::register_image_info(number, policy::c_str(arch).into_owned());
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

// ---- kernels ------------------------------------------------------------------------------

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
    if policy::info_level() & info::KERNEL_ARGS != 0 {
        policy::print_args(
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

// ---- data ---------------------------------------------------------------------------------

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
    policy::set_info_level(flags);
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

// ---- omp_* device routines ----------------------------------------------------------------

/// The number of devices (libomp forwards its `omp_get_num_devices` here).
#[no_mangle]
pub extern "C" fn omp_get_num_devices() -> c_int {
    registry::num_devices() as c_int
}

/// The initial (host) device: the device count.
#[no_mangle]
pub extern "C" fn omp_get_initial_device() -> c_int {
    registry::num_devices() as c_int
}

/// The device this code runs on: the host.
#[no_mangle]
pub extern "C" fn omp_get_device_num() -> c_int {
    registry::num_devices() as c_int
}

/// Allocates device memory.
#[no_mangle]
pub extern "C" fn omp_target_alloc(size: usize, device_num: c_int) -> *mut c_void {
    api::alloc(size, device_num, None)
}

/// Frees device memory.
#[no_mangle]
pub extern "C" fn omp_target_free(ptr: *mut c_void, device_num: c_int) {
    api::free(ptr, device_num, None)
}

/// Whether a host address is mapped on a device.
#[no_mangle]
pub extern "C" fn omp_target_is_present(ptr: *const c_void, device_num: c_int) -> c_int {
    api::is_present(ptr, device_num)
}

/// Copies between host and device memory.
#[no_mangle]
pub extern "C" fn omp_target_memcpy(
    dst: *mut c_void,
    src: *const c_void,
    length: usize,
    dst_offset: usize,
    src_offset: usize,
    dst_device: c_int,
    src_device: c_int,
) -> c_int {
    api::memcpy(
        dst, src, length, dst_offset, src_offset, dst_device, src_device,
    )
}

/// Copies a rectangular subvolume.
#[no_mangle]
pub extern "C" fn omp_target_memcpy_rect(
    dst: *mut c_void,
    src: *const c_void,
    element_size: usize,
    num_dims: c_int,
    volume: *const usize,
    dst_offsets: *const usize,
    src_offsets: *const usize,
    dst_dimensions: *const usize,
    src_dimensions: *const usize,
    dst_device: c_int,
    src_device: c_int,
) -> c_int {
    api::memcpy_rect(
        dst,
        src,
        element_size,
        num_dims,
        volume,
        dst_offsets,
        src_offsets,
        dst_dimensions,
        src_dimensions,
        dst_device,
        src_device,
    )
}

/// The asynchronous copy: a libomp task behind the `depobj` dependences (tasks.rs).
#[no_mangle]
pub unsafe extern "C" fn omp_target_memcpy_async(
    dst: *mut c_void,
    src: *const c_void,
    length: usize,
    dst_offset: usize,
    src_offset: usize,
    dst_device: c_int,
    src_device: c_int,
    depobj_count: c_int,
    depobj_list: *mut c_void,
) -> c_int {
    if dst.is_null() || src.is_null() {
        return api::FAIL;
    }
    let work = tasks::Work::Copy {
        dst,
        src,
        len: length,
        dst_off: dst_offset,
        src_off: src_offset,
        dst_dev: dst_device,
        src_dev: src_device,
    };
    // SAFETY: the caller's depobj array of depobj_count entries.
    unsafe { tasks::spawn(work, depobj_count, depobj_list.cast()) }
}

/// The asynchronous rectangular copy: a libomp task (the arrays must outlive it, as in 19).
#[no_mangle]
pub unsafe extern "C" fn omp_target_memcpy_rect_async(
    dst: *mut c_void,
    src: *const c_void,
    element_size: usize,
    num_dims: c_int,
    volume: *const usize,
    dst_offsets: *const usize,
    src_offsets: *const usize,
    dst_dimensions: *const usize,
    src_dimensions: *const usize,
    dst_device: c_int,
    src_device: c_int,
    depobj_count: c_int,
    depobj_list: *mut c_void,
) -> c_int {
    if dst.is_null() && src.is_null() {
        return c_int::MAX;
    }
    if dst.is_null() || src.is_null() {
        return api::FAIL;
    }
    let work = tasks::Work::Rect {
        dst,
        src,
        elem: element_size,
        dims: num_dims,
        volume,
        dst_offsets,
        src_offsets,
        dst_dims: dst_dimensions,
        src_dims: src_dimensions,
        dst_dev: dst_device,
        src_dev: src_device,
    };
    // SAFETY: the caller's depobj array of depobj_count entries.
    unsafe { tasks::spawn(work, depobj_count, depobj_list.cast()) }
}

/// Fills device memory.
#[no_mangle]
pub extern "C" fn omp_target_memset(
    ptr: *mut c_void,
    value: c_int,
    count: usize,
    device_num: c_int,
) -> *mut c_void {
    api::memset(ptr, value, count, device_num)
}

/// The asynchronous fill: a libomp task behind the `depobj` dependences (tasks.rs).
#[no_mangle]
pub unsafe extern "C" fn omp_target_memset_async(
    ptr: *mut c_void,
    value: c_int,
    count: usize,
    device_num: c_int,
    depobj_count: c_int,
    depobj_list: *mut c_void,
) -> *mut c_void {
    if ptr.is_null() || count == 0 {
        return ptr;
    }
    let work = tasks::Work::Set {
        ptr,
        value,
        count,
        dev: device_num,
    };
    // SAFETY: the caller's depobj array of depobj_count entries; 19 ignores the result.
    unsafe { tasks::spawn(work, depobj_count, depobj_list.cast()) };
    ptr
}

/// Maps host memory to given device memory (an infinite reference count).
#[no_mangle]
pub extern "C" fn omp_target_associate_ptr(
    host_ptr: *const c_void,
    device_ptr: *const c_void,
    size: usize,
    device_offset: usize,
    device_num: c_int,
) -> c_int {
    api::associate(host_ptr, device_ptr, size, device_offset, device_num)
}

/// Removes an association made by [`omp_target_associate_ptr`].
#[no_mangle]
pub extern "C" fn omp_target_disassociate_ptr(host_ptr: *const c_void, device_num: c_int) -> c_int {
    api::disassociate(host_ptr, device_num)
}

/// The device address of mapped host memory.
#[no_mangle]
pub extern "C" fn omp_get_mapped_ptr(ptr: *const c_void, device_num: c_int) -> *mut c_void {
    api::mapped_ptr(ptr, device_num)
}

/// Device memory (the host plugin has one kind).
#[no_mangle]
pub extern "C" fn llvm_omp_target_alloc_device(size: usize, device_num: c_int) -> *mut c_void {
    api::alloc(size, device_num, Some(AllocKind::Device))
}

/// Host memory (the host plugin has one kind).
#[no_mangle]
pub extern "C" fn llvm_omp_target_alloc_host(size: usize, device_num: c_int) -> *mut c_void {
    api::alloc(size, device_num, Some(AllocKind::Host))
}

/// Shared memory (the host plugin has one kind).
#[no_mangle]
pub extern "C" fn llvm_omp_target_alloc_shared(size: usize, device_num: c_int) -> *mut c_void {
    api::alloc(size, device_num, Some(AllocKind::Shared))
}

/// Frees memory of [`llvm_omp_target_alloc_device`].
#[no_mangle]
pub extern "C" fn llvm_omp_target_free_device(ptr: *mut c_void, device_num: c_int) {
    api::free(ptr, device_num, Some(AllocKind::Device))
}

/// Frees memory of [`llvm_omp_target_alloc_host`].
#[no_mangle]
pub extern "C" fn llvm_omp_target_free_host(ptr: *mut c_void, device_num: c_int) {
    api::free(ptr, device_num, Some(AllocKind::Host))
}

/// Frees memory of [`llvm_omp_target_alloc_shared`].
#[no_mangle]
pub extern "C" fn llvm_omp_target_free_shared(ptr: *mut c_void, device_num: c_int) {
    api::free(ptr, device_num, Some(AllocKind::Shared))
}

/// Pinning is a no-op on the host: the address itself is returned.
#[no_mangle]
pub extern "C" fn llvm_omp_target_lock_mem(
    ptr: *mut c_void,
    _size: usize,
    _device_num: c_int,
) -> *mut c_void {
    ptr
}

/// Unpinning is a no-op on the host.
#[no_mangle]
pub extern "C" fn llvm_omp_target_unlock_mem(_ptr: *mut c_void, _device_num: c_int) {}

/// Dynamic shared memory exists only in device code.
#[no_mangle]
pub extern "C" fn llvm_omp_target_dynamic_shared_alloc() -> *mut c_void {
    std::ptr::null_mut()
}
