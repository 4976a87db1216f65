//! The `--json` form of `offkit inspect` (schema version 2, documented in
//! `docs/inspect-json.md`). Offsets and sizes are integers; field names never change within a
//! schema version, new fields may be added.

use serde::Serialize;

use offkit_format::entry::{Format as EntryFormat, Resolution};
use offkit_format::scan::{Compression, Container, Format, ImageInfo, Report, Source, TableInfo};

/// The schema version this module writes.
pub const SCHEMA_VERSION: u32 = 2;

#[derive(Debug, Serialize)]
pub struct Document<'a> {
    schema_version: u32,
    files: Vec<File<'a>>,
}

#[derive(Debug, Serialize)]
struct File<'a> {
    path: &'a str,
    format: String,
    containers: Vec<ContainerJson>,
    images: Vec<ImageJson<'a>>,
    entry_tables: Vec<TableJson<'a>>,
    error: Option<&'a InputError>,
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
struct CompressionJson<'a> {
    format: &'static str,
    version: u16,
    method: &'a str,
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
    offload_kind: &'a str,
    image_kind: String,
    triple: &'a str,
    target_id: &'a str,
    offset: u64,
    size: u64,
    offsets_in: OffsetsIn<'a>,
    strings: Vec<[&'a str; 2]>,
    binary: Option<BinaryJson>,
    bundle_id: Option<&'a str>,
    host_placeholder: bool,
    compression: Option<CompressionJson<'a>>,
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

fn compression(c: &Compression) -> CompressionJson<'_> {
    CompressionJson {
        format: c.format,
        version: c.version,
        method: &c.method,
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

fn image(i: &ImageInfo) -> ImageJson<'_> {
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
        offload_kind: &i.offload_kind,
        image_kind: i.image_kind.to_string(),
        triple: &i.triple,
        target_id: &i.target_id,
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
pub fn document<'a>(reports: &'a [(String, Report, Option<InputError>)]) -> Document<'a> {
    Document {
        schema_version: SCHEMA_VERSION,
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
                images: r.images.iter().map(image).collect(),
                entry_tables: r.tables.iter().map(table).collect(),
                error: error.as_ref(),
            })
            .collect(),
    }
}
