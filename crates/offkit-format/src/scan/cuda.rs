//! The CUDA part of the walk: every entry of the fat binaries in `.nv_fatbin` and
//! `__nv_relfatbin` sections is an image (`nvptx64-nvidia-cuda`, target ID `sm_XX`),
//! decompressed when its entry is compressed.

use super::{
    Compressed, Compression, Container, Event, Format, ImageInfo, Location, Pos, Source, Step,
    Step_, Walker,
};
use crate::container::Section;
use crate::device::ImageTargetId;
use crate::fatbin;
use crate::kind::{Model, OffloadKind};
use offkit_llvm::triple::Triple;

impl<E> Walker<'_, '_, E> {
    /// The fat binaries of section `s` (at `sloc`): a container per fat binary, an image per
    /// entry, numbered across the section (`.nv_fatbin[3]`).
    pub(super) fn nv_fatbin(&mut self, s: &Section<'_>, sloc: &Location, depth: usize) -> Step_<E> {
        let fatbins = fatbin::parse_all(s.data, s.offset)?;
        let mut n = 0usize;
        for (fi, fb) in fatbins.iter().enumerate() {
            self.emit(Event::Container(&Container {
                location: sloc.clone(),
                format: Format::CudaFatbin,
                offset: fb.offset,
                size: fb.size(),
            }))?;
            for (ei, e) in fb.entries.iter().enumerate() {
                let location = sloc.with(Step::Binary(n));
                n += 1;
                let compression = e.compression.map(|method| Compression {
                    format: Compressed::NvFatbin {
                        version: fb.header.version,
                        method,
                    },
                    offset: e.data_offset,
                    compressed_size: e.data.len() as u64,
                    uncompressed_size: e.raw.uncompressed_size,
                });
                if let Some(c) = &compression {
                    self.inflate(c.uncompressed_size, e.offset)?;
                }
                let contents = e.contents()?;
                // PTX is text that the entry stores with its terminating NUL (and padding):
                // the image is the text alone, as `cuobjdump -xptx` writes it.
                let bytes = match e.kind {
                    fatbin::EntryKind::Ptx => ptx_text(&contents),
                    _ => &contents[..],
                };
                // A compressed entry's bytes are inflated: its offsets count in them (the
                // compressed range is in `compression`).
                let (location, offset) = match compression {
                    Some(_) => (location.with(Step::Inflated), 0),
                    None => (location, e.data_offset),
                };
                let triple = Triple::parse(e.triple());
                let info = ImageInfo {
                    location,
                    source: Source::CudaFatbinEntry(fatbin::EntrySummary::new(fi, fb, ei, e)),
                    offload_kind: Model::Offload(OffloadKind::Cuda),
                    image_kind: e.kind.image_kind(bytes),
                    target_id: ImageTargetId::read(&triple, e.sm()),
                    triple,
                    strings: Vec::new(),
                    offset,
                    size: bytes.len() as u64,
                    compression,
                    bundle: None,
                    address: None,
                    code_object: None,
                };
                if let Some(c) = compression {
                    self.compression.push(c);
                }
                let r = self.image(info, bytes, depth, Some(Pos::Image));
                if e.compression.is_some() {
                    self.compression.pop();
                }
                r?;
            }
        }
        Ok(())
    }
}

/// PTX text without the NULs that end it in a fat binary entry.
fn ptx_text(contents: &[u8]) -> &[u8] {
    let end = contents.iter().rposition(|&b| b != 0).map_or(0, |i| i + 1);
    contents.get(..end).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    #[test]
    fn ptx_text_ends_at_the_last_text_byte() {
        assert_eq!(
            super::ptx_text(b".version 8.0\n}\n\0\0\0"),
            b".version 8.0\n}\n"
        );
        assert_eq!(super::ptx_text(b"}\n"), b"}\n");
        assert_eq!(super::ptx_text(b"\0\0"), b"");
    }
}
