//! The bundle part of the walk: sequences of binary and compressed (`CCOB`) bundles, and text
//! bundles. A compressed bundle is decompressed whole, or with [`Inflate::Headers`] only as far
//! as its entry table, and its entries are reported with the bundle they are in.

use super::{
    bundle_target, inflated, BundleRef, Compressed, Compression, Container, Event, Format,
    ImageInfo, Inflate, Location, Pos, Source, Step, Step_, Walker,
};
use crate::bundle::{binary, compressed, sequence, text};
use crate::code_object::CodeObject;
use crate::error::Error;
use offkit_read::limits;

/// The comment syntax of a text bundle that starts at `data[0]`, if one does.
pub(super) fn text_bundle(data: &[u8]) -> Option<text::Comment> {
    [
        text::Comment::Slash,
        text::Comment::Hash,
        text::Comment::Semicolon,
    ]
    .into_iter()
    .find(|c| data.starts_with(&c.start_marker()))
}

impl<E> Walker<'_, '_, E> {
    /// Reports the bundle entry `id` at `offset`, `size` bytes, of which `bytes` are at hand
    /// (all of them when `whole`).
    #[allow(clippy::too_many_arguments)]
    fn bundle_image(
        &mut self,
        loc: &Location,
        id: &[u8],
        offset: u64,
        size: u64,
        bytes: &[u8],
        whole: bool,
        bundle: Option<BundleRef>,
        depth: usize,
        code_object: Option<CodeObject>,
    ) -> Step_<E> {
        let id = String::from_utf8_lossy(id).into_owned();
        let (kind, triple, target_id) = bundle_target(&id);
        let info = ImageInfo {
            location: loc.with(Step::BundleEntry(id.clone())),
            source: Source::BundleEntry { id },
            offload_kind: kind,
            image_kind: super::sniff_image_kind(bytes),
            triple,
            target_id,
            strings: Vec::new(),
            offset,
            size,
            compression: None,
            bundle,
            address: None,
            code_object,
        };
        let pos = if info.offload_kind.is_host() {
            Pos::Host
        } else {
            Pos::Image
        };
        self.image_part(
            info,
            bytes,
            whole,
            depth,
            (!bytes.is_empty()).then_some(pos),
        )
    }

    /// The entries of one binary bundle whose first byte is `data[0]` at offset `base`; `data`
    /// may be only a prefix of the bundle (a compressed bundle's header, decompressed): an
    /// entry whose payload lies past it is reported with the bytes that are there.
    ///
    /// `heads` holds, for an entry whose payload starts past `data`, its first bytes when they
    /// were read separately ([`IMAGE_HEAD`] of them, by [`image_heads`], or by
    /// [`inflated::describe`]), and `described` its description when it was read from the
    /// stream.
    #[allow(clippy::too_many_arguments)]
    fn plain_entries(
        &mut self,
        header: &binary::Header<'_>,
        data: &[u8],
        heads: &[Vec<u8>],
        mut described: Vec<Option<CodeObject>>,
        base: u64,
        loc: &Location,
        bundle: BundleRef,
        depth: usize,
    ) -> Step_<E> {
        for (i, e) in header.entries.iter().enumerate() {
            // `parse` checked that every payload lies inside the bundle; past the prefix, the
            // size is the header's and the bytes are what the prefix holds (or its head).
            let (bytes, whole) = match e.payload(data) {
                Some(p) => (p, true),
                None => {
                    let start = usize::try_from(e.offset).unwrap_or(usize::MAX);
                    let there = data.get(start..).unwrap_or_default();
                    match heads.get(i) {
                        Some(h) if h.len() > there.len() => (&h[..], false),
                        _ => (there, false),
                    }
                }
            };
            let at = base + e.offset;
            let co = described.get_mut(i).and_then(Option::take);
            self.bundle_image(loc, e.id, at, e.size, bytes, whole, Some(bundle), depth, co)?;
        }
        Ok(())
    }

    /// A sequence of binary and compressed bundles separated by zero padding (a `.hip_fatbin`
    /// section, a bundle file): `data` starts with a bundle or with padding. Returns the
    /// absolute offsets of the bundles.
    pub(super) fn bundles(
        &mut self,
        data: &[u8],
        base: u64,
        loc: &Location,
        depth: usize,
        pos: Pos,
    ) -> Result<Vec<u64>, super::Stop<E>> {
        let mut starts = Vec::new();
        for piece in sequence::sequence(data, base) {
            let piece = piece?;
            starts.push(piece.offset);
            self.bundle_piece(&piece, loc, depth, pos)?;
        }
        Ok(starts)
    }

    /// One bundle of a sequence.
    pub(super) fn bundle_piece(
        &mut self,
        piece: &sequence::Piece<'_>,
        loc: &Location,
        depth: usize,
        pos: Pos,
    ) -> Step_<E> {
        let bloc = loc.with(Step::Bundle(piece.index));
        let bref = BundleRef {
            index: piece.index,
            offset: piece.offset,
            size: piece.data.len() as u64,
        };
        match &piece.kind {
            sequence::Kind::Plain(header) => {
                self.emit(Event::Container(&Container {
                    location: bloc.clone(),
                    format: Format::Bundle,
                    offset: piece.offset,
                    size: bref.size,
                }))?;
                self.plain_entries(
                    header,
                    piece.data,
                    &[],
                    Vec::new(),
                    piece.offset,
                    &bloc,
                    bref,
                    depth,
                )
            }
            sequence::Kind::Compressed(blob) => {
                self.compressed_bundle(blob, &bloc, bref, depth, pos)
            }
        }
    }

    /// A text bundle with comment syntax `comment`.
    pub(super) fn text_bundle(
        &mut self,
        data: &[u8],
        base: u64,
        loc: &Location,
        depth: usize,
        comment: text::Comment,
    ) -> Step_<E> {
        self.emit(Event::Container(&Container {
            location: loc.clone(),
            format: Format::Bundle,
            offset: base,
            size: data.len() as u64,
        }))?;
        for e in text::parse(data, comment, base)? {
            let size = e.payload.len() as u64;
            self.bundle_image(
                loc,
                e.id,
                e.payload_offset,
                size,
                e.payload,
                true,
                None,
                depth,
                None,
            )?;
        }
        Ok(())
    }

    /// One compressed bundle: decompressed (whole, or as far as its entry table) and walked.
    fn compressed_bundle(
        &mut self,
        blob: &compressed::Blob<'_>,
        bloc: &Location,
        bref: BundleRef,
        depth: usize,
        pos: Pos,
    ) -> Step_<E> {
        let h = &blob.header;
        let info = Compression {
            format: Compressed::Ccob {
                version: h.version,
                method: h.method,
            },
            offset: h.offset,
            compressed_size: bref.size,
            uncompressed_size: h.uncompressed_size,
        };
        self.emit(Event::Container(&Container {
            location: bloc.clone(),
            format: Format::CompressedBundle(info),
            offset: h.offset,
            size: bref.size,
        }))?;
        let iloc = bloc.with(Step::Inflated);
        self.compression.push(info);
        let r = match self.inflate {
            Inflate::Whole => self.inflated_whole(blob, &iloc, bref, depth, pos),
            Inflate::Headers => self.inflated_headers(blob, &iloc, bref, depth, pos),
            Inflate::Verify => self
                .inflated_headers(blob, &iloc, bref, depth, pos)
                .and_then(|()| verify(blob).map_err(|e| bloc.wrap(e).into())),
        };
        self.compression.pop();
        r
    }

    fn inflated_whole(
        &mut self,
        blob: &compressed::Blob<'_>,
        iloc: &Location,
        bref: BundleRef,
        depth: usize,
        pos: Pos,
    ) -> Step_<E> {
        let h = &blob.header;
        self.inflate(h.uncompressed_size, h.offset)?;
        let inflated = compressed::decompress_blob(blob, h.uncompressed_size)?;
        if binary::is_bundle(&inflated) {
            let header =
                binary::parse(&inflated, inflated.len() as u64, 0).map_err(|e| iloc.wrap(e))?;
            self.inflated_container(iloc, h.uncompressed_size)?;
            return self
                .plain_entries(
                    &header,
                    &inflated,
                    &[],
                    Vec::new(),
                    0,
                    iloc,
                    bref,
                    depth + 1,
                )
                .map_err(|s| wrap_stop(s, iloc));
        }
        self.node(&inflated, 0, iloc, depth + 1, pos.below_top())
    }

    /// The binary bundle a compressed bundle holds, as a container (offsets in the inflated
    /// data).
    fn inflated_container(&mut self, iloc: &Location, size: u64) -> Step_<E> {
        self.emit(Event::Container(&Container {
            location: iloc.clone(),
            format: Format::Bundle,
            offset: 0,
            size,
        }))
    }

    /// Decompresses only the prefix that holds the bundle's header and entry table.
    fn inflated_headers(
        &mut self,
        blob: &compressed::Blob<'_>,
        iloc: &Location,
        bref: BundleRef,
        depth: usize,
        pos: Pos,
    ) -> Step_<E> {
        let h = &blob.header;
        let prefix = compressed::stream::header_prefix(blob, |n| self.inflate(n, h.offset))?;
        if !binary::is_bundle(&prefix) {
            // A text bundle (or anything else) has no entry table to stop after: it is
            // decompressed whole if it is small enough to be held.
            if h.uncompressed_size > limits::MAX_INFLATED_PREFIX {
                return Err(iloc
                    .wrap(Error::Unsupported {
                        what: "compressed bundle",
                        offset: h.offset,
                        reason: format!(
                            "it holds no binary bundle, and its {} bytes are more than \
                             offkit decompresses to list it ({}); extract it instead",
                            h.uncompressed_size,
                            limits::MAX_INFLATED_PREFIX
                        ),
                    })
                    .into());
            }
            return self.inflated_whole(blob, iloc, bref, depth, pos);
        }
        let header = binary::parse(&prefix, h.uncompressed_size, 0).map_err(|e| iloc.wrap(e))?;
        self.inflated_container(iloc, h.uncompressed_size)?;
        let have = prefix.len() as u64;
        let (heads, described, read) = if self.kernels {
            // Every image's code object, read from the stream as far as the last one needs.
            let d = inflated::describe(blob, &header, have, |e| {
                if bundle_target(&String::from_utf8_lossy(e.id)).0.is_host() {
                    inflated::Read::Head
                } else {
                    inflated::Read::Describe
                }
            });
            (d.heads, d.code_objects, d.inflated)
        } else {
            let (heads, read) = image_heads(blob, &header, have);
            (heads, Vec::new(), read)
        };
        self.inflate(read, h.offset)?;
        self.plain_entries(
            &header,
            &prefix,
            &heads,
            described,
            0,
            iloc,
            bref,
            depth + 1,
        )
        .map_err(|s| wrap_stop(s, iloc))
    }
}

/// How many first bytes of an image listing reads: an ELF64 header, which gives the image's
/// kind and its code object's target.
const IMAGE_HEAD: u64 = 64;

/// The first [`IMAGE_HEAD`] bytes of each entry of the compressed bundle `blob` (whose header
/// is `header`) that starts past the `have` bytes already decompressed, in entry order (empty
/// for the others), read by decompressing `blob` as a stream as far as the last of them, but
/// no further than [`limits::MAX_INFLATED_HEADS`]; nothing else is held. Also how many bytes
/// were decompressed. No size or hash check: the stream is stopped early; a stream that fails
/// to decompress gives the heads read so far (listing reads the entry table only, and a bad
/// stream is an error where its images are extracted).
fn image_heads(
    blob: &compressed::Blob<'_>,
    header: &binary::Header<'_>,
    have: u64,
) -> (Vec<Vec<u8>>, u64) {
    let want = |e: &binary::Entry<'_>| (e.offset, e.offset.saturating_add(e.size.min(IMAGE_HEAD)));
    let end = header
        .entries
        .iter()
        .map(want)
        .filter(|&(start, end)| end > have && start < end)
        .map(|(_, end)| end)
        .filter(|&end| end <= limits::MAX_INFLATED_HEADS)
        .max();
    let mut heads = vec![Vec::new(); header.entries.len()];
    let Some(end) = end else {
        return (heads, 0);
    };
    let mut pos = 0u64;
    // No hash: the stream stops at the last head, and the hash covers the whole bundle
    // (`extract` and `--verify` check it).
    let r = compressed::stream::inflate_until(blob, &mut |chunk: &[u8]| {
        let next = pos + chunk.len() as u64;
        for (e, head) in header.entries.iter().zip(heads.iter_mut()) {
            let (start, stop) = want(e);
            if stop > have && stop <= end {
                head.extend_from_slice(compressed::stream::part_of(chunk, pos, start..stop));
            }
        }
        pos = next;
        if pos >= end {
            std::ops::ControlFlow::Break(())
        } else {
            std::ops::ControlFlow::Continue(())
        }
    });
    if r.is_err() {
        // A head cut short by the failure is no head.
        for (e, head) in header.entries.iter().zip(heads.iter_mut()) {
            let (start, stop) = want(e);
            if (head.len() as u64) < stop - start {
                head.clear();
            }
        }
    }
    (heads, pos)
}

/// Decompresses all of `blob` as a stream, keeping nothing, and checks its size and hash.
fn verify(blob: &compressed::Blob<'_>) -> Result<(), Error> {
    match compressed::stream::inflate_into::<std::convert::Infallible>(blob, &mut |_| Ok(())) {
        Ok(()) => Ok(()),
        Err(compressed::stream::SinkOr::Format(e)) => Err(e),
        Err(compressed::stream::SinkOr::Sink(never)) => match never {},
    }
}

pub(super) fn wrap_stop<E>(s: super::Stop<E>, loc: &Location) -> super::Stop<E> {
    match s {
        super::Stop::Format(e) => super::Stop::Format(loc.wrap(e)),
        v => v,
    }
}
