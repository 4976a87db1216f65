//! Fuzz body: offload bundles (`bundle::binary` strict, LLVM 19 and LLVM 22 object-layer
//! readers, `bundle::text`).

use offkit_format::bundle::{binary, text};

/// Parses `data` as a binary bundle (strict and LLVM 19) and as a text bundle of each comment
/// kind. Whatever the strict readers accept must be written back to a bundle that reads the
/// same; the LLVM 19 readers must not panic, and must accept whatever the strict one accepts.
pub fn run(data: &[u8]) {
    if let Ok(h) = binary::parse(data, data.len() as u64, 0) {
        let entries: Vec<(&[u8], &[u8])> = h
            .entries
            .iter()
            .map(|e| {
                (
                    e.id,
                    e.payload(data).expect("a strict entry is in the file"),
                )
            })
            .collect();
        let out = binary::write(&entries, 1).expect("parsed entries can be written");
        let back = binary::parse(&out, out.len() as u64, 0).expect("a written bundle parses");
        assert_eq!(back.entries.len(), entries.len());
        for (b, (id, payload)) in back.entries.iter().zip(&entries) {
            assert_eq!(b.id, *id);
            assert_eq!(b.payload(&out), Some(*payload));
        }
        match binary::parse_llvm19(data) {
            binary::Llvm19::Entries(e) => assert_eq!(e, h.entries),
            other => panic!("LLVM 19 reader disagrees: {other:?}"),
        }
    }
    if let binary::Llvm19::Entries(e) = binary::parse_llvm19(data) {
        let _ = binary::llvm19_order(&e);
    }
    // LLVM 22's object layer (llvm-objdump) reads at most what the buffer holds, and whatever
    // the strict reader accepts.
    if let Ok(e) = binary::parse_llvm_object(data) {
        assert!(e.len() as u64 * binary::RECORD_FIXED <= data.len() as u64);
        if let Ok(h) = binary::parse(data, data.len() as u64, 0) {
            assert_eq!(e, h.entries);
        }
    }
    for c in [
        text::Comment::Slash,
        text::Comment::Hash,
        text::Comment::Semicolon,
    ] {
        if let Ok(entries) = text::parse(data, c, 0) {
            let pairs: Vec<(&[u8], &[u8])> = entries.iter().map(|e| (e.id, e.payload)).collect();
            let out = text::write(c, &pairs);
            let back = text::parse(&out, c, 0).expect("a written text bundle parses");
            assert_eq!(back.len(), pairs.len());
            for (b, (id, payload)) in back.iter().zip(&pairs) {
                assert_eq!((b.id, b.payload), (*id, *payload));
            }
        }
        let _ = text::Llvm19Reader::list(data, c);
        let mut r = text::Llvm19Reader::new(data, c);
        for _ in 0..64 {
            if r.read_bundle_start().is_none() || r.read_bundle().is_err() {
                break;
            }
            r.read_bundle_end();
        }
    }
}

#[cfg(test)]
mod tests {
    use offkit_format::bundle::{binary, text};

    #[test]
    fn seeds_and_mutations() {
        let mut seeds = crate::seeds("bundle");
        seeds.push(
            binary::write(
                &[
                    (b"host-x86_64-unknown-linux-gnu-", b"\x7fELF host"),
                    (b"hip-amdgcn-amd-amdhsa--gfx90a", b"device code"),
                ],
                8,
            )
            .unwrap(),
        );
        seeds.push(text::write(
            text::Comment::Slash,
            &[
                (b"host-x86_64-unknown-linux-gnu-", b"int x;\n"),
                (b"openmp-x86_64-pc-linux-gnu-", b""),
            ],
        ));
        assert!(seeds.len() >= 3, "fuzz/seeds/bundle is missing");
        for input in crate::mutations(&seeds, 2000) {
            super::run(&input);
        }
    }
}
