//! How each LLVM release's `CompressedOffloadBundle::decompress` reads a compressed bundle, for
//! the bundler drop-in: LLVM's header rules and messages, no size or hash checks, the stream
//! to the end of the buffer. offkit's own strict reading is [`super::blobs`].

use std::borrow::Cow;

use zstd::zstd_safe;

use super::{Method, MAGIC, MIN_SIZE};
use crate::error::{Error, Result};
use offkit_llvm::LlvmVersion;
use offkit_read::Reader;

/// What a release's `CompressedOffloadBundle::decompress` makes of a buffer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LlvmDecompressed<'d> {
    /// The header LLVM read (`None`: not compressed, the data is used as is).
    pub header: Option<LlvmHeader>,
    /// The data: the input itself, or what the stream decompressed to.
    pub data: Cow<'d, [u8]>,
}

/// A header as a release reads it (LLVM 19 reads any version of 2 or more with the version-2
/// layout; LLVM 22 reads versions 1 to 3 each with its own).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LlvmHeader {
    /// The version field as stored.
    pub version: u16,
    /// The method.
    pub method: Method,
    /// The total size field (versions ≥ 2).
    pub total_size: Option<u64>,
    /// The uncompressed size field.
    pub uncompressed_size: u64,
    /// The stored hash.
    pub hash: u64,
    /// The header size LLVM used (20, 24 or 32).
    pub header_size: usize,
}

/// Whether release `llvm` takes `data` for a compressed bundle: the magic and at least 20 bytes
/// (19: a version-1 header) or 8 (22: the common fields).
pub(crate) fn is_compressed_for(llvm: LlvmVersion, data: &[u8]) -> bool {
    let min = match llvm {
        LlvmVersion::V19 => MIN_SIZE,
        _ => 8,
    };
    data.len() >= min && data.starts_with(&MAGIC)
}

/// [`decompress_llvm`] of LLVM 19.
#[cfg(test)]
pub(crate) fn decompress_llvm19(data: &[u8]) -> Result<LlvmDecompressed<'_>> {
    decompress_llvm(LlvmVersion::V19, data)
}

/// Decompresses `data` as release `llvm` does. The error is [`Error::LlvmHeaderTooShort`],
/// [`Error::LlvmUnknownMethod`], [`Error::LlvmZstd`], [`Error::LlvmZlib`] or
/// [`Error::LlvmReserve`] (the bundler
/// drop-in words each as LLVM does).
///
/// LLVM 19: under 20 bytes or no `CCOB` → not compressed; version ≥ 2 uses the version-2
/// layout (so version 3 fails in the stream). LLVM 22: under 8 bytes or no `CCOB` → not
/// compressed; versions 1, 2 and 3 each with its layout, a buffer shorter than the header is
/// "too small", and so is any other version (its `getHeaderSize` reaches `llvm_unreachable`,
/// which the release build turns into a size no buffer has: observed with Debian's 22.1.8).
/// Both: the stream runs to the end of the buffer (the total size is not read, so trailing
/// bytes fail in the stream, and several zstd frames, skippable ones included, are read in
/// turn); the sizes and the hash are not checked; the uncompressed size field is the output
/// capacity.
pub fn decompress_llvm(llvm: LlvmVersion, data: &[u8]) -> Result<LlvmDecompressed<'_>> {
    if !is_compressed_for(llvm, data) {
        return Ok(LlvmDecompressed {
            header: None,
            data: Cow::Borrowed(data),
        });
    }
    let mut r = Reader::new(data, 0);
    let field = "compressed bundle header";
    let (version, raw_method) = match (r.seek(4, field), r.u16_le(field), r.u16_le(field)) {
        (Ok(()), Ok(v), Ok(m)) => (v, m),
        _ => return Err(Error::LlvmHeaderTooShort { llvm }),
    };
    let too_small = |_| Error::LlvmHeaderTooShort { llvm };
    // The layout each release reads for `version`: (total size width, uncompressed size
    // width, header size); total width 0 means none.
    let layout = match (llvm, version) {
        (LlvmVersion::V19, 0 | 1) | (_, 1) => (0, 4, 20),
        (LlvmVersion::V19, _) | (_, 2) => (4, 4, 24),
        (_, 3) => (8, 8, 32),
        _ => return Err(Error::LlvmHeaderTooShort { llvm }),
    };
    if data.len() < layout.2 {
        return Err(Error::LlvmHeaderTooShort { llvm });
    }
    let mut word = |width: usize| -> Result<u64> {
        match width {
            4 => r.u32_le(field).map(u64::from).map_err(too_small),
            _ => r.u64_le(field).map_err(too_small),
        }
    };
    let total_size = if layout.0 == 0 {
        None
    } else {
        Some(word(layout.0)?)
    };
    let uncompressed_size = word(layout.1)?;
    let hash = word(8)?;
    let header = LlvmHeader {
        version,
        method: Method::Zstd,
        total_size,
        uncompressed_size,
        hash,
        header_size: layout.2,
    };
    let method =
        Method::from_raw(raw_method).ok_or(Error::LlvmUnknownMethod { method: raw_method })?;
    let header = LlvmHeader { method, ..header };
    let stream = data.get(header.header_size..).unwrap_or_default();
    let cap = usize::try_from(header.uncompressed_size).unwrap_or(usize::MAX);
    let out = match method {
        Method::Zstd => {
            // LLVM 19 reserves the header's size; where that fails (a header claiming 4 GiB
            // under a memory limit) LLVM 19 aborts, offkit says so.
            let mut out: Vec<u8> = Vec::new();
            out.try_reserve_exact(cap).map_err(|_| Error::LlvmReserve {
                size: header.uncompressed_size,
            })?;
            let error = |c| Error::LlvmZstd {
                name: zstd_safe::get_error_name(c),
            };
            if cap == 0 {
                // A zero-capacity Vec's pointer is dangling, and libzstd writes through it
                // (found by fuzzing): give it one byte, and refuse any output as zstd would
                // refuse it into no room at all.
                let mut one: Vec<u8> = Vec::with_capacity(1);
                let n = zstd_safe::decompress(&mut one, stream).map_err(error)?;
                if n > 0 {
                    return Err(Error::LlvmZstd {
                        name: "Destination buffer is too small",
                    });
                }
            } else {
                zstd_safe::decompress(&mut out, stream).map_err(error)?;
            }
            out
        }
        Method::Zlib => zlib_uncompress(stream, cap).map_err(|name| Error::LlvmZlib { name })?,
    };
    Ok(LlvmDecompressed {
        header: Some(header),
        data: Cow::Owned(out),
    })
}

/// Decompresses `data` as LLVM 22's object layer does (`llvm::object::CompressedOffloadBundle::
/// decompress`, what `llvm-objdump --offloading` reads a compressed `.hip_fatbin` bundle with):
/// [`decompress_llvm`] of LLVM 22, but the stream ends where the header's total size says
/// (`Blob.substr(HeaderSize, TotalFileSize - HeaderSize)`), not at the end of the buffer: for
/// versions 2 and 3 whose total size is at least the header's size (a smaller one wraps the
/// subtraction: the rest of the buffer), and version 1, which has none, to the end.
pub fn decompress_llvm_object(data: &[u8]) -> Result<LlvmDecompressed<'_>> {
    let total = |at: usize, width: usize| -> Option<u64> {
        let b = data.get(at..at.checked_add(width)?)?;
        let mut w = [0u8; 8];
        w.get_mut(..width)?.copy_from_slice(b);
        Some(u64::from_le_bytes(w))
    };
    let version = data.get(4..6).map(|v| u16::from_le_bytes([v[0], v[1]]));
    // (The total size field and the header size of the versions that have one.)
    let end = match version {
        Some(2) => total(8, 4).filter(|&t| t >= 24),
        Some(3) => total(8, 8).filter(|&t| t >= 32),
        _ => None,
    };
    let cut = match end.and_then(|e| usize::try_from(e).ok()) {
        Some(e) if is_compressed_for(LlvmVersion::V22, data) => data.get(..e).unwrap_or(data),
        _ => data,
    };
    decompress_llvm(LlvmVersion::V22, cut)
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
