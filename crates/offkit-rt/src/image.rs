//! Device images as registered: raw ELF, or an offload binary around it (LLVM 19's wrapper
//! points inside the binary already; a descriptor may also point at the binary itself).
use std::borrow::Cow;

use offkit_format::binary;

/// ELF `e_machine` of x86-64, the host plugin's.
const EM_X86_64: u16 = 62;

/// Whether the registered bytes are an offload binary (not raw ELF).
pub(crate) fn has_wrapper(bytes: &[u8]) -> bool {
    binary::has_magic(bytes)
}

/// The ELF image of a registered image's bytes and the offload binary's `arch` (empty for raw
/// ELF). A broken offload binary is no image.
pub(crate) fn unwrap(bytes: &[u8]) -> Option<(Cow<'_, [u8]>, String)> {
    if !binary::has_magic(bytes) {
        return Some((Cow::Borrowed(bytes), String::new()));
    }
    let bin = binary::parse_one(bytes, 0).ok()?;
    let entry = bin.entries.into_iter().next()?;
    let arch = entry.arch().into_owned();
    Some((entry.image, arch))
}

/// The `arch` of the offload binary an image lies in, when the wrapper points inside one (LLVM
/// 19's `ImageStart` is the ELF inside the binary, whose header precedes it in the same
/// segment). Only memory of the loaded segment holding the image is read.
pub(crate) fn arch_around(start: usize, end: usize) -> Option<String> {
    let (seg_start, seg_end) = segment(start)?;
    if end > seg_end || end < start {
        return None;
    }
    let back = (start - seg_start).min(MAX_HEADER_BACK);
    (1..=back).find_map(|k| {
        let p = start - k;
        // SAFETY: [p, seg_end) lies inside one PT_LOAD segment of a loaded object.
        let bytes = unsafe { std::slice::from_raw_parts(p as *const u8, seg_end - p) };
        if !binary::has_magic(bytes) {
            return None;
        }
        let bin = binary::parse_one(bytes, 0).ok()?;
        let e = bin.entries.first()?;
        (e.image.as_ptr() as usize == start && e.image.len() == end - start)
            .then(|| e.arch().into_owned())
    })
}

/// How far before an image its offload binary header may start (header, entry and strings).
const MAX_HEADER_BACK: usize = 4096;

/// The loaded `PT_LOAD` segment holding `addr`.
fn segment(addr: usize) -> Option<(usize, usize)> {
    struct Query {
        addr: usize,
        found: Option<(usize, usize)>,
    }
    unsafe extern "C" fn visit(
        info: *mut libc::dl_phdr_info,
        _size: usize,
        data: *mut std::ffi::c_void,
    ) -> std::ffi::c_int {
        // SAFETY: dl_iterate_phdr passes a valid info and our Query.
        let (info, q) = unsafe { (&*info, &mut *data.cast::<Query>()) };
        if info.dlpi_phdr.is_null() {
            return 0;
        }
        // SAFETY: dlpi_phdr has dlpi_phnum program headers.
        let phdrs = unsafe { std::slice::from_raw_parts(info.dlpi_phdr, info.dlpi_phnum.into()) };
        for ph in phdrs.iter().filter(|ph| ph.p_type == libc::PT_LOAD) {
            let s = (info.dlpi_addr as usize).wrapping_add(ph.p_vaddr as usize);
            let e = s.wrapping_add(ph.p_memsz as usize);
            if s <= q.addr && q.addr < e {
                q.found = Some((s, e));
                return 1;
            }
        }
        0
    }
    let mut q = Query { addr, found: None };
    // SAFETY: the callback only reads the headers it is given and writes our Query.
    unsafe { libc::dl_iterate_phdr(Some(visit), (&raw mut q).cast()) };
    q.found
}

/// The host plugin's `isPluginCompatible`: a 64-bit little-endian ELF executable or shared
/// object for x86-64.
pub(crate) fn host_compatible(elf: &[u8]) -> bool {
    let u16_at = |off: usize| {
        elf.get(off..off + 2)
            .and_then(|b| <[u8; 2]>::try_from(b).ok())
            .map(u16::from_le_bytes)
    };
    elf.starts_with(b"\x7fELF")
        && elf.get(4) == Some(&2)
        && elf.get(5) == Some(&1)
        && matches!(u16_at(16), Some(2 | 3))
        && u16_at(18) == Some(EM_X86_64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use offkit_format::binary::ImageSpec;
    use offkit_format::kind::{ImageKind, OffloadKind};

    fn elf(e_type: u16, machine: u16) -> Vec<u8> {
        let mut v = vec![0u8; 64];
        v[..4].copy_from_slice(b"\x7fELF");
        v[4] = 2;
        v[5] = 1;
        v[16..18].copy_from_slice(&e_type.to_le_bytes());
        v[18..20].copy_from_slice(&machine.to_le_bytes());
        v
    }

    #[test]
    fn host_images_are_64_bit_x86_executables_or_shared_objects() {
        assert!(host_compatible(&elf(3, 62)));
        assert!(host_compatible(&elf(2, 62)));
        assert!(!host_compatible(&elf(1, 62)));
        assert!(!host_compatible(&elf(3, 224)));
        assert!(!host_compatible(b"\x7fELF"));
    }

    #[test]
    fn offload_binaries_are_unwrapped() {
        let spec = ImageSpec {
            image_kind: ImageKind::Object,
            offload_kind: OffloadKind::OpenMp,
            flags: 0,
            strings: vec![(b"triple", b"x86_64-pc-linux-gnu"), (b"arch", b"znver3")],
        };
        let inner = elf(3, 62);
        let bin = binary::write_v1(&spec, &inner, offkit_llvm::LlvmVersion::V19).unwrap();
        let (img, arch) = unwrap(&bin).unwrap();
        assert_eq!(&*img, &inner[..]);
        assert_eq!(arch, "znver3");
        let (raw, arch) = unwrap(&inner).unwrap();
        assert_eq!(&*raw, &inner[..]);
        assert!(arch.is_empty());
    }
}
