//! Converting the device code of relocatable objects between the old driver's offload bundles
//! (a fat object: one `__CLANG_OFFLOAD_BUNDLE__<id>` section per bundle entry, holding its
//! code object or bitcode, and a `host-…` one) and the new driver's `.llvm.offloading` section
//! (offload binaries, one per image, as `clang-offload-packager` writes them for clang), so
//! objects and static libraries made by one driver link with the other. The LLVM release whose
//! linker wrapper is to link the result is a value (`LlvmVersion`): LLVM 19's numbers HIP 3 in
//! the offload binaries and reads `hip_offloading_entries`; LLVM 22's numbers it 4 and reads
//! `llvm_offload_entries` (see `hip_host::Entries`).
//!
//! Converted to offload binaries, an old-driver HIP object's host code is also made to register
//! as a new-driver one's (see `hip_host`): offload entries for its kernels, the old
//! constructor out of `.init_array`. Converted back to bundles, the host code stays as it is:
//! a bundle-form object made from a new-driver one registers nothing through the old driver.
//!
//! The object is edited without moving anything the host code refers to: the section header
//! slots of the sections taken out are given to the sections put in (nothing refers to them:
//! they have no symbols or relocations), further sections get new header slots at the end;
//! their contents, the grown section-name table and the section header table are appended to
//! the file (the ELF header's `e_shoff`/`e_shnum` patched), the old bytes zeroed. Slots left
//! over are made empty, nameless `SHF_EXCLUDE` sections.

use object::read::elf::{FileHeader, SectionHeader};
use object::Endianness;
use object::{elf, LittleEndian as LE};
use offkit_elf::{Class, Editor, Elf, Section};
use offkit_format::binary::{write_v1, ImageSpec};
use offkit_format::kind::OffloadKind;
use offkit_llvm::target_id::bundle::BundleEntryId;
use offkit_llvm::triple::Triple;
use offkit_llvm::LlvmVersion;

use crate::error::{Error, Result};

mod hip_host;

/// What an object's device code is converted to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// The new driver's `.llvm.offloading` section of offload binaries.
    OffloadBinary,
    /// The old driver's `__CLANG_OFFLOAD_BUNDLE__<id>` sections.
    Bundle,
}

/// A converted object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Converted {
    /// The new object.
    pub bytes: Vec<u8>,
    /// The sections taken out.
    pub from: Vec<String>,
    /// The sections put in (`.llvm.offloading`: the images, `kind triple arch`; the kernels
    /// given offload entries, `entry NAME`).
    pub to: Vec<String>,
    /// What a real link of the converted object misses.
    pub warnings: Vec<String>,
}

use offkit_format::container::SHT_LLVM_OFFLOADING;
const BUNDLE_PREFIX: &str = "__CLANG_OFFLOAD_BUNDLE__";

struct NewSection {
    name: Vec<u8>,
    sh_type: u32,
    flags: u64,
    align: u64,
    /// `sh_link`, `sh_info`, `sh_entsize`.
    link: u32,
    info: u32,
    entsize: u64,
    bytes: Vec<u8>,
}

impl NewSection {
    fn new(name: &[u8], sh_type: u32, flags: u64, align: u64, bytes: Vec<u8>) -> NewSection {
        NewSection {
            name: name.to_vec(),
            sh_type,
            flags,
            align,
            link: 0,
            info: 0,
            entsize: 0,
            bytes,
        }
    }
}

/// Converts the relocatable object `data` (named `input`) to `to`, for the linker wrapper of
/// release `llvm` (which numbers the offload kinds and lays out the HIP offload entries of a
/// conversion to offload binaries; a conversion to bundles is the same for every release);
/// `None` when it holds nothing to convert.
pub fn convert_object(
    data: &[u8],
    input: &str,
    to: Target,
    llvm: LlvmVersion,
) -> Result<Option<Converted>> {
    let unusable = |message: String| Error::Unusable {
        input: input.to_string(),
        message,
    };
    // `hip_host` reads the host code as 64-bit little-endian x86-64 or AArch64: other objects
    // are refused, naming what their ELF header says.
    let head = Elf::parse(data).map_err(|source| Error::elf(input, source))?;
    let hd = *head.header();
    if hd.class != Class::Elf64 || hd.endian != Endianness::Little || hd.e_type != elf::ET_REL {
        let class = match hd.class {
            Class::Elf32 => "32-bit",
            Class::Elf64 => "64-bit",
        };
        let order = match hd.endian {
            Endianness::Little => "little-endian",
            Endianness::Big => "big-endian",
        };
        let kind = match hd.e_type {
            elf::ET_REL => "relocatable object".to_string(),
            t => format!("file of type {}", t.0),
        };
        return Err(unusable(format!(
            "only little-endian 64-bit relocatable objects are converted: its ELF header (at \
             0x0) says {order} {class} {kind}"
        )));
    }
    let h = elf::FileHeader64::<LE>::parse(data)
        .map_err(|e| unusable(format!("cannot read its ELF header: {e}")))?;
    // The check after the edit reads it back as the `object` crate does: so must the input.
    object::File::parse(data)
        .map_err(|e| unusable(format!("cannot read it as an ELF file: {e}")))?;
    let sections = h
        .sections(LE, data)
        .map_err(|e| unusable(format!("cannot read its section headers: {e}")))?;
    let machine = h.e_machine(LE);
    // What is already there in the form converted to would be mixed with what is converted.
    for (i, s) in sections.iter().enumerate().skip(1) {
        // The section-name table grows with the names added: a name that lies outside it now
        // would read as one of those (found by fuzzing).
        let name = sections.section_name(LE, s).map_err(|_| {
            unusable(format!(
                "the name of section {i} lies outside its section-name table"
            ))
        })?;
        let there = match to {
            Target::OffloadBinary => name == b".llvm.offloading",
            Target::Bundle => name.starts_with(BUNDLE_PREFIX.as_bytes()),
        };
        if there {
            return Err(unusable(format!(
                "it already holds section `{}` (at {:#x}): convert an object holding one form only",
                String::from_utf8_lossy(name),
                s.sh_offset(LE)
            )));
        }
    }
    let mut take = Vec::new();
    let mut from = Vec::new();
    let mut add = Vec::new();
    let mut to_names = Vec::new();
    let section_bytes = |s: &elf::SectionHeader64<LE>, name: &str| -> Result<&[u8]> {
        s.data(LE, data).map_err(|e| {
            unusable(format!(
                "section `{name}` at {:#x} lies outside the file: {e}",
                s.sh_offset(LE)
            ))
        })
    };
    match to {
        Target::OffloadBinary => {
            let mut binaries = Vec::new();
            // Section 0 is the null section whatever its name says (found by fuzzing).
            for (i, s) in sections.iter().enumerate().skip(1) {
                let name =
                    String::from_utf8_lossy(sections.section_name(LE, s).unwrap_or_default())
                        .into_owned();
                let Some(id) = name.strip_prefix(BUNDLE_PREFIX) else {
                    continue;
                };
                let bytes = section_bytes(s, &name)?;
                if offkit_format::bundle::sequence::starts_bundle(bytes) {
                    return Err(unusable(format!(
                        "section `{name}` at {:#x} holds an offload bundle, not a fat object's \
                         code object (only fat objects, as `clang --no-offload-new-driver -c` \
                         writes them, are converted)",
                        s.sh_offset(LE)
                    )));
                }
                take.push(i);
                from.push(name.clone());
                let id = BundleEntryId::parse_any(id.as_bytes());
                let kind = match id.kind() {
                    b"host" => continue,
                    b"hip" | b"hipv4" => OffloadKind::Hip,
                    b"openmp" => OffloadKind::OpenMp,
                    b"cuda" => OffloadKind::Cuda,
                    k => {
                        return Err(unusable(format!(
                            "section `{name}`: offload kind `{}` has no offload binary kind",
                            String::from_utf8_lossy(k)
                        )))
                    }
                };
                let triple = String::from_utf8_lossy(id.triple().as_bytes())
                    .trim_end_matches('-')
                    .to_string();
                // An ID ending in `-` (no target ID) gives the whole ID as its "target ID"
                // (LLVM 19's parse); the image then has no arch.
                let tid = match id.target_id() {
                    t if t.len() == id.raw().len() => &[][..],
                    t => t,
                };
                let arch = String::from_utf8_lossy(tid).into_owned();
                let image_kind = offkit_format::scan::sniff_image_kind(bytes);
                // `clang-offload-packager`'s order: its `DenseMap` of `file`, `triple`,
                // `arch`, `kind` (as clang passes them), the strings without `file` and `kind`.
                let keys = ["file", "triple", "arch", "kind"];
                let strings: Vec<(&[u8], &[u8])> =
                    offkit_llvm::adt::densemap::iteration_order(&keys)
                        .into_iter()
                        .filter_map(|(_, k)| match k {
                            b"triple" => Some((&b"triple"[..], triple.as_bytes())),
                            b"arch" => Some((&b"arch"[..], arch.as_bytes())),
                            _ => None,
                        })
                        .collect();
                let spec = ImageSpec {
                    image_kind,
                    offload_kind: kind,
                    flags: 0,
                    strings,
                };
                let b = write_v1(&spec, bytes, llvm).map_err(|source| Error::Format {
                    input: input.to_string(),
                    source,
                })?;
                binaries.extend_from_slice(&b);
                binaries.resize(binaries.len().next_multiple_of(8), 0);
                to_names.push(format!("{} {triple} {arch}", kind_name(kind)));
            }
            if take.is_empty() {
                return Ok(None);
            }
            add.push(NewSection::new(
                b".llvm.offloading",
                SHT_LLVM_OFFLOADING,
                elf::SHF_EXCLUDE.0,
                8,
                binaries,
            ));
        }
        Target::Bundle => {
            let mut device = Vec::new();
            // Section 0 is the null section whatever its name says (found by fuzzing).
            for (i, s) in sections.iter().enumerate().skip(1) {
                let name = sections.section_name(LE, s).unwrap_or_default();
                if name != b".llvm.offloading" {
                    continue;
                }
                take.push(i);
                from.push(".llvm.offloading".to_string());
                let bytes = section_bytes(s, ".llvm.offloading")?;
                for b in offkit_format::binary::parse_all(bytes, s.sh_offset(LE)) {
                    let b = b.map_err(|source| Error::Format {
                        input: input.to_string(),
                        source,
                    })?;
                    for e in &b.entries {
                        let kind = kind_name(e.offload_kind);
                        if kind.is_empty() {
                            return Err(unusable(format!(
                                "an offload binary at {:#x} is of offload kind {:?}, which has \
                                 no bundle kind",
                                b.offset, e.offload_kind
                            )));
                        }
                        let triple = Triple::parse(e.triple().as_bytes()).four_components();
                        let id = format!(
                            "{kind}-{}-{}",
                            String::from_utf8_lossy(triple.as_bytes()),
                            e.arch()
                        );
                        to_names.push(id.clone());
                        device.push((id, e.image.to_vec()));
                    }
                }
            }
            if take.is_empty() {
                return Ok(None);
            }
            let host = match machine {
                elf::EM_X86_64 => "x86_64-pc-linux-gnu-",
                elf::EM_AARCH64 => "aarch64-unknown-linux-gnu-",
                elf::EM_PPC64 => "powerpc64le-unknown-linux-gnu-",
                _ => "unknown-unknown-unknown-",
            };
            let mut all = device;
            // The old driver writes the host entry as one zero byte.
            all.push((format!("host-{host}"), vec![0]));
            to_names.push(format!("host-{host}"));
            for (id, bytes) in all {
                add.push(NewSection::new(
                    format!("{BUNDLE_PREFIX}{id}").as_bytes(),
                    elf::SHT_PROGBITS.0,
                    elf::SHF_EXCLUDE.0,
                    1,
                    bytes,
                ));
            }
        }
    }
    // An old-driver HIP object's host code made to register as a new-driver one's.
    let host = match to {
        Target::OffloadBinary => hip_host::plan(data, h, &sections, input, llvm)?,
        Target::Bundle => None,
    };
    let mut warnings = Vec::new();
    let mut entries = Vec::new();
    let mut renames = Vec::new();
    let patched;
    let mut data = data;
    if let Some(host) = host {
        warnings = host.warnings.clone();
        if !host.kernels.is_empty() {
            // The k-th section added takes the k-th slot freed, then goes at the end.
            let slot = |k: usize| {
                take.get(k)
                    .copied()
                    .unwrap_or(sections.len() + k - take.len())
            };
            let entries_at = slot(add.len());
            let table = host.table;
            add.push(NewSection::new(
                table.section().as_bytes(),
                elf::SHT_PROGBITS.0,
                elf::SHF_ALLOC.0 | elf::SHF_WRITE.0,
                table.align,
                host.entries(),
            ));
            add.push(NewSection {
                link: host.symtab,
                info: entries_at as u32,
                entsize: 24,
                ..NewSection::new(
                    &[b".rela", table.section().as_bytes()].concat(),
                    elf::SHT_RELA.0,
                    elf::SHF_INFO_LINK.0,
                    8,
                    host.relocations(),
                )
            });
            entries.extend(host.kernels.iter().map(|k| format!("entry {}", k.3)));
        }
        let elf = Elf::parse(data).map_err(|source| Error::elf(input, source))?;
        let mut ed = Editor::new(&elf);
        let h = *elf.header();
        let shoff = usize::try_from(h.e_shoff).unwrap_or(usize::MAX);
        let table = shoff..shoff.saturating_add(h.shnum.saturating_mul(h.class.shentsize()));
        for (at, bytes) in &host.patches {
            // Section contents are patched in place: they must lie in the file, clear of the
            // ELF header and of the section header table (found by fuzzing: a section at offset
            // 0 had the header zeroed).
            let end = at.checked_add(bytes.len()).filter(|&e| e <= data.len());
            match end {
                Some(end)
                    if *at >= h.class.ehsize() && (end <= table.start || *at >= table.end) =>
                {
                    ed.bytes_mut()[*at..end].copy_from_slice(bytes)
                }
                _ => {
                    return Err(unusable(format!(
                        "section contents at {at:#x} ({} bytes) overlap the ELF header or the \
                         section header table, or run past the end of the file",
                        bytes.len()
                    )))
                }
            }
        }
        for (i, size) in &host.sizes {
            if let Some(s) = ed.section_mut(*i) {
                s.sh_size = *size;
            }
        }
        patched = ed
            .write_in_place()
            .map_err(|source| Error::elf(input, source))?;
        renames = host.renames;
        data = &patched;
    }
    let bytes = edit_sections(data, &take, add, &renames, input)?;
    check(&bytes, to, &to_names, input)?;
    to_names.extend(entries);
    Ok(Some(Converted {
        bytes,
        from,
        to: to_names,
        warnings,
    }))
}

/// Reads the converted object again: it parses as an ELF file, and holds what was put in (the
/// images of `.llvm.offloading`, or the bundle sections), nothing of what was taken out.
fn check(bytes: &[u8], to: Target, put: &[String], input: &str) -> Result<()> {
    let bad = |m: String| Error::validation(input, m);
    use object::{Object, ObjectSection};
    let file =
        object::File::parse(bytes).map_err(|e| bad(format!("it does not read back: {e}")))?;
    let mut found = Vec::new();
    let mut offloading = 0;
    for s in file.sections() {
        let name = s.name().unwrap_or_default();
        if name == ".llvm.offloading" {
            offloading += 1;
            let data = s
                .data()
                .map_err(|e| bad(format!("section `{name}`: {e}")))?;
            for b in offkit_format::binary::parse_all(data, 0) {
                let b = b.map_err(|e| Error::reread(input, e))?;
                for e in &b.entries {
                    let kind = kind_name(e.offload_kind);
                    found.push(format!("{kind} {} {}", e.triple(), e.arch()));
                }
            }
        } else if let Some(id) = name.strip_prefix(BUNDLE_PREFIX) {
            found.push(id.to_string());
        }
    }
    let sections = usize::from(to == Target::OffloadBinary);
    if offloading != sections || found != put {
        return Err(bad(format!("it holds {found:?}, not {put:?}")));
    }
    Ok(())
}

/// The bundle kind of an offload kind (empty: none).
fn kind_name(k: OffloadKind) -> &'static str {
    match k {
        OffloadKind::Hip => "hip",
        OffloadKind::OpenMp => "openmp",
        OffloadKind::Cuda => "cuda",
        _ => "",
    }
}

/// `data` with the sections `take` taken out and `add` put in (see the module's notes).
fn edit_sections(
    data: &[u8],
    take: &[usize],
    add: Vec<NewSection>,
    renames: &[(usize, Vec<u8>)],
    input: &str,
) -> Result<Vec<u8>> {
    let fail = |m: &str| Error::unusable(input, m);
    let elf_error = |source| Error::elf(input, source);
    let elf = Elf::parse(data).map_err(elf_error)?;
    let h = *elf.header();
    let (shnum, strndx) = (h.shnum, h.shstrndx);
    if shnum == 0 || strndx == 0 || strndx >= shnum || h.extended {
        return Err(fail(
            "its section header table is not one this edit handles",
        ));
    }
    // The section names must survive the edit (found by fuzzing: a fat object whose
    // section-name table was itself named `__CLANG_OFFLOAD_BUNDLE__…`).
    if take.contains(&strndx) {
        return Err(fail(
            "its section-name string table is one of the sections to take out",
        ));
    }
    let shoff = usize::try_from(h.e_shoff)
        .map_err(|_| fail("its section header table lies outside the file"))?;
    let table_end = shnum
        .checked_mul(h.class.shentsize())
        .and_then(|n| n.checked_add(shoff))
        .filter(|&e| e <= data.len())
        .ok_or_else(|| fail("its section header table lies outside the file"))?;
    let body = |s: &Section| contents(data, &elf, shoff..table_end, s).map_err(|m| fail(&m));
    let mut ed = Editor::new(&elf);
    // The old contents of the sections taken out, zeroed.
    for &i in take {
        let s = elf
            .section(i)
            .ok_or_else(|| fail("a section index lies outside its section header table"))?;
        // `SHT_NOBITS` has no contents in the file.
        if s.sh_type != elf::SHT_NOBITS {
            ed.bytes_mut()[body(s)?].fill(0);
        }
    }
    // Slots left over are named by offset 0, the empty string ELF requires there (found by
    // fuzzing: a table starting with `.llvm.offloading` named every left-over slot so).
    let names = &data[body(&elf.sections()[strndx])?];
    if names.first() != Some(&0) {
        return Err(fail(
            "its section-name table does not start with a NUL byte, as ELF requires",
        ));
    }
    let mut free: std::collections::VecDeque<usize> = take.iter().copied().collect();
    for s in add {
        let sh_offset = ed.append(&s.bytes, s.align);
        let section = Section {
            sh_name: ed.add_name(&s.name).map_err(elf_error)?,
            sh_type: elf::SectionType(s.sh_type),
            sh_flags: elf::SectionFlags(s.flags),
            sh_offset,
            sh_size: s.bytes.len() as u64,
            sh_link: s.link,
            sh_info: s.info,
            sh_addralign: s.align,
            sh_entsize: s.entsize,
            ..Section::default()
        };
        match free.pop_front().and_then(|i| ed.section_mut(i)) {
            Some(slot) => *slot = section,
            None => _ = ed.push(section),
        }
    }
    for (i, name) in renames {
        let at = ed.add_name(name).map_err(elf_error)?;
        if let Some(s) = ed.section_mut(*i) {
            s.sh_name = at;
        }
    }
    // Slots left over: empty, nameless, excluded.
    for i in free {
        if let Some(s) = ed.section_mut(i) {
            *s = Section {
                sh_type: elf::SHT_PROGBITS,
                sh_flags: elf::SHF_EXCLUDE,
                sh_offset: s.sh_offset,
                sh_addralign: 1,
                ..Section::default()
            };
        }
    }
    // The grown section-name table and the section header table appended, the old ones zeroed.
    ed.write_appended().map_err(elf_error)
}

/// The file range of `s`'s contents in `data` (of `elf`, its section header table at
/// `table`): they must lie in the file, clear of the ELF header and of the section header table,
/// for this edit zeroes them (found by fuzzing: a section at offset 0 had the header zeroed).
fn contents(
    data: &[u8],
    elf: &Elf<'_>,
    table: std::ops::Range<usize>,
    s: &Section,
) -> std::result::Result<std::ops::Range<usize>, String> {
    let (off, size) = (s.sh_offset, s.sh_size);
    let off = usize::try_from(off).ok();
    let end = off.and_then(|o| o.checked_add(usize::try_from(size).ok()?));
    let ehsize = elf.header().class.ehsize();
    match (off, end) {
        (Some(o), Some(e))
            if e <= data.len()
                && (o >= ehsize || e == o)
                && (e <= table.start || o >= table.end) =>
        {
            Ok(o..e)
        }
        _ => Err(format!(
            "a section's contents ({size} bytes at {}) overlap the ELF header or the section \
             header table, or run past the end of the file",
            off.map_or("an offset past the end".into(), |o| format!("{o:#x}"))
        )),
    }
}

/// Converts the object or static archive `data` (named `input`) for release `llvm`'s linker
/// wrapper ([`convert_object`]): an archive's members are converted one by one and the archive
/// written again by the project's archive writer (its symbol table rebuilt), then read back.
/// `None` when nothing is converted.
pub fn convert_file(
    data: &[u8],
    input: &str,
    to: Target,
    llvm: LlvmVersion,
) -> Result<Option<Converted>> {
    if !matches!(object::FileKind::parse(data), Ok(object::FileKind::Archive)) {
        return convert_object(data, input, to, llvm);
    }
    let members = crate::archive::members(data, input, "converted", "convert")?;
    let (mut new, mut from, mut to_names) = (Vec::new(), Vec::new(), Vec::new());
    let mut warnings = Vec::new();
    for (name, bytes) in members {
        let name = String::from_utf8_lossy(&name).into_owned();
        let elf = matches!(object::FileKind::parse(bytes), Ok(object::FileKind::Elf64));
        let c = if elf {
            convert_object(bytes, &format!("{input}({name})"), to, llvm)?
        } else {
            None
        };
        match c {
            Some(c) => {
                from.extend(c.from.iter().map(|s| format!("{name}: {s}")));
                to_names.extend(c.to.iter().map(|s| format!("{name}: {s}")));
                warnings.extend(c.warnings.iter().map(|s| format!("{name}: {s}")));
                new.push((name, c.bytes));
            }
            None => new.push((name, bytes.to_vec())),
        }
    }
    if from.is_empty() {
        return Ok(None);
    }
    let bytes = crate::archive::rebuild(&new, input, "converted")?;
    Ok(Some(Converted {
        bytes,
        from,
        to: to_names,
        warnings,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn other_classes_and_byte_orders_are_refused_by_name() {
        let obj = object::write::Object::new(
            object::BinaryFormat::Elf,
            object::Architecture::PowerPc,
            Endianness::Big,
        )
        .write()
        .unwrap();
        let e = convert_object(&obj, "p.o", Target::Bundle, LlvmVersion::V19).unwrap_err();
        let m = e.to_string();
        assert!(m.starts_with("p.o: "), "{m}");
        assert!(m.contains("(at 0x0) says big-endian 32-bit"), "{m}");
        let e = convert_object(b"\x7fELF\x02", "t.o", Target::Bundle, LlvmVersion::V19);
        assert!(matches!(e, Err(Error::Elf { .. })), "{e:?}");
    }
}
