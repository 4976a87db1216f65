//! `offkit extract`: write the selected device images of objects, archives, executables and
//! bundles to a directory.

mod naming;
mod write;

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use offkit_format::scan::{Address, EntryTables, Event};
use offkit_tools::Env;

use super::inspect::walk_file;
use crate::output::{inputs_failed, print_error};
use crate::select::{Seen, Selection};

/// Write the selected device images of objects, archives, executables and bundles to a
/// directory.
///
/// Every device image `offkit inspect` lists (offload binary images, bundle entries, bundled
/// object sections, CUDA fat binary entries) is a candidate; `--triple`, `--arch`, `--kind` and
/// `--device` narrow the choice. Files are named after where the image was found and what it is —
/// `<file>[-<member>][-b<bundle>]-<kind>-<triple>[-<target id>].<ext>` (`b<bundle>`: the
/// bundle's index in a `.hip_fatbin` section or bundle file) — with anything but letters,
/// digits and `._+-` replaced by `_`, so that no name can leave DIR; a name already used gets
/// `.1`, `.2`, … before its extension, in input order. Each file is written atomically. An input
/// that cannot be read is reported (file, offset, what) and nothing of it is written; the other
/// inputs are still extracted, and the exit status is 1. When writing fails, nothing is left
/// behind.
///
/// A FILE may also be the address of one image, as `offkit inspect --json` gives it
/// (`file://PATH#offset=N&size=M`, with `&inflated-offset=I&inflated-size=J` for an image of a
/// compressed bundle): that image alone is extracted.
///
/// Images are streamed, never held: uncompressed ones are copied file to file by the kernel,
/// compressed bundles are decompressed as a stream into the images' files (size and hash
/// checked before anything is kept), so memory stays within a few MiB whatever the sizes.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  offkit extract a.out -o images\n  \
                        offkit extract libk.a --kind hip --arch gfx90a -o images\n  \
                        offkit extract libk.so --device gfx90a:xnack+ -o images")]
pub struct Args {
    /// The files to extract from (as for `offkit inspect`), or image addresses
    /// (`file://PATH#offset=N&size=M…`, from `offkit inspect --json`).
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,
    /// The directory to write the images to (created if missing).
    #[arg(short = 'o', long = "output", value_name = "DIR")]
    dir: PathBuf,
    /// Which images (all by default).
    #[command(flatten)]
    select: Selection,
}

/// One image to write: where its bytes are, and where they go.
struct Planned {
    path: PathBuf,
    location: String,
    size: u64,
    fetch: write::Fetch,
}

/// An input: a file, or a file and the address of one image in it (`file://…#offset=…`).
fn parse_input(arg: &Path) -> (PathBuf, Option<Address>) {
    match arg.to_str().and_then(Address::parse_uri) {
        Some((path, a)) => (PathBuf::from(path), Some(a)),
        None => (arg.to_path_buf(), None),
    }
}

/// Runs `offkit extract`.
pub fn run(args: Args, _env: &Env) -> Result<()> {
    // Pass 1: read every header and decide every name. Compressed bundles are decompressed
    // only as far as their entry tables. An unreadable input is reported and left out (nothing
    // of it is written); the others go on, and the exit status is 1.
    let mut names = naming::Names::default();
    let mut plan = Vec::new();
    let mut seen = Seen::default();
    let mut failed = 0usize;
    for arg in &args.files {
        let (path, wanted) = parse_input(arg);
        let mut found = Vec::new();
        let walked = walk_file(&path, EntryTables::None, &mut |ev| {
            if let Event::Image(img) = ev {
                seen.add(img.info);
                let chosen = match &wanted {
                    Some(a) => img.info.address.as_ref() == Some(a),
                    None => args.select.selects(img.info),
                };
                if chosen {
                    found.push((
                        naming::describe(img.info),
                        img.info.location.to_string(),
                        img.info.size,
                        write::Fetch::of(img.info, &path),
                    ));
                }
            }
            Ok(())
        });
        if let Err(e) = walked {
            print_error(&e);
            failed += 1;
            continue;
        }
        if let (Some(a), true) = (wanted, found.is_empty()) {
            print_error(&anyhow::anyhow!(
                "no device image of `{}` is at {}",
                path.display(),
                a.uri(&path.display().to_string())
            ));
            failed += 1;
            continue;
        }
        for (name, location, size, fetch) in found {
            plan.push(Planned {
                path: args.dir.join(names.unique(name)),
                location,
                size,
                fetch,
            });
        }
    }
    if plan.is_empty() {
        inputs_failed(failed, args.files.len())?;
        bail!("{}", args.select.no_match(&seen));
    }
    // Pass 2: copy, decompress or write the planned images; undo everything on failure.
    let created_dir = !args.dir.exists();
    std::fs::create_dir_all(&args.dir)
        .with_context(|| format!("failed to create `{}`", args.dir.display()))?;
    let mut written: Vec<PathBuf> = Vec::new();
    let jobs: Vec<write::Job<'_>> = plan
        .iter()
        .map(|p| write::Job {
            dest: &p.path,
            size: p.size,
            fetch: &p.fetch,
        })
        .collect();
    let result = write::write_all(&jobs, &mut written);
    if result.is_err() {
        for p in &written {
            let _ = std::fs::remove_file(p);
        }
        if created_dir {
            let _ = std::fs::remove_dir(&args.dir);
        }
    }
    result?;
    for p in &plan {
        println!("{}\t{} bytes\t{}", p.path.display(), p.size, p.location);
    }
    inputs_failed(failed, args.files.len())
}
