//! Writing compressed bundles: LLVM 19's one-shot zstd (or zlib) stream over the whole bundle,
//! or, with zstd worker threads, the bundle's pieces streamed to the compressor. Either way the
//! MD5 hash is computed on a second thread while the stream is made.

use zstd::zstd_safe;
use zstd_safe::zstd_sys::ZSTD_EndDirective::{ZSTD_e_continue, ZSTD_e_end};

use super::{header_size, truncated_md5_of, Method, MAGIC};
use crate::error::{Error, Result};
use offkit_llvm::LlvmVersion;

/// How to compress a bundle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    /// The header version to write: 2 (LLVM 19) or 3 (LLVM 20+); 1 is also accepted.
    pub version: u16,
    /// The method.
    pub method: Method,
    /// The level (zstd: clamped by the library, 0 means its default; zlib: -1 means 6).
    pub level: i32,
    /// zstd worker threads (0: single-threaded, LLVM's bytes; more: faster, different bytes).
    pub threads: u32,
    /// Whether sizes that do not fit the version's fields are silently truncated, as LLVM 19
    /// does for version 2 (otherwise they are an error).
    pub wrap_sizes: bool,
}

impl Default for Options {
    /// What LLVM 19 writes: version 2, zstd, level 3, one thread.
    fn default() -> Self {
        Options {
            version: 2,
            method: Method::Zstd,
            level: 3,
            threads: 0,
            wrap_sizes: false,
        }
    }
}

impl Options {
    /// What release `llvm`'s `clang-offload-bundler -compress` writes by default: zstd at level
    /// 3 (with long-distance matching), one thread, header version 2 for LLVM 19 (sizes that do
    /// not fit its 32-bit fields wrap) and 3 for LLVM 22 (`COMPRESSED_BUNDLE_FORMAT_VERSION=2`
    /// asks it for 2, whose sizes must then fit).
    pub fn written_by(llvm: LlvmVersion) -> Self {
        match llvm {
            LlvmVersion::V19 => Options {
                wrap_sizes: true,
                ..Options::default()
            },
            _ => Options {
                version: 3,
                ..Options::default()
            },
        }
    }

    /// Whether [`compress_pieces`] streams its pieces to the compressor rather than joining them
    /// first: zstd with worker threads, whose bytes differ from LLVM's anyway (LLVM's bytes need
    /// the one-shot call on the whole bundle).
    pub fn streams_pieces(&self) -> bool {
        self.method == Method::Zstd && self.threads > 0
    }
}

/// A compressed bundle and the numbers LLVM's verbose mode prints.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Compressed {
    /// The whole compressed bundle (header and stream).
    pub bytes: Vec<u8>,
    /// The truncated MD5 hash of the input.
    pub hash: u64,
    /// The compressed stream's size.
    pub stream_size: u64,
}

/// Compresses `data` (a whole bundle) into a compressed bundle. The MD5 hash is computed on a
/// second thread while the main thread compresses.
pub fn compress(data: &[u8], opts: &Options) -> Result<Compressed> {
    compress_with(&[data], opts, |reserved| {
        let stream = compress_stream(data, opts)?;
        let mut out = Vec::with_capacity(reserved + stream.len());
        out.resize(reserved, 0);
        out.extend_from_slice(&stream);
        Ok(out)
    })
}

/// Compresses the concatenation of `pieces` (a whole bundle: header bytes, payloads, padding, in
/// order) into a compressed bundle, without joining them when [`Options::streams_pieces`]: each
/// piece goes to `ZSTD_compressStream2` in turn while the MD5 hash of the pieces is computed on
/// a second thread. Otherwise the pieces are joined and given to [`compress`].
pub fn compress_pieces(pieces: &[&[u8]], opts: &Options) -> Result<Compressed> {
    if !opts.streams_pieces() {
        return compress(&pieces.concat(), opts);
    }
    compress_with(pieces, opts, |reserved| zstd_stream(pieces, opts, reserved))
}

/// Runs `stream` (which returns `reserved` bytes for the header, then the compressed stream of
/// the concatenation of `pieces`) while the pieces are hashed on a second thread, then writes
/// the header of `opts.version` into the reserved bytes.
fn compress_with(
    pieces: &[&[u8]],
    opts: &Options,
    stream: impl FnOnce(usize) -> Result<Vec<u8>>,
) -> Result<Compressed> {
    let hsize = header_size(opts.version).ok_or_else(|| Error::Unrepresentable {
        what: "compressed bundle",
        reason: format!("version {} does not exist (1, 2 or 3)", opts.version),
    })?;
    let reserved = hsize as usize;
    let (hash, out) = std::thread::scope(|s| {
        let hasher = s.spawn(|| truncated_md5_of(pieces));
        let out = stream(reserved);
        // The hashing thread cannot panic on any input.
        let hash = hasher.join().unwrap_or_default();
        (hash, out)
    });
    let mut bytes = out?;
    let uncompressed: u64 = pieces.iter().map(|p| p.len() as u64).sum();
    let stream_size = (bytes.len() - reserved) as u64;
    let total = bytes.len() as u64;
    let fits32 = |v: u64, what: &str| -> Result<u32> {
        match u32::try_from(v) {
            Ok(v) => Ok(v),
            Err(_) if opts.wrap_sizes => Ok(v as u32),
            Err(_) => Err(Error::Unrepresentable {
                what: "compressed bundle",
                reason: format!(
                    "the {what} {v} does not fit version {}'s 32-bit field (use version 3)",
                    opts.version
                ),
            }),
        }
    };
    let mut header = Vec::with_capacity(reserved);
    header.extend_from_slice(&MAGIC);
    header.extend_from_slice(&opts.version.to_le_bytes());
    header.extend_from_slice(&opts.method.to_raw().to_le_bytes());
    match opts.version {
        1 => header.extend_from_slice(&fits32(uncompressed, "uncompressed size")?.to_le_bytes()),
        2 => {
            header.extend_from_slice(&fits32(total, "total size")?.to_le_bytes());
            header.extend_from_slice(&fits32(uncompressed, "uncompressed size")?.to_le_bytes());
        }
        _ => {
            header.extend_from_slice(&total.to_le_bytes());
            header.extend_from_slice(&uncompressed.to_le_bytes());
        }
    }
    header.extend_from_slice(&hash.to_le_bytes());
    match bytes.get_mut(..reserved) {
        Some(head) if header.len() == reserved => head.copy_from_slice(&header),
        _ => {
            return Err(Error::Unrepresentable {
                what: "compressed bundle",
                reason: format!("a version {} header is not {reserved} bytes", opts.version),
            })
        }
    }
    Ok(Compressed {
        bytes,
        hash,
        stream_size,
    })
}

/// A zstd context set up as LLVM sets it (a fresh context, long-distance matching on, the
/// level), plus the worker threads of `opts`.
fn zstd_context(opts: &Options) -> Result<zstd_safe::CCtx<'static>> {
    let mut cctx = zstd_safe::CCtx::create();
    cctx.set_parameter(zstd_safe::CParameter::EnableLongDistanceMatching(true))
        .map_err(zstd_error)?;
    cctx.set_parameter(zstd_safe::CParameter::CompressionLevel(opts.level))
        .map_err(zstd_error)?;
    if opts.threads > 0 {
        cctx.set_parameter(zstd_safe::CParameter::NbWorkers(opts.threads))
            .map_err(zstd_error)?;
        // With long-distance matching the default job is 4 windows (512 MiB), so a bundle of a
        // few hundred MiB would be one job on one thread.
        cctx.set_parameter(zstd_safe::CParameter::JobSize(32 << 20))
            .map_err(zstd_error)?;
    }
    Ok(cctx)
}

fn zstd_error(code: zstd_safe::ErrorCode) -> Error {
    Error::Unrepresentable {
        what: "compressed bundle",
        reason: zstd_safe::get_error_name(code).into(),
    }
}

/// `reserved` zero bytes, then the zstd frame of the concatenation of `pieces`, made with the
/// streaming API (the frame header carries the content size, as the one-shot call's does).
fn zstd_stream(pieces: &[&[u8]], opts: &Options, reserved: usize) -> Result<Vec<u8>> {
    let total: u64 = pieces.iter().map(|p| p.len() as u64).sum();
    let mut cctx = zstd_context(opts)?;
    cctx.set_pledged_src_size(Some(total)).map_err(zstd_error)?;
    let bound = usize::try_from(total)
        .ok()
        .map(zstd_safe::compress_bound)
        .ok_or_else(|| Error::Unrepresentable {
            what: "compressed bundle",
            reason: format!("{total} bytes do not fit in memory"),
        })?;
    let mut out: Vec<u8> = Vec::with_capacity(reserved + bound);
    out.resize(reserved, 0);
    {
        let mut ob = zstd_safe::OutBuffer::around_pos(&mut out, reserved);
        for piece in pieces {
            let mut ib = zstd_safe::InBuffer::around(piece);
            while ib.pos() < piece.len() {
                cctx.compress_stream2(&mut ob, &mut ib, ZSTD_e_continue)
                    .map_err(zstd_error)?;
            }
        }
        let mut ib = zstd_safe::InBuffer::around(&[][..]);
        // `ZSTD_e_end` returns what is left to flush; the buffer holds the bound, so one call
        // normally finishes, but the loop does not rely on it.
        while cctx
            .compress_stream2(&mut ob, &mut ib, ZSTD_e_end)
            .map_err(zstd_error)?
            > 0
        {}
    }
    Ok(out)
}

/// The compressed stream alone: zstd as LLVM calls it (a fresh context, long-distance matching
/// on, the level, `ZSTD_compress2` into a `ZSTD_compressBound` buffer), or zlib's `compress2`.
pub fn compress_stream(data: &[u8], opts: &Options) -> Result<Vec<u8>> {
    match opts.method {
        Method::Zstd => {
            let mut cctx = zstd_context(opts)?;
            let mut out: Vec<u8> = Vec::with_capacity(zstd_safe::compress_bound(data.len()));
            cctx.compress2(&mut out, data).map_err(zstd_error)?;
            Ok(out)
        }
        Method::Zlib => {
            let level = if opts.level < 0 {
                flate2::Compression::default()
            } else {
                flate2::Compression::new(opts.level.clamp(0, 9) as u32)
            };
            let mut c = flate2::Compress::new(level, true);
            // `compressBound` of zlib, so one call finishes the stream.
            let bound =
                data.len() + (data.len() >> 12) + (data.len() >> 14) + (data.len() >> 25) + 13;
            let mut out: Vec<u8> = Vec::with_capacity(bound);
            loop {
                let st = c
                    .compress_vec(
                        data.get(c.total_in() as usize..).unwrap_or_default(),
                        &mut out,
                        flate2::FlushCompress::Finish,
                    )
                    .map_err(|e| Error::Compress {
                        what: "compressed bundle",
                        method: "zlib",
                        source: std::io::Error::other(e),
                    })?;
                if st == flate2::Status::StreamEnd {
                    break;
                }
                out.reserve(out.capacity().max(64));
            }
            Ok(out)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::*;

    /// A small deterministic generator (no dependency).
    struct Rng(u64);
    impl Rng {
        fn below(&mut self, n: usize) -> usize {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((self.0 >> 33) as usize) % n.max(1)
        }
    }

    #[test]
    fn pieces_compress_to_their_concatenation() {
        let data: Vec<u8> = (0..300_000u32)
            .flat_map(|i| ((i / 7) % 251).to_le_bytes())
            .collect();
        let mut rng = Rng(7);
        let cases = [
            (2, Method::Zstd, 2),
            (3, Method::Zstd, 2),
            (1, Method::Zstd, 1),
            (2, Method::Zstd, 0),
            (2, Method::Zlib, 0),
        ];
        for (version, method, threads) in cases {
            for len in [0, 1, 5000, data.len()] {
                let all = &data[..len];
                // Random cuts, empty pieces included.
                let mut cuts: Vec<usize> = (0..rng.below(6)).map(|_| rng.below(len + 1)).collect();
                cuts.push(0);
                cuts.push(len);
                cuts.sort_unstable();
                let pieces: Vec<&[u8]> = cuts.windows(2).map(|w| &all[w[0]..w[1]]).collect();
                let opts = Options {
                    version,
                    method,
                    level: if method == Method::Zstd { 3 } else { -1 },
                    threads,
                    wrap_sizes: false,
                };
                let c = compress_pieces(&pieces, &opts).unwrap();
                let case = format!("v{version} {method:?} threads {threads} len {len}");
                assert_eq!(c.hash, truncated_md5(all), "{case}");
                let h = parse_header(&c.bytes, 0).unwrap();
                assert_eq!(h.version, version, "{case}");
                let back = decompress_all(&c.bytes, 0, u64::MAX).unwrap();
                assert_eq!(back.len(), 1, "{case}");
                assert_eq!(back[0].1, all, "{case}");
                // LLVM 19 reads versions 1 and 2 (a version 3 bundle is an error to it).
                if version != 3 {
                    let l = decompress_llvm19(&c.bytes).unwrap();
                    assert_eq!(&l.data[..], all, "{case}");
                }
                if !opts.streams_pieces() {
                    assert_eq!(c, compress(all, &opts).unwrap(), "{case}");
                }
            }
        }
    }
}
