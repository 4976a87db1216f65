//! `offkit extract`: write the selected device images of objects, archives, executables and
//! bundles to a directory.

use std::path::PathBuf;

use anyhow::Result;

use offkit_bundle::extract::{plan, ExtractConfig};
use offkit_tools::Env;

use crate::output::{inputs_failed, print_error};
use crate::select::SelectArgs;

/// Write the selected device images of objects, archives, executables and bundles to a
/// directory.
///
/// Every device image `offkit inspect` lists (offload binary images, bundle entries, bundled
/// object sections, CUDA fat binary entries) is a candidate; `--triple`, `--arch`, `--kind` and
/// `--device` narrow the choice. Files are named after where the image was found and what it is —
/// `<file>[-<member>][-b<bundle>]-<kind>-<triple>[-<target id>].<ext>` (`b<bundle>`: the
/// bundle's index in a `.hip_fatbin` section or bundle file) — with anything but letters,
/// digits and `._+-` replaced by `_`, so that no name can leave DIR; a name already taken by an
/// earlier image of the inputs, chosen or not, gets `.1`, `.2`, … before its extension. The
/// name does not depend on how an image is chosen (all, a selection, its address). Each file is written atomically. An input
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
    select: SelectArgs,
}

/// Runs `offkit extract`.
pub fn run(args: Args, _env: &Env) -> Result<()> {
    // Pass 1: read every header and decide every name. An unreadable input is reported and
    // left out (nothing of it is written); the others go on, and the exit status is 1.
    let mut plan = plan(&ExtractConfig {
        inputs: args.files.clone(),
        dir: args.dir.clone(),
        select: args.select.selection(),
    });
    let failed = plan.failures.len();
    for e in std::mem::take(&mut plan.failures) {
        print_error(&e.into());
    }
    if plan.images.is_empty() {
        inputs_failed(failed, plan.inputs)?;
        anyhow::bail!("{}", plan.no_match());
    }
    // Pass 2: copy, decompress or write the planned images; undo everything on failure.
    plan.write()?;
    for p in &plan.images {
        println!("{}\t{} bytes\t{}", p.path.display(), p.size, p.location);
    }
    inputs_failed(failed, plan.inputs)
}
