//! LLVM's `StringTableBuilder` (`llvm/MC/StringTableBuilder.cpp`, ELF kind, optimised
//! `finalize()`), as the offload binary writer and ELF string tables use it: distinct strings
//! sorted by their reversed bytes, descending, with tail sharing.

use std::cmp::Ordering;
use std::collections::HashMap;

/// A finished string table: its bytes and each string's offset in it.
#[derive(Debug, Clone)]
pub struct StringTable<'a> {
    bytes: Vec<u8>,
    offsets: HashMap<&'a [u8], u64>,
}

impl<'a> StringTable<'a> {
    /// Builds the table for `strings` (duplicates collapse; order does not matter).
    pub fn build(strings: impl IntoIterator<Item = &'a [u8]>) -> Self {
        let mut uniq: Vec<&'a [u8]> = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for s in strings {
            if seen.insert(s) {
                uniq.push(s);
            }
        }
        // Descending by reversed bytes; a string that is a suffix of another sorts after it.
        uniq.sort_by(|a, b| reversed_desc(a, b));
        let mut size: u64 = 1;
        let mut offsets = HashMap::new();
        let mut previous: &[u8] = &[];
        for s in uniq {
            if previous.ends_with(s) {
                offsets.insert(s, size - s.len() as u64 - 1);
                continue;
            }
            offsets.insert(s, size);
            size += s.len() as u64 + 1;
            previous = s;
        }
        offsets.insert(&[][..], 0);
        let mut bytes = vec![0u8; size as usize];
        for (s, &o) in &offsets {
            let o = o as usize;
            bytes[o..o + s.len()].copy_from_slice(s);
        }
        StringTable { bytes, offsets }
    }

    /// The table's bytes (starting with the NUL of the empty string).
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The offset of `s`, which must have been given to [`StringTable::build`].
    pub fn offset(&self, s: &[u8]) -> Option<u64> {
        self.offsets.get(s).copied()
    }
}

fn reversed_desc(a: &[u8], b: &[u8]) -> Ordering {
    for (x, y) in a.iter().rev().zip(b.iter().rev()) {
        if x != y {
            return y.cmp(x);
        }
    }
    b.len().cmp(&a.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_example() {
        let t = StringTable::build([&b"arch"[..], b"", b"triple", b"x86_64-pc-linux-gnu"]);
        assert_eq!(t.bytes(), b"\0x86_64-pc-linux-gnu\0arch\0triple\0");
        assert_eq!(t.offset(b""), Some(0));
        assert_eq!(t.offset(b"arch"), Some(0x15));
    }

    #[test]
    fn tail_sharing() {
        let t = StringTable::build([&b"x86_64-pc-linux-gnu"[..], b"gnu"]);
        assert_eq!(t.bytes(), b"\0x86_64-pc-linux-gnu\0");
        assert_eq!(t.offset(b"gnu"), Some(17));
    }
}
