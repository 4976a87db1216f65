//! Planning a rewrite: the bundle sections of a file, their bundles, and what each becomes
//! (worked out on all cores, in a deterministic order).

use std::fs::File;

use object::Object;
use offkit_format::bundle::sequence::{self, Piece};
use offkit_format::container::{sections, SectionKind};
use offkit_llvm::target_id::bundle::BundleEntryId;
use offkit_read::limits;

use crate::edit::{apply, Content, Edit};
use crate::error::{Error, Result};
use crate::holes::Extents;
use crate::par::par_map;

/// A range of the file that holds a sequence of bundles.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Region {
    /// The section's name, or `(file)` for a raw bundle file.
    pub name: String,
    /// Its absolute offset.
    pub offset: u64,
    /// Its size.
    pub size: u64,
    /// Its section header, for a section (`None` for a raw bundle file).
    pub section: Option<SectionRef>,
}

/// Where a section's header is, for rewriting it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SectionRef {
    /// Its index in the section header table.
    pub index: usize,
    /// Its alignment.
    pub align: u64,
}

/// One bundle and what it becomes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// The index of its region in [`Plan::regions`].
    pub region: usize,
    /// Its index in its region's sequence.
    pub index: usize,
    /// Its absolute offset (which does not change).
    pub offset: u64,
    /// Its size now.
    pub old_size: u64,
    /// The bytes it may take: up to the next bundle or the end of its region.
    pub slot: u64,
    /// Whether it is compressed now.
    pub was_compressed: bool,
    /// Its decompressed size as its header gives it, when it is compressed (for scheduling
    /// only: nothing is allocated from it).
    pub inflated: Option<u64>,
    /// The IDs of its entries kept (for a compressed bundle a compress does not touch: none).
    pub kept: Vec<String>,
    /// The IDs of its entries removed.
    pub removed: Vec<String>,
    /// Its new bytes, or `None` when it stays as it is or they are made later.
    pub bytes: Option<Content>,
    /// Whether its new bytes are still to be made: compressing or inflating a whole bundle of
    /// a linked file is left to [`write`](crate::write) (or [`settle`](crate::settle) for a
    /// dry run), which makes them a few bundles at a time, so that they are never all held
    /// in memory.
    pub pending: bool,
    /// The size of its new bytes made by [`write`](crate::write) or
    /// [`settle`](crate::settle) (written, then dropped).
    pub made: Option<u64>,
}

impl Change {
    /// Checks that `size` bytes fit its slot.
    pub(crate) fn fits(&self, size: u64, input: &str, section: &str) -> Result<()> {
        if size <= self.slot {
            return Ok(());
        }
        Err(Error::DoesNotFit {
            input: input.to_string(),
            section: section.to_string(),
            index: self.index,
            offset: self.offset,
            new_size: size,
            slot: self.slot,
            short: size - self.slot,
        })
    }

    /// Its size once rewritten (a pending bundle's is known once it is made).
    pub fn new_size(&self) -> u64 {
        match (&self.bytes, self.made) {
            (Some(b), _) => b.len(),
            (None, Some(n)) => n,
            (None, None) => self.old_size,
        }
    }

    /// Whether it is rewritten (or, pending, will be).
    pub fn changed(&self) -> bool {
        self.bytes.is_some() || self.made.is_some() || self.pending
    }
}

/// A `.llvm.offloading` section of a relocatable object pruned: the offload binaries kept, one
/// after another as the compiler lays them out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BinarySection {
    /// The section's name.
    pub name: String,
    /// Its index in the section header table.
    pub index: usize,
    /// Its absolute offset (which does not change).
    pub offset: u64,
    /// Its size now.
    pub old_size: u64,
    /// The images kept and removed (`triple-arch`), in file order.
    pub kept: Vec<String>,
    /// The images removed.
    pub removed: Vec<String>,
    /// The section's new contents.
    pub bytes: Vec<u8>,
}

/// The rewrite of one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// The input's name.
    pub input: String,
    /// The input's size.
    pub file_size: u64,
    /// The regions holding bundles.
    pub regions: Vec<Region>,
    /// Every bundle, in file order.
    pub changes: Vec<Change>,
    /// Whether the file is one raw bundle, which is simply rewritten (it may grow or shrink);
    /// otherwise every bundle stays at its offset within its slot.
    pub whole: bool,
    /// Whether the file is a relocatable object whose bundle sections are resized to their
    /// bundles (a section holding one bundle shrinks with it, or grows and moves to the end of
    /// the file); otherwise nothing moves.
    pub resized: bool,
    /// The `.llvm.offloading` sections of a relocatable object a prune shrinks.
    pub binaries: Vec<BinarySection>,
    /// The OpenMP image tables of a linked file a prune rewrites (patched in place).
    pub tables: Option<crate::table::ImageTables>,
    /// The CUDA fat binaries a prune rewrites (patched in place).
    pub fatbins: Vec<crate::cuda::FatbinPrune>,
    /// The edit that makes the [`Change::pending`] bundles' bytes.
    pub edit: Edit,
    /// What the user should know about the rewrite.
    pub warnings: Vec<Warning>,
}

impl Plan {
    /// Whether anything changes.
    pub fn changes_anything(&self) -> bool {
        self.changes.iter().any(Change::changed)
            || !self.binaries.is_empty()
            || self.tables.is_some()
            || !self.fatbins.is_empty()
    }

    /// The byte rewrites made after the bundles are written: image tables and fat binaries.
    pub fn patches(&self) -> Vec<&crate::table::Patch> {
        self.tables
            .iter()
            .flat_map(|t| &t.patches)
            .chain(self.fatbins.iter().map(|f| &f.patch))
            .collect()
    }

    /// How many images the rewrite takes out: of bundles, offload-binary sections, image
    /// tables and fat binaries.
    pub fn images_removed(&self) -> usize {
        self.changes.iter().map(|c| c.removed.len()).sum::<usize>()
            + self.binaries.iter().map(|b| b.removed.len()).sum::<usize>()
            + self.fatbins.iter().map(|f| f.removed.len()).sum::<usize>()
            + self.tables.as_ref().map_or(0, |t| t.removed.len())
    }

    /// The bytes freed (negative: taken) by the rewrite, summed over the bundles.
    pub fn freed(&self) -> i64 {
        self.changes
            .iter()
            .map(|c| c.old_size as i64 - c.new_size() as i64)
            .chain(
                self.binaries
                    .iter()
                    .map(|b| b.old_size as i64 - b.bytes.len() as i64),
            )
            .chain(
                self.tables
                    .iter()
                    .map(|t| t.old_size as i64 - t.new_size as i64),
            )
            .chain(
                self.fatbins
                    .iter()
                    .map(|f| f.old_size as i64 - f.new_size as i64),
            )
            .sum()
    }
}

/// The regions of `data` that hold bundles: the `.hip_fatbin` and bundle-holding
/// `__CLANG_OFFLOAD_BUNDLE__*` sections of an ELF file, or the whole of a raw bundle file.
pub(crate) fn regions(data: &[u8], input: &str) -> Result<Vec<Region>> {
    let unusable = |message: String| Error::Unusable {
        input: input.to_string(),
        message,
    };
    match object::FileKind::parse(data) {
        Ok(object::FileKind::Elf32 | object::FileKind::Elf64) => {
            let mut out = Vec::new();
            for s in sections(data, 0) {
                let s = s.map_err(|source| Error::Format {
                    input: input.to_string(),
                    source,
                })?;
                if !matches!(s.kind, SectionKind::HipFatbin | SectionKind::Bundle) {
                    continue;
                }
                let first = s.data.iter().position(|&b| b != 0).unwrap_or(s.data.len());
                // A fat object's `__CLANG_OFFLOAD_BUNDLE__<id>` section holds a code object,
                // not a bundle.
                if !sequence::starts_bundle(s.data.get(first..).unwrap_or_default()) {
                    continue;
                }
                out.push(Region {
                    name: String::from_utf8_lossy(s.name).into_owned(),
                    offset: s.offset,
                    size: s.size(),
                    section: Some(SectionRef {
                        index: s.index,
                        align: s.align,
                    }),
                });
            }
            Ok(out)
        }
        Ok(object::FileKind::Archive) => Err(unusable(
            "archives are not rewritten yet (rewrite its members one by one)".into(),
        )),
        _ if sequence::starts_bundle(data) => Ok(vec![Region {
            name: "(file)".into(),
            offset: 0,
            size: data.len() as u64,
            section: None,
        }]),
        _ => Err(unusable(
            "it is neither an ELF file nor an offload bundle".into(),
        )),
    }
}

/// Plans `edit` on `data` (the input named `input`), rewriting the bundles on `threads`
/// threads (0: all cores). Every bundle is checked against its slot.
pub fn plan(data: &[u8], input: &str, edit: &Edit, threads: usize) -> Result<Plan> {
    plan_in(data, &Extents::none(), input, edit, threads)
}

/// [`plan`] for `data` mapped from `file`: the holes of the file (the bytes a prune in place
/// freed) are skipped, not read, so a file rewritten before is walked as fast as the first
/// time.
pub fn plan_file(
    data: &[u8],
    file: &File,
    input: &str,
    edit: &Edit,
    threads: usize,
) -> Result<Plan> {
    let extents = Extents::of(file, data.len() as u64);
    plan_in(data, &extents, input, edit, threads)
}

fn plan_in(
    data: &[u8],
    extents: &Extents,
    input: &str,
    edit: &Edit,
    threads: usize,
) -> Result<Plan> {
    let format = |source| Error::Format {
        input: input.to_string(),
        source,
    };
    let relocatable =
        object::File::parse(data).is_ok_and(|f| f.kind() == object::ObjectKind::Relocatable);
    let binaries = match edit {
        Edit::Prune { filter, .. } if relocatable => {
            prune_binaries(data, filter).map_err(format)?
        }
        _ => Vec::new(),
    };
    let tables = match edit {
        Edit::Prune { filter, .. } if !relocatable => {
            crate::table::plan(data, filter).map_err(format)?
        }
        _ => None,
    };
    let (fatbins, fatbin_entries_kept) = match edit {
        Edit::Prune { filter, .. } => crate::cuda::plan(data, filter).map_err(format)?,
        _ => (Vec::new(), 0),
    };
    let regions = regions(data, input)?;
    let mut pieces: Vec<(usize, Piece<'_>, u64)> = Vec::new();
    for (ri, r) in regions.iter().enumerate() {
        let bytes = usize::try_from(r.offset)
            .ok()
            .zip(usize::try_from(r.size).ok())
            .and_then(|(o, n)| data.get(o..o.checked_add(n)?))
            .ok_or_else(|| Error::Unusable {
                input: input.to_string(),
                message: format!("section `{}` lies outside the file", r.name),
            })?;
        let seq = walk(bytes, r.offset, extents).map_err(format)?;
        let ends: Vec<u64> = seq
            .iter()
            .skip(1)
            .map(|p| p.offset)
            .chain([r.offset + r.size])
            .collect();
        for (p, end) in seq.into_iter().zip(ends) {
            let slot = end - p.offset;
            pieces.push((ri, p, slot));
        }
    }
    let whole = regions.len() == 1
        && regions[0].name == "(file)"
        && pieces.len() == 1
        && pieces[0].1.offset == 0;
    // Rewritten in place, a bundle section must lie clear of the file's headers, which the
    // rewrite keeps as they are (found by fuzzing: a section table over `.hip_fatbin`).
    if !whole && !relocatable {
        for r in &regions {
            let (start, end) = (r.offset, r.offset.saturating_add(r.size));
            for (what, h) in crate::write::header_ranges(data) {
                if (h.start as u64) < end && start < h.end as u64 {
                    return Err(Error::unusable(
                        input,
                        format!(
                            "section `{}` at {:#x} ({} bytes) overlaps the file's {what} at \
                             {:#x}",
                            r.name, r.offset, r.size, h.start
                        ),
                    ));
                }
            }
        }
    }
    // A linked file's bundles stay where they are: the costly ones are made when it is
    // written, a window at a time (an object's or a raw bundle's are laid out anew here).
    let defer = !whole && !relocatable;
    let outcomes = par_map(
        &pieces,
        threads,
        |(_, p, _)| match crate::edit::defer(p, edit) {
            Ok(Some(o)) if defer => Ok(o),
            Ok(_) => apply(p, edit),
            Err(e) => Err(e),
        },
        || {
            Err(offkit_format::Error::Invalid {
                what: "offload bundle",
                offset: 0,
                reason: "a worker thread failed".into(),
            })
        },
    );
    let mut changes = Vec::with_capacity(pieces.len());
    let mut warnings = Vec::new();
    let mut resized = !binaries.is_empty();
    for ((ri, p, slot), outcome) in pieces.iter().zip(outcomes) {
        let o = outcome.map_err(format)?;
        // A bundle holds at least one entry (readers refuse an empty one), and a linked
        // file's bundle cannot just go: its loader reads it at start-up. So a prune that would
        // leave a bundle no entry (one with no host entry, none of whose images is kept) is
        // refused, naming what it holds.
        if matches!(edit, Edit::Prune { .. }) && o.kept.is_empty() && !o.removed.is_empty() {
            return Err(Error::unusable(
                input,
                format!(
                    "bundle {} of `{}` at {:#x} would keep no entry: it has no host entry, and \
                     none of its images is kept (`{}`); keep one of their devices",
                    p.index,
                    regions[*ri].name,
                    p.offset,
                    o.removed.join("`, `")
                ),
            ));
        }
        if let Some(w) = o.warning {
            warnings.push(w);
        }
        let c = Change {
            region: *ri,
            index: p.index,
            offset: p.offset,
            old_size: p.data.len() as u64,
            slot: *slot,
            was_compressed: matches!(p.kind, sequence::Kind::Compressed(_)),
            inflated: match &p.kind {
                sequence::Kind::Compressed(b) => Some(b.header.uncompressed_size),
                sequence::Kind::Plain(_) => None,
            },
            kept: o.kept,
            removed: o.removed,
            bytes: o.bytes,
            pending: o.pending,
            made: None,
        };
        // In an object a section may grow: a bundle alone in its section (as the compiler
        // writes it) is written again with its section resized.
        let alone = pieces.iter().filter(|(r, _, _)| r == ri).count() == 1;
        if c.bytes.is_some() && relocatable {
            resized = true;
        }
        let size = o.expected.unwrap_or(c.new_size());
        // A raw bundle file, or an object's section holding one bundle, grows with it.
        let may_grow = whole || (relocatable && alone);
        if !may_grow {
            c.fits(size, input, &regions[*ri].name)?;
        }
        changes.push(c);
    }
    if let Edit::Prune { allow_empty, .. } = edit {
        let left = Left {
            changes: &changes,
            binaries: &binaries,
            tables: tables.as_ref(),
            fatbins: &fatbins,
            fatbin_entries_kept,
        };
        warnings.extend(left.check(data, input, *allow_empty)?);
    }
    Ok(Plan {
        input: input.to_string(),
        file_size: data.len() as u64,
        regions,
        changes,
        whole,
        resized,
        binaries,
        tables,
        fatbins,
        edit: edit.clone(),
        warnings,
    })
}

/// What a prune leaves of a file's device images, to refuse (or, allowed, warn about) a prune
/// that leaves none.
struct Left<'a> {
    changes: &'a [Change],
    binaries: &'a [BinarySection],
    tables: Option<&'a crate::table::ImageTables>,
    fatbins: &'a [crate::cuda::FatbinPrune],
    fatbin_entries_kept: usize,
}

impl Left<'_> {
    /// [`Error::NoDeviceImage`] when the prune removes images and leaves no device image (host
    /// entries aside), unless `allow_empty`, then the warning.
    fn check(&self, data: &[u8], input: &str, allow_empty: bool) -> Result<Option<Warning>> {
        let removed: Vec<String> = self
            .changes
            .iter()
            .flat_map(|c| &c.removed)
            .chain(self.binaries.iter().flat_map(|b| &b.removed))
            .chain(self.tables.iter().flat_map(|t| &t.removed))
            .chain(self.fatbins.iter().flat_map(|f| &f.removed))
            .cloned()
            .collect();
        if removed.is_empty() {
            return Ok(None);
        }
        let bundles = self
            .changes
            .iter()
            .flat_map(|c| &c.kept)
            .filter(|id| BundleEntryId::parse_any(id.as_bytes()).kind() != b"host")
            .count();
        let offloading =
            offloading_images_left(data, self.binaries, self.tables).map_err(|source| {
                Error::Format {
                    input: input.to_string(),
                    source,
                }
            })?;
        if self.fatbin_entries_kept + bundles + offloading > 0 {
            return Ok(None);
        }
        if !allow_empty {
            return Err(Error::NoDeviceImage {
                input: input.to_string(),
                removed,
            });
        }
        Ok(Some(Warning::NoDeviceImage { removed }))
    }
}

/// The images a prune leaves in the `.llvm.offloading` sections of `data`: those kept in the
/// sections it prunes (`binaries` of an object, `tables` of a linked file), all in the others.
fn offloading_images_left(
    data: &[u8],
    binaries: &[BinarySection],
    tables: Option<&crate::table::ImageTables>,
) -> offkit_format::Result<usize> {
    let mut left = 0;
    // A raw bundle file (or `.hip_fatbin` dump) has no sections to count.
    if object::FileKind::parse(data).is_err() {
        return Ok(0);
    }
    for s in sections(data, 0) {
        let s = s?;
        if s.kind != SectionKind::OffloadBinaries {
            continue;
        }
        if let Some(b) = binaries.iter().find(|b| b.index == s.index) {
            left += b.kept.len();
        } else if let Some(t) = tables.filter(|t| t.offset == s.offset) {
            left += t.kept.len();
        } else {
            for b in offkit_format::binary::parse_all(s.data, s.offset) {
                left += b?.entries.len();
            }
        }
    }
    Ok(left)
}

/// Something a rewrite does that its user should know, though it is not refused.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Warning {
    /// A prune (with `allow_empty`) leaves the file no device image: its host code finds no
    /// code for any GPU.
    NoDeviceImage {
        /// The images dropped: every device image the file had.
        removed: Vec<String>,
    },
    /// A compressed bundle was compressed again at a level it was not made with: none of the
    /// levels tried gives its bytes, so they differ from the original's.
    LevelNotFound {
        /// The bundle's absolute offset.
        bundle: u64,
        /// The levels tried.
        tried: Vec<i32>,
        /// The level used.
        used: i32,
    },
}

impl std::fmt::Display for Warning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Warning::NoDeviceImage { removed } => write!(
                f,
                "no device image left: dropped {} (the file's host code has no device code to \
                 run)",
                removed.join(", ")
            ),
            Warning::LevelNotFound {
                bundle,
                tried,
                used,
            } => {
                let tried: Vec<String> = tried.iter().map(i32::to_string).collect();
                write!(
                    f,
                    "the compressed bundle at {bundle:#x} was made at none of the levels {} \
                     (none gives its bytes): compressed again at level {used}, so its bytes \
                     differ from the original's; give --level to choose the level",
                    tried.join(", ")
                )
            }
        }
    }
}

/// The bundles of `bytes` (a region at absolute offset `base`), as [`sequence::sequence`] reads
/// them, but where the zero padding after a bundle runs into a hole of the file, the walk
/// starts again after the hole instead of reading its zeros.
fn walk<'d>(
    bytes: &'d [u8],
    base: u64,
    extents: &Extents,
) -> offkit_format::Result<Vec<Piece<'d>>> {
    let end = base + bytes.len() as u64;
    let mut out: Vec<Piece<'d>> = Vec::new();
    let mut start = 0u64;
    'restart: loop {
        let rest = usize::try_from(start)
            .ok()
            .and_then(|s| bytes.get(s..))
            .unwrap_or_default();
        for p in sequence::sequence(rest, base + start) {
            let mut p = p?;
            if out.len() >= limits::MAX_ROWS {
                return Err(offkit_format::Error::limit(
                    limits::Limit::Rows,
                    "bundles in a sequence",
                    p.offset,
                    out.len() as u64 + 1,
                ));
            }
            p.index = out.len();
            let after = p.offset + p.data.len() as u64;
            out.push(p);
            let hole = extents.hole_after(after);
            if hole >= end {
                continue;
            }
            // Only zeros up to the hole: the next bundle, if any, is after it.
            let tail = usize::try_from(after - base)
                .ok()
                .zip(usize::try_from(hole - base).ok())
                .and_then(|(a, h)| bytes.get(a..h))
                .unwrap_or_default();
            if tail.iter().all(|&b| b == 0) {
                match extents.data_from(hole) {
                    Some(next) if next < end => {
                        start = next - base;
                        continue 'restart;
                    }
                    _ => break 'restart,
                }
            }
        }
        break;
    }
    Ok(out)
}

/// The `.llvm.offloading` sections of a relocatable object with the offload binaries `filter`
/// does not keep taken out (a binary goes when none of its images stays); only the sections
/// that change.
fn prune_binaries(
    data: &[u8],
    filter: &crate::filter::Filter,
) -> offkit_format::Result<Vec<BinarySection>> {
    let mut out = Vec::new();
    for s in sections(data, 0) {
        let s = s?;
        if s.kind != SectionKind::OffloadBinaries {
            continue;
        }
        let split = crate::edit::split_binaries(s.data, s.offset, filter)?;
        if !split.removed.is_empty() {
            out.push(BinarySection {
                name: String::from_utf8_lossy(s.name).into_owned(),
                index: s.index,
                offset: s.offset,
                old_size: s.size(),
                kept: split.kept,
                removed: split.removed,
                bytes: split.section,
            });
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use offkit_format::bundle::binary;

    /// A plain bundle of one host entry and one device payload of `n` bytes.
    fn bundle(n: usize) -> Vec<u8> {
        let ids: [&[u8]; 2] = [
            b"host-x86_64-unknown-linux-gnu-",
            b"hipv4-amdgcn-amd-amdhsa--gfx90a",
        ];
        let l = binary::layout(&ids, &[0, n as u64], 1).unwrap();
        let mut b = l.header.clone();
        b.resize(l.offsets[1] as usize, 0);
        b.extend(std::iter::repeat_n(7u8, n));
        b
    }

    #[test]
    fn the_walk_starts_again_after_a_hole_without_reading_it() {
        let mut data = bundle(100);
        data.resize(0x3000, 0);
        data.extend(bundle(200));
        data.resize(0x5000, 0);
        let base = 0x10000;
        let whole = walk(&data, base, &Extents::none()).unwrap();
        let offsets = |ps: &[Piece<'_>]| ps.iter().map(|p| (p.index, p.offset)).collect::<Vec<_>>();
        assert_eq!(offsets(&whole), [(0, base), (1, base + 0x3000)]);
        // The bytes of a hole read as zeros; here they are not zeros, so a walk that read
        // them would fail: it must jump from the first run to the second.
        let mut holed = data.clone();
        holed.get_mut(0x1000..0x3000).unwrap().fill(0xee);
        let e = Extents::from_runs(vec![(base, base + 0x1000), (base + 0x3000, base + 0x5000)]);
        assert_eq!(offsets(&walk(&holed, base, &e).unwrap()), offsets(&whole));
        // Nothing after the hole: the walk ends there.
        let e = Extents::from_runs(vec![(base, base + 0x1000)]);
        assert_eq!(offsets(&walk(&holed, base, &e).unwrap()), [(0, base)]);
        assert!(walk(&holed, base, &Extents::none()).is_err());
    }
}
