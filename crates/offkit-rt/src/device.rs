//! The runtime's devices: each has a mapping table and the kernels of its loaded images, and
//! reaches its images, memory and kernels through its [`Plugin`] (today the host plugin: four
//! devices that run images in this process, one copy per device so each has its own globals).
//! An image's entries are resolved by name, its declare-target globals enter the device's
//! mapping table with an infinite count, and its kernels are launched on the calling thread.
use std::collections::HashMap;
use std::ffi::{c_char, c_void, CStr};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError, RwLock};

use crate::abi::{abi, Entry, Ident, ENTRY_INDIRECT, ENTRY_INDIRECT_VTABLE, ENTRY_REQUIRES};
use crate::log::{self, c_str, info, SourceInfo, P};
use crate::mapping::{copy, Table, INF};
use crate::plugin::{self, Image, Plugin};

/// A kernel of a loaded image.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Kernel {
    /// The outlined function in the device image.
    pub func: usize,
    /// Its entry name (a C string of the program), for the launch INFO line.
    pub name: usize,
}

/// An image loaded on a device.
pub(crate) type Loaded = Image;

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

    pub(crate) fn forget_kernels(&self, entries: &[Entry]) {
        let mut k = self.kernels.write().unwrap_or_else(PoisonError::into_inner);
        for e in entries {
            k.remove(&e.addr);
        }
    }

    /// Loads one image on this device and resolves the host entries against it. A missing
    /// symbol fails the load (LLVM 19) or is reported and keeps its host address (LLVM 22).
    pub(crate) fn load(&self, elf: &[u8], entries: &[Entry]) -> Result<Loaded, ()> {
        let plugin = self.plugin();
        let loaded = plugin
            .load_image(self.id, elf)
            .map_err(|e| log::report(format_args!("{e}")))?;
        crate::ompt::device_load(self.id, elf);
        let mut kernels = Vec::new();
        let mut globals = Vec::new();
        for e in entries {
            if e.flags & ENTRY_REQUIRES != 0 && e.addr == 0 {
                continue;
            }
            let sym = if e.name == 0 || e.flags & ENTRY_INDIRECT_VTABLE != 0 {
                0
            } else {
                // SAFETY: a non-null entry name is a NUL-terminated string of the program.
                let cname = unsafe { CStr::from_ptr(e.name_ptr()) };
                plugin.symbol(&loaded, cname).unwrap_or(0)
            };
            let sym = match sym {
                0 if e.flags & ENTRY_INDIRECT_VTABLE != 0 => e.addr,
                0 => {
                    let what = if e.size == 0 { "kernel" } else { "symbol" };
                    log::report(format_args!(
                        "Failed to load {what} {}",
                        c_str(e.name_ptr())
                    ));
                    if abi().missing_symbol_fails {
                        plugin.unload_image(loaded);
                        return Err(());
                    }
                    if e.size == 0 {
                        // LLVM 22 would launch the host region id (data) as the kernel; the
                        // region is left without a kernel instead.
                        continue;
                    }
                    e.addr
                }
                s => s,
            };
            if e.size == 0 {
                kernels.push((
                    e.addr,
                    Kernel {
                        func: sym,
                        name: e.name,
                    },
                ));
            } else {
                let indirect = e.flags & ENTRY_INDIRECT != 0;
                globals.push((e.addr, e.size, sym, indirect, e.name));
            }
        }
        if self.table().usm {
            crate::usm::write_reference_pointers(plugin, self.id, &globals);
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
        if log::info_level() & info::PLUGIN_KERNEL != 0 {
            let (name, blocks, threads) =
                (c_str(k.name as *const c_char), grid.0.max(1), grid.1.max(1));
            if abi().launch_info_3d {
                log::plugin_info(
                    self.id,
                    format_args!(
                        "Launching kernel {name} with [{blocks},1,1] blocks and [{threads},1,1] \
                         threads in Generic mode"
                    ),
                );
            } else {
                log::plugin_info(
                    self.id,
                    format_args!(
                        "Launching kernel {name} with {blocks} blocks and {threads} threads in \
                         Generic mode"
                    ),
                );
            }
        }
        self.plugin().launch(self.id, k.func, args);
    }

    /// The plugin that runs this device.
    #[inline]
    pub(crate) fn plugin(&self) -> &'static dyn Plugin {
        plugin::of(self.id)
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
                log::emit(&s);
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
            if c == INF {
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

/// Closes a loaded image (running the device destructors).
pub(crate) fn unload(l: Loaded) {
    plugin::of(l.device).unload_image(l);
}
