//! Fuzz body: the attributes of a cubin's `.nv.info` sections (`nvinfo::attributes`).

use offkit_format::nvinfo::{self, Value};

/// Reads `data` as a `.nv.info` section. No panic; records are in order, each inside the data;
/// an error names an offset inside it and ends the iteration; and when every record reads, the
/// records written back are the data.
pub fn run(data: &[u8]) {
    let base = 0x40u64;
    let mut written = Vec::new();
    let mut failed = false;
    let mut count = 0usize;
    for a in nvinfo::attributes(data, base) {
        assert!(!failed, "a record after an error");
        count += 1;
        assert!(
            count <= data.len() / 4 + 1,
            "more records than the data holds"
        );
        match a {
            Ok(a) => {
                assert_eq!(
                    a.offset,
                    base + written.len() as u64,
                    "records are contiguous"
                );
                let (format, half, body): (u8, u16, &[u8]) = match a.value {
                    Value::None => (1, 0, &[]),
                    Value::Byte(b) => (2, u16::from(b), &[]),
                    Value::Half(h) => (3, h, &[]),
                    Value::Data(d) => (4, d.len() as u16, d),
                };
                written.extend([format, a.attribute]);
                // A byte value is stored in the low byte of the half word; the high byte is not
                // kept, so compare what was there.
                let at = written.len();
                let stored = data.get(at..at + 2).expect("record inside the data");
                if format == 2 {
                    written.extend([half as u8, stored[1]]);
                } else if format == 1 {
                    written.extend_from_slice(stored);
                } else {
                    written.extend(half.to_le_bytes());
                }
                written.extend_from_slice(body);
                let _ = a.function_value();
            }
            Err(e) => {
                failed = true;
                let at = e.offset().expect("errors have offsets");
                assert!(at >= base && at <= base + data.len() as u64, "{e}");
            }
        }
    }
    if !failed {
        assert_eq!(written, data, "records written back");
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn seeds_and_mutations() {
        let seeds = crate::seeds("nvinfo");
        assert!(seeds.len() >= 5, "fuzz/seeds/nvinfo is missing");
        for input in crate::mutations(&seeds, 2000) {
            super::run(&input);
        }
    }
}
