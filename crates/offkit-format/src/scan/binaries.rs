//! The flat list of offload binaries in a file, as LLVM 19's `extractOffloadBinaries` finds
//! them: what the packager's extraction and the linker wrapper's scan work from. It recognises
//! containers with the walk's own code (the ELF and COFF sections, [`holder`]), and hands out
//! images borrowed for the input's lifetime `'d` (owned only where the bytes are not the
//! input's: a thin archive's member, bitcode data decoded from bit-packed arrays).

use std::borrow::Cow;

use object::read::archive::ArchiveFile;

use super::{Location, Resolver, Step};
use crate::binary::{self, Binary, Entry};
use crate::container::{sections, SectionKind};
use crate::error::{Error, Result};
use offkit_read::limits;

/// What a file is, by its first bytes, for the kinds that hold offload binaries (LLVM's
/// `identify_magic`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Holder {
    /// Offload binaries (`0x10FF10AD`).
    OffloadBinary,
    /// LLVM bitcode, raw or wrapped.
    Bitcode,
    /// A static archive (GNU/BSD, thin, AIX big).
    Archive,
    /// An ELF file, with its `e_type` in the file's byte order.
    Elf {
        /// `ET_REL` 1, `ET_EXEC` 2, `ET_DYN` 3, `ET_CORE` 4, …
        e_type: u16,
    },
    /// A COFF object or PE image (by its machine field, as LLVM reads it).
    Coff,
    /// A PE image (`MZ`): LLVM 19's `extractOffloadBinaries` reads none (the walk does).
    Pe,
    /// Anything else.
    Other,
}

/// Classifies `d` as LLVM's `identify_magic` does for the kinds offload binaries live in.
pub fn holder(d: &[u8]) -> Holder {
    if d.len() < 4 {
        return Holder::Other;
    }
    if d.starts_with(&binary::MAGIC) {
        return Holder::OffloadBinary;
    }
    if crate::container::is_bitcode(d) {
        return Holder::Bitcode;
    }
    if d.starts_with(b"!<arch>\n") || d.starts_with(b"!<thin>\n") || d.starts_with(b"<bigaf>\n") {
        return Holder::Archive;
    }
    if d.starts_with(b"\x7fELF") {
        let e_type = match d.get(16..18) {
            Some(&[a, b]) if d.get(5) == Some(&2) => u16::from_be_bytes([a, b]),
            Some(&[a, b]) => u16::from_le_bytes([a, b]),
            _ => 0,
        };
        return Holder::Elf { e_type };
    }
    if d.starts_with(b"MZ") {
        return Holder::Pe;
    }
    match (d[0], d[1]) {
        (0x4c | 0xc4, 0x01)
        | (0x4c | 0xc4 | 0x90 | 0x68, 0x02)
        | (0x64, 0x86 | 0xaa)
        | (0x41, 0xa6) => Holder::Coff,
        _ => Holder::Other,
    }
}

/// The error type of [`offload_binaries`]: offkit's errors convert into it, and an error inside
/// an archive member can say which.
pub trait BinariesError: From<Error> {
    /// The error `self`, which happened inside the container at `loc`.
    fn within(self, loc: &Location) -> Self;
}

impl BinariesError for Error {
    fn within(self, loc: &Location) -> Self {
        loc.wrap(self)
    }
}

/// One offload binary found by [`offload_binaries`].
#[derive(Debug, Clone)]
pub struct Found<'d> {
    /// The archive members it is inside, outermost first (empty: the input itself).
    pub members: Vec<String>,
    /// The binary: its header and images.
    pub binary: Binary<'d>,
}

fn owned(b: Binary<'_>) -> Binary<'static> {
    Binary {
        offset: b.offset,
        version: b.version,
        size: b.size,
        compression: b.compression,
        entries: b.entries.into_iter().map(Entry::into_owned).collect(),
    }
}

/// Reads the offload binaries of one section or raw file (its bytes and absolute offset) into
/// binaries: [`read_binaries`] for offkit's rules, a face's own for LLVM's checks and
/// messages.
pub(crate) type ReadBinaries<'r, E> =
    &'r mut dyn for<'a> FnMut(&'a [u8], u64) -> std::result::Result<Vec<Binary<'a>>, E>;

/// How [`offload_binaries`] reads, where the faces' rules differ.
pub struct Binaries<'r, E> {
    /// Reads one section's (or a raw file's) offload binaries.
    pub read: ReadBinaries<'r, E>,
    /// Reads thin archive members; without one they are skipped.
    pub resolver: Option<&'r mut dyn Resolver>,
    /// Whether an ELF shared object given as the input itself is skipped (the linker wrapper
    /// leaves shared libraries to the host linker); in archives they are read.
    pub skip_shared_input: bool,
    /// What an unreadable bitcode module is (LLVM: "Failed to create module").
    pub bitcode_error: fn(Error) -> E,
}

impl<E> std::fmt::Debug for Binaries<'_, E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Binaries")
            .field("resolver", &self.resolver.is_some())
            .field("skip_shared_input", &self.skip_shared_input)
            .finish()
    }
}

/// offkit's reading of one section's offload binaries: every version it knows, consecutive.
pub fn read_binaries(data: &[u8], base: u64) -> Result<Vec<Binary<'_>>> {
    binary::parse_all(data, base).collect()
}

/// Every offload image in `data` (at absolute offset `base`), in file order: a raw offload
/// binary; an ELF relocatable object, executable or shared object (every section of type
/// `SHT_LLVM_OFFLOADING`); a COFF object or PE image (see [`crate::container::sections`]); every member of
/// an archive, recursively; a bitcode file's `!llvm.embedded.objects`. Anything else holds
/// none.
///
/// `name` names the input for a thin archive's [`Resolver`].
pub fn offload_binaries<'d, E: BinariesError>(
    data: &'d [u8],
    base: u64,
    name: &str,
    opts: &mut Binaries<'_, E>,
) -> std::result::Result<Vec<Found<'d>>, E> {
    let mut out = Vec::new();
    collect(data, base, &Location::file(name), &[], 0, opts, &mut out)?;
    Ok(out)
}

/// Every offload binary in `data` (raw, ELF, COFF, an archive of those, bitcode), in file
/// order, read by offkit's rules: [`offload_binaries`] with [`read_binaries`].
pub fn all_binaries(data: &[u8], base: u64) -> Result<Vec<Binary<'_>>> {
    let mut read = read_binaries;
    let mut opts = Binaries {
        read: &mut read,
        resolver: None,
        skip_shared_input: false,
        bitcode_error: |e| e,
    };
    let found = offload_binaries(data, base, "", &mut opts)?;
    Ok(found.into_iter().map(|f| f.binary).collect())
}

fn push<'d, E: BinariesError>(
    out: &mut Vec<Found<'d>>,
    members: &[String],
    binaries: Vec<Binary<'d>>,
    base: u64,
) -> std::result::Result<(), E> {
    for binary in binaries {
        if out.len() >= limits::MAX_ROWS {
            return Err(Error::limit(
                limits::Limit::Rows,
                "offload images",
                base,
                out.len() as u64 + 1,
            )
            .into());
        }
        out.push(Found {
            members: members.to_vec(),
            binary,
        });
    }
    Ok(())
}

fn collect<'d, E: BinariesError>(
    data: &'d [u8],
    base: u64,
    loc: &Location,
    members: &[String],
    depth: usize,
    opts: &mut Binaries<'_, E>,
    out: &mut Vec<Found<'d>>,
) -> std::result::Result<(), E> {
    if depth > limits::MAX_NESTING_DEPTH {
        return Err(Error::limit(
            limits::Limit::NestingDepth,
            "container nesting",
            base,
            depth as u64,
        )
        .into());
    }
    match holder(data) {
        Holder::OffloadBinary => {
            let entries = (opts.read)(data, base)?;
            push(out, members, entries, base)
        }
        Holder::Elf { e_type: 3 } if depth == 0 && opts.skip_shared_input => Ok(()),
        Holder::Elf { e_type: 1..=3 } | Holder::Coff => {
            for s in sections(data, base) {
                let s = s?;
                if s.kind == SectionKind::OffloadBinaries {
                    let entries = (opts.read)(s.data, s.offset)?;
                    push(out, members, entries, s.offset)?;
                }
            }
            Ok(())
        }
        Holder::Archive => {
            let err = |what, offset| {
                move |source| Error::Object {
                    what,
                    offset,
                    source,
                }
            };
            let archive = ArchiveFile::parse(data).map_err(err("archive", base))?;
            for m in crate::container::members(&archive, data, base) {
                let m = m?;
                let mut inner_members = members.to_vec();
                inner_members.push(m.name.clone());
                if m.thin {
                    let Some(r) = opts.resolver.as_deref_mut() else {
                        continue;
                    };
                    let bytes =
                        r.thin_member(loc, &m.name)
                            .map_err(|source| Error::ThinMember {
                                member: m.name.clone(),
                                offset: m.header,
                                source,
                            })?;
                    let mut inner = Vec::new();
                    let mloc = loc.with(Step::ThinMember(m.name));
                    let bytes = (*bytes).as_ref();
                    collect(bytes, 0, &mloc, &inner_members, depth + 1, opts, &mut inner)
                        .map_err(|e| e.within(&mloc))?;
                    out.extend(inner.into_iter().map(|f| Found {
                        members: f.members,
                        binary: owned(f.binary),
                    }));
                    continue;
                }
                let mloc = loc.with(Step::Member(m.name));
                let bytes = m.data?;
                collect(bytes, m.offset, &mloc, &inner_members, depth + 1, opts, out)
                    .map_err(|e| e.within(&mloc))?;
            }
            Ok(())
        }
        Holder::Bitcode => {
            let objects = offkit_llvm::bitcode::embedded_objects(data, base)
                .map_err(|e| (opts.bitcode_error)(e.into()))?;
            for obj in objects {
                match obj.data {
                    Cow::Borrowed(d) => {
                        let entries = (opts.read)(d, obj.offset)?;
                        push(out, members, entries, obj.offset)?;
                    }
                    Cow::Owned(d) => {
                        let entries: Vec<Binary<'static>> =
                            (opts.read)(&d, 0)?.into_iter().map(owned).collect();
                        push(out, members, entries, obj.offset)?;
                    }
                }
            }
            Ok(())
        }
        Holder::Elf { .. } | Holder::Pe | Holder::Other => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holders_like_llvm() {
        assert_eq!(holder(b"\x10\xff\x10\xad"), Holder::OffloadBinary);
        assert_eq!(holder(b"BC\xc0\xde"), Holder::Bitcode);
        assert_eq!(holder(b"!<arch>\n"), Holder::Archive);
        assert_eq!(holder(b"!<thin>\n"), Holder::Archive);
        assert_eq!(holder(b"!<arch>"), Holder::Other);
        let mut elf = b"\x7fELF\x02\x01\x01\0\0\0\0\0\0\0\0\0\x01\0".to_vec();
        assert_eq!(holder(&elf), Holder::Elf { e_type: 1 });
        elf[16] = 4;
        assert_eq!(holder(&elf), Holder::Elf { e_type: 4 });
        elf[5] = 2;
        assert_eq!(
            holder(&elf),
            Holder::Elf { e_type: 0x400 },
            "big-endian e_type"
        );
        assert_eq!(holder(b"\x64\x86\0\0"), Holder::Coff);
        assert_eq!(holder(b"MZ\x90\0"), Holder::Pe);
        assert_eq!(holder(b"abc"), Holder::Other);
    }

    #[test]
    fn core_files_and_pe_images_hold_none() {
        let mut elf = b"\x7fELF\x02\x01\x01\0\0\0\0\0\0\0\0\0\x04\0".to_vec();
        elf.resize(64, 0);
        let mut read = read_binaries;
        let mut opts = Binaries {
            read: &mut read,
            resolver: None,
            skip_shared_input: false,
            bitcode_error: |e| e,
        };
        assert!(offload_binaries(&elf, 0, "core", &mut opts)
            .unwrap()
            .is_empty());
        assert!(offload_binaries(b"MZ\x90\0\x03", 0, "x.exe", &mut opts)
            .unwrap()
            .is_empty());
    }
}
