//! `offkit inspect`: show every device image in objects, archives, executables, shared libraries
//! and bundles, and their offload entry tables.

mod code;
mod json;
mod resources;
pub mod text;

use std::io::Write;
use std::path::PathBuf;

use anyhow::Result;

use offkit_bundle::inspect::{inspect, InspectConfig};
use offkit_bundle::walk::ScanOptions;
use offkit_format::scan::{EntryTables, Inflate, Report};
use offkit_tools::Env;

use crate::output::{inputs_failed, print_error};
use crate::select::SelectArgs;
pub use json::InputError;

/// Show every device image in objects, archives, executables, shared libraries and bundles.
///
/// For each input: its path as a heading, one row per device image (where it is in the file,
/// e.g. `(k.o):.llvm.offloading[1]`; offload kind; image kind; triple; target ID; offset; size;
/// compression), a summary (bundles, images and their bytes, compressed share, images per
/// target), then every offload entry table (`omp_offloading_entries`,
/// `cuda_offloading_entries`, `hip_offloading_entries`, `llvm_offload_entries`) with its names,
/// roles, sizes and flags. Rows fit 120 columns: long locations and IDs are elided in the
/// middle (`…`); `--json` has everything. Only headers are read: a gigabyte of images costs no
/// more than a kilobyte (`--verify` reads compressed bundles whole, to check their hashes). An input that cannot be read is reported (file, offset, what) and the
/// others are still shown; the exit status is then 1.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  offkit inspect main.o libsaxpy.a saxpy\n  \
                        offkit inspect --json a.out   # schema: docs/inspect-json.md")]
pub struct Args {
    /// The files to inspect: ELF objects, executables and shared libraries, static archives
    /// (GNU, BSD, thin), offload binaries, offload bundles, bitcode; directories are searched
    /// recursively for them (files there without device code are skipped and counted).
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,
    /// Print JSON (`"schema_version": 2`, documented in docs/inspect-json.md): everything the
    /// table shows and more, one document even when some inputs cannot be read.
    #[arg(long)]
    json: bool,
    /// Show only some images (the entry tables are shown whole).
    #[command(flatten)]
    select: SelectArgs,
    /// Do not read offload entry tables.
    #[arg(long, conflicts_with = "device_entries")]
    no_entries: bool,
    /// Also show the entry tables of ELF device images (an x86_64 offload image has its own),
    /// not only those of the host files.
    #[arg(long)]
    device_entries: bool,
    /// Also show what is inside each device code object: the target ID its ELF header encodes,
    /// the code-object version and the kernels (AMD GPU code objects, cubins), the offload
    /// entries (OpenMP images), and each CUDA fat binary entry's kind, flags and compression.
    /// (`--json` always has them.)
    #[arg(long)]
    kernels: bool,
    /// Also show what each kernel uses (implies `--kernels`): for AMD GPU code objects the
    /// counts of their metadata note (`VGPR`, `SGPR`, `AGPR`, spills, `LDS`, `SCRATCH`, kernel
    /// argument bytes, wavefront size, …, what `llvm-readelf --notes` shows), for cubins what
    /// `cuobjdump -res-usage` reports (`REG`, `STACK`, `SHARED`, `LOCAL`, `CONSTANT[n]`).
    /// Compressed bundles are read as a stream as far as their last image (`--json` always
    /// has them).
    #[arg(long)]
    resources: bool,
    /// Also decompress every compressed bundle whole, as a stream, and check its size and
    /// hash (a listing reads each only as far as its entry table and image headers); a bundle
    /// that fails is an error naming its offset, and the exit status is 1.
    #[arg(long)]
    verify: bool,
}

impl Args {
    fn entry_tables(&self) -> EntryTables {
        if self.no_entries {
            EntryTables::None
        } else if self.device_entries {
            EntryTables::All
        } else {
            EntryTables::Host
        }
    }
}

/// The absolute offset of the innermost format error in `err`'s chain, if it has one.
pub fn error_offset(err: &anyhow::Error) -> Option<u64> {
    err.chain()
        .filter_map(|c| c.downcast_ref::<offkit_format::Error>())
        .filter_map(offkit_format::Error::offset)
        .last()
}

/// The JSON form of an input that could not be read.
pub fn input_error(err: &anyhow::Error) -> json::InputError {
    let causes: Vec<String> = err.chain().map(|c| c.to_string()).collect();
    json::InputError {
        message: causes.join(": "),
        causes,
        offset: error_offset(err),
    }
}

/// Runs `offkit inspect`.
pub fn run(args: Args, _env: &Env) -> Result<()> {
    // Every input is scanned before anything is printed. An input that cannot be read is
    // reported on stderr (and in the JSON document) and the others go on.
    let config = InspectConfig {
        files: args.files.clone(),
        scan: ScanOptions {
            entry_tables: args.entry_tables(),
            inflate: if args.verify {
                Inflate::Verify
            } else {
                Inflate::Headers
            },
            kernels: args.json || args.kernels || args.resources,
        },
        select: args.select.selection(),
    };
    let report = inspect(&config);
    let failed = report.failed();
    let no_match = report.no_match();
    let inputs = report.inputs.len();
    let skipped: Vec<String> = report
        .skipped
        .iter()
        .map(|p| p.display().to_string())
        .collect();
    let mut reports = Vec::with_capacity(report.inputs.len());
    for input in report.inputs {
        let name = input.path.display().to_string();
        for w in &input.report.warnings {
            eprintln!("warning: {w}");
        }
        match input.error {
            None => reports.push((name, input.report, None)),
            Some(e) => {
                let e = anyhow::Error::new(e);
                print_error(&e);
                reports.push((name, Report::default(), Some(input_error(&e))));
            }
        }
    }
    let mut out = String::new();
    if args.json {
        out = serde_json::to_string_pretty(&json::document(&reports, &skipped))?;
        out.push('\n');
    } else {
        for (path, r, error) in &reports {
            if error.is_some() {
                continue;
            }
            if !out.is_empty() {
                out.push('\n');
            }
            text::render(path, r, config.select.is_active(), &mut out);
            code::render(r, args.kernels || args.resources, args.resources, &mut out);
        }
        if !skipped.is_empty() {
            let n = skipped.len();
            out.push_str(&format!(
                "\n{n} file{} without device code skipped\n",
                if n == 1 { "" } else { "s" }
            ));
        }
    }
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(out.as_bytes())?;
    stdout.flush()?;
    inputs_failed(failed, inputs)?;
    if let Some(none) = no_match {
        anyhow::bail!("{none}");
    }
    Ok(())
}
