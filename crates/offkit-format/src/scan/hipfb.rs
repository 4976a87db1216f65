//! The `__hip_fatbin_wrapper` records of `.hipFatBinSegment`: one 24-byte record per bundle of
//! `.hip_fatbin` (what the HIP runtime registers), pointing at its bundle — through a relocation
//! in an object, through the address itself (or a relative dynamic relocation) in a linked
//! file. The walk uses them to cross-check the bundles it found by their sizes.
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0 | 4 | magic `0x48495046` (`"HIPF"`), little-endian |
//! | 4 | 4 | version (1) |
//! | 8 | 8 | pointer to the bundle |
//! | 16 | 8 | unused (0) |

use std::fmt;

use object::read::elf::{FileHeader, Rela, SectionHeader, Sym, SymbolTable};
use object::{elf, Endianness, FileKind};

use crate::container::SectionKind;

/// The record's magic, `"HIPF"` read as a little-endian `u32`.
pub(crate) const WRAPPER_MAGIC: u32 = 0x4849_5046;

/// The size of one record on a 64-bit target.
pub(crate) const WRAPPER_SIZE: usize = 24;

/// One `__hip_fatbin_wrapper` record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Record {
    /// Its index in `.hipFatBinSegment`.
    pub index: usize,
    /// The absolute offset of the record.
    pub offset: u64,
    /// Where it points: an offset in `.hip_fatbin`, or why that is not known.
    pub target: Result<u64, Unresolved>,
}

/// Why a `__hip_fatbin_wrapper` record does not say where its bundle is (a warning of the
/// walk, [`super::Problem::Unresolved`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Unresolved {
    /// The section ends inside the record: its size.
    Short(usize),
    /// The magic is not `"HIPF"`: the value found.
    Magic(u64),
    /// The version is not 1: the value found.
    Version(u64),
    /// In an object, no relocation applies to the pointer.
    NoRelocation,
    /// In an object, the pointer's relocation names no symbol that can be read.
    NoSymbol,
    /// In an object, the pointer's relocation names a symbol of another section.
    OutsideSection,
    /// In an object, symbol value plus addend overflows.
    AddendOverflow,
    /// In a linked file, a relocation other than a relative one sets the pointer.
    NotRelative,
    /// In a linked file, the pointer (this address) is outside `.hip_fatbin`.
    PointsOutside(u64),
}

impl fmt::Display for Unresolved {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Unresolved::Short(n) => write!(f, "a {n}-byte record (24 expected)"),
            Unresolved::Magic(magic) => {
                write!(f, "magic {magic:#x}, not {WRAPPER_MAGIC:#x} (\"HIPF\")")
            }
            Unresolved::Version(version) => write!(f, "version {version}, not 1"),
            Unresolved::NoRelocation => f.write_str("no relocation for its pointer"),
            Unresolved::NoSymbol => f.write_str("its relocation names no symbol"),
            Unresolved::OutsideSection => {
                f.write_str("its relocation points outside `.hip_fatbin`")
            }
            Unresolved::AddendOverflow => f.write_str("its relocation's addend overflows"),
            Unresolved::NotRelative => {
                f.write_str("a relocation that is not relative sets its pointer")
            }
            Unresolved::PointsOutside(value) => {
                write!(f, "it points at {value:#x}, outside `.hip_fatbin`")
            }
        }
    }
}

/// The records of a 64-bit ELF file that has both `.hipFatBinSegment` and `.hip_fatbin`;
/// `None` if it lacks either (or is not a 64-bit ELF file).
pub(super) fn records(data: &[u8], base: u64) -> Option<Vec<Record>> {
    if FileKind::parse(data) != Ok(FileKind::Elf64) {
        return None;
    }
    let (mut seg, mut fb) = (None, None);
    for s in crate::container::sections(data, base) {
        let s = s.ok()?;
        match s.kind {
            SectionKind::HipWrappers => seg = seg.or(Some(s)),
            SectionKind::HipFatbin => fb = fb.or(Some(s)),
            _ => {}
        }
    }
    let (seg, fb) = (seg?, fb?);
    let header = elf::FileHeader64::<Endianness>::parse(data).ok()?;
    let endian = header.endian().ok()?;
    let relocatable = header.e_type(endian) == elf::ET_REL;
    let (relocs, symtab) = relocations(header, data, relocatable.then_some(seg.index))?;
    let pointers = Pointers {
        endian,
        relocs,
        symtab,
        relative: match header.e_machine(endian) {
            elf::EM_X86_64 => Some(elf::R_X86_64_RELATIVE),
            elf::EM_AARCH64 => Some(elf::R_AARCH64_RELATIVE),
            _ => None,
        },
        relocatable,
        seg_addr: seg.addr,
        fb_index: fb.index,
        fb_addr: fb.addr,
        fb_size: fb.size(),
    };
    let records = seg
        .data
        .chunks(WRAPPER_SIZE)
        .enumerate()
        .map(|(index, rec)| Record {
            index,
            offset: seg.offset + (index * WRAPPER_SIZE) as u64,
            target: pointers.target(index, rec),
        });
    Some(records.collect())
}

/// The symbol table of a 64-bit ELF file.
type Symtab<'d> = SymbolTable<'d, elf::FileHeader64<Endianness>>;

/// A relocation of a pointer field: its offset (in the section, or its address), symbol,
/// addend and type.
type Reloc = (u64, Option<u32>, i64, elf::RelocationType);

/// The relocations that apply to the pointer fields: in an object, those of the RELA sections
/// for `.hipFatBinSegment` (section `segment`), with the symbol table they link to; in a linked
/// file, every RELA section's (`.rela.dyn`).
fn relocations<'d>(
    header: &elf::FileHeader64<Endianness>,
    data: &'d [u8],
    segment: Option<usize>,
) -> Option<(Vec<Reloc>, Option<Symtab<'d>>)> {
    let endian = header.endian().ok()?;
    let sections = header.sections(endian, data).ok()?;
    let mut relocs = Vec::new();
    let mut symtab = None;
    for s in sections.iter() {
        let Ok(Some((rela, link))) = s.rela(endian, data) else {
            continue;
        };
        if let Some(seg) = segment {
            if s.sh_info(endian) as usize != seg {
                continue;
            }
            symtab = sections.symbol_table_by_index(endian, data, link).ok();
        }
        for r in rela {
            relocs.push((
                r.r_offset(endian),
                r.symbol(endian, false).map(|i| i.0 as u32),
                r.r_addend(endian),
                r.r_type(endian, false),
            ));
        }
    }
    Some((relocs, symtab))
}

/// What resolving a record's pointer needs.
struct Pointers<'d> {
    endian: Endianness,
    relocs: Vec<Reloc>,
    symtab: Option<Symtab<'d>>,
    /// The relative relocation type of the machine, if offkit knows it.
    relative: Option<elf::RelocationType>,
    relocatable: bool,
    seg_addr: u64,
    fb_index: usize,
    fb_addr: u64,
    fb_size: u64,
}

impl Pointers<'_> {
    /// Where record `index` (its bytes `rec`) points: an offset in `.hip_fatbin`.
    fn target(&self, index: usize, rec: &[u8]) -> Result<u64, Unresolved> {
        let word = |at: usize, n: usize| word(self.endian, rec, at, n).unwrap_or_default();
        if rec.len() < WRAPPER_SIZE {
            return Err(Unresolved::Short(rec.len()));
        }
        let magic = word(0, 4);
        if magic != u64::from(WRAPPER_MAGIC) {
            return Err(Unresolved::Magic(magic));
        }
        let version = word(4, 4);
        if version != 1 {
            return Err(Unresolved::Version(version));
        }
        let field = (index * WRAPPER_SIZE + 8) as u64;
        if self.relocatable {
            return self.relocated(field);
        }
        let addr = self.seg_addr.wrapping_add(field);
        let value = match self.relocs.iter().find(|r| r.0 == addr) {
            Some(&(_, _, addend, ty)) if Some(ty) == self.relative => addend as u64,
            Some(_) => return Err(Unresolved::NotRelative),
            None => word(8, 8),
        };
        value
            .checked_sub(self.fb_addr)
            .filter(|&o| o < self.fb_size)
            .ok_or(Unresolved::PointsOutside(value))
    }

    /// In an object: the offset in `.hip_fatbin` the relocation of the pointer at `field` gives.
    fn relocated(&self, field: u64) -> Result<u64, Unresolved> {
        let Some(&(_, sym, addend, _)) = self.relocs.iter().find(|r| r.0 == field) else {
            return Err(Unresolved::NoRelocation);
        };
        let sym = self
            .symtab
            .as_ref()
            .zip(sym)
            .and_then(|(t, i)| t.symbol(object::SymbolIndex(i as usize)).ok())
            .ok_or(Unresolved::NoSymbol)?;
        if usize::from(sym.st_shndx(self.endian).0) != self.fb_index {
            return Err(Unresolved::OutsideSection);
        }
        sym.st_value(self.endian)
            .checked_add_signed(addend)
            .ok_or(Unresolved::AddendOverflow)
    }
}

/// The `n`-byte word (4 or 8) at `at` of `rec`, in the file's byte order.
fn word(endian: Endianness, rec: &[u8], at: usize, n: usize) -> Option<u64> {
    let b = rec.get(at..at.checked_add(n)?)?;
    let mut v = [0u8; 8];
    Some(match endian {
        Endianness::Little => {
            v.get_mut(..n)?.copy_from_slice(b);
            u64::from_le_bytes(v)
        }
        Endianness::Big => {
            v.get_mut(8 - n..)?.copy_from_slice(b);
            u64::from_be_bytes(v)
        }
    })
}
