//! The last step of a relocatable (`-r`) link, done in-process: LLVM 19 runs
//!
//! ```text
//! llvm-objcopy <out> --remove-section .llvm.offloading
//!   --rename-section <p>_offloading_entries=<p>_offloading_entries<S>
//!   --redefine-sym __start_<p>_offloading_entries=__start_<p>_offloading_entries<S>
//!   --redefine-sym __stop_<p>_offloading_entries=__stop_<p>_offloading_entries<S>   (p = omp, cuda, hip)
//! ```
//!
//! and LLVM 22 the same for its one entry section, `llvm_offload_entries` ([`sections`]).
//!
//! with `S = "_" + hex(low 64 bits of MD5(<out>))` (the first eight digest bytes read
//! little-endian, lower-case, no leading zeros), so that the object registers its own entries
//! and cannot be device-linked again.
//!
//! The linker wrapper runs `llvm-objcopy` itself when it finds one (the output is then LLVM's,
//! byte for byte); [`rewrite`] is the fallback when it does not, and
//! [`crate::Link::finish_relocatable`] (`offkit link --finish-relocatable`) always uses it. It rebuilds the object with `object`'s ELF builder: sections and symbols are
//! renamed (relocation sections of a renamed section with it, as llvm-objcopy does) and
//! `.llvm.offloading` is emptied and turned into `SHT_PROGBITS` rather than deleted, so that no
//! section or symbol index moves. The layout is the builder's, not llvm-objcopy's; the result
//! links the same way.
//!
//! When `.strtab` holds the section names too (as in clang's objects), a `.shstrtab` is added
//! as the last section. The builder refuses section types it does not parse, which clang's
//! objects carry (`SHT_LLVM_ADDRSIG` always, `SHT_GROUP` for COMDATs, `SHT_LLVM_OFFLOADING`):
//! `offkit_elf::rebuild` carries them through as bytes, no index moving.

use std::path::Path;

use object::build::elf::{Builder, SectionData};
use object::build::Id;
use object::elf;
use offkit_elf::Elf;

use crate::error::{Error, Result};

use offkit_llvm::LlvmVersion;

/// The entry sections `llvm`'s wrapper renames: LLVM 19's one per offload kind, LLVM 22's one
/// for all.
pub fn sections(llvm: LlvmVersion) -> &'static [&'static str] {
    match llvm {
        LlvmVersion::V19 => &[
            "omp_offloading_entries",
            "cuda_offloading_entries",
            "hip_offloading_entries",
        ],
        _ => &["llvm_offload_entries"],
    }
}

/// LLVM's `getHash`: `"_"` + the low 64 bits of the MD5 of `contents` in lower-case hex (the
/// same truncation as a compressed bundle's hash).
pub fn suffix(contents: &[u8]) -> String {
    format!(
        "_{:x}",
        offkit_format::bundle::compressed::truncated_md5(contents)
    )
}

/// The llvm-objcopy arguments `llvm`'s wrapper runs (printed under `--wrapper-verbose`).
pub fn objcopy_args(file: &str, suffix: &str, llvm: LlvmVersion) -> Vec<String> {
    let mut v = vec![
        file.to_string(),
        "--remove-section".into(),
        ".llvm.offloading".into(),
    ];
    for s in sections(llvm) {
        v.push("--rename-section".into());
        v.push(format!("{s}={s}{suffix}"));
        v.push("--redefine-sym".into());
        v.push(format!("__start_{s}=__start_{s}{suffix}"));
        v.push("--redefine-sym".into());
        v.push(format!("__stop_{s}=__stop_{s}{suffix}"));
    }
    v
}

/// The new name of an entry section, if `name` is one.
fn renamed_section(name: &[u8], suffix: &str, llvm: LlvmVersion) -> Option<Vec<u8>> {
    sections(llvm)
        .iter()
        .find(|s| name == s.as_bytes())
        .map(|s| format!("{s}{suffix}").into_bytes())
}

/// The new name of an entry section's `__start_`/`__stop_` symbol, if `name` is one.
fn renamed_symbol(name: &[u8], suffix: &str, llvm: LlvmVersion) -> Option<Vec<u8>> {
    ["__start_", "__stop_"].iter().find_map(|b| {
        let rest = name.strip_prefix(b.as_bytes())?;
        renamed_section(rest, suffix, llvm).map(|n| [b.as_bytes(), &n].concat())
    })
}

/// Rewrites the relocatable object `data` (read from `path`, named in errors) as `llvm`'s
/// objcopy step does (see the module documentation).
pub fn rewrite(path: &Path, data: &[u8], suffix: &str, llvm: LlvmVersion) -> Result<Vec<u8>> {
    let elf_error = |source| match source {
        offkit_elf::Error::Rebuild(source) => Error::Rebuild {
            path: path.to_path_buf(),
            source,
        },
        source => Error::Elf {
            path: path.to_path_buf(),
            source,
        },
    };
    let elf = Elf::parse(data).map_err(elf_error)?;
    offkit_elf::rebuild(&elf, |b| rename(b, &elf, path, suffix, llvm)).map_err(|e| match e {
        Step::Elf(e) => elf_error(e),
        Step::Link(e) => e,
    })
}

/// Why [`rename`] or the rebuild around it failed.
enum Step {
    Elf(offkit_elf::Error),
    Link(Error),
}

impl From<offkit_elf::Error> for Step {
    fn from(e: offkit_elf::Error) -> Step {
        Step::Elf(e)
    }
}

/// The renames of [`rewrite`], made on the builder of `elf`.
fn rename(
    b: &mut Builder<'_>,
    elf: &Elf<'_>,
    path: &Path,
    suffix: &str,
    llvm: LlvmVersion,
) -> std::result::Result<(), Step> {
    offkit_format::container::builder_alignments(
        b.sections.iter_mut().map(|s| &mut s.sh_addralign),
    )
    .map_err(|i| {
        Step::Link(Error::BadObject {
            path: path.to_path_buf(),
            offset: elf.section_header_offset(i + 1),
            what: format!(
                "section {} has an alignment that is not a power of two up to 2 MiB, or alignments that would pad the object past 64 MiB",
                i + 1
            ),
        })
    })?;
    // clang names sections from the symbol string table (`.strtab` serves both); the builder
    // writes them to a table of their own, added last so that no index moves.
    if !b
        .sections
        .iter()
        .any(|s| matches!(s.data, SectionData::SectionString))
    {
        let s = b.sections.add();
        s.name = b".shstrtab"[..].into();
        s.sh_type = elf::SHT_STRTAB;
        s.sh_addralign = 1;
        s.data = SectionData::SectionString;
    }
    let renamed: Vec<Option<Vec<u8>>> = b
        .sections
        .iter()
        .map(|s| renamed_section(&s.name, suffix, llvm))
        .collect();
    for (i, s) in b.sections.iter_mut().enumerate() {
        if let Some(Some(n)) = renamed.get(i) {
            s.name = n.clone().into();
        } else if let SectionData::Relocation(_) = s.data {
            let target = s
                .sh_info_section
                .and_then(|t| renamed.get(t.index()).cloned().flatten());
            if let Some(t) = target {
                let prefix: &[u8] = if s.sh_type == elf::SHT_RELA {
                    b".rela"
                } else {
                    b".rel"
                };
                s.name = [prefix, &t].concat().into();
            }
        }
        if s.name.as_slice() == b".llvm.offloading" {
            s.sh_type = elf::SHT_PROGBITS;
            s.data = SectionData::Data(Vec::new().into());
        }
    }
    for sym in b.symbols.iter_mut() {
        if let Some(n) = renamed_symbol(&sym.name, suffix, llvm) {
            sym.name = n.into();
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn md5_suffix_as_llvm_19() {
        // Seen from the real tool in --dry-run mode, where the buffer is empty.
        assert_eq!(suffix(b""), "_4b2008fd98c1dd4");
    }

    #[test]
    fn entry_names() {
        let v19 = LlvmVersion::V19;
        assert_eq!(
            renamed_section(b"omp_offloading_entries", "_1f", v19).as_deref(),
            Some(&b"omp_offloading_entries_1f"[..])
        );
        assert_eq!(
            renamed_symbol(b"__stop_hip_offloading_entries", "_1f", v19).as_deref(),
            Some(&b"__stop_hip_offloading_entries_1f"[..])
        );
        assert_eq!(renamed_symbol(b"__start_omp", "_1f", v19), None);
        assert_eq!(renamed_section(b".text", "_1f", v19), None);
        let v22 = LlvmVersion::V22;
        assert_eq!(renamed_section(b"omp_offloading_entries", "_1f", v22), None);
        assert_eq!(
            renamed_symbol(b"__start_llvm_offload_entries", "_1f", v22).as_deref(),
            Some(&b"__start_llvm_offload_entries_1f"[..])
        );
        assert_eq!(
            objcopy_args("a.o", "_1f", v22).join(" "),
            "a.o --remove-section .llvm.offloading --rename-section \
             llvm_offload_entries=llvm_offload_entries_1f --redefine-sym \
             __start_llvm_offload_entries=__start_llvm_offload_entries_1f --redefine-sym \
             __stop_llvm_offload_entries=__stop_llvm_offload_entries_1f"
        );
    }

    #[test]
    fn not_elf_names_offset() {
        let e = rewrite(Path::new("x.o"), b"!<arch>\n", "_1", LlvmVersion::V19).unwrap_err();
        assert!(e.to_string().contains("x.o"), "{e}");
        let cause = std::error::Error::source(&e).map(|c| c.to_string());
        assert!(
            cause.as_deref().unwrap_or("").contains("0x0"),
            "{e}: {cause:?}"
        );
    }

    #[test]
    fn carried_types_include_llvm_offloading() {
        let t = object::elf::SectionType(offkit_format::container::SHT_LLVM_OFFLOADING);
        assert!(offkit_elf::CARRIED.contains(&t));
    }
}
