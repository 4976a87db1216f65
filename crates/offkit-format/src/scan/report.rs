//! What the walk reports: containers, device images and entry tables, as owned values (no
//! payloads), and the events that carry them.

use std::fmt;

use std::sync::Arc;

use super::hipfb::Unresolved;
use super::Location;
use crate::device::ImageTargetId;
use crate::entry::{self, Layout, Resolution, Role, TableKind};
use crate::kind::{ImageKind, Model, OffloadKind};
use crate::Error;
use offkit_llvm::triple::Triple;

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
    /// A CUDA fat binary (in `.nv_fatbin` or `__nv_relfatbin`).
    CudaFatbin,
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
            Format::CudaFatbin => f.write_str("cuda fat binary"),
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

/// How an image's bytes were compressed: the compressed container, and where it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Compression {
    /// The compressed container, its version and method.
    pub format: Compressed,
    /// The absolute offset of the compressed container's header.
    pub offset: u64,
    /// The compressed size (the container's, header included).
    pub compressed_size: u64,
    /// The inflated size.
    pub uncompressed_size: u64,
}

/// A compressed container: its format, version and method.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Compressed {
    /// A compressed offload bundle (`CCOB`).
    Ccob {
        /// The header's version (1, 2 or 3).
        version: u16,
        /// zlib or zstd.
        method: crate::bundle::compressed::Method,
    },
    /// A compressed offload binary (version 3).
    OffloadBinary {
        /// The binary's version.
        version: u32,
        /// zlib or zstd.
        method: crate::binary::CompressionFormat,
    },
    /// A compressed entry of a CUDA fat binary.
    NvFatbin {
        /// The fat binary's version.
        version: u16,
        /// LZ4 or zstd.
        method: crate::fatbin::Method,
    },
}

impl Compressed {
    /// The format's name: `ccob`, `offload-binary` or `nv-fatbin`.
    pub fn name(self) -> &'static str {
        match self {
            Compressed::Ccob { .. } => "ccob",
            Compressed::OffloadBinary { .. } => "offload-binary",
            Compressed::NvFatbin { .. } => "nv-fatbin",
        }
    }

    /// The format's version.
    pub fn version(self) -> u32 {
        match self {
            Compressed::Ccob { version, .. } | Compressed::NvFatbin { version, .. } => {
                u32::from(version)
            }
            Compressed::OffloadBinary { version, .. } => version,
        }
    }

    /// The method's name: `zlib`, `zstd` or `lz4`.
    pub fn method(self) -> &'static str {
        match self {
            Compressed::Ccob { method, .. } => method.name(),
            Compressed::OffloadBinary { method, .. } => method.name(),
            Compressed::NvFatbin { method, .. } => method.name(),
        }
    }
}

impl fmt::Display for Compressed {
    /// `ccob v3 zstd`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} v{} {}", self.name(), self.version(), self.method())
    }
}

impl fmt::Display for Compression {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {}→{}",
            self.format, self.compressed_size, self.uncompressed_size
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
    /// A `.nv_fatbin` section listed whole (no longer produced: the walk reads CUDA fat
    /// binaries entry by entry, [`Source::CudaFatbinEntry`]).
    NvFatbin,
    /// A `.hip_fatbin` section that holds no offload bundle.
    HipFatbin,
    /// An entry of a CUDA fat binary (`.nv_fatbin`, `__nv_relfatbin`).
    CudaFatbinEntry(crate::fatbin::EntrySummary),
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
            Source::CudaFatbinEntry(_) => "cuda-fatbin",
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
    /// The programming model: an offload binary's kind (`openmp`, `cuda`, `hip`, `none`), or
    /// a bundle entry's kind as written (`host`, `hip`, `hipv4`, `openmp`, …).
    pub offload_kind: Model,
    /// What the image is.
    pub image_kind: ImageKind,
    /// The target triple (as written; may be empty).
    pub triple: Triple,
    /// The target ID (`arch`): a processor and features, e.g. `gfx90a:xnack+`, as written
    /// (may be empty) and read for the triple.
    pub target_id: ImageTargetId,
    /// All key/value strings of an offload binary entry, in file order.
    pub strings: Vec<(String, String)>,
    /// The absolute offset of the image's first byte (in the inflated data when
    /// `location.is_inflated()`, in the thin member's file for thin members).
    pub offset: u64,
    /// The image size.
    pub size: u64,
    /// The compression of the container it was inflated from, if any.
    pub compression: Option<Compression>,
    /// The bundle of a bundle sequence it is an entry of, if any.
    pub bundle: Option<BundleRef>,
    /// Where its bytes can be found again (see [`Address`]), when they can.
    pub address: Option<Address>,
    /// What the image's ELF header and symbols say (target ID, code-object version,
    /// kernels), for ELF device images; filled in by the walk.
    pub code_object: Option<crate::code_object::CodeObject>,
}

/// The bundle an image is an entry of: its place in the sequence of bundles of its section or
/// file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BundleRef {
    /// The bundle's index in its sequence, from 0.
    pub index: usize,
    /// The absolute offset of the bundle's first byte (for a compressed bundle, of its `CCOB`
    /// header; in the file unless the sequence itself was inflated).
    pub offset: u64,
    /// The bundle's size (a compressed bundle's compressed size, header included).
    pub size: u64,
}

/// Where an image's bytes are, stably enough for a script to hand back to `offkit extract`:
/// a byte range of a file (the input, or for a thin archive member the member's own file),
/// and for an image inside a compressed bundle the compressed bundle's range plus the image's
/// range within the bundle once decompressed.
///
/// Written as a URI (`file://PATH#offset=N&size=M`, as ROCm's roc-obj does, plus
/// `&inflated-offset=I&inflated-size=J` for compressed bundles) by [`Address::uri`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Address {
    /// The absolute offset of the range in the file.
    pub offset: u64,
    /// The range's size.
    pub size: u64,
    /// For an image inside a compressed bundle or a compressed CUDA fat-binary entry (the range
    /// above): its offset and size in the inflated bytes.
    pub inflated: Option<(u64, u64)>,
}

impl Address {
    /// The address as a URI naming the file at `path`: `file://PATH#offset=N&size=M`, with
    /// `&inflated-offset=I&inflated-size=J` for an image inside a compressed bundle. Bytes of
    /// the path other than ASCII letters, digits and `/._-~+` are percent-encoded.
    pub fn uri(&self, path: &str) -> String {
        let mut s = String::from("file://");
        for b in path.bytes() {
            if b.is_ascii_alphanumeric() || b"/._-~+".contains(&b) {
                s.push(b as char);
            } else {
                s.push_str(&format!("%{b:02X}"));
            }
        }
        s.push_str(&format!("#offset={}&size={}", self.offset, self.size));
        if let Some((o, n)) = self.inflated {
            s.push_str(&format!("&inflated-offset={o}&inflated-size={n}"));
        }
        s
    }

    /// Reads a URI written by [`Address::uri`] (or roc-obj's `file://PATH#offset=N&size=M`):
    /// the path and the address; `None` if it is not one.
    pub fn parse_uri(uri: &str) -> Option<(String, Address)> {
        let rest = uri.strip_prefix("file://")?;
        let (path, frag) = rest.rsplit_once('#')?;
        let mut bytes = Vec::new();
        let mut it = path.bytes();
        while let Some(b) = it.next() {
            if b == b'%' {
                let hex = [it.next()?, it.next()?];
                let hex = std::str::from_utf8(&hex).ok()?;
                bytes.push(u8::from_str_radix(hex, 16).ok()?);
            } else {
                bytes.push(b);
            }
        }
        let path = String::from_utf8(bytes).ok()?;
        let (mut offset, mut size, mut io, mut is) = (None, None, None, None);
        for kv in frag.split('&') {
            let (k, v) = kv.split_once('=')?;
            let v: u64 = v.parse().ok()?;
            match k {
                "offset" => offset = Some(v),
                "size" => size = Some(v),
                "inflated-offset" => io = Some(v),
                "inflated-size" => is = Some(v),
                _ => return None,
            }
        }
        let inflated = match (io, is) {
            (Some(o), Some(n)) => Some((o, n)),
            (None, None) => None,
            _ => return None,
        };
        Some((
            path,
            Address {
                offset: offset?,
                size: size?,
                inflated,
            },
        ))
    }
}

/// Something the walk noticed that is not an error: the data can be read, but disagrees with
/// itself (e.g. the `__hip_fatbin_wrapper` records and the bundles of `.hip_fatbin`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    /// Where.
    pub location: Location,
    /// The absolute offset it is about.
    pub offset: u64,
    /// What is wrong (its `Display` says it: lowercase, no trailing period).
    pub problem: Problem,
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.location, self.problem)
    }
}

/// What a [`Warning`] is about.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum Problem {
    /// The bundles of `.hip_fatbin` cannot be followed by their sizes (`why`); the
    /// `__hip_fatbin_wrapper` records of `.hipFatBinSegment`, which all point into the section,
    /// locate them instead.
    BundlesByRecords {
        /// How many records there are.
        records: usize,
        /// Why the sizes cannot be followed.
        why: Arc<Error>,
    },
    /// A `__hip_fatbin_wrapper` record does not say where its bundle is.
    Unresolved {
        /// The record's index in `.hipFatBinSegment`.
        record: usize,
        /// Its absolute offset.
        offset: u64,
        /// Why.
        why: Unresolved,
    },
    /// A `__hip_fatbin_wrapper` record points where no bundle starts.
    NoBundleThere {
        /// The record's index in `.hipFatBinSegment`.
        record: usize,
        /// Its absolute offset.
        offset: u64,
        /// Where it points, in `.hip_fatbin`.
        target: u64,
        /// The same, in the file.
        file_offset: u64,
    },
    /// A bundle of `.hip_fatbin` that no `__hip_fatbin_wrapper` record points at: the HIP
    /// runtime would not register it.
    Unregistered {
        /// The bundle's index.
        bundle: usize,
        /// Its absolute offset.
        offset: u64,
        /// How many records there are.
        records: usize,
    },
    /// An offload entry table that cannot be read (the rest of the file is read all the same).
    EntryTable(Arc<Error>),
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let record = |f: &mut fmt::Formatter<'_>, record: &usize, offset: &u64| {
            write!(f, "`__hip_fatbin_wrapper` record {record} at {offset:#x}: ")
        };
        match self {
            Problem::BundlesByRecords { records, why } => write!(
                f,
                "the bundles cannot be followed by their sizes ({why}); the {records} \
                 `__hip_fatbin_wrapper` records of `.hipFatBinSegment` locate them instead"
            ),
            Problem::Unresolved {
                record: r,
                offset,
                why,
            } => {
                record(f, r, offset)?;
                why.fmt(f)
            }
            Problem::NoBundleThere {
                record: r,
                offset,
                target,
                file_offset,
            } => {
                record(f, r, offset)?;
                write!(
                    f,
                    "it points at offset {target:#x} of `.hip_fatbin` (file offset \
                     {file_offset:#x}), where no bundle starts"
                )
            }
            Problem::Unregistered {
                bundle,
                offset,
                records,
            } => write!(
                f,
                "bundle {bundle} at {offset:#x} has no `__hip_fatbin_wrapper` record in \
                 `.hipFatBinSegment` ({records} records): the HIP runtime would not register it"
            ),
            Problem::EntryTable(e) => write!(f, "cannot read the offload entry table: {e}"),
        }
    }
}

/// Problems compare as they read (the errors they hold are not comparable).
impl PartialEq for Problem {
    fn eq(&self, other: &Self) -> bool {
        self.to_string() == other.to_string()
    }
}

impl Eq for Problem {}

/// A device image and its bytes, as the walk passes it to the visitor.
#[derive(Debug, Clone, Copy)]
pub struct Image<'a> {
    /// What is known about it.
    pub info: &'a ImageInfo,
    /// Its bytes — all of them unless `whole` is false.
    pub bytes: &'a [u8],
    /// Whether `bytes` is the whole image. It is not for the images of a compressed bundle
    /// walked with [`super::Inflate::Headers`], where only the bundle's header was
    /// decompressed (`bytes` is then what of the image that prefix holds, often nothing).
    pub whole: bool,
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
    pub(super) fn from_table(location: Location, t: &entry::Table<'_>) -> Self {
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
    /// Something that disagrees with itself, but does not stop the walk.
    Warning(&'a Warning),
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
    /// The warnings.
    pub warnings: Vec<Warning>,
}
