//! Fuzz body: offload binaries (`binary::parse_all`).

use offkit_format::binary::{self, ImageSpec};

/// Parses `data` as concatenated offload binaries; every version-1 entry that parses must be
/// written back to a binary that parses to the same entry.
pub fn run(data: &[u8]) {
    for b in binary::parse_all(data, 0) {
        let Ok(b) = b else { break };
        for e in &b.entries {
            if b.version != 1 {
                continue;
            }
            let spec = ImageSpec {
                image_kind: e.image_kind,
                offload_kind: e.offload_kind,
                flags: e.flags,
                strings: e
                    .strings
                    .iter()
                    .map(|(k, v)| (k.as_ref(), v.as_ref()))
                    .collect(),
            };
            let out = binary::write_v1(&spec, &e.image).expect("a parsed entry can be written");
            let back = binary::parse_one(&out, 0).expect("a written binary parses");
            let mut again = back.entries[0].clone();
            again.image_offset = e.image_offset;
            assert_eq!(&again, e, "round trip changed the entry");
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn seeds_and_mutations() {
        let mut seeds = crate::seeds("binary");
        seeds.push(
            offkit_format::binary::write_v1(
                &offkit_format::binary::ImageSpec {
                    image_kind: offkit_format::kind::ImageKind::Object,
                    offload_kind: offkit_format::kind::OffloadKind::OpenMp,
                    flags: 0,
                    strings: vec![(b"triple", b"x86_64-pc-linux-gnu"), (b"arch", b"")],
                },
                b"\x7fELF image",
            )
            .unwrap(),
        );
        assert!(!seeds.is_empty());
        for input in crate::mutations(&seeds, 2000) {
            super::run(&input);
        }
    }
}
