//! Fuzz body: offload binaries of every version (`binary::parse_all`), and the LLVM 19
//! `DenseMap` key order.

use offkit_format::binary::{self, Compression, CompressionFormat, Image, Version};
use offkit_llvm::adt::densemap;

/// Parses `data` as concatenated offload binaries. Whatever parses must round-trip: written
/// again in its version (and compression method), it reads back to the same entries. The
/// key-order model must also hold on keys taken from the input.
pub fn run(data: &[u8]) {
    for b in binary::parse_all(data, 0) {
        let Ok(b) = b else { break };
        let version = Version::from_raw(b.version).expect("a parsed binary has a known version");
        let images: Vec<Image<'_>> = b.entries.iter().map(|e| e.as_image()).collect();
        if images.is_empty() {
            // A version-2/3 header may count no entries; there is nothing to write back.
            continue;
        }
        let compression = match b.compression.map(|c| c.format) {
            None => Compression::None,
            Some(CompressionFormat::Zlib) => Compression::Zlib { level: 1 },
            Some(CompressionFormat::Zstd) => Compression::Zstd { level: 1 },
        };
        let out = binary::write(version, &images, compression, offkit_llvm::LlvmVersion::V22)
            .expect("a parsed binary can be written");
        let back: Vec<_> = binary::parse_all(&out, 0)
            .collect::<Result<_, _>>()
            .expect("a written binary parses");
        let again: Vec<Image<'_>> = back
            .iter()
            .flat_map(|b| b.entries.iter().map(|e| e.as_image()))
            .collect();
        assert_eq!(again, images, "round trip changed the entries");
    }
    // The DenseMap model: every key once, whatever the keys.
    let keys: Vec<&[u8]> = data.split(|&c| c == b',').take(512).collect();
    let order = densemap::iteration_order(&keys);
    let mut distinct: Vec<&[u8]> = keys.clone();
    distinct.sort();
    distinct.dedup();
    assert_eq!(order.len(), distinct.len());
}

#[cfg(test)]
mod tests {
    #[test]
    fn seeds_and_mutations() {
        let seeds = crate::seeds("binary");
        assert!(seeds.len() >= 7, "fuzz/seeds/binary holds the seed corpus");
        for input in crate::mutations(&seeds, 2000) {
            super::run(&input);
        }
    }
}
