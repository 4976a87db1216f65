//! How `clang-offload-bundler` of each LLVM release reads a compressed bundle
//! (`CompressedOffloadBundle::decompress`), for the bundler drop-in: one `match` on the
//! release.
//!
//! | | LLVM 19 | LLVM 22 |
//! |---|---|---|
//! | compressed when | `CCOB` and ≥ 20 bytes | `CCOB` and ≥ 8 bytes |
//! | versions | 0–1: v1 layout, ≥ 2: v2 layout (v3 fails in the stream) | 1, 2, 3; any other is an error |
//! | header cut short | `Compressed bundle header size too small` | the same, per version |
//!
//! Both take the stream to run to the end of the buffer, check neither the total size nor
//! the hash, and use the uncompressed size field as the output's capacity.

use std::borrow::Cow;

use offkit_llvm::reader::Reader;
use offkit_llvm::LlvmVersion;

use super::{decompress_llvm19, header_size, inflate_as_llvm, Method, MAGIC};
use crate::error::{Error, Result};

/// The smallest buffer LLVM 22 takes for compressed: the magic, version and method.
pub const MIN_SIZE_LLVM22: usize = 8;

/// A compressed bundle's header as a bundler release read it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LlvmHeader {
    /// The version field as stored.
    pub version: u16,
    /// The method.
    pub method: Method,
    /// The total size field (versions 2 and 3).
    pub total_size: Option<u64>,
    /// The uncompressed size field.
    pub uncompressed_size: u64,
    /// The stored hash.
    pub hash: u64,
    /// The size of the header the release used (the stream starts there).
    pub header_size: usize,
}

/// What a release's decompression gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LlvmDecompressed<'d> {
    /// The header read (`None`: not compressed, the data is used as it is).
    pub header: Option<LlvmHeader>,
    /// The data: the input itself, or what the stream decompressed to.
    pub data: Cow<'d, [u8]>,
}

/// Decompresses `data` as `clang-offload-bundler` of release `llvm` does. The errors print
/// LLVM's messages (without the `Failed to decompress input: ` prefix the bundler adds).
///
/// Where LLVM 22 meets a version it does not know, it runs into `llvm_unreachable` (undefined
/// behaviour in its release build: some versions read as "header size too small", version 0
/// as an empty bundle); offkit reports `Unknown compressed bundle version`, the message LLVM's
/// code has for the case.
pub fn decompress_llvm(data: &[u8], llvm: LlvmVersion) -> Result<LlvmDecompressed<'_>> {
    match llvm {
        LlvmVersion::V19 => {
            let d = decompress_llvm19(data)?;
            Ok(LlvmDecompressed {
                header: d.header.map(|h| LlvmHeader {
                    version: h.version,
                    method: h.method,
                    total_size: h.total_size.map(u64::from),
                    uncompressed_size: h.uncompressed_size.into(),
                    hash: h.hash,
                    header_size: h.header_size,
                }),
                data: d.data,
            })
        }
        _ => decompress_llvm22(data),
    }
}

/// LLVM 22.1.8's `CompressedOffloadBundle::decompress`.
fn decompress_llvm22(data: &[u8]) -> Result<LlvmDecompressed<'_>> {
    if data.len() < MIN_SIZE_LLVM22 || !data.starts_with(&MAGIC) {
        return Ok(LlvmDecompressed {
            header: None,
            data: Cow::Borrowed(data),
        });
    }
    let field = "compressed bundle header";
    let mut r = Reader::new(data, 0);
    let too_small = |_| Error::Llvm19HeaderTooSmall;
    r.seek(4, field).map_err(too_small)?;
    let version = r.u16_le(field).map_err(too_small)?;
    let raw_method = r.u16_le(field).map_err(too_small)?;
    let size = header_size(version).ok_or(Error::LlvmUnknownVersion { version })?;
    if (data.len() as u64) < size {
        return Err(Error::Llvm19HeaderTooSmall);
    }
    let (total_size, uncompressed_size) = match version {
        1 => (None, u64::from(r.u32_le(field).map_err(too_small)?)),
        2 => (
            Some(u64::from(r.u32_le(field).map_err(too_small)?)),
            u64::from(r.u32_le(field).map_err(too_small)?),
        ),
        _ => (
            Some(r.u64_le(field).map_err(too_small)?),
            r.u64_le(field).map_err(too_small)?,
        ),
    };
    let hash = r.u64_le(field).map_err(too_small)?;
    let method = Method::from_raw(raw_method).ok_or(Error::Llvm19UnknownMethod)?;
    let cap = usize::try_from(uncompressed_size).map_err(|_| Error::Llvm19Decompress {
        reason: format!(
            "cannot reserve the {uncompressed_size} bytes the header gives as the uncompressed \
             size"
        ),
    })?;
    let out = inflate_as_llvm(method, r.rest(), cap)?;
    Ok(LlvmDecompressed {
        header: Some(LlvmHeader {
            version,
            method,
            total_size,
            uncompressed_size,
            hash,
            header_size: size as usize,
        }),
        data: Cow::Owned(out),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bundle::compressed::{compress, Options};

    #[test]
    fn releases_read_the_versions_they_know() {
        let plain = b"__CLANG_OFFLOAD_BUNDLE__ and some bytes, some bytes, some bytes".repeat(9);
        for version in [1u16, 2, 3] {
            let c = compress(
                &plain,
                &Options {
                    version,
                    ..Options::default()
                },
            )
            .unwrap();
            let d = decompress_llvm(&c.bytes, LlvmVersion::V22).unwrap();
            assert_eq!(d.data.as_ref(), &plain[..], "v{version}");
            let h = d.header.unwrap();
            assert_eq!(
                (h.version, h.uncompressed_size),
                (version, plain.len() as u64)
            );
            // LLVM 19 reads version 3 with the version-2 layout, and fails.
            assert_eq!(
                decompress_llvm(&c.bytes, LlvmVersion::V19).is_ok(),
                version < 3
            );
        }
        let c = compress(&plain, &Options::default()).unwrap().bytes;
        let msg = |d: &[u8]| {
            decompress_llvm(d, LlvmVersion::V22)
                .unwrap_err()
                .to_string()
        };
        // 8 to 23 bytes are compressed for LLVM 22 (not below 20 for LLVM 19).
        assert_eq!(msg(&c[..8]), "Compressed bundle header size too small");
        assert!(decompress_llvm(&c[..7], LlvmVersion::V22)
            .unwrap()
            .header
            .is_none());
        assert!(decompress_llvm(&c[..12], LlvmVersion::V19)
            .unwrap()
            .header
            .is_none());
        let mut v = c.clone();
        v[4] = 7;
        assert_eq!(msg(&v), "Unknown compressed bundle version");
        v[4] = 2;
        v[6] = 5;
        assert_eq!(msg(&v), "Unknown compressing method");
        for cut in 0..c.len() {
            let _ = decompress_llvm(&c[..cut], LlvmVersion::V22);
        }
    }
}
