//! CUDA fat binaries (`fatbinary`, magic `0xBA55ED50`): what `nvcc` puts in `.nv_fatbin` and,
//! for relocatable device code, `__nv_relfatbin`; LLVM's `clang-linker-wrapper` embeds one in
//! `.nv_fatbin` too. A fat binary is a 16-byte header and a sequence of entries, each a header
//! (64 bytes or more) and a payload padded to 8 bytes: a cubin (ELF), PTX text, or another
//! kind, for one SM architecture, possibly compressed (LZ4 block format, flag `0x2000`; zstd,
//! flag `0x8000`). A section may hold several fat binaries one after the other (one per
//! object the linker put together), each starting at an 8-byte boundary.
//!
//! ```text
//! .nv_fatbin ─parse_all─► [Fatbin] ─► [Entry { kind, arch, flags }] ─contents─► cubin / PTX
//! ```
//!
//! The layout is NVIDIA's and undocumented; `docs/formats.md` gives the field table and the
//! public sources it was taken from. Parsing is bounded: entry counts by
//! [`limits::MAX_FATBIN_ENTRIES`], header sizes by [`limits::MAX_FATBIN_ENTRY_HEADER`], and
//! decompression by the size the entry header promises (checked against what the compressed
//! bytes can produce before anything is reserved).
//!
//! ```
//! use offkit_format::fatbin;
//!
//! // A fat binary with one uncompressed PTX entry for sm_80.
//! let ptx = b".version 8.0\n.target sm_80\n\0\0\0";
//! let mut entry = fatbin::raw::EntryHeader {
//!     kind: 1, version: 0x0101, header_size: 64, payload_size: ptx.len() as u64,
//!     arch: 80, flags: fatbin::flags::ADDRESS_64BIT, ..Default::default()
//! };
//! entry.data_size = ptx.len() as u32;
//! let head = fatbin::raw::Header { magic: fatbin::MAGIC, version: 1, header_size: 16,
//!     fat_size: 64 + ptx.len() as u64 };
//! let mut bytes = head.to_bytes().to_vec();
//! bytes.extend_from_slice(&entry.to_bytes());
//! bytes.extend_from_slice(ptx);
//! let fatbins = fatbin::parse_all(&bytes, 0).unwrap();
//! let e = &fatbins[0].entries[0];
//! assert_eq!((e.kind, e.sm().as_str(), e.triple()), (fatbin::EntryKind::Ptx, "sm_80", "nvptx64-nvidia-cuda"));
//! assert_eq!(&*e.contents().unwrap(), &ptx[..]);
//! ```

pub mod raw;

mod lz4;

use std::borrow::Cow;
use std::io::Read;

use crate::error::{Error, Result};
use crate::kind::ImageKind;
use offkit_read::limits;
use offkit_read::{align_up, Reader};

/// `FATBIN_MAGIC`.
pub const MAGIC: u32 = 0xBA55_ED50;
/// The alignment of fat binaries in a section and of entries in a fat binary.
pub(crate) const ALIGN: u64 = 8;

/// The entry flags (`0x28`), by the names the sources give them.
pub mod flags {
    /// The code uses 64-bit addresses (`nvptx64`).
    pub const ADDRESS_64BIT: u64 = 0x1;
    /// The code has debug information.
    pub(crate) const DEBUG: u64 = 0x2;
    /// Produced by CUDA.
    pub(crate) const PRODUCER_CUDA: u64 = 0x4;
    /// Produced by OpenCL.
    pub(crate) const PRODUCER_OPENCL: u64 = 0x8;
    /// Built on a Linux host.
    pub(crate) const HOST_LINUX: u64 = 0x10;
    /// Built on a macOS host.
    pub(crate) const HOST_MAC: u64 = 0x20;
    /// Built on a Windows host.
    pub(crate) const HOST_WINDOWS: u64 = 0x40;
    /// CUDA 4 and before: compressed PTX (an older scheme offkit does not decompress).
    pub(crate) const OLD_COMPRESSED: u64 = 0x1000;
    /// The payload is compressed in the LZ4 block format.
    pub(crate) const COMPRESSED_LZ4: u64 = 0x2000;
    /// The payload is compressed with zstd (CUDA 12.x and later).
    pub(crate) const COMPRESSED_ZSTD: u64 = 0x8000;

    /// Every named bit with its name, in bit order.
    pub(crate) const NAMES: &[(u64, &str)] = &[
        (ADDRESS_64BIT, "64bit"),
        (DEBUG, "debug"),
        (PRODUCER_CUDA, "cuda"),
        (PRODUCER_OPENCL, "opencl"),
        (HOST_LINUX, "linux"),
        (HOST_MAC, "mac"),
        (HOST_WINDOWS, "windows"),
        (OLD_COMPRESSED, "old-compressed"),
        (COMPRESSED_LZ4, "lz4"),
        (COMPRESSED_ZSTD, "zstd"),
    ];
}

/// What an entry holds (`FATBIN_KIND_*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum EntryKind {
    /// 1: PTX text.
    Ptx,
    /// 2: a cubin (an ELF file, `EM_CUDA`).
    Elf,
    /// 4: an old-style (pre-ELF) cubin.
    OldCubin,
    /// 8: NVVM IR (LLVM bitcode, `-dlto`).
    Nvvm,
    /// Any other value.
    Other(u16),
}

impl EntryKind {
    /// The kind with the numeric value `v`.
    pub fn from_raw(v: u16) -> Self {
        match v {
            1 => Self::Ptx,
            2 => Self::Elf,
            4 => Self::OldCubin,
            8 => Self::Nvvm,
            v => Self::Other(v),
        }
    }

    /// The numeric value.
    pub fn to_raw(self) -> u16 {
        match self {
            Self::Ptx => 1,
            Self::Elf => 2,
            Self::OldCubin => 4,
            Self::Nvvm => 8,
            Self::Other(v) => v,
        }
    }

    /// `ptx`, `elf`, `old-cubin`, `nvvm`, or `kind N`.
    pub fn name(self) -> Cow<'static, str> {
        match self {
            Self::Ptx => "ptx".into(),
            Self::Elf => "elf".into(),
            Self::OldCubin => "old-cubin".into(),
            Self::Nvvm => "nvvm".into(),
            Self::Other(v) => format!("kind {v:#x}").into(),
        }
    }

    /// The image kind of a payload of this kind (`bytes`: the decompressed payload, for kinds
    /// that say nothing).
    pub fn image_kind(self, bytes: &[u8]) -> ImageKind {
        match self {
            Self::Ptx => ImageKind::Ptx,
            Self::Elf => ImageKind::Cubin,
            _ if bytes.starts_with(b"\x7fELF") => ImageKind::Cubin,
            _ if offkit_llvm::bitcode::is_bitcode(bytes) => ImageKind::Bitcode,
            _ => ImageKind::None,
        }
    }
}

/// How an entry's payload is compressed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Method {
    /// The LZ4 block format (flag `0x2000`).
    Lz4,
    /// A zstd frame (flag `0x8000`).
    Zstd,
}

impl Method {
    /// `lz4` or `zstd`.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Method::Lz4 => "lz4",
            Method::Zstd => "zstd",
        }
    }
}

/// One fat binary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fatbin<'d> {
    /// The absolute offset of its header.
    pub offset: u64,
    /// The header.
    pub header: raw::Header,
    /// The entries, in file order.
    pub entries: Vec<Entry<'d>>,
}

impl Fatbin<'_> {
    /// The fat binary's size: header and entries.
    pub fn size(&self) -> u64 {
        u64::from(self.header.header_size).saturating_add(self.header.fat_size)
    }
}

/// One entry of a fat binary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry<'d> {
    /// The absolute offset of the entry header.
    pub offset: u64,
    /// The fixed part of the header.
    pub raw: raw::EntryHeader,
    /// What it holds.
    pub kind: EntryKind,
    /// The object name the header carries (`name_offset`/`name_len`), without trailing NULs.
    pub name: Option<&'d [u8]>,
    /// The absolute offset of the stored data.
    pub data_offset: u64,
    /// The stored data: the compressed bytes of a compressed entry, else the payload.
    pub data: &'d [u8],
    /// How the data is compressed, if it is.
    pub compression: Option<Method>,
}

impl<'d> Entry<'d> {
    /// The SM architecture as a target ID: `sm_80`.
    pub fn sm(&self) -> String {
        format!("sm_{}", self.raw.arch)
    }

    /// `nvptx64-nvidia-cuda`, or `nvptx-nvidia-cuda` for 32-bit code.
    pub fn triple(&self) -> &'static str {
        if self.raw.flags & flags::ADDRESS_64BIT != 0 {
            "nvptx64-nvidia-cuda"
        } else {
            "nvptx-nvidia-cuda"
        }
    }

    /// The size of the contents: the decompressed size of a compressed entry.
    pub fn size(&self) -> u64 {
        match self.compression {
            Some(_) => self.raw.uncompressed_size,
            None => self.data.len() as u64,
        }
    }

    /// The names of the flags set, and the bits that have none.
    pub(crate) fn flag_names(&self) -> (Vec<&'static str>, u64) {
        let mut rest = self.raw.flags;
        let mut names = Vec::new();
        for &(bit, name) in flags::NAMES {
            if rest & bit != 0 {
                names.push(name);
                rest &= !bit;
            }
        }
        (names, rest)
    }

    /// The contents: the data, decompressed if it is compressed.
    pub fn contents(&self) -> Result<Cow<'d, [u8]>> {
        match self.compression {
            None => Ok(Cow::Borrowed(self.data)),
            Some(m) => decompress(m, self.data, self.raw.uncompressed_size, self.data_offset)
                .map(Cow::Owned),
        }
    }
}

/// What the walk reports about a fat binary entry, owned (no payload).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct EntrySummary {
    /// Which fat binary of its section, from 0.
    pub fatbin_index: usize,
    /// The absolute offset of that fat binary's header.
    pub fatbin_offset: u64,
    /// Which entry of its fat binary, from 0.
    pub entry_index: usize,
    /// The absolute offset of the entry header.
    pub header_offset: u64,
    /// The entry header's size.
    pub header_size: u32,
    /// What it holds.
    pub kind: EntryKind,
    /// The entry header's version (`0x0101`).
    pub version: u16,
    /// The SM architecture number (`80`).
    pub arch: u32,
    /// The code version `(major, minor)`: the PTX ISA version of PTX, the cubin ABI's of ELF.
    pub code_version: (u16, u16),
    /// The flags.
    pub flags: u64,
    /// The names of the flags set.
    pub flag_names: Vec<&'static str>,
    /// Flag bits without a name.
    pub unknown_flags: u64,
    /// The object name the header carries.
    pub name: Option<String>,
    /// The bytes stored in the file (compressed or not), without padding.
    pub stored_size: u64,
}

impl EntrySummary {
    /// The summary of entry `ei` of fat binary `fb`, the `fi`-th of its section.
    pub(crate) fn new(fi: usize, fb: &Fatbin<'_>, ei: usize, e: &Entry<'_>) -> Self {
        let (flag_names, unknown_flags) = e.flag_names();
        EntrySummary {
            fatbin_index: fi,
            fatbin_offset: fb.offset,
            entry_index: ei,
            header_offset: e.offset,
            header_size: e.raw.header_size,
            kind: e.kind,
            version: e.raw.version,
            arch: e.raw.arch,
            code_version: (e.raw.major, e.raw.minor),
            flags: e.raw.flags,
            flag_names,
            unknown_flags,
            name: e.name.map(|n| String::from_utf8_lossy(n).into_owned()),
            stored_size: e.data.len() as u64,
        }
    }
}

/// Whether `data` starts with a fat binary's magic.
pub(crate) fn has_magic(data: &[u8]) -> bool {
    data.get(..4) == Some(&MAGIC.to_le_bytes()[..])
}

/// The fat binaries of a section (or a file), one after the other, each at an 8-byte boundary
/// (relative to the start of `data`, which is at absolute offset `base`) with zero bytes
/// between them and after the last one.
pub fn parse_all(data: &[u8], base: u64) -> Result<Vec<Fatbin<'_>>> {
    let mut out = Vec::new();
    let mut pos = 0u64;
    let len = data.len() as u64;
    let mut entries = 0usize;
    loop {
        // Skip the zero padding up to the next fat binary (or the end).
        let rest = data.get(pos as usize..).unwrap_or_default();
        let zeros = rest.iter().take_while(|&&b| b == 0).count() as u64;
        if pos + zeros == len {
            break;
        }
        let start = pos + zeros / ALIGN * ALIGN;
        if start % ALIGN != 0 || !has_magic(data.get(start as usize..).unwrap_or_default()) {
            return Err(Error::BadMagic {
                what: "fat binary",
                offset: base + start.max(pos + zeros),
            });
        }
        let fb = parse(data.get(start as usize..).unwrap_or_default(), base + start)?;
        entries = entries.saturating_add(fb.entries.len());
        if entries > limits::MAX_FATBIN_ENTRIES {
            return Err(Error::limit(
                limits::Limit::FatbinEntries,
                "fat binary entries in one section",
                base + start,
                entries as u64,
            ));
        }
        let end = start.saturating_add(fb.size());
        out.push(fb);
        pos = match align_up(end, ALIGN) {
            Some(p) if p <= len => p,
            _ => len,
        };
        let gap = data.get(end as usize..pos as usize).unwrap_or_default();
        if let Some(i) = gap.iter().position(|&b| b != 0) {
            return Err(Error::Invalid {
                what: "fat binary padding",
                offset: base + end + i as u64,
                reason:
                    "the bytes after a fat binary, up to the next 8-byte boundary, are not zero"
                        .into(),
            });
        }
    }
    Ok(out)
}

/// One fat binary at the start of `data` (absolute offset `base`); bytes after it are ignored.
pub fn parse(data: &[u8], base: u64) -> Result<Fatbin<'_>> {
    let mut r = Reader::new(data, base);
    let header = raw::Header::read(&mut r)?;
    if header.magic != MAGIC {
        return Err(Error::BadMagic {
            what: "fat binary",
            offset: base,
        });
    }
    if header.version != 1 {
        return Err(Error::UnsupportedVersion {
            what: "fat binary",
            offset: base,
            version: header.version.into(),
            known: "1",
        });
    }
    if u64::from(header.header_size) < raw::Header::SIZE {
        return Err(Error::Invalid {
            what: "fat binary header size",
            offset: base + 6,
            reason: format!(
                "{} is smaller than the header's 16 bytes",
                header.header_size
            ),
        });
    }
    let body = r.sub(u64::from(header.header_size), header.fat_size, "fat binary")?;
    let mut entries = Vec::new();
    let mut pos = 0u64;
    while pos < header.fat_size {
        if entries.len() >= limits::MAX_FATBIN_ENTRIES {
            return Err(Error::limit(
                limits::Limit::FatbinEntries,
                "fat binary entries",
                body.base() + pos,
                entries.len() as u64 + 1,
            ));
        }
        let e = entry(&body, pos)?;
        pos = pos
            .saturating_add(u64::from(e.raw.header_size))
            .saturating_add(e.raw.payload_size);
        entries.push(e);
    }
    Ok(Fatbin {
        offset: base,
        header,
        entries,
    })
}

/// The entry at relative position `pos` of `body` (the entries of one fat binary).
fn entry<'d>(body: &Reader<'d>, pos: u64) -> Result<Entry<'d>> {
    let mut r = body.clone();
    r.seek(pos, "fat binary entry")?;
    let offset = r.offset();
    let h = raw::EntryHeader::read(&mut r)?;
    let header_size = u64::from(h.header_size);
    if header_size < raw::EntryHeader::SIZE {
        return Err(Error::Invalid {
            what: "fat binary entry header size",
            offset: offset + 4,
            reason: format!("{header_size} is smaller than the fixed 64 bytes"),
        });
    }
    if header_size > limits::MAX_FATBIN_ENTRY_HEADER {
        return Err(Error::limit(
            limits::Limit::FatbinEntryHeader,
            "fat binary entry header size",
            offset + 4,
            header_size,
        ));
    }
    let whole = body.sub(
        pos,
        header_size.saturating_add(h.payload_size),
        "fat binary entry",
    )?;
    let payload = whole.sub(header_size, h.payload_size, "fat binary entry payload")?;
    let name = match (h.name_offset, h.name_len) {
        (0, _) | (_, 0) => None,
        (at, n) => {
            let bytes = whole
                .sub(u64::from(at), u64::from(n), "fat binary entry name")?
                .rest();
            let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
            bytes.get(..end)
        }
    };
    let compression = match (
        h.flags & flags::COMPRESSED_LZ4 != 0,
        h.flags & flags::COMPRESSED_ZSTD != 0,
    ) {
        (false, false) => None,
        (true, false) => Some(Method::Lz4),
        (false, true) => Some(Method::Zstd),
        (true, true) => {
            return Err(Error::Invalid {
                what: "fat binary entry flags",
                offset: offset + 0x28,
                reason: format!(
                    "{:#x} says both lz4 (0x2000) and zstd (0x8000) compression",
                    h.flags
                ),
            })
        }
    };
    let data_len = match (compression, h.data_size) {
        (Some(_), 0) => {
            return Err(Error::Invalid {
                what: "fat binary entry data size",
                offset: offset + 0x10,
                reason: "a compressed entry has no compressed size".into(),
            })
        }
        (None, 0) => h.payload_size,
        (_, n) => u64::from(n),
    };
    if data_len > h.payload_size {
        return Err(Error::Invalid {
            what: "fat binary entry data size",
            offset: offset + 0x10,
            reason: format!(
                "{data_len} bytes of data do not fit in the {}-byte payload",
                h.payload_size
            ),
        });
    }
    let data = payload.sub(0, data_len, "fat binary entry data")?;
    Ok(Entry {
        offset,
        kind: EntryKind::from_raw(h.kind),
        raw: h,
        name,
        data_offset: data.base(),
        data: data.rest(),
        compression,
    })
}

/// Decompresses `packed` (at absolute offset `offset`) with `method` into exactly `expected`
/// bytes; a size above what the input can produce, or above
/// [`limits::MAX_INFLATED_SIZE`], is refused before anything is reserved.
pub fn decompress(method: Method, packed: &[u8], expected: u64, offset: u64) -> Result<Vec<u8>> {
    let most = match method {
        Method::Zstd => limits::max_inflated(true, packed.len() as u64),
        Method::Lz4 => (packed.len() as u64).saturating_mul(255).saturating_add(64),
    }
    .min(limits::MAX_INFLATED_SIZE);
    if expected > most {
        return Err(Error::Invalid {
            what: "fat binary entry uncompressed size",
            offset,
            reason: format!(
                "{expected} bytes cannot come out of {} bytes of {} data (at most {most})",
                packed.len(),
                method.name()
            ),
        });
    }
    match method {
        Method::Lz4 => lz4::decompress(packed, expected, offset),
        Method::Zstd => {
            let fail = |reason: String| Error::Decompress {
                what: "zstd-compressed fat binary entry",
                offset,
                reason,
            };
            let mut out = Vec::new();
            zstd::stream::read::Decoder::with_buffer(packed)
                .and_then(|d| d.take(expected.saturating_add(1)).read_to_end(&mut out))
                .map_err(|source| Error::Codec {
                    what: "fat binary entry",
                    offset,
                    method: "zstd",
                    source,
                })?;
            if out.len() as u64 != expected {
                return Err(fail(format!(
                    "the zstd data inflates to {}{} bytes, but the header says {expected}",
                    if out.len() as u64 > expected {
                        "more than "
                    } else {
                        ""
                    },
                    out.len().min(expected as usize)
                )));
            }
            Ok(out)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fatbin(entries: &[(raw::EntryHeader, &[u8])]) -> Vec<u8> {
        let mut body = Vec::new();
        for (h, payload) in entries {
            body.extend_from_slice(&h.to_bytes());
            body.resize(body.len() + h.header_size as usize - 64, 0);
            body.extend_from_slice(payload);
            body.resize(body.len() + (h.payload_size as usize - payload.len()), 0);
        }
        let head = raw::Header {
            magic: MAGIC,
            version: 1,
            header_size: 16,
            fat_size: body.len() as u64,
        };
        let mut out = head.to_bytes().to_vec();
        out.extend_from_slice(&body);
        out
    }

    fn header(kind: u16, arch: u32, payload: &[u8]) -> raw::EntryHeader {
        raw::EntryHeader {
            kind,
            version: 0x0101,
            header_size: 64,
            payload_size: align_up(payload.len() as u64, 8).unwrap(),
            data_size: payload.len() as u32,
            arch,
            flags: flags::ADDRESS_64BIT | flags::HOST_LINUX,
            ..Default::default()
        }
    }

    #[test]
    fn entries_and_sequences() {
        let elf = b"\x7fELF-cubin-bytes";
        let ptx = b".version 7.0\0";
        let a = fatbin(&[(header(2, 80, elf), elf), (header(1, 70, ptx), ptx)]);
        let b = fatbin(&[(header(1, 90, ptx), ptx)]);
        let mut section = a.clone();
        section.resize(align_up(section.len() as u64, 16).unwrap() as usize + 8, 0);
        let b_at = section.len();
        section.extend_from_slice(&b);
        section.extend_from_slice(&[0; 8]);
        let all = parse_all(&section, 0x1000).unwrap();
        assert_eq!(all.len(), 2);
        assert_eq!(all[1].offset, 0x1000 + b_at as u64);
        let e = &all[0].entries;
        assert_eq!(
            (e[0].kind, e[0].sm()),
            (EntryKind::Elf, "sm_80".to_string())
        );
        assert_eq!(&*e[0].contents().unwrap(), elf);
        assert_eq!(e[0].data_offset, 0x1000 + 16 + 64);
        assert_eq!((e[1].kind, e[1].raw.arch), (EntryKind::Ptx, 70));
        assert_eq!(&*e[1].contents().unwrap(), ptx);
        assert_eq!(e[1].flag_names(), (vec!["64bit", "linux"], 0));
        assert_eq!(all[1].entries[0].sm(), "sm_90");
    }

    #[test]
    fn bad_fatbins() {
        let ptx = b".version 7.0\0";
        let good = fatbin(&[(header(1, 70, ptx), ptx)]);
        // Junk after the fat binary.
        let mut junk = good.clone();
        junk.extend_from_slice(b"\0\0\0\0\0\0\0\0junkjunk");
        assert!(matches!(
            parse_all(&junk, 0),
            Err(Error::BadMagic { offset, .. }) if offset == good.len() as u64 + 8
        ));
        // Truncated.
        assert!(parse_all(&good[..good.len() - 1], 0).is_err());
        // A header size below 64.
        assert!(parse_all(&good[..16], 0).is_err());
        let mut small = good.clone();
        small[16 + 4..16 + 8].copy_from_slice(&8u32.to_le_bytes());
        assert!(parse_all(&small, 0).is_err());
        // Data larger than the payload.
        let mut big = good.clone();
        big[16 + 0x10..16 + 0x14].copy_from_slice(&1000u32.to_le_bytes());
        assert!(parse_all(&big, 0).is_err());
        // A compressed entry whose size the data cannot produce.
        let mut lying = good.clone();
        lying[16 + 0x28..16 + 0x30].copy_from_slice(&flags::COMPRESSED_LZ4.to_le_bytes());
        lying[16 + 0x38..16 + 0x40].copy_from_slice(&u64::MAX.to_le_bytes());
        let fb = parse_all(&lying, 0).unwrap();
        assert!(fb[0].entries[0].contents().is_err());
        // Version 2.
        let mut v2 = good.clone();
        v2[4] = 2;
        assert!(matches!(
            parse_all(&v2, 0),
            Err(Error::UnsupportedVersion { .. })
        ));
    }

    #[test]
    fn zstd_entries() {
        let plain = b"\x7fELF".repeat(100);
        let packed = zstd::bulk::compress(&plain, 3).unwrap();
        let mut h = header(2, 86, &packed);
        h.flags |= flags::COMPRESSED_ZSTD;
        h.uncompressed_size = plain.len() as u64;
        let fb = fatbin(&[(h, &packed)]);
        let all = parse_all(&fb, 0).unwrap();
        let e = &all[0].entries[0];
        assert_eq!(e.compression, Some(Method::Zstd));
        assert_eq!(e.size(), 400);
        assert_eq!(&*e.contents().unwrap(), &plain[..]);
    }
}
