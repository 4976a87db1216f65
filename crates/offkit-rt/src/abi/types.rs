//! The C structures of the ABI between the code clang emits, the linker wrapper's registration
//! code and the runtime (LLVM's `omptarget.h`, `llvm/Frontend/Offloading/Utility.h`), and the
//! flags of their entries. Each is `#[repr(C)]` as LLVM lays it out; the runtime reads them only
//! through the entry points (`ffi`) and `abi::entries`.
use std::ffi::{c_char, c_uint, c_void};

/// `OMP_DECLARE_TARGET_INDIRECT`: the entry is an indirect function pointer (the device symbol
/// holds the device address).
pub(crate) const ENTRY_INDIRECT: u32 = 0x8;
/// `OMP_REGISTER_REQUIRES`: the entry carries `#pragma omp requires` bits in its data.
pub(crate) const ENTRY_REQUIRES: u32 = 0x10;
/// LLVM 22's `OMP_DECLARE_TARGET_INDIRECT_VTABLE`: the entry is not looked up in the image.
pub(crate) const ENTRY_INDIRECT_VTABLE: u32 = 0x20;

/// `ident_t`: a source location (`psource` is `;file;function;line;col;;`).
#[repr(C)]
#[derive(Debug)]
pub(crate) struct Ident {
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
pub(crate) struct OffloadEntry {
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
pub(crate) struct DeviceImage {
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
pub(crate) struct BinDesc {
    /// The number of device images.
    pub num_device_images: i32,
    /// The device images.
    pub device_images: *const DeviceImage,
    /// The host entry table.
    pub host_entries_begin: *const OffloadEntry,
    /// One past its end.
    pub host_entries_end: *const OffloadEntry,
}

/// `__tgt_image_info`: AMD's image-info registration (`__tgt_register_image_info`, one per image).
#[repr(C)]
#[derive(Debug)]
pub(crate) struct ImageInfo {
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
pub(crate) struct KernelArgs {
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
pub(crate) struct NonContig {
    /// The first element.
    pub offset: u64,
    /// The number of elements.
    pub count: u64,
    /// The distance between elements, in bytes.
    pub stride: u64,
}

/// LLVM 22's `llvm::offloading::EntryTy` (56 bytes; `Reserved` is 0 so the older 32-byte layout,
/// which starts with a non-null address, can be told apart).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub(crate) struct EntryV22 {
    /// 0 (tells the layout from the 32-byte one, whose first word is an address).
    pub reserved: u64,
    /// 1.
    pub version: u16,
    /// `object::OffloadKind` as bit flags ([`OFK_OPENMP_22`] for OpenMP).
    pub kind: u16,
    /// `OMP_DECLARE_TARGET_*` flags, [`ENTRY_REQUIRES`] for requires entries.
    pub flags: u32,
    /// The host address of the kernel's region id or of the global.
    pub addr: *mut c_void,
    /// The symbol name in the device image.
    pub name: *const c_char,
    /// 0 for kernels, the size of a global.
    pub size: u64,
    /// The requires bits of a requires entry.
    pub data: u64,
    /// An auxiliary address (unused by OpenMP).
    pub aux_addr: *mut c_void,
}

/// `object::OffloadKind::OFK_OpenMP` in LLVM 22's numbering (bit flags).
pub(crate) const OFK_OPENMP_22: u16 = 1;

/// CUDA's `dim3`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Dim3 {
    /// x.
    pub x: c_uint,
    /// y.
    pub y: c_uint,
    /// z.
    pub z: c_uint,
}
