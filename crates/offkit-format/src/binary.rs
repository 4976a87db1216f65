//! Offload binaries: the `0x10FF10AD` container of the `.llvm.offloading` section.
//!
//! LLVM 19 writes version 1: one image per binary, a 32-byte header, a 40-byte entry, string
//! entries, an ELF-style string table and the 8-aligned image. Several binaries are concatenated
//! in one section; each one's `size` is a multiple of 8.
//!
//! ```text
//! header (32) │ entry (40) │ n × {key_off, value_off} │ strtab │ pad8 │ image │ pad8
//! ```

mod strtab;

use std::borrow::Cow;

use crate::error::{Error, Result};
use crate::kind::{ImageKind, OffloadKind};
use crate::limits;
use crate::reader::{align_up, Reader};

pub use strtab::StringTable;

/// The magic bytes every offload binary starts with.
pub const MAGIC: [u8; 4] = [0x10, 0xFF, 0x10, 0xAD];

/// Offload binaries are 8-aligned and their sizes are multiples of 8.
pub const ALIGN: u64 = 8;

const HEADER_V1: u64 = 32;
const ENTRY_SIZE: u64 = 40;
const STRING_ENTRY_V1: u64 = 16;

/// One key/value string of an entry.
pub type StringPair<'d> = (Cow<'d, [u8]>, Cow<'d, [u8]>);

/// One device image and its metadata, read from an offload binary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry<'d> {
    /// What the image holds.
    pub image_kind: ImageKind,
    /// Which programming model produced it.
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

    /// A copy that owns its data.
    pub fn into_owned(self) -> Entry<'static> {
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

/// One offload binary: a header and its entries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Binary<'d> {
    /// The absolute offset of the magic.
    pub offset: u64,
    /// The format version (1 for LLVM 19).
    pub version: u32,
    /// The `size` field: the binary's total size including padding.
    pub size: u64,
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
                // `size` was checked to be within `rest` and non-zero.
                self.pos += b.size as usize;
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
    let version = r.u32_le("offload binary header")?;
    let size = r.u64_le("offload binary header")?;
    match version {
        1 => {}
        v => {
            return Err(Error::UnsupportedVersion {
                what: "offload binary",
                offset: base,
                version: v.into(),
                known: "1",
            })
        }
    }
    if size < HEADER_V1 + ENTRY_SIZE || size > data.len() as u64 {
        return Err(Error::Invalid {
            what: "offload binary size",
            offset: base + 8,
            reason: format!(
                "size {size} is outside the {} bytes available (the header and entry need {})",
                data.len(),
                HEADER_V1 + ENTRY_SIZE
            ),
        });
    }
    // From here on everything must lie within this binary's `size`.
    let bin = Reader::new(data.get(..size as usize).unwrap_or_default(), base);
    let mut r = bin.clone();
    r.seek(16, "offload binary header")?;
    let entry_offset = r.u64_le("offload binary header")?;
    let entry_size = r.u64_le("offload binary header")?;
    if entry_size < ENTRY_SIZE {
        return Err(Error::Invalid {
            what: "offload binary entry size",
            offset: base + 24,
            reason: format!("entry size {entry_size} is smaller than the {ENTRY_SIZE}-byte entry"),
        });
    }
    let mut er = bin.sub(entry_offset, ENTRY_SIZE, "offload binary entry")?;
    let entry = parse_entry_v1(&bin, &mut er, version)?;
    Ok(Binary {
        offset: base,
        version,
        size,
        entries: vec![entry],
    })
}

fn parse_entry_v1<'d>(bin: &Reader<'d>, er: &mut Reader<'d>, version: u32) -> Result<Entry<'d>> {
    let image_kind = ImageKind::from_raw(er.u16_le("offload binary entry")?);
    let offload_kind = OffloadKind::from_raw(version, er.u16_le("offload binary entry")?);
    let flags = er.u32_le("offload binary entry")?;
    let string_offset = er.u64_le("offload binary entry")?;
    let num_strings_at = er.offset();
    let num_strings = er.u64_le("offload binary entry")?;
    let image_offset = er.u64_le("offload binary entry")?;
    let image_size = er.u64_le("offload binary entry")?;
    if num_strings > limits::MAX_STRINGS {
        return Err(Error::LimitExceeded {
            what: "string count",
            offset: num_strings_at,
            value: num_strings,
            limit: limits::MAX_STRINGS,
            name: "MAX_STRINGS",
        });
    }
    let table_len = num_strings * STRING_ENTRY_V1;
    let mut sr = bin.sub(string_offset, table_len, "offload binary string entries")?;
    let mut strings = Vec::with_capacity(num_strings as usize);
    for _ in 0..num_strings {
        let key = sr.u64_le("offload binary string entry")?;
        let value = sr.u64_le("offload binary string entry")?;
        let k = bin.cstr_at(key, "offload binary string key")?;
        let v = bin.cstr_at(value, "offload binary string value")?;
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

/// What to write around one image: everything but the image bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImageSpec<'a> {
    /// The image kind.
    pub image_kind: ImageKind,
    /// The offload kind.
    pub offload_kind: OffloadKind,
    /// The flags (0 for LLVM 19).
    pub flags: u32,
    /// The strings, in the order they are written (LLVM 19's packager uses its `DenseMap`
    /// order, the linker wrapper `triple` then `arch`).
    pub strings: Vec<(&'a [u8], &'a [u8])>,
}

/// The layout of a version-1 binary: the bytes before the image, and the sizes after it.
/// Writing `head`, then the image, then `tail_padding()` zero bytes gives the binary; this lets a
/// caller stream a large image instead of holding it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    /// Header, entry, string entries, string table and padding: everything before the image.
    pub head: Vec<u8>,
    /// The image size.
    pub image_size: u64,
    /// The binary's total size.
    pub size: u64,
}

impl Layout {
    /// Where the image starts, relative to the binary.
    pub fn image_offset(&self) -> u64 {
        self.head.len() as u64
    }

    /// How many zero bytes follow the image.
    pub fn tail_padding(&self) -> u64 {
        self.size - self.image_offset() - self.image_size
    }
}

/// Lays out a version-1 binary (LLVM 19's `OffloadBinary::write`) for an image of `image_size`
/// bytes.
pub fn layout_v1(spec: &ImageSpec<'_>, image_size: u64) -> Result<Layout> {
    let offload_kind = spec
        .offload_kind
        .to_raw(1)
        .ok_or_else(|| Error::Unrepresentable {
            what: "offload binary version 1",
            reason: format!(
                "offload kind {} did not exist in version 1",
                spec.offload_kind
            ),
        })?;
    let table = StringTable::build(spec.strings.iter().flat_map(|(k, v)| [*k, *v]));
    let n = spec.strings.len() as u64;
    let strtab_off = HEADER_V1 + ENTRY_SIZE + STRING_ENTRY_V1 * n;
    let too_big = || Error::Unrepresentable {
        what: "offload binary",
        reason: format!("an image of {image_size} bytes does not fit in 64-bit offsets"),
    };
    let image_offset =
        align_up(strtab_off + table.bytes().len() as u64, ALIGN).ok_or_else(too_big)?;
    let size = image_offset
        .checked_add(image_size)
        .and_then(|e| align_up(e, ALIGN))
        .ok_or_else(too_big)?;
    let mut head = Vec::with_capacity(image_offset as usize);
    head.extend_from_slice(&MAGIC);
    head.extend_from_slice(&1u32.to_le_bytes());
    head.extend_from_slice(&size.to_le_bytes());
    head.extend_from_slice(&HEADER_V1.to_le_bytes());
    head.extend_from_slice(&ENTRY_SIZE.to_le_bytes());
    head.extend_from_slice(&spec.image_kind.to_raw().to_le_bytes());
    head.extend_from_slice(&offload_kind.to_le_bytes());
    head.extend_from_slice(&spec.flags.to_le_bytes());
    head.extend_from_slice(&(HEADER_V1 + ENTRY_SIZE).to_le_bytes());
    head.extend_from_slice(&n.to_le_bytes());
    head.extend_from_slice(&image_offset.to_le_bytes());
    head.extend_from_slice(&image_size.to_le_bytes());
    for (k, v) in &spec.strings {
        // Both were given to the table builder, so both have offsets.
        let ko = table.offset(k).unwrap_or_default();
        let vo = table.offset(v).unwrap_or_default();
        head.extend_from_slice(&(strtab_off + ko).to_le_bytes());
        head.extend_from_slice(&(strtab_off + vo).to_le_bytes());
    }
    head.extend_from_slice(table.bytes());
    head.resize(image_offset as usize, 0);
    Ok(Layout {
        head,
        image_size,
        size,
    })
}

/// Writes a complete version-1 binary around `image`.
pub fn write_v1(spec: &ImageSpec<'_>, image: &[u8]) -> Result<Vec<u8>> {
    let layout = layout_v1(spec, image.len() as u64)?;
    let mut out = layout.head.clone();
    out.reserve_exact((layout.size - layout.image_offset()) as usize);
    out.extend_from_slice(image);
    out.resize(layout.size as usize, 0);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The worked example of linking.md §1.9 (real packager output).
    #[test]
    fn spec_worked_example() {
        let spec = ImageSpec {
            image_kind: ImageKind::None,
            offload_kind: OffloadKind::OpenMp,
            flags: 0,
            strings: vec![(b"arch", b""), (b"triple", b"x86_64-pc-linux-gnu")],
        };
        let out = write_v1(&spec, b"ABCDEFGHIJ").unwrap();
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
        let mut two = write_v1(&spec, b"\x7fELF").unwrap();
        let first = two.len() as u64;
        two.extend(write_v1(&spec, b"").unwrap());
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
        assert!(matches!(
            parse_all(&bad, 0).next(),
            Some(Err(Error::UnsupportedVersion { version: 9, .. }))
        ));
    }
}
