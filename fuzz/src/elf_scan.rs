//! Fuzz body: the scanner on object files (`scan::walk` over ELF, with entry tables).

use offkit_format::scan::{self, Event, Options};
use offkit_format::Error;

/// Walks `data` as an input file. Whether or not the walk succeeds, every image it reports
/// whose offset counts in the input must be exactly the input's bytes at that offset, and the
/// entry tables must lie in the input.
pub fn run(data: &[u8]) {
    // The flat list of offload binaries (the packager's and the linker wrapper's reading) on the
    // same bytes: it must not panic either.
    let _ = offkit_format::scan::all_binaries(data, 0);
    // Walked as `extract` walks (compressed bundles decompressed whole) and as `inspect` does
    // (as far as their entry tables, then the first bytes of each image).
    for inflate in [scan::Inflate::Whole, scan::Inflate::Headers] {
        check(
            data,
            &mut Options {
                entry_tables: scan::EntryTables::All,
                inflate,
                kernels: true,
                resolver: None,
            },
        );
    }
}

/// The shared check of the scanner fuzz bodies.
pub fn check(data: &[u8], opts: &mut Options<'_>) {
    let len = data.len() as u64;
    let _ = scan::walk(data, "fuzz", opts, &mut |ev| {
        let in_input = |l: &scan::Location| l.in_file() && l.thin_member().is_none();
        match ev {
            Event::Image(img) => {
                let i = img.info;
                // Whole, an image's bytes are all of it; otherwise a prefix.
                if img.whole {
                    assert_eq!(i.size, img.bytes.len() as u64);
                } else {
                    assert!(img.bytes.len() as u64 <= i.size, "more bytes than its size");
                }
                // (An empty section may claim any offset; only contents must be in the input.)
                if in_input(&i.location) && !img.bytes.is_empty() {
                    let at = usize::try_from(i.offset).expect("offset");
                    assert_eq!(
                        data.get(at..at + img.bytes.len()),
                        Some(img.bytes),
                        "{} is not at its offset",
                        i.location
                    );
                }
            }
            Event::Table(t) if in_input(&t.location) && !t.entries.is_empty() => {
                let end = t
                    .offset
                    .checked_add(t.layout.stride * t.entries.len() as u64);
                assert!(end.is_some_and(|e| e <= len), "table past the end");
            }
            Event::Container(c) if in_input(&c.location) && c.size > 0 => {
                let end = c.offset.checked_add(c.size);
                assert!(end.is_some_and(|e| e <= len), "container past the end");
            }
            _ => {}
        }
        Ok::<(), Error>(())
    });
}

#[cfg(test)]
mod tests {
    #[test]
    fn seeds_and_mutations() {
        let seeds = crate::seeds("elf_scan");
        assert!(!seeds.is_empty());
        for input in crate::mutations(&seeds, 300) {
            super::run(&input);
        }
    }
}
