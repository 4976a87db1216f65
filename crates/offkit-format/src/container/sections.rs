//! The one iterator over the sections of an object file that hold offload data: what the
//! container walk, the flat list of offload binaries, the entry-table reader, the HIP wrapper
//! records, the bundler's fat objects and the rewriters in `offkit-surgery` all read sections
//! with, so that which section holds what is decided in one place ([`SectionKind::of`]).

use object::read::elf::{FileHeader, SectionHeader};
use object::{elf, Endianness, FileKind};

use super::SHT_LLVM_OFFLOADING;
use crate::error::{Error, Result};

/// The `__CLANG_OFFLOAD_BUNDLE__` prefix of a bundled object's section names (and the magic of
/// binary bundles).
pub(crate) const BUNDLE_PREFIX: &[u8] = b"__CLANG_OFFLOAD_BUNDLE__";

/// What an offload section holds, by its name and (ELF) type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SectionKind {
    /// Offload binaries: an ELF section of type `SHT_LLVM_OFFLOADING` whatever its name
    /// (`.llvm.offloading`), a COFF section named `.llvm.offloading*` (or, in a PE image, a
    /// name lld cut to 8 bytes, when the contents start with the offload binary magic).
    OffloadBinaries,
    /// `.hip_fatbin`: HIP's sequence of offload bundles (or anything else a HIP toolchain put
    /// there).
    HipFatbin,
    /// `.hipFatBinSegment`: the `__hip_fatbin_wrapper` records that point into `.hip_fatbin`.
    HipWrappers,
    /// `__CLANG_OFFLOAD_BUNDLE__<id>`: one entry of a bundled ("fat") object, or a bundle
    /// sequence; the ID is [`Section::bundle_id`].
    Bundle,
    /// `.nv_fatbin` or `__nv_relfatbin`: CUDA fat binaries.
    CudaFatbin,
    /// An offload entry table: one of [`ENTRY_TABLES`] (which one: the entry module's
    /// `TableKind::from_section_name`).
    EntryTable,
}

/// The names of the offload entry table sections: `omp_offloading_entries`,
/// `cuda_offloading_entries`, `hip_offloading_entries` (LLVM 20 and earlier) and
/// `llvm_offload_entries` (LLVM 21 and later).
pub const ENTRY_TABLES: [&str; 4] = [
    "omp_offloading_entries",
    "cuda_offloading_entries",
    "hip_offloading_entries",
    "llvm_offload_entries",
];

impl SectionKind {
    /// What a section named `name` of ELF type `sh_type` holds, if it is an offload section.
    /// A name decides before the type (a `.hip_fatbin` of type `SHT_LLVM_OFFLOADING` is HIP's).
    pub fn of(name: &[u8], sh_type: u32) -> Option<SectionKind> {
        match name {
            b".hip_fatbin" => Some(SectionKind::HipFatbin),
            _ if sh_type == SHT_LLVM_OFFLOADING => Some(SectionKind::OffloadBinaries),
            b".hipFatBinSegment" => Some(SectionKind::HipWrappers),
            b".nv_fatbin" | b"__nv_relfatbin" => Some(SectionKind::CudaFatbin),
            _ if name.len() > BUNDLE_PREFIX.len() && name.starts_with(BUNDLE_PREFIX) => {
                Some(SectionKind::Bundle)
            }
            _ if ENTRY_TABLES.iter().any(|t| t.as_bytes() == name) => Some(SectionKind::EntryTable),
            _ => None,
        }
    }
}

/// A section of an object file that holds offload data, with what a rewriter needs to find its
/// header again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Section<'d> {
    /// What it holds.
    pub kind: SectionKind,
    /// Its name.
    pub name: &'d [u8],
    /// Its index in the section header table (`object`'s index for COFF and Mach-O).
    pub index: usize,
    /// Its ELF type ([`SHT_LLVM_OFFLOADING`] for a COFF offload section, 0 for the others).
    pub sh_type: u32,
    /// Its ELF flags (`SHF_ALLOC`, …; 0 elsewhere).
    pub flags: u64,
    /// Its address (0 in a relocatable object).
    pub addr: u64,
    /// Its alignment.
    pub align: u64,
    /// The absolute offset of its contents.
    pub offset: u64,
    /// Its contents.
    pub data: &'d [u8],
}

impl<'d> Section<'d> {
    /// The bundle entry ID of a `__CLANG_OFFLOAD_BUNDLE__<id>` section.
    pub fn bundle_id(&self) -> Option<&'d [u8]> {
        match self.kind {
            SectionKind::Bundle => self.name.get(BUNDLE_PREFIX.len()..),
            _ => None,
        }
    }

    /// Its size.
    pub fn size(&self) -> u64 {
        self.data.len() as u64
    }
}

/// The offload sections of one object file, in section header order: ELF (32/64-bit, either
/// endianness), COFF objects and PE images, Mach-O. Sections without contents in the file
/// (`SHT_NOBITS`) are left out.
///
/// An input that is no object file, or whose headers or a section name cannot be read, yields
/// that error (with the absolute offset) as its last item. A section whose contents lie
/// outside the file is an [`Error::SectionContents`] item naming it, and the iteration goes on
/// (callers that read such a section's neighbours, as the entry-table reader does, may).
///
/// ```
/// use object::write::{Object, StandardSection};
/// use object::{Architecture, BinaryFormat, Endianness, SectionKind as ObjectKind};
/// use offkit_format::container::{sections, SectionKind};
///
/// let mut obj = Object::new(BinaryFormat::Elf, Architecture::X86_64, Endianness::Little);
/// let text = obj.section_id(StandardSection::Text);
/// obj.append_section_data(text, &[0xc3], 1);
/// let id = b"__CLANG_OFFLOAD_BUNDLE__hip-amdgcn-amd-amdhsa--gfx90a".to_vec();
/// let bundle = obj.add_section(Vec::new(), id, ObjectKind::Data);
/// obj.append_section_data(bundle, b"\x7fELF...", 1);
/// let bytes = obj.write().unwrap();
///
/// let found: Vec<_> = sections(&bytes, 0).collect::<Result<_, _>>().unwrap();
/// assert_eq!(found.len(), 1);
/// assert_eq!(found[0].kind, SectionKind::Bundle);
/// assert_eq!(found[0].bundle_id(), Some(&b"hip-amdgcn-amd-amdhsa--gfx90a"[..]));
/// assert_eq!(found[0].data, b"\x7fELF...");
/// assert!(sections(b"not an object", 0).next().unwrap().is_err());
/// ```
pub fn sections(data: &[u8], base: u64) -> Sections<'_> {
    let mut found: Vec<Result<Section<'_>>> = Vec::new();
    let error = match FileKind::parse(data) {
        Ok(FileKind::Elf32) => elf::<elf::FileHeader32<Endianness>>(data, base, &mut found),
        Ok(FileKind::Elf64) => elf::<elf::FileHeader64<Endianness>>(data, base, &mut found),
        Ok(FileKind::Coff | FileKind::CoffBig | FileKind::Pe32 | FileKind::Pe64) => {
            other(data, base, ["COFF file", "COFF section"], &mut found)
        }
        Ok(FileKind::MachO32 | FileKind::MachO64) => {
            other(data, base, ["Mach-O file", "Mach-O section"], &mut found)
        }
        _ => Err(Error::BadMagic {
            what: "object file (ELF, COFF or Mach-O)",
            offset: base,
        }),
    };
    Sections {
        found: found.into_iter(),
        error: error.err(),
    }
}

/// The offload sections of one object file ([`sections`]): each a `Result`; the first error is
/// the last item.
#[derive(Debug)]
pub struct Sections<'d> {
    found: std::vec::IntoIter<Result<Section<'d>>>,
    error: Option<Error>,
}

impl<'d> Iterator for Sections<'d> {
    type Item = Result<Section<'d>>;

    fn next(&mut self) -> Option<Self::Item> {
        match self.found.next() {
            Some(s) => Some(s),
            None => self.error.take().map(Err),
        }
    }
}

impl std::iter::FusedIterator for Sections<'_> {}

/// The offload sections of an ELF file into `out`, up to the first error.
fn elf<'d, Elf: FileHeader<Endian = Endianness>>(
    data: &'d [u8],
    base: u64,
    out: &mut Vec<Result<Section<'d>>>,
) -> Result<()> {
    let obj_err = |what, offset| {
        move |source| Error::Object {
            what,
            offset,
            source,
        }
    };
    let header = Elf::parse(data).map_err(obj_err("ELF file", base))?;
    let endian = header.endian().map_err(obj_err("ELF file", base))?;
    let table = header
        .sections(endian, data)
        .map_err(obj_err("ELF file", base))?;
    for (index, sh) in table.iter().enumerate() {
        let sh_type = sh.sh_type(endian).0;
        let name = table
            .section_name(endian, sh)
            .map_err(obj_err("ELF file", base))?;
        let Some(kind) = SectionKind::of(name, sh_type) else {
            continue;
        };
        if sh_type == elf::SHT_NOBITS.0 {
            continue;
        }
        let (offset, _) = sh.file_range(endian).unwrap_or((0, 0));
        let offset = base.saturating_add(offset);
        let contents = match sh.data(endian, data) {
            Ok(c) => c,
            Err(source) => {
                out.push(Err(contents_error(
                    "ELF section",
                    name,
                    index,
                    offset,
                    source,
                )));
                continue;
            }
        };
        out.push(Ok(Section {
            kind,
            name,
            index,
            sh_type,
            flags: sh.sh_flags(endian).0,
            addr: sh.sh_addr(endian).into(),
            align: sh.sh_addralign(endian).into(),
            offset,
            data: contents,
        }));
    }
    Ok(())
}

/// The offload sections of a COFF object, PE image or Mach-O file into `out`, up to the first
/// error. Offload binaries are in sections named `.llvm.offloading*` (long names live in the
/// string table), as LLVM reads them. In a PE image a section name has at most 8 bytes and lld
/// cuts longer ones: there a section also counts when its name is a cut `.llvm.offloading`
/// (`.llvm`, `.llvm.of`) and its contents start with the offload binary magic.
fn other<'d>(
    data: &'d [u8],
    base: u64,
    [what_file, what_section]: [&'static str; 2],
    out: &mut Vec<Result<Section<'d>>>,
) -> Result<()> {
    use object::{Object, ObjectSection};
    const NAME: &[u8] = b".llvm.offloading";
    let file = object::File::parse(data).map_err(|source| Error::Object {
        what: what_file,
        offset: base,
        source,
    })?;
    let pe = file.format() == object::BinaryFormat::Pe;
    for s in file.sections() {
        // A name that cannot be read names no offload section (LLVM skips it too).
        let Ok(name) = s.name_bytes() else { continue };
        let cut = pe && name.len() >= 5 && NAME.starts_with(name);
        let kind = if name.starts_with(NAME) || cut {
            SectionKind::OffloadBinaries
        } else {
            match SectionKind::of(name, 0) {
                Some(
                    k @ (SectionKind::Bundle | SectionKind::HipFatbin | SectionKind::CudaFatbin),
                ) => k,
                _ => continue,
            }
        };
        let (off, _) = s.file_range().unwrap_or((0, 0));
        let offset = base.saturating_add(off);
        let index = s.index().0;
        let contents = match s.data() {
            Ok(c) => c,
            Err(source) => {
                out.push(Err(contents_error(
                    what_section,
                    name,
                    index,
                    offset,
                    source,
                )));
                continue;
            }
        };
        if cut && !crate::binary::has_magic(contents) {
            continue;
        }
        out.push(Ok(Section {
            kind,
            name,
            index,
            sh_type: if kind == SectionKind::OffloadBinaries {
                SHT_LLVM_OFFLOADING
            } else {
                0
            },
            flags: 0,
            addr: s.address(),
            align: s.align(),
            offset,
            data: contents,
        }));
    }
    Ok(())
}

fn contents_error(
    what: &'static str,
    name: &[u8],
    index: usize,
    offset: u64,
    source: object::read::Error,
) -> Error {
    Error::SectionContents {
        what,
        name: String::from_utf8_lossy(name).into_owned(),
        index,
        offset,
        source,
    }
}
