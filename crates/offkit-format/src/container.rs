//! Finding offload binaries in containers, as LLVM 19's `extractOffloadBinaries` does: a raw
//! offload binary, ELF objects (every section of type `SHT_LLVM_OFFLOADING`, whatever its
//! name), COFF objects (sections named `.llvm.offloading*`), and static archives (every member,
//! recursively).
//!
//! This is the flat list the packager and the linker wrapper work from; the full tree that
//! `offkit inspect` shows (bundles, entry tables, nesting) is built by the scanner.

use object::read::elf::{FileHeader, SectionHeader};
use object::{elf, Endianness, FileKind};

use crate::binary::{self, Binary};
use crate::error::{Error, Result};
use crate::limits;

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

/// Every offload binary in `data` (raw, ELF, COFF, or an archive of those), in file order.
/// Bitcode files yield nothing here (see the bitcode scanner).
pub fn offload_binaries(data: &[u8], base: u64) -> Result<Vec<Binary<'_>>> {
    let mut out = Vec::new();
    collect(data, base, 0, &mut out)?;
    Ok(out)
}

fn collect<'d>(data: &'d [u8], base: u64, depth: usize, out: &mut Vec<Binary<'d>>) -> Result<()> {
    if depth > limits::MAX_NESTING_DEPTH {
        return Err(Error::LimitExceeded {
            what: "container nesting",
            offset: base,
            value: depth as u64,
            limit: limits::MAX_NESTING_DEPTH as u64,
            name: "MAX_NESTING_DEPTH",
        });
    }
    if binary::has_magic(data) {
        for b in binary::parse_all(data, base) {
            push(out, b?, base)?;
        }
        return Ok(());
    }
    match FileKind::parse(data) {
        Ok(FileKind::Elf32 | FileKind::Elf64) => {
            for s in elf_sections(data, base, |_, t| t == SHT_LLVM_OFFLOADING)? {
                for b in binary::parse_all(s.data, s.offset) {
                    push(out, b?, base)?;
                }
            }
        }
        Ok(FileKind::Coff) => {
            let file = object::read::coff::CoffFile::<&[u8]>::parse(data).map_err(|source| {
                Error::Object {
                    what: "COFF file",
                    offset: base,
                    source,
                }
            })?;
            use object::{Object, ObjectSection};
            for s in file.sections() {
                if !s
                    .name_bytes()
                    .is_ok_and(|n| n.starts_with(b".llvm.offloading"))
                {
                    continue;
                }
                let (off, _) = s.file_range().unwrap_or((0, 0));
                let contents = s.data().map_err(|source| Error::Object {
                    what: "COFF section",
                    offset: base.saturating_add(off),
                    source,
                })?;
                for b in binary::parse_all(contents, base.saturating_add(off)) {
                    push(out, b?, base)?;
                }
            }
        }
        Ok(FileKind::Archive) => {
            let archive = object::read::archive::ArchiveFile::parse(data).map_err(|source| {
                Error::Object {
                    what: "archive",
                    offset: base,
                    source,
                }
            })?;
            for member in archive.members() {
                let member = member.map_err(|source| Error::Object {
                    what: "archive member",
                    offset: base,
                    source,
                })?;
                if member.is_thin() {
                    // Thin members live in other files; the caller reads them.
                    continue;
                }
                let (off, _) = member.file_range();
                let bytes = member.data(data).map_err(|source| Error::Object {
                    what: "archive member",
                    offset: base.saturating_add(off),
                    source,
                })?;
                collect(bytes, base + off, depth + 1, out)?;
            }
        }
        _ => {}
    }
    Ok(())
}

fn push<'d>(out: &mut Vec<Binary<'d>>, b: Binary<'d>, base: u64) -> Result<()> {
    if out.len() >= limits::MAX_ROWS {
        return Err(Error::LimitExceeded {
            what: "offload binaries",
            offset: base,
            value: out.len() as u64 + 1,
            limit: limits::MAX_ROWS as u64,
            name: "MAX_ROWS",
        });
    }
    out.push(b);
    Ok(())
}
