//! Extraction: `clang-offload-packager INPUT --image=key=value,… [--archive]`.
//!
//! The input is read as LLVM 19's `extractOffloadBinaries` reads it: by its magic (LLVM's
//! `identify_magic`) a raw offload binary, an ELF relocatable/executable/shared object (every
//! section of type `SHT_LLVM_OFFLOADING`), a COFF object (sections named `.llvm.offloading*`),
//! an archive (each member, recursively; a thin archive's members from their files) or an LLVM
//! bitcode file (the `llvm.embedded.object` globals); anything else holds no images. Each
//! `--image` is a filter; its matches are written under LLVM's names.

use std::borrow::Cow;
use std::io::Cursor;
use std::path::Path;

use ar_archive_writer::{ArchiveKind, NewArchiveMember, ObjectReader, DEFAULT_OBJECT_READER};
use object::read::archive::ArchiveFile;
use object::{Object, ObjectSection, ObjectSymbol, SymbolKind};
use offkit_format::binary::{self, Entry};
use offkit_format::container::{elf_sections, SHT_LLVM_OFFLOADING};
use offkit_format::kind::OffloadKind;
use offkit_format::limits;
use offkit_tools::mmap::MappedFile;

use super::files::{commit, message, stage_file, stem, Outputs};
use super::package::ImageArgs;
use super::Reporter;

/// `object_error::parse_failed`.
const PARSE_FAILED: &str = "Invalid data was encountered while parsing the file";
/// `object_error::unexpected_eof`.
const UNEXPECTED_EOF: &str = "The end of the file was unexpectedly encountered";

/// One image found in the input, with the name LLVM gives its buffer (the input path, an
/// archive member's name, or a bitcode module's identifier).
struct Found<'d> {
    name: String,
    entry: Entry<'d>,
}

/// Runs extraction mode; `Err` is the message LLVM would print after `error: `.
pub fn run(
    input: &str,
    images: &[String],
    archive: bool,
    reporter: &Reporter,
) -> Result<(), String> {
    let (data, name) = if input == "-" {
        let d = MappedFile::stdin().map_err(|e| format!("'{input}': {}", message(&e)))?;
        (d, "<stdin>".to_string())
    } else {
        let d = MappedFile::open_llvm(Path::new(input))
            .map_err(|e| format!("'{input}': {}", message(&e)))?;
        (d, input.to_string())
    };
    let dir = (input != "-").then(|| {
        Path::new(input)
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default()
    });
    let mut found = Vec::new();
    collect(&data, 0, &name, dir.as_deref(), 0, &mut found)?;
    let mut outs = Outputs::default();
    for filter in images {
        let args = ImageArgs::parse(filter);
        let matched: Vec<&Found<'_>> = found.iter().filter(|f| matches(&args, &f.entry)).collect();
        let Some(last) = matched.last() else {
            continue;
        };
        if archive {
            let Some(file) = args.get("file") else {
                return Err("Image must have a 'file' argument.".into());
            };
            write_archive(&mut outs, file, &matched)?;
        } else if let Some(file) = args.get("file") {
            if matched.len() > 1 {
                reporter.warning(&format!("Multiple inputs match to a single file, '{file}'"));
            }
            stage_file(&mut outs, file, &last.entry.image)?;
        } else {
            for (i, f) in matched.iter().enumerate() {
                let e = &f.entry;
                let out = format!(
                    "{}-{}-{}.{i}.{}",
                    stem(input),
                    e.triple(),
                    e.arch(),
                    e.image_kind.extension()
                );
                stage_file(&mut outs, &out, &e.image)?;
            }
        }
    }
    commit(outs)
}

/// Whether `entry` passes the filter: `file` is ignored, `kind` compares offload kinds, every
/// other key must equal the entry's string (a missing one reads as empty).
fn matches(args: &ImageArgs, entry: &Entry<'_>) -> bool {
    args.pairs.iter().all(|(k, v)| match k.as_str() {
        "file" => true,
        "kind" => entry.offload_kind == OffloadKind::from_name_llvm19(v),
        _ => entry.string(k).unwrap_or_default() == v.as_bytes(),
    })
}

/// What LLVM's `identify_magic` says, for the kinds the packager reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Magic {
    OffloadBinary,
    Bitcode,
    Archive,
    Elf,
    Coff,
    Other,
}

fn identify(d: &[u8]) -> Magic {
    if d.len() < 4 {
        return Magic::Other;
    }
    if d.starts_with(&binary::MAGIC) {
        return Magic::OffloadBinary;
    }
    if d.starts_with(b"BC\xC0\xDE") || d.starts_with(&[0xDE, 0xC0, 0x17, 0x0B]) {
        return Magic::Bitcode;
    }
    if d.starts_with(b"!<arch>\n") || d.starts_with(b"!<thin>\n") || d.starts_with(b"<bigaf>\n") {
        return Magic::Archive;
    }
    if d.starts_with(b"\x7fELF") && d.len() >= 18 {
        // e_type, in the file's byte order: relocatable, executable or shared object (LLVM's
        // packager skips core files and anything else).
        let msb = d[5] == 2;
        let (high, low) = if msb { (d[16], d[17]) } else { (d[17], d[16]) };
        return if high == 0 && (1..=3).contains(&low) {
            Magic::Elf
        } else {
            Magic::Other
        };
    }
    match (d[0], d[1]) {
        (0x4c | 0xc4, 0x01)
        | (0x4c | 0xc4 | 0x90 | 0x68, 0x02)
        | (0x64, 0x86 | 0xaa)
        | (0x41, 0xa6) => Magic::Coff,
        _ => Magic::Other,
    }
}

fn collect<'d>(
    data: &'d [u8],
    base: u64,
    name: &str,
    dir: Option<&Path>,
    depth: usize,
    out: &mut Vec<Found<'d>>,
) -> Result<(), String> {
    if depth > limits::MAX_NESTING_DEPTH {
        return Err(format!(
            "'{name}': archives nest deeper than {} levels (MAX_NESTING_DEPTH)",
            limits::MAX_NESTING_DEPTH
        ));
    }
    match identify(data) {
        Magic::OffloadBinary => binaries(data, base, name, out),
        Magic::Elf => {
            let sections = elf_sections(data, base, |_, t| t == SHT_LLVM_OFFLOADING)
                .map_err(|e| e.to_string())?;
            for s in sections {
                binaries(s.data, s.offset, name, out)?;
            }
            Ok(())
        }
        Magic::Coff => {
            let file = object::read::coff::CoffFile::<&[u8]>::parse(data)
                .map_err(|e| format!("malformed COFF object: {e}"))?;
            for s in file.sections() {
                if !s
                    .name_bytes()
                    .is_ok_and(|n| n.starts_with(b".llvm.offloading"))
                {
                    continue;
                }
                let (off, _) = s.file_range().unwrap_or((0, 0));
                let contents = s
                    .data()
                    .map_err(|e| format!("malformed COFF section: {e}"))?;
                binaries(contents, base + off, name, out)?;
            }
            Ok(())
        }
        Magic::Archive => {
            let archive =
                ArchiveFile::parse(data).map_err(|e| format!("malformed archive: {e}"))?;
            for member in archive.members() {
                let member = member.map_err(|e| format!("malformed archive: {e}"))?;
                let member_name = String::from_utf8_lossy(member.name()).into_owned();
                if member.is_thin() {
                    // A thin archive's member lives in its own file, next to the archive.
                    let path = dir.unwrap_or(Path::new("")).join(&member_name);
                    let file = MappedFile::open_llvm(&path)
                        .map_err(|e| format!("'{}': {}", path.display(), message(&e)))?;
                    let mut inner = Vec::new();
                    collect(&file, 0, &member_name, None, depth + 1, &mut inner)?;
                    out.extend(inner.into_iter().map(|f| Found {
                        name: f.name,
                        entry: f.entry.into_owned(),
                    }));
                    continue;
                }
                let (off, _) = member.file_range();
                let bytes = member
                    .data(data)
                    .map_err(|e| format!("malformed archive: {e}"))?;
                collect(bytes, base + off, &member_name, None, depth + 1, out)?;
            }
            Ok(())
        }
        Magic::Bitcode => {
            for bytes in bitcode_embedded_objects(data, base)? {
                let mut inner = Vec::new();
                binaries(&bytes, 0, name, &mut inner)?;
                out.extend(inner.into_iter().map(|f| Found {
                    name: f.name,
                    entry: f.entry.into_owned(),
                }));
            }
            Ok(())
        }
        Magic::Other => Ok(()),
    }
}

/// The offload objects embedded in an LLVM bitcode file (`-flto` host objects): the
/// initializers of the globals listed in `!llvm.embedded.objects` with section
/// `.llvm.offloading` (offkit's bitcode reader). Where LLVM cannot load the module it says
/// "Failed to create module"; where offkit does not do what LLVM would, its own message.
fn bitcode_embedded_objects(data: &[u8], base: u64) -> Result<Vec<Cow<'_, [u8]>>, String> {
    match offkit_format::bitcode::embedded_objects(data, base) {
        Ok(objects) => Ok(objects.into_iter().map(|o| o.data).collect()),
        Err(e @ offkit_format::Error::Unsupported { .. }) => Err(e.to_string()),
        Err(_) => Err("Failed to create module".into()),
    }
}

/// The names LLVM's archive writer lists in the symbol table for a bitcode member (its
/// irsymtab, read by offkit's bitcode reader); `Err` where offkit cannot do what LLVM would
/// (rebuild a missing table from the module).
fn bitcode_archive_symbols(data: &[u8]) -> Result<Vec<&[u8]>, String> {
    offkit_format::bitcode::archive_symbols(data, 0).map_err(|e| e.to_string())
}

/// Reads the offload binaries of one section (or raw file) as LLVM 19 does: version 1 only,
/// each at the end of the previous one, with LLVM's checks and messages; where LLVM would read
/// out of bounds, offkit's own message.
fn binaries<'d>(
    data: &'d [u8],
    base: u64,
    name: &str,
    out: &mut Vec<Found<'d>>,
) -> Result<(), String> {
    let mut pos = 0usize;
    while pos < data.len() {
        let rest = data.get(pos..).unwrap_or_default();
        llvm19_checks(rest)?;
        let b = binary::parse_one(rest, base + pos as u64).map_err(|e| e.to_string())?;
        pos += b.size as usize;
        for entry in b.entries {
            if out.len() >= limits::MAX_ROWS {
                return Err(format!(
                    "more than {} offload images (MAX_ROWS)",
                    limits::MAX_ROWS
                ));
            }
            out.push(Found {
                name: name.to_string(),
                entry,
            });
        }
    }
    Ok(())
}

fn u64_at(d: &[u8], at: u64) -> Option<u64> {
    let at = usize::try_from(at).ok()?;
    d.get(at..at.checked_add(8)?)
        .and_then(|b| b.try_into().ok())
        .map(u64::from_le_bytes)
}

/// The checks of LLVM 19's `OffloadBinary::create`, run on the rest of the section and then on
/// a copy of the binary's own `size` bytes, with the errors they give.
fn llvm19_checks(rest: &[u8]) -> Result<(), String> {
    let fail = |m: &str| Err(m.to_string());
    let checks = |buf: &[u8]| -> Result<(), String> {
        if buf.len() < 72
            || !buf.starts_with(&binary::MAGIC)
            || buf.get(4..8) != Some(&[1, 0, 0, 0])
        {
            return fail(PARSE_FAILED);
        }
        let field = |at| u64_at(buf, at).unwrap_or(u64::MAX);
        let (size, entry_offset, entry_size) = (field(8), field(16), field(24));
        if size > buf.len() as u64 || size < 40 {
            return fail(UNEXPECTED_EOF);
        }
        if entry_offset > size - 40 || entry_size > size - 32 {
            return fail(UNEXPECTED_EOF);
        }
        // The entry lies within `size` bytes now.
        let (strings, image) = (field(entry_offset + 8), field(entry_offset + 24));
        if image > buf.len() as u64 || strings > buf.len() as u64 {
            return fail(UNEXPECTED_EOF);
        }
        Ok(())
    };
    checks(rest)?;
    let size = u64_at(rest, 8).unwrap_or(0) as usize;
    checks(rest.get(..size).unwrap_or_default())
}

/// The symbols LLVM's archive writer indexes for a member: `SF_Global`, defined, and not
/// format-specific (file and section symbols; `object` skips the null symbol); bitcode through the IR symbol table.
/// Unlike the crate's default reader this never panics on a malformed object.
fn archive_symbols(
    buf: &[u8],
    f: &mut dyn FnMut(&[u8]) -> std::io::Result<()>,
) -> std::io::Result<bool> {
    if identify(buf) == Magic::Bitcode {
        // `write_archive` checked that the table can be read.
        for n in bitcode_archive_symbols(buf).unwrap_or_default() {
            f(n)?;
        }
        return Ok(true);
    }
    let Ok(file) = object::File::parse(buf) else {
        return Ok(false);
    };
    for sym in file.symbols() {
        if matches!(sym.kind(), SymbolKind::File | SymbolKind::Section)
            || sym.is_local()
            || sym.is_undefined()
        {
            continue;
        }
        if let Ok(name) = sym.name_bytes() {
            f(name)?;
        }
    }
    Ok(true)
}

static READER: ObjectReader = ObjectReader {
    get_symbols: archive_symbols,
    ..DEFAULT_OBJECT_READER
};

/// Whether LLVM's archive writer reads symbols from a member (`SymbolicFile::isSymbolicFile`):
/// objects of the formats LLVM knows, and bitcode.
fn is_symbolic(data: &[u8]) -> bool {
    use object::FileKind;
    identify(data) == Magic::Bitcode
        || matches!(
            FileKind::parse(data),
            Ok(FileKind::Elf32
                | FileKind::Elf64
                | FileKind::Coff
                | FileKind::CoffBig
                | FileKind::CoffImport
                | FileKind::MachO32
                | FileKind::MachO64)
        )
}

/// Writes the matched images as LLVM 19's `writeArchive` does for the packager: GNU format,
/// deterministic (mtime, uid, gid 0, mode 644), a symbol table of the object members, each
/// member named after the buffer the image came from.
fn write_archive(outs: &mut Outputs, file: &str, matched: &[&Found<'_>]) -> Result<(), String> {
    for f in matched {
        if identify(&f.entry.image) == Magic::Bitcode {
            // Where offkit cannot list a bitcode member's symbols as LLVM would, refuse rather
            // than write a different archive.
            bitcode_archive_symbols(&f.entry.image).map_err(|e| format!("'{}': {e}", f.name))?;
        }
    }
    let members: Vec<NewArchiveMember<'_>> = matched
        .iter()
        .map(|f| NewArchiveMember::new(f.entry.image.as_ref(), &READER, f.name.clone()))
        .collect();
    let mut bytes = Cursor::new(Vec::new());
    ar_archive_writer::write_archive_to_stream(&mut bytes, &members, ArchiveKind::Gnu, false, None)
        .map_err(|e| message(&e))?;
    let mut bytes = bytes.into_inner();
    if !matched.iter().any(|f| is_symbolic(&f.entry.image)) {
        drop_symbol_table(&mut bytes);
    }
    stage_file(outs, file, &bytes)
}

/// Removes the leading symbol table member (`/`). `ar_archive_writer` writes an empty one for
/// any member; LLVM only when some member is an object or bitcode (`HasObject`). No other part
/// of a GNU archive refers to the symbol table, so dropping it gives LLVM's bytes.
fn drop_symbol_table(archive: &mut Vec<u8>) {
    const MAGIC: usize = 8;
    const HEADER: usize = 60;
    let Some(header) = archive.get(MAGIC..MAGIC + HEADER) else {
        return;
    };
    if !header.starts_with(b"/ ") {
        return;
    }
    let size = std::str::from_utf8(&header[48..58])
        .ok()
        .and_then(|s| s.trim().parse::<usize>().ok());
    if let Some(size) = size {
        let end = MAGIC + HEADER + size + size % 2;
        if end <= archive.len() {
            archive.drain(MAGIC..end);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn magic_like_llvm() {
        assert_eq!(identify(b"\x10\xff\x10\xad"), Magic::OffloadBinary);
        assert_eq!(identify(b"BC\xc0\xde"), Magic::Bitcode);
        assert_eq!(identify(b"!<arch>\n"), Magic::Archive);
        assert_eq!(identify(b"!<arch>"), Magic::Other);
        let mut elf = b"\x7fELF\x02\x01\x01\0\0\0\0\0\0\0\0\0\x01\0".to_vec();
        assert_eq!(identify(&elf), Magic::Elf);
        elf[16] = 4;
        assert_eq!(identify(&elf), Magic::Other, "core files are skipped");
        assert_eq!(identify(b"\x64\x86\0\0"), Magic::Coff);
        assert_eq!(identify(b"abc"), Magic::Other);
    }
}
