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
}

/// What the wrapper can tell about an image's symbols.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Symbols {
    /// An ELF relocatable object: its global symbols.
    Object(Vec<Symbol>),
    /// LLVM bitcode. Its IR symbol table is read by `offkit_format::bitcode` once that lands;
    /// until then a bitcode member is taken to define a new visible global (which is what
    /// LLVM 19 decides for every member that has one, e.g. each device runtime member).
    Bitcode,
    /// Anything else (never extracted from an archive).
    Other,
}

/// Reads the symbols of `image`.
pub fn read(image: &[u8], base: u64) -> Result<Symbols, offkit_format::Error> {
    match magic(image) {
        Magic::Bitcode => Ok(Symbols::Bitcode),
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
                });
            }
            Ok(Symbols::Object(out))
        }
        _ => Ok(Symbols::Other),
    }
}
