//! # offkit-elf
//!
//! The one ELF editor of offkit: one model of an ELF file's header, section headers and program
//! headers for either class (32- or 64-bit) and either byte order, read through the `object`
//! crate's `FileHeader` generics and written through its `FileHeader32/64` and
//! `SectionHeader32/64` structs. Every other crate that changes a section table does it here.
//!
//! ```text
//! &[u8] ─Elf::parse─► Elf (Header, [Section], segments()) ─Editor::new─► Editor
//!   Editor: contents patched or appended, section headers changed or added
//!     ├─write_in_place──► the same table, rewritten where it is
//!     └─write_appended──► a new table appended (the old one zeroed), the ELF header patched
//! Elf ─section_size_patch─► (offset, bytes): one sh_size, for a writer that streams the file
//! &[u8] ─rebuild(edit)─► object::build::elf::Builder (section types it rejects carried
//!                         through as bytes) ─edit─► written anew
//! ```
//!
//! Bad input is an [`Error`] naming the file offset of what is wrong; values that do not fit
//! a 32-bit file are refused, never truncated.
//!
//! ```
//! use object::elf;
//! use offkit_elf::{Editor, Elf, Section};
//!
//! let obj = object::write::Object::new(
//!     object::BinaryFormat::Elf,
//!     object::Architecture::S390x,
//!     object::Endianness::Big,
//! )
//! .write()
//! .unwrap();
//! let mut ed = Editor::new(&Elf::parse(&obj).unwrap());
//! let name = ed.add_name(b".note.offkit").unwrap();
//! let at = ed.append(b"hello", 1);
//! ed.push(Section {
//!     sh_name: name,
//!     sh_type: elf::SHT_PROGBITS,
//!     sh_flags: elf::SHF_EXCLUDE,
//!     sh_offset: at,
//!     sh_size: 5,
//!     sh_addralign: 1,
//!     ..Section::default()
//! });
//! let out = ed.write_appended().unwrap();
//! let elf = Elf::parse(&out).unwrap();
//! let last = elf.sections().len() - 1;
//! assert_eq!(elf.section_name(last).unwrap(), b".note.offkit");
//! assert_eq!(elf.section_data(last).unwrap(), b"hello");
//! ```
#![deny(missing_docs)]

mod editor;
mod elf;
mod error;
mod model;
mod raw;
mod rebuild;

pub use editor::Editor;
pub use elf::Elf;
pub use error::{Error, Result};
pub use model::{Class, Header, Section, Segment};
pub use rebuild::{rebuild, CARRIED};
