//! Writing the on-disk structs: `object`'s `FileHeader32/64` and `SectionHeader32/64`, in the
//! file's class and byte order. Nothing here knows a field's offset: the structs do.

use object::elf::{FileHeader32, FileHeader64, SectionHeader32, SectionHeader64};
use object::endian::{U16, U32, U64};
use object::{pod, Endianness};

use crate::error::{Error, Result};
use crate::model::{Class, Header, Section};

/// `SHN_LORESERVE`: from here on, `e_shnum` and `e_shstrndx` would need extended numbering.
const SHN_LORESERVE: usize = 0xff00;

/// A 64-bit value narrowed to a 32-bit field.
fn narrow(field: &'static str, value: u64) -> Result<u32> {
    u32::try_from(value).map_err(|_| Error::TooLarge { field, value })
}

/// Appends the bytes of section header `s` to `out`.
pub(crate) fn section(h: &Header, s: &Section, out: &mut Vec<u8>) -> Result<()> {
    let e = h.endian;
    match h.class {
        Class::Elf64 => {
            let raw = SectionHeader64::<Endianness> {
                sh_name: U32::new(e, s.sh_name),
                sh_type: U32::new(e, s.sh_type),
                sh_flags: U64::new(e, s.sh_flags),
                sh_addr: U64::new(e, s.sh_addr),
                sh_offset: U64::new(e, s.sh_offset),
                sh_size: U64::new(e, s.sh_size),
                sh_link: U32::new(e, s.sh_link),
                sh_info: U32::new(e, s.sh_info),
                sh_addralign: U64::new(e, s.sh_addralign),
                sh_entsize: U64::new(e, s.sh_entsize),
            };
            out.extend_from_slice(pod::bytes_of(&raw));
        }
        Class::Elf32 => {
            let raw = SectionHeader32::<Endianness> {
                sh_name: U32::new(e, s.sh_name),
                sh_type: U32::new(e, s.sh_type),
                sh_flags: U32::new_u64(e, s.sh_flags).map_err(|_| Error::TooLarge {
                    field: "sh_flags",
                    value: s.sh_flags.0,
                })?,
                sh_addr: U32::new(e, narrow("sh_addr", s.sh_addr)?),
                sh_offset: U32::new(e, narrow("sh_offset", s.sh_offset)?),
                sh_size: U32::new(e, narrow("sh_size", s.sh_size)?),
                sh_link: U32::new(e, s.sh_link),
                sh_info: U32::new(e, s.sh_info),
                sh_addralign: U32::new(e, narrow("sh_addralign", s.sh_addralign)?),
                sh_entsize: U32::new(e, narrow("sh_entsize", s.sh_entsize)?),
            };
            out.extend_from_slice(pod::bytes_of(&raw));
        }
    }
    Ok(())
}

/// The ELF header bytes at the start of `data` (of header `h`) with `e_shoff`, `e_shnum` and
/// `e_shstrndx` replaced.
pub(crate) fn file_header(
    data: &[u8],
    h: &Header,
    shoff: u64,
    shnum: usize,
    strndx: usize,
) -> Result<Vec<u8>> {
    if shnum >= SHN_LORESERVE || strndx >= SHN_LORESERVE {
        return Err(Error::Unsupported {
            what: "too many sections for a section header table without extended numbering",
            offset: h.e_shoff,
        });
    }
    let e = h.endian;
    let (count, index) = (U16::new(e, shnum as u16), strndx as u16);
    let head = |what| Error::Unsupported { what, offset: 0 };
    match h.class {
        Class::Elf64 => {
            let (raw, _) = pod::from_bytes::<FileHeader64<Endianness>>(data)
                .map_err(|()| head("truncated ELF header"))?;
            let mut raw = *raw;
            raw.e_shoff = U64::new(e, shoff);
            raw.e_shnum = count;
            raw.e_shstrndx = U16::new(e, object::elf::SymbolSection(index));
            Ok(pod::bytes_of(&raw).to_vec())
        }
        Class::Elf32 => {
            let (raw, _) = pod::from_bytes::<FileHeader32<Endianness>>(data)
                .map_err(|()| head("truncated ELF header"))?;
            let mut raw = *raw;
            raw.e_shoff = U32::new(e, narrow("e_shoff", shoff)?);
            raw.e_shnum = count;
            raw.e_shstrndx = U16::new(e, object::elf::SymbolSection(index));
            Ok(pod::bytes_of(&raw).to_vec())
        }
    }
}

/// Where section header `index`'s `sh_size` is (the table at `h.e_shoff`) and `size` as its
/// bytes.
pub(crate) fn size_field(h: &Header, index: usize, size: u64) -> Result<(u64, Vec<u8>)> {
    let e = h.endian;
    let (field, bytes) = match h.class {
        Class::Elf64 => (
            std::mem::offset_of!(SectionHeader64<Endianness>, sh_size),
            pod::bytes_of(&U64::<Endianness>::new(e, size)).to_vec(),
        ),
        Class::Elf32 => (
            std::mem::offset_of!(SectionHeader32<Endianness>, sh_size),
            pod::bytes_of(&U32::<Endianness>::new(e, narrow("sh_size", size)?)).to_vec(),
        ),
    };
    let at = (h.class.shentsize() as u64)
        .checked_mul(index as u64)
        .and_then(|o| o.checked_add(h.e_shoff)?.checked_add(field as u64))
        .ok_or(Error::Unsupported {
            what: "the section header lies past the end of the address space",
            offset: h.e_shoff,
        })?;
    Ok((at, bytes))
}
