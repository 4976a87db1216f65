//! The model: an ELF file's header, section headers and program headers, for either class and
//! byte order, read through the `object` crate's `FileHeader` generics.

use object::elf::{self, FileHeader32, FileHeader64};
use object::read::elf::{FileHeader, ProgramHeader};
use object::{Endianness, FileKind};

use crate::error::{Error, Result};
use crate::model::{Class, Header, Section, Segment};

/// An ELF file's headers, borrowed from its bytes.
#[derive(Debug, Clone)]
pub struct Elf<'d> {
    data: &'d [u8],
    header: Header,
    sections: Vec<Section>,
}

impl<'d> Elf<'d> {
    /// Reads the ELF header and the section header table of `data`. The table is bounded by
    /// the file: each header read is one in `data`.
    ///
    /// ```
    /// let obj = object::write::Object::new(
    ///     object::BinaryFormat::Elf,
    ///     object::Architecture::PowerPc,
    ///     object::Endianness::Big,
    /// )
    /// .write()
    /// .unwrap();
    /// let elf = offkit_elf::Elf::parse(&obj).unwrap();
    /// assert_eq!(elf.header().class, offkit_elf::Class::Elf32);
    /// assert_eq!(elf.section_name(elf.header().shstrndx).unwrap(), b".shstrtab");
    /// assert!(offkit_elf::Elf::parse(b"!<arch>\n").is_err());
    /// ```
    pub fn parse(data: &'d [u8]) -> Result<Elf<'d>> {
        match FileKind::parse(data) {
            Ok(FileKind::Elf32) => Elf::read::<FileHeader32<Endianness>>(data, Class::Elf32),
            Ok(FileKind::Elf64) => Elf::read::<FileHeader64<Endianness>>(data, Class::Elf64),
            Ok(_) => Err(Error::Unsupported {
                what: "not an ELF file",
                offset: 0,
            }),
            Err(source) => Err(Error::Malformed {
                what: "identification",
                offset: 0,
                source,
            }),
        }
    }

    fn read<H: FileHeader<Endian = Endianness>>(data: &'d [u8], class: Class) -> Result<Self> {
        let bad = |what, offset| {
            move |source| Error::Malformed {
                what,
                offset,
                source,
            }
        };
        let h = H::parse(data).map_err(bad("header", 0))?;
        let e = h.endian().map_err(bad("byte order", 5))?;
        let e_shoff: u64 = h.e_shoff(e).into();
        let table = h
            .section_headers(e, data)
            .map_err(bad("section header table", e_shoff))?;
        let shstrndx = if table.is_empty() {
            0
        } else {
            h.shstrndx(e, data)
                .map_err(bad("section-name table index", e_shoff))? as usize
        };
        let header = Header {
            class,
            endian: e,
            e_type: h.e_type(e),
            e_machine: h.e_machine(e),
            e_phoff: h.e_phoff(e).into(),
            e_shoff,
            shnum: table.len(),
            shstrndx,
            extended: !table.is_empty()
                && (h.e_shnum(e) == 0 || h.e_shstrndx(e) == elf::SHN_XINDEX),
        };
        let sections = table.iter().map(|s| Section::read(s, e)).collect();
        Ok(Elf {
            data,
            header,
            sections,
        })
    }

    /// The file's bytes.
    pub fn data(&self) -> &'d [u8] {
        self.data
    }

    /// The ELF header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The section headers, in order (section 0 included).
    pub fn sections(&self) -> &[Section] {
        &self.sections
    }

    /// Section `index`'s header.
    pub fn section(&self, index: usize) -> Option<&Section> {
        self.sections.get(index)
    }

    /// The file offset of section `index`'s header.
    pub fn section_header_offset(&self, index: usize) -> u64 {
        let size = self.header.class.shentsize() as u64;
        self.header
            .e_shoff
            .saturating_add(size.saturating_mul(index as u64))
    }

    /// The file range of section `index`'s contents (empty for `SHT_NOBITS`).
    pub fn section_range(&self, index: usize) -> Result<std::ops::Range<usize>> {
        let s = self.section(index).ok_or(Error::Unsupported {
            what: "no such section",
            offset: self.section_header_offset(index),
        })?;
        if s.sh_type == elf::SHT_NOBITS {
            return Ok(0..0);
        }
        let start = usize::try_from(s.sh_offset).ok();
        let end = start.and_then(|o| o.checked_add(usize::try_from(s.sh_size).ok()?));
        match (start, end) {
            (Some(start), Some(end)) if end <= self.data.len() => Ok(start..end),
            _ => Err(Error::Unsupported {
                what: "section contents run past the end of the file",
                offset: s.sh_offset,
            }),
        }
    }

    /// Section `index`'s contents (empty for `SHT_NOBITS`).
    pub fn section_data(&self, index: usize) -> Result<&'d [u8]> {
        let r = self.section_range(index)?;
        Ok(self.data.get(r).unwrap_or_default())
    }

    /// The section-name string table's contents.
    pub fn names(&self) -> Result<&'d [u8]> {
        if self.sections.is_empty() || self.header.shstrndx == 0 {
            return Err(Error::Unsupported {
                what: "no section-name string table",
                offset: self.header.e_shoff,
            });
        }
        // An `SHT_NOBITS` table would read as empty and be given names it cannot hold.
        if !self
            .section(self.header.shstrndx)
            .is_some_and(Section::has_contents)
        {
            return Err(Error::Unsupported {
                what: "the section-name string table has no contents in the file",
                offset: self.section_header_offset(self.header.shstrndx),
            });
        }
        self.section_data(self.header.shstrndx)
    }

    /// Section `index`'s name (its NUL-terminated string in the section-name table).
    pub fn section_name(&self, index: usize) -> Result<&'d [u8]> {
        let names = self.names()?;
        let s = self.section(index).ok_or(Error::Unsupported {
            what: "no such section",
            offset: self.section_header_offset(index),
        })?;
        names
            .get(s.sh_name as usize..)
            .and_then(|n| n.split(|&b| b == 0).next().filter(|_| n.contains(&0)))
            .ok_or(Error::Unsupported {
                what: "section name lies outside the section-name table",
                offset: self.section_header_offset(index),
            })
    }

    /// The program headers (none in a relocatable object).
    pub fn segments(&self) -> Result<Vec<Segment>> {
        match self.header.class {
            Class::Elf32 => self.segments_as::<FileHeader32<Endianness>>(),
            Class::Elf64 => self.segments_as::<FileHeader64<Endianness>>(),
        }
    }

    fn segments_as<H: FileHeader<Endian = Endianness>>(&self) -> Result<Vec<Segment>> {
        let bad = |what, offset| {
            move |source| Error::Malformed {
                what,
                offset,
                source,
            }
        };
        let h = H::parse(self.data).map_err(bad("header", 0))?;
        let e = self.header.endian;
        let table = h
            .program_headers(e, self.data)
            .map_err(bad("program header table", self.header.e_phoff))?;
        Ok(table
            .iter()
            .map(|p| Segment {
                p_type: p.p_type(e),
                p_offset: p.p_offset(e).into(),
                p_vaddr: p.p_vaddr(e).into(),
                p_filesz: p.p_filesz(e).into(),
                p_memsz: p.p_memsz(e).into(),
            })
            .collect())
    }

    /// The ELF header's bytes with `e_shoff`, `e_shnum` and `e_shstrndx` replaced: the header
    /// of the file once a section header table of `shnum` sections is written at `shoff`.
    /// More than `SHN_LORESERVE` sections (extended numbering) are not written.
    pub fn header_for_table(&self, shoff: u64, shnum: usize, shstrndx: usize) -> Result<Vec<u8>> {
        crate::raw::file_header(self.data, &self.header, shoff, shnum, shstrndx)
    }

    /// The in-place patch that sets section `index`'s `sh_size` to `size`: the file offset of
    /// the field and its new bytes (for a writer that streams the file and patches it, rather
    /// than an [`Editor`](crate::Editor) holding it all).
    pub fn section_size_patch(&self, index: usize, size: u64) -> Result<(u64, Vec<u8>)> {
        if index >= self.sections.len() {
            return Err(Error::Unsupported {
                what: "no such section",
                offset: self.section_header_offset(index),
            });
        }
        crate::raw::size_field(&self.header, index, size)
    }

    /// The bytes of a section header table holding `sections`, in this file's class and byte
    /// order.
    pub fn encode_sections<'s>(
        &self,
        sections: impl IntoIterator<Item = &'s Section>,
    ) -> Result<Vec<u8>> {
        let mut out = Vec::new();
        for s in sections {
            crate::raw::section(&self.header, s, &mut out)?;
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use object::write::{Object, StandardSection};
    use object::{Architecture, BinaryFormat};

    pub(crate) fn objects() -> Vec<Vec<u8>> {
        [
            (Architecture::I386, Endianness::Little),
            (Architecture::X86_64, Endianness::Little),
            (Architecture::PowerPc, Endianness::Big),
            (Architecture::PowerPc64, Endianness::Big),
        ]
        .into_iter()
        .map(|(arch, endian)| {
            let mut o = Object::new(BinaryFormat::Elf, arch, endian);
            let text = o.section_id(StandardSection::Text);
            o.append_section_data(text, &[0xc3], 1);
            o.write().unwrap()
        })
        .collect()
    }

    #[test]
    fn table_encodes_as_read() {
        for obj in objects() {
            let elf = Elf::parse(&obj).unwrap();
            let h = elf.header();
            let table = elf.encode_sections(elf.sections()).unwrap();
            let at = h.e_shoff as usize;
            assert_eq!(&obj[at..at + table.len()], &table[..]);
            let head = elf
                .header_for_table(h.e_shoff, h.shnum, h.shstrndx)
                .unwrap();
            assert_eq!(&obj[..h.class.ehsize()], &head[..]);
            assert_eq!(elf.section_name(1).unwrap(), b".text");
            // Patching `.text`'s size gives what an edit of the whole table writes.
            let (at, bytes) = elf.section_size_patch(1, 7).unwrap();
            let mut patched = obj.clone();
            patched[at as usize..at as usize + bytes.len()].copy_from_slice(&bytes);
            let mut ed = crate::Editor::new(&elf);
            ed.section_mut(1).unwrap().sh_size = 7;
            assert_eq!(ed.write_in_place().unwrap(), patched);
            assert!(elf.section_size_patch(99, 7).is_err());
            assert!(elf.segments().unwrap().is_empty());
        }
    }

    #[test]
    fn bad_input_names_offsets() {
        let obj = &objects()[1];
        let e = Elf::parse(b"!<arch>\n").unwrap_err();
        assert_eq!(e.offset(), 0);
        let e = Elf::parse(&obj[..40]).unwrap_err();
        assert!(matches!(e, Error::Malformed { offset: 0, .. }), "{e:?}");
        // The section header table cut off: the error is at `e_shoff`.
        let shoff = Elf::parse(obj).unwrap().header().e_shoff;
        let e = Elf::parse(&obj[..shoff as usize + 10]).unwrap_err();
        assert_eq!(e.offset(), shoff, "{e}");
        assert!(e.to_string().contains(&format!("{shoff:#x}")), "{e}");
        // A name past the end of the section-name table.
        let mut bad = obj.clone();
        let at = shoff as usize + 64;
        bad[at..at + 4].copy_from_slice(&0xffffu32.to_le_bytes());
        let elf = Elf::parse(&bad).unwrap();
        assert_eq!(elf.section_name(1).unwrap_err().offset(), shoff + 64);
    }

    #[test]
    fn too_large_for_32_bits_is_refused() {
        let obj = &objects()[0];
        let elf = Elf::parse(obj).unwrap();
        let s = Section {
            sh_offset: 1 << 32,
            ..Section::default()
        };
        assert!(matches!(
            elf.encode_sections([&s]),
            Err(Error::TooLarge {
                field: "sh_offset",
                ..
            })
        ));
        assert!(elf.header_for_table(1 << 32, 1, 0).is_err());
        assert!(elf.header_for_table(0, 0xff00, 0).is_err());
    }
}
