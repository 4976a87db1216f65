//! Registration: the descriptors of the executable and its shared libraries, in the order their
//! constructors register them; per descriptor and device the image that serves it (the first
//! compatible one, as LLVM 19 chooses); lazy loading of those images on a device's first use;
//! and the runtime's reference count, whose last release closes every loaded image (running
//! the device destructors) in reverse load order.
use std::borrow::Cow;
use std::sync::{Mutex, MutexGuard, OnceLock, PoisonError};

use crate::abi::{self, BinDesc, DeviceImage, Entry, Ident, ENTRY_REQUIRES};
use crate::device::{self, Device, Loaded};
use crate::log::{self, info};
use crate::plugin::{self, HOST_DEVICES};
use crate::{cpu, image, libomp, ompt};

/// A registered image: where its ELF lies (in the program's memory, or unpacked here).
#[derive(Debug, Clone)]
enum Elf {
    Program { ptr: usize, len: usize },
    Owned(std::sync::Arc<[u8]>),
}

impl Elf {
    fn bytes(&self) -> &[u8] {
        match self {
            // SAFETY: the range lies in the registered program's image data, which stays
            // mapped while its descriptor is registered (tables are dropped at unregistration).
            Elf::Program { ptr, len } => unsafe {
                std::slice::from_raw_parts(*ptr as *const u8, *len)
            },
            Elf::Owned(v) => v,
        }
    }
}

/// LLVM's translation table: one per descriptor, with its host entries as this release reads
/// them (`abi::entries`).
#[derive(Debug)]
struct TransTable {
    host_begin: usize,
    entries: Vec<Entry>,
    images: [Option<Elf>; HOST_DEVICES],
    loaded: [bool; HOST_DEVICES],
}

/// The host entries of a descriptor.
///
/// # Safety
/// `d` is a registered descriptor as the linker wrapper emits it.
unsafe fn entries(d: &BinDesc) -> Vec<Entry> {
    let (begin, end) = (d.host_entries_begin as usize, d.host_entries_end as usize);
    // SAFETY: [begin, end) is the descriptor's host entry table (the linker's
    // __start_/__stop_ of the entries section), live while the descriptor is registered.
    unsafe { abi::entries(abi::abi(), begin, end) }
}

#[derive(Debug, Default)]
struct Registry {
    refcount: usize,
    requires: Option<i64>,
    tables: Vec<TransTable>,
    loaded: Vec<Loaded>,
    /// `__tgt_register_image_info` records (image number, target ID) for the next descriptor.
    image_infos: Vec<(usize, String)>,
}

static REGISTRY: Mutex<Registry> = Mutex::new(Registry {
    refcount: 0,
    requires: None,
    tables: Vec::new(),
    loaded: Vec::new(),
    image_infos: Vec::new(),
});
static DEVICES: OnceLock<Box<[Device]>> = OnceLock::new();

fn registry() -> MutexGuard<'static, Registry> {
    REGISTRY.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The devices (none until a compatible image was registered).
#[inline]
pub(crate) fn devices() -> &'static [Device] {
    DEVICES.get().map_or(&[], |d| d)
}

#[inline]
pub(crate) fn num_devices() -> usize {
    devices().len()
}

#[inline]
pub(crate) fn device(n: usize) -> Option<&'static Device> {
    devices().get(n)
}

fn add_requirements(reg: &mut Registry, flags: i64) {
    let Some(set) = reg.requires else {
        reg.requires = Some(flags);
        return;
    };
    for (bit, clause) in [
        (0x2, "reverse_offload"),
        (0x4, "unified_address"),
        (0x8, "unified_shared_memory"),
        (0x10, "dynamic_allocators"),
    ] {
        if set & bit != flags & bit {
            log::fatal(
                2,
                format_args!("'#pragma omp requires {clause}' not used consistently!"),
            );
        }
    }
}

/// `__tgt_register_lib`.
///
/// # Safety
/// `desc` points to a descriptor as the linker wrapper emits it, live until unregistered.
pub(crate) unsafe fn register(desc: *const BinDesc) {
    if desc.is_null() {
        return;
    }
    // SAFETY: the caller's contract.
    let d = unsafe { &*desc };
    // As 19's initRuntime: OMPT connects first, once (libomp starts the tool, which may call
    // omp_* routines: no lock is held).
    ompt::connect();
    let mut reg = registry();
    if reg.refcount == 0 {
        // LLVM 19 asks libomp for the offload policy while it initialises, which initialises
        // libomp and so orders libomp's exit handler after the descriptor's (libomp flushes
        // stdout when it shuts down: the runtime's exit messages come first, as with 19).
        libomp::target_offload();
    }
    reg.refcount += 1;
    let hb = d.host_entries_begin as usize;
    // SAFETY: the caller's contract.
    let ents = unsafe { entries(d) };
    for e in &ents {
        if e.flags == ENTRY_REQUIRES {
            add_requirements(&mut reg, e.data);
        }
    }
    if abi::abi().disabled_has_no_devices && libomp::target_offload() == 0 {
        // LLVM 22 loads no plugin when offloading is disabled: no device takes the images.
        return;
    }
    let infos = std::mem::take(&mut reg.image_infos);
    // SAFETY: the caller's contract.
    let candidates = unsafe { candidates(d, &infos) };
    let Some(best) = select(&candidates) else {
        return;
    };
    let chosen: [Option<Elf>; HOST_DEVICES] =
        std::array::from_fn(|_| candidates.get(best).map(|c| c.1.clone()));
    let devs = make_devices();
    let usm = reg.requires.is_some_and(|r| r & 0x8 != 0);
    match reg.tables.iter_mut().find(|t| t.host_begin == hb) {
        Some(t) => {
            for (slot, img) in t.images.iter_mut().zip(chosen) {
                if slot.is_none() {
                    *slot = img;
                }
            }
        }
        None => reg.tables.push(TransTable {
            host_begin: hb,
            entries: ents,
            images: chosen,
            loaded: [false; HOST_DEVICES],
        }),
    }
    for dev in devs {
        dev.table().usm = usm;
        dev.set_pending(true);
    }
}

/// The device images of a descriptor that the host plugin runs (its ELF, unwrapped from an
/// offload binary), with their number in the descriptor and target ID: from
/// `__tgt_register_image_info`, the offload binary they came in, or the one around them.
///
/// # Safety
/// `d` is a registered descriptor as the linker wrapper emits it.
unsafe fn candidates(d: &BinDesc, infos: &[(usize, String)]) -> Vec<(usize, Elf, String)> {
    let n = usize::try_from(d.num_device_images).unwrap_or(0);
    let images: &[DeviceImage] = if n == 0 || d.device_images.is_null() {
        &[]
    } else {
        // SAFETY: the descriptor's image array has NumDeviceImages entries.
        unsafe { std::slice::from_raw_parts(d.device_images, n) }
    };
    let mut candidates = Vec::new();
    for (idx, img) in images.iter().enumerate() {
        let (start, end) = (img.image_start as usize, img.image_end as usize);
        if start == 0 || end < start {
            continue;
        }
        // SAFETY: [ImageStart, ImageEnd) is the image's data in the program.
        let bytes = unsafe { std::slice::from_raw_parts(start as *const u8, end - start) };
        let Some((elf, wrapped_arch)) = image::unwrap(bytes) else {
            continue;
        };
        if !image::host_compatible(&elf) {
            continue;
        }
        let arch = infos
            .iter()
            .find(|(n, _)| *n == idx)
            .map(|(_, a)| a.clone())
            .or_else(|| image::has_wrapper(bytes).then_some(wrapped_arch))
            .or_else(|| image::arch_around(start, end))
            .unwrap_or_default();
        let elf = match elf {
            Cow::Borrowed(b) => Elf::Program {
                ptr: b.as_ptr() as usize,
                len: b.len(),
            },
            Cow::Owned(v) => Elf::Owned(v.into()),
        };
        candidates.push((idx, elf, arch));
    }
    candidates
}

/// The devices, made at the first registration that has an image for them: as LLVM does then,
/// every device of the plugin is initialised (OMPT's `device_initialize`).
fn make_devices() -> &'static [Device] {
    let mut made = false;
    let devs = DEVICES.get_or_init(|| {
        made = true;
        (0..plugin::device_count() as i32)
            .map(Device::new)
            .collect()
    });
    if made {
        for d in devs.iter() {
            ompt::device_initialize(d.id, (d as *const Device).cast());
        }
    }
    devs
}

/// `__tgt_register_image_info`: the target ID of one image of the descriptor registered next.
pub(crate) fn register_image_info(number: i32, arch: String) {
    if let Ok(n) = usize::try_from(number) {
        registry().image_infos.push((n, arch));
    }
}

/// The image every host device runs: among the compatible ones, the most specific this CPU
/// runs (ties: the last, as LLVM 19, which keeps the last compatible image). With more than one
/// candidate, `LIBOMPTARGET_INFO` (bit 0x1) says which and why.
fn select(candidates: &[(usize, Elf, String)]) -> Option<usize> {
    let mut best: Option<(usize, i32)> = None;
    let mut why = Vec::new();
    for (i, (idx, _, arch)) in candidates.iter().enumerate() {
        match cpu::fit(arch) {
            cpu::Fit::Runs(score) => {
                why.push(format!("image {idx} (arch '{arch}') runs here"));
                if best.is_none_or(|(_, s)| score >= s) {
                    best = Some((i, score));
                }
            }
            cpu::Fit::Lacks(f) => why.push(format!(
                "image {idx} (arch '{arch}') needs {} that this CPU lacks",
                f.join(", ")
            )),
        }
    }
    if candidates.len() > 1 && log::info_level() & info::KERNEL_ARGS != 0 {
        let chosen = best.and_then(|(i, _)| candidates.get(i));
        for dev in 0..HOST_DEVICES as i32 {
            match chosen {
                Some((idx, _, arch)) => log::info(
                    dev,
                    format_args!(
                        "Selected image {idx} (arch '{arch}') of {}: the most specific one this \
                         CPU runs ({})",
                        candidates.len(),
                        why.join("; ")
                    ),
                ),
                None => log::info(
                    dev,
                    format_args!("No image this CPU runs ({})", why.join("; ")),
                ),
            }
        }
    }
    best.map(|(i, _)| i)
}

/// `__tgt_unregister_lib`: forgets the descriptor; the last one closes the images.
///
/// # Safety
/// `desc` is a descriptor given to [`register`].
pub(crate) unsafe fn unregister(desc: *const BinDesc) {
    if desc.is_null() {
        return;
    }
    // SAFETY: the caller's contract.
    let d = unsafe { &*desc };
    let hb = d.host_entries_begin as usize;
    let mut reg = registry();
    for t in reg.tables.iter().filter(|t| t.host_begin == hb) {
        for dev in devices() {
            dev.forget_kernels(&t.entries);
        }
    }
    reg.tables.retain(|t| t.host_begin != hb);
    reg.refcount = reg.refcount.saturating_sub(1);
    if reg.refcount > 0 {
        return;
    }
    let loaded = std::mem::take(&mut reg.loaded);
    reg.requires = None;
    match abi::abi().deinit {
        abi::Deinit::TablesFinalizeImages => {
            // 19 dumps each device's table as the devices go (INFO bit 4), finalises the
            // devices for OMPT, then closes the images.
            dump_tables();
            drop(reg);
            for dev in devices() {
                ompt::device_finalize(dev.id);
            }
            for l in loaded.into_iter().rev() {
                device::unload(l);
            }
        }
        abi::Deinit::PerDeviceThenTables => {
            drop(reg);
            let mut rest = loaded;
            for dev in devices() {
                let (mine, others): (Vec<Loaded>, Vec<Loaded>) =
                    rest.into_iter().partition(|l| l.device == dev.id);
                rest = others;
                for l in mine {
                    device::unload(l);
                }
                ompt::device_finalize(dev.id);
            }
            dump_tables();
        }
    }
}

/// The tables at the runtime's end, devices in reverse order (`LIBOMPTARGET_INFO` bit 4).
fn dump_tables() {
    if log::info_level() & info::DUMP_TABLE != 0 {
        let loc = Ident::libomptarget();
        for dev in devices().iter().rev() {
            dev.dump_table(&loc, false);
        }
    }
}

/// Loads the images registered for `dev` that are not loaded yet, in registration order.
pub(crate) fn load_pending(dev: &Device) -> Result<(), ()> {
    let mut reg = registry();
    let id = dev.id as usize;
    let Registry { tables, loaded, .. } = &mut *reg;
    for t in tables.iter_mut() {
        if t.entries.is_empty() || t.loaded.get(id) != Some(&false) {
            continue;
        }
        let Some(Some(elf)) = t.images.get(id) else {
            continue;
        };
        let l = dev.load(elf.bytes(), &t.entries)?;
        loaded.push(l);
        if let Some(f) = t.loaded.get_mut(id) {
            *f = true;
        }
    }
    dev.set_pending(false);
    Ok(())
}
