//! The symbols of a device image, as the wrapper's archive resolution sees them (LLVM 19's
//! `getSymbolsFromObject`): only global symbols that are not format-specific (section, file and
//! the null symbol are), each with whether it is undefined, weak or hidden.

use object::{Object, ObjectSymbol, SymbolFlags};

use crate::scan::{magic, Magic};

/// One symbol of a device image.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Symbol {
    /// Its name.
    pub name: String,
    /// `SHN_UNDEF`.
    pub undefined: bool,
    /// `STB_WEAK`.
    pub weak: bool,
    /// `STV_HIDDEN`.
    pub hidden: bool,
    /// A bitcode symbol that may be left out of the object's symbol table
    /// (`canBeOmittedFromSymbolTable`; never for ELF).
    pub omittable: bool,
}

/// What the wrapper can tell about an image's symbols.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Symbols {
    /// An ELF relocatable object or a bitcode module (its irsymtab): its global symbols.
    Object(Vec<Symbol>),
    /// Anything else (never extracted from an archive).
    Other,
}

/// Reads the symbols of `image`.
pub fn read(image: &[u8], base: u64) -> Result<Symbols, offkit_format::Error> {
    match magic(image) {
        Magic::Bitcode => {
            // LLVM 19's `getSymbolsFromBitcode`: the irsymtab's symbols of every module,
            // without format-specific and local ones.
            let table = offkit_llvm::bitcode::symbol_table(image, base)?;
            Ok(Symbols::Object(
                table
                    .symbols
                    .iter()
                    .filter(|s| !s.is_format_specific() && s.is_global())
                    .map(|s| Symbol {
                        name: String::from_utf8_lossy(s.name).into_owned(),
                        undefined: s.is_undefined(),
                        weak: s.is_weak(),
                        hidden: s.visibility() == offkit_llvm::bitcode::Visibility::Hidden,
                        omittable: s.can_be_omitted(),
                    })
                    .collect(),
            ))
        }
        Magic::ElfRelocatable => {
            let file =
                object::File::parse(image).map_err(|source| offkit_format::Error::Object {
                    what: "device image",
                    offset: base,
                    source,
                })?;
            let mut out = Vec::new();
            for sym in file.symbols() {
                let SymbolFlags::Elf { st_info, st_other } = sym.flags() else {
                    continue;
                };
                let bind = st_info.st_bind();
                let ty = st_info.st_type();
                // Local symbols and STT_SECTION / STT_FILE are not for resolution.
                if bind == object::elf::STB_LOCAL
                    || ty == object::elf::STT_SECTION
                    || ty == object::elf::STT_FILE
                {
                    continue;
                }
                let Ok(name) = sym.name_bytes() else { continue };
                if name.is_empty() {
                    continue;
                }
                out.push(Symbol {
                    name: String::from_utf8_lossy(name).into_owned(),
                    undefined: sym.is_undefined(),
                    weak: bind == object::elf::STB_WEAK,
                    hidden: st_other.visibility() == object::elf::STV_HIDDEN,
                    omittable: false,
                });
            }
            Ok(Symbols::Object(out))
        }
        _ => Ok(Symbols::Other),
    }
}
