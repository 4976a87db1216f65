//! The values of the model: an ELF file's class, the header fields the editor uses, section
//! and program headers, each widened to the 64-bit class.

use object::elf::{self, FileHeader32, FileHeader64};
use object::read::elf::SectionHeader;
use object::Endianness;

/// An ELF file's class: the width of its addresses and offsets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    /// `ELFCLASS32`: 52-byte ELF header, 40-byte section headers.
    Elf32,
    /// `ELFCLASS64`: 64-byte ELF header, 64-byte section headers.
    Elf64,
}

impl Class {
    /// The size of the ELF header.
    pub fn ehsize(self) -> usize {
        match self {
            Class::Elf32 => size_of::<FileHeader32<Endianness>>(),
            Class::Elf64 => size_of::<FileHeader64<Endianness>>(),
        }
    }

    /// The size of a section header.
    pub fn shentsize(self) -> usize {
        match self {
            Class::Elf32 => size_of::<elf::SectionHeader32<Endianness>>(),
            Class::Elf64 => size_of::<elf::SectionHeader64<Endianness>>(),
        }
    }

    /// The size of an address or offset: the alignment of the section header table.
    pub fn word(self) -> u64 {
        match self {
            Class::Elf32 => 4,
            Class::Elf64 => 8,
        }
    }
}

/// The fields of the ELF header the editor reads and writes, widened to the 64-bit class.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    /// 32- or 64-bit.
    pub class: Class,
    /// Byte order.
    pub endian: Endianness,
    /// `e_type`: relocatable, executable, shared object, ….
    pub e_type: elf::FileType,
    /// `e_machine`.
    pub e_machine: elf::Machine,
    /// `e_phoff`: where the program header table is (0: none).
    pub e_phoff: u64,
    /// `e_shoff`: where the section header table is (0: none).
    pub e_shoff: u64,
    /// The number of sections (from section 0's `sh_size` under extended numbering).
    pub shnum: usize,
    /// The index of the section-name string table (from section 0's `sh_link` under extended
    /// numbering).
    pub shstrndx: usize,
    /// Whether the counts are in section 0 (`e_shnum` 0, or `e_shstrndx` `SHN_XINDEX`).
    pub extended: bool,
}

/// A section header, widened to the 64-bit class.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Section {
    /// `sh_name`: offset of the name in the section-name string table.
    pub sh_name: u32,
    /// `sh_type`.
    pub sh_type: elf::SectionType,
    /// `sh_flags`.
    pub sh_flags: elf::SectionFlags,
    /// `sh_addr`.
    pub sh_addr: u64,
    /// `sh_offset`: where the contents are in the file.
    pub sh_offset: u64,
    /// `sh_size`.
    pub sh_size: u64,
    /// `sh_link`.
    pub sh_link: u32,
    /// `sh_info`.
    pub sh_info: u32,
    /// `sh_addralign`.
    pub sh_addralign: u64,
    /// `sh_entsize`.
    pub sh_entsize: u64,
}

impl Section {
    /// Whether the section has contents in the file (not `SHT_NOBITS`, not the null section).
    pub fn has_contents(&self) -> bool {
        self.sh_type != elf::SHT_NOBITS && self.sh_type != elf::SHT_NULL
    }

    pub(crate) fn read<S: SectionHeader<Endian = Endianness>>(s: &S, e: Endianness) -> Section {
        Section {
            sh_name: s.sh_name(e),
            sh_type: s.sh_type(e),
            sh_flags: s.sh_flags(e),
            sh_addr: s.sh_addr(e).into(),
            sh_offset: s.sh_offset(e).into(),
            sh_size: s.sh_size(e).into(),
            sh_link: s.sh_link(e),
            sh_info: s.sh_info(e),
            sh_addralign: s.sh_addralign(e).into(),
            sh_entsize: s.sh_entsize(e).into(),
        }
    }
}

/// A program header, widened to the 64-bit class.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Segment {
    /// `p_type`.
    pub p_type: elf::ProgramType,
    /// `p_offset`.
    pub p_offset: u64,
    /// `p_vaddr`.
    pub p_vaddr: u64,
    /// `p_filesz`.
    pub p_filesz: u64,
    /// `p_memsz`.
    pub p_memsz: u64,
}
