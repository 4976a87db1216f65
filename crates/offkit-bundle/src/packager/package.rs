//! Packaging, streamed.
//!
//! LLVM reads every image into memory, builds each binary in memory, appends it to one buffer
//! and copies that into the output. offkit checks everything in the same order first (so that
//! the same error wins), then writes each binary's head, copies the image file to the output
//! file in the kernel (`std::io::copy` uses `copy_file_range`), and pads.

use std::fs::File;
use std::io::{self, Write};
use std::path::Path;

use offkit_format::binary::{layout_v1, ImageSpec, Layout};
use offkit_format::container::is_bitcode;
use offkit_format::kind::{ImageKind, OffloadKind};
use offkit_tools::fs::{Output, STDIO};
use offkit_tools::mmap::{self, MappedFile, Special};

use super::{extension, PackageConfig};
use crate::{Error, Result};

/// Where an image's bytes come from.
enum Source {
    /// A regular file, copied at write time; `len` was its size when checked.
    File { file: File, len: u64 },
    /// Standard input or an empty device, read whole (LLVM reads them whole too).
    Memory(MappedFile),
}

struct Planned {
    layout: Layout,
    source: Source,
    name: String,
}

/// Opens an image as `MemoryBuffer::getFileOrSTDIN` would (through the one input opener: a
/// FIFO, socket or a device that yields bytes is refused at once), and reads its first bytes.
fn open_image(name: &str) -> io::Result<(Source, [u8; 4], usize)> {
    let opened = if name == STDIO {
        mmap::stdin()?
    } else {
        mmap::open(Path::new(name), Special::EmptyDevices)?
    };
    let mut magic = [0u8; 4];
    let n = opened.data.len().min(4);
    if let (Some(m), Some(d)) = (magic.get_mut(..n), opened.data.get(..n)) {
        m.copy_from_slice(d);
    }
    let source = match opened.file {
        Some(file) => Source::File {
            len: opened.data.len() as u64,
            file,
        },
        None => Source::Memory(opened.data),
    };
    Ok((source, magic, n))
}

/// Packages the images of `cfg` into its output: one version-1 offload binary per image file
/// (several `file=` keys, or a value with commas, make one each), back to back. The output
/// appears whole or not at all.
pub fn package(cfg: &PackageConfig) -> Result<()> {
    let rules = &cfg.rules;
    let mut plan = Vec::new();
    for args in &cfg.images {
        let files = match (args.get("triple"), args.get("file")) {
            (_, Some(files)) if !rules.requires_triple => files,
            (Some(_), Some(files)) => files,
            _ => {
                return Err(Error::MissingImageArguments {
                    triple: rules.requires_triple,
                })
            }
        };
        let ordered = args.in_map_order();
        let mut offload_kind = OffloadKind::None;
        let mut strings: Vec<(&[u8], &[u8])> = Vec::new();
        for (k, v) in &ordered {
            match *k {
                "kind" => offload_kind = rules.offload_kind(v),
                "file" => {}
                _ => strings.push((k.as_bytes(), v.as_bytes())),
            }
        }
        for name in files.split(',') {
            let (source, magic, n) = open_image(name).map_err(|source| Error::Read {
                path: name.into(),
                source,
            })?;
            // Clang uses `.o` for LTO bitcode, so content wins over the extension.
            let image_kind = if is_bitcode(magic.get(..n).unwrap_or_default()) {
                ImageKind::Bitcode
            } else {
                ImageKind::from_extension_llvm19(extension(name))
            };
            let len = match &source {
                Source::File { len, .. } => *len,
                Source::Memory(d) => d.len() as u64,
            };
            let spec = ImageSpec {
                image_kind,
                offload_kind,
                flags: 0,
                strings: strings.clone(),
            };
            let layout = layout_v1(&spec, len, rules.llvm).map_err(|source| Error::Format {
                input: Box::new(crate::Subject::Bundle),
                source,
            })?;
            plan.push(Planned {
                layout,
                source,
                name: name.to_string(),
            });
        }
    }
    let write = |source| Error::Write {
        path: cfg.output.clone(),
        source,
    };
    let mut out = Output::create(&cfg.output).map_err(write)?;
    write_all(&mut out, &plan).map_err(write)?;
    out.commit().map_err(write)
}

fn write_all(w: &mut Output, plan: &[Planned]) -> io::Result<()> {
    const ZEROS: [u8; 8] = [0; 8];
    for p in plan {
        w.write_all(&p.layout.head)?;
        match &p.source {
            Source::Memory(data) => w.write_all(data)?,
            Source::File { file, len } => w.copy_range(file, 0, *len).map_err(|e| {
                if e.kind() == io::ErrorKind::UnexpectedEof {
                    io::Error::other(format!("'{}' changed while it was read: {e}", p.name))
                } else {
                    e
                }
            })?,
        }
        let pad = p.layout.tail_padding() as usize;
        w.write_all(ZEROS.get(..pad.min(8)).unwrap_or_default())?;
    }
    Ok(())
}
