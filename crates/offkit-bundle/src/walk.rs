//! Reading input files through the one container scanner ([`offkit_format::scan`], which does
//! no I/O): the file is memory-mapped, thin archive members are read from their own files
//! ([`ThinResolver`]), and the pages touched are handed back after each image so that a
//! gigabyte of images costs no more than its headers.

use std::path::{Path, PathBuf};

use offkit_format::coverage;
use offkit_format::scan::{self, EntryTables, Event, Inflate, Report};
use offkit_tools::MappedFile;

use crate::error::Error;
use crate::thin::ThinResolver;

/// What a walk of an input reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScanOptions {
    /// Which offload entry tables.
    pub entry_tables: EntryTables,
    /// How much of compressed bundles is decompressed ([`Inflate::Headers`]: only their entry
    /// tables, so that memory stays bounded whatever their sizes).
    pub inflate: Inflate,
    /// Whether device images' symbol tables are read for their kernels
    /// ([`scan::Options::kernels`]).
    pub kernels: bool,
}

impl Default for ScanOptions {
    /// The host files' entry tables, headers only, no kernels.
    fn default() -> Self {
        ScanOptions {
            entry_tables: EntryTables::Host,
            inflate: Inflate::Headers,
            kernels: false,
        }
    }
}

impl ScanOptions {
    /// Headers only, no entry tables, no kernels: what listing and selecting images needs.
    pub fn images() -> Self {
        ScanOptions {
            entry_tables: EntryTables::None,
            ..ScanOptions::default()
        }
    }
}

/// A format error or the visitor's own error, apart until the walk ends.
enum Stop<E> {
    Format(offkit_format::Error),
    Visit(E),
}

impl<E> From<offkit_format::Error> for Stop<E> {
    fn from(e: offkit_format::Error) -> Self {
        Stop::Format(e)
    }
}

/// Scans the input file at `path` (memory-mapped), handing every event to `visit`. An input
/// that cannot be opened is [`Error::Read`]; malformed contents are [`Error::Scan`] (the
/// format error inside names the member, section and offset); an error of `visit` ends the
/// walk and is returned as it is.
pub fn walk_file<E: From<Error>>(
    path: &Path,
    opts: ScanOptions,
    visit: &mut dyn FnMut(Event<'_>) -> std::result::Result<(), E>,
) -> std::result::Result<(), E> {
    let data = MappedFile::open(path).map_err(|source| Error::Read {
        path: path.to_path_buf(),
        source,
    })?;
    let mut resolver = ThinResolver;
    let mut o = scan::Options {
        entry_tables: opts.entry_tables,
        inflate: opts.inflate,
        kernels: opts.kernels,
        resolver: Some(&mut resolver),
    };
    let name = path.display().to_string();
    // After each image and container, the pages touched so far leave the resident set: the
    // kernel maps 64 KiB around each touched header, or a whole 2 MiB page-cache huge page,
    // and a library has hundreds of headers (an madvise costs microseconds).
    let mut visit = |ev: Event<'_>| {
        if matches!(ev, Event::Image(_) | Event::Container(_)) {
            data.release();
        }
        visit(ev).map_err(Stop::Visit)
    };
    scan::walk(&data, &name, &mut o, &mut visit).map_err(|stop| match stop {
        Stop::Format(source) => E::from(Error::Scan {
            input: name.clone(),
            source,
        }),
        Stop::Visit(e) => e,
    })
}

/// What one input file holds: its containers, images, entry tables and warnings, and the error
/// that ended its reading early, if one did (the report then holds what was read before it).
#[derive(Debug)]
pub struct Scanned {
    /// What was read.
    pub report: Report,
    /// Why the input could not be read whole.
    pub error: Option<Error>,
}

/// Scans the input file at `path` into a report.
pub fn scan_file(path: &Path, opts: ScanOptions) -> Scanned {
    let mut report = Report::default();
    let walked = walk_file(path, opts, &mut |ev| {
        match ev {
            Event::Container(c) => report.containers.push(c.clone()),
            Event::Image(i) => report.images.push(i.info.clone()),
            Event::Table(t) => report.tables.push(t.clone()),
            Event::Warning(w) => report.warnings.push(w.clone()),
            _ => {}
        }
        Ok::<(), Error>(())
    });
    Scanned {
        report,
        error: walked.err(),
    }
}

/// [`Inflate::Whole`] without entry tables: compressed bundles decompressed whole, for their
/// images' bytes.
pub(crate) fn whole() -> ScanOptions {
    ScanOptions {
        inflate: Inflate::Whole,
        ..ScanOptions::images()
    }
}

/// A file to read: named by the caller, or found in a directory the caller named.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Input {
    /// The file.
    pub path: PathBuf,
    /// Whether it was found in a directory (such a file without device code is passed over,
    /// where a file named on its own is reported whatever it holds).
    pub from_dir: bool,
}

/// The files `paths` name, in order: a file as given; a directory walked recursively for the
/// files that start like a container that may hold device code (ELF, archive, bundle, offload
/// binary, bitcode), sorted by name ([`offkit_tools::walk::files_under`]: links to a file found
/// itself are passed over; FIFOs and devices are never opened for more than their type).
/// A directory that cannot be read is an error naming it.
pub fn inputs(paths: &[PathBuf]) -> Result<Vec<Input>, Error> {
    let mut out = Vec::with_capacity(paths.len());
    for p in paths {
        if !p.is_dir() {
            out.push(Input {
                path: p.clone(),
                from_dir: false,
            });
            continue;
        }
        let found = offkit_tools::walk::files_under(p, &looks_like_container)
            .map_err(|(path, source)| Error::Read { path, source })?;
        out.extend(found.into_iter().map(|path| Input {
            path,
            from_dir: true,
        }));
    }
    Ok(out)
}

/// Whether the file at `p` starts like a container (opened through the one input opener: a
/// FIFO or device found in a directory is passed over, never waited on).
fn looks_like_container(p: &Path) -> bool {
    MappedFile::open(p).is_ok_and(|m| coverage::looks_like_container(&m))
}
