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
//! version 2 with zstd at level 3 and long-distance matching; byte identity needs the same
//! libzstd, which the `zstd` crate links from the system.

use std::borrow::Cow;

use md5::{Digest, Md5};
use zstd::zstd_safe;

use crate::error::{Error, Result};
use offkit_llvm::limits;
use offkit_llvm::reader::Reader;

mod llvm;
pub mod stream;
mod write;
pub use llvm::{decompress_llvm, LlvmDecompressed, LlvmHeader, MIN_SIZE_LLVM22};
pub use write::{compress, compress_pieces, compress_stream, Compressed, Options};

/// The magic bytes of a compressed bundle.
pub const MAGIC: [u8; 4] = *b"CCOB";

/// The smallest buffer LLVM 19 considers compressed (a version-1 header).
pub const MIN_SIZE: usize = 20;

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
    pub fn from_raw(v: u16) -> Option<Method> {
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
pub fn header_size(version: u16) -> Option<u64> {
    match version {
        1 => Some(20),
        2 => Some(24),
        3 => Some(32),
        _ => None,
    }
}

/// Whether LLVM 19 treats `data` as compressed: the magic and at least 20 bytes.
pub fn is_compressed(data: &[u8]) -> bool {
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
/// their total size says; a version-1 bundle (which has no total size) runs to the end.
pub fn blobs(data: &[u8], base: u64) -> Result<Vec<Blob<'_>>> {
    let mut out = Vec::new();
    let mut pos = 0usize;
    while pos < data.len() {
        let rest = data.get(pos..).unwrap_or_default();
        let at = base + pos as u64;
        let header = parse_header(rest, at)?;
        let end =
            match header.total_size {
                Some(t) => usize::try_from(t).ok().filter(|&t| t <= rest.len()).ok_or(
                    Error::Truncated {
                        what: "compressed bundle",
                        offset: at,
                        needed: t,
                        left: rest.len() as u64,
                    },
                )?,
                None => rest.len(),
            };
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
        pos += end;
    }
    Ok(out)
}

/// Decompresses one blob with offkit's strict rules: the uncompressed size must be within
/// [`limits::MAX_INFLATED_SIZE`] and `limit`, the stream must produce exactly that many bytes,
/// and the hash must match.
pub fn decompress_blob(blob: &Blob<'_>, limit: u64) -> Result<Vec<u8>> {
    let h = &blob.header;
    let max = limit.min(limits::MAX_INFLATED_SIZE);
    if h.uncompressed_size > max {
        return Err(Error::LimitExceeded {
            what: "compressed bundle uncompressed size",
            offset: size_field(h),
            value: h.uncompressed_size,
            limit: max,
            name: limits::Limit::InflatedSize.name(),
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
        match zstd_safe::get_frame_content_size(blob.data) {
            Ok(Some(fcs)) if fcs != h.uncompressed_size => {
                return Err(Error::Decompress {
                    what: "compressed bundle",
                    offset: h.offset + h.header_size,
                    reason: format!(
                        "the zstd frame holds {fcs} bytes, the header says {}",
                        h.uncompressed_size
                    ),
                })
            }
            Ok(_) => {}
            Err(_) => {
                return Err(Error::Decompress {
                    what: "compressed bundle",
                    offset: h.offset + h.header_size,
                    reason: "not a zstd frame".into(),
                })
            }
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

/// What LLVM 19's `CompressedOffloadBundle::decompress` makes of a buffer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Llvm19Decompressed<'d> {
    /// The header LLVM 19 read (`None`: not compressed, the data is used as is).
    pub header: Option<Llvm19Header>,
    /// The data: the input itself, or what the stream decompressed to.
    pub data: Cow<'d, [u8]>,
}

/// A header as LLVM 19 reads it (any version of 2 or more is read with the version-2 layout).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Llvm19Header {
    /// The version field as stored.
    pub version: u16,
    /// The method.
    pub method: Method,
    /// The total size field (versions ≥ 2).
    pub total_size: Option<u32>,
    /// The uncompressed size field.
    pub uncompressed_size: u32,
    /// The stored hash.
    pub hash: u64,
    /// The header size LLVM 19 used (20 or 24).
    pub header_size: usize,
}

/// Decompresses `data` as LLVM 19 does. The error is [`Error::Llvm19HeaderTooSmall`],
/// [`Error::Llvm19UnknownMethod`] or [`Error::Llvm19Decompress`], whose messages are LLVM 19's
/// (without the `Failed to decompress input: ` prefix the callers add).
///
/// Rules: under 20 bytes or no `CCOB` → not compressed; version ≥ 2 uses the version-2 layout
/// (so version 3 fails in the stream); the stream runs to the end of the buffer; the sizes and
/// the hash are not checked; the uncompressed size field is the output capacity.
pub fn decompress_llvm19(data: &[u8]) -> Result<Llvm19Decompressed<'_>> {
    if !is_compressed(data) {
        return Ok(Llvm19Decompressed {
            header: None,
            data: Cow::Borrowed(data),
        });
    }
    // `is_compressed` guarantees 20 bytes: the version-1 header is readable.
    let mut r = Reader::new(data, 0);
    let field = "compressed bundle header";
    let (version, raw_method) = match (r.seek(4, field), r.u16_le(field), r.u16_le(field)) {
        (Ok(()), Ok(v), Ok(m)) => (v, m),
        _ => return Err(Error::Llvm19HeaderTooSmall),
    };
    let too_small = |_| Error::Llvm19HeaderTooSmall;
    let header = if version >= 2 {
        Llvm19Header {
            version,
            method: Method::Zstd,
            total_size: Some(r.u32_le(field).map_err(too_small)?),
            uncompressed_size: r.u32_le(field).map_err(too_small)?,
            hash: r.u64_le(field).map_err(too_small)?,
            header_size: 24,
        }
    } else {
        Llvm19Header {
            version,
            method: Method::Zstd,
            total_size: None,
            uncompressed_size: r.u32_le(field).map_err(too_small)?,
            hash: r.u64_le(field).map_err(too_small)?,
            header_size: 20,
        }
    };
    let method = Method::from_raw(raw_method).ok_or(Error::Llvm19UnknownMethod)?;
    let header = Llvm19Header { method, ..header };
    let out = inflate_as_llvm(method, r.rest(), header.uncompressed_size as usize)?;
    Ok(Llvm19Decompressed {
        header: Some(header),
        data: Cow::Owned(out),
    })
}

/// The stream of a compressed bundle decompressed as LLVM's `compression::decompress` does
/// it for the bundler (LLVM 19 and 22 alike): into a buffer of `cap` bytes, the uncompressed
/// size the header gives; less output is fine, more is an error, and so are bytes after the
/// stream (zstd; zlib ignores them).
pub(crate) fn inflate_as_llvm(method: Method, stream: &[u8], cap: usize) -> Result<Vec<u8>> {
    Ok(match method {
        Method::Zstd => {
            // LLVM reserves the header's size; where that fails (a header claiming 4 GiB
            // under a memory limit) LLVM aborts, offkit says so.
            let mut out: Vec<u8> = Vec::new();
            out.try_reserve_exact(cap)
                .map_err(|_| Error::Llvm19Decompress {
                    reason: format!(
                        "cannot reserve the {cap} bytes the header gives as the uncompressed size"
                    ),
                })?;
            let error = |c| Error::Llvm19Decompress {
                reason: zstd_safe::get_error_name(c).to_owned(),
            };
            if cap == 0 {
                // A zero-capacity Vec's pointer is dangling, and libzstd writes through it
                // (found by fuzzing): give it one byte, and refuse any output as zstd would
                // refuse it into no room at all.
                let mut one: Vec<u8> = Vec::with_capacity(1);
                let n = zstd_safe::decompress(&mut one, stream).map_err(error)?;
                if n > 0 {
                    return Err(Error::Llvm19Decompress {
                        reason: "Destination buffer is too small".into(),
                    });
                }
            } else {
                zstd_safe::decompress(&mut out, stream).map_err(error)?;
            }
            out
        }
        Method::Zlib => zlib_uncompress(stream, cap).map_err(|e| Error::Llvm19Decompress {
            reason: format!("zlib error: {e}"),
        })?,
    })
}

/// zlib's `uncompress()` with a capacity of `cap` bytes, returning zlib's error names.
fn zlib_uncompress(src: &[u8], cap: usize) -> std::result::Result<Vec<u8>, &'static str> {
    // `uncompress` uses a one-byte scratch buffer when the capacity is zero.
    let scratch = cap == 0;
    let cap_buf = cap.max(1);
    // The buffer grows with what the stream yields, up to the capacity `uncompress` is given:
    // the result is the same as with the whole buffer, without reserving what a header claims.
    let mut out: Vec<u8> = Vec::new();
    let mut d = flate2::Decompress::new(true);
    let mut err: Option<&'static str>;
    loop {
        let (i, o) = (d.total_in() as usize, d.total_out() as usize);
        if o == out.len() && out.len() < cap_buf {
            let grown = out.len().saturating_mul(2).max(64 << 10).min(cap_buf);
            // Fallible: a real bomb under a memory limit is an error, not an abort.
            if out.try_reserve_exact(grown - out.len()).is_err() {
                err = Some("Z_MEM_ERROR");
                break;
            }
            out.resize(grown, 0);
        }
        let res = d.decompress(
            src.get(i..).unwrap_or_default(),
            out.get_mut(o..).unwrap_or_default(),
            flate2::FlushDecompress::None,
        );
        match res {
            Ok(flate2::Status::StreamEnd) => {
                err = None;
                break;
            }
            Ok(flate2::Status::Ok) => {
                if d.total_in() as usize == i && d.total_out() as usize == o {
                    err = Some("Z_BUF_ERROR");
                    break;
                }
            }
            Ok(flate2::Status::BufError) => {
                err = Some("Z_BUF_ERROR");
                break;
            }
            Err(_) => {
                err = Some("Z_DATA_ERROR");
                break;
            }
        }
    }
    let produced = d.total_out() as usize;
    if err == Some("Z_BUF_ERROR") {
        // `uncompress` turns a buffer error with output space left into a data error.
        let space_left = scratch || produced < cap;
        if space_left {
            err = Some("Z_DATA_ERROR");
        }
    }
    match err {
        Some(e) => Err(e),
        None => {
            out.truncate(if scratch { 0 } else { produced });
            Ok(out)
        }
    }
}

/// Formats `v` with `,` thousands separators, as LLVM's verbose output does.
pub fn with_commas(v: u64) -> String {
    let s = v.to_string();
    let mut out = String::with_capacity(s.len() + s.len() / 3);
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!(
            decompress_llvm19(&both).unwrap_err().to_string(),
            "Could not decompress embedded file contents: Src size is incorrect"
        );
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
        assert_eq!(
            decompress_llvm19(&m).unwrap_err().to_string(),
            "Unknown compressing method"
        );
        assert_eq!(
            decompress_llvm19(&a[..21]).unwrap_err().to_string(),
            "Compressed bundle header size too small"
        );
        for cut in 0..a.len() {
            let _ = decompress_all(&a[..cut], 0, u64::MAX);
            let _ = decompress_llvm19(&a[..cut]);
        }
    }

    #[test]
    fn commas() {
        assert_eq!(with_commas(5182), "5,182");
        assert_eq!(with_commas(100), "100");
        assert_eq!(with_commas(1234567), "1,234,567");
    }
}
