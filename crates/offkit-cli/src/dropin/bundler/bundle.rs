//! Bundling, as LLVM's `OffloadBundler::BundleFiles` does: binary and text bundles, objects
//! through `llvm-objcopy`, compressed with `CompressedOffloadBundle` (the header version of the
//! release, or of `COMPRESSED_BUNDLE_FORMAT_VERSION` in LLVM 22).

use std::path::Path;
use std::time::Instant;

use offkit_bundle::io::{Input, Output};
use offkit_bundle::write::{self, Entry, Format};
use offkit_format::bundle::compressed;

use super::objcopy::{self, TempFile};
use super::{error, file_error, handler, read_input, with_commas, Ctx, Handler, Run};

/// `-compress` as LLVM does it: zstd, long-distance matching, the configured level, the
/// configured header version (LLVM 19 silently cuts version-2 sizes above 4 GiB to 32 bits;
/// LLVM 22 refuses them).
fn compress_options(ctx: &Ctx<'_>) -> compressed::Options {
    compressed::Options {
        version: ctx.cfg.ccob_version,
        level: ctx.cfg.compression_level,
        ..compressed::Options::written_by(ctx.cfg.release.llvm)
    }
}

/// LLVM 22's refusals of a version-2 header's sizes (before it writes anything).
fn check_v2_sizes(ctx: &Ctx<'_>, plain: &[u8]) -> Run {
    if ctx.cfg.ccob_version == 2
        && !compress_options(ctx).wrap_sizes
        && u32::try_from(plain.len()).is_err()
    {
        return Err(error("Uncompressed size exceeds version 2 limit"));
    }
    Ok(())
}

/// Compresses a whole bundle, printing LLVM's verbose report if asked.
fn compress(ctx: &Ctx<'_>, plain: &[u8]) -> Run<Vec<u8>> {
    check_v2_sizes(ctx, plain)?;
    let start = Instant::now();
    let c = compressed::compress(plain, &compress_options(ctx)).map_err(|e| {
        if ctx.cfg.ccob_version == 2 && !compress_options(ctx).wrap_sizes {
            error("Total file size exceeds version 2 limit")
        } else {
            error(e.to_string())
        }
    })?;
    let elapsed = start.elapsed();
    if ctx.cfg.verbose {
        objcopy::record_timer("Compression time", elapsed);
        objcopy::record_timer("Hash calculation time", std::time::Duration::ZERO);
        let size = plain.len() as u64;
        let rate = size as f64 / c.stream_size.max(1) as f64;
        eprint!(
            "Compressed bundle format version: {}\nTotal file size (including headers): {} bytes\n\
             Compression method used: zstd\nCompression level: {}\nBinary size before compression: {} bytes\n\
             Binary size after compression: {} bytes\nCompression rate: {rate:.2}\nCompression ratio: {:.2}%\n\
             Compression speed: {:.2} MB/s\nTruncated MD5 hash: {:#016x}\n",
            ctx.cfg.ccob_version,
            with_commas(c.bytes.len() as u64),
            ctx.cfg.compression_level,
            with_commas(size),
            with_commas(c.stream_size),
            100.0 / rate,
            size as f64 / (1024.0 * 1024.0) / elapsed.as_secs_f64().max(1e-9),
            c.hash,
        );
    }
    Ok(c.bytes)
}

/// Bundles the inputs into the one output.
pub fn bundle(ctx: &Ctx<'_>) -> Run {
    let cfg = &ctx.cfg;
    let inputs: Vec<Input> = cfg
        .inputs
        .iter()
        .map(|p| read_input(p))
        .collect::<Run<_>>()?;
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
                return Err(error(
                    "-bundle-align=0: the alignment must be at least 1 (LLVM divides by zero)",
                ));
            }
            Format::Binary {
                align: cfg.bundle_align.into(),
            }
        }
        Handler::Object => return bundle_object(ctx, &out_path),
    };
    let p = Path::new(&out_path);
    let mut out = Output::create(p).map_err(|e| file_error(p, e))?;
    if cfg.compress {
        let plain = write::in_memory(&entries, format).map_err(|e| error(e.to_string()))?;
        let bytes = compress(ctx, &plain)?;
        std::io::Write::write_all(&mut out, &bytes).map_err(|e| file_error(p, e))?;
    } else {
        let r = match format {
            Format::Binary { align } => write::binary(&entries, align, &mut out),
            Format::Text(c) => write::text(&entries, c, &mut out),
            Format::Object => Ok(()),
        };
        r.map_err(|e| match e {
            offkit_bundle::Error::Write { source, .. } => file_error(p, source),
            e => error(e.to_string()),
        })?;
    }
    out.commit().map_err(|e| file_error(p, e))
}

/// A fat object: `llvm-objcopy --add-section … --set-section-flags …=readonly,exclude -- host out`
/// (the host's section holds one zero byte). `-compress` has no effect: objcopy replaces the
/// output.
fn bundle_object(ctx: &Ctx<'_>, out_path: &str) -> Run {
    let cfg = &ctx.cfg;
    let p = Path::new(out_path);
    // LLVM opens (and empties) the output before running objcopy; fail as it would.
    drop(Output::create(p).map_err(|e| file_error(p, e))?);
    let Some(host) = cfg.host_index else {
        return Err(error(
            "cannot bundle an object file without a host target (LLVM crashes here)",
        ));
    };
    let marker = TempFile::create(ctx, Some(&[0]))?;
    let mut args = Vec::new();
    for (i, t) in cfg.targets.iter().enumerate() {
        let file = if i == host {
            marker.path().display().to_string()
        } else {
            cfg.inputs.get(i).cloned().unwrap_or_default()
        };
        args.push(format!("--add-section=__CLANG_OFFLOAD_BUNDLE__{t}={file}"));
        args.push(format!(
            "--set-section-flags=__CLANG_OFFLOAD_BUNDLE__{t}=readonly,exclude"
        ));
    }
    args.push("--".into());
    args.push(cfg.inputs.get(host).cloned().unwrap_or_default());
    args.push(out_path.to_string());
    if cfg.print_commands {
        // Nothing replaces the output: it keeps the (compressed) empty buffer LLVM wrote.
        let empty = if cfg.compress {
            compress(ctx, &[])?
        } else {
            Vec::new()
        };
        super::write_output(out_path, &empty)?;
    }
    objcopy::execute(ctx, &args)
}
