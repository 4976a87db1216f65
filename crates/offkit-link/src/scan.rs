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
use offkit_format::container;
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

/// Reads a located input.
pub fn load(l: &Located) -> Result<MappedFile> {
    MappedFile::open(&l.path).map_err(|source| Error::Read {
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

/// Classifies `data`.
pub fn magic(data: &[u8]) -> Magic {
    if data.starts_with(b"!<arch>\n") || data.starts_with(b"!<thin>\n") {
        return Magic::Archive;
    }
    if container::is_bitcode(data) {
        return Magic::Bitcode;
    }
    if data.starts_with(b"\x7fELF") {
        let big = data.get(5) == Some(&2);
        let t = match data.get(16..18) {
            Some(&[a, b]) if big => u16::from_be_bytes([a, b]),
            Some(&[a, b]) => u16::from_le_bytes([a, b]),
            _ => return Magic::ElfOther,
        };
        return match t {
            1 => Magic::ElfRelocatable,
            3 => Magic::ElfShared,
            _ => Magic::ElfOther,
        };
    }
    Magic::Other
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

/// Collects the device images of every loaded input, in order.
pub fn device_inputs<'d>(
    located: &[Located],
    files: &'d [MappedFile],
) -> Result<Vec<DeviceInput<'d>>> {
    let mut out = Vec::new();
    for (l, data) in located.iter().zip(files) {
        let data: &'d [u8] = data;
        match magic(data) {
            Magic::ElfShared => continue,
            Magic::Archive => {
                let archive = object::read::archive::ArchiveFile::parse(data).map_err(|e| {
                    Error::BadInput {
                        input: InputName::file(&l.path),
                        source: Box::new(offkit_format::Error::Object {
                            what: "archive",
                            offset: 0,
                            source: e,
                        }),
                    }
                })?;
                for member in archive.members() {
                    let member = member.map_err(|e| Error::BadInput {
                        input: InputName::file(&l.path),
                        source: Box::new(offkit_format::Error::Object {
                            what: "archive member",
                            offset: 0,
                            source: e,
                        }),
                    })?;
                    let name = String::from_utf8_lossy(member.name()).into_owned();
                    let origin = InputName {
                        file: l.path.clone(),
                        member: Some(name.clone()),
                    };
                    if member.is_thin() {
                        continue;
                    }
                    let (off, _) = member.file_range();
                    let bytes = member.data(data).map_err(|e| Error::BadInput {
                        input: origin.clone(),
                        source: Box::new(offkit_format::Error::Object {
                            what: "archive member",
                            offset: off,
                            source: e,
                        }),
                    })?;
                    push_binaries(&mut out, bytes, off, origin, stem(&name), !l.whole_archive)?;
                }
            }
            _ => {
                let origin = InputName::file(&l.path);
                let s = stem(&l.path.to_string_lossy());
                push_binaries(&mut out, data, 0, origin, s, false)?;
            }
        }
    }
    Ok(out)
}

fn push_entry<'d>(
    out: &mut Vec<DeviceInput<'d>>,
    origin: &InputName,
    stem: &str,
    lazy: bool,
    entry: Entry<'d>,
) {
    out.push(DeviceInput {
        id: out.len(),
        origin: origin.clone(),
        stem: stem.to_string(),
        lazy,
        offset: entry.image_offset,
        entry,
    });
}

fn push_binaries<'d>(
    out: &mut Vec<DeviceInput<'d>>,
    bytes: &'d [u8],
    base: u64,
    origin: InputName,
    stem: String,
    lazy: bool,
) -> Result<()> {
    let bad = |source| Error::BadInput {
        input: origin.clone(),
        source: Box::new(source),
    };
    if magic(bytes) == Magic::Bitcode {
        // A host bitcode object (`-flto`): the offload objects are globals listed in
        // `!llvm.embedded.objects`.
        for e in offkit_format::bitcode::embedded_objects(bytes, base).map_err(bad)? {
            let owned: Vec<Entry<'static>> = match e.data {
                std::borrow::Cow::Borrowed(d) => {
                    for b in container::offload_binaries(d, e.offset).map_err(bad)? {
                        for entry in b.entries {
                            push_entry(out, &origin, &stem, lazy, entry);
                        }
                    }
                    continue;
                }
                std::borrow::Cow::Owned(d) => container::offload_binaries(&d, e.offset)
                    .map_err(bad)?
                    .into_iter()
                    .flat_map(|b| b.entries)
                    .map(Entry::into_owned)
                    .collect(),
            };
            for entry in owned {
                push_entry(out, &origin, &stem, lazy, entry);
            }
        }
        return Ok(());
    }
    for b in container::offload_binaries(bytes, base).map_err(bad)? {
        for entry in b.entries {
            push_entry(out, &origin, &stem, lazy, entry);
        }
    }
    Ok(())
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
