//! The host plugin's devices: four devices that run images in this process. An image is
//! written to a `memfd` and `dlopen`ed from `/proc/self/fd/N` (one copy per device, so each
//! device has its own globals), its entries are resolved with `dlsym`, its declare-target
//! globals enter the device's mapping table with an infinite count, and its kernels are called
//! on the calling thread.
use std::collections::HashMap;
use std::ffi::{c_char, c_int, c_void, CString};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError, RwLock};

use crate::ffi::{Ident, OffloadEntry};
use crate::mapping::{copy, Table};
use crate::policy::{self, c_str, info, SourceInfo, P};

/// The number of devices of the host plugin (a compile-time constant in LLVM 19).
pub(crate) const HOST_DEVICES: usize = 4;

/// Entry flags (LLVM's `OMP_DECLARE_TARGET_*` and `OMP_REGISTER_REQUIRES`).
pub(crate) const ENTRY_INDIRECT: i32 = 0x8;
pub(crate) const ENTRY_REQUIRES: i32 = 0x10;

/// A kernel of a loaded image.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Kernel {
    /// The outlined function in the device image.
    pub func: usize,
    /// Its entry name (a C string of the program), for the launch INFO line.
    pub name: usize,
}

/// An image loaded on a device.
#[derive(Debug)]
pub(crate) struct Loaded {
    handle: usize,
    fd: c_int,
}

/// One device.
#[derive(Debug)]
pub(crate) struct Device {
    pub id: i32,
    pending: AtomicBool,
    table: Mutex<Table>,
    kernels: RwLock<HashMap<usize, Kernel>>,
}

impl Device {
    pub(crate) fn new(id: i32) -> Device {
        Device {
            id,
            pending: AtomicBool::new(false),
            table: Mutex::new(Table::new(id)),
            kernels: RwLock::new(HashMap::new()),
        }
    }

    #[inline]
    pub(crate) fn has_pending(&self) -> bool {
        self.pending.load(Ordering::Acquire)
    }

    pub(crate) fn set_pending(&self, v: bool) {
        self.pending.store(v, Ordering::Release);
    }

    /// The mapping table, locked (a panic elsewhere does not poison the runtime).
    #[inline]
    pub(crate) fn table(&self) -> MutexGuard<'_, Table> {
        self.table.lock().unwrap_or_else(PoisonError::into_inner)
    }

    #[inline]
    pub(crate) fn kernel(&self, host_ptr: usize) -> Option<Kernel> {
        let k = self.kernels.read().unwrap_or_else(PoisonError::into_inner);
        k.get(&host_ptr).copied()
    }

    pub(crate) fn forget_kernels(&self, entries: &[OffloadEntry]) {
        let mut k = self.kernels.write().unwrap_or_else(PoisonError::into_inner);
        for e in entries {
            k.remove(&(e.addr as usize));
        }
    }

    /// Loads one image on this device and resolves the host entries against it.
    pub(crate) fn load(&self, elf: &[u8], entries: &[OffloadEntry]) -> Result<Loaded, ()> {
        let loaded = load_elf(elf).map_err(|e| policy::report(format_args!("{e}")))?;
        let handle = loaded.handle as *mut c_void;
        let mut kernels = Vec::new();
        let mut globals = Vec::new();
        for e in entries {
            if e.flags & ENTRY_REQUIRES != 0 && e.addr.is_null() {
                continue;
            }
            // SAFETY: the handle is live and the name a NUL-terminated string of the program.
            let sym = unsafe { libc::dlsym(handle, e.name) } as usize;
            let name = c_str(e.name);
            if sym == 0 {
                let what = if e.size == 0 { "kernel" } else { "symbol" };
                policy::report(format_args!("Failed to load {what} {name}"));
                unload(loaded);
                return Err(());
            }
            if e.size == 0 {
                kernels.push((
                    e.addr as usize,
                    Kernel {
                        func: sym,
                        name: e.name as usize,
                    },
                ));
            } else {
                let indirect = e.flags & ENTRY_INDIRECT != 0;
                globals.push((e.addr as usize, e.size, sym, indirect, e.name as usize));
            }
        }
        {
            let mut t = self.table();
            for (host, size, sym, indirect, name) in globals {
                if t.tgt_ptr_quiet(host, size as i64).is_some() {
                    continue;
                }
                let mut tgt = sym;
                if indirect {
                    // The device symbol holds the device address; 19 reads it back with a
                    // transfer (and reports it).
                    let local = (&raw mut tgt) as usize;
                    let n = t.name_at(local, 8);
                    copy(self.id, false, local, sym, 8, n);
                }
                t.insert_inf(host, size, tgt, name);
            }
        }
        let mut k = self.kernels.write().unwrap_or_else(PoisonError::into_inner);
        k.extend(kernels);
        Ok(loaded)
    }

    /// Calls a kernel with its arguments (the implicit launch-environment pointer first for
    /// version 3 callers).
    /// `grid` is (teams, threads) as the construct asked (0: unspecified); the host plugin
    /// reports them and libomp, called by the kernel itself, makes the teams and threads.
    pub(crate) fn launch(&self, k: Kernel, args: &[usize], grid: (u32, u32)) {
        if policy::info_level() & info::PLUGIN_KERNEL != 0 {
            policy::plugin_info(
                self.id,
                format_args!(
                    "Launching kernel {} with {} blocks and {} threads in Generic mode",
                    c_str(k.name as *const c_char),
                    grid.0.max(1),
                    grid.1.max(1)
                ),
            );
        }
        // SAFETY: func is an outlined host-target function taking args.len() pointer-sized
        // arguments (clang's host-target ABI).
        unsafe { crate::call::call(k.func, args) }
    }

    /// LLVM's `dumpTargetPointerMappings`.
    pub(crate) fn dump_table(&self, loc: *const Ident, to_stdout: bool) {
        let id = self.id;
        let line = |s: String| {
            let s = format!("omptarget device {id} info: {s}\n");
            if to_stdout {
                use std::io::Write;
                let mut o = std::io::stdout().lock();
                let _ = o.write_all(s.as_bytes());
                let _ = o.flush();
            } else {
                policy::emit(&s);
            }
        };
        let t = self.table();
        if t.map.is_empty() {
            line("OpenMP Host-Device pointer mappings table empty".to_owned());
            return;
        }
        let k = SourceInfo::from_loc(loc);
        line(format!(
            "OpenMP Host-Device pointer mappings after block at {}:{}:{}:",
            k.file(),
            k.num(2),
            k.num(3)
        ));
        line(format!(
            "{:<18} {:<18} {} {} {} {}",
            "Host Ptr", "Target Ptr", "Size (B)", "DynRefCount", "HoldRefCount", "Declaration"
        ));
        let cnt = |c: u64| {
            if c == crate::mapping::INF {
                "INF".to_owned()
            } else {
                c.to_string()
            }
        };
        for e in t.map.values() {
            let i = SourceInfo::from_name(e.name as *const c_void);
            line(format!(
                "{} {} {:<8} {:<11} {:<12} {} at {}:{}:{}",
                P(e.begin),
                P(e.tgt_begin),
                e.end - e.begin,
                cnt(e.dyn_ref),
                cnt(e.hold_ref),
                i.name(),
                i.file(),
                i.num(2),
                i.num(3)
            ));
        }
    }
}

/// Writes the image to a memfd and `dlopen`s it from `/proc/self/fd/N`. The descriptor stays
/// open while the image is loaded: glibc recognises an already loaded object by its path, and
/// a reused descriptor number would otherwise alias an earlier image.
fn load_elf(elf: &[u8]) -> Result<Loaded, String> {
    // SAFETY: memfd_create with a NUL-terminated name.
    let fd = unsafe { libc::memfd_create(c"omptarget-image".as_ptr(), libc::MFD_CLOEXEC) };
    if fd < 0 {
        return Err("Failed to create tmpfile for loading target image".to_owned());
    }
    let mut rest = elf;
    while !rest.is_empty() {
        // SAFETY: writing initialised bytes of a live slice to our own descriptor.
        let n = unsafe { libc::write(fd, rest.as_ptr().cast(), rest.len()) };
        if n <= 0 {
            // SAFETY: closing the descriptor opened above.
            unsafe { libc::close(fd) };
            return Err(format!(
                "Failed to write target image to tmpfile /proc/self/fd/{fd}"
            ));
        }
        rest = rest.get(n as usize..).unwrap_or_default();
    }
    let path = CString::new(format!("/proc/self/fd/{fd}")).unwrap_or_default();
    // SAFETY: dlopen of a path we built; the image's constructors run here, as in LLVM 19.
    let handle = unsafe { libc::dlopen(path.as_ptr(), libc::RTLD_LAZY | libc::RTLD_GLOBAL) };
    if handle.is_null() {
        // SAFETY: dlerror returns a thread-local message or NULL.
        let err = c_str(unsafe { libc::dlerror() }).into_owned();
        // SAFETY: closing the descriptor opened above.
        unsafe { libc::close(fd) };
        return Err(format!("Failed to load target image: {err}"));
    }
    Ok(Loaded {
        handle: handle as usize,
        fd,
    })
}

/// Closes a loaded image (running the device destructors) and its descriptor.
pub(crate) fn unload(l: Loaded) {
    // SAFETY: the handle came from dlopen and is closed once; the descriptor is ours.
    unsafe {
        libc::dlclose(l.handle as *mut c_void);
        libc::close(l.fd);
    }
}
