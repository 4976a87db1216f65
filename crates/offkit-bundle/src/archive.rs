//! Archives: reading the members of an input library, and writing the per-target device
//! libraries that unbundling an archive produces (GNU format, deterministic, with a symbol table
//! as LLVM's `writeArchive` builds it).
//!
//! The symbol table lists, for each member in order, its defined global symbols: ELF symbols in
//! symbol table order (global or weak, defined or common, not section or file symbols), and
//! for **bitcode** members (HIP `-fgpu-rdc` device code is bitcode) the module's symbols as
//! `llvm-ar` lists them, read by `offkit_llvm::bitcode` (`ar_archive_writer`'s own reader
//! does not read bitcode). A bitcode member that does not parse contributes no symbols, as in
//! LLVM (which warns `Malformed block`).

use std::io::{self, Cursor};

use ar_archive_writer::{ArchiveKind, NewArchiveMember, ObjectReader};
use object::read::archive::ArchiveFile;
use object::read::{Object, ObjectSymbol};

/// Archive members: each member's name and its bytes.
pub type Members<'d> = Vec<(Vec<u8>, &'d [u8])>;

/// The members of an archive, in order: each member's name (as the archive spells it, long
/// names resolved) and its bytes.
pub fn read_members(data: &[u8]) -> object::Result<Members<'_>> {
    let a = ArchiveFile::parse(data)?;
    let mut out = Vec::new();
    for m in a.members() {
        let m = m?;
        out.push((m.name().to_vec(), m.data(data)?));
    }
    Ok(out)
}

/// The members of an archive as LLVM 19's `Archive` iterates them for the bundler, or the
/// message LLVM prints for a file it cannot open as an archive. A member that cannot be read
/// ends the iteration silently, as it does in LLVM 19's `UnbundleArchive`.
pub fn llvm19_members(data: &[u8]) -> crate::Result<Members<'_>> {
    let llvm = |m: String| crate::Error::Llvm19Archive(m);
    if !is_archive(data) {
        return Err(llvm("file too small to be an archive".into()));
    }
    if data.len() > 8 && data.len() < 8 + 60 {
        return Err(llvm("truncated or malformed archive (remaining size of archive too small for next archive member header at offset 8)".into()));
    }
    let a = ArchiveFile::parse(data)
        .map_err(|e| llvm(format!("truncated or malformed archive ({e})")))?;
    let mut out = Vec::new();
    for m in a.members() {
        let Ok(m) = m else { break };
        let Ok(d) = m.data(data) else { break };
        out.push((m.name().to_vec(), d));
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
    if offkit_llvm::bitcode::is_bitcode(buf) {
        let Ok(syms) = offkit_llvm::bitcode::archive_symbols(buf, 0) else {
            return Ok(false);
        };
        for s in syms {
            f(s)?;
        }
        return Ok(true);
    }
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
    let mut bytes = out.into_inner();
    // LLVM writes a symbol table (possibly empty) only when some member is a symbolic file;
    // `ar_archive_writer` writes one for any member. Without symbolic members the table holds
    // no symbols, so dropping it changes no other offset.
    let mut any_symbolic = false;
    for (_, data) in members {
        any_symbolic |= symbols(data, &mut |_| Ok(()))?;
    }
    if !any_symbolic && bytes.get(8..10) == Some(b"/ ") {
        let size: usize = bytes
            .get(8 + 48..8 + 58)
            .and_then(|f| std::str::from_utf8(f).ok())
            .and_then(|f| f.trim().parse().ok())
            .unwrap_or(0);
        let end = 8 + 60 + size + size % 2;
        if end <= bytes.len() {
            bytes.drain(8..end);
        }
    }
    Ok(bytes)
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
