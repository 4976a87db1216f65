//! Writing bundles from input files: binary and text bundles stream their payloads from the
//! inputs to the output (never holding a payload in memory); a compressed bundle is assembled in
//! memory once (one-shot compression is what gives LLVM's bytes) and compressed while its MD5
//! is computed on a second thread; a fat object is the host object rewritten with bundle
//! sections.

use std::io::Write;

use offkit_format::bundle::{binary, compressed, text};

use crate::error::{Error, Result};
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
        input: out.path().display().to_string(),
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

/// The whole uncompressed bundle in memory (binary or text), for compression. The bytes are
/// those of [`binary::write`] / [`text::write`]; the payloads are copied from the (mapped)
/// inputs on two threads, which halves the time of the copy and of faulting in the buffer.
pub fn in_memory(entries: &[Entry<'_>], format: Format) -> Result<Vec<u8>> {
    let too_big = |n: u64| Error::Unusable {
        input: "the bundle".into(),
        message: format!("{n} bytes do not fit in memory"),
    };
    // (offset, bytes) pieces; the gaps stay zero.
    let mut owned: Vec<(u64, Vec<u8>)> = Vec::new();
    let mut borrowed: Vec<(u64, &[u8])> = Vec::new();
    let total = match format {
        Format::Binary { align } => {
            let ids: Vec<&[u8]> = entries.iter().map(|e| e.id).collect();
            let sizes: Vec<u64> = entries.iter().map(|e| e.input.len()).collect();
            let l = binary::layout(&ids, &sizes, align).map_err(|source| Error::Format {
                input: "the bundle".into(),
                source,
            })?;
            let mut pos = l.header.len() as u64;
            for (e, pad) in entries.iter().zip(l.padding()) {
                pos += pad;
                borrowed.push((pos, e.input.bytes()));
                pos += e.input.len();
            }
            owned.push((0, l.header));
            pos
        }
        Format::Text(c) => {
            let mut pos = 0u64;
            for e in entries {
                let prefix = c.entry_prefix(e.id);
                let n = prefix.len() as u64;
                owned.push((pos, prefix));
                pos += n;
                borrowed.push((pos, e.input.bytes()));
                pos += e.input.len();
                let suffix = c.entry_suffix(e.id);
                let n = suffix.len() as u64;
                owned.push((pos, suffix));
                pos += n;
            }
            pos
        }
        Format::Object => {
            return Err(Error::Unusable {
                input: "the bundle".into(),
                message: "a fat object cannot be built in memory".into(),
            })
        }
    };
    let n = usize::try_from(total).map_err(|_| too_big(total))?;
    let mut pieces: Vec<(u64, &[u8])> = owned.iter().map(|(o, b)| (*o, &b[..])).collect();
    pieces.extend(borrowed);
    pieces.retain(|(_, b)| !b.is_empty());
    pieces.sort_by_key(|(o, _)| *o);
    let mut buf = vec![0u8; n];
    fill_in_parallel(&mut buf, &pieces);
    Ok(buf)
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
    let plain = in_memory(entries, format)?;
    let c = compressed::compress(&plain, opts).map_err(|source| Error::Format {
        input: out.path().display().to_string(),
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
            input: out.path().display().to_string(),
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
        input: format!(
            "`{}` (writing `{}`)",
            host_input.path().display(),
            path.display()
        ),
        source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn in_memory_matches_the_format_writers() {
        let a = Input::from_bytes("a", (0..5000u32).map(|i| i as u8).collect());
        let b = Input::from_bytes("b", b"second payload".to_vec());
        let e = Input::from_bytes("e", Vec::new());
        let entries = [
            Entry {
                id: b"host-x86_64-unknown-linux-gnu-",
                input: &a,
            },
            Entry {
                id: b"hip-amdgcn-amd-amdhsa--gfx906",
                input: &b,
            },
            Entry {
                id: b"hip-amdgcn-amd-amdhsa--gfx90a",
                input: &e,
            },
        ];
        let pairs: Vec<(&[u8], &[u8])> = entries.iter().map(|e| (e.id, e.input.bytes())).collect();
        for align in [1, 7, 4096] {
            assert_eq!(
                in_memory(&entries, Format::Binary { align }).unwrap(),
                binary::write(&pairs, align).unwrap()
            );
        }
        let c = text::Comment::Semicolon;
        assert_eq!(
            in_memory(&entries, Format::Text(c)).unwrap(),
            text::write(c, &pairs)
        );
    }
}
