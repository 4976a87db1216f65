//! Fat objects: a host object whose sections `__CLANG_OFFLOAD_BUNDLE__<id>` hold the device
//! payloads (`-type=o`). A host entry's section holds one zero byte: the host payload is the
//! object itself without its bundle sections.
//!
//! Written in-process with `object`'s ELF builder: the host object's sections are kept and one
//! `SHT_PROGBITS` section per target is appended (flags `SHF_EXCLUDE`, alignment 1), as
//! `llvm-objcopy --add-section … --set-section-flags …=readonly,exclude` does. The section
//! layout is the builder's, not objcopy's: the drop-in calls `llvm-objcopy` when it needs
//! LLVM's exact bytes.

use object::build::elf::{Builder, SectionData};
use object::read::{Object, ObjectSection};
use object::write::StreamingBuffer;

use offkit_format::bundle::MAGIC;

/// Why a fat object could not be written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FatObjError {
    /// The object could not be read or rebuilt (not ELF, malformed).
    #[error(transparent)]
    Build(#[from] object::build::Error),
    /// Writing the output failed.
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

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

/// Writes `host` (an ELF object) with one bundle section per `(id, contents)` appended, to `out`.
pub fn add_bundle_sections(
    host: &[u8],
    sections: &[(&[u8], &[u8])],
    out: &mut dyn std::io::Write,
) -> Result<(), FatObjError> {
    let mut b = Builder::read(host)?;
    for (id, contents) in sections {
        let mut name = MAGIC.to_vec();
        name.extend_from_slice(id);
        let s = b.sections.add();
        s.name = name.into();
        s.sh_type = object::elf::SHT_PROGBITS;
        s.sh_flags = object::elf::SHF_EXCLUDE;
        s.sh_addralign = 1;
        s.data = SectionData::Data((*contents).into());
    }
    write_builder(b, out)
}

/// Writes `obj` (an ELF object) without its bundle sections: the host payload of a fat object.
pub fn strip_bundle_sections(obj: &[u8], out: &mut dyn std::io::Write) -> Result<(), FatObjError> {
    let mut b = Builder::read(obj)?;
    for s in b.sections.iter_mut() {
        if bundle_id(s.name.as_slice()).is_some() {
            s.delete = true;
        }
    }
    write_builder(b, out)
}

fn write_builder(b: Builder<'_>, out: &mut dyn std::io::Write) -> Result<(), FatObjError> {
    let mut buf = StreamingBuffer::new(out);
    b.write(&mut buf)?;
    Ok(buf.result()?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use object::write::{Object as WObject, StandardSection};

    fn host_object() -> Vec<u8> {
        let mut o = WObject::new(
            object::BinaryFormat::Elf,
            object::Architecture::X86_64,
            object::Endianness::Little,
        );
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
        assert_eq!(bundle_id(MAGIC), None);
    }
}
