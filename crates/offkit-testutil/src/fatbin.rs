//! CUDA fat binaries built by hand from the documented layout (`docs/formats.md`, "CUDA fat
//! binaries"), since no CUDA toolkit is at hand: entries (cubin, PTX, others) compressed or
//! not (the LZ4 block format, flag `0x2000`; zstd, flag `0x8000`), fake cubins with kernel
//! symbols, and host objects that carry them in `.nv_fatbin` / `__nv_relfatbin`.

use std::path::Path;

use object::write::{Object, StandardSection, Symbol, SymbolSection};
use object::{elf, Architecture, BinaryFormat, Endianness, SymbolFlags, SymbolKind, SymbolScope};

use crate::run::run_ok;

/// `FATBIN_MAGIC`.
pub const MAGIC: u32 = 0xBA55_ED50;
/// Entry kind: PTX.
pub const KIND_PTX: u16 = 1;
/// Entry kind: ELF (cubin).
pub const KIND_ELF: u16 = 2;
/// Flag: 64-bit addresses.
pub const FLAG_64BIT: u64 = 0x1;
/// Flag: built on Linux.
pub const FLAG_LINUX: u64 = 0x10;
/// Flag: LZ4 block compression.
pub const FLAG_LZ4: u64 = 0x2000;
/// Flag: zstd compression.
pub const FLAG_ZSTD: u64 = 0x8000;

/// How an entry's payload is stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Packing {
    /// As is.
    None,
    /// LZ4 block, by [`lz4_block`].
    Lz4,
    /// LZ4 block, by the `lz4` command-line tool (the reference encoder).
    Lz4Tool,
    /// zstd, level 3.
    Zstd,
}

/// One entry to write.
#[derive(Debug, Clone)]
pub struct EntrySpec<'a> {
    /// `FATBIN_KIND_*`.
    pub kind: u16,
    /// The SM architecture number (`80`).
    pub arch: u32,
    /// The contents (uncompressed).
    pub data: &'a [u8],
    /// How to store it.
    pub packing: Packing,
    /// An object name, stored after the fixed 64 header bytes.
    pub name: Option<&'a str>,
}

fn align8(n: usize) -> usize {
    n.div_ceil(8) * 8
}

/// One fat binary holding `entries`, in order.
pub fn fatbin(entries: &[EntrySpec<'_>]) -> Vec<u8> {
    let mut body = Vec::new();
    for e in entries {
        let (stored, flag) = match e.packing {
            Packing::None => (e.data.to_vec(), 0),
            Packing::Lz4 => (lz4_block(e.data), FLAG_LZ4),
            Packing::Lz4Tool => (lz4_tool_block(e.data), FLAG_LZ4),
            Packing::Zstd => (zstd::bulk::compress(e.data, 3).expect("zstd"), FLAG_ZSTD),
        };
        let name = e.name.map(|n| n.as_bytes()).unwrap_or_default();
        let name_field = if name.is_empty() {
            0
        } else {
            align8(name.len() + 1)
        };
        let header_size = 64 + name_field;
        let payload = align8(stored.len());
        let mut h = Vec::with_capacity(header_size);
        h.extend_from_slice(&e.kind.to_le_bytes());
        h.extend_from_slice(&0x0101u16.to_le_bytes());
        h.extend_from_slice(&(header_size as u32).to_le_bytes());
        h.extend_from_slice(&(payload as u64).to_le_bytes());
        h.extend_from_slice(&(stored.len() as u32).to_le_bytes());
        h.extend_from_slice(&0u32.to_le_bytes()); // options offset
        let (major, minor) = if e.kind == KIND_PTX {
            (8u16, 0u16)
        } else {
            (1, 7)
        };
        h.extend_from_slice(&minor.to_le_bytes());
        h.extend_from_slice(&major.to_le_bytes());
        h.extend_from_slice(&e.arch.to_le_bytes());
        let name_offset = if name.is_empty() { 0u32 } else { 64 };
        h.extend_from_slice(&name_offset.to_le_bytes());
        h.extend_from_slice(&(name.len() as u32).to_le_bytes());
        h.extend_from_slice(&(FLAG_64BIT | FLAG_LINUX | flag).to_le_bytes());
        h.extend_from_slice(&0u64.to_le_bytes());
        let uncompressed = if flag == 0 { 0 } else { e.data.len() as u64 };
        h.extend_from_slice(&uncompressed.to_le_bytes());
        h.extend_from_slice(name);
        h.resize(header_size, 0);
        body.extend_from_slice(&h);
        body.extend_from_slice(&stored);
        body.resize(body.len() + payload - stored.len(), 0);
    }
    let mut out = Vec::with_capacity(16 + body.len());
    out.extend_from_slice(&MAGIC.to_le_bytes());
    out.extend_from_slice(&1u16.to_le_bytes());
    out.extend_from_slice(&16u16.to_le_bytes());
    out.extend_from_slice(&(body.len() as u64).to_le_bytes());
    out.extend_from_slice(&body);
    out
}

/// A greedy LZ4 block encoder (LZ4's block format, honouring its end rules: the last 5 bytes
/// are literals, no match starts in the last 12).
pub fn lz4_block(data: &[u8]) -> Vec<u8> {
    fn length(out: &mut Vec<u8>, mut n: usize) {
        while n >= 255 {
            out.push(255);
            n -= 255;
        }
        out.push(n as u8);
    }
    fn sequence(out: &mut Vec<u8>, literals: &[u8], m: Option<(usize, usize)>) {
        let lit = literals.len();
        let ml = m.map_or(0, |(_, len)| len - 4);
        out.push(((lit.min(15) as u8) << 4) | ml.min(15) as u8);
        if lit >= 15 {
            length(out, lit - 15);
        }
        out.extend_from_slice(literals);
        if let Some((off, _)) = m {
            out.extend_from_slice(&(off as u16).to_le_bytes());
            if ml >= 15 {
                length(out, ml - 15);
            }
        }
    }
    let mut out = Vec::new();
    let mut table = std::collections::HashMap::<[u8; 4], usize>::new();
    let (mut i, mut anchor) = (0usize, 0usize);
    let limit = data.len().saturating_sub(12);
    while i < limit {
        let key = [data[i], data[i + 1], data[i + 2], data[i + 3]];
        let prev = table.insert(key, i);
        if let Some(p) = prev.filter(|&p| i - p <= 65535) {
            let mut len = 4;
            while i + len < data.len() - 5 && data[p + len] == data[i + len] {
                len += 1;
            }
            sequence(&mut out, &data[anchor..i], Some((i - p, len)));
            i += len;
            anchor = i;
        } else {
            i += 1;
        }
    }
    sequence(&mut out, &data[anchor..], None);
    out
}

/// The LZ4 block the `lz4` tool (LZ4's reference encoder) makes of `data` (< 4 MiB): its
/// frame's single compressed block.
pub fn lz4_tool_block(data: &[u8]) -> Vec<u8> {
    let dir = tempfile::tempdir().expect("tempdir");
    let input = dir.path().join("in");
    std::fs::write(&input, data).expect("write");
    let frame_path = dir.path().join("in.lz4");
    run_ok(
        Path::new("lz4"),
        ["-q", "-f", "-9", "-B7", "in", "in.lz4"],
        dir.path(),
    );
    let frame = std::fs::read(&frame_path).expect("read lz4 frame");
    assert_eq!(frame[..4], [0x04, 0x22, 0x4d, 0x18], "lz4 frame magic");
    let flg = frame[4];
    let mut at =
        4 + 2 + if flg & 0x08 != 0 { 8 } else { 0 } + if flg & 0x01 != 0 { 4 } else { 0 } + 1;
    let size = u32::from_le_bytes(frame[at..at + 4].try_into().unwrap());
    at += 4;
    assert_eq!(size & 0x8000_0000, 0, "lz4 stored the block uncompressed");
    let block = frame[at..at + size as usize].to_vec();
    let next = at + size as usize;
    assert_eq!(frame[next..next + 4], [0, 0, 0, 0], "one block only");
    block
}

/// A stand-in cubin: an ELF64 relocatable of machine `EM_CUDA` whose `e_flags` name `sm`
/// (the original ABI: SM in bits 0–7, `EI_ABIVERSION` 7), with a `.text.<name>` function
/// marked `STO_CUDA_ENTRY` per kernel and one device function that is not a kernel.
pub fn cubin(sm: u32, kernels: &[&str]) -> Vec<u8> {
    let mut o = Object::new(BinaryFormat::Elf, Architecture::X86_64, Endianness::Little);
    o.flags = object::FileFlags::Elf {
        os_abi: elf::OsAbi(0x33),
        abi_version: 7,
        e_flags: elf::FileFlags(sm | (sm << 16) | 0x500),
    };
    let functions = kernels
        .iter()
        .map(|k| (*k, true))
        .chain([("helper", false)]);
    for (name, entry) in functions {
        let section = o.add_section(
            Vec::new(),
            format!(".text.{name}").into_bytes(),
            object::SectionKind::Text,
        );
        let at = o.append_section_data(section, &[0u8; 16], 16);
        o.add_symbol(Symbol {
            name: name.as_bytes().to_vec(),
            value: at,
            size: 16,
            kind: SymbolKind::Text,
            scope: SymbolScope::Dynamic,
            weak: false,
            section: SymbolSection::Section(section),
            flags: SymbolFlags::Elf {
                st_info: elf::SymbolInfo((elf::STB_GLOBAL.0 << 4) | elf::STT_FUNC.0),
                st_other: elf::SymbolOther(if entry { 0x10 } else { 0 }),
            },
        });
    }
    let mut bytes = o.write().expect("write cubin");
    bytes[18..20].copy_from_slice(&elf::EM_CUDA.0.to_le_bytes());
    bytes
}

/// An x86_64 host object with one data section per `(name, contents)`, 8-byte aligned, and a
/// `.text` function `main`.
pub fn host_object(sections: &[(&str, &[u8])]) -> Vec<u8> {
    let mut o = Object::new(BinaryFormat::Elf, Architecture::X86_64, Endianness::Little);
    let text = o.section_id(StandardSection::Text);
    o.append_section_data(text, &[0xc3], 16);
    for (name, contents) in sections {
        let s = o.add_section(
            Vec::new(),
            name.as_bytes().to_vec(),
            object::SectionKind::ReadOnlyData,
        );
        o.append_section_data(s, contents, 8);
    }
    o.write().expect("write host object")
}
