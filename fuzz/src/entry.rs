//! Fuzz body: offload entry tables (`entry::parse_raw`, `entry::detect_layout`,
//! `entry::read_tables`), both layouts (LLVM 19's 32 bytes, LLVM 20+'s 56) in every section.

use offkit_format::entry::{self, Endianness, Format, Layout, RawEntry, TableKind};
use offkit_format::kind::OffloadKind;
use offkit_llvm::LlvmVersion;

/// The layout a fuzz input's first byte selects: bit 0 the format, bit 1 the pointer size,
/// bit 2 the endianness, bit 3 the alignment of `i64` on 32-bit hosts.
pub fn layout_of(selector: u8) -> (Layout, Endianness) {
    let format = if selector & 1 == 0 {
        Format::Legacy
    } else {
        Format::Llvm
    };
    let pointer_size = if selector & 2 == 0 { 8 } else { 4 };
    let endian = if selector & 4 == 0 {
        Endianness::Little
    } else {
        Endianness::Big
    };
    let i64_align = if selector & 8 == 0 { 8 } else { 4 };
    (Layout::of(format, pointer_size, i64_align), endian)
}

fn put(out: &mut [u8], at: u64, width: u8, v: u64, endian: Endianness) {
    let at = at as usize;
    let w = usize::from(width);
    let bytes = match endian {
        Endianness::Little => v.to_le_bytes()[..w].to_vec(),
        Endianness::Big => v.to_be_bytes()[8 - w..].to_vec(),
    };
    out[at..at + w].copy_from_slice(&bytes);
}

/// Writes `entries` back in `layout` over a copy of `original` (padding bytes that no field
/// covers keep their value).
pub fn encode(
    entries: &[RawEntry],
    layout: Layout,
    endian: Endianness,
    original: &[u8],
) -> Vec<u8> {
    let mut out = original.to_vec();
    let p = layout.pointer_size;
    for (i, e) in entries.iter().enumerate() {
        let at = i as u64 * layout.stride;
        put(&mut out, at + layout.addr_offset(), p, e.addr, endian);
        put(&mut out, at + layout.name_offset(), p, e.name, endian);
        match layout.format {
            Format::Legacy => {
                put(&mut out, at + layout.size_offset(), p, e.size, endian);
                let after = layout.size_offset() + u64::from(p);
                put(&mut out, at + after, 4, u64::from(e.flags), endian);
                put(&mut out, at + after + 4, 4, e.data, endian);
            }
            Format::Llvm => {
                put(&mut out, at, 8, e.reserved, endian);
                put(&mut out, at + 8, 2, u64::from(e.version), endian);
                put(&mut out, at + 10, 2, u64::from(e.kind), endian);
                put(&mut out, at + 12, 4, u64::from(e.flags), endian);
                put(&mut out, at + layout.size_offset(), 8, e.size, endian);
                put(&mut out, at + layout.size_offset() + 8, 8, e.data, endian);
                let aux = layout.aux_addr_offset().unwrap_or_default();
                put(&mut out, at + aux, p, e.aux_addr, endian);
            }
        }
    }
    out
}

/// The first byte picks a layout (see [`layout_of`]); the rest is a table. Whatever parses must
/// encode back to the same bytes and decode to the same entries, and every entry must describe
/// itself for every programming model. The whole input is also read as an ELF file's tables.
pub fn run(data: &[u8]) {
    if let Ok(tables) = entry::read_tables(data, 0) {
        for t in tables.iter().flatten() {
            assert_eq!(t.entries.len() as u64 * t.layout.stride, {
                let e = t
                    .entries
                    .last()
                    .map_or(t.offset, |e| e.raw.offset + t.layout.stride);
                e - t.offset
            });
            for e in &t.entries {
                let _ = e.describe();
            }
        }
    }
    let Some((&selector, table)) = data.split_first() else {
        return;
    };
    let (layout, endian) = layout_of(selector);
    // Whatever layout the bytes are taken for, it has the host's pointer size, and a table of
    // the section's own layout that parses as 56-byte entries is read as such.
    for kind in TableKind::ALL {
        let d = entry::detect_layout(table, kind, layout.pointer_size, 8, endian);
        assert_eq!(d.pointer_size, layout.pointer_size);
        if d.format == Format::Llvm && kind.format() == Format::Legacy {
            let e = entry::parse_raw(table, d, endian, 0).expect("a detected table parses");
            assert!(e.iter().all(|e| e.reserved == 0));
        }
    }
    let Ok(entries) = entry::parse_raw(table, layout, endian, 1) else {
        return;
    };
    assert_eq!(entries.len() as u64 * layout.stride, table.len() as u64);
    let out = encode(&entries, layout, endian, table);
    assert_eq!(out, table, "re-encoding changed the table");
    let back = entry::parse_raw(&out, layout, endian, 1).expect("re-encoded table parses");
    assert_eq!(back, entries);
    for e in &entries {
        for kind in [OffloadKind::OpenMp, OffloadKind::Cuda, OffloadKind::Hip] {
            for v in LlvmVersion::ALL {
                let d = entry::describe(v, kind, e.flags, e.size, e.data);
                // Every flag bit is named or reported as unknown.
                assert!(d.unknown_flags & !e.flags == 0);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn seeds_and_mutations() {
        let seeds = crate::seeds("entry");
        assert!(!seeds.is_empty());
        for input in crate::mutations(&seeds, 2000) {
            super::run(&input);
        }
    }
}
