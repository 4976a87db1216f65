//! Bundling, as LLVM's `OffloadBundler::BundleFiles` does: binary and text bundles, objects
//! through `llvm-objcopy`, compressed with `CompressedOffloadBundle` (the header version of the
//! release, or of `COMPRESSED_BUNDLE_FORMAT_VERSION` in LLVM 22).

use std::path::Path;
use std::time::Instant;

use offkit_format::bundle::compressed;

use super::objcopy::{self, TempFile};
use super::{handler, read_input, write_error, Compression, Config, Event, Events, Handler};
use crate::io::{Input, Output};
use crate::write::{self, Entry, Format};
use crate::{Error, Result};

/// `-compress` as LLVM does it: zstd, long-distance matching, the configured level, the
/// configured header version (LLVM 19 silently cuts version-2 sizes above 4 GiB to 32 bits;
/// LLVM 22 refuses them).
fn compress_options(cfg: &Config) -> compressed::Options {
    compressed::Options {
        version: cfg.ccob_version,
        level: cfg.compression_level,
        ..compressed::Options::written_by(cfg.release.llvm)
    }
}

/// Whether version-2 headers refuse sizes above 4 GiB (LLVM 22) rather than cut them.
fn refuses_v2_sizes(cfg: &Config) -> bool {
    cfg.ccob_version == 2 && !compress_options(cfg).wrap_sizes
}

/// Compresses a whole bundle, reporting LLVM's verbose figures if asked.
fn compress(cfg: &Config, plain: &[u8], events: &mut Events<'_>) -> Result<Vec<u8>> {
    // LLVM 22's refusal of a version-2 header's sizes, before it writes anything.
    if refuses_v2_sizes(cfg) && u32::try_from(plain.len()).is_err() {
        return Err(Error::Version2Limit { total: false });
    }
    let start = Instant::now();
    let c = compressed::compress(plain, &compress_options(cfg)).map_err(|source| {
        if refuses_v2_sizes(cfg) {
            Error::Version2Limit { total: true }
        } else {
            Error::Compress { source }
        }
    })?;
    let elapsed = start.elapsed();
    if cfg.verbose {
        events(Event::Compressed(&Compression {
            version: cfg.ccob_version,
            level: cfg.compression_level,
            file_size: c.bytes.len() as u64,
            plain_size: plain.len() as u64,
            stream_size: c.stream_size,
            elapsed,
            hash: c.hash,
        }));
    }
    Ok(c.bytes)
}

/// Bundles the inputs into the one output (`OffloadBundler::BundleFiles`): the output appears
/// whole or not at all.
pub fn bundle(cfg: &Config, events: &mut Events<'_>) -> Result<()> {
    let inputs: Vec<Input> = cfg
        .inputs
        .iter()
        .map(|p| read_input(p))
        .collect::<Result<_>>()?;
    let reference = cfg.host_index.unwrap_or(0);
    let reference_bytes = inputs.get(reference).map(|i| i.bytes()).unwrap_or_default();
    let h = handler(&cfg.files_type, reference_bytes)?;
    let out_path = cfg.outputs.first().cloned().unwrap_or_default();
    let entries: Vec<Entry<'_>> = cfg
        .targets
        .iter()
        .zip(&inputs)
        .map(|(t, input)| Entry {
            id: t.as_bytes(),
            input,
        })
        .collect();
    let format = match h {
        Handler::Text(c) => Format::Text(c),
        Handler::Binary => {
            if cfg.bundle_align == 0 {
                return Err(Error::ZeroBundleAlignment);
            }
            Format::Binary {
                align: cfg.bundle_align.into(),
            }
        }
        Handler::Object => return bundle_object(cfg, &out_path, events),
    };
    let p = out_path.as_path();
    let mut out = Output::create(p).map_err(write_error(p))?;
    if cfg.compress {
        let plain = write::in_memory(&entries, format)?;
        let bytes = compress(cfg, &plain, events)?;
        std::io::Write::write_all(&mut out, &bytes).map_err(write_error(p))?;
    } else {
        let r = match format {
            Format::Binary { align } => write::binary(&entries, align, &mut out),
            Format::Text(c) => write::text(&entries, c, &mut out),
            Format::Object => Ok(()),
        };
        r.map_err(|e| match e {
            Error::Write { source, .. } => write_error(p)(source),
            e => e,
        })?;
    }
    out.commit().map_err(write_error(p))
}

/// A fat object: `llvm-objcopy --add-section … --set-section-flags …=readonly,exclude -- host out`
/// (the host's section holds one zero byte). `-compress` has no effect: objcopy replaces the
/// output.
fn bundle_object(cfg: &Config, out_path: &Path, events: &mut Events<'_>) -> Result<()> {
    // LLVM opens (and empties) the output before running objcopy; fail as it would.
    drop(Output::create(out_path).map_err(write_error(out_path))?);
    let Some(host) = cfg.host_index else {
        return Err(Error::ObjectWithoutHost);
    };
    let marker = TempFile::create(cfg, Some(&[0]))?;
    let mut args = Vec::new();
    for (i, t) in cfg.targets.iter().enumerate() {
        let file = if i == host {
            marker.path().display().to_string()
        } else {
            cfg.inputs
                .get(i)
                .map(|p| p.display().to_string())
                .unwrap_or_default()
        };
        args.push(format!("--add-section=__CLANG_OFFLOAD_BUNDLE__{t}={file}"));
        args.push(format!(
            "--set-section-flags=__CLANG_OFFLOAD_BUNDLE__{t}=readonly,exclude"
        ));
    }
    args.push("--".into());
    args.push(
        cfg.inputs
            .get(host)
            .map(|p| p.display().to_string())
            .unwrap_or_default(),
    );
    args.push(out_path.display().to_string());
    if cfg.print_commands {
        // Nothing replaces the output: it keeps the (compressed) empty buffer LLVM wrote.
        let empty = if cfg.compress {
            compress(cfg, &[], events)?
        } else {
            Vec::new()
        };
        crate::io::write_file(out_path, &empty).map_err(write_error(out_path))?;
    }
    objcopy::execute(cfg, &args, events)
}
