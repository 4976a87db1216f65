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

/// The whole uncompressed bundle in memory (binary or text), for compression.
pub fn in_memory(entries: &[Entry<'_>], format: Format) -> Result<Vec<u8>> {
    let pairs: Vec<(&[u8], &[u8])> = entries.iter().map(|e| (e.id, e.input.bytes())).collect();
    match format {
        Format::Binary { align } => binary::write(&pairs, align).map_err(|source| Error::Format {
            input: "the bundle".into(),
            source,
        }),
        Format::Text(c) => Ok(text::write(c, &pairs)),
        Format::Object => Err(Error::Unusable {
            input: "the bundle".into(),
            message: "a fat object cannot be built in memory".into(),
        }),
    }
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
