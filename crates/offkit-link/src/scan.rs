//! Phase 1: find the inputs (library search as LLVM 19's wrapper does it) and the offload
//! binaries inside them.
//!
//! Walks, in command-line order, every input word, `-l`, `--whole-archive` and
//! `--no-whole-archive`. `-l<name>` looks in every `-L` (and `/libpath:`) directory in order
//! for `lib<name>.so`, then `lib<name>.a`; `-l:<file>` (and, LLVM 19's quirk, a name ending in
//! `.lib`, minus its first character) for the file itself; a directory starting with `=` is
//! under `--sysroot`. Missing files, directories and shared objects are skipped. Binaries from
//! an archive are *lazy* unless whole-archive is on.

use std::path::{Path, PathBuf};

use offkit_format::binary::Entry;
use offkit_tools::MappedFile;

use crate::error::{Error, InputName, Result};
use crate::opts::{Args, Opt};

/// A file to read, in command-line order.
#[derive(Debug)]
pub struct Located {
    /// The path (the word as given, or the library search result).
    pub path: PathBuf,
    /// Whether whole-archive was on for it.
    pub whole_archive: bool,
}

/// The `-L` / `/libpath:` directories, in order.
pub fn library_paths(args: &Args) -> Vec<&str> {
    args.filtered(&[Opt::LibraryPath, Opt::Libpath])
        .map(|a| a.value())
        .collect()
}

fn find_file(dir: &str, root: &str, name: &str) -> Option<PathBuf> {
    let p = match dir.strip_prefix('=') {
        Some(rest) if root.is_empty() => Path::new(rest).join(name),
        Some(rest) => Path::new(root)
            .join(rest.trim_start_matches('/'))
            .join(name),
        None => Path::new(dir).join(name),
    };
    p.exists().then_some(p)
}

/// `searchLibrary`: where the host linker would find `-l<input>`.
pub fn search_library(input: &str, root: &str, dirs: &[&str]) -> Option<PathBuf> {
    if input.starts_with(':') || input.ends_with(".lib") {
        // LLVM 19 drops the first character in both cases.
        let name = input.get(1..).unwrap_or("");
        return dirs.iter().find_map(|d| find_file(d, root, name));
    }
    dirs.iter().find_map(|d| {
        find_file(d, root, &format!("lib{input}.so"))
            .or_else(|| find_file(d, root, &format!("lib{input}.a")))
    })
}

/// Resolves the inputs the wrapper reads, in order.
pub fn locate(args: &Args) -> Result<Vec<Located>> {
    let root = args.last(Opt::Sysroot).unwrap_or("");
    let dirs = library_paths(args);
    let mut whole = args.has(Opt::WholeArchiveFlag);
    let mut out = Vec::new();
    for a in args.filtered(&[
        Opt::Input,
        Opt::Library,
        Opt::WholeArchive,
        Opt::NoWholeArchive,
    ]) {
        let path = match a.opt {
            Opt::WholeArchive | Opt::NoWholeArchive => {
                whole = a.opt == Opt::WholeArchive;
                continue;
            }
            Opt::Library => search_library(a.value(), root, &dirs)
                .ok_or_else(|| Error::LibraryNotFound(a.value().to_string()))?,
            _ => PathBuf::from(&a.spelling),
        };
        if !path.exists() || path.is_dir() {
            continue;
        }
        out.push(Located {
            path,
            whole_archive: whole,
        });
    }
    Ok(out)
}

/// Reads a located input as LLVM 19 would accept it (a device such as `/dev/null` is read; a
/// FIFO is refused rather than waited on).
pub fn load(l: &Located) -> Result<MappedFile> {
    MappedFile::open_llvm(&l.path).map_err(|source| Error::Read {
        path: l.path.clone(),
        source,
    })
}

/// What kind of file, by its first bytes (`identify_magic`, for what the wrapper asks).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Magic {
    /// A static archive (`!<arch>\n`, or thin).
    Archive,
    /// An ELF relocatable object.
    ElfRelocatable,
    /// An ELF shared object.
    ElfShared,
    /// Another ELF file.
    ElfOther,
    /// LLVM bitcode.
    Bitcode,
    /// Anything else.
    Other,
}

/// Classifies `data` (the scanner's [`offkit_format::scan::holder`]).
pub fn magic(data: &[u8]) -> Magic {
    use offkit_format::scan::Holder;
    match offkit_format::scan::holder(data) {
        Holder::Archive => Magic::Archive,
        Holder::Bitcode => Magic::Bitcode,
        Holder::Elf { e_type: 1 } => Magic::ElfRelocatable,
        Holder::Elf { e_type: 3 } => Magic::ElfShared,
        Holder::Elf { .. } => Magic::ElfOther,
        _ => Magic::Other,
    }
}

/// One device image found in an input.
#[derive(Debug, Clone)]
pub struct DeviceInput<'d> {
    /// Its index in scan order (stable across groups: an image shared by several groups is
    /// still one input, written once).
    pub id: usize,
    /// The file or archive member it came from.
    pub origin: InputName,
    /// The stem LLVM names its temporary file after (`stem(container)`).
    pub stem: String,
    /// Whether it comes from an archive without whole-archive (extracted only if needed).
    pub lazy: bool,
    /// The image and its metadata.
    pub entry: Entry<'d>,
    /// The absolute offset of the image in `origin.file`.
    pub offset: u64,
}

impl DeviceInput<'_> {
    /// `(triple, arch)`, the key of its group.
    pub fn target(&self) -> (String, String) {
        (
            self.entry.triple().into_owned(),
            self.entry.arch().into_owned(),
        )
    }
}

fn stem(name: &str) -> String {
    let file = name.rsplit('/').next().unwrap_or(name);
    match file.rfind('.') {
        Some(i) if i > 0 => file[..i].to_string(),
        _ => file.to_string(),
    }
}

/// Collects the device images of every loaded input, in order: what the scanner's flat list
/// ([`offkit_format::scan::offload_binaries`], LLVM 19's `extractOffloadBinaries`) finds in
/// each; a shared object given as an input is left to the host linker. An image in an archive
/// member comes from that member (the outermost one, which the host linker extracts) and is
/// lazy unless whole-archive was on.
pub fn device_inputs<'d>(
    located: &[Located],
    files: &'d [MappedFile],
) -> Result<Vec<DeviceInput<'d>>> {
    let mut out = Vec::new();
    for (l, data) in located.iter().zip(files) {
        let data: &'d [u8] = data;
        let mut read = offkit_format::scan::read_binaries;
        let mut opts = offkit_format::scan::Binaries {
            read: &mut read,
            resolver: None,
            skip_shared_input: true,
            bitcode_error: |e| e,
        };
        let found =
            offkit_format::scan::offload_binaries(data, 0, &l.path.to_string_lossy(), &mut opts)
                .map_err(|e| Error::BadInput {
                    input: InputName::file(&l.path),
                    source: Box::new(e),
                })?;
        let file_stem = stem(&l.path.to_string_lossy());
        for f in found {
            let member = f.members.into_iter().next();
            let (stem, lazy) = match &member {
                Some(m) => (stem(m), !l.whole_archive),
                None => (file_stem.clone(), false),
            };
            let origin = InputName {
                file: l.path.clone(),
                member,
            };
            for entry in f.binary.entries {
                out.push(DeviceInput {
                    id: out.len(),
                    origin: origin.clone(),
                    stem: stem.clone(),
                    lazy,
                    offset: entry.image_offset,
                    entry,
                });
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stems_and_magic() {
        assert_eq!(stem("/tmp/p-caae51.o"), "p-caae51");
        assert_eq!(stem("devicertl-amdgpu-gfx90a.o"), "devicertl-amdgpu-gfx90a");
        assert_eq!(stem("noext"), "noext");
        assert_eq!(stem(".hidden"), ".hidden");
        assert_eq!(magic(b"!<arch>\n"), Magic::Archive);
        let mut elf = vec![0x7f, b'E', b'L', b'F', 2, 1, 1, 0];
        elf.resize(18, 0);
        elf[16] = 3;
        assert_eq!(magic(&elf), Magic::ElfShared);
        elf[16] = 1;
        assert_eq!(magic(&elf), Magic::ElfRelocatable);
    }

    /// A bad offload binary in an archive member is an error that names the member.
    #[test]
    fn bad_member_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let member = b"\x10\xff\x10\xad\x01\0\0\0\x99\0\0\0\0\0\0\0";
        let mut ar = b"!<arch>\n".to_vec();
        ar.extend(
            format!(
                "{:<16}{:<12}{:<6}{:<6}{:<8}{:<10}`\n",
                "bad.o/", 0, 0, 0, 644, 16
            )
            .bytes(),
        );
        ar.extend_from_slice(member);
        let path = dir.path().join("libbad.a");
        std::fs::write(&path, &ar).unwrap();
        let located = [Located {
            path: path.clone(),
            whole_archive: true,
        }];
        let files = [MappedFile::open_llvm(&path).unwrap()];
        let e = device_inputs(&located, &files).unwrap_err();
        let mut chain = e.to_string();
        let mut src = std::error::Error::source(&e);
        while let Some(s) = src {
            chain.push_str(&format!(": {s}"));
            src = s.source();
        }
        assert!(chain.contains("libbad.a(bad.o)"), "{chain}");
        assert!(chain.contains("0x4c"), "{chain}");
    }

    #[test]
    fn library_search() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().to_str().unwrap();
        std::fs::write(dir.path().join("libx.a"), b"").unwrap();
        std::fs::write(dir.path().join("libx.so"), b"").unwrap();
        std::fs::write(dir.path().join("liby.a"), b"").unwrap();
        std::fs::write(dir.path().join("z.o"), b"").unwrap();
        assert_eq!(
            search_library("x", "", &["/nonexistent", d]),
            Some(dir.path().join("libx.so"))
        );
        assert_eq!(
            search_library("y", "", &[d]),
            Some(dir.path().join("liby.a"))
        );
        assert_eq!(
            search_library(":z.o", "", &[d]),
            Some(dir.path().join("z.o"))
        );
        assert_eq!(
            search_library("x", d, &["=/"]),
            Some(dir.path().join("libx.so"))
        );
        assert_eq!(search_library("w", "", &[d]), None);
    }
}
