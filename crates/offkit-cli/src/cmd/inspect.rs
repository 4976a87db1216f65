//! `offkit inspect`: show every device image in objects, archives, executables, shared libraries
//! and bundles, and their offload entry tables.

pub mod input;
mod json;
mod text;

use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context, Result};

use offkit_format::scan::{self, EntryTables, Inflate, Options, Report};
use offkit_tools::{Env, MappedFile};

use input::ThinResolver;

/// Show every device image in objects, archives, executables, shared libraries and bundles.
///
/// For each input: one row per device image (where it is, e.g. `libk.a(k.o):.llvm.offloading[1]`;
/// offload kind; image kind; triple; target ID; offset; size; compression), then every offload
/// entry table (`omp_offloading_entries`, `cuda_offloading_entries`, `hip_offloading_entries`,
/// `llvm_offload_entries`) with its names, roles, sizes and flags. Only headers are read: a
/// gigabyte of images costs no more than a kilobyte.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  offkit inspect main.o libsaxpy.a saxpy\n  \
                        offkit inspect --json a.out   # schema: docs/inspect-json.md")]
pub struct Args {
    /// The files to inspect: ELF objects, executables and shared libraries, static archives
    /// (GNU, BSD, thin), offload binaries, offload bundles, bitcode.
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,
    /// Print JSON (`"schema_version": 2`, documented in docs/inspect-json.md).
    #[arg(long)]
    json: bool,
    /// Do not read offload entry tables.
    #[arg(long, conflicts_with = "device_entries")]
    no_entries: bool,
    /// Also show the entry tables of ELF device images (an x86_64 offload image has its own),
    /// not only those of the host files.
    #[arg(long)]
    device_entries: bool,
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
    walk_file_with(path, entry_tables, Inflate::Headers, visit)
}

/// [`walk_file`], decompressing compressed bundles as `inflate` says.
pub fn walk_file_with(
    path: &std::path::Path,
    entry_tables: EntryTables,
    inflate: Inflate,
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

/// Scans one input file into a report.
pub fn scan_file(path: &std::path::Path, entry_tables: EntryTables) -> Result<Report> {
    let mut report = Report::default();
    walk_file(path, entry_tables, &mut |ev| {
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

/// Runs `offkit inspect`.
pub fn run(args: Args, _env: &Env) -> Result<()> {
    // Everything is scanned before anything is printed: an error gives no partial listing.
    let mut reports = Vec::with_capacity(args.files.len());
    for f in &args.files {
        reports.push((f.display().to_string(), scan_file(f, args.entry_tables())?));
    }
    let mut out = String::new();
    if args.json {
        out = serde_json::to_string_pretty(&json::document(&reports))?;
        out.push('\n');
    } else {
        for (i, (path, r)) in reports.iter().enumerate() {
            if i > 0 {
                out.push('\n');
            }
            text::render(path, r, &mut out);
        }
    }
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(out.as_bytes())?;
    stdout.flush()?;
    Ok(())
}
