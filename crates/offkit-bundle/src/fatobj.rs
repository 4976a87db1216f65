//! Fat objects: a host object whose sections `__CLANG_OFFLOAD_BUNDLE__<id>` hold the device
//! payloads (`-type=o`). A host entry's section holds one zero byte: the host payload is the
//! object itself without its bundle sections.
//!
//! Written in-process: the host object's bytes are kept and one `SHT_PROGBITS` section per
//! target is appended (flags `SHF_EXCLUDE`, alignment 1), as `llvm-objcopy --add-section …
//! --set-section-flags …=readonly,exclude` does, with a new section name table and section
//! header table after them. The layout is not objcopy's: the drop-in calls `llvm-objcopy` when
//! it needs LLVM's exact bytes.

use object::build::elf::Builder;
use object::read::{Object, ObjectSection};
use object::write::StreamingBuffer;

use offkit_elf::{Elf, Section};
use offkit_format::bundle::MAGIC;

use crate::error::{Error, Result};

/// One bundle section of a fat object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BundleSection {
    /// The entry ID: the section name after the magic.
    pub id: Vec<u8>,
    /// The section's index.
    pub index: usize,
    /// Where its contents are in the file, if it has any (`None` for `SHT_NOBITS`).
    pub file_range: Option<(u64, u64)>,
}

impl BundleSection {
    /// Whether this is a host marker: contents of exactly one zero byte.
    pub fn is_host_marker(&self, obj: &[u8]) -> bool {
        match self.file_range {
            Some((off, 1)) => obj.get(off as usize) == Some(&0),
            _ => false,
        }
    }
}

/// Whether LLVM's `createBinary` would open `data` as an object file (ELF, COFF, Mach-O), as
/// opposed to bitcode, an archive, or anything else.
pub fn is_object(data: &[u8]) -> bool {
    object::File::parse(data).is_ok()
}

/// Whether a section name marks a bundle: at least 25 bytes, starting with the magic.
pub fn bundle_id(name: &[u8]) -> Option<&[u8]> {
    if name.len() > MAGIC.len() {
        name.strip_prefix(&MAGIC[..])
    } else {
        None
    }
}

/// The bundle sections of an object, in section header order.
pub fn bundle_sections(data: &[u8]) -> object::Result<Vec<BundleSection>> {
    let file = object::File::parse(data)?;
    let mut out = Vec::new();
    for s in file.sections() {
        let name = s.name_bytes()?;
        if let Some(id) = bundle_id(name) {
            out.push(BundleSection {
                id: id.to_vec(),
                index: s.index().0,
                file_range: s.file_range(),
            });
        }
    }
    Ok(out)
}

/// The headers of `data`, for rewriting: a section header table without extended numbering.
fn parse_elf(data: &[u8]) -> Result<Elf<'_>> {
    let elf = Elf::parse(data).map_err(malformed)?;
    let h = elf.header();
    if h.shnum == 0 || h.extended || h.shstrndx >= h.shnum {
        return Err(Error::ObjectMalformed(format!(
            "unsupported section header table at {:#x} (none, extended numbering, or no \
             section-name table)",
            h.e_shoff
        )));
    }
    Ok(elf)
}

/// [`Error::ObjectMalformed`] with the ELF editor's error and its causes.
fn malformed(e: offkit_elf::Error) -> Error {
    let mut m = e.to_string();
    let mut cause = std::error::Error::source(&e);
    while let Some(c) = cause {
        m = format!("{m}: {c}");
        cause = c.source();
    }
    Error::ObjectMalformed(m)
}

/// A new `SHT_PROGBITS`, `SHF_EXCLUDE`, alignment-1 section header.
fn progbits_exclude(sh_name: u32, sh_offset: u64, sh_size: u64) -> Section {
    Section {
        sh_name,
        sh_type: object::elf::SHT_PROGBITS,
        sh_flags: object::elf::SHF_EXCLUDE,
        sh_offset,
        sh_size,
        sh_addralign: 1,
        ..Section::default()
    }
}

/// Writes `host` (an ELF object) with one bundle section per `(id, size)` appended, to `out`;
/// `payload(i, out)` writes section `i`'s contents (so payloads can be streamed from files).
///
/// The host's bytes are kept as they are (every section, symbol and relocation stays valid);
/// the new contents, a new section name table (the old one plus the new names) and a new
/// section header table (the old headers, the name table's moved, plus the new ones) follow,
/// and the ELF header points at the new table. Any ELF class and byte order works, whatever
/// section types the host has.
pub fn append_bundle_sections<W: std::io::Write + ?Sized>(
    host: &[u8],
    sections: &[(&[u8], u64)],
    out: &mut W,
    mut payload: impl FnMut(usize, &mut W) -> std::io::Result<()>,
) -> Result<()> {
    let elf = parse_elf(host)?;
    let strndx = elf.header().shstrndx;
    let old_names = elf.section_data(strndx).map_err(malformed)?;
    let mut names = old_names.to_vec();
    let head = elf.header().class.ehsize();
    let mut pos = host.len() as u64;
    let mut headers = elf.sections().to_vec();
    for (id, size) in sections {
        let name = u32::try_from(names.len())
            .map_err(|_| Error::ObjectMalformed("section names too long".into()))?;
        names.extend_from_slice(MAGIC);
        names.extend_from_slice(id);
        names.push(0);
        headers.push(progbits_exclude(name, pos, *size));
        pos += size;
    }
    let names_at = pos;
    pos += names.len() as u64;
    let align = elf.header().class.word();
    let pad = (align - pos % align) % align;
    let shoff = pos + pad;
    headers[strndx].sh_offset = names_at;
    headers[strndx].sh_size = names.len() as u64;
    let header = elf
        .header_for_table(shoff, headers.len(), strndx)
        .map_err(malformed)?;
    let table = elf.encode_sections(&headers).map_err(malformed)?;
    out.write_all(&header)?;
    out.write_all(host.get(head..).unwrap_or_default())?;
    for i in 0..sections.len() {
        payload(i, out)?;
    }
    out.write_all(&names)?;
    out.write_all(&vec![0u8; pad as usize])?;
    out.write_all(&table)?;
    Ok(())
}

/// Writes `host` (an ELF object) with one bundle section per `(id, contents)` appended, to `out`.
pub fn add_bundle_sections(
    host: &[u8],
    sections: &[(&[u8], &[u8])],
    out: &mut dyn std::io::Write,
) -> Result<()> {
    let sizes: Vec<(&[u8], u64)> = sections
        .iter()
        .map(|(id, c)| (*id, c.len() as u64))
        .collect();
    append_bundle_sections(host, &sizes, out, |i, w| w.write_all(sections[i].1))
}

/// Writes `obj` (an ELF object) without its bundle sections: the host payload of a fat object.
///
/// When the bundle sections are the last ones (as llvm-objcopy and offkit add them), the
/// object's bytes are kept and only the section header table is rewritten without them, so any
/// section type is preserved; otherwise the object is rebuilt with `object`'s ELF builder.
pub fn strip_bundle_sections(obj: &[u8], out: &mut dyn std::io::Write) -> Result<()> {
    let secs = bundle_sections(obj).map_err(|e| Error::ObjectMalformed(e.to_string()))?;
    let elf = parse_elf(obj)?;
    let n = elf.sections().len();
    let trailing =
        secs.iter().all(|s| s.index >= n - secs.len()) && elf.header().shstrndx < n - secs.len();
    if !trailing {
        let mut b = Builder::read(obj)?;
        offkit_format::container::builder_alignments(
            b.sections.iter_mut().map(|s| &mut s.sh_addralign),
        )
        .map_err(|i| {
            Error::ObjectMalformed(format!(
                "section {} has an alignment that is not a power of two up to 2 MiB, or alignments that would pad the object past 64 MiB",
                i + 1
            ))
        })?;
        for s in b.sections.iter_mut() {
            if bundle_id(s.name.as_slice()).is_some() {
                s.delete = true;
            }
        }
        return write_builder(b, out);
    }
    let keep = n - secs.len();
    let align = elf.header().class.word();
    let len = obj.len() as u64;
    let pad = (align - len % align) % align;
    let shoff = len + pad;
    let head = elf
        .header_for_table(shoff, keep, elf.header().shstrndx)
        .map_err(malformed)?;
    let table = elf
        .encode_sections(&elf.sections()[..keep])
        .map_err(malformed)?;
    out.write_all(&head)?;
    out.write_all(obj.get(head.len()..).unwrap_or_default())?;
    out.write_all(&vec![0u8; pad as usize])?;
    out.write_all(&table)?;
    Ok(())
}

fn write_builder(b: Builder<'_>, out: &mut dyn std::io::Write) -> Result<()> {
    let mut buf = StreamingBuffer::new(out);
    b.write(&mut buf)?;
    Ok(buf.result()?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use object::write::{Object as WObject, StandardSection};

    fn host_object() -> Vec<u8> {
        elf_object(object::Architecture::X86_64, object::Endianness::Little)
    }

    fn elf_object(arch: object::Architecture, endian: object::Endianness) -> Vec<u8> {
        let mut o = WObject::new(object::BinaryFormat::Elf, arch, endian);
        let text = o.section_id(StandardSection::Text);
        o.append_section_data(text, &[0xc3], 1);
        o.write().unwrap()
    }

    #[test]
    fn add_list_strip() {
        let host = host_object();
        assert!(is_object(&host));
        let mut fat = Vec::new();
        add_bundle_sections(
            &host,
            &[
                (b"host-x86_64-unknown-linux-gnu-", b"\0"),
                (b"openmp-x86_64-pc-linux-gnu-", b"device"),
            ],
            &mut fat,
        )
        .unwrap();
        let secs = bundle_sections(&fat).unwrap();
        assert_eq!(secs.len(), 2);
        assert!(secs[0].is_host_marker(&fat));
        let (off, len) = secs[1].file_range.unwrap();
        assert_eq!(&fat[off as usize..(off + len) as usize], b"device");
        let mut stripped = Vec::new();
        strip_bundle_sections(&fat, &mut stripped).unwrap();
        assert!(bundle_sections(&stripped).unwrap().is_empty());
        assert!(!is_object(b"BC\xc0\xde"));
        // 32-bit and big-endian objects keep working, whatever their sections.
        for (arch, endian) in [
            (object::Architecture::I386, object::Endianness::Little),
            (object::Architecture::PowerPc64, object::Endianness::Big),
        ] {
            let host = elf_object(arch, endian);
            let mut fat = Vec::new();
            add_bundle_sections(&host, &[(b"openmp-x86_64-pc-linux-gnu-", b"dev")], &mut fat)
                .unwrap();
            let secs = bundle_sections(&fat).unwrap();
            let (off, len) = secs[0].file_range.unwrap();
            assert_eq!(&fat[off as usize..(off + len) as usize], b"dev");
            let mut stripped = Vec::new();
            strip_bundle_sections(&fat, &mut stripped).unwrap();
            assert!(bundle_sections(&stripped).unwrap().is_empty());
            assert!(is_object(&stripped));
        }
        assert_eq!(bundle_id(MAGIC), None);
    }
}
