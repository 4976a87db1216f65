//! Writing bundles from input files: binary and text bundles stream their payloads from the
//! inputs to the output (never holding a payload in memory); a compressed bundle is assembled in
//! memory once (one-shot compression is what gives LLVM's bytes) and compressed while its MD5
//! is computed on a second thread, or, with zstd worker threads, streamed to the compressor
//! piece by piece from the mapped inputs; a fat object is the host object rewritten with bundle
//! sections.

use std::io::Write;

use offkit_format::bundle::{binary, compressed, text};

use crate::error::{Error, InputName, Origin, Result, Subject};
use crate::fatobj;
use crate::io::{Input, Output};

/// The kind of bundle to write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// The binary format, each payload aligned to `align` (≥ 1).
    Binary {
        /// The payload alignment.
        align: u64,
    },
    /// The text format with this comment syntax.
    Text(text::Comment),
    /// A fat object (the host input must be an ELF object).
    Object,
}

/// One entry to bundle: its ID and the input holding its payload.
#[derive(Debug, Clone, Copy)]
pub struct Entry<'a> {
    /// The bundle entry ID, as it is to be written.
    pub id: &'a [u8],
    /// The payload.
    pub input: &'a Input,
}

fn write_err(out: &Output) -> impl Fn(std::io::Error) -> Error + '_ {
    move |source| Error::Write {
        path: out.path().to_path_buf(),
        source,
    }
}

/// Writes an uncompressed binary bundle, streaming each payload from its input.
pub fn binary(entries: &[Entry<'_>], align: u64, out: &mut Output) -> Result<()> {
    let ids: Vec<&[u8]> = entries.iter().map(|e| e.id).collect();
    let sizes: Vec<u64> = entries.iter().map(|e| e.input.len()).collect();
    let layout = binary::layout(&ids, &sizes, align).map_err(|source| Error::Format {
        input: Subject::Output(out.path().to_path_buf()).into(),
        source,
    })?;
    out.write_all(&layout.header).map_err(write_err(out))?;
    for (e, pad) in entries.iter().zip(layout.padding()) {
        out.write_zeros(pad).map_err(write_err(out))?;
        e.input.copy_all(out).map_err(write_err(out))?;
    }
    Ok(())
}

/// Writes an uncompressed text bundle, streaming each payload from its input.
pub fn text(entries: &[Entry<'_>], comment: text::Comment, out: &mut Output) -> Result<()> {
    for e in entries {
        out.write_all(&comment.entry_prefix(e.id))
            .map_err(write_err(out))?;
        e.input.copy_all(out).map_err(write_err(out))?;
        out.write_all(&comment.entry_suffix(e.id))
            .map_err(write_err(out))?;
    }
    Ok(())
}

/// A part of an uncompressed bundle, in order: bytes computed here (the binary header, the text
/// markers), zero padding, or a payload borrowed from its (mapped) input.
enum Part<'a> {
    Owned(Vec<u8>),
    Zeros(u64),
    Payload(&'a [u8]),
}

impl Part<'_> {
    fn len(&self) -> u64 {
        match self {
            Part::Owned(b) => b.len() as u64,
            Part::Zeros(n) => *n,
            Part::Payload(b) => b.len() as u64,
        }
    }
}

/// The parts of the uncompressed bundle (binary or text): in order, the bytes of
/// [`binary::write`] / [`text::write`].
fn parts<'a>(entries: &[Entry<'a>], format: Format) -> Result<Vec<Part<'a>>> {
    let mut parts = Vec::with_capacity(3 * entries.len());
    match format {
        Format::Binary { align } => {
            let ids: Vec<&[u8]> = entries.iter().map(|e| e.id).collect();
            let sizes: Vec<u64> = entries.iter().map(|e| e.input.len()).collect();
            let l = binary::layout(&ids, &sizes, align).map_err(|source| Error::Format {
                input: Subject::Bundle.into(),
                source,
            })?;
            let padding = l.padding();
            parts.push(Part::Owned(l.header));
            for (e, pad) in entries.iter().zip(padding) {
                parts.push(Part::Zeros(pad));
                parts.push(Part::Payload(e.input.bytes()));
            }
        }
        Format::Text(c) => {
            for e in entries {
                parts.push(Part::Owned(c.entry_prefix(e.id)));
                parts.push(Part::Payload(e.input.bytes()));
                parts.push(Part::Owned(c.entry_suffix(e.id)));
            }
        }
        Format::Object => {
            return Err(Error::Unusable {
                input: Subject::Bundle.into(),
                message: "a fat object cannot be built in memory".into(),
            })
        }
    }
    Ok(parts)
}

fn too_big(n: u64) -> Error {
    Error::Unusable {
        input: Subject::Bundle.into(),
        message: format!("{n} bytes do not fit in memory"),
    }
}

/// The whole uncompressed bundle in memory (binary or text), for compression. The bytes are
/// those of [`binary::write`] / [`text::write`]; the payloads are copied from the (mapped)
/// inputs on two threads, which halves the time of the copy and of faulting in the buffer.
pub fn in_memory(entries: &[Entry<'_>], format: Format) -> Result<Vec<u8>> {
    let parts = parts(entries, format)?;
    // (offset, bytes) pieces; the gaps (the zero parts) stay zero.
    let mut pieces: Vec<(u64, &[u8])> = Vec::with_capacity(parts.len());
    let mut total = 0u64;
    for part in &parts {
        match part {
            Part::Owned(b) if !b.is_empty() => pieces.push((total, b)),
            Part::Payload(b) if !b.is_empty() => pieces.push((total, b)),
            _ => {}
        }
        total += part.len();
    }
    let n = usize::try_from(total).map_err(|_| too_big(total))?;
    let mut buf = vec![0u8; n];
    fill_in_parallel(&mut buf, &pieces);
    Ok(buf)
}

/// Zero bytes that padding parts borrow.
static ZEROS: [u8; 1 << 16] = [0; 1 << 16];

/// The parts as the byte slices they stand for, in order (empty ones left out); padding is
/// borrowed from [`ZEROS`], in as many slices as it takes.
fn pieces<'p>(parts: &'p [Part<'_>]) -> Vec<&'p [u8]> {
    let mut pieces: Vec<&[u8]> = Vec::with_capacity(parts.len());
    for part in parts {
        match part {
            Part::Owned(b) => pieces.push(b),
            Part::Payload(b) => pieces.push(b),
            Part::Zeros(n) => {
                let mut left = *n;
                while left > 0 {
                    let k = left.min(ZEROS.len() as u64);
                    pieces.push(ZEROS.get(..k as usize).unwrap_or_default());
                    left -= k;
                }
            }
        }
    }
    pieces.retain(|b| !b.is_empty());
    pieces
}

/// Copies each `(offset, bytes)` piece (sorted, disjoint, inside `buf`) into `buf`, the work
/// split in two halves of equal size run on two threads.
fn fill_in_parallel(buf: &mut [u8], pieces: &[(u64, &[u8])]) {
    // Cut the destination into disjoint slices, one per piece.
    let mut jobs: Vec<(&mut [u8], &[u8])> = Vec::with_capacity(pieces.len() + 1);
    let mut rest: &mut [u8] = buf;
    let mut at = 0u64;
    for (off, src) in pieces {
        let skip = off.saturating_sub(at) as usize;
        let tail = std::mem::take(&mut rest);
        let (_, tail) = tail.split_at_mut(skip.min(tail.len()));
        let (dst, tail) = tail.split_at_mut(src.len().min(tail.len()));
        jobs.push((dst, src));
        rest = tail;
        at = off + src.len() as u64;
    }
    let total: usize = jobs.iter().map(|(d, _)| d.len()).sum();
    // Split the job list at half of the bytes, cutting the piece that straddles the middle.
    let mut first: Vec<(&mut [u8], &[u8])> = Vec::new();
    let mut second: Vec<(&mut [u8], &[u8])> = Vec::new();
    let mut done = 0usize;
    for (dst, src) in jobs {
        let half = total / 2;
        if done >= half {
            second.push((dst, src));
        } else if done + dst.len() <= half {
            done += dst.len();
            first.push((dst, src));
        } else {
            let k = half - done;
            let (d1, d2) = dst.split_at_mut(k);
            let (s1, s2) = src.split_at(k.min(src.len()));
            done += k;
            first.push((d1, s1));
            second.push((d2, s2));
        }
    }
    let copy = |jobs: Vec<(&mut [u8], &[u8])>| {
        for (dst, src) in jobs {
            let n = dst.len().min(src.len());
            dst[..n].copy_from_slice(&src[..n]);
        }
    };
    std::thread::scope(|s| {
        s.spawn(|| copy(second));
        copy(first);
    });
}

/// Writes a compressed bundle of `entries` in `format` (binary or text).
pub fn compressed(
    entries: &[Entry<'_>],
    format: Format,
    opts: &compressed::Options,
    out: &mut Output,
) -> Result<compressed::Compressed> {
    let c = if opts.streams_pieces() {
        // The payloads go from their mappings straight to the compressor.
        compressed::compress_pieces(&pieces(&parts(entries, format)?), opts)
    } else {
        compressed::compress(&in_memory(entries, format)?, opts)
    }
    .map_err(|source| Error::Format {
        input: Subject::Output(out.path().to_path_buf()).into(),
        source,
    })?;
    out.write_all(&c.bytes).map_err(write_err(out))?;
    Ok(c)
}

/// Writes a fat object: the host input (`entries[host]`) with one bundle section per entry,
/// streamed from the inputs; the host entry's section holds one zero byte.
pub fn object(entries: &[Entry<'_>], host: usize, out: &mut Output) -> Result<()> {
    let host_input = entries
        .get(host)
        .ok_or_else(|| Error::Unusable {
            input: Subject::Output(out.path().to_path_buf()).into(),
            message: "a fat object needs a host entry".into(),
        })?
        .input;
    let sections: Vec<(&[u8], u64)> = entries
        .iter()
        .enumerate()
        .map(|(i, e)| (e.id, if i == host { 1 } else { e.input.len() }))
        .collect();
    let path = out.path().to_path_buf();
    fatobj::append_bundle_sections(host_input.bytes(), &sections, out, |i, w| {
        if i == host {
            w.write_all(b"\0")
        } else {
            entries[i].input.copy_all(w)
        }
    })
    .map_err(|source| Error::Object {
        input: Subject::Rewriting {
            input: Origin::input(InputName::file(host_input.path())),
            output: path,
        }
        .into(),
        source: Box::new(source),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inputs() -> [Input; 3] {
        [
            Input::from_bytes("a", (0..5000u32).map(|i| i as u8).collect()),
            Input::from_bytes("b", b"second payload".to_vec()),
            Input::from_bytes("e", Vec::new()),
        ]
    }

    fn entries(inputs: &[Input; 3]) -> [Entry<'_>; 3] {
        let ids: [&[u8]; 3] = [
            b"host-x86_64-unknown-linux-gnu-",
            b"hip-amdgcn-amd-amdhsa--gfx906",
            b"hip-amdgcn-amd-amdhsa--gfx90a",
        ];
        std::array::from_fn(|i| Entry {
            id: ids[i],
            input: &inputs[i],
        })
    }

    #[test]
    fn in_memory_and_pieces_match_the_format_writers() {
        let inputs = inputs();
        let entries = entries(&inputs);
        let pairs: Vec<(&[u8], &[u8])> = entries.iter().map(|e| (e.id, e.input.bytes())).collect();
        let c = text::Comment::Semicolon;
        // An alignment past `ZEROS.len()` pads with more than one slice.
        let cases = [1, 7, 4096, 100_000]
            .map(|align| {
                (
                    Format::Binary { align },
                    binary::write(&pairs, align).unwrap(),
                )
            })
            .into_iter()
            .chain([(Format::Text(c), text::write(c, &pairs))]);
        for (format, bytes) in cases {
            assert_eq!(in_memory(&entries, format).unwrap(), bytes);
            assert_eq!(pieces(&parts(&entries, format).unwrap()).concat(), bytes);
        }
    }

    #[test]
    fn streamed_compression_gives_the_same_bundle() {
        let inputs = inputs();
        let entries = entries(&inputs);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.bundle");
        for format in [
            Format::Binary { align: 4096 },
            Format::Text(text::Comment::Hash),
        ] {
            for threads in [0, 2] {
                let opts = compressed::Options {
                    threads,
                    ..compressed::Options::default()
                };
                assert_eq!(opts.streams_pieces(), threads > 0);
                let mut out = Output::create(&path).unwrap();
                let c = compressed(&entries, format, &opts, &mut out).unwrap();
                out.commit().unwrap();
                let written = std::fs::read(&path).unwrap();
                assert_eq!(written, c.bytes);
                let all = compressed::decompress_all(&written, 0, u64::MAX).unwrap();
                assert_eq!(all.len(), 1);
                assert_eq!(all[0].1, in_memory(&entries, format).unwrap());
            }
        }
    }
}
