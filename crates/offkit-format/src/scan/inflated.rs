//! The code objects of a compressed bundle, read from its stream without holding the bundle:
//! for each image past the prefix already decompressed, the byte ranges its description needs
//! ([`code_object::parts`]) are kept as the stream goes by, and the image is described the
//! moment they are all there.
//!
//! A code object's section headers are at its end, and its symbol tables before them: what an
//! image needs is known only once its end has gone by. So the first pass keeps a window at each
//! image's start (the ELF header, program headers, AMD GPU notes) and one at its end (section
//! headers, symbol and string tables, which linkers put last), then asks what is still missing;
//! ranges still ahead are read in the same pass, those behind in the next one (at most
//! [`MAX_PASSES`], each a decompression from the start, stopped after the last range wanted).
//! Memory: the decompressor's window, one chunk, and the ranges kept, at most
//! [`limits::MAX_CODE_OBJECT_PARTS`] per image (what is not needed is dropped after each look).
//!
//! ```text
//! CCOB ─pass 1: head + tail windows─► wants ─ahead: same pass / behind: pass 2─► … ─► CodeObject
//! ```

use std::collections::BTreeMap;
use std::ops::{ControlFlow, Range};

use crate::bundle::{binary, compressed};
use crate::code_object::{self, parts, CodeObject, Parts};
use offkit_read::limits;

/// The window kept at each image's start in the first pass.
const HEAD_WINDOW: u64 = 64 << 10;
/// The window kept at each image's end in the first pass.
const TAIL_WINDOW: u64 = 1 << 20;
/// The most passes over one bundle's stream.
const MAX_PASSES: usize = 4;

/// What the stream gave, per entry of the bundle: its first [`parts::ELF_HEADER`] bytes (for its
/// kind; empty for entries not read), its description (`None` for entries not read or not
/// described); and how many bytes were decompressed in all.
pub(super) struct Described {
    pub(super) heads: Vec<Vec<u8>>,
    pub(super) code_objects: Vec<Option<CodeObject>>,
    pub(super) inflated: u64,
}

/// What to read of an entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Read {
    /// Nothing.
    Skip,
    /// Its first bytes (a host object: its kind).
    Head,
    /// Whatever its description needs.
    Describe,
}

/// One image being read.
struct Image {
    /// Its offset in the inflated bundle.
    start: u64,
    parts: Parts,
    /// Whether it is to be described, or only its head read.
    describe: bool,
    /// Its first bytes, once read.
    head: Vec<u8>,
    /// Ranges (in the image) to read in the next pass.
    deferred: Vec<Range<u64>>,
    /// Ranges of this pass not yet complete.
    open: usize,
    /// Its description, once made (the parts are dropped then).
    described: Option<Option<CodeObject>>,
}

impl Image {
    fn done(&self) -> bool {
        self.described.is_some()
    }

    /// Describes the image from what is held, with `warning` if it is not all there.
    fn finish(&mut self, warning: Option<String>) {
        let parts = std::mem::take(&mut self.parts);
        let head = parts.size().min(parts::ELF_HEADER);
        self.head = parts.get(0, head).map(<[u8]>::to_vec).unwrap_or_default();
        let co = self
            .describe
            .then(|| code_object::describe_parts(&parts, self.start))
            .flatten()
            .map(|mut co| {
                co.warnings.extend(warning);
                co
            });
        self.deferred.clear();
        self.described = Some(co);
    }
}

/// Reads the images of `header` (the bundle inflated from `blob`) not wholly in the `have`
/// bytes already decompressed, as `read` says for each.
pub(super) fn describe(
    blob: &compressed::Blob<'_>,
    header: &binary::Header<'_>,
    have: u64,
    read: impl Fn(&binary::Entry<'_>) -> Read,
) -> Described {
    let mut images: Vec<Option<Image>> = header
        .entries
        .iter()
        .map(|e| {
            let end = e.offset.saturating_add(e.size);
            let how = read(e);
            let describe = how == Read::Describe;
            (how != Read::Skip && e.size > 0 && end > have).then(|| Image {
                start: e.offset,
                parts: Parts::new(e.size),
                describe,
                head: Vec::new(),
                deferred: if describe {
                    first_windows(e.size)
                } else {
                    let header = 0..e.size.min(parts::ELF_HEADER);
                    vec![header]
                },
                open: 0,
                described: None,
            })
        })
        .collect();
    let mut inflated = 0u64;
    let mut passes = 0;
    while images.iter().flatten().any(|i| !i.done()) {
        if passes == MAX_PASSES {
            for i in images.iter_mut().flatten().filter(|i| !i.done()) {
                i.finish(Some(format!(
                    "its symbols and notes were not found in {MAX_PASSES} passes over the \
                     compressed bundle's stream"
                )));
            }
            break;
        }
        passes += 1;
        match pass(blob, &mut images) {
            Ok(n) => {
                inflated += n;
                // What a pass left open, the stream did not hold.
                for i in images.iter_mut().flatten() {
                    if !i.done() && i.deferred.is_empty() {
                        i.finish(Some(format!(
                            "the compressed bundle's stream ends at {n} bytes, before its end"
                        )));
                    }
                }
            }
            Err(e) => {
                for i in images.iter_mut().flatten().filter(|i| !i.done()) {
                    i.finish(Some(format!(
                        "its symbols and notes cannot be read: the compressed bundle's stream \
                         fails: {e}"
                    )));
                }
            }
        }
    }
    let (heads, code_objects) = images
        .into_iter()
        .map(|i| match i {
            Some(i) => (i.head, i.described.flatten()),
            None => (Vec::new(), None),
        })
        .unzip();
    Described {
        heads,
        code_objects,
        inflated,
    }
}

/// The ranges the first pass reads of an image of `size` bytes.
fn first_windows(size: u64) -> Vec<Range<u64>> {
    let head = 0..size.min(HEAD_WINDOW);
    let tail = size.saturating_sub(TAIL_WINDOW).max(head.end)..size;
    [head, tail].into_iter().filter(|r| !r.is_empty()).collect()
}

/// One pass: reads every image's deferred ranges, and those it wants next that are still
/// ahead. Returns the bytes decompressed.
fn pass(blob: &compressed::Blob<'_>, images: &mut [Option<Image>]) -> crate::error::Result<u64> {
    // Open ranges by absolute start: (start, image, n) → end.
    let mut open: BTreeMap<(u64, usize, usize), u64> = BTreeMap::new();
    let mut serial = 0usize;
    let mut add = |open: &mut BTreeMap<(u64, usize, usize), u64>,
                   i: usize,
                   img: &mut Image,
                   r: Range<u64>| {
        serial += 1;
        img.open += 1;
        open.insert((img.start + r.start, i, serial), img.start + r.end);
    };
    for (i, img) in images.iter_mut().enumerate() {
        let Some(img) = img.as_mut().filter(|m| !m.done()) else {
            continue;
        };
        img.open = 0;
        for r in std::mem::take(&mut img.deferred) {
            add(&mut open, i, img, r);
        }
    }
    let mut pos = 0u64;
    let produced = compressed::stream::inflate_until(blob, &mut |chunk: &[u8]| {
        let end = pos + chunk.len() as u64;
        let mut finished = Vec::new();
        for (&(start, i, n), &stop) in open.range(..(end, 0, 0)) {
            let Some(img) = images.get_mut(i).and_then(Option::as_mut) else {
                continue;
            };
            let part = compressed::stream::part_of(chunk, pos, start..stop);
            if !part.is_empty() {
                let from = start.max(pos) - img.start;
                img.parts.add(from, part);
            }
            if stop <= end {
                finished.push((start, i, n));
            }
        }
        for key in finished {
            open.remove(&key);
            let i = key.1;
            let Some(img) = images.get_mut(i).and_then(Option::as_mut) else {
                continue;
            };
            img.open -= 1;
            if img.open == 0 {
                for r in advance(img, end) {
                    add(&mut open, i, img, r);
                }
            }
        }
        pos = end;
        if open.is_empty() {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    })?;
    Ok(produced)
}

/// An image whose ranges of this pass are all read, at stream position `now`: drops what it
/// does not need, and returns the ranges it wants that are still ahead (those behind wait for
/// the next pass); done when it wants nothing more, or when what it needs is more than
/// [`limits::MAX_CODE_OBJECT_PARTS`].
fn advance(img: &mut Image, now: u64) -> Vec<Range<u64>> {
    if !img.describe {
        img.finish(None);
        return Vec::new();
    }
    let needed = parts::needed(&img.parts);
    img.parts.retain(&needed);
    let wants = parts::wants(&img.parts);
    if wants.is_empty() {
        img.finish(None);
        return Vec::new();
    }
    let more: u64 = wants.iter().map(|r| r.end - r.start).sum();
    let total = img.parts.held().saturating_add(more);
    if total > limits::MAX_CODE_OBJECT_PARTS {
        img.finish(Some(format!(
            "its symbol tables and notes ({total} bytes) are more than offkit keeps of a code \
             object in a compressed bundle ({}, MAX_CODE_OBJECT_PARTS); extract it to see its \
             kernels",
            limits::MAX_CODE_OBJECT_PARTS
        )));
        return Vec::new();
    }
    let (ahead, behind): (Vec<_>, Vec<_>) =
        wants.into_iter().partition(|r| img.start + r.start >= now);
    img.deferred = behind;
    ahead
}
