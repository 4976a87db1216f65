//! Offload binaries: the `0x10FF10AD` container of the `.llvm.offloading` section.
//!
//! LLVM 19 writes and reads version 1: one image per binary, a 32-byte header, a 40-byte entry,
//! 16-byte string entries, an ELF-style string table and the 8-aligned image. Newer LLVM writes
//! version 2 (several entries per binary, 24-byte string entries that carry the value's size, a
//! header field that counts the entries) and version 3 (a 40-byte header whose `inflated_size`,
//! when non-zero, says that everything after the header is zlib- or zstd-compressed). Several
//! binaries are concatenated in one section.
//!
//! ```text
//! v1:   header (32) │ entry (40)      │ n × {key, value}       │ strtab │ pad8 │ image   │ pad8
//! v2:   header (32) │ entries (k × 40) │ Σn × {key, value, len} │ strtab │ pad8 │ images… │ pad8
//! v3:   header (40) │ the same as v2, or (inflated_size ≠ 0) one zlib/zstd stream of it │ pad8
//! ```
//!
//! Reading follows LLVM: [`parse_all`] walks a section binary by binary (version 1 advances by
//! `size`, as LLVM 19 does; versions 2 and 3 by `size` rounded up to 8, as newer LLVM does).
//! Where LLVM would read outside the data (it checks few of the offsets), offkit stops with an
//! error that names the absolute offset instead.

mod compress;
mod write;

use std::borrow::Cow;

use crate::error::{Error, Result};
use crate::kind::{ImageKind, OffloadKind};
use offkit_read::limits;
use offkit_read::{align_up, Reader};

pub use compress::{Compression, CompressionFormat};
pub use write::{layout_v1, write, write_v1, Image, ImageSpec, Layout};

/// The magic bytes every offload binary starts with.
pub const MAGIC: [u8; 4] = [0x10, 0xFF, 0x10, 0xAD];

/// Offload binaries are 8-aligned and their sizes are multiples of 8.
pub const ALIGN: u64 = 8;

/// The header of versions 1 and 2.
const HEADER_V1: u64 = 32;
/// The header of version 3 (adds `inflated_size`).
const HEADER_V3: u64 = 40;
/// One entry (every version).
const ENTRY_SIZE: u64 = 40;
/// A version-1 string entry: key offset, value offset.
const STRING_ENTRY_V1: u64 = 16;
/// A version-2/3 string entry: key offset, value offset, value size.
const STRING_ENTRY_V2: u64 = 24;

/// A format version of offload binaries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Version {
    /// Version 1: what LLVM 19 writes and the only one it reads.
    V1,
    /// Version 2 (LLVM 22+): several entries per binary, sized string values.
    V2,
    /// Version 3: version 2 with a 40-byte header and optional compression.
    V3,
}

impl Version {
    /// The version with number `v`, if known.
    pub fn from_raw(v: u32) -> Option<Version> {
        match v {
            1 => Some(Version::V1),
            2 => Some(Version::V2),
            3 => Some(Version::V3),
            _ => None,
        }
    }

    /// The version number.
    pub fn to_raw(self) -> u32 {
        match self {
            Version::V1 => 1,
            Version::V2 => 2,
            Version::V3 => 3,
        }
    }

    /// The size of this version's header.
    pub(crate) fn header_size(self) -> u64 {
        match self {
            Version::V1 | Version::V2 => HEADER_V1,
            Version::V3 => HEADER_V3,
        }
    }
}

/// One key/value string of an entry.
pub(crate) type StringPair<'d> = (Cow<'d, [u8]>, Cow<'d, [u8]>);

/// One device image and its metadata, read from an offload binary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry<'d> {
    /// What the image holds.
    pub image_kind: ImageKind,
    /// Which programming model produced it (decoded with the binary's version: LLVM 19 numbers
    /// them 0–3, version 2 and later use bit flags).
    pub offload_kind: OffloadKind,
    /// The entry's flags (0 in LLVM 19).
    pub flags: u32,
    /// The key/value strings, in file order (`triple`, `arch`, …).
    pub strings: Vec<StringPair<'d>>,
    /// The image bytes.
    pub image: Cow<'d, [u8]>,
    /// The absolute offset of the image in the input (for an image inside a compressed binary,
    /// the offset of the compressed data).
    pub image_offset: u64,
}

impl Entry<'_> {
    /// The value of `key` (the last one if the key repeats, as LLVM's map keeps it).
    pub fn string(&self, key: &str) -> Option<&[u8]> {
        self.strings
            .iter()
            .rev()
            .find(|(k, _)| k.as_ref() == key.as_bytes())
            .map(|(_, v)| v.as_ref())
    }

    /// The `triple` string, lossily decoded; empty if absent.
    pub fn triple(&self) -> Cow<'_, str> {
        String::from_utf8_lossy(self.string("triple").unwrap_or_default())
    }

    /// The `arch` string (target ID), lossily decoded; empty if absent.
    pub fn arch(&self) -> Cow<'_, str> {
        String::from_utf8_lossy(self.string("arch").unwrap_or_default())
    }

    /// Everything but the image, as the writers take it.
    pub(crate) fn spec(&self) -> ImageSpec<'_> {
        ImageSpec {
            image_kind: self.image_kind,
            offload_kind: self.offload_kind,
            flags: self.flags,
            strings: self
                .strings
                .iter()
                .map(|(k, v)| (k.as_ref(), v.as_ref()))
                .collect(),
        }
    }

    /// The entry as the writers take it (metadata and image).
    pub fn as_image(&self) -> Image<'_> {
        Image {
            spec: self.spec(),
            data: &self.image,
        }
    }

    /// A copy that owns its data.
    pub(crate) fn into_owned(self) -> Entry<'static> {
        Entry {
            image_kind: self.image_kind,
            offload_kind: self.offload_kind,
            flags: self.flags,
            strings: self
                .strings
                .into_iter()
                .map(|(k, v)| (Cow::Owned(k.into_owned()), Cow::Owned(v.into_owned())))
                .collect(),
            image: Cow::Owned(self.image.into_owned()),
            image_offset: self.image_offset,
        }
    }
}

/// How a version-3 binary was compressed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Compressed {
    /// The method (zstd when the data starts with the zstd magic, zlib otherwise, as LLVM
    /// decides).
    pub format: CompressionFormat,
    /// The compressed bytes after the header.
    pub compressed_size: u64,
    /// The size of the whole binary once decompressed, header included (`inflated_size`).
    pub inflated_size: u64,
}

/// One offload binary: a header and its entries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Binary<'d> {
    /// The absolute offset of the magic.
    pub offset: u64,
    /// The format version (1 for LLVM 19).
    pub version: u32,
    /// The `size` field: the binary's size (for a compressed binary, header plus compressed
    /// data, without the padding that follows).
    pub size: u64,
    /// Set when the binary is compressed (version 3 only).
    pub compression: Option<Compressed>,
    /// The images (exactly one in version 1).
    pub entries: Vec<Entry<'d>>,
}

/// Whether `data` starts with the offload binary magic.
pub fn has_magic(data: &[u8]) -> bool {
    data.starts_with(&MAGIC)
}

/// Reads every offload binary in `data` (several may be concatenated, as in a
/// `.llvm.offloading` section). `base` is the absolute offset of `data[0]`.
///
/// The iterator stops for good after the first error.
pub fn parse_all(data: &[u8], base: u64) -> BinaryIter<'_> {
    BinaryIter {
        data,
        pos: 0,
        base,
        done: false,
    }
}

/// The iterator of [`parse_all`].
#[derive(Debug, Clone)]
pub struct BinaryIter<'d> {
    data: &'d [u8],
    pos: usize,
    base: u64,
    done: bool,
}

impl<'d> Iterator for BinaryIter<'d> {
    type Item = Result<Binary<'d>>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done || self.pos >= self.data.len() {
            return None;
        }
        let rest = self.data.get(self.pos..).unwrap_or_default();
        let offset = self.base + self.pos as u64;
        match parse_one(rest, offset) {
            Ok(b) => {
                // `size` was checked to be non-zero and within `rest`.
                let end = self.pos as u64 + b.size;
                let next = if b.version == 1 {
                    // LLVM 19 steps by `size` exactly.
                    Some(end)
                } else {
                    // Newer LLVM rounds up to the alignment (a compressed binary's size is not a
                    // multiple of 8).
                    align_up(end, ALIGN)
                };
                match next.and_then(|n| usize::try_from(n).ok()) {
                    Some(n) => self.pos = n,
                    None => self.done = true,
                }
                Some(Ok(b))
            }
            Err(e) => {
                self.done = true;
                Some(Err(e))
            }
        }
    }
}

/// Reads the one offload binary at the start of `data`; its `size` bounds what it may use.
pub fn parse_one(data: &[u8], base: u64) -> Result<Binary<'_>> {
    let mut r = Reader::new(data, base);
    let magic: [u8; 4] = r.array("offload binary header")?;
    if magic != MAGIC {
        return Err(Error::BadMagic {
            what: "offload binary",
            offset: base,
        });
    }
    let raw_version = r.u32_le("offload binary header")?;
    let Some(version) = Version::from_raw(raw_version) else {
        return Err(Error::UnsupportedVersion {
            what: "offload binary",
            offset: base,
            version: raw_version.into(),
            known: "1, 2, 3",
        });
    };
    let size = r.u64_le("offload binary header")?;
    // LLVM 19 needs room for the header and the one entry; newer LLVM for the 40-byte header.
    let min = match version {
        Version::V1 => HEADER_V1 + ENTRY_SIZE,
        Version::V2 | Version::V3 => HEADER_V3,
    };
    if size < min || size > data.len() as u64 {
        return Err(Error::Invalid {
            what: "offload binary size",
            offset: base + 8,
            reason: format!(
                "size {size} is outside the {} bytes available (a version {raw_version} binary \
                 needs at least {min})",
                data.len()
            ),
        });
    }
    // From here on everything must lie within this binary's `size`.
    let bin = Reader::new(data.get(..size as usize).unwrap_or_default(), base);
    match version {
        Version::V1 => parse_v1(&bin, size),
        Version::V2 | Version::V3 => {
            let mut r = bin.clone();
            r.seek(24, "offload binary header")?;
            let _count = r.u64_le("offload binary header")?;
            let inflated = if version == Version::V3 {
                r.u64_le("offload binary header")?
            } else {
                0
            };
            if inflated != 0 {
                return compress::parse_compressed(&bin, inflated);
            }
            let entries = parse_entries_v2(&bin, version)?;
            Ok(Binary {
                offset: base,
                version: raw_version,
                size,
                compression: None,
                entries,
            })
        }
    }
}

fn parse_v1<'d>(bin: &Reader<'d>, size: u64) -> Result<Binary<'d>> {
    let mut r = bin.clone();
    r.seek(16, "offload binary header")?;
    let entry_offset = r.u64_le("offload binary header")?;
    let entry_size = r.u64_le("offload binary header")?;
    // LLVM 19 checks `entry_size <= size - 32` and otherwise ignores the field.
    if entry_size > size - HEADER_V1 {
        return Err(Error::Invalid {
            what: "offload binary entry size",
            offset: bin.base() + 24,
            reason: format!("entry size {entry_size} does not fit in the binary of {size} bytes"),
        });
    }
    let mut er = bin.sub(entry_offset, ENTRY_SIZE, "offload binary entry")?;
    let entry = parse_entry(bin, &mut er, Version::V1)?;
    Ok(Binary {
        offset: bin.base(),
        version: 1,
        size,
        compression: None,
        entries: vec![entry],
    })
}

/// The entries of an uncompressed version-2/3 binary.
fn parse_entries_v2<'d>(bin: &Reader<'d>, version: Version) -> Result<Vec<Entry<'d>>> {
    let mut r = bin.clone();
    r.seek(16, "offload binary header")?;
    let entries_offset = r.u64_le("offload binary header")?;
    let count_at = r.offset();
    let count = r.u64_le("offload binary header")?;
    if count > limits::MAX_BINARY_ENTRIES {
        return Err(Error::limit(
            limits::Limit::BinaryEntries,
            "offload binary entry count",
            count_at,
            count,
        ));
    }
    // The table must lie within the binary before anything is allocated for it.
    let table = bin.sub(entries_offset, count * ENTRY_SIZE, "offload binary entries")?;
    let mut out = Vec::with_capacity(count as usize);
    for i in 0..count {
        let mut er = table.sub(i * ENTRY_SIZE, ENTRY_SIZE, "offload binary entry")?;
        out.push(parse_entry(bin, &mut er, version)?);
    }
    Ok(out)
}

fn parse_entry<'d>(bin: &Reader<'d>, er: &mut Reader<'d>, version: Version) -> Result<Entry<'d>> {
    let image_kind = ImageKind::from_raw(er.u16_le("offload binary entry")?);
    let offload_kind = OffloadKind::from_raw(version.to_raw(), er.u16_le("offload binary entry")?);
    let flags = er.u32_le("offload binary entry")?;
    let string_offset = er.u64_le("offload binary entry")?;
    let num_strings_at = er.offset();
    let num_strings = er.u64_le("offload binary entry")?;
    let image_offset = er.u64_le("offload binary entry")?;
    let image_size = er.u64_le("offload binary entry")?;
    let entry_len = match version {
        Version::V1 => STRING_ENTRY_V1,
        Version::V2 | Version::V3 => STRING_ENTRY_V2,
    };
    if num_strings > limits::MAX_STRINGS {
        return Err(Error::limit(
            limits::Limit::Strings,
            "string count",
            num_strings_at,
            num_strings,
        ));
    }
    // The string entries must lie within the binary before anything is allocated for them.
    let mut sr = bin.sub(
        string_offset,
        num_strings * entry_len,
        "offload binary string entries",
    )?;
    let mut strings = Vec::with_capacity(num_strings as usize);
    for _ in 0..num_strings {
        let key = sr.u64_le("offload binary string entry")?;
        let value = sr.u64_le("offload binary string entry")?;
        let k = c_string(bin, key, "offload binary string key")?;
        let v = match version {
            Version::V1 => c_string(bin, value, "offload binary string value")?,
            Version::V2 | Version::V3 => {
                let len = sr.u64_le("offload binary string entry")?;
                bin.sub(value, len, "offload binary string value")?.data()
            }
        };
        strings.push((Cow::Borrowed(k), Cow::Borrowed(v)));
    }
    let image = bin.sub(image_offset, image_size, "offload binary image")?;
    Ok(Entry {
        image_kind,
        offload_kind,
        flags,
        strings,
        image: Cow::Borrowed(image.data()),
        image_offset: image.base(),
    })
}

/// A NUL-terminated string at `pos` of the binary. LLVM reads these from a copy of the binary
/// that its `MemoryBuffer` NUL-terminates, so a string that runs into the binary's end ends
/// there.
fn c_string<'d>(bin: &Reader<'d>, pos: u64, what: &'static str) -> Result<&'d [u8]> {
    let data = bin.data();
    let start = usize::try_from(pos)
        .ok()
        .filter(|&p| p <= data.len())
        .ok_or(Error::Truncated {
            what,
            offset: bin.base(),
            needed: pos.saturating_add(1),
            left: data.len() as u64,
        })?;
    let tail = data.get(start..).unwrap_or_default();
    let len = tail.iter().position(|&b| b == 0).unwrap_or(tail.len());
    Ok(tail.get(..len).unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;
    use offkit_llvm::LlvmVersion;

    /// An offload binary as LLVM 19's `clang-offload-packager` writes it (its real output).
    #[test]
    fn spec_worked_example() {
        let spec = ImageSpec {
            image_kind: ImageKind::None,
            offload_kind: OffloadKind::OpenMp,
            flags: 0,
            strings: vec![(b"arch", b""), (b"triple", b"x86_64-pc-linux-gnu")],
        };
        let out = write_v1(&spec, b"ABCDEFGHIJ", LlvmVersion::V19).unwrap();
        assert_eq!(out.len(), 160);
        assert_eq!(&out[0x68..0x89], b"\0x86_64-pc-linux-gnu\0arch\0triple\0");
        assert_eq!(&out[0x90..0x9a], b"ABCDEFGHIJ");
        assert_eq!(
            &out[0x40..0x70],
            &[
                0x0a, 0, 0, 0, 0, 0, 0, 0, 0x7d, 0, 0, 0, 0, 0, 0, 0, 0x68, 0, 0, 0, 0, 0, 0, 0,
                0x82, 0, 0, 0, 0, 0, 0, 0, 0x69, 0, 0, 0, 0, 0, 0, 0, 0, b'x', b'8', b'6', b'_',
                b'6', b'4', b'-'
            ][..]
        );
        let bins: Vec<_> = parse_all(&out, 0).collect::<Result<_>>().unwrap();
        assert_eq!(bins.len(), 1);
        let e = &bins[0].entries[0];
        assert_eq!(e.triple(), "x86_64-pc-linux-gnu");
        assert_eq!(e.arch(), "");
        assert_eq!(e.image.as_ref(), b"ABCDEFGHIJ");
        assert_eq!(e.image_offset, 0x90);
        assert_eq!(e.offload_kind, OffloadKind::OpenMp);
    }

    #[test]
    fn concatenated_and_truncated() {
        let spec = ImageSpec {
            image_kind: ImageKind::Object,
            offload_kind: OffloadKind::Hip,
            flags: 0,
            strings: vec![(b"triple", b"amdgcn-amd-amdhsa"), (b"arch", b"gfx90a")],
        };
        let mut two = write_v1(&spec, b"\x7fELF", LlvmVersion::V19).unwrap();
        let first = two.len() as u64;
        two.extend(write_v1(&spec, b"", LlvmVersion::V19).unwrap());
        let bins: Vec<_> = parse_all(&two, 0x1000).collect::<Result<_>>().unwrap();
        assert_eq!(bins.len(), 2);
        assert_eq!(bins[1].offset, 0x1000 + first);
        assert_eq!(bins[1].entries[0].arch(), "gfx90a");
        for cut in 0..two.len() {
            // Every truncation either parses a prefix or fails cleanly.
            let _ = parse_all(&two[..cut], 0).collect::<Vec<_>>();
        }
        let mut bad = two.clone();
        bad[4] = 9;
        match parse_all(&bad, 0x40).next() {
            Some(Err(e @ Error::UnsupportedVersion { version: 9, .. })) => assert_eq!(
                e.to_string(),
                "offload binary at offset 0x40 has version 9, which offkit does not know \
                 (known: 1, 2, 3)"
            ),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn v1_ignores_a_small_entry_size_like_llvm_19() {
        let spec = ImageSpec {
            image_kind: ImageKind::Object,
            offload_kind: OffloadKind::OpenMp,
            flags: 0,
            strings: vec![(b"triple", b"t")],
        };
        let mut b = write_v1(&spec, b"img", LlvmVersion::V19).unwrap();
        b[24] = 0;
        assert_eq!(parse_one(&b, 0).unwrap().entries[0].image.as_ref(), b"img");
        let len = b.len() as u64;
        b[24..32].copy_from_slice(&len.to_le_bytes());
        assert!(parse_one(&b, 0).is_err());
    }
}
