//! The CUDA part of the walk: every entry of the fat binaries in `.nv_fatbin` and
//! `__nv_relfatbin` sections is an image (`nvptx64-nvidia-cuda`, target ID `sm_XX`),
//! decompressed when its entry is compressed.

use super::{
    Compression, Container, Event, Format, ImageInfo, Location, Pos, Source, Step, Step_, Walker,
};
use crate::container::Section;
use crate::fatbin;

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
                let compression = e.compression.map(|m| Compression {
                    format: "nv-fatbin",
                    version: fb.header.version,
                    method: m.name().to_string(),
                    offset: e.data_offset,
                    compressed_size: e.data.len() as u64,
                    uncompressed_size: e.raw.uncompressed_size,
                });
                if let Some(c) = &compression {
                    self.inflate(c.uncompressed_size, e.offset)?;
                }
                let bytes = e.contents()?;
                let info = ImageInfo {
                    location: location.clone(),
                    source: Source::CudaFatbinEntry(fatbin::EntrySummary::new(fi, fb, ei, e)),
                    offload_kind: "cuda".into(),
                    image_kind: e.kind.image_kind(&bytes),
                    triple: e.triple().into(),
                    target_id: e.sm(),
                    strings: Vec::new(),
                    offset: e.data_offset,
                    size: bytes.len() as u64,
                    compression: compression.clone(),
                    code_object: None,
                };
                match compression {
                    None => self.image(info, &bytes, depth, Some(Pos::Image))?,
                    Some(c) => {
                        // Offsets inside the decompressed bytes are their own.
                        self.image(info, &bytes, depth, None)?;
                        self.compression.push(c);
                        let r = self.node(
                            &bytes,
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
}
