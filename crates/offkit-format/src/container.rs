//! Object-file helpers the scanner reads containers with (ELF sections, the bitcode magic), and
//! [`offload_binaries`], a shorthand for the scanner's flat list of offload binaries
//! ([`crate::scan::offload_binaries`]).

use object::read::elf::{FileHeader, SectionHeader};
use object::{elf, Endianness, FileKind};

use crate::binary::Binary;
use crate::error::{Error, Result};

/// `SHT_LLVM_OFFLOADING`, the ELF section type of `.llvm.offloading`.
pub const SHT_LLVM_OFFLOADING: u32 = 0x6fff_4c0b;

/// The bitcode wrapper magic and the raw bitcode magic.
pub fn is_bitcode(data: &[u8]) -> bool {
    data.starts_with(b"BC\xC0\xDE") || data.starts_with(&[0xDE, 0xC0, 0x17, 0x0B])
}

/// A section of an object file: its name, absolute file offset and contents.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Section<'d> {
    /// The section's name.
    pub name: &'d [u8],
    /// The section header's index.
    pub index: usize,
    /// The ELF section type (0 for non-ELF).
    pub sh_type: u32,
    /// The absolute offset of the contents.
    pub offset: u64,
    /// The contents.
    pub data: &'d [u8],
}

/// The sections of an ELF file (32/64-bit, either endianness) that satisfy `keep(name, type)`.
pub fn elf_sections<'d>(
    data: &'d [u8],
    base: u64,
    keep: impl Fn(&[u8], u32) -> bool,
) -> Result<Vec<Section<'d>>> {
    match FileKind::parse(data) {
        Ok(FileKind::Elf32) => elf_sections_of::<elf::FileHeader32<Endianness>>(data, base, keep),
        Ok(FileKind::Elf64) => elf_sections_of::<elf::FileHeader64<Endianness>>(data, base, keep),
        _ => Err(Error::BadMagic {
            what: "ELF file",
            offset: base,
        }),
    }
}

fn elf_sections_of<'d, Elf: FileHeader<Endian = Endianness>>(
    data: &'d [u8],
    base: u64,
    keep: impl Fn(&[u8], u32) -> bool,
) -> Result<Vec<Section<'d>>> {
    let obj_err = |source| Error::Object {
        what: "ELF file",
        offset: base,
        source,
    };
    let header = Elf::parse(data).map_err(obj_err)?;
    let endian = header.endian().map_err(obj_err)?;
    let table = header.sections(endian, data).map_err(obj_err)?;
    let mut out = Vec::new();
    for (index, sh) in table.iter().enumerate() {
        let sh_type = sh.sh_type(endian).0;
        let name = table.section_name(endian, sh).map_err(obj_err)?;
        if !keep(name, sh_type) || sh_type == elf::SHT_NOBITS.0 {
            continue;
        }
        let (offset, _) = sh.file_range(endian).unwrap_or((0, 0));
        let contents = sh.data(endian, data).map_err(|source| Error::Object {
            what: "ELF section",
            offset: base.saturating_add(offset),
            source,
        })?;
        out.push(Section {
            name,
            index,
            sh_type,
            offset: base.saturating_add(offset),
            data: contents,
        });
    }
    Ok(out)
}

/// Every offload binary in `data` (raw, ELF, COFF, an archive of those, bitcode), in file
/// order, read by offkit's rules: [`crate::scan::offload_binaries`] with
/// [`crate::scan::read_binaries`].
pub fn offload_binaries(data: &[u8], base: u64) -> Result<Vec<Binary<'_>>> {
    let mut read = crate::scan::read_binaries;
    let mut opts = crate::scan::Binaries {
        read: &mut read,
        resolver: None,
        skip_shared_input: false,
        bitcode_error: |e| e,
    };
    let found = crate::scan::offload_binaries(data, base, "", &mut opts)?;
    Ok(found.into_iter().map(|f| f.binary).collect())
}

/// Makes the section alignments of an ELF file about to be rebuilt with `object`'s builder safe
/// for it: `0` (no constraint, as `1`) becomes `1`, and the index of the first section whose
/// alignment is not a power of two up to [`MAX_SECTION_ALIGN`], or that takes the padding the
/// alignments may add past [`MAX_ALIGN_PADDING`], is returned as an error. The builder computes
/// `(offset + align - 1) & !(align - 1)`, which overflows for `0` and is meaningless for
/// the others, and pads the output to each alignment (found by fuzzing
/// `offkit_link::relocate::rewrite`: a 2^32 alignment made a 4 GiB output).
///
/// [`MAX_SECTION_ALIGN`]: offkit_read::limits::MAX_SECTION_ALIGN
/// [`MAX_ALIGN_PADDING`]: offkit_read::limits::MAX_ALIGN_PADDING
pub fn builder_alignments<'a>(
    aligns: impl IntoIterator<Item = &'a mut u64>,
) -> std::result::Result<(), usize> {
    use offkit_read::limits::{MAX_ALIGN_PADDING, MAX_SECTION_ALIGN};
    let mut padding = 0u64;
    for (i, a) in aligns.into_iter().enumerate() {
        if *a == 0 {
            *a = 1;
        }
        if !a.is_power_of_two() || *a > MAX_SECTION_ALIGN {
            return Err(i);
        }
        padding += *a - 1;
        if padding > MAX_ALIGN_PADDING {
            return Err(i);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn builder_alignments_are_made_safe() {
        let mut a = [0u64, 1, 4096, 1 << 21];
        assert_eq!(super::builder_alignments(a.iter_mut()), Ok(()));
        assert_eq!(a, [1, 1, 4096, 1 << 21]);
        assert_eq!(super::builder_alignments([8u64, 12].iter_mut()), Err(1));
        assert_eq!(super::builder_alignments([1u64 << 32].iter_mut()), Err(0));
        assert_eq!(super::builder_alignments([u64::MAX].iter_mut()), Err(0));
        let mut many = vec![1u64 << 21; 40];
        assert_eq!(super::builder_alignments(many.iter_mut()), Err(32));
    }
}
