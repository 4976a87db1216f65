//! Stand-in AMD GPU code objects of any size and layout, for tests of reading code objects from
//! a stream (`offkit-format`'s `code_object::parts`): an ELF64 shared object of machine
//! `EM_AMDGPU` (written by `object` for x86_64, then re-labelled), HSA code object v6 for
//! `gfx90a`, with a kernel descriptor symbol `NAME.kd` per kernel, a `.note` holding an
//! `NT_AMDGPU_METADATA` msgpack note with each kernel's counts, and a `.text` of the size asked
//! for. `object` writes the symbol and string tables and the section headers after the section
//! data, so a large `.text` with many long kernel names puts the symbol table out of reach of a
//! window at the image's end, as in a real library's large code objects.

use object::write::{Object, Symbol, SymbolSection};
use object::{elf, Architecture, BinaryFormat, Endianness, SymbolFlags, SymbolKind, SymbolScope};

/// One kernel's counts in the metadata note.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Kernel {
    /// Its name.
    pub name: String,
    /// `.vgpr_count`.
    pub vgprs: u64,
    /// `.sgpr_count`.
    pub sgprs: u64,
    /// `.group_segment_fixed_size`.
    pub lds: u64,
    /// `.private_segment_fixed_size`.
    pub scratch: u64,
}

impl Kernel {
    /// Kernel `i` of a family named `prefix`, with counts derived from `i`.
    pub fn nth(prefix: &str, i: u64) -> Kernel {
        Kernel {
            name: format!("{prefix}{i:06}"),
            vgprs: 1 + i % 256,
            sgprs: 8 + i % 96,
            lds: (i % 17) * 256,
            scratch: (i % 5) * 16,
        }
    }
}

/// msgpack of a string.
fn str_(out: &mut Vec<u8>, s: &str) {
    let n = s.len();
    if n < 32 {
        out.push(0xa0 | n as u8);
    } else {
        out.push(0xda);
        out.extend_from_slice(&(n as u16).to_be_bytes());
    }
    out.extend_from_slice(s.as_bytes());
}

/// msgpack of an unsigned integer.
fn uint(out: &mut Vec<u8>, v: u64) {
    out.push(0xcf);
    out.extend_from_slice(&v.to_be_bytes());
}

/// The msgpack metadata of `kernels`: `{"amdhsa.version": [1, 2], "amdhsa.kernels": [...]}`,
/// each kernel with `.name`, `.symbol`, `.args` (one by-value argument) and its counts.
pub fn metadata(kernels: &[Kernel]) -> Vec<u8> {
    let mut m = vec![0x82];
    str_(&mut m, "amdhsa.version");
    m.extend([0x92, 1, 2]);
    str_(&mut m, "amdhsa.kernels");
    m.push(0xdd);
    m.extend_from_slice(&(kernels.len() as u32).to_be_bytes());
    for k in kernels {
        m.push(0x87);
        str_(&mut m, ".name");
        str_(&mut m, &k.name);
        str_(&mut m, ".symbol");
        str_(&mut m, &format!("{}.kd", k.name));
        str_(&mut m, ".args");
        m.extend([0x91, 0x82]);
        str_(&mut m, ".size");
        m.push(8);
        str_(&mut m, ".value_kind");
        str_(&mut m, "by_value");
        for (key, v) in [
            (".vgpr_count", k.vgprs),
            (".sgpr_count", k.sgprs),
            (".group_segment_fixed_size", k.lds),
            (".private_segment_fixed_size", k.scratch),
        ] {
            str_(&mut m, key);
            uint(&mut m, v);
        }
    }
    m
}

/// An ELF note: owner `AMDGPU`, type `NT_AMDGPU_METADATA` (32), `desc` padded to 4 bytes.
pub fn metadata_note(desc: &[u8]) -> Vec<u8> {
    let mut n = Vec::new();
    n.extend_from_slice(&7u32.to_le_bytes());
    n.extend_from_slice(&(desc.len() as u32).to_le_bytes());
    n.extend_from_slice(&32u32.to_le_bytes());
    n.extend_from_slice(b"AMDGPU\0\0");
    n.extend_from_slice(desc);
    n.resize(n.len().next_multiple_of(4), 0);
    n
}

/// A code object for `gfx90a` (v6) with `kernels` and a `.text` of `text` bytes.
pub fn amdgpu(kernels: &[Kernel], text: usize) -> Vec<u8> {
    let mut o = Object::new(BinaryFormat::Elf, Architecture::X86_64, Endianness::Little);
    o.flags = object::FileFlags::Elf {
        os_abi: elf::OsAbi(64),
        abi_version: 4,
        // EF_AMDGPU_MACH_AMDGCN_GFX90A, xnack and sramecc any.
        e_flags: elf::FileFlags(0x3f | 0x100 | 0x400),
    };
    let note = o.add_section(Vec::new(), b".note".to_vec(), object::SectionKind::Note);
    o.append_section_data(note, &metadata_note(&metadata(kernels)), 4);
    let rodata = o.add_section(
        Vec::new(),
        b".rodata".to_vec(),
        object::SectionKind::ReadOnlyData,
    );
    let code = o.add_section(Vec::new(), b".text".to_vec(), object::SectionKind::Text);
    o.append_section_data(code, &vec![0u8; text], 256);
    for k in kernels {
        let at = o.append_section_data(rodata, &[0u8; 64], 64);
        o.add_symbol(Symbol {
            name: format!("{}.kd", k.name).into_bytes(),
            value: at,
            size: 64,
            kind: SymbolKind::Data,
            scope: SymbolScope::Dynamic,
            weak: false,
            section: SymbolSection::Section(rodata),
            flags: SymbolFlags::Elf {
                st_info: elf::SymbolInfo((elf::STB_GLOBAL.0 << 4) | elf::STT_OBJECT.0),
                // STV_PROTECTED, as LLVM marks kernel descriptors.
                st_other: elf::SymbolOther(3),
            },
        });
    }
    let mut bytes = o.write().expect("write code object");
    bytes[16..18].copy_from_slice(&elf::ET_DYN.0.to_le_bytes());
    bytes[18..20].copy_from_slice(&elf::EM_AMDGPU.0.to_le_bytes());
    bytes
}
