//! `offkit inspect`: show every device image in objects, archives, executables, shared libraries
//! and bundles, and their offload entry tables.

mod code;
mod json;
mod text;

use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context, Result};

use offkit_format::scan::{self, EntryTables, Inflate, Options, Report};
use offkit_tools::{Env, MappedFile};

use crate::output::{inputs_failed, print_error};
use crate::select::{Seen, Selection};
pub use json::InputError;
use offkit_bundle::thin::ThinResolver;

/// Show every device image in objects, archives, executables, shared libraries and bundles.
///
/// For each input: its path as a heading, one row per device image (where it is in the file,
/// e.g. `(k.o):.llvm.offloading[1]`; offload kind; image kind; triple; target ID; offset; size;
/// compression), a summary (bundles, images and their bytes, compressed share, images per
/// target), then every offload entry table (`omp_offloading_entries`,
/// `cuda_offloading_entries`, `hip_offloading_entries`, `llvm_offload_entries`) with its names,
/// roles, sizes and flags. Rows fit 120 columns: long locations and IDs are elided in the
/// middle (`…`); `--json` has everything. Only headers are read: a gigabyte of images costs no
/// more than a kilobyte. An input that cannot be read is reported (file, offset, what) and the
/// others are still shown; the exit status is then 1.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  offkit inspect main.o libsaxpy.a saxpy\n  \
                        offkit inspect --json a.out   # schema: docs/inspect-json.md")]
pub struct Args {
    /// The files to inspect: ELF objects, executables and shared libraries, static archives
    /// (GNU, BSD, thin), offload binaries, offload bundles, bitcode.
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,
    /// Print JSON (`"schema_version": 2`, documented in docs/inspect-json.md): everything the
    /// table shows and more, one document even when some inputs cannot be read.
    #[arg(long)]
    json: bool,
    /// Show only some images (the entry tables are shown whole).
    #[command(flatten)]
    select: Selection,
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

/// Scans one input file (memory-mapped) with thin archive members read next to it, handing
/// every event to `visit`. Errors name the file; the format error inside names the member,
/// section and offset.
pub fn walk_file(
    path: &std::path::Path,
    entry_tables: EntryTables,
    visit: &mut dyn FnMut(scan::Event<'_>) -> Result<()>,
) -> Result<()> {
    walk_file_with(path, entry_tables, Inflate::Headers, false, visit)
}

/// [`walk_file`], decompressing compressed bundles as `inflate` says, and reading device
/// images' symbol tables for their kernels when `kernels` is set (see [`Options::kernels`]).
pub fn walk_file_with(
    path: &std::path::Path,
    entry_tables: EntryTables,
    inflate: Inflate,
    kernels: bool,
    visit: &mut dyn FnMut(scan::Event<'_>) -> Result<()>,
) -> Result<()> {
    let data =
        MappedFile::open(path).with_context(|| format!("failed to read `{}`", path.display()))?;
    let mut resolver = ThinResolver;
    // `walk_file` decompresses compressed bundles only as far as their entry tables: listing
    // and selecting need no more, and memory stays bounded whatever the bundles' sizes.
    let mut opts = Options {
        entry_tables,
        inflate,
        kernels,
        resolver: Some(&mut resolver),
    };
    let name = path.display().to_string();
    // After each image and container, the pages touched so far leave the resident set: the
    // kernel maps 64 KiB around each touched header, or a whole 2 MiB page-cache huge page,
    // and a library has hundreds of headers (an madvise costs microseconds).
    let mut visit = |ev: scan::Event<'_>| {
        if matches!(ev, scan::Event::Image(_) | scan::Event::Container(_)) {
            data.release();
        }
        visit(ev)
    };
    scan::walk(&data, &name, &mut opts, &mut visit)
        .with_context(|| format!("cannot read the offloading contents of `{name}`"))
}

/// Scans one input file into a report (with the kernels of its code objects when `kernels`).
pub fn scan_file(
    path: &std::path::Path,
    entry_tables: EntryTables,
    kernels: bool,
) -> Result<Report> {
    let mut report = Report::default();
    walk_file_with(path, entry_tables, Inflate::Headers, kernels, &mut |ev| {
        match ev {
            scan::Event::Container(c) => report.containers.push(c.clone()),
            scan::Event::Image(i) => report.images.push(i.info.clone()),
            scan::Event::Table(t) => report.tables.push(t.clone()),
            scan::Event::Warning(w) => {
                eprintln!("warning: {w}");
                report.warnings.push(w.clone());
            }
            _ => {}
        }
        Ok(())
    })?;
    Ok(report)
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
    let mut reports = Vec::with_capacity(args.files.len());
    let mut failed = 0usize;
    let mut seen = Seen::default();
    let mut selected = 0usize;
    for f in &args.files {
        let name = f.display().to_string();
        match scan_file(f, args.entry_tables(), args.json || args.kernels) {
            Ok(mut r) => {
                if args.select.is_active() {
                    r.images.iter().for_each(|i| seen.add(i));
                    r.images.retain(|i| args.select.selects(i));
                    selected += r.images.len();
                }
                reports.push((name, r, None));
            }
            Err(e) => {
                print_error(&e);
                failed += 1;
                reports.push((name, Report::default(), Some(input_error(&e))));
            }
        }
    }
    let mut out = String::new();
    if args.json {
        out = serde_json::to_string_pretty(&json::document(&reports))?;
        out.push('\n');
    } else {
        for (path, r, error) in &reports {
            if error.is_some() {
                continue;
            }
            if !out.is_empty() {
                out.push('\n');
            }
            text::render(path, r, args.select.is_active(), &mut out);
            code::render(r, args.kernels, &mut out);
        }
    }
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(out.as_bytes())?;
    stdout.flush()?;
    inputs_failed(failed, args.files.len())?;
    if args.select.is_active() && selected == 0 {
        anyhow::bail!("{}", args.select.no_match(&seen));
    }
    Ok(())
}
