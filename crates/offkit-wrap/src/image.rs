//! Device images as the library takes them, and the checks that they are what they say: the
//! triple names a known offload architecture that fits the offload kind, the target ID parses,
//! and the bytes are an object for that architecture (or bitcode, or a fatbinary for CUDA).

use offkit_format::container::is_bitcode;
use offkit_format::kind::ImageKind;
use offkit_llvm::target_id::TargetId;
use offkit_llvm::triple::{Arch as TArch, Triple};

use crate::error::{Error, ImageName};
use crate::Kind;

/// One device image to embed: borrowed bytes and what they are for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Image<'a> {
    /// The image (a linked device object, bitcode, or for CUDA a fatbinary). Borrowed: a
    /// memory-mapped file is written to the output without being copied.
    pub data: &'a [u8],
    /// The target triple, e.g. `x86_64-pc-linux-gnu`, `amdgcn-amd-amdhsa`.
    pub triple: &'a str,
    /// The target ID or architecture (`gfx90a:xnack+`, `sm_70`, or empty for CPUs).
    pub arch: &'a str,
    /// A name for messages (usually the file name); may be empty.
    pub name: &'a str,
    /// Whether the image has an `arch` string at all (true from [`Image::new`]). LLVM 19 gives
    /// an `--override-image` without a CPU (an x86-64 image, say) none; its offload binary then
    /// records only `triple`, unless LLVM's sort happened to read the `arch` (see
    /// [`crate::llvm19_sort`]).
    pub has_arch: bool,
    /// The image kind to record in the offload binary instead of the one found (LLVM 19's
    /// `--embed-bitcode` records bitcode whatever the image is).
    pub kind: Option<ImageKind>,
}

impl<'a> Image<'a> {
    /// An image with an empty name.
    pub fn new(data: &'a [u8], triple: &'a str, arch: &'a str) -> Self {
        Image {
            data,
            triple,
            arch,
            name: "",
            has_arch: true,
            kind: None,
        }
    }

    /// The same image recorded as `kind` in its offload binary.
    pub fn with_kind(self, kind: ImageKind) -> Self {
        Image {
            kind: Some(kind),
            ..self
        }
    }

    /// The same image without an `arch` string (its `arch` is then empty).
    pub fn without_arch(self) -> Self {
        Image {
            arch: "",
            has_arch: false,
            ..self
        }
    }

    /// The same image with a name for messages.
    pub fn named(self, name: &'a str) -> Self {
        Image { name, ..self }
    }
}

/// An offload architecture: the ELF machine of its code and a name for messages.
struct Arch {
    machine: u16,
    label: &'static str,
}

fn arch_of(triple: &Triple) -> Option<Arch> {
    let (machine, label) = match triple.arch() {
        TArch::X86_64 => (62, "x86-64"),
        TArch::X86 => (3, "x86"),
        TArch::Aarch64 | TArch::Aarch64Be => (183, "AArch64"),
        TArch::Ppc64 | TArch::Ppc64le => (21, "PowerPC 64"),
        TArch::Systemz => (22, "SystemZ"),
        TArch::Riscv64 => (243, "RISC-V"),
        TArch::Loongarch64 => (258, "LoongArch"),
        TArch::Amdgcn => (AMDGPU, "AMD GPU"),
        TArch::Nvptx | TArch::Nvptx64 => (CUDA, "NVIDIA CUDA"),
        _ => return None,
    };
    Some(Arch { machine, label })
}

const AMDGPU: u16 = 224;
const CUDA: u16 = 190;

fn label_of(machine: u16) -> Option<&'static str> {
    [
        (62, "x86-64"),
        (3, "x86"),
        (183, "AArch64"),
        (21, "PowerPC 64"),
        (22, "SystemZ"),
        (243, "RISC-V"),
        (258, "LoongArch"),
        (AMDGPU, "AMD GPU"),
        (CUDA, "NVIDIA CUDA"),
    ]
    .iter()
    .find(|(m, _)| *m == machine)
    .map(|(_, l)| *l)
}

/// The magic of an NVIDIA fatbinary file (`fatbinary --create` output).
pub const FATBIN_MAGIC: [u8; 4] = [0x50, 0xed, 0x55, 0xba];

/// Whether `data` is an offload bundle: binary (`__CLANG_OFFLOAD_BUNDLE__`) or compressed
/// (`CCOB`).
pub(crate) fn is_offload_bundle(data: &[u8]) -> bool {
    data.starts_with(b"__CLANG_OFFLOAD_BUNDLE__") || data.starts_with(b"CCOB")
}

/// Where in an image embedded as given ([`crate::WrapOptions::as_given`]) the bytes the
/// runtime is given lie: the whole image, or when it is an offload binary (its magic), the
/// image of its first entry — `[ImageOffset, ImageOffset + ImageSize)`, read from the header's
/// `EntryOffset` as LLVM 22's wrapper reads it (a range past the end is kept, as LLVM keeps
/// it; a header or entry past the end, which LLVM would read out of bounds, is an error).
pub(crate) fn registered_range(index: usize, img: &Image<'_>) -> Result<(u64, u64), Error> {
    let data = img.data;
    if !data.starts_with(&offkit_format::binary::MAGIC) {
        return Ok((0, data.len() as u64));
    }
    let u64_at = |at: u64| -> Result<u64, Error> {
        usize::try_from(at)
            .ok()
            .and_then(|a| data.get(a..a.checked_add(8)?))
            .and_then(|b| b.try_into().ok())
            .map(u64::from_le_bytes)
            .ok_or(Error::BinaryOutOfBounds {
                image: ImageName {
                    index,
                    name: img.name.to_string(),
                },
                offset: at,
                size: data.len() as u64,
            })
    };
    // Header: magic, version (u32), size, entry offset, entry size. Entry: image kind (u16),
    // offload kind (u16), flags (u32), string offset, string count, image offset, image size.
    let entry = u64_at(16)?;
    let start = u64_at(entry.saturating_add(24))?;
    let size = u64_at(entry.saturating_add(32))?;
    Ok((start, start.wrapping_add(size)))
}

/// The ELF machine of `data`, if it is an ELF file.
fn elf_machine(data: &[u8]) -> Option<u16> {
    if !data.starts_with(b"\x7fELF") {
        return None;
    }
    let m: [u8; 2] = data.get(18..20)?.try_into().ok()?;
    match data.get(5)? {
        1 => Some(u16::from_le_bytes(m)),
        2 => Some(u16::from_be_bytes(m)),
        _ => None,
    }
}

fn describe(data: &[u8]) -> String {
    if let Some(m) = elf_machine(data) {
        match label_of(m) {
            Some(l) => format!("it is an ELF file for {l}"),
            None => format!("it is an ELF file for machine {m}"),
        }
    } else if is_bitcode(data) {
        "it is LLVM bitcode".to_string()
    } else if data.starts_with(&FATBIN_MAGIC) {
        "it is a CUDA fatbinary".to_string()
    } else if data.is_empty() {
        "it is empty".to_string()
    } else {
        let head: Vec<String> = data.iter().take(4).map(|b| format!("{b:02x}")).collect();
        format!("it starts with bytes {}", head.join(" "))
    }
}

/// The image kind of unchecked bytes: an ELF object, LLVM bitcode, a CUDA fatbinary, or none.
pub(crate) fn detect(data: &[u8]) -> ImageKind {
    if elf_machine(data).is_some() {
        ImageKind::Object
    } else if is_bitcode(data) {
        ImageKind::Bitcode
    } else if data.starts_with(&FATBIN_MAGIC) {
        ImageKind::Fatbinary
    } else {
        ImageKind::None
    }
}

/// The image kind LLVM 19 records for an empty image (a dry run's): what a linked image of
/// `kind` would be.
pub(crate) fn empty_kind(kind: Kind) -> ImageKind {
    match kind {
        Kind::OpenMp | Kind::Hip => ImageKind::Object,
        Kind::Cuda => ImageKind::Fatbinary,
    }
}

/// Checks `img` (the `index`th given) for offload kind `kind`; returns the image kind to record.
pub(crate) fn check(index: usize, img: &Image<'_>, kind: Kind) -> Result<ImageKind, Error> {
    let name = || ImageName {
        index,
        name: img.name.to_string(),
    };
    let triple = Triple::parse(img.triple);
    // A ready-made HIP offload bundle (what LLVM's linker wrapper has the bundler make) is
    // embedded as it is, whatever triple it comes with.
    if kind == Kind::Hip && is_offload_bundle(img.data) {
        return Ok(ImageKind::None);
    }
    let arch = arch_of(&triple).ok_or_else(|| Error::UnknownTriple {
        image: name(),
        triple: img.triple.to_string(),
    })?;
    let wrong_target = || Error::WrongTarget {
        image: name(),
        triple: img.triple.to_string(),
        kind: kind.name(),
    };
    match kind {
        Kind::Cuda if arch.machine != CUDA => return Err(wrong_target()),
        Kind::Hip if arch.machine != AMDGPU => return Err(wrong_target()),
        _ => {}
    }
    if !img.arch.is_empty() {
        TargetId::parse_any(&triple, img.arch.as_bytes()).map_err(|source| Error::BadTargetId {
            image: name(),
            arch: img.arch.to_string(),
            source,
        })?;
    }
    let wrong = |expected: String| Error::WrongImageKind {
        image: name(),
        expected,
        found: describe(img.data),
    };
    match kind {
        Kind::Cuda => {
            if img.data.starts_with(&FATBIN_MAGIC) {
                Ok(ImageKind::Fatbinary)
            } else {
                Err(wrong("a CUDA fatbinary".to_string()))
            }
        }
        Kind::Hip => match elf_machine(img.data) {
            Some(m) if m == arch.machine => Ok(ImageKind::Object),
            _ => Err(wrong(format!(
                "an {} ELF code object or an offload bundle",
                arch.label
            ))),
        },
        Kind::OpenMp => match elf_machine(img.data) {
            Some(m) if m == arch.machine => Ok(ImageKind::Object),
            _ if is_bitcode(img.data) => Ok(ImageKind::Bitcode),
            _ => Err(wrong(format!(
                "an {} ELF object or LLVM bitcode",
                arch.label
            ))),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn elf(machine: u16) -> Vec<u8> {
        let mut v = vec![0u8; 64];
        v[..4].copy_from_slice(b"\x7fELF");
        v[4] = 2;
        v[5] = 1;
        v[18..20].copy_from_slice(&machine.to_le_bytes());
        v
    }

    #[test]
    fn kinds_and_triples() {
        let x86 = elf(62);
        let gpu = elf(224);
        let ok = |d: &[u8], t, a, k| check(0, &Image::new(d, t, a), k);
        assert_eq!(
            ok(&x86, "x86_64-pc-linux-gnu", "", Kind::OpenMp).unwrap(),
            ImageKind::Object
        );
        assert_eq!(
            ok(b"BC\xc0\xde", "x86_64--", "", Kind::OpenMp).unwrap(),
            ImageKind::Bitcode
        );
        assert_eq!(
            ok(&gpu, "amdgcn-amd-amdhsa", "gfx90a:xnack+", Kind::Hip).unwrap(),
            ImageKind::Object
        );
        let e = ok(&gpu, "x86_64-pc-linux-gnu", "", Kind::OpenMp).unwrap_err();
        assert_eq!(
            e.to_string(),
            "image 0 is not an x86-64 ELF object or LLVM bitcode: it is an ELF file for AMD GPU"
        );
        let e = ok(&x86, "foo-bar-baz", "", Kind::OpenMp).unwrap_err();
        assert_eq!(
            e.to_string(),
            "image 0: unknown target triple `foo-bar-baz`"
        );
        let e = ok(&gpu, "amdgcn-amd-amdhsa", "gfx90a:xnack", Kind::Hip).unwrap_err();
        assert_eq!(e.to_string(), "image 0: invalid target ID `gfx90a:xnack`");
        assert!(ok(&gpu, "amdgcn-amd-amdhsa", "gfx1030:xnack+", Kind::Hip).is_err());
        assert!(ok(&gpu, "amdgcn-amd-amdhsa", "gfx9999", Kind::Hip).is_err());
        let e = ok(&x86, "x86_64-pc-linux-gnu", "", Kind::Hip).unwrap_err();
        assert!(e.to_string().contains("cannot carry HIP code"), "{e}");
        let e = check(
            3,
            &Image::new(&x86, "nvptx64-nvidia-cuda", "sm_70").named("k.cubin"),
            Kind::Cuda,
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "image 3 (`k.cubin`) is not a CUDA fatbinary: it is an ELF file for x86-64"
        );
    }
}
