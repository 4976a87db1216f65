//! The host half of an old-driver HIP `-fgpu-rdc` object made to register its kernels as a
//! new-driver one does.
//!
//! The old driver's host code registers through a constructor, `__hip_module_ctor` (in
//! `.init_array`), which hands `__hipRegisterFatBinary` the `__hip_fatbin_wrapper` record
//! (`.hipFatBinSegment`) pointing at `__hip_fatbin_<cuid>`, and `__hip_gpubin_handle_<cuid>`:
//! both defined by the old driver's device link, which a new-driver link never makes (the
//! host link fails on them). The new driver's host object instead holds one `__tgt_offload_entry`
//! per kernel — LLVM 19: 32 bytes in `hip_offloading_entries`, `{ the kernel's handle, its name,
//! size 0, flags 0, data 0 }`; LLVM 22: 56 bytes in `llvm_offload_entries`, `{ reserved 0,
//! version 1, kind 4 (HIP), flags 0, the handle, the name, size 0, data 0, aux 0 }`
//! ([`Entries`]) — and the linker wrapper's registration code walks them (`__start_`/`__stop_`
//! of the section; 22's registers only the entries of its own kind) after registering the image
//! it wrapped.
//!
//! So the object is given that section (and its relocations: the handles and the name
//! strings the old registration code used), the constructor is taken out of `.init_array`
//! (it would register a fat binary that does not exist), the two symbols only the old device
//! link defines are defined (hidden) at the start of the old wrapper record, which is left
//! with no magic and renamed so that nothing takes it for a fat binary wrapper. The dead
//! constructor and `__hip_register_globals` stay in `.text`.
//!
//! Kernels are found as the old registration finds them: every handle is a data word whose
//! relocation points at a `__device_stub__` function, named by the symbol defined there.
//! Device variables, surfaces and textures are registered with sizes and flags that only
//! the old registration code holds (as immediates): they are not carried, and a warning says
//! so.

use object::read::elf::{FileHeader, Rela, SectionHeader, SectionTable, Sym};
use object::{elf, LittleEndian as LE};
use offkit_format::entry::{Format, Layout, TableKind};
use offkit_format::kind::OffloadKind;
use offkit_llvm::LlvmVersion;

use crate::error::{Error, Result};

/// The old wrapper record's section, renamed.
pub(super) const OLD_WRAPPER: &[u8] = b".hip_old_fatbin_wrapper";

/// `__tgt_offload_entry::Version` of LLVM 20 and later (LLVM 19's entries have none).
const ENTRY_VERSION: u16 = 1;

/// The HIP offload entries a release's new driver writes, and its linker wrapper walks: one
/// row per release.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Entries {
    /// The release.
    pub llvm: LlvmVersion,
    /// The section (`hip_offloading_entries`, `llvm_offload_entries`).
    pub table: TableKind,
    /// The entries' layout (x86-64).
    pub layout: Layout,
    /// The section's alignment.
    pub align: u64,
}

impl Entries {
    /// The row of `llvm`.
    pub fn of(llvm: LlvmVersion) -> Entries {
        match llvm {
            LlvmVersion::V19 => Entries {
                llvm,
                table: TableKind::Hip,
                layout: Layout::legacy(8),
                align: 1,
            },
            _ => Entries {
                llvm,
                table: TableKind::Llvm,
                layout: Layout::llvm(8, 8),
                align: 8,
            },
        }
    }

    /// The section's name.
    pub fn section(self) -> &'static str {
        self.table.section_name()
    }

    /// One kernel's entry before relocations: zeros, and in LLVM 22's layout the version and
    /// the HIP kind.
    fn entry(self) -> Vec<u8> {
        let mut e = vec![0u8; self.layout.stride as usize];
        if self.layout.format == Format::Llvm {
            let kind = OffloadKind::Hip.to_raw(self.llvm).unwrap_or_default();
            e[8..10].copy_from_slice(&ENTRY_VERSION.to_le_bytes());
            e[10..12].copy_from_slice(&kind.to_le_bytes());
        }
        e
    }
}

/// What is changed in the host half of an old-driver HIP object.
#[derive(Debug)]
pub(super) struct HostEdit {
    /// Byte ranges rewritten in place (absolute offset, new bytes).
    pub patches: Vec<(usize, Vec<u8>)>,
    /// Sections whose size shrinks (index, new size).
    pub sizes: Vec<(usize, u64)>,
    /// Sections renamed (index, new name).
    pub renames: Vec<(usize, Vec<u8>)>,
    /// The kernels registered: (symbol index of the handle, symbol index of the name string,
    /// addend of the name, the kernel's name).
    pub kernels: Vec<(u32, u32, i64, String)>,
    /// The symbol table's index.
    pub symtab: u32,
    /// The entries written.
    pub table: Entries,
    /// What a real link of the converted object misses.
    pub warnings: Vec<String>,
}

impl HostEdit {
    /// An edit that changes nothing yet, writing `table`'s entries.
    fn new(table: Entries) -> HostEdit {
        HostEdit {
            patches: Vec::new(),
            sizes: Vec::new(),
            renames: Vec::new(),
            kernels: Vec::new(),
            symtab: 0,
            table,
            warnings: Vec::new(),
        }
    }

    /// The entries section's contents: one entry per kernel (the relocations fill in the
    /// pointers).
    pub fn entries(&self) -> Vec<u8> {
        self.table.entry().repeat(self.kernels.len())
    }

    /// The entries' relocations (`Elf64_Rela`, `R_X86_64_64`): each entry's handle and name.
    pub fn relocations(&self) -> Vec<u8> {
        let mut out = Vec::new();
        let l = self.table.layout;
        for (i, (handle, name, addend, _)) in self.kernels.iter().enumerate() {
            let at = i as u64 * l.stride;
            let (addr, name_at) = (at + l.addr_offset(), at + l.name_offset());
            for (off, sym, add) in [(addr, *handle, 0), (name_at, *name, *addend)] {
                out.extend_from_slice(&off.to_le_bytes());
                let info = (u64::from(sym) << 32) | u64::from(elf::R_X86_64_64.0);
                out.extend_from_slice(&info.to_le_bytes());
                out.extend_from_slice(&add.to_le_bytes());
            }
        }
        out
    }
}

/// The edit of the host half of `data` when it is an old-driver HIP object for x86-64 (it has
/// `__hip_module_ctor`), for release `llvm`'s linker wrapper; `None` otherwise.
pub(super) fn plan(
    data: &[u8],
    h: &elf::FileHeader64<LE>,
    sections: &SectionTable<'_, elf::FileHeader64<LE>>,
    input: &str,
    llvm: LlvmVersion,
) -> Result<Option<HostEdit>> {
    let fail = |m: String| Error::unusable(input, m);
    let (symtab_index, symtab) = match sections
        .iter()
        .enumerate()
        .find(|(_, s)| s.sh_type(LE) == elf::SHT_SYMTAB)
    {
        Some((i, _)) => (
            i,
            sections
                .symbols(LE, data, elf::SHT_SYMTAB)
                .map_err(|e| fail(format!("cannot read its symbol table: {e}")))?,
        ),
        None => return Ok(None),
    };
    let name_of = |s: &elf::Sym64<LE>| s.name(LE, symtab.strings()).unwrap_or_default();
    let find = |n: &[u8]| symtab.iter().position(|s| name_of(s) == n);
    let Some(ctor) = find(b"__hip_module_ctor") else {
        return Ok(None);
    };
    if h.e_machine(LE) != elf::EM_X86_64 {
        let mut edit = HostEdit::new(Entries::of(llvm));
        edit.warnings.push(
            "its host code still registers through the old driver's `__hip_module_ctor` (only \
             x86-64 host code is given the new driver's offload entries): a real link through \
             clang-linker-wrapper fails on the undefined `__hip_fatbin_<cuid>` and \
             `__hip_gpubin_handle_<cuid>` and registers no kernels"
                .into(),
        );
        return Ok(Some(edit));
    }
    let mut edit = HostEdit {
        symtab: symtab_index as u32,
        ..HostEdit::new(Entries::of(llvm))
    };
    let section_of = |i: usize| sections.section(object::SectionIndex(i)).ok();
    let sec_name = |s: &elf::SectionHeader64<LE>| sections.section_name(LE, s).unwrap_or_default();
    let symtab_at = section_of(symtab_index)
        .map(|s| s.sh_offset(LE) as usize)
        .unwrap_or_default();
    let sym_at = |i: usize| symtab_at + i * 24;

    // The kernels: data words relocated to a `__device_stub__` function.
    for (ri, rel) in sections.iter().enumerate() {
        if rel.sh_type(LE) != elf::SHT_RELA {
            continue;
        }
        let target = rel.sh_info(LE) as usize;
        let Some(t) = section_of(target) else {
            continue;
        };
        if t.sh_type(LE) != elf::SHT_PROGBITS || t.sh_flags(LE).0 & elf::SHF_EXECINSTR.0 != 0 {
            continue;
        }
        let relas = rel
            .data_as_array::<elf::Rela64<LE>, _>(LE, data)
            .map_err(|e| fail(format!("cannot read relocation section {ri}: {e}")))?;
        for r in relas {
            let sym = symtab.symbol(object::SymbolIndex(r.r_sym(LE, false) as usize));
            // A static stub is relocated against its section's symbol plus its address.
            let stub = sym.ok().and_then(|s| {
                if s.st_type() != elf::STT_SECTION {
                    return Some(name_of(s));
                }
                symtab
                    .iter()
                    .find(|f| {
                        f.st_type() == elf::STT_FUNC
                            && f.st_shndx(LE) == s.st_shndx(LE)
                            && f.st_value(LE) as i64 == r.r_addend(LE)
                    })
                    .map(name_of)
            });
            if r.r_type(LE, false) != elf::R_X86_64_64
                || !stub.is_some_and(|n| n.windows(15).any(|w| w == b"__device_stub__"))
            {
                continue;
            }
            let at = r.r_offset(LE);
            let handle = symtab.iter().position(|s| {
                usize::from(s.st_shndx(LE).0) == target
                    && s.st_value(LE) == at
                    && s.st_type() == elf::STT_OBJECT
            });
            let Some(handle) = handle else {
                return Err(fail(format!(
                    "no symbol names the kernel handle at {at:#x} of section `{}`",
                    String::from_utf8_lossy(sec_name(t))
                )));
            };
            let handle_name = name_of(
                symtab
                    .symbol(object::SymbolIndex(handle))
                    .map_err(|e| fail(e.to_string()))?,
            );
            let (str_sym, addend, name) = name_string(data, sections, &symtab, handle_name)
                .ok_or_else(|| {
                    fail(format!(
                        "no symbol locates the name string of kernel `{}`",
                        String::from_utf8_lossy(handle_name)
                    ))
                })?;
            edit.kernels.push((
                handle as u32,
                str_sym as u32,
                addend,
                String::from_utf8_lossy(&name).into_owned(),
            ));
        }
    }

    // The constructor out of `.init_array`: its relocation dropped, those after it moved up.
    for rel in sections.iter() {
        let target = rel.sh_info(LE) as usize;
        let is_init = section_of(target).is_some_and(|t| t.sh_type(LE) == elf::SHT_INIT_ARRAY);
        if rel.sh_type(LE) != elf::SHT_RELA || !is_init {
            continue;
        }
        let relas = rel
            .data_as_array::<elf::Rela64<LE>, _>(LE, data)
            .map_err(|e| fail(format!("cannot read the relocations of `.init_array`: {e}")))?;
        // The assembler relocates against the constructor or against its section's symbol.
        let ctor_sym = symtab.symbol(object::SymbolIndex(ctor)).ok();
        let is_ctor = |r: &elf::Rela64<LE>| {
            let sym = r.r_sym(LE, false) as usize;
            let s = symtab.symbol(object::SymbolIndex(sym)).ok();
            sym == ctor
                || s.zip(ctor_sym).is_some_and(|(s, c)| {
                    s.st_type() == elf::STT_SECTION
                        && s.st_shndx(LE) == c.st_shndx(LE)
                        && r.r_addend(LE) == c.st_value(LE) as i64
                })
        };
        let Some(slot) = relas.iter().find(|r| is_ctor(r)).map(|r| r.r_offset(LE)) else {
            continue;
        };
        let mut bytes = Vec::new();
        for r in relas.iter().filter(|r| !is_ctor(r)) {
            let off = r.r_offset(LE);
            // The slots after the constructor's move up by one (8 bytes); a relocation
            // inside the constructor's slot is not one of an array of pointers.
            if off.abs_diff(slot) < 8 {
                return Err(fail(format!(
                    "a relocation of `.init_array` at {off:#x} overlaps the constructor's \
                     slot at {slot:#x}"
                )));
            }
            let off = if off > slot { off - 8 } else { off };
            bytes.extend_from_slice(&off.to_le_bytes());
            bytes.extend_from_slice(&r.r_info.get(LE).to_le_bytes());
            bytes.extend_from_slice(&r.r_addend.get(LE).to_le_bytes());
        }
        let rel_index = sections
            .iter()
            .position(|s| std::ptr::eq(s, rel))
            .unwrap_or_default();
        let init = section_of(target).map_or(0, |t| t.sh_size(LE));
        edit.sizes.push((rel_index, bytes.len() as u64));
        edit.sizes.push((target, init.saturating_sub(8)));
        bytes.resize(relas.len() * 24, 0);
        edit.patches.push((rel.sh_offset(LE) as usize, bytes));
    }

    // The old wrapper record: no magic, renamed; the symbols of the old device link defined
    // (hidden) at its start.
    let wrapper = sections
        .iter()
        .position(|s| sec_name(s) == b".hipFatBinSegment")
        .ok_or_else(|| fail("it has `__hip_module_ctor` but no `.hipFatBinSegment`".into()))?;
    if let Some(w) = section_of(wrapper) {
        let mut bytes = w.data(LE, data).map_err(|e| fail(e.to_string()))?.to_vec();
        for rec in bytes.chunks_mut(24) {
            if let Some(magic) = rec.get_mut(..8) {
                magic.fill(0);
            }
        }
        edit.patches.push((w.sh_offset(LE) as usize, bytes));
    }
    edit.renames.push((wrapper, OLD_WRAPPER.to_vec()));
    for (i, s) in symtab.iter().enumerate() {
        let n = name_of(s);
        let old_link = (n.starts_with(b"__hip_fatbin_") && n != b"__hip_fatbin_wrapper")
            || n.starts_with(b"__hip_gpubin_handle_");
        if !old_link || s.st_shndx(LE) != elf::SHN_UNDEF {
            continue;
        }
        let mut sym = [0u8; 24];
        if let Some(b) = data.get(sym_at(i)..sym_at(i) + 24) {
            sym.copy_from_slice(b);
        }
        sym[5] = (sym[5] & !3) | elf::STV_HIDDEN.0;
        sym[6..8].copy_from_slice(&(wrapper as u16).to_le_bytes());
        sym[8..16].fill(0);
        edit.patches.push((sym_at(i), sym.to_vec()));
    }

    for (f, what) in [
        (&b"__hipRegisterVar"[..], "device variables"),
        (b"__hipRegisterManagedVar", "managed variables"),
        (b"__hipRegisterSurface", "surfaces"),
        (b"__hipRegisterTexture", "textures"),
    ] {
        if find(f).is_some() {
            edit.warnings.push(format!(
                "its {what} (registered by the old driver's `{}` calls) are not carried: a \
                 program linked from the converted object registers its kernels only",
                String::from_utf8_lossy(f)
            ));
        }
    }
    Ok(Some(edit))
}

/// The name the old registration code gives the kernel whose handle is `handle` — the
/// handle's own name, or for a static kernel the name the old driver externalized it under
/// (`_ZL6hiddenPi.intern.<cuid>`) — and a symbol and addend locating that string: the old
/// registration code's own symbol of exactly that string, else a section symbol plus the
/// string's offset. `None` when no symbol does.
fn name_string(
    data: &[u8],
    sections: &SectionTable<'_, elf::FileHeader64<LE>>,
    symtab: &object::read::elf::SymbolTable<'_, elf::FileHeader64<LE>>,
    handle: &[u8],
) -> Option<(usize, i64, Vec<u8>)> {
    let bytes_of = |shndx: usize| {
        sections
            .section(object::SectionIndex(shndx))
            .ok()
            .filter(|s| s.sh_flags(LE).0 & elf::SHF_ALLOC.0 != 0)
            .and_then(|s| s.data(LE, data).ok())
    };
    let interned = [handle, b".intern."].concat();
    let mut found = None;
    for (i, s) in symtab.iter().enumerate() {
        let Some(bytes) = bytes_of(usize::from(s.st_shndx(LE).0)) else {
            continue;
        };
        let at = s.st_value(LE) as usize;
        let Some(string) = bytes
            .get(at..at.saturating_add(s.st_size(LE) as usize))
            .and_then(|b| b.strip_suffix(&[0]))
        else {
            continue;
        };
        if s.st_type() != elf::STT_OBJECT || string.contains(&0) {
            continue;
        }
        if string == handle {
            return Some((i, 0, string.to_vec()));
        }
        if string.starts_with(&interned) && found.is_none() {
            found = Some((i, 0, string.to_vec()));
        }
    }
    if found.is_some() {
        return found;
    }
    let want = [handle, b"\0"].concat();
    for (i, s) in symtab.iter().enumerate() {
        if s.st_type() != elf::STT_SECTION {
            continue;
        }
        let Some(bytes) = bytes_of(usize::from(s.st_shndx(LE).0)) else {
            continue;
        };
        if let Some(at) = bytes.windows(want.len()).position(|w| w == &want[..]) {
            return Some((i, at as i64, handle.to_vec()));
        }
    }
    None
}
