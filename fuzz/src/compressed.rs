//! Fuzz body: compressed offload bundles (`bundle::compressed`: the strict reader, with zstd
//! streams of several frames, skippable ones included, and zero padding between bundles; and
//! LLVM 19's and 22's readers, and LLVM 22's object layer's).

use offkit_format::bundle::compressed;
use offkit_llvm::LlvmVersion;

/// The most a fuzz input may inflate to (keeps runs fast; bombs must be refused by the header
/// checks long before this).
const LIMIT: u64 = 64 << 20;

/// Reads `data` as concatenated compressed bundles (strict) and as LLVM 19 and 22 do. Whatever
/// the strict reader accepts must compress back to something that decompresses to the same
/// bytes, and each blob's frames must cover its stream.
pub fn run(data: &[u8]) {
    if let Ok(blobs) = compressed::blobs(data, 0) {
        for b in &blobs {
            if b.header.method == compressed::Method::Zstd {
                if let Ok(frames) = compressed::zstd_frames(b.data, true) {
                    let end = frames.last().map_or(0, |f| f.offset + f.len);
                    assert_eq!(end, b.data.len(), "the frames cover the stream");
                }
            }
            if compressed::check_claim(b).is_ok() {
                let _ = compressed::stream::inflate_prefix(b, 4096);
            }
        }
    }
    if let Ok(all) = compressed::decompress_all(data, 0, LIMIT) {
        for (h, bytes) in all {
            let opts = compressed::Options {
                version: h.version,
                method: h.method,
                level: 1,
                ..compressed::Options::default()
            };
            let c = compressed::compress(&bytes, &opts).expect("decompressed data compresses");
            let back = compressed::decompress_all(&c.bytes, 0, LIMIT).expect("round trip");
            assert_eq!(back.len(), 1);
            assert_eq!(back[0].1, bytes);
        }
    }
    // LLVM allocates the uncompressed size field; keep the fuzzer's memory bounded (a version-3
    // header has its uncompressed size at 16).
    let word = |at: usize| {
        data.get(at..at + 8)
            .and_then(|b| b.try_into().ok())
            .map_or(0, u64::from_le_bytes)
    };
    let claimed = (word(8) & 0xffff_ffff)
        .max(word(8) >> 32)
        .max(word(12) >> 32)
        .max(word(16));
    if claimed <= LIMIT {
        for v in LlvmVersion::ALL {
            if let Ok(d) = compressed::decompress_llvm(v, data) {
                if let Some(h) = d.header {
                    assert!(d.data.len() as u64 <= h.uncompressed_size.max(1));
                }
            }
        }
        // LLVM 22's object layer (llvm-objdump): the same, the stream cut at the total size.
        if let Ok(d) = compressed::decompress_llvm_object(data) {
            if let Some(h) = d.header {
                assert!(d.data.len() as u64 <= h.uncompressed_size.max(1));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use offkit_format::bundle::compressed;

    #[test]
    fn seeds_and_mutations() {
        let mut seeds = crate::seeds("compressed");
        for (version, method) in [
            (1, compressed::Method::Zstd),
            (2, compressed::Method::Zstd),
            (3, compressed::Method::Zlib),
        ] {
            let opts = compressed::Options {
                version,
                method,
                ..compressed::Options::default()
            };
            seeds.push(
                compressed::compress(b"__CLANG_OFFLOAD_BUNDLE__ some bundle bytes", &opts)
                    .unwrap()
                    .bytes,
            );
        }
        // A stream that starts with a skippable frame, and two bundles with padding between.
        let bundle = b"__CLANG_OFFLOAD_BUNDLE__ more bundle bytes".to_vec();
        let frame = compressed::compress_stream(&bundle, &compressed::Options::default()).unwrap();
        let mut stream = 0x184D_2A50u32.to_le_bytes().to_vec();
        stream.extend_from_slice(&3u32.to_le_bytes());
        stream.extend_from_slice(b"abc");
        stream.extend_from_slice(&frame);
        let mut v3 = compressed::MAGIC.to_vec();
        v3.extend_from_slice(&3u16.to_le_bytes());
        v3.extend_from_slice(&1u16.to_le_bytes());
        v3.extend_from_slice(&(32 + stream.len() as u64).to_le_bytes());
        v3.extend_from_slice(&(bundle.len() as u64).to_le_bytes());
        v3.extend_from_slice(&compressed::truncated_md5(&bundle).to_le_bytes());
        v3.extend_from_slice(&stream);
        let mut padded = v3.clone();
        padded.resize(256, 0);
        padded.extend_from_slice(&v3);
        padded.resize(512, 0);
        seeds.push(v3);
        seeds.push(padded);
        assert!(seeds.len() >= 4, "fuzz/seeds/compressed is missing");
        for input in crate::mutations(&seeds, 500) {
            super::run(&input);
        }
    }
}
