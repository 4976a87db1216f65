//! Fuzz body: sequences of bundles (`bundle::sequence`, the `.hip_fatbin` walker) and the
//! streamed decompression of their compressed bundles (`bundle::compressed::stream`: the whole,
//! a prefix, and the prefix that holds the entry table).

use offkit_format::bundle::{compressed, sequence};

/// The most a fuzz input's compressed bundle may claim before it is streamed (keeps runs fast;
/// what it claims beyond the stream's reach is refused by the header checks).
const LIMIT: u64 = 64 << 20;

/// Walks `data` as a sequence of bundles. Every bundle must lie inside `data`, start at or after
/// the previous one's end, and be what its kind says; a compressed bundle's prefix must be a
/// prefix of its whole decompressed contents, and the whole must never exceed the header's
/// size.
pub fn run(data: &[u8]) {
    let mut end = 0u64;
    for piece in sequence::sequence(data, 0x1000) {
        let Ok(p) = piece else { break };
        assert!(p.offset >= 0x1000 + end, "bundles overlap");
        end = p.offset - 0x1000 + p.data.len() as u64;
        assert!(end <= data.len() as u64);
        match &p.kind {
            sequence::Kind::Plain(h) => {
                for e in &h.entries {
                    assert!(e.payload(p.data).is_some(), "a payload outside its bundle");
                }
            }
            sequence::Kind::Compressed(blob) => {
                if blob.header.uncompressed_size > LIMIT {
                    continue;
                }
                let prefix = compressed::stream::inflate_prefix(blob, 4096);
                let head =
                    compressed::stream::header_prefix(blob, |_| Ok::<(), offkit_format::Error>(()));
                let mut whole = Vec::new();
                let r = compressed::stream::inflate_into(blob, &mut |c: &[u8]| {
                    whole.extend_from_slice(c);
                    Ok::<(), ()>(())
                });
                assert!(whole.len() as u64 <= blob.header.uncompressed_size);
                if let (Ok(head), Ok(())) = (&head, &r) {
                    assert!(whole.starts_with(head), "the header prefix is no prefix");
                }
                if let (Ok(prefix), Ok(())) = (prefix, r) {
                    assert_eq!(&whole[..prefix.len()], &prefix[..]);
                    assert_eq!(
                        compressed::decompress_blob(blob, LIMIT).expect("streamed: so whole"),
                        whole
                    );
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use offkit_format::bundle::{binary, compressed};

    #[test]
    fn seeds_and_mutations() {
        let mut seeds = crate::seeds("bundle_sequence");
        let plain = binary::write(
            &[
                (b"host-x86_64-unknown-linux--", b""),
                (b"hipv4-amdgcn-amd-amdhsa--gfx90a", b"\x7fELF code"),
            ],
            64,
        )
        .unwrap();
        let mut section = Vec::new();
        for (version, method) in [
            (0, compressed::Method::Zstd),
            (1, compressed::Method::Zlib),
            (2, compressed::Method::Zstd),
            (3, compressed::Method::Zlib),
            (1, compressed::Method::Zstd),
        ] {
            let b = if version == 0 {
                plain.clone()
            } else {
                let opts = compressed::Options {
                    version,
                    method,
                    ..compressed::Options::default()
                };
                compressed::compress(&plain, &opts).unwrap().bytes
            };
            section.extend_from_slice(&b);
            section.resize(section.len().div_ceil(256) * 256, 0);
        }
        seeds.push(section);
        for input in crate::mutations(&seeds, 300) {
            super::run(&input);
        }
    }
}
