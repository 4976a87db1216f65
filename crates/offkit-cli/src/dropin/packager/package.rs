//! Packaging: `-o FILE --image=file=…,triple=…[,key=value…]…`, streamed.
//!
//! LLVM 19 reads every image into memory, builds each binary in memory, appends it to one
//! buffer and copies that into the output. offkit checks everything in the same order first
//! (so that the same error wins), then writes each binary's head, copies the image file to the
//! output file in the kernel (`std::io::copy` uses `copy_file_range`), and pads.

use std::fs::File;
use std::io::{self, Write};
use std::path::Path;

use offkit_format::binary::{layout_v1, ImageSpec, Layout};
use offkit_format::container::is_bitcode;
use offkit_format::kind::{ImageKind, OffloadKind};
use offkit_llvm::adt::densemap::StringKeyMap;

use offkit_tools::mmap::{self, MappedFile, Special};

use super::files::{extension, Output};
use super::Release;
use crate::dropin::error::{Error, Result};

/// The key/value arguments of one `--image`, as LLVM's `getImageArguments` builds its
/// `DenseMap<StringRef, StringRef>`: split on `,`, each piece at its first `=`; a repeated
/// key's values are joined with `,`.
#[derive(Debug, Clone, Default)]
pub struct ImageArgs {
    /// (key, value) in order of first appearance.
    pub pairs: Vec<(String, String)>,
}

impl ImageArgs {
    /// Parses one `--image` value.
    pub fn parse(arg: &str) -> ImageArgs {
        let mut pairs: Vec<(String, String)> = Vec::new();
        for piece in arg.split(',') {
            let (k, v) = piece.split_once('=').unwrap_or((piece, ""));
            match pairs.iter_mut().find(|(pk, _)| pk == k) {
                Some((_, pv)) => {
                    pv.push(',');
                    pv.push_str(v);
                }
                None => pairs.push((k.to_string(), v.to_string())),
            }
        }
        ImageArgs { pairs }
    }

    /// The value of `key`.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.pairs
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// The pairs in the map's iteration order.
    pub fn in_map_order(&self) -> Vec<(&str, &str)> {
        let mut map = StringKeyMap::new();
        for (i, (k, _)) in self.pairs.iter().enumerate() {
            map.insert(k.as_bytes(), i);
        }
        map.iter()
            .map(|(_, i)| (self.pairs[i].0.as_str(), self.pairs[i].1.as_str()))
            .collect()
    }
}

/// Where an image's bytes come from.
enum Source {
    /// A regular file, copied at write time; `len` was its size when checked.
    File { file: File, len: u64 },
    /// Standard input or a device, read whole (LLVM reads them whole too).
    Memory(MappedFile),
}

struct Planned {
    layout: Layout,
    source: Source,
    name: String,
}

/// Opens an image as `MemoryBuffer::getFileOrSTDIN` would (through the one input opener: a
/// FIFO or socket is refused at once, a device read with a bound), and reads its first bytes.
fn open_image(name: &str) -> io::Result<(Source, [u8; 4], usize)> {
    let opened = if name == "-" {
        mmap::stdin()?
    } else {
        mmap::open(Path::new(name), Special::EmptyDevices)?
    };
    let mut magic = [0u8; 4];
    let n = opened.data.len().min(4);
    magic[..n].copy_from_slice(opened.data.get(..n).unwrap_or_default());
    let source = match opened.file {
        Some(file) => Source::File {
            len: opened.data.len() as u64,
            file,
        },
        None => Source::Memory(opened.data),
    };
    Ok((source, magic, n))
}

/// Runs packaging mode; an error prints as LLVM's message after `error: `.
pub fn run(output: &str, images: &[String], release: &Release) -> Result {
    let mut plan = Vec::new();
    for arg in images {
        let args = ImageArgs::parse(arg);
        let files = match (args.get("triple"), args.get("file")) {
            (_, Some(files)) if !release.requires_triple => files,
            (Some(_), Some(files)) => files,
            _ if release.requires_triple => {
                return Err(Error::msg(
                    "'file' and 'triple' are required image arguments",
                ))
            }
            _ => return Err(Error::msg("'file' is a required image arguments")),
        };
        let ordered = args.in_map_order();
        let mut offload_kind = OffloadKind::None;
        let mut strings: Vec<(&[u8], &[u8])> = Vec::new();
        for (k, v) in &ordered {
            match *k {
                "kind" => offload_kind = release.offload_kind(v),
                "file" => {}
                _ => strings.push((k.as_bytes(), v.as_bytes())),
            }
        }
        // Several `file=` keys (or a value with commas) make one binary per file.
        for name in files.split(',') {
            // LLVM prints an OS error alone; offkit's own refusal of a special file (where
            // LLVM reads `/dev/zero` until it aborts, or hangs on a FIFO) names the file.
            let (source, magic, n) = open_image(name).map_err(|e| {
                if e.kind() == io::ErrorKind::InvalidInput {
                    Error::file(name, e)
                } else {
                    Error::Os(e)
                }
            })?;
            // Clang uses `.o` for LTO bitcode, so content wins over the extension.
            let image_kind = if is_bitcode(&magic[..n]) {
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
            let layout = layout_v1(&spec, len, release.llvm)?;
            plan.push(Planned {
                layout,
                source,
                name: name.to_string(),
            });
        }
    }
    let mut out = Output::create(Path::new(output)).map_err(Error::Os)?;
    write_all(&mut out, &plan).map_err(Error::Os)?;
    out.commit().map_err(Error::Os)
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
        w.write_all(&ZEROS[..pad.min(8)])?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn image_arguments() {
        let a = ImageArgs::parse("file=a.o,triple=t,feature=+x,feature=-y,novalue,=v");
        assert_eq!(a.get("feature"), Some("+x,-y"));
        assert_eq!(a.get("novalue"), Some(""));
        assert_eq!(a.get(""), Some("v"));
        let keys: Vec<&str> = a.in_map_order().into_iter().map(|(k, _)| k).collect();
        assert_eq!(keys.len(), 5);
        let common = ImageArgs::parse("file=x,triple=t,arch=a,kind=openmp");
        let keys: Vec<&str> = common
            .in_map_order()
            .into_iter()
            .map(|(k, _)| k)
            .filter(|k| *k != "file" && *k != "kind")
            .collect();
        assert_eq!(keys, ["arch", "triple"]);
    }
}
