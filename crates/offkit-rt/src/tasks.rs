//! `omp_target_memcpy_async`, `omp_target_memcpy_rect_async` and `omp_target_memset_async`
//! as LLVM 19's `OpenMP/API.cpp` runs them: the operation becomes a hidden-helper task of
//! libomp (`__kmpc_omp_target_task_alloc` with the `hidden_helper` flag) that depends on the
//! `depobj` dependences given (`__kmpc_omp_task_with_deps`), so it waits for the tasks and
//! copies those name, and a `taskwait` waits for it. The call returns what libomp returns
//! (0 once the task is queued). The rectangular copy keeps the caller's arrays, as 19 does:
//! they must live until the task ran.
use std::ffi::{c_int, c_void};

use crate::api;
use crate::libomp::{self, DependInfo, KmpTask};

/// An operation to run in the task.
#[derive(Debug)]
pub(crate) enum Work {
    /// `omp_target_memcpy`.
    Copy {
        dst: *mut c_void,
        src: *const c_void,
        len: usize,
        dst_off: usize,
        src_off: usize,
        dst_dev: c_int,
        src_dev: c_int,
    },
    /// `omp_target_memcpy_rect` (the arrays are the caller's).
    Rect {
        dst: *mut c_void,
        src: *const c_void,
        elem: usize,
        dims: c_int,
        volume: *const usize,
        dst_offsets: *const usize,
        src_offsets: *const usize,
        dst_dims: *const usize,
        src_dims: *const usize,
        dst_dev: c_int,
        src_dev: c_int,
    },
    /// `omp_target_memset`.
    Set {
        ptr: *mut c_void,
        value: c_int,
        count: usize,
        dev: c_int,
    },
}

impl Work {
    fn run(self) -> c_int {
        match self {
            Work::Copy {
                dst,
                src,
                len,
                dst_off,
                src_off,
                dst_dev,
                src_dev,
            } => api::memcpy(dst, src, len, dst_off, src_off, dst_dev, src_dev),
            Work::Rect {
                dst,
                src,
                elem,
                dims,
                volume,
                dst_offsets,
                src_offsets,
                dst_dims,
                src_dims,
                dst_dev,
                src_dev,
            } => api::memcpy_rect(
                dst,
                src,
                elem,
                dims,
                volume,
                dst_offsets,
                src_offsets,
                dst_dims,
                src_dims,
                dst_dev,
                src_dev,
            ),
            Work::Set {
                ptr,
                value,
                count,
                dev,
            } => {
                api::memset(ptr, value, count, dev);
                api::OK
            }
        }
    }
}

/// `kmp_tasking_flags_t` with only `hidden_helper` set.
const HIDDEN_HELPER: i32 = 0x80;

/// LLVM's `libomp_helper_task_creation`: queues `work` behind the `depobj` list (`count`
/// entries). Without libomp the work runs at once.
///
/// # Safety
/// `list` has `count` `omp_depend_t`s (each points to a `kmp_depend_info_t`) or is NULL; the
/// work's pointers stay valid until the task ran.
pub(crate) unsafe fn spawn(work: Work, count: c_int, list: *const *const DependInfo) -> c_int {
    let Some(omp) = libomp::tasking() else {
        return work.run();
    };
    let n = if list.is_null() {
        0
    } else {
        usize::try_from(count).unwrap_or(0)
    };
    let mut deps: Vec<DependInfo> = (0..n)
        // SAFETY: the caller's contract: list[i] points to a depend info.
        .map(|i| unsafe { **list.add(i) })
        .collect();
    let shareds = Box::into_raw(Box::new(work));
    // SAFETY: libomp's entry points with a task routine of the right type; the task's
    // shareds hold our boxed work, which the routine takes back once.
    unsafe {
        let gtid = (omp.global_thread_num)(std::ptr::null_mut());
        let task = (omp.target_task_alloc)(
            std::ptr::null_mut(),
            gtid,
            HIDDEN_HELPER,
            std::mem::size_of::<KmpTask>(),
            0,
            routine,
            -1,
        );
        if task.is_null() {
            drop(Box::from_raw(shareds));
            return api::FAIL;
        }
        (*task).shareds = shareds.cast();
        (omp.task_with_deps)(
            std::ptr::null_mut(),
            gtid,
            task,
            n as i32,
            deps.as_mut_ptr(),
            0,
            std::ptr::null_mut(),
        )
    }
}

/// The task's routine (`libomp_target_memcpy_async_task` / `…memset_async_task`).
unsafe extern "C" fn routine(_gtid: i32, task: *mut KmpTask) -> i32 {
    if task.is_null() {
        return api::FAIL;
    }
    // SAFETY: libomp passes the task spawn() made; its shareds are our boxed work, taken once.
    let work = unsafe {
        let shareds = (*task).shareds.cast::<Work>();
        if shareds.is_null() {
            return api::FAIL;
        }
        Box::from_raw(shareds)
    };
    work.run()
}
