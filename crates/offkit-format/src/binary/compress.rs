//! Compressed version-3 binaries.
//!
//! Newer LLVM's `OffloadBinary::write(Images, compression::Params)` writes the binary as usual,
//! then compresses everything after the 40-byte header in one piece (a zlib stream as
//! `compress2` makes it, or one zstd frame as `ZSTD_compress` makes it), sets `inflated_size`
//! to the uncompressed binary's size, sets `size` to header plus compressed bytes, and pads with
//! zeros to a multiple of 8 (the padding is not counted in `size`). A reader tells zstd from
//! zlib by the zstd frame magic.

use super::{parse_entries_v2, Binary, Compressed, Version, ALIGN, HEADER_V3};
use crate::error::{Error, Result};
use offkit_read::limits;
use offkit_read::{align_up, Reader};

/// The zstd frame magic (`28 B5 2F FD`).
const ZSTD_MAGIC: [u8; 4] = [0x28, 0xB5, 0x2F, 0xFD];

/// A compression method.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CompressionFormat {
    /// zlib (RFC 1950).
    Zlib,
    /// zstd.
    Zstd,
}

impl CompressionFormat {
    /// The method's name: `zlib` or `zstd`.
    pub(crate) fn name(self) -> &'static str {
        match self {
            CompressionFormat::Zlib => "zlib",
            CompressionFormat::Zstd => "zstd",
        }
    }
}

/// Whether and how [`super::write()`] compresses (version 3 only).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Compression {
    /// No compression.
    None,
    /// zlib at `level` (0–9).
    Zlib {
        /// The level.
        level: u32,
    },
    /// zstd at `level`.
    Zstd {
        /// The level.
        level: i32,
    },
}

impl Compression {
    /// LLVM's default zlib level (6).
    pub(crate) const ZLIB_DEFAULT_LEVEL: u32 = 6;
    /// LLVM's default zstd level (5).
    pub(crate) const ZSTD_DEFAULT_LEVEL: i32 = 5;

    /// zlib at LLVM's default level.
    pub fn zlib() -> Compression {
        Compression::Zlib {
            level: Self::ZLIB_DEFAULT_LEVEL,
        }
    }

    /// zstd at LLVM's default level.
    pub fn zstd() -> Compression {
        Compression::Zstd {
            level: Self::ZSTD_DEFAULT_LEVEL,
        }
    }
}

fn compress_error(reason: impl std::fmt::Display) -> Error {
    Error::Unrepresentable {
        what: "compressed offload binary",
        reason: reason.to_string(),
    }
}

/// Compresses the uncompressed version-3 binary `plain` (as `write_v2` made it).
pub(super) fn compress_binary(plain: &[u8], compression: Compression) -> Result<Vec<u8>> {
    let header = HEADER_V3 as usize;
    let (head, body) = plain
        .split_at_checked(header)
        .ok_or_else(|| compress_error("the binary is shorter than its header"))?;
    let packed = match compression {
        Compression::None => return Ok(plain.to_vec()),
        Compression::Zlib { level } => {
            if level > 9 {
                return Err(compress_error(format!(
                    "zlib level {level} is not in 0..=9"
                )));
            }
            zlib(body, level)?
        }
        Compression::Zstd { level } => zstd(body, level)?,
    };
    let size = HEADER_V3 + packed.len() as u64;
    let padded = align_up(size, ALIGN).ok_or_else(|| compress_error("too large"))?;
    let mut out = Vec::with_capacity(padded as usize);
    out.extend_from_slice(head.get(..8).unwrap_or_default());
    out.extend_from_slice(&size.to_le_bytes());
    out.extend_from_slice(head.get(16..32).unwrap_or_default());
    out.extend_from_slice(&(plain.len() as u64).to_le_bytes());
    out.extend_from_slice(&packed);
    out.resize(padded as usize, 0);
    Ok(out)
}

/// Why (de)compression fails in a build without the `compress` feature (the runtime's).
#[cfg(not(feature = "compress"))]
const NO_COMPRESS: &str = "offkit-format was built without its `compress` feature";

#[cfg(not(feature = "compress"))]
fn zlib(_body: &[u8], _level: u32) -> Result<Vec<u8>> {
    Err(compress_error(NO_COMPRESS))
}

#[cfg(not(feature = "compress"))]
fn zstd(_body: &[u8], _level: i32) -> Result<Vec<u8>> {
    Err(compress_error(NO_COMPRESS))
}

/// One frame as `ZSTD_compress` makes it.
#[cfg(feature = "compress")]
fn zstd(body: &[u8], level: i32) -> Result<Vec<u8>> {
    ::zstd::bulk::compress(body, level).map_err(|source| Error::Compress {
        what: "offload binary",
        method: "zstd",
        source,
    })
}

/// One-shot zlib as `compress2` does it: the whole input, then finish.
#[cfg(feature = "compress")]
fn zlib(body: &[u8], level: u32) -> Result<Vec<u8>> {
    let mut c = flate2::Compress::new(flate2::Compression::new(level), true);
    let mut out = Vec::with_capacity(body.len() / 2 + 64);
    loop {
        let consumed = c.total_in() as usize;
        let input = body.get(consumed..).unwrap_or_default();
        if out.len() == out.capacity() {
            out.reserve(out.capacity().max(64));
        }
        let status = c
            .compress_vec(input, &mut out, flate2::FlushCompress::Finish)
            .map_err(|e| Error::Compress {
                what: "offload binary",
                method: "zlib",
                source: std::io::Error::other(e),
            })?;
        match status {
            flate2::Status::StreamEnd => return Ok(out),
            flate2::Status::Ok | flate2::Status::BufError => {}
        }
    }
}

/// Reads a compressed version-3 binary (`inflated_size != 0`): decompresses the body, rebuilds
/// the uncompressed binary (header with `size = inflated_size` and `inflated_size = 0`, then the
/// body) and reads its entries, which then own their data.
pub(super) fn parse_compressed<'d>(bin: &Reader<'d>, inflated: u64) -> Result<Binary<'d>> {
    let base = bin.base();
    let size = bin.data().len() as u64;
    let mut r = bin.clone();
    r.seek(16, "offload binary header")?;
    let entries_offset = r.u64_le("offload binary header")?;
    if entries_offset != HEADER_V3 {
        return Err(Error::Invalid {
            what: "compressed offload binary",
            offset: base + 16,
            reason: format!(
                "the entries offset is {entries_offset}; a compressed binary's data starts \
                 right after its {HEADER_V3}-byte header"
            ),
        });
    }
    if inflated < HEADER_V3 {
        return Err(Error::Invalid {
            what: "compressed offload binary",
            offset: base + 32,
            reason: format!(
                "the inflated size {inflated} is smaller than the {HEADER_V3}-byte header"
            ),
        });
    }
    if inflated > limits::MAX_INFLATED_SIZE {
        return Err(Error::limit(
            limits::Limit::InflatedSize,
            "inflated offload binary size",
            base + 32,
            inflated,
        ));
    }
    let packed = bin
        .sub(HEADER_V3, size - HEADER_V3, "compressed offload binary")?
        .data();
    let format = if packed.starts_with(&ZSTD_MAGIC) {
        CompressionFormat::Zstd
    } else {
        CompressionFormat::Zlib
    };
    let body_size = inflated - HEADER_V3;
    let body = inflate(packed, format, body_size, base + HEADER_V3)?;
    let mut whole = Vec::with_capacity(inflated as usize);
    whole.extend_from_slice(bin.data().get(..8).unwrap_or_default());
    whole.extend_from_slice(&inflated.to_le_bytes());
    whole.extend_from_slice(bin.data().get(16..32).unwrap_or_default());
    whole.extend_from_slice(&0u64.to_le_bytes());
    whole.extend_from_slice(&body);
    drop(body);
    // Offsets inside the inflated binary are reported relative to the compressed binary's
    // start: there is no file offset for bytes that exist only once decompressed.
    let inner = Reader::new(&whole, base);
    let entries = parse_entries_v2(&inner, Version::V3)
        .map_err(decompressed_context(base))?
        .into_iter()
        .map(|e| {
            let mut e = e.into_owned();
            e.image_offset = base + HEADER_V3;
            e
        })
        .collect();
    Ok(Binary {
        offset: base,
        version: 3,
        size,
        compression: Some(Compressed {
            format,
            compressed_size: packed.len() as u64,
            inflated_size: inflated,
        }),
        entries,
    })
}

fn decompressed_context(offset: u64) -> impl Fn(Error) -> Error {
    move |e| Error::Inflated {
        what: "compressed offload binary",
        offset,
        source: Box::new(e),
    }
}

/// Decompresses exactly `expected` bytes, growing the output as data arrives (a lying size
/// field costs nothing up front), and refuses a stream that yields more or fewer.
fn inflate(
    packed: &[u8],
    format: CompressionFormat,
    expected: u64,
    offset: u64,
) -> Result<Vec<u8>> {
    let fail = |reason: String| Error::Decompress {
        what: "compressed offload binary",
        offset,
        reason,
    };
    let mut out = Vec::new();
    let limit = expected.saturating_add(1);
    decode(packed, format, limit, &mut out).map_err(|source| Error::Codec {
        what: "compressed offload binary",
        offset,
        method: format.name(),
        source,
    })?;
    if out.len() as u64 != expected {
        return Err(fail(format!(
            "the {} data inflates to {}{} bytes, but the header says {expected}",
            format.name(),
            if out.len() as u64 > expected {
                "more than "
            } else {
                ""
            },
            out.len().min(expected as usize),
        )));
    }
    Ok(out)
}

/// Decompresses at most `limit` bytes of `packed` into `out`.
#[cfg(feature = "compress")]
fn decode(
    packed: &[u8],
    format: CompressionFormat,
    limit: u64,
    out: &mut Vec<u8>,
) -> std::io::Result<usize> {
    use std::io::Read;
    match format {
        CompressionFormat::Zlib => flate2::read::ZlibDecoder::new(packed)
            .take(limit)
            .read_to_end(out),
        CompressionFormat::Zstd => ::zstd::stream::read::Decoder::with_buffer(packed)
            .and_then(|d| d.take(limit).read_to_end(out)),
    }
}

#[cfg(not(feature = "compress"))]
fn decode(
    _packed: &[u8],
    _format: CompressionFormat,
    _limit: u64,
    _out: &mut Vec<u8>,
) -> std::io::Result<usize> {
    Err(std::io::Error::new(
        std::io::ErrorKind::Unsupported,
        NO_COMPRESS,
    ))
}

#[cfg(test)]
mod tests {
    use super::super::{parse_all, write, Image, ImageSpec};
    use super::*;
    use crate::kind::{ImageKind, OffloadKind};
    use offkit_llvm::LlvmVersion;

    fn sample() -> Vec<Image<'static>> {
        vec![
            Image {
                spec: ImageSpec {
                    image_kind: ImageKind::Object,
                    offload_kind: OffloadKind::OpenMp,
                    flags: 0,
                    strings: vec![(b"triple", b"x86_64-pc-linux-gnu"), (b"arch", b"")],
                },
                data: b"\x7fELF................................................",
            },
            Image {
                spec: ImageSpec {
                    image_kind: ImageKind::Bitcode,
                    offload_kind: OffloadKind::Cuda,
                    flags: 1,
                    strings: vec![(b"triple", b"nvptx64-nvidia-cuda"), (b"arch", b"sm_70")],
                },
                data: b"BC\xc0\xde",
            },
        ]
    }

    #[test]
    fn both_methods_round_trip() {
        let images = sample();
        let plain = write(Version::V3, &images, Compression::None, LlvmVersion::V19).unwrap();
        for c in [
            Compression::zlib(),
            Compression::zstd(),
            Compression::Zlib { level: 0 },
        ] {
            let packed = write(Version::V3, &images, c, LlvmVersion::V19).unwrap();
            assert_eq!(packed.len() % 8, 0);
            assert_eq!(
                u64::from_le_bytes(packed[32..40].try_into().unwrap()),
                plain.len() as u64
            );
            let mut two = packed.clone();
            two.extend_from_slice(&packed);
            let bins: Vec<_> = parse_all(&two, 0).collect::<Result<_>>().unwrap();
            assert_eq!(bins.len(), 2);
            for b in &bins {
                let info = b.compression.unwrap();
                assert_eq!(info.inflated_size, plain.len() as u64);
                assert_eq!(b.entries.len(), 2);
                for (e, i) in b.entries.iter().zip(&images) {
                    assert_eq!(e.as_image(), *i);
                }
            }
            assert_eq!(
                bins[0].compression.unwrap().format,
                if matches!(c, Compression::Zstd { .. }) {
                    CompressionFormat::Zstd
                } else {
                    CompressionFormat::Zlib
                }
            );
        }
    }

    #[test]
    fn lying_sizes_are_errors() {
        let images = sample();
        let packed = write(Version::V3, &images, Compression::zstd(), LlvmVersion::V19).unwrap();
        for delta in [-1i64, 1, 1 << 40] {
            let mut bad = packed.clone();
            let inflated = u64::from_le_bytes(bad[32..40].try_into().unwrap());
            bad[32..40].copy_from_slice(&inflated.wrapping_add_signed(delta).to_le_bytes());
            assert!(parse_all(&bad, 0).next().unwrap().is_err(), "delta {delta}");
        }
        let mut bad = packed.clone();
        bad[45] ^= 0xff;
        assert!(parse_all(&bad, 0).next().unwrap().is_err());
    }
}
