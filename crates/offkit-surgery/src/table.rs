//! The OpenMP image table of a linked executable or shared library made by the linker wrapper:
//! `__tgt_bin_desc { i32 NumDeviceImages; __tgt_device_image *DeviceImages; entries begin,
//! end }` and its `__tgt_device_image { ImageStart, ImageEnd, EntriesBegin, EntriesEnd }`
//! array (in `.data.rel.ro`, each pointer an `R_X86_64_RELATIVE` dynamic relocation in a PIE,
//! a plain word otherwise), whose images lie in `.llvm.offloading`, one offload binary each.
//!
//! A prune keeps the offload binaries of the images that stay, one after another from the
//! section's start as the wrapper lays them out (the section header's size shrinks to them,
//! the rest is zeroed: the section does not move), moves the kept records of each array down,
//! fixes `NumDeviceImages` and the relocations of the records (the ones left after the kept
//! records get addend 0 and zero words: nothing points at a pruned image any more). The
//! descriptors are found without symbols (shipped files are stripped): a word pair whose
//! second word points at `NumDeviceImages` records whose image pointers all lie in
//! `.llvm.offloading`.

use std::collections::BTreeMap;

use object::elf;
use object::read::elf::{FileHeader, ProgramHeader, SectionHeader};
use object::LittleEndian as LE;

use crate::filter::Filter;

/// One rewrite of bytes at a file offset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Patch {
    /// The absolute file offset.
    pub offset: u64,
    /// The new bytes.
    pub bytes: Vec<u8>,
    /// Then as many zero bytes (what a shrunk section or fat binary freed), written without
    /// being held in memory.
    pub zeros: u64,
}

impl Patch {
    /// New bytes at `offset`, nothing zeroed after them.
    pub fn bytes(offset: u64, bytes: Vec<u8>) -> Patch {
        Patch {
            offset,
            bytes,
            zeros: 0,
        }
    }

    /// The file range it rewrites.
    pub fn range(&self) -> std::ops::Range<u64> {
        let end = self.offset.saturating_add(self.bytes.len() as u64);
        self.offset..end.saturating_add(self.zeros)
    }
}

/// The image tables of a linked file pruned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImageTables {
    /// The file offset of `.llvm.offloading`.
    pub offset: u64,
    /// Its size now.
    pub old_size: u64,
    /// Its size once pruned.
    pub new_size: u64,
    /// The virtual addresses of the descriptors (`__tgt_bin_desc`) found.
    pub descriptors: Vec<u64>,
    /// How many of them still register an image once pruned (a table left with none is not
    /// found again when the file is read back).
    pub registering: usize,
    /// The images kept (`triple-arch`), in section order.
    pub kept: Vec<String>,
    /// The images removed.
    pub removed: Vec<String>,
    /// The byte rewrites (section contents, records, counts, relocation addends, the section
    /// header's size), in file order.
    pub patches: Vec<Patch>,
}

/// A found table, as read.
#[derive(Debug, Clone)]
pub(crate) struct Table {
    /// The descriptor's address.
    pub descriptor: u64,
    /// The array's address.
    pub array: u64,
    /// Each record's four words.
    pub records: Vec<[u64; 4]>,
}

/// The parts of a linked little-endian ELF64 file the tables are read through.
pub(crate) struct Linked<'d> {
    data: &'d [u8],
    /// `(vaddr, file offset, file size)` of each `PT_LOAD`.
    loads: Vec<(u64, u64, u64)>,
    /// Relative dynamic relocations: address → (file offset of the addend, addend).
    relocs: BTreeMap<u64, (u64, u64)>,
    /// `(vaddr, size)` of the allocated, non-executable data sections (not `.llvm.offloading`).
    data_sections: Vec<(u64, u64)>,
    /// `.llvm.offloading`: (index, vaddr, file offset, size).
    pub offloading: Option<(usize, u64, u64, u64)>,
    /// The file ranges the search reads besides the tables themselves: each relocation
    /// section's entries as far as they lie in the file, and the section-name table.
    read: Vec<(&'static str, std::ops::Range<u64>)>,
}

impl<'d> Linked<'d> {
    /// Reads `data` when it is a linked (not relocatable) little-endian ELF64 file.
    pub(crate) fn parse(data: &'d [u8]) -> Option<Linked<'d>> {
        let h = elf::FileHeader64::<LE>::parse(data).ok()?;
        let e = LE;
        if !h.is_little_endian() || h.e_type(e) == elf::ET_REL {
            return None;
        }
        let relative = match h.e_machine(e) {
            elf::EM_X86_64 => Some(elf::R_X86_64_RELATIVE.0),
            elf::EM_AARCH64 => Some(elf::R_AARCH64_RELATIVE.0),
            _ => None,
        };
        let loads = h
            .program_headers(e, data)
            .ok()?
            .iter()
            .filter(|p| p.p_type(e) == elf::PT_LOAD)
            // What a header claims is bounded by the file (a fuzzed size made the table
            // search below run for hours).
            .map(|p| {
                let in_file = (data.len() as u64).saturating_sub(p.p_offset(e));
                (p.p_vaddr(e), p.p_offset(e), p.p_filesz(e).min(in_file))
            })
            .collect();
        let sections = h.sections(e, data).ok()?;
        let mut out = Linked {
            data,
            loads,
            relocs: BTreeMap::new(),
            data_sections: Vec::new(),
            offloading: None,
            read: Vec::new(),
        };
        if let Ok(names) =
            sections.section(object::SectionIndex(h.shstrndx(e, data).ok()? as usize))
        {
            let (off, size) = (names.sh_offset(e), names.sh_size(e));
            out.read
                .push(("section-name table", off..off.saturating_add(size)));
        }
        for (i, s) in sections.iter().enumerate() {
            let name = sections.section_name(e, s).unwrap_or_default();
            let flags = s.sh_flags(e).0;
            if flags & elf::SHF_ALLOC.0 == 0 {
                continue;
            }
            if name == b".llvm.offloading" {
                out.offloading = Some((i, s.sh_addr(e), s.sh_offset(e), s.sh_size(e)));
            } else if s.sh_type(e) == elf::SHT_PROGBITS && flags & elf::SHF_EXECINSTR.0 == 0 {
                let in_file = (data.len() as u64).saturating_sub(s.sh_offset(e));
                out.data_sections
                    .push((s.sh_addr(e), s.sh_size(e).min(in_file)));
            } else if s.sh_type(e) == elf::SHT_RELA {
                let Some(relative) = relative else { continue };
                let (off, size) = (s.sh_offset(e), s.sh_size(e));
                let in_file = (data.len() as u64).saturating_sub(off);
                out.read.push((
                    "relocation section",
                    off..off.saturating_add(size.min(in_file)),
                ));
                let mut at = off;
                while at
                    .checked_add(24)
                    .is_some_and(|end| end <= off.saturating_add(size))
                {
                    let (Some(r_offset), Some(info), Some(addend)) =
                        (out.u64_at(at), out.u64_at(at + 8), out.u64_at(at + 16))
                    else {
                        break;
                    };
                    if (info & 0xffff_ffff) as u32 == relative {
                        out.relocs.insert(r_offset, (at + 16, addend));
                    }
                    at += 24;
                }
            }
        }
        Some(out)
    }

    fn u64_at(&self, off: u64) -> Option<u64> {
        let o = usize::try_from(off).ok()?;
        let b = self.data.get(o..o.checked_add(8)?)?;
        Some(u64::from_le_bytes(b.try_into().ok()?))
    }

    /// The file offset of the byte at `va`.
    pub(crate) fn offset_of(&self, va: u64) -> Option<u64> {
        self.loads
            .iter()
            .find(|(v, _, n)| va >= *v && va - v < *n)
            .and_then(|(v, o, _)| o.checked_add(va - v))
    }

    /// The pointer-sized word at `va` as the loader leaves it.
    fn word(&self, va: u64) -> Option<u64> {
        match self.relocs.get(&va) {
            Some((_, addend)) => Some(*addend),
            None => self.u64_at(self.offset_of(va)?),
        }
    }

    fn in_offloading(&self, p: u64, end: bool) -> bool {
        self.offloading.is_some_and(|(_, va, _, size)| {
            if end {
                p > va && p <= va.saturating_add(size)
            } else {
                p >= va && p < va.saturating_add(size)
            }
        })
    }

    fn record(&self, at: u64) -> Option<[u64; 4]> {
        let r = [
            self.word(at)?,
            self.word(at.checked_add(8)?)?,
            self.word(at.checked_add(16)?)?,
            self.word(at.checked_add(24)?)?,
        ];
        (self.in_offloading(r[0], false) && self.in_offloading(r[1], true) && r[0] < r[1])
            .then_some(r)
    }

    /// Every descriptor whose array's images all lie in `.llvm.offloading`.
    pub(crate) fn tables(&self) -> Vec<Table> {
        let mut out = Vec::new();
        if self.offloading.is_none() {
            return out;
        }
        for &(start, size) in &self.data_sections {
            let Some(mut d) = start.checked_next_multiple_of(8) else {
                continue;
            };
            while d
                .checked_add(32)
                .is_some_and(|e| e <= start.saturating_add(size))
            {
                let found = (|| {
                    let off = self.offset_of(d)?;
                    let count = u32::from_le_bytes(
                        self.data
                            .get(usize::try_from(off).ok()?..)?
                            .get(..4)?
                            .try_into()
                            .ok()?,
                    );
                    if count == 0 || count > offkit_read::limits::MAX_REGISTERED_IMAGES {
                        return None;
                    }
                    let array = self.word(d + 8)?;
                    let records = (0..u64::from(count))
                        .map(|i| self.record(array.checked_add(32 * i)?))
                        .collect::<Option<Vec<_>>>()?;
                    Some(Table {
                        descriptor: d,
                        array,
                        records,
                    })
                })();
                if let Some(t) = found {
                    out.push(t);
                }
                d += 8;
            }
        }
        out
    }
}

/// Plans the prune of the image tables of the linked file `data` by `filter`; `None` when it
/// has no table or nothing goes.
pub(crate) fn plan(data: &[u8], filter: &Filter) -> offkit_format::Result<Option<ImageTables>> {
    let Some(linked) = Linked::parse(data) else {
        return Ok(None);
    };
    let tables = linked.tables();
    let Some((index, sec_va, sec_off, sec_size)) = linked.offloading else {
        return Ok(None);
    };
    if tables.is_empty() {
        return Ok(None);
    }
    let bytes = usize::try_from(sec_off)
        .ok()
        .zip(usize::try_from(sec_size).ok())
        .and_then(|(o, n)| data.get(o..o.checked_add(n)?))
        .unwrap_or_default();
    // Each binary: its range in the section, whether it stays, where it goes.
    let crate::edit::BinarySplit {
        bins,
        kept,
        removed,
        section,
    } = crate::edit::split_binaries(bytes, sec_off, filter)?;
    if removed.is_empty() {
        return Ok(None);
    }
    let invalid = |at: u64, reason: String| offkit_format::Error::Invalid {
        what: "OpenMP image table",
        offset: linked.offset_of(at).unwrap_or(0),
        reason,
    };
    // Each table's image array is its own: two that share or overlap bytes (a descriptor, an
    // array) would be rewritten twice over (found by fuzzing).
    let mut spans: Vec<(u64, u64)> = tables
        .iter()
        .flat_map(|t| {
            let n = t.records.len() as u64;
            [
                (t.descriptor, t.descriptor + 32),
                (t.array, t.array.saturating_add(32 * n)),
            ]
        })
        .collect();
    spans.sort_unstable();
    if let Some(w) = spans.windows(2).find(|w| w[1].0 < w[0].1) {
        return Err(invalid(
            w[1].0,
            format!(
                "image tables overlap at {:#x}: each descriptor and image array must be its own",
                w[1].0
            ),
        ));
    }
    let mut patches = Vec::new();
    let new_size = section.len() as u64;
    patches.push((
        Rewrite::Section,
        Patch {
            offset: sec_off,
            bytes: section,
            zeros: sec_size.saturating_sub(new_size),
        },
    ));
    // The section header's `sh_size`.
    let header = |e: offkit_elf::Error| offkit_format::Error::Invalid {
        what: "section header table",
        offset: e.offset(),
        reason: e.to_string(),
    };
    let (at, size) = offkit_elf::Elf::parse(data)
        .and_then(|elf| elf.section_size_patch(index, new_size))
        .map_err(header)?;
    patches.push((Rewrite::Size, Patch::bytes(at, size)));
    let set_word =
        |patches: &mut Vec<(Rewrite, Patch)>, va: u64, v: u64| -> offkit_format::Result<()> {
            let off = linked
                .offset_of(va)
                .ok_or_else(|| invalid(va, format!("{va:#x} is not in the file")))?;
            match linked.relocs.get(&va) {
                Some((addend_at, _)) => {
                    patches.push((
                        Rewrite::Addend,
                        Patch::bytes(*addend_at, v.to_le_bytes().to_vec()),
                    ));
                    // With `--apply-dynamic-relocs` the word holds the value too.
                    if linked.u64_at(off).unwrap_or(0) != 0 {
                        patches.push((Rewrite::Word, Patch::bytes(off, v.to_le_bytes().to_vec())));
                    }
                }
                None => patches.push((Rewrite::Word, Patch::bytes(off, v.to_le_bytes().to_vec()))),
            }
            Ok(())
        };
    let mut descriptors = Vec::new();
    let mut registering = 0;
    for t in &tables {
        let mut new_records = Vec::new();
        for (i, r) in t.records.iter().enumerate() {
            let rel = r[0] - sec_va;
            let b = bins
                .iter()
                .find(|b| rel >= b.start && rel < b.end)
                .ok_or_else(|| {
                    invalid(
                        t.array + 32 * i as u64,
                        format!(
                            "image {i} at {:#x} lies in no offload binary of `.llvm.offloading`",
                            r[0]
                        ),
                    )
                })?;
            // The image lies in its binary: moved with it, its end stays in the section.
            if r[1] - sec_va > b.end {
                return Err(invalid(
                    t.array + 32 * i as u64,
                    format!(
                        "image {i} at {:#x} ends at {:#x}, past the end of its offload binary \
                         ({:#x})",
                        r[0],
                        r[1],
                        sec_va + b.end
                    ),
                ));
            }
            if b.keep {
                let delta = b.start - b.new_start;
                new_records.push([r[0] - delta, r[1] - delta, r[2], r[3]]);
            }
        }
        for i in 0..t.records.len() {
            let rec = new_records.get(i).copied().unwrap_or([0; 4]);
            for (w, v) in rec.iter().enumerate() {
                set_word(&mut patches, t.array + 32 * i as u64 + 8 * w as u64, *v)?;
            }
        }
        let count_at = linked
            .offset_of(t.descriptor)
            .ok_or_else(|| invalid(t.descriptor, "the descriptor is not in the file".into()))?;
        patches.push((
            Rewrite::Word,
            Patch::bytes(count_at, (new_records.len() as u32).to_le_bytes().to_vec()),
        ));
        descriptors.push(t.descriptor);
        registering += usize::from(!new_records.is_empty());
    }
    let mut read = linked.read.clone();
    read.extend(
        crate::write::header_ranges(data)
            .into_iter()
            .map(|(what, r)| (what, r.start as u64..r.end as u64)),
    );
    for t in &tables {
        // The descriptor's array pointer (or its relocation, a relocation section's bytes).
        if let Some(at) = linked.offset_of(t.descriptor + 8) {
            read.push(("image table descriptor", at..at + 8));
        }
    }
    check_rewrites(&mut patches, &read)?;
    let patches = patches.into_iter().map(|(_, p)| p).collect();
    Ok(Some(ImageTables {
        offset: sec_off,
        old_size: sec_size,
        new_size,
        descriptors,
        registering,
        kept,
        removed,
        patches,
    }))
}

/// What a patch of a table prune rewrites.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Rewrite {
    /// `.llvm.offloading`'s contents.
    Section,
    /// Its section header's size.
    Size,
    /// A record's word or a descriptor's count.
    Word,
    /// A relocation's addend.
    Addend,
}

impl Rewrite {
    fn what(self) -> &'static str {
        match self {
            Rewrite::Section => "`.llvm.offloading`",
            Rewrite::Size => "the size in its section header",
            Rewrite::Word => "an image record or count",
            Rewrite::Addend => "a relocation's addend",
        }
    }
}

/// Refuses a prune whose rewrites overlap each other or the bytes the table search reads
/// (`read`: headers, relocations, section names, descriptors), but for those it rewrites on
/// purpose (an addend in a relocation section, the size in the section headers); sorts the
/// patches by offset. Otherwise the pruned file's tables would not read back as planned
/// (found by fuzzing: `.rela.dyn` claiming more than the file, so that "relocations" were read
/// from `.llvm.offloading`'s contents).
fn check_rewrites(
    patches: &mut [(Rewrite, Patch)],
    read: &[(&'static str, std::ops::Range<u64>)],
) -> offkit_format::Result<()> {
    let range = Patch::range;
    let overlap =
        |a: &std::ops::Range<u64>, b: &std::ops::Range<u64>| a.start < b.end && b.start < a.end;
    let refuse = |offset: u64, reason: String| offkit_format::Error::Invalid {
        what: "OpenMP image table",
        offset,
        reason,
    };
    patches.sort_by_key(|(_, p)| p.offset);
    for w in patches.windows(2) {
        if overlap(&range(&w[0].1), &range(&w[1].1)) {
            return Err(refuse(
                w[1].1.offset,
                format!(
                    "pruning would rewrite {} at {:#x} and {} at {:#x} in the same bytes",
                    w[0].0.what(),
                    w[0].1.offset,
                    w[1].0.what(),
                    w[1].1.offset
                ),
            ));
        }
    }
    for (why, p) in patches.iter() {
        for (name, r) in read {
            let meant = matches!(
                (why, *name),
                (Rewrite::Addend, "relocation section") | (Rewrite::Size, "section headers")
            );
            if !meant && overlap(&range(p), r) {
                return Err(refuse(
                    p.offset,
                    format!(
                        "the {name} at {:#x} overlaps {} at {:#x}, which pruning rewrites",
                        r.start,
                        why.what(),
                        p.offset
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// The `triple-arch` of every image the tables of `data` register, table by table.
pub(crate) fn registered(data: &[u8]) -> offkit_format::Result<Vec<Vec<String>>> {
    let Some(linked) = Linked::parse(data) else {
        return Ok(Vec::new());
    };
    let Some((_, sec_va, sec_off, sec_size)) = linked.offloading else {
        return Ok(Vec::new());
    };
    let binaries = usize::try_from(sec_off)
        .ok()
        .zip(usize::try_from(sec_size).ok())
        .and_then(|(o, n)| data.get(o..o.checked_add(n)?))
        .unwrap_or_default();
    let mut out = Vec::new();
    for t in linked.tables() {
        let mut ids = Vec::new();
        for r in &t.records {
            // The binary around the image: the image lies inside it, after its header.
            let start = r[0] - sec_va;
            let mut found = None;
            for b in offkit_format::binary::parse_all(binaries, sec_off) {
                let b = b?;
                let rel = b.offset - sec_off;
                if start >= rel && start < rel + b.size {
                    found = Some(
                        b.entries
                            .iter()
                            .map(|e| format!("{}-{}", e.triple(), e.arch()))
                            .collect::<Vec<_>>(),
                    );
                    break;
                }
            }
            ids.extend(found.unwrap_or_else(|| vec![format!("(nothing at {:#x})", r[0])]));
        }
        out.push(ids);
    }
    Ok(out)
}

/// `bytes` (read from offset `at`) with the patches that fall in it applied.
pub(crate) fn patched(bytes: &[u8], at: u64, patches: &[&Patch]) -> Vec<u8> {
    let mut out = bytes.to_vec();
    let end = at + bytes.len() as u64;
    for p in patches {
        let r = p.range();
        // The part of the patch within `bytes`, relative to both.
        let (from, to) = (r.start.max(at), r.end.min(end));
        for o in from..to {
            let b = usize::try_from(o - p.offset)
                .ok()
                .and_then(|i| p.bytes.get(i))
                .copied()
                .unwrap_or(0);
            out[(o - at) as usize] = b;
        }
    }
    out
}
