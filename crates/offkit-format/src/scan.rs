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
//! let bytes = binary::write_v1(&spec, b"\x7fELF...").unwrap();
//! let report = scan::scan(&bytes, "k.bin", &mut scan::Options::default()).unwrap();
//! assert_eq!(report.images[0].location.to_string(), "k.bin[0]");
//! assert_eq!(report.images[0].triple, "x86_64-pc-linux-gnu");
//! ```

mod bundle;
mod elf;
mod location;

use std::fmt;

use object::FileKind;

use crate::binary;
use crate::entry::{self, Layout, Resolution, Role, TableKind};
use crate::error::{Error, Result};
use crate::kind::{ImageKind, OffloadKind};
use crate::limits;

pub use location::{Location, Step};

/// Reads the members of thin archives, which live in files of their own.
pub trait Resolver {
    /// The bytes of member `member` (its name as the archive stores it, normally a path
    /// relative to the archive's directory) of the thin archive at `archive`.
    fn thin_member(
        &mut self,
        archive: &Location,
        member: &str,
    ) -> std::result::Result<Box<dyn AsRef<[u8]>>, String>;
}

/// What to look for, and how to reach what is not in the input's bytes.
#[derive(Default)]
pub struct Options<'r> {
    /// Skip the offload entry tables (read by default).
    pub skip_entry_tables: bool,
    /// Reads thin archive members; without one, a thin member is an error.
    pub resolver: Option<&'r mut dyn Resolver>,
}

impl fmt::Debug for Options<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Options")
            .field("skip_entry_tables", &self.skip_entry_tables)
            .field("resolver", &self.resolver.is_some())
            .finish()
    }
}

/// What a container is.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Format {
    /// An ELF file.
    Elf {
        /// `elf32` or `elf64` and the machine, as `llvm-objdump` names it (`elf64-x86-64`).
        name: String,
        /// `relocatable`, `executable`, `pie executable`, `shared`, `core` or `other`.
        file_type: &'static str,
        /// Whether it is big-endian.
        big_endian: bool,
    },
    /// A COFF object.
    Coff,
    /// A static archive.
    Archive {
        /// `gnu`, `bsd`, `thin`, `coff`, `aix` …
        kind: &'static str,
    },
    /// A file that is a sequence of offload binaries.
    OffloadBinaries,
    /// An offload bundle (`__CLANG_OFFLOAD_BUNDLE__`).
    Bundle,
    /// A compressed offload bundle (`CCOB`).
    CompressedBundle(Compression),
    /// LLVM bitcode.
    Bitcode,
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Format::Elf {
                name, file_type, ..
            } => write!(f, "{name} {file_type}"),
            Format::Coff => f.write_str("coff object"),
            Format::Archive { kind } => write!(f, "{kind} archive"),
            Format::OffloadBinaries => f.write_str("offload binary"),
            Format::Bundle => f.write_str("offload bundle"),
            Format::CompressedBundle(c) => write!(f, "compressed offload bundle ({c})"),
            Format::Bitcode => f.write_str("llvm bitcode"),
        }
    }
}

/// A container met during the walk: the input file, an archive member, an object, a bundle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Container {
    /// Where it is.
    pub location: Location,
    /// What it is.
    pub format: Format,
    /// The absolute offset of its first byte.
    pub offset: u64,
    /// Its size in bytes.
    pub size: u64,
}

/// How an image's bytes were compressed.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Compression {
    /// The container format: `ccob` (compressed offload bundle) or `offload-binary`.
    pub format: &'static str,
    /// The format's version.
    pub version: u16,
    /// `zlib`, `zstd`, or `method N`.
    pub method: String,
    /// The absolute offset of the compressed container's header.
    pub offset: u64,
    /// The compressed size (the container's, header included).
    pub compressed_size: u64,
    /// The inflated size.
    pub uncompressed_size: u64,
}

impl fmt::Display for Compression {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} v{} {} {}→{}",
            self.format, self.version, self.method, self.compressed_size, self.uncompressed_size
        )
    }
}

/// Where a device image was found.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Source {
    /// An offload binary (`0x10FF10AD`).
    OffloadBinary {
        /// The binary's version.
        version: u32,
        /// The absolute offset of the binary's header.
        offset: u64,
        /// The entry's flags.
        flags: u32,
    },
    /// An entry of an offload bundle.
    BundleEntry {
        /// The bundle entry ID.
        id: String,
    },
    /// A `__CLANG_OFFLOAD_BUNDLE__<id>` section of an object (a bundled object).
    BundleSection {
        /// The bundle entry ID (the rest of the section name).
        id: String,
        /// The section holds the one `\0` byte that stands for the host object itself.
        host_placeholder: bool,
    },
    /// A `.nv_fatbin` section: a CUDA fatbinary, listed but not looked into.
    NvFatbin,
    /// A `.hip_fatbin` section that holds no offload bundle.
    HipFatbin,
}

impl Source {
    /// A short name: `offload-binary`, `bundle`, `bundle-section`, `nv-fatbin`, `hip-fatbin`.
    pub fn name(&self) -> &'static str {
        match self {
            Source::OffloadBinary { .. } => "offload-binary",
            Source::BundleEntry { .. } => "bundle",
            Source::BundleSection { .. } => "bundle-section",
            Source::NvFatbin => "nv-fatbin",
            Source::HipFatbin => "hip-fatbin",
        }
    }
}

/// A device image and what is known about it, without its bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImageInfo {
    /// Where it is.
    pub location: Location,
    /// What holds it.
    pub source: Source,
    /// The programming model: `openmp`, `cuda`, `hip`, `none` (offload binaries), or a
    /// bundle entry's kind as written (`host`, `hip`, `hipv4`, `openmp`, …).
    pub offload_kind: String,
    /// What the image is.
    pub image_kind: ImageKind,
    /// The target triple.
    pub triple: String,
    /// The target ID (`arch`): a processor and features, e.g. `gfx90a:xnack+`; may be empty.
    pub target_id: String,
    /// All key/value strings of an offload binary entry, in file order.
    pub strings: Vec<(String, String)>,
    /// The absolute offset of the image's first byte (in the inflated data when
    /// `location.is_inflated()`, in the thin member's file for thin members).
    pub offset: u64,
    /// The image size.
    pub size: u64,
    /// The compression of the container it was inflated from, if any.
    pub compression: Option<Compression>,
}

/// A device image and its bytes, as the walk passes it to the visitor.
#[derive(Debug, Clone, Copy)]
pub struct Image<'a> {
    /// What is known about it.
    pub info: &'a ImageInfo,
    /// Its bytes.
    pub bytes: &'a [u8],
}

/// One entry of an entry table, owned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntryInfo {
    /// Its index in the table.
    pub index: usize,
    /// The absolute offset of the entry.
    pub offset: u64,
    /// The programming model.
    pub offload_kind: OffloadKind,
    /// The name string (empty for a null name).
    pub name: String,
    /// Whether the name could be read (false: it points at an undefined symbol, shown in
    /// `name` as `<symbol+addend>`).
    pub name_resolved: bool,
    /// The host address as text: a symbol (`scale`, `.rodata+0x10`), or a hex address, or
    /// `null`.
    pub addr: String,
    /// The address, when it is a known value.
    pub addr_value: Option<u64>,
    /// The symbol at or of the address, when there is one.
    pub addr_symbol: Option<String>,
    /// `size`.
    pub size: u64,
    /// `flags`.
    pub flags: u32,
    /// `data` (LLVM 19: the `reserved` field).
    pub data: u64,
    /// `version` (0 for LLVM 19 entries).
    pub version: u16,
    /// The raw `kind` field (0 for LLVM 19 entries).
    pub kind: u16,
    /// What the entry registers.
    pub role: Role,
    /// The names of the flag bits set.
    pub flag_names: Vec<&'static str>,
    /// Flag bits offkit has no name for.
    pub unknown_flags: u32,
    /// For a `requires` entry, the requirement names.
    pub requires: Vec<&'static str>,
}

/// An entry table, owned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableInfo {
    /// Where it is (the ELF file's location plus the section).
    pub location: Location,
    /// Which section.
    pub kind: TableKind,
    /// The entry layout.
    pub layout: Layout,
    /// How pointers were resolved.
    pub resolution: Resolution,
    /// The absolute offset of the section contents.
    pub offset: u64,
    /// The entries.
    pub entries: Vec<EntryInfo>,
}

impl TableInfo {
    fn from_table(location: Location, t: &entry::Table<'_>) -> Self {
        let lossy = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
        let entries = t
            .entries
            .iter()
            .map(|e| {
                let d = e.describe();
                EntryInfo {
                    index: e.index,
                    offset: e.raw.offset,
                    offload_kind: e.offload_kind,
                    name: e.name.display(),
                    name_resolved: !matches!(e.name, entry::Name::Unresolved(_)),
                    addr: e.addr.to_string(),
                    addr_value: e.addr.value,
                    addr_symbol: e.addr.symbol.map(lossy),
                    size: e.raw.size,
                    flags: e.raw.flags,
                    data: e.raw.data,
                    version: e.raw.version,
                    kind: e.raw.kind,
                    role: d.role,
                    flag_names: d.flags,
                    unknown_flags: d.unknown_flags,
                    requires: d.requires,
                }
            })
            .collect();
        TableInfo {
            location,
            kind: t.kind,
            layout: t.layout,
            resolution: t.resolution,
            offset: t.offset,
            entries,
        }
    }
}

/// What the walk reports, in the order it meets things (file order, depth first).
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub enum Event<'a> {
    /// A container.
    Container(&'a Container),
    /// A device image.
    Image(Image<'a>),
    /// An entry table.
    Table(&'a TableInfo),
}

/// Everything a scan found, without payloads.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Report {
    /// The containers, outermost first.
    pub containers: Vec<Container>,
    /// The device images.
    pub images: Vec<ImageInfo>,
    /// The entry tables.
    pub tables: Vec<TableInfo>,
}

/// Scans `data` (the input named `name`) and collects what it holds.
pub fn scan(data: &[u8], name: &str, opts: &mut Options<'_>) -> Result<Report> {
    let mut report = Report::default();
    walk(data, name, opts, &mut |ev| {
        match ev {
            Event::Container(c) => report.containers.push(c.clone()),
            Event::Image(i) => report.images.push(i.info.clone()),
            Event::Table(t) => report.tables.push(t.clone()),
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
        entry_tables: !opts.skip_entry_tables,
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
    entry_tables: bool,
    resolver: Option<&'r mut dyn Resolver>,
    visit: &'v mut dyn FnMut(Event<'_>) -> std::result::Result<(), E>,
    rows: usize,
    /// Bytes inflated so far (bounded by `MAX_INFLATED_SIZE` for the whole input).
    inflated: u64,
    /// The compressed containers the walk is inside, innermost last.
    compression: Vec<Compression>,
}

/// The `__CLANG_OFFLOAD_BUNDLE__` magic of binary bundles and bundle section names.
pub const BUNDLE_MAGIC: &[u8] = b"__CLANG_OFFLOAD_BUNDLE__";

/// Splits a bundle entry ID (`hip-amdgcn-amd-amdhsa--gfx90a`) into offload kind, triple (its
/// four components, without trailing empty ones) and target ID.
pub fn split_bundle_id(id: &str) -> (String, String, String) {
    let (kind, rest) = id.split_once('-').unwrap_or((id, ""));
    let mut parts = rest.splitn(5, '-');
    let triple: Vec<&str> = parts.by_ref().take(4).collect();
    let target_id = parts.next().unwrap_or("");
    let triple = triple.join("-").trim_end_matches('-').to_string();
    (kind.to_string(), triple, target_id.to_string())
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
            return Err(Error::LimitExceeded {
                what: "rows (images and entries)",
                offset,
                value: self.rows as u64,
                limit: limits::MAX_ROWS as u64,
                name: "MAX_ROWS",
            }
            .into());
        }
        Ok(())
    }

    /// Reports an image and then, when `descend` says from which position, looks into its
    /// bytes (`base` and `loc` are where they are: the image's own offset and location, or
    /// for inflated bytes 0 and a location ending in [`Step::Inflated`]).
    fn image(
        &mut self,
        mut info: ImageInfo,
        bytes: &[u8],
        depth: usize,
        descend: Option<Pos>,
    ) -> Step_<E> {
        self.count_rows(1, info.offset)?;
        if info.compression.is_none() {
            // Inside inflated data: the image came out of the innermost compressed container.
            info.compression = self.compression.last().cloned();
        }
        self.emit(Event::Image(Image { info: &info, bytes }))?;
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
            return Err(Error::LimitExceeded {
                what: "container nesting",
                offset: base,
                value: depth as u64,
                limit: limits::MAX_NESTING_DEPTH as u64,
                name: "MAX_NESTING_DEPTH",
            }
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
        match crate::bundle::detect(data) {
            crate::bundle::Detected::Compressed => {
                return self.compressed_bundle(data, base, loc, depth, pos)
            }
            crate::bundle::Detected::Binary => return self.binary_bundle(data, base, loc, depth),
            crate::bundle::Detected::Other => {}
        }
        if let Some(comment) = bundle::text_bundle(data) {
            return self.text_bundle(data, base, loc, depth, comment);
        }
        match FileKind::parse(data) {
            Ok(FileKind::Elf32 | FileKind::Elf64) => self.elf(data, base, loc, depth),
            Ok(FileKind::Coff) => {
                self.emit(Event::Container(&container(Format::Coff)))?;
                self.coff(data, base, loc, depth)
            }
            Ok(FileKind::Archive) => self.archive(data, base, loc, depth),
            _ if crate::bitcode::is_bitcode(data) => {
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
                        format: "offload-binary",
                        version: b.version as u16,
                        method: c.format.name().to_string(),
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
                let info = ImageInfo {
                    location: location.clone(),
                    source: Source::OffloadBinary {
                        version: b.version,
                        offset: b.offset,
                        flags: e.flags,
                    },
                    offload_kind: match e.offload_kind {
                        OffloadKind::Other(_) => e.offload_kind.to_string(),
                        k => k.name().to_string(),
                    },
                    image_kind: e.image_kind,
                    triple: e.triple().into_owned(),
                    target_id: e.arch().into_owned(),
                    strings: e
                        .strings
                        .iter()
                        .map(|(k, v)| (lossy(k), lossy(v)))
                        .collect(),
                    offset: e.image_offset,
                    size: e.image.len() as u64,
                    compression: compression.clone(),
                };
                match &compression {
                    None => self.image(info, &e.image, depth, Some(Pos::Image))?,
                    Some(c) => {
                        // The image's bytes were inflated: offsets inside them are their own.
                        self.image(info, &e.image, depth, None)?;
                        self.compression.push(c.clone());
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
            return Err(Error::LimitExceeded {
                what: "inflated bytes of this input",
                offset,
                value: total,
                limit: limits::MAX_INFLATED_SIZE,
                name: "MAX_INFLATED_SIZE",
            }
            .into());
        }
        self.inflated = total;
        Ok(())
    }

    /// An LLVM bitcode host object (`-flto`): the offload binaries in its
    /// `!llvm.embedded.objects` globals.
    fn bitcode(&mut self, data: &[u8], base: u64, loc: &Location, depth: usize) -> Step_<E> {
        for obj in crate::bitcode::embedded_objects(data, base)? {
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

    fn archive(&mut self, data: &[u8], base: u64, loc: &Location, depth: usize) -> Step_<E> {
        use object::read::archive::ArchiveFile;
        use object::read::archive::ArchiveKind;
        let err = |offset| {
            move |source| Error::Object {
                what: "archive",
                offset,
                source,
            }
        };
        let archive = ArchiveFile::parse(data).map_err(err(base))?;
        let kind = match archive.kind() {
            _ if archive.is_thin() => "thin",
            ArchiveKind::Gnu | ArchiveKind::Gnu64 => "gnu",
            ArchiveKind::Bsd | ArchiveKind::Bsd64 => "bsd",
            ArchiveKind::Coff => "coff",
            ArchiveKind::AixBig => "aix",
            _ => "unknown",
        };
        self.emit(Event::Container(&Container {
            location: loc.clone(),
            format: Format::Archive { kind },
            offset: base,
            size: data.len() as u64,
        }))?;
        // Where the next member header is, for errors (the object crate's do not say).
        let mut next = 8u64;
        for member in archive.members() {
            let member = member.map_err(err(base + next))?;
            let (off, size) = member.file_range();
            let name = String::from_utf8_lossy(member.name()).into_owned();
            if member.is_thin() {
                let mloc = loc.with(Step::ThinMember(name.clone()));
                let bytes = match self.resolver.as_deref_mut() {
                    Some(r) => r.thin_member(loc, &name),
                    None => Err("no resolver for thin archive members was given".into()),
                }
                .map_err(|reason| Error::Invalid {
                    what: "thin archive member",
                    offset: base + next,
                    reason: format!("cannot read `{name}`: {reason}"),
                })?;
                let bytes: &[u8] = (*bytes).as_ref();
                self.node(bytes, 0, &mloc, depth + 1, Pos::Host)?;
                // The member's header is followed by no data in a thin archive.
                next = off;
            } else {
                let mloc = loc.with(Step::Member(name));
                let bytes = member.data(data).map_err(|source| {
                    mloc.wrap(Error::Object {
                        what: "archive member",
                        offset: base + off,
                        source,
                    })
                })?;
                self.node(bytes, base + off, &mloc, depth + 1, Pos::Host)?;
                next = off + size + (size & 1);
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
