//! `-list` and `-unbundle` of a single (non-archive) input, as LLVM does them
//! (`OffloadBundler::UnbundleFiles` and `ListBundleIDsInFile`).

use std::borrow::Cow;
use std::io::Write;
use std::path::Path;
use std::time::Instant;

use offkit_bundle::fatobj;
use offkit_bundle::io::{Input, Output};
use offkit_format::bundle::{binary, compressed, text};
use offkit_llvm::adt::stringmap::StringMap;
use offkit_llvm::target_id::bundle::{is_compatible, is_well_formed, BundleEntryId};
use offkit_tools::fs::Outputs;

use super::{error, file_error, handler, objcopy, read_input, with_commas, Ctx, Handler, Run};
use crate::dropin::error::decompress_message;

/// The input after `CompressedOffloadBundle::decompress`: the file itself (mapped, payloads
/// copied by the kernel) or the decompressed bytes.
pub struct Decompressed {
    pub input: Input,
}

/// Decompresses `input` as the release does; `prefix` is the message prefix (`Failed to
/// decompress input: ` or `… code object: `).
pub fn decompress(ctx: &Ctx<'_>, input: Input, prefix: &str) -> Run<Decompressed> {
    let llvm = ctx.cfg.release.llvm;
    let start = Instant::now();
    let d = compressed::decompress_llvm(llvm, input.bytes())
        .map_err(|e| error(format!("{prefix}{}", decompress_message(&e))))?;
    let elapsed = start.elapsed();
    let Some(h) = d.header else {
        if ctx.cfg.verbose && input.len() >= ctx.cfg.release.ccob_min_size {
            eprintln!("Uncompressed bundle.");
        }
        return Ok(Decompressed { input });
    };
    let bytes = match d.data {
        Cow::Owned(v) => v,
        Cow::Borrowed(b) => b.to_vec(),
    };
    if ctx.cfg.verbose {
        verbose_decompress(&h, input.len(), &bytes, elapsed);
    }
    Ok(Decompressed {
        input: Input::from_bytes(input.path(), bytes),
    })
}

fn verbose_decompress(
    h: &compressed::LlvmHeader,
    file_size: u64,
    data: &[u8],
    elapsed: std::time::Duration,
) {
    let hash_start = Instant::now();
    let recalculated = compressed::truncated_md5(data);
    objcopy::record_timer("Decompression time", elapsed);
    objcopy::record_timer("Hash recalculation time", hash_start.elapsed());
    let size = h.uncompressed_size;
    let stream = file_size - h.header_size as u64;
    let rate = size as f64 / stream as f64;
    let secs = elapsed.as_secs_f64().max(1e-9);
    let mut s = format!("Compressed bundle format version: {}\n", h.version);
    if let Some(t) = h.total_size {
        s.push_str(&format!(
            "Total file size (from header): {} bytes\n",
            with_commas(t)
        ));
    }
    s.push_str(&format!(
        "Decompression method: {}\nSize before decompression: {} bytes\nSize after decompression: {} bytes\n\
         Compression rate: {rate:.2}\nCompression ratio: {:.2}%\nDecompression speed: {:.2} MB/s\n\
         Stored hash: {:#016x}\nRecalculated hash: {recalculated:#016x}\nHashes match: {}\n",
        h.method.name(),
        with_commas(stream),
        with_commas(size),
        100.0 / rate,
        size as f64 / (1024.0 * 1024.0) / secs,
        h.hash,
        if h.hash == recalculated { "Yes" } else { "No" },
    ));
    eprint!("{s}");
}

/// One bundle as LLVM's handlers visit it.
#[derive(Debug, Clone)]
pub enum Bundle<'d> {
    /// A binary bundle entry.
    Binary(binary::Entry<'d>),
    /// An object's bundle section.
    Section(fatobj::BundleSection),
}

/// The bundles of a binary or object input in LLVM's order (StringMap order, section order; the
/// same in LLVM 19 and 22); an error where LLVM crashes.
pub fn binary_or_object_bundles<'d>(
    h: Handler,
    data: &'d [u8],
) -> Run<Vec<(Cow<'d, [u8]>, Bundle<'d>)>> {
    match h {
        Handler::Binary => match binary::parse_llvm19(data) {
            binary::Llvm19::NoBundles => Ok(Vec::new()),
            binary::Llvm19::Entries(e) => Ok(binary::llvm19_order(&e)
                .into_iter()
                .map(|e| (Cow::Borrowed(e.id), Bundle::Binary(e)))
                .collect()),
            binary::Llvm19::Crash { offset, reason } => Err(error(format!(
                "malformed bundle header at offset {offset:#x}: {reason} (LLVM crashes here)"
            ))),
        },
        Handler::Object => {
            let secs = fatobj::bundle_sections(data).map_err(|e| error(e.to_string()))?;
            Ok(secs
                .into_iter()
                .map(|s| (Cow::Owned(s.id.clone()), Bundle::Section(s)))
                .collect())
        }
        Handler::Text(_) => Ok(Vec::new()),
    }
}

/// `-list`: one ID per line, in the handler's order.
pub fn list(ctx: &Ctx<'_>) -> Run {
    let path = ctx.cfg.inputs.first().cloned().unwrap_or_default();
    let input = read_input(&path)?;
    let d = decompress(ctx, input, "Failed to decompress input: ")?;
    let data = d.input.bytes();
    let h = handler(&ctx.cfg.files_type, data)?;
    let mut out = Vec::new();
    match h {
        Handler::Text(c) => {
            let ids = text::Llvm19Reader::list(data, c).map_err(|_| {
                error(format!(
                    "'{path}': a bundle has no end marker and LLVM would list it forever"
                ))
            })?;
            for id in ids {
                out.extend_from_slice(id);
                out.push(b'\n');
            }
        }
        _ => {
            for (id, _) in binary_or_object_bundles(h, data)? {
                out.extend_from_slice(&id);
                out.push(b'\n');
            }
        }
    }
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_all(&out);
    let _ = stdout.flush();
    Ok(())
}

/// The Oxford-comma list of `Can't find bundles for …`.
fn missing_message(mut names: Vec<&str>) -> String {
    names.sort();
    names.dedup();
    let mut m = String::from("Can't find bundles for");
    let last = names.len().saturating_sub(1);
    for (i, n) in names.iter().enumerate() {
        if i != 0 && last > 1 {
            m.push(',');
        }
        m.push(' ');
        if i == last && i != 0 {
            m.push_str("and ");
        }
        m.push_str(n);
    }
    m
}

/// Writes one payload to `path`: a range of the input (copied by the kernel when the input is
/// a file), or bytes. The output joins `outs`, renamed into place with the others only when
/// all are written (LLVM leaves the outputs written before a failure; offkit leaves none).
fn write_payload(outs: &mut Outputs, input: &Input, payload: Payload<'_>, path: &str) -> Run {
    let p = Path::new(path);
    let mut out = Output::create(p).map_err(|e| file_error(p, e))?;
    let r = match payload {
        Payload::Range(off, len) => input.copy_range(off, len, &mut out),
        Payload::Bytes(b) => out.write_all(b),
    };
    r.map_err(|e| file_error(p, e))?;
    outs.push(out);
    Ok(())
}

/// Renames every output of `outs` into place.
pub fn commit(outs: Outputs) -> Run {
    outs.commit().map_err(|(p, e)| file_error(&p, e))
}

enum Payload<'a> {
    Range(u64, u64),
    Bytes(&'a [u8]),
}

/// `-unbundle` of a non-archive input (`OffloadBundler::UnbundleFiles`).
pub fn unbundle(ctx: &Ctx<'_>) -> Run {
    let path = ctx.cfg.inputs.first().cloned().unwrap_or_default();
    let input = read_input(&path)?;
    let d = decompress(ctx, input, "Failed to decompress input: ")?;
    let input = &d.input;
    let data = input.bytes();
    let h = handler(&ctx.cfg.files_type, data)?;
    let mut outs = Outputs::default();
    // The work list: standardised target → output, in a StringMap (a repeated target keeps
    // the last output).
    let mut work: StringMap<String, String> = StringMap::new();
    for (t, o) in ctx.cfg.targets.iter().zip(&ctx.cfg.outputs) {
        work.insert(t.clone(), o.clone());
    }
    // Finds the first work-list entry compatible with code object `id`, in StringMap order
    // (LLVM 22 first refuses an ID of the wrong shape).
    let llvm = ctx.cfg.release.llvm;
    let find = |work: &StringMap<String, String>, id: &[u8]| -> Run<Option<String>> {
        let c = BundleEntryId::parse(llvm, id);
        if ctx.cfg.release.checks_read_ids && !is_well_formed(llvm, id) {
            return Err(error("invalid bundle id read from the bundle"));
        }
        Ok(work
            .keys()
            .find(|t| is_compatible(&c, &BundleEntryId::parse(llvm, t), ctx.cfg.hip_openmp))
            .map(|t| String::from_utf8_lossy(t).into_owned()))
    };
    match h {
        Handler::Text(c) => {
            let mut r = text::Llvm19Reader::new(data, c);
            while !work.is_empty() {
                let Some(id) = r.read_bundle_start() else {
                    break;
                };
                let Some(target) = find(&work, id)? else {
                    continue;
                };
                let out = work.get(target.as_bytes()).cloned().unwrap_or_default();
                let payload = r.read_bundle().map_err(|_| {
                    error(format!(
                        "'{path}': the bundle '{}' has no end marker (LLVM reads past the end of the input)",
                        String::from_utf8_lossy(id)
                    ))
                })?;
                r.read_bundle_end();
                write_payload(&mut outs, input, Payload::Bytes(payload), &out)?;
                work.remove(target.as_bytes());
            }
        }
        _ => {
            for (id, bundle) in binary_or_object_bundles(h, data)? {
                if work.is_empty() {
                    break;
                }
                let Some(target) = find(&work, &id)? else {
                    continue;
                };
                let out = work.get(target.as_bytes()).cloned().unwrap_or_default();
                match bundle {
                    Bundle::Binary(e) => {
                        if e.payload(data).is_none() {
                            return Err(error(format!(
                                "'{path}': the bundle '{}' ({} bytes at offset {:#x}) lies outside the input (LLVM reads out of bounds)",
                                e.id_str(),
                                e.size,
                                e.offset
                            )));
                        }
                        write_payload(&mut outs, input, Payload::Range(e.offset, e.size), &out)?;
                    }
                    Bundle::Section(s) => {
                        let bytes = section_payload(ctx, data, &s, None)?;
                        write_payload(&mut outs, input, Payload::Bytes(&bytes), &out)?;
                    }
                }
                work.remove(target.as_bytes());
            }
        }
    }
    if !ctx.cfg.allow_missing && !work.is_empty() {
        let names: Vec<String> = work
            .keys()
            .map(|k| String::from_utf8_lossy(k).into_owned())
            .collect();
        return Err(error(missing_message(
            names.iter().map(|s| s.as_str()).collect(),
        )));
    }
    let remaining: Vec<(String, String)> = work
        .iter()
        .map(|(k, v)| (String::from_utf8_lossy(k).into_owned(), v.clone()))
        .collect();
    if remaining.len() == ctx.cfg.targets.len() {
        // No bundle matched at all: the input is taken to be the host's.
        for (t, o) in &remaining {
            if BundleEntryId::parse(llvm, t.as_bytes()).is_host() {
                write_payload(&mut outs, input, Payload::Range(0, input.len()), o)?;
            } else {
                write_payload(&mut outs, input, Payload::Bytes(&[]), o)?;
            }
        }
        return commit(outs);
    }
    for (_, o) in &remaining {
        write_payload(&mut outs, input, Payload::Bytes(&[]), o)?;
    }
    commit(outs)
}

/// The payload of an object's bundle section: its contents, or for a one-byte `\0` host marker
/// the object without its bundle sections (through llvm-objcopy, as LLVM does).
pub fn section_payload(
    ctx: &Ctx<'_>,
    data: &[u8],
    s: &fatobj::BundleSection,
    member: Option<&[u8]>,
) -> Run<Vec<u8>> {
    if s.is_host_marker(data) {
        return objcopy::host_bundle(ctx, member);
    }
    let range = s.file_range.and_then(|(off, len)| {
        let start = usize::try_from(off).ok()?;
        Some(start..start.checked_add(usize::try_from(len).ok()?)?)
    });
    match range {
        Some(r) => data.get(r).map(<[u8]>::to_vec).ok_or_else(|| {
            error(format!(
                "the contents of section {} lie outside the object",
                s.index
            ))
        }),
        None => Ok(Vec::new()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn oxford_comma() {
        assert_eq!(missing_message(vec!["a"]), "Can't find bundles for a");
        assert_eq!(
            missing_message(vec!["b", "a"]),
            "Can't find bundles for a and b"
        );
        assert_eq!(
            missing_message(vec!["c", "a", "b"]),
            "Can't find bundles for a, b, and c"
        );
    }
}
