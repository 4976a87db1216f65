//! The bundle part of the walk: binary and text offload bundles, and compressed (`CCOB`) ones,
//! which are inflated (within the walk's inflation budget) and walked again.

use super::{
    split_bundle_id, Compression, Container, Event, Format, ImageInfo, Location, Source, Step,
    Step_, Walker,
};
use crate::bundle::{binary, compressed, text};

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
    fn bundle_image(
        &mut self,
        loc: &Location,
        id: &[u8],
        offset: u64,
        payload: &[u8],
        depth: usize,
    ) -> Step_<E> {
        let id = String::from_utf8_lossy(id).into_owned();
        let (kind, triple, target_id) = split_bundle_id(&id);
        let info = ImageInfo {
            location: loc.with(Step::BundleEntry(id.clone())),
            source: Source::BundleEntry { id },
            offload_kind: kind,
            image_kind: super::sniff_image_kind(payload),
            triple,
            target_id,
            strings: Vec::new(),
            offset,
            size: payload.len() as u64,
            compression: None,
            code_object: None,
        };
        let pos = if info.offload_kind == "host" {
            super::Pos::Host
        } else {
            super::Pos::Image
        };
        self.image(info, payload, depth, (!payload.is_empty()).then_some(pos))
    }

    /// A binary bundle (`data` starts with the magic).
    pub(super) fn binary_bundle(
        &mut self,
        data: &[u8],
        base: u64,
        loc: &Location,
        depth: usize,
    ) -> Step_<E> {
        self.emit(Event::Container(&Container {
            location: loc.clone(),
            format: Format::Bundle,
            offset: base,
            size: data.len() as u64,
        }))?;
        let header = binary::parse(data, data.len() as u64, base)?;
        for e in &header.entries {
            // `parse` checked that every payload lies inside `data`.
            let payload = e.payload(data).unwrap_or_default();
            self.bundle_image(loc, e.id, base + e.offset, payload, depth)?;
        }
        Ok(())
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
            self.bundle_image(loc, e.id, e.payload_offset, e.payload, depth)?;
        }
        Ok(())
    }

    /// One or more concatenated compressed bundles: each is inflated and walked.
    pub(super) fn compressed_bundle(
        &mut self,
        data: &[u8],
        base: u64,
        loc: &Location,
        depth: usize,
        pos: super::Pos,
    ) -> Step_<E> {
        let blobs = compressed::blobs(data, base)?;
        for (i, blob) in blobs.iter().enumerate() {
            let h = &blob.header;
            let size = h.header_size + blob.data.len() as u64;
            let info = Compression {
                format: "ccob",
                version: h.version,
                method: h.method.name().to_string(),
                offset: h.offset,
                compressed_size: size,
                uncompressed_size: h.uncompressed_size,
            };
            self.emit(Event::Container(&Container {
                location: loc.clone(),
                format: Format::CompressedBundle(info.clone()),
                offset: h.offset,
                size,
            }))?;
            self.inflate(h.uncompressed_size, h.offset)?;
            let room = h.uncompressed_size;
            let inflated = compressed::decompress_blob(blob, room)?;
            let mut iloc = loc.with(Step::Inflated);
            if blobs.len() > 1 {
                // Concatenated blobs (LLVM 20+) are told apart by their index.
                iloc = loc.with(Step::Binary(i)).with(Step::Inflated);
            }
            self.compression.push(info);
            let r = self.node(&inflated, 0, &iloc, depth + 1, pos.below_top());
            self.compression.pop();
            r?;
        }
        Ok(())
    }
}
