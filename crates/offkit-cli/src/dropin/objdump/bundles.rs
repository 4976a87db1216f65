//! LLVM 22's second half of `--offloading`: the HIP fat-binary bundles of an object's sections
//! written out, one file per bundle entry (`llvm::dumpOffloadBundleFatBinary`, with
//! `llvm/lib/Object/OffloadBundle.cpp`'s reading).
//!
//! Every section whose contents start with a bundle (`__CLANG_OFFLOAD_BUNDLE__` and 25 bytes, or
//! `CCOB`) is cut into bundles the way LLVM does it: each ends where the next occurrence of its
//! own magic starts (not where its sizes say), a compressed one is decompressed
//! ([`compressed::decompress_llvm_object`]) and each header is read with LLVM's object-layer
//! rules ([`binary::parse_llvm_object`]). Bundles are numbered across the file; entry `<id>`
//! of bundle `<n>` goes to `<file>.<n>.<id>` (`<file>` as the object is named: an archive
//! member by its name, in the working directory), empty entries too, and stdout says
//! `Extracting offload bundle: <file>.<n>.<id>`. A COFF file whose section holds a bundle is
//! an error, as in LLVM.
//!
//! LLVM 22.1.8 copies every entry from the object: a plain bundle's from where it is (the
//! section's offset and the bundle's added), but a compressed bundle's from the object at the
//! offsets of the *decompressed* bundle (`OffloadBundleFatBin::create` drops its `Decompress`
//! flag, so the decompressed buffer is never used): what it writes for a compressed bundle is
//! bytes of the object, not the code objects. offkit writes the same bytes.
//!
//! Departure: LLVM copies an entry without looking at its bounds; where it lies past the
//! object (as a compressed bundle's entries often do) LLVM writes whatever memory follows its
//! buffer, or crashes. offkit names the entry and stops, with exit status 1.

use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;
use std::path::PathBuf;

use object::read::elf::{FileHeader, SectionHeader};
use object::{elf, Endianness, FileKind, Object, ObjectSection};

use offkit_format::bundle::{binary, compressed, MAGIC};

use super::format::Family;
use super::{Out, UNEXPECTED_EOF};
use crate::dropin::error::{Error, Result};

/// `CompressedOffloadBundle`'s magic.
const CCOB: &[u8] = b"CCOB";

/// One bundle found in a section: its entries, and what is added to their offsets to find
/// them in the object.
struct Bundle {
    entries: Vec<Record>,
    base: u64,
}

/// One entry of a bundle's header, as LLVM read it.
struct Record {
    id: Vec<u8>,
    offset: u64,
    size: u64,
}

/// Writes out the bundle entries of `data` (an ELF or COFF object named `file`), except those
/// whose ID contains `arch_name` when it is not empty (LLVM's test, inverted as it is).
pub fn extract(data: &[u8], family: Family, file: &str, arch_name: &str, out: &Out) -> Result {
    let fail = |m: String| {
        Error::msg(format!(
            "'{file}': while extracting offload FatBin bundles: {m}"
        ))
    };
    let mut bundles = Vec::new();
    for (offset, contents) in sections(data, family).map_err(fail)? {
        let starts = binary::is_bundle(contents) || contents.starts_with(CCOB);
        if !starts {
            continue;
        }
        if family == Family::Coff {
            return Err(fail("COFF object files not supported".into()));
        }
        split(contents, offset, &mut bundles).map_err(fail)?;
    }
    // Every entry is found before anything is written: a failure leaves no file behind.
    let mut files = Vec::new();
    for (n, bundle) in bundles.iter().enumerate() {
        for e in &bundle.entries {
            let arch = arch_name.as_bytes();
            if !arch.is_empty() && find(&e.id, arch, 0).is_some() {
                continue;
            }
            let mut name = format!("{file}.{n}.").into_bytes();
            name.extend_from_slice(&e.id);
            let at = e.offset.wrapping_add(bundle.base);
            let bytes = usize::try_from(at)
                .ok()
                .zip(usize::try_from(e.size).ok())
                .and_then(|(at, n)| data.get(at..at.checked_add(n)?))
                .ok_or_else(|| {
                    Error::msg(format!(
                        "'{file}': while extracting offload Bundle Entries: the entry `{}` ({} \
                         bytes at offset {at:#x}) does not lie in the file ({} bytes): LLVM \
                         would copy what is past its buffer",
                        String::from_utf8_lossy(&e.id),
                        e.size,
                        data.len()
                    ))
                })?;
            files.push((name, bytes));
        }
    }
    for (name, bytes) in files {
        let path = PathBuf::from(OsString::from_vec(name.clone()));
        offkit_tools::fs::write_file(&path, bytes).map_err(|io| {
            Error::msg(format!(
                "'{file}': while extracting offload Bundle Entries: {}",
                Error::file(&path, io)
            ))
        })?;
        let mut line = b"Extracting offload bundle: ".to_vec();
        line.extend_from_slice(&name);
        line.push(b'\n');
        out.write(&line);
    }
    Ok(())
}

/// `extractOffloadBundle`: the bundles of one section's `contents` (at file offset `offset`).
fn split(contents: &[u8], offset: u64, out: &mut Vec<Bundle>) -> Result<(), String> {
    let mut at = 0usize;
    let mut next = Some(0usize);
    while let (Some(_), Some(rest)) = (next, contents.get(at..).filter(|r| !r.is_empty())) {
        if rest.starts_with(CCOB) {
            let end = find(rest, CCOB, CCOB.len()).unwrap_or(rest.len());
            next = Some(end);
            let blob = rest.get(..end).unwrap_or(rest);
            let inflated = compressed::decompress_llvm_object(blob)
                .map_err(|e| format!("failed to decompress input: {}", object_words(&e)))?
                .data;
            // The entries' offsets are the inflated bundle's, but LLVM 22 copies them from the
            // object (`OffloadBundleFatBin::create` does not keep its `Decompress` flag).
            out.push(Bundle {
                entries: parse(&inflated)?,
                base: 0,
            });
        } else if binary::is_bundle(rest) {
            out.push(Bundle {
                entries: parse(rest)?,
                base: offset.wrapping_add(at as u64),
            });
            next = find(rest, MAGIC, MAGIC.len());
        }
        if let Some(n) = next {
            at = at.saturating_add(n);
        }
    }
    Ok(())
}

/// A bundle header's entries, as LLVM's object layer reads them.
fn parse(d: &[u8]) -> Result<Vec<Record>, String> {
    let entries = binary::parse_llvm_object(d).map_err(|e| e.to_string())?;
    Ok(entries
        .into_iter()
        .map(|e| Record {
            id: e.id.to_vec(),
            offset: e.offset,
            size: e.size,
        })
        .collect())
}

/// `StringRef::find(needle, from)`: `None` for "npos" (also when `from` is past the end).
fn find(hay: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    let tail = hay.get(from..)?;
    if needle.is_empty() {
        return Some(from);
    }
    tail.windows(needle.len())
        .position(|w| w == needle)
        .map(|i| i + from)
}

/// A decompression error in the words of LLVM 22's object layer: the bundler's words
/// ([`crate::dropin::error::decompress_message`]), not capitalized.
fn object_words(e: &offkit_format::Error) -> String {
    let words = crate::dropin::error::decompress_message(e);
    let mut chars = words.chars();
    match chars.next() {
        Some(c) if c.is_ascii_uppercase() => c.to_ascii_lowercase().to_string() + chars.as_str(),
        _ => words,
    }
}

/// Every section's file offset and contents, as `ObjectFile::sections()` and
/// `getContents()` give them: an ELF section whose contents lie outside the file is LLVM's
/// `unexpected_eof`; `SHT_NOBITS` has none.
fn sections(data: &[u8], family: Family) -> Result<Vec<(u64, &[u8])>, String> {
    match family {
        Family::Elf => elf_sections(data, |_| true),
        Family::Coff | Family::MachO => {
            let file = object::File::parse(data).map_err(|e| e.to_string())?;
            Ok(file
                .sections()
                .map(|s| {
                    let off = s.file_range().map_or(0, |(o, _)| o);
                    (off, s.data().unwrap_or_default())
                })
                .collect())
        }
    }
}

/// The sections of an ELF file whose type `keep` takes, read with LLVM's `checkOffset`: one
/// whose contents do not lie in the file is "The end of the file was unexpectedly
/// encountered", even when it is empty.
pub fn elf_sections(data: &[u8], keep: impl Fn(u32) -> bool) -> Result<Vec<(u64, &[u8])>, String> {
    fn of<Elf: FileHeader<Endian = Endianness>>(
        data: &[u8],
        keep: impl Fn(u32) -> bool,
    ) -> Result<Vec<(u64, &[u8])>, String> {
        let h = Elf::parse(data).map_err(|e| e.to_string())?;
        let endian = h.endian().map_err(|e| e.to_string())?;
        let table = h.sections(endian, data).map_err(|e| e.to_string())?;
        let mut out = Vec::new();
        for s in table.iter() {
            let ty = s.sh_type(endian);
            if !keep(ty.0) {
                continue;
            }
            if ty == elf::SHT_NOBITS {
                out.push((0, &[][..]));
                continue;
            }
            let (off, size) = (s.sh_offset(endian).into(), s.sh_size(endian).into());
            let bytes = off
                .checked_add(size)
                .filter(|&end: &u64| end <= data.len() as u64)
                .and_then(|end| data.get(usize::try_from(off).ok()?..usize::try_from(end).ok()?))
                .ok_or_else(|| UNEXPECTED_EOF.to_string())?;
            out.push((off, bytes));
        }
        Ok(out)
    }
    match FileKind::parse(data) {
        Ok(FileKind::Elf32) => of::<elf::FileHeader32<Endianness>>(data, keep),
        Ok(FileKind::Elf64) => of::<elf::FileHeader64<Endianness>>(data, keep),
        _ => Err("not an ELF file".into()),
    }
}
