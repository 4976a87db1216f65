//! `-list` and `-unbundle` of a single (non-archive) input, as LLVM does them
//! (`OffloadBundler::UnbundleFiles` and `ListBundleIDsInFile`).

use std::borrow::Cow;
use std::io::Write;
use std::path::Path;
use std::time::Instant;

use offkit_format::bundle::{binary, compressed, text};
use offkit_llvm::adt::stringmap::StringMap;
use offkit_llvm::target_id::bundle::{is_compatible, is_well_formed, BundleEntryId};
use offkit_tools::fs::Outputs;

use super::{
    commit, handler, objcopy, read_input, write_error, Config, Decompression, Event, Events,
    Handler,
};
use crate::fatobj;
use crate::io::{Input, Output};
use crate::{Error, Result};

/// Decompresses `input` as the release does (`CompressedOffloadBundle::decompress`): the input
/// itself (mapped, payloads copied by the kernel) or the decompressed bytes.
pub(super) fn decompress(cfg: &Config, input: Input, events: &mut Events<'_>) -> Result<Input> {
    let start = Instant::now();
    let d = compressed::decompress_llvm(cfg.release.llvm, input.bytes()).map_err(|source| {
        Error::Decompress {
            path: input.path().to_path_buf(),
            offset: 0,
            source,
        }
    })?;
    let elapsed = start.elapsed();
    let Some(header) = d.header else {
        if cfg.verbose && input.len() >= cfg.release.ccob_min_size {
            events(Event::Uncompressed);
        }
        return Ok(input);
    };
    let bytes = match d.data {
        Cow::Owned(v) => v,
        Cow::Borrowed(b) => b.to_vec(),
    };
    if cfg.verbose {
        let hash_start = Instant::now();
        let recalculated_hash = compressed::truncated_md5(&bytes);
        events(Event::Decompressed(&Decompression {
            header,
            file_size: input.len(),
            elapsed,
            hash_elapsed: hash_start.elapsed(),
            recalculated_hash,
        }));
    }
    Ok(Input::from_bytes(input.path(), bytes))
}

/// One bundle as LLVM's handlers visit it.
#[derive(Debug, Clone)]
pub(super) enum Bundle<'d> {
    /// A binary bundle entry.
    Binary(binary::Entry<'d>),
    /// An object's bundle section.
    Section(fatobj::BundleSection),
}

/// The bundles of a binary or object input in LLVM's order (StringMap order, section order; the
/// same in LLVM 19 and 22); an error where LLVM crashes.
pub(super) fn binary_or_object_bundles<'d>(
    h: Handler,
    path: &Path,
    data: &'d [u8],
) -> Result<Vec<(Cow<'d, [u8]>, Bundle<'d>)>> {
    match h {
        Handler::Binary => match binary::parse_llvm19(data) {
            binary::Llvm19::NoBundles => Ok(Vec::new()),
            binary::Llvm19::Entries(e) => Ok(binary::llvm19_order(&e)
                .into_iter()
                .map(|e| (Cow::Borrowed(e.id), Bundle::Binary(e)))
                .collect()),
            binary::Llvm19::Crash { offset, reason } => {
                Err(Error::MalformedBundleHeader { offset, reason })
            }
        },
        Handler::Object => {
            let secs = fatobj::bundle_sections(data).map_err(|source| Error::ObjectRead {
                path: path.to_path_buf(),
                source,
            })?;
            Ok(secs
                .into_iter()
                .map(|s| (Cow::Owned(s.id.clone()), Bundle::Section(s)))
                .collect())
        }
        Handler::Text(_) => Ok(Vec::new()),
    }
}

/// `-list`: the bundle IDs of the first input, in the handler's order.
pub fn list(cfg: &Config, events: &mut Events<'_>) -> Result<Vec<Vec<u8>>> {
    let path = cfg.input();
    let input = decompress(cfg, read_input(&path)?, events)?;
    let data = input.bytes();
    let h = handler(&cfg.files_type, data)?;
    match h {
        Handler::Text(c) => {
            let ids = text::Llvm19Reader::list(data, c)
                .map_err(|_| Error::UnterminatedTextBundle { path, id: None })?;
            Ok(ids.into_iter().map(<[u8]>::to_vec).collect())
        }
        _ => Ok(binary_or_object_bundles(h, &path, data)?
            .into_iter()
            .map(|(id, _)| id.into_owned())
            .collect()),
    }
}

/// Writes one payload to `path`: a range of the input (copied by the kernel when the input is
/// a file), or bytes. The output joins `outs`, renamed into place with the others only when
/// all are written (LLVM leaves the outputs written before a failure; offkit leaves none).
fn write_payload(
    outs: &mut Outputs,
    input: &Input,
    payload: Payload<'_>,
    path: &Path,
) -> Result<()> {
    let mut out = Output::create(path).map_err(write_error(path))?;
    let r = match payload {
        Payload::Range(off, len) => input.copy_range(off, len, &mut out),
        Payload::Bytes(b) => out.write_all(b),
    };
    r.map_err(write_error(path))?;
    outs.push(out);
    Ok(())
}

enum Payload<'a> {
    Range(u64, u64),
    Bytes(&'a [u8]),
}

/// `-unbundle` of a non-archive input (`OffloadBundler::UnbundleFiles`): each target's bundle
/// to its output, all outputs appearing together.
pub fn unbundle(cfg: &Config, events: &mut Events<'_>) -> Result<()> {
    let path = cfg.input();
    let input = &decompress(cfg, read_input(&path)?, events)?;
    let data = input.bytes();
    let h = handler(&cfg.files_type, data)?;
    let mut outs = Outputs::default();
    // The work list: standardised target → output, in a StringMap (a repeated target keeps
    // the last output).
    let mut work: StringMap<String, std::path::PathBuf> = StringMap::new();
    for (t, o) in cfg.targets.iter().zip(&cfg.outputs) {
        work.insert(t.clone(), o.clone());
    }
    // Finds the first work-list entry compatible with code object `id`, in StringMap order
    // (LLVM 22 first refuses an ID of the wrong shape).
    let llvm = cfg.release.llvm;
    let find =
        |work: &StringMap<String, std::path::PathBuf>, id: &[u8]| -> Result<Option<String>> {
            let c = BundleEntryId::parse(llvm, id);
            if cfg.release.checks_read_ids && !is_well_formed(llvm, id) {
                return Err(Error::InvalidReadBundleId { id: id.to_vec() });
            }
            Ok(work
                .keys()
                .find(|t| is_compatible(&c, &BundleEntryId::parse(llvm, t), cfg.hip_openmp))
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
                let payload = r.read_bundle().map_err(|_| Error::UnterminatedTextBundle {
                    path: path.clone(),
                    id: Some(id.to_vec()),
                })?;
                r.read_bundle_end();
                write_payload(&mut outs, input, Payload::Bytes(payload), &out)?;
                work.remove(target.as_bytes());
            }
        }
        _ => {
            for (id, bundle) in binary_or_object_bundles(h, &path, data)? {
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
                            return Err(Error::BundleOutside {
                                path,
                                member: None,
                                id: e.id.to_vec(),
                                offset: e.offset,
                                size: e.size,
                            });
                        }
                        write_payload(&mut outs, input, Payload::Range(e.offset, e.size), &out)?;
                    }
                    Bundle::Section(s) => {
                        let bytes = section_payload(cfg, data, &s, None, events)?;
                        write_payload(&mut outs, input, Payload::Bytes(&bytes), &out)?;
                    }
                }
                work.remove(target.as_bytes());
            }
        }
    }
    if !cfg.allow_missing && !work.is_empty() {
        let targets = work
            .keys()
            .map(|k| String::from_utf8_lossy(k).into_owned())
            .collect();
        return Err(Error::MissingBundles { targets });
    }
    write_remaining(&mut outs, input, &work, cfg)?;
    commit(outs)
}

/// The outputs of the targets no bundle matched: empty, or when no bundle matched at all (the
/// input is taken to be the host's) the whole input for a host target.
fn write_remaining(
    outs: &mut Outputs,
    input: &Input,
    work: &StringMap<String, std::path::PathBuf>,
    cfg: &Config,
) -> Result<()> {
    let none_matched = work.len() == cfg.targets.len();
    for (t, o) in work.iter() {
        if none_matched && BundleEntryId::parse(cfg.release.llvm, t).is_host() {
            write_payload(outs, input, Payload::Range(0, input.len()), o)?;
        } else {
            write_payload(outs, input, Payload::Bytes(&[]), o)?;
        }
    }
    Ok(())
}

/// The payload of an object's bundle section: its contents, or for a one-byte `\0` host marker
/// the object without its bundle sections (through llvm-objcopy, as LLVM does).
pub(super) fn section_payload(
    cfg: &Config,
    data: &[u8],
    s: &fatobj::BundleSection,
    member: Option<&[u8]>,
    events: &mut Events<'_>,
) -> Result<Vec<u8>> {
    if s.is_host_marker(data) {
        return objcopy::host_bundle(cfg, member, events);
    }
    let range = s.file_range.and_then(|(off, len)| {
        let start = usize::try_from(off).ok()?;
        Some(start..start.checked_add(usize::try_from(len).ok()?)?)
    });
    match range {
        Some(r) => data
            .get(r)
            .map(<[u8]>::to_vec)
            .ok_or(Error::SectionOutside { index: s.index }),
        None => Ok(Vec::new()),
    }
}
