//! Writing extracted images without holding them: ranges of files are copied by the kernel,
//! images of compressed bundles come out of one streamed decompression per bundle, and only
//! images that exist nowhere as bytes (decoded from bitcode, inflated twice) are taken from a
//! walk that decompresses whole.

use std::collections::BTreeMap;
use std::fs::File;
use std::path::{Path, PathBuf};

use offkit_format::bundle::compressed::{self, stream};
use offkit_format::scan::{Compressed, Event, ImageInfo};
use offkit_tools::fs::Output;
use offkit_tools::MappedFile;

use crate::error::{Error, Result};
use crate::thin::bytes_file;
use crate::walk::{walk_file, whole};

/// Where an image's bytes are to be had.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Fetch {
    /// `size` bytes at `offset` of `file`.
    Range {
        file: PathBuf,
        offset: u64,
        size: u64,
    },
    /// Bytes `inner` (offset, size) of the compressed bundle at `offset` (`size` bytes) of
    /// `file`, once decompressed.
    Inflated {
        file: PathBuf,
        offset: u64,
        size: u64,
        inner: (u64, u64),
    },
    /// The image at `location` with `offset` of a walk of `input` that decompresses whole.
    Walk {
        input: PathBuf,
        location: String,
        offset: u64,
    },
}

impl Fetch {
    /// How to fetch the image `info` of the input `input`.
    pub(crate) fn of(info: &ImageInfo, input: &Path) -> Fetch {
        // A compressed CUDA fat-binary entry has an address too, but its bytes are no bundle:
        // the walk inflates it (and cuts PTX at its text).
        let bundle_or_plain = info
            .compression
            .is_none_or(|c| matches!(c.format, Compressed::Ccob { .. }));
        match info.address.filter(|_| bundle_or_plain) {
            Some(a) => {
                let file = bytes_file(&info.location, input);
                match a.inflated {
                    None => Fetch::Range {
                        file,
                        offset: a.offset,
                        size: a.size,
                    },
                    Some(inner) => Fetch::Inflated {
                        file,
                        offset: a.offset,
                        size: a.size,
                        inner,
                    },
                }
            }
            None => Fetch::Walk {
                input: input.to_path_buf(),
                location: info.location.to_string(),
                offset: info.offset,
            },
        }
    }
}

/// One image to write.
#[derive(Debug)]
pub(crate) struct Job<'p> {
    /// Where to.
    pub(crate) dest: &'p Path,
    /// Its size.
    pub(crate) size: u64,
    /// Where from.
    pub(crate) fetch: &'p Fetch,
}

fn write_error(path: &Path) -> impl FnOnce(std::io::Error) -> Error + '_ {
    move |source| Error::Write {
        path: path.to_path_buf(),
        source,
    }
}

fn read_error(path: &Path) -> impl FnOnce(std::io::Error) -> Error + '_ {
    move |source| Error::Read {
        path: path.to_path_buf(),
        source,
    }
}

fn changed(path: &Path) -> Error {
    Error::Changed {
        path: path.to_path_buf(),
        gone: None,
    }
}

fn create(dest: &Path) -> Result<Output> {
    Output::create(dest).map_err(write_error(dest))
}

fn commit(out: Output, written: &mut Vec<PathBuf>) -> Result<()> {
    let dest = out.path().to_path_buf();
    out.commit().map_err(write_error(&dest))?;
    written.push(dest);
    Ok(())
}

/// Writes every job; the files committed so far are pushed to `written` (for the caller to
/// remove on failure).
pub(crate) fn write_all(jobs: &[Job<'_>], written: &mut Vec<PathBuf>) -> Result<()> {
    let mut bundles: BTreeMap<(&Path, u64, u64), Vec<&Job<'_>>> = BTreeMap::new();
    let mut walks: BTreeMap<&Path, Vec<&Job<'_>>> = BTreeMap::new();
    for j in jobs {
        match j.fetch {
            Fetch::Range { file, offset, size } => copy(j, file, *offset, *size, written)?,
            Fetch::Inflated {
                file, offset, size, ..
            } => bundles
                .entry((file.as_path(), *offset, *size))
                .or_default()
                .push(j),
            Fetch::Walk { input, .. } => walks.entry(input.as_path()).or_default().push(j),
        }
    }
    for ((file, offset, size), jobs) in bundles {
        inflate(file, offset, size, &jobs, written)?;
    }
    for (input, jobs) in walks {
        from_walk(input, &jobs, written)?;
    }
    Ok(())
}

/// A kernel copy of `size` bytes at `offset` of `file`.
fn copy(
    j: &Job<'_>,
    file: &Path,
    offset: u64,
    size: u64,
    written: &mut Vec<PathBuf>,
) -> Result<()> {
    let src = File::open(file).map_err(read_error(file))?;
    let len = src.metadata().map_err(read_error(file))?.len();
    if offset.checked_add(size).is_none_or(|end| end > len) {
        return Err(changed(file));
    }
    let mut out = create(j.dest)?;
    out.copy_range(&src, offset, size)
        .map_err(write_error(j.dest))?;
    commit(out, written)
}

/// One streamed decompression of the compressed bundle at `offset` (`size` bytes) of `file`,
/// writing the bytes of each job's range to its file as they come out. The files are kept only
/// once the stream has ended with the right size and hash.
fn inflate(
    file: &Path,
    offset: u64,
    size: u64,
    jobs: &[&Job<'_>],
    written: &mut Vec<PathBuf>,
) -> Result<()> {
    let data = MappedFile::open(file).map_err(read_error(file))?;
    let bytes = usize::try_from(offset)
        .ok()
        .zip(usize::try_from(size).ok())
        .and_then(|(o, n)| data.get(o..o.checked_add(n)?))
        .ok_or_else(|| changed(file))?;
    let decompress = |source| Error::Decompress {
        path: file.to_path_buf(),
        offset,
        source,
    };
    let header = compressed::parse_header(bytes, offset).map_err(decompress)?;
    let blob = compressed::Blob {
        data: bytes.get(header.header_size as usize..).unwrap_or_default(),
        header,
    };
    let mut outs: Vec<(u64, u64, Output)> = Vec::new();
    for j in jobs {
        let Fetch::Inflated { inner, .. } = j.fetch else {
            continue;
        };
        outs.push((inner.0, inner.1, create(j.dest)?));
    }
    let ranges: Vec<_> = outs.iter().map(|(o, n, _)| *o..*o + *n).collect();
    let mut failed = 0usize;
    let r = stream::inflate_ranges(&blob, &ranges, &mut |i, part| -> std::io::Result<()> {
        failed = i;
        match outs.get_mut(i) {
            Some((_, _, out)) => std::io::Write::write_all(out, part),
            None => Ok(()),
        }
    });
    let pos = match r {
        Ok(pos) => pos,
        Err(stream::SinkOr::Format(e)) => return Err(decompress(e)),
        Err(stream::SinkOr::Sink(source)) => {
            let path = outs
                .get(failed)
                .map(|(_, _, out)| out.path().to_path_buf())
                .unwrap_or_default();
            return Err(Error::Write { path, source });
        }
    };
    for (o, n, out) in outs {
        if o + n > pos {
            return Err(Error::ShortBundle {
                path: file.to_path_buf(),
                offset,
                held: pos,
                image_offset: o,
                image_size: n,
            });
        }
        commit(out, written)?;
    }
    Ok(())
}

/// Images taken from a walk of `input` that decompresses whole (their bytes exist nowhere
/// else); each is held only while it is written.
fn from_walk(input: &Path, jobs: &[&Job<'_>], written: &mut Vec<PathBuf>) -> Result<()> {
    let mut todo: BTreeMap<(String, u64), &Job<'_>> = BTreeMap::new();
    for j in jobs {
        if let Fetch::Walk {
            location, offset, ..
        } = j.fetch
        {
            todo.insert((location.clone(), *offset), j);
        }
    }
    walk_file(input, whole(), &mut |ev| {
        if let Event::Image(img) = ev {
            let key = (img.info.location.to_string(), img.info.offset);
            if let Some(j) = todo.remove(&key) {
                if img.bytes.len() as u64 != j.size {
                    return Err(changed(input));
                }
                let mut out = create(j.dest)?;
                std::io::Write::write_all(&mut out, img.bytes).map_err(write_error(j.dest))?;
                commit(out, written)?;
            }
        }
        Ok(())
    })?;
    match todo.into_iter().next() {
        Some(((location, _), _)) => Err(Error::Changed {
            path: input.to_path_buf(),
            gone: Some(location),
        }),
        None => Ok(()),
    }
}
