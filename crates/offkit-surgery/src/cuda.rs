//! CUDA fat binaries (`.nv_fatbin`, `__nv_relfatbin`) pruned per entry, in place: each fat
//! binary keeps its offset (so `__cudaFatBinWrapper`'s pointer to it stays right), its kept
//! entries are moved down one after another as they were, its header's `fatSize` shrinks to
//! them and the bytes freed are zeroed.

use offkit_format::container::{sections, SectionKind};
use offkit_format::device::ImageTargetId;
use offkit_format::fatbin;
use offkit_llvm::triple::Triple;

use crate::error::{Error, Result};
use crate::filter::Filter;
use crate::table::Patch;

/// One CUDA fat binary pruned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FatbinPrune {
    /// Its section.
    pub section: String,
    /// Its absolute offset (which does not change).
    pub offset: u64,
    /// Its size now (header and entries).
    pub old_size: u64,
    /// Its size once pruned.
    pub new_size: u64,
    /// The entries kept (`triple-sm kind`), in order.
    pub kept: Vec<String>,
    /// The entries removed.
    pub removed: Vec<String>,
    /// Its new bytes, written at `offset`, then zeros up to the old size.
    pub patch: Patch,
}

fn name(e: &fatbin::Entry<'_>) -> String {
    let kind = match e.kind {
        fatbin::EntryKind::Ptx => "ptx",
        fatbin::EntryKind::Elf => "cubin",
        _ => "other",
    };
    format!("{}-{} {kind}", e.triple(), e.sm())
}

/// The fat binaries of `data` with the entries `filter` does not keep taken out (a fat binary
/// left without entries keeps its header, with `fatSize` 0); only those that change; and the
/// number of entries kept in all of them. Data that is no object file (a raw bundle) has none;
/// an object file whose sections cannot be read is an error.
pub(crate) fn plan(
    data: &[u8],
    filter: &Filter,
) -> offkit_format::Result<(Vec<FatbinPrune>, usize)> {
    use object::FileKind as K;
    let object = matches!(
        K::parse(data),
        Ok(K::Elf32
            | K::Elf64
            | K::Coff
            | K::CoffBig
            | K::Pe32
            | K::Pe64
            | K::MachO32
            | K::MachO64)
    );
    if !object {
        return Ok((Vec::new(), 0));
    }
    let mut out = Vec::new();
    let mut kept_in_all = 0;
    for s in sections(data, 0) {
        let s = s?;
        if s.kind != SectionKind::CudaFatbin {
            continue;
        }
        let (bytes, offset) = (s.data, s.offset);
        let sname = String::from_utf8_lossy(s.name);
        for fb in fatbin::parse_all(bytes, offset)? {
            let (mut kept, mut removed) = (Vec::new(), Vec::new());
            let header_size = u64::from(fb.header.header_size);
            let rel = |at: u64| usize::try_from(at - offset).unwrap_or(usize::MAX);
            let mut new = bytes
                .get(rel(fb.offset)..rel(fb.offset).saturating_add(header_size as usize))
                .unwrap_or_default()
                .to_vec();
            let images: Vec<_> = fb
                .entries
                .iter()
                .map(|e| {
                    let triple = Triple::parse(e.triple());
                    let tid = ImageTargetId::read(&triple, e.sm());
                    (triple, tid, e.kind.image_kind(e.data))
                })
                .collect();
            for (e, keep) in fb.entries.iter().zip(filter.keeps_fatbin(&images)) {
                if keep {
                    let len = u64::from(e.raw.header_size) + e.raw.payload_size;
                    new.extend_from_slice(
                        bytes
                            .get(rel(e.offset)..rel(e.offset).saturating_add(len as usize))
                            .unwrap_or_default(),
                    );
                    kept.push(name(e));
                } else {
                    removed.push(name(e));
                }
            }
            kept_in_all += kept.len();
            if removed.is_empty() {
                continue;
            }
            let fat_size = new.len() as u64 - header_size;
            if let Some(f) = new.get_mut(8..16) {
                f.copy_from_slice(&fat_size.to_le_bytes());
            }
            let new_size = new.len() as u64;
            out.push(FatbinPrune {
                section: sname.to_string(),
                offset: fb.offset,
                old_size: fb.size(),
                new_size,
                kept,
                removed,
                patch: Patch {
                    offset: fb.offset,
                    bytes: new,
                    zeros: fb.size().saturating_sub(new_size),
                },
            });
        }
    }
    Ok((out, kept_in_all))
}

/// Checks the pruned fat binaries of `after`: each parses at its offset with exactly the
/// entries kept.
pub(crate) fn validate(prunes: &[FatbinPrune], after: &[u8], input: &str) -> Result<()> {
    for p in prunes {
        let bytes = usize::try_from(p.offset)
            .ok()
            .and_then(|o| after.get(o..o.checked_add(p.new_size as usize)?))
            .ok_or_else(|| {
                Error::validation(
                    input,
                    format!("the fat binary at {:#x} is cut short", p.offset),
                )
            })?;
        let fb = fatbin::parse(bytes, p.offset).map_err(|e| Error::reread(input, e))?;
        let ids: Vec<String> = fb.entries.iter().map(name).collect();
        if ids != p.kept {
            return Err(Error::validation(
                input,
                format!(
                    "the fat binary at {:#x} holds {ids:?}, not {:?}",
                    p.offset, p.kept
                ),
            ));
        }
    }
    Ok(())
}
