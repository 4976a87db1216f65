//! The plugin interface: what the runtime asks of a kind of device (LLVM 19's
//! `GenericPluginTy`/`GenericDeviceTy` reduced to what offkit uses). The registry, the mapping
//! table, the kernel launch and the `omp_target_*` routines reach device memory and images
//! only through it, so an AMD GPU (HSA) or CUDA plugin is one more implementation: its devices
//! take numbers after the host plugin's, its images are those of its triple, and its target
//! IDs come from [`crate::arch`] (`kfd node N`, `cuda device N`).
//!
//! Addresses are `usize` (device pointers of a GPU plugin are not host pointers); the runtime
//! never dereferences a device address itself except through [`Plugin::data_submit`] and
//! [`Plugin::data_retrieve`]. Only the host plugin exists: no GPU here to test another.
use std::ffi::{c_int, c_void, CStr, CString};

use crate::policy::c_str;
use crate::Error;

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

/// The host plugin: devices that run images in this process. Device memory is `malloc`ed
/// host memory behind LLVM's memory manager (`memory.rs`); an image is written to a `memfd` and `dlopen`ed from `/proc/self/fd/N`.
pub(crate) struct Host;

/// The one host plugin.
pub(crate) static HOST: Host = Host;

impl Plugin for Host {
    fn num_devices(&self) -> usize {
        crate::device::HOST_DEVICES
    }

    /// Writes the image to a memfd and `dlopen`s it from `/proc/self/fd/N`. The descriptor
    /// stays open while the image is loaded: glibc recognises an already loaded object by its
    /// path, and a reused descriptor number would otherwise alias an earlier image.
    fn load_image(&self, device: i32, elf: &[u8]) -> Result<Image, Error> {
        // SAFETY: memfd_create with a NUL-terminated name.
        let fd = unsafe { libc::memfd_create(c"omptarget-image".as_ptr(), libc::MFD_CLOEXEC) };
        if fd < 0 {
            return Err(Error::ImageTmpfile);
        }
        let mut rest = elf;
        while !rest.is_empty() {
            // SAFETY: writing initialised bytes of a live slice to our own descriptor.
            let n = unsafe { libc::write(fd, rest.as_ptr().cast(), rest.len()) };
            if n <= 0 {
                // SAFETY: closing the descriptor opened above.
                unsafe { libc::close(fd) };
                return Err(Error::ImageWrite { fd });
            }
            rest = rest.get(n as usize..).unwrap_or_default();
        }
        let path = CString::new(format!("/proc/self/fd/{fd}")).unwrap_or_default();
        // SAFETY: dlopen of a path we built; the image's constructors run here, as in LLVM 19.
        let handle = unsafe { libc::dlopen(path.as_ptr(), libc::RTLD_LAZY | libc::RTLD_GLOBAL) };
        if handle.is_null() {
            // SAFETY: dlerror returns a thread-local message or NULL.
            let reason = c_str(unsafe { libc::dlerror() }).into_owned();
            // SAFETY: closing the descriptor opened above.
            unsafe { libc::close(fd) };
            return Err(Error::ImageLoad { reason });
        }
        Ok(Image {
            device,
            handle: handle as usize,
            aux: fd as usize,
        })
    }

    fn symbol(&self, image: &Image, name: &CStr) -> Option<usize> {
        // SAFETY: the handle is live (images are unloaded by value) and the name NUL-terminated.
        let sym = unsafe { libc::dlsym(image.handle as *mut c_void, name.as_ptr()) } as usize;
        (sym != 0).then_some(sym)
    }

    fn unload_image(&self, image: Image) {
        // SAFETY: the handle came from dlopen and is closed once; the descriptor is ours.
        unsafe {
            libc::dlclose(image.handle as *mut c_void);
            libc::close(image.aux as c_int);
        }
    }

    /// The C allocator behind LLVM 19's memory manager (`memory.rs`).
    fn data_alloc(&self, device: i32, size: usize) -> Option<usize> {
        crate::memory::alloc(device, size)
    }

    fn data_delete(&self, device: i32, tgt: usize) {
        crate::memory::free(device, tgt);
    }

    /// Host and shared memory bypass the memory manager (LLVM 19's `dataAlloc`).
    fn data_alloc_kind(&self, device: i32, size: usize, kind: AllocKind) -> Option<usize> {
        match kind {
            AllocKind::Device => self.data_alloc(device, size),
            AllocKind::Host | AllocKind::Shared => crate::memory::host_alloc(size),
        }
    }

    fn data_delete_kind(&self, device: i32, tgt: usize, kind: AllocKind) {
        match kind {
            AllocKind::Device => self.data_delete(device, tgt),
            AllocKind::Host | AllocKind::Shared => crate::memory::host_free(tgt),
        }
    }

    fn data_submit(&self, _device: i32, tgt: usize, host: usize, size: usize) {
        move_bytes(tgt, host, size);
    }

    fn data_retrieve(&self, _device: i32, host: usize, tgt: usize, size: usize) {
        move_bytes(host, tgt, size);
    }

    fn launch(&self, _device: i32, func: usize, args: &[usize]) {
        // SAFETY: func is an outlined host-target function taking args.len() pointer-sized
        // arguments (clang's host-target ABI).
        unsafe { crate::call::call(func, args) }
    }
}

/// `memmove` between the host plugin's "device" memory and host memory.
fn move_bytes(dst: usize, src: usize, size: usize) {
    if size > 0 && dst != src {
        // SAFETY: both ranges are mapped host/device memory of `size` bytes (the caller looked
        // them up in a mapping table or got them from the user's API call); memmove tolerates
        // overlap.
        unsafe { libc::memmove(dst as *mut c_void, src as *const c_void, size) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The host plugin through the interface alone: memory, transfers, an image built by
    /// clang-19, its symbols and a kernel launch.
    #[test]
    fn the_host_plugin_through_the_interface() {
        let p: &dyn Plugin = of(0);
        assert_eq!(p.num_devices(), 4);
        let tgt = p.data_alloc(1, 16).unwrap();
        let src = *b"0123456789abcdef";
        p.data_submit(1, tgt, src.as_ptr() as usize, 16);
        let mut back = [0u8; 16];
        p.data_retrieve(1, back.as_mut_ptr() as usize, tgt, 16);
        assert_eq!(back, src);
        p.data_delete(1, tgt);

        let dir = tempfile::tempdir().unwrap();
        let c = dir.path().join("k.c");
        std::fs::write(
            &c,
            "int g = 5;\nvoid kern(int *out, long add) { *out = g + (int)add; g = 0; }\n",
        )
        .unwrap();
        let so = dir.path().join("k.so");
        let st = std::process::Command::new(offkit_testutil::clang())
            .args(["-shared", "-fPIC", "-O1"])
            .arg(&c)
            .arg("-o")
            .arg(&so)
            .status()
            .unwrap();
        assert!(st.success());
        let elf = std::fs::read(&so).unwrap();
        let img = p.load_image(2, &elf).unwrap();
        assert_eq!(img.device, 2);
        let kern = p.symbol(&img, c"kern").unwrap();
        let g = p.symbol(&img, c"g").unwrap();
        assert!(p.symbol(&img, c"missing").is_none());
        let mut out = 0i32;
        p.launch(2, kern, &[(&raw mut out) as usize, 37]);
        assert_eq!(out, 42);
        let mut gv = 1i32;
        p.data_retrieve(2, (&raw mut gv) as usize, g, 4);
        assert_eq!(gv, 0);
        p.unload_image(img);
        let err = p.load_image(0, b"not an ELF").unwrap_err();
        assert!(matches!(err, Error::ImageLoad { .. }), "{err:?}");
        assert!(
            err.to_string()
                .starts_with("Failed to load target image: /proc/self/fd/"),
            "{err}"
        );
    }
}
