//! A small relocatable-ELF writer over the `object` crate's [`Encoder`]: sections whose contents
//! are lists of pieces (owned bytes, borrowed slices, runs of zeros), symbols and RELA
//! relocations, written in one streaming pass.
//!
//! The high-level `object::write::Object` keeps each section's data as one contiguous slice, so
//! an offload binary (header + image + padding) would have to be copied into one buffer; for a
//! multi-gigabyte image that is not acceptable. Here the layout is computed first and the
//! pieces are written in file order, so a borrowed image (e.g. from a memory map) goes straight
//! from the map to the output.
//!
//! The file layout follows LLVM's MC ELF writer: ELF header, section contents in section order,
//! `.symtab`, the `.rela*` sections, one `.strtab` (also the section-name table), and the
//! section headers; section header order is null, `.strtab`, each section followed by its
//! `.rela` section, `.symtab`.

use std::io::{self, Write};

use object::elf;
use object::write::elf::{Encoder, FileHeader, FileHeaderLayout, Rel, SectionHeader, Sym};
use object::write::WritableBuffer;
use object::Endianness;

use offkit_llvm::string_table::StringTable;

/// `SHT_X86_64_UNWIND`, the type LLVM gives `.eh_frame` on x86-64.
pub const SHT_X86_64_UNWIND: u32 = 0x7000_0001;
/// Section flags `A` (`SHF_ALLOC`).
pub const A: u64 = 0x2;
/// Section flags `WA`.
pub const WA: u64 = 0x3;
/// Section flags `AX`.
pub const AX: u64 = 0x6;
/// Section flags `AMS` (mergeable strings).
pub const AMS: u64 = 0x32;
/// `SHF_X86_64_LARGE`: a section outside the small code model's 2 GiB.
pub const SHF_X86_64_LARGE: u64 = 0x1000_0000;

/// Part of a section's contents.
#[derive(Debug, Clone)]
pub enum Piece<'a> {
    /// Bytes built by the writer.
    Bytes(Vec<u8>),
    /// Bytes borrowed from the caller (an image), written without a copy.
    Borrowed(&'a [u8]),
    /// A run of zero bytes.
    Zeros(u64),
}

impl Piece<'_> {
    /// The piece's length in bytes.
    pub fn len(&self) -> u64 {
        match self {
            Piece::Bytes(b) => b.len() as u64,
            Piece::Borrowed(b) => b.len() as u64,
            Piece::Zeros(n) => *n,
        }
    }
}

/// A section's contents.
#[derive(Debug, Clone)]
pub enum Contents<'a> {
    /// File-backed contents.
    Data(Vec<Piece<'a>>),
    /// `SHT_NOBITS` of this size.
    NoBits(u64),
}

/// One RELA relocation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reloc {
    /// Offset in the section.
    pub offset: u64,
    /// Index into [`Object::symbols`].
    pub symbol: usize,
    /// The relocation type (`R_X86_64_*`, `R_AARCH64_*`).
    pub r_type: u32,
    /// The addend.
    pub addend: i64,
}

/// A content section (not the string, symbol or relocation tables, which are derived).
#[derive(Debug, Clone)]
pub struct Section<'a> {
    /// Its name.
    pub name: String,
    /// `sh_type`.
    pub sh_type: u32,
    /// `sh_flags`.
    pub flags: u64,
    /// `sh_addralign`.
    pub align: u64,
    /// `sh_entsize`.
    pub entsize: u64,
    /// The contents.
    pub contents: Contents<'a>,
    /// Relocations applying to it, written to `.rela<name>` in this order.
    pub relocs: Vec<Reloc>,
}

impl<'a> Section<'a> {
    /// A section with no contents yet.
    pub fn new(name: impl Into<String>, sh_type: u32, flags: u64, align: u64) -> Self {
        Section {
            name: name.into(),
            sh_type,
            flags,
            align,
            entsize: 0,
            contents: Contents::Data(Vec::new()),
            relocs: Vec::new(),
        }
    }

    /// The contents' size.
    pub fn size(&self) -> u64 {
        match &self.contents {
            Contents::Data(p) => p.iter().map(Piece::len).sum(),
            Contents::NoBits(n) => *n,
        }
    }

    /// Appends a piece; returns its offset in the section.
    pub fn push(&mut self, piece: Piece<'a>) -> u64 {
        let at = self.size();
        if let Contents::Data(p) = &mut self.contents {
            p.push(piece);
        }
        at
    }
}

/// Where a symbol is defined.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// Undefined.
    Undef,
    /// Absolute (the `FILE` symbol).
    Abs,
    /// In [`Object::sections`]`[i]`.
    Section(usize),
}

/// One symbol.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Symbol {
    /// Its name (empty for section symbols).
    pub name: String,
    /// `STB_*`.
    pub bind: u8,
    /// `STT_*`.
    pub kind: u8,
    /// `STV_*`.
    pub vis: u8,
    /// Where it is defined.
    pub place: Place,
    /// `st_value`.
    pub value: u64,
    /// `st_size`.
    pub size: u64,
}

impl Symbol {
    /// A local symbol defined in section `section`.
    pub fn local(name: &str, kind: u8, section: usize, value: u64, size: u64) -> Self {
        Symbol {
            name: name.to_string(),
            bind: elf::STB_LOCAL.0,
            kind,
            vis: elf::STV_DEFAULT.0,
            place: Place::Section(section),
            value,
            size,
        }
    }

    /// The section symbol of section `section`.
    pub fn section(section: usize) -> Self {
        Symbol::local("", elf::STT_SECTION.0, section, 0, 0)
    }

    /// An undefined global symbol with visibility `vis`.
    pub fn undefined(name: &str, bind: u8, vis: u8) -> Self {
        Symbol {
            name: name.to_string(),
            bind,
            kind: elf::STT_NOTYPE.0,
            vis,
            place: Place::Undef,
            value: 0,
            size: 0,
        }
    }
}

/// A relocatable object to write.
#[derive(Debug, Clone)]
pub struct Object<'a> {
    /// `e_machine`.
    pub machine: u16,
    /// The content sections in order.
    pub sections: Vec<Section<'a>>,
    /// The symbols (without the null symbol); locals must come before the others.
    pub symbols: Vec<Symbol>,
}

/// Where everything goes: computed before the first byte is written.
struct Layout {
    /// `(offset, size)` of each content section.
    sections: Vec<(u64, u64)>,
    /// Section header index of each content section and of its `.rela` section (0 if none).
    index: Vec<(u32, u32)>,
    symtab_index: u32,
    symtab_offset: u64,
    rela_offsets: Vec<u64>,
    strtab_offset: u64,
    strtab: Vec<u8>,
    shoff: u64,
    num_sections: u32,
    /// Name offsets in `strtab`: per section, its `.rela` name, `.strtab`, `.symtab`, symbols.
    name_of_section: Vec<u32>,
    name_of_rela: Vec<u32>,
    name_strtab: u32,
    name_symtab: u32,
    name_of_symbol: Vec<u32>,
    num_local: u32,
    total: u64,
}

const EHDR_SIZE: u64 = 64;
const SYM_SIZE: u64 = 24;
const RELA_SIZE: u64 = 24;
const SHDR_SIZE: u64 = 64;

fn align(v: u64, a: u64) -> u64 {
    v.next_multiple_of(a.max(1))
}

impl Object<'_> {
    fn layout(&self) -> Layout {
        let rela_names: Vec<String> = self
            .sections
            .iter()
            .map(|s| format!(".rela{}", s.name))
            .collect();
        let mut strings: Vec<&[u8]> = vec![b".strtab", b".symtab"];
        for (s, r) in self.sections.iter().zip(&rela_names) {
            strings.push(s.name.as_bytes());
            if !s.relocs.is_empty() {
                strings.push(r.as_bytes());
            }
        }
        strings.extend(self.symbols.iter().map(|s| s.name.as_bytes()));
        let table = StringTable::build(strings);
        let off = |s: &[u8]| table.offset(s).unwrap_or_default() as u32;

        // Section header indices: 0 null, 1 .strtab, sections (+ .rela), .symtab last.
        let mut next = 2u32;
        let mut index = Vec::with_capacity(self.sections.len());
        for s in &self.sections {
            let own = next;
            next += 1;
            let rela = if s.relocs.is_empty() {
                0
            } else {
                next += 1;
                next - 1
            };
            index.push((own, rela));
        }
        let symtab_index = next;
        let num_sections = next + 1;

        let mut pos = EHDR_SIZE;
        let mut sections = Vec::with_capacity(self.sections.len());
        for s in &self.sections {
            pos = align(pos, s.align);
            let size = s.size();
            sections.push((pos, size));
            if let Contents::Data(_) = s.contents {
                pos += size;
            }
        }
        let symtab_offset = align(pos, 8);
        pos = symtab_offset + SYM_SIZE * (self.symbols.len() as u64 + 1);
        let mut rela_offsets = Vec::with_capacity(self.sections.len());
        for s in &self.sections {
            if s.relocs.is_empty() {
                rela_offsets.push(0);
            } else {
                pos = align(pos, 8);
                rela_offsets.push(pos);
                pos += RELA_SIZE * s.relocs.len() as u64;
            }
        }
        let strtab_offset = pos;
        pos += table.bytes().len() as u64;
        let shoff = align(pos, 8);
        let total = shoff + SHDR_SIZE * u64::from(num_sections);
        let num_local = 1 + self
            .symbols
            .iter()
            .take_while(|s| s.bind == elf::STB_LOCAL.0)
            .count() as u32;
        Layout {
            sections,
            index,
            symtab_index,
            symtab_offset,
            rela_offsets,
            strtab_offset,
            name_of_section: self
                .sections
                .iter()
                .map(|s| off(s.name.as_bytes()))
                .collect(),
            name_of_rela: rela_names.iter().map(|r| off(r.as_bytes())).collect(),
            name_strtab: off(b".strtab"),
            name_symtab: off(b".symtab"),
            name_of_symbol: self
                .symbols
                .iter()
                .map(|s| off(s.name.as_bytes()))
                .collect(),
            strtab: table.bytes().to_vec(),
            shoff,
            num_sections,
            num_local,
            total,
        }
    }

    /// The size of the file [`Object::write`] produces.
    pub fn file_size(&self) -> u64 {
        self.layout().total
    }

    /// Writes the object to `w` in one pass.
    pub fn write(&self, w: &mut dyn Write) -> io::Result<()> {
        debug_assert!(
            self.symbols
                .iter()
                .skip_while(|s| s.bind == elf::STB_LOCAL.0)
                .all(|s| s.bind != elf::STB_LOCAL.0),
            "local symbols must come first"
        );
        let l = self.layout();
        let mut out = Out::new(w);
        let enc = Encoder::new(Endianness::Little, true, elf::Machine(self.machine));
        let header = FileHeader {
            os_abi: elf::ELFOSABI_NONE,
            abi_version: 0,
            e_type: elf::ET_REL,
            e_machine: elf::Machine(self.machine),
            e_entry: 0,
            e_flags: elf::FileFlags(0),
        };
        let hl = FileHeaderLayout {
            e_phoff: 0,
            segment_num: 0,
            e_shoff: l.shoff,
            section_num: l.num_sections,
            shstrtab_index: 1,
        };
        enc.file_header(&mut out, &header, &hl)
            .map_err(|e| io::Error::other(e.to_string()))?;
        for (s, &(offset, _)) in self.sections.iter().zip(&l.sections) {
            if let Contents::Data(pieces) = &s.contents {
                out.zeros_until(offset);
                for p in pieces {
                    match p {
                        Piece::Bytes(b) => out.write_bytes(b),
                        Piece::Borrowed(b) => out.write_bytes(b),
                        Piece::Zeros(n) => out.write_zeros(*n),
                    }
                }
            }
            out.check()?;
        }
        out.zeros_until(l.symtab_offset);
        enc.null_symbol(&mut out);
        for (s, &name) in self.symbols.iter().zip(&l.name_of_symbol) {
            let (section, st_shndx) = match s.place {
                Place::Undef => (None, elf::SHN_UNDEF),
                Place::Abs => (None, elf::SHN_ABS),
                Place::Section(i) => (Some(l.index[i].0), elf::SHN_UNDEF),
            };
            enc.symbol(
                &mut out,
                &Sym {
                    section,
                    st_name: name,
                    st_info: elf::SymbolInfo::new(elf::SymbolBind(s.bind), elf::SymbolType(s.kind)),
                    st_other: elf::SymbolOther(s.vis),
                    st_shndx,
                    st_value: s.value,
                    st_size: s.size,
                },
            );
        }
        for (s, &offset) in self.sections.iter().zip(&l.rela_offsets) {
            if s.relocs.is_empty() {
                continue;
            }
            out.zeros_until(offset);
            for r in &s.relocs {
                enc.relocation(
                    &mut out,
                    true,
                    &Rel {
                        r_offset: r.offset,
                        r_sym: r.symbol as u32 + 1,
                        r_type: elf::RelocationType(r.r_type),
                        r_addend: r.addend,
                    },
                );
            }
        }
        out.zeros_until(l.strtab_offset);
        out.write_bytes(&l.strtab);
        out.zeros_until(l.shoff);
        // Null section, then `.strtab`, the sections with their `.rela`, `.symtab`.
        enc.section_header(&mut out, &SectionHeader::default());
        enc.section_header(
            &mut out,
            &SectionHeader {
                sh_name: l.name_strtab,
                sh_offset: l.strtab_offset,
                sh_size: l.strtab.len() as u64,
                ..enc.strtab_section_header()
            },
        );
        for (i, s) in self.sections.iter().enumerate() {
            let (offset, size) = l.sections[i];
            enc.section_header(
                &mut out,
                &SectionHeader {
                    sh_name: l.name_of_section[i],
                    sh_type: elf::SectionType(s.sh_type),
                    sh_flags: elf::SectionFlags(s.flags),
                    sh_addr: 0,
                    sh_offset: offset,
                    sh_size: size,
                    sh_link: 0,
                    sh_info: 0,
                    sh_addralign: s.align,
                    sh_entsize: s.entsize,
                },
            );
            if !s.relocs.is_empty() {
                enc.section_header(
                    &mut out,
                    &SectionHeader {
                        sh_name: l.name_of_rela[i],
                        sh_type: elf::SHT_RELA,
                        sh_flags: elf::SHF_INFO_LINK,
                        sh_addr: 0,
                        sh_offset: l.rela_offsets[i],
                        sh_size: RELA_SIZE * s.relocs.len() as u64,
                        sh_link: l.symtab_index,
                        sh_info: l.index[i].0,
                        sh_addralign: 8,
                        sh_entsize: RELA_SIZE,
                    },
                );
            }
        }
        enc.section_header(
            &mut out,
            &SectionHeader {
                sh_name: l.name_symtab,
                sh_offset: l.symtab_offset,
                sh_size: SYM_SIZE * (self.symbols.len() as u64 + 1),
                ..enc.symtab_section_header(1, l.num_local)
            },
        );
        out.check()?;
        debug_assert_eq!(out.count, l.total);
        out.w.flush()
    }
}

/// A [`WritableBuffer`] over an `io::Write` that counts bytes and keeps the first error.
struct Out<'w> {
    w: &'w mut dyn Write,
    count: u64,
    error: Option<io::Error>,
}

impl<'w> Out<'w> {
    fn new(w: &'w mut dyn Write) -> Self {
        Out {
            w,
            count: 0,
            error: None,
        }
    }

    fn zeros_until(&mut self, offset: u64) {
        debug_assert!(self.count <= offset, "layout went backwards");
        self.write_zeros(offset.saturating_sub(self.count));
    }

    fn check(&mut self) -> io::Result<()> {
        match self.error.take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

impl WritableBuffer for Out<'_> {
    fn reserve(&mut self, _size: u64) -> Result<(), ()> {
        Ok(())
    }

    fn write_bytes(&mut self, val: &[u8]) {
        if self.error.is_none() {
            if let Err(e) = self.w.write_all(val) {
                self.error = Some(e);
            }
        }
        self.count += val.len() as u64;
    }

    fn write_zeros(&mut self, mut n: u64) {
        static ZEROS: [u8; 64 * 1024] = [0; 64 * 1024];
        while n > 0 {
            let k = n.min(ZEROS.len() as u64) as usize;
            self.write_bytes(&ZEROS[..k]);
            n -= k as u64;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use object::read::elf::{ElfFile64, FileHeader as _, SectionHeader as _};
    use object::{Object as _, ObjectSection as _, ObjectSymbol as _};
    use offkit_format::container::SHT_LLVM_OFFLOADING;

    #[test]
    fn round_trips_through_the_object_reader() {
        let image = vec![7u8; 100];
        let mut text = Section::new(".text.startup", elf::SHT_PROGBITS.0, 6, 16);
        text.push(Piece::Bytes(vec![0xc3]));
        let mut data = Section::new(".llvm.offloading", SHT_LLVM_OFFLOADING, 2, 8);
        data.push(Piece::Bytes(vec![1, 2, 3]));
        data.push(Piece::Borrowed(&image));
        data.push(Piece::Zeros(1));
        data.relocs.push(Reloc {
            offset: 0,
            symbol: 2,
            r_type: elf::R_X86_64_64.0,
            addend: 5,
        });
        let obj = Object {
            machine: elf::EM_X86_64.0,
            sections: vec![text, data, Section::new(".bss", elf::SHT_NOBITS.0, 3, 8)],
            symbols: vec![
                Symbol::section(0),
                Symbol::local("f", elf::STT_FUNC.0, 0, 0, 1),
                Symbol::undefined("ext", elf::STB_GLOBAL.0, elf::STV_HIDDEN.0),
            ],
        };
        let mut bytes = Vec::new();
        obj.write(&mut bytes).unwrap();
        assert_eq!(bytes.len() as u64, obj.file_size());
        let file = ElfFile64::<Endianness>::parse(&bytes[..]).unwrap();
        let sec = file.section_by_name(".llvm.offloading").unwrap();
        assert_eq!(sec.size(), 104);
        assert_eq!(&sec.data().unwrap()[3..103], &image[..]);
        let hdr = file.elf_header();
        let shdrs = hdr.section_headers(Endianness::Little, &bytes[..]).unwrap();
        assert_eq!(shdrs[3].sh_type(Endianness::Little).0, SHT_LLVM_OFFLOADING);
        let names: Vec<_> = file
            .sections()
            .map(|s| s.name().unwrap().to_string())
            .collect();
        assert_eq!(
            names,
            [
                ".strtab",
                ".text.startup",
                ".llvm.offloading",
                ".rela.llvm.offloading",
                ".bss",
                ".symtab"
            ]
        );
        let (_, r) = sec.relocations().next().unwrap();
        assert_eq!(r.addend(), 5);
        let ext = file.symbols().find(|s| s.name() == Ok("ext")).unwrap();
        assert!(ext.is_undefined());
    }
}
