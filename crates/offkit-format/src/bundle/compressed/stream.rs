//! Decompressing a compressed bundle as a stream: memory grows with what the stream yields, never
//! with what the header claims.
//!
//! A header may claim anything (4 GiB, 16 GiB) in a few bytes; nothing here reserves memory from
//! it. [`inflate_into`] hands the uncompressed bytes to a sink chunk by chunk (`CHUNK`, 1 MiB, at a
//! time) and stops with an error the moment the stream yields more than the header says, or ends
//! short of it; the hash is checked at the end (for large bundles on a second thread, as the
//! chunks go by). [`inflate_prefix`] decompresses only the first bytes (a bundle's header and
//! entry table) and stops, which is all that listing a compressed bundle needs.

use std::io::ErrorKind::InvalidData;
use std::io::Read;

use md5::{Digest, Md5};

use super::{truncated, Blob, Header, Method};
use crate::error::{Error, Result};

/// The size of the chunks handed to a sink.
pub(crate) const CHUNK: usize = 1 << 20;

/// From this uncompressed size on, the hash is computed on a second thread.
const THREADED_HASH: u64 = 8 << 20;

/// zstd's largest window offkit accepts: 2^27 bytes (128 MiB), zstd's default limit and what
/// LLVM's long-distance matching uses. A frame asking for more is refused before anything is
/// reserved.
const ZSTD_WINDOW_LOG_MAX: u32 = 27;

/// A reader of the uncompressed bytes of `blob` (no size or hash checks).
fn decoder<'d>(blob: &Blob<'d>) -> Result<Box<dyn Read + 'd>> {
    match blob.header.method {
        Method::Zstd => {
            // Every frame in turn (skippable ones yield nothing), as `ZSTD_decompress` does.
            let mut d = zstd::stream::read::Decoder::with_buffer(blob.data)
                .map_err(|e| codec_error(&blob.header, e))?;
            d.window_log_max(ZSTD_WINDOW_LOG_MAX)
                .map_err(|e| codec_error(&blob.header, e))?;
            Ok(Box::new(d))
        }
        Method::Zlib => Ok(Box::new(flate2::read::ZlibDecoder::new(blob.data))),
    }
}

fn codec_error(h: &Header, source: std::io::Error) -> Error {
    Error::Codec {
        what: "compressed bundle",
        offset: h.offset + h.header_size,
        method: h.method.name(),
        source,
    }
}

fn decompress_error(h: &Header, reason: String) -> Error {
    Error::Decompress {
        what: "compressed bundle",
        offset: h.offset + h.header_size,
        reason,
    }
}

/// Reads into `buf` until it is full or the stream ends; the number of bytes read.
fn fill(r: &mut dyn Read, buf: &mut [u8], h: &Header) -> Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(buf.get_mut(n..).unwrap_or_default()) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(codec_error(h, e)),
        }
    }
    Ok(n)
}

/// The first `n` uncompressed bytes of `blob` (fewer if the stream is shorter), decompressing
/// no further. Memory: what is returned, plus the decompressor's window (zstd: at most the
/// window the frame declares, reserved lazily; zlib: 32 KiB). No hash check: the hash covers
/// the whole bundle.
pub fn inflate_prefix(blob: &Blob<'_>, n: u64) -> Result<Vec<u8>> {
    super::check_claim(blob)?;
    let h = &blob.header;
    let want = n.min(h.uncompressed_size);
    let mut r = decoder(blob)?;
    let mut out = Vec::new();
    // Grow by chunks, so that what is held is what the stream yielded.
    while (out.len() as u64) < want {
        let room = usize::try_from(want - out.len() as u64)
            .unwrap_or(CHUNK)
            .min(CHUNK);
        let at = out.len();
        out.resize(at + room, 0);
        let got = fill(&mut *r, out.get_mut(at..).unwrap_or_default(), h)?;
        out.truncate(at + got);
        if got < room {
            break;
        }
    }
    Ok(out)
}

/// Decompresses `blob` as a stream, handing `sink` each chunk (at most `CHUNK` bytes) until it
/// says to stop or the stream ends: for reading parts of a bundle's images without keeping the
/// rest. No size or hash check (the hash covers the whole bundle, which a reader of parts
/// does not need; [`inflate_into`] checks both), but never more than the header's size.
/// Returns how many bytes were decompressed. Memory: one chunk and the decompressor's window.
pub fn inflate_until(
    blob: &Blob<'_>,
    sink: &mut dyn FnMut(&[u8]) -> std::ops::ControlFlow<()>,
) -> Result<u64> {
    super::check_claim(blob)?;
    let h = &blob.header;
    let mut r = decoder(blob)?;
    let mut buf = vec![0u8; CHUNK];
    let mut produced = 0u64;
    while produced < h.uncompressed_size {
        let room = usize::try_from(h.uncompressed_size - produced)
            .unwrap_or(CHUNK)
            .min(CHUNK);
        let got = fill(&mut *r, buf.get_mut(..room).unwrap_or_default(), h)?;
        if got == 0 {
            break;
        }
        produced += got as u64;
        if sink(buf.get(..got).unwrap_or_default()).is_break() {
            break;
        }
    }
    Ok(produced)
}

/// The first prefix [`header_prefix`] decompresses: a bundle's header and entry table take a
/// few KiB in practice.
pub(crate) const FIRST_PREFIX: u64 = 64 << 10;

/// The first bytes of the compressed bundle `blob` that hold the binary bundle's header and
/// entry table inside it: `FIRST_PREFIX` bytes, ×4 while the table runs past them, up to
/// [`limits::MAX_INFLATED_PREFIX`](offkit_read::limits::MAX_INFLATED_PREFIX) (a longer table
/// is the parse's error, not a reason to decompress more). The caller parses what is returned:
/// a content that is no binary bundle, or whose header is bad, is returned as far as it was
/// decompressed, for the caller to judge and to word the error. `inflated` is told the length
/// of each prefix decompressed and may stop the read (a budget).
pub fn header_prefix<E: From<Error>>(
    blob: &Blob<'_>,
    mut inflated: impl FnMut(u64) -> std::result::Result<(), E>,
) -> std::result::Result<Vec<u8>, E> {
    use offkit_read::limits::MAX_INFLATED_PREFIX;
    let size = blob.header.uncompressed_size;
    let mut want = FIRST_PREFIX;
    loop {
        let prefix = inflate_prefix(blob, want)?;
        inflated(prefix.len() as u64)?;
        if !crate::bundle::binary::is_bundle(&prefix) {
            return Ok(prefix);
        }
        match crate::bundle::binary::parse(&prefix, size, 0) {
            Err(Error::Truncated { .. })
                if (prefix.len() as u64) < size && want < MAX_INFLATED_PREFIX =>
            {
                want = want.saturating_mul(4).min(MAX_INFLATED_PREFIX);
            }
            _ => return Ok(prefix),
        }
    }
}

/// Decompresses `blob`, handing the uncompressed bytes to `sink` in order, at most `CHUNK`
/// at a time. Fails (and stops calling `sink`) the moment the stream yields more bytes than the
/// header's uncompressed size; fails if it yields fewer, if bytes after the zstd frames start
/// no frame ([`super::check_claim`]), or if the hash does not match. An error from `sink` stops the stream and is returned as
/// `Err(Err(e))`; the blob's own errors as `Err(Ok(e))`.
pub fn inflate_into<E>(
    blob: &Blob<'_>,
    sink: &mut dyn FnMut(&[u8]) -> std::result::Result<(), E>,
) -> std::result::Result<(), SinkOr<E>> {
    super::check_claim(blob)?;
    let h = &blob.header;
    let mut r = decoder(blob)?;
    let expected = h.uncompressed_size;
    let mut produced = 0u64;
    let threaded = expected >= THREADED_HASH;
    let hash = std::thread::scope(|s| -> std::result::Result<u64, SinkOr<E>> {
        // Buffers go to the hashing thread and come back, so that at most a few are alive.
        let (to_hash, hashing) = std::sync::mpsc::sync_channel::<Vec<u8>>(2);
        let (to_reuse, reuse) = std::sync::mpsc::channel::<Vec<u8>>();
        let hasher = threaded.then(|| {
            s.spawn(move || {
                let mut md5 = Md5::new();
                for chunk in hashing {
                    md5.update(&chunk);
                    let _ = to_reuse.send(chunk);
                }
                md5
            })
        });
        let mut md5 = Md5::new();
        let mut to_hash = Some(to_hash);
        let result = (|| {
            loop {
                let mut buf = reuse.try_recv().unwrap_or_default();
                buf.resize(CHUNK, 0);
                let got = fill(&mut *r, &mut buf, h)?;
                if got == 0 {
                    return Ok(());
                }
                produced += got as u64;
                if produced > expected {
                    return Err(SinkOr::Format(decompress_error(
                        h,
                        format!("the stream holds more than the {expected} bytes the header gives"),
                    )));
                }
                buf.truncate(got);
                sink(&buf).map_err(SinkOr::Sink)?;
                match &to_hash {
                    Some(tx) if threaded => {
                        // The receiver lives until the sender is dropped.
                        let _ = tx.send(buf);
                    }
                    _ => md5.update(&buf),
                }
            }
        })();
        drop(to_hash.take());
        if let Some(hasher) = hasher {
            md5 = hasher.join().map_err(|_| {
                SinkOr::Format(decompress_error(h, "the hashing thread failed".into()))
            })?;
        }
        result?;
        Ok(truncated(md5))
    })?;
    if produced != expected {
        return Err(SinkOr::Format(decompress_error(
            h,
            format!("the stream holds {produced} bytes, the header says {expected}"),
        )));
    }
    super::check_hash(h, hash).map_err(SinkOr::Format)
}

/// A sink of [`inflate_ranges`]: the index of a range and bytes of it.
pub type RangeSink<'s, E> = dyn FnMut(usize, &[u8]) -> std::result::Result<(), E> + 's;

/// Decompresses `blob` as [`inflate_into`] does (with its checks), handing `sink` the bytes of
/// each of `ranges` (offsets in the decompressed data) as they come out: `sink(i, bytes)` for
/// range `i`, in stream order and, within a chunk, in the order of `ranges`. Nothing else is
/// held. Returns how many bytes the stream produced (a range past them was not filled).
pub fn inflate_ranges<E>(
    blob: &Blob<'_>,
    ranges: &[std::ops::Range<u64>],
    sink: &mut RangeSink<'_, E>,
) -> std::result::Result<u64, SinkOr<E>> {
    let mut pos = 0u64;
    inflate_into(blob, &mut |chunk: &[u8]| {
        for (i, r) in ranges.iter().enumerate() {
            let part = part_of(chunk, pos, r.clone());
            if !part.is_empty() {
                sink(i, part)?;
            }
        }
        pos += chunk.len() as u64;
        Ok(())
    })?;
    Ok(pos)
}

/// The bytes of `range` (offsets in the decompressed data) that `chunk`, which starts at
/// offset `at`, holds: what a sink of [`inflate_into`] keeps of one chunk for one image.
pub(crate) fn part_of(chunk: &[u8], at: u64, range: std::ops::Range<u64>) -> &[u8] {
    let end = at.saturating_add(chunk.len() as u64);
    let (from, to) = (range.start.max(at), range.end.min(end));
    if from >= to {
        return &[];
    }
    chunk
        .get((from - at) as usize..(to - at) as usize)
        .unwrap_or_default()
}

/// An error of [`inflate_into`]: the blob's, or the sink's.
#[derive(Debug)]
pub enum SinkOr<E> {
    /// The compressed bundle is bad.
    Format(Error),
    /// The sink failed.
    Sink(E),
}

impl<E> From<Error> for SinkOr<E> {
    fn from(e: Error) -> Self {
        SinkOr::Format(e)
    }
}

/// Where a compressed bundle's stream ends in `data` (which starts at the stream): for zstd the
/// end of its last frame, regular or skippable, before the data ends or a byte starts no frame
/// (from the frames' headers, without decompressing); for zlib where the stream ends once
/// inflated (discarding the output as it goes). For version-1 bundles, which have no total
/// size.
pub(crate) fn stream_len(h: &Header, data: &[u8]) -> Result<u64> {
    match h.method {
        Method::Zstd => super::zstd_frames(data, false)
            .map(|f| f.last().map_or(0, |f| (f.offset + f.len) as u64))
            .map_err(|reason| decompress_error(h, reason)),
        Method::Zlib => {
            let mut d = flate2::Decompress::new(true);
            let mut scratch = vec![0u8; 64 << 10];
            loop {
                let (i, o) = (d.total_in(), d.total_out());
                let st = d
                    .decompress(
                        data.get(i as usize..).unwrap_or_default(),
                        &mut scratch,
                        flate2::FlushDecompress::None,
                    )
                    .map_err(|e| codec_error(h, std::io::Error::new(InvalidData, e)))?;
                if st == flate2::Status::StreamEnd {
                    return Ok(d.total_in());
                }
                if (d.total_in(), d.total_out()) == (i, o) {
                    return Err(decompress_error(h, "the zlib stream is truncated".into()));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{blobs, compress, truncated_md5, Options};
    use super::*;

    fn sample() -> Vec<u8> {
        (0..3_000_000u32)
            .flat_map(|i| ((i / 7) % 251).to_le_bytes())
            .collect()
    }

    #[test]
    fn streams_every_version_and_method() {
        let data = sample();
        for version in [1, 2, 3] {
            for method in [Method::Zstd, Method::Zlib] {
                let c = compress(
                    &data,
                    &Options {
                        version,
                        method,
                        level: if method == Method::Zstd { 3 } else { 1 },
                        ..Options::default()
                    },
                )
                .unwrap();
                let b = &blobs(&c.bytes, 0).unwrap()[0];
                let mut out = Vec::new();
                let mut chunks = 0;
                inflate_into(b, &mut |c: &[u8]| {
                    assert!(c.len() <= CHUNK);
                    chunks += 1;
                    out.extend_from_slice(c);
                    Ok::<(), ()>(())
                })
                .unwrap();
                assert_eq!(out, data);
                assert!(chunks >= data.len() / CHUNK);
                assert_eq!(inflate_prefix(b, 100).unwrap(), &data[..100]);
                assert_eq!(
                    stream_len(&b.header, b.data).unwrap(),
                    b.data.len() as u64,
                    "v{version} {method:?}"
                );
            }
        }
        assert_eq!(truncated_md5(&data), truncated_md5(&data));
    }

    #[test]
    fn the_part_of_a_chunk_in_a_range() {
        let chunk = b"abcdef";
        assert_eq!(part_of(chunk, 10, 12..14), b"cd");
        assert_eq!(part_of(chunk, 10, 0..12), b"ab");
        assert_eq!(part_of(chunk, 10, 14..100), b"ef");
        assert_eq!(part_of(chunk, 10, 0..10), b"");
        assert_eq!(part_of(chunk, 10, 16..20), b"");
        assert_eq!(part_of(chunk, 10, 13..13), b"");
    }

    #[test]
    fn lying_sizes_stop_the_stream() {
        let data = sample();
        let c = compress(&data, &Options::default()).unwrap();
        for claim in [
            0u32,
            1,
            data.len() as u32 - 1,
            data.len() as u32 + 1,
            u32::MAX,
        ] {
            let mut bad = c.bytes.clone();
            bad[12..16].copy_from_slice(&claim.to_le_bytes());
            let b = &blobs(&bad, 0).unwrap()[0];
            let mut seen = 0u64;
            let r = inflate_into(b, &mut |c: &[u8]| {
                seen += c.len() as u64;
                Ok::<(), ()>(())
            });
            assert!(matches!(r, Err(SinkOr::Format(_))), "claim {claim}");
            assert!(seen <= u64::from(claim).max(data.len() as u64));
        }
    }

    #[test]
    fn header_prefix_grows_until_the_entry_table_parses() {
        // 3,000 entries with 60-byte IDs: an entry table of about 250 KiB, past the first
        // 64 KiB prefix but within the next (256 KiB), in a bundle of 540 KiB.
        let ids: Vec<String> = (0..3000)
            .map(|i| format!("hipv4-amdgcn-amd-amdhsa--gfx{i:04}{}", "x".repeat(24)))
            .collect();
        let payload = [7u8; 100];
        let entries: Vec<(&[u8], &[u8])> =
            ids.iter().map(|id| (id.as_bytes(), &payload[..])).collect();
        let bundle = crate::bundle::binary::write(&entries, 1).unwrap();
        let opts = Options {
            level: 1,
            ..Options::default()
        };
        let c = compress(&bundle, &opts).unwrap();
        let b = &blobs(&c.bytes, 0).unwrap()[0];
        let mut sizes = Vec::new();
        let prefix = header_prefix(b, |n| {
            sizes.push(n);
            Ok::<(), Error>(())
        })
        .unwrap();
        assert_eq!(sizes, [FIRST_PREFIX, 4 * FIRST_PREFIX]);
        assert_eq!(prefix, &bundle[..4 * FIRST_PREFIX as usize]);
        let h = crate::bundle::binary::parse(&prefix, bundle.len() as u64, 0).unwrap();
        assert_eq!(h.entries.len(), 3000);

        // Not a binary bundle: the first prefix, for the caller to judge; a budget stops it.
        let c = compress(&sample(), &opts).unwrap();
        let b = &blobs(&c.bytes, 0).unwrap()[0];
        let prefix = header_prefix(b, |_| Ok::<(), Error>(())).unwrap();
        assert_eq!(prefix, &sample()[..FIRST_PREFIX as usize]);
        let stopped = header_prefix(b, |n| {
            Err(Error::Invalid {
                what: "budget",
                offset: n,
                reason: "spent".into(),
            })
        });
        assert!(matches!(stopped, Err(Error::Invalid { offset, .. }) if offset == FIRST_PREFIX));
    }
}
