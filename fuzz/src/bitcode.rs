//! Fuzz body: LLVM bitcode (`bitcode::parse`, `embedded_objects`, `symbol_table`, and the raw
//! bitstream reader).

use std::borrow::Cow;

use offkit_format::binary;
use offkit_llvm::bitcode::{self, bitstream};

/// How many bitstream entries the raw walk reads per input, so that one input stays fast.
const MAX_ENTRIES: usize = 20_000;

/// Reads `data` every way offkit reads bitcode. Nothing may panic; borrowed embedded bytes
/// must be the input's bytes at the reported offset; archive symbols must be symbols of the
/// table; whatever embedded bytes parse as offload binaries must be inside the embedded data.
pub fn run(data: &[u8]) {
    walk(data);
    if let Ok(file) = bitcode::parse(data, 0) {
        for m in &file.modules {
            let _ = m.header();
        }
        let _ = file.symtab();
    }
    if let Ok(objects) = bitcode::embedded_objects(data, 0) {
        for e in &objects {
            if let Cow::Borrowed(b) = &e.data {
                let at = usize::try_from(e.offset).expect("offset fits");
                assert_eq!(
                    data.get(at..at + b.len()),
                    Some(*b),
                    "borrowed bytes are the input's"
                );
            }
            for b in binary::parse_all(&e.data, e.offset) {
                let Ok(b) = b else { break };
                for entry in &b.entries {
                    assert!(entry.image.len() <= e.data.len());
                }
            }
        }
    }
    if let Ok(t) = bitcode::symbol_table(data, 0) {
        for s in &t.symbols {
            let _ = (s.nm_letter(), s.visibility());
            if let Some(c) = s.comdat {
                assert!((c as usize) < t.comdats.len());
            }
            assert!(s.module < t.modules.len());
        }
        let names = bitcode::archive_symbols(data, 0).expect("the table was read once");
        assert!(names.len() <= t.symbols.len());
    }
}

/// Walks the raw bitstream after the magic: enters every block, reads block info, decodes every
/// record's operands, bytes and blob.
fn walk(data: &[u8]) {
    let Some(body) = data.strip_prefix(&bitcode::MAGIC) else {
        return;
    };
    let mut c = bitstream::Cursor::new(body, 4, 0);
    for _ in 0..MAX_ENTRIES {
        match c.advance() {
            Ok(bitstream::Entry::SubBlock { id: 0, .. }) => {
                if c.read_blockinfo().is_err() {
                    return;
                }
            }
            Ok(bitstream::Entry::SubBlock { id, .. }) => {
                if c.enter_block(id).is_err() {
                    return;
                }
            }
            Ok(bitstream::Entry::EndBlock) => {}
            Ok(bitstream::Entry::Record(r)) => {
                let n = r.ops().take(1 << 16).filter(Result::is_ok).count();
                let _ = (n, r.bytes(), r.blob(), r.first::<4>());
            }
            Err(_) => return,
        }
        if c.bits().at_end() {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn seeds_and_mutations() {
        let seeds = crate::seeds("bitcode");
        assert!(
            seeds.len() >= 8,
            "fuzz/seeds/bitcode has the generated seeds"
        );
        // The seeds themselves read as expected.
        let mut embedded = 0;
        let mut symbols = 0;
        for s in &seeds {
            embedded += offkit_llvm::bitcode::embedded_objects(s, 0).map_or(0, |v| v.len());
            symbols += offkit_llvm::bitcode::symbol_table(s, 0).map_or(0, |t| t.symbols.len());
        }
        assert!(embedded >= 7, "{embedded} embedded objects in the seeds");
        assert!(symbols >= 20, "{symbols} symbols in the seeds");
        for input in crate::mutations(&seeds, 300) {
            super::run(&input);
        }
    }
}
