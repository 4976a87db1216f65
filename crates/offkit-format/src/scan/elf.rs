//! The object-file part of the walk: ELF and COFF sections that hold device code, and ELF entry
//! tables.

use std::sync::Arc;

use object::read::elf::{FileHeader, ProgramHeader};
use object::{elf, Endianness, FileKind};

use super::{
    bundle_target, Container, EntryTables, Event, Format, ImageInfo, Location, Pos, Problem,
    Source, Step, Step_, TableInfo, Walker, Warning,
};
use crate::container::{sections, Section, SectionKind};
use crate::device::ImageTargetId;
use crate::entry;
use crate::error::Error;
use crate::kind::{ImageKind, Model, OffloadKind};
use offkit_llvm::triple::Triple;

/// The `llvm-objdump` name of an ELF file's format (`elf64-x86-64`, `elf32-i386`,
/// `elf64-powerpc`, `elf64-amdgpu`), its file type, and whether it is big-endian.
pub(crate) fn elf_format(data: &[u8]) -> Option<Format> {
    fn of<Elf: FileHeader<Endian = Endianness>>(data: &[u8]) -> Option<Format> {
        let h = Elf::parse(data).ok()?;
        let endian = h.endian().ok()?;
        let bits = if h.is_class_64() { 64 } else { 32 };
        let big = endian == Endianness::Big;
        let machine = match h.e_machine(endian) {
            elf::EM_386 => "i386",
            elf::EM_X86_64 => "x86-64",
            elf::EM_PPC | elf::EM_PPC64 if big => "powerpc",
            elf::EM_PPC | elf::EM_PPC64 => "powerpcle",
            elf::EM_AARCH64 if big => "bigaarch64",
            elf::EM_AARCH64 => "littleaarch64",
            elf::EM_ARM if big => "bigarm",
            elf::EM_ARM => "littlearm",
            elf::EM_AMDGPU => "amdgpu",
            elf::EM_CUDA => "cuda",
            elf::EM_RISCV => "littleriscv",
            elf::EM_S390 => "s390",
            elf::EM_MIPS if big => "tradbigmips",
            elf::EM_MIPS => "tradlittlemips",
            elf::EM_SPARCV9 => "sparc",
            elf::EM_LOONGARCH => "loongarch",
            elf::EM_BPF if big => "bpfeb",
            elf::EM_BPF => "bpfel",
            _ if big => "big",
            _ => "little",
        };
        // A position-independent executable is ET_DYN too; it has an interpreter.
        let pie = h.e_type(endian) == elf::ET_DYN
            && h.program_headers(endian, data)
                .is_ok_and(|phs| phs.iter().any(|p| p.p_type(endian) == elf::PT_INTERP));
        let file_type = match h.e_type(endian) {
            elf::ET_REL => "relocatable",
            elf::ET_EXEC => "executable",
            elf::ET_DYN if pie => "pie executable",
            elf::ET_DYN => "shared",
            elf::ET_CORE => "core",
            _ => "other",
        };
        Some(Format::Elf {
            name: format!("elf{bits}-{machine}"),
            file_type,
            big_endian: big,
        })
    }
    match FileKind::parse(data) {
        Ok(FileKind::Elf32) => of::<elf::FileHeader32<Endianness>>(data),
        Ok(FileKind::Elf64) => of::<elf::FileHeader64<Endianness>>(data),
        _ => None,
    }
}

impl<E> Walker<'_, '_, E> {
    /// The bundles of `.hip_fatbin` found through the wrapper records (at section offsets
    /// `targets`, sorted), when walking by sizes failed with `why`: each is read alone, and a
    /// warning says so.
    fn bundles_at(
        &mut self,
        targets: &[u64],
        why: Error,
        s: &Section<'_>,
        sloc: &Location,
        depth: usize,
    ) -> Step_<E> {
        self.emit(Event::Warning(&Warning {
            location: sloc.clone(),
            offset: s.offset,
            problem: Problem::BundlesByRecords {
                records: targets.len(),
                why: Arc::new(why),
            },
        }))?;
        for (index, &t) in targets.iter().enumerate() {
            let at = usize::try_from(t).unwrap_or(usize::MAX);
            let data = s.data.get(at..).unwrap_or_default();
            let not_there = Error::BadMagic {
                what: "offload bundle",
                offset: s.offset + t,
            };
            if !crate::bundle::sequence::starts_bundle(data) {
                return Err(not_there.into());
            }
            let piece = crate::bundle::sequence::sequence(data, s.offset + t)
                .next()
                .unwrap_or(Err(not_there))?;
            let piece = crate::bundle::sequence::Piece { index, ..piece };
            self.bundle_piece(&piece, sloc, depth, Pos::Image)?;
        }
        Ok(())
    }

    /// Warns where the `__hip_fatbin_wrapper` records and the bundles found by their sizes
    /// (at absolute offsets `starts`) disagree.
    fn check_wrappers(
        &mut self,
        records: &[super::hipfb::Record],
        starts: &[u64],
        s: &Section<'_>,
        sloc: &Location,
    ) -> Step_<E> {
        let seg = sloc
            .steps
            .iter()
            .take(sloc.steps.len().saturating_sub(1))
            .cloned()
            .collect::<Vec<_>>();
        let seg = Location { steps: seg }.with(Step::Section(".hipFatBinSegment".into()));
        let mut warnings = Vec::new();
        let mut pointed = vec![false; starts.len()];
        for r in records {
            let problem = match r.target {
                Err(why) => Problem::Unresolved {
                    record: r.index,
                    offset: r.offset,
                    why,
                },
                Ok(t) => {
                    let abs = s.offset.saturating_add(t);
                    match starts.iter().position(|&b| b == abs) {
                        Some(i) => {
                            pointed[i] = true;
                            continue;
                        }
                        None => Problem::NoBundleThere {
                            record: r.index,
                            offset: r.offset,
                            target: t,
                            file_offset: abs,
                        },
                    }
                }
            };
            warnings.push(Warning {
                location: seg.clone(),
                offset: r.offset,
                problem,
            });
        }
        for (i, (&p, &at)) in pointed.iter().zip(starts).enumerate() {
            if !p {
                warnings.push(Warning {
                    location: sloc.with(Step::Bundle(i)),
                    offset: at,
                    problem: Problem::Unregistered {
                        bundle: i,
                        offset: at,
                        records: records.len(),
                    },
                });
            }
        }
        for w in &warnings {
            self.emit(Event::Warning(w))?;
        }
        Ok(())
    }

    pub(super) fn elf(
        &mut self,
        data: &[u8],
        base: u64,
        loc: &Location,
        depth: usize,
        pos: Pos,
    ) -> Step_<E> {
        let format = elf_format(data).ok_or(Error::BadMagic {
            what: "ELF file",
            offset: base,
        })?;
        self.emit(Event::Container(&Container {
            location: loc.clone(),
            format,
            offset: base,
            size: data.len() as u64,
        }))?;
        // The file's own entry tables first, then what its sections hold (which may have
        // entry tables of their own).
        let tables = match self.entry_tables {
            EntryTables::None => false,
            EntryTables::Host => pos != Pos::Image,
            EntryTables::All => true,
        };
        if tables {
            // A table that cannot be read is a warning on that table; the rest of the file
            // is read all the same.
            for t in entry::read_tables(data, base)? {
                match t {
                    Ok(t) => {
                        self.count_rows(t.entries.len(), t.offset)?;
                        let name = t.kind.section_name().to_string();
                        let info = TableInfo::from_table(loc.with(Step::Section(name)), &t);
                        self.emit(Event::Table(&info))?;
                    }
                    Err(e) => {
                        let name = e.kind.section_name().to_string();
                        self.emit(Event::Warning(&Warning {
                            location: loc.with(Step::Section(name)),
                            offset: e.offset,
                            problem: Problem::EntryTable(Arc::new(e.error)),
                        }))?;
                    }
                }
            }
        }
        for s in sections(data, base) {
            let s = s?;
            match s.kind {
                SectionKind::HipFatbin => {
                    let sloc = loc.with(Step::Section(".hip_fatbin".into()));
                    self.hip_fatbin(data, base, &s, sloc, depth)?;
                }
                SectionKind::OffloadBinaries | SectionKind::Bundle | SectionKind::CudaFatbin => {
                    self.section(&s, loc, depth)?
                }
                _ => {}
            }
        }
        Ok(())
    }

    pub(super) fn coff(
        &mut self,
        data: &[u8],
        base: u64,
        loc: &Location,
        depth: usize,
    ) -> Step_<E> {
        for s in sections(data, base) {
            let s = s?;
            if s.kind == SectionKind::OffloadBinaries {
                self.section(&s, loc, depth)?;
            }
        }
        Ok(())
    }

    fn section(&mut self, s: &Section<'_>, loc: &Location, depth: usize) -> Step_<E> {
        let name = String::from_utf8_lossy(s.name).into_owned();
        let sloc = loc.with(Step::Section(name));
        if s.kind == SectionKind::OffloadBinaries {
            return self
                .binaries(s.data, s.offset, &sloc, depth + 1)
                .map_err(|e| match e {
                    super::Stop::Format(e) => super::Stop::Format(sloc.wrap(e)),
                    v => v,
                });
        }
        if let Some(id) = s.bundle_id() {
            let id = String::from_utf8_lossy(id);
            // One `\0` byte stands for the host object itself (the bundler's placeholder).
            let host_placeholder = s.data == [0];
            let (kind, triple, target_id) = bundle_target(&id);
            let kind_is_host = kind.is_host();
            let info = ImageInfo {
                location: sloc,
                source: Source::BundleSection {
                    id: id.to_string(),
                    host_placeholder,
                },
                offload_kind: kind,
                image_kind: if host_placeholder {
                    ImageKind::Object
                } else {
                    super::sniff_image_kind(s.data)
                },
                triple,
                target_id,
                strings: Vec::new(),
                offset: s.offset,
                size: s.data.len() as u64,
                compression: None,
                bundle: None,
                address: None,
                code_object: None,
            };
            let pos = if kind_is_host { Pos::Host } else { Pos::Image };
            return self.image(info, s.data, depth, (!host_placeholder).then_some(pos));
        }
        // `.nv_fatbin`, `__nv_relfatbin`: CUDA fat binaries, one image per entry.
        self.nv_fatbin(s, &sloc, depth).map_err(|e| match e {
            super::Stop::Format(e) => super::Stop::Format(sloc.wrap(e)),
            v => v,
        })
    }

    /// A `.hip_fatbin` section: a sequence of offload bundles (plain and compressed), which the
    /// walk looks into and checks against the `__hip_fatbin_wrapper` records of the ELF file
    /// `elf` (at `elf_base`); anything else there is listed as one opaque image.
    fn hip_fatbin(
        &mut self,
        elf: &[u8],
        elf_base: u64,
        s: &Section<'_>,
        sloc: Location,
        depth: usize,
    ) -> Step_<E> {
        let first = s.data.iter().position(|&b| b != 0);
        let rest = first.and_then(|i| s.data.get(i..)).unwrap_or_default();
        if crate::bundle::sequence::starts_bundle(rest) {
            let records = super::hipfb::records(elf, elf_base);
            // Where the sizes cannot be followed (bytes other than zeros between bundles), the
            // wrapper records, if they all point into the section, say where the bundles are.
            if let Some(e) =
                crate::bundle::sequence::sequence(s.data, s.offset).find_map(|p| p.err())
            {
                let targets: Option<Vec<u64>> = records
                    .as_ref()
                    .and_then(|r| r.iter().map(|r| r.target.ok()).collect());
                if let Some(mut targets) = targets.filter(|t| !t.is_empty()) {
                    targets.sort_unstable();
                    targets.dedup();
                    return self
                        .bundles_at(&targets, e, s, &sloc, depth + 1)
                        .map_err(|e| super::bundle::wrap_stop(e, &sloc));
                }
            }
            let starts = self
                .bundles(s.data, s.offset, &sloc, depth + 1, Pos::Image)
                .map_err(|e| super::bundle::wrap_stop(e, &sloc))?;
            if let Some(records) = records {
                self.check_wrappers(&records, &starts, s, &sloc)?;
            }
            return Ok(());
        }
        let info = ImageInfo {
            location: sloc,
            source: Source::HipFatbin,
            offload_kind: Model::Offload(OffloadKind::Hip),
            image_kind: ImageKind::None,
            triple: Triple::parse(""),
            target_id: ImageTargetId::read(&Triple::parse(""), ""),
            strings: Vec::new(),
            offset: s.offset,
            size: s.data.len() as u64,
            compression: None,
            bundle: None,
            address: None,
            code_object: None,
        };
        self.image(info, s.data, depth, None)
    }
}
