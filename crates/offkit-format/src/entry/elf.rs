//! Reading entry tables out of ELF files: finding the sections, and resolving the pointer fields
//! through static relocations (relocatable objects) or dynamic ones (executables and shared
//! libraries).
//!
//! The rule for a relocation is the same everywhere, and needs no per-architecture table: the
//! field's value is `S + A` — `S` the symbol's value (0 when the relocation has no symbol, as a
//! `*_RELATIVE` one), `A` the explicit addend (RELA, CREL) or the bytes in place (REL). Absolute
//! relocations (`R_X86_64_64`, `R_386_32`, `R_PPC64_ADDR64`, `R_AARCH64_ABS64`, …), `*_RELATIVE`
//! and `*_GLOB_DAT` all mean exactly that. RELR entries mean "add the load base", which is 0 for
//! link-time addresses, so the bytes in place are the value.

use std::collections::HashMap;

use object::read::elf::{
    Crel, CrelIterator, FileHeader, ProgramHeader, SectionHeader, SectionTable, Sym, SymbolTable,
};
use object::{elf, Endianness, FileKind, SectionIndex, SymbolIndex};

use super::{
    detect_layout, parse_raw, read_word, Address, Entry, Format, Layout, Name, Resolution, Table,
    TableKind,
};
use crate::container::{Section, SectionKind};
use crate::error::{Error, Result};
use crate::kind::OffloadKind;
use offkit_read::limits;

/// An entry section whose table cannot be read: a warning on that table, never a failed file.
#[derive(Debug)]
pub struct TableError {
    /// Which section (by name).
    pub kind: TableKind,
    /// The section's index in the section header table.
    pub section_index: usize,
    /// The absolute offset of the section's contents.
    pub offset: u64,
    /// Why.
    pub error: Error,
}

/// Every entry table of the ELF file `data` (32/64-bit, either endianness; `base` = the absolute
/// offset of `data[0]`), in section order, with names and addresses resolved: each table read,
/// or why it could not be (the others are read all the same). The layout of a table is the one
/// its bytes hold ([`detect_layout`]), whatever the section's name. A file without entry
/// sections gives an empty list; only a file whose ELF headers cannot be read is an error.
pub fn read_tables(
    data: &[u8],
    base: u64,
) -> Result<Vec<std::result::Result<Table<'_>, TableError>>> {
    match FileKind::parse(data) {
        Ok(FileKind::Elf32) => tables_of::<elf::FileHeader32<Endianness>>(data, base),
        Ok(FileKind::Elf64) => tables_of::<elf::FileHeader64<Endianness>>(data, base),
        _ => Err(Error::BadMagic {
            what: "ELF file",
            offset: base,
        }),
    }
}

fn obj_err(what: &'static str, offset: u64) -> impl Fn(object::read::Error) -> Error {
    move |source| Error::Object {
        what,
        offset,
        source,
    }
}

/// A relocation, reduced to what resolution needs.
#[derive(Debug, Clone, Copy)]
struct Reloc {
    offset: u64,
    sym: u32,
    /// The explicit addend, or `None` for REL (the addend is in place).
    addend: Option<i64>,
    /// The symbol table the relocation section links to.
    symtab: SectionIndex,
}

type TableResult<'d> = std::result::Result<Table<'d>, TableError>;

fn tables_of<'d, Elf: FileHeader<Endian = Endianness>>(
    data: &'d [u8],
    base: u64,
) -> Result<Vec<TableResult<'d>>> {
    let found = entry_sections(data, base)?;
    if found.is_empty() {
        return Ok(Vec::new());
    }
    let err = obj_err("ELF file", base);
    let header = Elf::parse(data).map_err(&err)?;
    let endian = header.endian().map_err(&err)?;
    let sections = header.sections(endian, data).map_err(&err)?;
    let mut ctx = Ctx::new(header, data, base, &sections)?;
    let mut rows = 0usize;
    let tables = found.into_iter().map(|(kind, s)| {
        let s = s?;
        ctx.table(kind, &s, &mut rows).map_err(|error| TableError {
            kind,
            section_index: s.index,
            offset: s.offset,
            error,
        })
    });
    Ok(tables.collect())
}

/// The entry sections of `data` ([`crate::container::sections`]), each with its kind: the
/// section, or the error (a table's warning) when its contents are not in the file.
#[allow(clippy::type_complexity)]
fn entry_sections(
    data: &[u8],
    base: u64,
) -> Result<Vec<(TableKind, std::result::Result<Section<'_>, TableError>)>> {
    let mut found = Vec::new();
    for s in crate::container::sections(data, base) {
        match s {
            Ok(s) => {
                if let Some(kind) = TableKind::from_section_name(s.name) {
                    if s.kind == SectionKind::EntryTable {
                        found.push((kind, Ok(s)));
                    }
                }
            }
            Err(Error::SectionContents {
                name,
                index,
                offset,
                source,
                ..
            }) => {
                if let Some(kind) = TableKind::from_section_name(name.as_bytes()) {
                    let error = obj_err("offload entry section", offset)(source);
                    found.push((
                        kind,
                        Err(TableError {
                            kind,
                            section_index: index,
                            offset,
                            error,
                        }),
                    ));
                }
            }
            Err(e) => return Err(e),
        }
    }
    Ok(found)
}

impl<'t, 'd, Elf: FileHeader<Endian = Endianness>> Ctx<'t, 'd, Elf> {
    /// What resolving the pointers of the entry tables of the ELF file `header` needs.
    fn new(
        header: &Elf,
        data: &'d [u8],
        base: u64,
        sections: &'t SectionTable<'d, Elf, &'d [u8]>,
    ) -> Result<Self> {
        let err = obj_err("ELF file", base);
        let endian = header.endian().map_err(&err)?;
        let pointer_size: u8 = if header.is_class_64() { 8 } else { 4 };
        let machine = header.e_machine(endian);
        // The alignment of i64 on 32-bit hosts: 4 on i386, 8 on the others LLVM targets.
        let i64_align = if pointer_size == 8 || machine == elf::EM_386 {
            pointer_size
        } else {
            8
        };
        let linked = header.e_type(endian) != elf::ET_REL;
        let mut loads = Vec::new();
        if linked {
            for ph in header.program_headers(endian, data).map_err(&err)? {
                if ph.p_type(endian) == elf::PT_LOAD {
                    loads.push((
                        ph.p_vaddr(endian).into(),
                        ph.p_offset(endian).into(),
                        ph.p_filesz(endian).into(),
                    ));
                }
            }
        }
        Ok(Ctx {
            data,
            base,
            endian,
            pointer_size,
            sections,
            symtabs: HashMap::new(),
            by_section_value: None,
            by_address: None,
            loads,
            is_mips64el: header.is_mips64el(endian),
            i64_align,
            linked,
        })
    }
}

impl<'d, Elf: FileHeader<Endian = Endianness>> Ctx<'_, 'd, Elf> {
    /// Reads one entry section (`rows` counts the entries of the file so far).
    fn table(&mut self, kind: TableKind, s: &Section<'d>, rows: &mut usize) -> Result<Table<'d>> {
        let (endian, linked) = (self.endian, self.linked);
        let (index, offset, bytes) = (SectionIndex(s.index), s.offset, s.data);
        let layout = detect_layout(bytes, kind, self.pointer_size, self.i64_align, endian);
        let raw = parse_raw(bytes, layout, endian, offset)?;
        *rows = rows.saturating_add(raw.len());
        if *rows > limits::MAX_ROWS {
            return Err(Error::limit(
                limits::Limit::Rows,
                "offload entry count",
                offset,
                *rows as u64,
            ));
        }
        let (relocs, resolution) = if linked {
            let addr = s.addr;
            (
                self.dynamic_relocs(addr, bytes.len() as u64)?,
                Resolution::Dynamic,
            )
        } else {
            (self.static_relocs(index)?, Resolution::Static)
        };
        let section_addr = if linked { s.addr } else { 0 };
        let mut entries = Vec::with_capacity(raw.len());
        for (i, r) in raw.into_iter().enumerate() {
            let at = i as u64 * layout.stride;
            let field = |ctx: &mut Self, off: u64| {
                ctx.resolve(bytes, &relocs, at + off, section_addr, linked)
            };
            let addr = field(self, layout.addr_offset())?;
            let addr = self.address(addr, linked)?;
            let name_ptr = field(self, layout.name_offset())?;
            let name = self.name(name_ptr, r.offset + layout.name_offset(), linked)?;
            let aux_addr = match layout.aux_addr_offset() {
                Some(o) => {
                    let t = field(self, o)?;
                    self.address(t, linked)?
                }
                None => Address {
                    value: Some(0),
                    symbol: None,
                    addend: 0,
                },
            };
            entries.push(Entry {
                index: i,
                raw: r,
                offload_kind: entry_kind(kind, layout, &r),
                addr,
                name,
                aux_addr,
                format: layout.format,
            });
        }
        Ok(Table {
            kind,
            section_index: index.0,
            offset,
            layout,
            resolution,
            entries,
        })
    }
}

/// The programming model of an entry: a 56-byte entry's own `kind` (LLVM 20+ numbering, bit
/// flags), else the one its section is named after.
fn entry_kind(table: TableKind, layout: Layout, raw: &super::RawEntry) -> OffloadKind {
    match (layout.format, table.offload_kind()) {
        (Format::Llvm, _) if raw.kind != 0 => OffloadKind::from_raw(2, raw.kind),
        (_, Some(k)) => k,
        (_, None) => OffloadKind::from_raw(2, raw.kind),
    }
}

/// Where a pointer field points, before it is named.
#[derive(Debug, Clone, Copy)]
enum Target<'d> {
    /// A known value: a link-time address, or a field no relocation covers.
    Value(u64),
    /// An offset in a section of a relocatable object; `symbol` is the relocation's symbol and
    /// addend unless it was a section symbol.
    InSection {
        section: SectionIndex,
        offset: u64,
        symbol: Option<(&'d [u8], i64)>,
    },
    /// An undefined symbol plus addend.
    Undefined { name: &'d [u8], addend: i64 },
}

/// What a linked-file resolution knows about a field: its relocation, if any, and whether a RELR
/// entry covers it.
#[derive(Debug, Default)]
struct Relocs {
    /// Sorted by offset (section offset for objects, virtual address for linked files).
    list: Vec<Reloc>,
}

impl Relocs {
    fn at(&self, offset: u64) -> Option<&Reloc> {
        let i = self.list.partition_point(|r| r.offset < offset);
        // With several relocations at one spot (not produced by any linker), the last wins, as
        // when they are applied in order.
        self.list[i..]
            .iter()
            .take_while(|r| r.offset == offset)
            .last()
    }
}

struct Ctx<'t, 'd, Elf: FileHeader<Endian = Endianness>> {
    data: &'d [u8],
    base: u64,
    endian: Endianness,
    pointer_size: u8,
    sections: &'t SectionTable<'d, Elf, &'d [u8]>,
    symtabs: HashMap<SectionIndex, SymbolTable<'d, Elf, &'d [u8]>>,
    /// (section, value) → the name of a symbol defined there (for section-symbol relocations).
    by_section_value: Option<HashMap<(usize, u64), &'d [u8]>>,
    /// Address → the name of a symbol defined there (linked files).
    by_address: Option<HashMap<u64, &'d [u8]>>,
    /// PT_LOAD segments: (vaddr, file offset, file size).
    loads: Vec<(u64, u64, u64)>,
    is_mips64el: bool,
    /// The alignment of `i64` (the 56-byte layout's padding on 32-bit hosts).
    i64_align: u8,
    /// Whether the file is linked (dynamic relocations) rather than relocatable.
    linked: bool,
}

impl<'d, Elf: FileHeader<Endian = Endianness>> Ctx<'_, 'd, Elf> {
    fn mask(&self, v: u64) -> u64 {
        if self.pointer_size == 8 {
            v
        } else {
            v & 0xffff_ffff
        }
    }

    fn symtab(&mut self, index: SectionIndex) -> Result<&SymbolTable<'d, Elf, &'d [u8]>> {
        if !self.symtabs.contains_key(&index) {
            let sh = self
                .sections
                .section(index)
                .map_err(obj_err("relocation section's symbol table", self.base))?;
            let offset = self
                .base
                .saturating_add(sh.file_range(self.endian).unwrap_or((0, 0)).0);
            let table = match sh.sh_type(self.endian) {
                elf::SHT_SYMTAB | elf::SHT_DYNSYM => {
                    SymbolTable::parse(self.endian, self.data, self.sections, index, sh)
                        .map_err(obj_err("ELF symbol table", offset))?
                }
                _ => {
                    return Err(Error::Invalid {
                        what: "relocation section",
                        offset,
                        reason: format!("links to section {} which is not a symbol table", index.0),
                    })
                }
            };
            self.symtabs.insert(index, table);
        }
        // Inserted just above.
        self.symtabs.get(&index).ok_or(Error::Invalid {
            what: "ELF symbol table",
            offset: self.base,
            reason: "missing".into(),
        })
    }

    /// Reads the relocations of one relocation section as (offset, sym, addend).
    fn section_relocs(
        &self,
        sh: &Elf::SectionHeader,
        keep: impl Fn(u64) -> bool,
        out: &mut Vec<Reloc>,
    ) -> Result<()> {
        let endian = self.endian;
        let (file_off, _) = sh.file_range(endian).unwrap_or((0, 0));
        let offset = self.base.saturating_add(file_off);
        let err = obj_err("relocation section", offset);
        let symtab = SectionIndex(sh.sh_link(endian) as usize);
        let mut push = |c: Crel, rela: bool| -> Result<()> {
            if keep(c.r_offset) {
                if out.len() >= limits::MAX_ROWS {
                    return Err(Error::limit(
                        limits::Limit::Rows,
                        "relocations of offload entries",
                        offset,
                        out.len() as u64 + 1,
                    ));
                }
                out.push(Reloc {
                    offset: c.r_offset,
                    sym: c.r_sym,
                    addend: rela.then_some(c.r_addend),
                    symtab,
                });
            }
            Ok(())
        };
        match sh.sh_type(endian) {
            elf::SHT_REL => {
                if let Some((rels, _)) = sh.rel(endian, self.data).map_err(&err)? {
                    for r in rels {
                        push(Crel::from_rel(r, endian), false)?;
                    }
                }
            }
            elf::SHT_RELA => {
                if let Some((relas, _)) = sh.rela(endian, self.data).map_err(&err)? {
                    for r in relas {
                        push(Crel::from_rela(r, endian, self.is_mips64el), true)?;
                    }
                }
            }
            elf::SHT_CREL => {
                let bytes = sh.data(endian, self.data).map_err(&err)?;
                let iter = CrelIterator::new(bytes).map_err(&err)?;
                let rela = iter.is_rela();
                for c in iter {
                    push(c.map_err(&err)?, rela)?;
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// The static relocations that apply to section `target`.
    fn static_relocs(&self, target: SectionIndex) -> Result<Relocs> {
        let mut list = Vec::new();
        for sh in self.sections.iter() {
            let t = sh.sh_type(self.endian);
            if (t == elf::SHT_REL || t == elf::SHT_RELA || t == elf::SHT_CREL)
                && sh.sh_info(self.endian) as usize == target.0
            {
                self.section_relocs(sh, |_| true, &mut list)?;
            }
        }
        list.sort_by_key(|r| r.offset);
        Ok(Relocs { list })
    }

    /// The dynamic relocations (in allocated relocation sections) that land in
    /// `[addr, addr + size)`. RELR entries need no work: the value in place is the link-time
    /// address.
    fn dynamic_relocs(&self, addr: u64, size: u64) -> Result<Relocs> {
        let end = addr.saturating_add(size);
        let mut list = Vec::new();
        for sh in self.sections.iter() {
            let t = sh.sh_type(self.endian);
            let alloc = sh.sh_flags(self.endian).0 & elf::SHF_ALLOC.0 != 0;
            if alloc && (t == elf::SHT_REL || t == elf::SHT_RELA || t == elf::SHT_CREL) {
                self.section_relocs(sh, |o| o >= addr && o < end, &mut list)?;
            }
        }
        list.sort_by_key(|r| r.offset);
        Ok(Relocs { list })
    }

    /// The value of the pointer field at `off` in the section `bytes` (whose address is
    /// `section_addr` in a linked file).
    fn resolve(
        &mut self,
        bytes: &'d [u8],
        relocs: &Relocs,
        off: u64,
        section_addr: u64,
        linked: bool,
    ) -> Result<Target<'d>> {
        let width = self.pointer_size;
        let in_place = read_word(bytes, off, width, self.endian).unwrap_or(0);
        let key = if linked {
            section_addr.wrapping_add(off)
        } else {
            off
        };
        let Some(&r) = relocs.at(key) else {
            return Ok(Target::Value(in_place));
        };
        // REL: the addend is the signed word in place.
        let addend = r.addend.unwrap_or(if width == 4 {
            i64::from(in_place as u32 as i32)
        } else {
            in_place as i64
        });
        if r.sym == 0 {
            return Ok(Target::Value(self.mask(addend as u64)));
        }
        let endian = self.endian;
        let base = self.base;
        let table = self.symtab(r.symtab)?;
        let index = SymbolIndex(r.sym as usize);
        let sym = table
            .symbol(index)
            .map_err(obj_err("relocation's symbol", base))?;
        let name = table
            .symbol_name(endian, sym)
            .map_err(obj_err("relocation's symbol name", base))?;
        let section = table
            .symbol_section(endian, sym, index)
            .map_err(obj_err("relocation's symbol", base))?;
        let value: u64 = sym.st_value(endian).into();
        let absolute = sym.st_shndx(endian) == elf::SHN_ABS;
        Ok(match section {
            // In a linked file a defined symbol has its final address; so has an absolute one
            // everywhere.
            _ if absolute || (linked && section.is_some()) => {
                Target::Value(self.mask(value.wrapping_add(addend as u64)))
            }
            Some(sec) if sym.st_type() == elf::STT_SECTION => Target::InSection {
                section: sec,
                offset: value.wrapping_add(addend as u64),
                symbol: None,
            },
            Some(sec) => Target::InSection {
                section: sec,
                offset: value.wrapping_add(addend as u64),
                symbol: Some((name, addend)),
            },
            // Undefined: resolved only at run time, or by a later link.
            None => Target::Undefined { name, addend },
        })
    }

    /// The public form of a resolved pointer: a symbol name where one is known.
    fn address(&mut self, t: Target<'d>, linked: bool) -> Result<Address<'d>> {
        Ok(match t {
            Target::Value(v) => {
                let symbol = if linked && v != 0 {
                    self.address_map()?.get(&v).copied()
                } else {
                    None
                };
                Address {
                    value: Some(v),
                    symbol,
                    addend: 0,
                }
            }
            Target::InSection {
                symbol: Some((name, addend)),
                ..
            } => Address {
                value: None,
                symbol: Some(name),
                addend,
            },
            Target::InSection {
                section,
                offset,
                symbol: None,
            } => {
                // A section symbol: name the symbol defined at that spot, else the section.
                let endian = self.endian;
                let sections = self.sections;
                match self.section_value_map()?.get(&(section.0, offset)) {
                    Some(name) => Address {
                        value: None,
                        symbol: Some(name),
                        addend: 0,
                    },
                    None => Address {
                        value: None,
                        symbol: sections
                            .section(section)
                            .ok()
                            .and_then(|sh| sections.section_name(endian, sh).ok()),
                        addend: offset as i64,
                    },
                }
            }
            Target::Undefined { name, addend } => Address {
                value: None,
                symbol: Some(name),
                addend,
            },
        })
    }

    fn all_symtabs(&mut self) -> Result<Vec<SectionIndex>> {
        let mut out = Vec::new();
        // The static table first: it names local symbols such as `.…region_id`.
        for want in [elf::SHT_SYMTAB, elf::SHT_DYNSYM] {
            for (i, sh) in self.sections.enumerate() {
                if sh.sh_type(self.endian) == want {
                    self.symtab(i)?;
                    out.push(i);
                }
            }
        }
        Ok(out)
    }

    /// Symbols by (section, value), for naming section-relative references in objects. Where
    /// several symbols share a spot, a global one wins over a local one, then the first.
    fn section_value_map(&mut self) -> Result<&HashMap<(usize, u64), &'d [u8]>> {
        if self.by_section_value.is_none() {
            let mut map: HashMap<(usize, u64), (&'d [u8], bool)> = HashMap::new();
            for t in self.all_symtabs()? {
                let Some(table) = self.symtabs.get(&t) else {
                    continue;
                };
                for (index, sym) in table.enumerate() {
                    let ty = sym.st_type();
                    if ty == elf::STT_SECTION || ty == elf::STT_FILE {
                        continue;
                    }
                    let Ok(Some(sec)) = table.symbol_section(self.endian, sym, index) else {
                        continue;
                    };
                    let Ok(name) = table.symbol_name(self.endian, sym) else {
                        continue;
                    };
                    if name.is_empty() {
                        continue;
                    }
                    let global = sym.st_bind() != elf::STB_LOCAL;
                    let key = (sec.0, sym.st_value(self.endian).into());
                    let e = map.entry(key).or_insert((name, global));
                    if global && !e.1 {
                        *e = (name, global);
                    }
                }
            }
            self.by_section_value = Some(map.into_iter().map(|(k, (n, _))| (k, n)).collect());
        }
        Ok(self.by_section_value.get_or_insert_with(HashMap::new))
    }

    /// Symbols by address, for naming addresses in linked files (static table first).
    fn address_map(&mut self) -> Result<&HashMap<u64, &'d [u8]>> {
        if self.by_address.is_none() {
            let mut map: HashMap<u64, (&'d [u8], bool)> = HashMap::new();
            for t in self.all_symtabs()? {
                let Some(table) = self.symtabs.get(&t) else {
                    continue;
                };
                for (index, sym) in table.enumerate() {
                    let ty = sym.st_type();
                    if ty == elf::STT_SECTION || ty == elf::STT_FILE {
                        continue;
                    }
                    if !matches!(table.symbol_section(self.endian, sym, index), Ok(Some(_))) {
                        continue;
                    }
                    let Ok(name) = table.symbol_name(self.endian, sym) else {
                        continue;
                    };
                    if name.is_empty() {
                        continue;
                    }
                    let global = sym.st_bind() != elf::STB_LOCAL;
                    let e = map
                        .entry(sym.st_value(self.endian).into())
                        .or_insert((name, global));
                    if global && !e.1 {
                        *e = (name, global);
                    }
                }
            }
            self.by_address = Some(map.into_iter().map(|(k, (n, _))| (k, n)).collect());
        }
        Ok(self.by_address.get_or_insert_with(HashMap::new))
    }

    /// The string the `name` pointer points at (`at` = the field's absolute offset, for errors).
    fn name(&mut self, ptr: Target<'d>, at: u64, linked: bool) -> Result<Name<'d>> {
        let bad = |reason: String| Error::Invalid {
            what: "offload entry name",
            offset: at,
            reason,
        };
        match ptr {
            Target::Value(0) => Ok(Name::Null),
            Target::Value(v) if linked => {
                let Some(&(vaddr, off, filesz)) =
                    self.loads.iter().find(|&&(a, _, sz)| v >= a && v - a < sz)
                else {
                    return Err(bad(format!(
                        "points at {v:#x}, outside the file's loaded segments"
                    )));
                };
                let start = off.saturating_add(v - vaddr);
                self.cstr(start, off.saturating_add(filesz), at)
                    .map(Name::Str)
            }
            Target::Value(v) => Err(bad(format!("is {v:#x} and has no relocation"))),
            Target::InSection {
                section, offset, ..
            } => self.section_string(section, offset, at),
            Target::Undefined { .. } => Ok(Name::Unresolved(self.address(ptr, linked)?)),
        }
    }

    /// The string at `pos` of section `sec` (objects).
    fn section_string(&self, sec: SectionIndex, pos: u64, at: u64) -> Result<Name<'d>> {
        let sh = self
            .sections
            .section(sec)
            .map_err(obj_err("offload entry name's section", self.base))?;
        if sh.sh_type(self.endian) == elf::SHT_NOBITS {
            return Err(Error::Invalid {
                what: "offload entry name",
                offset: at,
                reason: format!("points into section {} which has no contents", sec.0),
            });
        }
        let (off, size) = sh.file_range(self.endian).unwrap_or((0, 0));
        if pos >= size {
            return Err(Error::Invalid {
                what: "offload entry name",
                offset: at,
                reason: format!(
                    "points at offset {pos:#x} of section {}, which is {size:#x} bytes",
                    sec.0
                ),
            });
        }
        self.cstr(off.saturating_add(pos), off.saturating_add(size), at)
            .map(Name::Str)
    }

    /// The NUL-terminated string at file offset `start`, which must end before `end`.
    fn cstr(&self, start: u64, end: u64, at: u64) -> Result<&'d [u8]> {
        let bytes = usize::try_from(start)
            .ok()
            .zip(usize::try_from(end.min(self.data.len() as u64)).ok())
            .and_then(|(s, e)| self.data.get(s..e))
            .unwrap_or_default();
        let len = bytes
            .iter()
            .position(|&b| b == 0)
            .ok_or_else(|| Error::Invalid {
                what: "offload entry name",
                offset: at,
                reason: format!(
                    "the string at offset {:#x} has no terminating NUL",
                    self.base.saturating_add(start)
                ),
            })?;
        Ok(bytes.get(..len).unwrap_or_default())
    }
}
