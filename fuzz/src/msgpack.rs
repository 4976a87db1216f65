//! Fuzz body: msgpack (`msgpack::Cursor`) and the AMDGPU metadata read from it
//! (`code_object::amdgpu::read`).

use offkit_format::code_object::amdgpu;
use offkit_format::msgpack::Cursor;

/// Reads `data` as a sequence of msgpack values, skipping each whole, and as AMDGPU metadata.
/// No panic; an error names an offset inside the data (or its end); a sequence that reads to
/// the end consumed every byte; the kernels read are at most the values there are.
pub fn run(data: &[u8]) {
    let base = 0x1000u64;
    let end = base + data.len() as u64;
    let mut c = Cursor::new(data, base);
    while !c.is_empty() {
        let before = c.offset();
        match c.skip() {
            Ok(()) => assert!(c.offset() > before, "a value takes at least one byte"),
            Err(e) => {
                let at = e.offset().expect("msgpack errors have offsets");
                assert!((base..=end).contains(&at), "{e}");
                break;
            }
        }
    }
    match amdgpu::read(data, base) {
        Ok(kernels) => assert!(kernels.len() <= data.len()),
        Err(e) => {
            let at = e.offset().expect("metadata errors have offsets");
            assert!((base..=end).contains(&at), "{e}");
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn seeds_and_mutations() {
        let seeds = crate::seeds("msgpack");
        assert!(seeds.len() >= 2, "fuzz/seeds/msgpack is missing");
        for input in crate::mutations(&seeds, 2000) {
            super::run(&input);
        }
    }
}
