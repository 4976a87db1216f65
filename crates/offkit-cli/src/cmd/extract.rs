//! `offkit extract`: write the selected device images of objects, archives, executables and
//! bundles to a directory.

mod naming;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use offkit_format::scan::{EntryTables, Event};
use offkit_tools::Env;

use super::inspect::walk_file;
use crate::output::{inputs_failed, print_error, write_atomic};
use crate::select::{Seen, Selection};

/// Write the selected device images of objects, archives, executables and bundles to a
/// directory.
///
/// Every device image `offkit inspect` lists (offload binary images, bundle entries, bundled
/// object sections, `.nv_fatbin` contents) is a candidate; `--triple`, `--arch`, `--kind` and
/// `--device` narrow the choice. Files are named after where the image was found and what it is —
/// `<file>[-<member>]-<kind>-<triple>[-<target id>].<ext>` — with anything but letters, digits
/// and `._+-` replaced by `_`, so that no name can leave DIR; a name already used gets `.1`,
/// `.2`, … before its extension, in input order. Each file is written atomically. An input
/// that cannot be read is reported (file, offset, what) and nothing of it is written; the other
/// inputs are still extracted, and the exit status is 1. When writing fails, nothing is left
/// behind.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  offkit extract a.out -o images\n  \
                        offkit extract libk.a --kind hip --arch gfx90a -o images\n  \
                        offkit extract libk.so --device gfx90a:xnack+ -o images")]
pub struct Args {
    /// The files to extract from (as for `offkit inspect`).
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,
    /// The directory to write the images to (created if missing).
    #[arg(short = 'o', long = "output", value_name = "DIR")]
    dir: PathBuf,
    /// Which images (all by default).
    #[command(flatten)]
    select: Selection,
}

/// One image to write: which input, which image of its walk, where to.
struct Planned {
    file: usize,
    ordinal: usize,
    path: PathBuf,
    location: String,
    size: u64,
}

/// Runs `offkit extract`.
pub fn run(args: Args, _env: &Env) -> Result<()> {
    // Pass 1: read everything and decide every name. An unreadable input is reported and
    // left out (nothing of it is written); the others go on, and the exit status is 1.
    let mut names = naming::Names::default();
    let mut plan = Vec::new();
    let mut seen = Seen::default();
    let mut failed = 0usize;
    for (file, path) in args.files.iter().enumerate() {
        let mut ordinal = 0usize;
        let mut found = Vec::new();
        let walked = walk_file(path, EntryTables::None, &mut |ev| {
            if let Event::Image(img) = ev {
                seen.add(img.info);
                if args.select.selects(img.info) {
                    found.push((
                        ordinal,
                        naming::describe(img.info),
                        img.info.location.to_string(),
                        img.info.size,
                    ));
                }
                ordinal += 1;
            }
            Ok(())
        });
        if let Err(e) = walked {
            print_error(&e);
            failed += 1;
            continue;
        }
        for (ordinal, name, location, size) in found {
            plan.push(Planned {
                file,
                ordinal,
                path: args.dir.join(names.unique(name)),
                location,
                size,
            });
        }
    }
    if plan.is_empty() {
        inputs_failed(failed, args.files.len())?;
        bail!("{}", args.select.no_match(&seen));
    }
    // Pass 2: walk again and write the planned images; undo everything on failure.
    let created_dir = !args.dir.exists();
    std::fs::create_dir_all(&args.dir)
        .with_context(|| format!("failed to create `{}`", args.dir.display()))?;
    let mut written: Vec<&Path> = Vec::new();
    let result = write_planned(&args, &plan, &mut written);
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

fn write_planned<'p>(args: &Args, plan: &'p [Planned], written: &mut Vec<&'p Path>) -> Result<()> {
    let mut by_file: BTreeMap<usize, BTreeMap<usize, &Planned>> = BTreeMap::new();
    for p in plan {
        by_file.entry(p.file).or_default().insert(p.ordinal, p);
    }
    for (file, wanted) in by_file {
        let path = &args.files[file];
        let mut ordinal = 0usize;
        walk_file(path, EntryTables::None, &mut |ev| {
            if let Event::Image(img) = ev {
                if let Some(p) = wanted.get(&ordinal) {
                    if img.info.location.to_string() != p.location || img.info.size != p.size {
                        bail!("`{}` changed while it was being read", path.display());
                    }
                    write_atomic(&p.path, img.bytes)?;
                    written.push(&p.path);
                }
                ordinal += 1;
            }
            Ok(())
        })?;
    }
    Ok(())
}
