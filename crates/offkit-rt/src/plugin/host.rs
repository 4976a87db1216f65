//! The host plugin: devices that run the images in this process (LLVM's `GenELF64` plugin,
//! `plugins-nextgen/host`). An image is written to a `memfd` and `dlopen`ed from
//! `/proc/self/fd/N`; device memory is `malloc`ed host memory behind LLVM's memory manager
//! ([`super::memory`]); a kernel is called on the calling thread through the SysV trampoline
//! (`call.rs`).
use std::ffi::{c_int, c_void, CStr, CString};

use super::{memory, AllocKind, Image, Plugin};
use crate::log::c_str;
use crate::Error;

/// The host plugin.
#[derive(Debug)]
pub(crate) struct Host;

/// The one host plugin.
pub(crate) static HOST: Host = Host;

impl Plugin for Host {
    fn num_devices(&self) -> usize {
        super::HOST_DEVICES
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
        memory::alloc(device, size)
    }

    fn data_delete(&self, device: i32, tgt: usize) {
        memory::free(device, tgt);
    }

    /// Host and shared memory bypass the memory manager (LLVM 19's `dataAlloc`).
    fn data_alloc_kind(&self, device: i32, size: usize, kind: AllocKind) -> Option<usize> {
        match kind {
            AllocKind::Device => self.data_alloc(device, size),
            AllocKind::Host | AllocKind::Shared => memory::host_alloc(size),
        }
    }

    fn data_delete_kind(&self, device: i32, tgt: usize, kind: AllocKind) {
        match kind {
            AllocKind::Device => self.data_delete(device, tgt),
            AllocKind::Host | AllocKind::Shared => memory::host_free(tgt),
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
    use crate::plugin::of;

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
