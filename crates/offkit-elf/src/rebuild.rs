//! Rebuilding an object through `object`'s ELF builder, carrying through the section types it
//! rejects.
//!
//! The builder refuses section types it does not parse; clang's objects carry some
//! (`SHT_LLVM_ADDRSIG` always, `SHT_GROUP` for COMDATs, `SHT_LLVM_OFFLOADING`). Their contents
//! are section or symbol indices, or no indices at all, so they are carried through as bytes:
//! the builder reads them as `SHT_PROGBITS` and gets their type back before the caller's edit.
//! That is sound because no index moves: the builder keeps section order, and keeps symbol
//! order when the local symbols come first, which [`rebuild`] checks.

use object::build::elf::Builder;
use object::elf;
use object::read::elf::{FileHeader, Sym};
use object::Endianness;

use crate::elf::Elf;
use crate::error::{Error, Result};
use crate::model::{Class, Section};

/// The section types `object`'s builder rejects, carried through as bytes: `SHT_GROUP`, and
/// LLVM's `SHT_LLVM_ODRTAB`, `SHT_LLVM_LINKER_OPTIONS`, `SHT_LLVM_ADDRSIG`,
/// `SHT_LLVM_CALL_GRAPH_PROFILE`, `SHT_LLVM_BB_ADDR_MAP` and `SHT_LLVM_OFFLOADING`
/// (`offkit_format::container::SHT_LLVM_OFFLOADING`).
pub const CARRIED: [elf::SectionType; 7] = [
    elf::SHT_GROUP,
    elf::SectionType(0x6fff_4c00),
    elf::SectionType(0x6fff_4c01),
    elf::SectionType(0x6fff_4c03),
    elf::SectionType(0x6fff_4c09),
    elf::SectionType(0x6fff_4c0a),
    elf::SectionType(0x6fff_4c0b),
];

/// Rebuilds the object `elf` through `object`'s builder: the sections of the types in
/// [`CARRIED`] are read as `SHT_PROGBITS` and given their types back, then `edit` changes the
/// builder, which writes the result. An `E` holds this crate's errors, so that `edit` fails
/// with the caller's own.
///
/// The builder panics on an alignment that is 0 or not a power of two: `edit` makes them safe
/// (`offkit_format::container::builder_alignments`).
///
/// ```
/// let obj = object::write::Object::new(
///     object::BinaryFormat::Elf,
///     object::Architecture::X86_64,
///     object::Endianness::Little,
/// )
/// .write()
/// .unwrap();
/// let elf = offkit_elf::Elf::parse(&obj).unwrap();
/// let out = offkit_elf::rebuild(&elf, |b| -> offkit_elf::Result<()> {
///     let s = b.sections.add();
///     s.name = b".comment"[..].into();
///     s.sh_type = object::elf::SHT_PROGBITS;
///     s.sh_addralign = 1;
///     Ok(())
/// })
/// .unwrap();
/// let out = offkit_elf::Elf::parse(&out).unwrap();
/// assert_eq!(out.section_name(out.sections().len() - 1).unwrap(), b".comment");
/// ```
pub fn rebuild<E: From<Error>>(
    elf: &Elf<'_>,
    edit: impl FnOnce(&mut Builder<'_>) -> std::result::Result<(), E>,
) -> std::result::Result<Vec<u8>, E> {
    let (copy, carried) = mark(elf)?;
    let mut b = Builder::read(copy.as_slice()).map_err(Error::Rebuild)?;
    for (i, s) in b.sections.iter_mut().enumerate() {
        // The builder's sections do not include the null section.
        if let Some(&(_, ty)) = carried.iter().find(|(at, _)| *at == i + 1) {
            s.sh_type = ty;
        }
    }
    edit(&mut b)?;
    let mut out = Vec::new();
    b.write(&mut out).map_err(Error::Rebuild)?;
    Ok(out)
}

/// The sections carried through: their indices and types.
type Carried = Vec<(usize, elf::SectionType)>;

/// A copy of `elf`'s bytes with the sections of the carried types marked `SHT_PROGBITS`, and
/// their indices and types; checks that the local symbols come first when there are any.
fn mark(elf: &Elf<'_>) -> Result<(Vec<u8>, Carried)> {
    let carried: Carried = elf
        .sections()
        .iter()
        .enumerate()
        .filter(|(_, s)| CARRIED.contains(&s.sh_type))
        .map(|(i, s)| (i, s.sh_type))
        .collect();
    if carried.is_empty() {
        return Ok((elf.data().to_vec(), carried));
    }
    match elf.header().class {
        Class::Elf32 => locals_first::<elf::FileHeader32<Endianness>>(elf)?,
        Class::Elf64 => locals_first::<elf::FileHeader64<Endianness>>(elf)?,
    }
    let mut ed = crate::Editor::new(elf);
    for &(i, _) in &carried {
        if let Some(s) = ed.section_mut(i) {
            s.sh_type = elf::SHT_PROGBITS;
        }
    }
    Ok((ed.write_in_place()?, carried))
}

/// Checks that no local symbol of the symbol table follows a global one.
fn locals_first<H: FileHeader<Endian = Endianness>>(elf: &Elf<'_>) -> Result<()> {
    let (data, e) = (elf.data(), elf.header().endian);
    let bad = |offset| {
        move |source| Error::Malformed {
            what: "symbol table",
            offset,
            source,
        }
    };
    let h = H::parse(data).map_err(bad(0))?;
    let shoff = elf.header().e_shoff;
    let sections = h.sections(e, data).map_err(bad(shoff))?;
    let symbols = sections
        .symbols(e, data, elf::SHT_SYMTAB)
        .map_err(bad(shoff))?;
    let table = elf
        .section(symbols.section().0)
        .map_or(0, |s: &Section| s.sh_offset);
    let mut seen_global = false;
    for (index, sym) in symbols.symbols().iter().enumerate() {
        let local = sym.st_bind() == elf::STB_LOCAL;
        if local && seen_global {
            let offset = table.saturating_add((index * size_of::<H::Sym>()) as u64);
            return Err(Error::LocalAfterGlobal { index, offset });
        }
        seen_global |= !local;
    }
    Ok(())
}
