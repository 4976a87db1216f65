//! `offkit size`: where the device bytes of files go, and what `prune` or `compress` would
//! save ([`offkit_surgery::size`]); this file parses and prints.

mod html;
mod json;
mod text;
mod treemap;

use std::io::Write;
use std::path::PathBuf;

use anyhow::Result;
use offkit_format::bundle::compressed::{Method, Options};
use offkit_format::device::Device;
use offkit_surgery::size::{size, SizeConfig};
use offkit_tools::Env;

use super::inspect::{input_error, InputError};
use super::rewrite::Progress;
use crate::output::{inputs_failed, plural, print_error, write_atomic_with};
use crate::select::parse_device;

/// Show where the device bytes of files go, and what `prune` or `compress` would save.
///
/// For each file (a directory is searched for containers, as `offkit check DIR` does): its
/// device bytes as stored and once inflated, by target (offload kind, triple, target ID), by
/// translation unit (each bundle of a `.hip_fatbin`, each CUDA fat binary, each fat object,
/// each other image on its own), and by kernel (the code of each kernel of AMD GPU code objects and cubins). An image
/// of a compressed bundle counts its share of the bundle's compressed bytes, in proportion to
/// its size; the headers and padding of the containers are a row of their own, so that each
/// table sums to the file's device bytes. Then what `offkit compress` (with its defaults, or
/// `--ccob-version`/`--method`/`--level`) and, with `--keep`, `offkit prune --keep` would
/// free and the size of the file they would write: these are planned and made (in memory,
/// a few bundles at a time) by the same code as the real commands, so the figures are theirs.
/// Memory: one file's image headers and kernels at a time, and the bundles being compressed.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  offkit size libk.so --keep gfx90a,gfx1100\n  \
                        offkit size lib/ --json   # schema: docs/size.md\n  \
                        offkit size libk.so --html libk-size.html"
)]
pub struct Args {
    /// The files (objects, archives, executables, shared libraries, bundles) or directories.
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,
    /// Also estimate `offkit prune --keep IDS` (the same syntax: comma-separated or repeated).
    #[arg(long, value_name = "IDS", value_delimiter = ',', value_parser = parse_device)]
    keep: Vec<Device>,
    /// The level of the prune estimated (`offkit prune --level`).
    #[arg(
        long,
        default_value_t = 3,
        allow_negative_numbers = true,
        requires = "keep"
    )]
    prune_level: i32,
    /// Do not estimate `offkit compress` (which compresses every plain bundle to find out).
    #[arg(long)]
    no_compress: bool,
    /// The compress estimated: `offkit compress --ccob-version`.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u16).range(1..=3))]
    ccob_version: u16,
    /// The compress estimated: `offkit compress --method`.
    #[arg(long, default_value = "zstd", value_parser = ["zstd", "zlib"])]
    method: String,
    /// The compress estimated: `offkit compress --level`.
    #[arg(long, allow_negative_numbers = true)]
    level: Option<i32>,
    /// Print JSON (`"schema_version": 1`, documented in docs/size.md).
    #[arg(long)]
    json: bool,
    /// Also write a self-contained HTML page (an SVG treemap of the stored bytes and the
    /// tables) to this file: written whole, and only when every input could be read.
    #[arg(long, value_name = "OUT")]
    html: Option<PathBuf>,
    /// Kernels listed per file in the text (the others are summed in one row; `--json` and
    /// `--html` list them all).
    #[arg(long, default_value_t = 10, value_name = "N")]
    kernels: usize,
    /// Show no progress bar.
    #[arg(short, long)]
    quiet: bool,
}

/// Runs `offkit size`.
pub fn run(args: Args, _env: &Env) -> Result<()> {
    let method = if args.method == "zlib" {
        Method::Zlib
    } else {
        Method::Zstd
    };
    let compress = (!args.no_compress).then(|| Options {
        version: args.ccob_version,
        method,
        level: args
            .level
            .unwrap_or(if method == Method::Zstd { 3 } else { -1 }),
        ..Options::default()
    });
    let config = SizeConfig {
        files: args.files.clone(),
        keep: args.keep.clone(),
        prune_level: args.prune_level,
        compress,
    };
    let mut progress = Progress::new(args.quiet);
    let report = size(&config, &mut |name, done, total| {
        progress.update(name, done, total)
    });
    progress.clear();
    let mut report = report?;
    // An input that cannot be read is reported (file, offset, what) and the others go on.
    let errors: Vec<Option<InputError>> = report
        .files
        .iter_mut()
        .map(|f| {
            f.error.take().map(|e| {
                let e = anyhow::Error::new(e);
                print_error(&e);
                input_error(&e)
            })
        })
        .collect();
    let doc = json::document(&report, &errors);
    let failed = errors.iter().filter(|e| e.is_some()).count();
    // A page that left out an input would mislead: it is written whole, for every input, or
    // not at all.
    match &args.html {
        Some(out) if failed == 0 => {
            let page = html::render(&doc);
            write_atomic_with(out, |w| w.write_all(page.as_bytes()))?;
        }
        Some(out) => eprintln!(
            "note: `{}` was not written: {} could not be read",
            out.display(),
            plural(failed, "input", "inputs")
        ),
        None => {}
    }
    let out = if args.json {
        let mut s = serde_json::to_string_pretty(&doc)?;
        s.push('\n');
        s
    } else {
        text::render(&doc, args.kernels)
    };
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(out.as_bytes())?;
    stdout.flush()?;
    inputs_failed(failed, report.files.len())
}
