//! Fuzz body: compressed offload bundles (`bundle::compressed`, strict and LLVM 19 and 22
//! readers).

use offkit_format::bundle::compressed;

/// The most a fuzz input may inflate to (keeps runs fast; bombs must be refused by the header
/// checks long before this).
const LIMIT: u64 = 64 << 20;

/// Reads `data` as concatenated compressed bundles (strict) and as LLVM 19 does. Whatever the
/// strict reader accepts must compress back to something that decompresses to the same bytes.
pub fn run(data: &[u8]) {
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
    // LLVM 19 allocates the uncompressed size field; keep the fuzzer's memory bounded.
    let claimed = data.get(8..16).map_or(0, |b| {
        let v2 = u32::from_le_bytes([b[4], b[5], b[6], b[7]]);
        let v1 = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        v1.max(v2)
    });
    if u64::from(claimed) <= LIMIT {
        let _ = compressed::decompress_llvm19(data);
    }
    // LLVM 22 reads version 3's 64-bit size too.
    let claimed22 = data
        .get(16..24)
        .map_or(0, |b| u64::from_le_bytes(b.try_into().unwrap_or_default()));
    if u64::from(claimed) <= LIMIT && claimed22 <= LIMIT {
        let _ = compressed::decompress_llvm(data, offkit_llvm::LlvmVersion::V22);
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
        assert!(seeds.len() >= 4, "fuzz/seeds/compressed is missing");
        for input in crate::mutations(&seeds, 500) {
            super::run(&input);
        }
    }
}
