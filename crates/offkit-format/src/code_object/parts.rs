//! The parts of an image a description needs, when the image is not at hand whole: an image
//! inside a compressed bundle is read from a stream that can be passed over only from its start,
//! and holding it whole would cost its size. [`Parts`] holds the byte ranges kept of one image;
//! [`wants`] says which ranges the description still needs, given what is held: the ELF header,
//! then the section header table (at the end of the file, where linkers put it), then the
//! sections it names that the description reads (symbol tables and their strings, the section
//! names, notes, `.nv.info`). [`Parts`] is an `object::ReadRef`, so that the one description
//! ([`super::describe_parts`]) reads it as it reads a whole image.
//!
//! ```text
//! Parts::new(size) ─wants─► [ranges] ─stream, Parts::add─► … ─wants─► [] ─describe_parts─► CodeObject
//! ```

use std::collections::BTreeMap;
use std::ops::Range;

use object::read::elf::{FileHeader, SectionHeader};
use object::{elf, Endianness, FileKind, ReadRef};

use crate::nvinfo::SHT_CUDA_INFO;
use offkit_read::limits;

/// The largest ELF file header (ELF64): all a first look needs.
pub(crate) const ELF_HEADER: u64 = 64;

/// Byte ranges of one image of `size` bytes, kept by offset in the image; touching or
/// overlapping ranges are merged, so that any range held is in one piece.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Parts {
    pieces: BTreeMap<u64, Vec<u8>>,
    size: u64,
    held: u64,
}

impl Parts {
    /// No bytes yet of an image of `size` bytes.
    pub fn new(size: u64) -> Self {
        Parts {
            pieces: BTreeMap::new(),
            size,
            held: 0,
        }
    }

    /// The image's size.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// How many bytes are held.
    pub fn held(&self) -> u64 {
        self.held
    }

    /// Adds `bytes`, which are at `offset` in the image (bytes past its size are dropped).
    pub fn add(&mut self, offset: u64, bytes: &[u8]) {
        let room = self.size.saturating_sub(offset);
        let bytes = bytes
            .get(..usize::try_from(room).unwrap_or(usize::MAX).min(bytes.len()))
            .unwrap_or_default();
        if bytes.is_empty() {
            return;
        }
        let end = offset + bytes.len() as u64;
        // The piece that starts at or before `offset` and reaches it, else a new one.
        let (start, mut piece) = match self.pieces.range(..=offset).next_back() {
            Some((&s, p)) if s + p.len() as u64 >= offset => {
                (s, self.pieces.remove(&s).unwrap_or_default())
            }
            _ => (offset, Vec::new()),
        };
        self.held -= piece.len() as u64;
        let have_end = start + piece.len() as u64;
        if end > have_end {
            let skip = (have_end - offset) as usize;
            piece.extend_from_slice(bytes.get(skip..).unwrap_or_default());
        }
        // Pieces that start inside the grown one are merged into it.
        loop {
            let piece_end = start + piece.len() as u64;
            let next = self
                .pieces
                .range(start + 1..=piece_end)
                .next()
                .map(|(&s, _)| s);
            let Some(s) = next else { break };
            let p = self.pieces.remove(&s).unwrap_or_default();
            self.held -= p.len() as u64;
            let p_end = s + p.len() as u64;
            if p_end > piece_end {
                piece.extend_from_slice(p.get((piece_end - s) as usize..).unwrap_or_default());
            }
        }
        self.held += piece.len() as u64;
        self.pieces.insert(start, piece);
    }

    /// The `len` bytes at `offset`, if one piece holds them.
    pub fn get(&self, offset: u64, len: u64) -> Option<&[u8]> {
        let (&s, p) = self.pieces.range(..=offset).next_back()?;
        let from = usize::try_from(offset - s).ok()?;
        let to = from.checked_add(usize::try_from(len).ok()?)?;
        p.get(from..to)
    }

    /// Whether `range` is held.
    pub fn has(&self, range: &Range<u64>) -> bool {
        range.is_empty() || self.get(range.start, range.end - range.start).is_some()
    }

    /// The whole image, if it is held.
    pub fn whole(&self) -> Option<&[u8]> {
        self.get(0, self.size)
    }

    /// Keeps only the bytes of `ranges` (those of `needed`), dropping what a generous read
    /// took besides.
    pub fn retain(&mut self, ranges: &[Range<u64>]) {
        let mut kept = Parts::new(self.size);
        for r in ranges {
            for (&s, p) in self.pieces.range(..r.end) {
                let e = s + p.len() as u64;
                let (from, to) = (r.start.max(s), r.end.min(e));
                if from < to {
                    kept.add(
                        from,
                        p.get((from - s) as usize..(to - s) as usize)
                            .unwrap_or_default(),
                    );
                }
            }
        }
        *self = kept;
    }

    /// The parts of `range` not held, in order.
    pub fn missing(&self, range: Range<u64>) -> Vec<Range<u64>> {
        let mut out = Vec::new();
        let mut at = range.start;
        let first = self
            .pieces
            .range(..=range.start)
            .next_back()
            .map(|(&s, _)| s)
            .unwrap_or(range.start);
        for (&s, p) in self.pieces.range(first..range.end) {
            let e = s + p.len() as u64;
            if s > at {
                out.push(at..s.min(range.end));
            }
            at = at.max(e);
            if at >= range.end {
                break;
            }
        }
        if at < range.end {
            out.push(at..range.end);
        }
        out
    }
}

impl<'a> ReadRef<'a> for &'a Parts {
    fn len(self) -> Result<u64, ()> {
        Ok(self.size)
    }

    fn read_bytes_at(self, offset: u64, size: u64) -> Result<&'a [u8], ()> {
        self.get(offset, size).ok_or(())
    }

    fn read_bytes_at_until(self, range: Range<u64>, delimiter: u8) -> Result<&'a [u8], ()> {
        let (&s, p) = self.pieces.range(..=range.start).next_back().ok_or(())?;
        let from = usize::try_from(range.start - s).map_err(drop)?;
        let to = usize::try_from(range.end.saturating_sub(s))
            .unwrap_or(usize::MAX)
            .min(p.len());
        let bytes = p.get(from..to).ok_or(())?;
        let n = bytes.iter().position(|&b| b == delimiter).ok_or(())?;
        bytes.get(..n).ok_or(())
    }
}

/// The ranges of the image that describing it reads, as far as `parts` tells (the header
/// first; the section header table once the header is held; the sections once the table is):
/// none past the header when the image is no ELF or its headers are bad (the description says
/// so).
pub(crate) fn needed(parts: &Parts) -> Vec<Range<u64>> {
    let head = 0..parts.size.min(ELF_HEADER);
    if !parts.has(&head) {
        return vec![head];
    }
    let mut ranges = match FileKind::parse(parts) {
        Ok(FileKind::Elf32) => elf_wants::<elf::FileHeader32<Endianness>>(parts),
        Ok(FileKind::Elf64) => elf_wants::<elf::FileHeader64<Endianness>>(parts),
        _ => Vec::new(),
    };
    ranges.retain(|r| r.start < r.end && r.end <= parts.size);
    ranges.push(head);
    ranges
}

/// The ranges of [`needed`] that are not held, merged where they are close (a stream passes
/// over the gap anyway): empty when the description can be made.
pub(crate) fn wants(parts: &Parts) -> Vec<Range<u64>> {
    let mut missing: Vec<Range<u64>> = needed(parts)
        .into_iter()
        .flat_map(|r| parts.missing(r))
        .collect();
    coalesce(&mut missing);
    missing
}

/// Ranges closer than this are read as one.
const GAP: u64 = 4 << 10;

fn coalesce(ranges: &mut Vec<Range<u64>>) {
    ranges.sort_by_key(|r| r.start);
    let mut out: Vec<Range<u64>> = Vec::with_capacity(ranges.len());
    for r in ranges.drain(..) {
        match out.last_mut() {
            Some(last) if r.start <= last.end.saturating_add(GAP) => last.end = last.end.max(r.end),
            _ => out.push(r),
        }
    }
    *ranges = out;
}

fn elf_wants<Elf: FileHeader<Endian = Endianness>>(parts: &Parts) -> Vec<Range<u64>> {
    let Ok(h) = Elf::parse(parts) else {
        return Vec::new();
    };
    let Ok(endian) = h.endian() else {
        return Vec::new();
    };
    let machine = h.e_machine(endian);
    if machine != elf::EM_AMDGPU && machine != elf::EM_CUDA {
        // An OpenMP image's entry tables are read with their relocations: the whole image,
        // when it is small enough to be held.
        return if parts.size <= limits::MAX_CODE_OBJECT_PARTS {
            let whole = 0..parts.size;
            vec![whole]
        } else {
            Vec::new()
        };
    }
    let shoff: u64 = h.e_shoff(endian).into();
    let entsize = u64::from(h.e_shentsize(endian));
    if shoff == 0 || entsize == 0 {
        return Vec::new();
    }
    // Extended numbering: the count is in section 0's header.
    let count = match h.e_shnum(endian) {
        0 => match parts.get(shoff, entsize) {
            Some(_) => h.shnum(endian, parts).map(u64::from).unwrap_or(0),
            None => {
                let first = shoff..shoff.saturating_add(entsize);
                return vec![first];
            }
        },
        n => u64::from(n),
    };
    let table = shoff..shoff.saturating_add(count.saturating_mul(entsize));
    if !parts.has(&table) {
        return vec![table];
    }
    let Ok(headers) = h.section_headers(endian, parts) else {
        return Vec::new();
    };
    let shstrndx = h.shstrndx(endian, parts).ok();
    let range = |s: &Elf::SectionHeader| {
        s.file_range(endian)
            .map(|(off, size)| off..off.saturating_add(size))
    };
    let mut out = vec![table];
    for (i, s) in headers.iter().enumerate() {
        let ty = s.sh_type(endian);
        let wanted = matches!(ty, elf::SHT_SYMTAB | elf::SHT_DYNSYM | elf::SHT_NOTE)
            || ty.0 == SHT_CUDA_INFO
            || shstrndx == Some(i as u32);
        if !wanted {
            continue;
        }
        out.extend(range(s));
        if matches!(ty, elf::SHT_SYMTAB | elf::SHT_DYNSYM) {
            let link = s.sh_link(endian) as usize;
            out.extend(headers.get(link).and_then(range));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bytes of the image at `range`: each byte is its offset, as a stream gives them.
    fn bytes(range: Range<u64>) -> Vec<u8> {
        range.map(|i| i as u8).collect()
    }

    #[test]
    fn pieces_merge() {
        let mut p = Parts::new(100);
        p.add(10, &bytes(10..20));
        p.add(30, &bytes(30..40));
        assert_eq!(p.held(), 20);
        assert!(p.get(10, 10).is_some() && p.get(10, 11).is_none());
        assert_eq!(p.missing(0..50), vec![0..10, 20..30, 40..50]);
        // Fills the gap: one piece from 10 to 40.
        p.add(15, &bytes(15..35));
        assert_eq!(p.held(), 30);
        assert_eq!(p.get(10, 30), Some(&bytes(10..40)[..]));
        assert_eq!(p.missing(0..50), vec![0..10, 40..50]);
        assert_eq!(p.missing(12..38), Vec::<Range<u64>>::new());
        // Past the end is dropped.
        p.add(95, &bytes(95..105));
        assert_eq!(p.get(95, 5), Some(&bytes(95..100)[..]));
        assert!(p.whole().is_none());
        p.add(0, &bytes(0..100));
        assert_eq!(p.held(), 100);
        assert_eq!(p.whole(), Some(&bytes(0..100)[..]));
    }

    #[test]
    fn read_ref_strings() {
        let mut p = Parts::new(20);
        p.add(4, b"ab\0cd");
        assert_eq!((&p).read_bytes_at_until(4..9, 0), Ok(&b"ab"[..]));
        assert_eq!((&p).read_bytes_at_until(7..20, 0), Err(()));
        assert_eq!((&p).read_bytes_at(0, 1), Err(()));
    }

    #[test]
    fn retain_keeps_what_is_needed() {
        let mut p = Parts::new(100);
        p.add(0, &[1; 100]);
        p.retain(&[10..20, 15..30, 90..95]);
        assert_eq!(p.held(), 25);
        assert!(p.has(&(10..30)) && p.has(&(90..95)) && !p.has(&(30..31)));
    }

    #[test]
    fn wants_start_with_the_header() {
        let p = Parts::new(1000);
        assert_eq!(wants(&p), vec![0..64]);
        let mut q = Parts::new(10);
        q.add(0, b"not an elf");
        assert!(wants(&q).is_empty());
    }
}
