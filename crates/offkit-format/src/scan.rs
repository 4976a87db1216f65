//! The container scanner: every device image and entry table in a file, nested to any depth.
//!
//! One recursive walk over the bytes of an input recognises, by content: static archives (GNU,
//! BSD, thin — thin members are separate files, read through a [`Resolver`] the caller
//! supplies, since this crate does no I/O), ELF files (32/64-bit, either endianness; every
//! section of type `SHT_LLVM_OFFLOADING` whatever its name, `__CLANG_OFFLOAD_BUNDLE__*`
//! sections, `.hip_fatbin`, `.nv_fatbin`, and the offload entry tables), COFF objects, raw
//! offload binaries, offload bundles (plain and compressed) and LLVM bitcode. Each device image
//! found is a row; each image is then looked into again, so that an object inside a bundle
//! inside an archive member is found too.
//!
//! ```text
//! libk.a ─► (k.o) ─► ELF ─► :.llvm.offloading ─► [0] image ─► ELF? ─► …
//!                        ├► :__CLANG_OFFLOAD_BUNDLE__hip-amdgcn-amd-amdhsa--gfx90a ─► image
//!                        └► :omp_offloading_entries ─► entry table
//! ```
//!
//! The walk is bounded: nesting by [`limits::MAX_NESTING_DEPTH`], rows (images plus entries)
//! by [`limits::MAX_ROWS`], and the bytes inflated from compressed data, in total, by
//! [`limits::MAX_INFLATED_SIZE`]. It reads headers only: image payloads are borrowed, never
//! copied (except what decompression produces), so scanning a memory-mapped file touches only
//! the pages that hold headers.
//!
//! ```
//! use offkit_format::binary::{self, ImageSpec};
//! use offkit_format::kind::{ImageKind, OffloadKind};
//! use offkit_format::scan;
//!
//! let spec = ImageSpec {
//!     image_kind: ImageKind::Object,
//!     offload_kind: OffloadKind::OpenMp,
//!     flags: 0,
//!     strings: vec![(b"triple", b"x86_64-pc-linux-gnu"), (b"arch", b"")],
//! };
//! let bytes = binary::write_v1(&spec, b"\x7fELF...", offkit_llvm::LlvmVersion::V19).unwrap();
//! let report = scan::scan(&bytes, "k.bin", &mut scan::Options::default()).unwrap();
//! assert_eq!(report.images[0].location.to_string(), "k.bin[0]");
//! assert_eq!(report.images[0].triple.as_str(), Some("x86_64-pc-linux-gnu"));
//! ```

mod archive;
mod binaries;
mod bundle;
mod cuda;
mod elf;
mod hipfb;
mod inflated;
mod location;
mod report;

use std::fmt;

use object::FileKind;

use crate::binary;
use crate::device::ImageTargetId;
use crate::error::{Error, Result};
use crate::kind::{BundleKind, ImageKind, Model};
use offkit_llvm::triple::Triple;
use offkit_read::limits;

pub use binaries::{
    all_binaries, holder, offload_binaries, read_binaries, Binaries, BinariesError, Found, Holder,
};
pub use hipfb::Unresolved;
pub use location::{Location, Step};
pub use report::{
    Address, BundleRef, Compressed, Compression, Container, EntryInfo, Event, Format, Image,
    ImageInfo, Problem, Report, Source, TableInfo, Warning,
};

/// Reads the members of thin archives, which live in files of their own.
pub trait Resolver {
    /// The bytes of member `member` (its name as the archive stores it, normally a path
    /// relative to the archive's directory) of the thin archive at `archive`. The error's
    /// message names the file (the walk makes it the source of [`Error::ThinMember`]).
    fn thin_member(
        &mut self,
        archive: &Location,
        member: &str,
    ) -> std::io::Result<Box<dyn AsRef<[u8]>>>;
}

/// Which offload entry tables a walk reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum EntryTables {
    /// None.
    None,
    /// Those of host files: the input, archive members, a bundle's host entry (the tables the
    /// offload runtime registers). The default.
    #[default]
    Host,
    /// Also those of ELF device images (an x86_64 offload image has its own table).
    All,
}

/// How much of a compressed bundle the walk decompresses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Inflate {
    /// All of it (checking its size and hash), so that its images' bytes are at hand and
    /// are looked into. Memory: the largest compressed bundle, decompressed. The default.
    #[default]
    Whole,
    /// Only the prefix that holds the bundle's header and entry table, and no further: the
    /// images are listed (with offsets and sizes) but their bytes are not at hand
    /// ([`Image::whole`] is false) and are not looked into; the hash is not checked. Memory:
    /// at most [`limits::MAX_INFLATED_PREFIX`] per bundle, whatever the bundle's size.
    Headers,
    /// As [`Inflate::Headers`], then the rest of each compressed bundle is decompressed as a
    /// stream and dropped, checking its uncompressed size and its hash (`inspect --verify`):
    /// a bundle that fails is an error at its offset. Memory as with `Headers`; time: every
    /// compressed byte.
    Verify,
}

/// What to look for, and how to reach what is not in the input's bytes.
#[derive(Default)]
pub struct Options<'r> {
    /// Which entry tables to read.
    pub entry_tables: EntryTables,
    /// How much of compressed bundles to decompress.
    pub inflate: Inflate,
    /// Whether device images' symbol tables are read for their kernels and entries
    /// ([`crate::code_object::describe`]); without it only their ELF headers are decoded
    /// (`code_object::describe_header`), which touches one page per image.
    pub kernels: bool,
    /// Reads thin archive members; without one, a thin member is an error.
    pub resolver: Option<&'r mut dyn Resolver>,
}

impl fmt::Debug for Options<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Options")
            .field("entry_tables", &self.entry_tables)
            .field("inflate", &self.inflate)
            .field("kernels", &self.kernels)
            .field("resolver", &self.resolver.is_some())
            .finish()
    }
}

/// Scans `data` (the input named `name`) and collects what it holds.
pub fn scan(data: &[u8], name: &str, opts: &mut Options<'_>) -> Result<Report> {
    let mut report = Report::default();
    walk(data, name, opts, &mut |ev| {
        match ev {
            Event::Container(c) => report.containers.push(c.clone()),
            Event::Image(i) => report.images.push(i.info.clone()),
            Event::Table(t) => report.tables.push(t.clone()),
            Event::Warning(w) => report.warnings.push(w.clone()),
        }
        Ok::<(), Error>(())
    })?;
    Ok(report)
}

/// Walks `data` (the input named `name`) and hands every container, image and entry table to
/// `visit`, depth first in file order. The first error — from the data or from `visit` — stops
/// the walk and is returned; format errors inside a nested container are wrapped in
/// [`Error::Within`] naming it. An input that is none of the known formats is an error.
pub fn walk<'r, E: From<Error>>(
    data: &[u8],
    name: &str,
    opts: &mut Options<'r>,
    visit: &mut dyn FnMut(Event<'_>) -> std::result::Result<(), E>,
) -> std::result::Result<(), E> {
    let mut w = Walker {
        entry_tables: opts.entry_tables,
        inflate: opts.inflate,
        kernels: opts.kernels,
        resolver: opts.resolver.take(),
        visit,
        rows: 0,
        inflated: 0,
        compression: Vec::new(),
    };
    let result = w.node(data, 0, &Location::file(name), 0, Pos::Top);
    opts.resolver = w.resolver;
    match result {
        Ok(()) => Ok(()),
        Err(Stop::Format(e)) => Err(e.into()),
        Err(Stop::Visit(e)) => Err(e),
    }
}

/// The address of an image: its range in a file, or its compressed bundle's (or compressed
/// CUDA fat-binary entry's) range there plus its range in the inflated bytes; `None` where the
/// bytes are further away (decoded from bitcode, inflated twice, inside a compressed offload
/// binary).
fn address(info: &ImageInfo, stack: &[Compression]) -> Option<Address> {
    let loc = &info.location;
    let addressable = |c: &Compression| {
        matches!(
            c.format,
            Compressed::Ccob { .. } | Compressed::NvFatbin { .. }
        )
    };
    if info.compression.is_some_and(|c| !addressable(&c)) {
        return None;
    }
    if loc.in_file() {
        return Some(Address {
            offset: info.offset,
            size: info.size,
            inflated: None,
        });
    }
    let inflations = loc
        .steps
        .iter()
        .filter(|s| matches!(s, Step::Inflated))
        .count();
    match stack {
        [c] if addressable(c) && inflations == 1 && !loc.is_decoded() => Some(Address {
            offset: c.offset,
            size: c.compressed_size,
            inflated: Some((info.offset, info.size)),
        }),
        _ => None,
    }
}

/// Where bytes sit, which decides what is looked for in them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pos {
    /// The input file: it must be a known format.
    Top,
    /// A host object's place (an archive member, a bundle's host entry): anything is looked
    /// into, including bitcode.
    Host,
    /// A device image: containers are looked into; bitcode is not (device modules embed no
    /// offload objects); unknown formats are leaves.
    Image,
}

impl Pos {
    /// The position of bytes found inside bytes at this one: the input's contents are no
    /// longer the input.
    fn below_top(self) -> Pos {
        match self {
            Pos::Top => Pos::Host,
            p => p,
        }
    }
}

/// Why a walk stopped.
enum Stop<E> {
    Format(Error),
    Visit(E),
}

impl<E> From<Error> for Stop<E> {
    fn from(e: Error) -> Self {
        Stop::Format(e)
    }
}

type Step_<E> = std::result::Result<(), Stop<E>>;

struct Walker<'v, 'r, E> {
    entry_tables: EntryTables,
    inflate: Inflate,
    kernels: bool,
    resolver: Option<&'r mut dyn Resolver>,
    visit: &'v mut dyn FnMut(Event<'_>) -> std::result::Result<(), E>,
    rows: usize,
    /// Bytes inflated so far (bounded by `MAX_INFLATED_SIZE` for the whole input).
    inflated: u64,
    /// The compressed containers the walk is inside, innermost last.
    compression: Vec<Compression>,
}

/// Splits a bundle entry ID (`hip-amdgcn-amd-amdhsa--gfx90a`) into offload kind, triple (its
/// four components, without trailing empty ones) and target ID.
pub(crate) fn split_bundle_id(id: &str) -> (String, String, String) {
    let (kind, rest) = id.split_once('-').unwrap_or((id, ""));
    let mut parts = rest.splitn(5, '-');
    let triple: Vec<&str> = parts.by_ref().take(4).collect();
    let target_id = parts.next().unwrap_or("");
    let triple = triple.join("-").trim_end_matches('-').to_string();
    (kind.to_string(), triple, target_id.to_string())
}

/// What a bundle entry ID (`hip-amdgcn-amd-amdhsa--gfx90a`) says an image is for: its kind,
/// triple and target ID, read.
pub(crate) fn bundle_target(id: &str) -> (Model, Triple, ImageTargetId) {
    let (kind, triple, target_id) = split_bundle_id(id);
    let triple = Triple::parse(triple);
    let target_id = ImageTargetId::read(&triple, target_id);
    (Model::Bundle(BundleKind::parse(&kind)), triple, target_id)
}

/// The image kind of a payload, from its first bytes.
pub fn sniff_image_kind(bytes: &[u8]) -> ImageKind {
    if bytes.starts_with(b"\x7fELF") {
        ImageKind::Object
    } else if crate::container::is_bitcode(bytes) {
        ImageKind::Bitcode
    } else {
        ImageKind::None
    }
}

impl<E> Walker<'_, '_, E> {
    fn emit(&mut self, ev: Event<'_>) -> Step_<E> {
        (self.visit)(ev).map_err(Stop::Visit)
    }

    fn count_rows(&mut self, n: usize, offset: u64) -> Step_<E> {
        self.rows = self.rows.saturating_add(n);
        if self.rows > limits::MAX_ROWS {
            return Err(Error::limit(
                limits::Limit::Rows,
                "rows (images and entries)",
                offset,
                self.rows as u64,
            )
            .into());
        }
        Ok(())
    }

    /// Reports an image and then, when `descend` says from which position, looks into its
    /// bytes (`base` and `loc` are where they are: the image's own offset and location, or
    /// for inflated bytes 0 and a location ending in [`Step::Inflated`]).
    fn image(
        &mut self,
        info: ImageInfo,
        bytes: &[u8],
        depth: usize,
        descend: Option<Pos>,
    ) -> Step_<E> {
        self.image_part(info, bytes, true, depth, descend)
    }

    /// [`Walker::image`] for an image whose bytes may be only a part (`whole` false).
    fn image_part(
        &mut self,
        mut info: ImageInfo,
        bytes: &[u8],
        whole: bool,
        depth: usize,
        descend: Option<Pos>,
    ) -> Step_<E> {
        self.count_rows(1, info.offset)?;
        if info.compression.is_none() {
            // Inside inflated data: the image came out of the innermost compressed container.
            info.compression = self.compression.last().copied();
        }
        if info.address.is_none() {
            info.address = address(&info, &self.compression);
        }
        if !info.offload_kind.is_host() {
            // An image of a compressed bundle read from its stream comes described; a part of
            // an image (a compressed bundle decompressed only as far as its entry table) still
            // has its ELF header, when it has anything.
            let co = match info.code_object.take() {
                Some(co) => Some(co),
                None if self.kernels && whole => {
                    crate::code_object::describe_at(bytes, info.offset)
                }
                None => crate::code_object::describe_header(bytes),
            };
            info.code_object = co.map(|mut co| {
                co.check_container(info.target_id.as_str());
                co
            });
        }
        self.emit(Event::Image(Image {
            info: &info,
            bytes,
            whole,
        }))?;
        let descend = descend.filter(|_| whole);
        if let Some(pos) = descend {
            self.node(bytes, info.offset, &info.location, depth + 1, pos)?;
        }
        Ok(())
    }

    /// Bytes whose format is recognised by content, at position `pos`.
    fn node(&mut self, data: &[u8], base: u64, loc: &Location, depth: usize, pos: Pos) -> Step_<E> {
        self.node_inner(data, base, loc, depth, pos)
            .map_err(|s| match s {
                Stop::Format(e) => Stop::Format(loc.wrap(e)),
                v => v,
            })
    }

    fn node_inner(
        &mut self,
        data: &[u8],
        base: u64,
        loc: &Location,
        depth: usize,
        pos: Pos,
    ) -> Step_<E> {
        let top = pos == Pos::Top;
        if depth > limits::MAX_NESTING_DEPTH {
            return Err(Error::limit(
                limits::Limit::NestingDepth,
                "container nesting",
                base,
                depth as u64,
            )
            .into());
        }
        let container = |format| Container {
            location: loc.clone(),
            format,
            offset: base,
            size: data.len() as u64,
        };
        if binary::has_magic(data) {
            if top {
                self.emit(Event::Container(&container(Format::OffloadBinaries)))?;
            }
            return self.binaries(data, base, loc, depth);
        }
        if crate::bundle::sequence::starts_bundle(data) {
            return self.bundles(data, base, loc, depth, pos).map(drop);
        }
        if let Some(comment) = bundle::text_bundle(data) {
            return self.text_bundle(data, base, loc, depth, comment);
        }
        match FileKind::parse(data) {
            Ok(FileKind::Elf32 | FileKind::Elf64) => self.elf(data, base, loc, depth, pos),
            Ok(FileKind::Coff | FileKind::Pe32 | FileKind::Pe64) => {
                self.emit(Event::Container(&container(Format::Coff)))?;
                self.coff(data, base, loc, depth)
            }
            Ok(FileKind::Archive) => self.archive(data, base, loc, depth),
            _ if offkit_llvm::bitcode::is_bitcode(data) => {
                self.emit(Event::Container(&container(Format::Bitcode)))?;
                if pos == Pos::Image {
                    // Device bitcode never embeds offload objects; only host objects (`-flto`)
                    // do, and reading a large device module would cost for nothing.
                    return Ok(());
                }
                self.bitcode(data, base, loc, depth)
            }
            _ if top => Err(Error::BadMagic {
                what: "offloading container (ELF, COFF, archive, offload binary, offload bundle \
                       or bitcode)",
                offset: base,
            }
            .into()),
            _ => Ok(()),
        }
    }

    /// Concatenated offload binaries (a `.llvm.offloading` section or a raw file).
    fn binaries(&mut self, data: &[u8], base: u64, loc: &Location, depth: usize) -> Step_<E> {
        let mut n = 0usize;
        for b in binary::parse_all(data, base) {
            let b = b?;
            let compression = match &b.compression {
                Some(c) => {
                    self.inflate(c.inflated_size, b.offset)?;
                    Some(Compression {
                        format: Compressed::OffloadBinary {
                            version: b.version,
                            method: c.format,
                        },
                        offset: b.offset,
                        compressed_size: b.size,
                        uncompressed_size: c.inflated_size,
                    })
                }
                None => None,
            };
            for e in &b.entries {
                let location = loc.with(Step::Binary(n));
                n += 1;
                let lossy = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
                let triple = Triple::parse(&*e.triple());
                let info = ImageInfo {
                    location: location.clone(),
                    source: Source::OffloadBinary {
                        version: b.version,
                        offset: b.offset,
                        flags: e.flags,
                    },
                    offload_kind: Model::Offload(e.offload_kind),
                    image_kind: e.image_kind,
                    target_id: ImageTargetId::read(&triple, e.arch()),
                    triple,
                    strings: e
                        .strings
                        .iter()
                        .map(|(k, v)| (lossy(k), lossy(v)))
                        .collect(),
                    offset: e.image_offset,
                    size: e.image.len() as u64,
                    compression,
                    bundle: None,
                    address: None,
                    code_object: None,
                };
                match &compression {
                    None => self.image(info, &e.image, depth, Some(Pos::Image))?,
                    Some(c) => {
                        // The image's bytes were inflated: offsets inside them are their own.
                        self.image(info, &e.image, depth, None)?;
                        self.compression.push(*c);
                        let r = self.node(
                            &e.image,
                            0,
                            &location.with(Step::Inflated),
                            depth + 1,
                            Pos::Image,
                        );
                        self.compression.pop();
                        r?;
                    }
                }
            }
        }
        Ok(())
    }

    /// Counts `n` more inflated bytes against [`limits::MAX_INFLATED_SIZE`].
    fn inflate(&mut self, n: u64, offset: u64) -> Step_<E> {
        let total = self.inflated.saturating_add(n);
        if total > limits::MAX_INFLATED_SIZE {
            return Err(Error::limit(
                limits::Limit::InflatedSize,
                "inflated bytes of this input",
                offset,
                total,
            )
            .into());
        }
        self.inflated = total;
        Ok(())
    }

    /// An LLVM bitcode host object (`-flto`): the offload binaries in its
    /// `!llvm.embedded.objects` globals.
    fn bitcode(&mut self, data: &[u8], base: u64, loc: &Location, depth: usize) -> Step_<E> {
        for obj in offkit_llvm::bitcode::embedded_objects(data, base).map_err(Error::from)? {
            let gloc = loc.with(Step::Global(String::from_utf8_lossy(obj.name).into_owned()));
            match &obj.data {
                std::borrow::Cow::Borrowed(bytes) => {
                    self.binaries(bytes, obj.offset, &gloc, depth + 1)?
                }
                // Bit-packed array data, decoded: offsets are within the decoded bytes.
                std::borrow::Cow::Owned(bytes) => {
                    self.binaries(bytes, 0, &gloc.with(Step::Decoded), depth + 1)?
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bundle_ids() {
        let s = |id: &str| {
            let (k, t, a) = split_bundle_id(id);
            (k, t, a)
        };
        assert_eq!(
            s("hip-amdgcn-amd-amdhsa--gfx90a:xnack+"),
            (
                "hip".into(),
                "amdgcn-amd-amdhsa".into(),
                "gfx90a:xnack+".into()
            )
        );
        assert_eq!(
            s("host-x86_64-unknown-linux-gnu-"),
            ("host".into(), "x86_64-unknown-linux-gnu".into(), "".into())
        );
        assert_eq!(
            s("hip-amdgcn-amd-amdhsa-gfx9-generic"),
            (
                "hip".into(),
                "amdgcn-amd-amdhsa-gfx9".into(),
                "generic".into()
            )
        );
        assert_eq!(s(""), ("".into(), "".into(), "".into()));
    }
}
