//! Inputs for the pipeline tests, built in memory: device objects with chosen symbols, host
//! objects carrying them in `.llvm.offloading`, and static archives.

use std::path::{Path, PathBuf};

use object::write::{Object, StandardSection, Symbol, SymbolSection};
use object::{
    Architecture, BinaryFormat, Endianness, SectionKind, SymbolFlags, SymbolKind, SymbolScope,
};
use offkit_format::binary::{write_v1, ImageSpec};
use offkit_format::kind::{ImageKind, OffloadKind};

/// A symbol of a device object.
#[derive(Debug, Clone, Copy)]
pub enum Sym<'a> {
    /// A global definition.
    Def(&'a str),
    /// A hidden definition.
    Hidden(&'a str),
    /// An undefined reference.
    Undef(&'a str),
}

/// An x86-64 ELF relocatable object with these symbols.
pub fn device_object(syms: &[Sym<'_>]) -> Vec<u8> {
    let mut o = Object::new(BinaryFormat::Elf, Architecture::X86_64, Endianness::Little);
    let text = o.section_id(StandardSection::Text);
    o.append_section_data(text, &[0xc3; 16], 16);
    for s in syms {
        let (name, scope, section) = match *s {
            Sym::Def(n) => (n, SymbolScope::Dynamic, SymbolSection::Section(text)),
            Sym::Hidden(n) => (n, SymbolScope::Linkage, SymbolSection::Section(text)),
            Sym::Undef(n) => (n, SymbolScope::Dynamic, SymbolSection::Undefined),
        };
        o.add_symbol(Symbol {
            name: name.as_bytes().to_vec(),
            value: 0,
            size: 0,
            kind: SymbolKind::Text,
            scope,
            weak: false,
            section,
            flags: SymbolFlags::None,
        });
    }
    o.write().unwrap()
}

/// One device image to embed.
#[derive(Debug, Clone)]
pub struct Image {
    /// Its triple.
    pub triple: &'static str,
    /// Its arch.
    pub arch: &'static str,
    /// Its bytes.
    pub bytes: Vec<u8>,
}

/// An x86-64 host object whose `.llvm.offloading` section holds OpenMP images.
pub fn fat_object(images: &[Image]) -> Vec<u8> {
    fat_object_of(images, OffloadKind::OpenMp)
}

/// An x86-64 host object whose `.llvm.offloading` section holds images of `kind`.
pub fn fat_object_of(images: &[Image], kind: OffloadKind) -> Vec<u8> {
    let mut o = Object::new(BinaryFormat::Elf, Architecture::X86_64, Endianness::Little);
    let text = o.section_id(StandardSection::Text);
    o.append_section_data(text, &[0xc3; 4], 16);
    let sec = o.add_section(Vec::new(), b".llvm.offloading".to_vec(), SectionKind::Other);
    o.section_mut(sec).flags = object::SectionFlags::Elf {
        sh_type: object::elf::SectionType(0x6fff_4c0b),
        sh_flags: object::elf::SectionFlags(0x8000_0000),
    };
    let mut data = Vec::new();
    for im in images {
        let image_kind = if im.bytes.starts_with(b"BC\xC0\xDE") {
            ImageKind::Bitcode
        } else {
            ImageKind::Object
        };
        let spec = ImageSpec {
            image_kind,
            offload_kind: kind,
            flags: 0,
            strings: vec![
                (b"triple", im.triple.as_bytes()),
                (b"arch", im.arch.as_bytes()),
            ],
        };
        data.extend(write_v1(&spec, &im.bytes, offkit_llvm::LlvmVersion::V19).unwrap());
    }
    o.append_section_data(sec, &data, 8);
    o.write().unwrap()
}

/// A GNU static archive of `members` (no symbol table; offkit reads every member).
pub fn archive(members: &[(&str, Vec<u8>)]) -> Vec<u8> {
    let mut out = b"!<arch>\n".to_vec();
    for (name, data) in members {
        let header = format!(
            "{:<16}{:<12}{:<6}{:<6}{:<8}{:<10}`\n",
            format!("{name}/"),
            0,
            0,
            0,
            644,
            data.len()
        );
        out.extend(header.as_bytes());
        out.extend(data);
        if out.len() % 2 == 1 {
            out.push(b'\n');
        }
    }
    out
}

/// Writes `bytes` to `dir/name`.
pub fn put(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}
