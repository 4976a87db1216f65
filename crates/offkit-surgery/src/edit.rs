//! What is done to one bundle: compressed, decompressed, pruned or one entry replaced.

use offkit_format::bundle::binary;
use offkit_format::bundle::compressed::{self, Options};
use offkit_format::bundle::sequence::{Kind, Piece};
use offkit_format::device::ImageTargetId;
use offkit_llvm::triple::Triple;
use offkit_read::limits;

use crate::filter::Filter;

/// The names of an offload binary's images, `triple-arch`, as prunes report them.
pub(crate) fn image_names(b: &offkit_format::binary::Binary<'_>) -> Vec<String> {
    b.entries
        .iter()
        .map(|e| format!("{}-{}", e.triple(), e.arch()))
        .collect()
}

/// One offload binary of a `.llvm.offloading` section split by a [`Filter`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct BinaryRange {
    /// Its range in the section (padded to 8 after version 1, as the compiler lays them out).
    pub start: u64,
    /// Where it ends.
    pub end: u64,
    /// Whether it stays (one of its images does).
    pub keep: bool,
    /// Where it goes in the section's new contents.
    pub new_start: u64,
}

/// A `.llvm.offloading` section's offload binaries split by a [`Filter`].
#[derive(Debug, Clone, Default)]
pub(crate) struct BinarySplit {
    /// Each binary, in order.
    pub bins: Vec<BinaryRange>,
    /// The images kept (`triple-arch`), in order.
    pub kept: Vec<String>,
    /// The images removed.
    pub removed: Vec<String>,
    /// The binaries kept, one after another: the section's new contents.
    pub section: Vec<u8>,
}

/// Splits the offload binaries of `bytes` (a `.llvm.offloading` section at absolute `offset`)
/// by `filter`: a binary stays when one of its images does.
pub(crate) fn split_binaries(
    bytes: &[u8],
    offset: u64,
    filter: &Filter,
) -> offkit_format::Result<BinarySplit> {
    let mut out = BinarySplit::default();
    for b in offkit_format::binary::parse_all(bytes, offset) {
        let b = b?;
        let names = image_names(&b);
        let keep = b.entries.iter().any(|e| {
            let triple = Triple::parse(&*e.triple());
            let tid = ImageTargetId::read(&triple, e.arch());
            filter.keeps_image(&triple, &tid, e.image_kind)
        });
        let start = b.offset - offset;
        let mut end = start + b.size;
        if b.version != 1 {
            end = end.next_multiple_of(8).min(bytes.len() as u64);
        }
        let new_start = out.section.len() as u64;
        if keep {
            let range = usize::try_from(start).ok().zip(usize::try_from(end).ok());
            out.section
                .extend_from_slice(range.and_then(|(s, e)| bytes.get(s..e)).unwrap_or_default());
            out.kept.extend(names);
        } else {
            out.removed.extend(names);
        }
        out.bins.push(BinaryRange {
            start,
            end,
            keep,
            new_start,
        });
    }
    Ok(out)
}

/// A code object put in place of a bundle entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Replacement {
    /// The absolute offset of the bundle (of its `CCOB` header when compressed).
    pub bundle: u64,
    /// The entry's ID.
    pub id: String,
    /// The entry's payload offset in the bundle (the decompressed bundle when compressed).
    pub entry_offset: u64,
    /// The new payload.
    pub payload: Vec<u8>,
    /// The level a compressed bundle is compressed again with; `None`: the level it was made
    /// with, found by compressing it again at the levels of [`LEVELS`] until one gives its
    /// bytes (LLVM 19's 3 when none does, with a [`Warning::LevelNotFound`](crate::Warning)).
    pub level: Option<i32>,
}

/// The levels tried, in this order, to find the one a compressed bundle was made with: for
/// zstd 3 (LLVM 19's bundler and zstd's own default), 5 (LLVM's `zstd::DefaultCompression`),
/// 9, 12 (LLVM's `BestSizeCompression`), 19 (zstd's highest without `--ultra`), 20, 22, 1
/// (`BestSpeedCompression`); for zlib 6 (its default), 9, 1.
pub const LEVELS: [(compressed::Method, &[i32]); 2] = [
    (compressed::Method::Zstd, &[3, 5, 9, 12, 19, 20, 22, 1]),
    (compressed::Method::Zlib, &[6, 9, 1]),
];

/// The level to compress a replaced bundle again with: `asked`, else the one the original
/// (`original`, at absolute offset `at`, inflating to `plain`) was made with, else 3 and a
/// warning.
fn level_for(
    asked: Option<i32>,
    at: u64,
    original: &[u8],
    header: &compressed::Header,
    plain: &[u8],
) -> offkit_format::Result<(i32, Option<crate::plan::Warning>)> {
    if let Some(l) = asked {
        return Ok((l, None));
    }
    if let Some(l) = level_of(original, header, plain)? {
        return Ok((l, None));
    }
    let tried = LEVELS
        .iter()
        .find(|(m, _)| *m == header.method)
        .map_or_else(Vec::new, |(_, l)| l.to_vec());
    let warning = crate::plan::Warning::LevelNotFound {
        bundle: at,
        tried,
        used: 3,
    };
    Ok((3, Some(warning)))
}

/// The level of [`LEVELS`] at which `plain` compresses to exactly `original` (a compressed
/// bundle's bytes, written with `header`'s version and method), if one does.
fn level_of(
    original: &[u8],
    header: &compressed::Header,
    plain: &[u8],
) -> offkit_format::Result<Option<i32>> {
    let levels = LEVELS
        .iter()
        .find(|(m, _)| *m == header.method)
        .map_or(&[][..], |(_, l)| *l);
    for &level in levels {
        let opts = Options {
            version: header.version,
            method: header.method,
            level,
            ..Options::default()
        };
        if compressed::compress(plain, &opts)?.bytes == original {
            return Ok(Some(level));
        }
    }
    Ok(None)
}

/// What is done to every bundle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Edit {
    /// Plain bundles are compressed as LLVM 19's bundler compresses them with these options
    /// (one-shot, one thread, so the bytes are LLVM's); compressed bundles of another version or
    /// method are decompressed and compressed again; the others stay.
    Compress(Options),
    /// Compressed bundles are decompressed.
    Decompress,
    /// Entries the filter does not keep are removed (compressed bundles are compressed again
    /// with their version and method and `level`).
    Prune {
        /// Which entries stay.
        filter: Filter,
        /// The zstd (or zlib) level for bundles compressed again.
        level: i32,
        /// Whether a file may be left without any device image (with a
        /// [`Warning::NoDeviceImage`](crate::Warning::NoDeviceImage) in its plan); otherwise
        /// such a prune is refused ([`Error::NoDeviceImage`](crate::Error::NoDeviceImage)).
        allow_empty: bool,
    },
    /// One entry of one bundle is replaced.
    Replace(Replacement),
}

/// A part of a rewritten bundle, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Part {
    /// Bytes made here (a header, a compressed bundle, a replacement).
    Bytes(Vec<u8>),
    /// Bytes of the input, copied by the kernel and never read into memory (payloads kept by
    /// a prune of a plain bundle).
    Input {
        /// The absolute offset in the input.
        offset: u64,
        /// How many.
        len: u64,
    },
    /// Zero bytes (padding).
    Zeros(u64),
}

/// The bytes of a rewritten bundle, as parts.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Content {
    /// The parts, in order.
    pub parts: Vec<Part>,
}

impl Content {
    /// The size of the bundle.
    pub fn len(&self) -> u64 {
        self.parts
            .iter()
            .map(|p| match p {
                Part::Bytes(b) => b.len() as u64,
                Part::Input { len, .. } => *len,
                Part::Zeros(n) => *n,
            })
            .sum()
    }

    /// Whether it is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Its bytes when it is one part made in memory (a compressed or inflated bundle), moved
    /// rather than copied; otherwise itself.
    pub(crate) fn into_bytes(self) -> Result<Vec<u8>, Content> {
        match <[Part; 1]>::try_from(self.parts) {
            Ok([Part::Bytes(b)]) => Ok(b),
            Ok([p]) => Err(Content { parts: vec![p] }),
            Err(parts) => Err(Content { parts }),
        }
    }
}

impl From<Vec<u8>> for Content {
    fn from(b: Vec<u8>) -> Content {
        Content {
            parts: vec![Part::Bytes(b)],
        }
    }
}

/// What became of one bundle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Outcome {
    /// The new bytes, or `None` when the bundle stays as it is.
    pub bytes: Option<Content>,
    /// The IDs of the entries removed.
    pub removed: Vec<String>,
    /// The IDs of the entries kept.
    pub kept: Vec<String>,
    /// Whether the new bytes are still to be made ([`defer`]).
    pub pending: bool,
    /// For a pending bundle, its new size when known now (a decompressed bundle's).
    pub expected: Option<u64>,
    /// What the user should know about this bundle's rewrite.
    pub warning: Option<crate::plan::Warning>,
}

/// The payload alignment the bundle was written with, as `-bundle-align` (the largest power
/// of two up to 4096 with which LLVM 19's layout gives the bundle's offsets); `None` when no
/// alignment gives them.
fn alignment(h: &binary::Header<'_>) -> Option<u64> {
    let ids: Vec<&[u8]> = h.entries.iter().map(|e| e.id).collect();
    let sizes: Vec<u64> = h.entries.iter().map(|e| e.size).collect();
    let offsets: Vec<u64> = h.entries.iter().map(|e| e.offset).collect();
    (0..=12)
        .rev()
        .map(|s| 1u64 << s)
        .find(|&a| binary::layout(&ids, &sizes, a).is_ok_and(|l| l.offsets == offsets))
}

/// [`alignment`], or an error saying that the bundle at `at` cannot be laid out again. Its
/// payloads then lie one after another, in the order of its entry table.
fn bundler_alignment(h: &binary::Header<'_>, at: u64) -> offkit_format::Result<u64> {
    alignment(h).ok_or_else(|| offkit_format::Error::Invalid {
        what: "offload bundle",
        offset: at,
        reason: "its payloads are not where LLVM's bundler puts them with any alignment up \
                 to 4096, so it cannot be rewritten as the bundler would"
            .into(),
    })
}

/// The compressed bundle `blob` (at `at`) pruned to the entries `keep` of its header `h`, as
/// plain bytes: decompressed as a stream, each kept payload copied to its new place as it
/// goes by, the others never held. Memory: the decompressor's window and the new bundle.
fn pruned_stream(
    blob: &compressed::Blob<'_>,
    h: &binary::Header<'_>,
    keep: &[&binary::Entry<'_>],
    at: u64,
) -> offkit_format::Result<Vec<u8>> {
    let align = bundler_alignment(h, at)?;
    let ids: Vec<&[u8]> = keep.iter().map(|e| e.id).collect();
    let sizes: Vec<u64> = keep.iter().map(|e| e.size).collect();
    let l = binary::layout(&ids, &sizes, align)?;
    let mut out = l.header.clone();
    // The payloads come in the order of the entry table (the bundler's layout, checked by
    // `bundler_alignment`), which is their order in the new bundle too.
    let ranges: Vec<_> = keep
        .iter()
        .map(|e| e.offset..e.offset.saturating_add(e.size))
        .collect();
    let mut sink = |i: usize, part: &[u8]| -> Result<(), std::convert::Infallible> {
        if let Some(&to) = l.offsets.get(i) {
            if (out.len() as u64) < to {
                out.resize(to as usize, 0);
            }
        }
        out.extend_from_slice(part);
        Ok(())
    };
    let produced = match compressed::stream::inflate_ranges(blob, &ranges, &mut sink) {
        Ok(n) => n,
        Err(compressed::stream::SinkOr::Format(e)) => return Err(e),
        Err(compressed::stream::SinkOr::Sink(never)) => match never {},
    };
    if ranges.iter().any(|r| r.end > produced) {
        return Err(offkit_format::Error::Invalid {
            what: "offload bundle",
            offset: at,
            reason: "its entries' payloads run past its decompressed bytes".into(),
        });
    }
    // A last entry without payload bytes still has its place.
    if let Some((&to, &size)) = l.offsets.last().zip(sizes.last()) {
        let end = to.saturating_add(size) as usize;
        if out.len() < end {
            out.resize(end, 0);
        }
    }
    Ok(out)
}

/// The first bytes of the compressed bundle `blob` (at `at`) that hold its header and entry
/// table ([`compressed::stream::header_prefix`]), which must parse.
pub(crate) fn inflated_header(
    blob: &compressed::Blob<'_>,
    at: u64,
) -> offkit_format::Result<Vec<u8>> {
    let prefix = compressed::stream::header_prefix(blob, |_| Ok::<_, offkit_format::Error>(()))?;
    binary::parse(&prefix, blob.header.uncompressed_size, at)?;
    Ok(prefix)
}

/// The entries of `h` that `filter` keeps, and the IDs of those kept and removed.
fn split<'h, 'd>(
    h: &'h binary::Header<'d>,
    filter: &Filter,
) -> (Vec<&'h binary::Entry<'d>>, Vec<String>, Vec<String>) {
    let (keep, drop): (Vec<_>, Vec<_>) = h.entries.iter().partition(|e| filter.keeps(e.id));
    let ids = |v: &[&binary::Entry<'_>]| v.iter().map(|e| e.id_str().into_owned()).collect();
    let (kept, removed) = (ids(&keep), ids(&drop));
    (keep, kept, removed)
}

/// Where a payload of a rewritten bundle comes from.
enum Src<'a> {
    /// The input, at this absolute offset, this many bytes.
    Input(u64, u64),
    /// Memory.
    Mem(&'a [u8]),
}

/// The parts of a content that are all in memory, joined (for compression).
fn flatten(c: Content) -> Vec<u8> {
    let mut out = Vec::with_capacity(c.len() as usize);
    for p in c.parts {
        match p {
            Part::Bytes(b) => out.extend_from_slice(&b),
            Part::Zeros(n) => out.resize(out.len() + n as usize, 0),
            // `relayout` is given only memory payloads when its result is flattened.
            Part::Input { .. } => {}
        }
    }
    out
}

/// The bundle `h` rewritten with `entries` (ID, payload) in its own alignment, as LLVM 19's
/// bundler lays it out.
fn relayout(
    h: &binary::Header<'_>,
    entries: &[(&[u8], Src<'_>)],
    at: u64,
) -> offkit_format::Result<Content> {
    let align = bundler_alignment(h, at)?;
    let ids: Vec<&[u8]> = entries.iter().map(|(id, _)| *id).collect();
    let sizes: Vec<u64> = entries
        .iter()
        .map(|(_, s)| match s {
            Src::Input(_, n) => *n,
            Src::Mem(b) => b.len() as u64,
        })
        .collect();
    let l = binary::layout(&ids, &sizes, align)?;
    let mut parts = vec![Part::Bytes(l.header.clone())];
    for ((_, src), pad) in entries.iter().zip(l.padding()) {
        if pad > 0 {
            parts.push(Part::Zeros(pad));
        }
        parts.push(match src {
            Src::Input(offset, len) => Part::Input {
                offset: *offset,
                len: *len,
            },
            Src::Mem(b) => Part::Bytes(b.to_vec()),
        });
    }
    Ok(Content { parts })
}

/// The plain bundle of a piece: its own bytes, or its decompressed bytes.
fn plain<'p>(piece: &'p Piece<'_>) -> offkit_format::Result<std::borrow::Cow<'p, [u8]>> {
    Ok(match &piece.kind {
        Kind::Plain(_) => std::borrow::Cow::Borrowed(piece.data),
        Kind::Compressed(blob) => std::borrow::Cow::Owned(compressed::decompress_blob(
            blob,
            limits::MAX_INFLATED_SIZE,
        )?),
    })
}

/// What `edit` makes of `piece`.
pub(crate) fn apply(piece: &Piece<'_>, edit: &Edit) -> offkit_format::Result<Outcome> {
    let unchanged = |h: Option<&binary::Header<'_>>| Outcome {
        bytes: None,
        removed: Vec::new(),
        kept: h
            .map(|h| h.entries.iter().map(|e| e.id_str().into_owned()).collect())
            .unwrap_or_default(),
        pending: false,
        expected: None,
        warning: None,
    };
    let stream_opts = |header: &compressed::Header, level: i32| Options {
        version: header.version,
        method: header.method,
        level,
        ..Options::default()
    };
    match (edit, &piece.kind) {
        (Edit::Compress(opts), Kind::Plain(h)) => Ok(Outcome {
            bytes: Some(
                compressed::compress(piece.data, &single(opts))?
                    .bytes
                    .into(),
            ),
            ..unchanged(Some(h))
        }),
        (Edit::Compress(opts), Kind::Compressed(blob)) => {
            if blob.header.version == opts.version && blob.header.method == opts.method {
                check_header(blob, piece.offset)?;
                return Ok(unchanged(None));
            }
            let data = plain(piece)?;
            Ok(Outcome {
                bytes: Some(compressed::compress(&data, &single(opts))?.bytes.into()),
                ..unchanged(None)
            })
        }
        (Edit::Decompress, Kind::Plain(h)) => Ok(unchanged(Some(h))),
        (Edit::Decompress, Kind::Compressed(_)) => Ok(Outcome {
            bytes: Some(plain(piece)?.into_owned().into()),
            ..unchanged(None)
        }),
        (Edit::Prune { filter, level, .. }, Kind::Compressed(blob)) => {
            let prefix = inflated_header(blob, piece.offset)?;
            let h = binary::parse(&prefix, blob.header.uncompressed_size, piece.offset)?;
            let (keep, kept, removed) = split(&h, filter);
            if removed.is_empty() {
                return Ok(Outcome {
                    kept,
                    ..unchanged(None)
                });
            }
            let plain = pruned_stream(blob, &h, &keep, piece.offset)?;
            Ok(Outcome {
                bytes: Some(
                    compressed::compress(&plain, &stream_opts(&blob.header, *level))?
                        .bytes
                        .into(),
                ),
                removed,
                kept,
                ..unchanged(None)
            })
        }
        (Edit::Prune { filter, .. }, Kind::Plain(h)) => {
            let (keep, kept, removed) = split(h, filter);
            if removed.is_empty() {
                return Ok(Outcome {
                    kept,
                    ..unchanged(None)
                });
            }
            let entries: Vec<(&[u8], Src<'_>)> = keep
                .iter()
                .map(|e| (e.id, Src::Input(piece.offset + e.offset, e.size)))
                .collect();
            Ok(Outcome {
                bytes: Some(relayout(h, &entries, piece.offset)?),
                removed,
                kept,
                ..unchanged(None)
            })
        }
        (Edit::Replace(r), kind) => {
            if r.bundle != piece.offset {
                if let Kind::Compressed(blob) = kind {
                    check_header(blob, piece.offset)?;
                }
                return Ok(unchanged(None));
            }
            let data = plain(piece)?;
            let h = binary::parse(&data, data.len() as u64, piece.offset)?;
            let hit = |e: &binary::Entry<'_>| e.offset == r.entry_offset && e.id == r.id.as_bytes();
            if !h.entries.iter().any(hit) {
                return Err(offkit_format::Error::Invalid {
                    what: "offload bundle",
                    offset: piece.offset,
                    reason: format!(
                        "no entry `{}` has its payload at offset {:#x}",
                        r.id, r.entry_offset
                    ),
                });
            }
            let entries: Vec<(&[u8], Src<'_>)> = h
                .entries
                .iter()
                .map(|e| {
                    let p = if hit(e) {
                        Src::Mem(&r.payload[..])
                    } else if let Kind::Plain(_) = kind {
                        Src::Input(piece.offset + e.offset, e.size)
                    } else {
                        Src::Mem(e.payload(&data).unwrap_or_default())
                    };
                    (e.id, p)
                })
                .collect();
            let mut bytes = relayout(&h, &entries, piece.offset)?;
            let mut warning = None;
            if let Kind::Compressed(blob) = kind {
                let (level, w) = level_for(r.level, piece.offset, piece.data, &blob.header, &data)?;
                warning = w;
                bytes = compressed::compress(&flatten(bytes), &stream_opts(&blob.header, level))?
                    .bytes
                    .into();
            }
            Ok(Outcome {
                warning,
                bytes: Some(bytes),
                ..unchanged(Some(&h))
            })
        }
    }
}

/// What `edit` will make of `piece` when making it is costly — a whole bundle compressed or
/// inflated — worked out from its header alone: the entries kept and removed, marked
/// [`Outcome::pending`] (its bytes are made when the plan is written, a few bundles at a
/// time), or unchanged when a prune removes nothing from a compressed bundle. `None` when the
/// edit is cheap and is applied at once ([`apply`]).
pub(crate) fn defer(piece: &Piece<'_>, edit: &Edit) -> offkit_format::Result<Option<Outcome>> {
    let ids = |h: &binary::Header<'_>| h.entries.iter().map(|e| e.id_str().into_owned()).collect();
    let later = |kept: Vec<String>, removed: Vec<String>, expected: Option<u64>| Outcome {
        bytes: None,
        removed,
        kept,
        pending: true,
        expected,
        warning: None,
    };
    Ok(match (edit, &piece.kind) {
        (Edit::Compress(_), Kind::Plain(h)) => Some(later(ids(h), Vec::new(), None)),
        (Edit::Compress(opts), Kind::Compressed(blob))
            if blob.header.version != opts.version || blob.header.method != opts.method =>
        {
            check_header(blob, piece.offset)?;
            Some(later(Vec::new(), Vec::new(), None))
        }
        (Edit::Decompress, Kind::Compressed(blob)) => {
            check_header(blob, piece.offset)?;
            Some(later(
                Vec::new(),
                Vec::new(),
                Some(blob.header.uncompressed_size),
            ))
        }
        (Edit::Prune { filter, .. }, Kind::Compressed(blob)) => {
            let prefix = inflated_header(blob, piece.offset)?;
            let h = binary::parse(&prefix, blob.header.uncompressed_size, piece.offset)?;
            let (_, kept, removed) = split(&h, filter);
            let pending = !removed.is_empty();
            Some(Outcome {
                pending,
                ..later(kept, removed, None)
            })
        }
        _ => None,
    })
}

/// Checks that a compressed bundle left as it is holds a bundle whose header parses (only the
/// prefix that holds the header is inflated), as the check after the rewrite will.
fn check_header(blob: &compressed::Blob<'_>, at: u64) -> offkit_format::Result<()> {
    inflated_header(blob, at).map(drop)
}

/// `opts` with one thread: the one-shot call that gives LLVM's bytes (parallelism is across
/// bundles).
fn single(opts: &Options) -> Options {
    Options {
        threads: 0,
        ..*opts
    }
}
