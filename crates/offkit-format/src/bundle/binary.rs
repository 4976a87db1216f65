//! The binary bundle format (`-type=bc`, `gch`, `ast`, and `o`/`a` for non-object inputs).
//!
//! ```text
//! off 0   "__CLANG_OFFLOAD_BUNDLE__"      24 bytes
//! off 24  n                               u64le
//!         n × { offset u64le, size u64le, id length u64le, id bytes }
//!         zero padding, payloads at their offsets (each aligned to -bundle-align)
//! ```

use std::ops::Range;

use crate::error::{Error, Result};
use offkit_llvm::adt::stringmap::StringMap;
use offkit_read::limits;
use offkit_read::Reader;

use super::{align_to, MAGIC};

/// The size of the fixed part of the header: the magic and the entry count.
pub(crate) const FIXED_HEADER: u64 = 32;

/// The size of the fixed part of one entry record: offset, size and ID length.
pub const RECORD_FIXED: u64 = 24;

/// One entry of a binary bundle header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry<'d> {
    /// The bundle entry ID (`hip-amdgcn-amd-amdhsa--gfx90a`), as stored.
    pub id: &'d [u8],
    /// The payload's offset from the start of the bundle.
    pub offset: u64,
    /// The payload's size.
    pub size: u64,
    /// The absolute offset of this entry's record in the input.
    pub record_offset: u64,
}

impl Entry<'_> {
    /// The payload's byte range within the bundle, if it is representable.
    pub(crate) fn range(&self) -> Option<Range<usize>> {
        let start = usize::try_from(self.offset).ok()?;
        let end = usize::try_from(self.offset.checked_add(self.size)?).ok()?;
        Some(start..end)
    }

    /// The payload, if `bundle` (the whole bundle) holds it.
    pub fn payload<'b>(&self, bundle: &'b [u8]) -> Option<&'b [u8]> {
        bundle.get(self.range()?)
    }

    /// The ID as text (lossily decoded).
    pub fn id_str(&self) -> std::borrow::Cow<'_, str> {
        String::from_utf8_lossy(self.id)
    }
}

/// A parsed binary bundle header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header<'d> {
    /// The entries, in file order.
    pub entries: Vec<Entry<'d>>,
    /// The header's size: where the first byte after the last ID is.
    pub header_size: u64,
}

/// Whether `data` is a binary bundle by LLVM's `identify_magic`: the magic and at least 25
/// bytes (a file of exactly the 24 magic bytes is not a bundle).
pub fn is_bundle(data: &[u8]) -> bool {
    data.len() > MAGIC.len() && data.starts_with(MAGIC)
}

/// Reads a binary bundle header with offkit's strict rules.
///
/// `data` holds at least the header (it may be a prefix of the file, e.g. a bounded read);
/// `file_size` is the size of the whole bundle, which bounds the payloads; `base` is the absolute
/// offset of `data[0]`, for messages. If `data` is a prefix that ends inside the header the
/// result is [`Error::Truncated`], and a caller reading from a file may read more and try again.
///
/// Errors: a bad magic; no entries; more entries or a longer ID than [`limits`] allow; an empty
/// or duplicate ID; a payload that starts inside the header, runs past `file_size`, or overlaps
/// another payload.
pub fn parse(data: &[u8], file_size: u64, base: u64) -> Result<Header<'_>> {
    let file_size = file_size.max(data.len() as u64);
    let mut r = Reader::new(data, base);
    let magic = r.take(MAGIC.len() as u64, "bundle header")?;
    if magic != MAGIC {
        return Err(Error::BadMagic {
            what: "offload bundle",
            offset: base,
        });
    }
    let count_at = r.offset();
    let count = r.u64_le("bundle header")?;
    if count == 0 {
        return Err(Error::Invalid {
            what: "bundle entry count",
            offset: count_at,
            reason: "the bundle has no entries".into(),
        });
    }
    if count > limits::MAX_BUNDLE_ENTRIES {
        return Err(Error::limit(
            limits::Limit::BundleEntries,
            "bundle entry count",
            count_at,
            count,
        ));
    }
    let room = file_size.saturating_sub(FIXED_HEADER);
    if count.saturating_mul(RECORD_FIXED) > room {
        return Err(Error::Invalid {
            what: "bundle entry count",
            offset: count_at,
            reason: format!(
                "{count} entries need at least {} bytes of header, the file has {room} after the count",
                count * RECORD_FIXED
            ),
        });
    }
    let mut entries = Vec::with_capacity(count as usize);
    for _ in 0..count {
        let record_offset = r.offset();
        let offset = r.u64_le("bundle entry")?;
        let size = r.u64_le("bundle entry")?;
        let len_at = r.offset();
        let len = r.u64_le("bundle entry")?;
        if len > limits::MAX_BUNDLE_ID_LEN {
            return Err(Error::limit(
                limits::Limit::BundleIdLen,
                "bundle entry ID length",
                len_at,
                len,
            ));
        }
        let id = r.take(len, "bundle entry ID")?;
        if id.is_empty() {
            return Err(Error::Invalid {
                what: "bundle entry ID",
                offset: len_at,
                reason: "the entry ID is empty".into(),
            });
        }
        entries.push(Entry {
            id,
            offset,
            size,
            record_offset,
        });
    }
    let header_size = r.pos() as u64;
    check_entries(&entries, header_size, file_size)?;
    Ok(Header {
        entries,
        header_size,
    })
}

/// The strict checks on parsed entries: inside the file, past the header, unique, disjoint.
fn check_entries(entries: &[Entry<'_>], header_size: u64, file_size: u64) -> Result<()> {
    for (i, e) in entries.iter().enumerate() {
        if let Some(first) = entries[..i].iter().find(|p| p.id == e.id) {
            return Err(Error::Invalid {
                what: "bundle entry ID",
                offset: e.record_offset + RECORD_FIXED,
                reason: format!(
                    "duplicate entry ID `{}` (first listed at offset {:#x})",
                    e.id_str(),
                    first.record_offset
                ),
            });
        }
        if e.offset < header_size {
            return Err(Error::Invalid {
                what: "bundle entry offset",
                offset: e.record_offset,
                reason: format!(
                    "the payload of `{}` starts at {:#x}, inside the header (which ends at {header_size:#x})",
                    e.id_str(),
                    e.offset
                ),
            });
        }
        match e.offset.checked_add(e.size) {
            Some(end) if end <= file_size => {}
            _ => {
                return Err(Error::Invalid {
                    what: "bundle entry size",
                    offset: e.record_offset + 8,
                    reason: format!(
                        "the payload of `{}` ({} bytes at {:#x}) runs past the end of the {file_size}-byte file",
                        e.id_str(),
                        e.size,
                        e.offset
                    ),
                })
            }
        }
    }
    let mut by_offset: Vec<&Entry<'_>> = entries.iter().filter(|e| e.size > 0).collect();
    by_offset.sort_by_key(|e| e.offset);
    for w in by_offset.windows(2) {
        let (a, b) = (w[0], w[1]);
        // Both ends were checked above, so the sum cannot overflow.
        if b.offset < a.offset + a.size {
            return Err(Error::Invalid {
                what: "bundle entry offset",
                offset: b.record_offset,
                reason: format!(
                    "the payload of `{}` at {:#x} overlaps the payload of `{}` ({:#x}..{:#x})",
                    b.id_str(),
                    b.offset,
                    a.id_str(),
                    a.offset,
                    a.offset + a.size
                ),
            });
        }
    }
    Ok(())
}

/// What LLVM 19's `BinaryFileHandler::ReadHeader` makes of a buffer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Llvm19<'d> {
    /// No bundles: not a bundle, or the header stopped before any entry was accepted.
    NoBundles,
    /// The accepted entries, in file order (IDs may repeat). The header may have claimed more
    /// entries; with none lost, LLVM 19 behaves normally.
    Entries(Vec<Entry<'d>>),
    /// LLVM 19 crashes on this header (it stopped after accepting an entry and then follows an
    /// uninitialised iterator, or hashes an ID whose length wrapped around).
    Crash {
        /// The absolute offset of the field that leads to the crash.
        offset: u64,
        /// Why, for the message.
        reason: &'static str,
    },
}

/// Reads a binary bundle header as LLVM 19 does: bounds-checked step by step with wrapping
/// 64-bit additions; an entry is accepted only if its offset is non-zero and
/// `offset + size` (wrapping) is within the buffer; the first failed check stops reading.
pub fn parse_llvm19(data: &[u8]) -> Llvm19<'_> {
    if !is_bundle(data) {
        return Llvm19::NoBundles;
    }
    let size = data.len() as u64;
    let read = |pos: u64| -> Option<u64> {
        let p = usize::try_from(pos).ok()?;
        let b = data.get(p..p.checked_add(8)?)?;
        Some(u64::from_le_bytes(b.try_into().ok()?))
    };
    let mut entries: Vec<Entry<'_>> = Vec::new();
    let stop = |entries: Vec<Entry<'_>>, at: u64| -> Llvm19<'_> {
        if entries.is_empty() {
            Llvm19::NoBundles
        } else {
            Llvm19::Crash {
                offset: at,
                reason: "the header ends early after accepting an entry",
            }
        }
    };
    let mut pos: u64 = MAGIC.len() as u64;
    if pos.wrapping_add(8) > size {
        return Llvm19::NoBundles;
    }
    let count = read(pos).unwrap_or_default();
    pos = pos.wrapping_add(8);
    let mut i = 0u64;
    while i < count {
        let record_offset = pos;
        if pos.wrapping_add(8) > size {
            return stop(entries, pos);
        }
        let Some(offset) = read(pos) else {
            return stop(entries, pos);
        };
        pos = pos.wrapping_add(8);
        if pos.wrapping_add(8) > size {
            return stop(entries, pos);
        }
        let Some(esize) = read(pos) else {
            return stop(entries, pos);
        };
        pos = pos.wrapping_add(8);
        if pos.wrapping_add(8) > size {
            return stop(entries, pos);
        }
        let Some(len) = read(pos) else {
            return stop(entries, pos);
        };
        let len_at = pos;
        pos = pos.wrapping_add(8);
        let id_end = pos.wrapping_add(len);
        if id_end > size {
            return stop(entries, len_at);
        }
        let wrapped = id_end < pos;
        let id = if wrapped {
            &[][..]
        } else {
            // In bounds: `pos <= id_end <= size`.
            data.get(pos as usize..id_end as usize).unwrap_or_default()
        };
        pos = id_end;
        if offset == 0 || offset.wrapping_add(esize) > size {
            return stop(entries, record_offset);
        }
        if wrapped {
            return Llvm19::Crash {
                offset: len_at,
                reason: "the ID length wraps around the address space",
            };
        }
        entries.push(Entry {
            id,
            offset,
            size: esize,
            record_offset,
        });
        i += 1;
        // LLVM's map never holds more entries than distinct IDs; the loop count is the file's
        // own, bounded by the buffer (each record takes at least 24 bytes).
    }
    Llvm19::Entries(entries)
}

/// Orders `entries` as LLVM 19 visits them: inserted one by one into a `StringMap` (a repeated
/// ID replaces the earlier entry's offset and size but keeps its place), then iterated in
/// bucket order.
pub fn llvm19_order<'d>(entries: &[Entry<'d>]) -> Vec<Entry<'d>> {
    let mut map: StringMap<&'d [u8], Entry<'d>> = StringMap::new();
    for e in entries {
        map.insert(e.id, e.clone());
    }
    map.iter().map(|(_, e)| e.clone()).collect()
}

/// Why LLVM 22's object layer cannot read a bundle header ([`parse_llvm_object`]); the messages
/// are LLVM's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum LlvmObjectError {
    /// `object_error::parse_failed`: under 24 bytes, no bundle magic (`identify_magic`: the
    /// magic and 25 bytes, or `CCOB`), or no room for the entry count.
    #[error("Invalid data was encountered while parsing the file")]
    ParseFailed,
    /// A record or ID runs past the buffer (`BinaryStreamReader`'s `stream_too_short`; where
    /// an ID's length wraps the 64-bit sum LLVM 22 goes on and crashes, offkit says this).
    #[error("Stream Error: The stream is too short to perform the requested operation.")]
    StreamTooShort,
}

/// Reads a binary bundle header as LLVM 22's object layer does
/// (`llvm::object::OffloadBundleFatBin::create` and `readEntries`, what `llvm-objdump
/// --offloading` extracts `.hip_fatbin` with): the magic (a `CCOB` magic passes too), the
/// count, then as many records as the count says, each read whole or failing; offsets, sizes
/// and IDs are not checked (offsets stay relative to `data`, [`Entry::record_offset`] too).
/// The count is the file's own: the entries read are bounded by the buffer, 24 bytes each at
/// least.
pub fn parse_llvm_object(data: &[u8]) -> std::result::Result<Vec<Entry<'_>>, LlvmObjectError> {
    let bundle = is_bundle(data) || data.starts_with(b"CCOB");
    if data.len() < MAGIC.len() || !bundle {
        return Err(LlvmObjectError::ParseFailed);
    }
    let mut r = Reader::new(data, 0);
    let short = |_| LlvmObjectError::StreamTooShort;
    r.seek(MAGIC.len() as u64, "bundle header")
        .map_err(|_| LlvmObjectError::ParseFailed)?;
    let count = r
        .u64_le("bundle header")
        .map_err(|_| LlvmObjectError::ParseFailed)?;
    let mut entries = Vec::new();
    for _ in 0..count {
        let record_offset = r.offset();
        let offset = r.u64_le("bundle entry").map_err(short)?;
        let size = r.u64_le("bundle entry").map_err(short)?;
        let len = r.u64_le("bundle entry").map_err(short)?;
        let id = r.take(len, "bundle entry ID").map_err(short)?;
        entries.push(Entry {
            id,
            offset,
            size,
            record_offset,
        });
    }
    Ok(entries)
}

/// The header of a binary bundle and where LLVM 19 writes each payload.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    /// The header bytes (magic, count, records).
    pub header: Vec<u8>,
    /// The offset recorded in the header for each entry.
    pub offsets: Vec<u64>,
    /// Where each payload is actually written: LLVM 19 looks the offset up by ID, so all
    /// payloads of a repeated ID go to the *last* such entry's offset, one after another.
    pub write_at: Vec<u64>,
    /// The payload sizes.
    pub sizes: Vec<u64>,
    /// The size of the whole bundle.
    pub total_size: u64,
}

impl Layout {
    /// The pieces of the bundle after the header, in order: for each payload, the number of zero
    /// bytes to write before it. Writing the header, then for each entry `padding[i]` zeros and
    /// payload `i`, gives the bundle.
    pub fn padding(&self) -> Vec<u64> {
        let mut pos = self.header.len() as u64;
        let mut out = Vec::with_capacity(self.sizes.len());
        for (at, size) in self.write_at.iter().zip(&self.sizes) {
            let pad = at.saturating_sub(pos);
            out.push(pad);
            pos = pos + pad + size;
        }
        out
    }
}

/// Lays out a binary bundle as LLVM 19's `BinaryFileHandler::WriteHeader` does: the header,
/// then each payload at the next multiple of `align` (any `align >= 1`).
pub fn layout(ids: &[&[u8]], sizes: &[u64], align: u64) -> Result<Layout> {
    if ids.len() != sizes.len() {
        return Err(Error::Unrepresentable {
            what: "offload bundle",
            reason: format!("{} IDs but {} payload sizes", ids.len(), sizes.len()),
        });
    }
    if align == 0 {
        return Err(Error::Unrepresentable {
            what: "offload bundle",
            reason: "the bundle alignment must be at least 1".into(),
        });
    }
    let overflow = || Error::Unrepresentable {
        what: "offload bundle",
        reason: "the payload offsets do not fit in 64 bits".into(),
    };
    let mut header_size = FIXED_HEADER;
    for id in ids {
        header_size = header_size
            .checked_add(RECORD_FIXED + id.len() as u64)
            .ok_or_else(overflow)?;
    }
    let mut header = Vec::with_capacity(usize::try_from(header_size).map_err(|_| overflow())?);
    header.extend_from_slice(MAGIC);
    header.extend_from_slice(&(ids.len() as u64).to_le_bytes());
    let mut offsets = Vec::with_capacity(ids.len());
    let mut cur = header_size;
    for (id, &size) in ids.iter().zip(sizes) {
        cur = align_to(cur, align).ok_or_else(overflow)?;
        header.extend_from_slice(&cur.to_le_bytes());
        header.extend_from_slice(&size.to_le_bytes());
        header.extend_from_slice(&(id.len() as u64).to_le_bytes());
        header.extend_from_slice(id);
        offsets.push(cur);
        cur = cur.checked_add(size).ok_or_else(overflow)?;
    }
    let write_at: Vec<u64> = ids
        .iter()
        .map(|id| {
            let last = ids.iter().rposition(|o| o == id).unwrap_or_default();
            offsets[last]
        })
        .collect();
    let mut total = header_size;
    for (at, size) in write_at.iter().zip(sizes) {
        total = total.max(*at).checked_add(*size).ok_or_else(overflow)?;
    }
    Ok(Layout {
        header,
        offsets,
        write_at,
        sizes: sizes.to_vec(),
        total_size: total,
    })
}

/// Writes a whole binary bundle in memory (for small bundles and for compression).
pub fn write(entries: &[(&[u8], &[u8])], align: u64) -> Result<Vec<u8>> {
    let ids: Vec<&[u8]> = entries.iter().map(|(id, _)| *id).collect();
    let sizes: Vec<u64> = entries.iter().map(|(_, p)| p.len() as u64).collect();
    let l = layout(&ids, &sizes, align)?;
    let total = usize::try_from(l.total_size).map_err(|_| Error::Unrepresentable {
        what: "offload bundle",
        reason: format!("{} bytes do not fit in memory", l.total_size),
    })?;
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(&l.header);
    for ((_, payload), pad) in entries.iter().zip(l.padding()) {
        out.resize(out.len() + pad as usize, 0);
        out.extend_from_slice(payload);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const HOST: &[u8] = b"host-x86_64-unknown-linux-gnu-";
    const GFX: &[u8] = b"hip-amdgcn-amd-amdhsa--gfx906";

    #[test]
    fn spec_layout_example() {
        let out = write(&[(HOST, b"12345678"), (GFX, b"abcdef")], 16).unwrap();
        assert_eq!(out.len(), 166);
        let h = parse(&out, out.len() as u64, 0).unwrap();
        assert_eq!(h.header_size, 139);
        assert_eq!(h.entries[0].offset, 144);
        assert_eq!(h.entries[1].offset, 160);
        assert_eq!(h.entries[1].payload(&out), Some(&b"abcdef"[..]));
        assert!(out[139..144].iter().all(|&b| b == 0));
        match parse_llvm19(&out) {
            Llvm19::Entries(e) => assert_eq!(e, h.entries),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn duplicate_ids_land_at_the_last_offset() {
        let out = write(&[(GFX, b"AAAA"), (GFX, b"BB")], 1).unwrap();
        let hs = 32 + 2 * (24 + GFX.len());
        // Offsets in the header: hs and hs+4; both payloads written from hs+4.
        assert_eq!(out.len(), hs + 4 + 6);
        assert_eq!(&out[hs..hs + 4], &[0, 0, 0, 0]);
        assert_eq!(&out[hs + 4..], b"AAAABB");
        assert!(parse(&out, out.len() as u64, 0).is_err());
        match parse_llvm19(&out) {
            Llvm19::Entries(e) => {
                let o = llvm19_order(&e);
                assert_eq!(o.len(), 1);
                assert_eq!(o[0].size, 2);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn strict_errors() {
        let good = write(&[(HOST, b"x"), (GFX, b"yz")], 1).unwrap();
        let n = good.len() as u64;
        // Truncated inside the header.
        assert!(matches!(
            parse(&good[..40], 40, 0),
            Err(Error::Invalid { .. } | Error::Truncated { .. })
        ));
        // Zero entries.
        let mut zero = MAGIC.to_vec();
        zero.extend_from_slice(&0u64.to_le_bytes());
        zero.push(0);
        assert!(matches!(
            parse(&zero, zero.len() as u64, 0),
            Err(Error::Invalid { offset: 24, .. })
        ));
        // Size near 2^64.
        let mut huge = good.clone();
        huge[40..48].copy_from_slice(&(u64::MAX - 3).to_le_bytes());
        let e = parse(&huge, n, 0x1000).unwrap_err().to_string();
        assert!(e.contains("0x1028"), "{e}");
        // Overlap.
        let mut ov = good.clone();
        let second = 32 + 24 + HOST.len();
        ov[second..second + 8].copy_from_slice(&(n - 3).to_le_bytes());
        assert!(parse(&ov, n, 0)
            .unwrap_err()
            .to_string()
            .contains("overlaps"));
        // Count near 2^64.
        let mut many = good.clone();
        many[24..32].copy_from_slice(&u64::MAX.to_le_bytes());
        assert!(matches!(
            parse(&many, n, 0),
            Err(Error::LimitExceeded { .. })
        ));
    }

    #[test]
    fn llvm_object_layer_reading() {
        let good = write(&[(HOST, b"x"), (GFX, b"yz")], 1).unwrap();
        let e = parse_llvm_object(&good).unwrap();
        assert_eq!(e, parse(&good, good.len() as u64, 0).unwrap().entries);
        // Exactly the magic, or the magic and no count: parse_failed.
        assert_eq!(parse_llvm_object(MAGIC), Err(LlvmObjectError::ParseFailed));
        assert_eq!(
            parse_llvm_object(&good[..30]),
            Err(LlvmObjectError::ParseFailed)
        );
        // A record or an ID cut short: the stream is too short.
        for cut in 33..good.len() - 2 {
            if cut < 32 + 24 + HOST.len() + 24 + GFX.len() {
                assert_eq!(
                    parse_llvm_object(&good[..cut]),
                    Err(LlvmObjectError::StreamTooShort),
                    "{cut}"
                );
            }
        }
        // No checks on what the records say; a count of zero, or huge, is read as it goes.
        let mut odd = good.clone();
        odd[32..40].copy_from_slice(&u64::MAX.to_le_bytes());
        odd[24] = 1;
        assert_eq!(parse_llvm_object(&odd).unwrap()[0].offset, u64::MAX);
        odd[24..32].copy_from_slice(&u64::MAX.to_le_bytes());
        assert_eq!(
            parse_llvm_object(&odd),
            Err(LlvmObjectError::StreamTooShort)
        );
        odd[24..32].fill(0);
        assert_eq!(parse_llvm_object(&odd), Ok(vec![]));
        // A compressed bundle's magic passes the check (its bytes are then read as a header).
        assert!(parse_llvm_object(&[b"CCOB".as_slice(), &[0; 40]].concat()).is_ok());
    }

    #[test]
    fn llvm19_acceptance() {
        let good = write(&[(HOST, b"x"), (GFX, b"yz")], 1).unwrap();
        // Exactly the magic: not a bundle.
        assert_eq!(parse_llvm19(MAGIC), Llvm19::NoBundles);
        // Claims three entries, has two: crash after accepting some.
        let mut more = good.clone();
        more[24] = 3;
        assert!(matches!(parse_llvm19(&more), Llvm19::Crash { .. }));
        // First entry out of the file: no bundles.
        let mut bad = good.clone();
        bad[32..40].copy_from_slice(&0u64.to_le_bytes());
        assert_eq!(parse_llvm19(&bad), Llvm19::NoBundles);
        // Payload inside the header and overlapping: accepted.
        let mut inside = good.clone();
        inside[32..40].copy_from_slice(&1u64.to_le_bytes());
        assert!(matches!(parse_llvm19(&inside), Llvm19::Entries(e) if e.len() == 2));
        // Wrapping size: accepted by the header reader.
        let mut wrap = good.clone();
        wrap[40..48].copy_from_slice(&u64::MAX.to_le_bytes());
        match parse_llvm19(&wrap) {
            Llvm19::Entries(e) => assert!(e[0].payload(&wrap).is_none()),
            other => panic!("{other:?}"),
        }
        for cut in 0..good.len() {
            let _ = parse_llvm19(&good[..cut]);
            let _ = parse(&good[..cut], cut as u64, 0);
        }
    }
}
