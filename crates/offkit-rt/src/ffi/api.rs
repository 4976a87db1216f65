//! The OpenMP device routines (`omp_target_*`, `omp_get_mapped_ptr`, the device numbers) and
//! LLVM's `llvm_omp_target_*` allocators; the work is `api.rs`'s, the asynchronous forms are
//! libomp tasks (`tasks.rs`).
use std::ffi::{c_int, c_void};

use crate::plugin::AllocKind;
use crate::{api, registry, tasks};

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
