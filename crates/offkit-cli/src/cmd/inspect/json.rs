//! The `--json` form of `offkit inspect` (schema version 2, documented in
//! `docs/inspect-json.md`). Offsets and sizes are integers; field names never change within a
//! schema version, new fields may be added.

use serde::Serialize;

use offkit_format::code_object::CodeObject;
use offkit_format::entry::{Format as EntryFormat, Resolution};
use offkit_format::fatbin::EntrySummary as FatbinEntry;
use offkit_format::scan::{Compression, Container, Format, ImageInfo, Report, Source, TableInfo};

/// The schema version this module writes.
pub const SCHEMA_VERSION: u32 = 2;

#[derive(Debug, Serialize)]
pub struct Document<'a> {
    schema_version: u32,
    files: Vec<File<'a>>,
    /// Files found in directories without device code (present only when there are some).
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    skipped: &'a [String],
}

#[derive(Debug, Serialize)]
struct File<'a> {
    path: &'a str,
    format: String,
    containers: Vec<ContainerJson>,
    images: Vec<ImageJson<'a>>,
    entry_tables: Vec<TableJson<'a>>,
    warnings: Vec<WarningJson>,
    error: Option<&'a InputError>,
}

#[derive(Debug, Serialize)]
struct WarningJson {
    location: String,
    offset: u64,
    message: String,
}

/// Why an input could not be read (schema 2): the file's entry is kept, empty, with this.
#[derive(Debug, Clone, Serialize)]
pub struct InputError {
    /// The whole message: the error and its causes, joined by `: `.
    pub message: String,
    /// The error, then each cause, outermost first.
    pub causes: Vec<String>,
    /// The absolute offset of the innermost problem, when the format error has one.
    pub offset: Option<u64>,
}

#[derive(Debug, Serialize)]
struct ContainerJson {
    location: String,
    kind: &'static str,
    format: String,
    offset: u64,
    size: u64,
}

#[derive(Debug, Serialize)]
struct CompressionJson {
    format: &'static str,
    version: u32,
    method: &'static str,
    offset: u64,
    compressed_size: u64,
    uncompressed_size: u64,
}

#[derive(Debug, Serialize)]
struct BinaryJson {
    version: u32,
    offset: u64,
    flags: u32,
}

#[derive(Debug, Serialize)]
struct ImageJson<'a> {
    location: String,
    source: &'static str,
    offload_kind: String,
    image_kind: String,
    triple: String,
    target_id: &'a str,
    offset: u64,
    size: u64,
    offsets_in: OffsetsIn<'a>,
    strings: Vec<[&'a str; 2]>,
    binary: Option<BinaryJson>,
    bundle_id: Option<&'a str>,
    host_placeholder: bool,
    compression: Option<CompressionJson>,
    bundle: Option<BundleJson>,
    address: Option<String>,
    fatbin: Option<FatbinJson<'a>>,
    code_object: Option<CodeObjectJson<'a>>,
}

/// The bundle of a bundle sequence an image is an entry of.
#[derive(Debug, Serialize)]
struct BundleJson {
    index: usize,
    offset: u64,
    size: u64,
}

/// An entry of a CUDA fat binary.
#[derive(Debug, Serialize)]
struct FatbinJson<'a> {
    fatbin_index: usize,
    fatbin_offset: u64,
    entry_index: usize,
    header_offset: u64,
    header_size: u32,
    kind: String,
    kind_value: u16,
    version: u16,
    arch: u32,
    code_version: [u16; 2],
    flags: u64,
    flag_names: &'a [&'static str],
    unknown_flags: u64,
    name: Option<&'a str>,
    stored_size: u64,
}

/// What an ELF device image's header and symbols say.
#[derive(Debug, Serialize)]
struct CodeObjectJson<'a> {
    arch: &'static str,
    machine: u16,
    e_flags: u32,
    os_abi: u8,
    abi_version: u8,
    processor: &'a str,
    target_id: &'a str,
    xnack: Option<&'static str>,
    sramecc: Option<&'static str>,
    code_object_version: Option<u32>,
    generic_version: Option<u32>,
    kernels: &'a [String],
    entries: Vec<CodeEntryJson<'a>>,
    resources: Option<super::resources::ResourcesJson<'a>>,
    warnings: &'a [String],
}

#[derive(Debug, Serialize)]
struct CodeEntryJson<'a> {
    role: &'static str,
    name: &'a str,
}

fn fatbin(e: &FatbinEntry) -> FatbinJson<'_> {
    FatbinJson {
        fatbin_index: e.fatbin_index,
        fatbin_offset: e.fatbin_offset,
        entry_index: e.entry_index,
        header_offset: e.header_offset,
        header_size: e.header_size,
        kind: e.kind.name().into_owned(),
        kind_value: e.kind.to_raw(),
        version: e.version,
        arch: e.arch,
        code_version: [e.code_version.0, e.code_version.1],
        flags: e.flags,
        flag_names: &e.flag_names,
        unknown_flags: e.unknown_flags,
        name: e.name.as_deref(),
        stored_size: e.stored_size,
    }
}

fn code_object(c: &CodeObject) -> CodeObjectJson<'_> {
    CodeObjectJson {
        arch: c.arch.name(),
        machine: c.machine,
        e_flags: c.e_flags,
        os_abi: c.os_abi,
        abi_version: c.abi_version,
        processor: &c.processor,
        target_id: &c.target_id,
        xnack: c.xnack.map(|s| s.name()),
        sramecc: c.sramecc.map(|s| s.name()),
        code_object_version: c.code_object_version,
        generic_version: c.generic_version,
        kernels: &c.kernels,
        entries: c
            .entries
            .iter()
            .map(|e| CodeEntryJson {
                role: e.role.name(),
                name: &e.name,
            })
            .collect(),
        resources: c.resources.as_ref().map(super::resources::json),
        warnings: &c.warnings,
    }
}

/// Which bytes `offset` counts in.
#[derive(Debug, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum OffsetsIn<'a> {
    /// The input file.
    File,
    /// The file of a thin archive member.
    ThinMember { member: &'a str },
    /// The inflated contents of a compressed container.
    Inflated,
    /// Bytes decoded from a bitcode constant.
    Decoded,
}

#[derive(Debug, Serialize)]
struct TableJson<'a> {
    location: String,
    section: &'static str,
    format: &'static str,
    entry_size: u64,
    pointer_size: u8,
    resolution: &'static str,
    offset: u64,
    entries: Vec<EntryJson<'a>>,
}

#[derive(Debug, Serialize)]
struct EntryJson<'a> {
    index: usize,
    offset: u64,
    offload_kind: &'static str,
    role: &'static str,
    name: &'a str,
    name_resolved: bool,
    size: u64,
    flags: u32,
    flag_names: &'a [&'static str],
    unknown_flags: u32,
    data: u64,
    requires: &'a [&'static str],
    addr: &'a str,
    addr_value: Option<u64>,
    addr_symbol: Option<&'a str>,
    version: u16,
    kind: u16,
}

fn compression(c: &Compression) -> CompressionJson {
    CompressionJson {
        format: c.format.name(),
        version: c.format.version(),
        method: c.format.method(),
        offset: c.offset,
        compressed_size: c.compressed_size,
        uncompressed_size: c.uncompressed_size,
    }
}

fn container_kind(f: &Format) -> &'static str {
    match f {
        Format::Elf { .. } => "elf",
        Format::Coff => "coff",
        Format::Archive { .. } => "archive",
        Format::OffloadBinaries => "offload-binary",
        Format::Bundle => "bundle",
        Format::CompressedBundle(_) => "compressed-bundle",
        Format::Bitcode => "bitcode",
        Format::CudaFatbin => "cuda-fatbin",
        _ => "other",
    }
}

fn container(c: &Container) -> ContainerJson {
    ContainerJson {
        location: c.location.to_string(),
        kind: container_kind(&c.format),
        format: c.format.to_string(),
        offset: c.offset,
        size: c.size,
    }
}

/// The URI of an image's address: its bytes are in the input `path`, or in a thin member's file.
fn address(i: &ImageInfo, path: &str) -> Option<String> {
    let a = i.address?;
    let file = offkit_bundle::thin::bytes_file(&i.location, std::path::Path::new(path));
    let file = file.display().to_string();
    Some(a.uri(&file))
}

fn image<'a>(i: &'a ImageInfo, path: &str) -> ImageJson<'a> {
    let (binary, bundle_id, host_placeholder) = match &i.source {
        Source::OffloadBinary {
            version,
            offset,
            flags,
        } => (
            Some(BinaryJson {
                version: *version,
                offset: *offset,
                flags: *flags,
            }),
            None,
            false,
        ),
        Source::BundleEntry { id } => (None, Some(id.as_str()), false),
        Source::BundleSection {
            id,
            host_placeholder,
        } => (None, Some(id.as_str()), *host_placeholder),
        _ => (None, None, false),
    };
    let offsets_in = if i.location.is_inflated() {
        OffsetsIn::Inflated
    } else if i.location.is_decoded() {
        OffsetsIn::Decoded
    } else if let Some(member) = i.location.thin_member() {
        OffsetsIn::ThinMember { member }
    } else {
        OffsetsIn::File
    };
    ImageJson {
        location: i.location.to_string(),
        source: i.source.name(),
        offload_kind: i.offload_kind.to_string(),
        image_kind: i.image_kind.to_string(),
        triple: i.triple.to_string(),
        target_id: i.target_id.as_str(),
        offset: i.offset,
        size: i.size,
        offsets_in,
        strings: i
            .strings
            .iter()
            .map(|(k, v)| [k.as_str(), v.as_str()])
            .collect(),
        binary,
        bundle_id,
        host_placeholder,
        compression: i.compression.as_ref().map(compression),
        bundle: i.bundle.map(|b| BundleJson {
            index: b.index,
            offset: b.offset,
            size: b.size,
        }),
        address: address(i, path),
        fatbin: match &i.source {
            Source::CudaFatbinEntry(e) => Some(fatbin(e)),
            _ => None,
        },
        code_object: i.code_object.as_ref().map(code_object),
    }
}

fn table(t: &TableInfo) -> TableJson<'_> {
    TableJson {
        location: t.location.to_string(),
        section: t.kind.section_name(),
        format: match t.layout.format {
            EntryFormat::Legacy => "llvm19",
            EntryFormat::Llvm => "llvm20",
        },
        entry_size: t.layout.stride,
        pointer_size: t.layout.pointer_size,
        resolution: match t.resolution {
            Resolution::Static => "static",
            Resolution::Dynamic => "dynamic",
        },
        offset: t.offset,
        entries: t
            .entries
            .iter()
            .map(|e| EntryJson {
                index: e.index,
                offset: e.offset,
                offload_kind: e.offload_kind.name(),
                role: e.role.name(),
                name: &e.name,
                name_resolved: e.name_resolved,
                size: e.size,
                flags: e.flags,
                flag_names: &e.flag_names,
                unknown_flags: e.unknown_flags,
                data: e.data,
                requires: &e.requires,
                addr: &e.addr,
                addr_value: e.addr_value,
                addr_symbol: e.addr_symbol.as_deref(),
                version: e.version,
                kind: e.kind,
            })
            .collect(),
    }
}

/// The document for `reports` (input path, report, why it could not be read) in command-line
/// order.
pub fn document<'a>(
    reports: &'a [(String, Report, Option<InputError>)],
    skipped: &'a [String],
) -> Document<'a> {
    Document {
        schema_version: SCHEMA_VERSION,
        skipped,
        files: reports
            .iter()
            .map(|(path, r, error)| File {
                path,
                format: r
                    .containers
                    .first()
                    .map(|c| c.format.to_string())
                    .unwrap_or_default(),
                containers: r.containers.iter().map(container).collect(),
                images: r.images.iter().map(|i| image(i, path)).collect(),
                entry_tables: r.tables.iter().map(table).collect(),
                warnings: r
                    .warnings
                    .iter()
                    .map(|w| WarningJson {
                        location: w.location.to_string(),
                        offset: w.offset,
                        message: w.problem.to_string(),
                    })
                    .collect(),
                error: error.as_ref(),
            })
            .collect(),
    }
}
