//! Extraction: `clang-offload-packager INPUT --image=key=value,… [--archive]`.
//!
//! The input is read as LLVM 19's `extractOffloadBinaries` reads it: by its magic (LLVM's
//! `identify_magic`) a raw offload binary, an ELF relocatable/executable/shared object (every
//! section of type `SHT_LLVM_OFFLOADING`), a COFF object (sections named `.llvm.offloading*`),
//! an archive (each member, recursively; a thin archive's members from their files) or an LLVM
//! bitcode file (the `llvm.embedded.object` globals); anything else holds no images. Each
//! `--image` is a filter; its matches are written under LLVM's names.

use std::path::{Path, PathBuf};

use offkit_format::binary::{self, Binary, Entry};
use offkit_format::kind::{ImageKind, OffloadKind};
use offkit_format::scan::{holder, offload_binaries, Binaries, Holder, Resolver};
use offkit_llvm::LlvmVersion;
use offkit_tools::mmap::MappedFile;

use super::files::{commit, stage_file, stem, Outputs};
use super::package::ImageArgs;
use super::Release;
use crate::dropin::cl::Reporter;
use crate::dropin::error::{Error, Result};

/// `object_error::parse_failed`.
const PARSE_FAILED: &str = "Invalid data was encountered while parsing the file";
/// `object_error::unexpected_eof`.
const UNEXPECTED_EOF: &str = "The end of the file was unexpectedly encountered";

/// One image found in the input, with the name LLVM gives its buffer (the input path, an
/// archive member's name, or a bitcode module's identifier).
pub(crate) struct Found<'d> {
    /// The buffer's name.
    pub name: String,
    /// The image, its offload kind numbered as the release reads it (see [`collect`]).
    pub entry: Entry<'d>,
}

/// Runs extraction mode; an error prints as LLVM's message after `error: `.
pub fn run(
    input: &str,
    images: &[String],
    archive: bool,
    release: &Release,
    reporter: &Reporter,
) -> Result {
    let (data, name) = if input == "-" {
        let d = MappedFile::stdin().map_err(|e| Error::file(input, e))?;
        (d, "<stdin>".to_string())
    } else {
        let d = MappedFile::open_llvm(Path::new(input)).map_err(|e| Error::file(input, e))?;
        (d, input.to_string())
    };
    let dir = (input != "-").then(|| {
        Path::new(input)
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default()
    });
    let found = collect(&data, &name, dir, release.llvm)?;
    let mut outs = Outputs::default();
    for filter in images {
        let args = ImageArgs::parse(filter);
        let matched: Vec<&Found<'_>> = found
            .iter()
            .filter(|f| matches(&args, &f.entry, release))
            .collect();
        let Some(last) = matched.last() else {
            continue;
        };
        if archive {
            let Some(file) = args.get("file") else {
                return Err(Error::msg("Image must have a 'file' argument."));
            };
            write_archive(&mut outs, file, &matched)?;
        } else if let Some(file) = args.get("file") {
            if matched.len() > 1 {
                reporter.warning(&format!("Multiple inputs match to a single file, '{file}'"));
            }
            stage_file(&mut outs, file, &last.entry.image)?;
        } else {
            for (i, f) in matched.iter().enumerate() {
                let e = &f.entry;
                let out = format!(
                    "{}-{}-{}.{i}.{}",
                    stem(input),
                    e.triple(),
                    e.arch(),
                    image_kind_name(e.image_kind)
                );
                stage_file(&mut outs, &out, &e.image)?;
            }
        }
    }
    commit(outs)
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
fn matches(args: &ImageArgs, entry: &Entry<'_>, release: &Release) -> bool {
    args.pairs.iter().all(|(k, v)| match k.as_str() {
        "file" => true,
        "kind" => entry.offload_kind == release.offload_kind(v),
        _ => entry.string(k).unwrap_or_default() == v.as_bytes(),
    })
}

/// An error on the way, as the message LLVM prints (or offkit's own where LLVM has none).
struct Msg(String);

impl From<offkit_format::Error> for Msg {
    fn from(e: offkit_format::Error) -> Msg {
        use offkit_format::Error as E;
        Msg(match e {
            E::Object {
                what: "archive" | "archive member",
                source,
                ..
            } => format!("malformed archive: {source}"),
            E::Object {
                what: "COFF file",
                source,
                ..
            } => format!("malformed COFF object: {source}"),
            E::Object {
                what: "COFF section",
                source,
                ..
            } => format!("malformed COFF section: {source}"),
            E::Invalid {
                what: "thin archive member",
                reason,
                ..
            } => reason,
            // The member's file, named as LLVM names a file it cannot open.
            E::ThinMember { source, .. } => source.to_string(),
            e => e.to_string(),
        })
    }
}

impl offkit_format::scan::BinariesError for Msg {
    /// LLVM's messages do not say where.
    fn within(self, _: &offkit_format::scan::Location) -> Msg {
        self
    }
}

/// Where LLVM cannot load a bitcode module it says "Failed to create module"; where offkit does
/// not do what LLVM would, its own message.
fn bitcode_error(e: offkit_format::Error) -> Msg {
    match e {
        e @ offkit_format::Error::Unsupported { .. } => Msg(e.to_string()),
        _ => Msg("Failed to create module".into()),
    }
}

/// A mapped thin archive member.
struct Mapped(MappedFile);

impl AsRef<[u8]> for Mapped {
    fn as_ref(&self) -> &[u8] {
        &self.0
    }
}

/// A thin archive's members: files next to the archive, opened as LLVM opens inputs.
struct ThinMembers {
    dir: PathBuf,
}

impl Resolver for ThinMembers {
    fn thin_member(
        &mut self,
        _archive: &offkit_format::scan::Location,
        member: &str,
    ) -> std::io::Result<Box<dyn AsRef<[u8]>>> {
        let path = self.dir.join(member);
        let file = MappedFile::open_llvm(&path).map_err(|e| {
            let kind = e.kind();
            std::io::Error::new(kind, Error::file(&path, e).to_string())
        })?;
        Ok(Box::new(Mapped(file)))
    }
}

/// The images of the input `name`, found as LLVM 19's `extractOffloadBinaries` finds them (the
/// scanner's flat list, [`offkit_format::scan::offload_binaries`]), each section read with
/// LLVM 19's checks and messages; each named after its buffer (the innermost archive member,
/// or the input). Also `llvm-objdump --offloading`'s reading of an object (the same
/// `extractOffloadBinaries`); an error is LLVM's message ([`Error::Message`]).
pub(crate) fn collect<'d>(
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
        bitcode_error,
    };
    let found = offload_binaries(data, 0, name, &mut opts).map_err(|m| Error::Message(m.0))?;
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

/// The names LLVM's archive writer lists in the symbol table for a bitcode member (its
/// irsymtab, read by offkit's bitcode reader); `Err` where offkit cannot do what LLVM would
/// (rebuild a missing table from the module).
fn bitcode_archive_symbols(data: &[u8]) -> Result<Vec<&[u8]>, offkit_format::Error> {
    offkit_llvm::bitcode::archive_symbols(data, 0).map_err(offkit_format::Error::from)
}

/// `f`, typed as the scanner takes a reader: for a section of any lifetime.
fn for_any_section<F>(f: F) -> F
where
    F: for<'a> FnMut(&'a [u8], u64) -> std::result::Result<Vec<Binary<'a>>, Msg>,
{
    f
}

/// Reads the offload binaries of one section (or raw file) as LLVM 19 and 22 do: version 1
/// only, each at the end of the previous one, with LLVM's checks and messages; where LLVM
/// would read out of bounds, offkit's own message.
///
/// An offload kind keeps its number as release `llvm` sees it: a number the release does not
/// write for the kind offkit reads (LLVM 19's HIP, 3, for LLVM 22, whose HIP is 4, and back)
/// is no kind LLVM's `getOffloadKind` gives, so `--image=kind=…` does not select it.
fn binaries(data: &[u8], base: u64, llvm: LlvmVersion) -> Result<Vec<Binary<'_>>, Msg> {
    let mut pos = 0usize;
    let mut out = Vec::new();
    while pos < data.len() {
        let rest = data.get(pos..).unwrap_or_default();
        llvm19_checks(rest)?;
        let mut b = binary::parse_one(rest, base + pos as u64).map_err(|e| Msg(e.to_string()))?;
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

/// The checks of LLVM 19's (and 22's) `OffloadBinary::create` on a buffer: the message of the
/// first that fails (`llvm-objdump` reads a raw offload binary file so before it lists it).
pub(crate) fn create_error(buf: &[u8]) -> Option<&'static str> {
    if buf.len() < 72 || !buf.starts_with(&binary::MAGIC) || buf.get(4..8) != Some(&[1, 0, 0, 0]) {
        return Some(PARSE_FAILED);
    }
    let field = |at| u64_at(buf, at).unwrap_or(u64::MAX);
    let (size, entry_offset, entry_size) = (field(8), field(16), field(24));
    if size > buf.len() as u64 || size < 40 {
        return Some(UNEXPECTED_EOF);
    }
    if entry_offset > size - 40 || entry_size > size - 32 {
        return Some(UNEXPECTED_EOF);
    }
    // The entry lies within `size` bytes now.
    let (strings, image) = (field(entry_offset + 8), field(entry_offset + 24));
    if image > buf.len() as u64 || strings > buf.len() as u64 {
        return Some(UNEXPECTED_EOF);
    }
    None
}

/// The checks of LLVM 19's `OffloadBinary::create`, run on the rest of the section and then on
/// a copy of the binary's own `size` bytes, with the errors they give.
fn llvm19_checks(rest: &[u8]) -> Result<(), Msg> {
    let checks = |buf: &[u8]| match create_error(buf) {
        Some(m) => Err(Msg(m.to_string())),
        None => Ok(()),
    };
    checks(rest)?;
    let size = u64_at(rest, 8).unwrap_or(0) as usize;
    checks(rest.get(..size).unwrap_or_default())
}

/// Writes the matched images as LLVM 19's `writeArchive` does for the packager: GNU format,
/// deterministic (mtime, uid, gid 0, mode 644), a symbol table of the object members, each
/// member named after the buffer the image came from.
fn write_archive(outs: &mut Outputs, file: &str, matched: &[&Found<'_>]) -> Result {
    for f in matched {
        if holder(&f.entry.image) == Holder::Bitcode {
            // Where offkit cannot list a bitcode member's symbols as LLVM would, refuse rather
            // than write a different archive.
            bitcode_archive_symbols(&f.entry.image)
                .map_err(|e| Error::msg(format!("'{}': {e}", f.name)))?;
        }
    }
    // The one archive writer (LLVM's `writeArchive` rules: symbol table only when a member
    // is an object or bitcode).
    let members: Vec<(String, &[u8])> = matched
        .iter()
        .map(|f| (f.name.clone(), f.entry.image.as_ref()))
        .collect();
    let bytes = offkit_bundle::archive::write(&members).map_err(Error::Os)?;
    stage_file(outs, file, &bytes)
}
