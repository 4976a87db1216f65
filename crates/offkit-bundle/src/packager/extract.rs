//! Extraction: the input is read as LLVM's `extractOffloadBinaries` reads it: by its magic
//! (LLVM's `identify_magic`) a raw offload binary, an ELF relocatable/executable/shared object
//! (every section of type `SHT_LLVM_OFFLOADING`), a COFF object (sections named
//! `.llvm.offloading*`), an archive (each member, recursively; a thin archive's members from
//! their files) or an LLVM bitcode file (the `llvm.embedded.object` globals); anything else
//! holds no images. Each filter's matches are written under LLVM's names.

use std::path::{Path, PathBuf};

use offkit_format::binary::{self, Binary, Entry};
use offkit_format::kind::{ImageKind, OffloadKind};
use offkit_format::scan::{holder, offload_binaries, Binaries, Holder, Location, Resolver};
use offkit_llvm::LlvmVersion;
use offkit_tools::fs::{Output, Outputs, STDIO};
use offkit_tools::mmap::MappedFile;

use super::{stem, Event, ExtractConfig, ImageArgs, Rules};
use crate::{Error, Result};

/// One image found in the input, with the name LLVM gives its buffer (the input path, an
/// archive member's name, or a bitcode module's identifier).
#[derive(Debug)]
pub struct Found<'d> {
    /// The buffer's name.
    pub name: String,
    /// The image, its offload kind numbered as the release reads it (see [`collect`]).
    pub entry: Entry<'d>,
}

/// Extracts the images `cfg`'s filters select from its input, as the release does: for each
/// filter, its matches into one archive (`--archive`), the last one into its `file=`, or each
/// under LLVM's name (`<stem>-<triple>-<arch>.<n>.<ext>`). Every output appears, or none.
pub fn extract(cfg: &ExtractConfig, events: &mut dyn FnMut(Event<'_>)) -> Result<()> {
    let input = cfg.input.as_path();
    let (data, name) = if input.as_os_str() == STDIO {
        let d = MappedFile::stdin().map_err(read_error(input))?;
        (d, "<stdin>".to_string())
    } else {
        let d = MappedFile::open_llvm(input).map_err(read_error(input))?;
        (d, input.display().to_string())
    };
    let dir = (input.as_os_str() != STDIO)
        .then(|| input.parent().map(Path::to_path_buf).unwrap_or_default());
    let found = collect(&data, &name, dir, cfg.rules.llvm)?;
    let input = input.display().to_string();
    let mut outs = Outputs::default();
    for args in &cfg.images {
        let matched: Vec<&Found<'_>> = found
            .iter()
            .filter(|f| matches(args, &f.entry, &cfg.rules))
            .collect();
        let Some(last) = matched.last() else {
            continue;
        };
        if cfg.archive {
            let Some(file) = args.get("file") else {
                return Err(Error::ImageWithoutFile);
            };
            write_archive(&mut outs, file, &matched)?;
        } else if let Some(file) = args.get("file") {
            if matched.len() > 1 {
                events(Event::MultipleMatches { file });
            }
            stage_file(&mut outs, file, &last.entry.image)?;
        } else {
            for (i, f) in matched.iter().enumerate() {
                let e = &f.entry;
                let out = format!(
                    "{}-{}-{}.{i}.{}",
                    stem(&input),
                    e.triple(),
                    e.arch(),
                    image_kind_name(e.image_kind)
                );
                stage_file(&mut outs, &out, &e.image)?;
            }
        }
    }
    outs.commit()
        .map_err(|(path, source)| Error::Write { path, source })
}

fn read_error(path: &Path) -> impl FnOnce(std::io::Error) -> Error + '_ {
    move |source| Error::Read {
        path: path.to_path_buf(),
        source,
    }
}

/// Writes `data` to `path` through the one output path, but the output joins `outs` and
/// appears only when they are committed together (LLVM leaves the files written before a
/// failure, offkit none).
fn stage_file(outs: &mut Outputs, path: &str, data: &[u8]) -> Result<()> {
    let write = |source| Error::Write {
        path: path.into(),
        source,
    };
    let mut out = Output::create(Path::new(path)).map_err(write)?;
    std::io::Write::write_all(&mut out, data).map_err(write)?;
    outs.push(out);
    Ok(())
}

/// `getImageKindName`: the extension of an extracted image's name (LLVM 19 and 22 have none
/// for SPIR-V).
fn image_kind_name(kind: ImageKind) -> &'static str {
    match kind {
        ImageKind::Spirv => "",
        k => k.extension(),
    }
}

/// Whether `entry` passes the filter: `file` is ignored, `kind` compares offload kinds (the
/// release's `getOffloadKind`), every other key must equal the entry's string (a missing one
/// reads as empty).
fn matches(args: &ImageArgs, entry: &Entry<'_>, rules: &Rules) -> bool {
    args.pairs.iter().all(|(k, v)| match k.as_str() {
        "file" => true,
        "kind" => entry.offload_kind == rules.offload_kind(v),
        _ => entry.string(k).unwrap_or_default() == v.as_bytes(),
    })
}

/// Why LLVM's `OffloadBinary::create` refuses a buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CreateError {
    /// Too short, not the magic or not version 1 (`object_error::parse_failed`).
    ParseFailed,
    /// A size or offset past the buffer (`object_error::unexpected_eof`).
    UnexpectedEof,
}

impl std::fmt::Display for CreateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            CreateError::ParseFailed => "too short, without the magic or not version 1",
            CreateError::UnexpectedEof => "a size or offset lies past the end of the buffer",
        })
    }
}

/// Why reading the input stopped, apart from the scanner's own errors until the end.
#[derive(Debug)]
enum Stop {
    Create(CreateError),
    Format(offkit_format::Error),
    Bitcode(offkit_format::Error),
}

impl From<offkit_format::Error> for Stop {
    fn from(e: offkit_format::Error) -> Stop {
        Stop::Format(e)
    }
}

impl offkit_format::scan::BinariesError for Stop {
    /// LLVM's messages do not say where.
    fn within(self, _: &Location) -> Stop {
        self
    }
}

impl From<Stop> for Error {
    fn from(s: Stop) -> Error {
        match s {
            Stop::Create(problem) => Error::OffloadBinaryCreate { problem },
            Stop::Format(source) => Error::Format {
                input: Box::new(crate::Subject::Bundle),
                source,
            },
            Stop::Bitcode(source) => Error::BitcodeModule { source },
        }
    }
}

/// A mapped thin archive member.
struct Mapped(MappedFile);

impl AsRef<[u8]> for Mapped {
    fn as_ref(&self) -> &[u8] {
        &self.0
    }
}

/// A thin archive's members: files next to the archive, opened as LLVM opens inputs (a
/// member naming `/dev/zero` is refused at once).
struct ThinMembers {
    dir: PathBuf,
}

impl Resolver for ThinMembers {
    fn thin_member(
        &mut self,
        _archive: &Location,
        member: &str,
    ) -> std::io::Result<Box<dyn AsRef<[u8]>>> {
        let path = self.dir.join(member);
        let file = MappedFile::open_llvm(&path).map_err(|e| {
            let kind = e.kind();
            let text = offkit_tools::os_message(&e);
            std::io::Error::new(kind, format!("'{}': {text}", path.display()))
        })?;
        Ok(Box::new(Mapped(file)))
    }
}

/// The images of the input `name`, found as LLVM's `extractOffloadBinaries` finds them (the
/// scanner's flat list, [`offkit_format::scan::offload_binaries`]), each section read with
/// LLVM's checks; each named after its buffer (the innermost archive member, or the input).
/// Also `llvm-objdump --offloading`'s reading of an object (the same `extractOffloadBinaries`).
/// Thin archive members are read from `dir` (without one, from the working directory).
pub fn collect<'d>(
    data: &'d [u8],
    name: &str,
    dir: Option<PathBuf>,
    llvm: LlvmVersion,
) -> Result<Vec<Found<'d>>> {
    let mut thin = ThinMembers {
        dir: dir.unwrap_or_default(),
    };
    let mut read = for_any_section(move |d, base| binaries(d, base, llvm));
    let mut opts = Binaries {
        read: &mut read,
        resolver: Some(&mut thin),
        skip_shared_input: false,
        bitcode_error: Stop::Bitcode,
    };
    let found = offload_binaries(data, 0, name, &mut opts)?;
    Ok(found
        .into_iter()
        .flat_map(|f| {
            let name = f.members.last().map_or(name, String::as_str).to_string();
            f.binary.entries.into_iter().map(move |entry| Found {
                name: name.clone(),
                entry,
            })
        })
        .collect())
}

/// `f`, typed as the scanner takes a reader: for a section of any lifetime.
fn for_any_section<F>(f: F) -> F
where
    F: for<'a> FnMut(&'a [u8], u64) -> std::result::Result<Vec<Binary<'a>>, Stop>,
{
    f
}

/// Reads the offload binaries of one section (or raw file) as LLVM 19 and 22 do: version 1
/// only, each at the end of the previous one, with LLVM's checks; where LLVM would read out of
/// bounds, offkit's own error.
///
/// An offload kind keeps its number as release `llvm` sees it: a number the release does not
/// write for the kind offkit reads (LLVM 19's HIP, 3, for LLVM 22, whose HIP is 4, and back)
/// is no kind LLVM's `getOffloadKind` gives, so `--image=kind=…` does not select it.
fn binaries(
    data: &[u8],
    base: u64,
    llvm: LlvmVersion,
) -> std::result::Result<Vec<Binary<'_>>, Stop> {
    let mut pos = 0usize;
    let mut out = Vec::new();
    while pos < data.len() {
        let rest = data.get(pos..).unwrap_or_default();
        llvm_checks(rest)?;
        let mut b = binary::parse_one(rest, base + pos as u64)?;
        // The checks above found the entry inside the binary.
        let raw = u64_at(rest, 16)
            .and_then(|at| usize::try_from(at).ok())
            .and_then(|at| rest.get(at + 2..at + 4))
            .map(|k| u16::from_le_bytes([k[0], k[1]]));
        for e in &mut b.entries {
            if let Some(raw) = raw {
                if e.offload_kind.to_raw(llvm) != Some(raw) {
                    e.offload_kind = OffloadKind::Other(raw);
                }
            }
        }
        pos += b.size as usize;
        out.push(b);
    }
    Ok(out)
}

fn u64_at(d: &[u8], at: u64) -> Option<u64> {
    let at = usize::try_from(at).ok()?;
    d.get(at..at.checked_add(8)?)
        .and_then(|b| b.try_into().ok())
        .map(u64::from_le_bytes)
}

/// The checks of LLVM 19's (and 22's) `OffloadBinary::create` on a buffer: the first that
/// fails (`llvm-objdump` reads a raw offload binary file so before it lists it).
pub fn create_error(buf: &[u8]) -> Option<CreateError> {
    if buf.len() < 72 || !buf.starts_with(&binary::MAGIC) || buf.get(4..8) != Some(&[1, 0, 0, 0]) {
        return Some(CreateError::ParseFailed);
    }
    let field = |at| u64_at(buf, at).unwrap_or(u64::MAX);
    let (size, entry_offset, entry_size) = (field(8), field(16), field(24));
    if size > buf.len() as u64 || size < 40 {
        return Some(CreateError::UnexpectedEof);
    }
    if entry_offset > size - 40 || entry_size > size - 32 {
        return Some(CreateError::UnexpectedEof);
    }
    // The entry lies within `size` bytes now.
    let (strings, image) = (field(entry_offset + 8), field(entry_offset + 24));
    if image > buf.len() as u64 || strings > buf.len() as u64 {
        return Some(CreateError::UnexpectedEof);
    }
    None
}

/// The checks of LLVM's `OffloadBinary::create`, run on the rest of the section and then on a
/// copy of the binary's own `size` bytes.
fn llvm_checks(rest: &[u8]) -> std::result::Result<(), Stop> {
    let checks = |buf: &[u8]| match create_error(buf) {
        Some(e) => Err(Stop::Create(e)),
        None => Ok(()),
    };
    checks(rest)?;
    let size = u64_at(rest, 8).unwrap_or(0) as usize;
    checks(rest.get(..size).unwrap_or_default())
}

/// Writes the matched images as LLVM's `writeArchive` does for the packager: GNU format,
/// deterministic (mtime, uid, gid 0, mode 644), a symbol table of the object members, each
/// member named after the buffer the image came from.
fn write_archive(outs: &mut Outputs, file: &str, matched: &[&Found<'_>]) -> Result<()> {
    for f in matched {
        if holder(&f.entry.image) == Holder::Bitcode {
            // Where offkit cannot list a bitcode member's symbols as LLVM would, refuse rather
            // than write a different archive.
            offkit_llvm::bitcode::archive_symbols(&f.entry.image, 0).map_err(|e| {
                Error::BitcodeSymbols {
                    member: f.name.clone(),
                    source: offkit_format::Error::from(e),
                }
            })?;
        }
    }
    // The one archive writer (LLVM's `writeArchive` rules: symbol table only when a member
    // is an object or bitcode).
    let members: Vec<(String, &[u8])> = matched
        .iter()
        .map(|f| (f.name.clone(), f.entry.image.as_ref()))
        .collect();
    let bytes = crate::archive::write(&members).map_err(|source| Error::ArchiveWrite { source })?;
    stage_file(outs, file, &bytes)
}
