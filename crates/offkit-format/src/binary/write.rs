//! Writing offload binaries: version 1 byte for byte as LLVM 19's `OffloadBinary::write`, and
//! versions 2 and 3 as newer LLVM writes them.

use super::{
    compress, Compression, Version, ALIGN, ENTRY_SIZE, HEADER_V1, MAGIC, STRING_ENTRY_V1,
    STRING_ENTRY_V2,
};
use crate::error::{Error, Result};
use crate::kind::{ImageKind, OffloadKind};
use offkit_llvm::string_table::StringTable;
use offkit_llvm::LlvmVersion;
use offkit_read::align_up;

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

/// One image with its metadata, as [`write()`] takes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Image<'a> {
    /// Everything but the bytes.
    pub spec: ImageSpec<'a>,
    /// The image bytes.
    pub data: &'a [u8],
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
    pub(crate) fn image_offset(&self) -> u64 {
        self.head.len() as u64
    }

    /// How many zero bytes follow the image.
    pub fn tail_padding(&self) -> u64 {
        self.size - self.image_offset() - self.image_size
    }
}

fn too_big() -> Error {
    Error::Unrepresentable {
        what: "offload binary",
        reason: "its size does not fit in 64-bit offsets".into(),
    }
}

/// Keys are read back up to their NUL in every version, values too in version 1.
fn check_strings(spec: &ImageSpec<'_>, version: Version) -> Result<()> {
    for (k, v) in &spec.strings {
        if k.contains(&0) {
            return Err(Error::Unrepresentable {
                what: "offload binary string",
                reason: format!("key {:?} contains a NUL byte", String::from_utf8_lossy(k)),
            });
        }
        if version == Version::V1 && v.contains(&0) {
            return Err(Error::Unrepresentable {
                what: "offload binary version 1",
                reason: format!(
                    "the value of {:?} contains a NUL byte (version 1 stores no value sizes)",
                    String::from_utf8_lossy(k)
                ),
            });
        }
    }
    Ok(())
}

fn offload_kind_v1(kind: OffloadKind, llvm: LlvmVersion) -> Result<u16> {
    kind.to_raw(llvm).ok_or_else(|| Error::Unrepresentable {
        what: "offload binary",
        reason: format!("LLVM {llvm} has no offload kind {kind}"),
    })
}

/// Lays out a version-1 binary as LLVM release `llvm`'s `OffloadBinary::write` does (19 and 22
/// differ only in how they number offload kinds) for an image of `image_size` bytes.
pub fn layout_v1(spec: &ImageSpec<'_>, image_size: u64, llvm: LlvmVersion) -> Result<Layout> {
    check_strings(spec, Version::V1)?;
    let offload_kind = offload_kind_v1(spec.offload_kind, llvm)?;
    let table = StringTable::build(spec.strings.iter().flat_map(|(k, v)| [*k, *v]));
    let n = spec.strings.len() as u64;
    let strtab_off = HEADER_V1 + ENTRY_SIZE + STRING_ENTRY_V1 * n;
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
    put_entry(
        &mut head,
        spec,
        offload_kind,
        HEADER_V1 + ENTRY_SIZE,
        image_offset,
        image_size,
    );
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

fn put_entry(
    out: &mut Vec<u8>,
    spec: &ImageSpec<'_>,
    offload_kind: u16,
    string_offset: u64,
    image_offset: u64,
    image_size: u64,
) {
    out.extend_from_slice(&spec.image_kind.to_raw().to_le_bytes());
    out.extend_from_slice(&offload_kind.to_le_bytes());
    out.extend_from_slice(&spec.flags.to_le_bytes());
    out.extend_from_slice(&string_offset.to_le_bytes());
    out.extend_from_slice(&(spec.strings.len() as u64).to_le_bytes());
    out.extend_from_slice(&image_offset.to_le_bytes());
    out.extend_from_slice(&image_size.to_le_bytes());
}

/// Writes a complete version-1 binary around `image`, as LLVM release `llvm` does.
pub fn write_v1(spec: &ImageSpec<'_>, image: &[u8], llvm: LlvmVersion) -> Result<Vec<u8>> {
    let layout = layout_v1(spec, image.len() as u64, llvm)?;
    let mut out = layout.head;
    out.reserve_exact((layout.size - out.len() as u64) as usize);
    out.extend_from_slice(image);
    out.resize(layout.size as usize, 0);
    Ok(out)
}

/// Writes `images` in format `version`:
///
/// * [`Version::V1`]: one binary per image, concatenated (what `clang-offload-packager` 19
///   writes for several `--image`s), offload kinds numbered as `llvm` does; no images give no
///   bytes;
/// * [`Version::V2`] and [`Version::V3`]: one binary holding every image, as newer LLVM's
///   `OffloadBinary::write` lays it out (at least one image); version 3 may be compressed.
///
/// Compression exists only in version 3; asking for it with another version is an error.
pub fn write(
    version: Version,
    images: &[Image<'_>],
    compression: Compression,
    llvm: LlvmVersion,
) -> Result<Vec<u8>> {
    if compression != Compression::None && version != Version::V3 {
        return Err(Error::Unrepresentable {
            what: "offload binary",
            reason: format!(
                "compression needs version 3, not version {}",
                version.to_raw()
            ),
        });
    }
    match version {
        Version::V1 => {
            let mut out = Vec::new();
            for img in images {
                out.extend(write_v1(&img.spec, img.data, llvm)?);
            }
            Ok(out)
        }
        Version::V2 | Version::V3 => {
            let plain = write_v2(version, images)?;
            match compression {
                Compression::None => Ok(plain),
                c => compress::compress_binary(&plain, c),
            }
        }
    }
}

/// The uncompressed multi-entry layout of versions 2 and 3.
fn write_v2(version: Version, images: &[Image<'_>]) -> Result<Vec<u8>> {
    if images.is_empty() {
        return Err(Error::Unrepresentable {
            what: "offload binary",
            reason: format!(
                "a version {} binary needs at least one image",
                version.to_raw()
            ),
        });
    }
    let mut kinds = Vec::with_capacity(images.len());
    for img in images {
        check_strings(&img.spec, version)?;
        kinds.push(img.spec.offload_kind.to_flags());
    }
    let header = version.header_size();
    let table = StringTable::build(
        images
            .iter()
            .flat_map(|i| i.spec.strings.iter().flat_map(|(k, v)| [*k, *v])),
    );
    let count = images.len() as u64;
    let total_strings: u64 = images.iter().map(|i| i.spec.strings.len() as u64).sum();
    let total_images = images
        .iter()
        .try_fold(0u64, |acc, i| acc.checked_add(i.data.len() as u64))
        .ok_or_else(too_big)?;
    let entries_size = ENTRY_SIZE * count;
    let strtab_off = header + entries_size + STRING_ENTRY_V2 * total_strings;
    let data_start =
        align_up(strtab_off + table.bytes().len() as u64, ALIGN).ok_or_else(too_big)?;
    let size = data_start
        .checked_add(total_images)
        .and_then(|e| align_up(e, ALIGN))
        .ok_or_else(too_big)?;
    let mut out = Vec::with_capacity(usize::try_from(size).map_err(|_| too_big())?);
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&version.to_raw().to_le_bytes());
    out.extend_from_slice(&size.to_le_bytes());
    out.extend_from_slice(&header.to_le_bytes());
    out.extend_from_slice(&count.to_le_bytes());
    if version == Version::V3 {
        // `inflated_size`: zero means uncompressed.
        out.extend_from_slice(&0u64.to_le_bytes());
    }
    let mut string_entry = header + entries_size;
    let mut image_offset = data_start;
    for (img, kind) in images.iter().zip(&kinds) {
        put_entry(
            &mut out,
            &img.spec,
            *kind,
            string_entry,
            image_offset,
            img.data.len() as u64,
        );
        string_entry += STRING_ENTRY_V2 * img.spec.strings.len() as u64;
        // Images follow each other with no padding between them.
        image_offset += img.data.len() as u64;
    }
    for img in images {
        for (k, v) in &img.spec.strings {
            let ko = table.offset(k).unwrap_or_default();
            let vo = table.offset(v).unwrap_or_default();
            out.extend_from_slice(&(strtab_off + ko).to_le_bytes());
            out.extend_from_slice(&(strtab_off + vo).to_le_bytes());
            out.extend_from_slice(&(v.len() as u64).to_le_bytes());
        }
    }
    out.extend_from_slice(table.bytes());
    out.resize(data_start as usize, 0);
    for img in images {
        out.extend_from_slice(img.data);
    }
    out.resize(size as usize, 0);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::super::parse_all;
    use super::*;

    fn img<'a>(kind: OffloadKind, strings: Vec<(&'a [u8], &'a [u8])>, data: &'a [u8]) -> Image<'a> {
        Image {
            spec: ImageSpec {
                image_kind: ImageKind::Object,
                offload_kind: kind,
                flags: 0,
                strings,
            },
            data,
        }
    }

    #[test]
    fn v2_layout() {
        let images = [
            img(
                OffloadKind::Hip,
                vec![(b"triple", b"amdgcn-amd-amdhsa"), (b"arch", b"gfx90a")],
                b"AAAAA",
            ),
            img(
                OffloadKind::Sycl,
                vec![(b"triple", b"spirv64"), (b"v", b"a\0b")],
                b"BBB",
            ),
        ];
        let out = write(Version::V2, &images, Compression::None, LlvmVersion::V19).unwrap();
        assert_eq!(&out[4..8], &2u32.to_le_bytes());
        assert_eq!(&out[16..24], &32u64.to_le_bytes());
        assert_eq!(&out[24..32], &2u64.to_le_bytes());
        assert_eq!(out.len() % 8, 0);
        // Entry 0: HIP is the bit flag 4 in version 2.
        assert_eq!(&out[32..36], &[1, 0, 4, 0]);
        // The images are adjacent.
        let first = u64::from_le_bytes(out[32 + 24..32 + 32].try_into().unwrap());
        let second = u64::from_le_bytes(out[72 + 24..72 + 32].try_into().unwrap());
        assert_eq!(second, first + 5);
        let bins: Vec<_> = parse_all(&out, 0).collect::<Result<_>>().unwrap();
        assert_eq!(bins.len(), 1);
        assert_eq!(bins[0].entries.len(), 2);
        assert_eq!(bins[0].entries[1].string("v"), Some(&b"a\0b"[..]));
        assert_eq!(bins[0].entries[1].offload_kind, OffloadKind::Sycl);
        assert_eq!(bins[0].entries[0].image.as_ref(), b"AAAAA");
    }

    #[test]
    fn refusals() {
        let nul_key = [img(OffloadKind::OpenMp, vec![(b"a\0", b"")], b"")];
        assert!(write(Version::V2, &nul_key, Compression::None, LlvmVersion::V19).is_err());
        let nul_value = [img(OffloadKind::OpenMp, vec![(b"a", b"\0")], b"")];
        assert!(write(Version::V1, &nul_value, Compression::None, LlvmVersion::V19).is_err());
        assert!(write(Version::V2, &nul_value, Compression::None, LlvmVersion::V19).is_ok());
        let sycl = [img(OffloadKind::Sycl, vec![], b"")];
        assert!(write(Version::V1, &sycl, Compression::None, LlvmVersion::V19).is_err());
        assert!(write(Version::V2, &[], Compression::None, LlvmVersion::V19).is_err());
        assert_eq!(
            write(Version::V1, &[], Compression::None, LlvmVersion::V19).unwrap(),
            b""
        );
        assert!(write(Version::V2, &sycl, Compression::zlib(), LlvmVersion::V19).is_err());
    }
}
