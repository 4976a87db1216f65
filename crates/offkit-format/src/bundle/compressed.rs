//! Compressed offload bundles (`CCOB`): a small header and one zstd or zlib stream holding a
//! whole bundle (binary or text).
//!
//! | version | layout after `"CCOB"` | header size |
//! |---|---|---|
//! | 1 | u16 version, u16 method, u32 uncompressed size, u64 hash | 20 |
//! | 2 (LLVM 19 writes) | u16 version, u16 method, u32 total size, u32 uncompressed size, u64 hash | 24 |
//! | 3 (LLVM 20+) | u16 version, u16 method, u64 total size, u64 uncompressed size, u64 hash | 32 |
//!
//! The hash is the first 8 bytes of the MD5 digest of the uncompressed bundle. LLVM 19 writes
//! version 2 with zstd at level 3 and long-distance matching; LLVM 22 the same at version 3
//! (`COMPRESSED_BUNDLE_FORMAT_VERSION=2` makes it write version 2): [`Options::written_by`].
//! Byte identity needs the same libzstd, which the `zstd` crate links from the system.
//!
//! A zstd stream is a sequence of frames, as LLVM 22's `ZSTD_decompress` reads it: regular
//! frames, whose outputs join, and skippable frames (magic `0x184D2A5?`, a 32-bit length, data),
//! which yield nothing, in any order ([`zstd_frames`]). Compressed bundles may follow one
//! another with zero padding between them, as in a `.hip_fatbin` section ([`blobs`]).

use md5::{Digest, Md5};
use zstd::zstd_safe;

use crate::error::{Error, Result};
use offkit_read::limits;
use offkit_read::Reader;

mod llvm;
pub mod stream;
mod write;
#[cfg(test)]
pub(crate) use llvm::decompress_llvm19;
pub use llvm::{decompress_llvm, decompress_llvm_object, LlvmDecompressed, LlvmHeader};
pub use write::{compress, compress_pieces, compress_stream, Compressed, Options};

/// The magic bytes of a compressed bundle.
pub const MAGIC: [u8; 4] = *b"CCOB";

/// The smallest buffer LLVM 19 considers compressed (a version-1 header).
pub(crate) const MIN_SIZE: usize = 20;

/// The compression method field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Method {
    /// zlib (`0`).
    Zlib,
    /// zstd (`1`).
    Zstd,
}

impl Method {
    /// The method's field value.
    pub fn to_raw(self) -> u16 {
        match self {
            Method::Zlib => 0,
            Method::Zstd => 1,
        }
    }

    /// The method for a field value.
    pub(crate) fn from_raw(v: u16) -> Option<Method> {
        match v {
            0 => Some(Method::Zlib),
            1 => Some(Method::Zstd),
            _ => None,
        }
    }

    /// `zlib` or `zstd`.
    pub fn name(self) -> &'static str {
        match self {
            Method::Zlib => "zlib",
            Method::Zstd => "zstd",
        }
    }
}

/// A compressed bundle header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    /// The absolute offset of the magic.
    pub offset: u64,
    /// The format version (1, 2 or 3).
    pub version: u16,
    /// The compression method.
    pub method: Method,
    /// The total size field (versions 2 and 3): header plus compressed stream.
    pub total_size: Option<u64>,
    /// The uncompressed size field.
    pub uncompressed_size: u64,
    /// The stored hash (MD5 digest bytes 0..8, read as little-endian).
    pub hash: u64,
    /// The header's size (20, 24 or 32).
    pub header_size: u64,
}

/// The header size of a version.
pub(crate) fn header_size(version: u16) -> Option<u64> {
    match version {
        1 => Some(20),
        2 => Some(24),
        3 => Some(32),
        _ => None,
    }
}

/// Whether LLVM 19 treats `data` as compressed: the magic and at least 20 bytes.
pub(crate) fn is_compressed(data: &[u8]) -> bool {
    data.len() >= MIN_SIZE && data.starts_with(&MAGIC)
}

/// The truncated MD5 hash LLVM stores: the digest's first 8 bytes as a little-endian `u64`.
pub fn truncated_md5(data: &[u8]) -> u64 {
    truncated_md5_of(&[data])
}

/// [`truncated_md5`] of the concatenation of `pieces`, hashed piece by piece.
fn truncated_md5_of(pieces: &[&[u8]]) -> u64 {
    let mut md5 = Md5::new();
    for piece in pieces {
        md5.update(piece);
    }
    truncated(md5)
}

/// The first 8 bytes of `md5`'s digest as a little-endian `u64`.
fn truncated(md5: Md5) -> u64 {
    let d = md5.finalize();
    let mut b = [0u8; 8];
    b.copy_from_slice(&d[..8]);
    u64::from_le_bytes(b)
}

/// The magic of a regular zstd frame (little-endian).
pub(crate) const ZSTD_FRAME_MAGIC: u32 = 0xFD2F_B528;

/// Whether `magic` is a zstd skippable frame's (`0x184D2A50` to `0x184D2A5F`).
pub(crate) fn is_skippable_magic(magic: u32) -> bool {
    magic & 0xFFFF_FFF0 == 0x184D_2A50
}

/// One frame of a zstd stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ZstdFrame {
    /// Its offset in the stream.
    pub offset: usize,
    /// Its length.
    pub len: usize,
    /// A skippable frame (no output).
    pub skippable: bool,
    /// The content size a regular frame declares (0 for a skippable one).
    pub content_size: Option<u64>,
}

/// Where a zstd stream's frames are, from the start of `data`: every frame in turn, regular or
/// skippable, until the data ends or (when `to_end` is false) a byte that starts no frame. With
/// `to_end`, bytes after the last frame that start no frame are an error. The lengths come
/// from the frames' headers and block headers; nothing is decompressed. Errors are zstd's
/// names, for the caller to place.
pub fn zstd_frames(data: &[u8], to_end: bool) -> std::result::Result<Vec<ZstdFrame>, String> {
    let mut frames = Vec::new();
    let mut pos = 0usize;
    while pos < data.len() {
        let rest = data.get(pos..).unwrap_or_default();
        let magic = rest
            .get(..4)
            .and_then(|m| m.try_into().ok())
            .map(u32::from_le_bytes);
        let known = magic.is_some_and(|m| m == ZSTD_FRAME_MAGIC || is_skippable_magic(m));
        if !known {
            if to_end || frames.is_empty() {
                return Err(if frames.is_empty() {
                    "not a zstd frame".into()
                } else {
                    format!("{} bytes after the zstd frames start no frame", rest.len())
                });
            }
            break;
        }
        if frames.len() >= limits::MAX_ROWS {
            return Err(format!(
                "more than {} zstd frames (MAX_ROWS)",
                limits::MAX_ROWS
            ));
        }
        let len = zstd_safe::find_frame_compressed_size(rest)
            .map_err(|c| zstd_safe::get_error_name(c).to_owned())?;
        let skippable = magic.is_some_and(is_skippable_magic);
        let content_size = if skippable {
            Some(0)
        } else {
            zstd_safe::get_frame_content_size(rest).ok().flatten()
        };
        frames.push(ZstdFrame {
            offset: pos,
            len,
            skippable,
            content_size,
        });
        pos += len.max(1);
    }
    if frames.is_empty() {
        return Err("not a zstd frame".into());
    }
    Ok(frames)
}

/// Reads a header with offkit's strict rules (known version and method, a total size that
/// covers at least the header). `base` is the absolute offset of `data[0]`.
pub fn parse_header(data: &[u8], base: u64) -> Result<Header> {
    let mut r = Reader::new(data, base);
    let magic: [u8; 4] = r.array("compressed bundle header")?;
    if magic != MAGIC {
        return Err(Error::BadMagic {
            what: "compressed bundle",
            offset: base,
        });
    }
    let version = r.u16_le("compressed bundle header")?;
    let hsize = header_size(version).ok_or(Error::UnsupportedVersion {
        what: "compressed bundle",
        offset: base,
        version: version.into(),
        known: "1, 2, 3",
    })?;
    let method_at = r.offset();
    let raw_method = r.u16_le("compressed bundle header")?;
    let method = Method::from_raw(raw_method).ok_or_else(|| Error::Invalid {
        what: "compressed bundle method",
        offset: method_at,
        reason: format!("unknown compression method {raw_method} (0 is zlib, 1 is zstd)"),
    })?;
    let size_at = r.offset();
    let (total_size, uncompressed_size) = match version {
        1 => (None, u64::from(r.u32_le("compressed bundle header")?)),
        2 => (
            Some(u64::from(r.u32_le("compressed bundle header")?)),
            u64::from(r.u32_le("compressed bundle header")?),
        ),
        _ => (
            Some(r.u64_le("compressed bundle header")?),
            r.u64_le("compressed bundle header")?,
        ),
    };
    let hash = r.u64_le("compressed bundle header")?;
    if let Some(t) = total_size {
        if t < hsize {
            return Err(Error::Invalid {
                what: "compressed bundle total size",
                offset: size_at,
                reason: format!("total size {t} is smaller than the {hsize}-byte header"),
            });
        }
    }
    Ok(Header {
        offset: base,
        version,
        method,
        total_size,
        uncompressed_size,
        hash,
        header_size: hsize,
    })
}

/// One compressed bundle within a buffer: its header and its compressed stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Blob<'d> {
    /// The header.
    pub header: Header,
    /// The compressed stream.
    pub data: &'d [u8],
}

/// Splits `data` into its concatenated compressed bundles (strict): versions 2 and 3 end where
/// their total size says; a version-1 bundle (which has no total size) where its stream ends
/// (the stream's length). Zero bytes between bundles (and after the last) are padding, as in
/// a `.hip_fatbin` section; anything else must start the next bundle.
pub fn blobs(data: &[u8], base: u64) -> Result<Vec<Blob<'_>>> {
    let mut out = Vec::new();
    let mut pos = 0usize;
    while pos < data.len() {
        if !out.is_empty() {
            match data.get(pos..).and_then(|r| r.iter().position(|&b| b != 0)) {
                Some(skip) => pos += skip,
                None => break,
            }
        }
        let rest = data.get(pos..).unwrap_or_default();
        let at = base + pos as u64;
        let header = parse_header(rest, at)?;
        let len = match header.total_size {
            Some(t) => t,
            None => {
                let stream = rest.get(header.header_size as usize..).unwrap_or_default();
                header.header_size + stream::stream_len(&header, stream)?
            }
        };
        let end = usize::try_from(len)
            .ok()
            .filter(|&t| t <= rest.len())
            .ok_or(Error::Truncated {
                what: "compressed bundle",
                offset: at,
                needed: len,
                left: rest.len() as u64,
            })?;
        let stream = rest
            .get(header.header_size as usize..end)
            .unwrap_or_default();
        out.push(Blob {
            header,
            data: stream,
        });
        if out.len() > limits::MAX_ROWS {
            return Err(Error::limit(
                limits::Limit::Rows,
                "compressed bundle count",
                at,
                out.len() as u64,
            ));
        }
        pos += end.max(1);
    }
    Ok(out)
}

/// Decompresses one blob with offkit's strict rules: the uncompressed size must be within
/// [`limits::MAX_INFLATED_SIZE`] and `limit`, the stream must produce exactly that many bytes,
/// and the hash must match.
pub fn decompress_blob(blob: &Blob<'_>, limit: u64) -> Result<Vec<u8>> {
    let h = &blob.header;
    let what = "compressed bundle uncompressed size";
    if h.uncompressed_size > limits::MAX_INFLATED_SIZE {
        let offset = size_field(h);
        return Err(Error::limit(
            limits::Limit::InflatedSize,
            what,
            offset,
            h.uncompressed_size,
        ));
    }
    if h.uncompressed_size > limit {
        return Err(Error::OverBudget {
            what,
            offset: size_field(h),
            value: h.uncompressed_size,
            budget: limit,
        });
    }
    // The output grows with what the stream yields; the stream is stopped the moment it yields
    // more than the header says.
    // Growing may fail under a memory limit (a real stream of gigabytes): that is an error
    // naming the bundle, not an abort.
    let mut out: Vec<u8> = Vec::new();
    match stream::inflate_into::<usize>(blob, &mut |c: &[u8]| {
        out.try_reserve(c.len()).map_err(|_| out.len())?;
        out.extend_from_slice(c);
        Ok(())
    }) {
        Ok(()) => Ok(out),
        Err(stream::SinkOr::Format(e)) => Err(e),
        Err(stream::SinkOr::Sink(held)) => Err(Error::Decompress {
            what: "compressed bundle",
            offset: h.offset + h.header_size,
            reason: format!(
                "out of memory holding the decompressed bundle after {held} of the {} bytes \
                 the header gives",
                h.uncompressed_size
            ),
        }),
    }
}

/// The absolute offset of a header's uncompressed size field.
fn size_field(h: &Header) -> u64 {
    h.offset + if h.version == 1 { 8 } else { 12 }
}

/// The checks on a header's uncompressed size that cost nothing: within
/// [`limits::MAX_INFLATED_SIZE`], no more than the stream can inflate to, and for a zstd frame
/// that declares its size, that size. A lying header is caught here when it can be; otherwise
/// the stream is stopped where it departs from the header ([`stream::inflate_into`]).
pub fn check_claim(blob: &Blob<'_>) -> Result<()> {
    let h = &blob.header;
    let size_at = size_field(h);
    if h.uncompressed_size > limits::MAX_INFLATED_SIZE {
        return Err(Error::limit(
            limits::Limit::InflatedSize,
            "compressed bundle uncompressed size",
            size_at,
            h.uncompressed_size,
        ));
    }
    let stream_len = blob.data.len() as u64;
    let most = limits::max_inflated(h.method == Method::Zstd, stream_len);
    if h.uncompressed_size > most {
        return Err(Error::Invalid {
            what: "compressed bundle uncompressed size",
            offset: size_at,
            reason: format!(
                "{} bytes cannot come out of a {stream_len}-byte {} stream (at most {most})",
                h.uncompressed_size,
                h.method.name()
            ),
        });
    }
    if h.method == Method::Zstd {
        let at = h.offset + h.header_size;
        let frames = zstd_frames(blob.data, true).map_err(|reason| Error::Decompress {
            what: "compressed bundle",
            offset: at,
            reason,
        })?;
        // What the regular frames declare, when every one declares its size.
        let declared = frames
            .iter()
            .filter(|f| !f.skippable)
            .map(|f| f.content_size)
            .try_fold(0u64, |sum, c| Some(sum.saturating_add(c?)));
        if let Some(fcs) = declared.filter(|&d| d != h.uncompressed_size) {
            return Err(Error::Decompress {
                what: "compressed bundle",
                offset: at,
                reason: format!(
                    "the zstd frames hold {fcs} bytes, the header says {}",
                    h.uncompressed_size
                ),
            });
        }
    }
    Ok(())
}

/// An error unless `got` is the hash `h` stores.
fn check_hash(h: &Header, got: u64) -> Result<()> {
    if got == h.hash {
        return Ok(());
    }
    Err(Error::Invalid {
        what: "compressed bundle hash",
        offset: h.offset + h.header_size - 8,
        reason: format!(
            "stored hash {:#018x}, the uncompressed data hashes to {got:#018x}",
            h.hash
        ),
    })
}

/// Decompresses every concatenated compressed bundle in `data` (strict) and returns each
/// uncompressed bundle with the header it came from.
pub fn decompress_all(data: &[u8], base: u64, limit: u64) -> Result<Vec<(Header, Vec<u8>)>> {
    let mut out = Vec::new();
    let mut total = 0u64;
    for b in blobs(data, base)? {
        let room = limit.saturating_sub(total);
        let d = decompress_blob(&b, room)?;
        total += d.len() as u64;
        out.push((b.header, d));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use offkit_llvm::LlvmVersion;

    #[test]
    fn round_trips_every_version_and_method() {
        let data: Vec<u8> = (0..10_000u32)
            .flat_map(|i| (i % 251).to_le_bytes())
            .collect();
        for version in [1, 2, 3] {
            for method in [Method::Zstd, Method::Zlib] {
                let opts = Options {
                    version,
                    method,
                    level: if method == Method::Zstd { 3 } else { -1 },
                    ..Options::default()
                };
                let c = compress(&data, &opts).unwrap();
                let all = decompress_all(&c.bytes, 0x100, u64::MAX).unwrap();
                assert_eq!(all.len(), 1);
                assert_eq!(all[0].0.version, version);
                assert_eq!(all[0].1, data);
                if version < 3 {
                    let l = decompress_llvm19(&c.bytes).unwrap();
                    assert_eq!(l.data.as_ref(), &data[..]);
                }
            }
        }
    }

    #[test]
    fn concatenated_and_hostile() {
        let a = compress(b"first bundle", &Options::default())
            .unwrap()
            .bytes;
        let b = compress(
            b"second",
            &Options {
                version: 3,
                ..Options::default()
            },
        )
        .unwrap()
        .bytes;
        let mut both = a.clone();
        both.extend_from_slice(&b);
        let all = decompress_all(&both, 0, u64::MAX).unwrap();
        assert_eq!(all[1].1, b"second");
        // LLVM 19 fails on two concatenated bundles.
        assert!(matches!(
            decompress_llvm19(&both),
            Err(Error::LlvmZstd {
                name: "Src size is incorrect"
            })
        ));
        // LLVM 19 reads version 3 as version 2.
        assert!(decompress_llvm19(&b).is_err());
        // Wrong hash.
        let mut h = a.clone();
        h[16] ^= 1;
        assert!(matches!(
            decompress_all(&h, 0, u64::MAX),
            Err(Error::Invalid { offset: 16, .. })
        ));
        assert!(decompress_llvm19(&h).is_ok());
        // A bomb: the header claims 16 GiB + 1.
        let mut bomb = a.clone();
        bomb[4..6].copy_from_slice(&3u16.to_le_bytes());
        assert!(decompress_all(&bomb, 0, u64::MAX).is_err());
        // A header claiming far more than its few stream bytes can inflate to is refused at the
        // size field, before anything is reserved (v2: the uncompressed size is at 12).
        let mut claim = a.clone();
        claim[12..16].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(matches!(
            decompress_all(&claim, 0, u64::MAX),
            Err(Error::Invalid { offset: 12, .. })
        ));
        let mut m = a.clone();
        m[6] = 7;
        assert!(matches!(
            decompress_llvm19(&m),
            Err(Error::LlvmUnknownMethod { method: 7 })
        ));
        assert!(matches!(
            decompress_llvm19(&a[..21]),
            Err(Error::LlvmHeaderTooShort { .. })
        ));
        for cut in 0..a.len() {
            let _ = decompress_all(&a[..cut], 0, u64::MAX);
            let _ = decompress_llvm19(&a[..cut]);
        }
    }

    /// A zstd skippable frame holding `data`.
    fn skippable(data: &[u8]) -> Vec<u8> {
        let mut f = 0x184D_2A53u32.to_le_bytes().to_vec();
        f.extend_from_slice(&(data.len() as u32).to_le_bytes());
        f.extend_from_slice(data);
        f
    }

    /// A compressed bundle of `version` around the zstd `stream` of `data`.
    fn ccob(version: u16, stream: &[u8], data: &[u8]) -> Vec<u8> {
        let hsize = header_size(version).unwrap();
        let total = hsize + stream.len() as u64;
        let mut out = MAGIC.to_vec();
        out.extend_from_slice(&version.to_le_bytes());
        out.extend_from_slice(&Method::Zstd.to_raw().to_le_bytes());
        match version {
            1 => out.extend_from_slice(&(data.len() as u32).to_le_bytes()),
            2 => {
                out.extend_from_slice(&(total as u32).to_le_bytes());
                out.extend_from_slice(&(data.len() as u32).to_le_bytes());
            }
            _ => {
                out.extend_from_slice(&total.to_le_bytes());
                out.extend_from_slice(&(data.len() as u64).to_le_bytes());
            }
        }
        out.extend_from_slice(&truncated_md5(data).to_le_bytes());
        out.extend_from_slice(stream);
        out
    }

    fn zstd_frame(data: &[u8]) -> Vec<u8> {
        zstd::bulk::compress(data, 3).unwrap()
    }

    #[test]
    fn skippable_frames_and_several_frames() {
        let (a, b) = (b"the first part, ".repeat(50), b"and the second".repeat(70));
        let both = [a.clone(), b.clone()].concat();
        let cases: [(Vec<u8>, &[u8]); 4] = [
            ([skippable(b"meta"), zstd_frame(&a)].concat(), &a),
            (
                [zstd_frame(&a), skippable(b""), zstd_frame(&b)].concat(),
                &both,
            ),
            ([zstd_frame(&a), skippable(&[9; 100])].concat(), &a),
            (
                [skippable(b"x"), skippable(b"y"), zstd_frame(&b)].concat(),
                &b,
            ),
        ];
        for (stream, data) in &cases {
            for version in [1, 2, 3] {
                let c = ccob(version, stream, data);
                let all = decompress_all(&c, 0x40, u64::MAX).unwrap();
                assert_eq!(all.len(), 1);
                assert_eq!(&all[0].1, data, "v{version}");
                let b = &blobs(&c, 0).unwrap()[0];
                assert_eq!(b.data.len(), stream.len());
                assert_eq!(stream::inflate_prefix(b, 10).unwrap(), &data[..10]);
                // LLVM reads them too (22 every version, 19 up to 2).
                let l = decompress_llvm(LlvmVersion::V22, &c).unwrap();
                assert_eq!(l.data.as_ref(), &data[..], "v{version}");
                assert_eq!(decompress_llvm19(&c).is_ok(), version < 3);
            }
        }
        // Bytes after the frames that start no frame: refused at the stream's offset.
        let c = ccob(2, &[zstd_frame(&a), vec![0; 3]].concat(), &a);
        assert!(matches!(
            decompress_all(&c, 0, u64::MAX),
            Err(Error::Decompress { offset: 24, .. })
        ));
        // Frames declaring other sizes than the header's.
        let c = ccob(3, &[zstd_frame(&a), zstd_frame(&a)].concat(), &a);
        assert!(decompress_all(&c, 0, u64::MAX).is_err());
        // No frame at all.
        assert!(decompress_all(&ccob(2, &skippable(b"only"), b""), 0, 0).is_ok());
        assert!(decompress_all(&ccob(2, b"nope", b""), 0, 0).is_err());
    }

    #[test]
    fn padded_concatenations() {
        let x = compress(b"first bundle", &Options::default())
            .unwrap()
            .bytes;
        let v3 = Options {
            version: 3,
            ..Options::default()
        };
        let y = compress(b"second", &v3).unwrap().bytes;
        let z = ccob(
            1,
            &[skippable(b"m"), zstd_frame(b"third")].concat(),
            b"third",
        );
        let mut section = Vec::new();
        let mut starts = Vec::new();
        for part in [&x, &y, &z] {
            starts.push(section.len() as u64);
            section.extend_from_slice(part);
            section.resize(section.len().div_ceil(4096) * 4096, 0);
        }
        let all = decompress_all(&section, 0x1000, u64::MAX).unwrap();
        let got: Vec<&[u8]> = all.iter().map(|(_, d)| d.as_slice()).collect();
        assert_eq!(got, [&b"first bundle"[..], b"second", b"third"]);
        let offsets: Vec<u64> = all.iter().map(|(h, _)| h.offset - 0x1000).collect();
        assert_eq!(offsets, starts);
        // Anything but zeros between them is an error at its offset.
        let mut bad = section.clone();
        bad[x.len() + 7] = 0x41;
        assert!(matches!(
            decompress_all(&bad, 0, u64::MAX),
            Err(Error::BadMagic { offset, .. }) if offset == x.len() as u64 + 7
        ));
    }

    #[test]
    fn llvm_22_header_rules() {
        let data = b"hello".repeat(20);
        let frame = zstd_frame(&data);
        let v3 = ccob(3, &frame, &data);
        assert_eq!(
            decompress_llvm(LlvmVersion::V22, &v3)
                .unwrap()
                .header
                .unwrap()
                .header_size,
            32
        );
        let too_small = |v, d: &[u8]| {
            matches!(
                decompress_llvm(v, d),
                Err(Error::LlvmHeaderTooShort { llvm }) if llvm == v
            )
        };
        assert!(too_small(LlvmVersion::V22, &v3[..31]));
        // 22 takes 8 bytes with the magic for compressed; 19 wants 20.
        assert!(too_small(LlvmVersion::V22, &v3[..8]));
        assert!(decompress_llvm19(&v3[..8]).unwrap().header.is_none());
        // Any other version is "too small" in 22 whatever the size; 19 reads it as version 2.
        let mut v4 = v3.clone();
        v4[4] = 4;
        v4.resize(1 << 16, 0);
        assert!(too_small(LlvmVersion::V22, &v4));
        let mut v0 = ccob(1, &frame, &data);
        v0[4] = 0;
        assert!(decompress_llvm(LlvmVersion::V22, &v0).is_err());
        assert_eq!(decompress_llvm19(&v0).unwrap().data.as_ref(), &data[..]);
    }

    #[test]
    fn llvm_object_layer_stops_at_the_total_size() {
        let data = b"inflated bundle ".repeat(8);
        let frame = zstd_frame(&data);
        for version in [2, 3] {
            // Padding after the stream (a padded `.hip_fatbin`): the bundler's reading fails in
            // the stream, the object layer's stops at the total size.
            let mut padded = ccob(version, &frame, &data);
            padded.resize(padded.len() + 100, 0);
            assert!(decompress_llvm(LlvmVersion::V22, &padded).is_err());
            let l = decompress_llvm_object(&padded).unwrap();
            assert_eq!(l.data.as_ref(), &data[..], "v{version}");
            // A total size below the header's: the rest of the buffer.
            let mut wrapped = ccob(version, &frame, &data);
            wrapped[8..12].copy_from_slice(&4u32.to_le_bytes());
            if version == 3 {
                wrapped[12..16].fill(0);
            }
            assert_eq!(
                decompress_llvm_object(&wrapped).unwrap().data.as_ref(),
                &data[..]
            );
        }
        // Version 1 has no total size: to the end.
        let mut v1 = ccob(1, &frame, &data);
        assert!(decompress_llvm_object(&v1).is_ok());
        v1.push(0);
        assert!(decompress_llvm_object(&v1).is_err());
        assert!(decompress_llvm_object(b"CCOB").unwrap().header.is_none());
    }
}
