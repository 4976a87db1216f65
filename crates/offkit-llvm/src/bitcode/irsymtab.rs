//! The irsymtab: the symbol table LLVM writes into bitcode (`SYMTAB_BLOB`), with its strings in
//! the file's string table (`STRTAB_BLOB`). Layout version 3, as LLVM 19 writes it
//! (`llvm/Object/IRSymtab.h`); all fields are little-endian 32-bit words.
//!
//! ```text
//! header (76) │ modules (12 each) │ comdats (12) │ symbols (24) │ uncommons (24) │ dep. libs (8)
//! Str = {offset, size} into the string table; Range = {offset, count} into the symbol table
//! ```

use crate::error::{Error, Result};
use offkit_read::Reader;

/// The irsymtab layout version LLVM 19 writes and reads (`storage::Header::kCurrentVersion`).
pub(crate) const SYMTAB_VERSION: u32 = 3;

/// The producer string LLVM 19.1.7 (Debian) writes; LLVM 19 rebuilds tables from other
/// producers.
pub(crate) const LLVM19_PRODUCER: &[u8] = b"19.1.7";

const HEADER_SIZE: u64 = 76;
const MODULE_SIZE: u64 = 12;
const COMDAT_SIZE: u64 = 12;
const SYMBOL_SIZE: u64 = 24;
const UNCOMMON_SIZE: u64 = 24;
const STR_SIZE: u64 = 8;

/// The symbol flag bits (`storage::Symbol::FlagBits`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct SymbolFlags;

impl SymbolFlags {
    /// Bits 0–1: the visibility.
    pub(crate) const VISIBILITY_MASK: u32 = 3;
    /// An `Uncommon` record belongs to this symbol.
    pub(crate) const HAS_UNCOMMON: u32 = 1 << 2;
    /// A declaration (for the linker).
    pub(crate) const UNDEFINED: u32 = 1 << 3;
    /// Weak, linkonce or extern_weak linkage.
    pub(crate) const WEAK: u32 = 1 << 4;
    /// Common linkage.
    pub(crate) const COMMON: u32 = 1 << 5;
    /// An alias or ifunc.
    pub(crate) const INDIRECT: u32 = 1 << 6;
    /// In `llvm.used` or `llvm.compiler.used`, or an undefined inline-asm symbol.
    pub(crate) const USED: u32 = 1 << 7;
    /// Thread-local.
    pub(crate) const TLS: u32 = 1 << 8;
    /// May be left out of the object's symbol table (`canBeOmittedFromSymbolTable`).
    pub(crate) const MAY_OMIT: u32 = 1 << 9;
    /// Not local linkage.
    pub(crate) const GLOBAL: u32 = 1 << 10;
    /// Private linkage, an `llvm.*` name or a variable in section `llvm.metadata`.
    pub(crate) const FORMAT_SPECIFIC: u32 = 1 << 11;
    /// `unnamed_addr`.
    pub(crate) const UNNAMED_ADDR: u32 = 1 << 12;
    /// A function, or an alias/ifunc of one.
    pub(crate) const EXECUTABLE: u32 = 1 << 13;
    /// Every bit LLVM 19 defines.
    pub(crate) const ALL: u32 = (1 << 14) - 1;
}

/// A symbol's visibility (`GlobalValue::VisibilityTypes`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Visibility {
    /// `default`.
    Default,
    /// `hidden`.
    Hidden,
    /// `protected`.
    Protected,
}

/// The symbol range of one module (`storage::Module`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SymtabModule {
    /// Index of its first symbol.
    pub begin: u32,
    /// Index after its last symbol.
    pub end: u32,
    /// Index of its first uncommon record.
    pub uncommon_begin: u32,
}

/// A comdat (`storage::Comdat`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Comdat<'d> {
    /// Its name.
    pub name: &'d [u8],
    /// `Comdat::SelectionKind`: 0 any, 1 exactmatch, 2 largest, 3 nodeduplicate, 4 samesize.
    pub selection_kind: u32,
}

/// One symbol, with the fields of its uncommon record when it has one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Symbol<'d> {
    /// Which module of the file it belongs to.
    pub module: usize,
    /// The mangled name (as in an object file's symbol table).
    pub name: &'d [u8],
    /// The IR name (empty for inline-asm symbols).
    pub ir_name: &'d [u8],
    /// Index into [`Symtab::comdats`], if it is in a comdat.
    pub comdat: Option<u32>,
    /// The raw flag bits (LLVM's `Symbol::FlagBits`).
    pub flags: u32,
    /// Size of a common symbol (0 otherwise).
    pub common_size: u32,
    /// Alignment of a common symbol (0 otherwise or when unspecified).
    pub common_align: u32,
    /// COFF weak externals: the fallback symbol's name.
    pub coff_weak_external_fallback: &'d [u8],
    /// The explicit section name (empty if none).
    pub section_name: &'d [u8],
}

impl Symbol<'_> {
    fn has(&self, bit: u32) -> bool {
        self.flags & bit != 0
    }

    /// The visibility.
    pub fn visibility(&self) -> Visibility {
        match self.flags & SymbolFlags::VISIBILITY_MASK {
            0 => Visibility::Default,
            1 => Visibility::Hidden,
            // 3 is refused when the table is read.
            _ => Visibility::Protected,
        }
    }

    /// A declaration.
    pub fn is_undefined(&self) -> bool {
        self.has(SymbolFlags::UNDEFINED)
    }
    /// Weak, linkonce or extern_weak.
    pub fn is_weak(&self) -> bool {
        self.has(SymbolFlags::WEAK)
    }
    /// Common linkage.
    pub fn is_common(&self) -> bool {
        self.has(SymbolFlags::COMMON)
    }
    /// An alias or ifunc.
    pub fn is_indirect(&self) -> bool {
        self.has(SymbolFlags::INDIRECT)
    }
    /// Used (`llvm.used`/`llvm.compiler.used`, or an undefined inline-asm symbol).
    pub fn is_used(&self) -> bool {
        self.has(SymbolFlags::USED)
    }
    /// Thread-local.
    pub fn is_tls(&self) -> bool {
        self.has(SymbolFlags::TLS)
    }
    /// May be omitted from the object's symbol table.
    pub fn can_be_omitted(&self) -> bool {
        self.has(SymbolFlags::MAY_OMIT)
    }
    /// Not local.
    pub fn is_global(&self) -> bool {
        self.has(SymbolFlags::GLOBAL)
    }
    /// Private, `llvm.*` or in `llvm.metadata`: not a real symbol.
    pub fn is_format_specific(&self) -> bool {
        self.has(SymbolFlags::FORMAT_SPECIFIC)
    }
    /// `unnamed_addr`.
    pub fn is_unnamed_addr(&self) -> bool {
        self.has(SymbolFlags::UNNAMED_ADDR)
    }
    /// Code (a function or an alias/ifunc of one).
    pub fn is_executable(&self) -> bool {
        self.has(SymbolFlags::EXECUTABLE)
    }

    /// Whether `llvm-ar` lists it in an archive symbol table: global, defined and not
    /// format-specific (LLVM 19 `isArchiveSymbol`).
    pub fn in_archive_symbol_table(&self) -> bool {
        self.is_global() && !self.is_undefined() && !self.is_format_specific()
    }

    /// The letter `llvm-nm` (LLVM 19) prints for it: `w`/`W` weak, `U` undefined, `C` common,
    /// otherwise `t`/`T` code or `d`/`D` data, upper case when global.
    pub fn nm_letter(&self) -> char {
        if self.is_weak() {
            return if self.is_undefined() { 'w' } else { 'W' };
        }
        if self.is_undefined() {
            return 'U';
        }
        if self.is_common() {
            return 'C';
        }
        let c = if self.is_executable() { 't' } else { 'd' };
        if self.is_global() {
            c.to_ascii_uppercase()
        } else {
            c
        }
    }
}

/// A bitcode file's irsymtab.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Symtab<'d> {
    /// The layout version (`SYMTAB_VERSION`, 3 in LLVM 19).
    pub version: u32,
    /// The LLVM release that wrote it (`19.1.7`).
    pub producer: &'d [u8],
    /// The target triple of the first module.
    pub target_triple: &'d [u8],
    /// The source file name of the first module.
    pub source_filename: &'d [u8],
    /// COFF linker directives.
    pub coff_linker_opts: &'d [u8],
    /// Each module's range of symbols.
    pub modules: Vec<SymtabModule>,
    /// The comdats.
    pub comdats: Vec<Comdat<'d>>,
    /// The symbols, module by module, in module symbol table order.
    pub symbols: Vec<Symbol<'d>>,
    /// `llvm.dependent-libraries` entries (ELF).
    pub dependent_libraries: Vec<&'d [u8]>,
}

impl Symtab<'_> {
    /// Whether LLVM 19 itself wrote the table (it would use it as is rather than rebuild it).
    pub fn is_from_llvm19(&self) -> bool {
        self.producer == LLVM19_PRODUCER
    }
}

struct Tables<'d> {
    symtab: Reader<'d>,
    strtab: &'d [u8],
    strtab_offset: u64,
}

impl<'d> Tables<'d> {
    /// The module record at `at`.
    fn module(&self, at: u64) -> Result<SymtabModule> {
        let what = "bitcode symbol table module";
        Ok(SymtabModule {
            begin: self.word(at, what)?,
            end: self.word(at + 4, what)?,
            uncommon_begin: self.word(at + 8, what)?,
        })
    }

    /// The comdat record at `at`.
    fn comdat(&self, at: u64) -> Result<Comdat<'d>> {
        let what = "bitcode symbol table comdat";
        Ok(Comdat {
            name: self.str(at, what)?,
            selection_kind: self.word(at + 8, what)?,
        })
    }

    /// The symbol record at `at`, of module `module` (its uncommon fields empty), checked
    /// against the `ncomdats` comdats.
    fn symbol(&self, module: usize, at: u64, ncomdats: u64) -> Result<Symbol<'d>> {
        let what = "bitcode symbol";
        let offset = self.symtab.base() + at;
        let flags = self.word(at + 20, what)?;
        if flags & SymbolFlags::VISIBILITY_MASK == 3 || flags & !SymbolFlags::ALL != 0 {
            return Err(Error::Invalid {
                what,
                offset: offset + 20,
                reason: format!("unknown flag bits {flags:#x}"),
            });
        }
        let comdat = match self.word(at + 16, what)? {
            u32::MAX => None,
            c if u64::from(c) < ncomdats => Some(c),
            c => {
                return Err(Error::Invalid {
                    what,
                    offset: offset + 16,
                    reason: format!("comdat index {c} is outside the {ncomdats} comdats"),
                })
            }
        };
        Ok(Symbol {
            module,
            name: self.str(at, what)?,
            ir_name: self.str(at + 8, what)?,
            comdat,
            flags,
            common_size: 0,
            common_align: 0,
            coff_weak_external_fallback: &[],
            section_name: &[],
        })
    }

    /// Fills `sym`'s uncommon fields from the uncommon record at `at`.
    fn uncommon(&self, at: u64, sym: &mut Symbol<'d>) -> Result<()> {
        let what = "bitcode symbol uncommon record";
        sym.common_size = self.word(at, what)?;
        sym.common_align = self.word(at + 4, what)?;
        sym.coff_weak_external_fallback = self.str(at + 8, what)?;
        sym.section_name = self.str(at + 16, what)?;
        Ok(())
    }

    fn word(&self, pos: u64, what: &'static str) -> Result<u32> {
        let mut r = self.symtab.clone();
        r.seek(pos, what)?;
        Ok(r.u32_le(what)?)
    }

    /// A `Str` at `pos` of the symbol table.
    fn str(&self, pos: u64, what: &'static str) -> Result<&'d [u8]> {
        let off = u64::from(self.word(pos, what)?);
        let size = u64::from(self.word(pos + 4, what)?);
        usize::try_from(off)
            .ok()
            .zip(usize::try_from(off + size).ok())
            .and_then(|(a, b)| self.strtab.get(a..b))
            .ok_or_else(|| Error::Invalid {
                what,
                offset: self.symtab.base() + pos,
                reason: format!(
                    "string at {off:#x}+{size:#x} is outside the {:#x}-byte string table at \
                     {:#x}",
                    self.strtab.len(),
                    self.strtab_offset
                ),
            })
    }

    /// A `Range` at `pos`: the position of its first element and its count, checked against
    /// the table's size.
    fn range(&self, pos: u64, elem: u64, what: &'static str) -> Result<(u64, u64)> {
        let off = u64::from(self.word(pos, what)?);
        let count = u64::from(self.word(pos + 4, what)?);
        if off + count * elem > self.symtab.data().len() as u64 {
            return Err(Error::Invalid {
                what,
                offset: self.symtab.base() + pos,
                reason: format!(
                    "{count} entries of {elem} bytes at {off:#x} do not fit in the {:#x}-byte \
                     symbol table",
                    self.symtab.data().len()
                ),
            });
        }
        Ok((off, count))
    }
}

/// Reads the irsymtab `symtab` with its string table `strtab` (each with its absolute offset).
/// `file_offset` is where the bitcode starts (for errors about a missing table).
pub(super) fn read<'d>(
    (symtab, symtab_offset): (&'d [u8], u64),
    (strtab, strtab_offset): (&'d [u8], u64),
    file_offset: u64,
) -> Result<Symtab<'d>> {
    if symtab.len() < HEADER_SIZE as usize || strtab.is_empty() {
        return Err(Error::Unsupported {
            what: "bitcode",
            offset: file_offset,
            reason: "it has no symbol table (LLVM rebuilds one from the module, which offkit \
                     does not do)"
                .into(),
        });
    }
    let t = Tables {
        symtab: Reader::new(symtab, symtab_offset),
        strtab,
        strtab_offset,
    };
    let version = t.word(0, "bitcode symbol table version")?;
    if version != SYMTAB_VERSION {
        return Err(Error::UnsupportedVersion {
            what: "bitcode symbol table",
            offset: symtab_offset,
            version: u64::from(version),
            known: "3 (LLVM 19 rebuilds other versions from the module)",
        });
    }
    let producer = t.str(4, "bitcode symbol table producer")?;
    let (mods_at, nmods) = t.range(12, MODULE_SIZE, "bitcode symbol table modules")?;
    let (comdats_at, ncomdats) = t.range(20, COMDAT_SIZE, "bitcode symbol table comdats")?;
    let (syms_at, nsyms) = t.range(28, SYMBOL_SIZE, "bitcode symbol table symbols")?;
    let (uncs_at, nuncs) = t.range(36, UNCOMMON_SIZE, "bitcode symbol table uncommons")?;
    let target_triple = t.str(44, "bitcode symbol table triple")?;
    let source_filename = t.str(52, "bitcode symbol table source file name")?;
    let coff_linker_opts = t.str(60, "bitcode symbol table linker options")?;
    let (libs_at, nlibs) = t.range(68, STR_SIZE, "bitcode symbol table dependent libraries")?;

    // Every count was checked against the table's size, so these allocations are bounded by
    // the input.
    let modules = (0..nmods)
        .map(|i| t.module(mods_at + i * MODULE_SIZE))
        .collect::<Result<Vec<_>>>()?;
    let comdats = (0..ncomdats)
        .map(|i| t.comdat(comdats_at + i * COMDAT_SIZE))
        .collect::<Result<Vec<_>>>()?;
    let dependent_libraries = (0..nlibs)
        .map(|i| t.str(libs_at + i * STR_SIZE, "bitcode dependent library"))
        .collect::<Result<Vec<_>>>()?;

    let mut symbols = Vec::with_capacity(nsyms as usize);
    for (mi, m) in modules.iter().enumerate() {
        let bad_module = |reason: String| Error::Invalid {
            what: "bitcode symbol table module",
            offset: symtab_offset + mods_at + mi as u64 * MODULE_SIZE,
            reason,
        };
        if m.begin > m.end || u64::from(m.end) > nsyms {
            return Err(bad_module(format!(
                "symbols {}..{} are outside the {nsyms} symbols",
                m.begin, m.end
            )));
        }
        let mut unc = u64::from(m.uncommon_begin);
        for si in u64::from(m.begin)..u64::from(m.end) {
            let mut sym = t.symbol(mi, syms_at + si * SYMBOL_SIZE, ncomdats)?;
            if sym.flags & SymbolFlags::HAS_UNCOMMON != 0 {
                if unc >= nuncs {
                    return Err(bad_module(format!(
                        "symbol {si} needs uncommon record {unc} of {nuncs}"
                    )));
                }
                t.uncommon(uncs_at + unc * UNCOMMON_SIZE, &mut sym)?;
                unc += 1;
            }
            symbols.push(sym);
        }
    }
    Ok(Symtab {
        version,
        producer,
        target_triple,
        source_filename,
        coff_linker_opts,
        modules,
        comdats,
        symbols,
        dependent_libraries,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(syms: &[(u32, u32, u32)], flags: u32) -> (Vec<u8>, Vec<u8>) {
        let strtab = b"19.1.7x86_64-pc-linux-gnua.cfoo".to_vec();
        let mut w = Vec::new();
        let n = syms.len() as u32;
        let words: [u32; 19] = [
            3,
            0,
            6, // version, producer
            76,
            1, // modules
            88,
            0, // comdats
            88,
            n, // symbols
            88 + 24 * n,
            0, // uncommons
            6,
            19, // triple
            25,
            3, // source
            0,
            0, // linker opts
            88 + 24 * n,
            0, // libs
        ];
        for x in words {
            w.extend_from_slice(&x.to_le_bytes());
        }
        for x in [0u32, n, 0] {
            w.extend_from_slice(&x.to_le_bytes());
        }
        for &(off, size, comdat) in syms {
            for x in [off, size, off, size, comdat, flags] {
                w.extend_from_slice(&x.to_le_bytes());
            }
        }
        (w, strtab)
    }

    #[test]
    fn reads_a_table() {
        let flags = SymbolFlags::GLOBAL | SymbolFlags::EXECUTABLE | 1;
        let (s, st) = table(&[(28, 3, u32::MAX)], flags);
        let t = read((&s, 0x100), (&st, 0x200), 0).unwrap();
        assert!(t.is_from_llvm19());
        assert_eq!(t.target_triple, b"x86_64-pc-linux-gnu");
        assert_eq!(t.source_filename, b"a.c");
        assert_eq!(t.symbols.len(), 1);
        let s0 = t.symbols[0];
        assert_eq!(s0.name, b"foo");
        assert_eq!(s0.visibility(), Visibility::Hidden);
        assert!(s0.in_archive_symbol_table());
        assert_eq!(s0.nm_letter(), 'T');
    }

    #[test]
    fn refuses_bad_tables() {
        let (s, st) = table(&[(28, 4, u32::MAX)], 0);
        assert!(matches!(
            read((&s, 0), (&st, 0), 0),
            Err(Error::Invalid { .. })
        ));
        let (s, st) = table(&[(28, 3, 0)], 0);
        assert!(read((&s, 0), (&st, 0), 0).is_err());
        let (s, st) = table(&[(28, 3, u32::MAX)], 3);
        assert!(read((&s, 0), (&st, 0), 0).is_err());
        let (mut s, st) = table(&[(28, 3, u32::MAX)], 0);
        s[0] = 4;
        assert!(matches!(
            read((&s, 0), (&st, 0), 0),
            Err(Error::UnsupportedVersion { version: 4, .. })
        ));
        assert!(matches!(
            read((&s[..40], 0), (&st, 0), 0),
            Err(Error::Unsupported { .. })
        ));
        for cut in 76..s.len() {
            let (mut s, st) = table(&[(28, 3, u32::MAX)], 0);
            s.truncate(cut);
            assert!(read((&s, 0), (&st, 0), 0).is_err(), "cut {cut}");
        }
    }
}
