//! Fuzz body: CUDA fat binaries (`fatbin::parse_all`, `Entry::contents`).

use offkit_format::fatbin;

/// The most a fuzz input's entry may decompress to (keeps runs fast; larger claims must be
/// refused by the header checks long before this).
const LIMIT: u64 = 64 << 20;

/// Reads `data` as a section of fat binaries. Whatever parses must round-trip: each header
/// written back gives the bytes it was read from, each entry's data lies where it says, and a
/// decompressed entry has exactly the size its header gives.
pub fn run(data: &[u8]) {
    let Ok(all) = fatbin::parse_all(data, 0) else {
        return;
    };
    for fb in &all {
        let at = fb.offset as usize;
        assert_eq!(&data[at..at + 16], &fb.header.to_bytes());
        for e in &fb.entries {
            let at = e.offset as usize;
            assert_eq!(&data[at..at + 64], &e.raw.to_bytes());
            let d = e.data_offset as usize;
            assert_eq!(&data[d..d + e.data.len()], e.data);
            assert!(e.data_offset + e.data.len() as u64 <= fb.offset + fb.size());
            if e.compression.is_some() && e.raw.uncompressed_size > LIMIT {
                continue;
            }
            if let Ok(c) = e.contents() {
                assert_eq!(c.len() as u64, e.size());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn seeds_and_mutations() {
        let seeds = crate::seeds("fatbin");
        assert!(!seeds.is_empty(), "fuzz/seeds/fatbin is missing");
        for input in crate::mutations(&seeds, 2000) {
            super::run(&input);
        }
    }
}
