//! Reading bundles strictly (offkit's own commands): the input is mapped, compressed bundles
//! (versions 1–3, several concatenated) are decompressed and checked, and every entry must lie
//! inside its data, past the header, without overlapping another, with a unique ID. Errors name
//! the file, the absolute offset and the problem.

use std::path::{Path, PathBuf};

use offkit_format::bundle::{binary, compressed, text, Detected};

use crate::error::{Error, InputName, Origin, Result, Subject};
use crate::fatobj;
use crate::io::{Input, Output};

/// The container an entry list came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A binary bundle.
    Binary,
    /// A text bundle with this comment syntax.
    Text(text::Comment),
    /// A fat object.
    Object,
}

impl Kind {
    /// A short name for listings.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Binary => "binary",
            Kind::Text(_) => "text",
            Kind::Object => "object",
        }
    }
}

/// One piece of data holding entries: the input itself, or one decompressed bundle of it.
#[derive(Debug)]
pub struct Part {
    /// The data.
    pub input: Input,
    /// Its container kind.
    pub kind: Kind,
    /// How to name it in messages: the file, and for a compressed bundle where it starts.
    pub origin: Origin,
    /// The compressed bundle header, if the data was decompressed.
    pub compressed: Option<compressed::Header>,
}

/// One entry of a bundle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The entry ID as stored.
    pub id: Vec<u8>,
    /// Where its payload starts in its part's data.
    pub offset: u64,
    /// The payload size (1 for a host marker).
    pub size: u64,
    /// For a fat object: the section holds the one-byte host marker, and the payload is the
    /// object without its bundle sections.
    pub host_marker: bool,
    /// The index of the part it is in.
    pub part: usize,
}

impl Entry {
    /// The ID as text (lossily decoded).
    pub fn id_str(&self) -> String {
        String::from_utf8_lossy(&self.id).into_owned()
    }
}

/// An opened bundle file.
#[derive(Debug)]
pub struct Bundle {
    /// The file.
    pub path: PathBuf,
    /// Its data parts (one, or one per concatenated compressed bundle).
    pub parts: Vec<Part>,
    /// Every entry, in file order.
    pub entries: Vec<Entry>,
}

/// Detects the container kind of (uncompressed) `data`: the binary magic, an object file, or a
/// text bundle of any comment syntax.
pub fn detect(data: &[u8]) -> Option<Kind> {
    if binary::is_bundle(data) {
        return Some(Kind::Binary);
    }
    if fatobj::is_object(data) {
        return Some(Kind::Object);
    }
    text::Comment::find_in(data).map(Kind::Text)
}

/// Opens `path` (`-` is stdin) strictly. `kind` forces the container kind of the
/// (decompressed) data; `None` detects it. `limit` bounds the total decompressed size.
pub fn open(path: &Path, kind: Option<Kind>, limit: u64) -> Result<Bundle> {
    let input = Input::open(path).map_err(|source| Error::Read {
        path: path.to_path_buf(),
        source,
    })?;
    open_input(input, kind, limit)
}

/// Like [`open`], for an input already open (an archive member, say).
pub fn open_input(input: Input, kind: Option<Kind>, limit: u64) -> Result<Bundle> {
    let path = input.path().to_path_buf();
    let name = Origin::input(InputName::file(&path));
    let mut parts = Vec::new();
    if offkit_format::bundle::detect(input.bytes()) == Detected::Compressed
        || input.bytes().starts_with(&compressed::MAGIC)
    {
        let all = compressed::decompress_all(input.bytes(), 0, limit).map_err(|source| {
            Error::Format {
                input: name.clone().into(),
                source,
            }
        })?;
        for (header, data) in all {
            let origin = Origin {
                decompressed_at: Some(header.offset),
                ..name.clone()
            };
            parts.push((Input::from_bytes(&path, data), origin, Some(header)));
        }
    } else {
        parts.push((input, name.clone(), None));
    }
    let mut out = Bundle {
        path,
        parts: Vec::new(),
        entries: Vec::new(),
    };
    for (input, origin, header) in parts {
        let k =
            match kind.or_else(|| detect(input.bytes())) {
                Some(k) => k,
                None => return Err(Error::Unusable {
                    input: origin.into(),
                    message:
                        "not an offload bundle (no bundle magic, bundle sections or text markers)"
                            .into(),
                }),
            };
        let part = out.parts.len();
        let fmt = |source| Error::Format {
            input: origin.clone().into(),
            source,
        };
        let entries: Vec<Entry> = match k {
            Kind::Binary => binary::parse(input.bytes(), input.len(), 0)
                .map_err(fmt)?
                .entries
                .into_iter()
                .map(|e| Entry {
                    id: e.id.to_vec(),
                    offset: e.offset,
                    size: e.size,
                    host_marker: false,
                    part,
                })
                .collect(),
            Kind::Text(c) => text::parse(input.bytes(), c, 0)
                .map_err(fmt)?
                .into_iter()
                .map(|e| Entry {
                    id: e.id.to_vec(),
                    offset: e.payload_offset,
                    size: e.payload.len() as u64,
                    host_marker: false,
                    part,
                })
                .collect(),
            Kind::Object => object_entries(&input, &origin, part)?,
        };
        out.entries.extend(entries);
        out.parts.push(Part {
            input,
            kind: k,
            origin,
            compressed: header,
        });
    }
    // Entry IDs must be unique across all parts too.
    for (i, e) in out.entries.iter().enumerate() {
        if out.entries[..i].iter().any(|p| p.id == e.id) {
            return Err(Error::Unusable {
                input: out.parts[e.part].origin.clone().into(),
                message: format!(
                    "duplicate entry ID `{}` (payload at {:#x})",
                    e.id_str(),
                    e.offset
                ),
            });
        }
    }
    Ok(out)
}

fn object_entries(input: &Input, origin: &Origin, part: usize) -> Result<Vec<Entry>> {
    let secs = fatobj::bundle_sections(input.bytes()).map_err(|source| Error::Format {
        input: origin.clone().into(),
        source: offkit_format::Error::Object {
            what: "object file",
            offset: 0,
            source,
        },
    })?;
    if secs.is_empty() {
        return Err(Error::Unusable {
            input: origin.clone().into(),
            message: "the object has no `__CLANG_OFFLOAD_BUNDLE__` sections".into(),
        });
    }
    let mut out = Vec::new();
    for s in secs {
        let host_marker = s.is_host_marker(input.bytes());
        let (offset, size) = s.file_range.ok_or_else(|| Error::Unusable {
            input: origin.clone().into(),
            message: format!(
                "bundle section {} (`{}`) has no contents in the file",
                s.index,
                String::from_utf8_lossy(&s.id)
            ),
        })?;
        if offset.checked_add(size).is_none_or(|e| e > input.len()) {
            return Err(Error::Format {
                input: origin.clone().into(),
                source: offkit_format::Error::Invalid {
                    what: "bundle section",
                    offset,
                    reason: format!(
                        "section {} (`{}`, {size} bytes) runs past the end of the file",
                        s.index,
                        String::from_utf8_lossy(&s.id)
                    ),
                },
            });
        }
        out.push(Entry {
            id: s.id,
            offset,
            size,
            host_marker,
            part,
        });
    }
    Ok(out)
}

impl Bundle {
    /// The entry with exactly this ID.
    pub fn find(&self, id: &[u8]) -> Option<&Entry> {
        self.entries.iter().find(|e| e.id == id)
    }

    /// The entry for a requested target: the entry with exactly that ID; else the one with the
    /// target's standardised ID (`hip-amdgcn-amd-amdhsa-gfx90a` finds
    /// `hip-amdgcn-amd-amdhsa--gfx90a`); else the one entry that LLVM's compatibility rule
    /// accepts for it (a `gfx90a` entry for a `gfx90a:xnack+` target). IDs are read as offkit
    /// reads them ([`offkit_llvm::target_id::bundle::BundleEntryId::parse_any`]: any release's form and processors). Several
    /// compatible entries and no exact one is an error naming them.
    pub fn find_target(&self, target: &[u8]) -> Result<Option<&Entry>> {
        use offkit_llvm::target_id::bundle::{is_compatible, BundleEntryId};
        if let Some(e) = self.find(target) {
            return Ok(Some(e));
        }
        let std = BundleEntryId::parse_any(target).standardised();
        if let Some(e) = self.find(&std) {
            return Ok(Some(e));
        }
        let requested = BundleEntryId::parse_any(&std);
        let compatible: Vec<&Entry> = self
            .entries
            .iter()
            .filter(|e| is_compatible(&BundleEntryId::parse_any(&e.id), &requested, false))
            .collect();
        match compatible.as_slice() {
            [] => Ok(None),
            [one] => Ok(Some(one)),
            many => Err(Error::AmbiguousTarget {
                target: String::from_utf8_lossy(target).into_owned(),
                entries: many.iter().map(|e| e.id_str()).collect(),
            }),
        }
    }

    /// Writes `entry`'s payload to `out`: copied by the kernel from the file when it can, the
    /// host object without its bundle sections for a host marker.
    pub fn extract(&self, entry: &Entry, out: &mut Output) -> Result<()> {
        let part = self.parts.get(entry.part).ok_or_else(|| Error::Unusable {
            input: Origin::input(InputName::file(&self.path)).into(),
            message: "entry of another bundle".into(),
        })?;
        if entry.host_marker {
            let path = out.path().to_path_buf();
            return fatobj::strip_bundle_sections(part.input.bytes(), out).map_err(|source| {
                Error::Object {
                    input: Subject::Rewriting {
                        input: part.origin.clone(),
                        output: path,
                    }
                    .into(),
                    source: Box::new(source),
                }
            });
        }
        part.input
            .copy_range(entry.offset, entry.size, out)
            .map_err(|source| Error::Write {
                path: out.path().to_path_buf(),
                source,
            })
    }
}
