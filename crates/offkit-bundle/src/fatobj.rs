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

/// The section header table of an ELF file, as read for rewriting.
struct Elf {
    is64: bool,
    le: bool,
    shentsize: usize,
    shstrndx: usize,
    /// Each section header's raw bytes.
    headers: Vec<Vec<u8>>,
}

impl Elf {
    fn parse(data: &[u8]) -> Result<Elf> {
        let bad = |m: &str| Error::ObjectMalformed(m.to_string());
        if data.get(..4) != Some(b"\x7fELF") {
            return Err(bad("not an ELF file"));
        }
        let is64 = match data.get(4) {
            Some(1) => false,
            Some(2) => true,
            _ => return Err(bad("bad ELF class")),
        };
        let le = match data.get(5) {
            Some(1) => true,
            Some(2) => false,
            _ => return Err(bad("bad ELF data encoding")),
        };
        let e = Endian(le);
        let (shoff, shentsize, shnum, shstrndx) = if is64 {
            (
                e.u64(data, 0x28),
                e.u16(data, 0x3a),
                e.u16(data, 0x3c),
                e.u16(data, 0x3e),
            )
        } else {
            (
                e.u32(data, 0x20).map(u64::from),
                e.u16(data, 0x2e),
                e.u16(data, 0x30),
                e.u16(data, 0x32),
            )
        };
        let (Some(shoff), Some(shentsize), Some(shnum), Some(shstrndx)) =
            (shoff, shentsize, shnum, shstrndx)
        else {
            return Err(bad("truncated ELF header"));
        };
        let want = if is64 { 64 } else { 40 };
        if usize::from(shentsize) != want || shnum == 0 || shnum >= 0xff00 || shstrndx >= shnum {
            return Err(bad(
                "unsupported section header table (none, extended numbering, or odd entry size)",
            ));
        }
        let mut headers = Vec::with_capacity(shnum.into());
        for i in 0..u64::from(shnum) {
            let at = shoff
                .checked_add(i * u64::from(shentsize))
                .and_then(|a| usize::try_from(a).ok())
                .ok_or_else(|| bad("section header table out of range"))?;
            let h = data
                .get(at..at + want)
                .ok_or_else(|| bad("section header table runs past the end of the file"))?;
            headers.push(h.to_vec());
        }
        Ok(Elf {
            is64,
            le,
            shentsize: want,
            shstrndx: shstrndx.into(),
            headers,
        })
    }

    fn e(&self) -> Endian {
        Endian(self.le)
    }

    /// `(sh_name, sh_offset, sh_size)` of section `i`.
    fn name_offset_size(&self, i: usize) -> (u32, u64, u64) {
        let h = &self.headers[i];
        let e = self.e();
        if self.is64 {
            (
                e.u32(h, 0).unwrap_or(0),
                e.u64(h, 24).unwrap_or(0),
                e.u64(h, 32).unwrap_or(0),
            )
        } else {
            (
                e.u32(h, 0).unwrap_or(0),
                e.u32(h, 16).map(u64::from).unwrap_or(0),
                e.u32(h, 20).map(u64::from).unwrap_or(0),
            )
        }
    }

    fn set_offset_size(&mut self, i: usize, offset: u64, size: u64) {
        let e = self.e();
        let (is64, h) = (self.is64, &mut self.headers[i]);
        if is64 {
            e.put(h, 24, offset, 8);
            e.put(h, 32, size, 8);
        } else {
            e.put(h, 16, offset, 4);
            e.put(h, 20, size, 4);
        }
    }

    /// A new `SHT_PROGBITS`, `SHF_EXCLUDE`, alignment-1 section header.
    fn progbits_exclude(&self, name: u32, offset: u64, size: u64) -> Vec<u8> {
        let e = self.e();
        let mut h = vec![0u8; self.shentsize];
        e.put(&mut h, 0, name.into(), 4);
        e.put(&mut h, 4, 1, 4); // SHT_PROGBITS
        if self.is64 {
            e.put(&mut h, 8, 0x8000_0000, 8); // SHF_EXCLUDE
            e.put(&mut h, 24, offset, 8);
            e.put(&mut h, 32, size, 8);
            e.put(&mut h, 48, 1, 8);
        } else {
            e.put(&mut h, 8, 0x8000_0000, 4);
            e.put(&mut h, 16, offset, 4);
            e.put(&mut h, 20, size, 4);
            e.put(&mut h, 32, 1, 4);
        }
        h
    }

    /// The ELF header with `e_shoff` and `e_shnum` replaced.
    fn patched_header(&self, data: &[u8], shoff: u64, shnum: usize) -> Vec<u8> {
        let n = if self.is64 { 64 } else { 52 };
        let mut h = data.get(..n).unwrap_or_default().to_vec();
        let e = self.e();
        if self.is64 {
            e.put(&mut h, 0x28, shoff, 8);
            e.put(&mut h, 0x3c, shnum as u64, 2);
        } else {
            e.put(&mut h, 0x20, shoff, 4);
            e.put(&mut h, 0x30, shnum as u64, 2);
        }
        h
    }
}

#[derive(Clone, Copy)]
struct Endian(bool);

impl Endian {
    fn get<const N: usize>(self, d: &[u8], at: usize) -> Option<[u8; N]> {
        let mut b: [u8; N] = d.get(at..at + N)?.try_into().ok()?;
        if !self.0 {
            b.reverse();
        }
        Some(b)
    }
    fn u16(self, d: &[u8], at: usize) -> Option<u16> {
        self.get(d, at).map(u16::from_le_bytes)
    }
    fn u32(self, d: &[u8], at: usize) -> Option<u32> {
        self.get(d, at).map(u32::from_le_bytes)
    }
    fn u64(self, d: &[u8], at: usize) -> Option<u64> {
        self.get(d, at).map(u64::from_le_bytes)
    }
    fn put(self, d: &mut [u8], at: usize, v: u64, n: usize) {
        let le = v.to_le_bytes();
        if let Some(dst) = d.get_mut(at..at + n) {
            for (i, b) in dst.iter_mut().enumerate() {
                *b = if self.0 { le[i] } else { le[n - 1 - i] };
            }
        }
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
    let mut elf = Elf::parse(host)?;
    let (_, str_off, str_size) = elf.name_offset_size(elf.shstrndx);
    let old_names = usize::try_from(str_off)
        .ok()
        .and_then(|o| host.get(o..o.checked_add(usize::try_from(str_size).ok()?)?))
        .ok_or_else(|| Error::ObjectMalformed("section name table out of range".into()))?;
    let mut names = old_names.to_vec();
    let head = elf.patched_header(host, 0, 0).len();
    let mut pos = host.len() as u64;
    let mut new_headers = Vec::new();
    for (id, size) in sections {
        let name = u32::try_from(names.len())
            .map_err(|_| Error::ObjectMalformed("section names too long".into()))?;
        names.extend_from_slice(MAGIC);
        names.extend_from_slice(id);
        names.push(0);
        new_headers.push(elf.progbits_exclude(name, pos, *size));
        pos += size;
    }
    let names_at = pos;
    pos += names.len() as u64;
    let align = if elf.is64 { 8 } else { 4 };
    let pad = (align - pos % align) % align;
    let shoff = pos + pad;
    elf.set_offset_size(elf.shstrndx, names_at, names.len() as u64);
    let shnum = elf.headers.len() + new_headers.len();
    if shnum >= 0xff00 {
        return Err(Error::ObjectMalformed("too many sections".into()));
    }
    out.write_all(&elf.patched_header(host, shoff, shnum))?;
    out.write_all(host.get(head..).unwrap_or_default())?;
    for i in 0..sections.len() {
        payload(i, out)?;
    }
    out.write_all(&names)?;
    out.write_all(&vec![0u8; pad as usize])?;
    for h in elf.headers.iter().chain(&new_headers) {
        out.write_all(h)?;
    }
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
    let elf = Elf::parse(obj)?;
    let n = elf.headers.len();
    let trailing = secs.iter().all(|s| s.index >= n - secs.len()) && elf.shstrndx < n - secs.len();
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
    let align = if elf.is64 { 8 } else { 4 };
    let len = obj.len() as u64;
    let pad = (align - len % align) % align;
    let shoff = len + pad;
    let head = elf.patched_header(obj, shoff, keep);
    out.write_all(&head)?;
    out.write_all(obj.get(head.len()..).unwrap_or_default())?;
    out.write_all(&vec![0u8; pad as usize])?;
    for h in &elf.headers[..keep] {
        out.write_all(h)?;
    }
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
