//! Editing a section header table: contents patched in place or appended, section headers
//! changed or added, then the table written back where it was or appended anew.

use std::ops::Range;

use crate::elf::Elf;
use crate::error::{Error, Result};
use crate::model::{Header, Section};

/// An edit of an ELF file: a copy of its bytes, its section headers and (once a name is added)
/// its section-name table, changed by the caller and written by [`Editor::write_in_place`] or
/// [`Editor::write_appended`].
#[derive(Debug, Clone)]
pub struct Editor<'d> {
    elf: Elf<'d>,
    out: Vec<u8>,
    sections: Vec<Section>,
    /// The section-name table once a name is added (the old one, then the new names).
    names: Option<Vec<u8>>,
}

impl<'d> Editor<'d> {
    /// An edit of `elf`, changing nothing yet.
    pub fn new(elf: &Elf<'d>) -> Editor<'d> {
        Editor {
            elf: elf.clone(),
            out: elf.data().to_vec(),
            sections: elf.sections().to_vec(),
            names: None,
        }
    }

    /// The file being edited, as read.
    pub fn elf(&self) -> &Elf<'d> {
        &self.elf
    }

    /// The ELF header, as read.
    pub fn header(&self) -> &Header {
        self.elf.header()
    }

    /// The bytes as edited so far (the section header table not yet written).
    pub fn bytes(&self) -> &[u8] {
        &self.out
    }

    /// The bytes, to patch contents in place or to append to.
    pub fn bytes_mut(&mut self) -> &mut Vec<u8> {
        &mut self.out
    }

    /// The section headers as edited so far.
    pub fn sections(&self) -> &[Section] {
        &self.sections
    }

    /// Section `index`'s header, to change.
    pub fn section_mut(&mut self, index: usize) -> Option<&mut Section> {
        self.sections.get_mut(index)
    }

    /// Adds section header `s` after the others; returns its index.
    pub fn push(&mut self, s: Section) -> usize {
        self.sections.push(s);
        self.sections.len() - 1
    }

    /// Appends `bytes` at the end of the file, first padded with zeros to a multiple of
    /// `align` (0 and 1: none); returns their offset.
    pub fn append(&mut self, bytes: &[u8], align: u64) -> u64 {
        let align = usize::try_from(align.max(1)).unwrap_or(usize::MAX);
        let at = self.out.len().next_multiple_of(align);
        self.out.resize(at, 0);
        self.out.extend_from_slice(bytes);
        at as u64
    }

    /// Adds `name` to the section-name table (written by [`Editor::write_appended`]); returns
    /// its offset there, for `sh_name`.
    pub fn add_name(&mut self, name: &[u8]) -> Result<u32> {
        let names = match &mut self.names {
            Some(n) => n,
            None => self.names.insert(self.elf.names()?.to_vec()),
        };
        let at = u32::try_from(names.len()).map_err(|_| Error::Unsupported {
            what: "the section-name table would pass 4 GiB",
            offset: self.elf.header().e_shoff,
        })?;
        names.extend_from_slice(name);
        names.push(0);
        Ok(at)
    }

    /// The file with its section header table written back where it was (same number of
    /// sections, no name added).
    pub fn write_in_place(mut self) -> Result<Vec<u8>> {
        if self.sections.len() != self.elf.sections().len() || self.names.is_some() {
            return Err(Error::Unsupported {
                what: "sections or names added: the table must be appended",
                offset: self.elf.header().e_shoff,
            });
        }
        let table = self.elf.encode_sections(&self.sections)?;
        let at = self.table_range()?;
        self.out
            .get_mut(at.start..at.start + table.len())
            .ok_or(Error::Unsupported {
                what: "the section header table lies past the end of the file",
                offset: self.elf.header().e_shoff,
            })?
            .copy_from_slice(&table);
        Ok(self.out)
    }

    /// The file with a new section header table appended (aligned to the class's word): the
    /// section-name table, when names were added, is appended first and the old one zeroed;
    /// the old section header table is zeroed; the ELF header points at the new table.
    pub fn write_appended(mut self) -> Result<Vec<u8>> {
        let h = *self.elf.header();
        if h.extended {
            return Err(Error::Unsupported {
                what: "extended section numbering is not edited",
                offset: h.e_shoff,
            });
        }
        if let Some(names) = self.names.take() {
            let old = self.elf.section_range(h.shstrndx)?;
            self.out.get_mut(old).unwrap_or_default().fill(0);
            let at = self.append(&names, 1);
            let strtab = self
                .sections
                .get_mut(h.shstrndx)
                .ok_or(Error::Unsupported {
                    what: "no section-name string table",
                    offset: h.e_shoff,
                })?;
            strtab.sh_offset = at;
            strtab.sh_size = names.len() as u64;
        }
        let old = self.table_range()?;
        if let Some(d) = self.out.get_mut(old) {
            d.fill(0);
        }
        let table = self.elf.encode_sections(&self.sections)?;
        let shoff = self.append(&table, h.class.word());
        let head = self
            .elf
            .header_for_table(shoff, self.sections.len(), h.shstrndx)?;
        if let Some(d) = self.out.get_mut(..head.len()) {
            d.copy_from_slice(&head);
        }
        Ok(self.out)
    }

    /// Where the old section header table is.
    fn table_range(&self) -> Result<Range<usize>> {
        let h = self.elf.header();
        let len = h.shnum * h.class.shentsize();
        usize::try_from(h.e_shoff)
            .ok()
            .and_then(|s| Some(s..s.checked_add(len)?))
            .ok_or(Error::Unsupported {
                what: "the section header table lies past the end of the file",
                offset: h.e_shoff,
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn obj() -> Vec<u8> {
        object::write::Object::new(
            object::BinaryFormat::Elf,
            object::Architecture::PowerPc,
            object::Endianness::Big,
        )
        .write()
        .unwrap()
    }

    #[test]
    fn unchanged_in_place_is_identical() {
        let obj = obj();
        let elf = Elf::parse(&obj).unwrap();
        assert_eq!(Editor::new(&elf).write_in_place().unwrap(), obj);
        let mut ed = Editor::new(&elf);
        ed.push(Section::default());
        assert!(ed.write_in_place().is_err());
    }

    #[test]
    fn appended_table_moves_names() {
        let obj = obj();
        let elf = Elf::parse(&obj).unwrap();
        let mut ed = Editor::new(&elf);
        let name = ed.add_name(b".x").unwrap();
        ed.push(Section {
            sh_name: name,
            ..Section::default()
        });
        let out = ed.write_appended().unwrap();
        let again = Elf::parse(&out).unwrap();
        assert_eq!(again.header().e_shoff % 4, 0);
        assert_eq!(
            again.section_name(again.sections().len() - 1).unwrap(),
            b".x"
        );
        // The old table and the old names are zeroed.
        let old = elf.header().e_shoff as usize;
        assert!(out[old..old + 40 * elf.sections().len()]
            .iter()
            .all(|&b| b == 0));
        assert!(out[elf.section_range(elf.header().shstrndx).unwrap()]
            .iter()
            .all(|&b| b == 0));
    }

    #[test]
    fn extended_numbering_is_not_appended() {
        let mut obj = obj();
        let elf = Elf::parse(&obj).unwrap();
        let h = *elf.header();
        // e_shnum 0, the count in section 0's sh_size (32-bit big-endian).
        let n = h.shnum as u32;
        obj[0x30..0x32].copy_from_slice(&[0, 0]);
        let at = h.e_shoff as usize + 20;
        obj[at..at + 4].copy_from_slice(&n.to_be_bytes());
        let elf = Elf::parse(&obj).unwrap();
        assert!(elf.header().extended);
        assert_eq!(elf.sections().len(), h.shnum);
        let e = Editor::new(&elf).write_appended().unwrap_err();
        assert_eq!(e.offset(), h.e_shoff);
    }
}
