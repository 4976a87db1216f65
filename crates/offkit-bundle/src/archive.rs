//! Archives: reading the members of an input library, and writing the per-target device
//! libraries that unbundling an archive produces (GNU format, deterministic, with a symbol table
//! as LLVM's `writeArchive` builds it).
//!
//! The symbol table lists, for each member in order, its defined global symbols: ELF symbols in
//! symbol table order (global or weak, defined or common, not section or file symbols). LLVM
//! also lists the symbols of **bitcode** members (HIP `-fgpu-rdc` device code is bitcode);
//! `ar_archive_writer`'s own reader does not read bitcode, so bitcode members contribute no
//! symbols here until offkit's bitcode symbol reader is wired in (see [`symbols`]).

use std::io::{self, Cursor};

use ar_archive_writer::{ArchiveKind, NewArchiveMember, ObjectReader};
use object::read::archive::ArchiveFile;
use object::read::{Object, ObjectSymbol};

/// The members of an archive, in order: each member's name (as the archive spells it, long
/// names resolved) and its bytes.
pub fn read_members(data: &[u8]) -> object::Result<Vec<(Vec<u8>, &[u8])>> {
    let a = ArchiveFile::parse(data)?;
    let mut out = Vec::new();
    for m in a.members() {
        let m = m?;
        out.push((m.name().to_vec(), m.data(data)?));
    }
    Ok(out)
}

/// Whether `data` starts like an ar archive.
pub fn is_archive(data: &[u8]) -> bool {
    data.starts_with(b"!<arch>\n") || data.starts_with(b"!<thin>\n")
}

/// The symbols LLVM's archive writer would list for one member (see the module docs); reports
/// whether the member is a symbolic file at all.
pub fn symbols(buf: &[u8], f: &mut dyn FnMut(&[u8]) -> io::Result<()>) -> io::Result<bool> {
    let Ok(file) = object::File::parse(buf) else {
        return Ok(false);
    };
    for sym in file.symbols() {
        let defined = !sym.is_undefined();
        let global = sym.is_global() || sym.is_weak();
        let format_specific = matches!(
            sym.kind(),
            object::SymbolKind::Section | object::SymbolKind::File
        );
        if defined && global && !format_specific {
            if let Ok(name) = sym.name_bytes() {
                f(name)?;
            }
        }
    }
    Ok(true)
}

fn is_64_bit(buf: &[u8]) -> bool {
    object::File::parse(buf).is_ok_and(|f| f.is_64())
}

static READER: ObjectReader = ObjectReader {
    get_symbols: symbols,
    is_64_bit_object_file: is_64_bit,
    is_ec_object_file: |_| false,
    is_any_arm64_coff: |_| false,
    get_xcoff_member_alignment: |_| 2,
};

/// Writes a GNU archive of `members` (name, bytes), in order, with a symbol table.
pub fn write(members: &[(String, &[u8])]) -> io::Result<Vec<u8>> {
    let new: Vec<NewArchiveMember<'_>> = members
        .iter()
        .map(|(name, data)| NewArchiveMember::new(*data, &READER, name.clone()))
        .collect();
    let mut out = Cursor::new(Vec::new());
    ar_archive_writer::write_archive_to_stream(&mut out, &new, ArchiveKind::Gnu, false, None)?;
    Ok(out.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_and_round_trip() {
        assert_eq!(write(&[]).unwrap(), b"!<arch>\n");
        let a = write(&[
            ("a-very-long-member-name.o".into(), b"hello"),
            ("b.o".into(), b"x"),
        ])
        .unwrap();
        assert!(is_archive(&a));
        let m = read_members(&a).unwrap();
        assert_eq!(m.len(), 2);
        assert_eq!(m[0].0, b"a-very-long-member-name.o");
        assert_eq!(m[1].1, b"x");
    }
}
