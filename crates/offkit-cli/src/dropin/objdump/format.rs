//! What `llvm-objdump` makes of an input by its first bytes (LLVM's `identify_magic`, then
//! `createBinary`), and the `file format` names it prints (`getFileFormatName`, lowercased).
//!
//! Only the formats `--offloading` does something with are read: ELF and COFF (listed), thin
//! Mach-O (named, then a warning), archives and raw offload binaries. What `createBinary`
//! refuses is [`Input::NotObject`] (LLVM's "The file was not recognized as a valid object
//! file"); what LLVM reads and this face does not (WebAssembly, XCOFF, GOFF, universal
//! Mach-O, TAPI, minidumps, Windows resources) is [`Input::Unsupported`].

use object::read::elf::FileHeader;
use object::{elf, Endianness, FileKind};

use offkit_llvm::LlvmVersion;

/// What an input (or archive member) is to `llvm-objdump`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Input {
    /// A static archive (`!<arch>`, `!<thin>`, `<bigaf>`).
    Archive,
    /// An object file `dumpObject` dumps.
    Object(Object),
    /// Offload binaries (`0x10FF10AD`): listed with no `file format` line.
    OffloadBinary,
    /// A short COFF import library member (`\0\0\xff\xff`).
    CoffImport,
    /// What `createBinary` refuses (`invalid_file_type`): bitcode, bundles, text, …
    NotObject,
    /// What LLVM reads but this face does not: the format's name.
    Unsupported(&'static str),
}

/// An object file's family and its `file format` name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Object {
    /// Its family.
    pub family: Family,
    /// `getFileFormatName().lower()`.
    pub format: String,
}

/// The object file families `--offloading` tells apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    /// ELF: its `SHT_LLVM_OFFLOADING` sections are read.
    Elf,
    /// COFF objects and PE images: their `.llvm.offloading*` sections are read (objects only).
    Coff,
    /// Mach-O: a warning says it is not read.
    MachO,
}

/// Classifies `d` as LLVM `release`'s `identify_magic` and `createBinary` do.
pub fn classify(d: &[u8], release: LlvmVersion) -> Input {
    if d.len() < 4 {
        return Input::NotObject;
    }
    let coff = |d: &[u8]| {
        Input::Object(Object {
            family: Family::Coff,
            format: coff_format(d),
        })
    };
    let two = (d[0], d[1]);
    match d[0] {
        0x00 if d.starts_with(b"\0\0\xff\xff") => big_obj(d),
        0x00 if d.starts_with(&WIN_RES_MAGIC) => Input::Unsupported("a Windows resource file"),
        0x00 if d[1] == 0 => coff(d),
        0x00 if d.starts_with(b"\0asm") => Input::Unsupported("a WebAssembly object"),
        0x01 if d[1] == 0xdf || d[1] == 0xf7 => Input::Unsupported("an XCOFF object"),
        0x03 if d.starts_with(b"\x03\xf0\x00") => Input::Unsupported("a GOFF object"),
        0x10 if d.starts_with(&offkit_format::binary::MAGIC) => Input::OffloadBinary,
        b'!' if d.starts_with(b"!<arch>\n") || d.starts_with(b"!<thin>\n") => Input::Archive,
        b'<' if d.starts_with(b"<bigaf>\n") => Input::Archive,
        0x7f if d.starts_with(b"\x7fELF") && d.len() >= 18 => elf(d, release),
        0xca if (d.starts_with(b"\xca\xfe\xba\xbe") || d.starts_with(b"\xca\xfe\xba\xbf"))
            && d.len() >= 8
            && d[7] < 43 =>
        {
            Input::Unsupported("a universal Mach-O file")
        }
        0xfe | 0xce | 0xcf => mach_o(d),
        0xf0 | 0x83 | 0x84 | 0x66 | 0x50 if d.starts_with(b"\x50\xed\x55\xba") => Input::NotObject,
        0xf0 | 0x83 | 0x84 | 0x66 | 0x50 | 0x4c | 0xc4 if d[1] == 0x01 || d[1] == 0x02 => coff(d),
        0x90 | 0x68 if d[1] == 0x02 => coff(d),
        b'M' if pe_offset(d).is_some() => coff(d),
        b'M' if d.starts_with(b"MDMP") => Input::Unsupported("a minidump"),
        _ if matches!(two, (0x64, 0x86 | 0xaa) | (0x41 | 0x4e, 0xa6)) => coff(d),
        b'-' if d.starts_with(b"--- !tapi") || d.starts_with(b"---\narchs:") => {
            Input::Unsupported("a TAPI file")
        }
        b'{' => Input::Unsupported("a TAPI file"),
        _ => Input::NotObject,
    }
}

/// `COFF::WinResMagic`.
const WIN_RES_MAGIC: [u8; 16] = [
    0, 0, 0, 0, 0x20, 0, 0, 0, 0xff, 0xff, 0, 0, 0xff, 0xff, 0, 0,
];

/// `COFF::BigObjMagic`.
const BIG_OBJ_MAGIC: [u8; 16] = [
    0xc7, 0xa1, 0xba, 0xd1, 0xee, 0xba, 0xa9, 0x4b, 0xaf, 0x20, 0xfa, 0xf6, 0x6a, 0xa4, 0xdc, 0xb8,
];

/// `\0\0\xff\xff`: a COFF big object, a `cl /GL` object, or a short import library member, by
/// the UUID at offset 12.
fn big_obj(d: &[u8]) -> Input {
    match d.get(12..28) {
        Some(uuid) if uuid == BIG_OBJ_MAGIC => Input::Object(Object {
            family: Family::Coff,
            format: coff_format(d),
        }),
        // `COFF::ClGlObjMagic`: `createBinary` refuses it.
        Some(uuid) if uuid[..4] == [0x38, 0xfe, 0xb3, 0x0c] => Input::NotObject,
        _ => Input::CoffImport,
    }
}

/// The offset of a PE image's `PE\0\0` signature (`identify_magic`'s test for
/// `pecoff_executable`).
fn pe_offset(d: &[u8]) -> Option<usize> {
    if !d.starts_with(b"MZ") {
        return None;
    }
    let at = u32::from_le_bytes(d.get(0x3c..0x40)?.try_into().ok()?) as usize;
    d.get(at..)?.starts_with(b"PE\0\0").then_some(at)
}

/// `COFFObjectFile::getFileFormatName`, lowercased.
fn coff_format(d: &[u8]) -> String {
    let at = match pe_offset(d) {
        Some(pe) => pe + 4,
        None if d.starts_with(b"\0\0\xff\xff") => 6,
        None => 0,
    };
    let machine = d
        .get(at..at + 2)
        .map_or(0, |m| u16::from_le_bytes([m[0], m[1]]));
    let name = match machine {
        0x14c => "COFF-i386",
        0x8664 => "COFF-x86-64",
        0x1c4 => "COFF-ARM",
        0xaa64 => "COFF-ARM64",
        0xa641 => "COFF-ARM64EC",
        0xa64e => "COFF-ARM64X",
        0x166 => "COFF-MIPS",
        _ => "COFF-<unknown arch>",
    };
    name.to_lowercase()
}

/// A thin Mach-O file, by `identify_magic`'s rule: its `filetype` (read only when the header
/// is all there) must be one of the twelve LLVM knows.
fn mach_o(d: &[u8]) -> Input {
    let (big, is64) = match d.get(..4) {
        Some(b"\xfe\xed\xfa\xce") => (true, false),
        Some(b"\xfe\xed\xfa\xcf") => (true, true),
        Some(b"\xce\xfa\xed\xfe") => (false, false),
        Some(b"\xcf\xfa\xed\xfe") => (false, true),
        _ => return Input::NotObject,
    };
    let word = |at: usize| {
        let b: [u8; 4] = d.get(at..at + 4)?.try_into().ok()?;
        Some(if big {
            u32::from_be_bytes(b)
        } else {
            u32::from_le_bytes(b)
        })
    };
    let header = if is64 { 32 } else { 28 };
    let filetype = if d.len() >= header { word(12) } else { None };
    if !filetype.is_some_and(|t| (1..=12).contains(&t)) {
        return Input::NotObject;
    }
    let cpu = word(4).unwrap_or_default();
    let name = match (is64, cpu) {
        (false, 7) => "Mach-O 32-bit i386",
        (false, 12) => "Mach-O arm",
        (false, 0x0200_000c) => "Mach-O arm64 (ILP32)",
        (false, 18) => "Mach-O 32-bit ppc",
        (false, 24) => "Mach-O 32-bit RISC-V",
        (false, _) => "Mach-O 32-bit unknown",
        (true, 0x0100_0007) => "Mach-O 64-bit x86-64",
        (true, 0x0100_000c) => "Mach-O arm64",
        (true, 0x0100_0012) => "Mach-O 64-bit ppc64",
        (true, _) => "Mach-O 64-bit unknown",
    };
    Input::Object(Object {
        family: Family::MachO,
        format: name.to_lowercase(),
    })
}

/// An ELF file, named by `ELFObjectFile::getFileFormatName`; one whose header `object` cannot
/// read is offkit's to refuse.
fn elf(d: &[u8], release: LlvmVersion) -> Input {
    let named = |bits: u8, big: bool, machine: elf::Machine| {
        Input::Object(Object {
            family: Family::Elf,
            format: elf_format(bits, big, machine, release),
        })
    };
    match FileKind::parse(d) {
        Ok(FileKind::Elf32) => elf::FileHeader32::<Endianness>::parse(d)
            .ok()
            .and_then(|h| Some((h.endian().ok()?, h)))
            .map_or(
                Input::Unsupported("an ELF file with an unreadable header"),
                |(e, h)| named(32, e == Endianness::Big, h.e_machine(e)),
            ),
        Ok(FileKind::Elf64) => elf::FileHeader64::<Endianness>::parse(d)
            .ok()
            .and_then(|h| Some((h.endian().ok()?, h)))
            .map_or(
                Input::Unsupported("an ELF file with an unreadable header"),
                |(e, h)| named(64, e == Endianness::Big, h.e_machine(e)),
            ),
        _ => Input::Unsupported("an ELF file with an unreadable header"),
    }
}

/// `EM_LANAI`, which `object` does not name.
const EM_LANAI: elf::Machine = elf::Machine(244);
/// `EM_VE`, which `object` does not name.
const EM_VE: elf::Machine = elf::Machine(251);

/// `ELFObjectFile::getFileFormatName`: the one difference between the releases is big-endian
/// RISC-V, which LLVM 19 names little.
pub fn elf_format(bits: u8, big: bool, machine: elf::Machine, release: LlvmVersion) -> String {
    let big_riscv = big && release >= LlvmVersion::V22;
    let name = match (bits, machine) {
        (32, elf::EM_68K) => "m68k",
        (32, elf::EM_386) | (64, elf::EM_386) => "i386",
        (32, elf::EM_IAMCU) => "iamcu",
        (_, elf::EM_X86_64) => "x86-64",
        (32, elf::EM_ARM) if big => "bigarm",
        (32, elf::EM_ARM) => "littlearm",
        (32, elf::EM_AVR) => "avr",
        (32, elf::EM_HEXAGON) => "hexagon",
        (32, EM_LANAI) => "lanai",
        (_, elf::EM_MIPS) => "mips",
        (32, elf::EM_MSP430) => "msp430",
        (32, elf::EM_PPC) | (64, elf::EM_PPC64) if big => "powerpc",
        (32, elf::EM_PPC) | (64, elf::EM_PPC64) => "powerpcle",
        (_, elf::EM_RISCV) if big_riscv => "bigriscv",
        (_, elf::EM_RISCV) => "littleriscv",
        (32, elf::EM_CSKY) => "csky",
        (32, elf::EM_SPARC | elf::EM_SPARC32PLUS) | (64, elf::EM_SPARCV9) => "sparc",
        (_, elf::EM_AMDGPU) => "amdgpu",
        (_, elf::EM_LOONGARCH) => "loongarch",
        (32, elf::EM_XTENSA) => "xtensa",
        (64, elf::EM_AARCH64) if big => "bigaarch64",
        (64, elf::EM_AARCH64) => "littleaarch64",
        (64, elf::EM_S390) => "s390",
        (64, elf::EM_BPF) => "bpf",
        (64, EM_VE) => "ve",
        _ => "unknown",
    };
    format!("elf{bits}-{name}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elf_names_as_llvm_measured() {
        let f = |bits, big, m, v| elf_format(bits, big, m, v);
        let (v19, v22) = (LlvmVersion::V19, LlvmVersion::V22);
        assert_eq!(f(64, false, elf::Machine(0), v22), "elf64-unknown");
        assert_eq!(f(64, false, elf::EM_X86_64, v19), "elf64-x86-64");
        assert_eq!(f(32, false, elf::EM_X86_64, v19), "elf32-x86-64");
        assert_eq!(f(64, true, elf::EM_PPC64, v22), "elf64-powerpc");
        assert_eq!(f(32, false, elf::EM_PPC64, v22), "elf32-unknown");
        assert_eq!(f(64, false, elf::EM_ARM, v22), "elf64-unknown");
        assert_eq!(f(64, true, elf::EM_RISCV, v19), "elf64-littleriscv");
        assert_eq!(f(64, true, elf::EM_RISCV, v22), "elf64-bigriscv");
        assert_eq!(f(32, false, elf::EM_SPARC32PLUS, v22), "elf32-sparc");
        assert_eq!(f(64, false, elf::EM_SPARC, v22), "elf64-unknown");
        assert_eq!(f(64, false, elf::EM_CUDA, v22), "elf64-unknown");
    }

    #[test]
    fn magic() {
        let v = LlvmVersion::V22;
        assert_eq!(classify(b"BC\xc0\xde", v), Input::NotObject);
        assert_eq!(classify(b"\x10\xff\x10\xad", v), Input::OffloadBinary);
        assert_eq!(classify(b"!<thin>\n", v), Input::Archive);
        assert_eq!(classify(b"__CLANG_OFFLOAD_BUNDLE__x", v), Input::NotObject);
        assert_eq!(classify(b"CCOB\x03\0\x01\0", v), Input::NotObject);
        assert_eq!(classify(b"\0\0\xff\xff\0\0", v), Input::CoffImport);
        let coff = |d: &[u8]| match classify(d, v) {
            Input::Object(o) if o.family == Family::Coff => o.format,
            other => panic!("{other:?}"),
        };
        assert_eq!(coff(b"\x64\x86\0\0"), "coff-x86-64");
        assert_eq!(coff(b"\x4c\x01\0\0"), "coff-i386");
        assert_eq!(coff(b"\x41\xa6\0\0"), "coff-arm64ec");
        assert_eq!(coff(b"\0\0\0\0"), "coff-<unknown arch>");
        let mut macho = b"\xce\xfa\xed\xfe\x07\0\0\0\x03\0\0\0\x01\0\0\0".to_vec();
        macho.resize(28, 0);
        match classify(&macho, v) {
            Input::Object(o) => assert_eq!(o.format, "mach-o 32-bit i386"),
            other => panic!("{other:?}"),
        }
        assert_eq!(classify(&macho[..20], v), Input::NotObject);
        assert_eq!(
            classify(b"\0asm\x01\0\0\0", v),
            Input::Unsupported("a WebAssembly object")
        );
    }
}
