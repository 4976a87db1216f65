//! The plugin interface: what the runtime asks of a kind of device (LLVM 19's
//! `GenericPluginTy`/`GenericDeviceTy` reduced to what offkit uses). The registry, the mapping
//! table, the kernel launch and the `omp_target_*` routines reach device memory and images
//! only through it, so an AMD GPU (HSA) or CUDA plugin is one more implementation: its devices
//! take numbers after the host plugin's, its images are those of its triple, and its target
//! IDs come from `arch` (`kfd node N`, `cuda device N`).
//!
//! Addresses are `usize` (device pointers of a GPU plugin are not host pointers); the runtime
//! never dereferences a device address itself except through [`Plugin::data_submit`] and
//! [`Plugin::data_retrieve`]. Only the host plugin exists ([`host`], its memory manager
//! [`memory`]): no GPU here to test another.
use std::ffi::CStr;

use crate::Error;

mod host;
pub(crate) mod memory;

pub(crate) use host::HOST;

/// The number of devices of the host plugin (a compile-time constant in LLVM).
pub(crate) const HOST_DEVICES: usize = 4;

/// An image loaded on a device: the plugin's handle and one more word it may need (the host
/// plugin's memfd).
#[derive(Debug)]
pub(crate) struct Image {
    /// The device it was loaded on.
    pub device: i32,
    handle: usize,
    aux: usize,
}

/// The kinds of memory besides the default (LLVM's `TargetAllocTy`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum AllocKind {
    /// Device memory (`TARGET_ALLOC_DEVICE`): the default kind's memory manager.
    Device,
    /// Pinned host memory (`TARGET_ALLOC_HOST`).
    Host,
    /// Shared memory (`TARGET_ALLOC_SHARED`).
    Shared,
}

/// A kind of offload device.
pub(crate) trait Plugin: Sync {
    /// How many devices it has.
    fn num_devices(&self) -> usize;
    /// Loads an ELF image on `device` (device constructors run here, as in LLVM 19).
    fn load_image(&self, device: i32, elf: &[u8]) -> Result<Image, Error>;
    /// The device address of `name` in a loaded image (a kernel or a global).
    fn symbol(&self, image: &Image, name: &CStr) -> Option<usize>;
    /// Unloads an image (device destructors run here).
    fn unload_image(&self, image: Image);
    /// Allocates `size` bytes (at least one) of device memory.
    fn data_alloc(&self, device: i32, size: usize) -> Option<usize>;
    /// Frees memory from [`Plugin::data_alloc`].
    fn data_delete(&self, device: i32, tgt: usize);
    /// Allocates memory of another kind than the default (`llvm_omp_target_alloc_host`,
    /// `_shared`); by default the same as [`Plugin::data_alloc`].
    fn data_alloc_kind(&self, device: i32, size: usize, _kind: AllocKind) -> Option<usize> {
        self.data_alloc(device, size)
    }
    /// Frees memory of a kind (`llvm_omp_target_free_host`, `_shared`).
    fn data_delete_kind(&self, device: i32, tgt: usize, _kind: AllocKind) {
        self.data_delete(device, tgt)
    }
    /// Copies `size` bytes from host memory to device memory.
    fn data_submit(&self, device: i32, tgt: usize, host: usize, size: usize);
    /// Copies `size` bytes from device memory to host memory.
    fn data_retrieve(&self, device: i32, host: usize, tgt: usize, size: usize);
    /// Runs a kernel (the device address of its function) with pointer-sized arguments and
    /// waits for it.
    fn launch(&self, device: i32, func: usize, args: &[usize]);
}

/// The plugin that runs `device` (there is one today).
#[inline]
pub(crate) fn of(_device: i32) -> &'static dyn Plugin {
    &HOST
}

/// How many devices the plugins have together: the devices the runtime makes at the first
/// registration, and the initial (host) device's number, as `omp_get_initial_device` counts.
pub(crate) fn device_count() -> usize {
    HOST.num_devices()
}
