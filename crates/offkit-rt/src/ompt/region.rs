//! The target region, data operation and submit callbacks with LLVM 19's arguments, ids and
//! order (`Interface` of `OMPT/Callback.cpp`): per thread the target data and host-op id the
//! tool sees (it gets pointers to them and may store its own values), the encountering task's
//! and the target task's data from libomp, and the code address of the program's call.
use std::cell::Cell;
use std::ffi::{c_int, c_uint, c_void};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

use super::{tool, GetCallbackFn, InterfaceFn, Tool};

type TargetEmiFn =
    unsafe extern "C" fn(c_int, c_int, c_int, *mut u64, *mut u64, *mut u64, *const c_void);
type TargetFn = unsafe extern "C" fn(c_int, c_int, c_int, *mut u64, u64, *const c_void);
type DataOpEmiFn = unsafe extern "C" fn(
    c_int,
    *mut u64,
    *mut u64,
    *mut u64,
    c_int,
    *mut c_void,
    c_int,
    *mut c_void,
    c_int,
    usize,
    *const c_void,
);
type DataOpFn = unsafe extern "C" fn(
    u64,
    u64,
    c_int,
    *mut c_void,
    c_int,
    *mut c_void,
    c_int,
    usize,
    *const c_void,
);
type SubmitEmiFn = unsafe extern "C" fn(c_int, *mut u64, *mut u64, c_uint);
type SubmitFn = unsafe extern "C" fn(u64, u64, c_uint);

/// The tool's target callbacks (`ompt_get_callback` of each event code).
#[derive(Debug, Default)]
pub(crate) struct Callbacks {
    target: Option<TargetFn>,
    data_op: Option<DataOpFn>,
    submit: Option<SubmitFn>,
    target_emi: Option<TargetEmiFn>,
    data_op_emi: Option<DataOpEmiFn>,
    submit_emi: Option<SubmitEmiFn>,
}

/// `ompt_callbacks_t` codes.
const TARGET: c_int = 8;
const DATA_OP: c_int = 9;
const SUBMIT: c_int = 10;
const TARGET_EMI: c_int = 33;
const DATA_OP_EMI: c_int = 34;
const SUBMIT_EMI: c_int = 35;

/// `ompt_scope_endpoint_t`.
const BEGIN: c_int = 1;
const END: c_int = 2;

impl Callbacks {
    /// Binds every target callback the tool registered with libomp.
    ///
    /// # Safety
    /// `get` is libomp's `ompt_get_callback`.
    pub(super) unsafe fn bind(get: Option<GetCallbackFn>) -> Callbacks {
        let Some(get) = get else {
            return Callbacks::default();
        };
        let one = |code| {
            let mut f: Option<InterfaceFn> = None;
            // SAFETY: ompt_get_callback writes the registered callback, if any.
            unsafe { get(code, &mut f) };
            f
        };
        // SAFETY (each): the event code's callback type (omp-tools.h).
        unsafe {
            Callbacks {
                target: cast(one(TARGET)),
                data_op: cast(one(DATA_OP)),
                submit: cast(one(SUBMIT)),
                target_emi: cast(one(TARGET_EMI)),
                data_op_emi: cast(one(DATA_OP_EMI)),
                submit_emi: cast(one(SUBMIT_EMI)),
            }
        }
    }
}

/// # Safety
/// `F` is the function pointer type of the callback.
unsafe fn cast<F: Copy>(f: Option<InterfaceFn>) -> Option<F> {
    // SAFETY: both are function pointers; the caller's contract.
    f.map(|f| unsafe { std::mem::transmute_copy::<InterfaceFn, F>(&f) })
}

/// One thread's `Interface` (LLVM's `thread_local RegionInterface`).
struct Interface {
    host_op_id: Cell<u64>,
    target_data: Cell<u64>,
    task_data: Cell<*mut u64>,
    target_task_data: Cell<*mut u64>,
    /// The code address of the running construct (found once for all its callbacks).
    code: Cell<*const c_void>,
}

thread_local! {
    static IFACE: Interface = const {
        Interface {
            host_op_id: Cell::new(0),
            target_data: Cell::new(0),
            task_data: Cell::new(std::ptr::null_mut()),
            target_task_data: Cell::new(std::ptr::null_mut()),
            code: Cell::new(std::ptr::null()),
        }
    };
}

/// The ids the runtime makes for callbacks without EMI (`createId`).
static IDS: AtomicU64 = AtomicU64::new(1);

fn create_id() -> u64 {
    IDS.fetch_add(1, Ordering::Relaxed)
}

/// `ompt_target_t`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TargetKind {
    /// `target`.
    Target = 1,
    /// `target enter data`, `target data` (entry).
    EnterData = 2,
    /// `target exit data`, `target data` (exit).
    ExitData = 3,
    /// `target update`.
    Update = 4,
}

/// A target region reported to the tool: `begin` now, `end` when dropped.
#[derive(Debug)]
pub(crate) struct Region {
    kind: TargetKind,
    device: c_int,
    code: *const c_void,
}

/// `InterfaceRAII` of a target construct on `device`: begins the region (`None` without a
/// tool).
pub(crate) fn region(kind: TargetKind, device: i32) -> Option<Region> {
    let t = tool()?;
    let r = Region {
        kind,
        device,
        code: return_address(),
    };
    IFACE.with(|i| i.code.set(r.code));
    r.call(t, BEGIN);
    Some(r)
}

impl Drop for Region {
    fn drop(&mut self) {
        if let Some(t) = tool() {
            self.call(t, END);
        }
        IFACE.with(|i| i.code.set(std::ptr::null()));
    }
}

impl Region {
    /// `beginTarget…`/`endTarget…`.
    fn call(&self, t: &Tool, endpoint: c_int) {
        IFACE.with(|i| {
            if endpoint == BEGIN {
                // beginTargetRegion
                // SAFETY: libomp's task-data getters take no arguments.
                i.task_data.set(
                    t.get_task_data
                        .map_or(std::ptr::null_mut(), |f| unsafe { f() }),
                );
                // SAFETY: as above.
                i.target_task_data.set(
                    t.get_target_task_data
                        .map_or(std::ptr::null_mut(), |f| unsafe { f() }),
                );
                i.target_data.set(0);
            }
            let kind = self.kind as c_int;
            if let Some(f) = t.callbacks.target_emi {
                // SAFETY: the tool's callback; the pointers are this thread's interface.
                unsafe {
                    f(
                        kind,
                        endpoint,
                        self.device,
                        i.task_data.get(),
                        i.target_task_data.get(),
                        i.target_data.as_ptr(),
                        self.code,
                    )
                };
            } else if let Some(f) = t.callbacks.target {
                // 19 makes no region id for enter data (its beginTargetDataEnter lacks it).
                if endpoint == BEGIN && self.kind != TargetKind::EnterData {
                    i.target_data.set(create_id());
                }
                // SAFETY: the tool's callback.
                unsafe {
                    f(
                        kind,
                        endpoint,
                        self.device,
                        i.task_data.get(),
                        i.target_data.get(),
                        self.code,
                    )
                };
            }
            if endpoint == END {
                // endTargetRegion
                i.task_data.set(std::ptr::null_mut());
                i.target_task_data.set(std::ptr::null_mut());
                i.target_data.set(0);
            }
        });
    }
}

/// `ompt_target_data_op_t` of the synchronous operations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DataOp {
    /// `allocData`.
    Alloc = 1,
    /// `submitData`.
    ToDevice = 2,
    /// `retrieveData`.
    FromDevice = 3,
    /// `deleteData`.
    Delete = 4,
    /// `omp_target_associate_ptr`.
    Associate = 5,
    /// `omp_target_disassociate_ptr`.
    Disassociate = 6,
}

/// The arguments of a data operation callback: source and destination with their device
/// numbers, the byte count.
#[derive(Debug, Clone, Copy)]
pub(crate) struct DataOpArgs {
    pub src: usize,
    pub src_device: i32,
    pub dst: usize,
    pub dst_device: i32,
    pub bytes: usize,
}

/// A data operation: the tool's `begin` callback, `op`, then `end` with what `op` returned as
/// the destination (an allocation's address; LLVM passes `&TgtPtr`, NULL at `begin`).
pub(crate) fn data_op<R>(
    kind: DataOp,
    args: DataOpArgs,
    op: impl FnOnce() -> R,
    dst_after: impl FnOnce(&R) -> usize,
) -> R {
    let Some(t) = tool() else {
        return op();
    };
    let code = IFACE.with(|i| i.code.get());
    let code = if code.is_null() {
        return_address()
    } else {
        code
    };
    data_op_call(t, kind, args, BEGIN, code);
    let r = op();
    if let Some(t) = tool() {
        let dst = if kind == DataOp::Alloc {
            dst_after(&r)
        } else {
            args.dst
        };
        data_op_call(t, kind, DataOpArgs { dst, ..args }, END, code);
    }
    r
}

fn data_op_call(t: &Tool, kind: DataOp, a: DataOpArgs, endpoint: c_int, code: *const c_void) {
    IFACE.with(|i| {
        if let Some(f) = t.callbacks.data_op_emi {
            // SAFETY: the tool's callback; the pointers are this thread's interface.
            unsafe {
                f(
                    endpoint,
                    i.target_task_data.get(),
                    i.target_data.as_ptr(),
                    i.host_op_id.as_ptr(),
                    kind as c_int,
                    a.src as *mut c_void,
                    a.src_device,
                    a.dst as *mut c_void,
                    a.dst_device,
                    a.bytes,
                    code,
                )
            };
        } else if let (Some(f), BEGIN) = (t.callbacks.data_op, endpoint) {
            let op = create_id();
            i.host_op_id.set(op);
            // SAFETY: the tool's callback.
            unsafe {
                f(
                    i.target_data.get(),
                    op,
                    kind as c_int,
                    a.src as *mut c_void,
                    a.src_device,
                    a.dst as *mut c_void,
                    a.dst_device,
                    a.bytes,
                    code,
                )
            };
        }
    });
}

/// A kernel submission: `begin` now, `end` when dropped.
#[derive(Debug)]
pub(crate) struct Submit {
    teams: c_uint,
}

/// `InterfaceRAII` of a kernel launch with the requested number of teams.
pub(crate) fn submit(teams: u32) -> Option<Submit> {
    let t = tool()?;
    let s = Submit { teams };
    s.call(t, BEGIN);
    Some(s)
}

impl Drop for Submit {
    fn drop(&mut self) {
        if let Some(t) = tool() {
            self.call(t, END);
        }
    }
}

impl Submit {
    fn call(&self, t: &Tool, endpoint: c_int) {
        IFACE.with(|i| {
            if let Some(f) = t.callbacks.submit_emi {
                // SAFETY: the tool's callback; the pointers are this thread's interface.
                unsafe {
                    f(
                        endpoint,
                        i.target_data.as_ptr(),
                        i.host_op_id.as_ptr(),
                        self.teams,
                    )
                };
            } else if let (Some(f), BEGIN) = (t.callbacks.submit, endpoint) {
                let op = create_id();
                i.host_op_id.set(op);
                // SAFETY: the tool's callback.
                unsafe { f(i.target_data.get(), op, self.teams) };
            }
        });
    }
}

/// The program's return address of the runtime entry point being run: what LLVM 19 records
/// with `__builtin_return_address(0)` at the outermost entry point still running on this
/// thread (`ReturnAddressSetterRAII`). Walking the whole stack out from here, that is the
/// caller of the outermost frame of this library: the program's call, or libomp's when a
/// libomp task runs the runtime's routine. Only done when a tool listens.
fn return_address() -> *const c_void {
    struct Walk {
        ours: &'static [(usize, usize)],
        in_ours: bool,
        found: usize,
    }
    unsafe extern "C" fn step(ctx: *mut c_void, arg: *mut c_void) -> c_int {
        // SAFETY: the unwinder passes its context and our Walk.
        let (ip, w) = unsafe { (_Unwind_GetIP(ctx), &mut *arg.cast::<Walk>()) };
        if ip == 0 {
            return END_OF_STACK;
        }
        let ours = w.ours.iter().any(|&(s, e)| s <= ip && ip < e);
        if w.in_ours && !ours {
            w.found = ip;
        }
        w.in_ours = ours;
        NO_REASON
    }
    let mut w = Walk {
        ours: own_segments(),
        in_ours: false,
        found: 0,
    };
    // SAFETY: the callback only reads the context it is given and writes our Walk.
    unsafe { _Unwind_Backtrace(step, (&raw mut w).cast()) };
    w.found as *const c_void
}

/// The loaded segments of this library (found once).
fn own_segments() -> &'static [(usize, usize)] {
    static SEGMENTS: OnceLock<Vec<(usize, usize)>> = OnceLock::new();
    SEGMENTS.get_or_init(|| {
        struct Query {
            here: usize,
            segments: Vec<(usize, usize)>,
        }
        unsafe extern "C" fn visit(
            info: *mut libc::dl_phdr_info,
            _size: usize,
            data: *mut c_void,
        ) -> c_int {
            // SAFETY: dl_iterate_phdr passes a valid info and our Query.
            let (info, q) = unsafe { (&*info, &mut *data.cast::<Query>()) };
            if info.dlpi_phdr.is_null() {
                return 0;
            }
            // SAFETY: dlpi_phdr has dlpi_phnum program headers.
            let phdrs =
                unsafe { std::slice::from_raw_parts(info.dlpi_phdr, info.dlpi_phnum.into()) };
            let segments: Vec<(usize, usize)> = phdrs
                .iter()
                .filter(|ph| ph.p_type == libc::PT_LOAD)
                .map(|ph| {
                    let s = (info.dlpi_addr as usize).wrapping_add(ph.p_vaddr as usize);
                    (s, s.wrapping_add(ph.p_memsz as usize))
                })
                .collect();
            if segments.iter().any(|&(s, e)| s <= q.here && q.here < e) {
                q.segments = segments;
                return 1;
            }
            0
        }
        let mut q = Query {
            here: own_segments as *const () as usize,
            segments: Vec::new(),
        };
        // SAFETY: the callback only reads the headers it is given and writes our Query.
        unsafe { libc::dl_iterate_phdr(Some(visit), (&raw mut q).cast()) };
        q.segments
    })
}

/// `_URC_NO_REASON` / `_URC_END_OF_STACK`.
const NO_REASON: c_int = 0;
const END_OF_STACK: c_int = 5;

extern "C" {
    // libgcc_s's unwinder (the runtime already links libgcc_s).
    fn _Unwind_Backtrace(
        trace: unsafe extern "C" fn(*mut c_void, *mut c_void) -> c_int,
        arg: *mut c_void,
    ) -> c_int;
    fn _Unwind_GetIP(ctx: *mut c_void) -> usize;
}
