//! The two runtimes this crate builds, and every difference between them in one table.
//!
//! The same objects are linked twice (build.rs): as LLVM 19's `libomptarget.so.19.1`, which
//! clang-19 programs load, and as LLVM 22's `libomptarget.so.22.1`, which clang-22 programs
//! load. A program names the library by its SONAME, so the SONAME the runtime was loaded under
//! says which release it stands in for; it is read once, from the runtime's own dynamic section
//! ([`abi`]). Code linked into something else (the `offkit` executable, unit tests) is LLVM 19's.
//!
//! What differs between the releases is a field of [`Abi`], set in [`V19`] and [`V22`]:
//!
//! | | LLVM 19 | LLVM 22 |
//! | --- | --- | --- |
//! | host entries (`__tgt_bin_desc`) | 32-byte `__tgt_offload_entry` | 56-byte `llvm::offloading::EntryTy` (`Reserved` 0, `Version` 1, `Kind`), older tables upgraded |
//! | a kernel or global missing from the image | the load fails | reported; a global keeps its host address, a kernel is left out |
//! | `getDevice` of a bad number | `Device number 'N' out of range, …` | `invalid value device number 'N' out of range, …` (an `OffloadError`) |
//! | images loaded by | the first construct on the device | every device lookup, `omp_*` routines too |
//! | an image that does not load | fails the construct | fatal (`failed to load images on device 'N'`) |
//! | `OMP_TARGET_OFFLOAD=disabled` | four devices, constructs run on the host | no plugin, no device |
//! | `omp_target_disassociate_ptr(NULL, …)` | `Call to omp_target_associate_ptr with invalid host_ptr` | `Call to omp_target_disassociate_ptr …` |
//! | `use_device_ptr` of unmapped data | device pointer 0 minus the offset | the host pointer |
//! | `map(to)` over a struct whose pointer is attached | copied | not copied again (the attached pointer survives) |
//! | kernel launch INFO | `N blocks and M threads` | `[N,1,1] blocks and [M,1,1] threads` |
//! | `begin nowait` INFO region | `begin_nowait_mapper` | `being_nowait_mapper` |
//! | pointers in error reports | `0x%016lx` | `0x%lx` (`raw_ostream`) |
//! | last unregistration | tables dumped, `device_finalize` for all, images closed (reverse) | per device: images closed, `device_finalize`; then the tables |
//!
//! The mapping rules clang-22 needs and clang-19 never exercises (`ATTACH` entries, see
//! `attach.rs`) are not in the table: a clang-19 program has no such entries, so both runtimes
//! follow LLVM 22 there. The entry points only LLVM 22 exports are `ffi/v22.rs`; `exports.map`
//! keeps them out of the 19 library.
//!
//! The C structures both releases share, and the flag words of their entries, are [`types`] and
//! [`map_type`].
use std::ffi::{c_char, c_int, c_void, CStr};
use std::sync::OnceLock;

pub(crate) mod map_type;
mod types;

pub(crate) use types::{
    BinDesc, DeviceImage, Dim3, EntryV22, Ident, ImageInfo, KernelArgs, NonContig, OffloadEntry,
    ENTRY_INDIRECT, ENTRY_INDIRECT_VTABLE, ENTRY_REQUIRES, OFK_OPENMP_22,
};

/// How one release's runtime behaves where the releases differ.
#[derive(Debug)]
pub(crate) struct Abi {
    /// The SONAME of its runtime.
    pub soname: &'static str,
    /// Whether descriptors carry LLVM 22's 56-byte entries (older 32-byte tables are detected by
    /// their non-zero first word and upgraded, as LLVM 22's `upgradeLegacyEntries` does); LLVM
    /// 19 reads 32-byte entries only.
    pub entries_v22: bool,
    /// Whether a kernel or global missing from a loaded image fails the load (19); LLVM 22
    /// reports it and keeps going with the host address.
    pub missing_symbol_fails: bool,
    /// What precedes `'N' out of range, only M devices available` in the fatal error.
    pub out_of_range: &'static str,
    /// Whether every device lookup (`getDevice`: constructs and `omp_*` routines alike) loads
    /// the device's pending images, a failure being fatal (22); LLVM 19 loads them for
    /// constructs only, a failure failing the construct.
    pub device_lookup_loads: bool,
    /// Whether `OMP_TARGET_OFFLOAD=disabled` keeps every plugin unloaded, so that there are no
    /// devices at all (22: `omp_get_num_devices()` is 0 and the initial device is 0); LLVM 19
    /// still has its four devices and runs every construct on the host.
    pub disabled_has_no_devices: bool,
    /// The routine `omp_target_disassociate_ptr`'s NULL-pointer error names (19 names the
    /// associate routine; 22 prints `__func__`).
    pub disassociate_name: &'static str,
    /// Whether `use_device_ptr`/`use_device_addr` of data that is not mapped gives the host
    /// pointer (22) instead of the null device pointer minus the section's offset (19).
    pub use_device_ptr_host_fallback: bool,
    /// Whether a `to` copy of a new or `always` mapping is skipped when a pointer inside it is
    /// attached (22's "multiple new mappings" guard).
    pub to_copy_spares_attached: bool,
    /// Whether the plugin's kernel launch INFO line shows three-dimensional grids.
    pub launch_info_3d: bool,
    /// The INFO region name of `__tgt_target_data_begin_nowait_mapper`.
    pub begin_nowait_region: &'static str,
    /// Whether pointers in error reports are zero-padded to 16 digits (19's printf `DPxMOD`;
    /// 22 streams them to `raw_ostream`: `0x` and the digits).
    pub report_ptr_padded: bool,
    /// What ends the report of a private argument that could not be allocated.
    pub private_arg_end: &'static str,
    /// How the last unregistration takes the devices down.
    pub deinit: Deinit,
}

/// The order of the runtime's deinitialisation at the last `__tgt_unregister_lib`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Deinit {
    /// LLVM 19: the mapping tables are dumped (`LIBOMPTARGET_INFO` bit 4, devices in reverse
    /// order), every device gets OMPT's `device_finalize`, then all images close in reverse
    /// load order (device destructors run after `device_finalize`).
    TablesFinalizeImages,
    /// LLVM 22 (`deinitRuntime`: `GenericDeviceTy::deinit` per device, then `~DeviceTy`): device
    /// by device, its images close in load order and then `device_finalize` is reported; the
    /// tables are dumped after every device (in reverse order).
    PerDeviceThenTables,
}

/// LLVM 19.1's runtime, as Debian 12 ships it.
pub(crate) static V19: Abi = Abi {
    soname: "libomptarget.so.19.1",
    entries_v22: false,
    missing_symbol_fails: true,
    out_of_range: "Device number",
    device_lookup_loads: false,
    disabled_has_no_devices: false,
    disassociate_name: "omp_target_associate_ptr",
    use_device_ptr_host_fallback: false,
    to_copy_spares_attached: false,
    launch_info_3d: false,
    begin_nowait_region: "Entering OpenMP data region with begin_nowait_mapper",
    report_ptr_padded: true,
    private_arg_end: "",
    deinit: Deinit::TablesFinalizeImages,
};

/// LLVM 22.1's runtime (built from LLVM's sources; Debian 13 ships none).
pub(crate) static V22: Abi = Abi {
    soname: "libomptarget.so.22.1",
    entries_v22: true,
    missing_symbol_fails: false,
    out_of_range: "invalid value device number",
    device_lookup_loads: true,
    disabled_has_no_devices: true,
    disassociate_name: "omp_target_disassociate_ptr",
    use_device_ptr_host_fallback: true,
    to_copy_spares_attached: true,
    launch_info_3d: true,
    begin_nowait_region: "Entering OpenMP data region with being_nowait_mapper",
    report_ptr_padded: false,
    private_arg_end: ".",
    deinit: Deinit::PerDeviceThenTables,
};

/// The release this runtime stands in for: LLVM 22's when it was loaded as
/// `libomptarget.so.22.1`, otherwise LLVM 19's. Decided once.
#[inline]
pub(crate) fn abi() -> &'static Abi {
    static ABI: OnceLock<&'static Abi> = OnceLock::new();
    ABI.get_or_init(|| match own_soname().as_deref() {
        Some(s) if s == V22.soname => &V22,
        _ => &V19,
    })
}

/// A host entry of a registered descriptor, whichever layout it came in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Entry {
    /// The host address of the kernel's region id or of the global.
    pub addr: usize,
    /// The symbol name in the device image (a C string of the program), 0 for none.
    pub name: usize,
    /// 0 for kernels, the size of a global.
    pub size: usize,
    /// `OMP_DECLARE_TARGET_*` flags, `0x10` for requires entries.
    pub flags: u32,
    /// The requires bits of a requires entry.
    pub data: i64,
}

impl Entry {
    /// The entry's name as a C string pointer.
    pub(crate) fn name_ptr(&self) -> *const c_char {
        self.name as *const c_char
    }
}

/// The host entries `[begin, end)` of a descriptor as this release reads them: LLVM 19 reads
/// 32-byte entries; LLVM 22 reads its own 56-byte ones (keeping the OpenMP ones) or, when the
/// first word is not 0, upgrades a 32-byte table.
///
/// # Safety
/// `[begin, end)` is the live entry table of a registered descriptor (or empty).
pub(crate) unsafe fn entries(abi: &Abi, begin: usize, end: usize) -> Vec<Entry> {
    if begin == 0 || end <= begin {
        return Vec::new();
    }
    // SAFETY: a non-empty table holds at least one word (both layouts start with 8 bytes).
    let first_word = unsafe { *(begin as *const u64) };
    if abi.entries_v22 && first_word == 0 {
        let n = (end - begin) / std::mem::size_of::<EntryV22>();
        // SAFETY: the caller's table, in LLVM 22's layout (its first word is the zero
        // `Reserved` field).
        let raw = unsafe { std::slice::from_raw_parts(begin as *const EntryV22, n) };
        return raw
            .iter()
            .filter(|e| e.kind == OFK_OPENMP_22)
            .map(|e| Entry {
                addr: e.addr as usize,
                name: e.name as usize,
                size: e.size as usize,
                flags: e.flags,
                data: e.data as i64,
            })
            .collect();
    }
    let n = (end - begin) / std::mem::size_of::<OffloadEntry>();
    // SAFETY: the caller's table in the 32-byte layout clang-19 emits.
    let raw = unsafe { std::slice::from_raw_parts(begin as *const OffloadEntry, n) };
    raw.iter()
        .map(|e| Entry {
            addr: e.addr as usize,
            name: e.name as usize,
            size: e.size,
            flags: e.flags as u32,
            data: i64::from(e.data),
        })
        .collect()
}

/// `Elf64_Dyn`.
#[repr(C)]
#[derive(Clone, Copy)]
struct Dyn {
    tag: i64,
    val: u64,
}

const DT_NULL: i64 = 0;
const DT_STRTAB: i64 = 5;
const DT_SONAME: i64 = 14;
/// More dynamic entries than any object has: the walk stops here whatever happens.
const MAX_DYN: usize = 4096;

/// The SONAME of the object this code was loaded from (none for an executable).
fn own_soname() -> Option<String> {
    struct Query {
        addr: usize,
        soname: Option<String>,
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
        let phdrs = unsafe { std::slice::from_raw_parts(info.dlpi_phdr, info.dlpi_phnum.into()) };
        let base = info.dlpi_addr as usize;
        let ours = phdrs.iter().any(|ph| {
            let s = base.wrapping_add(ph.p_vaddr as usize);
            ph.p_type == libc::PT_LOAD
                && s <= q.addr
                && q.addr < s.wrapping_add(ph.p_memsz as usize)
        });
        if !ours {
            return 0;
        }
        let Some(dynamic) = phdrs.iter().find(|ph| ph.p_type == libc::PT_DYNAMIC) else {
            return 1;
        };
        let table = base.wrapping_add(dynamic.p_vaddr as usize) as *const Dyn;
        let (mut strtab, mut soname) = (None, None);
        for i in 0..MAX_DYN {
            // SAFETY: the loaded object's dynamic section, a DT_NULL-terminated array.
            let d = unsafe { *table.add(i) };
            match d.tag {
                DT_NULL => break,
                DT_STRTAB => strtab = Some(d.val as usize),
                DT_SONAME => soname = Some(d.val as usize),
                _ => {}
            }
        }
        if let (Some(strtab), Some(offset)) = (strtab, soname) {
            // glibc relocates DT_STRTAB in place; an unrelocated one is below the load base.
            let strtab = if strtab < base { base + strtab } else { strtab };
            // SAFETY: the dynamic string table of a loaded object holds NUL-terminated names.
            let name = unsafe { CStr::from_ptr((strtab + offset) as *const c_char) };
            q.soname = Some(name.to_string_lossy().into_owned());
        }
        1
    }
    let mut q = Query {
        addr: own_soname as *const () as usize,
        soname: None,
    };
    // SAFETY: the callback only reads the headers and dynamic sections it is given and writes
    // our Query.
    unsafe { libc::dl_iterate_phdr(Some(visit), (&raw mut q).cast()) };
    q.soname
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_outside_a_runtime_library_is_llvm_19s() {
        assert!(std::ptr::eq(abi(), &V19));
        assert!(own_soname().is_none());
    }

    fn legacy(addr: usize, flags: i32, data: i32) -> OffloadEntry {
        OffloadEntry {
            addr: addr as *mut c_void,
            name: c"k".as_ptr(),
            size: 0,
            flags,
            data,
        }
    }

    fn v22(kind: u16, addr: usize, flags: u32, data: u64) -> EntryV22 {
        EntryV22 {
            reserved: 0,
            version: 1,
            kind,
            flags,
            addr: addr as *mut c_void,
            name: c"g".as_ptr(),
            size: 4,
            data,
            aux_addr: std::ptr::null_mut(),
        }
    }

    fn range<T>(v: &[T]) -> (usize, usize) {
        let b = v.as_ptr() as usize;
        (b, b + std::mem::size_of_val(v))
    }

    #[test]
    fn entries_of_both_layouts() {
        assert_eq!(std::mem::size_of::<EntryV22>(), 56);
        let old = [legacy(0x1000, 0, 0), legacy(0x2000, 0x10, 8)];
        let (b, e) = range(&old);
        for abi in [&V19, &V22] {
            // SAFETY: a live table of the stated layout.
            let got = unsafe { entries(abi, b, e) };
            assert_eq!(got.len(), 2);
            assert_eq!((got[1].addr, got[1].flags, got[1].data), (0x2000, 0x10, 8));
        }
        let new = [
            v22(1, 0x1000, 0, 0),
            v22(2, 0x3000, 0, 0),
            v22(1, 0, 0x10, 0x8),
        ];
        let (b, e) = range(&new);
        // SAFETY: as above.
        let got = unsafe { entries(&V22, b, e) };
        assert_eq!(got.len(), 2, "the CUDA entry is not OpenMP's");
        assert_eq!((got[0].addr, got[0].size), (0x1000, 4));
        assert_eq!((got[1].flags, got[1].data), (0x10, 8));
        // SAFETY: an empty table.
        assert!(unsafe { entries(&V22, b, b) }.is_empty());
    }
}
